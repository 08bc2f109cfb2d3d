//! Importing SkyPilot `vms.csv` fixtures (rows copied from the published catalogs,
//! skypilot-org/skypilot-catalog `catalogs/v8/*/vms.csv`; docs/sources.md §7) with every quirk and
//! skip reason checked.

use gpufare_core::offers::billing::BillingMode;
use gpufare_core::offers::skypilot::{SkipReason, import_vms_csv};
use gpufare_core::offers::tenancy::Tenancy;
use gpufare_core::offers::validate::validate_offer;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn aws_rows_merge_zones_split_spot_and_report_skips() {
    let (catalog, report) = import_vms_csv(
        include_str!("../../tests/fixtures/skypilot/aws-vms.csv"),
        "AWS",
        // A price date is a day or a month; the fixture's rows are of a snapshot from early 2026.
        "2026-01",
    )
    .unwrap();
    assert_eq!(report.rows, 7);
    for o in &catalog.offers {
        validate_offer(o).unwrap_or_else(|e| panic!("{}: {e:?}", o.id));
    }
    let ids: Vec<&str> = catalog.offers.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "aws-g5-xlarge-us-east-1",
            "aws-g5-xlarge-us-east-1-spot",
            "aws-g6f-large-us-east-1",
            "aws-p5-48xlarge-us-east-1"
        ]
    );
    assert_eq!(report.merged_zone_rows, 1);
    let spot = &catalog.offers[1];
    assert_eq!(
        (spot.billing_mode, spot.price.to_string().as_str()),
        (BillingMode::Spot, "0.4201"),
        "the cheapest zone wins"
    );
    let g5 = &catalog.offers[0];
    assert_eq!((g5.gpu.as_str(), g5.vram_gib), ("A10G", 22.35));
    let fractional = &catalog.offers[2];
    assert_eq!(
        (
            fractional.tenancy,
            fractional.gpu_fraction,
            fractional.gpu_count
        ),
        (Tenancy::Vgpu, 0.125, 1)
    );
    let p5 = &catalog.offers[3];
    assert_eq!((p5.gpu.as_str(), p5.gpu_count), ("H100-SXM", 8));
    let reasons: Vec<(&str, String)> = report
        .skipped
        .iter()
        .map(|s| (s.instance.as_str(), s.reason.to_string()))
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(
        reasons
            .iter()
            .any(|(i, r)| *i == "m5.large" && r.starts_with("no accelerator"))
    );
    assert!(
        reasons
            .iter()
            .any(|(i, r)| *i == "trn1.2xlarge" && r.contains("not in the spec table"))
    );
    assert!(
        reasons
            .iter()
            .any(|(i, r)| *i == "g4dn.xlarge" && r.starts_with("no usable on-demand price"))
    );
    assert!(
        report
            .spot_ignored
            .iter()
            .any(|s| s.instance == "p5.48xlarge" && s.reason == SkipReason::SpotNoDiscount)
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn runpod_gb_in_mib_vast_gpuinfo_spelling_and_gcp_host_rows() {
    let (runpod, report) = import_vms_csv(
        include_str!("../../tests/fixtures/skypilot/runpod-vms.csv"),
        "RunPod",
        "2025",
    )
    .unwrap();
    assert_eq!(
        runpod.offers[0].vram_gib, 80.0,
        "RunPod's SizeInMiB holds GB"
    );
    assert!(
        report
            .spot_ignored
            .iter()
            .any(|s| s.reason == SkipReason::SpotNoDiscount),
        "spot = on-demand is not a spot offer"
    );
    assert!(
        runpod
            .offers
            .iter()
            .any(|o| o.billing_mode == BillingMode::Spot && o.gpu == "RTX4090")
    );

    let (vast, report) = import_vms_csv(
        include_str!("../../tests/fixtures/skypilot/vast-vms.csv"),
        "Vast",
        "2025",
    )
    .unwrap();
    assert_eq!(vast.offers.len(), 2);
    assert!(vast.offers.iter().all(
        |o| o.tenancy == Tenancy::MarketplaceHost && o.billing_mode == BillingMode::PayAsYouGo
    ));
    assert_eq!(
        vast.offers
            .iter()
            .find(|o| o.gpu == "H100-SXM")
            .unwrap()
            .region
            .id,
        "Texas, US, NA"
    );
    let ignored: Vec<String> = report
        .spot_ignored
        .iter()
        .map(|s| s.reason.to_string())
        .collect();
    assert!(
        ignored.iter().any(|r| r == "spot price 0: not offered"),
        "{ignored:?}"
    );
    assert!(ignored.iter().any(|r| r.contains("is not a number")));

    // A file of host-only rows gives no offer: refused, not an empty catalog.
    assert_eq!(
        import_vms_csv(
            include_str!("../../tests/fixtures/skypilot/gcp-vms.csv"),
            "GCP",
            "2025",
        ),
        Err(gpufare_core::offers::catalog::CatalogError::Empty { skipped: 1 })
    );
    assert!(import_vms_csv("a,b\n1,2\n", "X", "2025").is_err());
}
