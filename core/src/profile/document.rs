//! The probe profile: what `gpufare probe` measured on one machine, as a versioned JSON document.
//!
//! The probe (native) writes it and the site (WebAssembly) reads it, both through the types here.
//! Contract: `format_version` is the first field; readers accept every version up to
//! [`PROFILE_FORMAT_VERSION`], ignore fields they do not know, and refuse newer versions with a
//! message that says to update gpufare. Times are RFC 3339 text supplied by the writer, since this
//! crate reads no clock.
//!
//! Version history: 1 — host facts and a GPU list (name, UUID, memory); 2 — full NVML facts per
//! GPU (MIG, virtualisation, PCIe, clocks, power, throttling, ECC, processes), environment
//! markers of GPU-sharing layers, a sampling window with raw samples and their summaries, the
//! optional micro-benchmark, and the verdicts computed by `analysis`; still 2, as optional sections
//! older readers ignore — `host_limits` (cgroup CPU quota and memory limit, cpuset, load average,
//! container and VM detection), `disk` (O_DIRECT sequential and random figures), `network`
//! (iperf3, HTTP download, TCP connect RTT) and `runs` (the user's benchmark under `gpufare run`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::numbers::problem::{FieldError, JsonProblem, Problem};

use crate::profile::benchmark::GpuBenchmark;
use crate::profile::disk::DiskReport;
use crate::profile::gpu::{DriverFacts, GpuFacts, SharingMarkers};
use crate::profile::host::{HostFacts, HostLimits};
use crate::profile::network::NetworkReport;
use crate::profile::run::RunReport;
use crate::profile::sampling::SamplingWindow;

/// The profile format this build writes and the newest it reads.
pub const PROFILE_FORMAT_VERSION: u32 = 2;

/// The tool name written into every profile.
pub const TOOL_NAME: &str = "gpufare";

/// One machine's profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Profile {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// What wrote the profile.
    pub tool: ToolInfo,
    /// When the probe ran, RFC 3339 in UTC (e.g. `2026-12-02T09:30:00Z`).
    pub created_at: String,
    /// Facts about the host: CPU, memory, operating system.
    pub host: HostFacts,
    /// NVIDIA driver facts, when a driver answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<DriverFacts>,
    /// One entry per GPU the driver shows; empty when there is no driver or no GPU.
    #[serde(default)]
    pub gpus: Vec<GpuFacts>,
    /// Why `gpus` is empty, when the probe could not read GPUs (e.g. no NVIDIA driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus_unavailable: Option<String>,
    /// The probe's own process id (NVML lists host PIDs; see `analysis` for how they are used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_pid: Option<u32>,
    /// Markers of GPU-sharing layers found in the environment and preload files.
    #[serde(default, skip_serializing_if = "SharingMarkers::is_empty")]
    pub sharing_markers: SharingMarkers,
    /// The sampling window: raw samples per GPU and metric, with their summaries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingWindow>,
    /// The GPU micro-benchmark, when it ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub benchmarks: Vec<GpuBenchmark>,
    /// Limits of the container or VM: cgroup CPU quota and memory limit, cpuset, load, and what
    /// kind of machine this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_limits: Option<HostLimits>,
    /// The disk benchmark (`gpufare probe --disk-dir`), when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk: Option<DiskReport>,
    /// Network measurements (`--iperf3`, `--http`, `--rtt`), when any ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkReport>,
    /// The user's own benchmark run by `gpufare run`, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<RunReport>,
    /// Verdicts computed from the facts above by `gpufare_core::analysis` when the profile was
    /// written; readers may recompute them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<crate::profile::verdict::Verdict>,
    /// Warnings the probe printed while measuring, kept with the evidence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The program that wrote a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolInfo {
    /// Always `gpufare` for profiles this project writes.
    pub name: String,
    /// The writer's version, e.g. `0.1.0`.
    pub version: String,
}

/// Why a document could not be read as a profile.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ProfileError {
    /// The text is not JSON at all.
    #[error("not valid JSON (line {}, column {}): {}", .0.line, .0.column, .0.detail)]
    NotJson(JsonProblem),
    /// Valid JSON, but not a gpufare profile (no numeric `format_version`, or another tool's).
    #[error("not a gpufare profile: {0}")]
    Foreign(Foreign),
    /// Written by a newer gpufare than this one.
    #[error(
        "profile format version {found} is newer than this gpufare supports (up to {max}); update gpufare"
    )]
    UnsupportedFormat {
        /// The version in the document.
        found: u64,
        /// The newest version this build reads.
        max: u32,
    },
    /// A gpufare profile of a supported version with a missing or mistyped field.
    #[error("invalid profile (line {}, column {}): {}", .0.line, .0.column, .0.detail)]
    Invalid(JsonProblem),
    /// A field that no real machine could report (a GPU with no memory, a 5 TiB GPU).
    #[error("invalid profile: field {}: {}", .0.field, .0.problem)]
    OutOfRange(FieldError),
}

impl ProfileError {
    /// A stable identifier for the reason, used by the site to pick a translated message.
    pub fn code(&self) -> &'static str {
        match self {
            ProfileError::NotJson(_) => "not_json",
            ProfileError::Foreign(_) => "foreign",
            ProfileError::UnsupportedFormat { .. } => "newer_version",
            ProfileError::Invalid(_) => "invalid",
            ProfileError::OutOfRange(_) => "out_of_range",
        }
    }
}

/// Why a JSON document is not a gpufare profile.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Foreign {
    /// An array, a string or a number at the top.
    #[error("the document is not a JSON object")]
    NotAnObject,
    /// No `format_version` field.
    #[error("it has no format_version field")]
    NoFormatVersion,
    /// A `format_version` that is not a whole number.
    #[error("format_version is {value}, not a whole number")]
    VersionNotWhole {
        /// The value found.
        value: String,
    },
    /// Written by another tool.
    #[error("it was written by {name:?}")]
    OtherTool {
        /// The tool's name.
        name: String,
    },
    /// `format_version` 0.
    #[error("format_version 0 does not exist")]
    VersionZero,
}

/// Reads a profile from JSON text, checking the format version before anything else.
pub fn parse_profile(text: &str) -> Result<Profile, ProfileError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ProfileError::NotJson(e.into()))?;
    let object = value
        .as_object()
        .ok_or(ProfileError::Foreign(Foreign::NotAnObject))?;
    let version = match object.get("format_version") {
        None => return Err(ProfileError::Foreign(Foreign::NoFormatVersion)),
        Some(v) => v.as_u64().ok_or_else(|| {
            ProfileError::Foreign(Foreign::VersionNotWhole {
                value: v.to_string(),
            })
        })?,
    };
    if let Some(name) = object
        .get("tool")
        .and_then(|t| t.get("name"))
        .and_then(|n| n.as_str())
        && name != TOOL_NAME
    {
        return Err(ProfileError::Foreign(Foreign::OtherTool {
            name: name.to_owned(),
        }));
    }
    if version == 0 {
        return Err(ProfileError::Foreign(Foreign::VersionZero));
    }
    if version > u64::from(PROFILE_FORMAT_VERSION) {
        return Err(ProfileError::UnsupportedFormat {
            found: version,
            max: PROFILE_FORMAT_VERSION,
        });
    }
    let profile: Profile =
        serde_json::from_str(text).map_err(|e| ProfileError::Invalid(e.into()))?;
    profile.validate().map_err(ProfileError::OutOfRange)?;
    Ok(profile)
}

/// The most memory a GPU (or a slice of one) may report: 4 TiB, several times today's largest.
pub const MAX_GPU_MEMORY_BYTES: u64 = 4 << 40;

impl Profile {
    /// Checks the figures the model uses are ones a real machine could report; the error names
    /// the field by its path.
    pub fn validate(&self) -> Result<(), FieldError> {
        let memory = |path: String, bytes: Option<u64>| match bytes {
            Some(b) if b == 0 || b > MAX_GPU_MEMORY_BYTES => Err(FieldError::new(
                &path,
                Problem::OutOfRange {
                    min: 1.0,
                    max: MAX_GPU_MEMORY_BYTES as f64,
                },
            )),
            _ => Ok(()),
        };
        for (i, g) in self.gpus.iter().enumerate() {
            memory(
                format!("gpus[{i}].memory_total_bytes"),
                g.memory_total_bytes,
            )?;
            for (j, m) in g.mig_devices.iter().enumerate() {
                memory(
                    format!("gpus[{i}].mig_devices[{j}].memory_total_bytes"),
                    m.memory_total_bytes,
                )?;
            }
        }
        if self.host.logical_cores == 0 {
            return Err(FieldError::new(
                "host.logical_cores",
                Problem::OutOfRange {
                    min: 1.0,
                    max: f64::from(u32::MAX),
                },
            ));
        }
        Ok(())
    }
}

/// Writes a profile as pretty JSON; `format_version` comes first because it is declared first.
pub fn profile_to_json(profile: &Profile) -> String {
    // Serialising these plain types cannot fail: no maps with non-string keys, no foreign types.
    serde_json::to_string_pretty(profile).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_version_1_profiles() {
        let v1 = r#"{"format_version":1,"tool":{"name":"gpufare","version":"0.1.0"},"created_at":"2026-12-02T09:30:00Z",
            "host":{"cpu_model":"x","logical_cores":2,"total_ram_bytes":1,"os":"o","kernel":"k"},"gpus":[{"index":0,"name":"NVIDIA A10"}]}"#;
        let p = parse_profile(v1).unwrap();
        assert_eq!(
            (
                p.format_version,
                p.gpus[0].name.as_str(),
                p.sampling.is_none()
            ),
            (1, "NVIDIA A10", true)
        );
    }

    fn sample() -> Profile {
        Profile {
            format_version: PROFILE_FORMAT_VERSION,
            tool: ToolInfo {
                name: TOOL_NAME.to_owned(),
                version: "0.1.0".to_owned(),
            },
            created_at: "2026-12-02T09:30:00Z".to_owned(),
            host: HostFacts {
                hostname: Some("box".to_owned()),
                cpu_model: "AMD EPYC 7B13".to_owned(),
                logical_cores: 2,
                total_ram_bytes: 25_769_803_776,
                os: "Debian GNU/Linux 12".to_owned(),
                kernel: "6.1.0".to_owned(),
                arch: "x86_64".to_owned(),
            },
            driver: None,
            gpus: vec![],
            gpus_unavailable: Some("no NVIDIA driver".to_owned()),
            own_pid: None,
            sharing_markers: SharingMarkers::default(),
            sampling: None,
            benchmarks: vec![],
            host_limits: None,
            disk: None,
            network: None,
            runs: None,
            verdicts: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn round_trips_with_format_version_first() {
        let json = profile_to_json(&sample());
        assert!(json.starts_with("{\n  \"format_version\": 2,"), "{json}");
        assert_eq!(parse_profile(&json).unwrap(), sample());
        assert_eq!(sample().host.total_ram_gib().to_string(), "24.0");
    }

    #[test]
    fn ignores_unknown_fields() {
        let mut v: serde_json::Value = serde_json::from_str(&profile_to_json(&sample())).unwrap();
        v["from_the_future"] = serde_json::json!({"x": 1});
        v["host"]["numa_nodes"] = serde_json::json!(2);
        assert_eq!(parse_profile(&v.to_string()).unwrap(), sample());
    }

    #[test]
    fn explains_each_refusal() {
        let cases = [
            ("{\"format_version\": 1,", "not_json"),
            ("[1, 2]", "foreign"),
            ("{\"name\": \"x\"}", "foreign"),
            ("{\"format_version\": \"1\"}", "foreign"),
            ("{\"format_version\": 0}", "foreign"),
            (
                "{\"format_version\": 1, \"tool\": {\"name\": \"nvitop\", \"version\": \"1\"}}",
                "foreign",
            ),
            ("{\"format_version\": 3}", "newer_version"),
            (
                "{\"format_version\": 1, \"tool\": {\"name\": \"gpufare\", \"version\": \"0.1.0\"}}",
                "invalid",
            ),
        ];
        for (text, code) in cases {
            assert_eq!(parse_profile(text).unwrap_err().code(), code, "{text}");
        }
        let newer = parse_profile("{\"format_version\": 7}").unwrap_err();
        assert_eq!(
            newer.to_string(),
            "profile format version 7 is newer than this gpufare supports (up to 2); update gpufare"
        );
        let invalid = parse_profile(
            "{\"format_version\": 1, \"tool\": {\"name\": \"gpufare\", \"version\": \"0.1.0\"}}",
        )
        .unwrap_err();
        assert!(
            invalid.to_string().contains("missing field `created_at`"),
            "{invalid}"
        );
    }
}
