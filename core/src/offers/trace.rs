//! Preemption and availability traces: how many instances of an offer ran, tick by tick, as
//! measured — the evidence that replaces an assumed interruption rate.
//!
//! Two file forms are read:
//!
//! - the JSON of the public *Can't Be Late* dataset (Wu et al., NSDI 2024,
//!   <https://github.com/skypilot-org/spot-traces>): `{"metadata": {"gap_seconds": N},
//!   "data": [c0, c1, ...]}`, one count of running instances per tick of N seconds (other keys,
//!   such as the dataset's `prices`, are ignored);
//! - a plain CSV of `timestamp,count` rows (a header is optional): each row's count holds from
//!   its timestamp until the next row's, and the last row's timestamp ends the trace. Timestamps
//!   are seconds (Unix time or from any origin) or RFC 3339 (`2023-04-22T10:00:00Z`), strictly
//!   increasing. A log of changes and a regular sampling both fit.
//!
//! A job needs one instance: a tick with a count of at least 1 is *running*, a step from running
//! to 0 is a *preemption*, and a stretch of 0s is a *gap* without capacity. The trace is kept
//! run-length encoded, so a week of 32-second ticks with 40 preemptions is some 80 spans.

use schemars::JsonSchema;
use serde::de::{IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use thiserror::Error;

use crate::numbers::problem::JsonProblem;
use crate::numbers::stats::percentile;

/// The largest trace file read, bytes.
pub const MAX_TRACE_BYTES: usize = 32 * 1024 * 1024;

/// The most ticks (JSON values or CSV rows) a trace may hold.
pub const MAX_TRACE_TICKS: usize = 5_000_000;

/// The longest tick accepted, seconds (a day).
pub const MAX_TICK_SECONDS: f64 = 86_400.0;

/// The longest trace accepted, hours (ten years).
pub const MAX_TRACE_HOURS: f64 = 87_600.0;

/// A stretch of the trace with the same count of running instances.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Span {
    /// Instances running.
    pub count: u32,
    /// Length, seconds.
    pub seconds: f64,
}

impl Span {
    /// Whether a job has an instance during this span.
    pub fn running(&self) -> bool {
        self.count >= 1
    }

    /// Length, hours.
    pub fn hours(&self) -> f64 {
        self.seconds / 3600.0
    }
}

/// A trace read from a file: its name, the sampling tick and the spans in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Trace {
    /// The file it was read from (for messages and reports).
    pub name: String,
    /// Seconds between samples (the dataset's `gap_seconds`; for a CSV, the median interval
    /// between rows). The replay starts a job at every tick.
    pub tick_seconds: f64,
    /// Samples read (JSON values, or CSV intervals).
    pub ticks: u64,
    /// Consecutive samples with the same count, merged.
    pub spans: Vec<Span>,
}

/// A trace attached to one offer of a catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttachedTrace {
    /// The offer it measures.
    pub offer_id: String,
    /// The trace.
    pub trace: Trace,
}

/// Why a trace file was refused. Positions are 1-based lines (CSV) or 0-based indexes into
/// `data` (JSON).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TraceError {
    /// Larger than [`MAX_TRACE_BYTES`].
    #[error("the file is {bytes} bytes; traces up to {max} bytes are read")]
    TooLarge {
        /// Its size.
        bytes: u64,
        /// The limit.
        max: usize,
    },
    /// JSON that is not the dataset's form.
    #[error("not a trace (line {}, column {}): {}", .0.line, .0.column, .0.detail)]
    Json(JsonProblem),
    /// No samples at all.
    #[error("the trace has no samples")]
    Empty,
    /// More samples than [`MAX_TRACE_TICKS`].
    #[error("the trace has more than {max} samples")]
    TooManyTicks {
        /// The limit.
        max: usize,
    },
    /// A tick of 0 s, a negative one, or longer than a day.
    #[error("gap_seconds must be above 0 and at most 86400, not {value}")]
    BadTick {
        /// What was given.
        value: String,
    },
    /// A count that is negative, fractional, too large or not a number.
    #[error("{at}: {value} is not a count of instances (a whole number from 0)")]
    BadCount {
        /// Where: `data[12]` or `line 14`.
        at: String,
        /// What was given.
        value: String,
    },
    /// A CSV timestamp that is neither seconds nor RFC 3339.
    #[error(
        "line {line}: {value:?} is not a timestamp (seconds, or RFC 3339 like 2023-04-22T10:00:00Z)"
    )]
    BadTimestamp {
        /// The line.
        line: u64,
        /// What was given.
        value: String,
    },
    /// A CSV timestamp not after the one before it.
    #[error("line {line}: the timestamps must increase")]
    NotIncreasing {
        /// The line.
        line: u64,
    },
    /// A CSV row without two columns, or unreadable.
    #[error("line {line}: expected two columns, a timestamp and a count")]
    BadRow {
        /// The line.
        line: u64,
    },
    /// Longer than [`MAX_TRACE_HOURS`].
    #[error("the trace covers more than {max} hours")]
    TooLong {
        /// The limit.
        max: f64,
    },
    /// Not one instance ever ran: there is nothing to replay.
    #[error("no instance ever runs in this trace (every count is 0)")]
    NeverRunning,
}

impl TraceError {
    /// A stable identifier for the kind of refusal, for translated messages.
    pub fn code(&self) -> &'static str {
        match self {
            TraceError::TooLarge { .. } => "too_large",
            TraceError::Json(_) => "json",
            TraceError::Empty => "empty",
            TraceError::TooManyTicks { .. } => "too_many_ticks",
            TraceError::BadTick { .. } => "bad_tick",
            TraceError::BadCount { .. } => "bad_count",
            TraceError::BadTimestamp { .. } => "bad_timestamp",
            TraceError::NotIncreasing { .. } => "not_increasing",
            TraceError::BadRow { .. } => "bad_row",
            TraceError::TooLong { .. } => "too_long",
            TraceError::NeverRunning => "never_running",
        }
    }
}

/// Appends samples to run-length spans.
#[derive(Default)]
struct SpanBuilder {
    spans: Vec<Span>,
    ticks: u64,
}

impl SpanBuilder {
    fn push(&mut self, count: u32, seconds: f64) {
        self.ticks += 1;
        match self.spans.last_mut() {
            Some(last) if last.count == count => last.seconds += seconds,
            _ => self.spans.push(Span { count, seconds }),
        }
    }
}

/// A JSON number as a count, if it is one.
fn as_count(n: &serde_json::Number) -> Option<u32> {
    if let Some(u) = n.as_u64() {
        return u32::try_from(u).ok();
    }
    let f = n.as_f64()?;
    (f >= 0.0 && f <= f64::from(u32::MAX) && libm::trunc(f) == f).then_some(f as u32)
}

/// The `data` array read straight into counts, remembering the first value that is not a count
/// (the rest is skipped), so a large trace never becomes a vector of JSON values.
struct Counts {
    counts: Vec<(u32, u64)>,
    ticks: u64,
    bad: Option<(u64, String)>,
    too_many: bool,
}

impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Counts, D::Error> {
        struct CountsVisitor;
        impl<'de> Visitor<'de> for CountsVisitor {
            type Value = Counts;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of instance counts")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Counts, A::Error> {
                let mut out = Counts {
                    counts: Vec::new(),
                    ticks: 0,
                    bad: None,
                    too_many: false,
                };
                loop {
                    if out.bad.is_some() || out.too_many {
                        if seq.next_element::<IgnoredAny>()?.is_none() {
                            return Ok(out);
                        }
                        continue;
                    }
                    let Some(value) = seq.next_element::<serde_json::Value>()? else {
                        return Ok(out);
                    };
                    let index = out.ticks;
                    match value.as_number().and_then(as_count) {
                        Some(c) => {
                            match out.counts.last_mut() {
                                Some((last, n)) if *last == c => *n += 1,
                                _ => out.counts.push((c, 1)),
                            }
                            out.ticks += 1;
                            if out.ticks as usize > MAX_TRACE_TICKS {
                                out.too_many = true;
                            }
                        }
                        None => out.bad = Some((index, value.to_string())),
                    }
                }
            }
        }
        deserializer.deserialize_seq(CountsVisitor)
    }
}

#[derive(Deserialize)]
struct Metadata {
    gap_seconds: f64,
}

#[derive(Deserialize)]
struct DatasetJson {
    metadata: Metadata,
    data: Counts,
}

fn check_tick(seconds: f64) -> Result<f64, TraceError> {
    if seconds.is_finite() && seconds > 0.0 && seconds <= MAX_TICK_SECONDS {
        Ok(seconds)
    } else {
        Err(TraceError::BadTick {
            value: seconds.to_string(),
        })
    }
}

fn finish(name: &str, tick_seconds: f64, b: SpanBuilder) -> Result<Trace, TraceError> {
    if b.ticks == 0 {
        return Err(TraceError::Empty);
    }
    let total: f64 = b.spans.iter().map(|s| s.seconds).sum();
    if total / 3600.0 > MAX_TRACE_HOURS {
        return Err(TraceError::TooLong {
            max: MAX_TRACE_HOURS,
        });
    }
    if !b.spans.iter().any(Span::running) {
        return Err(TraceError::NeverRunning);
    }
    Ok(Trace {
        name: name.to_owned(),
        tick_seconds,
        ticks: b.ticks,
        spans: b.spans,
    })
}

/// Reads the dataset's JSON form.
pub fn parse_trace_json(name: &str, text: &str) -> Result<Trace, TraceError> {
    let doc: DatasetJson =
        serde_json::from_str(text).map_err(|e| TraceError::Json(JsonProblem::from(e)))?;
    let tick = check_tick(doc.metadata.gap_seconds)?;
    if let Some((index, value)) = doc.data.bad {
        return Err(TraceError::BadCount {
            at: format!("data[{index}]"),
            value,
        });
    }
    if doc.data.too_many {
        return Err(TraceError::TooManyTicks {
            max: MAX_TRACE_TICKS,
        });
    }
    let mut b = SpanBuilder::default();
    for (count, n) in doc.data.counts {
        b.spans.push(Span {
            count,
            seconds: n as f64 * tick,
        });
        b.ticks += n;
    }
    finish(name, tick, b)
}

/// A CSV timestamp in seconds: a number, or RFC 3339.
/// A timestamp in seconds: a number (Unix time or from any origin) or RFC 3339.
pub(crate) fn timestamp(text: &str) -> Option<f64> {
    if let Ok(s) = text.parse::<f64>() {
        return s.is_finite().then_some(s);
    }
    let t: jiff::Timestamp = text.parse().ok()?;
    Some(t.as_second() as f64 + f64::from(t.subsec_nanosecond()) / 1e9)
}

/// Reads the CSV form: `timestamp,count` rows, an optional header first.
pub fn parse_trace_csv(name: &str, text: &str) -> Result<Trace, TraceError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut rows: Vec<(f64, u32)> = Vec::new();
    let mut intervals: Vec<f64> = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = record
            .as_ref()
            .ok()
            .and_then(|r| r.position())
            .map_or(i as u64 + 1, |p| p.line());
        let record = record.map_err(|_| TraceError::BadRow { line })?;
        if record.iter().all(str::is_empty) {
            continue;
        }
        let (Some(t), Some(c)) = (record.get(0), record.get(1)) else {
            return Err(TraceError::BadRow { line });
        };
        let Some(t_s) = timestamp(t) else {
            if rows.is_empty() && i == 0 {
                continue; // a header
            }
            return Err(TraceError::BadTimestamp {
                line,
                value: t.to_owned(),
            });
        };
        let count = c
            .parse::<serde_json::Number>()
            .ok()
            .as_ref()
            .and_then(as_count)
            .ok_or_else(|| TraceError::BadCount {
                at: format!("line {line}"),
                value: c.to_owned(),
            })?;
        if let Some((last, _)) = rows.last() {
            if t_s <= *last {
                return Err(TraceError::NotIncreasing { line });
            }
            intervals.push(t_s - last);
        }
        if rows.len() > MAX_TRACE_TICKS {
            return Err(TraceError::TooManyTicks {
                max: MAX_TRACE_TICKS,
            });
        }
        rows.push((t_s, count));
    }
    if rows.len() < 2 {
        return Err(TraceError::Empty);
    }
    let mut b = SpanBuilder::default();
    for (&(t0, count), &(t1, _)) in rows.iter().zip(rows.iter().skip(1)) {
        b.push(count, t1 - t0);
    }
    intervals.sort_by(f64::total_cmp);
    let tick = check_tick(percentile(&intervals, 0.5).min(MAX_TICK_SECONDS))?;
    finish(name, tick, b)
}

/// Reads a trace in either form, by its first character (`{` for JSON).
pub fn parse_trace(name: &str, text: &str) -> Result<Trace, TraceError> {
    if text.len() > MAX_TRACE_BYTES {
        return Err(TraceError::TooLarge {
            bytes: text.len() as u64,
            max: MAX_TRACE_BYTES,
        });
    }
    if text.trim_start().starts_with('{') {
        parse_trace_json(name, text)
    } else {
        parse_trace_csv(name, text)
    }
}

/// Median, 90th percentile and mean of a set of stretches, hours.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Stretches {
    /// How many.
    pub count: u32,
    /// Median length (nearest rank), hours.
    pub median_hours: f64,
    /// 90th-percentile length, hours.
    pub p90_hours: f64,
    /// Mean length, hours.
    pub mean_hours: f64,
}

impl Stretches {
    fn of(mut hours: Vec<f64>) -> Stretches {
        if hours.is_empty() {
            return Stretches::default();
        }
        hours.sort_by(f64::total_cmp);
        Stretches {
            count: hours.len() as u32,
            median_hours: percentile(&hours, 0.5),
            p90_hours: percentile(&hours, 0.9),
            mean_hours: hours.iter().sum::<f64>() / hours.len() as f64,
        }
    }
}

/// The model's parameters fitted to a trace.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Fitted {
    /// Preemptions per running hour (preemptions / running hours).
    pub rate_per_hour: f64,
    /// Mean gap without capacity after a preemption, hours.
    pub gap_mean_hours: f64,
    /// Share of time an instance runs.
    pub availability: f64,
    /// Mean wait for an instance at a job's start, over every tick as a start, hours.
    pub start_wait_mean_hours: f64,
}

/// What a trace holds, as the user should see it before trusting it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceStats {
    /// The file.
    pub name: String,
    /// Samples read.
    pub ticks: u64,
    /// Seconds per tick.
    pub tick_seconds: f64,
    /// Hours covered.
    pub hours: f64,
    /// Steps from running to no instance.
    pub preemptions: u32,
    /// Hours with an instance running.
    pub running_hours: f64,
    /// Share of the time with an instance running.
    pub running_share: f64,
    /// Preemptions per hour of wall clock.
    pub per_wall_hour: f64,
    /// Preemptions per hour of running.
    pub per_running_hour: f64,
    /// Stretches with an instance running.
    pub spells: Stretches,
    /// Stretches without one.
    pub gaps: Stretches,
    /// The model's parameters fitted from it.
    pub fitted: Fitted,
}

impl Trace {
    /// Checks a trace that did not come from [`parse_trace`] (one saved in a scenario): the
    /// same limits the file readers apply.
    pub fn validate(&self) -> Result<(), TraceError> {
        check_tick(self.tick_seconds)?;
        if self.spans.is_empty() || self.ticks == 0 {
            return Err(TraceError::Empty);
        }
        if self.spans.len() > MAX_TRACE_TICKS || self.ticks > MAX_TRACE_TICKS as u64 {
            return Err(TraceError::TooManyTicks {
                max: MAX_TRACE_TICKS,
            });
        }
        if let Some((i, s)) = self
            .spans
            .iter()
            .enumerate()
            .find(|(_, s)| !(s.seconds.is_finite() && s.seconds > 0.0))
        {
            return Err(TraceError::BadTick {
                value: format!("spans[{i}].seconds = {}", s.seconds),
            });
        }
        if self.hours() > MAX_TRACE_HOURS {
            return Err(TraceError::TooLong {
                max: MAX_TRACE_HOURS,
            });
        }
        if !self.spans.iter().any(Span::running) {
            return Err(TraceError::NeverRunning);
        }
        Ok(())
    }

    /// Total length, hours.
    pub fn hours(&self) -> f64 {
        self.spans.iter().map(Span::hours).sum()
    }

    /// Running and non-running stretches in order (adjacent spans with different non-zero
    /// counts merged): `(running, hours)`.
    pub fn stretches(&self) -> Vec<(bool, f64)> {
        let mut out: Vec<(bool, f64)> = Vec::new();
        for s in &self.spans {
            match out.last_mut() {
                Some((r, h)) if *r == s.running() => *h += s.hours(),
                _ => out.push((s.running(), s.hours())),
            }
        }
        out
    }

    /// The mean wait for an instance over starts at every tick, wrapping around at the end:
    /// a start inside a gap waits for the rest of it.
    fn start_wait_mean(&self, stretches: &[(bool, f64)]) -> f64 {
        let total = self.hours();
        if total <= 0.0 {
            return 0.0;
        }
        let mut gaps: Vec<f64> = stretches
            .iter()
            .filter(|&&(running, _)| !running)
            .map(|&(_, hours)| hours)
            .collect();
        // Gaps that wrap around the end join the leading gap.
        if let [(false, _), .., (false, _)] = stretches {
            let last = gaps.pop().unwrap_or(0.0);
            if let Some(first) = gaps.first_mut() {
                *first += last;
            }
        }
        // A uniform start inside a gap of length g waits g/2 on average: the mean over the
        // whole trace is the sum of g^2/2 over the total.
        gaps.iter().map(|g| g * g / 2.0).sum::<f64>() / total
    }

    /// What the trace holds and the model's parameters fitted to it.
    pub fn stats(&self) -> TraceStats {
        let stretches = self.stretches();
        let hours = self.hours();
        let running_hours: f64 = stretches.iter().filter(|s| s.0).map(|s| s.1).sum();
        // A preemption is a running stretch followed by a gap: the gaps after one.
        let gaps_after: Vec<f64> = stretches
            .iter()
            .zip(stretches.iter().skip(1))
            .filter(|&(&(before, _), &(after, _))| before && !after)
            .map(|(_, &(_, gap))| gap)
            .collect();
        let preemptions = gaps_after.len() as u32;
        let gap_mean = if gaps_after.is_empty() {
            0.0
        } else {
            gaps_after.iter().sum::<f64>() / gaps_after.len() as f64
        };
        let per_running_hour = if running_hours > 0.0 {
            f64::from(preemptions) / running_hours
        } else {
            0.0
        };
        TraceStats {
            name: self.name.clone(),
            ticks: self.ticks,
            tick_seconds: self.tick_seconds,
            hours,
            preemptions,
            running_hours,
            running_share: if hours > 0.0 {
                running_hours / hours
            } else {
                0.0
            },
            per_wall_hour: if hours > 0.0 {
                f64::from(preemptions) / hours
            } else {
                0.0
            },
            per_running_hour,
            spells: Stretches::of(stretches.iter().filter(|s| s.0).map(|s| s.1).collect()),
            gaps: Stretches::of(stretches.iter().filter(|s| !s.0).map(|s| s.1).collect()),
            fitted: Fitted {
                rate_per_hour: per_running_hour,
                gap_mean_hours: gap_mean,
                availability: if hours > 0.0 {
                    running_hours / hours
                } else {
                    0.0
                },
                start_wait_mean_hours: self.start_wait_mean(&stretches),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dataset_json_is_read_run_length_encoded() {
        let t = parse_trace(
            "t.json",
            r#"{"metadata": {"gap_seconds": 60}, "data": [0, 1, 1, 2, 0, 0, 1], "prices": [1]}"#,
        )
        .unwrap();
        assert_eq!(t.ticks, 7);
        assert_eq!(t.tick_seconds, 60.0);
        let counts: Vec<(u32, f64)> = t.spans.iter().map(|s| (s.count, s.seconds)).collect();
        assert_eq!(
            counts,
            [(0, 60.0), (1, 120.0), (2, 60.0), (0, 120.0), (1, 60.0)]
        );
        let s = t.stats();
        assert_eq!(s.preemptions, 1);
        assert!((s.running_hours - 4.0 / 60.0).abs() < 1e-12);
        assert_eq!(s.spells.count, 2);
        assert_eq!(s.gaps.count, 2);
        assert!((s.fitted.gap_mean_hours - 2.0 / 60.0).abs() < 1e-12);
        assert!((s.fitted.rate_per_hour - 15.0).abs() < 1e-9);
        // Gaps of 1 and 2 minutes, the first joined with nothing at the end (last tick runs):
        // (1^2 + 2^2) / 2 / 7 minutes.
        assert!((s.fitted.start_wait_mean_hours - 2.5 / 7.0 / 60.0).abs() < 1e-12);
    }

    #[test]
    fn bad_traces_are_refused_with_where_and_why() {
        let json = |data: &str| format!(r#"{{"metadata": {{"gap_seconds": 30}}, "data": {data}}}"#);
        let code = |text: &str| parse_trace("x", text).unwrap_err();
        assert_eq!(code(&json("[]")), TraceError::Empty);
        assert_eq!(code(&json("[0, 0, 0]")), TraceError::NeverRunning);
        assert_eq!(
            code(&json("[1, -1, 0]")),
            TraceError::BadCount {
                at: "data[1]".into(),
                value: "-1".into()
            }
        );
        assert_eq!(
            code(&json("[1, 0.5]")),
            TraceError::BadCount {
                at: "data[1]".into(),
                value: "0.5".into()
            }
        );
        assert!(matches!(
            code(&json(r#"[1, "1"]"#)),
            TraceError::BadCount { .. }
        ));
        assert!(matches!(code(&json(r#""x""#)), TraceError::Json(_)));
        assert!(matches!(
            code(r#"{"metadata": {"gap_seconds": 0}, "data": [1]}"#),
            TraceError::BadTick { .. }
        ));
        assert!(matches!(
            code(r#"{"metadata": {"gap_seconds": "30"}, "data": [1]}"#),
            TraceError::Json(_)
        ));
        assert!(matches!(code(r#"{"data": [1]}"#), TraceError::Json(_)));
        assert_eq!(code(""), TraceError::Empty);
        assert_eq!(
            code("0,1\n10,2.5\n"),
            TraceError::BadCount {
                at: "line 2".into(),
                value: "2.5".into()
            }
        );
        assert_eq!(
            code("0,1\n10,1\n5,0\n"),
            TraceError::NotIncreasing { line: 3 }
        );
        assert_eq!(
            code("time,count\n0,1\nlater,0\n"),
            TraceError::BadTimestamp {
                line: 3,
                value: "later".into()
            }
        );
        assert_eq!(code("0\n"), TraceError::BadRow { line: 1 });
        assert_eq!(code("0,0\n10,0\n"), TraceError::NeverRunning);
        let big = "0".repeat(MAX_TRACE_BYTES + 1);
        assert!(matches!(code(&big), TraceError::TooLarge { .. }));
    }

    #[test]
    fn a_csv_log_of_changes_reads_like_the_json() {
        let csv = "timestamp,count\n\
                   2023-04-22T00:00:00Z,1\n\
                   2023-04-22T02:00:00Z,0\n\
                   2023-04-22T02:30:00Z,1\n\
                   2023-04-22T03:00:00Z,1\n";
        let t = parse_trace("log.csv", csv).unwrap();
        assert_eq!(t.ticks, 3);
        assert_eq!(t.spans.len(), 3);
        assert_eq!(t.hours(), 3.0);
        let s = t.stats();
        assert_eq!(s.preemptions, 1);
        assert_eq!(s.fitted.gap_mean_hours, 0.5);
        assert_eq!(s.fitted.rate_per_hour, 0.4);
        let seconds = parse_trace("s.csv", "0,1\n7200,0\n9000,1\n10800,1\n").unwrap();
        assert_eq!(seconds.spans, t.spans);
    }
}
