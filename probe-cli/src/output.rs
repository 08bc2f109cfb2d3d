//! Writing results: to standard output, or atomically to a file (temp file + rename).

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `text` to `path`, or to standard output when `path` is `-`.
///
/// A file is written to a temporary sibling first and renamed into place, so readers see either
/// the old content or the complete new one, and a failure leaves nothing behind.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    if path.as_os_str() == "-" {
        let mut out = io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
        return Ok(());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".gpufare-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "cannot write {}: cannot create a file in {}",
                path.display(),
                dir.display()
            )
        })?;
    tmp.write_all(text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
