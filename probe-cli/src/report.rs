//! Text the commands share: a trace's figures and the plan's section on interruptible offers.

use std::fmt::Write as _;

use gpufare_core::offers::trace::TraceStats;
use gpufare_core::plan::PlanResult;

/// What a trace holds, as lines of text.
pub fn stats_text(s: &TraceStats) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} ticks of {} s, {:.1} h",
        s.name, s.ticks, s.tick_seconds, s.hours
    );
    let _ = writeln!(
        out,
        "  preemptions     {} ({:.3} per wall-clock hour, {:.3} per running hour)",
        s.preemptions, s.per_wall_hour, s.per_running_hour
    );
    let _ = writeln!(
        out,
        "  running         {:.1} h, {:.0} % of the time",
        s.running_hours,
        s.running_share * 100.0
    );
    for (what, st) in [("running spells", &s.spells), ("gaps", &s.gaps)] {
        let _ = writeln!(
            out,
            "  {what:<15} {}, median {:.2} h, P90 {:.2} h, mean {:.2} h",
            st.count, st.median_hours, st.p90_hours, st.mean_hours
        );
    }
    let f = &s.fitted;
    let _ = writeln!(
        out,
        "  fitted model    {:.3} preemptions per running hour, gaps of {:.2} h on average, \
         available {:.0} % of the time, {:.2} h mean wait at a start",
        f.rate_per_hour,
        f.gap_mean_hours,
        f.availability * 100.0,
        f.start_wait_mean_hours
    );
    out
}

/// A rate with three significant digits (a monthly band is 0.0005 per hour, a trace 0.7).
fn rate(x: f64) -> String {
    if x <= 0.0 || !x.is_finite() {
        return "0".to_owned();
    }
    let decimals = (2 - x.log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

/// The plan table's section on interruptible offers: the policy behind each one's figures, and
/// for an offer with a trace, replay against model for every policy.
pub fn risk_section(plan: &PlanResult, top: usize) -> String {
    let c = plan.currency.code();
    let money = |x: f64| gpufare_core::numbers::money::group_thousands(&format!("{x:.2}"));
    let mut s = String::new();
    // The feasible interruptible offers of the table, and every offer with a trace wherever it
    // ranks.
    let risky: Vec<_> = plan
        .options
        .iter()
        .enumerate()
        .filter(|(i, o)| {
            (o.feasible && *i < top) || o.risk.as_ref().is_some_and(|r| r.trace.is_some())
        })
        .filter_map(|(_, o)| o.risk.as_ref().map(|r| (o, r)))
        // A marketplace host lost a few times a year needs no policy line.
        .filter(|(_, r)| r.rate_per_hour >= 0.001 || r.trace.is_some())
        .collect();
    if risky.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "\ninterruptible offers (the policy behind their figures):"
    );
    for (o, r) in &risky {
        let chosen = r.chosen.id();
        let fallback = match (&r.fallback_offer, r.chosen.needs_fallback()) {
            (Some(f), true) => format!(" -> {f}"),
            _ => String::new(),
        };
        let source = match &r.trace {
            Some(t) => format!("trace {}", t.name),
            None => "offer".to_owned(),
        };
        let _ = writeln!(
            s,
            "  {:<30} {chosen}{fallback}; {} preemptions per running hour ({source}), gaps {:.2} h, notice {:.0} s{}",
            o.offer_id,
            rate(r.rate_per_hour),
            r.gap_hours,
            r.notice_seconds,
            if r.saves_on_notice {
                " (saves a checkpoint)"
            } else {
                ""
            }
        );
        if let (Some(lo), Some(hi), Some(tl), Some(th)) = (
            r.rate_low_per_hour,
            r.rate_high_per_hour,
            r.total_at_low,
            r.total_at_high,
        ) {
            let _ = writeln!(
                s,
                "  {:<30} staying put costs {} {c} at {} and {} {c} at {} per running hour",
                "",
                money(tl),
                rate(lo),
                money(th),
                rate(hi)
            );
        }
    }
    for (o, r) in risky.iter().filter(|(_, r)| r.trace.is_some()) {
        let _ = writeln!(
            s,
            "\npolicies on {} (replay of the trace vs the fitted model):",
            o.offer_id
        );
        if let Some(t) = &r.trace {
            let _ = write!(
                s,
                "{}",
                stats_text(t)
                    .lines()
                    .map(|l| format!("  {l}\n"))
                    .collect::<String>()
            );
        }
        let _ = writeln!(
            s,
            "  {:<18} {:>24} {:>24} {:>14} {:>14} {:>6}",
            "policy",
            "replay P50/P90/P99 h",
            "model P50/P90/P99 h",
            "replay total",
            "model total",
            "miss"
        );
        for p in &r.policies {
            let q = |o: &gpufare_core::plan::risk::Outcome| {
                format!(
                    "{:.1} / {:.1} / {:.1}",
                    o.hours_p50, o.hours_p90, o.hours_p99
                )
            };
            let miss = p
                .evidence()
                .deadline_miss_probability
                .map_or("-".to_owned(), |m| format!("{:.0} %", m * 100.0));
            let _ = writeln!(
                s,
                "  {:<18} {:>24} {:>24} {:>14} {:>14} {:>6}{}",
                p.id,
                p.replay.as_ref().map_or("-".to_owned(), q),
                q(&p.model),
                p.replay.as_ref().map_or("-".to_owned(), |x| format!(
                    "{} {c}",
                    money(x.total_expected)
                )),
                format!("{} {c}", money(p.model.total_expected)),
                miss,
                if p.policy == r.chosen {
                    "  <- chosen"
                } else {
                    ""
                }
            );
        }
    }
    s
}
