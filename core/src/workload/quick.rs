//! The site's quick estimator: a model preset, a method and two sizes, turned into a full
//! [`Workload`]. The defaults are the common ones (bf16 weights, activation checkpointing for
//! training, rank-16 adapters on every linear layer, AdamW).

use serde::{Deserialize, Serialize};

use crate::workload::estimate::Workload;
use crate::workload::estimate::estimate;
use crate::workload::llm::arch::{Precision, find_llm_preset};
use crate::workload::llm::setup::{
    DEFAULT_LORA, LlmInference, LlmTask, LlmTraining, LlmWorkload, TrainingMethod,
};
use crate::workload::types::WorkloadError;

/// What the quick estimator asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuickMethod {
    /// Serving with 16-bit weights.
    InferenceBf16,
    /// Serving with 4-bit weights (GPTQ/AWQ).
    InferenceInt4,
    /// QLoRA: 4-bit NF4 base, rank-16 adapters.
    Qlora,
    /// LoRA: 16-bit base, rank-16 adapters.
    Lora,
    /// Full fine-tune, mixed-precision AdamW.
    Full,
}

impl QuickMethod {
    /// Every method, in display order.
    pub const ALL: [QuickMethod; 5] = [
        QuickMethod::InferenceBf16,
        QuickMethod::InferenceInt4,
        QuickMethod::Qlora,
        QuickMethod::Lora,
        QuickMethod::Full,
    ];

    /// Whether the method trains (tokens are a sequence length) or serves (a context length).
    pub fn trains(self) -> bool {
        matches!(
            self,
            QuickMethod::Qlora | QuickMethod::Lora | QuickMethod::Full
        )
    }
}

/// The quick estimator's inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuickLlm {
    /// LLM preset id, e.g. `llama-3-8b`.
    pub model: String,
    /// What to do with it.
    pub method: QuickMethod,
    /// Context (serving) or sequence (training) length in tokens.
    pub tokens: u32,
    /// Concurrent sequences (serving) or micro-batch (training).
    pub batch: u32,
    /// Tokens to train on (training), for the run time.
    pub training_tokens: f64,
}

impl QuickLlm {
    /// The full workload these inputs describe.
    pub fn workload(&self) -> Result<Workload, WorkloadError> {
        let arch = find_llm_preset(&self.model)?.clone();
        let (weights, task) = match self.method {
            QuickMethod::InferenceBf16 | QuickMethod::InferenceInt4 => (
                if self.method == QuickMethod::InferenceBf16 {
                    Precision::Bf16
                } else {
                    Precision::Int4
                },
                LlmTask::Inference(LlmInference {
                    context_tokens: self.tokens,
                    concurrency: self.batch,
                    ..LlmInference::default()
                }),
            ),
            method => (
                Precision::default_for(method == QuickMethod::Qlora),
                LlmTask::Training(LlmTraining {
                    sequence_tokens: self.tokens,
                    micro_batch: self.batch,
                    training_tokens: self.training_tokens,
                    ..LlmTraining::with_defaults(if method == QuickMethod::Full {
                        TrainingMethod::Full
                    } else {
                        DEFAULT_LORA
                    })
                }),
            ),
        };
        let w = Workload::Llm(LlmWorkload {
            arch,
            weights,
            gpus: 1,
            task,
        });
        estimate(&w)?;
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_estimates_and_training_needs_more_than_serving() {
        let mut q = QuickLlm {
            model: "llama-2-7b".into(),
            method: QuickMethod::InferenceBf16,
            tokens: 2048,
            batch: 1,
            training_tokens: 1e7,
        };
        let mut sizes = Vec::new();
        for m in QuickMethod::ALL {
            q.method = m;
            sizes.push(estimate(&q.workload().unwrap()).unwrap().vram_gib);
        }
        // int4 serving < bf16 serving < full fine-tune; QLoRA < LoRA < full.
        assert!(sizes[1] < sizes[0] && sizes[0] < sizes[4]);
        assert!(sizes[2] < sizes[3] && sizes[3] < sizes[4]);
        q.model = "no-such-model".into();
        assert!(q.workload().is_err());
    }
}
