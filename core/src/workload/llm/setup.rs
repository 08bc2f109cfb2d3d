//! How an LLM is run: served (context, concurrency, KV cache) or trained (method, sequence,
//! batch, checkpointing, optimizer, ZeRO stage), on how many GPUs — with the range checks that
//! name the field at fault.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::task::document::TaskKind;
use crate::workload::llm::arch::{KvPrecision, LlmArch, LoraTargets, Precision};
use crate::workload::types::{Unsupported, WorkloadError, check, check_efficiency, check_u32};

/// The optimizer of a training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    /// AdamW with fp32 moments: 8 bytes per trainable parameter (+4 fp32 master weights in
    /// mixed precision).
    #[default]
    Adamw,
    /// bitsandbytes 8-bit AdamW: 2 bytes per trainable parameter (+4 master weights).
    Adamw8bit,
}

impl Optimizer {
    /// The identifier used in files and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            Optimizer::Adamw => "adamw",
            Optimizer::Adamw8bit => "adamw_8bit",
        }
    }

    /// Bytes of moments per trainable parameter.
    pub fn moment_bytes(self) -> f64 {
        match self {
            Optimizer::Adamw => 8.0,
            Optimizer::Adamw8bit => 2.0,
        }
    }
}

/// Data-parallel sharding of the training state (DeepSpeed ZeRO; FSDP equivalents noted).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ZeroStage {
    /// Plain data parallelism (DDP, FSDP `NO_SHARD`): every GPU holds everything.
    #[default]
    Ddp,
    /// Optimizer state sharded.
    Zero1,
    /// Optimizer state and gradients sharded (FSDP `SHARD_GRAD_OP`).
    Zero2,
    /// Optimizer state, gradients and weights sharded (FSDP `FULL_SHARD`).
    Zero3,
}

impl ZeroStage {
    /// Stages by number, 0 to 3.
    pub const ALL: [ZeroStage; 4] = [
        ZeroStage::Ddp,
        ZeroStage::Zero1,
        ZeroStage::Zero2,
        ZeroStage::Zero3,
    ];

    /// The stage number, 0 (DDP) to 3.
    pub fn number(self) -> u32 {
        match self {
            ZeroStage::Ddp => 0,
            ZeroStage::Zero1 => 1,
            ZeroStage::Zero2 => 2,
            ZeroStage::Zero3 => 3,
        }
    }
}

/// How the model is trained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum TrainingMethod {
    /// Every parameter trained (mixed precision with 16-bit weights, or pure fp32 with fp32 ones).
    Full,
    /// LoRA adapters on frozen weights; with quantized weights this is QLoRA.
    Lora {
        /// Adapter rank r.
        rank: u32,
        /// Which matrices get adapters.
        targets: LoraTargets,
    },
}

/// Serving or generating with an LLM.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LlmInference {
    /// Tokens of context per sequence (prompt + generated), which the KV cache holds.
    pub context_tokens: u32,
    /// Sequences served at once (the batch of the decode step).
    pub concurrency: u32,
    /// How the KV cache is stored.
    #[serde(default)]
    pub kv_cache: KvPrecision,
    /// Tokens to generate in all (the work, for run time); 0 when only memory matters.
    #[serde(default)]
    pub generated_tokens: f64,
    /// Memory-bandwidth utilisation override in (0, 1]; default
    /// [`super::throughput::DEFAULT_MBU`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbu: Option<f64>,
}

impl Default for LlmInference {
    /// A 4096-token context, one sequence at a time, a 16-bit KV cache, no work given.
    fn default() -> LlmInference {
        LlmInference {
            context_tokens: 4096,
            concurrency: 1,
            kv_cache: KvPrecision::Fp16,
            generated_tokens: 0.0,
            mbu: None,
        }
    }
}

/// The adapters a LoRA or QLoRA run trains unless told otherwise: rank 16 on every linear layer
/// (the PEFT and QLoRA papers' common setting).
pub const DEFAULT_LORA: TrainingMethod = TrainingMethod::Lora {
    rank: 16,
    targets: LoraTargets::All,
};

/// Training or fine-tuning an LLM.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LlmTraining {
    /// Full fine-tune or LoRA/QLoRA.
    pub method: TrainingMethod,
    /// Tokens per training sequence.
    pub sequence_tokens: u32,
    /// Sequences per GPU per step.
    pub micro_batch: u32,
    /// Activation (gradient) checkpointing: keep layer inputs only and recompute.
    pub checkpointing: bool,
    /// The optimizer.
    #[serde(default)]
    pub optimizer: Optimizer,
    /// Sharding of the training state across `gpus`.
    #[serde(default)]
    pub zero: ZeroStage,
    /// Tokens to train on in all, epochs included (the work, for run time); 0 when only memory
    /// matters.
    #[serde(default)]
    pub training_tokens: f64,
    /// Model FLOPs utilisation override in (0, 1]; defaults in [`super::throughput`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mfu: Option<f64>,
}

impl LlmTraining {
    /// A training run by `method` with the common defaults: 2048-token sequences, one per GPU per
    /// step, activation checkpointing, AdamW, plain data parallelism, no work given.
    pub fn with_defaults(method: TrainingMethod) -> LlmTraining {
        LlmTraining {
            method,
            sequence_tokens: 2048,
            micro_batch: 1,
            checkpointing: true,
            optimizer: Optimizer::Adamw,
            zero: ZeroStage::Ddp,
            training_tokens: 0.0,
            mfu: None,
        }
    }
}

/// What the LLM does.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "task", rename_all = "snake_case")]
pub enum LlmTask {
    /// Serving or batch generation.
    Inference(LlmInference),
    /// Training or fine-tuning.
    Training(LlmTraining),
}

/// An LLM workload: the model, how its weights are stored, what it does, on how many GPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LlmWorkload {
    /// The architecture (a preset from [`llm_presets`] or custom).
    pub arch: LlmArch,
    /// How the weights are stored (the frozen base for LoRA; bf16 or fp32 for a full fine-tune).
    pub weights: Precision,
    /// GPUs: tensor-parallel for inference, data-parallel (with `zero`) for training.
    pub gpus: u32,
    /// Expert parallelism (mixture-of-experts models only): the routed experts are spread whole
    /// over the `gpus` GPUs, `⌈experts / gpus⌉` on each, instead of every expert being split
    /// (inference) or replicated and sharded by ZeRO (training).
    #[serde(default)]
    pub expert_parallel: bool,
    /// Inference or training.
    pub task: LlmTask,
}

/// Largest accepted token, image or step count of work.
pub(crate) const MAX_WORK: f64 = 1e16;

impl LlmWorkload {
    /// Checks every field, naming the one at fault.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        self.arch.validate()?;
        check_u32("gpus", self.gpus, 1, 4096)?;
        if self.expert_parallel && self.arch.moe.is_none() {
            return Err(WorkloadError::Unsupported {
                field: "expert_parallel",
                reason: Unsupported::ExpertParallelDense,
            });
        }
        match &self.task {
            LlmTask::Inference(i) => {
                check_u32("context_tokens", i.context_tokens, 1, 10_000_000)?;
                check_u32("concurrency", i.concurrency, 1, 100_000)?;
                check("generated_tokens", i.generated_tokens, 0.0, MAX_WORK)?;
                check_efficiency("mbu", i.mbu)?;
            }
            LlmTask::Training(t) => {
                check_u32("sequence_tokens", t.sequence_tokens, 1, 10_000_000)?;
                check_u32("micro_batch", t.micro_batch, 1, 100_000)?;
                check("training_tokens", t.training_tokens, 0.0, MAX_WORK)?;
                check_efficiency("mfu", t.mfu)?;
                match t.method {
                    TrainingMethod::Full if self.weights.is_quantized() => {
                        return Err(WorkloadError::Unsupported {
                            field: "weights",
                            reason: Unsupported::FullFineTuneQuantized,
                        });
                    }
                    TrainingMethod::Lora { rank, .. } => {
                        check_u32("rank", rank, 1, 65_536)?;
                    }
                    TrainingMethod::Full => {}
                }
            }
        }
        Ok(())
    }

    /// The task kind: inference, full fine-tune, LoRA, or QLoRA when the frozen weights are
    /// quantized.
    pub fn kind(&self) -> TaskKind {
        match self.task {
            LlmTask::Inference(_) => TaskKind::Inference,
            LlmTask::Training(LlmTraining {
                method: TrainingMethod::Full,
                ..
            }) => TaskKind::FineTuneFull,
            LlmTask::Training(_) if self.weights.is_quantized() => TaskKind::FineTuneQlora,
            LlmTask::Training(_) => TaskKind::FineTuneLora,
        }
    }

    pub(crate) fn describe(&self) -> String {
        let gpus = match (self.gpus, self.expert_parallel) {
            (1, false) => "1 GPU".to_owned(),
            (1, true) => "1 GPU, expert-parallel".to_owned(),
            (n, false) => format!("{n} GPUs"),
            (n, true) => format!("{n} GPUs, expert-parallel"),
        };
        match &self.task {
            LlmTask::Inference(i) => format!(
                "{}, inference {} weights, context {} x {}, KV {}, {gpus}",
                self.arch.name,
                self.weights.id(),
                i.context_tokens,
                i.concurrency,
                i.kv_cache.id()
            ),
            LlmTask::Training(t) => {
                let method = match t.method {
                    TrainingMethod::Full => format!("full fine-tune {}", self.weights.id()),
                    TrainingMethod::Lora { rank, targets } => format!(
                        "{} {} r{rank} ({})",
                        if self.weights.is_quantized() {
                            "QLoRA"
                        } else {
                            "LoRA"
                        },
                        self.weights.id(),
                        targets.id()
                    ),
                };
                let ckpt = if t.checkpointing {
                    "checkpointing"
                } else {
                    "no checkpointing"
                };
                let zero = if self.gpus > 1 {
                    format!(", ZeRO-{}", t.zero.number())
                } else {
                    String::new()
                };
                format!(
                    "{}, {method}, seq {} x {}, {ckpt}, {}, {gpus}{zero}",
                    self.arch.name,
                    t.sequence_tokens,
                    t.micro_batch,
                    t.optimizer.id()
                )
            }
        }
    }
}
