//! The plan the page shows, computed in a Web Worker so that typing never waits for it.
//!
//! The page's first plan is computed here, on the main thread, so the first render shows an
//! answer. After every edit the scenario goes to `plan-worker.js` (the `gpufare-plan-worker` wasm,
//! built for speed) as JSON and the plan comes back as JSON; while it is on its way the page keeps
//! showing the previous plan, marked as pending. Edits made while the worker is busy are merged:
//! only the newest scenario is sent next, and an answer for a scenario that has since changed is
//! dropped. When the worker cannot start or fails, or cannot plan a scenario (an invalid one: the
//! page then says why in the user's language), the page plans on the main thread, as before.
//!
//! After an edit the page first shows a first answer, marked provisional: the headline of the
//! scenario priced with the closed forms alone. For catalogs up to [`FIRST_ON_PAGE_MAX_OFFERS`]
//! offers the page prices it itself, in the same task as the edit, so it is painted in the
//! keystroke's own frame (the default catalog takes a few milliseconds of wasm); the scenario
//! goes to the plan worker only once that frame is painted, so the two do not compete for the
//! cores. Larger catalogs go to a second, quick worker (the same script under another name),
//! started the first time one is needed. The full plan replaces the first answer when it comes.

use std::cell::RefCell;
use std::rc::Rc;

use gpufare_core::export::budget::{Budget, budget};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::headline::Headline;
use gpufare_core::plan::{PlanError, PlanResult};
use gpufare_core::scenario::document::Scenario;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::{Closure, JsValue};

/// A plan, or why there is none.
pub type Planned = Result<PlanResult, PlanError>;

/// Where the plan on screen was computed (`data-planner` on the page, for tests and curious users).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// On the page's main thread.
    Page,
    /// In the Web Worker.
    Worker,
}

impl Engine {
    /// The attribute value.
    pub fn tag(self) -> &'static str {
        match self {
            Engine::Page => "page",
            Engine::Worker => "worker",
        }
    }
}

/// The plan on screen and its state.
#[derive(Clone, Copy)]
pub struct Plan {
    /// The plan shown: the current scenario's once `pending` is false.
    pub result: ReadSignal<Planned>,
    /// A newer scenario is being planned; `result` is the previous one's.
    pub pending: ReadSignal<bool>,
    /// Where `result` was computed.
    pub engine: ReadSignal<Engine>,
    /// While `pending`: the newest scenario's first answer, priced with the closed forms alone
    /// (shown marked provisional), once priced; `None` otherwise.
    pub first: ReadSignal<Option<FirstAnswer>>,
    /// `pending` for more than [`SLOW_AFTER`]: the plan shown is then dimmed.
    pub slow: ReadSignal<bool>,
    scenario: RwSignal<Scenario>,
}

/// How long a newer plan may be on its way before the one shown is dimmed, so that quick answers
/// do not flicker. A timer rather than a CSS transition delay: the delayed transition, started on
/// every keystroke, cost the edit's frame about 4 ms here (`bench/site-metrics.mjs`).
pub const SLOW_AFTER: std::time::Duration = std::time::Duration::from_millis(250);

impl Plan {
    /// The current scenario's plan, now: the one shown if it is current, otherwise computed on the
    /// main thread (for an export the user clicked while a plan was on its way).
    pub fn current(&self) -> Planned {
        if self.pending.get_untracked() {
            self.scenario.with_untracked(plan_here)
        } else {
            self.result.get_untracked()
        }
    }
}

fn plan_here(scenario: &Scenario) -> Planned {
    scenario.plan(default_catalog())
}

/// A first answer and where it was priced (`data-engine` on the page).
#[derive(Debug, Clone, PartialEq)]
pub struct FirstAnswer {
    /// The headline of the closed-form plan.
    pub headline: Headline,
    /// The page itself, or the quick worker for a large catalog.
    pub engine: Engine,
}

/// Catalogs up to this many offers get their first answer priced on the page, in the edit's own
/// task: the 114 offers of the default catalog take 2.5-4 ms of the page's wasm on this project's
/// 2-core machine, so this many stay within a few milliseconds more. Larger ones go to the quick
/// worker, so that typing never waits for them.
pub const FIRST_ON_PAGE_MAX_OFFERS: usize = 200;

/// The worker's state.
enum Link {
    /// Not started yet: it starts after the first render, so the first render loads nothing else.
    NotYet,
    /// Running.
    Up(web_sys::Worker),
    /// Failed, refused, or not available in this browser: the page plans by itself.
    Gone,
}

/// What the page and the worker share: the worker, whether it is busy, the newest scenario not
/// yet sent, and the number of the newest scenario.
struct Channel {
    link: Link,
    busy: bool,
    queued: Option<(u32, String)>,
    newest: u32,
}

impl Channel {
    /// Sends scenario `id`, or keeps it for when the worker is free. False if there is no worker.
    fn ask(&mut self, id: u32, json: String) -> bool {
        self.newest = id;
        if self.busy {
            self.queued = Some((id, json));
            return true;
        }
        self.send(id, &json)
    }

    fn send(&mut self, id: u32, json: &str) -> bool {
        let Link::Up(worker) = &self.link else {
            return false;
        };
        let message = js_sys::Object::new();
        // The cores the page sees: the worker splits the plan by them (see plan-worker.js).
        let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
        let sent = js_sys::Reflect::set(&message, &"id".into(), &id.into())
            .and_then(|_| js_sys::Reflect::set(&message, &"scenario".into(), &json.into()))
            .and_then(|_| js_sys::Reflect::set(&message, &"cores".into(), &cores.into()))
            .and_then(|_| worker.post_message(&message));
        self.busy = sent.is_ok();
        if !self.busy {
            self.stop();
        }
        self.busy
    }

    /// Gives the worker up: the page plans by itself from now on.
    fn stop(&mut self) {
        if let Link::Up(worker) = std::mem::replace(&mut self.link, Link::Gone) {
            worker.terminate();
        }
        self.busy = false;
        self.queued = None;
    }

    fn is_gone(&self) -> bool {
        matches!(self.link, Link::Gone)
    }
}

/// Reads the worker's answer. The plan's deserializer is large and only needed after the first
/// edit, so it lives in a chunk fetched then (`None`: the answer could not be read).
#[leptos::wasm_split::wasm_split(plan_answer, wasm_split_path = ::leptos::wasm_split, fallible)]
fn read_plan(answer: String) -> Result<Option<PlanResult>, leptos::wasm_split::SplitLoaderError> {
    Ok(serde_json::from_str(&answer).ok())
}

/// The plan of `scenario`, kept up to date as it changes.
pub fn planner(scenario: RwSignal<Scenario>) -> Plan {
    let result = RwSignal::new(scenario.with_untracked(plan_here));
    let pending = RwSignal::new(false);
    let engine = RwSignal::new(Engine::Page);
    let first = RwSignal::new(None);
    let idle = || {
        Rc::new(RefCell::new(Channel {
            link: Link::NotYet,
            busy: false,
            queued: None,
            newest: 0,
        }))
    };
    let channel = idle();
    let quick = idle();
    let signals = Signals {
        scenario,
        result,
        pending,
        engine,
        first,
    };

    // After the first frame has been painted.
    let later = Rc::clone(&channel);
    request_animation_frame(move || {
        set_timeout(
            move || {
                start(&later, signals);
                warm_first_answer(scenario, FIRST_ANSWER_WARM_UPS);
            },
            std::time::Duration::ZERO,
        );
    });

    Effect::new(move |asked: Option<u32>| {
        scenario.track();
        // The first run is the scenario planned above.
        let Some(asked) = asked else {
            return 0;
        };
        let id = asked + 1;
        start(&channel, signals);
        if channel.borrow().is_gone() {
            signals.plan_on_page();
            return id;
        }
        // From now on an answer for an earlier scenario is out of date.
        channel.borrow_mut().newest = id;
        pending.set(true);
        let json = move || scenario.with_untracked(|s| serde_json::to_string(s).ok());
        // The scenario as JSON, serialised once; for the plan worker only after the frame.
        let mut early = None;
        if let Some(headline) = scenario.with_untracked(first_answer_here) {
            // Priced here, in the keystroke's own task.
            first.set(headline.ok().map(|headline| FirstAnswer {
                headline,
                engine: Engine::Page,
            }));
        } else {
            first.set(None);
            start_quick(&quick, &channel, signals);
            early = json();
            if let Some(json) = &early {
                quick.borrow_mut().ask(id, json.clone());
            }
        }
        // The full plan: sent once the frame with the first answer has been painted (unless a
        // newer edit came meanwhile, which sends its own), so that serialising the scenario and
        // the worker's start do not delay that frame.
        let full = Rc::clone(&channel);
        request_animation_frame(move || {
            set_timeout(
                move || {
                    if full.borrow().newest != id {
                        return;
                    }
                    let sent = early
                        .or_else(json)
                        .is_some_and(|json| full.borrow_mut().ask(id, json));
                    if !sent {
                        full.borrow_mut().stop();
                        signals.plan_on_page();
                    }
                },
                std::time::Duration::ZERO,
            );
        });
        id
    });

    // Each stretch of `pending` gets its own timer; one left over from an earlier stretch does
    // nothing.
    let slow = RwSignal::new(false);
    let stretch = Rc::new(std::cell::Cell::new(0_u32));
    Effect::new(move |_| {
        let waiting = pending.get();
        let this = stretch.get().wrapping_add(1);
        stretch.set(this);
        if !waiting {
            slow.set(false);
            return;
        }
        let stretch = Rc::clone(&stretch);
        set_timeout(
            move || {
                if stretch.get() == this {
                    slow.set(true);
                }
            },
            SLOW_AFTER,
        );
    });

    Plan {
        result: result.read_only(),
        pending: pending.read_only(),
        engine: engine.read_only(),
        first: first.read_only(),
        slow: slow.read_only(),
        scenario,
    }
}

/// The signals the worker's answers land in.
#[derive(Clone, Copy)]
struct Signals {
    scenario: RwSignal<Scenario>,
    result: RwSignal<Planned>,
    pending: RwSignal<bool>,
    engine: RwSignal<Engine>,
    first: RwSignal<Option<FirstAnswer>>,
}

impl Signals {
    /// The page's own plan of the newest scenario: after a failure, and when there is no worker.
    fn plan_on_page(self) {
        self.result.set(self.scenario.with_untracked(plan_here));
        self.engine.set(Engine::Page);
        self.pending.set(false);
        self.first.set(None);
    }

    /// The worker's answer for scenario `id` arrived (`None`: it could not plan it).
    fn answered(self, channel: &Rc<RefCell<Channel>>, id: f64, answer: Option<String>) {
        let mut ch = channel.borrow_mut();
        ch.busy = false;
        if let Some((next, json)) = ch.queued.take() {
            ch.send(next, &json);
        }
        let newest = ch.newest;
        let gone = ch.is_gone();
        drop(ch);
        if id == f64::from(WARM_UP) {
            // Read and dropped: this fetches the reader's chunk before the first edit needs it.
            if let Some(answer) = answer {
                leptos::task::spawn_local(async move {
                    let _ = read_plan(answer).await;
                });
            }
            if gone && self.pending.get_untracked() {
                self.plan_on_page();
            }
            return;
        }
        if id != f64::from(newest) {
            // A newer scenario is on its way; this answer is out of date. If the worker has gone
            // meanwhile, nobody else will plan the newest one.
            if gone && self.pending.get_untracked() {
                self.plan_on_page();
            }
            return;
        }
        let Some(answer) = answer else {
            self.plan_on_page();
            return;
        };
        let channel = Rc::clone(channel);
        leptos::task::spawn_local(async move {
            let read = read_plan(answer).await.ok().flatten();
            // Still the newest scenario's? Another edit may have come while reading.
            if id != f64::from(channel.borrow().newest) {
                return;
            }
            match read {
                Some(plan) => {
                    self.result.set(Ok(plan));
                    self.engine.set(Engine::Worker);
                    self.pending.set(false);
                    self.first.set(None);
                }
                None => self.plan_on_page(),
            }
        });
    }

    /// The worker failed: the page plans by itself from now on.
    fn failed(self, channel: &Rc<RefCell<Channel>>) {
        channel.borrow_mut().stop();
        if self.pending.get_untracked() {
            self.plan_on_page();
        }
    }
}

/// The quick worker's name: plan-worker.js then answers with first answers (see there).
const FIRST: &str = "gpufare-plan-first";

/// Starts the quick worker, once, if the browser allows one: it prices a scenario whose catalog
/// is too large for the page ([`FIRST_ON_PAGE_MAX_OFFERS`]) with the closed forms alone, and its
/// answer is shown while the full plan (`channel`) is still pending for that same scenario.
/// Without it the page just waits for the full plan.
fn start_quick(quick: &Rc<RefCell<Channel>>, channel: &Rc<RefCell<Channel>>, signals: Signals) {
    if !matches!(quick.borrow().link, Link::NotYet) {
        return;
    }
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    options.set_name(FIRST);
    let Ok(worker) = web_sys::Worker::new_with_options("plan-worker.js", &options) else {
        quick.borrow_mut().link = Link::Gone;
        return;
    };
    let answers = Rc::clone(quick);
    let full = Rc::clone(channel);
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let data = event.data();
            let field = |name: &str| js_sys::Reflect::get(&data, &name.into()).ok();
            let mut q = answers.borrow_mut();
            if field("failed").is_some_and(|v| v.is_truthy()) {
                q.stop();
                return;
            }
            q.busy = false;
            if let Some((next, json)) = q.queued.take() {
                q.send(next, &json);
            }
            drop(q);
            let id = field("id").and_then(|v| v.as_f64()).unwrap_or(-1.0);
            // Only the newest scenario's, and only while its full plan is still on its way.
            if id != f64::from(full.borrow().newest) || !signals.pending.get_untracked() {
                return;
            }
            let headline = field("first")
                .and_then(|v| v.as_string())
                .and_then(|text| serde_json::from_str::<Headline>(&text).ok());
            if let Some(headline) = headline {
                signals.first.set(Some(FirstAnswer {
                    headline,
                    engine: Engine::Worker,
                }));
            }
        });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let broken = Rc::clone(quick);
    let on_error = Closure::<dyn FnMut(JsValue)>::new(move |_: JsValue| broken.borrow_mut().stop());
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    quick.borrow_mut().link = Link::Up(worker);
}

/// Starts the worker, once, if the browser allows one.
fn start(channel: &Rc<RefCell<Channel>>, signals: Signals) {
    if !matches!(channel.borrow().link, Link::NotYet) {
        return;
    }
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let Ok(worker) = web_sys::Worker::new_with_options("plan-worker.js", &options) else {
        channel.borrow_mut().link = Link::Gone;
        return;
    };
    let answers = Rc::clone(channel);
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let data = event.data();
            let field = |name: &str| js_sys::Reflect::get(&data, &name.into()).ok();
            if field("failed").is_some_and(|v| v.is_truthy()) {
                signals.failed(&answers);
                return;
            }
            let id = field("id").and_then(|v| v.as_f64()).unwrap_or(-1.0);
            signals.answered(&answers, id, field("plan").and_then(|v| v.as_string()));
        });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handlers live as long as the page.
    on_message.forget();
    let broken = Rc::clone(channel);
    let on_error = Closure::<dyn FnMut(JsValue)>::new(move |_: JsValue| signals.failed(&broken));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    let mut ch = channel.borrow_mut();
    ch.link = Link::Up(worker);
    // Warm the worker up with the scenario on screen (its answer is not shown: the page has that
    // plan already), so the first edit does not also wait for the module to compile and for the
    // answer's reader to be fetched.
    if let Some(json) = signals
        .scenario
        .with_untracked(|s| serde_json::to_string(s).ok())
    {
        ch.send(WARM_UP, &json);
    }
}

/// The first answer of `scenario`, priced on the page when its catalog is small enough
/// ([`FIRST_ON_PAGE_MAX_OFFERS`], counted without building the catalog, which for a large one
/// would itself hold up the keystroke); `None` when it is too large (the quick worker prices it).
fn first_answer_here(scenario: &Scenario) -> Option<Result<Headline, PlanError>> {
    (scenario.offers_at_most(default_catalog()) <= FIRST_ON_PAGE_MAX_OFFERS)
        .then(|| scenario.first_answer(default_catalog()))
}

/// How many times the page prices the first answer of the scenario it opened with, before any
/// edit (see [`warm_first_answer`]).
const FIRST_ANSWER_WARM_UPS: u32 = 8;

/// Prices the first answer of the current scenario `times` times, one task each and a little
/// apart so that a keystroke meanwhile is not held up, and drops the results. The browser compiles
/// a wasm function's optimised code only after it has run for a while (and its first code on its
/// first call), so without this the first edits after a load run the slow code: in
/// `bench/site-metrics.mjs` the first answer took 19.8 ms median with the first edits cold and
/// 14.0 ms once three edits had been made first. Each call takes a few milliseconds of the idle
/// time after the first paint; eight did a little better than three (within the noise).
fn warm_first_answer(scenario: RwSignal<Scenario>, times: u32) {
    if times == 0 {
        return;
    }
    set_timeout(
        move || {
            let priced = scenario.try_with_untracked(|s| first_answer_here(s).is_some());
            if priced == Some(true) {
                warm_first_answer(scenario, times - 1);
            }
        },
        std::time::Duration::from_millis(20),
    );
}

/// The number of the warm-up request; scenarios are numbered from 1.
const WARM_UP: u32 = u32::MAX;

/// The budget of `result` as the site saves it: priced against the scenario's catalog (the
/// default one with the user's edits), with the scenario inside for `gpufare plan --scenario`.
pub fn site_budget(scenario: Scenario, result: &PlanResult) -> Budget {
    let catalog = scenario.catalog(default_catalog());
    let mut b = budget(result, &scenario.task, &catalog);
    b.scenario = Some(scenario);
    b
}
