//! The task profile: what the user wants to run, how much of it, and what they care about.
//!
//! Work is measured in hours on a named reference GPU (a dedicated card); gpufare scales it to
//! each offer's GPU. Everything optional has a stated default, so a minimal task file is short.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::numbers::money::Currency;
use crate::numbers::problem::{FieldError, JsonProblem, Problem};
use crate::task::policy::{MAX_FALLBACK_AFTER, Policy};
use crate::task::reach::Reach;
use crate::task::traffic::{Traffic, TrafficError};

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
    /// Minutes it takes to write a checkpoint; a preemption notice at least this long saves the
    /// work done since the last one. Absent: taken as long as a restart (writing and reloading
    /// move the same state), an assumption.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save_minutes: Option<f64>,
}

impl Checkpoint {
    /// Hours to write a checkpoint (the restart overhead when not given).
    pub fn save_hours(&self) -> f64 {
        self.save_minutes
            .map_or(self.restart_overhead_hours, |m| m / 60.0)
    }
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

/// What an LLM service serves and to whom: the model, the replica's GPUs and the traffic. With
/// it, a service task's plan also prices ways to deploy (fixed fleet, autoscaling, reserved base
/// plus burst, shared pool) per offer (`serving`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServingSpec {
    /// The model served: a preset id of the workload estimator, e.g. `llama-3.1-8b`.
    pub model: String,
    /// Precision of its weights: `bf16` (absent), `fp8`, `int8`, `int4` ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
    /// GPUs per replica (tensor parallel; absent: the task's `gpus`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 16))]
    pub gpus_per_replica: Option<u32>,
    /// Requests per second by hour, request sizes and latency targets.
    pub traffic: Traffic,
}

impl ServingSpec {
    /// Checks the ranges; the error names the field (`serving.traffic.rps_by_hour[3]`).
    pub fn validate(&self) -> Result<(), FieldError> {
        if self.model.trim().is_empty() || self.model.len() > 100 {
            return Err(FieldError::new("serving.model", Problem::Required));
        }
        if self.gpus_per_replica.is_some_and(|g| g == 0 || g > 64) {
            return Err(FieldError::new(
                "serving.gpus_per_replica",
                Problem::OutOfRange {
                    min: 1.0,
                    max: 64.0,
                },
            ));
        }
        self.traffic.validate().map_err(|e| match e {
            TrafficError::Field(f) | TrafficError::Line { error: f, .. } => {
                FieldError::new(&format!("serving.traffic.{}", f.field), f.problem)
            }
        })
    }
}

/// How a training run spread over several GPUs exchanges data each optimizer step (data
/// parallelism); with it, the plan prices the communication over each offer's links instead of
/// a fixed scaling efficiency (see `plan::scaling`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DataParallel {
    /// Model parameters, billions.
    #[schemars(range(min = 0, max = 100_000))]
    pub params_b: f64,
    /// Parameters trained, whose gradients are exchanged, billions (absent: all of them; a LoRA
    /// adapter's are a few per cent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 100_000))]
    pub trainable_params_b: Option<f64>,
    /// Optimizer steps in one run (each exchanges the gradients once).
    #[schemars(range(min = 1, max = 1_000_000_000))]
    pub steps: u64,
    /// True for sharded parameters (ZeRO-3, FSDP): weights are gathered for the forward and the
    /// backward pass and gradients reduce-scattered, 1.5 times a replicated run's traffic.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sharded: bool,
    /// Share of the backward pass that communication can hide behind, 0-1 (absent: none, the
    /// fit to published runs in `plan::scaling::DEFAULT_OVERLAP`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1))]
    pub overlap: Option<f64>,
    /// GPUs in each tensor-parallel group (Megatron-LM), 1-64 (absent: 1, data parallel only).
    /// A group must sit inside one NVLink domain; it must divide the task's GPUs, and the data
    /// parallel replicas are the GPUs divided by it. Needs `hidden`, `layers` and
    /// `tokens_per_step`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 64))]
    pub tensor_parallel: Option<u32>,
    /// The model's hidden size (`hidden_size` in its config.json), for tensor parallelism.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1_000_000))]
    pub hidden: Option<u32>,
    /// The model's transformer layers (`num_hidden_layers`), for tensor parallelism.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 10_000))]
    pub layers: Option<u32>,
    /// Tokens in one optimizer step over all replicas (global batch x sequence length), for
    /// tensor parallelism.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1_000_000_000_000i64))]
    pub tokens_per_step: Option<f64>,
}

impl DataParallel {
    /// Checks the ranges; the error names the field.
    pub fn validate(&self) -> Result<(), FieldError> {
        let range = |field: &str, v: f64, min: f64, max: f64| {
            if v.is_finite() && v > min && v <= max {
                Ok(())
            } else {
                Err(FieldError::new(field, Problem::AboveZero { max }))
            }
        };
        range("data_parallel.params_b", self.params_b, 0.0, 100_000.0)?;
        if let Some(t) = self.trainable_params_b {
            range("data_parallel.trainable_params_b", t, 0.0, self.params_b)?;
        }
        if self.steps == 0 || self.steps > 1_000_000_000 {
            return Err(FieldError::new(
                "data_parallel.steps",
                Problem::OutOfRange { min: 1.0, max: 1e9 },
            ));
        }
        if let Some(o) = self.overlap
            && !(o.is_finite() && (0.0..=1.0).contains(&o))
        {
            return Err(FieldError::new(
                "data_parallel.overlap",
                Problem::Probability,
            ));
        }
        let tp = self.tensor_parallel.unwrap_or(1);
        if !(1..=MAX_TENSOR_PARALLEL).contains(&tp) {
            return Err(FieldError::new(
                "data_parallel.tensor_parallel",
                Problem::OutOfRange {
                    min: 1.0,
                    max: f64::from(MAX_TENSOR_PARALLEL),
                },
            ));
        }
        for (field, v, max) in [
            ("data_parallel.hidden", self.hidden.map(f64::from), 1e6),
            ("data_parallel.layers", self.layers.map(f64::from), 1e4),
            ("data_parallel.tokens_per_step", self.tokens_per_step, 1e12),
        ] {
            match v {
                Some(v) if !(v.is_finite() && (1.0..=max).contains(&v)) => {
                    return Err(FieldError::new(
                        field,
                        Problem::OutOfRange { min: 1.0, max },
                    ));
                }
                None if tp > 1 => {
                    return Err(FieldError::new(
                        field,
                        Problem::RequiredWith {
                            other: "data_parallel.tensor_parallel".to_owned(),
                        },
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// GPUs in each tensor-parallel group (1 without tensor parallelism).
    pub fn tensor_parallel(&self) -> u32 {
        self.tensor_parallel.unwrap_or(1).max(1)
    }
}

/// The largest tensor-parallel group a task may state (an NVLink domain holds 8 GPUs on HGX
/// boards, 72 on GB200 NVL72 racks).
pub const MAX_TENSOR_PARALLEL: u32 = 64;

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
    #[schemars(range(min = 0, max = 1_000_000))]
    pub work_hours: f64,
    /// The GPU `work_hours` was measured or estimated on (short name, e.g. `A100-80GB`).
    pub reference_gpu: String,
    /// Whether work scales with compute or with memory bandwidth.
    #[serde(default)]
    pub bound: Bound,
    /// Number of runs (tuning rounds multiply the work).
    #[serde(default = "crate::numbers::serde_default::one")]
    #[schemars(range(min = 1, max = 10_000))]
    pub runs: u32,
    /// VRAM needed per GPU, GiB.
    #[schemars(range(min = 0, max = 100_000))]
    pub vram_gib: f64,
    /// GPUs the job needs at least (multi-GPU training needs whole cards that can talk).
    #[serde(default = "crate::numbers::serde_default::one")]
    #[schemars(range(min = 1, max = 1024))]
    pub gpus: u32,
    /// Whether the work spreads over every GPU of a bigger machine (DDP/FSDP).
    #[serde(default)]
    pub scales_across_gpus: bool,
    /// Data sensitivity.
    #[serde(default)]
    pub sensitivity: Sensitivity,
    /// Wall-clock hours by which the whole task must be done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1_000_000))]
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
    /// The policy for interruptible offers; absent: the one with the lowest expected total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spot_policy: Option<Policy>,
    /// Longest acceptable wait before the job starts, hours, checked against each offer's P90
    /// wait (absent: any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_queue_hours: Option<f64>,
    /// How busy the neighbours on a time-shared card are, 0-1, for every work-conserving offer
    /// (time slicing, uncapped MPS, vGPU, memory-capped containers): the user's value, beating
    /// the rows' own but not one measured on the offer (absent: the rows', else 1, always busy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbour_load: Option<f64>,
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
    /// How a multi-GPU run exchanges data each step (absent: a fixed scaling efficiency).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_parallel: Option<DataParallel>,
    /// The model and traffic of an LLM service (absent: the service is priced as hours alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serving: Option<ServingSpec>,
    /// Data kept on the provider's storage, GB.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1_000_000_000))]
    pub storage_gb: f64,
    /// Months the data stays (at least the task's duration is billed).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1_000_000_000))]
    pub storage_months: f64,
    /// Data sent out to the internet, GB.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1_000_000_000))]
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
    /// Where the user is, the markets and providers they can buy from, whether the data is
    /// personal, and round trips measured from their location (fields of the task itself).
    #[serde(flatten)]
    pub reach: Reach,
}

fn yes() -> bool {
    true
}

/// Why a task cannot be priced: a field out of its range, or a file that is not a task.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TaskError {
    /// A field holds a value the model cannot use.
    #[error("task field {}: {}", .0.field, .0.problem)]
    Field(FieldError),
    /// The text is not a task document.
    #[error("not a task (line {}, column {}): {}", .0.line, .0.column, .0.detail)]
    Json(JsonProblem),
}

impl TaskError {
    /// The field at fault, when one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            TaskError::Field(e) => Some(&e.field),
            TaskError::Json(_) => None,
        }
    }
}

/// Restart overhead assumed for a checkpointed job until the user gives one, hours (reloading a
/// checkpoint and warming up; an assumption).
pub const DEFAULT_RESTART_HOURS: f64 = 0.1;
/// Server-side latency on a dedicated reference card assumed until the user gives one, ms.
pub const DEFAULT_BASE_LATENCY_MS: f64 = 100.0;
/// Months a service runs until the user says otherwise.
pub const DEFAULT_SERVICE_MONTHS: f64 = 1.0;
/// Optimizer steps per run of a data-parallel task until the user says otherwise.
pub const DEFAULT_DATA_PARALLEL_STEPS: u64 = 10_000;

impl TaskProfile {
    /// Prices the multi-GPU exchange of a model of `params_b` billion parameters (none for
    /// `None` or 0: the fixed scaling efficiency), keeping what was given before, or
    /// [`DEFAULT_DATA_PARALLEL_STEPS`] steps.
    pub fn set_data_parallel_params(&mut self, params_b: Option<f64>) {
        let before = self.data_parallel;
        self.data_parallel = params_b.filter(|p| *p > 0.0).map(|params_b| DataParallel {
            params_b,
            trainable_params_b: before.and_then(|d| d.trainable_params_b),
            steps: before.map_or(DEFAULT_DATA_PARALLEL_STEPS, |d| d.steps),
            sharded: before.is_some_and(|d| d.sharded),
            overlap: before.and_then(|d| d.overlap),
            tensor_parallel: before.and_then(|d| d.tensor_parallel),
            hidden: before.and_then(|d| d.hidden),
            layers: before.and_then(|d| d.layers),
            tokens_per_step: before.and_then(|d| d.tokens_per_step),
        });
    }

    /// Checkpoints every `hours` of work (none for `None` or 0), keeping the restart overhead
    /// given before, or [`DEFAULT_RESTART_HOURS`].
    pub fn set_checkpoint_interval(&mut self, hours: Option<f64>) {
        let restart = self
            .checkpoint
            .map_or(DEFAULT_RESTART_HOURS, |c| c.restart_overhead_hours);
        let save_minutes = self.checkpoint.and_then(|c| c.save_minutes);
        self.checkpoint = hours.filter(|h| *h > 0.0).map(|interval_hours| Checkpoint {
            interval_hours,
            restart_overhead_hours: restart,
            save_minutes,
        });
    }

    /// A P99 latency target (none for `None`), keeping the base latency given before, or
    /// [`DEFAULT_BASE_LATENCY_MS`].
    pub fn set_latency_target(&mut self, p99_ms: Option<f64>) {
        let base_ms = self.latency.map_or(DEFAULT_BASE_LATENCY_MS, |l| l.base_ms);
        self.latency = p99_ms.map(|p99_ms| LatencyTarget { p99_ms, base_ms });
    }

    /// A service of `hours_per_month` (none for `None`), keeping the months given before, or
    /// [`DEFAULT_SERVICE_MONTHS`].
    pub fn set_service_hours(&mut self, hours_per_month: Option<f64>) {
        let months = self.service.map_or(DEFAULT_SERVICE_MONTHS, |s| s.months);
        self.service = hours_per_month.map(|hours_per_month| Service {
            hours_per_month,
            months,
        });
    }

    /// A prototype phase of `hours` on shared capacity (none for `None` or 0).
    pub fn set_prototype_hours(&mut self, hours: Option<f64>) {
        self.prototype = hours.filter(|h| *h > 0.0).map(|hours| Prototype { hours });
    }
}

/// Checks that `v` is a number in `min..=max`, naming `field` when it is not.
fn check(field: &str, v: f64, min: f64, max: f64) -> Result<(), TaskError> {
    if v.is_finite() && v >= min && v <= max {
        Ok(())
    } else {
        Err(TaskError::Field(FieldError::new(
            field,
            Problem::OutOfRange { min, max },
        )))
    }
}

/// The largest amount of money a task may name: a trillion in its currency.
pub const MAX_TASK_MONEY: Decimal = Decimal::from_parts(3_567_587_328, 232, 0, false, 0);

impl TaskProfile {
    /// Checks ranges so the model never sees NaN, negatives or absurd values; the error names the
    /// field (nested fields with dots, e.g. `checkpoint.interval_hours`).
    pub fn validate(&self) -> Result<(), TaskError> {
        let field =
            |name: &str, problem: Problem| Err(TaskError::Field(FieldError::new(name, problem)));
        if self.format_version > TASK_FORMAT_VERSION {
            return field(
                "format_version",
                Problem::NewerVersion {
                    found: u64::from(self.format_version),
                    max: TASK_FORMAT_VERSION,
                },
            );
        }
        check("work_hours", self.work_hours, 0.0, 1_000_000.0)?;
        if crate::hardware::gpu::find_gpu(&self.reference_gpu).is_none() {
            return field(
                "reference_gpu",
                Problem::UnknownGpu {
                    name: self.reference_gpu.clone(),
                },
            );
        }
        check("runs", f64::from(self.runs), 1.0, 10_000.0)?;
        check("vram_gib", self.vram_gib, 0.0, 100_000.0)?;
        check("gpus", f64::from(self.gpus), 1.0, 1024.0)?;
        if let Some(dp) = &self.data_parallel {
            dp.validate().map_err(TaskError::Field)?;
            let tp = dp.tensor_parallel();
            if !self.gpus.is_multiple_of(tp) {
                return Err(TaskError::Field(FieldError::new(
                    "data_parallel.tensor_parallel",
                    Problem::NotOneOf {
                        value: tp.to_string(),
                        allowed: format!("a divisor of gpus ({})", self.gpus),
                    },
                )));
            }
        }
        if let Some(sv) = &self.serving {
            sv.validate().map_err(TaskError::Field)?;
        }
        if let Some(d) = self.deadline_hours {
            check("deadline_hours", d, 0.0, 1_000_000.0)?;
        }
        for (name, v) in [
            ("deadline_penalty", self.deadline_penalty),
            ("value_of_time_per_hour", Some(self.value_of_time_per_hour)),
            ("budget", self.budget),
        ] {
            if let Some(v) = v
                && (v.is_sign_negative() && !v.is_zero() || v > MAX_TASK_MONEY)
            {
                return field(
                    name,
                    Problem::OutOfRange {
                        min: 0.0,
                        max: 1e12,
                    },
                );
            }
        }
        if let Some(l) = &self.latency {
            check("latency.p99_ms", l.p99_ms, 0.001, 3_600_000.0)?;
            check("latency.base_ms", l.base_ms, 0.0, 3_600_000.0)?;
        }
        if let Some(c) = &self.checkpoint {
            check(
                "checkpoint.interval_hours",
                c.interval_hours,
                0.001,
                1_000_000.0,
            )?;
            check(
                "checkpoint.restart_overhead_hours",
                c.restart_overhead_hours,
                0.0,
                10_000.0,
            )?;
            if let Some(m) = c.save_minutes {
                check("checkpoint.save_minutes", m, 0.0, 600_000.0)?;
            }
        }
        if let Some(Policy::FallbackAfter { preemptions }) = self.spot_policy
            && !(1..=MAX_FALLBACK_AFTER).contains(&preemptions)
        {
            return Err(TaskError::Field(FieldError::new(
                "spot_policy.preemptions",
                Problem::OutOfRange {
                    min: 1.0,
                    max: f64::from(MAX_FALLBACK_AFTER),
                },
            )));
        }
        if let Some(l) = self.neighbour_load {
            check("neighbour_load", l, 0.0, 1.0)?;
        }
        if let Some(q) = self.max_queue_hours {
            check("max_queue_hours", q, 0.0, 1_000_000.0)?;
        }
        if let Some(s) = &self.service {
            check("service.hours_per_month", s.hours_per_month, 0.0, 730.0)?;
            check("service.months", s.months, 0.0, 1200.0)?;
        }
        if let Some(p) = &self.prototype {
            check("prototype.hours", p.hours, 0.0, 1_000_000.0)?;
        }
        for (name, v) in [
            ("storage_gb", self.storage_gb),
            ("storage_months", self.storage_months),
            ("egress_gb", self.egress_gb),
            ("data_read_gb", self.data_read_gb.unwrap_or(0.0)),
            ("data_download_gb", self.data_download_gb.unwrap_or(0.0)),
        ] {
            check(name, v, 0.0, 1_000_000_000.0)?;
        }
        self.reach.validate().map_err(TaskError::Field)?;
        Ok(())
    }
}

/// Reads a task from JSON, checking the version and the ranges.
pub fn parse_task(text: &str) -> Result<TaskProfile, TaskError> {
    let task: TaskProfile =
        serde_json::from_str(text).map_err(|e| TaskError::Json(JsonProblem::from(e)))?;
    task.validate()?;
    Ok(task)
}
