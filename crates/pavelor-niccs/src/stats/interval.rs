//! The 95% confidence intervals of the figures, from their trials: of a
//! ratio of two figures' means (for `pavelor compare`; docs/compare.md
//! says why this method), and of one figure's mean (for the report's
//! side-by-side section).
//!
//! Each trial is one fresh process, so the trials of a figure are
//! independent samples of its time per call; the two runs' trials are
//! independent of each other and may have different spreads and counts.
//! The ratio `R = mean(new) / mean(base)` is estimated on the log scale,
//! where a ratio is a difference: by the delta method the standard error
//! of `ln R` is `sqrt(a + b)` with `a = s_b² / (n_b · m_b²)` and
//! `b = s_n² / (n_n · m_n²)` (each side's squared coefficient of variation
//! over its count), and its degrees of freedom are Welch–Satterthwaite's,
//! `(a + b)² / (a² / (n_b − 1) + b² / (n_n − 1))`. The interval is
//! `R · exp(± t · se)`, `t` the 97.5% quantile of Student's t with those
//! degrees of freedom: it stays positive and is symmetric in the ratio's
//! log, so NEW/BASE and BASE/NEW give reciprocal intervals.
//!
//! Every value is first divided by its side's largest (`Scaled`), so the
//! sums, means and variances are of numbers in (0, 1] and cannot overflow
//! whatever the trials hold; only the ratio and its ends are multiplied
//! back, and a result that is not a positive normal number is no interval
//! ([`NoInterval::OutOfRange`]), never a NaN or an infinity.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The confidence level of every interval.
pub const CONFIDENCE: f64 = 0.95;

/// A ratio NEW/BASE with its interval: every field a positive finite
/// number (`df` may be infinite).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RatioInterval {
    /// `mean(new) / mean(base)`.
    pub ratio: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
    /// Welch–Satterthwaite degrees of freedom (infinite when neither side
    /// varies).
    pub df: f64,
}

/// Why there is no interval (or no ratio at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoInterval {
    /// A side has fewer than two trials (a ratio, but no spread).
    TooFewTrials,
    /// A side has no trial at all: no ratio either.
    NoTrials,
    /// A trial's value is zero or negative: no ratio either.
    NotPositive,
    /// A trial's value is not a finite number: no ratio either.
    NotFinite,
    /// The ratio or an end of its interval is beyond the range of a
    /// floating-point number (the two sides are more than about 10^307
    /// apart); its logarithm is still known ([`log10_ratio`]).
    OutOfRange,
}

impl NoInterval {
    /// The reason in words.
    pub fn text(self) -> &'static str {
        match self {
            NoInterval::TooFewTrials => "too few trials for an interval",
            NoInterval::NoTrials => "no interval: a side has no trials",
            NoInterval::NotPositive => "no interval: a trial's value is zero or negative",
            NoInterval::NotFinite => "no interval: a trial's value is not a finite number",
            NoInterval::OutOfRange => {
                "no interval: the ratio or its interval is beyond the range of a floating-point number"
            }
        }
    }

    /// Whether a ratio of the means exists despite the missing interval.
    pub fn has_ratio(self) -> bool {
        matches!(self, NoInterval::TooFewTrials | NoInterval::OutOfRange)
    }
}

/// Mean and sample variance (`n − 1` in the denominator), as plain sums:
/// for values far from the limits of a floating-point number.
pub fn mean_and_variance(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// One side's values, each divided by the largest: the mean and the
/// variance of the quotients (all in (0, 1], so nothing overflows), and
/// the scale they were divided by. The mean of the values is
/// `scale · mean`, their coefficient of variation `sqrt(var) / mean`.
#[derive(Clone, Copy, Debug)]
struct Scaled {
    scale: f64,
    mean: f64,
    var: f64,
    n: usize,
}

impl Scaled {
    /// `xs` scaled, after checking that each is a positive finite number.
    fn of(xs: &[f64]) -> Result<Scaled, NoInterval> {
        if xs.is_empty() {
            return Err(NoInterval::NoTrials);
        }
        if xs.iter().any(|x| !x.is_finite()) {
            return Err(NoInterval::NotFinite);
        }
        if xs.iter().any(|x| *x <= 0.0) {
            return Err(NoInterval::NotPositive);
        }
        let scale = xs.iter().copied().fold(0.0f64, f64::max);
        let n = xs.len();
        let mean = xs.iter().map(|x| x / scale).sum::<f64>() / n as f64;
        let var = if n < 2 {
            0.0
        } else {
            xs.iter()
                .map(|x| (x / scale - mean) * (x / scale - mean))
                .sum::<f64>()
                / (n - 1) as f64
        };
        Ok(Scaled {
            scale,
            mean,
            var,
            n,
        })
    }

    /// The squared coefficient of variation of the mean, `s² / (n · m²)`.
    fn cv2_of_mean(&self) -> f64 {
        self.var / (self.n as f64 * self.mean * self.mean)
    }
}

/// A positive normal number, or [`NoInterval::OutOfRange`].
fn in_range(x: f64) -> Result<f64, NoInterval> {
    if x.is_normal() && x > 0.0 {
        Ok(x)
    } else {
        Err(NoInterval::OutOfRange)
    }
}

/// The ratio of the scaled means: the quotient of the means (each in
/// [1/n, 1]) times the quotient of the scales; out of range when the
/// product is.
fn scaled_ratio(b: &Scaled, n: &Scaled) -> Result<f64, NoInterval> {
    in_range((n.mean / b.mean) * (n.scale / b.scale))
}

/// The mean of `xs`, computed without overflow; `None` when a value is
/// not a positive finite number or there is none.
pub fn mean(xs: &[f64]) -> Option<f64> {
    let s = Scaled::of(xs).ok()?;
    Some(s.scale * s.mean).filter(|m| m.is_finite())
}

/// The base-10 logarithm of `mean(new) / mean(base)`: finite for any two
/// non-empty sides of positive finite values, even when the ratio itself
/// is beyond the range of a floating-point number.
pub fn log10_ratio(base: &[f64], new: &[f64]) -> Result<f64, NoInterval> {
    let (b, n) = (Scaled::of(base)?, Scaled::of(new)?);
    Ok((n.mean / b.mean).log10() + (n.scale.log10() - b.scale.log10()))
}

/// `mean(new) / mean(base)` with one trial or more a side (no interval
/// needed): a positive normal number, or why there is none.
pub fn ratio_of_means(base: &[f64], new: &[f64]) -> Result<f64, NoInterval> {
    scaled_ratio(&Scaled::of(base)?, &Scaled::of(new)?)
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (the
/// normal's for infinite `df`; NaN for `df` not above 0).
pub fn t_quantile(df: f64) -> f64 {
    let p = 0.5 + CONFIDENCE / 2.0;
    // Beyond a million degrees of freedom t is the normal to 7 digits
    // (and statrs's t quantile search does not end for infinite df).
    if df.is_nan() {
        return f64::NAN;
    }
    if df > 1e6 {
        return Normal::standard().inverse_cdf(p);
    }
    StudentsT::new(0.0, 1.0, df)
        .map(|t| t.inverse_cdf(p))
        .unwrap_or(f64::NAN)
}

/// The mean of one figure's trials with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanInterval {
    /// The mean of the trials.
    pub mean: f64,
    /// Half the interval's width: it is `mean ± half`.
    pub half: f64,
}

impl MeanInterval {
    /// `half` as a fraction of `mean`.
    pub fn relative(&self) -> f64 {
        self.half / self.mean
    }
}

/// The mean of `xs` with its 95% interval, `mean ± t · s / sqrt(n)`, `t`
/// the 97.5% quantile of Student's t with `n − 1` degrees of freedom: the
/// trials are independent samples of the figure (one process each).
pub fn mean_interval(xs: &[f64]) -> Result<MeanInterval, NoInterval> {
    let s = Scaled::of(xs)?;
    if s.n < 2 {
        return Err(NoInterval::TooFewTrials);
    }
    let mean = s.scale * s.mean;
    let half = s.scale * (t_quantile((s.n - 1) as f64) * (s.var / s.n as f64).sqrt());
    if !(mean.is_normal() && half.is_finite() && half >= 0.0) {
        return Err(NoInterval::OutOfRange);
    }
    Ok(MeanInterval { mean, half })
}

/// The ratio of the mean of `new` to the mean of `base`, with its 95%
/// interval (the module's method). Values that are not positive finite
/// numbers, fewer than two trials a side, or a ratio or an end beyond the
/// range of a floating-point number give no interval, with the reason.
pub fn ratio_interval(base: &[f64], new: &[f64]) -> Result<RatioInterval, NoInterval> {
    let (b, n) = (Scaled::of(base)?, Scaled::of(new)?);
    let ratio = scaled_ratio(&b, &n)?;
    if b.n < 2 || n.n < 2 {
        return Err(NoInterval::TooFewTrials);
    }
    let (a, c) = (b.cv2_of_mean(), n.cv2_of_mean());
    let sum = a + c;
    if sum == 0.0 {
        return Ok(RatioInterval {
            ratio,
            low: ratio,
            high: ratio,
            df: f64::INFINITY,
        });
    }
    // (a + c)² / (a² / (n_b − 1) + c² / (n_n − 1)), with each term divided
    // by (a + c)² first: the shares are in [0, 1], so nothing underflows.
    let (sa, sc) = (a / sum, c / sum);
    let df = 1.0 / (sa * sa / (b.n - 1) as f64 + sc * sc / (n.n - 1) as f64);
    let half = t_quantile(df) * sum.sqrt();
    if !half.is_finite() {
        return Err(NoInterval::OutOfRange);
    }
    Ok(RatioInterval {
        ratio,
        low: in_range(ratio * (-half).exp())?,
        high: in_range(ratio * half.exp())?,
        df,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    #[test]
    fn a_mean_interval_is_the_textbook_one() {
        // 101, 99, 100, 102, 98: mean 100, s = sqrt(10 / 4) = 1.5811, the
        // t quantile for 4 degrees of freedom 2.7764 (printed tables), so
        // the half-width is 2.7764 · 1.5811 / sqrt(5) = 1.9632.
        let m = mean_interval(&[101.0, 99.0, 100.0, 102.0, 98.0]).expect("interval");
        assert!(close(m.mean, 100.0, 1e-12));
        assert!(close(m.half, 1.963_2, 1e-4), "{m:?}");
        assert!(close(m.relative(), 0.019_632, 1e-4));
        // No spread: a zero-width interval. One trial, or a zero: none.
        assert_eq!(mean_interval(&[7.0, 7.0, 7.0]).map(|m| m.half), Ok(0.0));
        assert_eq!(mean_interval(&[7.0]), Err(NoInterval::TooFewTrials));
        assert_eq!(mean_interval(&[7.0, 0.0]), Err(NoInterval::NotPositive));
    }

    #[test]
    fn quantiles_are_the_tables() {
        // Student's t, 97.5%: df 1, 4, 8, 30 from the printed tables; the
        // normal's 1.959964 in the limit.
        for (df, t) in [(1.0, 12.7062), (4.0, 2.7764), (8.0, 2.3060), (30.0, 2.0423)] {
            assert!(
                close(t_quantile(df), t, 1e-4),
                "df {df}: {}",
                t_quantile(df)
            );
        }
        assert!(close(t_quantile(f64::INFINITY), 1.959964, 1e-6));
    }

    #[test]
    fn equal_spreads_give_the_textbook_interval() {
        // Both sides: 5 trials, sample standard deviation 1% of the mean,
        // so a = b = 0.01² / 5 and the Welch degrees of freedom are
        // exactly 8: se = sqrt(2 · 0.0001 / 5) = 0.0063246, t = 2.3060.
        let base: Vec<f64> = [-2.0, -1.0, 0.0, 1.0, 2.0]
            .iter()
            .map(|d| 100.0 + d * 0.632_455_532)
            .collect();
        let new: Vec<f64> = base.iter().map(|x| 2.0 * x).collect();
        let (m, v) = mean_and_variance(&base);
        assert!(close(m, 100.0, 1e-12));
        assert!(close(v.sqrt(), 1.0, 1e-8));
        let r = ratio_interval(&base, &new).expect("interval");
        assert!(close(r.ratio, 2.0, 1e-12));
        assert!(close(r.df, 8.0, 1e-9), "{}", r.df);
        let half = 2.306_004 * (2.0f64 * 0.0001 / 5.0).sqrt();
        assert!(close(r.low, 2.0 * (-half).exp(), 1e-6), "{r:?}");
        assert!(close(r.high, 2.0 * half.exp(), 1e-6), "{r:?}");
    }

    #[test]
    fn the_interval_is_reciprocal_and_degenerate_cases_say_why() {
        let base = [10.0, 11.0, 10.5];
        let new = [12.0, 12.5, 11.0, 13.0];
        let f = ratio_interval(&base, &new).expect("interval");
        let b = ratio_interval(&new, &base).expect("interval");
        assert!(close(f.ratio * b.ratio, 1.0, 1e-12));
        assert!(close(f.low * b.high, 1.0, 1e-9) && close(f.high * b.low, 1.0, 1e-9));
        assert!(close(f.df, b.df, 1e-12));
        // The same trials on both sides: ratio 1, an interval around it.
        let same = ratio_interval(&base, &base).expect("interval");
        assert_eq!(same.ratio, 1.0);
        assert!(same.low < 1.0 && same.high > 1.0);
        // Identical trials: no spread, a point.
        let point = ratio_interval(&[5.0, 5.0], &[10.0, 10.0]).expect("interval");
        assert_eq!((point.low, point.high, point.ratio), (2.0, 2.0, 2.0));
        assert_eq!(ratio_interval(&[1.0], &new), Err(NoInterval::TooFewTrials));
        assert_eq!(
            ratio_interval(&[1.0, 0.0], &new),
            Err(NoInterval::NotPositive)
        );
        assert_eq!(
            ratio_interval(&[1.0, f64::NAN], &new),
            Err(NoInterval::NotFinite)
        );
    }

    /// Every field of an interval a positive finite number, in order.
    fn sound(r: &RatioInterval) -> bool {
        [r.low, r.ratio, r.high]
            .iter()
            .all(|x| x.is_normal() && *x > 0.0)
            && r.low <= r.ratio
            && r.ratio <= r.high
            && r.df > 0.0
    }

    #[test]
    fn huge_and_tiny_values_give_a_finite_correct_ratio() {
        // Near the largest double: the plain sums overflow (3 · 1e308),
        // the scaled ones do not.
        let huge = [1e308, 1.1e308, 0.9e308];
        let small = [1e300, 1.1e300, 0.9e300];
        let r = ratio_interval(&huge, &small).expect("interval");
        assert!(sound(&r), "{r:?}");
        assert!(close(r.ratio, 1e-8, 1e-12), "{r:?}");
        let back = ratio_interval(&small, &huge).expect("interval");
        assert!(close(back.ratio, 1e8, 1e-12) && close(back.low * r.high, 1.0, 1e-9));
        // Near the smallest normal double, and 1e-300 against 2e-300.
        let tiny = [1e-300, 1.2e-300, 0.8e-300];
        let twice: Vec<f64> = tiny.iter().map(|x| 2.0 * x).collect();
        let r = ratio_interval(&tiny, &twice).expect("interval");
        assert!(sound(&r) && close(r.ratio, 2.0, 1e-12), "{r:?}");
        // Subnormal values (k · 2^-1074, few significant bits): exact
        // multiples give the exact ratio.
        let sub = |k: u64| f64::from_bits(k);
        let r = ratio_interval(&[sub(1000), sub(1000)], &[sub(3000), sub(3000)]).expect("point");
        assert_eq!((r.low, r.ratio, r.high), (3.0, 3.0, 3.0));
        let r = ratio_interval(&[sub(1000), sub(1100)], &[sub(3000), sub(3300)]).expect("interval");
        assert!(sound(&r) && close(r.ratio, 3.0, 1e-12), "{r:?}");
        // The mean interval of values near the largest double.
        let m = mean_interval(&huge).expect("interval");
        assert!(close(m.mean, 1e308, 1e-12) && m.half.is_finite() && m.half > 0.0);
        assert!(close(mean(&huge).expect("mean"), 1e308, 1e-12));
    }

    #[test]
    fn a_ratio_beyond_the_doubles_is_no_interval_but_keeps_its_log() {
        // 1e300 against 1e-300: a ratio of 1e600.
        let (lo, hi) = ([1e-300, 1.1e-300], [1e300, 1.1e300]);
        assert_eq!(ratio_interval(&lo, &hi), Err(NoInterval::OutOfRange));
        assert_eq!(ratio_interval(&hi, &lo), Err(NoInterval::OutOfRange));
        assert_eq!(ratio_of_means(&lo, &hi), Err(NoInterval::OutOfRange));
        assert!(close(log10_ratio(&lo, &hi).expect("log"), 600.0, 1e-12));
        assert!(close(log10_ratio(&hi, &lo).expect("log"), -600.0, 1e-12));
        // One trial of 1e308 seconds among microseconds: a ratio of about
        // 2e313 one way, 5e-314 (subnormal) the other; both out of range.
        let base = [1e-6, 1.1e-6, 0.9e-6, 1e-6, 1e-6];
        let new = [1e-6, 1e-6, 1e308, 1e-6, 1e-6];
        assert_eq!(ratio_interval(&base, &new), Err(NoInterval::OutOfRange));
        assert_eq!(ratio_interval(&new, &base), Err(NoInterval::OutOfRange));
        let l = log10_ratio(&base, &new).expect("log");
        assert!(close(l, 313.0 + 2f64.log10(), 1e-9), "{l}");
        // An interval whose end would leave the doubles: none either.
        // (A ratio of 5e307 whose upper end is thousands of times more.)
        let wide = [1e306, 1e308];
        assert!(ratio_of_means(&[1.0, 1.0], &wide).is_ok());
        assert_eq!(
            ratio_interval(&[1.0, 1.0], &wide),
            Err(NoInterval::OutOfRange)
        );
    }

    #[test]
    fn zero_negative_and_non_finite_values_are_no_interval_with_a_reason() {
        let ok = [1.0, 1.1, 0.9];
        for (bad, why) in [
            (&[1.0, 0.0, 1.0][..], NoInterval::NotPositive),
            (&[1.0, -0.1, 1.0][..], NoInterval::NotPositive),
            (&[1.0, -0.0, 1.0][..], NoInterval::NotPositive),
            (&[1.0, f64::NAN, 1.0][..], NoInterval::NotFinite),
            (&[1.0, f64::INFINITY, 1.0][..], NoInterval::NotFinite),
            (&[1.0, f64::NEG_INFINITY, 1.0][..], NoInterval::NotFinite),
            (&[0.0][..], NoInterval::NotPositive),
            (&[][..], NoInterval::NoTrials),
        ] {
            for (b, n) in [(bad, &ok[..]), (&ok[..], bad)] {
                assert_eq!(ratio_interval(b, n), Err(why), "{b:?} {n:?}");
                assert_eq!(ratio_of_means(b, n), Err(why), "{b:?} {n:?}");
                assert_eq!(log10_ratio(b, n), Err(why), "{b:?} {n:?}");
                assert!(!why.has_ratio() && !why.text().is_empty());
            }
            assert_eq!(mean_interval(bad), Err(why));
            assert_eq!(mean(bad), None);
        }
        // One trial: a ratio, no interval, and the reason says so.
        assert_eq!(ratio_interval(&[2.0], &ok), Err(NoInterval::TooFewTrials));
        assert!(close(
            ratio_of_means(&[2.0], &ok).expect("ratio"),
            0.5,
            1e-12
        ));
        assert!(NoInterval::TooFewTrials.has_ratio());
        assert_eq!(
            NoInterval::TooFewTrials.text(),
            "too few trials for an interval"
        );
    }
}
