"""Writes tests/golden/plans.json: plan scenarios whose expected figures are worked out here with
plain arithmetic from the model's stated formulas (core/README.md), independently of the Rust code.

Run: python3 tests/golden/src/plans.py  (the JSON it writes is checked in; the Rust tests read it).
Money is rounded half away from zero to 0.01 per component; totals are sums of rounded components.
"""
import json, math
from statistics import NormalDist
from decimal import Decimal, ROUND_HALF_UP, ROUND_CEILING
from pathlib import Path

def cents(x):
    return str(Decimal(str(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))

def dec6(x):
    return Decimal(repr(x)).quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP)

def metered(price, hours, unit_s=1, minimum_s=0):
    """Pay-as-you-go rent for one run: seconds rounded up, minimum, granularity."""
    secs = math.ceil(dec6(hours) * 3600)
    billed = 0 if secs == 0 else math.ceil(max(secs, minimum_s) / unit_s) * unit_s
    return Decimal(str(price)) * billed / 3600

LAMBDA_30 = -math.log(1 - 0.3) / 730

TASK = {"format_version": 1, "kind": "training", "work_hours": 10, "reference_gpu": "A100-80GB",
        "vram_gib": 20, "currency": "CNY"}
OFFER = {"provider": "P", "region": {"id": "r", "name": "R", "class": "tier1", "rtt_ms": 10},
         "gpu": "A100-80GB", "gpu_count": 1, "tenancy": "dedicated", "gpu_fraction": 1, "vram_gib": 80,
         "currency": "CNY", "storage_per_gb_month": "0", "egress_per_gb": "0", "system_disk_per_month": "0",
         "as_of": "2026-12", "source": "golden", "slowdown": {"median": 1, "p99": 1}}

def payg(id, price, g="second", **kw):
    return {"id": id, "billing_mode": "pay_as_you_go", "price": str(price), "granularity": g, **kw}

def sub(id, mode, price, **kw):
    return {"id": id, "billing_mode": mode, "price": str(price), **kw}

def money(**kw):
    """Expected money fields; total = sum of the rounded components."""
    out = {k: cents(v) for k, v in kw.items()}
    parts = ["rent", "storage", "egress", "time_cost", "risk_cost"]
    out["total_expected"] = cents(sum(Decimal(out.get(p, "0")) for p in parts))
    for p in parts:
        out.setdefault(p, "0.00")
    return out

S = []
def scenario(name, why, task, offers, expect, settings=None, traces=None):
    S.append({"name": name, "why": why, "task": {**TASK, **task}, "offers": offers,
              "settings": settings or {"currency": "CNY", "cny_per_usd": "7.2", "seed": 7, "trials": 2000},
              "expect": expect, **({"traces": traces} if traces else {})})

# 1-2: pay-as-you-go granularity, minimum, runs.
scenario("pay-as-you-go per started hour", "10.5 h -> 11 started hours x 5.00",
         {"work_hours": 10.5}, [payg("a", 5, "hour")],
         {"options": {"a": {"feasible": True, "hours_expected": 10.5, **money(rent=55)}}})
scenario("per-minute billing with a 5-minute minimum, three runs", "each 36 s run bills 5 min at 6/h = 0.50; x3",
         {"work_hours": 0.01, "runs": 3}, [payg("a", 6, "minute", minimum_minutes="5")],
         {"options": {"a": {"hours_expected": 0.03, **money(rent=1.5)}}})
# 3-7: subscriptions per started term and reserved.
scenario("daily plan pays per started day", "30 h -> 2 days x 100", {"work_hours": 30}, [sub("a", "daily", 100)],
         {"options": {"a": money(rent=200)}})
scenario("weekly plan pays per started week", "200 h -> 2 weeks x 600", {"work_hours": 200}, [sub("a", "weekly", 600)],
         {"options": {"a": money(rent=1200)}})
scenario("a 100-hour job on a monthly plan pays the month", "100 h < 730 h -> 1 month x 2000",
         {"work_hours": 100}, [sub("a", "monthly", 2000)], {"options": {"a": money(rent=2000)}})
scenario("yearly plan for 1000 h pays one year", "1000 h < 8760 h -> 20000", {"work_hours": 1000},
         [sub("a", "yearly", 20000)], {"options": {"a": money(rent=20000)}})
scenario("reserved term: upfront plus recurring months", "12-month term: 6000 upfront + 12 x 500 = 12000",
         {"work_hours": 100}, [sub("a", "reserved", 500, term_months=12, upfront="6000")],
         {"options": {"a": money(rent=12000)}})
# 8-9: spot with and without checkpoints.
# A segment of x hours of work with restart r after each failure: F = e^{λr}(e^{λx} - 1) failures,
# F/λ hours of running.
def segment(lam, x, r):
    f = math.exp(lam * r) * math.expm1(lam * x)
    return f / lam, f
h1 = segment(LAMBDA_30, 1, 0.1)[0]
e_ckpt = 100 * h1
scenario("spot with hourly checkpoints", "λ = -ln(0.7)/730; each 1 h segment: F = e^{0.1λ}(e^λ - 1), F/λ h; x100",
         {"work_hours": 100, "checkpoint": {"interval_hours": 1, "restart_overhead_hours": 0.1}},
         [payg("a", 2, interruption_per_month=0.3) | {"billing_mode": "spot"}],
         {"options": {"a": {"hours_expected": round(e_ckpt, 4), "interruptions_expected": round(100 * segment(LAMBDA_30, 1, 0.1)[1], 4),
                            **money(rent=metered(2, e_ckpt))}}})
e_none = math.expm1(LAMBDA_30 * 2000) / LAMBDA_30
scenario("spot without checkpoints: the exponential blow-up", "2000 h unchecked: (e^{λT} - 1)/λ",
         {"work_hours": 2000}, [payg("a", 2, interruption_per_month=0.3) | {"billing_mode": "spot"}],
         {"options": {"a": {"hours_expected": round(e_none, 4), "rework_hours_expected": round(e_none - 2000, 4),
                            **money(rent=metered(2, e_none))}}})
# 10-11: VRAM.
scenario("a 10 GiB slice cannot hold a 20 GiB task", "need 20 > visible 10: OOM, infeasible",
         {}, [payg("slice", 1, tenancy="mig", gpu_fraction=0.142857, vram_gib=10), payg("card", 12)],
         {"choice": "dedicated", "recommended": "card", "ranking": ["card", "slice"],
          "options": {"slice": {"feasible": False, "reasons": ["vram_oom"], "vram_fit": "oom"}, "card": {"feasible": True, "vram_fit": "fits"}}})
scenario("75 of 80 GiB is tight", "75 > 0.9 x 80 = 72", {"vram_gib": 75}, [payg("a", 12)],
         {"options": {"a": {"feasible": True, "vram_fit": "tight", "flags": ["vram_tight"]}}})
# 12-13: deadlines.
scenario("a hard deadline excludes the slow slice", "half a card: 10 h of work takes 20 h > 15 h",
         {"deadline_hours": 15, "deadline_hard": True},
         [payg("half", 3, tenancy="vgpu", gpu_fraction=0.5, vram_gib=40), payg("card", 12)],
         {"choice": "dedicated", "options": {"half": {"feasible": False, "reasons": ["deadline_p90_missed"], "hours_expected": 20},
                                             "card": {"feasible": True, **money(rent=120)}}})
scenario("a soft deadline prices the miss", "20 h always misses 15 h: risk = 1.0 x 1000",
         {"deadline_hours": 15, "deadline_penalty": "1000"}, [payg("half", 3, tenancy="vgpu", gpu_fraction=0.5, vram_gib=40)],
         {"options": {"half": {"feasible": True, "deadline_miss_probability": 1.0, **money(rent=60, risk_cost=1000)}}})
# 14: sensitivity veto.
scenario("data that must stay in-house vetoes shared capacity", "shared excluded; dedicated flagged for missing controls",
         {"sensitivity": "in_house"},
         [payg("shared", 1, tenancy="mps", gpu_fraction=0.5, vram_gib=40), payg("card", 12, security=["vpc"])],
         {"choice": "dedicated_or_private", "recommended": "card",
          "options": {"shared": {"feasible": False, "reasons": ["sensitivity_requires_dedicated"]},
                      "card": {"feasible": True, "flags": ["missing_security_controls"]}}})
# 15: currency and discount.
scenario("USD offer with a provider discount, shown in CNY", "2.00 USD/h x 10 h x 0.9 x 7.2 = 129.60 CNY",
         {}, [payg("a", 2, currency="USD", provider="Cloud")],
         {"options": {"a": money(rent=Decimal("2") * 10 * Decimal("0.9") * Decimal("7.2"))}},
         settings={"currency": "CNY", "cny_per_usd": "7.2", "seed": 7, "trials": 2000,
                   "discounts": [{"provider": "Cloud", "factor": "0.9"}]})
# 16: value of time and queue.
scenario("value of time covers queue and running", "4 h x 3 = 12 rent; (0.5 + 4) h x 50 = 225",
         {"work_hours": 4, "value_of_time_per_hour": "50"}, [payg("a", 3, queue_wait_hours=0.5)],
         {"options": {"a": {"hours_expected": 4.5, "queue_hours_expected": 0.5, **money(rent=12, time_cost=225)}}})
# 17: storage, system disk, egress.
scenario("storage is billed for the months kept; egress per GB", "100 GB x 0.3 x 2 months + 20 x 73/730 system disk; 50 GB x 0.8",
         {"work_hours": 73, "storage_gb": 100, "storage_months": 2, "egress_gb": 50},
         [payg("a", 1, storage_per_gb_month="0.3", egress_per_gb="0.8", system_disk_per_month="20")],
         {"options": {"a": money(rent=73, storage=Decimal("100") * Decimal("0.3") * 2 + Decimal("20") * Decimal("0.1"), egress=40)}})
# 18: multi-GPU.
scenario("multi-GPU training needs whole cards", "72 h of work over 8 GPUs at 0.9 efficiency = 10 h x 40/h",
         {"work_hours": 72, "gpus": 4, "scales_across_gpus": True, "vram_gib": 30},
         [payg("mig", 2, tenancy="mig", gpu_fraction=0.428571, vram_gib=40), payg("node", 40, gpu_count=8)],
         {"choice": "dedicated", "options": {"mig": {"feasible": False, "reasons": ["too_few_gpus", "slices_cannot_combine"]},
                                             "node": {"hours_expected": 10, **money(rent=400)}}})
# 18b: data-parallel training priced from the links (nccl-tests bus bandwidths): per step each
# of 8 GPUs computes 400 h x 3600 / (90,000 x 8) = 2 s; a ring all-reduce of 7e9 BF16 gradients
# takes 2 x 7/8 x 14e9 B / busbw; nothing hides it (no overlap unless the task says);
# efficiency = 2 / (2 + exchange).
def dp_hours(busbw_gb_s, work=400.0, steps=90000, n=8, params=7e9):
    compute = work * 3600 / (steps * n)
    comm = 2 * (n - 1) / n * params * 2 / (busbw_gb_s * 1e9)
    return work / n * (compute + comm) / compute
DP_LINKS = {"nvlink": 230.0, "pcie": 15.0, "tcp": 25 / 8 * 0.4}
scenario("data-parallel training over NVLink, PCIe and two nodes on 25 Gbit/s TCP",
         "all-reduce of 14 GB per 2 s step: 0.11 s on NVLink, 1.63 s on PCIe, 19.6 s over TCP, none hidden",
         {"work_hours": 400, "gpus": 8, "scales_across_gpus": True, "vram_gib": 70,
          "data_parallel": {"params_b": 7, "steps": 90000}},
         [payg("nvlink", 80, gpu_count=8, interconnect="nvlink"),
          payg("pcie", 80, gpu_count=8, interconnect="pcie"),
          payg("tcp", 80, gpu_count=8, interconnect="nvlink", gpus_per_node=4, node_network_gbps=25)],
         {"options": {k: {"feasible": True, "hours_expected": round(dp_hours(bw), 4),
                          **money(rent=metered(80, dp_hours(bw)))} for k, bw in DP_LINKS.items()}})
# 18c: tensor parallelism (Megatron-LM): groups of 8 GPUs inside a node's NVLink, 2 data-parallel
# replicas across two nodes on 200 Gbit/s RDMA (0.9 x 25 GB/s). Per step each of 16 GPUs
# computes 3,200 h x 3600 / (1,000 x 16) = 720 s. Each layer all-reduces its activations 4 times
# (2 forward, 2 backward): a replica's 2^21 tokens x 8,192 x 2 B among 8 GPUs at 230 GB/s, none
# hidden; the replicas all-reduce 1/8 of the 70e9 BF16 gradients between 2 GPUs over the
# network. A PCIe node, or NVLink nodes of 4, cannot hold a group of 8.
def tp_step(work=3200.0, steps=1000, n=16, tp=8, params=70e9, hidden=8192, layers=80,
            tokens=4 * 1024 * 1024, nvlink=230.0, network=0.9 * 200 / 8):
    compute = work * 3600 / (steps * n)
    replicas = n // tp
    ar = lambda b, k, bw: 2 * (k - 1) / k * b / (bw * 1e9)
    tensor = 4 * layers * ar(tokens / replicas * hidden * 2, tp, nvlink)
    data = ar(params * 2 / tp, replicas, network)
    return compute, tensor, data, work / n * (compute + tensor + data) / compute
TP_C, TP_T, TP_D, TP_H = tp_step()
scenario("tensor parallelism inside NVLink, data parallelism across nodes",
         f"TP 8 x DP 2 on 2 nodes of 8 A100: {TP_T:.1f} s of activation all-reduces and {TP_D:.2f} s of gradients per {TP_C:.0f} s step; PCIe or 4-GPU NVLink nodes cannot hold a group of 8",
         {"work_hours": 3200, "gpus": 16, "scales_across_gpus": True, "vram_gib": 70,
          "data_parallel": {"params_b": 70, "steps": 1000, "tensor_parallel": 8, "hidden": 8192,
                            "layers": 80, "tokens_per_step": 4 * 1024 * 1024}},
         [payg("nvlink", 160, gpu_count=16, gpus_per_node=8, interconnect="nvlink",
               node_network_gbps=200, node_network_rdma=True),
          payg("pcie", 120, gpu_count=16, gpus_per_node=8, interconnect="pcie",
               node_network_gbps=200, node_network_rdma=True),
          payg("nvlink4", 140, gpu_count=16, gpus_per_node=4, interconnect="nvlink",
               node_network_gbps=200, node_network_rdma=True)],
         {"options": {"nvlink": {"feasible": True, "hours_expected": round(TP_H, 4),
                                 "/communication/tensor_parallel": 8,
                                 "/communication/tensor_s_per_step": round(TP_T, 6),
                                 "/communication/comm_s_per_step": round(TP_T + TP_D, 6),
                                 "/communication/compute_s_per_step": round(TP_C, 6),
                                 "/communication/compute_hours": round(TP_C * 1000 / 3600, 6),
                                 "/communication/communication_hours": round((TP_T + TP_D) * 1000 / 3600, 6),
                                 **money(rent=metered(160, TP_H))},
                      "pcie": {"feasible": False, "reasons": ["tensor_parallel_needs_nvlink"]},
                      "nvlink4": {"feasible": False, "reasons": ["tensor_parallel_needs_nvlink"]}}})
# 19: code check prefers shared.
scenario("checking that code runs: shared first", "0.5 h: shared 0.50 vs dedicated 0.53; code check agrees with shared",
         {"kind": "code_check", "work_hours": 0.5, "vram_gib": 8},
         [payg("pool", 1, tenancy="time_sliced", vram_gib=24, gpu_fraction=1), payg("card", 1.05)],
         {"choice": "shared", "recommended": "pool", "reasons": ["code_check_shared_first", "cheapest_total"],
          "options": {"pool": money(rent=0.5), "card": money(rent=0.53)}})
# 20: hybrid.
scenario("prototype on shared, train on a monthly dedicated card", "10 h x 1 on the shared slice; 300 h < 730 h on the monthly plan",
         {"kind": "fine_tune_qlora", "work_hours": 300, "prototype": {"hours": 10}},
         [payg("slice", 1, tenancy="mem_capped_container", gpu_fraction=0.25, vram_gib=24),
          sub("monthly", "monthly", 2000), payg("card", 10)],
         {"choice": "hybrid", "hybrid": [["prototype", "slice", "10.00"], ["train", "monthly", "2000.00"]],
          "options": {"monthly": money(rent=2000), "card": money(rent=3000)}})
# 21: latency SLO and region.
scenario("an overseas region misses a 100 ms P99 target", "40 ms x 1.0 + 200 ms RTT = 240 > 100; tier-1: 40 + 10 = 50",
         {"kind": "inference", "work_hours": 0, "latency": {"p99_ms": 100, "base_ms": 40},
          "service": {"hours_per_month": 730, "months": 1}},
         [sub("far", "monthly", 1500, region={"id": "us", "name": "US", "class": "overseas", "rtt_ms": 200}),
          sub("near", "monthly", 3000), payg("near-payg", 5)],
         {"choice": "dedicated", "recommended": "near",
          "reasons": ["production_inference_latency", "cheapest_total", "vram_beyond_slices"],
          "options": {"far": {"feasible": False, "reasons": ["latency_slo_missed"], "latency_p99_ms": 240},
                      "near": {"feasible": True, "latency_p99_ms": 50, **money(rent=3000)},
                      "near-payg": money(rent=3650)}})
# 21b: request tails apart from run-level slowdown (Tally's P99 latency factors). A time-shared
# tenant's solo latency is base/speed x max(1, 0.5/share), then x its factor; a whole card keeps
# its run-level P99 (here the offer's own, 1).
TS_FACTOR, MPS_FACTOR = 2.505, 2.884
scenario("time slicing and MPS stretch a request's P99 by their measured factors",
         "sliced 1/4: 40 x 0.5/0.25 x 2.505 + 10 = 210.4; MPS 1/2: 40 x 1 x 2.884 + 10 = 125.36; card 40 + 10",
         {"kind": "inference", "work_hours": 0, "latency": {"p99_ms": 300, "base_ms": 40},
          "service": {"hours_per_month": 730, "months": 1}},
         [sub("sliced", "monthly", 500, tenancy="time_sliced", gpu_fraction=0.25, slowdown=None),
          sub("mps", "monthly", 800, tenancy="mps", gpu_fraction=0.5, slowdown=None),
          sub("card", "monthly", 3000)],
         {"options": {"sliced": {"feasible": True, "latency_p99_ms": round(40 * (0.5 / 0.25) * TS_FACTOR + 10, 4)},
                      "mps": {"feasible": True, "latency_p99_ms": round(40 * 1 * MPS_FACTOR + 10, 4)},
                      "card": {"feasible": True, "latency_p99_ms": 50}}})
# 21c: a MIG slice by its profile: an A100's 1g.10gb has 14 of 108 SMs (compute share
# 0.12963, to six decimals) and 1 of 8 memory slices (bandwidth share 0.125).
MIG_1G = round(14 / 108, 6)
scenario("a MIG slice runs at its SMs' share for compute, its memory slices' share for bandwidth",
         "1 h on the card: 1 / 0.12963 = 7.7143 h compute-bound; 1 / 0.125 = 8 h memory-bound",
         {"work_hours": 1, "vram_gib": 5},
         [payg("mig", 1, tenancy="mig", mig_profile="1g.10gb", gpu_fraction=MIG_1G, vram_gib=9.75)],
         {"options": {"mig": {"feasible": True, "hours_expected": round(1 / MIG_1G, 4),
                              **money(rent=metered(1, 1 / MIG_1G))}}})
scenario("the same slice for memory-bound work", "1 / (1/8) = 8 h",
         {"work_hours": 1, "vram_gib": 5, "bound": "memory"},
         [payg("mig", 1, tenancy="mig", mig_profile="1g.10gb", gpu_fraction=MIG_1G, vram_gib=9.75)],
         {"options": {"mig": {"feasible": True, "hours_expected": 8.0, **money(rent=metered(1, 8.0))}}})
# 21d: work-conserving sharing (Tally's fit): a tenant of nominal share f next to neighbours of
# load L runs at v = max(f, 1 - L^gamma) x (1 - o L) x (1 - c) of the card; the slowdown against
# f is log-normal with median f / v and sigma (both to 6 decimals, as the plan carries them).
Z99 = NormalDist().inv_cdf(0.99)
SHARING = {"time_sliced": (1.138, 0.152, 0.1304, 0.0), "mps": (3.298, 0.093, 0.0741, 0.0)}
def shared_slowdown(tenancy, f, load, capped=False):
    gamma, sigma, o, c = SHARING[tenancy]
    left = f if capped else max(f, 1 - load ** gamma)
    v = left * (1 - o * load) * (1 - c)
    median = round(f / v, 6)
    p99 = round(median * math.exp(Z99 * sigma), 6)
    s = math.log(p99 / median) / Z99
    return median, p99, median * math.exp(s * s / 2)
TS_LIGHT = shared_slowdown("time_sliced", 0.5, 0.5)
TS_BUSY = shared_slowdown("time_sliced", 0.5, 1.0)
TS_TASK = shared_slowdown("time_sliced", 0.5, 0.2)
MPS_CAPPED = shared_slowdown("mps", 0.5, 0.0, capped=True)
scenario("a time-shared tenant gets what its neighbours leave",
         "half a card: light neighbours (row, L 0.5) -> median %.4f; none known -> always busy %.4f; capped MPS alone stays at its half" % (TS_LIGHT[0], TS_BUSY[0]),
         {"work_hours": 1, "vram_gib": 5},
         [payg("light", 1, tenancy="time_sliced", gpu_fraction=0.5, slowdown=None, neighbour_load=0.5),
          payg("busy", 1, tenancy="time_sliced", gpu_fraction=0.5, slowdown=None),
          payg("capped", 1, tenancy="mps", gpu_fraction=0.5, slowdown=None, neighbour_load=0.0, compute_capped=True)],
         {"options": {"light": {"/slowdown/median": TS_LIGHT[0], "/slowdown/p99": TS_LIGHT[1],
                                "/neighbour_load/source": "offer", "hours_expected": round(2 * TS_LIGHT[2], 4)},
                      "busy": {"/slowdown/median": TS_BUSY[0], "/neighbour_load/load": 1.0,
                               "/neighbour_load/source": "default", "hours_expected": round(2 * TS_BUSY[2], 4)},
                      "capped": {"/slowdown/median": MPS_CAPPED[0], "hours_expected": round(2 * MPS_CAPPED[2], 4)}}})
scenario("the user's neighbours' load beats the row's", "task L 0.2 over the row's 0.5",
         {"work_hours": 1, "vram_gib": 5, "neighbour_load": 0.2},
         [payg("light", 1, tenancy="time_sliced", gpu_fraction=0.5, slowdown=None, neighbour_load=0.5)],
         {"options": {"light": {"/slowdown/median": TS_TASK[0], "/neighbour_load/source": "task",
                                "hours_expected": round(2 * TS_TASK[2], 4)}}})
# 21e: queues start at once or take a long while: p0, then log-normal (median, sigma). The mean
# adds to the wall clock; max_queue_hours is checked against the P90 wait; a row's mean alone
# (queue_wait_hours) takes its pool kind's fitted p0 and sigma (one whole GPU: 0.422, 2.032).
def queue(p0, median, sigma):
    q = lambda p: 0.0 if p <= p0 else median * math.exp(sigma * NormalDist().inv_cdf((p - p0) / (1 - p0)))
    return {"p50": q(0.5), "p90": q(0.9), "p99": q(0.99), "mean": (1 - p0) * median * math.exp(sigma ** 2 / 2)}
POOL = queue(0.5, 0.4, 1.6)
WHOLE_P0, WHOLE_SIGMA = 0.422, 2.032
FROM_MEAN = queue(WHOLE_P0, 0.5 / ((1 - WHOLE_P0) * math.exp(WHOLE_SIGMA ** 2 / 2)), WHOLE_SIGMA)
scenario("a pool's wait is at once or a long while, and the P90 is what a limit checks",
         "mean %.4f h but P90 %.4f h: over a 1 h limit; the row's 0.5 h mean keeps its mean" % (POOL["mean"], POOL["p90"]),
         {"work_hours": 4, "value_of_time_per_hour": "10", "max_queue_hours": 1},
         [payg("pool", 3, queue_p0=0.5, queue_median_hours=0.4, queue_sigma=1.6),
          payg("card", 3, queue_wait_hours=0.5)],
         {"options": {"pool": {"feasible": POOL["p90"] <= 1, "reasons": [] if POOL["p90"] <= 1 else ["queue_too_long"],
                               **{"/queue_hours/" + k: round(v, 4) for k, v in POOL.items()},
                               "/queue_hours/source": "offer"},
                      "card": {"feasible": FROM_MEAN["p90"] <= 1, "hours_expected": 4.5,
                               **{"/queue_hours/" + k: round(v, 4) for k, v in FROM_MEAN.items()},
                               "/queue_hours/source": "from_mean",
                               **money(rent=metered(3, 4), time_cost=4.5 * 10)}}})
scenario("without a limit the pool's mean wait is priced as time", "4 h + mean %.4f h at 10 per hour" % POOL["mean"],
         {"work_hours": 4, "value_of_time_per_hour": "10"},
         [payg("pool", 3, queue_p0=0.5, queue_median_hours=0.4, queue_sigma=1.6)],
         {"options": {"pool": {"feasible": True, "hours_expected": round(4 + POOL["mean"], 4),
                               "queue_hours_expected": round(POOL["mean"], 4),
                               **money(rent=metered(3, 4), time_cost=(4 + POOL["mean"]) * 10)}}})
# 22: no interruptions tolerated.
scenario("a job that cannot be interrupted excludes spot", "interruptible: false",
         {"interruptible": False}, [payg("spot", 1, interruption_per_month=0.075) | {"billing_mode": "spot"}, payg("card", 12)],
         {"options": {"spot": {"feasible": False, "reasons": ["interruptions_not_tolerated"]}}})
# 23: nothing fits.
scenario("no offer is feasible", "200 GiB on 80 GiB cards", {"vram_gib": 200}, [payg("card", 12)],
         {"choice": "no_feasible_offer", "reasons": ["no_feasible_offer", "vram_oom", "vram_beyond_slices"]})
# 25: data that must stay in-house, and only shared offers: why nothing is feasible.
scenario("in-house data with only shared offers says why nothing fits", "in_house excludes both slices",
         {"sensitivity": "in_house"},
         [payg("slice", 1, tenancy="mig", gpu_fraction=0.5, vram_gib=40), payg("pool", 1, tenancy="time_sliced")],
         {"choice": "no_feasible_offer",
          "reasons": ["no_feasible_offer", "data_in_house", "sensitivity_requires_dedicated", "vram_beyond_slices"]})
# 24: speed scaling across GPU models.
scenario("memory-bound work scales with bandwidth", "H200 4800 GB/s vs A100-80GB 2039 GB/s: 10 h -> 4.2480 h",
         {"bound": "memory"}, [payg("h200", 10, gpu="H200", vram_gib=141)],
         {"options": {"h200": {"hours_expected": round(10 * 2039 / 4800, 4), **money(rent=metered(10, 10 * 2039 / 4800))}}})

# 26-28: the other forms of the rate, the capacity gap, and a notice that saves the work.
spot = lambda id, price, **kw: payg(id, price, **kw) | {"billing_mode": "spot"}
ckpt = {"checkpoint": {"interval_hours": 1, "restart_overhead_hours": 0.1}}
run_h, fails = (10 * v for v in segment(0.5, 1, 0.1))
scenario("a rate per running hour with 2 h gaps", "λ = 0.5/h: 10 segments of F = e^{0.05}(e^{0.5} - 1); wall = F/λ + 2F",
         {**ckpt, "spot_policy": {"kind": "spot_only"}},
         [spot("a", 2, interruption_per_hour=0.5, capacity_gap_hours=2)],
         {"options": {"a": {"hours_expected": round(run_h + 2 * fails, 4), "running_hours_expected": round(run_h, 4),
                            "interruptions_expected": round(fails, 4), "/policy/kind": "spot_only",
                            "/risk/rate_per_hour": 0.5, "/risk/gap_hours": 2, **money(rent=metered(2, run_h))}}})
lam = 1 / 4
scenario("a mean time between interruptions, and a notice that saves a checkpoint",
         "MTBI 4 h: λ = 0.25; a 300 s notice covers a 2-minute save: running 10 e^{0.025}, failures 2.5 e^{0.025}, 1 h gaps",
         {"checkpoint": {"interval_hours": 1, "restart_overhead_hours": 0.1, "save_minutes": 2}},
         [spot("a", 2, mtbi_hours=4, capacity_gap_hours=1, notice_seconds=300)],
         {"options": {"a": {"running_hours_expected": round(10 * math.exp(lam * 0.1), 4),
                            "interruptions_expected": round(2.5 * math.exp(lam * 0.1), 4),
                            "hours_expected": round(10 * math.exp(lam * 0.1) + 2.5 * math.exp(lam * 0.1), 4),
                            "/risk/saves_on_notice": True, "/risk/rate_form": "mtbi",
                            **money(rent=metered(2, 10 * math.exp(lam * 0.1)))}}})
scenario("a notice shorter than the save saves nothing", "120 s < the 6-minute restart taken as the save time",
         {**ckpt, "spot_policy": {"kind": "spot_only"}},
         [spot("a", 2, interruption_per_hour=0.5, notice_seconds=120)],
         {"options": {"a": {"running_hours_expected": round(run_h, 4), "/risk/saves_on_notice": False}}})

# 29-32: policies replayed on a hand-made trace. An independent implementation of the replay
# rules of core/README.md: a job starts at every tick; work accrues while an instance runs; a
# preemption loses the work since the last checkpoint; the gap is waited out unbilled; each
# restart costs r, billed; the trace wraps around; a policy moves the rest (from the last
# checkpoint, plus a restart) to the on-demand offer.
TICK = [1, 1, 1, 0, 1, 1, 1, 1, 1, 1]  # hourly ticks: 3 h running, 1 h gap, 6 h running

def stretches(counts):
    out = []
    for c in counts:
        r = c >= 1
        if out and out[-1][0] == r:
            out[-1][1] += 1
        else:
            out.append([r, 1])
    return out

def replay_one(start, work, interval, restart, policy, deadline=None, od_hours=None, tick=None,
               protection=0.0):
    """(wall, spot billed, fallback billed) of one start on `tick` (TICK by default), tick by tick
    of state. With a protection period each instance (at the start and after each gap) keeps
    running for its first `protection` hours whatever the trace says; then it is reclaimed at
    once if the trace has no capacity there, else at the trace's next preemption."""
    TICKS = tick or TICK
    n = len(TICKS)
    t = 0.0
    pos = float(start)
    running = lambda p: TICKS[int(p) % n] >= 1
    def until_change(p):
        # Hours from p to the next change of state (wrapping; infinite if none).
        k = int(p)
        h = (k + 1) - p
        state = running(p)
        for i in range(1, 2 * n):
            if running(k + i) != state:
                return h
            h += 1
        return float("inf")
    # Wait for an instance.
    if not running(pos):
        w = until_change(pos)
        if policy == "deadline_aware" and w > deadline - od_hours:
            slack = max(deadline - od_hours, 0)
            return slack + od_hours, 0.0, od_hours
        t += w
        pos += w
    saved, need_restart, billed, pre = 0.0, 0.0, 0.0, 0
    while True:
        if protection > 0:
            end = pos + protection
            window = protection + (until_change(end) if running(end) else 0.0)
        else:
            window = until_change(pos)
        need = need_restart + (work - saved)
        if window >= need:
            return t + need, billed + need, 0.0
        t += window
        pos += window
        billed += window
        pre += 1
        if window > need_restart:
            reached = saved + window - need_restart
            saved = max(saved, math.floor(reached / interval + 1e-12) * interval)
        need_restart = restart
        rest = restart + (work - saved) / work * od_hours if od_hours else None
        gap = until_change(pos)
        if policy == "fallback_after_1" and pre >= 1:
            return t + rest, billed, rest
        if policy == "deadline_aware":
            slack = deadline - t - rest
            if gap > slack:
                t += min(max(slack, 0), gap)
                return t + rest, billed, rest
        t += gap
        pos += gap

def replayed(policy, deadline=None, tick=None, protection=0.0):
    tick = tick or TICK
    runs = [replay_one(s, 4.0, 2.0, 0.5, policy, deadline, 4.0, tick, protection) for s in range(len(tick))]
    walls = sorted(r[0] for r in runs)
    rank = lambda q: walls[max(math.ceil(q * len(walls)), 1) - 1]
    mean = lambda i: sum(r[i] for r in runs) / len(runs)
    return {"mean": mean(0), "spot": mean(1), "fallback": mean(2), "p50": rank(0.5), "p90": rank(0.9)}

def hand_trace(counts):
    return {"name": "hand.json", "tick_seconds": 3600, "ticks": len(counts),
            "spans": [{"count": 1 if r else 0, "seconds": 3600 * k} for r, k in stretches(counts)]}

REPLAY_TASK = {"work_hours": 4, "checkpoint": {"interval_hours": 2, "restart_overhead_hours": 0.5}}
pair = [spot("spot", 2, interruption_per_hour=0.5), payg("card", 3)]
for k, (policy, extra) in enumerate([("spot_only", {}), ("fallback_after_1", {}),
                                     ("deadline_aware", {"deadline_hours": 5.5})]):
    r = replayed(policy, extra.get("deadline_hours"))
    kind = {"kind": "fallback_after", "preemptions": 1} if policy == "fallback_after_1" else {"kind": policy}
    rent = Decimal(metered(2, r["spot"])) + (Decimal(metered(3, r["fallback"])) if r["fallback"] else 0)
    scenario(f"the replay of a hand-made trace under {policy}",
             "3 h running, 1 h gap, 6 h running (hourly ticks, wrapping): a 4 h job with 2 h checkpoints and 0.5 h restarts from every tick",
             {**REPLAY_TASK, **extra, "spot_policy": kind}, pair,
             {"options": {"spot": {"/policy": kind, "/risk/rate_source": "trace",
                                   "hours_expected": round(r["mean"], 4), "hours_p50": round(r["p50"], 4),
                                   "hours_p90": round(r["p90"], 4),
                                   "running_hours_expected": round(r["spot"] + r["fallback"], 4),
                                   "/risk/trace/preemptions": 1, "/risk/trace/hours": 10,
                                   **money(rent=rent)}}},
             traces=[{"offer_id": "spot", "trace": hand_trace(TICK)}])
scenario("on-demand only costs what the on-demand offer costs", "the spot offer's figures are the card's: 4 h x 3",
         {**REPLAY_TASK, "spot_policy": {"kind": "on_demand_only"}}, pair,
         {"options": {"spot": {"/policy/kind": "on_demand_only", "hours_expected": 4, **money(rent=12)},
                      "card": {"hours_expected": 4, **money(rent=12)}}})

# 33-38: protection periods. An instance is never preempted in its first P hours after each start
# (the run's start and each restart after a gap; the restart's overhead runs inside the window).
# An independent walk over checkpoints: the masses on every distinct protection left q at a
# checkpoint, each segment first tried with q left, then retried on fresh instances.
def protected_run(lam, work, interval, restart, P):
    """(running hours, failures) of one run, P hours of protection after each start."""
    def seg(q, x):
        shield = min(q, x)
        fail = 1 - math.exp(-lam * (x - shield))
        e = max(restart + x - P, 0.0)
        tries = math.exp(lam * e)
        retry = min(P, restart + x) * tries + (tries - 1) / lam
        return shield + fail / lam + fail * retry, fail * tries, 1 - fail
    if interval is None or interval > work:
        t, f, _ = seg(P, work)
        return t, f
    n = int(work // interval)
    rest = work - n * interval
    states = {P: 1.0}
    T = F = 0.0
    for _ in range(n):
        nxt = {}
        failed = 0.0
        for q, m in states.items():
            t, f, ok = seg(q, interval)
            T += m * t
            F += m * f
            k = max(q - interval, 0.0)
            nxt[k] = nxt.get(k, 0.0) + m * ok
            failed += m * (1 - ok)
        k = max(P - restart - interval, 0.0)
        nxt[k] = nxt.get(k, 0.0) + failed
        states = nxt
    if rest > 0:
        for q, m in states.items():
            t, f, _ = seg(q, rest)
            T += m * t
            F += m * f
    return T, F

# λ = 0.5, hourly checkpoints, 0.1 h restarts, P = 1 h: the first segment runs under the first
# instance's protection; the nine others are first tried unprotected (failing with 1 - e^{-0.5})
# and retried on instances protected for 1 of their 1.1 h: e^{0.05} retries on average.
fail = 1 - math.exp(-0.5)
retry = 1 * math.exp(0.05) + math.expm1(0.05) / 0.5
p_run, p_fails = 1 + 9 * (fail / 0.5 + fail * retry), 9 * fail * math.exp(0.05)
assert abs(p_run - protected_run(0.5, 10, 1, 0.1, 1)[0]) < 1e-12
scenario("a 1-hour protection period after each start", "λ = 0.5/h, 1 h checkpoints, 0.1 h restarts, P = 1 h: segment 1 free, 9 segments F = (1 - e^{-0.5}) e^{0.05}",
         {**ckpt, "spot_policy": {"kind": "spot_only"}},
         [spot("a", 2, interruption_per_hour=0.5, capacity_gap_hours=2, protection_hours=1)],
         {"options": {"a": {"hours_expected": round(p_run + 2 * p_fails, 4), "running_hours_expected": round(p_run, 4),
                            "interruptions_expected": round(p_fails, 4), "/risk/protection_hours": 1,
                            **money(rent=metered(2, p_run))}}})
w_run, w_fails = protected_run(0.5, 3, 0.25, 0.05, 1)
scenario("protection that outlasts a checkpoint", "P = 1 h, 15-minute checkpoints, 0.05 h restarts: a restarted instance passes 3 checkpoints protected; walked state by state",
         {"work_hours": 3, "checkpoint": {"interval_hours": 0.25, "restart_overhead_hours": 0.05}, "spot_policy": {"kind": "spot_only"}},
         [spot("a", 2, interruption_per_hour=0.5, protection_hours=1)],
         {"options": {"a": {"running_hours_expected": round(w_run, 4), "interruptions_expected": round(w_fails, 4),
                            **money(rent=metered(2, w_run))}}})
u_fails = math.expm1(0.5 * 3)
u_run = 1 * math.exp(0.5 * 3) + u_fails / 0.5
scenario("protection without checkpoints", "4 h unchecked, λ = 0.5, P = 1: F = e^{λ(W-P)} - 1, T = P e^{λ(W-P)} + F/λ",
         {"work_hours": 4, "spot_policy": {"kind": "spot_only"}},
         [spot("a", 2, interruption_per_hour=0.5, protection_hours=1)],
         {"options": {"a": {"running_hours_expected": round(u_run, 4), "interruptions_expected": round(u_fails, 4),
                            **money(rent=metered(2, u_run))}}})
def poisson_at_least(k, mu):
    term, cdf = math.exp(-mu), 0.0
    for i in range(k):
        cdf += term
        term *= mu / (i + 1)
    return 1 - cdf
# A notice that saves the work: every running hour is work or a restart, T = W + r F, and with
# a = P - r of free work per restart, F = Σ_k P(Poisson(λ(W - P - k a)) ≥ k + 1).
s_fails = sum(poisson_at_least(k + 1, 0.25 * (9 - k * 0.9)) for k in range(10) if 9 - k * 0.9 > 1e-12)
s_run = 10 + 0.1 * s_fails
scenario("protection with a notice that saves the work", "MTBI 4 h, P = 1 h, 0.1 h restarts: F = Σ_k P(Poisson(0.25 (9 - 0.9k)) ≥ k + 1), T = 10 + 0.1 F, 1 h gaps",
         {"checkpoint": {"interval_hours": 1, "restart_overhead_hours": 0.1, "save_minutes": 2}, "spot_policy": {"kind": "spot_only"}},
         [spot("a", 2, mtbi_hours=4, capacity_gap_hours=1, notice_seconds=300, protection_hours=1)],
         {"options": {"a": {"running_hours_expected": round(s_run, 4), "interruptions_expected": round(s_fails, 4),
                            "hours_expected": round(s_run + s_fails, 4), "/risk/saves_on_notice": True,
                            **money(rent=metered(2, s_run))}}})
# The replay with protection: 1 h running, a 1 h gap, 8 h running. With P = 2.5 h the preemption
# at 1 h falls inside the window of a start at tick 0, whose instance runs on through the gap;
# a start at tick 9 outlives the preemption at 11 h but not the gap, and is reclaimed at 11.5 h.
TICK_P = [1, 0, 1, 1, 1, 1, 1, 1, 1, 1]
shielded = [spot("spot", 2, interruption_per_hour=0.5, protection_hours=2.5), payg("card", 3)]
for policy, kind in [("spot_only", {"kind": "spot_only"}), ("fallback_after_1", {"kind": "fallback_after", "preemptions": 1})]:
    r = replayed(policy, tick=TICK_P, protection=2.5)
    rent = Decimal(metered(2, r["spot"])) + (Decimal(metered(3, r["fallback"])) if r["fallback"] else 0)
    scenario(f"the replay skips a preemption inside the protection under {policy}",
             "1 h running, 1 h gap, 8 h running (hourly ticks); P = 2.5 h: a preemption within 2.5 h of an instance's start is not applied; with no capacity when the protection ends the instance is reclaimed then",
             {**REPLAY_TASK, "spot_policy": kind}, shielded,
             {"options": {"spot": {"/policy": kind, "/risk/rate_source": "trace", "/risk/protection_hours": 2.5,
                                   "hours_expected": round(r["mean"], 4), "hours_p50": round(r["p50"], 4),
                                   "hours_p90": round(r["p90"], 4),
                                   "running_hours_expected": round(r["spot"] + r["fallback"], 4),
                                   **money(rent=rent)}}},
             traces=[{"offer_id": "spot", "trace": hand_trace(TICK_P)}])

# 47-52: services. The replica, the replicas each hour needs and the four ways to deploy are worked
# out by serving.py from the formulas; every offer is feasible for the plan, so each is priced.
import serving as sv

def service_expect(task, offers):
    """The service plan's figures: for each offer its deployments, and the choice across offers."""
    spec = task["serving"]
    gpus = spec.get("gpus_per_replica", task.get("gpus", 1))
    weights = spec.get("weights", "bf16")
    metered = lambda o: o["billing_mode"] == "pay_as_you_go"
    price = lambda o: (sv.per_gpu_hour(o), o["id"])
    per_offer, chosen = {}, []
    for o in offers:
        twins = [x for x in offers if not metered(x) and (x["gpu"], x.get("gpu_count", 1), x["tenancy"])
                 == (o["gpu"], o.get("gpu_count", 1), o["tenancy"])] if metered(o) else []
        committed = min(twins, key=price) if twins else None
        pools = sorted([x for x in offers if x["tenancy"] != "dedicated" and metered(x)], key=price)
        found = None
        for pool in pools[:8] or [None]:
            found = sv.deployments(spec["traffic"], spec["model"], weights, gpus, o, committed, pool)
            if "shared_pool" in found:
                break
        per_offer[o["id"]] = found
        best = sv.choose(found)
        if best:
            chosen.append(best)
    chosen.sort(key=lambda d: (Decimal(d["cost_per_month"]), d["offer_id"]))
    first = chosen[0]
    return {"choice": {"kind": first["kind"], "offer_id": first["offer_id"],
                       "cost_per_month": first["cost_per_month"], "attainment": first["attainment"]},
            "offers": per_offer}

def service_scenario(name, why, task, offers, extra=None):
    full = [{**OFFER, **o} for o in offers]
    expect = service_expect(task, full)
    S.append({"name": name, "why": why, "task": {**TASK, **task}, "offers": full,
              "settings": {"currency": "CNY", "cny_per_usd": "7.2", "seed": 7, "trials": 2000},
              "expect": {"service": expect, **(extra or {})}})

def traffic(name, rps, prompt=(1155, 2734), output=(211, 424), ttft=2000, tpot=100):
    return {"name": name, "rps_by_hour": rps,
            "prompt_tokens": {"mean": prompt[0], "p90": prompt[1]},
            "output_tokens": {"mean": output[0], "p90": output[1]},
            "targets": {"ttft_p99_ms": ttft, "tpot_p99_ms": tpot}}

def serve(model, t, **kw):
    return {"kind": "inference", "work_hours": 0, "vram_gib": 20, "reference_gpu": "H100-SXM",
            "service": {"hours_per_month": 730, "months": 1},
            "serving": {"model": model, "traffic": t, **kw}}

STEADY = traffic("steady", [0.2] * 24)
OFFICE = traffic("office", [0.3] * 8 + [6.0] * 10 + [0.3] * 6)
BUSY = traffic("busy office", [4.0] * 8 + [40.0] * 10 + [4.0] * 6)
CARDS_8B = [
    payg("h100", 16, gpu="H100-SXM"),
    sub("h100m", "monthly", 7000, gpu="H100-SXM"),
    payg("l4", 3.5, gpu="L4", vram_gib=24),
    payg("l4pool", 1.2, gpu="L4", vram_gib=24, tenancy="time_sliced", gpu_fraction=0.5),
    payg("a100pool", 4, gpu="A100-80GB", tenancy="time_sliced", gpu_fraction=0.5),
]
service_scenario("a steady trickle of requests", "0.2 requests/s around the clock, Llama-3.1 8B in BF16: one replica is enough everywhere; the time-sliced L4 misses 100 ms per token (its P99 is 2.5x), so the shared pool is the next one, half an A100, billed for busy hours only",
                 serve("llama-3.1-8b", STEADY), CARDS_8B)
service_scenario("office hours", "0.3 requests/s at night, 6 in ten office hours: a fleet for the peak idles at night; a monthly base plus pay-as-you-go bursts or autoscaling follow the day",
                 serve("llama-3.1-8b", OFFICE), CARDS_8B)
service_scenario("a queue before each new instance", "4 requests/s at night, 40 in office hours; the H100 offer states its queue (P0 0.5, median 3 min, sigma 1): its P90 (about 418 s) is added to the start and the load before a new replica serves",
                 serve("llama-3.1-8b", BUSY),
                 [payg("h100", 16, gpu="H100-SXM", queue_p0=0.5, queue_median_hours=0.05, queue_sigma=1.0),
                  sub("h100m", "monthly", 7000, gpu="H100-SXM")])
service_scenario("weights loaded at the rates measured on the machine", "the H100 offer carries a probe profile's rates, disk 500 MB/s and download 2,000 Mbit/s: the weights come at the slower, 0.25 GB/s, about 64 s instead of 16 s at the default 1 GB/s",
                 serve("llama-3.1-8b", BUSY),
                 [payg("h100", 16, gpu="H100-SXM", io={"disk_read_mb_s": 500, "download_mbit_s": 2000}),
                  sub("h100m", "monthly", 7000, gpu="H100-SXM")])
service_scenario("a 70B model in FP8 across two NVLinked H100s", "tensor parallelism over 2 GPUs at 0.91 each (NVLink), FP8 weights and cache on FP8 tensor cores",
                 {**serve("llama-3.1-70b", BUSY, weights="fp8", gpus_per_replica=2), "gpus": 2, "vram_gib": 80},
                 [payg("h100x2", 32, gpu="H100-SXM", gpu_count=2, vram_gib=80),
                  sub("h100x2m", "monthly", 14000, gpu="H100-SXM", gpu_count=2, vram_gib=80)])
service_scenario("a 70B model in FP8 across two L40S over PCIe", "no NVLink: 2 GPUs at 0.66 each, a straight line in log2(GPUs) between 1.0 at one and the L40S rows' 0.32 at four",
                 {**serve("llama-3.1-70b", STEADY, weights="fp8", gpus_per_replica=2), "gpus": 2, "vram_gib": 40},
                 [payg("l40sx2", 14, gpu="L40S", gpu_count=2, vram_gib=48)])

# 29: the Monte Carlo itself, re-derived: the plan's sampler written out again from its description
# (core/README.md, "Common random numbers"; numbers::rng): PCG-64 MCG streams seeded through
# rand_core's PCG-32 seed expansion, one stream per trial number under the label "gpufare/offer",
# uniforms from the top 53 bits, exponentials by Marsaglia and Tsang's 256-layer ziggurat (its
# table worked out here from the paper's r and v). A checkpointed job on a card without
# neighbours (no slowdown spread) and without a queue reads no other draw, so its P50, P90 and
# deadline miss follow from these streams and the job's rules alone.
M64, M128 = (1 << 64) - 1, (1 << 128) - 1

def fnv1a(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001b3) & M64
    return h

class Mcg:
    """PCG-64 MCG (XSL-RR output), seeded from a u64 as rand_core's seed_from_u64 does."""
    MULT = 0x2360ED051FC65DA44385DF649FCCF645

    def __init__(self, seed):
        raw = b""
        for _ in range(4):
            seed = (seed * 6364136223846793005 + 11634580027462260723) & M64
            x = ((((seed >> 18) ^ seed) >> 27) & 0xFFFFFFFF)
            r = seed >> 59
            raw += (((x >> r) | (x << ((32 - r) & 31))) & 0xFFFFFFFF).to_bytes(4, "little")
        self.state = int.from_bytes(raw, "little") | 1

    def next_u64(self):
        self.state = (self.state * self.MULT) & M128
        r = self.state >> 122
        x = ((self.state >> 64) ^ self.state) & M64
        return ((x >> r) | (x << ((64 - r) & 63))) & M64

    def uniform(self):
        return ((self.next_u64() >> 11) + 1) * 2.0 ** -53

    def exponential(self):
        """Ziggurat: layer from the low 8 bits, the point across it from the top 53."""
        while True:
            bits = self.next_u64()
            i = bits & 0xFF
            x = (bits >> 11) * 2.0 ** -53 * ZIG_X[i]
            if x < ZIG_X[i + 1]:
                return x
            if i == 0:
                return ZIG_R - math.log(self.uniform())
            if ZIG_F[i] + (ZIG_F[i + 1] - ZIG_F[i]) * self.uniform() < math.exp(-x):
                return x

# The exponential ziggurat of Marsaglia and Tsang (J. Stat. Software 5(8), 2000): 256 layers of
# area v under e^-x, the base one reaching the tail at r.
ZIG_R, ZIG_V = 7.69711747013104972, 0.0039496598225815571993
ZIG_X = [ZIG_V / math.exp(-ZIG_R), ZIG_R] + [0.0] * 255
for _i in range(1, 255):
    ZIG_X[_i + 1] = -math.log(math.exp(-ZIG_X[_i]) + ZIG_V / ZIG_X[_i])
ZIG_F = [math.exp(-x) for x in ZIG_X]

def trial_stream(seed, label, trial):
    z = (trial + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    return Mcg((seed ^ fnv1a(label)) ^ z)

def mc_trial(seed, trial, work, rate, gap_mean, interval, restart):
    """One trial of one run staying on the offer: wall-clock hours and preemptions."""
    rng = trial_stream(seed, "gpufare/offer", trial)
    rng.uniform()  # the fallback's queue wait: drawn first in every trial
    wall, saved, restart_left, preempted = 0.0, 0.0, 0.0, 0
    while True:
        window = rng.exponential() / rate
        need = restart_left + (work - saved)
        if window >= need:
            return wall + need, preempted
        wall += window
        preempted += 1
        if window > restart_left:
            saved = max(saved, math.floor((saved + window - restart_left) / interval) * interval)
        restart_left = restart
        wall += gap_mean * rng.exponential()

def nearest_rank(sorted_xs, q):
    return sorted_xs[max(1, math.ceil(q * len(sorted_xs))) - 1]


MC = [mc_trial(7, t, 10.0, 0.5, 2.0, 1.0, 0.1) for t in range(2000)]
MC_WALL = sorted(w for w, _ in MC)
scenario("the Monte Carlo's P50, P90 and deadline miss, from the sampler written out again",
         "2000 trials of 10 h at 0.5 preemptions/h, hourly checkpoints, 0.1 h restarts, 2 h gaps; deadline 30 h",
         {**ckpt, "deadline_hours": 30, "spot_policy": {"kind": "spot_only"}},
         [spot("a", 2, interruption_per_hour=0.5, capacity_gap_hours=2)],
         {"options": {"a": {"hours_p50": round(nearest_rank(MC_WALL, 0.5), 4),
                            "hours_p90": round(nearest_rank(MC_WALL, 0.9), 4),
                            "deadline_miss_probability": round(sum(w > 30 for w in MC_WALL) / 2000, 4)}}})

for s in S:
    s["offers"] = [{**OFFER, **o} for o in s["offers"]]
out = {"format_version": 1,
       "about": "Plan scenarios with expected figures worked out from the model's formulas in tests/golden/src/plans.py (independent of the Rust code). Checked natively and in wasm32.",
       "scenarios": S}
Path(__file__).resolve().parents[1].joinpath("plans.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
print(len(S), "scenarios")
