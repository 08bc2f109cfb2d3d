//! The rent of an offer for a stretch of running: metered offers per run with their granularity
//! and minimum, subscriptions and reserved terms per started term.

use rust_decimal::Decimal;

use crate::numbers::money::{Money, dec};
use crate::offers::billing::{
    BillingMode, Granularity, HOURS_PER_MONTH, MAX_RUN_HOURS, PayAsYouGo, pay_as_you_go_rent,
};
use crate::offers::offer::Offer;

/// Hours one billing term lasts, for subscriptions and reserved terms.
pub fn term_hours(offer: &Offer) -> Option<f64> {
    match offer.billing_mode {
        BillingMode::Daily => Some(24.0),
        BillingMode::Weekly => Some(168.0),
        BillingMode::Monthly => Some(HOURS_PER_MONTH),
        BillingMode::Yearly => Some(12.0 * HOURS_PER_MONTH),
        BillingMode::Reserved => Some(f64::from(offer.term_months.unwrap_or(12)) * HOURS_PER_MONTH),
        BillingMode::PayAsYouGo | BillingMode::Spot => None,
    }
}

/// The price of one term: the subscription price, or upfront + monthly x months for reserved.
pub fn term_price(offer: &Offer) -> Decimal {
    match offer.billing_mode {
        BillingMode::Reserved => {
            offer.upfront.unwrap_or_default()
                + offer.price * Decimal::from(offer.term_months.unwrap_or(12))
        }
        _ => offer.price,
    }
}

/// An offer's price per GPU-hour in its own currency, before any discount: the hourly price of a
/// metered offer, or a term's price spread over the term's hours, divided by the GPUs (or slices)
/// in the offer.
pub fn price_per_gpu_hour(offer: &Offer) -> Decimal {
    let hours = term_hours(offer).map_or(Decimal::ONE, |h| dec(h).max(Decimal::ONE));
    term_price(offer) / hours / Decimal::from(offer.gpu_count.max(1))
}

/// Rent in the offer's currency, before discount: metered offers per run with granularity and
/// minimum; subscriptions per started term over the hours the machine is held.
pub fn rent_in_offer_currency(
    offer: &Offer,
    running_hours: f64,
    held_hours: f64,
    runs: u32,
) -> Decimal {
    OfferRent::of(offer).rent(running_hours, held_hours, runs)
}

/// What [`rent_in_offer_currency`] reads of an offer, worked out once for pricing it many times:
/// the term, and the pay-as-you-go plan of a metered offer or the term's price of a subscription.
#[derive(Debug, Clone, Copy)]
pub struct OfferRent {
    price: Decimal,
    billing: Billing,
}

#[derive(Debug, Clone, Copy)]
enum Billing {
    Metered(PayAsYouGo),
    Term { hours: f64, price: Decimal },
}

impl OfferRent {
    /// Prepares the rent of `offer`.
    pub fn of(offer: &Offer) -> OfferRent {
        let billing = match term_hours(offer) {
            None => Billing::Metered(PayAsYouGo {
                price_per_hour: Money::new(offer.price, offer.currency),
                granularity: offer.granularity.unwrap_or(Granularity::Second),
                minimum_seconds: offer
                    .minimum_minutes
                    .map(|m| u64::try_from((m * Decimal::from(60)).ceil()).unwrap_or(0))
                    .unwrap_or(0),
            }),
            Some(hours) => Billing::Term {
                hours,
                price: term_price(offer),
            },
        };
        OfferRent {
            price: offer.price,
            billing,
        }
    }

    /// [`rent_in_offer_currency`] for the prepared offer.
    pub fn rent(&self, running_hours: f64, held_hours: f64, runs: u32) -> Decimal {
        match &self.billing {
            Billing::Metered(plan) => {
                let per_run = running_hours / f64::from(runs.max(1));
                let hours = dec(per_run);
                let one = if hours <= MAX_RUN_HOURS {
                    pay_as_you_go_rent(hours, plan)
                        .map(|q| q.rent.amount)
                        .unwrap_or_else(|_| self.price * hours)
                } else {
                    self.price * hours
                };
                one * Decimal::from(runs.max(1))
            }
            Billing::Term { hours: term, price } => {
                let terms = libm::ceil(held_hours / term).max(1.0);
                *price * dec(terms)
            }
        }
    }
}
