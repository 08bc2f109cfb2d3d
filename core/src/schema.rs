//! JSON Schemas of every document gpufare reads or writes, generated from the types.
//!
//! The checked-in copies live in `public/schema/` (served with the site); a test fails when they
//! drift from the types. Regenerate them with `cargo xtask schemas`.

use schemars::schema_for;

/// The documents that have a schema, by name.
pub const SCHEMAS: [&str; 8] = [
    "task",
    "catalog",
    "profile",
    "plan",
    "budget",
    "scenario",
    "fleet-report",
    "fleet-rules",
];

/// The JSON Schema of a document (`task`, `catalog`, `profile`, `plan`, `budget`, `scenario`,
/// `fleet-report`, `fleet-rules`).
pub fn schema_json(name: &str) -> Option<String> {
    let schema = match name {
        "task" => schema_for!(crate::task::document::TaskProfile),
        "catalog" => schema_for!(crate::offers::catalog::Catalog),
        "profile" => schema_for!(crate::profile::document::Profile),
        "plan" => schema_for!(crate::plan::PlanResult),
        "budget" => schema_for!(crate::export::budget::Budget),
        "scenario" => schema_for!(crate::scenario::document::Scenario),
        "fleet-report" => schema_for!(crate::fleet::FleetReport),
        "fleet-rules" => schema_for!(crate::fleet::Rules),
        _ => return None,
    };
    serde_json::to_string_pretty(&schema).ok().map(|mut s| {
        s.push('\n');
        s
    })
}
