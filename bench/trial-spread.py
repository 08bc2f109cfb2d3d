#!/usr/bin/env python3
"""How precise the plan's sampled figures are for a number of Monte Carlo trials.

For each task and trial count, plans the task with the release CLI under several seeds and
reports how far the sampled figures (each offer's P50 and P90 hours, its P90 total) move from
one seed to the next, and whether the recommendation (offer and kind of capacity) or the
order of the first five offers ever changes. The expectations are closed forms and do not move.
This is the evidence for choosing fewer trials where the figures are already tight (issue 34).

    cargo build --release -p gpufare-probe
    python3 bench/trial-spread.py [--seeds 12] [--trials 500,1000,2000,5000,10000] [TASK.json ...]

Default tasks: the site's default preset and three others from examples/.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "target" / "release" / "gpufare"
TASKS = ["qlora_7b", "sd_batch", "full_finetune_multi_gpu", "inference_api"]


def plan(task, trials, seed):
    out = subprocess.run(
        [str(CLI), "plan", "--task", str(task), "--trials", str(trials), "--seed", str(seed),
         "--today", "2026-12-07", "--format", "json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def spread(values):
    """The standard deviation across seeds relative to the mean (0 when every seed agrees)."""
    mean = statistics.fmean(values)
    return statistics.pstdev(values) / mean if mean else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=12)
    ap.add_argument("--trials", default="500,1000,2000,5000,10000")
    ap.add_argument("tasks", nargs="*")
    args = ap.parse_args()
    if not CLI.exists():
        sys.exit(f"{CLI} is missing: cargo build --release -p gpufare-probe")
    tasks = [Path(t) for t in args.tasks] or [ROOT / "examples" / f"{t}.json" for t in TASKS]
    counts = [int(t) for t in args.trials.split(",")]
    print("| task | trials | offers whose P90 total moves | P90 total, spread between seeds (median, largest) "
          "| P90 hours (median, largest) | P50 hours (median, largest) | recommendations seen | "
          "first five in one order | ms per plan |")
    print("|---|---:|---:|---:|---:|---:|---|---|---:|")
    for task in tasks:
        for trials in counts:
            runs, took = [], []
            for seed in range(1, args.seeds + 1):
                start = time.perf_counter()
                runs.append(plan(task, trials, seed))
                took.append((time.perf_counter() - start) * 1000)
            figures = {}
            for run in runs:
                for o in run["options"]:
                    if o["feasible"]:
                        key = o["offer_id"]
                        figures.setdefault(key, []).append((o["total_p90"], o["hours_p90"], o["hours_p50"]))
            moved = {k: v for k, v in figures.items() if len(v) == len(runs) and len({x[0] for x in v}) > 1}
            def col(i):
                s = [spread([x[i] for x in v]) for v in moved.values()] or [0.0]
                return f"{100 * statistics.median(s):.2f} %, {100 * max(s):.2f} %"
            picks = {(r["decision"].get("recommended_offer"), r["decision"].get("choice")) for r in runs}
            orders = {tuple(o["offer_id"] for o in r["options"][:5]) for r in runs}
            print(f"| {task.stem} | {trials} | {len(moved)} of {len(figures)} | {col(0)} | {col(1)} | {col(2)} "
                  f"| {len(picks)} | {'yes' if len(orders) == 1 else f'no ({len(orders)} orders)'} "
                  f"| {statistics.median(took):.0f} |")


if __name__ == "__main__":
    main()
