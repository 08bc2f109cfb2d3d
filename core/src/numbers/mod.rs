//! The numbers every other part of the model is built from: exact money with its currency, typed
//! input checked against its range, summary statistics of measured series, and seeded random
//! numbers. This layer imports nothing else from the crate.

pub mod input;
pub mod money;
pub mod problem;
pub mod rng;
pub mod stats;
