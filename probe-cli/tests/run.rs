//! `gpufare run` with small shell scripts: output passed through, runs repeated, step times
//! parsed, failures and usage errors.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use gpufare_core::profile::document::{Profile, parse_profile};
use gpufare_core::profile::verdict::VerdictKind;

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    let mut perms = fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&path, perms).unwrap();
    path.to_str().unwrap().to_owned()
}

fn read(path: &Path) -> Profile {
    parse_profile(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn runs_repeat_pass_output_through_and_parse_step_times() {
    let dir = tempfile::tempdir().unwrap();
    let bench = script(
        dir.path(),
        "bench.sh",
        "for i in 1 2 3 4; do echo \"step $i loss 0.5 time $((100 + i)).5 ms\"; done\n\
         echo 'warming up' >&2\necho 'step 5 loss 0.4 time 120 ms' >&2\necho arg=$1\n",
    );
    let out_path = dir.path().join("run.json");
    let out = gpufare(&[
        "run",
        "--no-gpu",
        "--repeat",
        "3",
        "--interval",
        "20",
        "--step-regex",
        r"time ([0-9.]+) ms",
        "-o",
        out_path.to_str().unwrap(),
        "--",
        &bench,
        "--flag-for-the-script",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The command's own output reaches the user: stdout to stdout, stderr to stderr.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("step 1 loss 0.5 time 101.5 ms").count(), 3);
    assert_eq!(stdout.matches("arg=--flag-for-the-script").count(), 3);
    assert_eq!(stderr(&out).matches("warming up").count(), 3);
    assert!(!stdout.contains("gpufare:"), "our messages stay on stderr");

    let p = read(&out_path);
    let r = p.runs.expect("a runs section");
    assert_eq!(r.command, [bench.as_str(), "--flag-for-the-script"]);
    assert_eq!((r.repeat, r.interval_ms, r.runs.len()), (3, 20, 3));
    for (i, run) in r.runs.iter().enumerate() {
        assert_eq!(run.index, i as u32 + 1);
        assert_eq!(run.exit_code, Some(0));
        assert!(run.wall_s > 0.0);
        let steps = &run.step_ms.as_ref().unwrap().samples;
        let mut sorted = steps.clone();
        sorted.sort_by(f64::total_cmp);
        // Lines from stdout and stderr both count; their order across the two pipes may vary.
        assert_eq!(
            sorted,
            [101.5, 102.5, 103.5, 104.5, 120.0],
            "run {}",
            run.index
        );
    }
    let steps = r.step_ms.unwrap().summary.unwrap();
    assert_eq!((steps.n, steps.p50, steps.p99), (15, 103.5, 120.0));
    assert_eq!(r.p99_over_p50, Some(120.0 / 103.5));
    assert_eq!(r.wall_s.unwrap().samples.len(), 3);
    assert!(r.gpu_utilization_pct.is_none() && r.vram_peak_mib.is_none());
    assert!(
        r.notes.iter().any(|n| n.contains("--no-gpu")),
        "{:?}",
        r.notes
    );
    // The profile carries the host and its limits, and core's bottleneck verdict.
    assert!(p.host.logical_cores > 0);
    assert!(p.host_limits.is_some_and(|l| l.effective_cores.is_some()));
    assert!(
        p.verdicts.iter().any(|v| v.kind == VerdictKind::Bottleneck),
        "{:?}",
        p.verdicts
    );
    assert!(stderr(&out).contains("P99/P50"), "{}", stderr(&out));
}

#[test]
fn a_regex_without_a_group_times_the_gaps_between_matching_lines() {
    let dir = tempfile::tempdir().unwrap();
    let bench = script(
        dir.path(),
        "steps.sh",
        "for i in 1 2 3 4; do echo \"step $i\"; sleep 0.05; done\n",
    );
    let out_path = dir.path().join("run.json");
    let out = gpufare(&[
        "run",
        "--no-gpu",
        "--step-regex",
        r"^step \d+$",
        "-o",
        out_path.to_str().unwrap(),
        "--",
        &bench,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let r = read(&out_path).runs.unwrap();
    let steps = r.step_ms.unwrap();
    assert_eq!(steps.samples.len(), 3, "4 matching lines make 3 steps");
    assert!(steps.samples.iter().all(|s| *s > 0.0), "{steps:?}");
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("gaps between matching lines"))
    );
}

#[test]
fn a_failing_run_stops_the_series_records_it_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let bench = script(dir.path(), "fail.sh", "echo trying\nexit 3\n");
    let out_path = dir.path().join("run.json");
    let out = gpufare(&[
        "run",
        "--no-gpu",
        "--repeat",
        "4",
        "--step-regex",
        "never ([0-9]+)",
        "-o",
        out_path.to_str().unwrap(),
        "--",
        &bench,
    ]);
    assert_eq!(out.status.code(), Some(3), "the command's own status");
    assert!(
        stderr(&out).contains("run 1 of 4 failed (exit status: 3); stopped"),
        "{}",
        stderr(&out)
    );
    let r = read(&out_path).runs.unwrap();
    assert_eq!(r.runs.len(), 1);
    assert_eq!(r.runs[0].exit_code, Some(3));
    assert!(r.step_ms.is_none());
    assert!(r.notes.iter().any(|n| n.contains("matched no line")));
}

#[test]
fn a_missing_command_fails_without_a_profile() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("run.json");
    let out = gpufare(&[
        "run",
        "--no-gpu",
        "-o",
        out_path.to_str().unwrap(),
        "--",
        "/no/such/command",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cannot start \"/no/such/command\""),
        "{}",
        stderr(&out)
    );
    assert!(!out_path.exists());
}

#[test]
fn run_starts_from_a_probe_profile_when_given_one() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("probe.json");
    let out = gpufare(&[
        "probe",
        "--no-gpu",
        "--duration",
        "0",
        "-o",
        base.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let created = read(&base).created_at;
    let out_path = dir.path().join("run.json");
    let out = gpufare(&[
        "run",
        "--no-gpu",
        "--profile",
        base.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
        "--",
        "true",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let p = read(&out_path);
    assert_eq!(p.created_at, created, "the probe's facts are kept");
    assert_eq!(p.runs.unwrap().runs.len(), 1);

    let out = gpufare(&[
        "run",
        "--profile",
        "/no/such/profile.json",
        "-o",
        out_path.to_str().unwrap(),
        "--",
        "true",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--profile /no/such/profile.json"));
}

#[test]
fn run_usage_errors_exit_2() {
    for (args, needle) in [
        (vec!["run", "-o", "x.json"], "CMD"),
        (vec!["run", "-o", "-", "--", "true"], "standard output"),
        (
            vec!["run", "--step-regex", "(", "-o", "x.json", "--", "true"],
            "--step-regex",
        ),
        (
            vec!["run", "--repeat", "0", "-o", "x.json", "--", "true"],
            "--repeat",
        ),
        (vec!["run", "--", "true"], "--output"),
    ] {
        let out = gpufare(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
    let help = String::from_utf8(gpufare(&["run", "--help"]).stdout).unwrap();
    for flag in [
        "--repeat",
        "--step-regex",
        "--interval",
        "--output",
        "--profile",
    ] {
        assert!(help.contains(flag), "{flag}:\n{help}");
    }
}

#[test]
fn ctrl_c_stops_the_series_and_keeps_what_was_measured() {
    use std::io::{BufRead, BufReader, Read};
    let dir = tempfile::tempdir().unwrap();
    let bench = script(dir.path(), "long.sh", "echo started\nexec sleep 60\n");
    let out_path = dir.path().join("run.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(["run", "--no-gpu", "--repeat", "5", "-o"])
        .arg(&out_path)
        .arg("--")
        .arg(&bench)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first run to start, then signal gpufare alone (not the command): the command
    // has its own process group, which gpufare sends SIGINT.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "started\n");
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let mut messages = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut messages)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{messages}");
    assert!(messages.contains("interrupted"), "{messages}");
    let r = read(&out_path).runs.unwrap();
    assert_eq!(r.runs.len(), 1, "the series stops at Ctrl-C");
    assert_eq!(r.runs[0].signal, Some(2), "{:?}", r.runs[0]);
}

/// Whether process `pid` is gone (or a zombie waiting for init to reap it).
fn gone(pid: &str) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn sigterm_and_sighup_stop_the_commands_whole_process_group() {
    use std::io::{BufRead, BufReader, Read};
    use std::time::{Duration, Instant};
    for signal in ["TERM", "HUP", "INT"] {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        // A child of the command: a background `sleep` of a non-interactive shell ignores
        // SIGINT, so only the whole group's escalation (SIGINT, then SIGTERM) stops it.
        let bench = script(
            dir.path(),
            "tree.sh",
            "sleep 1000 &\necho $! > \"$1\"\necho started\nwait\n",
        );
        let out_path = dir.path().join("run.json");
        let mut child = Command::new(env!("CARGO_BIN_EXE_gpufare"))
            .args(["run", "--no-gpu", "-o"])
            .arg(&out_path)
            .arg("--")
            .arg(&bench)
            .arg(&pid_file)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line, "started\n");
        let grandchild = fs::read_to_string(&pid_file).unwrap().trim().to_owned();
        assert!(!gone(&grandchild));
        let kill = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let mut messages = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut messages)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "SIG{signal}: {messages}");
        assert!(messages.contains("interrupted"), "{messages}");
        // gpufare has exited; its command's child must not outlive it. (A hang guard, not a
        // timing: gpufare waited for the group before exiting.)
        let start = Instant::now();
        while !gone(&grandchild) {
            if start.elapsed() > Duration::from_secs(30) {
                let _ = Command::new("kill").args(["-KILL", &grandchild]).status();
                panic!("SIG{signal}: the command's child {grandchild} outlived gpufare");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let r = read(&out_path).runs.unwrap();
        assert_eq!(r.runs.len(), 1, "what was measured is written");
    }
}
