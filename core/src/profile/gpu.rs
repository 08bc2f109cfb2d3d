//! The GPU section of a profile: the driver and every GPU as NVML reports it (memory, MIG,
//! virtualisation, PCIe, clocks, power, throttling, ECC, processes), and the traces of
//! GPU-sharing layers found outside NVML. A value NVML could not give is absent, never a guess.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::profile::host::bytes_to_gib;

/// The NVIDIA driver stack as NVML reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DriverFacts {
    /// Driver version, e.g. `580.82.07`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_version: Option<String>,
    /// CUDA version the driver supports, e.g. `12.8`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_version: Option<String>,
    /// NVML library version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvml_version: Option<String>,
}

/// One GPU as NVML reports it. A value NVML could not give is absent (unknown), never a guess.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuFacts {
    /// NVML device index.
    pub index: u32,
    /// Marketing name, e.g. `NVIDIA H200` or `NVIDIA A100-SXM4-40GB MIG 1g.5gb`.
    pub name: String,
    /// Device UUID; dropped by `--redact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Total memory visible to this device, bytes (NVML `memory.total`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_total_bytes: Option<u64>,
    /// Memory in use, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_used_bytes: Option<u64>,
    /// Memory free, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_free_bytes: Option<u64>,
    /// Memory reserved by the driver, bytes (NVML v2 memory info).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_reserved_bytes: Option<u64>,
    /// PCI bus id, e.g. `00000000:19:00.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_bus_id: Option<String>,
    /// Brand as NVML names it, e.g. `Tesla`, `GeForce`, `Grid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brand: Option<String>,
    /// CUDA compute capability, e.g. `9.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<String>,
    /// Whether MIG mode is currently enabled on this GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mig_enabled: Option<bool>,
    /// Whether this handle is itself a MIG device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_mig_device: Option<bool>,
    /// MIG devices carved from this GPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mig_devices: Vec<MigDevice>,
    /// Virtualisation mode: `bare`, `pass_through`, `vgpu`, `host_vgpu`, `host_vsga`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtualization_mode: Option<String>,
    /// PCIe link, current and maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie: Option<PcieLink>,
    /// Clocks in MHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
    /// Power draw and limits in watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<Power>,
    /// GPU temperature, °C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature_c: Option<u32>,
    /// Active clock throttle reasons, e.g. `sw_power_cap`, `hw_thermal_slowdown`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttle_reasons: Vec<String>,
    /// ECC state and error counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecc: Option<Ecc>,
    /// GPU utilisation at the snapshot, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization_gpu_pct: Option<u32>,
    /// Memory-controller utilisation at the snapshot, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization_memory_pct: Option<u32>,
    /// Compute processes NVML lists (host PIDs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<GpuProcess>,
    /// Queries NVML answered NotSupported (recorded as unknown, not as failures).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsupported: Vec<String>,
}

/// A MIG device (GPU instance slice) of a GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MigDevice {
    /// MIG slot index on the parent.
    pub index: u32,
    /// Name, e.g. `NVIDIA A100-SXM4-80GB MIG 1g.10gb`.
    pub name: String,
    /// UUID (`MIG-...`); dropped by `--redact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Memory of the slice, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_total_bytes: Option<u64>,
}

/// PCIe link generation and width, current and maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
pub struct PcieLink {
    /// Current generation (may drop at idle to save power).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gen_current: Option<u32>,
    /// Maximum generation of the GPU and slot together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gen_max: Option<u32>,
    /// Current lane count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_current: Option<u32>,
    /// Maximum lane count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_max: Option<u32>,
    /// PCIe replay counter (rising values mean link errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_counter: Option<u32>,
}

/// Clock speeds in MHz.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
pub struct Clocks {
    /// Current SM clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_mhz: Option<u32>,
    /// Maximum SM clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_max_mhz: Option<u32>,
    /// Current memory clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mhz: Option<u32>,
    /// Maximum memory clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_max_mhz: Option<u32>,
}

/// Power draw and limits in watts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
pub struct Power {
    /// Current draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_w: Option<f64>,
    /// Enforced limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_w: Option<f64>,
    /// The board's default limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_limit_w: Option<f64>,
}

/// ECC state and error counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
pub struct Ecc {
    /// Whether ECC is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Corrected errors since the driver loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_volatile: Option<u64>,
    /// Uncorrected errors since the driver loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncorrected_volatile: Option<u64>,
    /// Retired memory pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_pages: Option<u64>,
}

/// A compute process on a GPU, as NVML lists it (host PID).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GpuProcess {
    /// Host process id.
    pub pid: u32,
    /// Memory it uses, bytes, when NVML knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_memory_bytes: Option<u64>,
}

/// Traces of GPU-sharing layers outside NVML: environment variables and preload files.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct SharingMarkers {
    /// Known marker variables and their values (HAMi, cGPU, eGPU, vcuda, MPS, visible devices).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
    /// Libraries preloaded through `LD_PRELOAD` or `/etc/ld.so.preload`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preload: Vec<String>,
    /// Marker files that exist, e.g. `/tmp/cudevshr.cache`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl SharingMarkers {
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.env.is_empty() && self.preload.is_empty() && self.files.is_empty()
    }
}

impl GpuFacts {
    /// Visible memory in GiB with one decimal, when known.
    pub fn memory_total_gib(&self) -> Option<Decimal> {
        self.memory_total_bytes.map(bytes_to_gib)
    }
}

impl SharingMarkers {
    /// Masks the GPU and MIG UUIDs visible-device variables carry (what `--redact` hides).
    pub fn redact(&mut self) {
        for (key, value) in self.env.iter_mut() {
            if key.ends_with("VISIBLE_DEVICES")
                && (value.contains("GPU-") || value.contains("MIG-"))
            {
                *value = value
                    .split(',')
                    .map(|v| {
                        if v.starts_with("MIG-") {
                            "MIG-…"
                        } else if v.starts_with("GPU-") {
                            "GPU-…"
                        } else {
                            v
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(",");
            }
        }
    }
}
