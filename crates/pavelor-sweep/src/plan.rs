//! Which lengths a sweep measures, and how many samples each gets.

use serde::{Deserialize, Serialize};

/// The longest length of the dense part: every length from 0 to this.
pub const DENSE_TO: usize = 4096;
/// The step of the sparse part above [`DENSE_TO`] (eBASH's).
pub const LONG_STEP: usize = 1008;
/// The longest length measured.
pub const LONGEST: usize = 65536;
/// The lengths eBASH publishes cycles per byte at (besides "long").
pub const COLUMNS: [usize; 5] = [4096, 1536, 576, 64, 8];

/// The lengths and sampling of one sweep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepPlan {
    /// The lengths, ascending, each once.
    pub lengths: Vec<usize>,
    /// Passes over all lengths.
    pub passes: usize,
    /// Back-to-back samples of each length in each pass.
    pub per_pass: usize,
    /// The seed of the random messages.
    pub seed: u64,
}

impl SweepPlan {
    /// Every length 0–4096, then 4096 + k·1008 up to 65536 (and 65536
    /// itself): eBASH's lengths.
    pub fn full(seed: u64) -> SweepPlan {
        let mut lengths: Vec<usize> = (0..=DENSE_TO).collect();
        lengths.extend(long_lengths());
        SweepPlan {
            lengths,
            passes: 3,
            per_pass: 5,
            seed,
        }
    }

    /// A sparse subset for a quick look at instances of the given rates:
    /// every block boundary up to 4096 of each rate with the four lengths
    /// on either side, the published columns and their neighbours, and the
    /// long lengths.
    pub fn quick(rates: &[usize], seed: u64) -> SweepPlan {
        let mut lengths: Vec<usize> = Vec::new();
        for &r in rates.iter().filter(|&&r| r > 0) {
            let mut b = 0;
            while b <= DENSE_TO {
                let lo = b.saturating_sub(STEP_WINDOW);
                let hi = (b + STEP_WINDOW - 1).min(DENSE_TO);
                lengths.extend(lo..=hi);
                b += r;
            }
        }
        for c in COLUMNS {
            lengths.extend(c.saturating_sub(1)..=(c + 1).min(DENSE_TO));
        }
        lengths.extend(long_lengths());
        lengths.sort_unstable();
        lengths.dedup();
        SweepPlan {
            lengths,
            passes: 3,
            per_pass: 3,
            seed,
        }
    }

    /// Samples per length.
    pub fn samples(&self) -> usize {
        self.passes * self.per_pass
    }
}

/// Lengths on each side of a block boundary whose medians give its step:
/// `b − 4 … b − 1` below, `b … b + 3` above.
pub const STEP_WINDOW: usize = 4;

/// 4096 + k·1008 for k ≥ 1 up to 65536, and 65536.
fn long_lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (1..)
        .map(|k| DENSE_TO + k * LONG_STEP)
        .take_while(|&n| n <= LONGEST)
        .collect();
    if v.last() != Some(&LONGEST) {
        v.push(LONGEST);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_plan_has_ebash_lengths() {
        let p = SweepPlan::full(7);
        assert_eq!(&p.lengths[..3], &[0, 1, 2]);
        assert!(p.lengths.contains(&4096));
        assert!(p.lengths.contains(&5104));
        assert!(!p.lengths.contains(&4097));
        assert_eq!(p.lengths.last(), Some(&65536));
        // 4097 dense lengths, 60 steps of 1008 (4096 + 60·1008 = 64576),
        // and 65536.
        assert_eq!(p.lengths.len(), 4097 + 60 + 1);
        assert!(p.lengths.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(p.samples(), 15);
    }

    #[test]
    fn the_quick_plan_keeps_every_boundary_and_its_neighbours() {
        let p = SweepPlan::quick(&[192, 64], 7);
        for b in (192..=4096).step_by(192).chain((64..=4096).step_by(64)) {
            for n in b - STEP_WINDOW..(b + STEP_WINDOW).min(4097) {
                assert!(p.lengths.contains(&n), "{n} near {b}");
            }
        }
        for c in COLUMNS {
            assert!(p.lengths.contains(&c));
        }
        assert!(p.lengths.contains(&65536));
        assert!(p.lengths.len() < SweepPlan::full(7).lengths.len() / 2);
        assert!(p.lengths.windows(2).all(|w| w[0] < w[1]));
    }
}
