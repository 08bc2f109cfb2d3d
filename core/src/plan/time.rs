//! Time and risk: how long a task really takes on an offer, in expectation and at the tail.
//!
//! One run needs `T0` hours of work on the offer's GPU. Neighbours stretch it by a log-normal
//! multiplier S (see `tenancy`). Preemptions arrive as a Poisson process at rate λ per hour of
//! running (see `offers::interruption` for the forms the rate comes in). After each one the job
//! waits out a gap without capacity (mean g, exponential; wall-clock time, no rent), then pays
//! the restart overhead r (billed, no progress, and exposed to preemption like any running time).
//!
//! With checkpoints every c hours of work, a run is a chain of segments of x = c hours (the last
//! one shorter). A segment ends after an uninterrupted stretch of x, or of r + x after a failure.
//! Its expected failures are F(x) = e^{λr} (e^{λx} - 1) and its expected running hours F(x) / λ
//! (the first attempt runs for (1 - e^{-λx}) / λ on average and fails with probability
//! 1 - e^{-λx}; from then on, stretches of r + x are needed, which take (e^{λ(r+x)} - 1) / λ).
//! Without checkpoints the segment is the whole run and r = 0: the exponential blow-up of long
//! unchecked jobs on spot. When the notice before a preemption is long enough to write a
//! checkpoint, no work is lost: a run of x takes x e^{λr} hours of running with λ x e^{λr}
//! failures. Every failure adds a gap: the expected wall-clock time is queue + running + F g.
//! A queue wait (see `offers::queue`: at once, or log-normal) comes before each run on metered
//! offers and once for subscriptions.
//!
//! An offer may promise a protection period P after each start of an instance, in which it is
//! never preempted; the preemption clock runs only after it. Every run on a metered offer starts
//! its own instance, and so does every restart after a gap (the protection covers the restart's
//! overhead first). The closed forms with P > 0 are in `plan::protection`; with P = 0 they are
//! the ones above, computed as before.
//!
//! Expectations are computed in closed form (integrating over S numerically); the distribution
//! (P50/P90, deadline misses) comes from a seeded Monte Carlo of the same model, event by event,
//! through the state machine in `plan::job` that the trace replay uses too.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use crate::numbers::parallel;
use crate::numbers::rng::{Exponentials, Stream};
use crate::numbers::stats::{OrderStats, nearest_rank};
use crate::offers::queue::Queue;
use crate::offers::tenancy::Slowdown;
use crate::offers::trace::Fitted;
use crate::plan::job::{
    Fallback, Job, MAX_PREEMPTIONS, NEVER_HOURS, Outcome, Poisson, Rule, Wait, run_job_rules,
};
use crate::plan::protection::Protected;
use crate::plan::risk::CDF_QUANTILES;
use crate::task::document::Checkpoint;

/// Runs simulated one by one; more runs are represented by scaling (an approximation that keeps
/// the Monte Carlo's cost bounded for tasks with thousands of runs).
pub const MAX_SIMULATED_RUNS: usize = 32;

/// At most this many runs are simulated over all trials (trials x runs per trial): each array
/// of draws stays within 8 MB.
pub const MAX_DRAWS: usize = 1_000_000;

/// What the time model needs about one task on one offer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeInputs {
    /// Hours of work per run on this offer, before the slowdown multiplier.
    pub run_hours: f64,
    /// Number of runs, back to back.
    pub runs: u32,
    /// The run-time multiplier distribution.
    pub slowdown: Slowdown,
    /// Interruptions per hour of running.
    pub interruptions_per_hour: f64,
    /// Mean hours without capacity after an interruption.
    pub gap_mean_hours: f64,
    /// Whether the notice before an interruption is long enough to write a checkpoint.
    pub saves_on_notice: bool,
    /// Checkpointing, if any.
    pub checkpoint: Option<Checkpoint>,
    /// The wait before a start.
    pub queue: Queue,
    /// Whether every run waits in the queue (metered offers) or only the first (subscriptions).
    pub queue_every_run: bool,
    /// Hours after each start of an instance in which it is never preempted (0: none). Used
    /// only where every run starts its own instance (`queue_every_run`): see
    /// [`TimeInputs::protection`].
    pub protection_hours: f64,
}

impl TimeInputs {
    /// Inputs without interruptions, gaps or a queue (a service, a bare run).
    pub fn plain(run_hours: f64, runs: u32, slowdown: Slowdown) -> TimeInputs {
        TimeInputs {
            run_hours,
            runs,
            slowdown,
            interruptions_per_hour: 0.0,
            gap_mean_hours: 0.0,
            saves_on_notice: false,
            checkpoint: None,
            queue: Queue::none(),
            queue_every_run: false,
            protection_hours: 0.0,
        }
    }

    /// The same inputs with the interruption parameters fitted to a trace: its rate per running
    /// hour, its mean gap, and its start waits (none with the trace's availability, else
    /// exponential with the trace's mean).
    pub fn fitted_to(self, f: &Fitted) -> TimeInputs {
        TimeInputs {
            interruptions_per_hour: f.rate_per_hour,
            gap_mean_hours: f.gap_mean_hours,
            queue: Queue::exponential(f.availability, f.start_wait_mean_hours),
            ..self
        }
    }

    /// The mean wait before a start, hours.
    pub fn queue_mean_hours(&self) -> f64 {
        self.queue.mean_hours()
    }

    /// The restart overhead after an interruption (none without checkpoints: the run starts
    /// over as it started the first time).
    pub fn restart_hours(&self) -> f64 {
        self.checkpoint.map_or(0.0, |c| c.restart_overhead_hours)
    }

    /// The checkpoint interval, when checkpoints are written.
    pub fn interval_hours(&self) -> Option<f64> {
        self.checkpoint
            .map(|c| c.interval_hours)
            .filter(|c| *c > 0.0)
    }

    /// The protection period the model applies after each start of an instance, hours: the
    /// offer's where every run starts its own instance (metered offers), else none. An offer
    /// that holds its machine between runs (a subscription) runs them all on one instance, whose
    /// protection is long spent when a later run begins; providers offer protection periods on
    /// preemptible pay-as-you-go instances only.
    pub fn protection(&self) -> f64 {
        if self.queue_every_run && self.protection_hours > 0.0 {
            self.protection_hours
        } else {
            0.0
        }
    }
}

/// Closed-form expectations for one task on one offer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expectation {
    /// Expected hours of running, rework included.
    pub running_hours: f64,
    /// Expected hours of queue wait.
    pub queue_hours: f64,
    /// Expected hours lost to interruptions (restarts and redone work).
    pub rework_hours: f64,
    /// Expected hours without capacity after interruptions.
    pub gap_hours: f64,
    /// Expected number of interruptions.
    pub interruptions: f64,
    /// Whether the expected time is beyond any practical horizon.
    pub never_finishes: bool,
}

impl Expectation {
    /// Expected wall-clock hours: queue, running and gaps.
    pub fn wall_hours(&self) -> f64 {
        self.queue_hours + self.running_hours + self.gap_hours
    }
}

/// Whether a preemption notice of `notice_hours` is long enough to write a checkpoint (a job
/// without checkpoints saves nothing; no notice saves nothing).
pub fn notice_saves(notice_hours: f64, checkpoint: Option<&Checkpoint>) -> bool {
    notice_hours > 0.0 && checkpoint.is_some_and(|c| notice_hours >= c.save_hours())
}

/// Expected running hours and failures to push `work` hours through interruptions.
fn run_with_interruptions(work: f64, inputs: &TimeInputs) -> (f64, f64) {
    Segments::up_to(inputs, work).run(work)
}

/// What [`run_with_interruptions`] needs that does not depend on the work: computed once for
/// the many works of an integration over the slowdown (the same operations on the same values,
/// so the same results).
struct Segments {
    lambda: f64,
    grow: f64,
    saves: bool,
    interval: Option<f64>,
    /// Failures of one whole checkpoint interval.
    per_interval: f64,
    /// The closed form with a protection period, when the offer has one.
    protected: Option<Protected>,
}

impl Segments {
    /// The segments of runs of up to `longest` hours of work (longer ones are priced too; a
    /// protection period's walk over checkpoints is stored that far).
    fn up_to(inputs: &TimeInputs, longest: f64) -> Segments {
        let lambda = inputs.interruptions_per_hour;
        let grow = libm::exp(lambda * inputs.restart_hours());
        let interval = inputs.interval_hours();
        let saves = inputs.saves_on_notice && inputs.checkpoint.is_some();
        let protection = inputs.protection();
        Segments {
            lambda,
            grow,
            saves,
            interval,
            per_interval: interval.map_or(0.0, |c| grow * libm::expm1(lambda * c.max(1e-9))),
            protected: (protection > 0.0 && lambda > 0.0).then(|| {
                Protected::new(
                    lambda,
                    protection,
                    inputs.restart_hours(),
                    interval,
                    saves,
                    longest,
                )
            }),
        }
    }

    fn run(&self, work: f64) -> (f64, f64) {
        if let Some(p) = &self.protected {
            return p.run(work);
        }
        let (lambda, grow) = (self.lambda, self.grow);
        if lambda <= 0.0 || work <= 0.0 {
            return (work, 0.0);
        }
        if self.saves {
            return (work * grow, lambda * work * grow);
        }
        let failures = |x: f64| grow * libm::expm1(lambda * x);
        let (interval, per_interval) = match self.interval {
            Some(c) if c <= work => (c.max(1e-9), self.per_interval),
            _ => {
                let whole = work.max(1e-9);
                (whole, failures(whole))
            }
        };
        let full = libm::floor(work / interval);
        let rest = work - full * interval;
        let f = full * per_interval + failures(rest);
        (f / lambda, f)
    }
}

/// Intervals of the trapezoid rule over z in [-7, 7].
const STEPS: usize = 168;

/// Nodes of the trapezoid rule.
const POINTS: usize = STEPS + 1;

/// The trapezoid's weights (end points halved, times the normal density's kernel), the same for
/// every integration: computed once, by the same operations the integration did per node.
fn weights() -> &'static [f64; POINTS] {
    static WEIGHTS: OnceLock<[f64; POINTS]> = OnceLock::new();
    WEIGHTS.get_or_init(|| {
        let mut w = [0.0; POINTS];
        for (i, w) in w.iter_mut().enumerate() {
            let z = node(i);
            *w = if i == 0 || i == STEPS { 0.5 } else { 1.0 } * libm::exp(-z * z / 2.0);
        }
        w
    })
}

/// The lower end of the integration over z.
const LO: f64 = -7.0;

/// The upper end of the integration over z.
const HI: f64 = 7.0;

/// The trapezoid's step in z.
fn step() -> f64 {
    (HI - LO) / STEPS as f64
}

/// The trapezoid's z at node `i`.
fn node(i: usize) -> f64 {
    LO + step() * i as f64
}

/// Distinct slowdown spreads whose multipliers are kept (the tenancy defaults and a few
/// measured ones); others are computed for each integration.
const KEPT_SPREADS: usize = 32;

/// The slowdown multiplier `exp(sigma z)` at every node, for one sigma: the same values for
/// every integration with that spread (one per tenancy in the default catalog), so computed
/// once and kept, keyed by sigma's bits.
fn growth(sigma: f64) -> Arc<[f64; POINTS]> {
    static KEPT: Mutex<Vec<(u64, Arc<[f64; POINTS]>)>> = Mutex::new(Vec::new());
    let key = sigma.to_bits();
    if let Ok(kept) = KEPT.lock()
        && let Some((_, g)) = kept.iter().find(|(k, _)| *k == key)
    {
        return Arc::clone(g);
    }
    let mut g = [0.0; POINTS];
    for (i, g) in g.iter_mut().enumerate() {
        *g = libm::exp(sigma * node(i));
    }
    let g = Arc::new(g);
    if let Ok(mut kept) = KEPT.lock()
        && kept.len() < KEPT_SPREADS
        && !kept.iter().any(|(k, _)| *k == key)
    {
        kept.push((key, Arc::clone(&g)));
    }
    g
}

/// The closed-form expectation, integrating over the log-normal slowdown numerically
/// (trapezoid rule over z in [-7, 7], which holds all but 3e-12 of the mass).
pub fn expect(inputs: &TimeInputs) -> Expectation {
    let runs = f64::from(inputs.runs);
    let sigma = inputs.slowdown.sigma();
    let lambda = inputs.interruptions_per_hour;
    let (mean_running, mean_interruptions) = if lambda <= 0.0 {
        (inputs.run_hours * inputs.slowdown.mean(), 0.0)
    } else if sigma == 0.0 {
        run_with_interruptions(inputs.run_hours * inputs.slowdown.median, inputs)
    } else {
        // The integrand is smooth and Gaussian-weighted: the trapezoid rule converges fast.
        let dz = step();
        let (mut t, mut f) = (0.0, 0.0);
        let base = inputs.run_hours * inputs.slowdown.median;
        let growth = growth(sigma);
        let longest = if inputs.protection() > 0.0 {
            growth.iter().fold(0.0_f64, |m, &g| m.max(base * g))
        } else {
            0.0
        };
        let segments = Segments::up_to(inputs, longest);
        for (&weight, &g) in weights().iter().zip(growth.iter()) {
            let (ti, fi) = segments.run(base * g);
            t += weight * ti;
            f += weight * fi;
        }
        let norm = dz / libm::sqrt(2.0 * std::f64::consts::PI);
        (t * norm, f * norm)
    };
    let running = runs * mean_running;
    let queue = inputs.queue_mean_hours() * if inputs.queue_every_run { runs } else { 1.0 };
    let clean = runs * inputs.run_hours * inputs.slowdown.mean();
    let interruptions = runs * mean_interruptions;
    // The same ceiling as a simulated trial's: on its wall-clock hours, gaps and queue included.
    let wall = running + interruptions * inputs.gap_mean_hours + queue;
    let never_finishes = !(running.is_finite() && wall.is_finite() && wall <= NEVER_HOURS);
    Expectation {
        running_hours: if never_finishes {
            f64::INFINITY
        } else {
            running
        },
        gap_hours: if never_finishes {
            f64::INFINITY
        } else {
            interruptions * inputs.gap_mean_hours
        },
        queue_hours: queue,
        rework_hours: if never_finishes {
            f64::INFINITY
        } else {
            (running - clean).max(0.0)
        },
        interruptions,
        never_finishes,
    }
}

/// A queue's parameters as words, bit for bit: the key of its cached waits, and part of a
/// simulation's key.
fn queue_words(queue: &Queue, words: &mut Vec<u64>) {
    use crate::offers::queue::WaitShape;
    words.extend([queue.p0.to_bits(), queue.scale_hours.to_bits()]);
    match queue.shape {
        WaitShape::LogNormal { sigma } => words.extend([1, sigma.to_bits()]),
        WaitShape::Exponential => words.push(2),
        WaitShape::Sample(knots) => {
            words.push(3);
            words.extend(knots.iter().map(|k| k.to_bits()));
        }
    }
}

/// Everything a simulation of `rules` depends on besides the draws, bit for bit: two offers
/// with the same key get the same trials, so the second reuses the first's.
fn walk_key(
    inputs: &TimeInputs,
    key: u64,
    rules: &[Rule],
    fallback: Option<&FallbackPlan>,
) -> Vec<u64> {
    let checkpoint = inputs.checkpoint.unwrap_or(Checkpoint {
        interval_hours: f64::NAN,
        restart_overhead_hours: f64::NAN,
        save_minutes: None,
    });
    let mut words = vec![
        key,
        inputs.run_hours.to_bits(),
        u64::from(inputs.runs),
        inputs.slowdown.median.to_bits(),
        inputs.slowdown.p99.to_bits(),
        inputs.interruptions_per_hour.to_bits(),
        inputs.gap_mean_hours.to_bits(),
        u64::from(inputs.saves_on_notice),
        u64::from(inputs.checkpoint.is_some()),
        checkpoint.interval_hours.to_bits(),
        checkpoint.restart_overhead_hours.to_bits(),
        checkpoint.save_minutes.map_or(u64::MAX, f64::to_bits),
        u64::from(inputs.queue_every_run),
        inputs.protection_hours.to_bits(),
    ];
    queue_words(&inputs.queue, &mut words);
    for rule in rules {
        match *rule {
            Rule::Stay => words.push(0),
            Rule::AfterPreemptions(n) => words.extend([1, u64::from(n)]),
            Rule::Deadline(d) => words.extend([2, d.to_bits()]),
        }
    }
    match fallback {
        None => words.push(0),
        Some(f) => {
            words.extend([1, f.run_hours.to_bits()]);
            queue_words(&f.queue, &mut words);
        }
    }
    words
}

/// Bytes of trial series [`Draws`] keeps for reuse at most: enough for the distinct offers of
/// a catalog's many copies (zones, regions), bounded whatever the catalog.
const SHARED_BYTES: usize = 32 << 20;

/// Simulations already run with one [`Draws`], by [`walk_key`], oldest first out.
#[derive(Default)]
struct Walks {
    entries: BTreeMap<Vec<u64>, Vec<Arc<Simulation>>>,
    order: VecDeque<(Vec<u64>, usize)>,
    bytes: usize,
}

impl Walks {
    /// Keeps `sims` under `key`, dropping the oldest entries past [`SHARED_BYTES`].
    fn keep(&mut self, key: Vec<u64>, sims: &[Arc<Simulation>]) {
        let bytes: usize = sims.iter().map(|s| s.bytes()).sum();
        if bytes > SHARED_BYTES || self.entries.contains_key(&key) {
            return;
        }
        while self.bytes + bytes > SHARED_BYTES {
            let Some((old, size)) = self.order.pop_front() else {
                break;
            };
            self.entries.remove(&old);
            self.bytes = self.bytes.saturating_sub(size);
        }
        self.entries.insert(key.clone(), sims.to_vec());
        self.order.push_back((key, bytes));
        self.bytes += bytes;
    }
}

/// A queue's words (see [`queue_words`]) and its waits per draw.
type Cached = (Vec<u64>, Arc<Vec<f64>>);

/// Random draws shared by every offer of a plan (common random numbers): offers are compared
/// under the same luck, so their ranking is not an artefact of sampling noise.
pub struct Draws {
    /// Trials.
    pub trials: usize,
    /// Runs simulated per trial.
    pub runs: usize,
    normals: Vec<f64>,
    uniforms: Vec<f64>,
    /// exp(sigma x z) per draw, computed once per distinct sigma (offers of one tenancy share it).
    factors: Mutex<Vec<(u64, Arc<Vec<f64>>)>>,
    /// Queue waits in hours per draw, computed once per distinct queue (offers of one kind of
    /// pool share it).
    queues: Mutex<Vec<Cached>>,
    /// Simulations run, for offers that need the same ones (see [`simulate_shared`]).
    walks: Mutex<Walks>,
    /// How the trials draw their preemptions and gaps.
    exponentials: Exponentials,
}

impl Draws {
    /// Draws `trials` x `runs` (capped at [`MAX_SIMULATED_RUNS`]) standard normals and
    /// uniforms from `seed`.
    pub fn new(seed: u64, trials: usize, runs: u32) -> Draws {
        // Fewer runs simulated per trial when the trials are many: memory stays bounded.
        let runs = (runs as usize)
            .clamp(1, MAX_SIMULATED_RUNS)
            .min((MAX_DRAWS / trials.max(1)).max(1));
        let n = trials * runs;
        let mut stream = Stream::new(seed, "gpufare/draws");
        let mut normals = Vec::with_capacity(n + 1);
        while normals.len() < n {
            let (a, b) = stream.normal_pair();
            normals.push(a);
            normals.push(b);
        }
        normals.truncate(n);
        // The uniforms in [0, 1) every queue's waits are read at.
        let uniforms = (0..n).map(|_| stream.probability()).collect();
        Draws {
            trials,
            runs,
            normals,
            uniforms,
            factors: Mutex::new(Vec::new()),
            queues: Mutex::new(Vec::new()),
            walks: Mutex::new(Walks::default()),
            exponentials: Exponentials::default(),
        }
    }

    /// The same draws, with the trials' exponentials drawn by `method` (the ziggurat unless a
    /// test asks for the reference sampler).
    pub fn drawing(mut self, method: Exponentials) -> Draws {
        self.exponentials = method;
        self
    }

    /// Each draw's wait in `queue`, hours: the shared uniform draw through the queue's quantile
    /// function, so that every offer meets the same luck in its own queue. Cached per queue.
    fn queue_waits(&self, queue: &Queue) -> Arc<Vec<f64>> {
        let mut key = Vec::new();
        queue_words(queue, &mut key);
        let cached = |list: &[Cached]| {
            list.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, f)| Arc::clone(f))
        };
        if let Some(w) = self.queues.lock().ok().and_then(|l| cached(&l)) {
            return w;
        }
        let w: Arc<Vec<f64>> = Arc::new(if queue.is_none() {
            vec![0.0; self.uniforms.len()]
        } else {
            self.uniforms.iter().map(|&u| queue.wait_at(u)).collect()
        });
        match self.queues.lock() {
            Ok(mut list) => match cached(&list) {
                Some(first) => first,
                None => {
                    list.push((key, Arc::clone(&w)));
                    w
                }
            },
            Err(_) => w,
        }
    }

    /// exp(sigma x z) for every draw, cached per sigma. Offers priced at the same time may both
    /// compute a missing series; the values are the same, and the first one stored is kept.
    fn factors(&self, sigma: f64) -> Arc<Vec<f64>> {
        let key = sigma.to_bits();
        let cached = |list: &[(u64, Arc<Vec<f64>>)]| {
            list.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, f)| Arc::clone(f))
        };
        if let Some(f) = self.factors.lock().ok().and_then(|l| cached(&l)) {
            return f;
        }
        let f: Arc<Vec<f64>> =
            Arc::new(self.normals.iter().map(|z| libm::exp(sigma * z)).collect());
        match self.factors.lock() {
            Ok(mut list) => match cached(&list) {
                Some(first) => first,
                None => {
                    list.push((key, Arc::clone(&f)));
                    f
                }
            },
            Err(_) => f,
        }
    }

    /// Trial `trial`'s draws: its factors (from a series of [`Draws::factors`]) and its
    /// waits (from [`Draws::queue_waits`]), one of each per run simulated; empty past the last
    /// trial.
    fn trial<'a>(
        &'a self,
        factors: &'a [f64],
        waits: &'a [f64],
        trial: usize,
    ) -> (&'a [f64], &'a [f64]) {
        let runs = self.runs.max(1);
        let at = trial.saturating_mul(runs)..trial.saturating_add(1).saturating_mul(runs);
        (
            factors.get(at.clone()).unwrap_or(&[]),
            waits.get(at).unwrap_or(&[]),
        )
    }

    /// Each trial's draws in turn, one of each per run simulated: its factors (a series from
    /// [`Draws::factors`]) and its waits in hours (from [`Draws::queue_waits`]). `new` makes
    /// every series `trials x runs` long with `runs` at least 1, so there is one whole chunk per
    /// trial.
    fn per_trial<'a>(
        &'a self,
        factors: &'a [f64],
        waits: &'a [f64],
    ) -> impl Iterator<Item = (&'a [f64], &'a [f64])> + 'a {
        let runs = self.runs.max(1);
        factors
            .chunks_exact(runs)
            .zip(waits.chunks_exact(runs))
            .take(self.trials)
    }
}

/// The simulated distribution for one offer (one value per trial).
#[derive(Debug, Clone, Default)]
pub struct Simulation {
    /// Wall-clock hours per trial (queue, running, gaps), all runs.
    pub wall_hours: Vec<f64>,
    /// Hours billed on the offer per trial (running, rework and restarts), all runs.
    pub running_hours: Vec<f64>,
    /// Hours billed on a fallback offer per trial (0 unless a policy moved the job).
    pub fallback_hours: Vec<f64>,
    /// Interruptions met per trial.
    pub interruptions: Vec<u32>,
    /// Trials that moved to the fallback.
    pub switched: usize,
    /// Trials that hit the practical horizon.
    pub unfinished: usize,
    /// Its [`Summary`], once asked for.
    summary: OnceLock<Summary>,
    /// Its [`Simulation::p50_p90`], once asked for (every offer sharing the simulation asks).
    p50_p90: OnceLock<(f64, (f64, f64))>,
}

impl PartialEq for Simulation {
    /// The trials and counts (the summary is worked out from them).
    fn eq(&self, other: &Simulation) -> bool {
        self.wall_hours == other.wall_hours
            && self.running_hours == other.running_hours
            && self.fallback_hours == other.fallback_hours
            && self.interruptions == other.interruptions
            && self.switched == other.switched
            && self.unfinished == other.unfinished
    }
}

/// What the risk report reads of a simulation whatever the offer's prices, worked out once
/// however many offers share the simulation (see [`simulate_shared`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    /// Wall-clock hours at the chart's quantiles ([`CDF_QUANTILES`]), locating the trial at
    /// the 90th percentile.
    pub wall: OrderStats,
    /// Billed hours per trial (the offer's and the fallback's) at 0.5, 0.9 and 0.99.
    pub billed: OrderStats,
    /// The trial at the 90th percentile of wall-clock time.
    pub p90_trial: Option<usize>,
    /// Mean hours billed on the offer.
    pub running_mean: f64,
    /// Mean wall-clock hours.
    pub wall_mean: f64,
    /// Mean hours billed on the fallback.
    pub fallback_mean: f64,
    /// Preemptions summed over the trials.
    pub preemptions: f64,
}

impl Simulation {
    /// An empty simulation with room for `trials` trials.
    pub fn with_capacity(trials: usize) -> Simulation {
        Simulation {
            wall_hours: Vec::with_capacity(trials),
            running_hours: Vec::with_capacity(trials),
            fallback_hours: Vec::with_capacity(trials),
            interruptions: Vec::with_capacity(trials),
            ..Simulation::default()
        }
    }

    /// The trials of a job that never finishes: one trial at the practical horizon.
    pub fn never() -> Simulation {
        Simulation {
            wall_hours: vec![NEVER_HOURS],
            running_hours: vec![NEVER_HOURS],
            fallback_hours: vec![0.0],
            interruptions: vec![0],
            unfinished: 1,
            ..Simulation::default()
        }
    }

    /// Its summary, worked out the first time it is asked for (the trials must all be in).
    pub fn summary(&self) -> &Summary {
        self.summary.get_or_init(|| {
            let wall = self.wall_stats(&CDF_QUANTILES, &[0.9]);
            let billed: Vec<f64> = self
                .running_hours
                .iter()
                .zip(&self.fallback_hours)
                .map(|(a, b)| a + b)
                .collect();
            Summary {
                p90_trial: self.index_in(&wall, 0.9),
                wall,
                billed: OrderStats::quantiles(&billed, &[0.5, 0.9, 0.99], &[]),
                running_mean: Simulation::mean(&self.running_hours),
                wall_mean: Simulation::mean(&self.wall_hours),
                fallback_mean: Simulation::mean(&self.fallback_hours),
                preemptions: self.interruptions.iter().map(|&k| f64::from(k)).sum(),
            }
        })
    }

    /// Adds one job's outcome, scaled by `scale` (runs represented per run simulated).
    pub fn push(&mut self, o: &crate::plan::job::Outcome, scale: f64) {
        // A summary worked out before this trial no longer holds.
        self.summary.take();
        self.p50_p90.take();
        self.wall_hours.push(o.wall * scale);
        self.running_hours.push(o.billed * scale);
        self.fallback_hours.push(o.fallback * scale);
        self.interruptions.push(o.preemptions);
        self.switched += usize::from(o.switched);
        self.unfinished += usize::from(!o.finished);
    }

    /// Trial indexes sorted by wall-clock time.
    pub fn order(&self) -> Vec<usize> {
        let mut order = self.indexed_walls();
        order.sort_by(|a, b| a.1.total_cmp(&b.1));
        order.into_iter().map(|(i, _)| i).collect()
    }

    /// The index of the trial at quantile `q` of wall-clock time (nearest rank).
    pub fn index_at(&self, q: f64) -> Option<usize> {
        self.index_in(&self.wall_stats(&[], &[q]), q)
    }

    /// The quantiles `quantiles` of the wall-clock hours, with what
    /// [`Simulation::index_in`] needs to find the trials at the quantiles `located`.
    pub fn wall_stats(&self, quantiles: &[f64], located: &[f64]) -> OrderStats {
        OrderStats::quantiles(&self.wall_hours, quantiles, located)
    }

    /// [`Simulation::index_at`] given order statistics of the wall-clock hours that locate `q`
    /// (see [`Simulation::wall_stats`]). When no other trial has the same hours, that trial is
    /// found by a scan; among equal hours the selection decides, as it always has (the scan is
    /// only a shortcut, and the site's size-tuned standard library selects slowly).
    pub fn index_in(&self, stats: &OrderStats, q: f64) -> Option<usize> {
        let n = self.wall_hours.len();
        if n == 0 || stats.len() != n {
            return None;
        }
        if let Some(value) = stats.unique_at(q) {
            return self.wall_hours.iter().position(|&w| w == value);
        }
        let mut order = self.indexed_walls();
        let (_, &mut (i, _), _) =
            order.select_nth_unstable_by(nearest_rank(q, n), |a, b| a.1.total_cmp(&b.1));
        Some(i)
    }

    /// Each trial's index next to its wall-clock hours, in trial order: sorted or selected
    /// by the hours, the indexes come along without being looked up again.
    fn indexed_walls(&self) -> Vec<(usize, f64)> {
        self.wall_hours.iter().copied().enumerate().collect()
    }

    /// Trial `i`: (wall hours, running hours, fallback hours); `None` past the last trial.
    pub fn trial(&self, i: usize) -> Option<(f64, f64, f64)> {
        Some((
            *self.wall_hours.get(i)?,
            *self.running_hours.get(i)?,
            *self.fallback_hours.get(i)?,
        ))
    }

    /// The median wall-clock hours, and the trial at the 90th percentile of wall-clock time as
    /// (wall hours, running hours), from one selection of the hours.
    pub fn p50_p90(&self) -> (f64, (f64, f64)) {
        *self.p50_p90.get_or_init(|| {
            let stats = self.wall_stats(&[0.5], &[0.9]);
            let p50 = if stats.is_empty() {
                0.0
            } else {
                stats.percentile(0.5)
            };
            let p90 = self
                .index_in(&stats, 0.9)
                .and_then(|i| self.trial(i))
                .map_or((0.0, 0.0), |(wall, running, _)| (wall, running));
            (p50, p90)
        })
    }

    /// The trial at quantile `q` of wall-clock time: (wall hours, running hours).
    pub fn at_quantile(&self, q: f64) -> (f64, f64) {
        self.index_at(q)
            .and_then(|i| Some((*self.wall_hours.get(i)?, *self.running_hours.get(i)?)))
            .unwrap_or((0.0, 0.0))
    }

    /// Share of trials whose wall-clock time exceeds `hours`.
    pub fn share_over(&self, hours: f64) -> f64 {
        if self.wall_hours.is_empty() {
            return 0.0;
        }
        self.wall_hours.iter().filter(|&&w| w > hours).count() as f64 / self.wall_hours.len() as f64
    }

    /// Bytes its trial series take.
    fn bytes(&self) -> usize {
        (self.wall_hours.capacity()
            + self.running_hours.capacity()
            + self.fallback_hours.capacity())
            * size_of::<f64>()
            + self.interruptions.capacity() * size_of::<u32>()
    }

    /// Mean of a per-trial series.
    pub fn mean(values: &[f64]) -> f64 {
        if values.is_empty() {
            0.0
        } else {
            values.iter().sum::<f64>() / values.len() as f64
        }
    }
}

/// What a policy moves to, for the Monte Carlo: the fallback's hours per whole run and its
/// queue (each trial draws its own wait from it).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FallbackPlan {
    /// Hours the fallback needs for one whole run.
    pub run_hours: f64,
    /// Its queue before a start.
    pub queue: Queue,
}

/// The policies an offer's pricing will simulate, known before the offer is priced: the rules
/// that move and the fallback they move to (see `plan::policy::policy_walks`).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyWalk {
    /// The interruptible offer.
    pub offer_id: String,
    /// Its policies' rules (deadlines unscaled).
    pub rules: Vec<Rule>,
    /// The offer they move to.
    pub fallback: FallbackPlan,
}

/// Simulations of the rules that move, walked with staying.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Walked {
    /// The fallback they moved to.
    pub fallback: FallbackPlan,
    /// Each rule's simulation.
    pub sims: Vec<(Rule, Arc<Simulation>)>,
}

/// Simulates the task on one offer with no policy; `label` separates this offer's draws.
pub fn simulate(inputs: &TimeInputs, draws: &Draws, seed: u64, label: &str) -> Simulation {
    simulate_policy(inputs, draws, seed, label, Rule::Stay, None)
}

/// Simulates the task on one offer under a policy `rule` that may move it to `fallback`.
///
/// Each trial has a stream of its own (from the seed, the label and the trial number: a plan
/// uses [`OFFER_STREAMS`] for every offer, a replay the trace's name), so the
/// policies of one offer meet the same preemptions until they part ways. More runs than
/// [`MAX_SIMULATED_RUNS`] are represented by scaling the simulated ones (the deadline scaled
/// down to match).
pub fn simulate_policy(
    inputs: &TimeInputs,
    draws: &Draws,
    seed: u64,
    label: &str,
    rule: Rule,
    fallback: Option<&FallbackPlan>,
) -> Simulation {
    simulate_rules(inputs, draws, seed, label, &[rule], fallback)
        .pop()
        .unwrap_or_default()
}

/// [`simulate_policy`] for several rules at once, one simulation per rule in the order given,
/// each exactly what [`simulate_policy`] gives for it alone. The rules that may move walk every
/// trial together (they meet the same preemptions until they part ways), so pricing all the
/// policies of an offer costs about one walk, not one per policy.
pub fn simulate_rules(
    inputs: &TimeInputs,
    draws: &Draws,
    seed: u64,
    label: &str,
    rules: &[Rule],
    fallback: Option<&FallbackPlan>,
) -> Vec<Simulation> {
    simulate_rules_expecting(inputs, None, draws, seed, label, rules, fallback)
}

/// [`simulate_rules`] with the closed-form expectation of `inputs` already worked out (the
/// shortcut for staying reads it), so that it is not integrated again.
pub(crate) fn simulate_rules_expecting(
    inputs: &TimeInputs,
    expected: Option<&Expectation>,
    draws: &Draws,
    seed: u64,
    label: &str,
    rules: &[Rule],
    fallback: Option<&FallbackPlan>,
) -> Vec<Simulation> {
    let scale = f64::from(inputs.runs) / draws.runs as f64;
    let key = Stream::key(seed, label);
    let stays = |rule: &Rule| *rule == Rule::Stay || fallback.is_none();
    // Staying never interrupted, or through a great many preemptions, takes a shortcut; else
    // staying walks with the rules that move (it meets the same preemptions).
    let shortcut = rules
        .iter()
        .any(stays)
        .then(|| staying_shortcut(inputs, expected, draws, scale))
        .flatten();
    let walks_staying = rules.iter().any(stays) && shortcut.is_none();
    let mut walked: Vec<Rule> = rules
        .iter()
        .filter(|r| !stays(r))
        .map(|&rule| match rule {
            Rule::Deadline(d) => Rule::Deadline(d / scale),
            other => other,
        })
        .collect();
    if walks_staying {
        walked.push(Rule::Stay);
    }
    let mut sims = walk_trials(inputs, draws, key, scale, &walked, fallback);
    let staying = if walks_staying { sims.pop() } else { shortcut };
    let mut staying = staying.unwrap_or_default();
    let mut moved = sims.into_iter();
    let last_staying = rules.iter().rposition(stays);
    rules
        .iter()
        .enumerate()
        .map(|(i, rule)| match (stays(rule), Some(i) == last_staying) {
            (true, true) => std::mem::take(&mut staying),
            (true, false) => staying.clone(),
            (false, _) => moved.next().unwrap_or_default(),
        })
        .collect()
}

/// The label of every offer's trial streams in a plan: offers meet the same luck (common random
/// numbers), so offers with the same figures get the same trials and are simulated once.
pub const OFFER_STREAMS: &str = "gpufare/offer";

/// [`simulate_rules_expecting`] under the label [`OFFER_STREAMS`], reusing what `draws` already
/// simulated for the same inputs, rules and fallback (the same trials, bit for bit, so a plan's
/// figures never depend on which offer came first or on how the offers were split between
/// threads or workers). What is reused is shared, not copied.
pub(crate) fn simulate_shared(
    inputs: &TimeInputs,
    expected: Option<&Expectation>,
    draws: &Draws,
    seed: u64,
    rules: &[Rule],
    fallback: Option<&FallbackPlan>,
) -> Vec<Arc<Simulation>> {
    let key = walk_key(inputs, Stream::key(seed, OFFER_STREAMS), rules, fallback);
    if let Some(hit) = draws
        .walks
        .lock()
        .ok()
        .and_then(|w| w.entries.get(&key).cloned())
    {
        return hit;
    }
    let sims: Vec<Arc<Simulation>> = simulate_rules_expecting(
        inputs,
        expected,
        draws,
        seed,
        OFFER_STREAMS,
        rules,
        fallback,
    )
    .into_iter()
    .map(Arc::new)
    .collect();
    if let Ok(mut walks) = draws.walks.lock() {
        walks.keep(key, &sims);
    }
    sims
}

/// Staying on the offer without walking the trials: never interrupted (queue and work), or
/// through so many preemptions that each trial is priced at its expectation (see
/// [`FLUID_PREEMPTIONS`]). `None` when the trials must be walked.
fn staying_shortcut(
    inputs: &TimeInputs,
    expected: Option<&Expectation>,
    draws: &Draws,
    scale: f64,
) -> Option<Simulation> {
    let factors = draws.factors(inputs.slowdown.sigma());
    let waits = draws.queue_waits(&inputs.queue);
    if inputs.interruptions_per_hour <= 0.0 {
        // Every trial finishes without a preemption or a move: only its hours vary.
        let mut walls = Vec::with_capacity(draws.trials);
        let mut billed = Vec::with_capacity(draws.trials);
        for (factors, waits) in draws.per_trial(&factors, &waits) {
            let mut wall = 0.0;
            let mut running = 0.0;
            for (run, (&factor, &wait)) in factors.iter().zip(waits).enumerate() {
                let work = inputs.run_hours * inputs.slowdown.median * factor;
                if inputs.queue_every_run || run == 0 {
                    wall += wait;
                }
                wall += work;
                running += work;
            }
            walls.push(wall * scale);
            billed.push(running * scale);
        }
        let trials = walls.len();
        return Some(Simulation {
            wall_hours: walls,
            running_hours: billed,
            fallback_hours: vec![0.0; trials],
            interruptions: vec![0; trials],
            ..Simulation::default()
        });
    }
    let e = expected.copied().unwrap_or_else(|| expect(inputs));
    let per_job = e.interruptions / f64::from(inputs.runs.max(1)) * draws.runs as f64;
    if e.never_finishes || per_job > FLUID_PREEMPTIONS {
        let mut sim = Simulation::with_capacity(draws.trials);
        let longest = if inputs.protection() > 0.0 {
            let base = inputs.run_hours * inputs.slowdown.median;
            factors.iter().fold(0.0_f64, |m, &f| m.max(base * f))
        } else {
            0.0
        };
        let segments = Segments::up_to(inputs, longest);
        for (factors, waits) in draws.per_trial(&factors, &waits) {
            sim.push(
                &fluid_trial(inputs, &segments, factors, waits, e.never_finishes),
                scale,
            );
        }
        return Some(sim);
    }
    None
}

/// Trials walked together per round at most: between rounds the event budget is checked.
const ROUND_TRIALS: usize = 4096;

/// Every trial walked event by event under `rules` (deadlines already scaled), one simulation
/// per rule. Rounds of trials are walked in parallel where the build allows; each rule's
/// [`EVENT_BUDGET`] is then applied in trial order, so the result never depends on the number
/// of threads.
fn walk_trials(
    inputs: &TimeInputs,
    draws: &Draws,
    key: u64,
    scale: f64,
    rules: &[Rule],
    fallback: Option<&FallbackPlan>,
) -> Vec<Simulation> {
    let factors = draws.factors(inputs.slowdown.sigma());
    let queue_waits = draws.queue_waits(&inputs.queue);
    let mut sims: Vec<Simulation> = rules
        .iter()
        .map(|_| Simulation::with_capacity(draws.trials))
        .collect();
    if rules.is_empty() {
        return sims;
    }
    // Per rule: preemptions simulated (plus one per trial), and the outcomes simulated.
    let mut events = vec![0_u64; rules.len()];
    let mut simulated: Vec<Vec<Outcome>> = rules
        .iter()
        .map(|_| Vec::with_capacity(draws.trials))
        .collect();
    let fallback_mean = fallback.map_or(0.0, |f| f.queue.mean_hours());
    let queue_mean = inputs.queue_mean_hours();
    let walk_one = |trial: usize, walked: &[Rule], outs: &mut [Outcome]| {
        let (factors, waits) = draws.trial(&factors, &queue_waits, trial);
        let mut works = [0.0_f64; MAX_SIMULATED_RUNS];
        for (w, &factor) in works.iter_mut().zip(factors) {
            *w = inputs.run_hours * inputs.slowdown.median * factor;
        }
        let mut stream = Stream::trial_of(key, trial as u64).drawing(draws.exponentials);
        // Drawn first in every trial (a uniform in [0, 1)), used only by trials that move.
        let fallback_draw = stream.probability();
        let fallback = fallback.map(|f| Fallback {
            run_hours: f.run_hours,
            queue_mean_hours: fallback_mean,
            wait: Wait::Drawn(&f.queue, fallback_draw),
        });
        let mut capacity = Poisson::new(
            inputs.interruptions_per_hour,
            inputs.gap_mean_hours,
            queue_mean,
            waits,
            stream,
        )
        .protected(inputs.protection());
        let job = Job {
            works: works.get(..factors.len()).unwrap_or(&[]),
            interval: inputs.interval_hours(),
            restart: inputs.restart_hours(),
            saves_on_notice: inputs.saves_on_notice,
            wait_every_run: inputs.queue_every_run,
        };
        run_job_rules(&job, &mut capacity, walked, fallback.as_ref(), outs);
    };
    let mut start = 0;
    while start < draws.trials {
        // Rules past their budget reuse the trials already simulated, in turn.
        let walked: Vec<usize> = (0..rules.len())
            .filter(|&r| events.get(r).is_some_and(|&e| e <= EVENT_BUDGET))
            .collect();
        // The first round is one trial; then a round never overshoots a budget by more than
        // about a trial's worth of events at the mean seen so far.
        let room = if start == 0 {
            1
        } else {
            walked
                .iter()
                .filter_map(|&r| {
                    let spent = *events.get(r)?;
                    let per_trial = spent / start.max(1) as u64;
                    Some((EVENT_BUDGET - spent) / per_trial.max(1) + 1)
                })
                .min()
                .map_or(0, |t| t.min(ROUND_TRIALS as u64) as usize)
        };
        let end = (start + room.max(1)).min(draws.trials);
        let walked_rules: Vec<Rule> = walked
            .iter()
            .filter_map(|&r| rules.get(r).copied())
            .collect();
        let mut outcomes = vec![Outcome::default(); (end - start) * walked.len()];
        if !walked.is_empty() {
            parallel::for_each_chunk(&mut outcomes, walked.len(), |i, outs| {
                walk_one(start + i, &walked_rules, outs)
            });
        }
        for trial in start..end {
            for (r, sim) in sims.iter_mut().enumerate() {
                let fresh = walked
                    .iter()
                    .position(|&w| w == r)
                    .and_then(|w| outcomes.get((trial - start) * walked.len() + w));
                let (Some(spent), Some(kept)) = (events.get_mut(r), simulated.get_mut(r)) else {
                    continue;
                };
                let reused = (*spent > EVENT_BUDGET)
                    .then(|| trial.checked_rem(kept.len()).and_then(|k| kept.get(k)))
                    .flatten();
                match (reused, fresh) {
                    (Some(outcome), _) => sim.push(outcome, scale),
                    (None, Some(&outcome)) => {
                        *spent += u64::from(outcome.preemptions) + 1;
                        sim.push(&outcome, scale);
                        kept.push(outcome);
                    }
                    (None, None) => {}
                }
            }
        }
        start = end;
    }
    sims
}

/// A job expected to meet more preemptions than this (per simulated job) and staying on its
/// offer is priced per trial at its expectation given the trial's slowdown, not event by
/// event: the count's own spread is then under 1/√2000 ≈ 2 % of it, while simulating the
/// events would cost time in proportion to their number.
pub const FLUID_PREEMPTIONS: f64 = 2_000.0;

/// Preemptions simulated for one policy on one offer before the trials already simulated are
/// reused in turn: bounds the work of a policy that moves late (a far deadline) on an offer
/// preempted often.
pub const EVENT_BUDGET: u64 = 2_000_000;

/// One trial at its expectation: each run's running hours and preemptions from the closed form
/// for the trial's own slowdown, each preemption followed by a mean gap.
fn fluid_trial(
    inputs: &TimeInputs,
    segments: &Segments,
    factors: &[f64],
    waits: &[f64],
    never: bool,
) -> crate::plan::job::Outcome {
    let never_outcome = crate::plan::job::Outcome {
        wall: NEVER_HOURS,
        billed: NEVER_HOURS,
        preemptions: MAX_PREEMPTIONS,
        finished: false,
        ..crate::plan::job::Outcome::default()
    };
    if never {
        return never_outcome;
    }
    let (mut wall, mut billed, mut preemptions) = (0.0, 0.0, 0.0);
    for (run, (&factor, &wait)) in factors.iter().zip(waits).enumerate() {
        let work = inputs.run_hours * inputs.slowdown.median * factor;
        if inputs.queue_every_run || run == 0 {
            wall += wait;
        }
        let (running, failures) = segments.run(work);
        wall += running + failures * inputs.gap_mean_hours;
        billed += running;
        preemptions += failures;
    }
    if !(wall.is_finite() && wall <= NEVER_HOURS) {
        return never_outcome;
    }
    crate::plan::job::Outcome {
        wall,
        billed,
        preemptions: libm::round(preemptions.min(f64::from(MAX_PREEMPTIONS))) as u32,
        finished: true,
        ..crate::plan::job::Outcome::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::interruption::hourly_rate;
    use crate::offers::queue::QueueSource;
    use crate::offers::tenancy::SlowdownSource;

    fn slowdown(median: f64, p99: f64) -> Slowdown {
        Slowdown {
            median,
            p99,
            source: SlowdownSource::Assumed,
        }
    }

    fn checkpoint(interval_hours: f64, restart_overhead_hours: f64) -> Option<Checkpoint> {
        Some(Checkpoint {
            interval_hours,
            restart_overhead_hours,
            save_minutes: None,
        })
    }

    fn inputs(run_hours: f64, rate: f64, checkpoint: Option<Checkpoint>) -> TimeInputs {
        TimeInputs {
            interruptions_per_hour: rate,
            checkpoint,
            queue: Queue::exponential(0.0, 0.5),
            queue_every_run: true,
            ..TimeInputs::plain(run_hours, 2, slowdown(1.15, 1.7))
        }
    }

    #[test]
    fn closed_form_matches_hand_arithmetic() {
        // No spread, no interruptions: 3 runs x 2 h x 1.5 = 9 h running, 3 x 0.25 h queue.
        let plain = TimeInputs {
            queue: Queue::exponential(0.0, 0.25),
            queue_every_run: true,
            ..TimeInputs::plain(2.0, 3, slowdown(1.5, 1.5))
        };
        let e = expect(&plain);
        assert_eq!(
            (e.running_hours, e.queue_hours, e.rework_hours),
            (9.0, 0.75, 0.0)
        );
        // λ = 0.1/h, 10 h unchecked: (e^1 - 1) / 0.1 = 17.1828 h, 1.71828 failures.
        let spot = TimeInputs {
            interruptions_per_hour: 0.1,
            ..TimeInputs::plain(10.0, 1, slowdown(1.0, 1.0))
        };
        let e = expect(&spot);
        assert!((e.running_hours - 17.182_818_284_590_45).abs() < 1e-9);
        assert!((e.interruptions - 1.718_281_828_459_045).abs() < 1e-12);
        // With a 2 h gap after each: 1.71828 x 2 more hours of wall clock, no more running.
        let gapped = expect(&TimeInputs {
            gap_mean_hours: 2.0,
            ..spot
        });
        assert!((gapped.wall_hours() - e.wall_hours() - 2.0 * 1.718_281_828_459_045).abs() < 1e-9);
        // Hourly checkpoints and 0.1 h restarts, λ = 0.5: per segment e^{0.05} (e^{0.5} - 1)
        // failures, running = failures / λ; ten segments.
        let checked = expect(&TimeInputs {
            interruptions_per_hour: 0.5,
            checkpoint: checkpoint(1.0, 0.1),
            ..spot
        });
        let f = libm::exp(0.05) * libm::expm1(0.5);
        assert!((checked.interruptions - 10.0 * f).abs() < 1e-9);
        assert!((checked.running_hours - 10.0 * f / 0.5).abs() < 1e-9);
        // A notice long enough to save: 10 e^{0.05} h running, 0.5 x 10 e^{0.05} failures.
        let saved = expect(&TimeInputs {
            interruptions_per_hour: 0.5,
            checkpoint: checkpoint(1.0, 0.1),
            saves_on_notice: true,
            ..spot
        });
        assert!((saved.running_hours - 10.0 * libm::exp(0.05)).abs() < 1e-9);
        assert!((saved.interruptions - 5.0 * libm::exp(0.05)).abs() < 1e-9);
    }

    #[test]
    fn the_ceiling_applies_to_the_expected_wall_clock_not_only_the_running_hours() {
        // 17.2 h running, but 1.72 gaps of 6 million hours each: past the 10 million hours a
        // simulated trial is allowed, so the expectation says the job never finishes too.
        let spot = TimeInputs {
            interruptions_per_hour: 0.1,
            gap_mean_hours: 6.0e6,
            ..TimeInputs::plain(10.0, 1, slowdown(1.0, 1.0))
        };
        let e = expect(&spot);
        assert!(e.never_finishes);
        assert!(e.wall_hours().is_infinite());
        // Half the gap stays under the ceiling and is priced.
        let e = expect(&TimeInputs {
            gap_mean_hours: 3.0e6,
            ..spot
        });
        assert!(!e.never_finishes);
        assert!(e.wall_hours() > 5.0e6 && e.wall_hours() < NEVER_HOURS);
    }

    #[test]
    fn many_preemptions_are_priced_at_their_expectation_and_never_hang() {
        // 2 runs x 2,000 h at 0.7 preemptions per hour with 6-minute checkpoints: about 3,000
        // preemptions per job, past the event-by-event bound.
        let long = TimeInputs {
            gap_mean_hours: 0.5,
            ..inputs(2000.0, 0.7, checkpoint(0.1, 0.01))
        };
        let e = expect(&long);
        assert!(e.interruptions > FLUID_PREEMPTIONS);
        let draws = Draws::new(5, 2_000, long.runs);
        let sim = simulate(&long, &draws, 5, "long");
        assert_eq!(sim.unfinished, 0);
        let mean = Simulation::mean(&sim.wall_hours);
        assert!(
            (mean / e.wall_hours() - 1.0).abs() < 0.02,
            "{mean} vs {}",
            e.wall_hours()
        );
        // The same job without checkpoints never finishes, and says so without simulating.
        let never = simulate(&inputs(2000.0, 0.7, None), &draws, 5, "never");
        assert_eq!(never.unfinished, 2_000);
        assert!(never.wall_hours.iter().all(|&w| w >= NEVER_HOURS));
        // A policy that moves late (a far deadline) is bounded by the event budget: the trials
        // past it repeat the ones simulated.
        let plan = FallbackPlan {
            run_hours: 2000.0,
            queue: Queue::none(),
        };
        let sim = simulate_policy(
            &long,
            &draws,
            5,
            "late",
            Rule::Deadline(50_000.0),
            Some(&plan),
        );
        assert_eq!(sim.wall_hours.len(), 2_000);
        let mut distinct = sim.wall_hours.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        assert!(
            distinct.len() > 100 && distinct.len() < 2_000,
            "{}",
            distinct.len()
        );
    }

    #[test]
    fn monte_carlo_agrees_with_the_closed_form() {
        let gapped = |mut i: TimeInputs, gap: f64, saves: bool| {
            i.gap_mean_hours = gap;
            i.saves_on_notice = saves;
            i
        };
        for case in [
            inputs(6.0, 0.0, None),
            inputs(20.0, hourly_rate(0.3), checkpoint(1.0, 0.1)),
            inputs(30.0, hourly_rate(0.3), None),
            inputs(2.0, hourly_rate(0.125), None),
            // The rates public traces measure, with gaps and notice.
            gapped(inputs(10.0, 0.433, checkpoint(1.0, 0.1)), 1.83, false),
            gapped(inputs(10.0, 0.735, checkpoint(0.5, 0.2)), 2.9, true),
            gapped(inputs(3.0, 4.0, checkpoint(0.1, 0.02)), 0.1, false),
            TimeInputs {
                queue: Queue::exponential(0.3, 0.5),
                ..gapped(inputs(5.0, 0.3, checkpoint(1.0, 0.1)), 0.8, false)
            },
            // At once, or a long while: the log-normal queue of a shared pool.
            TimeInputs {
                queue: Queue::log_normal(0.5, 0.2, 1.2, QueueSource::Offer),
                ..gapped(inputs(5.0, 0.3, checkpoint(1.0, 0.1)), 0.8, false)
            },
        ] {
            let draws = Draws::new(11, 20_000, case.runs);
            let sim = simulate(&case, &draws, 11, "case");
            let e = expect(&case);
            let mc = Simulation::mean(&sim.wall_hours);
            let mc_running = Simulation::mean(&sim.running_hours);
            let mc_failures =
                sim.interruptions.iter().map(|&n| f64::from(n)).sum::<f64>() / 20_000.0;
            assert!(
                (mc / e.wall_hours() - 1.0).abs() < 0.02,
                "wall: Monte Carlo {mc} vs closed form {} for {case:?}",
                e.wall_hours()
            );
            assert!(
                (mc_running / e.running_hours - 1.0).abs() < 0.02,
                "running: Monte Carlo {mc_running} vs closed form {} for {case:?}",
                e.running_hours
            );
            assert!(
                (mc_failures - e.interruptions).abs() < 0.03 * e.interruptions.max(1.0),
                "failures: Monte Carlo {mc_failures} vs closed form {} for {case:?}",
                e.interruptions
            );
        }
    }

    #[test]
    fn unchecked_long_spot_jobs_blow_up() {
        let p = hourly_rate(0.3);
        let mild = expect(&TimeInputs {
            runs: 1,
            ..inputs(100.0, p, None)
        });
        let long = expect(&TimeInputs {
            runs: 1,
            ..inputs(20_000.0, p, None)
        });
        assert!(mild.rework_hours < 0.1 * mild.running_hours);
        assert!(long.never_finishes);
        let checked = expect(&TimeInputs {
            runs: 1,
            ..inputs(20_000.0, p, checkpoint(1.0, 0.1))
        });
        assert!(!checked.never_finishes && checked.running_hours < 30_000.0);
    }

    #[test]
    fn the_trial_at_a_quantile_is_the_one_a_selection_picks() {
        let draws = Draws::new(9, 3000, 2);
        let case = inputs(5.0, hourly_rate(0.3), checkpoint(1.0, 0.1));
        let mut sim = simulate(&case, &draws, 9, "q");
        // Equal hours too: a block of trials that never finished.
        for w in sim.wall_hours.iter_mut().step_by(7) {
            *w = NEVER_HOURS;
        }
        for q in [0.01, 0.25, 0.5, 0.75, 0.86, 0.9, 0.99, 1.0] {
            let mut order = sim.indexed_walls();
            let k = (libm::ceil(q * 3000.0) as usize).clamp(1, 3000) - 1;
            let (_, &mut (selected, _), _) =
                order.select_nth_unstable_by(k, |a, b| a.1.total_cmp(&b.1));
            assert_eq!(sim.index_at(q), Some(selected), "q = {q}");
        }
    }

    #[test]
    fn same_seed_same_distribution() {
        let case = inputs(5.0, hourly_rate(0.3), None);
        let a = simulate(&case, &Draws::new(3, 1000, 2), 3, "x");
        let b = simulate(&case, &Draws::new(3, 1000, 2), 3, "x");
        assert_eq!(a, b);
        assert!(a.at_quantile(0.9).0 >= a.at_quantile(0.5).0);
    }
}
