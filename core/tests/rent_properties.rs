//! Invariants of pay-as-you-go rent that must hold for every input, checked with proptest.
//! Native only: proptest needs an OS random source; the wasm run checks the golden rows.
#![cfg(not(target_arch = "wasm32"))]

use gpufare_core::{Currency, Granularity, Money, PayAsYouGo, pay_as_you_go_rent};
use proptest::prelude::*;
use rust_decimal::Decimal;

fn granularity() -> impl Strategy<Value = Granularity> {
    prop::sample::select(Granularity::ALL.to_vec())
}

/// Hours with up to 4 decimals, up to 10,000 h; prices with up to 3 decimals, up to 1,000/h.
fn hours() -> impl Strategy<Value = Decimal> {
    (0u64..100_000_000).prop_map(|n| Decimal::new(n as i64, 4))
}

fn price() -> impl Strategy<Value = Decimal> {
    (0u64..1_000_000).prop_map(|n| Decimal::new(n as i64, 3))
}

fn plan(price: Decimal, g: Granularity, minimum_seconds: u64) -> PayAsYouGo {
    PayAsYouGo {
        price_per_hour: Money::new(price, Currency::Usd),
        granularity: g,
        minimum_seconds,
    }
}

proptest! {
    #[test]
    fn more_hours_never_cost_less(a in hours(), b in hours(), p in price(), g in granularity(), min in 0u64..7200) {
        let (short, long) = if a <= b { (a, b) } else { (b, a) };
        let plan = plan(p, g, min);
        let r_short = pay_as_you_go_rent(short, &plan).unwrap();
        let r_long = pay_as_you_go_rent(long, &plan).unwrap();
        prop_assert!(r_short.rent.amount <= r_long.rent.amount);
        prop_assert!(r_short.billed_seconds <= r_long.billed_seconds);
    }

    #[test]
    fn a_lower_price_never_costs_more(h in hours(), a in price(), b in price(), g in granularity(), min in 0u64..7200) {
        let (low, high) = if a <= b { (a, b) } else { (b, a) };
        let r_low = pay_as_you_go_rent(h, &plan(low, g, min)).unwrap();
        let r_high = pay_as_you_go_rent(h, &plan(high, g, min)).unwrap();
        prop_assert!(r_low.rent.amount <= r_high.rent.amount);
    }

    #[test]
    fn billed_time_covers_the_run_and_the_minimum(h in hours(), p in price(), g in granularity(), min in 0u64..7200) {
        let q = pay_as_you_go_rent(h, &plan(p, g, min)).unwrap();
        prop_assert!(Decimal::from(q.run_seconds) >= h * Decimal::from(3600));
        if q.run_seconds > 0 {
            prop_assert!(q.billed_seconds >= q.run_seconds.max(min));
            prop_assert_eq!(q.billed_seconds % g.seconds(), 0);
            prop_assert!(q.billed_seconds < q.run_seconds.max(min) + g.seconds());
        } else {
            prop_assert_eq!(q.billed_seconds, 0);
        }
    }

    #[test]
    fn finer_granularity_never_costs_more(h in hours(), p in price(), min in 0u64..7200) {
        let per_second = pay_as_you_go_rent(h, &plan(p, Granularity::Second, min)).unwrap();
        let per_minute = pay_as_you_go_rent(h, &plan(p, Granularity::Minute, min)).unwrap();
        let per_hour = pay_as_you_go_rent(h, &plan(p, Granularity::Hour, min)).unwrap();
        prop_assert!(per_second.rent.amount <= per_minute.rent.amount);
        prop_assert!(per_minute.rent.amount <= per_hour.rent.amount);
    }

    #[test]
    fn any_typed_text_gives_a_quote_or_an_error(hours in ".{0,24}", price in ".{0,24}", min in ".{0,12}") {
        // Never panics, whatever is typed.
        let plan = PayAsYouGo::parse(&price, Currency::Cny, Granularity::Minute, &min);
        let hours = gpufare_core::offers::billing::parse_run_hours(&hours);
        if let (Ok(plan), Ok(hours)) = (plan, hours) {
            let q = pay_as_you_go_rent(hours, &plan).unwrap();
            prop_assert!(q.rent.amount >= Decimal::ZERO);
        }
    }
}
