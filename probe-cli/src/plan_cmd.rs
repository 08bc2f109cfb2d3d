//! `gpufare plan`, `gpufare catalog` and `gpufare schema`: offline budgeting with the same core
//! as the site. Bad task, catalog or profile files are usage errors (exit 2) that name the file,
//! the line or field, and the problem; nothing is written then.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use gpufare_core::Currency;
use gpufare_core::export::budget::{Budget, budget, budget_json};
use gpufare_core::export::csv::budget_csv;
use gpufare_core::export::diff::{diff, diff_text};
use gpufare_core::export::markdown::{break_even_sentences, budget_markdown};
use gpufare_core::export::xlsx::{SheetLanguage, budget_xlsx};
use gpufare_core::fleet::{Rules, fleet_factors, report as fleet_report};
use gpufare_core::numbers::date::PriceDate;
use gpufare_core::numbers::money::group_thousands;
use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::places::{Markets, find_place, places};
use gpufare_core::offers::trace::AttachedTrace;
use gpufare_core::plan::plan_with_traces;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::profile::evidence::{
    MeasuredFactors, apply, measured_factors, measured_round_trips,
};
use gpufare_core::task::document::TaskProfile;
use rust_decimal::Decimal;

use crate::input::{
    InputFileError, attach, attach_queue_trace, bad, load_catalogs, parse_queue_trace_arg,
    parse_trace_arg, read_budget, read_fleet, read_profile, read_scenario, read_task,
};
use crate::output;
use crate::report::risk_section;

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

/// Output formats of `gpufare plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    /// A summary table for people.
    Table,
    /// The budget as JSON (money as plain numbers).
    Json,
    /// The budget as CSV (raw numbers).
    Csv,
    /// The budget as Markdown.
    Md,
    /// The budget as an Excel workbook (ranking, cost breakdown, hybrid plan, assumptions and
    /// sources); binary, so it needs -o FILE.
    Xlsx,
}

/// The language of the workbook's sheet names and headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// English.
    En,
    /// Simplified Chinese.
    Zh,
}

impl Lang {
    fn sheets(self) -> SheetLanguage {
        match self {
            Lang::En => SheetLanguage::En,
            Lang::Zh => SheetLanguage::Zh,
        }
    }
}

/// The markets a plan may buy from (`--markets`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MarketsArg {
    /// Mainland China and elsewhere.
    Both,
    /// Mainland China only.
    MainlandChina,
    /// Outside mainland China only.
    Elsewhere,
}

impl MarketsArg {
    fn markets(self) -> Markets {
        match self {
            MarketsArg::Both => Markets::Both,
            MarketsArg::MainlandChina => Markets::MainlandChina,
            MarketsArg::Elsewhere => Markets::Elsewhere,
        }
    }
}

/// What `gpufare plan` was asked.
#[derive(Debug, Clone)]
pub struct PlanRequest {
    pub task: Option<PathBuf>,
    pub scenario: Option<PathBuf>,
    pub catalogs: Vec<PathBuf>,
    pub profiles: Vec<PathBuf>,
    pub currency: Option<Currency>,
    pub rate: Option<Decimal>,
    pub seed: Option<u64>,
    pub trials: Option<u32>,
    pub format: PlanFormat,
    /// The workbook's language (`--format xlsx`).
    pub lang: Lang,
    pub output: PathBuf,
    pub diff: Option<PathBuf>,
    pub top: usize,
    pub traces: Vec<(String, PathBuf)>,
    pub fleets: Vec<PathBuf>,
    /// The day prices' ages are counted to, `YYYY-MM-DD`.
    pub today: String,
    /// Where the user is (`--location`), replacing the task's.
    pub location: Option<String>,
    /// The markets to buy from (`--markets`), replacing the task's.
    pub markets: Option<Markets>,
    /// Profiles measured where the user is (`--rtt-from`).
    pub rtt_from: Vec<PathBuf>,
    /// Queue traces to attach (`--queue-trace OFFER=FILE`).
    pub queue_traces: Vec<(String, PathBuf)>,
    /// The neighbours' load (`--neighbour-load`), replacing the task's.
    pub neighbour_load: Option<f64>,
}

impl PlanArgs {
    /// The request these arguments make; a bad --rate is a usage error.
    pub fn request(&self) -> Result<PlanRequest> {
        let rate = match &self.rate {
            Some(r) => Some(
                gpufare_core::numbers::input::parse_decimal(r, Decimal::from(1000))
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| {
                        anyhow::Error::new(InputFileError(format!(
                            "--rate {r:?}: give a positive number of yuan per dollar, at most 1000"
                        )))
                    })?,
            ),
            None => None,
        };
        let today = match &self.today {
            Some(t) => PriceDate::parse(t)
                .ok()
                .filter(|d| !d.month_only())
                .map(|d| d.to_string())
                .ok_or_else(|| {
                    anyhow::Error::new(InputFileError(format!(
                        "--today {t:?}: give a day as YYYY-MM-DD (years 2000 to 2100)"
                    )))
                })?,
            None => local_today(),
        };
        Ok(PlanRequest {
            task: self.task.clone(),
            scenario: self.scenario.clone(),
            catalogs: self.catalog.clone(),
            profiles: self.profile.clone(),
            currency: self.currency.as_deref().and_then(Currency::from_code),
            rate,
            seed: self.seed,
            trials: self.trials,
            format: self.format,
            lang: self.lang,
            output: self.output.clone(),
            diff: self.diff.clone(),
            top: self.top,
            traces: self
                .trace
                .iter()
                .map(|a| parse_trace_arg(a))
                .collect::<Result<_>>()?,
            fleets: self.fleet.clone(),
            today,
            location: self.location.clone(),
            markets: self.markets.map(MarketsArg::markets),
            rtt_from: self.rtt_from.clone(),
            queue_traces: self
                .queue_trace
                .iter()
                .map(|a| parse_queue_trace_arg(a))
                .collect::<Result<_>>()?,
            neighbour_load: self.neighbour_load,
        })
    }
}

/// Today's date on this machine's clock, in its time zone (`TZ`, else the system's setting, else
/// UTC), as `YYYY-MM-DD`: the one place `gpufare plan` reads the clock.
fn local_today() -> String {
    jiff::Zoned::now().date().strftime("%Y-%m-%d").to_string()
}

/// Runs `gpufare plan`.
pub fn run_plan(req: &PlanRequest) -> Result<()> {
    if req.format == PlanFormat::Xlsx {
        refuse_binary_to_terminal(req)?;
    }
    let (task, mut settings, mut catalog, mut traces): (
        TaskProfile,
        PlanSettings,
        Catalog,
        Vec<AttachedTrace>,
    ) = match (&req.scenario, &req.task) {
        (Some(path), _) => {
            let scenario = read_scenario(path)?;
            let base = load_catalogs(&req.catalogs)?;
            // A queue trace must name an offer of the catalog the scenario builds on.
            scenario.validate_offers(&base).map_err(|e| bad(path, e))?;
            let catalog = scenario.catalog(&base);
            (scenario.task, scenario.settings, catalog, scenario.traces)
        }
        (None, Some(path)) => {
            let task = read_task(path)?;
            let settings = PlanSettings::for_task(&task);
            (task, settings, load_catalogs(&req.catalogs)?, Vec::new())
        }
        (None, None) => anyhow::bail!(InputFileError(
            "give a task file (--task FILE) or a scenario (--scenario FILE)".to_owned()
        )),
    };
    let mut task = with_reach(task, req)?;
    if let Some(load) = req.neighbour_load {
        task.neighbour_load = Some(load);
    }
    if let Some(c) = req.currency {
        settings.currency = c;
    }
    if let Some(r) = req.rate {
        settings.cny_per_usd = r;
    }
    if let Some(s) = req.seed {
        settings.seed = s;
    }
    if let Some(t) = req.trials {
        settings.trials = t;
    }
    // Ages are counted to this machine's day (or --today), whatever day a scenario was saved on.
    settings.today = Some(req.today.clone());
    for path in &req.profiles {
        let profile = read_profile(path)?;
        let factors = measured_factors(&profile);
        let changed = apply(&mut catalog, &factors);
        tell_applied(path, &factors, changed);
    }
    for path in &req.fleets {
        // Each group's medians (and spread) stand for its GPU model and kind of capacity.
        let nodes = read_fleet(path)?;
        let r = fleet_report(&nodes, &Rules::default());
        let factors = fleet_factors(&r);
        if factors.is_empty() {
            eprintln!(
                "gpufare: {}: no group of this fleet measured a GPU the plan knows; nothing applied",
                path.display()
            );
        }
        let changed = apply(&mut catalog, &factors);
        tell_applied(path, &factors, changed);
    }
    for (offer, path) in &req.queue_traces {
        attach_queue_trace(&mut catalog, offer, path)?;
    }
    for t in attach(&catalog, &req.traces)? {
        traces.retain(|x| x.offer_id != t.offer_id);
        traces.push(t);
    }
    let result = plan_with_traces(&task, &catalog, &traces, &settings)
        .map_err(|e| anyhow::Error::new(InputFileError(e.to_string())))?;
    let b = budget(&result, &task, &catalog);
    if let Some(old_path) = &req.diff {
        let old = read_budget(old_path)?;
        let d = diff(&old, &b);
        let text = match req.format {
            PlanFormat::Json => format!("{}\n", serde_json::to_string_pretty(&d)?),
            _ => diff_text(&d, b.currency),
        };
        return output::write_text(&req.output, &text);
    }
    let text = match req.format {
        PlanFormat::Json => budget_json(&b),
        PlanFormat::Csv => budget_csv(&b),
        PlanFormat::Md => budget_markdown(&b, req.top),
        PlanFormat::Table => table(&b, req.top) + &risk_section(&result, req.top),
        PlanFormat::Xlsx => {
            let bytes = budget_xlsx(&b, &catalog, req.lang.sheets())?;
            return output::write_bytes(&req.output, &bytes);
        }
    };
    output::write_text(&req.output, &text)
}

/// A workbook is binary: it goes to a file (or a pipe, or /dev/null), never to standard output
/// by `-o -` nor to a terminal; and `--diff` writes text, not a workbook. Checked before pricing.
fn refuse_binary_to_terminal(req: &PlanRequest) -> Result<()> {
    if req.diff.is_some() {
        anyhow::bail!(InputFileError(
            "--diff writes text or JSON, not a workbook: leave out --format xlsx".to_owned()
        ));
    }
    let problem = if req.output.as_os_str() == "-" {
        "not text for standard output".to_owned()
    } else if output::leads_to_terminal(&req.output) {
        format!("and {} is a terminal", req.output.display())
    } else {
        return Ok(());
    };
    anyhow::bail!(InputFileError(format!(
        "--format xlsx writes a binary workbook, {problem}: give a file with -o, e.g. \
         -o budget.xlsx"
    )))
}

/// Says on standard error which measured factors were applied to how many offers.
fn tell_applied(path: &Path, factors: &[MeasuredFactors], changed: Vec<usize>) {
    for (f, n) in factors.iter().zip(changed) {
        eprintln!(
            "gpufare: {}: measured {} ({}) applied to {n} offers{}",
            path.display(),
            f.gpu,
            if f.shared { "shared" } else { "dedicated" },
            f.slowdown
                .map(|s| format!(", slowdown median {:.3} P99 {:.3}", s.median, s.p99))
                .unwrap_or_default(),
        );
        if let Some(io) = f.io {
            let rate = |v: Option<f64>, unit: &str| {
                v.map(|x| format!("{x:.0} {unit}"))
                    .unwrap_or_else(|| "not measured".to_owned())
            };
            eprintln!(
                "gpufare: {}: measured IO: disk read {}, download {}",
                path.display(),
                rate(io.disk_read_mb_s, "MB/s"),
                rate(io.download_mbit_s, "Mbit/s"),
            );
        }
    }
}

/// The summary table.
fn table(b: &Budget, top: usize) -> String {
    let c = b.currency.code();
    let money = |x: f64| group_thousands(&format!("{x:.2}"));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "recommendation: {} {}",
        b.decision.choice,
        b.decision.recommended_offer.as_deref().unwrap_or("-")
    );
    if let Some(row) = b.recommended_row() {
        let _ = writeln!(
            s,
            "price: {}{}",
            row.price_standing(),
            if row.price_source.is_empty() {
                String::new()
            } else {
                format!(" ({})", row.price_source)
            }
        );
    }
    for r in &b.decision.reasons {
        let _ = writeln!(s, "  - {}", r.text);
    }
    // The round trip (and the P99 latency) once the task gives a location or a latency target.
    let far = b
        .options
        .iter()
        .any(|r| r.rtt_ms.is_some() || r.latency_p99_ms.is_some());
    let rows: Vec<Vec<String>> = b
        .options
        .iter()
        .filter(|r| r.feasible)
        .take(top)
        .map(|r| {
            let mut row = vec![
                r.rank.to_string(),
                r.offer_id.clone(),
                format!("{}x{} {}", r.gpu_count, r.gpu, r.tenancy),
                format!("{:.1} / {:.1} h", r.hours_expected, r.hours_p90),
                format!("{} {c}", money(r.total_expected)),
                format!("{} {c}", money(r.total_p90)),
                r.price_standing(),
            ];
            if far {
                let rtt = match (r.rtt_ms, &r.rtt_basis) {
                    (Some(ms), Some(basis)) => format!("{ms:.1} ms {basis}"),
                    _ => "catalog".to_owned(),
                };
                row.push(match r.latency_p99_ms {
                    Some(p99) => format!("{rtt}; P99 {p99:.0} ms"),
                    None => rtt,
                });
            }
            row
        })
        .collect();
    let mut head = vec![
        "#",
        "offer",
        "GPU",
        "hours exp/P90",
        "total",
        "P90 total",
        "price date",
    ];
    if far {
        head.push("round trip");
    }
    let width: Vec<usize> = (0..head.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        cells
            .iter()
            .enumerate()
            .map(|(i, x)| {
                if (3..=5).contains(&i) {
                    format!("{x:>w$}", w = width[i])
                } else {
                    format!("{x:<w$}", w = width[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_owned()
    };
    let head: Vec<String> = head.into_iter().map(str::to_owned).collect();
    let _ = writeln!(s, "\n{}", line(&head));
    for r in &rows {
        let _ = writeln!(s, "{}", line(r));
    }
    let blocked = b.options.iter().filter(|r| !r.feasible).count();
    if blocked > 0 {
        let _ = writeln!(
            s,
            "({blocked} offers cannot run this task; --format json lists each reason)"
        );
    }
    if let Some(sv) = &b.service {
        let _ = writeln!(
            s,
            "\nserving {} ({}: mean {:.2}, peak {:.2} requests/s; target: {:.0} % of requests within their latency targets):",
            sv.model,
            sv.traffic,
            sv.mean_rps,
            sv.peak_rps,
            sv.attainment_target * 100.0
        );
        if let Some(c) = &sv.choice {
            let _ = writeln!(s, "  - {}", c.reason);
        }
        if let Some(p) = &sv.problem {
            let _ = writeln!(s, "  - {p}");
        }
        let mut rows = vec![[
            "offer".to_owned(),
            "deployment".to_owned(),
            "per month".to_owned(),
            "per M output tokens".to_owned(),
            "within targets".to_owned(),
            "replicas (min-max)".to_owned(),
        ]];
        for o in sv.offers.iter().take(top) {
            for d in &o.deployments {
                let lo = d
                    .replicas_by_hour
                    .iter()
                    .copied()
                    .fold(f64::INFINITY, f64::min);
                let hi = d.replicas_by_hour.iter().copied().fold(0.0, f64::max);
                rows.push([
                    o.offer_id.clone(),
                    d.kind.id().to_owned(),
                    d.cost_per_month.display(),
                    d.cost_per_million_output_tokens
                        .as_ref()
                        .map_or_else(|| "-".to_owned(), |m| m.display()),
                    format!("{:.2} %", d.attainment * 100.0),
                    format!("{:.1}-{:.1}", if lo.is_finite() { lo } else { 0.0 }, hi),
                ]);
            }
        }
        let widths: Vec<usize> = (0..6)
            .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        for r in &rows {
            let cells: Vec<String> = r
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (c, w))| {
                    if i < 2 {
                        format!("{c:<w$}")
                    } else {
                        format!("{c:>w$}")
                    }
                })
                .collect();
            let _ = writeln!(s, "  {}", cells.join("  ").trim_end());
        }
    }
    let talking: Vec<_> = b
        .options
        .iter()
        .filter(|r| r.feasible)
        .filter_map(|r| r.communication.map(|c| (r, c)))
        .take(top)
        .collect();
    if !talking.is_empty() {
        let _ = writeln!(s, "\nmulti-GPU communication (per optimizer step):");
        for (r, c) in talking {
            let _ = writeln!(
                s,
                "  {:<32} {} GPUs on {} node(s) over {} ({:.2} GB/s): compute {:.2} s, exchange {:.2} s, {:.2} s exposed ({:.0} % of the step); a run: {:.1} h computing, {:.1} h communicating",
                r.offer_id,
                c.gpus,
                c.nodes,
                c.link.id(),
                c.busbw_gb_s,
                c.compute_s_per_step,
                c.comm_s_per_step,
                c.exposed_s_per_step,
                c.share * 100.0,
                c.compute_hours,
                c.communication_hours
            );
            if let Some(tl) = c.tensor_link.filter(|_| c.tensor_parallel > 1) {
                let _ = writeln!(
                    s,
                    "  {:<32} of which tensor parallel in groups of {} over {} ({:.2} GB/s): {:.2} s, all exposed",
                    "",
                    c.tensor_parallel,
                    tl.link.id(),
                    tl.gb_s,
                    c.tensor_s_per_step
                );
            }
        }
    }
    if !b.hybrid.is_empty() {
        let _ = writeln!(s, "\nhybrid plan:");
        for p in &b.hybrid {
            let _ = writeln!(
                s,
                "  {:<13} {:<32} {:>8.1} h  {} {c}",
                p.phase,
                p.offer_id.as_deref().unwrap_or("-"),
                p.hours,
                money(p.cost)
            );
        }
    }
    let lines = break_even_sentences(&b.break_even);
    if !lines.is_empty() {
        let _ = writeln!(s, "\nbreak-even:");
    }
    for line in lines {
        let _ = writeln!(s, "  {line}");
    }
    let _ = writeln!(
        s,
        "\nprices as of {}{}; {} CNY per USD; seed {}, {} trials",
        b.price_dates.join(", "),
        b.today
            .as_ref()
            .map(|t| format!(" (ages counted to {t})"))
            .unwrap_or_default(),
        b.cny_per_usd,
        b.seed,
        b.trials
    );
    s
}

/// The task with `--location`, `--markets` and the round trips of `--rtt-from` profiles; a place
/// the table does not know is refused by name.
fn with_reach(mut task: TaskProfile, req: &PlanRequest) -> Result<TaskProfile> {
    if let Some(l) = &req.location {
        if find_place(l).is_none() {
            anyhow::bail!(InputFileError(format!(
                "--location {l:?} is not a known place (gpufare places lists them)"
            )));
        }
        task.reach.location = Some(l.clone());
    }
    if let Some(m) = req.markets {
        task.reach.markets = m;
    }
    for path in &req.rtt_from {
        let profile = read_profile(path)?;
        let measured = measured_round_trips(&profile);
        if measured.is_empty() {
            eprintln!(
                "gpufare: {}: no round trip to a known provider region in this profile (run \
                 gpufare probe --rtt-regions where you are); nothing applied",
                path.display()
            );
        }
        for m in measured {
            eprintln!(
                "gpufare: {}: {} ms measured to {} ({}) replaces the table's figure",
                path.display(),
                m.rtt_ms,
                m.place,
                m.target
            );
            task.reach.measured_rtt.retain(|x| x.place != m.place);
            task.reach.measured_rtt.push(m);
        }
    }
    task.validate()
        .map_err(|e| anyhow::Error::new(InputFileError(e.to_string())))?;
    Ok(task)
}

/// `gpufare places`: the place table, as text or JSON.
pub fn run_places(json: bool) -> Result<()> {
    let text = if json {
        let rows: Vec<serde_json::Value> = places()
            .iter()
            .map(|p| {
                serde_json::json!({
                    "id": p.id,
                    "name_en": p.name_en,
                    "name_zh": p.name_zh,
                    "jurisdiction": p.jurisdiction,
                    "market": p.market().id(),
                    "regions": p.regions,
                    "user_location": p.user,
                })
            })
            .collect();
        format!("{}\n", serde_json::to_string_pretty(&rows)?)
    } else {
        let mut out = String::from("id            jurisdiction  name (regions located there)\n");
        for p in places() {
            let _ = writeln!(
                out,
                "{:<13} {:<13} {} / {}{}",
                p.id,
                p.jurisdiction,
                p.name_en,
                p.name_zh,
                if p.regions.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", p.regions.join(", "))
                }
            );
        }
        out
    };
    output::write_text(Path::new("-"), &text)
}

/// `gpufare schema NAME`.
pub fn run_schema(name: &str) -> Result<()> {
    let text = gpufare_core::schema::schema_json(name)
        .ok_or_else(|| anyhow::Error::new(InputFileError(format!("unknown schema {name:?}"))))?;
    output::write_text(Path::new("-"), &text)
}
