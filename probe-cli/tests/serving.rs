//! A service priced from its traffic (issue 33): `gpufare plan --format json` gives, per feasible
//! offer, the ways to deploy with replicas per hour, cost per month, cost per million output
//! tokens and the share of requests within their targets; a steady low-traffic API and an
//! office-hours API get different answers, and the table prints them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

fn service(name: &str) -> serde_json::Value {
    let task = example(name);
    let out = gpufare(&[
        "plan",
        "--task",
        task.to_str().unwrap(),
        "--format",
        "json",
        "--trials",
        "100",
        "--today",
        "2026-12-06",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let feasible = v["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["feasible"] == true)
        .count();
    let s = v["service"].clone();
    assert_eq!(
        s["offers"].as_array().unwrap().len(),
        feasible,
        "one entry per feasible offer"
    );
    s
}

#[test]
fn every_feasible_offer_gets_its_deployments_priced() {
    let s = service("inference_api.json");
    let mut seen = std::collections::BTreeSet::new();
    for o in s["offers"].as_array().unwrap() {
        for d in o["deployments"].as_array().unwrap() {
            seen.insert(d["kind"].as_str().unwrap().to_owned());
            let hours = d["replicas_by_hour"].as_array().unwrap();
            assert_eq!(hours.len(), 24, "{d}");
            assert!(
                d["cost_per_month"]["amount"]
                    .as_str()
                    .unwrap()
                    .parse::<f64>()
                    .unwrap()
                    > 0.0
            );
            assert!(
                d["cost_per_million_output_tokens"]["amount"].is_string(),
                "{d}"
            );
            let a = d["attainment"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&a), "{d}");
        }
    }
    for kind in ["fixed_fleet", "autoscaling", "reserved_base", "shared_pool"] {
        assert!(seen.contains(kind), "{kind} is priced somewhere: {seen:?}");
    }
}

#[test]
fn a_steady_api_and_an_office_hours_api_get_different_answers() {
    let steady = service("inference_api.json");
    let office = service("inference_office_hours.json");
    let (a, b) = (&steady["choice"], &office["choice"]);
    assert_eq!(a["meets_target"], true);
    assert_eq!(b["meets_target"], true);
    // Steady and low: one replica around the clock is cheapest; a busy day with quiet nights
    // pays for a committed base and bursts on demand.
    assert_eq!(a["kind"], "fixed_fleet", "{a}");
    assert_ne!(a["kind"], b["kind"], "{a} vs {b}");
    // The reason's figures are the choice's own.
    let cost = b["cost_per_month"]["amount"].as_str().unwrap();
    let shown = cost.parse::<f64>().unwrap();
    assert!(b["reason"].as_str().unwrap().contains(&group(shown)), "{b}");
    // More traffic costs more a month, less per token.
    let month = |c: &serde_json::Value| {
        c["cost_per_month"]["amount"]
            .as_str()
            .unwrap()
            .parse::<f64>()
            .unwrap()
    };
    let per_m = |c: &serde_json::Value| {
        c["cost_per_million_output_tokens"]["amount"]
            .as_str()
            .unwrap()
            .parse::<f64>()
            .unwrap()
    };
    assert!(month(b) > month(a) && per_m(b) < per_m(a));
}

#[test]
fn the_table_prints_the_deployments() {
    let task = example("inference_office_hours.json");
    let out = gpufare(&[
        "plan",
        "--task",
        task.to_str().unwrap(),
        "--trials",
        "100",
        "--top",
        "2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("serving llama-3.1-8b (office_hours"),
        "{text}"
    );
    assert!(
        text.contains("per M output tokens") && text.contains("reserved_base"),
        "{text}"
    );
}

/// `2,523.70` for 2523.7.
fn group(x: f64) -> String {
    let s = format!("{x:.2}");
    let (int, frac) = s.split_once('.').unwrap();
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{out}.{frac}")
}
