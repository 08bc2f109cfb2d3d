//! `gpufare fleet merge` and `gpufare fleet report`: read files, call `gpufare_core::fleet`, say
//! what was left out, write the results through [`crate::output`].

use anyhow::{Result, bail};
use gpufare_core::fleet::{
    Rules, fleet_to_jsonl, merge, prometheus_text, report, report_markdown, report_table,
};

use super::args::{FailOn, MergeArgs, ReportArgs, ReportFormat};
use crate::input::{InputFileError, read_fleet, read_profile_files, read_rules, tell_left_out};
use crate::output;

/// Runs `gpufare fleet merge`.
pub fn run_merge(args: &MergeArgs) -> Result<()> {
    let (inputs, unreadable) = read_profile_files(&args.inputs)?;
    let merged = merge(&inputs, args.redact);
    tell_left_out(&merged);
    if merged.nodes.is_empty() {
        bail!(InputFileError(format!(
            "no profile could be read from {} files; nothing written",
            inputs.len() + unreadable
        )));
    }
    output::write_text(&args.output, &fleet_to_jsonl(&merged.nodes))?;
    eprintln!(
        "gpufare: {} nodes written to {} from {} files; left out: {} duplicates, {} damaged, {} \
         unreadable{}",
        merged.nodes.len(),
        args.output.display(),
        inputs.len() + unreadable,
        merged.duplicates.len(),
        merged.damaged.len(),
        unreadable,
        if args.redact {
            " (host names, GPU UUIDs and PCI ids removed)"
        } else {
            ""
        }
    );
    Ok(())
}

/// Runs `gpufare fleet report`.
pub fn run_report(args: &ReportArgs) -> Result<()> {
    let rules = match &args.rules {
        Some(path) => read_rules(path)?,
        None => Rules::default(),
    };
    let nodes = read_fleet(&args.fleet)?;
    let r = report(&nodes, &rules);
    let text = match args.format {
        ReportFormat::Table => report_table(&r),
        ReportFormat::Md => report_markdown(&r),
        ReportFormat::Json => format!("{}\n", serde_json::to_string_pretty(&r)?),
    };
    output::write_text(&args.output, &text)?;
    if let Some(path) = &args.prometheus {
        output::write_text(path, &prometheus_text(&r, &nodes))?;
    }
    let outliers = r.outlier_nodes > 0;
    let findings = !r.group_findings.is_empty();
    let said_outliers = format!("{} of {} nodes are outliers", r.outlier_nodes, r.nodes);
    let said_findings = format!(
        "{} group findings (a warning most of a group's nodes carry)",
        r.group_findings.len()
    );
    match args.fail_on {
        Some(FailOn::Outliers) if outliers => bail!("{said_outliers} (--fail-on outliers)"),
        Some(FailOn::Findings) if findings => bail!("{said_findings} (--fail-on findings)"),
        Some(FailOn::Any) if outliers || findings => {
            let mut said = Vec::new();
            if outliers {
                said.push(said_outliers);
            }
            if findings {
                said.push(said_findings);
            }
            bail!("{} (--fail-on any)", said.join("; "))
        }
        _ => {}
    }
    Ok(())
}
