//! Whether a task can run on an offer at all, before any time or money: VRAM, GPU count, slices,
//! data sensitivity, interruptions and the queue.
//!
//! [`check`] is the one rule. The plan prices what it allows ([`crate::plan::cost`]), the hybrid
//! plan picks its phases among the plan's feasible options, the decision reads their verdicts,
//! and the workload estimator's catalog fit ([`crate::workload::fit`]) applies it to a bare VRAM
//! need. What depends on time (a deadline, a latency target, interruptions that never let the
//! work finish) is judged after the time model, in [`crate::plan::cost`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::gpu::find_gpu;
use crate::offers::billing::BillingMode;
use crate::offers::links::nvlink_domain;
use crate::offers::offer::Offer;
use crate::offers::tenancy::Tenancy;
use crate::plan::reason::{Reason, RuleId};
use crate::plan::security::required_controls;
use crate::task::document::{Sensitivity, TaskProfile};

/// A VRAM need above this share of the visible VRAM is "tight": allocator fragmentation and the
/// CUDA context leave little room (calculators fit against 0.9 × the visible memory).
pub const VRAM_TIGHT_SHARE: f64 = 0.9;

/// How the task's VRAM need compares with what an offer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VramFit {
    /// Need <= 90 % of visible VRAM.
    Fits,
    /// Need within the last 10 % of visible VRAM.
    Tight,
    /// Need above visible VRAM: infeasible.
    Oom,
}

identifiers!(VramFit {
    Fits => "fits",
    Tight => "tight",
    Oom => "oom",
});

/// How a need of `need_gib` per GPU compares with `visible_gib`: up to [`VRAM_TIGHT_SHARE`] of it
/// fits, up to all of it is tight, above it (or a need that is not a number) is out of memory.
pub fn vram_fit(need_gib: f64, visible_gib: f64) -> VramFit {
    if need_gib > visible_gib || need_gib.is_nan() {
        VramFit::Oom
    } else if need_gib > VRAM_TIGHT_SHARE * visible_gib {
        VramFit::Tight
    } else {
        VramFit::Fits
    }
}

/// What a task needs of an offer, before any time or money.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Needs {
    /// VRAM per GPU, GiB.
    pub vram_gib: f64,
    /// GPUs that must work together.
    pub gpus: u32,
    /// How sensitive the data is.
    pub sensitivity: Sensitivity,
    /// Whether the job tolerates interruptions (spot).
    pub interruptible: bool,
    /// The longest queue wait the job accepts at the 90th percentile, hours.
    pub max_queue_hours: Option<f64>,
    /// GPUs of each tensor-parallel group, which must share an NVLink domain (1: none).
    pub tensor_parallel: u32,
}

impl Needs {
    /// What `task` needs.
    pub fn of(task: &TaskProfile) -> Needs {
        Needs {
            vram_gib: task.vram_gib,
            gpus: task.gpus,
            sensitivity: task.sensitivity,
            interruptible: task.interruptible,
            max_queue_hours: task.max_queue_hours,
            tensor_parallel: task
                .data_parallel
                .as_ref()
                .map_or(1, |dp| dp.tensor_parallel()),
        }
    }

    /// A bare memory need on `gpus` GPUs (public data, interruptions and any queue accepted), as
    /// the workload estimator has it.
    pub fn memory(vram_gib: f64, gpus: u32) -> Needs {
        Needs {
            vram_gib,
            gpus,
            sensitivity: Sensitivity::Public,
            interruptible: true,
            max_queue_hours: None,
            tensor_parallel: 1,
        }
    }
}

/// The verdict of [`check`]: the VRAM fit, the vetoes that make the offer infeasible and the
/// flags that only warn, each a reason with its numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Feasibility {
    /// How the VRAM need compares with the offer's.
    pub vram_fit: VramFit,
    /// Why the task cannot run here; empty when it can.
    pub vetoes: Vec<Reason>,
    /// Warnings that do not stop it.
    pub flags: Vec<Reason>,
}

impl Feasibility {
    /// Whether nothing vetoes the offer.
    pub fn is_feasible(&self) -> bool {
        self.vetoes.is_empty()
    }

    /// Whether the offer has enough GPUs that can work together for the job.
    pub fn enough_gpus(&self) -> bool {
        !self
            .vetoes
            .iter()
            .any(|r| matches!(r.rule, RuleId::TooFewGpus | RuleId::SlicesCannotCombine))
    }
}

/// Whether a task with `needs` can run on `offer`, and what to warn about.
pub fn check(needs: &Needs, offer: &Offer) -> Feasibility {
    let mut vetoes = Vec::new();
    let mut flags = Vec::new();
    if find_gpu(&offer.gpu).is_none() {
        vetoes.push(Reason::new(RuleId::UnknownGpu).with("gpu", &offer.gpu));
    }

    let fit = vram_fit(needs.vram_gib, offer.vram_gib);
    let vram = |rule| {
        Reason::new(rule)
            .with("need_gib", fmt1(needs.vram_gib))
            .with("visible_gib", fmt1(offer.vram_gib))
    };
    match fit {
        VramFit::Oom => vetoes.push(vram(RuleId::VramOom)),
        VramFit::Tight => flags.push(vram(RuleId::VramTight)),
        VramFit::Fits => {}
    }
    if !offer.tenancy.isolates_memory() {
        flags.push(Reason::new(RuleId::OomRiskNoIsolation));
    }

    if needs.gpus > offer.gpu_count {
        vetoes.push(
            Reason::new(RuleId::TooFewGpus)
                .with("need", needs.gpus)
                .with("have", offer.gpu_count),
        );
    }
    if needs.gpus > 1 && offer.tenancy.is_slice() {
        vetoes.push(Reason::new(RuleId::SlicesCannotCombine));
    }
    // Megatron-style tensor parallelism exchanges activations inside every layer: its groups
    // stay inside one NVLink domain (a node's NVLink-joined GPUs).
    let domain = nvlink_domain(offer);
    if needs.tensor_parallel > 1 && !offer.tenancy.is_slice() && domain < needs.tensor_parallel {
        vetoes.push(
            Reason::new(RuleId::TensorParallelNeedsNvlink)
                .with("tensor_parallel", needs.tensor_parallel)
                .with("nvlink_domain", domain),
        );
    }

    match needs.sensitivity {
        Sensitivity::InHouse if offer.tenancy.is_shared() => {
            vetoes.push(
                Reason::new(RuleId::SensitivityRequiresDedicated)
                    .with("sensitivity", needs.sensitivity.id())
                    .with("tenancy", offer.tenancy.id()),
            );
        }
        Sensitivity::Confidential
            if matches!(
                offer.tenancy,
                Tenancy::TimeSliced | Tenancy::MarketplaceHost
            ) =>
        {
            vetoes.push(
                Reason::new(RuleId::SensitivityExcludesTenancy).with("tenancy", offer.tenancy.id()),
            );
        }
        _ => {}
    }
    let missing: Vec<&str> = required_controls(needs.sensitivity)
        .iter()
        .filter(|c| !offer.security.contains(c))
        .map(|c| c.id())
        .collect();
    if !missing.is_empty() {
        flags
            .push(Reason::new(RuleId::MissingSecurityControls).with("missing", missing.join(", ")));
    }

    if offer.billing_mode == BillingMode::Spot && !needs.interruptible {
        vetoes.push(Reason::new(RuleId::InterruptionsNotTolerated));
    }
    // A queue is "at once, or a long while": its mean hides both; the P90 is the wait to plan for.
    let queue = offer.queue().quantile_hours(0.9);
    if let Some(max) = needs.max_queue_hours
        && queue > max
    {
        vetoes.push(
            Reason::new(RuleId::QueueTooLong)
                .with("queue_hours", fmt1(queue))
                .with("max_hours", fmt1(max)),
        );
    }
    Feasibility {
        vram_fit: fit,
        vetoes,
        flags,
    }
}

/// One decimal place, for reason parameters; `∞` for what never ends.
pub fn fmt1(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        "∞".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::default::default_catalog;

    #[test]
    fn the_vram_rule() {
        let rows = [
            ("well inside", 10.0, 12.0, VramFit::Fits),
            ("exactly 90 %", 10.8, 12.0, VramFit::Fits),
            ("just above 90 %", 10.81, 12.0, VramFit::Tight),
            ("exactly all", 12.0, 12.0, VramFit::Tight),
            ("above", 12.01, 12.0, VramFit::Oom),
            ("nan", f64::NAN, 12.0, VramFit::Oom),
        ];
        for (name, need, visible, expected) in rows {
            assert_eq!(vram_fit(need, visible), expected, "{name}");
        }
    }

    #[test]
    fn in_house_data_vetoes_every_shared_offer_and_says_why() {
        let needs = Needs {
            sensitivity: Sensitivity::InHouse,
            ..Needs::memory(8.0, 1)
        };
        for offer in &default_catalog().offers {
            let f = check(&needs, offer);
            let vetoed = f
                .vetoes
                .iter()
                .find(|r| r.rule == RuleId::SensitivityRequiresDedicated);
            assert_eq!(vetoed.is_some(), offer.tenancy.is_shared(), "{}", offer.id);
            if let Some(r) = vetoed {
                assert_eq!(r.params["sensitivity"], "in_house");
                assert_eq!(r.params["tenancy"], offer.tenancy.id());
            }
        }
    }

    #[test]
    fn slices_never_join_a_multi_gpu_job() {
        let needs = Needs::memory(8.0, 2);
        for offer in &default_catalog().offers {
            let f = check(&needs, offer);
            if offer.tenancy.is_slice() || offer.gpu_count < 2 {
                assert!(!f.enough_gpus() && !f.is_feasible(), "{}", offer.id);
            }
        }
    }
}
