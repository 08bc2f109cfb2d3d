//! The flags of `gpufare fleet`: slurm, k8s, merge and report.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Subcommand)]
pub enum FleetCommand {
    /// Write (and with --submit submit) a Slurm batch script that runs `gpufare probe` once per
    /// node, each task writing its profile atomically into a shared output directory.
    Slurm(SlurmArgs),
    /// Print Kubernetes manifests (YAML) for the same run: an Indexed Job with one pod per GPU
    /// node, or with --daemonset a DaemonSet.
    K8s(K8sArgs),
    /// Merge profiles (files, or directories of *.json and *.jsonl) into one fleet file, one
    /// profile per line; duplicates (same host and GPU UUIDs) and damaged files are reported and
    /// left out.
    Merge(MergeArgs),
    /// Group a fleet by GPU model and kind of capacity, give each group's spread of every
    /// measured figure and verdict counts, and list the outliers with their reasons.
    Report(ReportArgs),
}

/// How `fleet slurm` spreads the probe over nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SlurmMode {
    /// A job array `--array=0-(N-1)`, one task each (add --exclusive for a whole node each).
    Array,
    /// One job over N nodes, `srun` starting one task per node.
    Srun,
}

#[derive(Debug, Args)]
pub struct SlurmArgs {
    /// Tasks to run: array tasks, or nodes with --mode srun.
    #[arg(short = 'n', long, visible_alias = "tasks", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub nodes: u32,

    /// A job array, or srun over N nodes.
    #[arg(long, value_enum, default_value_t = SlurmMode::Array)]
    pub mode: SlurmMode,

    /// The shared directory every task writes its profile to (gpufare-JOB-TASK-HOST.json). `%a`
    /// in it becomes the task index (a directory per task).
    #[arg(long, value_name = "DIR")]
    pub output_dir: PathBuf,

    /// Slurm partition (#SBATCH --partition).
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,

    /// Generic resources per task, e.g. gpu:1 (#SBATCH --gres).
    #[arg(long, value_name = "GRES")]
    pub gres: Option<String>,

    /// Time limit, e.g. 00:15:00 (#SBATCH --time).
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,

    /// Account to charge (#SBATCH --account).
    #[arg(long, value_name = "ACCOUNT")]
    pub account: Option<String>,

    /// A whole node per task (#SBATCH --exclusive).
    #[arg(long)]
    pub exclusive: bool,

    /// The job's name.
    #[arg(long, value_name = "NAME", default_value = "gpufare-fleet")]
    pub job_name: String,

    /// Where Slurm writes each task's log (gpufare-JOB-TASK.log); default: Slurm's own
    /// (slurm-JOB_TASK.out in the directory of submission).
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,

    /// The gpufare binary as the nodes see it [default: this binary's path].
    #[arg(long, value_name = "PATH")]
    pub gpufare: Option<PathBuf>,

    /// Where to write the script; `-` is standard output.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// Submit the script with sbatch (and print the job id).
    #[arg(long)]
    pub submit: bool,

    /// With --submit: follow the job until it ends, then report every task that failed or never
    /// ran (missing profile, sacct state); exit non-zero if any did.
    #[arg(long, requires = "submit")]
    pub wait: bool,

    /// Seconds between squeue polls with --wait.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = parse_poll)]
    pub poll: f64,

    /// `gpufare probe` flags for every task, after `--` (not -o: the fleet chooses the output).
    #[arg(last = true, value_name = "PROBE FLAGS")]
    pub probe_args: Vec<String>,
}

fn parse_poll(text: &str) -> Result<f64, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(0.1..=3600.0).contains(&v) {
        return Err("must be between 0.1 and 3600 seconds".to_owned());
    }
    Ok(v)
}

#[derive(Debug, Args)]
pub struct K8sArgs {
    /// Pods (completions = parallelism = N), one per GPU node.
    #[arg(short = 'n', long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub nodes: u32,

    /// A container image with gpufare on its PATH (and the NVIDIA container runtime's driver
    /// libraries mounted, as the device plugin does).
    #[arg(long, value_name = "IMAGE")]
    pub image: String,

    /// Only nodes whose nvidia.com/gpu.product label is this (e.g. NVIDIA-H100-80GB-HBM3);
    /// default: any node with that label.
    #[arg(long, value_name = "PRODUCT")]
    pub gpu_product: Option<String>,

    /// nvidia.com/gpu requested (and limited) per pod.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub gpus: u32,

    /// Name of the Job or DaemonSet, and of the label that ties its pods together.
    #[arg(long, value_name = "NAME", default_value = "gpufare-fleet")]
    pub name: String,

    /// Namespace.
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,

    /// Each node's directory the profiles are written to (a hostPath volume).
    #[arg(
        long,
        value_name = "DIR",
        default_value = "/var/lib/gpufare-fleet",
        conflicts_with = "pvc"
    )]
    pub host_path: String,

    /// Write the profiles to this PersistentVolumeClaim instead (ReadWriteMany, so every pod
    /// mounts it).
    #[arg(long, value_name = "CLAIM")]
    pub pvc: Option<String>,

    /// A DaemonSet (a pod on every matching GPU node, kept running after the probe) instead of
    /// an Indexed Job.
    #[arg(long)]
    pub daemonset: bool,

    /// Where to write the manifest; `-` is standard output.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// `gpufare probe` flags for every pod, after `--` (not -o).
    #[arg(last = true, value_name = "PROBE FLAGS")]
    pub probe_args: Vec<String>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Profiles, fleet files (.jsonl) and directories (their *.json and *.jsonl, sorted by name).
    #[arg(required = true, value_name = "DIR|FILE")]
    pub inputs: Vec<PathBuf>,

    /// Where to write the fleet (JSON lines, one profile each); `-` is standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// Leave out host names, GPU and MIG UUIDs and PCI ids.
    #[arg(long)]
    pub redact: bool,
}

/// Output formats of `fleet report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Aligned columns for people.
    Table,
    /// The report as one JSON document.
    Json,
    /// Markdown.
    Md,
}

/// What makes `fleet report` exit non-zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Any outlier: a node that differs from its group (a figure outside its group's band, or a
    /// warning verdict that most of its group does not carry).
    Outliers,
    /// Any group finding: a warning verdict that most of a group's nodes carry.
    Findings,
    /// Either.
    Any,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The fleet file written by `gpufare fleet merge`.
    #[arg(value_name = "FLEET.jsonl")]
    pub fleet: PathBuf,

    /// Thresholds (TOML or JSON); default: the documented defaults.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,

    /// Where to write the report; `-` is standard output.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// Exit with status 1 when the fleet has outliers (nodes that differ from their group), group
    /// findings (a warning most of a group carries) or either (to gate a Slurm prolog or a CI job).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<FailOn>,

    /// Also write the per-node figures and verdicts in the Prometheus text format, for
    /// node_exporter's textfile collector (written atomically).
    #[arg(long, value_name = "FILE")]
    pub prometheus: Option<PathBuf>,
}
