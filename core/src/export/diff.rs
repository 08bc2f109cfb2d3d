//! What changed between two budgets: the recommendation with its total and its reasons, and every
//! offer whose rank, price, total or reasons moved (or that one budget lacks), biggest change
//! first. The one home of the rule: the CLI's `gpufare plan --diff` and the site's comparison
//! both show what [`diff`] finds.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::export::budget::{Budget, BudgetReason, BudgetRow, money_text};
use crate::numbers::money::{Currency, group_thousands};

/// Whether an offer is in both budgets or only one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RowChangeKind {
    /// In both budgets, with something moved.
    #[default]
    Changed,
    /// Only in the new budget.
    Added,
    /// Only in the old budget.
    Removed,
}

impl RowChangeKind {
    /// The snake-case id, as the JSON writes it.
    pub fn id(self) -> &'static str {
        match self {
            RowChangeKind::Changed => "changed",
            RowChangeKind::Added => "added",
            RowChangeKind::Removed => "removed",
        }
    }
}

/// How one offer changed between two budgets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RowChange {
    /// The offer.
    pub offer_id: String,
    /// In both budgets, or only in the new (`added`) or the old (`removed`) one.
    #[serde(default)]
    pub change: RowChangeKind,
    /// Rank before, if it was there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_before: Option<usize>,
    /// Rank after, if it is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_after: Option<usize>,
    /// Price per GPU-hour before, in the old budget's currency, as its row states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_before: Option<f64>,
    /// Price per GPU-hour after, in the new budget's currency, as its row states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_after: Option<f64>,
    /// The price's date before, when it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_as_of_before: Option<String>,
    /// The price's date after, when it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_as_of_after: Option<String>,
    /// The evidence behind the price before (`none` when the row gave none), when it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_evidence_before: Option<String>,
    /// The evidence behind the price after (`none` when the row gives none), when it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_evidence_after: Option<String>,
    /// Expected total before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_before: Option<f64>,
    /// Expected total after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_after: Option<f64>,
    /// After minus before, when both exist in the same currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_change: Option<f64>,
    /// Reasons and warnings the new row gives that the old did not, by rule id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons_added: Vec<BudgetReason>,
    /// Reasons and warnings the old row gave that the new does not, by rule id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons_removed: Vec<BudgetReason>,
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
    /// Currency of the new budget: every amount after, and every amount before unless
    /// `currency_before` says otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<Currency>,
    /// Currency of the old budget, when it differs from the new one's (then no change of an
    /// amount is computed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency_before: Option<Currency>,
    /// Expected total of the recommended offer before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_total_before: Option<f64>,
    /// Expected total of the recommended offer after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_total_after: Option<f64>,
    /// After minus before, when both exist in the same currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_total_change: Option<f64>,
    /// The recommendation's reasons before, as the old budget stores them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons_before: Vec<BudgetReason>,
    /// The recommendation's reasons after, as the new budget stores them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons_after: Vec<BudgetReason>,
    /// Offers whose rank, price, total or reasons changed, or that one budget lacks, biggest
    /// change first (added and removed offers lead).
    pub changes: Vec<RowChange>,
}

impl BudgetDiff {
    /// Whether the recommendation (its choice or its offer) changed.
    pub fn recommendation_changed(&self) -> bool {
        self.recommended_before != self.recommended_after || self.choice_before != self.choice_after
    }

    /// Whether the recommendation's reasons changed (rule ids or wording).
    pub fn reasons_changed(&self) -> bool {
        self.reasons_before != self.reasons_after
    }

    /// The currency of the amounts before (the old budget's).
    pub fn currency_before_or(&self, fallback: Currency) -> Currency {
        self.currency_before.or(self.currency).unwrap_or(fallback)
    }

    /// The currency of the amounts after (the new budget's).
    pub fn currency_after_or(&self, fallback: Currency) -> Currency {
        self.currency.unwrap_or(fallback)
    }
}

/// After minus before, rounded to the cent.
fn change(before: f64, after: f64) -> f64 {
    ((after - before) * 100.0).round() / 100.0
}

/// A row's reasons and warnings, the first of each rule id.
fn row_reasons(r: &BudgetRow) -> Vec<&BudgetReason> {
    let mut out: Vec<&BudgetReason> = Vec::new();
    for x in r.reasons.iter().chain(&r.flags) {
        if !out.iter().any(|y| y.rule == x.rule) {
            out.push(x);
        }
    }
    out
}

/// The reasons of `a` whose rule `b` lacks.
fn missing_from(a: &[&BudgetReason], b: &[&BudgetReason]) -> Vec<BudgetReason> {
    a.iter()
        .filter(|x| !b.iter().any(|y| y.rule == x.rule))
        .map(|x| (*x).clone())
        .collect()
}

/// The evidence of a row's price as the diff writes it.
fn evidence(r: &BudgetRow) -> String {
    r.price_evidence
        .clone()
        .unwrap_or_else(|| "none".to_owned())
}

/// How one offer changed, or `None` when nothing the diff reports moved.
fn row_change(
    id: &str,
    old: Option<&BudgetRow>,
    new: Option<&BudgetRow>,
    same_currency: bool,
) -> Option<RowChange> {
    let mut c = RowChange {
        offer_id: id.to_owned(),
        change: RowChangeKind::Changed,
        rank_before: old.map(|r| r.rank),
        rank_after: new.map(|r| r.rank),
        price_before: old.and_then(|r| r.price_per_gpu_hour),
        price_after: new.and_then(|r| r.price_per_gpu_hour),
        price_as_of_before: None,
        price_as_of_after: None,
        price_evidence_before: None,
        price_evidence_after: None,
        total_before: old.map(|r| r.total_expected),
        total_after: new.map(|r| r.total_expected),
        total_change: None,
        reasons_added: Vec::new(),
        reasons_removed: Vec::new(),
    };
    match (old, new) {
        (Some(a), Some(b)) => {
            if a.price_as_of != b.price_as_of {
                c.price_as_of_before = Some(a.price_as_of.clone());
                c.price_as_of_after = Some(b.price_as_of.clone());
            }
            if a.price_evidence != b.price_evidence {
                c.price_evidence_before = Some(evidence(a));
                c.price_evidence_after = Some(evidence(b));
            }
            if same_currency {
                c.total_change = Some(change(a.total_expected, b.total_expected));
            }
            let (ra, rb) = (row_reasons(a), row_reasons(b));
            c.reasons_added = missing_from(&rb, &ra);
            c.reasons_removed = missing_from(&ra, &rb);
            let moved = a.rank != b.rank
                || a.total_expected != b.total_expected
                || a.price_per_gpu_hour != b.price_per_gpu_hour
                || !same_currency
                || c.price_as_of_before.is_some()
                || c.price_evidence_before.is_some()
                || !c.reasons_added.is_empty()
                || !c.reasons_removed.is_empty();
            moved.then_some(c)
        }
        (None, Some(b)) => {
            c.change = RowChangeKind::Added;
            c.reasons_added = row_reasons(b).into_iter().cloned().collect();
            Some(c)
        }
        (Some(a), None) => {
            c.change = RowChangeKind::Removed;
            c.reasons_removed = row_reasons(a).into_iter().cloned().collect();
            Some(c)
        }
        (None, None) => None,
    }
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
    // Each id's first row, looked up per id instead of scanned for.
    fn rows(b: &Budget) -> BTreeMap<&str, &BudgetRow> {
        let mut index = BTreeMap::new();
        for r in &b.options {
            index.entry(r.offer_id.as_str()).or_insert(r);
        }
        index
    }
    let (old_rows, new_rows) = (rows(old), rows(new));
    let same_currency = old.currency == new.currency;
    let mut changes: Vec<RowChange> = ids
        .into_iter()
        .filter_map(|id| {
            let (a, b) = (old_rows.get(id).copied(), new_rows.get(id).copied());
            row_change(id, a, b, same_currency)
        })
        .collect();
    changes.sort_by(|x, y| {
        let mag = |c: &RowChange| c.total_change.map_or(f64::INFINITY, f64::abs);
        mag(y).total_cmp(&mag(x)).then(x.offer_id.cmp(&y.offer_id))
    });
    let total_before = old.recommended_row().map(|r| r.total_expected);
    let total_after = new.recommended_row().map(|r| r.total_expected);
    BudgetDiff {
        recommended_before: old.decision.recommended_offer.clone(),
        recommended_after: new.decision.recommended_offer.clone(),
        choice_before: old.decision.choice.clone(),
        choice_after: new.decision.choice.clone(),
        currency: Some(new.currency),
        currency_before: (!same_currency).then_some(old.currency),
        recommended_total_before: total_before,
        recommended_total_after: total_after,
        recommended_total_change: match (total_before, total_after) {
            (Some(a), Some(b)) if same_currency => Some(change(a, b)),
            _ => None,
        },
        reasons_before: old.decision.reasons.clone(),
        reasons_after: new.decision.reasons.clone(),
        changes,
    }
}

/// A price per GPU-hour with 2 to 4 decimals and its unit, e.g. `0.4246 USD/GPU-h`,
/// `2.30 CNY/GPU-h`.
pub fn price_text(x: f64, c: Currency) -> String {
    format!("{} {}/GPU-h", price_number(x), c.code())
}

/// The number of [`price_text`]: 4 decimals with trailing zeros dropped down to 2, thousands
/// grouped.
pub fn price_number(x: f64) -> String {
    let s = format!("{x:.4}");
    let trimmed = s.trim_end_matches('0');
    let decimals = trimmed.split_once('.').map_or(0, |(_, f)| f.len());
    let s = if decimals < 2 {
        format!("{x:.2}")
    } else {
        trimmed.to_owned()
    };
    group_thousands(&s)
}

/// A change of money with its sign, e.g. `+12.50 CNY`, `-3.00 USD`.
pub fn signed_money_text(x: f64, c: Currency) -> String {
    format!("{}{}", if x >= 0.0 { "+" } else { "" }, money_text(x, c))
}

/// A diff as plain text lines for the terminal; `currency` is used where the diff does not name
/// its own (a diff written before it did).
pub fn diff_text(d: &BudgetDiff, currency: Currency) -> String {
    let (cb, ca) = (
        d.currency_before_or(currency),
        d.currency_after_or(currency),
    );
    let mut s = String::new();
    if d.recommendation_changed() {
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
    let total = |t: Option<f64>, c: Currency| t.map_or("-".to_owned(), |t| money_text(t, c));
    let change = |x: Option<f64>, c: Currency| {
        x.map(|x| format!(" ({})", signed_money_text(x, c)))
            .unwrap_or_default()
    };
    if d.recommended_total_before.is_some() || d.recommended_total_after.is_some() {
        let _ = writeln!(
            s,
            "recommended total: {} -> {}{}",
            total(d.recommended_total_before, cb),
            total(d.recommended_total_after, ca),
            change(d.recommended_total_change, ca)
        );
    }
    if d.reasons_changed() {
        let _ = writeln!(s, "reasons before:");
        for r in &d.reasons_before {
            let _ = writeln!(s, "  - [{}] {}", r.rule, r.text);
        }
        let _ = writeln!(s, "reasons after:");
        for r in &d.reasons_after {
            let _ = writeln!(s, "  - [{}] {}", r.rule, r.text);
        }
    } else if !d.reasons_after.is_empty() {
        let _ = writeln!(s, "reasons unchanged:");
        for r in &d.reasons_after {
            let _ = writeln!(s, "  - [{}] {}", r.rule, r.text);
        }
    }
    if d.changes.is_empty() {
        let _ = writeln!(s, "no offer changed rank, price, total or reasons");
    }
    let rank = |r: Option<usize>| r.map_or("-".to_owned(), |r| r.to_string());
    let price = |p: Option<f64>, c: Currency| p.map_or("-".to_owned(), |p| price_text(p, c));
    for c in &d.changes {
        let head = match c.change {
            RowChangeKind::Changed => String::new(),
            kind => format!("{} ", kind.id()),
        };
        let _ = writeln!(
            s,
            "{}: {head}rank {} -> {}, price {} -> {}, total {} -> {}{}",
            c.offer_id,
            rank(c.rank_before),
            rank(c.rank_after),
            price(c.price_before, cb),
            price(c.price_after, ca),
            total(c.total_before, cb),
            total(c.total_after, ca),
            change(c.total_change, ca)
        );
        if let (Some(a), Some(b)) = (&c.price_as_of_before, &c.price_as_of_after) {
            let _ = writeln!(s, "  price date {a} -> {b}");
        }
        if let (Some(a), Some(b)) = (&c.price_evidence_before, &c.price_evidence_after) {
            let _ = writeln!(s, "  price evidence {a} -> {b}");
        }
        for r in &c.reasons_added {
            let _ = writeln!(s, "  + [{}] {}", r.rule, r.text);
        }
        for r in &c.reasons_removed {
            let _ = writeln!(s, "  - [{}] {}", r.rule, r.text);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::budget::{BudgetBreakEven, BudgetDecision, parse_budget};

    fn reason(rule: &str, text: &str) -> BudgetReason {
        BudgetReason {
            rule: rule.to_owned(),
            params: Default::default(),
            text: text.to_owned(),
        }
    }

    /// A row from JSON, so fields added to the budget later (all optional) need no change here.
    fn row(id: &str, rank: usize, total: f64, price: f64) -> BudgetRow {
        serde_json::from_value(serde_json::json!({
            "rank": rank,
            "offer_id": id,
            "provider": "p",
            "gpu": "A100",
            "gpu_count": 1,
            "tenancy": "dedicated",
            "shared": false,
            "billing_mode": "pay_as_you_go",
            "region_class": "domestic",
            "feasible": true,
            "vram_fit": "fits",
            "hours_expected": 10.0,
            "hours_p50": 10.0,
            "hours_p90": 12.0,
            "rent": total,
            "storage": 0.0,
            "egress": 0.0,
            "time_cost": 0.0,
            "risk_cost": 0.0,
            "total_expected": total,
            "total_p90": total,
            "price_as_of": "2026-01",
            "price_is_estimate": false,
            "price_evidence": "official",
            "price_per_gpu_hour": price,
        }))
        .unwrap()
    }

    fn budget(rows: Vec<BudgetRow>, currency: Currency, why: &str) -> Budget {
        let recommended = rows
            .iter()
            .find(|r| r.rank == 1)
            .map(|r| r.offer_id.clone());
        Budget {
            format_version: 1,
            kind: "gpufare-budget".to_owned(),
            currency,
            cny_per_usd: 7.2,
            seed: 1,
            trials: 100,
            task: crate::task::presets::preset("sd_batch").unwrap(),
            decision: BudgetDecision {
                choice: "dedicated".to_owned(),
                recommended_offer: recommended,
                reasons: vec![reason("cheapest_total", why)],
            },
            options: rows,
            hybrid: vec![],
            hybrid_total: None,
            break_even: BudgetBreakEven::default(),
            price_dates: vec![],
            today: None,
            assumptions: vec![],
            scenario: None,
            service: None,
        }
    }

    fn old_new() -> (Budget, Budget) {
        let old = budget(
            vec![
                row("a", 1, 100.0, 2.0),
                row("b", 2, 120.0, 2.5),
                row("gone", 3, 300.0, 9.0),
            ],
            Currency::Cny,
            "a is cheapest: 100.00 CNY",
        );
        let mut b = row("b", 1, 90.0, 1.8);
        b.price_as_of = "2026-03-01".to_owned();
        b.price_evidence = Some("quote".to_owned());
        let mut a = row("a", 2, 100.0, 2.0);
        a.flags = vec![reason("vram_tight", "VRAM is tight")];
        let new = budget(
            vec![b, a, row("new", 3, 400.0, 11.0)],
            Currency::Cny,
            "b is cheapest: 90.00 CNY",
        );
        (old, new)
    }

    #[test]
    fn says_what_moved_with_prices_totals_and_reasons() {
        let (old, new) = old_new();
        let d = diff(&old, &new);
        assert!(d.recommendation_changed());
        assert_eq!(d.recommended_before.as_deref(), Some("a"));
        assert_eq!(d.recommended_after.as_deref(), Some("b"));
        assert_eq!(d.recommended_total_before, Some(100.0));
        assert_eq!(d.recommended_total_after, Some(90.0));
        assert_eq!(d.recommended_total_change, Some(-10.0));
        assert_eq!(d.currency, Some(Currency::Cny));
        assert_eq!(d.currency_before, None);
        assert_eq!(d.reasons_before[0].text, "a is cheapest: 100.00 CNY");
        assert_eq!(d.reasons_after[0].text, "b is cheapest: 90.00 CNY");
        // Added and removed first, then the biggest move.
        let ids: Vec<&str> = d.changes.iter().map(|c| c.offer_id.as_str()).collect();
        assert_eq!(ids, ["gone", "new", "b", "a"]);
        let gone = &d.changes[0];
        assert_eq!(gone.change, RowChangeKind::Removed);
        assert_eq!((gone.rank_before, gone.rank_after), (Some(3), None));
        assert_eq!(gone.price_before, Some(9.0));
        let added = &d.changes[1];
        assert_eq!(added.change, RowChangeKind::Added);
        assert_eq!((added.total_before, added.total_after), (None, Some(400.0)));
        let b = &d.changes[2];
        assert_eq!(b.change, RowChangeKind::Changed);
        assert_eq!((b.rank_before, b.rank_after), (Some(2), Some(1)));
        assert_eq!((b.price_before, b.price_after), (Some(2.5), Some(1.8)));
        assert_eq!(b.total_change, Some(-30.0));
        assert_eq!(b.price_as_of_before.as_deref(), Some("2026-01"));
        assert_eq!(b.price_as_of_after.as_deref(), Some("2026-03-01"));
        assert_eq!(b.price_evidence_before.as_deref(), Some("official"));
        assert_eq!(b.price_evidence_after.as_deref(), Some("quote"));
        // Only the rank and a warning moved for a.
        let a = &d.changes[3];
        assert_eq!(a.total_change, Some(0.0));
        assert_eq!(a.reasons_added.len(), 1);
        assert_eq!(a.reasons_added[0].rule, "vram_tight");
        assert!(a.reasons_removed.is_empty());
        assert_eq!(a.price_as_of_before, None);
    }

    #[test]
    fn the_same_budget_has_no_changes() {
        let (old, _) = old_new();
        let d = diff(&old, &old);
        assert!(!d.recommendation_changed());
        assert!(!d.reasons_changed());
        assert!(d.changes.is_empty());
        assert_eq!(d.recommended_total_change, Some(0.0));
        let text = diff_text(&d, Currency::Usd);
        assert!(
            text.starts_with("recommendation unchanged: dedicated a\n"),
            "{text}"
        );
        assert!(text.contains("recommended total: 100.00 CNY -> 100.00 CNY (+0.00 CNY)"));
        assert!(text.contains("reasons unchanged:\n  - [cheapest_total] a is cheapest"));
        assert!(text.contains("no offer changed rank, price, total or reasons"));
    }

    #[test]
    fn text_shows_prices_ranks_totals_and_reasons_with_currency() {
        let (old, new) = old_new();
        let text = diff_text(&diff(&old, &new), Currency::Usd);
        for line in [
            "recommendation: dedicated a -> dedicated b",
            "recommended total: 100.00 CNY -> 90.00 CNY (-10.00 CNY)",
            "reasons before:\n  - [cheapest_total] a is cheapest: 100.00 CNY",
            "reasons after:\n  - [cheapest_total] b is cheapest: 90.00 CNY",
            "gone: removed rank 3 -> -, price 9.00 CNY/GPU-h -> -, total 300.00 CNY -> -",
            "new: added rank - -> 3, price - -> 11.00 CNY/GPU-h, total - -> 400.00 CNY",
            "b: rank 2 -> 1, price 2.50 CNY/GPU-h -> 1.80 CNY/GPU-h, total 120.00 CNY -> 90.00 CNY (-30.00 CNY)",
            "  price date 2026-01 -> 2026-03-01",
            "  price evidence official -> quote",
            "a: rank 1 -> 2, price 2.00 CNY/GPU-h -> 2.00 CNY/GPU-h, total 100.00 CNY -> 100.00 CNY (+0.00 CNY)",
            "  + [vram_tight] VRAM is tight",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
    }

    #[test]
    fn other_currencies_compute_no_change() {
        let (old, mut new) = old_new();
        new.currency = Currency::Usd;
        let d = diff(&old, &new);
        assert_eq!(d.currency_before, Some(Currency::Cny));
        assert_eq!(d.recommended_total_change, None);
        assert!(d.changes.iter().all(|c| c.total_change.is_none()));
        let text = diff_text(&d, Currency::Cny);
        assert!(
            text.contains("recommended total: 100.00 CNY -> 90.00 USD\n"),
            "{text}"
        );
        // Every offer in both is reported: its amounts are in another currency now.
        assert_eq!(d.changes.len(), 4);
    }

    #[test]
    fn prices_keep_up_to_four_decimals() {
        assert_eq!(price_number(0.4246), "0.4246");
        assert_eq!(price_number(2.3), "2.30");
        assert_eq!(price_number(1.25), "1.25");
        assert_eq!(price_number(0.125), "0.125");
        assert_eq!(price_number(12345.0), "12,345.00");
        assert_eq!(price_text(0.4246, Currency::Usd), "0.4246 USD/GPU-h");
    }

    #[test]
    fn older_diffs_and_budgets_still_parse() {
        // A diff as written before prices, totals and reasons were added.
        let old: BudgetDiff = serde_json::from_str(
            r#"{"recommended_before":"a","recommended_after":"b","choice_before":"shared",
                "choice_after":"dedicated","changes":[{"offer_id":"a","rank_before":1,
                "rank_after":2,"total_before":1.0,"total_after":2.0,"total_change":1.0}]}"#,
        )
        .unwrap();
        assert_eq!(old.changes[0].change, RowChangeKind::Changed);
        assert!(old.reasons_after.is_empty());
        let text = diff_text(&old, Currency::Cny);
        assert!(
            text.contains("a: rank 1 -> 2, price - -> -, total 1.00 CNY -> 2.00 CNY (+1.00 CNY)"),
            "{text}"
        );
        // A diff round-trips, and new fields are left out when empty.
        let (o, n) = old_new();
        let d = diff(&o, &n);
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<BudgetDiff>(&json).unwrap(), d);
        assert!(
            !serde_json::to_string(&diff(&o, &o))
                .unwrap()
                .contains("price_as_of_before")
        );
        // A budget without prices per GPU-hour reads, and its rows show no price.
        let mut json: serde_json::Value = serde_json::to_value(&o).unwrap();
        for r in json["options"].as_array_mut().unwrap() {
            r.as_object_mut().unwrap().remove("price_per_gpu_hour");
        }
        let older = parse_budget(&json.to_string()).unwrap();
        assert_eq!(older.options[0].price_per_gpu_hour, None);
        let d = diff(&older, &n);
        assert_eq!(
            d.changes
                .iter()
                .find(|c| c.offer_id == "b")
                .unwrap()
                .price_before,
            None
        );
    }
}
