#!/usr/bin/env bash
# One prepared run of the probe on a GPU machine, everything kept in one folder.
#
#   bash probe-cli/device-run.sh --gpufare BIN --out DIR [--disk-dir DIR]
#
# Made for a machine lent for a few minutes with no Rust on it: build `gpufare` elsewhere, copy
# it over, run this once (it takes about two minutes, never more than five), keep DIR. In order:
#
#   1. what the machine is (kernel, container runtime hints, driver files, Python and PyTorch);
#   2. nvidia-smi -q, one --query-gpu call per field, --query-compute-apps and topo -m, before
#      anything of ours loads the GPU;
#   3. gpufare probe --bench --duration 10 --disk-dir DIR --redact (the probe gets no
#      LD_LIBRARY_PATH help: finding the driver by itself is part of the test; if it finds no GPU
#      while nvidia-smi does, a second short probe with LD_LIBRARY_PATH tells the two apart);
#   4. gpufare run --repeat 3 --step-regex ... around probe-cli/device/train_loop.py;
#   5. nvidia-smi's fields again, and probe-cli/device/compare.py: the field-by-field table.
#
# Every step has its own time limit; a step that fails or is missing (no nvidia-smi, no PyTorch,
# no GPU) is logged and the rest still runs. The script ends with what it could not do and exits
# 0 when it ran to the end (2 on a usage error). Written to DIR, all redacted (host name, GPU and
# MIG UUIDs, serial numbers and PCI bus ids replaced): device-run.log, summary.txt, machine.txt,
# nvidia-smi-q.txt, nvidia-smi-fields.csv, nvidia-smi-fields-after.csv, nvidia-smi-apps.csv,
# nvidia-smi-topo.txt, probe.json, run.json, comparison.md, and probe-ld-library-path.json when
# step 3 needed it. Unredacted readings stay in a private temporary folder removed at exit.
#
# Shorter runs for tests: GPUFARE_DEVICE_SECONDS (sampling, default 10), GPUFARE_DEVICE_DISK_SIZE
# (default 1G), GPUFARE_DEVICE_DISK_SECONDS (default 3), GPUFARE_DEVICE_TRAIN_STEPS (default 100).
set -uo pipefail

usage() {
  echo "usage: $0 --gpufare BIN --out DIR [--disk-dir DIR]" >&2
  exit 2
}

gpufare="" out="" disk_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gpufare) [ $# -ge 2 ] || usage; gpufare=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --disk-dir) [ $# -ge 2 ] || usage; disk_dir=$2; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "device-run: unknown argument: $1" >&2; usage ;;
  esac
done
[ -n "$gpufare" ] && [ -n "$out" ] || usage
[ -x "$gpufare" ] || { echo "device-run: --gpufare $gpufare is not an executable file" >&2; exit 2; }
gpufare=$(cd "$(dirname "$gpufare")" && pwd)/$(basename "$gpufare")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" || { echo "device-run: cannot create --out $out" >&2; exit 2; }
out=$(cd "$out" && pwd)

seconds=${GPUFARE_DEVICE_SECONDS:-10}
disk_size=${GPUFARE_DEVICE_DISK_SIZE:-1G}
disk_seconds=${GPUFARE_DEVICE_DISK_SECONDS:-3}
train_steps=${GPUFARE_DEVICE_TRAIN_STEPS:-100}
step_regex='step [0-9]+ time: ([0-9.]+) ms'

raw=$(mktemp -d "${TMPDIR:-/tmp}/gpufare-device.XXXXXX") || { echo "device-run: no temporary folder" >&2; exit 2; }
made_disk_dir=""
if [ -z "$disk_dir" ]; then
  # Local disk, not /tmp (often tmpfs, i.e. memory): a fresh folder beside the output.
  disk_dir="$out/.disk-test"
  made_disk_dir=$disk_dir
fi
cleanup() {
  rm -rf "$raw"
  [ -n "$made_disk_dir" ] && rm -rf "$made_disk_dir"
}
trap cleanup EXIT
trap 'echo "device-run: interrupted" >&2; exit 130' INT TERM HUP
mkdir -p "$disk_dir" 2>/dev/null

log="$out/device-run.log"
: > "$log"
exec > >(tee -a "$log") 2>&1
tee_pid=$!
couldnt=()
summary=()
say() { echo "[device-run $(date -u +%H:%M:%S)] $*"; }
missed() { couldnt+=("$*"); say "COULD NOT: $*"; }

# Runs a step with a time limit and records its exit status and wall time.
# step NAME LIMIT_S COMMAND...
step() {
  local name=$1 limit=$2
  shift 2
  local t0 t1 rc
  say "start: $name (limit ${limit} s): $*"
  t0=$(date +%s.%N)
  timeout --kill-after=10 "$limit" "$@"
  rc=$?
  t1=$(date +%s.%N)
  local wall
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  [ "$rc" = 124 ] && say "$name: ran past its ${limit} s limit and was stopped"
  say "end: $name: exit $rc after $wall s"
  summary+=("$name: exit $rc, $wall s")
  return "$rc"
}

say "gpufare device run; output folder $out"
say "started $(date -u +%Y-%m-%dT%H:%M:%SZ)"

# --- 1. the machine -------------------------------------------------------------------------
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpufare: $("$gpufare" --version 2>&1)"
  echo "uname: $(uname -srm)"
  echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  echo "cpus: $(nproc 2>/dev/null)"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)"
  echo "user: $(id -u):$(id -g)"
  echo "LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-(unset)}"
  echo "CUDA_VISIBLE_DEVICES: ${CUDA_VISIBLE_DEVICES:-(unset)}"
  echo "NVIDIA_VISIBLE_DEVICES: ${NVIDIA_VISIBLE_DEVICES:-(unset)}"
  # gVisor reports an old kernel (4.4.0) and names itself in dmesg; record both hints.
  echo "dmesg_head: $(dmesg 2>/dev/null | head -2 | cut -c1-160 | tr '\n' ' ' || true)"
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/bin /usr/lib/x86_64-linux-gnu; do
    if [ -d "$d" ]; then
      echo "driver files in $d: $(ls "$d" 2>/dev/null | grep -E '^(libnvidia-ml|libcuda|nvidia-smi)' | tr '\n' ' ')"
    fi
  done
  echo "python3: $(python3 --version 2>&1)"
  echo "torch: $(python3 -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -1)"
  echo "disk_dir: $disk_dir on $(df -PT "$disk_dir" 2>/dev/null | awk 'NR == 2 {print $2, $7}')"
} > "$raw/machine.txt" 2>&1
cat "$raw/machine.txt"

# nvidia-smi itself may need the driver folder on LD_LIBRARY_PATH (it is only our yardstick).
smi=""
for c in nvidia-smi /usr/local/nvidia/bin/nvidia-smi /usr/bin/nvidia-smi; do
  if command -v "$c" >/dev/null 2>&1; then smi=$(command -v "$c"); break; fi
done
help_path=${LD_LIBRARY_PATH:-}
[ -d /usr/local/nvidia/lib64 ] && help_path="/usr/local/nvidia/lib64${help_path:+:$help_path}"
smi_run() { LD_LIBRARY_PATH="$help_path" timeout --kill-after=5 30 "$smi" "$@"; }

fields="name pci.bus_id uuid serial driver_version compute_cap memory.total memory.used memory.reserved
pcie.link.gen.current pcie.link.gen.max pcie.link.gen.gpumax pcie.link.width.current pcie.link.width.max
clocks.sm clocks.mem clocks.max.sm clocks.max.memory power.draw power.limit enforced.power.limit
power.default_limit power.max_limit temperature.gpu ecc.mode.current mig.mode.current
persistence_mode compute_mode utilization.gpu clocks_throttle_reasons.active"
query_fields() {
  local file=$1 f line i all
  : > "$file"
  # One call for every field; an nvidia-smi that refuses one of them gets one call per field.
  all=$(echo $fields | tr ' ' ',')
  if line=$(smi_run --query-gpu="$all" --format=csv,noheader,nounits 2>/dev/null); then
    printf '%s\n' "$line" > "$file.all"
    if python3 -c '
import csv, sys
names = sys.argv[1].split(",")
with open(sys.argv[3]) as src, open(sys.argv[2], "w") as out:
    for i, row in enumerate(csv.reader(src, skipinitialspace=True)):
        if len(row) != len(names):
            sys.exit(1)
        for name, value in zip(names, row):
            out.write(f"{i},{name},{value.strip()}\n")
' "$all" "$file" "$file.all"; then
      rm -f "$file.all"
      return 0
    fi
    rm -f "$file.all"
    : > "$file"
  fi
  for f in $fields; do
    if line=$(smi_run --query-gpu="$f" --format=csv,noheader,nounits 2>/dev/null); then
      i=0
      while IFS= read -r v; do echo "$i,$f,$v" >> "$file"; i=$((i + 1)); done <<< "$line"
    else
      echo "-,$f,(not known to this nvidia-smi)" >> "$file"
    fi
  done
}

# --- 2. nvidia-smi before anything of ours ----------------------------------------------------
if [ -z "$smi" ]; then
  missed "nvidia-smi not found (PATH, /usr/local/nvidia/bin, /usr/bin): no yardstick to compare the probe with"
elif ! smi_run -L > "$raw/nvidia-smi-L.txt" 2>&1; then
  missed "nvidia-smi -L failed: $(head -c 300 "$raw/nvidia-smi-L.txt")"
  smi=""
else
  say "nvidia-smi: $smi; $(wc -l < "$raw/nvidia-smi-L.txt") GPU line(s)"
  smi_run -q > "$raw/nvidia-smi-q.txt" 2>&1 || missed "nvidia-smi -q failed"
  query_fields "$raw/nvidia-smi-fields.csv"
  smi_run --query-compute-apps=gpu_bus_id,pid,used_memory --format=csv,noheader,nounits \
    > "$raw/nvidia-smi-apps.csv" 2>&1 || missed "nvidia-smi --query-compute-apps failed"
  smi_run topo -m > "$raw/nvidia-smi-topo.txt" 2>&1 || missed "nvidia-smi topo -m failed"
fi

# --- 3. the probe ------------------------------------------------------------------------------
if step "gpufare probe --bench" 150 env -u LD_LIBRARY_PATH "$gpufare" probe --bench --duration "$seconds" \
    --disk-dir "$disk_dir" --disk-size "$disk_size" --disk-seconds "$disk_seconds" \
    --redact --quiet -o "$raw/probe.json"; then
  :
else
  missed "gpufare probe exited non-zero (its warnings above say which measurement failed)"
fi
gpus_in_profile=-1
if [ -s "$raw/probe.json" ]; then
  gpus_in_profile=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("gpus", [])))' "$raw/probe.json" 2>/dev/null || echo -1)
  say "probe.json lists $gpus_in_profile GPU(s)"
  python3 - "$raw/probe.json" <<'PY' || true
import json, sys
p = json.load(open(sys.argv[1]))
if p.get("gpus_unavailable"):
    print("probe: gpus_unavailable:", p["gpus_unavailable"])
for w in p.get("warnings", []):
    print("probe warning:", w)
for b in p.get("benchmarks", []):
    print(f"probe benchmark GPU {b.get('index')}: H2D {b.get('h2d_gbs')} GB/s, "
          f"{b.get('achieved_tflops')} TFLOPS, notes {b.get('notes')}")
d = p.get("disk") or {}
if d:
    print(f"probe disk: {d.get('filesystem')} direct_io={d.get('direct_io')} engine={d.get('engine')} notes={d.get('notes')}")
PY
else
  missed "gpufare probe wrote no profile"
fi
if [ -n "$smi" ] && [ "$gpus_in_profile" = 0 ]; then
  missed "the probe found no GPU by itself although nvidia-smi did; trying again with LD_LIBRARY_PATH=$help_path"
  step "gpufare probe with LD_LIBRARY_PATH" 60 env LD_LIBRARY_PATH="$help_path" "$gpufare" probe \
    --duration 2 --redact --quiet -o "$raw/probe-ld-library-path.json" || true
fi

# --- 4. gpufare run around a small PyTorch loop -------------------------------------------------
profile_arg=()
[ -s "$raw/probe.json" ] && profile_arg=(--profile "$raw/probe.json")
if step "gpufare run --repeat 3" 180 env -u LD_LIBRARY_PATH "$gpufare" run --repeat 3 \
    --step-regex "$step_regex" "${profile_arg[@]}" --redact -o "$raw/run.json" -- \
    env LD_LIBRARY_PATH="$help_path" python3 "$here/device/train_loop.py" --steps "$train_steps"; then
  :
else
  missed "gpufare run: the training loop did not finish three runs (its own message above says why)"
fi
[ -s "$raw/run.json" ] || missed "gpufare run wrote no run profile"

# --- 5. nvidia-smi after, and the comparison --------------------------------------------------
if [ -n "$smi" ]; then
  query_fields "$raw/nvidia-smi-fields-after.csv"
fi
if [ -s "$raw/probe.json" ] && [ -s "$raw/nvidia-smi-fields.csv" ]; then
  python3 "$here/device/compare.py" "$raw/probe.json" "$raw/nvidia-smi-fields.csv" \
    --apps "$raw/nvidia-smi-apps.csv" --specs "$here/../core/data/gpu-specs.csv" \
    > "$raw/comparison.md" 2>&1 || missed "compare.py failed"
  cat "$raw/comparison.md"
else
  missed "no field-by-field comparison (needs both probe.json and nvidia-smi's fields)"
fi

# --- redaction: host name, UUIDs, serials, bus ids --------------------------------------------
host=$(hostname 2>/dev/null || true)
# A very short name would match inside ordinary words; such a name identifies little anyway.
[ ${#host} -ge 4 ] || host=""
redact() {
  sed -E \
    -e 's/(GPU|MIG)-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}/\1-[redacted]/g' \
    -e 's/(Serial Number[[:space:]]*:).*/\1 [redacted]/' \
    -e 's/([0-9]+,serial,).*/\1[redacted]/' \
    -e 's/[0-9a-fA-F]{8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9a-fA-F]/[bus-id]/g' \
    -e 's/[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-9a-fA-F]/[bus-id]/g' \
    ${host:+-e "s/$(printf '%s' "$host" | sed 's/[.[\*^$/]/\\&/g')/[host]/g"}
}
for f in "$raw"/*; do
  [ -f "$f" ] || continue
  redact < "$f" > "$out/$(basename "$f")"
done

{
  echo "gpufare device run, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for s in "${summary[@]}"; do echo "step: $s"; done
  if [ ${#couldnt[@]} -eq 0 ]; then
    echo "everything ran"
  else
    for c in "${couldnt[@]}"; do echo "could not: $c"; done
  fi
} > "$out/summary.txt"
say "summary:"
cat "$out/summary.txt"
# The log is redacted last, once nothing more is written to it.
exec >/dev/null 2>&1
wait "$tee_pid" 2>/dev/null
redact < "$log" > "$log.tmp" && mv "$log.tmp" "$log"
exit 0
