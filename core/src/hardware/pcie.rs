//! What a PCIe link should carry: the pinned host-to-device bandwidth a healthy x16 link reaches
//! per generation.

/// Typical pinned host-to-device bandwidth per PCIe generation at x16, GB/s (bandwidthTest-like).
pub fn expected_h2d_gbs(generation: u32) -> Option<f64> {
    match generation {
        3 => Some(12.0),
        4 => Some(24.0),
        5 => Some(48.0),
        _ => None,
    }
}
