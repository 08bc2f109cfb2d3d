//! `gpufare probe`: host facts, GPU facts, a sampling window, sharing markers and the optional
//! micro-benchmark, gathered into a profile whose verdicts are computed by core, then written.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use gpufare_core::analysis::analyse;
use gpufare_core::profile::{
    PROFILE_FORMAT_VERSION, Profile, SharingMarkers, TOOL_NAME, ToolInfo, profile_to_json,
};

use crate::{bench, gpu, host, markers, output, sampling};

/// What the probe does, resolved from the command line.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    pub output: PathBuf,
    pub redact: bool,
    pub no_gpu: bool,
    pub duration: Duration,
    pub interval: Duration,
    pub bench: bool,
    pub bench_plan: bench::BenchPlan,
    pub progress: bool,
}

impl crate::cli::ProbeArgs {
    /// The options these arguments ask for.
    pub fn options(&self) -> ProbeOptions {
        ProbeOptions {
            output: self.output.clone(),
            redact: self.redact,
            no_gpu: self.no_gpu,
            duration: Duration::from_secs_f64(self.duration),
            interval: Duration::from_millis(self.interval),
            bench: self.bench,
            bench_plan: bench::BenchPlan {
                size: self.gemm_size as usize,
                steps: self.gemm_steps as usize,
                ..bench::BenchPlan::default()
            },
            progress: !self.quiet,
        }
    }
}

/// Runs the probe and writes the profile where the options say.
pub fn run(options: &ProbeOptions) -> Result<()> {
    let profile = collect(options);
    for warning in &profile.warnings {
        let _ = writeln!(io::stderr(), "gpufare: warning: {warning}");
    }
    let mut json = profile_to_json(&profile);
    json.push('\n');
    output::write_text(&options.output, &json)
}

/// Gathers everything into a profile (with verdicts).
pub fn collect(options: &ProbeOptions) -> Profile {
    let own_pid = std::process::id();
    let mut host = host::read_host();
    let mut warnings = Vec::new();
    let mut driver = None;
    let mut gpus = Vec::new();
    let mut unavailable = None;
    let mut window = None;
    let mut benchmarks = Vec::new();
    if options.no_gpu {
        unavailable = Some("GPU probing was turned off (--no-gpu)".to_owned());
    } else {
        match gpu::open() {
            gpu::Opened::Unavailable(why) => {
                warnings.push(format!("{why}; the profile has no GPU section"));
                unavailable = Some(why);
            }
            gpu::Opened::Ready(source) => {
                driver = Some(source.driver());
                match source.snapshot() {
                    Err(why) => {
                        warnings.push(format!("{why}; the profile has no GPU section"));
                        unavailable = Some(why);
                    }
                    Ok(list) if list.is_empty() => {
                        unavailable = Some("the NVIDIA driver reports no GPU".to_owned())
                    }
                    Ok(list) => {
                        gpus = list;
                        // Sample before any CUDA context of ours exists: load seen now is foreign.
                        if !options.duration.is_zero() {
                            let w = sampling::Window {
                                duration: options.duration,
                                interval: options.interval,
                                progress: options.progress,
                            };
                            window = Some(sampling::run(&*source, w, own_pid));
                        }
                        if options.bench {
                            benchmarks = (0..gpus.len())
                                .map(|i| bench::run(i, options.bench_plan))
                                .collect();
                            for b in &benchmarks {
                                for note in &b.notes {
                                    warnings.push(format!("GPU {}: {note}", b.index));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let sharing_markers = markers::collect(std::env::vars(), std::path::Path::new("/"));
    if options.redact {
        host.hostname = None;
        for g in &mut gpus {
            g.uuid = None;
            g.pci_bus_id = None;
            for m in &mut g.mig_devices {
                m.uuid = None;
            }
        }
    }
    let mut profile = Profile {
        format_version: PROFILE_FORMAT_VERSION,
        tool: ToolInfo {
            name: TOOL_NAME.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        },
        created_at: jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string(),
        host,
        driver,
        gpus,
        gpus_unavailable: unavailable,
        own_pid: Some(own_pid),
        sharing_markers: if options.redact {
            redact_markers(sharing_markers)
        } else {
            sharing_markers
        },
        sampling: window,
        benchmarks,
        verdicts: vec![],
        warnings,
    };
    profile.verdicts = analyse(&profile);
    profile
}

/// Visible-device variables can carry GPU UUIDs; `--redact` masks them.
fn redact_markers(mut m: SharingMarkers) -> SharingMarkers {
    for (key, value) in m.env.iter_mut() {
        if key.ends_with("VISIBLE_DEVICES") && (value.contains("GPU-") || value.contains("MIG-")) {
            *value = value
                .split(',')
                .map(|v| {
                    if v.starts_with("MIG-") {
                        "MIG-…"
                    } else if v.starts_with("GPU-") {
                        "GPU-…"
                    } else {
                        v
                    }
                })
                .collect::<Vec<_>>()
                .join(",");
        }
    }
    m
}
