//! The estimate report: everything `gpufare estimate` says about a workload — its memory by
//! component, the fit against a catalog, the run time on the GPUs asked for, and the task fields
//! it gives the plan — as one document, so the table and the JSON come from the same figures.
//! Also the list of presets `gpufare estimate presets` prints.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::gpu::{GpuSpec, gpu_specs};
use crate::offers::catalog::Catalog;
use crate::plan::assumption::Assumption;
use crate::plan::feasibility::VramFit;
use crate::task::document::TaskKind;
use crate::workload::diffusion::{DiffusionModel, DiffusionTask};
use crate::workload::estimate::{Workload, estimate};
use crate::workload::fit::{OfferFit, fit_catalog};
use crate::workload::llm::arch::{KvPrecision, LlmArch, llm_presets};
use crate::workload::llm::setup::{LlmTask, LlmWorkload};
use crate::workload::throughput::{RunTime, TaskFields, run_time, run_times, task_fields};
use crate::workload::types::{Breakdown, GIB, WorkloadError};

/// The reference GPU of the task fields when none is named: the card most published work-size
/// figures are given on.
pub const DEFAULT_REFERENCE_GPU: &str = "A100-80GB";

/// Memory per GPU by component, GiB, keyed without the unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BreakdownGib {
    /// Model weights.
    pub weights: f64,
    /// Gradients.
    pub gradients: f64,
    /// Optimizer state.
    pub optimizer: f64,
    /// Activations.
    pub activations: f64,
    /// KV cache.
    pub kv_cache: f64,
    /// CUDA context and temporary buffers.
    pub overhead: f64,
}

impl BreakdownGib {
    /// The components as `(key, GiB)` pairs in the order they are listed.
    pub fn components(&self) -> [(&'static str, f64); 6] {
        [
            ("weights", self.weights),
            ("gradients", self.gradients),
            ("optimizer", self.optimizer),
            ("activations", self.activations),
            ("kv_cache", self.kv_cache),
            ("overhead", self.overhead),
        ]
    }
}

impl From<Breakdown> for BreakdownGib {
    fn from(b: Breakdown) -> BreakdownGib {
        BreakdownGib {
            weights: b.weights_gib,
            gradients: b.gradients_gib,
            optimizer: b.optimizer_gib,
            activations: b.activations_gib,
            kv_cache: b.kv_cache_gib,
            overhead: b.overhead_gib,
        }
    }
}

/// How the need fits a catalog, in counts, with the smallest slice and card that hold it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FitSummary {
    /// Which catalog: `default` for the one compiled in.
    pub catalog: String,
    /// Offers in it.
    pub offers: usize,
    /// Offers whose VRAM fits.
    pub fits: u32,
    /// Offers whose VRAM is tight.
    pub tight: u32,
    /// Offers whose VRAM is too small.
    pub oom: u32,
    /// Offers with too few GPUs (or slices for a multi-GPU job).
    pub too_few_gpus: u32,
    /// The slice with the least VRAM that fits (a tight one when none fits).
    pub smallest_slice: Option<OfferFit>,
    /// The whole card with the least VRAM that fits (a tight one when none fits).
    pub smallest_dedicated: Option<OfferFit>,
    /// The multi-GPU machine with the least VRAM in all that holds the workload spread over every
    /// one of its GPUs (a tight one when none fits); none when no machine of the catalog does.
    #[serde(default)]
    pub smallest_machine: Option<MachineFit>,
}

/// A multi-GPU machine that holds the workload spread over all its GPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MachineFit {
    /// GPUs the workload is spread over: every GPU of the machine.
    pub gpus: u32,
    /// VRAM needed per GPU when spread over them, GiB.
    pub need_gib: f64,
    /// The machine's offer and its verdict for that need.
    pub offer: OfferFit,
}

/// What the work of a workload is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum WorkUnit {
    /// Tokens an LLM generates.
    #[serde(rename = "tokens generated")]
    TokensGenerated,
    /// Tokens an LLM trains on.
    #[serde(rename = "training tokens")]
    TrainingTokens,
    /// Images a diffusion model generates.
    #[serde(rename = "images")]
    Images,
    /// Steps of a diffusion LoRA training.
    #[serde(rename = "training steps")]
    TrainingSteps,
}

/// The work given, when there is some.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkAmount {
    /// How much.
    pub amount: f64,
    /// Of what.
    pub unit: WorkUnit,
}

/// The run time on which GPUs: none, one named, or every GPU of the spec table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gpus {
    /// Memory only.
    None,
    /// One GPU, also the reference of the task fields.
    One(&'static GpuSpec),
    /// Every GPU of the spec table.
    All,
}

/// Everything an estimate says, in the order it reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EstimateReport {
    /// A one-line description of the workload.
    pub workload: String,
    /// VRAM needed per GPU, GiB.
    pub vram_gib: f64,
    /// GPUs the workload runs on.
    pub gpus: u32,
    /// The unit of `breakdown`: always `GiB`.
    pub breakdown_unit: String,
    /// The VRAM by component.
    pub breakdown: BreakdownGib,
    /// Parameters of the model.
    pub parameters: f64,
    /// Parameters each token goes through (fewer than `parameters` for a mixture of experts).
    pub active_parameters: f64,
    /// Parameters that receive gradients.
    pub trainable_parameters: f64,
    /// The task kind.
    pub kind: TaskKind,
    /// The fit against the catalog.
    pub fit: FitSummary,
    /// The work given, if any.
    pub work: Option<WorkAmount>,
    /// The run time on the GPUs asked for.
    pub run_time: Vec<RunTime>,
    /// The task-profile fields for the plan.
    pub task: TaskFields,
    /// Every default the estimate used, with its source.
    pub assumptions: Vec<Assumption>,
}

/// The work of `workload`, when it names some.
pub fn work_of(workload: &Workload) -> Option<WorkAmount> {
    let (amount, unit) = match workload {
        Workload::Llm(l) => match &l.task {
            LlmTask::Inference(i) => (i.generated_tokens, WorkUnit::TokensGenerated),
            LlmTask::Training(t) => (t.training_tokens, WorkUnit::TrainingTokens),
        },
        Workload::Diffusion(d) => match &d.task {
            DiffusionTask::Generate(g) => (g.images, WorkUnit::Images),
            DiffusionTask::LoraTraining(t) => (t.steps, WorkUnit::TrainingSteps),
        },
    };
    (amount > 0.0).then_some(WorkAmount { amount, unit })
}

/// The report for `workload` against `catalog` (named `catalog_name`), with the run time on
/// `gpus`. The task fields take the one GPU named as their reference, else
/// [`DEFAULT_REFERENCE_GPU`].
pub fn estimate_report(
    workload: &Workload,
    gpus: Gpus,
    catalog: &Catalog,
    catalog_name: &str,
) -> Result<EstimateReport, WorkloadError> {
    let memory = estimate(workload)?;
    let fit = fit_catalog(memory.vram_gib, memory.gpus, catalog);
    let (run_time, reference) = match gpus {
        Gpus::None => (vec![], DEFAULT_REFERENCE_GPU),
        Gpus::All => (run_times(workload)?, DEFAULT_REFERENCE_GPU),
        Gpus::One(gpu) => (vec![run_time(workload, gpu)?], gpu.short.as_str()),
    };
    let task = task_fields(workload, reference)?;
    Ok(EstimateReport {
        workload: workload.describe(),
        vram_gib: memory.vram_gib,
        gpus: memory.gpus,
        breakdown_unit: "GiB".to_owned(),
        breakdown: memory.breakdown.into(),
        parameters: memory.parameters,
        active_parameters: memory.active_parameters,
        trainable_parameters: memory.trainable_parameters,
        kind: memory.kind,
        fit: FitSummary {
            catalog: catalog_name.to_owned(),
            offers: catalog.offers.len(),
            fits: fit.fits,
            tight: fit.tight,
            oom: fit.oom,
            too_few_gpus: fit.too_few_gpus,
            smallest_slice: fit.smallest_slice,
            smallest_dedicated: fit.smallest_dedicated,
            smallest_machine: smallest_machine(workload, catalog),
        },
        work: work_of(workload),
        run_time,
        task,
        assumptions: memory.assumptions,
    })
}

/// The multi-GPU machine of `catalog` with the least VRAM in all (ties: the catalog's first) that
/// holds `workload` spread over every one of its GPUs, as configured otherwise (tensor or expert
/// parallel for serving, data parallel with its ZeRO stage for training); a tight one when none
/// fits. Slices never join a multi-GPU job.
pub fn smallest_machine(workload: &Workload, catalog: &Catalog) -> Option<MachineFit> {
    let mut counts: Vec<u32> = catalog
        .offers
        .iter()
        .filter(|o| o.gpu_count > 1 && !o.tenancy.is_slice())
        .map(|o| o.gpu_count)
        .collect();
    counts.sort_unstable();
    counts.dedup();
    let mut candidates: Vec<MachineFit> = vec![];
    for gpus in counts {
        let spread = match workload {
            Workload::Llm(l) => Workload::Llm(LlmWorkload { gpus, ..l.clone() }),
            // Diffusion pipelines run on one GPU.
            Workload::Diffusion(_) => return None,
        };
        let Ok(memory) = estimate(&spread) else {
            continue;
        };
        let fit = fit_catalog(memory.vram_gib, gpus, catalog);
        candidates.extend(
            fit.offers
                .into_iter()
                .filter(|o| o.gpu_count == gpus && !o.tenancy.is_slice())
                .map(|offer| MachineFit {
                    gpus,
                    need_gib: memory.vram_gib,
                    offer,
                }),
        );
    }
    let total = |m: &MachineFit| f64::from(m.gpus) * m.offer.vram_gib;
    let pick = |verdict: VramFit| {
        candidates
            .iter()
            .filter(|m| m.offer.fit == verdict)
            .min_by(|a, b| total(a).total_cmp(&total(b)))
            .cloned()
    };
    pick(VramFit::Fits).or_else(|| pick(VramFit::Tight))
}

/// An LLM preset in the list: its id, its shape as the preset table gives it, and what follows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LlmPresetRow {
    /// The preset's id (`--model`).
    pub id: String,
    /// Parameters in all.
    pub parameters: f64,
    /// Parameters each token goes through (fewer than `parameters` for a mixture of experts).
    pub active_parameters: f64,
    /// The architecture.
    #[serde(flatten)]
    pub arch: LlmArch,
    /// KV cache per token at 16 bits while the context is within any sliding window, KiB.
    pub kv_cache_kib_per_token: f64,
    /// KV cache of one 32,768-token sequence at 16 bits, sliding windows counted, GiB.
    pub kv_cache_gib_at_32k: f64,
}

/// A diffusion model in the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiffusionPresetRow {
    /// The model's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Parameters of the whole pipeline.
    pub parameters: f64,
    /// Native resolution, pixels per side.
    pub native_px: u32,
    /// Whether ControlNets are modelled for it.
    pub controlnets: bool,
}

/// A GPU in the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuRow {
    /// Short name.
    pub id: String,
    /// Marketed memory, GB.
    pub vram_gb: f64,
    /// Dense FP16 tensor TFLOPS.
    pub fp16_tflops: f64,
    /// Memory bandwidth, GB/s.
    pub mem_bw_gbs: f64,
}

/// The models and GPUs the estimator knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Presets {
    /// LLM presets.
    pub llm: Vec<LlmPresetRow>,
    /// Diffusion models.
    pub diffusion: Vec<DiffusionPresetRow>,
    /// GPUs of the spec table.
    pub gpus: Vec<GpuRow>,
}

/// Every model and GPU the estimator knows, in table order.
pub fn presets() -> Presets {
    Presets {
        llm: llm_presets()
            .iter()
            .map(|p| {
                let count = p.parameters();
                LlmPresetRow {
                    id: p.name.clone(),
                    parameters: count.total,
                    active_parameters: count.active,
                    arch: p.clone(),
                    kv_cache_kib_per_token: p.kv_cache_bytes_per_token(KvPrecision::Fp16) / 1024.0,
                    kv_cache_gib_at_32k: p.kv_cache_bytes(32_768.0, KvPrecision::Fp16) / GIB,
                }
            })
            .collect(),
        diffusion: DiffusionModel::ALL
            .iter()
            .map(|m| {
                let s = m.spec();
                DiffusionPresetRow {
                    id: m.id().to_owned(),
                    name: m.name().to_owned(),
                    parameters: s.denoiser_params + s.text_encoder_params + s.vae_params,
                    native_px: s.native_px,
                    controlnets: s.controlnet_params.is_some(),
                }
            })
            .collect(),
        gpus: gpu_specs()
            .iter()
            .map(|g| GpuRow {
                id: g.short.clone(),
                vram_gb: g.vram_gb,
                fp16_tflops: g.fp16_tflops,
                mem_bw_gbs: g.mem_bw_gbs,
            })
            .collect(),
    }
}
