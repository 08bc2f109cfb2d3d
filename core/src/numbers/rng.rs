//! Seeded random numbers for the Monte Carlo: a PCG stream plus portable transforms.
//!
//! The seed is an input of every plan, so the same scenario and seed give the same answer on
//! every run and every target. Transcendental functions come from `libm` (pure Rust), not the
//! platform's C library, so native and wasm32 produce bit-identical samples.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A seeded random stream.
pub struct Stream(Pcg64Mcg);

impl Stream {
    /// A stream for `seed`, separated from other streams of the same seed by `label`.
    pub fn new(seed: u64, label: &str) -> Stream {
        Stream(Pcg64Mcg::seed_from_u64(seed ^ fnv1a(label)))
    }

    /// The stream of one Monte Carlo trial: independent of the other trials, so policies priced
    /// on the same trial meet the same luck until they part ways (common random numbers).
    pub fn for_trial(seed: u64, label: &str, trial: u64) -> Stream {
        Stream::trial_of(Stream::key(seed, label), trial)
    }

    /// The key of a seed and label: [`Stream::trial_of`] with it is [`Stream::for_trial`],
    /// without hashing the label again for every trial.
    pub fn key(seed: u64, label: &str) -> u64 {
        seed ^ fnv1a(label)
    }

    /// The stream of trial `trial` under `key` (from [`Stream::key`]).
    pub fn trial_of(key: u64, trial: u64) -> Stream {
        // SplitMix64's finaliser spreads consecutive trial numbers over the whole seed space.
        let mut z = trial.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Stream(Pcg64Mcg::seed_from_u64(key ^ z))
    }

    /// Uniform in (0, 1]: never 0, so its logarithm is finite.
    pub fn uniform(&mut self) -> f64 {
        uniform_of(self.0.next_u64())
    }

    /// Exponential with mean 1.
    pub fn exponential(&mut self) -> f64 {
        -libm::log(self.uniform())
    }

    /// Two independent standard normals (Box-Muller).
    pub fn normal_pair(&mut self) -> (f64, f64) {
        let radius = libm::sqrt(-2.0 * libm::log(self.uniform()));
        let angle = 2.0 * std::f64::consts::PI * self.uniform();
        (radius * libm::cos(angle), radius * libm::sin(angle))
    }
}

/// The uniform 1 - exp(-e) in [0, 1) of an exponential draw `e` with mean 1 (its distribution
/// function): how a shared exponential draw is read through a queue's quantile function.
pub fn uniform_of_exponential(e: f64) -> f64 {
    -libm::expm1(-e)
}

/// The uniform in (0, 1] of one 64-bit output: its top 53 bits, plus one, over 2^53.
fn uniform_of(bits: u64) -> f64 {
    ((bits >> 11) as f64 + 1.0) * (1.0 / (1u64 << 53) as f64)
}

/// Draws [`Ahead`] works out at a time.
const AHEAD: usize = 4;

/// A stream read a few draws ahead: the same values, in the same order, as the [`Stream`] it
/// wraps, whichever of [`Ahead::uniform`] and [`Ahead::exponential`] is asked for (each takes one
/// output of the stream). The logarithms of a batch are computed together, where the processor
/// can overlap them, instead of one at a time on the Monte Carlo's path of dependent steps; a
/// batch's unused draws are dropped with the stream.
pub struct Ahead {
    stream: Stream,
    bits: [u64; AHEAD],
    exponentials: [f64; AHEAD],
    next: usize,
}

impl Ahead {
    /// `stream`, read ahead.
    pub fn new(stream: Stream) -> Ahead {
        Ahead {
            stream,
            bits: [0; AHEAD],
            exponentials: [0.0; AHEAD],
            next: AHEAD,
        }
    }

    /// The position of the next draw, after a new batch where the last one is used up.
    fn take(&mut self) -> usize {
        if self.next >= AHEAD {
            for (bits, e) in self.bits.iter_mut().zip(&mut self.exponentials) {
                *bits = self.stream.0.next_u64();
                *e = -libm::log(uniform_of(*bits));
            }
            self.next = 0;
        }
        let at = self.next;
        self.next += 1;
        at
    }

    /// [`Stream::uniform`].
    pub fn uniform(&mut self) -> f64 {
        let at = self.take();
        self.bits.get(at).map_or(1.0, |&b| uniform_of(b))
    }

    /// [`Stream::exponential`].
    pub fn exponential(&mut self) -> f64 {
        let at = self.take();
        self.exponentials.get(at).copied().unwrap_or(0.0)
    }
}

/// FNV-1a, a fixed 64-bit string hash (std's hasher is randomised per process).
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_labels_separate() {
        let a: Vec<f64> = (0..5)
            .map({
                let mut s = Stream::new(7, "x");
                move |_| s.uniform()
            })
            .collect();
        let b: Vec<f64> = (0..5)
            .map({
                let mut s = Stream::new(7, "x");
                move |_| s.uniform()
            })
            .collect();
        let c: Vec<f64> = (0..5)
            .map({
                let mut s = Stream::new(7, "y");
                move |_| s.uniform()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn reading_ahead_gives_the_stream_itself() {
        let mut plain = Stream::new(3, "ahead");
        let mut ahead = Ahead::new(Stream::new(3, "ahead"));
        let mut pick = Stream::new(4, "which");
        for _ in 0..1000 {
            if pick.uniform() < 0.3 {
                assert_eq!(plain.uniform().to_bits(), ahead.uniform().to_bits());
            } else {
                assert_eq!(plain.exponential().to_bits(), ahead.exponential().to_bits());
            }
        }
    }

    #[test]
    fn moments_are_right() {
        let mut s = Stream::new(42, "moments");
        let n = 200_000;
        let (mut sum_e, mut sum_z, mut sum_z2) = (0.0, 0.0, 0.0);
        for _ in 0..n / 2 {
            let (z1, z2) = s.normal_pair();
            sum_z += z1 + z2;
            sum_z2 += z1 * z1 + z2 * z2;
            sum_e += s.exponential() + s.exponential();
        }
        let n = n as f64;
        assert!((sum_e / n - 1.0).abs() < 0.01);
        assert!((sum_z / n).abs() < 0.01);
        assert!((sum_z2 / n - 1.0).abs() < 0.01);
    }
}
