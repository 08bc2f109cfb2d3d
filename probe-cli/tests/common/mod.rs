//! What the command-line tests share: the binary, running it, its output as text, scratch
//! directories and the repository's root. Each test file takes what it needs (`mod common;`).
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `gpufare` binary under test.
pub fn gpufare() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
}

/// Runs `cmd` with no standard input and collects its output.
pub fn run(cmd: &mut Command) -> Output {
    cmd.stdin(Stdio::null()).output().expect("the command runs")
}

/// Bytes as text, invalid UTF-8 replaced.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh directory under the target directory (on the build disk, where O_DIRECT works, not
/// a tmpfs /tmp), removed when dropped.
pub fn scratch(name: &str) -> tempfile::TempDir {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    fs::create_dir_all(&base).unwrap();
    tempfile::Builder::new()
        .prefix(name)
        .tempdir_in(base)
        .unwrap()
}

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}
