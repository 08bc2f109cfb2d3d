//! Billing rules: what a provider charges for a run of a given length.
//!
//! Pay-as-you-go (按量付费) bills the running time rounded up to the provider's granularity
//! (AWS and most Chinese GPU platforms bill per second or per minute; some per started hour),
//! with a minimum billed time (AWS Linux instances: 60 s). A run of zero length is not billed.
//! Sources: `docs/sources.md` §1.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::numbers::input::{InputError, check_bounds, check_range, parse_decimal};
use crate::numbers::money::{Currency, Money};

/// The longest run gpufare prices: 100,000 hours (about 11.4 years). Anything beyond is a typo.
pub const MAX_RUN_HOURS: Decimal = Decimal::from_parts(100_000, 0, 0, false, 0);
/// The longest minimum billed time accepted, in seconds (`MAX_MINIMUM_MINUTES` x 60).
const MAX_MINIMUM_SECONDS: Decimal = Decimal::from_parts(31_536_000, 0, 0, false, 0);
/// The highest hourly price accepted: 1,000,000 per hour in either currency.
pub const MAX_PRICE_PER_HOUR: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);
/// The longest minimum billed time accepted, in minutes (one year of 8,760 hours).
pub const MAX_MINIMUM_MINUTES: Decimal = Decimal::from_parts(525_600, 0, 0, false, 0);

/// Hours in the month used by every monthly figure (the cloud calculators' convention).
pub const HOURS_PER_MONTH: f64 = 730.0;

const SECONDS_PER_HOUR: u64 = 3600;

/// The unit a provider rounds running time up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// Billed per started second.
    Second,
    /// Billed per started minute.
    Minute,
    /// Billed per started hour.
    Hour,
}

identifiers!(Granularity {
    Second => "second",
    Minute => "minute",
    Hour => "hour",
});

impl Granularity {
    /// Length of one billing unit in seconds.
    pub fn seconds(self) -> u64 {
        match self {
            Granularity::Second => 1,
            Granularity::Minute => 60,
            Granularity::Hour => 3600,
        }
    }
}

/// A pay-as-you-go price: a rate per hour, a billing granularity and a minimum billed time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayAsYouGo {
    /// List price per hour of running.
    pub price_per_hour: Money,
    /// The unit running time is rounded up to.
    pub granularity: Granularity,
    /// The least time billed for any run that starts, in seconds.
    pub minimum_seconds: u64,
}

/// What one run costs and how the billed time was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RentQuote {
    /// Running time rounded up to whole seconds.
    pub run_seconds: u64,
    /// Time billed after the minimum and the granularity.
    pub billed_seconds: u64,
    /// The exact rent; show it with [`Money::plain`] or [`Money::display`].
    pub rent: Money,
}

/// Why a rent could not be computed; names the offending input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BillingError {
    /// The run length is unusable.
    #[error("run length (hours): {0}")]
    Hours(InputError),
    /// The hourly price is unusable.
    #[error("price per hour: {0}")]
    Price(InputError),
    /// The minimum billed time is unusable.
    #[error("minimum billed time (minutes): {0}")]
    Minimum(InputError),
}

impl BillingError {
    /// The input the error is about: `hours`, `price` or `minimum`.
    pub fn field(&self) -> &'static str {
        match self {
            BillingError::Hours(_) => "hours",
            BillingError::Price(_) => "price",
            BillingError::Minimum(_) => "minimum",
        }
    }

    /// The underlying reason.
    pub fn reason(&self) -> &InputError {
        match self {
            BillingError::Hours(e) | BillingError::Price(e) | BillingError::Minimum(e) => e,
        }
    }
}

impl PayAsYouGo {
    /// Builds a plan from typed text: the price per hour and the minimum billed time in minutes.
    pub fn parse(
        price_per_hour: &str,
        currency: Currency,
        granularity: Granularity,
        minimum_minutes: &str,
    ) -> Result<PayAsYouGo, BillingError> {
        let price =
            parse_decimal(price_per_hour, MAX_PRICE_PER_HOUR).map_err(BillingError::Price)?;
        let minimum =
            parse_decimal(minimum_minutes, MAX_MINIMUM_MINUTES).map_err(BillingError::Minimum)?;
        Ok(PayAsYouGo {
            price_per_hour: Money::new(price, currency),
            granularity,
            minimum_seconds: ceil_to_u64(minimum * Decimal::from(60)),
        })
    }
}

/// Parses a typed run length in hours.
pub fn parse_run_hours(text: &str) -> Result<Decimal, BillingError> {
    parse_decimal(text, MAX_RUN_HOURS).map_err(BillingError::Hours)
}

/// Prices one pay-as-you-go run of `hours`.
///
/// Running time is first rounded up to whole seconds, then raised to the minimum billed time,
/// then rounded up to the granularity; rent = price per hour x billed seconds / 3600, exact.
/// A run of zero length bills nothing (the instance never ran).
pub fn pay_as_you_go_rent(hours: Decimal, plan: &PayAsYouGo) -> Result<RentQuote, BillingError> {
    check_bounds(hours, MAX_RUN_HOURS).map_err(BillingError::Hours)?;
    let price =
        check_range(plan.price_per_hour.amount, MAX_PRICE_PER_HOUR).map_err(BillingError::Price)?;
    check_range(Decimal::from(plan.minimum_seconds), MAX_MINIMUM_SECONDS)
        .map_err(BillingError::Minimum)?;

    let run_seconds = run_seconds(hours);
    let billed_seconds = if run_seconds == 0 {
        0
    } else {
        let unit = plan.granularity.seconds();
        run_seconds.max(plan.minimum_seconds).div_ceil(unit) * unit
    };
    let rent = price * Decimal::from(billed_seconds) / Decimal::from(SECONDS_PER_HOUR);
    Ok(RentQuote {
        run_seconds,
        billed_seconds,
        rent: Money::new(rent.normalize(), plan.price_per_hour.currency),
    })
}

/// The pay-as-you-go inputs as typed into a form, before any checking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayAsYouGoForm {
    /// Run length in hours, as typed.
    pub hours: String,
    /// Price per hour, as typed.
    pub price_per_hour: String,
    /// Currency of the price.
    pub currency: Currency,
    /// Billing granularity.
    pub granularity: Granularity,
    /// Minimum billed time in minutes, as typed.
    pub minimum_minutes: String,
}

/// Every problem in a form at once (one per field), or the quote when there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormOutcome {
    /// One error per bad field, in form order.
    pub errors: Vec<BillingError>,
    /// The quote, present exactly when `errors` is empty.
    pub quote: Option<RentQuote>,
}

impl FormOutcome {
    /// The error for one field (`hours`, `price`, `minimum`), if it has one.
    pub fn error_for(&self, field: &str) -> Option<&BillingError> {
        self.errors.iter().find(|e| e.field() == field)
    }
}

impl PayAsYouGoForm {
    /// Checks every field independently, so a person sees all problems at once, then prices.
    pub fn evaluate(&self) -> FormOutcome {
        let hours = parse_run_hours(&self.hours);
        let price =
            parse_decimal(&self.price_per_hour, MAX_PRICE_PER_HOUR).map_err(BillingError::Price);
        let minimum = parse_decimal(&self.minimum_minutes, MAX_MINIMUM_MINUTES)
            .map_err(BillingError::Minimum);
        match (hours, price, minimum) {
            (Ok(hours), Ok(price), Ok(minimum)) => {
                let plan = PayAsYouGo {
                    price_per_hour: Money::new(price, self.currency),
                    granularity: self.granularity,
                    minimum_seconds: ceil_to_u64(minimum * Decimal::from(60)),
                };
                match pay_as_you_go_rent(hours, &plan) {
                    Ok(quote) => FormOutcome {
                        errors: vec![],
                        quote: Some(quote),
                    },
                    Err(e) => FormOutcome {
                        errors: vec![e],
                        quote: None,
                    },
                }
            }
            (hours, price, minimum) => FormOutcome {
                errors: [hours.err(), price.err(), minimum.err()]
                    .into_iter()
                    .flatten()
                    .collect(),
                quote: None,
            },
        }
    }
}

/// Billed seconds as hours, rounded to 4 decimals for display (3660 s -> 1.0167).
pub fn seconds_as_hours(seconds: u64) -> Decimal {
    (Decimal::from(seconds) / Decimal::from(SECONDS_PER_HOUR))
        .round_dp(4)
        .normalize()
}

/// Running time of `hours` (range-checked) rounded up to whole seconds. For a mantissa below
/// 2^64 (every run length pricing makes) the product with 3600 is exact in a decimal, so its
/// ceiling is the integer ceiling of mantissa x 3600 / 10^scale, found without decimals; other
/// values take the decimal product.
fn run_seconds(hours: Decimal) -> u64 {
    let mantissa = hours.mantissa();
    if let Ok(m) = u64::try_from(mantissa) {
        let power = 10u128.pow(hours.scale());
        let seconds = (u128::from(m) * u128::from(SECONDS_PER_HOUR)).div_ceil(power);
        return u64::try_from(seconds).unwrap_or(u64::MAX);
    }
    ceil_to_u64(hours.normalize() * Decimal::from(SECONDS_PER_HOUR))
}

/// Rounds a non-negative decimal up to a whole number. Inputs are range-checked, so it fits.
fn ceil_to_u64(value: Decimal) -> u64 {
    let ceiled = value.ceil();
    u64::try_from(ceiled).unwrap_or(u64::MAX)
}

/// How an offer is billed. Subscriptions are paid per started term whether used or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BillingMode {
    /// Pay for running time, rounded up to the granularity, with a minimum.
    PayAsYouGo,
    /// Prepaid per day (包日).
    Daily,
    /// Prepaid per week (包周).
    Weekly,
    /// Prepaid per month of 730 h (包月).
    Monthly,
    /// Prepaid per year of 12 months.
    Yearly,
    /// A commitment of `term_months`, with an upfront share and a recurring monthly price.
    Reserved,
    /// Interruptible capacity billed for running time, reruns included.
    Spot,
}

identifiers!(BillingMode {
    PayAsYouGo => "pay_as_you_go",
    Daily => "daily",
    Weekly => "weekly",
    Monthly => "monthly",
    Yearly => "yearly",
    Reserved => "reserved",
    Spot => "spot",
});

impl BillingMode {
    /// Whether the price is per hour of running (pay-as-you-go, spot) rather than per term.
    pub fn is_metered(self) -> bool {
        matches!(self, BillingMode::PayAsYouGo | BillingMode::Spot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn run_seconds_match_the_decimal_ceiling() {
        assert_eq!(MAX_MINIMUM_SECONDS, MAX_MINIMUM_MINUTES * Decimal::from(60));
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for i in 0..100_000u32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let scale = i % 29;
            let m = state >> (i % 64);
            for hours in [
                Decimal::from_parts(m as u32, (m >> 32) as u32, 0, false, scale),
                Decimal::from_parts(m as u32, (m >> 32) as u32, (i % 3) * 7, false, scale),
            ] {
                if hours > MAX_RUN_HOURS {
                    continue;
                }
                let exact = ceil_to_u64(hours.normalize() * Decimal::from(SECONDS_PER_HOUR));
                assert_eq!(run_seconds(hours), exact, "{hours}");
            }
        }
    }

    fn plan(price: &str, g: Granularity, min_s: u64) -> PayAsYouGo {
        PayAsYouGo {
            price_per_hour: Money::new(d(price), Currency::Cny),
            granularity: g,
            minimum_seconds: min_s,
        }
    }

    #[test]
    fn minimum_is_applied_before_granularity() {
        // 10 s run, 90 s minimum, per-minute billing: 90 s -> 2 started minutes.
        let q = pay_as_you_go_rent(d("0.0025"), &plan("6", Granularity::Minute, 90)).unwrap();
        assert_eq!(q.run_seconds, 9);
        assert_eq!(q.billed_seconds, 120);
        assert_eq!(q.rent.plain(), "0.20");
    }

    #[test]
    fn parse_names_the_bad_field() {
        let err = PayAsYouGo::parse("-1", Currency::Usd, Granularity::Second, "1").unwrap_err();
        assert_eq!(err.field(), "price");
        let err = PayAsYouGo::parse("1", Currency::Usd, Granularity::Second, "NaN").unwrap_err();
        assert_eq!(
            (err.field(), err.reason().code()),
            ("minimum", "not_finite")
        );
        let err = parse_run_hours("1e9").unwrap_err();
        assert_eq!(
            (err.field(), err.reason().code()),
            ("hours", "not_a_number")
        );
    }

    #[test]
    fn a_form_reports_every_bad_field_at_once() {
        let form = PayAsYouGoForm {
            hours: "-1".to_owned(),
            price_per_hour: "abc".to_owned(),
            currency: Currency::Usd,
            granularity: Granularity::Minute,
            minimum_minutes: "NaN".to_owned(),
        };
        let out = form.evaluate();
        assert_eq!(out.quote, None);
        let fields: Vec<_> = out
            .errors
            .iter()
            .map(|e| (e.field(), e.reason().code()))
            .collect();
        assert_eq!(
            fields,
            [
                ("hours", "negative"),
                ("price", "not_a_number"),
                ("minimum", "not_finite")
            ]
        );
        let ok = PayAsYouGoForm {
            hours: "2".into(),
            price_per_hour: "1.5".into(),
            minimum_minutes: "0".into(),
            ..form
        }
        .evaluate();
        assert_eq!(ok.errors, vec![]);
        assert_eq!(ok.quote.unwrap().rent.plain(), "3.00");
        assert_eq!(seconds_as_hours(3660).to_string(), "1.0167");
        assert_eq!(seconds_as_hours(10800).to_string(), "3");
    }

    #[test]
    fn rejects_out_of_range_values_given_directly() {
        let err = pay_as_you_go_rent(d("-2"), &plan("1", Granularity::Second, 0)).unwrap_err();
        assert_eq!(err, BillingError::Hours(InputError::Negative));
        let err =
            pay_as_you_go_rent(d("100000.5"), &plan("1", Granularity::Second, 0)).unwrap_err();
        assert_eq!(err.reason().code(), "too_large");
        let err =
            pay_as_you_go_rent(d("1"), &plan("1000000.01", Granularity::Second, 0)).unwrap_err();
        assert_eq!(err.field(), "price");
    }
}
