//! The GPU micro-benchmark section of a profile: pinned host-to-device bandwidth and a timed FP16
//! GEMM loop per device.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::profile::sampling::Series;

/// The GPU micro-benchmark on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuBenchmark {
    /// Device index (CUDA ordinal).
    pub index: u32,
    /// Host-to-device copy bandwidth from pinned memory, GB/s (median of the timed copies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h2d_gbs: Option<f64>,
    /// Matrix size of the timed FP16 GEMM (m = n = k).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemm_size: Option<u32>,
    /// Step time of each timed GEMM, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemm_ms: Option<Series>,
    /// Achieved TFLOPS at the median step time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub achieved_tflops: Option<f64>,
    /// Total device memory as CUDA reports it, bytes (compare with NVML's view).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_total_bytes: Option<u64>,
    /// Why a part of the benchmark did not run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}
