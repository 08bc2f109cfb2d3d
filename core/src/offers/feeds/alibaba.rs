//! Alibaba Cloud's international ECS price file (public, undocumented): the file the price
//! pages of alibabacloud.com load,
//! `https://g.alicdn.com/aliyun/ecs-price-info-intl/<version>/price/download/instancePrice.json`.
//!
//! Shape (as read by public scrapers such as Apache Libcloud's `scrape-ecs-prices.py`):
//! `{"currency": "USD", "version": ..., "pricingInfo": {"<region>::<instanceType>::<network>::
//! <os>::<io>": {"hours": [{"price": "…", "period": "1"}], "months": [...], "years": [...]}}}`.
//! Only `vpc::linux::optimized` keys are kept. `hours` gives a pay-as-you-go row, the one-month
//! and one-year entries (`period` 1) a monthly and a yearly subscription row. The file carries
//! no date: rows are dated by the fetch day and sourced by the URL, whose path holds the
//! version.
//!
//! GPU families mapped ([`FAMILIES`], from the ECS "GPU-accelerated compute-optimized instance
//! families" documentation): gn6i (T4), gn6v (V100 16 GB), gn6e (V100 32 GB), gn7 (A100
//! 40 GB), gn7e (A100 80 GB), gn7i (A10), each with `c<N>g1` in its name: N vCPUs per GPU, so
//! the GPU count is the size's vCPUs over N; and the vGPU families vgn6i (T4), vgn7i-vws and
//! sgn7i-vws (A10), whose `m<N>` is the slice's memory in GB, so the share of the card is N over
//! the card's memory. gn8is (L20), gn5 (P100) and gn5i (P4) carry GPUs the spec table lacks;
//! every other GPU family (gn7s, gn8v, the ebmgn bare-metal sizes ...) is reported as unmapped
//! rather than guessed.

use crate::hardware::gpu::find_gpu;
use crate::offers::feeds::{
    DatedBy, Draft, DraftMode, FeedContext, FeedError, FeedImport, FeedReport, SkipWhy, currency,
    finish, json_price_text, parse_price, visible_vram_gib,
};
use crate::offers::offer::PriceEvidence;
use crate::offers::tenancy::Tenancy;

/// Where the price file lives; `{version}` is the file's version.
pub const PRICE_FILE_URL: &str =
    "https://g.alicdn.com/aliyun/ecs-price-info-intl/{version}/price/download/instancePrice.json";

/// A version known to be published (cited by public tools); the price pages name the current
/// one in the address of the scripts they load.
pub const DEFAULT_VERSION: &str = "2.0.421";

/// Whole-card GPU families and their GPU.
pub const FAMILIES: [(&str, &str); 6] = [
    ("gn6i", "T4"),
    ("gn6v", "V100-16GB"),
    ("gn6e", "V100-32GB"),
    ("gn7", "A100-40GB"),
    ("gn7e", "A100-80GB"),
    ("gn7i", "A10"),
];

/// vGPU families (slices named by their memory) and their GPU.
pub const SLICE_FAMILIES: [(&str, &str); 3] =
    [("vgn6i", "T4"), ("vgn7i-vws", "A10"), ("sgn7i-vws", "A10")];

/// Families whose GPU the spec table lacks.
const UNKNOWN_GPU: [(&str, &str); 3] = [("gn8is", "L20"), ("gn5", "P100"), ("gn5i", "P4")];

/// Region names for people.
const REGION_NAMES: [(&str, &str); 25] = [
    ("cn-hangzhou", "Hangzhou"),
    ("cn-shanghai", "Shanghai"),
    ("cn-beijing", "Beijing"),
    ("cn-shenzhen", "Shenzhen"),
    ("cn-guangzhou", "Guangzhou"),
    ("cn-qingdao", "Qingdao"),
    ("cn-nanjing", "Nanjing"),
    ("cn-fuzhou", "Fuzhou"),
    ("cn-zhangjiakou", "Zhangjiakou"),
    ("cn-huhehaote", "Hohhot"),
    ("cn-wulanchabu", "Ulanqab"),
    ("cn-chengdu", "Chengdu"),
    ("cn-heyuan", "Heyuan"),
    ("cn-hongkong", "Hong Kong"),
    ("ap-southeast-1", "Singapore"),
    ("ap-southeast-3", "Kuala Lumpur"),
    ("ap-southeast-5", "Jakarta"),
    ("ap-southeast-6", "Manila"),
    ("ap-southeast-7", "Bangkok"),
    ("ap-northeast-1", "Tokyo"),
    ("ap-northeast-2", "Seoul"),
    ("us-west-1", "Silicon Valley"),
    ("us-east-1", "Virginia"),
    ("eu-central-1", "Frankfurt"),
    ("eu-west-1", "London"),
];

/// The file's address for `version` from a template holding `{version}`; `None` when the
/// version is not dotted numbers.
pub fn price_file_url(template: &str, version: &str) -> Option<String> {
    let v = version.trim();
    let ok = !v.is_empty()
        && v.len() <= 20
        && v.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    ok.then(|| template.replace("{version}", v))
}

/// vCPUs of a size: `large` 2, `xlarge` 4, `<N>xlarge` 4N.
fn size_vcpus(size: &str) -> Option<u32> {
    match size {
        "large" => Some(2),
        "xlarge" => Some(4),
        s => {
            let n: u32 = s.strip_suffix("xlarge")?.parse().ok()?;
            n.checked_mul(4).filter(|v| (1..=4096).contains(v))
        }
    }
}

/// What an instance type is to gpufare.
#[derive(Debug, Clone, PartialEq)]
pub enum Mapping {
    /// Not a GPU instance.
    NotGpu,
    /// A GPU instance that cannot be mapped.
    Skip(SkipWhy),
    /// The GPU, the count, the share of a card, memory per GPU (GiB), vCPUs, tenancy.
    Gpu {
        /// The GPU's spec.
        spec: &'static crate::hardware::gpu::GpuSpec,
        /// GPUs (or slices).
        count: u32,
        /// Share of a card each is.
        fraction: f64,
        /// Memory per GPU or slice, GiB.
        vram_gib: f64,
        /// vCPUs.
        vcpu: u32,
        /// How the card is shared.
        tenancy: Tenancy,
    },
}

/// Maps an instance type (`ecs.gn7i-c8g1.2xlarge`).
pub fn map_instance(instance: &str) -> Mapping {
    let Some((name, size)) = instance
        .trim()
        .strip_prefix("ecs.")
        .and_then(|r| r.rsplit_once('.'))
    else {
        return Mapping::NotGpu;
    };
    let family = name.split('-').next().unwrap_or("");
    let gpu_family = ["gn", "vgn", "sgn", "ebmgn"]
        .iter()
        .any(|p| family.starts_with(p));
    if !gpu_family {
        return Mapping::NotGpu;
    }
    let unmapped = |why: &str| {
        Mapping::Skip(SkipWhy::Unmapped {
            why: why.to_owned(),
        })
    };
    let Some(vcpu) = size_vcpus(size) else {
        return unmapped("a size gpufare cannot read the vCPUs of");
    };
    if let Some((_, gpu)) = UNKNOWN_GPU.iter().find(|(f, _)| *f == family) {
        return Mapping::Skip(SkipWhy::UnknownGpu {
            name: (*gpu).to_owned(),
        });
    }
    let spec_of = |gpu: &str| find_gpu(gpu);
    if let Some((prefix, gpu)) = SLICE_FAMILIES
        .iter()
        .find(|(f, _)| name.starts_with(&format!("{f}-")))
    {
        let Some(spec) = spec_of(gpu) else {
            return Mapping::Skip(SkipWhy::UnknownGpu {
                name: (*gpu).to_owned(),
            });
        };
        let memory: Option<f64> = name
            .get(prefix.len() + 1..)
            .and_then(|m| m.strip_prefix('m'))
            .and_then(|m| m.parse::<u32>().ok())
            .map(f64::from)
            .filter(|m| *m > 0.0 && *m <= spec.vram_gb);
        let Some(memory) = memory else {
            return unmapped("a vGPU size without its memory (m<N>) in the name");
        };
        return Mapping::Gpu {
            spec,
            count: 1,
            fraction: memory / spec.vram_gb,
            vram_gib: memory,
            vcpu,
            tenancy: Tenancy::Vgpu,
        };
    }
    let Some((_, gpu)) = FAMILIES.iter().find(|(f, _)| *f == family) else {
        return unmapped(
            "an Alibaba Cloud GPU family gpufare has no mapping for (its GPU is not confirmed by a public source)",
        );
    };
    let Some(spec) = spec_of(gpu) else {
        return Mapping::Skip(SkipWhy::UnknownGpu {
            name: (*gpu).to_owned(),
        });
    };
    let per_gpu: Option<u32> = name
        .split('-')
        .nth(1)
        .and_then(|s| s.strip_prefix('c'))
        .and_then(|s| s.strip_suffix("g1"))
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0);
    let count = per_gpu
        .filter(|n| vcpu % n == 0)
        .map(|n| vcpu / n)
        .filter(|c| (1..=1024).contains(c));
    let Some(count) = count else {
        return unmapped("cannot tell the GPU count from the name (c<N>g1: N vCPUs per GPU)");
    };
    Mapping::Gpu {
        spec,
        count,
        fraction: 1.0,
        vram_gib: visible_vram_gib(spec, 1.0),
        vcpu,
        tenancy: Tenancy::Dedicated,
    }
}

/// The `period` 1 entry of a price list (`hours`, `months`, `years`), or its first entry when
/// none says its period.
fn first_period(entry: &serde_json::Value, key: &str) -> Option<String> {
    let list = entry.get(key)?.as_array()?;
    let one = list
        .iter()
        .find(|p| super::json_price_text(p.get("period")).trim() == "1")
        .or_else(|| list.iter().find(|p| p.get("period").is_none()))?;
    Some(json_price_text(one.get("price")))
}

/// Reads the price file as offers of provider `Alibaba Cloud`.
pub fn import(text: &str, ctx: &FeedContext) -> Result<FeedImport, FeedError> {
    let day = ctx.checked_day()?;
    let value: serde_json::Value = serde_json::from_str(text)?;
    let not = |what: &str| FeedError::NotTheFeed {
        feed: "Alibaba Cloud's instancePrice.json",
        what: what.to_owned(),
    };
    let top = value.as_object().ok_or_else(|| not("not a JSON object"))?;
    let info = top
        .get("pricingInfo")
        .and_then(serde_json::Value::as_object)
        .ok_or_else(|| not("no pricingInfo object"))?;
    let code = top
        .get("currency")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("USD");
    let cur = currency(code).ok_or_else(|| FeedError::Currency {
        currency: code.to_owned(),
    })?;
    let mut report = FeedReport::new("alibaba", &ctx.source, &day, ctx.day_basis);
    report.version = top.get("version").map(|v| json_price_text(Some(v)));
    let mut drafts = Vec::new();
    for (key, entry) in info {
        report.rows += 1;
        let parts: Vec<&str> = key.split("::").collect();
        let [region, instance, network, os, io] = parts.as_slice() else {
            report.skip(
                key,
                SkipWhy::Unreadable {
                    detail: "a key not of the form region::type::network::os::io".into(),
                },
            );
            continue;
        };
        let mapping = map_instance(instance);
        if mapping == Mapping::NotGpu {
            report.ignore("not a GPU instance");
            continue;
        }
        if (*network, *os, *io) != ("vpc", "linux", "optimized") {
            report.ignore("not VPC, Linux and I/O optimized");
            continue;
        }
        if !ctx.wants_region(region) {
            report.ignore("another region");
            continue;
        }
        let (spec, count, fraction, vram_gib, vcpu, tenancy) = match mapping {
            Mapping::Gpu {
                spec,
                count,
                fraction,
                vram_gib,
                vcpu,
                tenancy,
            } => (spec, count, fraction, vram_gib, vcpu, tenancy),
            Mapping::Skip(why) => {
                report.skip(instance, why);
                continue;
            }
            Mapping::NotGpu => continue,
        };
        let region_name = REGION_NAMES
            .iter()
            .find(|(id, _)| id == region)
            .map_or_else(|| (*region).to_owned(), |(_, n)| (*n).to_owned());
        let draft = |mode: DraftMode, price| Draft {
            provider: "Alibaba Cloud".to_owned(),
            instance: (*instance).to_owned(),
            region_id: (*region).to_owned(),
            region_name: region_name.clone(),
            gpu: spec,
            gpu_count: count,
            gpu_fraction: fraction,
            tenancy,
            vram_gib,
            vcpu: Some(vcpu),
            ram_gib: None,
            mode,
            price,
            currency: cur,
            source: ctx.source.clone(),
            as_of: day.clone(),
            evidence: PriceEvidence::Official,
        };
        let item = format!("{instance} {region}");
        let hourly = first_period(entry, "hours").unwrap_or_default();
        match parse_price(&hourly) {
            Some(p) => drafts.push(draft(DraftMode::PayAsYouGo, p)),
            None => report.skip(&item, SkipWhy::NoPrice { value: hourly }),
        }
        for (key, mode) in [("months", DraftMode::Monthly), ("years", DraftMode::Yearly)] {
            if let Some(p) = first_period(entry, key).as_deref().and_then(parse_price) {
                drafts.push(draft(mode, p));
            }
        }
    }
    if ctx.day_basis == DatedBy::FetchDay {
        report
            .notes
            .push("the file carries no date: rows dated by the fetch day".to_owned());
    }
    let catalog = finish(drafts, &mut report);
    Ok(FeedImport { catalog, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::billing::BillingMode;
    use crate::offers::offer::RegionClass;

    #[test]
    fn families_map_by_their_names() {
        let gpu = |t: &str| match map_instance(t) {
            Mapping::Gpu {
                spec,
                count,
                fraction,
                vcpu,
                ..
            } => Some((spec.short.clone(), count, fraction, vcpu)),
            _ => None,
        };
        assert_eq!(
            gpu("ecs.gn7i-c8g1.2xlarge"),
            Some(("A10".into(), 1, 1.0, 8))
        );
        assert_eq!(
            gpu("ecs.gn7i-c32g1.32xlarge"),
            Some(("A10".into(), 4, 1.0, 128))
        );
        assert_eq!(gpu("ecs.gn6i-c4g1.xlarge"), Some(("T4".into(), 1, 1.0, 4)));
        assert_eq!(
            gpu("ecs.gn7e-c16g1.4xlarge"),
            Some(("A100-80GB".into(), 1, 1.0, 16))
        );
        assert_eq!(gpu("ecs.vgn6i-m4.xlarge"), Some(("T4".into(), 1, 0.25, 4)));
        assert_eq!(
            gpu("ecs.vgn7i-vws-m12.3xlarge"),
            Some(("A10".into(), 1, 0.5, 12))
        );
        assert_eq!(map_instance("ecs.g7.xlarge"), Mapping::NotGpu);
        assert!(matches!(
            map_instance("ecs.gn8is.2xlarge"),
            Mapping::Skip(SkipWhy::UnknownGpu { .. })
        ));
        assert!(matches!(
            map_instance("ecs.gn8v.4xlarge"),
            Mapping::Skip(SkipWhy::Unmapped { .. })
        ));
        assert!(matches!(
            map_instance("ecs.ebmgn7e.32xlarge"),
            Mapping::Skip(SkipWhy::Unmapped { .. })
        ));
        assert!(
            matches!(
                map_instance("ecs.gn7i-c7g1.2xlarge"),
                Mapping::Skip(SkipWhy::Unmapped { .. })
            ),
            "8 vCPUs are not a whole number of 7-vCPU GPUs"
        );
        assert_eq!(
            price_file_url(PRICE_FILE_URL, "2.0.421").unwrap(),
            "https://g.alicdn.com/aliyun/ecs-price-info-intl/2.0.421/price/download/instancePrice.json"
        );
        assert_eq!(price_file_url(PRICE_FILE_URL, "2.0/../x"), None);
    }

    #[test]
    fn the_file_gives_hourly_monthly_and_yearly_rows() {
        let text = r#"{"currency": "USD", "version": "2.0.421", "pricingInfo": {
            "cn-hangzhou::ecs.gn7i-c8g1.2xlarge::vpc::linux::optimized": {"hours": [{"price": "1.638", "period": "1"}], "months": [{"price": "780.0", "period": "1"}], "years": [{"price": "7956.0", "period": "1"}]},
            "cn-hangzhou::ecs.gn7i-c8g1.2xlarge::vpc::windows::optimized": {"hours": [{"price": "1.7", "period": "1"}]},
            "cn-wulanchabu::ecs.gn6i-c4g1.xlarge::vpc::linux::optimized": {"hours": [{"price": "", "period": "1"}]},
            "cn-newcity::ecs.gn6i-c4g1.xlarge::vpc::linux::optimized": {"hours": [{"price": "0.9", "period": "1"}]},
            "ap-southeast-1::ecs.g7.large::vpc::linux::optimized": {"hours": [{"price": "0.1", "period": "1"}]},
            "bad-key": {}
        }}"#;
        let ctx = FeedContext::fetched(
            &price_file_url(PRICE_FILE_URL, "2.0.421").unwrap(),
            "2026-12-05",
        );
        let out = import(text, &ctx).unwrap();
        let modes: Vec<(String, BillingMode)> = out
            .catalog
            .offers
            .iter()
            .map(|o| (o.id.clone(), o.billing_mode))
            .collect();
        assert_eq!(
            modes,
            [
                (
                    "alibaba-cloud-ecs-gn6i-c4g1-xlarge-cn-newcity".to_owned(),
                    BillingMode::PayAsYouGo
                ),
                (
                    "alibaba-cloud-ecs-gn7i-c8g1-2xlarge-cn-hangzhou".to_owned(),
                    BillingMode::PayAsYouGo
                ),
                (
                    "alibaba-cloud-ecs-gn7i-c8g1-2xlarge-cn-hangzhou-monthly".to_owned(),
                    BillingMode::Monthly
                ),
                (
                    "alibaba-cloud-ecs-gn7i-c8g1-2xlarge-cn-hangzhou-yearly".to_owned(),
                    BillingMode::Yearly
                ),
            ]
        );
        let hz = &out.catalog.offers[1];
        assert_eq!(
            (hz.region.class, hz.region.name.as_str()),
            (RegionClass::Tier1, "Hangzhou")
        );
        assert_eq!(out.catalog.offers[0].region.class, RegionClass::Remote);
        let r = &out.report;
        assert_eq!(r.rows, 6);
        assert_eq!(r.version.as_deref(), Some("2.0.421"));
        assert_eq!(r.ignored.get("not a GPU instance"), Some(&1));
        assert_eq!(r.ignored.get("not VPC, Linux and I/O optimized"), Some(&1));
        assert!(
            r.skipped
                .iter()
                .any(|s| matches!(s.reason, SkipWhy::NoPrice { .. })
                    && s.item.contains("wulanchabu"))
        );
        assert!(r.skipped.iter().any(|s| s.item == "bad-key"));
        assert!(
            r.flagged
                .iter()
                .any(|f| matches!(f.flag, super::super::Flag::RegionClassAssumed { .. }))
        );
        assert!(matches!(
            import("{\"currency\": \"EUR\", \"pricingInfo\": {}}", &ctx),
            Err(FeedError::Currency { .. })
        ));
        assert!(matches!(
            import("{}", &ctx),
            Err(FeedError::NotTheFeed { .. })
        ));
    }
}
