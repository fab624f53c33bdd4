//! The figures of a [`Measurement`]: means over all timed calls, medians
//! over the trials (Python's `statistics.median`, as the harness computes
//! them), throughput and memory, each derived by [`pavelor_niccs::stats`].

use pavelor_niccs::stats;

use super::Measurement;
use crate::clock::CounterKind;
use crate::protocol::TrialResult;

/// Mean cycles (or ticks) per call of one trial.
pub(super) fn cycles_per_call(t: &TrialResult) -> f64 {
    stats::per_call(t.cycles, t.calls)
}

/// The time of one trial's timed calls, seconds (of the calibration: `t1`).
pub(super) fn timed_seconds(t: &TrialResult) -> f64 {
    stats::seconds(t.ns)
}

impl Measurement {
    /// The counter the figures come from.
    pub fn counter(&self) -> CounterKind {
        self.trials.first().map_or(CounterKind::None, |t| t.counter)
    }

    /// Total timed calls.
    pub fn total_calls(&self) -> u64 {
        self.trials.iter().map(|t| t.calls).sum()
    }

    /// Mean cycles (or ticks) per call over all timed calls.
    pub fn mean_cycles(&self) -> f64 {
        stats::mean_per_call(
            self.trials.iter().map(|t| t.cycles as f64),
            self.total_calls(),
        )
    }

    /// Median over the trials of the AES-round throughput each trial
    /// process probed right after its timed calls (`None` unless every
    /// trial has one).
    pub fn trial_aes_per_round(&self) -> Option<f64> {
        let v: Vec<f64> = self
            .trials
            .iter()
            .map(|t| t.aes_per_round)
            .collect::<Option<_>>()?;
        stats::median(&v)
    }

    /// Mean cycles per message byte.
    pub fn cycles_per_byte(&self) -> f64 {
        stats::per_byte(self.mean_cycles(), self.size)
    }

    /// Median over the trials of each trial's mean cycles per call (0
    /// without trials).
    pub fn median_trial_mean_cycles(&self) -> f64 {
        let means: Vec<f64> = self.trials.iter().map(cycles_per_call).collect();
        stats::median_of_per_call(&means)
    }

    /// Mean nanoseconds per call.
    pub fn mean_ns(&self) -> f64 {
        stats::mean_per_call(self.trials.iter().map(|t| t.ns as f64), self.total_calls())
    }

    /// Throughput in MB/s (10^6 bytes per second).
    pub fn mb_per_s(&self) -> f64 {
        stats::mb_per_s(self.size, self.mean_ns())
    }

    /// Largest baseline RSS over the trials, KiB.
    pub fn baseline_rss_kib(&self) -> Option<u64> {
        self.trials.iter().filter_map(|t| t.baseline_rss_kib).max()
    }

    /// Largest peak RSS (VmHWM) over the trials, KiB.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        self.trials.iter().filter_map(|t| t.peak_rss_kib).max()
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{measurement, trial};

    #[test]
    fn bound_probe_is_the_median_of_the_trials_own_probes() {
        let m = |probes: &[Option<f64>]| measurement(probes.iter().map(|&p| trial(p)).collect());
        assert_eq!(
            m(&[Some(0.31), Some(0.29), Some(0.30)]).trial_aes_per_round(),
            Some(0.30)
        );
        // One trial without a probe: no per-trial bound (the report falls
        // back to the campaign's probe).
        assert_eq!(m(&[Some(0.31), None]).trial_aes_per_round(), None);
        assert_eq!(m(&[]).trial_aes_per_round(), None);
    }

    #[test]
    fn median_of_trial_means_odd_even_and_none() {
        let m = |per_call: &[u64]| {
            let trials = per_call
                .iter()
                .map(|&c| {
                    let mut t = trial(None);
                    t.cycles = c * t.calls;
                    t
                })
                .collect();
            measurement(trials).median_trial_mean_cycles()
        };
        assert_eq!(m(&[300, 100, 200]), 200.0);
        assert_eq!(m(&[400, 100, 200, 300]), 250.0);
        assert_eq!(m(&[]), 0.0);
    }
}
