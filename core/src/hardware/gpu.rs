//! The GPU spec table: nominal memory, bandwidth and tensor throughput per model.
//!
//! Loaded from `core/data/gpu-specs.csv` (compiled in). Used to scale work from a reference GPU to
//! an offer's GPU (compute-bound work scales with FP16 TFLOPS, memory-bound work with bandwidth)
//! and, by the probe analysis, to compare visible VRAM against nominal VRAM.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

const SPECS_CSV: &str = include_str!("../../data/gpu-specs.csv");

/// One GPU model's nominal figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuSpec {
    /// The name NVML reports, e.g. `NVIDIA A100-SXM4-80GB`.
    pub nvml_name: String,
    /// The short name catalogs use, e.g. `A100-80GB`.
    pub short: String,
    /// Marketed memory in GB.
    pub vram_gb: f64,
    /// `memory.total` as NVML reports it, MiB.
    pub nvml_total_mib: u64,
    /// Memory bandwidth, GB/s.
    pub mem_bw_gbs: f64,
    /// Dense FP16/BF16 tensor throughput with FP32 accumulate, TFLOPS.
    pub fp16_tflops: f64,
    /// PCIe generation.
    pub pcie_gen: u32,
    /// Whether the card has NVLink.
    pub nvlink: bool,
    /// Whether the card supports MIG.
    pub mig: bool,
}

#[derive(Deserialize)]
struct Row {
    nvml_name: String,
    short: String,
    vram_gb: f64,
    nvml_total_mib: u64,
    mem_bw_gbs: f64,
    fp16_tflops: f64,
    pcie_gen: u32,
    nvlink: String,
    mig: String,
}

/// Every GPU model gpufare knows, in table order.
pub fn gpu_specs() -> &'static [GpuSpec] {
    static SPECS: OnceLock<Vec<GpuSpec>> = OnceLock::new();
    SPECS.get_or_init(|| {
        let body: String = SPECS_CSV
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        csv::Reader::from_reader(body.as_bytes())
            .deserialize::<Row>()
            .filter_map(Result::ok)
            .map(|r| GpuSpec {
                nvml_name: r.nvml_name,
                short: r.short,
                vram_gb: r.vram_gb,
                nvml_total_mib: r.nvml_total_mib,
                mem_bw_gbs: r.mem_bw_gbs,
                fp16_tflops: r.fp16_tflops,
                pcie_gen: r.pcie_gen,
                nvlink: r.nvlink == "yes",
                mig: r.mig == "yes",
            })
            .collect()
    })
}

/// Finds a GPU by its short catalog name or its NVML name, ignoring case.
pub fn find_gpu(name: &str) -> Option<&'static GpuSpec> {
    let name = name.trim();
    gpu_specs()
        .iter()
        .find(|g| g.short.eq_ignore_ascii_case(name) || g.nvml_name.eq_ignore_ascii_case(name))
}

/// The GPU spec of a device name, looking through MIG suffixes (`... MIG 1g.10gb`).
pub fn spec_for(name: &str) -> Option<&'static GpuSpec> {
    let base = name.split(" MIG ").next().unwrap_or(name).trim();
    find_gpu(base).or_else(|| {
        let lower = base.to_lowercase();
        crate::hardware::gpu::gpu_specs()
            .iter()
            .find(|g| lower.contains(&g.nvml_name.to_lowercase()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_table_parses_whole() {
        let rows = SPECS_CSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count()
            - 1;
        assert_eq!(gpu_specs().len(), rows, "a row failed to parse");
        assert!(rows >= 19);
    }

    #[test]
    fn looks_up_by_either_name() {
        let a = find_gpu("a100-80gb").unwrap();
        assert_eq!(a.nvml_name, "NVIDIA A100-SXM4-80GB");
        assert_eq!(find_gpu("NVIDIA H200").unwrap().nvml_total_mib, 143_771);
        assert!(find_gpu("RTX 9090").is_none());
    }
}
