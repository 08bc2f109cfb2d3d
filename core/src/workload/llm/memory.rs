//! LLM memory: architecture presets, parameter counts, and VRAM for inference and training.
//!
//! Sources (each listed in `docs/sources.md` §5.1):
//! - parameters of a Llama-style decoder (SwiGLU MLP, untied or tied embeddings, optional q/k/v
//!   bias): `L·(h·q + 2·h·kv + q·h + 3·h·ffn + 2h [+ q + 2kv]) + h + V·h·(1 or 2)` with
//!   q = heads·head_dim and kv = kv_heads·head_dim — the count the presets are checked against
//!   (each within 2 % of its published size, `tests/workload_published.rs`);
//! - bytes per weight: fp32 4, bf16/fp16 2, fp8/int8 1, int4 (GPTQ/AWQ, group 128: 4 bits + a
//!   16-bit scale and a 4-bit zero per 128 weights = 4.156 bits) 0.52, NF4 with double
//!   quantization 4.127 bits = 0.516 (QLoRA paper, arXiv:2305.14314 §3). Quantizers leave the
//!   embeddings, the LM head, norms and biases in 16 bits (bitsandbytes behaviour), so only the
//!   decoder's linear layers shrink;
//! - KV cache: `2 · L · kv_heads · head_dim · tokens · bytes` — grouped-query attention counted
//!   with the KV heads, not the query heads (llm-analysis `get_memory_kv_cache_per_layer`);
//! - training state: ZeRO paper accounting (Rajbhandari et al., arXiv:1910.02054 §3.1, Fig. 1):
//!   mixed-precision Adam keeps 16-bit weights (2Ψ) and gradients (2Ψ) plus K = 12 bytes of
//!   optimizer state (fp32 master weights, momentum, variance); 8-bit Adam (bitsandbytes) keeps
//!   1 byte per moment, K = 6 (EleutherAI, *Transformer Math 101*). ZeRO-1/2/3 divide the optimizer,
//!   then the gradients, then the weights by the GPU count (FSDP `SHARD_GRAD_OP` = ZeRO-2,
//!   `FULL_SHARD` = ZeRO-3, accelerate FSDP guide);
//! - LoRA adds `r·(d_in + d_out)` parameters per adapted matrix (Hu et al., arXiv:2106.09685),
//!   trained in fp32: weight 4 + gradient 4 + Adam 8 = 16 bytes each;
//! - activations: Korthikanti et al. (arXiv:2205.05198) counted per token and layer, adapted to
//!   FlashAttention-era models (no s² scores, no dropout masks, SwiGLU saves gate, up, their
//!   product and the activation): `2·(4h + 2q + 2kv) + 8·ffn` bytes, about 40·h for Llama-3-8B
//!   (`docs/sources.md` §5.1). With activation checkpointing each layer keeps only its
//!   16-bit input (2h bytes per token) and one layer at a time is recomputed.

use crate::workload::llm::arch::Precision;
use crate::workload::llm::setup::{LlmTask, LlmWorkload, TrainingMethod};
use crate::workload::types::{
    Breakdown, CUDA_CONTEXT_GIB, GIB, MemoryEstimate, WorkloadError, assumption,
};

/// Bytes per logit element held around the loss in training: the bf16 logits (2), their fp32
/// upcast for the cross-entropy (4), and in the backward pass its fp32 gradient (4) and the bf16
/// cast of it (2). Counting the forward's `b·s·V·(2 + 4)` and the same again for the gradient
/// gives the same 12 (our count, `docs/sources.md` §5.1); vram.asmirnov.xyz
/// (furiousteabag/vram-calculator) counts 8.
pub const LOGIT_BYTES_PER_ELEMENT: f64 = 12.0;

/// Prompt tokens a serving engine processes in one forward step (chunked prefill), which bounds
/// the inference activation peak. vLLM's `max_num_batched_tokens` is of this order; an engine
/// without chunked prefill processes the whole prompt at once (an assumption).
pub const PREFILL_CHUNK_TOKENS: f64 = 8192.0;

/// Memory of an LLM workload per GPU (see the module docs for every formula).
pub(crate) fn estimate_llm(w: &LlmWorkload) -> Result<MemoryEstimate, WorkloadError> {
    w.validate()?;
    let arch = &w.arch;
    let p = arch.parameters();
    let n = f64::from(w.gpus);
    let wide = w.weights.wide_bytes();
    let base_bytes = p.linear * w.weights.bytes_per_param() + (p.total - p.linear) * wide;
    let dequant_bytes = if w.weights.dequantizes() {
        2.0 * arch.largest_matrix()
    } else {
        0.0
    };
    let context = CUDA_CONTEXT_GIB * GIB;
    let mut assumptions = vec![assumption(
        "cuda_context_gib",
        CUDA_CONTEXT_GIB,
        "PyTorch CUDA context with lazy loading, 0.3-0.5 GB measured (pytorch #86509, #109888)",
    )];
    if w.weights.is_quantized() {
        assumptions.push(assumption(
            "bytes_per_weight",
            w.weights.bytes_per_param(),
            "quantized linear layers; embeddings, LM head and norms stay 16-bit (bitsandbytes behaviour)",
        ));
    }

    let (breakdown, trainable) = match &w.task {
        LlmTask::Inference(i) => {
            // Tensor parallelism splits the weights and the KV heads (a KV head is replicated when
            // there are more GPUs than KV heads: llm-analysis `max(kv_heads / tp, 1)`).
            let kv_heads_per_gpu = (f64::from(arch.kv_heads) / n).ceil();
            let tokens = f64::from(i.context_tokens) * f64::from(i.concurrency);
            let kv = arch.kv_bytes_per_token(kv_heads_per_gpu, i.kv_cache) * tokens;
            // One layer's working set on a prefill chunk: the larger of the attention block
            // (input, normed input, q, k, v, output) and the MLP block (input, gate, up, product).
            let (h, f) = (f64::from(arch.hidden), f64::from(arch.ffn));
            let attention = wide * (2.0 * h + 2.0 * arch.q_dim() / n + 2.0 * arch.kv_dim() / n);
            let mlp = wide * (2.0 * h + 3.0 * f / n);
            let chunk = tokens.min(PREFILL_CHUNK_TOKENS);
            // The next-token logits of every sequence in fp32.
            let logits = f64::from(i.concurrency) * f64::from(arch.vocab) * 4.0;
            let activations = chunk * attention.max(mlp) + logits;
            assumptions.push(assumption(
                "prefill_chunk_tokens",
                PREFILL_CHUNK_TOKENS,
                "prompt tokens per forward step (chunked prefill, vLLM max_num_batched_tokens); assumption",
            ));
            (
                Breakdown::from_bytes(
                    base_bytes / n,
                    0.0,
                    0.0,
                    activations,
                    kv,
                    context + dequant_bytes,
                ),
                0.0,
            )
        }
        LlmTask::Training(t) => {
            let (weights, grads, optimizer, trainable) = match t.method {
                TrainingMethod::Full if w.weights == Precision::Fp32 => {
                    // Pure fp32: weights 4, gradients 4, moments.
                    let m = t.optimizer.moment_bytes();
                    (4.0 * p.total, 4.0 * p.total, m * p.total, p.total)
                }
                TrainingMethod::Full => {
                    // Mixed precision (ZeRO paper): 2Ψ + 2Ψ + KΨ, K = fp32 master 4 + moments.
                    let k = 4.0 + t.optimizer.moment_bytes();
                    (2.0 * p.total, 2.0 * p.total, k * p.total, p.total)
                }
                TrainingMethod::Lora { rank, targets } => {
                    let lora = arch.lora_parameters(rank, targets);
                    // fp32 adapters: weight 4, gradient 4, moments.
                    (
                        base_bytes + 4.0 * lora,
                        4.0 * lora,
                        t.optimizer.moment_bytes() * lora,
                        lora,
                    )
                }
            };
            let stage = t.zero.number();
            let shard = |bytes: f64, from_stage: u32| {
                if stage >= from_stage {
                    bytes / n
                } else {
                    bytes
                }
            };
            let (weights_gpu, grads_gpu, optimizer_gpu) =
                (shard(weights, 3), shard(grads, 2), shard(optimizer, 1));
            // ZeRO-3 gathers the full parameters (and gradients) of the current and next module
            // before use: DeepSpeed's estimator counts 4 bytes x largest layer. The buffer never
            // exceeds what sharding removed from this GPU, so sharding never costs memory.
            let gather = if stage >= 3 {
                let bytes_per_param = weights / p.total;
                (2.0 * bytes_per_param * arch.largest_layer()).min(weights - weights_gpu)
            } else {
                0.0
            };
            let tokens = f64::from(t.sequence_tokens) * f64::from(t.micro_batch);
            let act_scale = wide / 2.0;
            let layers = f64::from(arch.layers);
            let per_layer = arch.saved_bytes_per_token_layer() * act_scale;
            let saved = if t.checkpointing {
                tokens * (2.0 * f64::from(arch.hidden) * act_scale * layers + per_layer)
            } else {
                tokens * per_layer * layers
            };
            let logits = tokens * f64::from(arch.vocab) * LOGIT_BYTES_PER_ELEMENT;
            assumptions.push(assumption(
                "logit_bytes_per_element",
                LOGIT_BYTES_PER_ELEMENT,
                "bf16 logits, fp32 upcast for the loss, fp32 gradient and its bf16 cast",
            ));
            if w.gpus > 1 {
                assumptions.push(assumption(
                    "zero_accounting",
                    "2Ψ weights + 2Ψ gradients + KΨ optimizer, K = 12 (Adam) or 6 (8-bit Adam)",
                    "ZeRO paper (arXiv:1910.02054) Fig. 1; activations are not sharded",
                ));
            }
            (
                Breakdown::from_bytes(
                    weights_gpu,
                    grads_gpu,
                    optimizer_gpu,
                    saved + logits,
                    0.0,
                    context + dequant_bytes + gather,
                ),
                trainable,
            )
        }
    };
    Ok(MemoryEstimate {
        vram_gib: breakdown.total_gib(),
        breakdown,
        gpus: w.gpus,
        parameters: p.total,
        trainable_parameters: trainable,
        kind: w.kind(),
        assumptions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::document::TaskKind;
    use crate::workload::llm::arch::{
        KvPrecision, LlmArch, LoraTargets, PRESETS_CSV, find_llm_preset, llm_presets,
    };
    use crate::workload::llm::setup::{LlmInference, LlmTraining, Optimizer, ZeroStage};

    fn preset(id: &str) -> LlmArch {
        find_llm_preset(id).unwrap().clone()
    }

    fn inference(
        arch: LlmArch,
        weights: Precision,
        context: u32,
        concurrency: u32,
        gpus: u32,
    ) -> LlmWorkload {
        LlmWorkload {
            arch,
            weights,
            gpus,
            task: LlmTask::Inference(LlmInference {
                context_tokens: context,
                concurrency,
                kv_cache: KvPrecision::Fp16,
                generated_tokens: 0.0,
                mbu: None,
            }),
        }
    }

    fn training(arch: LlmArch, weights: Precision, method: TrainingMethod) -> LlmWorkload {
        LlmWorkload {
            arch,
            weights,
            gpus: 1,
            task: LlmTask::Training(LlmTraining::with_defaults(method)),
        }
    }

    #[test]
    fn the_embedded_preset_table_parses_whole() {
        let rows = PRESETS_CSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count()
            - 1;
        assert_eq!(llm_presets().len(), rows, "a row failed to parse");
        assert_eq!(rows, 12);
        for p in llm_presets() {
            p.validate().unwrap_or_else(|e| panic!("{}: {e}", p.name));
            assert_eq!(
                p.head_dim * p.heads,
                p.hidden,
                "{}: head_dim x heads = hidden",
                p.name
            );
        }
        assert!(find_llm_preset(" LLAMA-3-8B ").is_ok());
        let e = find_llm_preset("llama-9").unwrap_err();
        assert_eq!((e.field(), e.code()), ("model", "unknown"));
        assert!(e.to_string().contains("qwen2.5-7b"), "{e}");
    }

    #[test]
    fn precision_ids_round_trip_and_accept_aliases() {
        for p in Precision::ALL {
            assert_eq!(Precision::from_id(p.id()), Some(p));
        }
        assert_eq!(Precision::from_id("FP16"), Some(Precision::Bf16));
        assert_eq!(Precision::from_id("q4"), None);
    }

    #[test]
    fn lora_parameter_counts_match_the_worked_figures() {
        // r = 16 on every linear layer: Llama-3-8B 41.9 M, Llama-2-7B 40.0 M, Llama-3-70B 207 M
        // (r·Σ(d_in + d_out), Hu et al., arXiv:2106.09685, worked out on the presets' shapes).
        let rows = [
            ("llama-3-8b", 41.9e6),
            ("llama-2-7b", 40.0e6),
            ("llama-3-70b", 207.0e6),
            ("qwen2.5-7b", 40.4e6),
        ];
        for (id, expected) in rows {
            let got = preset(id).lora_parameters(16, LoraTargets::All);
            assert!((got / expected - 1.0).abs() < 0.01, "{id}: {got}");
        }
        let arch = preset("llama-2-7b");
        // q and v only: 32 layers x 16 x (8192 + 8192).
        assert_eq!(
            arch.lora_parameters(16, LoraTargets::Qv),
            32.0 * 16.0 * 16384.0
        );
    }

    #[test]
    fn quantized_weights_keep_embeddings_in_16_bit() {
        let arch = preset("llama-3-8b");
        let p = arch.parameters();
        let m = estimate_llm(&inference(arch, Precision::Nf4, 1, 1, 1)).unwrap();
        let expected = (p.linear * 0.516 + (p.total - p.linear) * 2.0) / GIB;
        assert!((m.breakdown.weights_gib - expected).abs() < 1e-9);
        // 2 x 128256 x 4096 embedding parameters alone are ~2.1 GB.
        assert!(m.breakdown.weights_gib > 2.0 * p.embedding * 2.0 / GIB);
    }

    #[test]
    fn kv_cache_counts_kv_heads_not_query_heads() {
        assert_eq!(
            preset("llama-2-7b").kv_cache_bytes_per_token(KvPrecision::Fp16),
            512.0 * 1024.0
        );
        assert_eq!(
            preset("llama-3-8b").kv_cache_bytes_per_token(KvPrecision::Fp16),
            128.0 * 1024.0
        );
        assert_eq!(
            preset("llama-3-8b").kv_cache_bytes_per_token(KvPrecision::Fp8),
            64.0 * 1024.0
        );
        // Qwen2.5-7B at 32K context: 1.75 GiB per sequence.
        let m = estimate_llm(&inference(
            preset("qwen2.5-7b"),
            Precision::Bf16,
            32_768,
            1,
            1,
        ))
        .unwrap();
        assert!((m.breakdown.kv_cache_gib - 1.75).abs() < 1e-9);
    }

    #[test]
    fn tensor_parallel_splits_weights_and_kv_heads() {
        let one = estimate_llm(&inference(
            preset("llama-3-70b"),
            Precision::Bf16,
            8192,
            4,
            1,
        ))
        .unwrap();
        let four = estimate_llm(&inference(
            preset("llama-3-70b"),
            Precision::Bf16,
            8192,
            4,
            4,
        ))
        .unwrap();
        assert!((four.breakdown.weights_gib * 4.0 - one.breakdown.weights_gib).abs() < 1e-6);
        assert!((four.breakdown.kv_cache_gib * 4.0 - one.breakdown.kv_cache_gib).abs() < 1e-6);
        // GLM-4-9B has 2 KV heads: on 4 GPUs each keeps one (replicated), half the cache.
        let glm1 =
            estimate_llm(&inference(preset("glm-4-9b"), Precision::Bf16, 8192, 1, 1)).unwrap();
        let glm4 =
            estimate_llm(&inference(preset("glm-4-9b"), Precision::Bf16, 8192, 1, 4)).unwrap();
        assert!((glm4.breakdown.kv_cache_gib * 2.0 - glm1.breakdown.kv_cache_gib).abs() < 1e-9);
    }

    #[test]
    fn full_fine_tune_follows_the_zero_paper_accounting() {
        let arch = preset("llama-2-7b");
        let psi = arch.parameters().total;
        let full = estimate_llm(&training(
            arch.clone(),
            Precision::Bf16,
            TrainingMethod::Full,
        ))
        .unwrap();
        let b = full.breakdown;
        assert!((b.weights_gib - 2.0 * psi / GIB).abs() < 1e-9);
        assert!((b.gradients_gib - 2.0 * psi / GIB).abs() < 1e-9);
        assert!((b.optimizer_gib - 12.0 * psi / GIB).abs() < 1e-9);
        assert_eq!(b.kv_cache_gib, 0.0);
        assert_eq!(full.trainable_parameters, psi);
        assert_eq!(full.kind, TaskKind::FineTuneFull);
        // 8-bit Adam: master 4 + moments 2.
        let mut w = training(arch.clone(), Precision::Bf16, TrainingMethod::Full);
        if let LlmTask::Training(t) = &mut w.task {
            t.optimizer = Optimizer::Adamw8bit;
        }
        let b8 = estimate_llm(&w).unwrap().breakdown;
        assert!((b8.optimizer_gib - 6.0 * psi / GIB).abs() < 1e-9);
        // Pure fp32: 4 + 4 + 8.
        let fp32 = estimate_llm(&training(arch, Precision::Fp32, TrainingMethod::Full))
            .unwrap()
            .breakdown;
        assert!(
            (fp32.weights_gib + fp32.gradients_gib + fp32.optimizer_gib - 16.0 * psi / GIB).abs()
                < 1e-6
        );
        assert!(
            fp32.activations_gib > b.activations_gib,
            "fp32 activations are twice as wide"
        );
    }

    #[test]
    fn zero_stages_shard_in_order() {
        let arch = preset("llama-2-7b");
        let psi = arch.parameters().total;
        let mut w = training(arch, Precision::Bf16, TrainingMethod::Full);
        w.gpus = 8;
        let mut states = vec![];
        for stage in ZeroStage::ALL {
            if let LlmTask::Training(t) = &mut w.task {
                t.zero = stage;
            }
            let b = estimate_llm(&w).unwrap().breakdown;
            states.push((
                b.weights_gib,
                b.gradients_gib,
                b.optimizer_gib,
                b.overhead_gib,
            ));
        }
        let g = psi / GIB;
        assert!((states[0].2 - 12.0 * g).abs() < 1e-6);
        assert!(
            (states[1].2 - 12.0 * g / 8.0).abs() < 1e-6 && (states[1].1 - 2.0 * g).abs() < 1e-6
        );
        assert!((states[2].1 - 2.0 * g / 8.0).abs() < 1e-6 && (states[2].0 - 2.0 * g).abs() < 1e-6);
        assert!((states[3].0 - 2.0 * g / 8.0).abs() < 1e-6);
        // The ZeRO-3 gather buffer shows up as overhead.
        assert!(states[3].3 > states[2].3);
    }

    #[test]
    fn checkpointing_saves_activation_memory() {
        let arch = preset("llama-3-8b");
        let method = TrainingMethod::Lora {
            rank: 16,
            targets: LoraTargets::All,
        };
        let on = estimate_llm(&training(arch.clone(), Precision::Nf4, method)).unwrap();
        let mut w = training(arch, Precision::Nf4, method);
        if let LlmTask::Training(t) = &mut w.task {
            t.checkpointing = false;
        }
        let off = estimate_llm(&w).unwrap();
        assert!(off.breakdown.activations_gib > 3.0 * on.breakdown.activations_gib);
        assert_eq!(on.kind, TaskKind::FineTuneQlora);
        assert_eq!(on.breakdown.weights_gib, off.breakdown.weights_gib);
    }

    #[test]
    fn refuses_bad_input_with_the_field_name() {
        let mut w = inference(preset("llama-3-8b"), Precision::Bf16, 0, 1, 1);
        let e = estimate_llm(&w).unwrap_err();
        assert_eq!((e.field(), e.code()), ("context_tokens", "out_of_range"));
        w = inference(preset("llama-3-8b"), Precision::Bf16, 10, 1, 0);
        assert_eq!(estimate_llm(&w).unwrap_err().field(), "gpus");
        let mut arch = preset("llama-3-8b");
        arch.kv_heads = 64;
        assert_eq!(
            estimate_llm(&inference(arch, Precision::Bf16, 1, 1, 1))
                .unwrap_err()
                .field(),
            "kv_heads"
        );
        let e = estimate_llm(&training(
            preset("llama-3-8b"),
            Precision::Nf4,
            TrainingMethod::Full,
        ))
        .unwrap_err();
        assert_eq!((e.field(), e.code()), ("weights", "unsupported"));
        let e = estimate_llm(&training(
            preset("llama-3-8b"),
            Precision::Bf16,
            TrainingMethod::Lora {
                rank: 0,
                targets: LoraTargets::All,
            },
        ))
        .unwrap_err();
        assert_eq!(e.field(), "rank");
        let mut w = inference(preset("llama-3-8b"), Precision::Bf16, 10, 1, 1);
        if let LlmTask::Inference(i) = &mut w.task {
            i.generated_tokens = f64::INFINITY;
        }
        assert_eq!(estimate_llm(&w).unwrap_err().field(), "generated_tokens");
    }

    #[test]
    fn descriptions_name_the_setup() {
        let w = training(
            preset("llama-3-8b"),
            Precision::Nf4,
            TrainingMethod::Lora {
                rank: 16,
                targets: LoraTargets::All,
            },
        );
        assert_eq!(
            w.describe(),
            "llama-3-8b, QLoRA nf4 r16 (all), seq 2048 x 1, checkpointing, adamw, 1 GPU"
        );
    }
}
