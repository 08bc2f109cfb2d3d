//! The traps of public price data, applied by every importer (the SkyPilot importer included):
//!
//! - **AWS Local Zones and Wavelength Zones** (zone ids such as `use1-atl2-az1`, zone names
//!   such as `us-east-1-atl-2a`, location codes such as `us-west-2-lax-1`) are priced apart from
//!   their region, often below it: such a row is not the region's price and is left out.
//! - **Spot against on-demand**: a spot price at or above on-demand is left out, and so is one
//!   at 95 % of it or more (no real discount); one below a fifth of on-demand is kept and
//!   flagged as an outlier to check; a spot price with no on-demand price beside it is kept and
//!   flagged.
//! - **One price everywhere**: an instance listed in [`UNIFORM_MIN_REGIONS`] regions or more at
//!   one price (RunPod and Lambda list every data centre, with capacity or not) is flagged: the
//!   feed says nothing about where it can be had.
//! - **Region classes**: mainland China regions are `tier1` (the coastal and capital metros) or
//!   `remote` (inland); Hong Kong and everything else is `overseas`.

use std::collections::{BTreeMap, BTreeSet};

use rust_decimal::Decimal;

use crate::offers::feeds::{Flag, SkipWhy};
use crate::offers::offer::RegionClass;

/// An instance listed at one price in at least this many regions is flagged.
pub const UNIFORM_MIN_REGIONS: usize = 4;

/// A spot price below this share of on-demand is flagged as an outlier (and kept).
pub const SPOT_OUTLIER_SHARE: Decimal = Decimal::from_parts(20, 0, 0, false, 2);

/// A spot price at this share of on-demand or more is no real discount and is left out.
pub const SPOT_NO_DISCOUNT_SHARE: Decimal = Decimal::from_parts(95, 0, 0, false, 2);

/// Mainland regions in the coastal and capital metros (Alibaba Cloud, AWS China, Azure China,
/// Tencent Cloud ids).
const TIER1: [&str; 19] = [
    "cn-shanghai",
    "cn-beijing",
    "cn-hangzhou",
    "cn-shenzhen",
    "cn-guangzhou",
    "cn-qingdao",
    "cn-nanjing",
    "cn-fuzhou",
    "cn-north-1",
    "chinaeast",
    "chinaeast2",
    "chinaeast3",
    "chinanorth",
    "chinanorth2",
    "chinanorth3",
    "ap-beijing",
    "ap-shanghai",
    "ap-guangzhou",
    "ap-nanjing",
];

/// Mainland regions inland (Inner Mongolia, Hebei, Sichuan, inland Guangdong, Ningxia, ...).
const REMOTE: [&str; 9] = [
    "cn-zhangjiakou",
    "cn-huhehaote",
    "cn-wulanchabu",
    "cn-chengdu",
    "cn-heyuan",
    "cn-wuhan-lr",
    "cn-northwest-1",
    "ap-chengdu",
    "ap-chongqing",
];

/// The class of a region id, and whether it was assumed (a mainland id outside the tables is
/// taken as remote).
pub fn region_class(region_id: &str) -> (RegionClass, bool) {
    let id = region_id.trim().to_ascii_lowercase();
    if TIER1.contains(&id.as_str()) {
        (RegionClass::Tier1, false)
    } else if REMOTE.contains(&id.as_str()) {
        (RegionClass::Remote, false)
    } else if id.starts_with("cn-") && !id.starts_with("cn-hongkong") {
        (RegionClass::Remote, true)
    } else {
        (RegionClass::Overseas, false)
    }
}

/// Whether an AWS zone id, zone name or location code is a Local Zone or a Wavelength Zone
/// rather than a region or one of its regular availability zones.
///
/// Regular: `us-east-1`, `us-gov-west-1`, `us-east-1a`, `use1-az1`. Local or Wavelength:
/// `use1-atl2-az1`, `use1-wl1-bos-wlz1`, `us-east-1-atl-2a`, `us-west-2-lax-1`.
pub fn is_aws_local_zone(code: &str) -> bool {
    let code = code.trim().to_ascii_lowercase();
    let parts: Vec<&str> = code.split('-').collect();
    let Some(first) = parts.first() else {
        return false;
    };
    if first.chars().any(|c| c.is_ascii_digit()) {
        // A zone id: `<region abbreviation>-az<n>`; anything longer is a Local or Wavelength
        // Zone.
        let regular = parts.len() == 2
            && parts.get(1).is_some_and(|p| {
                p.strip_prefix("az")
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            });
        return !regular && parts.len() >= 2;
    }
    // A region code or zone name: the part holding the region's number ends it, unless a city
    // code follows.
    match parts
        .iter()
        .position(|p| p.starts_with(|c: char| c.is_ascii_digit()))
    {
        Some(i) => i >= 2 && i + 1 < parts.len(),
        None => false,
    }
}

/// What to do with a spot price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpotCheck {
    /// Import it.
    Keep,
    /// Import it, with a flag.
    KeepFlagged(Flag),
    /// Leave it out.
    Skip(SkipWhy),
}

/// Checks a spot price against the on-demand price of the same instance and region.
pub fn spot_check(spot: Decimal, on_demand: Option<Decimal>) -> SpotCheck {
    let Some(od) = on_demand else {
        return SpotCheck::KeepFlagged(Flag::SpotWithoutOnDemand);
    };
    let texts = || (spot.normalize().to_string(), od.normalize().to_string());
    if spot >= od {
        let (spot, on_demand) = texts();
        SpotCheck::Skip(SkipWhy::SpotNotBelowOnDemand { spot, on_demand })
    } else if spot >= od * SPOT_NO_DISCOUNT_SHARE {
        let (spot, on_demand) = texts();
        SpotCheck::Skip(SkipWhy::SpotNoDiscount { spot, on_demand })
    } else if spot < od * SPOT_OUTLIER_SHARE {
        let (spot, on_demand) = texts();
        SpotCheck::KeepFlagged(Flag::SpotOutlier { spot, on_demand })
    } else {
        SpotCheck::Keep
    }
}

/// The keys (an instance of a provider) listed in [`UNIFORM_MIN_REGIONS`] regions or more, all
/// at one price: `(key, regions, price)`, in key order.
pub fn uniform_prices<'a>(
    rows: impl IntoIterator<Item = (String, &'a str, Decimal)>,
) -> Vec<(String, usize, String)> {
    /// The regions of one key, its first price, and whether every price was that one.
    struct Seen<'a> {
        regions: BTreeSet<&'a str>,
        price: Decimal,
        same: bool,
    }
    let mut by_key: BTreeMap<String, Seen<'a>> = BTreeMap::new();
    for (key, region, price) in rows {
        let seen = by_key.entry(key).or_insert_with(|| Seen {
            regions: BTreeSet::new(),
            price,
            same: true,
        });
        seen.regions.insert(region);
        seen.same &= seen.price == price;
    }
    by_key
        .into_iter()
        .filter(|(_, s)| s.same && s.regions.len() >= UNIFORM_MIN_REGIONS)
        .map(|(key, s)| (key, s.regions.len(), s.price.normalize().to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_and_wavelength_zones_are_told_from_regions_and_regular_zones() {
        for regular in [
            "us-east-1",
            "us-east-1a",
            "us-gov-west-1",
            "use1-az1",
            "apne1-az4",
            "eastus",
            "us-central1-a",
            "EU-RO-1",
            "FIN-01",
            "Texas, US, NA",
            "",
        ] {
            assert!(!is_aws_local_zone(regular), "{regular}");
        }
        for local in [
            "use1-atl2-az1",
            "use1-wl1-bos-wlz1",
            "us-east-1-atl-2a",
            "us-west-2-lax-1",
            "us-west-2-phx-1",
            "us-east-1-wl1-bos-wlz-1",
        ] {
            assert!(is_aws_local_zone(local), "{local}");
        }
    }

    #[test]
    fn spot_is_checked_against_on_demand() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        assert_eq!(spot_check(d("5"), Some(d("10"))), SpotCheck::Keep);
        assert!(matches!(
            spot_check(d("10"), Some(d("10"))),
            SpotCheck::Skip(SkipWhy::SpotNotBelowOnDemand { .. })
        ));
        assert!(matches!(
            spot_check(d("11"), Some(d("10"))),
            SpotCheck::Skip(SkipWhy::SpotNotBelowOnDemand { .. })
        ));
        assert!(matches!(
            spot_check(d("9.5"), Some(d("10"))),
            SpotCheck::Skip(SkipWhy::SpotNoDiscount { .. })
        ));
        assert_eq!(
            spot_check(d("2"), Some(d("10"))),
            SpotCheck::Keep,
            "20 % is not below"
        );
        assert!(matches!(
            spot_check(d("1.99"), Some(d("10"))),
            SpotCheck::KeepFlagged(Flag::SpotOutlier { .. })
        ));
        assert_eq!(
            spot_check(d("1"), None),
            SpotCheck::KeepFlagged(Flag::SpotWithoutOnDemand)
        );
    }

    #[test]
    fn mainland_regions_are_tier1_or_remote_and_the_rest_overseas() {
        assert_eq!(region_class("cn-shanghai"), (RegionClass::Tier1, false));
        assert_eq!(region_class("cn-wulanchabu"), (RegionClass::Remote, false));
        assert_eq!(region_class("cn-newplace"), (RegionClass::Remote, true));
        assert_eq!(region_class("cn-hongkong"), (RegionClass::Overseas, false));
        assert_eq!(region_class("us-east-1"), (RegionClass::Overseas, false));
    }

    #[test]
    fn one_price_in_many_regions_is_found() {
        let p = |s: &str| s.parse::<Decimal>().unwrap();
        let mut rows = Vec::new();
        for r in ["a", "b", "c", "d"] {
            rows.push(("same".to_owned(), r, p("1.39")));
            rows.push(("differs".to_owned(), r, p(if r == "d" { "2" } else { "1" })));
        }
        for r in ["a", "b", "c"] {
            rows.push(("few".to_owned(), r, p("1")));
        }
        assert_eq!(
            uniform_prices(rows),
            vec![("same".to_owned(), 4, "1.39".to_owned())]
        );
    }
}
