//! The pay-as-you-go rent calculator: five inputs, one figure, recomputed on every keystroke.

use gpufare_core::numbers::money::group_thousands;
use gpufare_core::offers::billing::seconds_as_hours;
use gpufare_core::{Currency, Granularity, PayAsYouGoForm};
use leptos::prelude::*;

use crate::vocab::{Label, Lang, errors, model, t};

/// The calculator card, in a chunk of the site fetched when its panel is first opened.
#[component]
pub fn RentCalculator(lang: ReadSignal<Lang>) -> impl IntoView {
    crate::fields::lazy_view(lang, rent_panel(lang))
}

/// The calculator, from its chunk; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(rent, wasm_split_path = ::leptos::wasm_split, fallible)]
fn rent_panel(lang: ReadSignal<Lang>) -> Result<ViewFn, leptos::wasm_split::SplitLoaderError> {
    Ok(ViewFn::from(move || rent_body(lang).into_any()))
}

/// Five inputs and one figure. All arithmetic and checking is `PayAsYouGoForm::evaluate` in core.
fn rent_body(lang: ReadSignal<Lang>) -> impl IntoView {
    let form = RwSignal::new(PayAsYouGoForm {
        hours: "10".to_owned(),
        price_per_hour: "1.80".to_owned(),
        currency: Currency::Cny,
        granularity: Granularity::Second,
        minimum_minutes: "0".to_owned(),
    });
    let outcome = Memo::new(move |_| form.with(PayAsYouGoForm::evaluate));
    let error_text = move |field: &'static str| {
        Signal::derive(move || {
            outcome.with(|o| {
                o.error_for(field)
                    .map(|e| errors::billing_error(lang.get(), e))
            })
        })
    };

    view! {
        <section aria-labelledby="rent-heading">
            <h2 id="rent-heading">{move || t(lang.get(), Label::RentHeading)}</h2>
            <TextField
                id="hours"
                label=Signal::derive(move || t(lang.get(), Label::RunLength))
                hint=Signal::derive(move || t(lang.get(), Label::HoursHint))
                value=Signal::derive(move || form.with(|f| f.hours.clone()))
                on_input=move |v| form.update(|f| f.hours = v)
                error=error_text("hours")
            />
            <TextField
                id="price"
                label=Signal::derive(move || t(lang.get(), Label::PricePerHour))
                hint=Signal::derive(move || "")
                value=Signal::derive(move || form.with(|f| f.price_per_hour.clone()))
                on_input=move |v| form.update(|f| f.price_per_hour = v)
                error=error_text("price")
            />
            <div class="field">
                <label for="currency">{move || t(lang.get(), Label::PriceCurrency)}</label>
                <select
                    id="currency"
                    on:change=move |ev| {
                        if let Some(c) = Currency::from_code(&event_target_value(&ev)) {
                            form.update(|f| f.currency = c);
                        }
                    }
                >
                    {Currency::ALL
                        .into_iter()
                        .map(|c| {
                            view! {
                                <option value=c.code() selected=move || form.with(|f| f.currency == c)>
                                    {c.code()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </div>
            <div class="field">
                <label for="granularity">{move || t(lang.get(), Label::BillingGranularity)}</label>
                <select
                    id="granularity"
                    on:change=move |ev| {
                        if let Some(g) = Granularity::from_id(&event_target_value(&ev)) {
                            form.update(|f| f.granularity = g);
                        }
                    }
                >
                    {Granularity::ALL
                        .into_iter()
                        .map(|g| {
                            view! {
                                <option value=g.id() selected=move || form.with(|f| f.granularity == g)>
                                    {move || model::granularity_name(lang.get(), g)}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </div>
            <TextField
                id="minimum"
                label=Signal::derive(move || t(lang.get(), Label::MinimumBilled))
                hint=Signal::derive(move || t(lang.get(), Label::MinimumHint))
                value=Signal::derive(move || form.with(|f| f.minimum_minutes.clone()))
                on_input=move |v| form.update(|f| f.minimum_minutes = v)
                error=error_text("minimum")
            />
            <div aria-live="polite">
                {move || match outcome.get().quote {
                    Some(q) => {
                        view! {
                            <p class="result-detail">{t(lang.get(), Label::RentFigure)}</p>
                            <p class="result" id="rent" data-amount=q.rent.plain()>
                                {q.rent.display()}
                            </p>
                            <p class="result-detail" id="billed">
                                {format!(
                                    "{}: {} s ≈ {} h",
                                    t(lang.get(), Label::BilledTime),
                                    group_thousands(&q.billed_seconds.to_string()),
                                    seconds_as_hours(q.billed_seconds),
                                )}
                            </p>
                        }
                            .into_any()
                    }
                    None => view! { <p class="note" id="rent-unavailable">{t(lang.get(), Label::RentUnavailable)}</p> }.into_any(),
                }}
            </div>
        </section>
    }
}

/// A labelled text input with a hint and, when the value is refused, the reason beside it.
#[component]
fn TextField(
    id: &'static str,
    #[prop(into)] label: Signal<&'static str>,
    #[prop(into)] hint: Signal<&'static str>,
    #[prop(into)] value: Signal<String>,
    on_input: impl Fn(String) + 'static,
    #[prop(into)] error: Signal<Option<String>>,
) -> impl IntoView {
    let error_id = format!("{id}-error");
    let hint_id = format!("{id}-hint");
    let described_by = format!("{hint_id} {error_id}");
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <input
                id=id
                type="text"
                inputmode="decimal"
                autocomplete="off"
                prop:value=value
                aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                aria-describedby=described_by
                on:input=move |ev| on_input(event_target_value(&ev))
            />
            <span class="hint" id=hint_id>{hint}</span>
            <p class="field-error" id=error_id role="alert">{move || error.get().unwrap_or_default()}</p>
        </div>
    }
}
