//! The workload estimator against published figures, each row with its source.
//!
//! Accounting these rows are meant to match: the stock Hugging Face stack (PyTorch autocast,
//! PEFT, bitsandbytes, DeepSpeed, diffusers with SDPA attention). Figures measured with
//! `torch.cuda.max_memory_allocated()` leave out the CUDA context, so those rows compare the total
//! minus the context ("allocated"). Figures in GB are decimal (10^9 bytes), GiB binary (2^30);
//! the diffusers and HF-blog figures are printed as "GB" but computed as bytes / 1024³.
//!
//! Figures deliberately *not* tested, and why:
//! - Unsloth's QLoRA minimums (8B ≈ 6 GB, 14B ≈ 8.5 GB, 70B ≈ 41 GB): Unsloth offloads
//!   checkpointed activations to system RAM and chunks the loss, which the stock stack does not;
//!   our estimates are 1.2-1.9x higher by design. (Its LoRA 16-bit column, which the weights
//!   dominate, is tested.)
//! - "~50 GB of RAM/VRAM to load all components" for Flux.1-dev (diffusers Flux doc): a loose
//!   statement about RAM and VRAM together; the weights row below checks the 33.7 GB it implies
//!   for the GPU.
//! - SimpleTuner's Flux LoRA figures with optimum-quanto int8 ("a bit more than 18G") and int4
//!   ("13G"): they sit 9 GB and 4 GB above its bitsandbytes NF4 figure, while the weights differ
//!   by 5.8 GB and 0.05 GB; quanto's memory layout is not modelled (we estimate 15.3 GB for int8).
//! - kohya's "≈19 GB" for SDXL LoRA on an RTX 4090 (kohya-ss/sd-scripts #834): settings unknown.
//! - GGUF Q4_K_M sizes (llama.cpp): llama.cpp quantizes the embeddings too; our int4 keeps them
//!   16-bit like GPTQ/AWQ and bitsandbytes.
//! - The Llama 3.1 blog's INT4 figure for the 8B (4 GB; we estimate 5.73 GB): it counts half a
//!   byte for every parameter, while GPTQ/AWQ keep the 1.05B-parameter embedding and LM head in
//!   16 bits (2.1 GB). Its 70B INT4 row, where they weigh less, is tested.
//! - The same blog's training table (8B: full 60 GB, LoRA 16 GB, QLoRA 6 GB; 70B: 500, 160,
//!   48 GB): no sequence length, batch or optimizer is given; the 8B rows leave no room for the
//!   logits of a 128K-entry vocabulary (3.2 GB for one 2048-token sequence in the stock loss),
//!   and 60 GB for an 8B full fine-tune is 7.5 bytes per parameter, under the 16 of
//!   mixed-precision AdamW.
//!
//! Calibration: the SD VAE-decode coefficient is fitted to the SDXL batch-4 row (21.72 GiB) and
//! the UNet-step coefficient to the same blog's Tiny AutoEncoder row (15.48 GiB, not a row here);
//! every other diffusion row is held out.

use gpufare_core::workload::diffusion::{
    DiffusionModel, DiffusionTask, DiffusionWorkload, Generation, SdLoraTraining,
};
use gpufare_core::workload::estimate::{Workload, estimate};
use gpufare_core::workload::llm::arch::{
    KvPrecision, LlmArch, LoraTargets, MoeShape, Precision, find_llm_preset, llm_presets,
};
use gpufare_core::workload::llm::setup::{
    LlmInference, LlmTask, LlmTraining, LlmWorkload, Optimizer, TrainingMethod, ZeroStage,
};
use gpufare_core::workload::types::{CUDA_CONTEXT_GIB, GIB, MemoryEstimate};

/// Relative tolerance of a published-figure row.
const TOLERANCE: f64 = 0.15;

#[derive(Debug, Clone, Copy)]
enum Unit {
    /// 10^9 bytes.
    Gb,
    /// 2^30 bytes.
    Gib,
}

#[derive(Debug, Clone, Copy)]
enum Measure {
    /// The whole estimate.
    Total,
    /// The estimate without the CUDA context (`max_memory_allocated`).
    Allocated,
    /// Weights + gradients + optimizer state (the ZeRO paper's "model states").
    ModelStates,
    /// Weights only.
    Weights,
    /// The KV cache only.
    KvCache,
}

struct Row {
    name: &'static str,
    source: &'static str,
    workload: Workload,
    measure: Measure,
    published: f64,
    unit: Unit,
}

fn preset(id: &str) -> LlmArch {
    find_llm_preset(id).unwrap().clone()
}

/// LLaMA-Factory's example settings (examples/train_lora/llama3_lora_sft.yaml): cutoff_len 2048,
/// per-device batch 1, LoRA rank 8 on all linear layers, gradient checkpointing on by default.
fn llama_factory(model: &str, weights: Precision, full: bool) -> Workload {
    let method = if full {
        TrainingMethod::Full
    } else {
        TrainingMethod::Lora {
            rank: 8,
            targets: LoraTargets::All,
        }
    };
    train(preset(model), weights, method, 1, ZeroStage::Ddp)
}

fn train(
    arch: LlmArch,
    weights: Precision,
    method: TrainingMethod,
    gpus: u32,
    zero: ZeroStage,
) -> Workload {
    Workload::Llm(LlmWorkload {
        arch,
        weights,
        gpus,
        expert_parallel: false,
        task: LlmTask::Training(LlmTraining {
            method,
            sequence_tokens: 2048,
            micro_batch: 1,
            checkpointing: true,
            optimizer: Optimizer::Adamw,
            zero,
            training_tokens: 0.0,
            mfu: None,
        }),
    })
}

/// A 7.5 B-parameter GPT-style model for the ZeRO paper's Figure 1 (it names only Ψ = 7.5 B):
/// 36 layers of hidden 4096, MHA, 4x MLP written as a gated MLP of the same size, GPT-2 vocab.
fn zero_paper_model() -> LlmArch {
    LlmArch {
        name: "zero-7.5b".into(),
        layers: 36,
        hidden: 4096,
        heads: 32,
        kv_heads: 32,
        head_dim: 128,
        ffn: 11_008,
        vocab: 50_257,
        tied_embeddings: true,
        qkv_bias: false,
        moe: None,
        mla: None,
        sliding_window: None,
    }
}

fn zero_paper(zero: ZeroStage) -> Workload {
    train(
        zero_paper_model(),
        Precision::Bf16,
        TrainingMethod::Full,
        64,
        zero,
    )
}

fn inference(model: &str, weights: Precision, context: u32, concurrency: u32) -> Workload {
    Workload::Llm(LlmWorkload {
        arch: preset(model),
        weights,
        gpus: 1,
        expert_parallel: false,
        task: LlmTask::Inference(LlmInference {
            context_tokens: context,
            concurrency,
            kv_cache: KvPrecision::Fp16,
            generated_tokens: 0.0,
            mbu: None,
        }),
    })
}

/// Serving on `gpus` tensor-parallel GPUs.
fn serve_on(model: &str, weights: Precision, context: u32, gpus: u32) -> Workload {
    Workload::Llm(LlmWorkload {
        gpus,
        ..match inference(model, weights, context, 1) {
            Workload::Llm(l) => l,
            Workload::Diffusion(_) => unreachable!(),
        }
    })
}

/// A LoRA run at rank `rank` on every linear layer, 2048-token sequences one at a time, gradient
/// checkpointing, AdamW — the settings Unsloth's notebooks start from, at the smallest batch.
fn lora_2048(model: &str, weights: Precision, rank: u32) -> Workload {
    train(
        preset(model),
        weights,
        TrainingMethod::Lora {
            rank,
            targets: LoraTargets::All,
        },
        1,
        ZeroStage::Ddp,
    )
}

fn generate(
    model: DiffusionModel,
    px: u32,
    batch: u32,
    weights: Precision,
    set: impl FnOnce(&mut Generation),
) -> Workload {
    let mut g = Generation {
        controlnets: 0,
        steps: 25,
        images: 0.0,
        vae_slicing: false,
        vae_tiling: false,
        cpu_offload: false,
    };
    set(&mut g);
    Workload::Diffusion(DiffusionWorkload {
        model,
        weights,
        width: px,
        height: px,
        batch,
        task: DiffusionTask::Generate(g),
    })
}

fn sd_lora(model: DiffusionModel, weights: Precision, rank: u32, optimizer: Optimizer) -> Workload {
    Workload::Diffusion(DiffusionWorkload {
        model,
        weights,
        width: 1024,
        height: 1024,
        batch: 1,
        task: DiffusionTask::LoraTraining(SdLoraTraining {
            rank,
            checkpointing: true,
            optimizer,
            steps: 0.0,
            mfu: None,
        }),
    })
}

fn rows() -> Vec<Row> {
    const LLAMA_FACTORY: &str = "hiyouga/LLaMA-Factory README, 'Hardware Requirement' table (estimated), \
                                 read at commit 00409ff";
    const ZERO_PAPER: &str =
        "Rajbhandari et al., ZeRO (arXiv:1910.02054), Figure 1: 7.5B model, Nd = 64, K = 12";
    const SDXL_BLOG: &str = "Hugging Face blog 'Exploring simple optimizations for SDXL' (2023-10-24), \
                             A100-40GB, 4 images, max_memory_allocated / 1024³";
    // Figures for loading the model and generating a short reply with transformers; compared
    // with the whole estimate at a 512-token context, one sequence.
    const MIXTRAL_BLOG: &str = "Hugging Face blog 'Welcome Mixtral - a SOTA Mixture of Experts on Hugging \
                                Face' (https://huggingface.co/blog/mixtral, 2023-12-11), 'Required VRAM': \
                                float16 >90 GB, 8-bit >45 GB, 4-bit >23 GB";
    // Weights only, as the blog says of its table ('memory required to load the model').
    const LLAMA31_BLOG: &str = "Hugging Face blog 'Llama 3.1 - 405B, 70B & 8B with multilinguality and \
                                long context' (https://huggingface.co/blog/llama31, 2024-07-23), \
                                'Inference Memory Requirements': 8B 16/8/4 GB, 70B 140/70/35 GB at \
                                FP16/FP8/INT4";
    // Its 'GB' are GiB: 128,000 tokens x 128 KiB = 15.62 GiB for the 8B.
    const LLAMA31_KV: &str = "Hugging Face blog https://huggingface.co/blog/llama31, 'KV cache memory \
                              requirements' (FP16) at 128k tokens: 8B 15.62 GB, 70B 39.06 GB";
    // No settings are published; a minimum implies the smallest batch. Compared at the settings
    // Unsloth's notebooks start from (rank 16 on all seven projections, 2048 tokens), batch 1,
    // with the stock accounting (Unsloth offloads activations and chunks the loss, which only
    // lowers its own need).
    const UNSLOTH_REQUIREMENTS: &str = "Unsloth documentation, 'Unsloth Requirements' \
                                        (https://docs.unsloth.ai/get-started/beginner-start-here/unsloth-requirements), \
                                        fine-tuning VRAM table, LoRA (16-bit) column: 8B 22 GB, 70B 164 GB";
    vec![
        // --- LLM training, LLaMA-Factory's rule-of-thumb table at its example settings.
        Row {
            name: "7B full fine-tune, mixed precision (Llama-2-7B)",
            source: LLAMA_FACTORY,
            workload: llama_factory("llama-2-7b", Precision::Bf16, true),
            measure: Measure::Total,
            published: 120.0,
            unit: Unit::Gb,
        },
        Row {
            name: "70B full fine-tune, mixed precision (Llama-2-70B)",
            source: LLAMA_FACTORY,
            workload: llama_factory("llama-2-70b", Precision::Bf16, true),
            measure: Measure::Total,
            published: 1200.0,
            unit: Unit::Gb,
        },
        Row {
            name: "7B LoRA, 16-bit (Llama-2-7B)",
            source: LLAMA_FACTORY,
            workload: llama_factory("llama-2-7b", Precision::Bf16, false),
            measure: Measure::Total,
            published: 16.0,
            unit: Unit::Gb,
        },
        Row {
            name: "70B LoRA, 16-bit (Llama-2-70B)",
            source: LLAMA_FACTORY,
            workload: llama_factory("llama-2-70b", Precision::Bf16, false),
            measure: Measure::Total,
            published: 160.0,
            unit: Unit::Gb,
        },
        Row {
            name: "7B QLoRA 8-bit (Llama-2-7B)",
            source: LLAMA_FACTORY,
            workload: llama_factory("llama-2-7b", Precision::Int8, false),
            measure: Measure::Total,
            published: 10.0,
            unit: Unit::Gb,
        },
        Row {
            name: "70B QLoRA 8-bit (Llama-2-70B)",
            source: LLAMA_FACTORY,
            workload: llama_factory("llama-2-70b", Precision::Int8, false),
            measure: Measure::Total,
            published: 80.0,
            unit: Unit::Gb,
        },
        Row {
            name: "7B QLoRA 4-bit (Llama-2-7B)",
            source: LLAMA_FACTORY,
            workload: llama_factory("llama-2-7b", Precision::Nf4, false),
            measure: Measure::Total,
            published: 6.0,
            unit: Unit::Gb,
        },
        Row {
            name: "70B QLoRA 4-bit (Llama-2-70B)",
            source: LLAMA_FACTORY,
            workload: llama_factory("llama-2-70b", Precision::Nf4, false),
            measure: Measure::Total,
            published: 48.0,
            unit: Unit::Gb,
        },
        // --- ZeRO per-GPU model states.
        Row {
            name: "ZeRO baseline DP, 16 bytes per parameter",
            source: ZERO_PAPER,
            workload: zero_paper(ZeroStage::Ddp),
            measure: Measure::ModelStates,
            published: 120.0,
            unit: Unit::Gb,
        },
        Row {
            name: "ZeRO-1 (P_os)",
            source: ZERO_PAPER,
            workload: zero_paper(ZeroStage::Zero1),
            measure: Measure::ModelStates,
            published: 31.4,
            unit: Unit::Gb,
        },
        Row {
            name: "ZeRO-2 (P_os+g)",
            source: ZERO_PAPER,
            workload: zero_paper(ZeroStage::Zero2),
            measure: Measure::ModelStates,
            published: 16.6,
            unit: Unit::Gb,
        },
        Row {
            name: "ZeRO-3 (P_os+g+p)",
            source: ZERO_PAPER,
            workload: zero_paper(ZeroStage::Zero3),
            measure: Measure::ModelStates,
            published: 1.9,
            unit: Unit::Gb,
        },
        // --- LLM inference.
        Row {
            name: "Llama-2-7B KV cache, 1000 tokens (vLLM/exLlama)",
            source: "RahulSChand/gpu_poor README @ad2fc0e: 'with exLlama & vLLM this is 500 MB' for 1000 tokens",
            workload: inference("llama-2-7b", Precision::Bf16, 1000, 1),
            measure: Measure::KvCache,
            published: 500.0e6 / 1e9,
            unit: Unit::Gb,
        },
        Row {
            name: "Llama-3-8B KV cache, 32K context (GQA, 8 KV heads)",
            source: "'Q4 KV Cache Fit 32K Context into 8GB VRAM' (Dev.to, via flarestart.com, 2026-04-08): \
                     Llama-3-8B at 32K -> 4.0 GB computed as bytes / 1024³",
            workload: inference("llama-3-8b", Precision::Bf16, 32_768, 1),
            measure: Measure::KvCache,
            published: 4.0,
            unit: Unit::Gib,
        },
        Row {
            name: "Llama-3-70B KV cache, 1K tokens",
            source: "runlocalai.co glossary 'KV Cache': Llama 3.3 70B at FP16, 'every 1K tokens of context costs \
                     about 320 MB'",
            workload: inference("llama-3-70b", Precision::Bf16, 1000, 1),
            measure: Measure::KvCache,
            published: 0.320,
            unit: Unit::Gb,
        },
        Row {
            name: "Llama-3-8B F16 weights",
            source: "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README: Llama 3 8B F16 model 14.96 GB \
                     (GGUF size, GiB)",
            workload: inference("llama-3-8b", Precision::Bf16, 1, 1),
            measure: Measure::Weights,
            published: 14.96,
            unit: Unit::Gib,
        },
        // --- Stable Diffusion family inference.
        Row {
            name: "SDXL fp16 1024² batch 1",
            source: "diffusers docs using-diffusers/loading.md: 10.47 GB max_memory_allocated",
            workload: generate(DiffusionModel::Sdxl, 1024, 1, Precision::Bf16, |_| {}),
            measure: Measure::Allocated,
            published: 10.47,
            unit: Unit::Gib,
        },
        Row {
            name: "SDXL fp16 + SDPA 1024² batch 4 (calibration row of the VAE decode)",
            source: SDXL_BLOG,
            workload: generate(DiffusionModel::Sdxl, 1024, 4, Precision::Bf16, |_| {}),
            measure: Measure::Allocated,
            published: 21.72,
            unit: Unit::Gib,
        },
        Row {
            name: "SDXL batch 4 + VAE slicing",
            source: SDXL_BLOG,
            workload: generate(DiffusionModel::Sdxl, 1024, 4, Precision::Bf16, |g| {
                g.vae_slicing = true
            }),
            measure: Measure::Allocated,
            published: 15.40,
            unit: Unit::Gib,
        },
        Row {
            name: "SDXL batch 4 + model CPU offload",
            source: SDXL_BLOG,
            workload: generate(DiffusionModel::Sdxl, 1024, 4, Precision::Bf16, |g| {
                g.cpu_offload = true
            }),
            measure: Measure::Allocated,
            published: 20.21,
            unit: Unit::Gib,
        },
        Row {
            name: "SDXL fp32 batch 4, unoptimized",
            source: SDXL_BLOG,
            workload: generate(DiffusionModel::Sdxl, 1024, 4, Precision::Fp32, |_| {}),
            measure: Measure::Allocated,
            published: 28.09,
            unit: Unit::Gib,
        },
        Row {
            name: "SD 1.5 fp16 512² batch 1 (attention slicing)",
            source: "diffusers docs optimization/fp16: 'use Stable Diffusion in as little as 3.2 GB of VRAM'",
            workload: generate(DiffusionModel::Sd15, 512, 1, Precision::Bf16, |_| {}),
            measure: Measure::Total,
            published: 3.2,
            unit: Unit::Gb,
        },
        Row {
            name: "Flux.1-dev bf16 weights, all components",
            source: "black-forest-labs/FLUX.1-dev files: transformer 23.8 GB + T5-XXL 9.5 GB + CLIP-L + AE \
                     = 33.7 GB (file sizes on the Hugging Face model page)",
            workload: generate(DiffusionModel::FluxDev, 1024, 1, Precision::Bf16, |_| {}),
            measure: Measure::Weights,
            published: 33.7,
            unit: Unit::Gb,
        },
        // --- Diffusion LoRA training.
        Row {
            name: "Flux.1-dev LoRA r16, bf16 base",
            source: "bghira/SimpleTuner Flux quickstart: rank-16 LoRA 'a bit more than 30G VRAM' unquantised",
            workload: sd_lora(
                DiffusionModel::FluxDev,
                Precision::Bf16,
                16,
                Optimizer::Adamw,
            ),
            measure: Measure::Total,
            published: 30.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Flux.1-dev LoRA r16, NF4 base",
            source: "bghira/SimpleTuner Flux quickstart: 'a bit more than 9G' quantising to NF4",
            workload: sd_lora(
                DiffusionModel::FluxDev,
                Precision::Nf4,
                16,
                Optimizer::Adamw,
            ),
            measure: Measure::Total,
            published: 9.0,
            unit: Unit::Gb,
        },
        // --- Models of issue 21: mixture of experts, latent attention, Llama 3.1 (serving).
        Row {
            name: "Mixtral-8x7B fp16, loaded for generation",
            source: MIXTRAL_BLOG,
            workload: inference("mixtral-8x7b", Precision::Bf16, 512, 1),
            measure: Measure::Total,
            published: 90.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Mixtral-8x7B 8-bit (bitsandbytes LLM.int8)",
            source: MIXTRAL_BLOG,
            workload: inference("mixtral-8x7b", Precision::Int8, 512, 1),
            measure: Measure::Total,
            published: 45.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Mixtral-8x7B 4-bit (bitsandbytes NF4)",
            source: MIXTRAL_BLOG,
            workload: inference("mixtral-8x7b", Precision::Nf4, 512, 1),
            measure: Measure::Total,
            published: 23.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Llama-3.1-8B FP16 weights",
            source: LLAMA31_BLOG,
            workload: inference("llama-3.1-8b", Precision::Bf16, 1, 1),
            measure: Measure::Weights,
            published: 16.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Llama-3.1-8B FP8 weights (embeddings and LM head 16-bit)",
            source: LLAMA31_BLOG,
            workload: inference("llama-3.1-8b", Precision::Fp8, 1, 1),
            measure: Measure::Weights,
            published: 8.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Llama-3.1-70B FP16 weights",
            source: LLAMA31_BLOG,
            workload: inference("llama-3.1-70b", Precision::Bf16, 1, 1),
            measure: Measure::Weights,
            published: 140.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Llama-3.1-70B FP8 weights",
            source: LLAMA31_BLOG,
            workload: inference("llama-3.1-70b", Precision::Fp8, 1, 1),
            measure: Measure::Weights,
            published: 70.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Llama-3.1-70B INT4 weights (GPTQ/AWQ)",
            source: LLAMA31_BLOG,
            workload: inference("llama-3.1-70b", Precision::Int4, 1, 1),
            measure: Measure::Weights,
            published: 35.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Llama-3.1-8B KV cache, 128K tokens, fp16",
            source: LLAMA31_KV,
            workload: inference("llama-3.1-8b", Precision::Bf16, 128_000, 1),
            measure: Measure::KvCache,
            published: 15.62,
            unit: Unit::Gib,
        },
        Row {
            name: "Llama-3.1-70B KV cache, 128K tokens, fp16",
            source: LLAMA31_KV,
            workload: inference("llama-3.1-70b", Precision::Bf16, 128_000, 1),
            measure: Measure::KvCache,
            published: 39.06,
            unit: Unit::Gib,
        },
        Row {
            name: "DeepSeek-V3 MLA KV cache, 1000 tokens, bf16 (70.272 KB per token)",
            source: "Zhao et al., 'Insights into DeepSeek-V3: Scaling Challenges and Reflections on Hardware \
                     for AI Architectures' (ISCA 2025, arXiv:2505.09343), Table 1: KV cache per token \
                     (BF16) 70.272 KB for DeepSeek-V3 (MLA)",
            workload: inference("deepseek-v3", Precision::Fp8, 1000, 1),
            measure: Measure::KvCache,
            published: 1000.0 * 70.272e3 / 1e9,
            unit: Unit::Gb,
        },
        // --- Fine-tuning the new presets.
        Row {
            name: "Llama-3.1-8B LoRA, 16-bit base (Unsloth minimum)",
            source: UNSLOTH_REQUIREMENTS,
            workload: lora_2048("llama-3.1-8b", Precision::Bf16, 16),
            measure: Measure::Total,
            published: 22.0,
            unit: Unit::Gb,
        },
        Row {
            name: "Llama-3.1-70B LoRA, 16-bit base (Unsloth minimum)",
            source: UNSLOTH_REQUIREMENTS,
            workload: lora_2048("llama-3.1-70b", Precision::Bf16, 16),
            measure: Measure::Total,
            published: 164.0,
            unit: Unit::Gb,
        },
    ]
}

fn measured_bytes(m: &MemoryEstimate, measure: Measure) -> f64 {
    let b = &m.breakdown;
    let gib = match measure {
        Measure::Total => m.vram_gib,
        Measure::Allocated => m.vram_gib - CUDA_CONTEXT_GIB,
        Measure::ModelStates => b.weights_gib + b.gradients_gib + b.optimizer_gib,
        Measure::Weights => b.weights_gib,
        Measure::KvCache => b.kv_cache_gib,
    };
    gib * GIB
}

fn in_unit(bytes: f64, unit: Unit) -> f64 {
    match unit {
        Unit::Gb => bytes / 1e9,
        Unit::Gib => bytes / GIB,
    }
}

#[test]
fn memory_estimates_match_published_figures_within_15_percent() {
    let rows = rows();
    assert!(rows.len() >= 10, "at least ten published figures");
    let mut report = String::new();
    let mut failures = vec![];
    for row in &rows {
        assert!(!row.source.is_empty(), "{}: a source is required", row.name);
        let m = estimate(&row.workload).unwrap_or_else(|e| panic!("{}: {e}", row.name));
        let ours = in_unit(measured_bytes(&m, row.measure), row.unit);
        let error = ours / row.published - 1.0;
        report.push_str(&format!(
            "{:<60} ours {:>9.2} vs {:>8.2} {:?} ({:+.1} %)\n",
            row.name,
            ours,
            row.published,
            row.unit,
            100.0 * error
        ));
        if error.abs() > TOLERANCE {
            failures.push(format!(
                "{} ({:+.1} %, {})",
                row.name,
                100.0 * error,
                row.source
            ));
        }
    }
    println!("{report}");
    assert!(
        failures.is_empty(),
        "outside ±15 %:\n{}\n\n{report}",
        failures.join("\n")
    );
}

/// "Needs a card of N GB" statements bound the need from above; the next card class down bounds
/// it from below. A ±15 % band around a card size would misread them.
#[test]
fn card_class_statements_hold() {
    let rows: [(&str, &str, Workload, f64, f64); 3] = [
        (
            "SDXL LoRA, kohya tips: U-Net only, checkpointing, cached latents, 8-bit Adam, dim 8",
            "kohya-ss/sd-scripts README 'Tips for SDXL training': 'LoRA training can be done with 8GB GPU \
             memory (10GB recommended)'",
            sd_lora(
                DiffusionModel::Sdxl,
                Precision::Bf16,
                8,
                Optimizer::Adamw8bit,
            ),
            6.0,
            8.0,
        ),
        (
            "Flux.1-dev NF4 + model CPU offload, 1024²",
            "diffusers docs api/pipelines/flux.md and quantization/bitsandbytes.md: under 16 GB",
            generate(DiffusionModel::FluxDev, 1024, 1, Precision::Nf4, |g| {
                g.cpu_offload = true
            }),
            0.0,
            16.0,
        ),
        (
            "Flux.1-dev fp8 + model CPU offload, 1024²",
            "diffusers docs api/pipelines/flux.md (quanto fp8 + offload): under 16 GB",
            generate(DiffusionModel::FluxDev, 1024, 1, Precision::Fp8, |g| {
                g.cpu_offload = true
            }),
            0.0,
            16.0,
        ),
    ];
    for (name, source, workload, above_gib, at_most_gib) in rows {
        let need = estimate(&workload).unwrap().vram_gib;
        assert!(
            need > above_gib && need <= at_most_gib,
            "{name}: {need:.2} GiB outside ({above_gib}, {at_most_gib}] GiB ({source})"
        );
    }
}

/// Llama-3-8B in bf16 at 8K context, batch 1: 16.06 GB of weights + 1 GiB of KV + ~0.5 GB
/// (derived from the model's config.json and card; docs/sources.md §5.1). Not a
/// measurement, so it is not counted among the published figures; it guards the arithmetic.
#[test]
fn the_llama_3_8b_worked_check_holds() {
    let m = estimate(&inference("llama-3-8b", Precision::Bf16, 8192, 1)).unwrap();
    assert!((m.breakdown.kv_cache_gib - 1.0).abs() < 1e-9);
    let total_gb = m.vram_gib * GIB / 1e9;
    assert!((total_gb / 17.5 - 1.0).abs() < TOLERANCE, "{total_gb}");
}

#[test]
fn every_preset_is_within_2_percent_of_its_published_size() {
    // Published parameter counts: the Hugging Face model pages' safetensors totals, the "Number of
    // Parameters" line of the Qwen2.5 and Qwen3 model cards, and the vendors' own totals for the
    // mixtures of experts (main model only: DeepSeek-V3's 14B multi-token-prediction module and
    // GLM-4.5-Air's MTP layer are not loaded for plain decoding). Gemma 3 is its language model:
    // the 0.4B SigLIP vision encoder of the checkpoint (27.4B on its page) is left out, as a
    // text-only run (`Gemma3ForCausalLM`) leaves it unloaded.
    let rows: [(&str, f64, &str); 22] = [
        (
            "llama-2-7b",
            6.74e9,
            "huggingface.co/meta-llama/Llama-2-7b-hf: 6.74B params",
        ),
        (
            "llama-2-13b",
            13.0e9,
            "huggingface.co/meta-llama/Llama-2-13b-hf: 13B params",
        ),
        (
            "llama-2-70b",
            69.0e9,
            "huggingface.co/meta-llama/Llama-2-70b-hf: 69B params",
        ),
        (
            "llama-3-8b",
            8.03e9,
            "huggingface.co/meta-llama/Meta-Llama-3-8B: 8.03B params",
        ),
        (
            "llama-3-70b",
            70.6e9,
            "huggingface.co/meta-llama/Meta-Llama-3-70B: 70.6B params",
        ),
        (
            "mistral-7b",
            7.24e9,
            "huggingface.co/mistralai/Mistral-7B-v0.1: 7.24B params",
        ),
        (
            "qwen2.5-7b",
            7.61e9,
            "Qwen2.5-7B model card: Number of Parameters 7.61B",
        ),
        (
            "qwen2.5-14b",
            14.7e9,
            "Qwen2.5-14B model card: Number of Parameters 14.7B",
        ),
        (
            "qwen2.5-32b",
            32.5e9,
            "Qwen2.5-32B model card: Number of Parameters 32.5B",
        ),
        (
            "qwen2.5-72b",
            72.7e9,
            "Qwen2.5-72B model card: Number of Parameters 72.7B",
        ),
        (
            "deepseek-7b",
            6.91e9,
            "huggingface.co/deepseek-ai/deepseek-llm-7b-base: 6.91B params",
        ),
        (
            "glm-4-9b",
            9.4e9,
            "huggingface.co/THUDM/glm-4-9b-chat: 9.4B params",
        ),
        (
            "mixtral-8x7b",
            46.7e9,
            "https://mistral.ai/news/mixtral-of-experts: 46.7B total parameters",
        ),
        (
            "qwen3-30b-a3b",
            30.5e9,
            "https://huggingface.co/Qwen/Qwen3-30B-A3B: 30.5B in total",
        ),
        (
            "qwen3-235b-a22b",
            235.0e9,
            "https://huggingface.co/Qwen/Qwen3-235B-A22B: 235B in total",
        ),
        (
            "deepseek-v3",
            671.0e9,
            "https://huggingface.co/deepseek-ai/DeepSeek-V3: 685B = 671B main model + 14B MTP module",
        ),
        (
            "qwen3-8b",
            8.2e9,
            "https://huggingface.co/Qwen/Qwen3-8B: Number of Parameters 8.2B",
        ),
        (
            "qwen3-32b",
            32.8e9,
            "https://huggingface.co/Qwen/Qwen3-32B: Number of Parameters 32.8B",
        ),
        (
            "llama-3.1-8b",
            8.03e9,
            "https://huggingface.co/meta-llama/Llama-3.1-8B: 8.03B params",
        ),
        (
            "llama-3.1-70b",
            70.6e9,
            "https://huggingface.co/meta-llama/Llama-3.1-70B: 70.6B params",
        ),
        (
            "gemma-3-27b",
            27.016e9,
            "Gemma 3 Technical Report (arXiv:2503.19786) Table 1: 27B = 1,416M embedding + \
             25,600M non-embedding parameters (+ 417M vision encoder, not counted)",
        ),
        (
            "glm-4.5-air",
            106.0e9,
            "https://huggingface.co/zai-org/GLM-4.5-Air: 106 billion total parameters",
        ),
    ];
    assert_eq!(rows.len(), llm_presets().len(), "every preset has a row");
    for (id, published, source) in rows {
        let ours = preset(id).parameters().total;
        let error = ours / published - 1.0;
        assert!(
            error.abs() <= 0.02,
            "{id}: {ours:.4e} vs {published:.4e} ({source})"
        );
    }
}

/// Active parameters of the mixtures of experts, each within 2 % of the vendor's figure. Vendors
/// count them two ways: Mistral, Qwen and DeepSeek with the embedding and the LM head, Z.ai
/// without — its GLM-4.5 (355B total, 32B active) matches its config only that way (32.1B without
/// the embedding matrices, 33.6B with), so GLM-4.5-Air's 12B is compared without them.
#[test]
fn moe_presets_are_within_2_percent_of_their_published_active_size() {
    let rows: [(&str, f64, bool, &str); 5] = [
        (
            "mixtral-8x7b",
            12.9e9,
            true,
            "https://mistral.ai/news/mixtral-of-experts: 'only uses 12.9B parameters per token'",
        ),
        (
            "qwen3-30b-a3b",
            3.3e9,
            true,
            "https://huggingface.co/Qwen/Qwen3-30B-A3B: 3.3B activated",
        ),
        (
            "qwen3-235b-a22b",
            22.0e9,
            true,
            "https://huggingface.co/Qwen/Qwen3-235B-A22B: 22B activated",
        ),
        (
            "deepseek-v3",
            37.0e9,
            true,
            "https://huggingface.co/deepseek-ai/DeepSeek-V3: 37B activated for each token",
        ),
        (
            "glm-4.5-air",
            12.0e9,
            false,
            "https://huggingface.co/zai-org/GLM-4.5-Air: 12 billion active parameters",
        ),
    ];
    for (id, published, with_embeddings, source) in rows {
        let arch = preset(id);
        let p = arch.parameters();
        let embeddings = if arch.tied_embeddings { 1.0 } else { 2.0 } * p.embedding;
        let ours = if with_embeddings {
            p.active
        } else {
            p.active - embeddings
        };
        let error = ours / published - 1.0;
        assert!(
            error.abs() <= 0.02,
            "{id}: {ours:.4e} active vs {published:.4e} ({source})"
        );
        assert!(p.routed_experts > 0.0 && p.active < p.total, "{id}");
    }
    // The convention check: GLM-4.5 from its config.json (zai-org/GLM-4.5: 92 layers, hidden
    // 5120, 96 heads, 8 KV heads, first 3 layers dense with ffn 12288, 160 routed experts of
    // 1536, 8 per token, 1 shared, vocabulary 151552, q/k/v bias).
    let glm_45 = LlmArch {
        name: "glm-4.5".into(),
        layers: 92,
        hidden: 5120,
        heads: 96,
        kv_heads: 8,
        head_dim: 128,
        ffn: 12_288,
        vocab: 151_552,
        tied_embeddings: false,
        qkv_bias: true,
        moe: Some(MoeShape {
            experts: 160,
            experts_per_token: 8,
            shared_experts: 1,
            expert_ffn: 1536,
            dense_layers: 3,
        }),
        mla: None,
        sliding_window: None,
    };
    let p = glm_45.parameters();
    assert!((p.total / 355e9 - 1.0).abs() <= 0.02, "{}", p.total);
    assert!(((p.active - 2.0 * p.embedding) / 32e9 - 1.0).abs() <= 0.02);
    assert!(
        (p.active / 32e9 - 1.0).abs() > 0.04,
        "with embeddings it would not match"
    );
}

/// Vendors' statements of the GPUs a mixture of experts is served on bound the need per GPU
/// from above (it fits those GPUs) and, where the next smaller setup is said not to suffice,
/// from below. GB are decimal: an "80 GB" H100 is 74.5 GiB, a 141 GB H200 131.3 GiB. Each row
/// at an 8,192-token context (4,096 for DeepSeek-V3), one sequence, 16-bit KV cache.
#[test]
fn moe_serving_statements_hold() {
    const SGLANG_DEEPSEEK: &str = "SGLang documentation (docs.sglang.ai), DeepSeek usage page, \
        hardware recommendation: FP8 weights on 8 x H200, or 2 x 8 x H100 (two nodes)";
    const MIXTRAL_BLOG_GPUS: &str = "Hugging Face blog https://huggingface.co/blog/mixtral: float16 \
        needs >90 GB, so more than one 80 GB card (our reading: two of them hold it)";
    const GLM_45: &str = "zai-org/GLM-4.5 README (https://github.com/zai-org/GLM-4.5), System \
        Requirements, Inference: GLM-4.5-Air BF16 on H100 x 4 / H200 x 2, FP8 on H100 x 2 / H200 x 1";
    let h100 = 80e9 / GIB;
    let h200 = 141e9 / GIB;
    let rows: [(&str, &str, Workload, f64, f64); 6] = [
        (
            "DeepSeek-V3 FP8, tensor-parallel on 8 x H200; not on 8 x H100",
            SGLANG_DEEPSEEK,
            serve_on("deepseek-v3", Precision::Fp8, 4096, 8),
            h100,
            h200,
        ),
        (
            "GLM-4.5-Air FP8 on 1 x H200; not on 1 x H100",
            GLM_45,
            serve_on("glm-4.5-air", Precision::Fp8, 8192, 1),
            h100,
            h200,
        ),
        (
            "GLM-4.5-Air FP8 on 2 x H100",
            GLM_45,
            serve_on("glm-4.5-air", Precision::Fp8, 8192, 2),
            0.0,
            h100,
        ),
        (
            "GLM-4.5-Air BF16 on 2 x H200; not on 2 x H100",
            GLM_45,
            serve_on("glm-4.5-air", Precision::Bf16, 8192, 2),
            h100,
            h200,
        ),
        (
            "GLM-4.5-Air BF16 on 4 x H100",
            GLM_45,
            serve_on("glm-4.5-air", Precision::Bf16, 8192, 4),
            0.0,
            h100,
        ),
        (
            "Mixtral-8x7B fp16 on 2 x A100-80GB, not on one",
            MIXTRAL_BLOG_GPUS,
            serve_on("mixtral-8x7b", Precision::Bf16, 8192, 2),
            0.0,
            80e9 / GIB,
        ),
    ];
    for (name, source, workload, above_gib, at_most_gib) in rows {
        let need = estimate(&workload).unwrap().vram_gib;
        assert!(
            need > above_gib && need <= at_most_gib,
            "{name}: {need:.2} GiB outside ({above_gib:.1}, {at_most_gib:.1}] GiB ({source})"
        );
    }
    let one = estimate(&serve_on("mixtral-8x7b", Precision::Bf16, 8192, 1))
        .unwrap()
        .vram_gib;
    assert!(
        one > 80e9 / GIB,
        "Mixtral fp16 does not fit one 80 GB card: {one:.1} GiB"
    );
}

/// Mistral 7B keeps a rolling buffer of 4,096 tokens per layer: "for a sequence length of 32k
/// tokens, this reduces the cache memory usage by 8x" (Jiang et al., 'Mistral 7B',
/// arXiv:2310.06825 §2, Rolling Buffer Cache). Gemma 3 keeps 1,024 tokens in five layers of six
/// (config.json `sliding_window` 1024, `sliding_window_pattern` 6): at 32K its cache is that of
/// its 10 global layers plus 52 windows, not 62 full layers.
#[test]
fn sliding_windows_bound_the_cache() {
    let mistral = preset("mistral-7b");
    let full = LlmArch {
        sliding_window: None,
        ..mistral.clone()
    };
    let at = |a: &LlmArch, tokens: f64| a.kv_cache_bytes(tokens, KvPrecision::Fp16);
    assert_eq!(at(&full, 32_768.0) / at(&mistral, 32_768.0), 8.0);
    assert_eq!(
        at(&full, 4096.0),
        at(&mistral, 4096.0),
        "no saving inside the window"
    );
    let gemma = preset("gemma-3-27b");
    let per_layer_token = 2.0 * 16.0 * 128.0 * 2.0;
    let expected = (10.0 * 32_768.0 + 52.0 * 1024.0) * per_layer_token;
    assert_eq!(at(&gemma, 32_768.0), expected);
    let global_only = LlmArch {
        sliding_window: None,
        ..gemma
    };
    // 62 full layers would need 5.3 times as much.
    assert!(at(&global_only, 32_768.0) / expected > 5.0);
}
