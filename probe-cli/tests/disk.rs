//! The disk benchmark, run as a user would, on real directories: a directory on the build disk,
//! tmpfs (/dev/shm), ramfs (which refuses O_DIRECT), a read-only mount, a full tmpfs, and Ctrl-C.
//!
//! The mounts need root (CAP_SYS_ADMIN); where `mount` is refused the test prints why and skips.
//! Timings are never asserted beyond "positive": the comparison with fio is bench/disk-vs-fio.sh.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use gpufare_core::profile::disk::DiskReport;
use gpufare_core::profile::document::parse_profile;

mod common;
use common::scratch;

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn entries(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Runs the disk probe on `dir` with a small file and short patterns.
fn disk_probe(dir: &Path, size: &str, profile: &Path) -> Output {
    let args = disk_probe_args(dir, size, profile);
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(&args)
        .output()
        .expect("gpufare runs")
}

/// The arguments of [`disk_probe`].
fn disk_probe_args(dir: &Path, size: &str, profile: &Path) -> Vec<String> {
    [
        "probe",
        "--no-gpu",
        "--duration",
        "0",
        "--quiet",
        "--disk-dir",
        dir.to_str().unwrap(),
        "--disk-size",
        size,
        "--disk-seconds",
        "0.3",
        "-o",
        profile.to_str().unwrap(),
    ]
    .map(str::to_owned)
    .to_vec()
}

fn read_disk(profile: &Path) -> Option<DiskReport> {
    parse_profile(&fs::read_to_string(profile).unwrap())
        .unwrap()
        .disk
}

/// The figures every successful run has: positive throughput, latencies, the block sizes and
/// queue depths of the fio jobs it mirrors.
fn assert_figures(d: &DiskReport) {
    let tests = [
        ("seq_write", d.seq_write.as_ref(), 1 << 20, 32),
        ("seq_read", d.seq_read.as_ref(), 1 << 20, 32),
        ("rand_read", d.rand_read.as_ref(), 4096, 64),
    ];
    for (name, t, block, depth) in tests {
        let t = t.unwrap_or_else(|| panic!("{name} missing: {d:?}"));
        assert_eq!((t.block_bytes, t.queue_depth), (block, depth), "{name}");
        assert!(
            t.mb_per_s > 0.0 && t.iops > 0.0 && t.bytes > 0,
            "{name}: {t:?}"
        );
        assert!(t.seconds > 0.0, "{name}: {t:?}");
        let lat = t.latency_ms.unwrap_or_else(|| panic!("{name}: no latency"));
        assert!(lat.p50 > 0.0 && lat.p99 >= lat.p50, "{name}: {lat:?}");
        assert_eq!(
            lat.n as u64,
            t.bytes / block,
            "{name}: one latency per request"
        );
    }
    assert!(d.free_bytes.is_some(), "statvfs answered: {d:?}");
    assert!(
        d.filesystem.as_deref().is_some_and(|f| !f.is_empty()),
        "{d:?}"
    );
}

/// A mount for the duration of a test; unmounted when dropped.
struct Mounted(PathBuf);

impl Mounted {
    /// Runs `mount ARGS... DIR`; `None` (with the reason printed) when mounting is not allowed.
    fn new(args: &[&str], dir: &Path) -> Option<Mounted> {
        let out = Command::new("mount")
            .args(args)
            .arg(dir)
            .output()
            .expect("mount runs");
        if out.status.success() {
            Some(Mounted(dir.to_path_buf()))
        } else {
            eprintln!(
                "SKIPPED: cannot mount {} here (needs root / CAP_SYS_ADMIN): {}",
                args.join(" "),
                stderr(&out).trim()
            );
            None
        }
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn disk_on_a_real_directory_uses_o_direct_and_leaves_nothing() {
    let dir = scratch("disk-");
    let out_dir = scratch("out-");
    let profile = out_dir.path().join("p.json");
    let out = disk_probe(dir.path(), "16M", &profile);
    assert!(out.status.success(), "{}", stderr(&out));
    let d = read_disk(&profile).expect("a disk section");
    assert_figures(&d);
    assert_eq!(d.file_size_bytes, 16 << 20);
    assert!(d.free_bytes.is_some_and(|f| f > 0), "{d:?}");
    assert_eq!(d.engine, "linux-aio", "{d:?}");
    let fs_type = d.filesystem.clone().unwrap_or_default();
    if !["tmpfs", "ramfs"].contains(&fs_type.as_str()) {
        assert!(d.direct_io, "{fs_type} takes O_DIRECT: {d:?}");
        assert!(d.notes.is_empty(), "{:?}", d.notes);
    }
    assert_eq!(
        PathBuf::from(&d.dir),
        dir.path().canonicalize().unwrap(),
        "the directory tested is recorded"
    );
    assert_eq!(
        entries(dir.path()),
        Vec::<String>::new(),
        "temp file removed"
    );
}

#[test]
fn tmpfs_is_reported_as_memory() {
    // /dev/shm is a tmpfs on Linux. Since 6.6 tmpfs takes O_DIRECT; before, it refuses it and
    // the buffered fallback runs. Either way the report says the figures are memory speed.
    let shm = Path::new("/dev/shm");
    assert!(shm.is_dir(), "/dev/shm is missing");
    let dir = tempfile::tempdir_in(shm).unwrap();
    let out_dir = scratch("out-");
    let profile = out_dir.path().join("p.json");
    let out = disk_probe(dir.path(), "8M", &profile);
    assert!(out.status.success(), "{}", stderr(&out));
    let d = read_disk(&profile).unwrap();
    assert_figures(&d);
    assert_eq!(d.filesystem.as_deref(), Some("tmpfs"));
    assert!(
        d.notes.iter().any(|n| n.contains("memory speed")),
        "{:?}",
        d.notes
    );
    if !d.direct_io {
        assert!(d.notes.iter().any(|n| n.contains("O_DIRECT refused")));
    }
    assert!(
        stderr(&out).contains("gpufare: warning: disk: tmpfs keeps files in memory"),
        "{}",
        stderr(&out)
    );
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

#[test]
fn where_o_direct_is_refused_the_test_falls_back_and_says_so() {
    // ramfs refuses O_DIRECT with EINVAL (and creates the file first).
    let dir = scratch("ramfs-");
    let Some(_mount) = Mounted::new(&["-t", "ramfs", "none"], dir.path()) else {
        return;
    };
    let out_dir = scratch("out-");
    let profile = out_dir.path().join("p.json");
    let out = disk_probe(dir.path(), "8M", &profile);
    assert!(out.status.success(), "{}", stderr(&out));
    let d = read_disk(&profile).unwrap();
    assert_figures(&d);
    assert_eq!(d.filesystem.as_deref(), Some("ramfs"));
    assert!(!d.direct_io);
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("O_DIRECT refused by ramfs (EINVAL)")),
        "{:?}",
        d.notes
    );
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

#[test]
fn a_read_only_directory_fails_cleanly_and_the_profile_is_still_written() {
    let dir = scratch("ro-");
    fs::write(dir.path().join("keep"), "x").unwrap();
    let Some(_bind) = Mounted::new(&["--bind", dir.path().to_str().unwrap()], dir.path()) else {
        return;
    };
    let remount = Command::new("mount")
        .args(["-o", "remount,ro,bind"])
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(remount.success(), "remounting read-only failed");
    let out_dir = scratch("out-");
    let profile = out_dir.path().join("p.json");
    let out = disk_probe(dir.path(), "8M", &profile);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("--disk-dir") && err.contains("Read-only file system"),
        "{err}"
    );
    let p = parse_profile(&fs::read_to_string(&profile).unwrap()).unwrap();
    assert!(p.disk.is_none());
    assert!(
        p.warnings
            .iter()
            .any(|w| w.contains("disk benchmark failed")),
        "{:?}",
        p.warnings
    );
    assert_eq!(entries(dir.path()), ["keep"]);
}

#[test]
fn a_full_disk_fails_cleanly_and_leaves_nothing() {
    let dir = scratch("full-");
    let Some(_mount) = Mounted::new(&["-t", "tmpfs", "-o", "size=2m", "none"], dir.path()) else {
        return;
    };
    let out_dir = scratch("out-");
    let profile = out_dir.path().join("p.json");
    let out = disk_probe(dir.path(), "16M", &profile);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not enough free space for a 16 MiB test file (2 MiB free)")
            && err.contains("--disk-size"),
        "{err}"
    );
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

#[test]
fn a_missing_directory_and_bad_sizes_are_refused() {
    let out_dir = scratch("out-");
    let profile = out_dir.path().join("p.json");
    let out = disk_probe(Path::new("/no/such/dir"), "8M", &profile);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--disk-dir /no/such/dir: cannot open the directory"),
        "{}",
        stderr(&out)
    );
    for (size, why) in [
        ("10x", "unknown unit"),
        ("512K", "at least 1M"),
        ("big", "not a size"),
    ] {
        let out = gpufare(&["probe", "--disk-dir", "/tmp", "--disk-size", size]);
        assert_eq!(out.status.code(), Some(2), "{size}");
        assert!(
            stderr(&out).contains("--disk-size") && stderr(&out).contains(why),
            "{size}: {}",
            stderr(&out)
        );
    }
    let out = gpufare(&["probe", "--disk-dir", "/tmp", "--disk-seconds", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ctrl_c_sigterm_and_sighup_during_the_disk_test_leave_no_temp_file() {
    for signal in ["INT", "TERM", "HUP"] {
        signal_during_the_disk_test_leaves_no_temp_file(signal);
    }
}

fn signal_during_the_disk_test_leaves_no_temp_file(signal: &str) {
    let dir = scratch("sigint-");
    let out_dir = scratch("out-");
    let profile = out_dir.path().join("p.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args([
            "probe",
            "--no-gpu",
            "--duration",
            "0",
            "--quiet",
            "--disk-dir",
            dir.path().to_str().unwrap(),
            "--disk-size",
            "64M",
            "--disk-seconds",
            "60",
            "-o",
            profile.to_str().unwrap(),
        ])
        .spawn()
        .unwrap();
    // Wait for the temp file to appear (the benchmark has started), then send the signal.
    let start = Instant::now();
    while entries(dir.path()).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temp file appeared"
        );
        assert!(child.try_wait().unwrap().is_none(), "gpufare exited early");
        std::thread::sleep(Duration::from_millis(10));
    }
    let file = entries(dir.path()).remove(0);
    assert!(file.starts_with(".gpufare-disk-"), "{file}");
    std::thread::sleep(Duration::from_millis(300));
    let kill = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    // The benchmark polls the flag between requests; 120 s is a hang guard, not a timing.
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("gpufare did not stop after SIG{signal}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        status.code(),
        Some(130),
        "exit status 130 after SIG{signal}"
    );
    assert_eq!(
        entries(dir.path()),
        Vec::<String>::new(),
        "temp file removed after SIG{signal}"
    );
    assert!(!profile.exists(), "an interrupted probe writes no profile");
}

#[test]
fn a_failed_disk_test_keeps_the_previous_profile_unless_forced() {
    let dir = scratch("ro-keep-");
    let is_root = fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false);
    // Root writes anywhere: a read-only bind mount makes the directory refuse the test file.
    // Anyone else: a directory without write permission does.
    let _bind = if is_root {
        let Some(bind) = Mounted::new(&["--bind", dir.path().to_str().unwrap()], dir.path()) else {
            return;
        };
        let remount = Command::new("mount")
            .args(["-o", "remount,ro,bind"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(remount.success(), "remounting read-only failed");
        Some(bind)
    } else {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o555)).unwrap();
        None
    };
    let out_dir = scratch("out-");
    let profile = out_dir.path().join("p.json");
    fs::write(&profile, "{\"a previous good profile\": true}\n").unwrap();
    let out = disk_probe(dir.path(), "8M", &profile);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(
        fs::read_to_string(&profile).unwrap(),
        "{\"a previous good profile\": true}\n"
    );
    assert_eq!(entries(out_dir.path()), ["p.json"]);
    let mut forced = disk_probe_args(dir.path(), "8M", &profile);
    forced.push("--force".to_owned());
    let out = Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(&forced)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let p = parse_profile(&fs::read_to_string(&profile).unwrap()).unwrap();
    assert!(p.disk.is_none());
    if !is_root {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    }
}
