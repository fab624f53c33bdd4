//! Cycle and time sources.
//!
//! Cycles come from the hardware cycle counter through `perf_event_open`
//! (user mode only) where the kernel allows it; otherwise from the CPU's
//! tick counter (TSC on x86), labelled as ticks, not cycles. Time comes
//! from `CLOCK_MONOTONIC_RAW`.

use serde::{Deserialize, Serialize};

use crate::hw;

/// Which counter a figure was taken with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CounterKind {
    /// Hardware core cycles, user mode, via `perf_event_open`.
    PerfCycles,
    /// The CPU's constant-rate tick counter (TSC / CNTVCT_EL0).
    Ticks,
    /// No counter: only nanoseconds are meaningful.
    None,
}

impl CounterKind {
    /// The unit as the report writes it.
    pub fn unit(self) -> &'static str {
        match self {
            CounterKind::PerfCycles => "cycles",
            CounterKind::Ticks => hw::tick_counter_name().unwrap_or("ticks"),
            CounterKind::None => "n/a",
        }
    }
}

/// Where a [`CycleCounter`] gets its counts and its time: the machine
/// ([`SystemSource`]) or, in tests, a scripted one. There is one counter
/// path for every source: [`CycleCounter::open_with`] asks the source for
/// the hardware cycle counter and falls back to its tick counter, saying
/// why; every figure, the trials' and the clock probe's, is read through
/// the same [`CycleCounter::read`] and [`CycleCounter::now_ns`].
pub trait CycleSource: Send {
    /// Opens the hardware cycle counter of this thread, user mode only
    /// (`perf_event_open(PERF_COUNT_HW_CPU_CYCLES)`, kernel and hypervisor
    /// excluded), enables it and reads it once; `Err` says why not.
    fn open_cycles(&mut self) -> Result<(), Error>;
    /// The opened cycle counter's count.
    fn read_cycles(&mut self) -> u64;
    /// The name of the tick counter (`TSC`, `CNTVCT_EL0`), if there is one.
    fn tick_counter(&self) -> Option<&'static str>;
    /// The tick counter's count.
    fn read_ticks(&mut self) -> u64;
    /// Nanoseconds of a monotonic clock (`CLOCK_MONOTONIC_RAW`).
    fn now_ns(&mut self) -> u64;
    /// `/proc/sys/kernel/perf_event_paranoid`, for the fallback's reason.
    fn perf_event_paranoid(&self) -> Option<String>;
}

/// Why the hardware cycle counter could not be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `perf_event_open` refused the counter.
    #[error("perf_event_open(PERF_COUNT_HW_CPU_CYCLES) failed: {0}")]
    Open(#[source] std::io::Error),
    /// The opened counter could not be enabled.
    #[error("enabling the cycle counter failed: {0}")]
    Enable(#[source] std::io::Error),
    /// The enabled counter could not be read.
    #[error("reading the cycle counter failed: {0}")]
    Read(#[source] std::io::Error),
    /// This OS has no `perf_event_open`.
    #[error("no perf_event_open on this OS")]
    Unsupported,
}

/// The machine's counters: `perf_event_open` where the OS has it, the
/// CPU's tick counter, `CLOCK_MONOTONIC_RAW`.
#[derive(Default)]
pub struct SystemSource {
    #[cfg(target_os = "linux")]
    perf: Option<perf_event::Counter>,
}

impl CycleSource for SystemSource {
    fn open_cycles(&mut self) -> Result<(), Error> {
        #[cfg(target_os = "linux")]
        {
            use perf_event::events::Hardware;
            let built = perf_event::Builder::new(Hardware::CPU_CYCLES)
                .exclude_kernel(true)
                .exclude_hv(true)
                .build();
            match built {
                Ok(mut counter) => match counter.enable() {
                    Ok(()) => match counter.read() {
                        Ok(_) => {
                            self.perf = Some(counter);
                            Ok(())
                        }
                        Err(e) => Err(Error::Read(e)),
                    },
                    Err(e) => Err(Error::Enable(e)),
                },
                Err(e) => Err(Error::Open(e)),
            }
        }
        #[cfg(not(target_os = "linux"))]
        Err(Error::Unsupported)
    }

    #[inline(always)]
    fn read_cycles(&mut self) -> u64 {
        #[cfg(target_os = "linux")]
        if let Some(c) = self.perf.as_mut() {
            return c.read().unwrap_or(0);
        }
        0
    }

    fn tick_counter(&self) -> Option<&'static str> {
        hw::tick_counter_name()
    }

    #[inline(always)]
    fn read_ticks(&mut self) -> u64 {
        hw::ticks()
    }

    #[inline(always)]
    fn now_ns(&mut self) -> u64 {
        monotonic_raw_ns()
    }

    fn perf_event_paranoid(&self) -> Option<String> {
        std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
            .ok()
            .map(|p| p.trim().to_string())
    }
}

/// An open cycle source.
pub struct CycleCounter {
    kind: CounterKind,
    source: Box<dyn CycleSource>,
    /// Why the hardware counter is not used, if it is not.
    pub fallback_reason: Option<String>,
}

impl CycleCounter {
    /// Opens the hardware cycle counter for this thread (user mode only), or
    /// falls back to the tick counter, saying why. `force_ticks` skips the
    /// hardware counter.
    pub fn open(force_ticks: bool) -> Self {
        Self::open_with(Box::new(SystemSource::default()), force_ticks)
    }

    /// [`CycleCounter::open`] on `source`: its cycle counter where it opens
    /// (and then only that, never its ticks), else its tick counter.
    pub fn open_with(mut source: Box<dyn CycleSource>, force_ticks: bool) -> Self {
        let reason = if force_ticks {
            "tick counter requested".to_string()
        } else {
            match source.open_cycles() {
                Ok(()) => {
                    return CycleCounter {
                        kind: CounterKind::PerfCycles,
                        source,
                        fallback_reason: None,
                    };
                }
                Err(e) => {
                    let mut reason = e.to_string();
                    if let Some(p) = source.perf_event_paranoid() {
                        reason.push_str(&format!(" (perf_event_paranoid = {p})"));
                    }
                    reason
                }
            }
        };
        let kind = if source.tick_counter().is_some() {
            CounterKind::Ticks
        } else {
            CounterKind::None
        };
        CycleCounter {
            kind,
            source,
            fallback_reason: Some(reason),
        }
    }

    /// The counter in use.
    pub fn kind(&self) -> CounterKind {
        self.kind
    }

    /// The current count: cycles from the cycle counter when it is open,
    /// else ticks.
    #[inline(always)]
    pub fn read(&mut self) -> u64 {
        match self.kind {
            CounterKind::PerfCycles => self.source.read_cycles(),
            _ => self.source.read_ticks(),
        }
    }

    /// The source's monotonic time, nanoseconds.
    #[inline(always)]
    pub fn now_ns(&mut self) -> u64 {
        self.source.now_ns()
    }
}

/// The clock probe's windows: 21 of 50 ms (the harness's `clockprobe 21
/// 50`).
pub const PROBE_WINDOWS: usize = 21;

/// The length of one probe window, milliseconds.
pub const PROBE_WINDOW_MS: u64 = 50;

/// The core clock measured with the cycle counter: user-mode cycles per
/// second over [`PROBE_WINDOWS`] busy windows of [`PROBE_WINDOW_MS`] of
/// wall time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockProbe {
    /// The median window, Hz: the run's reference clock where cpufreq
    /// gives none (`core_clock_hz`).
    pub median_hz: f64,
    /// The slowest window, Hz (`core_clock_min_hz`).
    pub min_hz: f64,
    /// The fastest window, Hz (`core_clock_max_hz`).
    pub max_hz: f64,
    /// The interquartile range, Hz: window `3n/4` less window `n/4` of the
    /// sorted windows (integer division, as the harness indexes them).
    pub iqr_hz: f64,
    /// Each window's cycles per second, in the order they ran.
    pub windows_hz: Vec<f64>,
}

/// The clock probe, as the NICCS harness makes it (`ngcc-dev/ngcc-harness`,
/// `performance/clockprobe.c`, run by `campaign.py`'s `clock_probe`): after
/// one untimed window that lets the core leave any idle state, each of
/// [`PROBE_WINDOWS`] windows counts user-mode cycles while the core spins
/// until [`PROBE_WINDOW_MS`] of `CLOCK_MONOTONIC_RAW` have passed; the
/// windows' cycles per second are sorted, the median is the clock, and
/// the spread is the lowest, the highest and the interquartile range. A
/// window that lost the CPU reads low, hence the median. `None` without a
/// hardware cycle counter (ticks are not cycles: there is no clock to
/// measure) or when a window counted no cycle (the probe's exit status 2).
/// Run on the CPU the caller is pinned to.
pub fn clock_probe(counter: &mut CycleCounter) -> Option<ClockProbe> {
    if counter.kind() != CounterKind::PerfCycles {
        return None;
    }
    let window = |counter: &mut CycleCounter| -> Option<f64> {
        let (t0, c0) = (counter.now_ns(), counter.read());
        let mut x = 0u64;
        let mut t1 = t0;
        while t1 - t0 < PROBE_WINDOW_MS * 1_000_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            t1 = counter.now_ns();
        }
        let cycles = counter.read().wrapping_sub(c0);
        (cycles > 0).then(|| cycles as f64 * 1e9 / (t1 - t0) as f64)
    };
    window(counter)?;
    let windows_hz: Vec<f64> = (0..PROBE_WINDOWS)
        .map(|_| window(counter))
        .collect::<Option<_>>()?;
    let mut hz = windows_hz.clone();
    hz.sort_by(f64::total_cmp);
    let n = hz.len();
    Some(ClockProbe {
        median_hz: hz[n / 2],
        min_hz: hz[0],
        max_hz: hz[n - 1],
        iqr_hz: hz[3 * n / 4] - hz[n / 4],
        windows_hz,
    })
}

/// Nanoseconds of `CLOCK_MONOTONIC_RAW` (not slewed by NTP).
#[inline(always)]
pub fn monotonic_raw_ns() -> u64 {
    #[cfg(target_os = "linux")]
    {
        use nix::time::{ClockId, clock_gettime};
        if let Ok(ts) = clock_gettime(ClockId::CLOCK_MONOTONIC_RAW) {
            return ts.tv_sec() as u64 * 1_000_000_000 + ts.tv_nsec() as u64;
        }
    }
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos() as u64
}

/// Measures the tick counter's rate against `CLOCK_MONOTONIC_RAW` over
/// `millis` milliseconds, in ticks per second.
pub fn tick_rate_hz(millis: u64) -> Option<f64> {
    hw::tick_counter_name()?;
    let (t0, c0) = (monotonic_raw_ns(), hw::ticks());
    while monotonic_raw_ns() - t0 < millis * 1_000_000 {
        std::hint::spin_loop();
    }
    let (t1, c1) = (monotonic_raw_ns(), hw::ticks());
    Some((c1 - c0) as f64 * 1e9 / (t1 - t0) as f64)
}

/// A scripted [`CycleSource`] for tests: time moves only when it is read,
/// by `step_ns` a read, and the cycle counter advances with it at the rate
/// of the current window (window `k` lies between the counter's reads
/// `2k` and `2k + 1`, as a probe window does).
#[cfg(test)]
pub(crate) mod fake {
    use super::CycleSource;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    pub(crate) struct FakeSource {
        /// Whether `perf_event_open` works on this "machine".
        pub cycles_available: bool,
        /// Cycles per second of each window, Hz (the last one repeats).
        pub window_hz: Vec<f64>,
        /// How far time moves at each read, ns.
        pub step_ns: u64,
        pub now: u64,
        pub cycles: f64,
        pub cycle_reads: u64,
        /// Reads of the tick counter, seen from outside.
        pub tick_reads: Arc<AtomicU64>,
    }

    impl FakeSource {
        pub(crate) fn new(cycles_available: bool, window_hz: Vec<f64>) -> Self {
            FakeSource {
                cycles_available,
                window_hz,
                step_ns: 1_000_000,
                now: 0,
                cycles: 0.0,
                cycle_reads: 0,
                tick_reads: Arc::new(AtomicU64::new(0)),
            }
        }
    }

    impl CycleSource for FakeSource {
        fn open_cycles(&mut self) -> Result<(), super::Error> {
            if self.cycles_available {
                Ok(())
            } else {
                Err(super::Error::Open(std::io::Error::from_raw_os_error(2)))
            }
        }
        fn read_cycles(&mut self) -> u64 {
            self.cycle_reads += 1;
            self.cycles as u64
        }
        fn tick_counter(&self) -> Option<&'static str> {
            Some("TSC")
        }
        fn read_ticks(&mut self) -> u64 {
            self.tick_reads.fetch_add(1, Ordering::Relaxed);
            self.now
        }
        fn now_ns(&mut self) -> u64 {
            let k = (self.cycle_reads / 2) as usize;
            let hz = self.window_hz[k.min(self.window_hz.len() - 1)];
            self.now += self.step_ns;
            self.cycles += hz * self.step_ns as f64 / 1e9;
            self.now
        }
        fn perf_event_paranoid(&self) -> Option<String> {
            Some("2".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake::FakeSource;
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_machine_with_perf_cycles_gets_cycles_and_never_ticks() {
        let source = FakeSource::new(true, vec![3.0e9]);
        let ticks = source.tick_reads.clone();
        let mut c = CycleCounter::open_with(Box::new(source), false);
        assert_eq!(c.kind(), CounterKind::PerfCycles);
        assert_eq!(c.fallback_reason, None);
        let c0 = c.read();
        for _ in 0..10 {
            c.now_ns();
        }
        let c1 = c.read();
        // 10 steps of 1 ms at 3 GHz: 3e9 * 0.010 = 30 000 000 cycles.
        assert_eq!(c1 - c0, 30_000_000);
        assert!(clock_probe(&mut c).is_some());
        assert_eq!(ticks.load(Ordering::Relaxed), 0, "never a tick read");
    }

    #[test]
    fn without_perf_cycles_it_is_ticks_and_says_why() {
        let mut c = CycleCounter::open_with(Box::new(FakeSource::new(false, vec![3.0e9])), false);
        assert_eq!(c.kind(), CounterKind::Ticks);
        let why = c.fallback_reason.clone().expect("a reason");
        assert!(why.starts_with("perf_event_open(PERF_COUNT_HW_CPU_CYCLES) failed"));
        assert!(why.ends_with("(perf_event_paranoid = 2)"));
        assert_eq!(clock_probe(&mut c), None, "ticks are not a clock");
        let forced = CycleCounter::open_with(Box::new(FakeSource::new(true, vec![3.0e9])), true);
        assert_eq!(forced.kind(), CounterKind::Ticks);
        assert_eq!(
            forced.fallback_reason.as_deref(),
            Some("tick counter requested")
        );
    }

    #[test]
    fn the_probe_takes_median_and_iqr_of_21_windows_after_an_untimed_one() {
        // MHz: the untimed first window (1000, a core waking up), then 21
        // windows, two of which lost the CPU (2500, 2100).
        let mhz = [
            1000.0, 3000.0, 2990.0, 2995.0, 3001.0, 2500.0, 3002.0, 2998.0, 2997.0, 3003.0, 2999.0,
            2996.0, 3004.0, 2994.0, 3005.0, 2993.0, 3006.0, 2992.0, 3007.0, 2991.0, 3008.0, 2100.0,
        ];
        let hz: Vec<f64> = mhz.iter().map(|m| m * 1e6).collect();
        let mut c = CycleCounter::open_with(Box::new(FakeSource::new(true, hz)), false);
        let p = clock_probe(&mut c).expect("a probe");
        assert_eq!(p.windows_hz.len(), 21);
        // Sorted, the 21 windows are 2100 2500 2990 2991 2992 [2993] 2994
        // 2995 2996 2997 [2998] 2999 3000 3001 3002 [3003] 3004 ... 3008:
        // median the 11th (2998), quartiles the 6th (2993) and the 16th
        // (3003), so the IQR is 10 MHz.
        let near = |a: f64, b: f64| (a - b).abs() < 1.0;
        assert!(near(p.median_hz, 2998e6), "{}", p.median_hz);
        assert!(near(p.iqr_hz, 10e6), "{}", p.iqr_hz);
        assert!(near(p.min_hz, 2100e6));
        assert!(near(p.max_hz, 3008e6));
        assert!(
            near(p.windows_hz[0], 3000e6),
            "the untimed window is not kept"
        );
    }
}
