//! Catalog import and export on the site: our CSV or JSON, or a SkyPilot `vms.csv`, read in the
//! browser by core's importers from the file's bytes (UTF-8, UTF-16 with a byte-order mark or
//! GB18030, as spreadsheets save them; the report names the encoding read); imported offers join
//! the user's own quotes (with a report of the rows skipped and why); the current catalog
//! downloads as CSV (with a UTF-8 byte-order mark, for Excel) or JSON.

use gpufare_core::offers::catalog::catalog_to_json;
use gpufare_core::offers::csv::catalog_to_csv;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::import::read_catalog_file;
use gpufare_core::scenario::document::Scenario;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen_futures::JsFuture;

use crate::files::download;
use crate::vocab::{Label, Lang, errors, model, t};

/// Adds the offers of an imported catalog file to the user's own quotes and returns the report
/// lines: how many were added, and each one skipped and why. Importers and their report live in
/// a chunk of the site fetched on first use; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(catalog, wasm_split_path = ::leptos::wasm_split, fallible)]
fn import_catalog(
    name: String,
    bytes: Vec<u8>,
    saved: String,
    lang: Lang,
    scenario: RwSignal<Scenario>,
) -> Result<Vec<String>, leptos::wasm_split::SplitLoaderError> {
    let imported = match read_catalog_file(&name, &bytes, &saved) {
        Err(e) => return Ok(vec![format!("{name}: {}", errors::catalog_error(lang, &e))]),
        Ok(done) => done,
    };
    let total = imported.catalog.offers.len();
    let skipped = scenario
        .try_update(|s| s.add_offers(default_catalog(), imported.catalog.offers))
        .unwrap_or_default();
    let added = total - skipped.len();
    let mut lines: Vec<String> = skipped
        .iter()
        .map(|id| format!("{id}: {}", t(lang, Label::IdTaken)))
        .collect();
    let import = imported.report;
    lines.insert(
        0,
        format!(
            "{name}: {added} {}{}",
            t(lang, Label::ImportedOffers),
            model::read_as(lang, imported.encoding)
        ),
    );
    if let Some(r) = import {
        for s in r.skipped.iter().chain(&r.spot_ignored) {
            lines.push(errors::skipped_row(lang, s.line, &s.instance, &s.reason));
        }
    }
    Ok(lines)
}

/// Saves the current catalog (the embedded one with the user's edits) as CSV or JSON.
#[leptos::wasm_split::wasm_split(catalog, wasm_split_path = ::leptos::wasm_split, fallible)]
fn save_catalog(
    json: bool,
    scenario: Scenario,
) -> Result<(), leptos::wasm_split::SplitLoaderError> {
    let catalog = scenario.catalog(default_catalog());
    if json {
        download(
            "gpufare-catalog.json",
            "application/json",
            &catalog_to_json(&catalog),
        );
    } else {
        download("gpufare-catalog.csv", "text/csv", &catalog_to_csv(&catalog));
    }
    Ok(())
}

/// The import/export row under the offers table.
#[component]
pub fn CatalogIo(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    let report = RwSignal::new(Vec::<String>::new());
    let on_change = move |ev: leptos::ev::Event| {
        let Some(file) = crate::fields::take_chosen_file(&ev) else {
            return;
        };
        spawn_local(async move {
            let name = file.name();
            let saved = crate::clock::date_of(file.last_modified());
            let lang = lang.get_untracked();
            // The bytes, not text: core decodes them (the browser's `text()` would read GB18030
            // and UTF-16 files as UTF-8 and replace what it cannot read).
            let Ok(buffer) = JsFuture::from(file.array_buffer()).await else {
                report.set(vec![format!("{name}: {}", t(lang, Label::FileUnreadable))]);
                return;
            };
            let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
            report.set(
                import_catalog(name, bytes, saved, lang, scenario)
                    .await
                    .unwrap_or_else(|_| vec![t(lang, Label::ChunkFailed).to_owned()]),
            );
        });
    };
    let export = move |json: bool| {
        let s = scenario.get_untracked();
        spawn_local(async move {
            if save_catalog(json, s).await.is_err() {
                report.set(vec![t(lang.get_untracked(), Label::ChunkFailed).to_owned()]);
            }
        });
    };
    view! {
        <div class="catalog-io">
            <div class="field">
                <label for="catalog-file">{move || t(lang.get(), Label::ImportCatalog)}</label>
                <input id="catalog-file" type="file" accept=".csv,.json,text/csv,application/json" on:change=on_change />
            </div>
            <ul id="import-report" class="hint">{move || report.get().into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
            <button type="button" id="catalog-export-csv" on:click=move |_| export(false)>{move || t(lang.get(), Label::ExportCatalogCsv)}</button>
            " "
            <button type="button" id="catalog-export-json" on:click=move |_| export(true)>{move || t(lang.get(), Label::ExportCatalogJson)}</button>
        </div>
    }
}
