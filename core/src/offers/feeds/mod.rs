//! Public, keyless price feeds turned into offers: the Azure Retail Prices API, the AWS Price
//! List offer files, Alibaba Cloud's international price file and dstack's gpuhunt catalogs
//! (SkyPilot's `vms.csv` has its own importer, `offers::skypilot`).
//!
//! Every parser here is pure: the text (or a streaming deserializer) comes in, offers and a
//! report come out; fetching, clocks and files belong to the caller. Each row is dated (the
//! feed's own date where it has one, else the day the caller fetched it), sourced (the public
//! URL and the feed's version), marked `official` (the provider's own feed) or `catalog` (a
//! third-party catalog) and never an estimate. A row that cannot be mapped (an unknown GPU, no
//! price, a unit or term gpufare does not price) is reported with the reason, never guessed;
//! rows left out by design (Windows, other tenancies, non-GPU instances) are counted.
//!
//! The traps every importer applies are in [`traps`]: AWS Local Zones, spot prices at or above
//! on-demand (skipped) or below a fifth of it (flagged and kept), providers that list every
//! region at one price, and marketplace medians.

pub mod alibaba;
pub mod aws;
pub mod azure;
pub mod gpuhunt;
pub mod traps;

use std::collections::BTreeMap;
use std::str::FromStr;

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::hardware::gpu::GpuSpec;
use crate::numbers::date::PriceDate;
use crate::numbers::money::Currency;
use crate::numbers::problem::JsonProblem;
use crate::offers::billing::{BillingMode, Granularity};
use crate::offers::catalog::{CATALOG_FORMAT_VERSION, Catalog};
use crate::offers::interruption::assumed_spot;
use crate::offers::offer::{Offer, PriceEvidence, Region, default_rtt_ms};
use crate::offers::tenancy::Tenancy;
use crate::offers::validate::{MAX_OFFER_PRICE, validate_offer};

/// The longest item name a report keeps (longer names are cut, so a hostile feed cannot blow
/// up the report with one name).
const MAX_ITEM_CHARS: usize = 120;

/// How the rows of a feed were dated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DatedBy {
    /// The feed's own version or publication date.
    Feed,
    /// The day the feed was fetched: the feed carries no date of its own, and its prices are
    /// the ones in force that day.
    FetchDay,
    /// A saved copy, dated by the day the user gave (or the day the copy was saved).
    Given,
}

impl DatedBy {
    /// A few words for people.
    pub fn describe(self) -> &'static str {
        match self {
            DatedBy::Feed => "the feed's own date",
            DatedBy::FetchDay => "the day it was fetched",
            DatedBy::Given => "the date given for the saved copy",
        }
    }
}

/// What the caller knows about one fetch of a feed.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedContext {
    /// The public URL the bytes came from (plus the feed's version where the URL lacks it).
    pub source: String,
    /// The day to date rows by when the feed has no date of its own, `YYYY-MM-DD`.
    pub day: String,
    /// What `day` is: the fetch day, or a date given for a saved copy.
    pub day_basis: DatedBy,
    /// Only rows of these regions are kept (every region when empty).
    pub regions: Vec<String>,
}

impl FeedContext {
    /// A context for a feed fetched on `day` from `source`, every region kept.
    pub fn fetched(source: &str, day: &str) -> FeedContext {
        FeedContext {
            source: source.to_owned(),
            day: day.to_owned(),
            day_basis: DatedBy::FetchDay,
            regions: Vec::new(),
        }
    }

    /// Whether rows of `region` are wanted.
    pub fn wants_region(&self, region: &str) -> bool {
        self.regions.is_empty() || self.regions.iter().any(|r| r == region)
    }

    /// The context's own day, checked.
    fn checked_day(&self) -> Result<String, FeedError> {
        day_only(&self.day).ok_or_else(|| FeedError::BadDate {
            value: self.day.clone(),
        })
    }
}

/// Why a whole feed document could not be read (a row that cannot be used is reported, not an
/// error).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FeedError {
    /// Not JSON, or JSON cut short.
    #[error("not readable JSON: {0}")]
    Json(JsonProblem),
    /// JSON (or CSV) that is not shaped like the feed.
    #[error("not {feed}: {what}")]
    NotTheFeed {
        /// Which feed was expected.
        feed: &'static str,
        /// What is missing or wrong.
        what: String,
    },
    /// The CSV itself cannot be read.
    #[error("unreadable CSV: {detail}")]
    Csv {
        /// What the reader said.
        detail: String,
    },
    /// The date to give the rows is not a day.
    #[error("{value:?} is not a day (YYYY-MM-DD)")]
    BadDate {
        /// The value.
        value: String,
    },
    /// A currency gpufare does not price in.
    #[error("currency {currency:?}: gpufare prices in USD and CNY only")]
    Currency {
        /// The currency code.
        currency: String,
    },
}

impl From<serde_json::Error> for FeedError {
    fn from(e: serde_json::Error) -> FeedError {
        FeedError::Json(JsonProblem::from(e))
    }
}

/// Why a row of a feed was not imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum SkipWhy {
    /// A GPU the spec table does not know.
    #[error("GPU {name:?} is not in the spec table")]
    UnknownGpu {
        /// The GPU's name as the feed gives it (or as the instance family implies).
        name: String,
    },
    /// An instance gpufare cannot map to a GPU, a count or a share of a card.
    #[error("not mapped: {why}")]
    Unmapped {
        /// Why.
        why: String,
    },
    /// No positive price: blank, zero or not a number (a blank price means "not offered").
    #[error("no usable price ({value:?})")]
    NoPrice {
        /// What the price field held.
        value: String,
    },
    /// A unit of measure gpufare does not price.
    #[error("unit {unit:?} is not an hour")]
    UnknownUnit {
        /// The unit.
        unit: String,
    },
    /// A currency gpufare does not price in.
    #[error("currency {currency:?} is not USD or CNY")]
    UnknownCurrency {
        /// The currency code.
        currency: String,
    },
    /// A commitment term gpufare does not know.
    #[error("reservation term {term:?} is not one gpufare knows")]
    UnknownTerm {
        /// The term as written.
        term: String,
    },
    /// An AWS Local Zone or Wavelength Zone: priced apart from its region, so not the region's
    /// price.
    #[error("{zone} is an AWS Local or Wavelength Zone, not the region's price")]
    LocalZone {
        /// The zone or location code.
        zone: String,
    },
    /// A spot price at or above the on-demand price of the same instance and region.
    #[error("spot {spot} is at or above on-demand {on_demand}")]
    SpotNotBelowOnDemand {
        /// The spot price.
        spot: String,
        /// The on-demand price.
        on_demand: String,
    },
    /// A spot price at 95 % of on-demand or more: no real discount (the SkyPilot importer's
    /// rule, the SkyPilot importer's `SPOT_DISCOUNT_SHARE`).
    #[error("spot {spot} is at least 95 % of on-demand {on_demand}: no real discount")]
    SpotNoDiscount {
        /// The spot price.
        spot: String,
        /// The on-demand price.
        on_demand: String,
    },
    /// Azure's low-priority price (Azure Batch), not a VM offer.
    #[error("a low-priority (Azure Batch) price, not a VM offer")]
    LowPriority,
    /// A second row for an offer already imported (the lower price is kept).
    #[error("a second row for the same offer (the lower price is kept)")]
    Duplicate,
    /// The offer built from the row breaks a rule every offer must respect.
    #[error("not a valid offer: {detail}")]
    Invalid {
        /// The field and the problem.
        detail: String,
    },
    /// A row the reader could not read.
    #[error("unreadable row: {detail}")]
    Unreadable {
        /// What the reader said.
        detail: String,
    },
    /// Why the SkyPilot importer left a row or its spot price out.
    #[error("{reason}")]
    SkyPilot {
        /// The importer's own reason.
        reason: SkipReason,
    },
}

/// Why a row of a SkyPilot catalog (or its spot price) was not imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum SkipReason {
    /// The CSV reader could not read the row.
    #[error("unreadable row: {detail}")]
    Unreadable {
        /// What the reader said.
        detail: String,
    },
    /// A host VM row without an accelerator (GCP prices the GPU separately).
    #[error("no accelerator (a host VM row; the GPU is priced separately)")]
    NoAccelerator,
    /// An accelerator the spec table does not know.
    #[error("GPU {name:?} is not in the spec table")]
    UnknownGpu {
        /// The accelerator's name.
        name: String,
    },
    /// No positive on-demand price.
    #[error("no usable on-demand price ({value:?})")]
    NoPrice {
        /// What the price column held.
        value: String,
    },
    /// A spot price of 0: spot is not offered.
    #[error("spot price 0: not offered")]
    SpotNotOffered,
    /// A spot price at 95 % of on-demand or more.
    #[error("spot price at least 95 % of on-demand: no real discount")]
    SpotNoDiscount,
    /// A spot price that is not a number.
    #[error("spot price {value:?} is not a number")]
    SpotNotANumber {
        /// What the column held.
        value: String,
    },
}

/// Something to know about an imported row (the row is kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Flag {
    /// A spot price below a fifth of on-demand: an outlier to check before relying on it.
    #[error("spot {spot} is below 20 % of on-demand {on_demand}: an outlier, check it")]
    SpotOutlier {
        /// The spot price.
        spot: String,
        /// The on-demand price.
        on_demand: String,
    },
    /// A spot price with no on-demand price of the same instance and region to compare with.
    #[error("spot price without an on-demand price to compare it with")]
    SpotWithoutOnDemand,
    /// The same price in every region the feed lists the instance in: the feed does not say
    /// where there is capacity.
    #[error(
        "one price ({price}) in all {regions} regions listed: the feed does not tell where capacity is"
    )]
    UniformPrice {
        /// How many regions.
        regions: usize,
        /// The price.
        price: String,
    },
    /// A marketplace median of live offers, not a price anyone quoted.
    #[error("the price is the median of live marketplace offers, not the cheapest")]
    Median,
    /// A mainland China region gpufare's table does not place: taken as remote (inland).
    #[error("region {region} is not in gpufare's table of mainland regions: taken as remote")]
    RegionClassAssumed {
        /// The region id.
        region: String,
    },
}

/// Rows left out for one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FeedSkip {
    /// What was left out: an instance type, with its region or zone where that matters.
    pub item: String,
    /// How many rows of the feed this is.
    pub rows: usize,
    /// Why.
    pub reason: SkipWhy,
}

/// An imported offer with something to know about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FeedFlag {
    /// The offer's id (or the instance type, for a flag about every region).
    pub item: String,
    /// What to know.
    pub flag: Flag,
}

/// What an import of one feed did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FeedReport {
    /// The feed: `azure`, `aws`, `alibaba`, `gpuhunt:<provider>`, `skypilot:<cloud>`.
    pub feed: String,
    /// Where it came from (the public URL, with the feed's version).
    pub source: String,
    /// The date every row carries.
    pub as_of: String,
    /// How that date was found.
    pub dated_by: DatedBy,
    /// The feed's own version, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Rows (items, products, keys) read.
    pub rows: usize,
    /// Offers produced.
    pub offers: usize,
    /// Rows left out by design, counted by reason (not GPU instances, Windows, dedicated
    /// tenancy, other regions ...).
    pub ignored: BTreeMap<String, usize>,
    /// Rows that could have been offers but were not, with the reason.
    pub skipped: Vec<FeedSkip>,
    /// Offers kept with something to know.
    pub flagged: Vec<FeedFlag>,
    /// Remarks about the feed as a whole.
    pub notes: Vec<String>,
}

impl FeedReport {
    /// An empty report for `feed`.
    pub fn new(feed: &str, source: &str, as_of: &str, dated_by: DatedBy) -> FeedReport {
        FeedReport {
            feed: feed.to_owned(),
            source: source.to_owned(),
            as_of: as_of.to_owned(),
            dated_by,
            version: None,
            rows: 0,
            offers: 0,
            ignored: BTreeMap::new(),
            skipped: Vec::new(),
            flagged: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Counts a row left out by design.
    pub fn ignore(&mut self, why: &str) {
        *self.ignored.entry(why.to_owned()).or_insert(0) += 1;
    }

    /// Records a row left out; the same item and reason are counted once with their rows.
    pub fn skip(&mut self, item: &str, reason: SkipWhy) {
        let item = short(item);
        if let Some(s) = self
            .skipped
            .iter_mut()
            .rev()
            .take(8)
            .find(|s| s.item == item && s.reason == reason)
        {
            s.rows += 1;
            return;
        }
        self.skipped.push(FeedSkip {
            item,
            rows: 1,
            reason,
        });
    }

    /// Records a flag on a kept offer.
    pub fn flag(&mut self, item: &str, flag: Flag) {
        self.flagged.push(FeedFlag {
            item: short(item),
            flag,
        });
    }

    /// Rows skipped in all.
    pub fn skipped_rows(&self) -> usize {
        self.skipped.iter().map(|s| s.rows).sum()
    }

    /// Merges identical skip entries (same item and reason), keeping the first's position.
    fn compact(&mut self) {
        let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
        let mut out: Vec<FeedSkip> = Vec::with_capacity(self.skipped.len());
        for s in std::mem::take(&mut self.skipped) {
            let key = (s.item.clone(), s.reason.to_string());
            match seen.get(&key) {
                Some(&i) => {
                    if let Some(kept) = out.get_mut(i) {
                        kept.rows += s.rows;
                    }
                }
                None => {
                    seen.insert(key, out.len());
                    out.push(s);
                }
            }
        }
        self.skipped = out;
    }
}

impl Default for FeedReport {
    fn default() -> FeedReport {
        FeedReport::new("", "", "", DatedBy::Feed)
    }
}

/// Offers read from a feed, and what the import did.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedImport {
    /// The offers (possibly none: the caller decides whether that is an error).
    pub catalog: Catalog,
    /// What was read, skipped and flagged.
    pub report: FeedReport,
}

fn short(text: &str) -> String {
    if text.chars().count() <= MAX_ITEM_CHARS {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(MAX_ITEM_CHARS).collect();
        s.push('…');
        s
    }
}

/// `YYYY-MM-DD` when `text` starts with a valid day (`2025-11-20T21:17:33Z` gives
/// `2025-11-20`); `None` otherwise. A month alone is not a day.
pub fn day_only(text: &str) -> Option<String> {
    let day = text.trim().get(..10)?;
    let date = PriceDate::parse(day).ok()?;
    (!date.month_only()).then(|| day.to_owned())
}

/// A price as written in a feed, as an exact decimal rounded to a millionth: `None` when it is
/// blank, not a number, zero or negative, or beyond the highest price an offer may state.
pub fn parse_price(text: &str) -> Option<Decimal> {
    let t = text.trim();
    if t.is_empty() || t.len() > 64 {
        return None;
    }
    let value = Decimal::from_str(t)
        .or_else(|_| Decimal::from_scientific(t))
        .ok()?;
    let value = value.round_dp(6).normalize();
    (value > Decimal::ZERO && value <= MAX_OFFER_PRICE).then_some(value)
}

/// A JSON number or string as price text (`3.673` and `"3.673"` alike; a float prints as the
/// shortest text that reads back to it, so `3.673` stays `3.673`).
pub fn json_price_text(value: Option<&serde_json::Value>) -> String {
    match value {
        Some(serde_json::Value::Number(n)) => n.to_string(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// A string field of a JSON object (`""` when absent or not a string).
pub fn json_str<'a>(object: &'a serde_json::Value, key: &str) -> &'a str {
    object
        .get(key)
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
}

/// The currency of a feed's code, when gpufare prices in it.
pub fn currency(code: &str) -> Option<Currency> {
    match code.trim().to_ascii_uppercase().as_str() {
        "USD" => Some(Currency::Usd),
        "CNY" | "RMB" => Some(Currency::Cny),
        _ => None,
    }
}

/// Lower-case letters and digits, everything else one `-`.
pub fn slug(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    s.trim_matches('-').to_owned()
}

/// Memory a whole card shows, GiB (NVML's `memory.total`), or the part of it a slice of
/// `fraction` shows; rounded to a hundredth.
pub fn visible_vram_gib(spec: &GpuSpec, fraction: f64) -> f64 {
    let whole = spec.nvml_total_mib as f64 / 1024.0;
    (whole * fraction * 100.0).round() / 100.0
}

/// How a draft row is billed.
#[derive(Debug, Clone, PartialEq)]
pub enum DraftMode {
    /// Per hour of running.
    PayAsYouGo,
    /// Interruptible, per hour of running.
    Spot,
    /// A commitment of `months` with `upfront` paid once per term and the draft's price per
    /// month; `tag` tells apart several commitments of one length (`1y-no-upfront`).
    Reserved {
        /// Term length, months.
        months: u32,
        /// Paid at the start of each term.
        upfront: Decimal,
        /// Names the commitment in the offer id.
        tag: String,
    },
    /// Prepaid per month.
    Monthly,
    /// Prepaid per year.
    Yearly,
}

impl DraftMode {
    fn suffix(&self) -> String {
        match self {
            DraftMode::PayAsYouGo => String::new(),
            DraftMode::Spot => "-spot".to_owned(),
            DraftMode::Reserved { tag, .. } => format!("-{}", slug(tag)),
            DraftMode::Monthly => "-monthly".to_owned(),
            DraftMode::Yearly => "-yearly".to_owned(),
        }
    }
}

/// One row of a feed, mapped but not yet checked against the others.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    /// Provider display name.
    pub provider: String,
    /// The provider's instance (SKU) name.
    pub instance: String,
    /// Region id.
    pub region_id: String,
    /// Region name for people (the id when the feed gives none).
    pub region_name: String,
    /// GPU short name from the spec table.
    pub gpu: &'static GpuSpec,
    /// GPUs or slices.
    pub gpu_count: u32,
    /// Share of one card per GPU.
    pub gpu_fraction: f64,
    /// How the card is shared.
    pub tenancy: Tenancy,
    /// Visible memory per GPU or slice, GiB.
    pub vram_gib: f64,
    /// Host vCPUs.
    pub vcpu: Option<u32>,
    /// Host RAM, GiB.
    pub ram_gib: Option<f64>,
    /// How it is billed.
    pub mode: DraftMode,
    /// Per hour (metered), per term (monthly, yearly) or per month (reserved).
    pub price: Decimal,
    /// Currency of the price.
    pub currency: Currency,
    /// The row's source (the feed's URL and version, with any remark about the row).
    pub source: String,
    /// The date of the price.
    pub as_of: String,
    /// How strong the source is.
    pub evidence: PriceEvidence,
}

impl Draft {
    fn id(&self) -> String {
        format!(
            "{}-{}-{}{}",
            slug(&self.provider),
            slug(&self.instance),
            slug(&self.region_id),
            self.mode.suffix()
        )
    }

    fn offer(&self, flags: &mut Vec<FeedFlag>) -> Offer {
        let (class, assumed) = traps::region_class(&self.region_id);
        if assumed {
            flags.push(FeedFlag {
                item: self.id(),
                flag: Flag::RegionClassAssumed {
                    region: self.region_id.clone(),
                },
            });
        }
        let (billing_mode, term_months, upfront) = match &self.mode {
            DraftMode::PayAsYouGo => (BillingMode::PayAsYouGo, None, None),
            DraftMode::Spot => (BillingMode::Spot, None, None),
            DraftMode::Reserved {
                months, upfront, ..
            } => (BillingMode::Reserved, Some(*months), Some(*upfront)),
            DraftMode::Monthly => (BillingMode::Monthly, None, None),
            DraftMode::Yearly => (BillingMode::Yearly, None, None),
        };
        Offer {
            id: self.id(),
            provider: self.provider.clone(),
            region: Region {
                id: self.region_id.clone(),
                name: self.region_name.clone(),
                class,
                rtt_ms: default_rtt_ms(class),
            },
            gpu: self.gpu.short.clone(),
            gpu_count: self.gpu_count,
            tenancy: self.tenancy,
            gpu_fraction: self.gpu_fraction,
            vram_gib: self.vram_gib,
            vcpu: self.vcpu,
            ram_gib: self.ram_gib,
            billing_mode,
            term_months,
            upfront,
            price: self.price,
            currency: self.currency,
            granularity: billing_mode.is_metered().then_some(Granularity::Second),
            interruptions: if billing_mode == BillingMode::Spot {
                assumed_spot(&self.provider)
            } else {
                Default::default()
            },
            as_of: self.as_of.clone(),
            source: self.source.clone(),
            price_evidence: Some(self.evidence),
            estimate: false,
            ..Offer::blank()
        }
    }
}

/// Turns checked drafts into a catalog: spot prices checked against on-demand (see
/// [`traps::spot_check`]), one offer per id (the lowest price; the others reported as
/// duplicates), every offer validated, providers that give every region one price flagged,
/// offers in id order.
pub fn finish(drafts: Vec<Draft>, report: &mut FeedReport) -> Catalog {
    let uniform = traps::uniform_prices(
        drafts
            .iter()
            .filter(|d| d.mode == DraftMode::PayAsYouGo)
            .map(|d| {
                (
                    format!("{} {}", d.provider, d.instance),
                    d.region_id.as_str(),
                    d.price,
                )
            }),
    );
    // On-demand prices by (provider, instance, region), to check spot against.
    let mut on_demand: BTreeMap<(String, String, String), Decimal> = BTreeMap::new();
    for d in &drafts {
        if d.mode == DraftMode::PayAsYouGo {
            let key = (d.provider.clone(), d.instance.clone(), d.region_id.clone());
            let entry = on_demand.entry(key).or_insert(d.price);
            if d.price < *entry {
                *entry = d.price;
            }
        }
    }
    let mut by_id: BTreeMap<String, Offer> = BTreeMap::new();
    let mut flags = Vec::new();
    for d in drafts {
        let id = d.id();
        if d.mode == DraftMode::Spot {
            let key = (d.provider.clone(), d.instance.clone(), d.region_id.clone());
            match traps::spot_check(d.price, on_demand.get(&key).copied()) {
                traps::SpotCheck::Keep => {}
                traps::SpotCheck::Skip(why) => {
                    report.skip(&format!("{} {}", d.instance, d.region_id), why);
                    continue;
                }
                traps::SpotCheck::KeepFlagged(flag) => flags.push(FeedFlag {
                    item: id.clone(),
                    flag,
                }),
            }
        }
        let mut offer_flags = Vec::new();
        let offer = d.offer(&mut offer_flags);
        if let Err(e) = validate_offer(&offer) {
            report.skip(
                &format!("{} {}", d.instance, d.region_id),
                SkipWhy::Invalid {
                    detail: e.to_string(),
                },
            );
            continue;
        }
        match by_id.get_mut(&id) {
            Some(existing) => {
                report.skip(&id, SkipWhy::Duplicate);
                if offer.price < existing.price {
                    *existing = offer;
                }
            }
            None => {
                flags.extend(offer_flags);
                by_id.insert(id, offer);
            }
        }
    }
    // Flags of offers that were dropped (an invalid row, a duplicate) stay out.
    flags.retain(|f| by_id.contains_key(&f.item));
    flags.dedup();
    report.flagged.extend(flags);
    let offers: Vec<Offer> = by_id.into_values().collect();
    for (instance, regions, price) in uniform {
        report.flag(&instance, Flag::UniformPrice { regions, price });
    }
    report.compact();
    report.offers = offers.len();
    Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_exact_positive_and_bounded() {
        assert_eq!(parse_price("1.0060000000"), Some(Decimal::new(1006, 3)));
        assert_eq!(parse_price(" 3.673 "), Some(Decimal::new(3673, 3)));
        assert_eq!(parse_price("1e-2"), Some(Decimal::new(1, 2)));
        for bad in [
            "",
            "0",
            "0.0000000",
            "-1",
            "abc",
            "NaN",
            "1e400",
            "100000001",
        ] {
            assert_eq!(parse_price(bad), None, "{bad}");
        }
        assert_eq!(parse_price("0.0000004"), None, "rounds to zero");
        assert_eq!(
            json_price_text(Some(&serde_json::json!(3.673))),
            "3.673",
            "a float keeps its short form"
        );
    }

    #[test]
    fn days_are_read_from_timestamps_and_versions() {
        assert_eq!(
            day_only("2025-11-20T21:17:33Z").as_deref(),
            Some("2025-11-20")
        );
        assert_eq!(day_only("2025-11"), None);
        assert_eq!(day_only("2025-13-01"), None);
        assert_eq!(day_only("yesterday"), None);
        assert_eq!(slug("Standard_NC24ads_A100_v4"), "standard-nc24ads-a100-v4");
        assert_eq!(slug("--a..b--"), "a-b");
    }

    #[test]
    fn skips_of_one_item_and_reason_are_counted_once() {
        let mut r = FeedReport::new("x", "u", "2025-01-01", DatedBy::Feed);
        for _ in 0..3 {
            r.skip(
                "p6-b200.48xlarge",
                SkipWhy::UnknownGpu {
                    name: "B200".into(),
                },
            );
            r.skip("other", SkipWhy::Duplicate);
        }
        r.compact();
        assert_eq!(r.skipped.len(), 2);
        assert_eq!(r.skipped_rows(), 6);
        assert_eq!(r.skipped[0].rows, 3);
        r.skip(&"x".repeat(500), SkipWhy::Duplicate);
        assert!(r.skipped.last().unwrap().item.chars().count() <= MAX_ITEM_CHARS + 1);
    }
}
