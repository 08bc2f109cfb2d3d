//! An assumption behind a figure: its id, the value used and where it comes from, so a user can
//! check it or override it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An assumption the plan used, shown so the user can check or override it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Assumption {
    /// Stable id, e.g. `slowdown.time_sliced`.
    pub id: String,
    /// The value used.
    pub value: String,
    /// Where it comes from and how to override it.
    pub source: String,
}
