//! The workload estimator: VRAM need and run time from a model preset, so users need not guess.
//!
//! A [`Workload`] describes what runs — an LLM served or trained ([`llm`]), or a Stable Diffusion
//! family model generating images or training a LoRA ([`diffusion`]). From it:
//!
//! - [`estimate`] gives the memory needed per GPU as a [`Breakdown`] (weights, gradients,
//!   optimizer state, activations, KV cache, overhead) and its total — never only the largest
//!   part;
//! - [`throughput::run_time`] turns the work (tokens to train or generate, images, training steps)
//!   into hours on any GPU of the spec table;
//! - [`throughput::task_fields`] fills a task profile's VRAM need and work hours on a reference GPU;
//! - [`fit::fit_catalog`] checks the need against every catalog offer (fits / tight / OOM) and
//!   finds the smallest slice and the smallest dedicated card that fit.
//!
//! **Accounting.** The memory model is that of the stock Hugging Face stack (PyTorch autocast,
//! PEFT, bitsandbytes, DeepSpeed/FSDP, diffusers with SDPA attention), not of specialised kernels
//! (Unsloth, llama.cpp, TensorRT). Training state follows the ZeRO paper's mixed-precision Adam
//! accounting, 16 bytes per trainable parameter (Rajbhandari et al., arXiv:1910.02054 §3.1). Every
//! formula, constant and default is documented on the item that uses it, with its source, and in
//! `core/README.md` ("Workload estimates"). Figures use GiB (2^30 bytes).

pub mod diffusion;
pub mod estimate;
pub mod fit;
pub mod llm;
pub mod quick;
pub mod report;
pub mod throughput;
pub mod types;

pub use diffusion::{DiffusionModel, DiffusionTask, DiffusionWorkload, Generation, SdLoraTraining};
pub use estimate::{Workload, estimate};
pub use fit::{CatalogFit, OfferFit, fit_catalog};
pub use llm::arch::{
    KvPrecision, LlmArch, LoraTargets, ParameterCount, Precision, find_llm_preset, llm_presets,
};
pub use llm::setup::{
    LlmInference, LlmTask, LlmTraining, LlmWorkload, Optimizer, TrainingMethod, ZeroStage,
};
pub use throughput::{RunTime, TaskFields, run_time, run_times, task_fields};
pub use types::{Breakdown, CUDA_CONTEXT_GIB, GIB, MemoryEstimate, WorkloadError};
