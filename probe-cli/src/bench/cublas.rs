//! The four cuBLAS calls the benchmark needs, loaded from a file the probe found itself.
//!
//! cudarc's own cuBLAS loader asks the dynamic loader for `libcublas.so`, `.so.12`, `.so.11` ...
//! by name only, so it misses both a CUDA 13 cuBLAS (`libcublas.so.13`, what PyTorch's CUDA 13
//! wheels ship) and any cuBLAS outside `LD_LIBRARY_PATH`, such as the one inside a Python
//! environment. This module opens each file [`crate::libs`] lists until one gives a handle.
//!
//! The signatures are those of `cublas_api.h` (CUDA 11 to 13): every enum is a C `int`, the
//! handle and the stream are pointers, and device pointers are passed as `void *`.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_void};
use std::path::{Path, PathBuf};

use crate::libs::{self, Lib};

type Handle = *mut c_void;
type CreateFn = unsafe extern "C" fn(*mut Handle) -> c_int;
type DestroyFn = unsafe extern "C" fn(Handle) -> c_int;
type SetStreamFn = unsafe extern "C" fn(Handle, *mut c_void) -> c_int;
type GetVersionFn = unsafe extern "C" fn(Handle, *mut c_int) -> c_int;
type GemmExFn = unsafe extern "C" fn(
    Handle,
    c_int,         // transa
    c_int,         // transb
    c_int,         // m
    c_int,         // n
    c_int,         // k
    *const c_void, // alpha
    *const c_void, // A
    c_int,         // Atype
    c_int,         // lda
    *const c_void, // B
    c_int,         // Btype
    c_int,         // ldb
    *const c_void, // beta
    *mut c_void,   // C
    c_int,         // Ctype
    c_int,         // ldc
    c_int,         // computeType
    c_int,         // algo
) -> c_int;

/// `CUBLAS_OP_N`.
const OP_N: c_int = 0;
/// `CUDA_R_16F` (library_types.h).
const R_16F: c_int = 2;
/// `CUBLAS_COMPUTE_32F`: FP16 inputs, FP32 accumulation, the mode dense "FP16 tensor TFLOPS"
/// figures are quoted for.
const COMPUTE_32F: c_int = 68;
/// `CUBLAS_GEMM_DEFAULT`.
const GEMM_DEFAULT: c_int = -1;

/// A cuBLAS handle bound to a stream, with the library it came from kept loaded.
pub struct Blas {
    handle: Handle,
    gemm_ex: GemmExFn,
    destroy: DestroyFn,
    /// Where the library was loaded from.
    pub path: PathBuf,
    /// `cublasGetVersion`, e.g. 130100 for 13.1.0; `None` if the call failed.
    pub version: Option<i32>,
    // Dropped after the handle (fields drop in order): the functions point into it.
    _lib: libloading::Library,
}

/// Names a cuBLAS status code (`cublasStatus_t`).
fn status_name(code: c_int) -> String {
    let name = match code {
        1 => "CUBLAS_STATUS_NOT_INITIALIZED",
        3 => "CUBLAS_STATUS_ALLOC_FAILED",
        7 => "CUBLAS_STATUS_INVALID_VALUE",
        8 => "CUBLAS_STATUS_ARCH_MISMATCH",
        11 => "CUBLAS_STATUS_MAPPING_ERROR",
        13 => "CUBLAS_STATUS_EXECUTION_FAILED",
        14 => "CUBLAS_STATUS_INTERNAL_ERROR",
        15 => "CUBLAS_STATUS_NOT_SUPPORTED",
        16 => "CUBLAS_STATUS_LICENSE_ERROR",
        _ => return format!("cuBLAS status {code}"),
    };
    name.to_owned()
}

impl Blas {
    /// Opens the first cuBLAS that gives a handle on the current CUDA context and binds it to
    /// `stream` (a `CUstream`; null is the legacy default stream). The error says what was tried.
    pub fn open(stream: *mut c_void) -> Result<Blas, String> {
        let places = libs::system();
        let found = places.find(Lib::Cublas);
        let mut tried = Vec::new();
        // The dynamic loader's own answer first, by the names cuBLAS is known by.
        let by_name = Lib::Cublas.file_names().iter().map(PathBuf::from);
        for candidate in by_name.chain(found) {
            match Blas::open_one(&candidate, stream) {
                Ok(blas) => return Ok(blas),
                Err(Some(why)) => tried.push(format!("{}: {why}", candidate.display())),
                Err(None) => {}
            }
        }
        let mut text = format!("cuBLAS not found: {}", places.looked(Lib::Cublas));
        if !tried.is_empty() {
            text.push_str("; found but unusable: ");
            text.push_str(&tried.join("; "));
        }
        text.push_str("; GEMM skipped (a CUDA toolkit or a PyTorch install provides libcublas.so)");
        Err(text)
    }

    /// `Err(None)`: not there (not worth a mention); `Err(Some)`: there but unusable.
    fn open_one(path: &Path, stream: *mut c_void) -> Result<Blas, Option<String>> {
        // A bare name goes to the dynamic loader's search; a path is opened as it is.
        let bare = path.components().count() == 1;
        // SAFETY: loading cuBLAS runs its initialisers, which only set up the library's own
        // state; nothing of this process is touched.
        let lib = match unsafe { libloading::Library::new(path.as_os_str()) } {
            Ok(lib) => lib,
            Err(_) if bare => return Err(None),
            Err(e) => return Err(Some(e.to_string())),
        };
        // SAFETY: each symbol is cast to the signature cublas_api.h declares for it.
        let symbols = unsafe {
            (
                lib.get::<CreateFn>(b"cublasCreate_v2\0").map(|s| *s),
                lib.get::<DestroyFn>(b"cublasDestroy_v2\0").map(|s| *s),
                lib.get::<SetStreamFn>(b"cublasSetStream_v2\0").map(|s| *s),
                lib.get::<GemmExFn>(b"cublasGemmEx\0").map(|s| *s),
                lib.get::<GetVersionFn>(b"cublasGetVersion_v2\0")
                    .map(|s| *s),
            )
        };
        let (Ok(create), Ok(destroy), Ok(set_stream), Ok(gemm_ex), get_version) = symbols else {
            return Err(Some(
                "a cuBLAS entry point is missing (cublasCreate_v2, cublasDestroy_v2, \
                 cublasSetStream_v2 or cublasGemmEx)"
                    .to_owned(),
            ));
        };
        let mut handle: Handle = std::ptr::null_mut();
        // SAFETY: cublasCreate_v2 writes one handle through the pointer, which points at a
        // local that outlives the call; a CUDA context is current on this thread (the caller
        // made it so).
        let status = unsafe { create(&mut handle) };
        if status != 0 || handle.is_null() {
            return Err(Some(format!(
                "cublasCreate failed: {}",
                status_name(status)
            )));
        }
        // SAFETY: handle came from cublasCreate above; stream is the caller's live CUstream.
        let status = unsafe { set_stream(handle, stream) };
        if status != 0 {
            // SAFETY: handle came from cublasCreate above and is not used again.
            unsafe { destroy(handle) };
            return Err(Some(format!(
                "cublasSetStream failed: {}",
                status_name(status)
            )));
        }
        let version = get_version.ok().and_then(|get| {
            let mut v: c_int = 0;
            // SAFETY: writes one int through a pointer to a local; handle is live.
            (unsafe { get(handle, &mut v) } == 0).then_some(v)
        });
        Ok(Blas {
            handle,
            gemm_ex,
            destroy,
            path: path.to_path_buf(),
            version,
            _lib: lib,
        })
    }

    /// C = A x B for column-major `n x n` FP16 matrices, FP32 accumulation, queued on the
    /// handle's stream.
    ///
    /// # Safety
    /// `a`, `b` and `c` must be device pointers to at least `n * n` FP16 values each, valid on
    /// the current context until the stream has run the call.
    pub unsafe fn hgemm_square(
        &self,
        n: c_int,
        a: *const c_void,
        b: *const c_void,
        c: *mut c_void,
    ) -> Result<(), String> {
        let alpha: f32 = 1.0;
        let beta: f32 = 0.0;
        // SAFETY: the caller vouches for the device pointers; alpha and beta live on this
        // frame and are read before the call returns (host pointer mode, cuBLAS's default).
        let status = unsafe {
            (self.gemm_ex)(
                self.handle,
                OP_N,
                OP_N,
                n,
                n,
                n,
                (&alpha as *const f32).cast(),
                a,
                R_16F,
                n,
                b,
                R_16F,
                n,
                (&beta as *const f32).cast(),
                c,
                R_16F,
                n,
                COMPUTE_32F,
                GEMM_DEFAULT,
            )
        };
        if status == 0 {
            Ok(())
        } else {
            Err(format!("cublasGemmEx failed: {}", status_name(status)))
        }
    }

    /// "13.1.0" from 130100 (cuBLAS 11 and later encode major * 10000 + minor * 100 + patch).
    pub fn version_text(&self) -> Option<String> {
        self.version
            .map(|v| format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100))
    }
}

impl Drop for Blas {
    fn drop(&mut self) {
        // SAFETY: handle came from cublasCreate and is destroyed once, before the library is
        // unloaded (the library field drops after this runs).
        unsafe { (self.destroy)(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_are_named_and_unknown_ones_kept() {
        assert_eq!(status_name(15), "CUBLAS_STATUS_NOT_SUPPORTED");
        assert_eq!(status_name(99), "cuBLAS status 99");
    }

    #[test]
    fn without_cublas_the_reason_says_where_it_looked() {
        // This machine has no cuBLAS (the CI and development machines have no CUDA): the
        // search must end in a reason, not a crash.
        if libs::system().find(Lib::Cublas).is_empty() {
            let Err(why) = Blas::open(std::ptr::null_mut()) else {
                panic!("no cuBLAS here, yet a handle was made");
            };
            assert!(
                why.starts_with("cuBLAS not found: looked for libcublas.so.13"),
                "{why}"
            );
            assert!(why.contains("GEMM skipped"), "{why}");
        }
    }
}
