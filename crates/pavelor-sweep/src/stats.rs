//! What a sweep's samples say: per-length quartiles, the slope above
//! 4 KiB, cycles per byte at the published lengths, and the step at each
//! block boundary beside the cost of one Paff.

use serde::{Deserialize, Serialize};

use super::plan::{COLUMNS, DENSE_TO, STEP_WINDOW};

/// The first quartile, the median and the third quartile of some samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quartiles {
    /// First quartile.
    pub q1: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub q3: f64,
}

impl Quartiles {
    /// Quartiles of `samples` by linear interpolation between order
    /// statistics (the sample at rank `p·(n − 1)`, as R's type 7 and
    /// NumPy's default); `None` for no samples.
    pub fn of(samples: &[u64]) -> Option<Quartiles> {
        let mut v: Vec<f64> = samples.iter().map(|&s| s as f64).collect();
        v.sort_by(f64::total_cmp);
        Some(Quartiles {
            q1: quantile(&v, 0.25)?,
            median: quantile(&v, 0.5)?,
            q3: quantile(&v, 0.75)?,
        })
    }

    /// Each quartile divided by `by`.
    pub fn scaled(self, by: f64) -> Quartiles {
        Quartiles {
            q1: self.q1 / by,
            median: self.median / by,
            q3: self.q3 / by,
        }
    }
}

/// The `p` quantile of sorted values (type 7).
fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let h = p * last as f64;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(last);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// The least-squares line through the medians of the lengths above
/// 4096 bytes: counter units per byte of a long message.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LongSlope {
    /// Counter units per byte (the slope).
    pub per_byte: f64,
    /// Counter units at length 0 (the intercept).
    pub intercept: f64,
    /// Lengths fitted.
    pub points: usize,
    /// The shortest and longest length fitted.
    pub from: usize,
    /// See `from`.
    pub to: usize,
}

/// Ordinary least squares over `(length, median)` for lengths above
/// [`DENSE_TO`]; `None` with fewer than two such lengths.
pub fn long_slope(medians: &[(usize, f64)]) -> Option<LongSlope> {
    let pts: Vec<(f64, f64)> = medians
        .iter()
        .filter(|(n, _)| *n > DENSE_TO)
        .map(|&(n, m)| (n as f64, m))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let per_byte = sxy / sxx;
    let lengths = medians.iter().map(|m| m.0).filter(|&n| n > DENSE_TO);
    Some(LongSlope {
        per_byte,
        intercept: my - per_byte * mx,
        points: pts.len(),
        from: lengths.clone().min().unwrap_or(0),
        to: lengths.max().unwrap_or(0),
    })
}

/// The cost of crossing one block boundary, measured.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The boundary: a message of this many bytes takes one more Paff than
    /// one a byte shorter (its padding needs a block of its own).
    pub boundary: usize,
    /// The median of the medians of the lengths just below it.
    pub below: f64,
    /// The median of the medians of the lengths from it up.
    pub above: f64,
}

impl Step {
    /// `above − below`.
    pub fn height(&self) -> f64 {
        self.above - self.below
    }
}

/// The step at every multiple of `rate` from `rate` to 4096 whose
/// [`STEP_WINDOW`] lengths on both sides were all measured.
pub fn steps(medians: &[(usize, f64)], rate: usize) -> Vec<Step> {
    let at = |n: usize| medians.iter().find(|m| m.0 == n).map(|m| m.1);
    let window = |from: usize| -> Option<f64> {
        let mut v: Vec<f64> = (from..from + STEP_WINDOW)
            .map(at)
            .collect::<Option<Vec<f64>>>()?;
        v.sort_by(f64::total_cmp);
        quantile(&v, 0.5)
    };
    (1..)
        .map(|k| k * rate.max(1))
        .take_while(|&b| b + STEP_WINDOW - 1 <= DENSE_TO)
        .filter_map(|b| {
            Some(Step {
                boundary: b,
                below: window(b - STEP_WINDOW)?,
                above: window(b)?,
            })
        })
        .collect()
}

/// Counter units per byte at each published length ([`COLUMNS`]) that was
/// measured: (length, quartiles of its samples divided by the length).
pub fn columns(quartiles: &[(usize, Quartiles)]) -> Vec<(usize, Quartiles)> {
    COLUMNS
        .iter()
        .filter_map(|&c| {
            quartiles
                .iter()
                .find(|q| q.0 == c)
                .map(|q| (c, q.1.scaled(c as f64)))
        })
        .collect()
}

/// A figure with three significant digits (at least one decimal below
/// 100), as the tables show it.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// `median (Q1–Q3)`.
pub fn quartiles_text(q: &Quartiles) -> String {
    format!("{} ({}–{})", number(q.median), number(q.q1), number(q.q3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_interpolate() {
        let q = Quartiles::of(&[5, 1, 4, 2, 3]).expect("samples");
        assert_eq!((q.q1, q.median, q.q3), (2.0, 3.0, 4.0));
        let q = Quartiles::of(&[10, 20, 30, 40]).expect("samples");
        // Ranks 0.75, 1.5, 2.25.
        assert_eq!((q.q1, q.median, q.q3), (17.5, 25.0, 32.5));
        assert_eq!(Quartiles::of(&[]), None);
        assert_eq!(Quartiles::of(&[7]).map(|q| q.median), Some(7.0));
    }

    /// A staircase like Pavelor's: `fixed + paff · (n / rate + 1)`.
    fn staircase(
        rate: usize,
        paff: f64,
        lengths: impl Iterator<Item = usize>,
    ) -> Vec<(usize, f64)> {
        lengths
            .map(|n| (n, 100.0 + paff * (n / rate + 1) as f64))
            .collect()
    }

    #[test]
    fn steps_are_the_paff_of_a_staircase() {
        let m = staircase(192, 150.0, 0..=4096);
        let s = steps(&m, 192);
        assert_eq!(s.len(), 4096 / 192);
        assert!(s.iter().all(|s| s.height() == 150.0), "{s:?}");
        assert_eq!(s[0].boundary, 192);
        // A length missing from a window: no step there.
        let sparse: Vec<(usize, f64)> = m.iter().copied().filter(|p| p.0 != 190).collect();
        assert_eq!(steps(&sparse, 192).len(), 4096 / 192 - 1);
    }

    #[test]
    fn the_long_slope_is_the_paff_per_byte() {
        let lengths = (1..=60).map(|k| 4096 + 1008 * k).chain([65536]);
        let m = staircase(192, 192.0, lengths.chain(0..=4096));
        let s = long_slope(&m).expect("long lengths");
        assert!((s.per_byte - 1.0).abs() < 0.01, "{s:?}");
        assert_eq!((s.points, s.from, s.to), (61, 5104, 65536));
        assert_eq!(long_slope(&m[..1]), None);
    }

    #[test]
    fn columns_divide_by_the_length() {
        let q = |v: f64| Quartiles {
            q1: v,
            median: v,
            q3: v,
        };
        let c = columns(&[(8, q(80.0)), (64, q(128.0)), (100, q(1.0))]);
        assert_eq!(c, vec![(64, q(2.0)), (8, q(10.0))]);
    }
}
