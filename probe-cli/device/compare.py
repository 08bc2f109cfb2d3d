#!/usr/bin/env python3
"""Compares a `gpufare probe` profile with what nvidia-smi said on the same machine.

    compare.py PROFILE SMI_FIELDS [--apps SMI_APPS] [--specs GPU_SPECS_CSV] [--strict]

SMI_FIELDS is the long-form file probe-cli/device-run.sh writes: one line per GPU and field,
`index,field,value`, each value from its own `nvidia-smi --query-gpu=FIELD --format=csv,noheader,
nounits` call (a field an older nvidia-smi does not know then costs one line, not the whole query).
SMI_APPS is `nvidia-smi --query-compute-apps=gpu_bus_id,pid,used_memory --format=csv,noheader,
nounits`. GPU_SPECS_CSV is core/data/gpu-specs.csv, for the card's published dense FP16 TFLOPS.

Prints a Markdown table per GPU: field, nvidia-smi, probe, and whether they agree. Facts that do
not move (name, total memory, PCIe link, clock limits, power limits, ECC and MIG mode) must be
equal; readings that move between the two reads (memory used, current clocks, power draw,
temperature) are compared with a tolerance and marked as such. With --strict the exit status is 1
when a fact disagrees or the probe left it out while nvidia-smi had it.

Standard library only: it runs on the GPU machine, which may have nothing else.
"""

import argparse
import csv
import json
import sys

# PCI-SIG raw signalling rate per lane (GT/s) and line-code efficiency, for the theoretical
# one-way bandwidth of an x16 link that the measured host-to-device copy is set against.
PCIE_RATE = {1: (2.5, 0.8), 2: (5.0, 0.8), 3: (8.0, 128 / 130), 4: (16.0, 128 / 130),
             5: (32.0, 128 / 130), 6: (64.0, 242 / 256)}

MIB = 2 ** 20


def pcie_x16_gbs(gen, width=16):
    rate = PCIE_RATE.get(gen)
    if rate is None:
        return None
    gts, eff = rate
    return gts * width * eff / 8


def number(text):
    """nvidia-smi's value as a float, or None for N/A, [Not Supported] and the like."""
    if text is None:
        return None
    t = text.strip()
    for unit in (" MiB", " MHz", " W", " C", " %"):
        if t.endswith(unit):
            t = t[: -len(unit)]
    try:
        return float(t)
    except ValueError:
        return None


def read_fields(path):
    per_gpu = {}
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) < 3:
                continue
            idx, field, value = row[0].strip(), row[1].strip(), ",".join(row[2:]).strip()
            if not idx.isdigit():
                continue
            per_gpu.setdefault(int(idx), {})[field] = value
    return per_gpu


def read_apps(path):
    apps = []
    if not path:
        return apps
    try:
        with open(path, newline="") as f:
            for row in csv.reader(f):
                if len(row) >= 2 and row[1].strip().isdigit():
                    apps.append({"bus_id": row[0].strip(), "pid": int(row[1]),
                                 "used_mib": number(row[2]) if len(row) > 2 else None})
    except OSError:
        pass
    return apps


def read_specs(path):
    specs = {}
    if not path:
        return specs
    try:
        with open(path, newline="") as f:
            lines = [line for line in f if not line.startswith("#")]
        for row in csv.DictReader(lines):
            specs[row["nvml_name"]] = row
    except (OSError, KeyError):
        pass
    return specs


def dig(obj, *keys):
    for k in keys:
        if obj is None:
            return None
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj


def onoff(value):
    if value is None:
        return None
    return "Enabled" if value else "Disabled"


class Table:
    def __init__(self):
        self.rows = []
        self.problems = []

    def add(self, field, smi, probe, verdict, note=""):
        self.rows.append((field, smi, probe, verdict, note))
        if verdict in ("DIFFERS", "MISSING"):
            self.problems.append(f"{field}: nvidia-smi {smi!r}, probe {probe!r}")

    def fact(self, field, smi, probe, note=""):
        """A fact: equal, or a problem. Numbers compare within 1 unit (rounding)."""
        if smi is None or smi in ("", "N/A", "[N/A]", "[Not Supported]"):
            verdict = "n/a in nvidia-smi" if probe is None else "probe only"
        elif probe is None:
            verdict = "MISSING"
        else:
            a, b = number(str(smi)), number(str(probe))
            same = abs(a - b) <= 1.0 if a is not None and b is not None else str(smi).strip() == str(probe).strip()
            verdict = "agrees" if same else "DIFFERS"
        self.add(field, smi, probe, verdict, note)

    def reading(self, field, smi, probe, tolerance, note):
        """A reading that moves between the two reads: within `tolerance` (absolute) agrees."""
        a, b = number(smi) if smi is not None else None, probe
        if a is None and b is None:
            verdict = "n/a"
        elif a is None:
            verdict = "probe only"
        elif b is None:
            verdict = "MISSING"
        else:
            verdict = "agrees" if abs(a - b) <= tolerance else f"moved ({abs(a - b):.0f} apart)"
        self.add(field, smi, probe, verdict, note)

    def markdown(self):
        out = ["| field | nvidia-smi | gpufare probe | | note |", "|---|---|---|---|---|"]
        for field, smi, probe, verdict, note in self.rows:
            show = lambda v: "—" if v is None else (f"{v:g}" if isinstance(v, float) else str(v))
            out.append(f"| {field} | {show(smi)} | {show(probe)} | {verdict} | {note} |")
        return "\n".join(out)


def compare_gpu(gpu, smi, apps, specs, bench):
    t = Table()
    t.fact("name", smi.get("name"), gpu.get("name"))
    total = gpu.get("memory_total_bytes")
    t.fact("memory.total [MiB]", smi.get("memory.total"), round(total / MIB) if total is not None else None)
    used = gpu.get("memory_used_bytes")
    t.reading("memory.used [MiB]", smi.get("memory.used"), round(used / MIB) if used is not None else None,
              64, "moves between reads")
    pcie = gpu.get("pcie") or {}
    t.fact("pcie.link.gen.max", smi.get("pcie.link.gen.max"), pcie.get("gen_max"))
    t.reading("pcie.link.gen.current", smi.get("pcie.link.gen.current"), pcie.get("gen_current"), 0,
              "idle links train down to save power")
    t.fact("pcie.link.width.max", smi.get("pcie.link.width.max"), pcie.get("width_max"))
    t.reading("pcie.link.width.current", smi.get("pcie.link.width.current"), pcie.get("width_current"), 0,
              "may narrow when idle")
    clocks = gpu.get("clocks") or {}
    t.fact("clocks.max.sm [MHz]", smi.get("clocks.max.sm"), clocks.get("sm_max_mhz"))
    t.fact("clocks.max.memory [MHz]", smi.get("clocks.max.memory"), clocks.get("memory_max_mhz"))
    t.reading("clocks.sm [MHz]", smi.get("clocks.sm"), clocks.get("sm_mhz"), 300, "moves with load")
    t.reading("clocks.mem [MHz]", smi.get("clocks.mem"), clocks.get("memory_mhz"), 100, "moves with load")
    power = gpu.get("power") or {}
    t.fact("enforced.power.limit [W]", smi.get("enforced.power.limit"), power.get("limit_w"))
    t.fact("power.default_limit [W]", smi.get("power.default_limit"), power.get("default_limit_w"))
    t.reading("power.draw [W]", smi.get("power.draw"), power.get("usage_w"), 60, "moves with load")
    t.reading("temperature.gpu [C]", smi.get("temperature.gpu"), gpu.get("temperature_c"), 5,
              "moves with load")
    ecc = gpu.get("ecc")
    t.fact("ecc.mode.current", smi.get("ecc.mode.current"), onoff(ecc.get("enabled")) if ecc else None)
    t.fact("mig.mode.current", smi.get("mig.mode.current"), onoff(gpu.get("mig_enabled")))
    t.fact("compute_cap", smi.get("compute_cap"), gpu.get("compute_capability"))
    if gpu.get("pci_bus_id") is None:
        t.add("pci.bus_id", smi.get("pci.bus_id"), None, "left out", "the probe's --redact leaves it out")
    else:
        t.fact("pci.bus_id", smi.get("pci.bus_id"), gpu.get("pci_bus_id"))
    bus = (smi.get("pci.bus_id") or "").lower()
    smi_pids = sorted(a["pid"] for a in apps if not bus or a["bus_id"].lower() == bus)
    probe_pids = sorted(p["pid"] for p in gpu.get("processes", []))
    t.reading("compute processes", str(len(smi_pids)), float(len(probe_pids)), 0,
              f"pids nvidia-smi {smi_pids}, probe {probe_pids}; in a container neither may see others'")

    spec = specs.get(gpu.get("name", ""))
    if bench:
        h2d = bench.get("h2d_gbs")
        gen = pcie.get("gen_current") if pcie.get("gen_current") else pcie.get("gen_max")
        width = pcie.get("width_max") or 16
        theory = pcie_x16_gbs(pcie.get("gen_max") or (int(spec["pcie_gen"]) if spec else 0), width)
        t.add("benchmark H2D [GB/s]", f"PCIe theoretical {theory:.1f}" if theory else None,
              round(h2d, 1) if h2d else None,
              f"{h2d / theory:.0%} of theoretical" if h2d and theory else "n/a",
              "pinned 256 MiB copies, P50 of 10; 80-90 % of theoretical is usual")
        tflops = bench.get("achieved_tflops")
        nominal = float(spec["fp16_tflops"]) if spec and spec.get("fp16_tflops") else None
        t.add("benchmark FP16 GEMM [TFLOPS]", f"published dense {nominal:g}" if nominal else None,
              round(tflops, 1) if tflops else None,
              f"{tflops / nominal:.0%} of published" if tflops and nominal else "n/a",
              f"n = {bench.get('gemm_size')}, FP32 accumulate; notes: {'; '.join(bench.get('notes', []))}")
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile")
    ap.add_argument("smi_fields")
    ap.add_argument("--apps")
    ap.add_argument("--specs")
    ap.add_argument("--strict", action="store_true")
    args = ap.parse_args()
    try:
        with open(args.profile) as f:
            profile = json.load(f)
    except (OSError, ValueError) as e:
        print(f"compare: cannot read the profile {args.profile}: {e}", file=sys.stderr)
        return 2
    smi = read_fields(args.smi_fields)
    apps = read_apps(args.apps)
    specs = read_specs(args.specs)
    gpus = profile.get("gpus", [])
    problems = []
    print(f"# gpufare probe vs nvidia-smi\n")
    print(f"Profile: {args.profile} (gpufare {dig(profile, 'tool', 'version') or '?'}, "
          f"created {profile.get('created_at', '?')}); driver {dig(profile, 'driver', 'driver_version') or '?'}, "
          f"CUDA {dig(profile, 'driver', 'cuda_version') or '?'}.\n")
    if not gpus:
        print(f"The probe lists no GPU: {profile.get('gpus_unavailable', 'no reason given')}.\n")
    if len(gpus) != len(smi):
        problems.append(f"the probe lists {len(gpus)} GPU(s), nvidia-smi {len(smi)}")
        print(f"**GPU count differs**: probe {len(gpus)}, nvidia-smi {len(smi)}.\n")
    for gpu in gpus:
        idx = gpu.get("index", 0)
        bench = next((b for b in profile.get("benchmarks", []) if b.get("index") == idx), None)
        t = compare_gpu(gpu, smi.get(idx, {}), apps, specs, bench)
        print(f"## GPU {idx}\n")
        print(t.markdown())
        print()
        problems += [f"GPU {idx}: {p}" for p in t.problems]
    verdicts = profile.get("verdicts", [])
    if verdicts:
        print("## Verdicts\n")
        for v in verdicts:
            ev = ", ".join(f"{e['key']}={e['value']}" for e in v.get("evidence", []))
            print(f"- GPU {v.get('gpu')}: {v.get('kind')} {v.get('level')} {v.get('finding')} ({ev})")
        print()
    if problems:
        print("## Disagreements\n")
        for p in problems:
            print(f"- {p}")
    else:
        print("Every fact nvidia-smi gave agrees with the probe.")
    return 1 if (problems and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
