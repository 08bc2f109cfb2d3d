//! How fast an offer runs the task's work compared with the reference GPU: the spec ratio for the
//! kind of work, and what is kept when work spreads over several GPUs.

use crate::hardware::gpu::GpuSpec;
use crate::hardware::mig::find_mig;
use crate::offers::offer::Offer;
use crate::task::document::Bound;

/// Share of linear speed-up kept when work spreads over several GPUs (an assumption).
pub const MULTI_GPU_EFFICIENCY: f64 = 0.9;

/// How fast the offer's GPU is relative to the reference GPU for this kind of work.
pub fn speed_ratio(reference: &GpuSpec, gpu: &GpuSpec, bound: Bound) -> f64 {
    match bound {
        Bound::Compute => gpu.fp16_tflops / reference.fp16_tflops,
        Bound::Memory => gpu.mem_bw_gbs / reference.mem_bw_gbs,
    }
}

/// The share of one card each of an offer's GPUs gives the task: a MIG slice with a known
/// profile gives its SMs' share to compute-bound work and its memory slices' share to
/// memory-bound work (`hardware::mig`); any other offer its `gpu_fraction`.
pub fn card_share(offer: &Offer, bound: Bound) -> f64 {
    let profile = offer
        .mig_profile
        .as_deref()
        .and_then(|m| find_mig(&offer.gpu, m));
    match (profile, bound) {
        (Some(m), Bound::Compute) => m.compute_share(),
        (Some(m), Bound::Memory) => m.bandwidth_share(),
        (None, _) => offer.gpu_fraction,
    }
}
