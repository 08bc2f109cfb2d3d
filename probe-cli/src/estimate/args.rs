//! The flags of `gpufare estimate`: llm, sd and presets.

use clap::{Args, Subcommand, ValueEnum};
use gpufare_core::hardware::gpu::{find_gpu, gpu_specs};
use gpufare_core::workload::llm::arch::Precision;

pub const ESTIMATE_EXAMPLES: &str = "\
Examples:
  gpufare estimate llm --model llama-2-7b --task qlora --gpu A10 --train-tokens 2e7
  gpufare estimate llm --model llama-3-8b --context 8192 --concurrency 4 --gpu RTX4090
  gpufare estimate llm --model llama-3-70b --task full --gpus 16 --zero 3 --gpu H100-SXM
  gpufare estimate llm --model qwen3-30b-a3b --context 32768 --kv-cache fp8
  gpufare estimate llm --model deepseek-v3 --weights fp8 --gpus 8 --expert-parallel
  gpufare estimate llm --model mixtral-8x7b --task qlora --targets attention
  gpufare estimate llm --model gemma-3-27b --context 131072 --kv-cache int4
  gpufare estimate sd --model sdxl --batch 4 --width 1024 --height 1024
  gpufare estimate sd --model sdxl --task lora --rank 8 --train-steps 2000 --gpu all
  gpufare estimate presets --format json

Memory is in GiB per GPU. The fit against the default catalog uses the plan's rule: a need up to 90% \
of an offer's visible VRAM fits, up to 100% is tight, above is out of memory.";

#[derive(Debug, Args)]
pub struct EstimateArgs {
    #[command(subcommand)]
    pub what: EstimateCommand,
}

#[derive(Debug, Subcommand)]
pub enum EstimateCommand {
    /// A language model, served (inference) or trained (full fine-tune, LoRA, QLoRA).
    #[command(after_help = ESTIMATE_EXAMPLES)]
    Llm(LlmArgs),
    /// A Stable Diffusion family model (SD 1.5, SDXL, Flux.1-dev): image generation or LoRA
    /// training.
    #[command(after_help = ESTIMATE_EXAMPLES)]
    Sd(SdArgs),
    /// List the LLM presets, diffusion models and GPUs the estimator knows.
    Presets(PresetsArgs),
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns with units, for people.
    Table,
    /// One JSON document, for scripts.
    Json,
}

/// Options every estimate shares.
#[derive(Debug, Args)]
pub struct EstimateOutput {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Estimate run time on this GPU (a name from `gpufare estimate presets`, e.g. A100-80GB,
    /// RTX4090, H100-SXM), or on every GPU of the spec table with `all`. A single GPU is also the
    /// reference GPU of the task-profile fields (default A100-80GB).
    #[arg(long, value_name = "GPU|all", value_parser = parse_gpu)]
    pub gpu: Option<String>,
}

/// What an LLM workload does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LlmTaskArg {
    /// Serving or generating: weights + KV cache + activations.
    Inference,
    /// Full fine-tune with mixed-precision AdamW (16 bytes per parameter).
    Full,
    /// LoRA adapters on frozen 16-bit weights.
    Lora,
    /// LoRA on frozen 4-bit weights (NF4 unless --weights says otherwise).
    Qlora,
}

/// The optimizer of a training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OptimizerArg {
    /// AdamW with fp32 moments.
    Adamw,
    /// bitsandbytes 8-bit AdamW.
    #[value(name = "adamw-8bit")]
    Adamw8bit,
}

/// Which matrices LoRA adapts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetsArg {
    /// q_proj and v_proj (with MLA: the query and key/value projections).
    Qv,
    /// The attention projections.
    Attention,
    /// The MLP only: every expert of a mixture of experts, or the dense MLP.
    #[value(alias = "experts")]
    Mlp,
    /// Every linear layer (attention and MLP, every expert).
    All,
}

/// KV cache precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KvArg {
    /// 16-bit (fp16 or bf16).
    Fp16,
    /// 8-bit (vLLM/SGLang fp8, llama.cpp q8_0).
    Fp8,
    /// 4-bit (llama.cpp q4_0: 18 bytes per 32 values).
    Int4,
}

#[derive(Debug, Args)]
pub struct LlmArgs {
    /// Model preset (see `gpufare estimate presets`). Without it, give the shape with --layers,
    /// --hidden, --heads, --ffn and --vocab; with it, those flags override the preset.
    #[arg(long, value_name = "PRESET")]
    pub model: Option<String>,

    /// What the model does.
    #[arg(long, value_enum, default_value_t = LlmTaskArg::Inference)]
    pub task: LlmTaskArg,

    /// Weight precision: fp32, bf16 (= fp16), fp8, int8, int4 (GPTQ/AWQ) or nf4 (bitsandbytes).
    /// Default bf16; nf4 for --task qlora. Quantized weights keep embeddings and LM head in 16 bits.
    #[arg(long, value_name = "PRECISION", value_parser = parse_precision)]
    pub weights: Option<Precision>,

    /// GPUs: tensor-parallel for inference, data-parallel for training (see --zero).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub gpus: u32,

    /// Mixture of experts: spread whole experts over the --gpus GPUs (expert parallelism,
    /// ceil(experts / GPUs) on each) instead of splitting every expert or sharding it with ZeRO.
    #[arg(long)]
    pub expert_parallel: bool,

    /// Inference: tokens of context per sequence (prompt + output) held in the KV cache
    /// [default: 4096].
    #[arg(long, value_name = "TOKENS", help_heading = "Inference")]
    pub context: Option<u32>,

    /// Inference: sequences served at once [default: 1].
    #[arg(long, value_name = "N", help_heading = "Inference")]
    pub concurrency: Option<u32>,

    /// Inference: KV cache precision: fp16, fp8 or int4 [default: fp16].
    #[arg(long, value_enum, help_heading = "Inference")]
    pub kv_cache: Option<KvArg>,

    /// Inference: tokens to generate in all, for the run time (e.g. 1e6) [default: 0].
    #[arg(long, value_name = "TOKENS", help_heading = "Inference")]
    pub generate_tokens: Option<f64>,

    /// Inference: memory-bandwidth utilisation of decoding, in (0, 1] [default: 0.7].
    #[arg(long, value_name = "FRACTION", help_heading = "Inference")]
    pub mbu: Option<f64>,

    /// Training: tokens per sequence [default: 2048].
    #[arg(long, value_name = "TOKENS", help_heading = "Training")]
    pub seq_len: Option<u32>,

    /// Training: sequences per GPU per step [default: 1].
    #[arg(long, value_name = "N", help_heading = "Training")]
    pub micro_batch: Option<u32>,

    /// Training: turn activation (gradient) checkpointing off (it is on by default).
    #[arg(long, help_heading = "Training")]
    pub no_checkpointing: bool,

    /// Training: LoRA rank [default: 16].
    #[arg(long, value_name = "R", help_heading = "Training")]
    pub rank: Option<u32>,

    /// Training: which matrices LoRA adapts: qv, attention, mlp (alias experts: every expert's
    /// matrices) or all [default: all].
    #[arg(long, value_enum, help_heading = "Training")]
    pub targets: Option<TargetsArg>,

    /// Training: optimizer [default: adamw].
    #[arg(long, value_enum, help_heading = "Training")]
    pub optimizer: Option<OptimizerArg>,

    /// Training: ZeRO stage across --gpus: 0 = DDP, 1 = optimizer sharded, 2 = + gradients
    /// (FSDP SHARD_GRAD_OP), 3 = + weights (FSDP FULL_SHARD) [default: 0].
    #[arg(long, value_name = "STAGE", value_parser = clap::value_parser!(u8).range(0..=3), help_heading = "Training")]
    pub zero: Option<u8>,

    /// Training: tokens to train on in all, epochs included, for the run time (e.g. 2e8)
    /// [default: 0].
    #[arg(long, value_name = "TOKENS", help_heading = "Training")]
    pub train_tokens: Option<f64>,

    /// Training: model FLOPs utilisation, in (0, 1] [default: 0.35 full, 0.25 LoRA/QLoRA].
    #[arg(long, value_name = "FRACTION", help_heading = "Training")]
    pub mfu: Option<f64>,

    /// Custom shape: decoder layers.
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub layers: Option<u32>,

    /// Custom shape: hidden size.
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub hidden: Option<u32>,

    /// Custom shape: attention heads.
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub heads: Option<u32>,

    /// Custom shape: key/value heads (grouped-query attention) [default: --heads].
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub kv_heads: Option<u32>,

    /// Custom shape: dimension of one head [default: hidden / heads].
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub head_dim: Option<u32>,

    /// Custom shape: MLP intermediate size (gated SwiGLU MLP).
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub ffn: Option<u32>,

    /// Custom shape: vocabulary size.
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub vocab: Option<u32>,

    /// Custom shape: the LM head shares the embedding matrix.
    #[arg(long, help_heading = "Custom model")]
    pub tied_embeddings: bool,

    /// Custom shape: the q/k/v projections have a bias.
    #[arg(long, help_heading = "Custom model")]
    pub qkv_bias: bool,

    /// Mixture of experts: routed experts per layer (num_experts, n_routed_experts).
    #[arg(long, value_name = "N", help_heading = "Mixture of experts")]
    pub experts: Option<u32>,

    /// Mixture of experts: routed experts each token goes through (num_experts_per_tok).
    #[arg(long, value_name = "K", help_heading = "Mixture of experts")]
    pub experts_per_token: Option<u32>,

    /// Mixture of experts: shared experts every token goes through (n_shared_experts)
    /// [default: 0].
    #[arg(long, value_name = "N", help_heading = "Mixture of experts")]
    pub shared_experts: Option<u32>,

    /// Mixture of experts: intermediate size of one expert (moe_intermediate_size).
    #[arg(long, value_name = "N", help_heading = "Mixture of experts")]
    pub expert_ffn: Option<u32>,

    /// Mixture of experts: leading layers with a dense MLP of --ffn (first_k_dense_replace)
    /// [default: 0].
    #[arg(long, value_name = "N", help_heading = "Mixture of experts")]
    pub dense_layers: Option<u32>,

    /// Latent attention (MLA): rank of the query compression (q_lora_rank; 0 = none)
    /// [default: 0].
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub q_lora_rank: Option<u32>,

    /// Latent attention (MLA): rank of the cached key/value latent (kv_lora_rank).
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub kv_lora_rank: Option<u32>,

    /// Latent attention (MLA): per-head query/key dimension without rotary embedding
    /// (qk_nope_head_dim).
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub qk_nope_head_dim: Option<u32>,

    /// Latent attention (MLA): per-head rotary dimension, cached beside the latent
    /// (qk_rope_head_dim).
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub qk_rope_head_dim: Option<u32>,

    /// Latent attention (MLA): per-head value dimension (v_head_dim).
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub v_head_dim: Option<u32>,

    /// Sliding window: tokens a local layer attends to and caches (sliding_window).
    #[arg(long, value_name = "TOKENS", help_heading = "Sliding window")]
    pub sliding_window: Option<u32>,

    /// Sliding window: every Nth layer is global, attending to the whole context (Gemma 3: 6,
    /// Gemma 2: 2); 0 = every layer local [default: 0].
    #[arg(long, value_name = "N", help_heading = "Sliding window")]
    pub global_every: Option<u32>,

    /// Sliding window: drop the preset's window, every layer attending to the whole context.
    #[arg(long, help_heading = "Sliding window", conflicts_with_all = ["sliding_window", "global_every"])]
    pub no_sliding_window: bool,

    #[command(flatten)]
    pub output: EstimateOutput,
}

/// What a diffusion workload does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SdTaskArg {
    /// Text-to-image generation.
    Generate,
    /// LoRA training of the denoiser (cached latents and text embeddings).
    Lora,
}

#[derive(Debug, Args)]
pub struct SdArgs {
    /// Model: sd15, sdxl or flux-dev.
    #[arg(long, value_name = "MODEL")]
    pub model: String,

    /// What the model does.
    #[arg(long, value_enum, default_value_t = SdTaskArg::Generate)]
    pub task: SdTaskArg,

    /// Image width in pixels, a multiple of 8 (16 for Flux) [default: the model's native size,
    /// 512 for sd15, 1024 otherwise].
    #[arg(long, value_name = "PX")]
    pub width: Option<u32>,

    /// Image height in pixels [default: the model's native size].
    #[arg(long, value_name = "PX")]
    pub height: Option<u32>,

    /// Images per batch (generation) or per training step.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub batch: u32,

    /// Precision of the denoiser and text encoders: fp32, bf16 (= fp16), fp8, int8, int4 or nf4.
    #[arg(long, value_name = "PRECISION", value_parser = parse_precision, default_value = "fp16")]
    pub weights: Precision,

    /// Generation: ControlNets applied together (SD 1.5 and SDXL) [default: 0].
    #[arg(long, value_name = "N", help_heading = "Generation")]
    pub controlnets: Option<u32>,

    /// Generation: denoising steps per image [default: 30].
    #[arg(long, value_name = "N", help_heading = "Generation")]
    pub steps: Option<u32>,

    /// Generation: images to generate in all, for the run time [default: 0].
    #[arg(long, value_name = "N", help_heading = "Generation")]
    pub images: Option<f64>,

    /// Generation: decode the batch one image at a time (enable_vae_slicing).
    #[arg(long, help_heading = "Generation")]
    pub vae_slicing: bool,

    /// Generation: decode in tiles of the native size (enable_vae_tiling).
    #[arg(long, help_heading = "Generation")]
    pub vae_tiling: bool,

    /// Generation: model CPU offload, text encoders off the GPU (enable_model_cpu_offload).
    #[arg(long, help_heading = "Generation")]
    pub cpu_offload: bool,

    /// LoRA training: adapter rank (network dim) [default: 16].
    #[arg(long, value_name = "R", help_heading = "LoRA training")]
    pub rank: Option<u32>,

    /// LoRA training: turn gradient checkpointing off (it is on by default).
    #[arg(long, help_heading = "LoRA training")]
    pub no_checkpointing: bool,

    /// LoRA training: optimizer [default: adamw].
    #[arg(long, value_enum, help_heading = "LoRA training")]
    pub optimizer: Option<OptimizerArg>,

    /// LoRA training: training steps, for the run time [default: 0].
    #[arg(long, value_name = "N", help_heading = "LoRA training")]
    pub train_steps: Option<f64>,

    /// LoRA training: model FLOPs utilisation for Flux, in (0, 1] [default: 0.4]; SD 1.5 and
    /// SDXL use measured speeds.
    #[arg(long, value_name = "FRACTION", help_heading = "LoRA training")]
    pub mfu: Option<f64>,

    #[command(flatten)]
    pub output: EstimateOutput,
}

#[derive(Debug, Args)]
pub struct PresetsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

fn parse_precision(text: &str) -> Result<Precision, String> {
    Precision::from_id(text)
        .ok_or_else(|| "expected fp32, bf16, fp16, fp8, int8, int4 or nf4".to_owned())
}

fn parse_gpu(text: &str) -> Result<String, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok("all".to_owned());
    }
    find_gpu(text).map(|g| g.short.clone()).ok_or_else(|| {
        let known: Vec<&str> = gpu_specs().iter().map(|g| g.short.as_str()).collect();
        format!("unknown GPU; known: all, {}", known.join(", "))
    })
}
