//! Host limits: the cgroup CPU quota and memory limit (v2, or v1 on older hosts), the cpuset,
//! available memory, load average, and whether this is a container or a VM, each with the file it
//! was read from.
//!
//! Everything is read below a root directory (`/` on a real machine) so tests can lay out fake
//! `/proc` and `/sys` trees. The cgroup of this process is found from `/proc/self/cgroup` and
//! `/proc/self/mountinfo` (the mount's root is stripped from the path, as container runtimes
//! mount a sub-tree); limits are hierarchical, so the tightest along the path up to the mount
//! point wins.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gpufare_core::profile::host::{HostLimits, LoadAverage};

/// A v1 memory limit at or above this is "no limit" (the kernel writes 2^63 rounded to a page).
const V1_UNLIMITED: u64 = 1 << 60;

/// One line of `/proc/self/mountinfo`, the fields we need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub root: String,
    pub mount_point: String,
    pub fs_type: String,
    pub source: String,
    pub super_options: String,
}

/// Undoes mountinfo's octal escapes (`\040` for a space).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let v = (bytes[i + 1] - b'0') * 64 + (bytes[i + 2] - b'0') * 8 + (bytes[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses `/proc/self/mountinfo`.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let l: Vec<&str> = left.split(' ').collect();
            let r: Vec<&str> = right.split(' ').collect();
            Some(Mount {
                root: unescape(l.get(3)?),
                mount_point: unescape(l.get(4)?),
                fs_type: (*r.first()?).to_owned(),
                source: unescape(r.get(1).copied().unwrap_or("")),
                super_options: r.get(2).copied().unwrap_or("").to_owned(),
            })
        })
        .collect()
}

/// The mount holding `path` (the longest mount point that is a prefix of it).
pub fn mount_of<'a>(mounts: &'a [Mount], path: &Path) -> Option<&'a Mount> {
    mounts
        .iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.len())
}

/// Counts the CPUs of a list such as `0-3,8,10-11`.
pub fn count_cpu_list(list: &str) -> Option<u32> {
    let mut n = 0u32;
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                n += b.checked_sub(a)? + 1;
            }
            None => {
                part.trim().parse::<u32>().ok()?;
                n += 1;
            }
        }
    }
    (n > 0).then_some(n)
}

/// Where this process's cgroup lives for one controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CgroupDir {
    pub version: u32,
    /// The cgroup's directory (under the root given to [`Cgroups::read`]).
    pub dir: PathBuf,
    /// The mount point of its hierarchy: the walk up stops here.
    pub top: PathBuf,
}

impl CgroupDir {
    /// This cgroup and its ancestors up to the mount point, innermost first.
    pub fn ancestry(&self) -> Vec<PathBuf> {
        let mut out = vec![self.dir.clone()];
        let mut d = self.dir.as_path();
        while d != self.top {
            match d.parent() {
                Some(p) if p.starts_with(&self.top) => {
                    out.push(p.to_path_buf());
                    d = p;
                }
                _ => break,
            }
        }
        out
    }
}

/// This process's cgroups, read from `/proc/self/cgroup` and `/proc/self/mountinfo`.
#[derive(Debug, Clone, Default)]
pub struct Cgroups {
    root: PathBuf,
    /// (hierarchy controllers, path) from /proc/self/cgroup; v2 has no controllers listed.
    membership: Vec<(BTreeSet<String>, String, bool)>,
    mounts: Vec<Mount>,
}

impl Cgroups {
    /// Reads the membership and mounts below `root`.
    pub fn read(root: &Path) -> Cgroups {
        let cgroup = std::fs::read_to_string(root.join("proc/self/cgroup")).unwrap_or_default();
        let membership = cgroup
            .lines()
            .filter_map(|l| {
                let mut parts = l.splitn(3, ':');
                let id = parts.next()?;
                let controllers = parts.next()?;
                let path = parts.next()?.to_owned();
                let set = controllers
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(str::to_owned)
                    .collect();
                Some((set, path, id == "0" && controllers.is_empty()))
            })
            .collect();
        let mounts = parse_mountinfo(
            &std::fs::read_to_string(root.join("proc/self/mountinfo")).unwrap_or_default(),
        );
        Cgroups {
            root: root.to_path_buf(),
            membership,
            mounts,
        }
    }

    fn join_under(&self, mount: &Mount, path: &str) -> CgroupDir {
        let top = self.root.join(mount.mount_point.trim_start_matches('/'));
        // The path is relative to the hierarchy's root; the mount may show only a sub-tree.
        let relative = if mount.root == "/" {
            Some(path)
        } else {
            path.strip_prefix(mount.root.as_str())
        };
        let dir = relative
            .map(|r| top.join(r.trim_start_matches('/')))
            .filter(|d| d.is_dir())
            .unwrap_or_else(|| top.clone());
        CgroupDir {
            version: if mount.fs_type == "cgroup2" { 2 } else { 1 },
            dir,
            top,
        }
    }

    /// The cgroup directory for `controller` (`cpu`, `memory`, `cpuacct`): the v2 hierarchy when
    /// it has the controller enabled, else the v1 hierarchy that mounts it.
    pub fn dir_for(&self, controller: &str) -> Option<CgroupDir> {
        if let Some((_, path, _)) = self.membership.iter().find(|(_, _, v2)| *v2) {
            let v2_controller = if controller == "cpuacct" {
                "cpu"
            } else {
                controller
            };
            for mount in self.mounts.iter().filter(|m| m.fs_type == "cgroup2") {
                let top = self.root.join(mount.mount_point.trim_start_matches('/'));
                let enabled =
                    std::fs::read_to_string(top.join("cgroup.controllers")).unwrap_or_default();
                if enabled.split_whitespace().any(|c| c == v2_controller) {
                    return Some(self.join_under(mount, path));
                }
            }
        }
        let (_, path, _) = self
            .membership
            .iter()
            .find(|(set, _, v2)| !v2 && set.contains(controller))?;
        let mount = self.mounts.iter().find(|m| {
            m.fs_type == "cgroup" && m.super_options.split(',').any(|o| o == controller)
        })?;
        Some(self.join_under(mount, path))
    }
}

fn read_trim(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_owned())
}

/// The tightest CPU quota along the cgroup path, in cores, with where it was read.
fn cpu_quota(dir: &CgroupDir) -> Option<(f64, String)> {
    let mut best: Option<(f64, String)> = None;
    for d in dir.ancestry() {
        let found = if dir.version == 2 {
            let path = d.join("cpu.max");
            read_trim(&path).and_then(|text| {
                let mut it = text.split_whitespace();
                let quota = it.next()?;
                let period: f64 = it.next().unwrap_or("100000").parse().ok()?;
                let quota: f64 = quota.parse().ok()?; // "max" fails to parse: no limit
                (period > 0.0 && quota > 0.0)
                    .then(|| (quota / period, format!("{} = {text}", path.display())))
            })
        } else {
            let qpath = d.join("cpu.cfs_quota_us");
            let ppath = d.join("cpu.cfs_period_us");
            match (read_trim(&qpath), read_trim(&ppath)) {
                (Some(q), Some(p)) => match (q.parse::<f64>(), p.parse::<f64>()) {
                    (Ok(q), Ok(p)) if q > 0.0 && p > 0.0 => Some((
                        q / p,
                        format!("{} = {q}, cpu.cfs_period_us = {p}", qpath.display()),
                    )),
                    _ => None,
                },
                _ => None,
            }
        };
        if let Some(f) = found
            && best.as_ref().is_none_or(|b| f.0 < b.0)
        {
            best = Some(f);
        }
    }
    best
}

/// The tightest memory limit along the cgroup path, bytes, with where it was read.
fn memory_limit(dir: &CgroupDir) -> Option<(u64, String)> {
    let mut best: Option<(u64, String)> = None;
    for d in dir.ancestry() {
        let path = d.join(if dir.version == 2 {
            "memory.max"
        } else {
            "memory.limit_in_bytes"
        });
        let found = read_trim(&path).and_then(|text| {
            let v: u64 = text.parse().ok()?; // "max" fails to parse: no limit
            (v < V1_UNLIMITED).then(|| (v, format!("{} = {text}", path.display())))
        });
        if let Some(f) = found
            && best.as_ref().is_none_or(|b| f.0 < b.0)
        {
            best = Some(f);
        }
    }
    best
}

/// The value of a `Key:  value` line.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        l.split_once(':')
            .filter(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim())
    })
}

/// Parses `/proc/loadavg`.
pub fn parse_loadavg(text: &str) -> Option<LoadAverage> {
    let mut it = text.split_whitespace().map(str::parse::<f64>);
    Some(LoadAverage {
        one: it.next()?.ok()?,
        five: it.next()?.ok()?,
        fifteen: it.next()?.ok()?,
    })
}

/// Container detection from files and the environment; (kind, evidence).
fn detect_container(
    root: &Path,
    env: &[(String, String)],
    mounts: &[Mount],
) -> (Option<String>, Vec<String>) {
    let mut kind: Option<&str> = None;
    let mut evidence = Vec::new();
    let mut set = |k: &'static str, why: String, evidence: &mut Vec<String>| {
        // The most specific kind wins: an orchestrator over a runtime over "some container".
        let rank = |k: &str| match k {
            "kubernetes" => 3,
            "container" => 0,
            _ => 2,
        };
        if kind.is_none_or(|old| rank(k) > rank(old)) {
            kind = Some(k);
        }
        evidence.push(why);
    };
    if root.join(".dockerenv").exists() {
        set("docker", "/.dockerenv exists".to_owned(), &mut evidence);
    }
    if root.join("run/.containerenv").exists() {
        set(
            "podman",
            "/run/.containerenv exists".to_owned(),
            &mut evidence,
        );
    }
    for (k, v) in env {
        if k == "KUBERNETES_SERVICE_HOST" {
            set("kubernetes", format!("{k}={v}"), &mut evidence);
        } else if k == "container" && !v.is_empty() {
            let kind = match v.as_str() {
                "docker" => "docker",
                "podman" => "podman",
                "lxc" => "lxc",
                _ => "container",
            };
            set(kind, format!("container={v}"), &mut evidence);
        }
    }
    if let Ok(text) = std::fs::read_to_string(root.join("proc/1/cgroup")) {
        for (needle, k) in [
            ("kubepods", "kubernetes"),
            ("docker", "docker"),
            ("libpod", "podman"),
            ("containerd", "containerd"),
            ("lxc", "lxc"),
        ] {
            if let Some(line) = text.lines().find(|l| l.contains(needle)) {
                set(k, format!("/proc/1/cgroup: {line}"), &mut evidence);
                break;
            }
        }
    }
    if let Some(m) = mounts.iter().find(|m| m.mount_point == "/")
        && m.fs_type == "overlay"
    {
        set(
            "container",
            "the root filesystem is an overlay mount".to_owned(),
            &mut evidence,
        );
    }
    (kind.map(str::to_owned), evidence)
}

/// Virtual machine detection from the CPU flags, DMI and /sys/hypervisor; (kind, evidence).
fn detect_vm(root: &Path) -> (Option<String>, Vec<String>) {
    let mut kind = None;
    let mut evidence = Vec::new();
    let dmi = |name: &str| read_trim(&root.join("sys/class/dmi/id").join(name));
    let vendor_text = [dmi("sys_vendor"), dmi("product_name"), dmi("bios_vendor")]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();
    const VENDORS: &[(&str, &str)] = &[
        ("amazon ec2", "amazon"),
        ("google compute engine", "google"),
        ("alibaba cloud", "alibaba"),
        ("tencent cloud", "tencent"),
        ("huawei cloud", "huawei"),
        ("microsoft corporation", "microsoft"),
        ("vmware", "vmware"),
        ("virtualbox", "virtualbox"),
        ("qemu", "qemu"),
        ("kvm", "kvm"),
        ("xen", "xen"),
        ("openstack", "openstack"),
        ("bochs", "bochs"),
    ];
    for text in &vendor_text {
        let lower = text.to_lowercase();
        if let Some((_, k)) = VENDORS.iter().find(|(n, _)| lower.contains(n)) {
            kind.get_or_insert_with(|| (*k).to_owned());
            evidence.push(format!("DMI: {text}"));
        }
    }
    if let Some(t) = read_trim(&root.join("sys/hypervisor/type")).filter(|t| !t.is_empty()) {
        kind.get_or_insert_with(|| t.clone());
        evidence.push(format!("/sys/hypervisor/type = {t}"));
    }
    if let Ok(cpuinfo) = std::fs::read_to_string(root.join("proc/cpuinfo"))
        && let Some(flags) = field(&cpuinfo, "flags")
        && flags.split_whitespace().any(|f| f == "hypervisor")
    {
        kind.get_or_insert_with(|| "vm".to_owned());
        evidence.push("CPU flag hypervisor".to_owned());
    }
    (kind, evidence)
}

/// Reads every limit below `root`, with the environment for container markers; `logical_cores`
/// is the host's count from the host facts.
pub fn read_limits(root: &Path, env: &[(String, String)], logical_cores: u32) -> HostLimits {
    let cgroups = Cgroups::read(root);
    let mut limits = HostLimits::default();
    if let Some(dir) = cgroups.dir_for("cpu") {
        limits.cgroup_version = Some(dir.version);
        if let Some((cores, source)) = cpu_quota(&dir) {
            limits.cpu_quota_cores = Some(cores);
            limits.sources.push(source);
        }
    }
    if let Some(dir) = cgroups.dir_for("memory") {
        limits.cgroup_version.get_or_insert(dir.version);
        if let Some((bytes, source)) = memory_limit(&dir) {
            limits.memory_limit_bytes = Some(bytes);
            limits.sources.push(source);
        }
    }
    if let Ok(status) = std::fs::read_to_string(root.join("proc/self/status"))
        && let Some(list) = field(&status, "Cpus_allowed_list")
    {
        limits.cpuset_cores = count_cpu_list(list);
        limits
            .sources
            .push(format!("/proc/self/status Cpus_allowed_list = {list}"));
    }
    let candidates = [
        (logical_cores > 0).then_some(f64::from(logical_cores)),
        limits.cpuset_cores.map(f64::from),
        limits.cpu_quota_cores,
    ];
    limits.effective_cores = candidates.into_iter().flatten().reduce(f64::min);
    if let Ok(meminfo) = std::fs::read_to_string(root.join("proc/meminfo")) {
        limits.memory_available_bytes = field(&meminfo, "MemAvailable")
            .and_then(|v| v.trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kib| kib * 1024);
    }
    limits.load_average = std::fs::read_to_string(root.join("proc/loadavg"))
        .ok()
        .and_then(|t| parse_loadavg(&t));
    let (container, container_evidence) = detect_container(root, env, &cgroups.mounts);
    limits.container = container;
    limits.container_evidence = container_evidence;
    let (vm, vm_evidence) = detect_vm(root);
    limits.virtualization = vm;
    limits.virtualization_evidence = vm_evidence;
    limits
}

/// Reads the limits of this machine.
pub fn read() -> HostLimits {
    let env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k == "KUBERNETES_SERVICE_HOST" || k == "container")
        .collect();
    let logical = std::fs::read_to_string("/proc/cpuinfo")
        .map(|t| t.lines().filter(|l| l.starts_with("processor")).count() as u32)
        .unwrap_or(0);
    read_limits(Path::new("/"), &env, logical)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn parses_lists_loadavg_and_mountinfo() {
        assert_eq!(count_cpu_list("0-3,8,10-11\n"), Some(7));
        assert_eq!(count_cpu_list("0"), Some(1));
        assert_eq!(count_cpu_list("3-1"), None);
        assert_eq!(count_cpu_list("x"), None);
        assert_eq!(
            parse_loadavg("0.50 1.25 2.00 3/107 19633\n"),
            Some(LoadAverage {
                one: 0.5,
                five: 1.25,
                fifteen: 2.0
            })
        );
        let m = parse_mountinfo(
            "36 35 98:0 /mnt1 /mnt/my\\040disk rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n",
        );
        assert_eq!(m[0].mount_point, "/mnt/my disk");
        assert_eq!(
            (m[0].fs_type.as_str(), m[0].source.as_str()),
            ("ext3", "/dev/root")
        );
        assert_eq!(
            mount_of(&m, Path::new("/mnt/my disk/data")).map(|m| m.root.as_str()),
            Some("/mnt1")
        );
    }

    /// A Kubernetes pod on cgroup v2 with a 24-core quota on a 96-core host, a tighter memory
    /// limit on the parent, and a KVM guest underneath.
    #[test]
    fn reads_a_v2_container_with_quota_and_memory_limit() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(r, "proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
        write(
            r,
            "proc/self/mountinfo",
            "1 0 0:1 / / rw - overlay overlay rw\n30 1 0:26 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
        );
        write(
            r,
            "sys/fs/cgroup/cgroup.controllers",
            "cpuset cpu io memory pids\n",
        );
        write(r, "sys/fs/cgroup/cpu.max", "max 100000\n");
        write(r, "sys/fs/cgroup/memory.max", "17179869184\n");
        write(r, "sys/fs/cgroup/ctr/cpu.max", "2400000 100000\n");
        write(r, "sys/fs/cgroup/ctr/memory.max", "max\n");
        write(
            r,
            "proc/self/status",
            "Name:\tx\nCpus_allowed_list:\t0-95\n",
        );
        write(
            r,
            "proc/meminfo",
            "MemTotal: 100 kB\nMemAvailable:  2048 kB\n",
        );
        write(r, "proc/loadavg", "12.00 11.00 10.00 1/2 3\n");
        write(r, "proc/1/cgroup", "0::/kubepods/pod1/ctr\n");
        write(
            r,
            "proc/cpuinfo",
            "processor\t: 0\nflags\t\t: fpu hypervisor sse\n",
        );
        write(r, "sys/class/dmi/id/sys_vendor", "QEMU\n");
        let env = [("KUBERNETES_SERVICE_HOST".to_owned(), "10.0.0.1".to_owned())];
        let l = read_limits(r, &env, 96);
        assert_eq!(l.cgroup_version, Some(2));
        assert_eq!(l.cpu_quota_cores, Some(24.0));
        assert_eq!(l.cpuset_cores, Some(96));
        assert_eq!(l.effective_cores, Some(24.0));
        assert_eq!(
            l.memory_limit_bytes,
            Some(16 << 30),
            "the parent's limit is tighter"
        );
        assert_eq!(l.memory_available_bytes, Some(2048 * 1024));
        assert_eq!(l.load_average.map(|a| a.one), Some(12.0));
        assert_eq!(l.container.as_deref(), Some("kubernetes"));
        assert!(l.container_evidence.iter().any(|e| e.contains("overlay")));
        assert_eq!(l.virtualization.as_deref(), Some("qemu"));
        assert!(
            l.virtualization_evidence
                .contains(&"CPU flag hypervisor".to_owned())
        );
        assert!(
            l.sources
                .iter()
                .any(|s| s.ends_with("ctr/cpu.max = 2400000 100000")),
            "{:?}",
            l.sources
        );
    }

    /// Docker on a cgroup v1 host: the quota in cpu.cfs_quota_us, a cpuset of 4, no memory limit.
    #[test]
    fn reads_a_v1_docker_container() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(
            r,
            "proc/self/cgroup",
            "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n",
        );
        write(
            r,
            "proc/self/mountinfo",
            "32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n\
             35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n\
             41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
        );
        write(r, "sys/fs/cgroup/unified/cgroup.controllers", "\n");
        write(r, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "150000\n");
        write(r, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
        write(
            r,
            "sys/fs/cgroup/memory/memory.limit_in_bytes",
            "9223372036854771712\n",
        );
        write(r, "proc/self/status", "Cpus_allowed_list:\t0-3\n");
        write(r, ".dockerenv", "");
        let l = read_limits(r, &[], 16);
        assert_eq!(l.cgroup_version, Some(1));
        assert_eq!(l.cpu_quota_cores, Some(1.5));
        assert_eq!(l.cpuset_cores, Some(4));
        assert_eq!(l.effective_cores, Some(1.5));
        assert_eq!(l.memory_limit_bytes, None, "2^63 means no limit");
        assert_eq!(l.container.as_deref(), Some("docker"));
        assert_eq!(l.virtualization, None);
    }

    #[test]
    fn a_bare_machine_has_no_limits() {
        let root = tempfile::tempdir().unwrap();
        let l = read_limits(root.path(), &[], 8);
        assert_eq!(l.effective_cores, Some(8.0));
        assert_eq!((l.cpu_quota_cores, l.memory_limit_bytes), (None, None));
        assert_eq!((l.container, l.virtualization), (None, None));
    }

    #[test]
    fn this_machine_reads_without_panicking() {
        let l = read();
        assert!(l.effective_cores.is_some_and(|c| c > 0.0), "{l:?}");
    }
}
