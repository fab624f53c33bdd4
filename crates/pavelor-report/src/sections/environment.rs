//! Section 2: the assessment environment.

use std::fmt::Write as _;

use pavelor_pages::html::{markdown_code, markdown_literal};

use crate::rows::{Ctx, fmt_opt};
use pavelor_measure::clock::CounterKind;

/// Section 2.
pub fn write(s: &mut String, ctx: &Ctx<'_>) {
    let c = ctx.c;
    let e = &c.environment;
    let _ = writeln!(s, "## 9. Environment in detail (beyond the guide)\n");
    let _ = writeln!(s, "| item | value |\n|---|---|");
    let _ = writeln!(s, "| processor | {} |", markdown_literal(&e.cpu_model));
    let _ = writeln!(s, "| logical CPUs | {} |", e.logical_cpus);
    let _ = writeln!(
        s,
        "| core used | {} |",
        e.core_used.map_or("not pinned".into(), |c| format!(
            "CPU {c} (trials pinned with sched_setaffinity)"
        ))
    );
    let _ = writeln!(
        s,
        "| clock | kernel-reported {}; tick counter measured at {} |",
        fmt_opt(e.cpu_mhz, " MHz"),
        e.tick_rate_hz
            .map_or("n/a".into(), |h| format!("{:.1} MHz", h / 1e6))
    );
    let _ = writeln!(
        s,
        "| frequency pinning / boost | governor: {}; {} |",
        markdown_literal(&fmt_opt(e.governor.as_deref(), "")),
        markdown_literal(&fmt_opt(e.boost.as_deref(), ""))
    );
    let _ = writeln!(
        s,
        "| virtualization | {} |",
        if e.hypervisor {
            "hypervisor present (virtual machine)"
        } else {
            "none reported"
        }
    );
    let _ = writeln!(
        s,
        "| CPU features used by backends | {} |",
        markdown_literal(&e.cpu_features.join(" "))
    );
    let _ = writeln!(
        s,
        "| memory | {} |",
        e.memory_kib.map_or("unknown".into(), |k| format!(
            "{:.1} GiB",
            k as f64 / 1048576.0
        ))
    );
    let _ = writeln!(s, "| OS | {} |", markdown_literal(&e.os));
    let _ = writeln!(s, "| kernel | {} |", markdown_literal(&e.kernel));
    let _ = writeln!(s, "| compiler | {} |", markdown_literal(&e.rustc));
    let _ = writeln!(
        s,
        "| build | cargo profile {}; target {}; RUSTFLAGS {} |",
        markdown_literal(&e.build_profile),
        markdown_literal(&e.target),
        markdown_code(&e.rustflags)
    );
    let counter_note = c
        .measurements
        .first()
        .and_then(|m| m.trials.first())
        .and_then(|t| t.counter_note.clone());
    let _ = writeln!(
        s,
        "| cycle source | {}{} |",
        match c.measurements.first().map(|m| m.counter()) {
            Some(CounterKind::PerfCycles) if c.emulated_pmu.is_some() => {
                "**emulated PMU**: cycle counter of a virtual machine, user mode (perf_event_open); it counts the emulator's or hypervisor's virtual cycles, not silicon"
            }
            Some(CounterKind::PerfCycles) => "hardware cycle counter, user mode (perf_event_open)",
            Some(CounterKind::Ticks) if cfg!(target_arch = "aarch64") => {
                "**generic timer (CNTVCT_EL0 ticks, not core cycles)**"
            }
            Some(CounterKind::Ticks) => "**time-stamp counter (TSC ticks, not core cycles)**",
            _ => "none",
        },
        counter_note.map_or(String::new(), |n| format!(
            " — cycle counter unavailable: {}",
            markdown_literal(&n)
        ))
    );
    clock_rows(s, ctx);
    let _ = writeln!(s, "| time source | CLOCK_MONOTONIC_RAW |");
    let _ = writeln!(
        s,
        "| campaign | {} — {} (UTC) |\n",
        markdown_literal(&c.started),
        markdown_literal(&c.finished)
    );
}

/// The clock probe's row and the 95% rule's: the core clock measured over
/// 21 windows of 50 ms of user-mode cycles, and the rule that runs a trial
/// again when its cycles per second fall below 95% of the fixed clock.
/// With ticks neither applies, and the row says so.
fn clock_rows(s: &mut String, ctx: &Ctx<'_>) {
    let c = ctx.c;
    if !c.clock_rule {
        return;
    }
    let cycles = c.measurements.first().map(|m| m.counter()) == Some(CounterKind::PerfCycles);
    let Some(p) = c.clock_probe.as_ref().filter(|_| cycles) else {
        let _ = writeln!(
            s,
            "| core clock (clock probe) | not measured: no hardware cycle counter here (the figures are ticks, not cycles), so the harness's clock probe (21 windows of 50 ms of user-mode cycles) and its rule that reruns a trial below 95% of the fixed clock do not apply |"
        );
        return;
    };
    let emulated = c.emulated_pmu.as_ref().map_or(String::new(), |w| {
        format!(
            "; **emulated PMU** ({}): the emulator's virtual clock, not silicon",
            markdown_literal(w)
        )
    });
    let steady = if p.iqr_hz <= 0.005 * p.median_hz {
        "steady"
    } else {
        "**not steady**"
    };
    let _ = writeln!(
        s,
        "| core clock (clock probe) | {:.3} GHz, the median of {} windows of 50 ms of user-mode cycles (lowest {:.3}, highest {:.3} GHz; IQR {:.2} MHz, {:.2}% of the median: {steady} by the harness's 0.5%){emulated} |",
        p.median_hz / 1e9,
        p.windows_hz.len(),
        p.min_hz / 1e9,
        p.max_hz / 1e9,
        p.iqr_hz / 1e6,
        100.0 * p.iqr_hz / p.median_hz.max(f64::MIN_POSITIVE),
    );
    let clock = pavelor_measure::host::fixed_clock_hz(&c.niccs_environment_start);
    let from_cpufreq = pavelor_measure::host::fixed_clock_hz(
        &c.niccs_environment_start
            .iter()
            .filter(|(k, _)| k != "core_clock_hz")
            .cloned()
            .collect::<Vec<_>>(),
    )
    .is_some();
    let reruns: usize = c
        .measurements
        .iter()
        .map(|m| m.disturbed_reruns.len())
        .sum();
    let still: usize = c
        .measurements
        .iter()
        .flat_map(|m| &m.trials)
        .filter(|t| t.disturbed.is_some())
        .count();
    let _ = writeln!(
        s,
        "| disturbed trials (harness's 95% rule) | {}; {reruns} trial(s) run again, {still} still disturbed after two reruns (marked †) |",
        clock.map_or("no fixed clock known".to_string(), |hz| format!(
            "a trial under 95% of the fixed clock {:.3} GHz ({}) is run again, at most twice",
            hz / 1e9,
            if from_cpufreq {
                "cpufreq's scaling_max_freq"
            } else {
                "the probe's median"
            }
        )),
    );
}
