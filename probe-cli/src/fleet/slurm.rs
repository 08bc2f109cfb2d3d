//! `gpufare fleet slurm`: a batch script that runs `gpufare probe` once per node, its
//! submission with `sbatch`, and `--wait`, which follows the job with `squeue` and then asks
//! `sacct` (or `scontrol` where accounting is off) how every task ended.
//!
//! Each task writes its profile to a hidden name in the output directory and renames it into
//! place (`mv` within one directory is a rename), so a reader of `*.json` there never sees a
//! half-written profile. The name holds the job id, the task index and the host:
//! `gpufare-<job>-<task>-<host>.json`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::args::{SlurmArgs, SlurmMode};
use super::shell_quote;
use crate::output;

/// The placeholder in `--output-dir` that becomes the task index.
const INDEX_PLACEHOLDER: &str = "%a";

/// Runs `gpufare fleet slurm`.
pub fn run(args: &SlurmArgs) -> Result<()> {
    let script = script(args)?;
    if !args.submit {
        return output::write_text(&args.output, &script);
    }
    if args.output.as_os_str() != "-" {
        output::write_text(&args.output, &script)?;
    }
    if let Some(logs) = &args.log_dir {
        // Slurm does not create the directory of --output; a task whose log cannot be opened
        // fails before it starts.
        std::fs::create_dir_all(logs)
            .with_context(|| format!("cannot create the log directory {}", logs.display()))?;
    }
    let job = submit(&script)?;
    eprintln!(
        "gpufare: submitted Slurm job {job} ({} tasks); profiles go to {}",
        args.nodes,
        args.output_dir.display()
    );
    if !args.wait {
        // The job id alone on standard output, for scripts.
        println!("{job}");
    }
    if !args.wait {
        return Ok(());
    }
    let outcome = wait(&job, args)?;
    print!("{}", outcome.text);
    if outcome.failed > 0 {
        bail!(
            "{} of {} tasks of job {job} failed or never ran",
            outcome.failed,
            args.nodes
        );
    }
    Ok(())
}

/// An absolute form of `path` (relative to the current directory), without touching the disk:
/// the tasks run elsewhere and must find the same place.
fn absolute(path: &Path) -> Result<PathBuf> {
    if path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    Ok(std::env::current_dir()
        .context("cannot read the current directory")?
        .join(path))
}

/// The output directory as a shell word, `%a` becoming the task index (`$task`).
fn dir_word(dir: &Path) -> String {
    let text = dir.to_string_lossy();
    text.split(INDEX_PLACEHOLDER)
        .map(|part| {
            if part.is_empty() {
                String::new()
            } else {
                shell_quote(part)
            }
        })
        .collect::<Vec<_>>()
        .join("\"$task\"")
}

/// The directory task `index` writes to.
fn task_dir(dir: &Path, index: u32) -> PathBuf {
    PathBuf::from(
        dir.to_string_lossy()
            .replace(INDEX_PLACEHOLDER, &index.to_string()),
    )
}

/// The batch script.
pub fn script(args: &SlurmArgs) -> Result<String> {
    super::check_probe_args(&args.probe_args)?;
    let dir = absolute(&args.output_dir)?;
    let gpufare = match &args.gpufare {
        Some(p) => absolute(p)?,
        None => std::env::current_exe().context("cannot find this gpufare binary's path")?,
    };
    let n = args.nodes;
    let mut s = String::new();
    let _ = writeln!(s, "#!/bin/bash");
    let _ = writeln!(
        s,
        "# Written by `gpufare fleet slurm`: runs `gpufare probe` once on each of {n} {}, each \
         writing its profile to {}.",
        if args.mode == SlurmMode::Array {
            "array tasks"
        } else {
            "nodes (srun)"
        },
        dir.display()
    );
    let _ = writeln!(
        s,
        "# Submit with `sbatch` (or `gpufare fleet slurm --submit`), then merge the results with\n\
         # `gpufare fleet merge {} -o fleet.jsonl`.",
        dir.to_string_lossy().replace(INDEX_PLACEHOLDER, "*")
    );
    let _ = writeln!(s, "#SBATCH --job-name={}", shell_quote(&args.job_name));
    match args.mode {
        SlurmMode::Array => {
            let _ = writeln!(s, "#SBATCH --array=0-{}", n - 1);
            let _ = writeln!(s, "#SBATCH --ntasks=1");
        }
        SlurmMode::Srun => {
            let _ = writeln!(s, "#SBATCH --nodes={n}");
            let _ = writeln!(s, "#SBATCH --ntasks={n}");
            let _ = writeln!(s, "#SBATCH --ntasks-per-node=1");
        }
    }
    for (flag, value) in [
        ("partition", &args.partition),
        ("gres", &args.gres),
        ("time", &args.time),
        ("account", &args.account),
    ] {
        if let Some(v) = value {
            if v.contains(char::is_whitespace) || v.is_empty() {
                bail!("--{flag} {v:?}: a Slurm {flag} has no spaces");
            }
            let _ = writeln!(s, "#SBATCH --{flag}={v}");
        }
    }
    if args.exclusive {
        let _ = writeln!(s, "#SBATCH --exclusive");
    }
    if let Some(logs) = &args.log_dir {
        let logs = absolute(logs)?;
        let pattern = match args.mode {
            SlurmMode::Array => "gpufare-%A-%a.log",
            SlurmMode::Srun => "gpufare-%j.log",
        };
        let path = logs.join(pattern).to_string_lossy().into_owned();
        if path.contains(char::is_whitespace) {
            bail!(
                "--log-dir {}: Slurm's #SBATCH lines cannot hold spaces",
                logs.display()
            );
        }
        let _ = writeln!(s, "#SBATCH --output={path}");
    }
    let probe = super::probe_words(&args.probe_args);
    let _ = writeln!(s, "set -u");
    let _ = writeln!(s, "gpufare={}", shell_quote(&gpufare.to_string_lossy()));
    let _ = writeln!(s, "probe_task() {{");
    let _ = writeln!(s, "  job=\"$1\" task=\"$2\"");
    let _ = writeln!(s, "  host=\"$(hostname -s 2>/dev/null || hostname)\"");
    let _ = writeln!(s, "  out={}", dir_word(&dir));
    let _ = writeln!(s, "  name=\"gpufare-$job-$task-$host.json\"");
    let _ = writeln!(s, "  tmp=\"$out/.$name.partial\"");
    let _ = writeln!(
        s,
        "  mkdir -p -- \"$out\" || {{ echo \"gpufare fleet: task $task on $host: cannot create $out\" >&2; return 1; }}"
    );
    let _ = writeln!(
        s,
        "  \"$gpufare\" probe {}-o \"$tmp\"",
        probe.iter().map(|a| format!("{a} ")).collect::<String>()
    );
    let _ = writeln!(s, "  status=$?");
    let _ = writeln!(s, "  if [ \"$status\" -ne 0 ]; then");
    let _ = writeln!(s, "    rm -f -- \"$tmp\"");
    let _ = writeln!(
        s,
        "    echo \"gpufare fleet: task $task on $host: gpufare probe failed (status $status)\" >&2"
    );
    let _ = writeln!(s, "    return \"$status\"");
    let _ = writeln!(s, "  fi");
    let _ = writeln!(
        s,
        "  mv -f -- \"$tmp\" \"$out/$name\" || {{ rm -f -- \"$tmp\"; echo \"gpufare fleet: task $task on $host: cannot rename into $out\" >&2; return 1; }}"
    );
    let _ = writeln!(
        s,
        "  echo \"gpufare fleet: task $task on $host wrote $out/$name\""
    );
    let _ = writeln!(s, "}}");
    match args.mode {
        SlurmMode::Array => {
            let _ = writeln!(
                s,
                "probe_task \"${{SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}}\" \"${{SLURM_ARRAY_TASK_ID:-0}}\""
            );
        }
        SlurmMode::Srun => {
            // srun starts one task per node; the function and the binary's path reach them
            // through the environment srun passes on (--export=ALL, its default).
            let _ = writeln!(s, "export -f probe_task");
            let _ = writeln!(s, "export gpufare");
            let _ = writeln!(
                s,
                "srun --nodes={n} --ntasks={n} --ntasks-per-node=1 /bin/bash -c 'probe_task \"$SLURM_JOB_ID\" \"$SLURM_PROCID\"'"
            );
        }
    }
    Ok(s)
}

/// Submits the script through `sbatch`'s standard input; returns the job id.
fn submit(script: &str) -> Result<String> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new("sbatch")
        .arg("--parsable")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run sbatch (is Slurm installed and on PATH?)")?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(script.as_bytes())
            .context("cannot pass the script to sbatch")?;
    }
    let out = child.wait_with_output().context("sbatch did not finish")?;
    if !out.status.success() {
        bail!(
            "sbatch refused the job ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // `--parsable` prints "JOBID" or "JOBID;CLUSTER".
    let job = text
        .trim()
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_owned();
    if job.is_empty() || !job.chars().all(|c| c.is_ascii_digit()) {
        bail!("sbatch printed no job id: {:?}", text.trim());
    }
    Ok(job)
}

/// What `--wait` found.
struct Outcome {
    text: String,
    failed: u32,
}

/// Polls `squeue` until the job has left the queue, then checks every task.
fn wait(job: &str, args: &SlurmArgs) -> Result<Outcome> {
    let poll = Duration::from_secs_f64(args.poll);
    loop {
        let out = Command::new("squeue")
            .args(["-h", "-j", job, "-o", "%i %T"])
            .output()
            .context("cannot run squeue")?;
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        // Once purged, squeue says "Invalid job id specified" and exits 1: the job is over.
        if !out.status.success() && !err.contains("Invalid job id") {
            bail!(
                "squeue cannot tell how job {job} is doing ({}): {}",
                out.status,
                err.trim()
            );
        }
        if text.trim().is_empty() {
            break;
        }
        std::thread::sleep(poll);
    }
    let (states, source) = task_states(job);
    let dir = absolute(&args.output_dir)?;
    let mut text = String::new();
    let mut failed = 0;
    let mut written = 0;
    let mut lines = Vec::new();
    for index in 0..args.nodes {
        let tdir = task_dir(&dir, index);
        let profile = find_profile(&tdir, job, index);
        let state = states.get(&index);
        let ok_state = state.is_none_or(|(s, _)| s == "COMPLETED");
        match (&profile, ok_state) {
            (Some(_), true) => written += 1,
            _ => {
                failed += 1;
                let why = match state {
                    Some((s, code)) => format!("{s} (exit {code})"),
                    None if states.is_empty() => "state unknown".to_owned(),
                    None => "never ran".to_owned(),
                };
                let file = match &profile {
                    Some(p) => format!("profile {}", p.display()),
                    None => format!("no profile in {}", tdir.display()),
                };
                lines.push(format!("  task {index}: {why}, {file}"));
            }
        }
    }
    let _ = writeln!(
        text,
        "job {job}: {} tasks, {written} profiles written, {failed} failed or never ran",
        args.nodes
    );
    for l in lines {
        let _ = writeln!(text, "{l}");
    }
    let _ = writeln!(
        text,
        "  ({})",
        match source {
            Some(StateSource::Sacct) => "task states from sacct, Slurm's accounting",
            Some(StateSource::Scontrol) => {
                "task states from scontrol: accounting is off, and scontrol forgets a job after MinJobAge"
            }
            None => "neither sacct nor scontrol knew the job's tasks; judged by the files alone",
        }
    );
    Ok(Outcome { text, failed })
}

/// `gpufare-<job>-<index>-*.json` in `dir`.
fn find_profile(dir: &Path, job: &str, index: u32) -> Option<PathBuf> {
    let prefix = format!("gpufare-{job}-{index}-");
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// Where the tasks' states came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StateSource {
    Sacct,
    Scontrol,
}

/// Task index → (state, exit code), from `sacct`, or from `scontrol` when accounting is off
/// (`scontrol` remembers a finished job for MinJobAge, 300 s by default), with which one said so.
/// Empty when neither knows (an `srun` job has no array tasks to ask about).
fn task_states(
    job: &str,
) -> (
    std::collections::BTreeMap<u32, (String, String)>,
    Option<StateSource>,
) {
    let mut states = std::collections::BTreeMap::new();
    if let Ok(out) = Command::new("sacct")
        .args(["-n", "-P", "-X", "-j", job, "-o", "JobID,State,ExitCode"])
        .output()
        && out.status.success()
    {
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let f: Vec<&str> = line.split('|').collect();
            if let [id, state, code] = f[..]
                && let Some(index) = id.split_once('_').and_then(|(_, i)| i.parse().ok())
            {
                // "CANCELLED by 0" → "CANCELLED".
                let state = state.split_whitespace().next().unwrap_or(state);
                states.insert(index, (state.to_owned(), code.to_owned()));
            }
        }
        if !states.is_empty() {
            return (states, Some(StateSource::Sacct));
        }
    }
    if let Ok(out) = Command::new("scontrol")
        .args(["show", "job", "-o", job])
        .output()
        && out.status.success()
    {
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let field = |key: &str| {
                line.split_whitespace()
                    .find_map(|w| w.strip_prefix(key))
                    .map(str::to_owned)
            };
            if let (Some(index), Some(state)) = (
                field("ArrayTaskId=").and_then(|i| i.parse().ok()),
                field("JobState="),
            ) {
                states.insert(index, (state, field("ExitCode=").unwrap_or_default()));
            }
        }
    }
    let source = (!states.is_empty()).then_some(StateSource::Scontrol);
    (states, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_placeholder_becomes_the_task_variable() {
        assert_eq!(dir_word(Path::new("/a b/%a/x")), "'/a b/'\"$task\"/x");
        assert_eq!(dir_word(Path::new("/o/%a")), "/o/\"$task\"");
        assert_eq!(task_dir(Path::new("/o/%a"), 3), PathBuf::from("/o/3"));
    }
}
