//! Building the static site: web crate -> wasm32 -> wasm-bindgen -> `dist/` with the static files.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};
use wasm_bindgen_cli_support::Bindgen;

use crate::{cargo, prereq, run_cmd};

/// The flags of every release wasm build: the `erase_components` cfg of `.cargo/config.toml`
/// (an environment variable replaces that list, so it is repeated here), and relocations kept
/// in the linked wasm, which the splitter needs to move functions and data between modules.
const RUSTFLAGS: &str = "--cfg erase_components -Clink-arg=--emit-relocs";

/// Splits the linked wasm at its `#[wasm_split]` points: the first module (returned, still to
/// go through wasm-bindgen) and, written into `out`, one wasm file per lazily loaded chunk and
/// the `__wasm_split.js` that fetches them on first use.
fn split(wasm: &Path, out: &Path) -> Result<(std::path::PathBuf, Vec<String>)> {
    let input = fs::read(wasm).with_context(|| format!("cannot read {}", wasm.display()))?;
    let first = wasm.with_extension("first.wasm");
    let mut options = wasm_split_cli_support::Options::new(&input);
    options.output_dir = out;
    options.main_out_path = &first;
    options.main_module = "./gpufare_web.js";
    let link = format!("./{}", options_link_file());
    options.link_name = &link;
    let done = wasm_split_cli_support::transform(options)
        .map_err(|e| anyhow::anyhow!("{e:?}"))
        .with_context(|| format!("cannot split {}", wasm.display()))?;
    let mut chunks = vec![options_link_file()];
    for chunk in &done.split_modules {
        // GPUFARE_KEEP_NAMES=1 keeps function names, as for the first module.
        if std::env::var_os("GPUFARE_KEEP_NAMES").is_none() {
            strip_names(chunk)?;
        }
        let size = fs::metadata(chunk).map(|m| m.len()).unwrap_or(0);
        eprintln!(
            "==> lazily loaded chunk {} ({} KiB)",
            chunk.display(),
            size / 1024
        );
        let name = chunk.file_name().and_then(|n| n.to_str());
        chunks.push(name.context("a chunk's file name is not UTF-8")?.to_owned());
    }
    chunks.sort();
    Ok((first, chunks))
}

/// Drops the function-name and producer sections from a chunk the splitter wrote (wasm-bindgen
/// does this for the first module): they are for debugging only and were half of its bytes.
fn strip_names(chunk: &Path) -> Result<()> {
    let bytes = fs::read(chunk).with_context(|| format!("cannot read {}", chunk.display()))?;
    let mut module = wasm_encoder::Module::new();
    for payload in wasmparser::Parser::new(0).parse_all(&bytes) {
        let payload = payload.with_context(|| format!("{} is not valid wasm", chunk.display()))?;
        if let wasmparser::Payload::CustomSection(custom) = &payload
            && matches!(custom.name(), "name" | "producers")
        {
            continue;
        }
        if let Some((id, range)) = payload.as_section() {
            let (start, end) = (usize::try_from(range.start)?, usize::try_from(range.end)?);
            module.section(&wasm_encoder::RawSection {
                id,
                data: &bytes[start..end],
            });
        }
    }
    fs::write(chunk, module.finish()).with_context(|| format!("cannot write {}", chunk.display()))
}

/// The loader script the split wasm imports.
fn options_link_file() -> String {
    "__wasm_split.js".to_owned()
}

/// Lists `chunks` in the service worker's `CHUNKS`, so it keeps them for offline use too.
fn list_chunks_in_worker(sw: &Path, chunks: &[String]) -> Result<()> {
    let text = fs::read_to_string(sw).with_context(|| format!("cannot read {}", sw.display()))?;
    let marker = "const CHUNKS = [];";
    anyhow::ensure!(text.contains(marker), "{} lacks `{marker}`", sw.display());
    let list = chunks
        .iter()
        .map(|c| format!("'{c}'"))
        .collect::<Vec<_>>()
        .join(", ");
    fs::write(
        sw,
        text.replace(marker, &format!("const CHUNKS = [{list}];")),
    )
    .with_context(|| format!("cannot write {}", sw.display()))
}

/// Builds the release site into `out`, replacing what was there.
pub fn build(root: &Path, out: &Path) -> Result<()> {
    let args = [
        "build",
        "--profile",
        "wasm-release",
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
            let mut cmd = size_build(&toolchain, &args);
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
        run_cmd(
            cargo()
                .args(args)
                .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS", RUSTFLAGS),
        )?;
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let wasm = target_dir.join("wasm32-unknown-unknown/wasm-release/gpufare-web.wasm");

    // Assemble in a sibling folder, then swap it in, so `out` is never half-built.
    let staging = out.with_extension("staging");
    if staging.exists() {
        fs::remove_dir_all(&staging)
            .with_context(|| format!("cannot clear {}", staging.display()))?;
    }
    fs::create_dir_all(&staging)?;
    let (first, chunks) = split(&wasm, &staging)?;
    Bindgen::new()
        .input_path(&first)
        // The chunks share the first module's memory, table and stack pointer through these.
        .keep_lld_exports(true)
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
    // The plan worker: its own module, built for speed, loaded after the page has rendered.
    let worker = speed_build(&target_dir, "gpufare-plan-worker", "gpufare_plan_worker")?;
    Bindgen::new()
        .input_path(&worker)
        .out_name("gpufare_plan")
        .web(true)?
        .omit_default_module_path(false)
        .typescript(false)
        .remove_name_section(std::env::var_os("GPUFARE_KEEP_NAMES").is_none())
        .remove_producers_section(true)
        .generate(&staging)
        .with_context(|| format!("wasm-bindgen failed on {}", worker.display()))?;
    copy_dir(&root.join("public"), &staging)?;
    list_chunks_in_worker(&staging.join("sw.js"), &chunks)?;
    for file in ["index.html", "main.js", "plan-worker.js"] {
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
    let worker_size = fs::metadata(out.join("gpufare_plan_bg.wasm"))
        .map(|m| m.len())
        .unwrap_or(0);
    eprintln!(
        "==> site built in {} (wasm {} KiB, plan worker {} KiB)",
        out.display(),
        size / 1024,
        worker_size / 1024
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

/// Builds the wasm library `package` (file name `lib`) the way the site's plan worker is built:
/// profile `wasm-worker` (opt-level 3, LTO) with the stable toolchain and its prebuilt std, which
/// is faster here than std rebuilt for size. Returns the linked wasm, for wasm-bindgen. The wasm
/// benchmark builds with it too, so it measures what the site's Monte Carlo runs.
pub(crate) fn speed_build(target_dir: &Path, package: &str, lib: &str) -> Result<PathBuf> {
    prereq::wasm_target()?;
    run_cmd(cargo().args([
        "build",
        "--profile",
        "wasm-worker",
        "--package",
        package,
        "--lib",
        "--target",
        "wasm32-unknown-unknown",
    ]))?;
    Ok(target_dir.join(format!("wasm32-unknown-unknown/wasm-worker/{lib}.wasm")))
}

/// `cargo build ARGS` with `toolchain` (a nightly), std rebuilt for size and panics that trap at
/// once: how the page's own wasm is built.
fn size_build(toolchain: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new("rustup");
    cmd.args(["run", toolchain, "cargo"])
        .args(args)
        .args([
            "-Zbuild-std=std,panic_abort",
            "-Zbuild-std-features=optimize_for_size",
        ])
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
            format!(
                "{RUSTFLAGS} -Zunstable-options -Cpanic=immediate-abort \
         -Zlocation-detail=none"
            ),
        )
        // The stable cargo that runs xtask leaves its own paths behind; drop them.
        .env_remove("RUSTC")
        .env_remove("RUSTDOC")
        .env_remove("RUSTUP_TOOLCHAIN");
    cmd
}
