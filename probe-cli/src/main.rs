//! `gpufare`: measure a rented GPU machine and write the JSON profile the site imports.
//!
//! The binary is thin glue: `cli` parses arguments, each measurement lives in its own module
//! (`host`, `gpu`), and `output` writes the result atomically. All interpretation of the numbers
//! happens in `gpufare-core`, so the site can redo it from the same profile.

mod bench;
mod cli;
mod gpu;
mod host;
mod markers;
mod output;
mod probe;
mod sampling;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`gpufare probe -o - | head`) is not a failure.
            if err.chain().any(|cause| {
                cause
                    .downcast_ref::<io::Error>()
                    .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(io::stderr(), "gpufare: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: cli::Cli) -> anyhow::Result<()> {
    match cli.command {
        cli::Command::Probe(args) => probe::run(&args.options()),
    }
}
