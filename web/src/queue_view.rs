//! Queue traces on the site: a picker that attaches the waits measured on a pool (a CSV of waits
//! in seconds, or of creation and start times) to an offer, in place of its assumed queue; what
//! each attached trace holds (starts, jobs that never started, the at-once share and the spread
//! fitted to the rest); a way to remove it. Files are read in the browser with the File API and
//! checked by `gpufare_core::offers::queue_trace`; nothing is uploaded. A refused file leaves the
//! scenario as it was and says why beside the picker, naming the file, the line and the column.
//!
//! The scenario keeps the traces in its own list (`Scenario::queue_traces`, by offer id), for a
//! catalog offer and a user's own alike; the catalog it builds puts each on its offer, so the
//! plan, the share link, the exports and the CLI all see it, and the catalog's rows stay as they
//! are. An offer of the user's own that came with a trace of its own (an imported file) is listed
//! too, and its trace can be removed the same way.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::offer::Offer;
use gpufare_core::offers::queue::QueueTrace;
use gpufare_core::offers::queue_trace::{
    MAX_QUEUE_TRACE_BYTES, QueueTraceError, parse_queue_trace,
};
use gpufare_core::scenario::document::{AttachedQueueTrace, CatalogEdits, Scenario};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::fields::{Disclosure, HeaderRow, lazy_view};
use crate::format::{self, percent};
use crate::vocab::{Label, Lang, errors, model, pick, t};

/// The queue traces panel of the offers card, closed at first; its content is in a chunk of the
/// site fetched when it is first opened.
#[component]
pub fn QueuePanel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    /// The offer whose sharing and queue details are shown.
    details: RwSignal<Option<String>>,
) -> impl IntoView {
    let summary = Signal::derive(move || {
        let n = scenario.with(|s| {
            let mut ids: Vec<&str> = s.queue_traces.iter().map(|a| a.offer_id.as_str()).collect();
            ids.extend(
                s.edits
                    .added
                    .iter()
                    .filter(|o| o.queue_trace.is_some())
                    .map(|o| o.id.as_str()),
            );
            ids.sort_unstable();
            ids.dedup();
            ids.len()
        });
        crate::fields::counted(t(lang.get(), Label::QueueTraces), n)
    });
    view! {
        <Disclosure id="queue-traces" class="traces queue-traces" summary=summary>
            {move || lazy_view(lang, queue_panel(lang, scenario, details))}
        </Disclosure>
    }
}

/// The panel's content, from its chunk; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(queues, wasm_split_path = ::leptos::wasm_split, fallible)]
fn queue_panel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    details: RwSignal<Option<String>>,
) -> Result<ViewFn, leptos::wasm_split::SplitLoaderError> {
    Ok(ViewFn::from(move || {
        queue_body(lang, scenario, details).into_any()
    }))
}

/// Why a chosen file was not attached.
#[derive(Debug, Clone, PartialEq)]
enum Refusal {
    Unreadable,
    Queue(QueueTraceError),
}

/// Reads and checks a queue trace; files above core's limit are refused before they are read.
async fn read_queue_trace(file: web_sys::File) -> Result<QueueTrace, Refusal> {
    let size = file.size();
    if size > MAX_QUEUE_TRACE_BYTES as f64 {
        return Err(Refusal::Queue(QueueTraceError::TooLarge {
            bytes: size as u64,
            max: MAX_QUEUE_TRACE_BYTES,
        }));
    }
    let text = crate::fields::file_text(&file)
        .await
        .ok_or(Refusal::Unreadable)?;
    parse_queue_trace(&file.name(), &text).map_err(Refusal::Queue)
}

/// Removes the queue trace of the offer `id`: the one the scenario attached, and one a user's own
/// offer came with. The offer's own queue applies again.
fn detach_queue_trace(s: &mut Scenario, id: &str) {
    s.detach_queue_trace(id);
    for o in s.edits.added.iter_mut().filter(|o| o.id == id) {
        o.queue_trace = None;
    }
}

/// The queue traces the plan uses, in the order the scenario lists them: those attached through
/// the scenario's list (on the offer the catalog holds, or on none when it is gone, so that it can
/// still be removed), then those a user's own offer carries itself.
fn attached_traces(edits: &CatalogEdits, listed: &[AttachedQueueTrace]) -> Vec<Attached> {
    let catalog = edits.apply(default_catalog());
    let mut rows: Vec<Attached> = Vec::new();
    for a in listed {
        let row = Attached {
            id: a.offer_id.clone(),
            offer: catalog.offers.iter().find(|o| o.id == a.offer_id).cloned(),
            trace: a.trace.clone(),
        };
        // A later entry for the same offer replaces an earlier one, as in the plan.
        match rows.iter_mut().find(|r| r.id == row.id) {
            Some(r) => *r = row,
            None => rows.push(row),
        }
    }
    for o in &edits.added {
        if let Some(trace) = &o.queue_trace
            && !rows.iter().any(|r| r.id == o.id)
        {
            rows.push(Attached {
                id: o.id.clone(),
                offer: Some(o.clone()),
                trace: trace.clone(),
            });
        }
    }
    rows
}

/// One attached trace: the offer it is on and what it holds.
#[derive(Debug, Clone, PartialEq)]
struct Attached {
    id: String,
    /// The offer as the scenario's catalog holds it (none: no longer there).
    offer: Option<Offer>,
    trace: QueueTrace,
}

fn queue_body(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    details: RwSignal<Option<String>>,
) -> impl IntoView {
    // The file refused last: its name and why.
    let refused = RwSignal::new(None::<(String, Refusal)>);
    // The offer a trace goes to (none picked: the first listed).
    let chosen = RwSignal::new(None::<String>);
    let basis = Memo::new(move |_| scenario.with(|s| (s.edits.clone(), s.filter.clone())));
    let listed = Memo::new(move |_| scenario.with(|s| s.queue_traces.clone()));
    let attached = Memo::new(move |_| {
        basis.with(|(edits, _)| listed.with(|listed| attached_traces(edits, listed)))
    });
    let offers = Memo::new(move |_| {
        basis.with(|(edits, filter)| {
            edits
                .apply(default_catalog())
                .offers
                .into_iter()
                .filter(|o| filter.matches(o))
                .map(|o| (o.id.clone(), o))
                .collect::<Vec<_>>()
        })
    });
    let target = move || {
        chosen
            .get_untracked()
            .filter(|id| offers.with_untracked(|v| v.iter().any(|(i, _)| i == id)))
            .or_else(|| offers.with_untracked(|v| v.first().map(|(id, _)| id.clone())))
    };
    let attach = move |ev: leptos::ev::Event| {
        let Some(file) = crate::fields::take_chosen_file(&ev) else {
            return;
        };
        let Some(id) = target() else {
            return;
        };
        spawn_local(async move {
            let name = file.name();
            match read_queue_trace(file).await {
                Ok(trace) => {
                    refused.set(None);
                    scenario.update(|s| s.attach_queue_trace(&id, trace));
                }
                Err(why) => refused.set(Some((name, why))),
            }
        });
    };
    let refusal = move || {
        let lang = lang.get();
        refused.get().map(|(file, why)| {
            let why = match why {
                Refusal::Unreadable => t(lang, Label::FileUnreadable).to_owned(),
                Refusal::Queue(e) => errors::queue_trace_error(lang, &e),
            };
            view! { <span translate="no">{file}</span>{pick(lang, ": ", "：")}{why} }
        })
    };
    let row = move |a: Attached| {
        let lang_now = lang.get();
        let id = a.id.clone();
        let remove = {
            let id = id.clone();
            move |_| {
                let id = id.clone();
                scenario.update(move |s| detach_queue_trace(s, &id));
            }
        };
        let show = {
            let id = id.clone();
            move |_| crate::picks::show(details, id.clone(), crate::picks::DETAILS_PANEL)
        };
        let (provider, title) = match &a.offer {
            Some(o) => (
                o.provider.clone(),
                model::offer_title(o, model::tenancy(lang_now, o.tenancy)),
            ),
            None => (
                String::new(),
                t(lang_now, Label::QueueTraceOfferGone).to_owned(),
            ),
        };
        let listed = a.offer.is_some();
        view! {
            <tr data-offer=id.clone()>
                <td>
                    <span translate="no">{id.clone()}</span>
                    <br />
                    <span class="muted"><span translate="no">{provider}</span>{title}</span>
                </td>
                <td>{queue_trace_facts(lang_now, &id, &a.trace)}</td>
                <td>
                    <button type="button" id=format!("queue-trace-remove-{id}") on:click=remove>
                        {t(lang_now, Label::RemoveTrace)}
                    </button>
                    {listed.then(|| view! {
                        " "
                        <button type="button" class="details-link" on:click=show>{t(lang_now, Label::ShowDetails)}</button>
                    })}
                </td>
            </tr>
        }
    };
    view! {
        <p class="hint">{move || t(lang.get(), Label::QueueTracesHint)}</p>
        <div class="grid2 queue-trace-picker">
            <div class="field">
                <label for="queue-trace-offer">{move || t(lang.get(), Label::Offer)}</label>
                <select id="queue-trace-offer" on:change=move |ev| chosen.set(Some(event_target_value(&ev)))>
                    {move || {
                        let lang = lang.get();
                        let current = chosen.get();
                        offers
                            .get()
                            .into_iter()
                            .map(|(id, o)| {
                                let selected = current.as_deref() == Some(id.as_str());
                                let text = format!(
                                    "{id} — {} · {}×{} · {}",
                                    o.provider,
                                    o.gpu_count,
                                    o.gpu,
                                    model::tenancy(lang, o.tenancy)
                                );
                                view! { <option value=id selected=selected>{text}</option> }
                            })
                            .collect_view()
                    }}
                </select>
            </div>
            <div class="field">
                <label for="queue-trace-file">{move || t(lang.get(), Label::AttachQueueTrace)}</label>
                <input
                    id="queue-trace-file"
                    type="file"
                    accept=".csv,.txt,text/csv,text/plain"
                    aria-describedby="queue-trace-error"
                    on:change=attach
                />
            </div>
        </div>
        <p class="field-error" id="queue-trace-error" role="alert">{refusal}</p>
        {move || {
            if attached.with(Vec::is_empty) {
                return view! { <p id="queue-traces-none">{t(lang.get(), Label::QueueTracesNone)}</p> }.into_any();
            }
            view! {
                <div class="table-wrap">
                    <table id="queue-traces-table">
                        <thead>
                            <HeaderRow lang=lang labels=&[Label::Offer, Label::QueueTraces] hidden=Label::Remove />
                        </thead>
                        <tbody>{attached.get().into_iter().map(row).collect_view()}</tbody>
                    </table>
                </div>
            }
            .into_any()
        }}
    }
}

/// What a queue trace holds: its file, starts, jobs left out, and the model fitted to it.
fn queue_trace_facts(lang: Lang, offer: &str, q: &QueueTrace) -> impl IntoView + use<> {
    let fitted = &q.fitted;
    let rows = vec![
        (Label::QueueTraceStarts, "starts", q.starts.to_string()),
        (
            Label::QueueTraceUnstarted,
            "unstarted",
            q.unstarted.to_string(),
        ),
        (Label::QueueTraceAtOnce, "p0", percent(fitted.p0)),
        (
            Label::QueueTraceMedian,
            "median",
            format::wait(lang, fitted.median_hours),
        ),
        (
            Label::QueueTraceSigma,
            "sigma",
            format!("{:.2}", fitted.sigma),
        ),
    ];
    crate::facts::fact_list(lang, "queue-trace-stats", offer, &q.name, rows)
}
