//! The length sweep of a Pavelor implementation, as eBASH measures hashes: every length from 0 to
//! 4096 bytes, then steps of 1008 up to 64 KiB ([`plan`]); at each length
//! back-to-back samples of one call each, in passes over all lengths so
//! that a drift of the machine spreads over every length instead of
//! hitting one; random messages from a recorded seed; per length the
//! median and the quartiles ([`stats`]).
//!
//! Pavelor pays a whole Paff per block of its rate, and one more when the
//! padding needs a block of its own, so its time per call is a staircase
//! in the length: [`Summary`] puts the measured step at each block
//! boundary beside the cost of one Paff at 64 KiB.

#![forbid(unsafe_code)]

use std::hint::black_box;

use serde::{Deserialize, Serialize};

use pavelor::Algorithm;
use pavelor_kat::drng::Drng;

use pavelor_measure::clock::{CounterKind, CycleCounter};

pub mod chart;
pub mod compare;
pub mod plan;
pub mod record;
pub mod section;
pub mod stats;
pub mod task;

pub use plan::SweepPlan;
use stats::{LongSlope, Quartiles, Step};

/// The raw samples of one implementation of one instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// What was swept.
    pub plan: SweepPlan,
    /// Per length (in the plan's order), every sample in the order taken:
    /// counter units of one call, the counter's own read included.
    pub samples: Vec<Vec<u64>>,
    /// The counter.
    pub counter: CounterKind,
    /// The median of back-to-back counter reads with nothing between
    /// them, taken before the sweep: what each sample includes besides
    /// the call.
    pub read_overhead: u64,
}

/// The random messages of a sweep: one buffer of the longest length per
/// pass, from the ICCS DRNG seeded with the plan's seed and the pass.
pub fn messages(plan: &SweepPlan) -> Vec<Vec<u8>> {
    let longest = plan.lengths.iter().copied().max().unwrap_or(0);
    (0..plan.passes)
        .map(|pass| {
            let mut seed = [0u8; 16];
            seed[..8].copy_from_slice(&plan.seed.to_le_bytes());
            seed[8..].copy_from_slice(&(pass as u64).to_le_bytes());
            Drng::new(&seed).generate(8 * longest as u64)
        })
        .collect()
}

/// What a sweep calls: the hash of one message, and what to do after
/// the timed samples of each length in each pass (outside the timing: a
/// check of the last call's digest).
pub trait Target {
    /// Hashes `msg` (one sample's call).
    fn call(&mut self, msg: &[u8]);
    /// Runs after the samples of `msg`'s length in a pass.
    fn after_length(&mut self, msg: &[u8]) {
        let _ = msg;
    }
}

impl<F: FnMut(&[u8])> Target for F {
    fn call(&mut self, msg: &[u8]) {
        self(msg);
    }
}

/// Runs the sweep of `plan`, calling `target` on each message (the first
/// `n` bytes of the pass's random buffer for length `n`). Each pass visits
/// the lengths in order; at each, one untimed call, then `per_pass` calls
/// each read on `counter` before and after, then
/// [`Target::after_length`].
pub fn sweep(plan: &SweepPlan, counter: &mut CycleCounter, target: &mut impl Target) -> Curve {
    let read_overhead = {
        let mut v: Vec<u64> = (0..1001)
            .map(|_| {
                let a = counter.read();
                counter.read().wrapping_sub(a)
            })
            .collect();
        v.sort_unstable();
        v[v.len() / 2]
    };
    let buffers = messages(plan);
    let mut samples = vec![Vec::with_capacity(plan.samples()); plan.lengths.len()];
    for buf in &buffers {
        for (k, &n) in plan.lengths.iter().enumerate() {
            let msg = &buf[..n];
            target.call(black_box(msg));
            for _ in 0..plan.per_pass {
                let a = counter.read();
                target.call(black_box(msg));
                samples[k].push(counter.read().wrapping_sub(a));
            }
            target.after_length(msg);
        }
    }
    Curve {
        plan: plan.clone(),
        samples,
        counter: counter.kind(),
        read_overhead,
    }
}

impl Curve {
    /// Why the samples do not fit `plan` (another plan, a length without
    /// its samples), if they do not.
    pub fn shape_problem(&self, plan: &SweepPlan) -> Option<String> {
        if &self.plan != plan {
            return Some("the samples are of another plan than the one asked for".into());
        }
        if self.samples.len() != plan.lengths.len() {
            return Some(format!(
                "{} lengths of samples for a plan of {}",
                self.samples.len(),
                plan.lengths.len()
            ));
        }
        let want = plan.samples();
        self.samples
            .iter()
            .zip(&plan.lengths)
            .find(|(s, _)| s.len() != want)
            .map(|(s, n)| format!("{} samples at {n} B; {want} were planned", s.len()))
    }
}

/// What a curve says, for an implementation of `alg`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Per length: its quartiles (counter units per call). Not written
    /// out: the samples give them.
    #[serde(skip)]
    pub quartiles: Vec<(usize, Quartiles)>,
    /// The slope above 4 KiB.
    pub long: Option<LongSlope>,
    /// Counter units per byte at the published lengths.
    pub columns: Vec<(usize, Quartiles)>,
    /// The measured step at each block boundary up to 4096.
    pub steps: Vec<Step>,
    /// One Paff's cost from the 64 KiB median: the median over the Paff
    /// calls of that hash.
    pub paff_at_64k: Option<f64>,
}

/// Steps agree with the Paff cost when within this fraction of it.
pub const STEP_TOLERANCE: f64 = 0.10;

impl Curve {
    /// The quartiles, slope, columns and steps of the curve.
    pub fn summary(&self, alg: Algorithm) -> Summary {
        let quartiles: Vec<(usize, Quartiles)> = self
            .plan
            .lengths
            .iter()
            .zip(&self.samples)
            .filter_map(|(&n, s)| Quartiles::of(s).map(|q| (n, q)))
            .collect();
        let medians: Vec<(usize, f64)> = quartiles.iter().map(|(n, q)| (*n, q.median)).collect();
        let paff_at_64k = medians.iter().find(|m| m.0 == 65536).map(|m| {
            let squeeze = alg.output_len().div_ceil(alg.rate_len()) - 1;
            m.1 / (65536 / alg.rate_len() + 1 + squeeze) as f64
        });
        Summary {
            long: stats::long_slope(&medians),
            columns: stats::columns(&quartiles),
            steps: stats::steps(&medians, alg.rate_len()),
            paff_at_64k,
            quartiles,
        }
    }
}

impl Summary {
    /// The median step height, if any step was measured.
    pub fn median_step(&self) -> Option<f64> {
        let mut h: Vec<f64> = self.steps.iter().map(Step::height).collect();
        h.sort_by(f64::total_cmp);
        (!h.is_empty()).then(|| h[h.len() / 2])
    }

    /// Whether the median step is within [`STEP_TOLERANCE`] of the Paff
    /// cost at 64 KiB (None without both).
    pub fn steps_agree(&self) -> Option<bool> {
        let paff = self.paff_at_64k?;
        self.median_step()
            .map(|m| (m - paff).abs() <= STEP_TOLERANCE * paff)
    }

    /// The steps further than [`STEP_TOLERANCE`] from the Paff cost at
    /// 64 KiB (each step is a difference of two medians of few samples:
    /// some scatter is expected).
    pub fn steps_off(&self) -> usize {
        self.paff_at_64k.map_or(0, |paff| {
            self.steps
                .iter()
                .filter(|s| (s.height() - paff).abs() > STEP_TOLERANCE * paff)
                .count()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pavelor_measure::clock::CycleSource;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A tick counter that the test's calls advance (10 per byte), plus 1
    /// per read: a pure function of the calls.
    struct Fake(Arc<AtomicU64>);

    impl CycleSource for Fake {
        fn open_cycles(&mut self) -> Result<(), pavelor_measure::clock::Error> {
            Err(pavelor_measure::clock::Error::Unsupported)
        }
        fn read_cycles(&mut self) -> u64 {
            0
        }
        fn tick_counter(&self) -> Option<&'static str> {
            Some("TSC")
        }
        fn read_ticks(&mut self) -> u64 {
            self.0.fetch_add(1, Ordering::Relaxed) + 1
        }
        fn now_ns(&mut self) -> u64 {
            0
        }
        fn perf_event_paranoid(&self) -> Option<String> {
            None
        }
    }

    #[test]
    fn a_sweep_samples_every_length_in_passes() {
        let clock = Arc::new(AtomicU64::new(0));
        let mut counter = CycleCounter::open_with(Box::new(Fake(clock.clone())), true);
        let plan = SweepPlan {
            lengths: vec![0, 5, 192, 65536],
            passes: 2,
            per_pass: 3,
            seed: 1,
        };
        let mut seen = Vec::new();
        let curve = sweep(&plan, &mut counter, &mut |m: &[u8]| {
            seen.push(m.len());
            clock.fetch_add(10 * m.len() as u64, Ordering::Relaxed);
        });
        // Each pass: per length one untimed call, then three timed.
        assert_eq!(seen.len(), 2 * 4 * 4);
        assert_eq!(&seen[..5], &[0, 0, 0, 0, 5]);
        assert_eq!(curve.samples.len(), 4);
        assert!(curve.samples.iter().all(|s| s.len() == 6));
        // 10 per byte plus the one read between.
        assert!(
            curve.samples[1].iter().all(|&s| s == 51),
            "{:?}",
            curve.samples[1]
        );
        assert_eq!(curve.read_overhead, 1);
    }

    #[test]
    fn messages_are_random_and_seeded() {
        let plan = SweepPlan {
            lengths: vec![0, 64],
            passes: 2,
            per_pass: 1,
            seed: 9,
        };
        let a = messages(&plan);
        assert_eq!(a, messages(&plan));
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].len(), 64);
        assert_ne!(a[0], a[1]);
        let other = SweepPlan { seed: 10, ..plan };
        assert_ne!(messages(&other)[0], a[0]);
    }

    #[test]
    fn the_summary_of_a_staircase() {
        let alg = Algorithm::Pavelor512;
        let plan = SweepPlan::full(1);
        let paffs = |n: usize| (n / 192 + 1) as u64;
        let curve = Curve {
            samples: plan
                .lengths
                .iter()
                .map(|&n| vec![40 + 300 * paffs(n); 3])
                .collect(),
            plan,
            counter: CounterKind::Ticks,
            read_overhead: 40,
        };
        let s = curve.summary(alg);
        assert_eq!(s.steps.len(), 21);
        assert_eq!(s.median_step(), Some(300.0));
        let paff = s.paff_at_64k.expect("64 KiB measured");
        assert!((paff - 300.0).abs() < 1.0, "{paff}");
        assert_eq!(s.steps_agree(), Some(true));
        assert_eq!(s.steps_off(), 0);
        // One Paff dearer at 64 KiB than the steps say: they disagree.
        let mut dear = s.clone();
        dear.paff_at_64k = Some(400.0);
        assert_eq!(dear.steps_agree(), Some(false));
        assert_eq!(dear.steps_off(), 21);
        assert_eq!(s.columns.len(), 5);
        let long = s.long.expect("long lengths");
        assert!((long.per_byte - 300.0 / 192.0).abs() < 0.01, "{long:?}");
    }
}
