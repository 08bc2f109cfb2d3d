//! The shared side's catalog fields (issue 32) in both file forms: `neighbour_load`,
//! `compute_capped`, `queue_p0`, `queue_median_hours` and `queue_sigma` are read from CSV and
//! JSON alike, survive a round trip, and bad values are refused naming the field.

use gpufare_core::offers::catalog::parse_catalog_json;
use gpufare_core::offers::csv::{catalog_to_csv, parse_catalog_csv};
use gpufare_core::offers::queue::QueueSource;

const HEADER: &str = "id,provider,region,region_class,gpu,gpu_count,tenancy,gpu_fraction,neighbour_load,compute_capped,vram_gib,billing_mode,price,currency,granularity,queue_p0,queue_median_hours,queue_sigma,queue_wait_hours,as_of,source";

fn csv(cells: &str) -> String {
    format!("{HEADER}\n{cells}\n")
}

const GOOD: &str = "p,P,r,tier1,A100-80GB,1,mps,0.5,0.3,true,40,pay_as_you_go,1,CNY,second,0.6,0.05,1.7,,2026-12,test";

#[test]
fn csv_and_json_carry_the_same_fields() {
    let c = parse_catalog_csv(&csv(GOOD)).expect("reads");
    let o = &c.offers[0];
    assert_eq!(o.neighbour_load, Some(0.3));
    assert!(o.compute_capped);
    assert_eq!(
        (o.queue_p0, o.queue_median_hours, o.queue_sigma),
        (Some(0.6), Some(0.05), Some(1.7))
    );
    let q = o.queue();
    assert_eq!(q.source, QueueSource::Offer);
    assert!((q.mean_hours() - 0.4 * 0.05 * (1.7f64 * 1.7 / 2.0).exp()).abs() < 1e-12);
    // Through our CSV writer and back, and through JSON and back.
    let again = parse_catalog_csv(&catalog_to_csv(&c)).expect("reads back");
    assert_eq!(again.offers, c.offers);
    let json = serde_json::to_string(&c).unwrap();
    assert_eq!(parse_catalog_json(&json).expect("reads").offers, c.offers);
}

#[test]
fn bad_values_are_refused_by_field() {
    let field_of = |row: &str| {
        parse_catalog_csv(&csv(row))
            .expect_err("refused")
            .to_string()
    };
    let with = |i: usize, v: &str| {
        let mut cells: Vec<&str> = GOOD.split(',').collect();
        cells[i] = v;
        cells.join(",")
    };
    let cases = [
        (8, "1.5", "neighbour_load"),
        (8, "-0.1", "neighbour_load"),
        (9, "maybe", "compute_capped"),
        (15, "2", "queue_p0"),
        (16, "-1", "queue_median_hours"),
        (17, "9", "queue_sigma"),
        (17, "NaN", "queue_sigma"),
    ];
    for (i, v, field) in cases {
        let e = field_of(&with(i, v));
        assert!(e.contains(field), "{field} = {v}: {e}");
    }
    // A start-at-once share without the median it belongs to.
    let e = field_of(&with(16, ""));
    assert!(
        e.contains("queue_median_hours") && e.contains("queue_p0"),
        "{e}"
    );
    // JSON names the same fields.
    let c = parse_catalog_csv(&csv(GOOD)).unwrap();
    let mut v = serde_json::to_value(&c).unwrap();
    v["offers"][0]["neighbour_load"] = serde_json::json!(3.0);
    let e = parse_catalog_json(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains("neighbour_load"), "{e}");
    let mut v = serde_json::to_value(&c).unwrap();
    v["offers"][0]["queue_trace"] = serde_json::json!({"name": "x", "starts": 1, "waits_hours": [1.0, 0.5], "fitted": {"p0": 0, "median_hours": 1, "sigma": 0}});
    let e = parse_catalog_json(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains("queue_trace.waits_hours"), "{e}");
}
