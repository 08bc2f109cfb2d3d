//! GPU facts through NVML (`nvml-wrapper`), which loads `libnvidia-ml.so.1` at run time.
//!
//! No driver is not an error: the probe records why there are no GPUs and goes on. A single
//! query NVML refuses (NotSupported on vGPU, MIG or GeForce cards) leaves that field unknown.

use gpufare_core::profile::{DriverFacts, GpuFacts};
use nvml_wrapper::Nvml;
use nvml_wrapper::error::NvmlError;

/// What NVML gave: the driver, the devices, or the reason there are none.
pub struct GpuReading {
    pub driver: Option<DriverFacts>,
    pub gpus: Vec<GpuFacts>,
    pub unavailable: Option<String>,
}

/// Reads every GPU NVML shows.
pub fn read_gpus() -> GpuReading {
    let nvml = match Nvml::init() {
        Ok(nvml) => nvml,
        Err(err) => {
            return GpuReading {
                driver: None,
                gpus: vec![],
                unavailable: Some(describe_init_error(&err)),
            };
        }
    };
    let driver = DriverFacts {
        driver_version: nvml.sys_driver_version().ok(),
        cuda_version: nvml
            .sys_cuda_driver_version()
            .ok()
            .map(|v| format!("{}.{}", v / 1000, (v % 1000) / 10)),
        nvml_version: nvml.sys_nvml_version().ok(),
    };
    let count = match nvml.device_count() {
        Ok(n) => n,
        Err(err) => {
            return GpuReading {
                driver: Some(driver),
                gpus: vec![],
                unavailable: Some(format!("the NVIDIA driver could not count GPUs: {err}")),
            };
        }
    };
    let mut gpus = Vec::new();
    for index in 0..count {
        let Ok(device) = nvml.device_by_index(index) else {
            continue;
        };
        let memory = device.memory_info().ok();
        gpus.push(GpuFacts {
            index,
            name: device.name().unwrap_or_else(|_| "unknown".to_owned()),
            uuid: device.uuid().ok(),
            memory_total_bytes: memory.as_ref().map(|m| m.total),
            memory_used_bytes: memory.as_ref().map(|m| m.used),
            memory_free_bytes: memory.as_ref().map(|m| m.free),
        });
    }
    let unavailable = gpus
        .is_empty()
        .then(|| "the NVIDIA driver reports no GPU".to_owned());
    GpuReading {
        driver: Some(driver),
        gpus,
        unavailable,
    }
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
