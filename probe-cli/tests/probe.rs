//! The real `gpufare` binary, run as a user would: files, standard output, warnings, exit codes.

use std::fs;
use std::process::{Command, Output};

use gpufare_core::profile::document::parse_profile;

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// First value of a `key : value` line in a /proc file.
fn proc_field(path: &str, key: &str) -> Option<String> {
    fs::read_to_string(path).ok()?.lines().find_map(|l| {
        l.split_once(':')
            .filter(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim().to_owned())
    })
}

#[test]
fn probe_writes_a_profile_file_that_core_parses() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let out = gpufare(&["probe", "-o", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout when writing a file"
    );

    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\n  \"format_version\": 2,"),
        "format_version first: {text}"
    );
    let profile = parse_profile(&text).unwrap();
    assert_eq!(profile.tool.name, "gpufare");
    assert_eq!(profile.tool.version, env!("CARGO_PKG_VERSION"));
    assert!(
        profile.created_at.parse::<jiff::Timestamp>().is_ok(),
        "{}",
        profile.created_at
    );

    // The host facts match what the kernel itself says.
    let host = &profile.host;
    if let Some(model) = proc_field("/proc/cpuinfo", "model name") {
        assert_eq!(host.cpu_model, model);
    }
    let processors = fs::read_to_string("/proc/cpuinfo")
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    assert_eq!(host.logical_cores as usize, processors);
    let mem_kib: u64 = proc_field("/proc/meminfo", "MemTotal")
        .unwrap()
        .trim_end_matches(" kB")
        .parse()
        .unwrap();
    assert_eq!(host.total_ram_bytes, mem_kib * 1024);
    let release = fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_eq!(host.kernel, release.trim());
    assert!(!host.os.is_empty() && host.os != "unknown");

    // Without a driver: one warning, no GPUs, the reason recorded. With one: GPUs and no warning.
    let warnings = stderr(&out)
        .lines()
        .filter(|l| l.starts_with("gpufare: warning:"))
        .count();
    if profile.gpus.is_empty() {
        assert_eq!(warnings, 1, "exactly one warning: {}", stderr(&out));
        let why = profile.gpus_unavailable.as_deref().unwrap();
        assert!(stderr(&out).contains(why));
    } else {
        assert_eq!(warnings, 0, "{}", stderr(&out));
        assert!(profile.gpus.iter().all(|g| !g.name.is_empty()));
    }
}

#[test]
fn probe_to_stdout_with_dash() {
    let out = gpufare(&["probe", "-o", "-", "--redact"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let profile = parse_profile(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(profile.host.hostname, None, "--redact drops the host name");
    assert!(
        profile.gpus.iter().all(|g| g.uuid.is_none()),
        "--redact drops GPU UUIDs"
    );
}

#[test]
fn no_gpu_flag_skips_nvml_without_warning() {
    let out = gpufare(&["probe", "--no-gpu"]);
    assert!(out.status.success());
    assert_eq!(stderr(&out), "");
    let profile = parse_profile(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert!(profile.gpus.is_empty());
    assert_eq!(
        profile.gpus_unavailable.as_deref(),
        Some("GPU probing was turned off (--no-gpu)")
    );
}

#[test]
fn an_unwritable_destination_fails_cleanly_and_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/p.json");
    let out = gpufare(&["probe", "--no-gpu", "-o", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("gpufare: cannot write "),
        "{}",
        stderr(&out)
    );
    assert!(!missing.exists());

    // Replacing a directory with a file is refused; the directory and its content stay intact,
    // and no temporary file is left behind.
    let target = dir.path().join("taken");
    fs::create_dir(&target).unwrap();
    fs::write(target.join("keep"), "x").unwrap();
    let out = gpufare(&["probe", "--no-gpu", "-o", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(target.join("keep")).unwrap(), "x");
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, vec![std::ffi::OsString::from("taken")]);
}

#[test]
fn an_existing_profile_is_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    fs::write(
        &path,
        "old content that is longer than nothing ".repeat(1000),
    )
    .unwrap();
    let out = gpufare(&["probe", "--no-gpu", "-o", path.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(parse_profile(&fs::read_to_string(&path).unwrap()).is_ok());
}

#[test]
fn help_explains_every_flag() {
    let top = String::from_utf8(gpufare(&["--help"]).stdout).unwrap();
    for word in ["probe", "--help", "--version"] {
        assert!(top.contains(word), "gpufare --help lacks {word}:\n{top}");
    }
    let probe = String::from_utf8(gpufare(&["probe", "--help"]).stdout).unwrap();
    for flag in [
        "--output <FILE>",
        "standard output",
        "--redact",
        "--no-gpu",
        "Examples:",
    ] {
        assert!(
            probe.contains(flag),
            "gpufare probe --help lacks {flag}:\n{probe}"
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(gpufare(&["probe", "--no-such-flag"]).status.code(), Some(2));
    assert_eq!(gpufare(&["no-such-command"]).status.code(), Some(2));
}
