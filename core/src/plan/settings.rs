//! How a plan is priced: the output currency, the exchange rate, the Monte Carlo's seed and
//! trials, provider discounts — and why a plan could not be made.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::numbers::date::PriceDate;
use crate::numbers::money::{Currency, convert};
use crate::numbers::problem::{FieldError, Problem};
use crate::offers::offer::Offer;
use crate::offers::rent::price_per_gpu_hour;
use crate::task::document::{TaskError, TaskProfile};

/// Default Monte Carlo trials per offer: enough for a P90 within about 2 % (the standard error
/// of a 90th-percentile estimate from n samples is sqrt(0.09 / n) / density), and cheap enough
/// to recompute on every keystroke in the browser. Users can raise it.
pub const DEFAULT_TRIALS: u32 = 2_000;

/// A negotiated discount on one provider's list prices (0.85 = 15 % off).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderDiscount {
    /// Provider name as in the catalog.
    pub provider: String,
    /// Multiplier applied to the provider's prices, in (0, 1].
    #[schemars(with = "String")]
    pub factor: Decimal,
}

/// How to price: output currency, exchange rate, randomness, discounts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanSettings {
    /// Currency every output figure is in.
    pub currency: Currency,
    /// Yuan per US dollar, given by the user (shown as an assumption).
    #[schemars(with = "String")]
    pub cny_per_usd: Decimal,
    /// Seed of the Monte Carlo; the same seed gives the same answer on every target.
    pub seed: u64,
    /// Monte Carlo trials per offer.
    #[schemars(range(min = 1, max = 100_000))]
    pub trials: u32,
    /// Provider discounts.
    #[serde(default)]
    pub discounts: Vec<ProviderDiscount>,
    /// Today, `YYYY-MM-DD`, as the caller's clock gives it (the model has none): every price's
    /// age is counted to this day. Without it no age is given, and only an estimate is flagged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub today: Option<String>,
}

impl Default for PlanSettings {
    fn default() -> PlanSettings {
        PlanSettings {
            currency: Currency::Cny,
            cny_per_usd: Decimal::new(72, 1),
            seed: 1,
            trials: DEFAULT_TRIALS,
            discounts: vec![],
            today: None,
        }
    }
}

impl PlanSettings {
    /// Sets `provider`'s discount factor, kept within 0.01..=1; a factor of 1 (no discount)
    /// removes it.
    pub fn set_discount(&mut self, provider: &str, factor: Decimal) {
        let factor = factor.clamp(Decimal::new(1, 2), Decimal::ONE);
        self.discounts.retain(|d| d.provider != provider);
        if factor < Decimal::ONE {
            self.discounts.push(ProviderDiscount {
                provider: provider.to_owned(),
                factor,
            });
        }
    }

    /// The discount factor set for `provider` (1 when none is).
    pub fn discount(&self, provider: &str) -> Decimal {
        self.discounts
            .iter()
            .find(|d| d.provider == provider)
            .map_or(Decimal::ONE, |d| d.factor)
    }

    /// `amount` in `from` in the plan's output currency, at the plan's exchange rate.
    pub fn convert(&self, amount: Decimal, from: Currency) -> Decimal {
        convert(amount, from, self.currency, self.cny_per_usd)
    }

    /// An offer's own price converted to the output currency with its provider's discount.
    pub fn offer_money(&self, offer: &Offer, amount: Decimal) -> Decimal {
        self.convert(amount * self.discount(&offer.provider), offer.currency)
    }

    /// An offer's price per GPU-hour in the output currency, with its provider's discount
    /// (subscriptions spread over their term). It depends on the settings and the offer alone,
    /// not on the task: the site's offers table re-sorts only when these change.
    pub fn price_per_gpu_hour(&self, offer: &Offer) -> Decimal {
        self.offer_money(offer, price_per_gpu_hour(offer))
    }

    /// The day prices' ages are counted to, when the settings give one (valid settings give a
    /// whole day or nothing).
    pub fn today_date(&self) -> Option<PriceDate> {
        self.today
            .as_deref()
            .and_then(|t| PriceDate::parse(t).ok())
            .filter(|d| !d.month_only())
    }

    /// The default settings for `task`: figures in the task's own currency.
    pub fn for_task(task: &TaskProfile) -> PlanSettings {
        PlanSettings {
            currency: task.currency,
            ..PlanSettings::default()
        }
    }
}

/// Why a plan could not be made.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PlanError {
    /// The task is invalid.
    #[error(transparent)]
    Task(#[from] TaskError),
    /// An offer is unusable (a catalog built in code rather than parsed).
    #[error("offer {id}, field {}: {}", .error.field, .error.problem)]
    Offer {
        /// The offer's id.
        id: String,
        /// The field at fault and why.
        error: FieldError,
    },
    /// A setting is out of range.
    #[error("setting {}: {}", .0.field, .0.problem)]
    Setting(FieldError),
    /// Shares of the plan (see `plan::share`) asked for or put together wrongly.
    #[error("plan shares: {0}")]
    Shares(ShareMismatch),
}

/// The most shares a plan's offers may be split into (`plan::share`).
pub const MAX_SHARES: u32 = 256;

/// How shares of a plan are asked for wrongly, or fail to make up its catalog.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShareMismatch {
    /// A share number outside `0..count`, or a count outside `1..=MAX_SHARES`.
    #[error(
        "share {index} of {count} does not exist (shares are numbered from 0, at most {MAX_SHARES})"
    )]
    NotAShare {
        /// The share asked for.
        index: u32,
        /// The number of shares.
        count: u32,
    },
    /// An offer of the catalog that no share priced.
    #[error("offer {place} of the catalog is priced by no share")]
    Missing {
        /// Its place in the catalog, from 0.
        place: usize,
    },
    /// An offer priced by more than one share, or twice by one.
    #[error("offer {place} of the catalog is priced twice")]
    Twice {
        /// Its place in the catalog, from 0.
        place: usize,
    },
    /// A place past the catalog's end.
    #[error("offer {place} is past the end of the catalog ({offers} offers)")]
    PastTheEnd {
        /// The place given.
        place: usize,
        /// The catalog's offers.
        offers: usize,
    },
    /// A share priced another offer than the catalog has at that place.
    #[error("offer {place} of the catalog is {expected:?}, but the share priced {found:?}")]
    OtherOffer {
        /// The place.
        place: usize,
        /// The catalog's offer id there.
        expected: String,
        /// The id the share gave.
        found: String,
    },
}

/// The most Monte Carlo trials a plan may ask for: with the policies of every interruptible
/// offer, 100,000 trials of the default catalog take a few seconds natively.
pub const MAX_TRIALS: u32 = 100_000;

/// The lowest yuan-per-dollar rate accepted (a hundredth): any real rate is far above it, and
/// with it every conversion fits exact decimal arithmetic.
pub const MIN_CNY_PER_USD: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

impl PlanSettings {
    /// Checks the settings' ranges; the error names the setting.
    pub fn validate(&self) -> Result<(), FieldError> {
        let fail = |field: &str, problem: Problem| Err(FieldError::new(field, problem));
        if self.cny_per_usd < MIN_CNY_PER_USD || self.cny_per_usd > Decimal::from(1000) {
            return fail(
                "cny_per_usd",
                Problem::OutOfRange {
                    min: 0.01,
                    max: 1000.0,
                },
            );
        }
        if self.trials == 0 || self.trials > MAX_TRIALS {
            return fail(
                "trials",
                Problem::OutOfRange {
                    min: 1.0,
                    max: f64::from(MAX_TRIALS),
                },
            );
        }
        for d in &self.discounts {
            if d.factor <= Decimal::ZERO || d.factor > Decimal::ONE {
                return fail("discounts.factor", Problem::AboveZero { max: 1.0 });
            }
        }
        // Today is a whole day: a month would count every age from its first day.
        if let Some(t) = &self.today
            && self.today_date().is_none()
        {
            return fail("today", Problem::NotADate { value: t.clone() });
        }
        Ok(())
    }
}
