#!/usr/bin/env python3
"""Fits the round-trip time gpufare assumes between two places with no published measurement.

Reads places.csv (coordinates) and latency.csv (published round trips, see its header), takes the
mean of both directions of each pair, and fits

    rtt_ms = base_ms + ms_per_1000_km * great_circle_km / 1000

by ordinary least squares over every pair. The two constants are printed; they are written into
core/src/offers/latency.rs (FIT_BASE_MS, FIT_MS_PER_1000_KM), and a test there repeats this fit
from the same two files and checks it gets the same constants.

Why a line in distance: light in fibre covers about 200 km per millisecond, so a straight fibre
would give 1 ms of round trip per 100 km; real routes are longer than the great circle and pass
through routers, which the slope and the intercept absorb. The fit ignores what a line cannot
know: border gateways (routes out of mainland China are often slower than their distance says)
and undersea detours. A measured round trip (gpufare probe --rtt-regions) replaces it.

Usage: python3 core/data/derive_latency.py
"""

import csv
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
EARTH_RADIUS_KM = 6371.0088  # IUGG mean Earth radius


def rows(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def great_circle_km(a, b):
    lat1, lon1, lat2, lon2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = (math.sin((lat2 - lat1) / 2) ** 2
         + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2)
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def pairs():
    places = {p["id"]: (float(p["lat"]), float(p["lon"])) for p in rows("places.csv")}
    both = {}
    for r in rows("latency.csv"):
        key = tuple(sorted((r["from"], r["to"])))
        both.setdefault(key, []).append(float(r["rtt_ms"]))
    out = []
    for (a, b), ms in sorted(both.items()):
        out.append((great_circle_km(places[a], places[b]), sum(ms) / len(ms), a, b))
    return out


def fit(points):
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in points)
    slope = sxy / sxx
    return my - slope * mx, slope * 1000.0


def main():
    points = pairs()
    base, per_1000 = fit(points)
    print(f"pairs: {len(points)}")
    print(f"FIT_BASE_MS = {base:.2f}")
    print(f"FIT_MS_PER_1000_KM = {per_1000:.3f}")
    worst = sorted(points, key=lambda p: abs(p[1] - (base + per_1000 * p[0] / 1000)))[-3:]
    for km, ms, a, b in worst:
        print(f"largest miss: {a}-{b} {km:.0f} km measured {ms:.1f} ms, "
              f"fit {base + per_1000 * km / 1000:.1f} ms")


if __name__ == "__main__":
    main()
