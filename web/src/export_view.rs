//! Downloads of the budget (JSON, CSV, Markdown, an Excel workbook) and the print view. The files
//! are made by `gpufare_core::export` from the same plan the page shows and saved through a Blob;
//! nothing is uploaded. The workbook's sheet names and headers follow the page's language.

use gpufare_core::export::budget::{budget, budget_json};
use gpufare_core::export::csv::budget_csv;
use gpufare_core::export::markdown::budget_markdown;
use gpufare_core::export::xlsx::{SheetLanguage, budget_xlsx};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::PlanResult;
use gpufare_core::scenario::document::Scenario;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::files::{download, download_bytes};
use crate::planner::site_budget;
use crate::vocab::{Label, Lang, t};

/// The media type of an `.xlsx` workbook.
const XLSX_MIME: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// Builds the budget of `result` as an Excel workbook in `lang` and saves it; false when the
/// workbook could not be built. The writer is large, so it lives in a chunk of its own, fetched
/// the first time a workbook is saved; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(workbook, wasm_split_path = ::leptos::wasm_split, fallible)]
fn save_workbook(
    scenario: Scenario,
    result: PlanResult,
    lang: Lang,
) -> Result<bool, leptos::wasm_split::SplitLoaderError> {
    let catalog = scenario.catalog(default_catalog());
    let b = budget(&result, &scenario.task, &catalog);
    let sheets = match lang {
        Lang::En => SheetLanguage::En,
        Lang::Zh => SheetLanguage::Zh,
    };
    Ok(match budget_xlsx(&b, &catalog, sheets) {
        Ok(bytes) => {
            download_bytes("gpufare-budget.xlsx", XLSX_MIME, &bytes);
            true
        }
        Err(_) => false,
    })
}

/// The files the export bar saves.
#[derive(Clone, Copy)]
pub enum Format {
    Json,
    Csv,
    Markdown,
}

/// Builds the budget of `result` and saves it as a file. It lives in a chunk of the site that is
/// fetched the first time a budget is saved, not with the first page load; the error is that
/// chunk failing to load.
#[leptos::wasm_split::wasm_split(exports, wasm_split_path = ::leptos::wasm_split, fallible)]
fn save_budget(
    format: Format,
    scenario: Scenario,
    result: PlanResult,
) -> Result<(), leptos::wasm_split::SplitLoaderError> {
    let b = site_budget(scenario, &result);
    match format {
        Format::Json => download("gpufare-budget.json", "application/json", &budget_json(&b)),
        Format::Csv => download("gpufare-budget.csv", "text/csv", &budget_csv(&b)),
        Format::Markdown => download(
            "gpufare-budget.md",
            "text/markdown",
            &budget_markdown(&b, 15),
        ),
    }
    Ok(())
}

/// The export bar under the recommendation.
#[component]
pub fn ExportBar(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: crate::planner::Plan,
) -> impl IntoView {
    let failed = RwSignal::new(false);
    let workbook_failed = RwSignal::new(false);
    let save_xlsx = move || {
        let Ok(result) = plan.current() else {
            return;
        };
        let s = scenario.get_untracked();
        let l = lang.get_untracked();
        spawn_local(async move {
            match save_workbook(s, result, l).await {
                Ok(built) => {
                    failed.set(false);
                    workbook_failed.set(!built);
                }
                Err(_) => failed.set(true),
            }
        });
    };
    let save = move |format: Format| {
        // The plan of the scenario as it is now, even if the page's is still on its way.
        let Ok(result) = plan.current() else {
            return;
        };
        let s = scenario.get_untracked();
        spawn_local(async move {
            failed.set(save_budget(format, s, result).await.is_err());
        });
    };
    view! {
        <div class="exports" role="group" aria-label=move || t(lang.get(), Label::Export)>
            <span>{move || t(lang.get(), Label::Export)}": "</span>
            <button type="button" id="export-json" on:click=move |_| save(Format::Json)>"JSON"</button>
            <button type="button" id="export-csv" on:click=move |_| save(Format::Csv)>"CSV"</button>
            <button type="button" id="export-md" on:click=move |_| save(Format::Markdown)>"Markdown"</button>
            <button type="button" id="export-xlsx" on:click=move |_| save_xlsx()>{move || t(lang.get(), Label::ExportXlsx)}</button>
            <button type="button" id="print" on:click=move |_| { if let Some(w) = web_sys::window() { let _ = w.print(); } }>{move || t(lang.get(), Label::Print)}</button>
            {move || failed.get().then(|| view! { <p class="field-error" role="alert">{move || t(lang.get(), Label::ChunkFailed)}</p> })}
            {move || workbook_failed.get().then(|| view! { <p class="field-error" role="alert">{move || t(lang.get(), Label::WorkbookFailed)}</p> })}
        </div>
    }
}
