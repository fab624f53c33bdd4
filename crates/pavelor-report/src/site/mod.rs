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
use std::path::{Path, PathBuf};

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

/// Copies the regular files under `from` into `to`, refusing anything
/// else (a link could point anywhere).
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for e in entries {
        let e = e.map_err(|e| format!("{}: {e}", from.display()))?;
        let kind = e
            .file_type()
            .map_err(|err| format!("{}: {err}", e.path().display()))?;
        let dest = to.join(e.file_name());
        if kind.is_dir() {
            copy_tree(&e.path(), &dest)?;
        } else if kind.is_file() {
            std::fs::copy(e.path(), &dest)
                .map_err(|err| format!("{}: {err}", e.path().display()))?;
        } else {
            return Err(format!(
                "{}: not a regular file or directory; a run directory holds none",
                e.path().display()
            ));
        }
    }
    Ok(())
}

fn write(root: &Path, rel: &str, text: &str, pages: &mut Vec<String>) -> Result<(), String> {
    let path = root.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    pages.push(rel.to_string());
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

/// Writes every page of `systems` into `root`.
fn render_into(root: &Path, systems: &[System]) -> Result<Vec<String>, String> {
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
    for sys in systems {
        let dir = root.join(&sys.id);
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
        match &sys.kind {
            Kind::Report { dir: run_dir, .. } => {
                // The run's own page, byte for byte as its check found it.
                std::fs::copy(run_dir.join("report.html"), dir.join("report.html"))
                    .map_err(|e| format!("{}: {e}", run_dir.join("report.html").display()))?;
                written.push(format!("{}/report.html", sys.id));
                copy_tree(&run_dir.join("records"), &dir.join("records"))?;
                copy_tree(&run_dir.join("niccs"), &dir.join("niccs"))?;
            }
            Kind::Harness(h) => {
                copy_tree(&h.dir, &dir.join("niccs").join(&sys.id))?;
            }
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
    std::fs::write(
        root.join(MARKER),
        format!(
            "made by pavelor site {}: {}\n",
            env!("CARGO_PKG_VERSION"),
            ids.join(" ")
        ),
    )
    .map_err(|e| format!("{}: {e}", root.join(MARKER).display()))?;
    Ok(written)
}

/// Checks every run (a report directory, or a harness dataset: a directory
/// holding `campaign.json`) and merges them into the site `out`. Each error
/// is one line naming the run or file it is about.
pub fn build(out: &Path, runs: &[PathBuf]) -> Result<Built, String> {
    if runs.is_empty() {
        return Err("no run directory given".into());
    }
    let target = check_output(out, runs)?;
    let mut systems: Vec<System> = Vec::new();
    let mut seen = BTreeSet::new();
    for dir in runs {
        let sys = if is_harness_dataset(dir) {
            let h =
                HarnessRun::check(dir).map_err(|e| format!("refusing the harness dataset: {e}"))?;
            System {
                id: h.system_id().to_string(),
                kind: Kind::Harness(Box::new(h)),
            }
        } else {
            let checked = check_run(dir).map_err(|e| format!("refusing the run: {e}"))?;
            if !dir.join("report.html").is_file() {
                return Err(format!("{}: no report.html", dir.display()));
            }
            System {
                id: checked.run.config.system_id.clone(),
                kind: Kind::Report {
                    dir: dir.clone(),
                    run: Box::new(checked.run),
                },
            }
        };
        if !seen.insert(sys.id.clone()) {
            return Err(format!(
                "{}: system id '{}' is already another run's; give each machine its own (pavelor report --system-id)",
                dir.display(),
                sys.id
            ));
        }
        systems.push(sys);
    }
    let parent = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = parent.join(format!(".{name}.pavelor-site-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let result = render_into(&staging, &systems);
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
