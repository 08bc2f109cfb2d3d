//! Large language models: their architecture and presets ([`arch`]), how they are served or
//! trained ([`setup`]), and the memory that takes ([`memory`]).

pub mod arch;
pub mod memory;
pub mod setup;
