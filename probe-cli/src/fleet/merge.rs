//! `gpufare fleet merge` and `gpufare fleet report`: read files, call `gpufare_core::fleet`, say
//! what was left out, write the results through [`crate::output`].

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use gpufare_core::fleet::{
    Rules, fleet_to_jsonl, merge, parse_rules, prometheus_text, report, report_markdown,
    report_table,
};

use super::args::{FailOn, MergeArgs, ReportArgs, ReportFormat};
use crate::input::{InputFileError, read_fleet, tell_left_out};
use crate::output;

fn usage(text: String) -> anyhow::Error {
    anyhow::Error::new(InputFileError(text))
}

/// The files an input names: the file itself, or a directory's `*.json` and `*.jsonl` files
/// (hidden ones, such as a task's half-written `.NAME.partial`, left out), sorted by name.
fn input_files(path: &Path) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path)
        .map_err(|e| usage(format!("{}: cannot read: {e}", path.display())))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| {
            usage(format!(
                "{}: cannot read the directory: {e}",
                path.display()
            ))
        })?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !name.starts_with('.')
                && (name.ends_with(".json") || name.ends_with(".jsonl"))
                && p.is_file()
        })
        .collect();
    files.sort();
    if files.is_empty() {
        bail!(usage(format!(
            "{}: the directory holds no profiles (no *.json or *.jsonl files)",
            path.display()
        )));
    }
    Ok(files)
}

/// Runs `gpufare fleet merge`.
pub fn run_merge(args: &MergeArgs) -> Result<()> {
    let mut inputs = Vec::new();
    let mut unreadable = 0;
    for path in &args.inputs {
        for file in input_files(path)? {
            match std::fs::read_to_string(&file) {
                Ok(text) => inputs.push((file.to_string_lossy().into_owned(), text)),
                Err(e) => {
                    unreadable += 1;
                    eprintln!("gpufare: skipped {}: cannot read: {e}", file.display());
                }
            }
        }
    }
    let merged = merge(&inputs, args.redact);
    tell_left_out(&merged);
    if merged.nodes.is_empty() {
        bail!(usage(format!(
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
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| usage(format!("{}: cannot read: {e}", path.display())))?;
            parse_rules(&path.to_string_lossy(), &text).map_err(|e| {
                let hint = e
                    .unknown_key()
                    .map(|k| {
                        format!(
                            " (unknown key {k:?}; README.md \"Fleets\" lists the keys and their \
                             defaults)"
                        )
                    })
                    .unwrap_or_default();
                usage(format!("{e}{hint}"))
            })?
        }
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
