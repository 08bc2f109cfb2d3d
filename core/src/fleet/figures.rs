//! What a fleet report compares: each node's group (GPU model and kind of capacity) and the
//! measured figures its profile holds, read with the same rules as one machine's figures
//! ([`crate::profile::figures`]) and verdicts ([`crate::profile::verdicts`]).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::gpu::spec_for;
use crate::profile::document::Profile;
use crate::profile::figures::machine_figures;
use crate::profile::verdict::{Evidence, Finding, Verdict, VerdictKind};
use crate::profile::verdicts::analyse;

/// A measured figure a fleet report compares. Units are in the identifiers.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum Figure {
    /// Achieved FP16 GEMM TFLOPS at the median step time (`--bench`), per GPU.
    #[serde(rename = "gemm_tflops")]
    GemmTflops,
    /// GEMM step time P99 / P50 (`--bench`), per GPU: the jitter measure.
    #[serde(rename = "step_p99_p50")]
    StepP99P50,
    /// Pinned host-to-device copy bandwidth, GB/s (`--bench`), per GPU.
    #[serde(rename = "h2d_gb_s")]
    H2dGbS,
    /// The best PCIe generation the GPU and slot allow together (NVML's maximum), per GPU.
    #[serde(rename = "pcie_gen")]
    PcieGen,
    /// The PCIe lanes the link runs with now, per GPU.
    #[serde(rename = "pcie_width_lanes")]
    PcieWidthLanes,
    /// Memory NVML shows, GiB, per GPU (a slice or cap shows less).
    #[serde(rename = "visible_vram_gib")]
    VisibleVramGib,
    /// P95 of GPU utilisation over the sampling window before any load of ours, percent, per GPU.
    #[serde(rename = "util_before_load_p95_pct")]
    UtilBeforeLoadP95Pct,
    /// Sequential read, MB/s (`--disk-dir`), per node.
    #[serde(rename = "disk_read_mb_s")]
    DiskReadMbS,
    /// Sequential write, MB/s (`--disk-dir`), per node.
    #[serde(rename = "disk_write_mb_s")]
    DiskWriteMbS,
    /// 4 KiB random read, operations per second (`--disk-dir`), per node.
    #[serde(rename = "disk_rand_read_iops")]
    DiskRandReadIops,
    /// The best download rate (iperf3 reverse or HTTP), Mbit/s, per node.
    #[serde(rename = "download_mbit_s")]
    DownloadMbitS,
}

identifiers!(Figure {
    GemmTflops => "gemm_tflops",
    StepP99P50 => "step_p99_p50",
    H2dGbS => "h2d_gb_s",
    PcieGen => "pcie_gen",
    PcieWidthLanes => "pcie_width_lanes",
    VisibleVramGib => "visible_vram_gib",
    UtilBeforeLoadP95Pct => "util_before_load_p95_pct",
    DiskReadMbS => "disk_read_mb_s",
    DiskWriteMbS => "disk_write_mb_s",
    DiskRandReadIops => "disk_rand_read_iops",
    DownloadMbitS => "download_mbit_s",
});

impl Figure {
    /// Whether the figure is measured per GPU (else per node).
    pub fn per_gpu(self) -> bool {
        !matches!(
            self,
            Figure::DiskReadMbS
                | Figure::DiskWriteMbS
                | Figure::DiskRandReadIops
                | Figure::DownloadMbitS
        )
    }

    /// The smallest half-width of the outlier band, in the figure's own unit, whatever the
    /// spread: where the fleet's figure sits at or near zero, or moves by whole steps, a relative
    /// band says nothing. Utilisation before load: 5 points (the busy threshold of the
    /// neighbour verdict, [`crate::profile::verdicts::BUSY_PCT`]); the step-time tail: 0.05 (a
    /// third of the way to the jitter warning at 1.15); a PCIe generation or lane count: 0.5
    /// (any whole step is a different link). Every other figure: 0, the relative floor rules.
    pub fn default_min_band(self) -> f64 {
        match self {
            Figure::UtilBeforeLoadP95Pct => crate::profile::verdicts::BUSY_PCT,
            Figure::StepP99P50 => 0.05,
            Figure::PcieGen | Figure::PcieWidthLanes => 0.5,
            _ => 0.0,
        }
    }

    /// The figure's unit, for tables.
    pub fn unit(self) -> &'static str {
        match self {
            Figure::GemmTflops => "TFLOPS",
            Figure::StepP99P50 => "ratio",
            Figure::H2dGbS => "GB/s",
            Figure::PcieGen => "gen",
            Figure::PcieWidthLanes => "lanes",
            Figure::VisibleVramGib => "GiB",
            Figure::UtilBeforeLoadP95Pct => "%",
            Figure::DiskReadMbS | Figure::DiskWriteMbS => "MB/s",
            Figure::DiskRandReadIops => "IOPS",
            Figure::DownloadMbitS => "Mbit/s",
        }
    }
}

/// The kind of capacity a GPU is, from its slice verdict.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Capacity {
    /// A whole card (the slice verdict found none of the signs of a slice).
    WholeCard,
    /// A MIG instance; the group also holds its profile, e.g. `1g.10gb`.
    Mig,
    /// An NVIDIA vGPU guest.
    Vgpu,
    /// Memory-capped or shared by a sharing layer (HAMi, cGPU, MPS, a CUDA-level limit).
    Slice,
    /// A node whose profile lists no GPU.
    NoGpu,
}

identifiers!(Capacity {
    WholeCard => "whole_card",
    Mig => "mig",
    Vgpu => "vgpu",
    Slice => "slice",
    NoGpu => "no_gpu",
});

/// What a group holds in common: the GPU model and the kind of capacity.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupKey {
    /// The spec table's short name (`H100-80GB`), or the name NVML gave when the table does not
    /// know the model; `none` for nodes without a GPU.
    pub gpu: String,
    /// The kind of capacity.
    pub capacity: Capacity,
    /// The MIG profile, e.g. `1g.10gb`, for MIG capacity.
    pub mig_profile: Option<String>,
}

impl GroupKey {
    /// The group's identifier: `A100-80GB/whole_card`, `A100-80GB/mig_1g.10gb`, `none/no_gpu`.
    pub fn id(&self) -> String {
        match &self.mig_profile {
            Some(p) => format!("{}/{}_{p}", self.gpu, self.capacity.id()),
            None => format!("{}/{}", self.gpu, self.capacity.id()),
        }
    }
}

/// Longest GPU model or MIG profile text kept in a group key (labels stay bounded).
const MAX_NAME_CHARS: usize = 64;

fn bounded(text: &str) -> String {
    text.trim().chars().take(MAX_NAME_CHARS).collect()
}

/// One measured value of one member.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Value {
    /// The figure.
    pub figure: Figure,
    /// The GPU index for a per-GPU figure.
    pub gpu: Option<u32>,
    /// The finite value, in the figure's unit.
    pub value: f64,
}

/// A node's part in one group: usually the whole node (all its GPUs alike).
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// Index of the node in the fleet.
    pub node: usize,
    /// The group.
    pub key: GroupKey,
    /// The GPUs of the node in this group (NVML indices).
    pub gpus: Vec<u32>,
    /// The measured values: per-GPU figures of these GPUs, and the node's own figures.
    pub values: Vec<Value>,
    /// The verdicts about these GPUs, and the node's verdicts about no GPU in particular.
    pub verdicts: Vec<Verdict>,
}

/// The verdicts of a profile: the stored ones, or computed when the profile holds none (as
/// [`crate::profile::evidence::measured_factors`] does).
pub fn verdicts_of(profile: &Profile) -> Vec<Verdict> {
    if profile.verdicts.is_empty() {
        analyse(profile)
    } else {
        profile.verdicts.clone()
    }
}

fn evidence<'a>(evidence: &'a [Evidence], key: &str) -> Option<&'a str> {
    evidence
        .iter()
        .find(|e| e.key == key)
        .map(|e| e.value.as_str())
}

fn capacity_of(name: &str, verdicts: &[Verdict], index: u32) -> (Capacity, Option<String>) {
    let slice = verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::Slice && v.gpu == Some(index));
    match slice.map(|v| (v.finding, v)) {
        Some((Finding::MigSlice, v)) => {
            let profile = evidence(&v.evidence, "mig_profile")
                .or_else(|| name.split(" MIG ").nth(1))
                .map(bounded)
                .filter(|p| !p.is_empty());
            (Capacity::Mig, profile)
        }
        Some((Finding::Vgpu, _)) => (Capacity::Vgpu, None),
        Some((Finding::MemoryCapped | Finding::CudaLevelLimit | Finding::SharingLayer, _)) => {
            (Capacity::Slice, None)
        }
        _ => (Capacity::WholeCard, None),
    }
}

fn model_of(name: &str) -> String {
    match spec_for(name) {
        Some(s) => s.short.clone(),
        None => bounded(name.split(" MIG ").next().unwrap_or(name)),
    }
}

fn push(values: &mut Vec<Value>, figure: Figure, gpu: Option<u32>, value: Option<f64>) {
    if let Some(v) = value.filter(|v| v.is_finite()) {
        values.push(Value {
            figure,
            gpu,
            value: v,
        });
    }
}

/// The members of a node: one per group its GPUs fall in (one for a node whose GPUs are alike),
/// or one `none/no_gpu` member for a node without GPUs.
pub fn members(node: usize, profile: &Profile) -> Vec<Member> {
    let verdicts = verdicts_of(profile);
    let figures = machine_figures(profile);
    let mut node_values = Vec::new();
    if let Some(d) = &figures.disk {
        push(&mut node_values, Figure::DiskReadMbS, None, d.seq_read_mb_s);
        push(
            &mut node_values,
            Figure::DiskWriteMbS,
            None,
            d.seq_write_mb_s,
        );
        push(
            &mut node_values,
            Figure::DiskRandReadIops,
            None,
            d.rand_read_iops,
        );
    }
    if let Some(n) = &figures.network {
        push(
            &mut node_values,
            Figure::DownloadMbitS,
            None,
            n.best_download_mbit_s(),
        );
    }
    let node_verdicts = || verdicts.iter().filter(|v| v.gpu.is_none()).cloned();
    let mut groups: BTreeMap<GroupKey, Member> = BTreeMap::new();
    for (facts, fig) in profile.gpus.iter().zip(&figures.gpus) {
        let (capacity, mig_profile) = capacity_of(&facts.name, &verdicts, facts.index);
        let key = GroupKey {
            gpu: model_of(&facts.name),
            capacity,
            mig_profile,
        };
        let member = groups.entry(key.clone()).or_insert_with(|| Member {
            node,
            key,
            gpus: vec![],
            values: node_values.clone(),
            verdicts: node_verdicts().collect(),
        });
        let g = Some(facts.index);
        member.gpus.push(facts.index);
        let bench = profile.benchmarks.iter().find(|b| b.index == facts.index);
        let values = &mut member.values;
        push(
            values,
            Figure::GemmTflops,
            g,
            bench.and_then(|b| b.achieved_tflops),
        );
        push(
            values,
            Figure::StepP99P50,
            g,
            bench
                .and_then(|b| b.gemm_ms.as_ref())
                .and_then(|s| s.summary)
                .and_then(|s| s.tail_ratio()),
        );
        push(values, Figure::H2dGbS, g, bench.and_then(|b| b.h2d_gbs));
        push(
            values,
            Figure::PcieGen,
            g,
            fig.pcie_max
                .or(fig.pcie_current)
                .map(|(gen_, _)| f64::from(gen_)),
        );
        push(
            values,
            Figure::PcieWidthLanes,
            g,
            fig.pcie_current.map(|(_, w)| f64::from(w)),
        );
        push(values, Figure::VisibleVramGib, g, fig.visible_gib);
        push(
            values,
            Figure::UtilBeforeLoadP95Pct,
            g,
            fig.utilisation_pct.map(|u| u.p95),
        );
        member.verdicts.extend(
            verdicts
                .iter()
                .filter(|v| v.gpu == Some(facts.index))
                .cloned(),
        );
    }
    if groups.is_empty() {
        return vec![Member {
            node,
            key: GroupKey {
                gpu: "none".to_owned(),
                capacity: Capacity::NoGpu,
                mig_profile: None,
            },
            gpus: vec![],
            values: node_values,
            verdicts: node_verdicts().collect(),
        }];
    }
    groups.into_values().collect()
}
