//! `gpufare`: measure a rented GPU machine and write the JSON profile the site imports.
//!
//! The binary is thin glue: `cli` parses arguments, each measurement lives in its own module
//! (`host`, `gpu`), and `output` writes the result atomically. All interpretation of the numbers
//! happens in `gpufare-core`, so the site can redo it from the same profile.

mod bench;
mod catalog_refresh;
mod cli;
mod disk;
mod estimate;
mod fleet;
mod gpu;
mod host;
mod hoststat;
mod interrupt;
mod libs;
mod limits;
mod markers;
mod net;
mod output;
mod plan_cmd;
mod probe;
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
            if err.chain().any(|c| c.is::<plan_cmd::InputFileError>()) {
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
        cli::Command::Run(args) => run::run(&run::RunOptions {
            command: args.command,
            repeat: args.repeat,
            step_regex: args.step_regex,
            interval: std::time::Duration::from_millis(args.interval),
            output: args.output,
            profile: args.profile,
            no_gpu: args.no_gpu,
            redact: args.redact,
            force: args.force,
        }),
        cli::Command::Estimate(args) => estimate::run(&args),
        cli::Command::Plan(args) => plan_cmd::run_plan(&args.request()?),
        cli::Command::Catalog(c) => plan_cmd::run_catalog(match c {
            cli::CatalogCommand::List { files } => {
                plan_cmd::CatalogAction::List { catalogs: files }
            }
            cli::CatalogCommand::Validate { files } => {
                plan_cmd::CatalogAction::Validate { catalogs: files }
            }
            cli::CatalogCommand::Convert { input, to, output } => {
                plan_cmd::CatalogAction::Convert { input, to, output }
            }
            cli::CatalogCommand::Refresh(args) => return catalog_refresh::run(&args),
        }),
        cli::Command::Fleet(command) => fleet::run(&command),
        cli::Command::Schema { name } => plan_cmd::run_schema(&name),
        cli::Command::Places { json } => plan_cmd::run_places(json),
        cli::Command::Trace {
            files,
            json,
            job_hours,
            checkpoint_hours,
            restart_hours,
            save_minutes,
            notice_seconds,
            seed,
            trials,
        } => trace_cmd::run_trace(&trace_cmd::TraceRequest {
            files,
            json,
            job: job_hours.map(|work_hours| trace_cmd::JobArgs {
                work_hours,
                checkpoint_hours,
                restart_hours,
                save_minutes,
                notice_seconds,
            }),
            seed,
            trials,
        }),
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
