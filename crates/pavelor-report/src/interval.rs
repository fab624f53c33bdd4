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

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The confidence level of every interval.
pub const CONFIDENCE: f64 = 0.95;

/// A ratio NEW/BASE with its interval.
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

/// Why there is no interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoInterval {
    /// A side has fewer than two trials.
    TooFewTrials,
    /// A time that is not a positive finite number.
    NotPositive,
}

/// Mean and sample variance (`n − 1` in the denominator).
pub fn mean_and_variance(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (the
/// normal's for infinite `df`).
pub fn t_quantile(df: f64) -> f64 {
    let p = 0.5 + CONFIDENCE / 2.0;
    // Beyond a million degrees of freedom t is the normal to 7 digits
    // (and statrs's t quantile search does not end for infinite df).
    if !df.is_finite() || df > 1e6 {
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
    if xs.len() < 2 {
        return Err(NoInterval::TooFewTrials);
    }
    if xs.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
        return Err(NoInterval::NotPositive);
    }
    let (mean, var) = mean_and_variance(xs);
    let n = xs.len() as f64;
    Ok(MeanInterval {
        mean,
        half: t_quantile(n - 1.0) * (var / n).sqrt(),
    })
}

/// The ratio of the mean of `new` to the mean of `base`, with its 95%
/// interval (the module's method).
pub fn ratio_interval(base: &[f64], new: &[f64]) -> Result<RatioInterval, NoInterval> {
    if base.len() < 2 || new.len() < 2 {
        return Err(NoInterval::TooFewTrials);
    }
    if base.iter().chain(new).any(|x| !(x.is_finite() && *x > 0.0)) {
        return Err(NoInterval::NotPositive);
    }
    let (mb, vb) = mean_and_variance(base);
    let (mn, vn) = mean_and_variance(new);
    let a = vb / (base.len() as f64 * mb * mb);
    let b = vn / (new.len() as f64 * mn * mn);
    let ratio = mn / mb;
    let se = (a + b).sqrt();
    if se == 0.0 {
        return Ok(RatioInterval {
            ratio,
            low: ratio,
            high: ratio,
            df: f64::INFINITY,
        });
    }
    let df = (a + b).powi(2) / (a * a / (base.len() - 1) as f64 + b * b / (new.len() - 1) as f64);
    let half = t_quantile(df) * se;
    Ok(RatioInterval {
        ratio,
        low: ratio * (-half).exp(),
        high: ratio * half.exp(),
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
            Err(NoInterval::NotPositive)
        );
    }
}
