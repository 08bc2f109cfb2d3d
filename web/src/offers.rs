//! The offers table: the default catalog with the user's edits, filtered and sorted; prices
//! editable in place; the user's own quotes; provider discounts.

use gpufare_core::Currency;
use gpufare_core::hardware::gpu::gpu_specs;
use gpufare_core::hardware::links::{Interconnect, Link};
use gpufare_core::numbers::problem::FieldError;
use gpufare_core::offers::billing::BillingMode;
use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::links::links;
use gpufare_core::offers::offer::{Offer, RegionClass};
use gpufare_core::offers::quote::{Quote, free_custom_id};
use gpufare_core::offers::tenancy::Tenancy;
use gpufare_core::plan::option::PriceFacts;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::scenario::document::{CatalogEdits, OfferFilter, Scenario};
use leptos::prelude::*;
use rust_decimal::Decimal;

use crate::fields::{CheckField, Disclosure, HeaderRow, NumField, lazy_view};
use crate::format;
use crate::vocab::{Label, Lang, errors, model, t};

/// How the table is sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SortKey {
    Price,
    Provider,
    Vram,
    Date,
}

/// The offers card.
#[component]
pub fn OffersTable(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    /// The panels shown under the table (the page passes the traces and queue panels).
    children: Children,
    /// The card's last part (the page passes the catalog import and export).
    footer: AnyView,
) -> impl IntoView {
    let sort = RwSignal::new(SortKey::Price);
    // Rebuilt only when the edits change, not on every keystroke in the task form.
    let edits = Memo::new(move |_| scenario.with(|s| s.edits.clone()));
    let edited: Memo<Catalog> = Memo::new(move |_| edits.with(|e| e.apply(default_catalog())));
    // The rows depend on the filter and the settings (the price column), not on the task: a
    // keystroke in the task form leaves them alone.
    let filter = Memo::new(move |_| scenario.with(|s| s.filter.clone()));
    let settings = Memo::new(move |_| scenario.with(|s| s.settings.clone()));
    let rows = Memo::new(move |_| {
        let mut offers: Vec<Offer> = edited
            .with(|c| filter.with(|f| c.offers.iter().filter(|o| f.matches(o)).cloned().collect()));
        match sort.get() {
            SortKey::Price => settings.with(|s| {
                offers.sort_by_cached_key(|o| (s.price_per_gpu_hour(o), o.id.clone()));
            }),
            SortKey::Provider => {
                offers.sort_by(|a, b| a.provider.cmp(&b.provider).then(a.id.cmp(&b.id)))
            }
            SortKey::Vram => {
                offers.sort_by(|a, b| b.vram_gib.total_cmp(&a.vram_gib).then(a.id.cmp(&b.id)))
            }
            SortKey::Date => offers.sort_by(|a, b| b.as_of.cmp(&a.as_of).then(a.id.cmp(&b.id))),
        }
        offers
    });
    let total = move || edited.with(|c| c.offers.len());

    view! {
        <section aria-labelledby="offers-heading" class="card wide">
            <h2 id="offers-heading">{move || t(lang.get(), Label::Offers)}</h2>
            <p class="hint">{move || t(lang.get(), Label::OffersHint)}</p>
            <Filters lang=lang scenario=scenario filter=filter sort=sort />
            <p class="hint" id="offers-count">
                {move || format!("{} / {} {}", rows.with(Vec::len), total(), t(lang.get(), Label::Shown))}
            </p>
            <div class="table-wrap">
                <table class="offers" id="offers-table">
                    <thead>
                        <HeaderRow lang=lang labels=&[
                            Label::Provider, Label::Region, Label::Gpu, Label::Tenancy, Label::VramCol,
                            Label::Billing, Label::Price, Label::AsOf,
                        ] hidden=Label::Remove />
                    </thead>
                    <tbody>
                        <For each=move || rows.get() key=|o| (o.id.clone(), o.price) let:offer>
                            <OfferRow lang=lang scenario=scenario offer=offer />
                        </For>
                    </tbody>
                </table>
            </div>
            {children()}
            <Discounts lang=lang scenario=scenario edits=edits settings=settings />
            <AddOffer lang=lang scenario=scenario />
            {footer}
        </section>
    }
}

#[component]
fn OfferRow(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>, offer: Offer) -> impl IntoView {
    let id = offer.id.clone();
    let price_id = format!("price-{}", offer.id);
    let remove_id = offer.id.clone();
    // The price's date, evidence and age as core counts it, to the scenario's today.
    let facts = PriceFacts::of(&offer, scenario.with_untracked(|s| s.settings.today_date()));
    let note = offer.estimate_note.clone().unwrap_or_default();
    let source = offer.source.clone();
    let mode = offer.billing_mode;
    let currency = offer.currency;
    let tenancy = offer.tenancy;
    let class = offer.region.class;
    let price = offer.price;
    view! {
        <tr data-offer=offer.id.clone()>
            <td translate="no">{offer.provider.clone()}</td>
            <td><span translate="no">{offer.region.name.clone()}</span> <span class="muted">{move || format!(" · {}", model::region_class(lang.get(), class))}</span></td>
            <td>
                <span translate="no">{format!("{} × {}", offer.gpu_count, offer.gpu)}</span>
                {offer.instance_type.clone().map(|t| view! { <span class="muted instance-type" translate="no">{format!(" · {t}")}</span> })}
                {links_note(lang, &offer)}
            </td>
            <td>
                {move || model::tenancy(lang.get(), tenancy)}
                {offer.mig_profile.clone().map(|m| view! {
                    <span class="muted mig-profile" translate="no">{format!(" {m} · {} %", format::number(offer.gpu_fraction * 100.0, 1))}</span>
                })}
            </td>
            <td>{format!("{} GiB", format::number(offer.vram_gib, 1))}</td>
            <td>
                {move || model::billing(lang.get(), mode)}
                {offer.term_months.map(|m| format!(" {m}m"))}
            </td>
            <td class="price-cell">
                <NumField
                    id=price_id
                    label=Signal::derive(move || format!("{} {}{}", currency.code(), "", model::price_unit(lang.get(), mode)))
                    value=Signal::derive(move || Some(price))
                    on_value=move |v| {
                        if let Some(p) = v {
                            let id = id.clone();
                            scenario.update(move |s| {
                                // An offer of the user's own holds its price itself; a catalog
                                // row's edit is kept apart from the catalog.
                                match s.edits.added.iter_mut().find(|o| o.id == id) {
                                    Some(o) => o.price = p,
                                    None => {
                                        s.edits.prices.insert(id, p);
                                    }
                                }
                            });
                        }
                    }
                    max=Decimal::from(100_000_000)
                    lang=lang
                />
            </td>
            <PriceDateCell lang=lang facts=facts source=source note=note />
            <td>
                <button
                    type="button"
                    class="link"
                    aria-label=move || format!("{} {}", t(lang.get(), Label::Remove), remove_id)
                    on:click={
                        let id = offer.id.clone();
                        move |_| {
                            let id = id.clone();
                            scenario.update(move |s| {
                                // A queue trace goes with its offer: a scenario naming an offer
                                // its catalog lacks is refused when it is read back.
                                s.detach_queue_trace(&id);
                                if s.edits.added.iter().any(|o| o.id == id) {
                                    s.edits.added.retain(|o| o.id != id);
                                } else if !s.edits.removed.contains(&id) {
                                    s.edits.removed.push(id);
                                }
                            })
                        }
                    }
                >
                    "×"
                </button>
            </td>
        </tr>
    }
}

/// What links the GPUs of a multi-GPU offer, as core reads it (stated or the card's default): the
/// link inside a node and, across nodes, their number and network.
fn links_note(lang: ReadSignal<Lang>, offer: &Offer) -> Option<impl IntoView + use<>> {
    let l = links(offer, offer.gpu_count)?;
    let node = l.node.link;
    let network = l.network.map(|n| n.link);
    let gbps = offer.node_network_gbps;
    Some(view! {
        <span class="muted offer-links">
            {move || {
                let lang = lang.get();
                let mut text = format!(" · {}", model::link(lang, node));
                if let (Some(net), Some(g)) = (network, gbps) {
                    let kind = if net == Link::NetworkRdma { "RDMA" } else { "TCP" };
                    text.push_str(&format!(
                        " · {} {} · {} Gbit/s {kind}",
                        l.nodes,
                        t(lang, Label::Nodes),
                        format::number(g, 0),
                    ));
                }
                text
            }}
        </span>
    })
}

/// A price's date, its age to today (marked when it is more than the stale limit) and the mark
/// of its evidence, whose tooltip gives the source (and how an estimate was made).
#[component]
fn PriceDateCell(
    lang: ReadSignal<Lang>,
    facts: PriceFacts,
    source: String,
    note: String,
) -> impl IntoView {
    let stale = facts.is_stale();
    let evidence = facts.price_evidence;
    let source_line = source.clone();
    let source_title = source.clone();
    view! {
        <td
            class="price-date"
            data-as-of=facts.price_as_of.clone()
            data-age-days=facts.price_age_days.map(|d| d.to_string())
            data-evidence=evidence.map(|e| e.id())
            data-stale=stale.to_string()
        >
            <span translate="no" title=move || format!("{}{}{}", t(lang.get(), Label::PriceSource), crate::vocab::pick(lang.get(), ": ", "："), source_title)>{facts.price_as_of.clone()}</span>
            {facts.price_age_days.map(|d| {
                let class = if stale { "price-age badge warn" } else { "price-age muted" };
                view! {
                    " "
                    <span class=class title=move || stale.then(|| model::stale_note(lang.get()))>
                        {move || model::price_age(lang.get(), d)}
                    </span>
                }
            })}
            {evidence.map(|e| {
                let source = source_line.clone();
                let note = note.clone();
                view! {
                    " "
                    <span
                        class=format!("badge evidence evidence-{}", e.id())
                        title=move || {
                            let lang = lang.get();
                            let mut tip = format!(
                                "{}{}{}",
                                model::evidence_meaning(lang, e),
                                crate::vocab::pick(lang, ". ", "。"),
                                t(lang, Label::PriceSource),
                            );
                            tip.push_str(crate::vocab::pick(lang, ": ", "："));
                            tip.push_str(&source);
                            if !note.is_empty() {
                                tip.push_str(" — ");
                                tip.push_str(&note);
                            }
                            tip
                        }
                    >
                        {move || model::evidence(lang.get(), e)}
                    </span>
                }
            })}
            <span class="sr-only" translate="no">{source}</span>
        </td>
    }
}

#[component]
fn Filters(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    /// The scenario's filter (the bindings read it, so a keystroke in the task form re-runs none
    /// of them); edits go to `scenario`.
    filter: Memo<OfferFilter>,
    sort: RwSignal<SortKey>,
) -> impl IntoView {
    let modes = BillingMode::ALL;
    let classes = [
        RegionClass::Tier1,
        RegionClass::Remote,
        RegionClass::Overseas,
    ];
    view! {
        <div class="filters">
            <div class="field">
                <label for="filter-text">{move || t(lang.get(), Label::FilterText)}</label>
                <input
                    id="filter-text"
                    type="search"
                    prop:value=move || filter.with(|f| f.text.clone())
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        scenario.update(|s| s.filter.text = v);
                    }
                />
            </div>
            <div class="field">
                <label for="filter-shared">{move || t(lang.get(), Label::FilterKind)}</label>
                <select
                    id="filter-shared"
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        scenario.update(|s| s.filter.shared = match v.as_str() { "shared" => Some(true), "dedicated" => Some(false), _ => None });
                    }
                >
                    <option value="all" selected=move || filter.with(|f| f.shared.is_none())>{move || t(lang.get(), Label::All)}</option>
                    <option value="shared" selected=move || filter.with(|f| f.shared == Some(true))>{move || t(lang.get(), Label::Shared)}</option>
                    <option value="dedicated" selected=move || filter.with(|f| f.shared == Some(false))>{move || t(lang.get(), Label::Dedicated)}</option>
                </select>
            </div>
            <div class="field">
                <label for="filter-billing">{move || t(lang.get(), Label::Billing)}</label>
                <select
                    id="filter-billing"
                    on:change=move |ev| {
                        let v = BillingMode::from_id(&event_target_value(&ev));
                        scenario.update(|s| s.filter.billing_modes = v.into_iter().collect());
                    }
                >
                    <option value="all" selected=move || filter.with(|f| f.billing_modes.is_empty())>{move || t(lang.get(), Label::All)}</option>
                    {modes.into_iter().map(|m| view! {
                        <option value=m.id() selected=move || filter.with(|f| f.billing_modes == [m])>
                            {move || model::billing(lang.get(), m)}
                        </option>
                    }).collect_view()}
                </select>
            </div>
            <div class="field">
                <label for="filter-region">{move || t(lang.get(), Label::Region)}</label>
                <select
                    id="filter-region"
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        let class = classes.into_iter().find(|c| c.id() == v);
                        scenario.update(|s| s.filter.region_classes = class.into_iter().collect());
                    }
                >
                    <option value="all" selected=move || filter.with(|f| f.region_classes.is_empty())>{move || t(lang.get(), Label::All)}</option>
                    {classes.into_iter().map(|c| view! {
                        <option value=c.id() selected=move || filter.with(|f| f.region_classes == [c])>
                            {move || model::region_class(lang.get(), c)}
                        </option>
                    }).collect_view()}
                </select>
            </div>
            <div class="field">
                <label for="filter-currency">{move || t(lang.get(), Label::Currency)}</label>
                <select
                    id="filter-currency"
                    on:change=move |ev| {
                        let v = Currency::from_code(&event_target_value(&ev));
                        scenario.update(|s| s.filter.currencies = v.into_iter().collect());
                    }
                >
                    <option value="all" selected=move || filter.with(|f| f.currencies.is_empty())>{move || t(lang.get(), Label::All)}</option>
                    {Currency::ALL.into_iter().map(|c| view! {
                        <option value=c.code() selected=move || filter.with(|f| f.currencies == [c])>{c.code()}</option>
                    }).collect_view()}
                </select>
            </div>
            <div class="field">
                <label for="sort">{move || t(lang.get(), Label::SortBy)}</label>
                <select
                    id="sort"
                    on:change=move |ev| {
                        sort.set(match event_target_value(&ev).as_str() {
                            "provider" => SortKey::Provider,
                            "vram" => SortKey::Vram,
                            "date" => SortKey::Date,
                            _ => SortKey::Price,
                        })
                    }
                >
                    <option value="price">{move || t(lang.get(), Label::SortPrice)}</option>
                    <option value="provider">{move || t(lang.get(), Label::SortProvider)}</option>
                    <option value="vram">{move || t(lang.get(), Label::SortVram)}</option>
                    <option value="date">{move || t(lang.get(), Label::SortDate)}</option>
                </select>
            </div>
        </div>
    }
}

#[component]
fn Discounts(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    /// The offers table's memos of the scenario's catalog edits and settings.
    edits: Memo<CatalogEdits>,
    settings: Memo<PlanSettings>,
) -> impl IntoView {
    let providers = Memo::new(move |_| {
        let mut p: Vec<String> = edits.with(|e| {
            e.apply(default_catalog())
                .offers
                .iter()
                .map(|o| o.provider.clone())
                .collect()
        });
        p.sort();
        p.dedup();
        p
    });
    let provider = RwSignal::new(String::new());
    let current = move || {
        let p = provider.get();
        settings.with(|s| s.discount(&p))
    };
    view! {
        <div class="discounts grid2">
            <div class="field">
                <label for="discount-provider">{move || t(lang.get(), Label::Provider)}</label>
                <select id="discount-provider" on:change=move |ev| provider.set(event_target_value(&ev))>
                    <option value="">"—"</option>
                    {move || providers.get().into_iter().map(|p| view! { <option value=p.clone()>{p.clone()}</option> }).collect_view()}
                </select>
            </div>
            <NumField
                id="discount-factor"
                label=Signal::derive(move || t(lang.get(), Label::Discount).to_owned())
                value=Signal::derive(move || Some(current()))
                on_value=move |v| {
                    let p = provider.get_untracked();
                    if p.is_empty() {
                        return;
                    }
                    scenario.update(|s| s.settings.set_discount(&p, v.unwrap_or(Decimal::ONE)));
                }
                max=Decimal::ONE
                lang=lang
            />
        </div>
    }
}

/// The form for a quote of one's own, closed at first; it is in a chunk of the site fetched when
/// it is first opened.
#[component]
fn AddOffer(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    view! {
        <Disclosure id="add-offer-panel" class="add-offer" summary=Signal::derive(move || t(lang.get(), Label::AddOffer).to_owned())>
            {move || lazy_view(lang, add_offer_panel(lang, scenario))}
        </Disclosure>
    }
}

/// The form's content, from its chunk; the error is that chunk failing to load.
#[leptos::wasm_split::wasm_split(quote, wasm_split_path = ::leptos::wasm_split, fallible)]
fn add_offer_panel(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
) -> Result<ViewFn, leptos::wasm_split::SplitLoaderError> {
    Ok(ViewFn::from(move || {
        add_offer_body(lang, scenario).into_any()
    }))
}

fn add_offer_body(lang: ReadSignal<Lang>, scenario: RwSignal<Scenario>) -> impl IntoView {
    // The name a quote gets until the user types one, in the page's language.
    let provider = RwSignal::new(t(lang.get_untracked(), Label::MyQuote).to_owned());
    let gpu = RwSignal::new("RTX4090".to_owned());
    let tenancy = RwSignal::new(Tenancy::Dedicated);
    let mode = RwSignal::new(BillingMode::PayAsYouGo);
    let currency = RwSignal::new(Currency::Cny);
    let price = RwSignal::new(Some(Decimal::new(18, 1)));
    let vram = RwSignal::new(Some(Decimal::from(24)));
    let count = RwSignal::new(Some(Decimal::ONE));
    let interconnect = RwSignal::new(None::<Interconnect>);
    let per_node = RwSignal::new(None::<Decimal>);
    let network = RwSignal::new(None::<Decimal>);
    let rdma = RwSignal::new(false);
    let several = move || count.get().is_some_and(|c| c > Decimal::ONE);
    let error = RwSignal::new(None::<FieldError>);
    let add = move |_| {
        let Some(p) = price.get_untracked() else {
            return;
        };
        let quote = Quote {
            provider: provider.get_untracked(),
            gpu: gpu.get_untracked(),
            gpu_count: count
                .get_untracked()
                .and_then(|c| u32::try_from(c).ok())
                .unwrap_or(1),
            interconnect: interconnect.get_untracked(),
            gpus_per_node: per_node.get_untracked().and_then(|c| u32::try_from(c).ok()),
            node_network_gbps: network.get_untracked().map(crate::fields::f),
            node_network_rdma: rdma.get_untracked(),
            tenancy: tenancy.get_untracked(),
            billing_mode: mode.get_untracked(),
            currency: currency.get_untracked(),
            price: p,
            vram_gib: vram.get_untracked().map(crate::fields::f),
            as_of: crate::clock::today(),
        };
        scenario.update(|s| {
            let id = free_custom_id(|id| s.edits.added.iter().any(|o| o.id == id));
            match quote.offer(id) {
                Ok(offer) => {
                    error.set(None);
                    s.edits.added.push(offer);
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
            <div class="grid2">
                <div class="field">
                    <label for="new-provider">{move || t(lang.get(), Label::Provider)}</label>
                    <input id="new-provider" type="text" prop:value=move || provider.get() on:input=move |ev| provider.set(event_target_value(&ev)) />
                </div>
                <div class="field">
                    <label for="new-gpu">{move || t(lang.get(), Label::Gpu)}</label>
                    <select id="new-gpu" on:change=move |ev| gpu.set(event_target_value(&ev))>
                        {gpu_specs().iter().map(|g| {
                            let s = g.short.clone();
                            let selected = s == "RTX4090";
                            view! { <option value=s.clone() selected=selected>{s.clone()}</option> }
                        }).collect_view()}
                    </select>
                </div>
                <div class="field">
                    <label for="new-tenancy">{move || t(lang.get(), Label::Tenancy)}</label>
                    <select id="new-tenancy" on:change=move |ev| if let Some(x) = Tenancy::from_id(&event_target_value(&ev)) { tenancy.set(x) }>
                        {Tenancy::ALL.into_iter().map(|x| view! { <option value=x.id()>{move || model::tenancy(lang.get(), x)}</option> }).collect_view()}
                    </select>
                </div>
                <NumField id="new-vram" label=Signal::derive(move || t(lang.get(), Label::Vram).to_owned()) value=vram on_value=move |v| vram.set(v) max=Decimal::from(4096) lang=lang />
                <NumField id="new-gpu-count" label=Signal::derive(move || t(lang.get(), Label::GpuCount).to_owned()) value=count on_value=move |v| count.set(v) max=Decimal::from(1024) whole=true min=Decimal::ONE lang=lang />
                <Show when=several>
                    <div class="field">
                        <label for="new-interconnect">{move || t(lang.get(), Label::InterconnectField)}</label>
                        <select id="new-interconnect" on:change=move |ev| interconnect.set(Interconnect::from_id(&event_target_value(&ev)))>
                            <option value="">{move || t(lang.get(), Label::InterconnectDefault)}</option>
                            {Interconnect::ALL.into_iter().map(|x| view! { <option value=x.id()>{move || model::interconnect(lang.get(), x)}</option> }).collect_view()}
                        </select>
                    </div>
                    <NumField id="new-gpus-per-node" label=Signal::derive(move || t(lang.get(), Label::GpusPerNodeOptional).to_owned()) value=per_node on_value=move |v| per_node.set(v) max=Decimal::from(1024) whole=true min=Decimal::ONE optional=true lang=lang />
                    <NumField id="new-node-network" label=Signal::derive(move || t(lang.get(), Label::NodeNetworkGbps).to_owned()) value=network on_value=move |v| network.set(v) max=Decimal::from(100_000) optional=true lang=lang />
                    <CheckField
                        id="new-rdma"
                        label=Signal::derive(move || t(lang.get(), Label::NodeNetworkRdma))
                        value=Signal::derive(move || rdma.get())
                        on_value=move |v| rdma.set(v)
                    />
                </Show>
                <div class="field">
                    <label for="new-billing">{move || t(lang.get(), Label::Billing)}</label>
                    <select id="new-billing" on:change=move |ev| if let Some(x) = BillingMode::from_id(&event_target_value(&ev)) { mode.set(x) }>
                        {BillingMode::ALL.into_iter().map(|x| view! { <option value=x.id()>{move || model::billing(lang.get(), x)}</option> }).collect_view()}
                    </select>
                </div>
                <NumField
                    id="new-price"
                    label=Signal::derive(move || format!("{} ({}{})", t(lang.get(), Label::Price), currency.get().code(), model::price_unit(lang.get(), mode.get())))
                    value=price
                    on_value=move |v| price.set(v)
                    max=Decimal::from(100_000_000)
                    lang=lang
                />
                <div class="field">
                    <label for="new-currency">{move || t(lang.get(), Label::Currency)}</label>
                    <select id="new-currency" on:change=move |ev| if let Some(c) = Currency::from_code(&event_target_value(&ev)) { currency.set(c) }>
                        {Currency::ALL.into_iter().map(|c| view! { <option value=c.code()>{c.code()}</option> }).collect_view()}
                    </select>
                </div>
            </div>
            <button type="button" id="add-offer" on:click=add>{move || t(lang.get(), Label::Add)}</button>
            {move || error.get().map(|e| view! {
                <p class="field-error" id="add-offer-error" role="alert">
                    {format!("{}: {}", t(lang.get(), Label::QuoteRefused), errors::field_error(lang.get(), &e))}
                </p>
            })}
    }
}
