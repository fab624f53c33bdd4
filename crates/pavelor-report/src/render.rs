//! The files of a report directory made from a run's results: the NICCS
//! page with pavelor's sections after it (`report.md`), the charts, and
//! the same page as one self-contained `report.html`.

use pavelor::Algorithm;
use pavelor_niccs as niccs;

use crate::config::Config;
use crate::results::RunResults;
use crate::{charts, niccs_dataset, rows, sections};
use pavelor_pages::html;

/// How pavelor's page differs from the harness's in what the dataset does
/// not say: its system, links, evidence paths and subject.
pub fn page_context(config: &Config, c: &RunResults) -> niccs::PageContext {
    let system = config.system_id.as_str();
    let arch = c.environment.target.split('-').next().unwrap_or_default();
    let mut ctx = niccs::PageContext::harness(system, niccs::architecture_wording(arch));
    ctx.summary_link = format!("./niccs/{system}/campaign.json");
    ctx.method_link = "#11-performance-side-by-side-beyond-the-guide".into();
    ctx.evidence_intro = format!(
        "Paths are relative to {} beside this page, a dataset in the NICCS harness's layout (`pavelor report --check` checks it); each JSON file records its commands, environment and trials.",
        html::markdown_code(&format!("niccs/{system}/"))
    );
    ctx.scripts_line = format!(
        "Measured by `pavelor report` {}; the method is described in the pavelor repository's `docs/method.md`.",
        env!("CARGO_PKG_VERSION")
    );
    ctx.versions = niccs_dataset::NiccsSubject::of(config, c.best_backend)
        .ok()
        .map(|s| s.describe());
    ctx.kat_intro = Some(
        "Each instance was checked before timing against the official ICCS KAT answers, every record by pavelor's strict verifier; each instance's KAT log (section 7) lists the files checked, and section 10 has every backend's and library's."
            .into(),
    );
    ctx
}

/// Every file of a report directory that its records give: `report.md`,
/// the charts, and `report.html` (the same page, self-contained: the
/// charts inline, no script, nothing fetched).
pub fn rendered_files(
    config: &Config,
    c: &RunResults,
    ds: &niccs::Dataset,
) -> Vec<(String, String)> {
    let md = markdown(config, c, ds);
    let mut charts: Vec<(String, String)> = Algorithm::ALL
        .into_iter()
        .map(|alg| (charts::chart_name(alg), charts::chart_for(c, alg)))
        .collect();
    charts.extend(crate::sweep::charts(&c.sweeps));
    let inline: Vec<(String, String)> = charts
        .iter()
        .map(|(name, svg)| (format!("./{name}"), svg.clone()))
        .collect();
    let title = html::title_of(&md).unwrap_or_else(|| "pavelor report".into());
    let html = html::render(&html::Page {
        title: &title,
        markdown: &md,
        svgs: &inline,
        nav: &[],
    });
    let mut files = vec![("report.md".to_string(), md)];
    files.extend(charts);
    files.push(("report.html".to_string(), html));
    files
}

/// The report text: the NICCS page of the campaign's subject (sections
/// 1–5 and 7, from `ds` as the harness's renderer makes them), with the
/// verdict and the notes under its intro, then pavelor's own sections.
pub fn markdown(config: &Config, c: &RunResults, ds: &niccs::Dataset) -> String {
    let ctx = rows::Ctx::new(config, c);
    let page = niccs::render_page(ds, &page_context(config, c));
    let mut head = String::new();
    sections::header(&mut head, &ctx);
    let mut s = String::new();
    let mut lines = page.split_inclusive('\n');
    // Title, breadcrumb and intro, each followed by a blank line.
    for line in lines.by_ref().take(6) {
        s.push_str(line);
    }
    s.push_str(&head);
    for line in lines {
        s.push_str(line);
    }
    s.push_str(
        "\n## Beyond the NICCS guide\n\nThe sections below are pavelor's: every Rust backend and library measured side by side, the AES bounds (throughput and latency), the comparison hashes and the libraries' statuses.\n\n",
    );
    sections::basic::write(&mut s, &ctx);
    sections::environment::write(&mut s, &ctx);
    sections::functional::write(&mut s, &ctx);
    sections::performance::write(&mut s, &ctx);
    sections::resources::write(&mut s, &ctx);
    sections::evidence::write(&mut s, &ctx);
    sections::comparison::write(&mut s, &ctx);
    sections::baselines::write(&mut s, &ctx);
    if let Some(settings) = &config.sweep {
        pavelor_sweep::section::write(&mut s, settings, &c.sweeps.records, &c.sweeps.failures);
    }
    s
}
