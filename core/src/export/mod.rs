//! Budgets for procurement: a plan flattened into rows with raw numbers ([`budget`]), written as
//! JSON, CSV ([`csv`]), Markdown ([`markdown`]) or an Excel workbook (`xlsx`, with the `xlsx`
//! feature), and compared between two runs ([`diff`]). The CLI's `gpufare plan` and the site's
//! downloads both go through here, so they agree to the cent. Every budget states the catalog's
//! price dates and the assumptions behind the figures.

pub mod budget;
pub mod csv;
pub mod diff;
pub mod markdown;
#[cfg(feature = "xlsx")]
pub mod xlsx;

pub use budget::{Budget, BudgetError, budget, budget_json, parse_budget};
pub use csv::budget_csv;
pub use diff::{BudgetDiff, diff, diff_text};
pub use markdown::budget_markdown;
