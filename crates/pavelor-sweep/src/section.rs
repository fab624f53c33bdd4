//! The report's section "Every length (the eBASH method)": per instance
//! its chart, the published columns of every implementation as median
//! (Q1–Q3), and the measured steps beside one Paff at 64 KiB.

use std::fmt::Write as _;

use pavelor::Algorithm;
use pavelor_pages::html::markdown_text;

use crate::chart;
use crate::plan::{COLUMNS, DENSE_TO, STEP_WINDOW};
use crate::record::{DIR, Settings, SweepFailure, SweepRecord};
use crate::stats::{number, quartiles_text};
use crate::{STEP_TOLERANCE, Summary};

/// The section's heading.
pub const HEADING: &str = "## 16. Every length (the eBASH method)";

/// The step figures of one summary: (count, median step, lowest, highest).
fn step_range(s: &Summary) -> Option<(usize, f64, f64, f64)> {
    let median = s.median_step()?;
    let h = s.steps.iter().map(|x| x.height());
    let lo = h.clone().fold(f64::INFINITY, f64::min);
    let hi = h.fold(f64::NEG_INFINITY, f64::max);
    Some((s.steps.len(), median, lo, hi))
}

/// The verdict on the steps in words.
pub fn steps_verdict(s: &Summary) -> &'static str {
    match s.steps_agree() {
        Some(true) => "AGREE",
        Some(false) => "DISAGREE",
        None => "not measured",
    }
}

/// Writes the section for `records` (in report order) and `failures`.
pub fn write(
    s: &mut String,
    settings: &Settings,
    records: &[SweepRecord],
    failures: &[SweepFailure],
) {
    let _ = writeln!(s, "\n{HEADING}\n");
    let first = records.first();
    let unit = first.map_or("cycles", |r| r.counter_unit.as_str());
    let plan = first.map(|r| &r.curve.plan);
    let lengths = plan.map_or(0, |p| p.lengths.len());
    let (passes, per_pass) = plan.map_or((0, 0), |p| (p.passes, p.per_pass));
    let which = if settings.quick {
        format!(
            "a sparse subset of the lengths (`--quick`: every block boundary up to {DENSE_TO} B with the {STEP_WINDOW} lengths on each side, the published lengths and the long ones; {lengths} lengths for the first implementation)"
        )
    } else {
        format!(
            "every message length from 0 to {DENSE_TO} bytes, then 4096 + k·1008 up to 65536 ({lengths} lengths)"
        )
    };
    let _ = writeln!(
        s,
        "Every Pavelor implementation measured above was also timed at {which}, as eBASH (SUPERCOP) times hashes: {passes} passes over all lengths, in each pass one untimed call then {per_pass} back-to-back samples of one call each, so that a drift of the machine spreads over every length; random messages from the ICCS DRNG seeded with {} and the pass; per length the median and the quartiles of the samples. Unit: {unit} per call, each sample including one read of the counter (its median read-to-read time is in each record, not subtracted). Each implementation had passed its KATs before; each was swept in a worker process of its own, and the digest of the last call at every length in every pass was checked against pavelor's. The raw samples are in `{DIR}/`. This section is beside the NICCS figures, not in place of them: they are means of many calls at 8 lengths, these are medians of single calls at every length (the pavelor repository's `docs/method.md`, \"Two methods\").\n",
        settings.seed
    );
    if !failures.is_empty() {
        let _ = writeln!(s, "Not swept:\n");
        for f in failures {
            let _ = writeln!(
                s,
                "- {}: {}",
                markdown_text(&f.subject.to_string()),
                markdown_text(&f.fault.to_string())
            );
        }
        let _ = writeln!(s);
    }
    if records.is_empty() {
        let _ = writeln!(s, "Nothing was swept.\n");
        return;
    }
    for alg in Algorithm::ALL {
        let rows: Vec<&SweepRecord> = records.iter().filter(|r| r.algorithm() == alg).collect();
        if rows.is_empty() {
            continue;
        }
        write_instance(s, alg, unit, &rows);
    }
}

fn write_instance(s: &mut String, alg: Algorithm, unit: &str, rows: &[&SweepRecord]) {
    let rate = alg.rate_len();
    let _ = writeln!(
        s,
        "### {alg}\n\n![{alg}: {unit} per call at every length from 0 to {DENSE_TO} B](./{})\n",
        chart::file_name(alg)
    );
    let _ = writeln!(
        s,
        "The chart: {unit} per call against the length, a panel per implementation (each with its own scale from 0), the median line in its quartile band; the dotted lines are the block boundaries, every {rate} B: a message of k·{rate} B or more needs one more Paff than one a byte shorter, for its padding.\n"
    );
    let mut head = format!("| Implementation | long ({unit}/B) |");
    let mut rule = String::from("|---|---|");
    for c in COLUMNS {
        let _ = write!(head, " {c} B |");
        rule.push_str("---|");
    }
    let _ = writeln!(s, "{head}\n{rule}");
    for r in rows {
        let long = r.summary.long.map_or("–".into(), |l| number(l.per_byte));
        let mut line = format!("| {} | {long} |", markdown_text(&r.implementation));
        for c in COLUMNS {
            let cell = r
                .summary
                .columns
                .iter()
                .find(|x| x.0 == c)
                .map_or("–".into(), |x| quartiles_text(&x.1));
            let _ = write!(line, " {cell} |");
        }
        let _ = writeln!(s, "{line}");
    }
    let fit = rows.iter().find_map(|r| r.summary.long);
    let fit_text = fit.map_or(String::new(), |l| {
        format!(
            "the least-squares slope of the medians at the {} lengths from {} to {} B",
            l.points, l.from, l.to
        )
    });
    let _ = writeln!(
        s,
        "\n{unit} per byte, each as median (Q1–Q3) of one call's {unit} divided by the length; \"long\" is {fit_text}.\n"
    );
    let _ = writeln!(
        s,
        "Steps: at each boundary up to {DENSE_TO} B, the median of the {STEP_WINDOW} lengths from it up minus that of the {STEP_WINDOW} below; one Paff at 64 KiB: the 64 KiB median divided by the {} Paffs of that hash. They agree when the median step is within {:.0}% of it.\n",
        65536 / rate + 1 + alg.output_len().div_ceil(rate) - 1,
        STEP_TOLERANCE * 100.0
    );
    let _ = writeln!(
        s,
        "| Implementation | boundaries | median step | lowest–highest | one Paff at 64 KiB | steps | further than {:.0}% | {} / {} / {} B |\n|---|---|---|---|---|---|---|---|",
        STEP_TOLERANCE * 100.0,
        rate - 1,
        rate,
        rate + 1
    );
    for r in rows {
        let sm = &r.summary;
        let (count, median, range) = step_range(sm).map_or(
            ("0".to_string(), "–".to_string(), "–".to_string()),
            |(n, m, lo, hi)| {
                (
                    n.to_string(),
                    number(m),
                    format!("{}–{}", number(lo), number(hi)),
                )
            },
        );
        let paff = sm.paff_at_64k.map_or("–".into(), number);
        let pair = pair_text(sm, rate);
        let _ = writeln!(
            s,
            "| {} | {count} | {median} | {range} | {paff} | {} | {} of {count} | {pair} |",
            markdown_text(&r.implementation),
            steps_verdict(sm),
            sm.steps_off()
        );
    }
    let _ = writeln!(s);
}

/// The medians at `rate − 1`, `rate` and `rate + 1` bytes: the last
/// length before the first boundary, the boundary (one Paff more, for the
/// padding's own block) and the length after it (the same Paffs).
fn pair_text(sm: &Summary, rate: usize) -> String {
    let at = |n: usize| {
        sm.quartiles
            .iter()
            .find(|q| q.0 == n)
            .map_or("–".to_string(), |q| number(q.1.median))
    };
    format!("{} / {} / {}", at(rate - 1), at(rate), at(rate + 1))
}

/// The page of several machines' sweeps (`pavelor site`): per instance one
/// chart, a row per machine and implementation, and their columns and
/// steps. `runs` are (machine, its records); returns the Markdown and the
/// charts (file name, SVG).
pub fn machines_page(runs: &[(String, &[SweepRecord])]) -> (String, Vec<(String, String)>) {
    let mut s = String::from("# Every length, on every machine (the eBASH method)\n\n");
    let _ = writeln!(
        s,
        "Each machine's sweep as its report measured it (`pavelor report --sweep`): single calls at every length from 0 to {DENSE_TO} B and up to 64 KiB, median and quartiles per length; its report's section 16 says how. Each machine counts in its own counter (core cycles, or TSC ticks, which are not cycles): the panels and rows give it, and figures of different counters or machines compare the setups, not the hash.\n"
    );
    let swept: Vec<&(String, &[SweepRecord])> = runs.iter().filter(|r| !r.1.is_empty()).collect();
    if swept.is_empty() {
        let _ = writeln!(
            s,
            "No run on this site swept every length: `pavelor report --sweep` adds the sweep to a report.\n"
        );
        return (s, Vec::new());
    }
    let mut charts = Vec::new();
    for alg in Algorithm::ALL {
        let rows: Vec<(&str, &SweepRecord)> = swept
            .iter()
            .flat_map(|(m, recs)| {
                recs.iter()
                    .filter(move |r| r.algorithm() == alg)
                    .map(move |r| (m.as_str(), r))
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let name = format!("every-length-{}", chart::file_name(alg));
        let panels: Vec<chart::Panel<'_>> = rows
            .iter()
            .map(|(m, r)| chart::Panel {
                label: format!("{m}: {} ({})", r.implementation, r.counter_unit),
                quartiles: &r.summary.quartiles,
            })
            .collect();
        charts.push((name.clone(), chart::render(alg, "counter units", &panels)));
        let _ = writeln!(s, "## {alg}\n\n![{alg} on every machine](./{name})\n");
        let _ = writeln!(
            s,
            "| machine | implementation | unit | long (/B) | 4096 B | 64 B | median step | one Paff at 64 KiB | steps |\n|---|---|---|---|---|---|---|---|---|"
        );
        for (m, r) in &rows {
            let sm = &r.summary;
            let col = |n: usize| {
                sm.columns
                    .iter()
                    .find(|c| c.0 == n)
                    .map_or("–".into(), |c| quartiles_text(&c.1))
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                markdown_text(m),
                markdown_text(&r.implementation),
                markdown_text(&r.counter_unit),
                sm.long.map_or("–".into(), |l| number(l.per_byte)),
                col(4096),
                col(64),
                sm.median_step().map_or("–".into(), number),
                sm.paff_at_64k.map_or("–".into(), number),
                steps_verdict(sm)
            );
        }
        let _ = writeln!(s);
    }
    (s, charts)
}
