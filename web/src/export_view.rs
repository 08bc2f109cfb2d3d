//! Downloads of the budget (JSON, CSV, Markdown) and the print view. The files are made by
//! `gpufare_core::export` from the same plan the page shows and saved through a Blob; nothing is
//! uploaded.

use gpufare_core::catalog::default_catalog;
use gpufare_core::export::{budget, budget_csv, budget_json, budget_markdown};
use gpufare_core::plan::PlanResult;
use gpufare_core::scenario::Scenario;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::i18n::Lang;
use crate::words::t;

/// Saves `text` as a file named `name` through a temporary object URL.
pub fn download(name: &str, mime: &str, text: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Some(a) = document
        .create_element("a")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// The export bar under the recommendation.
#[component]
pub fn ExportBar(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: Memo<Result<PlanResult, String>>,
) -> impl IntoView {
    let make = move || {
        let result = plan.get_untracked().ok()?;
        let s = scenario.get_untracked();
        let catalog = s.catalog(default_catalog());
        let mut b = budget(&result, &s.task, &catalog);
        b.scenario = Some(s);
        Some(b)
    };
    view! {
        <div class="exports" role="group" aria-label=move || t(lang.get(), "export")>
            <span>{move || t(lang.get(), "export")}": "</span>
            <button type="button" id="export-json" on:click=move |_| if let Some(b) = make() { download("gpufare-budget.json", "application/json", &budget_json(&b)) }>"JSON"</button>
            <button type="button" id="export-csv" on:click=move |_| if let Some(b) = make() { download("gpufare-budget.csv", "text/csv", &budget_csv(&b)) }>"CSV"</button>
            <button type="button" id="export-md" on:click=move |_| if let Some(b) = make() { download("gpufare-budget.md", "text/markdown", &budget_markdown(&b, 15)) }>"Markdown"</button>
            <button type="button" id="print" on:click=move |_| { if let Some(w) = web_sys::window() { let _ = w.print(); } }>{move || t(lang.get(), "print")}</button>
        </div>
    }
}
