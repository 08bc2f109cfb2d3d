//! One job through lost capacity, event by event: the state machine shared by the Monte Carlo
//! (capacity lost at random, at the model's rates) and the trace replay (capacity lost where a
//! measured trace says). Sharing it means the two differ only in *when* capacity goes and comes
//! back, never in how a job reacts.
//!
//! The rules, for each run of the job in turn:
//!
//! - the run waits for an instance (a queue, or the rest of a gap in a trace);
//! - work accrues only while an instance runs;
//! - a preemption loses the work since the last checkpoint (checkpoints sit at multiples of the
//!   interval, counted in work), unless the notice is long enough to write one, in which case
//!   nothing is lost;
//! - after a preemption the job waits out the gap without an instance (wall-clock time, no rent),
//!   then pays the restart overhead (billed, no progress; a preemption can strike during it);
//! - a policy may move the rest of the job to an uninterruptible offer: after N preemptions, or
//!   when the slack before a deadline no longer covers the remaining work there plus a restart
//!   (checked at the start, at every preemption and through every gap). The fallback starts from
//!   the last saved checkpoint, after its own queue and the restart overhead;
//! - an instance starts after each wait (a run that waits for an instance) and after each gap; an
//!   offer with a protection period never preempts an instance during its first hours of
//!   running (restart included). That is the capacity's to know: [`Poisson::protected`] and the
//!   trace replay's capacity hold the clock, the state machine only says when instances start.

use crate::numbers::rng::Stream;
use crate::offers::queue::Queue;

/// Beyond this many hours a job is taken never to finish.
pub const NEVER_HOURS: f64 = 10_000_000.0;

/// Beyond this many preemptions a job is taken never to finish.
pub const MAX_PREEMPTIONS: u32 = 1_000_000;

/// Beyond this many passes over a trace a job is taken never to finish.
pub const MAX_CYCLES: u64 = 100;

/// When capacity is lost and comes back.
pub trait Capacity {
    /// Hours of running left before the next preemption, from now (infinite when none comes).
    fn window(&mut self) -> f64;
    /// Uses `hours` of the current window (at most all of it).
    fn run(&mut self, hours: f64);
    /// At a preemption (the window used up): hours without an instance until one runs again;
    /// a new instance starts after them.
    fn gap(&mut self) -> f64;
    /// Hours until an instance runs, before run `run` of the job starts; a new instance starts
    /// after them.
    fn wait(&mut self, run: usize) -> f64;
    /// How many times a cyclic capacity (a trace) has wrapped around; 0 for random capacity.
    fn cycles(&self) -> u64 {
        0
    }
}

/// The job, as the state machine needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Job<'a> {
    /// Hours of work of each run on the interruptible offer.
    pub works: &'a [f64],
    /// Hours of work between checkpoints (none: a preemption loses the whole run).
    pub interval: Option<f64>,
    /// Hours of each restart after a preemption (billed, no progress).
    pub restart: f64,
    /// Whether the notice before a preemption is long enough to write a checkpoint.
    pub saves_on_notice: bool,
    /// Whether every run waits for an instance (metered offers) or only the first.
    pub wait_every_run: bool,
}

/// When to move the rest of the job to the uninterruptible offer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// Never.
    Stay,
    /// At the N-th preemption.
    AfterPreemptions(u32),
    /// When the slack before the deadline (hours from the start) no longer covers the
    /// remaining work on the fallback plus its queue and a restart.
    Deadline(f64),
}

/// The uninterruptible offer a policy moves to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fallback<'q> {
    /// Hours the fallback needs for one whole run.
    pub run_hours: f64,
    /// Its mean queue before a start, hours (what the deadline rule plans with).
    pub queue_mean_hours: f64,
    /// The queue this trial actually meets.
    pub wait: Wait<'q>,
}

/// The wait a trial meets in the fallback's queue, worked out only if the job moves there
/// (most trials never do, and a queue's quantile function is dear).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wait<'q> {
    /// Hours, known.
    Hours(f64),
    /// The queue's wait at a uniform draw in [0, 1) (see [`Queue::wait_at`]).
    Drawn(&'q Queue, f64),
}

impl Wait<'_> {
    /// The wait, hours.
    pub fn hours(&self) -> f64 {
        match *self {
            Wait::Hours(h) => h,
            Wait::Drawn(queue, u) => queue.wait_at(u),
        }
    }
}

/// How one job went.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Outcome {
    /// Wall-clock hours from the start to the end of the last run.
    pub wall: f64,
    /// Hours billed on the interruptible offer (running, rework and restarts).
    pub billed: f64,
    /// Hours billed on the fallback.
    pub fallback: f64,
    /// Preemptions met.
    pub preemptions: u32,
    /// Whether the job moved to the fallback.
    pub switched: bool,
    /// Whether it finished within the practical horizon.
    pub finished: bool,
}

/// Work saved after a preemption `reached` hours into a run.
fn saved_after(reached: f64, job: &Job<'_>) -> f64 {
    if job.saves_on_notice {
        reached
    } else {
        match job.interval {
            Some(c) if c > 0.0 => libm::floor(reached / c) * c,
            _ => 0.0,
        }
    }
}

/// Runs the job on `capacity` under `rule`; `fallback` is needed by every rule but
/// [`Rule::Stay`] (without one, the job stays).
pub fn run_job(
    job: &Job<'_>,
    capacity: &mut impl Capacity,
    rule: Rule,
    fallback: Option<&Fallback<'_>>,
) -> Outcome {
    let mut out = [Outcome::default()];
    run_job_rules(job, capacity, &[rule], fallback, &mut out);
    let [out] = out;
    out
}

/// Runs the job once on `capacity` for several rules at a time, writing each rule's outcome to
/// the same place in `outs` (which must be as long as `rules`): exactly what [`run_job`] gives
/// for each rule alone, since every rule meets the same capacity until it moves. The walk stops
/// once every rule has moved; rules beyond `outs` are ignored.
pub fn run_job_rules(
    job: &Job<'_>,
    capacity: &mut impl Capacity,
    rules: &[Rule],
    fallback: Option<&Fallback<'_>>,
    outs: &mut [Outcome],
) {
    let n = rules.len().min(outs.len());
    // Without a fallback every rule stays.
    let rule_of = |r: usize| match (fallback, rules.get(r)) {
        (Some(_), Some(&rule)) => rule,
        _ => Rule::Stay,
    };
    // Rules still on the interruptible offer (at most 64 walked together; the rest stay).
    let mut live: u64 = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    let runs = job.works.len();
    let mut out = Outcome {
        finished: true,
        ..Outcome::default()
    };
    // Hours the fallback needs from here: the rest of run `k` from `saved`, the later runs, its
    // queue and (unless nothing has started) a restart.
    let needed_there = |k: usize, saved: f64, work: f64, started: bool, queue: f64| {
        let rest = if work > 0.0 {
            (work - saved) / work
        } else {
            0.0
        };
        let restart = if started { job.restart } else { 0.0 };
        fallback.map_or(f64::INFINITY, |f| {
            queue + restart + (rest + (runs - k - 1) as f64) * f.run_hours
        })
    };
    // The outcome of moving the rest to the fallback at `out.wall`.
    let switched = |mut out: Outcome, k: usize, saved: f64, work: f64, started: bool| {
        if let Some(f) = fallback {
            let billed = needed_there(k, saved, work, started, 0.0);
            out.fallback = billed;
            out.wall += f.wait.hours() + billed;
            out.switched = true;
        }
        out
    };
    // Writes `outcome` for rule `r` and takes it off the walk.
    let mut settle = |live: &mut u64, r: usize, outcome: Outcome| {
        if let Some(slot) = outs.get_mut(r) {
            *slot = outcome;
        }
        *live &= !(1u64 << r);
    };
    // The rules of each kind, as bits of `live`: the walk visits only those a step can move.
    let kind_mask = |of_kind: fn(Rule) -> bool| {
        (0..n.min(64))
            .filter(|&r| of_kind(rule_of(r)))
            .fold(0_u64, |mask, r| mask | (1u64 << r))
    };
    let after_rules = kind_mask(|r| matches!(r, Rule::AfterPreemptions(_)));
    let deadline_rules = kind_mask(|r| matches!(r, Rule::Deadline(_)));
    let live_rules = |live: u64| Bits(live);
    let mut stuck_mark: Option<(u64, usize, f64)> = None;
    for (k, &work) in job.works.iter().enumerate() {
        let started = k > 0 || out.preemptions > 0;
        if k == 0 || job.wait_every_run {
            let wait = capacity.wait(k);
            if let Some(f) = fallback {
                for r in live_rules(live & deadline_rules) {
                    if let Rule::Deadline(deadline) = rule_of(r) {
                        let slack = deadline
                            - out.wall
                            - needed_there(k, 0.0, work, started, f.queue_mean_hours);
                        if wait > slack {
                            let mut moved = out;
                            moved.wall += slack.max(0.0);
                            settle(&mut live, r, switched(moved, k, 0.0, work, started));
                        }
                    }
                }
            }
            out.wall += wait;
        }
        if live == 0 {
            return;
        }
        let (mut saved, mut restart_left) = (0.0_f64, 0.0_f64);
        loop {
            let window = capacity.window();
            let need = restart_left + (work - saved);
            if window >= need {
                capacity.run(need);
                out.wall += need;
                out.billed += need;
                break;
            }
            capacity.run(window);
            out.wall += window;
            out.billed += window;
            out.preemptions += 1;
            if window > restart_left {
                saved = saved_after(saved + window - restart_left, job).max(saved);
            }
            restart_left = job.restart;
            for r in live_rules(live & after_rules) {
                if let Rule::AfterPreemptions(after) = rule_of(r)
                    && out.preemptions >= after
                {
                    settle(&mut live, r, switched(out, k, saved, work, true));
                }
            }
            if live == 0 {
                return;
            }
            // Wait for capacity through the gap; a deadline rule moves when its slack runs out.
            let gap = capacity.gap();
            if let Some(f) = fallback
                && live & deadline_rules != 0
            {
                let needed = needed_there(k, saved, work, true, f.queue_mean_hours);
                for r in live_rules(live & deadline_rules) {
                    if let Rule::Deadline(deadline) = rule_of(r) {
                        let slack = deadline - out.wall - needed;
                        if gap > slack {
                            let mut moved = out;
                            moved.wall += slack.clamp(0.0, gap);
                            settle(&mut live, r, switched(moved, k, saved, work, true));
                        }
                    }
                }
            }
            out.wall += gap;
            if live == 0 {
                return;
            }
            // A cyclic capacity (a trace): a whole cycle with preemptions and no work saved
            // means the same states repeat forever. Two wraps apart guarantee a whole cycle.
            let cycles = capacity.cycles();
            match stuck_mark {
                Some((c, run, s)) if cycles >= c + 2 => {
                    if run == k && s >= saved {
                        out.finished = false;
                    }
                    stuck_mark = Some((cycles, k, saved));
                }
                None => stuck_mark = Some((cycles, k, saved)),
                _ => {}
            }
            if out.wall > NEVER_HOURS
                || out.preemptions >= MAX_PREEMPTIONS
                || capacity.cycles() > MAX_CYCLES
            {
                out.finished = false;
            }
            if !out.finished {
                out.wall = out.wall.max(NEVER_HOURS);
                for r in live_rules(live) {
                    settle(&mut live, r, out);
                }
                return;
            }
        }
    }
    for r in live_rules(live) {
        settle(&mut live, r, out);
    }
}

/// The positions of the set bits of a word, lowest first.
struct Bits(u64);

impl Iterator for Bits {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        (self.0 != 0).then(|| {
            let at = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            at
        })
    }
}

/// Capacity lost at random: preemptions a Poisson process in running time at `rate` per hour,
/// exponential gaps with mean `gap_mean`, and start waits from the plan's shared draws (hours,
/// one per run, drawn from the offer's queue). With a
/// protection period ([`Poisson::protected`]) the preemption clock of each instance runs only
/// after its first hours; the process being memoryless, the exposure still to run is drawn as
/// before, so without protection the draws, and every figure, are what they always were.
pub struct Poisson<'a> {
    rate: f64,
    gap_mean: f64,
    wait_mean: f64,
    waits: &'a [f64],
    stream: Stream,
    /// Exposed running hours left before the next preemption, once drawn.
    pending: Option<f64>,
    /// Hours of protection after each start of an instance.
    protection: f64,
    /// Hours of protection the running instance has left.
    shielded: f64,
}

impl<'a> Poisson<'a> {
    /// Random capacity for one trial: `waits` holds one wait per run, hours (a run past them
    /// waits the mean, `wait_mean`).
    pub fn new(
        rate: f64,
        gap_mean: f64,
        wait_mean: f64,
        waits: &'a [f64],
        stream: Stream,
    ) -> Poisson<'a> {
        Poisson {
            rate,
            gap_mean,
            wait_mean,
            waits,
            stream,
            pending: None,
            protection: 0.0,
            shielded: 0.0,
        }
    }

    /// The same capacity with `hours` of protection after each start of an instance: no
    /// preemption in an instance's first `hours` of running.
    pub fn protected(mut self, hours: f64) -> Poisson<'a> {
        self.protection = hours.max(0.0);
        self
    }

    /// An instance starts: its protection begins.
    fn start(&mut self) {
        if self.protection > 0.0 {
            self.shielded = self.protection;
        }
    }
}

impl Capacity for Poisson<'_> {
    fn window(&mut self) -> f64 {
        if self.rate <= 0.0 {
            return f64::INFINITY;
        }
        let (stream, rate) = (&mut self.stream, self.rate);
        let exposed = *self
            .pending
            .get_or_insert_with(|| stream.exponential() / rate);
        if self.shielded > 0.0 {
            self.shielded + exposed
        } else {
            exposed
        }
    }

    fn run(&mut self, hours: f64) {
        let mut hours = hours;
        if self.shielded > 0.0 {
            if hours < self.shielded {
                self.shielded -= hours;
                return;
            }
            hours -= self.shielded;
            self.shielded = 0.0;
        }
        if let Some(left) = self.pending.as_mut() {
            *left -= hours;
            if *left <= 0.0 {
                self.pending = None;
            }
        }
    }

    fn gap(&mut self) -> f64 {
        if self.protection > 0.0 {
            // The window was used up: the exposure is spent, whatever the rounding of
            // protection plus exposure left of it.
            self.pending = None;
            self.start();
        }
        if self.gap_mean > 0.0 {
            self.gap_mean * self.stream.exponential()
        } else {
            0.0
        }
    }

    fn wait(&mut self, run: usize) -> f64 {
        self.start();
        if self.wait_mean <= 0.0 {
            return 0.0;
        }
        self.waits.get(run).copied().unwrap_or(self.wait_mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Capacity from a fixed script: windows and gaps in turn, then never preempted.
    struct Script {
        windows: Vec<f64>,
        gaps: Vec<f64>,
        wait: f64,
        left: Option<f64>,
    }

    impl Capacity for Script {
        fn window(&mut self) -> f64 {
            if self.left.is_none() {
                self.left = Some(if self.windows.is_empty() {
                    f64::INFINITY
                } else {
                    self.windows.remove(0)
                });
            }
            self.left.unwrap_or(f64::INFINITY)
        }
        fn run(&mut self, hours: f64) {
            if let Some(l) = self.left.as_mut() {
                *l -= hours;
                if *l <= 0.0 {
                    self.left = None;
                }
            }
        }
        fn gap(&mut self) -> f64 {
            if self.gaps.is_empty() {
                0.0
            } else {
                self.gaps.remove(0)
            }
        }
        fn wait(&mut self, _: usize) -> f64 {
            std::mem::take(&mut self.wait)
        }
    }

    fn script(windows: &[f64], gaps: &[f64]) -> Script {
        Script {
            windows: windows.to_vec(),
            gaps: gaps.to_vec(),
            wait: 0.5,
            left: None,
        }
    }

    const WORK: [f64; 1] = [10.0];

    fn job(interval: Option<f64>, saves: bool) -> Job<'static> {
        Job {
            works: &WORK,
            interval,
            restart: 0.1,
            saves_on_notice: saves,
            wait_every_run: true,
        }
    }

    #[test]
    fn walking_rules_together_gives_each_rule_its_own_outcome() {
        let rules = [
            Rule::AfterPreemptions(1),
            Rule::Deadline(30.0),
            Rule::Stay,
            Rule::AfterPreemptions(4),
            Rule::Deadline(12.0),
            Rule::AfterPreemptions(2),
        ];
        let works = [6.0, 4.0, 9.0];
        let waits = [0.7, 1.9, 0.2];
        let mut differed = 0;
        for trial in 0..3000_u64 {
            let interval = [None, Some(0.5), Some(2.0)]
                .get((trial % 3) as usize)
                .copied()
                .flatten();
            let job = Job {
                works: &works,
                interval,
                restart: 0.1,
                saves_on_notice: trial % 5 == 0,
                wait_every_run: trial % 2 == 0,
            };
            let fallback = Fallback {
                run_hours: 5.0,
                queue_mean_hours: 0.3,
                wait: Wait::Hours(0.45),
            };
            let rate = 0.05 + (trial % 7) as f64 * 0.15;
            let capacity = || Poisson::new(rate, 1.5, 0.4, &waits, Stream::trial_of(99, trial));
            let mut together = [Outcome::default(); 6];
            run_job_rules(
                &job,
                &mut capacity(),
                &rules,
                Some(&fallback),
                &mut together,
            );
            for (rule, walked) in rules.iter().zip(&together) {
                let alone = run_job(&job, &mut capacity(), *rule, Some(&fallback));
                assert_eq!(*walked, alone, "trial {trial}, {rule:?}");
            }
            differed += usize::from(together.iter().any(|o| o.switched));
        }
        // The case is not vacuous: rules part ways in many trials.
        assert!(differed > 1000, "{differed}");
    }

    #[test]
    fn a_preemption_loses_the_work_since_the_checkpoint_and_costs_gap_and_restart() {
        // 3.5 h in, preempted: checkpoint at 3 h kept, 0.5 h lost; 2 h gap; 0.1 h restart.
        let out = run_job(
            &job(Some(1.0), false),
            &mut script(&[3.5], &[2.0]),
            Rule::Stay,
            None,
        );
        assert_eq!(out.preemptions, 1);
        assert!((out.billed - (3.5 + 0.1 + 7.0)).abs() < 1e-12);
        assert!((out.wall - (0.5 + 3.5 + 2.0 + 0.1 + 7.0)).abs() < 1e-12);
        // The notice saves the half hour.
        let out = run_job(
            &job(Some(1.0), true),
            &mut script(&[3.5], &[2.0]),
            Rule::Stay,
            None,
        );
        assert!((out.billed - (3.5 + 0.1 + 6.5)).abs() < 1e-12);
    }

    #[test]
    fn a_preemption_during_the_restart_loses_only_the_restart() {
        let out = run_job(
            &job(Some(1.0), false),
            &mut script(&[2.0, 0.05], &[1.0, 1.0]),
            Rule::Stay,
            None,
        );
        assert_eq!(out.preemptions, 2);
        assert!((out.billed - (2.0 + 0.05 + 0.1 + 8.0)).abs() < 1e-12);
    }

    #[test]
    fn fallback_after_n_moves_the_saved_rest() {
        let fb = Fallback {
            run_hours: 5.0, // twice as fast
            queue_mean_hours: 0.2,
            wait: Wait::Hours(0.3),
        };
        let out = run_job(
            &job(Some(1.0), false),
            &mut script(&[4.5, 1.0], &[1.0, 1.0]),
            Rule::AfterPreemptions(1),
            Some(&fb),
        );
        assert!(out.switched);
        // Spot: 4.5 h billed; fallback: 0.1 restart + (6/10 of a run) x 5 h = 3.1 h.
        assert!((out.billed - 4.5).abs() < 1e-12);
        assert!((out.fallback - 3.1).abs() < 1e-12);
        assert!((out.wall - (0.5 + 4.5 + 0.3 + 3.1)).abs() < 1e-12);
    }

    #[test]
    fn deadline_aware_switches_in_the_gap_when_the_slack_runs_out() {
        let fb = Fallback {
            run_hours: 10.0,
            queue_mean_hours: 0.0,
            wait: Wait::Hours(0.0),
        };
        // Preempted at 4 h of work (wall 4.5); saved 4; the fallback needs 0.1 + 6 = 6.1 h; a
        // deadline of 12 h leaves 12 - 4.5 - 6.1 = 1.4 h of slack; a 3 h gap does not fit.
        let out = run_job(
            &job(Some(1.0), false),
            &mut script(&[4.0], &[3.0]),
            Rule::Deadline(12.0),
            Some(&fb),
        );
        assert!(out.switched);
        assert!((out.wall - 12.0).abs() < 1e-9);
        // A 1 h gap fits: the job stays on spot and ends at 0.5 + 4 + 1 + 0.1 + 6.
        let out = run_job(
            &job(Some(1.0), false),
            &mut script(&[4.0], &[1.0]),
            Rule::Deadline(12.0),
            Some(&fb),
        );
        assert!(!out.switched);
        assert!((out.wall - 11.6).abs() < 1e-9);
    }
}
