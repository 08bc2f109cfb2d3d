//! LLM architectures: the shape of a decoder-only transformer as its `config.json` gives it, the
//! presets shipped with gpufare, parameter counts, bytes per weight, the KV cache per token, and
//! the matrices LoRA adapts.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::workload::types::{WorkloadError, check_u32};

pub(crate) const PRESETS_CSV: &str = include_str!("../../../data/llm-presets.csv");

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

    /// The weights a run trains or serves unless told otherwise: 4-bit NF4 for QLoRA (`qlora`),
    /// 16-bit otherwise.
    pub fn default_for(qlora: bool) -> Precision {
        if qlora {
            Precision::Nf4
        } else {
            Precision::Bf16
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
    pub(crate) fn dequantizes(self) -> bool {
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

    pub(crate) fn q_dim(&self) -> f64 {
        f64::from(self.heads) * f64::from(self.head_dim)
    }

    pub(crate) fn kv_dim(&self) -> f64 {
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
    pub(crate) fn kv_bytes_per_token(&self, kv_heads_per_gpu: f64, kv: KvPrecision) -> f64 {
        2.0 * f64::from(self.layers) * kv_heads_per_gpu * f64::from(self.head_dim) * kv.bytes()
    }

    /// KV cache bytes per token on one GPU (all KV heads), e.g. 512 KiB for Llama-2-7B and
    /// 128 KiB for Llama-3-8B in fp16.
    pub fn kv_cache_bytes_per_token(&self, kv: KvPrecision) -> f64 {
        self.kv_bytes_per_token(f64::from(self.kv_heads), kv)
    }

    /// Activation bytes one layer saves per token for the backward pass, in 16 bits.
    pub(crate) fn saved_bytes_per_token_layer(&self) -> f64 {
        let (h, f) = (f64::from(self.hidden), f64::from(self.ffn));
        2.0 * (4.0 * h + 2.0 * self.q_dim() + 2.0 * self.kv_dim()) + 8.0 * f
    }

    /// Parameters of the largest single module (a decoder layer or the embedding matrix).
    pub(crate) fn largest_layer(&self) -> f64 {
        let p = self.parameters();
        p.per_layer.max(p.embedding)
    }

    /// Elements of the largest linear weight matrix.
    pub(crate) fn largest_matrix(&self) -> f64 {
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
