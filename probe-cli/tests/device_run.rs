//! `probe-cli/device-run.sh`, the one prepared run for a lent GPU machine, run here where there
//! is no GPU: it must finish, keep what it measured, redact it, and say what it could not do.
//! Its comparison script, `probe-cli/device/compare.py`, is checked against a profile fixture.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A stand-in `nvidia-smi` that answers like a driver with one H100 (the values of
/// tests/profiles/dedicated-h100.json), with a UUID, a serial number and a bus id to redact.
const FAKE_SMI: &str = r#"#!/usr/bin/env python3
import sys
fields = {
    "name": "NVIDIA H100 80GB HBM3", "pci.bus_id": "00000000:1B:00.0",
    "uuid": "GPU-0a1b2c3d-4e5f-6789-abcd-ef0123456789", "serial": "1654922000000",
    "driver_version": "550.54.15", "compute_cap": "9.0", "memory.total": "81559",
    "memory.used": "4", "memory.reserved": "510", "pcie.link.gen.current": "5",
    "pcie.link.gen.max": "5", "pcie.link.gen.gpumax": "5", "pcie.link.width.current": "16",
    "pcie.link.width.max": "16", "clocks.sm": "345", "clocks.mem": "2619",
    "clocks.max.sm": "1980", "clocks.max.memory": "2619", "power.draw": "71.00",
    "power.limit": "700.00", "enforced.power.limit": "700.00", "power.default_limit": "700.00",
    "power.max_limit": "700.00", "temperature.gpu": "31", "ecc.mode.current": "Enabled",
    "mig.mode.current": "Disabled", "persistence_mode": "Enabled", "compute_mode": "Default",
    "utilization.gpu": "0", "clocks_throttle_reasons.active": "0x0000000000000001",
}
args = sys.argv[1:]
if args == ["-L"]:
    print("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0a1b2c3d-4e5f-6789-abcd-ef0123456789)")
elif args == ["-q"]:
    print("GPU 00000000:1B:00.0\n    Product Name : NVIDIA H100 80GB HBM3\n"
          "    Serial Number : 1654922000000\n"
          "    GPU UUID : GPU-0a1b2c3d-4e5f-6789-abcd-ef0123456789")
elif args and args[0].startswith("--query-gpu="):
    names = args[0].split("=", 1)[1].split(",")
    if any(n not in fields for n in names):
        print(f"Field \"{names[0]}\" is not a valid field to query.", file=sys.stderr)
        sys.exit(2)
    print(", ".join(fields[n] for n in names))
elif args and args[0].startswith("--query-compute-apps="):
    pass
elif args[:2] == ["topo", "-m"]:
    print("\tGPU0\tCPU Affinity\nGPU0\t X \t0-1")
else:
    sys.exit(2)
"#;

struct Run {
    out: Output,
    dir: PathBuf,
    _keep: tempfile::TempDir,
}

impl Run {
    fn file(&self, name: &str) -> String {
        fs::read_to_string(self.dir.join(name))
            .unwrap_or_else(|e| panic!("{name} in the output folder: {e}"))
    }
    fn log(&self) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&self.out.stdout),
            String::from_utf8_lossy(&self.out.stderr)
        )
    }
}

/// Runs the script with short durations; `fake_smi` puts the stand-in nvidia-smi on PATH.
fn device_run(fake_smi: bool) -> Run {
    let keep = tempfile::tempdir().unwrap();
    let bin = keep.path().join("bin");
    let tmp = keep.path().join("tmp");
    fs::create_dir_all(&bin).unwrap();
    fs::create_dir_all(&tmp).unwrap();
    if fake_smi {
        let smi = bin.join("nvidia-smi");
        fs::write(&smi, FAKE_SMI).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&smi, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let dir = keep.path().join("out");
    let out = Command::new("bash")
        .arg(repo().join("probe-cli/device-run.sh"))
        .args(["--gpufare", env!("CARGO_BIN_EXE_gpufare"), "--out"])
        .arg(&dir)
        .env("PATH", path_with(&bin))
        .env("TMPDIR", &tmp)
        .env("GPUFARE_DEVICE_SECONDS", "1")
        .env("GPUFARE_DEVICE_DISK_SIZE", "8M")
        .env("GPUFARE_DEVICE_DISK_SECONDS", "0.3")
        .env("GPUFARE_DEVICE_TRAIN_STEPS", "3")
        .output()
        .expect("bash runs");
    // Its private folder of unredacted readings and its disk-test folder are gone.
    assert_eq!(
        fs::read_dir(&tmp).unwrap().count(),
        0,
        "temporary files left behind"
    );
    assert!(
        !dir.join(".disk-test").exists(),
        "disk-test folder left behind"
    );
    Run {
        out,
        dir,
        _keep: keep,
    }
}

/// `first`, then this process's PATH without any folder holding a real nvidia-smi.
fn path_with(first: &Path) -> std::ffi::OsString {
    let current = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::iter::once(first.to_path_buf())
        .chain(std::env::split_paths(&current).filter(|d| !d.join("nvidia-smi").exists()));
    std::env::join_paths(dirs).unwrap()
}

fn has_torch() -> bool {
    Command::new("python3")
        .args(["-c", "import torch"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn without_a_gpu_or_nvidia_smi_it_finishes_and_says_what_it_could_not_do() {
    let run = device_run(false);
    assert!(run.out.status.success(), "{}", run.log());
    let summary = run.file("summary.txt");
    assert!(
        summary.contains("step: gpufare probe --bench: exit 0"),
        "{summary}"
    );
    assert!(
        summary.contains("could not: nvidia-smi not found"),
        "{summary}"
    );
    assert!(
        summary.contains("could not: no field-by-field comparison"),
        "{summary}"
    );
    if !has_torch() {
        assert!(
            summary.contains("step: gpufare run --repeat 3: exit 3"),
            "{summary}"
        );
    }
    // The profile is there, parses, and says where the probe looked for the driver.
    let profile = run.file("probe.json");
    let parsed = gpufare_core::profile::document::parse_profile(&profile).unwrap();
    assert!(parsed.gpus.is_empty());
    let why = parsed.gpus_unavailable.unwrap();
    assert!(why.contains("looked for libnvidia-ml.so.1"), "{why}");
    assert!(parsed.disk.is_some(), "the disk test ran");
    assert!(run.file("run.json").contains("\"runs\""));
    let log = run.file("device-run.log");
    assert!(log.contains("COULD NOT: nvidia-smi not found"), "{log}");
    assert!(run.file("machine.txt").contains("gpufare: gpufare "));
}

#[test]
fn with_nvidia_smi_but_no_driver_for_the_probe_it_retries_and_redacts() {
    let run = device_run(true);
    assert!(run.out.status.success(), "{}", run.log());
    let summary = run.file("summary.txt");
    assert!(
        summary.contains("could not: the probe found no GPU by itself although nvidia-smi did"),
        "{summary}"
    );
    assert!(
        summary.contains("step: gpufare probe with LD_LIBRARY_PATH: exit 0"),
        "{summary}"
    );
    assert!(run.dir.join("probe-ld-library-path.json").is_file());
    // nvidia-smi's answers are kept, one line per GPU and field, with identifiers replaced.
    let fields = run.file("nvidia-smi-fields.csv");
    assert!(fields.contains("0,name,NVIDIA H100 80GB HBM3"), "{fields}");
    assert!(fields.contains("0,power.limit,700.00"), "{fields}");
    assert!(fields.contains("0,serial,[redacted]"), "{fields}");
    assert!(fields.contains("0,pci.bus_id,[bus-id]"), "{fields}");
    for name in std::fs::read_dir(&run.dir).unwrap() {
        let path = name.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("0a1b2c3d") && !text.contains("1654922000000"),
            "{} keeps an identifier",
            path.display()
        );
        assert!(
            !text.contains("1B:00.0"),
            "{} keeps a bus id",
            path.display()
        );
    }
    assert!(run.file("nvidia-smi-q.txt").contains("GPU-[redacted]"));
    assert!(run.file("nvidia-smi-topo.txt").contains("GPU0"));
    let comparison = run.file("comparison.md");
    assert!(comparison.contains("GPU count differs"), "{comparison}");
}

/// nvidia-smi's fields written from a profile's GPU, with `power.limit` changed to `limit`.
fn fields_for_h100(limit: &str) -> String {
    [
        "0,name,NVIDIA H100 80GB HBM3",
        "0,memory.total,81559",
        "0,memory.used,4",
        "0,pcie.link.gen.current,5",
        "0,pcie.link.gen.max,5",
        "0,pcie.link.width.current,16",
        "0,pcie.link.width.max,16",
        "0,clocks.sm,345",
        "0,clocks.mem,2619",
        "0,clocks.max.sm,1980",
        "0,clocks.max.memory,2619",
        &format!("0,enforced.power.limit,{limit}"),
        "0,power.default_limit,700.00",
        "0,power.draw,71.00",
        "0,temperature.gpu,31",
        "0,ecc.mode.current,Enabled",
        "0,mig.mode.current,Disabled",
        "0,compute_cap,9.0",
        "0,pci.bus_id,[bus-id]",
    ]
    .join("\n")
}

fn compare(fields: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("fields.csv");
    fs::write(&csv, fields).unwrap();
    Command::new("python3")
        .arg(repo().join("probe-cli/device/compare.py"))
        .arg(repo().join("tests/profiles/dedicated-h100.json"))
        .arg(&csv)
        .arg("--specs")
        .arg(repo().join("core/data/gpu-specs.csv"))
        .arg("--strict")
        .output()
        .unwrap()
}

#[test]
fn the_comparison_agrees_field_by_field_and_flags_a_difference() {
    let same = compare(&fields_for_h100("700.00"));
    let text = String::from_utf8_lossy(&same.stdout);
    assert!(same.status.success(), "{text}");
    assert!(
        text.contains("| name | NVIDIA H100 80GB HBM3 | NVIDIA H100 80GB HBM3 | agrees |"),
        "{text}"
    );
    assert!(
        text.contains("| memory.total [MiB] | 81559 | 81559 | agrees |"),
        "{text}"
    );
    assert!(
        text.contains("| ecc.mode.current | Enabled | Enabled | agrees |"),
        "{text}"
    );
    assert!(text.contains("Every fact nvidia-smi gave agrees"), "{text}");

    let other = compare(&fields_for_h100("500.00"));
    let text = String::from_utf8_lossy(&other.stdout);
    assert_eq!(other.status.code(), Some(1), "{text}");
    assert!(
        text.contains("| enforced.power.limit [W] | 500.00 | 700 | DIFFERS |"),
        "{text}"
    );
    assert!(text.contains("## Disagreements"), "{text}");
}
