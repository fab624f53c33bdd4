//! The pages of a harness dataset on a site: its summary, the harness's
//! `hash-22` page and its method. Each says that NICCS published the
//! figures and pavelor did not measure them.

use std::fmt::Write as _;

use pavelor::Algorithm;

use super::System;
use super::error::Error;
use super::pages::{
    CANDIDATE_PAGE, COMPARE_PAGE, METHOD_PAGE, SUMMARY_PAGE, crumb, dataset_link, planning_rows,
    settings_table,
};
use super::system::{HARNESS_UNIT, Source};
use crate::harness_run::HarnessRun;
use crate::sections::baselines::size_name;
use pavelor_pages::html::{markdown_code, markdown_literal, markdown_text};

/// The harness's repository, where the dataset is published.
const HARNESS: &str = "`ngcc-dev/ngcc-harness`";

fn provenance(h: &HarnessRun, id: &str) -> String {
    format!(
        "**{}.** This is the NICCS harness's dataset {} from {HARNESS}, checked by the harness validator's rules (as `pavelor report --check` checks it: {}) before it was put here, and shown as published. The dataset itself is {} beside this page.",
        capitalised(Source::Niccs.words()),
        markdown_code(&format!("performance/data/{id}/")),
        markdown_literal(&h.summary),
        dataset_link(id)
    )
}

/// The campaign's start and end, UTC, as Markdown text.
fn dates(h: &HarnessRun) -> (String, String) {
    let (start, end) = h.dates();
    (markdown_literal(&start), markdown_literal(&end))
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// The dataset's summary page (its `index.html`): where it comes from and
/// each instance's figures.
pub(super) fn summary(systems: &[System], this: &System, h: &HarnessRun) -> String {
    let mut s = crumb(systems, this, "summary", SUMMARY_PAGE);
    let id = markdown_literal(&this.id);
    let title = match h.architecture() {
        Some(arch) => format!("{}, system {id}", markdown_text(arch)),
        None => format!("system {id}"),
    };
    let _ = writeln!(s, "# Performance — {title}\n");
    let (start, end) = dates(h);
    let _ = writeln!(s, "{}\n", provenance(h, &this.id));
    let _ = writeln!(
        s,
        "- **Processor:** {}{}, from {start} to {end}.\n- **Counter:** {HARNESS_UNIT} (the harness reads a hardware cycle counter); every figure is a mean per call over the trials of the harness's plan.\n- **Pages:** [hash-22 Pavelor]({CANDIDATE_PAGE}), the harness's page · [method and machine]({METHOD_PAGE}) · [every system side by side](../{COMPARE_PAGE}).",
        h.processor(),
        h.machine().map_or_else(String::new, |m| format!(" ({m})")),
    );
    for alg in Algorithm::ALL {
        let figures: Vec<_> = h.figures.iter().filter(|f| f.alg == alg).collect();
        if figures.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            "\n## {alg}\n\nImplementation: {}.\n",
            h.implementations(alg).join(", ")
        );
        let _ = writeln!(
            s,
            "| message | {HARNESS_UNIT}/byte | MB/s | variant |\n|---|---:|---:|---|"
        );
        for f in figures {
            let _ = writeln!(
                s,
                "| {} | {:.1} | {:.1} | {} |",
                size_name(f.size),
                f.cycles_per_byte(),
                f.mb_per_s,
                markdown_text(&f.variant)
            );
        }
    }
    s
}

/// The harness's `hash-22` page for the dataset, as `pavelor report
/// --render` prints it, with its summary and method links pointing into
/// the site.
pub(super) fn candidate(
    systems: &[System],
    this: &System,
    h: &HarnessRun,
) -> Result<String, Error> {
    let evidence = format!(
        "Paths are relative to {} beside this page: the NICCS harness's dataset {} from {HARNESS}, as published, checked by the harness validator's rules before this site was made.",
        dataset_link(&this.id),
        markdown_code(&format!("performance/data/{}/", this.id))
    );
    let page = h
        .page(SUMMARY_PAGE, METHOD_PAGE, &evidence)
        .map_err(Error::HarnessPage)?;
    let mut s = crumb(systems, this, "`hash-22`", CANDIDATE_PAGE);
    let _ = writeln!(s, "{}\n", provenance(h, &this.id));
    s.push_str(&page);
    Ok(s)
}

/// The dataset's method page: the harness's planning, its host checks and
/// the machine, from `campaign.json`.
pub(super) fn method(systems: &[System], this: &System, h: &HarnessRun) -> String {
    let c = &h.dataset.campaign;
    let mut s = crumb(systems, this, "method", METHOD_PAGE);
    let _ = writeln!(
        s,
        "# Method and machine — system {}\n",
        markdown_literal(&this.id)
    );
    let _ = writeln!(s, "{}\n", provenance(h, &this.id));
    let _ = writeln!(
        s,
        "The harness times one-shot hashes of its driver's message (byte i = (131 i + n) mod 256) between two reads of the hardware cycle counter, in worker processes of their own pinned to one CPU, with warm-up calls first; pavelor's `report` follows the same method. The campaign's planning:\n"
    );
    let mut rows = Vec::new();
    if let Some(p) = &c.planning {
        rows = planning_rows(
            p.trials,
            p.trial_target_s,
            p.min_total,
            p.max_iters_per_trial,
        );
        rows.push((
            "time per operation, at most",
            format!("{} s", p.op_budget_s),
        ));
    }
    rows.push(("counter", HARNESS_UNIT.to_string()));
    if let Some(n) = c.shards {
        rows.push(("shards", n.to_string()));
    }
    if let Some(a) = &c.harness_additions {
        rows.push(("flags the harness adds", markdown_text(a)));
    }
    let (start, end) = dates(h);
    rows.push(("started / ended (UTC)", format!("{start} / {end}")));
    settings_table(&mut s, &rows);
    if let Some(checks) = &c.host_checks {
        let _ = writeln!(
            s,
            "\n## Host checks\n\n| phase | CPU | UTC | problems |\n|---|---:|---|---|"
        );
        for hc in checks {
            let problems = if hc.problems.is_empty() {
                "none".to_string()
            } else {
                markdown_text(&hc.problems.join("; "))
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {problems} |",
                markdown_text(&hc.phase),
                hc.cpu,
                markdown_text(&hc.utc)
            );
        }
    }
    if let Some(env) = &c.environment_at_start {
        let _ = writeln!(s, "\n## Machine\n\n| item | value |\n|---|---|");
        for (k, v) in env.iter() {
            let _ = writeln!(
                s,
                "| {} | {} |",
                markdown_text(k),
                markdown_text(&v.py_str())
            );
        }
    }
    if let Some(note) = &c.history_note {
        let _ = writeln!(s, "\n## History\n\n{}", markdown_text(note));
    }
    s
}
