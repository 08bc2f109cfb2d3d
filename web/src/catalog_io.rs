//! Catalog import and export on the site: our CSV or JSON, or a SkyPilot `vms.csv`, read in the
//! browser by core's importers; imported offers join the user's own quotes (with a report of the
//! rows skipped and why); the current catalog downloads as CSV or JSON.

use gpufare_core::catalog::{catalog_to_csv, catalog_to_json, default_catalog};
use gpufare_core::scenario::Scenario;
use gpufare_core::skypilot::import_any;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::export_view::download;
use crate::i18n::Lang;
use crate::words::t;

/// The import/export row under the offers table.
#[component]
pub fn CatalogIo(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    let report = RwSignal::new(Vec::<String>::new());
    let on_change = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        spawn_local(async move {
            let name = file.name();
            let provider = name
                .split(['-', '_', '.'])
                .next()
                .unwrap_or("imported")
                .to_owned();
            let Some(text) = JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|v| v.as_string())
            else {
                report.set(vec![format!(
                    "{name}: {}",
                    lang.get_untracked().texts().file_unreadable
                )]);
                return;
            };
            match import_any(&text, &provider) {
                Err(e) => report.set(vec![format!("{name}: {e}")]),
                Ok((catalog, import)) => {
                    let mut lines = Vec::new();
                    let mut added = 0;
                    scenario.update(|s| {
                        for o in catalog.offers {
                            let taken = s.edits.added.iter().any(|x| x.id == o.id)
                                || default_catalog().offers.iter().any(|x| x.id == o.id);
                            if taken {
                                lines.push(format!(
                                    "{}: {}",
                                    o.id,
                                    t(lang.get_untracked(), "id_taken")
                                ));
                            } else {
                                s.edits.added.push(o);
                                added += 1;
                            }
                        }
                    });
                    lines.insert(
                        0,
                        format!(
                            "{name}: {added} {}",
                            t(lang.get_untracked(), "imported_offers")
                        ),
                    );
                    if let Some(r) = import {
                        for s in r.skipped.iter().chain(&r.spot_ignored) {
                            lines.push(format!("line {} {}: {}", s.line, s.instance, s.reason));
                        }
                    }
                    report.set(lines);
                }
            }
        });
    };
    let export = move |json: bool| {
        let catalog = scenario.with_untracked(|s| s.catalog(default_catalog()));
        if json {
            download(
                "gpufare-catalog.json",
                "application/json",
                &catalog_to_json(&catalog),
            );
        } else {
            download("gpufare-catalog.csv", "text/csv", &catalog_to_csv(&catalog));
        }
    };
    view! {
        <div class="catalog-io">
            <div class="field">
                <label for="catalog-file">{move || t(lang.get(), "import_catalog")}</label>
                <input id="catalog-file" type="file" accept=".csv,.json,text/csv,application/json" on:change=on_change />
            </div>
            <ul id="import-report" class="hint">{move || report.get().into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
            <button type="button" id="catalog-export-csv" on:click=move |_| export(false)>{move || t(lang.get(), "export_catalog_csv")}</button>
            " "
            <button type="button" id="catalog-export-json" on:click=move |_| export(true)>{move || t(lang.get(), "export_catalog_json")}</button>
        </div>
    }
}
