#!/usr/bin/env bash
# Checks the real probe against nvidia-smi on a machine with an NVIDIA driver and Rust.
#
#   bash probe-cli/gpu-check.sh [OUT_DIR]     (default OUT_DIR: target/gpu-check)
#
# Builds the probe, runs probe-cli/device-run.sh with it (the same prepared run used on lent GPU
# machines without Rust), then fails unless every fact nvidia-smi gave (name, total memory, PCIe
# link, clock and power limits, ECC and MIG mode) agrees with the profile: OUT_DIR/comparison.md
# holds the table. Readings that move between two reads (memory used, clocks, power, temperature)
# are shown side by side, not failed. Keep OUT_DIR's files under tests/profiles/ when it passes.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/gpu-check}
command -v nvidia-smi >/dev/null || { echo "gpu-check: nvidia-smi not found; run this on a machine with an NVIDIA driver" >&2; exit 2; }
cargo build --profile release-native -p gpufare-probe
bash probe-cli/device-run.sh --gpufare target/release-native/gpufare --out "$out"
python3 probe-cli/device/compare.py "$out/probe.json" "$out/nvidia-smi-fields.csv" \
  --apps "$out/nvidia-smi-apps.csv" --specs core/data/gpu-specs.csv --strict > /dev/null \
  || { echo "gpu-check: FAILED: see $out/comparison.md" >&2; exit 1; }
echo "gpu-check: OK (every fact agrees with nvidia-smi; table in $out/comparison.md)"
