//! Where the user is and what they can buy, run as a user would: `gpufare places`, a task with a
//! location and markets, `--location`/`--markets`, and round trips measured by `gpufare probe`
//! against a real loopback listener fed back with `--rtt-from`.

use std::net::TcpListener;
use std::process::{Command, Output};

mod common;
use common::{root, text};

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

/// `gpufare plan --format json` of the inference example with extra arguments.
fn plan(extra: &[&str]) -> serde_json::Value {
    let task = root().join("examples/inference_api.json");
    let mut args = vec![
        "plan",
        "--task",
        task.to_str().unwrap(),
        "--format",
        "json",
        "--trials",
        "100",
        "--today",
        "2026-12-06",
    ];
    args.extend_from_slice(extra);
    let out = gpufare(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_str(&text(&out.stdout)).unwrap()
}

fn rows(v: &serde_json::Value) -> &Vec<serde_json::Value> {
    v["options"].as_array().unwrap()
}

fn row<'a>(v: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    rows(v).iter().find(|r| r["offer_id"] == id).unwrap()
}

#[test]
fn places_lists_every_place_with_its_jurisdiction() {
    let out = gpufare(&["places", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shanghai = v
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "shanghai")
        .unwrap();
    assert_eq!(shanghai["jurisdiction"], "cn");
    assert_eq!(shanghai["market"], "mainland_china");
    assert_eq!(shanghai["name_zh"], "上海");
    let table = text(&gpufare(&["places"]).stdout);
    assert!(
        table.contains("frankfurt") && table.contains("法兰克福"),
        "{table}"
    );
}

#[test]
fn mainland_only_from_shanghai_ranks_no_overseas_offer() {
    let v = plan(&["--location", "shanghai", "--markets", "mainland-china"]);
    let feasible: Vec<_> = rows(&v).iter().filter(|r| r["feasible"] == true).collect();
    assert!(!feasible.is_empty());
    assert!(
        feasible.iter().all(|r| r["region_class"] != "overseas"),
        "an overseas offer ranks"
    );
    let aws = row(&v, "aws-use1-g5xl-payg");
    assert_eq!(aws["feasible"], false);
    assert!(
        aws["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == "outside_markets"
                && r["text"]
                    == "sold outside mainland China; the task buys only in mainland China"),
        "{aws}"
    );
    // Shanghai-relative round trips: the Shanghai region is near, Beijing farther.
    let sh = row(&v, "aliyun-sh-a10-payg");
    let bj = rows(&v)
        .iter()
        .find(|r| r["offer_id"].as_str().unwrap().starts_with("aliyun-bj"))
        .unwrap();
    assert_eq!(sh["rtt_basis"], "distance");
    assert!(sh["rtt_ms"].as_f64().unwrap() < bj["rtt_ms"].as_f64().unwrap());
}

#[test]
fn the_same_task_from_frankfurt_sees_other_round_trips() {
    let sh = plan(&["--location", "shanghai"]);
    let fra = plan(&["--location", "frankfurt"]);
    let ms = |v: &serde_json::Value, id: &str| row(v, id)["rtt_ms"].as_f64().unwrap();
    let (sh_cn, fra_cn) = (
        ms(&sh, "aliyun-sh-a10-payg"),
        ms(&fra, "aliyun-sh-a10-payg"),
    );
    assert!(fra_cn > sh_cn + 100.0, "{sh_cn} {fra_cn}");
    let (sh_us, fra_us) = (
        ms(&sh, "aws-use1-g5xl-payg"),
        ms(&fra, "aws-use1-g5xl-payg"),
    );
    assert!(fra_us < sh_us, "{sh_us} {fra_us}");
    // Frankfurt to Northern Virginia is a published pair (IBM Cloud, January 2026).
    assert_eq!(row(&fra, "aws-use1-g5xl-payg")["rtt_basis"], "published");
    assert_eq!(ms(&fra, "aws-use1-g5xl-payg"), 88.5);
}

#[test]
fn an_unknown_location_is_refused_by_name() {
    let task = root().join("examples/inference_api.json");
    let out = gpufare(&[
        "plan",
        "--task",
        task.to_str().unwrap(),
        "--location",
        "atlantis",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--location \"atlantis\" is not a known place"),
        "{}",
        text(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("task.json");
    let body =
        std::fs::read_to_string(&task)
            .unwrap()
            .replacen('{', "{\"location\": \"atlantis\",", 1);
    std::fs::write(&bad, body).unwrap();
    let out = gpufare(&["plan", "--task", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("task.json") && err.contains("location"),
        "{err}"
    );
}

#[test]
fn round_trips_measured_by_the_probe_replace_the_table() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let target = format!("cn-shanghai={}", listener.local_addr().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("desk.json");
    let out = gpufare(&[
        "probe",
        "--no-gpu",
        "--duration",
        "0",
        "--quiet",
        "--rtt",
        &target,
        "--rtt-tries",
        "3",
        "-o",
        profile.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    drop(listener);
    let v = plan(&[
        "--location",
        "frankfurt",
        "--rtt-from",
        profile.to_str().unwrap(),
    ]);
    let sh = row(&v, "aliyun-sh-a10-payg");
    assert_eq!(sh["rtt_basis"], "measured");
    assert!(sh["rtt_ms"].as_f64().unwrap() < 50.0, "{sh}");
    assert_eq!(row(&v, "aliyun-bj-a10-yearly")["rtt_basis"], "distance");
}
