//! Building the static site: web crate -> wasm32 -> wasm-bindgen -> `dist/` with the static files.

use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use wasm_bindgen_cli_support::Bindgen;

use crate::{cargo, prereq, run_cmd};

/// Builds the release site into `out`, replacing what was there.
pub fn build(root: &Path, out: &Path) -> Result<()> {
    let args = [
        "build",
        "--release",
        "--package",
        "gpufare-web",
        "--target",
        "wasm32-unknown-unknown",
    ];
    let sized = match prereq::size_toolchain() {
        Some(toolchain) => {
            // std rebuilt with its size-optimised code paths, and panics that trap at once
            // instead of formatting a message with its source location: together the gzipped
            // wasm shrinks by about 43 KiB (measured with bench/site-metrics.mjs). The cost is
            // that a panic (there should be none) shows as "unreachable" in the console.
            let mut cmd = Command::new("rustup");
            cmd.args(["run", &toolchain, "cargo"])
                .args(args)
                .args([
                    "-Zbuild-std=std,panic_abort",
                    "-Zbuild-std-features=optimize_for_size",
                ])
                .env(
                    "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
                    "--cfg erase_components -Zunstable-options -Cpanic=immediate-abort \
                     -Zlocation-detail=none",
                )
                // The stable cargo that runs xtask leaves its own paths behind; drop them.
                .env_remove("RUSTC")
                .env_remove("RUSTDOC")
                .env_remove("RUSTUP_TOOLCHAIN");
            match run_cmd(&mut cmd) {
                Ok(()) => true,
                // A toolchain the user named must work; the default nightly may have moved on
                // (unstable flags change), and the site still builds with stable.
                Err(e) if std::env::var_os("GPUFARE_WASM_TOOLCHAIN").is_some() => {
                    return Err(e.context(format!(
                        "the size-optimised site build with {toolchain} failed; \
                         GPUFARE_WASM_TOOLCHAIN=stable builds it with stable instead"
                    )));
                }
                Err(e) => {
                    eprintln!(
                        "warning: the size-optimised site build with {toolchain} failed ({e:#}); \
                         building with stable instead (wasm about 10% larger)"
                    );
                    false
                }
            }
        }
        None => false,
    };
    if !sized {
        prereq::wasm_target()?;
        run_cmd(cargo().args(args))?;
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let wasm = target_dir.join("wasm32-unknown-unknown/release/gpufare-web.wasm");

    // Assemble in a sibling folder, then swap it in, so `out` is never half-built.
    let staging = out.with_extension("staging");
    if staging.exists() {
        fs::remove_dir_all(&staging)
            .with_context(|| format!("cannot clear {}", staging.display()))?;
    }
    fs::create_dir_all(&staging)?;
    Bindgen::new()
        .input_path(&wasm)
        .out_name("gpufare_web")
        .web(true)?
        // The library's default differs from the CLI's; without this init() gets no default URL.
        .omit_default_module_path(false)
        .typescript(false)
        // GPUFARE_KEEP_NAMES=1 keeps function names, for profiling the site (bench/README.md).
        .remove_name_section(std::env::var_os("GPUFARE_KEEP_NAMES").is_none())
        .remove_producers_section(true)
        .generate(&staging)
        .with_context(|| format!("wasm-bindgen failed on {}", wasm.display()))?;
    copy_dir(&root.join("public"), &staging)?;
    for file in ["index.html", "main.js"] {
        fs::copy(root.join("web").join(file), staging.join(file))
            .with_context(|| format!("cannot copy web/{file}"))?;
    }
    if out.exists() {
        fs::remove_dir_all(out).with_context(|| format!("cannot replace {}", out.display()))?;
    }
    fs::rename(&staging, out)?;
    let size = fs::metadata(out.join("gpufare_web_bg.wasm"))
        .map(|m| m.len())
        .unwrap_or(0);
    eprintln!(
        "==> site built in {} (wasm {} KiB)",
        out.display(),
        size / 1024
    );
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    for entry in fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            fs::create_dir_all(&target)?;
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)
                .with_context(|| format!("cannot copy {}", entry.path().display()))?;
        }
    }
    Ok(())
}
