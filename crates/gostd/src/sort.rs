//! `sort`: stable sorting, small in the browser's wasm.
//!
//! Go's `sort.SliceStable(x, less)` sorts through indices and one comparison function; Rust's
//! `slice::sort_by` is instead compiled once per element type and per comparison closure,
//! about 5 KB of wasm each (the stable sort's merge, quicksort and small-sort networks).
//! Thirty-odd call sites made the sort the page's largest generic family (174 KB raw, issue
//! 29). In the wasm, [`stable_by`] therefore sorts a list of indices with one compiled sort
//! and a `dyn` comparison, then moves the elements into that order with swaps; natively
//! (the CLI, the tests) it is `slice::sort_by`. Both are stable: equal elements keep their
//! order, so the results are the same.

// Natively only the tests call the compact sort.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp` (as `slice::sort_by`); compact in the wasm (the module doc).
pub fn stable_by<T>(v: &mut [T], cmp: impl FnMut(&T, &T) -> Ordering) {
    #[cfg(target_arch = "wasm32")]
    compact_stable_by(v, cmp);
    #[cfg(not(target_arch = "wasm32"))]
    v.sort_by(cmp);
}

/// Sorts `v` stably by the key `key` gives (as `slice::sort_by_key`).
pub fn stable_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    stable_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably in its natural order (as `slice::sort`).
pub fn stable<T: Ord>(v: &mut [T]) {
    stable_by(v, T::cmp);
}

/// The wasm's stable sort: one sort of indices for every element type and comparison.
pub(crate) fn compact_stable_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let swaps = {
        let items: &[T] = v;
        let mut by_index = |i: usize, j: usize| match (items.get(i), items.get(j)) {
            (Some(a), Some(b)) => cmp(a, b),
            _ => Ordering::Equal,
        };
        swaps_into_order(&sorted_indices(items.len(), &mut by_index))
    };
    for (i, j) in swaps {
        v.swap(i, j);
    }
}

/// `0..len` sorted stably by `cmp` over indices (not generic: compiled once).
fn sorted_indices(len: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// The swaps that put the element at `order[k]` at position `k`, for every `k`, following
/// each cycle of the permutation once (`order` holds each index below its length once).
fn swaps_into_order(order: &[usize]) -> Vec<(usize, usize)> {
    let mut swaps = Vec::new();
    let mut placed = vec![false; order.len()];
    for start in 0..order.len() {
        if placed.get(start).copied().unwrap_or(true) {
            continue;
        }
        // Position `at` takes the element from `from`; after the swap, `from` holds the
        // cycle's first element, which the next position of the cycle may want.
        let mut at = start;
        loop {
            if let Some(p) = placed.get_mut(at) {
                *p = true;
            }
            let Some(&from) = order.get(at) else { break };
            if from == start || placed.get(from).copied().unwrap_or(true) {
                break;
            }
            swaps.push((at, from));
            at = from;
        }
    }
    swaps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compact sort orders as `slice::sort_by` does, keeping equal elements' order.
    #[test]
    fn compact_sort_equals_the_standard_stable_sort() {
        let cases: Vec<Vec<(u8, usize)>> = vec![
            vec![],
            vec![(1, 0)],
            vec![(2, 0), (1, 1)],
            vec![(3, 0), (1, 1), (2, 2), (1, 3), (3, 4), (0, 5)],
            (0..200).map(|i| (((i * 37) % 11) as u8, i)).collect(),
            (0..50).rev().map(|i| ((i % 3) as u8, i)).collect(),
        ];
        for case in cases {
            let mut want = case.clone();
            want.sort_by_key(|p| p.0);
            let mut got = case.clone();
            compact_stable_by(&mut got, |a, b| a.0.cmp(&b.0));
            assert_eq!(got, want, "{case:?}");
        }
    }

    /// Every permutation of four elements is applied exactly.
    #[test]
    fn swaps_apply_every_permutation() {
        let mut perms = vec![vec![]];
        for n in 0..4usize {
            perms = perms
                .into_iter()
                .flat_map(|p: Vec<usize>| {
                    (0..=n).map(move |at| {
                        let mut q = p.clone();
                        q.insert(at, n);
                        q
                    })
                })
                .collect();
        }
        for order in perms {
            let mut v: Vec<usize> = (0..order.len()).collect();
            for (i, j) in swaps_into_order(&order) {
                v.swap(i, j);
            }
            assert_eq!(v, order);
        }
    }

    #[test]
    fn by_key_and_natural_order() {
        let mut v = vec!["b", "a", "c", "a"];
        stable(&mut v);
        assert_eq!(v, ["a", "a", "b", "c"]);
        let mut w = vec![(2, 'x'), (1, 'y'), (2, 'z'), (1, 'w')];
        stable_by_key(&mut w, |p| p.0);
        assert_eq!(w, [(1, 'y'), (1, 'w'), (2, 'x'), (2, 'z')]);
    }
}
