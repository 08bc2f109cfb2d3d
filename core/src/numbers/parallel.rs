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
