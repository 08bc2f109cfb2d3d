//! Planning: every offer priced for a task — rent, storage, egress, time and risk — ranked, with
//! the decision, the hybrid plan and the break-even figures.
//!
//! Total = rent + storage + egress + time cost (value of time x wall-clock hours) + risk cost
//! (deadline penalty x miss probability), reported as an expectation (closed forms) and at P90
//! (the Monte Carlo trial at the 90th percentile of wall-clock time, with the rent, time and
//! penalty of that trial). Infeasible offers stay in the list with their reasons.

pub mod assumption;
pub mod breakeven;
pub mod context;
pub mod cost;
pub mod decision;
pub mod feasibility;
pub mod headline;
pub mod hybrid;
pub mod job;
pub mod option;
pub mod performance;
pub mod pipeline;
pub mod policy;
pub mod protection;
pub mod reach;
pub mod reason;
pub mod replay;
pub mod risk;
pub mod scaling;
pub mod security;
pub mod settings;
pub mod share;
pub mod time;

pub use assumption::Assumption;
pub use decision::{Choice, Decision};
pub use feasibility::VramFit;
pub use option::OptionResult;
pub use pipeline::{PLAN_FORMAT_VERSION, PlanResult, plan, plan_with_traces, rank};
pub use reason::{Reason, RuleId};
pub use settings::{
    DEFAULT_TRIALS, MAX_SHARES, PlanError, PlanSettings, ProviderDiscount, ShareMismatch,
};
