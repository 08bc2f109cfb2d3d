//! Probe profiles in the browser: open one or many (file picker or drag and drop), see the
//! latest one's host and GPU summary, compare all side by side — verdicts with their evidence,
//! the GEMM step-time spread as box plots — and let measured figures replace the plan's
//! assumptions. Files are read with the File API and parsed by `gpufare-core`; nothing is
//! uploaded.

use gpufare_core::numbers::money::group_thousands;
use gpufare_core::numbers::rng::fnv1a;
use gpufare_core::profile::document::{Profile, ProfileError, parse_profile};
use gpufare_core::profile::evidence::{MeasuredFactors, measured_factors, measured_round_trips};
use gpufare_core::profile::figures::{
    DiskFigures, GpuFigures, MachineFigures, NetworkFigures, machine_figures,
};
use gpufare_core::profile::verdict::{Level, Verdict};
use gpufare_core::profile::verdicts::analyse;
use gpufare_core::scenario::document::Scenario;
use gpufare_core::task::MeasuredRtt;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;
use wasm_bindgen::JsCast;

use crate::fields::HeaderRow;
use crate::format::{number, percent};
use crate::vocab::{Label, Lang, errors, model, pick, t};

/// Profiles are a few kilobytes; refuse anything absurd before reading it into memory.
const MAX_PROFILE_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

#[derive(Clone)]
enum LoadError {
    TooLarge,
    Unreadable,
    Duplicate,
    Profile(ProfileError),
}

/// A profile that loaded, with what core derives from it (once, when it loads). Held behind an
/// `Arc` in the signal, so a re-render copies pointers, not the profile's sample series.
struct Machine {
    key: u64,
    file_name: String,
    profile: Profile,
    verdicts: Vec<Verdict>,
    figures: MachineFigures,
    factors: Vec<MeasuredFactors>,
    round_trips: Vec<MeasuredRtt>,
}

/// A loaded profile with what core derives from it. Verdicts are recomputed here from the raw
/// facts, whatever the file says.
fn machine(key: u64, file_name: String, profile: Profile) -> Machine {
    Machine {
        key,
        file_name,
        verdicts: analyse(&profile),
        figures: machine_figures(&profile),
        factors: measured_factors(&profile),
        round_trips: measured_round_trips(&profile),
        profile,
    }
}

async fn read_files(
    files: Vec<web_sys::File>,
    machines: RwSignal<Vec<Arc<Machine>>>,
    errors: RwSignal<Vec<(String, LoadError)>>,
) {
    let mut new_errors = Vec::new();
    for file in files {
        let name = file.name();
        if file.size() > MAX_PROFILE_BYTES {
            new_errors.push((name, LoadError::TooLarge));
            continue;
        }
        let Some(text) = crate::fields::file_text(&file).await else {
            new_errors.push((name, LoadError::Unreadable));
            continue;
        };
        match parse_profile(&text) {
            Err(e) => new_errors.push((name, LoadError::Profile(e))),
            Ok(profile) => {
                let key = fnv1a(&text);
                if machines.with_untracked(|m| m.iter().any(|x| x.key == key)) {
                    new_errors.push((name, LoadError::Duplicate));
                    continue;
                }
                machines.update(|m| m.push(Arc::new(machine(key, name, profile))));
            }
        }
    }
    errors.set(new_errors);
}

fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
        .unwrap_or_default()
}

/// Opens profiles in the profile card, from its picker or from elsewhere on the page (a node of
/// a fleet).
#[derive(Clone, Copy)]
pub struct Opener {
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    panel: RwSignal<Option<ViewFn>>,
    failed: RwSignal<bool>,
}

impl Opener {
    /// The card's state, made once for the page.
    pub fn new(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> Opener {
        Opener {
            lang,
            scenario,
            panel: RwSignal::new(None),
            failed: RwSignal::new(false),
        }
    }

    fn shown(self, loaded: Result<Option<ViewFn>, leptos::wasm_split::SplitLoaderError>) {
        match loaded {
            Ok(view) => {
                self.failed.set(false);
                if let Some(view) = view {
                    self.panel.set(Some(view));
                }
            }
            Err(_) => self.failed.set(true),
        }
    }

    /// Reads profile files into the card.
    pub fn open_files(self, files: Vec<web_sys::File>) {
        if files.is_empty() {
            return;
        }
        spawn_local(async move {
            let loaded = open_profiles(files, self.lang, self.scenario).await;
            self.shown(loaded);
        });
    }

    /// Shows a profile already read (a fleet's node, named `name`) in the card's comparison,
    /// and scrolls the card into view. A profile shown before is not added twice.
    pub fn open_profile(self, name: String, profile: Profile) {
        spawn_local(async move {
            let loaded = show_profile(name, profile, self.lang, self.scenario).await;
            self.shown(loaded);
            if let Some(card) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("profile-heading"))
            {
                card.scroll_into_view();
            }
        });
    }
}

/// The profile card. The picker is part of the first page load; reading, analysing and showing
/// profiles live in a chunk of the site fetched when the first file is chosen.
#[component]
pub fn ProfileViewer(lang: ReadSignal<Lang>, opener: Opener) -> impl IntoView {
    let (panel, failed) = (opener.panel, opener.failed);
    let open = move |files: Vec<web_sys::File>| opener.open_files(files);
    let on_change = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let files = files_of(input.files());
        // Clear the picker so choosing the same file again is noticed (and reported as a duplicate).
        input.set_value("");
        open(files);
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        open(files_of(ev.data_transfer().and_then(|d| d.files())));
    };

    view! {
        <section aria-labelledby="profile-heading" class="card wide">
            <h2 id="profile-heading">{move || t(lang.get(), Label::ProfileHeading)}</h2>
            <div class="field dropzone" on:dragover=move |ev: leptos::ev::DragEvent| ev.prevent_default() on:drop=on_drop>
                <label for="profile-file">{move || t(lang.get(), Label::OpenProfile)}</label>
                <input
                    id="profile-file"
                    type="file"
                    multiple
                    accept=".json,application/json"
                    aria-describedby="profile-hint"
                    on:change=on_change
                />
                <span class="hint" id="profile-hint">{move || t(lang.get(), Label::ProfileHint)}</span>
            </div>
            {move || failed.get().then(|| view! { <p class="field-error" role="alert">{move || t(lang.get(), Label::ChunkFailed)}</p> })}
            {move || panel.get().map(|view| view.run())}
        </section>
    }
}

/// The loaded profiles and the files refused, for the page's lifetime.
type Loaded = (
    RwSignal<Vec<Arc<Machine>>>,
    RwSignal<Vec<(String, LoadError)>>,
);

thread_local! {
    static LOADED: std::cell::Cell<Option<Loaded>> = const { std::cell::Cell::new(None) };
}

/// Reads `files` into the profile card. The first call also returns the view of what was
/// loaded, for the card to show from then on; later calls add to it. The error is the chunk
/// holding this code failing to load.
#[leptos::wasm_split::wasm_split(profiles, wasm_split_path = ::leptos::wasm_split, fallible)]
fn open_profiles(
    files: Vec<web_sys::File>,
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
) -> Result<Option<ViewFn>, leptos::wasm_split::SplitLoaderError> {
    let (view, (machines, errors)) = match LOADED.get() {
        Some(loaded) => (None, loaded),
        None => {
            let loaded = (RwSignal::new(Vec::new()), RwSignal::new(Vec::new()));
            LOADED.set(Some(loaded));
            (Some(loaded_view(lang, scenario, loaded)), loaded)
        }
    };
    spawn_local(read_files(files, machines, errors));
    Ok(view)
}

/// Adds a profile already read to the card (as [`open_profiles`] does for files); the key is its
/// name, so the same node opened twice is shown once.
#[leptos::wasm_split::wasm_split(profiles, wasm_split_path = ::leptos::wasm_split, fallible)]
fn show_profile(
    name: String,
    profile: Profile,
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
) -> Result<Option<ViewFn>, leptos::wasm_split::SplitLoaderError> {
    let (view, (machines, errors)) = match LOADED.get() {
        Some(loaded) => (None, loaded),
        None => {
            let loaded = (RwSignal::new(Vec::new()), RwSignal::new(Vec::new()));
            LOADED.set(Some(loaded));
            (Some(loaded_view(lang, scenario, loaded)), loaded)
        }
    };
    let key = fnv1a(&format!("node {name}"));
    if !machines.with_untracked(|m| m.iter().any(|x| x.key == key)) {
        machines.update(|m| m.push(Arc::new(machine(key, name, profile))));
    }
    errors.set(Vec::new());
    Ok(view)
}

/// What the profile card shows under its picker: refused files, the latest profile's summary
/// and the comparison of all of them.
fn loaded_view(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>, loaded: Loaded) -> ViewFn {
    let (machines, errors) = loaded;
    ViewFn::from(move || {
        view! {
            {move || {
                let lang = lang.get();
                errors
                    .get()
                    .into_iter()
                    .map(|(name, err)| {
                        let message = match &err {
                            LoadError::TooLarge => t(lang, Label::FileTooLarge).to_owned(),
                            LoadError::Unreadable => t(lang, Label::FileUnreadable).to_owned(),
                            LoadError::Duplicate => t(lang, Label::DuplicateProfile).to_owned(),
                            LoadError::Profile(e) => errors::profile_error(lang, e),
                        };
                        view! { <p class="field-error" id="profile-error" role="alert">{format!("{name}: {message}")}</p> }
                    })
                    .collect_view()
            }}
            {move || machines.with(|m| m.last().cloned()).map(|m| summary(lang.get(), &m.file_name, &m.profile))}
            {move || (!machines.with(Vec::is_empty)).then(|| view! { <Compare lang=lang machines=machines scenario=scenario /> })}
        }
        .into_any()
    })
}

fn level_class(level: Level) -> &'static str {
    match level {
        Level::Ok => "lvl-ok",
        Level::Info => "lvl-info",
        Level::Warn => "lvl-warn",
        Level::Alert => "lvl-alert",
    }
}

/// The neighbours' load a profile measured on a time-shared card (its GPU's utilisation before
/// any load of ours): what it gives the time-shared offers it describes. `None` for a whole card
/// or a partitioned one (MIG), whose speed does not depend on the neighbours' load.
fn shared_load(f: &MeasuredFactors) -> Option<f64> {
    let time_shared = f.tenancy.is_none_or(|t| t.sharing().is_some());
    f.neighbour_load.filter(|_| f.shared && time_shared)
}

/// Machines side by side: verdicts with evidence, the step-time spread, and the switch that
/// feeds each machine's measured figures into the plan.
#[component]
fn Compare(
    lang: ReadSignal<Lang>,
    machines: RwSignal<Vec<Arc<Machine>>>,
    scenario: RwSignal<Scenario>,
) -> impl IntoView {
    view! {
        <h3>{move || t(lang.get(), Label::Compare)}</h3>
        <div class="table-wrap">
            <table id="profile-compare">
                <thead>
                    <HeaderRow lang=lang labels=&[
                        Label::Machine, Label::GpuVram, Label::PcieLink, Label::Disk, Label::Network,
                        Label::Verdicts, Label::UseMeasured,
                    ] />
                </thead>
                <tbody>
                    {move || machines.get().into_iter().map(|m| {
                        let factors = m.factors.clone();
                        // A shared card's utilisation before any load of ours is the neighbours'
                        // load of the time-shared offers it describes.
                        let has_factors = factors.iter().any(|f| {
                            f.slowdown.is_some() || f.io.is_some() || shared_load(f).is_some()
                        });
                        let checked = {
                            let f = factors.clone();
                            move || scenario.with(|s| !f.is_empty() && f.iter().all(|x| s.measured.contains(x)))
                        };
                        let toggle = {
                            let f = factors.clone();
                            move |ev: leptos::ev::Event| {
                                let on = event_target_checked(&ev);
                                let f = f.clone();
                                scenario.update(move |s| {
                                    s.measured.retain(|x| !f.contains(x));
                                    if on {
                                        s.measured.extend(f);
                                    }
                                });
                            }
                        };
                        let figures = m.figures.clone();
                        let unavailable = m.profile.gpus_unavailable.clone().unwrap_or_default();
                        let (gpus, links) = (figures.gpus.clone(), figures.gpus);
                        let (disk, network) = (figures.disk, figures.network);
                        let verdicts = m.verdicts.iter().map(|v| {
                            let evidence = v.evidence.iter().map(|e| format!("{}={}", e.key, e.value)).collect::<Vec<_>>().join(", ");
                            view! {
                                <li class=level_class(v.level) data-kind=v.kind.id().to_owned() data-finding=v.finding.id()>
                                    <strong>{
                                        let (kind, found) = (v.kind, v.finding);
                                        move || format!("{}: {}", model::verdict_kind(lang.get(), kind), model::finding(lang.get(), found))
                                    }</strong>
                                    <span class="muted">{
                                        let level = v.level;
                                        move || format!(" ({}) ", model::verdict_level(lang.get(), level))
                                    }</span>
                                    <span class="muted evidence" translate="no">{evidence}</span>
                                </li>
                            }
                        }).collect_view();
                        let file = m.file_name.clone();
                        let file_label = file.clone();
                        let key = m.key;
                        view! {
                            <tr data-file=file.clone()>
                                <th scope="row">
                                    <span translate="no">{file.clone()}</span><br />
                                    <span class="muted" translate="no">{m.profile.host.cpu_model.clone()}</span>
                                    <span class="muted">{
                                        let cores = m.profile.host.logical_cores;
                                        move || match lang.get() {
                                            Lang::En => format!(" · {cores} cores"),
                                            Lang::Zh => format!(" · {cores} 核"),
                                        }
                                    }</span><br />
                                    <button type="button" class="link" aria-label=move || format!("{} {file_label}", t(lang.get(), Label::Remove)) on:click=move |_| machines.update(|v| v.retain(|x| x.key != key))>"×"</button>
                                </th>
                                <td class="gpu-cell">{move || gpu_cell(lang.get(), &gpus, &unavailable)}</td>
                                <td class="pcie-cell">{move || pcie_cell(lang.get(), &links)}</td>
                                <td class="disk-cell">{move || disk_cell(lang.get(), disk)}</td>
                                <td class="net-cell">{move || network_cell(lang.get(), network)}</td>
                                <td><ul class="verdicts">{verdicts}</ul></td>
                                <td>
                                    {if has_factors {
                                        let targets = factors.clone();
                                        let applies_to = move || {
                                            let lang = lang.get();
                                            targets.iter().map(|f| {
                                                let class = match f.tenancy {
                                                    Some(kind) => model::tenancy(lang, kind),
                                                    None => t(lang, if f.shared { Label::Shared } else { Label::Dedicated }),
                                                };
                                                match shared_load(f) {
                                                    Some(l) => format!(
                                                        "{} · {class} · {} {} ({})",
                                                        f.gpu,
                                                        t(lang, Label::LoadUsed),
                                                        crate::format::number(l * 100.0, 1) + " %",
                                                        t(lang, Label::Measured),
                                                    ),
                                                    None => format!("{} · {class}", f.gpu),
                                                }
                                            }).collect::<Vec<_>>().join("; ")
                                        };
                                        view! {
                                            <input type="checkbox" class="use-measured" aria-label=move || t(lang.get(), Label::UseMeasured) prop:checked=checked on:change=toggle />
                                            <br /><span class="muted applies-to">{applies_to}</span>
                                        }.into_any()
                                    } else {
                                        view! { <span class="muted">{move || t(lang.get(), Label::NoBenchmark)}</span> }.into_any()
                                    }}
                                    {rtt_switch(lang, scenario, m.round_trips.clone())}
                                </td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        {move || machines.with(|m| spread_chart(lang.get(), m))}
        {move || machines.with(|m| utilisation_chart(lang.get(), m))}
    }
}

/// The switch that makes a profile's measured round trips the user's distances (a profile run
/// where the user is, with `--rtt-regions`); the hint when it has none.
fn rtt_switch(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    trips: Vec<MeasuredRtt>,
) -> AnyView {
    if trips.is_empty() {
        return view! { <br /><span class="muted rtt-hint">{move || t(lang.get(), Label::MeasuredRoundTripsHint)}</span> }
            .into_any();
    }
    let checked = {
        let trips = trips.clone();
        move || scenario.with(|s| trips.iter().all(|m| s.task.reach.measured_rtt.contains(m)))
    };
    let toggle = move |ev: leptos::ev::Event| {
        let on = event_target_checked(&ev);
        let trips = trips.clone();
        scenario.update(move |s| {
            let kept = &mut s.task.reach.measured_rtt;
            kept.retain(|x| !trips.iter().any(|m| m.place == x.place));
            if on {
                kept.extend(trips);
            }
        });
    };
    view! {
        <br />
        <label class="use-rtt-label">
            <input type="checkbox" class="use-rtt" prop:checked=checked on:change=toggle />
            {move || t(lang.get(), Label::MeasuredRoundTrips)}
        </label>
    }
    .into_any()
}

/// Each GPU with its visible against nominal memory; the reason when there are none.
fn gpu_cell(lang: Lang, gpus: &[GpuFigures], unavailable: &str) -> AnyView {
    if gpus.is_empty() {
        return view! { <span class="muted" translate="no">{unavailable.to_owned()}</span> }
            .into_any();
    }
    gpus.iter()
        .map(|g| {
            let memory = match (g.visible_gib, g.nominal_gb) {
                (Some(v), Some(n)) => {
                    let share = g.visible_share().map(percent).unwrap_or_default();
                    match lang {
                        Lang::En => format!("{v:.1} GiB visible of {} GB ({share})", number(n, 0)),
                        Lang::Zh => {
                            format!("可见 {v:.1} GiB / 标称 {} GB（{share}）", number(n, 0))
                        }
                    }
                }
                (Some(v), None) => match lang {
                    Lang::En => format!("{v:.1} GiB visible"),
                    Lang::Zh => format!("可见 {v:.1} GiB"),
                },
                _ => String::new(),
            };
            let slice = g.below_whole_card();
            view! {
                <div class="gpu" data-visible-share=g.visible_share().map(|s| format!("{s:.3}"))>
                    <span translate="no">{format!("#{} {}", g.index, g.name)}</span><br />
                    <span class=if slice { "warn" } else { "muted" }>{memory}</span>
                </div>
            }
        })
        .collect_view()
        .into_any()
}

/// The PCIe link as it runs, flagged when below what the card can do.
fn pcie_cell(lang: Lang, gpus: &[GpuFigures]) -> AnyView {
    let links: Vec<_> = gpus
        .iter()
        .filter_map(|g| Some((g, g.pcie_current?)))
        .collect();
    if links.is_empty() {
        return not_measured(lang);
    }
    links
        .into_iter()
        .map(|(g, (generation, lanes))| {
            let degraded = g.pcie_degraded().unwrap_or(false);
            let best = g.pcie_best();
            let note = match (degraded, best, lang) {
                (true, Some((gm, wm)), Lang::En) => format!(" (card: Gen{gm} ×{wm})"),
                (true, Some((gm, wm)), Lang::Zh) => format!("（卡可达 Gen{gm} ×{wm}）"),
                _ => String::new(),
            };
            view! {
                <div data-degraded=degraded.to_string() class=if degraded { "warn" } else { "" }>
                    {format!("Gen{generation} ×{lanes}{note}")}
                </div>
            }
        })
        .collect_view()
        .into_any()
}

fn disk_cell(lang: Lang, disk: Option<DiskFigures>) -> AnyView {
    let Some(d) = disk else {
        return not_measured(lang);
    };
    let (read, write, random) = match lang {
        Lang::En => ("seq. read", "seq. write", "4 KiB random read"),
        Lang::Zh => ("顺序读", "顺序写", "4 KiB 随机读"),
    };
    let rate = |x: Option<f64>| x.map(|v| format!("{} MB/s", whole(v)));
    let items = [
        (read, rate(d.seq_read_mb_s)),
        (write, rate(d.seq_write_mb_s)),
        (
            random,
            d.rand_read_iops.map(|v| format!("{} IOPS", whole(v))),
        ),
    ];
    list(&items)
}

fn network_cell(lang: Lang, network: Option<NetworkFigures>) -> AnyView {
    let Some(n) = network else {
        return not_measured(lang);
    };
    let (up, down, rtt) = match lang {
        Lang::En => ("iperf3 upload", "iperf3 download", "TCP connect (median)"),
        Lang::Zh => ("iperf3 上行", "iperf3 下行", "TCP 建连（中位数）"),
    };
    let rate = |x: Option<f64>| x.map(|v| format!("{} Mbit/s", whole(v)));
    let items = [
        (up, rate(n.upload_mbit_s)),
        (down, rate(n.download_mbit_s)),
        ("HTTP", rate(n.http_mbit_s)),
        (
            rtt,
            n.rtt_ms
                .map(|v| format!("{} {}", number(v, 2), pick(lang, "ms", "毫秒"))),
        ),
    ];
    list(&items)
}

/// Labelled figures, the missing ones left out.
fn list(items: &[(&'static str, Option<String>)]) -> AnyView {
    let rows = items
        .iter()
        .filter_map(|(label, value)| {
            let value = value.clone()?;
            Some(view! { <li>{format!("{label}: ")}<strong>{value}</strong></li> })
        })
        .collect_view();
    view! { <ul class="figures">{rows}</ul> }.into_any()
}

fn not_measured(lang: Lang) -> AnyView {
    view! { <span class="muted not-measured">{t(lang, Label::NotMeasured)}</span> }.into_any()
}

/// A whole number with thousands separators.
fn whole(x: f64) -> String {
    group_thousands(&format!("{x:.0}"))
}

/// Box plots of the GEMM step time per machine.
fn spread_chart(lang: Lang, machines: &[Arc<Machine>]) -> Option<AnyView> {
    let rows = machines
        .iter()
        .flat_map(|m| {
            m.profile.benchmarks.iter().filter_map(move |b| {
                let s = b.gemm_ms.as_ref()?.summary?;
                Some((format!("{} #{}", m.file_name, b.index), s))
            })
        })
        .collect();
    let ms = pick(lang, "ms", "毫秒");
    box_chart("spread-chart", t(lang, Label::StepSpread), rows, |s| {
        format!(
            "P50 {:.2} / P99 {:.2} {ms} (×{:.2})",
            s.p50,
            s.p99,
            s.tail_ratio().unwrap_or(1.0)
        )
    })
}

/// Box plots of GPU utilisation over each machine's sampling window (before any load of ours):
/// a busy GPU before we start means someone else is using it.
fn utilisation_chart(lang: Lang, machines: &[Arc<Machine>]) -> Option<AnyView> {
    let rows = machines
        .iter()
        .flat_map(|m| {
            m.figures.gpus.iter().filter_map(move |g| {
                Some((format!("{} #{}", m.file_name, g.index), g.utilisation_pct?))
            })
        })
        .collect();
    box_chart("util-chart", t(lang, Label::UtilSpread), rows, |s| {
        format!("P50 {:.0} / P95 {:.0} / P99 {:.0} %", s.p50, s.p95, s.p99)
    })
}

/// One box per row: whiskers min..max, box P50..P95, a red tick at P99, on a shared axis from 0.
fn box_chart(
    id: &'static str,
    title: &'static str,
    rows: Vec<(String, gpufare_core::numbers::stats::Summary)>,
    label: impl Fn(&gpufare_core::numbers::stats::Summary) -> String,
) -> Option<AnyView> {
    if rows.is_empty() {
        return None;
    }
    let (w, left, row_h) = (640.0, 200.0, 30.0);
    let max = rows
        .iter()
        .map(|(_, s)| s.max)
        .fold(0.0, f64::max)
        .max(1e-9);
    let x = |v: f64| left + v / max * (w - left - 200.0);
    let height = rows.len() as f64 * row_h + 20.0;
    let items = rows
        .iter()
        .enumerate()
        .map(|(i, (name, s))| {
            let y = 14.0 + i as f64 * row_h;
            view! {
                <g>
                    <text x=format!("{:.1}", left - 6.0) y=format!("{y:.1}") dy="4" text-anchor="end" class="chart-label">{name.clone()}</text>
                    <line x1=format!("{:.1}", x(s.min)) x2=format!("{:.1}", x(s.max)) y1=format!("{y:.1}") y2=format!("{y:.1}") class="chart-axis" />
                    <rect x=format!("{:.1}", x(s.p50)) y=format!("{:.1}", y - 7.0) width=format!("{:.1}", (x(s.p95) - x(s.p50)).max(2.0)) height="14" fill="#3f7cac" />
                    <line x1=format!("{:.1}", x(s.p99)) x2=format!("{:.1}", x(s.p99)) y1=format!("{:.1}", y - 9.0) y2=format!("{:.1}", y + 9.0) stroke="#b3261e" stroke-width="2" />
                    <text x=format!("{:.1}", w - 190.0) y=format!("{y:.1}") dy="4" class="chart-value">{label(s)}</text>
                </g>
            }
        })
        .collect_view();
    Some(
        view! {
            <h3>{title}</h3>
            <svg class="chart boxes" id=id viewBox=format!("0 0 {w} {height:.0}") role="img" aria-label=title>
                {items}
            </svg>
        }
        .into_any(),
    )
}

fn summary(lang: Lang, file_name: &str, profile: &Profile) -> impl IntoView + use<> {
    let host = &profile.host;
    let gpus = if profile.gpus.is_empty() {
        let why = profile.gpus_unavailable.clone().unwrap_or_default();
        view! { <p id="profile-gpus" class="note">{t(lang, Label::NoGpus)}" ("<span translate="no">{why}</span>")"</p> }
            .into_any()
    } else {
        let items = profile
            .gpus
            .iter()
            .map(|g| {
                let memory = g
                    .memory_total_gib()
                    .map(|m| format!(" — {m} GiB"))
                    .unwrap_or_default();
                view! { <li translate="no">{format!("#{} {}{}", g.index, g.name, memory)}</li> }
            })
            .collect_view();
        view! { <ul id="profile-gpus" class="gpus">{items}</ul> }.into_any()
    };
    let driver = profile
        .driver
        .as_ref()
        .and_then(|d| {
            d.driver_version
                .clone()
                .map(|v| (v, d.cuda_version.clone().unwrap_or_default()))
        })
        .map(|(v, cuda)| format!("{v} (CUDA {cuda})"));
    view! {
        <dl class="facts" id="profile-summary">
            <dt>{t(lang, Label::ProfileFile)}</dt>
            <dd translate="no">{file_name.to_owned()}</dd>
            <dt>{t(lang, Label::CpuModel)}</dt>
            <dd id="profile-cpu" translate="no">{host.cpu_model.clone()}</dd>
            <dt>{t(lang, Label::LogicalCores)}</dt>
            <dd id="profile-cores">{host.logical_cores}</dd>
            <dt>{t(lang, Label::Ram)}</dt>
            <dd id="profile-ram">{format!("{} GiB", group_thousands(&host.total_ram_gib().to_string()))}</dd>
            <dt>{t(lang, Label::Os)}</dt>
            <dd translate="no">{host.os.clone()}</dd>
            <dt>{t(lang, Label::Kernel)}</dt>
            <dd translate="no">{host.kernel.clone()}</dd>
            <dt>{t(lang, Label::ProbedAt)}</dt>
            <dd>{profile.created_at.clone()}</dd>
            <dt>{t(lang, Label::Driver)}</dt>
            <dd translate="no">{driver.unwrap_or_else(|| "—".to_owned())}</dd>
            <dt>{t(lang, Label::ProfileGpus)}</dt>
            <dd>{gpus}</dd>
        </dl>
    }
}
