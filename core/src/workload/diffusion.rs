//! Stable Diffusion family memory: SD 1.5, SDXL and Flux.1-dev, generating images or training a
//! LoRA.
//!
//! **Weights** are parameter counts times bytes (sources: `docs/sources.md` §5.3): SD 1.5 UNet
//! 860 M + CLIP-L text encoder 123 M + VAE 84 M; SDXL UNet 2.57 B + text encoders 817 M (SDXL
//! paper) + VAE 84 M; Flux.1-dev transformer 11.9 B (the 23.8 GB bf16 file), T5-XXL encoder 4.76 B,
//! CLIP-L and autoencoder 84 M (the 335 MB fp32 file). A ControlNet is 361 M parameters for SD 1.5
//! and 1.25 B for SDXL (the 2.5 GB fp16 `controlnet-canny-sdxl-1.0` file). Quantized precisions
//! apply to the denoiser and the text encoders (as diffusers' bitsandbytes examples do); the VAE
//! and ControlNets stay 16-bit. SDXL's VAE is upcast to fp32 for decoding (its config sets
//! `force_upcast`; the fp16 VAE overflows).
//!
//! **Inference peak** = weights + the larger of one denoising step and the VAE decode (the two do
//! not overlap) + the CUDA context. Both scale with pixels and images:
//! - VAE decode: 3.63 GiB per image-megapixel in fp32, half that in 16 bits — fitted to SDXL
//!   at 1024², batch 4 (21.72 GiB `max_memory_allocated`, HF blog "Exploring simple
//!   optimizations for SDXL", where fp16 with and without SDPA peak alike, so the VAE decides);
//! - one UNet step: 1.1 GiB per megapixel for each sample of the UNet batch (classifier-free
//!   guidance doubles the batch) — fitted to the same blog's Tiny AutoEncoder row (15.48 GiB,
//!   where the VAE decode is negligible). SD 1.5 shares SDXL's 320-channel UNet width and is
//!   assumed to have the same per-pixel figure;
//! - Flux's transformer (guidance-distilled: no doubled batch): about 24 bytes × hidden (3072)
//!   per image token inside one block, 16×16 pixels per token: 0.27 GiB per megapixel (derived).
//! - each ControlNet holds its residual features through the UNet step: 0.1 GiB per megapixel per
//!   sample (derived from the skip-connection tensor sizes of the SDXL UNet at 1024²).
//!
//! The held-out checks (batch 1, VAE slicing, model offload, SD 1.5 at 512²) are in
//! `tests/workload_published.rs`. Memory savers: VAE slicing decodes one image at a time; VAE
//! tiling decodes tiles of the model's native size; model CPU offload keeps the text encoders off
//! the GPU (in that blog, model offload saved exactly the text encoders' 1.5 GiB: the UNet stays
//! resident through the decode). Sequential offload is not modelled (its measured saving does not
//! follow from the weights).
//!
//! **LoRA training** assumes cached latents and text-encoder outputs (kohya-ss "Tips for SDXL
//! training"), so only the denoiser is resident: frozen weights, fp32 adapters with gradients and
//! moments, saved activations and the context. Saved activations per image-megapixel: SD 1.5 and
//! SDXL 6.7 GiB without checkpointing, 0.95 GiB with it (a count of the UNet tensors saved for the
//! backward at 1024²: about 30 channel-sized tensors per transformer block at each level and 8 per
//! ResNet block; with checkpointing only block inputs plus one recomputed block); Flux 20.4 and
//! 1.63 GiB (16 × hidden bytes per token per block over 57 blocks; with checkpointing 2 × hidden
//! per token per block plus one block). LoRA sizes: `r · Σ(d_in + d_out)` over the attention,
//! feed-forward and projection layers of every transformer block (kohya's default UNet targets):
//! Σ = 0.424 M for SD 1.5, 2.66 M for SDXL, 3.50 M for Flux (all linear layers of the 19 double
//! and 38 single blocks).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::task::document::TaskKind;
use crate::workload::llm::arch::Precision;
use crate::workload::llm::setup::{MAX_WORK, Optimizer};
use crate::workload::types::{
    Breakdown, CUDA_CONTEXT_GIB, GIB, MemoryEstimate, Unsupported, WorkloadError, assumption,
    check, check_efficiency, check_u32,
};

/// A Stable Diffusion family model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum DiffusionModel {
    /// Stable Diffusion 1.5 (512² native).
    #[serde(rename = "sd15")]
    Sd15,
    /// Stable Diffusion XL base 1.0 (1024² native).
    #[serde(rename = "sdxl")]
    Sdxl,
    /// FLUX.1 \[dev\] (1024² native).
    #[serde(rename = "flux-dev")]
    FluxDev,
}

/// The facts the estimator needs about one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiffusionSpec {
    /// Denoiser (UNet or transformer) parameters.
    pub denoiser_params: f64,
    /// Text encoder parameters, all encoders together.
    pub text_encoder_params: f64,
    /// VAE parameters.
    pub vae_params: f64,
    /// Parameters of one ControlNet, when the model has them.
    pub controlnet_params: Option<f64>,
    /// Denoiser samples per image and step: 2 with classifier-free guidance, 1 for Flux.1-dev.
    pub samples_per_image: f64,
    /// Whether the VAE decodes in fp32 whatever the pipeline's precision.
    pub vae_upcast: bool,
    /// Native resolution, pixels per side (also the VAE tile size).
    pub native_px: u32,
    /// Width and height must be multiples of this.
    pub align_px: u32,
    /// Denoiser step working set per megapixel per sample in 16 bits, GiB.
    pub denoiser_gib_per_mp: f64,
    /// Saved training activations per image-megapixel without / with checkpointing, GiB.
    pub train_gib_per_mp: (f64, f64),
    /// Σ(d_in + d_out) over the matrices a LoRA adapts.
    pub lora_dims: f64,
    /// Elements of the denoiser's largest weight matrix (the dequantization buffer of 4-bit and
    /// 8-bit kernels holds one in 16 bits).
    pub largest_matrix: f64,
}

/// VAE decode peak per image-megapixel in 16 bits, GiB (half the fp32 figure fitted to SDXL).
pub const VAE_DECODE_GIB_PER_MP_16BIT: f64 = 1.815;

/// Residual features one ControlNet holds per megapixel per denoiser sample, GiB.
pub const CONTROLNET_RESIDUAL_GIB_PER_MP: f64 = 0.1;

impl DiffusionModel {
    /// Every model.
    pub const ALL: [DiffusionModel; 3] = [
        DiffusionModel::Sd15,
        DiffusionModel::Sdxl,
        DiffusionModel::FluxDev,
    ];

    /// The identifier used in files and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            DiffusionModel::Sd15 => "sd15",
            DiffusionModel::Sdxl => "sdxl",
            DiffusionModel::FluxDev => "flux-dev",
        }
    }

    /// Parses an identifier (case-insensitive; `sd1.5`, `sd-1.5` and `flux` are accepted too).
    pub fn from_id(id: &str) -> Result<DiffusionModel, WorkloadError> {
        match id.trim().to_ascii_lowercase().as_str() {
            "sd15" | "sd1.5" | "sd-1.5" | "sd-15" => Ok(DiffusionModel::Sd15),
            "sdxl" => Ok(DiffusionModel::Sdxl),
            "flux-dev" | "flux" | "flux.1-dev" | "flux1-dev" => Ok(DiffusionModel::FluxDev),
            _ => Err(WorkloadError::Unknown {
                field: "model",
                name: id.trim().to_owned(),
                known: DiffusionModel::ALL.map(DiffusionModel::id).join(", "),
            }),
        }
    }

    /// A display name.
    pub fn name(self) -> &'static str {
        match self {
            DiffusionModel::Sd15 => "Stable Diffusion 1.5",
            DiffusionModel::Sdxl => "Stable Diffusion XL 1.0",
            DiffusionModel::FluxDev => "FLUX.1 [dev]",
        }
    }

    /// The model's facts (sources in the module docs).
    pub fn spec(self) -> DiffusionSpec {
        match self {
            DiffusionModel::Sd15 => DiffusionSpec {
                denoiser_params: 859.52e6,
                text_encoder_params: 123.06e6,
                vae_params: 83.65e6,
                controlnet_params: Some(361.28e6),
                samples_per_image: 2.0,
                vae_upcast: false,
                native_px: 512,
                align_px: 8,
                denoiser_gib_per_mp: 1.1,
                train_gib_per_mp: (6.7, 0.95),
                lora_dims: 423_936.0,
                largest_matrix: 1280.0 * 10_240.0,
            },
            DiffusionModel::Sdxl => DiffusionSpec {
                denoiser_params: 2567.46e6,
                text_encoder_params: 817.72e6,
                vae_params: 83.65e6,
                controlnet_params: Some(1251.36e6),
                samples_per_image: 2.0,
                vae_upcast: true,
                native_px: 1024,
                align_px: 8,
                denoiser_gib_per_mp: 1.1,
                train_gib_per_mp: (6.7, 0.95),
                lora_dims: 2_659_840.0,
                largest_matrix: 1280.0 * 10_240.0,
            },
            DiffusionModel::FluxDev => DiffusionSpec {
                denoiser_params: 11.90e9,
                text_encoder_params: 4.762e9 + 123.06e6,
                vae_params: 83.82e6,
                controlnet_params: None,
                samples_per_image: 1.0,
                vae_upcast: false,
                native_px: 1024,
                align_px: 16,
                denoiser_gib_per_mp: 0.27,
                train_gib_per_mp: (20.4, 1.63),
                lora_dims: 3_502_080.0,
                largest_matrix: 3072.0 * 21_504.0,
            },
        }
    }
}

/// Generating images.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Generation {
    /// ControlNets applied together (0 to 8).
    #[serde(default)]
    pub controlnets: u32,
    /// Denoising steps per image.
    pub steps: u32,
    /// Images to generate in all (the work, for run time); 0 when only memory matters.
    #[serde(default)]
    pub images: f64,
    /// Decode the batch one image at a time (`enable_vae_slicing`).
    #[serde(default)]
    pub vae_slicing: bool,
    /// Decode in tiles of the native size (`enable_vae_tiling`).
    #[serde(default)]
    pub vae_tiling: bool,
    /// Model CPU offload (`enable_model_cpu_offload`): text encoders leave the GPU.
    #[serde(default)]
    pub cpu_offload: bool,
}

impl Default for Generation {
    /// 30 denoising steps, no ControlNet, no memory savers, no work given.
    fn default() -> Generation {
        Generation {
            controlnets: 0,
            steps: 30,
            images: 0.0,
            vae_slicing: false,
            vae_tiling: false,
            cpu_offload: false,
        }
    }
}

/// Training a LoRA on the denoiser (cached latents and text embeddings).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SdLoraTraining {
    /// Adapter rank (kohya's "network dim").
    pub rank: u32,
    /// Gradient checkpointing.
    pub checkpointing: bool,
    /// The optimizer.
    #[serde(default)]
    pub optimizer: Optimizer,
    /// Training steps (the work, for run time); 0 when only memory matters.
    #[serde(default)]
    pub steps: f64,
    /// Model FLOPs utilisation override for Flux, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mfu: Option<f64>,
}

impl Default for SdLoraTraining {
    /// Rank 16, gradient checkpointing, AdamW, no work given.
    fn default() -> SdLoraTraining {
        SdLoraTraining {
            rank: 16,
            checkpointing: true,
            optimizer: Optimizer::Adamw,
            steps: 0.0,
            mfu: None,
        }
    }
}

/// What the diffusion model does.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "task", rename_all = "snake_case")]
pub enum DiffusionTask {
    /// Text-to-image generation.
    Generate(Generation),
    /// LoRA training.
    LoraTraining(SdLoraTraining),
}

/// A diffusion workload.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiffusionWorkload {
    /// The model.
    pub model: DiffusionModel,
    /// Precision of the denoiser and text encoders (bf16 means fp16 or bf16).
    pub weights: Precision,
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// Images per batch (generation) or per training step.
    pub batch: u32,
    /// Generation or LoRA training.
    pub task: DiffusionTask,
}

impl DiffusionWorkload {
    /// Checks every field, naming the one at fault.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let spec = self.model.spec();
        for (field, px) in [("width", self.width), ("height", self.height)] {
            check_u32(field, px, 64, 8192)?;
            if px % spec.align_px != 0 {
                return Err(WorkloadError::Unsupported {
                    field,
                    reason: if spec.align_px == 16 {
                        Unsupported::NotMultipleOf16
                    } else {
                        Unsupported::NotMultipleOf8
                    },
                });
            }
        }
        check_u32("batch", self.batch, 1, 1024)?;
        match &self.task {
            DiffusionTask::Generate(g) => {
                check_u32("controlnets", g.controlnets, 0, 8)?;
                if g.controlnets > 0 && spec.controlnet_params.is_none() {
                    return Err(WorkloadError::Unsupported {
                        field: "controlnets",
                        reason: Unsupported::FluxControlNet,
                    });
                }
                check_u32("steps", g.steps, 1, 1000)?;
                check("images", g.images, 0.0, MAX_WORK)?;
            }
            DiffusionTask::LoraTraining(t) => {
                check_u32("rank", t.rank, 1, 1024)?;
                check("train_steps", t.steps, 0.0, MAX_WORK)?;
                check_efficiency("mfu", t.mfu)?;
            }
        }
        Ok(())
    }

    /// Megapixels per image.
    pub fn megapixels(&self) -> f64 {
        f64::from(self.width) * f64::from(self.height) / 1e6
    }

    /// The task kind for the task profile.
    pub fn kind(&self) -> TaskKind {
        match self.task {
            DiffusionTask::Generate(_) => TaskKind::ImageGeneration,
            DiffusionTask::LoraTraining(_) => TaskKind::SdLoraTraining,
        }
    }

    pub(crate) fn describe(&self) -> String {
        // Diffusion pipelines are run in fp16 far more often than bf16; both are 16 bits.
        let weights = if self.weights == Precision::Bf16 {
            "fp16"
        } else {
            self.weights.id()
        };
        let base = format!(
            "{}, {}x{} x {}, {weights} weights",
            self.model.id(),
            self.width,
            self.height,
            self.batch,
        );
        match &self.task {
            DiffusionTask::Generate(g) => {
                let mut parts = vec![base, format!("{} steps", g.steps)];
                if g.controlnets > 0 {
                    parts.push(format!("{} ControlNet(s)", g.controlnets));
                }
                for (on, name) in [
                    (g.vae_slicing, "VAE slicing"),
                    (g.vae_tiling, "VAE tiling"),
                    (g.cpu_offload, "model CPU offload"),
                ] {
                    if on {
                        parts.push(name.to_owned());
                    }
                }
                parts.join(", ")
            }
            DiffusionTask::LoraTraining(t) => format!(
                "{base}, LoRA training r{}, {}, {}",
                t.rank,
                if t.checkpointing {
                    "checkpointing"
                } else {
                    "no checkpointing"
                },
                t.optimizer.id()
            ),
        }
    }
}

/// Memory of a diffusion workload (see the module docs).
pub(crate) fn estimate_diffusion(w: &DiffusionWorkload) -> Result<MemoryEstimate, WorkloadError> {
    w.validate()?;
    let spec = w.model.spec();
    let mp = w.megapixels();
    let batch = f64::from(w.batch);
    let bpp = w.weights.bytes_per_param();
    let wide = w.weights.wide_bytes();
    // Activations are as wide as the unquantized tensors: fp32 pipelines double them.
    let act_scale = wide / 2.0;
    let dequant = if matches!(
        w.weights,
        Precision::Int8 | Precision::Int4 | Precision::Nf4
    ) {
        2.0 * spec.largest_matrix
    } else {
        0.0
    };
    let overhead = CUDA_CONTEXT_GIB * GIB + dequant;
    let mut assumptions = vec![assumption(
        "cuda_context_gib",
        CUDA_CONTEXT_GIB,
        "PyTorch CUDA context with lazy loading, 0.3-0.5 GB measured (pytorch #86509, #109888)",
    )];
    let total_params = spec.denoiser_params + spec.text_encoder_params + spec.vae_params;

    let (breakdown, trainable, params) = match &w.task {
        DiffusionTask::Generate(g) => {
            let vae_bytes = if spec.vae_upcast { 4.0 } else { wide };
            let text_encoders = if g.cpu_offload {
                0.0
            } else {
                spec.text_encoder_params * bpp
            };
            let controlnet_params =
                spec.controlnet_params.unwrap_or(0.0) * f64::from(g.controlnets);
            let weights = spec.denoiser_params * bpp
                + text_encoders
                + spec.vae_params * vae_bytes
                + controlnet_params * wide;
            let samples = batch * spec.samples_per_image;
            let step = samples
                * mp
                * (spec.denoiser_gib_per_mp
                    + CONTROLNET_RESIDUAL_GIB_PER_MP * f64::from(g.controlnets))
                * act_scale;
            let decode_images = if g.vae_slicing { 1.0 } else { batch };
            let native_mp = f64::from(spec.native_px).powi(2) / 1e6;
            let decode_mp = if g.vae_tiling { mp.min(native_mp) } else { mp };
            let vae_per_mp = VAE_DECODE_GIB_PER_MP_16BIT * vae_bytes / 2.0;
            let decode = decode_images * decode_mp * vae_per_mp;
            assumptions.push(assumption(
                "vae_decode_gib_per_megapixel_fp32",
                2.0 * VAE_DECODE_GIB_PER_MP_16BIT,
                "fitted to SDXL 1024² batch 4 (21.72 GiB, HF blog 'Exploring simple optimizations for SDXL')",
            ));
            assumptions.push(assumption(
                "denoiser_step_gib_per_megapixel_sample",
                spec.denoiser_gib_per_mp,
                "SD: fitted to the same blog's Tiny AutoEncoder row; Flux: derived from the block working set",
            ));
            (
                Breakdown::from_bytes(weights, 0.0, 0.0, step.max(decode) * GIB, 0.0, overhead),
                0.0,
                total_params + controlnet_params,
            )
        }
        DiffusionTask::LoraTraining(t) => {
            let lora = f64::from(t.rank) * spec.lora_dims;
            let weights = spec.denoiser_params * bpp + 4.0 * lora;
            let (without, with) = spec.train_gib_per_mp;
            let per_mp = if t.checkpointing { with } else { without };
            let activations = batch * mp * per_mp * act_scale * GIB;
            assumptions.push(assumption(
                "cached_latents_and_text_embeddings",
                "yes",
                "only the denoiser is resident while training (kohya-ss 'Tips for SDXL training')",
            ));
            assumptions.push(assumption(
                "saved_activation_gib_per_megapixel",
                per_mp,
                "counted from the denoiser's saved tensors (core/README.md, Workload estimates)",
            ));
            (
                Breakdown::from_bytes(
                    weights,
                    4.0 * lora,
                    t.optimizer.moment_bytes() * lora,
                    activations,
                    0.0,
                    overhead,
                ),
                lora,
                total_params,
            )
        }
    };
    Ok(MemoryEstimate {
        vram_gib: breakdown.total_gib(),
        breakdown,
        gpus: 1,
        parameters: params,
        active_parameters: params,
        trainable_parameters: trainable,
        kind: w.kind(),
        assumptions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn generate(model: DiffusionModel, px: u32, batch: u32) -> DiffusionWorkload {
        DiffusionWorkload {
            model,
            weights: Precision::Bf16,
            width: px,
            height: px,
            batch,
            task: DiffusionTask::Generate(Generation {
                controlnets: 0,
                steps: 30,
                images: 0.0,
                vae_slicing: false,
                vae_tiling: false,
                cpu_offload: false,
            }),
        }
    }

    fn with(mut w: DiffusionWorkload, f: impl FnOnce(&mut Generation)) -> DiffusionWorkload {
        if let DiffusionTask::Generate(g) = &mut w.task {
            f(g);
        }
        w
    }

    #[test]
    fn ids_round_trip() {
        for m in DiffusionModel::ALL {
            assert_eq!(DiffusionModel::from_id(m.id()).unwrap(), m);
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.id()));
        }
        assert_eq!(
            DiffusionModel::from_id("SD1.5").unwrap(),
            DiffusionModel::Sd15
        );
        let e = DiffusionModel::from_id("sd3").unwrap_err();
        assert_eq!((e.field(), e.code()), ("model", "unknown"));
    }

    #[test]
    fn the_peak_is_the_larger_of_the_step_and_the_decode() {
        // SDXL batch 4 at 1024²: the fp32 VAE decode dominates; slicing makes the UNet step the peak.
        let plain = estimate_diffusion(&generate(DiffusionModel::Sdxl, 1024, 4))
            .unwrap()
            .breakdown;
        let sliced = estimate_diffusion(&with(generate(DiffusionModel::Sdxl, 1024, 4), |g| {
            g.vae_slicing = true
        }))
        .unwrap()
        .breakdown;
        let mp = 1024.0 * 1024.0 / 1e6;
        assert!(
            (plain.activations_gib - 4.0 * mp * 2.0 * VAE_DECODE_GIB_PER_MP_16BIT).abs() < 1e-9
        );
        assert!((sliced.activations_gib - 8.0 * mp * 1.1).abs() < 1e-9);
        assert_eq!(plain.weights_gib, sliced.weights_gib);
    }

    #[test]
    fn offload_removes_the_text_encoders_and_controlnets_add_weights() {
        let spec = DiffusionModel::Sdxl.spec();
        let base = estimate_diffusion(&generate(DiffusionModel::Sdxl, 1024, 1))
            .unwrap()
            .breakdown;
        let off = estimate_diffusion(&with(generate(DiffusionModel::Sdxl, 1024, 1), |g| {
            g.cpu_offload = true
        }))
        .unwrap()
        .breakdown;
        assert!(
            (base.weights_gib - off.weights_gib - spec.text_encoder_params * 2.0 / GIB).abs()
                < 1e-9
        );
        let two = estimate_diffusion(&with(generate(DiffusionModel::Sdxl, 1024, 1), |g| {
            g.controlnets = 2
        }))
        .unwrap()
        .breakdown;
        // Two SDXL ControlNets: 2 x 2.5 GB of fp16 weights.
        assert!((two.weights_gib - base.weights_gib - 2.0 * 1251.36e6 * 2.0 / GIB).abs() < 1e-9);
    }

    #[test]
    fn tiling_bounds_the_decode_by_the_native_tile() {
        // SDXL at 2048²: the fp32 decode (4.2 MP x 3.63 GiB) is the peak until tiled by 1024² tiles.
        let big = generate(DiffusionModel::Sdxl, 2048, 1);
        let tiled = with(big, |g| g.vae_tiling = true);
        let a = estimate_diffusion(&big).unwrap().breakdown.activations_gib;
        let b = estimate_diffusion(&tiled)
            .unwrap()
            .breakdown
            .activations_gib;
        let mp = 2048.0 * 2048.0 / 1e6;
        assert!((a - mp * 2.0 * VAE_DECODE_GIB_PER_MP_16BIT).abs() < 1e-9);
        assert!(
            (b - 2.0 * mp * 1.1).abs() < 1e-9,
            "the UNet step is the peak once tiled: {b}"
        );
    }

    #[test]
    fn lora_training_keeps_only_the_denoiser() {
        let w = DiffusionWorkload {
            task: DiffusionTask::LoraTraining(SdLoraTraining {
                rank: 8,
                checkpointing: true,
                optimizer: Optimizer::Adamw8bit,
                steps: 0.0,
                mfu: None,
            }),
            ..generate(DiffusionModel::Sdxl, 1024, 1)
        };
        let m = estimate_diffusion(&w).unwrap();
        let lora = 8.0 * 2_659_840.0;
        assert_eq!(m.trainable_parameters, lora);
        assert!((m.breakdown.weights_gib - (2567.46e6 * 2.0 + 4.0 * lora) / GIB).abs() < 1e-9);
        assert!((m.breakdown.optimizer_gib - 2.0 * lora / GIB).abs() < 1e-12);
        assert_eq!(m.kind, TaskKind::SdLoraTraining);
    }

    #[test]
    fn refuses_bad_input_with_the_field_name() {
        let mut w = generate(DiffusionModel::Sdxl, 1024, 1);
        w.width = 1000 + 4;
        assert_eq!(estimate_diffusion(&w).unwrap_err().field(), "width");
        let w = generate(DiffusionModel::FluxDev, 1032, 1);
        assert_eq!(estimate_diffusion(&w).unwrap_err().code(), "unsupported");
        let w = with(generate(DiffusionModel::FluxDev, 1024, 1), |g| {
            g.controlnets = 1
        });
        assert_eq!(estimate_diffusion(&w).unwrap_err().field(), "controlnets");
        let w = generate(DiffusionModel::Sd15, 512, 0);
        assert_eq!(estimate_diffusion(&w).unwrap_err().field(), "batch");
        let w = with(generate(DiffusionModel::Sd15, 512, 1), |g| g.images = -1.0);
        assert_eq!(estimate_diffusion(&w).unwrap_err().field(), "images");
    }
}
