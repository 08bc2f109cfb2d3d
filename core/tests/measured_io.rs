//! Measured disk and network rates in the model: a profile's IO tests reach the offers it
//! describes, and a task that reads or downloads data runs longer where IO is slow.

use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::offer::IoRates;
use gpufare_core::plan::option::OptionResult;
use gpufare_core::plan::plan;
use gpufare_core::plan::reason::RuleId;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::profile::document::parse_profile;
use gpufare_core::profile::evidence::{apply, measured_factors};
use gpufare_core::task::document::TaskProfile;
use gpufare_core::task::presets::preset;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// One dedicated pay-as-you-go A100 offer twice: without and with measured IO rates.
fn catalog(io: IoRates) -> Catalog {
    let base = default_catalog()
        .offers
        .iter()
        .find(|o| o.gpu == "A100-80GB" && !o.tenancy.is_shared() && o.billing_mode.is_metered())
        .expect("an A100 offer")
        .clone();
    let mut measured = base.clone();
    measured.id = format!("{}-measured", base.id);
    measured.io = Some(io);
    Catalog {
        format_version: 1,
        offers: vec![base, measured],
    }
}

/// Closed forms only (one trial), so hours compare exactly.
fn options(task: &TaskProfile, catalog: &Catalog) -> (OptionResult, OptionResult) {
    let settings = PlanSettings {
        trials: 1,
        ..PlanSettings::default()
    };
    let result = plan(task, catalog, &settings).expect("plans");
    let find = |id: &str| {
        result
            .options
            .iter()
            .find(|o| o.offer_id == id)
            .cloned()
            .expect("option")
    };
    (find(&catalog.offers[0].id), find(&catalog.offers[1].id))
}

fn task() -> TaskProfile {
    let mut t = preset("qlora_7b").expect("preset");
    t.runs = 1;
    t.checkpoint = None;
    t.deadline_hours = None;
    t
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn a_slow_disk_sets_the_pace_when_reading_takes_longer_than_the_gpu_work() {
    let io = IoRates {
        disk_read_mb_s: Some(100.0),
        download_mbit_s: None,
    };
    let catalog = catalog(io);
    let mut t = task();
    let (plain, _) = options(&t, &catalog);
    let compute = plain.running_hours_expected / plain.slowdown.mean();
    // Data that takes twice the GPU work to read at 100 MB/s.
    let read_gb = 2.0 * compute * 3600.0 * 100.0 / 1000.0;
    t.data_read_gb = Some(read_gb);
    let (plain, measured) = options(&t, &catalog);
    assert_eq!(
        plain.io_hours_per_run, None,
        "no measured rate: IO assumed free"
    );
    let io_hours = measured.io_hours_per_run.expect("measured IO");
    assert!(
        (io_hours - compute).abs() < 1e-3 * compute.max(1.0),
        "reading takes 2x the work, so IO adds 1x: {io_hours} vs {compute}"
    );
    assert!(
        (measured.running_hours_expected - 2.0 * plain.running_hours_expected).abs()
            < 1e-3 * plain.running_hours_expected.max(1.0),
        "the run doubles: {} vs {}",
        measured.running_hours_expected,
        plain.running_hours_expected
    );
    assert!(measured.costs.total_expected.amount > plain.costs.total_expected.amount);
    assert!(measured.flags.iter().any(|r| r.rule == RuleId::DiskBound));

    // Reads that finish before the GPU work are hidden behind it.
    t.data_read_gb = Some(read_gb / 4.0);
    let (plain, measured) = options(&t, &catalog);
    assert_eq!(measured.io_hours_per_run, Some(0.0));
    assert_eq!(
        measured.running_hours_expected,
        plain.running_hours_expected
    );
    assert!(!measured.flags.iter().any(|r| r.rule == RuleId::DiskBound));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn a_download_before_each_run_adds_its_time() {
    let io = IoRates {
        disk_read_mb_s: None,
        download_mbit_s: Some(800.0),
    };
    let catalog = catalog(io);
    let mut t = task();
    t.data_download_gb = Some(90.0);
    let (plain, measured) = options(&t, &catalog);
    // 90 GB at 800 Mbit/s: 900 s = 0.25 h.
    assert_eq!(measured.io_hours_per_run, Some(0.25));
    let added =
        (measured.running_hours_expected - plain.running_hours_expected) / measured.slowdown.mean();
    assert!((added - 0.25).abs() < 1e-3, "added {added} h");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn a_profile_with_disk_and_network_tests_gives_its_offers_io_rates() {
    let mut value: serde_json::Value = serde_json::from_str(include_str!(
        "../../tests/profiles/capped-a100-pcie-gen3.json"
    ))
    .expect("json");
    value["disk"] = serde_json::json!({
        "dir": "/data", "file_size_bytes": 1073741824u64, "direct_io": true, "engine": "linux-aio",
        "seq_read": {"block_bytes": 1048576, "queue_depth": 32, "seconds": 5.0, "bytes": 1, "mb_per_s": 1850.5, "iops": 1765.0}
    });
    value["network"] = serde_json::json!({
        "iperf3": [{"server": "10.0.0.2:5201", "direction": "download", "streams": 4, "seconds": 5.0, "mbit_per_s": 9400.0}],
        "http": [{"url": "http://mirror/x", "connections": 4, "bytes": 1, "seconds": 10.0, "warmup_s": 1.0, "mbit_per_s": 2400.0}]
    });
    let profile = parse_profile(&value.to_string()).expect("profile");
    let factors = measured_factors(&profile);
    assert_eq!(
        factors[0].io,
        Some(IoRates {
            disk_read_mb_s: Some(1850.5),
            download_mbit_s: Some(9400.0),
        })
    );
    let mut catalog = default_catalog().clone();
    apply(&mut catalog, &factors);
    let a100 = |shared: bool| {
        catalog
            .offers
            .iter()
            .filter(move |o| o.gpu == "A100-80GB" && o.tenancy.is_shared() == shared)
    };
    assert!(a100(false).all(|o| o.io == factors[0].io));
    assert!(
        a100(true).all(|o| o.io.is_none()),
        "a whole card says nothing about slices"
    );
}
