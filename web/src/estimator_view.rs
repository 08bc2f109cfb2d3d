//! The quick workload estimator on the task form: pick a model (dense, mixture of experts, latent
//! or sliding-window attention), a method, the KV cache precision, the LoRA targets and the GPUs;
//! read the VRAM breakdown, the parameters, the work and, when no single card holds the model,
//! the smallest multi-GPU machine that does; copy the figures into the task. All figures come
//! from `gpufare_core::workload`.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::feasibility::VramFit;
use gpufare_core::scenario::document::Scenario;
use gpufare_core::workload::estimate::estimate;
use gpufare_core::workload::fit::fit_catalog;
use gpufare_core::workload::llm::arch::{KvPrecision, LoraTargets, find_llm_preset, llm_presets};
use gpufare_core::workload::quick::{QuickLlm, QuickMethod};
use gpufare_core::workload::report::{MachineFit, smallest_machine};
use gpufare_core::workload::throughput::task_fields;
use gpufare_core::workload::types::WorkloadError;
use leptos::prelude::*;
use rust_decimal::Decimal;

use crate::fields::{CheckField, Disclosure, NumField, lazy_view};
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
    let input = RwSignal::new(QuickLlm::new("llama-3-8b"));
    let result = Memo::new(move |_| {
        let reference = scenario.with(|s| s.task.reference_gpu.clone());
        input.with(|q| {
            let w = q.workload()?;
            let m = estimate(&w)?;
            let f = task_fields(&w, &reference)?;
            Ok::<_, WorkloadError>((m, f))
        })
    });
    // When one GPU is asked for and no single card of the default catalog holds the model: the
    // smallest multi-GPU machine that does, with the model spread over all its GPUs.
    let machine = Memo::new(move |_| {
        input.with(|q| {
            let w = q.workload().ok()?;
            let m = estimate(&w).ok()?;
            let one_card = fit_catalog(m.vram_gib, m.gpus, default_catalog())
                .smallest_dedicated
                .is_some_and(|o| o.fit == VramFit::Fits);
            if m.gpus > 1 || one_card {
                return None;
            }
            smallest_machine(&w, default_catalog())
        })
    });
    let arch = Memo::new(move |_| input.with(|q| find_llm_preset(&q.model).ok().cloned()));
    let is_moe = Memo::new(move |_| arch.with(|a| a.as_ref().is_some_and(|a| a.moe.is_some())));
    let trains = Memo::new(move |_| input.with(|q| q.method.trains()));
    let adapters = Memo::new(move |_| {
        input.with(|q| matches!(q.method, QuickMethod::Qlora | QuickMethod::Lora))
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
                <div class="field">
                    <label for="est-kv">{move || t(lang.get(), Label::EstKvCache)}</label>
                    <select id="est-kv" prop:disabled=move || trains.get() on:change=move |ev| {
                        let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                        if let Some(kv) = KvPrecision::ALL.get(i) { input.update(|q| q.kv_cache = *kv) }
                    }>
                        {KvPrecision::ALL.iter().enumerate().map(|(i, kv)| {
                            let kv = *kv;
                            view! { <option value=i.to_string() selected=kv == KvPrecision::Fp16>{move || model::kv_precision(lang.get(), kv)}</option> }
                        }).collect_view()}
                    </select>
                </div>
                <div class="field">
                    <label for="est-targets">{move || t(lang.get(), Label::EstTargets)}</label>
                    <select id="est-targets" prop:disabled=move || !adapters.get() on:change=move |ev| {
                        let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                        if let Some(targets) = TARGETS.get(i) { input.update(|q| q.targets = *targets) }
                    }>
                        {TARGETS.iter().enumerate().map(|(i, targets)| {
                            let targets = *targets;
                            view! { <option value=i.to_string() selected=targets == LoraTargets::All>{move || model::lora_targets(lang.get(), targets)}</option> }
                        }).collect_view()}
                    </select>
                </div>
                <NumField id="est-gpus" label=Signal::derive(move || t(lang.get(), Label::EstGpus).to_owned())
                    value=Signal::derive(move || Some(Decimal::from(input.with(|q| q.gpus))))
                    on_value=move |v| input.update(|q| q.gpus = whole(v)) max=Decimal::from(4096) whole=true lang=lang />
                {move || is_moe.get().then(|| view! {
                    <CheckField id="est-ep" label=Signal::derive(move || t(lang.get(), Label::EstExpertParallel))
                        value=Signal::derive(move || input.with(|q| q.expert_parallel))
                        on_value=move |on| input.update(|q| q.expert_parallel = on) />
                })}
            </div>
            <p id="est-arch" class="note">{move || {
                let lang = lang.get();
                arch.with(|a| a.as_ref().map(|a| {
                    let p = a.parameters();
                    let features = model::arch_features(lang, a);
                    let count = model::parameter_count(lang, p.total, p.active);
                    if features.is_empty() {
                        count
                    } else {
                        match lang {
                            Lang::En => format!("{count}; {features}"),
                            Lang::Zh => format!("{count}；{features}"),
                        }
                    }
                }).unwrap_or_default())
            }}</p>
            {move || match result.get() {
                Err(e) => view! {
                    <p class="field-error" id="est-error" role="alert">{move || errors::workload_error(lang.get(), &e)}</p>
                }.into_any(),
                Ok((m, f)) => {
                    let parts = m.breakdown.components().into_iter().filter(|(_, v)| *v > 0.0).map(|(k, v)| view! {
                        <li>{move || format!("{}: {v:.2} GiB", model::memory_part(lang.get(), k))}</li>
                    }).collect_view();
                    view! {
                        <p id="est-vram" data-gib=m.vram_gib.to_string()><strong>{format!("{:.1} GiB", m.vram_gib)}</strong>{move || format!(" {}", t(lang.get(), Label::EstVram))}</p>
                        <ul class="breakdown">{parts}</ul>
                        {move || machine.get().map(|mf| {
                            let (gpus, offer) = (mf.gpus.to_string(), mf.offer.offer_id.clone());
                            view! {
                                <p id="est-machine" data-gpus=gpus data-offer=offer>{move || machine_line(lang.get(), &mf)}</p>
                            }
                        })}
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

/// The LoRA targets the estimator offers, in the order of its list.
const TARGETS: [LoraTargets; 4] = [
    LoraTargets::All,
    LoraTargets::Attention,
    LoraTargets::Mlp,
    LoraTargets::Qv,
];

/// "No single card holds it; smallest multi-GPU machine: 8 × H20 (96.0 GiB each), 79.7 GiB per
/// GPU, offer …".
fn machine_line(lang: Lang, m: &MachineFit) -> String {
    let o = &m.offer;
    let label = t(lang, Label::EstMachine);
    let fit = model::vram_fit(lang, o.fit);
    match lang {
        Lang::En => format!(
            "{label}: {} × {} ({:.0} GiB each), {:.1} GiB per GPU ({fit}), offer {}",
            m.gpus, o.gpu, o.vram_gib, m.need_gib, o.offer_id
        ),
        Lang::Zh => format!(
            "{label}：{} × {}（每卡 {:.0} GiB），每卡需 {:.1} GiB（{fit}），方案 {}",
            m.gpus, o.gpu, o.vram_gib, m.need_gib, o.offer_id
        ),
    }
}
