//! `gpufare`: measure a rented GPU machine, write the JSON profile the site imports, and price
//! plans offline with the same model as the site.
//!
//! `main` parses the command line and hands each command its own flags. All interpretation of
//! the numbers happens in `gpufare-core`. The modules import only from the ones listed before
//! them (`cargo xtask layers` checks it), and no command imports another:
//!
//! 1. [`interrupt`] — Ctrl-C and termination: child processes and temporary files cleaned up;
//! 2. [`output`] — results written atomically, never over what the user did not ask for;
//! 3. [`input`] — the files commands read (tasks, catalogs, traces, fleets), refused by name;
//! 4. [`flags`] — flag values more than one command takes;
//! 5. [`report`] — text more than one command prints;
//! 6. [`limits`] — the host's cgroup and ulimit limits;
//! 7. [`host`] — host facts;
//! 8. [`hoststat`] — host counters sampled over time;
//! 9. [`libs`] — the NVIDIA libraries, loaded when present;
//! 10. [`gpu`] — GPU facts through NVML;
//! 11. [`sampling`] — the GPU sampling window;
//! 12. [`bench`] — the GPU micro-benchmark;
//! 13. [`markers`] — signs of a shared GPU;
//! 14. [`disk`] — the disk benchmark;
//! 15. [`net`] — network measurements;
//! 16. [`measure`] — everything measured, gathered into a profile (shared by probe, run, fleet);
//! 17. [`probe`], [`run`], [`estimate`], [`plan_cmd`], [`catalog`], [`trace_cmd`], [`fleet`] — the
//!     commands (`plan_cmd` also runs `schema` and `places`), each with its own flags and its run;
//! 18. [`cli`] — the command line: every command and its flags.

mod bench;
mod catalog;
mod cli;
mod disk;
mod estimate;
mod flags;
mod fleet;
mod gpu;
mod host;
mod hoststat;
mod input;
mod interrupt;
mod libs;
mod limits;
mod markers;
mod measure;
mod net;
mod output;
mod plan_cmd;
mod probe;
mod report;
mod run;
mod sampling;
mod trace_cmd;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    interrupt::install();
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
            if err.chain().any(|c| c.is::<interrupt::Interrupted>()) {
                return ExitCode::from(interrupt::EXIT_INTERRUPTED);
            }
            // `gpufare run` exits with the status of the command that failed.
            if let Some(failed) = err
                .chain()
                .find_map(|c| c.downcast_ref::<run::CommandFailed>())
            {
                return ExitCode::from(failed.exit_code);
            }
            // A bad input file or argument is a usage error, like clap's own.
            if err.chain().any(|c| c.is::<input::InputFileError>()) {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

fn run(cli: cli::Cli) -> anyhow::Result<()> {
    match cli.command {
        cli::Command::Probe(args) => probe::run(&args.options()),
        cli::Command::Run(args) => run::run(&args.options()),
        cli::Command::Estimate(args) => estimate::run(&args),
        cli::Command::Plan(args) => plan_cmd::run_plan(&args.request()?),
        cli::Command::Catalog(command) => catalog::run(command),
        cli::Command::Fleet(command) => fleet::run(&command),
        cli::Command::Schema { name } => plan_cmd::run_schema(&name),
        cli::Command::Places { json } => plan_cmd::run_places(json),
        cli::Command::Trace(args) => trace_cmd::run(&args),
        cli::Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(
                shell,
                &mut cli::Cli::command(),
                "gpufare",
                &mut io::stdout(),
            );
            Ok(())
        }
    }
}
