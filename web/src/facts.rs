//! Facts shown by more than one panel: what a preemption trace holds.

use gpufare_core::numbers::money::group_thousands;
use gpufare_core::offers::trace::{Stretches, TraceStats};
use leptos::prelude::*;

use crate::format::{self, hours_fine, percent};
use crate::vocab::{Label, Lang, t};

/// What a trace holds, with units: its span, preemptions, running share, spells and gaps
/// (median, P90, mean) and the model's parameters fitted to it. Each figure is core's
/// `TraceStats`.
pub fn trace_facts(lang: Lang, offer: &str, s: &TraceStats) -> impl IntoView + use<> {
    let h = |x: f64| hours_fine(lang, x);
    let rate = |x: f64| format!("{x:.3}");
    // Spells or gaps: how many (with the Chinese measure word), median, P90 and mean.
    let spread = |d: &Stretches, measure: &str| {
        let (count, median, p90, mean) =
            (d.count, h(d.median_hours), h(d.p90_hours), h(d.mean_hours));
        match lang {
            Lang::En => format!("{count}, median {median}, P90 {p90}, mean {mean}"),
            Lang::Zh => format!("{count}{measure}，中位数 {median}，P90 {p90}，平均 {mean}"),
        }
    };
    let ticks = group_thousands(&s.ticks.to_string());
    let tick = format::number(s.tick_seconds, 1);
    let (covers, preemptions, running, spells, gaps, fitted) = match lang {
        Lang::En => (
            format!("{} ({ticks} samples of {tick} s)", h(s.hours)),
            format!(
                "{} ({} per wall-clock hour, {} per running hour)",
                s.preemptions,
                rate(s.per_wall_hour),
                rate(s.per_running_hour)
            ),
            format!(
                "{}, {} of the time",
                h(s.running_hours),
                percent(s.running_share)
            ),
            spread(&s.spells, ""),
            spread(&s.gaps, ""),
            format!(
                "{} preemptions per running hour; gaps of {} on average; an instance available {} of the time; {} mean wait for one at a start",
                rate(s.fitted.rate_per_hour),
                h(s.fitted.gap_mean_hours),
                percent(s.fitted.availability),
                h(s.fitted.start_wait_mean_hours)
            ),
        ),
        Lang::Zh => (
            format!("{}（{ticks} 个采样，每 {tick} 秒一个）", h(s.hours)),
            format!(
                "{} 次（按实际时间每小时 {} 次，按运行时间每小时 {} 次）",
                s.preemptions,
                rate(s.per_wall_hour),
                rate(s.per_running_hour)
            ),
            format!(
                "{}，占 {} 的时间",
                h(s.running_hours),
                percent(s.running_share)
            ),
            spread(&s.spells, " 段"),
            spread(&s.gaps, " 个"),
            format!(
                "每运行小时抢占 {} 次；空档平均 {}；有实例可用的时间占 {}；开始时平均等待 {}才有实例",
                rate(s.fitted.rate_per_hour),
                h(s.fitted.gap_mean_hours),
                percent(s.fitted.availability),
                h(s.fitted.start_wait_mean_hours)
            ),
        ),
    };
    fact_list(
        lang,
        "trace-stats",
        offer,
        &s.name,
        vec![
            (Label::TraceCovers, "hours", covers),
            (Label::TracePreemptions, "preemptions", preemptions),
            (Label::TraceRunning, "running", running),
            (Label::TraceSpells, "spells", spells),
            (Label::TraceGaps, "gaps", gaps),
            (Label::TraceFitted, "fitted", fitted),
        ],
    )
}

/// A file's facts as a definition list (`<dl class="facts {class}">` for `offer`): the file's
/// name, then each (label, `data-key`, value).
pub fn fact_list(
    lang: Lang,
    class: &str,
    offer: &str,
    file: &str,
    facts: Vec<(Label, &'static str, String)>,
) -> impl IntoView + use<> {
    let facts = facts
        .into_iter()
        .map(|(label, key, value)| {
            view! {
                <dt>{t(lang, label)}</dt>
                <dd data-key=key>{value}</dd>
            }
        })
        .collect_view();
    view! {
        <dl class=format!("facts {class}") data-offer=offer.to_owned()>
            <dt>{t(lang, Label::TraceFile)}</dt>
            <dd data-key="file" translate="no">{file.to_owned()}</dd>
            {facts}
        </dl>
    }
}
