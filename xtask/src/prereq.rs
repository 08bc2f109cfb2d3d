//! Installing what the build and the tests need, skipping whatever is already there.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::run_cmd;

/// Adds the wasm32 target through rustup unless it is installed.
pub fn wasm_target() -> Result<()> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .context("cannot run rustup; gpufare needs the Rust toolchain from rustup")?;
    if String::from_utf8_lossy(&installed.stdout)
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        return Ok(());
    }
    run_cmd(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
}

/// Installs Debian packages whose marker binaries are missing (`apt-get`, as root or via sudo).
pub fn debian_packages(wanted: &[(&str, &str)]) -> Result<()> {
    let missing: Vec<&str> = wanted
        .iter()
        .filter(|(_, binary)| !Path::new(binary).exists())
        .map(|(package, _)| *package)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let as_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0"))
        .unwrap_or(false);
    let apt = |args: &[&str]| {
        let mut cmd = if as_root {
            Command::new("apt-get")
        } else {
            Command::new("sudo")
        };
        if !as_root {
            cmd.arg("apt-get");
        }
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    run_cmd(&mut apt(&["update", "-q"]))?;
    let mut install = apt(&["install", "-y", "-q", "--no-install-recommends"]);
    install.args(&missing);
    run_cmd(&mut install)?;
    for (package, binary) in wanted {
        if !Path::new(binary).exists() {
            bail!("package {package} installed but {binary} is still missing");
        }
    }
    Ok(())
}

/// Installs the end-to-end tests' npm packages exactly as locked.
pub fn npm_packages(dir: &Path) -> Result<()> {
    run_cmd(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(dir),
    )
}
