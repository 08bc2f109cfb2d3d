//! A MIG slice by its profile (issue 32): the share comes from the profile's SMs, and a bad
//! profile, tenancy or typed share is refused by field.

use gpufare_core::offers::csv::parse_catalog_csv;
use gpufare_core::offers::validate::validate_offer;
const HEADER: &str = "id,provider,region,region_class,gpu,gpu_count,tenancy,gpu_fraction,mig_profile,vram_gib,billing_mode,price,currency,granularity,as_of,source";

fn row(gpu: &str, tenancy: &str, fraction: &str, profile: &str) -> String {
    format!(
        "{HEADER}\nm,P,r,tier1,{gpu},1,{tenancy},{fraction},{profile},10,pay_as_you_go,1,CNY,second,2026-12,test\n"
    )
}

#[test]
fn a_mig_profile_gives_the_share_and_bad_ones_are_refused_by_field() {
    let c = parse_catalog_csv(&row("A100-80GB", "mig", "", "1g.10gb")).unwrap();
    assert_eq!(c.offers[0].gpu_fraction, 0.12963);
    let field = |text: String| match parse_catalog_csv(&text) {
        Err(e) => e.to_string(),
        Ok(c) => validate_offer(&c.offers[0]).unwrap_err().to_string(),
    };
    assert!(field(row("A100-80GB", "mig", "", "9g.99gb")).contains("mig_profile"));
    assert!(field(row("A100-80GB", "mig", "", "9g.99gb")).contains("1g.10gb, 1g.20gb"));
    assert!(field(row("A800-80GB", "mig", "", "1g.10gb")).contains("give gpu_fraction instead"));
    // The H20's profiles are known (with the H100's SM shares carried over).
    let h20 = parse_catalog_csv(&row("H20", "mig", "", "1g.12gb")).unwrap();
    assert_eq!(h20.offers[0].gpu_fraction, 0.121212);
    assert!(field(row("A100-80GB", "time_sliced", "", "1g.10gb")).contains("tenancy"));
    assert!(field(row("A100-80GB", "mig", "0.142857", "1g.10gb")).contains("gpu_fraction"));
    let typed = parse_catalog_csv(&row("A100-80GB", "mig", "0.1296", "1g.10gb")).unwrap();
    assert!(
        validate_offer(&typed.offers[0]).is_ok(),
        "a rounded share is accepted"
    );
}
