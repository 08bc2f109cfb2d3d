//! `gpufare probe`: gather host and GPU facts into a profile and write it.

use std::io::{self, Write};

use anyhow::Result;
use gpufare_core::profile::{
    PROFILE_FORMAT_VERSION, Profile, TOOL_NAME, ToolInfo, profile_to_json,
};

use crate::cli::ProbeArgs;
use crate::{gpu, host, output};

/// Runs the probe and writes the profile where the arguments say.
pub fn run(args: &ProbeArgs) -> Result<()> {
    let profile = collect(args);
    for warning in &profile.warnings {
        let _ = writeln!(io::stderr(), "gpufare: warning: {warning}");
    }
    let mut json = profile_to_json(&profile);
    json.push('\n');
    output::write_text(&args.output, &json)
}

fn collect(args: &ProbeArgs) -> Profile {
    let mut host = host::read_host();
    let reading = if args.no_gpu {
        gpu::GpuReading {
            driver: None,
            gpus: vec![],
            unavailable: Some("GPU probing was turned off (--no-gpu)".to_owned()),
        }
    } else {
        gpu::read_gpus()
    };
    let mut gpus = reading.gpus;
    let mut warnings = Vec::new();
    if let Some(why) = &reading.unavailable
        && !args.no_gpu
    {
        warnings.push(format!("{why}; the profile has no GPU section"));
    }
    if args.redact {
        host.hostname = None;
        for g in &mut gpus {
            g.uuid = None;
        }
    }
    Profile {
        format_version: PROFILE_FORMAT_VERSION,
        tool: ToolInfo {
            name: TOOL_NAME.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        },
        created_at: jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string(),
        host,
        driver: reading.driver,
        gpus,
        gpus_unavailable: reading.unavailable,
        warnings,
    }
}
