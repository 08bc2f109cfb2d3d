//! The site's quick estimator: a model preset, a method, two sizes, the KV cache precision, the
//! LoRA targets and the GPUs, turned into a full [`Workload`]. The defaults are the common ones
//! (bf16 weights, activation checkpointing for training, rank-16 adapters on every linear layer,
//! AdamW, a 16-bit KV cache, one GPU). On several GPUs serving is tensor-parallel (expert-parallel
//! for the experts when asked) and training shards everything (ZeRO-3, FSDP `FULL_SHARD`).

use serde::{Deserialize, Serialize};

use crate::workload::estimate::Workload;
use crate::workload::estimate::estimate;
use crate::workload::llm::arch::{KvPrecision, LoraTargets, Precision, find_llm_preset};
use crate::workload::llm::setup::{
    LlmInference, LlmTask, LlmTraining, LlmWorkload, TrainingMethod, ZeroStage,
};
use crate::workload::types::WorkloadError;

/// What the quick estimator asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuickMethod {
    /// Serving with 16-bit weights.
    InferenceBf16,
    /// Serving with 8-bit FP8 weights (DeepSeek-V3's own checkpoint, the `-FP8` releases).
    InferenceFp8,
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
    pub const ALL: [QuickMethod; 6] = [
        QuickMethod::InferenceBf16,
        QuickMethod::InferenceFp8,
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
    /// How the KV cache is stored (serving).
    #[serde(default)]
    pub kv_cache: KvPrecision,
    /// Which matrices the adapters go on (LoRA and QLoRA).
    #[serde(default)]
    pub targets: LoraTargets,
    /// GPUs the model is spread over.
    #[serde(default = "one_gpu")]
    pub gpus: u32,
    /// Whether the experts of a mixture-of-experts model are spread whole over the GPUs.
    #[serde(default)]
    pub expert_parallel: bool,
}

fn one_gpu() -> u32 {
    1
}

impl QuickLlm {
    /// The quick estimator's inputs for `model` with every default: QLoRA of 2048-token
    /// sequences one at a time, 20 million training tokens, a 16-bit KV cache, adapters on every
    /// linear layer, one GPU.
    pub fn new(model: &str) -> QuickLlm {
        QuickLlm {
            model: model.to_owned(),
            method: QuickMethod::Qlora,
            tokens: 2048,
            batch: 1,
            training_tokens: 20_000_000.0,
            kv_cache: KvPrecision::Fp16,
            targets: LoraTargets::All,
            gpus: 1,
            expert_parallel: false,
        }
    }
}

impl QuickLlm {
    /// The full workload these inputs describe.
    pub fn workload(&self) -> Result<Workload, WorkloadError> {
        let arch = find_llm_preset(&self.model)?.clone();
        let serve = |weights: Precision| {
            (
                weights,
                LlmTask::Inference(LlmInference {
                    context_tokens: self.tokens,
                    concurrency: self.batch,
                    kv_cache: self.kv_cache,
                    ..LlmInference::default()
                }),
            )
        };
        let (weights, task) = match self.method {
            QuickMethod::InferenceBf16 => serve(Precision::Bf16),
            QuickMethod::InferenceFp8 => serve(Precision::Fp8),
            QuickMethod::InferenceInt4 => serve(Precision::Int4),
            method => (
                Precision::default_for(method == QuickMethod::Qlora),
                LlmTask::Training(LlmTraining {
                    sequence_tokens: self.tokens,
                    micro_batch: self.batch,
                    training_tokens: self.training_tokens,
                    zero: if self.gpus > 1 {
                        ZeroStage::Zero3
                    } else {
                        ZeroStage::Ddp
                    },
                    ..LlmTraining::with_defaults(if method == QuickMethod::Full {
                        TrainingMethod::Full
                    } else {
                        TrainingMethod::Lora {
                            rank: 16,
                            targets: self.targets,
                        }
                    })
                }),
            ),
        };
        let w = Workload::Llm(LlmWorkload {
            arch,
            weights,
            gpus: self.gpus,
            expert_parallel: self.expert_parallel,
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
            method: QuickMethod::InferenceBf16,
            training_tokens: 1e7,
            ..QuickLlm::new("llama-2-7b")
        };
        let mut sizes = Vec::new();
        for m in QuickMethod::ALL {
            q.method = m;
            sizes.push(estimate(&q.workload().unwrap()).unwrap().vram_gib);
        }
        // int4 serving < fp8 serving < bf16 serving < full fine-tune; QLoRA < LoRA < full.
        assert!(sizes[2] < sizes[1] && sizes[1] < sizes[0] && sizes[0] < sizes[5]);
        assert!(sizes[3] < sizes[4] && sizes[4] < sizes[5]);
        q.model = "no-such-model".into();
        assert!(q.workload().is_err());
    }

    #[test]
    fn the_new_inputs_reach_the_workload() {
        let q = QuickLlm {
            method: QuickMethod::InferenceFp8,
            kv_cache: KvPrecision::Fp8,
            gpus: 8,
            expert_parallel: true,
            ..QuickLlm::new("deepseek-v3")
        };
        let Workload::Llm(w) = q.workload().unwrap() else {
            panic!("an LLM workload")
        };
        assert_eq!(
            (w.weights, w.gpus, w.expert_parallel),
            (Precision::Fp8, 8, true)
        );
        let LlmTask::Inference(i) = w.task else {
            panic!("serving")
        };
        assert_eq!(i.kv_cache, KvPrecision::Fp8);
        let lora = QuickLlm {
            targets: LoraTargets::Attention,
            gpus: 2,
            ..QuickLlm::new("qwen3-30b-a3b")
        };
        let Workload::Llm(w) = lora.workload().unwrap() else {
            panic!("an LLM workload")
        };
        let LlmTask::Training(t) = w.task else {
            panic!("training")
        };
        assert_eq!(t.zero, ZeroStage::Zero3);
        assert_eq!(
            t.method,
            TrainingMethod::Lora {
                rank: 16,
                targets: LoraTargets::Attention
            }
        );
        // Expert parallelism on a dense model is refused, naming the field.
        let dense = QuickLlm {
            expert_parallel: true,
            ..QuickLlm::new("llama-3.1-8b")
        };
        assert_eq!(dense.workload().unwrap_err().field(), "expert_parallel");
    }
}
