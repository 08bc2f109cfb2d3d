//! Ctrl-C, SIGTERM and SIGHUP: one handler for the whole program, installed by `main`.
//!
//! The `ctrlc` crate (with its `termination` feature) runs [`on_interrupt`] on its own thread for
//! all three signals; the signal handler itself only wakes that thread, so nothing here has to be
//! async-signal-safe. (`signal-hook` would tell the signals apart; it is not used because every
//! signal gets the same treatment here and `ctrlc` was already the program's dependency.)
//!
//! Temporary files are registered here while they exist ([`TempPath`]); on a signal the handler
//! removes every one of them at once (Linux keeps an open file usable after it is unlinked, so
//! this is safe while a benchmark still has it open) and raises a flag. Work that polls the flag
//! (the disk benchmark, `gpufare run`) holds a [`Cooperate`] guard and stops at its next check,
//! cleaning up itself and returning [`Interrupted`]; anywhere else, and on a second signal, the
//! process exits at once with status 130, after sending SIGKILL to the process group of the
//! command `gpufare run` was running ([`CommandGroup`]), so nothing of it outlives gpufare.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

/// Exit status after Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, as shells report a Ctrl-C).
pub const EXIT_INTERRUPTED: u8 = 130;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static COOPERATING: AtomicUsize = AtomicUsize::new(0);
static TEMP_PATHS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// The process group of the command `gpufare run` is running, or 0.
static COMMAND_GROUP: AtomicI32 = AtomicI32::new(0);

/// The error a measurement returns when a signal (Ctrl-C, SIGTERM, SIGHUP) stopped it.
#[derive(Debug, Clone, Copy)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted (Ctrl-C, SIGTERM or SIGHUP)")
    }
}

impl std::error::Error for Interrupted {}

/// Installs the handler; call once, first thing in `main`.
pub fn install() {
    // If a handler cannot be installed (another library took the signals), they keep their
    // default behaviour; the temp files' own guards still clean up on every other exit path.
    let _ = ctrlc::set_handler(on_interrupt);
}

fn on_interrupt() {
    let again = INTERRUPTED.swap(true, Ordering::SeqCst);
    remove_registered();
    if again || COOPERATING.load(Ordering::SeqCst) == 0 {
        let group = COMMAND_GROUP.load(Ordering::SeqCst);
        if group > 0 {
            signal_group(group, libc::SIGKILL);
        }
        let _ = writeln!(std::io::stderr(), "gpufare: interrupted");
        std::process::exit(i32::from(EXIT_INTERRUPTED));
    }
}

/// Sends `sig` to every process of the group `pgid` (0 only asks whether one is left); true when
/// the group still had a process to receive it.
#[allow(unsafe_code)]
pub fn signal_group(pgid: i32, sig: libc::c_int) -> bool {
    if pgid <= 1 {
        return false;
    }
    // SAFETY: a plain system call with no memory passed. The group is the one `gpufare run`
    // started its command in (the command's pid); Linux reuses no pid while a process group of
    // that id still has a member, and the group is only signalled while its leader is unreaped
    // or, after that, while members remain — a reuse in between would need the pid space to wrap
    // around in that instant.
    unsafe { libc::kill(-pgid, sig) == 0 }
}

/// While one lives, the process group of `gpufare run`'s command is known to the handler, which
/// kills it when gpufare has to exit at once (a second signal).
#[derive(Debug)]
pub struct CommandGroup(());

impl CommandGroup {
    /// Records the group `pgid` (the command's pid, its group leader).
    pub fn register(pgid: i32) -> CommandGroup {
        COMMAND_GROUP.store(pgid, Ordering::SeqCst);
        CommandGroup(())
    }
}

impl Drop for CommandGroup {
    fn drop(&mut self) {
        COMMAND_GROUP.store(0, Ordering::SeqCst);
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

/// Whether Ctrl-C was pressed, or SIGTERM or SIGHUP received.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// `Err(Interrupted)` once a signal arrived.
pub fn check() -> Result<(), Interrupted> {
    if interrupted() {
        Err(Interrupted)
    } else {
        Ok(())
    }
}

/// While one of these lives, a signal only raises the flag: the holder polls it and stops cleanly.
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

/// A temporary file path: removed when dropped, and by the signal handler.
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
