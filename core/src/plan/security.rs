//! The security controls each sensitivity level asks for.

use crate::offers::offer::SecurityControl;
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
