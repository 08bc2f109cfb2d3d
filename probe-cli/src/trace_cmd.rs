//! Preemption traces on the command line: `gpufare trace FILE` shows what a trace holds, and
//! `gpufare plan` attaches traces to offers (`--trace OFFER=FILE`, or a catalog row's `trace`
//! column, resolved next to the catalog file). Reading is bounded: a file larger than core's
//! limit is refused before it is read.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::Result;
use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::queue::Queue;
use gpufare_core::offers::queue_trace::{MAX_QUEUE_TRACE_BYTES, parse_queue_trace};
use gpufare_core::offers::trace::{AttachedTrace, MAX_TRACE_BYTES, Trace, TraceStats, parse_trace};
use gpufare_core::plan::PlanResult;
use gpufare_core::plan::replay::{Backtest, BacktestJob, backtest};
use gpufare_core::task::document::{Checkpoint, TaskProfile};

use crate::output;
use crate::plan_cmd::InputFileError;

fn bad(path: &Path, problem: impl std::fmt::Display) -> anyhow::Error {
    anyhow::Error::new(InputFileError(format!("{}: {problem}", path.display())))
}

/// Reads and parses one trace file, refusing it unread when it is too large.
pub fn read_trace(path: &Path) -> Result<Trace> {
    let text = read_bounded(path, MAX_TRACE_BYTES)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    parse_trace(&name, &text).map_err(|e| bad(path, e))
}

/// Splits `OFFER=FILE`.
pub fn parse_trace_arg(arg: &str) -> Result<(String, PathBuf)> {
    match arg.split_once('=') {
        Some((offer, file)) if !offer.trim().is_empty() && !file.is_empty() => {
            Ok((offer.trim().to_owned(), PathBuf::from(file)))
        }
        _ => Err(anyhow::Error::new(InputFileError(format!(
            "--trace {arg:?}: give OFFER=FILE, e.g. --trace aws-use1-g5xl-spot=us-east-1c.json"
        )))),
    }
}

/// Splits a `--queue-trace OFFER=FILE` argument.
pub fn parse_queue_trace_arg(arg: &str) -> Result<(String, PathBuf)> {
    match arg.split_once('=') {
        Some((offer, file)) if !offer.trim().is_empty() && !file.is_empty() => {
            Ok((offer.trim().to_owned(), PathBuf::from(file)))
        }
        _ => Err(anyhow::Error::new(InputFileError(format!(
            "--queue-trace {arg:?}: give OFFER=FILE, e.g. --queue-trace suanjia-4090-ts2-payg=waits.csv"
        )))),
    }
}

/// Reads a queue trace (a regular file within the size limit) and attaches it to `offer` of the
/// catalog, saying on stderr what it holds; an offer the catalog does not hold is refused.
pub fn attach_queue_trace(catalog: &mut Catalog, offer: &str, path: &Path) -> Result<()> {
    let Some(o) = catalog.offers.iter_mut().find(|o| o.id == offer) else {
        anyhow::bail!(InputFileError(format!(
            "--queue-trace {offer}={}: the catalog has no offer {offer:?}",
            path.display()
        )));
    };
    let text = read_bounded(path, MAX_QUEUE_TRACE_BYTES)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let trace = parse_queue_trace(&name, &text).map_err(|e| bad(path, e))?;
    let q = Queue::from_trace(&trace);
    eprintln!(
        "gpufare: {}: {} starts{} attached to {offer}: {:.0} % at once, P50 {}, P90 {}, P99 {}",
        path.display(),
        trace.starts,
        if trace.unstarted > 0 {
            format!(" ({} never started, left out)", trace.unstarted)
        } else {
            String::new()
        },
        trace.fitted.p0 * 100.0,
        wait_text(q.quantile_hours(0.5)),
        wait_text(q.quantile_hours(0.9)),
        wait_text(q.quantile_hours(0.99)),
    );
    o.queue_trace = Some(trace);
    Ok(())
}

/// A wait in the unit that reads best: seconds, minutes or hours.
pub fn wait_text(hours: f64) -> String {
    let s = hours * 3600.0;
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{hours:.1} h")
    }
}

/// A regular file's text, refused when larger than `max` bytes (checked before and while
/// reading).
fn read_bounded(path: &Path, max: usize) -> Result<String> {
    let file = std::fs::File::open(path).map_err(|e| bad(path, format!("cannot read: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| bad(path, format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(bad(path, "not a regular file"));
    }
    if meta.len() > max as u64 {
        return Err(bad(
            path,
            format!(
                "the file is {} bytes; up to {max} bytes are read",
                meta.len()
            ),
        ));
    }
    let mut text = String::new();
    file.take(max as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|e| bad(path, format!("cannot read: {e}")))?;
    Ok(text)
}

/// Rewrites the `trace` paths of a catalog read from `catalog_path` to be relative to where the
/// command runs (they are written relative to the catalog file).
pub fn resolve_catalog_traces(catalog: &mut Catalog, catalog_path: &Path) {
    let dir = catalog_path.parent().unwrap_or(Path::new(""));
    for o in &mut catalog.offers {
        if let Some(t) = &mut o.interruptions.trace {
            let p = Path::new(t.as_str());
            if p.is_relative() {
                *t = dir.join(p).to_string_lossy().into_owned();
            }
        }
    }
}

/// The traces to attach: every catalog row's `trace`, then each `--trace OFFER=FILE` (which
/// replaces a row's); an offer the catalog does not hold is refused.
pub fn attach(catalog: &Catalog, args: &[(String, PathBuf)]) -> Result<Vec<AttachedTrace>> {
    let mut traces: Vec<AttachedTrace> = Vec::new();
    for o in &catalog.offers {
        if let Some(t) = &o.interruptions.trace {
            let path = PathBuf::from(t);
            let trace = read_trace(&path)
                .map_err(|e| anyhow::Error::new(InputFileError(format!("offer {}: {e}", o.id))))?;
            traces.push(AttachedTrace {
                offer_id: o.id.clone(),
                trace,
            });
        }
    }
    for (offer, path) in args {
        if !catalog.offers.iter().any(|o| &o.id == offer) {
            anyhow::bail!(InputFileError(format!(
                "--trace {offer}={}: the catalog has no offer {offer:?}",
                path.display()
            )));
        }
        let trace = read_trace(path)?;
        traces.retain(|t| &t.offer_id != offer);
        traces.push(AttachedTrace {
            offer_id: offer.clone(),
            trace,
        });
    }
    Ok(traces)
}

/// What a trace holds, as lines of text.
pub fn stats_text(s: &TraceStats) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} ticks of {} s, {:.1} h",
        s.name, s.ticks, s.tick_seconds, s.hours
    );
    let _ = writeln!(
        out,
        "  preemptions     {} ({:.3} per wall-clock hour, {:.3} per running hour)",
        s.preemptions, s.per_wall_hour, s.per_running_hour
    );
    let _ = writeln!(
        out,
        "  running         {:.1} h, {:.0} % of the time",
        s.running_hours,
        s.running_share * 100.0
    );
    for (what, st) in [("running spells", &s.spells), ("gaps", &s.gaps)] {
        let _ = writeln!(
            out,
            "  {what:<15} {}, median {:.2} h, P90 {:.2} h, mean {:.2} h",
            st.count, st.median_hours, st.p90_hours, st.mean_hours
        );
    }
    let f = &s.fitted;
    let _ = writeln!(
        out,
        "  fitted model    {:.3} preemptions per running hour, gaps of {:.2} h on average, \
         available {:.0} % of the time, {:.2} h mean wait at a start",
        f.rate_per_hour,
        f.gap_mean_hours,
        f.availability * 100.0,
        f.start_wait_mean_hours
    );
    out
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

/// A rate with three significant digits (a monthly band is 0.0005 per hour, a trace 0.7).
fn rate(x: f64) -> String {
    if x <= 0.0 || !x.is_finite() {
        return "0".to_owned();
    }
    let decimals = (2 - x.log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

/// The plan table's section on interruptible offers: the policy behind each one's figures, and
/// for an offer with a trace, replay against model for every policy.
pub fn risk_section(plan: &PlanResult, top: usize) -> String {
    let c = plan.currency.code();
    let money = |x: f64| gpufare_core::numbers::money::group_thousands(&format!("{x:.2}"));
    let mut s = String::new();
    // The feasible interruptible offers of the table, and every offer with a trace wherever it
    // ranks.
    let risky: Vec<_> = plan
        .options
        .iter()
        .enumerate()
        .filter(|(i, o)| {
            (o.feasible && *i < top) || o.risk.as_ref().is_some_and(|r| r.trace.is_some())
        })
        .filter_map(|(_, o)| o.risk.as_ref().map(|r| (o, r)))
        // A marketplace host lost a few times a year needs no policy line.
        .filter(|(_, r)| r.rate_per_hour >= 0.001 || r.trace.is_some())
        .collect();
    if risky.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "\ninterruptible offers (the policy behind their figures):"
    );
    for (o, r) in &risky {
        let chosen = r.chosen.id();
        let fallback = match (&r.fallback_offer, r.chosen.needs_fallback()) {
            (Some(f), true) => format!(" -> {f}"),
            _ => String::new(),
        };
        let source = match &r.trace {
            Some(t) => format!("trace {}", t.name),
            None => "offer".to_owned(),
        };
        let _ = writeln!(
            s,
            "  {:<30} {chosen}{fallback}; {} preemptions per running hour ({source}), gaps {:.2} h, notice {:.0} s{}",
            o.offer_id,
            rate(r.rate_per_hour),
            r.gap_hours,
            r.notice_seconds,
            if r.saves_on_notice {
                " (saves a checkpoint)"
            } else {
                ""
            }
        );
        if let (Some(lo), Some(hi), Some(tl), Some(th)) = (
            r.rate_low_per_hour,
            r.rate_high_per_hour,
            r.total_at_low,
            r.total_at_high,
        ) {
            let _ = writeln!(
                s,
                "  {:<30} staying put costs {} {c} at {} and {} {c} at {} per running hour",
                "",
                money(tl),
                rate(lo),
                money(th),
                rate(hi)
            );
        }
    }
    for (o, r) in risky.iter().filter(|(_, r)| r.trace.is_some()) {
        let _ = writeln!(
            s,
            "\npolicies on {} (replay of the trace vs the fitted model):",
            o.offer_id
        );
        if let Some(t) = &r.trace {
            let _ = write!(
                s,
                "{}",
                stats_text(t)
                    .lines()
                    .map(|l| format!("  {l}\n"))
                    .collect::<String>()
            );
        }
        let _ = writeln!(
            s,
            "  {:<18} {:>24} {:>24} {:>14} {:>14} {:>6}",
            "policy",
            "replay P50/P90/P99 h",
            "model P50/P90/P99 h",
            "replay total",
            "model total",
            "miss"
        );
        for p in &r.policies {
            let q = |o: &gpufare_core::plan::risk::Outcome| {
                format!(
                    "{:.1} / {:.1} / {:.1}",
                    o.hours_p50, o.hours_p90, o.hours_p99
                )
            };
            let miss = p
                .evidence()
                .deadline_miss_probability
                .map_or("-".to_owned(), |m| format!("{:.0} %", m * 100.0));
            let _ = writeln!(
                s,
                "  {:<18} {:>24} {:>24} {:>14} {:>14} {:>6}{}",
                p.id,
                p.replay.as_ref().map_or("-".to_owned(), q),
                q(&p.model),
                p.replay.as_ref().map_or("-".to_owned(), |x| format!(
                    "{} {c}",
                    money(x.total_expected)
                )),
                format!("{} {c}", money(p.model.total_expected)),
                miss,
                if p.policy == r.chosen {
                    "  <- chosen"
                } else {
                    ""
                }
            );
        }
    }
    s
}
