//! The figures campaign.py derives for a record: from its trials (means,
//! medians, extremes, rates) and from its processes (status, trials,
//! sizes, RSS), bit for bit.

use super::GUIDE_MIN_MEASUREMENTS;
use super::record::{Record, Trial};
use crate::error::Error;
use crate::json::OrderedMap;
pub(crate) use crate::stats::harness::{Derived, bytes_times, derive};

impl Record {
    /// Fills the derived statistics from `trials` as campaign.py does:
    /// `measurements` = Σ measurements, `guide_100_measurements_met`,
    /// `mean_seconds` = Σ seconds / Σ measurements, the median, minimum and
    /// maximum of the per-trial seconds per call, `mean_cycles` = Σ cycles /
    /// Σ measurements and the median per-trial cycles per call (both `None`
    /// unless every trial has cycles), operations per second, and MB/s
    /// (`None` for a size of 0). Empty or missing `trials`: the derived
    /// block is removed (`trials = None`), as the harness writes none.
    /// The fields taken from the processes' meta (`sizes`, `kex`,
    /// `build_flags`, RSS, `timing_scope`) are left as they are.
    pub fn derive_statistics(&mut self) -> Result<(), Error> {
        let trials: Vec<(u64, f64, u64)> = self
            .trials
            .iter()
            .flatten()
            .map(|t| (t.measurements, t.seconds, t.cycles))
            .collect();
        if trials.is_empty() {
            self.trials = None;
            self.measurements = None;
            self.guide_100_measurements_met = None;
            self.mean_seconds = None;
            self.median_trial_seconds = None;
            self.min_trial_seconds = None;
            self.max_trial_seconds = None;
            self.mean_cycles = None;
            self.median_trial_cycles = None;
            self.operations_per_second = None;
            self.throughput_mb_per_second = None;
            return Ok(());
        }
        let d = derive(&trials, self.input_bytes).map_err(|i| Error::Trials {
            record: self.name(),
            problem: format!("trial {i} has no measurements"),
        })?;
        let n = u64::try_from(d.measurements).map_err(|_| Error::Trials {
            record: self.name(),
            problem: "more than 2^64 measurements".to_string(),
        })?;
        self.measurements = Some(n);
        self.guide_100_measurements_met = Some(n >= GUIDE_MIN_MEASUREMENTS);
        self.mean_seconds = d.mean_seconds;
        self.median_trial_seconds = d.median_trial_seconds;
        self.min_trial_seconds = d.min_trial_seconds;
        self.max_trial_seconds = d.max_trial_seconds;
        self.mean_cycles = d.mean_cycles;
        self.median_trial_cycles = d.median_trial_cycles;
        self.operations_per_second = d.operations_per_second;
        self.throughput_mb_per_second = d.throughput_mb_per_second;
        Ok(())
    }

    /// Everything campaign.py derives from the processes, then
    /// [`derive_statistics`](Record::derive_statistics): `trials` (all
    /// processes' trials in order), `status` (`complete` when every process
    /// is complete and there are `plan.trials` trials, else
    /// `failed_or_partial`), `disturbed_retries` (Σ over the processes),
    /// and from the first process's meta: `sizes` (`*_bytes` keys with
    /// all-digit values, except the RSS ones), `kex` (`kex_*`),
    /// `build_flags`, `timing_scope`; `baseline_rss_bytes` and
    /// `peak_rss_bytes` are the largest over the processes that have meta.
    pub fn derive_from_processes(&mut self) -> Result<(), Error> {
        let trials: Vec<Trial> = self
            .processes
            .iter()
            .flat_map(|p| p.trials.iter().flatten().cloned())
            .collect();
        let ok = self.processes.iter().all(|p| p.status == "complete")
            && trials.len() as u64 == self.plan.trials;
        self.status = if ok { "complete" } else { "failed_or_partial" }.to_string();
        self.disturbed_retries = self
            .processes
            .iter()
            .map(|p| p.disturbed_retries.unwrap_or(0))
            .sum();
        if trials.is_empty() {
            self.trials = None;
            self.sizes = None;
            self.kex = None;
            self.build_flags = None;
            self.baseline_rss_bytes = None;
            self.peak_rss_bytes = None;
            self.timing_scope = None;
            return self.derive_statistics();
        }
        self.trials = Some(trials);
        let empty = OrderedMap::new();
        let meta = self
            .processes
            .first()
            .and_then(|p| p.meta.as_ref())
            .unwrap_or(&empty);
        let digits = |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
        let mut sizes = OrderedMap::new();
        let mut kex = OrderedMap::new();
        for (k, v) in meta.iter() {
            if k.ends_with("_bytes")
                && k != "baseline_rss_bytes"
                && k != "peak_rss_bytes"
                && digits(v)
            {
                sizes.insert(k.clone(), self.meta_int(k, v)?);
            }
            if k.starts_with("kex_") && digits(v) {
                kex.insert(k.clone(), self.meta_int(k, v)?);
            }
        }
        self.sizes = Some(sizes);
        self.kex = Some(kex);
        self.build_flags = meta.get("build_flags").cloned();
        self.timing_scope = meta.get("timing_scope").cloned();
        self.baseline_rss_bytes = self.max_meta("baseline_rss_bytes")?;
        self.peak_rss_bytes = self.max_meta("peak_rss_bytes")?;
        self.derive_statistics()
    }

    fn meta_int(&self, key: &str, value: &str) -> Result<u64, Error> {
        value.trim().parse::<u64>().map_err(|_| Error::Trials {
            record: self.name(),
            problem: format!("meta {key} = {value:?} is not a byte count"),
        })
    }

    /// `max(int(meta.get(key, 0)) for processes with a non-empty meta)`;
    /// `None` when no process has meta.
    fn max_meta(&self, key: &str) -> Result<Option<u64>, Error> {
        let mut best = None;
        for meta in self.processes.iter().filter_map(|p| p.meta.as_ref()) {
            if meta.is_empty() {
                continue;
            }
            let v = match meta.get(key) {
                Some(v) => self.meta_int(key, v)?,
                None => 0,
            };
            best = Some(best.map_or(v, |b: u64| b.max(v)));
        }
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{self, JsonObject};
    use crate::python::py_sum;
    use crate::schema::Process;

    fn trial(measurements: u64, seconds: f64, cycles: u64) -> Trial {
        Trial {
            measurements,
            seconds,
            cycles,
            extra: JsonObject::new(),
        }
    }

    #[test]
    fn derives_like_campaign_py() {
        let mut r = Record::new("hash-22", "Pavelor-512", "hash", 64);
        r.trials = Some(vec![
            trial(10, 0.002, 5_000_000),
            trial(10, 0.004, 9_000_000),
            trial(20, 0.005, 12_000_000),
        ]);
        r.derive_statistics().expect("derive");
        assert_eq!(r.measurements, Some(40));
        assert_eq!(r.guide_100_measurements_met, Some(false));
        assert_eq!(r.mean_seconds, Some(py_sum([0.002, 0.004, 0.005]) / 40.0));
        assert_eq!(r.median_trial_seconds, Some(0.005 / 20.0));
        assert_eq!(r.min_trial_seconds, Some(0.002 / 10.0));
        assert_eq!(r.max_trial_seconds, Some(0.004 / 10.0));
        assert_eq!(r.mean_cycles, Some(26_000_000.0 / 40.0));
        assert_eq!(r.median_trial_cycles, Some(600_000.0));
        let secs = py_sum([0.002, 0.004, 0.005]);
        assert_eq!(r.operations_per_second, Some(40.0 / secs));
        assert_eq!(r.throughput_mb_per_second, Some(2560.0 / secs / 1e6));
    }

    #[test]
    fn no_cycle_counter_gives_null_cycles() {
        let mut r = Record::new("hash-22", "Pavelor-512", "hash", 32);
        r.trials = Some(vec![trial(100, 0.5, 0), trial(100, 0.5, 7)]);
        r.derive_statistics().expect("derive");
        assert_eq!(r.mean_cycles, None);
        assert_eq!(r.median_trial_cycles, None);
        assert_eq!(r.guide_100_measurements_met, Some(true));
        let text = String::from_utf8(json::to_harness_json(&r).expect("write")).expect("utf8");
        assert!(text.contains("\"mean_cycles\": null"));
    }

    #[test]
    fn zero_measurements_is_an_error() {
        let mut r = Record::new("hash-22", "Pavelor-512", "hash", 32);
        r.trials = Some(vec![trial(0, 0.5, 1)]);
        let e = r.derive_statistics().expect_err("division by zero");
        assert_eq!(
            e.to_string(),
            "hash-22/Pavelor-512 hash_32: trial 0 has no measurements"
        );
    }

    #[test]
    fn from_processes() {
        let mut r = Record::new("hash-22", "Pavelor-512", "hash", 32);
        r.plan.trials = 2;
        let meta = |rss: &str| -> OrderedMap<String> {
            [
                ("input_bytes", "32"),
                ("baseline_rss_bytes", rss),
                ("digest_bytes", "64"),
                ("kex_passes", "x"),
                ("timing_scope", "loop"),
                ("peak_rss_bytes", "9000"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
        };
        r.processes = vec![
            Process {
                status: "complete".into(),
                meta: Some(meta("4096")),
                trials: Some(vec![trial(5, 0.1, 10)]),
                disturbed_retries: Some(1),
                ..Process::default()
            },
            Process {
                status: "complete".into(),
                meta: Some(meta("8192")),
                trials: Some(vec![trial(5, 0.1, 10)]),
                disturbed_retries: Some(0),
                ..Process::default()
            },
        ];
        r.derive_from_processes().expect("derive");
        assert_eq!(r.status, "complete");
        assert_eq!(r.disturbed_retries, 1);
        assert_eq!(r.trials.as_ref().map(Vec::len), Some(2));
        let sizes: Vec<(&str, u64)> = r
            .sizes
            .iter()
            .flat_map(|s| s.iter().map(|(k, v)| (k.as_str(), *v)))
            .collect();
        assert_eq!(sizes, [("input_bytes", 32), ("digest_bytes", 64)]);
        assert_eq!(r.kex.as_ref().map(OrderedMap::len), Some(0));
        assert_eq!(r.baseline_rss_bytes, Some(8192));
        assert_eq!(r.peak_rss_bytes, Some(9000));
        assert_eq!(r.timing_scope.as_deref(), Some("loop"));
        r.plan.trials = 3;
        r.derive_from_processes().expect("derive");
        assert_eq!(r.status, "failed_or_partial");
    }
}
