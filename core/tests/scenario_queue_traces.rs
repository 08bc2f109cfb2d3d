//! Queue traces carried by a scenario: the offer they name (a catalog row or the user's own) is
//! priced with its queue drawn from the measured waits, the list travels through JSON and share
//! links unchanged, and a trace on an offer the catalog lacks, a damaged one or too many of them
//! are refused with the offer named.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::queue::{QueueSource, QueueTrace};
use gpufare_core::offers::queue_trace::parse_queue_trace;
use gpufare_core::plan::PlanResult;
use gpufare_core::plan::option::OptionResult;
use gpufare_core::scenario::document::{
    AttachedQueueTrace, MAX_QUEUE_TRACES, Scenario, ScenarioError, parse_scenario,
    parse_scenario_for,
};
use gpufare_core::scenario::share::{decode_share, decode_share_for, encode_share};
use gpufare_core::task::presets::preset;

/// A whole-card catalog offer whose own queue is spread from its mean wait.
const QUEUED: &str = "autodl-4090-payg";

fn scenario() -> Scenario {
    let mut s = Scenario::new(
        preset("qlora_7b").expect("a built-in preset"),
        Some("qlora_7b"),
    );
    s.settings.trials = 200;
    s
}

/// 60 starts at once and 40 after half an hour.
fn waits() -> QueueTrace {
    let mut text = String::from("wait_s\n");
    for w in std::iter::repeat_n(0, 60).chain(std::iter::repeat_n(1800, 40)) {
        text.push_str(&format!("{w}\n"));
    }
    parse_queue_trace("pool-waits.csv", &text).expect("the waits parse")
}

/// Every start after two hours.
fn slow_waits() -> QueueTrace {
    parse_queue_trace("slow.csv", "wait_s\n7200\n7200\n7200\n").expect("the waits parse")
}

fn option<'a>(plan: &'a PlanResult, id: &str) -> &'a OptionResult {
    plan.options
        .iter()
        .find(|o| o.offer_id == id)
        .unwrap_or_else(|| panic!("{id} is priced"))
}

#[test]
fn a_catalog_offer_with_a_queue_trace_is_priced_as_measured() {
    let base = default_catalog();
    let before = scenario().plan(base).expect("plans");
    assert_eq!(
        option(&before, QUEUED).queue_hours.source,
        QueueSource::FromMean
    );

    let mut s = scenario();
    s.attach_queue_trace(QUEUED, waits());
    // The catalog itself is not edited: the row stays the catalog's, carrying the trace.
    assert!(s.edits.is_empty());
    let catalog = s.catalog(base);
    let row = catalog.offers.iter().find(|o| o.id == QUEUED).unwrap();
    assert_eq!(row.queue_trace.as_ref(), Some(&waits()));
    assert_eq!(catalog.offers.len(), base.offers.len());

    let after = s.plan(base).expect("plans");
    let q = &option(&after, QUEUED).queue_hours;
    assert_eq!(q.source, QueueSource::Trace);
    assert_eq!((q.p50, q.p90), (0.0, 0.5));
    // The other offers keep their queues.
    for o in before.options.iter().filter(|o| o.offer_id != QUEUED) {
        assert_eq!(
            option(&after, &o.offer_id).queue_hours,
            o.queue_hours,
            "{}",
            o.offer_id
        );
    }

    // Attached again, the new trace replaces the old; detached, the assumed queue is back.
    s.attach_queue_trace(QUEUED, slow_waits());
    assert_eq!(s.queue_traces.len(), 1);
    assert_eq!(option(&s.plan(base).unwrap(), QUEUED).queue_hours.p50, 2.0);
    s.detach_queue_trace(QUEUED);
    assert!(s.queue_traces.is_empty());
    assert_eq!(
        option(&s.plan(base).unwrap(), QUEUED).queue_hours,
        option(&before, QUEUED).queue_hours
    );
}

#[test]
fn a_later_entry_for_the_same_offer_wins() {
    let mut s = scenario();
    for trace in [waits(), slow_waits()] {
        s.queue_traces.push(AttachedQueueTrace {
            offer_id: QUEUED.to_owned(),
            trace,
        });
    }
    assert_eq!(s.queue_trace(QUEUED), Some(&slow_waits()));
    let catalog = s.catalog(default_catalog());
    let row = catalog.offers.iter().find(|o| o.id == QUEUED).unwrap();
    assert_eq!(row.queue_trace.as_ref(), Some(&slow_waits()));
}

#[test]
fn an_offer_of_the_users_own_takes_a_queue_trace_through_the_same_list() {
    let base = default_catalog();
    let mut s = scenario();
    let mut mine = base.offers.iter().find(|o| o.id == QUEUED).unwrap().clone();
    mine.id = "custom-1".to_owned();
    assert!(s.add_offers(base, vec![mine]).is_empty());
    s.attach_queue_trace("custom-1", waits());
    assert!(
        s.edits.added[0].queue_trace.is_none(),
        "the offer itself is untouched"
    );
    let text = serde_json::to_string(&s).unwrap();
    let back = parse_scenario_for(&text, base).expect("the offer is the user's");
    let plan = back.plan(base).unwrap();
    assert_eq!(
        option(&plan, "custom-1").queue_hours.source,
        QueueSource::Trace
    );
    assert_eq!(
        option(&plan, QUEUED).queue_hours.source,
        QueueSource::FromMean
    );
}

#[test]
fn queue_traces_travel_through_json_and_share_links() {
    let base = default_catalog();
    // Without any, the document has no such key (older readers see what they always saw).
    let plain = serde_json::to_string(&scenario()).unwrap();
    assert!(!plain.contains("queue_traces"));

    let mut s = scenario();
    s.attach_queue_trace(QUEUED, waits());
    // An offer hidden by the filter still holds its trace.
    s.filter.text = "vast".to_owned();
    let text = serde_json::to_string_pretty(&s).unwrap();
    assert!(text.contains("\"queue_traces\""));
    let back = parse_scenario_for(&text, base).expect("reads back");
    assert_eq!(back, s);
    assert_eq!(
        decode_share_for(&encode_share(&s), base).expect("the link reads back"),
        s
    );
    // The plan of the copy read back is the plan of the original.
    s.filter.text.clear();
    let copy = parse_scenario(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(copy.plan(base).unwrap(), s.plan(base).unwrap());
}

/// `s` as text, with its first queue trace's `waits_hours` cut to three values.
fn with_three_waits(s: &Scenario) -> String {
    let mut v = serde_json::to_value(s).unwrap();
    v["queue_traces"][0]["trace"]["waits_hours"] = serde_json::json!([0.0, 0.1, 0.5]);
    v.to_string()
}

#[test]
fn a_damaged_trace_an_unknown_offer_and_too_many_traces_are_refused_by_name() {
    let base = default_catalog();

    // An offer the catalog lacks: named, in the base-aware readers; the plain reader has no
    // catalog to ask, and the catalog built from it leaves the entry unused.
    let mut s = scenario();
    s.attach_queue_trace("no-such-offer", waits());
    let text = serde_json::to_string(&s).unwrap();
    let err = parse_scenario_for(&text, base).unwrap_err();
    assert_eq!(
        err,
        ScenarioError::QueueTraceOffer {
            offer: "no-such-offer".to_owned()
        }
    );
    assert!(err.to_string().contains("no-such-offer"), "{err}");
    assert_eq!(decode_share_for(&encode_share(&s), base), Err(err.clone()));
    assert!(parse_scenario(&text).is_ok());
    assert!(
        s.catalog(base)
            .offers
            .iter()
            .all(|o| o.queue_trace.is_none())
    );

    // A catalog row the user removed is no longer an offer of the scenario's catalog.
    let mut removed = scenario();
    removed.edits.removed.push(QUEUED.to_owned());
    removed.attach_queue_trace(QUEUED, waits());
    assert_eq!(
        parse_scenario_for(&serde_json::to_string(&removed).unwrap(), base),
        Err(ScenarioError::QueueTraceOffer {
            offer: QUEUED.to_owned()
        })
    );

    // Three waits instead of 64: refused by every reader, the offer and the field named.
    let mut s = scenario();
    s.attach_queue_trace(QUEUED, waits());
    let damaged = with_three_waits(&s);
    let err = parse_scenario(&damaged).unwrap_err();
    match &err {
        ScenarioError::QueueTrace { offer, error } => {
            assert_eq!(offer, QUEUED);
            assert_eq!(error.field, "queue_trace.waits_hours");
        }
        other => panic!("refused for another reason: {other:?}"),
    }
    let said = err.to_string();
    assert!(
        said.contains(QUEUED) && said.contains("waits_hours"),
        "{said}"
    );
    assert_eq!(parse_scenario_for(&damaged, base), Err(err.clone()));
    let link = base64_of(&damaged);
    assert_eq!(decode_share(&link), Err(err));

    // No starts at all: refused too.
    let mut v = serde_json::to_value(&s).unwrap();
    v["queue_traces"][0]["trace"]["starts"] = serde_json::json!(0);
    assert!(matches!(
        parse_scenario(&v.to_string()),
        Err(ScenarioError::QueueTrace { error, .. }) if error.field == "queue_trace.starts"
    ));

    // More entries than the limit: refused before any is looked at.
    let mut many = scenario();
    many.queue_traces = (0..=MAX_QUEUE_TRACES)
        .map(|_| AttachedQueueTrace {
            offer_id: QUEUED.to_owned(),
            trace: waits(),
        })
        .collect();
    assert_eq!(
        parse_scenario(&serde_json::to_string(&many).unwrap()),
        Err(ScenarioError::TooManyQueueTraces {
            found: MAX_QUEUE_TRACES + 1,
            max: MAX_QUEUE_TRACES
        })
    );
    many.queue_traces.truncate(MAX_QUEUE_TRACES);
    assert!(parse_scenario_for(&serde_json::to_string(&many).unwrap(), base).is_ok());
}

/// A share link's payload for `text`: URL-safe base64 without padding.
fn base64_of(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}
