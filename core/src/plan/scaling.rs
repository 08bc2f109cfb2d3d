//! How a training run scales over several GPUs: compute split across them, plus the data they
//! exchange each step over the offer's links, hidden behind the backward pass only as far as the
//! task says.
//!
//! Per optimizer step on `n` GPUs, each GPU computes `C = T / (steps × n)` seconds, where `T` is
//! the run's compute on one GPU of the offer. A replicated (DDP) run then all-reduces the
//! trained parameters' gradients (2 bytes each, BF16): `2(n−1)/n × bytes / busbw` seconds
//! (nccl-tests' bus bandwidth, `hardware::links`). A sharded run (ZeRO-3, FSDP) all-gathers the
//! weights for the forward and the backward pass and reduce-scatters the gradients: each is half
//! an all-reduce, so `AR(weights) + AR(gradients) / 2`. Communication may hide behind the
//! backward pass (two thirds of `C`) up to the share `overlap` the task states (default none, see
//! [`DEFAULT_OVERLAP`]); what is left is exposed and adds to the step. The efficiency against
//! linear scaling is `C / (C + exposed)`.
//!
//! With tensor parallelism over groups of `t` GPUs (Megatron-LM), each layer also all-reduces its
//! activations four times a step inside the group, over its NVLink, none of it hidden; the
//! `n / t` replicas exchange `1/t` of the gradients. `plan::feasibility` refuses an offer whose
//! NVLink domain cannot hold a group.
//!
//! A task without `data_parallel` keeps the fixed `plan::performance::MULTI_GPU_EFFICIENCY`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::links::{BusBandwidth, Link, all_reduce_seconds};
use crate::offers::links::links;
use crate::offers::offer::Offer;
use crate::task::document::DataParallel;

/// Share of the backward pass communication hides behind, unless the task says: none. PyTorch
/// DDP and FSDP launch bucketed collectives while the backward pass still runs, but the one
/// published pair of runs that changes only the link (Hugging Face Transformers'
/// `perf_hardware.md`: GPT-2, DDP on 2× TITAN RTX, 101.9 s with NVLink, 131.4 s with peer-to-peer
/// off) lost more than the whole all-reduce: fitted to it, the share is 0 (the test
/// `published_ddp_runs_fit_the_overlap` in `core/tests/data_parallel.rs` does the fit). A task
/// that measured its own overlap states it.
pub const DEFAULT_OVERLAP: f64 = 0.0;

/// Bytes per exchanged gradient or weight element (BF16).
pub const BYTES_PER_ELEMENT: f64 = 2.0;

/// Share of a training step's compute spent in the backward pass (about twice the forward).
pub const BACKWARD_SHARE: f64 = 2.0 / 3.0;

/// What the GPUs of one offer exchange, and what it costs in time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Communication {
    /// GPUs exchanging data.
    pub gpus: u32,
    /// Nodes they span.
    pub nodes: u32,
    /// The slowest link crossed.
    pub link: Link,
    /// Its all-reduce bus bandwidth, GB/s.
    pub busbw_gb_s: f64,
    /// GPUs in each tensor-parallel group (1: data parallel only).
    #[serde(
        default = "crate::numbers::serde_default::one",
        skip_serializing_if = "crate::numbers::serde_default::is_one"
    )]
    pub tensor_parallel: u32,
    /// The link inside a tensor-parallel group and its bus bandwidth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tensor_link: Option<BusBandwidth>,
    /// Seconds of tensor-parallel all-reduces per step (all exposed; part of `comm_s_per_step`).
    #[serde(
        default,
        skip_serializing_if = "crate::numbers::serde_default::is_zero"
    )]
    pub tensor_s_per_step: f64,
    /// Seconds of compute per step on each GPU.
    pub compute_s_per_step: f64,
    /// Seconds of communication per step.
    pub comm_s_per_step: f64,
    /// Of which not hidden behind the backward pass.
    pub exposed_s_per_step: f64,
    /// Wall-clock hours of one run spent computing (steps x compute per step, before any
    /// slowdown of the offer).
    pub compute_hours: f64,
    /// Wall-clock hours of one run spent waiting on communication (steps x exposed per step).
    pub communication_hours: f64,
    /// Share of each step's wall time spent waiting on communication, 0-1.
    pub share: f64,
    /// Share of linear speed-up kept, 0-1.
    pub efficiency: f64,
}

/// The communication of `dp` over `gpus` GPUs of `offer`, given `single_gpu_hours`, the run's
/// compute on one of the offer's GPUs; `None` for one GPU or an unknown card.
pub fn communication(
    dp: &DataParallel,
    offer: &Offer,
    gpus: u32,
    single_gpu_hours: f64,
) -> Option<Communication> {
    let l = links(offer, gpus)?;
    let bw = l.bottleneck();
    let steps = dp.steps.max(1) as f64;
    let compute = (single_gpu_hours * 3600.0 / (steps * f64::from(gpus))).max(0.0);
    // Tensor parallelism: each group of `tp` GPUs holds 1/tp of every layer, so the data-parallel
    // exchange is 1/tp of the bytes among the gpus/tp replicas.
    let tp = dp.tensor_parallel().clamp(1, gpus);
    let replicas = (gpus / tp).max(1);
    let trained =
        dp.trainable_params_b.unwrap_or(dp.params_b) * 1e9 * BYTES_PER_ELEMENT / f64::from(tp);
    let weights = dp.params_b * 1e9 * BYTES_PER_ELEMENT / f64::from(tp);
    let data = if dp.sharded {
        all_reduce_seconds(weights, replicas, bw.gb_s)
            + all_reduce_seconds(trained, replicas, bw.gb_s) / 2.0
    } else {
        all_reduce_seconds(trained, replicas, bw.gb_s)
    };
    let tensor = tensor_parallel_seconds(dp, offer, tp, replicas);
    // The tensor-parallel all-reduces sit between a layer's matrix products: nothing hides them.
    let exposed =
        exposed_seconds(data, compute, dp.overlap.unwrap_or(DEFAULT_OVERLAP)) + tensor.seconds;
    let comm = data + tensor.seconds;
    let step = compute + exposed;
    let (share, efficiency) = if step > 0.0 && step.is_finite() {
        (exposed / step, compute / step)
    } else {
        (0.0, 1.0)
    };
    Some(Communication {
        gpus,
        nodes: l.nodes,
        link: bw.link,
        busbw_gb_s: bw.gb_s,
        tensor_parallel: tp,
        tensor_link: tensor.link,
        tensor_s_per_step: tensor.seconds,
        compute_s_per_step: compute,
        comm_s_per_step: comm,
        exposed_s_per_step: exposed,
        compute_hours: compute * steps / 3600.0,
        communication_hours: exposed * steps / 3600.0,
        share,
        efficiency: efficiency.clamp(0.0, 1.0),
    })
}

/// The tensor-parallel exchange of one optimizer step.
struct TensorExchange {
    seconds: f64,
    link: Option<BusBandwidth>,
}

/// Megatron-LM's tensor parallelism (Shoeybi et al. 2019, "Megatron-LM", section 3; Narayanan
/// et al. 2021, SC21, section 3.3): every transformer layer all-reduces its activations twice in
/// the forward pass and twice in the backward pass, each `tokens x hidden` BF16 values of the
/// tokens its replica processes in the step, among the `tp` GPUs of its group, inside one node.
fn tensor_parallel_seconds(
    dp: &DataParallel,
    offer: &Offer,
    tp: u32,
    replicas: u32,
) -> TensorExchange {
    let (Some(hidden), Some(layers), Some(tokens)) = (dp.hidden, dp.layers, dp.tokens_per_step)
    else {
        return TensorExchange {
            seconds: 0.0,
            link: None,
        };
    };
    let Some(group) = links(offer, tp) else {
        return TensorExchange {
            seconds: 0.0,
            link: None,
        };
    };
    let bw = group.bottleneck();
    let bytes = tokens / f64::from(replicas) * f64::from(hidden) * BYTES_PER_ELEMENT;
    TensorExchange {
        seconds: ALL_REDUCES_PER_LAYER * f64::from(layers) * all_reduce_seconds(bytes, tp, bw.gb_s),
        link: Some(bw),
    }
}

/// All-reduces of a layer's activations per training step under tensor parallelism: two forward
/// (after the attention and after the MLP), two backward.
pub const ALL_REDUCES_PER_LAYER: f64 = 4.0;

/// Seconds of `comm_s` a step waits for, when up to `overlap` of the backward pass of a step
/// computing `compute_s` hides it.
pub fn exposed_seconds(comm_s: f64, compute_s: f64, overlap: f64) -> f64 {
    let hidden = comm_s.min(overlap.clamp(0.0, 1.0) * BACKWARD_SHARE * compute_s.max(0.0));
    (comm_s - hidden).max(0.0)
}
