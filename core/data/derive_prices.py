#!/usr/bin/env python3
"""Re-derives the price columns of core/data/catalog.csv from dated public sources.

Run from the repository root, then the interruption script:

    python3 core/data/derive_prices.py && python3 core/data/derive_interruptions.py

It rewrites catalog.csv in place (comment lines and every other column kept; rows added, renamed
or dropped as listed below) and is idempotent. Each row gets `price`, `as_of` (the date of its
source, never later), `source` (a public URL or a named public document), `price_evidence`
(official / catalog / secondary / estimate), `estimate` and, for estimates, the comparable and
the rule in `estimate_note`. core/tests/catalog_sources.rs checks every catalog-sourced row
against the public files in tests/fixtures/prices again, independently of this script.

Sources and their dates:
- SkyPilot's catalogs (github.com/skypilot-org/skypilot-catalog, catalogs/v8/<cloud>/vms.csv,
  at the commits named below; subsets in tests/fixtures/prices). The commits' dates were not
  recorded when the files were read; the AWS file carries the P5 on-demand price after AWS's
  June 2025 cut (55.04 USD/h, 98.32 before), so the snapshot is from June 2025 or later and
  every row from it is dated 2025-06: as old as it can be, never later than its source.
- A fork of that repository (github.com/coopslarhette/skypilot-catalog @20291d7) for Azure: it
  still lists the ND H100 v5 at its pre-cut 98.32 USD/h, so it dates from before mid-2025; the
  NC H100 v5 it lists became available in late 2023, so its rows are dated 2024-01.
- The-full-stack's cloud GPU table (github.com/the-full-stack/website, cloud-gpus.csv), March
  2025, where it agrees with a catalog.
- Chinese providers: no machine-readable public price feed could be read. AutoDL's price list
  (https://www.autodl.com/docs/price/) as quoted by a third-party research note of 2026-03-28;
  Alibaba Cloud ECS gn7e-c16g1.4xlarge at 34.742 CNY/h (developer.aliyun.com/article/1635082,
  2024, as quoted in a public hardware plan of 2026-08-20); Tencent Cloud's international GPU
  pricing page (GN7.2XLARGE32, Guangzhou Zone 3, 1.26 USD/h; an undated copy, so dated to the
  GN7 family's 2020 launch, as old as it can be); the GitHub overview "国内 GPU 算力租用平台推荐
  (2026)" for the smaller platforms (a month is not given: dated 2026-01). Alibaba Cloud's
  yearly rule (a one-year subscription pays 85 % of twelve monthly list prices) is from
  help.aliyun.com document 343410.

Rules for estimates (each stated again in its row):
- A share of a card split by the user's own cluster (MIG, MPS, time slicing, memory-capped
  containers on a whole rented card): the share times the whole card's price. No sharing
  premium: the former "share x 1.1" rule is dropped. Where a provider sells a fraction itself the
  price is not a share of the card: AWS's g6f.4xlarge (half an L4) costs 0.95 USD/h, 2.36 times
  half of a whole-L4 g6.xlarge (0.8048), because it comes with 16 vCPUs and 64 GiB where the
  g6.xlarge has 4 and 16. Those rows therefore take the provider's own price (G6f) and the
  cost-share rows say that they are a lower bound for a provider-sold slice.
- Price against GPU model on one platform: AutoDL's RTX 3090 (1.58 CNY/h) and RTX 4090 (1.98)
  fit price ~ (dense FP16 TFLOPS)^k with k = ln(1.58/1.98) / ln(71/165) = 0.268; the RTX 4090 D
  (147 TFLOPS) follows from it. Across GPU models with the same memory kind, per-GPU ratios come
  from one provider that lists both (AWS p4d vs p4de for A100 40 vs 80 GB; Lambda for A10 vs
  A100 80 GB and H100 vs A100 80 GB).
- Monthly plans: 730 h x the hourly price x 0.71, the one monthly-to-hourly ratio found for the
  same instance (Alibaba Cloud gn7e: a cost calculator's 18,000 CNY a month against 34.742 x
  730; weak). Daily and weekly plans: 24 h x 0.85 and 168 h x 0.75 of the hourly price, an
  assumption with no public figure behind it (stated as such).
- Reserved terms: a stated discount off on-demand (an assumption; AWS advertises up to 72 % for
  three years) until `gpufare catalog refresh aws` or `azure` brings the real reserved price.
- Remote mainland regions: 0.85 of the coastal region's price (an assumption).
"""
import csv, io, math, os, re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CATALOG = os.path.join(ROOT, "core", "data", "catalog.csv")
FIX = os.path.join(ROOT, "tests", "fixtures", "prices")

COLUMNS = ["id", "provider", "region", "region_name", "region_class", "rtt_ms", "instance_type", "gpu",
           "gpu_count", "tenancy", "gpu_fraction", "mig_profile", "vram_gib", "vcpu", "ram_gib", "billing_mode", "term_months",
           "upfront", "price", "currency", "granularity", "minimum_minutes", "interruption_per_month",
           "interruption_per_hour", "mtbi_hours", "interruption_low_per_hour", "interruption_high_per_hour",
           "capacity_gap_hours", "notice_seconds", "protection_hours", "interruption_source", "trace", "fallback",
           "queue_wait_hours", "storage_per_gb_month", "egress_per_gb", "system_disk_per_month", "security",
           "as_of", "source", "price_evidence", "estimate", "estimate_note"]

SKY = "https://github.com/skypilot-org/skypilot-catalog/blob/{}/catalogs/v8/{}/vms.csv"
COMMIT = {"aws": "00148f2", "gcp": "006059e", "lambda": "0f40703", "vast": "01b8cdd", "runpod": "01acdfd"}
SKY_DATE = "2025-06"
AZURE_FORK = "https://github.com/coopslarhette/skypilot-catalog/blob/20291d7/catalogs/v8/azure/vms.csv"
AZURE_FORK_DATE = "2024-01"
FULL_STACK = "the-full-stack cloud GPU table (github.com/the-full-stack/website, cloud-gpus.csv)"
AUTODL = ("AutoDL price list (https://www.autodl.com/docs/price/) as quoted by a third-party research note "
          "of 2026-03-28")
AUTODL_DATE = "2026-03-28"
OVERVIEW = "GitHub overview '国内 GPU 算力租用平台推荐 (2026)' (a third-party comparison; weak)"
OVERVIEW_DATE = "2026-01"
ALI_GN7E = ("developer.aliyun.com/article/1635082 (2024), gn7e-c16g1.4xlarge 34.742 CNY/h, as quoted in a "
            "public hardware plan of 2026-08-20; region not stated")
ALI_GN7E_DATE = "2024-01"
ALI_YEARLY = "help.aliyun.com document 343410: one year prepaid = 85 % of 12 x the monthly list price"
TENCENT_INTL = ("Tencent Cloud's international site, www.tencentcloud.com, GPU Cloud Computing pricing page "
                "(GN7.2XLARGE32, Guangzhou Zone 3), an undated copy; dated to the GN7 family's 2020 launch")
TENCENT_INTL_DATE = "2020-01"

MONTHLY = 0.71          # fitted: 18000 / (34.742 x 730), Alibaba gn7e (weak)
DAILY, WEEKLY = 0.85, 0.75  # assumptions
REMOTE = 0.85           # assumption


def read(name):
    with open(os.path.join(FIX, name), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def num(x):
    return float(x) if x not in ("", None) else None


def money(x, places=4):
    """A price as text, without trailing zeros."""
    s = f"{x:.{places}f}".rstrip("0").rstrip(".")
    return s or "0"


REGULAR_ZONE = re.compile(r"^[a-z]+[0-9]+-az[0-9]+$")


def aws(instance, region):
    """On-demand price and the cheapest usable spot price (regular zones only; none at or above
    on-demand; none below 20 % of it) of an AWS instance type in a region."""
    rows = [r for r in read("skypilot-v8-aws-gpu-subset.csv")
            if r["InstanceType"] == instance and r["Region"] == region]
    assert rows, (instance, region)
    prices = {num(r["Price"]) for r in rows if num(r["Price"])}
    assert len(prices) == 1, (instance, region, prices)
    od = prices.pop()
    spots = [(num(r["SpotPrice"]), r["AvailabilityZone"]) for r in rows
             if num(r["SpotPrice"]) and REGULAR_ZONE.match(r["AvailabilityZone"])
             and 0.2 * od <= num(r["SpotPrice"]) < od]
    spot = min(spots) if spots else (None, None)
    return od, spot[0], spot[1], rows[0]


def gcp(vm, accel, count):
    rows = read("skypilot-v8-gcp-gpu-subset.csv")
    host = next(r for r in rows if r["InstanceType"] == vm)
    gpu = next(r for r in rows if not r["InstanceType"] and r["AcceleratorName"] == accel
               and r["AcceleratorCount"] == str(count))
    return (num(host["Price"]) + num(gpu["Price"]), num(host["SpotPrice"]) + num(gpu["SpotPrice"]),
            host, gpu)


def lam(instance):
    r = next(r for r in read("skypilot-v8-lambda-types.csv") if r["InstanceType"] == instance)
    return num(r["Price"]), r


def vast(gpu_name, mib):
    r = next(r for r in read("skypilot-v8-vast.csv")
             if r["AcceleratorName"] == gpu_name and r["AcceleratorCount"] == "1"
             and r["TotalGpuMemoryInMiB"] == str(mib))
    return num(r["Price"]), r


def runpod(instance):
    r = next(r for r in read("runpod-v8-subset.csv") if r["InstanceType"] == instance)
    return num(r["Price"]), r


def azure(instance, region):
    r = next(r for r in read("skypilot-v8-azure-fork-subset.csv")
             if r["InstanceType"] == instance and r["Region"] == region)
    return num(r["Price"]), num(r["SpotPrice"]), r


def sourced(price, as_of, source, evidence="catalog"):
    return {"price": money(price), "as_of": as_of, "source": source, "price_evidence": evidence,
            "estimate": "false", "estimate_note": ""}


def estimated(price, as_of, source, note, places=4):
    return {"price": money(price, places), "as_of": as_of, "source": source, "price_evidence": "estimate",
            "estimate": "true", "estimate_note": note}


def sky(cloud, what):
    return f"{SKY.format(COMMIT[cloud], cloud)} ({what})"


def main():
    text = open(CATALOG, encoding="utf-8").read()
    lines = text.splitlines(keepends=True)
    comments = [l for l in lines if l.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("".join(l for l in lines if not l.startswith("#")))))
    by_id = {r["id"]: r for r in rows}
    for r in rows:
        for c in COLUMNS:
            r.setdefault(c, "")
    new = {}     # id -> full row (added)
    upd = {}     # id -> columns to set
    drop = set()

    def add(id_, like, **cols):
        """A row made from the template row `like`; on a second run the row is already there and
        is only updated, so the script stays idempotent."""
        if id_ in by_id:
            upd[id_] = cols
            return
        row = dict(by_id[like])
        row.update({"id": id_}, **cols)
        new[id_] = row

    # --- AWS (SkyPilot v8 aws) -----------------------------------------------------------------
    band = {}  # the Spot Advisor band each spot row already names (kept for derive_interruptions.py)
    for r in rows:
        m = re.search(r"Spot Advisor 2025-06-28 band (<5%|5-10%|10-15%|15-20%|>20%)", r["source"])
        if m:
            band[r["id"]] = m.group(1)
    aws_rows = {"g4dnxl": ("g4dn.xlarge", "us-east-1"), "g5xl": ("g5.xlarge", "us-east-1"),
                "p4d": ("p4d.24xlarge", "us-east-1"), "p4de": ("p4de.24xlarge", "us-east-1"),
                "p5": ("p5.48xlarge", "us-east-1"), "p5en": ("p5en.48xlarge", "us-east-1"),
                "g6xl": ("g6.xlarge", "us-east-1"), "g6exl": ("g6e.xlarge", "us-east-1")}
    od = {}
    for key, (inst, region) in aws_rows.items():
        price, spot, zone, _ = aws(inst, region)
        od[key] = price
        upd[f"aws-use1-{key}-payg"] = sourced(price, SKY_DATE, sky("aws", f"{inst}, {region}, on-demand"))
        upd[f"aws-use1-{key}-payg"]["instance_type"] = inst
        sid = f"aws-use1-{key}-spot"
        if sid in by_id:
            b = band.get(sid)
            what = (f"{inst}, {region}, spot in {zone}, the cheapest regular zone; Local Zones, prices at or above "
                    f"on-demand and below 20 % of it left out")
            upd[sid] = sourced(spot, SKY_DATE, sky("aws", what) + (f"; Spot Advisor 2025-06-28 band {b}" if b else ""))
            upd[sid]["instance_type"] = inst
    price, spot, zone, _ = aws("p5.48xlarge", "ap-northeast-1")
    upd["aws-apne1-p5-payg"] = sourced(price, SKY_DATE, sky("aws", "p5.48xlarge, ap-northeast-1, on-demand"))
    upd["aws-apne1-p5-spot"] = sourced(spot, SKY_DATE, sky(
        "aws", f"p5.48xlarge, ap-northeast-1, spot in {zone}, the cheapest regular zone")
        + f"; Spot Advisor 2025-06-28 band {band.get('aws-apne1-p5-spot', '10-15%')}")
    for i in ("aws-apne1-p5-payg", "aws-apne1-p5-spot"):
        upd[i]["instance_type"] = "p5.48xlarge"
    # Reserved: an assumed discount off the on-demand price just sourced.
    g5 = od["g5xl"]
    eff = g5 * 0.60
    total = eff * 730 * 12
    upd["aws-use1-g5xl-ri1y-partial"] = estimated(
        total / 2 / 12, SKY_DATE, sky("aws", "g5.xlarge on-demand") + " and an assumed discount",
        f"1-year partial upfront, assumed 40 % off on-demand {money(g5)} (no public reserved price in the snapshot; "
        f"AWS advertises up to 72 % for three years): effective {money(eff)} USD/h, term total {money(total, 2)}; "
        f"half upfront, half over 12 months", 2)
    upd["aws-use1-g5xl-ri1y-partial"]["upfront"] = money(total / 2, 2)
    p4de = od["p4de"]
    upd["aws-use1-p4de-ri1y-noupfront"] = estimated(
        p4de * 0.65 * 730, SKY_DATE, sky("aws", "p4de.24xlarge on-demand") + " and an assumed discount",
        f"1-year no upfront, assumed 35 % off on-demand {money(p4de)}: {money(p4de)} x 0.65 x 730 a month", 2)
    p5 = od["p5"]
    eff = p5 * 0.40
    total = eff * 730 * 36
    upd["aws-use1-p5-ri3y-partial"] = estimated(
        total / 2 / 36, SKY_DATE, sky("aws", "p5.48xlarge on-demand") + " and an assumed discount",
        f"3-year partial upfront, assumed 60 % off on-demand {money(p5)} (AWS advertises up to 72 %): effective "
        f"{money(eff)} USD/h, term total {money(total, 2)}; half upfront, half over 36 months", 2)
    upd["aws-use1-p5-ri3y-partial"]["upfront"] = money(total / 2, 2)
    for i, inst in (("aws-use1-g5xl-ri1y-partial", "g5.xlarge"), ("aws-use1-p4de-ri1y-noupfront", "p4de.24xlarge"),
                    ("aws-use1-p5-ri3y-partial", "p5.48xlarge")):
        upd[i]["instance_type"] = inst
    # Fractions of an L4 that AWS sells (G6f): real prices replace the old "share x 1.1" row.
    drop.add("aws-use1-g6f-l4-half-payg")
    for inst, share, key in (("g6f.4xlarge", 0.5, "g6f4xl"), ("g6f.2xlarge", 0.25, "g6f2xl")):
        price, _, _, r = aws(inst, "us-east-1")
        add(f"aws-use1-{key}-payg", "aws-use1-g6f-l4-half-payg", instance_type=inst, gpu_fraction=str(share),
            vram_gib=str(int(24 * share)), vcpu=r["vCPUs"], ram_gib=r["MemoryGiB"],
            **sourced(price, SKY_DATE, sky("aws", f"{inst}, us-east-1, on-demand; GpuPartitionSize {share}")))
    # Shares of a whole card the user splits in their own EKS cluster.
    share_note = ("the user's own split of a whole rented card: the share x the card's price, no premium; a "
                  "provider-sold fraction costs more (AWS g6f.4xlarge, half an L4, is 2.36 x half a g6.xlarge)")
    per_gpu_p5, _, _, _ = aws("p5.4xlarge", "us-east-1")
    for k, gib in ((1, 10), (2, 20), (3, 40)):
        upd[f"aws-use1-h100-mig-{k}g{gib}gb-payg"] = estimated(
            per_gpu_p5 * k / 7, SKY_DATE, sky("aws", "p5.4xlarge, one H100, us-east-1, on-demand") + "; EKS MIG",
            f"MIG {k}g.{gib}gb of one H100: {money(per_gpu_p5)} x {k}/7; {share_note}; queue wait assumed")
    upd["aws-use1-g5-mps-8g-payg"] = estimated(
        g5 / 3, SKY_DATE, sky("aws", "g5.xlarge, us-east-1, on-demand") + "; ECS MPS sharing",
        f"one of 3 MPS tenants on a g5.xlarge (8 GiB each): {money(g5)} / 3; {share_note}; queue wait assumed")
    g4 = od["g4dnxl"]
    upd["aws-use1-g4dn-ts4-payg"] = estimated(
        g4 / 4, SKY_DATE, sky("aws", "g4dn.xlarge, us-east-1, on-demand") + "; EKS time slicing",
        f"4-way time slicing of one T4: {money(g4)} / 4; {share_note}; all 16 GiB visible but shared; queue wait "
        f"assumed")

    # --- Lambda, RunPod, Vast (SkyPilot v8) --------------------------------------------------------
    uniform = "; Lambda lists each type in 17 regions at one price, whether or not it has capacity there"
    for cid, inst in (("lambda-use1-a10-payg", "gpu_1x_a10"), ("lambda-use1-a6000-payg", "gpu_1x_a6000"),
                      ("lambda-use1-h100pcie-payg", "gpu_1x_h100_pcie"), ("lambda-use1-h100sxm-payg", "gpu_1x_h100_sxm5"),
                      ("lambda-use1-8xa100-80-payg", "gpu_8x_a100_80gb_sxm4"), ("lambda-use1-8xv100-payg", "gpu_8x_v100")):
        price, _ = lam(inst)
        upd[cid] = sourced(price, SKY_DATE, sky("lambda", f"{inst}, on-demand") + uniform)
        upd[cid]["instance_type"] = inst
    price, _ = runpod("1x_A100-80GB_SECURE")
    same_dc = "; RunPod lists every data centre at one price"
    upd["runpod-apin1-a100-80-payg"] = sourced(price, SKY_DATE, sky("runpod", "1x_A100-80GB_SECURE, Secure Cloud") + same_dc)
    price, r = runpod("1x_RTX4090_SECURE")
    add("runpod-rtx4090-payg", "runpod-rtx3090-payg", gpu="RTX4090", vram_gib="24", vcpu=r["vCPUs"],
        ram_gib=r["MemoryGiB"], instance_type="1x_RTX4090_SECURE",
        **sourced(price, SKY_DATE, sky("runpod", "1x_RTX4090_SECURE, Secure Cloud") + same_dc))
    upd["runpod-rtx3090-payg"] = sourced(0.44, "2024-01", "a 2024 RunPod price list quoted in "
                                         "github.com/kyledinh/gpt-prive docs/guides/gpu.md (month not given)", "secondary")
    median = "; a median of the live offers in its bucket, not the cheapest host"
    vast_rows = {"vast-4090-payg": ("RTX4090", 24564), "vast-l40s-payg": ("L40S", 46068),
                 "vast-a100-40-payg": ("A100", 40960), "vast-h100sxm-payg": ("H100", 81559),
                 "vast-h200-payg": ("H200", 143771)}
    vast_price = {}
    for cid, (g, mib) in vast_rows.items():
        price, r = vast(g, mib)
        vast_price[cid] = price
        upd[cid] = sourced(price, SKY_DATE, sky("vast", f"{r['InstanceType']}, one GPU") + median)
    for cid, base in (("vast-4090-interruptible", "vast-4090-payg"), ("vast-h100sxm-interruptible", "vast-h100sxm-payg")):
        upd[cid] = estimated(vast_price[base] * 0.5, SKY_DATE, sky("vast", "on-demand median") + "; an assumed discount",
                             f"{money(vast_price[base])} x 0.5: Vast says interruptible instances are usually half the "
                             f"on-demand price or less; the SkyPilot file lists no interruptible price (0.00)")

    # --- Azure, GCP --------------------------------------------------------------------------------
    az, az_spot, _ = azure("Standard_NC24ads_A100_v4", "eastus")
    upd["azure-eastus-nc24ads-a100-payg"] = sourced(
        az, "2025-03", f"{FULL_STACK}, March 2025; the same 3.673 USD/h as {AZURE_FORK} (Standard_NC24ads_A100_v4, "
        f"eastus)", "secondary")
    upd["azure-eastus-nc24ads-a100-spot"] = sourced(
        az_spot, AZURE_FORK_DATE, f"{AZURE_FORK} (Standard_NC24ads_A100_v4, eastus, spot); spot prices move: "
        f"`gpufare catalog refresh azure` reads today's")
    upd["azure-eastus-nc24ads-a100-ri3y"] = estimated(
        az * 0.40 * 730, "2025-03", f"{FULL_STACK}, March 2025, and an assumed discount",
        f"3-year commitment paid monthly: {money(az)} x 0.40 x 730 (assumed 60 % off; no public reserved price in the "
        f"snapshot)", 2)
    for cid in ("azure-eastus-nc24ads-a100-payg", "azure-eastus-nc24ads-a100-spot", "azure-eastus-nc24ads-a100-ri3y"):
        upd[cid]["instance_type"] = "Standard_NC24ads_A100_v4"
    for cid, share, what in (("azure-eastus-a100-mig-1g10gb-payg", 1 / 7, "MIG 1g.10gb: x 1/7"),
                             ("azure-eastus-a100-mig-3g40gb-payg", 3 / 7, "MIG 3g.40gb: x 3/7"),
                             ("azure-eastus-a100-ts4-payg", 0.25, "4-way time slicing: / 4; all 80 GiB visible but shared")):
        upd[cid] = estimated(az * share, "2025-03", f"{FULL_STACK}, March 2025 (NC24ads A100 v4); AKS sharing",
                             f"{money(az)} {what}; {share_note}; queue wait assumed")
    total, spot_total, host, gpu = gcp("a2-highgpu-1g", "A100", 1)
    what = (f"a2-highgpu-1g, us-central1: the VM {host['Price']} + one A100 {gpu['Price']} USD/h; spot "
            f"{host['SpotPrice']} + {gpu['SpotPrice']}")
    upd["gcp-usc1-a2hg1-payg"] = sourced(total, SKY_DATE, sky("gcp", what))
    upd["gcp-usc1-a2hg1-spot"] = sourced(spot_total, SKY_DATE, sky("gcp", what))
    for cid in ("gcp-usc1-a2hg1-payg", "gcp-usc1-a2hg1-spot"):
        upd[cid]["instance_type"] = "a2-highgpu-1g"
    upd["gcp-usc1-a100-mps-20g-payg"] = estimated(
        total / 2, SKY_DATE, sky("gcp", "a2-highgpu-1g, us-central1, on-demand") + "; GKE MPS",
        f"one of 2 MPS tenants (20 GiB each): {money(total)} / 2; {share_note}; queue wait assumed")

    # --- AutoDL (CNY; secondary) --------------------------------------------------------------------
    k = math.log(1.58 / 1.98) / math.log(71 / 165)
    autodl = {"autodl-4090-payg": ("RTX4090", 1.98, None), "autodl-a100-80-payg": ("A100-80GB", 6.68, None)}
    for cid, (g, price, _) in autodl.items():
        upd[cid] = sourced(price, AUTODL_DATE, AUTODL, "secondary")
    for cid, g, price, vram, note in (("autodl-a800-80-payg", "A800-80GB", 4.98, 80, ""),
                                      ("autodl-h800-payg", "H800", 8.88, 80, ""),
                                      ("autodl-h20-payg", "H20", 6.98, 96, ""),
                                      ("autodl-v100-32-payg", "V100-32GB", 2.28, 32, ""),
                                      ("autodl-a100-40-payg", "A100-40GB", 3.28, 40, ""),
                                      ("autodl-3090-payg", "RTX3090", 1.58, 24,
                                       "; the note gives 1.32-1.58 CNY/h: the higher figure kept")):
        add(cid, "autodl-4090-payg", gpu=g, vram_gib=str(vram), **sourced(price, AUTODL_DATE, AUTODL + note, "secondary"))
    upd["autodl-4090d-payg"] = estimated(
        1.98 * (147 / 165) ** k, AUTODL_DATE, AUTODL + " (RTX 4090 and RTX 3090)",
        f"no RTX 4090 D figure: AutoDL's 3090 (1.58) and 4090 (1.98) fit price ~ TFLOPS^{k:.3f}; 1.98 x (147/165)^"
        f"{k:.3f}; queue wait assumed (GPU not held after shutdown)", 2)
    for base, g in (("autodl-4090", 1.98), ("autodl-a100-80", 6.68)):
        upd[f"{base}-daily"] = estimated(24 * g * DAILY, AUTODL_DATE, AUTODL,
                                         f"daily = 24 h x {g} x {DAILY} (assumed daily-plan discount; no public figure)", 2)
        upd[f"{base}-weekly"] = estimated(168 * g * WEEKLY, AUTODL_DATE, AUTODL,
                                          f"weekly = 168 h x {g} x {WEEKLY} (assumed weekly-plan discount; no public figure)", 2)
        upd[f"{base}-monthly"] = estimated(730 * g * MONTHLY, AUTODL_DATE, AUTODL,
                                           f"monthly = 730 h x {g} x {MONTHLY} (the one monthly-to-hourly ratio found, "
                                           f"Alibaba Cloud gn7e; weak)", 2)

    # --- Other Chinese platforms (CNY; a 2026 overview, weak) ----------------------------------------
    for cid in ("suanjia-4090-payg", "youyun-4090-payg", "youyun-a800-payg", "zhixing-4090-payg", "zhixing-a100-payg",
                "hengyuan-4090-payg", "hengyuan-a100-payg"):
        p = float(by_id[cid]["price"])
        detail = by_id[cid]["source"].replace(OVERVIEW, "").replace("third-party 2026 overview (weak)", "").strip(" ;")
        upd[cid] = sourced(p, OVERVIEW_DATE, OVERVIEW + (f"; {detail}" if detail else ""), "secondary")
    upd["suanjia-4090-daily"] = estimated(24 * 1.24 * DAILY, OVERVIEW_DATE, OVERVIEW,
                                          f"daily = 24 h x 1.24 x {DAILY} (assumed daily-plan discount)", 2)
    upd["suanjia-4090-ts2-payg"] = estimated(1.24 / 2, OVERVIEW_DATE, OVERVIEW,
                                             f"modelled 2-way time-sliced share: 1.24 / 2; {share_note}; all 24 GiB "
                                             f"visible but shared; queue wait assumed", 2)
    for cid, gib in (("suanjia-4090-16g-container-payg", 16), ("suanjia-4090-8g-container-payg", 8)):
        upd[cid] = estimated(1.24 * gib / 24, OVERVIEW_DATE, OVERVIEW,
                             f"modelled HAMi-style container capped at {gib} GiB of 24: 1.24 x {gib}/24; {share_note}; "
                             f"queue wait assumed", 2)
    upd["youyun-8xa800-monthly"] = estimated(8 * 730 * 6.23 * MONTHLY, OVERVIEW_DATE, OVERVIEW,
                                             f"8 x 730 h x 6.23 x {MONTHLY} (monthly ratio of Alibaba gn7e; weak)", 2)
    upd["hengyuan-4090-weekly"] = estimated(168 * 2.5 * WEEKLY, OVERVIEW_DATE, OVERVIEW,
                                            f"weekly = 168 h x 2.5 x {WEEKLY} (assumed weekly-plan discount)", 2)
    upd["hengyuan-4090-monthly"] = estimated(730 * 2.5 * MONTHLY, OVERVIEW_DATE, OVERVIEW,
                                             f"monthly = 730 h x 2.5 x {MONTHLY} (monthly ratio of Alibaba gn7e; weak)", 2)

    # --- Alibaba Cloud (CNY) -------------------------------------------------------------------------
    gn7e = 34.742
    gn7e_monthly = 730 * gn7e * MONTHLY
    ali_a100 = {"instance_type": "ecs.gn7e-c16g1.4xlarge", "vcpu": "16", "ram_gib": "125"}
    upd["aliyun-sh-a100-payg"] = {**sourced(gn7e, ALI_GN7E_DATE, ALI_GN7E, "secondary"), **ali_a100}
    upd["aliyun-sh-a100-monthly"] = {**estimated(
        gn7e_monthly, ALI_GN7E_DATE, ALI_GN7E,
        f"monthly = 730 h x {gn7e} x {MONTHLY}: {MONTHLY} is 18,000 CNY a month (a public cost calculator's figure for "
        f"this instance, undated) over 730 x {gn7e}", 2), **ali_a100}
    upd["aliyun-sh-a100-yearly"] = {**estimated(
        12 * gn7e_monthly * 0.85, ALI_GN7E_DATE, f"{ALI_GN7E}; {ALI_YEARLY}",
        f"yearly = 12 x monthly {money(gn7e_monthly, 2)} x 0.85 (Alibaba Cloud: one year prepaid = 85 % of list)", 2),
        **ali_a100}
    eff = gn7e * 0.60
    upd["aliyun-sh-a100-ri1y-partial"] = {**estimated(
        eff * 730 * 12 / 2 / 12, ALI_GN7E_DATE, ALI_GN7E + "; reserved instance coupon, assumed discount",
        f"1-year partial upfront coupon, assumed 40 % off {gn7e}: effective {money(eff)} CNY/h; half upfront, "
        f"half over 12 months", 2), **ali_a100, "upfront": money(eff * 730 * 12 / 2, 2)}
    for kk, gib in ((1, 10), (2, 20), (3, 40)):
        upd[f"aliyun-sh-a100-mig-{kk}g{gib}gb-payg"] = estimated(
            gn7e * kk / 7, ALI_GN7E_DATE, ALI_GN7E,
            f"modelled MIG {kk}g.{gib}gb of the A100 in gn7e-c16g1.4xlarge: {gn7e} x {kk}/7; {share_note}; queue "
            f"wait assumed", 2)
    # A10 (gn7i): no dated figure; undated ones conflict (~8 and 18 CNY/h). From gn7e by Lambda's
    # per-GPU ratio of A10 to A100 80 GB.
    l_a10, _ = lam("gpu_1x_a10")
    l_a100, _ = lam("gpu_8x_a100_80gb_sxm4")
    ratio = l_a10 / (l_a100 / 8)
    a10 = gn7e * ratio
    ali_a10 = {"instance_type": "ecs.gn7i-c8g1.2xlarge", "vcpu": "8", "ram_gib": "30"}
    a10_rule = (f"no dated gn7i-c8g1.2xlarge figure (undated ones disagree: ~8 and 18 CNY/h): gn7e {gn7e} x Lambda's "
                f"A10 / A100-80GB per-GPU ratio {money(l_a10)} / {money(l_a100 / 8)} = {ratio:.3f}")
    upd["aliyun-sh-a10-payg"] = {**estimated(a10, ALI_GN7E_DATE, ALI_GN7E + "; " + sky("lambda", "A10 and A100 80 GB"),
                                             a10_rule, 2), **ali_a10}
    a10_monthly = 730 * a10 * MONTHLY
    upd["aliyun-sh-a10-monthly"] = {**estimated(a10_monthly, ALI_GN7E_DATE, ALI_GN7E,
                                                f"730 h x {money(a10, 2)} x {MONTHLY}; {a10_rule}", 2), **ali_a10}
    upd["aliyun-bj-a10-yearly"] = {**estimated(12 * a10_monthly * 0.85, ALI_GN7E_DATE, f"{ALI_GN7E}; {ALI_YEARLY}",
                                               f"12 x monthly {money(a10_monthly, 2)} x 0.85; {a10_rule}", 2), **ali_a10}
    for cid, share, what in (("aliyun-sh-a10-cgpu-8g-payg", 1 / 3, "cGPU-style 8 GiB of 24"),
                             ("aliyun-sh-a10-cgpu-12g-payg", 0.5, "cGPU-style 12 GiB of 24"),
                             ("aliyun-hz-a10-vgpu-12g-payg", 0.5, "1/2 A10 vGPU")):
        upd[cid] = estimated(a10 * share, ALI_GN7E_DATE, ALI_GN7E, f"{what}: {money(a10, 2)} x {share:.4g}; "
                             f"{share_note}; queue wait assumed", 2)
    upd["aliyun-sh-a10-cgpu-12g-monthly"] = estimated(a10_monthly * 0.5, ALI_GN7E_DATE, ALI_GN7E,
                                                      f"{money(a10_monthly, 2)} x 1/2; {share_note}", 2)
    upd["aliyun-hz-a10-vgpu-8g-monthly"] = estimated(a10_monthly / 3, ALI_GN7E_DATE, ALI_GN7E,
                                                     f"1/3 A10 vGPU: {money(a10_monthly, 2)} / 3; {share_note}", 2)
    upd["aliyun-wlcb-a10-payg"] = {**estimated(a10 * REMOTE, ALI_GN7E_DATE, ALI_GN7E,
                                               f"{money(a10, 2)} x {REMOTE} (remote-region discount assumed); {a10_rule}", 2),
                                   **ali_a10}
    upd["aliyun-wlcb-a10-spot"] = {**estimated(
        a10 * REMOTE * 0.3, ALI_GN7E_DATE, ALI_GN7E + "; preemptible instance rules: help.aliyun.com document 165053",
        f"preemptible: {money(a10 * REMOTE, 2)} x 0.3 (assumed; Alibaba sets the price by the market, up to the "
        f"pay-as-you-go price); protected for its first hour, a release notice 3 minutes ahead", 2), **ali_a10}
    # H20 and H800: no figure; from the A100 by Lambda's H100 / A100 80 GB ratio for the H800 (the
    # same silicon with a narrower link), and the A100 price for the H20 (96 GB, slower compute).
    l_h100, _ = lam("gpu_1x_h100_sxm5")
    h_ratio = l_h100 / (l_a100 / 8)
    upd["aliyun-wlcb-h20-payg"] = estimated(
        gn7e * REMOTE, ALI_GN7E_DATE, ALI_GN7E,
        f"no public H20 figure: gn7e {gn7e} x {REMOTE} (remote region); the H20 priced as the A100 80 GB it "
        f"replaces (more memory, less compute)", 2)
    upd["aliyun-wlcb-8xh20-monthly"] = estimated(
        8 * 730 * gn7e * REMOTE * MONTHLY, ALI_GN7E_DATE, ALI_GN7E,
        f"8 x 730 h x {money(gn7e * REMOTE, 2)} x {MONTHLY} (monthly ratio of gn7e)", 2)
    for kk, gib in ((1, 12), (2, 24), (3, 48)):
        upd[f"aliyun-wlcb-h20-mig-{kk}g{gib}gb-payg"] = estimated(
            gn7e * REMOTE * kk / 7, ALI_GN7E_DATE, ALI_GN7E,
            f"modelled MIG {kk}g.{gib}gb of an H20: {money(gn7e * REMOTE, 2)} x {kk}/7; {share_note}; queue wait "
            f"assumed", 2)
    h800_gpu_month = gn7e * h_ratio * REMOTE * 730 * MONTHLY
    upd["aliyun-wlcb-8xh800-bm-yearly"] = estimated(
        8 * 12 * h800_gpu_month * 0.85, ALI_GN7E_DATE, f"{ALI_GN7E}; {ALI_YEARLY}; " + sky("lambda", "H100 and A100 80 GB"),
        f"per GPU {gn7e} x Lambda's H100 / A100-80GB ratio {h_ratio:.3f} x {REMOTE} (remote) x 730 x {MONTHLY}; "
        f"x 8 GPUs x 12 months x 0.85 (yearly rule)", 2)

    # --- Tencent Cloud -------------------------------------------------------------------------------
    # GT4 is an A100 40 GB (not 80): its rows are re-derived from gn7e by AWS's ratio of the
    # A100 40 GB p4d to the A100 80 GB p4de.
    a40 = od["p4d"] / od["p4de"]
    gt4 = gn7e * a40
    gt4_rule = (f"no public GT4 figure: Alibaba gn7e {gn7e} x AWS p4d / p4de ({money(od['p4d'])} / "
                f"{money(od['p4de'])} = {a40:.3f}, A100 40 GB against 80 GB)")
    gt4_cols = {"gpu": "A100-40GB", "vram_gib": "40", "instance_type": "GT4.4XLARGE96", "vcpu": "16", "ram_gib": "96"}
    src = ALI_GN7E + "; " + sky("aws", "p4d and p4de on-demand")
    drop.update({"tencent-gz-a100-payg", "tencent-gz-a100-spot", "tencent-sh-a100-monthly",
                 "tencent-gz-8xa100-ri3y-partial", "tencent-gz-a100-qgpu-16g-payg"})
    add("tencent-gz-gt4-a100-40-payg", "tencent-gz-a100-payg", **gt4_cols, **estimated(gt4, ALI_GN7E_DATE, src, gt4_rule, 2))
    add("tencent-gz-gt4-a100-40-spot", "tencent-gz-a100-spot", **gt4_cols, **estimated(
        gt4 * 0.3, ALI_GN7E_DATE, src, f"spot = 0.3 x {money(gt4, 2)} (assumed; no public figure); {gt4_rule}", 2))
    add("tencent-sh-gt4-a100-40-monthly", "tencent-sh-a100-monthly", **gt4_cols, **estimated(
        730 * gt4 * MONTHLY, ALI_GN7E_DATE, src, f"730 h x {money(gt4, 2)} x {MONTHLY} (monthly ratio of gn7e); {gt4_rule}", 2))
    eff = 8 * gt4 * 0.40
    add("tencent-gz-8xgt4-a100-40-ri3y-partial", "tencent-gz-8xa100-ri3y-partial",
        **{**gt4_cols, "instance_type": "GT4.41XLARGE948", "vcpu": "164", "ram_gib": "948"},
        upfront=money(eff * 730 * 36 / 2, 2), **estimated(
            eff * 730 * 36 / 2 / 36, ALI_GN7E_DATE, src,
            f"3-year partial upfront, assumed 60 % off: effective 8 x {money(gt4, 2)} x 0.40 = {money(eff, 2)} CNY/h; "
            f"half upfront, half over 36 months; {gt4_rule}", 2))
    add("tencent-gz-gt4-qgpu-16g-payg", "tencent-gz-a100-qgpu-16g-payg",
        gpu="A100-40GB", gpu_fraction="0.4", vram_gib="16", **estimated(
            gt4 * 16 / 40, ALI_GN7E_DATE, src, f"qGPU-style 16 GiB of 40: {money(gt4, 2)} x 16/40; {share_note}; "
            f"queue wait assumed; {gt4_rule}", 2))
    # GN7 (T4): the international page's price, in USD.
    add("tencent-gz-gn7-t4-payg", "tencent-gz-a100-payg", gpu="T4", vram_gib="16", instance_type="GN7.2XLARGE32",
        vcpu="8", ram_gib="32", currency="USD", **sourced(1.26, TENCENT_INTL_DATE, TENCENT_INTL, "official"))
    # GN10Xp (V100 32 GB) and PNV4 (A10): no figure; from Alibaba's A10 estimate and AWS's p3 shape.
    add("tencent-gz-pnv4-a10-payg", "tencent-gz-a100-payg", gpu="A10", vram_gib="24", instance_type="PNV4.7XLARGE116",
        vcpu="28", ram_gib="116", **estimated(a10, ALI_GN7E_DATE, ALI_GN7E,
                                              f"no public PNV4 figure: priced as Alibaba's A10 estimate; {a10_rule}", 2))
    v100 = gn7e * 2.28 / 6.68
    add("tencent-gz-gn10xp-v100-payg", "tencent-gz-a100-payg", gpu="V100-32GB", vram_gib="32",
        instance_type="GN10Xp.2XLARGE40", vcpu="10", ram_gib="40", **estimated(
            v100, ALI_GN7E_DATE, f"{ALI_GN7E}; {AUTODL}",
            f"no public GN10Xp figure: Alibaba gn7e {gn7e} x AutoDL's V100 32 GB / A100 80 GB ratio 2.28 / 6.68 (a "
            f"platform that lists both)", 2))
    # Alibaba's T4 (gn6i) and A100 40 GB (gn7): no dated figure; from gn7e by AWS's per-GPU ratios.
    t4_ratio = od["g4dnxl"] / (od["p4de"] / 8)
    add("aliyun-sh-gn6i-t4-payg", "aliyun-sh-a100-payg", gpu="T4", vram_gib="16", instance_type="ecs.gn6i-c4g1.xlarge",
        vcpu="4", ram_gib="15", **estimated(
            gn7e * t4_ratio, ALI_GN7E_DATE, ALI_GN7E + "; " + sky("aws", "g4dn.xlarge and p4de.24xlarge on-demand"),
            f"no dated gn6i figure (an undated note says 8.5 CNY/h): gn7e {gn7e} x AWS's T4 / A100-80GB per-GPU ratio "
            f"{money(od['g4dnxl'])} / {money(od['p4de'] / 8)} = {t4_ratio:.3f}", 2))
    add("aliyun-sh-gn7-a100-40-payg", "aliyun-sh-a100-payg", gpu="A100-40GB", vram_gib="40",
        instance_type="ecs.gn7-c12g1.3xlarge", vcpu="12", ram_gib="94", **estimated(
            gn7e * a40, ALI_GN7E_DATE, ALI_GN7E + "; " + sky("aws", "p4d and p4de on-demand"),
            f"no dated gn7 figure (a cost calculator assumes 12,000 CNY a month): gn7e {gn7e} x AWS p4d / p4de "
            f"{a40:.3f}", 2))

    # --- write --------------------------------------------------------------------------------------
    out_rows = []
    for r in rows:
        if r["id"] in drop:
            continue
        r.update(upd.get(r["id"], {}))
        out_rows.append(r)
        # New rows go right after the row they were made from, or after their provider's last row.
    for cid, r in new.items():
        r.update(upd.get(cid, {}))
        provider_rows = [i for i, x in enumerate(out_rows) if x["provider"] == r["provider"]]
        out_rows.insert((provider_rows[-1] + 1) if provider_rows else len(out_rows), r)
    missing = [r["id"] for r in out_rows if not r.get("price_evidence")]
    assert not missing, f"rows with no evidence: {missing}"
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(out_rows)
    head = [c for c in comments if not c.startswith(("# China figures", "# Prices drift", "# gpufare default catalog",
                                                      "#   (official", "#   Re-derived"))]
    intro = ("# gpufare default catalog: public GPU rental offers (shared and dedicated), each price dated by its source.\n"
             "# Prices drift both ways: as_of is the source's own date (never later); price_evidence says how strong it is\n"
             "#   (official, catalog, secondary, estimate); estimates name their comparable and rule in estimate_note.\n"
             "#   Re-derived by core/data/derive_prices.py (sources and rules in its header); refresh with `gpufare catalog refresh`.\n")
    open(CATALOG, "w", encoding="utf-8").write(intro + "".join(head) + out.getvalue())
    ev = {}
    for r in out_rows:
        ev[r["price_evidence"]] = ev.get(r["price_evidence"], 0) + 1
    print(f"{len(out_rows)} rows: {ev}")


main()
