//! How a plan is priced: the output currency, the exchange rate, the Monte Carlo's seed and
//! trials, provider discounts — and why a plan could not be made.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::numbers::money::Currency;
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
    pub trials: u32,
    /// Provider discounts.
    #[serde(default)]
    pub discounts: Vec<ProviderDiscount>,
}

impl Default for PlanSettings {
    fn default() -> PlanSettings {
        PlanSettings {
            currency: Currency::Cny,
            cny_per_usd: Decimal::new(72, 1),
            seed: 1,
            trials: DEFAULT_TRIALS,
            discounts: vec![],
        }
    }
}

impl PlanSettings {
    /// The default settings for `task`: figures in the task's own currency.
    pub fn for_task(task: &TaskProfile) -> PlanSettings {
        PlanSettings {
            currency: task.currency,
            ..PlanSettings::default()
        }
    }
}

/// Why a plan could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlanError {
    /// The task is invalid.
    #[error(transparent)]
    Task(#[from] TaskError),
    /// An offer is unusable (a catalog built in code rather than parsed).
    #[error("offer {id}, field {field}: {message}")]
    Offer {
        /// The offer's id.
        id: String,
        /// The field at fault.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A setting is out of range.
    #[error("setting {field}: {message}")]
    Setting {
        /// The setting.
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl PlanSettings {
    /// Checks the settings' ranges.
    pub fn validate(&self) -> Result<(), PlanError> {
        let fail = |field: &str, message: &str| {
            Err(PlanError::Setting {
                field: field.to_owned(),
                message: message.to_owned(),
            })
        };
        if self.cny_per_usd <= Decimal::ZERO || self.cny_per_usd > Decimal::from(1000) {
            return fail("cny_per_usd", "must be greater than 0 and at most 1000");
        }
        if self.trials == 0 || self.trials > 1_000_000 {
            return fail("trials", "must be between 1 and 1000000");
        }
        for d in &self.discounts {
            if d.factor <= Decimal::ZERO || d.factor > Decimal::ONE {
                return fail(
                    "discounts",
                    "a discount factor must be greater than 0 and at most 1",
                );
            }
        }
        Ok(())
    }
}
