//! `cargo xtask test`: every test gpufare has, in the order that fails fastest.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::{dist, prereq, run_cmd, serve};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Installs prerequisites, then runs lint, native, wasm and end-to-end tests.
pub fn run_all(root: &Path) -> Result<()> {
    install(root)?;
    checks_and_unit_tests(root)?;
    // Every parser and the pricing on parsed input, 100,000 fixed-seed inputs: no panic, no hang.
    crate::fuzz::run(root, crate::fuzz::Budget::Runs(crate::fuzz::FIXED_RUNS))?;
    end_to_end(root, None)
}

/// Only the browser tests (after installing what they need); `filter` picks tests by name.
pub fn run_e2e(root: &Path, filter: Option<&str>) -> Result<()> {
    install(root)?;
    end_to_end(root, filter)
}

/// Cargo as the test command runs it: without incremental compilation, whose caches would double the
/// size of a fresh clone's `target/` and buy nothing on a one-off build.
fn cargo() -> Command {
    let mut cmd = crate::cargo();
    cmd.env("CARGO_INCREMENTAL", "0");
    cmd
}

fn install(root: &Path) -> Result<()> {
    prereq::wasm_target()?;
    prereq::debian_packages(&[
        ("chromium", CHROMIUM),
        ("chromium-driver", CHROMEDRIVER),
        ("iperf3", "/usr/bin/iperf3"),
        ("fio", "/usr/bin/fio"),
        // A real one-node Slurm cluster for the fleet test (probe-cli/tests/fleet.rs).
        ("slurm-wlm", "/usr/sbin/slurmctld"),
        ("munge", "/usr/sbin/munged"),
        // Slurm's accounting (slurmdbd on MariaDB), for the `sacct` side of `fleet slurm --wait`.
        ("slurmdbd", "/usr/sbin/slurmdbd"),
        ("mariadb-server", "/usr/sbin/mariadbd"),
        // A CJK font, so screenshots of the Chinese page show characters, not boxes.
        (
            "fonts-wqy-microhei",
            "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
        ),
    ])?;
    // The official Kubernetes OpenAPI schemas, to check the manifests `gpufare fleet k8s` writes
    // (probe-cli/tests/k8s_schema.rs).
    prereq::python_packages(
        root,
        &[("kubernetes-validate", "1.37.0", "kubernetes_validate")],
    )?;
    prereq::npm_packages(&root.join("tests/e2e"))
}

fn checks_and_unit_tests(root: &Path) -> Result<()> {
    run_cmd(cargo().args(["fmt", "--all", "--", "--check"]))?;
    crate::layers::run(root)?;
    run_cmd(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    run_cmd(cargo().args([
        "clippy",
        "--package",
        "gpufare-web",
        "--package",
        "gpufare-core",
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "-D",
        "warnings",
    ]))?;

    run_cmd(cargo().args(["test", "--workspace", "--exclude", "gpufare-web"]))?;

    // The same golden vectors again, compiled to wasm32 and run in headless Chromium.
    run_cmd(cargo().args([
        "build",
        "--package",
        "xtask",
        "--bin",
        "wasm-bindgen-test-runner",
    ]))?;
    let runner = root.join("target/debug/wasm-bindgen-test-runner");
    run_cmd(
        cargo()
            .args([
                "test",
                "--package",
                "gpufare-core",
                "--target",
                "wasm32-unknown-unknown",
            ])
            .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", &runner)
            .env("CHROMEDRIVER", CHROMEDRIVER)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "120"),
    )?;

    Ok(())
}

/// End to end: the real probe writes a profile, the real site is built and served, and
/// Playwright drives Debian's Chromium through it.
fn end_to_end(root: &Path, filter: Option<&str>) -> Result<()> {
    let e2e = root.join("tests/e2e");
    let work = root.join("target/e2e");
    fs::create_dir_all(&work)?;
    run_cmd(cargo().args(["build", "--package", "gpufare-probe"]))?;
    let profile = work.join("probe-profile.json");
    // The profile the browser imports has real disk and network figures: a small O_DIRECT disk
    // test in target/e2e and iperf3 plus connect times against a Debian `iperf3 -s` on loopback.
    let disk_dir = work.join("disk");
    fs::create_dir_all(&disk_dir)?;
    let port = free_port()?;
    let iperf = IperfServer::start(port)?;
    let server = format!("127.0.0.1:{port}");
    let probed = run_cmd(
        Command::new(root.join("target/debug/gpufare"))
            .args(["probe", "--quiet", "--duration", "0", "--disk-dir"])
            .arg(&disk_dir)
            .args(["--disk-size", "64M", "--disk-seconds", "1"])
            .args([
                "--iperf3",
                &server,
                "--iperf3-seconds",
                "1",
                "--iperf3-streams",
                "1",
            ])
            .args(["--rtt", &server, "-o"])
            .arg(&profile),
    );
    drop(iperf);
    probed?;
    let site = work.join("dist");
    dist::build(root, &site)?;
    let addr = serve::spawn(&site, 0)?;
    eprintln!("==> end-to-end tests against http://{addr}/");
    let mut node = Command::new("node");
    node.args(["--test", "--test-concurrency=1"]);
    if let Some(pattern) = filter {
        node.arg(format!("--test-name-pattern={pattern}"));
    }
    // Every test file of tests/e2e, in name order.
    let mut files: Vec<PathBuf> = fs::read_dir(&e2e)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    run_cmd(
        node.args(&files)
            .env("GPUFARE_URL", format!("http://{addr}/"))
            .env("GPUFARE_PROFILE", &profile)
            .env("GPUFARE_DIST", &site)
            .env("GPUFARE_BIN", root.join("target/debug/gpufare"))
            .env("GPUFARE_ARTIFACTS", &work)
            .env("CHROMIUM", CHROMIUM),
    )
    .context("end-to-end tests failed")
}

/// A port nobody listens on now (the OS picks it; a race with another program is unlikely).
fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// `iperf3 -s` on loopback for as long as the value lives.
struct IperfServer(std::process::Child);

impl IperfServer {
    fn start(port: u16) -> Result<Self> {
        let child = Command::new("iperf3")
            .args(["-s", "--bind", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .spawn()
            .context("cannot start iperf3 -s (is Debian's iperf3 installed?)")?;
        let server = IperfServer(child);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if std::time::Instant::now() > deadline {
                anyhow::bail!("iperf3 -s did not start listening on port {port}");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Ok(server)
    }
}

impl Drop for IperfServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
