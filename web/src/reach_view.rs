//! Where the user is and what they can buy: location, markets, provider lists and whether the
//! data is personal. Every field writes into the task (core checks and applies it); the choice is
//! remembered in this browser for every task ([`crate::state::remember_reach`]).

use gpufare_core::offers::places::{Markets, find_place, user_places};
use gpufare_core::scenario::document::Scenario;
use gpufare_core::task::reach::provider_list;
use leptos::prelude::*;

use crate::fields::CheckField;
use crate::format;
use crate::vocab::{Label, Lang, model, pick, t};

/// A provider list as the field shows it.
fn list_text(list: &[String]) -> String {
    list.join(", ")
}

/// The panel.
#[component]
pub fn ReachForm(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    let summary = move || {
        scenario.with(|s| {
            let r = &s.task.reach;
            let place = r.location.as_deref().and_then(find_place).map_or_else(
                || t(lang.get(), Label::LocationUnset).to_owned(),
                |p| model::place(lang.get(), p).to_owned(),
            );
            format!(
                "{}{}{place} · {}",
                t(lang.get(), Label::Location),
                pick(lang.get(), ": ", "："),
                model::markets(lang.get(), r.markets)
            )
        })
    };
    view! {
        <section aria-labelledby="reach-heading" class="card" id="reach">
            <h2 id="reach-heading">{move || t(lang.get(), Label::ReachHeading)}</h2>
            <p class="hint" id="reach-summary">{summary}</p>
            <div class="grid2">
                <div class="field">
                    <label for="location">{move || t(lang.get(), Label::Location)}</label>
                    <select
                        id="location"
                        on:change=move |ev| {
                            let id = event_target_value(&ev);
                            scenario.update(|s| {
                                s.task.reach.location = find_place(&id).map(|p| p.id.clone());
                            });
                        }
                    >
                        <option value="" selected=move || scenario.with(|s| s.task.reach.location.is_none())>
                            {move || t(lang.get(), Label::LocationUnset)}
                        </option>
                        {user_places()
                            .map(|p| {
                                let id = p.id.as_str();
                                view! {
                                    <option
                                        value=id
                                        selected=move || scenario.with(|s| s.task.reach.location.as_deref() == Some(id))
                                    >
                                        {move || model::place(lang.get(), p).to_owned()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </div>
                <div class="field">
                    <label for="markets">{move || t(lang.get(), Label::MarketsField)}</label>
                    <select
                        id="markets"
                        on:change=move |ev| {
                            if let Some(m) = Markets::from_id(&event_target_value(&ev)) {
                                scenario.update(|s| s.task.reach.markets = m);
                            }
                        }
                    >
                        {Markets::ALL
                            .into_iter()
                            .map(|m| {
                                view! {
                                    <option value=m.id() selected=move || scenario.with(|s| s.task.reach.markets == m)>
                                        {move || model::markets(lang.get(), m)}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </div>
                <div class="field">
                    <label for="providers-only">{move || t(lang.get(), Label::ProvidersOnly)}</label>
                    <input
                        id="providers-only"
                        type="text"
                        prop:value=move || scenario.with(|s| list_text(&s.task.reach.providers_only))
                        on:change=move |ev| {
                            let list = provider_list(&event_target_value(&ev));
                            scenario.update(|s| s.task.reach.providers_only = list);
                        }
                    />
                </div>
                <div class="field">
                    <label for="providers-excluded">{move || t(lang.get(), Label::ProvidersExcluded)}</label>
                    <input
                        id="providers-excluded"
                        type="text"
                        prop:value=move || scenario.with(|s| list_text(&s.task.reach.providers_excluded))
                        on:change=move |ev| {
                            let list = provider_list(&event_target_value(&ev));
                            scenario.update(|s| s.task.reach.providers_excluded = list);
                        }
                    />
                </div>
            </div>
            <CheckField
                id="personal-data"
                label=Signal::derive(move || t(lang.get(), Label::PersonalData))
                value=Signal::derive(move || scenario.with(|s| s.task.reach.personal_data))
                on_value=move |v| scenario.update(|s| s.task.reach.personal_data = v)
            />
            <Show when=move || scenario.with(|s| !s.task.reach.measured_rtt.is_empty())>
                <p class="hint" id="measured-rtt">
                    {move || {
                        scenario.with(|s| {
                            let list = s
                                .task
                                .reach
                                .measured_rtt
                                .iter()
                                .map(|m| {
                                    let name = find_place(&m.place)
                                        .map_or(m.place.as_str(), |p| model::place(lang.get(), p));
                                    format!("{name} {}", format::millis(lang.get(), m.rtt_ms))
                                })
                                .collect::<Vec<_>>()
                                .join(", ");
                            format!(
                                "{}{}{list}",
                                t(lang.get(), Label::MeasuredRoundTripsUsed),
                                pick(lang.get(), ": ", "："),
                            )
                        })
                    }}
                </p>
            </Show>
            <p class="hint">{move || t(lang.get(), Label::ReachHint)}</p>
        </section>
    }
}
