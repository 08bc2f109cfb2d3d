//! `gpufare plan`, `catalog`, `schema` and `completions`, run as a user would.

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

#[test]
fn every_example_task_prices_out_of_the_box() {
    let mut n = 0;
    for entry in fs::read_dir(root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        // Folders hold worked examples with their own catalog (tested where the README uses them).
        if !path.is_file() {
            continue;
        }
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
    assert_eq!(
        n, 12,
        "one example per preset, the data-parallel fine-tune and the office-hours API"
    );
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
    // The recommendation's total and reasons, and each moved offer's price per GPU-hour, all
    // with their currency.
    assert!(
        out.contains("recommended total: ") && out.contains("reasons "),
        "{out}"
    );
    assert!(
        out.contains(", price ") && out.contains(" CNY/GPU-h -> "),
        "{out}"
    );
    // The same figures as JSON.
    let json = gpufare(&[
        "plan",
        "--task",
        t,
        "--rate",
        "6.5",
        "--format",
        "json",
        "--diff",
        old.to_str().unwrap(),
    ]);
    assert!(json.status.success(), "{}", text(&json.stderr));
    let d: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(d["currency"], "CNY");
    assert!(d["recommended_total_before"].is_f64(), "{d}");
    assert!(d["reasons_after"][0]["rule"].is_string(), "{d}");
    let moved = &d["changes"][0];
    assert_eq!(moved["change"], "changed");
    assert!(
        moved["price_before"].as_f64() > moved["price_after"].as_f64(),
        "{moved}"
    );
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

/// Two quotes of the same card: the cheaper one's official price is from 2026-06-01, the dearer
/// one an estimate of November 2026.
const DATED_QUOTES: &str = "id,provider,region,gpu,gpu_count,tenancy,vram_gib,billing_mode,price,currency,granularity,as_of,source,price_evidence,estimate,estimate_note
old,Me,cn,RTX4090,1,dedicated,24,pay_as_you_go,2.00,CNY,second,2026-06-01,https://example.com/price,official,false,
new,Me,cn,RTX4090,1,dedicated,24,pay_as_you_go,3.00,CNY,second,2026-11,guess,estimate,true,half the list price
";

#[test]
fn today_fixes_the_day_prices_ages_are_counted_to_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("quotes.csv");
    fs::write(&catalog, DATED_QUOTES).unwrap();
    let task = root().join("examples/sd_trial.json");
    let run = |today: &str, format: &str| {
        let out = gpufare(&[
            "plan",
            "--task",
            task.to_str().unwrap(),
            "--catalog",
            catalog.to_str().unwrap(),
            "--trials",
            "100",
            "--today",
            today,
            "--format",
            format,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };

    // 187 days after 2026-06-01: the recommended price is old, and the table says so.
    let table = run("2026-12-05", "table");
    assert!(
        table.starts_with("recommendation: dedicated old\n"),
        "{table}"
    );
    assert!(
        table.contains(
            "\nprice: 2026-06-01, 187 days old, official, over 180 days (https://example.com/price)\n"
        ),
        "{table}"
    );
    assert!(
        table.contains(
            "  - the price is 187 days old (2026-06-01, evidence: official; over 180 days): \
             check it before committing\n"
        ),
        "{table}"
    );
    assert!(
        table.contains("2026-11, 34 days old, estimate\n"),
        "{table}"
    );
    assert!(table.contains("(ages counted to 2026-12-05)"), "{table}");

    let json: serde_json::Value = serde_json::from_str(&run("2026-12-05", "json")).unwrap();
    assert_eq!(json["today"], "2026-12-05");
    assert_eq!(json["options"][0]["offer_id"], "old");
    assert_eq!(json["options"][0]["price_age_days"], 187);
    assert_eq!(json["options"][0]["price_evidence"], "official");
    assert_eq!(
        json["options"][0]["price_source"],
        "https://example.com/price"
    );
    assert_eq!(json["options"][1]["price_is_estimate"], true);
    let caveat = json["decision"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "price_caveat")
        .expect("the caveat in the JSON");
    assert_eq!(caveat["params"]["age_days"], "187");
    assert_eq!(caveat["params"]["as_of"], "2026-06-01");

    let csv = run("2026-12-05", "csv");
    assert!(
        csv.contains("# price ages in days counted to 2026-12-05\n"),
        "{csv}"
    );
    assert!(
        csv.contains(",2026-06-01,,false,official,187,https://example.com/price\n"),
        "{csv}"
    );
    assert!(csv.contains(",2026-11,,true,estimate,34,guess\n"), "{csv}");
    let md = run("2026-12-05", "md");
    assert!(
        md.contains("**Its price:** 2026-06-01, 187 days old, official, over 180 days"),
        "{md}"
    );

    // A day earlier the price is 180 days old: no caveat.
    let table = run("2026-11-28", "table");
    assert!(
        table.contains("2026-06-01, 180 days old, official\n"),
        "{table}"
    );
    assert!(!table.contains("check it before committing"), "{table}");

    // A malformed day is a usage error naming the flag; nothing is priced.
    for bad in ["2026-12-5", "2026-12", "tomorrow", "2026-02-30"] {
        let out = gpufare(&["plan", "--task", task.to_str().unwrap(), "--today", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            text(&out.stderr).contains("--today"),
            "{}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn without_today_the_ages_are_counted_to_this_machines_date() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("quotes.csv");
    fs::write(&catalog, DATED_QUOTES).unwrap();
    let before = jiff::Zoned::now().date();
    let out = gpufare(&[
        "plan",
        "--task",
        root().join("examples/sd_trial.json").to_str().unwrap(),
        "--catalog",
        catalog.to_str().unwrap(),
        "--trials",
        "100",
        "--format",
        "json",
    ]);
    let after = jiff::Zoned::now().date();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let today = json["today"].as_str().unwrap().to_owned();
    assert!(
        [before.to_string(), after.to_string()].contains(&today),
        "{today} is not {before}"
    );
    let day = gpufare_core::numbers::date::PriceDate::parse(&today).unwrap();
    let old = gpufare_core::numbers::date::PriceDate::parse("2026-06-01").unwrap();
    let row = json["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["offer_id"] == "old")
        .unwrap();
    assert_eq!(row["price_age_days"], old.age_days(day));
}
