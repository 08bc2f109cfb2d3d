//! The numbers every other part of the model is built from: exact money with its currency, typed
//! input checked against its range, summary statistics of measured series, seeded random
//! numbers, work spread over the cores where the build allows, and text files decoded from the
//! encodings spreadsheets save them in. This layer imports nothing else
//! from the crate.

pub mod date;
pub mod input;
pub mod money;
pub mod parallel;
pub mod problem;
pub mod rng;
pub(crate) mod serde_default;
pub mod stats;
pub mod text;
