//! Measured evidence into the model: a probe profile's figures replace the tenancy defaults of
//! the offers it describes, and the plan says which numbers are measured.
//!
//! A profile with a GEMM benchmark gives a measured run-time multiplier: the median is the
//! step time relative to what a healthy dedicated card of that model reaches
//! ([`HEALTHY_GEMM_EFFICIENCY`] of its dense FP16 peak), and the tail keeps the measured
//! P99/P50. It is applied to the catalog's offers of the same GPU model and the same kind of
//! capacity (a profile whose slice verdict says "slice" describes shared offers, of the slice's
//! tenancy when the probe recognised it — MIG, vGPU, a memory-capped container; a whole card,
//! dedicated ones), and the offers' visible VRAM becomes the measured one. A profile with disk or
//! network tests gives the offers its measured disk read and download rates, which bound how
//! fast a task that reads or downloads data can run ([`crate::task::document::TaskProfile::data_read_gb`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::gpu::spec_for;
use crate::numbers::problem::{FieldError, Problem};
use crate::offers::catalog::Catalog;
use crate::offers::offer::IoRates;
use crate::offers::tenancy::{SlowdownOverride, SlowdownSource, Tenancy};
use crate::profile::document::Profile;
use crate::profile::figures::machine_figures;
use crate::profile::verdict::{Finding, Level, VerdictKind};
use crate::profile::verdicts::analyse;
use crate::task::reach::{MeasuredRtt, place_of_label};

/// Share of the dense FP16 peak a healthy dedicated card reaches on a large GEMM (a rule of
/// thumb: 70-80 %, not confirmed by a published measurement; docs/sources.md §6.4).
pub const HEALTHY_GEMM_EFFICIENCY: f64 = 0.75;

/// What one profile says about one GPU model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MeasuredFactors {
    /// GPU short name the profile measured.
    pub gpu: String,
    /// Whether the profile's machine is a slice or has neighbours (shared capacity).
    pub shared: bool,
    /// The kind of slice the probe recognised (MIG, vGPU, a memory-capped container); the
    /// factors then apply to offers of that tenancy only. Absent: every offer of the class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenancy: Option<Tenancy>,
    /// Visible VRAM, GiB.
    pub visible_vram_gib: Option<f64>,
    /// The measured run-time multiplier, when a benchmark ran.
    pub slowdown: Option<SlowdownOverride>,
    /// The machine's measured disk read and download rates, when the probe tested them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<IoRates>,
    /// The neighbours' load: the GPU's mean utilisation before any load of ours, 0-1, when it
    /// was sampled. Fills `neighbour_load` of the work-conserving offers it describes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbour_load: Option<f64>,
}

impl MeasuredFactors {
    /// Checks the figures are usable (they may come from a hand-edited scenario); the error
    /// names the field.
    pub fn validate(&self) -> Result<(), FieldError> {
        if let Some(v) = self.visible_vram_gib
            && !(v.is_finite() && v > 0.0 && v <= 4096.0)
        {
            return Err(FieldError::new(
                "visible_vram_gib",
                Problem::AboveZero { max: 4096.0 },
            ));
        }
        if let Some(s) = &self.slowdown {
            s.validate()?;
        }
        if let Some(l) = self.neighbour_load
            && !(l.is_finite() && (0.0..=1.0).contains(&l))
        {
            return Err(FieldError::new(
                "neighbour_load",
                Problem::OutOfRange { min: 0.0, max: 1.0 },
            ));
        }
        if let Some(io) = &self.io {
            for (field, rate) in [
                ("io.disk_read_mb_s", io.disk_read_mb_s),
                ("io.download_mbit_s", io.download_mbit_s),
            ] {
                if let Some(r) = rate
                    && !(r.is_finite() && r > 0.0 && r < 1e9)
                {
                    return Err(FieldError::new(field, Problem::Positive));
                }
            }
        }
        Ok(())
    }
}

/// The factors a profile measured, one per GPU model it saw.
pub fn measured_factors(profile: &Profile) -> Vec<MeasuredFactors> {
    let verdicts = if profile.verdicts.is_empty() {
        analyse(profile)
    } else {
        profile.verdicts.clone()
    };
    let figures = machine_figures(profile);
    let io = {
        let disk_read_mb_s = figures.disk.and_then(|d| d.seq_read_mb_s);
        let download_mbit_s = figures.network.and_then(|n| n.best_download_mbit_s());
        (disk_read_mb_s.is_some() || download_mbit_s.is_some()).then_some(IoRates {
            disk_read_mb_s,
            download_mbit_s,
        })
    };
    profile
        .gpus
        .iter()
        .filter_map(|g| {
            let spec = spec_for(&g.name)?;
            let shared = verdicts.iter().any(|v| {
                v.gpu == Some(g.index)
                    && matches!(v.kind, VerdictKind::Slice | VerdictKind::NoisyNeighbour)
                    && v.level >= Level::Warn
            });
            let slowdown = profile
                .benchmarks
                .iter()
                .find(|b| b.index == g.index)
                .and_then(|b| {
                    let achieved = b.achieved_tflops.filter(|t| *t > 0.0)?;
                    let median =
                        (spec.fp16_tflops * HEALTHY_GEMM_EFFICIENCY / achieved).clamp(0.5, 20.0);
                    let tail = b
                        .gemm_ms
                        .as_ref()
                        .and_then(|s| s.summary)
                        .and_then(|s| s.tail_ratio())
                        .unwrap_or(1.0);
                    Some(SlowdownOverride {
                        median,
                        p99: (median * tail).clamp(median, 50.0),
                        source: SlowdownSource::Measured,
                    })
                });
            let tenancy = verdicts
                .iter()
                .filter(|v| v.gpu == Some(g.index) && v.kind == VerdictKind::Slice)
                .find_map(|v| match v.finding {
                    Finding::MigSlice => Some(Tenancy::Mig),
                    Finding::Vgpu => Some(Tenancy::Vgpu),
                    Finding::MemoryCapped => Some(Tenancy::MemCappedContainer),
                    _ => None,
                });
            let neighbour_load = figures
                .gpus
                .iter()
                .find(|f| f.index == g.index)
                .and_then(|f| f.utilisation_pct)
                .map(|u| libm::round(u.mean.clamp(0.0, 100.0) * 10.0) / 1000.0)
                .filter(|l| l.is_finite());
            Some(MeasuredFactors {
                gpu: spec.short.clone(),
                shared,
                tenancy,
                visible_vram_gib: g.memory_total_bytes.map(|b| b as f64 / (1u64 << 30) as f64),
                slowdown,
                io,
                neighbour_load,
            })
        })
        .collect()
}

/// Applies measured factors to the matching offers; returns how many offers each factor changed.
pub fn apply(catalog: &mut Catalog, factors: &[MeasuredFactors]) -> Vec<usize> {
    factors
        .iter()
        .map(|f| {
            let mut changed = 0;
            for o in catalog.offers.iter_mut().filter(|o| {
                o.gpu == f.gpu
                    && o.tenancy.is_shared() == f.shared
                    && f.tenancy.is_none_or(|t| o.tenancy == t)
            }) {
                if let Some(s) = f.slowdown {
                    o.slowdown = Some(s);
                }
                if f.io.is_some() {
                    o.io = f.io;
                }
                // Only a time-shared card gives a tenant what its neighbours leave.
                if let Some(l) = f.neighbour_load
                    && o.tenancy.sharing().is_some()
                {
                    o.neighbour_load = Some(l);
                    o.neighbour_load_measured = true;
                }
                if f.shared
                    && let Some(v) = f.visible_vram_gib
                {
                    o.vram_gib = (v * 100.0).round() / 100.0;
                }
                changed += 1;
            }
            changed
        })
        .collect()
}

/// The round trips a profile measured to provider regions the place table knows (`gpufare
/// probe --rtt-regions`, or `--rtt` endpoints labelled with a region), one per place (the
/// lowest median when several endpoints sit in one place). Taken from a profile measured where
/// the user is, they stand for the user's distance to those places.
pub fn measured_round_trips(profile: &Profile) -> Vec<MeasuredRtt> {
    let mut out: Vec<MeasuredRtt> = Vec::new();
    let results = profile.network.iter().flat_map(|n| n.rtt.iter());
    for r in results {
        let (Some(place), Some(ms)) = (r.region.as_deref().and_then(place_of_label), r.median_ms)
        else {
            continue;
        };
        if !(ms.is_finite() && (0.0..=10_000.0).contains(&ms)) {
            continue;
        }
        let ms = libm::round(ms * 10.0) / 10.0;
        match out.iter_mut().find(|m| m.place == place) {
            Some(m) if m.rtt_ms <= ms => {}
            Some(m) => {
                m.rtt_ms = ms;
                m.target.clone_from(&r.target);
            }
            None => out.push(MeasuredRtt {
                place: place.to_owned(),
                rtt_ms: ms,
                target: r.target.clone(),
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::document::parse_profile;

    #[test]
    fn a_recognised_slice_applies_to_offers_of_its_tenancy_only() {
        let p =
            parse_profile(include_str!("../../../tests/profiles/mig-a100-1g10gb.json")).unwrap();
        let f = measured_factors(&p);
        assert_eq!(f.len(), 1);
        assert!(f[0].shared);
        assert_eq!(f[0].tenancy, Some(Tenancy::Mig));
        let mut catalog = crate::offers::default::default_catalog().clone();
        let before = catalog.clone();
        let changed = apply(&mut catalog, &f);
        let mig = catalog
            .offers
            .iter()
            .filter(|o| o.gpu == "A100-80GB" && o.tenancy == Tenancy::Mig)
            .count();
        assert!(mig > 0);
        assert_eq!(changed[0], mig, "only the MIG offers of that GPU");
        for (a, b) in catalog.offers.iter().zip(&before.offers) {
            if a.tenancy != Tenancy::Mig || a.gpu != "A100-80GB" {
                assert_eq!(a, b, "{} untouched", a.id);
            }
        }
    }

    #[test]
    fn a_measured_benchmark_replaces_the_assumed_slowdown() {
        let p = parse_profile(include_str!(
            "../../../tests/profiles/capped-a100-pcie-gen3.json"
        ))
        .unwrap();
        let f = measured_factors(&p);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].gpu.as_str(), f[0].shared), ("A100-80GB", false));
        let s = f[0].slowdown.unwrap();
        // 312 x 0.75 / 238.2 = 0.982...; the recorded tail is P99/P50 = 4.64/4.62.
        assert!((s.median - 312.0 * 0.75 / 238.2).abs() < 1e-9);
        assert!(s.p99 >= s.median && s.source == SlowdownSource::Measured);
        let mut catalog = crate::offers::default::default_catalog().clone();
        let changed = apply(&mut catalog, &f);
        assert!(changed[0] > 0);
        assert!(
            catalog
                .offers
                .iter()
                .filter(|o| o.gpu == "A100-80GB" && !o.tenancy.is_shared())
                .all(|o| o.slowdown == Some(s))
        );
        assert!(
            catalog
                .offers
                .iter()
                .filter(|o| o.gpu != "A100-80GB")
                .all(|o| o.slowdown.is_none())
        );
    }
}
