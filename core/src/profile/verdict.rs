//! Verdicts: what the probe's figures mean (a slice or a whole card, noisy neighbours, a degraded
//! link, ...), each with a level and the evidence behind it. The types live here, below the code
//! that computes them (`verdicts`, `bottleneck`), because a profile stores its verdicts.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a verdict is about.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// No GPU could be read.
    NoGpu,
    /// Whether the GPU is a slice of a card (MIG, vGPU, memory cap) or a whole card.
    Slice,
    /// Other tenants' load on the same GPU.
    NoisyNeighbour,
    /// The PCIe link runs below what the card supports.
    PcieDegraded,
    /// The enforced power limit is below the board default, or power capping throttles clocks.
    PowerCapped,
    /// Thermal slowdown or a hot GPU.
    ThermalThrottling,
    /// ECC errors or retired pages.
    MemoryErrors,
    /// Step-time spread of the GEMM benchmark.
    Jitter,
    /// Achieved throughput far below the card's nominal.
    LowThroughput,
    /// What holds the job back: the GPU itself, or its input (CPU quota, disk, network); see
    /// `crate::bottleneck`.
    Bottleneck,
}

identifiers!(VerdictKind {
    NoGpu => "no_gpu",
    Slice => "slice",
    NoisyNeighbour => "noisy_neighbour",
    PcieDegraded => "pcie_degraded",
    PowerCapped => "power_capped",
    ThermalThrottling => "thermal_throttling",
    MemoryErrors => "memory_errors",
    Jitter => "jitter",
    LowThroughput => "low_throughput",
    Bottleneck => "bottleneck",
});

/// How serious a verdict is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Checked and fine.
    Ok,
    /// Worth knowing.
    Info,
    /// Likely to cost time or money.
    Warn,
    /// Likely to break the job or its results.
    Alert,
}

identifiers!(Level {
    Ok => "ok",
    Info => "info",
    Warn => "warn",
    Alert => "alert",
});

/// A verdict's finding: a stable code the site and the CLI word in their language.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Finding {
    /// No NVIDIA GPU or driver answered.
    NoGpu,
    /// A whole card: memory as on its data sheet.
    WholeCard,
    /// Memory capped below the card's (a container or vGPU limit).
    MemoryCapped,
    /// A MIG slice.
    MigSlice,
    /// An NVIDIA vGPU.
    Vgpu,
    /// A GPU-sharing layer is present (HAMi, cGPU, MPS markers).
    SharingLayer,
    /// CUDA sees less memory than NVML: a limit at the CUDA level.
    CudaLevelLimit,
    /// A model the spec table does not know.
    UnknownModel,
    /// More memory than the data sheet: not the card its name says.
    MoreMemoryThanNominal,
    /// No other tenant seen.
    Quiet,
    /// Other processes on the GPU.
    ForeignProcesses,
    /// Busy before any load of ours.
    BusyWhileIdle,
    /// Memory held by someone else.
    MemoryInUse,
    /// No sampling window to judge from.
    NotSampled,
    /// The PCIe link runs at what the card can do.
    FullLink,
    /// Fewer PCIe lanes than the card's.
    NarrowLink,
    /// A slot of an older PCIe generation than the card.
    SlotBelowCard,
    /// Host-to-device copies slower than the link should carry.
    SlowHostToDevice,
    /// The power limit is the board's default.
    DefaultLimit,
    /// The power limit is below the board's default.
    LimitBelowDefault,
    /// Power capping throttled the clocks while sampling.
    CappingObserved,
    /// Temperature normal.
    Cool,
    /// Hot.
    Hot,
    /// Clocks slowed down by heat.
    ThermalSlowdown,
    /// No memory errors.
    Clean,
    /// Uncorrected memory errors.
    UncorrectedErrors,
    /// Retired memory pages.
    RetiredPages,
    /// Step times steady.
    Steady,
    /// Step times spread out.
    StepTimeSpread,
    /// Throughput near the card's nominal.
    NearNominal,
    /// Throughput below half the card's nominal.
    BelowHalfOfNominal,
    /// Disk, network and CPU keep up.
    InputsAdequate,
    /// The GPU sets the pace.
    GpuBound,
    /// The CPU quota holds the job back.
    CpuBound,
    /// The disk holds the job back.
    DiskBound,
    /// The network holds the job back.
    NetworkBound,
    /// The GPU waits for its input.
    GpuUnderused,
    /// The GPU is busy most of the run, without being saturated.
    GpuMostlyBusy,
    /// Few CPU cores per GPU.
    FewCpuCores,
    /// A slow disk.
    SlowDisk,
    /// A slow network.
    SlowNetwork,
    /// Not enough evidence to say.
    Undetermined,
    /// A finding this build does not know (a newer probe wrote it).
    #[serde(other)]
    Unrecognised,
}

identifiers!(Finding {
    NoGpu => "no_gpu",
    WholeCard => "whole_card",
    MemoryCapped => "memory_capped",
    MigSlice => "mig_slice",
    Vgpu => "vgpu",
    SharingLayer => "sharing_layer",
    CudaLevelLimit => "cuda_level_limit",
    UnknownModel => "unknown_model",
    MoreMemoryThanNominal => "more_memory_than_nominal",
    Quiet => "quiet",
    ForeignProcesses => "foreign_processes",
    BusyWhileIdle => "busy_while_idle",
    MemoryInUse => "memory_in_use",
    NotSampled => "not_sampled",
    FullLink => "full_link",
    NarrowLink => "narrow_link",
    SlotBelowCard => "slot_below_card",
    SlowHostToDevice => "slow_host_to_device",
    DefaultLimit => "default_limit",
    LimitBelowDefault => "limit_below_default",
    CappingObserved => "capping_observed",
    Cool => "cool",
    Hot => "hot",
    ThermalSlowdown => "thermal_slowdown",
    Clean => "clean",
    UncorrectedErrors => "uncorrected_errors",
    RetiredPages => "retired_pages",
    Steady => "steady",
    StepTimeSpread => "step_time_spread",
    NearNominal => "near_nominal",
    BelowHalfOfNominal => "below_half_of_nominal",
    InputsAdequate => "inputs_adequate",
    GpuBound => "gpu_bound",
    CpuBound => "cpu_bound",
    DiskBound => "disk_bound",
    NetworkBound => "network_bound",
    GpuUnderused => "gpu_underused",
    GpuMostlyBusy => "gpu_mostly_busy",
    FewCpuCores => "few_cpu_cores",
    SlowDisk => "slow_disk",
    SlowNetwork => "slow_network",
    Undetermined => "undetermined",
    Unrecognised => "unrecognised",
});

/// One fact that led to a verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// What the fact is, e.g. `visible_mib`, `foreign_pids`.
    pub key: String,
    /// Its value as text.
    pub value: String,
}

/// A conclusion with the evidence behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    /// What it is about.
    pub kind: VerdictKind,
    /// How serious.
    pub level: Level,
    /// The GPU it concerns, when it concerns one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<u32>,
    /// What was found, e.g. `mig_slice`, `whole_card`, `foreign_processes`.
    pub finding: Finding,
    /// The facts behind it.
    pub evidence: Vec<Evidence>,
}

impl Verdict {
    pub(crate) fn new(
        kind: VerdictKind,
        level: Level,
        gpu: Option<u32>,
        finding: Finding,
    ) -> Verdict {
        Verdict {
            kind,
            level,
            gpu,
            finding,
            evidence: vec![],
        }
    }

    pub(crate) fn with(mut self, key: &str, value: impl ToString) -> Verdict {
        self.evidence.push(Evidence {
            key: key.to_owned(),
            value: value.to_string(),
        });
        self
    }
}
