//! wasm-bindgen's test runner, built from the workspace so no `cargo install` is needed.
//!
//! `cargo xtask test` points `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER` at this binary; it then
//! runs `#[wasm_bindgen_test]` functions in headless Chromium through ChromeDriver.

fn main() -> anyhow::Result<()> {
    wasm_bindgen_cli::wasm_bindgen_test_runner::run_cli_with_args(std::env::args_os())
}
