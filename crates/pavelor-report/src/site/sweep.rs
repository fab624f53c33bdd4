//! The site's page of every machine's length sweep
//! ([`pavelor_sweep::section::machines_page`]).

use super::{Kind, System};

/// The page's file, at the site's top.
pub const SWEEP_PAGE: &str = "every-length.html";

/// The page's Markdown and its charts (file name, SVG).
pub fn page(systems: &[System]) -> (String, Vec<(String, String)>) {
    let runs: Vec<(String, &[pavelor_sweep::record::SweepRecord])> = systems
        .iter()
        .map(|s| match &s.kind {
            Kind::Report { run, .. } => (s.id.clone(), run.campaign.sweeps.records.as_slice()),
            Kind::Harness(_) => (s.id.clone(), &[][..]),
        })
        .collect();
    let (body, charts) = pavelor_sweep::section::machines_page(&runs);
    (
        format!("[Performance measurements](index.html) › every length\n\n{body}"),
        charts,
    )
}
