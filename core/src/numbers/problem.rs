//! Why a value or a document was refused, as data: a stable code and the figures that make it
//! concrete. The CLI prints the English wording (`Display`); the site words the same codes in
//! Chinese or English, so no refusal reaches a user in a language they did not choose.

use thiserror::Error;

/// What is wrong with one value.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Problem {
    /// Nothing was given where a value is needed.
    #[error("is required")]
    Required,
    /// A number outside `min..=max` (or not a number at all).
    #[error("must be between {min} and {max}")]
    OutOfRange {
        /// The smallest accepted value.
        min: f64,
        /// The largest accepted value.
        max: f64,
    },
    /// A number that must be above zero, up to `max`.
    #[error("must be greater than 0 and at most {max}")]
    AboveZero {
        /// The largest accepted value.
        max: f64,
    },
    /// A probability, from 0 up to but not including 1.
    #[error("must be a probability from 0 up to (not including) 1")]
    Probability,
    /// A rate that must be a positive number.
    #[error("must be a positive number")]
    Positive,
    /// Text that is not a number.
    #[error("{value:?} is not a valid number")]
    NotANumber {
        /// What was given.
        value: String,
    },
    /// NaN or infinity.
    #[error("{value} is not a finite number")]
    NotFinite {
        /// What was given.
        value: String,
    },
    /// A name outside a fixed list.
    #[error("{value:?} is not one of {allowed}")]
    NotOneOf {
        /// What was given.
        value: String,
        /// The accepted names, comma-separated.
        allowed: String,
    },
    /// A GPU model the spec table does not know.
    #[error("{name:?} is not in the GPU spec table")]
    UnknownGpu {
        /// The name given.
        name: String,
    },
    /// A place the place table does not know.
    #[error("{name:?} is not a known place (gpufare places lists them)")]
    UnknownPlace {
        /// The name given.
        name: String,
    },
    /// A document written by a newer gpufare.
    #[error("version {found} is newer than this gpufare supports (up to {max})")]
    NewerVersion {
        /// The version in the document.
        found: u64,
        /// The newest this build reads.
        max: u32,
    },
    /// A value that must be at least another field's (a P99 below its median).
    #[error("must be at least {other} and at most {max}")]
    BelowOther {
        /// The field it must not be below.
        other: String,
        /// The largest accepted value.
        max: f64,
    },
    /// A reserved offer without a term of 1 to 120 months.
    #[error("a reserved offer needs a term of 1 to 120 months")]
    ReservedTerm,
    /// A metered offer without a billing granularity.
    #[error("a pay-as-you-go or spot offer needs second, minute or hour")]
    MeteredGranularity,
    /// A dedicated offer that rents less than whole GPUs.
    #[error("a dedicated offer rents whole GPUs (fraction 1)")]
    DedicatedWhole,
    /// More than one form of an interruption rate in one offer.
    #[error("give the interruption rate in one form only: per hour, MTBI or per month")]
    OneRateForm,
    /// An offer's fallback names no uninterruptible offer of the catalog.
    #[error("names {id:?}, which is not an uninterruptible offer of the catalog")]
    FallbackNotFound {
        /// The id given.
        id: String,
    },
    /// A low or high end of a range on the wrong side of the central value.
    #[error("the range must hold the rate: low <= rate <= high")]
    RangeOrder,
    /// A price date that is not a day or a month.
    #[error("{value:?} is not a date: write YYYY-MM-DD, or YYYY-MM when the source gives no day")]
    NotADate {
        /// What was given.
        value: String,
    },
    /// A field or column the format does not have (a typo would otherwise drop a value
    /// silently).
    #[error("is not a field of this format{}", suggestion.as_ref().map(|s| format!(" (did you mean {s:?}?)")).unwrap_or_default())]
    UnknownField {
        /// The closest known name, when one is close.
        suggestion: Option<String>,
    },
    /// A field needed because another one was given (a queue's spread needs its median).
    #[error("is required when {other} is given")]
    RequiredWith {
        /// The field that needs it.
        other: String,
    },
    /// An estimate flag that contradicts the stated evidence.
    #[error("an estimated price has evidence \"estimate\", and only an estimated one")]
    EstimateEvidence,
}

impl Problem {
    /// A stable identifier for the kind of problem, for translated messages.
    pub fn code(&self) -> &'static str {
        match self {
            Problem::Required => "required",
            Problem::OutOfRange { .. } => "out_of_range",
            Problem::AboveZero { .. } => "above_zero",
            Problem::Probability => "probability",
            Problem::Positive => "positive",
            Problem::NotANumber { .. } => "not_a_number",
            Problem::NotFinite { .. } => "not_finite",
            Problem::NotOneOf { .. } => "not_one_of",
            Problem::UnknownGpu { .. } => "unknown_gpu",
            Problem::UnknownPlace { .. } => "unknown_place",
            Problem::NewerVersion { .. } => "newer_version",
            Problem::BelowOther { .. } => "below_other",
            Problem::RequiredWith { .. } => "required_with",
            Problem::ReservedTerm => "reserved_term",
            Problem::MeteredGranularity => "metered_granularity",
            Problem::DedicatedWhole => "dedicated_whole",
            Problem::OneRateForm => "one_rate_form",
            Problem::RangeOrder => "range_order",
            Problem::FallbackNotFound { .. } => "fallback_not_found",
            Problem::NotADate { .. } => "not_a_date",
            Problem::UnknownField { .. } => "unknown_field",
            Problem::EstimateEvidence => "estimate_evidence",
        }
    }
}

/// The name in `known` closest to `name` by edit distance, when it is close enough to be a typo
/// of it (at most two edits, and fewer than half the name's letters).
pub fn closest_name<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let name = name.trim().to_ascii_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for candidate in known {
        let d = edit_distance(&name, &candidate.to_ascii_lowercase());
        if best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    best.filter(|(d, _)| *d <= 2 && *d * 2 < name.chars().count().max(1))
        .map(|(_, c)| c.to_owned())
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let value = (diagonal + usize::from(ca != *cb))
                .min(above.saturating_add(1))
                .min(left.saturating_add(1));
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// A field and what is wrong with it. The field is named as in the document's JSON form (a
/// nested one with dots: `latency.p99_ms`).
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{field}: {problem}")]
pub struct FieldError {
    /// The field at fault.
    pub field: String,
    /// What is wrong.
    pub problem: Problem,
}

impl FieldError {
    /// `problem` with `field`.
    pub fn new(field: &str, problem: Problem) -> FieldError {
        FieldError {
            field: field.to_owned(),
            problem,
        }
    }
}

/// What kind of fault a JSON reader found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonFault {
    /// Not JSON: a stray character, a missing comma or quote.
    Syntax,
    /// The text ends in the middle of a value.
    Truncated,
    /// A field the document must have is missing.
    MissingField {
        /// Its name.
        name: String,
    },
    /// A name outside the allowed list (an enum value).
    UnknownVariant {
        /// The value found.
        value: String,
    },
    /// A value of the wrong type (text where a number belongs, ...).
    WrongType,
    /// Anything else the reader reported.
    Other,
}

/// Where and why a JSON document could not be read, with the reader's own words kept as a
/// technical detail.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}, column {column}: {detail}")]
pub struct JsonProblem {
    /// 1-based line of the first fault.
    pub line: usize,
    /// 1-based column of the first fault.
    pub column: usize,
    /// The kind of fault.
    pub fault: JsonFault,
    /// The reader's description, without the position.
    pub detail: String,
}

impl From<serde_json::Error> for JsonProblem {
    fn from(e: serde_json::Error) -> JsonProblem {
        let full = e.to_string();
        // serde_json appends " at line L column C"; the position is kept in its own fields.
        let detail = match full.rfind(" at line ") {
            Some(i) => full.get(..i).unwrap_or(&full).to_owned(),
            None => full,
        };
        let quoted = |prefix: &str| {
            let rest = detail.strip_prefix(prefix)?;
            let rest = rest.strip_prefix('`')?;
            Some(rest.split('`').next()?.to_owned())
        };
        let fault = if let Some(name) = quoted("missing field ") {
            JsonFault::MissingField { name }
        } else if let Some(value) = quoted("unknown variant ") {
            JsonFault::UnknownVariant { value }
        } else if e.is_eof() {
            JsonFault::Truncated
        } else if e.is_syntax() {
            JsonFault::Syntax
        } else if detail.starts_with("invalid type") || detail.starts_with("invalid value") {
            JsonFault::WrongType
        } else {
            JsonFault::Other
        };
        JsonProblem {
            line: e.line(),
            column: e.column(),
            fault,
            detail,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_is_matched_to_the_name_it_misspells_and_nothing_far_is() {
        let known = ["price", "price_evidence", "as_of", "notice_seconds"];
        assert_eq!(closest_name("prce", known).as_deref(), Some("price"));
        assert_eq!(closest_name("Price", known).as_deref(), Some("price"));
        assert_eq!(closest_name("asof", known).as_deref(), Some("as_of"));
        assert_eq!(closest_name("notice_secs", known), None);
        assert_eq!(closest_name("colour", known), None);
        assert_eq!(closest_name("", known), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    fn problem(text: &str) -> JsonProblem {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Doc {
            name: String,
            kind: Kind,
            n: u32,
        }
        #[derive(Debug, serde::Deserialize)]
        enum Kind {
            #[serde(rename = "a")]
            A,
        }
        serde_json::from_str::<Doc>(text).unwrap_err().into()
    }

    #[test]
    fn json_faults_are_classified_with_their_position() {
        let p = problem("{\"name\": \"x\", \"kind\": \"a\"}");
        assert_eq!(
            p.fault,
            JsonFault::MissingField {
                name: "n".to_owned()
            }
        );
        assert_eq!((p.line, p.column), (1, 26));
        assert!(!p.detail.contains("at line"));
        assert_eq!(
            problem("{\"name\": \"x\", \"kind\": \"b\", \"n\": 1}").fault,
            JsonFault::UnknownVariant {
                value: "b".to_owned()
            }
        );
        assert_eq!(problem("{\"name\": 3").fault, JsonFault::WrongType);
        assert_eq!(problem("{\"name\": ").fault, JsonFault::Truncated);
        assert_eq!(problem("{name}").fault, JsonFault::Syntax);
    }

    #[test]
    fn english_wording_names_the_limits() {
        let e = FieldError::new(
            "runs",
            Problem::OutOfRange {
                min: 1.0,
                max: 10000.0,
            },
        );
        assert_eq!(e.to_string(), "runs: must be between 1 and 10000");
        assert_eq!(e.problem.code(), "out_of_range");
    }
}
