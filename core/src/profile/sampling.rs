//! The sampling window of a profile: each GPU's metrics sampled before any load of ours, as raw
//! samples with their summary.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The sampling window: what was sampled, how often, and the samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SamplingWindow {
    /// Seconds sampled.
    pub duration_s: f64,
    /// Milliseconds between samples.
    pub interval_ms: u64,
    /// Per GPU: each metric's raw samples and summary.
    pub gpus: Vec<GpuSamples>,
}

/// One GPU's sampled metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuSamples {
    /// NVML device index.
    pub index: u32,
    /// Metrics by name (`utilization_gpu_pct`, `memory_used_mib`, `pcie_rx_mbps`, `pcie_tx_mbps`,
    /// `sm_clock_mhz`, `power_w`, `temperature_c`, `throttled`).
    pub metrics: std::collections::BTreeMap<String, Series>,
    /// Throttle reasons seen at any sample, with how many samples showed each.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub throttle_counts: std::collections::BTreeMap<String, u32>,
    /// Processes seen during the window other than the probe itself (host PIDs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub foreign_pids: Vec<u32>,
}

/// A sampled metric: raw samples and their summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Series {
    /// Raw samples in time order.
    pub samples: Vec<f64>,
    /// Their summary, when any sample was finite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<crate::numbers::stats::Summary>,
}

impl Series {
    /// A series from raw samples, summarised.
    pub fn new(samples: Vec<f64>) -> Series {
        let summary = crate::numbers::stats::summarize(&samples);
        Series { samples, summary }
    }
}
