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
        after_help = "Examples:\n  gpufare probe -o profile.json\n  gpufare probe --redact -o - | less"
    )]
    Probe(ProbeArgs),
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Where to write the profile; `-` writes it to standard output. An existing file is replaced
    /// atomically: it is either the old file or the complete new one, never half-written.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// Leave out identifying details: the host name and GPU UUIDs.
    #[arg(long)]
    pub redact: bool,

    /// Do not look for NVIDIA GPUs at all (the profile then says why `gpus` is empty).
    #[arg(long)]
    pub no_gpu: bool,
}
