//! `gpufare fleet`, run as a user would.
//!
//! The Slurm test starts a real one-node Slurm cluster (Debian's slurm-wlm and munge) in a
//! temporary directory on loopback, submits `gpufare fleet slurm --submit --wait` as a job array,
//! then merges and reports what the tasks wrote. It needs root and the packages, which
//! `cargo xtask test` installs; without them it fails and says so. The daemons it starts are
//! stopped by PID when the test ends, whether it passed or not.
//!
//! No timing is asserted: waits are bounded only so a broken cluster cannot hang the suite.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::{gpufare, run, scratch, text};

// ---- a real one-node Slurm cluster ----

/// Daemons this test started, stopped by PID when dropped (the test passed or not), and a
/// read-only mount to undo.
#[derive(Default)]
struct Cluster {
    conf: PathBuf,
    pid_files: Vec<PathBuf>,
    munged_pid: Option<i32>,
    mounts: Vec<PathBuf>,
    /// Daemons started in the foreground (MariaDB), stopped and reaped after the others.
    children: Vec<std::process::Child>,
    /// One cluster at a time (they share munge and the host's name); released after the
    /// daemons are stopped.
    turn: Option<std::sync::MutexGuard<'static, ()>>,
}

/// Held by the cluster running now.
static ONE_CLUSTER: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Drop for Cluster {
    fn drop(&mut self) {
        for m in self.mounts.drain(..) {
            let _ = Command::new("umount").arg("-l").arg(&m).status();
        }
        for f in &self.pid_files {
            if let Some(pid) = read_pid(f) {
                kill(pid);
            }
        }
        for mut child in self.children.drain(..) {
            kill(child.id() as i32);
            let _ = child.wait();
        }
        if let Some(pid) = self.munged_pid {
            kill(pid);
        }
    }
}

fn read_pid(path: &Path) -> Option<i32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn kill(pid: i32) {
    let _ = Command::new("kill")
        .arg(pid.to_string())
        .stderr(Stdio::null())
        .status();
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn short_hostname() -> String {
    let out = run(Command::new("hostname").arg("-s"));
    text(&out.stdout).trim().to_owned()
}

fn munge_works() -> bool {
    Command::new("sh")
        .args(["-c", "munge -n | unmunge"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Starts munged (unless one already answers) as the munge user.
fn start_munge(cluster: &mut Cluster) {
    if munge_works() {
        return;
    }
    let key = Path::new("/etc/munge/munge.key");
    if !key.exists() {
        let ok = Command::new("mungekey")
            .arg("-c")
            .status()
            .unwrap()
            .success();
        assert!(ok, "mungekey -c failed");
    }
    let setup = "chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key \
                 && mkdir -p /run/munge && chown munge:munge /run/munge";
    assert!(
        Command::new("sh")
            .args(["-c", setup])
            .status()
            .unwrap()
            .success(),
        "preparing munge failed"
    );
    let out = run(Command::new("su").args(["-s", "/bin/sh", "munge", "-c", "munged"]));
    assert!(out.status.success(), "munged: {}", text(&out.stderr));
    cluster.munged_pid = read_pid(Path::new("/run/munge/munged.pid"));
    let until = Instant::now() + Duration::from_secs(30);
    while !munge_works() {
        assert!(Instant::now() < until, "munge never answered");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Waits until `cmd` succeeds, for at most `seconds`; fails the test with `what` and `log`.
fn wait_for(mut cmd: impl FnMut() -> Output, seconds: u64, what: &str, log: &Path) {
    let until = Instant::now() + Duration::from_secs(seconds);
    loop {
        let out = cmd();
        if out.status.success() {
            return;
        }
        assert!(
            Instant::now() < until,
            "{what} never answered: {}\n{}:\n{}",
            text(&out.stderr),
            log.display(),
            fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// Slurm's accounting as sites run it: a MariaDB server on a fresh data directory under `dir`
/// and slurmdbd on it, both on free loopback ports and stopped with the cluster. Returns the
/// slurm.conf lines that send the cluster's job records there; slurmdbd.conf goes beside
/// `conf` (slurmdbd finds it through SLURM_CONF).
fn start_accounting(cluster: &mut Cluster, dir: &Path, conf: &Path) -> String {
    let d = dir.display();
    let db = dir.join("mariadb");
    let install = run(Command::new("mariadb-install-db")
        .arg("--no-defaults")
        .arg(format!("--datadir={}", db.display()))
        .args([
            "--user=root",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
        ]));
    assert!(
        install.status.success(),
        "mariadb-install-db: {}{}",
        text(&install.stdout),
        text(&install.stderr)
    );
    let db_port = free_port();
    let log = dir.join("mariadb.err");
    let server = Command::new("/usr/sbin/mariadbd")
        .arg("--no-defaults")
        .arg(format!("--datadir={}", db.display()))
        .args([
            "--user=root",
            "--bind-address=127.0.0.1",
            "--skip-name-resolve",
        ])
        .arg(format!("--port={db_port}"))
        .arg(format!("--socket={d}/mariadb.sock"))
        .arg(format!("--pid-file={d}/mariadb.pid"))
        .arg(format!("--log-error={}", log.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mariadbd starts");
    cluster.children.push(server);
    wait_for(
        || {
            run(Command::new("mariadb-admin")
                .args(["--no-defaults", "-h", "127.0.0.1", "-u", "root", "ping"])
                .arg(format!("-P{db_port}")))
        },
        60,
        "MariaDB",
        &log,
    );
    let dbd_port = free_port();
    let dbd_conf = conf.with_file_name("slurmdbd.conf");
    fs::write(
        &dbd_conf,
        format!(
            "AuthType=auth/munge\n\
             DbdHost=localhost\n\
             DbdAddr=127.0.0.1\n\
             DbdPort={dbd_port}\n\
             SlurmUser=root\n\
             LogFile={d}/slurmdbd.log\n\
             PidFile={d}/slurmdbd.pid\n\
             StorageType=accounting_storage/mysql\n\
             StorageHost=127.0.0.1\n\
             StoragePort={db_port}\n\
             StorageUser=root\n\
             StorageLoc=gpufare_acct\n"
        ),
    )
    .unwrap();
    // slurmdbd refuses a configuration others can read: it may hold the database password.
    fs::set_permissions(
        &dbd_conf,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    format!(
        "AccountingStorageType=accounting_storage/slurmdbd\n\
         AccountingStorageHost=127.0.0.1\n\
         AccountingStoragePort={dbd_port}\n\
         JobAcctGatherType=jobacct_gather/none\n"
    )
}

/// Starts slurmdbd for a configuration whose accounting lines came from [`start_accounting`] and
/// registers the cluster, before slurmctld starts.
fn start_slurmdbd(cluster: &mut Cluster, dir: &Path, conf: &Path) {
    let out = run(Command::new("/usr/sbin/slurmdbd").env("SLURM_CONF", conf));
    assert!(out.status.success(), "slurmdbd: {}", text(&out.stderr));
    cluster.pid_files.push(dir.join("slurmdbd.pid"));
    let log = dir.join("slurmdbd.log");
    wait_for(
        || {
            run(Command::new("sacctmgr")
                .args(["-n", "list", "cluster"])
                .env("SLURM_CONF", conf))
        },
        60,
        "slurmdbd",
        &log,
    );
    let add = run(Command::new("sacctmgr")
        .args(["-i", "add", "cluster", "gpufaretest"])
        .env("SLURM_CONF", conf));
    assert!(
        add.status.success(),
        "sacctmgr add cluster: {}{}",
        text(&add.stdout),
        text(&add.stderr)
    );
}

/// Starts slurmctld and slurmd on loopback with their state, logs and pid files under `dir`,
/// and waits for the node to be idle. With `accounting`, job records go to slurmdbd on MariaDB
/// ([`start_accounting`]), so `sacct` answers; without, `scontrol` is all there is.
fn start_slurm(dir: &Path, accounting: bool) -> Cluster {
    let mut needed = vec![
        "/usr/sbin/slurmctld",
        "/usr/sbin/slurmd",
        "/usr/sbin/munged",
    ];
    if accounting {
        needed.extend(["/usr/sbin/slurmdbd", "/usr/sbin/mariadbd"]);
    }
    let missing: Vec<&str> = needed
        .into_iter()
        .filter(|p| !Path::new(p).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "this test needs a real Slurm: {} missing; run `cargo xtask test`, which installs \
         Debian's slurm-wlm and munge (or `apt-get install -y slurm-wlm munge` as root)",
        missing.join(", ")
    );
    // The daemons run as root here (SlurmUser=root).
    let uid = text(&run(Command::new("id").arg("-u")).stdout);
    assert_eq!(
        uid.trim(),
        "0",
        "this test starts Slurm's daemons and needs root; run it as root (`cargo xtask test`)"
    );
    let mut cluster = Cluster::default();
    cluster.turn = Some(ONE_CLUSTER.lock().unwrap_or_else(|e| e.into_inner()));
    start_munge(&mut cluster);
    let host = short_hostname();
    let d = dir.display();
    for sub in ["state", "spool"] {
        fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let conf = dir.join("slurm.conf");
    let storage = if accounting {
        start_accounting(&mut cluster, dir, &conf)
    } else {
        "AccountingStorageType=accounting_storage/none\n".to_owned()
    };
    fs::write(
        &conf,
        format!(
            "ClusterName=gpufaretest\n\
             SlurmctldHost={host}(127.0.0.1)\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             AuthType=auth/munge\n\
             StateSaveLocation={d}/state\n\
             SlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\n\
             SlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/slurmctld.log\n\
             SlurmdLogFile={d}/slurmd.log\n\
             SlurmctldPort={}\n\
             SlurmdPort={}\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_Core\n\
             ReturnToService=2\n\
             MpiDefault=none\n\
             JobCompType=jobcomp/none\n\
             {storage}\
             MinJobAge=600\n\
             NodeName={host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n\
             PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
            free_port(),
            free_port()
        ),
    )
    .unwrap();
    cluster.conf = conf.clone();
    if accounting {
        start_slurmdbd(&mut cluster, dir, &conf);
    }
    // Stopped in this order: the node, the controller, then the accounting behind them (and
    // MariaDB, a child of this test, last of all).
    let mut daemons = vec![dir.join("slurmd.pid"), dir.join("slurmctld.pid")];
    daemons.extend(cluster.pid_files.drain(..).rev());
    cluster.pid_files = daemons;
    for daemon in ["/usr/sbin/slurmctld", "/usr/sbin/slurmd"] {
        let out = run(Command::new(daemon)
            .arg("-f")
            .arg(&conf)
            .env("SLURM_CONF", &conf));
        assert!(
            out.status.success(),
            "{daemon} did not start: {}\n{}",
            text(&out.stderr),
            fs::read_to_string(dir.join(if daemon.ends_with("slurmd") {
                "slurmd.log"
            } else {
                "slurmctld.log"
            }))
            .unwrap_or_default()
        );
    }
    let until = Instant::now() + Duration::from_secs(90);
    loop {
        let out = run(Command::new("sinfo")
            .args(["-h", "-o", "%T"])
            .env("SLURM_CONF", &conf));
        let state = text(&out.stdout);
        if state.trim() == "idle" {
            break;
        }
        assert!(
            Instant::now() < until,
            "the Slurm node never became idle (sinfo: {:?} {:?})\nslurmctld.log:\n{}",
            state.trim(),
            text(&out.stderr),
            fs::read_to_string(dir.join("slurmctld.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    cluster
}

/// Makes `dir` read-only for root too: a read-only bind mount, or the immutable attribute where
/// mounting is not allowed.
fn make_read_only(cluster: &mut Cluster, dir: &Path) {
    let bind = run(Command::new("mount").arg("--bind").arg(dir).arg(dir));
    if bind.status.success() {
        cluster.mounts.push(dir.to_path_buf());
        let ro = run(Command::new("mount")
            .args(["-o", "remount,ro,bind"])
            .arg(dir));
        assert!(ro.status.success(), "remount ro: {}", text(&ro.stderr));
    } else {
        let ok = run(Command::new("chattr").arg("+i").arg(dir));
        assert!(
            ok.status.success(),
            "cannot make {} read-only (mount: {}; chattr: {})",
            dir.display(),
            text(&bind.stderr).trim(),
            text(&ok.stderr).trim()
        );
    }
    assert!(
        fs::write(dir.join("probe-write"), "x").is_err(),
        "{} is still writable",
        dir.display()
    );
}

#[test]
fn slurm_array_probes_every_task_and_reports_the_one_that_failed() {
    let root = scratch("fleet-slurm-");
    let mut cluster = start_slurm(root.path(), false);
    let tasks = 8;
    let out_dir = root.path().join("out");
    for i in 0..tasks {
        fs::create_dir_all(out_dir.join(i.to_string())).unwrap();
    }
    // Task 3's output directory cannot be written: the task must be reported, not lost.
    make_read_only(&mut cluster, &out_dir.join("3"));
    let script = root.path().join("fleet.sbatch");
    // One node stands in for eight: with --redact each task's profile has no host name and
    // counts as a node of its own when merged.
    let (code, stdout, stderr) = fleet_slurm(
        &cluster,
        root.path(),
        &[
            "--nodes",
            &tasks.to_string(),
            "-o",
            script.to_str().unwrap(),
        ],
        &out_dir.join("%a"),
    );
    let context = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(code, Some(1), "{context}");
    assert!(
        stdout.contains(&format!(
            "{tasks} tasks, {} profiles written, 1 failed or never ran",
            tasks - 1
        )),
        "{context}"
    );
    let task3 = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("task 3:"))
        .unwrap_or_else(|| panic!("task 3 is not reported\n{context}"));
    assert!(task3.contains("FAILED"), "{task3}\n{context}");
    assert!(stderr.contains("1 of 8 tasks"), "{context}");
    assert!(
        fs::read_to_string(&script)
            .unwrap()
            .contains("#SBATCH --array=0-7")
    );

    // Every other task wrote exactly one profile, named after the job, its index and the host.
    let host = short_hostname();
    let mut inputs = Vec::new();
    for i in 0..tasks {
        let dir = out_dir.join(i.to_string());
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        if i == 3 {
            assert!(names.is_empty(), "{names:?}");
            continue;
        }
        assert_eq!(names.len(), 1, "task {i}: {names:?}\n{context}");
        let name = &names[0];
        assert!(
            name.starts_with("gpufare-") && name.ends_with(&format!("-{i}-{host}.json")),
            "{name}"
        );
        let profile: Value = serde_json::from_str(&fs::read_to_string(dir.join(name)).unwrap())
            .expect("a complete profile");
        assert!(profile["disk"].is_object(), "task {i} has no disk figures");
        inputs.push(dir);
    }

    // Merge what arrived and report on it.
    let fleet = root.path().join("fleet.jsonl");
    let merged = run(gpufare()
        .args(["fleet", "merge"])
        .args(&inputs)
        .arg("-o")
        .arg(&fleet));
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    let merge_err = text(&merged.stderr);
    assert!(merge_err.contains("7 nodes"), "{merge_err}");
    assert_eq!(fs::read_to_string(&fleet).unwrap().lines().count(), 7);
    let report = run(gpufare()
        .args(["fleet", "report", "--format", "json"])
        .arg(&fleet));
    assert!(report.status.success(), "{}", text(&report.stderr));
    let report: Value = serde_json::from_slice(&report.stdout).expect("report JSON");
    assert_eq!(report["nodes"], 7, "{report}");
    let in_groups: u64 = report["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["nodes"].as_u64().unwrap())
        .sum();
    assert_eq!(in_groups, 7, "{report}");
}

/// Every task log in `dir`, each after a line with its path (for a failing test's message).
fn task_logs(dir: &Path) -> String {
    fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| {
                    format!(
                        "--- {}\n{}",
                        e.path().display(),
                        fs::read_to_string(e.path()).unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Runs `gpufare fleet slurm ARGS --submit --wait` on `cluster` (ARGS name the tasks and `-o`)
/// with a quick probe of a disk directory under `root`; returns (status, stdout, stderr with the
/// task logs). `timeout` only keeps a broken cluster from hanging the suite; nothing is timed.
fn fleet_slurm(
    cluster: &Cluster,
    root: &Path,
    args: &[&str],
    out_dir: &Path,
) -> (Option<i32>, String, String) {
    let disk = root.join("disk");
    fs::create_dir_all(&disk).unwrap();
    let logs = root.join("logs");
    let out = run(Command::new("timeout")
        .arg("900")
        .arg(env!("CARGO_BIN_EXE_gpufare"))
        .env("SLURM_CONF", &cluster.conf)
        .current_dir(root)
        .args([
            "fleet",
            "slurm",
            "--partition",
            "debug",
            "--time",
            "00:10:00",
        ])
        .args(args)
        .args(["--poll", "1", "--submit", "--wait"])
        .arg("--output-dir")
        .arg(out_dir)
        .arg("--log-dir")
        .arg(&logs)
        .args([
            "--",
            "--no-gpu",
            "--redact",
            "--duration",
            "0",
            "--disk-size",
            "1M",
        ])
        .args(["--disk-seconds", "0.2", "--disk-dir"])
        .arg(&disk));
    let logs = task_logs(&logs);
    (
        out.status.code(),
        text(&out.stdout),
        format!("{}\nlogs:\n{logs}", text(&out.stderr)),
    )
}

/// Issue 35, item 4: the cluster as sites run it, with accounting (slurmdbd on MariaDB). `--wait`
/// reads every array task's end from `sacct`, and `--mode srun` runs for real.
#[test]
fn slurm_with_accounting_reads_task_states_from_sacct_and_runs_srun_mode() {
    let root = scratch("fleet-slurm-acct-");
    let mut cluster = start_slurm(root.path(), true);
    let out_dir = root.path().join("out");
    for i in 0..3 {
        fs::create_dir_all(out_dir.join(i.to_string())).unwrap();
    }
    make_read_only(&mut cluster, &out_dir.join("1"));
    let (code, stdout, stderr) = fleet_slurm(
        &cluster,
        root.path(),
        &["--nodes", "3", "-o", "-"],
        &out_dir.join("%a"),
    );
    let context = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(code, Some(1), "{context}");
    assert!(
        stdout.contains("3 tasks, 2 profiles written, 1 failed or never ran"),
        "{context}"
    );
    assert!(stdout.contains("task states from sacct"), "{context}");
    let task1 = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("task 1:"))
        .unwrap_or_else(|| panic!("task 1 is not reported\n{context}"));
    assert!(task1.contains("FAILED (exit 1:0)"), "{task1}\n{context}");
    // sacct itself knows the job: three array tasks, one failed.
    let job = stdout
        .split_whitespace()
        .nth(1)
        .map(|j| j.trim_end_matches(':').to_owned())
        .unwrap();
    let sacct = run(Command::new("sacct")
        .args(["-n", "-P", "-X", "-j", &job, "-o", "JobID,State"])
        .env("SLURM_CONF", &cluster.conf));
    let records = text(&sacct.stdout);
    assert_eq!(records.lines().count(), 3, "{records}");
    assert_eq!(
        records.lines().filter(|l| l.ends_with("|FAILED")).count(),
        1,
        "{records}"
    );

    // srun mode: one job, srun starting the probe on its node (one node here).
    let srun_dir = root.path().join("srun");
    let (code, stdout, stderr) = fleet_slurm(
        &cluster,
        root.path(),
        &["--mode", "srun", "--nodes", "1", "-o", "-"],
        &srun_dir,
    );
    let context = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(code, Some(0), "{context}");
    assert!(
        stdout.contains("1 tasks, 1 profiles written, 0 failed or never ran"),
        "{context}"
    );
    let names: Vec<String> = fs::read_dir(&srun_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(
        names[0].starts_with(&format!(
            "gpufare-{}",
            stdout
                .split_whitespace()
                .nth(1)
                .unwrap()
                .trim_end_matches(':')
        )),
        "{names:?}"
    );
    let profile: Value =
        serde_json::from_str(&fs::read_to_string(srun_dir.join(&names[0])).unwrap()).unwrap();
    assert!(profile["disk"].is_object(), "{profile}");
}

// ---- Kubernetes manifests ----

fn k8s(args: &[&str]) -> serde_norway::Value {
    let out = run(gpufare().args(["fleet", "k8s"]).args(args));
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_norway::from_slice(&out.stdout).expect("the manifest is YAML")
}

#[test]
fn k8s_indexed_job_has_one_gpu_pod_per_node_writing_to_a_volume() {
    let job = k8s(&[
        "--nodes",
        "12",
        "--image",
        "registry.example/gpufare:0.1",
        "--gpu-product",
        "NVIDIA-H100-80GB-HBM3",
        "--",
        "--bench",
        "--disk-dir",
        "/scratch dir",
    ]);
    assert_eq!(job["apiVersion"], "batch/v1");
    assert_eq!(job["kind"], "Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    assert_eq!(spec["completions"], 12);
    assert_eq!(spec["parallelism"], 12);
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Never");
    assert_eq!(
        pod["nodeSelector"]["nvidia.com/gpu.product"],
        "NVIDIA-H100-80GB-HBM3"
    );
    let toleration = &pod["tolerations"][0];
    assert_eq!(toleration["key"], "nvidia.com/gpu");
    assert_eq!(toleration["operator"], "Exists");
    // Pods of this fleet land on distinct nodes.
    let anti =
        &pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
    assert_eq!(anti["topologyKey"], "kubernetes.io/hostname");
    assert_eq!(
        anti["labelSelector"]["matchLabels"]["gpufare.dev/fleet"],
        spec["template"]["metadata"]["labels"]["gpufare.dev/fleet"]
    );
    let c = &pod["containers"][0];
    assert_eq!(c["image"], "registry.example/gpufare:0.1");
    assert_eq!(c["resources"]["limits"]["nvidia.com/gpu"], 1);
    assert_eq!(c["volumeMounts"][0]["name"], pod["volumes"][0]["name"]);
    assert_eq!(
        pod["volumes"][0]["hostPath"]["path"],
        "/var/lib/gpufare-fleet"
    );
    let script = c["command"][2].as_str().unwrap();
    assert!(
        script.contains("gpufare probe --quiet --bench --disk-dir '/scratch dir' -o"),
        "{script}"
    );
    assert!(
        script.contains("$JOB_COMPLETION_INDEX") && script.contains("mv -f"),
        "{script}"
    );
    assert!(
        script.contains("cat \""),
        "the profile goes to the pod's log: {script}"
    );

    // Without a product: any node carrying the label; a PVC instead of hostPath.
    let job = k8s(&[
        "--image",
        "i",
        "--pvc",
        "fleet-results",
        "--namespace",
        "gpu",
    ]);
    let pod = &job["spec"]["template"]["spec"];
    let term = &pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        [0]["matchExpressions"][0];
    assert_eq!(term["key"], "nvidia.com/gpu.product");
    assert_eq!(term["operator"], "Exists");
    assert_eq!(
        pod["volumes"][0]["persistentVolumeClaim"]["claimName"],
        "fleet-results"
    );
    assert_eq!(job["metadata"]["namespace"], "gpu");
}

#[test]
fn k8s_daemonset_variant() {
    let ds = k8s(&[
        "--daemonset",
        "--image",
        "i",
        "--gpu-product",
        "NVIDIA-A100-SXM4-80GB",
    ]);
    assert_eq!(ds["apiVersion"], "apps/v1");
    assert_eq!(ds["kind"], "DaemonSet");
    let spec = &ds["spec"];
    assert_eq!(
        spec["selector"]["matchLabels"],
        spec["template"]["metadata"]["labels"]["gpufare.dev/fleet"]
            .as_str()
            .map(|v| {
                let mut m = serde_norway::Mapping::new();
                m.insert("gpufare.dev/fleet".into(), v.into());
                serde_norway::Value::Mapping(m)
            })
            .unwrap()
    );
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Always");
    assert_eq!(
        pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"],
        1
    );
    assert!(pod["volumes"][0]["hostPath"].is_mapping());
}

#[test]
fn probe_flags_are_checked_before_anything_is_written() {
    let out = run(gpufare().args(["fleet", "k8s", "--image", "i", "--", "--no-such-flag"]));
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--no-such-flag"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let out = run(gpufare().args([
        "fleet",
        "slurm",
        "-n",
        "2",
        "--output-dir",
        "/x",
        "--",
        "-o",
        "p.json",
    ]));
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("-o/--output"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn slurm_script_in_srun_mode() {
    let out = run(gpufare().args([
        "fleet",
        "slurm",
        "--mode",
        "srun",
        "-n",
        "4",
        "--output-dir",
        "/shared/fleet",
        "--gres",
        "gpu:1",
        "--account",
        "lab",
        "--exclusive",
        "--gpufare",
        "/opt/gpufare",
    ]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for line in [
        "#SBATCH --nodes=4",
        "#SBATCH --ntasks-per-node=1",
        "#SBATCH --gres=gpu:1",
        "#SBATCH --account=lab",
        "#SBATCH --exclusive",
        "gpufare=/opt/gpufare",
        "out=/shared/fleet",
    ] {
        assert!(
            s.lines().any(|l| l.trim() == line),
            "{line:?} missing:\n{s}"
        );
    }
    assert!(s.contains("srun --nodes=4"), "{s}");
    assert!(!s.contains("--array"), "{s}");
}

// ---- bad input ----

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/profiles")
        .join(name);
    fs::read_to_string(path).unwrap()
}

/// A fixture as one compact line, under another host name.
fn fixture_line(name: &str, host: &str) -> String {
    let mut v: Value = serde_json::from_str(&fixture(name)).unwrap();
    v["host"]["hostname"] = Value::from(host);
    serde_json::to_string(&v).unwrap()
}

#[test]
fn merge_of_an_empty_directory_is_a_clear_error() {
    let dir = scratch("fleet-empty-");
    let out = run(gpufare()
        .args(["fleet", "merge"])
        .arg(dir.path())
        .arg("-o")
        .arg(dir.path().join("fleet.jsonl")));
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("holds no profiles"), "{err}");
    assert!(!dir.path().join("fleet.jsonl").exists());
}

#[test]
fn damaged_and_newer_profiles_are_skipped_and_the_rest_merged() {
    let dir = scratch("fleet-bad-");
    let d = dir.path();
    fs::write(d.join("a.json"), fixture("dedicated-h100.json")).unwrap();
    // Truncated in the middle of the directory (sorted by name).
    let whole = fixture("hami-4090-neighbours.json");
    fs::write(d.join("b.json"), &whole[..whole.len() / 2]).unwrap();
    let mut newer: Value = serde_json::from_str(&fixture("vgpu-v100d-8c.json")).unwrap();
    newer["format_version"] = Value::from(99);
    fs::write(d.join("c.json"), newer.to_string()).unwrap();
    fs::write(d.join("d.json"), fixture("mig-a100-1g10gb.json")).unwrap();
    // A half-written task output and other files are not inputs.
    fs::write(d.join(".e.json.partial"), "{").unwrap();
    fs::write(d.join("notes.txt"), "x").unwrap();
    // A fleet file with a truncated line in the middle.
    let lines = [
        fixture_line("capped-a100-pcie-gen3.json", "n1"),
        fixture_line("capped-a100-pcie-gen3.json", "n2")[..200].to_owned(),
        fixture_line("capped-a100-pcie-gen3.json", "n3"),
    ];
    fs::write(d.join("f.jsonl"), lines.join("\n") + "\n").unwrap();
    let fleet = d.join("out").join("fleet.jsonl");
    fs::create_dir(d.join("out")).unwrap();
    let out = run(gpufare()
        .args(["fleet", "merge", "--redact"])
        .arg(d)
        .arg("-o")
        .arg(&fleet));
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("b.json"), "{err}");
    assert!(err.contains("newer"), "{err}");
    assert!(err.contains("f.jsonl") && err.contains("line 2"), "{err}");
    assert!(
        !err.contains("partial") && !err.contains("notes.txt"),
        "{err}"
    );
    let merged = fs::read_to_string(&fleet).unwrap();
    assert_eq!(merged.lines().count(), 4, "{merged}");
    assert!(
        !merged.contains("\"hostname\":\"n1\""),
        "--redact keeps host names out"
    );

    // The same truncated line read by the report: named, the rest reported.
    let report = run(gpufare()
        .args(["fleet", "report", "--format", "json"])
        .arg(d.join("f.jsonl")));
    assert!(report.status.success(), "{}", text(&report.stderr));
    assert!(text(&report.stderr).contains("line 2"));
    let r: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(r["nodes"], 2);

    // A directory of damaged files only: nothing written, a clear error.
    let only_bad = scratch("fleet-allbad-");
    fs::write(only_bad.path().join("x.json"), "{\"format_version\": 2").unwrap();
    let out = run(gpufare()
        .args(["fleet", "merge"])
        .arg(only_bad.path())
        .args(["-o", "-"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no profile could be read"));
}

#[test]
fn report_formats_prometheus_rules_and_fail_on() {
    let dir = scratch("fleet-report-");
    let d = dir.path();
    let fleet = d.join("fleet.jsonl");
    let lines: Vec<String> = (0..6)
        .map(|i| fixture_line("dedicated-h100.json", &format!("node-{i}")))
        .collect();
    fs::write(&fleet, lines.join("\n") + "\n").unwrap();
    for (format, needle) in [("table", "node"), ("md", "|")] {
        let out = run(gpufare()
            .args(["fleet", "report", "--format", format])
            .arg(&fleet));
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains(needle), "{}", text(&out.stdout));
    }
    let prom = d.join("gpufare.prom");
    let out = run(gpufare()
        .args(["fleet", "report", "--format", "json", "--prometheus"])
        .arg(&prom)
        .arg(&fleet));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["nodes"], 6);
    let prom_text = fs::read_to_string(&prom).unwrap();
    assert!(prom_text.contains("# TYPE"), "{prom_text}");
    assert!(prom_text.contains("node-3"), "{prom_text}");

    // --fail-on outliers: exit 1 exactly when the report lists outlier nodes.
    let out = run(gpufare()
        .args([
            "fleet",
            "report",
            "--fail-on",
            "outliers",
            "-o",
            "/dev/null",
        ])
        .arg(&fleet));
    let expect_fail = r["outlier_nodes"].as_u64().unwrap() > 0;
    assert_eq!(out.status.success(), !expect_fail, "{}", text(&out.stderr));

    // A rules file with an unknown key: a clear message naming it, exit 2.
    let rules = d.join("rules.toml");
    fs::write(&rules, "mad_k = 4.0\nmad_kk = 3.0\n").unwrap();
    let out = run(gpufare()
        .args(["fleet", "report", "--rules"])
        .arg(&rules)
        .arg(&fleet));
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("rules.toml") && err.contains("mad_kk"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    // A good rules file is taken.
    fs::write(&rules, "mad_k = 4.0\n").unwrap();
    let out = run(gpufare()
        .args(["fleet", "report", "--format", "json", "--rules"])
        .arg(&rules)
        .arg(&fleet));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["rules"]["mad_k"], 4.0);
}

#[test]
fn plan_takes_a_fleet_as_measured_factors() {
    let dir = scratch("fleet-plan-");
    let fleet = dir.path().join("fleet.jsonl");
    let lines: Vec<String> = (0..4)
        .map(|i| fixture_line("dedicated-h100.json", &format!("node-{i}")))
        .collect();
    fs::write(&fleet, lines.join("\n") + "\n").unwrap();
    let task = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/qlora_7b.json");
    let out = run(gpufare()
        .args(["plan", "--trials", "50", "--task"])
        .arg(&task)
        .arg("--fleet")
        .arg(&fleet));
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("fleet.jsonl: measured H100"), "{err}");
}

/// `--fail-on` tells a condition the whole group shares (a group finding) from a node that
/// differs from its group (an outlier): six capped A100s in Gen3 slots have group findings and no
/// outlier until one of them also reports a thermal alert.
#[test]
fn fail_on_tells_group_findings_from_outliers() {
    let dir = scratch("fleet-fail-on-");
    let fleet = dir.path().join("fleet.jsonl");
    let mut lines: Vec<String> = (0..6)
        .map(|i| fixture_line("capped-a100-pcie-gen3.json", &format!("node-{i}")))
        .collect();
    fs::write(&fleet, lines.join("\n") + "\n").unwrap();
    let report = |fail_on: &str| {
        run(gpufare()
            .args(["fleet", "report", "--fail-on", fail_on, "--format", "json"])
            .arg(&fleet))
    };
    let out = report("outliers");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["outlier_nodes"], 0);
    let findings = r["group_findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["verdict"] == "pcie_degraded" && f["nodes"] == 6 && f["of"] == 6),
        "{findings:?}"
    );
    for what in ["findings", "any"] {
        let out = report(what);
        assert_eq!(out.status.code(), Some(1), "{what}");
        let err = text(&out.stderr);
        assert!(
            err.contains("group findings") && err.contains(&format!("--fail-on {what}")),
            "{err}"
        );
    }

    // One node with an alert of its own: now an outlier, and the shared condition still a finding.
    let mut hot: Value = serde_json::from_str(&lines[2]).unwrap();
    hot["verdicts"] = serde_json::json!([{
        "kind": "thermal_throttling", "level": "alert", "gpu": 0,
        "finding": "thermal_slowdown", "evidence": []
    }]);
    lines[2] = serde_json::to_string(&hot).unwrap();
    fs::write(&fleet, lines.join("\n") + "\n").unwrap();
    let out = report("outliers");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("1 of 6 nodes are outliers"),
        "{}",
        text(&out.stderr)
    );
}
