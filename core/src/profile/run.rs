//! The run section of a profile: the user's own benchmark, run several times by `gpufare run`
//! with the GPU and the host sampled.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::profile::sampling::Series;

/// The user's own benchmark, run several times by `gpufare run` with the GPU and host sampled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunReport {
    /// The command and its arguments.
    pub command: Vec<String>,
    /// Runs asked for.
    pub repeat: u32,
    /// Milliseconds between samples.
    pub interval_ms: u64,
    /// The regular expression step times were parsed with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_regex: Option<String>,
    /// Each run in order.
    pub runs: Vec<RunRecord>,
    /// Wall time of each run, seconds, with P50/P99.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<Series>,
    /// Every step time of every run, milliseconds, with P50/P99.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_ms: Option<Series>,
    /// Step-time tail ratio P99/P50 (the run-to-run jitter the article compares); from step times
    /// when parsed, else from wall times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_over_p50: Option<f64>,
    /// GPU utilisation during the runs, percent, one sample per interval (the mean over GPUs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_utilization_pct: Option<Series>,
    /// The highest GPU memory in use on any one GPU during the runs, MiB (NVML `memory.used`:
    /// every process on the card counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vram_peak_mib: Option<f64>,
    /// CPU cores busy during the runs (cgroup usage when readable, else the host's), per sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_busy_cores: Option<Series>,
    /// Share of CPU time waiting for I/O (host-wide `iowait`), percent, per sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_iowait_pct: Option<Series>,
    /// Block-device read rate during the runs (all disks), MB/s, per sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_read_mb_per_s: Option<Series>,
    /// Network receive rate during the runs (all interfaces but loopback), Mbit/s, per sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_rx_mbit_per_s: Option<Series>,
    /// Why parts were not sampled, e.g. no GPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One run of the user's command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunRecord {
    /// 1-based run number.
    pub index: u32,
    /// Wall time from start to exit, seconds.
    pub wall_s: f64,
    /// Exit status; absent when a signal ended the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended the command, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Step times parsed from this run's output, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_ms: Option<Series>,
    /// The highest GPU memory in use on any one GPU during this run, MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vram_peak_mib: Option<f64>,
    /// GPU utilisation during this run, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_utilization_pct: Option<crate::numbers::stats::Summary>,
}
