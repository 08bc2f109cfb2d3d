//! The ranges and combinations every offer must respect, whichever file or form it came from.

use rust_decimal::Decimal;

use crate::hardware::gpu::find_gpu;
use crate::hardware::links::Interconnect;
use crate::hardware::mig::{find_mig, mig_names};
use crate::numbers::date::PriceDate;
use crate::numbers::problem::{FieldError, Problem};
use crate::offers::billing::BillingMode;
use crate::offers::offer::{Offer, PriceEvidence};
use crate::offers::tenancy::Tenancy;

/// The highest price, upfront payment or per-unit charge an offer may state, in its currency.
pub const MAX_OFFER_PRICE: Decimal = Decimal::from_parts(100_000_000, 0, 0, false, 0);

/// The smallest price other than zero an offer may state (a millionth of its currency): with
/// both bounds, every ratio and sum of prices fits exact decimal arithmetic.
pub const MIN_NONZERO_PRICE: Decimal = Decimal::from_parts(1, 0, 0, false, 6);

/// How far a typed `gpu_fraction` may be from a MIG profile's SM share (rounding in a sheet).
pub const MIG_SHARE_TOLERANCE: f64 = 0.005;

/// Checks the ranges and combinations an offer must respect; the error names the field.
pub fn validate_offer(o: &Offer) -> Result<(), FieldError> {
    let fail = |field: &str, problem: Problem| Err(FieldError::new(field, problem));
    let range = |min: f64, max: f64| Problem::OutOfRange { min, max };
    if o.id.is_empty() {
        return fail("id", Problem::Required);
    }
    if find_gpu(&o.gpu).is_none() {
        return fail(
            "gpu",
            Problem::UnknownGpu {
                name: o.gpu.clone(),
            },
        );
    }
    if o.gpu_count == 0 || o.gpu_count > 1024 {
        return fail("gpu_count", range(1.0, 1024.0));
    }
    if !(o.gpu_fraction > 0.0 && o.gpu_fraction <= 1.0) {
        return fail("gpu_fraction", Problem::AboveZero { max: 1.0 });
    }
    if !(o.vram_gib > 0.0 && o.vram_gib <= 4096.0) {
        return fail("vram_gib", Problem::AboveZero { max: 4096.0 });
    }
    if !(o.region.rtt_ms.is_finite() && (0.0..=10_000.0).contains(&o.region.rtt_ms)) {
        return fail("rtt_ms", range(0.0, 10_000.0));
    }
    for (field, value) in [
        ("price", Some(o.price)),
        ("upfront", o.upfront),
        ("minimum_minutes", o.minimum_minutes),
        ("storage_per_gb_month", Some(o.storage_per_gb_month)),
        ("egress_per_gb", Some(o.egress_per_gb)),
        ("system_disk_per_month", Some(o.system_disk_per_month)),
    ] {
        if let Some(v) = value
            && (v.is_sign_negative() && !v.is_zero()
                || v > MAX_OFFER_PRICE
                || !v.is_zero() && v < MIN_NONZERO_PRICE)
        {
            return fail(field, range(0.000_001, 100_000_000.0));
        }
    }
    o.interruptions.validate()?;
    if let Some(q) = o.queue_wait_hours
        && !(q.is_finite() && (0.0..=10_000.0).contains(&q))
    {
        return fail("queue_wait_hours", range(0.0, 10_000.0));
    }
    for (field, value, max) in [
        ("queue_p0", o.queue_p0, 1.0),
        ("queue_median_hours", o.queue_median_hours, 8_760.0),
        ("queue_sigma", o.queue_sigma, 5.0),
        ("neighbour_load", o.neighbour_load, 1.0),
    ] {
        if let Some(v) = value
            && !(v.is_finite() && (0.0..=max).contains(&v))
        {
            return fail(field, range(0.0, max));
        }
    }
    if let Some(t) = &o.queue_trace {
        t.validate()?;
    }
    // The shape of a queue needs its median: a start-at-once share or a spread alone says
    // nothing of how long the rest wait.
    for (field, value) in [("queue_p0", o.queue_p0), ("queue_sigma", o.queue_sigma)] {
        if value.is_some() && o.queue_median_hours.is_none() {
            return fail(
                "queue_median_hours",
                Problem::RequiredWith {
                    other: field.to_owned(),
                },
            );
        }
    }
    if o.billing_mode == BillingMode::Reserved && !matches!(o.term_months, Some(1..=120)) {
        return fail("term_months", Problem::ReservedTerm);
    }
    if o.billing_mode.is_metered() && o.granularity.is_none() {
        return fail("granularity", Problem::MeteredGranularity);
    }
    if let Some(name) = &o.mig_profile {
        if o.tenancy != Tenancy::Mig {
            return fail(
                "tenancy",
                Problem::NotOneOf {
                    value: o.tenancy.id().to_owned(),
                    allowed: "mig (a row with a mig_profile is a MIG slice)".to_owned(),
                },
            );
        }
        let Some(m) = find_mig(&o.gpu, name) else {
            let known = mig_names(&o.gpu);
            return fail(
                "mig_profile",
                Problem::NotOneOf {
                    value: name.clone(),
                    allowed: if known.is_empty() {
                        format!("none known for {} (give gpu_fraction instead)", o.gpu)
                    } else {
                        known
                    },
                },
            );
        };
        // The share is the profile's; a typed one must agree with it.
        if (o.gpu_fraction - m.compute_share()).abs() > MIG_SHARE_TOLERANCE {
            return fail(
                "gpu_fraction",
                Problem::OutOfRange {
                    min: m.compute_share() - MIG_SHARE_TOLERANCE,
                    max: m.compute_share() + MIG_SHARE_TOLERANCE,
                },
            );
        }
    }
    if o.tenancy == Tenancy::Dedicated && o.gpu_fraction < 1.0 {
        return fail("gpu_fraction", Problem::DedicatedWhole);
    }
    validate_links(o)?;
    if let Some(io) = &o.io {
        for (field, rate) in [
            ("io.disk_read_mb_s", io.disk_read_mb_s),
            ("io.download_mbit_s", io.download_mbit_s),
        ] {
            if let Some(r) = rate
                && !(r.is_finite() && r > 0.0 && r < 1e9)
            {
                return fail(field, Problem::Positive);
            }
        }
    }
    if let Some(s) = &o.slowdown {
        s.validate()?;
    }
    PriceDate::parse(&o.as_of).map_err(|p| FieldError::new("as_of", p))?;
    if o.instance_type
        .as_deref()
        .is_some_and(|t| t.trim().is_empty())
    {
        return fail("instance_type", Problem::Required);
    }
    if o.source.trim().is_empty() {
        return fail("source", Problem::Required);
    }
    if let Some(e) = o.price_evidence
        && (e == PriceEvidence::Estimate) != o.estimate
    {
        return fail("price_evidence", Problem::EstimateEvidence);
    }
    Ok(())
}

/// The links of a multi-GPU offer: NVLink only on whole cards that have it, nodes that divide
/// the GPUs, and a network between them.
fn validate_links(o: &Offer) -> Result<(), FieldError> {
    let fail = |field: &str, problem: Problem| Err(FieldError::new(field, problem));
    if o.interconnect == Some(Interconnect::Nvlink) {
        let slice = o.tenancy != Tenancy::Dedicated || o.gpu_fraction < 1.0;
        let card = find_gpu(&o.gpu).is_some_and(|g| g.nvlink);
        if slice || !card {
            return fail(
                "interconnect",
                Problem::NotOneOf {
                    value: "nvlink".to_owned(),
                    allowed: if slice {
                        "pcie, none (a slice or a shared card has no NVLink)".to_owned()
                    } else {
                        format!("pcie, none ({} has no NVLink)", o.gpu)
                    },
                },
            );
        }
    }
    if let Some(per) = o.gpus_per_node
        && (per == 0 || per > o.gpu_count || !o.gpu_count.is_multiple_of(per))
    {
        return fail(
            "gpus_per_node",
            Problem::NotOneOf {
                value: per.to_string(),
                allowed: format!("a divisor of gpu_count ({})", o.gpu_count),
            },
        );
    }
    if let Some(g) = o.node_network_gbps
        && !(g.is_finite() && g > 0.0 && g <= 100_000.0)
    {
        return fail("node_network_gbps", Problem::AboveZero { max: 100_000.0 });
    }
    if o.gpus_per_node.is_some_and(|per| per < o.gpu_count) && o.node_network_gbps.is_none() {
        return fail(
            "node_network_gbps",
            Problem::RequiredWith {
                other: "gpus_per_node".to_owned(),
            },
        );
    }
    Ok(())
}
