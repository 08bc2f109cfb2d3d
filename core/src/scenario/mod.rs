//! Scenarios: everything the site shows in one document, and the share links that carry it.

pub mod document;
pub mod share;

pub use document::{
    CatalogEdits, OfferFilter, SCENARIO_FORMAT_VERSION, Scenario, ScenarioError, parse_scenario,
};
pub use share::{decode_share, encode_share};
