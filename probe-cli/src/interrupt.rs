//! Ctrl-C: one handler for the whole program, installed by `main`.
//!
//! Temporary files are registered here while they exist ([`TempPath`]); on Ctrl-C the handler
//! removes every one of them at once (Linux keeps an open file usable after it is unlinked, so
//! this is safe while a benchmark still has it open) and raises a flag. Work that polls the flag
//! (the disk benchmark, `gpufare run`) holds a [`Cooperate`] guard and stops at its next check,
//! cleaning up itself and returning [`Interrupted`]; anywhere else, and on a second Ctrl-C, the
//! process exits at once with status 130.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Exit status after Ctrl-C (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: u8 = 130;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static COOPERATING: AtomicUsize = AtomicUsize::new(0);
static TEMP_PATHS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The error a measurement returns when Ctrl-C stopped it.
#[derive(Debug, Clone, Copy)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted (Ctrl-C)")
    }
}

impl std::error::Error for Interrupted {}

/// Installs the handler; call once, first thing in `main`.
pub fn install() {
    // If a handler cannot be installed (another library took SIGINT), Ctrl-C keeps its default
    // behaviour; the temp files' own guards still clean up on every other exit path.
    let _ = ctrlc::set_handler(on_interrupt);
}

fn on_interrupt() {
    let again = INTERRUPTED.swap(true, Ordering::SeqCst);
    remove_registered();
    if again || COOPERATING.load(Ordering::SeqCst) == 0 {
        let _ = writeln!(std::io::stderr(), "gpufare: interrupted");
        std::process::exit(i32::from(EXIT_INTERRUPTED));
    }
}

fn remove_registered() {
    let paths = match TEMP_PATHS.lock() {
        Ok(mut paths) => std::mem::take(&mut *paths),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    for p in paths {
        let _ = std::fs::remove_file(&p);
    }
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// `Err(Interrupted)` once Ctrl-C was pressed.
pub fn check() -> Result<(), Interrupted> {
    if interrupted() {
        Err(Interrupted)
    } else {
        Ok(())
    }
}

/// While one of these lives, Ctrl-C only raises the flag: the holder polls it and stops cleanly.
#[derive(Debug)]
pub struct Cooperate(());

impl Cooperate {
    /// Starts cooperating.
    pub fn start() -> Cooperate {
        COOPERATING.fetch_add(1, Ordering::SeqCst);
        Cooperate(())
    }
}

impl Drop for Cooperate {
    fn drop(&mut self) {
        COOPERATING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A temporary file path: removed when dropped, and by the Ctrl-C handler.
#[derive(Debug)]
pub struct TempPath {
    path: PathBuf,
}

impl TempPath {
    /// Registers `path` (before the file is created, so no moment exists where it could leak).
    pub fn register(path: PathBuf) -> TempPath {
        if let Ok(mut paths) = TEMP_PATHS.lock() {
            paths.push(path.clone());
        }
        TempPath { path }
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        if let Ok(mut paths) = TEMP_PATHS.lock() {
            paths.retain(|p| p != &self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temp_path_is_removed_when_dropped_and_unregistered() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.tmp");
        {
            let guard = TempPath::register(path.clone());
            std::fs::write(guard.path(), b"data").unwrap();
            assert!(TEMP_PATHS.lock().unwrap().contains(&path));
        }
        assert!(!path.exists());
        assert!(!TEMP_PATHS.lock().unwrap().contains(&path));
    }
}
