//! What pricing every offer of one plan shares: the task, the settings, the reference GPU — and
//! the conversions of money into the plan's currency and of float quantities into exact decimals.

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use crate::hardware::gpu::{GpuSpec, find_gpu};
use crate::numbers::money::{Currency, Money};
use crate::offers::billing::BillingMode;
use crate::offers::offer::Offer;
use crate::offers::tenancy::Tenancy;
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
    /// Lookups into `offers`, `traces` and `walks`, so that pricing each offer finds another in
    /// logarithmic time whatever the catalog's size and shape.
    index: Index<'a>,
}

/// What a policy's fallback must share with the offer it replaces.
type SameCapacity<'a> = (&'a str, &'a str, u32, Tenancy, u64);

fn same_capacity(o: &Offer) -> SameCapacity<'_> {
    (
        o.provider.as_str(),
        o.gpu.as_str(),
        o.gpu_count,
        o.tenancy,
        o.gpu_fraction.to_bits(),
    )
}

/// The two best offers by a key, so that the best other than any one offer is at hand.
type BestTwo = [Option<usize>; 2];

/// Indexes of one plan's offers, built once (ordered maps: no hashing seeds, the same on every
/// run and target).
#[derive(Debug, Default)]
struct Index<'a> {
    /// Place of each offer id (the first, as a scan would find).
    offer: BTreeMap<&'a str, usize>,
    /// Place of each trace by offer id (the first).
    trace: BTreeMap<&'a str, usize>,
    /// Place of each walk by offer id (the first).
    walk: BTreeMap<String, usize>,
    /// The pay-as-you-go, never-interrupted, untraced offers by the capacity they sell: the two
    /// cheapest per GPU-hour (ties by id) overall and in each region.
    steady: BTreeMap<SameCapacity<'a>, (BestTwo, BTreeMap<&'a str, BestTwo>)>,
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
            index: Index::default(),
        }
    }

    /// The same, with the plan's offers and the traces attached to them.
    pub fn with_evidence(self, offers: &'a [Offer], traces: &'a [AttachedTrace]) -> Context<'a> {
        let mut ctx = Context {
            offers,
            traces,
            ..self
        };
        let mut index = Index::default();
        for (i, o) in offers.iter().enumerate() {
            index.offer.entry(o.id.as_str()).or_insert(i);
        }
        for (i, t) in traces.iter().enumerate() {
            index.trace.entry(t.offer_id.as_str()).or_insert(i);
        }
        ctx.index = index;
        let mut steady: BTreeMap<SameCapacity<'a>, (BestTwo, BTreeMap<&'a str, BestTwo>)> =
            BTreeMap::new();
        let keys: Vec<(Decimal, &str)> = offers
            .iter()
            .map(|o| (ctx.price_per_gpu_hour(o), o.id.as_str()))
            .collect();
        let before = |a: usize, b: usize| keys.get(a) < keys.get(b);
        for (i, o) in offers.iter().enumerate() {
            if o.billing_mode != BillingMode::PayAsYouGo
                || o.interruptions.interrupts()
                || ctx.trace_for(o).is_some()
            {
                continue;
            }
            let (all, regions) = steady.entry(same_capacity(o)).or_default();
            keep_best(all, i, before);
            keep_best(regions.entry(o.region.id.as_str()).or_default(), i, before);
        }
        ctx.index.steady = steady;
        ctx
    }

    /// The same, with the policies to walk with staying.
    pub fn with_walks(mut self, walks: Vec<PolicyWalk>) -> Context<'a> {
        self.index.walk = BTreeMap::new();
        for (i, w) in walks.iter().enumerate() {
            self.index.walk.entry(w.offer_id.clone()).or_insert(i);
        }
        Context { walks, ..self }
    }

    /// The policies to walk with staying on `offer`, if prepared.
    pub fn walk_for(&self, offer: &Offer) -> Option<&PolicyWalk> {
        self.walks.get(*self.index.walk.get(offer.id.as_str())?)
    }

    /// The trace attached to `offer`, if any.
    pub fn trace_for(&self, offer: &Offer) -> Option<&'a AttachedTrace> {
        self.traces.get(*self.index.trace.get(offer.id.as_str())?)
    }

    /// The place in `offers` of the offer with `id` (the first, should several share it).
    pub fn place_of(&self, id: &str) -> Option<usize> {
        self.index.offer.get(id).copied()
    }

    /// The offer with `id` (the first, should several share it).
    pub fn offer_named(&self, id: &str) -> Option<&'a Offer> {
        self.offers.get(self.place_of(id)?)
    }

    /// The pay-as-you-go offer, never interrupted and without a trace, selling the same capacity
    /// as `offer` (provider, GPU, GPU count, tenancy, share of the card) other than `offer`
    /// itself: in its region first, then the cheapest per GPU-hour, then the first id.
    pub fn steady_twin(&self, offer: &Offer) -> Option<&'a Offer> {
        let (all, regions) = self.index.steady.get(&same_capacity(offer))?;
        let other = |best: &BestTwo| {
            best.iter()
                .flatten()
                .filter_map(|&i| self.offers.get(i))
                .find(|o| o.id != offer.id)
        };
        regions
            .get(offer.region.id.as_str())
            .and_then(other)
            .or_else(|| other(all))
    }

    /// Converts an amount to the output currency at the user's rate.
    pub fn convert(&self, amount: Decimal, from: Currency) -> Decimal {
        self.settings.convert(amount, from)
    }

    /// The discount factor for a provider (1 when none is set).
    pub fn discount(&self, provider: &str) -> Decimal {
        self.settings.discount(provider)
    }

    /// An offer's own price converted to output currency with its provider discount.
    pub fn offer_money(&self, offer: &Offer, amount: Decimal) -> Decimal {
        self.settings.offer_money(offer, amount)
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
        self.settings.price_per_gpu_hour(offer)
    }
}

/// Puts `i` among the two best of `best` by `before` (strictly earlier wins; the first kept on
/// a tie).
fn keep_best(best: &mut BestTwo, i: usize, before: impl Fn(usize, usize) -> bool) {
    match *best {
        [None, _] => best[0] = Some(i),
        [Some(a), _] if before(i, a) => *best = [Some(i), Some(a)],
        [Some(_), None] => best[1] = Some(i),
        [Some(_), Some(b)] if before(i, b) => best[1] = Some(i),
        _ => {}
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
