//! The ICCS baselines as the NICCS harness's summary shows them: the
//! helpers `sm3hash`, `pseudohash` and `pseudoXOF` at every message
//! length, then every Pavelor row at 32 B, 1 KiB and 64 KiB with its
//! factor against `pseudoXOF` of the same output width and message length.

use std::fmt::Write as _;

use pavelor::Algorithm;

use crate::config::SIZES;
use crate::rows::{Ctx, Row};
use pavelor_iccs_helpers::Helper;
use pavelor_measure::ops::{Operation, Subject};
use pavelor_niccs::python::py_format_f;
use pavelor_niccs::render::fmt_int;

/// The message lengths of the summary's hash table.
pub const SUMMARY_SIZES: [usize; 3] = [32, 1024, 65536];

/// The row of an ICCS helper, if the run measured it.
pub fn helper_row<'c, 'a>(ctx: &'c Ctx<'a>, h: Helper) -> Option<&'c Row<'a>> {
    ctx.rows
        .iter()
        .find(|r| matches!(r.subject, Subject::Op(Operation::Iccs(x)) if *x == h))
}

/// The factor of `row`'s mean at `size` against `pseudoXOF` of `alg`'s
/// width at the same length: `cycles / pseudoXOF cycles`, as the harness's
/// summary divides them, unrounded.
pub fn times_xof(ctx: &Ctx<'_>, alg: Algorithm, row: &Row<'_>, size: usize) -> Option<f64> {
    let xof = helper_row(ctx, Helper::xof_of_bits(u64::from(alg.output_bits()))?)?;
    let base = xof.at(size)?.mean_cycles();
    let m = row.at(size)?.mean_cycles();
    (base > 0.0).then(|| m / base)
}

/// A cell of the summary's hash table: `36.9 k (13.12×)`, `(ratio –)`
/// when the baseline is missing, `–` when the figure is.
pub fn hash_cell(ctx: &Ctx<'_>, alg: Algorithm, row: &Row<'_>, size: usize) -> String {
    match row.at(size) {
        None => row.failure_at(size).map_or("–".into(), |_| "failed".into()),
        Some(m) => {
            let v = fmt_int(Some(m.mean_cycles()));
            match times_xof(ctx, alg, row, size) {
                Some(r) => format!("{v} ({}×)", py_format_f(r, 2)),
                None => format!("{v} (ratio –)"),
            }
        }
    }
}

/// The two tables, under a heading of `level` (`##` in the report, `##`
/// on the site's summary page too).
pub fn tables(s: &mut String, ctx: &Ctx<'_>, level: &str) {
    let u = ctx.unit;
    let _ = writeln!(s, "\n{level} ICCS hash helpers\n");
    if !Helper::ALL
        .into_iter()
        .any(|h| helper_row(ctx, h).is_some())
    {
        let _ = writeln!(
            s,
            "This run did not measure the ICCS helpers (`--no-baselines`), so the hash table below has no factor.\n"
        );
    } else {
        let _ = writeln!(
            s,
            "The ICCS auxiliary functions that every NICCS hash table compares with, measured in this run by the same method: mean {u} per call on the NICCS driver's message (pavelor's implementations, written on RustCrypto `sm3`; `docs/iccs-baselines.md` defines them).\n"
        );
        let mut right: Vec<String> = SIZES.iter().map(|&n| size_name(n)).collect();
        right.push(format!("{u}/byte (64 KiB)"));
        header(s, ["ICCS helper", "output bits"], &right);
        for h in Helper::ALL {
            let Some(row) = helper_row(ctx, h) else {
                continue;
            };
            let mut line = format!("| `{}` | {} |", h.function(), h.output_bits());
            for &n in &SIZES {
                let cell = match row.at(n) {
                    Some(m) => fmt_int(Some(m.mean_cycles())),
                    None if row.failure_at(n).is_some() => "failed".into(),
                    None => "–".into(),
                };
                let _ = write!(line, " {cell} |");
            }
            let cpb = row
                .at(65536)
                .map_or("–".into(), |m| py_format_f(m.mean_cycles() / 65536.0, 1));
            let _ = writeln!(s, "{line} {cpb} |");
        }
    }
    let _ = writeln!(s, "\n{level} Hash functions against pseudoXOF\n");
    let _ = writeln!(
        s,
        "Every Pavelor implementation of this run with its mean {u} per call and, in brackets, that figure divided by `pseudoXOF`'s at the same output width and message length, as the harness's summary divides them (above 1: slower than `pseudoXOF`).\n"
    );
    let right: Vec<String> = SUMMARY_SIZES
        .iter()
        .map(|&n| format!("{} {u} (× pseudoXOF)", size_name(n)))
        .collect();
    header(s, ["instance", "implementation"], &right);
    for alg in Algorithm::ALL {
        for row in ctx.instance_rows(alg) {
            let mut line = format!(
                "| `{}` | {} |",
                alg.name(),
                pavelor_pages::html::markdown_literal(&row.name())
            );
            for &n in &SUMMARY_SIZES {
                let _ = write!(line, " {} |", hash_cell(ctx, alg, row, n));
            }
            let _ = writeln!(s, "{line}");
        }
    }
}

/// A table's header and rule: two columns of names, then one right-aligned
/// column per `right` heading.
fn header(s: &mut String, left: [&str; 2], right: &[String]) {
    let _ = writeln!(
        s,
        "| {} | {} | {} |\n|---|---|{}",
        left[0],
        left[1],
        right.join(" | "),
        "---:|".repeat(right.len())
    );
}

/// `32 B`, `1 KiB`, `64 KiB`, as the harness names message lengths.
pub fn size_name(n: usize) -> String {
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} B")
    }
}

/// The report's section.
pub fn write(s: &mut String, ctx: &Ctx<'_>) {
    let _ = writeln!(
        s,
        "\n## 15. Against the ICCS baselines (the harness's summary, beyond the guide)"
    );
    tables(s, ctx, "###");
}
