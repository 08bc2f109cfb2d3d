//! Fleets on the site: a fleet file (JSON lines of probe profiles, as `gpufare fleet merge`
//! writes) read in the browser and reported by `gpufare_core::fleet` — one row per group (GPU
//! model and kind of capacity) with the spread of every figure as a small box plot, the outliers
//! with their reasons, the lines that could not be read, and every node, a click away from its
//! own comparison view in the profile card. The group medians become the plan's measured
//! factors. Lists of nodes draw only the rows in view, and the parse and report run after the
//! frame that says the file is being read, so 1,000 nodes keep the page responsive. Nothing is
//! uploaded.

use std::collections::BTreeSet;
use std::sync::Arc;

use gpufare_core::fleet::{
    Capacity, Damaged, Figure, FleetNode, FleetReport, GroupReport, Outlier, Reason, Rules, Spread,
    fleet_factors, parse_fleet, report,
};
use gpufare_core::numbers::money::group_thousands;
use gpufare_core::profile::document::Profile;
use gpufare_core::profile::evidence::MeasuredFactors;
use gpufare_core::scenario::document::Scenario;
use leptos::prelude::*;
use leptos::task::spawn_local;
use rust_decimal::Decimal;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen_futures::JsFuture;

use crate::fields::{HeaderRow, f, read};
use crate::format::number;
use crate::vocab::{Label, Lang, errors, model, pick, t};

/// A fleet of 10,000 nodes is about 40 MB; refuse anything absurd before reading it.
const MAX_FLEET_BYTES: f64 = 256.0 * 1024.0 * 1024.0;
/// Height of one row of a windowed list, in CSS pixels (the stylesheet's `.wrow`).
const ROW_PX: f64 = 32.0;
/// Rows a windowed list shows at once, and the rows drawn beyond each edge.
const VIEW_ROWS: usize = 12;
const OVERSCAN: usize = 6;

/// Why a chosen file gave no fleet.
#[derive(Clone)]
enum Refusal {
    TooLarge,
    Unreadable,
}

/// The fleet card. The picker is part of the first page load; reading and reporting the fleet
/// live in a chunk of the site fetched when a file is chosen.
#[component]
pub fn FleetViewer(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    /// Opens a node's profile (its name and the profile) in the profile card.
    opener: Callback<(String, Profile)>,
) -> impl IntoView {
    let panel = RwSignal::new(None::<ViewFn>);
    let failed = RwSignal::new(false);
    let refused = RwSignal::new(None::<(String, Refusal)>);
    let on_change = move |ev: leptos::ev::Event| {
        let Some(file) = crate::fields::take_chosen_file(&ev) else {
            return;
        };
        spawn_local(async move {
            let name = file.name();
            if file.size() > MAX_FLEET_BYTES {
                refused.set(Some((name, Refusal::TooLarge)));
                return;
            }
            let Some(text) = crate::fields::file_text(&file).await else {
                refused.set(Some((name, Refusal::Unreadable)));
                return;
            };
            refused.set(None);
            match open_fleet(name, text, lang, scenario, opener).await {
                Ok(view) => {
                    failed.set(false);
                    if let Some(view) = view {
                        panel.set(Some(view));
                    }
                }
                Err(_) => failed.set(true),
            }
        });
    };
    view! {
        <section aria-labelledby="fleet-heading" class="card wide" id="fleet">
            <h2 id="fleet-heading">{move || t(lang.get(), Label::FleetHeading)}</h2>
            <div class="field">
                <label for="fleet-file">{move || t(lang.get(), Label::OpenFleet)}</label>
                <input
                    id="fleet-file"
                    type="file"
                    accept=".jsonl,.ndjson,.json,application/json"
                    aria-describedby="fleet-hint"
                    on:change=on_change
                />
                <span class="hint" id="fleet-hint">{move || t(lang.get(), Label::FleetHint)}</span>
            </div>
            {move || failed.get().then(|| view! { <p class="field-error" role="alert">{move || t(lang.get(), Label::ChunkFailed)}</p> })}
            {move || refused.get().map(|(name, why)| view! {
                <p class="field-error" role="alert" id="fleet-error">{move || {
                    let label = match why {
                        Refusal::TooLarge => Label::FileTooLarge,
                        Refusal::Unreadable => Label::FileUnreadable,
                    };
                    format!("{name}: {}", t(lang.get(), label))
                }}</p>
            })}
            {move || panel.get().map(|view| view.run())}
        </section>
    }
}

/// A node as its row shows it, worked out once when the fleet loads.
struct NodeRow {
    label: String,
    source: String,
    gpus: String,
}

/// A fleet read from one file.
struct Fleet {
    name: String,
    nodes: Vec<FleetNode>,
    rows: Vec<NodeRow>,
    damaged: Vec<Damaged>,
    duplicates: usize,
}

/// The card's state for the page's lifetime.
#[derive(Clone, Copy)]
struct State {
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    opener: Callback<(String, Profile)>,
    /// The file being read, until its report is ready.
    busy: RwSignal<Option<String>>,
    fleet: RwSignal<Option<Arc<Fleet>>>,
    report: RwSignal<Option<Arc<FleetReport>>>,
    /// The fleet's group medians as measured factors.
    factors: RwSignal<Vec<MeasuredFactors>>,
    /// The outlier threshold as typed.
    k_text: RwSignal<String>,
    k_bad: RwSignal<bool>,
    /// Text that narrows the node and outlier lists.
    filter: RwSignal<String>,
}

thread_local! {
    static STATE: std::cell::Cell<Option<State>> = const { std::cell::Cell::new(None) };
}

/// Reads a fleet file into the card. The first call also returns the card's view; later calls
/// replace the fleet shown. The error is the chunk holding this code failing to load.
#[leptos::wasm_split::wasm_split(fleet, wasm_split_path = ::leptos::wasm_split, fallible)]
fn open_fleet(
    name: String,
    text: String,
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    opener: Callback<(String, Profile)>,
) -> Result<Option<ViewFn>, leptos::wasm_split::SplitLoaderError> {
    let (view, state) = match STATE.get() {
        Some(state) => (None, state),
        None => {
            let state = State {
                lang,
                scenario,
                opener,
                busy: RwSignal::new(None),
                fleet: RwSignal::new(None),
                report: RwSignal::new(None),
                factors: RwSignal::new(Vec::new()),
                k_text: RwSignal::new("5".to_owned()),
                k_bad: RwSignal::new(false),
                filter: RwSignal::new(String::new()),
            };
            STATE.set(Some(state));
            (Some(card_view(state)), state)
        }
    };
    state.busy.set(Some(name.clone()));
    spawn_local(async move {
        // Let the page paint "reading…" before the work starts.
        after_paint().await;
        load(state, name, &text);
    });
    Ok(view)
}

/// Resolves after the next frame has been painted (a task queued from its animation frame).
async fn after_paint() {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let Some(window) = web_sys::window() else {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
            return;
        };
        let later = window.clone();
        let then = resolve.clone();
        let queue = Closure::once_into_js(move || {
            let _ = later.set_timeout_with_callback_and_timeout_and_arguments_0(&then, 0);
        });
        if window
            .request_animation_frame(queue.unchecked_ref())
            .is_err()
        {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    let _ = JsFuture::from(promise).await;
}

fn load(state: State, name: String, text: &str) {
    let merged = parse_fleet(&name, text);
    let damaged = merged.damaged;
    let rows = merged
        .nodes
        .iter()
        .map(|n| {
            let gpus = &n.profile.gpus;
            let names: BTreeSet<&str> = gpus.iter().map(|g| g.name.as_str()).collect();
            let gpus = match (gpus.len(), names.into_iter().next()) {
                (0, _) | (_, None) => "—".to_owned(),
                (1, Some(name)) => name.to_owned(),
                (n, Some(name)) => format!("{n} × {name}"),
            };
            NodeRow {
                label: n.label().to_owned(),
                source: n.source.clone(),
                gpus,
            }
        })
        .collect();
    let rules = rules_for(state.k_text.get_untracked()).unwrap_or_default();
    let fleet = Fleet {
        name,
        rows,
        damaged,
        duplicates: merged.duplicates.len(),
        nodes: merged.nodes,
    };
    let report = report(&fleet.nodes, &rules);
    use_factors(state, fleet_factors(&report));
    state.report.set(Some(Arc::new(report)));
    state.fleet.set(Some(Arc::new(fleet)));
    state.busy.set(None);
}

/// Replaces the previous fleet's measured factors in the plan with `factors`.
fn use_factors(state: State, factors: Vec<MeasuredFactors>) {
    let old = state.factors.get_untracked();
    state.scenario.update(|s| {
        s.measured.retain(|m| !old.contains(m));
        s.measured.extend(factors.iter().cloned());
    });
    state.factors.set(factors);
}

/// The default rules with the outlier threshold typed; `None` when it is not a usable k.
fn rules_for(k_text: String) -> Option<Rules> {
    let k = read(&k_text, Decimal::from(1000), false).ok().flatten()?;
    let rules = Rules {
        mad_k: f(k),
        ..Rules::default()
    };
    rules.validate().ok().map(|()| rules)
}

fn card_view(state: State) -> ViewFn {
    let lang = state.lang;
    ViewFn::from(move || {
        view! {
            {move || state.busy.get().map(|name| view! {
                <p class="note" id="fleet-busy" aria-live="polite">{move || format!("{name}: {}", t(lang.get(), Label::FleetReading))}</p>
            })}
            {move || state.fleet.get().map(|fleet| fleet_body(state, fleet))}
        }
        .into_any()
    })
}

fn fleet_body(state: State, fleet: Arc<Fleet>) -> AnyView {
    let lang = state.lang;
    let summary = {
        let fleet = fleet.clone();
        move || {
            let lang = lang.get();
            let (nodes, groups, outliers, findings) = state.report.with(|r| {
                r.as_ref()
                    .map(|r| {
                        (
                            r.nodes,
                            r.groups.len(),
                            r.outlier_nodes,
                            r.group_findings.len(),
                        )
                    })
                    .unwrap_or_default()
            });
            let name = &fleet.name;
            let nodes_text = group_thousands(&nodes.to_string());
            let (damaged, dup) = (fleet.damaged.len(), fleet.duplicates);
            match lang {
                Lang::En => format!(
                    "{name}: {nodes_text} nodes in {groups} groups, {outliers} of them outliers; {findings} group findings; {damaged} lines not read, {dup} duplicates dropped."
                ),
                Lang::Zh => format!(
                    "{name}：{nodes_text} 个节点，分为 {groups} 组，其中 {outliers} 个异常；分组共性问题 {findings} 项；{damaged} 行未能读取，去除重复 {dup} 个。"
                ),
            }
        }
    };
    let empty = fleet.nodes.is_empty();
    view! {
        <p id="fleet-summary">{summary}</p>
        {empty.then(|| view! { <p class="field-error" role="alert" id="fleet-empty">{move || t(lang.get(), Label::FleetEmpty)}</p> })}
        {damaged_view(lang, fleet.clone())}
        {(!empty).then(|| view! {
            {evidence_view(state)}
            {groups_view(state)}
            {threshold_view(state)}
            {outliers_view(state, fleet.clone())}
            {nodes_view(state, fleet.clone())}
        })}
    }
    .into_any()
}

/// The lines that could not be read, each with its reason in the page's language.
fn damaged_view(lang: ReadSignal<Lang>, fleet: Arc<Fleet>) -> Option<AnyView> {
    if fleet.damaged.is_empty() {
        return None;
    }
    let items = move || {
        let lang = lang.get();
        fleet
            .damaged
            .iter()
            .map(|d| {
                // Core's typed error, worded in the page's language.
                let what = match &d.error {
                    Some(e) => errors::profile_error(lang, e),
                    None => t(lang, Label::FleetEmpty).to_owned(),
                };
                let why = match d.line {
                    Some(n) => t(lang, Label::LineNumber).replace("{n}", &n.to_string()) + &what,
                    None => what,
                };
                view! { <li data-line=d.line.map(|n| n.to_string())>{format!("{}: {why}", d.source)}</li> }
            })
            .collect_view()
    };
    Some(
        view! {
            <h3>{move || t(lang.get(), Label::FleetDamaged)}</h3>
            <ul id="fleet-damaged" class="field-error">{items}</ul>
        }
        .into_any(),
    )
}

/// The switch that puts the group medians into the plan, and what they replaced.
fn evidence_view(state: State) -> AnyView {
    let (lang, scenario, factors) = (state.lang, state.scenario, state.factors);
    let checked = move || {
        factors
            .with(|f| !f.is_empty() && scenario.with(|s| f.iter().all(|x| s.measured.contains(x))))
    };
    let toggle = move |ev: leptos::ev::Event| {
        let on = event_target_checked(&ev);
        let f = factors.get_untracked();
        scenario.update(move |s| {
            s.measured.retain(|x| !f.contains(x));
            if on {
                s.measured.extend(f);
            }
        });
    };
    let targets = move || {
        let lang = lang.get();
        factors.with(|f| {
            f.iter()
                .map(|f| {
                    let class = match f.tenancy {
                        Some(kind) => model::tenancy(lang, kind),
                        None => t(
                            lang,
                            if f.shared {
                                Label::Shared
                            } else {
                                Label::Dedicated
                            },
                        ),
                    };
                    format!("{} · {class}", f.gpu)
                })
                .collect::<Vec<_>>()
                .join(pick(lang, "; ", "；"))
        })
    };
    view! {
        {move || if factors.with(Vec::is_empty) {
            view! { <p class="note" id="fleet-evidence">{move || t(lang.get(), Label::FleetNoFactors)}</p> }.into_any()
        } else {
            view! {
                <div class="field check">
                    <input id="fleet-use" type="checkbox" prop:checked=checked on:change=toggle />
                    <label for="fleet-use">{move || t(lang.get(), Label::FleetUse)}</label>
                </div>
                {move || checked().then(|| view! {
                    <p class="note" id="fleet-evidence" role="status">{move || {
                    let lang = lang.get();
                    pick(lang, format!("{}: {}", t(lang, Label::FleetEvidence), targets()), format!("{}：{}", t(lang, Label::FleetEvidence), targets()))
                }}</p>
                })}
            }.into_any()
        }}
    }
    .into_any()
}

/// A group's GPU model and kind of capacity in words.
fn group_name(lang: Lang, g: &GroupReport) -> String {
    let capacity = capacity(lang, g.capacity);
    match &g.mig_profile {
        Some(p) => format!("{} · {capacity} {p}", g.gpu),
        None => format!("{} · {capacity}", g.gpu),
    }
}

fn capacity(lang: Lang, c: Capacity) -> &'static str {
    let (en, zh) = match c {
        Capacity::WholeCard => ("whole card", "整卡"),
        Capacity::Mig => ("MIG", "MIG"),
        Capacity::Vgpu => ("vGPU", "vGPU"),
        Capacity::Slice => ("slice", "切分"),
        Capacity::NoGpu => ("no GPU", "无 GPU"),
    };
    pick(lang, en, zh)
}

fn figure_name(lang: Lang, fig: Figure) -> &'static str {
    let (en, zh) = match fig {
        Figure::GemmTflops => ("GEMM throughput", "GEMM 算力"),
        Figure::StepP99P50 => ("step time P99/P50", "步时 P99/P50"),
        Figure::H2dGbS => ("host-to-GPU copy", "主机到 GPU 拷贝"),
        Figure::PcieGen => ("PCIe generation", "PCIe 代数"),
        Figure::PcieWidthLanes => ("PCIe lanes", "PCIe 通道数"),
        Figure::VisibleVramGib => ("visible VRAM", "可见显存"),
        Figure::UtilBeforeLoadP95Pct => ("GPU busy before load (P95)", "加载前 GPU 利用率（P95）"),
        Figure::DiskReadMbS => ("disk seq. read", "磁盘顺序读"),
        Figure::DiskWriteMbS => ("disk seq. write", "磁盘顺序写"),
        Figure::DiskRandReadIops => ("disk 4 KiB random read", "磁盘 4 KiB 随机读"),
        Figure::DownloadMbitS => ("download", "下载"),
    };
    pick(lang, en, zh)
}

/// A figure's value with its unit.
fn value(fig: Figure, v: f64) -> String {
    let whole = |x: f64| group_thousands(&format!("{x:.0}"));
    match fig {
        Figure::GemmTflops => format!("{} TFLOPS", number(v, 1)),
        Figure::StepP99P50 => format!("×{v:.2}"),
        Figure::H2dGbS => format!("{} GB/s", number(v, 1)),
        Figure::PcieGen => format!("Gen{}", number(v, 1)),
        Figure::PcieWidthLanes => format!("×{}", number(v, 1)),
        Figure::VisibleVramGib => format!("{} GiB", number(v, 1)),
        Figure::UtilBeforeLoadP95Pct => format!("{} %", number(v, 0)),
        Figure::DiskReadMbS | Figure::DiskWriteMbS => format!("{} MB/s", whole(v)),
        Figure::DiskRandReadIops => format!("{} IOPS", whole(v)),
        Figure::DownloadMbitS => format!("{} Mbit/s", whole(v)),
    }
}

/// One group per row: its nodes, GPUs and outliers, and every figure's spread.
fn groups_view(state: State) -> AnyView {
    let lang = state.lang;
    let rows = move || {
        let lang = lang.get();
        state.report.with(|r| {
            r.as_ref()
                .map(|r| {
                    r.groups
                        .iter()
                        .map(|g| {
                            let spreads = g
                                .figures
                                .iter()
                                .map(|s| spread_item(lang, s))
                                .collect_view();
                            view! {
                                <tr data-group=g.id.clone()>
                                    <th scope="row" translate="no" class="group-name">{group_name(lang, g)}</th>
                                    <td class="nodes">{group_thousands(&g.nodes.to_string())}</td>
                                    <td class="gpus">{group_thousands(&g.gpus.to_string())}</td>
                                    <td class="outlier-nodes">{g.outlier_nodes}</td>
                                    <td class="group-findings">{g.findings}</td>
                                    <td><ul class="spreads">{spreads}</ul></td>
                                </tr>
                            }
                        })
                        .collect_view()
                })
                .into_iter()
                .collect_view()
        })
    };
    view! {
        <h3>{move || t(lang.get(), Label::FleetGroups)}</h3>
        <div class="table-wrap">
            <table id="fleet-groups">
                <thead>
                    <HeaderRow lang=lang labels=&[Label::FleetGroup, Label::FleetNodeCount, Label::FleetGpuCount, Label::FleetOutlierNodes, Label::FleetFindingCount, Label::FleetSpread] />
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        {findings_view(state)}
    }
    .into_any()
}

/// The group findings: each warning most of a group's nodes carry, once, with its count.
fn findings_view(state: State) -> impl IntoView {
    let lang = state.lang;
    let items = move || {
        let lang = lang.get();
        state.report.with(|r| {
            let findings = r.as_ref().map(|r| r.group_findings.clone()).unwrap_or_default();
            if findings.is_empty() {
                return view! { <p id="fleet-findings-none" class="hint">{t(lang, Label::FleetFindingsNone)}</p> }.into_any();
            }
            let items = findings
                .into_iter()
                .map(|g| {
                    let (kind, finding, level) = (
                        model::verdict_kind(lang, g.verdict),
                        model::finding(lang, g.finding),
                        model::verdict_level(lang, g.level),
                    );
                    let count = match lang {
                        Lang::En => format!("{} of {} nodes", g.nodes, g.of),
                        Lang::Zh => format!("{} 个节点中的 {} 个", g.of, g.nodes),
                    };
                    let text = match lang {
                        Lang::En => format!("{kind}: {finding} ({level}), {count}"),
                        Lang::Zh => format!("{kind}：{finding}（{level}），{count}"),
                    };
                    view! {
                        <li data-group=g.group.clone() data-kind=g.verdict.id() data-nodes=g.nodes>
                            <span translate="no">{g.group.clone()}</span>
                            {pick(lang, " — ", "——")}
                            {text}
                        </li>
                    }
                })
                .collect_view();
            view! { <ul id="fleet-findings">{items}</ul> }.into_any()
        })
    };
    view! {
        <h3>{move || t(lang.get(), Label::FleetFindings)}</h3>
        {items}
    }
}

/// A figure's spread: its name, a box from P5 to P95 with a tick at P50 over the outlier band,
/// and the figures in words.
fn spread_item(lang: Lang, s: &Spread) -> impl IntoView + use<> {
    let (w, h) = (140.0, 14.0);
    let lo = s.p5.min(s.low).min(s.p50);
    let hi = s.p95.max(s.high).max(s.p50);
    let span = (hi - lo).max(f64::EPSILON.max(hi.abs() * 1e-9));
    let x = |v: f64| 2.0 + (v - lo) / span * (w - 4.0);
    let fig = s.figure;
    let text = match lang {
        Lang::En => format!(
            "P50 {} (P5 {} – P95 {}; n = {})",
            value(fig, s.p50),
            value(fig, s.p5),
            value(fig, s.p95),
            s.n
        ),
        Lang::Zh => format!(
            "P50 {}（P5 {} – P95 {}；样本 {}）",
            value(fig, s.p50),
            value(fig, s.p5),
            value(fig, s.p95),
            s.n
        ),
    };
    let band = match lang {
        Lang::En if s.judged => format!(
            "; band {} – {}",
            value(fig, s.low.max(0.0)),
            value(fig, s.high)
        ),
        Lang::Zh if s.judged => format!(
            "；正常区间 {} – {}",
            value(fig, s.low.max(0.0)),
            value(fig, s.high)
        ),
        _ => format!(" {}", t(lang, Label::FleetNotJudged)),
    };
    let title = format!("{}: {text}{band}", figure_name(lang, fig));
    let aria = title.clone();
    view! {
        <li data-figure=fig.id() data-p50=format!("{}", s.p50)>
            <span class="figure-name">{figure_name(lang, fig)}</span>
            <svg class="spark" viewBox=format!("0 0 {w} {h}") width=w height=h role="img" aria-label=aria>
                <title>{title}</title>
                {s.judged.then(|| view! {
                    <rect class="band" x=format!("{:.1}", x(s.low.max(lo))) y="0" width=format!("{:.1}", (x(s.high.min(hi)) - x(s.low.max(lo))).max(1.0)) height=h />
                })}
                <line class="chart-axis" x1=format!("{:.1}", x(s.p5)) x2=format!("{:.1}", x(s.p95)) y1="7" y2="7" />
                <rect class="box" x=format!("{:.1}", x(s.p5)) y="3" width=format!("{:.1}", (x(s.p95) - x(s.p5)).max(1.5)) height="8" />
                <line class="median" x1=format!("{:.1}", x(s.p50)) x2=format!("{:.1}", x(s.p50)) y1="1" y2="13" />
            </svg>
            <span class="muted">{text}{band}</span>
        </li>
    }
}

/// The outlier threshold; a new value re-runs the report.
fn threshold_view(state: State) -> AnyView {
    let lang = state.lang;
    let on_input = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        state.k_text.set(text.clone());
        match rules_for(text) {
            None => state.k_bad.set(true),
            Some(rules) => {
                state.k_bad.set(false);
                if let Some(fleet) = state.fleet.get_untracked() {
                    state
                        .report
                        .set(Some(Arc::new(report(&fleet.nodes, &rules))));
                }
            }
        }
    };
    view! {
        <div class="field">
            <label for="fleet-k">{move || t(lang.get(), Label::FleetK)}</label>
            <input
                id="fleet-k"
                type="text"
                inputmode="decimal"
                prop:value=move || state.k_text.get()
                aria-invalid=move || state.k_bad.get().to_string()
                aria-describedby="fleet-k-error"
                on:input=on_input
            />
            <span class="field-error" id="fleet-k-error" role="alert">
                {move || state.k_bad.get().then(|| t(lang.get(), Label::FleetKBad))}
            </span>
        </div>
        <div class="field">
            <label for="fleet-filter">{move || t(lang.get(), Label::FleetFilter)}</label>
            <input id="fleet-filter" type="search" prop:value=move || state.filter.get() on:input=move |ev| state.filter.set(event_target_value(&ev)) />
        </div>
    }
    .into_any()
}

fn matches(filter: &str, row: &NodeRow) -> bool {
    filter.is_empty()
        || row.label.to_lowercase().contains(filter)
        || row.source.to_lowercase().contains(filter)
}

/// Why a node is an outlier, in words.
fn reason(lang: Lang, o: &Outlier) -> String {
    let gpu = o
        .gpu
        .map(|g| pick(lang, format!(" (GPU #{g})"), format!("（GPU #{g}）")))
        .unwrap_or_default();
    match (o.reason, o.figure, o.verdict, o.finding) {
        (Reason::BelowBand | Reason::AboveBand, Some(fig), _, _) => {
            let v = |x: Option<f64>| value(fig, x.unwrap_or_default());
            let (val, low, high, median) = (
                v(o.value),
                value(fig, o.low.unwrap_or_default().max(0.0)),
                v(o.high),
                v(o.median),
            );
            let below = o.reason == Reason::BelowBand;
            match lang {
                Lang::En => format!(
                    "{}{gpu}: {val}, {} the band {low} – {high} (median {median})",
                    figure_name(lang, fig),
                    if below { "below" } else { "above" }
                ),
                Lang::Zh => format!(
                    "{}{gpu}：{val}，{}正常区间 {low} – {high}（中位数 {median}）",
                    figure_name(lang, fig),
                    if below { "低于" } else { "高于" }
                ),
            }
        }
        (_, _, Some(kind), Some(finding)) => {
            let level = o
                .level
                .map(|l| model::verdict_level(lang, l))
                .unwrap_or_default();
            match lang {
                Lang::En => format!(
                    "{}{gpu}: {} ({level})",
                    model::verdict_kind(lang, kind),
                    model::finding(lang, finding)
                ),
                Lang::Zh => format!(
                    "{}{gpu}：{}（{level}）",
                    model::verdict_kind(lang, kind),
                    model::finding(lang, finding)
                ),
            }
        }
        _ => String::new(),
    }
}

/// Opens node `index` of the fleet in the profile card.
fn open_node(state: State, fleet: &Fleet, index: usize) {
    let (Some(node), Some(row)) = (fleet.nodes.get(index), fleet.rows.get(index)) else {
        return;
    };
    let name = if row.label == row.source {
        row.source.clone()
    } else {
        format!("{} ({})", row.label, row.source)
    };
    state.opener.run((name, node.profile.clone()));
}

fn outliers_view(state: State, fleet: Arc<Fleet>) -> AnyView {
    let lang = state.lang;
    let shown = {
        let fleet = fleet.clone();
        Memo::new(move |_| {
            let filter = state.filter.get().trim().to_lowercase();
            state.report.with(|r| {
                r.as_ref()
                    .map(|r| {
                        r.outliers
                            .iter()
                            .enumerate()
                            .filter(|(_, o)| {
                                fleet
                                    .rows
                                    .get(o.index)
                                    .is_some_and(|row| matches(&filter, row))
                            })
                            .map(|(i, _)| i)
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            })
        })
    };
    let row = {
        let fleet = fleet.clone();
        move |i: usize| {
            let lang = lang.get();
            let Some(o) = state
                .report
                .with(|r| r.as_ref().and_then(|r| r.outliers.get(i).cloned()))
            else {
                return ().into_any();
            };
            let label = fleet
                .rows
                .get(o.index)
                .map(|r| r.label.clone())
                .unwrap_or_default();
            let group = state.report.with(|r| {
                r.as_ref()
                    .and_then(|r| r.groups.iter().find(|g| g.id == o.group))
                    .map(|g| group_name(lang, g))
                    .unwrap_or_default()
            });
            let fleet = fleet.clone();
            let index = o.index;
            let data = label.clone();
            view! {
                <div class="wrow" data-node=data data-reason=o.reason.id() data-check=o.check()>
                    <button type="button" class="link node-link" translate="no" on:click=move |_| open_node(state, &fleet, index)>{label}</button>
                    " "<span class="muted" translate="no">{group}</span>" "
                    <span>{reason(lang, &o)}</span>
                </div>
            }
            .into_any()
        }
    };
    view! {
        <h3>{move || {
            let n = shown.with(Vec::len);
            let lang = lang.get();
            let n = group_thousands(&n.to_string());
            pick(lang, format!("{} ({n})", t(lang, Label::FleetOutliers)), format!("{}（{n}）", t(lang, Label::FleetOutliers)))
        }}</h3>
        {move || shown.with(Vec::is_empty).then(|| view! { <p class="note" id="fleet-no-outliers">{move || t(lang.get(), Label::FleetNoOutliers)}</p> })}
        {windowed("fleet-outliers", shown, row)}
    }
    .into_any()
}

fn nodes_view(state: State, fleet: Arc<Fleet>) -> AnyView {
    let lang = state.lang;
    let shown = {
        let fleet = fleet.clone();
        Memo::new(move |_| {
            let filter = state.filter.get().trim().to_lowercase();
            fleet
                .rows
                .iter()
                .enumerate()
                .filter(|(_, row)| matches(&filter, row))
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        })
    };
    let flagged = Memo::new(move |_| {
        state.report.with(|r| {
            r.as_ref()
                .map(|r| r.outliers.iter().map(|o| o.index).collect::<BTreeSet<_>>())
                .unwrap_or_default()
        })
    });
    let row = {
        let fleet = fleet.clone();
        move |i: usize| {
            let Some(r) = fleet.rows.get(i) else {
                return ().into_any();
            };
            let outlier = flagged.with(|f| f.contains(&i));
            let fleet = fleet.clone();
            view! {
                <div class="wrow" data-node=r.label.clone() data-outlier=outlier.to_string()>
                    <button type="button" class="link node-link" translate="no" on:click=move |_| open_node(state, &fleet, i)>{r.label.clone()}</button>
                    " "<span class="muted" translate="no">{r.source.clone()}</span>" "
                    <span translate="no">{r.gpus.clone()}</span>
                    {outlier.then(|| view! { " "<strong class="warn">{move || t(lang.get(), Label::FleetOutlierMark)}</strong> })}
                </div>
            }
            .into_any()
        }
    };
    view! {
        <h3>{move || {
            let lang = lang.get();
            let n = group_thousands(&shown.with(Vec::len).to_string());
            pick(lang, format!("{} ({n})", t(lang, Label::FleetNodes)), format!("{}（{n}）", t(lang, Label::FleetNodes)))
        }}</h3>
        {windowed("fleet-nodes", shown, row)}
    }
    .into_any()
}

/// A list that draws only the rows in view (and a few beyond each edge): a scrolled box with a
/// spacer as tall as every row, the drawn rows placed at their offsets.
fn windowed(
    id: &'static str,
    items: Memo<Vec<usize>>,
    row: impl Fn(usize) -> AnyView + Clone + Send + Sync + 'static,
) -> AnyView {
    let top = RwSignal::new(0.0_f64);
    let on_scroll = move |ev: leptos::ev::Event| {
        if let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            top.set(f64::from(el.scroll_top()));
        }
    };
    let rows = move || {
        let first = ((top.get() / ROW_PX) as usize).saturating_sub(OVERSCAN);
        let row = row.clone();
        items.with(|items| {
            items
                .iter()
                .enumerate()
                .skip(first)
                .take(VIEW_ROWS + 2 * OVERSCAN)
                .map(|(pos, &i)| {
                    view! {
                        <div role="listitem" class="wslot" style:top=format!("{:.0}px", pos as f64 * ROW_PX)>{row(i)}</div>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <div
            id=id
            class="windowed"
            role="list"
            tabindex="0"
            style:height=move || format!("{:.0}px", items.with(Vec::len).min(VIEW_ROWS) as f64 * ROW_PX + 2.0)
            on:scroll=on_scroll
        >
            <div class="wspace" style:height=move || format!("{:.0}px", items.with(Vec::len) as f64 * ROW_PX)>
                {rows}
            </div>
        </div>
    }
    .into_any()
}
