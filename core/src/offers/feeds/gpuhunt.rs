//! dstack's gpuhunt catalogs (github.com/dstackai/gpuhunt; no key needed).
//!
//! Each provider's catalog is published on its own under
//! `https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3/<provider>/`: a `version` file
//! holding the latest version (`YYYYMMDD-N`, the day it was collected and the run number), and
//! `<version>/catalog.zip` (also `latest/catalog.zip`) holding one CSV, `<provider>.csv`. Its
//! columns (found by header name): `instance_name`, `location`, `price` (USD per hour), `cpu`,
//! `memory` (GB), `gpu_count`, `gpu_name`, `gpu_memory` (GB per GPU), `spot` (`True`/`False`),
//! `disk_size`, `gpu_vendor`, `flags`, `cpu_arch`, `provider_data`; older catalogs also have a
//! `provider` column. The caller unzips; [`import`] reads the CSV.
//!
//! Mapping: a GPU name and its memory give the spec table's model (`A100` with 80 GB is
//! `A100-80GB`; `H100` is the SXM card unless the instance name says PCIe); a card listed with
//! well under its model's memory is a partial card (Azure's NVadsA10 v5 sizes appear as `A10`
//! with 4, 8 or 12 GB); TPUs are counted and left out; other vendors' accelerators are
//! reported. Rows are dated by the catalog's version and marked `catalog` evidence.

use crate::hardware::gpu::{GpuSpec, find_gpu};
use crate::numbers::money::Currency;
use crate::offers::feeds::traps::is_aws_local_zone;
use crate::offers::feeds::{
    DatedBy, Draft, DraftMode, FeedContext, FeedError, FeedImport, FeedReport, SkipWhy, finish,
    parse_price, visible_vram_gib,
};
use crate::offers::offer::PriceEvidence;
use crate::offers::tenancy::Tenancy;

/// Where the catalogs are published.
pub const CATALOG_BASE: &str = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3";

/// The providers gpuhunt publishes offline catalogs for (its `OFFLINE_PROVIDERS`).
pub const PROVIDERS: [&str; 9] = [
    "aws",
    "azure",
    "verda",
    "gcp",
    "lambdalabs",
    "nebius",
    "oci",
    "runpod",
    "cloudrift",
];

/// Providers that list every region at one price, with capacity there or not.
const ONE_PRICE_EVERYWHERE: [&str; 2] = ["lambdalabs", "runpod"];

/// A card listed with less than this share of its model's memory is a partial card.
const PARTIAL_CARD_SHARE: f64 = 0.9;

fn plain(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 40
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The URL of a provider's `version` file under `base`; `None` for a provider id that is not
/// plain lower-case letters and digits.
pub fn version_url(base: &str, provider: &str) -> Option<String> {
    plain(provider).then(|| format!("{}/{provider}/version", base.trim_end_matches('/')))
}

/// The URL of a provider's catalog of `version` (`latest` for the newest) under `base`.
pub fn catalog_url(base: &str, provider: &str, version: &str) -> Option<String> {
    (plain(provider) && (version == "latest" || parse_version(version).is_some())).then(|| {
        format!(
            "{}/{provider}/{version}/catalog.zip",
            base.trim_end_matches('/')
        )
    })
}

/// A catalog version as published (`20251203-7`, surrounding space and a newline allowed).
pub fn parse_version(text: &str) -> Option<String> {
    let t = text.trim();
    let (day, run) = match t.split_once('-') {
        Some((d, r)) => (d, Some(r)),
        None => (t, None),
    };
    let digits = |s: &str| !s.is_empty() && s.len() <= 12 && s.chars().all(|c| c.is_ascii_digit());
    (day.len() == 8 && digits(day) && run.is_none_or(digits) && version_day(t).is_some())
        .then(|| t.to_owned())
}

/// The day a version was collected: `20251203-7` gives `2025-12-03`.
pub fn version_day(version: &str) -> Option<String> {
    let d = version.trim().get(..8)?;
    let day = format!("{}-{}-{}", d.get(..4)?, d.get(4..6)?, d.get(6..8)?);
    super::day_only(&day)
}

/// The provider's display name.
pub fn provider_name(id: &str) -> String {
    match id.trim().to_ascii_lowercase().as_str() {
        "aws" => "AWS",
        "azure" => "Azure",
        "gcp" => "GCP",
        "lambdalabs" | "lambda" => "Lambda",
        "runpod" => "RunPod",
        "oci" => "OCI",
        "nebius" => "Nebius",
        "verda" => "Verda",
        "datacrunch" => "DataCrunch",
        "cloudrift" => "CloudRift",
        "vastai" => "Vast",
        _ => return id.trim().to_owned(),
    }
    .to_owned()
}

/// The spec table's model for a gpuhunt GPU name with its memory per GPU (GB) and instance
/// name, and the share of the card when the memory shows a partial card.
pub fn map_gpu(
    name: &str,
    memory_gb: Option<f64>,
    instance: &str,
) -> Option<(&'static GpuSpec, f64)> {
    let n: String = name
        .trim()
        .to_ascii_uppercase()
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .collect();
    if n.is_empty() {
        return None;
    }
    let mem = memory_gb.filter(|m| m.is_finite() && *m > 0.0 && *m < 4096.0);
    let spec = match n.as_str() {
        "H100" | "H100SXM" | "H100SXM5" if instance.to_ascii_lowercase().contains("pcie") => {
            find_gpu("H100-PCIe")
        }
        "H100" | "H100SXM" | "H100SXM5" => find_gpu("H100-SXM"),
        "H100PCIE" => find_gpu("H100-PCIe"),
        "RTXA6000" => find_gpu("A6000"),
        _ => find_gpu(&n).or_else(|| {
            let gb = mem?.round();
            find_gpu(&format!("{n}-{gb}GB"))
        }),
    }?;
    let fraction = match mem {
        Some(m) if m < spec.vram_gb * PARTIAL_CARD_SHARE => m / spec.vram_gb,
        _ => 1.0,
    };
    Some((spec, fraction))
}

/// Reads a provider's catalog CSV (`provider` is gpuhunt's id: `aws`, `runpod` ...; `version`
/// the catalog's, which dates the rows; without one they take `ctx`'s day).
pub fn import(
    csv_text: &str,
    provider: &str,
    version: Option<&str>,
    ctx: &FeedContext,
) -> Result<FeedImport, FeedError> {
    let version = version.and_then(parse_version);
    let (as_of, dated_by) = match version.as_deref().and_then(version_day) {
        Some(day) => (day, DatedBy::Feed),
        None => (ctx.checked_day()?, ctx.day_basis),
    };
    let source = match &version {
        Some(v) if !ctx.source.contains(v.as_str()) => format!("{} (version {v})", ctx.source),
        _ => ctx.source.clone(),
    };
    let provider_id = provider.trim().to_ascii_lowercase();
    let mut report = FeedReport::new(&format!("gpuhunt:{provider_id}"), &source, &as_of, dated_by);
    report.version = version.clone();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(csv_text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| FeedError::Csv {
            detail: e.to_string(),
        })?
        .clone();
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (Some(c_instance), Some(c_location), Some(c_price), Some(c_spot)) = (
        col("instance_name"),
        col("location"),
        col("price"),
        col("spot"),
    ) else {
        return Err(FeedError::NotTheFeed {
            feed: "a gpuhunt catalog",
            what: "needs instance_name, location, price and spot columns".into(),
        });
    };
    let (c_count, c_gpu, c_mem, c_vendor, c_cpu, c_ram, c_provider) = (
        col("gpu_count"),
        col("gpu_name"),
        col("gpu_memory"),
        col("gpu_vendor"),
        col("cpu"),
        col("memory"),
        col("provider"),
    );
    let mut drafts = Vec::new();
    for record in reader.records() {
        report.rows += 1;
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                report.skip(
                    &format!("line {line}"),
                    SkipWhy::Unreadable {
                        detail: e.to_string(),
                    },
                );
                continue;
            }
        };
        if record.len() != headers.len() {
            let line = record.position().map_or(0, |p| p.line());
            report.skip(
                &format!("line {line}"),
                SkipWhy::Unreadable {
                    detail: format!(
                        "{} fields where the header has {}",
                        record.len(),
                        headers.len()
                    ),
                },
            );
            continue;
        }
        let get = |c: Option<usize>| c.and_then(|i| record.get(i)).map(str::trim).unwrap_or("");
        let instance = get(Some(c_instance));
        let location = get(Some(c_location));
        let row_provider = match get(c_provider) {
            "" => provider_id.as_str(),
            p => p,
        };
        let count: u32 = match get(c_count).parse::<f64>() {
            Ok(c) if c >= 1.0 && c.fract() == 0.0 && c <= 1024.0 => c as u32,
            Ok(0.0) => {
                report.ignore("no GPU");
                continue;
            }
            _ if get(c_count).is_empty() || get(c_gpu).is_empty() => {
                report.ignore("no GPU");
                continue;
            }
            _ => {
                report.skip(
                    instance,
                    SkipWhy::Unmapped {
                        why: format!("GPU count {:?} is not a whole number", get(c_count)),
                    },
                );
                continue;
            }
        };
        let vendor = get(c_vendor).to_ascii_lowercase();
        let gpu_name = get(c_gpu);
        if vendor == "google" || gpu_name.to_ascii_lowercase().starts_with("tpu-") {
            report.ignore("TPU");
            continue;
        }
        if !ctx.wants_region(location) {
            report.ignore("another region");
            continue;
        }
        let aws = row_provider.eq_ignore_ascii_case("aws");
        if aws && is_aws_local_zone(location) {
            report.skip(
                &format!("{instance} {location}"),
                SkipWhy::LocalZone {
                    zone: location.to_owned(),
                },
            );
            continue;
        }
        let memory: Option<f64> = get(c_mem).parse().ok();
        let mapped = if vendor.is_empty() || vendor == "nvidia" {
            map_gpu(gpu_name, memory, instance)
        } else {
            None
        };
        let Some((spec, fraction)) = mapped else {
            let name = if vendor.is_empty() || vendor == "nvidia" {
                gpu_name.to_owned()
            } else {
                format!("{vendor} {gpu_name}")
            };
            report.skip(instance, SkipWhy::UnknownGpu { name });
            continue;
        };
        let spot = match get(Some(c_spot)).to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            other => {
                report.skip(
                    instance,
                    SkipWhy::Unreadable {
                        detail: format!("spot is {other:?}, not True or False"),
                    },
                );
                continue;
            }
        };
        let raw = get(Some(c_price));
        let Some(price) = parse_price(raw) else {
            report.skip(
                &format!("{instance} {location}"),
                SkipWhy::NoPrice {
                    value: raw.to_owned(),
                },
            );
            continue;
        };
        let provider_display = provider_name(row_provider);
        let tenancy = if fraction < 1.0 {
            Tenancy::Vgpu
        } else if provider_display == "Vast" {
            Tenancy::MarketplaceHost
        } else {
            Tenancy::Dedicated
        };
        drafts.push(Draft {
            provider: provider_display,
            instance: instance.to_owned(),
            region_id: location.to_owned(),
            region_name: location.to_owned(),
            gpu: spec,
            gpu_count: count,
            gpu_fraction: fraction,
            tenancy,
            vram_gib: match (fraction < 1.0, memory) {
                (true, Some(m)) => (m * 100.0).round() / 100.0,
                _ => visible_vram_gib(spec, fraction),
            },
            vcpu: get(c_cpu)
                .parse::<f64>()
                .ok()
                .and_then(|v| (1.0..=100_000.0).contains(&v).then_some(v.round() as u32)),
            ram_gib: get(c_ram)
                .parse::<f64>()
                .ok()
                .filter(|m| m.is_finite() && *m > 0.0),
            mode: if spot {
                DraftMode::Spot
            } else {
                DraftMode::PayAsYouGo
            },
            price,
            currency: Currency::Usd,
            source: source.clone(),
            as_of: as_of.clone(),
            evidence: PriceEvidence::Catalog,
        });
    }
    if ONE_PRICE_EVERYWHERE.contains(&provider_id.as_str()) {
        report.notes.push(format!(
            "{} lists every region at one price whether or not it has capacity there",
            provider_name(&provider_id)
        ));
    }
    if dated_by != DatedBy::Feed {
        report
            .notes
            .push("no catalog version known: rows dated by the fetch day".to_owned());
    }
    let catalog = finish(drafts, &mut report);
    Ok(FeedImport { catalog, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::billing::BillingMode;

    const CSV: &str = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags,cpu_arch,provider_data\n\
        p4d.24xlarge,us-east-1,32.7726,96,1152.0,8,A100,40.0,False,,nvidia,,x86,{}\n\
        p4d.24xlarge,us-east-1,9.5,96,1152.0,8,A100,40.0,True,,nvidia,,x86,{}\n\
        p5.48xlarge,us-east-1,55.04,192,2048.0,8,H100,80.0,False,,nvidia,,x86,{}\n\
        p5.48xlarge,us-east-1,55.04,192,2048.0,8,H100,80.0,True,,nvidia,,x86,{}\n\
        p5.48xlarge,us-west-2-lax-1,50.0,192,2048.0,8,H100,80.0,False,,nvidia,,x86,{}\n\
        g5.xlarge,us-east-1,1.006,4,16.0,1,A10G,24.0,False,,nvidia,,x86,{}\n\
        g5.xlarge,us-east-1,0.1,4,16.0,1,A10G,24.0,True,,nvidia,,x86,{}\n\
        m5.large,us-east-1,0.096,2,8.0,0,,,False,,,,x86,{}\n\
        p6-b200.48xlarge,us-east-1,113.9,192,2048.0,8,B200,179.0,False,,nvidia,,x86,{}\n\
        g6.xlarge,us-east-1,,4,16.0,1,L4,24.0,False,,nvidia,,x86,{}\n";

    #[test]
    fn rows_map_with_the_traps_applied() {
        let ctx = FeedContext::fetched(
            &catalog_url(CATALOG_BASE, "aws", "20251203-7").unwrap(),
            "2026-12-05",
        );
        let out = import(CSV, "aws", Some("20251203-7\n"), &ctx).unwrap();
        let ids: Vec<&str> = out.catalog.offers.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "aws-g5-xlarge-us-east-1",
                "aws-g5-xlarge-us-east-1-spot",
                "aws-p4d-24xlarge-us-east-1",
                "aws-p4d-24xlarge-us-east-1-spot",
                "aws-p5-48xlarge-us-east-1",
            ]
        );
        let first = &out.catalog.offers[0];
        assert_eq!(first.as_of, "2025-12-03", "dated by the version");
        assert_eq!(first.price_evidence, Some(PriceEvidence::Catalog));
        assert!(first.source.contains("20251203-7"));
        assert_eq!(out.catalog.offers[2].gpu, "A100-40GB");
        assert_eq!(out.catalog.offers[3].billing_mode, BillingMode::Spot);
        let r = &out.report;
        assert_eq!(r.rows, 10);
        assert_eq!(r.ignored.get("no GPU"), Some(&1));
        let text: Vec<String> = r
            .skipped
            .iter()
            .map(|s| format!("{}: {}", s.item, s.reason))
            .collect();
        assert!(
            text.iter()
                .any(|t| t.contains("lax-1") && t.contains("Local")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("at or above on-demand")),
            "{text:?}"
        );
        assert!(text.iter().any(|t| t.contains("\"B200\"")), "{text:?}");
        assert!(
            text.iter()
                .any(|t| t.starts_with("g6.xlarge") && t.contains("no usable price")),
            "{text:?}"
        );
        let flags: Vec<String> = r
            .flagged
            .iter()
            .map(|f| format!("{}: {}", f.item, f.flag))
            .collect();
        assert!(
            flags
                .iter()
                .any(|f| f.starts_with("aws-g5-xlarge-us-east-1-spot") && f.contains("below 20 %")),
            "{flags:?}"
        );
    }

    #[test]
    fn names_and_memory_give_the_model_and_partial_cards() {
        let short =
            |n: &str, m: Option<f64>, i: &str| map_gpu(n, m, i).map(|(s, f)| (s.short.as_str(), f));
        assert_eq!(short("A100", Some(80.0), "x"), Some(("A100-80GB", 1.0)));
        assert_eq!(short("V100", Some(32.0), "x"), Some(("V100-32GB", 1.0)));
        assert_eq!(
            short("H100", Some(80.0), "gpu_1x_h100_pcie"),
            Some(("H100-PCIe", 1.0))
        );
        assert_eq!(short("RTX4090", Some(24.0), "x"), Some(("RTX4090", 1.0)));
        assert_eq!(short("A100", None, "x"), None, "no memory, no model");
        assert_eq!(short("H100NVL", Some(94.0), "x"), None);
        let (spec, f) = map_gpu("A10", Some(4.0), "Standard_NV6ads_A10_v5").unwrap();
        assert_eq!(spec.short, "A10");
        assert!((f - 4.0 / 24.0).abs() < 1e-9);
        assert_eq!(version_day("20251203-7").as_deref(), Some("2025-12-03"));
        assert_eq!(parse_version("2025120-1"), None);
        assert_eq!(parse_version("20251340-1"), None);
        assert_eq!(version_url(CATALOG_BASE, "../x"), None);
    }

    #[test]
    fn uniform_prices_and_missing_columns_are_reported() {
        let mut csv =
            String::from("instance_name,location,price,gpu_count,gpu_name,gpu_memory,spot\n");
        for r in ["US-GA-1", "EU-RO-1", "CA-MTL-1", "AP-JP-1"] {
            csv.push_str(&format!("NVIDIA RTX 4090,{r},0.69,1,RTX4090,24,False\n"));
        }
        let ctx = FeedContext::fetched("u", "2026-12-05");
        let out = import(&csv, "runpod", None, &ctx).unwrap();
        assert_eq!(out.catalog.offers.len(), 4);
        assert_eq!(out.report.dated_by, DatedBy::FetchDay);
        assert!(
            out.report
                .flagged
                .iter()
                .any(|f| matches!(f.flag, super::super::Flag::UniformPrice { regions: 4, .. }))
        );
        assert!(
            out.report
                .notes
                .iter()
                .any(|n| n.contains("every region at one price"))
        );
        assert!(matches!(
            import("a,b\n1,2\n", "aws", None, &ctx),
            Err(FeedError::NotTheFeed { .. })
        ));
    }
}
