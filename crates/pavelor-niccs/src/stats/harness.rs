//! The figures the harness's `performance/campaign.py` derives from a
//! record's trials (means, medians, extremes, rates), bit for bit.

use crate::python::{int_ratio, py_median, py_sum};

/// Every figure the harness derives from a list of trials, computed the
/// way campaign.py does (Python 3.12+ arithmetic: compensated `sum`,
/// correctly rounded `int / int`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Derived {
    pub measurements: u128,
    pub seconds: f64,
    pub mean_seconds: Option<f64>,
    pub median_trial_seconds: Option<f64>,
    pub min_trial_seconds: Option<f64>,
    pub max_trial_seconds: Option<f64>,
    pub mean_cycles: Option<f64>,
    pub median_trial_cycles: Option<f64>,
    pub operations_per_second: Option<f64>,
    pub throughput_mb_per_second: Option<f64>,
}

/// The figures for trials given as (measurements, seconds, cycles);
/// `Err(i)` if trial `i` has no measurements (a division by zero in the
/// harness).
pub(crate) fn derive(trials: &[(u64, f64, u64)], input_bytes: u64) -> Result<Derived, usize> {
    if let Some(i) = trials.iter().position(|t| t.0 == 0) {
        return Err(i);
    }
    let n: u128 = trials.iter().map(|t| u128::from(t.0)).sum();
    let secs = py_sum(trials.iter().map(|t| t.1));
    // float / int: the int is converted to float first.
    let per_trial: Vec<f64> = trials.iter().map(|t| t.1 / t.0 as f64).collect();
    let cycles_ok = !trials.is_empty() && trials.iter().all(|t| t.2 > 0);
    let per_trial_cycles: Vec<f64> = if cycles_ok {
        trials
            .iter()
            .filter_map(|t| int_ratio(u128::from(t.2), u128::from(t.0)))
            .collect()
    } else {
        Vec::new()
    };
    let total_cycles: u128 = trials.iter().map(|t| u128::from(t.2)).sum();
    let n_f = n as f64;
    Ok(Derived {
        measurements: n,
        seconds: secs,
        mean_seconds: (n > 0).then(|| secs / n_f),
        median_trial_seconds: py_median(&per_trial),
        min_trial_seconds: per_trial.iter().copied().reduce(f64::min),
        max_trial_seconds: per_trial.iter().copied().reduce(f64::max),
        mean_cycles: if cycles_ok {
            int_ratio(total_cycles, n)
        } else {
            None
        },
        median_trial_cycles: py_median(&per_trial_cycles),
        operations_per_second: (secs != 0.0).then(|| n_f / secs),
        throughput_mb_per_second: (input_bytes != 0 && secs != 0.0)
            .then(|| bytes_times(u128::from(input_bytes), n) / secs / 1e6),
    })
}

/// `bytes * n` as a float: Python multiplies the integers exactly and
/// rounds once; beyond `u128` (no real record) the float product stands in.
pub(crate) fn bytes_times(bytes: u128, n: u128) -> f64 {
    bytes
        .checked_mul(n)
        .map_or_else(|| bytes as f64 * n as f64, |p| p as f64)
}
