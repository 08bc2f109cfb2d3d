//! Needs a GPU: the real probe's facts against `nvidia-smi`. Ignored by default; run with
//! `cargo test -p gpufare-probe --test gpu -- --ignored` on a machine with an NVIDIA driver, or
//! use `probe-cli/gpu-check.sh`, which also runs the micro-benchmark and keeps the profile.

use std::process::Command;

use gpufare_core::profile::document::parse_profile;

#[test]
#[ignore = "needs an NVIDIA GPU and driver"]
fn probe_agrees_with_nvidia_smi() {
    let smi = Command::new("nvidia-smi")
        .args([
            "--query-gpu=name,memory.total,memory.used,utilization.gpu",
            "--format=csv,noheader,nounits",
        ])
        .output()
        .expect("nvidia-smi runs");
    assert!(smi.status.success());
    let rows: Vec<Vec<String>> = String::from_utf8(smi.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(|c| c.trim().to_owned()).collect())
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(["probe", "--duration", "2", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile = parse_profile(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(profile.gpus.len(), rows.len());
    for (gpu, row) in profile.gpus.iter().zip(&rows) {
        assert_eq!(gpu.name, row[0]);
        let mib = gpu.memory_total_bytes.unwrap() as f64 / 1048576.0;
        assert!(
            (mib - row[1].parse::<f64>().unwrap()).abs() <= 1.0,
            "{mib} vs {}",
            row[1]
        );
    }
    assert!(profile.sampling.is_some());
}
