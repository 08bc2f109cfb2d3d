//! Budgets for procurement: a plan flattened into rows with raw numbers, written as JSON, CSV or
//! Markdown, and compared between two runs. The CLI's `gpufare plan` and the site's downloads
//! both go through here, so they agree to the cent.
//!
//! Money is written as plain decimal numbers in the plan's currency, already rounded to the
//! minor unit (0.01): a cent amount below 2^53 / 100 prints exactly. Every budget states the
//! catalog's price dates and the assumptions behind the figures.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::catalog::Catalog;
use crate::decision::Choice;
use crate::money::{Currency, Money, group_thousands};
use crate::plan::{Assumption, PlanResult};
use crate::reason::Reason;
use crate::task::TaskProfile;

/// The budget format this build writes and the newest it reads.
pub const BUDGET_FORMAT_VERSION: u32 = 1;

/// A reason with its rule id, parameters and English wording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetReason {
    /// The rule id (snake case), e.g. `vram_oom`.
    pub rule: String,
    /// The rule's parameters.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, String>,
    /// The reason in English.
    pub text: String,
}

impl BudgetReason {
    fn from(r: &Reason) -> BudgetReason {
        BudgetReason {
            rule: id_of(&r.rule),
            params: r.params.clone(),
            text: r.english(),
        }
    }
}

/// One option of the plan with raw numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetRow {
    /// 1-based rank (feasible options first).
    pub rank: usize,
    /// The offer's id.
    pub offer_id: String,
    /// Provider.
    pub provider: String,
    /// GPU short name.
    pub gpu: String,
    /// GPUs in the offer.
    pub gpu_count: u32,
    /// Tenancy id.
    pub tenancy: String,
    /// Whether it is shared compute.
    pub shared: bool,
    /// Billing mode id.
    pub billing_mode: String,
    /// Region class id.
    pub region_class: String,
    /// Whether the task can run here.
    pub feasible: bool,
    /// Why not, when infeasible.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<BudgetReason>,
    /// Warnings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<BudgetReason>,
    /// VRAM fit id (`fits`, `tight`, `oom`).
    pub vram_fit: String,
    /// Expected wall-clock hours.
    pub hours_expected: f64,
    /// Median wall-clock hours.
    pub hours_p50: f64,
    /// 90th-percentile wall-clock hours.
    pub hours_p90: f64,
    /// Probability of missing the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_miss_probability: Option<f64>,
    /// Expected rent.
    pub rent: f64,
    /// Storage and system disk.
    pub storage: f64,
    /// Egress.
    pub egress: f64,
    /// Value of the time spent.
    pub time_cost: f64,
    /// Expected deadline penalty.
    pub risk_cost: f64,
    /// Expected total.
    pub total_expected: f64,
    /// Total in the P90 trial.
    pub total_p90: f64,
    /// Date of the offer's price.
    pub price_as_of: String,
    /// Whether the offer's price is an estimate.
    pub price_is_estimate: bool,
}

/// The recommendation in a budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetDecision {
    /// `shared`, `dedicated`, `dedicated_or_private`, `hybrid` or `no_feasible_offer`.
    pub choice: String,
    /// The recommended offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_offer: Option<String>,
    /// The reasons.
    pub reasons: Vec<BudgetReason>,
}

/// A hybrid phase in a budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetPhase {
    /// `prototype`, `train`, `serve` or `cold_storage`.
    pub phase: String,
    /// The offer used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer_id: Option<String>,
    /// Hours.
    pub hours: f64,
    /// Cost.
    pub cost: f64,
}

/// Break-even figures in a budget.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct BudgetBreakEven {
    /// Hours per month above which monthly beats pay-as-you-go, and for which GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monthly_vs_pay_as_you_go_hours: Option<f64>,
    /// Months per year above which yearly beats monthly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yearly_vs_monthly_months: Option<f64>,
    /// Work hours from which the best dedicated total beats the best shared one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedicated_vs_shared_work_hours: Option<f64>,
}

/// A plan flattened for procurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Budget {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// Always `gpufare-budget`.
    pub kind: String,
    /// Currency of every amount.
    pub currency: Currency,
    /// Yuan per dollar used for conversions.
    pub cny_per_usd: f64,
    /// Monte Carlo seed.
    pub seed: u64,
    /// Monte Carlo trials per offer.
    pub trials: u32,
    /// The task priced.
    pub task: TaskProfile,
    /// The recommendation.
    pub decision: BudgetDecision,
    /// Every option, ranked.
    pub options: Vec<BudgetRow>,
    /// The hybrid plan.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hybrid: Vec<BudgetPhase>,
    /// Total of the hybrid plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hybrid_total: Option<f64>,
    /// Break-even figures.
    pub break_even: BudgetBreakEven,
    /// Price dates of the catalog.
    pub price_dates: Vec<String>,
    /// Assumptions behind the numbers.
    pub assumptions: Vec<Assumption>,
    /// The whole scenario (task, settings, catalog edits, filter), when the budget came from
    /// the site: `gpufare plan --scenario` reprices it exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<crate::scenario::Scenario>,
}

/// The identifier serde writes for a unit enum value, e.g. `vram_oom` or `pay_as_you_go`.
pub fn id_of<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value)
        .map(|s| s.trim_matches('"').to_owned())
        .unwrap_or_default()
}

/// A money amount as a plain number (already rounded to the minor unit).
pub fn number(m: &Money) -> f64 {
    f64::try_from(m.rounded()).unwrap_or(0.0)
}

/// Flattens a plan for `task` priced against `catalog` (for the price dates of each offer).
pub fn budget(plan: &PlanResult, task: &TaskProfile, catalog: &Catalog) -> Budget {
    let offer = |id: &str| catalog.offers.iter().find(|o| o.id == id);
    let options = plan
        .options
        .iter()
        .enumerate()
        .map(|(i, o)| BudgetRow {
            rank: i + 1,
            offer_id: o.offer_id.clone(),
            provider: o.provider.clone(),
            gpu: o.gpu.clone(),
            gpu_count: o.gpu_count,
            tenancy: id_of(&o.tenancy),
            shared: o.shared,
            billing_mode: id_of(&o.billing_mode),
            region_class: id_of(&o.region_class),
            feasible: o.feasible,
            reasons: o.reasons.iter().map(BudgetReason::from).collect(),
            flags: o.flags.iter().map(BudgetReason::from).collect(),
            vram_fit: id_of(&o.vram_fit),
            hours_expected: o.hours_expected,
            hours_p50: o.hours_p50,
            hours_p90: o.hours_p90,
            deadline_miss_probability: o.deadline_miss_probability,
            rent: number(&o.rent),
            storage: number(&o.storage),
            egress: number(&o.egress),
            time_cost: number(&o.time_cost),
            risk_cost: number(&o.risk_cost),
            total_expected: number(&o.total_expected),
            total_p90: number(&o.total_p90),
            price_as_of: offer(&o.offer_id)
                .map(|x| x.as_of.clone())
                .unwrap_or_default(),
            price_is_estimate: offer(&o.offer_id).is_some_and(|x| x.estimate),
        })
        .collect();
    let be = &plan.break_even;
    Budget {
        format_version: BUDGET_FORMAT_VERSION,
        kind: "gpufare-budget".to_owned(),
        currency: plan.currency,
        cny_per_usd: f64::try_from(plan.settings.cny_per_usd).unwrap_or(0.0),
        seed: plan.settings.seed,
        trials: plan.settings.trials,
        task: task.clone(),
        decision: BudgetDecision {
            choice: id_of(&plan.decision.choice),
            recommended_offer: plan.decision.recommended_offer.clone(),
            reasons: plan
                .decision
                .reasons
                .iter()
                .map(BudgetReason::from)
                .collect(),
        },
        options,
        hybrid: plan
            .hybrid
            .as_ref()
            .map(|h| {
                h.phases
                    .iter()
                    .map(|p| BudgetPhase {
                        phase: id_of(&p.phase),
                        offer_id: p.offer_id.clone(),
                        hours: p.hours,
                        cost: number(&p.cost),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        hybrid_total: plan.hybrid.as_ref().map(|h| number(&h.total)),
        break_even: BudgetBreakEven {
            monthly_vs_pay_as_you_go_hours: be
                .monthly_vs_pay_as_you_go
                .as_ref()
                .map(|b| b.break_even),
            yearly_vs_monthly_months: be.yearly_vs_monthly.as_ref().map(|b| b.break_even),
            dedicated_vs_shared_work_hours: be
                .dedicated_vs_shared
                .as_ref()
                .and_then(|b| b.work_hours),
        },
        price_dates: plan.price_dates.clone(),
        assumptions: plan.assumptions.clone(),
        scenario: None,
    }
}

/// The budget as pretty JSON, `format_version` first.
pub fn budget_json(b: &Budget) -> String {
    let mut s = serde_json::to_string_pretty(b).unwrap_or_default();
    s.push('\n');
    s
}

/// Why a budget file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BudgetError {
    /// Not JSON or a field is wrong.
    #[error("not a gpufare budget (line {line}, column {column}): {message}")]
    Invalid {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Written by a newer gpufare.
    #[error("budget format version {found} is newer than this gpufare supports (up to {max})")]
    UnsupportedFormat {
        /// The version found.
        found: u64,
        /// The newest supported.
        max: u32,
    },
}

/// Reads a budget written by [`budget_json`].
pub fn parse_budget(text: &str) -> Result<Budget, BudgetError> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(default)]
        format_version: Option<u64>,
    }
    let invalid = |e: serde_json::Error| BudgetError::Invalid {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let head: Head = serde_json::from_str(text).map_err(invalid)?;
    if let Some(v) = head.format_version
        && v > u64::from(BUDGET_FORMAT_VERSION)
    {
        return Err(BudgetError::UnsupportedFormat {
            found: v,
            max: BUDGET_FORMAT_VERSION,
        });
    }
    serde_json::from_str(text).map_err(invalid)
}

/// Columns of the CSV export, in order.
pub const CSV_COLUMNS: [&str; 22] = [
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
];

/// The budget as CSV: `#` lines with the settings, price dates and assumptions, then a header
/// and one row per option with raw numbers (no thousands separators, no currency signs).
pub fn budget_csv(b: &Budget) -> String {
    let mut out = String::new();
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
        ]);
    }
    out.push_str(&String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default());
    out
}

/// A number with exactly two decimals, e.g. `432.80`.
fn cents(x: f64) -> String {
    format!("{x:.2}")
}

fn money_text(x: f64, c: Currency) -> String {
    format!("{} {}", group_thousands(&cents(x)), c.code())
}

/// The budget as Markdown for a report: recommendation, top options, hybrid plan, break-even,
/// price dates and assumptions.
pub fn budget_markdown(b: &Budget, top: usize) -> String {
    let c = b.currency;
    let mut s = String::new();
    let name = if b.task.name.is_empty() {
        "task".to_owned()
    } else {
        b.task.name.clone()
    };
    let _ = writeln!(s, "# GPU budget: {name}\n");
    // The budget stores the serde identifier; the Markdown shows the enum's name.
    let choice = Choice::from_id(&b.decision.choice)
        .map(|c| format!("{c:?}"))
        .unwrap_or_else(|| b.decision.choice.clone());
    let _ = writeln!(
        s,
        "**Recommendation:** {choice}{}\n",
        b.decision
            .recommended_offer
            .as_ref()
            .map(|o| format!(" — `{o}`"))
            .unwrap_or_default()
    );
    for r in &b.decision.reasons {
        let _ = writeln!(s, "- {}", r.text);
    }
    let _ = writeln!(s, "\n## Ranked options (all amounts in {})\n", c.code());
    let _ = writeln!(
        s,
        "| # | offer | GPU | billing | hours (exp. / P90) | rent | storage | egress | time | risk | total | P90 total |"
    );
    let _ = writeln!(
        s,
        "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in b.options.iter().filter(|r| r.feasible).take(top) {
        let _ = writeln!(
            s,
            "| {} | {} `{}` | {}×{} ({}) | {} | {:.1} / {:.1} | {} | {} | {} | {} | {} | **{}** | {} |",
            r.rank,
            r.provider,
            r.offer_id,
            r.gpu_count,
            r.gpu,
            r.tenancy,
            r.billing_mode,
            r.hours_expected,
            r.hours_p90,
            group_thousands(&cents(r.rent)),
            group_thousands(&cents(r.storage)),
            group_thousands(&cents(r.egress)),
            group_thousands(&cents(r.time_cost)),
            group_thousands(&cents(r.risk_cost)),
            group_thousands(&cents(r.total_expected)),
            group_thousands(&cents(r.total_p90)),
        );
    }
    let blocked = b.options.iter().filter(|r| !r.feasible).count();
    if blocked > 0 {
        let _ = writeln!(
            s,
            "\n{blocked} offers cannot run this task (VRAM, sensitivity, deadline, latency...); see the JSON export for each reason."
        );
    }
    if !b.hybrid.is_empty() {
        let _ = writeln!(
            s,
            "\n## Hybrid plan\n\n| phase | offer | hours | cost |\n|---|---|---:|---:|"
        );
        for p in &b.hybrid {
            let _ = writeln!(
                s,
                "| {} | {} | {:.1} | {} |",
                p.phase,
                p.offer_id.as_deref().unwrap_or("-"),
                p.hours,
                money_text(p.cost, c)
            );
        }
        if let Some(t) = b.hybrid_total {
            let _ = writeln!(s, "| **total** | | | **{}** |", money_text(t, c));
        }
    }
    let be = &b.break_even;
    let _ = writeln!(s, "\n## Break-even\n");
    if let Some(h) = be.monthly_vs_pay_as_you_go_hours {
        let _ = writeln!(
            s,
            "- A monthly plan beats pay-as-you-go above {h:.0} hours per month."
        );
    }
    if let Some(m) = be.yearly_vs_monthly_months {
        let _ = writeln!(
            s,
            "- A yearly plan beats monthly above {m:.1} months per year."
        );
    }
    if let Some(w) = be.dedicated_vs_shared_work_hours {
        let _ = writeln!(s, "- Dedicated beats shared from {w:.1} hours of work.");
    }
    let _ = writeln!(
        s,
        "\n## Basis\n\n- Prices as of: {}",
        b.price_dates.join(", ")
    );
    let _ = writeln!(
        s,
        "- Exchange rate: {} CNY per USD; Monte Carlo seed {}, {} trials per offer.",
        b.cny_per_usd, b.seed, b.trials
    );
    for a in &b.assumptions {
        let _ = writeln!(s, "- `{}` = {} — {}", a.id, a.value, a.source);
    }
    s
}

/// How one offer changed between two budgets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RowChange {
    /// The offer.
    pub offer_id: String,
    /// Rank before, if it was there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_before: Option<usize>,
    /// Rank after, if it is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_after: Option<usize>,
    /// Expected total before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_before: Option<f64>,
    /// Expected total after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_after: Option<f64>,
    /// After minus before, when both exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_change: Option<f64>,
}

/// What changed between two budgets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetDiff {
    /// Recommendation before and after.
    pub recommended_before: Option<String>,
    /// Recommendation after.
    pub recommended_after: Option<String>,
    /// Choice before.
    pub choice_before: String,
    /// Choice after.
    pub choice_after: String,
    /// Offers whose rank or total changed, biggest change first.
    pub changes: Vec<RowChange>,
}

/// Compares two budgets offer by offer.
pub fn diff(old: &Budget, new: &Budget) -> BudgetDiff {
    let mut ids: Vec<&str> = old
        .options
        .iter()
        .chain(&new.options)
        .map(|r| r.offer_id.as_str())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let find = |b: &'_ Budget, id: &str| {
        b.options
            .iter()
            .find(|r| r.offer_id == id)
            .map(|r| (r.rank, r.total_expected))
    };
    let mut changes: Vec<RowChange> = ids
        .into_iter()
        .filter_map(|id| {
            let (a, b) = (find(old, id), find(new, id));
            if a == b {
                return None;
            }
            let total_change = match (a, b) {
                (Some((_, x)), Some((_, y))) => Some(((y - x) * 100.0).round() / 100.0),
                _ => None,
            };
            Some(RowChange {
                offer_id: id.to_owned(),
                rank_before: a.map(|x| x.0),
                rank_after: b.map(|x| x.0),
                total_before: a.map(|x| x.1),
                total_after: b.map(|x| x.1),
                total_change,
            })
        })
        .collect();
    changes.sort_by(|x, y| {
        let mag = |c: &RowChange| c.total_change.map_or(f64::INFINITY, f64::abs);
        mag(y).total_cmp(&mag(x)).then(x.offer_id.cmp(&y.offer_id))
    });
    BudgetDiff {
        recommended_before: old.decision.recommended_offer.clone(),
        recommended_after: new.decision.recommended_offer.clone(),
        choice_before: old.decision.choice.clone(),
        choice_after: new.decision.choice.clone(),
        changes,
    }
}

/// A diff as plain text lines for the terminal.
pub fn diff_text(d: &BudgetDiff, currency: Currency) -> String {
    let mut s = String::new();
    if d.recommended_before != d.recommended_after || d.choice_before != d.choice_after {
        let _ = writeln!(
            s,
            "recommendation: {} {} -> {} {}",
            d.choice_before,
            d.recommended_before.as_deref().unwrap_or("-"),
            d.choice_after,
            d.recommended_after.as_deref().unwrap_or("-")
        );
    } else {
        let _ = writeln!(
            s,
            "recommendation unchanged: {} {}",
            d.choice_after,
            d.recommended_after.as_deref().unwrap_or("-")
        );
    }
    if d.changes.is_empty() {
        let _ = writeln!(s, "no offer changed rank or total");
    }
    for c in &d.changes {
        let rank = |r: Option<usize>| r.map_or("-".to_owned(), |r| r.to_string());
        let total = |t: Option<f64>| t.map_or("-".to_owned(), |t| money_text(t, currency));
        let change = c
            .total_change
            .map(|x| {
                format!(
                    " ({}{})",
                    if x >= 0.0 { "+" } else { "" },
                    money_text(x, currency)
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{}: rank {} -> {}, total {} -> {}{change}",
            c.offer_id,
            rank(c.rank_before),
            rank(c.rank_after),
            total(c.total_before),
            total(c.total_after)
        );
    }
    s
}

/// Rounds a decimal amount to cents as a plain number (for callers holding `Decimal`s).
pub fn decimal_number(d: Decimal) -> f64 {
    f64::try_from(d.round_dp(2)).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::default_catalog;
    use crate::plan::{PlanSettings, plan};
    use crate::presets::preset;

    fn sample() -> Budget {
        let task = preset("qlora_7b").unwrap();
        let settings = PlanSettings {
            trials: 200,
            ..PlanSettings::default()
        };
        budget(
            &plan(&task, default_catalog(), &settings).unwrap(),
            &task,
            default_catalog(),
        )
    }

    #[test]
    fn json_round_trips_and_numbers_are_cents() {
        let b = sample();
        let text = budget_json(&b);
        assert!(text.starts_with("{\n  \"format_version\": 1,"));
        assert_eq!(parse_budget(&text).unwrap(), b);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let first = &v["options"][0];
        assert!(first["total_expected"].is_number() && first["rent"].is_number());
        let sum: f64 = ["rent", "storage", "egress", "time_cost", "risk_cost"]
            .iter()
            .map(|k| first[k].as_f64().unwrap())
            .sum();
        assert!((sum - first["total_expected"].as_f64().unwrap()).abs() < 0.005);
        assert!(matches!(
            parse_budget("{\"format_version\": 5}"),
            Err(BudgetError::UnsupportedFormat { found: 5, .. })
        ));
    }

    #[test]
    fn csv_has_raw_numbers_and_states_its_basis() {
        let b = sample();
        let text = budget_csv(&b);
        assert!(text.contains("# price dates: "));
        assert!(text.contains("# assumption cny_per_usd = 7.2"));
        let body: String = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        let mut reader = csv::Reader::from_reader(body.as_bytes());
        assert_eq!(
            reader.headers().unwrap().iter().collect::<Vec<_>>(),
            CSV_COLUMNS
        );
        let first = reader.records().next().unwrap().unwrap();
        let total: f64 = first[18].parse().unwrap();
        assert!(
            (total - b.options[0].total_expected).abs() < 0.001,
            "{} vs {}",
            &first[18],
            b.options[0].total_expected
        );
        assert!(!first[18].contains(','));
    }

    #[test]
    fn markdown_and_diff_describe_changes() {
        let old = sample();
        let md = budget_markdown(&old, 5);
        assert!(md.contains("## Ranked options") && md.contains("Prices as of"));
        let mut new = old.clone();
        new.options[0].total_expected += 10.0;
        new.decision.recommended_offer = Some("x".into());
        let d = diff(&old, &new);
        assert_eq!(d.changes.len(), 1);
        assert_eq!(d.changes[0].total_change, Some(10.0));
        let text = diff_text(&d, Currency::Cny);
        assert!(
            text.contains("recommendation: ") && text.contains("(+10.00 CNY)"),
            "{text}"
        );
        assert!(diff(&old, &old).changes.is_empty());
    }
}
