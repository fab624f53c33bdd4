//! The self-check of a `pavelor bench` run: its first figure measured
//! again at the end, by the same rule ([`super::timing`]), on a copy of the
//! message that ends at a page boundary before a page nothing has touched
//! ([`pavelor_measure::page_end`]).
//!
//! Two things make the two figures differ: the machine changed during the
//! run (its clock, or another process taking the CPU), or the code's speed
//! depends on where its message lies. Either way the figures of the run's
//! rows are not comparable with each other as they stand, and the run says
//! so.
//!
//! The check compares two quantities: the figure in the run's counter
//! (its per-byte column) and wall time (its MB/s column). They are one
//! quantity when the counter is the TSC. With a per-thread cycle counter
//! they are not: cycles do not advance while another process has the CPU,
//! and wall time does, so only the wall-time comparison sees that.
//!
//! The run's own noise is the spread of the first figure's [`BLOCKS`]
//! blocks, taken when the run began: the ratio `R` of the second figure to
//! the first gets the 95% interval it would have were the second as steady
//! as the first, `R · exp(± t · c · √(2 / BLOCKS))`, with `c` the first
//! figure's coefficient of variation over its blocks and `t` Student's
//! 97.5% quantile with `BLOCKS − 1` degrees of freedom. (The second
//! measurement's own spread is not used: a process that takes the CPU
//! during it widens that spread, and would hide the very change the check
//! looks for.) The blocks of one figure follow each other in time, so they
//! share whatever drifts slowly, and the interval is narrower than one from
//! independent trials. Hence a floor: the figures disagree when the
//! interval leaves out 1 **and** they differ by more than [`DRIFT_FLOOR`].
//!
//! [`BLOCKS`]: super::timing::BLOCKS

use serde::Serialize;

use pavelor_niccs::stats::interval::{mean_and_variance, t_quantile};

/// The least relative difference called drift (5%).
pub const DRIFT_FLOOR: f64 = 0.05;

/// Where the message of the second measurement lay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Placement {
    /// Ending at a page boundary, before a page nothing has touched.
    PageEnd,
    /// On the heap, as the first: the page-end mapping failed.
    Heap {
        /// Why.
        why: String,
    },
}

impl Placement {
    /// A phrase for the text output.
    pub fn describe(&self) -> String {
        match self {
            Placement::PageEnd => {
                "on a copy of its message ending at a page boundary, before an untouched page"
                    .into()
            }
            Placement::Heap { why } => {
                format!("on a copy of its message on the heap (no page-end copy: {why})")
            }
        }
    }
}

/// What the self-check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Within the run's noise, or within [`DRIFT_FLOOR`].
    Agrees,
    /// Outside both: the run's figures are not comparable as they stand.
    Drift,
    /// No interval could be formed: a block's figure was not a positive
    /// number, or a figure had fewer than two blocks.
    NotChecked,
}

/// One quantity of the first figure and of its second measurement.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Agreement {
    /// The first figure per byte (the mean of its blocks, which have equal
    /// calls: the row's figure).
    pub first: f64,
    /// The second measurement per byte (the mean of its blocks).
    pub again: f64,
    /// `again / first`.
    pub ratio: f64,
    /// The ratio's 95% interval at the first figure's noise, if the blocks
    /// allowed one.
    pub interval: Option<[f64; 2]>,
    /// What it says.
    pub verdict: Verdict,
}

impl Agreement {
    /// Compares the blocks of the first figure with those of the second
    /// (per byte, each block).
    pub fn of(first: &[f64], again: &[f64]) -> Agreement {
        let positive = |xs: &[f64]| xs.len() >= 2 && xs.iter().all(|x| x.is_finite() && *x > 0.0);
        let (first_mean, first_var) = mean_and_variance(first);
        let (again_mean, _) = mean_and_variance(again);
        let ratio = again_mean / first_mean;
        let (interval, verdict) = if positive(first) && positive(again) {
            let cv = first_var.sqrt() / first_mean;
            let half = t_quantile((first.len() - 1) as f64)
                * cv
                * (1.0 / first.len() as f64 + 1.0 / again.len() as f64).sqrt();
            let (low, high) = (ratio * (-half).exp(), ratio * half.exp());
            let outside_noise = low > 1.0 || high < 1.0;
            let beyond_floor = !(1.0 / (1.0 + DRIFT_FLOOR)..=1.0 + DRIFT_FLOOR).contains(&ratio);
            let verdict = if outside_noise && beyond_floor {
                Verdict::Drift
            } else {
                Verdict::Agrees
            };
            (Some([low, high]), verdict)
        } else {
            (None, Verdict::NotChecked)
        };
        Agreement {
            first: first_mean,
            again: again_mean,
            ratio,
            interval,
            verdict,
        }
    }

    fn describe(&self) -> String {
        let interval = self.interval.map_or(String::new(), |[lo, hi]| {
            format!(", 95% interval {lo:.3}–{hi:.3}")
        });
        format!("ratio {:.3}{interval}", self.ratio)
    }
}

/// The first figure and the same figure measured at the end.
#[derive(Clone, Debug, Serialize)]
pub struct SelfCheck {
    /// The first figure's name.
    pub name: String,
    /// Its message length in bytes.
    pub size: usize,
    /// Where the second measurement's message lay.
    pub placement: Placement,
    /// The figure in the run's counter, units per byte.
    pub counter: Agreement,
    /// Wall time, nanoseconds per byte.
    pub wall: Agreement,
    /// Drift if either quantity drifted; not checked if either could not
    /// be; else agrees.
    pub verdict: Verdict,
}

impl SelfCheck {
    /// Compares the first figure's blocks with the second measurement's:
    /// counter units per byte and nanoseconds per byte, each block.
    pub fn new(
        name: String,
        size: usize,
        placement: Placement,
        counter: (&[f64], &[f64]),
        wall: (&[f64], &[f64]),
    ) -> SelfCheck {
        let counter = Agreement::of(counter.0, counter.1);
        let wall = Agreement::of(wall.0, wall.1);
        let verdict = match (counter.verdict, wall.verdict) {
            (Verdict::Drift, _) | (_, Verdict::Drift) => Verdict::Drift,
            (Verdict::NotChecked, _) | (_, Verdict::NotChecked) => Verdict::NotChecked,
            _ => Verdict::Agrees,
        };
        SelfCheck {
            name,
            size,
            placement,
            counter,
            wall,
            verdict,
        }
    }

    /// One line for the text output.
    pub fn line(&self, unit: &str) -> String {
        let which = match (self.counter.verdict, self.wall.verdict) {
            (Verdict::Drift, Verdict::Drift) => "in the counter and in wall time",
            (Verdict::Drift, _) => "in the counter",
            _ => "in wall time",
        };
        let finding = match self.verdict {
            Verdict::Agrees => "agrees with the first".to_string(),
            Verdict::Drift => format!(
                "DRIFT {which}: more than the run's noise and more than {:.0}% apart; the rows of this run are not comparable as they stand (another process took the CPU, the clock changed, or the code's speed depends on where its message lies)",
                100.0 * DRIFT_FLOOR
            ),
            Verdict::NotChecked => {
                "NOT CHECKED: a block's figure was not a positive number".to_string()
            }
        };
        format!(
            "self-check: {} at {} B, measured again at the end {}: {:.3} then {:.3} {unit}/B ({}), wall time {}: {finding}",
            self.name,
            self.size,
            self.placement.describe(),
            self.counter.first,
            self.counter.again,
            self.counter.describe(),
            self.wall.describe(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(first: &[f64], again: &[f64]) -> Agreement {
        Agreement::of(first, again)
    }

    #[test]
    fn equal_figures_agree() {
        let a = [1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.00];
        assert_eq!(check(&a, &a).verdict, Verdict::Agrees);
    }

    #[test]
    fn a_slower_second_figure_beyond_noise_and_floor_is_drift() {
        let a = [1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.00];
        let b: Vec<f64> = a.iter().map(|x| x * 1.4).collect();
        let c = check(&a, &b);
        assert_eq!(c.verdict, Verdict::Drift);
        assert!((c.ratio - 1.4).abs() < 1e-9);
        // And the other way round: a first figure that was the slow one.
        assert_eq!(check(&b, &a).verdict, Verdict::Drift);
    }

    #[test]
    fn a_small_but_clear_difference_is_under_the_floor() {
        // 3% apart with almost no spread: outside the noise, under 5%.
        let a = [1.000, 1.001, 0.999, 1.000, 1.001, 0.999, 1.000, 1.000];
        let b: Vec<f64> = a.iter().map(|x| x * 1.03).collect();
        let c = check(&a, &b);
        let [lo, _] = c.interval.unwrap_or([0.0, 0.0]);
        assert!(lo > 1.0, "the interval leaves out 1");
        assert_eq!(c.verdict, Verdict::Agrees);
    }

    #[test]
    fn a_large_difference_within_wide_noise_agrees() {
        // 10% apart, but the first figure's blocks range over a factor of 2.
        let a = [0.6, 1.4, 0.7, 1.3, 0.6, 1.4, 0.7, 1.3];
        let b: Vec<f64> = a.iter().map(|x| x * 1.1).collect();
        let c = check(&a, &b);
        assert!(c.ratio > 1.05);
        assert_eq!(c.verdict, Verdict::Agrees);
    }

    #[test]
    fn a_second_figure_made_noisy_by_the_change_is_still_drift() {
        // The second measurement shared the CPU: twice as slow on average,
        // its blocks anywhere from 1 to 3 times the first.
        let a = [1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.00];
        let b = [1.0, 3.0, 1.2, 2.8, 1.0, 3.0, 1.4, 2.6];
        let c = check(&a, &b);
        assert!((c.ratio - 2.0).abs() < 0.01);
        assert_eq!(c.verdict, Verdict::Drift);
    }

    #[test]
    fn the_interval_is_the_first_figures_noise_around_the_ratio() {
        // Blocks 0.9 and 1.1 alternating: mean 1, sd sqrt(8 * 0.01 / 7).
        let a = [0.9, 1.1, 0.9, 1.1, 0.9, 1.1, 0.9, 1.1];
        let b = [1.2; 8];
        let c = check(&a, &b);
        let half = t_quantile(7.0) * (0.08f64 / 7.0).sqrt() * 0.5;
        let [lo, hi] = c.interval.unwrap_or([0.0, 0.0]);
        assert!((lo - 1.2 * (-half).exp()).abs() < 1e-12, "{lo}");
        assert!((hi - 1.2 * half.exp()).abs() < 1e-12, "{hi}");
        // t(7) = 2.365, sd 0.1069: the interval is about 1.2 · e^(±0.1264).
        assert!((half - 0.1264).abs() < 1e-3, "{half}");
    }

    #[test]
    fn drift_in_wall_time_alone_is_drift() {
        // A per-thread cycle counter does not see another process: the
        // counter agrees, wall time doubles.
        let a = [1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.00];
        let b: Vec<f64> = a.iter().map(|x| x * 2.0).collect();
        let c = SelfCheck::new("x".into(), 32, Placement::PageEnd, (&a, &a), (&a, &b));
        assert_eq!(c.counter.verdict, Verdict::Agrees);
        assert_eq!(c.wall.verdict, Verdict::Drift);
        assert_eq!(c.verdict, Verdict::Drift);
        assert!(
            c.line("cycles").contains("DRIFT in wall time"),
            "{}",
            c.line("cycles")
        );
        let same = SelfCheck::new("x".into(), 32, Placement::PageEnd, (&a, &a), (&a, &a));
        assert_eq!(same.verdict, Verdict::Agrees);
    }

    #[test]
    fn a_block_of_no_counts_is_not_checked() {
        let a = [1.0, 1.0, 0.0, 1.0];
        assert_eq!(check(&a, &a).verdict, Verdict::NotChecked);
    }
}
