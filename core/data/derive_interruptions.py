#!/usr/bin/env python3
"""Re-derives the interruption columns of core/data/catalog.csv from the evidence.

Run from the repository root: python3 core/data/derive_interruptions.py
It rewrites catalog.csv in place (comment lines kept, columns in the canonical order) and is
idempotent. The rules, stated again in each row's interruption_source:

- Rate and gap level: the two public V100 spot traces in tests/fixtures/traces (Wu et al.,
  "Can't Be Late", NSDI 2024): preemptions per running hour pooled over both zones, the mean gap
  without an instance after a preemption pooled the same way; the range is the better and the
  worse zone.
- AWS rows name their Spot Instance Advisor band (2025-06-28 snapshot) in `source`. The band is
  a monthly reclaim share p; -ln(1-p)/730 per hour is the low end of the range (what the
  advisor alone would say), and the central rate keeps the advisor's ranking of pools by scaling
  the trace level with the band: pooled x lambda(band) / lambda(>20 % band).
- Notice: AWS 120 s (EC2 spot instance interruption notices), GCP 30 s (Compute Engine
  preemption process), Azure 30 s (Scheduled Events for spot VMs), Alibaba Cloud 180 s (a release
  event about three minutes ahead, help.aliyun.com document 165053); others 0 (none documented).
- Protection: Alibaba Cloud's preemptible instances are not reclaimed in the first hour after
  they start (the default protection period, same document); none elsewhere.
- Marketplace pay-as-you-go hosts keep their monthly host-loss assumption.
"""
import csv, io, json, math, os, re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CATALOG = os.path.join(ROOT, "core", "data", "catalog.csv")
TRACES = os.path.join(ROOT, "tests", "fixtures", "traces")
V100 = ["aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json", "aws-2023-04-22-us-west-2b-p3.2xlarge-v100.json"]
COLUMNS = ["id", "provider", "region", "region_name", "region_class", "rtt_ms", "instance_type", "gpu",
           "gpu_count", "tenancy", "gpu_fraction", "mig_profile", "vram_gib", "vcpu", "ram_gib", "billing_mode", "term_months",
           "upfront", "price", "currency", "granularity", "minimum_minutes", "interruption_per_month",
           "interruption_per_hour", "mtbi_hours", "interruption_low_per_hour", "interruption_high_per_hour",
           "capacity_gap_hours", "notice_seconds", "protection_hours", "interruption_source", "trace", "fallback",
           "queue_wait_hours", "storage_per_gb_month", "egress_per_gb", "system_disk_per_month", "security",
           "as_of", "source", "price_evidence", "estimate", "estimate_note"]
BANDS = {"<5%": 0.025, "5-10%": 0.075, "10-15%": 0.125, "15-20%": 0.175, ">20%": 0.30}
NOTICE = {"AWS": 120, "GCP": 30, "Azure": 30, "阿里云": 180}
# Hours after each start in which the provider promises not to reclaim the instance: Alibaba Cloud's
# preemptible instances keep a one-hour protection period by default (help.aliyun.com 165053).
PROTECTION = {"阿里云": 1}


def trace_figures(name):
    d = json.load(open(os.path.join(TRACES, name)))
    tick = d["metadata"]["gap_seconds"] / 3600
    x = [v >= 1 for v in d["data"]]
    running = sum(x) * tick
    gaps, i = [], 1
    while i < len(x):
        if x[i - 1] and not x[i]:
            j = i
            while j < len(x) and not x[j]:
                j += 1
            gaps.append((j - i) * tick)
            i = j
        else:
            i += 1
    return len(gaps), running, sum(gaps)


def lam(p):
    return -math.log(1 - p) / 730


def sig(x, n=4):
    return float(f"{x:.{n}g}")


def main():
    figs = [trace_figures(n) for n in V100]
    pooled = sum(f[0] for f in figs) / sum(f[1] for f in figs)
    gap = sum(f[2] for f in figs) / sum(f[0] for f in figs)
    rates = sorted(f[0] / f[1] for f in figs)
    pooled, gap, best, worst = sig(pooled, 3), sig(gap, 3), sig(rates[0], 3), sig(rates[1], 3)
    text = open(CATALOG, encoding="utf-8").read()
    lines = text.splitlines(keepends=True)
    comments = [l for l in lines if l.startswith("#")]
    body = "".join(l for l in lines if not l.startswith("#"))
    rows = list(csv.DictReader(io.StringIO(body)))
    traces = f"the public V100 spot traces (Wu et al., NSDI 2024): {pooled}/running h and {gap} h gaps pooled over us-east-1c and us-west-2b"
    for r in rows:
        for c in COLUMNS:
            r.setdefault(c, "")
        if r["billing_mode"] != "spot":
            if r["interruption_per_month"] and not r["interruption_source"]:
                r["interruption_source"] = "assumed: a marketplace host lost to failure or its owner about 5 % a month (no public figure)"
            continue
        notice = NOTICE.get(r["provider"], 0)
        notice_text = f"notice {notice} s as the provider documents" if notice else "notice 0 s (none documented)"
        protection = PROTECTION.get(r["provider"])
        r["protection_hours"] = str(protection) if protection else ""
        if protection:
            notice_text += f"; no reclaim in the first {protection} h after each start (protection period)"
        band = re.search(r"band (<5%|5-10%|10-15%|15-20%|>20%)", r["source"])
        r["interruption_per_month"] = ""
        r["mtbi_hours"] = ""
        if band:
            p = BANDS[band.group(1)]
            r["interruption_per_hour"] = str(sig(pooled * lam(p) / lam(0.30)))
            r["interruption_low_per_hour"] = str(sig(lam(p)))
            r["interruption_source"] = (f"estimate: Spot Advisor band {band.group(1)} (2025-06-28) scaled to {traces} "
                                        f"(x lambda(band)/lambda(>20%)); low end = the band alone, -ln(1-{p})/730; high end = us-east-1c, {worst}; {notice_text}")
        else:
            r["interruption_per_hour"] = str(pooled)
            r["interruption_low_per_hour"] = str(best)
            r["interruption_source"] = f"estimate: no trace for this provider; the level of {traces}; range = the two zones, {best}-{worst}; {notice_text}"
        r["interruption_high_per_hour"] = str(worst)
        r["capacity_gap_hours"] = str(gap)
        r["notice_seconds"] = str(notice)
        r["estimate_note"] = re.sub(r"; interruption 0\.30 assumed \([^)]*\)?", "", r["estimate_note"])
        r["estimate_note"] = re.sub(r"interruption 0\.30 assumed \([^)]*\)?;? ?", "", r["estimate_note"])
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    note = ("# interruption_per_hour (per running hour), mtbi_hours or interruption_per_month (one form per row); low/high: the range\n"
            "#   the evidence supports; capacity_gap_hours: mean time without an instance after a preemption; notice_seconds: warning\n"
            "#   before it. Spot rows are re-derived by core/data/derive_interruptions.py from tests/fixtures/traces (see core/README.md).\n")
    comments = [c for c in comments if not c.startswith(("# interruption_per_hour", "#   the evidence", "#   before it."))]
    open(CATALOG, "w", encoding="utf-8").write("".join(comments) + note + out.getvalue())
    print(f"pooled {pooled}/h, gap {gap} h, range {best}-{worst}; {sum(r['billing_mode'] == 'spot' for r in rows)} spot rows")


main()
