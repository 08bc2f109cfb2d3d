//! Facts about the hardware: the GPU spec table (nominal memory, bandwidth, tensor throughput,
//! PCIe generation) and what a PCIe link should carry.

pub mod gpu;
pub mod mig;
pub mod pcie;
