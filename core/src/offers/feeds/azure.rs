//! The Azure Retail Prices API (`https://prices.azure.com/api/retail/prices`, documented at
//! learn.microsoft.com, "Azure Retail Prices overview"; no key needed).
//!
//! A query answers one page of at most 100 items, `{"BillingCurrency", "Items": [...],
//! "NextPageLink", "Count"}`; the caller follows `NextPageLink` and hands every page's items to
//! [`import`]. Each item is one meter: `armSkuName` (`Standard_NC24ads_A100_v4`),
//! `armRegionName`, `location`, `retailPrice`/`unitPrice`, `currencyCode`, `unitOfMeasure`
//! (`1 Hour`), `type` (`Consumption`, `Reservation`, `DevTestConsumption`; the filter calls it
//! `priceType`), `reservationTerm` (`1 Year`, `3 Years`), `skuName` (ending in `Spot` or `Low
//! Priority`), `productName` (ending in `Windows` for Windows meters) and `effectiveStartDate`.
//!
//! Mapping: Linux pay-as-you-go and spot meters per hour; a reservation's price is the whole
//! term's, so it becomes a `reserved` offer of 12 or 36 months paid upfront with nothing per
//! month; low-priority (Azure Batch) and dev/test meters are left out; Windows meters are
//! counted and left out. GPU sizes map through [`SKUS`] (the Azure documentation's size
//! pages: NCasT4_v3, NCv3, NDv2, NC A100 v4, ND A100 v4, NDm A100 v4, ND H100 v5, ND H200 v5,
//! NC H100 v5, NVadsA10 v5, ND MI300X v5); a GPU size outside it is reported, never guessed.
//! Rows are dated by the fetch day: the API lists the prices in force that day, and a meter's
//! `effectiveStartDate` (kept in the row's source) only says since when.

use crate::hardware::gpu::find_gpu;
use crate::offers::feeds::{
    DatedBy, Draft, DraftMode, FeedContext, FeedError, FeedImport, FeedReport, SkipWhy, currency,
    day_only, finish, json_price_text, json_str, parse_price, visible_vram_gib,
};
use crate::offers::offer::PriceEvidence;
use crate::offers::tenancy::Tenancy;

/// The API's address.
pub const API_URL: &str = "https://prices.azure.com/api/retail/prices";

/// The most items one page may hold (the API sends 100; a mirror may send more, never
/// unboundedly many).
pub const MAX_ITEMS_PER_PAGE: usize = 10_000;

/// An Azure GPU size: the GPU, how many, the share of a card each is, and the memory of a
/// partial card when the size gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AzureSku {
    /// `armSkuName`.
    pub arm_sku: &'static str,
    /// The GPU: a short name of the spec table, or the card's name when the table lacks it.
    pub gpu: &'static str,
    /// GPUs (or partial GPUs) in the size.
    pub count: u32,
    /// Share of one card each is.
    pub fraction: f64,
    /// GPU memory of a partial card, GiB (none for whole cards: the spec table's).
    pub vram_gib: Option<f64>,
}

const fn sku(arm_sku: &'static str, gpu: &'static str, count: u32) -> AzureSku {
    AzureSku {
        arm_sku,
        gpu,
        count,
        fraction: 1.0,
        vram_gib: None,
    }
}

const fn part(arm_sku: &'static str, fraction: f64, vram_gib: f64) -> AzureSku {
    AzureSku {
        arm_sku,
        gpu: "A10",
        count: 1,
        fraction,
        vram_gib: Some(vram_gib),
    }
}

/// The GPU sizes gpufare maps, from the Azure documentation's size pages. The NC A100 v4 cards
/// are the PCIe A100 80GB, priced as the spec table's A100-80GB (same tensor throughput); the NC
/// H100 v5 cards are the H100 NVL (94 GB) and the ND MI300X v5 cards AMD's, which the spec table
/// lacks: their rows are reported.
pub const SKUS: [AzureSku; 25] = [
    sku("Standard_NC4as_T4_v3", "T4", 1),
    sku("Standard_NC8as_T4_v3", "T4", 1),
    sku("Standard_NC16as_T4_v3", "T4", 1),
    sku("Standard_NC64as_T4_v3", "T4", 4),
    sku("Standard_NC6s_v3", "V100-16GB", 1),
    sku("Standard_NC12s_v3", "V100-16GB", 2),
    sku("Standard_NC24s_v3", "V100-16GB", 4),
    sku("Standard_NC24rs_v3", "V100-16GB", 4),
    sku("Standard_ND40rs_v2", "V100-32GB", 8),
    sku("Standard_NC24ads_A100_v4", "A100-80GB", 1),
    sku("Standard_NC48ads_A100_v4", "A100-80GB", 2),
    sku("Standard_NC96ads_A100_v4", "A100-80GB", 4),
    sku("Standard_ND96asr_v4", "A100-40GB", 8),
    sku("Standard_ND96amsr_A100_v4", "A100-80GB", 8),
    sku("Standard_ND96isr_H100_v5", "H100-SXM", 8),
    sku("Standard_ND96isr_H200_v5", "H200", 8),
    sku("Standard_NC40ads_H100_v5", "H100 NVL", 1),
    sku("Standard_NC80adis_H100_v5", "H100 NVL", 2),
    sku("Standard_ND96isr_MI300X_v5", "MI300X", 8),
    part("Standard_NV6ads_A10_v5", 1.0 / 6.0, 4.0),
    part("Standard_NV12ads_A10_v5", 1.0 / 3.0, 8.0),
    part("Standard_NV18ads_A10_v5", 0.5, 12.0),
    sku("Standard_NV36ads_A10_v5", "A10", 1),
    sku("Standard_NV36adms_A10_v5", "A10", 1),
    sku("Standard_NV72ads_A10_v5", "A10", 2),
];

/// The size named `arm_sku` (ignoring case).
pub fn find_sku(arm_sku: &str) -> Option<&'static AzureSku> {
    SKUS.iter()
        .find(|s| s.arm_sku.eq_ignore_ascii_case(arm_sku.trim()))
}

/// Whether a size belongs to a GPU family (N-series: NC, ND, NV, NG; NP is FPGA).
pub fn is_gpu_size(arm_sku: &str) -> bool {
    let s = arm_sku.trim().to_ascii_lowercase();
    ["standard_nc", "standard_nd", "standard_nv", "standard_ng"]
        .iter()
        .any(|p| s.starts_with(p))
}

/// One page of the API's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AzurePage {
    /// The page's items, as read (checked one by one by [`import`]).
    pub items: Vec<serde_json::Value>,
    /// Where the next page is, when there is one.
    pub next_page_link: Option<String>,
    /// `BillingCurrency`, when given.
    pub currency: Option<String>,
}

/// Reads one page: an object with an `Items` array and, where more follow, a `NextPageLink`.
pub fn parse_page(text: &str) -> Result<AzurePage, FeedError> {
    let value: serde_json::Value = serde_json::from_str(text)?;
    let not = |what: &str| FeedError::NotTheFeed {
        feed: "an Azure Retail Prices page",
        what: what.to_owned(),
    };
    let object = value.as_object().ok_or_else(|| not("not a JSON object"))?;
    let items = object
        .get("Items")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| not("no Items array"))?;
    if items.len() > MAX_ITEMS_PER_PAGE {
        return Err(not(&format!(
            "{} items on one page (at most {MAX_ITEMS_PER_PAGE})",
            items.len()
        )));
    }
    let next_page_link = match object.get("NextPageLink") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) if s.trim().is_empty() => None,
        Some(serde_json::Value::String(s)) => Some(s.trim().to_owned()),
        Some(_) => return Err(not("NextPageLink is not text")),
    };
    Ok(AzurePage {
        items: items.clone(),
        next_page_link,
        currency: object
            .get("BillingCurrency")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
    })
}

/// The `$filter` for the GPU sizes of [`SKUS`] in `region` (Linux and Windows, every price
/// type: [`import`] sorts them); `None` when the region id is not a plain Azure region name.
pub fn query_filter(region: &str) -> Option<String> {
    let region = region.trim();
    if region.is_empty() || region.len() > 40 || !region.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return None;
    }
    let skus: Vec<String> = SKUS
        .iter()
        .map(|s| format!("armSkuName eq '{}'", s.arm_sku))
        .collect();
    Some(format!(
        "serviceName eq 'Virtual Machines' and armRegionName eq '{region}' and ({})",
        skus.join(" or ")
    ))
}

/// The first page's URL for `region` at `base` (the API's address or a mirror's): `base` with
/// `$filter=` appended, percent-encoded.
pub fn page_url(base: &str, region: &str) -> Option<String> {
    let filter = query_filter(region)?;
    let joint = if base.contains('?') { '&' } else { '?' };
    Some(format!("{base}{joint}$filter={}", percent_encode(&filter)))
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Months of a reservation term as the API writes it.
fn term_months(term: &str) -> Option<u32> {
    match term.trim().to_ascii_lowercase().as_str() {
        "1 year" => Some(12),
        "3 years" => Some(36),
        "5 years" => Some(60),
        _ => None,
    }
}

/// The digits after the family letters of a size name: its vCPUs (`Standard_NC24ads_A100_v4`
/// has 24).
fn vcpus(arm_sku: &str) -> Option<u32> {
    let rest = arm_sku.trim().strip_prefix("Standard_")?;
    let digits: String = rest
        .chars()
        .skip_while(|c| c.is_ascii_alphabetic())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok().filter(|n| *n > 0)
}

/// Turns the items of every page of a query into offers of provider `Azure`.
pub fn import(
    items: &[serde_json::Value],
    billing_currency: Option<&str>,
    ctx: &FeedContext,
) -> Result<FeedImport, FeedError> {
    let day = ctx.checked_day()?;
    let mut report = FeedReport::new("azure", &ctx.source, &day, ctx.day_basis);
    let mut drafts = Vec::new();
    for item in items {
        report.rows += 1;
        if !item.is_object() {
            report.skip(
                "(not an object)",
                SkipWhy::Unreadable {
                    detail: "an item that is not a JSON object".into(),
                },
            );
            continue;
        }
        let arm = json_str(item, "armSkuName");
        let region = json_str(item, "armRegionName");
        let sku_name = json_str(item, "skuName");
        let service = json_str(item, "serviceName");
        if !service.is_empty() && service != "Virtual Machines" {
            report.ignore("not a virtual machine meter");
            continue;
        }
        if !ctx.wants_region(region) {
            report.ignore("another region");
            continue;
        }
        if json_str(item, "productName").contains("Windows") {
            report.ignore("Windows");
            continue;
        }
        let Some(size) = find_sku(arm) else {
            if is_gpu_size(arm) {
                report.skip(
                    arm,
                    SkipWhy::Unmapped {
                        why: "an Azure GPU size gpufare has no mapping for".into(),
                    },
                );
            } else {
                report.ignore("not a GPU size");
            }
            continue;
        };
        let Some(spec) = find_gpu(size.gpu) else {
            report.skip(
                arm,
                SkipWhy::UnknownGpu {
                    name: size.gpu.to_owned(),
                },
            );
            continue;
        };
        let item_name = format!("{arm} {region}");
        let price_type = match json_str(item, "type") {
            "" => json_str(item, "priceType"),
            t => t,
        };
        let lower = sku_name.to_ascii_lowercase();
        let mode = match price_type {
            "Consumption" if lower.contains("low priority") => {
                report.skip(&item_name, SkipWhy::LowPriority);
                continue;
            }
            "Consumption" if lower.ends_with(" spot") || lower == "spot" => DraftMode::Spot,
            "Consumption" => DraftMode::PayAsYouGo,
            "Reservation" => {
                let term = json_str(item, "reservationTerm");
                let Some(months) = term_months(term) else {
                    report.skip(
                        &item_name,
                        SkipWhy::UnknownTerm {
                            term: term.to_owned(),
                        },
                    );
                    continue;
                };
                DraftMode::Reserved {
                    months,
                    upfront: rust_decimal::Decimal::ZERO,
                    tag: format!("{}y", months / 12),
                }
            }
            "DevTestConsumption" => {
                report.ignore("dev/test price");
                continue;
            }
            _ => {
                report.ignore("another price type");
                continue;
            }
        };
        let unit = json_str(item, "unitOfMeasure");
        if unit.trim() != "1 Hour" {
            report.skip(
                &item_name,
                SkipWhy::UnknownUnit {
                    unit: unit.to_owned(),
                },
            );
            continue;
        }
        let code = match json_str(item, "currencyCode") {
            "" => billing_currency.unwrap_or("USD"),
            c => c,
        };
        let Some(cur) = currency(code) else {
            report.skip(
                &item_name,
                SkipWhy::UnknownCurrency {
                    currency: code.to_owned(),
                },
            );
            continue;
        };
        let raw = match item.get("retailPrice") {
            Some(v) if !v.is_null() => json_price_text(Some(v)),
            _ => json_price_text(item.get("unitPrice")),
        };
        let Some(price) = parse_price(&raw) else {
            report.skip(&item_name, SkipWhy::NoPrice { value: raw });
            continue;
        };
        // A reservation's price is the whole term's: paid upfront, nothing per month.
        let (mode, price) = match mode {
            DraftMode::Reserved { months, tag, .. } => (
                DraftMode::Reserved {
                    months,
                    upfront: price,
                    tag,
                },
                rust_decimal::Decimal::ZERO,
            ),
            other => (other, price),
        };
        let effective = day_only(json_str(item, "effectiveStartDate"));
        let source = match &effective {
            Some(d) => format!("{} (meter in force since {d})", ctx.source),
            None => ctx.source.clone(),
        };
        let location = json_str(item, "location");
        drafts.push(Draft {
            provider: "Azure".to_owned(),
            instance: size.arm_sku.to_owned(),
            region_id: region.to_owned(),
            region_name: if location.is_empty() {
                region.to_owned()
            } else {
                location.to_owned()
            },
            gpu: spec,
            gpu_count: size.count,
            gpu_fraction: size.fraction,
            tenancy: if size.fraction < 1.0 {
                Tenancy::Vgpu
            } else {
                Tenancy::Dedicated
            },
            vram_gib: size
                .vram_gib
                .unwrap_or_else(|| visible_vram_gib(spec, size.fraction)),
            vcpu: vcpus(size.arm_sku),
            ram_gib: None,
            mode,
            price,
            currency: cur,
            source,
            as_of: day.clone(),
            evidence: PriceEvidence::Official,
        });
    }
    let catalog = finish(drafts, &mut report);
    if ctx.day_basis == DatedBy::FetchDay {
        report.notes.push(
            "rows dated by the fetch day: the API lists the prices in force that day".to_owned(),
        );
    }
    Ok(FeedImport { catalog, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::billing::BillingMode;
    use serde_json::json;

    fn item(arm: &str, sku_name: &str, kind: &str, price: f64) -> serde_json::Value {
        json!({
            "currencyCode": "USD", "retailPrice": price, "unitPrice": price,
            "armRegionName": "eastus", "location": "US East",
            "effectiveStartDate": "2024-05-01T00:00:00Z",
            "meterName": sku_name, "productName": "NCads A100 v4 Series", "skuName": sku_name,
            "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": kind,
            "armSkuName": arm
        })
    }

    #[test]
    fn every_table_size_is_a_gpu_size_and_known_ones_map() {
        for s in SKUS {
            assert!(is_gpu_size(s.arm_sku), "{}", s.arm_sku);
            assert!(s.fraction > 0.0 && s.fraction <= 1.0);
        }
        let mapped = SKUS.iter().filter(|s| find_gpu(s.gpu).is_some()).count();
        assert_eq!(
            mapped,
            SKUS.len() - 3,
            "H100 NVL x2 and MI300X are not in the table"
        );
        assert_eq!(vcpus("Standard_NC24ads_A100_v4"), Some(24));
        assert_eq!(vcpus("Standard_ND96isr_H100_v5"), Some(96));
    }

    #[test]
    fn pay_as_you_go_spot_and_reservations_map_and_the_rest_is_accounted_for() {
        let mut reserved = item(
            "Standard_NC24ads_A100_v4",
            "NC24ads A100 v4",
            "Reservation",
            19000.0,
        );
        reserved["reservationTerm"] = json!("1 Year");
        let mut windows = item(
            "Standard_NC24ads_A100_v4",
            "NC24ads A100 v4",
            "Consumption",
            4.4,
        );
        windows["productName"] = json!("NCads A100 v4 Series Windows");
        let items = vec![
            item(
                "Standard_NC24ads_A100_v4",
                "NC24ads A100 v4",
                "Consumption",
                3.673,
            ),
            item(
                "Standard_NC24ads_A100_v4",
                "NC24ads A100 v4 Spot",
                "Consumption",
                0.9,
            ),
            item(
                "Standard_NC24ads_A100_v4",
                "NC24ads A100 v4 Low Priority",
                "Consumption",
                0.7,
            ),
            reserved,
            windows,
            item("Standard_D2s_v5", "D2s v5", "Consumption", 0.096),
            item(
                "Standard_NC40ads_H100_v5",
                "NC40ads H100 v5",
                "Consumption",
                6.98,
            ),
            item(
                "Standard_NV6ads_A10_v5",
                "NV6ads A10 v5",
                "Consumption",
                0.454,
            ),
            item(
                "Standard_NCC40ads_H100_v5",
                "NCC40ads H100 v5",
                "Consumption",
                7.0,
            ),
        ];
        let ctx = FeedContext::fetched("https://prices.azure.com/api/retail/prices", "2026-12-05");
        let out = import(&items, Some("USD"), &ctx).unwrap();
        let ids: Vec<&str> = out.catalog.offers.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "azure-standard-nc24ads-a100-v4-eastus",
                "azure-standard-nc24ads-a100-v4-eastus-1y",
                "azure-standard-nc24ads-a100-v4-eastus-spot",
                "azure-standard-nv6ads-a10-v5-eastus",
            ]
        );
        let r = &out.catalog.offers[1];
        assert_eq!(
            (r.billing_mode, r.term_months, r.upfront, r.price),
            (
                BillingMode::Reserved,
                Some(12),
                Some(rust_decimal::Decimal::new(19000, 0)),
                rust_decimal::Decimal::ZERO
            )
        );
        let slice = &out.catalog.offers[3];
        assert_eq!((slice.tenancy, slice.vram_gib), (Tenancy::Vgpu, 4.0));
        for o in &out.catalog.offers {
            assert_eq!(o.as_of, "2026-12-05");
            assert_eq!(o.price_evidence, Some(PriceEvidence::Official));
            assert!(!o.estimate);
            assert!(o.source.contains("since 2024-05-01"), "{}", o.source);
        }
        let report = &out.report;
        assert_eq!(report.rows, 9);
        assert_eq!(report.ignored.get("Windows"), Some(&1));
        assert_eq!(report.ignored.get("not a GPU size"), Some(&1));
        let reasons: Vec<String> = report
            .skipped
            .iter()
            .map(|s| s.reason.to_string())
            .collect();
        assert!(
            reasons.iter().any(|r| r.contains("low-priority")),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("\"H100 NVL\"")),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("no mapping")),
            "{reasons:?}"
        );
        assert_eq!(report.skipped.len(), 3);
    }

    #[test]
    fn pages_need_items_and_the_filter_names_every_size() {
        assert!(parse_page("{\"Items\": []}").unwrap().items.is_empty());
        assert!(matches!(
            parse_page("{\"items\": []}"),
            Err(FeedError::NotTheFeed { .. })
        ));
        assert!(matches!(
            parse_page("{\"Items\": [}"),
            Err(FeedError::Json(_))
        ));
        let page = parse_page(r#"{"Items": [], "NextPageLink": "https://x/y?$skip=100"}"#).unwrap();
        assert_eq!(
            page.next_page_link.as_deref(),
            Some("https://x/y?$skip=100")
        );
        let f = query_filter("eastus").unwrap();
        assert!(f.contains("armRegionName eq 'eastus'"));
        assert_eq!(f.matches("armSkuName eq").count(), SKUS.len());
        assert_eq!(query_filter("east' or 1 eq 1"), None);
        let url = page_url(API_URL, "eastus").unwrap();
        assert!(url.starts_with(
            "https://prices.azure.com/api/retail/prices?$filter=serviceName%20eq%20%27"
        ));
    }
}
