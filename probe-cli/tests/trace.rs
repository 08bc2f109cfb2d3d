//! `gpufare trace` and `gpufare plan --trace`, run as a user would: the shipped public traces,
//! a catalog that names its trace, and bad traces refused with the file named and nothing
//! written.

use std::fs;
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

fn east() -> String {
    root()
        .join("tests/fixtures/traces/aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn trace_shows_what_a_shipped_trace_holds_and_backtests_a_job() {
    let out = gpufare(&["trace", &east()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("19961 ticks of 32 s, 177.4 h"), "{s}");
    assert!(
        s.contains("preemptions     41 (0.231 per wall-clock hour, 0.735 per running hour)"),
        "{s}"
    );
    assert!(s.contains("gaps            42, median 0.51 h"), "{s}");

    let out = gpufare(&[
        "trace",
        "--json",
        "--job-hours",
        "10",
        "--checkpoint-hours",
        "1",
        "--restart-hours",
        "0.1",
        "--trials",
        "300",
        &east(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let b = &v[0];
    assert_eq!(b["replay"]["samples"], 19961);
    assert_eq!(b["model"]["samples"], 300);
    assert_eq!(b["trace"]["preemptions"], 41);
    for who in ["replay", "model"] {
        let p50 = b[who]["p50"].as_f64().unwrap();
        let p90 = b[who]["p90"].as_f64().unwrap();
        // At least the bare 10 h of work; more at the tail.
        assert!(p50 >= 10.0 && p90 >= p50, "{who}: {b}");
    }
}

#[test]
fn plan_lists_replay_model_and_policies_for_the_traced_offer() {
    let arg = format!("aws-use1-g5xl-spot={}", east());
    let task = root().join("examples/sd_lora.json");
    let out = gpufare(&[
        "plan",
        "--task",
        task.to_str().unwrap(),
        "--trace",
        &arg,
        "--trials",
        "200",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let row = v["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["offer_id"] == "aws-use1-g5xl-spot")
        .unwrap();
    let risk = &row["risk"];
    assert_eq!(risk["rate_source"], "trace");
    assert_eq!(risk["trace"]["preemptions"], 41);
    assert_eq!(risk["fallback_offer"], "aws-use1-g5xl-payg");
    let ids: Vec<&str> = risk["policies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "spot_only",
            "on_demand_only",
            "fallback_after_1",
            "fallback_after_2",
            "fallback_after_4"
        ]
    );
    for p in risk["policies"].as_array().unwrap() {
        assert!(p["model"]["hours_p50"].is_number(), "{p}");
        if p["id"] != "on_demand_only" {
            assert!(p["replay"]["hours_p90"].is_number(), "{p}");
        }
    }
    assert_eq!(row["policy"], risk["chosen"]["kind"]);

    // The table says the same in words.
    let out = gpufare(&[
        "plan",
        "--task",
        task.to_str().unwrap(),
        "--trace",
        &arg,
        "--trials",
        "200",
    ]);
    let s = text(&out.stdout);
    assert!(
        s.contains("policies on aws-use1-g5xl-spot (replay of the trace vs the fitted model)"),
        "{s}"
    );
    assert!(s.contains("fallback_after_1"), "{s}");
}

#[test]
fn a_catalog_names_its_trace_next_to_itself() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(east(), dir.path().join("zone.json")).unwrap();
    let catalog = "id,provider,gpu,gpu_count,tenancy,vram_gib,billing_mode,price,currency,granularity,as_of,source,trace\n\
                   spot,AWS,A10G,1,dedicated,24,spot,0.45,USD,second,2026-03,quote,zone.json\n\
                   card,AWS,A10G,1,dedicated,24,pay_as_you_go,1.006,USD,second,2026-03,quote,\n";
    let path = dir.path().join("mine.csv");
    fs::write(&path, catalog).unwrap();
    let task = root().join("examples/sd_lora.json");
    let out = gpufare(&[
        "plan",
        "--task",
        task.to_str().unwrap(),
        "--catalog",
        path.to_str().unwrap(),
        "--trials",
        "100",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let spot = v["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["offer_id"] == "spot")
        .unwrap();
    assert_eq!(spot["risk"]["trace"]["name"], "zone.json");
    assert_eq!(spot["risk"]["fallback_offer"], "card");
}

#[test]
fn bad_traces_exit_2_name_the_file_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let task = root().join("examples/sd_lora.json");
    let cases: [(&str, &[u8], &str); 8] = [
        (
            "empty.json",
            br#"{"metadata": {"gap_seconds": 30}, "data": []}"#,
            "no samples",
        ),
        (
            "zeros.json",
            br#"{"metadata": {"gap_seconds": 30}, "data": [0, 0, 0]}"#,
            "no instance ever runs",
        ),
        (
            "negative.json",
            br#"{"metadata": {"gap_seconds": 30}, "data": [1, -2]}"#,
            "data[1]: -2 is not a count",
        ),
        (
            "fraction.csv",
            b"0,1\n30,0.5\n60,1\n",
            "line 2: 0.5 is not a count",
        ),
        (
            "zero-tick.json",
            br#"{"metadata": {"gap_seconds": 0}, "data": [1]}"#,
            "gap_seconds must be above 0",
        ),
        (
            "types.json",
            br#"{"metadata": {"gap_seconds": "30"}, "data": [1]}"#,
            "not a trace",
        ),
        (
            "control.csv",
            b"\x00\x01\x02",
            "line 1: expected two columns",
        ),
        ("binary.json", b"\xff\xfe\x00", "valid UTF-8"),
    ];
    for (name, content, says) in cases {
        let path = dir.path().join(name);
        fs::write(&path, content).unwrap();
        let output = dir.path().join("out.json");
        let arg = format!("aws-use1-g5xl-spot={}", path.display());
        let out = gpufare(&[
            "plan",
            "--task",
            task.to_str().unwrap(),
            "--trace",
            &arg,
            "-o",
            output.to_str().unwrap(),
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(name) && err.contains(says), "{name}: {err}");
        assert!(!output.exists(), "{name}: an output was written");
        let out = gpufare(&["trace", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{name}");
    }
    // 100 MB: refused from its size, unread (a sparse file costs no disk).
    let big = dir.path().join("big.json");
    fs::File::create(&big)
        .unwrap()
        .set_len(100 * 1024 * 1024)
        .unwrap();
    let out = gpufare(&["trace", big.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("big.json") && err.contains("104857600 bytes"),
        "{err}"
    );
    // An offer the catalog lacks, and a malformed argument.
    for arg in [
        format!("no-such-offer={}", east()),
        "just-a-file".to_owned(),
    ] {
        let out = gpufare(&["plan", "--task", task.to_str().unwrap(), "--trace", &arg]);
        assert_eq!(out.status.code(), Some(2), "{arg}: {}", text(&out.stderr));
    }
}
