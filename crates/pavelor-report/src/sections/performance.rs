//! Section 4: performance — per instance one side-by-side table of every
//! implementation (Rust backends and C libraries, ratios against the
//! baseline), the chart, and each implementation's full table.

use pavelor_pages::html::{markdown_code, markdown_dest, markdown_literal};
use std::fmt::Write as _;

use pavelor::{Algorithm, Backend};

use crate::charts::chart_name;
use crate::record_files::record_name;
use crate::rows::{Ctx, Family, Row, human_ns};
use pavelor_measure::{
    aes_probe::{AES_ROUNDS_PER_PAFF, Binding, DEPENDENT_ROUNDS_PER_PAFF},
    ops::{Operation, Subject},
};
use pavelor_niccs::stats::interval::mean_interval;

/// Section 4.
pub fn write(s: &mut String, ctx: &Ctx<'_>) {
    let config = ctx.config;
    let u = ctx.unit;
    let _ = writeln!(s, "## 11. Performance side by side (beyond the guide)\n");
    let _ = writeln!(
        s,
        "Mean over all timed calls of {} trials, each in its own process pinned to the core of section 9; calls per trial planned from one cold call in a calibration process as the NICCS harness plans them (≈ {} s per trial, ≥ {} calls in all, ≤ {} per trial, {} s per operation; see docs/method.md). C libraries are called through the ICCS `CryptHash` ABI (a function pointer from `dlsym`, one call per hash), Rust backends through the one-shot Rust API, with the same messages, counters and trial method. \"{u}\" is the counter named in section 9. MB/s = 10^6 bytes/s.\n",
        config.method.trials,
        config.method.trial_target_s,
        config.method.min_total,
        config.method.max_iters_per_trial,
        config.method.op_budget_s
    );
    for alg in Algorithm::ALL {
        let _ = writeln!(s, "### {alg}\n\n![{alg} {u}/byte](./{})\n", chart_name(alg));
        side_by_side(s, ctx, alg);
        for row in ctx.instance_rows(alg) {
            let _ = writeln!(s, "**{}**\n", markdown_literal(&row.subject.to_string()));
            perf_table(s, ctx, row);
            bound_note(s, ctx, alg, row);
        }
    }
    let others: Vec<&Row<'_>> = ctx.comparison_rows().collect();
    if !others.is_empty() {
        let _ = writeln!(s, "### Comparison hashes (same run, same method)\n");
        for row in others {
            if let Subject::Op(op) = row.subject {
                let _ = writeln!(s, "**{} — {}**\n", op.algorithm_name(), op.implementation());
            }
            perf_table(s, ctx, row);
        }
    }
}

/// Every implementation of `alg` side by side: mean counter units per call
/// with the 95% interval of that mean, and the speed-up against the
/// baseline (baseline ÷ this; > 1 = faster).
fn side_by_side(s: &mut String, ctx: &Ctx<'_>, alg: Algorithm) {
    let rows: Vec<&Row<'_>> = ctx.instance_rows(alg).collect();
    if rows.is_empty() {
        return;
    }
    let base = ctx.baseline_row(alg);
    let _ = writeln!(
        s,
        "Side by side: mean {u} per call ± the half-width of its 95% confidence interval, in percent (Student's t over the trials' means, one process each; none with fewer than two trials), and in parentheses the speed-up against the baseline {} (the baseline's {u} ÷ this row's; > 1 = faster). `pavelor compare` says whether two such figures differ.\n",
        base.map_or(
            format!(
                "{} (not measured for this instance)",
                markdown_code(&ctx.baseline)
            ),
            |b| format!("**{}**", markdown_literal(&b.name()))
        ),
        u = ctx.unit
    );
    let mut header = String::from("| implementation |");
    let mut rule = String::from("|---|");
    for &size in &ctx.config.sizes {
        let _ = write!(header, " {} {size} B |", ctx.size_label(size));
        rule.push_str("---:|");
    }
    let _ = writeln!(s, "{header}\n{rule}");
    for row in rows {
        let mut line = format!("| {} |", markdown_literal(&row.name()));
        for &size in &ctx.config.sizes {
            let cell = match (row.at(size), base.and_then(|b| b.at(size))) {
                (Some(m), Some(b)) => format!(
                    " {:.0}{} ({:.2}×){} |",
                    m.mean_cycles(),
                    plus_minus(m),
                    b.mean_cycles() / m.mean_cycles().max(f64::MIN_POSITIVE),
                    dagger(m)
                ),
                (Some(m), None) => {
                    format!(" {:.0}{}{} |", m.mean_cycles(), plus_minus(m), dagger(m))
                }
                (None, _) if row.failure_at(size).is_some() => " **failed** |".into(),
                (None, _) => " – |".into(),
            };
            line.push_str(&cell);
        }
        let _ = writeln!(s, "{line}");
    }
    s.push('\n');
}

/// " ±P%": the 95% interval of the figure's mean per call, from its
/// trials; nothing when there is none (fewer than two trials).
fn plus_minus(m: &pavelor_measure::campaign::Measurement) -> String {
    let per_call: Vec<f64> = m
        .trials
        .iter()
        .map(|t| t.cycles as f64 / t.calls.max(1) as f64)
        .collect();
    match mean_interval(&per_call) {
        Ok(i) => format!(" ±{:.1}%", 100.0 * i.relative()),
        Err(_) => String::new(),
    }
}

/// " †" for a figure with a trial still disturbed after the reruns.
fn dagger(m: &pavelor_measure::campaign::Measurement) -> &'static str {
    if m.trials.iter().any(|t| t.disturbed.is_some()) {
        " †"
    } else {
        ""
    }
}

/// One implementation's full table; failed figures say what happened;
/// † marks a figure whose trial processes waited for the CPU.
fn perf_table(s: &mut String, ctx: &Ctx<'_>, row: &Row<'_>) {
    let u = ctx.unit;
    let _ = writeln!(
        s,
        "| size | bytes | mean {u} | {u}/byte | median of trial means | mean time | MB/s | n (trials × calls) | record |\n|---|---:|---:|---:|---:|---:|---:|---|---|"
    );
    for &size in &ctx.config.sizes {
        let label = ctx.size_label(size);
        if let Some(m) = row.at(size) {
            let _ = writeln!(
                s,
                "| {label}{dagger} | {size} | {:.0} | {:.2} | {:.0} | {} | {:.1} | {} ({} × {}) | [json](./{}) |",
                m.mean_cycles(),
                m.cycles_per_byte(),
                m.median_trial_mean_cycles(),
                human_ns(m.mean_ns()),
                m.mb_per_s(),
                m.total_calls(),
                m.trials.len(),
                m.plan.iterations_per_trial,
                markdown_dest(&record_name(m)),
                dagger = dagger(m)
            );
        } else if let Some(f) = row.failure_at(size) {
            let _ = writeln!(
                s,
                "| {label} | {size} | **failed**: {} | | | | | | [failures](./records/failures.json) |",
                f.replace('|', "\\|")
            );
        }
    }
    s.push('\n');
}

/// The two bounds of one 64 KiB message (AES throughput and the dependent
/// rounds' latency), which of them binds and the fraction of it reached,
/// for hardware-AES implementations (Rust backends other than portable, and
/// C libraries, whose code is not known: the bounds apply to any).
fn bound_note(s: &mut String, ctx: &Ctx<'_>, alg: Algorithm, row: &Row<'_>) {
    let u = ctx.unit;
    let applies = match row.subject {
        Subject::Op(Operation::Pavelor(_, b)) => *b != Backend::Portable,
        _ => row.family == Family::CLibrary,
    };
    if let (Some(p), Some(m)) = (&ctx.c.probe, row.at(65536))
        && applies
        && p.counter == m.counter()
    {
        let cpb = m.cycles_per_byte();
        let rate = alg.rate_len();
        let round = markdown_literal(p.instruction_name());
        let mut line = String::from("Bounds at 64 KiB: ");
        // The throughput bound: from the probe each trial process ran right
        // after its timed calls where there is one (same core, same moment,
        // so clock changes between the start of the campaign and this
        // figure cancel out), else the campaign's.
        let (throughput, campaign) = match m.trial_aes_per_round() {
            Some(t) => {
                let b = AES_ROUNDS_PER_PAFF * t / rate as f64;
                let _ = write!(
                    line,
                    "**throughput** 456 × {t:.3} / {rate} = {b:.3} {u}/byte, from the AES probe each trial process ran right after its timed calls (median over the trials; the campaign's probe, `records/aes-probe.json`, {:.3} {u} per 128-bit AES round with {round}, gives {:.3})",
                    p.per_round,
                    p.bound_per_byte(alg),
                );
                (b, Some(p.bound_per_byte(alg)))
            }
            None => {
                let b = p.bound_per_byte(alg);
                let _ = write!(
                    line,
                    "**throughput** 456 × {:.3} / {rate} = {b:.3} {u}/byte (`records/aes-probe.json`, {:.3} {u} per 128-bit AES round with {round})",
                    p.per_round, p.per_round,
                );
                (b, None)
            }
        };
        let latency = p.latency.as_ref().map(|l| {
            let b = DEPENDENT_ROUNDS_PER_PAFF * l.per_round / rate as f64;
            let _ = write!(
                line,
                "; **latency** 24 × {:.3} / {rate} = {b:.3} {u}/byte (24 dependent rounds per Paff, each at least one {} latency, from the campaign's chain probe)",
                l.per_round,
                markdown_literal(&l.instruction),
            );
            b
        });
        if latency.is_none() {
            line.push_str("; latency: not probed (a record written before the latency probe)");
        }
        let binds = match latency {
            Some(l) if l > throughput => Binding::Latency,
            _ => Binding::Throughput,
        };
        let bound = latency.map_or(throughput, |l| l.max(throughput));
        let _ = write!(
            line,
            ". The {} bound binds; measured {cpb:.3}: **{:.0}% of the binding bound**",
            binds.name(),
            100.0 * bound / cpb
        );
        if let Some(c) = campaign.filter(|&c| c >= latency.unwrap_or(0.0)) {
            let _ = write!(
                line,
                " ({:.0}% with the campaign's throughput probe)",
                100.0 * c / cpb
            );
        }
        line.push('.');
        if cfg!(target_arch = "aarch64") {
            line.push_str(" On AArch64 each Paff AES round is an `AESE`+`AESMC` pair plus an `EOR` on the same vector pipes, so the throughput bound (pairs only) is not reachable.");
        }
        let _ = writeln!(s, "{line}\n");
    }
}
