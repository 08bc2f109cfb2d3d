//! The bottleneck verdict: from the measured figures, is the job GPU-bound, or is the GPU waiting
//! for its input — the CPU quota, the disk or the network?
//!
//! "Don't just look at the GPU model: storage IO and network bandwidth are often the hidden
//! bottleneck." With a `gpufare run` in the profile the verdict compares what the job used with
//! what the machine can give: GPU utilisation during the run against [`GPU_BOUND_PCT`] and
//! [`GPU_STARVED_PCT`], CPU cores busy against the cores the container may use
//! (`host_limits.effective_cores`), the disk read rate during the run against the disk's measured
//! sequential read, the network receive rate against the best measured download. The most
//! saturated input wins. Without a run, only very low absolute figures are flagged
//! ([`SLOW_DISK_MB_PER_S`], [`SLOW_RANDOM_IOPS`], [`SLOW_NETWORK_MBIT_PER_S`],
//! [`MIN_CORES_PER_GPU`]).
//!
//! Every threshold is an assumption with its rationale next to it; the evidence lists the figures
//! that were compared, so a reader can judge the verdict.

use crate::profile::document::Profile;
use crate::profile::figures::network_figures;
use crate::profile::sampling::Series;
use crate::profile::verdict::{Evidence, Finding, Level, Verdict, VerdictKind};

/// GPU utilisation P50 at or above this during a run means the GPU is the bottleneck. NVML's
/// utilisation is the share of time at least one kernel ran; a well-fed training or inference
/// loop keeps it at 90–100 % (assumption: the usual "keep the GPU above 90 %" rule, minus
/// sampling noise).
pub const GPU_BOUND_PCT: f64 = 85.0;
/// GPU utilisation P50 below this means the GPU spends much of its time waiting (the issue's
/// "below ~60 %").
pub const GPU_STARVED_PCT: f64 = 60.0;
/// Busy cores at or above this share of the cores the container may use mean the CPU quota is
/// saturated (assumption: the last 10 % goes to scheduling noise and short idle gaps).
pub const CPU_SATURATED_SHARE: f64 = 0.9;
/// A disk read rate during the run at or above this share of the measured sequential read means
/// the disk is near its ceiling (assumption; the measured ceiling is O_DIRECT 1 MiB at depth 32,
/// which a data loader reading smaller files rarely beats).
pub const DISK_SATURATED_SHARE: f64 = 0.8;
/// Host-wide iowait at or above this share of CPU time (P50 over the run) means tasks wait on
/// storage (assumption; iowait is only a hint: an idle CPU waiting on I/O counts, a busy one not).
pub const IOWAIT_PCT: f64 = 20.0;
/// A network receive rate during the run at or above this share of the best measured download
/// means the link is near its ceiling (assumption, as for the disk).
pub const NETWORK_SATURATED_SHARE: f64 = 0.8;
/// Sequential read below this is a slow disk for loading models and datasets: below one SATA SSD
/// (about 500 MB/s) and the baseline of common cloud block volumes (assumption). At 200 MB/s a
/// 15 GB checkpoint takes 75 s to load.
pub const SLOW_DISK_MB_PER_S: f64 = 200.0;
/// 4 KiB random reads below this many IOPS are slow for datasets of many small files (image
/// folders, shards opened at random): a cloud volume's baseline is about 3,000, a local NVMe SSD
/// well above 100,000 (assumption).
pub const SLOW_RANDOM_IOPS: f64 = 5_000.0;
/// The best measured download below this is a slow network for pulling models and datasets
/// (10 GB take over 13 minutes at 100 Mbit/s) (assumption).
pub const SLOW_NETWORK_MBIT_PER_S: f64 = 100.0;
/// Fewer usable cores than this per GPU starve data loading: PyTorch data loaders commonly run
/// 4 or more workers per GPU, and cloud GPU instances give 4–12 vCPUs per GPU (assumption).
pub const MIN_CORES_PER_GPU: f64 = 4.0;

/// One input that can hold the GPU back, with how close to its ceiling it ran.
struct Candidate {
    finding: Finding,
    share: f64,
    evidence: Vec<Evidence>,
}

fn ev(key: &str, value: impl ToString) -> Evidence {
    Evidence {
        key: key.to_owned(),
        value: value.to_string(),
    }
}

fn p50(series: Option<&Series>) -> Option<f64> {
    series.and_then(|s| s.summary).map(|s| s.p50)
}

/// The cores a job can use: the container's effective cores, else the host's logical cores.
fn usable_cores(profile: &Profile) -> Option<f64> {
    profile
        .host_limits
        .as_ref()
        .and_then(|l| l.effective_cores)
        .or_else(|| (profile.host.logical_cores > 0).then(|| f64::from(profile.host.logical_cores)))
        .filter(|c| *c > 0.0)
}

/// The best measured download rate, Mbit/s: iperf3 in reverse, or an HTTP download.
fn best_download_mbit_per_s(profile: &Profile) -> Option<f64> {
    network_figures(profile)?.best_download_mbit_s()
}

/// The bottleneck verdict, or `None` when the profile has nothing to judge it from (no run, no
/// disk and no network figures).
pub fn bottleneck(profile: &Profile) -> Option<Verdict> {
    match &profile.runs {
        Some(_) => Some(from_run(profile)),
        None => from_figures(profile),
    }
}

fn verdict(level: Level, finding: Finding, evidence: Vec<Evidence>) -> Verdict {
    Verdict {
        kind: VerdictKind::Bottleneck,
        level,
        gpu: None,
        finding,
        evidence,
    }
}

/// With a run: compare what the job used with what the machine gives.
fn from_run(profile: &Profile) -> Verdict {
    let Some(run) = profile.runs.as_ref() else {
        return verdict(Level::Info, Finding::Undetermined, vec![]);
    };
    let util = p50(run.gpu_utilization_pct.as_ref());
    let mut candidates = Vec::new();

    if let (Some(busy), Some(cores)) = (p50(run.cpu_busy_cores.as_ref()), usable_cores(profile)) {
        let share = busy / cores;
        candidates.push(Candidate {
            finding: Finding::CpuBound,
            share: share / CPU_SATURATED_SHARE,
            evidence: vec![
                ev("cpu_busy_cores_p50", format!("{busy:.1}")),
                ev("usable_cores", format!("{cores:.1}")),
                ev("cpu_share", format!("{share:.2}")),
            ],
        });
    }

    let disk_ceiling = profile
        .disk
        .as_ref()
        .and_then(|d| d.seq_read.as_ref())
        .map(|t| t.mb_per_s)
        .filter(|v| *v > 0.0);
    let disk_run = p50(run.disk_read_mb_per_s.as_ref());
    let iowait = p50(run.cpu_iowait_pct.as_ref());
    let mut disk_share = None;
    let mut disk_evidence = Vec::new();
    if let (Some(rate), Some(ceiling)) = (disk_run, disk_ceiling) {
        let share = rate / ceiling;
        disk_share = Some(share / DISK_SATURATED_SHARE);
        disk_evidence.push(ev("disk_read_mb_per_s_p50", format!("{rate:.0}")));
        disk_evidence.push(ev("disk_seq_read_mb_per_s", format!("{ceiling:.0}")));
        disk_evidence.push(ev("disk_share", format!("{share:.2}")));
    }
    if let Some(w) = iowait {
        let s = w / IOWAIT_PCT;
        disk_share = Some(disk_share.map_or(s, |d: f64| d.max(s)));
        disk_evidence.push(ev("iowait_p50_pct", format!("{w:.0}")));
    }
    if let Some(share) = disk_share {
        candidates.push(Candidate {
            finding: Finding::DiskBound,
            share,
            evidence: disk_evidence,
        });
    }

    if let (Some(rate), Some(ceiling)) = (
        p50(run.net_rx_mbit_per_s.as_ref()),
        best_download_mbit_per_s(profile),
    ) {
        let share = rate / ceiling;
        candidates.push(Candidate {
            finding: Finding::NetworkBound,
            share: share / NETWORK_SATURATED_SHARE,
            evidence: vec![
                ev("net_rx_mbit_per_s_p50", format!("{rate:.0}")),
                ev("best_download_mbit_per_s", format!("{ceiling:.0}")),
                ev("network_share", format!("{share:.2}")),
            ],
        });
    }

    let util_evidence = util.map(|u| ev("gpu_utilization_p50_pct", format!("{u:.0}")));
    if let Some(u) = util
        && u >= GPU_BOUND_PCT
    {
        let mut evidence: Vec<Evidence> = util_evidence.into_iter().collect();
        evidence.push(ev("threshold_pct", GPU_BOUND_PCT));
        return verdict(Level::Ok, Finding::GpuBound, evidence);
    }
    // The most saturated input (share ≥ 1 means at or over its threshold).
    let worst = candidates
        .into_iter()
        .filter(|c| c.share.is_finite() && c.share >= 1.0)
        .max_by(|a, b| a.share.total_cmp(&b.share));
    if let Some(c) = worst {
        let mut evidence: Vec<Evidence> = util_evidence.into_iter().collect();
        evidence.extend(c.evidence);
        return verdict(Level::Warn, c.finding, evidence);
    }
    match util {
        Some(u) if u < GPU_STARVED_PCT => verdict(
            Level::Warn,
            Finding::GpuUnderused,
            vec![
                ev("gpu_utilization_p50_pct", format!("{u:.0}")),
                ev("threshold_pct", GPU_STARVED_PCT),
                ev(
                    "note",
                    "no CPU, disk or network saturation measured: look at data-loader workers, \
                     batch size, host-to-device copies and synchronisation",
                ),
            ],
        ),
        Some(u) => verdict(
            Level::Info,
            Finding::GpuMostlyBusy,
            vec![ev("gpu_utilization_p50_pct", format!("{u:.0}"))],
        ),
        None => verdict(
            Level::Info,
            Finding::Undetermined,
            vec![ev(
                "reason",
                "no GPU utilisation was sampled during the run",
            )],
        ),
    }
}

/// Without a run: flag figures that are slow in absolute terms.
fn from_figures(profile: &Profile) -> Option<Verdict> {
    let disk = profile.disk.as_ref();
    let measured_network = profile.network.as_ref().is_some_and(|n| {
        n.iperf3.iter().any(|r| r.error.is_none()) || n.http.iter().any(|r| r.error.is_none())
    });
    if disk.is_none() && !measured_network {
        return None;
    }
    let mut issues: Vec<(Finding, Evidence)> = Vec::new();
    let mut fine = Vec::new();
    if let Some(read) = disk.and_then(|d| d.seq_read.as_ref()) {
        let e = ev("disk_seq_read_mb_per_s", format!("{:.0}", read.mb_per_s));
        if read.mb_per_s < SLOW_DISK_MB_PER_S {
            issues.push((Finding::SlowDisk, e));
        } else {
            fine.push(e);
        }
    }
    if let Some(random) = disk.and_then(|d| d.rand_read.as_ref()) {
        let e = ev("disk_random_read_iops", format!("{:.0}", random.iops));
        if random.iops < SLOW_RANDOM_IOPS {
            issues.push((Finding::SlowDisk, e));
        } else {
            fine.push(e);
        }
    }
    if let Some(best) = best_download_mbit_per_s(profile) {
        let e = ev("best_download_mbit_per_s", format!("{best:.0}"));
        if best < SLOW_NETWORK_MBIT_PER_S {
            issues.push((Finding::SlowNetwork, e));
        } else {
            fine.push(e);
        }
    }
    let gpus = profile.gpus.len();
    if gpus > 0
        && let Some(cores) = usable_cores(profile)
    {
        let per_gpu = cores / gpus as f64;
        let e = ev("usable_cores_per_gpu", format!("{per_gpu:.1}"));
        if per_gpu < MIN_CORES_PER_GPU {
            issues.push((Finding::FewCpuCores, e));
        } else {
            fine.push(e);
        }
    }
    Some(match issues.first() {
        Some((finding, _)) => {
            let finding = *finding;
            let mut evidence: Vec<Evidence> = issues.into_iter().map(|(_, e)| e).collect();
            evidence.extend(fine);
            verdict(Level::Warn, finding, evidence)
        }
        None => verdict(Level::Ok, Finding::InputsAdequate, fine),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{
        Direction, DiskReport, DiskTest, HostLimits, HttpResult, Iperf3Result, NetworkReport,
        RunReport, parse_profile,
    };

    fn base(gpus: usize) -> Profile {
        let gpu_list: Vec<String> = (0..gpus)
            .map(|i| format!(r#"{{"index":{i},"name":"NVIDIA A10"}}"#))
            .collect();
        let text = format!(
            r#"{{"format_version":2,"tool":{{"name":"gpufare","version":"0.1.0"}},"created_at":"2026-12-02T09:30:00Z",
            "host":{{"cpu_model":"x","logical_cores":96,"total_ram_bytes":1,"os":"o","kernel":"k"}},"gpus":[{}]}}"#,
            gpu_list.join(",")
        );
        parse_profile(&text).unwrap()
    }

    fn test(mb_per_s: f64, iops: f64) -> DiskTest {
        DiskTest {
            block_bytes: 1 << 20,
            queue_depth: 32,
            seconds: 5.0,
            bytes: 1,
            mb_per_s,
            iops,
            latency_ms: None,
            window_mb_per_s: None,
        }
    }

    fn disk(read_mb_per_s: f64, rand_iops: f64) -> DiskReport {
        DiskReport {
            dir: "/data".to_owned(),
            filesystem: Some("ext4".to_owned()),
            mount_point: None,
            mount_source: None,
            free_bytes: None,
            total_bytes: None,
            file_size_bytes: 1 << 30,
            direct_io: true,
            engine: "linux-aio".to_owned(),
            seq_write: None,
            seq_read: Some(test(read_mb_per_s, read_mb_per_s)),
            rand_read: Some(test(rand_iops * 0.004, rand_iops)),
            notes: vec![],
        }
    }

    fn network(download_mbit_per_s: f64) -> NetworkReport {
        NetworkReport {
            iperf3: vec![Iperf3Result {
                server: "10.0.0.2:5201".to_owned(),
                direction: Direction::Download,
                streams: 4,
                seconds: 5.0,
                bytes: Some(1),
                mbit_per_s: Some(download_mbit_per_s),
                stream_mbit_per_s: vec![],
                retransmits: None,
                error: None,
            }],
            http: vec![HttpResult {
                url: "http://mirror/x".to_owned(),
                connections: 4,
                bytes: 1,
                seconds: 1.0,
                warmup_s: 1.0,
                mbit_per_s: Some(download_mbit_per_s / 2.0),
                window_mbit_per_s: None,
                connect_ms: None,
                ttfb_ms: None,
                notes: vec![],
                error: None,
            }],
            rtt: vec![],
        }
    }

    fn series(v: f64) -> Option<Series> {
        Some(Series::new(vec![v; 5]))
    }

    /// A run whose samples all sit at the given values (None: not sampled).
    fn run(util: Option<f64>, cpu: f64, iowait: f64, disk: f64, net: f64) -> RunReport {
        RunReport {
            command: vec!["python".to_owned(), "train.py".to_owned()],
            repeat: 3,
            interval_ms: 500,
            step_regex: None,
            runs: vec![],
            wall_s: None,
            step_ms: None,
            p99_over_p50: None,
            gpu_utilization_pct: util.and_then(series),
            vram_peak_mib: None,
            cpu_busy_cores: series(cpu),
            cpu_iowait_pct: series(iowait),
            disk_read_mb_per_s: series(disk),
            net_rx_mbit_per_s: series(net),
            notes: vec![],
        }
    }

    fn limits(cores: f64) -> HostLimits {
        HostLimits {
            cpu_quota_cores: Some(cores),
            effective_cores: Some(cores),
            ..HostLimits::default()
        }
    }

    #[test]
    fn run_verdicts_follow_the_table() {
        // (case, GPU util P50, busy cores, iowait %, disk MB/s in run, net Mbit/s in run,
        //  expected level, finding, evidence snippet)
        type Row = (
            &'static str,
            Option<f64>,
            f64,
            f64,
            f64,
            f64,
            Level,
            Finding,
            &'static str,
        );
        let rows: [Row; 8] = [
            (
                "busy GPU",
                Some(97.0),
                23.0,
                30.0,
                900.0,
                900.0,
                Level::Ok,
                Finding::GpuBound,
                "gpu_utilization_p50_pct=97",
            ),
            (
                "quota of 24 cores saturated",
                Some(40.0),
                23.5,
                1.0,
                50.0,
                10.0,
                Level::Warn,
                Finding::CpuBound,
                "cpu_share=0.98",
            ),
            (
                "disk at its ceiling",
                Some(35.0),
                6.0,
                5.0,
                950.0,
                10.0,
                Level::Warn,
                Finding::DiskBound,
                "disk_share=0.95",
            ),
            (
                "iowait high though the rate is modest",
                Some(50.0),
                3.0,
                45.0,
                200.0,
                10.0,
                Level::Warn,
                Finding::DiskBound,
                "iowait_p50_pct=45",
            ),
            (
                "network saturated",
                Some(30.0),
                4.0,
                2.0,
                10.0,
                9_500.0,
                Level::Warn,
                Finding::NetworkBound,
                "network_share=0.95",
            ),
            (
                "both CPU and disk high: the more saturated wins",
                Some(20.0),
                22.0,
                1.0,
                1_000.0,
                0.0,
                Level::Warn,
                Finding::DiskBound,
                "disk_share=1.00",
            ),
            (
                "nothing saturated, GPU idle",
                Some(30.0),
                4.0,
                2.0,
                100.0,
                100.0,
                Level::Warn,
                Finding::GpuUnderused,
                "threshold_pct=60",
            ),
            (
                "nothing saturated, GPU fairly busy",
                Some(75.0),
                4.0,
                2.0,
                100.0,
                100.0,
                Level::Info,
                Finding::GpuMostlyBusy,
                "gpu_utilization_p50_pct=75",
            ),
        ];
        for (case, util, cpu, iowait, disk_rate, net, level, finding, snippet) in rows {
            let mut p = base(1);
            p.host_limits = Some(limits(24.0));
            p.disk = Some(disk(1_000.0, 50_000.0));
            p.network = Some(network(10_000.0));
            p.runs = Some(run(util, cpu, iowait, disk_rate, net));
            let v = bottleneck(&p).unwrap();
            assert_eq!(v.kind, VerdictKind::Bottleneck, "{case}");
            assert_eq!((v.level, v.finding), (level, finding), "{case}: {v:?}");
            let text: Vec<String> = v
                .evidence
                .iter()
                .map(|e| format!("{}={}", e.key, e.value))
                .collect();
            assert!(
                text.iter().any(|t| t.contains(snippet)),
                "{case}: {snippet} not in {text:?}"
            );
        }
    }

    #[test]
    fn a_run_without_gpu_samples_can_still_be_cpu_bound() {
        let mut p = base(0);
        p.host_limits = Some(limits(2.0));
        p.runs = Some(run(None, 2.0, 0.0, 0.0, 0.0));
        let v = bottleneck(&p).unwrap();
        assert_eq!(v.finding, Finding::CpuBound);
        p.runs = Some(run(None, 0.5, 0.0, 0.0, 0.0));
        let v = bottleneck(&p).unwrap();
        assert_eq!((v.level, v.finding), (Level::Info, Finding::Undetermined));
    }

    #[test]
    fn without_a_ceiling_the_disk_and_network_rates_prove_nothing() {
        // No disk or network measured: a high read rate cannot be compared with a ceiling.
        let mut p = base(1);
        p.host_limits = Some(limits(24.0));
        p.runs = Some(run(Some(30.0), 4.0, 2.0, 5_000.0, 50_000.0));
        assert_eq!(bottleneck(&p).unwrap().finding, Finding::GpuUnderused);
        // Without host limits the host's logical cores (96) are the capacity.
        p.host_limits = None;
        p.runs = Some(run(Some(30.0), 90.0, 2.0, 0.0, 0.0));
        assert_eq!(bottleneck(&p).unwrap().finding, Finding::CpuBound);
    }

    #[test]
    fn figure_verdicts_follow_the_table() {
        // (case, seq read MB/s, random IOPS, download Mbit/s, usable cores, GPUs, level, finding)
        type Row = (&'static str, f64, f64, f64, f64, usize, Level, Finding);
        let rows: [Row; 5] = [
            (
                "fast everything",
                2_000.0,
                80_000.0,
                5_000.0,
                32.0,
                4,
                Level::Ok,
                Finding::InputsAdequate,
            ),
            (
                "slow sequential disk",
                120.0,
                80_000.0,
                5_000.0,
                32.0,
                4,
                Level::Warn,
                Finding::SlowDisk,
            ),
            (
                "few random IOPS",
                2_000.0,
                3_000.0,
                5_000.0,
                32.0,
                4,
                Level::Warn,
                Finding::SlowDisk,
            ),
            (
                "slow network",
                2_000.0,
                80_000.0,
                50.0,
                32.0,
                4,
                Level::Warn,
                Finding::SlowNetwork,
            ),
            (
                "8 GPUs on 16 cores",
                2_000.0,
                80_000.0,
                5_000.0,
                16.0,
                8,
                Level::Warn,
                Finding::FewCpuCores,
            ),
        ];
        for (case, read, iops, down, cores, gpus, level, finding) in rows {
            let mut p = base(gpus);
            p.host_limits = Some(limits(cores));
            p.disk = Some(disk(read, iops));
            p.network = Some(network(down));
            let v = bottleneck(&p).unwrap();
            assert_eq!((v.level, v.finding), (level, finding), "{case}: {v:?}");
        }
    }

    #[test]
    fn nothing_measured_gives_no_verdict() {
        let mut p = base(1);
        p.host_limits = Some(limits(2.0));
        assert_eq!(bottleneck(&p), None);
        // A failed network test is not a measurement.
        let mut n = network(10.0);
        n.iperf3[0].error = Some("server busy".to_owned());
        n.http[0].error = Some("refused".to_owned());
        p.network = Some(n);
        assert_eq!(bottleneck(&p), None);
    }
}
