//! `gpufare run`: the article's workflow — run the same benchmark on shared and on dedicated, and
//! compare. Runs the user's command N times, its output passed through to the terminal, while the
//! GPU (utilisation, memory in use) and the host (CPU busy, iowait, disk reads, network receive)
//! are sampled; records the wall time of each run, the VRAM peak, the utilisation distribution
//! and step times parsed from the output, with P50/P99 and the P99/P50 ratio, into a profile
//! (with host facts and limits, and the bottleneck verdict computed by core).

use std::io::{self, IsTerminal, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use gpufare_core::numbers::stats::summarize;
use gpufare_core::profile::document::{parse_profile, profile_to_json};
use gpufare_core::profile::run::{RunRecord, RunReport};
use gpufare_core::profile::sampling::Series;
use gpufare_core::profile::verdicts::analyse;
use regex::Regex;

use crate::gpu::{self, GpuSource};
use crate::hoststat::HostSampler;
use crate::interrupt::{self, Interrupted};
use crate::{measure, output};

/// What `gpufare run` does, resolved from the command line.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub command: Vec<String>,
    pub repeat: u32,
    pub step_regex: Option<Regex>,
    pub interval: Duration,
    pub output: PathBuf,
    /// Start from this probe profile (its disk and network figures) instead of a fresh one.
    pub profile: Option<PathBuf>,
    pub no_gpu: bool,
    pub redact: bool,
    /// Replace an existing output file even when a run failed.
    pub force: bool,
}

/// `gpufare run` failed because the command did: gpufare exits with the command's own status
/// (its exit code, or 128 + the signal that killed it).
#[derive(Debug)]
pub struct CommandFailed {
    pub message: String,
    pub exit_code: u8,
}

impl std::fmt::Display for CommandFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CommandFailed {}

/// The status a shell would report for the command: its exit code, or 128 + its signal.
pub fn shell_status(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(sig)) => u8::try_from(128 + sig).unwrap_or(1),
        (None, None) => 1,
    }
}

/// How step times are read from the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepUnit {
    /// The capture group (first, or named `ms`) is milliseconds.
    Milliseconds,
    /// The group named `s` is seconds.
    Seconds,
    /// No capture group: each matching line ends a step; the step time is the gap between matches.
    Interval,
}

/// The unit the regex's groups ask for.
pub fn step_unit(re: &Regex) -> StepUnit {
    if re.capture_names().flatten().any(|n| n == "s") {
        StepUnit::Seconds
    } else if re.captures_len() > 1 {
        StepUnit::Milliseconds
    } else {
        StepUnit::Interval
    }
}

/// A matching line: when it arrived and the value it carried.
#[derive(Debug, Clone, Copy)]
pub struct StepMatch {
    pub at: Instant,
    pub value: Option<f64>,
}

/// The value a line carries for the regex, if it matches.
pub fn match_line(re: &Regex, line: &str) -> Option<Option<f64>> {
    let caps = re.captures(line)?;
    let group = caps
        .name("s")
        .or_else(|| caps.name("ms"))
        .or_else(|| caps.get(1));
    Some(group.and_then(|g| g.as_str().trim().parse::<f64>().ok()))
}

/// Step times in milliseconds from the matches of one run.
pub fn step_times(unit: StepUnit, matches: &[StepMatch]) -> Vec<f64> {
    match unit {
        StepUnit::Milliseconds => matches.iter().filter_map(|m| m.value).collect(),
        StepUnit::Seconds => matches
            .iter()
            .filter_map(|m| m.value.map(|s| s * 1e3))
            .collect(),
        StepUnit::Interval => matches
            .windows(2)
            .map(|w| w[1].at.duration_since(w[0].at).as_secs_f64() * 1e3)
            .collect(),
    }
}

/// Copies a child's stream to ours as it arrives, and feeds complete lines to the regex.
fn pump(
    mut from: impl Read,
    mut to: impl Write,
    re: Option<Regex>,
    matches: Arc<Mutex<Vec<StepMatch>>>,
) {
    let mut buf = [0u8; 8192];
    let mut line = Vec::new();
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        // Our own stdout may be closed (`| head`): keep draining so the child is not blocked.
        let _ = to.write_all(&buf[..n]).and_then(|()| to.flush());
        let Some(re) = &re else { continue };
        for &b in &buf[..n] {
            if b == b'\n' || b == b'\r' {
                if !line.is_empty() {
                    let text = String::from_utf8_lossy(&line);
                    if let Some(value) = match_line(re, &text)
                        && let Ok(mut m) = matches.lock()
                    {
                        m.push(StepMatch {
                            at: Instant::now(),
                            value,
                        });
                    }
                    line.clear();
                }
            } else if line.len() < 64 * 1024 {
                line.push(b);
            }
        }
    }
}

/// After a signal (Ctrl-C, SIGTERM, SIGHUP): the command runs in its own process group, so the
/// terminal's Ctrl-C reaches gpufare alone; the whole group (the command and every child it
/// started) gets SIGINT from us at once, SIGTERM [`TERM_AFTER`] later if any of it is still
/// running, and SIGKILL [`KILL_AFTER`] after the signal. The same escalation goes on after the
/// command itself has exited, while processes of its group remain.
struct Stopping {
    pgid: i32,
    since: Option<Instant>,
    /// Signals sent so far: 0, 1 (SIGINT), 2 (SIGTERM) or 3 (SIGKILL).
    sent: u8,
}

/// See [`Stopping`].
const TERM_AFTER: Duration = Duration::from_secs(3);
/// See [`Stopping`].
const KILL_AFTER: Duration = Duration::from_secs(10);

impl Stopping {
    fn new(pgid: i32) -> Stopping {
        Stopping {
            pgid,
            since: None,
            sent: 0,
        }
    }

    fn step(&mut self) {
        let since = *self.since.get_or_insert_with(Instant::now);
        let waited = since.elapsed();
        let sig = match self.sent {
            0 => libc::SIGINT,
            1 if waited >= TERM_AFTER => libc::SIGTERM,
            2 if waited >= KILL_AFTER => libc::SIGKILL,
            _ => return,
        };
        self.sent += 1;
        interrupt::signal_group(self.pgid, sig);
    }

    /// After the command exited on a signal of ours: escalates until no process of its group
    /// is left (at most until SIGKILL, [`KILL_AFTER`] after the first signal).
    fn finish(&mut self) {
        while interrupt::signal_group(self.pgid, 0) {
            if self.sent >= 3 {
                // Killed; what is left are zombies for init to reap.
                break;
            }
            self.step();
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Samples taken during one run.
#[derive(Default)]
struct Samples {
    gpu_util: Vec<f64>,
    vram_peak: Option<f64>,
    cpu_busy: Vec<f64>,
    iowait: Vec<f64>,
    disk_read: Vec<f64>,
    net_rx: Vec<f64>,
}

fn sample_once(gpus: Option<&dyn GpuSource>, host: &mut HostSampler, s: &mut Samples) {
    if let Some(source) = gpus {
        let rows: Vec<_> = (0..source.count()).map(|i| source.sample(i)).collect();
        let utils: Vec<f64> = rows.iter().filter_map(|r| r.utilization_gpu_pct).collect();
        if !utils.is_empty() {
            s.gpu_util
                .push(utils.iter().sum::<f64>() / utils.len() as f64);
        }
        for m in rows.iter().filter_map(|r| r.memory_used_mib) {
            s.vram_peak = Some(s.vram_peak.map_or(m, |p: f64| p.max(m)));
        }
    }
    let r = host.sample();
    s.cpu_busy.extend(r.cpu_busy_cores);
    s.iowait.extend(r.cpu_iowait_pct);
    s.disk_read.extend(r.disk_read_mb_per_s);
    s.net_rx.extend(r.net_rx_mbit_per_s);
}

struct Finished {
    record: RunRecord,
    samples: Samples,
    steps: Vec<f64>,
    status: ExitStatus,
}

fn run_once(options: &RunOptions, index: u32, gpus: Option<&dyn GpuSource>) -> Result<Finished> {
    let program = &options.command[0];
    let mut command = Command::new(program);
    // Its own process group: a signal to gpufare reaches the command's every process through
    // the group (see `Stopping`). A process of a background group that reads the terminal is
    // stopped by the kernel (SIGTTIN), so a terminal on standard input is not passed on.
    let stdin = if io::stdin().is_terminal() {
        Stdio::null()
    } else {
        Stdio::inherit()
    };
    command
        .args(&options.command[1..])
        .process_group(0)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if std::env::var_os("PYTHONUNBUFFERED").is_none() {
        // Python buffers a piped stdout in blocks; step lines must arrive when they are printed.
        command.env("PYTHONUNBUFFERED", "1");
    }
    let mut host = HostSampler::start(Path::new("/"));
    let start = Instant::now();
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot start {program:?}"))?;
    let matches = Arc::new(Mutex::new(Vec::new()));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let mut pumps = 0;
    if let Some(out) = child.stdout.take() {
        let (m, re, tx) = (matches.clone(), options.step_regex.clone(), done_tx.clone());
        std::thread::spawn(move || {
            pump(out, io::stdout(), re, m);
            let _ = tx.send(());
        });
        pumps += 1;
    }
    if let Some(err) = child.stderr.take() {
        let (m, re, tx) = (matches.clone(), options.step_regex.clone(), done_tx.clone());
        std::thread::spawn(move || {
            pump(err, io::stderr(), re, m);
            let _ = tx.send(());
        });
        pumps += 1;
    }
    drop(done_tx);
    let pgid = i32::try_from(child.id()).context("the command's process id")?;
    let _group = interrupt::CommandGroup::register(pgid);
    let mut last_sample = Instant::now();
    let (exit_tx, exit_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let status = child.wait();
        let _ = exit_tx.send((status, Instant::now()));
    });
    let mut samples = Samples::default();
    let mut stopping = Stopping::new(pgid);
    let (status, end) = loop {
        match exit_rx.recv_timeout(options.interval.min(Duration::from_millis(250))) {
            Ok((status, end)) => break (status.context("waiting for the command")?, end),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if last_sample.elapsed() >= options.interval {
                    last_sample = Instant::now();
                    sample_once(gpus, &mut host, &mut samples);
                }
                if interrupt::interrupted() {
                    stopping.step();
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => bail!("lost track of the command"),
        }
    };
    if interrupt::interrupted() {
        stopping.finish();
    }
    // The output may still be in the pipes; a grandchild holding them open is not waited for
    // longer than a few seconds.
    let grace = Instant::now() + Duration::from_secs(5);
    for _ in 0..pumps {
        if done_rx
            .recv_timeout(grace.saturating_duration_since(Instant::now()))
            .is_err()
        {
            break;
        }
    }
    let wall_s = end.duration_since(start).as_secs_f64();
    let matches = matches.lock().map(|m| m.clone()).unwrap_or_default();
    let steps = options
        .step_regex
        .as_ref()
        .map(|re| step_times(step_unit(re), &matches))
        .unwrap_or_default();
    use std::os::unix::process::ExitStatusExt;
    let record = RunRecord {
        index,
        wall_s,
        exit_code: status.code(),
        signal: status.signal(),
        step_ms: (!steps.is_empty()).then(|| Series::new(steps.clone())),
        vram_peak_mib: samples.vram_peak,
        gpu_utilization_pct: summarize(&samples.gpu_util),
    };
    Ok(Finished {
        record,
        samples,
        steps,
        status,
    })
}

fn series(values: Vec<f64>) -> Option<Series> {
    (!values.is_empty()).then(|| Series::new(values))
}

/// Runs the command `repeat` times and writes the profile.
pub fn run(options: &RunOptions) -> Result<()> {
    let _cooperate = interrupt::Cooperate::start();
    let mut profile = match &options.profile {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--profile {}: cannot read it", path.display()))?;
            parse_profile(&text).with_context(|| format!("--profile {}", path.display()))?
        }
        None => {
            let collected = measure::collect(&measure::ProbeOptions::quick(
                options.output.clone(),
                options.redact,
                options.no_gpu,
            ))?;
            collected.profile
        }
    };
    let opened = if options.no_gpu {
        None
    } else {
        match gpu::open() {
            gpu::Opened::Ready(source) => Some(source),
            gpu::Opened::Unavailable(_) => None,
        }
    };
    let gpus: Option<&dyn GpuSource> = opened
        .as_ref()
        .map(|s| &**s as &dyn GpuSource)
        .filter(|s| s.count() > 0);
    let mut notes = Vec::new();
    if gpus.is_none() {
        notes.push(if options.no_gpu {
            "GPU sampling was turned off (--no-gpu)".to_owned()
        } else {
            "no NVIDIA GPU could be read: no GPU utilisation or VRAM figures".to_owned()
        });
    }
    if options
        .step_regex
        .as_ref()
        .is_some_and(|re| step_unit(re) == StepUnit::Interval)
    {
        notes.push(
            "the step regex has no capture group: step times are the gaps between matching lines"
                .to_owned(),
        );
    }
    let mut records = Vec::new();
    let mut all = Samples::default();
    let mut steps = Vec::new();
    let mut failure = None;
    for index in 1..=options.repeat {
        if interrupt::interrupted() {
            break;
        }
        let _ = writeln!(
            io::stderr(),
            "gpufare: run {index} of {}: {}",
            options.repeat,
            options.command.join(" ")
        );
        let f = run_once(options, index, gpus)?;
        let _ = writeln!(
            io::stderr(),
            "gpufare: run {index} took {:.2} s ({})",
            f.record.wall_s,
            f.status
        );
        all.gpu_util.extend(f.samples.gpu_util);
        all.cpu_busy.extend(f.samples.cpu_busy);
        all.iowait.extend(f.samples.iowait);
        all.disk_read.extend(f.samples.disk_read);
        all.net_rx.extend(f.samples.net_rx);
        if let Some(v) = f.samples.vram_peak {
            all.vram_peak = Some(all.vram_peak.map_or(v, |p: f64| p.max(v)));
        }
        steps.extend(f.steps);
        records.push(f.record);
        if !f.status.success() {
            failure = Some(CommandFailed {
                message: format!(
                    "run {index} of {} failed ({}); stopped",
                    options.repeat, f.status
                ),
                exit_code: shell_status(f.status),
            });
            break;
        }
    }
    if options.step_regex.is_some() && steps.is_empty() && !records.is_empty() {
        notes.push("the step regex matched no line of the output".to_owned());
    }
    let wall = series(records.iter().map(|r| r.wall_s).collect());
    let step_ms = series(steps);
    let ratio = step_ms
        .as_ref()
        .or(wall.as_ref())
        .and_then(|s| s.summary)
        .and_then(|s| s.tail_ratio());
    profile.runs = Some(RunReport {
        command: options.command.clone(),
        repeat: options.repeat,
        interval_ms: options.interval.as_millis() as u64,
        step_regex: options.step_regex.as_ref().map(|r| r.as_str().to_owned()),
        runs: records,
        wall_s: wall,
        step_ms,
        p99_over_p50: ratio,
        gpu_utilization_pct: series(all.gpu_util),
        vram_peak_mib: all.vram_peak,
        cpu_busy_cores: series(all.cpu_busy),
        cpu_iowait_pct: series(all.iowait),
        disk_read_mb_per_s: series(all.disk_read),
        net_rx_mbit_per_s: series(all.net_rx),
        notes,
    });
    profile.verdicts = analyse(&profile);
    let mut json = profile_to_json(&profile);
    json.push('\n');
    let interrupted = interrupt::interrupted();
    let succeeded = failure.is_none() && !interrupted;
    let written = output::write_result(&options.output, &json, succeeded, options.force)?;
    summary(&profile);
    if written == output::Written::KeptExisting {
        let _ = writeln!(
            io::stderr(),
            "gpufare: {} was left as it was, since this run {}; --force replaces it",
            options.output.display(),
            if interrupted {
                "was interrupted"
            } else {
                "failed"
            }
        );
    }
    if interrupted {
        return Err(Interrupted.into());
    }
    if let Some(f) = failure {
        return Err(f.into());
    }
    Ok(())
}

/// A short summary on standard error.
fn summary(profile: &gpufare_core::profile::document::Profile) {
    let Some(r) = &profile.runs else { return };
    let mut err = io::stderr().lock();
    if let Some(s) = r.wall_s.as_ref().and_then(|w| w.summary) {
        let _ = writeln!(
            err,
            "gpufare: wall time over {} run(s): P50 {:.2} s, P99 {:.2} s",
            s.n, s.p50, s.p99
        );
    }
    if let Some(s) = r.step_ms.as_ref().and_then(|w| w.summary) {
        let _ = writeln!(
            err,
            "gpufare: {} steps: P50 {:.1} ms, P99 {:.1} ms",
            s.n, s.p50, s.p99
        );
    }
    if let Some(ratio) = r.p99_over_p50 {
        let _ = writeln!(err, "gpufare: P99/P50 {ratio:.2}");
    }
    if let Some(v) = profile
        .verdicts
        .iter()
        .find(|v| v.kind == gpufare_core::profile::verdict::VerdictKind::Bottleneck)
    {
        let evidence: Vec<String> = v
            .evidence
            .iter()
            .map(|e| format!("{}={}", e.key, e.value))
            .collect();
        let _ = writeln!(
            err,
            "gpufare: bottleneck: {} ({})",
            v.finding.id(),
            evidence.join(", ")
        );
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Where to write the profile (with the runs, host facts and limits, and the bottleneck
    /// verdict). Not `-`: standard output carries the command's own output. As with `gpufare
    /// probe -o`: an existing file is replaced atomically and keeps its permissions; a character
    /// device such as /dev/null or a named pipe is written through; a symbolic link is followed
    /// to the existing file it points at. If a run fails or is interrupted, an existing file is
    /// left as it was (see --force).
    #[arg(short, long, value_name = "FILE", value_parser = parse_run_output)]
    pub output: PathBuf,

    /// Replace an existing --output file even when a run failed or was interrupted.
    #[arg(long)]
    pub force: bool,

    /// How many times to run the command (it stops at the first failed run).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub repeat: u32,

    /// A regular expression for step lines in the output (see below).
    #[arg(long, value_name = "RE", value_parser = parse_regex)]
    pub step_regex: Option<regex::Regex>,

    /// Milliseconds between GPU and host samples.
    #[arg(long, value_name = "MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub interval: u64,

    /// Start from this probe profile (e.g. with --disk-dir and --iperf3 figures), so the
    /// bottleneck verdict can compare the run with them.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,

    /// Do not sample NVIDIA GPUs.
    #[arg(long)]
    pub no_gpu: bool,

    /// Leave out the host name and GPU UUIDs.
    #[arg(long)]
    pub redact: bool,

    /// The command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

impl RunArgs {
    /// The options these arguments ask for.
    pub fn options(&self) -> RunOptions {
        RunOptions {
            command: self.command.clone(),
            repeat: self.repeat,
            step_regex: self.step_regex.clone(),
            interval: std::time::Duration::from_millis(self.interval),
            output: self.output.clone(),
            profile: self.profile.clone(),
            no_gpu: self.no_gpu,
            redact: self.redact,
            force: self.force,
        }
    }
}

fn parse_regex(text: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(text).map_err(|e| format!("not a valid regular expression: {e}"))
}

fn parse_run_output(text: &str) -> Result<PathBuf, String> {
    if text == "-" {
        return Err("give a file: standard output carries the command's own output".to_owned());
    }
    Ok(PathBuf::from(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_step_values_by_group() {
        let ms = Regex::new(r"step \d+ took ([0-9.]+) ms").unwrap();
        assert_eq!(step_unit(&ms), StepUnit::Milliseconds);
        assert_eq!(match_line(&ms, "step 3 took 101.5 ms"), Some(Some(101.5)));
        assert_eq!(match_line(&ms, "loss 0.3"), None);
        let s = Regex::new(r"time=(?P<s>[0-9.]+)s").unwrap();
        assert_eq!(step_unit(&s), StepUnit::Seconds);
        let t0 = Instant::now();
        let m = |v| StepMatch {
            at: t0,
            value: Some(v),
        };
        assert_eq!(
            step_times(StepUnit::Seconds, &[m(0.5), m(0.25)]),
            [500.0, 250.0]
        );
        let boundary = Regex::new(r"^step \d+").unwrap();
        assert_eq!(step_unit(&boundary), StepUnit::Interval);
        assert_eq!(match_line(&boundary, "step 1"), Some(None));
        let gaps = step_times(
            StepUnit::Interval,
            &[
                StepMatch {
                    at: t0,
                    value: None,
                },
                StepMatch {
                    at: t0 + Duration::from_millis(40),
                    value: None,
                },
            ],
        );
        assert_eq!(gaps, [40.0]);
    }
}
