//! Verdicts from a probe profile: is this a slice, are there noisy neighbours, is the PCIe link
//! degraded, is the card power-capped or throttling, how much does speed wobble.
//!
//! Everything is computed from the raw facts in the profile, so the site recomputes the same
//! verdicts from an imported file. The heuristics (their public sources are in docs/sources.md):
//! VRAM visible vs nominal (NVML `memory.total`; ECC costs up to 1/16 on GDDR cards, so a
//! ratio from 0.90 up is a whole card), MIG and vGPU names and modes, sharing-layer markers
//! (HAMi, cGPU, eGPU, MPS), utilisation or memory in use by processes that are not ours (NVML
//! reports host PIDs; the probe records its own so any other PID is a neighbour), the PCIe link
//! against the card's generation, the enforced vs default power limit, throttle reasons, ECC
//! errors, and the GEMM step-time tail (P99/P50).

use crate::hardware::gpu::spec_for;
use crate::hardware::pcie::expected_h2d_gbs;
use crate::profile::document::Profile;
use crate::profile::figures::{OVERSIZE_RATIO, SLICE_RATIO, memory_ratio};
use crate::profile::gpu::GpuFacts;
use crate::profile::sampling::GpuSamples;
use crate::profile::verdict::{Finding, Level, Verdict, VerdictKind};

/// Utilisation at or above this P95 with no process of ours means someone else is computing.
pub const BUSY_PCT: f64 = 5.0;

/// Memory in use above this many MiB on an idle datacenter card means someone else holds it.
pub const IDLE_MEMORY_MIB: f64 = 512.0;

/// A GEMM P99/P50 above this is jitter worth a warning; above `JITTER_ALERT` an alert.
pub const JITTER_WARN: f64 = 1.15;

/// See [`JITTER_WARN`].
pub const JITTER_ALERT: f64 = 1.5;

/// The MIG profile in a device name, e.g. `1g.10gb`.
fn mig_profile(name: &str) -> Option<&str> {
    name.split(" MIG ").nth(1).map(str::trim)
}

/// A vGPU profile name: `GRID ...` or a board name ending in `-<GB><series letter>`.
fn vgpu_profile(name: &str) -> bool {
    if name.starts_with("GRID ") {
        return true;
    }
    let last = name.rsplit(['-', ' ']).next().unwrap_or("");
    // Split before the last character (not byte: a name may hold any Unicode).
    let cut = last.char_indices().last().map_or(0, |(i, _)| i);
    let (digits, letter) = last.split_at(cut);
    !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && matches!(letter, "C" | "Q" | "A" | "B")
}

/// Whether an environment variable shows a sharing layer. The visible-devices variables are set
/// in every GPU container; they only count when they name a MIG instance.
pub fn is_sharing_marker(key: &str, value: &str) -> bool {
    match key {
        "CUDA_VISIBLE_DEVICES" | "NVIDIA_VISIBLE_DEVICES" => value.contains("MIG-"),
        _ => true,
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Every verdict for a profile.
pub fn analyse(profile: &Profile) -> Vec<Verdict> {
    if profile.gpus.is_empty() {
        let why = profile
            .gpus_unavailable
            .clone()
            .unwrap_or_else(|| "no GPU listed".to_owned());
        let mut out = vec![
            Verdict::new(VerdictKind::NoGpu, Level::Info, None, Finding::NoGpu).with("reason", why),
        ];
        out.extend(crate::profile::bottleneck::bottleneck(profile));
        return out;
    }
    let mut out = Vec::new();
    for gpu in &profile.gpus {
        let samples = profile
            .sampling
            .as_ref()
            .and_then(|s| s.gpus.iter().find(|g| g.index == gpu.index));
        out.push(slice(profile, gpu));
        out.push(neighbours(profile, gpu, samples));
        out.extend(pcie(profile, gpu));
        out.extend(power(gpu, samples));
        out.extend(thermal(gpu, samples));
        out.extend(memory_errors(gpu));
        out.extend(benchmark(profile, gpu));
    }
    out.extend(crate::profile::bottleneck::bottleneck(profile));
    out
}

fn slice(profile: &Profile, gpu: &GpuFacts) -> Verdict {
    let index = Some(gpu.index);
    let spec = spec_for(&gpu.name);
    let markers = &profile.sharing_markers;
    let ratio = memory_ratio(gpu);
    let add_memory = |v: Verdict| match (gpu.memory_total_bytes, spec, ratio) {
        (Some(total), Some(s), Some(r)) => v
            .with("visible_mib", format!("{:.0}", mib(total)))
            .with("nominal_mib", s.nvml_total_mib)
            .with("ratio", format!("{r:.3}")),
        _ => v,
    };
    if let Some(p) = mig_profile(&gpu.name) {
        return add_memory(
            Verdict::new(VerdictKind::Slice, Level::Warn, index, Finding::MigSlice)
                .with("mig_profile", p),
        );
    }
    if gpu.is_mig_device == Some(true) {
        return add_memory(Verdict::new(
            VerdictKind::Slice,
            Level::Warn,
            index,
            Finding::MigSlice,
        ));
    }
    if gpu.virtualization_mode.as_deref() == Some("vgpu") || vgpu_profile(&gpu.name) {
        let v = Verdict::new(VerdictKind::Slice, Level::Warn, index, Finding::Vgpu)
            .with("name", &gpu.name);
        let v = match &gpu.virtualization_mode {
            Some(m) => v.with("virtualization_mode", m),
            None => v,
        };
        return add_memory(v);
    }
    let limiter: Vec<String> = markers
        .env
        .keys()
        .cloned()
        .chain(markers.preload.iter().cloned())
        .chain(markers.files.iter().cloned())
        .collect();
    let cuda_small = profile
        .benchmarks
        .iter()
        .find(|b| b.index == gpu.index)
        .and_then(|b| b.cuda_total_bytes)
        .zip(gpu.memory_total_bytes)
        .filter(|(cuda, nvml)| (*cuda as f64) < SLICE_RATIO * *nvml as f64);
    match ratio {
        Some(r) if r < SLICE_RATIO => {
            let v = add_memory(Verdict::new(
                VerdictKind::Slice,
                Level::Warn,
                index,
                Finding::MemoryCapped,
            ));
            if limiter.is_empty() {
                v
            } else {
                v.with("markers", limiter.join(", "))
            }
        }
        _ if cuda_small.is_some() => {
            let (cuda, nvml) = cuda_small.unwrap_or_default();
            add_memory(
                Verdict::new(
                    VerdictKind::Slice,
                    Level::Warn,
                    index,
                    Finding::CudaLevelLimit,
                )
                .with("cuda_total_mib", format!("{:.0}", mib(cuda)))
                .with("nvml_total_mib", format!("{:.0}", mib(nvml))),
            )
        }
        _ if !limiter.is_empty() => add_memory(
            Verdict::new(
                VerdictKind::Slice,
                Level::Warn,
                index,
                Finding::SharingLayer,
            )
            .with("markers", limiter.join(", ")),
        ),
        Some(r) if r > OVERSIZE_RATIO => add_memory(Verdict::new(
            VerdictKind::Slice,
            Level::Info,
            index,
            Finding::MoreMemoryThanNominal,
        )),
        Some(_) => add_memory(Verdict::new(
            VerdictKind::Slice,
            Level::Ok,
            index,
            Finding::WholeCard,
        )),
        None => Verdict::new(
            VerdictKind::Slice,
            Level::Info,
            index,
            Finding::UnknownModel,
        )
        .with("name", &gpu.name),
    }
}

fn neighbours(profile: &Profile, gpu: &GpuFacts, samples: Option<&GpuSamples>) -> Verdict {
    let index = Some(gpu.index);
    let own = profile.own_pid;
    let mut foreign: Vec<u32> = gpu
        .processes
        .iter()
        .map(|p| p.pid)
        .filter(|p| Some(*p) != own)
        .collect();
    if let Some(s) = samples {
        foreign.extend(s.foreign_pids.iter().copied().filter(|p| Some(*p) != own));
    }
    foreign.sort_unstable();
    foreign.dedup();
    let foreign_memory: u64 = gpu
        .processes
        .iter()
        .filter(|p| Some(p.pid) != own)
        .filter_map(|p| p.used_memory_bytes)
        .sum();
    let util = samples
        .and_then(|s| s.metrics.get("utilization_gpu_pct"))
        .and_then(|m| m.summary);
    let mem = samples
        .and_then(|s| s.metrics.get("memory_used_mib"))
        .and_then(|m| m.summary);
    let mut v = Verdict::new(
        VerdictKind::NoisyNeighbour,
        Level::Ok,
        index,
        Finding::Quiet,
    );
    if !foreign.is_empty() {
        v = Verdict::new(
            VerdictKind::NoisyNeighbour,
            Level::Warn,
            index,
            Finding::ForeignProcesses,
        )
        .with(
            "foreign_pids",
            foreign
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        );
        if foreign_memory > 0 {
            v = v.with("foreign_memory_mib", format!("{:.0}", mib(foreign_memory)));
        }
    }
    if let Some(u) = util
        && u.p95 >= BUSY_PCT
    {
        if v.level == Level::Ok {
            v = Verdict::new(
                VerdictKind::NoisyNeighbour,
                Level::Warn,
                index,
                Finding::BusyWhileIdle,
            );
        }
        v = v
            .with("utilization_p50_pct", format!("{:.0}", u.p50))
            .with("utilization_p95_pct", format!("{:.0}", u.p95));
    }
    if let Some(m) = mem {
        let moving = m.max - m.min > 256.0;
        if m.p50 > IDLE_MEMORY_MIB || moving {
            if v.level == Level::Ok {
                v = Verdict::new(
                    VerdictKind::NoisyNeighbour,
                    Level::Warn,
                    index,
                    Finding::MemoryInUse,
                );
            }
            v = v
                .with("memory_used_min_mib", format!("{:.0}", m.min))
                .with("memory_used_max_mib", format!("{:.0}", m.max));
        }
    }
    if v.level == Level::Ok {
        if let Some(u) = util {
            v = v.with("utilization_p95_pct", format!("{:.0}", u.p95));
        }
        if let Some(m) = mem {
            v = v.with("memory_used_max_mib", format!("{:.0}", m.max));
        }
        if util.is_none() && mem.is_none() && gpu.processes.is_empty() {
            v = Verdict::new(
                VerdictKind::NoisyNeighbour,
                Level::Info,
                index,
                Finding::NotSampled,
            );
        }
    }
    v
}

fn pcie(profile: &Profile, gpu: &GpuFacts) -> Option<Verdict> {
    let link = gpu.pcie?;
    let index = Some(gpu.index);
    let spec = spec_for(&gpu.name);
    let mut v = Verdict::new(
        VerdictKind::PcieDegraded,
        Level::Ok,
        index,
        Finding::FullLink,
    );
    if let (Some(max), Some(s)) = (link.gen_max, spec)
        && max < s.pcie_gen
    {
        v = Verdict::new(
            VerdictKind::PcieDegraded,
            Level::Warn,
            index,
            Finding::SlotBelowCard,
        )
        .with("gen_max", max)
        .with("card_gen", s.pcie_gen);
    }
    if let Some(w) = link.width_max
        && w < 16
    {
        if v.level == Level::Ok {
            v = Verdict::new(
                VerdictKind::PcieDegraded,
                Level::Warn,
                index,
                Finding::NarrowLink,
            );
        }
        v = v.with("width_max", w);
    }
    let bench = profile
        .benchmarks
        .iter()
        .find(|b| b.index == gpu.index)
        .and_then(|b| b.h2d_gbs);
    let generation = link.gen_max.or(spec.map(|s| s.pcie_gen));
    if let (Some(h2d), Some(expected)) = (bench, generation.and_then(expected_h2d_gbs)) {
        if h2d < 0.6 * expected {
            if v.level == Level::Ok {
                v = Verdict::new(
                    VerdictKind::PcieDegraded,
                    Level::Warn,
                    index,
                    Finding::SlowHostToDevice,
                );
            }
            v = v
                .with("h2d_gbs", format!("{h2d:.1}"))
                .with("expected_gbs", format!("{expected:.0}"));
        } else {
            v = v.with("h2d_gbs", format!("{h2d:.1}"));
        }
    }
    if let (Some(c), Some(m)) = (link.gen_current, link.gen_max) {
        v = v.with("gen_current", c).with("gen_max_seen", m);
    }
    if let (Some(c), Some(m)) = (link.width_current, link.width_max) {
        v = v.with("width_current", c).with("width_max_seen", m);
    }
    Some(v)
}

fn share_of(samples: Option<&GpuSamples>, reason: &str) -> Option<f64> {
    let s = samples?;
    let total = s
        .metrics
        .values()
        .map(|m| m.samples.len())
        .max()
        .unwrap_or(0);
    (total > 0)
        .then(|| f64::from(s.throttle_counts.get(reason).copied().unwrap_or(0)) / total as f64)
}

fn power(gpu: &GpuFacts, samples: Option<&GpuSamples>) -> Option<Verdict> {
    let index = Some(gpu.index);
    let p = gpu.power?;
    let mut v = Verdict::new(
        VerdictKind::PowerCapped,
        Level::Ok,
        index,
        Finding::DefaultLimit,
    );
    if let (Some(limit), Some(default)) = (p.limit_w, p.default_limit_w) {
        v = v
            .with("limit_w", format!("{limit:.0}"))
            .with("default_limit_w", format!("{default:.0}"));
        if limit < 0.9 * default {
            v.level = Level::Warn;
            v.finding = Finding::LimitBelowDefault.to_owned();
        }
    }
    if let Some(share) = share_of(samples, "sw_power_cap").filter(|s| *s > 0.2) {
        v = v.with("power_capped_share", format!("{:.0} %", share * 100.0));
        if v.level == Level::Ok {
            v.level = Level::Info;
            v.finding = Finding::CappingObserved.to_owned();
        }
    }
    Some(v)
}

fn thermal(gpu: &GpuFacts, samples: Option<&GpuSamples>) -> Option<Verdict> {
    let index = Some(gpu.index);
    let seen: Vec<&str> = ["hw_thermal_slowdown", "sw_thermal_slowdown", "hw_slowdown"]
        .into_iter()
        .filter(|r| {
            gpu.throttle_reasons.iter().any(|x| x == r)
                || share_of(samples, r).is_some_and(|s| s > 0.0)
        })
        .collect();
    let temp = samples
        .and_then(|s| s.metrics.get("temperature_c"))
        .and_then(|m| m.summary)
        .map(|s| s.max)
        .or(gpu.temperature_c.map(f64::from));
    if seen.is_empty() && temp.is_none() {
        return None;
    }
    let mut v = Verdict::new(
        VerdictKind::ThermalThrottling,
        Level::Ok,
        index,
        Finding::Cool,
    );
    if let Some(t) = temp {
        v = v.with("temperature_max_c", format!("{t:.0}"));
        if t >= 85.0 {
            v.level = Level::Warn;
            v.finding = Finding::Hot.to_owned();
        }
    }
    if !seen.is_empty() {
        v.level = Level::Alert;
        v.finding = Finding::ThermalSlowdown.to_owned();
        v = v.with("reasons", seen.join(", "));
    }
    Some(v)
}

fn memory_errors(gpu: &GpuFacts) -> Option<Verdict> {
    let ecc = gpu.ecc?;
    let index = Some(gpu.index);
    let uncorrected = ecc.uncorrected_volatile.unwrap_or(0);
    let retired = ecc.retired_pages.unwrap_or(0);
    let mut v = Verdict::new(VerdictKind::MemoryErrors, Level::Ok, index, Finding::Clean);
    if let Some(e) = ecc.enabled {
        v = v.with("ecc_enabled", e);
    }
    if retired > 0 {
        v = Verdict::new(
            VerdictKind::MemoryErrors,
            Level::Warn,
            index,
            Finding::RetiredPages,
        )
        .with("retired_pages", retired);
    }
    if uncorrected > 0 {
        v = Verdict::new(
            VerdictKind::MemoryErrors,
            Level::Alert,
            index,
            Finding::UncorrectedErrors,
        )
        .with("uncorrected_volatile", uncorrected)
        .with("retired_pages", retired);
    }
    Some(v)
}

fn benchmark(profile: &Profile, gpu: &GpuFacts) -> Vec<Verdict> {
    let index = Some(gpu.index);
    let Some(b) = profile.benchmarks.iter().find(|b| b.index == gpu.index) else {
        return vec![];
    };
    let mut out = Vec::new();
    if let Some(s) = b.gemm_ms.as_ref().and_then(|g| g.summary)
        && let Some(ratio) = s.tail_ratio()
    {
        let level = if ratio > JITTER_ALERT {
            Level::Alert
        } else if ratio > JITTER_WARN {
            Level::Warn
        } else {
            Level::Ok
        };
        let finding = if level == Level::Ok {
            Finding::Steady
        } else {
            Finding::StepTimeSpread
        };
        out.push(
            Verdict::new(VerdictKind::Jitter, level, index, finding)
                .with("p50_ms", format!("{:.3}", s.p50))
                .with("p99_ms", format!("{:.3}", s.p99))
                .with("p99_over_p50", format!("{ratio:.3}"))
                .with("steps", s.n),
        );
    }
    if let (Some(achieved), Some(spec)) = (b.achieved_tflops, spec_for(&gpu.name)) {
        let share = achieved / spec.fp16_tflops;
        let v = Verdict::new(
            VerdictKind::LowThroughput,
            if share < 0.5 { Level::Warn } else { Level::Ok },
            index,
            if share < 0.5 {
                Finding::BelowHalfOfNominal
            } else {
                Finding::NearNominal
            },
        )
        .with("achieved_tflops", format!("{achieved:.1}"))
        .with("nominal_tflops", format!("{:.0}", spec.fp16_tflops))
        .with("share", format!("{:.2}", share));
        out.push(v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vgpu_name_ending_in_any_character_is_read_without_panicking() {
        // Found by the profile fuzz target: the last byte was inside a multi-byte character.
        assert!(!vgpu_profile("NVIDIA RTX 4090M-M\u{fffd}"));
        assert!(!vgpu_profile("板卡-８Ｃ"));
        assert!(vgpu_profile("NVIDIA A100-40C"));
    }

    #[test]
    fn reads_profile_names() {
        assert_eq!(
            mig_profile("NVIDIA A100-SXM4-80GB MIG 1g.10gb"),
            Some("1g.10gb")
        );
        assert_eq!(
            spec_for("NVIDIA A100-SXM4-80GB MIG 1g.10gb").unwrap().short,
            "A100-80GB"
        );
        assert!(vgpu_profile("GRID V100D-8C"));
        assert!(vgpu_profile("NVIDIA A100-4C"));
        assert!(!vgpu_profile("NVIDIA A100-SXM4-80GB"));
        assert!(!vgpu_profile("NVIDIA H200"));
        assert!(!vgpu_profile("Tesla T4"));
    }
}
