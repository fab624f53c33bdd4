//! The comparison with the reference campaigns' anchor figures and with
//! the other hashes measured in the same run.

use pavelor_pages::html::markdown_literal;
use std::fmt::Write as _;

use pavelor::Algorithm;

use crate::config::ANCHORS_32B;
use crate::config::ANCHORS_64K;
use crate::rows::{Ctx, Family, Row};
use pavelor_measure::ops::{Operation, Subject};

/// The comparison section.
pub fn write(s: &mut String, ctx: &Ctx<'_>) {
    let u = ctx.unit;
    let _ = writeln!(
        s,
        "\n## 14. Comparison with the reference campaigns and other hashes (beyond the guide)\n"
    );
    let _ = writeln!(
        s,
        "Anchor figures: the submitted reference C (byte-wise table AES) measured by the NICCS campaigns on x86_1 (i7-12700, 2.1 GHz) and arm_1 (Oryon, 2.71 GHz), in core cycles. This run's figures are in {u} on this machine, so the ratios compare implementations across machines and counters: indicative, not exact.\n"
    );
    let _ = writeln!(
        s,
        "| instance | implementation | this run, {u}/byte at 64 KiB | reference C x86_1 | speed-up vs x86_1 | reference C arm_1 | speed-up vs arm_1 |\n|---|---|---:|---:|---:|---:|---:|"
    );
    for &(alg, arm, x86) in &ANCHORS_64K {
        for row in ctx.instance_rows(alg) {
            if let Some(m) = row.at(65536) {
                let cpb = m.cycles_per_byte();
                let _ = writeln!(
                    s,
                    "| {alg} | {} | {cpb:.2} | {x86} | {:.1}× | {arm} | {:.1}× |",
                    markdown_literal(&row.name()),
                    x86 / cpb,
                    arm / cpb
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "\n| instance | implementation | this run, mean {u} at 32 B | reference C x86_1 | reference C arm_1 |\n|---|---|---:|---:|---:|"
    );
    for &(alg, arm, x86) in &ANCHORS_32B {
        for row in ctx.instance_rows(alg) {
            if let Some(m) = row.at(32) {
                let _ = writeln!(
                    s,
                    "| {alg} | {} | {:.0} | {x86:.0} | {arm:.0} |",
                    markdown_literal(&row.name()),
                    m.mean_cycles()
                );
            }
        }
    }
    throughput(s, ctx);
}

/// MB/s of every row, and Pavelor-512 (best backend) relative to each
/// comparison hash.
fn throughput(s: &mut String, ctx: &Ctx<'_>) {
    if ctx.comparison_rows().next().is_none() {
        return;
    }
    let best = Subject::Op(Operation::Pavelor(
        Algorithm::Pavelor512,
        ctx.c.best_backend,
    ));
    let reference: Option<&Row<'_>> = ctx.rows.iter().find(|r| *r.subject == best);
    let _ = writeln!(
        s,
        "\nThroughput in this run (MB/s) and Pavelor-512 ({}) relative to each:\n",
        ctx.c.best_backend
    );
    let mut header = String::from("| hash |");
    let mut rule = String::from("|---|");
    for size in &ctx.config.sizes {
        let _ = write!(header, " {size} B |");
        rule.push_str("---:|");
    }
    let _ = writeln!(s, "{header}\n{rule}");
    for row in &ctx.rows {
        let mut line = format!("| {} |", markdown_literal(&row.subject.to_string()));
        for &size in &ctx.config.sizes {
            let cell = match (row.at(size), reference.and_then(|r| r.at(size))) {
                (Some(m), Some(p)) if row.family == Family::Comparison => format!(
                    " {:.0} ({:.2}×) |",
                    m.mb_per_s(),
                    p.mb_per_s() / m.mb_per_s()
                ),
                (Some(m), _) => format!(" {:.0} |", m.mb_per_s()),
                _ => " – |".into(),
            };
            line.push_str(&cell);
        }
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(
        s,
        "\n(×) = Pavelor-512 throughput divided by that hash's, same message length; > 1 means Pavelor-512 is faster."
    );
}
