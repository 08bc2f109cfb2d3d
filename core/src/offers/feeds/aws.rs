//! The AWS Price List Bulk API's EC2 offer file for one region
//! (`https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.json`,
//! documented in the AWS Billing user guide, "Using the bulk API"; no key needed).
//!
//! The file is one JSON object: `formatVersion`, `offerCode` (`AmazonEC2`), `version`,
//! `publicationDate`, `products` (keyed by SKU: `productFamily` and `attributes` such as
//! `instanceType`, `gpu`, `vcpu`, `memory`, `operatingSystem`, `tenancy`, `preInstalledSw`,
//! `capacitystatus`, `marketoption`, `locationType`, `regionCode`, `location`) and `terms`
//! (`OnDemand` and `Reserved`, keyed by SKU then by offer term, each with `priceDimensions`
//! holding `unit` and `pricePerUnit` and, for reservations, `termAttributes`). For us-east-1 it
//! runs to hundreds of megabytes, so [`read_offer_file`] reads it from any serde deserializer as
//! it streams past, keeping only the GPU instances that pass the filters and their terms.
//!
//! Kept: GPU instance families ([`FAMILIES`], and any instance with a `gpu` count, which is
//! reported when unmapped), Linux, shared tenancy, no pre-installed software, capacity status
//! `Used`, market option `OnDemand`, in the region itself (an AWS Local or Wavelength Zone is
//! reported and left out). On-demand prices per hour; standard reserved instances of one and
//! three years with their purchase option (upfront fee, plus the hourly fee × 730 per month);
//! convertible reservations are counted and left out. Rows are dated by the file's
//! `publicationDate` and sourced with its `version`. AWS publishes no keyless spot price feed,
//! so there are no spot rows here.

use std::collections::BTreeMap;
use std::fmt;

use rust_decimal::Decimal;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::hardware::gpu::{GpuSpec, find_gpu};
use crate::numbers::money::Currency;
use crate::offers::billing::HOURS_PER_MONTH;
use crate::offers::feeds::traps::is_aws_local_zone;
use crate::offers::feeds::{
    DatedBy, Draft, DraftMode, FeedContext, FeedError, FeedImport, FeedReport, SkipWhy, currency,
    day_only, finish, parse_price, visible_vram_gib,
};
use crate::offers::offer::PriceEvidence;
use crate::offers::tenancy::Tenancy;
use crate::offers::validate::MAX_OFFER_PRICE;

/// Where a region's offer file lives; `{region}` is the region code.
pub const OFFER_FILE_URL: &str =
    "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.json";

/// GPU instance families and their GPU (the EC2 accelerated-computing instance pages). Families
/// whose GPU the spec table lacks are listed so that their rows are reported by GPU name.
pub const FAMILIES: [(&str, &str); 22] = [
    ("g4dn", "T4"),
    ("g5", "A10G"),
    ("g6", "L4"),
    ("gr6", "L4"),
    ("g6e", "L40S"),
    ("g6f", "L4"),
    ("gr6f", "L4"),
    ("p3", "V100-16GB"),
    ("p3dn", "V100-32GB"),
    ("p4d", "A100-40GB"),
    ("p4de", "A100-80GB"),
    ("p5", "H100-SXM"),
    ("p5e", "H200"),
    ("p5en", "H200"),
    ("p6-b200", "B200"),
    ("p6-b300", "B300"),
    ("p6e-gb200", "GB200"),
    ("g4ad", "Radeon Pro V520"),
    ("g5g", "T4G"),
    ("g3", "M60"),
    ("g3s", "M60"),
    ("p2", "K80"),
];

/// Share of an L4 in the fractional G6f/Gr6f sizes (the EC2 G6f page), by size.
const FRACTIONAL_SIZES: [(&str, f64); 4] = [
    ("large", 0.125),
    ("xlarge", 0.125),
    ("2xlarge", 0.25),
    ("4xlarge", 0.5),
];

/// The offer file's address for `region` from a template holding `{region}`; `None` when the
/// region code is not a plain AWS region code.
pub fn offer_file_url(template: &str, region: &str) -> Option<String> {
    let r = region.trim();
    let plain = !r.is_empty()
        && r.len() <= 40
        && r.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    plain.then(|| template.replace("{region}", r))
}

/// A GPU instance kept from the products.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuProduct {
    /// `instanceType`.
    pub instance: String,
    /// `regionCode`.
    pub region: String,
    /// `location` (the region's name).
    pub location: String,
    /// The GPU.
    pub gpu: &'static GpuSpec,
    /// GPUs in the instance (1 for a fractional one).
    pub count: u32,
    /// Share of a card per GPU.
    pub fraction: f64,
    /// `vcpu`.
    pub vcpu: Option<u32>,
    /// `memory`, GiB.
    pub ram_gib: Option<f64>,
}

/// One offer term (on-demand or reserved) of a kept product.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct Term {
    /// Prices by rate code.
    #[serde(rename = "priceDimensions", default)]
    pub price_dimensions: BTreeMap<String, Dimension>,
    /// `LeaseContractLength`, `OfferingClass`, `PurchaseOption` for reservations.
    #[serde(rename = "termAttributes", default)]
    pub term_attributes: BTreeMap<String, serde_json::Value>,
}

/// One price of a term.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct Dimension {
    /// `Hrs` or `Quantity` (an upfront fee).
    #[serde(default)]
    pub unit: Option<serde_json::Value>,
    /// Prices by currency code, as text.
    #[serde(rename = "pricePerUnit", default)]
    pub price_per_unit: BTreeMap<String, serde_json::Value>,
}

/// What [`read_offer_file`] keeps of an offer file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OfferFile {
    /// `version`.
    pub version: Option<String>,
    /// `publicationDate`.
    pub publication_date: Option<String>,
    /// `offerCode`.
    pub offer_code: Option<String>,
    /// Whether a `products` object was read.
    pub saw_products: bool,
    /// The GPU instances kept, by SKU.
    pub products: BTreeMap<String, GpuProduct>,
    /// On-demand terms of kept SKUs (of every SKU while no product has been read yet).
    pub on_demand: BTreeMap<String, Vec<Term>>,
    /// Reserved terms, likewise.
    pub reserved: BTreeMap<String, Vec<Term>>,
    /// Products read, left out and skipped so far.
    pub report: FeedReport,
}

#[derive(Deserialize)]
struct RawProduct {
    #[serde(rename = "productFamily", default)]
    product_family: Option<serde_json::Value>,
    #[serde(default)]
    attributes: BTreeMap<String, serde_json::Value>,
}

/// What to do with one product.
enum Class {
    Ignore(&'static str),
    Skip(String, SkipWhy),
    Keep(GpuProduct),
}

fn attr<'a>(attrs: &'a BTreeMap<String, serde_json::Value>, key: &str) -> &'a str {
    attrs
        .get(key)
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
        .trim()
}

/// The GPU of an instance family, when gpufare knows the family.
pub fn family_gpu(instance: &str) -> Option<&'static str> {
    let family = instance.split('.').next().unwrap_or("");
    FAMILIES
        .iter()
        .find(|(f, _)| f.eq_ignore_ascii_case(family))
        .map(|(_, g)| *g)
}

fn classify(family: &str, attrs: &BTreeMap<String, serde_json::Value>, ctx: &FeedContext) -> Class {
    if family != "Compute Instance" {
        return Class::Ignore("not an instance (storage, transfer, a host ...)");
    }
    let instance = attr(attrs, "instanceType");
    let gpu_attr: Option<f64> = attr(attrs, "gpu")
        .parse::<f64>()
        .ok()
        .filter(|g| g.is_finite() && *g > 0.0);
    let known = family_gpu(instance);
    if known.is_none() && gpu_attr.is_none() {
        return Class::Ignore("not a GPU instance");
    }
    if attr(attrs, "operatingSystem") != "Linux" {
        return Class::Ignore("not Linux");
    }
    if attr(attrs, "tenancy") != "Shared" {
        return Class::Ignore("dedicated instance or host tenancy");
    }
    if !matches!(attr(attrs, "preInstalledSw"), "" | "NA") {
        return Class::Ignore("pre-installed software");
    }
    if !matches!(attr(attrs, "capacitystatus"), "" | "Used") {
        return Class::Ignore("capacity reservation row");
    }
    if !matches!(attr(attrs, "marketoption"), "" | "OnDemand") {
        return Class::Ignore("capacity block or another market option");
    }
    let region = attr(attrs, "regionCode");
    let location_type = attr(attrs, "locationType");
    if (!location_type.is_empty() && location_type != "AWS Region") || is_aws_local_zone(region) {
        let zone = if region.is_empty() {
            attr(attrs, "location")
        } else {
            region
        };
        return Class::Skip(
            format!("{instance} {zone}"),
            SkipWhy::LocalZone {
                zone: zone.to_owned(),
            },
        );
    }
    if !ctx.wants_region(region) {
        return Class::Ignore("another region");
    }
    let Some(gpu_name) = known else {
        return Class::Skip(
            instance.to_owned(),
            SkipWhy::Unmapped {
                why: "a GPU instance family gpufare has no mapping for".into(),
            },
        );
    };
    let Some(spec) = find_gpu(gpu_name) else {
        return Class::Skip(
            instance.to_owned(),
            SkipWhy::UnknownGpu {
                name: gpu_name.to_owned(),
            },
        );
    };
    let family_name = instance.split('.').next().unwrap_or("");
    let fractional = matches!(family_name, "g6f" | "gr6f");
    let (count, fraction) = if fractional {
        let size = instance.split('.').nth(1).unwrap_or("");
        let by_size = FRACTIONAL_SIZES
            .iter()
            .find(|(s, _)| *s == size)
            .map(|(_, f)| *f);
        match gpu_attr.filter(|g| *g < 1.0).or(by_size) {
            Some(f) => (1, f),
            None => {
                return Class::Skip(
                    instance.to_owned(),
                    SkipWhy::Unmapped {
                        why: "a fractional GPU size gpufare does not know the share of".into(),
                    },
                );
            }
        }
    } else {
        match gpu_attr {
            Some(g) if g >= 1.0 && g.fract() == 0.0 && g <= 1024.0 => (g as u32, 1.0),
            _ => {
                return Class::Skip(
                    instance.to_owned(),
                    SkipWhy::Unmapped {
                        why: format!("GPU count {:?} is not a whole number", attr(attrs, "gpu")),
                    },
                );
            }
        }
    };
    let ram_gib = attr(attrs, "memory")
        .strip_suffix("GiB")
        .and_then(|m| m.trim().replace(',', "").parse::<f64>().ok())
        .filter(|m| m.is_finite() && *m > 0.0);
    Class::Keep(GpuProduct {
        instance: instance.to_owned(),
        region: region.to_owned(),
        location: attr(attrs, "location").to_owned(),
        gpu: spec,
        count,
        fraction,
        vcpu: attr(attrs, "vcpu").parse().ok(),
        ram_gib,
    })
}

/// Reads an offer file from `deserializer` as it streams, keeping the GPU instances `ctx`
/// wants and their terms; everything else is counted and dropped at once.
pub fn read_offer_file<'de, D: Deserializer<'de>>(
    deserializer: D,
    ctx: &FeedContext,
) -> Result<OfferFile, D::Error> {
    let mut file = OfferFile::default();
    deserializer.deserialize_map(FileVisitor {
        ctx,
        file: &mut file,
    })?;
    Ok(file)
}

struct FileVisitor<'a> {
    ctx: &'a FeedContext,
    file: &'a mut OfferFile,
}

fn text_of(v: Option<serde_json::Value>) -> Option<String> {
    match v {
        Some(serde_json::Value::String(s)) => Some(s),
        _ => None,
    }
}

impl<'de> Visitor<'de> for FileVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AWS offer file (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" => self.file.version = text_of(map.next_value()?),
                "publicationDate" => self.file.publication_date = text_of(map.next_value()?),
                "offerCode" => self.file.offer_code = text_of(map.next_value()?),
                "products" => {
                    self.file.saw_products = true;
                    map.next_value_seed(ProductsSeed {
                        ctx: self.ctx,
                        file: &mut *self.file,
                    })?;
                }
                "terms" => map.next_value_seed(TermsSeed {
                    file: &mut *self.file,
                })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

struct ProductsSeed<'a> {
    ctx: &'a FeedContext,
    file: &'a mut OfferFile,
}

impl<'de> DeserializeSeed<'de> for ProductsSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ProductsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("products keyed by SKU")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(sku) = map.next_key::<String>()? {
            let product: RawProduct = map.next_value()?;
            self.file.report.rows += 1;
            let family = match &product.product_family {
                Some(serde_json::Value::String(s)) => s.as_str(),
                _ => "",
            };
            match classify(family, &product.attributes, self.ctx) {
                Class::Ignore(why) => self.file.report.ignore(why),
                Class::Skip(item, why) => self.file.report.skip(&item, why),
                Class::Keep(p) => {
                    self.file.products.insert(sku, p);
                }
            }
        }
        Ok(())
    }
}

struct TermsSeed<'a> {
    file: &'a mut OfferFile,
}

impl<'de> DeserializeSeed<'de> for TermsSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TermsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("terms by kind (OnDemand, Reserved)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(kind) = map.next_key::<String>()? {
            let reserved = match kind.as_str() {
                "OnDemand" => false,
                "Reserved" => true,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            map.next_value_seed(TermsOfKind {
                file: &mut *self.file,
                reserved,
            })?;
        }
        Ok(())
    }
}

struct TermsOfKind<'a> {
    file: &'a mut OfferFile,
    reserved: bool,
}

impl<'de> DeserializeSeed<'de> for TermsOfKind<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TermsOfKind<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("terms keyed by SKU")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(sku) = map.next_key::<String>()? {
            // Terms of products not kept are skipped unread (all are kept while no product has
            // been read: a file with its terms first is sorted out at the end).
            let wanted = !self.file.saw_products || self.file.products.contains_key(&sku);
            if !wanted {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let terms: BTreeMap<String, Term> = map.next_value()?;
            let into = if self.reserved {
                &mut self.file.reserved
            } else {
                &mut self.file.on_demand
            };
            into.entry(sku).or_default().extend(terms.into_values());
        }
        Ok(())
    }
}

/// A non-negative amount (zero allowed, unlike a price).
fn amount(text: &str) -> Option<Decimal> {
    let t = text.trim();
    let d: Decimal = t.parse().ok()?;
    let d = d.round_dp(6).normalize();
    (d >= Decimal::ZERO && d <= MAX_OFFER_PRICE).then_some(d)
}

/// A dimension's unit and its price in the first currency gpufare prices in.
fn priced(d: &Dimension) -> Result<(String, Currency, String), SkipWhy> {
    let unit = match &d.unit {
        Some(serde_json::Value::String(s)) => s.trim().to_owned(),
        _ => String::new(),
    };
    let mut codes = Vec::new();
    for (code, value) in &d.price_per_unit {
        if let Some(c) = currency(code) {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            return Ok((unit, c, text));
        }
        codes.push(code.clone());
    }
    Err(SkipWhy::UnknownCurrency {
        currency: codes.join(","),
    })
}

fn term_attr<'a>(t: &'a Term, key: &str) -> &'a str {
    t.term_attributes
        .get(key)
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
        .trim()
}

/// Maps what [`read_offer_file`] kept to offers of provider `AWS`.
pub fn import(file: OfferFile, ctx: &FeedContext) -> Result<FeedImport, FeedError> {
    let not = |what: &str| FeedError::NotTheFeed {
        feed: "an AWS EC2 offer file",
        what: what.to_owned(),
    };
    if let Some(code) = &file.offer_code
        && code != "AmazonEC2"
    {
        return Err(not(&format!("offerCode is {code:?}, not AmazonEC2")));
    }
    if !file.saw_products {
        return Err(not("no products"));
    }
    let (as_of, dated_by) = match file.publication_date.as_deref().and_then(day_only) {
        Some(day) => (day, DatedBy::Feed),
        None => (ctx.checked_day()?, ctx.day_basis),
    };
    let source = match &file.version {
        Some(v) => format!("{} (version {v})", ctx.source),
        None => ctx.source.clone(),
    };
    let mut report = file.report;
    report.feed = "aws".to_owned();
    report.source = source.clone();
    report.as_of = as_of.clone();
    report.dated_by = dated_by;
    report.version = file.version.clone();
    if dated_by != DatedBy::Feed {
        report
            .notes
            .push("the file has no publicationDate: rows dated by the fetch day".to_owned());
    }
    let mut drafts = Vec::new();
    for (sku, p) in &file.products {
        let draft = |mode: DraftMode, price: Decimal, currency: Currency| Draft {
            provider: "AWS".to_owned(),
            instance: p.instance.clone(),
            region_id: p.region.clone(),
            region_name: if p.location.is_empty() {
                p.region.clone()
            } else {
                p.location.clone()
            },
            gpu: p.gpu,
            gpu_count: p.count,
            gpu_fraction: p.fraction,
            tenancy: if p.fraction < 1.0 {
                Tenancy::Vgpu
            } else {
                Tenancy::Dedicated
            },
            vram_gib: visible_vram_gib(p.gpu, p.fraction),
            vcpu: p.vcpu,
            ram_gib: p.ram_gib,
            mode,
            price,
            currency,
            source: source.clone(),
            as_of: as_of.clone(),
            evidence: PriceEvidence::Official,
        };
        let item = format!("{} {}", p.instance, p.region);
        let on_demand = file.on_demand.get(sku).map(Vec::as_slice).unwrap_or(&[]);
        if on_demand.is_empty() {
            report.skip(
                &item,
                SkipWhy::NoPrice {
                    value: "no on-demand term".into(),
                },
            );
        }
        for term in on_demand {
            for dim in term.price_dimensions.values() {
                match priced(dim) {
                    Err(why) => report.skip(&item, why),
                    Ok((unit, _, _)) if unit != "Hrs" => {
                        report.skip(&item, SkipWhy::UnknownUnit { unit })
                    }
                    Ok((_, cur, text)) => match parse_price(&text) {
                        Some(price) => drafts.push(draft(DraftMode::PayAsYouGo, price, cur)),
                        None => report.skip(&item, SkipWhy::NoPrice { value: text }),
                    },
                }
            }
        }
        for term in file.reserved.get(sku).map(Vec::as_slice).unwrap_or(&[]) {
            let class = term_attr(term, "OfferingClass");
            if class.eq_ignore_ascii_case("convertible") {
                report.ignore("convertible reservation");
                continue;
            }
            let length = term_attr(term, "LeaseContractLength");
            let months = match length.to_ascii_lowercase().replace(' ', "").as_str() {
                "1yr" => 12,
                "3yr" => 36,
                _ => {
                    report.skip(
                        &item,
                        SkipWhy::UnknownTerm {
                            term: length.to_owned(),
                        },
                    );
                    continue;
                }
            };
            let option = term_attr(term, "PurchaseOption");
            let (mut upfront, mut hourly, mut cur) = (Decimal::ZERO, Decimal::ZERO, None);
            let mut problem = None;
            for dim in term.price_dimensions.values() {
                match priced(dim) {
                    Err(why) => problem = Some(why),
                    Ok((unit, c, text)) => {
                        let Some(value) = amount(&text) else {
                            problem = Some(SkipWhy::NoPrice { value: text });
                            continue;
                        };
                        if cur.is_some_and(|k| k != c) {
                            problem = Some(SkipWhy::UnknownCurrency {
                                currency: "mixed".into(),
                            });
                        }
                        cur = Some(c);
                        match unit.as_str() {
                            "Quantity" => upfront += value,
                            "Hrs" => hourly += value,
                            _ => problem = Some(SkipWhy::UnknownUnit { unit }),
                        }
                    }
                }
            }
            let monthly = (hourly * Decimal::from(HOURS_PER_MONTH as u32))
                .round_dp(6)
                .normalize();
            match (problem, cur) {
                (Some(why), _) => report.skip(&item, why),
                (None, None) => report.skip(
                    &item,
                    SkipWhy::NoPrice {
                        value: "a reservation without prices".into(),
                    },
                ),
                (None, Some(_)) if upfront.is_zero() && monthly.is_zero() => {
                    report.skip(&item, SkipWhy::NoPrice { value: "0".into() })
                }
                (None, Some(c)) => {
                    let tag = format!("ri-{}y-{}", months / 12, option);
                    drafts.push(draft(
                        DraftMode::Reserved {
                            months,
                            upfront,
                            tag,
                        },
                        monthly,
                        c,
                    ));
                }
            }
        }
    }
    report.notes.push(
        "AWS publishes no keyless spot price feed: no spot rows (the Spot Instance Advisor gives \
         interruption bands only)"
            .to_owned(),
    );
    let catalog = finish(drafts, &mut report);
    Ok(FeedImport { catalog, report })
}

/// Reads a whole offer file held in memory (the caller streams large ones through
/// [`read_offer_file`]).
pub fn import_json(text: &str, ctx: &FeedContext) -> Result<FeedImport, FeedError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let file = read_offer_file(&mut de, ctx)?;
    de.end()?;
    import(file, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::billing::BillingMode;
    use serde_json::json;

    fn product(
        sku: &str,
        instance: &str,
        gpu: &str,
        extra: serde_json::Value,
    ) -> (String, serde_json::Value) {
        let mut attrs = json!({
            "servicecode": "AmazonEC2", "location": "US East (N. Virginia)",
            "locationType": "AWS Region", "instanceType": instance, "vcpu": "4",
            "memory": "16 GiB", "tenancy": "Shared", "operatingSystem": "Linux",
            "licenseModel": "No License required", "capacitystatus": "Used", "gpu": gpu,
            "marketoption": "OnDemand", "preInstalledSw": "NA", "regionCode": "us-east-1"
        });
        for (k, v) in extra.as_object().unwrap() {
            attrs[k] = v.clone();
        }
        (
            sku.to_owned(),
            json!({"sku": sku, "productFamily": "Compute Instance", "attributes": attrs}),
        )
    }

    fn hourly(sku: &str, price: &str) -> serde_json::Value {
        json!({ format!("{sku}.JRTCKXETXF"): {
            "offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": "2025-11-01T00:00:00Z",
            "priceDimensions": { format!("{sku}.JRTCKXETXF.6YS6EN2CT7"): {
                "unit": "Hrs", "pricePerUnit": {"USD": price}, "description": "per hour"
            }},
            "termAttributes": {}
        }})
    }

    fn file() -> serde_json::Value {
        let products: serde_json::Map<String, serde_json::Value> = [
            product("G5", "g5.xlarge", "1", json!({})),
            product("G6F", "g6f.large", "", json!({})),
            product(
                "WIN",
                "g5.xlarge",
                "1",
                json!({"operatingSystem": "Windows"}),
            ),
            product(
                "LZ",
                "g5.xlarge",
                "1",
                json!({"locationType": "AWS Local Zone", "regionCode": "us-east-1-atl-2"}),
            ),
            product("M5", "m5.large", "", json!({})),
            product("B200", "p6-b200.48xlarge", "8", json!({})),
            product("NEW", "g9z.xlarge", "1", json!({})),
        ]
        .into_iter()
        .collect();
        let mut reserved = serde_json::Map::new();
        reserved.insert(
            "G5".into(),
            json!({"G5.RI1": {
                "priceDimensions": {
                    "a": {"unit": "Quantity", "pricePerUnit": {"USD": "4000"}},
                    "b": {"unit": "Hrs", "pricePerUnit": {"USD": "0.2500000000"}}
                },
                "termAttributes": {"LeaseContractLength": "1yr", "OfferingClass": "standard", "PurchaseOption": "Partial Upfront"}
            }, "G5.RI2": {
                "priceDimensions": {"a": {"unit": "Quantity", "pricePerUnit": {"USD": "9000"}}},
                "termAttributes": {"LeaseContractLength": "3yr", "OfferingClass": "convertible", "PurchaseOption": "All Upfront"}
            }}),
        );
        json!({
            "formatVersion": "v1.0", "offerCode": "AmazonEC2", "version": "20251120211733",
            "publicationDate": "2025-11-20T21:17:33Z",
            "products": products,
            "terms": {
                "OnDemand": {
                    "G5": hourly("G5", "1.0060000000"), "G6F": hourly("G6F", "0.1630000000"),
                    "WIN": hourly("WIN", "1.8"), "M5": hourly("M5", "0.096")
                },
                "Reserved": reserved
            }
        })
    }

    #[test]
    fn gpu_instances_are_kept_with_their_reservations_and_the_rest_is_accounted_for() {
        let ctx = FeedContext::fetched(OFFER_FILE_URL, "2026-12-05");
        let out = import_json(&file().to_string(), &ctx).unwrap();
        let ids: Vec<&str> = out.catalog.offers.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "aws-g5-xlarge-us-east-1",
                "aws-g5-xlarge-us-east-1-ri-1y-partial-upfront",
                "aws-g6f-large-us-east-1",
            ]
        );
        let g5 = &out.catalog.offers[0];
        assert_eq!(g5.as_of, "2025-11-20", "dated by the publication date");
        assert!(g5.source.ends_with("(version 20251120211733)"));
        assert_eq!(
            (g5.gpu.as_str(), g5.gpu_count, g5.vcpu),
            ("A10G", 1, Some(4))
        );
        let ri = &out.catalog.offers[1];
        assert_eq!(
            (
                ri.billing_mode,
                ri.term_months,
                ri.upfront,
                ri.price.to_string()
            ),
            (
                BillingMode::Reserved,
                Some(12),
                Some(Decimal::new(4000, 0)),
                "182.5".to_owned()
            )
        );
        let g6f = &out.catalog.offers[2];
        assert_eq!((g6f.tenancy, g6f.gpu_fraction), (Tenancy::Vgpu, 0.125));
        let r = &out.report;
        assert_eq!(r.rows, 7);
        assert_eq!(r.dated_by, DatedBy::Feed);
        assert_eq!(r.ignored.get("not Linux"), Some(&1));
        assert_eq!(r.ignored.get("not a GPU instance"), Some(&1));
        assert_eq!(r.ignored.get("convertible reservation"), Some(&1));
        let reasons: Vec<String> = r
            .skipped
            .iter()
            .map(|s| format!("{}: {}", s.item, s.reason))
            .collect();
        assert!(
            reasons
                .iter()
                .any(|s| s.contains("us-east-1-atl-2") && s.contains("Local")),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|s| s.contains("\"B200\"")),
            "{reasons:?}"
        );
        assert!(
            reasons
                .iter()
                .any(|s| s.starts_with("g9z.xlarge") && s.contains("no mapping")),
            "{reasons:?}"
        );
    }

    #[test]
    fn terms_before_products_give_the_same_offers() {
        let v = file();
        let o = v.as_object().unwrap();
        let reordered = format!(
            "{{\"terms\": {}, \"publicationDate\": \"2025-11-20T21:17:33Z\", \"products\": {}}}",
            o["terms"], o["products"]
        );
        let ctx = FeedContext::fetched(OFFER_FILE_URL, "2026-12-05");
        let a = import_json(&v.to_string(), &ctx).unwrap();
        let b = import_json(&reordered, &ctx).unwrap();
        assert_eq!(a.catalog.offers.len(), b.catalog.offers.len());
        assert_eq!(a.catalog.offers[0].price, b.catalog.offers[0].price);
    }

    #[test]
    fn a_file_that_is_not_an_ec2_offer_file_is_refused() {
        let ctx = FeedContext::fetched(OFFER_FILE_URL, "2026-12-05");
        assert!(matches!(
            import_json("{\"products\": {", &ctx),
            Err(FeedError::Json(_))
        ));
        assert!(matches!(
            import_json("[1, 2]", &ctx),
            Err(FeedError::Json(_))
        ));
        assert!(matches!(
            import_json("{}", &ctx),
            Err(FeedError::NotTheFeed { .. })
        ));
        assert!(matches!(
            import_json("{\"offerCode\": \"AmazonS3\", \"products\": {}}", &ctx),
            Err(FeedError::NotTheFeed { .. })
        ));
        let no_date = import_json("{\"products\": {}}", &ctx).unwrap();
        assert_eq!(
            (no_date.report.as_of.as_str(), no_date.report.dated_by),
            ("2026-12-05", DatedBy::FetchDay)
        );
        assert_eq!(
            offer_file_url(OFFER_FILE_URL, "us-east-1").unwrap(),
            "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.json"
        );
        assert_eq!(offer_file_url(OFFER_FILE_URL, "../x"), None);
    }
}
