//! Seeded random numbers for the Monte Carlo: a PCG stream plus portable transforms.
//!
//! The seed is an input of every plan, so the same scenario and seed give the same answer on
//! every run and every target. Transcendental functions come from `libm` (pure Rust), not the
//! platform's C library, so native and wasm32 produce bit-identical samples.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// How a [`Stream`] draws its exponentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Exponentials {
    /// Marsaglia and Tsang's ziggurat (see [`Ziggurat`]): one output of the stream and a table
    /// lookup nearly every time, a logarithm or an exponential about one draw in a hundred.
    #[default]
    Ziggurat,
    /// -ln(u) of one uniform: the Monte Carlo's sampler before issue 34, kept as the reference
    /// the ziggurat's laws are checked against (`core/tests/sampler.rs`).
    Inversion,
}

/// A seeded random stream.
pub struct Stream {
    pcg: Pcg64Mcg,
    exponentials: Exponentials,
    ziggurat: &'static Ziggurat,
}

impl Stream {
    fn of(seed: u64) -> Stream {
        Stream {
            pcg: Pcg64Mcg::seed_from_u64(seed),
            exponentials: Exponentials::Ziggurat,
            ziggurat: Ziggurat::get(),
        }
    }

    /// A stream for `seed`, separated from other streams of the same seed by `label`.
    pub fn new(seed: u64, label: &str) -> Stream {
        Stream::of(seed ^ fnv1a(label))
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
        Stream::of(key ^ z)
    }

    /// The same stream, drawing its exponentials by `method`.
    pub fn drawing(mut self, method: Exponentials) -> Stream {
        self.exponentials = method;
        self
    }

    /// Uniform in (0, 1]: never 0, so its logarithm is finite.
    pub fn uniform(&mut self) -> f64 {
        uniform_of(self.pcg.next_u64())
    }

    /// Uniform in [0, 1): 1 - [`Stream::uniform`], what a queue's quantile function reads.
    pub fn probability(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// Exponential with mean 1.
    #[inline]
    pub fn exponential(&mut self) -> f64 {
        match self.exponentials {
            Exponentials::Ziggurat => self.ziggurat.exponential(&mut self.pcg),
            Exponentials::Inversion => -libm::log(self.uniform()),
        }
    }

    /// Two independent standard normals (Box-Muller).
    pub fn normal_pair(&mut self) -> (f64, f64) {
        let radius = libm::sqrt(-2.0 * libm::log(self.uniform()));
        let angle = 2.0 * std::f64::consts::PI * self.uniform();
        (radius * libm::cos(angle), radius * libm::sin(angle))
    }
}

/// The uniform in (0, 1] of one 64-bit output: its top 53 bits, plus one, over 2^53.
fn uniform_of(bits: u64) -> f64 {
    ((bits >> 11) as f64 + 1.0) * (1.0 / (1u64 << 53) as f64)
}

/// Layers of the exponential ziggurat.
const LAYERS: usize = 256;

/// Where the base layer's tail begins, and each layer's area, for 256 layers under e^-x
/// (Marsaglia and Tsang, "The Ziggurat Method for Generating Random Variables", Journal of
/// Statistical Software 5(8), 2000, section 4).
const TAIL_START: f64 = 7.697_117_470_131_05;
const LAYER_AREA: f64 = 0.003_949_659_822_581_557;

/// The exponential ziggurat's table: the density e^-x covered by 256 layers of equal area, the
/// base one a rectangle plus the tail beyond [`TAIL_START`]. A draw picks a layer with the low 8
/// bits of one output and a point across it with the top 53; a point left of the next layer's
/// edge lies under the density and is the draw (all but about 1 % of draws). Otherwise the
/// wedge between the layer's rectangle and the density is tested with a second uniform, and the
/// base layer's overflow is the tail, `TAIL_START` plus an exponential by inversion (memoryless).
/// The method is exact: its draws follow e^-x, not an approximation of it.
pub struct Ziggurat {
    /// Layer i spans [0, x[i]) across; x[0] is the base layer's width (its area over the density
    /// at the tail's start), x[1] the tail's start, x[256] = 0.
    x: [f64; LAYERS + 1],
    /// e^-x[i]: the heights between which layer i lies (f[i] below, f[i + 1] above).
    f: [f64; LAYERS + 1],
}

static ZIGGURAT: std::sync::OnceLock<Ziggurat> = std::sync::OnceLock::new();

impl Ziggurat {
    /// The table, worked out once: x[i + 1] = -ln(e^-x[i] + area / x[i]) from x[1] = the
    /// tail's start, so that each layer above the base has the same area.
    pub fn get() -> &'static Ziggurat {
        ZIGGURAT.get_or_init(|| {
            let mut x = [0.0; LAYERS + 1];
            let mut f = [0.0; LAYERS + 1];
            let mut edge = TAIL_START;
            for (i, x) in x.iter_mut().enumerate() {
                *x = match i {
                    0 => LAYER_AREA / libm::exp(-TAIL_START),
                    1 => TAIL_START,
                    LAYERS => 0.0,
                    _ => {
                        edge = -libm::log(libm::exp(-edge) + LAYER_AREA / edge);
                        edge
                    }
                };
            }
            for (f, &x) in f.iter_mut().zip(&x) {
                *f = libm::exp(-x);
            }
            Ziggurat { x, f }
        })
    }

    /// An exponential draw with mean 1 from `pcg`: the common case here, inlined where it is
    /// drawn; the rest out of line.
    #[inline]
    fn exponential(&self, pcg: &mut Pcg64Mcg) -> f64 {
        let bits = pcg.next_u64();
        match self.inside(bits) {
            Ok(x) => x,
            Err(x) => self.beyond(pcg, bits, x),
        }
    }

    /// The point across the layer picked by `bits`: `Ok` where it lies under the density
    /// whatever the height (left of the next layer's edge), `Err` otherwise.
    #[inline]
    fn inside(&self, bits: u64) -> Result<f64, f64> {
        let layer = (bits & 0xff) as usize;
        let across = (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        let (Some(&width), Some(&edge)) = (self.x.get(layer), self.x.get(layer + 1)) else {
            return Err(f64::NAN);
        };
        let x = across * width;
        if x < edge { Ok(x) } else { Err(x) }
    }

    /// A draw whose first point `x` (from `bits`) fell outside: the tail for the base layer,
    /// else the wedge's test, and on a miss new draws until one is taken.
    #[cold]
    #[inline(never)]
    fn beyond(&self, pcg: &mut Pcg64Mcg, bits: u64, x: f64) -> f64 {
        let (mut bits, mut x) = (bits, x);
        loop {
            let layer = (bits & 0xff) as usize;
            if layer == 0 {
                return TAIL_START - libm::log(uniform_of(pcg.next_u64()));
            }
            if let (Some(&low), Some(&high)) = (self.f.get(layer), self.f.get(layer + 1)) {
                let height = low + (high - low) * uniform_of(pcg.next_u64());
                if height < libm::exp(-x) {
                    return x;
                }
            }
            bits = pcg.next_u64();
            match self.inside(bits) {
                Ok(x) => return x,
                Err(outside) => x = outside,
            }
        }
    }

    /// Layer i's edge and height, for checking the table.
    #[cfg(test)]
    fn layer(&self, i: usize) -> Option<(f64, f64)> {
        Some((*self.x.get(i)?, *self.f.get(i)?))
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

    /// Every layer above the base covers the same area, the base (rectangle plus tail) too,
    /// and the layers close at the top of the density.
    #[test]
    fn the_ziggurat_layers_have_equal_areas() {
        let z = Ziggurat::get();
        let (r, fr) = z.layer(1).unwrap();
        let (base, _) = z.layer(0).unwrap();
        // Rectangle to the tail's start, and the tail's own area e^-r.
        assert!((r * fr + fr - LAYER_AREA).abs() < 1e-15);
        assert!((base * fr - LAYER_AREA).abs() < 1e-15);
        for i in 1..LAYERS {
            let (x, low) = z.layer(i).unwrap();
            let (next, high) = z.layer(i + 1).unwrap();
            assert!(next < x, "layer {i} is not narrower above");
            // The top layer takes what the recurrence leaves; the others are exact.
            let tolerance = if i == LAYERS - 1 { 1e-9 } else { 1e-15 };
            assert!(
                (x * (high - low) - LAYER_AREA).abs() < tolerance,
                "layer {i}: area {}",
                x * (high - low)
            );
        }
        assert_eq!(z.layer(LAYERS), Some((0.0, 1.0)));
    }

    /// The ziggurat's draws against the exact law 1 - e^-x: the one-sample Kolmogorov-Smirnov
    /// distance of 200,000 draws stays under its critical value at 10^-6 (1.95 / sqrt(n) ~ 0.0044),
    /// and the tail beyond the table (about 1 draw in 2,200) is visited as often as it should be.
    #[test]
    fn ziggurat_draws_follow_the_exponential_law() {
        let n = 200_000;
        let mut s = Stream::new(9, "ziggurat");
        let mut draws: Vec<f64> = (0..n).map(|_| s.exponential()).collect();
        let (d, critical) = distance_to_the_law(&mut draws);
        assert!(d < critical, "KS distance {d}, critical {critical}");
        let tail = draws.iter().filter(|&&x| x > TAIL_START).count() as f64;
        let expected = n as f64 * libm::exp(-TAIL_START);
        assert!(
            (tail - expected).abs() < 5.0 * libm::sqrt(expected),
            "{tail} in the tail"
        );
        // Inversion is the same law by another road.
        let mut s = Stream::new(9, "ziggurat").drawing(Exponentials::Inversion);
        let mean = (0..n).map(|_| s.exponential()).sum::<f64>() / n as f64;
        assert!((mean - 1.0).abs() < 0.01);
    }

    /// The test above fails on a law slightly off: draws scaled by 3 %.
    #[test]
    fn the_law_check_can_fail() {
        let mut s = Stream::new(9, "ziggurat");
        let mut draws: Vec<f64> = (0..200_000).map(|_| 1.03 * s.exponential()).collect();
        let (d, critical) = distance_to_the_law(&mut draws);
        assert!(d > critical, "KS distance {d}, critical {critical}");
    }

    /// The one-sample Kolmogorov-Smirnov distance of `draws` (sorted here) to 1 - e^-x, and its
    /// critical value at 10^-6.
    fn distance_to_the_law(draws: &mut [f64]) -> (f64, f64) {
        draws.sort_by(f64::total_cmp);
        let n = draws.len() as f64;
        let d = draws
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let cdf = -libm::expm1(-x);
                (cdf - i as f64 / n).max((i + 1) as f64 / n - cdf)
            })
            .fold(0.0_f64, f64::max);
        (d, libm::sqrt(-libm::log(1e-6 / 2.0) / 2.0) / libm::sqrt(n))
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
