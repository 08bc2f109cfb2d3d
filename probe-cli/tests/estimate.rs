//! `gpufare estimate`, run as a user would: JSON values, the table, the help text, exit codes.

use std::process::{Command, Output};

use gpufare_core::hardware::gpu::gpu_specs;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::workload::estimate::{Workload, estimate};
use gpufare_core::workload::llm::arch::{LoraTargets, Precision, find_llm_preset, llm_presets};
use gpufare_core::workload::llm::setup::{
    LlmTask, LlmTraining, LlmWorkload, Optimizer, TrainingMethod, ZeroStage,
};
use serde_json::Value;

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = gpufare(&all);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

const BREAKDOWN_KEYS: [&str; 6] = [
    "weights",
    "gradients",
    "optimizer",
    "activations",
    "kv_cache",
    "overhead",
];

#[test]
fn json_has_the_total_and_the_breakdown_of_the_core_estimate() {
    let v = json(&[
        "estimate",
        "llm",
        "--model",
        "llama-2-7b",
        "--task",
        "qlora",
    ]);
    let expected = estimate(&Workload::Llm(LlmWorkload {
        arch: find_llm_preset("llama-2-7b").unwrap().clone(),
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
            training_tokens: 0.0,
            mfu: None,
        }),
    }))
    .unwrap();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1.0);
    assert!(close(f(&v["vram_gib"]), expected.vram_gib));
    let breakdown = v["breakdown"].as_object().unwrap();
    let keys: Vec<&str> = breakdown.keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 6);
    for key in BREAKDOWN_KEYS {
        assert!(breakdown.contains_key(key), "breakdown.{key}");
    }
    let sum: f64 = breakdown.values().map(f).sum();
    assert!(
        (sum - f(&v["vram_gib"])).abs() < 1e-9,
        "the total is the sum"
    );
    assert!(close(
        f(&breakdown["weights"]),
        expected.breakdown.weights_gib
    ));
    assert_eq!(f(&breakdown["kv_cache"]), 0.0);
    assert_eq!(v["breakdown_unit"], "GiB");
    assert_eq!(v["kind"], "fine_tune_qlora");
    // A 7B QLoRA needs about 6.3 GiB: it fits a 12 GB slice, and even an 8 GB one.
    assert!((6.0..6.6).contains(&f(&v["vram_gib"])), "{}", v["vram_gib"]);

    let fit = &v["fit"];
    let offers = default_catalog().offers.len() as f64;
    assert_eq!(f(&fit["offers"]), offers);
    let counted = f(&fit["fits"]) + f(&fit["tight"]) + f(&fit["oom"]) + f(&fit["too_few_gpus"]);
    assert_eq!(counted, offers);
    assert_eq!(fit["smallest_slice"]["fit"], "fits");
    assert_eq!(f(&fit["smallest_slice"]["vram_gib"]), 8.0);
    assert_ne!(fit["smallest_slice"]["tenancy"], "dedicated");
    assert_eq!(fit["smallest_dedicated"]["tenancy"], "dedicated");
    assert_eq!(f(&fit["smallest_dedicated"]["vram_gib"]), 16.0);
    // Without --gpu: no run time, task fields on the default reference GPU.
    assert_eq!(v["run_time"].as_array().unwrap().len(), 0);
    assert_eq!(v["task"]["reference_gpu"], "A100-80GB");
    assert!(close(f(&v["task"]["vram_gib"]), f(&v["vram_gib"])));
    assert!(!v["assumptions"].as_array().unwrap().is_empty());
}

#[test]
fn sdxl_batch_4_at_1024_and_its_run_time() {
    let v = json(&[
        "estimate", "sd", "--model", "sdxl", "--batch", "4", "--width", "1024", "--height", "1024",
        "--images", "1000", "--gpu", "RTX4090",
    ]);
    // 21.72 GiB allocated in the HF blog, plus the 0.5 GiB CUDA context.
    let total = f(&v["vram_gib"]);
    assert!(((total - 0.5) / 21.72 - 1.0).abs() < 0.05, "{total}");
    assert!(f(&v["breakdown"]["activations"]) > f(&v["breakdown"]["weights"]));
    let times = v["run_time"].as_array().unwrap();
    assert_eq!(times.len(), 1);
    // Measured 2.19 it/s at batch 4 on an RTX 4090, 30 steps: 1051 images an hour.
    let iph = f(&times[0]["images_per_hour"]);
    assert!((iph - 2.19 * 4.0 / 30.0 * 3600.0).abs() < 1e-6, "{iph}");
    assert!((f(&times[0]["hours"]) - 1000.0 / iph).abs() < 1e-9);
    assert_eq!(v["task"]["reference_gpu"], "RTX4090");
    assert_eq!(v["task"]["kind"], "image_generation");
    assert_eq!(f(&v["task"]["work_hours"]), f(&times[0]["gpu_hours"]));
    assert_eq!(v["work"]["unit"], "images");
}

#[test]
fn gpu_all_covers_the_spec_table() {
    let v = json(&[
        "estimate",
        "llm",
        "--model",
        "llama-3-8b",
        "--context",
        "8192",
        "--generate-tokens",
        "1e6",
        "--gpu",
        "all",
    ]);
    let times = v["run_time"].as_array().unwrap();
    assert_eq!(times.len(), gpu_specs().len());
    for t in times {
        assert_eq!(t["bound"], "memory", "{t}");
        assert!(f(&t["tokens_per_second"]) > 0.0);
    }
    // A full fine-tune on 8 GPUs needs whole cards: slices are never proposed.
    let v = json(&[
        "estimate",
        "llm",
        "--model",
        "llama-2-7b",
        "--task",
        "full",
        "--gpus",
        "8",
        "--zero",
        "3",
    ]);
    assert_eq!(v["fit"]["smallest_slice"], Value::Null);
    assert_eq!(v["gpus"], 8);
    assert!(f(&v["fit"]["too_few_gpus"]) > 0.0);
}

#[test]
fn the_table_is_aligned_and_has_units() {
    let out = gpufare(&[
        "estimate",
        "llm",
        "--model",
        "llama-2-7b",
        "--task",
        "qlora",
        "--gpu",
        "A10",
        "--train-tokens",
        "2e7",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("VRAM need: 6.31 GiB per GPU"), "{text}");
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| {
            let word = l.split_whitespace().next().unwrap_or("");
            BREAKDOWN_KEYS.contains(&word) || word == "total" || word == "component"
        })
        .collect();
    assert_eq!(rows.len(), 8, "{text}");
    assert!(
        rows.iter().all(|r| r.len() == rows[0].len()),
        "aligned: {rows:#?}"
    );
    assert!(rows[0].trim_end().ends_with("GiB"));
    assert!(
        text.contains(&format!(
            "Fit against the default catalog ({} offers)",
            gpufare_core::offers::default::default_catalog()
                .offers
                .len()
        )),
        "{text}"
    );
    assert!(text.contains("smallest slice"), "{text}");
    assert!(text.contains("tokens/s"), "{text}");
    assert!(
        text.contains("Run time for 20,000,000 training tokens"),
        "{text}"
    );
    assert!(text.contains("Assumptions:"), "{text}");
    // The run-time table's rows line up with its header.
    let header = text
        .lines()
        .position(|l| l.trim_start().starts_with("gpu "))
        .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let rate_end = lines[header].find("rate").unwrap() + "rate".len();
    assert!(
        lines[header + 1][..rate_end].ends_with("tokens/s"),
        "{}",
        lines[header + 1]
    );
}

#[test]
fn help_documents_every_flag() {
    let llm_flags = [
        "--model",
        "--task",
        "--weights",
        "--gpus",
        "--context",
        "--concurrency",
        "--kv-cache",
        "--generate-tokens",
        "--mbu",
        "--seq-len",
        "--micro-batch",
        "--no-checkpointing",
        "--rank",
        "--targets",
        "--optimizer",
        "--zero",
        "--train-tokens",
        "--mfu",
        "--layers",
        "--hidden",
        "--heads",
        "--kv-heads",
        "--head-dim",
        "--ffn",
        "--vocab",
        "--tied-embeddings",
        "--qkv-bias",
        "--expert-parallel",
        "--experts",
        "--experts-per-token",
        "--shared-experts",
        "--expert-ffn",
        "--dense-layers",
        "--q-lora-rank",
        "--kv-lora-rank",
        "--qk-nope-head-dim",
        "--qk-rope-head-dim",
        "--v-head-dim",
        "--sliding-window",
        "--global-every",
        "--no-sliding-window",
        "--format",
        "--gpu",
    ];
    let sd_flags = [
        "--model",
        "--task",
        "--width",
        "--height",
        "--batch",
        "--weights",
        "--controlnets",
        "--steps",
        "--images",
        "--vae-slicing",
        "--vae-tiling",
        "--cpu-offload",
        "--rank",
        "--no-checkpointing",
        "--optimizer",
        "--train-steps",
        "--mfu",
        "--format",
        "--gpu",
    ];
    for (sub, flags) in [
        ("llm", &llm_flags[..]),
        ("sd", &sd_flags[..]),
        ("presets", &["--format"][..]),
    ] {
        let out = gpufare(&["estimate", sub, "--help"]);
        assert!(out.status.success());
        let help = stdout(&out);
        // Every option line of the help is one of ours (plus --help and --version), and each of
        // ours has a description on its line or the next.
        let lines: Vec<&str> = help.lines().collect();
        let mut documented = vec![];
        for (i, line) in lines.iter().enumerate() {
            let trimmed = line.trim_start();
            // Option lines are indented by 2 or 6 spaces, descriptions by 10.
            if line.len() - trimmed.len() > 6 {
                continue;
            }
            let rest = trimmed
                .strip_prefix("-h, ")
                .or_else(|| trimmed.strip_prefix("-V, "))
                .unwrap_or(trimmed);
            if !rest.starts_with("--") {
                continue;
            }
            let name = rest.split([' ', '=', '\t']).next().unwrap();
            let has_text = rest
                .split_once("  ")
                .is_some_and(|(_, d)| !d.trim().is_empty())
                || lines
                    .get(i + 1)
                    .is_some_and(|n| !n.trim().is_empty() && !n.trim_start().starts_with('-'));
            assert!(has_text, "{sub} {name} has no description");
            documented.push(name.to_owned());
        }
        for flag in flags {
            assert!(
                documented.iter().any(|d| d == flag),
                "{sub} --help lacks {flag}:\n{help}"
            );
        }
        for d in &documented {
            assert!(
                flags.contains(&d.as_str()) || d == "--help" || d == "--version",
                "{sub}: {d} is not in this test's list"
            );
        }
    }
    let out = gpufare(&["estimate", "--help"]);
    let help = stdout(&out);
    assert!(
        help.contains("Examples:") && help.contains("gpufare estimate sd --model sdxl"),
        "{help}"
    );
}

#[test]
fn presets_lists_models_and_gpus() {
    let v = json(&["estimate", "presets"]);
    assert_eq!(v["llm"].as_array().unwrap().len(), llm_presets().len());
    assert_eq!(v["diffusion"].as_array().unwrap().len(), 3);
    assert_eq!(v["gpus"].as_array().unwrap().len(), gpu_specs().len());
    let l2 = v["llm"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "llama-2-7b")
        .unwrap();
    assert_eq!(f(&l2["kv_cache_kib_per_token"]), 512.0);
    let table = stdout(&gpufare(&["estimate", "presets"]));
    assert!(
        table.contains("qwen2.5-72b") && table.contains("flux-dev") && table.contains("H100-SXM")
    );
}

/// The ten presets of issue 21 and their ids, exactly.
const NEW_PRESETS: [&str; 10] = [
    "mixtral-8x7b",
    "qwen3-30b-a3b",
    "qwen3-235b-a22b",
    "deepseek-v3",
    "qwen3-8b",
    "qwen3-32b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "gemma-3-27b",
    "glm-4.5-air",
];

#[test]
fn every_new_preset_estimates_with_the_breakdown_and_is_listed_with_active_parameters() {
    let list = json(&["estimate", "presets"]);
    let llm = list["llm"].as_array().unwrap();
    for id in NEW_PRESETS {
        let v = json(&["estimate", "llm", "--model", id]);
        let sum: f64 = BREAKDOWN_KEYS.iter().map(|k| f(&v["breakdown"][*k])).sum();
        assert!(
            (sum - f(&v["vram_gib"])).abs() < 1e-9,
            "{id}: the total is the sum"
        );
        assert!(f(&v["breakdown"]["kv_cache"]) > 0.0, "{id}");
        assert!(f(&v["active_parameters"]) <= f(&v["parameters"]), "{id}");
        let row = llm
            .iter()
            .find(|p| p["id"] == id)
            .unwrap_or_else(|| panic!("{id} listed"));
        assert_eq!(f(&row["parameters"]), f(&v["parameters"]), "{id}");
        assert_eq!(
            f(&row["active_parameters"]),
            f(&v["active_parameters"]),
            "{id}"
        );
        // The training path too: QLoRA of each.
        let q = json(&["estimate", "llm", "--model", id, "--task", "qlora"]);
        assert!(f(&q["trainable_parameters"]) > 0.0, "{id}");
    }
    let moe = llm.iter().find(|p| p["id"] == "deepseek-v3").unwrap();
    assert!(f(&moe["active_parameters"]) < 0.06 * f(&moe["parameters"]));
    assert_eq!(moe["mla"]["kv_lora_rank"], 512);
    assert_eq!(moe["moe"]["experts"], 256);
    let gemma = llm.iter().find(|p| p["id"] == "gemma-3-27b").unwrap();
    assert_eq!(gemma["sliding_window"]["window"], 1024);
    let table = stdout(&gpufare(&["estimate", "presets"]));
    for id in NEW_PRESETS {
        assert!(table.contains(id), "{id} in the table");
    }
    assert!(
        table.contains("active") && table.contains("MoE 8 of 256 experts"),
        "{table}"
    );
    assert!(table.contains("window 1024 on 52 of 62 layers"), "{table}");
}

#[test]
fn the_new_flags_reach_the_estimate() {
    let vram = |args: &[&str]| {
        let mut all = vec!["estimate", "llm"];
        all.extend_from_slice(args);
        f(&json(&all)["vram_gib"])
    };
    let kv = |args: &[&str]| {
        let mut all = vec!["estimate", "llm"];
        all.extend_from_slice(args);
        f(&json(&all)["breakdown"]["kv_cache"])
    };
    // KV precision: int4 < fp8 < fp16.
    let g = ["--model", "gemma-3-27b", "--context", "131072"];
    let (fp16, fp8, int4) = (
        kv(&[&g[..], &["--kv-cache", "fp16"]].concat()),
        kv(&[&g[..], &["--kv-cache", "fp8"]].concat()),
        kv(&[&g[..], &["--kv-cache", "int4"]].concat()),
    );
    assert!(int4 < fp8 && fp8 < fp16, "{int4} {fp8} {fp16}");
    // The sliding window: dropping it multiplies Gemma 3's cache at 128K.
    let full = kv(&[&g[..], &["--no-sliding-window"]].concat());
    assert!(full > 4.0 * fp16, "{full} vs {fp16}");
    assert!(kv(&[&g[..], &["--sliding-window", "4096"]].concat()) > fp16);
    // LoRA targets: every expert's matrices, or attention only.
    let m = ["--model", "qwen3-30b-a3b", "--task", "qlora"];
    let attention = vram(&[&m[..], &["--targets", "attention"]].concat());
    let experts = vram(&[&m[..], &["--targets", "experts"]].concat());
    let all = vram(&[&m[..], &["--targets", "all"]].concat());
    assert!(
        attention < experts && experts < all,
        "{attention} {experts} {all}"
    );
    // Expert parallelism: 8 Mixtral experts on 3 GPUs, 3 whole ones each, need more than 8/3.
    let tp = vram(&["--model", "mixtral-8x7b", "--gpus", "3"]);
    let ep = vram(&[
        "--model",
        "mixtral-8x7b",
        "--gpus",
        "3",
        "--expert-parallel",
    ]);
    assert!(ep > tp, "{ep} vs {tp}");
    // More experts per token never need less.
    assert!(
        vram(&["--model", "mixtral-8x7b", "--experts-per-token", "4"])
            >= vram(&["--model", "mixtral-8x7b"])
    );
    // A custom mixture of experts.
    let v = json(&[
        "estimate",
        "llm",
        "--layers",
        "4",
        "--hidden",
        "512",
        "--heads",
        "8",
        "--ffn",
        "1024",
        "--vocab",
        "1000",
        "--experts",
        "16",
        "--experts-per-token",
        "2",
        "--expert-ffn",
        "256",
    ]);
    let expert = 3.0 * 512.0 * 256.0;
    assert_eq!(
        f(&v["parameters"]) - f(&v["active_parameters"]),
        4.0 * 14.0 * expert
    );
    // A model that fits no single card names the smallest machine that holds it.
    let v = json(&[
        "estimate",
        "llm",
        "--model",
        "deepseek-v3",
        "--weights",
        "fp8",
    ]);
    let machine = &v["fit"]["smallest_machine"];
    assert_eq!(machine["gpus"], 8, "{machine}");
    assert_eq!(machine["offer"]["fit"], "fits", "{machine}");
    let text = stdout(&gpufare(&[
        "estimate",
        "llm",
        "--model",
        "deepseek-v3",
        "--weights",
        "fp8",
    ]));
    assert!(
        text.contains("smallest machine") && text.contains("over 8 GPUs"),
        "{text}"
    );
    assert!(text.contains("37.55 B active per token"), "{text}");
}

#[test]
fn bad_input_exits_2_and_names_the_flag() {
    let rows: [(&str, &[&str], &str); 20] = [
        ("unknown preset", &["llm", "--model", "llama-9"], "--model"),
        (
            "expert parallelism on a dense model",
            &[
                "llm",
                "--model",
                "qwen3-8b",
                "--gpus",
                "2",
                "--expert-parallel",
            ],
            "--expert-parallel",
        ),
        (
            "more experts per token than experts",
            &["llm", "--model", "mixtral-8x7b", "--experts-per-token", "9"],
            "--experts-per-token",
        ),
        (
            "an incomplete mixture-of-experts shape",
            &["llm", "--model", "qwen3-8b", "--experts", "8"],
            "--experts-per-token",
        ),
        (
            "an incomplete latent attention",
            &["llm", "--model", "qwen3-8b", "--kv-lora-rank", "512"],
            "--qk-rope-head-dim",
        ),
        (
            "a zero window",
            &["llm", "--model", "gemma-3-27b", "--sliding-window", "0"],
            "--sliding-window",
        ),
        (
            "global layers without a window",
            &["llm", "--model", "qwen3-8b", "--global-every", "6"],
            "--global-every",
        ),
        (
            "an unknown KV precision",
            &["llm", "--model", "qwen3-8b", "--kv-cache", "q3"],
            "--kv-cache",
        ),
        (
            "LoRA targets on inference",
            &["llm", "--model", "qwen3-30b-a3b", "--targets", "experts"],
            "--targets",
        ),
        (
            "zero context",
            &["llm", "--model", "llama-3-8b", "--context", "0"],
            "--context",
        ),
        (
            "not a number",
            &["llm", "--model", "llama-3-8b", "--context", "many"],
            "--context",
        ),
        (
            "NaN work",
            &["llm", "--model", "llama-3-8b", "--generate-tokens", "nan"],
            "--generate-tokens",
        ),
        (
            "efficiency above 1",
            &["llm", "--model", "llama-3-8b", "--mbu", "1.5"],
            "--mbu",
        ),
        (
            "ZeRO stage 4",
            &[
                "llm",
                "--model",
                "llama-3-8b",
                "--task",
                "full",
                "--zero",
                "4",
            ],
            "--zero",
        ),
        (
            "training flag on inference",
            &["llm", "--model", "llama-3-8b", "--seq-len", "512"],
            "--seq-len",
        ),
        (
            "full fine-tune of 4-bit weights",
            &[
                "llm",
                "--model",
                "llama-3-8b",
                "--task",
                "full",
                "--weights",
                "nf4",
            ],
            "--weights",
        ),
        (
            "custom shape incomplete",
            &["llm", "--layers", "4"],
            "--hidden",
        ),
        (
            "width not a multiple of 8",
            &["sd", "--model", "sdxl", "--width", "1001"],
            "--width",
        ),
        (
            "unknown GPU",
            &["sd", "--model", "sdxl", "--gpu", "RTX9090"],
            "--gpu",
        ),
        (
            "ControlNet on Flux",
            &["sd", "--model", "flux-dev", "--controlnets", "1"],
            "--controlnets",
        ),
    ];
    for (name, args, flag) in rows {
        let mut all = vec!["estimate"];
        all.extend_from_slice(args);
        let out = gpufare(&all);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        assert!(stderr(&out).contains(flag), "{name}: {}", stderr(&out));
    }
}
