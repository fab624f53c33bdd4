//! Two sweeps of one implementation compared (`pavelor compare`): at each
//! length both measured, the ratio NEW/BASE of the medians with an
//! interval from the samples; the lengths whose interval excludes 1, as
//! ranges; and the published columns with their intervals.
//!
//! The interval of a median is distribution-free: the order statistics
//! `x(k)` and `x(n+1−k)` of its `n` samples, with `k` the largest for
//! which the binomial probability of fewer than `k` samples below the
//! median, doubled, is at most 5% (for 15 samples, `x(4)`–`x(12)`: 96.5%).
//! The ratio's interval divides the ends of the two (NEW's low by BASE's
//! high, NEW's high by BASE's low): it covers the ratio at least as often
//! as both intervals cover their medians, so a length is named only when
//! the two sweeps differ beyond their scatter. The slope above 4 KiB gets
//! its interval by resampling: 400 times, each length's samples drawn
//! again with replacement (from the ICCS DRNG, seeded), its 2.5% and
//! 97.5% points.

use std::fmt::Write as _;

use serde::Serialize;

use pavelor_kat::drng::Drng;
use pavelor_pages::html::markdown_text;

use crate::plan::{COLUMNS, DENSE_TO};
use crate::record::SweepRecord;
use crate::stats;
use crate::stats::number;

/// A length is named as faster or slower only when its whole interval is
/// beyond this fraction either side of 1 (two runs of one build on one
/// machine differ by up to about 3% at a few lengths in 4158, each beyond
/// its interval: the samples of a pass are not independent).
pub const MATERIAL: f64 = 0.05;

/// At most this many ranges of lengths are listed; the rest are counted.
const LISTED: usize = 24;

/// An interval of a ratio NEW/BASE.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ratio {
    /// NEW's figure over BASE's.
    pub ratio: f64,
    /// The interval's low end.
    pub low: f64,
    /// Its high end.
    pub high: f64,
}

impl Ratio {
    /// `new / base` with the interval of the two figures' intervals.
    fn of(base: (f64, f64, f64), new: (f64, f64, f64)) -> Option<Ratio> {
        let r = Ratio {
            ratio: new.1 / base.1,
            low: new.0 / base.2,
            high: new.2 / base.0,
        };
        [r.ratio, r.low, r.high]
            .iter()
            .all(|v| v.is_finite() && *v > 0.0)
            .then_some(r)
    }

    /// "faster", "slower", or "no significant difference".
    pub fn verdict(&self) -> &'static str {
        if self.high < 1.0 {
            "faster"
        } else if self.low > 1.0 {
            "slower"
        } else {
            "no significant difference"
        }
    }
}

/// A published column of both sweeps.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Column {
    /// `long` or the length (`4096 B`).
    pub name: String,
    /// BASE's figure per byte.
    pub base: f64,
    /// NEW's.
    pub new: f64,
    /// NEW/BASE with its interval, if both have one.
    pub ratio: Option<Ratio>,
}

/// One implementation's two sweeps.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepPair {
    /// The subject's identifier.
    pub subject: String,
    /// The implementation in words.
    pub implementation: String,
    /// The instance.
    pub instance: String,
    /// Lengths both sweeps measured.
    pub lengths: usize,
    /// The lengths where NEW is faster beyond the intervals.
    pub faster: Vec<usize>,
    /// The lengths where NEW is slower beyond the intervals.
    pub slower: Vec<usize>,
    /// Lengths whose interval excludes 1 but not [`MATERIAL`]: a shift
    /// smaller than that, which two runs of one build on one machine show
    /// at some lengths.
    pub small: usize,
    /// The published columns.
    pub columns: Vec<Column>,
}

/// The smallest rank `k` (1-based) such that `x(k)`–`x(n+1−k)` covers the
/// median with at least 95% probability, or `None` for too few samples.
fn rank(n: usize) -> Option<usize> {
    // P(X < k) for X ~ Binomial(n, 1/2), accumulated exactly in f64.
    let mut below = 0.0f64;
    let mut term = 0.5f64.powi(n as i32);
    let mut best = None;
    for k in 1..=n / 2 {
        // Adds P(X = k − 1).
        below += term;
        term *= (n - (k - 1)) as f64 / k as f64;
        if 2.0 * below <= 0.05 {
            best = Some(k);
        } else {
            break;
        }
    }
    best
}

/// (low, median, high) of `samples`: the median and its distribution-free
/// interval.
fn median_interval(samples: &[u64]) -> Option<(f64, f64, f64)> {
    let mut v = samples.to_vec();
    v.sort_unstable();
    let k = rank(v.len())?;
    let q = stats::Quartiles::of(samples)?;
    Some((v[k - 1] as f64, q.median, v[v.len() - k] as f64))
}

/// The median samples of each length of `r`, by length.
fn by_length(r: &SweepRecord) -> impl Iterator<Item = (usize, &Vec<u64>)> {
    r.curve.plan.lengths.iter().copied().zip(&r.curve.samples)
}

/// The slope above 4 KiB of `r` and its resampled 95% interval.
fn slope_interval(r: &SweepRecord, seed: u64) -> Option<(f64, f64, f64)> {
    let long: Vec<(usize, &Vec<u64>)> = by_length(r).filter(|(n, _)| *n > DENSE_TO).collect();
    let medians: Vec<(usize, f64)> = long
        .iter()
        .filter_map(|(n, s)| Some((*n, stats::Quartiles::of(s)?.median)))
        .collect();
    let fit = stats::long_slope(&medians)?.per_byte;
    const ROUNDS: usize = 400;
    let draws: usize = long.iter().map(|(_, s)| s.len()).sum::<usize>() * ROUNDS;
    let bytes = Drng::new(&seed.to_le_bytes()).generate(32 * draws as u64);
    let mut words = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize);
    let mut slopes: Vec<f64> = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let mut again = Vec::with_capacity(long.len());
        for (n, s) in &long {
            let pick: Vec<u64> = (0..s.len())
                .map(|_| s[words.next().unwrap_or(0) % s.len()])
                .collect();
            again.push((*n, stats::Quartiles::of(&pick)?.median));
        }
        slopes.push(stats::long_slope(&again)?.per_byte);
    }
    slopes.sort_by(f64::total_cmp);
    let at = |p: f64| slopes[((ROUNDS - 1) as f64 * p).round() as usize];
    Some((at(0.025), fit, at(0.975)))
}

/// Compares BASE's sweep `b` with NEW's `n` of the same implementation.
pub fn pair(b: &SweepRecord, n: &SweepRecord) -> SweepPair {
    let new_at: std::collections::BTreeMap<usize, &Vec<u64>> = by_length(n).collect();
    let (mut faster, mut slower, mut lengths, mut small) = (Vec::new(), Vec::new(), 0, 0);
    let mut per_length = std::collections::BTreeMap::new();
    for (len, bs) in by_length(b) {
        let Some(ns) = new_at.get(&len) else {
            continue;
        };
        lengths += 1;
        let (Some(bi), Some(ni)) = (median_interval(bs), median_interval(ns)) else {
            continue;
        };
        per_length.insert(len, (bi, ni));
        match Ratio::of(bi, ni) {
            Some(r) if r.high < 1.0 - MATERIAL => faster.push(len),
            Some(r) if r.low > 1.0 + MATERIAL => slower.push(len),
            Some(r) if r.high < 1.0 || r.low > 1.0 => small += 1,
            _ => {}
        }
    }
    let mut columns = Vec::new();
    let (bl, nl) = (slope_interval(b, 1), slope_interval(n, 2));
    if let (Some(bl), Some(nl)) = (bl, nl) {
        columns.push(Column {
            name: "long".into(),
            base: bl.1,
            new: nl.1,
            ratio: Ratio::of(bl, nl),
        });
    }
    for c in COLUMNS {
        if let Some(&(bi, ni)) = per_length.get(&c) {
            let per = |x: (f64, f64, f64)| (x.0 / c as f64, x.1 / c as f64, x.2 / c as f64);
            columns.push(Column {
                name: format!("{c} B"),
                base: per(bi).1,
                new: per(ni).1,
                ratio: Ratio::of(bi, ni),
            });
        }
    }
    SweepPair {
        subject: b.subject.id().as_str().to_string(),
        implementation: b.implementation.clone(),
        instance: b.instance.clone(),
        lengths,
        faster,
        slower,
        small,
        columns,
    }
}

/// Ascending lengths as ranges: `193–200, 385, 4096`; past `LISTED` (24)
/// ranges, how many more.
pub fn ranges(lengths: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lengths.len() {
        let mut j = i;
        while j + 1 < lengths.len() && lengths[j + 1] == lengths[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            lengths[i].to_string()
        } else {
            format!("{}–{}", lengths[i], lengths[j])
        });
        i = j + 1;
    }
    if out.len() > LISTED {
        let more = out.len() - LISTED;
        out.truncate(LISTED);
        out.push(format!("and {more} more ranges"));
    }
    out.join(", ")
}

/// Pairs the sweeps of `base` and `new` by subject; returns the pairs and
/// the subjects of each side that the other did not sweep.
pub fn pair_all(
    base: &[SweepRecord],
    new: &[SweepRecord],
) -> (Vec<SweepPair>, Vec<String>, Vec<String>) {
    let pairs = base
        .iter()
        .filter_map(|b| {
            Some(pair(
                b,
                new.iter().find(|n| n.subject.id() == b.subject.id())?,
            ))
        })
        .collect();
    let only = |a: &[SweepRecord], other: &[SweepRecord]| {
        a.iter()
            .filter(|r| !other.iter().any(|o| o.subject.id() == r.subject.id()))
            .map(|r| r.subject.id().as_str().to_string())
            .collect()
    };
    (pairs, only(base, new), only(new, base))
}

/// The comparison's section for the sweeps' pairs, in `unit`.
pub fn markdown(s: &mut String, pairs: &[SweepPair], unit: &str) {
    let _ = writeln!(s, "## Every length (the eBASH sweep)\n");
    let _ = writeln!(
        s,
        "At each length both runs swept, the ratio NEW/BASE of the medians of single calls; a length is named when the interval of the ratio, from the two medians' distribution-free intervals (order statistics, at least 95% each), lies wholly beyond {:.0}% either side of 1 (two runs of one build on one machine differ by less than that at some lengths, beyond their intervals: those lengths are counted, not named). The columns are {unit} per byte, NEW/BASE with that interval (\"long\": the slope above 4 KiB, its interval from 400 resamplings of the samples).\n",
        MATERIAL * 100.0
    );
    for p in pairs {
        let _ = writeln!(
            s,
            "### {}, {}\n\n{} lengths compared: NEW faster at {}, slower at {}; {} more differ by less than {:.0}%.\n",
            markdown_text(&p.implementation),
            markdown_text(&p.instance),
            p.lengths,
            count_and_ranges(&p.faster),
            count_and_ranges(&p.slower),
            p.small,
            MATERIAL * 100.0
        );
        let _ = writeln!(
            s,
            "| column | BASE | NEW | NEW/BASE | interval | verdict |\n|---|---:|---:|---:|---:|---|"
        );
        for c in &p.columns {
            let (ratio, interval, verdict) =
                c.ratio
                    .map_or(("–".to_string(), "–".to_string(), "no interval"), |r| {
                        (
                            number(r.ratio),
                            format!("{} – {}", number(r.low), number(r.high)),
                            r.verdict(),
                        )
                    });
            let _ = writeln!(
                s,
                "| {} | {} | {} | {ratio} | {interval} | {verdict} |",
                c.name,
                number(c.base),
                number(c.new)
            );
        }
        let _ = writeln!(s);
    }
}

fn count_and_ranges(lengths: &[usize]) -> String {
    if lengths.is_empty() {
        "no length".into()
    } else {
        format!("{} lengths ({} B)", lengths.len(), ranges(lengths))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{SweepAnswer, SweepChecks};
    use crate::{Curve, SweepPlan};
    use pavelor::{Algorithm, Backend};
    use pavelor_measure::clock::CounterKind;
    use pavelor_measure::ops::{Operation, Subject};

    fn record(cost: impl Fn(usize, usize) -> u64) -> SweepRecord {
        let plan = SweepPlan::quick(&[192], 4);
        let curve = Curve {
            samples: plan
                .lengths
                .iter()
                .map(|&n| (0..plan.samples()).map(|i| cost(n, i)).collect())
                .collect(),
            plan,
            counter: CounterKind::Ticks,
            read_overhead: 30,
        };
        let subject = Subject::Op(Operation::Pavelor(Algorithm::Pavelor512, Backend::Portable));
        let answer = SweepAnswer {
            curve,
            checks: SweepChecks::default(),
            nonce: 0,
            pid: 0,
        };
        SweepRecord::new(subject, answer, 1.0).expect("a Pavelor subject")
    }

    #[test]
    fn ranks_are_the_binomial_ones() {
        assert_eq!(rank(15), Some(4));
        assert_eq!(rank(9), Some(2));
        assert_eq!(rank(5), None);
        assert_eq!(rank(6), Some(1));
    }

    #[test]
    fn ranges_join_neighbours() {
        assert_eq!(ranges(&[1, 2, 3, 7, 9, 10]), "1–3, 7, 9–10");
        assert_eq!(ranges(&[]), "");
    }

    #[test]
    fn a_slower_range_is_named_and_the_rest_is_not() {
        // Scatter of ±2 around 1000 + n; NEW is 20% dearer from 188 to 195.
        let base = record(|n, i| 1000 + n as u64 + (i % 5) as u64);
        let new = record(|n, i| {
            let v = 1000 + n as u64 + ((i + 2) % 5) as u64;
            if (188..=195).contains(&n) {
                v * 6 / 5
            } else {
                v
            }
        });
        let p = pair(&base, &new);
        assert_eq!(p.lengths, base.curve.plan.lengths.len());
        assert!(p.faster.is_empty(), "{:?}", p.faster);
        let measured: Vec<usize> = base
            .curve
            .plan
            .lengths
            .iter()
            .copied()
            .filter(|n| (188..=195).contains(n))
            .collect();
        assert_eq!(measured.len(), 8);
        assert_eq!(p.slower, measured);
        let long = &p.columns[0];
        assert_eq!(long.name, "long");
        let r = long.ratio.expect("an interval");
        assert!(r.low <= 1.0 && r.high >= 1.0, "{r:?}");
        let mut s = String::new();
        markdown(&mut s, &[p], "TSC ticks");
        assert!(s.contains("slower at 8 lengths (188–195 B)"), "{s}");
    }
}
