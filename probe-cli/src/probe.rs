//! `gpufare probe`: measures the machine (see `measure`) and writes the profile.

use std::io::{self, Write};

use anyhow::{Result, bail};
use gpufare_core::profile::document::profile_to_json;

use crate::measure::{Collected, ProbeOptions, collect};
use crate::output;

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
