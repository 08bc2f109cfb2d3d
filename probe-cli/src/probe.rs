//! `gpufare probe`: host facts and limits, GPU facts, a sampling window, sharing markers, the
//! optional micro-benchmark and the disk and network measurements asked for, gathered into a
//! profile whose verdicts are computed by core, then written.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use gpufare_core::profile::document::{
    PROFILE_FORMAT_VERSION, Profile, TOOL_NAME, ToolInfo, profile_to_json,
};
use gpufare_core::profile::verdicts::analyse;

use crate::interrupt::Interrupted;
use crate::{bench, disk, gpu, host, limits, markers, net, output, sampling};

/// What the probe does, resolved from the command line.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    pub output: PathBuf,
    /// Replace an existing output file even when a measurement failed.
    pub force: bool,
    pub redact: bool,
    pub no_gpu: bool,
    pub duration: Duration,
    pub interval: Duration,
    pub bench: bool,
    pub bench_plan: bench::BenchPlan,
    pub progress: bool,
    /// The disk benchmark, when `--disk-dir` was given.
    pub disk: Option<disk::DiskPlan>,
    /// Network measurements (empty unless asked for).
    pub network: net::NetworkPlan,
}

impl ProbeOptions {
    /// Host facts, limits and a GPU snapshot only: no sampling window, benchmark, disk or network
    /// (the base profile of `gpufare run`).
    pub fn quick(output: PathBuf, redact: bool, no_gpu: bool) -> ProbeOptions {
        ProbeOptions {
            output,
            force: false,
            redact,
            no_gpu,
            duration: Duration::ZERO,
            interval: Duration::from_millis(500),
            bench: false,
            bench_plan: bench::BenchPlan::default(),
            progress: false,
            disk: None,
            network: net::NetworkPlan::default(),
        }
    }
}

impl crate::cli::ProbeArgs {
    /// The options these arguments ask for.
    pub fn options(&self) -> ProbeOptions {
        ProbeOptions {
            output: self.output.clone(),
            force: self.force,
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
            disk: self.measure.disk_dir.as_ref().map(|dir| disk::DiskPlan {
                dir: dir.clone(),
                size_bytes: self.measure.disk_size,
                duration: Duration::from_secs_f64(self.measure.disk_seconds),
                ramp: Duration::from_secs(1),
                progress: !self.quiet,
            }),
            network: self.measure.network_plan(!self.quiet),
        }
    }
}

impl crate::cli::MeasureArgs {
    /// The network measurements these arguments ask for.
    pub fn network_plan(&self, progress: bool) -> net::NetworkPlan {
        let mut rtt: Vec<(String, Option<String>)> = self
            .rtt
            .iter()
            .map(|t| {
                let (label, target) = crate::cli::split_rtt_label(t);
                (target.to_owned(), label.map(str::to_owned))
            })
            .collect();
        if self.rtt_regions {
            rtt.extend(
                net::rtt::REGIONS
                    .iter()
                    .map(|(label, target)| ((*target).to_owned(), Some((*label).to_owned()))),
            );
        }
        net::NetworkPlan {
            iperf3: self.iperf3.clone(),
            iperf3_streams: self.iperf3_streams,
            iperf3_seconds: self.iperf3_seconds,
            http: self.http.clone(),
            http_connections: self.http_connections,
            http_seconds: f64::from(self.http_seconds),
            rtt,
            rtt_tries: self.rtt_tries,
            progress,
        }
    }
}

/// A profile, and the measurements the user asked for that failed (the profile records them too).
pub struct Collected {
    pub profile: Profile,
    pub failures: Vec<String>,
}

/// Runs the probe and writes the profile where the options say.
///
/// A measurement that was asked for and failed (a read-only `--disk-dir`, an unreachable
/// `--iperf3` server) is recorded in the profile, which is still written — except over an existing
/// file, which is kept unless `--force` is given; then the run fails.
pub fn run(options: &ProbeOptions) -> Result<()> {
    let Collected { profile, failures } = collect(options)?;
    for warning in &profile.warnings {
        let _ = writeln!(io::stderr(), "gpufare: warning: {warning}");
    }
    let mut json = profile_to_json(&profile);
    json.push('\n');
    let written = output::write_result(&options.output, &json, failures.is_empty(), options.force)?;
    if written == output::Written::KeptExisting {
        let _ = writeln!(
            io::stderr(),
            "gpufare: {} was left as it was, since a measurement failed; --force replaces it",
            options.output.display()
        );
    }
    if !failures.is_empty() {
        bail!("{}", failures.join("; "));
    }
    Ok(())
}

/// Gathers everything into a profile (with verdicts); only Ctrl-C stops it early.
pub fn collect(options: &ProbeOptions) -> Result<Collected, Interrupted> {
    let own_pid = std::process::id();
    let mut host = host::read_host();
    let host_limits = limits::read();
    let mut failures = Vec::new();
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
    let disk = match &options.disk {
        None => None,
        Some(plan) => match disk::run(plan) {
            Ok(report) => {
                for note in &report.notes {
                    warnings.push(format!("disk: {note}"));
                }
                Some(report)
            }
            Err(e) if e.is::<Interrupted>() => return Err(Interrupted),
            Err(e) => {
                let text = format!("disk benchmark failed: {e:#}");
                warnings.push(text.clone());
                failures.push(text);
                None
            }
        },
    };
    let network = (!options.network.is_empty()).then(|| net::run(&options.network));
    if let Some(n) = &network {
        let user_rtt: Vec<&str> = options
            .network
            .rtt
            .iter()
            .filter(|(_, region)| region.is_none())
            .map(|(t, _)| t.as_str())
            .collect();
        let mut failed = Vec::new();
        for r in &n.iperf3 {
            if let Some(e) = &r.error {
                failed.push(format!("iperf3 {} {:?}: {e}", r.server, r.direction));
            }
        }
        for r in &n.http {
            if let Some(e) = &r.error {
                failed.push(format!("HTTP {}: {e}", r.url));
            }
        }
        for r in &n.rtt {
            if let Some(e) = &r.error {
                let text = format!("RTT {}: {e}", r.target);
                // Built-in region endpoints are best effort; the user's own must answer.
                if r.samples_ms.is_empty() && user_rtt.contains(&r.target.as_str()) {
                    failed.push(text);
                } else {
                    warnings.push(text);
                }
            }
        }
        warnings.extend(failed.iter().cloned());
        failures.extend(failed);
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
            let mut m = sharing_markers;
            m.redact();
            m
        } else {
            sharing_markers
        },
        sampling: window,
        benchmarks,
        host_limits: Some(host_limits),
        disk,
        network,
        runs: None,
        verdicts: vec![],
        warnings,
    };
    profile.verdicts = analyse(&profile);
    Ok(Collected { profile, failures })
}
