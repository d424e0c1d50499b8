//! `--shard K/N`: a deterministic share of the documents for one CI job of N. A document goes
//! to the shard its file name and document index hash to (FNV-1a, the same on every machine
//! and run), so the N jobs together check every document once, and their JUnit and SARIF
//! files merge without duplicates. A CRD is compiled wherever its objects go, and reported
//! (its own test case and findings) only in its own shard.

use crate::Error;

/// One shard of N (1-based `k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shard {
    /// Which one, 1..=n.
    pub k: u64,
    /// How many.
    pub n: u64,
}

impl Shard {
    /// Reads `K/N` (1 ≤ K ≤ N).
    pub(crate) fn parse(text: &str) -> Result<Shard, Error> {
        let bad = || {
            Error::Usage(format!(
                "--shard: expected K/N with 1 <= K <= N (such as 2/4), not {text:?}"
            ))
        };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// Whether document `document` of the file named `file` is in this shard.
    pub(crate) fn owns(&self, file: &str, document: usize) -> bool {
        owner(file, document, self.n) == self.k
    }
}

/// The shard (1..=n) a document belongs to.
pub(crate) fn owner(file: &str, document: usize, n: u64) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in file
        .as_bytes()
        .iter()
        .chain(&[0])
        .chain(document.to_string().as_bytes())
    {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash % n.max(1) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(Shard::parse("2/4").ok(), Some(Shard { k: 2, n: 4 }));
        for bad in ["0/4", "5/4", "1", "a/b", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_document_in_exactly_one_shard() {
        for n in 1..5 {
            for doc in 0..50 {
                let owners: Vec<u64> = (1..=n)
                    .filter(|&k| Shard { k, n }.owns("dir/file.yaml", doc))
                    .collect();
                assert_eq!(owners.len(), 1);
            }
        }
        // Stable across runs and machines.
        assert_eq!(owner("a.yaml", 0, 1000), owner("a.yaml", 0, 1000));
    }
}
