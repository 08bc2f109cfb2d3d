//! A fleet's evidence as the plan's measured factors: one set per group, from the group's medians
//! and spread, applied to offers of the same GPU model and kind of capacity like one profile's
//! ([`crate::profile::evidence::apply`]).

use crate::fleet::figures::{Capacity, Figure};
use crate::fleet::report::{FleetReport, GroupReport, Spread};
use crate::hardware::gpu::find_gpu;
use crate::offers::offer::IoRates;
use crate::offers::tenancy::{SlowdownOverride, SlowdownSource, Tenancy};
use crate::profile::evidence::{HEALTHY_GEMM_EFFICIENCY, MeasuredFactors};

fn spread(group: &GroupReport, figure: Figure) -> Option<&Spread> {
    group.figures.iter().find(|s| s.figure == figure)
}

fn positive(x: f64) -> Option<f64> {
    (x.is_finite() && x > 0.0).then_some(x)
}

/// The measured factors of each group whose GPU model the spec table knows and that measured
/// something the plan uses. The run-time multiplier's median is a healthy card's GEMM TFLOPS
/// ([`HEALTHY_GEMM_EFFICIENCY`] of the data sheet's FP16 peak) over the group's median TFLOPS;
/// its P99 is the larger of the median times the group's median step-time tail (P99/P50 within
/// a run) and the healthy TFLOPS over the group's P5 TFLOPS (a slow node drawn from the fleet).
/// Visible VRAM, disk read and download are the group's medians. A group of whole cards gives
/// dedicated factors; any other capacity gives shared ones, restricted to its tenancy (MIG,
/// vGPU, or memory-capped container for a slice).
pub fn fleet_factors(r: &FleetReport) -> Vec<MeasuredFactors> {
    r.groups
        .iter()
        .filter_map(|g| {
            let spec = find_gpu(&g.gpu)?;
            let (shared, tenancy) = match g.capacity {
                Capacity::WholeCard => (false, None),
                Capacity::Mig => (true, Some(Tenancy::Mig)),
                Capacity::Vgpu => (true, Some(Tenancy::Vgpu)),
                Capacity::Slice => (true, Some(Tenancy::MemCappedContainer)),
                Capacity::NoGpu => return None,
            };
            let healthy = spec.fp16_tflops * HEALTHY_GEMM_EFFICIENCY;
            let slowdown = spread(g, Figure::GemmTflops).and_then(|s| {
                let p50 = positive(s.p50)?;
                let median = (healthy / p50).clamp(0.5, 20.0);
                let tail = spread(g, Figure::StepP99P50)
                    .and_then(|t| positive(t.p50))
                    .unwrap_or(1.0);
                let slow_node = positive(s.p5).map_or(median, |p5| healthy / p5);
                let p99 = (median * tail).max(slow_node);
                Some(SlowdownOverride {
                    median,
                    p99: p99.clamp(median, 50.0),
                    source: SlowdownSource::Measured,
                })
            });
            let median_of = |f: Figure| spread(g, f).and_then(|s| positive(s.p50));
            let disk_read_mb_s = median_of(Figure::DiskReadMbS).filter(|r| *r < 1e9);
            let download_mbit_s = median_of(Figure::DownloadMbitS).filter(|r| *r < 1e9);
            let io = (disk_read_mb_s.is_some() || download_mbit_s.is_some()).then_some(IoRates {
                disk_read_mb_s,
                download_mbit_s,
            });
            let visible_vram_gib = median_of(Figure::VisibleVramGib).filter(|v| *v <= 4096.0);
            if slowdown.is_none() && io.is_none() && visible_vram_gib.is_none() {
                return None;
            }
            Some(MeasuredFactors {
                gpu: spec.short.clone(),
                shared,
                tenancy,
                visible_vram_gib,
                slowdown,
                io,
                // A fleet's utilisation is its own jobs' work, not neighbours'.
                neighbour_load: None,
            })
        })
        .collect()
}
