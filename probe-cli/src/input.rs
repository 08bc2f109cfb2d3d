//! Reading the files a command is given: tasks, catalogs, preemption and queue traces, fleets.
//! Every command reads its input through here, so a bad file is refused the same way everywhere:
//! an [`InputFileError`] naming the file (exit status 2), nothing written.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::Result;
use gpufare_core::export::budget::{Budget, parse_budget};
use gpufare_core::fleet::{FleetNode, Merged, Rules, parse_fleet, parse_rules};
use gpufare_core::numbers::text::TextEncoding;
use gpufare_core::offers::catalog::{CATALOG_FORMAT_VERSION, Catalog, CatalogError};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::import::{self, OnClash};
use gpufare_core::offers::queue::Queue;
use gpufare_core::offers::queue_trace::{MAX_QUEUE_TRACE_BYTES, parse_queue_trace};
use gpufare_core::offers::trace::{AttachedTrace, MAX_TRACE_BYTES, Trace, parse_trace};
use gpufare_core::profile::document::{Profile, parse_profile};
use gpufare_core::scenario::document::{Scenario, parse_scenario};
use gpufare_core::task::document::{TaskProfile, parse_task};

/// A problem with an input file: exit code 2, nothing written.
#[derive(Debug)]
pub struct InputFileError(pub String);

impl std::fmt::Display for InputFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputFileError {}

/// `problem` with `path` as an input-file error: the file named, exit status 2.
pub fn bad(path: &Path, problem: impl std::fmt::Display) -> anyhow::Error {
    anyhow::Error::new(InputFileError(format!("{}: {problem}", path.display())))
}

/// A file's text.
fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| bad(path, format!("cannot read: {e}")))
}

/// A fleet report's rules file (TOML or JSON); an unknown key is refused by name, with where the
/// keys are listed.
pub fn read_rules(path: &Path) -> Result<Rules> {
    parse_rules(&path.to_string_lossy(), &read(path)?).map_err(|e| {
        let hint = e
            .unknown_key()
            .map(|k| {
                format!(
                    " (unknown key {k:?}; README.md \"Fleets\" lists the keys and their \
                     defaults)"
                )
            })
            .unwrap_or_default();
        anyhow::Error::new(InputFileError(format!("{e}{hint}")))
    })
}

/// A task file.
pub fn read_task(path: &Path) -> Result<TaskProfile> {
    parse_task(&read(path)?).map_err(|e| bad(path, e))
}

/// A probe profile.
pub fn read_profile(path: &Path) -> Result<Profile> {
    parse_profile(&read(path)?).map_err(|e| bad(path, e))
}

/// A budget exported by `gpufare plan --format json` or the site.
pub fn read_budget(path: &Path) -> Result<Budget> {
    parse_budget(&read(path)?).map_err(|e| bad(path, e))
}

/// A scenario saved by the site, or a budget exported by it with its scenario inside.
pub fn read_scenario(path: &Path) -> Result<Scenario> {
    let text = read(path)?;
    match parse_budget(&text) {
        Ok(Budget {
            scenario: Some(s), ..
        }) => Ok(s),
        _ => parse_scenario(&text).map_err(|e| bad(path, e)),
    }
}

/// The day a file was last written, `YYYY-MM-DD` in the local time zone (today when the system
/// does not say): it dates the prices of a SkyPilot `vms.csv`, which carries no date itself.
fn file_date(path: &Path) -> String {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| jiff::Timestamp::try_from(t).ok())
        .map(|t| t.to_zoned(jiff::tz::TimeZone::system()).date())
        .unwrap_or_else(|| jiff::Zoned::now().date())
        .strftime("%Y-%m-%d")
        .to_string()
}

/// Reads one catalog file (our JSON or CSV, or a SkyPilot `vms.csv`, in UTF-8, UTF-16 with a
/// byte-order mark or GB18030; core decodes and recognises it), with the encoding read and a note
/// on what a SkyPilot import did.
pub fn read_catalog(path: &Path) -> Result<(Catalog, TextEncoding, Option<String>)> {
    let bytes = std::fs::read(path).map_err(|e| bad(path, format!("cannot read: {e}")))?;
    let name = path.to_string_lossy();
    let imported =
        import::read_catalog_file(&name, &bytes, &file_date(path)).map_err(|e| bad(path, e))?;
    let note = imported.report.map(|report| {
        let mut note = format!(
            "{}: SkyPilot vms.csv, {} rows -> {} offers ({} zone rows merged, {} skipped)",
            path.display(),
            report.rows,
            report.offers,
            report.merged_zone_rows,
            report.skipped.len()
        );
        for s in report.skipped.iter().chain(&report.spot_ignored) {
            let _ = write!(note, "\n  line {} {}: {}", s.line, s.instance, s.reason);
        }
        note
    });
    Ok((imported.catalog, imported.encoding, note))
}

/// The catalogs named on the command line merged (an id two of them share is refused), or the
/// default catalog when none is named.
pub fn load_catalogs(paths: &[PathBuf]) -> Result<Catalog> {
    if paths.is_empty() {
        return Ok(default_catalog().clone());
    }
    let mut all = Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers: vec![],
    };
    for p in paths {
        let (mut c, encoding, note) = read_catalog(p)?;
        resolve_catalog_traces(&mut c, p);
        // A file saved by a spreadsheet in another encoding than UTF-8: say how it was read.
        if !matches!(encoding, TextEncoding::Utf8 | TextEncoding::Utf8Bom) {
            eprintln!("gpufare: {}: read as {encoding}", p.display());
        }
        if let Some(n) = note {
            eprintln!("gpufare: {n}");
        }
        import::merge(&mut all, c, OnClash::Refuse).map_err(|e| match e {
            CatalogError::DuplicateId { id } => {
                bad(p, format!("offer id {id:?} appears in two catalogs"))
            }
            other => bad(p, other),
        })?;
    }
    Ok(all)
}

/// Reads and parses one trace file, refusing it unread when it is too large.
pub fn read_trace(path: &Path) -> Result<Trace> {
    let text = read_bounded(path, MAX_TRACE_BYTES)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    parse_trace(&name, &text).map_err(|e| bad(path, e))
}

/// Splits the `OFFER=FILE` of `flag`; `example` shows a good one in the refusal.
fn offer_file(flag: &str, arg: &str, example: &str) -> Result<(String, PathBuf)> {
    match arg.split_once('=') {
        Some((offer, file)) if !offer.trim().is_empty() && !file.is_empty() => {
            Ok((offer.trim().to_owned(), PathBuf::from(file)))
        }
        _ => Err(anyhow::Error::new(InputFileError(format!(
            "{flag} {arg:?}: give OFFER=FILE, e.g. {flag} {example}"
        )))),
    }
}

/// Splits a `--trace OFFER=FILE` argument.
pub fn parse_trace_arg(arg: &str) -> Result<(String, PathBuf)> {
    offer_file("--trace", arg, "aws-use1-g5xl-spot=us-east-1c.json")
}

/// Splits a `--queue-trace OFFER=FILE` argument.
pub fn parse_queue_trace_arg(arg: &str) -> Result<(String, PathBuf)> {
    offer_file("--queue-trace", arg, "suanjia-4090-ts2-payg=waits.csv")
}

/// Reads a queue trace (a regular file within the size limit) and attaches it to `offer` of the
/// catalog, saying on stderr what it holds; an offer the catalog does not hold is refused.
pub fn attach_queue_trace(catalog: &mut Catalog, offer: &str, path: &Path) -> Result<()> {
    let Some(o) = catalog.offers.iter_mut().find(|o| o.id == offer) else {
        anyhow::bail!(InputFileError(format!(
            "--queue-trace {offer}={}: the catalog has no offer {offer:?}",
            path.display()
        )));
    };
    let text = read_bounded(path, MAX_QUEUE_TRACE_BYTES)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let trace = parse_queue_trace(&name, &text).map_err(|e| bad(path, e))?;
    let q = Queue::from_trace(&trace);
    eprintln!(
        "gpufare: {}: {} starts{} attached to {offer}: {:.0} % at once, P50 {}, P90 {}, P99 {}",
        path.display(),
        trace.starts,
        if trace.unstarted > 0 {
            format!(" ({} never started, left out)", trace.unstarted)
        } else {
            String::new()
        },
        trace.fitted.p0 * 100.0,
        wait_text(q.quantile_hours(0.5)),
        wait_text(q.quantile_hours(0.9)),
        wait_text(q.quantile_hours(0.99)),
    );
    o.queue_trace = Some(trace);
    Ok(())
}

/// A wait in the unit that reads best: seconds, minutes or hours.
fn wait_text(hours: f64) -> String {
    let s = hours * 3600.0;
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{hours:.1} h")
    }
}

/// A regular file's text, refused when larger than `max` bytes (checked before and while
/// reading).
fn read_bounded(path: &Path, max: usize) -> Result<String> {
    let file = std::fs::File::open(path).map_err(|e| bad(path, format!("cannot read: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| bad(path, format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(bad(path, "not a regular file"));
    }
    if meta.len() > max as u64 {
        return Err(bad(
            path,
            format!(
                "the file is {} bytes; up to {max} bytes are read",
                meta.len()
            ),
        ));
    }
    let mut text = String::new();
    file.take(max as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|e| bad(path, format!("cannot read: {e}")))?;
    Ok(text)
}

/// Rewrites the `trace` paths of a catalog read from `catalog_path` to be relative to where the
/// command runs (they are written relative to the catalog file).
pub fn resolve_catalog_traces(catalog: &mut Catalog, catalog_path: &Path) {
    let dir = catalog_path.parent().unwrap_or(Path::new(""));
    for o in &mut catalog.offers {
        if let Some(t) = &mut o.interruptions.trace {
            let p = Path::new(t.as_str());
            if p.is_relative() {
                *t = dir.join(p).to_string_lossy().into_owned();
            }
        }
    }
}

/// The traces to attach: every catalog row's `trace`, then each `--trace OFFER=FILE` (which
/// replaces a row's); an offer the catalog does not hold is refused.
pub fn attach(catalog: &Catalog, args: &[(String, PathBuf)]) -> Result<Vec<AttachedTrace>> {
    let mut traces: Vec<AttachedTrace> = Vec::new();
    for o in &catalog.offers {
        if let Some(t) = &o.interruptions.trace {
            let path = PathBuf::from(t);
            let trace = read_trace(&path)
                .map_err(|e| anyhow::Error::new(InputFileError(format!("offer {}: {e}", o.id))))?;
            traces.push(AttachedTrace {
                offer_id: o.id.clone(),
                trace,
            });
        }
    }
    for (offer, path) in args {
        if !catalog.offers.iter().any(|o| &o.id == offer) {
            anyhow::bail!(InputFileError(format!(
                "--trace {offer}={}: the catalog has no offer {offer:?}",
                path.display()
            )));
        }
        let trace = read_trace(path)?;
        traces.retain(|t| &t.offer_id != offer);
        traces.push(AttachedTrace {
            offer_id: offer.clone(),
            trace,
        });
    }
    Ok(traces)
}

/// Reads a fleet file written by `fleet merge`; damaged lines are reported and skipped, and a
/// fleet without one readable node is a usage error.
pub fn read_fleet(path: &Path) -> Result<Vec<FleetNode>> {
    let text = read(path)?;
    let merged = parse_fleet(&path.to_string_lossy(), &text);
    tell_left_out(&merged);
    if merged.nodes.is_empty() {
        return Err(bad(path, "no profile in this fleet file"));
    }
    Ok(merged.nodes)
}

/// Prints on standard error what a merge or a fleet read left out: damaged lines and files, and
/// duplicate nodes.
pub fn tell_left_out(merged: &Merged) {
    for d in &merged.damaged {
        eprintln!("gpufare: skipped {}: {}", d.source, d.reason());
    }
    for d in &merged.duplicates {
        eprintln!(
            "gpufare: skipped {}: the same node (host and GPUs) as {}",
            d.dropped, d.kept
        );
    }
}

/// The files an input names: the file itself, or a directory's `*.json` and `*.jsonl` files
/// (hidden ones, such as a task's half-written `.NAME.partial`, left out), sorted by name.
fn profile_files(path: &Path) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path).map_err(|e| bad(path, format!("cannot read: {e}")))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| bad(path, format!("cannot read the directory: {e}")))?
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
        return Err(bad(
            path,
            "the directory holds no profiles (no *.json or *.jsonl files)",
        ));
    }
    Ok(files)
}

/// The profiles `paths` name (files, or directories of `*.json` and `*.jsonl`), each file's name
/// and text, and how many could not be read (each said on standard error and skipped: a merge
/// keeps what it can). A path that does not exist, or a directory without profiles, is refused.
pub fn read_profile_files(paths: &[PathBuf]) -> Result<(Vec<(String, String)>, usize)> {
    let mut inputs = Vec::new();
    let mut unreadable = 0;
    for path in paths {
        for file in profile_files(path)? {
            match std::fs::read_to_string(&file) {
                Ok(text) => inputs.push((file.to_string_lossy().into_owned(), text)),
                Err(e) => {
                    unreadable += 1;
                    eprintln!("gpufare: skipped {}: cannot read: {e}", file.display());
                }
            }
        }
    }
    Ok((inputs, unreadable))
}
