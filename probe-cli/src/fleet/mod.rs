//! `gpufare fleet`: probe a GPU cluster through its own scheduler (Slurm or Kubernetes), merge
//! the profiles and report on them. This module only drives the engines and prints; merging,
//! grouping, spreads and outliers are core's (`gpufare_core::fleet`).

pub mod args;
pub mod k8s;
pub mod merge;
pub mod slurm;

use anyhow::{Result, bail};
use clap::Parser;

use crate::measure::ProbeArgs;
use args::FleetCommand;

/// `gpufare probe`'s command line alone, to check the flags a fleet passes on to it.
#[derive(Debug, Parser)]
#[command(name = "gpufare probe")]
struct ProbeLine {
    #[command(flatten)]
    probe: ProbeArgs,
}

/// Runs `gpufare fleet ...`.
pub fn run(command: &FleetCommand) -> Result<()> {
    match command {
        FleetCommand::Slurm(args) => slurm::run(args),
        FleetCommand::K8s(args) => k8s::run(args),
        FleetCommand::Merge(args) => merge::run_merge(args),
        FleetCommand::Report(args) => merge::run_report(args),
    }
}

/// Checks the probe's flags given after `--` the way `gpufare probe` would parse them, so a typo
/// fails here and not on every node. The output is the fleet's to choose.
pub fn check_probe_args(args: &[String]) -> Result<()> {
    let argv = std::iter::once("gpufare probe".to_owned()).chain(args.iter().cloned());
    match ProbeLine::try_parse_from(argv) {
        Ok(ProbeLine { probe }) => {
            if probe.output.as_os_str() != "-" {
                bail!(
                    "the probe's flags after -- set -o/--output: leave it out, each task writes \
                     its profile into the fleet's output directory"
                );
            }
            Ok(())
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("").trim();
            bail!("the probe's flags after -- are not valid `gpufare probe` flags: {first}")
        }
    }
}

/// The probe's command-line words, shell-quoted, with `--quiet` (no progress bar in a batch log)
/// unless already there.
pub fn probe_words(args: &[String]) -> Vec<String> {
    let mut words: Vec<String> = args.iter().map(|a| shell_quote(a)).collect();
    if !args.iter().any(|a| a == "--quiet") {
        words.insert(0, "--quiet".to_owned());
    }
    words
}

/// `text` as one POSIX shell word (single-quoted unless it is plainly safe).
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if safe {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        assert_eq!(shell_quote("--disk-size"), "--disk-size");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
    }

    #[test]
    fn probe_flags_are_checked() {
        assert!(check_probe_args(&["--no-gpu".into(), "--duration".into(), "0".into()]).is_ok());
        let e = check_probe_args(&["--no-such-flag".into()]).unwrap_err();
        assert!(e.to_string().contains("--no-such-flag"), "{e}");
        let e = check_probe_args(&["-o".into(), "x.json".into()]).unwrap_err();
        assert!(e.to_string().contains("-o/--output"), "{e}");
    }
}
