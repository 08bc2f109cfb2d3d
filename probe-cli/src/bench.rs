//! The optional GPU micro-benchmark: pinned host-to-device bandwidth and a timed FP16 GEMM loop
//! (warm-up, then at least 50 timed steps) giving the step-time distribution — the jitter the
//! article talks about — and achieved TFLOPS.
//!
//! CUDA is loaded at run time through `cudarc`; without a driver the benchmark is skipped with a
//! note. cudarc panics when a library is missing, so every call is guarded by its
//! `is_culib_present` check and wrapped in `catch_unwind`. The cudarc behaviour this guards
//! against, with its sources: docs/sources.md §6.4.
//!
//! This is the one module with `unsafe`: cudarc marks library probing, pinned allocation and the
//! raw cuBLAS call unsafe. Each use is commented with why it holds.
#![allow(unsafe_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::CudaContext;
use cudarc::driver::sys::CUevent_flags;
use gpufare_core::profile::benchmark::GpuBenchmark;
use gpufare_core::profile::sampling::Series;
use half::f16;

/// What to run.
#[derive(Debug, Clone, Copy)]
pub struct BenchPlan {
    /// GEMM size (m = n = k).
    pub size: usize,
    /// Timed GEMM steps (after 5 warm-up steps).
    pub steps: usize,
    /// Bytes per host-to-device copy.
    pub copy_bytes: usize,
}

impl Default for BenchPlan {
    fn default() -> BenchPlan {
        BenchPlan {
            size: 8192,
            steps: 60,
            copy_bytes: 256 << 20,
        }
    }
}

/// Whether the CUDA driver library can be loaded at all.
pub fn cuda_present() -> bool {
    // SAFETY: only tries to dlopen libcuda; no CUDA state is touched.
    catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false)
}

/// Benchmarks device `ordinal`; failures become notes, never panics.
pub fn run(ordinal: usize, plan: BenchPlan) -> GpuBenchmark {
    let mut result = GpuBenchmark {
        index: ordinal as u32,
        h2d_gbs: None,
        gemm_size: None,
        gemm_ms: None,
        achieved_tflops: None,
        cuda_total_bytes: None,
        notes: vec![],
    };
    if !cuda_present() {
        result
            .notes
            .push("no CUDA driver library (libcuda.so.1): benchmark skipped".to_owned());
        return result;
    }
    match catch_unwind(AssertUnwindSafe(|| measure(ordinal, plan, &mut result))) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => result.notes.push(format!("CUDA error: {e}")),
        Err(_) => result
            .notes
            .push("CUDA library call failed (panic caught); benchmark incomplete".to_owned()),
    }
    result
}

fn measure(
    ordinal: usize,
    plan: BenchPlan,
    out: &mut GpuBenchmark,
) -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(ordinal)?;
    out.cuda_total_bytes = ctx.total_mem().ok().map(|b| b as u64);
    let stream = ctx.default_stream();

    // Host to device from pinned memory: 2 warm-up copies, 10 timed.
    // SAFETY: the pinned buffer is filled before any read, and lives until after the copies.
    let mut host = unsafe { ctx.alloc_pinned::<u8>(plan.copy_bytes)? };
    host.as_mut_slice()?.fill(1);
    let mut device = stream.alloc_zeros::<u8>(plan.copy_bytes)?;
    let mut rates = Vec::new();
    for i in 0..12 {
        let start = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        stream.memcpy_htod(&host, &mut device)?;
        let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let ms = f64::from(start.elapsed_ms(&end)?);
        if i >= 2 && ms > 0.0 {
            rates.push(plan.copy_bytes as f64 / (ms / 1e3) / 1e9);
        }
    }
    out.h2d_gbs = gpufare_core::numbers::stats::summarize(&rates).map(|s| s.p50);
    drop(device);
    drop(host);

    // SAFETY: only tries to dlopen libcublas.
    if !catch_unwind(|| unsafe { cudarc::cublas::sys::is_culib_present() }).unwrap_or(false) {
        out.notes.push("cuBLAS (libcublas.so) not found: GEMM skipped; install the CUDA toolkit or a PyTorch wheel".to_owned());
        return Ok(());
    }
    let blas = CudaBlas::new(stream.clone())?;
    let n = plan.size;
    // Non-zero inputs: all-zero data can run faster at lower power.
    let values: Vec<f16> = (0..n * n)
        .map(|i| f16::from_f32(((i % 7) as f32 - 3.0) / 16.0))
        .collect();
    let a = stream.clone_htod(&values)?;
    let b = stream.clone_htod(&values)?;
    let mut c = stream.alloc_zeros::<f16>(n * n)?;
    let dim = i32::try_from(n)?;
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: dim,
        n: dim,
        k: dim,
        alpha: f16::ONE,
        lda: dim,
        ldb: dim,
        beta: f16::ZERO,
        ldc: dim,
    };
    let mut steps = Vec::with_capacity(plan.steps);
    for i in 0..plan.steps + 5 {
        let start = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        // SAFETY: a, b and c hold n x n elements and every leading dimension is n.
        unsafe { blas.gemm(cfg, &a, &b, &mut c)? };
        let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let ms = f64::from(start.elapsed_ms(&end)?);
        if i >= 5 {
            steps.push(ms);
        }
    }
    let series = Series::new(steps);
    out.gemm_size = Some(dim as u32);
    out.achieved_tflops = series
        .summary
        .map(|s| 2.0 * (n as f64).powi(3) / (s.p50 / 1e3) / 1e12);
    out.gemm_ms = Some(series);
    Ok(())
}
