//! Offers and catalogs: what can be rented, where, how it is shared, and how it is billed.
//!
//! A catalog is a list of offers, each one row of our CSV format (see `core/data/catalog.csv`,
//! compiled in as the default) or one object of the JSON form. Spot and subscription prices are
//! rows of their own, never extra columns. Every row carries the date and source of its price.

use std::str::FromStr;
use std::sync::OnceLock;

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::billing::Granularity;
use crate::money::Currency;
use crate::tenancy::{SlowdownOverride, Tenancy};

/// The catalog format this build writes and the newest it reads.
pub const CATALOG_FORMAT_VERSION: u32 = 1;

const DEFAULT_CATALOG_CSV: &str = include_str!("../data/catalog.csv");

/// A set of offers with its format version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Catalog {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// The offers, in the order they were read.
    pub offers: Vec<Offer>,
}

/// How close a region is to the user, which drives latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RegionClass {
    /// A low-latency metro node (Shanghai, Beijing, Hangzhou, Shenzhen, Guangzhou).
    Tier1,
    /// A cheaper remote or inland region (Inner Mongolia, Guizhou, Gansu, Ningxia).
    Remote,
    /// Outside mainland China.
    Overseas,
}

/// Where an offer runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Region {
    /// Provider region id, e.g. `cn-shanghai`, `us-east-1`.
    pub id: String,
    /// Human name, e.g. `Shanghai`.
    pub name: String,
    /// Latency class.
    pub class: RegionClass,
    /// Assumed round-trip time from the user, milliseconds (editable).
    pub rtt_ms: f64,
}

/// How an offer is billed. Subscriptions are paid per started term whether used or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BillingMode {
    /// Pay for running time, rounded up to the granularity, with a minimum.
    PayAsYouGo,
    /// Prepaid per day (包日).
    Daily,
    /// Prepaid per week (包周).
    Weekly,
    /// Prepaid per month of 730 h (包月).
    Monthly,
    /// Prepaid per year of 12 months.
    Yearly,
    /// A commitment of `term_months`, with an upfront share and a recurring monthly price.
    Reserved,
    /// Interruptible capacity billed for running time, reruns included.
    Spot,
}

impl BillingMode {
    /// Every billing mode, in display order.
    pub const ALL: [BillingMode; 7] = [
        BillingMode::PayAsYouGo,
        BillingMode::Daily,
        BillingMode::Weekly,
        BillingMode::Monthly,
        BillingMode::Yearly,
        BillingMode::Reserved,
        BillingMode::Spot,
    ];

    /// The identifier used in files.
    pub fn id(self) -> &'static str {
        match self {
            BillingMode::PayAsYouGo => "pay_as_you_go",
            BillingMode::Daily => "daily",
            BillingMode::Weekly => "weekly",
            BillingMode::Monthly => "monthly",
            BillingMode::Yearly => "yearly",
            BillingMode::Reserved => "reserved",
            BillingMode::Spot => "spot",
        }
    }

    /// Parses an identifier written by [`BillingMode::id`].
    pub fn from_id(id: &str) -> Option<BillingMode> {
        BillingMode::ALL.into_iter().find(|m| m.id() == id)
    }

    /// Whether the price is per hour of running (pay-as-you-go, spot) rather than per term.
    pub fn is_metered(self) -> bool {
        matches!(self, BillingMode::PayAsYouGo | BillingMode::Spot)
    }
}

/// A security control an offer provides; sensitive tasks require some of them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SecurityControl {
    /// A private network (VPC).
    Vpc,
    /// Firewall rules per instance (security groups).
    SecurityGroups,
    /// Encrypted data and temporary disks.
    EncryptedDisk,
    /// Own images and SSH keys.
    CustomImageSsh,
    /// Audit logs of access and operations.
    AuditLogs,
    /// A snapshot and retention policy.
    SnapshotPolicy,
    /// Verified deletion of data after release.
    VerifiedDeletion,
    /// A private or dedicated-host deployment inside the company boundary.
    PrivateDeployment,
}

impl SecurityControl {
    /// Every control, in display order.
    pub const ALL: [SecurityControl; 8] = [
        SecurityControl::Vpc,
        SecurityControl::SecurityGroups,
        SecurityControl::EncryptedDisk,
        SecurityControl::CustomImageSsh,
        SecurityControl::AuditLogs,
        SecurityControl::SnapshotPolicy,
        SecurityControl::VerifiedDeletion,
        SecurityControl::PrivateDeployment,
    ];

    /// The identifier used in files.
    pub fn id(self) -> &'static str {
        match self {
            SecurityControl::Vpc => "vpc",
            SecurityControl::SecurityGroups => "security_groups",
            SecurityControl::EncryptedDisk => "encrypted_disk",
            SecurityControl::CustomImageSsh => "custom_image_ssh",
            SecurityControl::AuditLogs => "audit_logs",
            SecurityControl::SnapshotPolicy => "snapshot_policy",
            SecurityControl::VerifiedDeletion => "verified_deletion",
            SecurityControl::PrivateDeployment => "private_deployment",
        }
    }

    /// Parses an identifier written by [`SecurityControl::id`].
    pub fn from_id(id: &str) -> Option<SecurityControl> {
        SecurityControl::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// Measured IO rates of the machines behind an offer (the default: none measured).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct IoRates {
    /// Sequential read from the local disk, MB/s (10^6 bytes per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_read_mb_s: Option<f64>,
    /// Download from the network, Mbit/s (10^6 bits per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_mbit_s: Option<f64>,
}

impl IoRates {
    /// Hours to read `gb` from disk, when the rate is known.
    pub fn read_hours(&self, gb: f64) -> Option<f64> {
        self.disk_read_mb_s
            .filter(|r| *r > 0.0)
            .map(|r| gb * 1000.0 / r / 3600.0)
    }

    /// Hours to download `gb`, when the rate is known.
    pub fn download_hours(&self, gb: f64) -> Option<f64> {
        self.download_mbit_s
            .filter(|r| *r > 0.0)
            .map(|r| gb * 8000.0 / r / 3600.0)
    }
}

/// One rentable offer: a catalog row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Offer {
    /// Unique id within the catalog.
    pub id: String,
    /// Provider display name.
    pub provider: String,
    /// Where it runs.
    pub region: Region,
    /// GPU short name from the spec table, e.g. `RTX4090`.
    pub gpu: String,
    /// Number of GPUs (or slices) in the offer.
    pub gpu_count: u32,
    /// How the GPU is shared.
    pub tenancy: Tenancy,
    /// Share of one physical GPU's compute per GPU in the offer, in (0, 1].
    pub gpu_fraction: f64,
    /// VRAM visible per GPU or slice, GiB.
    pub vram_gib: f64,
    /// Host vCPUs, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vcpu: Option<u32>,
    /// Host RAM, GiB, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ram_gib: Option<f64>,
    /// How it is billed.
    pub billing_mode: BillingMode,
    /// Commitment length for reserved offers, months.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub term_months: Option<u32>,
    /// Upfront payment per reserved term, in the offer's currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub upfront: Option<Decimal>,
    /// Per hour (pay-as-you-go, spot), per term (daily..yearly) or recurring per month (reserved),
    /// for the whole offer, in the offer's currency.
    #[schemars(with = "String")]
    pub price: Decimal,
    /// Currency of every price in the row.
    pub currency: Currency,
    /// Billing granularity of metered offers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<Granularity>,
    /// Minimum billed time of metered offers, minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub minimum_minutes: Option<Decimal>,
    /// Probability of an interruption within a month of running (spot bands; 0 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption_per_month: Option<f64>,
    /// Expected wait before a job starts, hours (0 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_wait_hours: Option<f64>,
    /// Data storage per GB-month, billed while stopped too.
    #[schemars(with = "String")]
    pub storage_per_gb_month: Decimal,
    /// Internet egress per GB.
    #[schemars(with = "String")]
    pub egress_per_gb: Decimal,
    /// System disk per month for the whole offer.
    #[schemars(with = "String")]
    pub system_disk_per_month: Decimal,
    /// Security controls offered.
    #[serde(default)]
    pub security: Vec<SecurityControl>,
    /// A measured or negotiated run-time multiplier replacing the tenancy default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<SlowdownOverride>,
    /// Disk and network rates measured on this kind of machine (from a probe profile); without
    /// them the model assumes IO never holds a run back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<IoRates>,
    /// Date of the price fact, e.g. `2025-H2/2026`.
    pub as_of: String,
    /// Where the price comes from.
    pub source: String,
    /// True when no public figure exists for this exact row.
    #[serde(default)]
    pub estimate: bool,
    /// How an estimated row was derived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate_note: Option<String>,
}

/// Why a catalog could not be read; names the line and the field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CatalogError {
    /// The CSV itself is malformed or lacks a column.
    #[error("line {line}: {message}")]
    Csv {
        /// 1-based line in the file.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A field holds a value that cannot be used.
    #[error("line {line}, field {field}: {message}")]
    Field {
        /// 1-based line in the file.
        line: u64,
        /// The column name.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The JSON form could not be read.
    #[error("JSON line {line}, column {column}: {message}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Written by a newer gpufare.
    #[error("catalog format version {found} is newer than this gpufare supports (up to {max})")]
    UnsupportedFormat {
        /// The version in the document.
        found: u64,
        /// The newest version this build reads.
        max: u32,
    },
    /// Two offers share an id.
    #[error("offer id {id:?} appears twice")]
    DuplicateId {
        /// The repeated id.
        id: String,
    },
}

/// The column order of our CSV format.
pub const CSV_COLUMNS: [&str; 30] = [
    "id",
    "provider",
    "region",
    "region_name",
    "region_class",
    "rtt_ms",
    "gpu",
    "gpu_count",
    "tenancy",
    "gpu_fraction",
    "vram_gib",
    "vcpu",
    "ram_gib",
    "billing_mode",
    "term_months",
    "upfront",
    "price",
    "currency",
    "granularity",
    "minimum_minutes",
    "interruption_per_month",
    "queue_wait_hours",
    "storage_per_gb_month",
    "egress_per_gb",
    "system_disk_per_month",
    "security",
    "as_of",
    "source",
    "estimate",
    "estimate_note",
];

/// The default catalog compiled into gpufare.
pub fn default_catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        parse_catalog_csv(DEFAULT_CATALOG_CSV).unwrap_or(Catalog {
            format_version: CATALOG_FORMAT_VERSION,
            offers: vec![],
        })
    })
}

/// The default catalog's CSV text, as shipped.
pub fn default_catalog_csv() -> &'static str {
    DEFAULT_CATALOG_CSV
}

/// Reads our CSV format: `#` comment lines first, then a header naming the columns (any order;
/// columns beyond ours are ignored), then one offer per row.
pub fn parse_catalog_csv(text: &str) -> Result<Catalog, CatalogError> {
    let skipped = text
        .lines()
        .take_while(|l| l.starts_with('#') || l.trim().is_empty())
        .count();
    let body: String = text.lines().skip(skipped).collect::<Vec<_>>().join("\n");
    let line_of = |pos: Option<&csv::Position>| pos.map_or(0, |p| p.line()) + skipped as u64;
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .from_reader(body.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| CatalogError::Csv {
            line: line_of(e.position()),
            message: e.to_string(),
        })?
        .clone();
    let index = |name: &str| headers.iter().position(|h| h.trim() == name);
    let required = [
        "id",
        "provider",
        "gpu",
        "gpu_count",
        "tenancy",
        "billing_mode",
        "price",
        "currency",
    ];
    for name in required {
        if index(name).is_none() {
            return Err(CatalogError::Csv {
                line: 1 + skipped as u64,
                message: format!("missing column {name:?}"),
            });
        }
    }
    let mut offers = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| CatalogError::Csv {
            line: line_of(e.position()),
            message: e.to_string(),
        })?;
        let line = line_of(record.position());
        let get = |name: &str| {
            index(name)
                .and_then(|i| record.get(i))
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        offers.push(offer_from_fields(line, &get)?);
    }
    check_unique(&offers)?;
    Ok(Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers,
    })
}

/// Reads the JSON form (`{"format_version": 1, "offers": [...]}`), checking the version first.
pub fn parse_catalog_json(text: &str) -> Result<Catalog, CatalogError> {
    let json_err = |e: serde_json::Error| CatalogError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(json_err)?;
    let version = value
        .get("format_version")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    if version > u64::from(CATALOG_FORMAT_VERSION) {
        return Err(CatalogError::UnsupportedFormat {
            found: version,
            max: CATALOG_FORMAT_VERSION,
        });
    }
    let catalog: Catalog = serde_json::from_str(text).map_err(json_err)?;
    for (i, offer) in catalog.offers.iter().enumerate() {
        validate_offer(offer).map_err(|(field, message)| CatalogError::Field {
            line: i as u64 + 1,
            field: format!("offers[{i}].{field}"),
            message,
        })?;
    }
    check_unique(&catalog.offers)?;
    Ok(catalog)
}

/// Writes a catalog in our CSV format, with the columns in [`CSV_COLUMNS`] order.
pub fn catalog_to_csv(catalog: &Catalog) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let _ = writer.write_record(CSV_COLUMNS);
    for o in &catalog.offers {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let security: Vec<&str> = o.security.iter().map(|c| c.id()).collect();
        let row: [String; 30] = [
            o.id.clone(),
            o.provider.clone(),
            o.region.id.clone(),
            o.region.name.clone(),
            crate::export::id_of(&o.region.class),
            o.region.rtt_ms.to_string(),
            o.gpu.clone(),
            o.gpu_count.to_string(),
            o.tenancy.id().to_owned(),
            o.gpu_fraction.to_string(),
            o.vram_gib.to_string(),
            opt(o.vcpu.map(|v| v.to_string())),
            opt(o.ram_gib.map(|v| v.to_string())),
            o.billing_mode.id().to_owned(),
            opt(o.term_months.map(|v| v.to_string())),
            opt(o.upfront.map(|v| v.to_string())),
            o.price.to_string(),
            o.currency.code().to_owned(),
            opt(o.granularity.map(|g| g.id().to_owned())),
            opt(o.minimum_minutes.map(|v| v.to_string())),
            opt(o.interruption_per_month.map(|v| v.to_string())),
            opt(o.queue_wait_hours.map(|v| v.to_string())),
            o.storage_per_gb_month.to_string(),
            o.egress_per_gb.to_string(),
            o.system_disk_per_month.to_string(),
            security.join(";"),
            o.as_of.clone(),
            o.source.clone(),
            o.estimate.to_string(),
            opt(o.estimate_note.clone()),
        ];
        let _ = writer.write_record(&row);
    }
    String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Writes a catalog as pretty JSON with `format_version` first.
pub fn catalog_to_json(catalog: &Catalog) -> String {
    serde_json::to_string_pretty(catalog).unwrap_or_default()
}

fn check_unique(offers: &[Offer]) -> Result<(), CatalogError> {
    let mut seen = std::collections::BTreeSet::new();
    for o in offers {
        if !seen.insert(o.id.as_str()) {
            return Err(CatalogError::DuplicateId { id: o.id.clone() });
        }
    }
    Ok(())
}

fn offer_from_fields<'a>(
    line: u64,
    get: &dyn Fn(&str) -> Option<&'a str>,
) -> Result<Offer, CatalogError> {
    let bad = |field: &str, message: String| CatalogError::Field {
        line,
        field: field.to_owned(),
        message,
    };
    let text = |field: &str| {
        get(field)
            .map(str::to_owned)
            .ok_or_else(|| bad(field, "is required".to_owned()))
    };
    let decimal = |field: &str| number::<Decimal>(line, field, get(field));
    let float =
        |field: &str| number::<f64>(line, field, get(field)).and_then(|v| finite(line, field, v));
    let whole = |field: &str| number::<u32>(line, field, get(field));

    let tenancy_text = text("tenancy")?;
    let tenancy = Tenancy::from_id(&tenancy_text).ok_or_else(|| {
        bad(
            "tenancy",
            format!(
                "{tenancy_text:?} is not one of {}",
                Tenancy::ids().join(", ")
            ),
        )
    })?;
    let billing_text = text("billing_mode")?;
    let billing_mode = BillingMode::from_id(&billing_text).ok_or_else(|| {
        let all: Vec<_> = BillingMode::ALL.iter().map(|m| m.id()).collect();
        bad(
            "billing_mode",
            format!("{billing_text:?} is not one of {}", all.join(", ")),
        )
    })?;
    let currency_text = text("currency")?;
    let currency = Currency::from_code(&currency_text)
        .ok_or_else(|| bad("currency", format!("{currency_text:?} is not CNY or USD")))?;
    let granularity = match get("granularity") {
        None => None,
        Some(g) => Some(Granularity::from_id(g).ok_or_else(|| {
            bad(
                "granularity",
                format!("{g:?} is not second, minute or hour"),
            )
        })?),
    };
    let region_class = match get("region_class").unwrap_or("tier1") {
        "tier1" => RegionClass::Tier1,
        "remote" => RegionClass::Remote,
        "overseas" => RegionClass::Overseas,
        other => {
            return Err(bad(
                "region_class",
                format!("{other:?} is not tier1, remote or overseas"),
            ));
        }
    };
    let mut security = Vec::new();
    for item in get("security")
        .unwrap_or("")
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        security.push(
            SecurityControl::from_id(item)
                .ok_or_else(|| bad("security", format!("unknown control {item:?}")))?,
        );
    }
    let estimate = match get("estimate").unwrap_or("false") {
        "true" | "yes" | "1" => true,
        "false" | "no" | "0" => false,
        other => return Err(bad("estimate", format!("{other:?} is not true or false"))),
    };
    let gpu_count = whole("gpu_count")?.unwrap_or(1);
    let region_id = get("region").unwrap_or("").to_owned();
    let offer = Offer {
        id: text("id")?,
        provider: text("provider")?,
        region: Region {
            name: get("region_name").map_or_else(|| region_id.clone(), str::to_owned),
            id: region_id,
            class: region_class,
            rtt_ms: float("rtt_ms")?.unwrap_or(default_rtt_ms(region_class)),
        },
        gpu: text("gpu")?,
        gpu_count,
        tenancy,
        gpu_fraction: float("gpu_fraction")?.unwrap_or(1.0),
        vram_gib: float("vram_gib")?.unwrap_or(0.0),
        vcpu: whole("vcpu")?,
        ram_gib: float("ram_gib")?,
        billing_mode,
        term_months: whole("term_months")?,
        upfront: decimal("upfront")?,
        price: decimal("price")?.ok_or_else(|| bad("price", "is required".to_owned()))?,
        currency,
        granularity,
        minimum_minutes: decimal("minimum_minutes")?,
        interruption_per_month: float("interruption_per_month")?,
        queue_wait_hours: float("queue_wait_hours")?,
        storage_per_gb_month: decimal("storage_per_gb_month")?.unwrap_or_default(),
        egress_per_gb: decimal("egress_per_gb")?.unwrap_or_default(),
        system_disk_per_month: decimal("system_disk_per_month")?.unwrap_or_default(),
        security,
        slowdown: None,
        io: None,
        as_of: text("as_of")?,
        source: text("source")?,
        estimate,
        estimate_note: get("estimate_note").map(str::to_owned),
    };
    validate_offer(&offer).map_err(|(field, message)| bad(&field, message))?;
    Ok(offer)
}

fn number<T: FromStr>(
    line: u64,
    field: &str,
    value: Option<&str>,
) -> Result<Option<T>, CatalogError> {
    value
        .map(|v| {
            v.parse::<T>().map_err(|_| CatalogError::Field {
                line,
                field: field.to_owned(),
                message: format!("{v:?} is not a valid number"),
            })
        })
        .transpose()
}

fn finite(line: u64, field: &str, value: Option<f64>) -> Result<Option<f64>, CatalogError> {
    match value {
        Some(v) if !v.is_finite() => Err(CatalogError::Field {
            line,
            field: field.to_owned(),
            message: format!("{v} is not a finite number"),
        }),
        other => Ok(other),
    }
}

/// The RTT assumed for a region class when a row gives none, milliseconds.
pub fn default_rtt_ms(class: RegionClass) -> f64 {
    match class {
        RegionClass::Tier1 => 10.0,
        RegionClass::Remote => 40.0,
        RegionClass::Overseas => 200.0,
    }
}

/// Checks the ranges and combinations an offer must respect; returns the field and reason.
pub fn validate_offer(o: &Offer) -> Result<(), (String, String)> {
    let fail = |field: &str, message: &str| Err((field.to_owned(), message.to_owned()));
    let max_price = Decimal::from(100_000_000);
    if o.id.is_empty() {
        return fail("id", "is required");
    }
    if crate::gpu::find_gpu(&o.gpu).is_none() {
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

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "id,provider,region,region_class,gpu,gpu_count,tenancy,gpu_fraction,vram_gib,billing_mode,price,currency,granularity,as_of,source";

    #[test]
    fn the_default_catalog_parses_whole() {
        let parsed = parse_catalog_csv(DEFAULT_CATALOG_CSV);
        let catalog = parsed.unwrap();
        assert!(
            catalog.offers.len() >= 40,
            "{} offers",
            catalog.offers.len()
        );
        assert_eq!(default_catalog().offers.len(), catalog.offers.len());
    }

    #[test]
    fn csv_and_json_round_trip() {
        let catalog = default_catalog();
        assert_eq!(
            &parse_catalog_csv(&catalog_to_csv(catalog)).unwrap(),
            catalog
        );
        let json = catalog_to_json(catalog);
        assert!(json.starts_with("{\n  \"format_version\": 1,"));
        assert_eq!(&parse_catalog_json(&json).unwrap(), catalog);
    }

    #[test]
    fn errors_name_the_line_and_field() {
        let csv = format!(
            "# comment\n{HEADER}\nok,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1.5,CNY,second,2026,src\nbad,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,abc,CNY,second,2026,src\n"
        );
        let err = parse_catalog_csv(&csv).unwrap_err();
        assert_eq!(
            err,
            CatalogError::Field {
                line: 4,
                field: "price".into(),
                message: "\"abc\" is not a valid number".into()
            }
        );
        let csv = format!(
            "{HEADER}\nx,P,r,tier1,A10,1,shared,1,24,pay_as_you_go,1,CNY,second,2026,src\n"
        );
        assert!(
            matches!(parse_catalog_csv(&csv), Err(CatalogError::Field { line: 2, ref field, .. }) if field == "tenancy")
        );
        let csv = format!(
            "{HEADER}\nx,P,r,tier1,B9000,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2026,src\n"
        );
        assert!(
            matches!(parse_catalog_csv(&csv), Err(CatalogError::Field { ref field, .. }) if field == "gpu")
        );
        let csv =
            format!("{HEADER}\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,,2026,src\n");
        assert!(
            matches!(parse_catalog_csv(&csv), Err(CatalogError::Field { ref field, .. }) if field == "granularity")
        );
        let csv = format!(
            "{HEADER}\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2026,src\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2026,src\n"
        );
        assert_eq!(
            parse_catalog_csv(&csv).unwrap_err(),
            CatalogError::DuplicateId { id: "x".into() }
        );
        assert!(matches!(
            parse_catalog_csv("id,provider\nx,y\n"),
            Err(CatalogError::Csv { .. })
        ));
        assert!(matches!(
            parse_catalog_json("{\"format_version\": 9, \"offers\": []}"),
            Err(CatalogError::UnsupportedFormat { found: 9, max: 1 })
        ));
    }
}
