//! `cargo xtask fuzz [SECONDS]`: every fuzz target under `fuzz/` (cargo fuzz, libFuzzer), seeded
//! from the repository's examples and fixtures. Without SECONDS, the fixed-seed pass the test
//! command runs: [`FIXED_RUNS`] inputs over all targets, the same inputs on every machine.
//!
//! The targets are built once, without a sanitizer (the model has no `unsafe`) and with debug
//! assertions, so an integer overflow is a crash too. Each input may take at most
//! [`TIMEOUT_SECONDS`] and [`RSS_LIMIT_MB`]; past either, libFuzzer reports a crash. Crashing
//! inputs are kept under `target/fuzz-artifacts/<target>/`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use gpufare_core::export::budget::{budget, budget_json};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::plan;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::plan::share::Share;
use gpufare_core::scenario::document::Scenario;
use gpufare_core::scenario::share::encode_share;
use gpufare_core::task::presets::{PRESET_IDS, preset};

use crate::run_cmd;

/// The fuzz targets, one per parser (and `plan` on parsed input).
pub const TARGETS: [&str; 17] = [
    "task",
    "profile",
    "catalog",
    "scenario",
    "budget",
    "trace",
    "queue_trace",
    "traffic",
    "plan",
    "numbers",
    "fleet",
    "rules",
    "feed_azure",
    "feed_aws",
    "feed_alibaba",
    "feed_gpuhunt",
    "text",
];

/// Inputs the fixed-seed pass runs, over all targets together.
pub const FIXED_RUNS: u64 = 100_000;

/// The longest one input may run, seconds: a hang past it is a crash.
pub const TIMEOUT_SECONDS: u32 = 10;

/// The most memory the fuzzing process may hold, MB.
pub const RSS_LIMIT_MB: u32 = 2048;

/// The longest input libFuzzer builds, bytes (longer seeds are cut to it).
const MAX_LEN: u32 = 65_536;

/// How long to fuzz.
pub enum Budget {
    /// `runs` inputs in all, from a fixed seed.
    Runs(u64),
    /// `seconds` per target, from a random seed.
    Seconds(u64),
}

/// Builds the targets, seeds their corpora and runs each; fails on the first crash or hang.
pub fn run(root: &Path, budget: Budget) -> Result<()> {
    prerequisites()?;
    let fuzz = root.join("fuzz");
    run_cmd(Command::new("cargo").current_dir(&fuzz).args([
        "+nightly",
        "fuzz",
        "build",
        "--sanitizer",
        "none",
        "--debug-assertions",
    ]))?;
    let bin_dir = fuzz.join("target/x86_64-unknown-linux-gnu/release");
    let mut rows = Vec::new();
    for (i, target) in TARGETS.iter().enumerate() {
        let corpus = root.join("target/fuzz-corpus").join(target);
        let artifacts = root.join("target/fuzz-artifacts").join(target);
        if matches!(budget, Budget::Runs(_)) && corpus.exists() {
            // The fixed pass starts from the seeds alone, so it runs the same inputs every time.
            fs::remove_dir_all(&corpus)?;
        }
        fs::create_dir_all(&corpus)?;
        fs::create_dir_all(&artifacts)?;
        seed(root, target, &corpus)?;
        let mut cmd = Command::new(bin_dir.join(target));
        cmd.arg(&corpus)
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .arg(format!("-timeout={TIMEOUT_SECONDS}"))
            .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
            .arg(format!("-max_len={MAX_LEN}"))
            .arg("-print_final_stats=1");
        match budget {
            Budget::Runs(total) => {
                let per = total.div_ceil(TARGETS.len() as u64);
                cmd.arg(format!("-runs={per}"))
                    .arg(format!("-seed={}", i + 1));
            }
            Budget::Seconds(s) => {
                cmd.arg(format!("-max_total_time={s}"));
            }
        }
        eprintln!("==> fuzz {target}");
        let started = Instant::now();
        let out = cmd
            .output()
            .with_context(|| format!("cannot start the fuzz target {target}"))?;
        let seconds = started.elapsed().as_secs_f64();
        let log = String::from_utf8_lossy(&out.stderr);
        let runs = stat(&log, "stat::number_of_executed_units:").unwrap_or(0);
        if !out.status.success() {
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            bail!(
                "fuzz target {target} found a crash or hang after {runs} inputs (input kept in {}):\n{}",
                artifacts.display(),
                tail.join("\n")
            );
        }
        rows.push((*target, runs, seconds));
    }
    println!(
        "{:<12} {:>12} {:>10} {:>8}",
        "target", "inputs", "seconds", "crashes"
    );
    let (mut all, mut time) = (0, 0.0);
    for (target, runs, seconds) in &rows {
        println!("{target:<12} {runs:>12} {seconds:>10.1} {:>8}", 0);
        all += runs;
        time += seconds;
    }
    println!("{:<12} {all:>12} {time:>10.1} {:>8}", "all", 0);
    if let Budget::Runs(total) = budget
        && all < total
    {
        bail!("the fuzz pass ran {all} inputs, fewer than the {total} asked for");
    }
    Ok(())
}

/// A figure from libFuzzer's final statistics.
fn stat(log: &str, key: &str) -> Option<u64> {
    log.lines()
        .rev()
        .find_map(|l| l.strip_prefix(key).and_then(|v| v.trim().parse().ok()))
}

/// Nightly Rust and cargo-fuzz, installed when missing.
fn prerequisites() -> Result<()> {
    let has_nightly = Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_nightly {
        run_cmd(Command::new("rustup").args([
            "toolchain",
            "install",
            "nightly",
            "--profile",
            "minimal",
        ]))?;
    }
    let has_fuzz = Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_fuzz {
        run_cmd(Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]))?;
    }
    Ok(())
}

/// Writes the target's seeds into its corpus: the repository's own files of that kind, and
/// documents made with gpufare-core where the repository keeps none.
fn seed(root: &Path, target: &str, corpus: &Path) -> Result<()> {
    let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
    let files = |dir: &str, ext: &str| -> Result<Vec<PathBuf>> {
        let mut found: Vec<PathBuf> = fs::read_dir(root.join(dir))
            .with_context(|| format!("cannot list {dir}"))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        found.sort();
        Ok(found)
    };
    let read = |p: &Path| fs::read(p).with_context(|| format!("cannot read {}", p.display()));
    let tasks = files("examples", "json")?;
    match target {
        "task" => {
            for p in &tasks {
                seeds.push((name(p), read(p)?));
            }
            // A task that says where its user is and what they can buy, so the fuzzer starts
            // from the location, market, provider, personal-data and measured round-trip fields.
            let mut task = preset("inference_api").context("preset")?;
            task.reach = gpufare_core::task::Reach {
                location: Some("shanghai".into()),
                markets: gpufare_core::offers::places::Markets::MainlandChina,
                providers_only: vec![],
                providers_excluded: vec!["AutoDL".into()],
                personal_data: true,
                measured_rtt: vec![gpufare_core::task::MeasuredRtt {
                    place: "beijing".into(),
                    rtt_ms: 28.5,
                    target: "ecs.cn-beijing.aliyuncs.com:443".into(),
                }],
            };
            seeds.push(("reach.json".into(), serde_json::to_vec_pretty(&task)?));
        }
        "profile" => {
            for p in files("tests/profiles", "json")? {
                seeds.push((name(&p), read(&p)?));
            }
        }
        "catalog" => {
            // The first byte picks the file name: 0 JSON, 1 our CSV, 2 SkyPilot.
            seeds.push((
                "catalog.csv".into(),
                prefixed(1, &read(&root.join("core/data/catalog.csv"))?),
            ));
            for p in files("tests/fixtures/skypilot", "csv")? {
                seeds.push((name(&p), prefixed(2, &read(&p)?)));
            }
            let json = gpufare_core::offers::catalog::catalog_to_json(default_catalog());
            seeds.push(("catalog.json".into(), prefixed(0, json.as_bytes())));
        }
        "scenario" => {
            for id in PRESET_IDS {
                let task = preset(id).context("preset")?;
                let scenario = Scenario::new(task, Some(id));
                seeds.push((format!("{id}.json"), serde_json::to_vec(&scenario)?));
                seeds.push((format!("{id}.link"), encode_share(&scenario).into_bytes()));
            }
            // A scenario and what helper plan workers answer for it, after a line of `---`: the
            // offers kept to one provider's few, so that the seed stays under MAX_LEN.
            let task = preset("code_check").context("preset")?;
            let mut scenario = Scenario::new(task, Some("code_check"));
            scenario.settings.trials = 20;
            scenario.filter.text = "vast".into();
            let shares = (0..2)
                .map(|index| scenario.price_share(default_catalog(), Share { index, count: 2 }))
                .collect::<Result<Vec<_>, _>>()?;
            let mut seed = serde_json::to_vec(&scenario)?;
            seed.extend_from_slice(b"\n---\n");
            seed.extend(serde_json::to_vec(&shares)?);
            seeds.push(("shares.txt".into(), seed));
        }
        "budget" => {
            let settings = PlanSettings {
                trials: 20,
                ..PlanSettings::default()
            };
            for id in PRESET_IDS.iter().take(3) {
                let task = preset(id).context("preset")?;
                let result = plan(&task, default_catalog(), &settings)?;
                let b = budget(&result, &task, default_catalog());
                seeds.push((format!("{id}.json"), budget_json(&b).into_bytes()));
            }
        }
        "trace" => {
            for p in files("tests/fixtures/traces", "json")? {
                seeds.push((name(&p), read(&p)?));
            }
            seeds.push((
                "small.csv".into(),
                b"timestamp,count\n0,1\n600,0\n1200,1\n1800,1\n2400,0\n".to_vec(),
            ));
            seeds.push((
                "small.json".into(),
                br#"{"gap_seconds": 600, "data": [1, 1, 0, 1, 0, 0, 1]}"#.to_vec(),
            ));
        }
        "queue_trace" => {
            for p in files("tests/fixtures/queues", "csv")? {
                seeds.push((name(&p), read(&p)?));
            }
            seeds.push(("bare.csv".into(), b"0\n0\n12\n3600\n".to_vec()));
            seeds.push((
                "times.csv".into(),
                b"created,started\n2023-04-22T10:00:00Z,2023-04-22T10:05:00Z\n100,100\n5,\n"
                    .to_vec(),
            ));
        }
        "traffic" => {
            seeds.push((
                "day.csv".into(),
                (0..24)
                    .map(|h| format!("{}\n", h % 7))
                    .collect::<String>()
                    .into_bytes(),
            ));
            seeds.push((
                "hours.csv".into(),
                format!(
                    "hour,rps\n{}",
                    (0..24)
                        .map(|h| format!("{h},{}.5\n", h % 5))
                        .collect::<String>()
                )
                .into_bytes(),
            ));
        }
        "plan" => {
            for p in tasks.iter().take(4) {
                seeds.push((name(p), read(p)?));
            }
            if let Some(p) = tasks.first() {
                let mut with_trace = read(p)?;
                with_trace.extend_from_slice(b"\n---\n");
                let one = default_catalog()
                    .offers
                    .iter()
                    .filter(|o| o.interruptions.interrupts())
                    .take(2)
                    .cloned()
                    .collect();
                let small = gpufare_core::offers::catalog::Catalog {
                    format_version: 1,
                    offers: one,
                };
                with_trace.extend_from_slice(
                    gpufare_core::offers::catalog::catalog_to_json(&small).as_bytes(),
                );
                with_trace.extend_from_slice(b"\n---\n");
                with_trace
                    .extend_from_slice(br#"{"gap_seconds": 600, "data": [1, 1, 0, 1, 0, 0, 1]}"#);
                seeds.push(("with-trace.txt".into(), with_trace));
            }
        }
        "numbers" => {
            for (i, s) in [
                "2.50",
                " 12 ",
                "１２．５",
                "-3",
                "1e5",
                "0.000001",
                "99999999999999999999999999999",
            ]
            .iter()
            .enumerate()
            {
                seeds.push((format!("n{i}"), s.as_bytes().to_vec()));
            }
        }
        "fleet" => {
            // The test profiles joined as JSON lines (one compact profile a line), and the same
            // fleet with a damaged line in the middle.
            let mut lines = Vec::new();
            for p in files("tests/profiles", "json")? {
                let value: serde_json::Value = serde_json::from_slice(&read(&p)?)
                    .with_context(|| format!("{} is not JSON", p.display()))?;
                lines.push(serde_json::to_string(&value)?);
            }
            seeds.push(("fleet.jsonl".into(), (lines.join("\n") + "\n").into_bytes()));
            let mut damaged = lines.clone();
            damaged.insert(lines.len() / 2, "{\"format_version\": 2, \"tool\":".into());
            seeds.push(("damaged.jsonl".into(), damaged.join("\n").into_bytes()));
        }
        "rules" => {
            // The first byte picks the name: even TOML, odd JSON.
            let toml = "mad_k = 4.5\nmin_relative_band = 0.08\nmin_group_nodes = 4\n\
                        verdict_level = \"alert\"\nignore_verdicts = [\"slice\", \"jitter\"]\n\
                        ignore_figures = [\"download_mbit_s\"]\n[min_band]\ngemm_tflops = 2.0\n";
            seeds.push(("rules.toml".into(), prefixed(0, toml.as_bytes())));
            let json = serde_json::to_vec(&gpufare_core::fleet::Rules::default())?;
            seeds.push(("rules.json".into(), prefixed(1, &json)));
        }
        // The price feeds: the fixtures shaped like each feed (tests/fixtures/feeds).
        "feed_azure" | "feed_aws" | "feed_alibaba" => {
            let prefix = target.trim_start_matches("feed_");
            for p in files("tests/fixtures/feeds", "json")? {
                if name(&p).starts_with(prefix) {
                    seeds.push((name(&p), read(&p)?));
                }
            }
        }
        "feed_gpuhunt" => {
            // The first byte picks the provider: 0 aws, 7 runpod (gpuhunt::PROVIDERS).
            for (byte, file) in [(0, "gpuhunt-aws.csv"), (7, "gpuhunt-runpod.csv")] {
                let p = root.join("tests/fixtures/feeds").join(file);
                seeds.push((file.to_owned(), prefixed(byte, &read(&p)?)));
            }
        }
        // Text files in the encodings spreadsheets save: the quotes in UTF-8, GB18030 and
        // UTF-16LE (tests/fixtures/spreadsheets), and the UTF-8 one with a BOM and in UTF-16BE.
        "text" => {
            for p in files("tests/fixtures/spreadsheets", "csv")? {
                seeds.push((name(&p), read(&p)?));
            }
            let utf8 = read(&root.join("tests/fixtures/spreadsheets/quotes.csv"))?;
            seeds.push(("bom.csv".into(), [&b"\xEF\xBB\xBF"[..], &utf8].concat()));
            let text = String::from_utf8_lossy(&utf8);
            let mut be = vec![0xFE, 0xFF];
            be.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
            seeds.push(("utf16be.csv".into(), be));
        }
        other => bail!("no seeds for fuzz target {other}"),
    }
    // Inputs that once crashed a target stay in its corpus for good.
    let kept = root.join("fuzz/regressions").join(target);
    if kept.is_dir() {
        let mut found: Vec<PathBuf> = fs::read_dir(&kept)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        found.sort();
        for p in found {
            seeds.push((format!("regression-{}", name(&p)), read(&p)?));
        }
    }
    for (file, bytes) in seeds {
        fs::write(corpus.join(format!("seed-{file}")), bytes)?;
    }
    Ok(())
}

fn name(p: &Path) -> String {
    p.file_name()
        .map_or_else(|| "seed".into(), |n| n.to_string_lossy().into_owned())
}

fn prefixed(byte: u8, bytes: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(bytes.len() + 1);
    v.push(byte);
    v.extend_from_slice(bytes);
    v
}
