//! Measuring the machine: host facts and limits, GPU facts, a sampling window, sharing markers,
//! the optional micro-benchmark and the disk and network measurements asked for, gathered into a
//! profile whose verdicts are computed by core. `gpufare probe` writes it; `gpufare run` starts
//! from it; `gpufare fleet` passes the same flags on to every node's probe.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use gpufare_core::profile::document::{PROFILE_FORMAT_VERSION, Profile, TOOL_NAME, ToolInfo};
use gpufare_core::profile::verdicts::analyse;

use crate::flags::parse_size;
use crate::interrupt::Interrupted;
use crate::{bench, disk, gpu, host, limits, markers, net, sampling};

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Where to write the profile; `-` writes it to standard output. An existing file is replaced
    /// atomically (either the old file or the complete new one, never half-written) and keeps its
    /// permissions; a character device such as /dev/null or a named pipe is written through,
    /// never replaced; a symbolic link is followed to the existing file it points at (a dangling
    /// link is refused); a directory or block device is refused. If a measurement that was asked
    /// for fails, an existing file is left as it was (see --force).
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// Replace an existing --output file even when a measurement failed (the profile then
    /// records the failure).
    #[arg(long)]
    pub force: bool,

    /// Leave out identifying details: the host name, GPU and MIG UUIDs, PCI bus ids.
    #[arg(long)]
    pub redact: bool,

    /// Do not look for NVIDIA GPUs at all (the profile then says why `gpus` is empty).
    #[arg(long)]
    pub no_gpu: bool,

    /// Seconds to sample every GPU (utilisation, memory, PCIe throughput, SM clock, power,
    /// temperature, throttle reasons) before anything of ours runs on it; 0 skips sampling.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = parse_duration_s)]
    pub duration: f64,

    /// Milliseconds between samples.
    #[arg(long, value_name = "MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub interval: u64,

    /// Also run the GPU micro-benchmark when a CUDA driver is present: pinned host-to-device
    /// bandwidth and a timed FP16 GEMM loop (P50/P99 step time, achieved TFLOPS). It loads the
    /// GPU for a few seconds.
    #[arg(long)]
    pub bench: bool,

    /// GEMM size for --bench (m = n = k).
    #[arg(long, value_name = "N", default_value_t = 8192, value_parser = clap::value_parser!(u64).range(256..=32768))]
    pub gemm_size: u64,

    /// Timed GEMM steps for --bench (after 5 warm-up steps); at least 50.
    #[arg(long, value_name = "STEPS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(50..=100_000))]
    pub gemm_steps: u64,

    /// No progress bar on standard error.
    #[arg(long)]
    pub quiet: bool,

    #[command(flatten)]
    pub measure: MeasureArgs,
}

fn parse_duration_s(text: &str) -> Result<f64, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(0.0..=3600.0).contains(&v) {
        return Err("must be between 0 and 3600 seconds".to_owned());
    }
    Ok(v)
}

// ---- disk, network and `gpufare run` (issue 7) ----

/// Disk and network measurements of `gpufare probe`: each runs only when its flag is given.
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Benchmark the disk holding DIR (test the volume your data lives on, e.g. /workspace):
    /// sequential write and read (1 MiB, queue depth 32) and 4 KiB random read (depth 64) with
    /// O_DIRECT. A temporary file is created there and always removed, Ctrl-C included.
    #[arg(long, value_name = "DIR", help_heading = "Disk")]
    pub disk_dir: Option<PathBuf>,

    /// Size of the disk test file, e.g. 512M, 1G, 4G (binary units; at least 1M).
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_disk_size, help_heading = "Disk")]
    pub disk_size: u64,

    /// Seconds each disk pattern is measured, after a 1 s ramp-up.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, value_parser = parse_disk_seconds, help_heading = "Disk")]
    pub disk_seconds: f64,

    /// Measure throughput to an iperf3 server (a stock `iperf3 -s`), upload and download
    /// (reverse); repeatable. The port defaults to 5201.
    #[arg(long, value_name = "HOST[:PORT]", value_parser = parse_iperf3_server, help_heading = "Network")]
    pub iperf3: Vec<String>,

    /// Parallel TCP streams per iperf3 test.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=128), help_heading = "Network")]
    pub iperf3_streams: u32,

    /// Seconds per iperf3 test and direction.
    #[arg(long, value_name = "S", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=300), help_heading = "Network")]
    pub iperf3_seconds: u32,

    /// Measure HTTP download throughput from URL (e.g. a model or dataset mirror); repeatable.
    /// http:// only: https needs a TLS library this build does not have.
    #[arg(long, value_name = "URL", value_parser = parse_http_url, help_heading = "Network")]
    pub http: Vec<String>,

    /// Parallel connections per --http URL, each downloading it.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64), help_heading = "Network")]
    pub http_connections: u32,

    /// Longest time spent downloading one --http URL, seconds.
    #[arg(long, value_name = "S", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=600), help_heading = "Network")]
    pub http_seconds: u32,

    /// Time TCP connects to HOST:PORT (min and median of --rtt-tries); repeatable. Prefix a
    /// provider region id, REGION=HOST:PORT (e.g. cn-shanghai=my-server.example:22), to label it
    /// with the place it stands for (`gpufare plan --rtt-from` uses labelled results).
    #[arg(long, value_name = "[REGION=]HOST:PORT", value_parser = parse_rtt_target, help_heading = "Network")]
    pub rtt: Vec<String>,

    /// Also time connects to the built-in list of cloud region endpoints (AWS and Alibaba Cloud
    /// regional API hosts); never contacted without this flag.
    #[arg(long, help_heading = "Network")]
    pub rtt_regions: bool,

    /// Connects per --rtt endpoint.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100), help_heading = "Network")]
    pub rtt_tries: u32,
}

/// The disk test's file size: 1M to 16T.
fn parse_disk_size(text: &str) -> Result<u64, String> {
    let bytes = parse_size(text)?;
    if bytes < 1 << 20 {
        return Err("must be at least 1M".to_owned());
    }
    if bytes > 1 << 44 {
        return Err("must be at most 16T".to_owned());
    }
    Ok(bytes)
}

fn parse_disk_seconds(text: &str) -> Result<f64, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(0.2..=600.0).contains(&v) {
        return Err("must be between 0.2 and 600 seconds".to_owned());
    }
    Ok(v)
}

fn parse_iperf3_server(text: &str) -> Result<String, String> {
    crate::net::split_host_port(text, Some(crate::net::iperf3::DEFAULT_PORT))
        .map(|_| text.trim().to_owned())
}

fn parse_rtt_target(text: &str) -> Result<String, String> {
    let (_, target) = split_rtt_label(text);
    crate::net::split_host_port(target, None).map(|_| text.trim().to_owned())
}

/// `REGION=HOST:PORT` into the region label and the target (no label without `=`).
pub fn split_rtt_label(text: &str) -> (Option<&str>, &str) {
    match text.trim().split_once('=') {
        Some((label, target)) if !label.trim().is_empty() => (Some(label.trim()), target.trim()),
        _ => (None, text.trim()),
    }
}

fn parse_http_url(text: &str) -> Result<String, String> {
    crate::net::http::parse_url(text).map(|_| text.trim().to_owned())
}

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

impl ProbeArgs {
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

impl MeasureArgs {
    /// The network measurements these arguments ask for.
    pub fn network_plan(&self, progress: bool) -> net::NetworkPlan {
        let mut rtt: Vec<(String, Option<String>)> = self
            .rtt
            .iter()
            .map(|t| {
                let (label, target) = split_rtt_label(t);
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
