//! One replica of an LLM server: how many output tokens per second it gives, its time to first
//! token and time per output token as functions of the batch, and the largest batch that meets
//! the targets.
//!
//! The formulas are the workload estimator's (`workload::throughput`), applied to continuous
//! batching:
//!
//! - **Decode** reads every weight and the batch's KV cache once per step and yields one token
//!   per sequence: a step takes `max(bytes / (bandwidth × MBU), FLOPs / (peak × MFU))`
//!   ([`crate::workload::throughput::DEFAULT_MBU`] 0.7, [`crate::workload::throughput::DEFAULT_MFU_INFERENCE`] 0.5). A
//!   sequence in flight holds on average its prompt and half its output in the cache (paged KV).
//! - **Prefill** is compute-bound: `prompt · (2·Ψ_c + attention)` FLOPs at `peak × MFU`. Under
//!   continuous batching every decode step also prefills the requests that replace finished ones
//!   (`batch / output tokens` of them), so the time per output token is the step plus that share.
//! - **Batch**: capped by the KV cache that fits beside the weights and the engine's own memory
//!   ([`DEFAULT_ENGINE_OVERHEAD_GIB`] per GPU), and by the engine's sequence limit
//!   ([`DEFAULT_MAX_BATCH`]).
//! - **Tensor parallelism** splits weights and cache over `gpus`, each GPU keeping
//!   [`tp_efficiency`] of its speed inside an NVLink domain (TensorRT-LLM, H200, Llama-3.1-70B)
//!   and far less over PCIe alone ([`PCIE_TP_EFFICIENCY`], fitted to TensorRT-LLM's L40S rows).
//! - **FP8** weights run at twice the FP16 peak on GPUs with FP8 tensor cores
//!   ([`FP8_TENSOR_CORE_GPUS`]: Hopper and Ada, whose datasheets give FP8 at 2x FP16).
//! - **Shared offers** scale compute and bandwidth by the card share (`plan::performance::card_share`)
//!   and multiply every P99 latency by the tenancy's request tail
//!   (`Tenancy::latency_p99_factor`).
//!
//! Time to first token, P99: the prefill of a P90 prompt (or one weight read, whichever is
//! longer), after the iteration of the other sequences in flight. Time per output token, P99: the
//! iteration at the batch. Both times the tenancy's tail. The P90 prompt stands in for the P99
//! one, which the traffic does not give; queueing inside an hour is left to the utilisation
//! headroom (`serving::slo::DEFAULT_HEADROOM`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::gpu::{GpuSpec, find_gpu};
use crate::hardware::links::Interconnect;
use crate::numbers::problem::{FieldError, Problem};
use crate::offers::links::interconnect;
use crate::offers::offer::Offer;
use crate::offers::tenancy::Tenancy;
use crate::plan::performance::card_share;
use crate::serving::error::{ServingError, in_range};
use crate::task::document::Bound;
use crate::task::traffic::{Targets, Tokens};
use crate::workload::llm::arch::{KvPrecision, LlmArch, Precision, find_llm_preset};
use crate::workload::throughput::{DEFAULT_MBU, DEFAULT_MFU_INFERENCE};

/// Memory a serving engine keeps on each GPU besides weights and KV cache (CUDA context,
/// activations, CUDA graphs), GiB: 4, an assumption from vLLM on an H100, which keeps 4-4.7 GiB.
pub const DEFAULT_ENGINE_OVERHEAD_GIB: f64 = 4.0;
/// The most sequences an engine batches at once: 512, an assumption (engines cap it: vLLM's
/// `max_num_seqs`, TensorRT-LLM's `max_batch_size`).
pub const DEFAULT_MAX_BATCH: u32 = 512;
/// The most GPUs one replica may span.
pub const MAX_GPUS_PER_REPLICA: u32 = 16;
/// The largest batch cap accepted.
pub const MAX_BATCH_LIMIT: u32 = 65_536;
/// Per-GPU efficiency under tensor parallelism, measured: TensorRT-LLM v0.17 max-load output
/// tokens/s per GPU of Llama-3.1-70B FP8 on H200 at 1000/1000 tokens, over TP 1's (NVIDIA/TensorRT-LLM
/// `docs/source/performance/perf-overview.md` @ 258c754): 0.91, 0.79, 0.58 at 2, 4, 8 GPUs.
pub const TP_EFFICIENCY: [(u32, f64); 4] = [(1, 1.0), (2, 0.91), (4, 0.79), (8, 0.58)];
/// Per-GPU efficiency under tensor parallelism over PCIe alone (no NVLink), fitted: TensorRT-LLM
/// v0.17 max-load output tokens/s of Llama-3.1-70B FP8 on L40S (same source), over what this
/// model gives with the NVLink efficiencies — medians of five workloads 0.41 at TP 4 and 0.30 at
/// TP 8 — times those efficiencies (0.79, 0.58): 0.32 and 0.17. TP 2 is interpolated.
pub const PCIE_TP_EFFICIENCY: [(u32, f64); 3] = [(1, 1.0), (4, 0.32), (8, 0.17)];
/// GPUs (short names of the spec table) with FP8 tensor cores at twice the FP16 rate.
pub const FP8_TENSOR_CORE_GPUS: [&str; 10] = [
    "H100-SXM",
    "H100-PCIe",
    "H800",
    "H20",
    "H200",
    "L40S",
    "L4",
    "RTX4090",
    "RTX4090D",
    "GH200",
];

/// Per-GPU efficiency of a replica over `gpus` GPUs: [`TP_EFFICIENCY`], interpolated in log2 of
/// the GPU count between the measured points and extrapolated past 8 at the 4-to-8 slope (an
/// assumption), never below 0.2.
pub fn tp_efficiency(gpus: u32) -> f64 {
    interpolate(&TP_EFFICIENCY, gpus, 0.2)
}

/// Per-GPU efficiency over `gpus` GPUs joined by NVLink (`nvlink`) or PCIe alone
/// ([`PCIE_TP_EFFICIENCY`], never below 0.05).
pub fn tp_efficiency_on(gpus: u32, nvlink: bool) -> f64 {
    if nvlink {
        tp_efficiency(gpus)
    } else {
        interpolate(&PCIE_TP_EFFICIENCY, gpus, 0.05)
    }
}

/// `points` interpolated in log2 of the GPU count, extrapolated past the last at the slope of
/// the last two (an assumption), never below `floor`.
fn interpolate(points: &[(u32, f64)], gpus: u32, floor: f64) -> f64 {
    let x = f64::from(gpus.max(1)).log2();
    let mut prev = (0.0, 1.0);
    let mut slope = 0.0;
    for (g, e) in points.iter().skip(1) {
        let gx = f64::from(*g).log2();
        if x <= gx {
            let t = (x - prev.0) / (gx - prev.0);
            return prev.1 + t * (e - prev.1);
        }
        slope = (e - prev.1) / (gx - prev.0);
        prev = (gx, *e);
    }
    (prev.1 + slope * (x - prev.0)).max(floor)
}

/// What one replica serves: the model, its precisions, its GPUs and the engine's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplicaSetup {
    /// The model's shape.
    pub model: LlmArch,
    /// How the weights are stored.
    pub weights: Precision,
    /// How the KV cache is stored.
    pub kv_cache: KvPrecision,
    /// GPUs per replica (tensor parallel), 1 to [`MAX_GPUS_PER_REPLICA`].
    pub gpus: u32,
    /// Memory-bandwidth utilisation of decoding, (0, 1].
    pub mbu: f64,
    /// Compute utilisation of prefill and compute-bound decoding, (0, 1].
    pub mfu: f64,
    /// Engine memory per GPU besides weights and KV cache, GiB.
    pub engine_overhead_gib: f64,
    /// The most sequences batched at once.
    pub max_batch: u32,
}

impl ReplicaSetup {
    /// `model` with `weights` on `gpus` GPUs, a 16-bit KV cache (8-bit with FP8 weights) and the
    /// default engine figures.
    pub fn new(model: &LlmArch, weights: Precision, gpus: u32) -> ReplicaSetup {
        ReplicaSetup {
            model: model.clone(),
            weights,
            kv_cache: if weights == Precision::Fp8 {
                KvPrecision::Fp8
            } else {
                KvPrecision::Fp16
            },
            gpus,
            mbu: DEFAULT_MBU,
            mfu: DEFAULT_MFU_INFERENCE,
            engine_overhead_gib: DEFAULT_ENGINE_OVERHEAD_GIB,
            max_batch: DEFAULT_MAX_BATCH,
        }
    }

    /// [`ReplicaSetup::new`] for the LLM preset named `id` (`workload::llm::arch`).
    pub fn preset(id: &str, weights: Precision, gpus: u32) -> Result<ReplicaSetup, ServingError> {
        let setup = ReplicaSetup::new(find_llm_preset(id)?, weights, gpus);
        setup.validate()?;
        Ok(setup)
    }

    /// Checks every field, naming the one at fault.
    pub fn validate(&self) -> Result<(), ServingError> {
        self.model.validate()?;
        let range = in_range;
        range(
            "gpus",
            f64::from(self.gpus),
            1.0,
            f64::from(MAX_GPUS_PER_REPLICA),
        )?;
        for (field, v) in [("mbu", self.mbu), ("mfu", self.mfu)] {
            if !(v.is_finite() && v > 0.0 && v <= 1.0) {
                return Err(FieldError::new(field, Problem::AboveZero { max: 1.0 }).into());
            }
        }
        range("engine_overhead_gib", self.engine_overhead_gib, 0.0, 1024.0)?;
        range(
            "max_batch",
            f64::from(self.max_batch),
            1.0,
            f64::from(MAX_BATCH_LIMIT),
        )?;
        Ok(())
    }

    /// Bytes of every weight of the model: linear layers at the weight precision, the rest
    /// (embeddings, norms) at 16 bits (as `workload::throughput` counts them).
    pub fn weight_bytes(&self) -> f64 {
        let p = self.model.parameters();
        p.linear * self.weights.bytes_per_param() + (p.total - p.linear) * self.weights.wide_bytes()
    }
}

/// The GPU a replica runs on, and what sharing does to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReplicaHardware {
    /// The GPU's short name (spec table).
    pub gpu: String,
    /// Memory visible per GPU or slice, GiB.
    pub vram_gib: f64,
    /// A whole card's memory bandwidth, GB/s.
    pub mem_bw_gbs: f64,
    /// A whole card's dense FP16 tensor TFLOPS.
    pub fp16_tflops: f64,
    /// Whether the card has FP8 tensor cores at twice the FP16 rate.
    pub fp8_tensor_cores: bool,
    /// Share of the card's compute a replica's GPU gets, (0, 1].
    pub compute_share: f64,
    /// Share of the card's memory bandwidth, (0, 1].
    pub bandwidth_share: f64,
    /// How sharing multiplies P99 request latency (1 on a card of one's own).
    pub latency_p99_factor: f64,
    /// How the card is shared.
    pub tenancy: Tenancy,
    /// Whether the replica's GPUs share an NVLink domain (tensor parallelism over PCIe alone
    /// keeps far less of each GPU: [`PCIE_TP_EFFICIENCY`]).
    pub nvlink: bool,
}

impl ReplicaHardware {
    /// A whole card of `gpu` to oneself, its memory as NVML reports it.
    pub fn of_gpu(gpu: &GpuSpec) -> ReplicaHardware {
        ReplicaHardware {
            gpu: gpu.short.clone(),
            vram_gib: gpu.nvml_total_mib as f64 / 1024.0,
            mem_bw_gbs: gpu.mem_bw_gbs,
            fp16_tflops: gpu.fp16_tflops,
            fp8_tensor_cores: FP8_TENSOR_CORE_GPUS.contains(&gpu.short.as_str()),
            compute_share: 1.0,
            bandwidth_share: 1.0,
            latency_p99_factor: 1.0,
            tenancy: Tenancy::Dedicated,
            nvlink: gpu.nvlink,
        }
    }

    /// The GPU of `offer`: its visible memory, its card share (a MIG profile's SMs and memory
    /// slices, or its `gpu_fraction`) and its tenancy's request tail.
    pub fn of_offer(offer: &Offer) -> Result<ReplicaHardware, ServingError> {
        let gpu = find_gpu(&offer.gpu).ok_or_else(|| {
            FieldError::new(
                "gpu",
                Problem::UnknownGpu {
                    name: offer.gpu.clone(),
                },
            )
        })?;
        let mut hw = ReplicaHardware::of_gpu(gpu);
        if offer.vram_gib.is_finite() && offer.vram_gib > 0.0 {
            hw.vram_gib = offer.vram_gib;
        }
        hw.compute_share = card_share(offer, Bound::Compute);
        hw.bandwidth_share = card_share(offer, Bound::Memory);
        hw.latency_p99_factor = offer.tenancy.latency_p99_factor().p99;
        hw.tenancy = offer.tenancy;
        hw.nvlink = interconnect(offer) == Interconnect::Nvlink;
        hw.validate()?;
        Ok(hw)
    }

    /// Checks every figure, naming the one at fault.
    pub fn validate(&self) -> Result<(), ServingError> {
        for (field, v, max) in [
            ("vram_gib", self.vram_gib, 100_000.0),
            ("mem_bw_gbs", self.mem_bw_gbs, 1_000_000.0),
            ("fp16_tflops", self.fp16_tflops, 1_000_000.0),
            ("compute_share", self.compute_share, 1.0),
            ("bandwidth_share", self.bandwidth_share, 1.0),
        ] {
            if !(v.is_finite() && v > 0.0 && v <= max) {
                return Err(FieldError::new(field, Problem::AboveZero { max }).into());
            }
        }
        let f = self.latency_p99_factor;
        if !(f.is_finite() && (1.0..=1000.0).contains(&f)) {
            return Err(FieldError::new(
                "latency_p99_factor",
                Problem::OutOfRange {
                    min: 1.0,
                    max: 1000.0,
                },
            )
            .into());
        }
        Ok(())
    }
}

/// A replica's figures at one batch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchPoint {
    /// Sequences in flight.
    pub batch: u32,
    /// Output tokens per second of the replica.
    pub output_tokens_per_second: f64,
    /// Requests per second the replica completes (output tokens over the mean output).
    pub requests_per_second: f64,
    /// Time to first token, P99, ms.
    pub ttft_p99_ms: f64,
    /// Time per output token, P99, ms.
    pub tpot_p99_ms: f64,
}

/// A replica of a setup on some hardware for some request sizes, its derived figures worked out.
#[derive(Debug, Clone, PartialEq)]
pub struct Replica {
    setup: ReplicaSetup,
    hardware: ReplicaHardware,
    prompt: Tokens,
    output: Tokens,
    weight_bytes: f64,
    /// KV bytes of an average sequence in flight (prompt + half the output).
    kv_in_flight: f64,
    max_batch: u32,
    /// Effective bytes/s of the whole replica.
    bandwidth: f64,
    /// Effective FLOP/s of the whole replica.
    flops: f64,
}

impl Replica {
    /// Works out a replica; refuses bad figures (naming the field) and a model whose weights and
    /// engine leave no room for one sequence's KV cache (a P90 prompt and a P90 output).
    pub fn new(
        setup: &ReplicaSetup,
        hardware: &ReplicaHardware,
        prompt: Tokens,
        output: Tokens,
    ) -> Result<Replica, ServingError> {
        setup.validate()?;
        hardware.validate()?;
        for (name, t) in [("prompt_tokens", prompt), ("output_tokens", output)] {
            for (part, v) in [("mean", t.mean), ("p90", t.p90)] {
                if !(v.is_finite() && (1.0..=crate::task::traffic::MAX_TOKENS).contains(&v)) {
                    return Err(FieldError::new(
                        &format!("{name}.{part}"),
                        Problem::OutOfRange {
                            min: 1.0,
                            max: crate::task::traffic::MAX_TOKENS,
                        },
                    )
                    .into());
                }
            }
        }
        let gpus = f64::from(setup.gpus);
        let gib = 1024.0_f64.powi(3);
        let weight_bytes = setup.weight_bytes();
        // MLA's latent is kept whole on every GPU; grouped-query heads are split.
        let kv_copies = if setup.model.mla.is_some() { gpus } else { 1.0 };
        let kv = |context: f64| setup.model.kv_cache_bytes(context, setup.kv_cache) * kv_copies;
        let kv_in_flight = kv(prompt.mean + output.mean / 2.0);
        let kv_longest = kv(prompt.p90 + output.p90);
        let overhead = setup.engine_overhead_gib * gib * gpus;
        let budget = hardware.vram_gib * gib * gpus - weight_bytes - overhead;
        if !(budget >= kv_longest && kv_in_flight > 0.0) {
            return Err(ServingError::DoesNotFit {
                model: setup.model.name.clone(),
                gpu: hardware.gpu.clone(),
                gpus: setup.gpus,
                weights_gib: weight_bytes / gib,
                overhead_gib: overhead / gib,
                kv_gib: budget / gib,
                needed_gib: kv_longest / gib,
            });
        }
        let fitting = libm::floor(budget / kv_in_flight).clamp(1.0, f64::from(MAX_BATCH_LIMIT));
        let max_batch = setup.max_batch.min(fitting as u32).max(1);
        let scale = gpus * tp_efficiency_on(setup.gpus, hardware.nvlink);
        let fp8 = if setup.weights == Precision::Fp8 && hardware.fp8_tensor_cores {
            2.0
        } else {
            1.0
        };
        Ok(Replica {
            setup: setup.clone(),
            hardware: hardware.clone(),
            prompt,
            output,
            weight_bytes,
            kv_in_flight,
            max_batch,
            bandwidth: hardware.mem_bw_gbs * 1e9 * setup.mbu * hardware.bandwidth_share * scale,
            flops: hardware.fp16_tflops * 1e12 * fp8 * setup.mfu * hardware.compute_share * scale,
        })
    }

    /// The setup.
    pub fn setup(&self) -> &ReplicaSetup {
        &self.setup
    }

    /// The hardware.
    pub fn hardware(&self) -> &ReplicaHardware {
        &self.hardware
    }

    /// The largest batch: the KV cache that fits, capped by the engine's limit.
    pub fn max_batch(&self) -> u32 {
        self.max_batch
    }

    /// Bytes of the replica's weights.
    pub fn weight_bytes(&self) -> f64 {
        self.weight_bytes
    }

    /// KV cache bytes of an average sequence in flight.
    pub fn kv_bytes_in_flight(&self) -> f64 {
        self.kv_in_flight
    }

    fn batch_f(&self, batch: u32) -> f64 {
        f64::from(batch.clamp(1, self.max_batch))
    }

    /// Seconds of one decode step of `batch` sequences (at least 1, at most the largest batch):
    /// bytes read over bandwidth, or FLOPs over compute, whichever is longer.
    pub fn decode_step_seconds(&self, batch: u32) -> f64 {
        let b = self.batch_f(batch);
        let arch = &self.setup.model;
        let p = arch.parameters();
        let expert_bytes = p.routed_experts * self.setup.weights.bytes_per_param();
        let weights_read =
            self.weight_bytes - expert_bytes + expert_bytes * arch.experts_touched(b);
        let memory = (weights_read + b * self.kv_in_flight) / self.bandwidth;
        let context = self.prompt.mean + self.output.mean / 2.0;
        let compute = b * (2.0 * p.compute + arch.attention_flops_per_token(context)) / self.flops;
        memory.max(compute)
    }

    /// Seconds of compute to prefill a prompt of `tokens`.
    pub fn prefill_seconds(&self, tokens: f64) -> f64 {
        let arch = &self.setup.model;
        let p = arch.parameters();
        tokens * (2.0 * p.compute + arch.attention_flops_per_token(tokens / 2.0)) / self.flops
    }

    /// Seconds of one iteration at `batch`: the decode step plus the prefill of the requests that
    /// replace the finished ones (`batch / mean output` mean prompts); each sequence gets one
    /// token per iteration. 0 for an empty batch.
    pub fn iteration_seconds(&self, batch: u32) -> f64 {
        if batch == 0 {
            return 0.0;
        }
        let b = self.batch_f(batch);
        self.decode_step_seconds(batch)
            + b / self.output.mean * self.prefill_seconds(self.prompt.mean)
    }

    /// Output tokens per second at `batch`.
    pub fn output_tokens_per_second(&self, batch: u32) -> f64 {
        let t = self.iteration_seconds(batch.max(1));
        if t > 0.0 {
            self.batch_f(batch) / t
        } else {
            0.0
        }
    }

    /// Time to first token at `batch`, P99, ms: a P90 prompt's prefill (at least one read of the
    /// weights) after the iteration of the other sequences, times the tenancy's tail.
    pub fn ttft_p99_ms(&self, batch: u32) -> f64 {
        let b = batch.clamp(1, self.max_batch);
        let own = self
            .prefill_seconds(self.prompt.p90)
            .max(self.weight_bytes / self.bandwidth);
        (own + self.iteration_seconds(b - 1)) * 1000.0 * self.hardware.latency_p99_factor
    }

    /// Time to first token of a lone request of `prompt_tokens` (no tail, no batch), ms.
    pub fn ttft_alone_ms(&self, prompt_tokens: f64) -> f64 {
        self.prefill_seconds(prompt_tokens.max(1.0))
            .max(self.weight_bytes / self.bandwidth)
            * 1000.0
    }

    /// Time per output token at `batch`, P99, ms: the iteration times the tenancy's tail.
    pub fn tpot_p99_ms(&self, batch: u32) -> f64 {
        self.iteration_seconds(batch.clamp(1, self.max_batch))
            * 1000.0
            * self.hardware.latency_p99_factor
    }

    /// Every figure at `batch` (clamped to 1..=the largest batch).
    pub fn at(&self, batch: u32) -> BatchPoint {
        let b = batch.clamp(1, self.max_batch);
        let tokens = self.output_tokens_per_second(b);
        BatchPoint {
            batch: b,
            output_tokens_per_second: tokens,
            requests_per_second: tokens / self.output.mean,
            ttft_p99_ms: self.ttft_p99_ms(b),
            tpot_p99_ms: self.tpot_p99_ms(b),
        }
    }

    /// The figures at the largest batch: the max-load throughput.
    pub fn max_load(&self) -> BatchPoint {
        self.at(self.max_batch)
    }

    /// Seconds a lone request takes from arrival to its last token (no tail).
    pub fn request_seconds_alone(&self) -> f64 {
        self.ttft_alone_ms(self.prompt.mean) / 1000.0
            + (self.output.mean - 1.0).max(0.0) * self.iteration_seconds(1)
    }

    /// The largest batch whose P99 latencies meet `targets`, with its figures; none when even a
    /// lone request misses them. Both latencies grow with the batch, so this is a bisection.
    pub fn capacity(&self, targets: &Targets) -> Option<BatchPoint> {
        let meets = |b: u32| {
            let p = self.at(b);
            p.ttft_p99_ms <= targets.ttft_p99_ms && p.tpot_p99_ms <= targets.tpot_p99_ms
        };
        if !meets(1) {
            return None;
        }
        let (mut ok, mut bad) = (1u32, self.max_batch.saturating_add(1));
        while bad - ok > 1 {
            let mid = ok + (bad - ok) / 2;
            if meets(mid) {
                ok = mid;
            } else {
                bad = mid;
            }
        }
        Some(self.at(ok))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::traffic::DEFAULT_TARGETS;

    fn replica(model: &str, gpu: &str, weights: Precision, gpus: u32) -> Replica {
        let setup = ReplicaSetup::preset(model, weights, gpus).unwrap();
        let hw = ReplicaHardware::of_gpu(find_gpu(gpu).unwrap());
        let t = Tokens {
            mean: 1000.0,
            p90: 2000.0,
        };
        let o = Tokens {
            mean: 200.0,
            p90: 400.0,
        };
        Replica::new(&setup, &hw, t, o).unwrap()
    }

    #[test]
    fn latencies_grow_and_throughput_rises_with_the_batch() {
        let r = replica("llama-3.1-8b", "H100-SXM", Precision::Bf16, 1);
        let mut last = r.at(1);
        for b in [2, 8, 32, 128, r.max_batch()] {
            let p = r.at(b);
            assert!(p.output_tokens_per_second > last.output_tokens_per_second);
            assert!(p.ttft_p99_ms >= last.ttft_p99_ms && p.tpot_p99_ms >= last.tpot_p99_ms);
            last = p;
        }
        let c = r.capacity(&DEFAULT_TARGETS).unwrap();
        assert!(c.tpot_p99_ms <= 100.0 && c.batch >= 1);
        if c.batch < r.max_batch() {
            let next = r.at(c.batch + 1);
            assert!(next.tpot_p99_ms > 100.0 || next.ttft_p99_ms > 2000.0);
        }
    }

    #[test]
    fn tp_efficiency_follows_the_published_points() {
        assert_eq!(tp_efficiency(1), 1.0);
        assert!((tp_efficiency(2) - 0.91).abs() < 1e-12);
        assert!((tp_efficiency(4) - 0.79).abs() < 1e-12);
        assert!((tp_efficiency(8) - 0.58).abs() < 1e-12);
        assert!(tp_efficiency(3) < 0.91 && tp_efficiency(3) > 0.79);
        assert!(tp_efficiency(16) >= 0.2 && tp_efficiency(16) < 0.58);
    }

    #[test]
    fn a_model_too_large_is_refused_and_a_share_slows_it() {
        let setup = ReplicaSetup::preset("llama-3.1-70b", Precision::Bf16, 1).unwrap();
        let hw = ReplicaHardware::of_gpu(find_gpu("H100-SXM").unwrap());
        let t = Tokens {
            mean: 100.0,
            p90: 100.0,
        };
        let e = Replica::new(&setup, &hw, t, t).unwrap_err();
        assert_eq!(e.code(), "does_not_fit");
        let whole = replica("llama-3.1-8b", "H100-SXM", Precision::Bf16, 1);
        let mut half = whole.hardware().clone();
        half.compute_share = 0.5;
        half.bandwidth_share = 0.5;
        half.latency_p99_factor = 2.5;
        let shared = Replica::new(whole.setup(), &half, whole.prompt, whole.output).unwrap();
        assert!(shared.at(8).output_tokens_per_second < whole.at(8).output_tokens_per_second);
        assert!(shared.at(8).tpot_p99_ms > 4.0 * whole.at(8).tpot_p99_ms);
        let mut bad = ReplicaSetup::preset("llama-3.1-8b", Precision::Bf16, 1).unwrap();
        bad.mbu = 0.0;
        assert_eq!(bad.validate().unwrap_err().field(), Some("mbu"));
        bad.mbu = 0.7;
        bad.gpus = 0;
        assert_eq!(bad.validate().unwrap_err().field(), Some("gpus"));
    }
}
