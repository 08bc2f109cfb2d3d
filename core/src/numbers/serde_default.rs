//! Defaults and skip tests for serde attributes (`#[serde(default = "...")]`,
//! `skip_serializing_if = "..."`), one copy for every document type.

/// 1, a count's default.
pub(crate) fn one() -> u32 {
    1
}

/// Whether a count is 1 (its default, left out of the JSON).
pub(crate) fn is_one(n: &u32) -> bool {
    *n == 1
}

/// Whether a figure is exactly 0 (left out of the JSON).
pub(crate) fn is_zero(x: &f64) -> bool {
    *x == 0.0
}
