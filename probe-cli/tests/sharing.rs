//! The shared side from the command line (issue 32): every option of `gpufare plan --format
//! json` gives its queue (P50, P90, P99, mean, source), the slowdown used and the latency factor;
//! `--neighbour-load` and `--queue-trace OFFER=FILE` change the figures they should, and bad
//! files and values are refused by name.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::text;

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn plan_args(extra: &[&str]) -> Output {
    let task = root().join("examples/qlora_7b.json");
    let mut args = vec![
        "plan",
        "--task",
        task.to_str().unwrap(),
        "--format",
        "json",
        "--trials",
        "200",
        "--today",
        "2026-12-06",
    ];
    args.extend_from_slice(extra);
    gpufare(&args)
}

fn plan(extra: &[&str]) -> serde_json::Value {
    let out = plan_args(extra);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_str(&text(&out.stdout)).unwrap()
}

fn row<'a>(v: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    v["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["offer_id"] == id)
        .unwrap_or_else(|| panic!("{id} is priced"))
}

const TIME_SLICED: &str = "suanjia-4090-ts2-payg";

#[test]
fn every_option_gives_its_queue_slowdown_and_latency_factor() {
    let v = plan(&[]);
    for r in v["options"].as_array().unwrap() {
        let q = &r["queue_hours"];
        for k in ["p50", "p90", "p99", "mean"] {
            assert!(
                q[k].as_f64().is_some_and(|x| x >= 0.0),
                "{}: {k}",
                r["offer_id"]
            );
        }
        assert!(q["p50"].as_f64() <= q["p90"].as_f64() && q["p90"].as_f64() <= q["p99"].as_f64());
        assert!(q["source"].is_string());
        for k in ["median", "p99", "source"] {
            assert!(
                !r["slowdown"][k].is_null(),
                "{}: slowdown.{k}",
                r["offer_id"]
            );
        }
        assert!(r["latency_p99_factor"]["p99"].as_f64().is_some());
    }
    // A row's mean wait is spread like the public pools: at once or a long while.
    let q = &row(&v, TIME_SLICED)["queue_hours"];
    assert_eq!(q["source"], "from_mean");
    assert!(q["p50"].as_f64().unwrap() < 0.1 * q["mean"].as_f64().unwrap());
    assert!(q["p99"].as_f64().unwrap() > 5.0 * q["mean"].as_f64().unwrap());
    // Time slicing, with nothing known of the neighbours: always busy.
    let r = row(&v, TIME_SLICED);
    assert_eq!(r["neighbour_load"]["source"], "default");
    assert_eq!(r["neighbour_load"]["load"], 1.0);
    // A MIG row names its profile.
    assert_eq!(
        row(&v, "aws-use1-h100-mig-1g10gb-payg")["mig_profile"],
        "1g.10gb"
    );
}

#[test]
fn lighter_neighbours_make_a_time_sliced_card_faster_and_cheaper() {
    let busy = plan(&[]);
    let light = plan(&["--neighbour-load", "0.2"]);
    let (b, l) = (row(&busy, TIME_SLICED), row(&light, TIME_SLICED));
    assert_eq!(l["neighbour_load"]["source"], "task");
    let median = |r: &serde_json::Value| r["slowdown"]["median"].as_f64().unwrap();
    // Half a card next to a light neighbour: more than its half, so below 1 against it.
    assert!(
        median(l) < 1.0 && median(b) > 1.0,
        "{} {}",
        median(l),
        median(b)
    );
    assert!(l["hours_expected"].as_f64() < b["hours_expected"].as_f64());
    assert!(l["total_expected"].as_f64() < b["total_expected"].as_f64());
    // A whole card does not care.
    assert_eq!(
        row(&light, "autodl-4090-payg")["slowdown"],
        row(&busy, "autodl-4090-payg")["slowdown"]
    );
    let out = plan_args(&["--neighbour-load", "1.5"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("neighbour_load"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_queue_trace_replaces_the_assumed_queue_and_bad_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let waits = dir.path().join("waits.csv");
    let mut body = String::from("wait_s\n");
    body.push_str(&"0\n".repeat(60));
    body.push_str(&"7200\n".repeat(40));
    std::fs::write(&waits, body).unwrap();
    let arg = format!("{TIME_SLICED}={}", waits.display());
    let out = plan_args(&["--queue-trace", &arg]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("100 starts"),
        "{}",
        text(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let q = &row(&v, TIME_SLICED)["queue_hours"];
    assert_eq!(q["source"], "trace");
    assert_eq!(
        (q["p50"].as_f64(), q["p90"].as_f64()),
        (Some(0.0), Some(2.0))
    );
    // Within one knot (1/64) of the file's mean wait, 0.8 h.
    assert!((q["mean"].as_f64().unwrap() - 0.8).abs() <= 2.0 / 64.0);

    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "wait_s\n5\n-3\n").unwrap();
    let out = plan_args(&["--queue-trace", &format!("{TIME_SLICED}={}", bad.display())]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("bad.csv") && err.contains("line 3"), "{err}");
    let out = plan_args(&[
        "--queue-trace",
        &format!("no-such-offer={}", waits.display()),
    ]);
    assert!(text(&out.stderr).contains("no offer \"no-such-offer\""));
    let out = plan_args(&[
        "--queue-trace",
        &format!("{TIME_SLICED}={}", dir.path().display()),
    ]);
    assert!(text(&out.stderr).contains("not a regular file"));
    let out = plan_args(&["--queue-trace", "just-a-name"]);
    assert!(text(&out.stderr).contains("OFFER=FILE"));
}

/// The README's worked example: the same task and two offers, the recommendation turns from the
/// whole card to the time-sliced half card once the neighbour is known to be light.
#[test]
fn the_readmes_worked_example_turns_with_the_neighbours_load() {
    let task = root().join("examples/sharing/task.json");
    let catalog = root().join("examples/sharing/catalog.csv");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "plan",
            "--task",
            task.to_str().unwrap(),
            "--catalog",
            catalog.to_str().unwrap(),
            "--format",
            "json",
            "--today",
            "2026-12-06",
        ];
        args.extend_from_slice(extra);
        let out = gpufare(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
        v
    };
    let busy = run(&[]);
    let light = run(&["--neighbour-load", "0.3"]);
    assert_eq!(busy["decision"]["recommended_offer"], "suanjia-4090-payg");
    assert_eq!(light["decision"]["recommended_offer"], TIME_SLICED);
    let total = |v: &serde_json::Value, id: &str| row(v, id)["total_expected"].as_f64().unwrap();
    assert!(total(&busy, TIME_SLICED) > total(&busy, "suanjia-4090-payg"));
    assert!(total(&light, TIME_SLICED) < total(&light, "suanjia-4090-payg"));
    // The figures the README's table gives.
    assert_eq!(total(&busy, TIME_SLICED), 32.31);
    assert_eq!(total(&light, TIME_SLICED), 22.06);
    assert_eq!(total(&light, "suanjia-4090-payg"), 23.53);
}

/// A scenario saved by the site with a queue trace: priced with the measured waits when the
/// trace names an offer of the catalog, refused with the offer and the file named when not.
#[test]
fn a_scenario_carries_its_queue_traces_and_is_checked_against_the_catalog() {
    use gpufare_core::offers::queue_trace::parse_queue_trace;
    use gpufare_core::scenario::document::{AttachedQueueTrace, Scenario};
    use gpufare_core::task::presets::preset;

    let dir = tempfile::tempdir().unwrap();
    let trace = parse_queue_trace("waits.csv", "wait_s\n0\n0\n1800\n1800\n").unwrap();
    let save = |offer: &str, name: &str| {
        let mut s = Scenario::new(preset("qlora_7b").unwrap(), Some("qlora_7b"));
        s.settings.trials = 200;
        s.queue_traces.push(AttachedQueueTrace {
            offer_id: offer.to_owned(),
            trace: trace.clone(),
        });
        let path = dir.path().join(name);
        std::fs::write(&path, serde_json::to_string(&s).unwrap()).unwrap();
        path
    };
    let run = |path: &Path| {
        gpufare(&[
            "plan",
            "--scenario",
            path.to_str().unwrap(),
            "--format",
            "json",
            "--today",
            "2026-12-06",
        ])
    };

    let good = save("autodl-4090-payg", "good.json");
    let out = run(&good);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let q = &row(&v, "autodl-4090-payg")["queue_hours"];
    assert_eq!(q["source"], "trace", "{q}");
    // Half the starts wait half an hour: the P90 is that half hour.
    assert!((q["p90"].as_f64().unwrap() - 0.5).abs() < 0.02, "{q}");

    let bad = save("no-such-offer", "bad.json");
    let out = run(&bad);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("no-such-offer"),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "nothing printed for a refused scenario"
    );
}
