//! A catalog: a set of offers with its format version, read and written as JSON (the CSV form is
//! in [`crate::offers::csv`]), with the errors that name the line and the field at fault.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::numbers::problem::{JsonProblem, Problem};
use crate::offers::offer::Offer;
use crate::offers::validate::validate_offer;

/// The catalog format this build writes and the newest it reads.
pub const CATALOG_FORMAT_VERSION: u32 = 1;

/// A set of offers with its format version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Catalog {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// The offers, in the order they were read.
    pub offers: Vec<Offer>,
}

impl Catalog {
    /// Each id's offer (the first, should several share it), looked up in log time: a plan's
    /// rows find their offers without scanning the catalog once per row.
    pub fn by_id(&self) -> BTreeMap<&str, &Offer> {
        let mut index = BTreeMap::new();
        for offer in &self.offers {
            index.entry(offer.id.as_str()).or_insert(offer);
        }
        index
    }
}

/// Why a catalog could not be read; names the line and the field.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CatalogError {
    /// The CSV itself is malformed or lacks a column.
    #[error("line {line}: {problem}")]
    Csv {
        /// 1-based line in the file.
        line: u64,
        /// What is wrong.
        problem: CsvProblem,
    },
    /// A field holds a value that cannot be used.
    #[error("line {line}, field {field}: {problem}")]
    Field {
        /// 1-based line in the file (the offer's position in the JSON form).
        line: u64,
        /// The column name, or the JSON path of the field.
        field: String,
        /// What is wrong.
        problem: Problem,
    },
    /// The JSON form could not be read.
    #[error("JSON line {}, column {}: {}", .0.line, .0.column, .0.detail)]
    Json(JsonProblem),
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
    /// The file's bytes are not text in an encoding gpufare reads
    /// ([`crate::numbers::text::decode_text`]).
    #[error("{0}")]
    Encoding(crate::numbers::text::TextError),
    /// Nothing usable in the file: no offer at all, or every SkyPilot row skipped.
    #[error("the catalog has no offers ({skipped} rows skipped)")]
    Empty {
        /// Rows read and left out (SkyPilot files; 0 for the other forms).
        skipped: usize,
    },
}

/// What is wrong with a CSV file as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CsvProblem {
    /// A column the format needs is missing from the header.
    #[error("missing column {name:?}")]
    MissingColumn {
        /// The column's name.
        name: String,
    },
    /// A header without SkyPilot's `InstanceType`, `Price` and `Region` columns.
    #[error("not a SkyPilot vms.csv: needs InstanceType, Price and Region columns")]
    NotSkyPilot,
    /// The CSV reader's own complaint (unbalanced quotes, a row with the wrong number of fields).
    #[error("{detail}")]
    Unreadable {
        /// What the reader said.
        detail: String,
    },
}

/// Reads the JSON form (`{"format_version": 1, "offers": [...]}`), checking the version first.
pub fn parse_catalog_json(text: &str) -> Result<Catalog, CatalogError> {
    let json_err = |e: serde_json::Error| CatalogError::Json(JsonProblem::from(e));
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
    check_known_fields(&value)?;
    let catalog: Catalog = serde_json::from_str(text).map_err(json_err)?;
    for (i, offer) in catalog.offers.iter().enumerate() {
        validate_offer(offer).map_err(|e| CatalogError::Field {
            line: i as u64 + 1,
            field: format!("offers[{i}].{}", e.field),
            problem: e.problem,
        })?;
    }
    check_unique(&catalog.offers)?;
    if catalog.offers.is_empty() {
        return Err(CatalogError::Empty { skipped: 0 });
    }
    Ok(catalog)
}

/// The fields of an offer in the JSON form (the interruption fields are written flat).
pub const OFFER_FIELDS: [&str; 53] = [
    "id",
    "provider",
    "region",
    "instance_type",
    "gpu",
    "gpu_count",
    "tenancy",
    "gpu_fraction",
    "mig_profile",
    "neighbour_load",
    "neighbour_load_measured",
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
    "queue_trace",
    "storage_per_gb_month",
    "egress_per_gb",
    "system_disk_per_month",
    "security",
    "slowdown",
    "io",
    "as_of",
    "source",
    "price_evidence",
    "estimate",
    "estimate_note",
];

/// The fields of the objects nested in an offer.
const NESTED_FIELDS: [(&str, &[&str]); 4] = [
    ("region", &["id", "name", "class", "rtt_ms"]),
    ("slowdown", &["median", "p99", "source"]),
    ("io", &["disk_read_mb_s", "download_mbit_s"]),
    (
        "queue_trace",
        &["name", "starts", "unstarted", "waits_hours", "fitted"],
    ),
];

/// Refuses, by name, a field the catalog format does not have (serde would ignore it, so a typo
/// such as `prce` or `notice_secs` would drop its value without a word).
fn check_known_fields(value: &serde_json::Value) -> Result<(), CatalogError> {
    let unknown = |line: usize, path: String, name: &str, known: &[&str]| CatalogError::Field {
        line: line as u64 + 1,
        field: path,
        problem: Problem::UnknownField {
            suggestion: crate::numbers::problem::closest_name(name, known.iter().copied()),
        },
    };
    if let Some(top) = value.as_object() {
        for key in top.keys() {
            if key != "format_version" && key != "offers" {
                return Err(unknown(0, key.clone(), key, &["format_version", "offers"]));
            }
        }
    }
    let offers = value.get("offers").and_then(serde_json::Value::as_array);
    for (i, offer) in offers.into_iter().flatten().enumerate() {
        let Some(fields) = offer.as_object() else {
            continue;
        };
        for (key, inner) in fields {
            if !OFFER_FIELDS.contains(&key.as_str()) {
                return Err(unknown(i, format!("offers[{i}].{key}"), key, &OFFER_FIELDS));
            }
            let nested = NESTED_FIELDS.iter().find(|(name, _)| name == key);
            if let (Some((_, known)), Some(object)) = (nested, inner.as_object()) {
                for inner_key in object.keys() {
                    if !known.contains(&inner_key.as_str()) {
                        return Err(unknown(
                            i,
                            format!("offers[{i}].{key}.{inner_key}"),
                            inner_key,
                            known,
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Writes a catalog as pretty JSON with `format_version` first.
pub fn catalog_to_json(catalog: &Catalog) -> String {
    serde_json::to_string_pretty(catalog).unwrap_or_default()
}

pub(crate) fn check_unique(offers: &[Offer]) -> Result<(), CatalogError> {
    let mut seen = std::collections::BTreeSet::new();
    for o in offers {
        if !seen.insert(o.id.as_str()) {
            return Err(CatalogError::DuplicateId { id: o.id.clone() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list of known fields is the schema's: a field added to `Offer` without being added
    /// here would be refused in every catalog that uses it.
    #[test]
    fn the_known_fields_are_the_schemas() {
        let schema = serde_json::to_value(schemars::schema_for!(Offer)).unwrap();
        let props = |v: &serde_json::Value| -> Vec<String> {
            let mut keys: Vec<String> = v["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            keys.sort();
            keys
        };
        let mut ours: Vec<String> = OFFER_FIELDS.iter().map(|s| (*s).to_owned()).collect();
        ours.sort();
        assert_eq!(props(&schema), ours);
        let defs = &schema["$defs"];
        for (name, known) in NESTED_FIELDS {
            let def = match name {
                "region" => "Region",
                "slowdown" => "SlowdownOverride",
                "queue_trace" => "QueueTrace",
                _ => "IoRates",
            };
            let mut ours: Vec<String> = known.iter().map(|s| (*s).to_owned()).collect();
            ours.sort();
            assert_eq!(props(&defs[def]), ours, "{name}");
        }
    }
}
