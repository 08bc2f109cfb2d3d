"""The serving model (core/README.md, "Serving") worked out again in plain Python, for the golden
scenarios in plans.py: one replica of an LLM server from its model's shape and its card, the
replicas each hour needs, and the four ways to deploy priced side by side.

Written from the formulas, not from the Rust code: the batch a replica can take is found by
trying every batch in turn (the Rust code bisects), and the autoscaler is walked minute by minute
(the Rust code splits each hour in two).
"""
import math
from statistics import NormalDist
from decimal import Decimal, ROUND_HALF_EVEN

GIB = 1024 ** 3
HOURS_PER_MONTH = 730
MBU, MFU = 0.7, 0.5                 # share of the memory bandwidth and of the tensor FLOPs reached
ENGINE_GIB = 4.0                    # the engine's own memory on each GPU
MAX_BATCH = 512
HEADROOM = 0.8                      # an hour's mean load uses at most this share of a replica
START_S, LOAD_GB_S = 120.0, 1.0     # instance start, and the model load rate
ATTAINMENT = 0.99
MAX_REPLICAS = 64

# From each model's config.json on Hugging Face (dense, untied embeddings, no biases).
MODELS = {
    "llama-3.1-8b": dict(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256),
    "llama-3.1-70b": dict(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256),
}
# Card facts from the datasheets: memory as NVML reports it (MiB), GB/s, dense BF16 TFLOPS,
# FP8 tensor cores, NVLink.
CARDS = {
    "H100-SXM": dict(mib=81559, bw=3350, tflops=989, fp8=True, nvlink=True),
    "A100-80GB": dict(mib=81920, bw=2039, tflops=312, fp8=False, nvlink=True),
    "L40S": dict(mib=46068, bw=864, tflops=362, fp8=True, nvlink=False),
    "L4": dict(mib=23034, bw=300, tflops=121, fp8=True, nvlink=False),
}
WEIGHT_BYTES = {"bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.52}
# Run-level P99 of a whole card; a time-sliced card's request latency P99 (Tally).
LATENCY_P99 = {"dedicated": 1.03, "time_sliced": 2.505}
# Tensor-parallel efficiency per GPU: TensorRT-LLM's H200 70B table over NVLink, the L40S rows
# over PCIe; straight lines in log2(GPUs) between the points.
TP_NVLINK = [(1, 1.0), (2, 0.91), (4, 0.79), (8, 0.58)]
TP_PCIE = [(1, 1.0), (4, 0.32), (8, 0.17)]


def tp_efficiency(gpus, nvlink):
    pts = TP_NVLINK if nvlink else TP_PCIE
    x = math.log2(gpus)
    for (g0, e0), (g1, e1) in zip(pts, pts[1:]):
        x0, x1 = math.log2(g0), math.log2(g1)
        if x <= x1:
            return e0 + (x - x0) / (x1 - x0) * (e1 - e0)
    raise ValueError("more GPUs than the golden scenarios use")


def shape(model):
    m = MODELS[model]
    h, q, kv = m["hidden"], m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"]
    per_layer_linear = h * q + 2 * h * kv + q * h + 3 * h * m["ffn"]   # q, k, v, o; gate, up, down
    linear = m["layers"] * per_layer_linear
    norms = m["layers"] * 2 * h + h
    embeddings = 2 * m["vocab"] * h                                    # input and output, untied
    return dict(m, linear=linear, total=linear + norms + embeddings,
                compute=linear + m["vocab"] * h,                       # the output head runs, the lookup does not
                kv_per_token=lambda b: 2 * m["layers"] * kv * b,
                attention=lambda ctx: 4 * q * m["layers"] * ctx)


class Replica:
    def __init__(self, model, weights, gpus, card, vram_gib, share, tenancy, nvlink, prompt, output):
        s = shape(model)
        c = CARDS[card]
        self.prompt, self.output = prompt, output
        self.s = s
        self.weights = s["linear"] * WEIGHT_BYTES[weights] + (s["total"] - s["linear"]) * 2.0
        kv_bytes = 1.0 if weights == "fp8" else 2.0
        self.kv = s["kv_per_token"](kv_bytes) * (prompt[0] + output[0] / 2)
        longest = s["kv_per_token"](kv_bytes) * (prompt[1] + output[1])
        room = (vram_gib or c["mib"] / 1024) * GIB * gpus - self.weights - ENGINE_GIB * GIB * gpus
        assert room >= longest, "the golden scenarios only use replicas that fit"
        self.max_batch = max(1, min(MAX_BATCH, math.floor(room / self.kv)))
        scale = gpus * tp_efficiency(gpus, nvlink)
        fp8 = 2.0 if weights == "fp8" and c["fp8"] else 1.0
        self.bw = c["bw"] * 1e9 * MBU * share * scale
        self.flops = c["tflops"] * 1e12 * fp8 * MFU * share * scale
        self.tail = LATENCY_P99[tenancy]
        self.gpus = gpus

    def step(self, b):
        """One decode step of b sequences: weights and their caches read, or their FLOPs."""
        ctx = self.prompt[0] + self.output[0] / 2
        memory = (self.weights + b * self.kv) / self.bw
        compute = b * (2 * self.s["compute"] + self.s["attention"](ctx)) / self.flops
        return max(memory, compute)

    def prefill(self, tokens):
        return tokens * (2 * self.s["compute"] + self.s["attention"](tokens / 2)) / self.flops

    def iteration(self, b):
        """A decode step plus the prefills that keep b sequences in flight (b / output per step)."""
        if b == 0:
            return 0.0
        return self.step(b) + b / self.output[0] * self.prefill(self.prompt[0])

    def point(self, b):
        first = max(self.prefill(self.prompt[1]), self.weights / self.bw)
        tokens = b / self.iteration(b)
        return dict(batch=b, output_tokens_per_second=tokens, requests_per_second=tokens / self.output[0],
                    ttft_p99_ms=(first + self.iteration(b - 1)) * 1000 * self.tail,
                    tpot_p99_ms=self.iteration(b) * 1000 * self.tail)

    def capacity(self, ttft, tpot):
        best = None
        for b in range(1, self.max_batch + 1):
            p = self.point(b)
            if p["ttft_p99_ms"] > ttft or p["tpot_p99_ms"] > tpot:
                break
            best = p
        return best

    def lone_request_seconds(self):
        first = max(self.prefill(self.prompt[0]), self.weights / self.bw)
        return first + (self.output[0] - 1) * self.iteration(1)


def queue_p90_s(offer):
    """One start in ten waits this long or more: P0 of starts at once, log-normal beyond."""
    if "queue_median_hours" not in offer:
        return 0.0
    p0, median, sigma = offer["queue_p0"], offer["queue_median_hours"], offer["queue_sigma"]
    v = (0.9 - p0) / (1 - p0)
    return 0.0 if v <= 0 else median * math.exp(sigma * NormalDist().inv_cdf(v)) * 3600


def needed(rps, cap):
    if rps <= 0:
        return 0
    return min(math.ceil(rps / (cap * HEADROOM)), 10_000)


def missed(rps, served):
    return 0.0 if rps <= 0 else min(max(1 - min(served, rps) / rps, 0.0), 1.0)


def dec6(x):
    return Decimal(repr(x)).quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN)


def per_gpu_hour(offer):
    term = {"pay_as_you_go": 1, "spot": 1, "monthly": HOURS_PER_MONTH}[offer["billing_mode"]]
    return Decimal(offer["price"]) / Decimal(term) / offer.get("gpu_count", 1)


def rented(offer, replicas, gpus):
    unit = offer.get("gpu_count", 1)
    return math.ceil(replicas * gpus / unit) * unit


def autoscale(rps, base, base_cap, want, cap, delay_s, billed_s, offer, gpus):
    """Minute by minute: a replica asked for at minute t serves from t + delay while the hourly
    need stays at or above it; it stops the moment the need drops. Starts and loads are billed."""
    hours = len(rps)
    delay = min(math.ceil(delay_s / 60), hours * 60)
    running, gpu_hours, miss, total = [], 0.0, 0.0, 0.0
    starts = sum(max(want[h] - want[h - 1], 0) for h in range(hours))
    for h in range(hours):
        serving = []
        for m in range(60):
            t = h * 60 + m
            first = (t - delay) // 60
            window = range(first, h + 1)
            n = min(want[k % hours] for k in window) if len(window) < hours else min(want)
            serving.append(n)
        running.append(base + sum(serving) / 60)
        gpu_hours += sum(rented(offer, n, gpus) for n in serving) / 60
        if rps[h] > 0:
            total += rps[h]
            miss += rps[h] * sum(missed(rps[h], base * base_cap + n * cap) for n in serving) / 60
    gpu_hours += starts * gpus * billed_s / 3600
    return dict(running=running, gpu_hours=gpu_hours, attainment=1 - miss / total if total else 1.0,
                starts=starts)


def deployments(traffic, model, weights, gpus, offer, committed, pool):
    """Every way to deploy on `offer` (committed: a monthly twin for a fixed base; pool: a shared
    offer billed per use), as {kind: figures}."""
    rps = traffic["rps_by_hour"]
    prompt = (traffic["prompt_tokens"]["mean"], traffic["prompt_tokens"]["p90"])
    output = (traffic["output_tokens"]["mean"], traffic["output_tokens"]["p90"])
    ttft, tpot = traffic["targets"]["ttft_p99_ms"], traffic["targets"]["tpot_p99_ms"]
    hours = len(rps)
    month = HOURS_PER_MONTH / hours
    tokens = sum(rps) / hours * 3600 * HOURS_PER_MONTH * output[0]

    def replica(o):
        r = Replica(model, weights, gpus, o["gpu"], o.get("vram_gib"), o.get("gpu_fraction", 1),
                    o["tenancy"], CARDS[o["gpu"]]["nvlink"] and o["tenancy"] == "dedicated", prompt, output)
        return r, r.capacity(ttft, tpot)

    def priced(kind, o, capacity, cost, attainment, running, extra=None):
        cost = cost.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
        per_m = (cost / dec6(tokens / 1e6)).quantize(Decimal("0.0001"), rounding=ROUND_HALF_EVEN)
        return {"kind": kind, "offer_id": o["id"], "capacity": capacity, "cost_per_month": str(cost),
                "cost_per_million_output_tokens": str(per_m), "attainment": attainment,
                "replicas_by_hour": running, **(extra or {})}

    out = {}
    r, cap = replica(offer)             # cap is None where even a lone request misses the targets
    if committed and replica(committed)[1] is None:
        committed = None
    sides = ([(offer, cap)] if cap else []) + ([(committed, replica(committed)[1])] if committed else [])
    fleets = []
    for o, c in sides:
        n = min(max(max(needed(x, c["requests_per_second"]) for x in rps), 1), MAX_REPLICAS)
        gh = rented(o, n, gpus) * hours * month
        att = 1 - sum(x * missed(x, n * c["requests_per_second"]) for x in rps) / sum(rps)
        fleets.append(priced("fixed_fleet", o, c, per_gpu_hour(o) * dec6(gh), att, [float(n)] * hours,
                             {"base_replicas": n, "gpu_hours_per_month": gh}))
    if fleets:
        out["fixed_fleet"] = min(fleets, key=lambda d: (Decimal(d["cost_per_month"]), -d["attainment"]))

    if cap and offer["billing_mode"] == "pay_as_you_go":
        io = offer.get("io", {})
        rates = ([io["disk_read_mb_s"] / 1000] if "disk_read_mb_s" in io else []) + \
                ([io["download_mbit_s"] / 8000] if "download_mbit_s" in io else [])
        rate = min(rates) if rates else LOAD_GB_S   # measured: the slower of disk and network
        load = r.weights / (rate * 1e9)
        model_load = {"seconds": load, "gb_per_second": rate, "measured": bool(rates)}
        delay = queue_p90_s(offer) + START_S + load
        want = [min(max(needed(x, cap["requests_per_second"]), 1), MAX_REPLICAS) for x in rps]
        w = autoscale(rps, 0, 0.0, want, cap["requests_per_second"], delay, START_S + load, offer, gpus)
        gh = w["gpu_hours"] * month
        out["autoscaling"] = priced("autoscaling", offer, cap, per_gpu_hour(offer) * dec6(gh), w["attainment"],
                                    w["running"], {"scale_up_seconds": delay, "model_load": model_load,
                                                   "gpu_hours_per_month": gh})
        if committed:
            cc = replica(committed)[1]
            base_cap = cc["requests_per_second"]
            best = None
            for b in sorted({needed(x, base_cap) for x in rps} | {1}):
                if not 1 <= b <= MAX_REPLICAS:
                    continue
                burst = [min(needed(max(x - b * base_cap * HEADROOM, 0), cap["requests_per_second"]),
                             MAX_REPLICAS - b) for x in rps]
                w = autoscale(rps, b, base_cap, burst, cap["requests_per_second"], delay, START_S + load,
                              offer, gpus)
                base_gh = rented(committed, b, gpus) * hours * month
                cost = per_gpu_hour(committed) * dec6(base_gh) + per_gpu_hour(offer) * dec6(w["gpu_hours"] * month)
                meets = w["attainment"] >= ATTAINMENT
                key = (not meets, cost if meets else -w["attainment"], cost)
                if best is None or key < best[0]:
                    best = (key, priced("reserved_base", committed, cc, cost, w["attainment"], w["running"],
                                        {"base_replicas": b, "burst_offer_id": offer["id"], "model_load": model_load,
                                         "gpu_hours_per_month": base_gh + w["gpu_hours"] * month}))
            out["reserved_base"] = best[1]
    if pool:
        rp, cp = replica(pool)
        if cp is not None:
            alone = rp.lone_request_seconds()
            busy = [max(1 - math.exp(-x * alone), x / cp["requests_per_second"]) if x > 0 else 0.0 for x in rps]
            gh = sum(busy) * gpus * month
            out["shared_pool"] = priced("shared_pool", pool, cp, per_gpu_hour(pool) * dec6(gh), 1.0, busy,
                                        {"gpu_hours_per_month": gh})
    return out


def choose(found):
    """The cheapest deployment meeting the attainment target, ties to the higher attainment."""
    kinds = ["fixed_fleet", "autoscaling", "reserved_base", "shared_pool"]
    meeting = [d for d in found.values() if d["attainment"] >= ATTAINMENT]
    meeting.sort(key=lambda d: (Decimal(d["cost_per_month"]), -d["attainment"], kinds.index(d["kind"])))
    return meeting[0] if meeting else None
