//! A service task's ways to deploy, priced on every offer its plan found feasible, and the
//! cheapest of them that meets the targets.
//!
//! For each feasible offer, the deployments of [`crate::serving::deploy`] run with that offer as
//! the on-demand one, the cheapest feasible term-billed offer of the same GPUs (same currency) as
//! the committed base, and the cheapest feasible shared offer (same currency) as the pool. Costs
//! are compared across offers in the plan's currency.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::money::{Money, convert};
use crate::offers::catalog::Catalog;
use crate::offers::offer::Offer;
use crate::offers::rent::price_per_gpu_hour;
use crate::plan::pipeline::PlanResult;
use crate::serving::deploy::{
    DeploySettings, Deployment, DeploymentKind, DeploymentOffers, Skipped, choose,
    price_deployments,
};
use crate::serving::replica::ReplicaSetup;
use crate::task::document::TaskProfile;
use crate::workload::llm::arch::Precision;

/// The deployments priced on one offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OfferDeployments {
    /// The offer replicas run on by default.
    pub offer_id: String,
    /// The deployments priced, in the offer's currency.
    pub deployments: Vec<Deployment>,
    /// Those that could not be priced, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
}

/// The deployment chosen across every offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServiceChoice {
    /// How it is deployed.
    pub kind: DeploymentKind,
    /// Its offer.
    pub offer_id: String,
    /// Its cost per month, in the plan's currency.
    pub cost_per_month: Money,
    /// Cost per million output tokens, in the plan's currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_per_million_output_tokens: Option<Money>,
    /// Share of requests meeting their targets, 0-1.
    pub attainment: f64,
    /// Whether it meets the attainment target (false: none does; it comes closest).
    pub meets_target: bool,
    /// Why, with the figures compared.
    pub reason: String,
}

/// A service's deployments over the plan's feasible offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServicePlan {
    /// The model served.
    pub model: String,
    /// The traffic's name.
    pub traffic: String,
    /// Mean and peak requests per second.
    pub mean_rps: f64,
    /// Peak requests per second.
    pub peak_rps: f64,
    /// The share of requests that must meet their targets.
    pub attainment_target: f64,
    /// Per feasible offer, in the plan's ranking order.
    pub offers: Vec<OfferDeployments>,
    /// The cheapest deployment meeting the target (or the closest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<ServiceChoice>,
    /// The next cheapest other deployment that meets the target, when the choice meets it: what
    /// the choice's reason compares it with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_up: Option<ServiceChoice>,
    /// Why nothing could be priced, when nothing could.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Assumptions behind the figures, labelled as such.
    pub assumptions: Vec<String>,
}

/// Shared offers tried for the pool, cheapest first.
const MAX_POOLS_TRIED: usize = 8;

/// Offers ordered by price per GPU-hour, then id.
fn by_price(a: &&Offer, b: &&Offer) -> std::cmp::Ordering {
    price_per_gpu_hour(a)
        .cmp(&price_per_gpu_hour(b))
        .then(a.id.cmp(&b.id))
}

/// The cheapest of `offers` by price per GPU-hour.
fn cheapest<'a>(offers: impl Iterator<Item = &'a Offer>) -> Option<&'a Offer> {
    offers.min_by(by_price)
}

/// The deployments of `task`'s service on the offers `plan` found feasible; `None` when the
/// task serves no model.
pub fn plan_service(
    task: &TaskProfile,
    catalog: &Catalog,
    plan: &PlanResult,
) -> Option<ServicePlan> {
    let spec = task.serving.as_ref()?;
    let settings = DeploySettings::default();
    let mut out = ServicePlan {
        model: spec.model.clone(),
        traffic: spec.traffic.name.clone(),
        mean_rps: spec.traffic.mean_rps(),
        peak_rps: spec.traffic.peak_rps(),
        attainment_target: settings.attainment_target,
        offers: Vec::new(),
        choice: None,
        runner_up: None,
        problem: None,
        assumptions: Vec::new(),
    };
    let weights = match spec.weights.as_deref() {
        None => Precision::Bf16,
        Some(w) => match Precision::from_id(w) {
            Some(p) => p,
            None => {
                out.problem = Some(format!(
                    "serving.weights: {w} is not a precision (bf16, fp8, int8, int4, nf4, fp32)"
                ));
                return Some(out);
            }
        },
    };
    let gpus = spec.gpus_per_replica.unwrap_or(task.gpus).max(1);
    let setup = match ReplicaSetup::preset(&spec.model, weights, gpus) {
        Ok(s) => s,
        Err(e) => {
            out.problem = Some(format!("serving.model: {e}"));
            return Some(out);
        }
    };
    let by_id = catalog.by_id();
    let feasible: Vec<&Offer> = plan
        .options
        .iter()
        .filter(|o| o.feasible)
        .filter_map(|o| by_id.get(o.offer_id.as_str()).copied())
        .collect();
    let rate = plan.settings.cny_per_usd;
    let to_plan = |m: &Money| {
        Money::new(
            convert(m.amount, m.currency, plan.currency, rate),
            plan.currency,
        )
    };
    let mut best: Vec<(ServiceChoice, Decimal)> = Vec::new();
    for offer in &feasible {
        let committed = if offer.billing_mode.is_metered() {
            cheapest(feasible.iter().copied().filter(|x| {
                !x.billing_mode.is_metered()
                    && x.gpu == offer.gpu
                    && x.gpu_count == offer.gpu_count
                    && x.currency == offer.currency
                    && x.tenancy == offer.tenancy
            }))
        } else {
            None
        };
        // The shared pool: the cheapest shared offer that can serve the model within the
        // targets (a slice too small or too slow is passed over), trying the eight cheapest.
        let mut pools: Vec<&Offer> = feasible
            .iter()
            .copied()
            .filter(|x| {
                x.tenancy.is_shared() && x.billing_mode.is_metered() && x.currency == offer.currency
            })
            .collect();
        pools.sort_by(by_price);
        let mut priced = None;
        let tries: Vec<Option<&Offer>> = if pools.is_empty() {
            vec![None]
        } else {
            pools
                .iter()
                .take(MAX_POOLS_TRIED)
                .map(|p| Some(*p))
                .collect()
        };
        for shared in tries {
            let offers = DeploymentOffers {
                on_demand: offer,
                committed,
                shared,
            };
            let result = price_deployments(&spec.traffic, &setup, &offers, &settings);
            let pooled = result.as_ref().is_ok_and(|d| {
                d.deployments
                    .iter()
                    .any(|x| x.kind == DeploymentKind::SharedPool)
            });
            if pooled || priced.is_none() {
                priced = Some(result);
            }
            if pooled {
                break;
            }
        }
        let Some(priced) = priced else { continue };
        match priced {
            Ok(d) => {
                if out.assumptions.is_empty() {
                    out.assumptions = d.assumptions.clone();
                }
                if let Some(c) = choose(&d, settings.attainment_target) {
                    let chosen = d
                        .deployments
                        .iter()
                        .find(|x| x.kind == c.kind && x.offer_id == c.offer_id);
                    let cost = to_plan(&c.cost_per_month);
                    best.push((
                        ServiceChoice {
                            kind: c.kind,
                            offer_id: c.offer_id.clone(),
                            cost_per_month: cost,
                            cost_per_million_output_tokens: chosen
                                .and_then(|x| x.cost_per_million_output_tokens.as_ref())
                                .map(to_plan),
                            attainment: c.attainment,
                            meets_target: c.meets_target,
                            reason: String::new(),
                        },
                        cost.amount,
                    ));
                }
                out.offers.push(OfferDeployments {
                    offer_id: offer.id.clone(),
                    deployments: d.deployments,
                    skipped: d.skipped,
                });
            }
            Err(e) => out.offers.push(OfferDeployments {
                offer_id: offer.id.clone(),
                deployments: Vec::new(),
                skipped: vec![Skipped {
                    kind: DeploymentKind::FixedFleet,
                    reason: e.to_string(),
                }],
            }),
        }
    }
    // The cheapest that meets the target; else the one closest to it.
    best.sort_by(|(a, ca), (b, cb)| {
        b.meets_target
            .cmp(&a.meets_target)
            .then(if a.meets_target {
                ca.cmp(cb)
            } else {
                b.attainment.total_cmp(&a.attainment).then(ca.cmp(cb))
            })
            .then(a.offer_id.cmp(&b.offer_id))
    });
    let mut ranked = best.into_iter();
    if let Some((mut first, _)) = ranked.next() {
        let pct = |x: f64| format!("{:.2} %", x * 100.0);
        let other = |c: &ServiceChoice| {
            c.meets_target == first.meets_target
                && (c.kind, &c.offer_id) != (first.kind, &first.offer_id)
        };
        let next = ranked
            .find(|(c, _)| other(c))
            .filter(|_| first.meets_target);
        first.reason = match &next {
            Some((next, next_cost)) => format!(
                "{} on {} costs {} a month and meets the targets for {} of requests; the next cheapest that meets them, {} on {}, costs {} more",
                first.kind.id(),
                first.offer_id,
                first.cost_per_month.display(),
                pct(first.attainment),
                next.kind.id(),
                next.offer_id,
                Money::new(*next_cost - first.cost_per_month.amount, plan.currency).display()
            ),
            _ if first.meets_target => format!(
                "{} on {} costs {} a month and meets the targets for {} of requests; nothing else meets them",
                first.kind.id(),
                first.offer_id,
                first.cost_per_month.display(),
                pct(first.attainment)
            ),
            _ => format!(
                "no deployment meets the targets for {} of requests; {} on {} comes closest, {} at {} a month",
                pct(settings.attainment_target),
                first.kind.id(),
                first.offer_id,
                pct(first.attainment),
                first.cost_per_month.display()
            ),
        };
        out.runner_up = next.map(|(n, _)| n);
        out.choice = Some(first);
    } else if out.problem.is_none() {
        out.problem = Some(if feasible.is_empty() {
            "no offer is feasible for this service".to_owned()
        } else {
            "no offer could host a replica of this model".to_owned()
        });
    }
    Some(out)
}
