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

/// An open cycle source.
pub struct CycleCounter {
    kind: CounterKind,
    #[cfg(target_os = "linux")]
    perf: Option<perf_event::Counter>,
    /// Why the hardware counter is not used, if it is not.
    pub fallback_reason: Option<String>,
}

impl CycleCounter {
    /// Opens the hardware cycle counter for this thread (user mode only), or
    /// falls back to the tick counter, saying why. `force_ticks` skips the
    /// hardware counter.
    pub fn open(force_ticks: bool) -> Self {
        #[cfg(target_os = "linux")]
        if !force_ticks {
            use perf_event::events::Hardware;
            let built = perf_event::Builder::new(Hardware::CPU_CYCLES)
                .exclude_kernel(true)
                .exclude_hv(true)
                .build();
            let mut reason = match built {
                Ok(mut counter) => match counter.enable() {
                    Ok(()) => match counter.read() {
                        Ok(_) => {
                            return CycleCounter {
                                kind: CounterKind::PerfCycles,
                                perf: Some(counter),
                                fallback_reason: None,
                            };
                        }
                        Err(e) => format!("reading the cycle counter failed: {e}"),
                    },
                    Err(e) => format!("enabling the cycle counter failed: {e}"),
                },
                Err(e) => format!("perf_event_open(PERF_COUNT_HW_CPU_CYCLES) failed: {e}"),
            };
            if let Ok(p) = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid") {
                reason.push_str(&format!(" (perf_event_paranoid = {})", p.trim()));
            }
            return Self::ticks(Some(reason));
        }
        Self::ticks(Some(if force_ticks {
            "tick counter requested".into()
        } else {
            "no perf_event_open on this OS".into()
        }))
    }

    fn ticks(reason: Option<String>) -> Self {
        let kind = if hw::tick_counter_name().is_some() {
            CounterKind::Ticks
        } else {
            CounterKind::None
        };
        CycleCounter {
            kind,
            #[cfg(target_os = "linux")]
            perf: None,
            fallback_reason: reason,
        }
    }

    /// The counter in use.
    pub fn kind(&self) -> CounterKind {
        self.kind
    }

    /// The current count.
    #[inline(always)]
    pub fn read(&mut self) -> u64 {
        #[cfg(target_os = "linux")]
        if let Some(c) = self.perf.as_mut() {
            return c.read().unwrap_or(0);
        }
        hw::ticks()
    }
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
