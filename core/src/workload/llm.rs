//! LLM memory: architecture presets, parameter counts, and VRAM for inference and training.
//!
//! Sources (facts collected in `shared/docs/research/models.md`):
//! - parameters of a Llama-style decoder (SwiGLU MLP, untied or tied embeddings, optional q/k/v
//!   bias): `L·(h·q + 2·h·kv + q·h + 3·h·ffn + 2h [+ q + 2kv]) + h + V·h·(1 or 2)` with
//!   q = heads·head_dim and kv = kv_heads·head_dim — the count the presets are checked against
//!   (each within 2 % of its published size, `tests/workload_published.rs`);
//! - bytes per weight: fp32 4, bf16/fp16 2, fp8/int8 1, int4 (GPTQ/AWQ, group 128: 4 bits + a
//!   16-bit scale and a 4-bit zero per 128 weights = 4.156 bits) 0.52, NF4 with double
//!   quantization 4.127 bits = 0.516 (QLoRA paper, arXiv:2305.14314 §3). Quantizers leave the
//!   embeddings, the LM head, norms and biases in 16 bits (bitsandbytes behaviour), so only the
//!   decoder's linear layers shrink;
//! - KV cache: `2 · L · kv_heads · head_dim · tokens · bytes` — grouped-query attention counted
//!   with the KV heads, not the query heads (llm-analysis `get_memory_kv_cache_per_layer`);
//! - training state: ZeRO paper accounting (Rajbhandari et al., arXiv:1910.02054 §3.1, Fig. 1):
//!   mixed-precision Adam keeps 16-bit weights (2Ψ) and gradients (2Ψ) plus K = 12 bytes of
//!   optimizer state (fp32 master weights, momentum, variance); 8-bit Adam (bitsandbytes) keeps
//!   1 byte per moment, K = 6 (EleutherAI, *Transformer Math 101*). ZeRO-1/2/3 divide the optimizer,
//!   then the gradients, then the weights by the GPU count (FSDP `SHARD_GRAD_OP` = ZeRO-2,
//!   `FULL_SHARD` = ZeRO-3, accelerate FSDP guide);
//! - LoRA adds `r·(d_in + d_out)` parameters per adapted matrix (Hu et al., arXiv:2106.09685),
//!   trained in fp32: weight 4 + gradient 4 + Adam 8 = 16 bytes each;
//! - activations: Korthikanti et al. (arXiv:2205.05198) counted per token and layer, adapted to
//!   FlashAttention-era models (no s² scores, no dropout masks, SwiGLU saves gate, up, their
//!   product and the activation): `2·(4h + 2q + 2kv) + 8·ffn` bytes, about 40·h for Llama-3-8B
//!   (`shared/docs/research/models.md` §1.5). With activation checkpointing each layer keeps only its
//!   16-bit input (2h bytes per token) and one layer at a time is recomputed.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Breakdown, CUDA_CONTEXT_GIB, GIB, MemoryEstimate, WorkloadError, assumption, check,
    check_efficiency, check_u32,
};
use crate::task::TaskKind;

const PRESETS_CSV: &str = include_str!("../../data/llm-presets.csv");

/// Bytes per logit element held around the loss in training: the bf16 logits (2), their fp32
/// upcast for the cross-entropy (4), and in the backward pass its fp32 gradient (4) and the bf16
/// cast of it (2). The research notes count `b·s·V·(2 + 4)` for the forward "plus the same again
/// for the gradient" (`shared/docs/research/models.md` §1.5); vram.asmirnov.xyz counts 8.
pub const LOGIT_BYTES_PER_ELEMENT: f64 = 12.0;

/// Prompt tokens a serving engine processes in one forward step (chunked prefill), which bounds
/// the inference activation peak. vLLM's `max_num_batched_tokens` is of this order; an engine
/// without chunked prefill processes the whole prompt at once (an assumption).
pub const PREFILL_CHUNK_TOKENS: f64 = 8192.0;

/// How model weights are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// 32-bit float.
    Fp32,
    /// 16-bit float (bf16 or fp16; the same size).
    Bf16,
    /// 8-bit float (E4M3), 1 byte.
    Fp8,
    /// 8-bit integer (bitsandbytes LLM.int8, GPTQ/AWQ 8-bit), 1 byte.
    Int8,
    /// 4-bit integer with group-128 scales (GPTQ/AWQ), 0.52 bytes.
    Int4,
    /// 4-bit NormalFloat with double quantization (bitsandbytes, QLoRA), 0.516 bytes.
    Nf4,
}

impl Precision {
    /// Every precision, widest first.
    pub const ALL: [Precision; 6] = [
        Precision::Fp32,
        Precision::Bf16,
        Precision::Fp8,
        Precision::Int8,
        Precision::Int4,
        Precision::Nf4,
    ];

    /// Bytes per stored weight (see the module docs for the sources).
    pub fn bytes_per_param(self) -> f64 {
        match self {
            Precision::Fp32 => 4.0,
            Precision::Bf16 => 2.0,
            Precision::Fp8 | Precision::Int8 => 1.0,
            // 4 bits + (16-bit scale + 4-bit zero) / 128 = 4.156 bits.
            Precision::Int4 => 0.52,
            // 4 bits + 8/64 + 32/(64·256) = 4.127 bits (QLoRA §3, double quantization).
            Precision::Nf4 => 0.516,
        }
    }

    /// The identifier used in files and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
            Precision::Int8 => "int8",
            Precision::Int4 => "int4",
            Precision::Nf4 => "nf4",
        }
    }

    /// Parses an identifier; `fp16`, `f16`, `float16` and `bfloat16` mean [`Precision::Bf16`].
    pub fn from_id(id: &str) -> Option<Precision> {
        match id.trim().to_ascii_lowercase().as_str() {
            "fp16" | "f16" | "float16" | "bfloat16" | "bf16" => Some(Precision::Bf16),
            "float32" | "f32" | "fp32" => Some(Precision::Fp32),
            other => Precision::ALL.into_iter().find(|p| p.id() == other),
        }
    }

    /// Whether the weights are quantized below 16 bits.
    pub fn is_quantized(self) -> bool {
        !matches!(self, Precision::Fp32 | Precision::Bf16)
    }

    /// Bytes per element of tensors kept unquantized (embeddings, norms, activations): 4 for fp32
    /// weights, else 2.
    pub fn wide_bytes(self) -> f64 {
        if self == Precision::Fp32 { 4.0 } else { 2.0 }
    }

    /// Whether kernels dequantize whole weight matrices to 16 bits on the fly (bitsandbytes,
    /// GPTQ/AWQ fallback paths), which needs one dequantized matrix as a temporary buffer.
    fn dequantizes(self) -> bool {
        matches!(self, Precision::Int8 | Precision::Int4 | Precision::Nf4)
    }
}

/// How the KV cache is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KvPrecision {
    /// 16-bit keys and values (the default of every engine).
    #[default]
    Fp16,
    /// 8-bit keys and values (vLLM `--kv-cache-dtype fp8`, llama.cpp q8_0).
    Fp8,
}

impl KvPrecision {
    /// Bytes per cached element.
    pub fn bytes(self) -> f64 {
        match self {
            KvPrecision::Fp16 => 2.0,
            KvPrecision::Fp8 => 1.0,
        }
    }

    /// The identifier used in files and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            KvPrecision::Fp16 => "fp16",
            KvPrecision::Fp8 => "fp8",
        }
    }
}

/// A decoder-only transformer's shape, as its `config.json` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LlmArch {
    /// Short name, e.g. `llama-3-8b` (`custom` for user-given shapes).
    pub name: String,
    /// Decoder layers (`num_hidden_layers`).
    pub layers: u32,
    /// Hidden size (`hidden_size`).
    pub hidden: u32,
    /// Attention (query) heads (`num_attention_heads`).
    pub heads: u32,
    /// Key/value heads (`num_key_value_heads`; equal to `heads` without grouped-query attention).
    pub kv_heads: u32,
    /// Dimension of one head (`head_dim`, usually hidden / heads).
    pub head_dim: u32,
    /// MLP intermediate size (`intermediate_size`), for a gated (SwiGLU) MLP.
    pub ffn: u32,
    /// Vocabulary size (`vocab_size`).
    pub vocab: u32,
    /// Whether the LM head shares the embedding matrix (`tie_word_embeddings`).
    pub tied_embeddings: bool,
    /// Whether the q/k/v projections have a bias (Qwen2, GLM-4).
    pub qkv_bias: bool,
}

/// Parameter counts of an architecture.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ParameterCount {
    /// Every parameter.
    pub total: f64,
    /// Parameters in the decoder's linear layers (what quantizers shrink).
    pub linear: f64,
    /// Parameters of one decoder layer.
    pub per_layer: f64,
    /// Parameters of the embedding matrix (the LM head, when untied, is as large again).
    pub embedding: f64,
    /// Parameters multiplied per token (linear layers and the LM head): the Ψ of `6·Ψ·tokens`.
    pub compute: f64,
}

#[derive(Deserialize)]
struct PresetRow {
    id: String,
    layers: u32,
    hidden: u32,
    heads: u32,
    kv_heads: u32,
    head_dim: u32,
    ffn: u32,
    vocab: u32,
    tied_embeddings: String,
    qkv_bias: String,
}

/// Every LLM preset, in table order (`core/data/llm-presets.csv`, compiled in).
pub fn llm_presets() -> &'static [LlmArch] {
    static PRESETS: OnceLock<Vec<LlmArch>> = OnceLock::new();
    PRESETS.get_or_init(|| {
        let body: String = PRESETS_CSV
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        csv::Reader::from_reader(body.as_bytes())
            .deserialize::<PresetRow>()
            .filter_map(Result::ok)
            .map(|r| LlmArch {
                name: r.id,
                layers: r.layers,
                hidden: r.hidden,
                heads: r.heads,
                kv_heads: r.kv_heads,
                head_dim: r.head_dim,
                ffn: r.ffn,
                vocab: r.vocab,
                tied_embeddings: r.tied_embeddings == "yes",
                qkv_bias: r.qkv_bias == "yes",
            })
            .collect()
    })
}

/// The preset named `id` (case-insensitive), or an error listing the known ids.
pub fn find_llm_preset(id: &str) -> Result<&'static LlmArch, WorkloadError> {
    let id = id.trim();
    llm_presets()
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(id))
        .ok_or_else(|| WorkloadError::Unknown {
            field: "model",
            name: id.to_owned(),
            known: llm_presets()
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

impl LlmArch {
    /// Checks every dimension, naming the field at fault.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        check_u32("layers", self.layers, 1, 1024)?;
        check_u32("hidden", self.hidden, 1, 131_072)?;
        check_u32("heads", self.heads, 1, 1024)?;
        check_u32("kv_heads", self.kv_heads, 1, self.heads)?;
        check_u32("head_dim", self.head_dim, 1, 1024)?;
        check_u32("ffn", self.ffn, 1, 1_048_576)?;
        check_u32("vocab", self.vocab, 1, 4_194_304)?;
        Ok(())
    }

    fn q_dim(&self) -> f64 {
        f64::from(self.heads) * f64::from(self.head_dim)
    }

    fn kv_dim(&self) -> f64 {
        f64::from(self.kv_heads) * f64::from(self.head_dim)
    }

    fn linear_per_layer(&self) -> f64 {
        let (h, f) = (f64::from(self.hidden), f64::from(self.ffn));
        let (q, kv) = (self.q_dim(), self.kv_dim());
        h * q + 2.0 * h * kv + q * h + 3.0 * h * f
    }

    /// Parameter counts (see the module docs for the formula).
    pub fn parameters(&self) -> ParameterCount {
        let (l, h, v) = (
            f64::from(self.layers),
            f64::from(self.hidden),
            f64::from(self.vocab),
        );
        let linear = self.linear_per_layer();
        let bias = if self.qkv_bias {
            self.q_dim() + 2.0 * self.kv_dim()
        } else {
            0.0
        };
        let per_layer = linear + bias + 2.0 * h;
        let embedding = v * h;
        let heads_and_embeddings = if self.tied_embeddings {
            embedding
        } else {
            2.0 * embedding
        };
        ParameterCount {
            total: l * per_layer + h + heads_and_embeddings,
            linear: l * linear,
            per_layer,
            embedding,
            compute: l * linear + embedding,
        }
    }

    /// Parameters LoRA adds at `rank` on `targets`: `r · Σ (d_in + d_out)` over the adapted
    /// matrices of every layer (Hu et al., arXiv:2106.09685).
    pub fn lora_parameters(&self, rank: u32, targets: LoraTargets) -> f64 {
        let (h, f) = (f64::from(self.hidden), f64::from(self.ffn));
        let (q, kv) = (self.q_dim(), self.kv_dim());
        let (q_proj, k_proj, v_proj, o_proj) = (h + q, h + kv, h + kv, q + h);
        let mlp = 3.0 * (h + f);
        let per_layer = match targets {
            LoraTargets::Qv => q_proj + v_proj,
            LoraTargets::Attention => q_proj + k_proj + v_proj + o_proj,
            LoraTargets::All => q_proj + k_proj + v_proj + o_proj + mlp,
        };
        f64::from(rank) * f64::from(self.layers) * per_layer
    }

    /// KV cache bytes per token of context on one GPU holding `kv_heads_per_gpu` KV heads:
    /// `2 · L · kv_heads · head_dim · bytes`.
    fn kv_bytes_per_token(&self, kv_heads_per_gpu: f64, kv: KvPrecision) -> f64 {
        2.0 * f64::from(self.layers) * kv_heads_per_gpu * f64::from(self.head_dim) * kv.bytes()
    }

    /// KV cache bytes per token on one GPU (all KV heads), e.g. 512 KiB for Llama-2-7B and
    /// 128 KiB for Llama-3-8B in fp16.
    pub fn kv_cache_bytes_per_token(&self, kv: KvPrecision) -> f64 {
        self.kv_bytes_per_token(f64::from(self.kv_heads), kv)
    }

    /// Activation bytes one layer saves per token for the backward pass, in 16 bits.
    fn saved_bytes_per_token_layer(&self) -> f64 {
        let (h, f) = (f64::from(self.hidden), f64::from(self.ffn));
        2.0 * (4.0 * h + 2.0 * self.q_dim() + 2.0 * self.kv_dim()) + 8.0 * f
    }

    /// Parameters of the largest single module (a decoder layer or the embedding matrix).
    fn largest_layer(&self) -> f64 {
        let p = self.parameters();
        p.per_layer.max(p.embedding)
    }

    /// Elements of the largest linear weight matrix.
    fn largest_matrix(&self) -> f64 {
        let (h, f) = (f64::from(self.hidden), f64::from(self.ffn));
        h * f.max(self.q_dim())
    }
}

/// Which weight matrices LoRA adapts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoraTargets {
    /// `q_proj` and `v_proj` (the LoRA paper's choice, PEFT's default for Llama).
    Qv,
    /// The four attention projections.
    Attention,
    /// Every linear layer of the decoder (attention and MLP), QLoRA's recommendation.
    #[default]
    All,
}

impl LoraTargets {
    /// Every choice.
    pub const ALL: [LoraTargets; 3] = [LoraTargets::Qv, LoraTargets::Attention, LoraTargets::All];

    /// The identifier used in files and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            LoraTargets::Qv => "qv",
            LoraTargets::Attention => "attention",
            LoraTargets::All => "all",
        }
    }
}

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
                            reason: "a full fine-tune trains 16-bit or 32-bit weights; quantized weights need LoRA (QLoRA)",
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
        let gpus = if self.gpus == 1 {
            "1 GPU".to_owned()
        } else {
            format!("{} GPUs", self.gpus)
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

/// Memory of an LLM workload per GPU (see the module docs for every formula).
pub(crate) fn estimate_llm(w: &LlmWorkload) -> Result<MemoryEstimate, WorkloadError> {
    w.validate()?;
    let arch = &w.arch;
    let p = arch.parameters();
    let n = f64::from(w.gpus);
    let wide = w.weights.wide_bytes();
    let base_bytes = p.linear * w.weights.bytes_per_param() + (p.total - p.linear) * wide;
    let dequant_bytes = if w.weights.dequantizes() {
        2.0 * arch.largest_matrix()
    } else {
        0.0
    };
    let context = CUDA_CONTEXT_GIB * GIB;
    let mut assumptions = vec![assumption(
        "cuda_context_gib",
        CUDA_CONTEXT_GIB,
        "PyTorch CUDA context with lazy loading, 0.3-0.5 GB measured (pytorch #86509, #109888)",
    )];
    if w.weights.is_quantized() {
        assumptions.push(assumption(
            "bytes_per_weight",
            w.weights.bytes_per_param(),
            "quantized linear layers; embeddings, LM head and norms stay 16-bit (bitsandbytes behaviour)",
        ));
    }

    let (breakdown, trainable) = match &w.task {
        LlmTask::Inference(i) => {
            // Tensor parallelism splits the weights and the KV heads (a KV head is replicated when
            // there are more GPUs than KV heads: llm-analysis `max(kv_heads / tp, 1)`).
            let kv_heads_per_gpu = (f64::from(arch.kv_heads) / n).ceil();
            let tokens = f64::from(i.context_tokens) * f64::from(i.concurrency);
            let kv = arch.kv_bytes_per_token(kv_heads_per_gpu, i.kv_cache) * tokens;
            // One layer's working set on a prefill chunk: the larger of the attention block
            // (input, normed input, q, k, v, output) and the MLP block (input, gate, up, product).
            let (h, f) = (f64::from(arch.hidden), f64::from(arch.ffn));
            let attention = wide * (2.0 * h + 2.0 * arch.q_dim() / n + 2.0 * arch.kv_dim() / n);
            let mlp = wide * (2.0 * h + 3.0 * f / n);
            let chunk = tokens.min(PREFILL_CHUNK_TOKENS);
            // The next-token logits of every sequence in fp32.
            let logits = f64::from(i.concurrency) * f64::from(arch.vocab) * 4.0;
            let activations = chunk * attention.max(mlp) + logits;
            assumptions.push(assumption(
                "prefill_chunk_tokens",
                PREFILL_CHUNK_TOKENS,
                "prompt tokens per forward step (chunked prefill, vLLM max_num_batched_tokens); assumption",
            ));
            (
                Breakdown::from_bytes(
                    base_bytes / n,
                    0.0,
                    0.0,
                    activations,
                    kv,
                    context + dequant_bytes,
                ),
                0.0,
            )
        }
        LlmTask::Training(t) => {
            let (weights, grads, optimizer, trainable) = match t.method {
                TrainingMethod::Full if w.weights == Precision::Fp32 => {
                    // Pure fp32: weights 4, gradients 4, moments.
                    let m = t.optimizer.moment_bytes();
                    (4.0 * p.total, 4.0 * p.total, m * p.total, p.total)
                }
                TrainingMethod::Full => {
                    // Mixed precision (ZeRO paper): 2Ψ + 2Ψ + KΨ, K = fp32 master 4 + moments.
                    let k = 4.0 + t.optimizer.moment_bytes();
                    (2.0 * p.total, 2.0 * p.total, k * p.total, p.total)
                }
                TrainingMethod::Lora { rank, targets } => {
                    let lora = arch.lora_parameters(rank, targets);
                    // fp32 adapters: weight 4, gradient 4, moments.
                    (
                        base_bytes + 4.0 * lora,
                        4.0 * lora,
                        t.optimizer.moment_bytes() * lora,
                        lora,
                    )
                }
            };
            let stage = t.zero.number();
            let shard = |bytes: f64, from_stage: u32| {
                if stage >= from_stage {
                    bytes / n
                } else {
                    bytes
                }
            };
            let (weights_gpu, grads_gpu, optimizer_gpu) =
                (shard(weights, 3), shard(grads, 2), shard(optimizer, 1));
            // ZeRO-3 gathers the full parameters (and gradients) of the current and next module
            // before use: DeepSpeed's estimator counts 4 bytes x largest layer. The buffer never
            // exceeds what sharding removed from this GPU, so sharding never costs memory.
            let gather = if stage >= 3 {
                let bytes_per_param = weights / p.total;
                (2.0 * bytes_per_param * arch.largest_layer()).min(weights - weights_gpu)
            } else {
                0.0
            };
            let tokens = f64::from(t.sequence_tokens) * f64::from(t.micro_batch);
            let act_scale = wide / 2.0;
            let layers = f64::from(arch.layers);
            let per_layer = arch.saved_bytes_per_token_layer() * act_scale;
            let saved = if t.checkpointing {
                tokens * (2.0 * f64::from(arch.hidden) * act_scale * layers + per_layer)
            } else {
                tokens * per_layer * layers
            };
            let logits = tokens * f64::from(arch.vocab) * LOGIT_BYTES_PER_ELEMENT;
            assumptions.push(assumption(
                "logit_bytes_per_element",
                LOGIT_BYTES_PER_ELEMENT,
                "bf16 logits, fp32 upcast for the loss, fp32 gradient and its bf16 cast",
            ));
            if w.gpus > 1 {
                assumptions.push(assumption(
                    "zero_accounting",
                    "2Ψ weights + 2Ψ gradients + KΨ optimizer, K = 12 (Adam) or 6 (8-bit Adam)",
                    "ZeRO paper (arXiv:1910.02054) Fig. 1; activations are not sharded",
                ));
            }
            (
                Breakdown::from_bytes(
                    weights_gpu,
                    grads_gpu,
                    optimizer_gpu,
                    saved + logits,
                    0.0,
                    context + dequant_bytes + gather,
                ),
                trainable,
            )
        }
    };
    Ok(MemoryEstimate {
        vram_gib: breakdown.total_gib(),
        breakdown,
        gpus: w.gpus,
        parameters: p.total,
        trainable_parameters: trainable,
        kind: w.kind(),
        assumptions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(id: &str) -> LlmArch {
        find_llm_preset(id).unwrap().clone()
    }

    fn inference(
        arch: LlmArch,
        weights: Precision,
        context: u32,
        concurrency: u32,
        gpus: u32,
    ) -> LlmWorkload {
        LlmWorkload {
            arch,
            weights,
            gpus,
            task: LlmTask::Inference(LlmInference {
                context_tokens: context,
                concurrency,
                kv_cache: KvPrecision::Fp16,
                generated_tokens: 0.0,
                mbu: None,
            }),
        }
    }

    fn training(arch: LlmArch, weights: Precision, method: TrainingMethod) -> LlmWorkload {
        LlmWorkload {
            arch,
            weights,
            gpus: 1,
            task: LlmTask::Training(LlmTraining {
                method,
                sequence_tokens: 2048,
                micro_batch: 1,
                checkpointing: true,
                optimizer: Optimizer::Adamw,
                zero: ZeroStage::Ddp,
                training_tokens: 0.0,
                mfu: None,
            }),
        }
    }

    #[test]
    fn the_embedded_preset_table_parses_whole() {
        let rows = PRESETS_CSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count()
            - 1;
        assert_eq!(llm_presets().len(), rows, "a row failed to parse");
        assert_eq!(rows, 12);
        for p in llm_presets() {
            p.validate().unwrap_or_else(|e| panic!("{}: {e}", p.name));
            assert_eq!(
                p.head_dim * p.heads,
                p.hidden,
                "{}: head_dim x heads = hidden",
                p.name
            );
        }
        assert!(find_llm_preset(" LLAMA-3-8B ").is_ok());
        let e = find_llm_preset("llama-9").unwrap_err();
        assert_eq!((e.field(), e.code()), ("model", "unknown"));
        assert!(e.to_string().contains("qwen2.5-7b"), "{e}");
    }

    #[test]
    fn precision_ids_round_trip_and_accept_aliases() {
        for p in Precision::ALL {
            assert_eq!(Precision::from_id(p.id()), Some(p));
        }
        assert_eq!(Precision::from_id("FP16"), Some(Precision::Bf16));
        assert_eq!(Precision::from_id("q4"), None);
    }

    #[test]
    fn lora_parameter_counts_match_the_worked_figures() {
        // r = 16 on every linear layer: Llama-3-8B 41.9 M, Llama-2-7B 40.0 M, Llama-3-70B 207 M
        // (shared/docs/research/models.md §2).
        let rows = [
            ("llama-3-8b", 41.9e6),
            ("llama-2-7b", 40.0e6),
            ("llama-3-70b", 207.0e6),
            ("qwen2.5-7b", 40.4e6),
        ];
        for (id, expected) in rows {
            let got = preset(id).lora_parameters(16, LoraTargets::All);
            assert!((got / expected - 1.0).abs() < 0.01, "{id}: {got}");
        }
        let arch = preset("llama-2-7b");
        // q and v only: 32 layers x 16 x (8192 + 8192).
        assert_eq!(
            arch.lora_parameters(16, LoraTargets::Qv),
            32.0 * 16.0 * 16384.0
        );
    }

    #[test]
    fn quantized_weights_keep_embeddings_in_16_bit() {
        let arch = preset("llama-3-8b");
        let p = arch.parameters();
        let m = estimate_llm(&inference(arch, Precision::Nf4, 1, 1, 1)).unwrap();
        let expected = (p.linear * 0.516 + (p.total - p.linear) * 2.0) / GIB;
        assert!((m.breakdown.weights_gib - expected).abs() < 1e-9);
        // 2 x 128256 x 4096 embedding parameters alone are ~2.1 GB.
        assert!(m.breakdown.weights_gib > 2.0 * p.embedding * 2.0 / GIB);
    }

    #[test]
    fn kv_cache_counts_kv_heads_not_query_heads() {
        assert_eq!(
            preset("llama-2-7b").kv_cache_bytes_per_token(KvPrecision::Fp16),
            512.0 * 1024.0
        );
        assert_eq!(
            preset("llama-3-8b").kv_cache_bytes_per_token(KvPrecision::Fp16),
            128.0 * 1024.0
        );
        assert_eq!(
            preset("llama-3-8b").kv_cache_bytes_per_token(KvPrecision::Fp8),
            64.0 * 1024.0
        );
        // Qwen2.5-7B at 32K context: 1.75 GiB per sequence.
        let m = estimate_llm(&inference(
            preset("qwen2.5-7b"),
            Precision::Bf16,
            32_768,
            1,
            1,
        ))
        .unwrap();
        assert!((m.breakdown.kv_cache_gib - 1.75).abs() < 1e-9);
    }

    #[test]
    fn tensor_parallel_splits_weights_and_kv_heads() {
        let one = estimate_llm(&inference(
            preset("llama-3-70b"),
            Precision::Bf16,
            8192,
            4,
            1,
        ))
        .unwrap();
        let four = estimate_llm(&inference(
            preset("llama-3-70b"),
            Precision::Bf16,
            8192,
            4,
            4,
        ))
        .unwrap();
        assert!((four.breakdown.weights_gib * 4.0 - one.breakdown.weights_gib).abs() < 1e-6);
        assert!((four.breakdown.kv_cache_gib * 4.0 - one.breakdown.kv_cache_gib).abs() < 1e-6);
        // GLM-4-9B has 2 KV heads: on 4 GPUs each keeps one (replicated), half the cache.
        let glm1 =
            estimate_llm(&inference(preset("glm-4-9b"), Precision::Bf16, 8192, 1, 1)).unwrap();
        let glm4 =
            estimate_llm(&inference(preset("glm-4-9b"), Precision::Bf16, 8192, 1, 4)).unwrap();
        assert!((glm4.breakdown.kv_cache_gib * 2.0 - glm1.breakdown.kv_cache_gib).abs() < 1e-9);
    }

    #[test]
    fn full_fine_tune_follows_the_zero_paper_accounting() {
        let arch = preset("llama-2-7b");
        let psi = arch.parameters().total;
        let full = estimate_llm(&training(
            arch.clone(),
            Precision::Bf16,
            TrainingMethod::Full,
        ))
        .unwrap();
        let b = full.breakdown;
        assert!((b.weights_gib - 2.0 * psi / GIB).abs() < 1e-9);
        assert!((b.gradients_gib - 2.0 * psi / GIB).abs() < 1e-9);
        assert!((b.optimizer_gib - 12.0 * psi / GIB).abs() < 1e-9);
        assert_eq!(b.kv_cache_gib, 0.0);
        assert_eq!(full.trainable_parameters, psi);
        assert_eq!(full.kind, TaskKind::FineTuneFull);
        // 8-bit Adam: master 4 + moments 2.
        let mut w = training(arch.clone(), Precision::Bf16, TrainingMethod::Full);
        if let LlmTask::Training(t) = &mut w.task {
            t.optimizer = Optimizer::Adamw8bit;
        }
        let b8 = estimate_llm(&w).unwrap().breakdown;
        assert!((b8.optimizer_gib - 6.0 * psi / GIB).abs() < 1e-9);
        // Pure fp32: 4 + 4 + 8.
        let fp32 = estimate_llm(&training(arch, Precision::Fp32, TrainingMethod::Full))
            .unwrap()
            .breakdown;
        assert!(
            (fp32.weights_gib + fp32.gradients_gib + fp32.optimizer_gib - 16.0 * psi / GIB).abs()
                < 1e-6
        );
        assert!(
            fp32.activations_gib > b.activations_gib,
            "fp32 activations are twice as wide"
        );
    }

    #[test]
    fn zero_stages_shard_in_order() {
        let arch = preset("llama-2-7b");
        let psi = arch.parameters().total;
        let mut w = training(arch, Precision::Bf16, TrainingMethod::Full);
        w.gpus = 8;
        let mut states = vec![];
        for stage in ZeroStage::ALL {
            if let LlmTask::Training(t) = &mut w.task {
                t.zero = stage;
            }
            let b = estimate_llm(&w).unwrap().breakdown;
            states.push((
                b.weights_gib,
                b.gradients_gib,
                b.optimizer_gib,
                b.overhead_gib,
            ));
        }
        let g = psi / GIB;
        assert!((states[0].2 - 12.0 * g).abs() < 1e-6);
        assert!(
            (states[1].2 - 12.0 * g / 8.0).abs() < 1e-6 && (states[1].1 - 2.0 * g).abs() < 1e-6
        );
        assert!((states[2].1 - 2.0 * g / 8.0).abs() < 1e-6 && (states[2].0 - 2.0 * g).abs() < 1e-6);
        assert!((states[3].0 - 2.0 * g / 8.0).abs() < 1e-6);
        // The ZeRO-3 gather buffer shows up as overhead.
        assert!(states[3].3 > states[2].3);
    }

    #[test]
    fn checkpointing_saves_activation_memory() {
        let arch = preset("llama-3-8b");
        let method = TrainingMethod::Lora {
            rank: 16,
            targets: LoraTargets::All,
        };
        let on = estimate_llm(&training(arch.clone(), Precision::Nf4, method)).unwrap();
        let mut w = training(arch, Precision::Nf4, method);
        if let LlmTask::Training(t) = &mut w.task {
            t.checkpointing = false;
        }
        let off = estimate_llm(&w).unwrap();
        assert!(off.breakdown.activations_gib > 3.0 * on.breakdown.activations_gib);
        assert_eq!(on.kind, TaskKind::FineTuneQlora);
        assert_eq!(on.breakdown.weights_gib, off.breakdown.weights_gib);
    }

    #[test]
    fn refuses_bad_input_with_the_field_name() {
        let mut w = inference(preset("llama-3-8b"), Precision::Bf16, 0, 1, 1);
        let e = estimate_llm(&w).unwrap_err();
        assert_eq!((e.field(), e.code()), ("context_tokens", "out_of_range"));
        w = inference(preset("llama-3-8b"), Precision::Bf16, 10, 1, 0);
        assert_eq!(estimate_llm(&w).unwrap_err().field(), "gpus");
        let mut arch = preset("llama-3-8b");
        arch.kv_heads = 64;
        assert_eq!(
            estimate_llm(&inference(arch, Precision::Bf16, 1, 1, 1))
                .unwrap_err()
                .field(),
            "kv_heads"
        );
        let e = estimate_llm(&training(
            preset("llama-3-8b"),
            Precision::Nf4,
            TrainingMethod::Full,
        ))
        .unwrap_err();
        assert_eq!((e.field(), e.code()), ("weights", "unsupported"));
        let e = estimate_llm(&training(
            preset("llama-3-8b"),
            Precision::Bf16,
            TrainingMethod::Lora {
                rank: 0,
                targets: LoraTargets::All,
            },
        ))
        .unwrap_err();
        assert_eq!(e.field(), "rank");
        let mut w = inference(preset("llama-3-8b"), Precision::Bf16, 10, 1, 1);
        if let LlmTask::Inference(i) = &mut w.task {
            i.generated_tokens = f64::INFINITY;
        }
        assert_eq!(estimate_llm(&w).unwrap_err().field(), "generated_tokens");
    }

    #[test]
    fn descriptions_name_the_setup() {
        let w = training(
            preset("llama-3-8b"),
            Precision::Nf4,
            TrainingMethod::Lora {
                rank: 16,
                targets: LoraTargets::All,
            },
        );
        assert_eq!(
            w.describe(),
            "llama-3-8b, QLoRA nf4 r16 (all), seq 2048 x 1, checkpointing, adamw, 1 GPU"
        );
    }
}
