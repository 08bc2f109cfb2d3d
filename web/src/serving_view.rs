//! A service priced from its traffic (issue 33): the traffic editor of the task form and the
//! deployments panel of the results.
//!
//! The editor is shown for a service (`task.service`): it turns the model and traffic on
//! (`task.serving`), picks the model among core's LLM presets and the traffic's shape among
//! core's presets with its mean rate, takes the hourly rates typed or pasted (one per line, or
//! `hour,rps`, read by core's `parse_traffic_csv`, whose refusals are worded naming the line and
//! the column), the request sizes and the latency targets. Every edit goes into the scenario, so
//! the plan, the share link and the exports follow.
//!
//! The panel prices the deployments with `gpufare_core::serving::service::plan_service` on the
//! plan shown (the same call the budget makes): the deployment chosen and why, worded in the
//! reader's language from the choice's figures; the deployments of the first offers of the
//! ranking; the replicas over the day on the chosen offer. Both live in a chunk of the site
//! fetched the first time a task is a service.

use gpufare_core::Currency;
use gpufare_core::numbers::problem::Problem;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::scenario::document::Scenario;
use gpufare_core::serving::deploy::{Deployment, DeploymentKind};
use gpufare_core::serving::replica::MAX_GPUS_PER_REPLICA;
use gpufare_core::serving::service::{ServiceChoice, ServicePlan, plan_service};
use gpufare_core::task::document::ServingSpec;
use gpufare_core::task::traffic::{
    MAX_RPS, TRAFFIC_PRESETS, Traffic, TrafficError, parse_traffic_csv, steady_api, traffic_preset,
};
use gpufare_core::workload::llm::arch::{Precision, llm_presets};
use leptos::prelude::*;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use crate::charts::policy_colour;
use crate::fields::{CheckField, NumField, d, f, lazy_view};
use crate::format;
use crate::planner::Planned;
use crate::vocab::{Label, Lang, errors, model, pick, t};

/// Offers of the ranking whose deployments the table lists.
const TABLE_OFFERS: usize = 3;
/// The name a curve of the user's own gets.
const CUSTOM: &str = "custom";

// ---------------------------------------------------------------------------------------------
// The traffic editor.

/// The traffic editor: a card of the task column, shown while the task is a service.
#[component]
pub fn TrafficEditor(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    let is_service = Memo::new(move |_| scenario.with(|s| s.task.service.is_some()));
    move || {
        is_service.get().then(|| {
            view! {
                <section id="serving-editor" class="card serving-editor" aria-labelledby="serving-editor-heading">
                    <h2 id="serving-editor-heading">{move || t(lang.get(), Label::ServingEditor)}</h2>
                    {lazy_view(lang, traffic_editor(lang, scenario))}
                </section>
            }
        })
    }
}

/// The editor's content, from its chunk; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(serving, wasm_split_path = ::leptos::wasm_split, fallible)]
fn traffic_editor(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
) -> Result<ViewFn, leptos::wasm_split::SplitLoaderError> {
    Ok(ViewFn::from(move || editor_body(lang, scenario).into_any()))
}

/// The model and traffic a service starts from: the `inference_api` preset's.
fn default_spec() -> ServingSpec {
    gpufare_core::task::presets::preset("inference_api")
        .and_then(|t| t.serving)
        .unwrap_or_else(|| ServingSpec {
            model: "llama-3.1-8b".to_owned(),
            weights: None,
            gpus_per_replica: None,
            traffic: steady_api(0.2),
        })
}

/// Changes the service's model and traffic, when it has them.
fn update_spec(scenario: RwSignal<Scenario>, change: impl FnOnce(&mut ServingSpec)) {
    scenario.update(|s| {
        if let Some(spec) = &mut s.task.serving {
            change(spec);
        }
    });
}

/// Two curves equal to the precision the editor shows them in.
fn same_curve(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0))
}

/// A curve as the editor shows it: one rate per line.
fn curve_text(curve: &[f64]) -> String {
    curve
        .iter()
        .map(|v| crate::fields::show(Some(d(*v))))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `traffic`'s curve scaled to average `mean`: a preset's shape anew, a curve of the user's own
/// scaled; `None` when an hour would go past what core accepts.
fn curve_with_mean(traffic: &Traffic, mean: f64) -> Option<Vec<f64>> {
    let curve = if TRAFFIC_PRESETS.contains(&traffic.name.as_str()) {
        traffic_preset(&traffic.name, mean).ok()?.rps_by_hour
    } else {
        traffic.scaled_to_mean(mean).rps_by_hour
    };
    curve
        .iter()
        .all(|v| v.is_finite() && *v >= 0.0 && *v <= MAX_RPS)
        .then_some(curve)
}

/// Words why a pasted curve was refused: the line (when there is one), the column and what is
/// wrong with it.
pub fn traffic_error(lang: Lang, e: &TrafficError) -> String {
    let (line, error) = match e {
        TrafficError::Line { line, error } => (Some(*line), error),
        TrafficError::Field(error) => (None, error),
    };
    let what = match &error.problem {
        // Core names the count of rows in English ("25 values"): worded here from its number.
        Problem::NotOneOf { value, .. }
            if matches!(error.field.as_str(), "rps" | "rps_by_hour") =>
        {
            let n = value.split_whitespace().next().unwrap_or_default();
            t(lang, Label::TrafficRowCount).replace("{n}", n)
        }
        // A value that must be exactly one thing (the next hour, the first row's columns).
        Problem::OutOfRange { min, max } if min == max => format!(
            "{}{}{}",
            errors::field(lang, &error.field),
            pick(lang, ": ", "："),
            t(lang, Label::TrafficMustBe).replace("{n}", &format::number(*min, 6))
        ),
        _ => errors::field_error(lang, error),
    };
    match line {
        Some(n) => format!(
            "{}{what}",
            t(lang, Label::LineNumber).replace("{n}", &n.to_string())
        ),
        None => what,
    }
}

/// One number of the traffic, bound to the scenario.
#[allow(clippy::too_many_arguments)]
fn traffic_num(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    id: &'static str,
    label: Label,
    min: Decimal,
    max: i64,
    get: fn(&Traffic) -> f64,
    set: fn(&mut Traffic, f64),
) -> impl IntoView {
    let on_value = move |v: Option<Decimal>| {
        if let Some(v) = v {
            update_spec(scenario, |sv| set(&mut sv.traffic, f(v)));
        }
    };
    view! {
        <NumField
            id=id
            label=Signal::derive(move || t(lang.get(), label).to_owned())
            value=Signal::derive(move || scenario.with(|s| s.task.serving.as_ref().map(|sv| d(get(&sv.traffic)))))
            on_value=on_value
            max=Decimal::from(max)
            min=min
            lang=lang
        />
    }
}

fn editor_body(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    let has_spec = Memo::new(move |_| scenario.with(|s| s.task.serving.is_some()));
    view! {
        <CheckField
            id="serving-on"
            label=Signal::derive(move || t(lang.get(), Label::ServingOn))
            value=Signal::derive(move || has_spec.get())
            on_value=move |on| scenario.update(|s| s.task.serving = on.then(default_spec))
        />
        <Show when=move || has_spec.get()>
            <TrafficFields lang=lang scenario=scenario />
        </Show>
    }
}

/// The fields of the model and traffic.
#[component]
fn TrafficFields(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    let model_id = Memo::new(move |_| {
        scenario.with(|s| {
            s.task
                .serving
                .as_ref()
                .map(|sv| sv.model.clone())
                .unwrap_or_default()
        })
    });
    let shape = Memo::new(move |_| {
        scenario.with(|s| {
            s.task
                .serving
                .as_ref()
                .map(|sv| sv.traffic.name.clone())
                .unwrap_or_default()
        })
    });
    let is_preset = move || shape.with(|n| TRAFFIC_PRESETS.contains(&n.as_str()));
    let curve = Memo::new(move |_| {
        scenario.with(|s| {
            s.task
                .serving
                .as_ref()
                .map(|sv| sv.traffic.rps_by_hour.clone())
                .unwrap_or_default()
        })
    });
    // What is typed in the curve's box, and why it was refused (the curve keeps its last good
    // value meanwhile).
    let text = RwSignal::new(curve_text(&curve.get_untracked()));
    let refused = RwSignal::new(None::<TrafficError>);
    Effect::new(move |_| {
        let now = curve.get();
        let typed = parse_traffic_csv(CUSTOM, &text.get_untracked()).ok();
        if !typed.is_some_and(|t| same_curve(&t.rps_by_hour, &now)) {
            text.set(curve_text(&now));
            refused.set(None);
        }
    });
    let on_curve = move |ev: leptos::ev::Event| {
        let typed = event_target_value(&ev);
        text.set(typed.clone());
        match parse_traffic_csv(CUSTOM, &typed) {
            Ok(read) => {
                refused.set(None);
                let changed = curve.with_untracked(|c| !same_curve(c, &read.rps_by_hour));
                if changed {
                    update_spec(scenario, |sv| {
                        sv.traffic.rps_by_hour = read.rps_by_hour;
                        sv.traffic.name = CUSTOM.to_owned();
                    });
                }
            }
            Err(e) => refused.set(Some(e)),
        }
    };
    let on_mean = move |v: Option<Decimal>| {
        let Some(mean) = v.map(f) else { return };
        let next = scenario.with_untracked(|s| {
            s.task
                .serving
                .as_ref()
                .and_then(|sv| curve_with_mean(&sv.traffic, mean))
        });
        if let Some(next) = next {
            update_spec(scenario, |sv| sv.traffic.rps_by_hour = next);
        }
    };
    let models = move || {
        let current = model_id.get();
        let mut names: Vec<String> = llm_presets().iter().map(|a| a.name.clone()).collect();
        if !current.is_empty() && !names.iter().any(|n| n.eq_ignore_ascii_case(&current)) {
            names.insert(0, current.clone());
        }
        names
            .into_iter()
            .map(|n| {
                let selected = n.eq_ignore_ascii_case(&current);
                view! { <option value=n.clone() selected=selected>{n.clone()}</option> }
            })
            .collect_view()
    };
    // The weights' precision: core's id in the scenario, BF16 when none is said.
    let weights = Memo::new(move |_| {
        scenario.with(|s| {
            s.task
                .serving
                .as_ref()
                .and_then(|sv| sv.weights.as_deref().and_then(Precision::from_id))
                .unwrap_or(Precision::Bf16)
        })
    });
    let gpus_per_replica = Signal::derive(move || {
        scenario.with(|s| {
            s.task
                .serving
                .as_ref()
                .and_then(|sv| sv.gpus_per_replica)
                .map(Decimal::from)
        })
    });
    let on_gpus = move |v: Option<Decimal>| {
        update_spec(scenario, |sv| {
            sv.gpus_per_replica = v.and_then(|v| v.trunc().to_u32());
        });
    };
    let weight_options = Precision::ALL
        .into_iter()
        .map(|p| {
            view! {
                <option value=p.id() selected=move || weights.get() == p>
                    {move || model::weight_precision(lang.get(), p)}
                </option>
            }
        })
        .collect_view();
    let shapes = TRAFFIC_PRESETS
        .into_iter()
        .chain([CUSTOM])
        .map(|id| {
            let custom = id == CUSTOM;
            view! {
                <option
                    value=id
                    disabled=move || custom && is_preset()
                    selected=move || if custom { !is_preset() } else { shape.with(|n| n == id) }
                >
                    {move || model::traffic_shape(lang.get(), id)}
                </option>
            }
        })
        .collect_view();
    view! {
        <p class="hint">{move || t(lang.get(), Label::ServingEditorHint)}</p>
        <div class="grid2">
            <div class="field">
                <label for="serving-model">{move || t(lang.get(), Label::ServingModel)}</label>
                <select
                    id="serving-model"
                    translate="no"
                    on:change=move |ev| {
                        let id = event_target_value(&ev);
                        update_spec(scenario, |sv| sv.model = id);
                    }
                >
                    {models}
                </select>
            </div>
            <div class="field">
                <label for="serving-weights">{move || t(lang.get(), Label::ServingWeights)}</label>
                <select
                    id="serving-weights"
                    on:change=move |ev| {
                        let id = event_target_value(&ev);
                        update_spec(scenario, |sv| {
                            sv.weights = (id != Precision::Bf16.id()).then_some(id);
                        });
                    }
                >
                    {weight_options}
                </select>
            </div>
            <NumField
                id="serving-gpus"
                label=Signal::derive(move || t(lang.get(), Label::ServingGpus).to_owned())
                value=gpus_per_replica
                on_value=on_gpus
                max=Decimal::from(MAX_GPUS_PER_REPLICA)
                min=Decimal::ONE
                whole=true
                optional=true
                lang=lang
            />
            <div class="field">
                <label for="traffic-preset">{move || t(lang.get(), Label::TrafficPreset)}</label>
                <select
                    id="traffic-preset"
                    on:change=move |ev| {
                        let id = event_target_value(&ev);
                        update_spec(scenario, |sv| {
                            if let Ok(p) = traffic_preset(&id, sv.traffic.mean_rps()) {
                                sv.traffic.rps_by_hour = p.rps_by_hour;
                                sv.traffic.name = p.name;
                            }
                        });
                    }
                >
                    {shapes}
                </select>
            </div>
            <NumField
                id="traffic-mean"
                label=Signal::derive(move || t(lang.get(), Label::TrafficMean).to_owned())
                value=Signal::derive(move || scenario.with(|s| s.task.serving.as_ref().map(|sv| d(sv.traffic.mean_rps()))))
                on_value=on_mean
                max=Decimal::from(9_000)
                min=Decimal::ZERO
                lang=lang
            />
        </div>
        <div class="field">
            <label for="traffic-hours">{move || t(lang.get(), Label::TrafficHours)}</label>
            <textarea
                id="traffic-hours"
                rows="6"
                spellcheck="false"
                autocomplete="off"
                aria-describedby="traffic-hours-error"
                aria-invalid=move || if refused.with(Option::is_some) { "true" } else { "false" }
                prop:value=move || text.get()
                on:input=on_curve
            ></textarea>
            <p class="field-error" id="traffic-hours-error" role="alert">
                {move || refused.with(|e| e.as_ref().map(|e| traffic_error(lang.get(), e)))}
            </p>
        </div>
        <CurveDrawer lang=lang scenario=scenario curve=curve />
        <div class="grid2">
            {traffic_num(lang, scenario, "prompt-mean", Label::PromptMean, Decimal::ONE, 1_000_000,
                |t| t.prompt_tokens.mean, |t, v| t.prompt_tokens.mean = v)}
            {traffic_num(lang, scenario, "prompt-p90", Label::PromptP90, Decimal::ONE, 1_000_000,
                |t| t.prompt_tokens.p90, |t, v| t.prompt_tokens.p90 = v)}
            {traffic_num(lang, scenario, "output-mean", Label::OutputMean, Decimal::ONE, 1_000_000,
                |t| t.output_tokens.mean, |t, v| t.output_tokens.mean = v)}
            {traffic_num(lang, scenario, "output-p90", Label::OutputP90, Decimal::ONE, 1_000_000,
                |t| t.output_tokens.p90, |t, v| t.output_tokens.p90 = v)}
            {traffic_num(lang, scenario, "ttft-target", Label::TtftTarget, Decimal::new(1, 3), 3_600_000,
                |t| t.targets.ttft_p99_ms, |t, v| t.targets.ttft_p99_ms = v)}
            {traffic_num(lang, scenario, "tpot-target", Label::TpotTarget, Decimal::new(1, 3), 3_600_000,
                |t| t.targets.tpot_p99_ms, |t, v| t.targets.tpot_p99_ms = v)}
        </div>
    }
}

// ---------------------------------------------------------------------------------------------
// The curve drawn with the pointer.

/// The view box of [`CurveDrawer`], width and height.
const DRAW_BOX: (f64, f64) = (640.0, 160.0);
/// Its drawing area (left, right, top, bottom), in view-box units.
const DRAW: (f64, f64, f64, f64) = (44.0, 624.0, 14.0, 134.0);

/// The value a drawn curve may reach: the next round figure above 1.5 times the curve's peak
/// (at least 1 request/s), so a drag can raise the peak by half at a time.
fn drawing_top(curve: &[f64]) -> f64 {
    let peak = curve.iter().copied().fold(0.0, f64::max);
    let want = (peak * 1.5).max(1.0);
    let step = crate::charts::nice_step(want);
    ((want / step).ceil() * step).min(MAX_RPS)
}

/// The hour and rate under a point of the drawing, in view-box units.
fn hour_and_rate(x: f64, y: f64, hours: usize, top: f64) -> (usize, f64) {
    let (left, right, upper, lower) = DRAW;
    let share = ((x - left) / (right - left)).clamp(0.0, 0.999_999);
    let hour = (share * hours as f64) as usize;
    let rate = ((lower - y) / (lower - upper)).clamp(0.0, 1.0) * top;
    (
        hour.min(hours.saturating_sub(1)),
        (rate * 100.0).round() / 100.0,
    )
}

/// Sets `hour` of `curve` to `rate`, and the hours between it and the `last` point drawn (a quick
/// move skips some) on the straight line between the two, to the cent.
fn draw_to(curve: &mut [f64], last: Option<(usize, f64)>, hour: usize, rate: f64) {
    match last {
        Some((from, was)) if from != hour => {
            for h in from.min(hour)..=from.max(hour) {
                let t = (h as f64 - from as f64) / (hour as f64 - from as f64);
                if let Some(v) = curve.get_mut(h) {
                    *v = ((was + t * (rate - was)) * 100.0).round() / 100.0;
                }
            }
        }
        _ => {
            if let Some(v) = curve.get_mut(hour) {
                *v = rate;
            }
        }
    }
}

/// The rates by hour as bars one can draw on: press and drag across the hours to set each to the
/// height under the pointer (hours skipped by a quick move are filled in a straight line). The
/// drawn curve goes into the scenario when the pointer is released, as a curve of one's own.
#[component]
fn CurveDrawer(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    curve: Memo<Vec<f64>>,
) -> impl IntoView {
    // The curve being drawn, its top, and the last hour and rate drawn.
    let draft = RwSignal::new(None::<(Vec<f64>, f64)>);
    let last = RwSignal::new(None::<(usize, f64)>);
    let shown = move || {
        draft.with(|d| match d {
            Some((c, top)) => (c.clone(), *top),
            None => {
                let c = curve.get();
                let top = drawing_top(&c);
                (c, top)
            }
        })
    };
    // A point of the SVG in view-box units, from a pointer event.
    let to_box = |ev: &leptos::ev::PointerEvent| -> Option<(f64, f64)> {
        let target = ev.current_target()?;
        let el: &web_sys::Element = wasm_bindgen::JsCast::dyn_ref(&target)?;
        let rect = el.get_bounding_client_rect();
        if rect.width() <= 0.0 || rect.height() <= 0.0 {
            return None;
        }
        let x = (f64::from(ev.client_x()) - rect.left()) / rect.width() * DRAW_BOX.0;
        let y = (f64::from(ev.client_y()) - rect.top()) / rect.height() * DRAW_BOX.1;
        Some((x, y))
    };
    let paint = move |x: f64, y: f64| {
        draft.update(|d| {
            let Some((c, top)) = d else { return };
            let (hour, rate) = hour_and_rate(x, y, c.len(), *top);
            draw_to(c, last.get_untracked(), hour, rate);
            last.set(Some((hour, rate)));
        });
    };
    let on_down = move |ev: leptos::ev::PointerEvent| {
        let Some((x, y)) = to_box(&ev) else { return };
        ev.prevent_default();
        if let Some(target) = ev.current_target()
            && let Some(el) = wasm_bindgen::JsCast::dyn_ref::<web_sys::Element>(&target)
        {
            let _ = el.set_pointer_capture(ev.pointer_id());
        }
        let c = curve.get_untracked();
        let top = drawing_top(&c);
        draft.set(Some((c, top)));
        last.set(None);
        paint(x, y);
    };
    let on_move = move |ev: leptos::ev::PointerEvent| {
        if draft.with_untracked(Option::is_none) {
            return;
        }
        if let Some((x, y)) = to_box(&ev) {
            paint(x, y);
        }
    };
    let on_up = move |_: leptos::ev::PointerEvent| {
        let Some((drawn, _)) = draft.get_untracked() else {
            return;
        };
        draft.set(None);
        last.set(None);
        if !curve.with_untracked(|c| same_curve(c, &drawn)) {
            update_spec(scenario, |sv| {
                sv.traffic.rps_by_hour = drawn;
                sv.traffic.name = CUSTOM.to_owned();
            });
        }
    };
    let bars = move || {
        let (c, top) = shown();
        let (left, right, upper, lower) = DRAW;
        let width = (right - left) / c.len().max(1) as f64;
        c.iter()
            .enumerate()
            .map(|(h, v)| {
                let height = (v / top).clamp(0.0, 1.0) * (lower - upper);
                view! {
                    <rect
                        class="curve-bar"
                        data-hour=h.to_string()
                        data-rps=format!("{v}")
                        x=format!("{:.2}", left + h as f64 * width + width * 0.1)
                        y=format!("{:.2}", lower - height)
                        width=format!("{:.2}", width * 0.8)
                        height=format!("{height:.2}")
                    />
                }
            })
            .collect_view()
    };
    let axis = move || {
        let (c, top) = shown();
        let (left, right, upper, lower) = DRAW;
        let hours = c.len().max(1);
        let every = if hours > 24 { 24 } else { 6 };
        let ticks = (0..=hours).step_by(every).map(move |h| {
            let x = left + h as f64 / hours as f64 * (right - left);
            view! { <text x=format!("{x:.1}") y=format!("{}", lower + 16.0) text-anchor="middle" class="chart-label">{h.to_string()}</text> }
        });
        view! {
            <line x1=format!("{left}") x2=format!("{right}") y1=format!("{lower}") y2=format!("{lower}") class="chart-axis" />
            <line x1=format!("{left}") x2=format!("{right}") y1=format!("{upper}") y2=format!("{upper}") class="chart-grid" />
            <text x=format!("{}", left - 6.0) y=format!("{}", upper + 4.0) text-anchor="end" class="chart-label" id="curve-top">{format::number(top, 2)}</text>
            <text x=format!("{}", left - 6.0) y=format!("{}", lower + 4.0) text-anchor="end" class="chart-label">"0"</text>
            {ticks.collect_view()}
        }
    };
    view! {
        <div class="field">
            <p class="hint" id="curve-draw-hint">{move || t(lang.get(), Label::TrafficDrawHint)}</p>
            <svg
                id="traffic-draw"
                class="chart curve-draw"
                viewBox=format!("0 0 {} {}", DRAW_BOX.0, DRAW_BOX.1)
                role="img"
                data-top=move || format!("{}", shown().1)
                aria-labelledby="curve-draw-title"
                aria-describedby="curve-draw-hint"
                on:pointerdown=on_down
                on:pointermove=on_move
                on:pointerup=on_up
                on:pointercancel=on_up
            >
                <title id="curve-draw-title">{move || t(lang.get(), Label::TrafficDrawTitle)}</title>
                {axis}
                {bars}
            </svg>
        </div>
    }
}

// ---------------------------------------------------------------------------------------------
// The deployments panel.

/// The deployments panel: in the results column while the task serves a model.
#[component]
pub fn ServingPanel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: ReadSignal<Planned>,
) -> impl IntoView {
    let serves = Memo::new(move |_| scenario.with(|s| s.task.serving.is_some()));
    move || {
        serves
            .get()
            .then(|| lazy_view(lang, serving_panel(lang, scenario, plan)))
    }
}

/// The panel's content, from its chunk; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(serving, wasm_split_path = ::leptos::wasm_split, fallible)]
fn serving_panel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: ReadSignal<Planned>,
) -> Result<ViewFn, leptos::wasm_split::SplitLoaderError> {
    Ok(ViewFn::from(move || {
        panel_body(lang, scenario, plan).into_any()
    }))
}

/// A service priced on a plan, with the plan's currency.
#[derive(Debug, Clone, PartialEq)]
struct Priced {
    service: ServicePlan,
    currency: Currency,
}

fn panel_body(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: ReadSignal<Planned>,
) -> impl IntoView {
    // Priced again when a plan arrives: every edit is planned anew, and the plan is set once the
    // newest scenario's is in, so the scenario read here is the one the plan was made for.
    let priced = Memo::new(move |_| {
        plan.with(|p| {
            let result = p.as_ref().ok()?;
            scenario.with_untracked(|s| {
                let catalog = s.catalog(default_catalog());
                plan_service(&s.task, &catalog, result).map(|service| Priced {
                    service,
                    currency: result.currency,
                })
            })
        })
    });
    move || {
        let lang = lang.get();
        priced.with(|p| p.as_ref().map(|p| panel_view(lang, p)))
    }
}

/// A share as a percentage with up to two decimals: `99.13 %`, `100 %`.
fn pct(x: f64) -> String {
    format!("{} %", format::number(x * 100.0, 2))
}

/// An offer id as data: never translated.
fn offer_id(id: &str) -> AnyView {
    view! { <span class="offer-id" translate="no">{id.to_owned()}</span> }.into_any()
}

/// `template` with each `{name}` replaced by its view in `parts` (a name without one stays).
fn fill(template: &str, mut parts: Vec<(&'static str, AnyView)>) -> Vec<AnyView> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        let name = &rest[open + 1..close];
        match parts.iter().position(|(n, _)| *n == name) {
            Some(i) => {
                out.push(rest[..open].to_owned().into_any());
                out.push(parts.swap_remove(i).1);
            }
            None => out.push(rest[..=close].to_owned().into_any()),
        }
        rest = &rest[close + 1..];
    }
    out.push(rest.to_owned().into_any());
    out
}

/// Why `c` was chosen, worded from its figures: its cost and share of requests within targets,
/// and what the next cheapest meeting them costs more.
fn reason(lang: Lang, p: &Priced, c: &ServiceChoice) -> Vec<AnyView> {
    let kind = || model::deployment_kind(lang, c.kind).to_owned().into_any();
    let cost = || format::money(lang, &c.cost_per_month).into_any();
    let share = || pct(c.attainment).into_any();
    if !c.meets_target {
        return fill(
            t(lang, Label::ServingReasonClosest),
            vec![
                ("target", pct(p.service.attainment_target).into_any()),
                ("kind", kind()),
                ("offer", offer_id(&c.offer_id)),
                ("share", share()),
                ("cost", cost()),
            ],
        );
    }
    // Core names the runner-up (the next cheapest other deployment meeting the target).
    match &p.service.runner_up {
        Some(n) => fill(
            t(lang, Label::ServingReasonNext),
            vec![
                ("kind", kind()),
                ("offer", offer_id(&c.offer_id)),
                ("cost", cost()),
                ("share", share()),
                (
                    "next_kind",
                    model::deployment_kind(lang, n.kind).to_owned().into_any(),
                ),
                ("next_offer", offer_id(&n.offer_id)),
                (
                    "more",
                    format::amount(
                        lang,
                        n.cost_per_month.amount - c.cost_per_month.amount,
                        p.currency,
                    )
                    .into_any(),
                ),
            ],
        ),
        None => fill(
            t(lang, Label::ServingReasonOnly),
            vec![
                ("kind", kind()),
                ("offer", offer_id(&c.offer_id)),
                ("cost", cost()),
                ("share", share()),
            ],
        ),
    }
}

/// Why nothing could be priced, from core's problem (its English is shown on the English page).
fn problem_text(lang: Lang, problem: &str) -> String {
    let why = if problem.starts_with("no offer is feasible") {
        t(lang, Label::ServingNoFeasible).to_owned()
    } else if problem.starts_with("no offer could host") {
        t(lang, Label::ServingNoHost).to_owned()
    } else {
        pick(lang, problem, t(lang, Label::ServingBadModel)).to_owned()
    };
    format!(
        "{}{}{why}",
        t(lang, Label::ServingNoPlan),
        pick(lang, ": ", "：")
    )
}

/// The offers' group holding the chosen deployment (the first, when several do).
fn chosen_group<'a>(
    service: &'a ServicePlan,
    c: &ServiceChoice,
) -> Option<&'a gpufare_core::serving::service::OfferDeployments> {
    service.offers.iter().find(|od| {
        od.deployments
            .iter()
            .any(|x| x.kind == c.kind && x.offer_id == c.offer_id)
    })
}

fn panel_view(lang: Lang, p: &Priced) -> impl IntoView + use<> {
    let service = &p.service;
    let summary = t(lang, Label::ServingSummary)
        .replace("{traffic}", model::traffic_shape(lang, &service.traffic))
        .replace("{mean}", &format::number(service.mean_rps, 2))
        .replace("{peak}", &format::number(service.peak_rps, 2))
        .replace("{target}", &pct(service.attainment_target));
    let choice = service.choice.as_ref().map(|c| {
        let cost = c.cost_per_month.amount.round_dp(2).normalize().to_string();
        view! {
            <div
                id="serving-choice"
                class="decision"
                data-kind=c.kind.id()
                data-offer=c.offer_id.clone()
                data-cost=cost
                data-currency=c.cost_per_month.currency.code()
                data-meets=c.meets_target.to_string()
            >
                <p class="choice">
                    <strong>{format!("{}{}", t(lang, Label::ServingChosen), pick(lang, ": ", "："))}</strong>
                    {model::deployment_kind(lang, c.kind)}
                    " · "
                    {offer_id(&c.offer_id)}
                    " · "
                    <span class="total">{format::money(lang, &c.cost_per_month)}</span>
                </p>
                <p id="serving-reason">{reason(lang, p, c)}</p>
            </div>
        }
    });
    let problem = service.problem.as_ref().filter(|_| service.choice.is_none()).map(|why| {
        view! { <p class="field-error" id="serving-problem" role="alert">{problem_text(lang, why)}</p> }
    });
    let group = service
        .choice
        .as_ref()
        .and_then(|c| chosen_group(service, c));
    // The table: the first offers of the ranking and the chosen one's, each deployment once.
    let mut groups: Vec<&gpufare_core::serving::service::OfferDeployments> =
        service.offers.iter().take(TABLE_OFFERS).collect();
    if let Some(g) = group
        && !groups.iter().any(|x| x.offer_id == g.offer_id)
    {
        groups.push(g);
    }
    let mut seen: Vec<(DeploymentKind, String, Option<String>)> = Vec::new();
    let mut rows: Vec<(String, Deployment)> = Vec::new();
    for g in &groups {
        for dep in &g.deployments {
            let key = (dep.kind, dep.offer_id.clone(), dep.burst_offer_id.clone());
            if !seen.contains(&key) {
                seen.push(key);
                rows.push((g.offer_id.clone(), dep.clone()));
            }
        }
    }
    let chosen = service
        .choice
        .as_ref()
        .map(|c| (c.kind, c.offer_id.clone()));
    let has_rows = !rows.is_empty();
    let body = rows
        .into_iter()
        .map(|(group_id, dep)| {
            let is_chosen = chosen
                .as_ref()
                .is_some_and(|(k, o)| *k == dep.kind && *o == dep.offer_id);
            let (low, high) = dep
                .replicas_by_hour
                .iter()
                .fold((f64::INFINITY, 0.0_f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
            let low = if low.is_finite() { low } else { 0.0 };
            let replicas = if (high - low).abs() < 0.005 {
                format::number(high, 2)
            } else {
                format!("{}–{}", format::number(low, 2), format::number(high, 2))
            };
            let per_million = dep
                .cost_per_million_output_tokens
                .as_ref()
                .map(|m| format::money(lang, m))
                .unwrap_or_else(|| "—".to_owned());
            view! {
                <tr
                    data-kind=dep.kind.id()
                    data-offer=dep.offer_id.clone()
                    data-group=group_id
                    data-cost=dep.cost_per_month.amount.round_dp(2).normalize().to_string()
                    class=if is_chosen { "chosen" } else { "" }
                >
                    <td>
                        {model::deployment_kind(lang, dep.kind)}
                        {is_chosen.then(|| view! { " " <span class="badge chosen">{t(lang, Label::Chosen)}</span> })}
                    </td>
                    <td>
                        {offer_id(&dep.offer_id)}
                        {dep.burst_offer_id.clone().map(|b| view! { " + " {offer_id(&b)} })}
                    </td>
                    <td class="num">{format::money(lang, &dep.cost_per_month)}</td>
                    <td class="num">{per_million}</td>
                    <td class="num">{pct(dep.attainment)}</td>
                    <td class="num">{replicas}</td>
                </tr>
            }
        })
        .collect_view();
    let n_groups = groups.len();
    let table = has_rows.then(|| {
        let heads = [
            Label::DeploymentCol,
            Label::Offer,
            Label::CostPerMonth,
            Label::CostPerMillionOut,
            Label::WithinTargets,
            Label::ReplicasRange,
        ]
        .into_iter()
        .map(|l| view! { <th scope="col">{t(lang, l)}</th> })
        .collect_view();
        view! {
            <div class="table-wrap">
                <table id="serving-table">
                    <thead><tr>{heads}</tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            <p class="hint" id="serving-table-note">
                {t(lang, Label::ServingTableNote).replace("{n}", &n_groups.to_string())}
            </p>
        }
    });
    // How long a new replica takes on the chosen offer, and where its load rate comes from.
    let scale_up = group
        .and_then(|g| {
            g.deployments
                .iter()
                .find_map(|x| Some((x, x.scale_up_seconds?, x.model_load?)))
        })
        .map(|(dep, delay, load)| {
            let offer = dep
                .burst_offer_id
                .clone()
                .unwrap_or_else(|| dep.offer_id.clone());
            let source = t(
                lang,
                if load.measured {
                    Label::ServingLoadMeasured
                } else {
                    Label::ServingLoadDefault
                },
            );
            let text = fill(
                t(lang, Label::ServingScaleUp),
                vec![
                    ("offer", offer_id(&offer)),
                    ("delay", format::number(delay, 0).into_any()),
                    ("load", format::number(load.seconds, 0).into_any()),
                    ("rate", format::number(load.gb_per_second, 2).into_any()),
                    ("source", source.into_any()),
                ],
            );
            view! {
                <p
                    class="hint"
                    id="serving-scale-up"
                    data-offer=offer.clone()
                    data-seconds=format!("{delay:.3}")
                    data-load=format!("{:.3}", load.seconds)
                    data-measured=load.measured.to_string()
                >
                    {text}
                </p>
            }
        });
    let chart = group.map(|g| {
        let series: Vec<(DeploymentKind, Vec<f64>)> = g
            .deployments
            .iter()
            .map(|x| (x.kind, x.replicas_by_hour.clone()))
            .collect();
        replicas_chart(lang, &series)
    });
    view! {
        <section
            id="serving-panel"
            class="card serving"
            aria-labelledby="serving-heading"
            data-model=service.model.clone()
            data-traffic=service.traffic.clone()
        >
            <h2 id="serving-heading">{t(lang, Label::ServingHeading)}</h2>
            <p class="hint" id="serving-summary">
                <span translate="no">{service.model.clone()}</span>
                " · "
                {summary}
            </p>
            {choice}
            {problem}
            {table}
            {scale_up}
            {chart}
        </section>
    }
}

/// The place of a deployment kind in core's order (its colour and dash).
fn kind_index(k: DeploymentKind) -> usize {
    DeploymentKind::ALL
        .iter()
        .position(|x| *x == k)
        .unwrap_or(0)
}

/// Dashes that tell the lines apart where they overlap.
const DASHES: [&str; 4] = ["none", "7 4", "2 3", "10 3 2 3"];

/// Replicas serving in each hour of the traffic's period, one stepped line per deployment, both
/// axes titled, a legend of the deployments.
fn replicas_chart(lang: Lang, series: &[(DeploymentKind, Vec<f64>)]) -> impl IntoView + use<> {
    const WIDTH: f64 = 640.0;
    let (left, right, top, bottom) = (44.0, WIDTH - 16.0, 30.0, 150.0);
    let legend_top = bottom + 48.0;
    let height = legend_top + series.len() as f64 * 17.0;
    let hours = series
        .iter()
        .map(|(_, v)| v.len())
        .max()
        .unwrap_or(24)
        .max(1);
    let top_value = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
        .max(1.0);
    let step = crate::charts::nice_step(top_value);
    let ymax = (top_value / step).ceil() * step;
    let sx = |h: f64| left + h / hours as f64 * (right - left);
    let sy = |y: f64| bottom - y.clamp(0.0, ymax) / ymax * (bottom - top);
    let grid = (0i32..)
        .map(|i| f64::from(i) * step)
        .take_while(|y| *y <= ymax + step / 1000.0)
        .map(|y| {
            view! {
                <line x1=format!("{left}") x2=format!("{right}") y1=format!("{:.1}", sy(y)) y2=format!("{:.1}", sy(y)) class="chart-grid" />
                <text x=format!("{}", left - 6.0) y=format!("{:.1}", sy(y) + 4.0) text-anchor="end" class="chart-label">{format::number(y, 2)}</text>
            }
        })
        .collect_view();
    let every = if hours > 24 { 24 } else { 6 };
    let ticks = (0..=hours)
        .step_by(every)
        .map(|h| {
            let at = sx(h as f64);
            view! {
                <line x1=format!("{at:.1}") x2=format!("{at:.1}") y1=format!("{bottom}") y2=format!("{}", bottom + 4.0) class="chart-axis" />
                <text x=format!("{at:.1}") y=format!("{}", bottom + 16.0) text-anchor="middle" class="chart-label">{h.to_string()}</text>
            }
        })
        .collect_view();
    let lines = series
        .iter()
        .map(|(kind, values)| {
            let mut d = String::new();
            for (h, v) in values.iter().enumerate() {
                let y = sy(if v.is_finite() { *v } else { 0.0 });
                let mark = if h == 0 { "M" } else { " L" };
                d.push_str(&format!(
                    "{mark}{:.1} {y:.1} L{:.1} {y:.1}",
                    sx(h as f64),
                    sx(h as f64 + 1.0)
                ));
            }
            let k = kind_index(*kind);
            view! {
                <path d=d fill="none" stroke=policy_colour(k) stroke-width="2.2" stroke-dasharray=DASHES[k] class="replica-line" data-kind=kind.id() />
            }
        })
        .collect_view();
    let legend = series
        .iter()
        .enumerate()
        .map(|(i, (kind, _))| {
            let k = kind_index(*kind);
            let y = legend_top + i as f64 * 17.0;
            view! {
                <line x1=format!("{left}") x2=format!("{}", left + 26.0) y1=format!("{:.1}", y - 4.0) y2=format!("{:.1}", y - 4.0)
                    stroke=policy_colour(k) stroke-width="3" stroke-dasharray=DASHES[k] />
                <text x=format!("{}", left + 32.0) y=format!("{y:.1}") class="chart-legend">{model::deployment_kind(lang, *kind)}</text>
            }
        })
        .collect_view();
    let x_title = t(
        lang,
        if hours > 24 {
            Label::ServingChartWeek
        } else {
            Label::ServingChartDay
        },
    );
    view! {
        <svg class="chart" id="serving-chart" viewBox=format!("0 0 {WIDTH} {height:.0}") role="img" aria-labelledby="serving-chart-title">
            <title id="serving-chart-title">{t(lang, Label::ServingChart)}</title>
            <text x=format!("{}", left - 36.0) y="18" class="chart-label axis-title y-title">{t(lang, Label::ServingChartY)}</text>
            {grid}
            <line x1=format!("{left}") x2=format!("{right}") y1=format!("{bottom}") y2=format!("{bottom}") class="chart-axis" />
            <line x1=format!("{left}") x2=format!("{left}") y1=format!("{top}") y2=format!("{bottom}") class="chart-axis" />
            {ticks}
            <text x=format!("{}", (left + right) / 2.0) y=format!("{}", bottom + 34.0) text-anchor="middle" class="chart-label axis-title x-title">{x_title}</text>
            {lines}
            {legend}
        </svg>
    }
}
