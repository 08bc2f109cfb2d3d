//! What can be rented: offers and catalogs, how a GPU is shared (tenancy), how an offer is
//! billed, the rent of a stretch of running, and the files catalogs come in (our CSV and JSON,
//! SkyPilot's `vms.csv`).

pub mod billing;
pub mod catalog;
pub mod csv;
pub mod default;
pub mod feeds;
pub mod import;
pub mod interruption;
pub mod latency;
pub mod links;
pub mod offer;
pub mod places;
pub mod queue;
pub mod queue_trace;
pub mod quote;
pub mod rent;
pub mod skypilot;
pub mod tenancy;
pub mod trace;
pub mod validate;

pub use billing::{BillingMode, Granularity};
pub use catalog::{CATALOG_FORMAT_VERSION, Catalog, CatalogError};
pub use default::default_catalog;
pub use offer::{IoRates, Offer, PriceEvidence, Region, RegionClass, SecurityControl};
pub use tenancy::{Slowdown, SlowdownOverride, SlowdownSource, Tenancy};
