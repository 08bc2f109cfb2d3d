//! What the user wants to run: the task document (work, VRAM, runs, deadline, latency target,
//! data sensitivity, interruptions, money), a service's traffic, and the ready-made presets of the
//! reference article.

pub mod document;
pub mod policy;
pub mod presets;
pub mod reach;
pub mod traffic;

pub use document::{
    Bound, Checkpoint, LatencyTarget, Prototype, Sensitivity, Service, TASK_FORMAT_VERSION,
    TaskError, TaskKind, TaskProfile, parse_task,
};
pub use policy::Policy;
pub use presets::{PRESET_IDS, preset};
pub use reach::{MeasuredRtt, Reach};
