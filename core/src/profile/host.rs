//! The host section of a profile: CPU, memory and operating system as the machine reports them,
//! and the limits a container or VM puts on the probe's process.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

pub(crate) fn bytes_to_gib(bytes: u64) -> Decimal {
    let mut gib = (Decimal::from(bytes) / Decimal::from(1u64 << 30)).round_dp(1);
    gib.rescale(1);
    gib
}
