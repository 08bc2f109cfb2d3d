//! Tenancy: how an offer shares the physical GPU, and what that does to run time.
//!
//! Each tenancy has a default run-time multiplier *distribution* (median and P99), modelled as a
//! log-normal: ln X ~ N(ln median, sigma) with sigma = ln(p99 / median) / 2.3263. The defaults are
//! assumptions calibrated on published measurements (sources in `docs/sources.md` §2):
//! - dedicated: whole card; only run-to-run noise (median 1.00, P99 1.03).
//! - MIG: hardware-partitioned, ~2-3 % overhead (practitioner estimate, kubernetes.recipes) and a
//!   small tail:
//!   median 1/0.97 = 1.03, P99 1.08.
//! - time slicing, MPS, vGPU and memory-capped containers are work-conserving: a tenant gets what
//!   its neighbours leave (see [`Sharing`], fitted by `core/data/derive_tenancy.py`). With the
//!   neighbours always busy (the default) the median against the nominal share is the overhead
//!   alone: time slicing 1.15 (4-way slicing cost 16 % aggregate throughput, damionas.com), MPS
//!   1.08 (two vLLM tenants on an A100 lost 7.5 %, a case study on gopebble-com.pages.dev),
//!   memory-capped containers 1.14 and vGPU 1.06 (assumptions); the spread is Tally's 12 A100
//!   pairs' (time slicing 0.152, MPS 0.093).
//! - marketplace host: a whole card on someone's host; PCIe/host contention (x0.95) and a fat tail
//!   from unknown neighbours on the host: median 1.05, P99 1.50.
//!
//! Every default can be replaced per offer ([`SlowdownOverride`]) or by a measured probe profile.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::problem::{FieldError, Problem};

/// z-score of the 99th percentile of a standard normal.
pub const Z_P99: f64 = 2.326_347_874_040_841;
/// z-score of the 90th percentile of a standard normal.
pub const Z_P90: f64 = 1.281_551_565_544_601;

/// How the GPU is shared with other tenants.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Tenancy {
    /// The whole card, nobody else on it.
    Dedicated,
    /// A hardware MIG slice (A100, H100, H20, H200).
    Mig,
    /// An NVIDIA vGPU profile of a virtualised card.
    Vgpu,
    /// Time-sliced sharing (e.g. Kubernetes time-slicing), no memory isolation.
    TimeSliced,
    /// CUDA MPS with compute and memory limits.
    Mps,
    /// A container with a VRAM cap and shared compute (HAMi, cGPU, qGPU style).
    MemCappedContainer,
    /// A whole card on a third-party marketplace host.
    MarketplaceHost,
}

identifiers!(Tenancy {
    Dedicated => "dedicated",
    Mig => "mig",
    Vgpu => "vgpu",
    TimeSliced => "time_sliced",
    Mps => "mps",
    MemCappedContainer => "mem_capped_container",
    MarketplaceHost => "marketplace_host",
});

impl Tenancy {
    /// Whether this is shared compute (anything but a whole card to oneself).
    ///
    /// A marketplace host rents a whole card, but on a host shared with strangers: it counts as
    /// shared, as the article does for "carpool" platforms.
    pub fn is_shared(self) -> bool {
        self != Tenancy::Dedicated
    }

    /// Whether the offer is a slice of a card, which cannot join a multi-GPU job.
    pub fn is_slice(self) -> bool {
        !matches!(self, Tenancy::Dedicated | Tenancy::MarketplaceHost)
    }

    /// Whether memory is isolated from the neighbours (no OOM caused by them).
    pub fn isolates_memory(self) -> bool {
        !matches!(self, Tenancy::TimeSliced)
    }

    /// The default run-time multiplier distribution against the nominal share, with the
    /// neighbours always busy (the cautious default; see the module docs). A work-conserving
    /// tenancy's is its [`Sharing`] model at full load.
    pub fn default_slowdown(self) -> Slowdown {
        if let Some(s) = self.sharing() {
            return s.slowdown(1.0, 1.0, false);
        }
        let (median, p99) = match self {
            Tenancy::Mig => (1.03, 1.08),
            Tenancy::MarketplaceHost => (1.05, 1.50),
            _ => (1.00, 1.03),
        };
        Slowdown {
            median,
            p99,
            source: SlowdownSource::Assumed,
        }
    }

    /// How a work-conserving tenancy shares the card (time slicing, MPS, best-effort vGPU, a
    /// memory-capped container): `None` for a partitioned or whole card. The figures are
    /// `core/data/tenancy-fit.csv`, written by `core/data/derive_tenancy.py`: the exponent and
    /// spread fitted to Tally's 12 A100 pairs (time slicing; MPS), the overheads from the
    /// published measurements in the module docs; vGPU and containers time-slice as time slicing
    /// does (an assumption), with their solo costs (VMware's vGPU at 94.4-100 % of bare metal;
    /// HAMi's 1-3 % alone).
    pub fn sharing(self) -> Option<Sharing> {
        let time_sliced = Sharing {
            gamma: 1.138,
            sigma: 0.152,
            overhead: 0.1304,
            solo_cost: 0.0,
        };
        match self {
            Tenancy::TimeSliced => Some(time_sliced),
            Tenancy::Mps => Some(Sharing {
                gamma: 3.298,
                sigma: 0.093,
                overhead: 0.0741,
                solo_cost: 0.0,
            }),
            Tenancy::Vgpu => Some(Sharing {
                overhead: 0.03,
                solo_cost: 0.03,
                ..time_sliced
            }),
            Tenancy::MemCappedContainer => Some(Sharing {
                overhead: 0.1071,
                solo_cost: 0.02,
                ..time_sliced
            }),
            Tenancy::Dedicated | Tenancy::Mig | Tenancy::MarketplaceHost => None,
        }
    }
}

/// Work-conserving sharing: a tenant gets what the neighbours leave, not a fixed fraction. Its
/// speed, as a share of the whole card alone, is
/// `v = max(f, 1 - L^gamma) x (1 - overhead x L) x (1 - solo_cost)`, with `f` its nominal share
/// and `L` the neighbours' load (0 idle .. 1 always busy); a share whose compute is capped gets
/// `f` at most. The run-level slowdown against the nominal share is log-normal with median `f / v`
/// (below 1 when the neighbours leave more than the nominal share) and spread `sigma`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sharing {
    /// How the neighbours' load turns into lost capacity: 1 - L^gamma is left over.
    pub gamma: f64,
    /// Log-normal spread of the slowdown around the model (workload to workload).
    pub sigma: f64,
    /// Share of speed lost to switching between tenants with the neighbours always busy.
    pub overhead: f64,
    /// Share of speed lost alone (the sharing layer's own cost).
    pub solo_cost: f64,
}

impl Sharing {
    /// The tenant's speed as a share of the whole card alone.
    pub fn speed(&self, nominal: f64, load: f64, capped: bool) -> f64 {
        let nominal = nominal.clamp(0.0, 1.0);
        let load = if load.is_finite() {
            load.clamp(0.0, 1.0)
        } else {
            1.0
        };
        let left = if capped {
            nominal
        } else {
            nominal.max(1.0 - libm::pow(load, self.gamma))
        };
        left * (1.0 - self.overhead * load) * (1.0 - self.solo_cost)
    }

    /// The run-level slowdown against the nominal share.
    pub fn slowdown(&self, nominal: f64, load: f64, capped: bool) -> Slowdown {
        // Rounded to 6 decimals: the figures travel through JSON (between Web Workers) and read
        // back to the bit.
        let r6 = |x: f64| libm::round(x * 1e6) / 1e6;
        let v = self.speed(nominal, load, capped);
        let median = if v > 0.0 { r6(nominal / v) } else { 1.0 };
        Slowdown {
            median,
            p99: r6(median * libm::exp(Z_P99 * self.sigma)),
            source: SlowdownSource::Assumed,
        }
    }
}

/// Where the neighbours' load an offer is priced with comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoadSource {
    /// Always busy: the cautious default when nothing is known.
    Default,
    /// The offer's `neighbour_load`.
    Offer,
    /// The task's `neighbour_load` (the user's value for every time-shared offer).
    Task,
    /// A probe profile's GPU utilisation before any load of ours, on this kind of offer.
    Measured,
}

identifiers!(LoadSource {
    Default => "default",
    Offer => "offer",
    Task => "task",
    Measured => "measured",
});

/// The neighbours' load an offer was priced with, and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NeighbourLoad {
    /// Share of the time the neighbours keep the card busy, 0-1.
    pub load: f64,
    /// Where it comes from.
    pub source: LoadSource,
}

/// The share of a card Tally's busy neighbour held (about half); a time-shared tenant with a
/// smaller nominal share has more neighbours, and its latency factor is scaled by this over its
/// share (an assumption).
pub const LATENCY_REFERENCE_SHARE: f64 = 0.5;

/// How much a request's P99 latency grows over the same request alone on the same capacity: the
/// request-level tail, apart from the run-level slowdown (a training step and an inference
/// request feel neighbours differently).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LatencyFactor {
    /// The factor used (the median of the measurements behind it).
    pub p99: f64,
    /// The lowest measured factor, when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    /// The highest measured factor, when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
    /// `measured` (published measurements) or `assumed`.
    pub source: LatencySource,
}

/// Where a latency factor comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LatencySource {
    /// Published measurements (Tally's 12 pairs on an A100; docs/sources.md §2).
    Published,
    /// An assumption (no public measurement of this tenancy's request tail).
    Assumed,
    /// The run-level slowdown's P99, for a partitioned or whole card (its tail is its own).
    RunLevel,
}

identifiers!(LatencySource {
    Published => "published",
    Assumed => "assumed",
    RunLevel => "run_level",
});

impl Tenancy {
    /// The request-level P99 latency factor of this tenancy next to busy neighbours. Time slicing
    /// and MPS are Tally's measurements: an inference server at about half load sharing an A100
    /// with one training job, P99 latency over alone, median of 12 pairs (time slicing 2.51,
    /// 1.77-2.74; MPS 2.88, 1.30-11.78). A MIG slice is isolated (its own SMs and memory): the
    /// run-to-run tail only. The rest are assumptions: vGPU's best-effort scheduler and a
    /// memory-capped container time-slice compute as time slicing does; a MIG slice or a whole
    /// card (dedicated or on a marketplace host) keeps its run-level tail.
    pub fn latency_p99_factor(self) -> LatencyFactor {
        let measured = |p99, low, high| LatencyFactor {
            p99,
            low: Some(low),
            high: Some(high),
            source: LatencySource::Published,
        };
        let assumed = |p99| LatencyFactor {
            p99,
            low: None,
            high: None,
            source: LatencySource::Assumed,
        };
        match self {
            Tenancy::TimeSliced => measured(2.505, 1.768, 2.735),
            Tenancy::Mps => measured(2.884, 1.295, 11.776),
            Tenancy::Vgpu | Tenancy::MemCappedContainer => assumed(2.505),
            Tenancy::Dedicated | Tenancy::Mig | Tenancy::MarketplaceHost => LatencyFactor {
                p99: self.default_slowdown().p99,
                low: None,
                high: None,
                source: LatencySource::RunLevel,
            },
        }
    }

    /// The latency factor on an offer of this tenancy whose run-level slowdown is `slowdown`: a
    /// partitioned or whole card keeps its run-level tail (the offer's own, measured or typed,
    /// when it has one); a time-shared one takes [`Tenancy::latency_p99_factor`].
    pub fn latency_factor_with(self, slowdown: &Slowdown) -> LatencyFactor {
        if self.time_shares_compute() {
            self.latency_p99_factor()
        } else {
            LatencyFactor {
                p99: slowdown.p99,
                low: None,
                high: None,
                source: LatencySource::RunLevel,
            }
        }
    }

    /// Whether compute is time-shared with the neighbours (a request waits for their kernels),
    /// rather than partitioned (MIG) or whole.
    pub fn time_shares_compute(self) -> bool {
        matches!(
            self,
            Tenancy::TimeSliced | Tenancy::Mps | Tenancy::Vgpu | Tenancy::MemCappedContainer
        )
    }
}

/// Where a slowdown distribution comes from; shown next to every figure it drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlowdownSource {
    /// The tenancy default: an assumption from published measurements.
    Assumed,
    /// Given on the offer (a provider's figure or the user's edit).
    Offer,
    /// Measured by the probe on a real machine.
    Measured,
}

/// A run-time multiplier distribution: 1.0 is the speed of a dedicated card of the same model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Slowdown {
    /// Median multiplier.
    pub median: f64,
    /// 99th-percentile multiplier (the tail); at least the median.
    pub p99: f64,
    /// Where these numbers come from.
    pub source: SlowdownSource,
}

/// A per-offer replacement for the tenancy default.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SlowdownOverride {
    /// Median multiplier.
    pub median: f64,
    /// 99th-percentile multiplier.
    pub p99: f64,
    /// `offer` for a typed figure, `measured` when it came from a probe profile.
    #[serde(default = "offer_source")]
    pub source: SlowdownSource,
}

fn offer_source() -> SlowdownSource {
    SlowdownSource::Offer
}

impl SlowdownOverride {
    /// Checks the figures are usable: finite, median in [0.5, 20], P99 in [median, 50].
    pub fn validate(&self) -> Result<(), FieldError> {
        if !(self.median.is_finite() && (0.5..=20.0).contains(&self.median)) {
            return Err(FieldError::new(
                "slowdown.median",
                Problem::OutOfRange {
                    min: 0.5,
                    max: 20.0,
                },
            ));
        }
        if !(self.p99.is_finite() && self.p99 >= self.median && self.p99 <= 50.0) {
            return Err(FieldError::new(
                "slowdown.p99",
                Problem::BelowOther {
                    other: "slowdown.median".to_owned(),
                    max: 50.0,
                },
            ));
        }
        Ok(())
    }
}

impl Slowdown {
    /// The distribution an offer runs with: its override if any, else its tenancy's default.
    pub fn for_offer(tenancy: Tenancy, over: Option<&SlowdownOverride>) -> Slowdown {
        match over {
            Some(o) => Slowdown {
                median: o.median,
                p99: o.p99,
                source: o.source,
            },
            None => tenancy.default_slowdown(),
        }
    }

    /// The log-normal's sigma, fitted so that the 99th percentile is `p99`.
    pub fn sigma(&self) -> f64 {
        if self.p99 <= self.median {
            0.0
        } else {
            libm::log(self.p99 / self.median) / Z_P99
        }
    }

    /// The mean multiplier: median x exp(sigma^2 / 2).
    pub fn mean(&self) -> f64 {
        let s = self.sigma();
        self.median * libm::exp(s * s / 2.0)
    }

    /// The 90th-percentile multiplier.
    pub fn p90(&self) -> f64 {
        self.median * libm::exp(Z_P90 * self.sigma())
    }
}

#[cfg(test)]
mod tests {

    /// Tally's published pairs (core/data/tally-a100-pairs.csv): the medians of the P99 latency
    /// ratios are the time-slicing and MPS factors, and their extremes the spread.
    #[test]
    fn latency_factors_are_the_medians_of_tallys_pairs() {
        let text = include_str!("../../data/tally-a100-pairs.csv");
        let mut rdr = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .from_reader(text.as_bytes());
        let rows: Vec<Vec<f64>> = rdr
            .records()
            .map(|r| {
                let r = r.unwrap();
                (2..6).map(|i| r[i].parse().unwrap()).collect()
            })
            .collect();
        assert_eq!(rows.len(), 12);
        let median = |col: usize| {
            let mut v: Vec<f64> = rows.iter().map(|r| r[col]).collect();
            v.sort_by(f64::total_cmp);
            ((v[5] + v[6]) / 2.0, v[0], v[11])
        };
        for (tenancy, col) in [(Tenancy::TimeSliced, 1), (Tenancy::Mps, 3)] {
            let (mid, low, high) = median(col);
            let f = tenancy.latency_p99_factor();
            assert!((f.p99 - mid).abs() < 0.01, "{tenancy:?}: {mid}");
            assert_eq!((f.low, f.high), (Some(low), Some(high)));
            assert_eq!(f.source, LatencySource::Published);
        }
        // The request tail and the run-level slowdown differ: MPS slows training 1.16x at the
        // median (Tally) yet stretches the neighbour's P99 latency 2.9x.
        assert!((median(2).0 - 1.156).abs() < 0.01);
        assert!(Tenancy::Mps.latency_p99_factor().p99 > 2.0 * median(2).0);
    }

    use super::*;

    #[test]
    fn defaults_are_ordered_and_fitted() {
        let dedicated = Tenancy::Dedicated.default_slowdown();
        for t in Tenancy::ALL {
            let s = t.default_slowdown();
            assert!(s.median >= dedicated.median, "{t:?}");
            assert!(s.p99 >= s.median);
            assert!((s.median * libm::exp(Z_P99 * s.sigma()) - s.p99).abs() < 1e-12);
            assert!(s.mean() >= s.median && s.p90() <= s.p99);
            assert_eq!(Tenancy::from_id(t.id()), Some(t));
        }
    }

    #[test]
    fn degenerate_distribution_has_no_spread() {
        let s = Slowdown {
            median: 1.2,
            p99: 1.2,
            source: SlowdownSource::Offer,
        };
        assert_eq!(s.sigma(), 0.0);
        assert_eq!(s.mean(), 1.2);
        assert_eq!(s.p90(), 1.2);
    }
}
