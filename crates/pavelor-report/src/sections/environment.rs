//! Section 2: the assessment environment.

use std::fmt::Write as _;

use crate::rows::{Ctx, fmt_opt};
use pavelor_measure::clock::CounterKind;

/// Section 2.
pub fn write(s: &mut String, ctx: &Ctx<'_>) {
    let c = ctx.c;
    let e = &c.environment;
    let _ = writeln!(s, "## 9. Environment in detail (beyond the guide)\n");
    let _ = writeln!(s, "| item | value |\n|---|---|");
    let _ = writeln!(s, "| processor | {} |", e.cpu_model);
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
        fmt_opt(e.governor.as_deref(), ""),
        fmt_opt(e.boost.as_deref(), "")
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
        e.cpu_features.join(" ")
    );
    let _ = writeln!(
        s,
        "| memory | {} |",
        e.memory_kib.map_or("unknown".into(), |k| format!(
            "{:.1} GiB",
            k as f64 / 1048576.0
        ))
    );
    let _ = writeln!(s, "| OS | {} |", e.os);
    let _ = writeln!(s, "| kernel | {} |", e.kernel);
    let _ = writeln!(s, "| compiler | {} |", e.rustc);
    let _ = writeln!(
        s,
        "| build | cargo profile {}; target {}; RUSTFLAGS `{}` |",
        e.build_profile, e.target, e.rustflags
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
            Some(CounterKind::PerfCycles) => "hardware cycle counter, user mode (perf_event_open)",
            Some(CounterKind::Ticks) if cfg!(target_arch = "aarch64") => {
                "**generic timer (CNTVCT_EL0 ticks, not core cycles)**"
            }
            Some(CounterKind::Ticks) => "**time-stamp counter (TSC ticks, not core cycles)**",
            _ => "none",
        },
        counter_note.map_or(String::new(), |n| format!(
            " — cycle counter unavailable: {n}"
        ))
    );
    let _ = writeln!(s, "| time source | CLOCK_MONOTONIC_RAW |");
    let _ = writeln!(s, "| campaign | {} — {} (UTC) |\n", c.started, c.finished);
}
