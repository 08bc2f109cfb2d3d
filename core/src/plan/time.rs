//! Time and risk: how long a task really takes on an offer, in expectation and at the tail.
//!
//! One run needs `T0` hours of work on the offer's GPU. Neighbours stretch it by a log-normal
//! multiplier S (see `tenancy`). Interruptions arrive as a Poisson process at rate λ per hour of
//! running; λ = -ln(1 - p_month) / 730 from a monthly probability (AWS Spot Advisor bands).
//! With checkpoints every c hours and restart overhead r, a segment of x hours of work takes on
//! average (e^{λx} - 1) (1/λ + r) hours: the number of failures before a clean segment is
//! geometric with mean e^{λx} - 1, each costing the time lost plus r. Without checkpoints the
//! segment is the whole run, which is the exponential blow-up of long unchecked jobs on spot.
//! A queue wait with the offer's mean (exponential) comes before each run on metered offers and
//! once for subscriptions.
//!
//! Expectations are computed in closed form (integrating over S numerically); the distribution
//! (P50/P90, deadline misses) comes from a seeded Monte Carlo that uses the same model.

use std::cell::RefCell;
use std::rc::Rc;

use crate::numbers::rng::Stream;
use crate::offers::billing::HOURS_PER_MONTH;
use crate::offers::tenancy::Slowdown;
use crate::task::document::Checkpoint;

/// Runs simulated one by one; more runs are represented by scaling (an approximation that keeps
/// the Monte Carlo's cost bounded for tasks with thousands of runs).
pub const MAX_SIMULATED_RUNS: usize = 32;

/// Beyond this many expected hours a task is considered never to finish.
const NEVER_HOURS: f64 = 10_000_000.0;

/// Converts a monthly interruption probability to an hourly Poisson rate: -ln(1-p)/730.
pub fn hourly_rate(p_month: f64) -> f64 {
    if p_month <= 0.0 {
        0.0
    } else {
        -libm::log(1.0 - p_month) / HOURS_PER_MONTH
    }
}

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
    /// Checkpointing, if any.
    pub checkpoint: Option<Checkpoint>,
    /// Mean queue wait before a start, hours.
    pub queue_mean_hours: f64,
    /// Whether every run waits in the queue (metered offers) or only the first (subscriptions).
    pub queue_every_run: bool,
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
    /// Expected number of interruptions.
    pub interruptions: f64,
    /// Whether the expected time is beyond any practical horizon.
    pub never_finishes: bool,
}

impl Expectation {
    /// Expected wall-clock hours: queue plus running.
    pub fn wall_hours(&self) -> f64 {
        self.queue_hours + self.running_hours
    }
}

/// Expected hours to push `work` hours through interruptions, and the expected interruptions.
fn run_with_interruptions(work: f64, lambda: f64, checkpoint: Option<&Checkpoint>) -> (f64, f64) {
    if lambda <= 0.0 || work <= 0.0 {
        return (work, 0.0);
    }
    let (interval, restart) = match checkpoint {
        Some(c) if c.interval_hours < work => (c.interval_hours, c.restart_overhead_hours),
        Some(c) => (work, c.restart_overhead_hours),
        None => (work, 0.0),
    };
    let segment = |x: f64| {
        let failures = libm::expm1(lambda * x);
        (failures * (1.0 / lambda + restart), failures)
    };
    let full = libm::floor(work / interval);
    let rest = work - full * interval;
    let (t_full, f_full) = segment(interval);
    let (t_rest, f_rest) = segment(rest);
    (full * t_full + t_rest, full * f_full + f_rest)
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
        run_with_interruptions(
            inputs.run_hours * inputs.slowdown.median,
            lambda,
            inputs.checkpoint.as_ref(),
        )
    } else {
        // The integrand is smooth and Gaussian-weighted: the trapezoid rule converges fast.
        const STEPS: usize = 168;
        let (lo, hi) = (-7.0, 7.0);
        let dz = (hi - lo) / STEPS as f64;
        let (mut t, mut f) = (0.0, 0.0);
        for i in 0..=STEPS {
            let z = lo + dz * i as f64;
            let weight = if i == 0 || i == STEPS { 0.5 } else { 1.0 } * libm::exp(-z * z / 2.0);
            let work = inputs.run_hours * inputs.slowdown.median * libm::exp(sigma * z);
            let (ti, fi) = run_with_interruptions(work, lambda, inputs.checkpoint.as_ref());
            t += weight * ti;
            f += weight * fi;
        }
        let norm = dz / libm::sqrt(2.0 * std::f64::consts::PI);
        (t * norm, f * norm)
    };
    let running = runs * mean_running;
    let queue = inputs.queue_mean_hours * if inputs.queue_every_run { runs } else { 1.0 };
    let clean = runs * inputs.run_hours * inputs.slowdown.mean();
    let never_finishes = !running.is_finite() || running > NEVER_HOURS;
    Expectation {
        running_hours: if never_finishes {
            f64::INFINITY
        } else {
            running
        },
        queue_hours: queue,
        rework_hours: if never_finishes {
            f64::INFINITY
        } else {
            (running - clean).max(0.0)
        },
        interruptions: runs * mean_interruptions,
        never_finishes,
    }
}

/// Random draws shared by every offer of a plan (common random numbers): offers are compared
/// under the same luck, so their ranking is not an artefact of sampling noise.
pub struct Draws {
    /// Trials.
    pub trials: usize,
    /// Runs simulated per trial.
    pub runs: usize,
    normals: Vec<f64>,
    waits: Vec<f64>,
    /// exp(sigma x z) per draw, computed once per distinct sigma (offers of one tenancy share it).
    factors: RefCell<Vec<(u64, Rc<Vec<f64>>)>>,
}

impl Draws {
    /// Draws `trials` x `runs` (capped at [`MAX_SIMULATED_RUNS`]) standard normals and
    /// exponentials from `seed`.
    pub fn new(seed: u64, trials: usize, runs: u32) -> Draws {
        let runs = (runs as usize).clamp(1, MAX_SIMULATED_RUNS);
        let n = trials * runs;
        let mut stream = Stream::new(seed, "gpufare/draws");
        let mut normals = Vec::with_capacity(n + 1);
        while normals.len() < n {
            let (a, b) = stream.normal_pair();
            normals.push(a);
            normals.push(b);
        }
        normals.truncate(n);
        let waits = (0..n).map(|_| stream.exponential()).collect();
        Draws {
            trials,
            runs,
            normals,
            waits,
            factors: RefCell::new(Vec::new()),
        }
    }

    /// exp(sigma x z) for every draw, cached per sigma.
    fn factors(&self, sigma: f64) -> Rc<Vec<f64>> {
        let key = sigma.to_bits();
        if let Some((_, f)) = self.factors.borrow().iter().find(|(k, _)| *k == key) {
            return Rc::clone(f);
        }
        let f: Rc<Vec<f64>> = Rc::new(self.normals.iter().map(|z| libm::exp(sigma * z)).collect());
        self.factors.borrow_mut().push((key, Rc::clone(&f)));
        f
    }
}

/// The simulated distribution for one offer.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// Wall-clock hours per trial (queue + running), all runs.
    pub wall_hours: Vec<f64>,
    /// Running hours per trial, all runs.
    pub running_hours: Vec<f64>,
    /// Trials that hit the practical horizon.
    pub unfinished: usize,
}

impl Simulation {
    /// The trials at the median and the 90th percentile of wall-clock time, each as
    /// (wall hours, running hours).
    pub fn p50_p90(&self) -> ((f64, f64), (f64, f64)) {
        let n = self.wall_hours.len();
        if n == 0 {
            return ((0.0, 0.0), (0.0, 0.0));
        }
        let rank = |q: f64| (libm::ceil(q * n as f64) as usize).clamp(1, n) - 1;
        let (k50, k90) = (rank(0.5), rank(0.9));
        let mut order: Vec<u32> = (0..n as u32).collect();
        let by_wall = |a: &u32, b: &u32| {
            self.wall_hours[*a as usize].total_cmp(&self.wall_hours[*b as usize])
        };
        order.select_nth_unstable_by(k90, by_wall);
        let i90 = order[k90] as usize;
        order[..k90.max(1)].select_nth_unstable_by(k50.min(k90.max(1) - 1), by_wall);
        let i50 = if k50 == k90 { i90 } else { order[k50] as usize };
        (
            (self.wall_hours[i50], self.running_hours[i50]),
            (self.wall_hours[i90], self.running_hours[i90]),
        )
    }

    /// The trial at quantile `q` of wall-clock time: (wall hours, running hours).
    pub fn at_quantile(&self, q: f64) -> (f64, f64) {
        let n = self.wall_hours.len();
        if n == 0 {
            return (0.0, 0.0);
        }
        let mut order: Vec<usize> = (0..n).collect();
        let k = (libm::ceil(q * n as f64) as usize).clamp(1, n) - 1;
        order.select_nth_unstable_by(k, |&a, &b| {
            self.wall_hours[a].total_cmp(&self.wall_hours[b])
        });
        let i = order[k];
        (self.wall_hours[i], self.running_hours[i])
    }

    /// Share of trials whose wall-clock time exceeds `hours`.
    pub fn share_over(&self, hours: f64) -> f64 {
        if self.wall_hours.is_empty() {
            return 0.0;
        }
        self.wall_hours.iter().filter(|&&w| w > hours).count() as f64 / self.wall_hours.len() as f64
    }
}

/// Simulates the task on one offer; `label` separates this offer's interruption stream.
pub fn simulate(inputs: &TimeInputs, draws: &Draws, seed: u64, label: &str) -> Simulation {
    let mut stream = Stream::new(seed, label);
    let factors = draws.factors(inputs.slowdown.sigma());
    let scale = f64::from(inputs.runs) / draws.runs as f64;
    let lambda = inputs.interruptions_per_hour;
    let mut wall_hours = Vec::with_capacity(draws.trials);
    let mut running_hours = Vec::with_capacity(draws.trials);
    let mut unfinished = 0;
    for trial in 0..draws.trials {
        let (mut wall, mut running) = (0.0, 0.0);
        let mut done = true;
        for run in 0..draws.runs {
            let i = trial * draws.runs + run;
            let queue = if inputs.queue_every_run || run == 0 {
                inputs.queue_mean_hours * draws.waits[i]
            } else {
                0.0
            };
            let work = inputs.run_hours * inputs.slowdown.median * factors[i];
            let t = if lambda > 0.0 {
                match simulate_interruptions(work, lambda, inputs.checkpoint.as_ref(), &mut stream)
                {
                    Some(t) => t,
                    None => {
                        done = false;
                        NEVER_HOURS
                    }
                }
            } else {
                work
            };
            wall += queue + t;
            running += t;
        }
        if !done {
            unfinished += 1;
        }
        wall_hours.push(wall * scale);
        running_hours.push(running * scale);
    }
    Simulation {
        wall_hours,
        running_hours,
        unfinished,
    }
}

/// One run through Poisson interruptions; `None` when it passes the practical horizon.
///
/// Jumps from failure to failure (the process is memoryless): after a failure at work position
/// x, work resumes from the last checkpoint, the multiple of the interval at or below x, after
/// the restart overhead. Costs one random draw per failure plus one, not one per segment.
fn simulate_interruptions(
    work: f64,
    lambda: f64,
    checkpoint: Option<&Checkpoint>,
    stream: &mut Stream,
) -> Option<f64> {
    let (interval, restart) = match checkpoint {
        Some(c) if c.interval_hours < work => {
            (c.interval_hours.max(1e-9), c.restart_overhead_hours)
        }
        Some(c) => (work.max(1e-9), c.restart_overhead_hours),
        None => (work.max(1e-9), 0.0),
    };
    let mut saved = 0.0;
    let mut elapsed = 0.0;
    loop {
        let until_failure = stream.exponential() / lambda;
        if saved + until_failure >= work {
            return Some(elapsed + work - saved);
        }
        let reached = saved + until_failure;
        saved = libm::floor(reached / interval) * interval;
        elapsed += until_failure + restart;
        if elapsed > NEVER_HOURS {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offers::tenancy::SlowdownSource;

    fn slowdown(median: f64, p99: f64) -> Slowdown {
        Slowdown {
            median,
            p99,
            source: SlowdownSource::Assumed,
        }
    }

    fn inputs(run_hours: f64, p_month: f64, checkpoint: Option<Checkpoint>) -> TimeInputs {
        TimeInputs {
            run_hours,
            runs: 2,
            slowdown: slowdown(1.15, 1.7),
            interruptions_per_hour: hourly_rate(p_month),
            checkpoint,
            queue_mean_hours: 0.5,
            queue_every_run: true,
        }
    }

    #[test]
    fn closed_form_matches_hand_arithmetic() {
        // No spread, no interruptions: 3 runs x 2 h x 1.5 = 9 h running, 3 x 0.25 h queue.
        let plain = TimeInputs {
            run_hours: 2.0,
            runs: 3,
            slowdown: slowdown(1.5, 1.5),
            interruptions_per_hour: 0.0,
            checkpoint: None,
            queue_mean_hours: 0.25,
            queue_every_run: true,
        };
        let e = expect(&plain);
        assert_eq!(
            (e.running_hours, e.queue_hours, e.rework_hours),
            (9.0, 0.75, 0.0)
        );
        // λ = 0.1/h, 10 h unchecked: (e^1 - 1) / 0.1 = 17.1828 h.
        let spot = TimeInputs {
            run_hours: 10.0,
            runs: 1,
            slowdown: slowdown(1.0, 1.0),
            interruptions_per_hour: 0.1,
            queue_mean_hours: 0.0,
            ..plain
        };
        let e = expect(&spot);
        assert!(
            (e.running_hours - 17.182_818_284_590_45).abs() < 1e-9,
            "{}",
            e.running_hours
        );
        assert!((e.interruptions - 1.718_281_828_459_045).abs() < 1e-12);
    }

    #[test]
    fn monte_carlo_agrees_with_the_closed_form() {
        let checkpoint = Some(Checkpoint {
            interval_hours: 1.0,
            restart_overhead_hours: 0.1,
        });
        for case in [
            inputs(6.0, 0.0, None),
            inputs(20.0, 0.3, checkpoint),
            inputs(30.0, 0.3, None),
            inputs(2.0, 0.125, None),
        ] {
            let draws = Draws::new(11, 20_000, case.runs);
            let sim = simulate(&case, &draws, 11, "case");
            let mc: f64 = sim.wall_hours.iter().sum::<f64>() / sim.wall_hours.len() as f64;
            let cf = expect(&case).wall_hours();
            assert!(
                (mc / cf - 1.0).abs() < 0.02,
                "Monte Carlo {mc} vs closed form {cf} for {case:?}"
            );
        }
    }

    #[test]
    fn unchecked_long_spot_jobs_blow_up() {
        // 2000 h without checkpoints at 30 %/month: e^{λT} with λT ≈ 0.98 per 2000 h... scale up.
        let mild = expect(&TimeInputs {
            run_hours: 100.0,
            runs: 1,
            ..inputs(100.0, 0.3, None)
        });
        let long = expect(&TimeInputs {
            run_hours: 20_000.0,
            runs: 1,
            ..inputs(20_000.0, 0.3, None)
        });
        assert!(mild.rework_hours < 0.1 * mild.running_hours);
        assert!(long.never_finishes);
        let checked = expect(&TimeInputs {
            run_hours: 20_000.0,
            runs: 1,
            ..inputs(
                20_000.0,
                0.3,
                Some(Checkpoint {
                    interval_hours: 1.0,
                    restart_overhead_hours: 0.1,
                }),
            )
        });
        assert!(!checked.never_finishes && checked.running_hours < 30_000.0);
    }

    #[test]
    fn same_seed_same_distribution() {
        let case = inputs(5.0, 0.3, None);
        let a = simulate(&case, &Draws::new(3, 1000, 2), 3, "x");
        let b = simulate(&case, &Draws::new(3, 1000, 2), 3, "x");
        assert_eq!(a, b);
        assert!(a.at_quantile(0.9).0 >= a.at_quantile(0.5).0);
    }
}
