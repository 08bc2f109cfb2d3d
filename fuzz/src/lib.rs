//! What the fuzz targets share: how bytes become text, and a small catalog to price against.

use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::settings::PlanSettings;

/// The input as text, as a browser or the CLI would read a file: invalid UTF-8 replaced.
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// Every seventh offer of the default catalog: every tenancy, billing mode and spot row kind,
/// small enough for thousands of plans a second.
pub fn small_catalog() -> Catalog {
    Catalog {
        format_version: default_catalog().format_version,
        offers: default_catalog()
            .offers
            .iter()
            .step_by(7)
            .cloned()
            .collect(),
    }
}

/// Few trials: the fuzzer looks for panics and hangs, not for precise figures.
pub fn quick(settings: PlanSettings) -> PlanSettings {
    PlanSettings {
        trials: settings.trials.min(20),
        ..settings
    }
}
