//! The answer: the recommendation with its reasons, the ranking, the charts, the hybrid plan,
//! the break-even figures, the security checklist and the assumptions. Everything shown comes
//! from `gpufare_core::plan`; this module only lays it out.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::breakeven::Payoff;
use gpufare_core::plan::headline::Headline;
use gpufare_core::plan::option::OptionResult;
use gpufare_core::plan::reason::Reason;
use gpufare_core::plan::security::{checklist, required_controls};
use gpufare_core::plan::{PlanError, PlanResult};
use gpufare_core::scenario::document::Scenario;
use gpufare_core::task::policy::Policy;
use leptos::prelude::*;

use crate::charts::{BreakEvenChart, CostBars, TimeRanges};
use crate::fields::Disclosure;
use crate::format;
use crate::planner;
use crate::vocab::{Label, Lang, errors, model, pick, reasons, t};

/// How many feasible options the ranking and the charts show.
const SHOWN: usize = 12;
const CHARTED: usize = 8;
/// Ranked options on the printout; style.css hides rows after this many (`nth-child(n+6)`).
const PRINTED: usize = 5;

fn reason_list(lang: Lang, reasons: &[Reason], class: &'static str) -> impl IntoView + use<> {
    let items = reasons
        .iter()
        .map(|r| {
            let rule = r.rule.id().to_owned();
            view! { <li data-rule=rule>{reasons::reason(lang, r)}</li> }
        })
        .collect_view();
    view! { <ul class=class>{items}</ul> }
}

/// The results column.
#[component]
pub fn Results(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: ReadSignal<Result<PlanResult, PlanError>>,
    /// The offer whose interruption risk is shown.
    pick: RwSignal<Option<String>>,
    /// The offer whose sharing and queue details are shown.
    details: RwSignal<Option<String>>,
    /// The newest scenario's first answer while its full plan is on its way.
    first: ReadSignal<Option<planner::FirstAnswer>>,
    /// The panels between the ranking and the rest (the page passes the risk and details
    /// panels), outside the blocks rebuilt on every recompute so that they stay open while the
    /// task is edited.
    children: Children,
) -> impl IntoView {
    view! {
        <section aria-labelledby="results-heading" class="card wide results" aria-live="polite">
            <h2 id="results-heading">{move || t(lang.get(), Label::Results)}</h2>
            {move || first.get().map(|f| view! { <FirstAnswer lang=lang.get() headline=f.headline engine=f.engine /> })}
            {move || {
                let lang = lang.get();
                match plan.get() {
                    Err(e) => view! {
                        <p class="field-error" id="plan-error" role="alert">{format!("{}: {}", t(lang, Label::PlanError), errors::plan_error(lang, &e))}</p>
                    }.into_any(),
                    Ok(result) => view! {
                        <Decision lang=lang result=result.clone() />
                        <Ranking lang=lang result=result.clone() pick=pick details=details />
                        <Charts lang=lang result=result />
                    }.into_any(),
                }
            }}
            {children()}
            {move || {
                let lang = lang.get();
                plan.get().ok().map(|result| view! {
                    <Hybrid lang=lang result=result.clone() />
                    <BreakEven lang=lang result=result.clone() />
                    <Security lang=lang result=result.clone() scenario=scenario />
                    <Assumptions lang=lang result=result />
                })
            }}
        </section>
    }
}

/// The first answer, marked provisional: the recommendation and the first ranked offers of the
/// closed-form plan, shown above the previous plan until the full plan replaces both. `engine`:
/// where it was priced (`data-engine`: `page` or `worker`).
#[component]
fn FirstAnswer(lang: Lang, headline: Headline, engine: planner::Engine) -> impl IntoView {
    let recommended = headline.recommended().map(|r| {
        view! {
            <p id="first-recommended" data-offer=r.offer_id.clone()>
                <strong>{t(lang, Label::Recommended)}": "</strong>
                {model::headline_title(lang, r)}
                " — "
                <span class="total">{format::money(lang, &r.total_expected)}</span>
                {format!(", {}", format::hours(lang, r.hours_expected))}
            </p>
        }
    });
    let rows = headline
        .ranking
        .iter()
        .map(|r| {
            view! {
                <li data-offer=r.offer_id.clone()>
                    {model::headline_title(lang, r)}
                    " — "
                    {format::money(lang, &r.total_expected)}
                </li>
            }
        })
        .collect_view();
    view! {
        <div
            class="first-answer"
            id="first-answer"
            data-provisional="true"
            data-choice=headline.choice.id()
            data-trials=headline.trials.to_string()
            data-engine=engine.tag()
        >
            <p class="choice">
                <span class="badge warn">{t(lang, Label::FirstAnswer)}</span>
                " "
                {model::choice(lang, headline.choice)}
            </p>
            {recommended}
            <ol class="first-ranking">{rows}</ol>
            <p class="hint">{t(lang, Label::FirstAnswerNote)}</p>
        </div>
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
            <p class="choice" id="choice">{model::choice(lang, d.choice)}</p>
            {recommended.map(|o| {
                let p = o.price.clone();
                let stale = p.is_stale();
                view! {
                    <p id="recommended" data-offer=o.offer_id.clone()>
                        <strong>{t(lang, Label::Recommended)}": "</strong>
                        {model::option_title(lang, &o)}
                        " — "
                        <span class="total">{format::money(lang, &o.costs.total_expected)}</span>
                        {format!(", {}", format::hours(lang, o.hours_expected))}
                        <span
                            id="recommended-price"
                            class="hint no-print"
                            data-as-of=p.price_as_of.clone()
                            data-age-days=p.price_age_days.map(|d| d.to_string())
                            data-evidence=p.price_evidence.map(|e| e.id())
                            data-stale=stale.to_string()
                        >
                            // On its own line; left off the printout, where the caveat (when
                            // there is one) and the basis's price dates say it.
                            <br />
                            {format!("{}{}", t(lang, Label::RecommendedPrice), pick(lang, ": ", "："))}
                            <span translate="no">{p.price_as_of.clone()}</span>
                            {p.price_age_days.map(|d| {
                                let class = if stale { "badge warn" } else { "" };
                                view! { " · " <span class=class>{model::price_age(lang, d)}</span> }
                            })}
                            {p.price_evidence.map(|e| view! { " · " <span class="badge">{model::evidence(lang, e)}</span> })}
                        </span>
                    </p>
                }
            })}
            {reason_list(lang, &d.reasons, "reasons")}
        </div>
    }
}

#[component]
fn Ranking(
    lang: Lang,
    result: PlanResult,
    pick: RwSignal<Option<String>>,
    details: RwSignal<Option<String>>,
) -> impl IntoView {
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
            let flags = o.flags.iter().map(|r| reasons::reason(lang, r)).collect::<Vec<_>>().join("\n");
            let has_flags = !o.flags.is_empty();
            view! {
                <tr data-offer=o.offer_id.clone()>
                    <td>{i + 1}</td>
                    <td>
                        {model::option_title(lang, o)}
                        {has_flags.then(|| view! { <span class="badge warn" title=flags.clone() aria-label=flags.clone()>"!"</span> })}
                        <br />
                        <span class="muted slowdown">
                            {format!(
                                "×{:.2} · P99 ×{:.2} ({})",
                                o.slowdown.median,
                                o.slowdown.p99,
                                model::source(lang, o.slowdown.source),
                            )}
                            {o.deadline_miss_probability.map(|p| format!(" · {} {}", t(lang, Label::MissProb), format::percent(p)))}
                            {o.io_hours_per_run.map(|h| format!(" · {} +{}", t(lang, Label::IoMeasured), format::hours(lang, h)))}
                            {o.round_trip.as_ref().map(|rt| format!(
                                " · {} {} ({})",
                                t(lang, Label::RoundTrip),
                                format::millis(lang, rt.ms),
                                model::rtt_basis(lang, rt.basis),
                            ))}
                            {o.latency_p99_ms.map(|ms| format!(
                                " · P99 {} (×{:.2}, {})",
                                format::millis(lang, ms),
                                o.latency_p99_factor.p99,
                                model::latency_source(lang, o.latency_p99_factor.source),
                            ))}
                            {o.policy.filter(|p| *p != Policy::SpotOnly).map(|p| format!(" · {}{}{}", t(lang, Label::Policy), crate::vocab::pick(lang, ": ", "："), model::policy(lang, &p)))}
                        </span>
                        {{
                            let id = o.offer_id.clone();
                            view! {
                                " "
                                <button type="button" class="details-link" data-offer=id.clone() on:click=move |_| crate::picks::show(details, id.clone(), crate::picks::DETAILS_PANEL)>
                                    {t(lang, Label::ShowDetails)}
                                </button>
                            }
                        }}
                        {o.risk.is_some().then(|| {
                            let id = o.offer_id.clone();
                            view! {
                                " "
                                <button type="button" class="risk-link" data-offer=id.clone() on:click=move |_| crate::picks::show(pick, id.clone(), crate::picks::RISK_PANEL)>
                                    {t(lang, Label::ShowRisk)}
                                </button>
                            }
                        })}
                    </td>
                    <td><span class=format!("badge fit-{fit}")>{model::vram_fit(lang, o.vram_fit)}</span></td>
                    <td>{format!("{} / {}", format::hours(lang, o.hours_expected), format::hours(lang, o.hours_p90))}</td>
                    <td class="num total">{format::money(lang, &o.costs.total_expected)}</td>
                    <td class="num">{format::money(lang, &o.costs.total_p90)}</td>
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
                        <strong>{model::option_title(lang, o)}</strong>
                        {reason_list(lang, &o.reasons, "reasons")}
                    </li>
                }
            })
            .collect_view()
    };
    let n_shown = feasible.len();
    view! {
        <h3>{t(lang, Label::Ranking)}</h3>
        <div class="table-wrap">
            <table id="ranking">
                <thead>
                    <tr>
                        <th scope="col">{t(lang, Label::Rank)}</th>
                        <th scope="col">{t(lang, Label::Offer)}</th>
                        <th scope="col">{t(lang, Label::VramCol)}</th>
                        <th scope="col">{t(lang, Label::HoursCol)}</th>
                        <th scope="col">{t(lang, Label::Total)}</th>
                        <th scope="col">{t(lang, Label::TotalP90)}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="print-only hint" id="print-top">
            {format!("{} {PRINTED} / {n_shown}; {}", t(lang, Label::PrintTop), t(lang, Label::PrintRest))}
        </p>
        <Disclosure id="infeasible" summary=format!("{} ({n_blocked})", t(lang, Label::Infeasible))>
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
                <h3>{t(lang, Label::Breakdown)}</h3>
                <CostBars lang=lang options=top.clone() />
                <h3>{t(lang, Label::TimeDistribution)}</h3>
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
                        <td>{model::phase(lang, p.phase)}</td>
                        <td>{offer.map(|o| model::option_title(lang, o)).unwrap_or_else(|| t(lang, Label::None).to_owned())}</td>
                        <td class="num">{format::money(lang, &p.cost)}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <h3>{t(lang, Label::Hybrid)}</h3>
            <table id="hybrid">
                <thead><tr><th scope="col">{t(lang, Label::Phase)}</th><th scope="col">{t(lang, Label::Offer)}</th><th scope="col">{t(lang, Label::Cost)}</th></tr></thead>
                <tbody>{rows}</tbody>
                <tfoot><tr><th scope="row" colspan="2">{t(lang, Label::Total)}</th><td class="num">{format::money(lang, &h.total)}</td></tr></tfoot>
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
            .map(|o| format!("{} {}", o.provider, model::billing(lang, o.billing_mode)))
    };
    // Each figure read against its range: a month has 730 hours, a year 12 months.
    let reading = |payoff: Payoff,
                   x: f64,
                   beats: Label,
                   always: Label,
                   never: Label,
                   unit: Label,
                   digits: usize| {
        let value = format!("{} {}", format::number(x, digits), t(lang, unit));
        match payoff {
            Payoff::From(_) => format!("{} {value}", t(lang, beats)),
            Payoff::Always => t(lang, always).to_owned(),
            Payoff::Never => format!("{} {value}", t(lang, never)),
        }
    };
    let monthly_payoff = b.monthly_payoff();
    let yearly_payoff = b.yearly_payoff();
    let run_payoff = b.run_length_payoff();
    let monthly = b.monthly_vs_pay_as_you_go.zip(monthly_payoff).map(|(m, p)| {
        let title = format!(
            "{} ({})",
            reading(p, m.break_even, Label::MonthlyVsPayg, Label::MonthlyAlways, Label::MonthlyNever, Label::HoursPerMonth, 0),
            m.gpu
        );
        view! {
            <li id="breakeven-monthly" data-payoff=payoff_id(p)>{title.clone()}</li>
            <BreakEvenChart lang=lang id="chart-monthly" title=title points=m.points
                x_title=t(lang, Label::ChartHoursPerMonth)
                a_label=find(&m.short_offer).unwrap_or(m.short_offer.clone()) b_label=find(&m.long_offer).unwrap_or(m.long_offer.clone()) log_x=false />
        }
    });
    let yearly = b.yearly_vs_monthly.zip(yearly_payoff).map(|(m, p)| view! {
        <li id="breakeven-yearly" data-payoff=payoff_id(p)>{format!(
            "{} ({})",
            reading(p, m.break_even, Label::YearlyVsMonthly, Label::YearlyAlways, Label::YearlyNever, Label::MonthsPerYear, 1),
            m.gpu
        )}</li>
    });
    let run = b.dedicated_vs_shared.zip(run_payoff).map(|(r, p)| {
        let title = match p {
            Payoff::From(h) => format!("{} {}", t(lang, Label::DedicatedVsShared), format::hours(lang, h)),
            Payoff::Always => t(lang, Label::DedicatedAlways).to_owned(),
            Payoff::Never => t(lang, Label::DedicatedNever).to_owned(),
        };
        view! {
            <li id="breakeven-run" data-payoff=payoff_id(p)>{title.clone()}</li>
            <BreakEvenChart lang=lang id="chart-run" title=title points=r.points
                x_title=t(lang, Label::ChartWorkHours)
                a_label=t(lang, Label::Shared).to_owned() b_label=t(lang, Label::Dedicated).to_owned() log_x=true />
        }
    });
    view! {
        <h3>{t(lang, Label::BreakEven)}</h3>
        <ul class="break-even">{monthly}{yearly}{run}</ul>
    }
}

/// How a break-even figure reads, for the page and its tests: `from`, `always` or `never`.
fn payoff_id(p: Payoff) -> &'static str {
    match p {
        Payoff::From(_) => "from",
        Payoff::Always => "always",
        Payoff::Never => "never",
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
                    {format!("{} — {}", model::control(lang, c), t(lang, if ok { Label::Has } else { Label::Lacks }))}
                </li>
            }
        })
        .collect_view();
    view! {
        <h3>{format!("{} ({})", t(lang, Label::Security), model::sensitivity(lang, level))}</h3>
        {if empty {
            view! { <p id="security">{t(lang, Label::SecurityNone)}</p> }.into_any()
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
        .map(|a| {
            let (name, value, source) = model::assumption(lang, a);
            view! {
                <li data-id=a.id.clone()>
                    {name}" = "<span translate="no">{value}</span><span class="source">{format!(" — {source}")}</span>
                </li>
            }
        })
        .collect_view();
    let dates = result.price_dates.join(", ");
    view! {
        <details id="assumptions">
            <summary>{t(lang, Label::Assumptions)}</summary>
            <ul>{items}</ul>
            <p class="hint" id="price-dates">{format!("{}: ", t(lang, Label::AsOf))}<span translate="no">{dates}</span></p>
        </details>
    }
}
