#!/usr/bin/env bash
# How `gpufare fleet merge` and `gpufare fleet report` grow with the fleet: wall time and peak
# memory for 1,000, 3,000 and 10,000 profiles made from tests/profiles/ (each copy given its own
# host name and GPU UUIDs, so none is a duplicate).
#
#   bench/fleet.sh                  # builds gpufare (release) unless GPUFARE names a binary
#
# Prints one Markdown table row per size. Needs python3 and GNU time (/usr/bin/time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "${GPUFARE:-}" ]]; then
    (cd "$root" && cargo build --quiet --release -p gpufare-probe)
    GPUFARE=$root/target/release/gpufare
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_fleet() { # N DIR: N profile files
    python3 - "$1" "$2" "$root/tests/profiles" <<'PY'
import json, os, sys
n, out, src = int(sys.argv[1]), sys.argv[2], sys.argv[3]
bases = [json.load(open(os.path.join(src, f))) for f in sorted(os.listdir(src)) if f.endswith(".json")]
os.makedirs(out, exist_ok=True)
for i in range(n):
    p = json.loads(json.dumps(bases[i % len(bases)]))
    p.setdefault("host", {})["hostname"] = f"node-{i:05d}"
    for j, g in enumerate(p.get("gpus", [])):
        g["uuid"] = f"GPU-{i:05d}-{j}"
    with open(os.path.join(out, f"node-{i:05d}.json"), "w") as f:
        json.dump(p, f)
PY
}

measure() { # LABEL CMD...: prints "seconds peak_mb"
    /usr/bin/time -f "%e %M" -o "$work/time" "${@:2}" > /dev/null 2>&1 || true
    read -r secs kb < "$work/time"
    printf '%s %s' "$secs" "$((kb / 1024))"
}

echo "| profiles | merge s | merge peak MB | report s | report peak MB |"
echo "|---|---|---|---|---|"
for n in 1000 3000 10000; do
    make_fleet "$n" "$work/p$n"
    read -r ms mm <<< "$(measure merge "$GPUFARE" fleet merge "$work/p$n" -o "$work/f$n.jsonl")"
    read -r rs rm <<< "$(measure report "$GPUFARE" fleet report "$work/f$n.jsonl" --format json -o "$work/r$n.json")"
    echo "| $n | $ms | $mm | $rs | $rm |"
done
