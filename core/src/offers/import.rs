//! Reading any catalog file a person may have — our JSON, our CSV, or a SkyPilot `vms.csv`, in
//! UTF-8 (with or without a byte-order mark), UTF-16 with a byte-order mark or GB18030 — and
//! merging catalogs. The CLI and the site both come through here ([`read_catalog_file`] from the
//! file's bytes), so a file is decoded, recognised and merged the same way everywhere.

use crate::numbers::text::{TextEncoding, UTF8_BOM, decode_text};
use crate::offers::catalog::{CATALOG_FORMAT_VERSION, Catalog, CatalogError, parse_catalog_json};
use crate::offers::csv::parse_catalog_csv;
use crate::offers::skypilot::{ImportReport, import_vms_csv};

/// A catalog file format gpufare reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogFormat {
    /// `{"format_version": 1, "offers": [...]}`.
    Json,
    /// Our CSV (a header with our column names).
    Csv,
    /// A SkyPilot `vms.csv` (a header with an `InstanceType` column).
    SkyPilot,
}

/// What was read from one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The offers.
    pub catalog: Catalog,
    /// How the file was recognised.
    pub format: CatalogFormat,
    /// For a SkyPilot file: rows read, offers made, and every row skipped with its reason.
    pub report: Option<ImportReport>,
    /// The encoding the file was read in (UTF-8, or UTF-8 with BOM, for text given as text).
    pub encoding: TextEncoding,
}

/// Recognises a catalog file: JSON by its `.json` name or a leading `{`, SkyPilot by an
/// `InstanceType` column in its header, our CSV otherwise.
pub fn detect(file_name: &str, text: &str) -> CatalogFormat {
    let json_name = file_name
        .rsplit_once('.')
        .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("json"));
    if json_name || text.trim_start().starts_with('{') {
        return CatalogFormat::Json;
    }
    let header = text
        .lines()
        .find(|l| !l.starts_with('#') && !l.trim().is_empty())
        .unwrap_or("");
    if header.split(',').any(|h| h.trim() == "InstanceType") {
        CatalogFormat::SkyPilot
    } else {
        CatalogFormat::Csv
    }
}

/// The provider a SkyPilot file's offers are named after: the file name up to its first `-`, `_`
/// or `.` (`aws-vms.csv` gives `aws`).
pub fn provider_from_file_name(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    match base.split(['-', '_', '.']).next() {
        Some(p) if !p.is_empty() => p.to_owned(),
        _ => "imported".to_owned(),
    }
}

/// Reads the catalog in `text`, a file named `file_name` (see [`detect`]). `file_date`
/// (`YYYY-MM-DD`, the day the file was saved) dates the prices of a SkyPilot `vms.csv`, whose
/// rows carry no date of their own; our own formats date every row themselves.
/// A leading byte-order mark (Excel's "CSV UTF-8" starts with one) is read past in every form.
pub fn read_catalog(
    file_name: &str,
    text: &str,
    file_date: &str,
) -> Result<Imported, CatalogError> {
    let (text, encoding) = match text.strip_prefix(UTF8_BOM) {
        Some(rest) => (rest, TextEncoding::Utf8Bom),
        None => (text, TextEncoding::Utf8),
    };
    let format = detect(file_name, text);
    let (catalog, report) = match format {
        CatalogFormat::Json => (parse_catalog_json(text)?, None),
        CatalogFormat::Csv => (parse_catalog_csv(text)?, None),
        CatalogFormat::SkyPilot => {
            let provider = provider_from_file_name(file_name);
            let (catalog, report) = import_vms_csv(text, &provider, file_date)?;
            (catalog, Some(report))
        }
    };
    Ok(Imported {
        catalog,
        format,
        report,
        encoding,
    })
}

/// Reads the catalog file `file_name` from its bytes: decoded by
/// [`crate::numbers::text::decode_text`] (UTF-8 with or without a byte-order mark, UTF-16 with
/// one, or GB18030), then read as [`read_catalog`] reads text. The result names the encoding.
pub fn read_catalog_file(
    file_name: &str,
    bytes: &[u8],
    file_date: &str,
) -> Result<Imported, CatalogError> {
    let decoded = decode_text(bytes).map_err(CatalogError::Encoding)?;
    let mut imported = read_catalog(file_name, &decoded.text, file_date)?;
    imported.encoding = decoded.encoding;
    Ok(imported)
}

/// What to do with an offer whose id is already taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnClash {
    /// Refuse the whole merge (catalog files given together must not clash).
    Refuse,
    /// Leave the offer out and say so (offers added one file at a time).
    Skip,
}

/// Adds `extra`'s offers to `into`, in order; returns the ids left out (with [`OnClash::Skip`]).
/// With [`OnClash::Refuse`] a taken id is an error and `into` is left as it was.
pub fn merge(
    into: &mut Catalog,
    extra: Catalog,
    on_clash: OnClash,
) -> Result<Vec<String>, CatalogError> {
    let mut seen: std::collections::BTreeSet<String> =
        into.offers.iter().map(|o| o.id.clone()).collect();
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    for o in extra.offers {
        if seen.insert(o.id.clone()) {
            kept.push(o);
        } else if on_clash == OnClash::Refuse {
            return Err(CatalogError::DuplicateId { id: o.id });
        } else {
            skipped.push(o.id);
        }
    }
    into.offers.extend(kept);
    Ok(skipped)
}

/// The offers of several catalogs in one, refusing an id that two of them share.
pub fn merge_all(catalogs: impl IntoIterator<Item = Catalog>) -> Result<Catalog, CatalogError> {
    let mut all = Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers: Vec::new(),
    };
    for c in catalogs {
        merge(&mut all, c, OnClash::Refuse)?;
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::default::default_catalog;

    #[test]
    fn files_are_recognised_by_name_and_content() {
        assert_eq!(detect("x.JSON", ""), CatalogFormat::Json);
        assert_eq!(detect("x.txt", "  {\"offers\": []}"), CatalogFormat::Json);
        assert_eq!(
            detect("aws.csv", "# c\nInstanceType,Price,Region\n"),
            CatalogFormat::SkyPilot
        );
        assert_eq!(detect("mine.csv", "id,provider\n"), CatalogFormat::Csv);
        assert_eq!(provider_from_file_name("/tmp/aws-vms.csv"), "aws");
        assert_eq!(provider_from_file_name("lambda_vms.csv"), "lambda");
        assert_eq!(provider_from_file_name(".csv"), "imported");
    }

    #[test]
    fn merging_refuses_or_skips_a_taken_id() {
        let base = default_catalog().clone();
        let mut into = base.clone();
        let mut extra = base.clone();
        extra.offers.truncate(2);
        extra.offers[1].id = "new-one".into();
        assert_eq!(
            merge(&mut into, extra.clone(), OnClash::Refuse),
            Err(CatalogError::DuplicateId {
                id: base.offers[0].id.clone()
            })
        );
        assert_eq!(into, base, "nothing half-merged");
        let skipped = merge(&mut into, extra, OnClash::Skip).unwrap();
        assert_eq!(skipped, [base.offers[0].id.clone()]);
        assert_eq!(into.offers.len(), base.offers.len() + 1);
        assert!(merge_all([base.clone(), base.clone()]).is_err());
    }
}
