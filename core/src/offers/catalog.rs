//! A catalog: a set of offers with its format version, read and written as JSON (the CSV form is
//! in [`crate::offers::csv`]), with the errors that name the line and the field at fault.

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
