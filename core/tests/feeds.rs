//! The price-feed importers on responses shaped like each feed's documented format
//! (`tests/fixtures/feeds/`, see its README): every offer valid and dated, every row accounted
//! for, and the traps of public price data applied.

use gpufare_core::offers::billing::BillingMode;
use gpufare_core::offers::catalog::{catalog_to_json, parse_catalog_json};
use gpufare_core::offers::feeds::{
    DatedBy, FeedContext, FeedImport, Flag, SkipWhy, alibaba, aws, azure, gpuhunt,
};
use gpufare_core::offers::offer::{PriceEvidence, RegionClass};
use gpufare_core::offers::skypilot::import_vms_csv_from;
use gpufare_core::offers::tenancy::Tenancy;
use gpufare_core::offers::validate::validate_offer;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const DAY: &str = "2026-12-05";

/// Every offer valid, dated `as_of`, sourced, of `evidence`, not an estimate; the catalog reads
/// back as our JSON form.
fn check(import: &FeedImport, as_of: &str, evidence: PriceEvidence) {
    assert!(!import.catalog.offers.is_empty());
    for o in &import.catalog.offers {
        validate_offer(o).unwrap_or_else(|e| panic!("{}: {e}", o.id));
        assert_eq!(o.as_of, as_of, "{}", o.id);
        assert!(o.source.starts_with("http"), "{}: {}", o.id, o.source);
        assert_eq!(o.price_evidence, Some(evidence), "{}", o.id);
        assert!(!o.estimate, "{}", o.id);
    }
    assert_eq!(import.report.offers, import.catalog.offers.len());
    let json = catalog_to_json(&import.catalog);
    assert_eq!(parse_catalog_json(&json).unwrap(), import.catalog);
}

fn reasons(import: &FeedImport) -> Vec<String> {
    import
        .report
        .skipped
        .iter()
        .map(|s| format!("{} x{}: {}", s.item, s.rows, s.reason))
        .collect()
}

fn flags(import: &FeedImport) -> Vec<String> {
    import
        .report
        .flagged
        .iter()
        .map(|f| format!("{}: {}", f.item, f.flag))
        .collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn azure_pages_give_every_billing_mode_and_report_the_rest() {
    let mut items = Vec::new();
    let mut links = Vec::new();
    for page in [
        include_str!("../../tests/fixtures/feeds/azure-eastus-page1.json"),
        include_str!("../../tests/fixtures/feeds/azure-eastus-page2.json"),
        include_str!("../../tests/fixtures/feeds/azure-eastus-page3.json"),
    ] {
        let p = azure::parse_page(page).unwrap();
        links.push(p.next_page_link.is_some());
        items.extend(p.items);
    }
    assert_eq!(links, [true, true, false]);
    let url = azure::page_url(azure::API_URL, "eastus").unwrap();
    let out = azure::import(&items, Some("USD"), &FeedContext::fetched(&url, DAY)).unwrap();
    check(&out, DAY, PriceEvidence::Official);
    assert_eq!(out.report.dated_by, DatedBy::FetchDay);
    let ids: Vec<&str> = out.catalog.offers.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "azure-standard-nc24ads-a100-v4-eastus",
            "azure-standard-nc24ads-a100-v4-eastus-1y",
            "azure-standard-nc24ads-a100-v4-eastus-3y",
            "azure-standard-nc24ads-a100-v4-eastus-spot",
            "azure-standard-nc4as-t4-v3-eastus",
            "azure-standard-nc4as-t4-v3-eastus-spot",
            "azure-standard-nd96isr-h100-v5-eastus",
            "azure-standard-nv36ads-a10-v5-eastus",
            "azure-standard-nv6ads-a10-v5-eastus",
        ]
    );
    let three = &out.catalog.offers[2];
    assert_eq!(
        (
            three.billing_mode,
            three.term_months,
            three.upfront.unwrap().to_string()
        ),
        (BillingMode::Reserved, Some(36), "41395".to_owned())
    );
    assert_eq!(out.catalog.offers[8].tenancy, Tenancy::Vgpu);
    let r = reasons(&out);
    for expected in [
        "low-priority",
        "no mapping",
        "\"1/Day\" is not an hour",
        "at or above on-demand 98.32",
        "\"H100 NVL\" is not in the spec table",
    ] {
        assert!(r.iter().any(|x| x.contains(expected)), "{expected}: {r:?}");
    }
    assert_eq!(out.report.ignored.get("Windows"), Some(&1));
    assert_eq!(out.report.ignored.get("dev/test price"), Some(&1));
    assert_eq!(out.report.rows, 16);
    assert_eq!(
        out.report.rows,
        out.report.offers + out.report.skipped_rows() + out.report.ignored.values().sum::<usize>(),
        "every row is an offer, a skip or an ignored row"
    );
    let f = flags(&out);
    assert!(
        f.iter()
            .any(|x| x.starts_with("azure-standard-nc4as-t4-v3-eastus-spot")
                && x.contains("below 20 %")),
        "{f:?}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn aws_offer_file_keeps_linux_shared_gpu_instances_of_the_region() {
    let url = aws::offer_file_url(aws::OFFER_FILE_URL, "us-east-1").unwrap();
    let out = aws::import_json(
        include_str!("../../tests/fixtures/feeds/aws-us-east-1-index.json"),
        &FeedContext::fetched(&url, DAY),
    )
    .unwrap();
    check(&out, "2025-11-20", PriceEvidence::Official);
    assert_eq!(out.report.dated_by, DatedBy::Feed);
    assert_eq!(out.report.version.as_deref(), Some("20251120211733"));
    let ids: Vec<&str> = out.catalog.offers.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "aws-g4dn-xlarge-us-east-1",
            "aws-g5-xlarge-us-east-1",
            "aws-g5-xlarge-us-east-1-ri-1y-no-upfront",
            "aws-g5-xlarge-us-east-1-ri-3y-all-upfront",
            "aws-g6f-large-us-east-1",
            "aws-p5-48xlarge-us-east-1",
        ]
    );
    let no_upfront = &out.catalog.offers[2];
    assert_eq!(
        (
            no_upfront.price.to_string(),
            no_upfront.upfront.unwrap().to_string()
        ),
        ("462.82".to_owned(), "0".to_owned()),
        "0.634 per hour x 730 hours a month"
    );
    let all_upfront = &out.catalog.offers[3];
    assert_eq!(
        (
            all_upfront.price.to_string(),
            all_upfront.upfront.unwrap().to_string(),
            all_upfront.term_months
        ),
        ("0".to_owned(), "10524".to_owned(), Some(36))
    );
    let p5 = &out.catalog.offers[5];
    assert_eq!(
        (p5.gpu.as_str(), p5.gpu_count, p5.vcpu),
        ("H100-SXM", 8, Some(192))
    );
    assert_eq!(p5.region.name, "US East (N. Virginia)");
    let r = reasons(&out);
    assert!(
        r.iter()
            .any(|x| x.contains("us-east-1-atl-2") && x.contains("Local or Wavelength Zone")),
        "{r:?}"
    );
    assert!(r.iter().any(|x| x.contains("\"B200\"")), "{r:?}");
    let ignored = &out.report.ignored;
    for why in [
        "not Linux",
        "dedicated instance or host tenancy",
        "capacity reservation row",
        "not a GPU instance",
        "convertible reservation",
    ] {
        assert_eq!(ignored.get(why), Some(&1), "{why}: {ignored:?}");
    }
    assert!(
        out.report
            .notes
            .iter()
            .any(|n| n.contains("no keyless spot"))
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn alibaba_price_file_gives_region_classes_and_reports_unmapped_families() {
    let url = alibaba::price_file_url(alibaba::PRICE_FILE_URL, alibaba::DEFAULT_VERSION).unwrap();
    let out = alibaba::import(
        include_str!("../../tests/fixtures/feeds/alibaba-instancePrice.json"),
        &FeedContext::fetched(&url, DAY),
    )
    .unwrap();
    check(&out, DAY, PriceEvidence::Official);
    let class = |id: &str| {
        out.catalog
            .offers
            .iter()
            .find(|o| o.id == id)
            .map(|o| o.region.class)
    };
    assert_eq!(
        class("alibaba-cloud-ecs-gn7i-c8g1-2xlarge-cn-hangzhou"),
        Some(RegionClass::Tier1)
    );
    assert_eq!(
        class("alibaba-cloud-ecs-gn7e-c16g1-4xlarge-cn-wulanchabu"),
        Some(RegionClass::Remote)
    );
    assert_eq!(
        class("alibaba-cloud-ecs-gn7i-c8g1-2xlarge-ap-southeast-1"),
        Some(RegionClass::Overseas)
    );
    let slice = out
        .catalog
        .offers
        .iter()
        .find(|o| o.gpu == "T4" && o.tenancy == Tenancy::Vgpu)
        .unwrap();
    assert_eq!((slice.gpu_fraction, slice.vram_gib), (0.25, 4.0));
    assert_eq!(
        out.catalog.offers.len(),
        8,
        "{:?}",
        out.catalog.offers.iter().map(|o| &o.id).collect::<Vec<_>>()
    );
    let r = reasons(&out);
    assert!(r.iter().any(|x| x.contains("\"L20\"")), "{r:?}");
    assert!(
        r.iter()
            .any(|x| x.starts_with("ecs.gn8v.4xlarge") && x.contains("no mapping")),
        "{r:?}"
    );
    assert!(
        r.iter()
            .any(|x| x.contains("cn-hongkong") && x.contains("no usable price")),
        "{r:?}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn gpuhunt_catalogs_are_dated_by_their_version_with_the_traps_applied() {
    let url = gpuhunt::catalog_url(gpuhunt::CATALOG_BASE, "aws", "20251203-7").unwrap();
    let out = gpuhunt::import(
        include_str!("../../tests/fixtures/feeds/gpuhunt-aws.csv"),
        "aws",
        Some("20251203-7"),
        &FeedContext::fetched(&url, DAY),
    )
    .unwrap();
    check(&out, "2025-12-03", PriceEvidence::Catalog);
    let r = reasons(&out);
    assert!(
        r.iter()
            .any(|x| x.contains("us-east-1-atl-2") && x.contains("Local")),
        "{r:?}"
    );
    assert!(
        r.iter()
            .any(|x| x.contains("spot 55.04 is at or above on-demand 55.04")),
        "{r:?}"
    );
    let f = flags(&out);
    assert!(
        f.iter()
            .any(|x| x.starts_with("aws-p4d-24xlarge-us-east-1-spot") && x.contains("outlier")),
        "{f:?}"
    );
    assert_eq!(out.report.ignored.get("TPU"), Some(&1));
    assert_eq!(out.report.ignored.get("no GPU"), Some(&1));

    let url = gpuhunt::catalog_url(gpuhunt::CATALOG_BASE, "runpod", "20251203-2").unwrap();
    let runpod = gpuhunt::import(
        include_str!("../../tests/fixtures/feeds/gpuhunt-runpod.csv"),
        "runpod",
        Some("20251203-2"),
        &FeedContext::fetched(&url, DAY),
    )
    .unwrap();
    check(&runpod, "2025-12-03", PriceEvidence::Catalog);
    assert!(
        runpod
            .report
            .flagged
            .iter()
            .any(|f| matches!(f.flag, Flag::UniformPrice { regions: 4, .. })
                && f.item == "RunPod NVIDIA GeForce RTX 4090")
    );
    assert!(
        runpod
            .report
            .notes
            .iter()
            .any(|n| n.contains("every region at one price"))
    );
    let r = reasons(&runpod);
    for expected in [
        "\"H100NVL\"",
        "\"amd MI300X\"",
        "no usable price",
        "unreadable row",
        "at or above on-demand",
    ] {
        assert!(r.iter().any(|x| x.contains(expected)), "{expected}: {r:?}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn skypilot_rows_skip_local_zones_flag_outliers_and_say_what_a_price_is() {
    let src = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/aws/vms.csv";
    let (aws, report) = import_vms_csv_from(
        include_str!("../../tests/fixtures/feeds/skypilot-aws-traps.csv"),
        "aws",
        DAY,
        src,
    )
    .unwrap();
    for o in &aws.offers {
        validate_offer(o).unwrap();
        assert_eq!(o.price_evidence, Some(PriceEvidence::Catalog));
        assert!(!o.estimate);
        assert_eq!(o.source, src);
    }
    let p5_spot = aws
        .offers
        .iter()
        .find(|o| o.id == "aws-p5-48xlarge-us-east-1-spot")
        .unwrap();
    assert_eq!(
        p5_spot.price.to_string(),
        "17.63",
        "the Local Zone's 10.24 is not the region's price"
    );
    assert!(
        report
            .left_out
            .iter()
            .any(|s| matches!(&s.reason, SkipWhy::LocalZone { zone } if zone == "use1-atl2-az1"))
    );
    assert!(
        report
            .flagged
            .iter()
            .any(|f| f.item == "aws-p4d-24xlarge-us-east-1-spot"
                && matches!(f.flag, Flag::SpotOutlier { .. })),
        "{:?}",
        report.flagged
    );
    let feed = report.to_feed_report("skypilot:aws", src, DAY, DatedBy::FetchDay);
    assert!(
        feed.skipped
            .iter()
            .any(|s| s.reason.to_string().contains("no usable on-demand price"))
    );
    assert!(
        feed.skipped
            .iter()
            .any(|s| matches!(s.reason, SkipWhy::LocalZone { .. }))
    );

    let (_, lambda) = import_vms_csv_from(
        include_str!("../../tests/fixtures/feeds/skypilot-lambda.csv"),
        "lambda",
        DAY,
        src,
    )
    .unwrap();
    assert!(
        lambda
            .flagged
            .iter()
            .any(|f| f.item == "gpu_1x_a10"
                && matches!(f.flag, Flag::UniformPrice { regions: 4, .. }))
    );
    assert!(
        lambda
            .notes
            .iter()
            .any(|n| n.contains("every region at one price"))
    );

    let (vast, report) = import_vms_csv_from(
        include_str!("../../tests/fixtures/feeds/skypilot-vast.csv"),
        "vast",
        DAY,
        src,
    )
    .unwrap();
    assert!(vast.offers.iter().all(|o| o.source.contains("median")));
    assert!(report.notes.iter().any(|n| n.contains("median")));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn a_region_filter_keeps_only_the_regions_asked_for() {
    let mut ctx = FeedContext::fetched("https://example.test/x", DAY);
    ctx.regions = vec!["cn-hangzhou".into()];
    let out = alibaba::import(
        include_str!("../../tests/fixtures/feeds/alibaba-instancePrice.json"),
        &ctx,
    )
    .unwrap();
    assert!(
        out.catalog
            .offers
            .iter()
            .all(|o| o.region.id == "cn-hangzhou")
    );
    assert!(
        out.report
            .ignored
            .get("another region")
            .is_some_and(|n| *n > 0)
    );
    ctx.day = "2026-12".into();
    assert!(matches!(
        alibaba::import("{\"pricingInfo\": {}}", &ctx),
        Err(gpufare_core::offers::feeds::FeedError::BadDate { .. })
    ));
}
