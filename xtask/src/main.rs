//! gpufare's build and test driver (`cargo xtask ...`), so a fresh machine needs only Rust,
//! Node and Python.
//!
//! - `dist`  builds the site: the web crate for wasm32, wasm-bindgen as a library, the static files.
//! - `serve` builds the site and serves it on a printed localhost URL.
//! - `test`  installs what tests need (wasm target, Chromium, ChromeDriver, npm packages) and runs
//!   every test: formatting, clippy, native tests, wasm tests in Chromium, browser end-to-end.
//! - `e2e`   only the browser end-to-end tests, optionally those matching a name pattern.
//! - `fuzz`  runs every fuzz target (cargo fuzz): for SECONDS each, or the fixed-seed pass.
//! - `layers` checks that the modules of the model, the CLI and the site import only from the
//!   layers below them, with no circles.
//! - `bench` runs every speed benchmark (native, wasm in Node and Chromium, the site's recompute,
//!   growing catalogs) and prints one table; `--write-readme` puts it in the README.

mod bench;
mod dist;
mod fuzz;
mod layers;
mod prereq;
mod serve;
mod test;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  dist  [--out DIR]            build the static site into DIR (default: dist/)
  serve [--port N] [--no-build] [--out DIR]
                               build the site into DIR (default: dist/) and serve it on
                               http://127.0.0.1:N/ (default 8080), gzipped as a web host would
  test                         install test prerequisites and run every test
  e2e [PATTERN]                only the browser tests (those whose name matches PATTERN)
  fuzz [SECONDS]               run every fuzz target for SECONDS each (random seed); without
                               SECONDS, the fixed-seed pass of 100,000 inputs the tests run
  layers                       check that core, the CLI and the site import only downward, with no circles
  schemas                      regenerate the JSON Schemas in public/schema/ and examples/ from core
  bench [--quick] [--write-readme] [--only scale|first-answer]
                               run every speed benchmark (native, wasm in Node and Chromium, the
                               site's recompute, catalogs of 100 to 10,000 offers) and print one
                               table; --quick takes fewer samples, --write-readme puts the table
                               in README.md's performance section, --only PART runs one part
                               (scale: the growing catalogs; first-answer: the first answer
                               against the plan)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// `--out DIR` of `dist` and `serve`: where the site is built (default: dist/).
fn out_dir(args: &[String], root: &Path) -> PathBuf {
    flag_value(args, "--out")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("dist"))
}

fn run(args: &[String]) -> Result<()> {
    let root = workspace_root();
    std::env::set_current_dir(&root).with_context(|| format!("cannot enter {}", root.display()))?;
    match args.first().map(String::as_str) {
        Some("dist") => {
            let out = out_dir(args, &root);
            dist::build(&root, &out)
        }
        Some("serve") => {
            let port: u16 = match flag_value(args, "--port") {
                Some(p) => p
                    .parse()
                    .with_context(|| format!("--port {p}: not a port number"))?,
                None => 8080,
            };
            let out = out_dir(args, &root);
            if !args.iter().any(|a| a == "--no-build") {
                dist::build(&root, &out)?;
            }
            serve::serve_forever(&out, port)
        }
        Some("test") => test::run_all(&root),
        Some("e2e") => test::run_e2e(&root, args.get(1).map(String::as_str)),
        Some("schemas") => write_schemas(&root),
        Some("fuzz") => match args.get(1) {
            None => fuzz::run(&root, fuzz::Budget::Runs(fuzz::FIXED_RUNS)),
            Some(s) => {
                let seconds: u64 = s
                    .parse()
                    .with_context(|| format!("fuzz {s}: not a number of seconds"))?;
                fuzz::run(&root, fuzz::Budget::Seconds(seconds))
            }
        },
        Some("layers") => layers::run(&root),
        Some("bench") => bench::run(&root, &bench::Options::parse(&args[1..])?),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown command {other:?}\n\n{USAGE}"),
    }
}

/// Writes every document's JSON Schema under `public/schema/`.
fn write_schemas(root: &Path) -> Result<()> {
    let dir = root.join("public/schema");
    std::fs::create_dir_all(&dir)?;
    for name in gpufare_core::schema::SCHEMAS {
        let text = gpufare_core::schema::schema_json(name).context("unknown schema")?;
        let path = dir.join(format!("{name}.schema.json"));
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("==> wrote {}", path.display());
    }
    // One example task file per preset, so `gpufare plan --task examples/<preset>.json` works.
    let examples = root.join("examples");
    std::fs::create_dir_all(&examples)?;
    for id in gpufare_core::task::presets::PRESET_IDS {
        let task = gpufare_core::task::presets::preset(id).context("preset")?;
        let path = examples.join(format!("{id}.json"));
        std::fs::write(&path, format!("{}\n", serde_json::to_string_pretty(&task)?))?;
        eprintln!("==> wrote {}", path.display());
    }
    Ok(())
}

fn flag_value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The cargo that launched us (rustup's proxy otherwise).
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Runs a command to completion, failing with its name when it fails.
fn run_cmd(cmd: &mut Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    eprintln!("==> {shown}");
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}
