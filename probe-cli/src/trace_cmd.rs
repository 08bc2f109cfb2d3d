//! Preemption traces on the command line: `gpufare trace FILE` shows what a trace holds, and
//! `gpufare plan` attaches traces to offers (`--trace OFFER=FILE`, or a catalog row's `trace`
//! column, resolved next to the catalog file). Reading is bounded: a file larger than core's
//! limit is refused before it is read.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;
use gpufare_core::plan::replay::{Backtest, BacktestJob, backtest};
use gpufare_core::task::document::{Checkpoint, TaskProfile};

use crate::input::{InputFileError, read_trace};
use crate::output;
use crate::report::stats_text;

/// The flags of `gpufare trace`.
#[derive(Debug, clap::Args)]
pub struct TraceArgs {
    /// Trace files: the Can't Be Late dataset's JSON or a CSV of timestamp,count rows.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Backtest a job of this many hours of work: replay it from every tick of each trace
    /// next to the model fitted to the same trace.
    #[arg(long, value_name = "H")]
    pub job_hours: Option<f64>,
    /// Hours of work between the job's checkpoints (none: a preemption loses everything).
    #[arg(long, value_name = "H", requires = "job_hours")]
    pub checkpoint_hours: Option<f64>,
    /// Hours each restart takes after a preemption (with checkpoints).
    #[arg(long, value_name = "H", default_value_t = 0.1, requires = "job_hours")]
    pub restart_hours: f64,
    /// Minutes a checkpoint takes to write (default: as long as a restart).
    #[arg(long, value_name = "M", requires = "job_hours")]
    pub save_minutes: Option<f64>,
    /// Warning before a preemption, seconds (AWS gives 120).
    #[arg(long, value_name = "S", default_value_t = 0.0, requires = "job_hours")]
    pub notice_seconds: f64,
    /// Monte Carlo seed of the model.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Monte Carlo trials of the model.
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub trials: u32,
}

/// The job of `gpufare trace --job-hours`.
#[derive(Debug, Clone, Copy)]
pub struct JobArgs {
    pub work_hours: f64,
    pub checkpoint_hours: Option<f64>,
    pub restart_hours: f64,
    pub save_minutes: Option<f64>,
    pub notice_seconds: f64,
}

/// What `gpufare trace` was asked.
#[derive(Debug, Clone)]
pub struct TraceRequest {
    pub files: Vec<PathBuf>,
    pub json: bool,
    pub job: Option<JobArgs>,
    pub seed: u64,
    pub trials: u32,
}

/// The job as core takes it; out-of-range values are usage errors checked by the task's rules.
fn backtest_job(j: &JobArgs) -> Result<BacktestJob> {
    let checkpoint = j.checkpoint_hours.map(|interval_hours| Checkpoint {
        interval_hours,
        restart_overhead_hours: j.restart_hours,
        save_minutes: j.save_minutes,
    });
    // The same ranges a task's fields have.
    let mut task: TaskProfile = serde_json::from_str(
        r#"{"format_version":1,"kind":"training","work_hours":1,"reference_gpu":"A100-80GB","vram_gib":1,"currency":"CNY"}"#,
    )?;
    task.work_hours = j.work_hours;
    task.checkpoint = checkpoint;
    task.validate()
        .map_err(|e| anyhow::Error::new(InputFileError(format!("the backtest job: {e}"))))?;
    if !(j.notice_seconds.is_finite() && (0.0..=86_400.0).contains(&j.notice_seconds)) {
        anyhow::bail!(InputFileError(
            "--notice-seconds: must be between 0 and 86400".to_owned()
        ));
    }
    Ok(BacktestJob {
        work_hours: j.work_hours,
        checkpoint,
        notice_seconds: j.notice_seconds,
    })
}

/// The backtest of one trace as lines of text.
pub fn backtest_text(b: &Backtest) -> String {
    let mut s = String::new();
    let err = |model: f64, replay: f64| {
        if replay > 0.0 {
            format!("{:+.0} %", (model / replay - 1.0) * 100.0)
        } else {
            "-".to_owned()
        }
    };
    let _ = writeln!(
        s,
        "  {:<14} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "completion", "mean h", "P50 h", "P90 h", "P99 h", "billed h"
    );
    for (what, x) in [("replay", &b.replay), ("fitted model", &b.model)] {
        let _ = writeln!(
            s,
            "  {what:<14} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>12.2}",
            x.mean, x.p50, x.p90, x.p99, x.billed_mean
        );
    }
    let _ = writeln!(
        s,
        "  {:<14} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "model error",
        err(b.model.mean, b.replay.mean),
        err(b.model.p50, b.replay.p50),
        err(b.model.p90, b.replay.p90),
        err(b.model.p99, b.replay.p99),
        err(b.model.billed_mean, b.replay.billed_mean)
    );
    s
}

/// Runs `gpufare trace` with its flags.
pub fn run(args: &TraceArgs) -> Result<()> {
    run_trace(&TraceRequest {
        files: args.files.clone(),
        json: args.json,
        job: args.job_hours.map(|work_hours| JobArgs {
            work_hours,
            checkpoint_hours: args.checkpoint_hours,
            restart_hours: args.restart_hours,
            save_minutes: args.save_minutes,
            notice_seconds: args.notice_seconds,
        }),
        seed: args.seed,
        trials: args.trials,
    })
}

/// `gpufare trace FILE...`: what each trace holds and the model fitted to it, and with
/// `--job-hours` a backtest of that job.
pub fn run_trace(req: &TraceRequest) -> Result<()> {
    let job = req.job.as_ref().map(backtest_job).transpose()?;
    let mut text = String::new();
    let mut docs = Vec::new();
    for f in &req.files {
        let trace = read_trace(f)?;
        match &job {
            Some(j) => {
                let b = backtest(&trace, j, req.seed, req.trials);
                let _ = write!(text, "{}", stats_text(&b.trace));
                let _ = writeln!(
                    text,
                    "  backtest: a {} h job{}, from every tick ({} starts) vs {} trials of the fitted model",
                    j.work_hours,
                    j.checkpoint
                        .map(|c| format!(
                            ", checkpoints every {} h, restarts of {} h",
                            c.interval_hours, c.restart_overhead_hours
                        ))
                        .unwrap_or_else(|| ", no checkpoints".to_owned()),
                    b.replay.samples,
                    b.model.samples
                );
                let _ = writeln!(text, "{}", backtest_text(&b));
                docs.push(serde_json::to_value(&b)?);
            }
            None => {
                let stats = trace.stats();
                let _ = writeln!(text, "{}", stats_text(&stats));
                docs.push(serde_json::to_value(&stats)?);
            }
        }
    }
    let out = if req.json {
        format!("{}\n", serde_json::to_string_pretty(&docs)?)
    } else {
        text
    };
    output::write_text(Path::new("-"), &out)
}
