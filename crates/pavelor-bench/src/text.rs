//! The human-readable form of a `pavelor bench` run.

use pavelor::Algorithm;

use super::BenchOutput;
use super::self_check::Verdict;

/// The human-readable tables, with the self-check's finding after them
/// (and, when it found drift, before them too).
pub fn render_text(b: &BenchOutput) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let check = b.self_check.as_ref();
    if let Some(c) = check.filter(|c| c.verdict == Verdict::Drift) {
        let _ = writeln!(s, "WARNING: {}\n", c.line(short(b.unit)));
    }
    let _ = writeln!(
        s,
        "counter: {}{}",
        b.unit,
        b.counter_note
            .as_ref()
            .map_or(String::new(), |n| format!(" ({n})"))
    );
    if let Some(p) = &b.aes_probe {
        let long = |f: &dyn Fn(Algorithm) -> Option<f64>| {
            Algorithm::ALL
                .iter()
                .filter_map(|&a| f(a).map(|v| format!("{a} {v:.3}/B")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "throughput bound: {} at full throughput, {:.3} {} per 128-bit AES round ({} chains), 456 rounds per Paff: {}",
            p.instruction_name(),
            p.per_round,
            b.unit,
            p.chains,
            long(&|a| Some(p.bound_per_byte(a)))
        );
        match &p.latency {
            Some(l) => {
                let _ = writeln!(
                    s,
                    "latency bound: {} in one dependent chain, {:.3} {} per round, 24 dependent rounds per Paff: {}",
                    l.instruction,
                    l.per_round,
                    b.unit,
                    long(&|a| p.latency_bound_per_byte(a))
                );
            }
            None => {
                let _ = writeln!(s, "latency bound: not probed");
            }
        }
        let _ = writeln!(
            s,
            "(long single messages; \"of bound\": against the larger of the two bounds from probes run right after each figure, \"binds\" names it; a batch's latency bound is shared by its {} messages)",
            super::BATCH
        );
    }
    let mut sizes: Vec<usize> = b.rows.iter().map(|r| r.size).collect();
    sizes.dedup();
    let width = b
        .rows
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(10)
        .max(10);
    for size in sizes {
        let _ = writeln!(s, "\nmessage length {size} B");
        let _ = writeln!(
            s,
            "  {:<width$} {:>10} {:>12} {:>10} {:>9} {:>10}",
            "hash",
            "MB/s",
            format!("{}/B", short(b.unit)),
            "vs SHA-512",
            "of bound",
            "binds"
        );
        for r in b.rows.iter().filter(|r| r.size == size) {
            let _ = writeln!(
                s,
                "  {:<width$} {:>10.1} {:>12.3} {:>10} {:>9} {:>10}",
                r.name,
                r.mb_per_s,
                r.per_byte,
                r.vs_sha512.map_or("-".into(), |v| format!("{v:.2}x")),
                r.of_bound
                    .map_or("-".into(), |v| format!("{:.0}%", 100.0 * v)),
                r.binds.map_or("-", |b| b.name())
            );
        }
    }
    if let Some(c) = check {
        let _ = writeln!(s, "\n{}", c.line(short(b.unit)));
    }
    s
}

fn short(unit: &str) -> &str {
    unit.split_whitespace().next().unwrap_or(unit)
}
