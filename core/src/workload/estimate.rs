//! A workload — an LLM or a diffusion model, with what it does — and its memory estimate.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::workload::diffusion::{DiffusionWorkload, estimate_diffusion};
use crate::workload::llm::memory::estimate_llm;
use crate::workload::llm::setup::LlmWorkload;
use crate::workload::types::{MemoryEstimate, WorkloadError};

/// What runs: an LLM or a diffusion model, with everything that decides its memory and time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "family", rename_all = "snake_case")]
pub enum Workload {
    /// A decoder-only language model, served or trained.
    Llm(LlmWorkload),
    /// A Stable Diffusion family image model, generating or training a LoRA.
    Diffusion(DiffusionWorkload),
}

/// Estimates the VRAM a workload needs on each GPU, by component.
///
/// Returns an error naming the field when an input is out of range or the combination is not
/// modelled (for example a full fine-tune of 4-bit weights).
pub fn estimate(workload: &Workload) -> Result<MemoryEstimate, WorkloadError> {
    match workload {
        Workload::Llm(w) => estimate_llm(w),
        Workload::Diffusion(w) => estimate_diffusion(w),
    }
}

impl Workload {
    /// A one-line description, e.g.
    /// `llama-3-8b, QLoRA nf4 r16 (all), seq 2048 x 1, checkpointing, adamw, 1 GPU`.
    pub fn describe(&self) -> String {
        match self {
            Workload::Llm(w) => w.describe(),
            Workload::Diffusion(w) => w.describe(),
        }
    }
}
