#!/usr/bin/env bash
# Checks the real probe against nvidia-smi on a machine with an NVIDIA driver.
#
#   bash probe-cli/gpu-check.sh [OUT_DIR]     (default OUT_DIR: target/gpu-check)
#
# Builds the probe, runs `gpufare probe --bench`, asks nvidia-smi for
# name,memory.total,memory.used,utilization.gpu, and fails unless every GPU's name and total
# memory agree (memory.used and utilisation are printed side by side; they move between the two
# reads). Keep OUT_DIR/profile.json as a fixture under tests/profiles/ when it passes.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/gpu-check}
mkdir -p "$out"
command -v nvidia-smi >/dev/null || { echo "gpu-check: nvidia-smi not found; run this on a machine with an NVIDIA driver" >&2; exit 2; }
cargo build --profile release-native -p gpufare-probe
target/release-native/gpufare probe --bench --duration "${GPUFARE_CHECK_SECONDS:-10}" -o "$out/profile.json"
nvidia-smi --query-gpu=name,memory.total,memory.used,utilization.gpu --format=csv,noheader,nounits > "$out/nvidia-smi.csv"
nvidia-smi -q > "$out/nvidia-smi-q.txt" || true
python3 - "$out/profile.json" "$out/nvidia-smi.csv" <<'PY'
import csv, json, sys
profile = json.load(open(sys.argv[1]))
rows = [[c.strip() for c in r] for r in csv.reader(open(sys.argv[2]))]
gpus = profile["gpus"]
problems = []
if len(gpus) != len(rows):
    problems.append(f"probe lists {len(gpus)} GPUs, nvidia-smi {len(rows)}")
for g, (name, total, used, util) in zip(gpus, rows):
    mib = g.get("memory_total_bytes", 0) / 2**20
    print(f"GPU {g['index']}: probe {g['name']!r} {mib:.0f} MiB total, {g.get('memory_used_bytes', 0) / 2**20:.0f} MiB used, "
          f"{g.get('utilization_gpu_pct')} % | nvidia-smi {name!r} {total} MiB total, {used} MiB used, {util} %")
    if g["name"] != name:
        problems.append(f"GPU {g['index']}: name {g['name']!r} != {name!r}")
    if abs(mib - float(total)) > 1:
        problems.append(f"GPU {g['index']}: memory.total {mib:.0f} MiB != {total} MiB")
for v in profile.get("verdicts", []):
    print(f"verdict: {v['kind']} {v['level']} {v['finding']} {[e['key'] + '=' + e['value'] for e in v['evidence']]}")
for b in profile.get("benchmarks", []):
    s = (b.get("gemm_ms") or {}).get("summary") or {}
    print(f"bench GPU {b['index']}: H2D {b.get('h2d_gbs')} GB/s, GEMM {b.get('gemm_size')} P50 {s.get('p50')} ms P99 {s.get('p99')} ms, {b.get('achieved_tflops')} TFLOPS, notes {b.get('notes')}")
if problems:
    print("gpu-check: FAILED\n  " + "\n  ".join(problems))
    sys.exit(1)
print(f"gpu-check: OK ({len(gpus)} GPU(s) agree with nvidia-smi)")
PY
