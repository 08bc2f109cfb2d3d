//! `gpufare estimate`: VRAM need, run time and catalog fit of an LLM or diffusion workload.
//!
//! The numbers all come from `gpufare_core::workload`; this module turns flags into a workload,
//! refuses bad input naming the flag (exit status 2, like clap's own usage errors), and prints
//! a table or one JSON document.

use std::fmt::Write as _;
use std::io::{self, Write};

use anyhow::Result;
use clap::CommandFactory;
use clap::error::ErrorKind;
use gpufare_core::hardware::gpu::{find_gpu, gpu_specs};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::feasibility::VramFit;
use gpufare_core::workload::diffusion::{
    DiffusionModel, DiffusionTask, DiffusionWorkload, Generation, SdLoraTraining,
};
use gpufare_core::workload::estimate::{Workload, estimate};
use gpufare_core::workload::fit::{CatalogFit, OfferFit, fit_catalog};
use gpufare_core::workload::llm::arch::{
    KvPrecision, LlmArch, LoraTargets, Precision, find_llm_preset, llm_presets,
};
use gpufare_core::workload::llm::setup::{
    LlmInference, LlmTask, LlmTraining, LlmWorkload, Optimizer, TrainingMethod, ZeroStage,
};
use gpufare_core::workload::throughput::{RunTime, TaskFields, run_time, run_times, task_fields};
use gpufare_core::workload::types::{MemoryEstimate, WorkloadError};
use serde_json::{Value, json};

use crate::cli::{
    Cli, EstimateArgs, EstimateCommand, EstimateOutput, Format, KvArg, LlmArgs, LlmTaskArg,
    OptimizerArg, PresetsArgs, SdArgs, SdTaskArg, TargetsArg,
};

/// The reference GPU of the task-profile fields when `--gpu` names none.
const DEFAULT_REFERENCE_GPU: &str = "A100-80GB";

/// Runs `gpufare estimate`.
pub fn run(args: &EstimateArgs) -> Result<()> {
    match &args.what {
        EstimateCommand::Llm(a) => report("llm", &llm_workload(a), &a.output),
        EstimateCommand::Sd(a) => report("sd", &sd_workload(a), &a.output),
        EstimateCommand::Presets(a) => presets(a),
    }
}

/// Refuses the command line of `gpufare estimate <sub>` with a clap-style message (and that
/// subcommand's usage line) and exit status 2.
fn usage(sub: &str, message: String) -> ! {
    let mut cli = Cli::command();
    cli.build();
    let command = cli
        .find_subcommand_mut("estimate")
        .and_then(|e| e.find_subcommand_mut(sub));
    match command {
        Some(c) => c.error(ErrorKind::ValueValidation, message).exit(),
        None => cli.error(ErrorKind::ValueValidation, message).exit(),
    }
}

/// The command-line flag of a workload field.
fn flag(field: &str) -> &'static str {
    match field {
        "model" => "--model",
        "weights" => "--weights",
        "gpus" => "--gpus",
        "context_tokens" => "--context",
        "concurrency" => "--concurrency",
        "generated_tokens" => "--generate-tokens",
        "mbu" => "--mbu",
        "sequence_tokens" => "--seq-len",
        "micro_batch" => "--micro-batch",
        "rank" => "--rank",
        "training_tokens" => "--train-tokens",
        "mfu" => "--mfu",
        "layers" => "--layers",
        "hidden" => "--hidden",
        "heads" => "--heads",
        "kv_heads" => "--kv-heads",
        "head_dim" => "--head-dim",
        "ffn" => "--ffn",
        "vocab" => "--vocab",
        "width" => "--width",
        "height" => "--height",
        "batch" => "--batch",
        "controlnets" => "--controlnets",
        "steps" => "--steps",
        "images" => "--images",
        "train_steps" => "--train-steps",
        "reference_gpu" => "--gpu",
        _ => "an option",
    }
}

fn refuse(sub: &str, e: &WorkloadError) -> ! {
    let reason = match e {
        WorkloadError::OutOfRange {
            min, max, value, ..
        } => {
            format!("must be between {min} and {max}, got {value}")
        }
        WorkloadError::Unknown { name, known, .. } => format!("unknown {name:?}; known: {known}"),
        WorkloadError::Unsupported { reason, .. } => (*reason).to_owned(),
    };
    usage(
        sub,
        format!("invalid value for {}: {reason}", flag(e.field())),
    )
}

/// Refuses flags that belong to another task.
fn only_for(sub: &str, task: &str, flags: &[(&str, bool)]) {
    if let Some((name, _)) = flags.iter().find(|(_, given)| *given) {
        usage(sub, format!("{name} applies only to {task}"));
    }
}

fn optimizer(arg: Option<OptimizerArg>) -> Optimizer {
    match arg {
        Some(OptimizerArg::Adamw8bit) => Optimizer::Adamw8bit,
        Some(OptimizerArg::Adamw) | None => Optimizer::Adamw,
    }
}

fn llm_arch(a: &LlmArgs) -> LlmArch {
    let mut arch = match &a.model {
        Some(id) => find_llm_preset(id)
            .unwrap_or_else(|e| refuse("llm", &e))
            .clone(),
        None => {
            let missing: Vec<&str> = [
                ("--layers", a.layers.is_none()),
                ("--hidden", a.hidden.is_none()),
                ("--heads", a.heads.is_none()),
                ("--ffn", a.ffn.is_none()),
                ("--vocab", a.vocab.is_none()),
            ]
            .iter()
            .filter(|(_, m)| *m)
            .map(|(f, _)| *f)
            .collect();
            if !missing.is_empty() {
                usage(
                    "llm",
                    format!(
                        "give --model PRESET, or a custom shape; missing {}",
                        missing.join(", ")
                    ),
                );
            }
            LlmArch {
                name: "custom".to_owned(),
                layers: 0,
                hidden: 0,
                heads: 0,
                kv_heads: 0,
                head_dim: 0,
                ffn: 0,
                vocab: 0,
                tied_embeddings: false,
                qkv_bias: false,
            }
        }
    };
    let custom = a.model.is_none();
    if let Some(v) = a.layers {
        arch.layers = v;
    }
    if let Some(v) = a.hidden {
        arch.hidden = v;
    }
    if let Some(v) = a.heads {
        arch.heads = v;
    }
    if let Some(v) = a.ffn {
        arch.ffn = v;
    }
    if let Some(v) = a.vocab {
        arch.vocab = v;
    }
    arch.kv_heads = a
        .kv_heads
        .unwrap_or(if custom { arch.heads } else { arch.kv_heads });
    arch.head_dim = match a.head_dim {
        Some(v) => v,
        None if custom || a.hidden.is_some() || a.heads.is_some() => {
            arch.hidden.checked_div(arch.heads).unwrap_or(0)
        }
        None => arch.head_dim,
    };
    arch.tied_embeddings |= a.tied_embeddings;
    arch.qkv_bias |= a.qkv_bias;
    let changed = [
        a.layers, a.hidden, a.heads, a.kv_heads, a.head_dim, a.ffn, a.vocab,
    ]
    .iter()
    .any(Option::is_some)
        || a.tied_embeddings
        || a.qkv_bias;
    if !custom && changed {
        arch.name = format!("{} (modified)", arch.name);
    }
    arch
}

fn llm_workload(a: &LlmArgs) -> Workload {
    let arch = llm_arch(a);
    let inference_flags = [
        ("--context", a.context.is_some()),
        ("--concurrency", a.concurrency.is_some()),
        ("--kv-cache", a.kv_cache.is_some()),
        ("--generate-tokens", a.generate_tokens.is_some()),
        ("--mbu", a.mbu.is_some()),
    ];
    let training_flags = [
        ("--seq-len", a.seq_len.is_some()),
        ("--micro-batch", a.micro_batch.is_some()),
        ("--no-checkpointing", a.no_checkpointing),
        ("--optimizer", a.optimizer.is_some()),
        ("--zero", a.zero.is_some()),
        ("--train-tokens", a.train_tokens.is_some()),
        ("--mfu", a.mfu.is_some()),
    ];
    let lora_flags = [
        ("--rank", a.rank.is_some()),
        ("--targets", a.targets.is_some()),
    ];
    let task = match a.task {
        LlmTaskArg::Inference => {
            only_for(
                "llm",
                "training (--task full, lora or qlora)",
                &training_flags,
            );
            only_for("llm", "--task lora or qlora", &lora_flags);
            LlmTask::Inference(LlmInference {
                context_tokens: a.context.unwrap_or(4096),
                concurrency: a.concurrency.unwrap_or(1),
                kv_cache: match a.kv_cache {
                    Some(KvArg::Fp8) => KvPrecision::Fp8,
                    Some(KvArg::Fp16) | None => KvPrecision::Fp16,
                },
                generated_tokens: a.generate_tokens.unwrap_or(0.0),
                mbu: a.mbu,
            })
        }
        LlmTaskArg::Full | LlmTaskArg::Lora | LlmTaskArg::Qlora => {
            only_for("llm", "--task inference", &inference_flags);
            let method = if a.task == LlmTaskArg::Full {
                only_for("llm", "--task lora or qlora", &lora_flags);
                TrainingMethod::Full
            } else {
                TrainingMethod::Lora {
                    rank: a.rank.unwrap_or(16),
                    targets: match a.targets {
                        Some(TargetsArg::Qv) => LoraTargets::Qv,
                        Some(TargetsArg::Attention) => LoraTargets::Attention,
                        Some(TargetsArg::All) | None => LoraTargets::All,
                    },
                }
            };
            let zero = ZeroStage::ALL[usize::from(a.zero.unwrap_or(0))];
            LlmTask::Training(LlmTraining {
                method,
                sequence_tokens: a.seq_len.unwrap_or(2048),
                micro_batch: a.micro_batch.unwrap_or(1),
                checkpointing: !a.no_checkpointing,
                optimizer: optimizer(a.optimizer),
                zero,
                training_tokens: a.train_tokens.unwrap_or(0.0),
                mfu: a.mfu,
            })
        }
    };
    let weights = match (a.task, a.weights) {
        (_, Some(p)) => p,
        (LlmTaskArg::Qlora, None) => Precision::Nf4,
        (_, None) => Precision::Bf16,
    };
    if a.task == LlmTaskArg::Qlora && !weights.is_quantized() {
        usage("llm", "invalid value for --weights: QLoRA trains on quantized weights (nf4, int4, int8 or fp8); use --task lora for 16-bit".to_owned());
    }
    if a.task == LlmTaskArg::Lora && weights.is_quantized() {
        usage(
            "llm",
            format!(
                "invalid value for --weights: {} weights make this QLoRA; use --task qlora",
                weights.id()
            ),
        );
    }
    Workload::Llm(LlmWorkload {
        arch,
        weights,
        gpus: a.gpus,
        task,
    })
}

fn sd_workload(a: &SdArgs) -> Workload {
    let model = DiffusionModel::from_id(&a.model).unwrap_or_else(|e| refuse("sd", &e));
    let native = model.spec().native_px;
    let generation_flags = [
        ("--controlnets", a.controlnets.is_some()),
        ("--steps", a.steps.is_some()),
        ("--images", a.images.is_some()),
        ("--vae-slicing", a.vae_slicing),
        ("--vae-tiling", a.vae_tiling),
        ("--cpu-offload", a.cpu_offload),
    ];
    let lora_flags = [
        ("--rank", a.rank.is_some()),
        ("--no-checkpointing", a.no_checkpointing),
        ("--optimizer", a.optimizer.is_some()),
        ("--train-steps", a.train_steps.is_some()),
        ("--mfu", a.mfu.is_some()),
    ];
    let task = match a.task {
        SdTaskArg::Generate => {
            only_for("sd", "--task lora", &lora_flags);
            DiffusionTask::Generate(Generation {
                controlnets: a.controlnets.unwrap_or(0),
                steps: a.steps.unwrap_or(30),
                images: a.images.unwrap_or(0.0),
                vae_slicing: a.vae_slicing,
                vae_tiling: a.vae_tiling,
                cpu_offload: a.cpu_offload,
            })
        }
        SdTaskArg::Lora => {
            only_for("sd", "--task generate", &generation_flags);
            DiffusionTask::LoraTraining(SdLoraTraining {
                rank: a.rank.unwrap_or(16),
                checkpointing: !a.no_checkpointing,
                optimizer: optimizer(a.optimizer),
                steps: a.train_steps.unwrap_or(0.0),
                mfu: a.mfu,
            })
        }
    };
    Workload::Diffusion(DiffusionWorkload {
        model,
        weights: a.weights,
        width: a.width.unwrap_or(native),
        height: a.height.unwrap_or(native),
        batch: a.batch,
        task,
    })
}

/// Everything an estimate prints.
struct Report {
    description: String,
    memory: MemoryEstimate,
    fit: CatalogFit,
    offers: usize,
    times: Vec<RunTime>,
    work: Option<(f64, &'static str)>,
    task: TaskFields,
}

fn work_of(w: &Workload) -> Option<(f64, &'static str)> {
    let (amount, unit) = match w {
        Workload::Llm(l) => match &l.task {
            LlmTask::Inference(i) => (i.generated_tokens, "tokens generated"),
            LlmTask::Training(t) => (t.training_tokens, "training tokens"),
        },
        Workload::Diffusion(d) => match &d.task {
            DiffusionTask::Generate(g) => (g.images, "images"),
            DiffusionTask::LoraTraining(t) => (t.steps, "training steps"),
        },
    };
    (amount > 0.0).then_some((amount, unit))
}

fn report(sub: &str, workload: &Workload, output: &EstimateOutput) -> Result<()> {
    let memory = estimate(workload).unwrap_or_else(|e| refuse(sub, &e));
    let catalog = default_catalog();
    let fit = fit_catalog(memory.vram_gib, memory.gpus, catalog);
    let times = match output.gpu.as_deref() {
        None => vec![],
        Some("all") => run_times(workload).unwrap_or_else(|e| refuse(sub, &e)),
        Some(name) => {
            let gpu = find_gpu(name).unwrap_or_else(|| usage(sub, format!("unknown GPU {name:?}")));
            vec![run_time(workload, gpu).unwrap_or_else(|e| refuse(sub, &e))]
        }
    };
    let reference = match output.gpu.as_deref() {
        Some(name) if name != "all" => name,
        _ => DEFAULT_REFERENCE_GPU,
    };
    let task = task_fields(workload, reference).unwrap_or_else(|e| refuse(sub, &e));
    let report = Report {
        description: workload.describe(),
        memory,
        fit,
        offers: catalog.offers.len(),
        times,
        work: work_of(workload),
        task,
    };
    let text = match output.format {
        Format::Json => {
            let mut text = serde_json::to_string_pretty(&report_json(&report))?;
            text.push('\n');
            text
        }
        Format::Table => report_table(&report),
    };
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn offer_json(o: &Option<OfferFit>) -> Value {
    match o {
        None => Value::Null,
        Some(o) => json!({
            "offer_id": o.offer_id,
            "provider": o.provider,
            "gpu": o.gpu,
            "tenancy": o.tenancy,
            "gpu_count": o.gpu_count,
            "vram_gib": o.vram_gib,
            "fit": o.fit,
        }),
    }
}

fn report_json(r: &Report) -> Value {
    let breakdown: serde_json::Map<String, Value> = r
        .memory
        .breakdown
        .components()
        .iter()
        .map(|(k, v)| ((*k).to_owned(), json!(v)))
        .collect();
    json!({
        "workload": r.description,
        "vram_gib": r.memory.vram_gib,
        "gpus": r.memory.gpus,
        "breakdown_unit": "GiB",
        "breakdown": breakdown,
        "parameters": r.memory.parameters,
        "trainable_parameters": r.memory.trainable_parameters,
        "kind": r.memory.kind,
        "fit": {
            "catalog": "default",
            "offers": r.offers,
            "fits": r.fit.fits,
            "tight": r.fit.tight,
            "oom": r.fit.oom,
            "too_few_gpus": r.fit.too_few_gpus,
            "smallest_slice": offer_json(&r.fit.smallest_slice),
            "smallest_dedicated": offer_json(&r.fit.smallest_dedicated),
        },
        "work": r.work.map(|(amount, unit)| json!({"amount": amount, "unit": unit})),
        "run_time": r.times,
        "task": r.task,
        "assumptions": r.memory.assumptions,
    })
}

/// Formats a count with thousands separators and no decimals.
fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 { format!("-{out}") } else { out }
}

/// A parameter count as `6.74 B` or `40.0 M`.
fn count(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2} B", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else {
        thousands(x)
    }
}

/// A number of hours with sensible precision.
fn hours(h: f64) -> String {
    if h >= 100.0 {
        thousands(h)
    } else if h >= 1.0 {
        format!("{h:.1}")
    } else {
        format!("{h:.2}")
    }
}

fn fit_word(f: VramFit) -> &'static str {
    match f {
        VramFit::Fits => "fits",
        VramFit::Tight => "tight",
        VramFit::Oom => "OOM",
    }
}

fn rate(t: &RunTime) -> String {
    if let Some(v) = t.tokens_per_second {
        format!("{} tokens/s", thousands(v))
    } else if let Some(v) = t.images_per_hour {
        format!("{} images/h", thousands(v))
    } else if let Some(v) = t.steps_per_hour {
        format!("{} steps/h", thousands(v))
    } else {
        String::new()
    }
}

fn report_table(r: &Report) -> String {
    let mut s = String::new();
    let m = &r.memory;
    let per = if m.gpus > 1 {
        format!("per GPU, {} GPUs", m.gpus)
    } else {
        "per GPU".to_owned()
    };
    let _ = writeln!(s, "Workload: {}", r.description);
    let _ = writeln!(s, "VRAM need: {:.2} GiB {per}", m.vram_gib);
    let _ = writeln!(s);
    let _ = writeln!(s, "  {:<12} {:>9}", "component", "GiB");
    for (k, v) in m.breakdown.components() {
        let _ = writeln!(s, "  {k:<12} {v:>9.2}");
    }
    let _ = writeln!(s, "  {:<12} {:>9.2}", "total", m.vram_gib);
    let _ = writeln!(s);
    if m.trainable_parameters > 0.0 {
        let _ = writeln!(
            s,
            "Parameters: {} (trainable {})",
            count(m.parameters),
            count(m.trainable_parameters)
        );
    } else {
        let _ = writeln!(s, "Parameters: {}", count(m.parameters));
    }
    let _ = writeln!(s);
    let f = &r.fit;
    let _ = writeln!(
        s,
        "Fit against the default catalog ({} offers): {} fit, {} tight, {} OOM{}",
        r.offers,
        f.fits,
        f.tight,
        f.oom,
        if f.too_few_gpus > 0 {
            format!(", {} with too few GPUs", f.too_few_gpus)
        } else {
            String::new()
        }
    );
    for (label, o) in [
        ("smallest slice", &f.smallest_slice),
        ("smallest dedicated", &f.smallest_dedicated),
    ] {
        match o {
            Some(o) => {
                let _ = writeln!(
                    s,
                    "  {label:<19} {:<36} {:<10} {:<21} {:>6.1} GiB  {}",
                    o.offer_id,
                    o.gpu,
                    o.tenancy.id(),
                    o.vram_gib,
                    fit_word(o.fit)
                );
            }
            None => {
                let _ = writeln!(s, "  {label:<19} none fits");
            }
        }
    }
    if !r.times.is_empty() {
        let _ = writeln!(s);
        match r.work {
            Some((amount, unit)) => {
                let _ = writeln!(s, "Run time for {} {unit}:", thousands(amount));
            }
            None => {
                let _ = writeln!(
                    s,
                    "Speed (give the work with --train-tokens, --generate-tokens, --images or --train-steps for hours):"
                );
            }
        }
        let _ = writeln!(
            s,
            "  {:<10} {:>9} {:>10} {:>18}  {:<7}  source",
            "gpu", "hours", "GPU-hours", "rate", "bound"
        );
        for t in &r.times {
            let bound = match t.bound {
                gpufare_core::task::document::Bound::Compute => "compute",
                gpufare_core::task::document::Bound::Memory => "memory",
            };
            let _ = writeln!(
                s,
                "  {:<10} {:>9} {:>10} {:>18}  {:<7}  {}",
                t.gpu,
                hours(t.hours),
                hours(t.gpu_hours),
                rate(t),
                bound,
                t.source
            );
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Task profile: vram_gib {:.2}, work_hours {} on {}, gpus {}",
        r.task.vram_gib,
        hours(r.task.work_hours),
        r.task.reference_gpu,
        r.task.gpus
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "Assumptions:");
    for a in &m.assumptions {
        let _ = writeln!(s, "  {} = {} ({})", a.id, a.value, a.source);
    }
    s
}

fn presets(a: &PresetsArgs) -> Result<()> {
    let text = match a.format {
        Format::Json => {
            let llm: Vec<Value> = llm_presets()
                .iter()
                .map(|p| {
                    json!({
                        "id": p.name,
                        "parameters": p.parameters().total,
                        "layers": p.layers,
                        "hidden": p.hidden,
                        "heads": p.heads,
                        "kv_heads": p.kv_heads,
                        "head_dim": p.head_dim,
                        "ffn": p.ffn,
                        "vocab": p.vocab,
                        "kv_cache_kib_per_token": p.kv_cache_bytes_per_token(KvPrecision::Fp16) / 1024.0,
                    })
                })
                .collect();
            let diffusion: Vec<Value> = DiffusionModel::ALL
                .iter()
                .map(|m| {
                    let s = m.spec();
                    json!({
                        "id": m.id(),
                        "name": m.name(),
                        "parameters": s.denoiser_params + s.text_encoder_params + s.vae_params,
                        "native_px": s.native_px,
                        "controlnets": s.controlnet_params.is_some(),
                    })
                })
                .collect();
            let gpus: Vec<Value> = gpu_specs()
                .iter()
                .map(|g| {
                    json!({
                        "id": g.short,
                        "vram_gb": g.vram_gb,
                        "fp16_tflops": g.fp16_tflops,
                        "mem_bw_gbs": g.mem_bw_gbs,
                    })
                })
                .collect();
            let mut text = serde_json::to_string_pretty(
                &json!({"llm": llm, "diffusion": diffusion, "gpus": gpus}),
            )?;
            text.push('\n');
            text
        }
        Format::Table => presets_table(),
    };
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn presets_table() -> String {
    let mut s = String::new();
    let _ = writeln!(s, "LLM presets (gpufare estimate llm --model ID)");
    let _ = writeln!(
        s,
        "  {:<12} {:>9} {:>6} {:>6} {:>5} {:>8} {:>6} {:>7}  {:>14}",
        "id", "params", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "KV fp16/token"
    );
    for p in llm_presets() {
        let _ = writeln!(
            s,
            "  {:<12} {:>9} {:>6} {:>6} {:>5} {:>8} {:>6} {:>7}  {:>10.0} KiB",
            p.name,
            count(p.parameters().total),
            p.layers,
            p.hidden,
            p.heads,
            p.kv_heads,
            p.ffn,
            p.vocab,
            p.kv_cache_bytes_per_token(KvPrecision::Fp16) / 1024.0
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "Diffusion models (gpufare estimate sd --model ID)");
    let _ = writeln!(
        s,
        "  {:<9} {:<24} {:>9} {:>10}  controlnets",
        "id", "name", "params", "native"
    );
    for m in DiffusionModel::ALL {
        let spec = m.spec();
        let _ = writeln!(
            s,
            "  {:<9} {:<24} {:>9} {:>10}  {}",
            m.id(),
            m.name(),
            count(spec.denoiser_params + spec.text_encoder_params + spec.vae_params),
            format!("{0}x{0}", spec.native_px),
            if spec.controlnet_params.is_some() {
                "yes"
            } else {
                "no"
            }
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "GPUs (--gpu ID or all)");
    let _ = writeln!(
        s,
        "  {:<10} {:>8} {:>12} {:>11}",
        "id", "VRAM GB", "FP16 TFLOPS", "GB/s"
    );
    for g in gpu_specs() {
        let _ = writeln!(
            s,
            "  {:<10} {:>8} {:>12} {:>11}",
            g.short, g.vram_gb, g.fp16_tflops, g.mem_bw_gbs
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(count(6.738e9), "6.74 B");
        assert_eq!(count(41.9e6), "41.9 M");
        assert_eq!(hours(0.123), "0.12");
        assert_eq!(hours(12.34), "12.3");
        assert_eq!(hours(1234.0), "1,234");
    }

    #[test]
    fn every_workload_field_maps_to_a_flag() {
        for field in [
            "model",
            "weights",
            "gpus",
            "context_tokens",
            "concurrency",
            "generated_tokens",
            "mbu",
            "sequence_tokens",
            "micro_batch",
            "rank",
            "training_tokens",
            "mfu",
            "layers",
            "hidden",
            "heads",
            "kv_heads",
            "head_dim",
            "ffn",
            "vocab",
            "width",
            "height",
            "batch",
            "controlnets",
            "steps",
            "images",
            "train_steps",
            "reference_gpu",
        ] {
            assert!(flag(field).starts_with("--"), "{field}");
        }
    }
}
