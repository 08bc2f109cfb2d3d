//! Spreadsheets (issue 31): catalog CSVs in the encodings Excel saves read the same as UTF-8 and
//! price the same; the CSVs gpufare writes start with a UTF-8 byte-order mark that its own
//! readers read past; the budget workbook, read back by a spreadsheet reader (calamine), holds
//! every value of the budget CSV with the Chinese names intact, in English and in Chinese.
#![cfg(not(target_arch = "wasm32"))]
// Tests may read fixture files; the library itself may not (core/clippy.toml).
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::PathBuf;

use calamine::{Data, Reader, Xlsx, open_workbook_from_rs};
use gpufare_core::export::budget::{Budget, budget};
use gpufare_core::export::csv::{CSV_COLUMNS, budget_csv};
use gpufare_core::export::xlsx::{SheetLanguage, budget_xlsx, sheet_names};
use gpufare_core::numbers::text::TextEncoding;
use gpufare_core::offers::catalog::{Catalog, CatalogError, catalog_to_json};
use gpufare_core::offers::csv::catalog_to_csv;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::import::{CatalogFormat, merge_all, read_catalog, read_catalog_file};
use gpufare_core::plan::plan;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::{TaskProfile, parse_task};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/spreadsheets")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The UTF-8 fixture's text in UTF-16 with a byte-order mark.
fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let mut out = if big_endian {
        vec![0xFE, 0xFF]
    } else {
        vec![0xFF, 0xFE]
    };
    for unit in text.encode_utf16() {
        out.extend(if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
    out
}

fn task() -> TaskProfile {
    parse_task(include_str!("../../examples/sd_lora.json")).unwrap()
}

fn settings(task: &TaskProfile) -> PlanSettings {
    let mut s = PlanSettings::for_task(task);
    s.trials = 300;
    s.today = Some("2026-12-05".to_owned());
    s
}

fn priced(catalog: &Catalog) -> Budget {
    let task = task();
    let result = plan(&task, catalog, &settings(&task)).unwrap();
    budget(&result, &task, catalog)
}

/// Every file the quotes come in, with the encoding it must be read as.
fn quote_files() -> Vec<(String, Vec<u8>, TextEncoding)> {
    let utf8 = fixture("quotes.csv");
    let text = String::from_utf8(utf8.clone()).unwrap();
    let mut bom = "\u{FEFF}".as_bytes().to_vec();
    bom.extend(&utf8);
    vec![
        ("quotes.csv".into(), utf8, TextEncoding::Utf8),
        ("quotes-bom.csv".into(), bom, TextEncoding::Utf8Bom),
        (
            "quotes-utf16le.csv".into(),
            fixture("quotes-utf16le.csv"),
            TextEncoding::Utf16Le,
        ),
        (
            "quotes-utf16be.csv".into(),
            utf16(&text.replace('\n', "\r\n"), true),
            TextEncoding::Utf16Be,
        ),
        (
            "quotes-gb18030.csv".into(),
            fixture("quotes-gb18030.csv"),
            TextEncoding::Gb18030,
        ),
        // Excel's "Unicode text": UTF-16LE, tabs between the fields (the fixture's one quoted
        // field has no ASCII comma in it).
        (
            "quotes.txt".into(),
            utf16(&text.replace(',', "\t").replace('\n', "\r\n"), false),
            TextEncoding::Utf16Le,
        ),
    ]
}

#[test]
fn every_encoding_reads_the_same_quotes_and_prices_them_the_same() {
    let files = quote_files();
    // The checked-in GB18030 file really is GBK bytes, not UTF-8.
    assert!(std::str::from_utf8(&fixture("quotes-gb18030.csv")).is_err());
    let mut first: Option<(Catalog, Budget)> = None;
    for (name, bytes, encoding) in files {
        let imported = read_catalog_file(&name, &bytes, "2026-12-05")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(imported.encoding, encoding, "{name}");
        assert_eq!(imported.format, CatalogFormat::Csv, "{name}");
        let c = imported.catalog;
        assert_eq!(c.offers.len(), 4, "{name}");
        assert_eq!(c.offers[0].provider, "阿里云", "{name}");
        assert_eq!(c.offers[2].provider, "优云智算", "{name}");
        assert_eq!(c.offers[0].region.name, "华东1（杭州）", "{name}");
        assert_eq!(
            c.offers[3].estimate_note.as_deref(),
            Some("按整卡价格的一半加 5% 估算，“共享”无公开报价"),
            "{name}"
        );
        let b = priced(&c);
        assert!(
            b.options.iter().any(|r| r.feasible),
            "{name}: something runs"
        );
        match &first {
            None => first = Some((c, b)),
            Some((c0, b0)) => {
                assert_eq!(&c, c0, "{name}: the same offers as the UTF-8 file");
                assert_eq!(&b, b0, "{name}: the same budget, to the cent");
            }
        }
    }
}

#[test]
fn bytes_in_no_encoding_are_refused_by_name_and_never_panic() {
    // Latin-1 text: neither UTF-8 nor GB18030.
    let latin1 = b"id,provider\nq1,Caf\xE9,\n";
    let err = read_catalog_file("latin1.csv", latin1, "2026-12-05").unwrap_err();
    assert!(matches!(err, CatalogError::Encoding(_)), "{err:?}");
    let said = err.to_string();
    assert!(
        said.contains("neither UTF-8") && said.contains("line 2"),
        "{said}"
    );
    // A workbook given where a CSV belongs.
    let book = budget_xlsx(
        &priced(default_catalog()),
        default_catalog(),
        SheetLanguage::En,
    )
    .unwrap();
    let err = read_catalog_file("quotes.xlsx", &book, "2026-12-05").unwrap_err();
    assert!(err.to_string().contains("workbook"), "{err}");
    // Every cut of every fixture: an error or a catalog, never a panic.
    for (name, bytes, _) in quote_files() {
        for end in 0..bytes.len() {
            let _ = read_catalog_file(&name, &bytes[..end], "2026-12-05");
        }
    }
}

#[test]
fn written_csvs_start_with_a_bom_and_every_reader_reads_past_it() {
    let catalog = default_catalog();
    let csv = catalog_to_csv(catalog);
    assert!(csv.starts_with("\u{FEFF}id,provider,"), "{}", &csv[..40]);
    let back = read_catalog("catalog.csv", &csv, "2026-12-05").unwrap();
    assert_eq!(back.encoding, TextEncoding::Utf8Bom);
    assert_eq!(&back.catalog, catalog);
    let from_bytes = read_catalog_file("catalog.csv", csv.as_bytes(), "2026-12-05").unwrap();
    assert_eq!(from_bytes.encoding, TextEncoding::Utf8Bom);
    assert_eq!(&from_bytes.catalog, catalog);
    // JSON and SkyPilot's vms.csv saved with a BOM too.
    let json = format!("\u{FEFF}{}", catalog_to_json(catalog));
    let back = read_catalog_file("catalog.json", json.as_bytes(), "2026-12-05").unwrap();
    assert_eq!(&back.catalog, catalog);
    let sky_path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/skypilot/aws-vms.csv");
    let sky = std::fs::read_to_string(sky_path).unwrap();
    let plain = read_catalog("aws-vms.csv", &sky, "2026-12-05").unwrap();
    let with_bom = read_catalog("aws-vms.csv", &format!("\u{FEFF}{sky}"), "2026-12-05").unwrap();
    assert_eq!(with_bom.format, CatalogFormat::SkyPilot);
    assert_eq!(with_bom.catalog, plain.catalog);
    // The budget CSV.
    let b = priced(catalog);
    assert!(budget_csv(&b).starts_with("\u{FEFF}# gpufare budget"));
}

/// The budget CSV's rows by column name (after the BOM and the `#` lines).
fn csv_rows(b: &Budget) -> Vec<BTreeMap<String, String>> {
    let text = budget_csv(b);
    let body: Vec<&str> = text
        .strip_prefix('\u{FEFF}')
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect();
    let joined = body.join("\n");
    let mut reader = csv::Reader::from_reader(joined.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(header, CSV_COLUMNS);
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .cloned()
                .zip(r.iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

/// A sheet's rows as read by calamine.
fn sheet(book: &mut Xlsx<Cursor<Vec<u8>>>, name: &str) -> Vec<Vec<Data>> {
    let range = book.worksheet_range(name).unwrap();
    assert_eq!(range.start(), Some((0, 0)), "{name} starts at A1");
    range.rows().map(<[Data]>::to_vec).collect()
}

/// Whether a cell holds what the CSV wrote: the same number, text, yes/no, or nothing.
fn same(cell: &Data, csv: &str) -> bool {
    match cell {
        Data::Empty => csv.is_empty(),
        Data::String(s) => s == csv,
        Data::Bool(b) => csv == b.to_string(),
        Data::Float(x) => csv.parse::<f64>().is_ok_and(|y| y == *x),
        Data::Int(i) => csv.parse::<i64>().is_ok_and(|y| y == *i),
        _ => false,
    }
}

#[test]
fn the_workbook_holds_every_value_of_the_csv_in_both_languages() {
    let quotes = read_catalog_file("quotes.csv", &fixture("quotes-gb18030.csv"), "2026-12-05")
        .unwrap()
        .catalog;
    // The quotes with a slice of the default catalog: feasible and infeasible rows, spot policies.
    let mut some_defaults = default_catalog().clone();
    some_defaults.offers = some_defaults.offers.into_iter().step_by(5).collect();
    let catalog = merge_all([quotes, some_defaults]).unwrap();
    let b = priced(&catalog);
    assert!(b.options.iter().any(|r| !r.feasible) && b.options.iter().any(|r| r.feasible));
    assert!(b.options.iter().any(|r| r.policy.is_some()));
    assert!(!b.hybrid.is_empty(), "the sample task has a hybrid plan");
    let rows = csv_rows(&b);
    assert_eq!(rows.len(), b.options.len());

    for lang in SheetLanguage::ALL {
        let bytes = budget_xlsx(&b, &catalog, lang).unwrap();
        assert!(bytes.starts_with(b"PK\x03\x04"), "an xlsx is a zip");
        let mut book: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes.clone())).unwrap();
        let names = sheet_names(lang);
        assert_eq!(book.sheet_names(), names.map(str::to_owned).to_vec());
        let [ranking, breakdown, hybrid, sources] = names.map(|n| sheet(&mut book, n));
        let cur = b.currency.code();

        // Headers in the language, with units.
        let header = |s: &[Vec<Data>], i: usize| s[0][i].to_string();
        match lang {
            SheetLanguage::En => {
                assert_eq!(header(&ranking, 0), "Rank");
                assert_eq!(header(&ranking, 13), format!("Expected total ({cur})"));
                assert_eq!(header(&ranking, 10), "Expected hours (h)");
                assert_eq!(header(&breakdown, 2), format!("Rent ({cur})"));
            }
            SheetLanguage::Zh => {
                assert_eq!(header(&ranking, 0), "排名");
                assert_eq!(header(&ranking, 13), format!("预计总成本（{cur}）"));
                assert_eq!(header(&ranking, 10), "预计耗时（小时）");
                assert_eq!(header(&breakdown, 2), format!("租金（{cur}）"));
            }
        }

        // The per-offer price table on the sources sheet: the rows under its header.
        let start = sources
            .iter()
            .position(|r| r[0] == Data::String(lang_pick(lang, "Rank", "排名").into()))
            .expect("the price table's header");
        let prices = &sources[start + 1..start + 1 + rows.len()];

        // Where each CSV column is in the workbook: (sheet, column).
        let ranking_cols = [
            "rank",
            "offer_id",
            "provider",
            "gpu",
            "gpu_count",
            "tenancy",
            "billing_mode",
            "region_class",
            "feasible",
            "vram_fit",
            "hours_expected",
            "hours_p90",
            "deadline_miss_probability",
            "total_expected",
            "total_p90",
            "policy",
            "price_as_of",
        ];
        let breakdown_cols = [
            "rank",
            "offer_id",
            "rent",
            "storage",
            "egress",
            "time_cost",
            "risk_cost",
            "total_expected",
            "total_p90",
        ];
        let price_cols = [
            "rank",
            "offer_id",
            "provider",
            "price_as_of",
            "price_age_days",
            "price_evidence",
            "price_is_estimate",
            "",
            "price_source",
        ];
        let mut seen = std::collections::BTreeSet::new();
        for (i, row) in rows.iter().enumerate() {
            for (sheet_rows, cols) in [
                (&ranking[i + 1], &ranking_cols[..]),
                (&breakdown[i + 1], &breakdown_cols[..]),
                (&prices[i], &price_cols[..]),
            ] {
                for (c, name) in cols.iter().enumerate().filter(|(_, n)| !n.is_empty()) {
                    let cell = sheet_rows.get(c).unwrap_or(&Data::Empty);
                    assert!(
                        same(cell, &row[*name]),
                        "{lang:?} row {}: {name} is {cell:?} in the workbook, {:?} in the CSV",
                        i + 1,
                        row[*name]
                    );
                    seen.insert(*name);
                }
            }
            // The currency is in the money columns' headers.
            assert_eq!(row["currency"], cur);
            seen.insert("currency");
        }
        assert_eq!(
            seen.len(),
            CSV_COLUMNS.len(),
            "every CSV column is somewhere in the workbook"
        );
        // The Chinese names survive, the estimate note included.
        let provider_of = |id: &str| {
            ranking
                .iter()
                .find(|r| r[1] == Data::String(id.into()))
                .map(|r| r[2].to_string())
        };
        assert_eq!(provider_of("q-aliyun-a10-payg").as_deref(), Some("阿里云"));
        assert_eq!(
            provider_of("q-ucloud-4090-payg").as_deref(),
            Some("优云智算")
        );
        assert!(
            prices.iter().any(
                |r| r[7] == Data::String("按整卡价格的一半加 5% 估算，“共享”无公开报价".into())
            )
        );
        // Money and hours are numbers, not text.
        assert!(matches!(ranking[1][13], Data::Float(_)));
        assert!(matches!(ranking[1][10], Data::Float(_)));

        // The hybrid plan: each phase and the total.
        for (p, row) in b.hybrid.iter().zip(&hybrid[1..]) {
            assert_eq!(row[0], Data::String(p.phase.clone()));
            assert_eq!(row[4], Data::Float(p.cost));
        }
        let total = &hybrid[b.hybrid.len() + 1];
        assert_eq!(total[4], Data::Float(b.hybrid_total.unwrap()));

        // The basis and every assumption.
        let flat: Vec<String> = sources
            .iter()
            .flat_map(|r| r.iter().map(Data::to_string))
            .collect();
        for a in &b.assumptions {
            assert!(flat.contains(&a.id) && flat.contains(&a.source), "{}", a.id);
        }
        assert!(flat.contains(&b.price_dates.join(", ")));
        assert!(flat.contains(&"2026-12-05".to_owned()));
    }
}

fn lang_pick<'a>(lang: SheetLanguage, en: &'a str, zh: &'a str) -> &'a str {
    match lang {
        SheetLanguage::En => en,
        SheetLanguage::Zh => zh,
    }
}

#[test]
fn the_same_budget_gives_the_same_bytes_whatever_the_clock() {
    let b = priced(default_catalog());
    let one = budget_xlsx(&b, default_catalog(), SheetLanguage::Zh).unwrap();
    // Past a second boundary: a creation time read from the clock would differ.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let two = budget_xlsx(&b, default_catalog(), SheetLanguage::Zh).unwrap();
    assert!(one == two, "the workbook's bytes changed with the time");
    let en = budget_xlsx(&b, default_catalog(), SheetLanguage::En).unwrap();
    assert!(one != en);
}
