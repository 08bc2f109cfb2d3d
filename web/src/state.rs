//! Where the scenario lives between visits: the page's URL fragment (a share link) and
//! localStorage. Nothing is sent anywhere; the fragment never leaves the browser.

use gpufare_core::scenario::document::{Scenario, ScenarioError, parse_scenario};
use gpufare_core::scenario::share::{decode_share, encode_share};
use gpufare_core::task::presets::preset;

/// The localStorage key of the saved scenario.
pub const STORAGE_KEY: &str = "gpufare.scenario";
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

/// The default scenario: the default preset, nothing edited.
pub fn default_scenario() -> Scenario {
    let task =
        preset(DEFAULT_PRESET).unwrap_or_else(|| preset("code_check").expect("built-in preset"));
    Scenario::new(task, Some(DEFAULT_PRESET))
}

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

fn link_payload() -> Option<String> {
    let hash = window()?.location().hash().ok()?;
    hash.strip_prefix("#s=").map(str::to_owned)
}

/// The scenario saved in this browser, if there is one that can be read.
fn saved_scenario() -> Option<Scenario> {
    let text = window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())?;
    parse_scenario(&text).ok()
}

/// The scenario to start with: a share link wins, then the saved copy, then the default. A link
/// that cannot be read falls back to the saved copy, so opening it loses nothing.
pub fn initial_scenario() -> (Scenario, Origin) {
    if let Some(payload) = link_payload() {
        return match decode_share(&payload) {
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

/// Saves the scenario to localStorage and mirrors it into the URL fragment (no navigation).
pub fn persist(scenario: &Scenario) {
    let Some(w) = window() else { return };
    if let Ok(Some(storage)) = w.local_storage()
        && let Ok(text) = serde_json::to_string(scenario)
    {
        let _ = storage.set_item(STORAGE_KEY, &text);
    }
    let url = share_url(scenario);
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// The link that reproduces this scenario exactly.
pub fn share_url(scenario: &Scenario) -> String {
    let location = window().map(|w| w.location());
    let base = location
        .map(|l| {
            format!(
                "{}{}",
                l.origin().unwrap_or_default(),
                l.pathname().unwrap_or_default()
            )
        })
        .unwrap_or_default();
    format!("{base}#s={}", encode_share(scenario))
}

/// Forgets the saved scenario.
pub fn clear_saved() {
    if let Some(Ok(Some(storage))) = window().map(|w| w.local_storage()) {
        let _ = storage.remove_item(STORAGE_KEY);
    }
}
