//! Importing SkyPilot catalogs (`vms.csv`, schema v7/v8) into our offers, with a report of every
//! row skipped and why.
//!
//! Quirks handled, as seen in the published catalogs (github.com/skypilot-org/skypilot-catalog,
//! `catalogs/v7` and `v8`; see docs/sources.md): columns are found by header name (their order
//! differs per cloud); `GpuInfo` is also spelled `GPUInfo` and is a Python dict literal, not
//! JSON; RunPod's `SizeInMiB` holds GB; `SpotPrice` may be blank, `0.00` (not offered) or equal
//! to `Price` (no real discount: spot below 95 % of on-demand counts); spot becomes a row of its
//! own; GCP host-VM rows carry no accelerator and are skipped; rows of the same instance and
//! region in several zones are merged at the lowest price; AWS's `GpuPartitionSize` below 1 is a
//! fractional GPU (a slice).
//!
//! The traps of [`crate::offers::feeds::traps`] apply too: an AWS Local or Wavelength Zone row
//! (`use1-atl2-az1`) is not the region's price and is left out (`left_out`); a spot price below
//! a fifth of on-demand is kept and flagged; an instance listed at one price in many regions is
//! flagged (RunPod and Lambda list every data centre at one price, with capacity or not); a
//! Vast price is the median of live marketplace offers and its rows' source says so. Rows are
//! `catalog` evidence and never estimates (a spot row's interruption figures are assumed, and
//! its `interruption_source` says so).

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::gpu::find_gpu;
use crate::numbers::money::Currency;
use crate::offers::billing::BillingMode;
use crate::offers::catalog::{CATALOG_FORMAT_VERSION, Catalog, CatalogError, CsvProblem};
use crate::offers::feeds::traps::{is_aws_local_zone, region_class, spot_check, uniform_prices};
use crate::offers::feeds::{DatedBy, FeedFlag, FeedReport, FeedSkip, Flag, SkipWhy};
use crate::offers::interruption::assumed_spot;
use crate::offers::offer::{Offer, PriceEvidence, Region, default_rtt_ms};
use crate::offers::tenancy::Tenancy;

/// Spot counts as discounted only below this share of the on-demand price.
pub const SPOT_DISCOUNT_SHARE: f64 = 0.95;

/// A row that was not imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Skipped {
    /// 1-based line in the file.
    pub line: u64,
    /// The instance type, when readable.
    pub instance: String,
    /// Why.
    pub reason: SkipReason,
}

pub use crate::offers::feeds::SkipReason;

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ImportReport {
    /// Data rows read.
    pub rows: usize,
    /// Offers produced (on-demand and spot rows).
    pub offers: usize,
    /// Zone rows merged into an offer of the same instance and region.
    pub merged_zone_rows: usize,
    /// Rows skipped, with the reason.
    pub skipped: Vec<Skipped>,
    /// Spot prices not turned into offers, with the reason (the on-demand row is kept).
    pub spot_ignored: Vec<Skipped>,
    /// Rows left out by the traps of public price data (an AWS Local Zone), with the reason.
    #[serde(default)]
    pub left_out: Vec<FeedSkip>,
    /// Offers kept with something to know (an outlying spot price, one price everywhere).
    #[serde(default)]
    pub flagged: Vec<FeedFlag>,
    /// Remarks about the file as a whole (a provider that lists every region at one price, a
    /// marketplace median).
    #[serde(default)]
    pub notes: Vec<String>,
}

impl ImportReport {
    /// The report in the form every feed's import gives it.
    pub fn to_feed_report(
        &self,
        feed: &str,
        source: &str,
        as_of: &str,
        dated_by: DatedBy,
    ) -> FeedReport {
        let mut r = FeedReport::new(feed, source, as_of, dated_by);
        r.rows = self.rows;
        r.offers = self.offers;
        for s in self.skipped.iter().chain(&self.spot_ignored) {
            match s.reason {
                SkipReason::NoAccelerator => r.ignore("no accelerator (a host VM row)"),
                SkipReason::SpotNotOffered => r.ignore("spot not offered"),
                _ => r.skip(
                    &format!("line {} {}", s.line, s.instance),
                    SkipWhy::SkyPilot {
                        reason: s.reason.clone(),
                    },
                ),
            }
        }
        r.skipped.extend(self.left_out.iter().cloned());
        r.flagged = self.flagged.clone();
        r.notes = self.notes.clone();
        if self.merged_zone_rows > 0 {
            r.notes.push(format!(
                "{} zone rows merged into their region's offer at the lowest price",
                self.merged_zone_rows
            ));
        }
        r
    }
}

/// Providers that list every region at one price, with capacity there or not.
const ONE_PRICE_EVERYWHERE: [&str; 3] = ["runpod", "lambda", "lambdalabs"];

/// Maps SkyPilot accelerator names to our GPU short names.
pub fn map_gpu(name: &str) -> Option<&'static str> {
    let short = match name.trim() {
        "H100" | "H100-SXM" | "H100-80GB" => "H100-SXM",
        "H100-PCIE" | "H100-PCIe" => "H100-PCIe",
        "A100" | "A100-40GB" => "A100-40GB",
        "A100-80GB" => "A100-80GB",
        "V100" | "V100-16GB" => "V100-16GB",
        "V100-32GB" => "V100-32GB",
        "RTX4090" | "RTX 4090" => "RTX4090",
        "RTX3090" | "RTX 3090" => "RTX3090",
        "A6000" | "RTXA6000" => "A6000",
        other => other,
    };
    find_gpu(short).map(|g| g.short.as_str())
}

/// Reads a number after `'Key': ` in a Python dict literal (first occurrence).
fn dict_number(literal: &str, key: &str) -> Option<f64> {
    let needle = format!("'{key}':");
    let start = literal.find(&needle)? + needle.len();
    let rest = literal.get(start..)?.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
        .unwrap_or(rest.len());
    rest.get(..end)?.parse().ok()
}

fn slug(text: &str) -> String {
    crate::offers::feeds::slug(text)
}

/// Imports a SkyPilot `vms.csv` as offers of `provider`, priced in USD as of `as_of`.
pub fn import_vms_csv(
    text: &str,
    provider: &str,
    as_of: &str,
) -> Result<(Catalog, ImportReport), CatalogError> {
    import_vms_csv_from(
        text,
        provider,
        as_of,
        &format!("SkyPilot vms.csv import ({provider})"),
    )
}

/// Imports a SkyPilot `vms.csv` as offers of `provider`, priced in USD as of `as_of`, each
/// row's source `source` (the file's public URL).
pub fn import_vms_csv_from(
    text: &str,
    provider: &str,
    as_of: &str,
    source: &str,
) -> Result<(Catalog, ImportReport), CatalogError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| CatalogError::Csv {
            line: 1,
            problem: CsvProblem::Unreadable {
                detail: e.to_string(),
            },
        })?
        .clone();
    let col = |names: &[&str]| headers.iter().position(|h| names.contains(&h.trim()));
    let (Some(c_instance), Some(c_price), Some(c_region)) =
        (col(&["InstanceType"]), col(&["Price"]), col(&["Region"]))
    else {
        return Err(CatalogError::Csv {
            line: 1,
            problem: CsvProblem::NotSkyPilot,
        });
    };
    let c_acc = col(&["AcceleratorName"]);
    let c_count = col(&["AcceleratorCount"]);
    let c_info = col(&["GpuInfo", "GPUInfo"]);
    let c_spot = col(&["SpotPrice"]);
    let c_vcpu = col(&["vCPUs"]);
    let c_mem = col(&["MemoryGiB"]);
    let c_zone = col(&["AvailabilityZone"]);
    let provider_id = provider.trim().to_ascii_lowercase();
    let aws = provider_id == "aws";
    let vast = provider_id == "vast" || provider_id == "vastai";
    let source = if vast {
        format!(
            "{source} (Vast: the price is the median of the live offers in its bucket, not the cheapest)"
        )
    } else {
        source.to_owned()
    };

    let mut report = ImportReport::default();
    // (instance, region, spot) -> offer; zone rows merge at the lowest price.
    let mut by_key: BTreeMap<(String, String, bool), Offer> = BTreeMap::new();
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                report.skipped.push(Skipped {
                    line,
                    instance: String::new(),
                    reason: SkipReason::Unreadable {
                        detail: e.to_string(),
                    },
                });
                continue;
            }
        };
        report.rows += 1;
        let line = record.position().map_or(0, |p| p.line());
        let get = |c: Option<usize>| c.and_then(|i| record.get(i)).map(str::trim).unwrap_or("");
        let instance = get(Some(c_instance)).to_owned();
        let skip = |report: &mut ImportReport, reason: SkipReason| {
            report.skipped.push(Skipped {
                line,
                instance: instance.clone(),
                reason,
            })
        };
        let zone = get(c_zone);
        if aws && (is_aws_local_zone(zone) || is_aws_local_zone(get(Some(c_region)))) {
            let zone = if zone.is_empty() {
                get(Some(c_region))
            } else {
                zone
            };
            report.left_out.push(FeedSkip {
                item: format!("line {line} {instance} {zone}"),
                rows: 1,
                reason: SkipWhy::LocalZone {
                    zone: zone.to_owned(),
                },
            });
            continue;
        }
        let accelerator = get(c_acc);
        if accelerator.is_empty() {
            skip(&mut report, SkipReason::NoAccelerator);
            continue;
        }
        // `map_gpu` only names GPUs of the spec table, so the second look-up always succeeds;
        // doing both in one step leaves no panic behind should that ever change.
        let Some((gpu, spec)) = map_gpu(accelerator).and_then(|gpu| Some((gpu, find_gpu(gpu)?)))
        else {
            skip(
                &mut report,
                SkipReason::UnknownGpu {
                    name: accelerator.to_owned(),
                },
            );
            continue;
        };
        let price: f64 = match get(Some(c_price)).parse() {
            Ok(p) if p > 0.0 && f64::is_finite(p) => p,
            _ => {
                skip(
                    &mut report,
                    SkipReason::NoPrice {
                        value: get(Some(c_price)).to_owned(),
                    },
                );
                continue;
            }
        };
        let count: f64 = get(c_count).parse().unwrap_or(1.0);
        let info = get(c_info);
        let partition = dict_number(info, "GpuPartitionSize").filter(|p| *p > 0.0 && *p <= 1.0);
        let fraction = partition.unwrap_or(if count > 0.0 && count < 1.0 {
            count
        } else {
            1.0
        });
        let gpu_count = if count >= 1.0 {
            count.round() as u32
        } else {
            1
        };
        let vram_gib = match dict_number(info, "SizeInMiB") {
            // RunPod writes GB into SizeInMiB.
            Some(v) if v > 0.0 && v < 1024.0 => v,
            Some(v) if v > 0.0 => v / 1024.0,
            _ => spec.vram_gb * fraction,
        };
        let region_id = get(Some(c_region)).to_owned();
        let (class, _) = region_class(&region_id);
        let tenancy = if fraction < 1.0 {
            Tenancy::Vgpu
        } else if vast {
            Tenancy::MarketplaceHost
        } else {
            Tenancy::Dedicated
        };
        let base = Offer {
            provider: provider.to_owned(),
            region: Region {
                id: region_id.clone(),
                name: region_id.clone(),
                class,
                rtt_ms: default_rtt_ms(class),
            },
            gpu: gpu.to_owned(),
            gpu_count,
            tenancy,
            gpu_fraction: fraction,
            vram_gib: (vram_gib * 100.0).round() / 100.0,
            vcpu: get(c_vcpu).parse::<f64>().ok().map(|v| v.round() as u32),
            ram_gib: get(c_mem).parse().ok(),
            price: Decimal::from_f64_retain(price)
                .unwrap_or_default()
                .round_dp(6)
                .normalize(),
            currency: Currency::Usd,
            as_of: as_of.to_owned(),
            source: source.clone(),
            price_evidence: Some(PriceEvidence::Catalog),
            ..Offer::blank()
        };
        let mut rows = vec![(false, base.clone())];
        match get(c_spot) {
            "" => {}
            s => match s.parse::<f64>() {
                Ok(sp) if sp > 0.0 && sp < SPOT_DISCOUNT_SHARE * price => {
                    let mut spot = base.clone();
                    spot.billing_mode = BillingMode::Spot;
                    spot.price = Decimal::from_f64_retain(sp)
                        .unwrap_or_default()
                        .round_dp(6)
                        .normalize();
                    spot.interruptions = assumed_spot(&spot.provider);
                    rows.push((true, spot));
                }
                Ok(sp) if sp <= 0.0 => report.spot_ignored.push(Skipped {
                    line,
                    instance: instance.clone(),
                    reason: SkipReason::SpotNotOffered,
                }),
                Ok(_) => report.spot_ignored.push(Skipped {
                    line,
                    instance: instance.clone(),
                    reason: SkipReason::SpotNoDiscount,
                }),
                Err(_) => report.spot_ignored.push(Skipped {
                    line,
                    instance: instance.clone(),
                    reason: SkipReason::SpotNotANumber {
                        value: s.to_owned(),
                    },
                }),
            },
        }
        for (is_spot, mut offer) in rows {
            offer.id = format!(
                "{}-{}-{}{}",
                slug(provider),
                slug(&instance),
                slug(&region_id),
                if is_spot { "-spot" } else { "" }
            );
            let key = (instance.clone(), region_id.clone(), is_spot);
            match by_key.get_mut(&key) {
                Some(existing) => {
                    if !is_spot {
                        report.merged_zone_rows += 1;
                    }
                    if offer.price < existing.price {
                        existing.price = offer.price;
                    }
                }
                None => {
                    by_key.insert(key, offer);
                }
            }
        }
    }
    // The cheapest zone's spot price against the region's on-demand price.
    for ((instance, region, is_spot), offer) in &by_key {
        if !is_spot {
            continue;
        }
        let on_demand = by_key
            .get(&(instance.clone(), region.clone(), false))
            .map(|o| o.price);
        if let crate::offers::feeds::traps::SpotCheck::KeepFlagged(
            flag @ Flag::SpotOutlier { .. },
        ) = spot_check(offer.price, on_demand)
        {
            report.flagged.push(FeedFlag {
                item: offer.id.clone(),
                flag,
            });
        }
    }
    for (instance, regions, price) in uniform_prices(
        by_key
            .iter()
            .filter(|((_, _, spot), _)| !spot)
            .map(|((instance, region, _), o)| (instance.clone(), region.as_str(), o.price)),
    ) {
        report.flagged.push(FeedFlag {
            item: instance,
            flag: Flag::UniformPrice { regions, price },
        });
    }
    if ONE_PRICE_EVERYWHERE.contains(&provider_id.as_str()) {
        report.notes.push(format!(
            "{provider} lists every region at one price whether or not it has capacity there"
        ));
    }
    if vast {
        report.notes.push(
            "Vast's price is the median of the live offers in each bucket, not the cheapest"
                .to_owned(),
        );
    }
    let offers: Vec<Offer> = by_key.into_values().collect();
    report.offers = offers.len();
    if offers.is_empty() {
        return Err(CatalogError::Empty {
            skipped: report.skipped.len() + report.left_out.len(),
        });
    }
    Ok((
        Catalog {
            format_version: CATALOG_FORMAT_VERSION,
            offers,
        },
        report,
    ))
}
