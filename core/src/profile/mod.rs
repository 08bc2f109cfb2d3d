//! The probe profile — what `gpufare probe` measured on one machine — and what it means.
//!
//! The document is one file per section ([`document`], [`host`], [`gpu`], [`sampling`],
//! [`benchmark`], [`disk`], [`network`], [`run`], [`verdict`]); above them, the headline
//! [`figures`] for comparing machines, the [`verdicts`] and the [`bottleneck`] computed from the
//! facts, and the measured factors ([`evidence`]) that replace the plan's assumptions.

pub mod benchmark;
pub mod bottleneck;
pub mod disk;
pub mod document;
pub mod evidence;
pub mod figures;
pub mod gpu;
pub mod host;
pub mod network;
pub mod run;
pub mod sampling;
pub mod verdict;
pub mod verdicts;

pub use benchmark::GpuBenchmark;
pub use disk::{DiskReport, DiskTest};
pub use document::{
    PROFILE_FORMAT_VERSION, Profile, ProfileError, TOOL_NAME, ToolInfo, parse_profile,
    profile_to_json,
};
pub use gpu::{
    Clocks, DriverFacts, Ecc, GpuFacts, GpuProcess, MigDevice, PcieLink, Power, SharingMarkers,
};
pub use host::{HostFacts, HostLimits, LoadAverage};
pub use network::{Direction, HttpResult, Iperf3Result, NetworkReport, RttResult};
pub use run::{RunRecord, RunReport};
pub use sampling::{GpuSamples, SamplingWindow, Series};
pub use verdict::{Evidence, Level, Verdict, VerdictKind};
pub use verdicts::analyse;
