//! Queues: how long a start waits for capacity on an offer.
//!
//! Public GPU-cluster traces agree that a wait is "at once, or a long while": medians of seconds,
//! means of minutes to an hour (Philly 189 s / 3,761 s, PAI 9 s / 402 s, Alibaba's 2023 sharing
//! cluster P50 2 s / P99 4,492 s; `core/data/tenancy/`). An exponential with the same mean puts
//! the median 10-30x too high and the P99 about 2x too low. The model here: a start finds
//! capacity at once with probability `p0`, else waits a log-normal time with median `m` and
//! log-spread `sigma`. Defaults per kind of pool (a fraction of a GPU, one whole GPU, several)
//! are fitted by `core/data/derive_tenancy.py` to the Kaplan-Meier quantiles of the Alibaba
//! 2023 trace; an offer may state its own, or its mean alone (`queue_wait_hours`, converted with
//! its kind's `p0` and `sigma`), and a measured queue trace replaces all of them (drawn from);
//! `Offer::pool_kind` and `Offer::queue` read an offer's fields into these.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::stats::normal_quantile;

/// Quantiles kept of a measured queue trace: a draw picks one of them, each with probability
/// 1/64 (the trace's empirical distribution, compressed to a fixed size).
pub const SAMPLE_KNOTS: usize = 64;

/// The largest wait any queue may describe, hours (a year): bounds every draw.
pub const MAX_WAIT_HOURS: f64 = 8_760.0;

/// Which kind of pool a start queues in: the kinds have different default queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PoolKind {
    /// A fraction of one GPU (a slice, a share, a capped container).
    Fractional,
    /// One whole GPU.
    Whole,
    /// Several GPUs at once (gang-scheduled).
    Multi,
}

identifiers!(PoolKind {
    Fractional => "fractional",
    Whole => "whole",
    Multi => "multi",
});

/// Seconds per hour.
const HOUR_S: f64 = 3600.0;

impl PoolKind {
    /// The default start-at-once probability, conditional median (hours) and sigma, fitted by
    /// `core/data/derive_tenancy.py` to the Kaplan-Meier quantiles of Alibaba's 2023 GPU-sharing
    /// cluster (alibaba/clusterdata, cluster-trace-gpu-v2023 @ 7a6c496; 8,152 pods over 149 days):
    /// fractional-GPU pods, whole-GPU pods and pods of 2-8 GPUs.
    pub fn default_queue(self) -> (f64, f64, f64) {
        let (p0, median_s, sigma) = match self {
            PoolKind::Fractional => FIT_FRACTIONAL,
            PoolKind::Whole => FIT_WHOLE,
            PoolKind::Multi => FIT_MULTI,
        };
        (p0, median_s / HOUR_S, sigma)
    }
}

/// Fitted (p0, conditional median in seconds, sigma) of fractional-GPU pods.
pub const FIT_FRACTIONAL: (f64, f64, f64) = (0.491, 104.1, 1.875);
/// Fitted (p0, conditional median in seconds, sigma) of whole-GPU pods.
pub const FIT_WHOLE: (f64, f64, f64) = (0.422, 28.0, 2.032);
/// Fitted (p0, conditional median in seconds, sigma) of multi-GPU pods.
pub const FIT_MULTI: (f64, f64, f64) = (0.672, 7.5, 2.758);

/// Where an offer's queue comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueSource {
    /// No queue: every start finds capacity at once.
    None,
    /// `queue_p0`, `queue_median_hours`, `queue_sigma` as the offer states them (a missing
    /// `queue_p0` or `queue_sigma` takes its pool kind's default).
    Offer,
    /// The offer's mean wait (`queue_wait_hours`) spread with its pool kind's fitted shape.
    FromMean,
    /// A measured queue trace attached to the offer: drawn from.
    Trace,
    /// The start waits of a preemption trace attached to the offer.
    PreemptionTrace,
}

identifiers!(QueueSource {
    None => "none",
    Offer => "offer",
    FromMean => "from_mean",
    Trace => "trace",
    PreemptionTrace => "preemption_trace",
});

/// The shape of a wait once it is not at once.
// A sample's 64 knots (512 bytes) are held inline so that a queue, and the time model's inputs
// that carry it, stay `Copy`: they are copied once per offer, never per draw.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WaitShape {
    /// Log-normal with this sigma, `scale` its median.
    LogNormal {
        /// Spread of ln(wait).
        sigma: f64,
    },
    /// Exponential, `scale` its mean (a preemption trace's start waits).
    Exponential,
    /// A measured trace's waits (every start included), as [`SAMPLE_KNOTS`] quantiles in
    /// hours, at probabilities (i + 0.5) / 64; `p0` and `scale` are unused.
    Sample([f64; SAMPLE_KNOTS]),
}

/// The wait before a start: at once with probability `p0`, else `shape` scaled by `scale`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Queue {
    /// Probability a start finds capacity at once.
    pub p0: f64,
    /// The median (log-normal) or mean (exponential) of a wait that is not at once, hours.
    pub scale_hours: f64,
    /// The shape of such a wait.
    pub shape: WaitShape,
    /// Where it comes from.
    pub source: QueueSource,
}

impl Default for Queue {
    fn default() -> Queue {
        Queue::none()
    }
}

impl Queue {
    /// No wait at all.
    pub fn none() -> Queue {
        Queue {
            p0: 1.0,
            scale_hours: 0.0,
            shape: WaitShape::Exponential,
            source: QueueSource::None,
        }
    }

    /// At once with probability `p0`, else log-normal with median `median_hours` and `sigma`.
    pub fn log_normal(p0: f64, median_hours: f64, sigma: f64, source: QueueSource) -> Queue {
        if !(median_hours > 0.0 && p0 < 1.0) {
            return Queue::none();
        }
        Queue {
            p0: p0.clamp(0.0, 1.0),
            scale_hours: median_hours,
            shape: WaitShape::LogNormal {
                sigma: sigma.max(0.0),
            },
            source,
        }
    }

    /// A pool of `kind` whose mean wait is `mean_hours`: the kind's fitted `p0` and `sigma`, the
    /// median that gives that mean.
    pub fn from_mean(mean_hours: f64, kind: PoolKind) -> Queue {
        let (p0, _, sigma) = kind.default_queue();
        let median = mean_hours / ((1.0 - p0) * libm::exp(sigma * sigma / 2.0));
        Queue::log_normal(p0, median, sigma, QueueSource::FromMean)
    }

    /// At once with probability `p0`, else exponential with mean wait `mean_hours` over all
    /// starts (a preemption trace's start waits).
    pub fn exponential(p0: f64, mean_hours: f64) -> Queue {
        if !(mean_hours > 0.0 && p0 < 1.0) {
            return Queue::none();
        }
        let p0 = p0.clamp(0.0, 1.0);
        Queue {
            p0,
            scale_hours: mean_hours / (1.0 - p0),
            shape: WaitShape::Exponential,
            source: QueueSource::PreemptionTrace,
        }
    }

    /// Drawn from measured waits (hours, every start, at once included); `None` when empty.
    pub fn from_sample(waits_hours: &[f64]) -> Option<Queue> {
        let mut sorted: Vec<f64> = waits_hours
            .iter()
            .map(|w| w.clamp(0.0, MAX_WAIT_HOURS))
            .filter(|w| w.is_finite())
            .collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let mut knots = [0.0; SAMPLE_KNOTS];
        for (i, k) in knots.iter_mut().enumerate() {
            // Nearest rank at (i + 0.5) / 64.
            let q = (i as f64 + 0.5) / SAMPLE_KNOTS as f64;
            let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
            *k = sorted.get(rank - 1).copied().unwrap_or(0.0);
        }
        let at_once = knots.iter().filter(|&&k| k <= 0.0).count();
        Some(Queue {
            p0: at_once as f64 / SAMPLE_KNOTS as f64,
            scale_hours: 0.0,
            shape: WaitShape::Sample(knots),
            source: QueueSource::Trace,
        })
    }

    /// A measured trace's knots (see [`QueueTrace`]).
    pub fn from_trace(trace: &QueueTrace) -> Queue {
        let mut knots = [0.0; SAMPLE_KNOTS];
        for (k, w) in knots.iter_mut().zip(&trace.waits_hours) {
            *k = if w.is_finite() {
                w.clamp(0.0, MAX_WAIT_HOURS)
            } else {
                0.0
            };
        }
        let at_once = knots.iter().filter(|&&k| k <= 0.0).count();
        Queue {
            p0: at_once as f64 / SAMPLE_KNOTS as f64,
            scale_hours: 0.0,
            shape: WaitShape::Sample(knots),
            source: QueueSource::Trace,
        }
    }

    /// Whether no start ever waits.
    pub fn is_none(&self) -> bool {
        self.mean_hours() <= 0.0
    }

    /// The wait at probability `u` in [0, 1): the quantile function. Shared uniform draws through
    /// it give every offer the same luck (common random numbers).
    pub fn wait_at(&self, u: f64) -> f64 {
        let u = if u.is_finite() {
            u.clamp(0.0, 1.0)
        } else {
            0.5
        };
        let wait = match self.shape {
            WaitShape::Sample(knots) => {
                let i = ((u * SAMPLE_KNOTS as f64) as usize).min(SAMPLE_KNOTS - 1);
                knots.get(i).copied().unwrap_or(0.0)
            }
            _ if u <= self.p0 || self.scale_hours <= 0.0 => 0.0,
            WaitShape::LogNormal { sigma } => {
                let v = (u - self.p0) / (1.0 - self.p0);
                self.scale_hours * libm::exp(sigma * normal_quantile(v))
            }
            WaitShape::Exponential => {
                let v = (u - self.p0) / (1.0 - self.p0);
                -self.scale_hours * libm::log1p(-v.min(1.0 - 1e-12))
            }
        };
        wait.clamp(0.0, MAX_WAIT_HOURS)
    }

    /// The mean wait, hours.
    pub fn mean_hours(&self) -> f64 {
        let mean = match self.shape {
            WaitShape::Sample(knots) => knots.iter().sum::<f64>() / SAMPLE_KNOTS as f64,
            WaitShape::LogNormal { sigma } => {
                (1.0 - self.p0) * self.scale_hours * libm::exp(sigma * sigma / 2.0)
            }
            WaitShape::Exponential => (1.0 - self.p0) * self.scale_hours,
        };
        if mean.is_finite() {
            mean.clamp(0.0, MAX_WAIT_HOURS)
        } else {
            MAX_WAIT_HOURS
        }
    }

    /// The quantile at `q` (a wait at most this long with probability `q`), hours. For a
    /// sample, the knot that holds `q`.
    pub fn quantile_hours(&self, q: f64) -> f64 {
        match self.shape {
            // The knot whose 1/64 of the mass holds q (q = 0.5 is the 32nd knot's upper edge).
            WaitShape::Sample(_) => self.wait_at((q - 1e-9).max(0.0)),
            _ => self.wait_at(q),
        }
    }

    /// The summary a plan shows for the offer.
    pub fn summary(&self) -> QueueHours {
        let r = |x: f64| libm::round(x * 10_000.0) / 10_000.0;
        let (p0, median, sigma) = match self.shape {
            WaitShape::LogNormal { sigma } => (Some(self.p0), Some(self.scale_hours), Some(sigma)),
            _ => (None, None, None),
        };
        QueueHours {
            p50: r(self.quantile_hours(0.5)),
            p90: r(self.quantile_hours(0.9)),
            p99: r(self.quantile_hours(0.99)),
            mean: r(self.mean_hours()),
            p0: p0.map(|p| libm::round(p * 1000.0) / 1000.0),
            median_hours: median.map(|m| libm::round(m * 1e6) / 1e6),
            sigma: sigma.map(|s| libm::round(s * 1000.0) / 1000.0),
            source: self.source,
            cdf_hours: if self.is_none() {
                Vec::new()
            } else {
                QUEUE_CDF
                    .iter()
                    .map(|&p| r(self.quantile_hours(p)))
                    .collect()
            },
        }
    }
}

/// Waits measured on a pool, attached to an offer: the file's name, how many starts it holds,
/// the waits as [`SAMPLE_KNOTS`] quantiles (hours, at probabilities (i + 0.5) / 64; what the
/// Monte Carlo draws from) and the model's parameters fitted to them (what the page shows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QueueTrace {
    /// The file it was read from.
    pub name: String,
    /// Starts measured.
    pub starts: u32,
    /// Jobs in the file that never started (deleted while they waited), left out.
    #[serde(default)]
    pub unstarted: u32,
    /// The waits' quantiles, hours, 64 of them, non-decreasing.
    pub waits_hours: Vec<f64>,
    /// The at-once-or-log-normal model fitted to the waits.
    pub fitted: QueueFit,
}

/// The queue model's parameters fitted to measured waits: the share of starts within a second,
/// and the median and log-spread of the rest (their logarithms' mean and standard deviation).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QueueFit {
    /// Share of starts that waited at most a second.
    pub p0: f64,
    /// Median of the longer waits, hours (0 when every start was at once).
    pub median_hours: f64,
    /// Standard deviation of ln(wait) of the longer waits.
    pub sigma: f64,
}

/// A wait of at most this long counts as "at once" in a fit, hours (one second: traces log
/// whole seconds).
pub const AT_ONCE_HOURS: f64 = 1.0 / 3600.0;

impl QueueTrace {
    /// The trace of measured waits (hours, one per start); `None` when there are none.
    pub fn of_waits(name: &str, waits_hours: &[f64]) -> Option<QueueTrace> {
        let q = Queue::from_sample(waits_hours)?;
        let WaitShape::Sample(knots) = q.shape else {
            return None;
        };
        let usable: Vec<f64> = waits_hours
            .iter()
            .filter(|w| w.is_finite())
            .map(|w| w.clamp(0.0, MAX_WAIT_HOURS))
            .collect();
        let logs: Vec<f64> = usable
            .iter()
            .filter(|&&w| w > AT_ONCE_HOURS)
            .map(|&w| libm::log(w))
            .collect();
        let n = usable.len().max(1) as f64;
        let (median_hours, sigma) = if logs.is_empty() {
            (0.0, 0.0)
        } else {
            let m = logs.iter().sum::<f64>() / logs.len() as f64;
            let var = logs.iter().map(|l| (l - m) * (l - m)).sum::<f64>() / logs.len() as f64;
            (libm::exp(m), libm::sqrt(var))
        };
        Some(QueueTrace {
            name: name.to_owned(),
            starts: usable.len().min(u32::MAX as usize) as u32,
            unstarted: 0,
            waits_hours: knots.to_vec(),
            fitted: QueueFit {
                p0: 1.0 - logs.len() as f64 / n,
                median_hours,
                sigma,
            },
        })
    }

    /// Checks a trace read from a document: 64 finite non-decreasing waits within a year, at
    /// least one start, fitted figures in range.
    pub fn validate(&self) -> Result<(), crate::numbers::problem::FieldError> {
        use crate::numbers::problem::{FieldError, Problem};
        let bad = |field: &str, min: f64, max: f64| {
            Err(FieldError::new(field, Problem::OutOfRange { min, max }))
        };
        if self.waits_hours.len() != SAMPLE_KNOTS {
            return bad(
                "queue_trace.waits_hours",
                SAMPLE_KNOTS as f64,
                SAMPLE_KNOTS as f64,
            );
        }
        let mut last = 0.0;
        for &w in &self.waits_hours {
            if !(w.is_finite() && (last..=MAX_WAIT_HOURS).contains(&w)) {
                return bad("queue_trace.waits_hours", last, MAX_WAIT_HOURS);
            }
            last = w;
        }
        if self.starts == 0 {
            return bad("queue_trace.starts", 1.0, f64::from(u32::MAX));
        }
        let f = &self.fitted;
        if !(f.p0.is_finite() && (0.0..=1.0).contains(&f.p0)) {
            return bad("queue_trace.fitted.p0", 0.0, 1.0);
        }
        if !(f.median_hours.is_finite() && (0.0..=MAX_WAIT_HOURS).contains(&f.median_hours)) {
            return bad("queue_trace.fitted.median_hours", 0.0, MAX_WAIT_HOURS);
        }
        if !(f.sigma.is_finite() && (0.0..=50.0).contains(&f.sigma)) {
            return bad("queue_trace.fitted.sigma", 0.0, 50.0);
        }
        Ok(())
    }
}

/// An offer's queue as a plan shows it: the wait before a start, hours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QueueHours {
    /// Median wait.
    pub p50: f64,
    /// 90th percentile (what `max_queue_hours` is checked against).
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Mean (what the expected wall-clock time adds).
    pub mean: f64,
    /// Probability a start finds capacity at once (log-normal queues).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p0: Option<f64>,
    /// Median of a wait that is not at once, hours (log-normal queues).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_hours: Option<f64>,
    /// Spread of ln(wait) of a wait that is not at once (log-normal queues).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    /// Where the queue comes from.
    pub source: QueueSource,
    /// The wait at each probability of [`QUEUE_CDF`], hours, for the chart (empty without a
    /// queue).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cdf_hours: Vec<f64>,
}

/// The probabilities a queue's chart is drawn at: 2 % steps, then the tail to 99.5 %.
pub const QUEUE_CDF: [f64; 25] = [
    0.02, 0.06, 0.1, 0.14, 0.18, 0.22, 0.26, 0.3, 0.34, 0.38, 0.42, 0.46, 0.5, 0.54, 0.58, 0.62,
    0.66, 0.7, 0.74, 0.78, 0.82, 0.86, 0.9, 0.95, 0.995,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fractional_pool_reproduces_openbs_quantiles() {
        // Alibaba 2023, fractional-GPU pods, Kaplan-Meier: P50 2 s, P90 487 s, P95 1,428 s
        // (core/data/tenancy/openb2023-pod-waits.csv). Within a factor 1.5 each.
        let (p0, m, s) = PoolKind::Fractional.default_queue();
        let q = Queue::log_normal(p0, m, s, QueueSource::Offer);
        for (p, observed_s) in [(0.5, 2.0), (0.9, 487.0), (0.95, 1428.0)] {
            let fitted = q.quantile_hours(p) * 3600.0;
            let ratio = fitted / observed_s;
            assert!((1.0 / 1.5..=1.5).contains(&ratio), "P{p}: {fitted} s");
        }
        // At once, or a long while: the median is under a tenth of the mean.
        for kind in [PoolKind::Fractional, PoolKind::Whole, PoolKind::Multi] {
            let (p0, m, s) = kind.default_queue();
            let q = Queue::log_normal(p0, m, s, QueueSource::Offer);
            assert!(q.quantile_hours(0.5) <= 0.1 * q.mean_hours(), "{kind:?}");
        }
    }

    #[test]
    fn a_mean_converts_to_the_same_mean() {
        for kind in [PoolKind::Fractional, PoolKind::Whole, PoolKind::Multi] {
            let q = Queue::from_mean(0.5, kind);
            assert!((q.mean_hours() - 0.5).abs() < 1e-12);
            assert!(q.quantile_hours(0.5) < 0.05 && q.quantile_hours(0.99) > 1.0);
            assert_eq!(q.source, QueueSource::FromMean);
        }
        assert!(Queue::from_mean(0.0, PoolKind::Whole).is_none());
    }

    #[test]
    fn draws_follow_the_quantiles() {
        let q = Queue::log_normal(0.3, 0.2, 1.5, QueueSource::Offer);
        let n = 200_000;
        let mut w: Vec<f64> = (0..n)
            .map(|i| q.wait_at((i as f64 + 0.5) / n as f64))
            .collect();
        let mean = w.iter().sum::<f64>() / n as f64;
        assert!((mean / q.mean_hours() - 1.0).abs() < 0.01, "{mean}");
        w.sort_by(f64::total_cmp);
        assert_eq!(w[(0.29 * n as f64) as usize], 0.0);
        assert!((w[n / 2] / q.quantile_hours(0.5) - 1.0).abs() < 0.01);
        let e = Queue::exponential(0.5, 1.0);
        assert!((e.mean_hours() - 1.0).abs() < 1e-12);
        assert_eq!(e.wait_at(0.4), 0.0);
        assert!((e.wait_at(0.75) - 2.0 * std::f64::consts::LN_2).abs() < 1e-9);
    }

    #[test]
    fn a_sample_is_drawn_from_as_measured() {
        // 100 starts: 60 at once, 30 of 0.1 h, 10 of 2 h.
        let mut waits = vec![0.0; 60];
        waits.extend([0.1; 30]);
        waits.extend([2.0; 10]);
        let q = Queue::from_sample(&waits).unwrap();
        assert_eq!(q.source, QueueSource::Trace);
        assert_eq!(q.quantile_hours(0.5), 0.0);
        assert_eq!(q.quantile_hours(0.9), 0.1);
        assert_eq!(q.quantile_hours(0.99), 2.0);
        // The knots' mean is within a knot's mass of the sample's (0.23 h).
        assert!(
            (q.mean_hours() - 0.23).abs() < 2.0 / 64.0,
            "{}",
            q.mean_hours()
        );
        assert!(Queue::from_sample(&[]).is_none());
        assert!(Queue::from_sample(&[f64::NAN, f64::INFINITY]).is_some());
    }
}
