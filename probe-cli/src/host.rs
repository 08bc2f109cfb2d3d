//! Host facts: CPU model, logical cores, RAM, operating system and kernel, via `sysinfo`.

use gpufare_core::profile::host::HostFacts;
use sysinfo::{CpuRefreshKind, MemoryRefreshKind, RefreshKind, System};

/// Reads the host facts. Values the OS does not give come back as `unknown`.
pub fn read_host() -> HostFacts {
    let system = System::new_with_specifics(
        RefreshKind::nothing()
            .with_cpu(CpuRefreshKind::nothing())
            .with_memory(MemoryRefreshKind::nothing().with_ram()),
    );
    let cpus = system.cpus();
    let cpu_model = cpus
        .iter()
        .map(|c| c.brand().trim())
        .find(|b| !b.is_empty())
        .unwrap_or("unknown")
        .to_owned();
    HostFacts {
        hostname: System::host_name(),
        cpu_model,
        logical_cores: u32::try_from(cpus.len()).unwrap_or(u32::MAX),
        total_ram_bytes: system.total_memory(),
        os: System::long_os_version().unwrap_or_else(|| "unknown".to_owned()),
        kernel: System::kernel_version().unwrap_or_else(|| "unknown".to_owned()),
        arch: System::cpu_arch(),
    }
}
