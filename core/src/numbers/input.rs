//! Turning what a person typed into a checked number.
//!
//! The site and the CLI both hand raw text to [`parse_decimal`], so both refuse the same inputs
//! with the same reasons. Each reason has a stable [`InputError::code`] that the site translates.

use std::str::FromStr;

use rust_decimal::Decimal;
use thiserror::Error;

/// Why a typed number was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InputError {
    /// Nothing was typed.
    #[error("a number is required")]
    Empty,
    /// The text is not a plain decimal number.
    #[error("{input:?} is not a number")]
    NotANumber {
        /// What was typed.
        input: String,
    },
    /// NaN or infinity: the value has no meaning as a quantity.
    #[error("{input:?} is not a finite number")]
    NotFinite {
        /// What was typed.
        input: String,
    },
    /// Below zero where only zero or more makes sense.
    #[error("must not be negative")]
    Negative,
    /// Beyond the largest value gpufare accepts for this quantity.
    #[error("must be at most {max}")]
    TooLarge {
        /// The largest accepted value.
        max: Decimal,
    },
}

impl InputError {
    /// A stable identifier for the reason, used by the site to pick a translated message.
    pub fn code(&self) -> &'static str {
        match self {
            InputError::Empty => "empty",
            InputError::NotANumber { .. } => "not_a_number",
            InputError::NotFinite { .. } => "not_finite",
            InputError::Negative => "negative",
            InputError::TooLarge { .. } => "too_large",
        }
    }
}

/// Parses typed text as a decimal in `0..=max`.
///
/// Accepts an optional sign, digits, one `.` and surrounding spaces (`" 2.50 "`), and also a
/// full-width period or digits typed through a Chinese input method. Rejects exponents, `NaN`,
/// `inf`, thousands separators and anything else, each with its own reason.
pub fn parse_decimal(text: &str, max: Decimal) -> Result<Decimal, InputError> {
    let normalised: String = text
        .trim()
        .chars()
        .map(|c| match c {
            '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32).unwrap_or(c),
            '．' | '。' => '.',
            '－' => '-',
            other => other,
        })
        .collect();
    if normalised.is_empty() {
        return Err(InputError::Empty);
    }
    let lower = normalised.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "nan" | "inf" | "infinity") {
        return Err(InputError::NotFinite {
            input: text.to_owned(),
        });
    }
    let well_formed = {
        let body = normalised.strip_prefix(['+', '-']).unwrap_or(&normalised);
        let mut dots = 0;
        !body.is_empty()
            && body != "."
            && body.chars().all(|c| {
                if c == '.' {
                    dots += 1;
                    true
                } else {
                    c.is_ascii_digit()
                }
            })
            && dots <= 1
    };
    if !well_formed {
        return Err(InputError::NotANumber {
            input: text.to_owned(),
        });
    }
    // Too many digits for a 96-bit mantissa is "absurdly large" unless it is a tiny fraction.
    let value = match Decimal::from_str(&normalised) {
        Ok(v) => v,
        Err(_) => {
            let negative = normalised.starts_with('-');
            let int_part = normalised
                .trim_start_matches(['+', '-'])
                .split('.')
                .next()
                .unwrap_or("");
            if negative {
                return Err(InputError::Negative);
            }
            if int_part.trim_start_matches('0').len() > 20 {
                return Err(InputError::TooLarge { max });
            }
            // A long fraction: keep the 28 significant digits Decimal can carry.
            Decimal::from_str_exact(&normalised)
                .or_else(|_| rounded_fraction(&normalised))
                .map_err(|_| InputError::NotANumber {
                    input: text.to_owned(),
                })?
        }
    };
    check_range(value, max)
}

/// Checks a decimal against `0..=max`.
pub fn check_range(value: Decimal, max: Decimal) -> Result<Decimal, InputError> {
    check_bounds(value, max)?;
    Ok(value.normalize())
}

/// The checks of [`check_range`] without the normalised value.
pub fn check_bounds(value: Decimal, max: Decimal) -> Result<(), InputError> {
    if value.is_sign_negative() && !value.is_zero() {
        return Err(InputError::Negative);
    }
    if value > max {
        return Err(InputError::TooLarge { max });
    }
    Ok(())
}

/// Converts a float (from JSON or a number field) to a decimal in `0..=max`.
pub fn decimal_from_f64(value: f64, max: Decimal) -> Result<Decimal, InputError> {
    if !value.is_finite() {
        return Err(InputError::NotFinite {
            input: value.to_string(),
        });
    }
    if value < 0.0 {
        return Err(InputError::Negative);
    }
    // Going through the shortest round-trip text keeps 0.1 as 0.1, not 0.1000000000000000055...
    match Decimal::from_str(&value.to_string()) {
        Ok(v) => check_range(v, max),
        Err(_) => Err(InputError::TooLarge { max }),
    }
}

fn rounded_fraction(text: &str) -> Result<Decimal, rust_decimal::Error> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let keep = 28usize
        .saturating_sub(int.trim_start_matches(['+', '-']).len())
        .min(frac.len());
    Decimal::from_str(&format!("{int}.{}", frac.get(..keep).unwrap_or(frac)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn max() -> Decimal {
        Decimal::from(1000)
    }

    #[test]
    fn accepts_plain_decimals() {
        for (text, want) in [
            ("2.5", "2.5"),
            (" 10 ", "10"),
            ("0", "0"),
            ("-0", "0"),
            ("+3.25", "3.25"),
            (".5", "0.5"),
            ("7.", "7"),
            ("１．５", "1.5"),
            ("1000", "1000"),
            ("0.0000000000000000000000000000001", "0"),
        ] {
            assert_eq!(
                parse_decimal(text, max()).unwrap().to_string(),
                want,
                "input {text:?}"
            );
        }
    }

    #[test]
    fn refuses_each_bad_input_with_its_reason() {
        for (text, code) in [
            ("", "empty"),
            ("   ", "empty"),
            ("abc", "not_a_number"),
            ("1e3", "not_a_number"),
            ("1,5", "not_a_number"),
            ("1.2.3", "not_a_number"),
            (".", "not_a_number"),
            ("-", "not_a_number"),
            ("NaN", "not_finite"),
            ("-inf", "not_finite"),
            ("Infinity", "not_finite"),
            ("-1", "negative"),
            ("-0.01", "negative"),
            ("1000.01", "too_large"),
            ("99999999999999999999999999999999999", "too_large"),
            ("-99999999999999999999999999999999999", "negative"),
        ] {
            assert_eq!(
                parse_decimal(text, max()).unwrap_err().code(),
                code,
                "input {text:?}"
            );
        }
    }

    #[test]
    fn floats_are_checked_too() {
        assert_eq!(
            decimal_from_f64(f64::NAN, max()).unwrap_err().code(),
            "not_finite"
        );
        assert_eq!(
            decimal_from_f64(f64::INFINITY, max()).unwrap_err().code(),
            "not_finite"
        );
        assert_eq!(
            decimal_from_f64(-1.0, max()).unwrap_err().code(),
            "negative"
        );
        assert_eq!(
            decimal_from_f64(1e300, max()).unwrap_err().code(),
            "too_large"
        );
        assert_eq!(decimal_from_f64(0.1, max()).unwrap().to_string(), "0.1");
    }
}
