//! LLM architectures: the shape of a decoder-only transformer as its `config.json` gives it —
//! grouped-query, multi-head latent (MLA) or sliding-window attention, a dense or
//! mixture-of-experts (MoE) MLP — the presets shipped with gpufare, parameter counts (total and
//! active per token), bytes per weight, the KV cache, and the matrices LoRA adapts.

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
    /// 8-bit keys and values (vLLM and SGLang `--kv-cache-dtype fp8`, llama.cpp q8_0).
    Fp8,
    /// 4-bit keys and values with a 16-bit scale per 32 values (llama.cpp `--cache-type-k q4_0`).
    Int4,
}

impl KvPrecision {
    /// Every KV precision, widest first.
    pub const ALL: [KvPrecision; 3] = [KvPrecision::Fp16, KvPrecision::Fp8, KvPrecision::Int4];

    /// Bytes per cached element: 2, 1, and for 4-bit 18 bytes per block of 32 values = 0.5625
    /// (ggml's `block_q4_0`: a 16-bit scale and 32 4-bit values).
    pub fn bytes(self) -> f64 {
        match self {
            KvPrecision::Fp16 => 2.0,
            KvPrecision::Fp8 => 1.0,
            KvPrecision::Int4 => 0.5625,
        }
    }

    /// The identifier used in files and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            KvPrecision::Fp16 => "fp16",
            KvPrecision::Fp8 => "fp8",
            KvPrecision::Int4 => "int4",
        }
    }

    /// Parses an identifier; `bf16` means [`KvPrecision::Fp16`] (the same size).
    pub fn from_id(id: &str) -> Option<KvPrecision> {
        match id.trim().to_ascii_lowercase().as_str() {
            "fp16" | "bf16" | "f16" | "auto" => Some(KvPrecision::Fp16),
            "fp8" | "fp8_e4m3" | "fp8_e5m2" | "q8_0" => Some(KvPrecision::Fp8),
            "int4" | "q4_0" => Some(KvPrecision::Int4),
            _ => None,
        }
    }
}

/// Mixture-of-experts MLP layers: each token goes through `experts_per_token` of `experts`
/// routed experts (plus any shared ones), but every expert stays resident in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MoeShape {
    /// Routed experts per MoE layer (`num_local_experts`, `num_experts` or `n_routed_experts`).
    pub experts: u32,
    /// Routed experts each token goes through (`num_experts_per_tok`).
    pub experts_per_token: u32,
    /// Shared experts every token goes through (`n_shared_experts`; 0 without).
    #[serde(default)]
    pub shared_experts: u32,
    /// Intermediate size of one expert's gated MLP (`moe_intermediate_size`; Mixtral's
    /// `intermediate_size`).
    pub expert_ffn: u32,
    /// Leading layers with a dense MLP of `ffn` instead of experts (`first_k_dense_replace`).
    #[serde(default)]
    pub dense_layers: u32,
}

/// Multi-head latent attention (DeepSeek-V2/V3): keys and values are rebuilt from one compressed
/// latent per token and layer, and only that latent and the shared rotary key are cached
/// (DeepSeek-V2 paper, arXiv:2405.04434 §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MlaShape {
    /// Rank of the query compression (`q_lora_rank`; 0 when queries are projected directly).
    #[serde(default)]
    pub q_lora_rank: u32,
    /// Rank of the key/value latent the cache holds (`kv_lora_rank`).
    pub kv_lora_rank: u32,
    /// Per-head query and key dimension without rotary embedding (`qk_nope_head_dim`).
    pub qk_nope_head_dim: u32,
    /// Per-head dimension with rotary embedding; its key part is shared by the heads and cached
    /// beside the latent (`qk_rope_head_dim`).
    pub qk_rope_head_dim: u32,
    /// Per-head value dimension (`v_head_dim`).
    pub v_head_dim: u32,
}

/// A latent attention's sizes as floats for the weight counts: `heads`, the query and key-value
/// ranks, the per-head widths without and with rotary embedding, the value width, and the
/// query's output width, heads × (nope + rope).
struct MlaDims {
    heads: f64,
    qr: f64,
    kvr: f64,
    nope: f64,
    rope: f64,
    v: f64,
    q_out: f64,
}

impl MlaShape {
    /// The sizes as floats, for a model with `heads` attention heads.
    fn dims(&self, heads: u32) -> MlaDims {
        let heads = f64::from(heads);
        let (nope, rope) = (
            f64::from(self.qk_nope_head_dim),
            f64::from(self.qk_rope_head_dim),
        );
        MlaDims {
            heads,
            qr: f64::from(self.q_lora_rank),
            kvr: f64::from(self.kv_lora_rank),
            nope,
            rope,
            v: f64::from(self.v_head_dim),
            q_out: heads * (nope + rope),
        }
    }
}

/// Sliding-window attention: local layers attend to, and cache, only the last `window` tokens;
/// global layers attend to the whole context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SlidingWindow {
    /// Tokens a local layer attends to and keeps (`sliding_window`).
    pub window: u32,
    /// Every `global_every`-th layer is global (Gemma 3's `sliding_window_pattern` 6, Gemma 2's
    /// alternation 2); 0 when every layer is local (Mistral 7B v0.1).
    #[serde(default)]
    pub global_every: u32,
}

impl SlidingWindow {
    /// Global layers among `layers`: `⌊layers / global_every⌋`, none when `global_every` is 0.
    pub fn global_layers(&self, layers: u32) -> u32 {
        layers.checked_div(self.global_every).unwrap_or(0)
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
    /// MLP intermediate size (`intermediate_size`), for a gated (SwiGLU) MLP; with experts, the
    /// size of the dense MLP of the first `dense_layers` layers.
    pub ffn: u32,
    /// Vocabulary size (`vocab_size`).
    pub vocab: u32,
    /// Whether the LM head shares the embedding matrix (`tie_word_embeddings`).
    pub tied_embeddings: bool,
    /// Whether the q/k/v projections have a bias (Qwen2, GLM-4, GLM-4.5).
    pub qkv_bias: bool,
    /// Mixture-of-experts MLP layers; none for a dense model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe: Option<MoeShape>,
    /// Multi-head latent attention; none for standard (grouped-query) attention.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mla: Option<MlaShape>,
    /// Sliding-window attention; none when every layer attends to the whole context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sliding_window: Option<SlidingWindow>,
}

/// Parameter counts of an architecture.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ParameterCount {
    /// Every parameter.
    pub total: f64,
    /// Parameters in the decoder's linear layers, every expert included (what quantizers
    /// shrink).
    pub linear: f64,
    /// Parameters of the largest decoder layer.
    pub per_layer: f64,
    /// Parameters of the embedding matrix (the LM head, when untied, is as large again).
    pub embedding: f64,
    /// Parameters multiplied per token (the linear layers a token goes through and the LM head):
    /// the Ψ of `6·Ψ·tokens`.
    pub compute: f64,
    /// Parameters a token goes through: the total less the routed experts it skips (the total
    /// for a dense model).
    #[serde(default)]
    pub active: f64,
    /// Parameters of every routed expert together (0 for a dense model).
    #[serde(default)]
    pub routed_experts: f64,
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
    experts: Option<u32>,
    experts_per_token: Option<u32>,
    shared_experts: Option<u32>,
    expert_ffn: Option<u32>,
    dense_layers: Option<u32>,
    q_lora_rank: Option<u32>,
    kv_lora_rank: Option<u32>,
    qk_nope_head_dim: Option<u32>,
    qk_rope_head_dim: Option<u32>,
    v_head_dim: Option<u32>,
    sliding_window: Option<u32>,
    global_every: Option<u32>,
}

impl PresetRow {
    fn arch(self) -> LlmArch {
        let moe = match (self.experts, self.experts_per_token, self.expert_ffn) {
            (Some(experts), Some(experts_per_token), Some(expert_ffn)) => Some(MoeShape {
                experts,
                experts_per_token,
                shared_experts: self.shared_experts.unwrap_or(0),
                expert_ffn,
                dense_layers: self.dense_layers.unwrap_or(0),
            }),
            _ => None,
        };
        let mla = match (
            self.kv_lora_rank,
            self.qk_nope_head_dim,
            self.qk_rope_head_dim,
            self.v_head_dim,
        ) {
            (Some(kv_lora_rank), Some(qk_nope_head_dim), Some(qk_rope_head_dim), Some(v)) => {
                Some(MlaShape {
                    q_lora_rank: self.q_lora_rank.unwrap_or(0),
                    kv_lora_rank,
                    qk_nope_head_dim,
                    qk_rope_head_dim,
                    v_head_dim: v,
                })
            }
            _ => None,
        };
        LlmArch {
            name: self.id,
            layers: self.layers,
            hidden: self.hidden,
            heads: self.heads,
            kv_heads: self.kv_heads,
            head_dim: self.head_dim,
            ffn: self.ffn,
            vocab: self.vocab,
            tied_embeddings: self.tied_embeddings == "yes",
            qkv_bias: self.qkv_bias == "yes",
            moe,
            mla,
            sliding_window: self.sliding_window.map(|window| SlidingWindow {
                window,
                global_every: self.global_every.unwrap_or(0),
            }),
        }
    }
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
            .map(PresetRow::arch)
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

/// The weight matrices of one layer, as sums of `d_in + d_out` (for LoRA) by group.
struct AdaptedMatrices {
    /// Query-side attention projections (`q_proj`; MLA `q_a_proj`, `q_b_proj`).
    query: f64,
    /// Value-side attention projections (`v_proj`; MLA `kv_a_proj_with_mqa`, `kv_b_proj`).
    value: f64,
    /// Every attention projection.
    attention: f64,
    /// The MLP of a dense layer (gate, up, down).
    dense_mlp: f64,
    /// One expert's MLP (gate, up, down).
    expert: f64,
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
        if let Some(m) = &self.moe {
            check_u32("experts", m.experts, 1, 4096)?;
            check_u32("experts_per_token", m.experts_per_token, 1, m.experts)?;
            check_u32("shared_experts", m.shared_experts, 0, 64)?;
            check_u32("expert_ffn", m.expert_ffn, 1, 1_048_576)?;
            check_u32("dense_layers", m.dense_layers, 0, self.layers)?;
        }
        if let Some(m) = &self.mla {
            check_u32("q_lora_rank", m.q_lora_rank, 0, 131_072)?;
            check_u32("kv_lora_rank", m.kv_lora_rank, 1, 131_072)?;
            check_u32("qk_nope_head_dim", m.qk_nope_head_dim, 1, 1024)?;
            check_u32("qk_rope_head_dim", m.qk_rope_head_dim, 0, 1024)?;
            check_u32("v_head_dim", m.v_head_dim, 1, 1024)?;
        }
        if let Some(s) = &self.sliding_window {
            check_u32("sliding_window", s.window, 1, 10_000_000)?;
            check_u32("global_every", s.global_every, 0, self.layers)?;
        }
        Ok(())
    }

    /// Query width: `heads · head_dim` (MLA: `heads · (qk_nope + qk_rope)`).
    pub(crate) fn q_dim(&self) -> f64 {
        match &self.mla {
            Some(m) => {
                f64::from(self.heads)
                    * (f64::from(m.qk_nope_head_dim) + f64::from(m.qk_rope_head_dim))
            }
            None => f64::from(self.heads) * f64::from(self.head_dim),
        }
    }

    /// Key/value width: `kv_heads · head_dim` (MLA: the keys and values rebuilt from the latent,
    /// half of `heads · (qk_nope + qk_rope + v)`).
    pub(crate) fn kv_dim(&self) -> f64 {
        self.kv_pair_dim() / 2.0
    }

    /// Width of the keys and the values of one token together.
    fn kv_pair_dim(&self) -> f64 {
        match &self.mla {
            Some(m) => {
                f64::from(self.heads)
                    * (f64::from(m.qk_nope_head_dim)
                        + f64::from(m.qk_rope_head_dim)
                        + f64::from(m.v_head_dim))
            }
            None => 2.0 * f64::from(self.kv_heads) * f64::from(self.head_dim),
        }
    }

    /// Layers with a dense MLP and layers with experts.
    fn layer_split(&self) -> (f64, f64) {
        match &self.moe {
            Some(m) => {
                let dense = m.dense_layers.min(self.layers);
                (f64::from(dense), f64::from(self.layers - dense))
            }
            None => (f64::from(self.layers), 0.0),
        }
    }

    /// The matrices of one layer, as `d_in + d_out` sums.
    fn adapted_matrices(&self) -> AdaptedMatrices {
        let h = f64::from(self.hidden);
        let (query, value, attention) = match &self.mla {
            Some(m) => {
                let MlaDims {
                    heads,
                    qr,
                    kvr,
                    nope,
                    rope,
                    v,
                    q_out,
                } = m.dims(self.heads);
                let query = if m.q_lora_rank > 0 {
                    (h + qr) + (qr + q_out)
                } else {
                    h + q_out
                };
                let value = (h + kvr + rope) + (kvr + heads * (nope + v));
                let output = heads * v + h;
                (query, value, query + value + output)
            }
            None => {
                let (q, kv) = (self.q_dim(), self.kv_dim());
                (h + q, h + kv, (h + q) + (h + kv) + (h + kv) + (q + h))
            }
        };
        let expert = self
            .moe
            .map_or(0.0, |m| 3.0 * (h + f64::from(m.expert_ffn)));
        AdaptedMatrices {
            query,
            value,
            attention,
            dense_mlp: 3.0 * (h + f64::from(self.ffn)),
            expert,
        }
    }

    /// Weights of the attention projections of one layer.
    fn attention_linear(&self) -> f64 {
        let h = f64::from(self.hidden);
        match &self.mla {
            Some(m) => {
                let MlaDims {
                    heads,
                    qr,
                    kvr,
                    nope,
                    rope,
                    v,
                    q_out,
                } = m.dims(self.heads);
                let query = if m.q_lora_rank > 0 {
                    h * qr + qr * q_out
                } else {
                    h * q_out
                };
                let key_value = h * (kvr + rope) + kvr * heads * (nope + v);
                query + key_value + heads * v * h
            }
            None => {
                let (q, kv) = (self.q_dim(), self.kv_dim());
                h * q + 2.0 * h * kv + q * h
            }
        }
    }

    /// Parameters of one routed expert (a gated MLP: gate, up and down).
    fn expert_parameters(&self) -> f64 {
        self.moe.map_or(0.0, |m| {
            3.0 * f64::from(self.hidden) * f64::from(m.expert_ffn)
        })
    }

    /// Parameter counts (see `memory`'s module docs for the formula).
    pub fn parameters(&self) -> ParameterCount {
        let (l, h, v) = (
            f64::from(self.layers),
            f64::from(self.hidden),
            f64::from(self.vocab),
        );
        let (dense_layers, moe_layers) = self.layer_split();
        let attention = self.attention_linear();
        let dense_linear = attention + 3.0 * h * f64::from(self.ffn);
        let bias = match (&self.mla, self.qkv_bias) {
            (None, true) => self.q_dim() + 2.0 * self.kv_dim(),
            _ => 0.0,
        };
        let latent_norms = self.mla.map_or(0.0, |m| {
            f64::from(m.q_lora_rank) + f64::from(m.kv_lora_rank)
        });
        let dense_layer = dense_linear + bias + 2.0 * h + latent_norms;
        let embedding = v * h;
        let heads_and_embeddings = if self.tied_embeddings {
            embedding
        } else {
            2.0 * embedding
        };
        let Some(m) = &self.moe else {
            return ParameterCount {
                total: l * dense_layer + h + heads_and_embeddings,
                linear: l * dense_linear,
                per_layer: dense_layer,
                embedding,
                compute: l * dense_linear + embedding,
                active: l * dense_layer + h + heads_and_embeddings,
                routed_experts: 0.0,
            };
        };
        let expert = self.expert_parameters();
        let (experts, per_token, shared) = (
            f64::from(m.experts),
            f64::from(m.experts_per_token),
            f64::from(m.shared_experts),
        );
        let router = h * experts;
        let moe_linear = attention + (experts + shared) * expert;
        let moe_layer = moe_linear + router + bias + 2.0 * h + latent_norms;
        let total = dense_layers * dense_layer + moe_layers * moe_layer + h + heads_and_embeddings;
        let skipped = moe_layers * (experts - per_token) * expert;
        ParameterCount {
            total,
            linear: dense_layers * dense_linear + moe_layers * moe_linear,
            per_layer: if moe_layers > 0.0 {
                moe_layer.max(if dense_layers > 0.0 { dense_layer } else { 0.0 })
            } else {
                dense_layer
            },
            embedding,
            compute: dense_layers * dense_linear
                + moe_layers * (attention + (per_token + shared) * expert + router)
                + embedding,
            active: total - skipped,
            routed_experts: moe_layers * experts * expert,
        }
    }

    /// Parameters LoRA adds at `rank` on `targets`: `r · Σ (d_in + d_out)` over the adapted
    /// matrices of every layer (Hu et al., arXiv:2106.09685) — every expert's matrices included
    /// when the MLP is adapted, the router never.
    pub fn lora_parameters(&self, rank: u32, targets: LoraTargets) -> f64 {
        let (other, experts) = self.lora_parameters_split(rank, targets);
        other + experts
    }

    /// LoRA parameters split into those on the routed experts' matrices and the rest:
    /// `(rest, routed experts)`.
    pub(crate) fn lora_parameters_split(&self, rank: u32, targets: LoraTargets) -> (f64, f64) {
        let m = self.adapted_matrices();
        let (dense_layers, moe_layers) = self.layer_split();
        let r = f64::from(rank);
        let (routed, shared) = self.moe.map_or((0.0, 0.0), |moe| {
            (f64::from(moe.experts), f64::from(moe.shared_experts))
        });
        let attention = match targets {
            LoraTargets::Qv => m.query + m.value,
            LoraTargets::Attention | LoraTargets::All => m.attention,
            LoraTargets::Mlp => 0.0,
        };
        let mlp = matches!(targets, LoraTargets::Mlp | LoraTargets::All);
        if self.moe.is_none() {
            let per_layer = if mlp {
                attention + m.dense_mlp
            } else {
                attention
            };
            return (r * f64::from(self.layers) * per_layer, 0.0);
        }
        let (dense_mlp, shared_mlp, routed_mlp) = if mlp {
            (m.dense_mlp, shared * m.expert, routed * m.expert)
        } else {
            (0.0, 0.0, 0.0)
        };
        let rest =
            r * (dense_layers * (attention + dense_mlp) + moe_layers * (attention + shared_mlp));
        (rest, r * moe_layers * routed_mlp)
    }

    /// Layer-tokens a `context`-token sequence keeps in the cache: `L · context`, or with a
    /// sliding window `global · context + local · min(context, window)`.
    pub(crate) fn cached_layer_tokens(&self, context: f64) -> f64 {
        let l = f64::from(self.layers);
        match &self.sliding_window {
            None => l * context,
            Some(s) => {
                let global = f64::from(s.global_layers(self.layers));
                global * context + (l - global) * context.min(f64::from(s.window))
            }
        }
    }

    /// KV cache bytes one layer keeps per token on one GPU holding `kv_heads_per_gpu` KV heads:
    /// `2 · kv_heads · head_dim · bytes`, or with MLA `(kv_lora_rank + qk_rope_head_dim) · bytes`
    /// whatever the GPU count (the latent is not split by heads).
    fn kv_bytes_per_layer_token(&self, kv_heads_per_gpu: f64, kv: KvPrecision) -> f64 {
        match &self.mla {
            Some(m) => (f64::from(m.kv_lora_rank) + f64::from(m.qk_rope_head_dim)) * kv.bytes(),
            None => 2.0 * kv_heads_per_gpu * f64::from(self.head_dim) * kv.bytes(),
        }
    }

    /// KV cache bytes per token of context on one GPU holding `kv_heads_per_gpu` KV heads, while
    /// the context is within any sliding window: `2 · L · kv_heads · head_dim · bytes` (MLA:
    /// `L · (kv_lora_rank + qk_rope_head_dim) · bytes`).
    pub(crate) fn kv_bytes_per_token(&self, kv_heads_per_gpu: f64, kv: KvPrecision) -> f64 {
        match &self.mla {
            Some(_) => f64::from(self.layers) * self.kv_bytes_per_layer_token(kv_heads_per_gpu, kv),
            None => {
                2.0 * f64::from(self.layers)
                    * kv_heads_per_gpu
                    * f64::from(self.head_dim)
                    * kv.bytes()
            }
        }
    }

    /// KV cache bytes of one `context`-token sequence on one GPU holding `kv_heads_per_gpu` KV
    /// heads, sliding windows counted.
    pub(crate) fn kv_bytes_per_sequence(
        &self,
        context: f64,
        kv_heads_per_gpu: f64,
        kv: KvPrecision,
    ) -> f64 {
        match &self.sliding_window {
            None => self.kv_bytes_per_token(kv_heads_per_gpu, kv) * context,
            Some(_) => {
                self.cached_layer_tokens(context)
                    * self.kv_bytes_per_layer_token(kv_heads_per_gpu, kv)
            }
        }
    }

    /// KV cache bytes per token on one GPU (all KV heads) while the context is within any sliding
    /// window, e.g. 512 KiB for Llama-2-7B and 128 KiB for Llama-3-8B in fp16, 68.6 KiB for
    /// DeepSeek-V3's latent.
    pub fn kv_cache_bytes_per_token(&self, kv: KvPrecision) -> f64 {
        self.kv_bytes_per_token(f64::from(self.kv_heads), kv)
    }

    /// KV cache bytes of one sequence of `context` tokens on one GPU (all KV heads), sliding
    /// windows counted.
    pub fn kv_cache_bytes(&self, context: f64, kv: KvPrecision) -> f64 {
        self.kv_bytes_per_sequence(context, f64::from(self.kv_heads), kv)
    }

    /// Attention FLOPs per token attending to `context` earlier tokens (scores and weighted
    /// values, `2 · heads · (qk_dim + v_dim)` per layer and token attended to; PaLM App. B counts
    /// the same), sliding windows counted.
    pub(crate) fn attention_flops_per_token(&self, context: f64) -> f64 {
        let per_layer_token = match &self.mla {
            Some(m) => {
                2.0 * f64::from(self.heads)
                    * (f64::from(m.qk_nope_head_dim)
                        + f64::from(m.qk_rope_head_dim)
                        + f64::from(m.v_head_dim))
            }
            None => 4.0 * f64::from(self.heads) * f64::from(self.head_dim),
        };
        per_layer_token * self.cached_layer_tokens(context)
    }

    /// Width of the MLP a token goes through in a layer with experts: `(k + shared) · expert_ffn`.
    fn moe_mlp_width(&self) -> f64 {
        self.moe.map_or(0.0, |m| {
            (f64::from(m.experts_per_token) + f64::from(m.shared_experts)) * f64::from(m.expert_ffn)
        })
    }

    /// Activation bytes a layer saves per token for the backward pass, in 16 bits:
    /// `(largest layer, all layers together)`. A dense layer keeps `2·(4h + 2q + 2kv) + 8·ffn`;
    /// a layer with experts keeps the same attention part, `8·(k + shared)·expert_ffn` for the
    /// experts a token visits, its `k` dispatched copies of the input (`2·k·h`) and fp32 router
    /// logits (`4·experts`); MLA adds its two latents.
    pub(crate) fn saved_bytes_per_token(&self) -> (f64, f64) {
        let h = f64::from(self.hidden);
        let latents = self.mla.map_or(0.0, |m| {
            2.0 * (f64::from(m.q_lora_rank)
                + f64::from(m.kv_lora_rank)
                + f64::from(m.qk_rope_head_dim))
        });
        let attention = 2.0 * (4.0 * h + 2.0 * self.q_dim() + self.kv_pair_dim()) + latents;
        let dense = attention + 8.0 * f64::from(self.ffn);
        let Some(m) = &self.moe else {
            return (dense, dense * f64::from(self.layers));
        };
        let moe = attention
            + 8.0 * self.moe_mlp_width()
            + 2.0 * f64::from(m.experts_per_token) * h
            + 4.0 * f64::from(m.experts);
        let (dense_layers, moe_layers) = self.layer_split();
        let largest = if dense_layers > 0.0 {
            moe.max(dense)
        } else {
            moe
        };
        (largest, dense_layers * dense + moe_layers * moe)
    }

    /// Elements one token holds at once in one layer's largest block on one of `n` GPUs during
    /// inference, without the unit: attention (input, normed input, q, k, v, output) or the MLP
    /// (input, gate, up, product; with experts, the `k` dispatched copies of the input too).
    pub(crate) fn working_set_per_token(&self, n: f64) -> f64 {
        let h = f64::from(self.hidden);
        let attention = 2.0 * h + 2.0 * self.q_dim() / n + self.kv_pair_dim() / n;
        let dense = 2.0 * h + 3.0 * f64::from(self.ffn) / n;
        let Some(m) = &self.moe else {
            return attention.max(dense);
        };
        let moe = 2.0 * h + f64::from(m.experts_per_token) * h + 3.0 * self.moe_mlp_width() / n;
        let (dense_layers, _) = self.layer_split();
        let mlp = if dense_layers > 0.0 {
            moe.max(dense)
        } else {
            moe
        };
        attention.max(mlp)
    }

    /// Parameters of the largest single module (a decoder layer or the embedding matrix).
    pub(crate) fn largest_layer(&self) -> f64 {
        let p = self.parameters();
        p.per_layer.max(p.embedding)
    }

    /// Elements of the largest linear weight matrix.
    pub(crate) fn largest_matrix(&self) -> f64 {
        let h = f64::from(self.hidden);
        let (dense_layers, _) = self.layer_split();
        let mlp = match &self.moe {
            Some(m) if dense_layers == 0.0 => f64::from(m.expert_ffn),
            Some(m) => f64::from(m.expert_ffn).max(f64::from(self.ffn)),
            None => f64::from(self.ffn),
        };
        h * mlp.max(self.q_dim())
    }

    /// The share of the routed experts each GPU holds when they are spread whole over `gpus`
    /// GPUs (expert parallelism): `⌈experts / gpus⌉ / experts`; 1 for a dense model.
    pub(crate) fn expert_share(&self, gpus: u32) -> f64 {
        match &self.moe {
            Some(m) if m.experts > 0 && gpus > 0 => {
                f64::from(m.experts.div_ceil(gpus)) / f64::from(m.experts)
            }
            _ => 1.0,
        }
    }

    /// Of the routed experts, the share a decode step of `concurrency` sequences reads: each
    /// token picks `k` of `E` experts, so with routing taken as uniform and independent the
    /// expected share touched is `1 − (1 − k/E)^concurrency` (1 for a dense model).
    pub(crate) fn experts_touched(&self, concurrency: f64) -> f64 {
        match &self.moe {
            Some(m) if m.experts > 0 => {
                let miss = 1.0 - f64::from(m.experts_per_token) / f64::from(m.experts);
                1.0 - miss.max(0.0).powf(concurrency)
            }
            _ => 1.0,
        }
    }
}

/// Which weight matrices LoRA adapts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoraTargets {
    /// `q_proj` and `v_proj` (the LoRA paper's choice, PEFT's default for Llama); with MLA, the
    /// query and the key/value projections.
    Qv,
    /// The attention projections.
    Attention,
    /// The MLP only: gate, up and down of a dense MLP, or of every expert (routed and shared).
    Mlp,
    /// Every linear layer of the decoder (attention and MLP, every expert), QLoRA's
    /// recommendation.
    #[default]
    All,
}

impl LoraTargets {
    /// Every choice.
    pub const ALL: [LoraTargets; 4] = [
        LoraTargets::Qv,
        LoraTargets::Attention,
        LoraTargets::Mlp,
        LoraTargets::All,
    ];

    /// The identifier used in files and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            LoraTargets::Qv => "qv",
            LoraTargets::Attention => "attention",
            LoraTargets::Mlp => "mlp",
            LoraTargets::All => "all",
        }
    }
}
