//! One rentable offer: what can be rented, where, how it is shared, how it is billed, and what
//! security controls come with it. A catalog row is one offer; spot and subscription prices are
//! offers of their own, never extra columns, and every offer carries the date and source of its
//! price.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::hardware::links::Interconnect;
use crate::numbers::money::Currency;
use crate::offers::billing::{BillingMode, Granularity};
use crate::offers::interruption::Interruptions;
use crate::offers::queue::{PoolKind, Queue, QueueSource};
use crate::offers::tenancy::{LoadSource, NeighbourLoad, SlowdownOverride, Tenancy};

/// How close a region is to the user, which drives latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RegionClass {
    /// A low-latency metro node (Shanghai, Beijing, Hangzhou, Shenzhen, Guangzhou).
    Tier1,
    /// A cheaper remote or inland region (Inner Mongolia, Guizhou, Gansu, Ningxia).
    Remote,
    /// Outside mainland China.
    Overseas,
}

identifiers!(RegionClass {
    Tier1 => "tier1",
    Remote => "remote",
    Overseas => "overseas",
});

/// Where an offer runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Region {
    /// Provider region id, e.g. `cn-shanghai`, `us-east-1`.
    pub id: String,
    /// Human name, e.g. `Shanghai`.
    pub name: String,
    /// Latency class.
    pub class: RegionClass,
    /// Assumed round-trip time from the user, milliseconds (editable).
    pub rtt_ms: f64,
}

/// A security control an offer provides; sensitive tasks require some of them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SecurityControl {
    /// A private network (VPC).
    Vpc,
    /// Firewall rules per instance (security groups).
    SecurityGroups,
    /// Encrypted data and temporary disks.
    EncryptedDisk,
    /// Own images and SSH keys.
    CustomImageSsh,
    /// Audit logs of access and operations.
    AuditLogs,
    /// A snapshot and retention policy.
    SnapshotPolicy,
    /// Verified deletion of data after release.
    VerifiedDeletion,
    /// A private or dedicated-host deployment inside the company boundary.
    PrivateDeployment,
}

identifiers!(SecurityControl {
    Vpc => "vpc",
    SecurityGroups => "security_groups",
    EncryptedDisk => "encrypted_disk",
    CustomImageSsh => "custom_image_ssh",
    AuditLogs => "audit_logs",
    SnapshotPolicy => "snapshot_policy",
    VerifiedDeletion => "verified_deletion",
    PrivateDeployment => "private_deployment",
});

/// How strong the evidence behind an offer's price is, strongest first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PriceEvidence {
    /// A quote made to the user (a sales offer, a contract price).
    Quote,
    /// The provider's own price page, price API or price file.
    Official,
    /// A dated machine-readable catalog built from providers' APIs (SkyPilot's catalogs,
    /// dstack's gpuhunt).
    Catalog,
    /// A dated figure quoted by a third party (an article, a comparison table, a forum post).
    Secondary,
    /// Derived by a stated rule from a comparable real price; no public figure for this row.
    Estimate,
}

identifiers!(PriceEvidence {
    Quote => "quote",
    Official => "official",
    Catalog => "catalog",
    Secondary => "secondary",
    Estimate => "estimate",
});

/// Measured IO rates of the machines behind an offer (the default: none measured).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct IoRates {
    /// Sequential read from the local disk, MB/s (10^6 bytes per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_read_mb_s: Option<f64>,
    /// Download from the network, Mbit/s (10^6 bits per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_mbit_s: Option<f64>,
}

impl IoRates {
    /// Hours to read `gb` from disk, when the rate is known.
    pub fn read_hours(&self, gb: f64) -> Option<f64> {
        self.disk_read_mb_s
            .filter(|r| *r > 0.0)
            .map(|r| gb * 1000.0 / r / 3600.0)
    }

    /// The rate a new instance gets a model's weights at, GB/s: the slower of the measured disk
    /// read and network download (the weights come over the one and are read from the other),
    /// whichever are known; `None` when neither was measured.
    pub fn load_gb_per_second(&self) -> Option<f64> {
        let disk = self.disk_read_mb_s.map(|r| r / 1000.0);
        let network = self.download_mbit_s.map(|r| r / 8000.0);
        [disk, network]
            .into_iter()
            .flatten()
            .filter(|r| r.is_finite() && *r > 0.0)
            .reduce(f64::min)
    }

    /// Hours to download `gb`, when the rate is known.
    pub fn download_hours(&self, gb: f64) -> Option<f64> {
        self.download_mbit_s
            .filter(|r| *r > 0.0)
            .map(|r| gb * 8000.0 / r / 3600.0)
    }
}

/// One rentable offer: a catalog row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Offer {
    /// Unique id within the catalog.
    pub id: String,
    /// Provider display name.
    pub provider: String,
    /// Where it runs.
    pub region: Region,
    /// The provider's own name for the machine, e.g. `ecs.gn7e-c16g1.4xlarge` or `p5.48xlarge`,
    /// when the offer is a named instance type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    /// GPU short name from the spec table, e.g. `RTX4090`.
    pub gpu: String,
    /// Number of GPUs (or slices) in the offer.
    #[schemars(range(min = 1, max = 1024))]
    pub gpu_count: u32,
    /// How the GPU is shared.
    pub tenancy: Tenancy,
    /// Share of one physical GPU's compute per GPU in the offer, in (0, 1]. For a MIG slice with
    /// a `mig_profile` it is derived from the profile (its SMs over the card's) and may be left
    /// out of a CSV row.
    #[schemars(range(min = 0, max = 1))]
    pub gpu_fraction: f64,
    /// The MIG profile of a MIG slice, e.g. `1g.10gb` (`hardware::mig` lists them per GPU): its
    /// compute share comes from its SMs and its bandwidth share from its memory slices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mig_profile: Option<String>,
    /// How busy the neighbours on a time-shared card are, 0-1 (1, the default: always busy).
    /// Time slicing, uncapped MPS, best-effort vGPU and uncapped memory-capped containers give
    /// a tenant what the neighbours leave (see `plan::sharing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbour_load: Option<f64>,
    /// True when `neighbour_load` was measured (a probe profile's GPU utilisation before any load
    /// of ours): it then beats the task's value.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub neighbour_load_measured: bool,
    /// True when the share's compute is capped at `gpu_fraction` (MPS with an active-thread
    /// limit, a container with a compute limit): it never gets more, however idle the card.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compute_capped: bool,
    /// What links the GPUs of one node (absent: NVLink where the card has it and the offer is
    /// whole cards, else PCIe; slices have none). See `offers::links`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interconnect: Option<Interconnect>,
    /// GPUs per node when the offer spans several nodes (absent: all `gpu_count` in one node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1024))]
    pub gpus_per_node: Option<u32>,
    /// The network between the nodes of a multi-node offer, Gbit/s per node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 100_000))]
    pub node_network_gbps: Option<f64>,
    /// True when that network carries RDMA (InfiniBand, RoCE, EFA); false: TCP sockets.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub node_network_rdma: bool,
    /// VRAM visible per GPU or slice, GiB.
    #[schemars(range(min = 0, max = 4096))]
    pub vram_gib: f64,
    /// Host vCPUs, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vcpu: Option<u32>,
    /// Host RAM, GiB, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ram_gib: Option<f64>,
    /// How it is billed.
    pub billing_mode: BillingMode,
    /// Commitment length for reserved offers, months.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub term_months: Option<u32>,
    /// Upfront payment per reserved term, in the offer's currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub upfront: Option<Decimal>,
    /// Per hour (pay-as-you-go, spot), per term (daily..yearly) or recurring per month (reserved),
    /// for the whole offer, in the offer's currency: 0, or from 0.000001 to 100000000.
    #[schemars(with = "String")]
    pub price: Decimal,
    /// Currency of every price in the row.
    pub currency: Currency,
    /// Billing granularity of metered offers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<Granularity>,
    /// Minimum billed time of metered offers, minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub minimum_minutes: Option<Decimal>,
    /// How often the capacity is taken away, for how long, with how much notice (none when
    /// absent); written as fields of the offer itself.
    #[serde(flatten)]
    pub interruptions: Interruptions,
    /// Mean wait before a job starts, hours (0 when absent); spread with the pool kind's fitted
    /// shape unless `queue_median_hours` states the shape (see `offers::queue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_wait_hours: Option<f64>,
    /// Probability a start finds capacity at once, 0-1 (with `queue_median_hours`; the pool
    /// kind's fitted value when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_p0: Option<f64>,
    /// Median wait of a start that does not find capacity at once, hours: states the queue's
    /// shape (takes precedence over `queue_wait_hours`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_median_hours: Option<f64>,
    /// Spread of ln(wait) of such a start (the pool kind's fitted value when absent), 0-5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_sigma: Option<f64>,
    /// Waits measured on this pool (a queue trace attached to the offer): drawn from, in place of
    /// every queue field above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_trace: Option<crate::offers::queue::QueueTrace>,
    /// Data storage per GB-month, billed while stopped too.
    #[schemars(with = "String")]
    pub storage_per_gb_month: Decimal,
    /// Internet egress per GB.
    #[schemars(with = "String")]
    pub egress_per_gb: Decimal,
    /// System disk per month for the whole offer.
    #[schemars(with = "String")]
    pub system_disk_per_month: Decimal,
    /// Security controls offered.
    #[serde(default)]
    pub security: Vec<SecurityControl>,
    /// A measured or negotiated run-time multiplier replacing the tenancy default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<SlowdownOverride>,
    /// Disk and network rates measured on this kind of machine (from a probe profile); without
    /// them the model assumes IO never holds a run back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<IoRates>,
    /// Date of the price: the source's own date, `YYYY-MM-DD`, or `YYYY-MM` when the source
    /// gives only the month.
    pub as_of: String,
    /// Where the price comes from: a public URL, a feed and its version, or the user's quote.
    pub source: String,
    /// How strong that source is; absent in catalogs that do not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_evidence: Option<PriceEvidence>,
    /// True when no public figure exists for this exact row.
    #[serde(default)]
    pub estimate: bool,
    /// How an estimated row was derived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate_note: Option<String>,
}

/// The RTT assumed for a region class when a row gives none, milliseconds.
pub fn default_rtt_ms(class: RegionClass) -> f64 {
    match class {
        RegionClass::Tier1 => 10.0,
        RegionClass::Remote => 40.0,
        RegionClass::Overseas => 200.0,
    }
}

impl Offer {
    /// The kind of pool this offer's starts queue in.
    pub fn pool_kind(&self) -> PoolKind {
        if self.gpu_count > 1 {
            PoolKind::Multi
        } else if self.gpu_fraction < 1.0 || self.tenancy.is_slice() {
            PoolKind::Fractional
        } else {
            PoolKind::Whole
        }
    }

    /// The queue this offer states: a measured trace's, else its `queue_p0` /
    /// `queue_median_hours` / `queue_sigma` (missing ones from its pool kind), else its mean
    /// `queue_wait_hours` converted, else none.
    pub fn queue(&self) -> Queue {
        if let Some(trace) = &self.queue_trace {
            return Queue::from_trace(trace);
        }
        let kind = self.pool_kind();
        if let Some(median) = self.queue_median_hours {
            let (p0, _, sigma) = kind.default_queue();
            return Queue::log_normal(
                self.queue_p0.unwrap_or(p0),
                median,
                self.queue_sigma.unwrap_or(sigma),
                QueueSource::Offer,
            );
        }
        match self.queue_wait_hours {
            Some(mean) if mean > 0.0 => Queue::from_mean(mean, kind),
            _ => Queue::none(),
        }
    }

    /// The strength of the price's evidence: as stated, or [`PriceEvidence::Estimate`] for an
    /// estimated row that does not say; `None` when a catalog gives no word on it.
    pub fn evidence(&self) -> Option<PriceEvidence> {
        if self.estimate {
            Some(PriceEvidence::Estimate)
        } else {
            self.price_evidence
        }
    }

    /// The run-time multiplier this offer runs with, against its nominal share, and the
    /// neighbours' load behind it: a typed or measured override as given; else a work-conserving
    /// tenancy's sharing model at the neighbours' load (measured on the offer, else the task's
    /// `task_load`, else the row's, else always busy); else the tenancy's default.
    pub fn slowdown_with(
        &self,
        task_load: Option<f64>,
    ) -> (crate::offers::tenancy::Slowdown, Option<NeighbourLoad>) {
        use crate::offers::tenancy::Slowdown;
        if let Some(o) = &self.slowdown {
            return (Slowdown::for_offer(self.tenancy, Some(o)), None);
        }
        let Some(sharing) = self.tenancy.sharing() else {
            return (self.tenancy.default_slowdown(), None);
        };
        let load = match (self.neighbour_load, self.neighbour_load_measured, task_load) {
            (Some(l), true, _) => NeighbourLoad {
                load: l,
                source: LoadSource::Measured,
            },
            (_, _, Some(l)) => NeighbourLoad {
                load: l,
                source: LoadSource::Task,
            },
            (Some(l), false, None) => NeighbourLoad {
                load: l,
                source: LoadSource::Offer,
            },
            (None, _, None) => NeighbourLoad {
                load: 1.0,
                source: LoadSource::Default,
            },
        };
        (
            sharing.slowdown(self.gpu_fraction, load.load, self.compute_capped),
            Some(load),
        )
    }

    /// The date of the price, when `as_of` holds one (validated offers always do).
    pub fn price_date(&self) -> Option<crate::numbers::date::PriceDate> {
        crate::numbers::date::PriceDate::parse(&self.as_of).ok()
    }

    /// A row to fill in: one whole GPU billed per second, pay-as-you-go, in a tier-1 region, with
    /// no extra charges, controls, measured figures or interruptions. Not a valid offer until its
    /// id, provider, GPU, memory, price and source are set.
    pub fn blank() -> Offer {
        Offer {
            id: String::new(),
            provider: String::new(),
            region: Region {
                id: String::new(),
                name: String::new(),
                class: RegionClass::Tier1,
                rtt_ms: default_rtt_ms(RegionClass::Tier1),
            },
            instance_type: None,
            gpu: String::new(),
            gpu_count: 1,
            tenancy: Tenancy::Dedicated,
            gpu_fraction: 1.0,
            mig_profile: None,
            neighbour_load: None,
            neighbour_load_measured: false,
            compute_capped: false,
            interconnect: None,
            gpus_per_node: None,
            node_network_gbps: None,
            node_network_rdma: false,
            vram_gib: 0.0,
            vcpu: None,
            ram_gib: None,
            billing_mode: BillingMode::PayAsYouGo,
            term_months: None,
            upfront: None,
            price: Decimal::ZERO,
            currency: Currency::Cny,
            granularity: Some(Granularity::Second),
            minimum_minutes: None,
            interruptions: Interruptions::default(),
            queue_wait_hours: None,
            queue_p0: None,
            queue_median_hours: None,
            queue_sigma: None,
            queue_trace: None,
            storage_per_gb_month: Decimal::ZERO,
            egress_per_gb: Decimal::ZERO,
            system_disk_per_month: Decimal::ZERO,
            security: vec![],
            slowdown: None,
            io: None,
            as_of: String::new(),
            source: String::new(),
            price_evidence: None,
            estimate: false,
            estimate_note: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::IoRates;

    #[test]
    fn weights_load_at_the_slower_of_the_measured_rates() {
        let none = IoRates::default();
        assert_eq!(none.load_gb_per_second(), None);
        let disk = IoRates {
            disk_read_mb_s: Some(500.0),
            download_mbit_s: None,
        };
        assert_eq!(disk.load_gb_per_second(), Some(0.5));
        let both = IoRates {
            download_mbit_s: Some(2000.0),
            ..disk
        };
        assert_eq!(both.load_gb_per_second(), Some(0.25));
        let broken = IoRates {
            disk_read_mb_s: Some(0.0),
            download_mbit_s: Some(f64::NAN),
        };
        assert_eq!(broken.load_gb_per_second(), None);
    }
}
