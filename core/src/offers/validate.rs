//! The ranges and combinations every offer must respect, whichever file or form it came from.

use rust_decimal::Decimal;

use crate::offers::billing::BillingMode;
use crate::offers::offer::Offer;
use crate::offers::tenancy::Tenancy;

/// Checks the ranges and combinations an offer must respect; returns the field and reason.
pub fn validate_offer(o: &Offer) -> Result<(), (String, String)> {
    let fail = |field: &str, message: &str| Err((field.to_owned(), message.to_owned()));
    let max_price = Decimal::from(100_000_000);
    if o.id.is_empty() {
        return fail("id", "is required");
    }
    if crate::hardware::gpu::find_gpu(&o.gpu).is_none() {
        return Err((
            "gpu".to_owned(),
            format!("{:?} is not in the GPU spec table", o.gpu),
        ));
    }
    if o.gpu_count == 0 || o.gpu_count > 1024 {
        return fail("gpu_count", "must be between 1 and 1024");
    }
    if !(o.gpu_fraction > 0.0 && o.gpu_fraction <= 1.0) {
        return fail("gpu_fraction", "must be greater than 0 and at most 1");
    }
    if !(o.vram_gib > 0.0 && o.vram_gib <= 4096.0) {
        return fail("vram_gib", "must be greater than 0 and at most 4096");
    }
    if !(o.region.rtt_ms.is_finite() && (0.0..=10_000.0).contains(&o.region.rtt_ms)) {
        return fail("rtt_ms", "must be between 0 and 10000");
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
            && (v.is_sign_negative() && !v.is_zero() || v > max_price)
        {
            return fail(field, "must be between 0 and 100000000");
        }
    }
    if let Some(p) = o.interruption_per_month
        && !(0.0..1.0).contains(&p)
    {
        return fail(
            "interruption_per_month",
            "must be a probability from 0 up to (not including) 1",
        );
    }
    if let Some(q) = o.queue_wait_hours
        && !(q.is_finite() && (0.0..=10_000.0).contains(&q))
    {
        return fail("queue_wait_hours", "must be between 0 and 10000");
    }
    if o.billing_mode == BillingMode::Reserved && !matches!(o.term_months, Some(1..=120)) {
        return fail(
            "term_months",
            "a reserved offer needs a term of 1 to 120 months",
        );
    }
    if o.billing_mode.is_metered() && o.granularity.is_none() {
        return fail(
            "granularity",
            "a pay-as-you-go or spot offer needs second, minute or hour",
        );
    }
    if o.tenancy == Tenancy::Dedicated && o.gpu_fraction < 1.0 {
        return fail(
            "gpu_fraction",
            "a dedicated offer rents whole GPUs (fraction 1)",
        );
    }
    if let Some(io) = &o.io
        && [io.disk_read_mb_s, io.download_mbit_s]
            .into_iter()
            .flatten()
            .any(|r| !(r.is_finite() && r > 0.0 && r < 1e9))
    {
        return Err((
            "io".to_owned(),
            "IO rates must be positive numbers".to_owned(),
        ));
    }
    if let Some(s) = &o.slowdown {
        s.validate().map_err(|m| ("slowdown".to_owned(), m))?;
    }
    Ok(())
}
