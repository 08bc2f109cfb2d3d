//! LLM memory: architecture presets, parameter counts, and VRAM for inference and training.
//!
//! Sources (each listed in `docs/sources.md` §5.1):
//! - parameters of a Llama-style decoder (SwiGLU MLP, untied or tied embeddings, optional q/k/v
//!   bias): `L·(h·q + 2·h·kv + q·h + 3·h·ffn + 2h [+ q + 2kv]) + h + V·h·(1 or 2)` with
//!   q = heads·head_dim and kv = kv_heads·head_dim — the count the presets are checked against
//!   (each within 2 % of its published size, `tests/workload_published.rs`);
//! - mixture of experts (Mixtral, Qwen3-MoE, DeepSeek-V3, GLM-4.5): a layer with experts holds
//!   `(E + S)·3·h·e` expert weights (E routed and S shared experts of intermediate size e) and an
//!   `h·E` router instead of the dense MLP; the first `dense_layers` layers keep a dense MLP.
//!   Every expert is resident in memory; a token goes through `k` routed experts, so the
//!   *active* parameters are the total less `(E − k)·3·h·e` per layer with experts, and compute
//!   and decode bandwidth follow the active ones;
//! - multi-head latent attention (DeepSeek-V2 paper, arXiv:2405.04434 §2.1, and DeepSeek-V3's
//!   `config.json`): projections `h·q_r + q_r·H·(d_nope + d_rope)` for queries,
//!   `h·(c_kv + d_rope) + c_kv·H·(d_nope + d_v)` for keys and values, `H·d_v·h` out;
//! - bytes per weight: fp32 4, bf16/fp16 2, fp8/int8 1, int4 (GPTQ/AWQ, group 128: 4 bits + a
//!   16-bit scale and a 4-bit zero per 128 weights = 4.156 bits) 0.52, NF4 with double
//!   quantization 4.127 bits = 0.516 (QLoRA paper, arXiv:2305.14314 §3). Quantizers leave the
//!   embeddings, the LM head, norms, biases and MoE routers in 16 bits (bitsandbytes behaviour),
//!   so only the decoder's linear layers shrink;
//! - KV cache: `2 · L · kv_heads · head_dim · tokens · bytes` — grouped-query attention counted
//!   with the KV heads, not the query heads (llm-analysis `get_memory_kv_cache_per_layer`). MLA
//!   caches `L · (kv_lora_rank + qk_rope_head_dim) · tokens · bytes` (576 values per layer and
//!   token for DeepSeek-V3), the same on every tensor-parallel GPU. With a sliding window a local
//!   layer keeps `min(context, window)` tokens: `Σ_layers min(context, window_l) · 2 · kv_heads
//!   · head_dim · bytes`, global layers keeping the whole context. Bytes per cached value: fp16
//!   2, fp8 1, int4 0.5625 (llama.cpp `q4_0` blocks);
//! - expert parallelism puts `⌈E / n⌉` whole experts on each of n GPUs; the rest of the model is
//!   split (inference) or sharded by the ZeRO stage (training) as without it;
//! - training state: ZeRO paper accounting (Rajbhandari et al., arXiv:1910.02054 §3.1, Fig. 1):
//!   mixed-precision Adam keeps 16-bit weights (2Ψ) and gradients (2Ψ) plus K = 12 bytes of
//!   optimizer state (fp32 master weights, momentum, variance); 8-bit Adam (bitsandbytes) keeps
//!   1 byte per moment, K = 6 (EleutherAI, *Transformer Math 101*). ZeRO-1/2/3 divide the optimizer,
//!   then the gradients, then the weights by the GPU count (FSDP `SHARD_GRAD_OP` = ZeRO-2,
//!   `FULL_SHARD` = ZeRO-3, accelerate FSDP guide);
//! - LoRA adds `r·(d_in + d_out)` parameters per adapted matrix (Hu et al., arXiv:2106.09685),
//!   trained in fp32: weight 4 + gradient 4 + Adam 8 = 16 bytes each. On a model with experts,
//!   adapting the MLP adapts every expert (PEFT `target_modules` matching `gate_proj`/`up_proj`/
//!   `down_proj` or `w1`/`w2`/`w3` reaches each expert's copy; LLaMA-Factory `lora_target: all`),
//!   never the router;
//! - activations: Korthikanti et al. (arXiv:2205.05198) counted per token and layer, adapted to
//!   FlashAttention-era models (no s² scores, no dropout masks, SwiGLU saves gate, up, their
//!   product and the activation): `2·(4h + 2q + 2kv) + 8·ffn` bytes, about 40·h for Llama-3-8B
//!   (`docs/sources.md` §5.1); a layer with experts saves `8·(k + S)·e` for the experts a token
//!   visits, the `k` dispatched copies of its input and the router logits. With activation
//!   checkpointing each layer keeps only its 16-bit input (2h bytes per token) and one layer at a
//!   time is recomputed.

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
    // The routed experts' part of the frozen weights, and the share of it each GPU holds under
    // expert parallelism (1/n without, when the experts are split like everything else).
    let expert_bytes = p.routed_experts * w.weights.bytes_per_param();
    let expert_share = if w.expert_parallel {
        arch.expert_share(w.gpus)
    } else {
        1.0 / n
    };
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
    if let Some(m) = &arch.moe {
        assumptions.push(assumption(
            "resident_experts",
            m.experts,
            "every routed expert is held in memory; compute and decode reads follow the ones a token visits",
        ));
    }

    let (breakdown, trainable) = match &w.task {
        LlmTask::Inference(i) => {
            // Tensor parallelism splits the weights and the KV heads (a KV head is replicated when
            // there are more GPUs than KV heads: llm-analysis `max(kv_heads / tp, 1)`); an MLA
            // latent is not split by heads, so every GPU keeps all of it.
            let kv_heads_per_gpu = (f64::from(arch.kv_heads) / n).ceil();
            let weights = if w.expert_parallel {
                (base_bytes - expert_bytes) / n + expert_bytes * expert_share
            } else {
                base_bytes / n
            };
            let kv = arch.kv_bytes_per_sequence(
                f64::from(i.context_tokens),
                kv_heads_per_gpu,
                i.kv_cache,
            ) * f64::from(i.concurrency);
            let tokens = f64::from(i.context_tokens) * f64::from(i.concurrency);
            // One layer's working set on a prefill chunk: the larger of the attention block
            // (input, normed input, q, k, v, output) and the MLP block (input, gate, up, product).
            let chunk = tokens.min(PREFILL_CHUNK_TOKENS);
            // The next-token logits of every sequence in fp32.
            let logits = f64::from(i.concurrency) * f64::from(arch.vocab) * 4.0;
            let activations = chunk * (wide * arch.working_set_per_token(n)) + logits;
            assumptions.push(assumption(
                "prefill_chunk_tokens",
                PREFILL_CHUNK_TOKENS,
                "prompt tokens per forward step (chunked prefill, vLLM max_num_batched_tokens); assumption",
            ));
            (
                Breakdown::from_bytes(weights, 0.0, 0.0, activations, kv, context + dequant_bytes),
                0.0,
            )
        }
        LlmTask::Training(t) => {
            // Each state as (the part on the routed experts, the rest).
            let (weights, grads, optimizer, trainable) = match t.method {
                TrainingMethod::Full => {
                    // Pure fp32: weights 4, gradients 4, moments. Mixed precision (ZeRO paper):
                    // 2Ψ + 2Ψ + KΨ, K = fp32 master 4 + moments.
                    let (wb, gb, ob) = if w.weights == Precision::Fp32 {
                        (4.0, 4.0, t.optimizer.moment_bytes())
                    } else {
                        (2.0, 2.0, 4.0 + t.optimizer.moment_bytes())
                    };
                    let split = |bytes: f64| {
                        let experts = bytes * p.routed_experts;
                        (experts, bytes * p.total - experts)
                    };
                    (split(wb), split(gb), split(ob), p.total)
                }
                TrainingMethod::Lora { rank, targets } => {
                    let (lora_rest, lora_experts) = arch.lora_parameters_split(rank, targets);
                    let moments = t.optimizer.moment_bytes();
                    // fp32 adapters: weight 4, gradient 4, moments.
                    (
                        (
                            expert_bytes + 4.0 * lora_experts,
                            base_bytes - expert_bytes + 4.0 * lora_rest,
                        ),
                        (4.0 * lora_experts, 4.0 * lora_rest),
                        (moments * lora_experts, moments * lora_rest),
                        lora_rest + lora_experts,
                    )
                }
            };
            let stage = t.zero.number();
            // Without expert parallelism the experts' state is sharded like the rest; with it,
            // each GPU keeps the whole state of its own experts.
            let shard = |(experts, rest): (f64, f64), from_stage: u32| {
                if w.expert_parallel {
                    let rest = if stage >= from_stage { rest / n } else { rest };
                    experts * expert_share + rest
                } else {
                    let all = experts + rest;
                    if stage >= from_stage { all / n } else { all }
                }
            };
            let (weights_gpu, grads_gpu, optimizer_gpu) =
                (shard(weights, 3), shard(grads, 2), shard(optimizer, 1));
            let weights_all = weights.0 + weights.1;
            // ZeRO-3 gathers the full parameters (and gradients) of the current and next module
            // before use: DeepSpeed's estimator counts 4 bytes x largest layer. The buffer never
            // exceeds what sharding removed from this GPU, so sharding never costs memory.
            let gather = if stage >= 3 {
                let bytes_per_param = weights_all / p.total;
                (2.0 * bytes_per_param * arch.largest_layer()).min(weights_all - weights_gpu)
            } else {
                0.0
            };
            let tokens = f64::from(t.sequence_tokens) * f64::from(t.micro_batch);
            let act_scale = wide / 2.0;
            let layers = f64::from(arch.layers);
            let (largest, all_layers) = arch.saved_bytes_per_token();
            let saved = if t.checkpointing {
                tokens * (2.0 * f64::from(arch.hidden) * act_scale * layers + largest * act_scale)
            } else {
                tokens * (all_layers * act_scale)
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
        active_parameters: p.active,
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
            expert_parallel: false,
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
            expert_parallel: false,
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
        assert_eq!(rows, 22);
        for p in llm_presets() {
            p.validate().unwrap_or_else(|e| panic!("{}: {e}", p.name));
        }
        // The first twelve presets (Llama-2/3, Mistral, Qwen2.5, DeepSeek-LLM, GLM-4) have
        // head_dim x heads = hidden; Qwen3, Gemma 3 and GLM-4.5 give a wider head_dim.
        for p in &llm_presets()[..12] {
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
    fn experts_are_all_resident_and_only_the_visited_ones_are_active() {
        let arch = preset("mixtral-8x7b");
        let p = arch.parameters();
        // 32 layers x 8 experts x 3 x 4096 x 14336 in the experts; 2 of 8 visited per token.
        let expert = 3.0 * 4096.0 * 14336.0;
        assert_eq!(p.routed_experts, 32.0 * 8.0 * expert);
        assert_eq!(p.total - p.active, 32.0 * 6.0 * expert);
        let m = estimate_llm(&inference(arch, Precision::Bf16, 1, 1, 1)).unwrap();
        assert!((m.breakdown.weights_gib - 2.0 * p.total / GIB).abs() < 1e-9);
        assert_eq!((m.parameters, m.active_parameters), (p.total, p.active));
    }

    #[test]
    fn mla_caches_one_latent_per_layer_on_every_gpu() {
        // DeepSeek-V3: 61 layers x (512 + 64) values x 2 bytes = 70,272 bytes per token.
        let arch = preset("deepseek-v3");
        assert_eq!(arch.kv_cache_bytes_per_token(KvPrecision::Fp16), 70_272.0);
        assert_eq!(arch.kv_cache_bytes_per_token(KvPrecision::Fp8), 35_136.0);
        let one = estimate_llm(&inference(arch.clone(), Precision::Fp8, 32_768, 4, 8)).unwrap();
        let kv = 70_272.0 * 32_768.0 * 4.0 / GIB;
        assert!(
            (one.breakdown.kv_cache_gib - kv).abs() < 1e-9,
            "not split by tensor parallelism"
        );
    }

    #[test]
    fn sliding_windows_and_kv_precision_shrink_the_cache() {
        // Gemma 3 27B at 32K: 10 global layers keep every token, 52 local ones 1024.
        let arch = preset("gemma-3-27b");
        let per_layer_token = 2.0 * 16.0 * 128.0;
        let m = estimate_llm(&inference(arch.clone(), Precision::Bf16, 32_768, 1, 1)).unwrap();
        let expected = (10.0 * 32_768.0 + 52.0 * 1024.0) * per_layer_token * 2.0 / GIB;
        assert!((m.breakdown.kv_cache_gib - expected).abs() < 1e-9);
        // Within the window every layer keeps every token.
        assert_eq!(
            arch.kv_cache_bytes(1000.0, KvPrecision::Fp16),
            62.0 * 1000.0 * per_layer_token * 2.0
        );
        // 4-bit q4_0 blocks: 18 bytes per 32 values.
        assert_eq!(
            arch.kv_cache_bytes(1000.0, KvPrecision::Int4) * 32.0 / 18.0,
            arch.kv_cache_bytes(1000.0, KvPrecision::Fp16) / 2.0
        );
        for kv in KvPrecision::ALL {
            assert_eq!(KvPrecision::from_id(kv.id()), Some(kv));
        }
    }

    #[test]
    fn expert_parallelism_places_whole_experts() {
        let arch = preset("mixtral-8x7b");
        let p = arch.parameters();
        let ep = |gpus: u32| {
            let mut w = inference(arch.clone(), Precision::Bf16, 1, 1, gpus);
            w.expert_parallel = true;
            estimate_llm(&w).unwrap().breakdown.weights_gib
        };
        let experts = 2.0 * p.routed_experts / GIB;
        let rest = 2.0 * p.total / GIB - experts;
        // 8 experts on 3 GPUs: 3 whole experts each, not 8/3.
        assert!((ep(3) - (rest / 3.0 + experts * 3.0 / 8.0)).abs() < 1e-9);
        // On 8 GPUs one expert each, as tensor parallelism would split them.
        let tp = estimate_llm(&inference(arch.clone(), Precision::Bf16, 1, 1, 8)).unwrap();
        assert!((ep(8) - tp.breakdown.weights_gib).abs() < 1e-9);
        // Training: each GPU keeps the whole state of its experts; ZeRO shards the rest.
        let mut w = training(arch.clone(), Precision::Bf16, TrainingMethod::Full);
        w.gpus = 8;
        w.expert_parallel = true;
        let b = estimate_llm(&w).unwrap().breakdown;
        let g = |params: f64| params / GIB;
        let non_expert = g(p.total - p.routed_experts);
        let experts = g(p.routed_experts);
        // DDP keeps the rest whole, the experts one per GPU (weights 2, gradients 2, Adam 12).
        assert!((b.weights_gib - (2.0 * non_expert + 2.0 * experts / 8.0)).abs() < 1e-6);
        assert!((b.optimizer_gib - (12.0 * non_expert + 12.0 * experts / 8.0)).abs() < 1e-6);
        if let LlmTask::Training(t) = &mut w.task {
            t.zero = ZeroStage::Zero3;
        }
        let b3 = estimate_llm(&w).unwrap().breakdown;
        assert!((b3.weights_gib - 2.0 * (non_expert + experts) / 8.0).abs() < 1e-6);
    }

    #[test]
    fn lora_on_experts_adapts_every_expert() {
        let arch = preset("mixtral-8x7b");
        let all = arch.lora_parameters(16, LoraTargets::All);
        let attention = arch.lora_parameters(16, LoraTargets::Attention);
        let mlp = arch.lora_parameters(16, LoraTargets::Mlp);
        assert_eq!(mlp, 16.0 * 32.0 * 8.0 * 3.0 * (4096.0 + 14_336.0));
        assert_eq!(all, attention + mlp);
        // DeepSeek-V3's MLA projections: q_a, q_b, kv_a, kv_b, o.
        let ds = preset("deepseek-v3");
        let per_layer = (7168.0 + 1536.0)
            + (1536.0 + 128.0 * 192.0)
            + (7168.0 + 576.0)
            + (512.0 + 128.0 * 256.0)
            + (128.0 * 128.0 + 7168.0);
        assert_eq!(
            ds.lora_parameters(8, LoraTargets::Attention),
            8.0 * 61.0 * per_layer
        );
        // QLoRA of a mixture of experts: adapters on attention only need far less.
        let qlora = |targets| {
            let method = TrainingMethod::Lora { rank: 16, targets };
            estimate_llm(&training(preset("qwen3-30b-a3b"), Precision::Nf4, method))
                .unwrap()
                .vram_gib
        };
        assert!(qlora(LoraTargets::All) > qlora(LoraTargets::Attention) + 10.0);
    }

    #[test]
    fn new_shape_fields_are_refused_by_name() {
        type Change = fn(&mut LlmArch);
        let cases: [(&str, Change); 6] = [
            ("experts_per_token", |a| {
                if let Some(m) = &mut a.moe {
                    m.experts_per_token = m.experts + 1;
                }
            }),
            ("dense_layers", |a| {
                if let Some(m) = &mut a.moe {
                    m.dense_layers = a.layers + 1;
                }
            }),
            ("experts", |a| {
                if let Some(m) = &mut a.moe {
                    m.experts = 0;
                }
            }),
            ("kv_lora_rank", |a| {
                a.mla = Some(crate::workload::llm::arch::MlaShape {
                    q_lora_rank: 0,
                    kv_lora_rank: 0,
                    qk_nope_head_dim: 128,
                    qk_rope_head_dim: 64,
                    v_head_dim: 128,
                });
            }),
            ("sliding_window", |a| {
                a.sliding_window = Some(crate::workload::llm::arch::SlidingWindow {
                    window: 0,
                    global_every: 2,
                });
            }),
            ("global_every", |a| {
                a.sliding_window = Some(crate::workload::llm::arch::SlidingWindow {
                    window: 10,
                    global_every: a.layers + 1,
                });
            }),
        ];
        for (field, change) in cases {
            let mut arch = preset("glm-4.5-air");
            change(&mut arch);
            let e = estimate_llm(&inference(arch, Precision::Bf16, 10, 1, 1)).unwrap_err();
            assert_eq!((e.field(), e.code()), (field, "out_of_range"));
        }
        let mut w = inference(preset("qwen3-8b"), Precision::Bf16, 10, 1, 2);
        w.expert_parallel = true;
        let e = estimate_llm(&w).unwrap_err();
        assert_eq!((e.field(), e.code()), ("expert_parallel", "unsupported"));
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
