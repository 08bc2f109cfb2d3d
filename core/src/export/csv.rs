//! The budget as CSV: a UTF-8 byte-order mark (Excel's cue to read the file as UTF-8, so Chinese
//! names survive on a Chinese Windows), `#` lines with the settings, price dates and assumptions,
//! then one row per option with raw numbers (no thousands separators, no currency signs). Each
//! row ends with its price's standing: estimate or not, evidence, age in days (when the budget
//! has a today) and source; these columns come after the older ones, so a reader by position is
//! not moved.

use std::fmt::Write as _;

use crate::export::budget::{Budget, cents};
use crate::numbers::text::UTF8_BOM;

/// Columns of the CSV export, in order.
pub const CSV_COLUMNS: [&str; 27] = [
    "rank",
    "offer_id",
    "provider",
    "gpu",
    "gpu_count",
    "tenancy",
    "billing_mode",
    "region_class",
    "feasible",
    "vram_fit",
    "hours_expected",
    "hours_p90",
    "deadline_miss_probability",
    "rent",
    "storage",
    "egress",
    "time_cost",
    "risk_cost",
    "total_expected",
    "total_p90",
    "currency",
    "price_as_of",
    "policy",
    "price_is_estimate",
    "price_evidence",
    "price_age_days",
    "price_source",
];

/// The budget as CSV: a UTF-8 byte-order mark, `#` lines with the settings, price dates and
/// assumptions, then a header and one row per option with raw numbers (no thousands separators,
/// no currency signs).
pub fn budget_csv(b: &Budget) -> String {
    let mut out = String::from(UTF8_BOM);
    let _ = writeln!(
        out,
        "# gpufare budget, format_version {}, currency {}, cny_per_usd {}, seed {}, trials {}",
        b.format_version, b.currency, b.cny_per_usd, b.seed, b.trials
    );
    let _ = writeln!(
        out,
        "# recommendation: {} {}",
        b.decision.choice,
        b.decision.recommended_offer.as_deref().unwrap_or("-")
    );
    let _ = writeln!(out, "# price dates: {}", b.price_dates.join("; "));
    if let Some(today) = &b.today {
        let _ = writeln!(out, "# price ages in days counted to {today}");
    }
    for a in &b.assumptions {
        let _ = writeln!(out, "# assumption {} = {} ({})", a.id, a.value, a.source);
    }
    let mut writer = csv::Writer::from_writer(Vec::new());
    let _ = writer.write_record(CSV_COLUMNS);
    for r in &b.options {
        let _ = writer.write_record([
            r.rank.to_string(),
            r.offer_id.clone(),
            r.provider.clone(),
            r.gpu.clone(),
            r.gpu_count.to_string(),
            r.tenancy.clone(),
            r.billing_mode.clone(),
            r.region_class.clone(),
            r.feasible.to_string(),
            r.vram_fit.clone(),
            r.hours_expected.to_string(),
            r.hours_p90.to_string(),
            r.deadline_miss_probability
                .map(|p| p.to_string())
                .unwrap_or_default(),
            cents(r.rent),
            cents(r.storage),
            cents(r.egress),
            cents(r.time_cost),
            cents(r.risk_cost),
            cents(r.total_expected),
            cents(r.total_p90),
            b.currency.code().to_owned(),
            r.price_as_of.clone(),
            r.policy.clone().unwrap_or_default(),
            r.price_is_estimate.to_string(),
            r.price_evidence.clone().unwrap_or_default(),
            r.price_age_days.map(|d| d.to_string()).unwrap_or_default(),
            r.price_source.clone(),
        ]);
    }
    out.push_str(&String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default());
    out
}
