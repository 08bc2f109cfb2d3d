//! The links an offer's GPUs talk over: inside a node (NVLink, PCIe peer-to-peer, PCIe through
//! host memory) and between nodes (the node network), reduced to the bus bandwidth of the slowest
//! one an all-reduce over the GPUs in use crosses (`hardware::links` has the figures).

use crate::hardware::gpu::find_gpu;
use crate::hardware::links::{
    BusBandwidth, Interconnect, network_busbw, nvlink_busbw, pcie_busbw, pcie_host_busbw,
};
use crate::offers::offer::Offer;
use crate::offers::tenancy::Tenancy;

/// What links `gpus` GPUs of an offer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OfferLinks {
    /// Inside one node.
    pub node: BusBandwidth,
    /// Between nodes, when the GPUs in use span more than one.
    pub network: Option<BusBandwidth>,
    /// Nodes the GPUs in use span.
    pub nodes: u32,
}

impl OfferLinks {
    /// The slowest link the all-reduce crosses.
    pub fn bottleneck(&self) -> BusBandwidth {
        match self.network {
            Some(n) if n.gb_s < self.node.gb_s => n,
            _ => self.node,
        }
    }
}

/// The interconnect of `offer` inside a node: as stated, else NVLink where the card has it and
/// the offer rents whole dedicated cards, else PCIe; a slice or a shared card has none.
pub fn interconnect(offer: &Offer) -> Interconnect {
    let slice = offer.tenancy != Tenancy::Dedicated || offer.gpu_fraction < 1.0;
    if slice {
        return Interconnect::None;
    }
    match offer.interconnect {
        Some(i) => i,
        None if find_gpu(&offer.gpu).is_some_and(|g| g.nvlink) => Interconnect::Nvlink,
        None => Interconnect::Pcie,
    }
}

/// GPUs in each node of `offer`: as stated, else all of them in one.
pub fn gpus_per_node(offer: &Offer) -> u32 {
    offer.gpus_per_node.unwrap_or(offer.gpu_count).max(1)
}

/// The GPUs of `offer` that share one NVLink domain (NVLink between every pair, or a bridged
/// pair): the GPUs of a node joined by NVLink, else 1 (no tensor-parallel group can span more).
pub fn nvlink_domain(offer: &Offer) -> u32 {
    let per_node = gpus_per_node(offer);
    match find_gpu(&offer.gpu) {
        Some(gpu)
            if interconnect(offer) == Interconnect::Nvlink
                && nvlink_busbw(gpu, per_node).is_some() =>
        {
            per_node
        }
        // More cards than a bridge joins: only its pairs share NVLink.
        Some(gpu)
            if interconnect(offer) == Interconnect::Nvlink && nvlink_busbw(gpu, 2).is_some() =>
        {
            per_node.min(2)
        }
        _ => 1,
    }
}

/// The links `gpus` GPUs of `offer` use; `None` for one GPU or an unknown card.
pub fn links(offer: &Offer, gpus: u32) -> Option<OfferLinks> {
    if gpus <= 1 {
        return None;
    }
    let gpu = find_gpu(&offer.gpu)?;
    let per_node = gpus_per_node(offer);
    let in_node = gpus.min(per_node);
    let pcie = pcie_busbw(gpu);
    let node = match interconnect(offer) {
        Interconnect::Nvlink => nvlink_busbw(gpu, in_node).unwrap_or(pcie),
        Interconnect::Pcie => pcie,
        // No peer-to-peer path: through host memory.
        Interconnect::None => pcie_host_busbw(gpu),
    };
    let nodes = gpus.div_ceil(per_node);
    let network = (nodes > 1).then(|| {
        network_busbw(
            offer.node_network_gbps.unwrap_or(0.0),
            offer.node_network_rdma,
        )
    });
    Some(OfferLinks {
        node,
        network,
        nodes,
    })
}
