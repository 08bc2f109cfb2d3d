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
//! optional micro-benchmark, and the verdicts computed by `analysis`; still 2, as optional sections
//! older readers ignore — `host_limits` (cgroup CPU quota and memory limit, cpuset, load average,
//! container and VM detection), `disk` (O_DIRECT sequential and random figures), `network`
//! (iperf3, HTTP download, TCP connect RTT) and `runs` (the user's benchmark under `gpufare run`).

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
    /// Limits of the container or VM: cgroup CPU quota and memory limit, cpuset, load, and what
    /// kind of machine this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_limits: Option<HostLimits>,
    /// The disk benchmark (`gpufare probe --disk-dir`), when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk: Option<DiskReport>,
    /// Network measurements (`--iperf3`, `--http`, `--rtt`), when any ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkReport>,
    /// The user's own benchmark run by `gpufare run`, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<RunReport>,
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

/// Limits the container or VM puts on this process, and what kind of machine it is. A container
/// that shows 96 host cores may be allowed 24: `effective_cores` is what a job can really use.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct HostLimits {
    /// The cgroup version the limits were read from (1 or 2); absent when no cgroup was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_version: Option<u32>,
    /// CPU quota in cores (quota / period, the tightest along the cgroup path); absent when
    /// unlimited or unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_quota_cores: Option<f64>,
    /// CPUs this process may run on (its affinity mask, which a cpuset narrows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpuset_cores: Option<u32>,
    /// The cores a job can use: the smallest of the logical cores, the cpuset and the quota.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_cores: Option<f64>,
    /// Memory limit of the cgroup, bytes (the tightest along the path); absent when unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit_bytes: Option<u64>,
    /// Memory the kernel reports available for new work (`MemAvailable`), bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_available_bytes: Option<u64>,
    /// Load averages over 1, 5 and 15 minutes (host-wide, even inside a container).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_average: Option<LoadAverage>,
    /// The container runtime detected: `docker`, `podman`, `kubernetes`, `lxc`, `containerd`
    /// or `container` (some container, kind unknown); absent when none was seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// The facts behind `container`, e.g. `/.dockerenv exists`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub container_evidence: Vec<String>,
    /// The hypervisor or cloud detected, e.g. `kvm`, `amazon`, `vmware`; absent on bare metal or
    /// when nothing said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtualization: Option<String>,
    /// The facts behind `virtualization`, e.g. `cpuinfo flag hypervisor`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub virtualization_evidence: Vec<String>,
    /// Where each limit was read, e.g. `/sys/fs/cgroup/cpu.max = 200000 100000`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
}

/// Load averages (runnable and uninterruptible tasks).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadAverage {
    /// Over 1 minute.
    pub one: f64,
    /// Over 5 minutes.
    pub five: f64,
    /// Over 15 minutes.
    pub fifteen: f64,
}

/// The disk benchmark on one directory: what the filesystem is, and how fast it reads and writes
/// with the page cache out of the way (O_DIRECT).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiskReport {
    /// The directory tested.
    pub dir: String,
    /// Filesystem type of the mount holding it, e.g. `ext4`, `xfs`, `tmpfs`, `overlay`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<String>,
    /// The mount point holding the directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_point: Option<String>,
    /// The mounted device or source, e.g. `/dev/nvme0n1p1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_source: Option<String>,
    /// Free space for an unprivileged writer before the test, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_bytes: Option<u64>,
    /// Size of the filesystem, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<u64>,
    /// Size of the test file, bytes (filled with random data before anything is timed).
    pub file_size_bytes: u64,
    /// Whether the I/O bypassed the page cache (O_DIRECT). When false, `notes` says why and the
    /// figures may include memory speed.
    pub direct_io: bool,
    /// How requests were queued: `linux-aio` (real queue depth) or `threads` (one blocking request
    /// per thread).
    pub engine: String,
    /// Sequential write, 1 MiB blocks; the closing fsync is inside the timed part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_write: Option<DiskTest>,
    /// Sequential read, 1 MiB blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_read: Option<DiskTest>,
    /// Random read, 4 KiB blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand_read: Option<DiskTest>,
    /// Fallbacks taken and caveats, e.g. O_DIRECT refused on tmpfs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One timed disk pattern (after its ramp-up, like fio's `ramp_time`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiskTest {
    /// Bytes per request.
    pub block_bytes: u64,
    /// Requests kept in flight.
    pub queue_depth: u32,
    /// Seconds measured (the ramp-up excluded; the closing fsync of a write included).
    pub seconds: f64,
    /// Bytes completed in the measured time.
    pub bytes: u64,
    /// Throughput, MB/s (10^6 bytes per second; fio's `MB/s`, not `MiB/s`).
    pub mb_per_s: f64,
    /// Requests completed per second.
    pub iops: f64,
    /// Completion latency of each request, milliseconds (fio's `clat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<crate::stats::Summary>,
    /// Throughput of each measured second, MB/s: the spread over time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_mb_per_s: Option<Series>,
}

/// Network measurements against endpoints the user named (or opted into).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct NetworkReport {
    /// iperf3 tests, one per server and direction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iperf3: Vec<Iperf3Result>,
    /// HTTP download throughput, one per URL.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub http: Vec<HttpResult>,
    /// TCP connect round-trip times, one per endpoint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rtt: Vec<RttResult>,
}

impl NetworkReport {
    /// Whether nothing was measured.
    pub fn is_empty(&self) -> bool {
        self.iperf3.is_empty() && self.http.is_empty() && self.rtt.is_empty()
    }
}

/// Which way data flowed in an iperf3 test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// This machine sends to the server.
    Upload,
    /// The server sends to this machine (`iperf3 -R`).
    Download,
}

/// One iperf3 test against a stock `iperf3 -s`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Iperf3Result {
    /// The server, `host:port`.
    pub server: String,
    /// Which way data flowed.
    pub direction: Direction,
    /// Parallel TCP streams.
    pub streams: u32,
    /// Seconds of data transfer asked for.
    pub seconds: f64,
    /// Bytes counted by the receiving side over all streams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Throughput counted by the receiver, Mbit/s (10^6 bits per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbit_per_s: Option<f64>,
    /// Throughput of each stream, Mbit/s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stream_mbit_per_s: Vec<f64>,
    /// TCP retransmits reported by the sender; absent when the sender could not tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retransmits: Option<u64>,
    /// Why the test failed, e.g. `server busy (ACCESS_DENIED)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// HTTP download throughput from one URL over several connections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HttpResult {
    /// The URL.
    pub url: String,
    /// Parallel connections, each downloading the URL.
    pub connections: u32,
    /// Body bytes received over all connections, warm-up included.
    pub bytes: u64,
    /// Seconds of the measured part (after the warm-up).
    pub seconds: f64,
    /// Seconds dropped at the start as warm-up (DNS, connect, TCP slow start).
    pub warmup_s: f64,
    /// Throughput after the warm-up, Mbit/s (10^6 bits per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbit_per_s: Option<f64>,
    /// Throughput in each 250 ms window after the warm-up, Mbit/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_mbit_per_s: Option<Series>,
    /// Time to connect, per connection, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_ms: Option<crate::stats::Summary>,
    /// Time from sending the request to the first byte of the response, per connection,
    /// milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttfb_ms: Option<crate::stats::Summary>,
    /// Caveats, e.g. a transfer too short to drop a warm-up.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why the download failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// TCP connect round-trip time to one endpoint (the SYN/SYN-ACK exchange; no ICMP).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RttResult {
    /// The endpoint, `host:port`.
    pub target: String,
    /// The region label of a built-in endpoint (`--rtt-regions`), e.g. `aws us-east-1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// The address connected to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Name resolution time, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns_ms: Option<f64>,
    /// Connection attempts.
    pub tries: u32,
    /// Connect time of each successful attempt, milliseconds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ms: Vec<f64>,
    /// The fastest connect, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ms: Option<f64>,
    /// The median connect, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_ms: Option<f64>,
    /// Why attempts failed (the last error), e.g. `connection refused`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

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
    pub gpu_utilization_pct: Option<crate::stats::Summary>,
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
            host_limits: None,
            disk: None,
            network: None,
            runs: None,
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
