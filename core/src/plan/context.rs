//! What pricing every offer of one plan shares: the task, the settings, the reference GPU — and
//! the conversions of money into the plan's currency and of float quantities into exact decimals.

use rust_decimal::Decimal;

use crate::hardware::gpu::{GpuSpec, find_gpu};
use crate::numbers::money::{Currency, Money, convert};
use crate::offers::offer::Offer;
use crate::offers::rent::price_per_gpu_hour;
use crate::offers::trace::AttachedTrace;
use crate::plan::settings::PlanSettings;
use crate::plan::time::PolicyWalk;
use crate::task::document::TaskProfile;

/// What every offer's evaluation shares: the task, the settings, the reference GPU.
pub struct Context<'a> {
    /// The task.
    pub task: &'a TaskProfile,
    /// The settings.
    pub settings: &'a PlanSettings,
    /// Every offer of the plan (where a policy finds the offer to fall back to).
    pub offers: &'a [Offer],
    /// Traces attached to offers of the plan.
    pub traces: &'a [AttachedTrace],
    /// Policies to walk with staying, per interruptible offer (see
    /// `plan::policy::policy_walks`); empty when not prepared.
    pub walks: Vec<PolicyWalk>,
    pub(crate) reference: Option<&'static GpuSpec>,
}

impl<'a> Context<'a> {
    /// Prepares the shared parts of an evaluation.
    pub fn new(task: &'a TaskProfile, settings: &'a PlanSettings) -> Context<'a> {
        Context {
            task,
            settings,
            offers: &[],
            traces: &[],
            walks: Vec::new(),
            reference: find_gpu(&task.reference_gpu),
        }
    }

    /// The same, with the plan's offers and the traces attached to them.
    pub fn with_evidence(self, offers: &'a [Offer], traces: &'a [AttachedTrace]) -> Context<'a> {
        Context {
            offers,
            traces,
            ..self
        }
    }

    /// The same, with the policies to walk with staying.
    pub fn with_walks(self, walks: Vec<PolicyWalk>) -> Context<'a> {
        Context { walks, ..self }
    }

    /// The policies to walk with staying on `offer`, if prepared.
    pub fn walk_for(&self, offer: &Offer) -> Option<&PolicyWalk> {
        self.walks.iter().find(|w| w.offer_id == offer.id)
    }

    /// The trace attached to `offer`, if any.
    pub fn trace_for(&self, offer: &Offer) -> Option<&'a AttachedTrace> {
        self.traces.iter().find(|t| t.offer_id == offer.id)
    }

    /// Converts an amount to the output currency at the user's rate.
    pub fn convert(&self, amount: Decimal, from: Currency) -> Decimal {
        convert(
            amount,
            from,
            self.settings.currency,
            self.settings.cny_per_usd,
        )
    }

    /// The discount factor for a provider (1 when none is set).
    pub fn discount(&self, provider: &str) -> Decimal {
        self.settings.discount(provider)
    }

    /// An offer's own price converted to output currency with its provider discount.
    pub fn offer_money(&self, offer: &Offer, amount: Decimal) -> Decimal {
        self.convert(amount * self.discount(&offer.provider), offer.currency)
    }

    /// A task amount (penalty, value of time, budget) in the output currency.
    pub fn task_money(&self, amount: Decimal) -> Decimal {
        self.convert(amount, self.task.currency)
    }

    /// Money in the output currency, rounded to the minor unit.
    pub fn money(&self, amount: Decimal) -> Money {
        Money::billed(amount, self.settings.currency)
    }

    /// An offer's price per GPU-hour in the output currency, with its provider discount
    /// (subscriptions spread over their term).
    pub fn price_per_gpu_hour(&self, offer: &Offer) -> Decimal {
        self.offer_money(offer, price_per_gpu_hour(offer))
    }
}

/// Rounds to 4 decimals so outputs are stable text; non-finite hours become the horizon.
pub fn round4(x: f64) -> f64 {
    if x.is_finite() {
        libm::round(x * 10_000.0) / 10_000.0
    } else {
        10_000_000.0
    }
}
