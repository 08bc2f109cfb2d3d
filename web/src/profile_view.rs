//! Loading a probe profile from a file and showing its host and GPU summary.
//!
//! The file is read in the browser with the File API and parsed by `gpufare-core`; it is never
//! uploaded anywhere.

use gpufare_core::money::group_thousands;
use gpufare_core::profile::{Profile, ProfileError, parse_profile};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::i18n::{self, Lang};

/// Profiles are a few kilobytes; refuse anything absurd before reading it into memory.
const MAX_PROFILE_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

#[derive(Clone)]
enum LoadError {
    TooLarge,
    Unreadable,
    Profile(ProfileError),
}

#[derive(Clone)]
struct Loaded {
    file_name: String,
    outcome: Result<Profile, LoadError>,
}

/// The profile card: a file input, then either the summary or the reason the file was refused.
#[component]
pub fn ProfileViewer(lang: ReadSignal<Lang>) -> impl IntoView {
    let loaded = RwSignal::new(None::<Loaded>);
    let t = move || lang.get().texts();

    let on_change = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|files| files.get(0)) else {
            return;
        };
        let file_name = file.name();
        if file.size() > MAX_PROFILE_BYTES {
            loaded.set(Some(Loaded {
                file_name,
                outcome: Err(LoadError::TooLarge),
            }));
            return;
        }
        spawn_local(async move {
            let outcome = match JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|v| v.as_string())
            {
                Some(text) => parse_profile(&text).map_err(LoadError::Profile),
                None => Err(LoadError::Unreadable),
            };
            loaded.set(Some(Loaded { file_name, outcome }));
        });
    };

    view! {
        <section aria-labelledby="profile-heading">
            <h2 id="profile-heading">{move || t().profile_heading}</h2>
            <div class="field">
                <label for="profile-file">{move || t().profile_label}</label>
                <input
                    id="profile-file"
                    type="file"
                    accept=".json,application/json"
                    aria-describedby="profile-hint profile-error"
                    on:change=on_change
                />
                <span class="hint" id="profile-hint">{move || t().profile_hint}</span>
            </div>
            {move || {
                let lang = lang.get();
                let t = lang.texts();
                loaded
                    .get()
                    .map(|l| match l.outcome {
                        Ok(profile) => summary(lang, &l.file_name, &profile).into_any(),
                        Err(err) => {
                            let message = match &err {
                                LoadError::TooLarge => t.file_too_large.to_owned(),
                                LoadError::Unreadable => t.file_unreadable.to_owned(),
                                LoadError::Profile(e) => i18n::profile_error(lang, e),
                            };
                            view! {
                                <p class="field-error" id="profile-error" role="alert">
                                    {format!("{}: {}", l.file_name, message)}
                                </p>
                            }
                                .into_any()
                        }
                    })
            }}
        </section>
    }
}

fn summary(lang: Lang, file_name: &str, profile: &Profile) -> impl IntoView + use<> {
    let t = lang.texts();
    let host = &profile.host;
    let gpus = if profile.gpus.is_empty() {
        let why = profile.gpus_unavailable.clone().unwrap_or_default();
        view! { <p id="profile-gpus" class="note">{format!("{} ({why})", t.no_gpus)}</p> }
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
                view! { <li>{format!("#{} {}{}", g.index, g.name, memory)}</li> }
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
            <dt>{t.profile_file}</dt>
            <dd>{file_name.to_owned()}</dd>
            <dt>{t.cpu_model}</dt>
            <dd id="profile-cpu">{host.cpu_model.clone()}</dd>
            <dt>{t.logical_cores}</dt>
            <dd id="profile-cores">{host.logical_cores}</dd>
            <dt>{t.ram}</dt>
            <dd id="profile-ram">{format!("{} GiB", group_thousands(&host.total_ram_gib().to_string()))}</dd>
            <dt>{t.os}</dt>
            <dd>{host.os.clone()}</dd>
            <dt>{t.kernel}</dt>
            <dd>{host.kernel.clone()}</dd>
            <dt>{t.probed_at}</dt>
            <dd>{profile.created_at.clone()}</dd>
            <dt>{t.driver}</dt>
            <dd>{driver.unwrap_or_else(|| "—".to_owned())}</dd>
            <dt>{t.gpus}</dt>
            <dd>{gpus}</dd>
        </dl>
    }
}
