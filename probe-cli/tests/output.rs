//! `-o PATH` on real files, links, devices and pipes: what is replaced, what is written through,
//! what is refused, which permissions survive, and when a failed run keeps the old file.

use std::fs;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// `gpufare probe --no-gpu --duration 0 --quiet -o PATH EXTRA...`.
fn probe_to(path: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "probe",
        "--no-gpu",
        "--duration",
        "0",
        "--quiet",
        "-o",
        path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    gpufare(&args)
}

fn is_root() -> bool {
    fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(1) == 0
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// A port on loopback where nothing listens, for a measurement that must fail.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn a_character_device_is_written_through_and_stays_a_device() {
    // As root the test uses a null device node of its own (`mknod c 1 3`), so that a regression
    // cannot break the machine's /dev/null; as anyone else, /dev/null itself (which the old
    // rename could not touch, and so failed on).
    let dir = scratch("dev-");
    let node = if is_root() {
        let node = dir.path().join("null");
        let made = Command::new("mknod")
            .arg(&node)
            .args(["c", "1", "3"])
            .status()
            .unwrap();
        if !made.success() {
            eprintln!("SKIPPED: mknod is refused here");
            return;
        }
        node
    } else {
        PathBuf::from("/dev/null")
    };
    let before = fs::metadata(&node).unwrap();
    assert!(before.file_type().is_char_device());
    let out = probe_to(&node, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let after = fs::symlink_metadata(&node).unwrap();
    assert!(
        after.file_type().is_char_device(),
        "{:?}",
        after.file_type()
    );
    assert_eq!(after.rdev(), before.rdev(), "the same device");
    assert_eq!(after.ino(), before.ino(), "the same node, not a new one");
    // `gpufare run` writes the same way, and nothing is left in the directory.
    let out = gpufare(&[
        "run",
        "--no-gpu",
        "-o",
        node.to_str().unwrap(),
        "--",
        "true",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        fs::symlink_metadata(&node)
            .unwrap()
            .file_type()
            .is_char_device()
    );
    if is_root() {
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["null"], "no temporary file left behind");
    }
}

#[test]
fn a_named_pipe_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            fs::File::open(&fifo)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        })
    };
    let out = probe_to(&fifo, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Checked before joining: a pipe replaced by a file would leave the reader waiting forever.
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    let text = reader.join().unwrap();
    assert!(parse_profile(&text).is_ok(), "{text}");
}

#[test]
fn a_symbolic_link_is_followed_to_its_file_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let real_dir = dir.path().join("profiles");
    fs::create_dir(&real_dir).unwrap();
    let real = real_dir.join("p.json");
    fs::write(&real, "old").unwrap();
    let link = dir.path().join("latest.json");
    std::os::unix::fs::symlink("profiles/p.json", &link).unwrap();
    let out = probe_to(&link, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_link(&link).unwrap(), Path::new("profiles/p.json"));
    assert!(parse_profile(&fs::read_to_string(&real).unwrap()).is_ok());
    let names: Vec<_> = fs::read_dir(&real_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        ["p.json"],
        "the temp file was made beside the target and renamed"
    );

    // A link to nothing is refused: nothing is created, the link is left alone.
    let dangling = dir.path().join("dangling.json");
    std::os::unix::fs::symlink("nowhere/p.json", &dangling).unwrap();
    let out = probe_to(&dangling, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("symbolic link") && stderr(&out).contains("dangling.json"),
        "{}",
        stderr(&out)
    );
    assert!(
        fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(!dir.path().join("nowhere").exists());
}

#[test]
fn a_replaced_file_keeps_its_permissions() {
    let dir = tempfile::tempdir().unwrap();
    for wanted in [0o644, 0o640, 0o600, 0o664] {
        let path = dir.path().join(format!("p{wanted:o}.json"));
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(wanted)).unwrap();
        let out = probe_to(&path, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(parse_profile(&fs::read_to_string(&path).unwrap()).is_ok());
        assert_eq!(mode(&path), wanted, "mode {wanted:o}");
    }
}

#[test]
fn a_block_device_is_refused() {
    let dir = scratch("blk-");
    let node = dir.path().join("disk");
    if !Command::new("mknod")
        .arg(&node)
        .args(["b", "7", "200"])
        .status()
        .unwrap()
        .success()
    {
        eprintln!("SKIPPED: mknod is refused here");
        return;
    }
    let out = probe_to(&node, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("block device"), "{}", stderr(&out));
    assert!(
        fs::symlink_metadata(&node)
            .unwrap()
            .file_type()
            .is_block_device()
    );
}

#[test]
fn a_failed_probe_keeps_the_previous_profile_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let good = probe_to(&path, &[]);
    assert!(good.status.success(), "{}", stderr(&good));
    let before = fs::read_to_string(&path).unwrap();
    let target = format!("127.0.0.1:{}", closed_port());
    let out = probe_to(&path, &["--rtt", &target]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        before,
        "the good profile is kept"
    );
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["p.json"]);

    let out = probe_to(&path, &["--rtt", &target, "--force"]);
    assert_eq!(out.status.code(), Some(1));
    let p = parse_profile(&fs::read_to_string(&path).unwrap()).unwrap();
    assert!(
        p.network.unwrap().rtt[0].error.is_some(),
        "the failure is recorded"
    );

    // With no file there yet, the failed probe's profile is written (it says what failed).
    let fresh = dir.path().join("fresh.json");
    let out = probe_to(&fresh, &["--rtt", &target]);
    assert_eq!(out.status.code(), Some(1));
    assert!(fresh.exists());
}

#[test]
fn a_failed_run_keeps_the_previous_profile_and_exits_with_the_commands_status() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.json");
    let o = path.to_str().unwrap();
    let out = gpufare(&["run", "--no-gpu", "-o", o, "--", "true"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let before = fs::read_to_string(&path).unwrap();

    let out = gpufare(&["run", "--no-gpu", "-o", o, "--", "sh", "-c", "exit 7"]);
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("was left as it was"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), before);

    // Killed by a signal: 128 + the signal, as a shell reports it.
    let out = gpufare(&[
        "run",
        "--no-gpu",
        "-o",
        o,
        "--",
        "sh",
        "-c",
        "kill -TERM $$",
    ]);
    assert_eq!(out.status.code(), Some(128 + 15), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&path).unwrap(), before);

    let out = gpufare(&[
        "run", "--no-gpu", "--force", "-o", o, "--", "sh", "-c", "exit 7",
    ]);
    assert_eq!(out.status.code(), Some(7));
    let runs = parse_profile(&fs::read_to_string(&path).unwrap())
        .unwrap()
        .runs
        .unwrap();
    assert_eq!(runs.runs[0].exit_code, Some(7));
}

#[test]
fn help_says_how_devices_links_and_failed_runs_are_written() {
    for command in ["probe", "run"] {
        let help = String::from_utf8(gpufare(&[command, "--help"]).stdout).unwrap();
        for needle in ["--force", "/dev/null", "symbolic link", "written through"] {
            assert!(
                help.contains(needle),
                "{command} --help lacks {needle}:\n{help}"
            );
        }
    }
    let run = String::from_utf8(gpufare(&["run", "--help"]).stdout).unwrap();
    for needle in ["process group", "SIGTERM", "SIGHUP", "command's own status"] {
        assert!(run.contains(needle), "run --help lacks {needle}:\n{run}");
    }
}
