//! The budget as Markdown for a report: the recommendation, the top options, the hybrid plan,
//! the break-even points, the price dates and the assumptions.

use std::fmt::Write as _;

use crate::export::budget::{Budget, BudgetBreakEven, cents, money_text};
use crate::numbers::money::group_thousands;
use crate::plan::breakeven::Payoff;
use crate::plan::decision::Choice;
use crate::plan::option::STALE_PRICE_DAYS;

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
    if let Some(row) = b.recommended_row() {
        let _ = writeln!(
            s,
            "**Its price:** {}{}\n",
            row.price_standing(),
            if row.price_source.is_empty() {
                String::new()
            } else {
                format!(" — {}", row.price_source)
            }
        );
    }
    for r in &b.decision.reasons {
        let _ = writeln!(s, "- {}", r.text);
    }
    let _ = writeln!(s, "\n## Ranked options (all amounts in {})\n", c.code());
    let _ = writeln!(
        s,
        "| # | offer | GPU | billing | hours (exp. / P90) | rent | storage | egress | time | risk | total | P90 total | price date |"
    );
    let _ = writeln!(
        s,
        "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for r in b.options.iter().filter(|r| r.feasible).take(top) {
        let _ = writeln!(
            s,
            "| {} | {} `{}` | {}×{} ({}) | {} | {:.1} / {:.1} | {} | {} | {} | {} | {} | **{}** | {} | {} |",
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
            r.price_standing(),
        );
    }
    let policies: Vec<String> = b
        .options
        .iter()
        .filter(|r| r.feasible)
        .take(top)
        .filter_map(|r| {
            let risk = r.risk.as_ref()?;
            let chosen = risk.chosen_result()?;
            (risk.rate_per_hour > 0.0).then(|| {
                let source = match &risk.trace {
                    Some(t) => format!("replayed from the trace `{}`", t.name),
                    None => "the offer's figures".to_owned(),
                };
                format!(
                    "- `{}`: policy `{}`{}; {:.3} preemptions per running hour ({source}), gaps of {:.2} h, notice {:.0} s",
                    r.offer_id,
                    chosen.id,
                    risk.fallback_offer
                        .as_ref()
                        .filter(|_| risk.chosen.needs_fallback())
                        .map(|f| format!(" (falls back to `{f}`)"))
                        .unwrap_or_default(),
                    risk.rate_per_hour,
                    risk.gap_hours,
                    risk.notice_seconds
                )
            })
        })
        .collect();
    if !policies.is_empty() {
        let _ = writeln!(
            s,
            "
### Interruptible offers
"
        );
        for p in policies {
            let _ = writeln!(s, "{p}");
        }
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
    for line in break_even_sentences(be) {
        let _ = writeln!(s, "- {line}");
    }
    let _ = writeln!(
        s,
        "\n## Basis\n\n- Prices as of: {}",
        b.price_dates.join(", ")
    );
    if let Some(today) = &b.today {
        let _ = writeln!(
            s,
            "- Price ages counted to {today}; a recommendation resting on an estimate or on a price \
             more than {STALE_PRICE_DAYS} days old says so."
        );
    }
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

/// The break-even figures as English sentences, each read against its range (a month has 730
/// hours, a year 12 months, the work-size sweep ends at 64 times the task).
pub fn break_even_sentences(be: &BudgetBreakEven) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(p) = be.monthly_payoff() {
        let line = match p {
            Payoff::From(h) => {
                format!("A monthly plan beats pay-as-you-go above {h:.0} hours per month.")
            }
            Payoff::Always => "A monthly plan beats pay-as-you-go at any use.".to_owned(),
            Payoff::Never => format!(
                "A monthly plan never beats pay-as-you-go within a month (it would take {:.0} hours; a month has 730).",
                be.monthly_vs_pay_as_you_go_hours.unwrap_or(0.0)
            ),
        };
        lines.push(line);
    }
    if let Some(p) = be.yearly_payoff() {
        let line = match p {
            Payoff::From(m) => format!("A yearly plan beats monthly above {m:.1} months per year."),
            Payoff::Always => "A yearly plan beats monthly at any use.".to_owned(),
            Payoff::Never => format!(
                "A yearly plan never beats monthly within a year (it would take {:.1} months).",
                be.yearly_vs_monthly_months.unwrap_or(0.0)
            ),
        };
        lines.push(line);
    }
    if let Some(p) = be.run_length_payoff() {
        let line = match p {
            Payoff::From(w) => format!("Dedicated beats shared from {w:.1} hours of work."),
            Payoff::Always => "Dedicated beats shared at any work size.".to_owned(),
            Payoff::Never => {
                "Dedicated does not beat shared up to 64 times this task's work.".to_owned()
            }
        };
        lines.push(line);
    }
    lines
}
