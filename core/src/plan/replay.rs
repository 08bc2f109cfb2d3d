//! Trace replay: a job started at every tick of a measured trace, run through the preemptions
//! and gaps the trace records (wrapping around at its end), by the same state machine the Monte
//! Carlo uses (`plan::job`). The spread over starts is the evidence-based distribution of
//! completion time and billed hours.
//!
//! Each run's work is the task's hours on the offer times the slowdown's mean (a trace says
//! nothing of neighbours); runs follow each other on the trace. More runs than
//! [`MAX_SIMULATED_RUNS`] are represented by scaling, as in the Monte Carlo. At most
//! [`MAX_REPLAY_STARTS`] starts are replayed, evenly spaced (every tick of the public traces).
//!
//! An offer with a protection period P keeps each instance for its first P hours whatever the
//! trace says: a preemption the trace records within P hours of the instance's start is not
//! applied, and the instance runs on through the gap that follows. When the protection ends the
//! provider looks again: with no capacity in the trace at that moment the instance is reclaimed
//! there (and the job waits out the rest of the gap), otherwise it runs until the trace's next
//! preemption.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::stats::percentile;
use crate::offers::tenancy::{Slowdown, SlowdownSource};
use crate::offers::trace::{Trace, TraceStats};
use crate::plan::job::{Capacity, Fallback, Job, Rule, Wait, run_job};
use crate::plan::time::{
    Draws, EVENT_BUDGET, FallbackPlan, MAX_SIMULATED_RUNS, Simulation, TimeInputs, notice_saves,
    simulate,
};
use crate::task::document::Checkpoint;

/// The most starts replayed per trace.
pub const MAX_REPLAY_STARTS: usize = 25_000;

/// Positions closer than this, hours, count as the same (float sums of spans).
const EPS: f64 = 1e-9;

/// A trace as alternating stretches with and without an instance, and where each begins.
pub struct Cycle {
    stretches: Vec<(bool, f64)>,
    starts: Vec<f64>,
    total: f64,
}

impl Cycle {
    /// The cycle of `trace`.
    pub fn new(trace: &Trace) -> Cycle {
        let stretches: Vec<(bool, f64)> = trace
            .stretches()
            .into_iter()
            .filter(|s| s.1 > 0.0)
            .collect();
        let mut starts = Vec::with_capacity(stretches.len());
        let mut at = 0.0;
        for s in &stretches {
            starts.push(at);
            at += s.1;
        }
        Cycle {
            stretches,
            starts,
            total: at,
        }
    }

    /// Hours the cycle lasts.
    pub fn hours(&self) -> f64 {
        self.total
    }

    /// Capacity positioned `hours` into the cycle.
    pub fn at(&self, hours: f64) -> TraceCapacity<'_> {
        let idx = match self.starts.partition_point(|s| *s <= hours) {
            0 => 0,
            n => n - 1,
        };
        TraceCapacity {
            cycle: self,
            idx,
            offset: (hours - self.starts.get(idx).copied().unwrap_or(0.0)).max(0.0),
            wraps: 0,
            protection: 0.0,
            shielded: 0.0,
        }
    }
}

/// Capacity read from a trace, from some position on.
pub struct TraceCapacity<'a> {
    cycle: &'a Cycle,
    idx: usize,
    offset: f64,
    wraps: u64,
    /// Hours of protection after each start of an instance.
    protection: f64,
    /// Hours of protection the running instance has left.
    shielded: f64,
}

impl<'a> TraceCapacity<'a> {
    /// The same capacity with `hours` of protection after each start of an instance.
    pub fn protected(mut self, hours: f64) -> TraceCapacity<'a> {
        self.protection = hours.max(0.0);
        self
    }

    /// Hours of running left before the trace's next preemption, from here (none in a gap).
    fn bare_window(&self) -> f64 {
        let n = self.cycle.stretches.len();
        if !self.running_at(self.idx) {
            return 0.0;
        }
        let mut hours = self.len(self.idx) - self.offset;
        let mut j = self.idx;
        for _ in 0..n {
            j = (j + 1) % n;
            if j == self.idx {
                return f64::INFINITY; // running all the way round
            }
            if !self.running_at(j) {
                return hours.max(0.0);
            }
            hours += self.len(j);
        }
        f64::INFINITY
    }

    /// Moves `hours` on along the trace, whatever runs there.
    fn advance(&mut self, hours: f64) {
        let mut left = hours;
        let n = self.cycle.stretches.len();
        // A move spans at most a cycle's stretches once whole cycles are stepped over at once.
        if left.is_finite() && left > self.cycle.total && self.cycle.total > 0.0 {
            let whole = libm::floor(left / self.cycle.total);
            left -= whole * self.cycle.total;
            self.wraps += whole as u64;
        }
        for _ in 0..=2 * n {
            let rest = self.len(self.idx) - self.offset;
            if left < rest - EPS {
                self.offset += left;
                return;
            }
            left -= rest;
            self.next();
            if left <= EPS {
                return;
            }
        }
    }

    /// An instance starts here: its protection begins.
    fn start(&mut self) {
        self.shielded = self.protection;
    }
}

impl TraceCapacity<'_> {
    /// Stretch `i` of the cycle. Positions stay below the number of stretches (`at` and `next`
    /// keep them there), so only an empty cycle reads past the end: as a gap of no hours.
    fn stretch(&self, i: usize) -> (bool, f64) {
        self.cycle.stretches.get(i).copied().unwrap_or((false, 0.0))
    }

    fn len(&self, i: usize) -> f64 {
        self.stretch(i).1
    }

    fn running_at(&self, i: usize) -> bool {
        self.stretch(i).0
    }

    fn next(&mut self) {
        self.idx += 1;
        self.offset = 0.0;
        if self.idx == self.cycle.stretches.len() {
            self.idx = 0;
            self.wraps += 1;
        }
    }

    /// Moves on to the next running stretch, returning the hours skipped.
    fn skip_gap(&mut self) -> f64 {
        let n = self.cycle.stretches.len();
        let mut waited = 0.0;
        for _ in 0..=n {
            if self.running_at(self.idx) && self.len(self.idx) - self.offset > EPS {
                return waited;
            }
            waited += (self.len(self.idx) - self.offset).max(0.0);
            self.next();
        }
        waited
    }
}

impl Capacity for TraceCapacity<'_> {
    fn window(&mut self) -> f64 {
        if self.shielded <= 0.0 {
            return self.bare_window();
        }
        // Protected: the instance runs through whatever the trace records until the protection
        // ends, then meets the trace as it is there.
        let mut then = TraceCapacity {
            cycle: self.cycle,
            idx: self.idx,
            offset: self.offset,
            wraps: self.wraps,
            protection: 0.0,
            shielded: 0.0,
        };
        then.advance(self.shielded);
        self.shielded + then.bare_window()
    }

    fn run(&mut self, hours: f64) {
        self.shielded = (self.shielded - hours).max(0.0);
        self.advance(hours);
    }

    fn gap(&mut self) -> f64 {
        let waited = self.skip_gap();
        self.start();
        waited
    }

    fn wait(&mut self, _: usize) -> f64 {
        let waited = self.skip_gap();
        self.start();
        waited
    }

    fn cycles(&self) -> u64 {
        self.wraps
    }
}

/// Replays the task on `trace` from every tick (at most [`MAX_REPLAY_STARTS`] evenly spaced
/// starts) under `rule`, moving to `fallback` when the rule says so.
pub fn replay(
    trace: &Trace,
    inputs: &TimeInputs,
    rule: Rule,
    fallback: Option<&FallbackPlan>,
) -> Simulation {
    let cycle = Cycle::new(trace);
    let tick = trace.tick_seconds / 3600.0;
    let ticks = if tick > 0.0 {
        (libm::floor(cycle.hours() / tick) as usize).max(1)
    } else {
        1
    };
    let stride = ticks.div_ceil(MAX_REPLAY_STARTS);
    let runs = (inputs.runs as usize).clamp(1, MAX_SIMULATED_RUNS);
    let scale = f64::from(inputs.runs) / runs as f64;
    let works = vec![inputs.run_hours * inputs.slowdown.mean(); runs];
    let rule = match rule {
        Rule::Deadline(d) => Rule::Deadline(d / scale),
        other => other,
    };
    let fallback = fallback.map(|f| Fallback {
        run_hours: f.run_hours,
        queue_mean_hours: f.queue.mean_hours(),
        wait: Wait::Hours(f.queue.mean_hours()),
    });
    let job = Job {
        works: &works,
        interval: inputs.interval_hours(),
        restart: inputs.restart_hours(),
        saves_on_notice: inputs.saves_on_notice,
        wait_every_run: inputs.queue_every_run,
    };
    let mut sim = Simulation::default();
    let mut replayed = Vec::new();
    let mut events: u64 = 0;
    for (i, start) in (0..ticks).step_by(stride).enumerate() {
        // Past the budget, the starts already replayed are reused in turn (as in the Monte
        // Carlo): the work stays bounded however long the job and the trace.
        if events > EVENT_BUDGET
            && let Some(outcome) = i.checked_rem(replayed.len()).and_then(|k| replayed.get(k))
        {
            sim.push(outcome, scale);
            continue;
        }
        let mut capacity = cycle.at(start as f64 * tick).protected(inputs.protection());
        let outcome = run_job(&job, &mut capacity, rule, fallback.as_ref());
        events += u64::from(outcome.preemptions) + 1;
        sim.push(&outcome, scale);
        replayed.push(outcome);
    }
    sim
}

/// A job to backtest on a trace: the work of one run and how it checkpoints.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BacktestJob {
    /// Hours of work.
    pub work_hours: f64,
    /// Checkpointing, if any.
    pub checkpoint: Option<Checkpoint>,
    /// The notice before a preemption, seconds.
    pub notice_seconds: f64,
}

/// Completion time and billed hours over samples, hours.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Spread {
    /// Samples: starts replayed, or Monte Carlo trials.
    pub samples: u32,
    /// Mean completion time.
    pub mean: f64,
    /// Median completion time.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Mean hours billed.
    pub billed_mean: f64,
    /// Share of samples that never finished.
    pub unfinished_share: f64,
}

impl Spread {
    fn of(sim: &Simulation) -> Spread {
        let mut wall = sim.wall_hours.clone();
        wall.sort_by(f64::total_cmp);
        let q = |p: f64| {
            if wall.is_empty() {
                0.0
            } else {
                percentile(&wall, p)
            }
        };
        let n = sim.wall_hours.len();
        Spread {
            samples: n as u32,
            mean: Simulation::mean(&sim.wall_hours),
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            billed_mean: Simulation::mean(&sim.running_hours),
            unfinished_share: if n == 0 {
                0.0
            } else {
                sim.unfinished as f64 / n as f64
            },
        }
    }
}

/// A job replayed on a trace next to the model fitted to the same trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Backtest {
    /// What the trace holds and the fitted parameters.
    pub trace: TraceStats,
    /// The replay from every tick.
    pub replay: Spread,
    /// The fitted model's Monte Carlo.
    pub model: Spread,
}

/// Replays `job` on `trace` from every tick and prices it with the model fitted to the trace
/// (`trials` Monte Carlo trials from `seed`), staying on the interruptible capacity throughout.
pub fn backtest(trace: &Trace, job: &BacktestJob, seed: u64, trials: u32) -> Backtest {
    let stats = trace.stats();
    let inputs = TimeInputs {
        checkpoint: job.checkpoint,
        saves_on_notice: notice_saves(job.notice_seconds / 3600.0, job.checkpoint.as_ref()),
        queue_every_run: true,
        ..TimeInputs::plain(
            job.work_hours,
            1,
            Slowdown {
                median: 1.0,
                p99: 1.0,
                source: SlowdownSource::Assumed,
            },
        )
    }
    .fitted_to(&stats.fitted);
    let replayed = replay(trace, &inputs, Rule::Stay, None);
    let draws = Draws::new(seed, trials as usize, 1);
    let modelled = simulate(&inputs, &draws, seed, &trace.name);
    Backtest {
        trace: stats,
        replay: Spread::of(&replayed),
        model: Spread::of(&modelled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::trace::parse_trace;

    fn trace(tick_s: u32, data: &[u32]) -> Trace {
        let values: Vec<String> = data.iter().map(u32::to_string).collect();
        parse_trace(
            "hand.json",
            &format!(
                r#"{{"metadata": {{"gap_seconds": {tick_s}}}, "data": [{}]}}"#,
                values.join(",")
            ),
        )
        .unwrap()
    }

    fn inputs(work: f64, interval: Option<f64>, restart: f64) -> TimeInputs {
        TimeInputs {
            checkpoint: interval.map(|interval_hours| Checkpoint {
                interval_hours,
                restart_overhead_hours: restart,
                save_minutes: None,
            }),
            queue_every_run: true,
            ..TimeInputs::plain(
                work,
                1,
                Slowdown {
                    median: 1.0,
                    p99: 1.0,
                    source: SlowdownSource::Assumed,
                },
            )
        }
    }

    /// (wall, billed, preemptions) per start.
    fn starts(sim: &Simulation) -> Vec<(f64, f64, u32)> {
        (0..sim.wall_hours.len())
            .map(|i| {
                let r = |x: f64| libm::round(x * 1e6) / 1e6;
                (
                    r(sim.wall_hours[i]),
                    r(sim.running_hours[i]),
                    sim.interruptions[i],
                )
            })
            .collect()
    }

    #[test]
    fn no_preemption_means_the_bare_work() {
        // Hourly ticks, always running: a 2.5 h job takes 2.5 h from every start.
        let sim = replay(
            &trace(3600, &[1, 1, 1]),
            &inputs(2.5, None, 0.0),
            Rule::Stay,
            None,
        );
        assert_eq!(starts(&sim), vec![(2.5, 2.5, 0); 3]);
    }

    #[test]
    fn one_preemption_before_and_after_a_checkpoint() {
        // Ticks of one hour: running 3 h, a 1 h gap, running 6 h (then wraps).
        let t = trace(3600, &[1, 1, 1, 0, 1, 1, 1, 1, 1, 1]);
        // A 4 h job, checkpoints every 2 h, restart 0.5 h, from tick 0: 3 h run, preempted at
        // 3 h of work (checkpoint at 2 h kept, 1 h lost), 1 h gap, 0.5 h restart, 2 h of work.
        let sim = replay(&t, &inputs(4.0, Some(2.0), 0.5), Rule::Stay, None);
        assert_eq!(starts(&sim)[0], (6.5, 5.5, 1));
        // Without checkpoints everything is lost: 3 + 1 + 4 (no restart without checkpoints).
        let sim = replay(&t, &inputs(4.0, None, 0.5), Rule::Stay, None);
        assert_eq!(starts(&sim)[0], (8.0, 7.0, 1));
        // From tick 1: 2 h of work reach the checkpoint exactly, preempted at 2 h: nothing
        // lost; gap 1 h, restart 0.5 h, 2 h more.
        let sim = replay(&t, &inputs(4.0, Some(2.0), 0.5), Rule::Stay, None);
        assert_eq!(starts(&sim)[1], (5.5, 4.5, 1));
        // From tick 3 (in the gap): wait 1 h, then 4 h of running.
        assert_eq!(starts(&sim)[3], (5.0, 4.0, 0));
    }

    #[test]
    fn a_long_enough_notice_saves_the_work() {
        let t = trace(3600, &[1, 1, 1, 0, 1, 1, 1, 1, 1, 1]);
        let saving = TimeInputs {
            saves_on_notice: true,
            ..inputs(4.0, Some(2.0), 0.5)
        };
        // Preempted at 3 h with the notice: 3 h kept; gap 1 h, restart 0.5 h, 1 h more.
        let sim = replay(&t, &saving, Rule::Stay, None);
        assert_eq!(starts(&sim)[0], (5.5, 4.5, 1));
    }

    #[test]
    fn a_gap_costs_wall_clock_but_no_rent() {
        // Running 1 h, 3 h gap, running 4 h.
        let t = trace(3600, &[1, 0, 0, 0, 1, 1, 1, 1]);
        let sim = replay(&t, &inputs(2.0, Some(0.5), 0.0), Rule::Stay, None);
        // From tick 0: 1 h of work saved at the 1 h checkpoint, 3 h gap, 1 h more.
        assert_eq!(starts(&sim)[0], (5.0, 2.0, 1));
    }

    #[test]
    fn the_trace_wraps_around_at_its_end() {
        // Running 2 h, gap 1 h, running 1 h: a start at tick 3 runs 1 h, wraps, runs 2 more
        // without a preemption at the wrap (running on both sides).
        let t = trace(3600, &[1, 1, 0, 1]);
        let sim = replay(&t, &inputs(2.5, None, 0.0), Rule::Stay, None);
        assert_eq!(starts(&sim)[3], (2.5, 2.5, 0));
        // A 5 h job without checkpoints never fits in a 3 h window: it never finishes.
        let sim = replay(&t, &inputs(5.0, None, 0.0), Rule::Stay, None);
        assert_eq!(sim.unfinished, 4);
    }

    #[test]
    fn fallback_moves_the_rest_after_the_first_preemption() {
        let t = trace(3600, &[1, 1, 1, 0, 1, 1, 1, 1, 1, 1]);
        let od = FallbackPlan {
            run_hours: 4.0,
            queue: crate::offers::queue::Queue::none(),
        };
        let sim = replay(
            &t,
            &inputs(4.0, Some(2.0), 0.5),
            Rule::AfterPreemptions(1),
            Some(&od),
        );
        // From tick 0: 3 h on spot, preempted (2 h saved), fallback: 0.5 + 2 h.
        assert_eq!(starts(&sim)[0], (5.5, 3.0, 1));
        assert!((sim.fallback_hours[0] - 2.5).abs() < 1e-9);
    }
}
