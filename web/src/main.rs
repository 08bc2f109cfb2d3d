//! The gpufare site: a Leptos client-side app compiled to WebAssembly.
//!
//! Components only hold signals and render; every figure comes from `gpufare-core`, the same code
//! the CLI runs. Nothing typed or uploaded leaves the browser.

mod i18n;
mod profile_view;
mod rent_view;

use leptos::prelude::*;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// The whole page: header with the language toggle, the rent calculator, the profile viewer.
#[component]
fn App() -> impl IntoView {
    let (lang, set_lang) = signal(i18n::browser_lang());
    Effect::new(move |_| i18n::set_document_lang(lang.get()));
    let t = move || lang.get().texts();
    view! {
        <header>
            <div>
                <h1>"gpufare"</h1>
                <p>{move || t().tagline}</p>
            </div>
            <button
                type="button"
                id="lang-toggle"
                on:click=move |_| set_lang.update(|l| *l = l.other())
                aria-label=move || t().switch_language_label
            >
                {move || t().switch_language}
            </button>
        </header>
        <main>
            <rent_view::RentCalculator lang=lang />
            <profile_view::ProfileViewer lang=lang />
        </main>
        <footer>
            <p>{move || t().privacy}</p>
        </footer>
    }
}
