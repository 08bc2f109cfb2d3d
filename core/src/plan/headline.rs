//! A plan's headline: the decision and the first rows of the ranking, as few figures as the page
//! needs to show an answer at once. The site prices a scenario twice after an edit: first with
//! the closed forms alone (one trial, about a millisecond natively), whose headline it shows
//! marked provisional, then with the full Monte Carlo, which replaces it. Expected totals and
//! hours are closed forms in both, so they differ only where the Monte Carlo changes the ranking
//! (an offer that adopts a spot policy is priced by its trials); `core/examples/first_answer.rs`
//! measures how often the recommendation differs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::money::Money;
use crate::offers::billing::BillingMode;
use crate::offers::tenancy::Tenancy;
use crate::plan::decision::{Choice, Decision};
use crate::plan::option::OptionResult;

/// Trials of a first answer: the closed forms with a single Monte Carlo trial.
pub const FIRST_ANSWER_TRIALS: u32 = 1;

/// Ranked rows a headline keeps.
pub const HEADLINE_ROWS: usize = 5;

/// The decision and the first ranked offers of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Headline {
    /// Monte Carlo trials per offer behind it (1: the closed forms alone).
    pub trials: u32,
    /// The recommended kind of capacity.
    pub choice: Choice,
    /// The recommended offer, when one is feasible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_offer: Option<String>,
    /// The first feasible offers, cheapest expected total first.
    pub ranking: Vec<HeadlineRow>,
}

/// One ranked offer of a [`Headline`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HeadlineRow {
    /// The offer's id.
    pub offer_id: String,
    /// Its provider.
    pub provider: String,
    /// Its GPU model.
    pub gpu: String,
    /// GPUs in the offer.
    pub gpu_count: u32,
    /// How the card is shared.
    pub tenancy: Tenancy,
    /// How it is billed.
    pub billing_mode: BillingMode,
    /// Expected total cost.
    pub total_expected: Money,
    /// Expected wall-clock hours.
    pub hours_expected: f64,
}

impl Headline {
    /// The headline of a plan priced with `trials` trials per offer: its decision and its first
    /// [`HEADLINE_ROWS`] feasible options (`options` ranked). `PlanResult::headline` is this for a
    /// whole plan.
    pub fn of(trials: u32, decision: &Decision, options: &[OptionResult]) -> Headline {
        Headline {
            trials,
            choice: decision.choice,
            recommended_offer: decision.recommended_offer.clone(),
            ranking: options
                .iter()
                .filter(|o| o.feasible)
                .take(HEADLINE_ROWS)
                .map(|o| HeadlineRow {
                    offer_id: o.offer_id.clone(),
                    provider: o.provider.clone(),
                    gpu: o.gpu.clone(),
                    gpu_count: o.gpu_count,
                    tenancy: o.tenancy,
                    billing_mode: o.billing_mode,
                    total_expected: o.costs.total_expected,
                    hours_expected: o.hours_expected,
                })
                .collect(),
        }
    }

    /// The recommended offer's row, when it is among the rows kept.
    pub fn recommended(&self) -> Option<&HeadlineRow> {
        let id = self.recommended_offer.as_ref()?;
        self.ranking.iter().find(|r| &r.offer_id == id)
    }
}
