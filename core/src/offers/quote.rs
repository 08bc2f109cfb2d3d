//! A quote a user adds by hand: the few fields a person has from a provider's page or a sales
//! email, turned into a full offer with stated defaults.

use rust_decimal::Decimal;

use crate::hardware::gpu::find_gpu;
use crate::hardware::links::Interconnect;
use crate::numbers::money::Currency;
use crate::numbers::problem::{FieldError, Problem};
use crate::offers::billing::{BillingMode, Granularity};
use crate::offers::interruption::{Interruptions, assumed_spot};
use crate::offers::offer::{Offer, PriceEvidence, Region};
use crate::offers::tenancy::Tenancy;
use crate::offers::validate::validate_offer;

/// Months of a reserved quote's term.
pub const QUOTE_RESERVED_MONTHS: u32 = 12;

/// The smallest share of a card a slice quote is taken to have.
const MIN_SLICE_FRACTION: f64 = 0.05;

/// What a person types for a quote.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// Who offers it.
    pub provider: String,
    /// GPU short name from the spec table.
    pub gpu: String,
    /// GPUs rented together.
    pub gpu_count: u32,
    /// How they are linked, when several (absent: `offers::links`' default for the card).
    pub interconnect: Option<Interconnect>,
    /// GPUs per node when they span several nodes.
    pub gpus_per_node: Option<u32>,
    /// The network between those nodes, Gbit/s per node.
    pub node_network_gbps: Option<f64>,
    /// True when that network carries RDMA.
    pub node_network_rdma: bool,
    /// How the GPU is shared.
    pub tenancy: Tenancy,
    /// How it is billed.
    pub billing_mode: BillingMode,
    /// Currency of the price.
    pub currency: Currency,
    /// Price per hour (metered) or per term.
    pub price: Decimal,
    /// Visible VRAM, GiB; the card's own memory when not given.
    pub vram_gib: Option<f64>,
    /// The quote's date, `YYYY-MM-DD` (the day it is entered, unless the user says otherwise).
    pub as_of: String,
}

impl Quote {
    /// The quote as an offer with `id`: its GPUs in a tier-1 region; a slice gets the share of the
    /// card its memory is of the card's; metered offers bill per second; a reserved term is
    /// [`QUOTE_RESERVED_MONTHS`] months with nothing upfront; spot assumes what
    /// [`assumed_spot`] says for the provider. Refused, with the field and the reason, when the
    /// result is not a valid offer.
    pub fn offer(&self, id: String) -> Result<Offer, FieldError> {
        let card_gib = find_gpu(&self.gpu).map(|s| s.vram_gb);
        let vram_gib = self.vram_gib.or(card_gib).unwrap_or(0.0);
        let mode = self.billing_mode;
        let gpu_fraction = match card_gib {
            Some(card) if self.tenancy.is_slice() && card > 0.0 => {
                (vram_gib / card).clamp(MIN_SLICE_FRACTION, 1.0)
            }
            _ => 1.0,
        };
        let offer = Offer {
            id,
            provider: self.provider.trim().to_owned(),
            region: Region {
                id: "custom".into(),
                name: "custom".into(),
                ..Offer::blank().region
            },
            gpu: self.gpu.clone(),
            gpu_count: self.gpu_count,
            interconnect: self.interconnect,
            gpus_per_node: self.gpus_per_node,
            node_network_gbps: self.node_network_gbps,
            node_network_rdma: self.node_network_rdma,
            tenancy: self.tenancy,
            gpu_fraction,
            vram_gib,
            billing_mode: mode,
            term_months: (mode == BillingMode::Reserved).then_some(QUOTE_RESERVED_MONTHS),
            upfront: (mode == BillingMode::Reserved).then_some(Decimal::ZERO),
            price: self.price,
            currency: self.currency,
            granularity: mode.is_metered().then_some(Granularity::Second),
            interruptions: if mode == BillingMode::Spot {
                assumed_spot(&self.provider)
            } else {
                Interruptions::default()
            },
            as_of: self.as_of.clone(),
            source: "added by the user".into(),
            price_evidence: Some(PriceEvidence::Quote),
            ..Offer::blank()
        };
        if offer.provider.is_empty() {
            return Err(FieldError::new("provider", Problem::Required));
        }
        validate_offer(&offer)?;
        Ok(offer)
    }
}

/// The first free id of the form `custom-N`, given a test for ids already taken.
pub fn free_custom_id(taken: impl Fn(&str) -> bool) -> String {
    (1..)
        .map(|n| format!("custom-{n}"))
        .find(|id| !taken(id))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote(tenancy: Tenancy, mode: BillingMode, vram: Option<f64>) -> Quote {
        Quote {
            provider: "My quote".into(),
            gpu: "A100-80GB".into(),
            gpu_count: 1,
            interconnect: None,
            gpus_per_node: None,
            node_network_gbps: None,
            node_network_rdma: false,
            tenancy,
            billing_mode: mode,
            currency: Currency::Cny,
            price: Decimal::new(18, 1),
            vram_gib: vram,
            as_of: "2026-12-05".into(),
        }
    }

    #[test]
    fn defaults_are_stated_and_valid() {
        let card = quote(Tenancy::Dedicated, BillingMode::PayAsYouGo, None)
            .offer("custom-1".into())
            .unwrap();
        assert_eq!((card.vram_gib, card.gpu_fraction), (80.0, 1.0));
        assert_eq!(card.granularity, Some(Granularity::Second));
        let slice = quote(Tenancy::Mig, BillingMode::Spot, Some(20.0))
            .offer("custom-2".into())
            .unwrap();
        assert_eq!(slice.gpu_fraction, 0.25);
        assert_eq!(slice.interruptions, assumed_spot(&slice.provider));
        let reserved = quote(Tenancy::Dedicated, BillingMode::Reserved, None)
            .offer("custom-3".into())
            .unwrap();
        assert_eq!(reserved.term_months, Some(12));
        assert_eq!(reserved.granularity, None);
    }

    #[test]
    fn a_bad_quote_names_its_field() {
        let err = quote(Tenancy::Dedicated, BillingMode::Monthly, Some(0.0))
            .offer("x".into())
            .unwrap_err();
        assert_eq!(err.field, "vram_gib");
        let err = Quote {
            provider: "  ".into(),
            ..quote(Tenancy::Dedicated, BillingMode::Monthly, None)
        }
        .offer("x".into())
        .unwrap_err();
        assert_eq!(err.field, "provider");
        assert_eq!(free_custom_id(|id| id == "custom-1"), "custom-2");
    }

    #[test]
    fn a_multi_gpu_quote_keeps_its_links() {
        let two_nodes = Quote {
            gpu_count: 8,
            gpus_per_node: Some(4),
            node_network_gbps: Some(25.0),
            ..quote(Tenancy::Dedicated, BillingMode::PayAsYouGo, None)
        };
        let offer = two_nodes.clone().offer("custom-1".into()).unwrap();
        let l = crate::offers::links::links(&offer, 8).unwrap();
        assert_eq!(l.nodes, 2);
        assert_eq!(
            l.bottleneck().link,
            crate::hardware::links::Link::NetworkTcp
        );
        // Nodes without a network between them, or a slice with NVLink, are refused by field.
        let err = Quote {
            node_network_gbps: None,
            ..two_nodes.clone()
        }
        .offer("x".into())
        .unwrap_err();
        assert_eq!(err.field, "node_network_gbps");
        let err = Quote {
            tenancy: Tenancy::Mig,
            interconnect: Some(Interconnect::Nvlink),
            gpus_per_node: None,
            node_network_gbps: None,
            ..two_nodes
        }
        .offer("x".into())
        .unwrap_err();
        assert!(
            ["interconnect", "gpu_count"].contains(&err.field.as_str()),
            "{err:?}"
        );
    }
}
