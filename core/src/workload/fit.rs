//! Fit of a VRAM need against catalog offers, by the plan's own rule
//! ([`crate::plan::feasibility::check`]): a need up to 90 % of an offer's visible VRAM *fits*, up
//! to all of it is *tight*, above it is *OOM*; a job on several GPUs needs an offer with that many
//! whole cards, because slices cannot join a multi-GPU job (no P2P or NVLink across MIG
//! instances: NVIDIA's MIG user guide).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::offers::catalog::Catalog;
use crate::offers::offer::Offer;
use crate::offers::tenancy::Tenancy;
use crate::plan::feasibility::{Needs, VramFit, check};

/// One offer's fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OfferFit {
    /// The offer's id.
    pub offer_id: String,
    /// Provider.
    pub provider: String,
    /// GPU short name.
    pub gpu: String,
    /// How the GPU is shared.
    pub tenancy: Tenancy,
    /// GPUs (or slices) in the offer.
    pub gpu_count: u32,
    /// VRAM visible per GPU or slice, GiB.
    pub vram_gib: f64,
    /// The VRAM verdict.
    pub fit: VramFit,
    /// Whether the offer has enough GPUs that can work together for the job (not written out:
    /// the summary counts offers without it apart).
    #[serde(skip)]
    pub enough_gpus: bool,
}

/// The fit of a need against a whole catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogFit {
    /// VRAM needed per GPU, GiB.
    pub need_gib: f64,
    /// GPUs the job needs.
    pub gpus: u32,
    /// Offers whose VRAM fits (among those with enough GPUs).
    pub fits: u32,
    /// Offers whose VRAM is tight (among those with enough GPUs).
    pub tight: u32,
    /// Offers whose VRAM is too small (among those with enough GPUs).
    pub oom: u32,
    /// Offers with too few GPUs for the job, or slices for a multi-GPU job.
    pub too_few_gpus: u32,
    /// The slice (MIG, vGPU, MPS, time slice, capped container) with the least VRAM that fits;
    /// a tight one when none fits. Ties go to the catalog's first.
    pub smallest_slice: Option<OfferFit>,
    /// The whole card (dedicated or marketplace host) with the least VRAM that fits; a tight one
    /// when none fits.
    pub smallest_dedicated: Option<OfferFit>,
    /// Every offer, in catalog order.
    pub offers: Vec<OfferFit>,
}

fn offer_fit(need_gib: f64, gpus: u32, offer: &Offer) -> OfferFit {
    let verdict = check(&Needs::memory(need_gib, gpus), offer);
    OfferFit {
        offer_id: offer.id.clone(),
        provider: offer.provider.clone(),
        gpu: offer.gpu.clone(),
        tenancy: offer.tenancy,
        gpu_count: offer.gpu_count,
        vram_gib: offer.vram_gib,
        fit: verdict.vram_fit,
        enough_gpus: verdict.enough_gpus(),
    }
}

fn smallest(offers: &[OfferFit], slice: bool) -> Option<OfferFit> {
    let pick = |fit: VramFit| {
        offers
            .iter()
            .filter(|o| o.enough_gpus && o.tenancy.is_slice() == slice && o.fit == fit)
            .min_by(|a, b| a.vram_gib.total_cmp(&b.vram_gib))
            .cloned()
    };
    pick(VramFit::Fits).or_else(|| pick(VramFit::Tight))
}

/// Checks `need_gib` per GPU on `gpus` GPUs against every offer of `catalog`.
pub fn fit_catalog(need_gib: f64, gpus: u32, catalog: &Catalog) -> CatalogFit {
    let offers: Vec<OfferFit> = catalog
        .offers
        .iter()
        .map(|o| offer_fit(need_gib, gpus, o))
        .collect();
    let count = |fit: VramFit| {
        let n = offers
            .iter()
            .filter(|o| o.enough_gpus && o.fit == fit)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    let too_few = offers.iter().filter(|o| !o.enough_gpus).count();
    CatalogFit {
        need_gib,
        gpus,
        fits: count(VramFit::Fits),
        tight: count(VramFit::Tight),
        oom: count(VramFit::Oom),
        too_few_gpus: u32::try_from(too_few).unwrap_or(u32::MAX),
        smallest_slice: smallest(&offers, true),
        smallest_dedicated: smallest(&offers, false),
        offers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::default::default_catalog;

    #[test]
    fn counts_every_offer_once_and_finds_the_smallest() {
        let catalog = default_catalog();
        let fit = fit_catalog(10.0, 1, catalog);
        assert_eq!(
            (fit.fits + fit.tight + fit.oom + fit.too_few_gpus) as usize,
            catalog.offers.len()
        );
        assert_eq!(fit.too_few_gpus, 0);
        let slice = fit.smallest_slice.unwrap();
        assert!(slice.tenancy.is_slice());
        assert_eq!(slice.fit, VramFit::Fits);
        // No slice with less VRAM fits.
        assert!(
            fit.offers
                .iter()
                .filter(|o| o.tenancy.is_slice() && o.vram_gib < slice.vram_gib)
                .all(|o| o.fit != VramFit::Fits)
        );
        let card = fit.smallest_dedicated.unwrap();
        assert!(!card.tenancy.is_slice());
        assert_eq!(card.vram_gib, 16.0);
    }

    #[test]
    fn a_multi_gpu_job_never_lands_on_slices() {
        let fit = fit_catalog(30.0, 8, default_catalog());
        assert!(fit.smallest_slice.is_none());
        let card = fit.smallest_dedicated.unwrap();
        assert!(card.gpu_count >= 8);
        assert_eq!(card.vram_gib, 40.0);
        assert!(fit.too_few_gpus > 0);
    }

    #[test]
    fn falls_back_to_a_tight_offer_and_to_none() {
        // 140 GiB: only the 141 GiB H200 is left, and it is tight.
        let fit = fit_catalog(140.0, 1, default_catalog());
        assert_eq!(fit.fits, 0);
        assert_eq!(fit.smallest_dedicated.unwrap().fit, VramFit::Tight);
        let none = fit_catalog(500.0, 1, default_catalog());
        assert!(none.smallest_dedicated.is_none() && none.smallest_slice.is_none());
    }
}
