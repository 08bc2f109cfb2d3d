//! Run time: the work of a workload (tokens, images, training steps) as hours on a GPU, and the
//! task-profile fields that carry it into the plan.
//!
//! - **LLM training** costs `passes · 2 · Ψ_c` FLOPs per token plus attention `passes · 4 · L · q ·
//!   s` (PaLM, arXiv:2204.02311 App. B: `6N + 12·L·H·Q·T` for the three passes of a full step),
//!   where Ψ_c counts the parameters multiplied per token — for a mixture of experts the active
//!   ones, the `k` routed experts a token visits, not all of them; a sliding-window layer attends
//!   to at most its window. A full fine-tune makes 3 passes
//!   (forward, and a backward twice as dear); LoRA 2 (no weight gradients for the frozen base,
//!   derived from Hu et al., arXiv:2106.09685); checkpointing one more (the recomputed forward,
//!   Korthikanti et al.). Hours = FLOPs / (peak dense FP16 TFLOPS × MFU). MFU defaults to
//!   [`DEFAULT_MFU_FULL`] and [`DEFAULT_MFU_LORA`]; QLoRA's dequantization multiplies the time by
//!   [`QLORA_SLOWDOWN`].
//! - **LLM decoding** reads every weight and the whole KV cache once per step, so a step takes
//!   `max(bytes / (bandwidth × MBU), FLOPs / (peak × MFU))` and yields one token per sequence
//!   (the memory/compute bound of RahulSChand/gpu_poor `src/App.js`). MBU defaults to
//!   [`DEFAULT_MBU`]. With a mixture of experts the FLOPs count the active parameters and the
//!   step reads only the experts the batch visits: with B sequences each picking k of E experts
//!   per layer, an expected `1 − (1 − k/E)^B` of them (routing taken as uniform and
//!   independent, an assumption; real routers are skewed, so more are read); sliding-window
//!   layers read and attend to at most their window, an MLA cache its latent.
//! - **Stable Diffusion** speed comes from published it/s (`core/data/sd-throughput.csv`): a GPU
//!   in the table uses its own figure, any other scales the figure of the GPU with the nearest
//!   FP16 TFLOPS by the TFLOPS ratio. Time grows with pixels (attention grows faster, so large
//!   images are under-estimated) and by [`CONTROLNET_TIME_SHARE`] per ControlNet. Flux has no
//!   table: its transformer's FLOPs at [`DEFAULT_MFU_DIFFUSION`].
//! - **Diffusion LoRA training** counts a training step as 2 denoiser passes per image (3 with
//!   checkpointing) at generation speed. This is a lower bound on time: it ignores the training
//!   loop's own overheads, and users report about 1.4 s per SDXL step at 1024² on an RTX 4090
//!   (kohya-ss/sd-scripts #834), several times this estimate. No measured training speed with
//!   known settings was found to calibrate it.
//! - **Multi-GPU** runs keep [`crate::plan::performance::MULTI_GPU_EFFICIENCY`] of linear scaling, as the plan
//!   does.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::gpu::{GpuSpec, find_gpu, gpu_specs};
use crate::plan::performance::MULTI_GPU_EFFICIENCY;
use crate::task::document::{Bound, TaskKind, TaskProfile};
use crate::workload::diffusion::{DiffusionTask, DiffusionWorkload};
use crate::workload::estimate::{Workload, estimate};
use crate::workload::llm::arch::Precision;
use crate::workload::llm::setup::{LlmTask, LlmWorkload, TrainingMethod};
use crate::workload::types::WorkloadError;

const SD_THROUGHPUT_CSV: &str = include_str!("../../data/sd-throughput.csv");

/// Default model FLOPs utilisation of a full fine-tune: 0.35, inside the 0.25-0.50 range
/// reported for training runs (PaLM 46 %, Llama 3 38-43 %, GPT-3 21 %; llm-analysis advises at
/// most 0.5) and lower than those large, tuned runs.
pub const DEFAULT_MFU_FULL: f64 = 0.35;

/// Default MFU of LoRA and QLoRA, which run smaller matrices on smaller cards: 0.25
/// (an assumption; no published measurement, `docs/sources.md` §5.2).
pub const DEFAULT_MFU_LORA: f64 = 0.25;

/// Extra time of QLoRA over 16-bit LoRA from dequantizing every weight on use: ×1.75 (gpu_poor's
/// training factor for QLoRA).
pub const QLORA_SLOWDOWN: f64 = 1.75;

/// Default memory-bandwidth utilisation of decoding: 0.7, between the 0.81-0.91 measured with
/// llama.cpp on RTX 3090/4080/4090 and the 0.49-0.56 on A100/H100 PCIe (XiongjieDai
/// GPU-Benchmarks-on-LLM-Inference: measured tokens/s over the bandwidth bound; `docs/sources.md`
/// §5.2).
pub const DEFAULT_MBU: f64 = 0.7;

/// Compute efficiency of inference when it is compute-bound (large batches, prefill): 0.5,
/// below llm-analysis' "up to 0.7 for inference".
pub const DEFAULT_MFU_INFERENCE: f64 = 0.5;

/// MFU of a diffusion transformer (Flux) without a measured speed: 0.4 (assumption).
pub const DEFAULT_MFU_DIFFUSION: f64 = 0.4;

/// Extra time per ControlNet relative to plain generation: 0.4 (diffusers benchmark: ControlNet
/// runs at 0.69-0.72 of txt2img speed on RTX 4090, A100 and T4).
pub const CONTROLNET_TIME_SHARE: f64 = 0.4;

/// How long a workload's work takes on one GPU model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunTime {
    /// The GPU's short name.
    pub gpu: String,
    /// Hours of the whole work on one such GPU (what a task profile's `work_hours` holds).
    pub gpu_hours: f64,
    /// Wall-clock hours on the workload's GPU count, with the multi-GPU efficiency.
    pub hours: f64,
    /// Tokens per second on the workload's GPUs (LLM training or decoding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_second: Option<f64>,
    /// Images per hour (image generation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images_per_hour: Option<f64>,
    /// Training steps per hour (diffusion LoRA training).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_per_hour: Option<f64>,
    /// Whether arithmetic or memory bandwidth limits the speed.
    pub bound: Bound,
    /// How the speed was obtained (measured, scaled, or from FLOPs or bandwidth).
    pub source: String,
}

/// The task-profile fields an estimate provides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskFields {
    /// The task kind.
    pub kind: TaskKind,
    /// Compute- or memory-bound.
    pub bound: Bound,
    /// VRAM needed per GPU, GiB.
    pub vram_gib: f64,
    /// Hours of work on one `reference_gpu`.
    pub work_hours: f64,
    /// The reference GPU's short name.
    pub reference_gpu: String,
    /// GPUs the job needs.
    pub gpus: u32,
    /// Whether the work spreads over several GPUs.
    pub scales_across_gpus: bool,
}

impl TaskFields {
    /// Writes these fields into a task profile, leaving the others as they are.
    pub fn apply_to(&self, task: &mut TaskProfile) {
        task.kind = self.kind;
        task.bound = self.bound;
        task.vram_gib = self.vram_gib;
        task.work_hours = self.work_hours;
        task.reference_gpu.clone_from(&self.reference_gpu);
        task.gpus = self.gpus;
        task.scales_across_gpus = self.scales_across_gpus;
    }
}

/// The run time of `workload` on `gpu`.
pub fn run_time(workload: &Workload, gpu: &GpuSpec) -> Result<RunTime, WorkloadError> {
    // Validates every field.
    estimate(workload)?;
    Ok(match workload {
        Workload::Llm(w) => llm_run_time(w, gpu),
        Workload::Diffusion(w) => diffusion_run_time(w, gpu),
    })
}

/// The run time of `workload` on every GPU of the spec table, in table order.
pub fn run_times(workload: &Workload) -> Result<Vec<RunTime>, WorkloadError> {
    estimate(workload)?;
    Ok(gpu_specs()
        .iter()
        .map(|g| match workload {
            Workload::Llm(w) => llm_run_time(w, g),
            Workload::Diffusion(w) => diffusion_run_time(w, g),
        })
        .collect())
}

/// The task-profile fields of `workload`: its VRAM need, and its work as hours on one
/// `reference_gpu` (a short or NVML name from the spec table).
pub fn task_fields(workload: &Workload, reference_gpu: &str) -> Result<TaskFields, WorkloadError> {
    let gpu = find_gpu(reference_gpu).ok_or_else(|| WorkloadError::Unknown {
        field: "reference_gpu",
        name: reference_gpu.trim().to_owned(),
        known: gpu_specs()
            .iter()
            .map(|g| g.short.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    let memory = estimate(workload)?;
    let time = run_time(workload, gpu)?;
    Ok(TaskFields {
        kind: memory.kind,
        bound: time.bound,
        vram_gib: memory.vram_gib,
        work_hours: time.gpu_hours,
        reference_gpu: gpu.short.clone(),
        gpus: memory.gpus,
        scales_across_gpus: memory.gpus > 1,
    })
}

fn wall_hours(gpu_hours: f64, gpus: u32) -> f64 {
    if gpus > 1 {
        gpu_hours / (f64::from(gpus) * MULTI_GPU_EFFICIENCY)
    } else {
        gpu_hours
    }
}

fn peak_flops(gpu: &GpuSpec) -> f64 {
    gpu.fp16_tflops * 1e12
}

fn llm_run_time(w: &LlmWorkload, gpu: &GpuSpec) -> RunTime {
    let arch = &w.arch;
    let p = arch.parameters();
    match &w.task {
        LlmTask::Training(t) => {
            let lora = matches!(t.method, TrainingMethod::Lora { .. });
            let passes = if lora { 2.0 } else { 3.0 } + if t.checkpointing { 1.0 } else { 0.0 };
            let flops_per_token = passes
                * (2.0 * p.compute + arch.attention_flops_per_token(f64::from(t.sequence_tokens)));
            let mfu = t.mfu.unwrap_or(if lora {
                DEFAULT_MFU_LORA
            } else {
                DEFAULT_MFU_FULL
            });
            let slowdown = if lora && w.weights.is_quantized() {
                QLORA_SLOWDOWN
            } else {
                1.0
            };
            let seconds_per_token = flops_per_token / (peak_flops(gpu) * mfu) * slowdown;
            let gpu_hours = t.training_tokens * seconds_per_token / 3600.0;
            let scale = if w.gpus > 1 {
                f64::from(w.gpus) * MULTI_GPU_EFFICIENCY
            } else {
                1.0
            };
            let qlora = if slowdown > 1.0 {
                format!(" x {QLORA_SLOWDOWN} for QLoRA")
            } else {
                String::new()
            };
            RunTime {
                gpu: gpu.short.clone(),
                gpu_hours,
                hours: wall_hours(gpu_hours, w.gpus),
                tokens_per_second: Some(scale / seconds_per_token),
                images_per_hour: None,
                steps_per_hour: None,
                bound: Bound::Compute,
                source: format!(
                    "{passes} passes x 2 x params FLOPs per token at {} TFLOPS x MFU {mfu}{qlora}",
                    gpu.fp16_tflops
                ),
            }
        }
        LlmTask::Inference(i) => {
            let concurrency = f64::from(i.concurrency);
            let context = f64::from(i.context_tokens);
            let all_weights = p.linear * w.weights.bytes_per_param()
                + (p.total - p.linear) * w.weights.wide_bytes();
            // A decode step reads every weight but the routed experts no token of the batch
            // visits.
            let expert_bytes = p.routed_experts * w.weights.bytes_per_param();
            let weight_bytes =
                all_weights - expert_bytes + expert_bytes * arch.experts_touched(concurrency);
            let kv_bytes = arch.kv_cache_bytes(context, i.kv_cache) * concurrency;
            let mbu = i.mbu.unwrap_or(DEFAULT_MBU);
            let memory_seconds = (weight_bytes + kv_bytes) / (gpu.mem_bw_gbs * 1e9 * mbu);
            let flops = concurrency * (2.0 * p.compute + arch.attention_flops_per_token(context));
            let compute_seconds = flops / (peak_flops(gpu) * DEFAULT_MFU_INFERENCE);
            let (step, bound) = if memory_seconds >= compute_seconds {
                (memory_seconds, Bound::Memory)
            } else {
                (compute_seconds, Bound::Compute)
            };
            let single_tokens_per_second = concurrency / step;
            let gpu_hours = i.generated_tokens / single_tokens_per_second / 3600.0;
            let scale = if w.gpus > 1 {
                f64::from(w.gpus) * MULTI_GPU_EFFICIENCY
            } else {
                1.0
            };
            let source = match bound {
                Bound::Memory => format!(
                    "decode reads weights + KV cache each step at {} GB/s x MBU {mbu}",
                    gpu.mem_bw_gbs
                ),
                Bound::Compute => format!(
                    "decode is compute-bound at this concurrency: {} TFLOPS x {DEFAULT_MFU_INFERENCE}",
                    gpu.fp16_tflops
                ),
            };
            RunTime {
                gpu: gpu.short.clone(),
                gpu_hours,
                hours: wall_hours(gpu_hours, w.gpus),
                tokens_per_second: Some(single_tokens_per_second * scale),
                images_per_hour: None,
                steps_per_hour: None,
                bound,
                source,
            }
        }
    }
}

#[derive(Deserialize)]
struct SpeedRow {
    model: String,
    gpu: String,
    batch: u32,
    it_per_s: f64,
    source: String,
}

fn sd_speeds() -> &'static [SpeedRow] {
    static ROWS: OnceLock<Vec<SpeedRow>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let body: String = SD_THROUGHPUT_CSV
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        csv::Reader::from_reader(body.as_bytes())
            .deserialize::<SpeedRow>()
            .filter_map(Result::ok)
            .collect()
    })
}

/// Seconds of one denoising step per image at the native resolution, and how it was obtained.
fn step_seconds_per_image(w: &DiffusionWorkload, gpu: &GpuSpec, mfu: f64) -> (f64, String) {
    let model = w.model.id();
    let rows = sd_speeds().iter().filter(|r| r.model == model);
    let measured = |r: &SpeedRow| 1.0 / (r.it_per_s * f64::from(r.batch));
    if let Some(r) = sd_speeds()
        .iter()
        .find(|r| r.model == model && r.gpu == gpu.short)
    {
        return (
            measured(r),
            format!(
                "measured {} it/s at batch {} ({})",
                r.it_per_s,
                r.batch,
                source_name(&r.source)
            ),
        );
    }
    let nearest = rows
        .filter_map(|r| find_gpu(&r.gpu).map(|g| (r, g)))
        .min_by(|(_, a), (_, b)| {
            let da = (a.fp16_tflops / gpu.fp16_tflops).ln().abs();
            let db = (b.fp16_tflops / gpu.fp16_tflops).ln().abs();
            da.total_cmp(&db)
        });
    if let Some((r, g)) = nearest {
        let ratio = gpu.fp16_tflops / g.fp16_tflops;
        return (
            measured(r) / ratio,
            format!(
                "{} measured on {} ({}), scaled by FP16 TFLOPS x {ratio:.2}",
                r.it_per_s,
                g.short,
                source_name(&r.source)
            ),
        );
    }
    // Flux: FLOPs of one transformer forward per image.
    let spec = w.model.spec();
    let tokens = 1024.0 * 1024.0 / 256.0 + 512.0;
    let flops = 2.0 * spec.denoiser_params * tokens + 4.0 * 57.0 * tokens * tokens * 3072.0;
    (
        flops / (peak_flops(gpu) * mfu),
        format!(
            "transformer FLOPs at {} TFLOPS x MFU {mfu} (no measured speed)",
            gpu.fp16_tflops
        ),
    )
}

fn source_name(code: &str) -> &'static str {
    match code {
        "D" => "diffusers PyTorch 2.0 benchmark",
        "SF" => "stable-fast README, vanilla PyTorch 2.1",
        "X" => "diffusers fp16 doc, xFormers",
        _ => "sd-throughput.csv",
    }
}

fn diffusion_run_time(w: &DiffusionWorkload, gpu: &GpuSpec) -> RunTime {
    let spec = w.model.spec();
    let native_mp = f64::from(spec.native_px).powi(2) / 1e6;
    let mfu = match &w.task {
        DiffusionTask::LoraTraining(t) => t.mfu.unwrap_or(DEFAULT_MFU_DIFFUSION),
        DiffusionTask::Generate(_) => DEFAULT_MFU_DIFFUSION,
    };
    let (native_step, source) = step_seconds_per_image(w, gpu, mfu);
    let step = native_step * w.megapixels() / native_mp;
    match &w.task {
        DiffusionTask::Generate(g) => {
            let per_image = step
                * f64::from(g.steps)
                * (1.0 + CONTROLNET_TIME_SHARE * f64::from(g.controlnets));
            let images_per_hour = 3600.0 / per_image;
            let gpu_hours = g.images / images_per_hour;
            RunTime {
                gpu: gpu.short.clone(),
                gpu_hours,
                hours: gpu_hours,
                tokens_per_second: None,
                images_per_hour: Some(images_per_hour),
                steps_per_hour: None,
                bound: Bound::Compute,
                source,
            }
        }
        DiffusionTask::LoraTraining(t) => {
            // A generation step runs the denoiser on `samples_per_image` samples; a LoRA training
            // step runs it forward and backward (2 passes, +1 with checkpointing) on one.
            let passes = 2.0 + if t.checkpointing { 1.0 } else { 0.0 };
            let slowdown = if matches!(
                w.weights,
                Precision::Int8 | Precision::Int4 | Precision::Nf4
            ) {
                QLORA_SLOWDOWN
            } else {
                1.0
            };
            let per_step = step * passes / spec.samples_per_image * f64::from(w.batch) * slowdown;
            let steps_per_hour = 3600.0 / per_step;
            let gpu_hours = t.steps / steps_per_hour;
            RunTime {
                gpu: gpu.short.clone(),
                gpu_hours,
                hours: gpu_hours,
                tokens_per_second: None,
                images_per_hour: None,
                steps_per_hour: Some(steps_per_hour),
                bound: Bound::Compute,
                source: format!(
                    "optimistic: {passes} denoiser passes per image from generation speed, {source}"
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::diffusion::{DiffusionModel, Generation, SdLoraTraining};
    use crate::workload::llm::arch::{KvPrecision, LoraTargets, find_llm_preset};
    use crate::workload::llm::setup::{LlmInference, LlmTraining, Optimizer, ZeroStage};

    fn gpu(name: &str) -> &'static GpuSpec {
        find_gpu(name).unwrap()
    }

    fn decode(model: &str, weights: Precision, concurrency: u32, tokens: f64) -> Workload {
        decode_at(model, weights, 1024, concurrency, tokens)
    }

    fn decode_at(
        model: &str,
        weights: Precision,
        context: u32,
        concurrency: u32,
        tokens: f64,
    ) -> Workload {
        Workload::Llm(LlmWorkload {
            arch: find_llm_preset(model).unwrap().clone(),
            weights,
            gpus: 1,
            expert_parallel: false,
            task: LlmTask::Inference(LlmInference {
                context_tokens: context,
                concurrency,
                kv_cache: KvPrecision::Fp16,
                generated_tokens: tokens,
                mbu: None,
            }),
        })
    }

    fn full_training(tokens: f64, gpus: u32) -> Workload {
        Workload::Llm(LlmWorkload {
            arch: find_llm_preset("llama-2-7b").unwrap().clone(),
            weights: Precision::Bf16,
            gpus,
            expert_parallel: false,
            task: LlmTask::Training(LlmTraining {
                method: TrainingMethod::Full,
                sequence_tokens: 2048,
                micro_batch: 1,
                checkpointing: false,
                optimizer: Optimizer::Adamw,
                zero: ZeroStage::Zero3,
                training_tokens: tokens,
                mfu: None,
            }),
        })
    }

    fn sd(model: DiffusionModel, images: f64) -> Workload {
        let px = model.spec().native_px;
        Workload::Diffusion(DiffusionWorkload {
            model,
            weights: Precision::Bf16,
            width: px,
            height: px,
            batch: 1,
            task: DiffusionTask::Generate(Generation {
                controlnets: 0,
                steps: 50,
                images,
                vae_slicing: false,
                vae_tiling: false,
                cpu_offload: false,
            }),
        })
    }

    #[test]
    fn the_speed_table_parses_whole_and_names_known_gpus() {
        let rows = SD_THROUGHPUT_CSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count()
            - 1;
        assert_eq!(sd_speeds().len(), rows);
        for r in sd_speeds() {
            assert!(find_gpu(&r.gpu).is_some(), "{}", r.gpu);
            assert!(r.it_per_s > 0.0);
        }
    }

    #[test]
    fn training_time_is_six_psi_d_over_peak_times_mfu() {
        // 1e9 tokens of Llama-2-7B on one A100 without checkpointing:
        // (6 Ψc + 12 L q s) x 1e9 / (312e12 x 0.35).
        let w = full_training(1e9, 1);
        let t = run_time(&w, gpu("A100-80GB")).unwrap();
        let Workload::Llm(l) = &w else { unreachable!() };
        let p = l.arch.parameters();
        let per_token = 6.0 * p.compute + 12.0 * 32.0 * 4096.0 * 2048.0;
        let expected = per_token * 1e9 / (312e12 * 0.35) / 3600.0;
        assert!((t.gpu_hours / expected - 1.0).abs() < 1e-12);
        assert_eq!(t.hours, t.gpu_hours);
        // On 8 GPUs the wall time divides by 8 x 0.9; the GPU-hours stay.
        let t8 = run_time(&full_training(1e9, 8), gpu("A100-80GB")).unwrap();
        assert!((t8.gpu_hours - t.gpu_hours).abs() < 1e-9);
        assert!((t8.hours - t.gpu_hours / 7.2).abs() < 1e-9);
    }

    #[test]
    fn single_stream_decoding_is_bandwidth_bound() {
        // Llama-3-8B bf16 on an RTX 4090: 1008 GB/s x 0.7 / (16.06 GB + KV) = ~43 tokens/s
        // (llama.cpp measures 54.8, MBU 0.87).
        let t = run_time(
            &decode("llama-3-8b", Precision::Bf16, 1, 3.6e6),
            gpu("RTX4090"),
        )
        .unwrap();
        assert_eq!(t.bound, Bound::Memory);
        let tps = t.tokens_per_second.unwrap();
        assert!((40.0..47.0).contains(&tps), "{tps}");
        assert!((t.hours - 3.6e6 / tps / 3600.0).abs() < 1e-9);
        // 4-bit weights decode faster; a large batch of short sequences turns compute-bound, while
        // long contexts keep it bandwidth-bound (the KV cache is read every step).
        let q = run_time(
            &decode("llama-3-8b", Precision::Int4, 1, 0.0),
            gpu("RTX4090"),
        )
        .unwrap();
        assert!(q.tokens_per_second.unwrap() > 2.0 * tps);
        let short = run_time(
            &decode_at("llama-3-8b", Precision::Bf16, 64, 512, 0.0),
            gpu("RTX4090"),
        )
        .unwrap();
        assert_eq!(short.bound, Bound::Compute);
        let long = run_time(
            &decode_at("llama-3-8b", Precision::Bf16, 8192, 512, 0.0),
            gpu("RTX4090"),
        )
        .unwrap();
        assert_eq!(long.bound, Bound::Memory);
    }

    #[test]
    fn experts_cost_time_by_the_ones_a_token_visits() {
        // One sequence of Mixtral reads the non-expert weights and 2 of 8 experts per step.
        let w = decode("mixtral-8x7b", Precision::Bf16, 1, 0.0);
        let Workload::Llm(l) = &w else { unreachable!() };
        let p = l.arch.parameters();
        let t = run_time(&w, gpu("H100-SXM")).unwrap();
        let kv = l.arch.kv_cache_bytes(1024.0, KvPrecision::Fp16);
        let bytes = 2.0 * (p.total - p.routed_experts) + 2.0 * p.routed_experts * 0.25 + kv;
        let expected = 3350e9 * DEFAULT_MBU / bytes;
        assert!((t.tokens_per_second.unwrap() / expected - 1.0).abs() < 1e-9);
        // A large batch visits every expert: the share read tends to 1.
        assert!(l.arch.experts_touched(64.0) > 0.999);
        // Training FLOPs follow the active parameters.
        assert!(p.compute < 0.3 * p.total);
    }

    #[test]
    fn sd_speed_uses_the_measurement_or_scales_the_nearest_one() {
        // RTX 4090 SD 1.5 at batch 4: 12.62 it/s -> 50 steps per image = 1.0096 images/s.
        let t = run_time(&sd(DiffusionModel::Sd15, 3600.0), gpu("RTX4090")).unwrap();
        let iph = t.images_per_hour.unwrap();
        assert!((iph - 12.62 * 4.0 / 50.0 * 3600.0).abs() < 1e-6, "{iph}");
        assert!(t.source.starts_with("measured"), "{}", t.source);
        // L40S (362 TFLOPS) is nearest to the A100 (312): 11.6 it/s x 362/312.
        let l = run_time(&sd(DiffusionModel::Sd15, 0.0), gpu("L40S")).unwrap();
        let expected = 11.6 * 4.0 * 362.0 / 312.0 / 50.0 * 3600.0;
        assert!((l.images_per_hour.unwrap() - expected).abs() < 1e-6);
        assert!(l.source.contains("A100-40GB"), "{}", l.source);
        // Flux has no table: FLOPs.
        let f = run_time(&sd(DiffusionModel::FluxDev, 0.0), gpu("H100-SXM")).unwrap();
        assert!(f.source.contains("FLOPs"), "{}", f.source);
        assert!(f.images_per_hour.unwrap() > 0.0);
    }

    #[test]
    fn task_fields_carry_vram_and_work_on_the_reference_gpu() {
        let w = full_training(1e9, 8);
        let fields = task_fields(&w, "a100-80gb").unwrap();
        let mem = estimate(&w).unwrap();
        let t = run_time(&w, gpu("A100-80GB")).unwrap();
        assert_eq!(fields.reference_gpu, "A100-80GB");
        assert_eq!(fields.vram_gib, mem.vram_gib);
        assert_eq!(fields.work_hours, t.gpu_hours);
        assert_eq!((fields.gpus, fields.scales_across_gpus), (8, true));
        assert_eq!(fields.kind, TaskKind::FineTuneFull);
        let mut task = crate::task::presets::preset("qlora_7b").unwrap();
        fields.apply_to(&mut task);
        assert_eq!(task.work_hours, t.gpu_hours);
        assert_eq!(task.gpus, 8);
        let e = task_fields(&w, "RTX 9090").unwrap_err();
        assert_eq!((e.field(), e.code()), ("reference_gpu", "unknown"));
        let d = task_fields(&decode("llama-3-8b", Precision::Bf16, 1, 1e6), "H100-SXM").unwrap();
        assert_eq!((d.kind, d.bound), (TaskKind::Inference, Bound::Memory));
    }

    #[test]
    fn every_gpu_gets_a_run_time() {
        let sdxl = Workload::Diffusion(DiffusionWorkload {
            model: DiffusionModel::Sdxl,
            weights: Precision::Bf16,
            width: 1024,
            height: 1024,
            batch: 1,
            task: DiffusionTask::LoraTraining(SdLoraTraining {
                rank: 8,
                checkpointing: true,
                optimizer: Optimizer::Adamw8bit,
                steps: 2000.0,
                mfu: None,
            }),
        });
        for w in [
            sdxl,
            sd(DiffusionModel::FluxDev, 10.0),
            decode("qwen2.5-7b", Precision::Nf4, 8, 1e5),
        ] {
            let all = run_times(&w).unwrap();
            assert_eq!(all.len(), gpu_specs().len());
            assert!(
                all.iter()
                    .all(|t| t.gpu_hours.is_finite() && t.gpu_hours > 0.0)
            );
        }
        let lora = Workload::Llm(LlmWorkload {
            arch: find_llm_preset("llama-3-8b").unwrap().clone(),
            weights: Precision::Nf4,
            gpus: 1,
            expert_parallel: false,
            task: LlmTask::Training(LlmTraining {
                method: TrainingMethod::Lora {
                    rank: 16,
                    targets: LoraTargets::All,
                },
                sequence_tokens: 2048,
                micro_batch: 1,
                checkpointing: true,
                optimizer: Optimizer::Adamw,
                zero: ZeroStage::Ddp,
                training_tokens: 1e7,
                mfu: None,
            }),
        });
        let t = run_time(&lora, gpu("RTX4090")).unwrap();
        assert!(t.source.contains("QLoRA"), "{}", t.source);
    }
}
