//! Queue traces: the waits measured on a pool, read from a CSV, to attach to an offer (the
//! evidence that replaces its assumed queue; see `offers::queue`).
//!
//! Two forms are read, told apart by the header (a file without one is a single column of
//! waits in seconds):
//!
//! - a column of waits in seconds, named `wait_s`, `wait_seconds`, `wait` or `queue_s`;
//! - two columns of timestamps, the job's creation and its start (`created`/`started`,
//!   `created_at`/`started_at`, `submit_time`/`start_time`, or the Alibaba trace's
//!   `creation_time`/`scheduled_time`), each seconds (Unix time or from any origin) or RFC 3339.
//!   A row with no start (a job deleted while it waited) is counted and left out.
//!
//! Other columns are ignored; `#` lines are comments. Work is bounded by the file: at most
//! [`MAX_QUEUE_TRACE_BYTES`] and [`MAX_QUEUE_ROWS`] rows.

use thiserror::Error;

use crate::offers::queue::{MAX_WAIT_HOURS, QueueTrace};
use crate::offers::trace::timestamp;

/// The largest queue trace read, bytes.
pub const MAX_QUEUE_TRACE_BYTES: usize = 32 * 1024 * 1024;

/// The most rows a queue trace may hold.
pub const MAX_QUEUE_ROWS: usize = 2_000_000;

/// Names a column of waits in seconds may have.
const WAIT_COLUMNS: [&str; 4] = ["wait_s", "wait_seconds", "wait", "queue_s"];

/// Names the creation and start columns may have, in pairs.
const TIME_COLUMNS: [(&str, &str); 4] = [
    ("created", "started"),
    ("created_at", "started_at"),
    ("submit_time", "start_time"),
    ("creation_time", "scheduled_time"),
];

/// Why a queue trace was refused. Lines are 1-based, comments counted.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum QueueTraceError {
    /// Larger than [`MAX_QUEUE_TRACE_BYTES`].
    #[error("the file is {bytes} bytes; queue traces up to {max} bytes are read")]
    TooLarge {
        /// Its size.
        bytes: u64,
        /// The limit.
        max: usize,
    },
    /// More rows than [`MAX_QUEUE_ROWS`].
    #[error("the file has more than {max} rows")]
    TooManyRows {
        /// The limit.
        max: usize,
    },
    /// A header naming neither a wait column nor a creation and a start column.
    #[error(
        "no column of waits (wait_s, wait_seconds, wait, queue_s) and no pair of timestamps (created,started; created_at,started_at; submit_time,start_time; creation_time,scheduled_time)"
    )]
    NoColumns,
    /// A value that is not a number of seconds or a timestamp.
    #[error("line {line}, column {column}: {value:?} is not {expected}")]
    BadValue {
        /// The line.
        line: u64,
        /// The column's name.
        column: String,
        /// What was given.
        value: String,
        /// What was expected there.
        expected: &'static str,
    },
    /// A wait below zero, or a start before its creation.
    #[error("line {line}: the wait is negative")]
    Negative {
        /// The line.
        line: u64,
    },
    /// A wait longer than a year.
    #[error("line {line}: a wait of more than {max_hours} hours")]
    TooLong {
        /// The line.
        line: u64,
        /// The limit.
        max_hours: f64,
    },
    /// A row that cannot be read (an unclosed quote, bytes that are not text).
    #[error("line {line}: the row cannot be read")]
    BadRow {
        /// The line.
        line: u64,
    },
    /// No job ever started.
    #[error("the file holds no wait (no row, or no job that started)")]
    Empty,
}

impl QueueTraceError {
    /// A stable identifier for the kind of refusal, for translated messages.
    pub fn code(&self) -> &'static str {
        match self {
            QueueTraceError::TooLarge { .. } => "too_large",
            QueueTraceError::TooManyRows { .. } => "too_many_rows",
            QueueTraceError::NoColumns => "no_columns",
            QueueTraceError::BadValue { .. } => "bad_value",
            QueueTraceError::Negative { .. } => "negative",
            QueueTraceError::TooLong { .. } => "too_long",
            QueueTraceError::BadRow { .. } => "bad_row",
            QueueTraceError::Empty => "empty",
        }
    }
}

/// How the waits are found in each row.
enum Form {
    /// One column of waits in seconds, at this index.
    Waits(usize, String),
    /// Creation and start timestamps, at these indexes.
    Times((usize, String), (usize, String)),
}

/// Reads a queue trace; `name` is the file's name (kept for the page and the plan).
pub fn parse_queue_trace(name: &str, text: &str) -> Result<QueueTrace, QueueTraceError> {
    if text.len() > MAX_QUEUE_TRACE_BYTES {
        return Err(QueueTraceError::TooLarge {
            bytes: text.len() as u64,
            max: MAX_QUEUE_TRACE_BYTES,
        });
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut form: Option<Form> = None;
    let mut waits: Vec<f64> = Vec::new();
    let mut unstarted: u64 = 0;
    let mut rows = 0_usize;
    for (i, record) in reader.records().enumerate() {
        let line = record
            .as_ref()
            .ok()
            .and_then(|r| r.position())
            .map_or(i as u64 + 1, |p| p.line());
        let record = record.map_err(|_| QueueTraceError::BadRow { line })?;
        if record.iter().all(str::is_empty) {
            continue;
        }
        rows += 1;
        if rows > MAX_QUEUE_ROWS + 1 {
            return Err(QueueTraceError::TooManyRows {
                max: MAX_QUEUE_ROWS,
            });
        }
        let Some(how) = &form else {
            // The first row: a header, or already a wait.
            let first = record.get(0).unwrap_or("");
            if record.len() == 1 && first.parse::<f64>().is_ok() {
                form = Some(Form::Waits(0, "wait_s".to_owned()));
            } else {
                form = Some(header_form(&record)?);
                continue;
            }
            let wait = seconds(line, "wait_s", first)?;
            waits.push(checked(line, wait)?);
            continue;
        };
        let cell = |i: usize| record.get(i).unwrap_or("");
        match how {
            Form::Waits(at, column) => {
                let wait = seconds(line, column, cell(*at))?;
                waits.push(checked(line, wait)?);
            }
            Form::Times((c, created_name), (s, started_name)) => {
                if cell(*s).is_empty() {
                    unstarted += 1;
                    continue;
                }
                let created = time(line, created_name, cell(*c))?;
                let started = time(line, started_name, cell(*s))?;
                waits.push(checked(line, started - created)?);
            }
        }
    }
    let hours: Vec<f64> = waits.iter().map(|s| s / 3600.0).collect();
    let mut trace = QueueTrace::of_waits(name, &hours).ok_or(QueueTraceError::Empty)?;
    trace.unstarted = unstarted.min(u64::from(u32::MAX)) as u32;
    Ok(trace)
}

/// The form a header names.
fn header_form(header: &csv::StringRecord) -> Result<Form, QueueTraceError> {
    let find = |name: &str| {
        header
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name))
            .map(|i| (i, name.to_owned()))
    };
    if let Some((i, n)) = WAIT_COLUMNS.iter().find_map(|n| find(n)) {
        return Ok(Form::Waits(i, n));
    }
    TIME_COLUMNS
        .iter()
        .find_map(|(c, s)| Some(Form::Times(find(c)?, find(s)?)))
        .ok_or(QueueTraceError::NoColumns)
}

fn seconds(line: u64, column: &str, value: &str) -> Result<f64, QueueTraceError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| QueueTraceError::BadValue {
            line,
            column: column.to_owned(),
            value: value.chars().take(40).collect(),
            expected: "a number of seconds",
        })
}

fn time(line: u64, column: &str, value: &str) -> Result<f64, QueueTraceError> {
    timestamp(value).ok_or_else(|| QueueTraceError::BadValue {
        line,
        column: column.to_owned(),
        value: value.chars().take(40).collect(),
        expected: "a timestamp (seconds, or RFC 3339 like 2023-04-22T10:00:00Z)",
    })
}

fn checked(line: u64, wait_s: f64) -> Result<f64, QueueTraceError> {
    if wait_s < 0.0 {
        return Err(QueueTraceError::Negative { line });
    }
    if wait_s / 3600.0 > MAX_WAIT_HOURS {
        return Err(QueueTraceError::TooLong {
            line,
            max_hours: MAX_WAIT_HOURS,
        });
    }
    Ok(wait_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_waits_and_timestamps() {
        let t = parse_queue_trace("w.csv", "wait_s\n0\n0\n30\n3600\n").unwrap();
        assert_eq!((t.starts, t.unstarted), (4, 0));
        assert!((t.fitted.p0 - 0.5).abs() < 1e-12);
        let bare = parse_queue_trace("b.csv", "0\n0\n30\n3600\n").unwrap();
        assert_eq!(bare.waits_hours, t.waits_hours);
        let times = parse_queue_trace(
            "t.csv",
            "# pods\njob,creation_time,scheduled_time\na,100,100\nb,100,130\nc,0,3600\nd,5,\ne,2023-04-22T10:00:00Z,2023-04-22T10:00:00Z\n",
        )
        .unwrap();
        assert_eq!((times.starts, times.unstarted), (4, 1));
        assert_eq!(times.waits_hours.last(), Some(&1.0));
    }

    #[test]
    fn refuses_by_line_and_column() {
        let e = |text: &str| parse_queue_trace("x.csv", text).unwrap_err();
        assert_eq!(e("id,when\n1,2\n"), QueueTraceError::NoColumns);
        assert_eq!(e("wait_s\n"), QueueTraceError::Empty);
        assert_eq!(e(""), QueueTraceError::Empty);
        assert_eq!(e("wait_s\n5\n-1\n"), QueueTraceError::Negative { line: 3 });
        assert_eq!(
            e("created,started\n10,5\n"),
            QueueTraceError::Negative { line: 2 }
        );
        assert!(matches!(
            e("wait_s\n1\nsoon\n"),
            QueueTraceError::BadValue { line: 3, ref column, .. } if column == "wait_s"
        ));
        assert!(matches!(
            e("created,started\nyesterday,5\n"),
            QueueTraceError::BadValue { line: 2, ref column, .. } if column == "created"
        ));
        assert!(matches!(
            e("wait_s\n1e12\n"),
            QueueTraceError::TooLong { line: 2, .. }
        ));
        assert_eq!(e("wait_s\nNaN\n").code(), "bad_value");
    }
}
