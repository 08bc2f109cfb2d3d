//! Traffic: requests per second for each hour of a day (24 values) or a week (168 values), the
//! prompt and output tokens of a request (mean and P90), and the latency targets (time to first
//! token and time per output token, P99).
//!
//! Presets ([`steady_api`], [`office_hours`], [`bursty_demo`]) take the mean rate; their token
//! figures are the Azure 2023 conversation trace's (Azure/AzurePublicDataset
//! `data/AzureLLMInferenceTrace_conv.csv` @ b469a11, CC-BY: prompt mean 1155 / P90 2734 tokens,
//! output mean 211 / P90 424), and their targets ([`DEFAULT_TTFT_P99_MS`],
//! [`DEFAULT_TPOT_P99_MS`]) are assumptions for an interactive API. The office-hours curve peaks
//! at 2.8x its mean, as the Azure 2024 code trace peaks at about 3x (same repository,
//! `analysis/AzureLLMInferenceDataset2024.ipynb`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::problem::{FieldError, Problem, closest_name};

/// Why traffic was refused: a field out of its range, or a line of a traffic CSV.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TrafficError {
    /// A field holds a value the model cannot use.
    #[error("traffic field {}: {}", .0.field, .0.problem)]
    Field(FieldError),
    /// A line of a traffic CSV is wrong (1-based line number).
    #[error("traffic CSV line {line}: {}: {}", .error.field, .error.problem)]
    Line {
        /// 1-based line of the fault (the last line for a wrong row count).
        line: usize,
        /// The column at fault and what is wrong with it.
        error: FieldError,
    },
}

impl TrafficError {
    /// The field at fault, as named in the JSON form (a CSV's column).
    pub fn field(&self) -> Option<&str> {
        match self {
            TrafficError::Field(e) | TrafficError::Line { error: e, .. } => Some(&e.field),
        }
    }

    /// A stable identifier of the kind of refusal, for translated messages.
    pub fn code(&self) -> &'static str {
        match self {
            TrafficError::Field(e) | TrafficError::Line { error: e, .. } => e.problem.code(),
        }
    }
}

impl From<FieldError> for TrafficError {
    fn from(e: FieldError) -> TrafficError {
        TrafficError::Field(e)
    }
}

/// The largest rate an hour may hold, requests per second.
pub const MAX_RPS: f64 = 100_000.0;
/// The most tokens a prompt or an output may average.
pub const MAX_TOKENS: f64 = 1_000_000.0;
/// The longest latency target, ms (an hour).
pub const MAX_TARGET_MS: f64 = 3_600_000.0;
/// The largest traffic CSV read, bytes.
pub const MAX_TRAFFIC_CSV_BYTES: usize = 64 * 1024;
/// The most lines a traffic CSV may have (comments and blank lines included).
pub const MAX_TRAFFIC_CSV_LINES: usize = 2_000;
/// Time-to-first-token P99 target of the presets, ms: an assumption for an interactive API.
pub const DEFAULT_TTFT_P99_MS: f64 = 2_000.0;
/// Time-per-output-token P99 target of the presets, ms (at least 10 tokens/s, faster than
/// reading): an assumption.
pub const DEFAULT_TPOT_P99_MS: f64 = 100.0;
/// Lengths a curve may have: a day or a week of hours.
pub const CURVE_HOURS: [usize; 2] = [24, 168];

/// The mean and P90 of a token count per request.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Tokens {
    /// Mean tokens per request.
    pub mean: f64,
    /// 90th percentile of tokens per request.
    pub p90: f64,
}

/// Latency targets, met by 99 % of requests.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Targets {
    /// Time to first token, P99, ms.
    pub ttft_p99_ms: f64,
    /// Time per output token after the first, P99, ms.
    pub tpot_p99_ms: f64,
}

/// A service's traffic: rates by hour, request sizes and latency targets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Traffic {
    /// A name to show.
    pub name: String,
    /// Requests per second for each hour: 24 (a day, repeated) or 168 (a week, repeated).
    pub rps_by_hour: Vec<f64>,
    /// Prompt (input) tokens per request.
    pub prompt_tokens: Tokens,
    /// Output tokens per request.
    pub output_tokens: Tokens,
    /// Latency targets.
    pub targets: Targets,
}

/// The Azure 2023 conversation trace's prompt tokens (mean, P90).
pub const CONVERSATION_PROMPT: Tokens = Tokens {
    mean: 1155.0,
    p90: 2734.0,
};
/// The Azure 2023 conversation trace's output tokens (mean, P90).
pub const CONVERSATION_OUTPUT: Tokens = Tokens {
    mean: 211.0,
    p90: 424.0,
};
/// The presets' targets.
pub const DEFAULT_TARGETS: Targets = Targets {
    ttft_p99_ms: DEFAULT_TTFT_P99_MS,
    tpot_p99_ms: DEFAULT_TPOT_P99_MS,
};

/// Relative weekday load by hour (mean 1.08, peak 3.0, so 2.8x the mean): low at night, rising
/// from 8 h, peaks late morning and mid-afternoon, a dip at lunch.
const OFFICE_SHAPE: [f64; 24] = [
    0.08, 0.08, 0.08, 0.08, 0.08, 0.08, 0.2, 0.5, 1.4, 2.4, 3.0, 3.0, 2.4, 2.8, 3.0, 2.6, 1.8, 1.0,
    0.5, 0.3, 0.2, 0.15, 0.1, 0.08,
];

/// A demo service: nearly idle, with two short peaks (10 h and 15 h).
const BURSTY_SHAPE: [f64; 24] = [
    0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 1.0, 0.2, 0.02, 0.02, 0.02, 0.6,
    0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02,
];

/// The presets' identifiers.
pub const TRAFFIC_PRESETS: [&str; 3] = ["steady_api", "office_hours", "bursty_demo"];

fn shaped(name: &str, shape: &[f64], mean_rps: f64) -> Traffic {
    let mean_shape = shape.iter().sum::<f64>() / (shape.len().max(1) as f64);
    let scale = if mean_shape > 0.0 {
        mean_rps / mean_shape
    } else {
        0.0
    };
    Traffic {
        name: name.to_owned(),
        rps_by_hour: shape.iter().map(|s| s * scale).collect(),
        prompt_tokens: CONVERSATION_PROMPT,
        output_tokens: CONVERSATION_OUTPUT,
        targets: DEFAULT_TARGETS,
    }
}

/// A flat API: `mean_rps` every hour.
pub fn steady_api(mean_rps: f64) -> Traffic {
    shaped("steady_api", &[1.0; 24], mean_rps)
}

/// A weekday curve averaging `mean_rps`: low at night, a mid-day peak of 2.8x the mean.
pub fn office_hours(mean_rps: f64) -> Traffic {
    shaped("office_hours", &OFFICE_SHAPE, mean_rps)
}

/// A demo averaging `mean_rps`: mostly idle, with short peaks (the top hour 11x the mean).
pub fn bursty_demo(mean_rps: f64) -> Traffic {
    shaped("bursty_demo", &BURSTY_SHAPE, mean_rps)
}

/// The preset named `id` ([`TRAFFIC_PRESETS`]) averaging `mean_rps`, validated.
pub fn traffic_preset(id: &str, mean_rps: f64) -> Result<Traffic, TrafficError> {
    let traffic = match id.trim() {
        "steady_api" => steady_api(mean_rps),
        "office_hours" => office_hours(mean_rps),
        "bursty_demo" => bursty_demo(mean_rps),
        other => {
            return Err(FieldError::new(
                "preset",
                Problem::NotOneOf {
                    value: other.to_owned(),
                    allowed: TRAFFIC_PRESETS.join(", "),
                },
            )
            .into());
        }
    };
    traffic.validate()?;
    Ok(traffic)
}

fn check(field: &str, v: f64, min: f64, max: f64) -> Result<(), FieldError> {
    if v.is_finite() && v >= min && v <= max {
        Ok(())
    } else {
        Err(FieldError::new(field, Problem::OutOfRange { min, max }))
    }
}

fn curve_length(count: usize) -> Problem {
    Problem::NotOneOf {
        value: format!("{count} values"),
        allowed: "24 (a day) or 168 (a week)".to_owned(),
    }
}

impl Traffic {
    /// Checks every field, naming the one at fault (`rps_by_hour[7]`, `prompt_tokens.p90`, ...).
    pub fn validate(&self) -> Result<(), TrafficError> {
        if self.name.chars().count() > 200 {
            return Err(FieldError::new(
                "name",
                Problem::OutOfRange {
                    min: 0.0,
                    max: 200.0,
                },
            )
            .into());
        }
        if !CURVE_HOURS.contains(&self.rps_by_hour.len()) {
            return Err(
                FieldError::new("rps_by_hour", curve_length(self.rps_by_hour.len())).into(),
            );
        }
        for (i, v) in self.rps_by_hour.iter().enumerate() {
            check(&format!("rps_by_hour[{i}]"), *v, 0.0, MAX_RPS)?;
        }
        for (name, t) in [
            ("prompt_tokens", &self.prompt_tokens),
            ("output_tokens", &self.output_tokens),
        ] {
            check(&format!("{name}.mean"), t.mean, 1.0, MAX_TOKENS)?;
            check(&format!("{name}.p90"), t.p90, 1.0, MAX_TOKENS)?;
        }
        check(
            "targets.ttft_p99_ms",
            self.targets.ttft_p99_ms,
            0.001,
            MAX_TARGET_MS,
        )?;
        check(
            "targets.tpot_p99_ms",
            self.targets.tpot_p99_ms,
            0.001,
            MAX_TARGET_MS,
        )?;
        Ok(())
    }

    /// Hours in one period of the curve (24 or 168).
    pub fn period_hours(&self) -> usize {
        self.rps_by_hour.len()
    }

    /// The mean rate over the period, requests per second.
    pub fn mean_rps(&self) -> f64 {
        self.rps_by_hour.iter().sum::<f64>() / (self.rps_by_hour.len().max(1) as f64)
    }

    /// The highest hourly rate, requests per second.
    pub fn peak_rps(&self) -> f64 {
        self.rps_by_hour.iter().copied().fold(0.0, f64::max)
    }

    /// The same curve scaled to average `mean_rps` (unchanged when its mean is 0).
    pub fn scaled_to_mean(&self, mean_rps: f64) -> Traffic {
        let mean = self.mean_rps();
        let scale = if mean > 0.0 { mean_rps / mean } else { 1.0 };
        Traffic {
            rps_by_hour: self.rps_by_hour.iter().map(|v| v * scale).collect(),
            ..self.clone()
        }
    }

    /// Output tokens over a month of 730 hours at the mean rate.
    pub fn output_tokens_per_month(&self) -> f64 {
        self.mean_rps() * 3600.0 * crate::offers::billing::HOURS_PER_MONTH * self.output_tokens.mean
    }
}

fn parse_number(field: &str, text: &str) -> Result<f64, FieldError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(FieldError::new(field, Problem::Required));
    }
    let v: f64 = text.parse().map_err(|_| {
        FieldError::new(
            field,
            Problem::NotANumber {
                value: text.chars().take(40).collect(),
            },
        )
    })?;
    if !v.is_finite() {
        return Err(FieldError::new(
            field,
            Problem::NotFinite {
                value: text.chars().take(40).collect(),
            },
        ));
    }
    Ok(v)
}

/// Reads a traffic curve from CSV: one rate per line (`rps`), or `hour,rps` with the hours in
/// order from 0; a header line (`rps` or `hour,rps`) is optional, blank lines and lines starting
/// with `#` are skipped. It must hold 24 or 168 rows. The traffic gets the presets' token figures
/// and targets ([`CONVERSATION_PROMPT`], [`CONVERSATION_OUTPUT`], [`DEFAULT_TARGETS`]); set your
/// own after. Every error names the line (1-based) and the column. At most
/// [`MAX_TRAFFIC_CSV_BYTES`] bytes and [`MAX_TRAFFIC_CSV_LINES`] lines are read; any text is
/// answered, never a panic.
pub fn parse_traffic_csv(name: &str, text: &str) -> Result<Traffic, TrafficError> {
    let at = |line: usize, error: FieldError| TrafficError::Line { line, error };
    if text.len() > MAX_TRAFFIC_CSV_BYTES {
        return Err(FieldError::new(
            "text",
            Problem::OutOfRange {
                min: 0.0,
                max: MAX_TRAFFIC_CSV_BYTES as f64,
            },
        )
        .into());
    }
    let mut columns: Option<usize> = None;
    let mut rps = Vec::new();
    let mut last_line = 0;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if line > MAX_TRAFFIC_CSV_LINES {
            return Err(at(
                line,
                FieldError::new(
                    "lines",
                    Problem::OutOfRange {
                        min: 1.0,
                        max: MAX_TRAFFIC_CSV_LINES as f64,
                    },
                ),
            ));
        }
        let trimmed = raw.trim().trim_start_matches('\u{feff}');
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        last_line = line;
        let cells: Vec<&str> = trimmed.split(',').map(str::trim).collect();
        let first_is_name = cells.first().is_some_and(|c| {
            c.chars().any(|ch| ch.is_ascii_alphabetic()) && c.parse::<f64>().is_err()
        });
        if columns.is_none() && first_is_name {
            let names: Vec<String> = cells.iter().map(|c| c.to_ascii_lowercase()).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            match names.as_slice() {
                ["rps"] => columns = Some(1),
                ["hour", "rps"] => columns = Some(2),
                _ => {
                    let wrong = names
                        .iter()
                        .zip(["hour", "rps"])
                        .find(|(n, _)| !["hour", "rps"].contains(n))
                        .map(|(n, _)| *n)
                        .or_else(|| names.get(2).copied())
                        .unwrap_or("");
                    return Err(at(
                        line,
                        FieldError::new(
                            &wrong.chars().take(40).collect::<String>(),
                            Problem::UnknownField {
                                suggestion: closest_name(wrong, ["hour", "rps"]),
                            },
                        ),
                    ));
                }
            }
            continue;
        }
        let expected = *columns.get_or_insert(cells.len());
        if cells.len() != expected || !(1..=2).contains(&cells.len()) {
            return Err(at(
                line,
                FieldError::new(
                    "columns",
                    Problem::OutOfRange {
                        min: expected.clamp(1, 2) as f64,
                        max: expected.clamp(1, 2) as f64,
                    },
                ),
            ));
        }
        if rps.len() >= 168 {
            return Err(at(
                line,
                FieldError::new("rps", curve_length(rps.len() + 1)),
            ));
        }
        let value = match cells.as_slice() {
            [hour, value] => {
                let h = parse_number("hour", hour).map_err(|e| at(line, e))?;
                let want = rps.len() as f64;
                if h != want {
                    return Err(at(
                        line,
                        FieldError::new(
                            "hour",
                            Problem::OutOfRange {
                                min: want,
                                max: want,
                            },
                        ),
                    ));
                }
                value
            }
            [value] => value,
            _ => "",
        };
        let v = parse_number("rps", value).map_err(|e| at(line, e))?;
        check("rps", v, 0.0, MAX_RPS).map_err(|e| at(line, e))?;
        rps.push(v);
    }
    if !CURVE_HOURS.contains(&rps.len()) {
        return Err(at(
            last_line.max(1),
            FieldError::new("rps", curve_length(rps.len())),
        ));
    }
    let traffic = Traffic {
        name: name.chars().take(200).collect(),
        rps_by_hour: rps,
        prompt_tokens: CONVERSATION_PROMPT,
        output_tokens: CONVERSATION_OUTPUT,
        targets: DEFAULT_TARGETS,
    };
    traffic.validate()?;
    Ok(traffic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_shaped() {
        for id in TRAFFIC_PRESETS {
            let t = traffic_preset(id, 10.0).unwrap();
            assert!((t.mean_rps() - 10.0).abs() < 1e-9, "{id}");
        }
        let o = office_hours(10.0);
        let ratio = o.peak_rps() / o.mean_rps();
        assert!((2.5..=3.5).contains(&ratio), "{ratio}");
        assert!(o.rps_by_hour[3] < 0.1 * o.peak_rps());
        assert_eq!(steady_api(3.0).peak_rps(), 3.0);
        assert!(bursty_demo(1.0).peak_rps() > 8.0);
        assert_eq!(
            traffic_preset("nope", 1.0).unwrap_err().field(),
            Some("preset")
        );
    }

    #[test]
    fn validation_names_the_field() {
        let mut t = steady_api(1.0);
        t.rps_by_hour[5] = f64::NAN;
        assert_eq!(t.validate().unwrap_err().field(), Some("rps_by_hour[5]"));
        t.rps_by_hour.pop();
        assert_eq!(t.validate().unwrap_err().field(), Some("rps_by_hour"));
        let mut t = steady_api(1.0);
        t.prompt_tokens.p90 = -1.0;
        assert_eq!(t.validate().unwrap_err().field(), Some("prompt_tokens.p90"));
        let mut t = steady_api(1.0);
        t.targets.tpot_p99_ms = 0.0;
        assert_eq!(
            t.validate().unwrap_err().field(),
            Some("targets.tpot_p99_ms")
        );
        let mut t = steady_api(1.0);
        t.rps_by_hour[0] = MAX_RPS * 2.0;
        assert_eq!(t.validate().unwrap_err().field(), Some("rps_by_hour[0]"));
    }

    #[test]
    fn csv_reads_both_forms_and_names_the_line() {
        let one: String = (0..24).map(|h| format!("{h}.5\n")).collect();
        let t = parse_traffic_csv("x", &format!("rps\n{one}")).unwrap();
        assert_eq!(t.rps_by_hour.len(), 24);
        assert_eq!(t.rps_by_hour[2], 2.5);
        let two: String = (0..168).map(|h| format!("{h},{}\n", h % 5)).collect();
        let t = parse_traffic_csv("w", &format!("# a week\nhour,rps\n{two}")).unwrap();
        assert_eq!(t.rps_by_hour.len(), 168);
        let t = parse_traffic_csv("n", &two.replace("168", "x")).unwrap();
        assert_eq!(t.period_hours(), 168);

        let bad = one.replace("3.5", "abc");
        match parse_traffic_csv("x", &bad).unwrap_err() {
            TrafficError::Line { line, error } => {
                assert_eq!(line, 4);
                assert_eq!(error.field, "rps");
            }
            e => panic!("{e}"),
        }
        match parse_traffic_csv("x", &two.replace("\n7,", "\n8,")).unwrap_err() {
            TrafficError::Line { line, error } => {
                assert_eq!(line, 8);
                assert_eq!(error.field, "hour");
            }
            e => panic!("{e}"),
        }
        let e = parse_traffic_csv("x", "rps\n1\n2\n").unwrap_err();
        assert!(matches!(e, TrafficError::Line { line: 3, .. }), "{e}");
        let e = parse_traffic_csv("x", "hours,rps\n").unwrap_err();
        assert_eq!(e.field(), Some("hours"));
        assert!(e.to_string().contains("hour"), "{e}");
        let e = parse_traffic_csv("x", &one.replace("5.5", "-1")).unwrap_err();
        assert_eq!(e.field(), Some("rps"));
        let e = parse_traffic_csv("x", &one.replace("5.5", "inf")).unwrap_err();
        assert_eq!(e.code(), "not_finite");
        let e = parse_traffic_csv("x", &"1\n".repeat(200)).unwrap_err();
        assert!(matches!(e, TrafficError::Line { line: 169, .. }), "{e}");
        assert!(parse_traffic_csv("x", &"1\n".repeat(100_000)).is_err());
        assert!(parse_traffic_csv("x", "").is_err());
        assert!(parse_traffic_csv("x", "1,2,3\n").is_err());
    }
}
