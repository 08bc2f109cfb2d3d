//! The optional GPU micro-benchmark: pinned host-to-device bandwidth and a timed FP16 GEMM loop
//! (warm-up, then at least 50 timed steps) giving the step-time distribution — the jitter the
//! article talks about — and achieved TFLOPS.
//!
//! The CUDA driver is loaded at run time through `cudarc`; without a driver the benchmark is
//! skipped with a note. cudarc panics when a library is missing, so every call is guarded by its
//! `is_culib_present` check and wrapped in `catch_unwind`. The cudarc behaviour this guards
//! against, with its sources: docs/sources.md §6.4. cudarc finds `libcuda.so.1` by name only, so
//! where the dynamic loader does not know it, the file found in the usual folders
//! ([`crate::libs`]) is loaded first: the loader then answers cudarc's request by that file's
//! soname. cuBLAS is loaded by [`cublas`], which also finds CUDA 13's `libcublas.so.13`.
//!
//! This module and `cublas` are the GPU code's only `unsafe`: cudarc marks library probing and
//! pinned allocation unsafe, and cuBLAS is raw FFI. Each use is commented with why it holds.
#![allow(unsafe_code)]

mod cublas;

use std::panic::{AssertUnwindSafe, catch_unwind};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, DevicePtr, DevicePtrMut};
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

/// Whether cudarc can load the CUDA driver library as things stand.
fn cudarc_sees_cuda() -> bool {
    // SAFETY: only tries to dlopen libcuda; no CUDA state is touched.
    catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false)
}

/// Makes the CUDA driver library loadable by cudarc, or says where it looked.
///
/// Where the dynamic loader does not find `libcuda.so.1`, the first file of that name in the
/// usual folders is loaded and kept for the life of the process; cudarc's later request for
/// `libcuda.so.1` is then answered with it (glibc matches an already loaded library's soname).
pub fn cuda_present() -> Result<(), String> {
    if cudarc_sees_cuda() {
        return Ok(());
    }
    let places = crate::libs::system();
    let mut refused = Vec::new();
    for path in places.find(crate::libs::Lib::Cuda) {
        // SAFETY: loading the driver library runs only its own initialisers.
        match unsafe { libloading::Library::new(path.as_os_str()) } {
            Ok(lib) => {
                // Kept loaded until the process ends: cudarc holds symbols from it.
                std::mem::forget(lib);
                if cudarc_sees_cuda() {
                    return Ok(());
                }
                refused.push(format!(
                    "{} (loaded, but not under the name libcuda.so.1)",
                    path.display()
                ));
            }
            Err(e) => refused.push(format!("{} ({e})", path.display())),
        }
    }
    let mut why = format!(
        "no CUDA driver library (libcuda.so.1): benchmark skipped; {}",
        places.looked(crate::libs::Lib::Cuda)
    );
    if !refused.is_empty() {
        why.push_str("; found but could not load: ");
        why.push_str(&refused.join(", "));
    }
    Err(why)
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
    if let Err(why) = cuda_present() {
        result.notes.push(why);
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

    let blas = match cublas::Blas::open(stream.cu_stream().cast()) {
        Ok(blas) => blas,
        Err(why) => {
            out.notes.push(why);
            return Ok(());
        }
    };
    out.notes.push(format!(
        "cuBLAS {} from {}",
        blas.version_text()
            .unwrap_or_else(|| "(version unknown)".to_owned()),
        blas.path.display()
    ));
    let n = plan.size;
    // Non-zero inputs: all-zero data can run faster at lower power.
    let values: Vec<f16> = (0..n * n)
        .map(|i| f16::from_f32(((i % 7) as f32 - 3.0) / 16.0))
        .collect();
    let a = stream.clone_htod(&values)?;
    let b = stream.clone_htod(&values)?;
    let mut c = stream.alloc_zeros::<f16>(n * n)?;
    let dim = i32::try_from(n)?;
    let mut steps = Vec::with_capacity(plan.steps);
    {
        let (pa, _read_a) = a.device_ptr(&stream);
        let (pb, _read_b) = b.device_ptr(&stream);
        let (pc, _write_c) = c.device_ptr_mut(&stream);
        for i in 0..plan.steps + 5 {
            let start = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
            // SAFETY: a, b and c hold n x n FP16 values on this context and stay allocated
            // (borrowed above) until after the stream is synchronised by the event below.
            unsafe {
                blas.hgemm_square(
                    dim,
                    pa as usize as *const std::ffi::c_void,
                    pb as usize as *const std::ffi::c_void,
                    pc as usize as *mut std::ffi::c_void,
                )?
            };
            let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
            let ms = f64::from(start.elapsed_ms(&end)?);
            if i >= 5 {
                steps.push(ms);
            }
        }
    }
    stream.synchronize()?;
    drop(blas);
    let series = Series::new(steps);
    out.gemm_size = Some(dim as u32);
    out.achieved_tflops = series
        .summary
        .map(|s| 2.0 * (n as f64).powi(3) / (s.p50 / 1e3) / 1e12);
    out.gemm_ms = Some(series);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    /// What `cuda_present` stands on: once a library is loaded by its path, the dynamic loader
    /// answers a request for its soname with it, even from a folder it would never search.
    #[test]
    fn a_library_loaded_by_path_answers_to_its_soname() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("fake.c");
        std::fs::write(
            &src,
            "int gpufare_fake_driver_version(void) { return 12020; }\n",
        )
        .unwrap();
        let lib = dir.path().join("libgpufarefake.so.1");
        let built = Command::new("cc")
            .args(["-shared", "-fPIC", "-Wl,-soname,libgpufarefake.so.1", "-o"])
            .arg(&lib)
            .arg(&src)
            .status()
            .expect("a C compiler (cc) is installed");
        assert!(built.success());
        // SAFETY: the library has no initialisers; it defines one function.
        let by_name = || unsafe { libloading::Library::new("libgpufarefake.so.1") };
        assert!(by_name().is_err(), "the loader should not know this folder");
        // SAFETY: as above.
        let held = unsafe { libloading::Library::new(&lib) }.unwrap();
        let again = by_name().expect("found by soname once loaded by path");
        // SAFETY: the symbol is `int (void)`.
        let version = unsafe {
            again
                .get::<unsafe extern "C" fn() -> i32>(b"gpufare_fake_driver_version\0")
                .unwrap()()
        };
        assert_eq!(version, 12020);
        drop(again);
        drop(held);
    }
}
