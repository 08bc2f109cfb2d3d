//! Work spread over the cores, where the build allows: with the `parallel` feature (the CLI's
//! build) on rayon's thread pool, otherwise (the site's wasm, a plain library build) in order on
//! the calling thread. Callers give each piece of work its own output slot, so the result never
//! depends on how many threads ran or in which order they finished.

/// Calls `f(i, chunk)` for each `size`-long chunk of `out` (the last may be shorter), `i` being
/// the chunk's index. A `size` of 0 is taken as 1.
pub fn for_each_chunk<T, F>(out: &mut [T], size: usize, f: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync + Send,
{
    let size = size.max(1);
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        out.par_chunks_mut(size)
            .enumerate()
            .for_each(|(i, chunk)| f(i, chunk));
    }
    #[cfg(not(feature = "parallel"))]
    {
        for (i, chunk) in out.chunks_mut(size).enumerate() {
            f(i, chunk);
        }
    }
}

/// `f` applied to every item, results in the items' order.
pub fn map<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}

/// The share (0 to `count - 1`) of each place, for offers of `weights` (how long each takes):
/// the heaviest first, each to the share with the least weight so far (ties to the lower share;
/// equal weights in the order of their places). Every share works out the same deal, and no
/// share ends up heavier than the lightest by more than the heaviest single weight.
pub fn deal(weights: &[f64], count: usize) -> Vec<usize> {
    let count = count.max(1);
    let mut order: Vec<usize> = (0..weights.len()).collect();
    let weight = |i: usize| {
        weights
            .get(i)
            .copied()
            .filter(|w| w.is_finite())
            .unwrap_or(0.0)
    };
    order.sort_by(|&a, &b| weight(b).total_cmp(&weight(a)).then(a.cmp(&b)));
    let mut loads = vec![0.0_f64; count];
    let mut shares = vec![0; weights.len()];
    for place in order {
        let lightest = loads
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
            .map_or(0, |(k, _)| k);
        if let Some(load) = loads.get_mut(lightest) {
            *load += weight(place);
        }
        if let Some(share) = shares.get_mut(place) {
            *share = lightest;
        }
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_and_maps_keep_their_places() {
        let mut out = vec![0_usize; 10];
        for_each_chunk(&mut out, 3, |i, chunk| {
            for (j, slot) in chunk.iter_mut().enumerate() {
                *slot = i * 3 + j;
            }
        });
        assert_eq!(out, (0..10).collect::<Vec<_>>());
        assert_eq!(map(&[1, 2, 3], |x| x * 2), vec![2, 4, 6]);
        let mut none: Vec<u8> = Vec::new();
        for_each_chunk(&mut none, 0, |_, _| unreachable!());
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod deal_tests {
    use super::deal;
    use proptest::prelude::*;

    proptest! {
        /// Every place gets a share that exists, and the loads differ by no more than the
        /// heaviest weight (the greedy deal's bound).
        #[test]
        fn a_deal_is_a_partition_and_even(
            weights in proptest::collection::vec(0.0_f64..1e4, 0..200),
            count in 1_usize..9,
        ) {
            let shares = deal(&weights, count);
            prop_assert_eq!(shares.len(), weights.len());
            let mut loads = vec![0.0; count];
            for (w, &k) in weights.iter().zip(&shares) {
                prop_assert!(k < count);
                loads[k] += w;
            }
            let max = loads.iter().copied().fold(0.0, f64::max);
            let min = loads.iter().copied().fold(f64::INFINITY, f64::min);
            let heaviest = weights.iter().copied().fold(0.0, f64::max);
            prop_assert!(max - min <= heaviest + 1e-6, "{:?}", loads);
        }
    }

    #[test]
    fn odd_weights_and_counts_do_not_panic() {
        assert_eq!(deal(&[f64::NAN, f64::INFINITY, 1.0], 0), vec![0, 0, 0]);
        assert_eq!(deal(&[3.0, 2.0, 2.0], 2), vec![0, 1, 1]);
        assert!(deal(&[], 4).is_empty());
    }
}
