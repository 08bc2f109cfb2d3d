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

/// Sorts floats ascending in the order of [`f64::total_cmp`] (a radix sort: the Monte Carlo sorts
/// many series of ten thousand trials).
pub fn sort_floats(values: &mut [f64]) {
    radsort::sort(values);
}

/// The nearest-rank percentile `q` (0..=1) of sorted samples.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    // Rank 1 is the first sample; an empty series has no rank and no percentile.
    sorted
        .get(rank.clamp(1, sorted.len().max(1)) - 1)
        .copied()
        .unwrap_or(f64::NAN)
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
    fn the_radix_sort_orders_like_total_cmp() {
        let mut values = vec![
            3.5,
            -0.0,
            0.0,
            1e-300,
            -2.0,
            f64::INFINITY,
            10_000_000.0,
            7.25,
            f64::NEG_INFINITY,
            1e300,
            -1e-300,
            0.1 + 0.2,
            0.3,
        ];
        let mut x = 0.123_f64;
        for _ in 0..5000 {
            x = (x * 3.9 * (1.0 - x)).abs();
            values.push(x * 1000.0 - 300.0);
        }
        let mut expected = values.clone();
        expected.sort_by(f64::total_cmp);
        sort_floats(&mut values);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&values), bits(&expected));
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
