//! Our catalog CSV: `#` comment lines, then a header naming the columns (any order; a column we
//! do not know is refused by name, except the user's own columns named `x_...`), then one offer
//! per row. Errors name the line and the column.

use std::str::FromStr;

use rust_decimal::Decimal;

use crate::hardware::links::Interconnect;
use crate::hardware::mig::find_mig;
use crate::numbers::money::Currency;
use crate::numbers::problem::{Problem, closest_name};
use crate::numbers::text::{UTF8_BOM, without_bom};
use crate::offers::billing::{BillingMode, Granularity};
use crate::offers::catalog::{
    CATALOG_FORMAT_VERSION, Catalog, CatalogError, CsvProblem, check_unique,
};
use crate::offers::interruption::Interruptions;
use crate::offers::offer::{
    Offer, PriceEvidence, Region, RegionClass, SecurityControl, default_rtt_ms,
};
use crate::offers::tenancy::Tenancy;
use crate::offers::validate::validate_offer;

/// The column order of our CSV format.
pub const CSV_COLUMNS: [&str; 52] = [
    "id",
    "provider",
    "region",
    "region_name",
    "region_class",
    "rtt_ms",
    "instance_type",
    "gpu",
    "gpu_count",
    "tenancy",
    "gpu_fraction",
    "mig_profile",
    "neighbour_load",
    "compute_capped",
    "interconnect",
    "gpus_per_node",
    "node_network_gbps",
    "node_network_rdma",
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
    "interruption_per_hour",
    "mtbi_hours",
    "interruption_low_per_hour",
    "interruption_high_per_hour",
    "capacity_gap_hours",
    "notice_seconds",
    "protection_hours",
    "interruption_source",
    "trace",
    "fallback",
    "queue_wait_hours",
    "queue_p0",
    "queue_median_hours",
    "queue_sigma",
    "storage_per_gb_month",
    "egress_per_gb",
    "system_disk_per_month",
    "security",
    "as_of",
    "source",
    "price_evidence",
    "estimate",
    "estimate_note",
];

/// Reads our CSV format: `#` comment lines first, then a header naming the columns (any order;
/// an unknown column is refused by name unless it starts with `x_`), then one offer per row. A
/// leading byte-order mark (what [`catalog_to_csv`] writes) is read past; fields are separated
/// by commas, or by tabs when the header has tabs and no comma (Excel's "Unicode text").
pub fn parse_catalog_csv(text: &str) -> Result<Catalog, CatalogError> {
    let text = without_bom(text);
    let skipped = text
        .lines()
        .take_while(|l| l.starts_with('#') || l.trim().is_empty())
        .count();
    let body: String = text.lines().skip(skipped).collect::<Vec<_>>().join("\n");
    let line_of = |pos: Option<&csv::Position>| pos.map_or(0, |p| p.line()) + skipped as u64;
    // Excel saves "Unicode text" (UTF-16) with tabs between the fields: a header with tabs and
    // no comma is read that way.
    let header_line = body.lines().next().unwrap_or("");
    let delimiter = if header_line.contains('\t') && !header_line.contains(',') {
        b'\t'
    } else {
        b','
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .delimiter(delimiter)
        .from_reader(body.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| CatalogError::Csv {
            line: line_of(e.position()),
            problem: CsvProblem::Unreadable {
                detail: e.to_string(),
            },
        })?
        .clone();
    let index = |name: &str| headers.iter().position(|h| h.trim() == name);
    // A column we do not know is refused by name: a misspelt header would otherwise drop its
    // values without a word. Columns of the user's own start with `x_` and are left alone.
    for (i, h) in headers.iter().enumerate() {
        let name = h.trim();
        if !CSV_COLUMNS.contains(&name) && !name.starts_with("x_") {
            return Err(CatalogError::Field {
                line: 1 + skipped as u64,
                field: if name.is_empty() {
                    format!("(column {} has no name)", i + 1)
                } else {
                    name.to_owned()
                },
                problem: Problem::UnknownField {
                    suggestion: closest_name(name, CSV_COLUMNS),
                },
            });
        }
    }
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
                problem: CsvProblem::MissingColumn {
                    name: name.to_owned(),
                },
            });
        }
    }
    let mut offers = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| CatalogError::Csv {
            line: line_of(e.position()),
            problem: CsvProblem::Unreadable {
                detail: e.to_string(),
            },
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
    if offers.is_empty() {
        return Err(CatalogError::Empty { skipped: 0 });
    }
    Ok(Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers,
    })
}

/// Writes a catalog in our CSV format, with the columns in [`CSV_COLUMNS`] order. The text
/// starts with a UTF-8 byte-order mark, so that Excel reads its Chinese names as UTF-8 (without
/// one, Excel on Chinese Windows reads a CSV as GBK); numbers are written raw.
pub fn catalog_to_csv(catalog: &Catalog) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let _ = writer.write_record(CSV_COLUMNS);
    for o in &catalog.offers {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let security: Vec<&str> = o.security.iter().map(|c| c.id()).collect();
        let i = &o.interruptions;
        let row: [String; 52] = [
            o.id.clone(),
            o.provider.clone(),
            o.region.id.clone(),
            o.region.name.clone(),
            o.region.class.id().to_owned(),
            o.region.rtt_ms.to_string(),
            opt(o.instance_type.clone()),
            o.gpu.clone(),
            o.gpu_count.to_string(),
            o.tenancy.id().to_owned(),
            o.gpu_fraction.to_string(),
            opt(o.mig_profile.clone()),
            opt(o.neighbour_load.map(|v| v.to_string())),
            if o.compute_capped {
                "true".to_owned()
            } else {
                String::new()
            },
            opt(o.interconnect.map(|i| i.id().to_owned())),
            opt(o.gpus_per_node.map(|v| v.to_string())),
            opt(o.node_network_gbps.map(|v| v.to_string())),
            if o.node_network_rdma {
                "true".to_owned()
            } else {
                String::new()
            },
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
            opt(i.interruption_per_month.map(|v| v.to_string())),
            opt(i.interruption_per_hour.map(|v| v.to_string())),
            opt(i.mtbi_hours.map(|v| v.to_string())),
            opt(i.interruption_low_per_hour.map(|v| v.to_string())),
            opt(i.interruption_high_per_hour.map(|v| v.to_string())),
            opt(i.capacity_gap_hours.map(|v| v.to_string())),
            opt(i.notice_seconds.map(|v| v.to_string())),
            opt(i.protection_hours.map(|v| v.to_string())),
            opt(i.interruption_source.clone()),
            opt(i.trace.clone()),
            opt(i.fallback.clone()),
            opt(o.queue_wait_hours.map(|v| v.to_string())),
            opt(o.queue_p0.map(|v| v.to_string())),
            opt(o.queue_median_hours.map(|v| v.to_string())),
            opt(o.queue_sigma.map(|v| v.to_string())),
            o.storage_per_gb_month.to_string(),
            o.egress_per_gb.to_string(),
            o.system_disk_per_month.to_string(),
            security.join(";"),
            o.as_of.clone(),
            o.source.clone(),
            opt(o.price_evidence.map(|e| e.id().to_owned())),
            o.estimate.to_string(),
            opt(o.estimate_note.clone()),
        ];
        let _ = writer.write_record(&row);
    }
    let body = String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default();
    format!("{UTF8_BOM}{body}")
}

fn offer_from_fields<'a>(
    line: u64,
    get: &dyn Fn(&str) -> Option<&'a str>,
) -> Result<Offer, CatalogError> {
    let bad = |field: &str, problem: Problem| CatalogError::Field {
        line,
        field: field.to_owned(),
        problem,
    };
    let text = |field: &str| {
        get(field)
            .map(str::to_owned)
            .ok_or_else(|| bad(field, Problem::Required))
    };
    let decimal = |field: &str| number::<Decimal>(line, field, get(field));
    let float =
        |field: &str| number::<f64>(line, field, get(field)).and_then(|v| finite(line, field, v));
    let whole = |field: &str| number::<u32>(line, field, get(field));

    // A name from one of the model's fixed lists, refused with the list.
    macro_rules! one_of {
        ($field:literal, $value:expr, $ty:ident :: $parse:ident, $id:ident) => {
            named(
                line,
                $field,
                $value,
                $ty::$parse($value),
                &$ty::ALL.map($ty::$id),
            )?
        };
    }
    let v = text("tenancy")?;
    let tenancy = one_of!("tenancy", &v, Tenancy::from_id, id);
    let v = text("billing_mode")?;
    let billing_mode = one_of!("billing_mode", &v, BillingMode::from_id, id);
    let v = text("currency")?;
    let currency = one_of!("currency", &v, Currency::from_code, code);
    let granularity = match get("granularity") {
        None => None,
        Some(v) => Some(one_of!("granularity", v, Granularity::from_id, id)),
    };
    let v = get("region_class").unwrap_or("tier1");
    let region_class = one_of!("region_class", v, RegionClass::from_id, id);
    let mut security = Vec::new();
    for item in get("security")
        .unwrap_or("")
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        security.push(one_of!("security", item, SecurityControl::from_id, id));
    }
    let flag = |field: &str| {
        let v = get(field).unwrap_or("false");
        let parsed = match v {
            "true" | "yes" | "1" => Some(true),
            "false" | "no" | "0" => Some(false),
            _ => None,
        };
        named(line, field, v, parsed, &["true", "false"])
    };
    let estimate = flag("estimate")?;
    let price_evidence = match get("price_evidence") {
        None => None,
        Some(v) => Some(one_of!("price_evidence", v, PriceEvidence::from_id, id)),
    };
    let gpu_count = whole("gpu_count")?.unwrap_or(1);
    let region_id = get("region").unwrap_or("").to_owned();
    let gpu = text("gpu")?;
    let mig_profile = get("mig_profile").map(str::to_owned);
    // A MIG slice with a profile takes its share from the profile when the row gives none.
    let gpu_fraction = match (float("gpu_fraction")?, &mig_profile) {
        (Some(f), _) => f,
        (None, Some(m)) => find_mig(&gpu, m).map_or(1.0, |m| m.compute_share()),
        (None, None) => 1.0,
    };
    let offer = Offer {
        id: text("id")?,
        provider: text("provider")?,
        region: Region {
            name: get("region_name").map_or_else(|| region_id.clone(), str::to_owned),
            id: region_id,
            class: region_class,
            rtt_ms: float("rtt_ms")?.unwrap_or(default_rtt_ms(region_class)),
        },
        instance_type: get("instance_type").map(str::to_owned),
        gpu,
        gpu_count,
        tenancy,
        gpu_fraction,
        mig_profile,
        neighbour_load: float("neighbour_load")?,
        neighbour_load_measured: false,
        compute_capped: flag("compute_capped")?,
        interconnect: match get("interconnect") {
            None => None,
            Some(v) => Some(one_of!("interconnect", v, Interconnect::from_id, id)),
        },
        gpus_per_node: whole("gpus_per_node")?,
        node_network_gbps: float("node_network_gbps")?,
        node_network_rdma: flag("node_network_rdma")?,
        vram_gib: float("vram_gib")?.unwrap_or(0.0),
        vcpu: whole("vcpu")?,
        ram_gib: float("ram_gib")?,
        billing_mode,
        term_months: whole("term_months")?,
        upfront: decimal("upfront")?,
        price: decimal("price")?.ok_or_else(|| bad("price", Problem::Required))?,
        currency,
        granularity,
        minimum_minutes: decimal("minimum_minutes")?,
        interruptions: Interruptions {
            interruption_per_month: float("interruption_per_month")?,
            interruption_per_hour: float("interruption_per_hour")?,
            mtbi_hours: float("mtbi_hours")?,
            interruption_low_per_hour: float("interruption_low_per_hour")?,
            interruption_high_per_hour: float("interruption_high_per_hour")?,
            capacity_gap_hours: float("capacity_gap_hours")?,
            notice_seconds: float("notice_seconds")?,
            protection_hours: float("protection_hours")?,
            interruption_source: get("interruption_source").map(str::to_owned),
            trace: get("trace").map(str::to_owned),
            fallback: get("fallback").map(str::to_owned),
        },
        queue_wait_hours: float("queue_wait_hours")?,
        queue_p0: float("queue_p0")?,
        queue_median_hours: float("queue_median_hours")?,
        queue_sigma: float("queue_sigma")?,
        queue_trace: None,
        storage_per_gb_month: decimal("storage_per_gb_month")?.unwrap_or_default(),
        egress_per_gb: decimal("egress_per_gb")?.unwrap_or_default(),
        system_disk_per_month: decimal("system_disk_per_month")?.unwrap_or_default(),
        security,
        slowdown: None,
        io: None,
        as_of: text("as_of")?,
        source: text("source")?,
        price_evidence,
        estimate,
        estimate_note: get("estimate_note").map(str::to_owned),
    };
    validate_offer(&offer).map_err(|e| bad(&e.field, e.problem))?;
    Ok(offer)
}

/// A name from a fixed list (`found` is what it parsed to), refused with the list.
fn named<T>(
    line: u64,
    field: &str,
    value: &str,
    found: Option<T>,
    allowed: &[&str],
) -> Result<T, CatalogError> {
    found.ok_or_else(|| CatalogError::Field {
        line,
        field: field.to_owned(),
        problem: Problem::NotOneOf {
            value: value.to_owned(),
            allowed: allowed.join(", "),
        },
    })
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
                problem: Problem::NotANumber {
                    value: v.to_owned(),
                },
            })
        })
        .transpose()
}

fn finite(line: u64, field: &str, value: Option<f64>) -> Result<Option<f64>, CatalogError> {
    match value {
        Some(v) if !v.is_finite() => Err(CatalogError::Field {
            line,
            field: field.to_owned(),
            problem: Problem::NotFinite {
                value: v.to_string(),
            },
        }),
        other => Ok(other),
    }
}
