//! Reasons: named rules with parameters, so the site and the CLI can word them in any language.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::offers::places::{find_place, jurisdiction_name};

/// Every rule gpufare can cite. Vetoes make an offer infeasible; flags warn; the rest explain
/// the decision.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RuleId {
    // Vetoes (the offer is infeasible).
    /// The task needs more VRAM than the offer shows.
    VramOom,
    /// The offer has fewer GPUs than the task needs.
    TooFewGpus,
    /// Slices cannot join a multi-GPU job (no P2P/NVLink across slices).
    SlicesCannotCombine,
    /// Data must stay in-house: shared capacity is excluded.
    SensitivityRequiresDedicated,
    /// Confidential data: hosts without memory isolation or with unknown operators are excluded.
    SensitivityExcludesTenancy,
    /// The P90 completion time misses a hard deadline.
    DeadlineP90Missed,
    /// The P99 latency including the network round trip misses the target.
    LatencySloMissed,
    /// The task cannot be interrupted and the offer is spot.
    InterruptionsNotTolerated,
    /// Interruptions come faster than the work can finish.
    NeverFinishes,
    /// The expected queue wait exceeds what the task accepts.
    QueueTooLong,
    /// The offer's GPU is not in the spec table.
    UnknownGpu,
    /// The offer is sold in a market the task does not buy from.
    OutsideMarkets,
    /// The task excludes the offer's provider (or lists only others).
    ProviderExcluded,
    /// Confidential data would leave its jurisdiction, which a border rule restricts.
    DataMustStayHome,
    /// The task's tensor-parallel group needs more GPUs on one NVLink domain than the offer has.
    TensorParallelNeedsNvlink,
    // Flags (a warning on a feasible offer).
    /// The task fits, but with under 10 % VRAM headroom.
    VramTight,
    /// Time slicing has no memory isolation: a neighbour can cause an OOM.
    OomRiskNoIsolation,
    /// The offer lacks security controls the sensitivity level asks for.
    MissingSecurityControls,
    /// The price is an estimate, not a public figure.
    PriceIsEstimate,
    /// The expected total exceeds the budget.
    OverBudget,
    /// A remote region adds network latency.
    RemoteRegionLatency,
    /// Reading the task's data at the measured disk rate takes longer than the GPU work.
    DiskBound,
    /// The offer's interruption figures come from a trace attached to it, not an assumption.
    RiskFromTrace,
    /// Personal data would leave its jurisdiction: a border rule applies.
    DataLeavesJurisdiction,
    // Decision rules.
    /// Long work repeated over tuning rounds: the rule of thumb prefers a stable dedicated card.
    LongRepeatedTuning,
    /// A deadline favours dedicated capacity.
    HardDeadline,
    /// Only checking that code runs: try shared capacity first.
    CodeCheckSharedFirst,
    /// Data must not leave the company: dedicated or private deployment.
    DataInHouse,
    /// A tight budget with time to queue favours shared capacity.
    TightBudgetCanQueue,
    /// Production inference with a P99 target favours dedicated or reserved instances.
    ProductionInferenceLatency,
    /// Multi-GPU training needs whole dedicated machines.
    MultiGpuDedicated,
    /// The VRAM need is beyond what 8-16 GB shared slices offer.
    VramBeyondSlices,
    /// The recommended offer has the lowest expected total among feasible offers.
    CheapestTotal,
    /// A rule's preference won because its offer is within the margin of the cheapest.
    PreferenceWithinMargin,
    /// A rule's preference lost because its offer costs more than the margin allows.
    PreferenceOutweighed,
    /// No offer is feasible.
    NoFeasibleOffer,
    /// The recommendation costs more than the cheapest feasible offer: by how much, and what for.
    PremiumOverCheapest,
    /// The task has distinct phases best run on different capacity.
    HybridPhases,
    /// The policy for interruptible capacity behind the offer's figures, with its parameters.
    SpotPolicy,
    /// The recommended offer's price is an estimate or older than
    /// [`crate::plan::option::STALE_PRICE_DAYS`]: its date, age and evidence.
    PriceCaveat,
}

identifiers!(RuleId {
    VramOom => "vram_oom",
    TooFewGpus => "too_few_gpus",
    SlicesCannotCombine => "slices_cannot_combine",
    SensitivityRequiresDedicated => "sensitivity_requires_dedicated",
    SensitivityExcludesTenancy => "sensitivity_excludes_tenancy",
    DeadlineP90Missed => "deadline_p90_missed",
    LatencySloMissed => "latency_slo_missed",
    InterruptionsNotTolerated => "interruptions_not_tolerated",
    NeverFinishes => "never_finishes",
    QueueTooLong => "queue_too_long",
    UnknownGpu => "unknown_gpu",
    OutsideMarkets => "outside_markets",
    ProviderExcluded => "provider_excluded",
    DataMustStayHome => "data_must_stay_home",
    TensorParallelNeedsNvlink => "tensor_parallel_needs_nvlink",
    VramTight => "vram_tight",
    OomRiskNoIsolation => "oom_risk_no_isolation",
    MissingSecurityControls => "missing_security_controls",
    PriceIsEstimate => "price_is_estimate",
    OverBudget => "over_budget",
    RemoteRegionLatency => "remote_region_latency",
    DiskBound => "disk_bound",
    RiskFromTrace => "risk_from_trace",
    DataLeavesJurisdiction => "data_leaves_jurisdiction",
    LongRepeatedTuning => "long_repeated_tuning",
    HardDeadline => "hard_deadline",
    CodeCheckSharedFirst => "code_check_shared_first",
    DataInHouse => "data_in_house",
    TightBudgetCanQueue => "tight_budget_can_queue",
    ProductionInferenceLatency => "production_inference_latency",
    MultiGpuDedicated => "multi_gpu_dedicated",
    VramBeyondSlices => "vram_beyond_slices",
    CheapestTotal => "cheapest_total",
    PreferenceWithinMargin => "preference_within_margin",
    PreferenceOutweighed => "preference_outweighed",
    NoFeasibleOffer => "no_feasible_offer",
    PremiumOverCheapest => "premium_over_cheapest",
    HybridPhases => "hybrid_phases",
    SpotPolicy => "spot_policy",
    PriceCaveat => "price_caveat",
});

impl RuleId {
    /// Whether the rule makes an offer infeasible (the rest warn or explain).
    pub fn is_veto(self) -> bool {
        matches!(
            self,
            RuleId::VramOom
                | RuleId::TooFewGpus
                | RuleId::SlicesCannotCombine
                | RuleId::SensitivityRequiresDedicated
                | RuleId::SensitivityExcludesTenancy
                | RuleId::DeadlineP90Missed
                | RuleId::LatencySloMissed
                | RuleId::InterruptionsNotTolerated
                | RuleId::NeverFinishes
                | RuleId::QueueTooLong
                | RuleId::UnknownGpu
                | RuleId::OutsideMarkets
                | RuleId::ProviderExcluded
                | RuleId::DataMustStayHome
                | RuleId::TensorParallelNeedsNvlink
        )
    }
}

/// How the best offer of the kind a rule prefers stands against the cheapest feasible offer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// It is the cheapest.
    Cheapest,
    /// It costs this much more (display-ready money).
    CostsMore(String),
}

/// A rule with the numbers that make it concrete (all as display-ready text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reason {
    /// The rule.
    pub rule: RuleId,
    /// Named parameters, e.g. `need_gib`, `visible_gib`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, String>,
}

impl Reason {
    /// A reason without parameters.
    pub fn new(rule: RuleId) -> Reason {
        Reason {
            rule,
            params: BTreeMap::new(),
        }
    }

    /// Adds a parameter.
    pub fn with(mut self, key: &str, value: impl ToString) -> Reason {
        self.params.insert(key.to_owned(), value.to_string());
        self
    }

    /// The English sentence for this reason (the CLI's wording; the site translates by rule id).
    /// A veto that sums up several offers ends with how many it excluded.
    pub fn english(&self) -> String {
        let text = self.english_sentence();
        let text = match self.params.get("offers") {
            Some(n) if self.rule.is_veto() => format!("{text} ({n} offers)"),
            _ => text,
        };
        match self.standing() {
            Some(Standing::Cheapest) => {
                format!("{text}; also the cheapest by the numbers")
            }
            Some(Standing::CostsMore(extra)) => {
                format!("{text}; by the numbers it costs {extra} more than the cheapest")
            }
            None => text,
        }
    }

    /// How a preference rule's kind of capacity stands against the cheapest offer, by the plan's
    /// own figures (see [`crate::plan::decision`]), when the decision says.
    pub fn standing(&self) -> Option<Standing> {
        match self.params.get("standing").map(String::as_str) {
            Some("cheapest") => Some(Standing::Cheapest),
            Some("costs_more") => Some(Standing::CostsMore(
                self.params.get("extra").cloned().unwrap_or_default(),
            )),
            _ => None,
        }
    }

    fn english_sentence(&self) -> String {
        let p = |k: &str| self.params.get(k).cloned().unwrap_or_default();
        match self.rule {
            RuleId::VramOom => format!(
                "needs {} GiB of VRAM but the offer shows {} GiB",
                p("need_gib"),
                p("visible_gib")
            ),
            RuleId::TooFewGpus => format!("needs {} GPUs, the offer has {}", p("need"), p("have")),
            RuleId::SlicesCannotCombine => {
                "GPU slices cannot be combined into one multi-GPU job".to_owned()
            }
            RuleId::SensitivityRequiresDedicated => {
                "data must stay in-house: shared capacity is excluded".to_owned()
            }
            RuleId::SensitivityExcludesTenancy => {
                format!("confidential data: {} is excluded", p("tenancy"))
            }
            RuleId::DeadlineP90Missed => format!(
                "P90 completion {} h misses the {} h deadline",
                p("p90_hours"),
                p("deadline_hours")
            ),
            RuleId::LatencySloMissed => format!(
                "P99 latency {} ms (with {} ms RTT) misses the {} ms target",
                p("p99_ms"),
                p("rtt_ms"),
                p("target_ms")
            ),
            RuleId::InterruptionsNotTolerated => {
                "the task cannot be interrupted and this is spot capacity".to_owned()
            }
            RuleId::NeverFinishes => {
                "interruptions come faster than the work can finish; add checkpoints".to_owned()
            }
            RuleId::QueueTooLong => format!(
                "one start in ten waits {} h or more in the queue (P90), over the accepted {} h",
                p("queue_hours"),
                p("max_hours")
            ),
            RuleId::UnknownGpu => format!("GPU {} is not in the spec table", p("gpu")),
            RuleId::TensorParallelNeedsNvlink => format!(
                "tensor parallelism over {} GPUs needs them on one NVLink domain; here {} GPU(s) share one",
                p("tensor_parallel"),
                p("nvlink_domain")
            ),
            RuleId::VramTight => format!(
                "fits with little headroom: {} of {} GiB",
                p("need_gib"),
                p("visible_gib")
            ),
            RuleId::OomRiskNoIsolation => {
                "time slicing has no memory isolation: a neighbour can cause an OOM".to_owned()
            }
            RuleId::MissingSecurityControls => format!("lacks security controls: {}", p("missing")),
            RuleId::PriceIsEstimate => format!("the price is an estimate ({})", p("note")),
            RuleId::OverBudget => format!(
                "expected total {} exceeds the budget {}",
                p("total"),
                p("budget")
            ),
            RuleId::RemoteRegionLatency => {
                let basis = match p("basis").as_str() {
                    "measured" => format!("measured to {}", p("note")),
                    "published" => format!("published measurement, {}", p("note")),
                    "distance" => format!("estimated from {}", p("note")),
                    _ => "the catalog's figure".to_owned(),
                };
                match find_place(&p("from")) {
                    None => format!(
                        "{} region: about {} ms of round trip ({basis})",
                        p("class"),
                        p("rtt_ms")
                    ),
                    Some(from) => format!(
                        "about {} ms of round trip from {} ({basis})",
                        p("rtt_ms"),
                        from.name_en
                    ),
                }
            }
            RuleId::OutsideMarkets => {
                let sold = match p("market").as_str() {
                    "mainland_china" => "sold in mainland China",
                    _ => "sold outside mainland China",
                };
                let allowed = match p("allowed").as_str() {
                    "mainland_china" => "in mainland China",
                    _ => "outside mainland China",
                };
                format!("{sold}; the task buys only {allowed}")
            }
            RuleId::ProviderExcluded => {
                format!("provider {} is excluded by the task", p("provider"))
            }
            RuleId::DataMustStayHome => format!(
                "confidential data would leave {} for {}, which {} restricts ({})",
                jurisdiction_name(&p("from")),
                jurisdiction_name(&p("to")),
                p("law"),
                p("source")
            ),
            RuleId::DataLeavesJurisdiction => format!(
                "personal data would leave {} for {}: a cross-border transfer under {} ({})",
                jurisdiction_name(&p("from")),
                jurisdiction_name(&p("to")),
                p("law"),
                p("source")
            ),
            RuleId::DiskBound => format!(
                "the disk limits each run: reading the data takes {} h at the measured {} MB/s, \
                 the GPU work {} h",
                p("read_hours"),
                p("mb_per_s"),
                p("compute_hours")
            ),
            RuleId::LongRepeatedTuning => format!(
                "{} runs of {} h each: the rule of thumb prefers a stable dedicated card",
                p("runs"),
                p("work_hours")
            ),
            RuleId::HardDeadline => format!(
                "a deadline of {} h favours dedicated capacity",
                p("deadline_hours")
            ),
            RuleId::CodeCheckSharedFirst => {
                "only checking that the code runs: try cheap shared capacity first".to_owned()
            }
            RuleId::DataInHouse => {
                "data must not leave the company: use dedicated machines or a private deployment"
                    .to_owned()
            }
            RuleId::TightBudgetCanQueue => format!(
                "a budget of {} with time to queue favours shared capacity",
                p("budget")
            ),
            RuleId::ProductionInferenceLatency => format!(
                "production inference with a {} ms P99 target favours dedicated or reserved instances with autoscaling",
                p("target_ms")
            ),
            RuleId::MultiGpuDedicated => {
                format!("{}-GPU training needs whole dedicated machines", p("gpus"))
            }
            RuleId::VramBeyondSlices => {
                format!("{} GiB is beyond 8-16 GB shared slices", p("need_gib"))
            }
            RuleId::CheapestTotal => format!(
                "{} has the lowest expected total, {}",
                p("offer"),
                p("total")
            ),
            RuleId::PreferenceWithinMargin => format!(
                "{} costs at most {} % more than the cheapest, so the rules' preference for {} wins",
                p("offer"),
                p("margin_pct"),
                p("choice")
            ),
            RuleId::PreferenceOutweighed => format!(
                "the rules favour {}, but its best offer costs {} % more than the cheapest",
                p("choice"),
                p("extra_pct")
            ),
            RuleId::NoFeasibleOffer => format!(
                "none of the {} offers can run this task, for the reasons below",
                p("offers")
            ),
            RuleId::PremiumOverCheapest => {
                let risk = match (
                    self.params.get("miss_pct"),
                    self.params.get("cheapest_miss_pct"),
                ) {
                    (Some(a), Some(b)) => {
                        format!(", deadline missed {a} % against {b} % of the time")
                    }
                    _ => String::new(),
                };
                format!(
                    "{} costs {} ({} %) more than the cheapest, {}; for that: P90 time {} h against {} h, \
                     P90 total {} against {}{risk} (rule: {})",
                    p("offer"),
                    p("extra"),
                    p("extra_pct"),
                    p("cheapest"),
                    p("p90_hours"),
                    p("cheapest_p90_hours"),
                    p("p90_total"),
                    p("cheapest_p90_total"),
                    p("rule")
                )
            }
            RuleId::HybridPhases => {
                "prototype on shared pay-as-you-go, then run the main work on dedicated capacity"
                    .to_owned()
            }
            RuleId::RiskFromTrace => format!(
                "interruptions from the trace {}: {} preemptions in {} h, {} per running hour",
                p("trace"),
                p("preemptions"),
                p("hours"),
                p("per_running_hour")
            ),
            // Short enough for one printed line: the offer is the recommended one, named above.
            RuleId::PriceCaveat => {
                let as_of = p("as_of");
                let age = self.params.get("age_days").map_or("?", String::as_str);
                let evidence = self
                    .params
                    .get("evidence")
                    .map(|e| format!(", evidence: {e}"))
                    .unwrap_or_default();
                match (
                    self.params.contains_key("estimate"),
                    self.params.get("stale_after_days"),
                ) {
                    (true, Some(limit)) => format!(
                        "the price is an estimate, {age} days old ({as_of}; over {limit} days): \
                         ask for a quote before committing"
                    ),
                    (true, None) => format!(
                        "the price is an estimate ({as_of}{}): ask the provider for a quote before \
                         committing",
                        self.params
                            .get("age_days")
                            .map(|a| format!(", {a} days old"))
                            .unwrap_or_default()
                    ),
                    (false, limit) => format!(
                        "the price is {age} days old ({as_of}{evidence}; over {} days): check it \
                         before committing",
                        limit.map_or("?", String::as_str)
                    ),
                }
            }
            RuleId::SpotPolicy => {
                let policy = match p("policy").as_str() {
                    "spot_only" => "stay on the interruptible offer".to_owned(),
                    "deadline_aware" => format!(
                        "stay while the deadline's slack lasts, then move to {}",
                        p("fallback")
                    ),
                    "on_demand_only" => format!("run everything on {}", p("fallback")),
                    other => match other.strip_prefix("fallback_after_") {
                        Some(n) => format!("move to {} after {n} preemptions", p("fallback")),
                        None => other.to_owned(),
                    },
                };
                format!(
                    "policy {}: {policy}; expected total {} ({} staying put, saving {})",
                    p("policy"),
                    p("total"),
                    p("spot_only_total"),
                    p("saving")
                )
            }
        }
    }
}
