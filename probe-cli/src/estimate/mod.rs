//! `gpufare estimate`: VRAM need, run time and catalog fit of an LLM or diffusion workload.
//!
//! Flags become a workload here, with core's defaults for what is not given; bad input is refused
//! naming the flag (exit status 2, like clap's own usage errors). Every figure comes from core's
//! [`estimate_report`]; [`table`] lays it out for the terminal, or the report is written as one
//! JSON document.

pub mod args;
mod table;

use std::io::{self, Write};

use anyhow::Result;
use clap::CommandFactory;
use clap::error::ErrorKind;
use gpufare_core::hardware::gpu::find_gpu;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::workload::diffusion::{
    DiffusionModel, DiffusionTask, DiffusionWorkload, Generation, SdLoraTraining,
};
use gpufare_core::workload::estimate::Workload;
use gpufare_core::workload::llm::arch::{
    KvPrecision, LlmArch, LoraTargets, MlaShape, MoeShape, Precision, SlidingWindow,
    find_llm_preset,
};
use gpufare_core::workload::llm::setup::{
    DEFAULT_LORA, LlmInference, LlmTask, LlmTraining, LlmWorkload, Optimizer, TrainingMethod,
    ZeroStage,
};
use gpufare_core::workload::report::{Gpus, estimate_report, presets};
use gpufare_core::workload::types::WorkloadError;

use args::{
    EstimateArgs, EstimateCommand, EstimateOutput, Format, KvArg, LlmArgs, LlmTaskArg,
    OptimizerArg, PresetsArgs, SdArgs, SdTaskArg, TargetsArg,
};

/// `gpufare estimate`'s command line alone, for its usage messages.
#[derive(Debug, clap::Parser)]
#[command(name = "estimate", bin_name = "gpufare estimate")]
struct EstimateLine {
    #[command(flatten)]
    args: EstimateArgs,
}

/// Runs `gpufare estimate`.
pub fn run(args: &EstimateArgs) -> Result<()> {
    match &args.what {
        EstimateCommand::Llm(a) => report("llm", &llm_workload(a), &a.output),
        EstimateCommand::Sd(a) => report("sd", &sd_workload(a), &a.output),
        EstimateCommand::Presets(a) => presets_command(a),
    }
}

/// Refuses the command line of `gpufare estimate <sub>` with a clap-style message (and that
/// subcommand's usage line) and exit status 2.
fn usage(sub: &str, message: String) -> ! {
    let mut cli = EstimateLine::command();
    cli.build();
    let command = cli.find_subcommand_mut(sub);
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
        "experts" => "--experts",
        "experts_per_token" => "--experts-per-token",
        "shared_experts" => "--shared-experts",
        "expert_ffn" => "--expert-ffn",
        "dense_layers" => "--dense-layers",
        "q_lora_rank" => "--q-lora-rank",
        "kv_lora_rank" => "--kv-lora-rank",
        "qk_nope_head_dim" => "--qk-nope-head-dim",
        "qk_rope_head_dim" => "--qk-rope-head-dim",
        "v_head_dim" => "--v-head-dim",
        "sliding_window" => "--sliding-window",
        "global_every" => "--global-every",
        "expert_parallel" => "--expert-parallel",
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
        WorkloadError::Unsupported { reason, .. } => reason.to_string(),
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

fn optimizer(arg: Option<OptimizerArg>, default: Optimizer) -> Optimizer {
    match arg {
        Some(OptimizerArg::Adamw8bit) => Optimizer::Adamw8bit,
        Some(OptimizerArg::Adamw) => Optimizer::Adamw,
        None => default,
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
                moe: None,
                mla: None,
                sliding_window: None,
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
    arch.moe = moe_shape(a, arch.moe);
    arch.mla = mla_shape(a, arch.mla);
    arch.sliding_window = sliding_window(a, arch.sliding_window);
    let changed = [
        a.layers,
        a.hidden,
        a.heads,
        a.kv_heads,
        a.head_dim,
        a.ffn,
        a.vocab,
        a.experts,
        a.experts_per_token,
        a.shared_experts,
        a.expert_ffn,
        a.dense_layers,
        a.q_lora_rank,
        a.kv_lora_rank,
        a.qk_nope_head_dim,
        a.qk_rope_head_dim,
        a.v_head_dim,
        a.sliding_window,
        a.global_every,
    ]
    .iter()
    .any(Option::is_some)
        || a.tied_embeddings
        || a.qkv_bias
        || a.no_sliding_window;
    if !custom && changed {
        arch.name = format!("{} (modified)", arch.name);
    }
    arch
}

/// Refuses a new feature's shape that lacks flags it needs.
fn require(what: &str, flags: &[(&str, bool)]) {
    let missing: Vec<&str> = flags
        .iter()
        .filter(|(_, given)| !given)
        .map(|(f, _)| *f)
        .collect();
    if !missing.is_empty() {
        usage(
            "llm",
            format!(
                "{what} needs {}; missing {}",
                flags.iter().map(|(f, _)| *f).collect::<Vec<_>>().join(", "),
                missing.join(", ")
            ),
        );
    }
}

/// One flag of a shape: its name, its value if given, whether a new shape needs it, and the
/// field it sets.
type ShapeFlag<S> = (&'static str, Option<u32>, bool, fn(&mut S) -> &mut u32);

/// The preset's shape with the flags' changes, or a new one from the flags (refused when a flag
/// a new shape needs is missing); the preset's, or none, when no flag is given.
fn overlay<S: Copy>(what: &str, preset: Option<S>, empty: S, flags: &[ShapeFlag<S>]) -> Option<S> {
    if flags.iter().all(|(_, value, _, _)| value.is_none()) {
        return preset;
    }
    if preset.is_none() {
        let needed: Vec<(&str, bool)> = flags
            .iter()
            .filter(|(_, _, needed, _)| *needed)
            .map(|(flag, value, _, _)| (*flag, value.is_some()))
            .collect();
        require(what, &needed);
    }
    let mut shape = preset.unwrap_or(empty);
    for (_, value, _, field) in flags {
        if let Some(v) = value {
            *field(&mut shape) = *v;
        }
    }
    Some(shape)
}

/// The preset's experts with the flags' changes, or new ones from the flags.
fn moe_shape(a: &LlmArgs, preset: Option<MoeShape>) -> Option<MoeShape> {
    let empty = MoeShape {
        experts: 0,
        experts_per_token: 0,
        shared_experts: 0,
        expert_ffn: 0,
        dense_layers: 0,
    };
    overlay(
        "a mixture-of-experts shape",
        preset,
        empty,
        &[
            ("--experts", a.experts, true, |m| &mut m.experts),
            ("--experts-per-token", a.experts_per_token, true, |m| {
                &mut m.experts_per_token
            }),
            ("--shared-experts", a.shared_experts, false, |m| {
                &mut m.shared_experts
            }),
            ("--expert-ffn", a.expert_ffn, true, |m| &mut m.expert_ffn),
            ("--dense-layers", a.dense_layers, false, |m| {
                &mut m.dense_layers
            }),
        ],
    )
}

/// The preset's latent attention with the flags' changes, or a new one from the flags.
fn mla_shape(a: &LlmArgs, preset: Option<MlaShape>) -> Option<MlaShape> {
    let empty = MlaShape {
        q_lora_rank: 0,
        kv_lora_rank: 0,
        qk_nope_head_dim: 0,
        qk_rope_head_dim: 0,
        v_head_dim: 0,
    };
    overlay(
        "latent attention (MLA)",
        preset,
        empty,
        &[
            ("--q-lora-rank", a.q_lora_rank, false, |m| {
                &mut m.q_lora_rank
            }),
            ("--kv-lora-rank", a.kv_lora_rank, true, |m| {
                &mut m.kv_lora_rank
            }),
            ("--qk-nope-head-dim", a.qk_nope_head_dim, true, |m| {
                &mut m.qk_nope_head_dim
            }),
            ("--qk-rope-head-dim", a.qk_rope_head_dim, true, |m| {
                &mut m.qk_rope_head_dim
            }),
            ("--v-head-dim", a.v_head_dim, true, |m| &mut m.v_head_dim),
        ],
    )
}

/// The preset's sliding window with the flags' changes, a new one, or none.
fn sliding_window(a: &LlmArgs, preset: Option<SlidingWindow>) -> Option<SlidingWindow> {
    if a.no_sliding_window {
        return None;
    }
    match (preset, a.sliding_window, a.global_every) {
        (p, None, None) => p,
        (None, None, Some(_)) => usage(
            "llm",
            "--global-every needs --sliding-window (this model has no sliding window)".to_owned(),
        ),
        (p, window, global_every) => {
            let base = p.unwrap_or(SlidingWindow {
                window: 0,
                global_every: 0,
            });
            Some(SlidingWindow {
                window: window.unwrap_or(base.window),
                global_every: global_every.unwrap_or(base.global_every),
            })
        }
    }
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
            let d = LlmInference::default();
            LlmTask::Inference(LlmInference {
                context_tokens: a.context.unwrap_or(d.context_tokens),
                concurrency: a.concurrency.unwrap_or(d.concurrency),
                kv_cache: match a.kv_cache {
                    Some(KvArg::Int4) => KvPrecision::Int4,
                    Some(KvArg::Fp8) => KvPrecision::Fp8,
                    Some(KvArg::Fp16) => KvPrecision::Fp16,
                    None => d.kv_cache,
                },
                generated_tokens: a.generate_tokens.unwrap_or(d.generated_tokens),
                mbu: a.mbu,
            })
        }
        LlmTaskArg::Full | LlmTaskArg::Lora | LlmTaskArg::Qlora => {
            only_for("llm", "--task inference", &inference_flags);
            let method = match (a.task, DEFAULT_LORA) {
                (LlmTaskArg::Full, _) => {
                    only_for("llm", "--task lora or qlora", &lora_flags);
                    TrainingMethod::Full
                }
                (_, TrainingMethod::Lora { rank, targets }) => TrainingMethod::Lora {
                    rank: a.rank.unwrap_or(rank),
                    targets: match a.targets {
                        Some(TargetsArg::Qv) => LoraTargets::Qv,
                        Some(TargetsArg::Attention) => LoraTargets::Attention,
                        Some(TargetsArg::Mlp) => LoraTargets::Mlp,
                        Some(TargetsArg::All) => LoraTargets::All,
                        None => targets,
                    },
                },
                (_, full) => full,
            };
            let d = LlmTraining::with_defaults(method);
            LlmTask::Training(LlmTraining {
                sequence_tokens: a.seq_len.unwrap_or(d.sequence_tokens),
                micro_batch: a.micro_batch.unwrap_or(d.micro_batch),
                checkpointing: !a.no_checkpointing,
                optimizer: optimizer(a.optimizer, d.optimizer),
                zero: a.zero.map_or(d.zero, |z| ZeroStage::ALL[usize::from(z)]),
                training_tokens: a.train_tokens.unwrap_or(d.training_tokens),
                mfu: a.mfu,
                ..d
            })
        }
    };
    let weights = a
        .weights
        .unwrap_or_else(|| Precision::default_for(a.task == LlmTaskArg::Qlora));
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
        expert_parallel: a.expert_parallel,
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
            let d = Generation::default();
            DiffusionTask::Generate(Generation {
                controlnets: a.controlnets.unwrap_or(d.controlnets),
                steps: a.steps.unwrap_or(d.steps),
                images: a.images.unwrap_or(d.images),
                vae_slicing: a.vae_slicing,
                vae_tiling: a.vae_tiling,
                cpu_offload: a.cpu_offload,
            })
        }
        SdTaskArg::Lora => {
            only_for("sd", "--task generate", &generation_flags);
            let d = SdLoraTraining::default();
            DiffusionTask::LoraTraining(SdLoraTraining {
                rank: a.rank.unwrap_or(d.rank),
                checkpointing: !a.no_checkpointing,
                optimizer: optimizer(a.optimizer, d.optimizer),
                steps: a.train_steps.unwrap_or(d.steps),
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

fn report(sub: &str, workload: &Workload, output: &EstimateOutput) -> Result<()> {
    let gpus = match output.gpu.as_deref() {
        None => Gpus::None,
        Some("all") => Gpus::All,
        Some(name) => {
            Gpus::One(find_gpu(name).unwrap_or_else(|| usage(sub, format!("unknown GPU {name:?}"))))
        }
    };
    let report = estimate_report(workload, gpus, default_catalog(), "default")
        .unwrap_or_else(|e| refuse(sub, &e));
    let text = match output.format {
        Format::Json => json(&report)?,
        Format::Table => table::report(&report),
    };
    print(&text)
}

fn presets_command(a: &PresetsArgs) -> Result<()> {
    let list = presets();
    let text = match a.format {
        Format::Json => json(&list)?,
        Format::Table => table::presets(&list),
    };
    print(&text)
}

fn json<T: serde::Serialize>(value: &T) -> Result<String> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

fn print(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "experts",
            "experts_per_token",
            "shared_experts",
            "expert_ffn",
            "dense_layers",
            "q_lora_rank",
            "kv_lora_rank",
            "qk_nope_head_dim",
            "qk_rope_head_dim",
            "v_head_dim",
            "sliding_window",
            "global_every",
            "expert_parallel",
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
