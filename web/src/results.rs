//! The answer: the recommendation with its reasons, the ranking, the charts, the hybrid plan,
//! the break-even figures, the security checklist and the assumptions. Everything shown comes
//! from `gpufare_core::plan`; this module only lays it out.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::PlanResult;
use gpufare_core::plan::option::OptionResult;
use gpufare_core::plan::reason::Reason;
use gpufare_core::plan::security::{checklist, required_controls};
use gpufare_core::scenario::document::Scenario;
use leptos::prelude::*;

use crate::charts::{BreakEvenChart, CostBars, TimeRanges};
use crate::fields::Disclosure;
use crate::format;
use crate::i18n::Lang;
use crate::words::{self, t};

/// How many feasible options the ranking and the charts show.
const SHOWN: usize = 12;
const CHARTED: usize = 8;
/// Ranked options on the printout; style.css hides rows after this many (`nth-child(n+6)`).
const PRINTED: usize = 5;

fn offer_title(lang: Lang, o: &OptionResult) -> String {
    format!(
        "{} · {}×{} · {} · {}",
        o.provider,
        o.gpu_count,
        o.gpu,
        words::tenancy(lang, o.tenancy),
        words::billing(lang, o.billing_mode)
    )
}

fn reason_list(lang: Lang, reasons: &[Reason], class: &'static str) -> impl IntoView + use<> {
    let items = reasons
        .iter()
        .map(|r| {
            let rule = r.rule.id().to_owned();
            view! { <li data-rule=rule>{words::reason(lang, r)}</li> }
        })
        .collect_view();
    view! { <ul class=class>{items}</ul> }
}

/// The results column.
#[component]
pub fn Results(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: Memo<Result<PlanResult, String>>,
) -> impl IntoView {
    view! {
        <section aria-labelledby="results-heading" class="card wide results" aria-live="polite">
            <h2 id="results-heading">{move || t(lang.get(), "results")}</h2>
            {move || {
                let lang = lang.get();
                match plan.get() {
                    Err(message) => view! {
                        <p class="field-error" id="plan-error" role="alert">{format!("{}: {message}", t(lang, "plan_error"))}</p>
                    }.into_any(),
                    Ok(result) => view! {
                        <Decision lang=lang result=result.clone() />
                        <Ranking lang=lang result=result.clone() />
                        <Charts lang=lang result=result.clone() />
                        <Hybrid lang=lang result=result.clone() />
                        <BreakEven lang=lang result=result.clone() />
                        <Security lang=lang result=result.clone() scenario=scenario />
                        <Assumptions lang=lang result=result />
                    }.into_any(),
                }
            }}
        </section>
    }
}

#[component]
fn Decision(lang: Lang, result: PlanResult) -> impl IntoView {
    let d = &result.decision;
    let recommended = d
        .recommended_offer
        .as_ref()
        .and_then(|id| result.options.iter().find(|o| &o.offer_id == id))
        .cloned();
    let choice_id = d.choice.id().to_owned();
    view! {
        <div class="decision" id="decision" data-choice=choice_id>
            <p class="choice" id="choice">{words::choice(lang, d.choice)}</p>
            {recommended.map(|o| view! {
                <p id="recommended" data-offer=o.offer_id.clone()>
                    <strong>{t(lang, "recommended")}": "</strong>
                    {offer_title(lang, &o)}
                    " — "
                    <span class="total">{format::money(lang, &o.total_expected)}</span>
                    {format!(", {}", format::hours(lang, o.hours_expected))}
                </p>
            })}
            {reason_list(lang, &d.reasons, "reasons")}
        </div>
    }
}

#[component]
fn Ranking(lang: Lang, result: PlanResult) -> impl IntoView {
    let feasible: Vec<OptionResult> = result
        .options
        .iter()
        .filter(|o| o.feasible)
        .take(SHOWN)
        .cloned()
        .collect();
    let infeasible: Vec<OptionResult> = result
        .options
        .iter()
        .filter(|o| !o.feasible)
        .cloned()
        .collect();
    let rows = feasible
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let fit = o.vram_fit.id().to_owned();
            let flags = o.flags.iter().map(|r| words::reason(lang, r)).collect::<Vec<_>>().join("\n");
            let has_flags = !o.flags.is_empty();
            view! {
                <tr data-offer=o.offer_id.clone()>
                    <td>{i + 1}</td>
                    <td>
                        {offer_title(lang, o)}
                        {has_flags.then(|| view! { <span class="badge warn" title=flags.clone() aria-label=flags.clone()>"!"</span> })}
                        <br />
                        <span class="muted slowdown">
                            {format!(
                                "×{:.2} · P99 ×{:.2} ({})",
                                o.slowdown.median,
                                o.slowdown.p99,
                                words::source(lang, o.slowdown.source),
                            )}
                            {o.deadline_miss_probability.map(|p| format!(" · {} {}", t(lang, "miss_prob"), format::percent(p)))}
                            {o.io_hours_per_run.map(|h| format!(" · {} +{}", t(lang, "io_measured"), format::hours(lang, h)))}
                        </span>
                    </td>
                    <td><span class=format!("badge fit-{fit}")>{words::vram_fit(lang, o.vram_fit)}</span></td>
                    <td>{format!("{} / {}", format::hours(lang, o.hours_expected), format::hours(lang, o.hours_p90))}</td>
                    <td class="num total">{format::money(lang, &o.total_expected)}</td>
                    <td class="num">{format::money(lang, &o.total_p90)}</td>
                </tr>
            }
        })
        .collect_view();
    let n_blocked = infeasible.len();
    // Built when the list is first opened.
    let blocked = move || {
        infeasible
            .iter()
            .map(|o| {
                view! {
                    <li data-offer=o.offer_id.clone()>
                        <strong>{offer_title(lang, o)}</strong>
                        {reason_list(lang, &o.reasons, "reasons")}
                    </li>
                }
            })
            .collect_view()
    };
    let n_shown = feasible.len();
    view! {
        <h3>{t(lang, "ranking")}</h3>
        <div class="table-wrap">
            <table id="ranking">
                <thead>
                    <tr>
                        <th scope="col">{t(lang, "rank")}</th>
                        <th scope="col">{t(lang, "offer")}</th>
                        <th scope="col">{t(lang, "vram_col")}</th>
                        <th scope="col">{t(lang, "hours_col")}</th>
                        <th scope="col">{t(lang, "total")}</th>
                        <th scope="col">{t(lang, "total_p90")}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="print-only hint" id="print-top">
            {format!("{} {PRINTED} / {n_shown}; {}", t(lang, "print_top"), t(lang, "print_rest"))}
        </p>
        <Disclosure id="infeasible" summary=format!("{} ({n_blocked})", t(lang, "infeasible"))>
            <ul class="blocked">{blocked()}</ul>
        </Disclosure>
    }
}

#[component]
fn Charts(lang: Lang, result: PlanResult) -> impl IntoView {
    let top: Vec<OptionResult> = result
        .options
        .iter()
        .filter(|o| o.feasible)
        .take(CHARTED)
        .cloned()
        .collect();
    (!top.is_empty()).then(|| {
        view! {
            <div class="charts no-print">
                <h3>{t(lang, "breakdown")}</h3>
                <CostBars lang=lang options=top.clone() />
                <h3>{t(lang, "time_distribution")}</h3>
                <TimeRanges lang=lang options=top />
            </div>
        }
    })
}

#[component]
fn Hybrid(lang: Lang, result: PlanResult) -> impl IntoView {
    result.hybrid.map(|h| {
        let rows = h
            .phases
            .iter()
            .map(|p| {
                let offer = p.offer_id.as_ref().and_then(|id| result.options.iter().find(|o| &o.offer_id == id));
                view! {
                    <tr>
                        <td>{words::phase(lang, p.phase)}</td>
                        <td>{offer.map(|o| offer_title(lang, o)).unwrap_or_else(|| t(lang, "none").to_owned())}</td>
                        <td class="num">{format::money(lang, &p.cost)}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <h3>{t(lang, "hybrid")}</h3>
            <table id="hybrid">
                <thead><tr><th scope="col">{t(lang, "phase")}</th><th scope="col">{t(lang, "offer")}</th><th scope="col">{t(lang, "cost")}</th></tr></thead>
                <tbody>{rows}</tbody>
                <tfoot><tr><th scope="row" colspan="2">{t(lang, "total")}</th><td class="num">{format::money(lang, &h.total)}</td></tr></tfoot>
            </table>
        }
    })
}

#[component]
fn BreakEven(lang: Lang, result: PlanResult) -> impl IntoView {
    let b = result.break_even;
    // Named from the plan's own options, so a user's quote or an imported offer reads as well
    // as the default catalog's.
    let find = |id: &str| {
        result
            .options
            .iter()
            .find(|o| o.offer_id == id)
            .map(|o| format!("{} {}", o.provider, words::billing(lang, o.billing_mode)))
    };
    let monthly = b.monthly_vs_pay_as_you_go.map(|m| {
        let title = format!("{} {} {} ({})", t(lang, "monthly_vs_payg"), format::number(m.break_even, 0), t(lang, "hours_per_month"), m.gpu);
        view! {
            <li id="breakeven-monthly">{title.clone()}</li>
            <BreakEvenChart lang=lang id="chart-monthly" title=title points=m.points
                a_label=find(&m.short_offer).unwrap_or(m.short_offer.clone()) b_label=find(&m.long_offer).unwrap_or(m.long_offer.clone()) log_x=false />
        }
    });
    let yearly = b.yearly_vs_monthly.map(|m| view! {
        <li id="breakeven-yearly">{format!("{} {} {} ({})", t(lang, "yearly_vs_monthly"), format::number(m.break_even, 1), t(lang, "months_per_year"), m.gpu)}</li>
    });
    let run = b.dedicated_vs_shared.map(|r| {
        let at = match r.work_hours {
            Some(h) if h <= 0.0 => t(lang, "always").to_owned(),
            Some(h) => format::hours(lang, h),
            None => t(lang, "never_in_range").to_owned(),
        };
        let title = format!("{} {at}", t(lang, "dedicated_vs_shared"));
        view! {
            <li id="breakeven-run">{title.clone()}</li>
            <BreakEvenChart lang=lang id="chart-run" title=title points=r.points
                a_label=t(lang, "shared").to_owned() b_label=t(lang, "dedicated").to_owned() log_x=true />
        }
    });
    view! {
        <h3>{t(lang, "break_even")}</h3>
        <ul class="break-even">{monthly}{yearly}{run}</ul>
    }
}

#[component]
fn Security(lang: Lang, result: PlanResult, scenario: RwSignal<Scenario>) -> impl IntoView {
    let level = scenario.with_untracked(|s| s.task.sensitivity);
    let recommended = result.decision.recommended_offer.clone();
    let list = recommended
        .as_ref()
        .and_then(|id| {
            scenario.with_untracked(|s| {
                s.catalog(default_catalog())
                    .offers
                    .into_iter()
                    .find(|o| &o.id == id)
            })
        })
        .map(|o| checklist(level, &o))
        .unwrap_or_else(|| {
            required_controls(level)
                .iter()
                .map(|c| (*c, false))
                .collect()
        });
    let empty = list.is_empty();
    let items = list
        .into_iter()
        .map(|(c, ok)| {
            view! {
                <li class=if ok { "ok" } else { "missing" }>
                    {format!("{} — {}", words::control(lang, c), t(lang, if ok { "has" } else { "lacks" }))}
                </li>
            }
        })
        .collect_view();
    view! {
        <h3>{format!("{} ({})", t(lang, "security"), words::sensitivity(lang, level))}</h3>
        {if empty {
            view! { <p id="security">{t(lang, "security_none")}</p> }.into_any()
        } else {
            view! { <ul id="security" class="checklist">{items}</ul> }.into_any()
        }}
    }
}

#[component]
fn Assumptions(lang: Lang, result: PlanResult) -> impl IntoView {
    let items = result
        .assumptions
        .iter()
        .map(|a| view! { <li><code>{a.id.clone()}</code>{format!(" = {}", a.value)}<span class="source">{format!(" — {}", a.source)}</span></li> })
        .collect_view();
    let dates = result.price_dates.join(", ");
    view! {
        <details id="assumptions">
            <summary>{t(lang, "assumptions")}</summary>
            <ul>{items}</ul>
            <p class="hint" id="price-dates">{format!("{}: {dates}", t(lang, "as_of"))}</p>
        </details>
    }
}
