//! Fleets: many nodes' probe profiles merged into one fleet, grouped by GPU model and kind of
//! capacity, with the spread of every measured figure per group and the nodes that are not what
//! was paid for (outliers), for a terminal, Markdown, Prometheus and the plan.
//!
//! [`merge`] reads profiles and JSON-lines fleet files into nodes ([`merge::merge`],
//! [`merge::parse_fleet`], [`merge::fleet_to_jsonl`]); [`figures`] says which group a node is in
//! and what it measured; [`rules`] holds the outlier thresholds ([`rules::parse_rules`]);
//! [`report`] builds the report; [`render`] writes it as a table, Markdown or Prometheus text;
//! [`factors`] turns group medians into the plan's measured factors. core/README.md ("Fleets")
//! documents the rule and every default.

pub mod factors;
pub mod figures;
pub mod merge;
pub mod render;
pub mod report;
pub mod rules;

pub use factors::fleet_factors;
pub use figures::{Capacity, Figure};
pub use merge::{
    Damaged, Duplicate, FleetNode, Merged, fleet_to_jsonl, merge, parse_fleet, redact,
};
pub use render::{prometheus_text, report_markdown, report_table};
pub use report::{
    FLEET_REPORT_FORMAT_VERSION, FleetReport, GroupFinding, GroupReport, Outlier, Reason, Spread,
    VerdictCount, report,
};
pub use rules::{RULES_FORMAT_VERSION, Rules, RulesError, parse_rules};
