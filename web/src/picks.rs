//! The offer a panel shows, and the links elsewhere on the page that pick one and open its panel.
//! Panels and the links to them meet here, so that no panel imports another.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The id of the interruption-risk panel (a `<details>`).
pub const RISK_PANEL: &str = "risk";

/// The id of the sharing-and-queue details panel (a `<details>`).
pub const DETAILS_PANEL: &str = "offer-details";

/// Picks `offer` for the panel with id `panel`, opens the panel (which builds its content on
/// opening) and scrolls to it.
pub fn show(pick: RwSignal<Option<String>>, offer: String, panel: &str) {
    pick.set(Some(offer));
    let details = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(panel))
        .and_then(|e| e.dyn_into::<web_sys::HtmlDetailsElement>().ok());
    if let Some(details) = details {
        details.set_open(true);
        details.scroll_into_view();
    }
}
