//! Monotonicity of the workload estimator, checked with proptest: more context, batch, resolution
//! or LoRA rank never needs less memory; a longer sliding window, more experts per token or a
//! wider KV cache precision never need less; more ZeRO sharding (stage or GPU count), more
//! tensor-parallel GPUs or more expert-parallel GPUs never need more per GPU; a larger need never
//! fits an offer better; and any shape, in range or not, is estimated with finite figures or
//! refused naming a field, never a panic.
#![cfg(not(target_arch = "wasm32"))]

use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::feasibility::VramFit;
use gpufare_core::plan::feasibility::vram_fit;
use gpufare_core::workload::diffusion::{
    DiffusionModel, DiffusionTask, DiffusionWorkload, Generation, SdLoraTraining,
};
use gpufare_core::workload::estimate::{Workload, estimate};
use gpufare_core::workload::fit::fit_catalog;
use gpufare_core::workload::llm::arch::{
    KvPrecision, LlmArch, LoraTargets, MlaShape, MoeShape, Precision, SlidingWindow, llm_presets,
};
use gpufare_core::workload::llm::setup::{
    LlmInference, LlmTask, LlmTraining, LlmWorkload, Optimizer, TrainingMethod, ZeroStage,
};
use gpufare_core::workload::report::{Gpus, estimate_report};
use proptest::prelude::*;

fn vram(w: &Workload) -> f64 {
    let m = estimate(w).expect("valid workload");
    let sum: f64 = m.breakdown.components().iter().map(|(_, v)| v).sum();
    assert!(
        (m.vram_gib - sum).abs() < 1e-9,
        "the total is the sum of the breakdown"
    );
    assert!(
        m.breakdown
            .components()
            .iter()
            .all(|(_, v)| v.is_finite() && *v >= 0.0)
    );
    m.vram_gib
}

/// Not-less, with room for float rounding.
fn not_less(larger: f64, smaller: f64) -> bool {
    larger >= smaller * (1.0 - 1e-12)
}

fn preset() -> impl Strategy<Value = usize> {
    0..llm_presets().len()
}

fn inference_precision() -> impl Strategy<Value = Precision> {
    prop::sample::select(Precision::ALL.to_vec())
}

fn kv() -> impl Strategy<Value = KvPrecision> {
    prop::sample::select(KvPrecision::ALL.to_vec())
}

/// The presets with experts, by index.
fn moe_preset() -> impl Strategy<Value = usize> {
    let moe: Vec<usize> = (0..llm_presets().len())
        .filter(|&i| llm_presets()[i].moe.is_some())
        .collect();
    prop::sample::select(moe)
}

fn targets() -> impl Strategy<Value = LoraTargets> {
    prop::sample::select(LoraTargets::ALL.to_vec())
}

fn zero() -> impl Strategy<Value = ZeroStage> {
    prop::sample::select(ZeroStage::ALL.to_vec())
}

fn optimizer() -> impl Strategy<Value = Optimizer> {
    prop::sample::select(vec![Optimizer::Adamw, Optimizer::Adamw8bit])
}

fn inference(
    p: usize,
    weights: Precision,
    context: u32,
    concurrency: u32,
    kv: KvPrecision,
    gpus: u32,
) -> Workload {
    Workload::Llm(LlmWorkload {
        arch: llm_presets()[p].clone(),
        weights,
        gpus,
        expert_parallel: false,
        task: LlmTask::Inference(LlmInference {
            context_tokens: context,
            concurrency,
            kv_cache: kv,
            generated_tokens: 0.0,
            mbu: None,
        }),
    })
}

#[derive(Debug, Clone, Copy)]
struct Train {
    preset: usize,
    lora: Option<(u32, LoraTargets, Precision)>,
    seq: u32,
    batch: u32,
    checkpointing: bool,
    optimizer: Optimizer,
    zero: ZeroStage,
    gpus: u32,
}

fn train_strategy() -> impl Strategy<Value = Train> {
    (
        preset(),
        prop::option::of((1u32..512, targets(), inference_precision())),
        1u32..16_384,
        1u32..64,
        any::<bool>(),
        optimizer(),
        zero(),
        1u32..256,
    )
        .prop_map(
            |(preset, lora, seq, batch, checkpointing, optimizer, zero, gpus)| Train {
                preset,
                lora,
                seq,
                batch,
                checkpointing,
                optimizer,
                zero,
                gpus,
            },
        )
}

fn training(t: Train) -> Workload {
    let (method, weights) = match t.lora {
        Some((rank, targets, weights)) => (TrainingMethod::Lora { rank, targets }, weights),
        None => (TrainingMethod::Full, Precision::Bf16),
    };
    Workload::Llm(LlmWorkload {
        arch: llm_presets()[t.preset].clone(),
        weights,
        gpus: t.gpus,
        expert_parallel: false,
        task: LlmTask::Training(LlmTraining {
            method,
            sequence_tokens: t.seq,
            micro_batch: t.batch,
            checkpointing: t.checkpointing,
            optimizer: t.optimizer,
            zero: t.zero,
            training_tokens: 0.0,
            mfu: None,
        }),
    })
}

/// Any shape at all, in range or not: a preset with up to four fields set to odd values (0, small,
/// large, `u32::MAX`), experts, a latent attention or a sliding window added or changed.
fn odd_arch() -> impl Strategy<Value = LlmArch> {
    let odd =
        prop_oneof![4 => 1u32..5000, 1 => 0u32..2, 1 => 5000u32..20_000_000, 1 => Just(u32::MAX)];
    (preset(), prop::collection::vec((0usize..20, odd), 0..5)).prop_map(|(p, changes)| {
        let mut a = llm_presets()[p].clone();
        let experts = MoeShape {
            experts: 8,
            experts_per_token: 2,
            shared_experts: 0,
            expert_ffn: 64,
            dense_layers: 0,
        };
        let latent = MlaShape {
            q_lora_rank: 0,
            kv_lora_rank: 64,
            qk_nope_head_dim: 32,
            qk_rope_head_dim: 16,
            v_head_dim: 32,
        };
        for (field, v) in changes {
            match field {
                0 => a.layers = v,
                1 => a.hidden = v,
                2 => a.heads = v,
                3 => a.kv_heads = v,
                4 => a.head_dim = v,
                5 => a.ffn = v,
                6 => a.vocab = v,
                7 => a.moe.get_or_insert(experts).experts = v,
                8 => a.moe.get_or_insert(experts).experts_per_token = v,
                9 => a.moe.get_or_insert(experts).shared_experts = v,
                10 => a.moe.get_or_insert(experts).expert_ffn = v,
                11 => a.moe.get_or_insert(experts).dense_layers = v,
                12 => a.mla.get_or_insert(latent).q_lora_rank = v,
                13 => a.mla.get_or_insert(latent).kv_lora_rank = v,
                14 => a.mla.get_or_insert(latent).qk_nope_head_dim = v,
                15 => a.mla.get_or_insert(latent).qk_rope_head_dim = v,
                16 => a.mla.get_or_insert(latent).v_head_dim = v,
                17 => {
                    a.sliding_window = Some(SlidingWindow {
                        window: v,
                        global_every: a.sliding_window.map_or(0, |w| w.global_every),
                    })
                }
                18 => {
                    a.sliding_window = Some(SlidingWindow {
                        window: a.sliding_window.map_or(512, |w| w.window),
                        global_every: v,
                    })
                }
                _ => a.moe = None,
            }
        }
        a
    })
}

/// `w` with its architecture changed by `f`.
fn with_arch(w: Workload, f: impl FnOnce(&mut LlmArch)) -> Workload {
    match w {
        Workload::Llm(mut l) => {
            f(&mut l.arch);
            Workload::Llm(l)
        }
        d @ Workload::Diffusion(_) => d,
    }
}

/// `w` with its experts spread whole over its GPUs.
fn expert_parallel(w: Workload) -> Workload {
    match w {
        Workload::Llm(mut l) => {
            l.expert_parallel = true;
            Workload::Llm(l)
        }
        d @ Workload::Diffusion(_) => d,
    }
}

#[derive(Debug, Clone, Copy)]
struct Image {
    model: DiffusionModel,
    weights: Precision,
    side: u32,
    batch: u32,
    controlnets: u32,
    slicing: bool,
    tiling: bool,
    offload: bool,
}

fn image_strategy() -> impl Strategy<Value = Image> {
    (
        prop::sample::select(DiffusionModel::ALL.to_vec()),
        inference_precision(),
        4u32..256,
        1u32..16,
        0u32..4,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(model, weights, side16, batch, controlnets, slicing, tiling, offload)| Image {
                model,
                weights,
                side: side16 * 16,
                batch,
                controlnets: if model == DiffusionModel::FluxDev {
                    0
                } else {
                    controlnets
                },
                slicing,
                tiling,
                offload,
            },
        )
}

fn image(i: Image) -> Workload {
    Workload::Diffusion(DiffusionWorkload {
        model: i.model,
        weights: i.weights,
        width: i.side,
        height: i.side,
        batch: i.batch,
        task: DiffusionTask::Generate(Generation {
            controlnets: i.controlnets,
            steps: 30,
            images: 0.0,
            vae_slicing: i.slicing,
            vae_tiling: i.tiling,
            cpu_offload: i.offload,
        }),
    })
}

fn sd_lora(i: Image, rank: u32, checkpointing: bool) -> Workload {
    Workload::Diffusion(DiffusionWorkload {
        task: DiffusionTask::LoraTraining(SdLoraTraining {
            rank,
            checkpointing,
            optimizer: Optimizer::Adamw,
            steps: 0.0,
            mfu: None,
        }),
        ..match image(i) {
            Workload::Diffusion(d) => d,
            Workload::Llm(_) => unreachable!(),
        }
    })
}

fn rank(fit: VramFit) -> u8 {
    match fit {
        VramFit::Fits => 0,
        VramFit::Tight => 1,
        VramFit::Oom => 2,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn more_context_or_concurrency_never_needs_less(
        p in preset(),
        weights in inference_precision(),
        kv in kv(),
        context in 1u32..200_000,
        extra_context in 0u32..200_000,
        concurrency in 1u32..64,
        extra_concurrency in 0u32..64,
        gpus in 1u32..16,
    ) {
        let base = vram(&inference(p, weights, context, concurrency, kv, gpus));
        let longer = vram(&inference(p, weights, context + extra_context, concurrency, kv, gpus));
        let wider = vram(&inference(p, weights, context, concurrency + extra_concurrency, kv, gpus));
        prop_assert!(not_less(longer, base), "context {context}+{extra_context}: {longer} < {base}");
        prop_assert!(not_less(wider, base), "concurrency {concurrency}+{extra_concurrency}: {wider} < {base}");
    }

    #[test]
    fn more_tensor_parallel_gpus_never_need_more_per_gpu(
        p in preset(),
        weights in inference_precision(),
        context in 1u32..100_000,
        concurrency in 1u32..32,
        gpus in 1u32..16,
        extra in 1u32..16,
    ) {
        let fewer = vram(&inference(p, weights, context, concurrency, KvPrecision::Fp16, gpus));
        let more = vram(&inference(p, weights, context, concurrency, KvPrecision::Fp16, gpus + extra));
        prop_assert!(not_less(fewer, more), "{gpus} -> {}: {more} > {fewer}", gpus + extra);
    }

    #[test]
    fn longer_sequences_or_bigger_batches_never_need_less(t in train_strategy(), extra_seq in 0u32..8192, extra_batch in 0u32..32) {
        let base = vram(&training(t));
        let longer = vram(&training(Train { seq: t.seq + extra_seq, ..t }));
        let bigger = vram(&training(Train { batch: t.batch + extra_batch, ..t }));
        prop_assert!(not_less(longer, base));
        prop_assert!(not_less(bigger, base));
    }

    #[test]
    fn a_higher_lora_rank_never_needs_less(t in train_strategy(), rank in 1u32..512, extra in 0u32..512, targets in targets(), weights in inference_precision()) {
        let low = vram(&training(Train { lora: Some((rank, targets, weights)), ..t }));
        let high = vram(&training(Train { lora: Some((rank + extra, targets, weights)), ..t }));
        prop_assert!(not_less(high, low), "rank {rank}+{extra}: {high} < {low}");
    }

    #[test]
    fn more_zero_sharding_never_needs_more_per_gpu(t in train_strategy(), extra_gpus in 0u32..256) {
        // A higher stage at the same GPU count.
        for pair in ZeroStage::ALL.windows(2) {
            let lower = vram(&training(Train { zero: pair[0], ..t }));
            let higher = vram(&training(Train { zero: pair[1], ..t }));
            prop_assert!(not_less(lower, higher), "{:?} -> {:?}: {higher} > {lower}", pair[0], pair[1]);
        }
        // More GPUs at the same stage.
        let fewer = vram(&training(t));
        let more = vram(&training(Train { gpus: t.gpus + extra_gpus, ..t }));
        prop_assert!(not_less(fewer, more), "{} -> {} GPUs: {more} > {fewer}", t.gpus, t.gpus + extra_gpus);
    }

    #[test]
    fn checkpointing_never_needs_more(t in train_strategy()) {
        let on = vram(&training(Train { checkpointing: true, ..t }));
        let off = vram(&training(Train { checkpointing: false, ..t }));
        prop_assert!(not_less(off, on));
    }

    #[test]
    fn bigger_images_batches_or_more_controlnets_never_need_less(i in image_strategy(), extra_side in 0u32..64, extra_batch in 0u32..8, extra_cn in 0u32..3) {
        let base = vram(&image(i));
        let bigger = vram(&image(Image { side: i.side + 16 * extra_side, ..i }));
        let more = vram(&image(Image { batch: i.batch + extra_batch, ..i }));
        prop_assert!(not_less(bigger, base));
        prop_assert!(not_less(more, base));
        if i.model != DiffusionModel::FluxDev {
            let controlled = vram(&image(Image { controlnets: i.controlnets + extra_cn, ..i }));
            prop_assert!(not_less(controlled, base));
        }
        // Memory savers never cost memory.
        for saver in [Image { slicing: true, ..i }, Image { tiling: true, ..i }, Image { offload: true, ..i }] {
            prop_assert!(not_less(base, vram(&image(saver))));
        }
    }

    #[test]
    fn sd_lora_rank_and_resolution_never_need_less(i in image_strategy(), rank in 1u32..256, extra in 0u32..256, ckpt in any::<bool>()) {
        let base = vram(&sd_lora(i, rank, ckpt));
        let higher = vram(&sd_lora(i, rank + extra, ckpt));
        let bigger = vram(&sd_lora(Image { side: i.side + 64, ..i }, rank, ckpt));
        prop_assert!(not_less(higher, base));
        prop_assert!(not_less(bigger, base));
    }

    #[test]
    fn a_longer_sliding_window_never_needs_less(
        p in preset(),
        weights in inference_precision(),
        kv in kv(),
        context in 1u32..200_000,
        concurrency in 1u32..16,
        window in 1u32..65_536,
        extra in 0u32..65_536,
        global_every in 0u32..8,
        gpus in 1u32..9,
    ) {
        let windowed = |window: u32| with_arch(inference(p, weights, context, concurrency, kv, gpus), |a| {
            a.sliding_window = Some(SlidingWindow { window, global_every });
        });
        let short = vram(&windowed(window));
        let long = vram(&windowed(window + extra));
        let none = vram(&with_arch(inference(p, weights, context, concurrency, kv, gpus), |a| a.sliding_window = None));
        prop_assert!(not_less(long, short), "window {window}+{extra}: {long} < {short}");
        prop_assert!(not_less(none, long), "no window at all never needs less: {none} < {long}");
    }

    #[test]
    fn more_experts_per_token_never_need_less(
        p in moe_preset(),
        k in 1u32..=256,
        extra in 0u32..=256,
        weights in inference_precision(),
        context in 1u32..100_000,
        concurrency in 1u32..16,
        gpus in 1u32..9,
        t in train_strategy(),
    ) {
        let experts = llm_presets()[p].moe.map_or(1, |m| m.experts);
        let (k, more) = (k.min(experts), (k + extra).min(experts));
        let routed = |w: Workload, k: u32| with_arch(w, |a| {
            if let Some(m) = &mut a.moe { m.experts_per_token = k; }
        });
        let serve = |k| vram(&routed(inference(p, weights, context, concurrency, KvPrecision::Fp16, gpus), k));
        prop_assert!(not_less(serve(more), serve(k)), "serving, k {k} -> {more}");
        let train = |k| vram(&routed(training(Train { preset: p, ..t }), k));
        prop_assert!(not_less(train(more), train(k)), "training, k {k} -> {more}");
    }

    #[test]
    fn a_wider_kv_precision_never_needs_less(
        p in preset(),
        weights in inference_precision(),
        context in 1u32..200_000,
        concurrency in 1u32..32,
        gpus in 1u32..9,
    ) {
        // KvPrecision::ALL runs from the widest to the narrowest.
        let needs: Vec<f64> = KvPrecision::ALL
            .iter()
            .map(|kv| vram(&inference(p, weights, context, concurrency, *kv, gpus)))
            .collect();
        for pair in needs.windows(2) {
            prop_assert!(not_less(pair[0], pair[1]), "{needs:?}");
        }
    }

    #[test]
    fn more_expert_parallel_gpus_never_need_more_per_gpu(
        p in moe_preset(),
        weights in inference_precision(),
        context in 1u32..100_000,
        concurrency in 1u32..16,
        gpus in 1u32..64,
        extra in 1u32..64,
        t in train_strategy(),
    ) {
        let serve = |gpus| vram(&expert_parallel(inference(p, weights, context, concurrency, KvPrecision::Fp16, gpus)));
        prop_assert!(not_less(serve(gpus), serve(gpus + extra)), "serving {gpus} -> {}", gpus + extra);
        let train = |gpus| vram(&expert_parallel(training(Train { preset: p, gpus, ..t })));
        prop_assert!(not_less(train(gpus), train(gpus + extra)), "training {gpus} -> {}", gpus + extra);
        // Spreading whole experts never needs less than splitting each one, GPU count equal.
        let split = vram(&inference(p, weights, context, concurrency, KvPrecision::Fp16, gpus));
        prop_assert!(not_less(serve(gpus), split));
    }

    #[test]
    fn a_larger_need_never_fits_an_offer_better(need in 0.0f64..200.0, extra in 0.0f64..50.0, gpus in 1u32..9) {
        let small = fit_catalog(need, gpus, default_catalog());
        let large = fit_catalog(need + extra, gpus, default_catalog());
        for (a, b) in small.offers.iter().zip(&large.offers) {
            prop_assert!(rank(b.fit) >= rank(a.fit), "{}", a.offer_id);
            prop_assert_eq!(a.fit, vram_fit(need, a.vram_gib));
        }
        prop_assert!(large.fits <= small.fits);
        prop_assert!(large.oom >= small.oom);
    }
}

proptest! {
    // Cheap cases, most of them refused: many more of them.
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn any_shape_is_estimated_or_refused_by_name_never_a_panic(
        arch in odd_arch(),
        weights in inference_precision(),
        kv in kv(),
        context in prop_oneof![8 => 1u32..200_000, 1 => 0u32..2, 1 => 9_000_000u32..=u32::MAX],
        concurrency in prop_oneof![8 => 1u32..64, 1 => 0u32..2, 1 => 90_000u32..200_000],
        gpus in prop_oneof![8 => 1u32..64, 1 => 0u32..2, 1 => 4000u32..5000],
        spread in any::<bool>(),
        t in train_strategy(),
        serve in any::<bool>(),
    ) {
        let w = if serve {
            inference(0, weights, context, concurrency, kv, gpus)
        } else {
            training(Train { gpus, ..t })
        };
        let w = with_arch(w, |a| *a = arch.clone());
        let w = if spread { expert_parallel(w) } else { w };
        match estimate(&w) {
            Ok(m) => {
                prop_assert!(m.vram_gib.is_finite() && m.vram_gib >= 0.0, "{m:?}");
                prop_assert!(m.breakdown.components().iter().all(|(_, v)| v.is_finite() && *v >= 0.0));
                prop_assert!(m.active_parameters <= m.parameters && m.active_parameters > 0.0);
                let r = estimate_report(&w, Gpus::All, default_catalog(), "default");
                let r = r.map_err(|e| TestCaseError::fail(format!("estimated but no report: {e}")))?;
                prop_assert!(r.run_time.iter().all(|t| t.gpu_hours.is_finite() && t.gpu_hours >= 0.0));
                prop_assert!(r.run_time.iter().all(|t| t.tokens_per_second.is_some_and(|v| v.is_finite() && v > 0.0)));
            }
            Err(e) => prop_assert!(!e.field().is_empty() && !e.to_string().is_empty()),
        }
    }
}
