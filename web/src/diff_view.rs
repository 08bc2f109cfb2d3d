//! "What changed": an earlier budget (the site's or the CLI's JSON export) opened in the browser
//! and compared with the plan shown by `gpufare_core::export::diff`, the rule behind
//! `gpufare plan --diff OLD.json`: the recommendation and its total before and now, its reasons,
//! and every offer whose rank, price, total or reasons moved, or that one budget lacks. The
//! current budget is built as the export bar saves it. The file is read here and nothing is
//! uploaded; reading and comparing live in a chunk of the site fetched when a file is chosen.
//! The comparison follows the plan: edit the task and it is made again.

use std::sync::Arc;

use gpufare_core::Currency;
use gpufare_core::export::budget::{BudgetError, BudgetReason, parse_budget};
use gpufare_core::export::diff::{BudgetDiff, RowChange, RowChangeKind, diff, price_number};
use gpufare_core::offers::offer::PriceEvidence;
use gpufare_core::plan::PlanResult;
use gpufare_core::plan::decision::Choice;
use gpufare_core::plan::reason::{Reason, RuleId};
use gpufare_core::scenario::document::Scenario;
use leptos::prelude::*;
use leptos::task::spawn_local;
use rust_decimal::Decimal;

use crate::format;
use crate::vocab::{Label, Lang, errors, model, pick, reasons, t};

/// A budget of the default catalog is about 300 KB; refuse anything absurd before reading it.
const MAX_BUDGET_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// Two budgets compared: what moved, and each offer's provider and GPU for its row.
struct Comparison {
    diff: BudgetDiff,
    titles: Vec<(String, String)>,
}

/// The card's contents for a file the chunk read: the comparison, or why the file is not a
/// budget this site reads, in a language and naming the file. Built inside the chunk, so the
/// code that draws them is fetched with it.
type Drawn = Arc<dyn Fn(Lang, &str) -> AnyView + Send + Sync>;

/// What the card shows for the file chosen.
#[derive(Clone)]
enum Shown {
    /// What the chunk made of the file: the comparison with the plan shown, or its refusal.
    Read(Drawn),
    /// Why there is no comparison, known without the chunk: the file is larger than
    /// [`MAX_BUDGET_BYTES`], the browser could not read it, the scenario has no plan, or the
    /// chunk could not be loaded.
    Refused(Label),
}

/// A refusal as the card shows it.
fn error_line(message: String) -> AnyView {
    view! { <p class="field-error" role="alert" id="budget-diff-error">{message}</p> }.into_any()
}

/// Reads `text` as a budget and compares it with the budget of `result`, built as the export bar
/// saves it; gives back how to draw the comparison, or the file's refusal. The error is the chunk
/// holding this code failing to load.
#[leptos::wasm_split::wasm_split(budget_diff, wasm_split_path = ::leptos::wasm_split, fallible)]
fn compare(
    text: Arc<String>,
    scenario: Scenario,
    result: PlanResult,
) -> Result<Drawn, leptos::wasm_split::SplitLoaderError> {
    let old = match parse_budget(&text) {
        Ok(old) => old,
        Err(e) => {
            return Ok(Arc::new(move |lang: Lang, name: &str| {
                error_line(format!("{name}: {}", refused(lang, &e)))
            }));
        }
    };
    let new = crate::planner::site_budget(scenario, &result);
    let diff = diff(&old, &new);
    let titles = diff
        .changes
        .iter()
        .filter_map(|c| {
            let row = new
                .options
                .iter()
                .chain(&old.options)
                .find(|r| r.offer_id == c.offer_id)?;
            let title = format!("{} × {} · {}", row.gpu_count, row.gpu, row.provider);
            Some((c.offer_id.clone(), title))
        })
        .collect();
    let c = Comparison { diff, titles };
    Ok(Arc::new(move |lang: Lang, name: &str| {
        comparison_view(lang, name, &c).into_any()
    }))
}

/// The comparison card, under the export bar.
#[component]
pub fn BudgetDiffView(
    lang: ReadSignal<Lang>,
    scenario: RwSignal<Scenario>,
    plan: crate::planner::Plan,
) -> impl IntoView {
    // The file chosen: its name and text.
    let loaded = RwSignal::new(None::<(String, Arc<String>)>);
    let shown = RwSignal::new(None::<(String, Shown)>);
    // The newest comparison asked for; an answer for an older one is dropped.
    let asked = StoredValue::new(0_u64);
    let details = NodeRef::<leptos::html::Details>::new();

    // Compares the file with the plan shown, again whenever a new plan arrives.
    Effect::new(move |_| {
        let Some((name, text)) = loaded.get() else {
            return;
        };
        if plan.pending.get() {
            return;
        }
        plan.result.track();
        let n = asked.get_value() + 1;
        asked.set_value(n);
        let Ok(result) = plan.current() else {
            shown.set(Some((name, Shown::Refused(Label::DiffNoPlan))));
            return;
        };
        let s = scenario.get_untracked();
        spawn_local(async move {
            let outcome = match compare(text, s, result).await {
                Ok(drawn) => Shown::Read(drawn),
                Err(_) => Shown::Refused(Label::ChunkFailed),
            };
            if asked.get_value() == n {
                shown.set(Some((name, outcome)));
            }
        });
    });

    let on_change = move |ev: leptos::ev::Event| {
        let Some(file) = crate::fields::take_chosen_file(&ev) else {
            return;
        };
        if let Some(d) = details.get_untracked() {
            d.set_open(true);
        }
        spawn_local(async move {
            let name = file.name();
            let refuse = |why: Shown| {
                asked.update_value(|n| *n += 1);
                loaded.set(None);
                shown.set(Some((name.clone(), why)));
            };
            if file.size() > MAX_BUDGET_BYTES {
                refuse(Shown::Refused(Label::DiffFileTooLarge));
                return;
            }
            let Some(text) = crate::fields::file_text(&file).await else {
                refuse(Shown::Refused(Label::FileUnreadable));
                return;
            };
            loaded.set(Some((name, Arc::new(text))));
        });
    };

    view! {
        <details id="budget-diff" class="card budget-diff" node_ref=details>
            <summary>{move || t(lang.get(), Label::DiffHeading)}</summary>
            <div class="field no-print">
                <label for="budget-diff-file">{move || t(lang.get(), Label::DiffOpen)}</label>
                <input
                    id="budget-diff-file"
                    type="file"
                    accept=".json,application/json"
                    aria-describedby="budget-diff-hint"
                    on:change=on_change
                />
                <span class="hint" id="budget-diff-hint">{move || t(lang.get(), Label::DiffHint)}</span>
            </div>
            {move || {
                let lang = lang.get();
                shown.get().map(|(name, s)| match s {
                    Shown::Read(drawn) => drawn(lang, &name),
                    Shown::Refused(why) => error_line(format!("{name}: {}", t(lang, why))),
                })
            }}
        </details>
    }
}

/// Why a file is not a budget this site reads (naming the field, when core names one).
fn refused(lang: Lang, e: &BudgetError) -> String {
    let colon = pick(lang, ": ", "：");
    match e {
        BudgetError::Invalid(p) => format!(
            "{}{colon}{}",
            t(lang, Label::DiffNotBudget),
            errors::json_problem(lang, p)
        ),
        BudgetError::UnsupportedFormat { found, max } => match lang {
            Lang::En => format!(
                "budget format version {found} is newer than this site reads (up to {max}); open it with a newer gpufare"
            ),
            Lang::Zh => format!(
                "预算格式版本 {found} 比本网站能读取的版本（最高 {max}）更新；请用更新版本的 gpufare 打开"
            ),
        },
        BudgetError::OutOfRange(f) => format!(
            "{}{colon}{}",
            t(lang, Label::DiffNotBudget),
            errors::field_error(lang, f)
        ),
        BudgetError::Scenario(s) => format!(
            "{}{colon}{}",
            t(lang, Label::DiffBadScenario),
            errors::scenario_error(lang, s)
        ),
    }
}

/// Money with its currency, as the rest of the page shows it.
fn money(lang: Lang, x: f64, c: Currency) -> String {
    format::amount(lang, Decimal::try_from(x).unwrap_or_default(), c)
}

/// A change of money with its sign.
fn signed(lang: Lang, x: f64, c: Currency) -> String {
    format!("{}{}", if x >= 0.0 { "+" } else { "" }, money(lang, x, c))
}

/// A price per GPU-hour with its currency and unit.
fn price(lang: Lang, x: f64, c: Currency) -> String {
    format!(
        "{} {}{}",
        price_number(x),
        format::currency_name(lang, c),
        t(lang, Label::DiffPerGpuHour)
    )
}

/// A reason as the budget stores it, in the page's language: the budget's own English wording,
/// or the Chinese worded from its rule id and parameters, as the page words a plan's reasons.
fn reason_text(lang: Lang, r: &BudgetReason) -> String {
    match (lang, RuleId::from_id(&r.rule)) {
        (Lang::Zh, Some(rule)) => reasons::reason(
            lang,
            &Reason {
                rule,
                params: r.params.clone(),
            },
        ),
        _ => r.text.clone(),
    }
}

/// A recommendation: the kind of capacity and the offer.
fn recommendation(lang: Lang, choice: &str, offer: Option<&String>) -> String {
    let kind = Choice::from_id(choice)
        .map_or_else(|| choice.to_owned(), |c| model::choice(lang, c).to_owned());
    match offer {
        Some(o) => format!("{kind} · {o}"),
        None => kind,
    }
}

/// A price's evidence by its id (`none` when the row gave none).
fn evidence(lang: Lang, id: &str) -> String {
    PriceEvidence::from_id(id).map_or_else(
        || {
            if id == "none" {
                t(lang, Label::DiffNoEvidence).to_owned()
            } else {
                id.to_owned()
            }
        },
        |e| model::evidence(lang, e).to_owned(),
    )
}

/// A value before and after, each with its raw number for the curious (and the tests).
fn before_after(
    before: Option<(String, String)>,
    after: Option<(String, String)>,
) -> impl IntoView {
    let part = |x: Option<(String, String)>, id: &'static str| {
        let (text, value) = x.map_or(("—".to_owned(), None), |(t, v)| (t, Some(v)));
        view! { <span data-testid=id data-value=value>{text}</span> }
    };
    view! { {part(before, "before")}" → "{part(after, "after")} }
}

fn comparison_view(lang: Lang, name: &str, c: &Comparison) -> impl IntoView + use<> {
    let d = &c.diff;
    let (cb, ca) = (
        d.currency_before_or(Currency::Cny),
        d.currency_after_or(Currency::Cny),
    );
    let colon = pick(lang, ": ", "：");
    let rec_changed = d.recommendation_changed();
    let total_change = d.recommended_total_change.map(|x| {
        view! { <span data-value=x.to_string()>{signed(lang, x, ca)}</span> }
    });
    let reasons_list = |list: &[BudgetReason], id: &'static str| {
        let items = list
            .iter()
            .map(|r| view! { <li data-rule=r.rule.clone()>{reason_text(lang, r)}</li> })
            .collect_view();
        view! { <ul class="reasons" id=id>{items}</ul> }
    };
    // The column of reasons and warnings only when some offer gained or lost one.
    let why = d
        .changes
        .iter()
        .any(|c| !c.reasons_added.is_empty() || !c.reasons_removed.is_empty());
    let rows = d
        .changes
        .iter()
        .map(|ch| {
            let title = c
                .titles
                .iter()
                .find(|(id, _)| id == &ch.offer_id)
                .map(|(_, t)| t.clone())
                .unwrap_or_default();
            change_row(lang, ch, title, cb, ca, why)
        })
        .collect_view();
    let changes = if d.changes.is_empty() {
        view! { <p id="budget-diff-none">{t(lang, Label::DiffNoChanges)}</p> }.into_any()
    } else {
        view! {
            <div class="table-wrap">
                <table id="budget-diff-changes">
                    <thead>
                        <tr>
                            <th scope="col">{t(lang, Label::DiffOffer)}</th>
                            <th scope="col">{t(lang, Label::DiffRank)}</th>
                            <th scope="col">{t(lang, Label::DiffPrice)}</th>
                            <th scope="col">{t(lang, Label::DiffTotal)}</th>
                            <th scope="col">{t(lang, Label::DiffChange)}</th>
                            {why.then(|| view! { <th scope="col">{t(lang, Label::DiffWhy)}</th> })}
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
        .into_any()
    };
    view! {
        <div id="budget-diff-result" data-file=name.to_owned()>
            <p class="hint">{t(lang, Label::DiffComparedWith)}{colon}<code translate="no">{name.to_owned()}</code></p>
            {d.currency_before.map(|_| view! { <p class="hint" id="budget-diff-currency">{t(lang, Label::DiffOtherCurrency)}</p> })}
            <div class="table-wrap">
                <table id="budget-diff-summary">
                    <thead>
                        <tr>
                            <th scope="col"></th>
                            <th scope="col">{t(lang, Label::DiffBefore)}</th>
                            <th scope="col">{t(lang, Label::DiffNow)}</th>
                            <th scope="col">{t(lang, Label::DiffChange)}</th>
                        </tr>
                    </thead>
                    <tbody>
                        <tr id="budget-diff-recommendation" data-changed=rec_changed.to_string()>
                            <th scope="row">{t(lang, Label::DiffRecommendation)}</th>
                            <td data-testid="before" data-choice=d.choice_before.clone() data-offer=d.recommended_before.clone()>
                                {recommendation(lang, &d.choice_before, d.recommended_before.as_ref())}
                            </td>
                            <td data-testid="after" data-choice=d.choice_after.clone() data-offer=d.recommended_after.clone()>
                                {recommendation(lang, &d.choice_after, d.recommended_after.as_ref())}
                            </td>
                            <td>{t(lang, if rec_changed { Label::DiffChanged } else { Label::DiffUnchanged })}</td>
                        </tr>
                        <tr id="budget-diff-total">
                            <th scope="row">{t(lang, Label::DiffRecommendedTotal)}</th>
                            <td class="num" data-testid="before" data-value=d.recommended_total_before.map(|x| x.to_string())>
                                {d.recommended_total_before.map_or("—".to_owned(), |x| money(lang, x, cb))}
                            </td>
                            <td class="num total" data-testid="after" data-value=d.recommended_total_after.map(|x| x.to_string())>
                                {d.recommended_total_after.map_or("—".to_owned(), |x| money(lang, x, ca))}
                            </td>
                            <td class="num" data-testid="change">{total_change}</td>
                        </tr>
                    </tbody>
                </table>
            </div>
            <h3>{t(lang, Label::DiffReasons)}</h3>
            {(!d.reasons_changed()).then(|| view! { <p class="hint" id="budget-diff-reasons-same">{t(lang, Label::DiffReasonsUnchanged)}</p> })}
            <div class="grid2">
                <div>
                    <h4>{t(lang, Label::DiffBefore)}</h4>
                    {reasons_list(&d.reasons_before, "budget-diff-reasons-before")}
                </div>
                <div>
                    <h4>{t(lang, Label::DiffNow)}</h4>
                    {reasons_list(&d.reasons_after, "budget-diff-reasons-after")}
                </div>
            </div>
            <h3>{t(lang, Label::DiffOffers)}</h3>
            {changes}
        </div>
    }
}

/// One offer that moved.
fn change_row(
    lang: Lang,
    ch: &RowChange,
    title: String,
    cb: Currency,
    ca: Currency,
    why: bool,
) -> impl IntoView + use<> {
    let badge = match ch.change {
        RowChangeKind::Changed => None,
        RowChangeKind::Added => Some(t(lang, Label::DiffAdded)),
        RowChangeKind::Removed => Some(t(lang, Label::DiffRemoved)),
    }
    .map(|b| view! { <span class="badge">{b}</span> });
    let rank = |r: Option<usize>| r.map(|r| (r.to_string(), r.to_string()));
    let price_of = |p: Option<f64>, c| p.map(|p| (price(lang, p, c), p.to_string()));
    let total_of = |x: Option<f64>, c| x.map(|x| (money(lang, x, c), x.to_string()));
    let colon = pick(lang, ": ", "：");
    let date = match (&ch.price_as_of_before, &ch.price_as_of_after) {
        (Some(a), Some(b)) => Some(view! {
            <br />
            <span class="hint" data-testid="price-date">
                {format!("{}{colon}", t(lang, Label::DiffPriceDate))}
                <span translate="no">{format!("{a} → {b}")}</span>
            </span>
        }),
        _ => None,
    };
    let evidence_change = match (&ch.price_evidence_before, &ch.price_evidence_after) {
        (Some(a), Some(b)) => Some(view! {
            <br />
            <span class="hint" data-testid="price-evidence" data-before=a.clone() data-after=b.clone()>
                {format!("{}{colon}{} → {}", t(lang, Label::DiffEvidence), evidence(lang, a), evidence(lang, b))}
            </span>
        }),
        _ => None,
    };
    let signed_list = |list: &[BudgetReason], sign: &'static str, label: Label| {
        list.iter()
            .map(|r| {
                view! {
                    <li data-rule=r.rule.clone() data-sign=sign>
                        <span class="muted">{format!("{}{colon}", t(lang, label))}</span>
                        {reason_text(lang, r)}
                    </li>
                }
            })
            .collect_view()
    };
    let added = signed_list(&ch.reasons_added, "+", Label::DiffReasonAdded);
    let removed = signed_list(&ch.reasons_removed, "-", Label::DiffReasonRemoved);
    let change = ch
        .total_change
        .map(|x| view! { <span data-value=x.to_string()>{signed(lang, x, ca)}</span> });
    view! {
        <tr data-offer=ch.offer_id.clone() data-change=ch.change.id()>
            <td>
                <code translate="no">{ch.offer_id.clone()}</code>
                {badge}
                <br />
                <span class="muted">{title}</span>
            </td>
            <td class="num" data-testid="rank">{before_after(rank(ch.rank_before), rank(ch.rank_after))}</td>
            <td class="num" data-testid="price">
                {before_after(price_of(ch.price_before, cb), price_of(ch.price_after, ca))}
                {date}
                {evidence_change}
            </td>
            <td class="num" data-testid="total">{before_after(total_of(ch.total_before, cb), total_of(ch.total_after, ca))}</td>
            <td class="num" data-testid="change">{change}</td>
            {why.then(|| view! { <td data-testid="reasons"><ul class="reasons">{added}{removed}</ul></td> })}
        </tr>
    }
}
