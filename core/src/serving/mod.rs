//! Serving: traffic in, replicas out, deployments priced.
//!
//! - traffic (requests per second by hour, request sizes, latency targets; presets and a CSV
//!   reader) is part of the task: `task::traffic`;
//! - [`replica`] — one replica of an LLM server: throughput, time to first token and time per
//!   output token as functions of the batch, and the largest batch meeting the targets;
//! - [`slo`] — replicas each hour needs and the share of requests meeting their targets;
//! - [`deploy`] — fixed fleet, autoscaling, reserved base + burst and a shared pool priced side
//!   by side, and the cheapest meeting an attainment target ([`deploy::choose`]);
//! - [`service`] — a service task's deployments on every offer its plan found feasible, and the
//!   cheapest meeting the targets;
//! - [`error`] — why an input was refused.
//!
//! The model, each default and its public source are in `core/README.md` ("Serving").

pub mod deploy;
pub mod error;
pub mod replica;
pub mod service;
pub mod slo;

pub use crate::task::traffic::{
    Targets, Tokens, Traffic, bursty_demo, office_hours, parse_traffic_csv, steady_api,
    traffic_preset,
};
pub use deploy::{
    Choice, DeploySettings, Deployment, DeploymentKind, DeploymentOffers, Deployments, Skipped,
    choose, price_deployments,
};
pub use error::ServingError;
pub use replica::{BatchPoint, Replica, ReplicaHardware, ReplicaSetup, tp_efficiency};
