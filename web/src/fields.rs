//! Form fields that keep what the person typed, check it with core's parser, and show the
//! reason beside the field when it is refused (the model keeps its last good value).

use gpufare_core::numbers::input::{InputError, parse_decimal};
use gpufare_core::numbers::problem::Problem;
use leptos::prelude::*;
use rust_decimal::Decimal;

use crate::vocab::{Label, Lang, errors, t};

/// A table's header row: one column heading per label, in the reader's language, and a last
/// heading for screen readers only when `hidden` names one (a column of buttons).
#[component]
pub fn HeaderRow(
    lang: ReadSignal<Lang>,
    labels: &'static [Label],
    #[prop(optional)] hidden: Option<Label>,
) -> impl IntoView {
    let cells = labels
        .iter()
        .map(|l| {
            let l = *l;
            view! { <th scope="col">{move || t(lang.get(), l)}</th> }
        })
        .collect_view();
    let last = hidden.map(|l| {
        view! { <th scope="col"><span class="sr-only">{move || t(lang.get(), l)}</span></th> }
    });
    view! { <tr>{cells}{last}</tr> }
}

/// A float quantity as a decimal for the form.
pub fn d(x: f64) -> Decimal {
    Decimal::from_f64_retain(x)
        .map(|v| v.round_dp(6).normalize())
        .unwrap_or_default()
}

/// A decimal from the form as a float quantity.
pub fn f(x: Decimal) -> f64 {
    f64::try_from(x).unwrap_or(0.0)
}

/// Formats a model value the way the field shows it.
pub fn show(value: Option<Decimal>) -> String {
    value.map(|v| v.normalize().to_string()).unwrap_or_default()
}

/// Parses typed text: empty is `None` when the field is optional.
pub fn read(text: &str, max: Decimal, optional: bool) -> Result<Option<Decimal>, InputError> {
    if optional && text.trim().is_empty() {
        return Ok(None);
    }
    parse_decimal(text, max).map(Some)
}

/// A numeric field bound to one value of the scenario.
#[component]
pub fn NumField(
    /// Element id (also used for the error's id: `{id}-error`).
    #[prop(into)]
    id: String,
    /// The label text.
    #[prop(into)]
    label: Signal<String>,
    /// The model's current value.
    #[prop(into)]
    value: Signal<Option<Decimal>>,
    /// Called with every accepted value.
    on_value: impl Fn(Option<Decimal>) + 'static,
    /// Largest accepted value.
    max: Decimal,
    /// Whether an empty field means "none".
    #[prop(optional)]
    optional: bool,
    /// Whether only whole numbers are accepted.
    #[prop(optional)]
    whole: bool,
    /// Smallest accepted value (checked after parsing).
    #[prop(optional)]
    min: Option<Decimal>,
    /// The page language.
    lang: ReadSignal<Lang>,
) -> impl IntoView {
    let text = RwSignal::new(show(value.get_untracked()));
    let error = RwSignal::new(None::<String>);
    // When the model changes from elsewhere (a preset, a reset), show its value.
    Effect::new(move |_| {
        let v = value.get();
        let typed = read(&text.get_untracked(), max, optional).ok().flatten();
        if typed != v {
            text.set(show(v));
            error.set(None);
        }
    });
    let error_id = format!("{id}-error");
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            <input
                id=id
                type="text"
                inputmode="decimal"
                autocomplete="off"
                prop:value=move || text.get()
                aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                aria-describedby=error_id.clone()
                on:input=move |ev| {
                    let typed = event_target_value(&ev);
                    text.set(typed.clone());
                    let lang = lang.get_untracked();
                    let checked = read(&typed, max, optional)
                        .and_then(|v| match v {
                            Some(x) if whole && !x.fract().is_zero() => {
                                Err(InputError::NotANumber { input: typed.clone() })
                            }
                            other => Ok(other),
                        })
                        .map_err(|e| errors::input_error(lang, &e))
                        .and_then(|v| match (v, min) {
                            (Some(x), Some(m)) if x < m && m.is_zero() => {
                                Err(errors::input_error(lang, &InputError::Negative))
                            }
                            (Some(x), Some(m)) if x < m => Err(errors::problem(
                                lang,
                                &Problem::OutOfRange { min: f(m), max: f(max) },
                            )),
                            (other, _) => Ok(other),
                        });
                    match checked {
                        Ok(v) => {
                            error.set(None);
                            on_value(v);
                        }
                        Err(e) => error.set(Some(e)),
                    }
                }
            />
            <p class="field-error" id=error_id role="alert">
                {move || error.get().unwrap_or_default()}
            </p>
        </div>
    }
}

/// A checkbox bound to one flag of the scenario.
#[component]
pub fn CheckField(
    id: &'static str,
    #[prop(into)] label: Signal<&'static str>,
    #[prop(into)] value: Signal<bool>,
    on_value: impl Fn(bool) + 'static,
) -> impl IntoView {
    view! {
        <div class="field check">
            <input
                id=id
                type="checkbox"
                prop:checked=move || value.get()
                on:change=move |ev| on_value(event_target_checked(&ev))
            />
            <label for=id>{label}</label>
        </div>
    }
}

/// A `<details>` panel whose content is built the first time it is opened and kept afterwards:
/// closed panels cost nothing on the first render or on a recompute.
#[component]
pub fn Disclosure(
    /// Element id of the `<details>`.
    id: &'static str,
    /// Class of the `<details>`.
    #[prop(optional)]
    class: &'static str,
    /// The summary line.
    #[prop(into)]
    summary: Signal<String>,
    /// The panel's content.
    children: ChildrenFn,
) -> impl IntoView {
    let opened = RwSignal::new(false);
    let node = NodeRef::<leptos::html::Details>::new();
    let on_toggle = move |_| {
        // Set once: setting it again would rebuild the panel and lose what was typed in it.
        if !opened.get_untracked() && node.get().is_some_and(|d| d.open()) {
            opened.set(true);
        }
    };
    view! {
        <details id=id class=class node_ref=node on:toggle=on_toggle>
            <summary>{summary}</summary>
            {move || opened.get().then(|| children())}
        </details>
    }
}

/// The view a lazily loaded chunk of the site builds: nothing while the chunk loads, then the
/// view, or a message beside the panel if the chunk cannot be fetched.
pub fn lazy_view(
    lang: ReadSignal<Lang>,
    load: impl std::future::Future<Output = Result<ViewFn, leptos::wasm_split::SplitLoaderError>>
    + 'static,
) -> AnyView {
    lazy_view_boxed(lang, Box::pin(load))
}

/// A chunk's view on its way, whatever the chunk.
type Loading = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<ViewFn, leptos::wasm_split::SplitLoaderError>>>,
>;

/// [`lazy_view`] for any chunk, compiled once rather than once per chunk.
fn lazy_view_boxed(lang: ReadSignal<Lang>, load: Loading) -> AnyView {
    let slot = RwSignal::new(None::<Option<ViewFn>>);
    leptos::task::spawn_local(async move { slot.set(Some(load.await.ok())) });
    (move || match slot.get() {
        None => ().into_any(),
        Some(Some(view)) => view.run(),
        Some(None) => view! {
            <p class="field-error" role="alert">{move || t(lang.get(), Label::ChunkFailed)}</p>
        }
        .into_any(),
    })
    .into_any()
}

/// The first file chosen in a file input's change event, with the input cleared so that choosing
/// the same file again fires again; `None` when nothing was chosen.
pub fn take_chosen_file(ev: &leptos::ev::Event) -> Option<web_sys::File> {
    use wasm_bindgen::JsCast;
    let input = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())?;
    let file = input.files().and_then(|f| f.get(0))?;
    input.set_value("");
    Some(file)
}

/// A panel's summary: its title, with how many things it holds when there are any.
pub fn counted(title: &str, n: usize) -> String {
    if n == 0 {
        title.to_owned()
    } else {
        format!("{title} ({n})")
    }
}

/// A file's text as the browser decodes it (UTF-8), or `None` when it cannot be read.
pub async fn file_text(file: &web_sys::File) -> Option<String> {
    wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|v| v.as_string())
}
