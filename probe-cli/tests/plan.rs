//! `gpufare plan`, `catalog`, `schema` and `completions`, run as a user would.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gpufare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufare"))
        .args(args)
        .output()
        .expect("gpufare runs")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn every_example_task_prices_out_of_the_box() {
    let mut n = 0;
    for entry in fs::read_dir(root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        let out = gpufare(&[
            "plan",
            "--task",
            path.to_str().unwrap(),
            "--format",
            "json",
            "--trials",
            "100",
        ]);
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            text(&out.stderr)
        );
        let json = text(&out.stdout);
        assert!(
            json.starts_with("{\n  \"format_version\": 1,"),
            "{}",
            path.display()
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let first = &v["options"][0];
        for key in [
            "offer_id",
            "feasible",
            "hours_expected",
            "hours_p90",
            "rent",
            "storage",
            "egress",
            "time_cost",
            "risk_cost",
            "total_expected",
            "total_p90",
        ] {
            assert!(
                !first[key].is_null(),
                "{}: option lacks {key}",
                path.display()
            );
        }
        assert!(
            first["total_expected"].is_number(),
            "money is a plain number"
        );
        let infeasible = v["options"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["feasible"] == false);
        if let Some(o) = infeasible {
            assert!(
                !o["reasons"].as_array().unwrap().is_empty(),
                "an infeasible option says why"
            );
        }
        n += 1;
    }
    assert_eq!(n, 10, "one example per preset");
}

#[test]
fn the_table_csv_and_markdown_formats_carry_the_same_total() {
    let task = root().join("examples/qlora_7b.json");
    let t = task.to_str().unwrap();
    let json: serde_json::Value =
        serde_json::from_slice(&gpufare(&["plan", "--task", t, "--format", "json"]).stdout)
            .unwrap();
    let total = json["options"][0]["total_expected"].as_f64().unwrap();
    let cents = format!("{total:.2}");
    let csv = text(&gpufare(&["plan", "--task", t, "--format", "csv"]).stdout);
    assert!(
        csv.lines()
            .find(|l| l.starts_with("1,"))
            .unwrap()
            .contains(&format!(",{cents},")),
        "{csv}"
    );
    let table = text(&gpufare(&["plan", "--task", t]).stdout);
    assert!(
        table.starts_with("recommendation: ") && table.contains("prices as of"),
        "{table}"
    );
    let md = text(&gpufare(&["plan", "--task", t, "--format", "md"]).stdout);
    assert!(md.contains("## Ranked options") && md.contains("Prices as of"));
}

#[test]
fn bad_files_exit_2_name_the_problem_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("budget.json");
    let broken = dir.path().join("task.json");
    fs::write(
        &broken,
        "{\"format_version\": 1,\n \"kind\": \"training\",\n \"work_hours\": -3,",
    )
    .unwrap();
    let r = gpufare(&[
        "plan",
        "--task",
        broken.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(2));
    let msg = text(&r.stderr);
    assert!(msg.contains("task.json") && msg.contains("line 3"), "{msg}");
    let negative = dir.path().join("negative.json");
    fs::write(&negative, r#"{"format_version":1,"kind":"training","work_hours":-3,"reference_gpu":"A100-80GB","vram_gib":10,"currency":"CNY"}"#).unwrap();
    let r = gpufare(&[
        "plan",
        "--task",
        negative.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        text(&r.stderr).contains("negative.json: task field work_hours"),
        "{}",
        text(&r.stderr)
    );
    let catalog = dir.path().join("quotes.csv");
    fs::write(&catalog, "id,provider,region,gpu,gpu_count,tenancy,billing_mode,price,currency,granularity,as_of,source\nq1,Me,cn,A10,1,dedicated,pay_as_you_go,cheap,CNY,second,2026,me\n").unwrap();
    let example = root().join("examples/code_check.json");
    let r = gpufare(&[
        "plan",
        "--task",
        example.to_str().unwrap(),
        "--catalog",
        catalog.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        text(&r.stderr).contains("quotes.csv: line 2, field price"),
        "{}",
        text(&r.stderr)
    );
    assert!(!out.exists(), "nothing is written on bad input");
    assert_eq!(
        gpufare(&["plan", "--task", example.to_str().unwrap(), "--rate", "-1"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn diff_reports_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.json");
    let task = root().join("examples/sd_batch.json");
    let t = task.to_str().unwrap();
    assert!(
        gpufare(&[
            "plan",
            "--task",
            t,
            "--format",
            "json",
            "-o",
            old.to_str().unwrap()
        ])
        .status
        .success()
    );
    let same = gpufare(&["plan", "--task", t, "--diff", old.to_str().unwrap()]);
    assert!(
        text(&same.stdout).contains("no offer changed"),
        "{}",
        text(&same.stdout)
    );
    let changed = gpufare(&[
        "plan",
        "--task",
        t,
        "--rate",
        "6.5",
        "--diff",
        old.to_str().unwrap(),
    ]);
    let out = text(&changed.stdout);
    assert!(out.contains(" -> ") && out.contains("CNY)"), "{out}");
}

#[test]
fn catalogs_convert_validate_and_import_skypilot() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("aws.csv");
    let sky = root().join("tests/fixtures/skypilot/aws-vms.csv");
    let r = gpufare(&[
        "catalog",
        "convert",
        sky.to_str().unwrap(),
        "--to",
        "csv",
        "-o",
        ours.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    assert!(
        text(&r.stderr).contains("7 rows -> 4 offers"),
        "{}",
        text(&r.stderr)
    );
    let v = gpufare(&["catalog", "validate", ours.to_str().unwrap()]);
    assert!(
        text(&v.stdout).contains("ok, 4 offers"),
        "{}",
        text(&v.stdout)
    );
    let json = dir.path().join("aws.json");
    assert!(
        gpufare(&[
            "catalog",
            "convert",
            ours.to_str().unwrap(),
            "--to",
            "json",
            "-o",
            json.to_str().unwrap()
        ])
        .status
        .success()
    );
    assert!(
        fs::read_to_string(&json)
            .unwrap()
            .starts_with("{\n  \"format_version\": 1,")
    );
    let list = text(&gpufare(&["catalog", "list"]).stdout);
    assert!(list.trim_end().ends_with("offers") && list.lines().count() > 40);
}

#[test]
fn schemas_and_completions_print() {
    for name in ["task", "catalog", "profile", "plan", "budget", "scenario"] {
        let out = gpufare(&["schema", name]);
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["properties"]["format_version"].is_object(), "{name}");
    }
    assert_eq!(gpufare(&["schema", "nope"]).status.code(), Some(2));
    for shell in ["bash", "zsh", "fish"] {
        let out = gpufare(&["completions", shell]);
        assert!(
            out.status.success() && text(&out.stdout).contains("gpufare"),
            "{shell}"
        );
    }
    let help = text(&gpufare(&["plan", "--help"]).stdout);
    for flag in [
        "--task",
        "--scenario",
        "--catalog",
        "--profile",
        "--currency",
        "--rate",
        "--seed",
        "--trials",
        "--format",
        "--output",
        "--diff",
        "Examples:",
    ] {
        assert!(help.contains(flag), "plan --help lacks {flag}");
    }
}

#[test]
fn a_usd_task_is_reported_in_usd_without_being_told() {
    let dir = tempfile::tempdir().unwrap();
    let mut task: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(root().join("examples/sd_trial.json")).unwrap())
            .unwrap();
    task["currency"] = "USD".into();
    let path = dir.path().join("usd.json");
    fs::write(&path, task.to_string()).unwrap();
    let out = gpufare(&[
        "plan",
        "--task",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--trials",
        "100",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["currency"], "USD");
    // --currency still wins.
    let out = gpufare(&[
        "plan",
        "--task",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--trials",
        "100",
        "--currency",
        "CNY",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["currency"], "CNY");
}

#[test]
fn break_even_lines_never_promise_what_cannot_happen() {
    // A frozen catalog: the point is how break-even lines are worded, not today's prices.
    let frozen = root().join("tests/fixtures/catalogs/decision-cases.csv");
    let out = gpufare(&[
        "plan",
        "--task",
        root().join("examples/qlora_7b.json").to_str().unwrap(),
        "--catalog",
        frozen.to_str().unwrap(),
        "--trials",
        "200",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(
        table.contains("A yearly plan never beats monthly within a year"),
        "{table}"
    );
    assert!(
        !table.contains("months per year") || !table.contains("above 28"),
        "{table}"
    );
    assert!(
        table.contains("Dedicated does not beat shared up to 64 times"),
        "{table}"
    );
    assert!(!table.contains("from 0.0 h"), "{table}");
}
