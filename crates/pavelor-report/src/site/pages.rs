//! The Markdown of the pages of a pavelor run on a site: its summary, its
//! Pavelor page in the NICCS layout and its method (a harness dataset's are
//! in `harness_pages.rs`). Every link is relative to the page that holds
//! it.

use std::fmt::Write as _;

use crate::rows::Ctx;
use crate::sections::{self, baselines};
use pavelor_niccs as niccs;

use super::System;
use crate::reload::Reloaded;
use pavelor_pages::html::{markdown_code, markdown_dest, markdown_literal};

/// The candidate page's file in a system's folder.
pub const CANDIDATE_PAGE: &str = "hash-22.html";

/// The site's index: the systems.
pub const INDEX_PAGE: &str = "index.html";

/// The page with every system side by side.
pub const COMPARE_PAGE: &str = "compare.html";

/// The file name of a system's summary.
pub const SUMMARY_PAGE: &str = "index.html";

/// The file name of a system's method page.
pub const METHOD_PAGE: &str = "method.html";

/// The file name of a report directory's whole report.
pub const REPORT_PAGE: &str = "report.html";

/// The line above a system page's title: where the page is, and the same
/// page on every other system (the NICCS site's breadcrumb).
pub(super) fn crumb(systems: &[System], this: &System, here: &str, page: &str) -> String {
    let others: Vec<String> = systems
        .iter()
        .map(|s| {
            if s.id == this.id {
                format!("**{}**", markdown_literal(&s.id))
            } else {
                format!(
                    "[{}](../{}/{page})",
                    markdown_literal(&s.id),
                    markdown_dest(&s.id)
                )
            }
        })
        .collect();
    format!(
        "[Performance measurements](../index.html) › [{}](index.html) › {here} · system: {}\n\n",
        markdown_literal(&this.id),
        others.join(" · ")
    )
}

/// The sentence that says where a system's dataset is on the site: its
/// folder `niccs/<id>/` beside the page, linked to its `campaign.json`.
pub(super) fn dataset_link(id: &str) -> String {
    format!(
        "[{}](niccs/{}/campaign.json)",
        markdown_code(&format!("niccs/{id}/")),
        markdown_dest(id)
    )
}

/// The system's summary page (its `index.html`): the ICCS helpers and the
/// Pavelor rows against `pseudoXOF`, as the harness's `summary_<system>`.
pub fn summary(systems: &[System], this: &System, run: &Reloaded) -> String {
    let ctx = Ctx::new(&run.config, &run.campaign);
    let e = &run.campaign.environment;
    let mut s = crumb(systems, this, "summary", SUMMARY_PAGE);
    let _ = writeln!(
        s,
        "# Performance — {}, system {}\n",
        markdown_literal(niccs::architecture_wording(
            e.target.split('-').next().unwrap_or_default()
        )),
        markdown_literal(&this.id)
    );
    let _ = writeln!(
        s,
        "Measurements by `pavelor report` on one {} core, from {} to {}.\n",
        markdown_literal(&e.cpu_model),
        markdown_literal(&run.campaign.started),
        markdown_literal(&run.campaign.finished)
    );
    let _ = writeln!(
        s,
        "- **Counter:** {}; every figure is a mean per call over the trials of one process each.\n- **Pages:** [hash-22 Pavelor]({CANDIDATE_PAGE}) in the NICCS layout · [method and machine]({METHOD_PAGE}) · [the full report]({REPORT_PAGE}) · [every system side by side](../{COMPARE_PAGE}).\n- **Sizes:** the NICCS guide's S1..S8, 32 B to 64 KiB.",
        ctx.unit
    );
    if let Some(verdicts) = sections::audit_verdicts(&run.campaign) {
        let _ = writeln!(
            s,
            "- **Constant-time audit** (valgrind memcheck, beyond the NICCS method; the findings are in [the full report]({REPORT_PAGE})): {verdicts}."
        );
    }
    baselines::tables(&mut s, &ctx, "##");
    s
}

/// The system's Pavelor page, in the seed's layout: the NICCS page of the
/// run's subject with links into the site.
pub fn candidate(systems: &[System], this: &System, run: &Reloaded) -> String {
    let mut ctx = crate::page_context(&run.config, &run.campaign);
    ctx.summary_link = SUMMARY_PAGE.into();
    ctx.method_link = METHOD_PAGE.into();
    ctx.evidence_intro = format!(
        "Paths are relative to {} beside this page, the run's dataset in the NICCS harness's layout, checked by `pavelor report --check` before this site was made.",
        dataset_link(&this.id)
    );
    let page = niccs::render_page(&run.dataset, &ctx);
    let mut s = crumb(systems, this, "`hash-22`", CANDIDATE_PAGE);
    s.push_str(&page);
    s
}

/// The rows of the harness's planning rule that a method page shows.
pub(super) fn planning_rows(
    trials: impl std::fmt::Display,
    target_s: f64,
    min_total: u64,
    max_iters: u64,
) -> Vec<(&'static str, String)> {
    vec![
        ("trials per figure", trials.to_string()),
        ("target time of a trial", format!("{target_s} s")),
        ("timed calls per figure, at least", min_total.to_string()),
        ("calls per trial, at most", max_iters.to_string()),
    ]
}

/// A two-column table of settings.
pub(super) fn settings_table(s: &mut String, rows: &[(&str, String)]) {
    let _ = writeln!(s, "| setting | value |\n|---|---|");
    for (k, v) in rows {
        let _ = writeln!(s, "| {k} | {v} |");
    }
}

/// The system's method page: how its figures were measured, and the
/// machine.
pub fn method(systems: &[System], this: &System, run: &Reloaded) -> String {
    let m = &run.config.method;
    let ctx = Ctx::new(&run.config, &run.campaign);
    let mut s = crumb(systems, this, "method", METHOD_PAGE);
    let _ = writeln!(
        s,
        "# Method and machine — system {}\n",
        markdown_literal(&this.id)
    );
    let _ = writeln!(
        s,
        "Every figure is the NICCS harness's: one-shot hashes of the harness driver's message (byte i = (131 i + n) mod 256), timed between two counter reads in worker processes of their own, pinned to one CPU, with warm-up calls first. The run's settings:\n"
    );
    let mut rows = planning_rows(
        m.trials,
        m.trial_target_s,
        m.min_total,
        m.max_iters_per_trial,
    );
    rows.extend([
        ("counter", ctx.unit.to_string()),
        (
            "CPU",
            m.cpu.map_or("not pinned".into(), |c| format!("CPU {c}")),
        ),
        (
            "reruns of a disturbed trial",
            m.disturbed_reruns.to_string(),
        ),
        ("command", markdown_code(&run.config.command_line.join(" "))),
    ]);
    settings_table(&mut s, &rows);
    let _ = writeln!(
        s,
        "\nBeyond the harness, every library's answers are checked while it is timed, against the AES-throughput bound and on distinct messages; the full report's sections 10 to 14 give the details. The method is described in the pavelor repository's `docs/method.md`.\n"
    );
    let mut env = String::new();
    sections::environment::write(&mut env, &ctx);
    s.push_str(&env.replacen(
        "## 9. Environment in detail (beyond the guide)",
        "## Machine",
        1,
    ));
    s
}
