//! The quick workload estimator on the task form: pick a model and a method, read the VRAM
//! breakdown and the work, and copy them into the task. All figures come from
//! `gpufare_core::workload`.

use gpufare_core::scenario::document::Scenario;
use gpufare_core::workload::estimate::estimate;
use gpufare_core::workload::llm::arch::llm_presets;
use gpufare_core::workload::quick::{QuickLlm, QuickMethod};
use gpufare_core::workload::throughput::task_fields;
use gpufare_core::workload::types::WorkloadError;
use leptos::prelude::*;
use rust_decimal::Decimal;

use crate::fields::{Disclosure, NumField, lazy_view};
use crate::vocab::{Label, Lang, errors, model, t};

/// The estimator panel, closed at first; what it holds is in a chunk of the site fetched when it
/// is first opened.
#[component]
pub fn Estimator(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    view! {
        <Disclosure id="estimator" class="estimator" summary=Signal::derive(move || t(lang.get(), Label::Estimator).to_owned())>
            {move || lazy_view(lang, estimator_panel(lang, scenario))}
        </Disclosure>
    }
}

/// The estimator's content, from its chunk; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(estimator, wasm_split_path = ::leptos::wasm_split, fallible)]
fn estimator_panel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
) -> Result<ViewFn, leptos::wasm_split::SplitLoaderError> {
    Ok(ViewFn::from(move || {
        estimator_body(lang, scenario).into_any()
    }))
}

/// Model and method in, VRAM breakdown and work out, and the button that copies them into the task.
fn estimator_body(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    let input = RwSignal::new(QuickLlm {
        model: "llama-3-8b".to_owned(),
        method: QuickMethod::Qlora,
        tokens: 2048,
        batch: 1,
        training_tokens: 20_000_000.0,
    });
    let result = Memo::new(move |_| {
        let reference = scenario.with(|s| s.task.reference_gpu.clone());
        input.with(|q| {
            let w = q.workload()?;
            let m = estimate(&w)?;
            let f = task_fields(&w, &reference)?;
            Ok::<_, WorkloadError>((m, f))
        })
    });
    let whole = |v: Option<Decimal>| {
        v.and_then(|d| u32::try_from(d.trunc()).ok())
            .unwrap_or(1)
            .max(1)
    };
    view! {
            <div class="grid2">
                <div class="field">
                    <label for="est-model">{move || t(lang.get(), Label::EstModel)}</label>
                    <select id="est-model" on:change=move |ev| { let v = event_target_value(&ev); input.update(|q| q.model = v) }>
                        {llm_presets().iter().map(|a| {
                            let name = a.name.clone();
                            let selected = name == "llama-3-8b";
                            view! { <option value=name.clone() selected=selected>{name.clone()}</option> }
                        }).collect_view()}
                    </select>
                </div>
                <div class="field">
                    <label for="est-method">{move || t(lang.get(), Label::EstMethod)}</label>
                    <select id="est-method" on:change=move |ev| {
                        let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                        if let Some(m) = QuickMethod::ALL.get(i) { input.update(|q| q.method = *m) }
                    }>
                        {QuickMethod::ALL.iter().enumerate().map(|(i, m)| {
                            let m = *m;
                            view! { <option value=i.to_string() selected=m == QuickMethod::Qlora>{move || model::quick_method(lang.get(), m)}</option> }
                        }).collect_view()}
                    </select>
                </div>
                <NumField id="est-tokens" label=Signal::derive(move || t(lang.get(), Label::EstTokens).to_owned())
                    value=Signal::derive(move || Some(Decimal::from(input.with(|q| q.tokens))))
                    on_value=move |v| input.update(|q| q.tokens = whole(v)) max=Decimal::from(1_048_576) lang=lang />
                <NumField id="est-batch" label=Signal::derive(move || t(lang.get(), Label::EstBatch).to_owned())
                    value=Signal::derive(move || Some(Decimal::from(input.with(|q| q.batch))))
                    on_value=move |v| input.update(|q| q.batch = whole(v)) max=Decimal::from(4096) lang=lang />
                <NumField id="est-train-tokens" label=Signal::derive(move || t(lang.get(), Label::EstTrainTokens).to_owned())
                    value=Signal::derive(move || Some(crate::fields::d(input.with(|q| q.training_tokens))))
                    on_value=move |v| input.update(|q| q.training_tokens = crate::fields::f(v.unwrap_or_default())) max=Decimal::from(1_000_000_000_000i64) lang=lang />
            </div>
            {move || match result.get() {
                Err(e) => view! {
                    <p class="field-error" id="est-error" role="alert">{move || errors::workload_error(lang.get(), &e)}</p>
                }.into_any(),
                Ok((m, f)) => {
                    let parts = m.breakdown.components().into_iter().filter(|(_, v)| *v > 0.0).map(|(k, v)| view! {
                        <li>{move || format!("{}: {v:.2} GiB", model::memory_part(lang.get(), k))}</li>
                    }).collect_view();
                    view! {
                        <p id="est-vram"><strong>{format!("{:.1} GiB", m.vram_gib)}</strong>{move || format!(" {}", t(lang.get(), Label::EstVram))}</p>
                        <ul class="breakdown">{parts}</ul>
                        <p id="est-work">{
                            let (hours, gpu) = (f.work_hours, f.reference_gpu.clone());
                            move || {
                                let lang = lang.get();
                                let (label, h) = (t(lang, Label::WorkHours), crate::format::hours(lang, hours));
                                match lang {
                                    Lang::En => format!("{label}: {h} ({gpu})"),
                                    Lang::Zh => format!("{label}：{h}（{gpu}）"),
                                }
                            }
                        }</p>
                        <button type="button" id="est-apply" on:click=move |_| scenario.update(|s| { f.apply_to(&mut s.task); s.preset = None; })>
                            {move || t(lang.get(), Label::EstApply)}
                        </button>
                    }.into_any()
                }
            }}
    }
}
