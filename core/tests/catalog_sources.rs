//! The default catalog against its public sources: every row priced from a machine-readable
//! catalog is looked up again, from the provenance its own `source` states, in the public files
//! of tests/fixtures/prices (SkyPilot's catalogs at the commits named there) and must agree
//! within 1 %. This reads the files independently of core/data/derive_prices.py, which wrote
//! the prices. Every row also says how strong its evidence is, is never dated after a date its
//! source states, and every estimate says how it was derived.

use gpufare_core::numbers::date::PriceDate;
use gpufare_core::offers::PriceEvidence;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::offer::Offer;
use rust_decimal::prelude::ToPrimitive;

const AWS: &str = include_str!("../../tests/fixtures/prices/skypilot-v8-aws-gpu-subset.csv");
const GCP: &str = include_str!("../../tests/fixtures/prices/skypilot-v8-gcp-gpu-subset.csv");
const LAMBDA: &str = include_str!("../../tests/fixtures/prices/skypilot-v8-lambda-types.csv");
const VAST: &str = include_str!("../../tests/fixtures/prices/skypilot-v8-vast.csv");
const RUNPOD: &str = include_str!("../../tests/fixtures/prices/runpod-v8-subset.csv");
const AZURE: &str = include_str!("../../tests/fixtures/prices/skypilot-v8-azure-fork-subset.csv");

/// The rows of a CSV file as (column -> value) maps.
fn table(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

fn num(s: &str) -> Option<f64> {
    s.trim().parse().ok()
}

/// The text between the first "(" after `marker` and the matching ")".
fn detail<'a>(source: &'a str, marker: &str) -> Option<&'a str> {
    let rest = &source[source.find(marker)? + marker.len()..];
    let open = rest.find('(')?;
    let close = rest.find(')')?;
    rest.get(open + 1..close)
}

/// An AWS zone of a region proper, not a Local Zone (`use1-az4`, not `use1-atl2-az1`).
fn regular_zone(zone: &str) -> bool {
    let parts: Vec<&str> = zone.split('-').collect();
    parts.len() == 2 && parts[1].starts_with("az")
}

/// What the public file says this row should cost, from the row's own provenance.
fn expected(offer: &Offer) -> Option<f64> {
    let s = &offer.source;
    if let Some(d) = detail(s, "catalogs/v8/aws/vms.csv") {
        let fields: Vec<&str> = d.split(", ").collect();
        let (instance, region, kind) = (fields[0], fields[1], fields[2]);
        let rows: Vec<_> = table(AWS)
            .into_iter()
            .filter(|r| r["InstanceType"] == instance && r["Region"] == region)
            .collect();
        assert!(
            !rows.is_empty(),
            "{}: {instance} {region} not in the file",
            offer.id
        );
        let od = num(&rows[0]["Price"]).unwrap();
        if kind == "on-demand" || kind.starts_with("on-demand;") {
            return Some(od);
        }
        let zone = kind.strip_prefix("spot in ")?;
        // The zone named must be the cheapest usable one: regular, below on-demand, and not an
        // outlier below 20 % of it.
        let usable: Vec<(f64, String)> = rows
            .iter()
            .filter_map(|r| Some((num(&r["SpotPrice"])?, r["AvailabilityZone"].clone())))
            .filter(|(p, z)| regular_zone(z) && *p < od && *p >= 0.2 * od)
            .collect();
        let cheapest = usable
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("a usable spot price");
        assert_eq!(
            cheapest.1, zone,
            "{}: not the cheapest usable zone",
            offer.id
        );
        return Some(cheapest.0);
    }
    if let Some(d) = detail(s, "catalogs/v8/gcp/vms.csv") {
        let vm = d.split(',').next()?;
        let rows = table(GCP);
        let host = rows.iter().find(|r| r["InstanceType"] == vm)?;
        let gpu = rows.iter().find(|r| {
            r["InstanceType"].is_empty()
                && r["AcceleratorName"] == "A100"
                && r["AcceleratorCount"] == "1"
        })?;
        let column = if offer.billing_mode.id() == "spot" {
            "SpotPrice"
        } else {
            "Price"
        };
        return Some(num(&host[column])? + num(&gpu[column])?);
    }
    for (marker, file) in [
        ("catalogs/v8/lambda/vms.csv", LAMBDA),
        ("catalogs/v8/runpod/vms.csv", RUNPOD),
        ("catalogs/v8/vast/vms.csv", VAST),
    ] {
        if let Some(d) = detail(s, marker) {
            let instance = d.split(',').next()?;
            let rows = table(file);
            let row = rows.iter().find(|r| r["InstanceType"] == instance);
            return num(&row.unwrap_or_else(|| panic!("{}: {instance}", offer.id))["Price"]);
        }
    }
    if let Some(d) = detail(
        s,
        "coopslarhette/skypilot-catalog/blob/20291d7/catalogs/v8/azure/vms.csv",
    ) {
        let fields: Vec<&str> = d.split(", ").collect();
        let rows = table(AZURE);
        let row = rows
            .iter()
            .find(|r| r["InstanceType"] == fields[0] && r["Region"] == fields[1])?;
        let column = if fields.get(2) == Some(&"spot") {
            "SpotPrice"
        } else {
            "Price"
        };
        return num(&row[column]);
    }
    None
}

#[test]
fn every_catalog_priced_row_agrees_with_its_public_file_within_one_percent() {
    let mut checked = 0;
    for offer in &default_catalog().offers {
        if offer.evidence() != Some(PriceEvidence::Catalog) {
            continue;
        }
        let want = expected(offer).unwrap_or_else(|| {
            panic!(
                "{}: its source names no public file this test can read: {}",
                offer.id, offer.source
            )
        });
        let got = offer.price.to_f64().unwrap();
        assert!(
            (got / want - 1.0).abs() <= 0.01,
            "{}: catalog {got} against {want} in its source",
            offer.id
        );
        checked += 1;
    }
    // AWS, GCP, Lambda, RunPod, Vast and Azure rows: a count that fell would mean rows lost
    // their provenance.
    assert!(checked >= 34, "only {checked} rows checked");
}

#[test]
fn the_rows_the_comparison_found_wrong_are_fixed() {
    let price = |id: &str| {
        default_catalog()
            .offers
            .iter()
            .find(|o| o.id == id)
            .unwrap_or_else(|| panic!("{id}"))
            .price
            .to_f64()
            .unwrap()
    };
    // AWS p5en: 63.296 on demand, 16.5551 spot (were 78 and 28.08 by estimate).
    assert_eq!(price("aws-use1-p5en-payg"), 63.296);
    assert_eq!(price("aws-use1-p5en-spot"), 16.5551);
    // A half L4 is AWS's own g6f.4xlarge at 0.95, not 0.44 by "share x 1.1".
    assert_eq!(price("aws-use1-g6f4xl-payg"), 0.95);
    // Azure NC24ads A100 v4 spot and GCP a2-highgpu-1g spot as their catalogs list them.
    assert!((price("azure-eastus-nc24ads-a100-spot") - 0.444433).abs() < 0.001);
    assert!((price("gcp-usc1-a2hg1-spot") - 1.80385).abs() < 0.001);
    // Alibaba's A100 80 GB instance and AutoDL's cards at their quoted prices.
    assert_eq!(price("aliyun-sh-a100-payg"), 34.742);
    assert_eq!(price("autodl-4090-payg"), 1.98);
    assert_eq!(price("autodl-a100-80-payg"), 6.68);
    // Tencent's GT4 is an A100 40 GB.
    for o in &default_catalog().offers {
        if o.instance_type
            .as_deref()
            .is_some_and(|t| t.starts_with("GT4."))
        {
            assert_eq!(
                (o.gpu.as_str(), o.vram_gib),
                ("A100-40GB", 40.0),
                "{}",
                o.id
            );
        }
    }
    // Alibaba's preemptible rows: an hour's protection and a three-minute notice.
    for o in &default_catalog().offers {
        if o.provider == "阿里云" && o.billing_mode.id() == "spot" {
            assert_eq!(o.interruptions.protection_hours, Some(1.0), "{}", o.id);
            assert_eq!(o.interruptions.notice_seconds, Some(180.0), "{}", o.id);
        }
    }
}

/// Every date written in full in a text (YYYY-MM-DD).
fn full_dates(text: &str) -> Vec<PriceDate> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(9))
        .filter_map(|i| text.get(i..i + 10))
        .filter(|w| {
            let b = w.as_bytes();
            b[4] == b'-' && b[7] == b'-' && w.chars().filter(char::is_ascii_digit).count() == 8
        })
        .filter_map(|w| PriceDate::parse(w).ok())
        .collect()
}

#[test]
fn every_row_is_dated_no_later_than_its_source_and_says_its_evidence() {
    for o in &default_catalog().offers {
        let date =
            PriceDate::parse(&o.as_of).unwrap_or_else(|_| panic!("{}: as_of {:?}", o.id, o.as_of));
        assert!(o.evidence().is_some(), "{}: no price_evidence", o.id);
        for stated in full_dates(&o.source) {
            assert!(
                !date.is_after(stated),
                "{}: as_of {} is after {stated}, a date its source states",
                o.id,
                o.as_of
            );
        }
        if o.estimate {
            let note = o.estimate_note.as_deref().unwrap_or("");
            assert!(
                note.len() > 20 && note.chars().any(|c| c.is_ascii_digit()),
                "{}: an estimate must name its comparable and rule: {note:?}",
                o.id
            );
        } else {
            assert!(
                o.source.contains("http")
                    || o.source.contains("github.com")
                    || o.source.contains(".com/")
                    || o.source.contains("www.")
                    || o.source.contains("GitHub"),
                "{}: a sourced price names where it is published: {}",
                o.id,
                o.source
            );
        }
    }
}

/// The "share x 1.1" rule was checked where a real price exists and dropped: a provider-sold
/// fraction of an L4 costs well above its share of a whole-L4 instance, so the cost-share rows
/// (the user's own split of a whole card) are a lower bound for a provider's slice.
#[test]
fn a_provider_sold_fraction_costs_more_than_its_share_of_the_card() {
    let find = |id: &str| {
        default_catalog()
            .offers
            .iter()
            .find(|o| o.id == id)
            .unwrap()
            .clone()
    };
    let whole = find("aws-use1-g6xl-payg").price.to_f64().unwrap();
    for id in ["aws-use1-g6f4xl-payg", "aws-use1-g6f2xl-payg"] {
        let part = find(id);
        let ratio = part.price.to_f64().unwrap() / (part.gpu_fraction * whole);
        assert!((ratio - 2.36).abs() < 0.01, "{id}: {ratio}");
    }
    // The cost-share rows carry no premium: share x the card's price, to the cent.
    let g5 = find("aws-use1-g5xl-payg").price.to_f64().unwrap();
    let mps = find("aws-use1-g5-mps-8g-payg");
    assert!((mps.price.to_f64().unwrap() - g5 / 3.0).abs() < 0.0001);
    assert!(
        mps.estimate_note
            .unwrap()
            .contains("a provider-sold fraction costs more")
    );
}
