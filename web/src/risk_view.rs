//! The risk of an interruptible offer: the interruption figures the plan used and where they come
//! from, what an attached trace holds, every policy priced by the model and by the trace's replay
//! (the chosen one marked), and the completion-time distribution under each policy. Everything
//! shown is core's `Risk` report of the offer; this module only lays it out.
//!
//! The panel is closed at first; it opens on the recommended offer when that one can be
//! interrupted, and on any offer picked with a "Risk and policies" button (in the ranking and in
//! the traces panel) or in its own list. Its content is in a chunk of the site fetched when it is
//! first opened.

use gpufare_core::plan::option::OptionResult;
use gpufare_core::plan::reason::RuleId;
use gpufare_core::plan::risk::{Outcome, RiskSource};
use gpufare_core::plan::{PlanError, PlanResult};
use leptos::prelude::*;

use crate::charts::{CdfSeries, CompletionCdf};
use crate::fields::{Disclosure, d, lazy_view};
use crate::format::{self, hours_fine, hours_number, percent};
use crate::vocab::{Label, Lang, model, reasons, t};

/// The offer whose risk is shown: the one picked, else the recommended one when it can be
/// interrupted, else the best-ranked one that can.
pub fn target<'a>(result: &'a PlanResult, pick: Option<&str>) -> Option<&'a OptionResult> {
    let with_risk = |id: &str| {
        result
            .options
            .iter()
            .find(|o| o.offer_id == id && o.risk.is_some())
    };
    pick.and_then(with_risk)
        .or_else(|| {
            result
                .decision
                .recommended_offer
                .as_deref()
                .and_then(with_risk)
        })
        .or_else(|| {
            result
                .options
                .iter()
                .find(|o| o.feasible && o.risk.is_some())
        })
        .or_else(|| result.options.iter().find(|o| o.risk.is_some()))
}

/// The risk panel: its summary names the offer shown and the policy behind its figures.
#[component]
pub fn RiskPanel(
    lang: ReadSignal<Lang>,
    plan: ReadSignal<Result<PlanResult, PlanError>>,
    pick: RwSignal<Option<String>>,
) -> impl IntoView {
    let summary = Signal::derive(move || {
        let lang = lang.get();
        let title = t(lang, Label::Risk);
        plan.with(|p| {
            let shown = p
                .as_ref()
                .ok()
                .and_then(|r| pick.with(|k| target(r, k.as_deref())));
            match shown {
                Some(o) => format!(
                    "{title} — {}{}{}",
                    o.offer_id,
                    crate::vocab::pick(lang, ": ", "："),
                    o.policy
                        .map(|p| model::policy(lang, &p))
                        .unwrap_or_default()
                ),
                None => title.to_owned(),
            }
        })
    });
    view! {
        <Disclosure id=crate::picks::RISK_PANEL class="risk no-print" summary=summary>
            {move || lazy_view(lang, risk_panel(lang, plan, pick))}
        </Disclosure>
    }
}

/// The panel's content, from its chunk; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(risk, wasm_split_path = ::leptos::wasm_split, fallible)]
fn risk_panel(
    lang: ReadSignal<Lang>,
    plan: ReadSignal<Result<PlanResult, PlanError>>,
    pick: RwSignal<Option<String>>,
) -> Result<ViewFn, leptos::wasm_split::SplitLoaderError> {
    Ok(ViewFn::from(move || risk_body(lang, plan, pick).into_any()))
}

/// The offer shown and the uninterruptible offer its policies move to.
#[derive(Debug, Clone, PartialEq)]
struct Shown {
    option: OptionResult,
    fallback: Option<OptionResult>,
}

fn risk_body(
    lang: ReadSignal<Lang>,
    plan: ReadSignal<Result<PlanResult, PlanError>>,
    pick: RwSignal<Option<String>>,
) -> impl IntoView {
    // Every offer with a risk report, ranked first.
    let choices = Memo::new(move |_| {
        plan.with(|p| {
            p.as_ref()
                .map(|r| {
                    r.options
                        .iter()
                        .filter(|o| o.risk.is_some())
                        .cloned()
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    let shown = Memo::new(move |_| {
        plan.with(|p| {
            let r = p.as_ref().ok()?;
            let option = pick.with(|k| target(r, k.as_deref()))?.clone();
            let fallback = option
                .risk
                .as_ref()
                .and_then(|k| k.fallback_offer.as_ref())
                .and_then(|id| r.options.iter().find(|o| &o.offer_id == id))
                .cloned();
            Some(Shown { option, fallback })
        })
    });
    view! {
        <crate::picks::OfferPicker
            lang=lang
            id="risk-offer"
            pick=pick
            choices=choices
            current=Signal::derive(move || shown.with(|s| s.as_ref().map(|s| s.option.offer_id.clone())))
        />
        {move || {
            let lang = lang.get();
            match shown.get() {
                None => view! { <p id="risk-none">{t(lang, Label::RiskNone)}</p> }.into_any(),
                Some(s) => report(lang, s).into_any(),
            }
        }}
    }
}

/// A total from a risk report (a plain number in the plan's currency), as money.
fn total(lang: Lang, x: f64, o: &OptionResult) -> String {
    format::amount(lang, d(x), o.costs.total_expected.currency)
}

fn rate(lang: Lang, x: f64) -> String {
    format!(
        "{} {}",
        format::number(x, 4),
        t(lang, Label::PerRunningHour)
    )
}

/// The inputs, the trace, the reasons, the policy table and the chart of one offer.
fn report(lang: Lang, shown: Shown) -> impl IntoView {
    let Shown {
        option: o,
        fallback,
    } = shown;
    let Some(risk) = o.risk.clone() else {
        return ().into_any();
    };
    let from_trace = risk.rate_source == RiskSource::Trace;
    // Where the figures come from: a trace attached here, the catalog's row (or the user's
    // quote), or core's assumption for a spot offer without figures of its own (its note then
    // starts with "assumed").
    let assumed = !from_trace
        && risk
            .source
            .as_deref()
            .is_some_and(|s| s.starts_with("assumed"));
    let kind = if from_trace {
        "trace"
    } else if assumed {
        "assumed"
    } else {
        "catalog"
    };
    let rate_text = {
        let whence = if from_trace {
            t(lang, Label::RiskFromTrace).to_owned()
        } else if assumed {
            t(lang, Label::RiskAssumed).to_owned()
        } else {
            match risk.rate_form {
                Some(f) => format!(
                    "{}, {}",
                    t(lang, Label::RiskFromOffer),
                    model::rate_form(lang, f)
                ),
                None => t(lang, Label::RiskFromOffer).to_owned(),
            }
        };
        format!("{} — {whence}", rate(lang, risk.rate_per_hour))
    };
    let range = match (risk.rate_low_per_hour, risk.rate_high_per_hour) {
        (Some(low), Some(high)) => Some(format!(
            "{} – {}; {}: {} – {}",
            format::number(low, 4),
            rate(lang, high),
            t(lang, Label::RiskRangeTotals),
            risk.total_at_low
                .map(|x| total(lang, x, &o))
                .unwrap_or_default(),
            risk.total_at_high
                .map(|x| total(lang, x, &o))
                .unwrap_or_default(),
        )),
        _ => None,
    };
    let seconds = format::number(risk.notice_seconds, 0);
    let notice = format!(
        "{} {} — {}",
        seconds,
        crate::vocab::pick(lang, "s", "秒"),
        t(
            lang,
            if risk.saves_on_notice {
                Label::NoticeSaves
            } else {
                Label::NoticeTooShort
            }
        )
    );
    let fallback_text = match (&risk.fallback_offer, &fallback) {
        (Some(id), Some(f)) => format!("{} ({id})", model::option_title(lang, f)),
        (Some(id), None) => id.clone(),
        (None, _) => t(lang, Label::NoFallback).to_owned(),
    };
    let fact = |label: Label, key: &'static str, value: String| {
        view! {
            <dt>{t(lang, label)}</dt>
            <dd data-key=key>{value}</dd>
        }
    };
    let inputs = view! {
        <dl class="facts" id="risk-inputs" data-offer=o.offer_id.clone() data-source=risk.rate_source.id() data-kind=kind>
            {fact(Label::RiskRate, "rate", rate_text)}
            {match (assumed, risk.source.clone()) {
                // Core's own note, in English: said in the page's language instead.
                (true, _) => Some(fact(Label::RiskEvidence, "source", t(lang, Label::RiskAssumedNote).to_owned()).into_any()),
                (false, Some(s)) => Some(view! {
                    <dt>{t(lang, Label::RiskEvidence)}</dt>
                    <dd data-key="source" translate="no">{s}</dd>
                }.into_any()),
                (false, None) => None,
            }}
            {range.map(|r| fact(Label::RiskRange, "range", r))}
            {fact(Label::RiskGap, "gap", hours_fine(lang, risk.gap_hours))}
            {fact(Label::RiskNotice, "notice", notice)}
            {(risk.protection_hours > 0.0).then(|| fact(Label::RiskProtection, "protection", hours_fine(lang, risk.protection_hours)))}
            {fact(Label::FallbackOffer, "fallback", fallback_text)}
        </dl>
    };
    let trace = match &risk.trace {
        Some(stats) => view! {
            <h4>{t(lang, Label::TraceCol)}</h4>
            {crate::facts::trace_facts(lang, &o.offer_id, stats)}
        }
        .into_any(),
        None => view! { <p class="hint" id="risk-no-trace">{t(lang, Label::RiskNoTrace)}</p> }
            .into_any(),
    };
    let flags = o
        .flags
        .iter()
        .filter(|r| matches!(r.rule, RuleId::SpotPolicy | RuleId::RiskFromTrace))
        .map(|r| view! { <li data-rule=r.rule.id()>{reasons::reason(lang, r)}</li> })
        .collect_view();

    // The policy table: a row per policy and source of figures, the chosen policy marked.
    let rows = risk
        .policies
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let chosen = p.policy == risk.chosen;
            let sources: Vec<(&'static str, Label, &Outcome)> = match &p.replay {
                Some(r) => vec![("replay", Label::FromReplay, r), ("model", Label::FromModel, &p.model)],
                None => vec![("model", Label::FromModel, &p.model)],
            };
            let span = sources.len().to_string();
            let name = model::policy(lang, &p.policy);
            let usable = p.usable;
            sources
                .into_iter()
                .enumerate()
                .map(|(i, (source, label, out))| {
                    let first = (i == 0).then(|| {
                        view! {
                            <th scope="row" rowspan=span.clone() class="policy-name">
                                <svg class="swatch" width="14" height="10" aria-hidden="true">
                                    <rect width="14" height="10" fill=crate::charts::policy_colour(k) />
                                </svg>
                                " "
                                {name.clone()}
                                {chosen.then(|| view! { " " <span class="badge chosen">{t(lang, Label::Chosen)}</span> })}
                                {(!usable).then(|| view! { <br /><span class="muted not-usable">{t(lang, Label::NotUsable)}</span> })}
                            </th>
                        }
                    });
                    let hours = format!(
                        "{} / {} / {}",
                        hours_number(out.hours_p50),
                        hours_number(out.hours_p90),
                        hours_number(out.hours_p99)
                    );
                    view! {
                        <tr data-policy=p.id.clone() data-source=source class=if chosen { "chosen" } else { "" }>
                            {first}
                            <td class="source">{t(lang, label)}</td>
                            <td class="num total">{total(lang, out.total_expected, &o)}</td>
                            <td class="num total-p90">{total(lang, out.total_p90, &o)}</td>
                            <td class="num hours">{hours}</td>
                            <td class="num billed">{hours_number(out.billed_hours_mean)}</td>
                            <td class="num moved">{percent(out.switched_share)}</td>
                            <td class="num miss">{out.deadline_miss_probability.map(percent).unwrap_or_else(|| t(lang, Label::None).to_owned())}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
        .collect_view();

    // The chart: one line per policy and source, replay solid and model dashed.
    let series: Vec<CdfSeries> = risk
        .policies
        .iter()
        .enumerate()
        .flat_map(|(k, p)| {
            let name = model::policy(lang, &p.policy);
            let mut lines = Vec::new();
            if let Some(r) = &p.replay {
                lines.push(CdfSeries {
                    colour: k,
                    name: format!("{name} ({})", t(lang, Label::FromReplay)),
                    dashed: false,
                    hours: r.cdf_hours.clone(),
                });
            }
            lines.push(CdfSeries {
                colour: k,
                name: format!("{name} ({})", t(lang, Label::FromModel)),
                dashed: p.replay.is_some(),
                hours: p.model.cdf_hours.clone(),
            });
            lines
        })
        .collect();
    let names: Vec<String> = risk
        .policies
        .iter()
        .map(|p| model::policy(lang, &p.policy))
        .collect();
    let has_replay = risk.policies.iter().any(|p| p.replay.is_some());
    let head = [
        Label::Policy,
        Label::FiguresFrom,
        Label::Total,
        Label::TotalP90,
        Label::CompletionHours,
        Label::BilledHours,
        Label::MovedShare,
        Label::MissProb,
    ]
    .map(|l| view! { <th scope="col">{t(lang, l)}</th> })
    .into_iter()
    .collect_view();

    view! {
        <h3 id="risk-offer-title">{model::option_title(lang, &o)}</h3>
        {inputs}
        {trace}
        <ul class="reasons" id="risk-reasons">{flags}</ul>
        <h4>{t(lang, Label::PolicyTable)}</h4>
        <div class="table-wrap">
            <table id="policy-table" data-offer=o.offer_id.clone() data-chosen=risk.chosen.id()>
                <thead><tr>{head}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <CompletionCdf lang=lang series=series names=names has_replay=has_replay />
    }
    .into_any()
}
