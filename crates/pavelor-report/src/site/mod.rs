//! `pavelor site`: report directories from several machines, and datasets
//! the NICCS harness published, merged into one static site, as the NICCS
//! site presents the harness's runs.
//!
//! ```text
//! SITE/index.html            the systems (the system selector)
//! SITE/compare.html          every instance and length on every system
//! SITE/<id>/index.html       the summary: ICCS helpers, × pseudoXOF
//! SITE/<id>/hash-22.html     the Pavelor page in the NICCS layout
//! SITE/<id>/method.html      how the run measured, and the machine
//! SITE/<id>/report.html      the run's whole report
//! SITE/<id>/records/, niccs/ the run's evidence, which the pages link to
//! ```
//!
//! A harness dataset (`performance/data/<system>/`, [`crate::harness_run`])
//! gets the same folder without `report.html` and `records/`: its summary,
//! the harness's `hash-22` page, its method, and the dataset itself under
//! `niccs/<id>/`. Its figures are labelled as published by NICCS wherever
//! they stand beside ours.
//!
//! Every run is checked as `pavelor report --check` checks it (a harness
//! dataset by the harness validator's rules) before anything is written; the site is made in a temporary directory beside
//! `SITE` and renamed into place, so a refused run leaves no partial site.
//! Every page is self-contained HTML ([`crate::html`]) and every link is
//! relative, so the site works from `file://` and from any web server.

#![forbid(unsafe_code)]

pub mod compare;
mod harness_pages;
pub mod index;
pub mod pages;
pub mod system;

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use pavelor_niccs::evidence::{Evidence, Limits, SYSTEM_ID_RULE, is_system_id};

use crate::harness_run::{HarnessRun, is_harness_dataset};
use crate::html::{self, Page};
use crate::reload::check_run;
pub use system::{Kind, System};

/// The file that marks a directory as a site this command made (and may
/// replace).
pub const MARKER: &str = ".pavelor-site";

/// What [`build`] made.
pub struct Built {
    /// The system ids, in the order of the arguments.
    pub systems: Vec<String>,
    /// The pages written, relative to the site.
    pub pages: Vec<String>,
}

/// Refuses an output location before any run is read: `out` must not be a
/// run directory or inside one, and if it exists it must be a directory
/// this command made.
fn check_output(out: &Path, runs: &[PathBuf]) -> Result<PathBuf, String> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let parent = parent
        .canonicalize()
        .map_err(|e| format!("{}: {e}", parent.display()))?;
    let name = out
        .file_name()
        .ok_or_else(|| format!("{}: not a directory name", out.display()))?;
    let target = parent.join(name);
    if target.exists() {
        if !target.is_dir() {
            return Err(format!("{}: exists and is not a directory", out.display()));
        }
        let empty = std::fs::read_dir(&target)
            .map_err(|e| format!("{}: {e}", out.display()))?
            .next()
            .is_none();
        if !empty && !target.join(MARKER).is_file() {
            return Err(format!(
                "{}: exists, is not empty and is not a site made by pavelor site; refusing to replace it",
                out.display()
            ));
        }
    }
    for run in runs {
        let run = run
            .canonicalize()
            .map_err(|e| format!("{}: {e}", run.display()))?;
        if target.starts_with(&run) || run.starts_with(&target) {
            return Err(format!(
                "{}: the site may not be inside a run, nor a run inside the site",
                out.display()
            ));
        }
    }
    Ok(target)
}

/// The path of `rel` (a `/`-separated path made of plain names) under
/// `root`; anything else is refused, so nothing is written outside the
/// site.
fn under(root: &Path, rel: &str) -> Result<PathBuf, String> {
    let plain = !rel.is_empty()
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains(['\\', '\0']));
    let path = root.join(rel);
    let inside = path
        .strip_prefix(root)
        .is_ok_and(|p| p.components().all(|c| matches!(c, Component::Normal(_))));
    if !(plain && inside) {
        return Err(format!(
            "{rel}: not a plain relative path; nothing is written outside the site"
        ));
    }
    Ok(path)
}

fn write_bytes(root: &Path, rel: &str, bytes: &[u8]) -> Result<(), String> {
    let path = under(root, rel)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(root: &Path, rel: &str, text: &str, pages: &mut Vec<String>) -> Result<(), String> {
    write_bytes(root, rel, text.as_bytes())?;
    pages.push(rel.to_string());
    Ok(())
}

/// Whether `rel`, a file of a NICCS dataset, is one the dataset's readers
/// use: `campaign.json`, `build.json`, and what lies under `records/`,
/// `kat/` and `profile/`. Nothing else of a directory is copied.
fn dataset_file(rel: &str) -> bool {
    rel == "campaign.json"
        || rel == "build.json"
        || ["records/", "kat/", "profile/"]
            .iter()
            .any(|d| rel.starts_with(d))
}

/// Copies the files of a run that its pages link to, as its check read
/// them: a report directory's `report.html`, its records and its NICCS
/// datasets; a harness dataset's own files.
fn copy_evidence(root: &Path, sys: &System, ev: &Evidence) -> Result<(), String> {
    let id = &sys.id;
    match &sys.kind {
        Kind::Report { .. } => {
            for (rel, bytes) in ev.files() {
                let keep = rel == "report.html"
                    || rel.starts_with("records/")
                    || rel
                        .strip_prefix("niccs/")
                        .and_then(|r| r.split_once('/'))
                        .is_some_and(|(_, r)| dataset_file(r));
                if keep {
                    write_bytes(root, &format!("{id}/{rel}"), bytes)?;
                }
            }
        }
        Kind::Harness(_) => {
            for (rel, bytes) in ev.files() {
                if dataset_file(rel) {
                    write_bytes(root, &format!("{id}/niccs/{id}/{rel}"), bytes)?;
                }
            }
        }
    }
    Ok(())
}

/// Navigation links: (text, relative link).
fn nav(links: &[(&str, &str)]) -> Vec<(String, String)> {
    links
        .iter()
        .map(|&(text, link)| (text.to_string(), link.to_string()))
        .collect()
}

fn page_html(markdown: &str, svgs: &[(String, String)], nav: &[(String, String)]) -> String {
    let title = html::title_of(markdown).unwrap_or_else(|| "Pavelor measurements".into());
    html::render(&Page {
        title: &title,
        markdown,
        svgs,
        nav,
    })
}

/// Writes every page of `systems` into `root`, and the evidence each
/// system's pages link to (`evidence`, in the same order).
fn render_into(
    root: &Path,
    systems: &[System],
    evidence: &[Evidence],
) -> Result<Vec<String>, String> {
    let mut written = Vec::new();
    let system_links = nav(&[
        ("All systems", "../index.html"),
        ("Every system", "../compare.html"),
        ("Summary", "index.html"),
        ("hash-22", pages::CANDIDATE_PAGE),
        ("Method", "method.html"),
        ("Full report", "report.html"),
    ]);
    let harness_links = nav(&[
        ("All systems", "../index.html"),
        ("Every system", "../compare.html"),
        ("Summary", "index.html"),
        ("hash-22", pages::CANDIDATE_PAGE),
        ("Method", "method.html"),
    ]);
    for (sys, ev) in systems.iter().zip(evidence) {
        if !is_system_id(&sys.id) {
            return Err(format!(
                "{}: the system id {:?} is not {SYSTEM_ID_RULE}",
                ev.root().display(),
                sys.id
            ));
        }
        let (summary, candidate, method) = match &sys.kind {
            Kind::Report { run, .. } => (
                pages::summary(systems, sys, run),
                pages::candidate(systems, sys, run),
                pages::method(systems, sys, run),
            ),
            Kind::Harness(h) => (
                harness_pages::summary(systems, sys, h),
                harness_pages::candidate(systems, sys, h)?,
                harness_pages::method(systems, sys, h),
            ),
        };
        let links = match sys.kind {
            Kind::Report { .. } => &system_links,
            Kind::Harness(_) => &harness_links,
        };
        for (file, markdown) in [
            ("index.html", summary),
            (pages::CANDIDATE_PAGE, candidate),
            ("method.html", method),
        ] {
            write(
                root,
                &format!("{}/{file}", sys.id),
                &page_html(&markdown, &[], links),
                &mut written,
            )?;
        }
        copy_evidence(root, sys, ev)?;
        if matches!(sys.kind, Kind::Report { .. }) {
            written.push(format!("{}/report.html", sys.id));
        }
    }
    let (cmp, charts) = compare::page(systems);
    let inline: Vec<(String, String)> = charts
        .into_iter()
        .map(|(name, svg)| (format!("./{name}"), svg))
        .collect();
    let top = nav(&[
        ("All systems", "index.html"),
        ("Every system", "compare.html"),
    ]);
    write(
        root,
        "compare.html",
        &page_html(&cmp, &inline, &top),
        &mut written,
    )?;
    let (index_md, index_chart) = index::page(systems);
    write(
        root,
        "index.html",
        &page_html(
            &index_md,
            &[(format!("./{}", index::CHART), index_chart)],
            &top,
        ),
        &mut written,
    )?;
    let ids: Vec<&str> = systems.iter().map(|s| s.id.as_str()).collect();
    write_bytes(
        root,
        MARKER,
        format!(
            "made by pavelor site {}: {}\n",
            env!("CARGO_PKG_VERSION"),
            ids.join(" ")
        )
        .as_bytes(),
    )?;
    Ok(written)
}

/// Reads every run with the reading `limits` (a report directory, or a
/// harness dataset: a directory holding `campaign.json`), checks it, and
/// merges them into the site `out`. Each error is one line naming the run
/// or file it is about.
pub fn build(out: &Path, runs: &[PathBuf], limits: &Limits) -> Result<Built, String> {
    if runs.is_empty() {
        return Err("no run directory given".into());
    }
    let target = check_output(out, runs)?;
    let mut systems: Vec<System> = Vec::new();
    let mut evidence = Vec::new();
    let mut seen = BTreeSet::new();
    for dir in runs {
        let (sys, ev) = if is_harness_dataset(dir) {
            let h = HarnessRun::check(dir, limits)
                .map_err(|e| format!("refusing the harness dataset: {e}"))?;
            let ev = h.evidence.clone();
            let sys = System {
                id: h.system_id().to_string(),
                kind: Kind::Harness(Box::new(h)),
            };
            (sys, ev)
        } else {
            let checked = check_run(dir, limits).map_err(|e| format!("refusing the run: {e}"))?;
            if !checked.evidence.contains("report.html") {
                return Err(format!("{}: no report.html", dir.display()));
            }
            let sys = System {
                id: checked.run.config.system_id.clone(),
                kind: Kind::Report {
                    dir: dir.clone(),
                    run: Box::new(checked.run),
                },
            };
            (sys, checked.evidence)
        };
        if !seen.insert(sys.id.clone()) {
            return Err(format!(
                "{}: system id '{}' is already another run's; give each machine its own (pavelor report --system-id)",
                dir.display(),
                sys.id
            ));
        }
        systems.push(sys);
        evidence.push(ev);
    }
    let parent = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = parent.join(format!(".{name}.pavelor-site-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let result = render_into(&staging, &systems, &evidence);
    let pages = match result {
        Ok(p) => p,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    // Swap the new site in; an old one is removed only after that.
    let old = parent.join(format!(".{name}.pavelor-site-old-{}", std::process::id()));
    if target.exists() {
        std::fs::rename(&target, &old).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    if let Err(e) = std::fs::rename(&staging, &target) {
        let _ = std::fs::rename(&old, &target);
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!("{}: {e}", target.display()));
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(Built {
        systems: systems.into_iter().map(|s| s.id).collect(),
        pages,
    })
}
