//! The pure model behind gpufare.
//!
//! Everything that decides a number lives here, grouped by concern, each group importing only
//! from the groups listed before it:
//!
//! 1. [`numbers`] — exact money, checked input, statistics, seeded random numbers;
//! 2. [`hardware`] — the GPU spec table, MIG profiles, PCIe facts and link bus bandwidths;
//! 3. [`offers`] — offers, catalogs, tenancy, billing, rent, interruptions and preemption
//!    traces, catalog files;
//! 4. [`task`] — the task document (with a service's traffic) and its presets;
//! 5. [`profile`] — the probe profile, its figures, verdicts and measured factors;
//! 6. [`plan`] — feasibility, time and risk (the job through lost capacity, trace replay,
//!    policies for interruptible offers), total cost, the decision, the hybrid plan and the
//!    break-even figures, multi-GPU scaling over the offer's links;
//! 7. [`workload`] — VRAM and run time estimated from a model;
//! 8. [`serving`] — traffic in, replicas out: one LLM replica's throughput and latency, the
//!    replicas each hour needs, and deployments priced side by side;
//! 9. [`scenario`] — everything the site shows in one document, and share links;
//! 10. [`export`] — budgets as JSON, CSV and Markdown, and their differences;
//! 11. [`fleet`] — many nodes' profiles merged, grouped, their spread and outliers, as text,
//!     Prometheus and measured factors;
//! 12. [`schema`] — the JSON Schemas of every document.
//!
//! The crate does no I/O, reads no clock and no environment, and has no ambient randomness (see
//! `clippy.toml` next to this crate), so the command-line tool and the WebAssembly site compute
//! the very same figures from the same input. `cargo xtask layers` checks the order above.
//!
//! Nothing in it may panic on input: no `unwrap`, no `expect`, no indexing (use `get`, slice
//! patterns and iterators). Bad input must come back as an error, never a crash, and the site's
//! WebAssembly aborts on any panic, blanking the whole page. Tests may still unwrap.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::string_slice
    )
)]

/// Gives a unit enum its file identifiers: `ALL` (every value in declaration order), `id()` (the
/// identifier serde writes; a test checks they agree) and `from_id()`. The site and the CLI word
/// values by these identifiers, as they word reasons by their rule ids.
macro_rules! identifiers {
    ($ty:ident { $($variant:ident => $id:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: [$ty; [$($id),+].len()] = [$($ty::$variant),+];

            /// The identifier used in files, e.g. in JSON and CSV.
            pub fn id(self) -> &'static str {
                match self {
                    $($ty::$variant => $id),+
                }
            }

            /// Parses an identifier written by `id`.
            pub fn from_id(id: &str) -> Option<$ty> {
                $ty::ALL.into_iter().find(|v| v.id() == id)
            }
        }
    };
}

pub mod export;
pub mod fleet;
pub mod hardware;
pub mod numbers;
pub mod offers;
pub mod plan;
pub mod profile;
pub mod scenario;
pub mod schema;
pub mod serving;
pub mod task;
pub mod workload;

pub use numbers::input::{InputError, parse_decimal};
pub use numbers::money::{Currency, Money};
pub use offers::billing::{
    BillingError, FormOutcome, Granularity, PayAsYouGo, PayAsYouGoForm, RentQuote,
    pay_as_you_go_rent,
};
pub use profile::{PROFILE_FORMAT_VERSION, Profile, ProfileError, parse_profile, profile_to_json};
