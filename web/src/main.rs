//! The gpufare site: a Leptos client-side app compiled to WebAssembly.
//!
//! Components only hold signals and render; every figure comes from `gpufare-core`, the same code
//! the CLI runs. The scenario lives in one signal, saved to localStorage and mirrored into the URL
//! fragment as a share link. Nothing typed or uploaded leaves the browser.
//!
//! The page (this file) puts the panels together; each panel imports only the shared pieces
//! listed before it, never another panel (`cargo xtask layers` checks it):
//!
//! 1. [`vocab`] — every word in English and Simplified Chinese;
//! 2. [`clock`] — today's date from the browser;
//! 3. [`format`] — numbers with units and currency;
//! 4. [`fields`] — form fields, disclosures and chunks loaded on first use;
//! 5. [`files`] — files saved for the user;
//! 6. [`charts`] — the SVG charts;
//! 7. [`facts`] — facts more than one panel shows;
//! 8. [`picks`] — the offer a panel shows, and the links that open it;
//! 9. [`state`] — the scenario saved and shared;
//! 10. [`planner`] — the plan on screen, from the Web Worker;
//! 11. [`task_form`], [`estimator_view`], [`reach_view`], [`serving_view`], [`results`],
//!     [`risk_view`], [`details_view`], [`export_view`], [`diff_view`], [`offers`], [`trace_view`],
//!     [`queue_view`], [`catalog_io`], [`rent_view`], [`profile_view`], [`fleet_view`] — the panels.

mod catalog_io;
mod charts;
mod clock;
mod details_view;
mod diff_view;
mod estimator_view;
mod export_view;
mod facts;
mod fields;
mod files;
mod fleet_view;
mod format;
mod offers;
mod picks;
mod planner;
mod profile_view;
mod queue_view;
mod reach_view;
mod rent_view;
mod results;
mod risk_view;
mod serving_view;
mod state;
mod task_form;
mod trace_view;
mod vocab;

use leptos::prelude::*;

use crate::state::Origin;
use crate::vocab::{Label, t};

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// The whole page.
#[component]
fn App() -> impl IntoView {
    let (lang, set_lang) = signal(vocab::browser_lang());
    Effect::new(move |_| vocab::set_document_lang(lang.get()));
    let (initial, origin) = state::initial_scenario();
    let scenario = RwSignal::new(initial);
    state::keep_saved(scenario);
    // Computed in a Web Worker after every edit; the page keeps the last plan until it arrives.
    let planned = planner::planner(scenario);
    let plan = planned.result;
    let share = RwSignal::new(None::<String>);
    // The offer whose interruption risk is shown (none picked: the recommended one).
    let pick = RwSignal::new(None::<String>);
    // The offer whose sharing and queue details are shown (none picked: the recommended one).
    let details = RwSignal::new(None::<String>);
    // Opens profiles in the profile card: from its picker, or a fleet's node.
    let opener = profile_view::Opener::new(lang, scenario);
    let open_profile = Callback::new(move |(name, profile)| opener.open_profile(name, profile));

    view! {
        <header>
            <div>
                <h1>"gpufare"</h1>
                <p>{move || t(lang.get(), Label::Tagline)}</p>
            </div>
            <div class="actions">
                <button
                    type="button"
                    id="share"
                    on:click=move |_| share.set(Some(scenario.with_untracked(state::share_url)))
                >
                    {move || t(lang.get(), Label::Share)}
                </button>
                <button
                    type="button"
                    id="reset"
                    on:click=move |_| {
                        state::clear_saved();
                        share.set(None);
                        scenario.set(state::default_scenario());
                    }
                >
                    {move || t(lang.get(), Label::Reset)}
                </button>
                <button
                    type="button"
                    id="lang-toggle"
                    translate="no"
                    lang=move || lang.get().other().tag()
                    on:click=move |_| set_lang.update(|l| *l = l.other())
                    aria-label=move || t(lang.get(), Label::SwitchLanguageHint)
                >
                    {move || t(lang.get(), Label::SwitchLanguage)}
                </button>
            </div>
        </header>
        {match origin {
            Origin::BadLink(e, saved) => Some(view! {
                <p class="banner" role="alert" id="link-error">
                    {move || {
                        let lang = lang.get();
                        let why = vocab::errors::scenario_error(lang, &e);
                        let shown = if saved { Label::LinkBadSaved } else { Label::LinkBad };
                        format!("{} {}: {why}", t(lang, shown), t(lang, Label::LinkBadDetail))
                    }}
                </p>
            }),
            _ => None,
        }}
        {move || share.get().map(|url| view! {
            <div class="banner share">
                <label for="share-link">{move || t(lang.get(), Label::ShareHint)}</label>
                <input id="share-link" type="text" readonly prop:value=url />
            </div>
        })}
        <main
            id="app"
            data-ready="true"
            data-plan=move || if planned.pending.get() { "pending" } else { "current" }
            data-planner=move || planned.engine.get().tag()
        >
            <div class="column">
                <task_form::TaskForm lang=lang scenario=scenario>
                    <estimator_view::Estimator lang=lang scenario=scenario />
                </task_form::TaskForm>
                <serving_view::TrafficEditor lang=lang scenario=scenario />
                <reach_view::ReachForm lang=lang scenario=scenario />
                <task_form::SettingsForm lang=lang scenario=scenario />
            </div>
            <div
                class="results-column"
                aria-busy=move || planned.pending.get().to_string()
                data-slow=move || planned.slow.get().to_string()
            >
                <export_view::ExportBar lang=lang scenario=scenario plan=planned />
                <diff_view::BudgetDiffView lang=lang scenario=scenario plan=planned />
                <results::Results lang=lang scenario=scenario plan=plan pick=pick details=details first=planned.first>
                    <risk_view::RiskPanel lang=lang plan=plan pick=pick />
                    <details_view::DetailsPanel lang=lang scenario=scenario plan=plan pick=details />
                </results::Results>
                <serving_view::ServingPanel lang=lang scenario=scenario plan=plan />
            </div>
            <offers::OffersTable
                lang=lang
                scenario=scenario
                footer=view! { <catalog_io::CatalogIo lang=lang scenario=scenario /> }.into_any()
            >
                <trace_view::TracesPanel lang=lang scenario=scenario pick=pick />
                <queue_view::QueuePanel lang=lang scenario=scenario details=details />
            </offers::OffersTable>
            <fields::Disclosure id="quick-rent" class="card wide" summary=Signal::derive(move || t(lang.get(), Label::QuickRent).to_owned())>
                <rent_view::RentCalculator lang=lang />
            </fields::Disclosure>
            <profile_view::ProfileViewer lang=lang opener=opener />
            <fleet_view::FleetViewer lang=lang scenario=scenario opener=open_profile />
        </main>
        <footer>
            <p>{move || t(lang.get(), Label::Privacy)}</p>
        </footer>
    }
}
