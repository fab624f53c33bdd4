//! The per-instance SVG charts: every implementation's line; SHA-512,
//! BLAKE3 and the pseudoXOF baseline of the same width for reference; the
//! reference campaigns' anchors; and the AES bound (the larger of throughput and latency).

use pavelor::Algorithm;

use crate::config::ANCHORS_64K;
use crate::results::RunResults;
use crate::rows::Family;
use pavelor_iccs_helpers::Helper;
use pavelor_measure::ops::{Operation, Subject};
use pavelor_pages::svg_chart::{self, Bound, Marker, Series, Style};

/// The chart file of an instance.
pub fn chart_name(alg: Algorithm) -> String {
    format!("chart-{}.svg", alg.name().to_ascii_lowercase())
}

/// The chart of `alg`.
pub fn chart_for(c: &RunResults, alg: Algorithm) -> String {
    let sizes: Vec<usize> = c.measurements.iter().map(|m| m.size).collect();
    let mut series = Vec::new();
    let xof = Helper::xof_of_bits(u64::from(alg.output_bits()));
    let rows = c.subjects.iter().filter(|s| {
        s.algorithm() == Some(alg)
            || matches!(s, Subject::Op(Operation::Sha512 | Operation::Blake3))
            || matches!(s, Subject::Op(Operation::Iccs(h)) if Some(*h) == xof)
    });
    for subject in rows {
        let id = subject.id();
        let points: Vec<(f64, f64)> = c
            .measurements
            .iter()
            .filter(|m| m.op == id)
            .map(|m| (m.size as f64, m.cycles_per_byte()))
            .collect();
        if points.is_empty() {
            continue;
        }
        let family = match subject {
            Subject::Op(Operation::Pavelor(..)) => Family::Rust,
            Subject::Lib { .. } => Family::CLibrary,
            Subject::Op(Operation::Iccs(_)) => Family::Baseline,
            Subject::Op(_) => Family::Comparison,
        };
        series.push(Series {
            label: match subject {
                Subject::Op(Operation::Pavelor(_, b)) => format!("Rust {b}"),
                Subject::Lib { name, .. } => format!("C library {name}"),
                Subject::Op(Operation::Iccs(h)) => format!("{h} (ICCS baseline)"),
                Subject::Op(o) => format!("{} (comparison)", o.algorithm_name()),
            },
            points,
            style: match family {
                Family::Rust => Style::Solid,
                Family::CLibrary => Style::Dashed,
                Family::Comparison | Family::Baseline => Style::Dotted,
            },
        });
    }
    let markers: Vec<Marker> = ANCHORS_64K
        .iter()
        .filter(|a| a.0 == alg)
        .flat_map(|&(_, arm, x86)| {
            [
                Marker {
                    label: "reference C, x86_1 (NICCS)".into(),
                    x: 65536.0,
                    y: x86,
                },
                Marker {
                    label: "reference C, arm_1 (NICCS)".into(),
                    x: 65536.0,
                    y: arm,
                },
            ]
        })
        .collect();
    let bound = c.probe.as_ref().and_then(|p| {
        let same_counter = c.measurements.first().map(|m| m.counter()) == Some(p.counter);
        let (lo, hi) = (sizes.iter().copied().min()?, sizes.iter().copied().max()?);
        same_counter.then(|| Bound {
            label: if p.latency.is_some() {
                "AES bound, the larger of throughput and latency (one message)".into()
            } else {
                "AES-throughput bound (one message)".into()
            },
            points: bound_points(lo, hi)
                .into_iter()
                .map(|n| (n as f64, p.roofline(alg, n).bound() / n as f64))
                .collect(),
        })
    });
    svg_chart::render(
        &format!("{alg}: {} per byte", c.unit()),
        c.unit(),
        &series,
        &markers,
        bound.as_ref(),
    )
}

/// Message lengths at which to draw the bound: every power of two from
/// `lo` to `hi` and both ends.
fn bound_points(lo: usize, hi: usize) -> Vec<usize> {
    let mut v = vec![lo];
    let mut n = lo.next_power_of_two();
    while n < hi {
        if n > lo {
            v.push(n);
        }
        n *= 2;
    }
    if hi > lo {
        v.push(hi);
    }
    v
}
