//! How fast GPUs exchange data: the all-reduce bus bandwidth of each kind of link, as nccl-tests
//! measures it.
//!
//! nccl-tests reports a collective's *bus bandwidth* so that one number describes the link
//! whatever the number of GPUs: for an all-reduce of `S` bytes over `n` GPUs taking `t` seconds,
//! `algbw = S / t` and `busbw = algbw × 2(n − 1)/n` (NVIDIA/nccl-tests, `doc/PERFORMANCE.md`).
//! So an all-reduce takes `2(n − 1)/n × S / busbw`, and an all-gather or a reduce-scatter half of
//! that. The defaults below are measured peaks of public runs (large messages), each with its
//! source in `core/README.md` ("Multi-GPU communication"):
//!
//! - NVLink 3 with NVSwitch (8× A100): 230 GB/s (Azure ND A100 v4 results, 230.22; nccl-tests
//!   runs in stas00/ml-engineering, 234.89);
//! - NVLink 4 with NVSwitch (8× H100/H200), ring: 367 GB/s (H200 with NVLS off, 367.61; NVLS
//!   reaches about 475 but frameworks' gradient all-reduce does not always get it);
//! - export variants with NVLink cut to 400 GB/s both ways (A800, H800): 0.78 / 0.81 of 200 GB/s,
//!   the share of the link rate NVLink 3 / 4 reach;
//! - a two-card NVLink bridge (H100 PCIe): 116 GB/s;
//! - PCIe with peer-to-peer: Gen4 15 GB/s (8× A100 PCIe, 8–21 GB/s measured), Gen5 30 GB/s
//!   (8× RTX 5090 behind PCIe switches, 28–35); Gen3 half of Gen4. Without peer-to-peer (consumer
//!   GeForce cards, whose drivers turn it off) data goes through host memory: half of that;
//! - between nodes: the NIC's rate times 0.9 over RDMA (InfiniBand, RoCE, EFA reach 0.86–0.98 of
//!   it) or 0.4 over TCP sockets (100 GbE: 4–6 GB/s of 12.5).
//!
//! A MIG slice, a vGPU or any other slice has no peer-to-peer path (NVIDIA MIG user guide).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::gpu::GpuSpec;

/// What links the GPUs of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Interconnect {
    /// NVLink (with NVSwitch on 8-GPU boards, or a bridge between two cards).
    Nvlink,
    /// PCIe only (peer-to-peer where the card allows it, else through host memory).
    Pcie,
    /// No path between GPUs at all (slices, vGPU, single cards).
    None,
}

identifiers!(Interconnect {
    Nvlink => "nvlink",
    Pcie => "pcie",
    None => "none",
});

/// The kind of link a bus bandwidth describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Link {
    /// NVLink 2 (V100).
    Nvlink2,
    /// NVLink 3 with NVSwitch (A100).
    Nvlink3,
    /// NVLink 4 with NVSwitch (H100, H200, H20), ring.
    Nvlink4,
    /// NVLink cut to 400 GB/s both ways (A800, H800).
    NvlinkCut,
    /// A two-card NVLink bridge.
    NvlinkBridge,
    /// PCIe with peer-to-peer.
    PcieP2p,
    /// PCIe through host memory (no peer-to-peer).
    PcieHost,
    /// A node network with RDMA.
    NetworkRdma,
    /// A node network over TCP sockets.
    NetworkTcp,
}

identifiers!(Link {
    Nvlink2 => "nvlink2",
    Nvlink3 => "nvlink3",
    Nvlink4 => "nvlink4",
    NvlinkCut => "nvlink_cut",
    NvlinkBridge => "nvlink_bridge",
    PcieP2p => "pcie_p2p",
    PcieHost => "pcie_host",
    NetworkRdma => "network_rdma",
    NetworkTcp => "network_tcp",
});

/// Share of a NIC's rate an all-reduce reaches over RDMA (InfiniBand, RoCE, EFA).
pub const RDMA_EFFICIENCY: f64 = 0.9;
/// Share of a NIC's rate an all-reduce reaches over TCP sockets.
pub const TCP_EFFICIENCY: f64 = 0.4;
/// NVLink 3's all-reduce bus bandwidth over its per-direction link rate (230 / 300).
pub const NVLINK3_SHARE: f64 = 0.78;
/// NVLink 4's ring all-reduce bus bandwidth over its per-direction link rate (367 / 450).
pub const NVLINK4_SHARE: f64 = 0.81;

/// One link's all-reduce bus bandwidth and where the figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BusBandwidth {
    /// GB/s, as nccl-tests reports `busbw`.
    pub gb_s: f64,
    /// What the figure is.
    pub link: Link,
}

/// The NVLink all-reduce bus bandwidth of `gpu` with `gpus` cards, when the card has NVLink.
pub fn nvlink_busbw(gpu: &GpuSpec, gpus: u32) -> Option<BusBandwidth> {
    if !gpu.nvlink {
        return None;
    }
    let (gb_s, link) = match gpu.short.as_str() {
        "A100-40GB" | "A100-80GB" => (230.0, Link::Nvlink3),
        "A800-80GB" => (NVLINK3_SHARE * 200.0, Link::NvlinkCut),
        "H100-SXM" | "H200" | "H20" => (367.0, Link::Nvlink4),
        "H800" => (NVLINK4_SHARE * 200.0, Link::NvlinkCut),
        // V100: NVLink 2, 150 GB/s each way, at NVLink 3's share.
        "V100-16GB" | "V100-32GB" => (NVLINK3_SHARE * 150.0, Link::Nvlink2),
        // Cards joined in pairs by a bridge; more than two fall back to PCIe between pairs.
        _ if gpus <= 2 => (116.0, Link::NvlinkBridge),
        _ => return None,
    };
    Some(BusBandwidth { gb_s, link })
}

/// Whether `gpu` allows peer-to-peer over PCIe (consumer GeForce cards do not).
pub fn pcie_p2p(gpu: &GpuSpec) -> bool {
    !gpu.short.starts_with("RTX")
}

/// The PCIe all-reduce bus bandwidth between `gpu` cards of one node: peer-to-peer where the
/// card allows it, else through host memory.
pub fn pcie_busbw(gpu: &GpuSpec) -> BusBandwidth {
    if pcie_p2p(gpu) {
        BusBandwidth {
            gb_s: pcie_p2p_gb_s(gpu),
            link: Link::PcieP2p,
        }
    } else {
        pcie_host_busbw(gpu)
    }
}

/// The PCIe all-reduce bus bandwidth through host memory (no peer-to-peer path: GeForce cards,
/// slices): half the peer-to-peer figure of the card's generation.
pub fn pcie_host_busbw(gpu: &GpuSpec) -> BusBandwidth {
    BusBandwidth {
        gb_s: pcie_p2p_gb_s(gpu) / 2.0,
        link: Link::PcieHost,
    }
}

/// Peer-to-peer PCIe all-reduce bus bandwidth by generation, GB/s.
fn pcie_p2p_gb_s(gpu: &GpuSpec) -> f64 {
    match gpu.pcie_gen {
        0..=3 => 7.5,
        4 => 15.0,
        _ => 30.0,
    }
}

/// The all-reduce bus bandwidth between nodes joined by `gbit_s` per node.
pub fn network_busbw(gbit_s: f64, rdma: bool) -> BusBandwidth {
    let (share, link) = if rdma {
        (RDMA_EFFICIENCY, Link::NetworkRdma)
    } else {
        (TCP_EFFICIENCY, Link::NetworkTcp)
    };
    BusBandwidth {
        gb_s: gbit_s / 8.0 * share,
        link,
    }
}

/// Seconds an all-reduce of `bytes` over `gpus` GPUs takes at `busbw` GB/s (nccl-tests'
/// definition of the bus bandwidth, read backwards). Zero for one GPU.
pub fn all_reduce_seconds(bytes: f64, gpus: u32, busbw_gb_s: f64) -> f64 {
    if gpus <= 1 || busbw_gb_s <= 0.0 {
        return 0.0;
    }
    let n = f64::from(gpus);
    2.0 * (n - 1.0) / n * bytes / (busbw_gb_s * 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::gpu::find_gpu;

    /// nccl-tests' definition: busbw = algbw × 2(n−1)/n; 8 GPUs, 1 GB at 230 GB/s busbw means
    /// an algbw of 131.4 GB/s, 7.6 ms.
    #[test]
    fn all_reduce_time_reads_bus_bandwidth_backwards() {
        let t = all_reduce_seconds(1e9, 8, 230.0);
        assert!((1e9 / t / 1e9 - 230.0 / 1.75).abs() < 1e-9);
        assert_eq!(all_reduce_seconds(1e9, 1, 230.0), 0.0);
    }

    #[test]
    fn links_by_card() {
        let a100 = find_gpu("A100-80GB").unwrap();
        assert_eq!(nvlink_busbw(a100, 8).unwrap().gb_s, 230.0);
        assert_eq!(pcie_busbw(a100).link, Link::PcieP2p);
        let rtx = find_gpu("RTX4090").unwrap();
        assert!(nvlink_busbw(rtx, 8).is_none());
        assert_eq!(pcie_busbw(rtx).link, Link::PcieHost);
        assert!((network_busbw(25.0, false).gb_s - 1.25).abs() < 1e-12);
        assert!((network_busbw(100.0, true).gb_s - 11.25).abs() < 1e-12);
    }
}
