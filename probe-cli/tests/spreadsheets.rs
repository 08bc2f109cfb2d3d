//! Spreadsheets (issue 31), run as a user would: catalog CSVs saved by Excel in GB18030 or UTF-16
//! validate and price like the UTF-8 one, naming the encoding; the budget CSV and workbook open in
//! a spreadsheet reader (calamine) with the same rows and the Chinese names intact.

use std::fs;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use calamine::{Data, Reader, Xlsx, open_workbook_from_rs};

mod common;
use common::text;

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture(name: &str) -> String {
    root()
        .join("tests/fixtures/spreadsheets")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

/// The quotes in UTF-16BE with a byte-order mark, written next to the test's other files.
fn utf16be(dir: &Path) -> String {
    let utf8 = fs::read_to_string(fixture("quotes.csv")).unwrap();
    let mut bytes = vec![0xFE, 0xFF];
    for unit in utf8.encode_utf16() {
        bytes.extend(unit.to_be_bytes());
    }
    let path = dir.join("quotes-utf16be.csv");
    fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

const TASK: &str = "examples/sd_lora.json";

fn plan(catalog: &str, extra: &[&str]) -> Output {
    let task = root().join(TASK);
    let mut args = vec![
        "plan",
        "--task",
        task.to_str().unwrap(),
        "--catalog",
        catalog,
        "--trials",
        "300",
        "--today",
        "2026-12-05",
    ];
    args.extend(extra);
    gpufare(&args)
}

#[test]
fn excel_encodings_validate_with_their_name_and_price_like_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (fixture("quotes.csv"), "UTF-8"),
        (fixture("quotes-gb18030.csv"), "GB18030"),
        (fixture("quotes-utf16le.csv"), "UTF-16LE"),
        (utf16be(dir.path()), "UTF-16BE"),
    ];
    let mut budgets = Vec::new();
    for (file, encoding) in &files {
        let v = gpufare(&["catalog", "validate", file]);
        assert!(v.status.success(), "{file}: {}", text(&v.stderr));
        assert_eq!(
            text(&v.stdout),
            format!("{file}: {encoding}, ok, 4 offers\n"),
            "the encoding is named"
        );
        let p = plan(file, &["--format", "json"]);
        assert!(p.status.success(), "{file}: {}", text(&p.stderr));
        let said = text(&p.stderr);
        if *encoding == "UTF-8" {
            assert!(!said.contains("read as"), "{said}");
        } else {
            assert!(
                said.contains(&format!("{file}: read as {encoding}")),
                "{said}"
            );
        }
        let json: serde_json::Value = serde_json::from_slice(&p.stdout).unwrap();
        assert!(json["options"][0]["total_expected"].as_f64().unwrap() > 0.0);
        budgets.push((file.clone(), json));
    }
    let (_, first) = &budgets[0];
    let providers: Vec<&str> = first["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["provider"].as_str().unwrap())
        .collect();
    assert!(providers.contains(&"阿里云") && providers.contains(&"优云智算"));
    for (file, json) in &budgets[1..] {
        assert_eq!(json, first, "{file} prices differently from the UTF-8 file");
    }
}

#[test]
fn a_file_in_no_encoding_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let latin1 = dir.path().join("latin1.csv");
    fs::write(&latin1, b"id,provider\nq1,Caf\xE9,x\n").unwrap();
    let l = latin1.to_str().unwrap();
    for out in [
        gpufare(&["catalog", "validate", l]),
        plan(l, &["--format", "csv"]),
    ] {
        assert_eq!(out.status.code(), Some(2));
        let said = text(&out.stderr);
        assert!(
            said.contains(&format!("{l}: the file is neither UTF-8")) && said.contains("line 2"),
            "{said}"
        );
        assert!(out.stdout.is_empty());
    }
    // A workbook given as a catalog.
    let book = dir.path().join("quotes.xlsx");
    let w = plan(
        &fixture("quotes.csv"),
        &["--format", "xlsx", "-o", book.to_str().unwrap()],
    );
    assert!(w.status.success(), "{}", text(&w.stderr));
    let v = gpufare(&["catalog", "validate", book.to_str().unwrap()]);
    assert_eq!(v.status.code(), Some(2));
    assert!(
        text(&v.stderr).contains("spreadsheet workbook"),
        "{}",
        text(&v.stderr)
    );
}

#[test]
fn the_workbook_needs_a_file_and_diff_stays_text() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.json");
    fs::write(&old, "{}").unwrap();
    let q = fixture("quotes.csv");
    for (args, says) in [
        (vec!["--format", "xlsx"], "not text for standard output"),
        (
            vec!["--format", "xlsx", "-o", "-"],
            "not text for standard output",
        ),
        (
            vec![
                "--format",
                "xlsx",
                "-o",
                "x.xlsx",
                "--diff",
                old.to_str().unwrap(),
            ],
            "--diff writes text",
        ),
    ] {
        let out = plan(&q, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: nothing on standard output"
        );
        assert!(text(&out.stderr).contains(says), "{}", text(&out.stderr));
    }
    assert!(!Path::new("x.xlsx").exists());
    // A pipe or /dev/null is not a terminal: written through.
    let null = plan(&q, &["--format", "xlsx", "-o", "/dev/null"]);
    assert!(null.status.success(), "{}", text(&null.stderr));
}

/// The budget CSV's rows (after its byte-order mark and `#` lines) by column name.
fn csv_rows(bytes: &[u8]) -> Vec<std::collections::BTreeMap<String, String>> {
    assert!(
        bytes.starts_with(b"\xEF\xBB\xBF"),
        "the CSV starts with a UTF-8 byte-order mark"
    );
    let body: Vec<&str> = std::str::from_utf8(&bytes[3..])
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect();
    let mut lines = body.iter().map(|l| split(l));
    let header = lines.next().unwrap();
    lines
        .map(|r| header.iter().cloned().zip(r).collect())
        .collect()
}

/// One CSV line's fields (quoted fields with commas and doubled quotes).
fn split(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

#[test]
fn the_csv_and_the_workbook_open_with_the_same_rows_in_both_languages() {
    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("budget.csv");
    let gb = fixture("quotes-gb18030.csv");
    let c = plan(&gb, &["--format", "csv", "-o", csv_path.to_str().unwrap()]);
    assert!(c.status.success(), "{}", text(&c.stderr));
    let rows = csv_rows(&fs::read(&csv_path).unwrap());
    assert_eq!(rows.len(), 4);
    for (lang, names) in [
        (
            "en",
            [
                "Ranking",
                "Cost breakdown",
                "Hybrid plan",
                "Assumptions and sources",
            ],
        ),
        (
            "zh",
            ["排名", "费用明细", "混合方案", "假设、价格日期与来源"],
        ),
    ] {
        let book_path = dir.path().join(format!("budget-{lang}.xlsx"));
        let w = plan(
            &gb,
            &[
                "--format",
                "xlsx",
                "--lang",
                lang,
                "-o",
                book_path.to_str().unwrap(),
            ],
        );
        assert!(w.status.success(), "{}", text(&w.stderr));
        assert!(w.stdout.is_empty());
        let bytes = fs::read(&book_path).unwrap();
        assert!(bytes.starts_with(b"PK\x03\x04"), "a zip");
        let mut book: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes)).unwrap();
        assert_eq!(book.sheet_names(), names.map(str::to_owned).to_vec());
        let ranking: Vec<Vec<Data>> = book
            .worksheet_range(names[0])
            .unwrap()
            .rows()
            .map(<[Data]>::to_vec)
            .collect();
        let breakdown: Vec<Vec<Data>> = book
            .worksheet_range(names[1])
            .unwrap()
            .rows()
            .map(<[Data]>::to_vec)
            .collect();
        assert_eq!(ranking.len(), rows.len() + 1, "a header and every option");
        let num = |s: &str| s.parse::<f64>().unwrap();
        for (i, row) in rows.iter().enumerate() {
            let r = &ranking[i + 1];
            let b = &breakdown[i + 1];
            assert_eq!(r[0], Data::Float(num(&row["rank"])));
            assert_eq!(r[1], Data::String(row["offer_id"].clone()));
            assert_eq!(
                r[2],
                Data::String(row["provider"].clone()),
                "Chinese names intact"
            );
            assert_eq!(r[3], Data::String(row["gpu"].clone()));
            assert_eq!(r[8], Data::Bool(row["feasible"] == "true"));
            assert_eq!(r[10], Data::Float(num(&row["hours_expected"])));
            assert_eq!(r[13], Data::Float(num(&row["total_expected"])));
            assert_eq!(r[14], Data::Float(num(&row["total_p90"])));
            assert_eq!(r[16], Data::String(row["price_as_of"].clone()));
            for (col, name) in [
                (2, "rent"),
                (3, "storage"),
                (4, "egress"),
                (5, "time_cost"),
                (6, "risk_cost"),
            ] {
                assert_eq!(b[col], Data::Float(num(&row[name])), "{name}");
            }
        }
        let providers: Vec<String> = ranking[1..].iter().map(|r| r[2].to_string()).collect();
        assert!(providers.contains(&"阿里云".to_owned()));
        assert!(providers.contains(&"优云智算".to_owned()));
    }
}

#[test]
fn converted_catalog_csvs_carry_a_bom_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("quotes-out.csv");
    let r = gpufare(&[
        "catalog",
        "convert",
        &fixture("quotes-gb18030.csv"),
        "--to",
        "csv",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    let bytes = fs::read(&out).unwrap();
    assert!(bytes.starts_with("\u{FEFF}id,provider,".as_bytes()));
    assert!(text(&bytes).contains(",阿里云,"));
    let v = gpufare(&["catalog", "validate", out.to_str().unwrap()]);
    assert_eq!(
        text(&v.stdout),
        format!("{}: UTF-8 with BOM, ok, 4 offers\n", out.display())
    );
}
