//! The security controls each sensitivity level asks for, and how an offer measures up.

use crate::offers::offer::{Offer, SecurityControl};
use crate::task::document::Sensitivity;

/// Security controls each sensitivity level asks for.
pub fn required_controls(level: Sensitivity) -> &'static [SecurityControl] {
    match level {
        Sensitivity::Public => &[],
        Sensitivity::Internal => &[SecurityControl::CustomImageSsh],
        Sensitivity::Confidential => &[
            SecurityControl::Vpc,
            SecurityControl::SecurityGroups,
            SecurityControl::EncryptedDisk,
            SecurityControl::AuditLogs,
        ],
        Sensitivity::InHouse => &[
            SecurityControl::Vpc,
            SecurityControl::EncryptedDisk,
            SecurityControl::AuditLogs,
            SecurityControl::VerifiedDeletion,
            SecurityControl::PrivateDeployment,
        ],
    }
}

/// The checklist for data of `level` on `offer`: every control the level asks for, and whether
/// the offer provides it.
pub fn checklist(level: Sensitivity, offer: &Offer) -> Vec<(SecurityControl, bool)> {
    required_controls(level)
        .iter()
        .map(|c| (*c, offer.security.contains(c)))
        .collect()
}
