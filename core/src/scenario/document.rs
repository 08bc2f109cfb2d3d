//! A scenario: a task, the pricing settings and the user's edits to the catalog — everything the
//! site shows, in one document that is saved locally, shared as a link and repriced by
//! `gpufare plan --scenario`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::numbers::money::{Currency, Money, convert};
use crate::numbers::problem::{FieldError, JsonProblem};
use crate::offers::billing::BillingMode;
use crate::offers::catalog::Catalog;
use crate::offers::import::{OnClash, merge};
use crate::offers::offer::{Offer, RegionClass};
use crate::offers::queue::QueueTrace;
use crate::offers::trace::{AttachedTrace, Trace, TraceError};
use crate::offers::validate::{MAX_OFFER_PRICE, MIN_NONZERO_PRICE, validate_offer};
use crate::plan::headline::{FIRST_ANSWER_TRIALS, Headline};
use crate::plan::pipeline::plan_headline;
use crate::plan::settings::{PlanError, PlanSettings};
use crate::plan::share::{PricedShare, Share, plan_from_shares, price_share};
use crate::plan::{PlanResult, plan_with_traces};
use crate::task::document::{TaskError, TaskProfile};

/// The scenario format this build writes and the newest it reads.
pub const SCENARIO_FORMAT_VERSION: u32 = 1;

/// The most queue traces a scenario may carry. Each is small (64 quantiles and a fit), but a
/// document is read before anything else is known about it, so the list is bounded; it is far
/// more than the offers a catalog holds.
pub const MAX_QUEUE_TRACES: usize = 1024;

/// The user's changes to a base catalog.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct CatalogEdits {
    /// New prices by offer id, in the offer's currency and unit.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(with = "BTreeMap<String, String>")]
    pub prices: BTreeMap<String, Decimal>,
    /// Offers the user added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<Offer>,
    /// Ids of base offers the user removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
}

impl CatalogEdits {
    /// The base catalog with these edits applied.
    pub fn apply(&self, base: &Catalog) -> Catalog {
        let mut offers: Vec<Offer> = base
            .offers
            .iter()
            .filter(|o| !self.removed.contains(&o.id))
            .map(|o| match self.prices.get(&o.id) {
                // The user's own figure: no longer an estimate, and of evidence the catalog
                // cannot vouch for (its date stays the row's: the edit keeps no day).
                Some(p) => Offer {
                    price: *p,
                    estimate: false,
                    price_evidence: None,
                    source: format!("edited by the user (was {})", o.price),
                    ..o.clone()
                },
                None => o.clone(),
            })
            .collect();
        offers.extend(self.added.iter().cloned());
        Catalog {
            format_version: base.format_version,
            offers,
        }
    }

    /// Whether nothing is edited.
    pub fn is_empty(&self) -> bool {
        self.prices.is_empty() && self.added.is_empty() && self.removed.is_empty()
    }
}

/// Which offers of the catalog the user wants considered (empty lists mean "all").
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct OfferFilter {
    /// Shared or dedicated only, or both when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared: Option<bool>,
    /// Billing modes to keep.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub billing_modes: Vec<BillingMode>,
    /// Region classes to keep.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub region_classes: Vec<RegionClass>,
    /// Currencies to keep.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub currencies: Vec<Currency>,
    /// Text that must appear in the provider, region, GPU or id (case-insensitive).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
}

impl OfferFilter {
    /// Whether an offer passes the filter.
    pub fn matches(&self, o: &Offer) -> bool {
        let text = self.text.trim().to_lowercase();
        self.shared.is_none_or(|s| o.tenancy.is_shared() == s)
            && (self.billing_modes.is_empty() || self.billing_modes.contains(&o.billing_mode))
            && (self.region_classes.is_empty() || self.region_classes.contains(&o.region.class))
            && (self.currencies.is_empty() || self.currencies.contains(&o.currency))
            && (text.is_empty()
                || [&o.provider, &o.region.name, &o.region.id, &o.gpu, &o.id]
                    .iter()
                    .any(|f| f.to_lowercase().contains(&text)))
    }
}

/// Waits measured on a pool, attached to one offer of the scenario's catalog (a base offer or one
/// the user added): the offer's queue is drawn from them instead of assumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttachedQueueTrace {
    /// The offer whose starts queue as measured.
    pub offer_id: String,
    /// The measured waits.
    pub trace: QueueTrace,
}

/// Everything needed to reproduce a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Scenario {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// The preset the task started from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// The task.
    pub task: TaskProfile,
    /// Currency, rate, seed, trials, discounts.
    pub settings: PlanSettings,
    /// Changes to the default catalog.
    #[serde(default)]
    pub edits: CatalogEdits,
    /// Which offers are considered.
    #[serde(default)]
    pub filter: OfferFilter,
    /// Figures measured by probe profiles, replacing assumptions of the matching offers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured: Vec<crate::profile::evidence::MeasuredFactors>,
    /// Preemption traces attached to offers: their risk comes from the traces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traces: Vec<AttachedTrace>,
    /// Queue traces attached to offers: the waits measured on their pools replace their assumed
    /// queues. A later entry for the same offer replaces an earlier one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queue_traces: Vec<AttachedQueueTrace>,
}

/// Why a scenario (or share link) could not be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ScenarioError {
    /// The link's text is not base64.
    #[error("the link is damaged (not base64)")]
    NotBase64,
    /// Not JSON, or a field of the wrong type.
    #[error("the scenario is invalid (line {}, column {}): {}", .0.line, .0.column, .0.detail)]
    Json(JsonProblem),
    /// Written by a newer gpufare.
    #[error("scenario format version {found} is newer than this gpufare supports (up to {max})")]
    UnsupportedFormat {
        /// The version in the document.
        found: u64,
        /// The newest version this build reads.
        max: u32,
    },
    /// The task is out of range.
    #[error("the scenario is invalid: {0}")]
    Task(TaskError),
    /// A setting is out of range.
    #[error("the scenario is invalid: setting {}: {}", .0.field, .0.problem)]
    Setting(FieldError),
    /// An offer the user added is unusable.
    #[error("the scenario is invalid: added offer {id}, field {}: {}", .error.field, .error.problem)]
    AddedOffer {
        /// The offer's id.
        id: String,
        /// The field at fault and why.
        error: FieldError,
    },
    /// A trace in the scenario is damaged.
    #[error("the scenario is invalid: the trace of {offer}: {error}")]
    Trace {
        /// The offer it is attached to.
        offer: String,
        /// What is wrong.
        error: TraceError,
    },
    /// A queue trace in the scenario is damaged.
    #[error("the scenario is invalid: the queue trace of {offer}, field {}: {}", .error.field, .error.problem)]
    QueueTrace {
        /// The offer it is attached to.
        offer: String,
        /// The field at fault and why.
        error: FieldError,
    },
    /// A queue trace is attached to an offer the scenario's catalog does not hold.
    #[error(
        "the scenario is invalid: a queue trace names {offer}, but the catalog has no such offer"
    )]
    QueueTraceOffer {
        /// The id named.
        offer: String,
    },
    /// More queue traces than [`MAX_QUEUE_TRACES`].
    #[error("the scenario is invalid: {found} queue traces; at most {max} are read")]
    TooManyQueueTraces {
        /// How many the document holds.
        found: usize,
        /// The limit.
        max: usize,
    },
    /// A figure measured by a probe profile is out of range.
    #[error("the scenario is invalid: measured figures for {gpu}, field {}: {}", .error.field, .error.problem)]
    Measured {
        /// The GPU the figures are for.
        gpu: String,
        /// The field at fault and why.
        error: FieldError,
    },
    /// A price the user edited is out of range.
    #[error(
        "the scenario is invalid: the edited price of {id} must be 0 or between 0.000001 and 100000000"
    )]
    EditedPrice {
        /// The offer whose price was edited.
        id: String,
    },
}

impl Scenario {
    /// A scenario for a task with default settings and no edits.
    pub fn new(task: TaskProfile, preset: Option<&str>) -> Scenario {
        Scenario {
            format_version: SCENARIO_FORMAT_VERSION,
            preset: preset.map(str::to_owned),
            settings: PlanSettings::for_task(&task),
            task,
            edits: CatalogEdits::default(),
            filter: OfferFilter::default(),
            measured: Vec::new(),
            traces: Vec::new(),
            queue_traces: Vec::new(),
        }
    }

    /// Attaches `trace` to the offer `offer_id`, replacing the one it had.
    pub fn attach_trace(&mut self, offer_id: &str, trace: Trace) {
        self.traces.retain(|t| t.offer_id != offer_id);
        self.traces.push(AttachedTrace {
            offer_id: offer_id.to_owned(),
            trace,
        });
    }

    /// Removes the trace attached to `offer_id`.
    pub fn detach_trace(&mut self, offer_id: &str) {
        self.traces.retain(|t| t.offer_id != offer_id);
    }

    /// Attaches the queue trace `trace` to the offer `offer_id` (of the base catalog or one the
    /// user added), replacing the one it had.
    pub fn attach_queue_trace(&mut self, offer_id: &str, trace: QueueTrace) {
        self.detach_queue_trace(offer_id);
        self.queue_traces.push(AttachedQueueTrace {
            offer_id: offer_id.to_owned(),
            trace,
        });
    }

    /// Removes the queue trace attached to `offer_id`: the offer's own queue applies again.
    pub fn detach_queue_trace(&mut self, offer_id: &str) {
        self.queue_traces.retain(|t| t.offer_id != offer_id);
    }

    /// The queue trace attached to `offer_id`, if any (the last one listed for it).
    pub fn queue_trace(&self, offer_id: &str) -> Option<&QueueTrace> {
        self.queue_traces
            .iter()
            .rev()
            .find(|t| t.offer_id == offer_id)
            .map(|t| &t.trace)
    }

    /// Puts the attached queue traces on the offers of `catalog` they name (a later entry for an
    /// offer wins); entries naming an offer the catalog lacks change nothing.
    fn apply_queue_traces(&self, catalog: &mut Catalog) {
        if self.queue_traces.is_empty() {
            return;
        }
        let by_offer: BTreeMap<&str, &QueueTrace> = self
            .queue_traces
            .iter()
            .map(|t| (t.offer_id.as_str(), &t.trace))
            .collect();
        for o in &mut catalog.offers {
            if let Some(trace) = by_offer.get(o.id.as_str()) {
                o.queue_trace = Some((*trace).clone());
            }
        }
    }

    /// Shows money in `to`: the task's typed amounts (value of time, deadline penalty, budget) are
    /// converted at the scenario's rate to the cent, and the plan's figures follow.
    pub fn switch_currency(&mut self, to: Currency) {
        let (from, rate) = (self.task.currency, self.settings.cny_per_usd);
        let in_new =
            |v: Option<Decimal>| v.map(|v| Money::billed(convert(v, from, to, rate), to).amount);
        let task = &mut self.task;
        task.value_of_time_per_hour = in_new(Some(task.value_of_time_per_hour)).unwrap_or_default();
        task.deadline_penalty = in_new(task.deadline_penalty);
        task.budget = in_new(task.budget);
        self.task.currency = to;
        self.settings.currency = to;
    }

    /// Adds offers to the user's own (an imported file, a quote) after the base catalog's and
    /// the ones added before; returns the ids left out because an offer already has them.
    pub fn add_offers(&mut self, base: &Catalog, offers: Vec<Offer>) -> Vec<String> {
        let mut known = self.edits.apply(base);
        let added = offers.len();
        let skipped = merge(
            &mut known,
            Catalog {
                format_version: base.format_version,
                offers,
            },
            OnClash::Skip,
        )
        .unwrap_or_default();
        // The offers merged are the last ones of `known`.
        let first_new = known.offers.len() - (added - skipped.len());
        self.edits.added.extend(known.offers.drain(first_new..));
        skipped
    }

    /// An offer's price per GPU-hour in the scenario's currency, with its provider discount.
    pub fn price_per_gpu_hour(&self, offer: &Offer) -> Decimal {
        self.settings.price_per_gpu_hour(offer)
    }

    /// The catalog this scenario prices: the base with the edits and the queue traces applied,
    /// then filtered.
    pub fn catalog(&self, base: &Catalog) -> Catalog {
        self.priced_catalog(base).into_owned()
    }

    /// The catalog this scenario prices, built from `base` (edits and added offers, queue traces,
    /// the filter, measured factors, in that order), or `base` itself, borrowed, when none of
    /// them changes anything: a plan then copies no catalog on a keystroke of the task.
    fn priced_catalog<'a>(&self, base: &'a Catalog) -> Cow<'a, Catalog> {
        let unchanged = self.edits.is_empty()
            && self.queue_traces.is_empty()
            && self.measured.is_empty()
            && base.offers.iter().all(|o| self.filter.matches(o));
        if unchanged {
            return Cow::Borrowed(base);
        }
        let mut catalog = self.edits.apply(base);
        self.apply_queue_traces(&mut catalog);
        catalog.offers.retain(|o| self.filter.matches(o));
        crate::profile::evidence::apply(&mut catalog, &self.measured);
        Cow::Owned(catalog)
    }

    /// The most offers [`Scenario::catalog`] can hold for `base` (its filter may leave fewer),
    /// counted without building it: what the site weighs a first answer's cost by.
    pub fn offers_at_most(&self, base: &Catalog) -> usize {
        base.offers.len() + self.edits.added.len()
    }

    /// Prices the scenario against a base catalog.
    pub fn plan(&self, base: &Catalog) -> Result<PlanResult, PlanError> {
        plan_with_traces(
            &self.task,
            &self.priced_catalog(base),
            &self.traces,
            &self.settings,
        )
    }

    /// The scenario's first answer: its headline priced with the closed forms alone
    /// ([`FIRST_ANSWER_TRIALS`]), what the site shows, marked provisional, while the full plan is
    /// on its way.
    pub fn first_answer(&self, base: &Catalog) -> Result<Headline, PlanError> {
        let settings = PlanSettings {
            trials: FIRST_ANSWER_TRIALS,
            ..self.settings.clone()
        };
        plan_headline(
            &self.task,
            &self.priced_catalog(base),
            &self.traces,
            &settings,
        )
    }

    /// Prices `share` of the scenario's offers (see [`crate::plan::share`]).
    pub fn price_share(&self, base: &Catalog, share: Share) -> Result<PricedShare, PlanError> {
        price_share(
            &self.task,
            &self.priced_catalog(base),
            &self.traces,
            &self.settings,
            share,
        )
    }

    /// The scenario's plan put together from priced `shares` that between them price every
    /// offer once: [`Scenario::plan`], to the bit.
    pub fn plan_from_shares(
        &self,
        base: &Catalog,
        shares: Vec<PricedShare>,
    ) -> Result<PlanResult, PlanError> {
        plan_from_shares(
            &self.task,
            &self.priced_catalog(base),
            &self.traces,
            &self.settings,
            shares,
        )
    }

    /// Checks versions and ranges of everything inside.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.format_version > SCENARIO_FORMAT_VERSION {
            return Err(ScenarioError::UnsupportedFormat {
                found: u64::from(self.format_version),
                max: SCENARIO_FORMAT_VERSION,
            });
        }
        self.task.validate().map_err(ScenarioError::Task)?;
        self.settings.validate().map_err(ScenarioError::Setting)?;
        for o in &self.edits.added {
            validate_offer(o).map_err(|error| ScenarioError::AddedOffer {
                id: o.id.clone(),
                error,
            })?;
        }
        for t in &self.traces {
            t.trace.validate().map_err(|error| ScenarioError::Trace {
                offer: t.offer_id.clone(),
                error,
            })?;
        }
        if self.queue_traces.len() > MAX_QUEUE_TRACES {
            return Err(ScenarioError::TooManyQueueTraces {
                found: self.queue_traces.len(),
                max: MAX_QUEUE_TRACES,
            });
        }
        for t in &self.queue_traces {
            t.trace
                .validate()
                .map_err(|error| ScenarioError::QueueTrace {
                    offer: t.offer_id.clone(),
                    error,
                })?;
        }
        for m in &self.measured {
            m.validate().map_err(|error| ScenarioError::Measured {
                gpu: m.gpu.clone(),
                error,
            })?;
        }
        if let Some((id, _)) = self.edits.prices.iter().find(|(_, p)| {
            p.is_sign_negative() && !p.is_zero()
                || **p > MAX_OFFER_PRICE
                || !p.is_zero() && **p < MIN_NONZERO_PRICE
        }) {
            return Err(ScenarioError::EditedPrice { id: id.clone() });
        }
        Ok(())
    }

    /// Checks what only the base catalog can tell: every queue trace names an offer of the
    /// catalog this scenario builds from `base` (its edits applied; an offer the filter hides
    /// still counts).
    pub fn validate_offers(&self, base: &Catalog) -> Result<(), ScenarioError> {
        if self.queue_traces.is_empty() {
            return Ok(());
        }
        let known = |id: &str| {
            self.edits.added.iter().any(|o| o.id == id)
                || (!self.edits.removed.iter().any(|r| r == id)
                    && base.offers.iter().any(|o| o.id == id))
        };
        match self.queue_traces.iter().find(|t| !known(&t.offer_id)) {
            Some(t) => Err(ScenarioError::QueueTraceOffer {
                offer: t.offer_id.clone(),
            }),
            None => Ok(()),
        }
    }
}

/// Reads a scenario from JSON text and checks it against the base catalog it will be priced
/// with: [`parse_scenario`], then [`Scenario::validate_offers`].
pub fn parse_scenario_for(text: &str, base: &Catalog) -> Result<Scenario, ScenarioError> {
    let scenario = parse_scenario(text)?;
    scenario.validate_offers(base)?;
    Ok(scenario)
}

/// Reads a scenario from JSON text, checking its version and ranges.
pub fn parse_scenario(text: &str) -> Result<Scenario, ScenarioError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ScenarioError::Json(e.into()))?;
    let version = value
        .get("format_version")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    if version > u64::from(SCENARIO_FORMAT_VERSION) {
        return Err(ScenarioError::UnsupportedFormat {
            found: version,
            max: SCENARIO_FORMAT_VERSION,
        });
    }
    // Parsed again from the text rather than from `value`: one deserializer for every type keeps
    // the site's wasm smaller than a second, `Value`-driven copy of each Deserialize impl.
    let scenario: Scenario =
        serde_json::from_str(text).map_err(|e| ScenarioError::Json(e.into()))?;
    scenario.validate()?;
    Ok(scenario)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::default::default_catalog;
    use crate::task::presets::preset;

    #[test]
    fn filters_narrow_the_catalog() {
        let mut s = Scenario::new(preset("code_check").unwrap(), None);
        let all = s.catalog(default_catalog()).offers.len();
        s.filter.shared = Some(false);
        s.filter.billing_modes = vec![BillingMode::Monthly];
        let kept = s.catalog(default_catalog());
        assert!(!kept.offers.is_empty() && kept.offers.len() < all);
        assert!(
            kept.offers
                .iter()
                .all(|o| !o.tenancy.is_shared() && o.billing_mode == BillingMode::Monthly)
        );
        s.filter = OfferFilter {
            text: "autodl".into(),
            ..OfferFilter::default()
        };
        assert!(
            s.catalog(default_catalog())
                .offers
                .iter()
                .all(|o| o.provider == "AutoDL")
        );
    }

    #[test]
    fn a_scenario_that_changes_nothing_prices_the_base_itself() {
        let base = default_catalog();
        let mut s = Scenario::new(preset("code_check").unwrap(), None);
        assert!(matches!(s.priced_catalog(base), Cow::Borrowed(c) if std::ptr::eq(c, base)));
        assert_eq!(*s.priced_catalog(base), s.catalog(base));
        // Each change builds the catalog, as `catalog` does.
        let mut edited = s.clone();
        edited
            .edits
            .prices
            .insert(base.offers[0].id.clone(), Decimal::new(1, 0));
        let mut filtered = s.clone();
        filtered.filter.text = "autodl".into();
        for changed in [edited, filtered] {
            let priced = changed.priced_catalog(base);
            assert!(matches!(priced, Cow::Owned(_)));
            assert_eq!(*priced, changed.catalog(base));
            assert_ne!(*priced, *base);
        }
        // A filter every offer passes changes nothing.
        s.filter.text = String::new();
        assert!(matches!(s.priced_catalog(base), Cow::Borrowed(_)));
    }

    #[test]
    fn added_offers_skip_taken_ids() {
        let base = default_catalog();
        let mut s = Scenario::new(preset("code_check").unwrap(), None);
        let mut mine = base.offers[0].clone();
        mine.id = "mine".into();
        let skipped = s.add_offers(base, vec![base.offers[1].clone(), mine.clone()]);
        assert_eq!(skipped, [base.offers[1].id.clone()]);
        assert_eq!(s.edits.added, [mine.clone()]);
        assert_eq!(s.add_offers(base, vec![mine]), ["mine"]);
        assert_eq!(s.edits.added.len(), 1);
        assert_eq!(s.offers_at_most(base), base.offers.len() + 1);
        assert_eq!(s.catalog(base).offers.len(), s.offers_at_most(base));
        s.edits.removed.push(base.offers[2].id.clone());
        s.filter.text = "autodl".into();
        assert!(s.catalog(base).offers.len() < s.offers_at_most(base));
    }

    #[test]
    fn a_usd_task_is_priced_in_usd_and_switching_converts_its_money() {
        let mut task = preset("sd_batch").unwrap();
        task.currency = Currency::Usd;
        let mut s = Scenario::new(task, None);
        assert_eq!(s.settings.currency, Currency::Usd);
        s.settings.cny_per_usd = Decimal::new(7, 0);
        s.task.value_of_time_per_hour = Decimal::new(10, 0);
        s.switch_currency(Currency::Cny);
        assert_eq!(s.task.value_of_time_per_hour, Decimal::new(7000, 2));
        assert_eq!(s.task.deadline_penalty, Some(Decimal::new(350000, 2)));
        assert_eq!(
            (s.task.currency, s.settings.currency),
            (Currency::Cny, Currency::Cny)
        );
    }

    #[test]
    fn edits_apply_to_the_base_catalog() {
        let base = default_catalog();
        let first = base.offers[0].id.clone();
        let second = base.offers[1].id.clone();
        let mut edits = CatalogEdits::default();
        edits.prices.insert(first.clone(), Decimal::from(3));
        edits.removed.push(second.clone());
        let mut extra = base.offers[2].clone();
        extra.id = "mine".to_owned();
        edits.added.push(extra);
        let c = edits.apply(base);
        assert_eq!(c.offers.len(), base.offers.len());
        assert_eq!(
            c.offers.iter().find(|o| o.id == first).unwrap().price,
            Decimal::from(3)
        );
        assert!(c.offers.iter().all(|o| o.id != second));
        assert_eq!(c.offers.last().unwrap().id, "mine");
    }

    #[test]
    fn an_edited_estimate_is_a_valid_offer_of_the_users_own() {
        let mut base = default_catalog().clone();
        let first = &mut base.offers[0];
        first.estimate = true;
        first.price_evidence = Some(crate::offers::offer::PriceEvidence::Estimate);
        let id = first.id.clone();
        let mut edits = CatalogEdits::default();
        edits.prices.insert(id.clone(), Decimal::from(3));
        let c = edits.apply(&base);
        let edited = c.offers.iter().find(|o| o.id == id).unwrap();
        assert!(!edited.estimate && edited.price_evidence.is_none());
        assert_eq!(validate_offer(edited), Ok(()));
    }
}
