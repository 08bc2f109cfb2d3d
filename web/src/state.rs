//! Where the scenario lives between visits: the page's URL fragment (a share link) and
//! localStorage. Nothing is sent anywhere; the fragment never leaves the browser.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::scenario::document::{Scenario, ScenarioError, parse_scenario};
use gpufare_core::scenario::share::{decode_share_for, encode_share};
use gpufare_core::task::Reach;
use gpufare_core::task::presets::preset;
use leptos::prelude::*;

/// The localStorage key of the saved scenario.
pub const STORAGE_KEY: &str = "gpufare.scenario";
/// The localStorage key of the URL fragment this browser last wrote (without `#s=`).
const MIRRORED_KEY: &str = "gpufare.mirrored";
/// The localStorage key of where the user is and what they can buy (the task's `reach`), kept
/// apart from the scenario so that a new preset or a reset keeps it.
const REACH_KEY: &str = "gpufare.reach";
/// The preset a first visit starts from.
pub const DEFAULT_PRESET: &str = "qlora_7b";

/// Where the starting scenario came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A share link in the URL.
    Link,
    /// The copy saved in this browser.
    Saved,
    /// A fresh default.
    Default,
    /// A share link that could not be read; the saved copy (`true`) or the default was used
    /// instead. The saved copy is never replaced by a link that cannot be read.
    BadLink(ScenarioError, bool),
}

/// The default scenario: the default preset, nothing edited, with where the user is and what
/// they can buy as this browser remembers it.
pub fn default_scenario() -> Scenario {
    let mut task =
        preset(DEFAULT_PRESET).unwrap_or_else(|| preset("code_check").expect("built-in preset"));
    task.reach = remembered_reach();
    dated(Scenario::new(task, Some(DEFAULT_PRESET)))
}

/// Where the user is and what they can buy, as last chosen in this browser (the default: both
/// markets, no location, when nothing usable is stored).
pub fn remembered_reach() -> Reach {
    storage()
        .and_then(|s| s.get_item(REACH_KEY).ok().flatten())
        .and_then(|text| serde_json::from_str::<Reach>(&text).ok())
        .filter(|r| r.validate().is_ok())
        .unwrap_or_default()
}

/// Remembers where the user is and what they can buy.
fn remember_reach(reach: &Reach) {
    if let Some(storage) = storage()
        && let Ok(text) = serde_json::to_string(reach)
    {
        let _ = storage.set_item(REACH_KEY, &text);
    }
}

/// `scenario` with prices' ages counted to this browser's today, whatever day it was saved or
/// shared on. It travels in the scenario's settings, so the plan worker counts to the same day.
fn dated(mut scenario: Scenario) -> Scenario {
    scenario.settings.today = Some(crate::clock::today());
    scenario
}

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

fn link_payload() -> Option<String> {
    let hash = window()?.location().hash().ok()?;
    hash.strip_prefix("#s=").map(str::to_owned)
}

/// The scenario saved in this browser, if there is one that can be read. A queue trace on an
/// offer the catalog no longer holds (a newer site dropped the row) is let go rather than the
/// whole copy: it is the user's own work, and the trace had nothing left to price.
fn saved_scenario() -> Option<Scenario> {
    let text = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())?;
    let mut scenario = parse_scenario(&text).ok()?;
    while let Err(ScenarioError::QueueTraceOffer { offer }) =
        scenario.validate_offers(default_catalog())
    {
        scenario.detach_queue_trace(&offer);
    }
    Some(scenario)
}

/// The scenario to start with: a share link wins, then the saved copy, then the default. A link
/// that cannot be read falls back to the saved copy, so opening it loses nothing.
pub fn initial_scenario() -> (Scenario, Origin) {
    let (scenario, origin) = first_scenario();
    (dated(scenario), origin)
}

fn first_scenario() -> (Scenario, Origin) {
    if let Some(payload) = link_payload() {
        // The fragment this browser last wrote itself: the saved copy is as new or newer (it is
        // saved at every edit, the URL only once typing pauses), so a quick reload loses nothing.
        let own = storage()
            .and_then(|s| s.get_item(MIRRORED_KEY).ok().flatten())
            .is_some_and(|mirrored| mirrored == payload);
        if own && let Some(s) = saved_scenario() {
            return (s, Origin::Saved);
        }
        return match decode_share_for(&payload, default_catalog()) {
            Ok(s) => (s, Origin::Link),
            Err(e) => match saved_scenario() {
                Some(s) => (s, Origin::BadLink(e, true)),
                None => (default_scenario(), Origin::BadLink(e, false)),
            },
        };
    }
    match saved_scenario() {
        Some(s) => (s, Origin::Saved),
        None => (default_scenario(), Origin::Default),
    }
}

/// How long typing must pause before the URL fragment follows the scenario.
const MIRROR_AFTER: std::time::Duration = std::time::Duration::from_millis(300);

/// Keeps the scenario saved: in localStorage at every edit, and mirrored into the URL fragment
/// once typing pauses ([`MIRROR_AFTER`]). Rewriting the URL costs the browser several
/// milliseconds, too much for every keystroke. A reload (or a restored tab) before the URL has
/// caught up still finds the newest scenario: [`initial_scenario`] prefers the saved copy over
/// the fragment this browser wrote last. A fragment the user navigated to meanwhile (a pasted
/// link) is left alone.
pub fn keep_saved(scenario: RwSignal<Scenario>) {
    let timer = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        scenario.with(save);
        scenario.with(|s| remember_reach(&s.task.reach));
        if let Some(handle) = timer.get_value() {
            handle.clear();
        }
        // Only this timer rewrites the fragment; if it changed before the timer ran, the user
        // navigated (pasted a link) and the URL is theirs.
        let seen = fragment();
        let handle = set_timeout_with_handle(
            move || {
                timer.set_value(None);
                if fragment() == seen {
                    scenario.with_untracked(mirror);
                }
            },
            MIRROR_AFTER,
        );
        timer.set_value(handle.ok());
    });
}

/// The page's URL fragment, `#` included (empty when there is none).
fn fragment() -> String {
    window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

fn storage() -> Option<web_sys::Storage> {
    window()?.local_storage().ok().flatten()
}

/// Saves the scenario to localStorage.
fn save(scenario: &Scenario) {
    if let Some(storage) = storage()
        && let Ok(text) = serde_json::to_string(scenario)
    {
        let _ = storage.set_item(STORAGE_KEY, &text);
    }
}

/// Mirrors the scenario into the URL fragment (no navigation), and remembers that fragment.
fn mirror(scenario: &Scenario) {
    let Some(w) = window() else { return };
    let payload = encode_share(scenario);
    let url = format!("{}#s={payload}", page_base());
    if let Ok(history) = w.history()
        && history
            .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
            .is_ok()
        && let Some(storage) = storage()
    {
        let _ = storage.set_item(MIRRORED_KEY, &payload);
    }
}

/// The page's address without its fragment.
fn page_base() -> String {
    window()
        .map(|w| w.location())
        .map(|l| {
            format!(
                "{}{}",
                l.origin().unwrap_or_default(),
                l.pathname().unwrap_or_default()
            )
        })
        .unwrap_or_default()
}

/// The link that reproduces this scenario exactly.
pub fn share_url(scenario: &Scenario) -> String {
    format!("{}#s={}", page_base(), encode_share(scenario))
}

/// Forgets the saved scenario.
pub fn clear_saved() {
    if let Some(storage) = storage() {
        let _ = storage.remove_item(STORAGE_KEY);
        let _ = storage.remove_item(MIRRORED_KEY);
    }
}
