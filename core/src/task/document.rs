//! The task profile: what the user wants to run, how much of it, and what they care about.
//!
//! Work is measured in hours on a named reference GPU (a dedicated card); gpufare scales it to
//! each offer's GPU. Everything optional has a stated default, so a minimal task file is short.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::numbers::money::Currency;

/// The task format this build writes and the newest it reads.
pub const TASK_FORMAT_VERSION: u32 = 1;

/// What kind of work the task is; drives several decision rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// Training from scratch.
    Training,
    /// Full-parameter fine-tuning.
    FineTuneFull,
    /// LoRA fine-tuning.
    FineTuneLora,
    /// QLoRA fine-tuning (4-bit base weights).
    FineTuneQlora,
    /// An inference service with a latency target.
    Inference,
    /// Image generation (Stable Diffusion and kin).
    ImageGeneration,
    /// LoRA training for a diffusion model.
    SdLoraTraining,
    /// Rendering.
    Rendering,
    /// Batch processing or data cleaning.
    Batch,
    /// Only checking that the code runs.
    CodeCheck,
}

identifiers!(TaskKind {
    Training => "training",
    FineTuneFull => "fine_tune_full",
    FineTuneLora => "fine_tune_lora",
    FineTuneQlora => "fine_tune_qlora",
    Inference => "inference",
    ImageGeneration => "image_generation",
    SdLoraTraining => "sd_lora_training",
    Rendering => "rendering",
    Batch => "batch",
    CodeCheck => "code_check",
});

impl TaskKind {
    /// Whether the task trains or fine-tunes a model (the kinds a hybrid plan applies to).
    pub fn is_training(self) -> bool {
        matches!(
            self,
            TaskKind::Training
                | TaskKind::FineTuneFull
                | TaskKind::FineTuneLora
                | TaskKind::FineTuneQlora
                | TaskKind::SdLoraTraining
        )
    }
}

/// Whether the work is limited by arithmetic or by memory bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Scales with tensor TFLOPS (training, prefill, diffusion).
    #[default]
    Compute,
    /// Scales with memory bandwidth (LLM decoding).
    Memory,
}

identifiers!(Bound {
    Compute => "compute",
    Memory => "memory",
});

/// How sensitive the data is.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    JsonSchema,
    Default,
)]
#[serde(rename_all = "snake_case")]
pub enum Sensitivity {
    /// Public data.
    #[default]
    Public,
    /// Internal data: basic isolation wanted.
    Internal,
    /// Confidential data: network isolation, encryption and audit needed.
    Confidential,
    /// Must not leave the company boundary: dedicated or private deployment only.
    InHouse,
}

identifiers!(Sensitivity {
    Public => "public",
    Internal => "internal",
    Confidential => "confidential",
    InHouse => "in_house",
});

/// Checkpointing of a long job.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Checkpoint {
    /// Hours of work between checkpoints.
    pub interval_hours: f64,
    /// Hours lost to each restart (re-provision, reload, warm-up).
    pub restart_overhead_hours: f64,
}

/// A latency target for an inference service.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LatencyTarget {
    /// The P99 latency the service must meet, milliseconds.
    pub p99_ms: f64,
    /// Server-side latency on a dedicated reference card, milliseconds.
    pub base_ms: f64,
}

/// A long-running service: hours per month for a number of months.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Service {
    /// Hours per month the service runs (730 = always on).
    pub hours_per_month: f64,
    /// Months it runs.
    pub months: f64,
}

/// A development phase on cheap shared capacity before the main work (for the hybrid plan).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Prototype {
    /// Hours of development and debugging on a GPU.
    pub hours: f64,
}

/// Money typed in a task, in the task's currency.
pub type Amount = Decimal;

/// Everything gpufare needs to know about a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskProfile {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// A name for the task.
    #[serde(default)]
    pub name: String,
    /// What kind of work it is.
    pub kind: TaskKind,
    /// Hours one run takes on one dedicated reference GPU.
    pub work_hours: f64,
    /// The GPU `work_hours` was measured or estimated on (short name, e.g. `A100-80GB`).
    pub reference_gpu: String,
    /// Whether work scales with compute or with memory bandwidth.
    #[serde(default)]
    pub bound: Bound,
    /// Number of runs (tuning rounds multiply the work).
    #[serde(default = "one")]
    pub runs: u32,
    /// VRAM needed per GPU, GiB.
    pub vram_gib: f64,
    /// GPUs the job needs at least (multi-GPU training needs whole cards that can talk).
    #[serde(default = "one")]
    pub gpus: u32,
    /// Whether the work spreads over every GPU of a bigger machine (DDP/FSDP).
    #[serde(default)]
    pub scales_across_gpus: bool,
    /// Data sensitivity.
    #[serde(default)]
    pub sensitivity: Sensitivity,
    /// Wall-clock hours by which the whole task must be done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_hours: Option<f64>,
    /// What missing the deadline costs, in `currency`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub deadline_penalty: Option<Amount>,
    /// When true, an offer whose P90 completion time misses the deadline is infeasible.
    #[serde(default)]
    pub deadline_hard: bool,
    /// Latency target, for inference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyTarget>,
    /// Checkpointing; absent means a restart begins from scratch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Checkpoint>,
    /// Whether the job tolerates interruptions at all (false excludes spot).
    #[serde(default = "yes")]
    pub interruptible: bool,
    /// Longest acceptable expected wait before the job starts, hours (absent: any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_queue_hours: Option<f64>,
    /// Value of one wall-clock hour of waiting (the engineer's or the business's), in `currency`.
    #[serde(default)]
    #[schemars(with = "String")]
    pub value_of_time_per_hour: Amount,
    /// The budget for the task, in `currency`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub budget: Option<Amount>,
    /// A long-running service instead of a batch job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<Service>,
    /// Development on shared capacity before the main work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prototype: Option<Prototype>,
    /// Data kept on the provider's storage, GB.
    #[serde(default)]
    pub storage_gb: f64,
    /// Months the data stays (at least the task's duration is billed).
    #[serde(default)]
    pub storage_months: f64,
    /// Data sent out to the internet, GB.
    #[serde(default)]
    pub egress_gb: f64,
    /// Data each run reads from the machine's disk (dataset size times epochs), GB. With a
    /// measured disk rate for an offer, a run lasts at least as long as reading it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_read_gb: Option<f64>,
    /// Data each run downloads before it can start (weights, a dataset), GB. With a measured
    /// download rate for an offer, each run waits for it, on the clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_download_gb: Option<f64>,
    /// Currency of the money fields in this task.
    pub currency: Currency,
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
}

/// Why a task cannot be priced; names the field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("task field {field}: {message}")]
pub struct TaskError {
    /// The field at fault.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl TaskProfile {
    /// Checks ranges so the model never sees NaN, negatives or absurd values.
    pub fn validate(&self) -> Result<(), TaskError> {
        let fail = |field: &str, message: &str| {
            Err(TaskError {
                field: field.to_owned(),
                message: message.to_owned(),
            })
        };
        let in_range = |v: f64, lo: f64, hi: f64| v.is_finite() && v >= lo && v <= hi;
        if self.format_version > TASK_FORMAT_VERSION {
            return Err(TaskError {
                field: "format_version".to_owned(),
                message: format!(
                    "version {} is newer than this gpufare supports (up to {TASK_FORMAT_VERSION})",
                    self.format_version
                ),
            });
        }
        if !in_range(self.work_hours, 0.0, 1_000_000.0) {
            return fail("work_hours", "must be between 0 and 1000000");
        }
        if crate::hardware::gpu::find_gpu(&self.reference_gpu).is_none() {
            return fail("reference_gpu", "is not in the GPU spec table");
        }
        if self.runs == 0 || self.runs > 10_000 {
            return fail("runs", "must be between 1 and 10000");
        }
        if !in_range(self.vram_gib, 0.0, 100_000.0) {
            return fail("vram_gib", "must be between 0 and 100000");
        }
        if self.gpus == 0 || self.gpus > 1024 {
            return fail("gpus", "must be between 1 and 1024");
        }
        if let Some(d) = self.deadline_hours
            && !in_range(d, 0.0, 1_000_000.0)
        {
            return fail("deadline_hours", "must be between 0 and 1000000");
        }
        let money_max = Decimal::from(1_000_000_000_000i64);
        for (field, v) in [
            ("deadline_penalty", self.deadline_penalty),
            ("value_of_time_per_hour", Some(self.value_of_time_per_hour)),
            ("budget", self.budget),
        ] {
            if let Some(v) = v
                && (v.is_sign_negative() && !v.is_zero() || v > money_max)
            {
                return fail(field, "must be between 0 and 1000000000000");
            }
        }
        if let Some(l) = &self.latency
            && !(in_range(l.p99_ms, 0.001, 3_600_000.0) && in_range(l.base_ms, 0.0, 3_600_000.0))
        {
            return fail(
                "latency",
                "p99_ms must be positive and base_ms not negative",
            );
        }
        if let Some(c) = &self.checkpoint
            && !(in_range(c.interval_hours, 0.001, 1_000_000.0)
                && in_range(c.restart_overhead_hours, 0.0, 10_000.0))
        {
            return fail(
                "checkpoint",
                "interval_hours must be positive and restart_overhead_hours not negative",
            );
        }
        if let Some(q) = self.max_queue_hours
            && !in_range(q, 0.0, 1_000_000.0)
        {
            return fail("max_queue_hours", "must be between 0 and 1000000");
        }
        if let Some(s) = &self.service
            && !(in_range(s.hours_per_month, 0.0, 730.0) && in_range(s.months, 0.0, 1200.0))
        {
            return fail(
                "service",
                "hours_per_month must be 0..730 and months 0..1200",
            );
        }
        if let Some(p) = &self.prototype
            && !in_range(p.hours, 0.0, 1_000_000.0)
        {
            return fail("prototype", "hours must be between 0 and 1000000");
        }
        for (field, v) in [
            ("storage_gb", self.storage_gb),
            ("storage_months", self.storage_months),
            ("egress_gb", self.egress_gb),
            ("data_read_gb", self.data_read_gb.unwrap_or(0.0)),
            ("data_download_gb", self.data_download_gb.unwrap_or(0.0)),
        ] {
            if !in_range(v, 0.0, 1_000_000_000.0) {
                return fail(field, "must be between 0 and 1000000000");
            }
        }
        Ok(())
    }
}

/// Reads a task from JSON, checking the version and the ranges.
pub fn parse_task(text: &str) -> Result<TaskProfile, TaskError> {
    let task: TaskProfile = serde_json::from_str(text).map_err(|e| TaskError {
        field: format!("line {}, column {}", e.line(), e.column()),
        message: e.to_string(),
    })?;
    task.validate()?;
    Ok(task)
}
