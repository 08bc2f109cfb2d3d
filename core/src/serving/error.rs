//! Why a serving question cannot be answered: a field out of its range (named as in the JSON
//! form), a traffic CSV line that is not a rate, or a model that does not fit the GPUs.

use thiserror::Error;

use crate::numbers::problem::{FieldError, Problem};
use crate::task::traffic::TrafficError;
use crate::workload::types::WorkloadError;

/// Why traffic, a replica or a deployment was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ServingError {
    /// A field holds a value the model cannot use.
    #[error("serving field {}: {}", .0.field, .0.problem)]
    Field(FieldError),
    /// A line of a traffic CSV is wrong (1-based line number).
    #[error("traffic CSV line {line}: {}: {}", .error.field, .error.problem)]
    Line {
        /// 1-based line of the fault (the last line for a wrong row count).
        line: usize,
        /// The column at fault and what is wrong with it.
        error: FieldError,
    },
    /// The model or its setup was refused by the workload estimator.
    #[error("{0}")]
    Workload(WorkloadError),
    /// The weights and the engine's own memory leave no room for one sequence's KV cache.
    #[error(
        "{model} does not fit on {gpus} x {gpu}: weights {weights_gib:.1} GiB + engine {overhead_gib:.1} GiB leave {kv_gib:.2} GiB for a KV cache that needs {needed_gib:.3} GiB per sequence"
    )]
    DoesNotFit {
        /// The model.
        model: String,
        /// The GPU (or slice).
        gpu: String,
        /// GPUs per replica.
        gpus: u32,
        /// Weight bytes of the replica, GiB.
        weights_gib: f64,
        /// Engine memory of the replica (every GPU), GiB.
        overhead_gib: f64,
        /// What is left for the KV cache, GiB (may be negative).
        kv_gib: f64,
        /// KV cache of one sequence, GiB.
        needed_gib: f64,
    },
}

impl ServingError {
    /// The field at fault, as named in the JSON form (a CSV's column), when one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            ServingError::Field(e) | ServingError::Line { error: e, .. } => Some(&e.field),
            ServingError::Workload(e) => Some(e.field()),
            ServingError::DoesNotFit { .. } => None,
        }
    }

    /// A stable identifier of the kind of refusal, for translated messages.
    pub fn code(&self) -> &'static str {
        match self {
            ServingError::Field(e) | ServingError::Line { error: e, .. } => e.problem.code(),
            ServingError::Workload(e) => e.code(),
            ServingError::DoesNotFit { .. } => "does_not_fit",
        }
    }
}

impl From<FieldError> for ServingError {
    fn from(e: FieldError) -> ServingError {
        ServingError::Field(e)
    }
}

impl From<TrafficError> for ServingError {
    fn from(e: TrafficError) -> ServingError {
        match e {
            TrafficError::Field(e) => ServingError::Field(e),
            TrafficError::Line { line, error } => ServingError::Line { line, error },
        }
    }
}

impl From<WorkloadError> for ServingError {
    fn from(e: WorkloadError) -> ServingError {
        ServingError::Workload(e)
    }
}

/// `Ok` when `v` is a finite number in `[min, max]`; else the field, out of range.
pub(crate) fn in_range(field: &str, v: f64, min: f64, max: f64) -> Result<(), ServingError> {
    if v.is_finite() && v >= min && v <= max {
        Ok(())
    } else {
        Err(FieldError::new(field, Problem::OutOfRange { min, max }).into())
    }
}
