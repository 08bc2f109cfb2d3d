//! The pure model behind gpufare.
//!
//! Everything that decides a number lives here: money and its exact arithmetic, billing rules,
//! and the probe profile format with its parser. The crate does no I/O, reads no clock and no
//! environment, and has no ambient randomness (see `clippy.toml` next to this crate), so the
//! command-line tool and the WebAssembly site compute the very same figures from the same input.

pub mod billing;
pub mod input;
pub mod money;
pub mod profile;

pub use billing::{
    BillingError, FormOutcome, Granularity, PayAsYouGo, PayAsYouGoForm, RentQuote,
    pay_as_you_go_rent,
};
pub use input::{InputError, parse_decimal};
pub use money::{Currency, Money};
pub use profile::{PROFILE_FORMAT_VERSION, Profile, ProfileError, parse_profile, profile_to_json};
