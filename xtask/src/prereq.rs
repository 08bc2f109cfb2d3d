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

/// The toolchain that builds the site's release wasm: a nightly with the standard library's
/// sources, so std itself is rebuilt for size (see `dist::build`). `GPUFARE_WASM_TOOLCHAIN`
/// names another (`stable` builds without the size options). Returns `None`, with a warning,
/// when no such nightly is installed and rustup cannot fetch one (no network): the site is then
/// built with the stable toolchain and comes out about a tenth larger.
pub fn size_toolchain() -> Option<String> {
    let wanted = std::env::var("GPUFARE_WASM_TOOLCHAIN").unwrap_or_else(|_| "nightly".into());
    if wanted == "stable" {
        return None;
    }
    let has_rust_src = || {
        Command::new("rustup")
            .args(["component", "list", "--installed", "--toolchain", &wanted])
            .output()
            .is_ok_and(|o| {
                o.status.success()
                    && String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .any(|l| l.trim() == "rust-src")
            })
    };
    if has_rust_src() {
        return Some(wanted);
    }
    let installed = Command::new("rustup")
        .args(["run", &wanted, "rustc", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let fetched = if installed {
        run_cmd(Command::new("rustup").args([
            "component",
            "add",
            "rust-src",
            "--toolchain",
            &wanted,
        ]))
    } else {
        run_cmd(Command::new("rustup").args([
            "toolchain",
            "install",
            &wanted,
            "--profile",
            "minimal",
            "--component",
            "rust-src",
        ]))
    };
    match fetched {
        Ok(()) if has_rust_src() => Some(wanted),
        _ => {
            eprintln!(
                "warning: no {wanted} toolchain with rust-src; building the site with stable \
                 (works the same, wasm about 10% larger)"
            );
            None
        }
    }
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

/// Where the test command installs the Python packages the tests use (`pip install --target`):
/// inside `target/`, so nothing outside the checkout changes and `cargo clean` removes them.
pub fn python_dir(root: &Path) -> std::path::PathBuf {
    root.join("target/python")
}

/// Installs pinned Python packages from PyPI into [`python_dir`] when their module is missing:
/// `(package, version, module)`.
pub fn python_packages(root: &Path, packages: &[(&str, &str, &str)]) -> Result<()> {
    let dir = python_dir(root);
    let missing: Vec<String> = packages
        .iter()
        .filter(|(_, _, module)| !dir.join(module).exists())
        .map(|(name, version, _)| format!("{name}=={version}"))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let has_pip = Command::new("python3")
        .args(["-m", "pip", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pip {
        debian_packages(&[(
            "python3-pip",
            "/usr/lib/python3/dist-packages/pip/__init__.py",
        )])?;
    }
    run_cmd(
        Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-warn-script-location",
                "--target",
            ])
            .arg(&dir)
            .args(&missing),
    )
}
