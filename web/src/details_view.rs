//! What an offer was priced with beside its price: how it shares the card (the MIG profile, the
//! neighbours' load and where it comes from, the slowdown used), the request-level latency
//! factor, and the queue before a start (P50 / P90 / P99 / mean, its shape and source, and its
//! distribution drawn). Every figure is core's `OptionResult` of the offer, or the catalog row it
//! was priced from; this module only lays it out.
//!
//! The panel is closed at first and opens on the recommended offer, or on any offer picked with
//! its "Sharing and queue" button (in the ranking and beside an attached queue trace) or in its
//! own list. Its content is in a chunk of the site fetched when it is first opened.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::offer::Offer;
use gpufare_core::offers::queue::QueueSource;
use gpufare_core::offers::tenancy::SlowdownSource;
use gpufare_core::plan::option::OptionResult;
use gpufare_core::plan::{PlanError, PlanResult};
use gpufare_core::scenario::document::Scenario;
use leptos::prelude::*;

use crate::charts::QueueCdf;
use crate::fields::{Disclosure, lazy_view};
use crate::format::{self, percent};
use crate::vocab::{Label, Lang, model, pick, t};

/// The offer shown: the one picked, else the recommended one, else the first priced.
pub fn target<'a>(result: &'a PlanResult, pick: Option<&str>) -> Option<&'a OptionResult> {
    let find = |id: &str| result.options.iter().find(|o| o.offer_id == id);
    pick.and_then(find)
        .or_else(|| result.decision.recommended_offer.as_deref().and_then(find))
        .or_else(|| result.options.first())
}

/// The panel: its summary names the offer shown.
#[component]
pub fn DetailsPanel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: ReadSignal<Result<PlanResult, PlanError>>,
    pick: RwSignal<Option<String>>,
) -> impl IntoView {
    let summary = Signal::derive(move || {
        let title = t(lang.get(), Label::Details);
        plan.with(|p| {
            let shown = p
                .as_ref()
                .ok()
                .and_then(|r| pick.with(|k| target(r, k.as_deref())));
            match shown {
                Some(o) => format!("{title} — {}", o.offer_id),
                None => title.to_owned(),
            }
        })
    });
    view! {
        <Disclosure id=crate::picks::DETAILS_PANEL class="risk offer-details no-print" summary=summary>
            {move || lazy_view(lang, details_panel(lang, scenario, plan, pick))}
        </Disclosure>
    }
}

/// The panel's content, from its chunk; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(details, wasm_split_path = ::leptos::wasm_split, fallible)]
fn details_panel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: ReadSignal<Result<PlanResult, PlanError>>,
    pick: RwSignal<Option<String>>,
) -> Result<ViewFn, leptos::wasm_split::SplitLoaderError> {
    Ok(ViewFn::from(move || {
        details_body(lang, scenario, plan, pick).into_any()
    }))
}

/// The option shown and the catalog row it was priced from (with the profile's measured
/// figures applied, as the plan saw it).
#[derive(Debug, Clone, PartialEq)]
struct Shown {
    option: OptionResult,
    offer: Option<Offer>,
}

fn details_body(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: ReadSignal<Result<PlanResult, PlanError>>,
    pick: RwSignal<Option<String>>,
) -> impl IntoView {
    let choices = Memo::new(move |_| {
        plan.with(|p| p.as_ref().map(|r| r.options.clone()).unwrap_or_default())
    });
    // What the catalog rows depend on: not the task, so typing in the task form rebuilds nothing
    // here until the plan changes.
    let basis = Memo::new(move |_| {
        scenario.with(|s| (s.edits.clone(), s.filter.clone(), s.measured.clone()))
    });
    let shown = Memo::new(move |_| {
        let option = plan.with(|p| {
            let r = p.as_ref().ok()?;
            pick.with(|k| target(r, k.as_deref())).cloned()
        })?;
        let offer = basis.with(|_| {
            scenario.with_untracked(|s| {
                s.catalog(default_catalog())
                    .offers
                    .into_iter()
                    .find(|o| o.id == option.offer_id)
            })
        });
        Some(Shown { option, offer })
    });
    view! {
        <crate::picks::OfferPicker
            lang=lang
            id="details-offer"
            pick=pick
            choices=choices
            current=Signal::derive(move || shown.with(|s| s.as_ref().map(|s| s.option.offer_id.clone())))
        />
        {move || {
            let lang = lang.get();
            match shown.get() {
                None => view! { <p id="details-none">{t(lang, Label::DetailsNone)}</p> }.into_any(),
                Some(s) => report(lang, s).into_any(),
            }
        }}
    }
}

/// `×1.23`.
fn times(x: f64) -> String {
    format!("×{x:.2}")
}

/// The sharing facts, the queue's figures and its chart of one option.
fn report(lang: Lang, shown: Shown) -> impl IntoView {
    let Shown { option: o, offer } = shown;
    let sep = pick(lang, ": ", "：");
    let fact = |label: Label, key: &'static str, source: Option<&'static str>, value: AnyView| {
        view! {
            <dt>{t(lang, label)}</dt>
            <dd data-key=key data-source=source>{value}</dd>
        }
    };

    // The MIG profile of a slice, with the share of the card it holds.
    let mig = offer.as_ref().and_then(|x| {
        let name = x.mig_profile.clone()?;
        let share = match lang {
            Lang::En => format!(" · {} of the card", percent(x.gpu_fraction)),
            Lang::Zh => format!(" · 占整卡算力的 {}", percent(x.gpu_fraction)),
        };
        Some(fact(
            Label::MigProfile,
            "mig-profile",
            None,
            view! { <span translate="no">{name}</span><span class="muted">{share}</span> }
                .into_any(),
        ))
    });
    let shares_compute = o.tenancy.sharing().is_some();
    let load = match o.neighbour_load {
        Some(l) => fact(
            Label::LoadUsed,
            "neighbour-load",
            Some(l.source.id()),
            format!(
                "{} — {}",
                format::number(l.load * 100.0, 1) + " %",
                model::load_source(lang, l.source)
            )
            .into_any(),
        ),
        None => fact(
            Label::LoadUsed,
            "neighbour-load",
            None,
            t(
                lang,
                if shares_compute {
                    Label::LoadNotUsed
                } else {
                    Label::LoadNotApplicable
                },
            )
            .into_any(),
        ),
    };
    let slowdown = fact(
        Label::SlowdownUsed,
        "slowdown",
        Some(match o.slowdown.source {
            SlowdownSource::Assumed => "assumed",
            SlowdownSource::Offer => "offer",
            SlowdownSource::Measured => "measured",
        }),
        format!(
            "{} {}{}P99 {} — {}",
            t(lang, Label::Median),
            times(o.slowdown.median),
            pick(lang, ", ", "，"),
            times(o.slowdown.p99),
            model::source(lang, o.slowdown.source)
        )
        .into_any(),
    );
    let f = o.latency_p99_factor;
    let spread = match (f.low, f.high) {
        (Some(low), Some(high)) => format!(
            " ({} {} – {})",
            t(lang, Label::LatencyRange),
            times(low),
            times(high)
        ),
        _ => String::new(),
    };
    let latency = fact(
        Label::LatencyFactor,
        "latency-factor",
        Some(f.source.id()),
        format!(
            "{}{spread} — {}",
            times(f.p99),
            model::latency_source(lang, f.source)
        )
        .into_any(),
    );
    // A data-parallel run's exchange over the offer's links.
    let communication = o.communication.map(|c| {
        let n = |x: f64| format::number(x, 2);
        let (bw, compute, comm, exposed) = (
            n(c.busbw_gb_s),
            n(c.compute_s_per_step),
            n(c.comm_s_per_step),
            n(c.exposed_s_per_step),
        );
        let (gpus, nodes, share) = (c.gpus, c.nodes, percent(c.share));
        let (compute_h, comm_h) = (
            format::number(c.compute_hours, 1),
            format::number(c.communication_hours, 1),
        );
        let text = match lang {
            Lang::En => format!(
                " · {bw} GB/s · {gpus} GPUs on {nodes} node(s) · compute {compute} s, exchange {comm} s, {exposed} s exposed ({share} of the step) · a run: {compute_h} h computing, {comm_h} h communicating"
            ),
            Lang::Zh => format!(
                " · {bw} GB/s · {gpus} 张卡，{nodes} 个节点 · 计算 {compute} 秒，通信 {comm} 秒，其中 {exposed} 秒未被掩盖（占每步的 {share}） · 每次运行：计算 {compute_h} 小时，通信 {comm_h} 小时"
            ),
        };
        // Tensor parallelism inside each group, over its own (NVLink) link.
        let tensor = c.tensor_link.filter(|_| c.tensor_parallel > 1).map(|tl| {
            let (tp, tbw, ts) = (c.tensor_parallel, n(tl.gb_s), n(c.tensor_s_per_step));
            let (before, after) = match lang {
                Lang::En => (
                    format!("; of which tensor parallel in groups of {tp} over "),
                    format!(" ({tbw} GB/s): {ts} s, all exposed"),
                ),
                Lang::Zh => (
                    format!("；其中 {tp} 卡一组的张量并行经 "),
                    format!("（{tbw} GB/s）：{ts} 秒，全部未被掩盖"),
                ),
            };
            view! {
                <span class="tensor-parallel" data-tp=tp.to_string() data-seconds=format!("{:.6}", c.tensor_s_per_step)>
                    {before}<span translate="no">{model::link(lang, tl.link)}</span>{after}
                </span>
            }
        });
        fact(
            Label::CommunicationUsed,
            "communication",
            Some(c.link.id()),
            view! { <span translate="no">{model::link(lang, c.link)}</span><span>{text}</span>{tensor} }
                .into_any(),
        )
    });
    let sharing = view! {
        <h4>{t(lang, Label::SharingHeading)}</h4>
        <dl class="facts" id="sharing-facts" data-offer=o.offer_id.clone() data-tenancy=o.tenancy.id()>
            <dt>{t(lang, Label::Tenancy)}</dt>
            <dd data-key="tenancy">{model::tenancy(lang, o.tenancy)}</dd>
            {mig}
            {load}
            {slowdown}
            {latency}
            {communication}
        </dl>
    };

    let q = o.queue_hours.clone();
    let queue = if q.source == QueueSource::None || q.cdf_hours.is_empty() {
        view! { <p id="queue-none" class="hint">{t(lang, Label::QueueNone)}</p> }.into_any()
    } else {
        let trace = offer.as_ref().and_then(|x| x.queue_trace.clone());
        // At once or a long while: the start-at-once share and the spread of the rest, from the
        // model's parameters or, for a measured trace, from the fit to it.
        let shape = match (q.p0, q.median_hours, q.sigma, &trace) {
            (Some(p0), Some(m), Some(s), _) => Some((p0, m, s)),
            (_, _, _, Some(tr)) if q.source == QueueSource::Trace => {
                Some((tr.fitted.p0, tr.fitted.median_hours, tr.fitted.sigma))
            }
            _ => None,
        };
        let shape = shape.map(|(p0, m, s)| {
            let text = match lang {
                Lang::En => format!(
                    "{} of starts at once; the rest log-normal, median {}, σ {:.2}",
                    percent(p0),
                    format::wait(lang, m),
                    s
                ),
                Lang::Zh => format!(
                    "{} 的启动立即开始；其余按对数正态分布，中位数 {}，σ {:.2}",
                    percent(p0),
                    format::wait(lang, m),
                    s
                ),
            };
            fact(Label::QueueShape, "shape", None, text.into_any())
        });
        let source = match (q.source, &trace) {
            (QueueSource::Trace, Some(tr)) => {
                let starts = match lang {
                    Lang::En => format!(", {} starts", tr.starts),
                    Lang::Zh => format!("，{} 次启动", tr.starts),
                };
                view! {
                    {t(lang, Label::QueueFromTrace)}{sep}
                    <span translate="no">{tr.name.clone()}</span>{starts}
                }
                .into_any()
            }
            (s, _) => model::queue_source(lang, s, None).into_any(),
        };
        let quantiles = format!(
            "{} / {} / {}",
            format::wait(lang, q.p50),
            format::wait(lang, q.p90),
            format::wait(lang, q.p99)
        );
        let note = format!(
            "P50 {} · P90 {} · P99 {} · {} {}",
            format::wait(lang, q.p50),
            format::wait(lang, q.p90),
            format::wait(lang, q.p99),
            t(lang, Label::QueueMean),
            format::wait(lang, q.mean)
        );
        let name = model::option_title(lang, &o);
        view! {
            <dl
                class="facts"
                id="queue-facts"
                data-offer=o.offer_id.clone()
                data-source=q.source.id()
                data-p50-hours=q.p50.to_string()
                data-p90-hours=q.p90.to_string()
                data-mean-hours=q.mean.to_string()
            >
                {fact(Label::QueueQuantiles, "quantiles", None, quantiles.into_any())}
                {fact(Label::QueueMean, "mean", None, format::wait(lang, q.mean).into_any())}
                {shape}
                {fact(Label::QueueSource, "source", Some(q.source.id()), source)}
            </dl>
            <p class="hint">{t(lang, Label::QueueCheckedAgainst)}</p>
            <QueueCdf lang=lang hours=q.cdf_hours.clone() name=name note=note />
        }
        .into_any()
    };

    view! {
        <h3 id="details-offer-title">{model::option_title(lang, &o)}</h3>
        {sharing}
        <h4>{t(lang, Label::QueueHeading)}</h4>
        {queue}
    }
}
