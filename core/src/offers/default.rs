//! The default catalog compiled into gpufare (`core/data/catalog.csv`): dated list prices of
//! Chinese and international providers, every tenancy and billing mode.

use std::sync::OnceLock;

use crate::offers::catalog::{CATALOG_FORMAT_VERSION, Catalog};
use crate::offers::csv::parse_catalog_csv;

const DEFAULT_CATALOG_CSV: &str = include_str!("../../data/catalog.csv");

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::problem::Problem;
    use crate::offers::catalog::{Catalog, CatalogError, catalog_to_json, parse_catalog_json};
    use crate::offers::csv::catalog_to_csv;

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
            "# comment\n{HEADER}\nok,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1.5,CNY,second,2026-03,src\nbad,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,abc,CNY,second,2026-03,src\n"
        );
        let err = parse_catalog_csv(&csv).unwrap_err();
        assert_eq!(
            err,
            CatalogError::Field {
                line: 4,
                field: "price".into(),
                problem: Problem::NotANumber {
                    value: "abc".into()
                }
            }
        );
        assert_eq!(
            err.to_string(),
            "line 4, field price: \"abc\" is not a valid number"
        );
        let csv = format!(
            "{HEADER}\nx,P,r,tier1,A10,1,shared,1,24,pay_as_you_go,1,CNY,second,2026-03,src\n"
        );
        assert!(
            matches!(parse_catalog_csv(&csv), Err(CatalogError::Field { line: 2, ref field, .. }) if field == "tenancy")
        );
        let csv = format!(
            "{HEADER}\nx,P,r,tier1,B9000,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2026-03,src\n"
        );
        assert!(
            matches!(parse_catalog_csv(&csv), Err(CatalogError::Field { ref field, .. }) if field == "gpu")
        );
        let csv = format!(
            "{HEADER}\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,,2026-03,src\n"
        );
        assert!(
            matches!(parse_catalog_csv(&csv), Err(CatalogError::Field { ref field, .. }) if field == "granularity")
        );
        let csv = format!(
            "{HEADER}\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2026-03,src\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2026-03,src\n"
        );
        assert_eq!(
            parse_catalog_csv(&csv).unwrap_err(),
            CatalogError::DuplicateId { id: "x".into() }
        );
        assert!(matches!(
            parse_catalog_csv("id,provider\nx,y\n"),
            Err(CatalogError::Csv { .. })
        ));
        // A season or a range is not a date.
        let csv = format!(
            "{HEADER}\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2025-H2/2026,src\n"
        );
        assert_eq!(
            parse_catalog_csv(&csv).unwrap_err().to_string(),
            "line 2, field as_of: \"2025-H2/2026\" is not a date: write YYYY-MM-DD, or YYYY-MM when the source gives no day"
        );
        // A misspelt column is refused with the likely name; the user's own x_ columns pass.
        let csv = format!(
            "{HEADER},prce\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2026-03,src,2\n"
        );
        assert_eq!(
            parse_catalog_csv(&csv).unwrap_err().to_string(),
            "line 1, field prce: is not a field of this format (did you mean \"price\"?)"
        );
        let csv = format!(
            "{HEADER},x_buyer_note\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2026-03,src,ask again in May\n"
        );
        assert!(parse_catalog_csv(&csv).is_ok());
        // Evidence and the estimate flag must agree.
        let csv = format!(
            "{HEADER},price_evidence,estimate\nx,P,r,tier1,A10,1,dedicated,1,24,pay_as_you_go,1,CNY,second,2026-03,src,official,true\n"
        );
        assert!(
            matches!(parse_catalog_csv(&csv), Err(CatalogError::Field { ref field, problem: Problem::EstimateEvidence, .. }) if field == "price_evidence")
        );
        assert!(matches!(
            parse_catalog_json("{\"format_version\": 9, \"offers\": []}"),
            Err(CatalogError::UnsupportedFormat { found: 9, max: 1 })
        ));
    }

    #[test]
    fn a_misspelt_field_is_refused_by_name_with_the_likely_one() {
        let good = default_catalog();
        let json = catalog_to_json(&Catalog {
            format_version: 1,
            offers: good.offers[..2].to_vec(),
        });
        assert!(parse_catalog_json(&json).is_ok());
        let typo = json.replacen("\"notice_seconds\"", "\"notice_secnds\"", 1);
        assert_ne!(typo, json);
        match parse_catalog_json(&typo).unwrap_err() {
            CatalogError::Field { field, problem, .. } => {
                assert!(field.ends_with(".notice_secnds"), "{field}");
                assert_eq!(
                    problem,
                    Problem::UnknownField {
                        suggestion: Some("notice_seconds".to_owned())
                    }
                );
            }
            other => panic!("{other:?}"),
        }
        let nested = json.replacen("\"rtt_ms\"", "\"rtt\"", 1);
        let err = parse_catalog_json(&nested).unwrap_err().to_string();
        assert!(err.contains("offers[0].region.rtt"), "{err}");
        let top = json.replacen("\"offers\"", "\"offer\": [], \"offers\"", 1);
        let err = parse_catalog_json(&top).unwrap_err().to_string();
        assert!(err.contains("offer"), "{err}");
    }
}
