//! The headline figures of a probe profile, for putting machines side by side: per GPU the
//! visible against the nominal VRAM and the PCIe link, the disk's sequential and random rates,
//! the network's throughput and round-trip time, and the spread of GPU utilisation while
//! sampling. Plain numbers; the site and the CLI format them.

use crate::hardware::gpu::spec_for;
use crate::numbers::stats::Summary;
use crate::profile::document::Profile;
use crate::profile::gpu::GpuFacts;
use crate::profile::network::Direction;

/// Visible VRAM below this share of the card's nominal memory means a slice (ECC costs up to 1/16
/// of a GDDR card's memory, so a ratio from 0.90 up is still a whole card).
pub const SLICE_RATIO: f64 = 0.90;

/// Visible VRAM above this share of nominal means a card that is not what its name says.
pub const OVERSIZE_RATIO: f64 = 1.02;

/// The memory a GPU shows over what a whole card of its model shows (NVML `memory.total` in MiB
/// against the spec table's), when both are known: about 1 for a whole card.
pub fn memory_ratio(gpu: &GpuFacts) -> Option<f64> {
    let spec = spec_for(&gpu.name)?;
    let total = gpu.memory_total_bytes?;
    Some(total as f64 / (1024.0 * 1024.0) / spec.nvml_total_mib as f64)
}

/// One GPU of a machine.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuFigures {
    /// NVML index.
    pub index: u32,
    /// NVML name.
    pub name: String,
    /// Memory NVML reports, GiB (what a job can see).
    pub visible_gib: Option<f64>,
    /// The card's memory on its data sheet, GB as vendors write it (the spec table).
    pub nominal_gb: Option<f64>,
    /// The link as it runs now: (generation, lanes).
    pub pcie_current: Option<(u32, u32)>,
    /// What the card and slot allow: (generation, lanes).
    pub pcie_max: Option<(u32, u32)>,
    /// The PCIe generation of the card on its data sheet (a newer card in an older slot reports
    /// the slot's generation as its maximum).
    pub spec_pcie_gen: Option<u32>,
    /// GPU utilisation over the sampling window, percent (before anything of ours ran).
    pub utilisation_pct: Option<Summary>,
    /// Visible memory over a whole card's, as the slice verdict judges it ([`memory_ratio`]).
    pub memory_ratio: Option<f64>,
}

impl GpuFigures {
    /// Visible over nominal memory (GiB against GB taken as GiB, as vendors round), when both
    /// are known: about 1 for a whole card, well below 1 for a slice or a capped container.
    pub fn visible_share(&self) -> Option<f64> {
        match (self.visible_gib, self.nominal_gb) {
            (Some(v), Some(n)) if n > 0.0 => Some(v / n),
            _ => None,
        }
    }

    /// Whether the GPU shows less memory than a whole card of its model: a slice or a cap, by the
    /// same rule as the slice verdict ([`SLICE_RATIO`]).
    pub fn below_whole_card(&self) -> bool {
        self.memory_ratio.is_some_and(|r| r < SLICE_RATIO)
    }

    /// Whether the link runs below what the card can do: fewer lanes than the maximum, or an
    /// older generation than the maximum or the card's data sheet; `None` when not reported.
    pub fn pcie_degraded(&self) -> Option<bool> {
        let (g, w) = self.pcie_current?;
        let (best_gen, best_lanes) = self.pcie_best()?;
        Some(g < best_gen || w < best_lanes)
    }

    /// The best link the card can run: (generation, lanes) from the reported maximum (or the
    /// current link when no maximum is reported), the generation raised to the data sheet's
    /// when the slot reports an older one.
    pub fn pcie_best(&self) -> Option<(u32, u32)> {
        let (g, w) = self.pcie_max.or(self.pcie_current)?;
        Some((g.max(self.spec_pcie_gen.unwrap_or(0)), w))
    }
}

/// The disk tests of a profile, the rates a job would see.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiskFigures {
    /// Sequential read, MB/s (10^6 bytes per second).
    pub seq_read_mb_s: Option<f64>,
    /// Sequential write, MB/s.
    pub seq_write_mb_s: Option<f64>,
    /// 4 KiB random read, operations per second.
    pub rand_read_iops: Option<f64>,
    /// Whether the tests bypassed the page cache (O_DIRECT).
    pub direct_io: bool,
}

/// The network tests of a profile: the best result of each kind.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NetworkFigures {
    /// iperf3 upload (this machine sends), Mbit/s.
    pub upload_mbit_s: Option<f64>,
    /// iperf3 download (`-R`), Mbit/s.
    pub download_mbit_s: Option<f64>,
    /// HTTP download, Mbit/s.
    pub http_mbit_s: Option<f64>,
    /// The lowest median TCP connect time over the endpoints timed, milliseconds.
    pub rtt_ms: Option<f64>,
}

impl NetworkFigures {
    /// The best download rate, Mbit/s: iperf3 in reverse or an HTTP download.
    pub fn best_download_mbit_s(&self) -> Option<f64> {
        [self.download_mbit_s, self.http_mbit_s]
            .into_iter()
            .flatten()
            .reduce(f64::max)
    }

    /// Whether no network test gave a figure.
    pub fn is_empty(&self) -> bool {
        *self == NetworkFigures::default()
    }
}

/// Everything a comparison row shows about one machine.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineFigures {
    /// One entry per GPU the profile saw.
    pub gpus: Vec<GpuFigures>,
    /// Absent when the disk was not tested.
    pub disk: Option<DiskFigures>,
    /// Absent when no network test gave a figure.
    pub network: Option<NetworkFigures>,
}

/// The figures of `profile`.
pub fn machine_figures(profile: &Profile) -> MachineFigures {
    let utilisation = |index: u32| {
        profile
            .sampling
            .as_ref()?
            .gpus
            .iter()
            .find(|g| g.index == index)?
            .metrics
            .get("utilization_gpu_pct")?
            .summary
    };
    let gpus = profile
        .gpus
        .iter()
        .map(|g| {
            let spec = spec_for(&g.name);
            let link = g.pcie.as_ref();
            let pair = |gen_: Option<u32>, width: Option<u32>| Some((gen_?, width?));
            GpuFigures {
                index: g.index,
                name: g.name.clone(),
                visible_gib: g
                    .memory_total_bytes
                    .map(|b| b as f64 / f64::from(1u32 << 30)),
                nominal_gb: spec.map(|s| s.vram_gb),
                spec_pcie_gen: spec.map(|s| s.pcie_gen),
                pcie_current: link.and_then(|l| pair(l.gen_current, l.width_current)),
                pcie_max: link.and_then(|l| pair(l.gen_max, l.width_max)),
                utilisation_pct: utilisation(g.index),
                memory_ratio: memory_ratio(g),
            }
        })
        .collect();
    let disk = profile.disk.as_ref().and_then(|d| {
        let figures = DiskFigures {
            seq_read_mb_s: d.seq_read.as_ref().map(|t| t.mb_per_s),
            seq_write_mb_s: d.seq_write.as_ref().map(|t| t.mb_per_s),
            rand_read_iops: d.rand_read.as_ref().map(|t| t.iops),
            direct_io: d.direct_io,
        };
        let any = figures.seq_read_mb_s.is_some()
            || figures.seq_write_mb_s.is_some()
            || figures.rand_read_iops.is_some();
        any.then_some(figures)
    });
    let network = network_figures(profile);
    MachineFigures {
        gpus,
        disk,
        network,
    }
}

/// The network figures of `profile`; absent when no test gave one. A rate counts only from a
/// test that finished without an error.
pub fn network_figures(profile: &Profile) -> Option<NetworkFigures> {
    let n = profile.network.as_ref()?;
    let best = |xs: &mut dyn Iterator<Item = f64>| {
        xs.filter(|x| x.is_finite() && *x > 0.0).reduce(f64::max)
    };
    let iperf = |dir: Direction| {
        best(
            &mut n
                .iperf3
                .iter()
                .filter(|r| r.direction == dir && r.error.is_none())
                .filter_map(|r| r.mbit_per_s),
        )
    };
    let figures = NetworkFigures {
        upload_mbit_s: iperf(Direction::Upload),
        download_mbit_s: iperf(Direction::Download),
        http_mbit_s: best(
            &mut n
                .http
                .iter()
                .filter(|h| h.error.is_none())
                .filter_map(|h| h.mbit_per_s),
        ),
        rtt_ms: n
            .rtt
            .iter()
            .filter_map(|r| r.median_ms)
            .filter(|x| x.is_finite())
            .reduce(f64::min),
    };
    (!figures.is_empty()).then_some(figures)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::document::parse_profile;

    fn fixture(name: &str) -> Profile {
        let text = match name {
            "hami-4090-neighbours.json" => {
                include_str!("../../../tests/profiles/hami-4090-neighbours.json")
            }
            "dedicated-h100.json" => include_str!("../../../tests/profiles/dedicated-h100.json"),
            "capped-a100-pcie-gen3.json" => {
                include_str!("../../../tests/profiles/capped-a100-pcie-gen3.json")
            }
            other => panic!("no fixture {other}"),
        };
        parse_profile(text).expect("parses")
    }

    #[test]
    fn a_memory_capped_slice_sees_a_third_of_its_card() {
        let f = machine_figures(&fixture("hami-4090-neighbours.json"));
        let g = &f.gpus[0];
        assert_eq!(g.nominal_gb, Some(24.0));
        let share = g.visible_share().expect("both known");
        assert!(share < 0.5, "a HAMi cap, not the whole card: {share}");
        assert_eq!(g.pcie_degraded(), Some(false));
        let util = g.utilisation_pct.expect("sampled");
        assert!(
            util.p50 > 0.0,
            "neighbours keep the GPU busy before we start"
        );
        assert!(f.disk.is_none() && f.network.is_none());
    }

    #[test]
    fn a_whole_card_sees_its_memory_and_a_gen3_slot_is_flagged() {
        let whole = machine_figures(&fixture("dedicated-h100.json"));
        let share = whole.gpus[0].visible_share().expect("both known");
        assert!(share > 0.95, "whole card: {share}");
        let capped = machine_figures(&fixture("capped-a100-pcie-gen3.json"));
        assert_eq!(capped.gpus[0].pcie_degraded(), Some(true));
    }

    #[test]
    fn disk_and_network_take_the_best_of_each_kind() {
        use crate::profile::{DiskReport, DiskTest, Iperf3Result, NetworkReport, RttResult};
        let test = |mb: f64, iops: f64| DiskTest {
            block_bytes: 4096,
            queue_depth: 1,
            seconds: 1.0,
            bytes: 1,
            mb_per_s: mb,
            iops,
            latency_ms: None,
            window_mb_per_s: None,
        };
        let mut p = fixture("dedicated-h100.json");
        p.disk = Some(DiskReport {
            dir: "/data".into(),
            filesystem: None,
            mount_point: None,
            mount_source: None,
            free_bytes: None,
            total_bytes: None,
            file_size_bytes: 1 << 20,
            direct_io: true,
            engine: "aio".into(),
            seq_write: Some(test(900.0, 900.0)),
            seq_read: Some(test(1800.0, 1800.0)),
            rand_read: None,
            notes: vec![],
        });
        let iperf = |direction, mbit| Iperf3Result {
            server: "10.0.0.2:5201".into(),
            direction,
            streams: 4,
            seconds: 5.0,
            bytes: None,
            mbit_per_s: mbit,
            stream_mbit_per_s: vec![],
            retransmits: None,
            error: None,
        };
        let rtt = |median| RttResult {
            target: "x:443".into(),
            region: None,
            address: None,
            dns_ms: None,
            tries: 5,
            samples_ms: vec![],
            min_ms: None,
            median_ms: median,
            error: None,
        };
        p.network = Some(NetworkReport {
            iperf3: vec![
                iperf(Direction::Upload, Some(900.0)),
                iperf(Direction::Upload, Some(9400.0)),
                iperf(Direction::Download, None),
            ],
            http: vec![],
            rtt: vec![rtt(Some(12.5)), rtt(Some(3.25)), rtt(None)],
        });
        let f = machine_figures(&p);
        let d = f.disk.expect("disk");
        assert_eq!(
            (d.seq_read_mb_s, d.seq_write_mb_s, d.rand_read_iops),
            (Some(1800.0), Some(900.0), None)
        );
        let n = f.network.expect("network");
        assert_eq!(n.upload_mbit_s, Some(9400.0));
        assert_eq!(n.download_mbit_s, None, "a failed test gives no figure");
        assert_eq!(n.rtt_ms, Some(3.25));
        p.network = Some(NetworkReport {
            iperf3: vec![iperf(Direction::Upload, None)],
            http: vec![],
            rtt: vec![],
        });
        assert!(
            machine_figures(&p).network.is_none(),
            "only failures: no figures"
        );
    }
}
