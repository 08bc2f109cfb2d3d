//! The probe profile: what `gpufare probe` measured on one machine, as a versioned JSON document.
//!
//! The probe (native) writes it and the site (WebAssembly) reads it, both through the types here.
//! Contract: `format_version` is the first field; readers accept every version up to
//! [`PROFILE_FORMAT_VERSION`], ignore fields they do not know, and refuse newer versions with a
//! message that says to update gpufare. Times are RFC 3339 text supplied by the writer, since this
//! crate reads no clock.
//!
//! Version history: 1 — host facts and a GPU list (name, UUID, memory); 2 — full NVML facts per
//! GPU (MIG, virtualisation, PCIe, clocks, power, throttling, ECC, processes), environment
//! markers of GPU-sharing layers, a sampling window with raw samples and their summaries, the
//! optional micro-benchmark, and the verdicts computed by `analysis`.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The profile format this build writes and the newest it reads.
pub const PROFILE_FORMAT_VERSION: u32 = 2;

/// The tool name written into every profile.
pub const TOOL_NAME: &str = "gpufare";

/// One machine's profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Profile {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// What wrote the profile.
    pub tool: ToolInfo,
    /// When the probe ran, RFC 3339 in UTC (e.g. `2026-12-02T09:30:00Z`).
    pub created_at: String,
    /// Facts about the host: CPU, memory, operating system.
    pub host: HostFacts,
    /// NVIDIA driver facts, when a driver answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<DriverFacts>,
    /// One entry per GPU the driver shows; empty when there is no driver or no GPU.
    #[serde(default)]
    pub gpus: Vec<GpuFacts>,
    /// Why `gpus` is empty, when the probe could not read GPUs (e.g. no NVIDIA driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus_unavailable: Option<String>,
    /// The probe's own process id (NVML lists host PIDs; see `analysis` for how they are used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_pid: Option<u32>,
    /// Markers of GPU-sharing layers found in the environment and preload files.
    #[serde(default, skip_serializing_if = "SharingMarkers::is_empty")]
    pub sharing_markers: SharingMarkers,
    /// The sampling window: raw samples per GPU and metric, with their summaries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingWindow>,
    /// The GPU micro-benchmark, when it ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub benchmarks: Vec<GpuBenchmark>,
    /// Verdicts computed from the facts above by `gpufare_core::analysis` when the profile was
    /// written; readers may recompute them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<crate::analysis::Verdict>,
    /// Warnings the probe printed while measuring, kept with the evidence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The program that wrote a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolInfo {
    /// Always `gpufare` for profiles this project writes.
    pub name: String,
    /// The writer's version, e.g. `0.1.0`.
    pub version: String,
}

/// Host facts, as the operating system reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HostFacts {
    /// Host name; dropped by `--redact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// CPU model string, e.g. `AMD EPYC 7B13`.
    pub cpu_model: String,
    /// Logical CPUs the host shows (a container may be allowed fewer).
    pub logical_cores: u32,
    /// Total RAM in bytes.
    pub total_ram_bytes: u64,
    /// Operating system name and version, e.g. `Debian GNU/Linux 12 (bookworm)`.
    pub os: String,
    /// Kernel release, e.g. `6.1.0-26-amd64`.
    pub kernel: String,
    /// CPU architecture, e.g. `x86_64`.
    #[serde(default)]
    pub arch: String,
}

impl HostFacts {
    /// Total RAM in GiB with one decimal, for display.
    pub fn total_ram_gib(&self) -> Decimal {
        bytes_to_gib(self.total_ram_bytes)
    }
}

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
    pub summary: Option<crate::stats::Summary>,
}

impl Series {
    /// A series from raw samples, summarised.
    pub fn new(samples: Vec<f64>) -> Series {
        let summary = crate::stats::summarize(&samples);
        Series { samples, summary }
    }
}

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

impl GpuFacts {
    /// Visible memory in GiB with one decimal, when known.
    pub fn memory_total_gib(&self) -> Option<Decimal> {
        self.memory_total_bytes.map(bytes_to_gib)
    }
}

fn bytes_to_gib(bytes: u64) -> Decimal {
    let mut gib = (Decimal::from(bytes) / Decimal::from(1u64 << 30)).round_dp(1);
    gib.rescale(1);
    gib
}

/// Why a document could not be read as a profile.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProfileError {
    /// The text is not JSON at all.
    #[error("not valid JSON (line {line}, column {column}): {message}")]
    NotJson {
        /// 1-based line of the first error.
        line: usize,
        /// 1-based column of the first error.
        column: usize,
        /// The parser's description.
        message: String,
    },
    /// Valid JSON, but not a gpufare profile (no numeric `format_version`, or another tool's).
    #[error("not a gpufare profile: {why}")]
    Foreign {
        /// What is missing or wrong.
        why: String,
    },
    /// Written by a newer gpufare than this one.
    #[error(
        "profile format version {found} is newer than this gpufare supports (up to {max}); update gpufare"
    )]
    UnsupportedFormat {
        /// The version in the document.
        found: u64,
        /// The newest version this build reads.
        max: u32,
    },
    /// A gpufare profile of a supported version with a missing or mistyped field.
    #[error("invalid profile (line {line}, column {column}): {message}")]
    Invalid {
        /// 1-based line of the first error.
        line: usize,
        /// 1-based column of the first error.
        column: usize,
        /// The parser's description, naming the field.
        message: String,
    },
}

impl ProfileError {
    /// A stable identifier for the reason, used by the site to pick a translated message.
    pub fn code(&self) -> &'static str {
        match self {
            ProfileError::NotJson { .. } => "not_json",
            ProfileError::Foreign { .. } => "foreign",
            ProfileError::UnsupportedFormat { .. } => "newer_version",
            ProfileError::Invalid { .. } => "invalid",
        }
    }
}

/// Reads a profile from JSON text, checking the format version before anything else.
pub fn parse_profile(text: &str) -> Result<Profile, ProfileError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ProfileError::NotJson {
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
    let object = value.as_object().ok_or_else(|| ProfileError::Foreign {
        why: "the document is not a JSON object".to_owned(),
    })?;
    let version = match object.get("format_version") {
        None => {
            return Err(ProfileError::Foreign {
                why: "it has no format_version field".to_owned(),
            });
        }
        Some(v) => v.as_u64().ok_or_else(|| ProfileError::Foreign {
            why: format!("format_version is {v}, not a whole number"),
        })?,
    };
    if let Some(name) = object
        .get("tool")
        .and_then(|t| t.get("name"))
        .and_then(|n| n.as_str())
        && name != TOOL_NAME
    {
        return Err(ProfileError::Foreign {
            why: format!("it was written by {name:?}"),
        });
    }
    if version == 0 {
        return Err(ProfileError::Foreign {
            why: "format_version 0 does not exist".to_owned(),
        });
    }
    if version > u64::from(PROFILE_FORMAT_VERSION) {
        return Err(ProfileError::UnsupportedFormat {
            found: version,
            max: PROFILE_FORMAT_VERSION,
        });
    }
    serde_json::from_str(text).map_err(|e| ProfileError::Invalid {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })
}

/// Writes a profile as pretty JSON; `format_version` comes first because it is declared first.
pub fn profile_to_json(profile: &Profile) -> String {
    // Serialising these plain types cannot fail: no maps with non-string keys, no foreign types.
    serde_json::to_string_pretty(profile).unwrap_or_default()
}

/// serde_json appends " at line L column C"; the position is kept in separate fields.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_version_1_profiles() {
        let v1 = r#"{"format_version":1,"tool":{"name":"gpufare","version":"0.1.0"},"created_at":"2026-12-02T09:30:00Z",
            "host":{"cpu_model":"x","logical_cores":2,"total_ram_bytes":1,"os":"o","kernel":"k"},"gpus":[{"index":0,"name":"NVIDIA A10"}]}"#;
        let p = parse_profile(v1).unwrap();
        assert_eq!(
            (
                p.format_version,
                p.gpus[0].name.as_str(),
                p.sampling.is_none()
            ),
            (1, "NVIDIA A10", true)
        );
    }

    fn sample() -> Profile {
        Profile {
            format_version: PROFILE_FORMAT_VERSION,
            tool: ToolInfo {
                name: TOOL_NAME.to_owned(),
                version: "0.1.0".to_owned(),
            },
            created_at: "2026-12-02T09:30:00Z".to_owned(),
            host: HostFacts {
                hostname: Some("box".to_owned()),
                cpu_model: "AMD EPYC 7B13".to_owned(),
                logical_cores: 2,
                total_ram_bytes: 25_769_803_776,
                os: "Debian GNU/Linux 12".to_owned(),
                kernel: "6.1.0".to_owned(),
                arch: "x86_64".to_owned(),
            },
            driver: None,
            gpus: vec![],
            gpus_unavailable: Some("no NVIDIA driver".to_owned()),
            own_pid: None,
            sharing_markers: SharingMarkers::default(),
            sampling: None,
            benchmarks: vec![],
            verdicts: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn round_trips_with_format_version_first() {
        let json = profile_to_json(&sample());
        assert!(json.starts_with("{\n  \"format_version\": 2,"), "{json}");
        assert_eq!(parse_profile(&json).unwrap(), sample());
        assert_eq!(sample().host.total_ram_gib().to_string(), "24.0");
    }

    #[test]
    fn ignores_unknown_fields() {
        let mut v: serde_json::Value = serde_json::from_str(&profile_to_json(&sample())).unwrap();
        v["from_the_future"] = serde_json::json!({"x": 1});
        v["host"]["numa_nodes"] = serde_json::json!(2);
        assert_eq!(parse_profile(&v.to_string()).unwrap(), sample());
    }

    #[test]
    fn explains_each_refusal() {
        let cases = [
            ("{\"format_version\": 1,", "not_json"),
            ("[1, 2]", "foreign"),
            ("{\"name\": \"x\"}", "foreign"),
            ("{\"format_version\": \"1\"}", "foreign"),
            ("{\"format_version\": 0}", "foreign"),
            (
                "{\"format_version\": 1, \"tool\": {\"name\": \"nvitop\", \"version\": \"1\"}}",
                "foreign",
            ),
            ("{\"format_version\": 3}", "newer_version"),
            (
                "{\"format_version\": 1, \"tool\": {\"name\": \"gpufare\", \"version\": \"0.1.0\"}}",
                "invalid",
            ),
        ];
        for (text, code) in cases {
            assert_eq!(parse_profile(text).unwrap_err().code(), code, "{text}");
        }
        let newer = parse_profile("{\"format_version\": 7}").unwrap_err();
        assert_eq!(
            newer.to_string(),
            "profile format version 7 is newer than this gpufare supports (up to 2); update gpufare"
        );
        let invalid = parse_profile(
            "{\"format_version\": 1, \"tool\": {\"name\": \"gpufare\", \"version\": \"0.1.0\"}}",
        )
        .unwrap_err();
        assert!(
            invalid.to_string().contains("missing field `created_at`"),
            "{invalid}"
        );
    }
}
