//! Protection periods in closed form: the expected running hours and preemptions of one run on an
//! interruptible offer that is never reclaimed during the first P hours after each start of an
//! instance (Alibaba Cloud's preemptible instances, AWS's former defined-duration spot blocks).
//!
//! What is modelled: every run on a metered offer starts its own instance, and so does every
//! restart after a preemption and its gap. An instance cannot be preempted during its first P
//! hours of running (a restart's overhead counts: it runs on the instance); after that, the
//! preemptions come at rate λ per running hour as before. The clock of protection belongs to the
//! instance, not to a checkpoint segment: an instance that passes checkpoints while protected
//! carries what is left of its protection into the next segment.
//!
//! With checkpoints every c hours of work and a restart overhead r, the run is walked checkpoint by
//! checkpoint. What the next segment meets depends only on how much protection the instance that
//! reaches its checkpoint has left, q:
//!
//! - the run's first instance reaches checkpoint j with q = P − j·c, until that is spent;
//! - an instance started to redo segment i reaches checkpoint i + d with q = P − r − d·c;
//! - any other instance has no protection left.
//!
//! A segment of x hours first tried with q left: the first try is protected for min(q, x), exposed
//! for e₁ = x − min(q, x), and fails with probability 1 − e^{−λe₁} after (1 − e^{−λe₁})/λ exposed
//! hours on average. After a failure each retry starts a fresh instance: protected for
//! min(P, r + x), exposed for e = max(0, r + x − P), so e^{λe} retries are needed on average, the
//! failing ones running P + (1 − e^{−λe})/λ. Per segment:
//!
//! ```text
//! F(q, x) = (1 − e^{−λe₁}) · e^{λe}
//! T(q, x) = min(q, x) + (1 − e^{−λe₁})/λ + (1 − e^{−λe₁}) · (min(P, r + x) · e^{λe} + (e^{λe} − 1)/λ)
//! ```
//!
//! With P = 0 this is F = e^{λr}(e^{λx} − 1) and T = F/λ, the unprotected segment. The instance
//! that ends a segment is the one that tried it first when that try succeeded, and otherwise one
//! started at the segment's checkpoint, so the masses on each q follow a chain from checkpoint to
//! checkpoint (a renewal: every failure starts the same lineage again). It settles to a stationary
//! state (a failure in a share f* = 1/(D + s_D/(1 − e^{−λc})) of the segments, D the lineages
//! still protected at a checkpoint, s_D the survival of the last of them); from there every
//! segment costs the same. Without checkpoints the run is one segment with r = 0:
//! F = e^{λ(W−P)} − 1 and T = P·e^{λ(W−P)} + F/λ for W > P.
//!
//! When the notice saves every checkpoint, no work is lost and the running hours are the work plus
//! the restarts. With P ≤ r the protection ends inside each restart: the rest is the unprotected
//! model for W − P hours with a restart of r − P, plus P of protection per start. With P > r each
//! restarted instance also does a = P − r hours of work for free; in exposed time t the work left
//! is W − P − t − a·N(t), which only falls, so the run is still going at t exactly when
//! N(t) < (W − P − t)/a, and F = λ·E[exposed time] (Wald) sums to
//!
//! ```text
//! F = Σ_{k ≥ 0, k·a < W − P} P(Poisson(λ(W − P − k·a)) ≥ k + 1),    T = W + r·F.
//! ```
//!
//! Past [`EXACT_CYCLES`] protection periods of work, the renewal asymptote
//! F = λ(W − P + λa²/(2(1 + λa)))/(1 + λa) is used instead (the second term is the mean overshoot
//! of a stationary renewal).

/// A walk over checkpoints stops being stored after this many segments: later segments cost the
/// stationary amount. The walk has settled well before in every case met in practice; for a
/// protection many times the checkpoint interval and the time between preemptions (a week's
/// protection at λ = 0.43, checkpoints every 15 minutes) the stationary cost is within 10⁻⁶ of
/// the exact running hours (10⁻³ of the failures) from there.
pub const MAX_WALKED_SEGMENTS: usize = 16_384;

/// With notice that saves the work, runs of up to this many protection periods of work are summed
/// exactly; longer ones use the renewal asymptote (within 10⁻¹⁵ of the sum from 256 periods on
/// for λa up to 10; in the almost periodic extreme of 60 preemptions an hour and a week's
/// protection, within 2 × 10⁻³).
pub const EXACT_CYCLES: f64 = 256.0;

/// At most this many instances still protected at a checkpoint are followed one by one (the task's
/// shortest checkpoint interval, 0.001 h, and the longest protection, 168 h, give 168,000).
const MAX_LINEAGES: usize = 1 << 18;

/// A settled walk agrees with the stationary state to this relative precision.
const SETTLED: f64 = 1e-13;

/// The closed form of one run with a protection period.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Protected {
    lambda: f64,
    protection: f64,
    restart: f64,
    saves: bool,
    /// The checkpoint walk, when checkpoints are written and the notice does not save them.
    walk: Option<Walk>,
}

/// The state at a checkpoint, and the cost of the segments before it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Checkpoint {
    /// Expected running hours of the segments before it.
    running: f64,
    /// Expected failures in them.
    failures: f64,
    /// Probability that the run's first instance is still running, with protection left.
    first: f64,
    /// Probability that the instance is the last lineage still protected (q = P − r − D·c).
    last: f64,
    /// Probability that the instance has no protection left.
    bare: f64,
}

impl Checkpoint {
    /// Probability that the instance is a lineage with at least a whole segment of protection.
    fn shielded(&self) -> f64 {
        (1.0 - self.first - self.last - self.bare).max(0.0)
    }
}

/// The chain from checkpoint to checkpoint, stored until it settles.
#[derive(Debug, Clone, PartialEq)]
struct Walk {
    interval: f64,
    /// Lineages still protected at a checkpoint after a restart.
    lineages: usize,
    /// Protection left to the last of them at its checkpoint, in (0, c].
    last_left: f64,
    /// The state at checkpoints 0, 1, ...
    stored: Vec<Checkpoint>,
    /// The stationary cost of a segment (running, failures), and the stationary state.
    per_segment: (f64, f64),
    stationary: Checkpoint,
}

impl Protected {
    /// The closed form for preemptions at `lambda` per running hour (> 0), `protection` hours
    /// (> 0) after each start, restarts of `restart` hours, checkpoints every `interval` hours
    /// (none: a preemption loses the whole run), `saves` when the notice saves the work; runs of
    /// up to `longest` hours of work are asked about.
    pub(crate) fn new(
        lambda: f64,
        protection: f64,
        restart: f64,
        interval: Option<f64>,
        saves: bool,
        longest: f64,
    ) -> Protected {
        let mut p = Protected {
            lambda,
            protection,
            restart,
            saves,
            walk: None,
        };
        if let (Some(c), false) = (interval, saves) {
            p.walk = Some(p.walk(c, longest));
        }
        p
    }

    /// Expected running hours and failures of one run of `work` hours.
    pub(crate) fn run(&self, work: f64) -> (f64, f64) {
        if self.lambda <= 0.0 || work <= 0.0 {
            return (work, 0.0);
        }
        if self.saves {
            return self.saving(work);
        }
        match &self.walk {
            Some(walk) if walk.interval <= work => self.walked(walk, work),
            // One segment: the whole run, first tried on a fresh instance.
            _ => self.segment(self.protection, work.max(1e-9)),
        }
    }

    /// The retries of a segment of `x` hours once its first try failed: (running hours,
    /// expected retries).
    fn retries(&self, x: f64) -> (f64, f64) {
        let exposed = (self.restart + x - self.protection).max(0.0);
        let tries = libm::exp(self.lambda * exposed);
        let running = (self.restart + x).min(self.protection) * tries
            + libm::expm1(self.lambda * exposed) / self.lambda;
        (running, tries)
    }

    /// Running hours and failures of a segment of `x` hours first tried with `left` hours of
    /// protection, then retried on fresh instances until done.
    fn segment(&self, left: f64, x: f64) -> (f64, f64) {
        self.segment_with(left.max(0.0), x, self.retries(x))
    }

    /// [`Protected::segment`] with the retries of a segment of `x` hours already worked out.
    fn segment_with(&self, left: f64, x: f64, (retry_running, tries): (f64, f64)) -> (f64, f64) {
        let shielded = left.min(x);
        let fail = -libm::expm1(-self.lambda * (x - shielded));
        if fail <= 0.0 {
            return (shielded, 0.0);
        }
        (
            shielded + fail / self.lambda + fail * retry_running,
            fail * tries,
        )
    }

    /// Probability that a first try of `x` hours with `left` hours of protection succeeds.
    fn survives(&self, left: f64, x: f64) -> f64 {
        libm::exp(-self.lambda * (x - left.clamp(0.0, x)))
    }

    /// Walks the checkpoints of a run until the state settles, at most far enough for `longest`
    /// hours of work (and [`MAX_WALKED_SEGMENTS`]).
    fn walk(&self, interval: f64, longest: f64) -> Walk {
        let c = interval.max(1e-9);
        let lambda = self.lambda;
        let p = self.protection;
        let ahead = p - self.restart;
        // Lineages still protected at a checkpoint after their restart: d = 1, ..., D with
        // P − r − d·c > 0; all but the last have a whole segment or more left.
        let lineages = if ahead > 0.0 {
            ((libm::ceil(ahead / c) - 1.0).max(0.0) as usize).min(MAX_LINEAGES)
        } else {
            0
        };
        let last_left = ahead - lineages as f64 * c;
        let whole = self.retries(c);
        let (bare_running, bare_failures) = self.segment_with(0.0, c, whole);
        let (last_running, last_failures) = self.segment_with(last_left, c, whole);
        let bare_survives = libm::exp(-lambda * c);
        let bare_fails = -libm::expm1(-lambda * c);
        let last_survives = self.survives(last_left, c);
        // Stationary: a failure in a share f* of the segments.
        let (per_segment, stationary) = if lineages == 0 {
            (
                (bare_running, bare_failures),
                Checkpoint {
                    running: 0.0,
                    failures: 0.0,
                    first: 0.0,
                    last: 0.0,
                    bare: 1.0,
                },
            )
        } else {
            let f = 1.0 / (lineages as f64 + last_survives / bare_fails);
            let bare = f * last_survives / bare_fails;
            (
                (
                    (lineages - 1) as f64 * f * c + f * last_running + bare * bare_running,
                    f * last_failures + bare * bare_failures,
                ),
                Checkpoint {
                    running: 0.0,
                    failures: 0.0,
                    first: 0.0,
                    last: f,
                    bare,
                },
            )
        };
        let settled_failures = if lineages > 0 {
            stationary.last
        } else {
            bare_fails
        };
        let needed = (libm::floor(longest.max(0.0) / c) as usize).min(MAX_WALKED_SEGMENTS);
        // Failures of the last `lineages` segments, oldest first in turn.
        let mut ring = vec![0.0_f64; lineages];
        let mut at = Checkpoint {
            running: 0.0,
            failures: 0.0,
            first: 1.0,
            last: 0.0,
            bare: 0.0,
        };
        let mut stored = Vec::with_capacity(needed.min(4096) + 1);
        stored.push(at);
        let mut streak = 0_usize;
        for j in 0..needed {
            let left = p - j as f64 * c;
            let (first_running, first_failures, first_survives) = if at.first > 0.0 {
                let (t, f) = self.segment_with(left, c, whole);
                (t, f, self.survives(left, c))
            } else {
                (0.0, 0.0, 1.0)
            };
            let slot = if lineages > 0 { j % lineages } else { 0 };
            let shielded = at.shielded();
            let failed = at.first * (1.0 - first_survives)
                + at.last * (1.0 - last_survives)
                + at.bare * bare_fails;
            let mut next = Checkpoint {
                running: at.running
                    + at.first * first_running
                    + shielded * c
                    + at.last * last_running
                    + at.bare * bare_running,
                failures: at.failures
                    + at.first * first_failures
                    + at.last * last_failures
                    + at.bare * bare_failures,
                first: at.first * first_survives,
                last: 0.0,
                bare: at.bare * bare_survives + at.last * last_survives,
            };
            if lineages == 0 {
                next.bare += failed;
            } else if let Some(f) = ring.get_mut(slot) {
                *f = failed;
            }
            if p - (j + 1) as f64 * c <= 0.0 {
                next.bare += next.first;
                next.first = 0.0;
            }
            next.last = if lineages > 0 {
                ring.get((j + 1) % lineages).copied().unwrap_or(0.0)
            } else {
                0.0
            };
            stored.push(next);
            at = next;
            let close = (failed - settled_failures).abs() <= SETTLED * settled_failures;
            streak = if at.first == 0.0 && close {
                streak + 1
            } else {
                0
            };
            if streak > lineages && (at.bare - stationary.bare).abs() <= SETTLED {
                break;
            }
        }
        Walk {
            interval: c,
            lineages,
            last_left,
            stored,
            per_segment,
            stationary,
        }
    }

    /// A run of `work` hours (at least one checkpoint interval) over the walk.
    fn walked(&self, walk: &Walk, work: f64) -> (f64, f64) {
        let c = walk.interval;
        let segments = libm::floor(work / c);
        let rest = work - segments * c;
        let stored = walk.stored.len().saturating_sub(1);
        let at = if segments <= stored as f64 {
            walk.stored.get(segments as usize).copied()
        } else {
            None
        };
        let at = at.unwrap_or_else(|| {
            let last = walk.stored.last().copied().unwrap_or(walk.stationary);
            let beyond = segments - stored as f64;
            Checkpoint {
                running: last.running + beyond * walk.per_segment.0,
                failures: last.failures + beyond * walk.per_segment.1,
                ..walk.stationary
            }
        });
        if rest <= 0.0 {
            return (at.running, at.failures);
        }
        // The shorter last segment, from the state at its checkpoint.
        let retries = self.retries(rest);
        let mut running = at.running + at.shielded() * rest;
        let mut failures = at.failures;
        for (mass, left) in [
            (at.first, self.protection - segments * c),
            (at.last, walk.last_left),
            (at.bare, 0.0),
        ] {
            if mass > 0.0 {
                let (t, f) = self.segment_with(left.max(0.0), rest, retries);
                running += mass * t;
                failures += mass * f;
            }
        }
        (running, failures)
    }

    /// A run of `work` hours whose notice saves all the work.
    fn saving(&self, work: f64) -> (f64, f64) {
        let (lambda, p, r) = (self.lambda, self.protection, self.restart);
        if work <= p {
            return (work, 0.0);
        }
        if p <= r {
            let exposed = (work - p) * libm::exp(lambda * (r - p));
            let failures = lambda * exposed;
            return (p + exposed + p * failures, failures);
        }
        let ahead = p - r;
        let left = work - p;
        let failures = if left / ahead <= EXACT_CYCLES {
            let mut sum = 0.0;
            let mut k = 0_u32;
            while f64::from(k) * ahead < left {
                let term = poisson_at_least(k + 1, lambda * (left - f64::from(k) * ahead));
                sum += term;
                // The terms only fall: the rest are below the last digit.
                if term < 1e-18 * sum.max(1e-300) {
                    break;
                }
                k += 1;
            }
            sum
        } else {
            let la = lambda * ahead;
            lambda * (left + la * ahead / (2.0 * (1.0 + la))) / (1.0 + la)
        };
        (work + r * failures, failures)
    }
}

/// P(X ≥ k) for X Poisson with mean `mu`, k ≥ 1: the regularized lower incomplete gamma function
/// P(k, mu), by its series below k + 1 and by its continued fraction (modified Lentz) above.
pub fn poisson_at_least(k: u32, mu: f64) -> f64 {
    if mu <= 0.0 || k == 0 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    let s = f64::from(k);
    let front = libm::exp(-mu + s * libm::log(mu) - libm::lgamma(s));
    if mu < s + 1.0 {
        let mut term = 1.0 / s;
        let mut sum = term;
        let mut a = s;
        for _ in 0..100_000 {
            a += 1.0;
            term *= mu / a;
            sum += term;
            if term < sum * 1e-17 {
                break;
            }
        }
        (sum * front).clamp(0.0, 1.0)
    } else {
        let tiny = 1e-300;
        let mut b = mu + 1.0 - s;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..100_000 {
            let i = f64::from(i);
            let an = -i * (i - s);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let step = d * c;
            h *= step;
            if (step - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (1.0 - front * h).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain over every distinct protection left, written out state by state (no ring, no
    /// stationary shortcut): what the walk must equal.
    fn brute(p: &Protected, c: f64, work: f64) -> (f64, f64) {
        let n = libm::floor(work / c) as usize;
        let rest = work - n as f64 * c;
        let mut states: Vec<(f64, f64)> = vec![(p.protection, 1.0)];
        let (mut t, mut f) = (0.0, 0.0);
        for _ in 0..n {
            let mut next: Vec<(f64, f64)> = Vec::new();
            let mut add = |q: f64, m: f64| match next.iter_mut().find(|(k, _)| *k == q) {
                Some(e) => e.1 += m,
                None => next.push((q, m)),
            };
            let mut failed = 0.0;
            for &(q, m) in &states {
                let (ti, fi) = p.segment(q, c);
                t += m * ti;
                f += m * fi;
                let s = p.survives(q, c);
                add((q - c).max(0.0), m * s);
                failed += m * (1.0 - s);
            }
            add((p.protection - p.restart - c).max(0.0), failed);
            states = next;
        }
        if rest > 0.0 {
            for &(q, m) in &states {
                let (ti, fi) = p.segment(q, rest);
                t += m * ti;
                f += m * fi;
            }
        }
        (t, f)
    }

    #[test]
    fn the_walk_equals_the_chain_written_out() {
        for (lambda, protection, restart, c, work) in [
            (0.5, 1.0, 0.1, 1.0, 10.0),
            (0.433, 1.0, 0.05, 0.25, 10.0),
            (0.8, 2.0, 0.1, 0.5, 7.3),
            (1.1, 1.3, 0.1, 0.3, 40.0),
            (0.2, 0.05, 0.3, 0.5, 6.2),
            (2.0, 6.0, 0.05, 0.25, 300.0),
        ] {
            let p = Protected::new(lambda, protection, restart, Some(c), false, work);
            let (t, f) = p.run(work);
            let (bt, bf) = brute(&p, c, work);
            assert!((t / bt - 1.0).abs() < 1e-12, "{t} vs {bt}");
            assert!((f / bf - 1.0).abs() < 1e-12, "{f} vs {bf}");
        }
    }

    #[test]
    fn a_settled_walk_continues_at_the_stationary_cost() {
        // Settles within a few dozen checkpoints; a 2,000-hour run goes on from there.
        let p = Protected::new(0.433, 1.0, 0.05, Some(0.25), false, 2000.0);
        let walk = p.walk.as_ref().unwrap();
        assert!(walk.stored.len() < 200, "{}", walk.stored.len());
        let (t, f) = p.run(2000.0);
        let (bt, bf) = brute(&p, 0.25, 2000.0);
        assert!((t / bt - 1.0).abs() < 1e-12, "{t} vs {bt}");
        assert!((f / bf - 1.0).abs() < 1e-12, "{f} vs {bf}");
    }

    #[test]
    fn without_protection_a_segment_is_the_unprotected_one() {
        let p = Protected::new(0.5, 0.0, 0.1, Some(1.0), false, 10.0);
        let (t, f) = p.segment(0.0, 1.0);
        let unprotected = libm::exp(0.05) * libm::expm1(0.5);
        assert!((f - unprotected).abs() < 1e-15);
        assert!((t - unprotected / 0.5).abs() < 1e-14);
    }

    #[test]
    fn poisson_tails_match_their_sums() {
        for (k, mu) in [
            (1_u32, 0.3),
            (3, 2.5),
            (10, 10.0),
            (40, 25.0),
            (25, 60.0),
            (200, 190.0),
        ] {
            let mut cdf = 0.0;
            let mut pmf = libm::exp(-mu);
            for i in 0..k {
                cdf += pmf;
                pmf *= mu / f64::from(i + 1);
            }
            let got = poisson_at_least(k, mu);
            assert!(
                (got - (1.0 - cdf)).abs() < 1e-12,
                "{k}, {mu}: {got} vs {}",
                1.0 - cdf
            );
        }
    }

    #[test]
    fn the_saving_sum_meets_its_asymptote() {
        // λa = 0.41: the sum settles on the asymptote within a few protection periods.
        let p = Protected::new(0.433, 1.0, 0.05, Some(0.25), true, 0.0);
        let (lambda, a) = (0.433, 0.95);
        let left = 200.0 * a;
        let (t, f) = p.run(1.0 + left);
        let la = lambda * a;
        let asymptote = lambda * (left + la * a / (2.0 * (1.0 + la))) / (1.0 + la);
        assert!((f / asymptote - 1.0).abs() < 1e-13, "{f} vs {asymptote}");
        assert!((t - (1.0 + left + 0.05 * f)).abs() < 1e-9);
    }
}
