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
    /// A stable code for the finding, e.g. `mig_slice`, `whole_card`, `foreign_processes`.
    pub finding: String,
    /// The facts behind it.
    pub evidence: Vec<Evidence>,
}

impl Verdict {
    pub(crate) fn new(kind: VerdictKind, level: Level, gpu: Option<u32>, finding: &str) -> Verdict {
        Verdict {
            kind,
            level,
            gpu,
            finding: finding.to_owned(),
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
