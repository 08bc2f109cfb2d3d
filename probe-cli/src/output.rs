//! Writing results: to standard output, through to a device or pipe, or atomically to a file.
//!
//! What `-o PATH` does depends on what PATH is (the rule `--help` and the README state):
//!
//! - `-`: standard output.
//! - nothing yet: a new file, written to a temporary sibling and renamed into place, created
//!   with mode 0666 less the umask (as a shell's `>` would).
//! - a regular file: replaced atomically (temp sibling + rename), so readers see either the old
//!   content or the complete new one; the new file keeps the old one's permission bits and,
//!   where allowed, its owner and group.
//! - a character device (`/dev/null`, a terminal) or a named pipe: opened and written through,
//!   never renamed over, so the device node stays what it was.
//! - a symbolic link: followed to what it points at, which must exist; the rules above then apply
//!   to the target and the link stays a link. A dangling link is refused.
//! - anything else (a directory, a block device, a socket): refused, nothing written.
//!
//! A failed measurement (a probe whose disk or network test failed, a `gpufare run` whose
//! command failed or was interrupted) does not replace an existing file unless the user passes
//! `--force`: see [`write_result`].

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, IsTerminal, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::interrupt::TempPath;

/// Where `-o PATH` leads.
#[derive(Debug)]
enum Target {
    /// Standard output.
    Stdout,
    /// No file there yet: create it.
    New(PathBuf),
    /// A regular file (the link's target for a link): replace it, keeping its mode and owner.
    Regular(PathBuf, Metadata),
    /// A character device or a named pipe: write through it.
    Stream(PathBuf),
}

/// What [`write_result`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The output went where it was asked to.
    Written,
    /// The run failed and an existing file was left as it was (no `--force`).
    KeptExisting,
}

/// Writes `text` to `path`, or to standard output when `path` is `-` (see the module's rules).
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    write_bytes(path, text.as_bytes())
}

/// Writes `bytes` (a binary file such as a workbook) by the same rules as [`write_text`].
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    write_result_bytes(path, bytes, true, true).map(|_| ())
}

/// Writes the output of a measurement. When it `succeeded` or `force` is set, as
/// [`write_text`]; when it failed, an existing regular file (or the file a link points at) is
/// kept unchanged and nothing is written ([`Written::KeptExisting`]), so the output of a failed
/// run never replaces a previous good one. A new file, standard output, a device or a pipe
/// receives the failed run's output as usual (it records why the run failed).
pub fn write_result(path: &Path, text: &str, succeeded: bool, force: bool) -> Result<Written> {
    write_result_bytes(path, text.as_bytes(), succeeded, force)
}

fn write_result_bytes(path: &Path, text: &[u8], succeeded: bool, force: bool) -> Result<Written> {
    match resolve(path)? {
        Target::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(text)?;
            out.flush()?;
        }
        Target::Stream(real) => write_through(path, &real, text)?,
        Target::Regular(..) if !succeeded && !force => return Ok(Written::KeptExisting),
        Target::Regular(real, old) => replace(path, &real, text, Some(&old))?,
        Target::New(real) => replace(path, &real, text, None)?,
    }
    Ok(Written::Written)
}

/// Whether `-o PATH` leads to a terminal: standard output that is one, or a terminal device.
/// Binary output (a workbook) is refused there.
pub fn leads_to_terminal(path: &Path) -> bool {
    if path.as_os_str() == "-" {
        return io::stdout().is_terminal();
    }
    match resolve(path) {
        Ok(Target::Stream(real)) => OpenOptions::new()
            .write(true)
            .open(real)
            .is_ok_and(|f| f.is_terminal()),
        _ => false,
    }
}

fn resolve(path: &Path) -> Result<Target> {
    if path.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Target::New(path.to_path_buf()));
        }
        Err(e) => return Err(e).with_context(|| format!("cannot write {}", path.display())),
    };
    if !meta.file_type().is_symlink() {
        return classify(path, path.to_path_buf(), meta);
    }
    let real = match fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let to = fs::read_link(path)
                .map(|t| format!(" to {}", t.display()))
                .unwrap_or_default();
            bail!(
                "cannot write {}: it is a symbolic link{to} that leads to no file; gpufare \
                 follows a link only to something that exists",
                path.display()
            );
        }
        Err(e) => return Err(e).with_context(|| format!("cannot write {}", path.display())),
    };
    let meta = fs::metadata(&real).with_context(|| format!("cannot write {}", path.display()))?;
    classify(path, real, meta)
}

fn classify(path: &Path, real: PathBuf, meta: Metadata) -> Result<Target> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(Target::Regular(real, meta));
    }
    if kind.is_char_device() || kind.is_fifo() {
        return Ok(Target::Stream(real));
    }
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    let via = if real.as_path() == path {
        String::new()
    } else {
        format!(" (through the link to {})", real.display())
    };
    bail!(
        "cannot write {}: it is {what}{via}; gpufare writes only to regular files, character \
         devices such as /dev/null, and named pipes",
        path.display()
    )
}

/// Opens a device or pipe and writes into it; nothing is created, renamed or truncated.
fn write_through(path: &Path, real: &Path, text: &[u8]) -> Result<()> {
    let context = || format!("cannot write {}", path.display());
    let mut file = OpenOptions::new()
        .write(true)
        .open(real)
        .with_context(context)?;
    // What was opened is checked again: the path may have changed since it was looked at.
    let kind = file.metadata().with_context(context)?.file_type();
    if !(kind.is_char_device() || kind.is_fifo()) {
        bail!(
            "cannot write {}: it changed while gpufare was writing (no longer a device or a pipe)",
            path.display()
        );
    }
    file.write_all(text)
        .and_then(|()| file.flush())
        .with_context(context)?;
    Ok(())
}

/// Writes a temporary sibling of `real` and renames it over `real`.
fn replace(path: &Path, real: &Path, text: &[u8], old: Option<&Metadata>) -> Result<()> {
    let dir = match real.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".gpufare-")
        .suffix(".tmp")
        // A new file gets 0666 less the umask, as with a shell's `>`; an existing file's own
        // mode is set below (fchmod is not masked by the umask).
        .permissions(fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "cannot write {}: cannot create a file in {}",
                path.display(),
                dir.display()
            )
        })?;
    // A signal while the file is written removes it (see `interrupt`).
    let _registered = TempPath::register(tmp.path().to_path_buf());
    let context = || format!("cannot write {}", path.display());
    if let Some(old) = old {
        keep_owner_and_mode(tmp.as_file(), old).with_context(context)?;
    }
    tmp.write_all(text)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(context)?;
    tmp.persist(real)
        .map_err(|e| e.error)
        .with_context(context)?;
    Ok(())
}

fn keep_owner_and_mode(file: &File, old: &Metadata) -> io::Result<()> {
    // The owner first: changing it can clear set-id bits, which the mode then restores. Only
    // root may give a file away; anyone else keeps their own ownership (not an error).
    if old.uid() != file.metadata()?.uid() || old.gid() != file.metadata()?.gid() {
        let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    }
    file.set_permissions(fs::Permissions::from_mode(old.mode() & 0o7777))
}
