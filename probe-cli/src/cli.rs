//! Command-line arguments, parsed and validated by clap before anything runs.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use gpufare_core::hardware::gpu::{find_gpu, gpu_specs};
use gpufare_core::workload::llm::arch::Precision;

/// Shared or dedicated GPU? Measure the machine, then price the choice.
#[derive(Debug, Parser)]
#[command(name = "gpufare", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read host and GPU facts and write a JSON profile for the gpufare site.
    #[command(
        after_help = "Examples:\n  gpufare probe -o profile.json\n  gpufare probe --duration 20 --bench -o profile.json\n  gpufare probe --redact --quiet -o - | less\n  gpufare probe --disk-dir /workspace --disk-size 4G -o profile.json\n  gpufare probe --iperf3 10.0.0.2 --http http://mirror.internal/model.bin --rtt-regions -o profile.json"
    )]
    Probe(ProbeArgs),
    /// Run your own benchmark N times while sampling the GPU and host; record wall times, step
    /// times, VRAM peak and utilisation, and say what the bottleneck is.
    #[command(after_help = RUN_EXAMPLES)]
    Run(RunArgs),
    /// Estimate the VRAM and run time of an LLM or Stable Diffusion workload, and which catalog
    /// offers it fits.
    #[command(after_help = ESTIMATE_EXAMPLES)]
    Estimate(EstimateArgs),
    /// Price a task against the catalog offline: ranking, breakdown, recommendation, hybrid plan
    /// and break-even, with the same numbers as the site.
    #[command(after_help = PLAN_EXAMPLES)]
    Plan(PlanArgs),
    /// List, validate, convert or refresh catalogs (our CSV/JSON, SkyPilot vms.csv, public price
    /// feeds).
    #[command(subcommand, after_help = CATALOG_EXAMPLES)]
    Catalog(CatalogCommand),
    /// Show what preemption traces hold: preemptions, running share, spells and gaps, and the
    /// model's parameters fitted to them.
    #[command(after_help = TRACE_EXAMPLES)]
    Trace {
        /// Trace files: the Can't Be Late dataset's JSON or a CSV of timestamp,count rows.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Backtest a job of this many hours of work: replay it from every tick of each trace
        /// next to the model fitted to the same trace.
        #[arg(long, value_name = "H")]
        job_hours: Option<f64>,
        /// Hours of work between the job's checkpoints (none: a preemption loses everything).
        #[arg(long, value_name = "H", requires = "job_hours")]
        checkpoint_hours: Option<f64>,
        /// Hours each restart takes after a preemption (with checkpoints).
        #[arg(long, value_name = "H", default_value_t = 0.1, requires = "job_hours")]
        restart_hours: f64,
        /// Minutes a checkpoint takes to write (default: as long as a restart).
        #[arg(long, value_name = "M", requires = "job_hours")]
        save_minutes: Option<f64>,
        /// Warning before a preemption, seconds (AWS gives 120).
        #[arg(long, value_name = "S", default_value_t = 0.0, requires = "job_hours")]
        notice_seconds: f64,
        /// Monte Carlo seed of the model.
        #[arg(long, value_name = "N", default_value_t = 1)]
        seed: u64,
        /// Monte Carlo trials of the model.
        #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        trials: u32,
    },
    /// Probe a GPU cluster through Slurm or Kubernetes, merge the profiles, and report the
    /// groups and the machines that are not what was paid for.
    #[command(subcommand, after_help = FLEET_EXAMPLES)]
    Fleet(FleetCommand),
    /// List the places a task's `location` can name (and `--location` takes): id, names, the
    /// jurisdiction whose data law applies there, and the provider regions located there.
    Places {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print the JSON Schema of a document: task, catalog, profile, plan, budget, scenario,
    /// fleet-report (`fleet report --format json`) or fleet-rules (`fleet report --rules`).
    Schema {
        /// Which document.
        #[arg(value_parser = ["task", "catalog", "profile", "plan", "budget", "scenario", "fleet-report", "fleet-rules"])]
        name: String,
    },
    /// Print a shell completion script: `gpufare completions bash > /etc/bash_completion.d/gpufare`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

const TRACE_EXAMPLES: &str = "\
Examples:
  gpufare trace tests/fixtures/traces/aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json
  gpufare trace --json my-zone.csv
  gpufare trace --job-hours 10 --checkpoint-hours 1 --restart-hours 0.1 tests/fixtures/traces/*.json";

const PLAN_EXAMPLES: &str = "\
Examples:
  gpufare plan --task examples/qlora_7b.json
  gpufare plan --task examples/sd_batch.json --currency USD --rate 7.1 --format md -o budget.md
  gpufare plan --task my-task.json --catalog quotes.csv --catalog aws-vms.csv --format json -o new.json
  gpufare plan --task my-task.json --diff old.json
  gpufare plan --task examples/qlora_7b.json --trace aws-use1-g5xl-spot=tests/fixtures/traces/aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json
  gpufare plan --scenario gpufare-budget.json --format json   # a budget or scenario exported by the site
  gpufare plan --task my-task.json --profile shared-box.json --profile dedicated-box.json
  gpufare plan --task my-task.json --catalog quotes.csv --format xlsx --lang zh -o budget.xlsx
  gpufare plan --task examples/inference_api.json --location shanghai --markets mainland-china
  gpufare plan --task examples/inference_api.json --location shanghai --rtt-from my-desk.json

Without --catalog the embedded default catalog is used. Catalog files may be UTF-8 (with or without
a byte-order mark), UTF-16 with a byte-order mark, or GB18030 (what Excel saves as CSV on a Chinese
Windows). Money in JSON and CSV is plain numbers in the output currency; the CSV starts with a
UTF-8 byte-order mark so that Excel reads it as UTF-8. Bad input files exit with status 2 and name
the file, line or field.";

const CATALOG_EXAMPLES: &str = "\
Examples:
  gpufare catalog list
  gpufare catalog validate quotes.csv                           # names the encoding it read
  gpufare catalog convert quotes.csv --to json -o quotes.json
  gpufare catalog convert aws-vms.csv --to csv -o aws.csv      # SkyPilot vms.csv -> ours
  gpufare catalog refresh azure aws gpuhunt:runpod -o cloud.json  # public price feeds -> ours";

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The task to price (JSON; `gpufare schema task` describes it; examples/ has one per preset).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "scenario",
        conflicts_with = "scenario"
    )]
    pub task: Option<PathBuf>,

    /// A scenario or a budget exported by the site: its task, settings, catalog edits and filter.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,

    /// A catalog to price against instead of the default one (our CSV or JSON, or a SkyPilot
    /// vms.csv); repeat to combine several.
    #[arg(long, value_name = "FILE")]
    pub catalog: Vec<PathBuf>,

    /// A probe profile whose measured slowdown and VRAM replace the assumptions for the offers of
    /// the same GPU and kind of capacity; repeatable.
    #[arg(long, value_name = "FILE")]
    pub profile: Vec<PathBuf>,

    /// Currency of every figure.
    #[arg(long, value_parser = ["CNY", "USD"])]
    pub currency: Option<String>,

    /// Yuan per US dollar for conversions (default 7.2, an assumption shown in the output).
    #[arg(long, value_name = "R")]
    pub rate: Option<String>,

    /// Monte Carlo seed (the same seed gives the same figures everywhere).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Monte Carlo trials per offer (default 2000, at most 100,000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub trials: Option<u32>,

    /// The day prices' ages are counted to (default: today's date on this machine's clock, in
    /// its time zone); a recommendation resting on a price more than 180 days old says so.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub today: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: crate::plan_cmd::PlanFormat,

    /// Language of the workbook's sheet names and headers (`--format xlsx`): English or
    /// Simplified Chinese.
    #[arg(long, value_enum, default_value = "en")]
    pub lang: crate::plan_cmd::Lang,

    /// Where to write; `-` is standard output. Files are replaced atomically and keep their
    /// permissions; a device such as /dev/null or a named pipe is written through; a symbolic
    /// link is followed to the existing file it points at. A workbook (`--format xlsx`) needs a
    /// file: `-` and a terminal are refused.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// Compare with an earlier `--format json` output: what changed in cost and ranking.
    #[arg(long, value_name = "OLD.json")]
    pub diff: Option<PathBuf>,

    /// Options shown in the table and Markdown formats.
    #[arg(long, value_name = "N", default_value_t = 12)]
    pub top: usize,

    /// A preemption trace for an offer (the Can't Be Late dataset's JSON, or a CSV of
    /// timestamp,count): its risk is replayed from the trace and fitted to it; repeatable.
    #[arg(long, value_name = "OFFER=FILE")]
    pub trace: Vec<String>,

    /// A queue trace for an offer: a CSV of waits in seconds (a `wait_s` column, or one bare
    /// column), or of `created,started` timestamps; the offer's starts wait as the file's did
    /// (drawn from it) instead of its assumed queue; repeatable.
    #[arg(long, value_name = "OFFER=FILE")]
    pub queue_trace: Vec<String>,

    /// How busy the neighbours on time-shared cards are, 0-1 (1, the default: always busy).
    /// Time slicing, MPS, vGPU and memory-capped containers give a tenant what the neighbours
    /// leave; a load measured by a --profile on an offer still wins. Replaces the task's.
    #[arg(long, value_name = "LOAD")]
    pub neighbour_load: Option<f64>,

    /// Where you (or your service's users) are, a place id (`gpufare places` lists them); every
    /// offer's round trip is counted from here. Replaces the task's `location`.
    #[arg(long, value_name = "PLACE")]
    pub location: Option<String>,

    /// The markets you can buy from; offers outside are excluded with the reason. Replaces the
    /// task's `markets`.
    #[arg(long, value_enum, value_name = "MARKETS")]
    pub markets: Option<crate::plan_cmd::MarketsArg>,

    /// A probe profile measured where you are (`gpufare probe --rtt-regions`): its round trips
    /// to provider regions replace the table's figures for offers in those places; repeatable.
    #[arg(long, value_name = "FILE")]
    pub rtt_from: Vec<PathBuf>,

    /// A fleet file written by `gpufare fleet merge`: each group's medians (GPU model and kind
    /// of capacity) become the measured factors of the matching offers; repeatable.
    #[arg(long, value_name = "FLEET.jsonl")]
    pub fleet: Vec<PathBuf>,
}

const FLEET_EXAMPLES: &str = "\
Examples:
  gpufare fleet slurm --nodes 64 --partition gpu --gres gpu:1 --time 00:15:00 \\
      --output-dir /shared/fleet --submit --wait -- --bench --disk-dir /scratch --disk-size 4G
  gpufare fleet k8s --nodes 16 --image registry.example/gpufare:0.1 --gpu-product NVIDIA-H100-80GB-HBM3 > job.yaml
  gpufare fleet merge /shared/fleet -o fleet.jsonl --redact
  gpufare fleet report fleet.jsonl --format md --fail-on outliers --prometheus /var/lib/node_exporter/gpufare.prom
  gpufare plan --task examples/qlora_7b.json --fleet fleet.jsonl";

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
    /// Any outlier (a figure outside its group's band, or a warning verdict).
    Outliers,
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

    /// Exit with status 1 when the fleet has outliers (to gate a Slurm prolog or a CI job).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<FailOn>,

    /// Also write the per-node figures and verdicts in the Prometheus text format, for
    /// node_exporter's textfile collector (written atomically).
    #[arg(long, value_name = "FILE")]
    pub prometheus: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// List the offers of catalogs (the default catalog when none is named).
    List {
        /// Catalog files.
        files: Vec<PathBuf>,
    },
    /// Check catalog files and report every problem with its line and field; each file's line
    /// names the encoding it was read in (UTF-8, UTF-16 or GB18030).
    Validate {
        /// Catalog files.
        files: Vec<PathBuf>,
    },
    /// Convert a catalog (ours or SkyPilot's vms.csv) to our CSV or JSON.
    Convert {
        /// The catalog to read.
        input: PathBuf,
        /// The format to write.
        #[arg(long, value_enum)]
        to: crate::plan_cmd::CatalogFormat,
        /// Where to write; `-` is standard output.
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        output: PathBuf,
    },
    /// Fetch public, keyless price feeds (Azure, AWS, Alibaba Cloud, SkyPilot's and gpuhunt's
    /// catalogs) and write one catalog, every row dated and sourced.
    Refresh(crate::catalog_refresh::RefreshArgs),
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Where to write the profile; `-` writes it to standard output. An existing file is replaced
    /// atomically (either the old file or the complete new one, never half-written) and keeps its
    /// permissions; a character device such as /dev/null or a named pipe is written through,
    /// never replaced; a symbolic link is followed to the existing file it points at (a dangling
    /// link is refused); a directory or block device is refused. If a measurement that was asked
    /// for fails, an existing file is left as it was (see --force).
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// Replace an existing --output file even when a measurement failed (the profile then
    /// records the failure).
    #[arg(long)]
    pub force: bool,

    /// Leave out identifying details: the host name, GPU and MIG UUIDs, PCI bus ids.
    #[arg(long)]
    pub redact: bool,

    /// Do not look for NVIDIA GPUs at all (the profile then says why `gpus` is empty).
    #[arg(long)]
    pub no_gpu: bool,

    /// Seconds to sample every GPU (utilisation, memory, PCIe throughput, SM clock, power,
    /// temperature, throttle reasons) before anything of ours runs on it; 0 skips sampling.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = parse_duration_s)]
    pub duration: f64,

    /// Milliseconds between samples.
    #[arg(long, value_name = "MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub interval: u64,

    /// Also run the GPU micro-benchmark when a CUDA driver is present: pinned host-to-device
    /// bandwidth and a timed FP16 GEMM loop (P50/P99 step time, achieved TFLOPS). It loads the
    /// GPU for a few seconds.
    #[arg(long)]
    pub bench: bool,

    /// GEMM size for --bench (m = n = k).
    #[arg(long, value_name = "N", default_value_t = 8192, value_parser = clap::value_parser!(u64).range(256..=32768))]
    pub gemm_size: u64,

    /// Timed GEMM steps for --bench (after 5 warm-up steps); at least 50.
    #[arg(long, value_name = "STEPS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(50..=100_000))]
    pub gemm_steps: u64,

    /// No progress bar on standard error.
    #[arg(long)]
    pub quiet: bool,

    #[command(flatten)]
    pub measure: MeasureArgs,
}

fn parse_duration_s(text: &str) -> Result<f64, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(0.0..=3600.0).contains(&v) {
        return Err("must be between 0 and 3600 seconds".to_owned());
    }
    Ok(v)
}

const ESTIMATE_EXAMPLES: &str = "\
Examples:
  gpufare estimate llm --model llama-2-7b --task qlora --gpu A10 --train-tokens 2e7
  gpufare estimate llm --model llama-3-8b --context 8192 --concurrency 4 --gpu RTX4090
  gpufare estimate llm --model llama-3-70b --task full --gpus 16 --zero 3 --gpu H100-SXM
  gpufare estimate llm --model qwen3-30b-a3b --context 32768 --kv-cache fp8
  gpufare estimate llm --model deepseek-v3 --weights fp8 --gpus 8 --expert-parallel
  gpufare estimate llm --model mixtral-8x7b --task qlora --targets attention
  gpufare estimate llm --model gemma-3-27b --context 131072 --kv-cache int4
  gpufare estimate sd --model sdxl --batch 4 --width 1024 --height 1024
  gpufare estimate sd --model sdxl --task lora --rank 8 --train-steps 2000 --gpu all
  gpufare estimate presets --format json

Memory is in GiB per GPU. The fit against the default catalog uses the plan's rule: a need up to 90% \
of an offer's visible VRAM fits, up to 100% is tight, above is out of memory.";

#[derive(Debug, Args)]
pub struct EstimateArgs {
    #[command(subcommand)]
    pub what: EstimateCommand,
}

#[derive(Debug, Subcommand)]
pub enum EstimateCommand {
    /// A language model, served (inference) or trained (full fine-tune, LoRA, QLoRA).
    #[command(after_help = ESTIMATE_EXAMPLES)]
    Llm(LlmArgs),
    /// A Stable Diffusion family model (SD 1.5, SDXL, Flux.1-dev): image generation or LoRA
    /// training.
    #[command(after_help = ESTIMATE_EXAMPLES)]
    Sd(SdArgs),
    /// List the LLM presets, diffusion models and GPUs the estimator knows.
    Presets(PresetsArgs),
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns with units, for people.
    Table,
    /// One JSON document, for scripts.
    Json,
}

/// Options every estimate shares.
#[derive(Debug, Args)]
pub struct EstimateOutput {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Estimate run time on this GPU (a name from `gpufare estimate presets`, e.g. A100-80GB,
    /// RTX4090, H100-SXM), or on every GPU of the spec table with `all`. A single GPU is also the
    /// reference GPU of the task-profile fields (default A100-80GB).
    #[arg(long, value_name = "GPU|all", value_parser = parse_gpu)]
    pub gpu: Option<String>,
}

/// What an LLM workload does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LlmTaskArg {
    /// Serving or generating: weights + KV cache + activations.
    Inference,
    /// Full fine-tune with mixed-precision AdamW (16 bytes per parameter).
    Full,
    /// LoRA adapters on frozen 16-bit weights.
    Lora,
    /// LoRA on frozen 4-bit weights (NF4 unless --weights says otherwise).
    Qlora,
}

/// The optimizer of a training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OptimizerArg {
    /// AdamW with fp32 moments.
    Adamw,
    /// bitsandbytes 8-bit AdamW.
    #[value(name = "adamw-8bit")]
    Adamw8bit,
}

/// Which matrices LoRA adapts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetsArg {
    /// q_proj and v_proj (with MLA: the query and key/value projections).
    Qv,
    /// The attention projections.
    Attention,
    /// The MLP only: every expert of a mixture of experts, or the dense MLP.
    #[value(alias = "experts")]
    Mlp,
    /// Every linear layer (attention and MLP, every expert).
    All,
}

/// KV cache precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KvArg {
    /// 16-bit (fp16 or bf16).
    Fp16,
    /// 8-bit (vLLM/SGLang fp8, llama.cpp q8_0).
    Fp8,
    /// 4-bit (llama.cpp q4_0: 18 bytes per 32 values).
    Int4,
}

#[derive(Debug, Args)]
pub struct LlmArgs {
    /// Model preset (see `gpufare estimate presets`). Without it, give the shape with --layers,
    /// --hidden, --heads, --ffn and --vocab; with it, those flags override the preset.
    #[arg(long, value_name = "PRESET")]
    pub model: Option<String>,

    /// What the model does.
    #[arg(long, value_enum, default_value_t = LlmTaskArg::Inference)]
    pub task: LlmTaskArg,

    /// Weight precision: fp32, bf16 (= fp16), fp8, int8, int4 (GPTQ/AWQ) or nf4 (bitsandbytes).
    /// Default bf16; nf4 for --task qlora. Quantized weights keep embeddings and LM head in 16 bits.
    #[arg(long, value_name = "PRECISION", value_parser = parse_precision)]
    pub weights: Option<Precision>,

    /// GPUs: tensor-parallel for inference, data-parallel for training (see --zero).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub gpus: u32,

    /// Mixture of experts: spread whole experts over the --gpus GPUs (expert parallelism,
    /// ceil(experts / GPUs) on each) instead of splitting every expert or sharding it with ZeRO.
    #[arg(long)]
    pub expert_parallel: bool,

    /// Inference: tokens of context per sequence (prompt + output) held in the KV cache
    /// [default: 4096].
    #[arg(long, value_name = "TOKENS", help_heading = "Inference")]
    pub context: Option<u32>,

    /// Inference: sequences served at once [default: 1].
    #[arg(long, value_name = "N", help_heading = "Inference")]
    pub concurrency: Option<u32>,

    /// Inference: KV cache precision: fp16, fp8 or int4 [default: fp16].
    #[arg(long, value_enum, help_heading = "Inference")]
    pub kv_cache: Option<KvArg>,

    /// Inference: tokens to generate in all, for the run time (e.g. 1e6) [default: 0].
    #[arg(long, value_name = "TOKENS", help_heading = "Inference")]
    pub generate_tokens: Option<f64>,

    /// Inference: memory-bandwidth utilisation of decoding, in (0, 1] [default: 0.7].
    #[arg(long, value_name = "FRACTION", help_heading = "Inference")]
    pub mbu: Option<f64>,

    /// Training: tokens per sequence [default: 2048].
    #[arg(long, value_name = "TOKENS", help_heading = "Training")]
    pub seq_len: Option<u32>,

    /// Training: sequences per GPU per step [default: 1].
    #[arg(long, value_name = "N", help_heading = "Training")]
    pub micro_batch: Option<u32>,

    /// Training: turn activation (gradient) checkpointing off (it is on by default).
    #[arg(long, help_heading = "Training")]
    pub no_checkpointing: bool,

    /// Training: LoRA rank [default: 16].
    #[arg(long, value_name = "R", help_heading = "Training")]
    pub rank: Option<u32>,

    /// Training: which matrices LoRA adapts: qv, attention, mlp (alias experts: every expert's
    /// matrices) or all [default: all].
    #[arg(long, value_enum, help_heading = "Training")]
    pub targets: Option<TargetsArg>,

    /// Training: optimizer [default: adamw].
    #[arg(long, value_enum, help_heading = "Training")]
    pub optimizer: Option<OptimizerArg>,

    /// Training: ZeRO stage across --gpus: 0 = DDP, 1 = optimizer sharded, 2 = + gradients
    /// (FSDP SHARD_GRAD_OP), 3 = + weights (FSDP FULL_SHARD) [default: 0].
    #[arg(long, value_name = "STAGE", value_parser = clap::value_parser!(u8).range(0..=3), help_heading = "Training")]
    pub zero: Option<u8>,

    /// Training: tokens to train on in all, epochs included, for the run time (e.g. 2e8)
    /// [default: 0].
    #[arg(long, value_name = "TOKENS", help_heading = "Training")]
    pub train_tokens: Option<f64>,

    /// Training: model FLOPs utilisation, in (0, 1] [default: 0.35 full, 0.25 LoRA/QLoRA].
    #[arg(long, value_name = "FRACTION", help_heading = "Training")]
    pub mfu: Option<f64>,

    /// Custom shape: decoder layers.
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub layers: Option<u32>,

    /// Custom shape: hidden size.
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub hidden: Option<u32>,

    /// Custom shape: attention heads.
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub heads: Option<u32>,

    /// Custom shape: key/value heads (grouped-query attention) [default: --heads].
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub kv_heads: Option<u32>,

    /// Custom shape: dimension of one head [default: hidden / heads].
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub head_dim: Option<u32>,

    /// Custom shape: MLP intermediate size (gated SwiGLU MLP).
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub ffn: Option<u32>,

    /// Custom shape: vocabulary size.
    #[arg(long, value_name = "N", help_heading = "Custom model")]
    pub vocab: Option<u32>,

    /// Custom shape: the LM head shares the embedding matrix.
    #[arg(long, help_heading = "Custom model")]
    pub tied_embeddings: bool,

    /// Custom shape: the q/k/v projections have a bias.
    #[arg(long, help_heading = "Custom model")]
    pub qkv_bias: bool,

    /// Mixture of experts: routed experts per layer (num_experts, n_routed_experts).
    #[arg(long, value_name = "N", help_heading = "Mixture of experts")]
    pub experts: Option<u32>,

    /// Mixture of experts: routed experts each token goes through (num_experts_per_tok).
    #[arg(long, value_name = "K", help_heading = "Mixture of experts")]
    pub experts_per_token: Option<u32>,

    /// Mixture of experts: shared experts every token goes through (n_shared_experts)
    /// [default: 0].
    #[arg(long, value_name = "N", help_heading = "Mixture of experts")]
    pub shared_experts: Option<u32>,

    /// Mixture of experts: intermediate size of one expert (moe_intermediate_size).
    #[arg(long, value_name = "N", help_heading = "Mixture of experts")]
    pub expert_ffn: Option<u32>,

    /// Mixture of experts: leading layers with a dense MLP of --ffn (first_k_dense_replace)
    /// [default: 0].
    #[arg(long, value_name = "N", help_heading = "Mixture of experts")]
    pub dense_layers: Option<u32>,

    /// Latent attention (MLA): rank of the query compression (q_lora_rank; 0 = none)
    /// [default: 0].
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub q_lora_rank: Option<u32>,

    /// Latent attention (MLA): rank of the cached key/value latent (kv_lora_rank).
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub kv_lora_rank: Option<u32>,

    /// Latent attention (MLA): per-head query/key dimension without rotary embedding
    /// (qk_nope_head_dim).
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub qk_nope_head_dim: Option<u32>,

    /// Latent attention (MLA): per-head rotary dimension, cached beside the latent
    /// (qk_rope_head_dim).
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub qk_rope_head_dim: Option<u32>,

    /// Latent attention (MLA): per-head value dimension (v_head_dim).
    #[arg(long, value_name = "N", help_heading = "Latent attention (MLA)")]
    pub v_head_dim: Option<u32>,

    /// Sliding window: tokens a local layer attends to and caches (sliding_window).
    #[arg(long, value_name = "TOKENS", help_heading = "Sliding window")]
    pub sliding_window: Option<u32>,

    /// Sliding window: every Nth layer is global, attending to the whole context (Gemma 3: 6,
    /// Gemma 2: 2); 0 = every layer local [default: 0].
    #[arg(long, value_name = "N", help_heading = "Sliding window")]
    pub global_every: Option<u32>,

    /// Sliding window: drop the preset's window, every layer attending to the whole context.
    #[arg(long, help_heading = "Sliding window", conflicts_with_all = ["sliding_window", "global_every"])]
    pub no_sliding_window: bool,

    #[command(flatten)]
    pub output: EstimateOutput,
}

/// What a diffusion workload does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SdTaskArg {
    /// Text-to-image generation.
    Generate,
    /// LoRA training of the denoiser (cached latents and text embeddings).
    Lora,
}

#[derive(Debug, Args)]
pub struct SdArgs {
    /// Model: sd15, sdxl or flux-dev.
    #[arg(long, value_name = "MODEL")]
    pub model: String,

    /// What the model does.
    #[arg(long, value_enum, default_value_t = SdTaskArg::Generate)]
    pub task: SdTaskArg,

    /// Image width in pixels, a multiple of 8 (16 for Flux) [default: the model's native size,
    /// 512 for sd15, 1024 otherwise].
    #[arg(long, value_name = "PX")]
    pub width: Option<u32>,

    /// Image height in pixels [default: the model's native size].
    #[arg(long, value_name = "PX")]
    pub height: Option<u32>,

    /// Images per batch (generation) or per training step.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub batch: u32,

    /// Precision of the denoiser and text encoders: fp32, bf16 (= fp16), fp8, int8, int4 or nf4.
    #[arg(long, value_name = "PRECISION", value_parser = parse_precision, default_value = "fp16")]
    pub weights: Precision,

    /// Generation: ControlNets applied together (SD 1.5 and SDXL) [default: 0].
    #[arg(long, value_name = "N", help_heading = "Generation")]
    pub controlnets: Option<u32>,

    /// Generation: denoising steps per image [default: 30].
    #[arg(long, value_name = "N", help_heading = "Generation")]
    pub steps: Option<u32>,

    /// Generation: images to generate in all, for the run time [default: 0].
    #[arg(long, value_name = "N", help_heading = "Generation")]
    pub images: Option<f64>,

    /// Generation: decode the batch one image at a time (enable_vae_slicing).
    #[arg(long, help_heading = "Generation")]
    pub vae_slicing: bool,

    /// Generation: decode in tiles of the native size (enable_vae_tiling).
    #[arg(long, help_heading = "Generation")]
    pub vae_tiling: bool,

    /// Generation: model CPU offload, text encoders off the GPU (enable_model_cpu_offload).
    #[arg(long, help_heading = "Generation")]
    pub cpu_offload: bool,

    /// LoRA training: adapter rank (network dim) [default: 16].
    #[arg(long, value_name = "R", help_heading = "LoRA training")]
    pub rank: Option<u32>,

    /// LoRA training: turn gradient checkpointing off (it is on by default).
    #[arg(long, help_heading = "LoRA training")]
    pub no_checkpointing: bool,

    /// LoRA training: optimizer [default: adamw].
    #[arg(long, value_enum, help_heading = "LoRA training")]
    pub optimizer: Option<OptimizerArg>,

    /// LoRA training: training steps, for the run time [default: 0].
    #[arg(long, value_name = "N", help_heading = "LoRA training")]
    pub train_steps: Option<f64>,

    /// LoRA training: model FLOPs utilisation for Flux, in (0, 1] [default: 0.4]; SD 1.5 and
    /// SDXL use measured speeds.
    #[arg(long, value_name = "FRACTION", help_heading = "LoRA training")]
    pub mfu: Option<f64>,

    #[command(flatten)]
    pub output: EstimateOutput,
}

#[derive(Debug, Args)]
pub struct PresetsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

fn parse_precision(text: &str) -> Result<Precision, String> {
    Precision::from_id(text)
        .ok_or_else(|| "expected fp32, bf16, fp16, fp8, int8, int4 or nf4".to_owned())
}

fn parse_gpu(text: &str) -> Result<String, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok("all".to_owned());
    }
    find_gpu(text).map(|g| g.short.clone()).ok_or_else(|| {
        let known: Vec<&str> = gpu_specs().iter().map(|g| g.short.as_str()).collect();
        format!("unknown GPU; known: all, {}", known.join(", "))
    })
}

// ---- disk, network and `gpufare run` (issue 7) ----

/// Disk and network measurements of `gpufare probe`: each runs only when its flag is given.
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Benchmark the disk holding DIR (test the volume your data lives on, e.g. /workspace):
    /// sequential write and read (1 MiB, queue depth 32) and 4 KiB random read (depth 64) with
    /// O_DIRECT. A temporary file is created there and always removed, Ctrl-C included.
    #[arg(long, value_name = "DIR", help_heading = "Disk")]
    pub disk_dir: Option<PathBuf>,

    /// Size of the disk test file, e.g. 512M, 1G, 4G (binary units; at least 1M).
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size, help_heading = "Disk")]
    pub disk_size: u64,

    /// Seconds each disk pattern is measured, after a 1 s ramp-up.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, value_parser = parse_disk_seconds, help_heading = "Disk")]
    pub disk_seconds: f64,

    /// Measure throughput to an iperf3 server (a stock `iperf3 -s`), upload and download
    /// (reverse); repeatable. The port defaults to 5201.
    #[arg(long, value_name = "HOST[:PORT]", value_parser = parse_iperf3_server, help_heading = "Network")]
    pub iperf3: Vec<String>,

    /// Parallel TCP streams per iperf3 test.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=128), help_heading = "Network")]
    pub iperf3_streams: u32,

    /// Seconds per iperf3 test and direction.
    #[arg(long, value_name = "S", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=300), help_heading = "Network")]
    pub iperf3_seconds: u32,

    /// Measure HTTP download throughput from URL (e.g. a model or dataset mirror); repeatable.
    /// http:// only: https needs a TLS library this build does not have.
    #[arg(long, value_name = "URL", value_parser = parse_http_url, help_heading = "Network")]
    pub http: Vec<String>,

    /// Parallel connections per --http URL, each downloading it.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64), help_heading = "Network")]
    pub http_connections: u32,

    /// Longest time spent downloading one --http URL, seconds.
    #[arg(long, value_name = "S", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=600), help_heading = "Network")]
    pub http_seconds: u32,

    /// Time TCP connects to HOST:PORT (min and median of --rtt-tries); repeatable. Prefix a
    /// provider region id, REGION=HOST:PORT (e.g. cn-shanghai=my-server.example:22), to label it
    /// with the place it stands for (`gpufare plan --rtt-from` uses labelled results).
    #[arg(long, value_name = "[REGION=]HOST:PORT", value_parser = parse_rtt_target, help_heading = "Network")]
    pub rtt: Vec<String>,

    /// Also time connects to the built-in list of cloud region endpoints (AWS and Alibaba Cloud
    /// regional API hosts); never contacted without this flag.
    #[arg(long, help_heading = "Network")]
    pub rtt_regions: bool,

    /// Connects per --rtt endpoint.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100), help_heading = "Network")]
    pub rtt_tries: u32,
}

const RUN_EXAMPLES: &str = "\
Examples:
  gpufare run -o run.json -- python train.py --epochs 1
  gpufare run --repeat 5 --step-regex 'step time: ([0-9.]+) ms' -o shared.json -- ./bench.sh
  gpufare run --repeat 3 --step-regex '^step [0-9]+' -o dedicated.json -- python train.py
  gpufare run --profile probe.json -o run.json -- python train.py   # with disk/network figures

The command's output reaches the terminal as usual. --step-regex: a capture group is the step time
in milliseconds (a group named s: in seconds); without a group, each matching line ends a step and
the step time is the gap between matching lines. PYTHONUNBUFFERED=1 is set for the command unless
already set.

The command runs in its own process group, with standard input from /dev/null when that is a
terminal. On Ctrl-C, SIGTERM or SIGHUP the whole group (the command and its children) gets SIGINT,
then SIGTERM 3 s later and SIGKILL 10 s later while any of it is left; gpufare writes what was
measured and exits with status 130. gpufare exits with the command's own status when a run fails
(its exit code, or 128 + the signal that killed it).";

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Where to write the profile (with the runs, host facts and limits, and the bottleneck
    /// verdict). Not `-`: standard output carries the command's own output. As with `gpufare
    /// probe -o`: an existing file is replaced atomically and keeps its permissions; a character
    /// device such as /dev/null or a named pipe is written through; a symbolic link is followed
    /// to the existing file it points at. If a run fails or is interrupted, an existing file is
    /// left as it was (see --force).
    #[arg(short, long, value_name = "FILE", value_parser = parse_run_output)]
    pub output: PathBuf,

    /// Replace an existing --output file even when a run failed or was interrupted.
    #[arg(long)]
    pub force: bool,

    /// How many times to run the command (it stops at the first failed run).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub repeat: u32,

    /// A regular expression for step lines in the output (see below).
    #[arg(long, value_name = "RE", value_parser = parse_regex)]
    pub step_regex: Option<regex::Regex>,

    /// Milliseconds between GPU and host samples.
    #[arg(long, value_name = "MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub interval: u64,

    /// Start from this probe profile (e.g. with --disk-dir and --iperf3 figures), so the
    /// bottleneck verdict can compare the run with them.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,

    /// Do not sample NVIDIA GPUs.
    #[arg(long)]
    pub no_gpu: bool,

    /// Leave out the host name and GPU UUIDs.
    #[arg(long)]
    pub redact: bool,

    /// The command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Parses a size such as `512M`, `1G`, `1.5G` or `1048576` (binary units).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (number, unit) = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or((t, ""), |i| t.split_at(i));
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size like 512M or 1G"))?;
    let scale: u64 = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => {
            return Err(format!(
                "{text:?}: unknown unit {unit:?} (use K, M, G or T)"
            ));
        }
    };
    let bytes = value * scale as f64;
    if !bytes.is_finite() || bytes < (1u64 << 20) as f64 {
        return Err("must be at least 1M".to_owned());
    }
    if bytes > (1u64 << 44) as f64 {
        return Err("must be at most 16T".to_owned());
    }
    Ok(bytes as u64)
}

fn parse_disk_seconds(text: &str) -> Result<f64, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(0.2..=600.0).contains(&v) {
        return Err("must be between 0.2 and 600 seconds".to_owned());
    }
    Ok(v)
}

fn parse_iperf3_server(text: &str) -> Result<String, String> {
    crate::net::split_host_port(text, Some(crate::net::iperf3::DEFAULT_PORT))
        .map(|_| text.trim().to_owned())
}

fn parse_rtt_target(text: &str) -> Result<String, String> {
    let (_, target) = split_rtt_label(text);
    crate::net::split_host_port(target, None).map(|_| text.trim().to_owned())
}

/// `REGION=HOST:PORT` into the region label and the target (no label without `=`).
pub fn split_rtt_label(text: &str) -> (Option<&str>, &str) {
    match text.trim().split_once('=') {
        Some((label, target)) if !label.trim().is_empty() => (Some(label.trim()), target.trim()),
        _ => (None, text.trim()),
    }
}

fn parse_http_url(text: &str) -> Result<String, String> {
    crate::net::http::parse_url(text).map(|_| text.trim().to_owned())
}

fn parse_regex(text: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(text).map_err(|e| format!("not a valid regular expression: {e}"))
}

fn parse_run_output(text: &str) -> Result<PathBuf, String> {
    if text == "-" {
        return Err("give a file: standard output carries the command's own output".to_owned());
    }
    Ok(PathBuf::from(text))
}
