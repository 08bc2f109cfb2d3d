//! What the model's tests share. Each test file takes what it needs (`mod common;`).
#![allow(dead_code)]

use gpufare_core::export::csv::CSV_COLUMNS;

/// A budget CSV as written, read back: the text after its UTF-8 byte-order mark (comments
/// included) and its records, after checking the mark and the header row.
pub fn budget_csv_records(written: &str) -> (&str, Vec<csv::StringRecord>) {
    // Excel's cue to read the file as UTF-8; everything after it is the CSV.
    let text = written
        .strip_prefix('\u{FEFF}')
        .expect("the budget CSV starts with a UTF-8 byte-order mark");
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let mut reader = csv::Reader::from_reader(body.as_bytes());
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        CSV_COLUMNS
    );
    (text, reader.records().map(Result::unwrap).collect())
}

/// The position of CSV column `name`.
pub fn column(name: &str) -> usize {
    CSV_COLUMNS.iter().position(|c| *c == name).unwrap()
}
