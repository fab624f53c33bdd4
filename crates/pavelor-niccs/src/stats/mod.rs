//! Every figure derived from trials, in one place: per call, per byte,
//! MB/s, medians (Python's `statistics.median`), means and variances, and
//! the 95% intervals of a mean and of a ratio of means.
//!
//! * This module — the per-trial and per-figure quantities of a
//!   measurement (plain `f64` sums, as Pavelor's own records hold them).
//! * `harness` (crate-private) — the figures the harness's `performance/campaign.py`
//!   derives for a record (compensated sums, correctly rounded `int / int`).
//! * [`interval`] — mean and variance, Student's t quantile, the interval of
//!   a mean and Welch's interval of a ratio of means.
//!
//! The two kinds of sum differ in their last bits: [`mean_per_call`] adds
//! with a plain `f64` sum, `harness` with [`py_sum`](crate::python::py_sum);
//! each figure keeps the one its records were written with.

pub(crate) mod harness;
pub mod interval;

pub use crate::python::py_median as median;

/// Mean of one trial's `total` (cycles, ticks or nanoseconds) per call (a
/// trial without calls counts as one call).
pub fn per_call(total: u64, calls: u64) -> f64 {
    total as f64 / calls.max(1) as f64
}

/// Nanoseconds as seconds.
pub fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Mean seconds per call of one trial that took `ns` nanoseconds (a trial
/// without calls counts as one call).
pub fn seconds_per_call(ns: u64, calls: u64) -> f64 {
    seconds(ns) / calls.max(1) as f64
}

/// Σ `totals` / `calls` (at least one call), the sum a plain `f64` sum in
/// the order given.
pub fn mean_per_call(totals: impl Iterator<Item = f64>, calls: u64) -> f64 {
    totals.sum::<f64>() / calls.max(1) as f64
}

/// `per_call` per message byte (a message of 0 bytes counts as one byte).
pub fn per_byte(per_call: f64, size: usize) -> f64 {
    per_call / size.max(1) as f64
}

/// Throughput in MB/s (10^6 bytes per second) of `size`-byte calls taking
/// `ns_per_call` nanoseconds each (infinite when the time is 0).
pub fn mb_per_s(size: usize, ns_per_call: f64) -> f64 {
    size as f64 * 1e3 / ns_per_call.max(f64::MIN_POSITIVE)
}

/// The median of each trial's mean per call (0 without trials).
pub fn median_of_per_call(per_call: &[f64]) -> f64 {
    median(per_call).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_call_counts_no_calls_as_one() {
        assert_eq!(per_call(300, 3), 100.0);
        assert_eq!(per_call(300, 0), 300.0);
        assert_eq!(seconds_per_call(2_000_000_000, 4), 0.5);
    }

    #[test]
    fn mb_per_s_and_per_byte() {
        assert_eq!(mb_per_s(1000, 1000.0), 1000.0);
        assert!(mb_per_s(1000, 0.0).is_infinite());
        assert_eq!(per_byte(64.0, 16), 4.0);
        assert_eq!(per_byte(64.0, 0), 64.0);
    }

    #[test]
    fn median_of_per_call_odd_even_and_none() {
        assert_eq!(median_of_per_call(&[300.0, 100.0, 200.0]), 200.0);
        assert_eq!(median_of_per_call(&[400.0, 100.0, 200.0, 300.0]), 250.0);
        assert_eq!(median_of_per_call(&[]), 0.0);
    }
}
