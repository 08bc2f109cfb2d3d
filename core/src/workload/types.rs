//! What every workload estimate is made of: the memory breakdown by component, the estimate with
//! its assumptions, the errors that name the field at fault, and the range checks behind them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::plan::assumption::Assumption;
use crate::task::document::TaskKind;

/// Bytes in one GiB.
pub const GIB: f64 = 1_073_741_824.0;

/// Memory the CUDA context and the framework's kernels take on each GPU before any tensor, GiB.
///
/// PyTorch with lazy module loading (the default since 1.13) costs 287 MB for a first tiny tensor
/// (pytorch/pytorch PR #86509) and "around 400 MB" on CUDA >= 11.7 (pytorch #109888); real
/// workloads load cuBLAS/cuDNN/attention kernels on top. Calculators assume 650 MB (gpu_poor) and
/// 1000 MiB (vram.asmirnov.xyz). 0.5 GiB sits between the measured floor and those assumptions.
/// Allocator fragmentation is not added here: the fit rule keeps 10 % headroom instead.
pub const CUDA_CONTEXT_GIB: f64 = 0.5;

/// Memory per GPU by component, GiB. The total is their sum.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Breakdown {
    /// Model weights resident on the GPU (frozen base, trainable copies, adapters, ControlNets).
    pub weights_gib: f64,
    /// Gradients of the trainable parameters.
    pub gradients_gib: f64,
    /// Optimizer state, including fp32 master weights in mixed-precision training.
    pub optimizer_gib: f64,
    /// Activations: saved for the backward pass in training, the peak working set in inference.
    pub activations_gib: f64,
    /// The attention key/value cache (LLM inference only).
    pub kv_cache_gib: f64,
    /// CUDA context and temporary buffers (dequantization, ZeRO-3 parameter gathering).
    pub overhead_gib: f64,
}

impl Breakdown {
    /// The sum of every component, GiB.
    pub fn total_gib(&self) -> f64 {
        self.weights_gib
            + self.gradients_gib
            + self.optimizer_gib
            + self.activations_gib
            + self.kv_cache_gib
            + self.overhead_gib
    }

    /// The components as `(key, GiB)` pairs in a fixed order, keys without the unit:
    /// `weights`, `gradients`, `optimizer`, `activations`, `kv_cache`, `overhead`.
    pub fn components(&self) -> [(&'static str, f64); 6] {
        [
            ("weights", self.weights_gib),
            ("gradients", self.gradients_gib),
            ("optimizer", self.optimizer_gib),
            ("activations", self.activations_gib),
            ("kv_cache", self.kv_cache_gib),
            ("overhead", self.overhead_gib),
        ]
    }

    pub(crate) fn from_bytes(
        weights: f64,
        gradients: f64,
        optimizer: f64,
        activations: f64,
        kv_cache: f64,
        overhead: f64,
    ) -> Breakdown {
        Breakdown {
            weights_gib: weights / GIB,
            gradients_gib: gradients / GIB,
            optimizer_gib: optimizer / GIB,
            activations_gib: activations / GIB,
            kv_cache_gib: kv_cache / GIB,
            overhead_gib: overhead / GIB,
        }
    }
}

/// The memory estimate for a workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryEstimate {
    /// Total VRAM needed on each GPU, GiB (the sum of `breakdown`).
    pub vram_gib: f64,
    /// The total by component.
    pub breakdown: Breakdown,
    /// GPUs the workload runs on (data-parallel or tensor-parallel).
    pub gpus: u32,
    /// Parameters of the model (all components for a diffusion pipeline).
    pub parameters: f64,
    /// Parameters each token goes through (fewer than `parameters` for a mixture of experts).
    #[serde(default)]
    pub active_parameters: f64,
    /// Parameters that receive gradients (0 for inference).
    pub trainable_parameters: f64,
    /// The task kind this workload is, for the task profile.
    pub kind: TaskKind,
    /// Every default the estimate used, with its source.
    pub assumptions: Vec<Assumption>,
}

/// Why a workload was refused. Each variant names the field at fault.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum WorkloadError {
    /// A number outside the range gpufare accepts for that field (NaN included).
    #[error("{field} must be between {min} and {max}, got {value}")]
    OutOfRange {
        /// The field, as named in the workload's JSON form.
        field: &'static str,
        /// The smallest accepted value.
        min: f64,
        /// The largest accepted value.
        max: f64,
        /// What was given.
        value: f64,
    },
    /// A name (preset, GPU, precision) gpufare does not know.
    #[error("{field}: unknown {name:?}; known: {known}")]
    Unknown {
        /// The field.
        field: &'static str,
        /// What was given.
        name: String,
        /// The accepted names, comma-separated.
        known: String,
    },
    /// A combination the estimator does not model, with the reason.
    #[error("{field}: {reason}")]
    Unsupported {
        /// The field.
        field: &'static str,
        /// Why.
        reason: Unsupported,
    },
}

impl WorkloadError {
    /// A stable identifier for the reason, for translated messages.
    pub fn code(&self) -> &'static str {
        match self {
            WorkloadError::OutOfRange { .. } => "out_of_range",
            WorkloadError::Unknown { .. } => "unknown",
            WorkloadError::Unsupported { .. } => "unsupported",
        }
    }

    /// The field at fault, as named in the workload's JSON form (e.g. `context_tokens`).
    pub fn field(&self) -> &'static str {
        match self {
            WorkloadError::OutOfRange { field, .. }
            | WorkloadError::Unknown { field, .. }
            | WorkloadError::Unsupported { field, .. } => field,
        }
    }
}

/// A combination of inputs the estimator does not model, with a stable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Unsupported {
    /// A side that is not a multiple of 8 (the VAE downsamples by 8).
    #[error("must be a multiple of 8 (the VAE downsamples by 8)")]
    NotMultipleOf8,
    /// A side that is not a multiple of 16 for Flux.
    #[error("must be a multiple of 16 for Flux")]
    NotMultipleOf16,
    /// ControlNets for Flux.
    #[error("Flux ControlNets vary too much in size between releases to model")]
    FluxControlNet,
    /// A full fine-tune of quantized weights.
    #[error(
        "a full fine-tune trains 16-bit or 32-bit weights; quantized weights need LoRA (QLoRA)"
    )]
    FullFineTuneQuantized,
    /// Expert parallelism asked of a model without experts.
    #[error("expert parallelism needs a mixture-of-experts model")]
    ExpertParallelDense,
}

/// Checks that `value` lies in `min..=max` (NaN never does).
pub(crate) fn check(
    field: &'static str,
    value: f64,
    min: f64,
    max: f64,
) -> Result<f64, WorkloadError> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(WorkloadError::OutOfRange {
            field,
            min,
            max,
            value,
        })
    }
}

/// Checks an integer field against `min..=max`.
pub(crate) fn check_u32(
    field: &'static str,
    value: u32,
    min: u32,
    max: u32,
) -> Result<f64, WorkloadError> {
    check(field, f64::from(value), f64::from(min), f64::from(max))
}

/// Checks an optional efficiency override in (0, 1].
pub(crate) fn check_efficiency(
    field: &'static str,
    value: Option<f64>,
) -> Result<(), WorkloadError> {
    match value {
        Some(v) if !(v > 0.0 && v <= 1.0) => Err(WorkloadError::OutOfRange {
            field,
            min: 0.0,
            max: 1.0,
            value: v,
        }),
        _ => Ok(()),
    }
}

pub(crate) fn assumption(id: &str, value: impl ToString, source: &str) -> Assumption {
    Assumption {
        id: id.to_owned(),
        value: value.to_string(),
        source: source.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_is_the_sum_of_every_component() {
        let b = Breakdown::from_bytes(GIB, 2.0 * GIB, 3.0 * GIB, 4.0 * GIB, 5.0 * GIB, 6.0 * GIB);
        assert_eq!(b.total_gib(), 21.0);
        let keys: Vec<_> = b.components().iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            [
                "weights",
                "gradients",
                "optimizer",
                "activations",
                "kv_cache",
                "overhead"
            ]
        );
        assert_eq!(b.components().iter().map(|(_, v)| v).sum::<f64>(), 21.0);
    }

    #[test]
    fn range_checks_name_the_field_and_refuse_nan() {
        let e = check("context_tokens", f64::NAN, 1.0, 10.0).unwrap_err();
        assert_eq!((e.field(), e.code()), ("context_tokens", "out_of_range"));
        assert!(check("x", 10.0, 1.0, 10.0).is_ok());
        assert!(check("x", 10.5, 1.0, 10.0).is_err());
        assert!(check_efficiency("mfu", Some(0.0)).is_err());
        assert!(check_efficiency("mfu", Some(1.0)).is_ok());
        assert!(check_efficiency("mfu", None).is_ok());
    }
}
