//! The pure model behind gpufare.
//!
//! Everything that decides a number lives here: money and its exact arithmetic, billing modes,
//! offers and catalogs, tenancy and its slowdown distributions, the time and interruption model,
//! total cost with time and risk, the decision with its reasons, break-even figures, the workload
//! estimator (VRAM need and run time from a model preset), and the probe profile format with its
//! parser. The crate does no I/O, reads no clock and no environment, and has no ambient
//! randomness (see `clippy.toml` next to this crate), so the command-line tool and the
//! WebAssembly site compute the very same figures from the same input.

pub mod analysis;
pub mod billing;
pub mod bottleneck;
pub mod breakeven;
pub mod catalog;
pub mod cost;
pub mod decision;
pub mod evidence;
pub mod export;
pub mod figures;
pub mod gpu;
pub mod input;
pub mod money;
pub mod plan;
pub mod presets;
pub mod profile;
pub mod reason;
pub mod risk;
pub mod rng;
pub mod scenario;
pub mod schema;
pub mod skypilot;
pub mod stats;
pub mod task;
pub mod tenancy;
pub mod workload;

pub use billing::{
    BillingError, FormOutcome, Granularity, PayAsYouGo, PayAsYouGoForm, RentQuote,
    pay_as_you_go_rent,
};
pub use input::{InputError, parse_decimal};
pub use money::{Currency, Money};
pub use profile::{PROFILE_FORMAT_VERSION, Profile, ProfileError, parse_profile, profile_to_json};
