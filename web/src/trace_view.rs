//! Preemption traces on the site: for every interruptible offer shown, a file picker that attaches
//! a measured trace (the Can't Be Late dataset's JSON, or a CSV of `timestamp,count`) in place of
//! the offer's assumed interruptions, a way to remove it, and what the trace holds. Files are read
//! in the browser with the File API and checked by `gpufare_core::offers::trace`; nothing is
//! uploaded. A refused file leaves the scenario as it was and says why beside its picker.

use std::collections::BTreeMap;

use gpufare_core::offers::billing::BillingMode;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::offer::Offer;
use gpufare_core::offers::trace::{MAX_TRACE_BYTES, Trace, TraceError, TraceStats, parse_trace};
use gpufare_core::scenario::document::Scenario;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::fields::{Disclosure, HeaderRow, lazy_view};
use crate::format::{self};
use crate::vocab::{Label, Lang, errors, model, t};

/// The traces panel of the offers card, closed at first; its content is in a chunk of the site
/// fetched when it is first opened.
#[component]
pub fn TracesPanel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    pick: RwSignal<Option<String>>,
) -> impl IntoView {
    let summary = Signal::derive(move || {
        let n = scenario.with(|s| s.traces.len());
        crate::fields::counted(t(lang.get(), Label::Traces), n)
    });
    view! {
        <Disclosure id="traces" class="traces" summary=summary>
            {move || lazy_view(lang, traces_panel(lang, scenario, pick))}
        </Disclosure>
    }
}

/// The panel's content, from its chunk; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(traces, wasm_split_path = ::leptos::wasm_split, fallible)]
fn traces_panel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    pick: RwSignal<Option<String>>,
) -> Result<ViewFn, leptos::wasm_split::SplitLoaderError> {
    Ok(ViewFn::from(move || {
        traces_body(lang, scenario, pick).into_any()
    }))
}

/// Why a chosen file was not attached.
#[derive(Debug, Clone, PartialEq)]
enum Refusal {
    Unreadable,
    Trace(TraceError),
}

/// Reads and checks a trace file; files above core's limit are refused before they are read.
async fn read_trace(file: web_sys::File) -> Result<Trace, Refusal> {
    let size = file.size();
    if size > MAX_TRACE_BYTES as f64 {
        return Err(Refusal::Trace(TraceError::TooLarge {
            bytes: size as u64,
            max: MAX_TRACE_BYTES,
        }));
    }
    let text = crate::fields::file_text(&file)
        .await
        .ok_or(Refusal::Unreadable)?;
    parse_trace(&file.name(), &text).map_err(Refusal::Trace)
}

/// One row of the panel: an interruptible offer (or one with a trace attached), and what its
/// trace holds.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    id: String,
    offer: Option<Offer>,
    trace: Option<TraceStats>,
}

fn interruptible(o: &Offer) -> bool {
    o.interruptions.interrupts() || o.billing_mode == BillingMode::Spot
}

fn traces_body(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    pick: RwSignal<Option<String>>,
) -> impl IntoView {
    // Files refused, by offer: the file's name and why.
    let refused = RwSignal::new(BTreeMap::<String, (String, Refusal)>::new());
    let rows = Memo::new(move |_| {
        scenario.with(|s| {
            let stats = |id: &str| {
                s.traces
                    .iter()
                    .find(|t| t.offer_id == id)
                    .map(|t| t.trace.stats())
            };
            let catalog = s.edits.apply(default_catalog());
            let mut rows: Vec<Row> = catalog
                .offers
                .into_iter()
                .filter(|o| {
                    (interruptible(o) && s.filter.matches(o))
                        || s.traces.iter().any(|t| t.offer_id == o.id)
                })
                .map(|o| Row {
                    id: o.id.clone(),
                    trace: stats(&o.id),
                    offer: Some(o),
                })
                .collect();
            // A trace whose offer was removed since: listed so that it can be removed too.
            for t in &s.traces {
                if !rows.iter().any(|r| r.id == t.offer_id) {
                    rows.push(Row {
                        id: t.offer_id.clone(),
                        offer: None,
                        trace: Some(t.trace.stats()),
                    });
                }
            }
            rows
        })
    });
    let attach = move |id: String, ev: leptos::ev::Event| {
        let Some(file) = crate::fields::take_chosen_file(&ev) else {
            return;
        };
        spawn_local(async move {
            let name = file.name();
            match read_trace(file).await {
                Ok(trace) => {
                    refused.update(|r| {
                        r.remove(&id);
                    });
                    scenario.update(|s| s.attach_trace(&id, trace));
                }
                Err(why) => refused.update(|r| {
                    r.insert(id, (name, why));
                }),
            }
        });
    };
    let row_view = move |row: Row| {
        let lang_now = lang.get();
        let id = row.id.clone();
        let file_id = format!("trace-file-{id}");
        let error_id = format!("trace-error-{id}");
        let (provider, title, rate, source) = match &row.offer {
            Some(o) => (
                o.provider.clone(),
                model::offer_title(o, model::billing(lang_now, o.billing_mode)),
                format!(
                    "{} {}",
                    format::number(o.interruptions.rate_per_hour(), 4),
                    t(lang_now, Label::PerRunningHour)
                ),
                o.interruptions.interruption_source.clone(),
            ),
            None => (String::new(), String::new(), String::new(), None),
        };
        let attached = row.trace.clone();
        let name = attached.as_ref().map(|s| s.name.clone());
        let remove = {
            let id = id.clone();
            move |_| {
                let id = id.clone();
                scenario.update(move |s| s.detach_trace(&id));
            }
        };
        let on_change = {
            let id = id.clone();
            move |ev| attach(id.clone(), ev)
        };
        let show = {
            let id = id.clone();
            move |_| crate::picks::show(pick, id.clone(), crate::picks::RISK_PANEL)
        };
        let refusal = {
            let id = id.clone();
            move || {
                let lang = lang.get();
                refused.with(|r| {
                    r.get(&id).map(|(file, why)| {
                        let why = match why {
                            Refusal::Unreadable => t(lang, Label::FileUnreadable).to_owned(),
                            Refusal::Trace(e) => errors::trace_error(lang, e),
                        };
                        match lang {
                            Lang::En => format!("{file}: {why}"),
                            Lang::Zh => format!("{file}：{why}"),
                        }
                    })
                })
            }
        };
        let aria = format!("{}: {id}", t(lang_now, Label::AttachTrace));
        view! {
            <tr data-offer=id.clone()>
                <td>
                    <span translate="no">{id.clone()}</span>
                    <br />
                    // The provider as the offer names it (an import's may be lower case).
                    <span class="muted"><span translate="no">{provider}</span>{title}</span>
                </td>
                <td>
                    {rate}
                    {source.map(|s| view! { <br /><span class="muted source" translate="no">{s}</span> })}
                </td>
                <td class="trace-cell">
                    {name.map(|n| view! {
                        <p class="trace-name">
                            <span translate="no">{n}</span>
                            " "
                            <button type="button" id=format!("trace-remove-{id}") on:click=remove>
                                {t(lang_now, Label::RemoveTrace)}
                            </button>
                        </p>
                    })}
                    <div class="field">
                        <label for=file_id.clone()>{t(lang_now, Label::AttachTrace)}</label>
                        <input
                            id=file_id
                            type="file"
                            accept=".json,.csv,application/json,text/csv"
                            aria-label=aria
                            aria-describedby=error_id.clone()
                            on:change=on_change
                        />
                    </div>
                    <p class="field-error" id=error_id role="alert">{refusal}</p>
                    <button type="button" class="risk-link" on:click=show>{t(lang_now, Label::ShowRisk)}</button>
                </td>
            </tr>
            {attached.map(|stats| view! {
                <tr class="trace-detail" data-offer=id.clone()>
                    <td colspan="3">{crate::facts::trace_facts(lang_now, &id, &stats)}</td>
                </tr>
            })}
        }
    };
    view! {
        <p class="hint">{move || t(lang.get(), Label::TracesHint)}</p>
        {move || {
            if rows.with(Vec::is_empty) {
                return view! { <p id="traces-none">{t(lang.get(), Label::TracesNone)}</p> }.into_any();
            }
            view! {
                <div class="table-wrap">
                    <table id="traces-table">
                        <thead>
                            <HeaderRow lang=lang labels=&[Label::Offer, Label::Interruptions, Label::TraceCol] />
                        </thead>
                        <tbody>{rows.get().into_iter().map(row_view).collect_view()}</tbody>
                    </table>
                </div>
            }
            .into_any()
        }}
    }
}
