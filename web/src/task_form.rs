//! The task and settings form. Every field writes straight into the scenario; core checks it.

use gpufare_core::Currency;
use gpufare_core::hardware::gpu::gpu_specs;
use gpufare_core::scenario::document::Scenario;
use gpufare_core::task::document::{
    Bound, DEFAULT_BASE_LATENCY_MS, DEFAULT_DATA_PARALLEL_STEPS, DEFAULT_RESTART_HOURS,
    DEFAULT_SERVICE_MONTHS, MAX_TENSOR_PARALLEL, Sensitivity, TaskKind,
};
use gpufare_core::task::policy::{MAX_FALLBACK_AFTER, Policy};
use gpufare_core::task::presets::{PRESET_IDS, preset};
use leptos::prelude::*;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use crate::fields::{CheckField, NumField, d, f};
use crate::vocab::{Label, Lang, model, t};

/// Fields holding money in the task's currency; their labels name it.
const MONEY_KEYS: [Label; 3] = [Label::Penalty, Label::ValueOfTime, Label::Budget];

type Getter = fn(&Scenario) -> Option<Decimal>;
type Setter = fn(&mut Scenario, Option<Decimal>);

/// One numeric field of the scenario, by getter and setter. (Eight plain arguments read better
/// at the forty call sites than a builder would.)
#[allow(clippy::too_many_arguments)]
fn num(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    id: &'static str,
    key: Label,
    max: i64,
    optional: bool,
    get: Getter,
    set: Setter,
) -> impl IntoView {
    view! {
        <NumField
            id=id
            label=Signal::derive(move || {
                let text = t(lang.get(), key);
                if MONEY_KEYS.contains(&key) {
                    format!("{text} ({})", scenario.with(|s| s.task.currency.code()))
                } else {
                    text.to_owned()
                }
            })
            value=Signal::derive(move || scenario.with(get))
            on_value=move |v| scenario.update(|s| set(s, v))
            max=Decimal::from(max)
            optional=optional
            lang=lang
        />
    }
}

/// The preset picker.
#[component]
pub fn PresetPicker(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    view! {
        <div class="field">
            <label for="preset">{move || t(lang.get(), Label::Preset)}</label>
            <select
                id="preset"
                on:change=move |ev| {
                    let id = event_target_value(&ev);
                    if let Some(task) = preset(&id) {
                        scenario.update(|s| {
                            // Where the user is and what they can buy stay: they are not the task's.
                            let reach = std::mem::take(&mut s.task.reach);
                            s.task = task;
                            s.task.reach = reach;
                            s.preset = Some(id.clone());
                        });
                    }
                }
            >
                {PRESET_IDS
                    .into_iter()
                    .map(|id| {
                        view! {
                            <option value=id selected=move || scenario.with(|s| s.preset.as_deref() == Some(id))>
                                {move || crate::vocab::model::preset_name(lang.get(), id)}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
            <span class="hint">{move || t(lang.get(), Label::PresetHint)}</span>
        </div>
    }
}

/// The task form.
#[component]
pub fn TaskForm(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    /// Shown under the preset picker (the page passes the workload estimator).
    children: Children,
) -> impl IntoView {
    let is_inference = move || scenario.with(|s| s.task.kind == TaskKind::Inference);
    view! {
        <section aria-labelledby="task-heading" class="card">
            <h2 id="task-heading">{move || t(lang.get(), Label::Task)}</h2>
            <PresetPicker lang=lang scenario=scenario />
            {children()}
            <div class="field">
                <label for="kind">{move || t(lang.get(), Label::Kind)}</label>
                <select
                    id="kind"
                    on:change=move |ev| {
                        let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                        if let Some(k) = TaskKind::ALL.get(i) {
                            scenario.update(|s| s.task.kind = *k);
                        }
                    }
                >
                    {TaskKind::ALL
                        .iter()
                        .enumerate()
                        .map(|(i, k)| {
                            let k = *k;
                            view! {
                                <option value=i.to_string() selected=move || scenario.with(|s| s.task.kind == k)>
                                    {move || model::kind(lang.get(), k)}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </div>
            <div class="grid2">
                {num(lang, scenario, "work-hours", Label::WorkHours, 1_000_000, false,
                    |s| Some(d(s.task.work_hours)), |s, v| s.task.work_hours = f(v.unwrap_or_default()))}
                <div class="field">
                    <label for="reference-gpu">{move || t(lang.get(), Label::ReferenceGpu)}</label>
                    <select
                        id="reference-gpu"
                        on:change=move |ev| {
                            let g = event_target_value(&ev);
                            scenario.update(|s| s.task.reference_gpu = g);
                        }
                    >
                        {gpu_specs()
                            .iter()
                            .map(|g| {
                                let short = g.short.clone();
                                let value = short.clone();
                                view! {
                                    <option value=value selected=move || scenario.with(|s| s.task.reference_gpu == short)>
                                        {g.short.clone()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </div>
                {num(lang, scenario, "runs", Label::Runs, 10_000, false,
                    |s| Some(Decimal::from(s.task.runs)), |s, v| s.task.runs = u32::try_from(v.unwrap_or(Decimal::ONE).trunc()).unwrap_or(1).max(1))}
                {num(lang, scenario, "vram", Label::Vram, 100_000, false,
                    |s| Some(d(s.task.vram_gib)), |s, v| s.task.vram_gib = f(v.unwrap_or_default()))}
                {num(lang, scenario, "gpus", Label::Gpus, 1024, false,
                    |s| Some(Decimal::from(s.task.gpus)), |s, v| s.task.gpus = u32::try_from(v.unwrap_or(Decimal::ONE).trunc()).unwrap_or(1).max(1))}
                <div class="field">
                    <label for="bound">{move || t(lang.get(), Label::Bound)}</label>
                    <select
                        id="bound"
                        on:change=move |ev| {
                            let memory = event_target_value(&ev) == "memory";
                            scenario.update(|s| s.task.bound = if memory { Bound::Memory } else { Bound::Compute });
                        }
                    >
                        <option value="compute" selected=move || scenario.with(|s| s.task.bound == Bound::Compute)>
                            {move || t(lang.get(), Label::BoundCompute)}
                        </option>
                        <option value="memory" selected=move || scenario.with(|s| s.task.bound == Bound::Memory)>
                            {move || t(lang.get(), Label::BoundMemory)}
                        </option>
                    </select>
                </div>
            </div>
            <CheckField
                id="scales"
                label=Signal::derive(move || t(lang.get(), Label::Scales))
                value=Signal::derive(move || scenario.with(|s| s.task.scales_across_gpus))
                on_value=move |v| scenario.update(|s| s.task.scales_across_gpus = v)
            />
            <Show when=move || scenario.with(|s| s.task.scales_across_gpus && s.task.gpus > 1)>
                <DataParallelFields lang=lang scenario=scenario />
            </Show>
            <div class="grid2">
                {num(lang, scenario, "deadline", Label::Deadline, 1_000_000, true,
                    |s| s.task.deadline_hours.map(d), |s, v| s.task.deadline_hours = v.map(f))}
                {num(lang, scenario, "penalty", Label::Penalty, 1_000_000_000, true,
                    |s| s.task.deadline_penalty, |s, v| s.task.deadline_penalty = v)}
            </div>
            <CheckField
                id="hard-deadline"
                label=Signal::derive(move || t(lang.get(), Label::HardDeadline))
                value=Signal::derive(move || scenario.with(|s| s.task.deadline_hard))
                on_value=move |v| scenario.update(|s| s.task.deadline_hard = v)
            />
            <Show when=is_inference>
                <div class="grid2">
                    {num(lang, scenario, "latency-target", Label::LatencyTarget, 3_600_000, true,
                        |s| s.task.latency.map(|l| d(l.p99_ms)),
                        |s, v| s.task.set_latency_target(v.map(f)))}
                    {num(lang, scenario, "latency-base", Label::LatencyBase, 3_600_000, false,
                        |s| Some(d(s.task.latency.map_or(DEFAULT_BASE_LATENCY_MS, |l| l.base_ms))),
                        |s, v| if let Some(l) = &mut s.task.latency { l.base_ms = f(v.unwrap_or_default()) })}
                    {num(lang, scenario, "service-hours", Label::ServiceHours, 730, true,
                        |s| s.task.service.map(|x| d(x.hours_per_month)),
                        |s, v| s.task.set_service_hours(v.map(f)))}
                    {num(lang, scenario, "service-months", Label::ServiceMonths, 1200, false,
                        |s| Some(d(s.task.service.map_or(DEFAULT_SERVICE_MONTHS, |x| x.months))),
                        |s, v| if let Some(x) = &mut s.task.service { x.months = f(v.unwrap_or_default()) })}
                </div>
            </Show>
            <div class="neighbour-load">
                {num(lang, scenario, "neighbour-load", Label::NeighbourLoad, 1, true,
                    |s| s.task.neighbour_load.map(d), |s, v| s.task.neighbour_load = v.map(f))}
                <p class="hint" id="neighbour-load-hint">{move || t(lang.get(), Label::NeighbourLoadHint)}</p>
            </div>
            <div class="field">
                <label for="sensitivity">{move || t(lang.get(), Label::Sensitivity)}</label>
                <select
                    id="sensitivity"
                    on:change=move |ev| {
                        let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                        if let Some(v) = Sensitivity::ALL.get(i) {
                            scenario.update(|s| s.task.sensitivity = *v);
                        }
                    }
                >
                    {Sensitivity::ALL
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            let v = *v;
                            view! {
                                <option value=i.to_string() selected=move || scenario.with(|s| s.task.sensitivity == v)>
                                    {move || model::sensitivity(lang.get(), v)}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </div>
            <CheckField
                id="interruptible"
                label=Signal::derive(move || t(lang.get(), Label::Interruptible))
                value=Signal::derive(move || scenario.with(|s| s.task.interruptible))
                on_value=move |v| scenario.update(|s| s.task.interruptible = v)
            />
            <Show when=move || scenario.with(|s| s.task.interruptible)>
                <PolicyField lang=lang scenario=scenario />
            </Show>
            <div class="grid2">
                {num(lang, scenario, "checkpoint", Label::Checkpoint, 1_000_000, true,
                    |s| s.task.checkpoint.map(|c| d(c.interval_hours)),
                    |s, v| s.task.set_checkpoint_interval(v.map(f)))}
                {num(lang, scenario, "restart", Label::Restart, 10_000, false,
                    |s| Some(d(s.task.checkpoint.map_or(DEFAULT_RESTART_HOURS, |c| c.restart_overhead_hours))),
                    |s, v| if let Some(c) = &mut s.task.checkpoint { c.restart_overhead_hours = f(v.unwrap_or_default()) })}
                {num(lang, scenario, "checkpoint-save", Label::CheckpointSave, 600_000, true,
                    |s| s.task.checkpoint.and_then(|c| c.save_minutes).map(d),
                    |s, v| if let Some(c) = &mut s.task.checkpoint { c.save_minutes = v.map(f) })}
                {num(lang, scenario, "max-queue", Label::MaxQueue, 1_000_000, true,
                    |s| s.task.max_queue_hours.map(d), |s, v| s.task.max_queue_hours = v.map(f))}
                {num(lang, scenario, "value-of-time", Label::ValueOfTime, 1_000_000_000, false,
                    |s| Some(s.task.value_of_time_per_hour), |s, v| s.task.value_of_time_per_hour = v.unwrap_or_default())}
                {num(lang, scenario, "budget", Label::Budget, 1_000_000_000, true,
                    |s| s.task.budget, |s, v| s.task.budget = v)}
                {num(lang, scenario, "prototype", Label::Prototype, 1_000_000, true,
                    |s| s.task.prototype.map(|p| d(p.hours)), |s, v| s.task.set_prototype_hours(v.map(f)))}
                {num(lang, scenario, "storage-gb", Label::StorageGb, 1_000_000_000, false,
                    |s| Some(d(s.task.storage_gb)), |s, v| s.task.storage_gb = f(v.unwrap_or_default()))}
                {num(lang, scenario, "storage-months", Label::StorageMonths, 1_200, false,
                    |s| Some(d(s.task.storage_months)), |s, v| s.task.storage_months = f(v.unwrap_or_default()))}
                {num(lang, scenario, "egress-gb", Label::EgressGb, 1_000_000_000, false,
                    |s| Some(d(s.task.egress_gb)), |s, v| s.task.egress_gb = f(v.unwrap_or_default()))}
                {num(lang, scenario, "data-read-gb", Label::DataReadGb, 1_000_000_000, true,
                    |s| s.task.data_read_gb.map(d), |s, v| s.task.data_read_gb = v.map(f))}
                {num(lang, scenario, "data-download-gb", Label::DataDownloadGb, 1_000_000_000, true,
                    |s| s.task.data_download_gb.map(d), |s, v| s.task.data_download_gb = v.map(f))}
            </div>
        </section>
    }
}

/// How a multi-GPU run exchanges data each step: the model's size turns the link model on; the
/// rest refines it.
#[component]
fn DataParallelFields(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    let on = move || scenario.with(|s| s.task.data_parallel.is_some());
    let tensor = move || {
        scenario.with(|s| {
            s.task
                .data_parallel
                .is_some_and(|p| p.tensor_parallel.is_some_and(|t| t > 1))
        })
    };
    view! {
        <div class="data-parallel" id="data-parallel">
            <div class="grid2">
                {num(lang, scenario, "dp-params", Label::DpParams, 100_000, true,
                    |s| s.task.data_parallel.map(|p| d(p.params_b)),
                    |s, v| s.task.set_data_parallel_params(v.map(f)))}
                <Show when=on>
                    {num(lang, scenario, "dp-trainable", Label::DpTrainable, 100_000, true,
                        |s| s.task.data_parallel.and_then(|p| p.trainable_params_b).map(d),
                        |s, v| if let Some(p) = &mut s.task.data_parallel { p.trainable_params_b = v.map(f) })}
                    {num(lang, scenario, "dp-steps", Label::DpSteps, 1_000_000_000, false,
                        |s| Some(Decimal::from(s.task.data_parallel.map_or(DEFAULT_DATA_PARALLEL_STEPS, |p| p.steps))),
                        |s, v| if let Some(p) = &mut s.task.data_parallel {
                            p.steps = u64::try_from(v.unwrap_or(Decimal::ONE).trunc()).unwrap_or(1).max(1)
                        })}
                    {num(lang, scenario, "dp-overlap", Label::DpOverlap, 1, true,
                        |s| s.task.data_parallel.and_then(|p| p.overlap).map(d),
                        |s, v| if let Some(p) = &mut s.task.data_parallel { p.overlap = v.map(f) })}
                    {num(lang, scenario, "dp-tensor-parallel", Label::DpTensorParallel, i64::from(MAX_TENSOR_PARALLEL), true,
                        |s| s.task.data_parallel.and_then(|p| p.tensor_parallel).map(Decimal::from),
                        |s, v| if let Some(p) = &mut s.task.data_parallel {
                            p.tensor_parallel = v.and_then(|v| v.trunc().to_u32()).filter(|t| *t > 1)
                        })}
                </Show>
                <Show when=tensor>
                    {num(lang, scenario, "dp-hidden", Label::DpHidden, 1_000_000, true,
                        |s| s.task.data_parallel.and_then(|p| p.hidden).map(Decimal::from),
                        |s, v| if let Some(p) = &mut s.task.data_parallel { p.hidden = v.and_then(|v| v.trunc().to_u32()) })}
                    {num(lang, scenario, "dp-layers", Label::DpLayers, 10_000, true,
                        |s| s.task.data_parallel.and_then(|p| p.layers).map(Decimal::from),
                        |s, v| if let Some(p) = &mut s.task.data_parallel { p.layers = v.and_then(|v| v.trunc().to_u32()) })}
                    {num(lang, scenario, "dp-tokens", Label::DpTokens, 1_000_000_000_000, true,
                        |s| s.task.data_parallel.and_then(|p| p.tokens_per_step).map(d),
                        |s, v| if let Some(p) = &mut s.task.data_parallel { p.tokens_per_step = v.map(f) })}
                </Show>
            </div>
            <Show when=on>
                <CheckField
                    id="dp-sharded"
                    label=Signal::derive(move || t(lang.get(), Label::DpSharded))
                    value=Signal::derive(move || scenario.with(|s| s.task.data_parallel.is_some_and(|p| p.sharded)))
                    on_value=move |v| scenario.update(|s| if let Some(p) = &mut s.task.data_parallel { p.sharded = v })
                />
            </Show>
            <p class="hint" id="dp-hint">{move || t(lang.get(), Label::DpHint)}</p>
        </div>
    }
}

/// What to do on interruptible offers: core's choice (the cheapest policy that finishes) or one
/// fixed policy, with the number of preemptions before moving to on-demand.
#[component]
fn PolicyField(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    const DEFAULT_AFTER: u32 = 2;
    let kind = move || {
        scenario.with(|s| match s.task.spot_policy {
            None => "auto",
            Some(Policy::SpotOnly) => "spot_only",
            Some(Policy::FallbackAfter { .. }) => "fallback_after",
            Some(Policy::DeadlineAware) => "deadline_aware",
            Some(Policy::OnDemandOnly) => "on_demand_only",
        })
    };
    let choices = [
        ("auto", Label::PolicyAuto),
        ("spot_only", Label::PolicySpotOnly),
        ("fallback_after", Label::PolicyFallback),
        ("deadline_aware", Label::PolicyDeadline),
        ("on_demand_only", Label::PolicyOnDemand),
    ];
    view! {
        <div class="grid2">
            <div class="field">
                <label for="spot-policy">{move || t(lang.get(), Label::SpotPolicy)}</label>
                <select
                    id="spot-policy"
                    aria-describedby="spot-policy-hint"
                    on:change=move |ev| {
                        let policy = match event_target_value(&ev).as_str() {
                            "spot_only" => Some(Policy::SpotOnly),
                            "fallback_after" => Some(Policy::FallbackAfter { preemptions: DEFAULT_AFTER }),
                            "deadline_aware" => Some(Policy::DeadlineAware),
                            "on_demand_only" => Some(Policy::OnDemandOnly),
                            _ => None,
                        };
                        scenario.update(|s| s.task.spot_policy = policy);
                    }
                >
                    {choices
                        .into_iter()
                        .map(|(value, label)| view! {
                            <option value=value selected=move || kind() == value>{move || t(lang.get(), label)}</option>
                        })
                        .collect_view()}
                </select>
                <span class="hint" id="spot-policy-hint">{move || t(lang.get(), Label::PolicyHint)}</span>
            </div>
            <Show when=move || kind() == "fallback_after">
                <NumField
                    id="fallback-after"
                    label=Signal::derive(move || t(lang.get(), Label::FallbackAfter).to_owned())
                    value=Signal::derive(move || scenario.with(|s| match s.task.spot_policy {
                        Some(Policy::FallbackAfter { preemptions }) => Some(Decimal::from(preemptions)),
                        _ => None,
                    }))
                    on_value=move |v| {
                        if let Some(n) = v.and_then(|n| u32::try_from(n).ok()) {
                            scenario.update(|s| s.task.spot_policy = Some(Policy::FallbackAfter { preemptions: n }));
                        }
                    }
                    max=Decimal::from(MAX_FALLBACK_AFTER)
                    whole=true
                    min=Decimal::ONE
                    lang=lang
                />
            </Show>
        </div>
    }
}

/// Currency, exchange rate and Monte Carlo settings.
#[component]
pub fn SettingsForm(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    view! {
        <section aria-labelledby="settings-heading" class="card">
            <h2 id="settings-heading">{move || t(lang.get(), Label::Settings)}</h2>
            <div class="grid2">
                <div class="field">
                    <label for="out-currency">{move || t(lang.get(), Label::Currency)}</label>
                    <select
                        id="out-currency"
                        on:change=move |ev| {
                            if let Some(c) = Currency::from_code(&event_target_value(&ev)) {
                                scenario.update(|s| s.switch_currency(c));
                            }
                        }
                    >
                        {Currency::ALL
                            .into_iter()
                            .map(|c| {
                                view! {
                                    <option value=c.code() selected=move || scenario.with(|s| s.settings.currency == c)>
                                        {c.code()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </div>
                {num(lang, scenario, "rate", Label::Rate, 1000, false,
                    |s| Some(s.settings.cny_per_usd), |s, v| if let Some(r) = v.filter(|r| !r.is_zero()) { s.settings.cny_per_usd = r })}
                {num(lang, scenario, "seed", Label::Seed, 1_000_000_000, false,
                    |s| Some(Decimal::from(s.settings.seed)), |s, v| s.settings.seed = u64::try_from(v.unwrap_or_default().trunc()).unwrap_or(1))}
                {num(lang, scenario, "trials", Label::Trials, 100_000, false,
                    |s| Some(Decimal::from(s.settings.trials)), |s, v| s.settings.trials = u32::try_from(v.unwrap_or_default().trunc()).unwrap_or(1).max(1))}
            </div>
        </section>
    }
}
