//! Host counters sampled while the user's command runs (`gpufare run`): CPU cores busy (the
//! cgroup's usage when readable — what a CPU quota limits — else the host's `/proc/stat`),
//! iowait, block-device reads (`/proc/diskstats`) and network receive (`/proc/net/dev`). Each
//! sample is the rate since the previous one.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::limits::Cgroups;

/// CPU time counters of `/proc/stat`'s first line, in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTicks {
    pub busy: u64,
    pub iowait: u64,
    pub total: u64,
}

/// Parses the aggregate `cpu` line of `/proc/stat`.
pub fn parse_proc_stat(text: &str) -> Option<CpuTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest is already in user).
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    let busy = get(0) + get(1) + get(2) + get(5) + get(6) + get(7);
    let idle = get(3);
    let iowait = get(4);
    (v.len() >= 4).then_some(CpuTicks {
        busy,
        iowait,
        total: busy + idle + iowait,
    })
}

/// Whether a block device name is a whole disk worth counting (partitions, loop, RAM disks and
/// device-mapper or md layers would count the same bytes twice).
pub fn is_counted_disk(name: &str, whole_disks: &[String]) -> bool {
    whole_disks.iter().any(|d| d == name)
        && !["loop", "ram", "zram", "dm-", "md", "nbd", "sr"]
            .iter()
            .any(|p| name.starts_with(p))
}

/// Sectors (512 bytes) read by the counted disks, from `/proc/diskstats`.
pub fn parse_diskstats(text: &str, whole_disks: &[String]) -> u64 {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let name = *f.get(2)?;
            is_counted_disk(name, whole_disks)
                .then(|| f.get(5)?.parse::<u64>().ok())
                .flatten()
        })
        .sum()
}

/// Bytes received by every interface but loopback, from `/proc/net/dev`.
pub fn parse_net_dev(text: &str) -> u64 {
    text.lines()
        .skip(2)
        .filter_map(|l| {
            let (name, rest) = l.split_once(':')?;
            (name.trim() != "lo")
                .then(|| rest.split_whitespace().next()?.parse::<u64>().ok())
                .flatten()
        })
        .sum()
}

#[derive(Debug, Clone, Copy)]
struct Counters {
    at: Instant,
    cgroup_usage_ns: Option<u64>,
    cpu: Option<CpuTicks>,
    disk_sectors: Option<u64>,
    net_rx_bytes: Option<u64>,
}

/// Rates over one interval; `None` where a counter could not be read.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Rates {
    pub cpu_busy_cores: Option<f64>,
    pub cpu_iowait_pct: Option<f64>,
    pub disk_read_mb_per_s: Option<f64>,
    pub net_rx_mbit_per_s: Option<f64>,
}

/// Where the cgroup's CPU usage is read: v2 `cpu.stat` (`usage_usec`) or v1 `cpuacct.usage` (ns).
#[derive(Debug, Clone)]
enum Usage {
    V2(PathBuf),
    V1(PathBuf),
}

/// Reads host counters and turns them into rates.
pub struct HostSampler {
    root: PathBuf,
    usage: Option<Usage>,
    whole_disks: Vec<String>,
    logical_cores: f64,
    prev: Counters,
}

impl HostSampler {
    /// Starts from the counters now (the root is `/` on a real machine).
    pub fn start(root: &Path) -> HostSampler {
        let cgroups = Cgroups::read(root);
        let usage = cgroups
            .dir_for("cpu")
            .filter(|d| d.version == 2)
            .map(|d| Usage::V2(d.dir.join("cpu.stat")))
            .or_else(|| {
                cgroups
                    .dir_for("cpuacct")
                    .filter(|d| d.version == 1)
                    .map(|d| Usage::V1(d.dir.join("cpuacct.usage")))
            });
        let whole_disks = std::fs::read_dir(root.join("sys/block"))
            .map(|it| {
                it.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let logical_cores = std::fs::read_to_string(root.join("proc/cpuinfo"))
            .map(|t| t.lines().filter(|l| l.starts_with("processor")).count() as f64)
            .unwrap_or(0.0);
        let mut s = HostSampler {
            root: root.to_path_buf(),
            usage,
            whole_disks,
            logical_cores,
            prev: Counters {
                at: Instant::now(),
                cgroup_usage_ns: None,
                cpu: None,
                disk_sectors: None,
                net_rx_bytes: None,
            },
        };
        s.prev = s.read();
        s
    }

    fn read(&self) -> Counters {
        let text = |p: &str| std::fs::read_to_string(self.root.join(p)).ok();
        let cgroup_usage_ns = match &self.usage {
            Some(Usage::V2(p)) => std::fs::read_to_string(p).ok().and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("usage_usec "))
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(|us| us * 1000)
            }),
            Some(Usage::V1(p)) => std::fs::read_to_string(p)
                .ok()
                .and_then(|t| t.trim().parse().ok()),
            None => None,
        };
        Counters {
            at: Instant::now(),
            cgroup_usage_ns,
            cpu: text("proc/stat").and_then(|t| parse_proc_stat(&t)),
            disk_sectors: text("proc/diskstats").map(|t| parse_diskstats(&t, &self.whole_disks)),
            net_rx_bytes: text("proc/net/dev").map(|t| parse_net_dev(&t)),
        }
    }

    /// The rates since the previous call (or since `start`).
    pub fn sample(&mut self) -> Rates {
        let now = self.read();
        let prev = std::mem::replace(&mut self.prev, now);
        let dt = now.at.duration_since(prev.at).as_secs_f64();
        if dt <= 0.0 {
            return Rates::default();
        }
        let delta = |a: Option<u64>, b: Option<u64>| Some(b?.checked_sub(a?)? as f64);
        let ticks = match (prev.cpu, now.cpu) {
            (Some(a), Some(b)) if b.total > a.total => Some((
                (b.busy.saturating_sub(a.busy)) as f64,
                (b.iowait.saturating_sub(a.iowait)) as f64,
                (b.total - a.total) as f64,
            )),
            _ => None,
        };
        let cpu_busy_cores = delta(prev.cgroup_usage_ns, now.cgroup_usage_ns)
            .map(|ns| ns / 1e9 / dt)
            .or_else(|| {
                ticks
                    .filter(|_| self.logical_cores > 0.0)
                    .map(|(busy, _, total)| busy / total * self.logical_cores)
            });
        Rates {
            cpu_busy_cores,
            cpu_iowait_pct: ticks.map(|(_, iowait, total)| iowait / total * 100.0),
            disk_read_mb_per_s: delta(prev.disk_sectors, now.disk_sectors)
                .map(|s| s * 512.0 / 1e6 / dt),
            net_rx_mbit_per_s: delta(prev.net_rx_bytes, now.net_rx_bytes)
                .map(|b| b * 8.0 / 1e6 / dt),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_stat_diskstats_and_net_dev() {
        let stat = "cpu  100 5 50 1000 40 3 2 0 0 0\ncpu0 1 2 3 4\n";
        assert_eq!(
            parse_proc_stat(stat),
            Some(CpuTicks {
                busy: 160,
                iowait: 40,
                total: 1200
            })
        );
        let disks = vec!["vda".to_owned(), "loop0".to_owned(), "nvme0n1".to_owned()];
        let diskstats = "\
 254       0 vda 100 0 2048 0 0 0 0 0 0 0 0
 254       1 vda1 100 0 2048 0 0 0 0 0 0 0 0
   7       0 loop0 10 0 999 0 0 0 0 0 0 0 0
 259       0 nvme0n1 5 0 8 0 0 0 0 0 0 0 0
";
        assert_eq!(parse_diskstats(diskstats, &disks), 2056);
        let net = "Inter-|   Receive\n face |bytes\n    lo: 999 1 0 0\n  eth0: 1000 2 0 0\n  eth1:24 1 0\n";
        assert_eq!(parse_net_dev(net), 1024);
    }

    #[test]
    fn rates_come_from_the_counters_of_a_fake_root() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let write = |p: &str, t: &str| {
            let p = r.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        write("proc/cpuinfo", "processor : 0\nprocessor : 1\n");
        write("proc/stat", "cpu  0 0 0 100 0 0 0 0\n");
        write("proc/diskstats", "254 0 vda 0 0 0 0\n");
        write("proc/net/dev", "h\nh\n eth0: 0 0\n");
        std::fs::create_dir_all(r.join("sys/block/vda")).unwrap();
        let mut s = HostSampler::start(r);
        std::thread::sleep(std::time::Duration::from_millis(20));
        // 150 of 200 ticks busy on 2 cores (1.5 cores), 50 waiting on I/O (25 %).
        write("proc/stat", "cpu  150 0 0 100 50 0 0 0\n");
        write("proc/diskstats", "254 0 vda 1 0 2000 0\n");
        write("proc/net/dev", "h\nh\n eth0: 125000 0\n");
        let rates = s.sample();
        assert!(
            (rates.cpu_busy_cores.unwrap() - 1.5).abs() < 1e-9,
            "{rates:?}"
        );
        assert!((rates.cpu_iowait_pct.unwrap() - 25.0).abs() < 1e-9);
        assert!(rates.disk_read_mb_per_s.unwrap() > 0.0);
        assert!(rates.net_rx_mbit_per_s.unwrap() > 0.0);
    }
}
