//! The offer a panel shows, and the links elsewhere on the page that pick one and open its panel.
//! Panels and the links to them meet here, so that no panel imports another.

use gpufare_core::plan::option::OptionResult;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::vocab::{Label, Lang, model, t};

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

/// The select that picks the offer a panel shows (`id` is the select's): each of `choices` named
/// by its title and id, the one in `current` selected.
#[component]
pub fn OfferPicker(
    lang: ReadSignal<Lang>,
    id: &'static str,
    pick: RwSignal<Option<String>>,
    #[prop(into)] choices: Signal<Vec<OptionResult>>,
    #[prop(into)] current: Signal<Option<String>>,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>{move || t(lang.get(), Label::Offer)}</label>
            <select id=id on:change=move |ev| pick.set(Some(event_target_value(&ev)))>
                {move || {
                    let lang = lang.get();
                    let current = current.get();
                    choices
                        .get()
                        .into_iter()
                        .map(|o| {
                            let selected = current.as_deref() == Some(o.offer_id.as_str());
                            view! {
                                <option value=o.offer_id.clone() selected=selected>
                                    {format!("{} ({})", model::option_title(lang, &o), o.offer_id)}
                                </option>
                            }
                        })
                        .collect_view()
                }}
            </select>
        </div>
    }
}
