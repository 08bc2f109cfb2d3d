//! GPU facts and samples through NVML (`nvml-wrapper`), which loads `libnvidia-ml.so.1` at run
//! time.
//!
//! No driver is not an error: the probe records why there are no GPUs and goes on. A query NVML
//! refuses with NotSupported (common on vGPU, MIG and GeForce cards) is recorded in the GPU's
//! `unsupported` list and its field left unknown. The sampling window and the snapshot go through
//! the [`GpuSource`] trait, so the window logic is tested without a GPU.

use crate::libs::{self, Lib};
use gpufare_core::profile::gpu::{
    Clocks, DriverFacts, Ecc, GpuFacts, GpuProcess, MigDevice, PcieLink, Power,
};
use nvml_wrapper::Device;
use nvml_wrapper::Nvml;
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::{
    Brand, Clock, ClockId, EccCounter, MemoryError, PcieUtilCounter, RetirementCause,
    TemperatureSensor,
};
use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::error::NvmlError;

/// One reading of the sampled metrics of one GPU; `None` where NVML did not answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampleRow {
    pub utilization_gpu_pct: Option<f64>,
    pub memory_used_mib: Option<f64>,
    pub pcie_rx_mbps: Option<f64>,
    pub pcie_tx_mbps: Option<f64>,
    pub sm_clock_mhz: Option<f64>,
    pub power_w: Option<f64>,
    pub temperature_c: Option<f64>,
    pub throttle_reasons: Vec<String>,
    pub pids: Vec<u32>,
}

/// Where GPU facts come from: NVML on a real machine, recorded readings in tests.
pub trait GpuSource {
    /// Number of GPUs.
    fn count(&self) -> u32;
    /// One sample of GPU `index`.
    fn sample(&self, index: u32) -> SampleRow;
}

/// A live NVML session.
pub struct NvmlSource {
    nvml: Nvml,
}

/// The outcome of opening NVML: a session, or the reason there is none.
pub enum Opened {
    Ready(Box<NvmlSource>),
    Unavailable(String),
}

/// Opens NVML; a missing driver becomes a reason, not an error.
///
/// The dynamic loader is asked first; where it does not know the library (the driver's files
/// mounted under `/usr/local/nvidia/lib64`, say, with no `LD_LIBRARY_PATH`), the usual folders
/// of [`crate::libs`] are tried one by one, and the reason names where the probe looked.
pub fn open() -> Opened {
    let first = match Nvml::init() {
        Ok(nvml) => return Opened::Ready(Box::new(NvmlSource { nvml })),
        Err(err) => err,
    };
    if !matches!(first, NvmlError::LibloadingError(_)) {
        return Opened::Unavailable(describe_init_error(&first));
    }
    let places = libs::system();
    let mut refused = Vec::new();
    for path in places.find(Lib::Nvml) {
        match Nvml::builder().lib_path(path.as_os_str()).init() {
            Ok(nvml) => return Opened::Ready(Box::new(NvmlSource { nvml })),
            // The library loaded but the driver said no: that is the reason to give.
            Err(err) if !matches!(err, NvmlError::LibloadingError(_)) => {
                return Opened::Unavailable(format!(
                    "{} (NVML from {})",
                    describe_init_error(&err),
                    path.display()
                ));
            }
            Err(err) => refused.push(format!("{} ({err})", path.display())),
        }
    }
    let mut why = format!(
        "no NVIDIA driver: {} could not be loaded; {}",
        Lib::Nvml.display_name(),
        places.looked(Lib::Nvml)
    );
    if !refused.is_empty() {
        why.push_str("; found but could not load: ");
        why.push_str(&refused.join(", "));
    }
    Opened::Unavailable(why)
}

fn describe_init_error(err: &NvmlError) -> String {
    match err {
        NvmlError::LibloadingError(_) => {
            "no NVIDIA driver: libnvidia-ml.so.1 could not be loaded".to_owned()
        }
        NvmlError::DriverNotLoaded => "the NVIDIA kernel driver is not loaded".to_owned(),
        NvmlError::NoPermission => "no permission to talk to the NVIDIA driver".to_owned(),
        other => format!("NVML could not start: {other}"),
    }
}

/// Keeps a value, or notes the query as unsupported (NotSupported) and leaves it unknown.
struct Notes<'a>(&'a mut Vec<String>);

impl Notes<'_> {
    fn get<T>(&mut self, what: &str, result: Result<T, NvmlError>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(NvmlError::NotSupported) => {
                if !self.0.iter().any(|x| x == what) {
                    self.0.push(what.to_owned());
                }
                None
            }
            Err(_) => None,
        }
    }
}

/// Names of the throttle reasons set, in snake case (`gpu_idle`, `sw_power_cap`, ...).
pub fn throttle_names(reasons: ThrottleReasons) -> Vec<String> {
    reasons
        .iter_names()
        .map(|(name, _)| name.to_ascii_lowercase())
        .collect()
}

fn brand_name(b: Brand) -> String {
    format!("{b:?}")
}

impl NvmlSource {
    /// Driver, CUDA and NVML versions.
    pub fn driver(&self) -> DriverFacts {
        DriverFacts {
            driver_version: self.nvml.sys_driver_version().ok(),
            cuda_version: self
                .nvml
                .sys_cuda_driver_version()
                .ok()
                .map(|v| format!("{}.{}", v / 1000, (v % 1000) / 10)),
            nvml_version: self.nvml.sys_nvml_version().ok(),
        }
    }

    /// Every fact NVML gives about every GPU.
    pub fn snapshot(&self) -> Result<Vec<GpuFacts>, String> {
        let count = self
            .nvml
            .device_count()
            .map_err(|e| format!("the NVIDIA driver could not count GPUs: {e}"))?;
        Ok((0..count)
            .filter_map(|i| self.nvml.device_by_index(i).ok().map(|d| facts(i, &d)))
            .collect())
    }
}

fn facts(index: u32, d: &Device<'_>) -> GpuFacts {
    let mut unsupported = Vec::new();
    let mut n = Notes(&mut unsupported);
    let memory = n.get("memory_info", d.memory_info());
    let mig = n.get("mig_mode", d.mig_mode()).map(|m| m.current == 1);
    let mut mig_devices = Vec::new();
    if mig == Some(true)
        && let Some(slots) = n.get("mig_device_count", d.mig_device_count())
    {
        for j in 0..slots {
            // Empty slots answer NotFound; they are simply not listed.
            if let Ok(m) = d.mig_device_by_index(j) {
                mig_devices.push(MigDevice {
                    index: j,
                    name: m.name().unwrap_or_else(|_| "unknown".to_owned()),
                    uuid: m.uuid().ok(),
                    memory_total_bytes: m.memory_info().ok().map(|i| i.total),
                });
            }
        }
    }
    let virtualization = n
        .get("virtualization_mode", d.virtualization_mode())
        .map(|m| {
            match format!("{m:?}").as_str() {
                "Bare" => "bare",
                "PassThrough" => "pass_through",
                "Vgpu" => "vgpu",
                "HostVgpu" => "host_vgpu",
                "HostVsga" => "host_vsga",
                _ => "unknown",
            }
            .to_owned()
        });
    let pcie = PcieLink {
        gen_current: n.get("pcie_link_gen", d.current_pcie_link_gen()),
        gen_max: n.get("pcie_link_gen_max", d.max_pcie_link_gen()),
        width_current: n.get("pcie_link_width", d.current_pcie_link_width()),
        width_max: n.get("pcie_link_width_max", d.max_pcie_link_width()),
        replay_counter: n.get("pcie_replay_counter", d.pcie_replay_counter()),
    };
    let clocks = Clocks {
        sm_mhz: n.get("clock_sm", d.clock(Clock::SM, ClockId::Current)),
        sm_max_mhz: n.get("max_clock_sm", d.max_clock_info(Clock::SM)),
        memory_mhz: n.get("clock_memory", d.clock_info(Clock::Memory)),
        memory_max_mhz: n.get("max_clock_memory", d.max_clock_info(Clock::Memory)),
    };
    let watts = |mw: u32| f64::from(mw) / 1000.0;
    let power = Power {
        usage_w: n.get("power_usage", d.power_usage()).map(watts),
        limit_w: n
            .get("enforced_power_limit", d.enforced_power_limit())
            .map(watts),
        default_limit_w: n
            .get("power_limit_default", d.power_management_limit_default())
            .map(watts),
    };
    let ecc_enabled = n
        .get("ecc_mode", d.is_ecc_enabled())
        .map(|e| e.currently_enabled);
    let ecc = ecc_enabled.map(|enabled| Ecc {
        enabled: Some(enabled),
        corrected_volatile: d
            .total_ecc_errors(MemoryError::Corrected, EccCounter::Volatile)
            .ok(),
        uncorrected_volatile: d
            .total_ecc_errors(MemoryError::Uncorrected, EccCounter::Volatile)
            .ok(),
        retired_pages: match (
            d.retired_pages(RetirementCause::MultipleSingleBitEccErrors),
            d.retired_pages(RetirementCause::DoubleBitEccError),
        ) {
            (Ok(a), Ok(b)) => Some((a.len() + b.len()) as u64),
            _ => None,
        },
    });
    let utilization = n.get("utilization_rates", d.utilization_rates());
    let processes = n
        .get("running_compute_processes", d.running_compute_processes())
        .unwrap_or_default()
        .into_iter()
        .map(|p| GpuProcess {
            pid: p.pid,
            used_memory_bytes: match p.used_gpu_memory {
                UsedGpuMemory::Used(b) => Some(b),
                UsedGpuMemory::Unavailable => None,
            },
        })
        .collect();
    GpuFacts {
        index,
        name: n
            .get("name", d.name())
            .unwrap_or_else(|| "unknown".to_owned()),
        uuid: n.get("uuid", d.uuid()),
        memory_total_bytes: memory.as_ref().map(|m| m.total),
        memory_used_bytes: memory.as_ref().map(|m| m.used),
        memory_free_bytes: memory.as_ref().map(|m| m.free),
        memory_reserved_bytes: memory.as_ref().map(|m| m.reserved),
        pci_bus_id: n.get("pci_info", d.pci_info()).map(|p| p.bus_id),
        brand: n.get("brand", d.brand()).map(brand_name),
        compute_capability: n
            .get("compute_capability", d.cuda_compute_capability())
            .map(|c| format!("{}.{}", c.major, c.minor)),
        mig_enabled: mig,
        is_mig_device: n.get("mig_is_mig_device_handle", d.mig_is_mig_device_handle()),
        mig_devices,
        virtualization_mode: virtualization,
        pcie: (pcie != PcieLink::default()).then_some(pcie),
        clocks: (clocks != Clocks::default()).then_some(clocks),
        power: (power != Power::default()).then_some(power),
        temperature_c: n.get("temperature", d.temperature(TemperatureSensor::Gpu)),
        throttle_reasons: n
            .get("throttle_reasons", d.current_throttle_reasons())
            .map(throttle_names)
            .unwrap_or_default(),
        ecc,
        utilization_gpu_pct: utilization.as_ref().map(|u| u.gpu),
        utilization_memory_pct: utilization.as_ref().map(|u| u.memory),
        processes,
        unsupported,
    }
}

impl GpuSource for NvmlSource {
    fn count(&self) -> u32 {
        self.nvml.device_count().unwrap_or(0)
    }

    fn sample(&self, index: u32) -> SampleRow {
        let Ok(d) = self.nvml.device_by_index(index) else {
            return SampleRow::default();
        };
        SampleRow {
            utilization_gpu_pct: d.utilization_rates().ok().map(|u| f64::from(u.gpu)),
            memory_used_mib: d
                .memory_info()
                .ok()
                .map(|m| m.used as f64 / (1024.0 * 1024.0)),
            // NVML reports KB/s over a 20 ms window; MB/s here.
            pcie_rx_mbps: d
                .pcie_throughput(PcieUtilCounter::Receive)
                .ok()
                .map(|k| f64::from(k) / 1000.0),
            pcie_tx_mbps: d
                .pcie_throughput(PcieUtilCounter::Send)
                .ok()
                .map(|k| f64::from(k) / 1000.0),
            sm_clock_mhz: d.clock(Clock::SM, ClockId::Current).ok().map(f64::from),
            power_w: d.power_usage().ok().map(|mw| f64::from(mw) / 1000.0),
            temperature_c: d.temperature(TemperatureSensor::Gpu).ok().map(f64::from),
            throttle_reasons: d
                .current_throttle_reasons()
                .ok()
                .map(throttle_names)
                .unwrap_or_default(),
            pids: d
                .running_compute_processes()
                .map(|ps| ps.iter().map(|p| p.pid).collect())
                .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_reasons_are_named_in_snake_case() {
        let names = throttle_names(ThrottleReasons::GPU_IDLE | ThrottleReasons::SW_POWER_CAP);
        assert_eq!(names, ["gpu_idle", "sw_power_cap"]);
        assert!(
            throttle_names(ThrottleReasons::HW_THERMAL_SLOWDOWN)
                .contains(&"hw_thermal_slowdown".to_owned())
        );
    }
}
