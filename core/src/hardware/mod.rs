//! Facts about the hardware: the GPU spec table (nominal memory, bandwidth, tensor throughput,
//! PCIe generation), what a PCIe link should carry, and how fast GPUs exchange data.

pub mod gpu;
pub mod links;
pub mod mig;
pub mod pcie;
