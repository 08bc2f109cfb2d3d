//! `cargo xtask bench`: every speed figure of issue 20 in one run and one table. The plan
//! benchmark natively (criterion, one thread and with the `parallel` feature), the same plans
//! compiled to wasm as the site compiles them and timed in Node and headless Chromium
//! (`bench/wasm-plan`, `bench/wasm-plan.mjs`), the site's recompute after an edit
//! (`bench/site-metrics.mjs` against the built site), and the release CLI on catalogs of 100 to
//! 10,000 offers (wall time and peak memory). Prints a Markdown table; `--write-readme` puts it
//! in README.md's performance section. Figures only: nothing here passes or fails on a timing.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::csv::catalog_to_csv;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::settings::DEFAULT_TRIALS;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use wasm_bindgen_cli_support::Bindgen;

use crate::{cargo, dist, prereq, run_cmd, serve};

/// The plan cases: the criterion ids of `core/benches/plan.rs`, the case names of
/// `bench/wasm-plan`, and the table's label.
const CASES: [(&str, &str); 3] = [
    ("trials-10000", "10,000 trials per offer"),
    ("trials-default", "the site's default trials per offer"),
    ("closed-forms", "closed forms only (1 trial)"),
];

/// Catalog sizes of the scale runs (the default catalog repeated with varied prices).
const SCALE_OFFERS: [usize; 4] = [100, 1_000, 3_000, 10_000];

/// The task every benchmark prices.
const TASK: &str = "tests/golden/snapshot-task.json";

/// The shape of a SkyPilot AWS file priced with the QLoRA example: one GPU from one provider, a
/// pay-as-you-go and a spot row per zone (the default catalog's A10G rows, copied).
const ZONE_ROWS: [&str; 2] = ["aws-use1-g5xl-payg", "aws-use1-g5xl-spot"];
const ZONE_TASK: &str = "examples/qlora_7b.json";

const README_BEGIN: &str = "<!-- bench:begin -->";
const README_END: &str = "<!-- bench:end -->";

/// What `cargo xtask bench` was asked for.
pub struct Options {
    /// Fewer samples everywhere: for trying the command out, not for the README.
    pub quick: bool,
    /// Replace README.md's performance section with the table.
    pub write_readme: bool,
    /// Only one part (`--only scale`: the release CLI on growing catalogs; `--only
    /// first-answer`: the first answer against the plan), printed without the rest of the table.
    pub only: Option<Part>,
}

/// A part of the benchmarks that `--only` runs alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Scale,
    FirstAnswer,
}

impl Options {
    /// Reads `--quick` and `--write-readme`; anything else is a usage error.
    pub fn parse(args: &[String]) -> Result<Options> {
        let mut options = Options {
            quick: false,
            write_readme: false,
            only: None,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--write-readme" => options.write_readme = true,
                "--only" => match args.next().map(String::as_str) {
                    Some("scale") => options.only = Some(Part::Scale),
                    Some("first-answer") => options.only = Some(Part::FirstAnswer),
                    other => bail!("bench: --only takes `scale` or `first-answer`, not {other:?}"),
                },
                other => {
                    bail!("bench: unknown option {other:?} (--quick, --write-readme, --only PART)")
                }
            }
        }
        ensure!(
            !(options.only.is_some() && options.write_readme),
            "bench: --write-readme needs every figure, so not with --only"
        );
        Ok(options)
    }
}

/// A timing: median and 95th percentile in milliseconds, with the samples behind them.
#[derive(Debug, Clone)]
struct Figure {
    median_ms: f64,
    p95_ms: f64,
    samples_ms: Vec<f64>,
}

impl Figure {
    fn from_json(v: &Value) -> Result<Figure> {
        let num = |key: &str| {
            v.get(key)
                .and_then(Value::as_f64)
                .with_context(|| format!("no {key} in {v}"))
        };
        Ok(Figure {
            median_ms: num("median_ms")?,
            p95_ms: num("p95_ms")?,
            samples_ms: samples(v.get("samples_ms")),
        })
    }

    fn to_json(&self) -> Value {
        json!({ "median_ms": self.median_ms, "p95_ms": self.p95_ms, "samples_ms": self.samples_ms })
    }
}

fn samples(v: Option<&Value>) -> Vec<f64> {
    v.and_then(Value::as_array)
        .map(|xs| xs.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// One catalog size of the scale runs.
struct ScaleRow {
    /// `default` (the default catalog repeated) or `zones` (one GPU, a row per zone).
    shape: &'static str,
    offers: usize,
    wall: Figure,
    peak_rss_kib: u64,
}

/// Where and on what the figures were taken.
struct Machine {
    commit: String,
    date: String,
    cores: usize,
    cpu: String,
    node: String,
    chromium: String,
    wasm_build: String,
    /// The 1-minute load average when the timings began and when they ended.
    load: (String, String),
}

/// Runs every benchmark, prints the table, and writes it into the README when asked.
pub fn run(root: &Path, options: &Options) -> Result<()> {
    let work = target_dir(root).join("bench");
    fs::create_dir_all(&work)?;
    // The commit first: what is measured is the tree as it is now.
    let commit = commit(root)?;
    prereq::wasm_target()?;
    prereq::debian_packages(&[("chromium", "/usr/bin/chromium"), ("time", "/usr/bin/time")])?;
    if !root.join("tests/e2e/node_modules/playwright-core").exists() {
        prereq::npm_packages(&root.join("tests/e2e"))?;
    }

    match options.only {
        Some(Part::Scale) => {
            run_cmd(cargo().args(["build", "--release", "--package", "gpufare-probe"]))?;
            let cli = target_dir(root).join("release/gpufare");
            let catalogs = write_scale_catalogs(&work.join("scale"))?;
            let scale = run_scale(root, &cli, &catalogs, options.quick)?;
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            println!("{}", scale_table(&scale, cores)?);
            return Ok(());
        }
        Some(Part::FirstAnswer) => {
            build_first_answer()?;
            println!(
                "{}",
                first_answer_table(&run_first_answer(root, options.quick)?)?
            );
            return Ok(());
        }
        None => {}
    }
    // Everything is built before anything is timed, so no compiler shares the cores with a run.
    eprintln!("==> bench: building");
    let wasm_dir = work.join("wasm-plan");
    let wasm_build = build_wasm_bench(root, &wasm_dir)?;
    let site_dir = work.join("dist");
    dist::build(root, &site_dir)?;
    run_cmd(cargo().args(["build", "--release", "--package", "gpufare-probe"]))?;
    let cli = target_dir(root).join("release/gpufare");
    for parallel in [false, true] {
        run_cmd(criterion(parallel, &work).arg("--no-run"))?;
    }
    build_first_answer()?;
    let catalogs = write_scale_catalogs(&work.join("scale"))?;

    let load_before = load_average();
    eprintln!("==> bench: native plans, one thread");
    let native = run_native(&work, false, options.quick)?;
    eprintln!("==> bench: native plans, `parallel` feature");
    let parallel = run_native(&work, true, options.quick)?;
    eprintln!("==> bench: wasm plans in Node and Chromium");
    let wasm = run_wasm(root, &wasm_dir, options.quick)?;
    eprintln!("==> bench: the site's recompute after an edit");
    let site = run_site(root, &site_dir, options.quick)?;
    eprintln!("==> bench: the release CLI on growing catalogs");
    let scale = run_scale(root, &cli, &catalogs, options.quick)?;
    eprintln!("==> bench: the first answer against the plan");
    let first_answer = run_first_answer(root, options.quick)?;
    let load_after = load_average();

    let machine = Machine {
        commit,
        date: output(Command::new("date").args(["-u", "+%Y-%m-%d"]))?,
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        cpu: cpu_model(),
        node: wasm
            .get("node_version")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned(),
        // "Chromium 156.0.8078.114 built on Debian ..." -> "Chromium 156.0.8078.114".
        chromium: output(Command::new("/usr/bin/chromium").arg("--version"))
            .map(|v| v.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|_| "Chromium".into()),
        wasm_build,
        load: (load_before, load_after),
    };
    let offers = wasm.get("offers").and_then(Value::as_u64).unwrap_or(0);
    let table = markdown(
        &machine,
        offers,
        &native,
        &parallel,
        &wasm,
        &site,
        &scale,
        &first_answer,
        options.quick,
    )?;

    let results = work.join("results.json");
    let raw = json!({
        "commit": machine.commit,
        "date": machine.date,
        "cores": machine.cores,
        "cpu": machine.cpu,
        "load_average_1min": [machine.load.0, machine.load.1],
        "wasm_build": machine.wasm_build,
        "quick": options.quick,
        "native_1_thread": figures_json(&native),
        "native_parallel": figures_json(&parallel),
        "wasm": wasm,
        "site": site,
        "first_answer": first_answer,
        "scale": scale.iter().map(|r| json!({
            "shape": r.shape, "offers": r.offers, "wall": r.wall.to_json(),
            "peak_rss_kib": r.peak_rss_kib,
        })).collect::<Vec<_>>(),
    });
    fs::write(&results, serde_json::to_string_pretty(&raw)?)?;
    eprintln!("==> bench: every sample in {}", results.display());
    println!("{table}");
    if options.write_readme {
        write_readme(&root.join("README.md"), &table)?;
        eprintln!("==> bench: README.md's performance section rewritten");
    }
    Ok(())
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

/// `git rev-parse --short HEAD`, with "dirty" when the tree differs from it.
fn commit(root: &Path) -> Result<String> {
    let head =
        output(
            Command::new("git")
                .current_dir(root)
                .args(["rev-parse", "--short", "HEAD"]),
        )?;
    let status = output(
        Command::new("git")
            .current_dir(root)
            .args(["status", "--porcelain"]),
    )?;
    Ok(if status.is_empty() {
        head
    } else {
        format!("{head} (dirty)")
    })
}

/// A command's standard output, trimmed; fails when it fails.
fn output(cmd: &mut Command) -> Result<String> {
    let shown = format!("{cmd:?}");
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot start {shown}"))?;
    ensure!(out.status.success(), "{shown} failed ({})", out.status);
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The 1-minute load average (`/proc/loadavg`): how busy the shared machine was.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// Builds `bench/wasm-plan` exactly as `dist::build` builds the site's plan worker (the wasm that
/// runs the site's Monte Carlo: profile `wasm-worker`, stable toolchain), then runs wasm-bindgen
/// (target web) into `out`. Returns how it was built, for the report.
fn build_wasm_bench(root: &Path, out: &Path) -> Result<String> {
    let wasm = dist::speed_build(
        &target_dir(root),
        "gpufare-wasm-bench",
        "gpufare_wasm_bench",
    )?;
    let how = "as the site's plan worker is: profile wasm-worker (opt-level 3, LTO), stable \
               toolchain"
        .to_owned();
    if out.exists() {
        fs::remove_dir_all(out)?;
    }
    fs::create_dir_all(out)?;
    Bindgen::new()
        .input_path(&wasm)
        .out_name("gpufare_wasm_bench")
        .web(true)?
        // The library's default differs from the CLI's; without this init() gets no default URL.
        .omit_default_module_path(false)
        .typescript(false)
        .generate(out)
        .with_context(|| format!("wasm-bindgen failed on {}", wasm.display()))?;
    Ok(how)
}

/// `cargo bench -p gpufare-core --bench plan`, its results in a folder of their own per build.
fn criterion(parallel: bool, work: &Path) -> Command {
    let mut cmd = cargo();
    cmd.args(["bench", "--package", "gpufare-core", "--bench", "plan"]);
    if parallel {
        cmd.args(["--features", "parallel"]);
    }
    cmd.env("CRITERION_HOME", criterion_home(parallel, work));
    cmd
}

fn criterion_home(parallel: bool, work: &Path) -> PathBuf {
    work.join(if parallel {
        "criterion-parallel"
    } else {
        "criterion-1-thread"
    })
}

/// Runs the criterion plan benchmark and reads each case's median (criterion's estimate) and
/// the 95th percentile of its samples (each sample the mean of its iterations).
fn run_native(work: &Path, parallel: bool, quick: bool) -> Result<Vec<(String, Figure)>> {
    let home = criterion_home(parallel, work);
    if home.exists() {
        fs::remove_dir_all(&home)?;
    }
    let mut cmd = criterion(parallel, work);
    cmd.arg("--");
    if quick {
        cmd.args(["--warm-up-time", "1", "--measurement-time", "1"]);
    }
    run_cmd(&mut cmd)?;
    CASES
        .iter()
        .map(|(case, _)| {
            let dir = home.join("plan").join(case).join("new");
            let read = |name: &str| -> Result<Value> {
                let path = dir.join(name);
                let text = fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                Ok(serde_json::from_str(&text)?)
            };
            let median_ns = read("estimates.json")?
                .pointer("/median/point_estimate")
                .and_then(Value::as_f64)
                .context("criterion's estimates.json has no median")?;
            let sample = read("sample.json")?;
            let per_iteration: Vec<f64> = samples(sample.get("times"))
                .iter()
                .zip(samples(sample.get("iters")))
                .map(|(ns, iters)| ns / iters / 1e6)
                .collect();
            Ok((
                (*case).to_owned(),
                Figure {
                    median_ms: median_ns / 1e6,
                    p95_ms: percentile(&per_iteration, 95.0),
                    samples_ms: per_iteration,
                },
            ))
        })
        .collect()
}

fn figures_json(figures: &[(String, Figure)]) -> Value {
    figures
        .iter()
        .map(|(case, f)| (case.clone(), f.to_json()))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// The nearest-rank percentile (as `bench/*.mjs` compute it).
fn percentile(xs: &[f64], p: f64) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn median(xs: &[f64]) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Runs a node script, its human lines passed on to stderr, and parses its last stdout line.
fn node_json(cmd: &mut Command) -> Result<Value> {
    let shown = format!("{cmd:?}");
    eprintln!("==> {shown}");
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot start {shown}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut lines: Vec<&str> = stdout.lines().collect();
    let last = lines.pop().unwrap_or("");
    for line in lines {
        eprintln!("{line}");
    }
    ensure!(out.status.success(), "{shown} failed ({})", out.status);
    serde_json::from_str(last).with_context(|| format!("{shown} printed no JSON last: {last:?}"))
}

fn run_wasm(root: &Path, dir: &Path, quick: bool) -> Result<Value> {
    let mut cmd = Command::new("node");
    cmd.arg(root.join("bench/wasm-plan.mjs")).arg(dir);
    if quick {
        cmd.args(["--seconds", "1", "--min", "5", "--warmup", "1"]);
    }
    node_json(&mut cmd)
}

fn run_site(root: &Path, dist: &Path, quick: bool) -> Result<Value> {
    let addr = serve::spawn(dist, 0)?;
    let mut cmd = Command::new("node");
    cmd.arg(root.join("bench/site-metrics.mjs")).arg("--json");
    if quick {
        cmd.args(["--rounds", "3"]);
    }
    node_json(cmd.arg(format!("http://{addr}/")).arg(dist))
}

/// Writes, for each of [`SCALE_OFFERS`] offers, the default catalog repeated, every copy with
/// its own id and its prices scaled by a factor between 0.70 and 1.30, and the zone-shaped
/// catalog ([`ZONE_ROWS`] alternating, each row in its own zone of four regions, prices scaled
/// the same way), in our CSV format: `(shape, offers, path)`.
fn write_scale_catalogs(dir: &Path) -> Result<Vec<(&'static str, usize, PathBuf)>> {
    fs::create_dir_all(dir)?;
    let base = &default_catalog().offers;
    let zone_rows = ZONE_ROWS
        .iter()
        .map(|id| {
            base.iter()
                .find(|o| o.id == *id)
                .with_context(|| format!("the default catalog has no {id}"))
        })
        .collect::<Result<Vec<_>>>()?;
    // 0.70 ..= 1.30 in steps of 0.01, spread over the copies.
    let factor =
        |i: usize| -> Result<Decimal> { Ok(Decimal::new(70 + i64::try_from((i * 37) % 61)?, 2)) };
    let mut out = Vec::new();
    for &n in &SCALE_OFFERS {
        for shape in ["default", "zones"] {
            let offers = (0..n)
                .map(|i| {
                    let mut offer = if shape == "default" {
                        let mut o = base[i % base.len()].clone();
                        o.id = format!("{}-x{}", o.id, i / base.len());
                        o
                    } else {
                        let mut o = zone_rows[i % zone_rows.len()].clone();
                        o.id = format!("{}-z{i}", o.id);
                        o.region.id = format!("{}-{}", o.region.id, i % 4);
                        o
                    };
                    offer.price = (offer.price * factor(i)?).round_dp(4);
                    Ok(offer)
                })
                .collect::<Result<Vec<_>>>()?;
            let catalog = Catalog {
                format_version: default_catalog().format_version,
                offers,
            };
            let path = dir.join(format!("{shape}-{n}.csv"));
            fs::write(&path, catalog_to_csv(&catalog))?;
            out.push((shape, n, path));
        }
    }
    Ok(out)
}

/// Times `gpufare plan --catalog FILE` (release build) under `/usr/bin/time` for each catalog:
/// the wall time of each run and the highest peak resident set size of them.
fn run_scale(
    root: &Path,
    cli: &Path,
    catalogs: &[(&'static str, usize, PathBuf)],
    quick: bool,
) -> Result<Vec<ScaleRow>> {
    let runs = if quick { 1 } else { 5 };
    const MARK: &str = "gpufare-bench-peak-rss-kib";
    catalogs
        .iter()
        .map(|&(shape, offers, ref catalog)| {
            let task = if shape == "zones" { ZONE_TASK } else { TASK };
            let out = catalog.with_extension("plan.json");
            let mut walls = Vec::new();
            let mut peak = 0;
            for _ in 0..runs {
                let mut cmd = Command::new("/usr/bin/time");
                cmd.args(["-f", &format!("{MARK} %M")])
                    .arg(cli)
                    .args(["plan", "--task"])
                    .arg(root.join(task))
                    .arg("--catalog")
                    .arg(catalog)
                    .args(["--seed", "42", "--format", "json", "-o"])
                    .arg(&out)
                    .stdout(Stdio::null());
                let start = Instant::now();
                let done = cmd.output().context("cannot start /usr/bin/time")?;
                let wall = start.elapsed().as_secs_f64() * 1e3;
                let stderr = String::from_utf8_lossy(&done.stderr);
                ensure!(
                    done.status.success(),
                    "gpufare plan on {} failed: {stderr}",
                    catalog.display()
                );
                let rss = stderr
                    .lines()
                    .find_map(|l| l.strip_prefix(MARK))
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .context("/usr/bin/time printed no peak memory")?;
                walls.push(wall);
                peak = peak.max(rss);
            }
            eprintln!(
                "{shape:>8} {offers:>6} offers: median {:.0} ms, peak {} MiB",
                median(&walls),
                peak / 1024
            );
            Ok(ScaleRow {
                shape,
                offers,
                wall: Figure {
                    median_ms: median(&walls),
                    p95_ms: percentile(&walls, 95.0),
                    samples_ms: walls,
                },
                peak_rss_kib: peak,
            })
        })
        .collect()
}

/// Milliseconds with about three significant digits.
fn ms(x: f64) -> String {
    if !x.is_finite() {
        "–".into()
    } else if x < 10.0 {
        format!("{x:.2} ms")
    } else if x < 100.0 {
        format!("{x:.1} ms")
    } else {
        format!("{x:.0} ms")
    }
}

/// 12345 -> "12,345".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn wasm_figure(wasm: &Value, runtime: &str, case: &str) -> Result<Figure> {
    Figure::from_json(
        wasm.get(runtime)
            .and_then(|r| r.get(case))
            .with_context(|| format!("no {runtime} figure for {case}"))?,
    )
}

#[allow(clippy::too_many_arguments)]
fn markdown(
    machine: &Machine,
    offers: u64,
    native: &[(String, Figure)],
    parallel: &[(String, Figure)],
    wasm: &Value,
    site: &Value,
    scale: &[ScaleRow],
    first_answer: &Value,
    quick: bool,
) -> Result<String> {
    let mut t = String::new();
    writeln!(
        t,
        "Measured by `cargo xtask bench{}` on commit {}, {}: {}, {} cores (1-minute load \
         average {} when the timings began, {} when they ended); {}; Node {}. Medians; the \
         ratios divide wasm by native on one thread, the same work (the site's wasm has one \
         thread).",
        if quick { " --quick" } else { "" },
        machine.commit,
        machine.date,
        machine.cpu,
        machine.cores,
        machine.load.0,
        machine.load.1,
        machine.chromium,
        machine.node,
    )?;
    writeln!(t)?;
    writeln!(
        t,
        "| plan: snapshot task, default catalog ({offers} offers), seed 42 | native, 1 thread \
         | native, {} threads | wasm in Node | wasm in Chromium | Node / native | Chromium / native |",
        machine.cores
    )?;
    writeln!(t, "|---|---:|---:|---:|---:|---:|---:|")?;
    for (case, label) in CASES {
        let label = if case == "trials-default" {
            format!(
                "{} trials per offer (the site's default)",
                thousands(u64::from(DEFAULT_TRIALS))
            )
        } else {
            label.to_owned()
        };
        let find = |figures: &[(String, Figure)]| {
            figures
                .iter()
                .find(|(c, _)| c == case)
                .map(|(_, f)| f.clone())
                .with_context(|| format!("no native figure for {case}"))
        };
        let one = find(native)?;
        let many = find(parallel)?;
        let node = wasm_figure(wasm, "node", case)?;
        let chromium = wasm_figure(wasm, "chromium", case)?;
        writeln!(
            t,
            "| {label} | {} | {} | {} | {} | {:.2}× | {:.2}× |",
            ms(one.median_ms),
            ms(many.median_ms),
            ms(node.median_ms),
            ms(chromium.median_ms),
            node.median_ms / one.median_ms,
            chromium.median_ms / one.median_ms,
        )?;
    }
    writeln!(t)?;
    writeln!(
        t,
        "The wasm is `bench/wasm-plan`, built {}. The site's figures are from \
         `bench/site-metrics.mjs` in headless Chromium against the built site served over loopback.",
        machine.wasm_build
    )?;
    writeln!(t)?;
    let recompute = site
        .get("recompute_ms")
        .context("site-metrics.mjs gave no recompute figure")?;
    let num = |v: &Value, key: &str| number(Some(v), key);
    let first = site.get("first_render_ms").cloned().unwrap_or_default();
    writeln!(t, "| the site | median | P95 | samples |")?;
    writeln!(t, "|---|---:|---:|---:|")?;
    writeln!(
        t,
        "| recompute after an edit (input event to the painted, updated recommendation; plan in a Web Worker, split with helper workers only where the page sees more than two cores, {} trials) | {} | {} | {} |",
        thousands(u64::from(DEFAULT_TRIALS)),
        ms(num(recompute, "median")),
        ms(num(recompute, "p95")),
        samples(recompute.get("samples")).len()
    )?;
    // The site's figures of several edits each: the JSON key and the row's words.
    let shown = site
        .get("first_answer_ms")
        .map(|a| {
            let edits = a.get("edits").and_then(Value::as_u64).unwrap_or(0);
            format!("{} of {edits}", samples(a.get("samples")).len())
        })
        .unwrap_or_default();
    for (key, what) in [
        (
            "frame_ms",
            "the main thread per edit (input event to the next painted frame)".to_owned(),
        ),
        (
            "noop_frame_ms",
            "the floor under it: an input event that changes nothing on screen, to the next painted frame".to_owned(),
        ),
        (
            "first_answer_ms",
            format!(
                "first answer after an edit (closed forms, marked provisional; input event to its painted frame; shown before the plan in {shown} edits)"
            ),
        ),
        (
            "arrival_ms",
            "the full plan's arrival on the main thread (the worker's message to the painted frame: its JSON read back, the views rebuilt)".to_owned(),
        ),
    ] {
        if let Some(figure) = site.get(key) {
            writeln!(
                t,
                "| {what} | {} | {} | {} |",
                ms(num(figure, "median")),
                ms(num(figure, "p95")),
                samples(figure.get("samples")).len()
            )?;
        }
    }
    let firsts = samples(first.get("samples"));
    writeln!(
        t,
        "| first interactive render, loopback | {} | {} | {} |",
        ms(num(&first, "median")),
        ms(percentile(&firsts, 95.0)),
        firsts.len()
    )?;
    writeln!(t)?;
    t.push_str(&first_answer_table(first_answer)?);
    writeln!(t)?;
    t.push_str(&scale_table(scale, machine.cores)?);
    writeln!(t)?;
    let plan_10k = parallel
        .iter()
        .find(|(c, _)| c == "trials-10000")
        .map_or(f64::NAN, |(_, f)| f.median_ms);
    t.push_str(&targets_table(site, plan_10k, scale, machine.cores));
    Ok(t)
}

/// `key` of the JSON object `v` as a number; NaN (shown as "–") when it is missing.
fn number(v: Option<&Value>, key: &str) -> f64 {
    v.and_then(|v| v.get(key))
        .and_then(Value::as_f64)
        .unwrap_or(f64::NAN)
}

/// A scale run's catalog shape in words.
fn shape_words(shape: &str) -> &'static str {
    if shape == "zones" {
        "one GPU in many zones"
    } else {
        "the default catalog repeated"
    }
}

/// Where `bench/README.md` profiles what a missed target's time or bytes go to.
const WHY_KEYSTROKE: &str = "the closed forms, the box's views and the frame's layout and paint in the keystroke's task: bench/README.md, \"Where an edit's time goes in the page\"";
const WHY_PLAN: &str = "every preemption is still walked, 1.64 million windows and 2.8 million exponential draws (now by ziggurat) at 10,000 trials, about 650 million instructions on one thread: bench/README.md, \"Why 5 ms at 10,000 trials is still out of reach\", \"Exponentials by ziggurat\" and \"Order statistics through a histogram\"";
const WHY_MODULE: &str = "the framework, the model the first plan needs, the page's views and their data: bench/README.md, \"Where the wasm's bytes go\"";
const WHY_SCALE: &str = "bench/README.md, \"Where the plan's time goes\"";

/// Issue 34's targets against the figures above: each one met, or by how much it misses and
/// where the profile of the miss is.
fn targets_table(site: &Value, plan_10k_ms: f64, scale: &[ScaleRow], cores: usize) -> String {
    // (what, measured, target, measured / target, why): met when the ratio is at most 1.
    let mut rows: Vec<(String, String, String, f64, &str)> = Vec::new();
    let answer = site.get("first_answer_ms");
    for (key, limit) in [("median", 16.0), ("p95", 33.0)] {
        let x = number(answer, key);
        rows.push((
            format!("first answer after an edit, {}", key.replace("p95", "P95")),
            ms(x),
            ms(limit),
            x / limit,
            WHY_KEYSTROKE,
        ));
    }
    let frame = number(site.get("frame_ms"), "p95");
    rows.push((
        "main thread per edit, P95".into(),
        ms(frame),
        ms(16.0),
        frame / 16.0,
        WHY_KEYSTROKE,
    ));
    rows.push((
        format!("plan natively, default catalog, 10,000 trials, {cores} threads"),
        ms(plan_10k_ms),
        ms(5.0),
        plan_10k_ms / 5.0,
        WHY_PLAN,
    ));
    // The 300 KB are 300,000 bytes.
    let kib = number(Some(site), "wasm_gzip_kib");
    rows.push((
        "first module, gzipped".into(),
        format!("{:.0} kB ({kib:.1} KiB)", kib * 1.024),
        "300 kB".into(),
        kib * 1.024 / 300.0,
        WHY_MODULE,
    ));
    for shape in ["default", "zones"] {
        if let Some(row) = scale
            .iter()
            .filter(|r| r.shape == shape && r.offers >= 10_000)
            .min_by_key(|r| r.offers)
        {
            let what = shape_words(shape);
            let mib = row.peak_rss_kib as f64 / 1024.0;
            rows.push((
                format!(
                    "{} offers ({what}), wall time",
                    thousands(row.offers as u64)
                ),
                ms(row.wall.median_ms),
                ms(2000.0),
                row.wall.median_ms / 2000.0,
                WHY_SCALE,
            ));
            rows.push((
                format!(
                    "{} offers ({what}), peak memory",
                    thousands(row.offers as u64)
                ),
                format!("{mib:.0} MiB"),
                "200 MiB".into(),
                mib / 200.0,
                WHY_SCALE,
            ));
        }
    }
    let mut t = String::from("| target (issue 34) | measured | target | |\n|---|---:|---:|---|\n");
    for (what, measured, target, ratio, why) in rows {
        let verdict = if !ratio.is_finite() {
            "not measured".to_owned()
        } else if ratio <= 1.0 {
            "met".to_owned()
        } else if ratio < 1.1 {
            // A near miss, told apart from one by a tenth.
            format!(
                "missed, {:.0} % over the target; {why}",
                (ratio - 1.0) * 100.0
            )
        } else {
            format!("missed, {ratio:.1}× the target; {why}")
        };
        t.push_str(&format!("| {what} | {measured} | {target} | {verdict} |\n"));
    }
    t
}

/// Builds `core/examples/first_answer` for [`run_first_answer`].
fn build_first_answer() -> Result<()> {
    run_cmd(cargo().args([
        "build",
        "--release",
        "--package",
        "gpufare-core",
        "--example",
        "first_answer",
    ]))
}

/// Runs `core/examples/first_answer` (built by [`build_first_answer`]): 400 varied plans, 100 with `quick`; its
/// last line is JSON.
fn run_first_answer(root: &Path, quick: bool) -> Result<Value> {
    let exe = target_dir(root).join("release/examples/first_answer");
    let plans = if quick { "100" } else { "400" };
    let out = output(Command::new(&exe).arg(plans))?;
    let last = out.lines().last().context("first_answer printed nothing")?;
    serde_json::from_str(last).context("first_answer's last line is not JSON")
}

/// How often a quick first answer differs from the plan, and what it costs, as Markdown.
fn first_answer_table(first: &Value) -> Result<String> {
    let mut t = String::new();
    let refined = first
        .get("refined_trials")
        .and_then(Value::as_u64)
        .context("first_answer: no refined_trials")?;
    let rows = first
        .get("candidates")
        .and_then(Value::as_array)
        .context("first_answer: no candidates")?;
    let plans = rows
        .first()
        .and_then(|r| r.get("plans"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    writeln!(
        t,
        "| first answer, against the plan at {} trials ({} varied plans, `core/examples/first_answer.rs`) | recommended offer differs | kind of capacity differs | first five offers differ | median time, native, one thread |",
        thousands(refined),
        thousands(plans)
    )?;
    writeln!(t, "|---|---:|---:|---:|---:|")?;
    for row in rows {
        let count = |k: &str| row.get(k).and_then(Value::as_u64).unwrap_or(0);
        let n = count("plans").max(1) as f64;
        let share = |k: &str| format!("{} ({:.1} %)", count(k), 100.0 * count(k) as f64 / n);
        let trials = count("trials");
        let what = if trials <= 1 {
            "closed forms only (1 trial)".to_owned()
        } else {
            format!("{} trials", thousands(trials))
        };
        writeln!(
            t,
            "| {what} | {} | {} | {} | {} |",
            share("offer_differs"),
            share("choice_differs"),
            share("top5_differs"),
            ms(row.get("median_ms").and_then(Value::as_f64).unwrap_or(0.0))
        )?;
    }
    Ok(t)
}

/// The growing catalogs' rows and their growth, as Markdown.
fn scale_table(scale: &[ScaleRow], cores: usize) -> Result<String> {
    let mut t = String::new();
    writeln!(
        t,
        "| `gpufare plan` (release CLI, {} threads, {} trials) on a catalog of | wall time, median | per offer | peak memory |",
        cores,
        thousands(u64::from(DEFAULT_TRIALS))
    )?;
    writeln!(t, "|---|---:|---:|---:|")?;
    for row in scale {
        let what = match row.shape {
            "zones" => format!("{} (QLoRA task)", shape_words(row.shape)),
            other => shape_words(other).to_owned(),
        };
        writeln!(
            t,
            "| {} offers, {what} | {} | {:.0} µs | {:.1} MiB |",
            thousands(row.offers as u64),
            ms(row.wall.median_ms),
            row.wall.median_ms * 1e3 / row.offers as f64,
            row.peak_rss_kib as f64 / 1024.0
        )?;
    }
    for (shape, words) in [
        (
            "default",
            "the default one repeated with prices scaled by 0.70 to 1.30",
        ),
        (
            "zones",
            "an A10G pay-as-you-go and a spot row per zone (a SkyPilot AWS file's shape), priced with `examples/qlora_7b.json`",
        ),
    ] {
        let rows: Vec<&ScaleRow> = scale.iter().filter(|r| r.shape == shape).collect();
        if let (Some(small), Some(large)) = (rows.first(), rows.last()) {
            writeln!(t)?;
            writeln!(
                t,
                "Catalogs of {words}: from {} to {} offers ({:.0}× the offers) the wall time \
                 grows {:.1}× and the peak memory {:.1}×.",
                thousands(small.offers as u64),
                thousands(large.offers as u64),
                large.offers as f64 / small.offers as f64,
                large.wall.median_ms / small.wall.median_ms,
                large.peak_rss_kib as f64 / small.peak_rss_kib as f64,
            )?;
        }
    }
    writeln!(t)?;
    writeln!(
        t,
        "Each run reads the CSV catalog, prices it and writes the plan as JSON."
    )?;
    Ok(t)
}

/// Replaces what lies between the bench markers of README.md with `table`.
fn write_readme(path: &Path, table: &str) -> Result<()> {
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (Some(begin), Some(end)) = (text.find(README_BEGIN), text.find(README_END)) else {
        bail!(
            "{} lacks the {README_BEGIN} and {README_END} markers",
            path.display()
        );
    };
    ensure!(begin < end, "{README_END} comes before {README_BEGIN}");
    let updated = format!("{}{README_BEGIN}\n{table}{}", &text[..begin], &text[end..]);
    fs::write(path, updated).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_medians() {
        let xs = [5.0, 1.0, 4.0, 2.0, 3.0];
        assert_eq!(median(&xs), 3.0);
        assert_eq!(median(&[1.0, 2.0]), 1.5);
        assert_eq!(percentile(&xs, 95.0), 5.0);
        assert_eq!(percentile(&xs, 40.0), 2.0);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(2_000), "2,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn targets_met_or_missed_by_how_much() {
        let site = serde_json::json!({
            "first_answer_ms": { "median": 12.0, "p95": 40.0 },
            "frame_ms": { "median": 10.0, "p95": 16.6 },
            "wasm_gzip_kib": 400.0,
        });
        let row = |shape, offers, wall, mib: u64| ScaleRow {
            shape,
            offers,
            wall: Figure {
                median_ms: wall,
                p95_ms: wall,
                samples_ms: vec![wall],
            },
            peak_rss_kib: mib * 1024,
        };
        let scale = [
            row("default", 100, 10.0, 20),
            row("default", 10_000, 600.0, 150),
            row("zones", 10_000, 2500.0, 100),
        ];
        let t = targets_table(&site, 50.0, &scale, 2);
        let line = |what: &str| {
            t.lines()
                .find(|l| l.starts_with(&format!("| {what}")))
                .unwrap_or_else(|| panic!("no row {what} in\n{t}"))
                .to_owned()
        };
        assert!(line("first answer after an edit, median").ends_with("| met |"));
        assert!(line("first answer after an edit, P95").contains("| missed, 1.2× the target; "));
        assert!(line("first answer after an edit, P95").contains("Where an edit's time goes"));
        assert!(line("main thread per edit, P95").contains("| missed, 4 % over the target; "));
        assert!(line("plan natively").contains("2 threads"));
        assert!(line("plan natively").contains("| missed, 10.0× the target; "));
        assert!(line("plan natively").contains("Why 5 ms"));
        assert!(line("first module").contains("410 kB (400.0 KiB)"));
        assert!(line("first module").contains("| missed, 1.4× the target; "));
        assert!(line("10,000 offers (the default catalog repeated), wall").ends_with("| met |"));
        assert!(
            line("10,000 offers (one GPU in many zones), wall")
                .contains("| missed, 1.2× the target; ")
        );
        assert!(line("10,000 offers (one GPU in many zones), peak").ends_with("| met |"));
        let empty = targets_table(&serde_json::json!({}), f64::NAN, &[], 2);
        assert!(empty.contains("| not measured |"));
        assert!(!empty.contains("| met |"));
    }

    #[test]
    fn readme_between_markers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("README.md");
        let before =
            format!("# x\n\n## Performance\n\n{README_BEGIN}\nold\n{README_END}\n\n## Next\n");
        fs::write(&path, before).unwrap();
        write_readme(&path, "new table\n").unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!(
                "# x\n\n## Performance\n\n{README_BEGIN}\nnew table\n{README_END}\n\n## Next\n"
            )
        );
    }
}
