//! Scenarios: everything the site shows in one document, and the share links that carry it.

pub mod document;
pub mod share;

pub use document::{
    AttachedQueueTrace, CatalogEdits, MAX_QUEUE_TRACES, OfferFilter, SCENARIO_FORMAT_VERSION,
    Scenario, ScenarioError, parse_scenario, parse_scenario_for,
};
pub use share::{decode_share, decode_share_for, encode_share};
