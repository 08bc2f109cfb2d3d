//! Summary statistics of a measured series, the way hyperfine reports them: min, percentiles,
//! max, mean and standard deviation, next to the raw samples they came from.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A series summarised. Percentiles use the nearest-rank method on the sorted samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Smallest sample.
    pub min: f64,
    /// Median (nearest rank).
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator; 0 for one sample).
    pub stddev: f64,
}

impl Summary {
    /// The tail ratio P99 / P50 (the jitter measure of the article); `None` when P50 is 0.
    pub fn tail_ratio(&self) -> Option<f64> {
        (self.p50 > 0.0).then(|| self.p99 / self.p50)
    }
}

/// The standard normal quantile: z with P(Z <= z) = `p`, for `p` in (0, 1) (infinite at 0 and 1,
/// 0 for a `p` that is not a number). Acklam's rational approximation, then one Halley step on
/// the exact CDF (from `erfc`): close to machine precision over the whole range.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() {
        return 0.0;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        let q = libm::sqrt(-2.0 * libm::log(q));
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let x = if p < 0.024_25 {
        tail(p)
    } else if p > 1.0 - 0.024_25 {
        -tail(1.0 - p)
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    // Halley's step on Phi(x) - p.
    let e = 0.5 * libm::erfc(-x / std::f64::consts::SQRT_2) - p;
    let u = e * libm::sqrt(2.0 * std::f64::consts::PI) * libm::exp(x * x / 2.0);
    x - u / (1.0 + x * u / 2.0)
}

/// The 0-based position of the nearest-rank quantile `q` (0..=1) among `n` sorted samples: rank
/// ceil(q x n), at least 1, at most `n`.
pub fn nearest_rank(q: f64, n: usize) -> usize {
    ((q * n as f64).ceil() as usize).clamp(1, n.max(1)) - 1
}

/// The nearest-rank percentile `q` (0..=1) of sorted samples.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    // An empty series has no rank and no percentile.
    sorted
        .get(nearest_rank(q, sorted.len()))
        .copied()
        .unwrap_or(f64::NAN)
}

/// A few order statistics of a series: the values that would sit at chosen positions once the
/// series is sorted by [`f64::total_cmp`], found by selection instead of a whole sort (a plan
/// reads about twenty quantiles of each ten-thousand-trial series; selecting them costs a
/// quarter to a half of sorting it). Exactly the values a sort would put there.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OrderStats {
    n: usize,
    /// (position, value), ascending by position.
    at: Vec<(usize, f64)>,
}

/// An unsigned key that orders like [`f64::total_cmp`]: negative values flipped whole, the sign
/// bit set on the others.
fn order_key(x: f64) -> u64 {
    let bits = x.to_bits();
    bits ^ ((((bits as i64) >> 63) as u64) | (1 << 63))
}

fn from_order_key(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 {
        key ^ (1 << 63)
    } else {
        !key
    })
}

/// Puts the keys at `positions` (ascending, each less than the keys' length plus `base`, less
/// `base`) where a sort would: the middle one by selection, then each side for its own positions.
fn select_positions(keys: &mut [u64], positions: &[usize], base: usize) {
    let mid = positions.len() / 2;
    let Some(at) = positions.get(mid).and_then(|p| p.checked_sub(base)) else {
        return;
    };
    if at >= keys.len() {
        return;
    }
    let (left, _, right) = keys.select_nth_unstable(at);
    select_positions(left, positions.get(..mid).unwrap_or(&[]), base);
    select_positions(
        right,
        positions.get(mid + 1..).unwrap_or(&[]),
        base + at + 1,
    );
}

/// Series at least this long are selected through a histogram of their keys ([`select_bucketed`]).
const BUCKETED_FROM: usize = 512;

/// Buckets of that histogram at most (a power of two); a shorter series has about one per eight
/// keys.
const BUCKETS: usize = 1024;

/// [`select_positions`] for a long series, the keys at `positions` (ascending, distinct, each
/// less than the keys' length) returned in that order: one pass finds the smallest and largest
/// keys, one counts the keys per bucket (equal slices of that range, so the buckets keep the
/// keys' order), one copies out only the keys of the buckets holding a wanted position, and each
/// of those is then selected on its own. A plan's series are a few thousand trials and it wants
/// some twenty positions: selecting from the whole series each time partitions it again and
/// again, while the wanted buckets together hold a small part of it.
fn select_bucketed(keys: &[u64], positions: &[usize]) -> Vec<u64> {
    let Some(&first) = keys.first() else {
        return Vec::new();
    };
    let (low, high) = keys
        .iter()
        .fold((first, first), |(low, high), &k| (low.min(k), high.max(k)));
    if low == high {
        return vec![low; positions.len()];
    }
    let span_bits = u64::BITS - (high - low).leading_zeros();
    let buckets = (keys.len() / 8).next_power_of_two().min(BUCKETS);
    let shift = span_bits.saturating_sub(buckets.trailing_zeros());
    // Below `buckets` by the choice of `shift`; the mask only tells the compiler so.
    let bucket = |k: u64| ((k - low) >> shift) as usize & (buckets - 1);
    let mut counts = vec![0_u32; buckets];
    for &k in keys {
        if let Some(c) = counts.get_mut(bucket(k)) {
            *c += 1;
        }
    }
    // The wanted buckets, in order, each with where it starts in the sorted series and where
    // its keys go in the copy.
    let mut wanted: Vec<(usize, usize, usize)> = Vec::new();
    let mut slot = vec![u32::MAX; buckets];
    let (mut start, mut copied) = (0_usize, 0_usize);
    let mut next = positions.iter().peekable();
    for (b, &count) in counts.iter().enumerate() {
        let end = start + count as usize;
        if next.peek().is_some_and(|&&p| p < end) {
            if let Some(s) = slot.get_mut(b) {
                *s = wanted.len() as u32;
            }
            wanted.push((start, copied, 0));
            copied += count as usize;
            while next.next_if(|&&p| p < end).is_some() {}
        }
        start = end;
    }
    let mut copy = vec![0_u64; copied];
    for &k in keys {
        let b = bucket(k);
        if let Some(&s) = slot.get(b)
            && let Some((_, at, filled)) = wanted.get_mut(s as usize)
        {
            if let Some(c) = copy.get_mut(*at + *filled) {
                *c = k;
            }
            *filled += 1;
        }
    }
    // Each wanted bucket's keys hold the sorted positions from its start on.
    let mut out = Vec::with_capacity(positions.len());
    let mut rest = positions;
    for &(start, at, filled) in &wanted {
        let here = rest.partition_point(|&p| p < start + filled);
        let (mine, later) = rest.split_at(here);
        rest = later;
        let local: Vec<usize> = mine.iter().map(|&p| p - start).collect();
        if let Some(part) = copy.get_mut(at..at + filled) {
            select_positions(part, &local, 0);
            out.extend(local.iter().filter_map(|&p| part.get(p).copied()));
        }
    }
    out
}

impl OrderStats {
    /// The values of `values` at `positions` of its sorted order; positions past the end are
    /// left out.
    pub fn select(values: &[f64], positions: impl IntoIterator<Item = usize>) -> OrderStats {
        let n = values.len();
        // One sample (a first answer's single trial): it is every position there is.
        if let [only] = values {
            let at = positions.into_iter().any(|p| p == 0).then_some((0, *only));
            return OrderStats {
                n,
                at: at.into_iter().collect(),
            };
        }
        let mut wanted: Vec<usize> = positions.into_iter().filter(|&p| p < n).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut keys: Vec<u64> = values.iter().map(|&x| order_key(x)).collect();
        // The keys at the wanted positions, in their order.
        let selected = if n >= BUCKETED_FROM {
            select_bucketed(&keys, &wanted)
        } else {
            select_positions(&mut keys, &wanted, 0);
            wanted
                .iter()
                .filter_map(|&p| keys.get(p).copied())
                .collect()
        };
        let at = wanted
            .into_iter()
            .zip(selected)
            .map(|(p, k)| (p, from_order_key(k)))
            .collect();
        OrderStats { n, at }
    }

    /// The values at the nearest ranks of `quantiles`, and at the positions next to those of
    /// `located` (what [`OrderStats::unique_at`] reads).
    pub fn quantiles(values: &[f64], quantiles: &[f64], located: &[f64]) -> OrderStats {
        let n = values.len();
        let next_to = located.iter().flat_map(|&q| {
            let k = nearest_rank(q, n);
            [k.checked_sub(1), Some(k), k.checked_add(1)]
                .into_iter()
                .flatten()
        });
        let at_ranks = quantiles.iter().map(|&q| nearest_rank(q, n));
        OrderStats::select(values, at_ranks.chain(next_to))
    }

    /// Samples in the series.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the series was empty.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The value at sorted position `position`, if it was selected.
    pub fn at(&self, position: usize) -> Option<f64> {
        self.at
            .binary_search_by_key(&position, |&(p, _)| p)
            .ok()
            .and_then(|i| self.at.get(i))
            .map(|&(_, v)| v)
    }

    /// The nearest-rank percentile `q`, as [`percentile`] of the sorted series gives it (NaN
    /// when the series is empty or the rank was not selected).
    pub fn percentile(&self, q: f64) -> f64 {
        self.at(nearest_rank(q, self.n)).unwrap_or(f64::NAN)
    }

    /// The value at the nearest rank of `q` when no other sample equals it (its neighbours in
    /// sorted order must have been selected, see [`OrderStats::quantiles`]); `None` for a tie,
    /// a NaN or a position not selected.
    pub fn unique_at(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let k = nearest_rank(q, self.n);
        let value = self.at(k)?;
        let neighbour_differs = |p: Option<usize>| match p.filter(|&p| p < self.n) {
            None => true,
            Some(p) => self.at(p).is_some_and(|v| v != value),
        };
        (!value.is_nan()
            && neighbour_differs(k.checked_sub(1))
            && neighbour_differs(k.checked_add(1)))
        .then_some(value)
    }
}

/// Summarises the finite samples of a series; `None` when there are none.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let (&min, &max) = (sorted.first()?, sorted.last()?);
    let n = sorted.len();
    let mean = sorted.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        sorted.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    Some(Summary {
        n,
        min,
        p50: percentile(&sorted, 0.50),
        p95: percentile(&sorted, 0.95),
        p99: percentile(&sorted, 0.99),
        max,
        mean,
        stddev: libm::sqrt(var),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selected_order_statistics_are_what_a_sort_puts_there() {
        let mut values = vec![
            3.5,
            -0.0,
            0.0,
            -2.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            7.25,
            7.25,
        ];
        let mut x = 0.123_f64;
        for i in 0..3001 {
            x = (x * 3.9 * (1.0 - x)).abs();
            // Repeated values too, as trials that never finish give.
            values.push(if i % 11 == 0 { 1e7 } else { x * 1000.0 - 300.0 });
        }
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let n = values.len();
        let every = OrderStats::select(&values, 0..n + 5);
        for (p, v) in sorted.iter().enumerate() {
            assert_eq!(
                every.at(p).map(f64::to_bits),
                Some(v.to_bits()),
                "position {p}"
            );
        }
        assert_eq!(every.at(n), None);
        let qs = [0.0, 0.05, 0.5, 0.9, 0.99, 1.0];
        let some = OrderStats::quantiles(&values, &qs, &[0.9]);
        for q in qs {
            assert_eq!(
                some.percentile(q).to_bits(),
                percentile(&sorted, q).to_bits()
            );
        }
        let k = nearest_rank(0.9, n);
        let unique = sorted[k - 1] != sorted[k] && sorted[k + 1] != sorted[k];
        assert_eq!(some.unique_at(0.9), unique.then_some(sorted[k]));
        // A tie is not unique; a quantile whose neighbours were not selected is not either.
        let tied = OrderStats::quantiles(&[1.0, 2.0, 2.0, 3.0], &[], &[0.5]);
        assert_eq!(tied.unique_at(0.5), None);
        assert_eq!(
            OrderStats::quantiles(&[1.0, 2.0, 3.0], &[], &[0.5]).unique_at(0.5),
            Some(2.0)
        );
        assert_eq!(
            OrderStats::quantiles(&[1.0, 2.0, 3.0], &[0.5], &[]).unique_at(0.5),
            None
        );
        assert!(OrderStats::select(&[], 0..3).percentile(0.5).is_nan());
    }

    /// Long series go through the histogram; these are the shapes it could get wrong: every
    /// value equal, two values far apart, a cluster with a far outlier (most keys in one
    /// bucket), and wanted positions that share buckets or sit at the ends.
    #[test]
    fn long_series_select_what_a_sort_puts_there() {
        let n = BUCKETED_FROM * 3 + 7;
        let shapes: [Vec<f64>; 4] = [
            vec![2.5; n],
            (0..n)
                .map(|i| if i % 3 == 0 { -1e300 } else { 1e300 })
                .collect(),
            (0..n)
                .map(|i| {
                    if i == n / 2 {
                        1e7
                    } else {
                        30.0 + (i % 97) as f64 * 1e-9
                    }
                })
                .collect(),
            (0..n).map(|i| ((i * 7919) % n) as f64 / 8.0).collect(),
        ];
        for values in shapes {
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let positions = [0, 1, 2, n / 2, n / 2 + 1, n - 2, n - 1, n, n + 3];
            let stats = OrderStats::select(&values, positions);
            for p in positions {
                assert_eq!(
                    stats.at(p).map(f64::to_bits),
                    sorted.get(p).map(|v| v.to_bits()),
                    "position {p}"
                );
            }
        }
        // One sample is every position there is.
        assert_eq!(OrderStats::select(&[4.0], [0, 1, 0]).at(0), Some(4.0));
        assert_eq!(OrderStats::select(&[4.0], [1]).at(0), None);
    }

    #[test]
    fn normal_quantiles_are_the_tables() {
        for (p, z) in [
            (0.5, 0.0),
            (0.9, 1.281_551_565_544_601),
            (0.99, 2.326_347_874_040_841),
            (0.01, -2.326_347_874_040_841),
            (0.001, -3.090_232_306_167_813_5),
            (1e-10, -6.361_340_902_404_056),
        ] {
            assert!((normal_quantile(p) - z).abs() < 1e-12, "{p}");
        }
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert_eq!(normal_quantile(f64::NAN), 0.0);
    }

    #[test]
    fn summarises_by_hand() {
        // 1..=100: nearest-rank P50 = 50, P95 = 95, P99 = 99; mean 50.5; sd = sqrt(841.666..).
        let xs: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = summarize(&xs).unwrap();
        assert_eq!(
            (s.n, s.min, s.p50, s.p95, s.p99, s.max),
            (100, 1.0, 50.0, 95.0, 99.0, 100.0)
        );
        assert!((s.mean - 50.5).abs() < 1e-12);
        assert!((s.stddev - 29.011_491_975_882_016).abs() < 1e-9);
        assert!((s.tail_ratio().unwrap() - 1.98).abs() < 1e-12);
    }

    #[test]
    fn ignores_non_finite_and_handles_tiny_series() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[f64::NAN]), None);
        let s = summarize(&[3.0, f64::INFINITY]).unwrap();
        assert_eq!((s.n, s.p50, s.p99, s.stddev), (1, 3.0, 3.0, 0.0));
    }
}
