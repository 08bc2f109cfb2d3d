//! Command-line arguments, parsed and validated by clap before anything runs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Shared or dedicated GPU? Measure the machine, then price the choice.
#[derive(Debug, Parser)]
#[command(name = "gpufare", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read host and GPU facts and write a JSON profile for the gpufare site.
    #[command(
        after_help = "Examples:\n  gpufare probe -o profile.json\n  gpufare probe --duration 20 --bench -o profile.json\n  gpufare probe --redact --quiet -o - | less"
    )]
    Probe(ProbeArgs),
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Where to write the profile; `-` writes it to standard output. An existing file is replaced
    /// atomically: it is either the old file or the complete new one, never half-written.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

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
