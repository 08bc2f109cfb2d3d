//! Traces of GPU-sharing layers outside NVML: environment variables of HAMi, Alibaba cGPU and
//! eGPU, CUDA MPS and the visible-devices variables; libraries preloaded through `LD_PRELOAD` or
//! `/etc/ld.so.preload` (HAMi's `libvgpu.so`); marker files. Sources: Project-HAMi/HAMi-core
//! (`src/libvgpu.c`), the cGPU README (lvmxh/cgpu), Alibaba's PAI eGPU docs; docs/sources.md §6.2.

use std::collections::BTreeMap;
use std::path::Path;

use gpufare_core::profile::gpu::SharingMarkers;

/// Variables recorded when set.
const VARIABLES: &[&str] = &[
    "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES",
    "CUDA_DEVICE_SM_LIMIT",
    "CUDA_DEVICE_MEMORY_SHARED_CACHE",
    "GPU_CORE_UTILIZATION_POLICY",
    "ALIYUN_COM_GPU_MEM_DEV",
    "ALIYUN_COM_GPU_MEM_CONTAINER",
    "ALIYUN_COM_GPU_VISIBLE_DEVICES",
    "ALIYUN_COM_GPU_MEM_RESERVED",
    "CGPU_DISABLE",
    "AMP_VGPU_ENABLE",
    "GPU_MEM_PER_DEVICE",
    "GPU_UTIL_PER_DEVICE",
    "CUDA_MPS_PIPE_DIRECTORY",
    "CUDA_MPS_LOG_DIRECTORY",
    "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
    "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
];

/// Variable prefixes recorded when set (HAMi's per-device memory limits).
const PREFIXES: &[&str] = &["CUDA_DEVICE_MEMORY_LIMIT"];

/// Files whose existence marks a sharing layer.
const FILES: &[&str] = &[
    "/tmp/cudevshr.cache",
    "/tmp/vgpulock",
    "/usr/local/vgpu/libvgpu.so",
    "/proc/cgpu_km",
];

/// Collects markers from an environment and a filesystem root (`/` on a real machine).
pub fn collect(env: impl IntoIterator<Item = (String, String)>, root: &Path) -> SharingMarkers {
    let mut vars = BTreeMap::new();
    let mut preload = Vec::new();
    for (key, value) in env {
        if key == "LD_PRELOAD" {
            preload.extend(
                value
                    .split([':', ' '])
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            );
        } else if VARIABLES.contains(&key.as_str()) || PREFIXES.iter().any(|p| key.starts_with(p)) {
            vars.insert(key, value);
        }
    }
    if let Ok(text) = std::fs::read_to_string(root.join("etc/ld.so.preload")) {
        preload.extend(
            text.split_whitespace()
                .filter(|s| !s.starts_with('#'))
                .map(str::to_owned),
        );
    }
    preload.sort();
    preload.dedup();
    let files = FILES
        .iter()
        .filter(|f| root.join(f.trim_start_matches('/')).exists())
        .map(|f| (*f).to_owned())
        .collect();
    SharingMarkers {
        env: vars,
        preload,
        files,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_hami_markers_in_env_preload_and_files() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("etc")).unwrap();
        std::fs::write(
            root.path().join("etc/ld.so.preload"),
            "/usr/local/vgpu/libvgpu.so\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.path().join("tmp")).unwrap();
        std::fs::write(root.path().join("tmp/cudevshr.cache"), "").unwrap();
        let env = [
            ("CUDA_DEVICE_MEMORY_LIMIT_0", "8192m"),
            ("HOME", "/root"),
            ("LD_PRELOAD", "/opt/other.so"),
            ("NVIDIA_VISIBLE_DEVICES", "all"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
        let m = collect(env, root.path());
        assert_eq!(
            m.env.keys().collect::<Vec<_>>(),
            ["CUDA_DEVICE_MEMORY_LIMIT_0", "NVIDIA_VISIBLE_DEVICES"]
        );
        assert_eq!(m.preload, ["/opt/other.so", "/usr/local/vgpu/libvgpu.so"]);
        assert_eq!(m.files, ["/tmp/cudevshr.cache"]);
    }

    #[test]
    fn a_plain_machine_has_no_markers() {
        let root = tempfile::tempdir().unwrap();
        let m = collect([("PATH".to_owned(), "/usr/bin".to_owned())], root.path());
        assert!(m.is_empty());
    }
}
