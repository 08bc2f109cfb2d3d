//! MIG profiles: how many streaming multiprocessors (SMs) and memory slices a MIG slice of each
//! GPU holds. A slice's compute share is its SMs over the whole card's, not k/7: an A100's 1g
//! slice has 14 of 108 SMs (0.130, against 1/7 = 0.143), because the seven compute slices
//! together hold 98 SMs and the remaining 10 serve no slice. Its memory bandwidth share is its
//! memory slices over the card's eight. Slices are isolated in hardware (their own SMs, L2 banks
//! and memory controllers), so a neighbour does not slow them.
//!
//! Sources: `nvidia-smi mig -lgip` listings (the SM column) and NVIDIA's MIG user guide (the
//! profiles and their memory slices); docs/sources.md §2.

/// Memory slices of a MIG-capable card (A100, H100, H200: eight).
pub const MEMORY_SLICES: u32 = 8;

/// One MIG profile of one GPU model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MigProfile {
    /// GPU short name from the spec table.
    pub gpu: &'static str,
    /// Profile name, e.g. `1g.10gb`.
    pub name: &'static str,
    /// SMs in the slice.
    pub sms: u32,
    /// SMs of the whole card.
    pub card_sms: u32,
    /// Memory slices in the slice (of [`MEMORY_SLICES`]).
    pub memory_slices: u32,
    /// Whether the SM counts are carried over from a card with the same die (H200 from H100)
    /// rather than read from a listing of this card.
    pub carried_over: bool,
}

impl MigProfile {
    /// Share of the whole card's compute: its SMs over the card's, to six decimals (as a
    /// catalog writes shares, so that the figure survives a trip through any file).
    pub fn compute_share(&self) -> f64 {
        libm::round(f64::from(self.sms) / f64::from(self.card_sms) * 1e6) / 1e6
    }

    /// Share of the whole card's memory bandwidth: its memory slices over the card's.
    pub fn bandwidth_share(&self) -> f64 {
        f64::from(self.memory_slices) / f64::from(MEMORY_SLICES)
    }
}

const fn p(
    gpu: &'static str,
    name: &'static str,
    sms: u32,
    card_sms: u32,
    memory_slices: u32,
    carried_over: bool,
) -> MigProfile {
    MigProfile {
        gpu,
        name,
        sms,
        card_sms,
        memory_slices,
        carried_over,
    }
}

/// Every profile gpufare knows. A100: 14 SMs per compute slice of 108 (`nvidia-smi mig -lgip`
/// on an A100-SXM4-40GB: 1g 14, 2g 28, 3g 42, 4g 56, 7g 98); the 80 GB card has the same SMs
/// with twice the memory per slice. H100 SXM (80 GB): 1g.10gb 16, 1g.20gb 26, 2g.20gb 32,
/// 3g.40gb 60, 4g.40gb 64, 7g.80gb 132 SMs of 132 (a public `nvidia-smi mig -lgip` listing).
/// H200: the same GH100 die and compute slices as the H100 SXM with 141 GB (SM counts carried
/// over). H20: a GH100 with 96 GB and the same seven-slice geometry (the MIG user guide lists it
/// with up to seven instances); no public `-lgip` listing gives its SM counts, so the H100 SXM's
/// shares are carried over and the profile says so. The A30 (four slices) is not in the spec
/// table and no catalog row sells it.
pub const PROFILES: &[MigProfile] = &[
    p("A100-40GB", "1g.5gb", 14, 108, 1, false),
    p("A100-40GB", "1g.10gb", 14, 108, 2, false),
    p("A100-40GB", "2g.10gb", 28, 108, 2, false),
    p("A100-40GB", "3g.20gb", 42, 108, 4, false),
    p("A100-40GB", "4g.20gb", 56, 108, 4, false),
    p("A100-40GB", "7g.40gb", 98, 108, 8, false),
    p("A100-80GB", "1g.10gb", 14, 108, 1, false),
    p("A100-80GB", "1g.20gb", 14, 108, 2, false),
    p("A100-80GB", "2g.20gb", 28, 108, 2, false),
    p("A100-80GB", "3g.40gb", 42, 108, 4, false),
    p("A100-80GB", "4g.40gb", 56, 108, 4, false),
    p("A100-80GB", "7g.80gb", 98, 108, 8, false),
    p("H100-SXM", "1g.10gb", 16, 132, 1, false),
    p("H100-SXM", "1g.20gb", 26, 132, 2, false),
    p("H100-SXM", "2g.20gb", 32, 132, 2, false),
    p("H100-SXM", "3g.40gb", 60, 132, 4, false),
    p("H100-SXM", "4g.40gb", 64, 132, 4, false),
    p("H100-SXM", "7g.80gb", 132, 132, 8, false),
    p("H200", "1g.18gb", 16, 132, 1, true),
    p("H200", "1g.35gb", 26, 132, 2, true),
    p("H200", "2g.35gb", 32, 132, 2, true),
    p("H200", "3g.71gb", 60, 132, 4, true),
    p("H200", "4g.71gb", 64, 132, 4, true),
    p("H200", "7g.141gb", 132, 132, 8, true),
    p("H20", "1g.12gb", 16, 132, 1, true),
    p("H20", "1g.24gb", 26, 132, 2, true),
    p("H20", "2g.24gb", 32, 132, 2, true),
    p("H20", "3g.48gb", 60, 132, 4, true),
    p("H20", "4g.48gb", 64, 132, 4, true),
    p("H20", "7g.96gb", 132, 132, 8, true),
];

/// The profile `name` of GPU `gpu`, if known.
pub fn find_mig(gpu: &str, name: &str) -> Option<&'static MigProfile> {
    PROFILES
        .iter()
        .find(|m| m.gpu == gpu && m.name.eq_ignore_ascii_case(name.trim()))
}

/// The profile names known for `gpu`, comma-separated (empty when none).
pub fn mig_names(gpu: &str) -> String {
    PROFILES
        .iter()
        .filter(|m| m.gpu == gpu)
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::gpu::find_gpu;

    /// The published figure: a 1g slice of an A100 has 14 of the card's 108 SMs (NVIDIA,
    /// `nvidia-smi mig -lgip`), 0.907 of the 1/7 a k/7 share would give it.
    #[test]
    fn an_a100_1g_slice_has_14_of_108_sms() {
        let m = find_mig("A100-80GB", "1g.10gb").unwrap();
        assert_eq!((m.sms, m.card_sms), (14, 108));
        assert!((m.compute_share() - 14.0 / 108.0).abs() < 1e-6);
        assert!((m.compute_share() * 7.0 - 0.907).abs() < 0.001);
        assert_eq!(m.bandwidth_share(), 0.125);
        assert_eq!(find_mig("H100-SXM", "3G.40GB").unwrap().sms, 60);
        assert!(find_mig("H20", "1g.12gb").is_some_and(|m| m.carried_over));
        assert!(find_mig("H20", "1g.10gb").is_none());
    }

    #[test]
    fn every_profile_names_a_known_mig_gpu_and_fits_in_it() {
        for m in PROFILES {
            assert!(find_gpu(m.gpu).is_some(), "{}", m.gpu);
            assert!(
                m.sms <= m.card_sms && m.memory_slices <= MEMORY_SLICES,
                "{m:?}"
            );
            let k: u32 = m.name[..1].parse().unwrap();
            assert!(m.compute_share() <= f64::from(k) / 7.0 + 0.08, "{m:?}");
        }
    }
}
