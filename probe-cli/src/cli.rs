//! Command-line arguments, parsed and validated by clap before anything runs.

use clap::{Parser, Subcommand};

use crate::catalog::CatalogCommand;
use crate::estimate::args::{ESTIMATE_EXAMPLES, EstimateArgs};
use crate::fleet::args::FleetCommand;
use crate::measure::ProbeArgs;
use crate::plan_cmd::PlanArgs;
use crate::run::RunArgs;
use crate::trace_cmd::TraceArgs;

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
    Trace(TraceArgs),
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

const FLEET_EXAMPLES: &str = "\
Examples:
  gpufare fleet slurm --nodes 64 --partition gpu --gres gpu:1 --time 00:15:00 \\
      --output-dir /shared/fleet --submit --wait -- --bench --disk-dir /scratch --disk-size 4G
  gpufare fleet k8s --nodes 16 --image registry.example/gpufare:0.1 --gpu-product NVIDIA-H100-80GB-HBM3 > job.yaml
  gpufare fleet merge /shared/fleet -o fleet.jsonl --redact
  gpufare fleet report fleet.jsonl --format md --fail-on outliers --prometheus /var/lib/node_exporter/gpufare.prom
  gpufare plan --task examples/qlora_7b.json --fleet fleet.jsonl";

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
