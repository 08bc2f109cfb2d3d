//! What changed between two budgets: the recommendation, and every offer whose rank or total
//! moved, biggest change first.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::export::budget::{Budget, money_text};
use crate::numbers::money::Currency;

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
