//! `pavelor site`: report directories from several machines, and datasets
//! the NICCS harness published, merged into one static site, as the NICCS
//! site presents the harness's runs.
//!
//! ```text
//! SITE/index.html, compare.html   the site's own pages
//! SITE/<id>/…                     a system's pages
//! SITE/<id>/records/, niccs/      the run's evidence, which the pages link to
//! ```
//!
//! The pages, their navigation and how each is made are one table each
//! (`TOP_PAGES`, `SYSTEM_PAGES`); the file names are in [`pages`].
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
//! Every page is self-contained HTML ([`pavelor_pages::html`]) and every link is
//! relative, so the site works from `file://` and from any web server.

#![forbid(unsafe_code)]

pub mod compare;
mod error;
mod harness_pages;
pub mod index;
pub mod pages;
pub mod sweep;
pub mod system;

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use pavelor_niccs::evidence::{Evidence, Limits, is_system_id};

use crate::harness_run::{HarnessRun, is_harness_dataset};
use crate::reload::check_run;
pub use error::Error;
use pages::{COMPARE_PAGE, INDEX_PAGE, METHOD_PAGE, REPORT_PAGE, SUMMARY_PAGE};
use pavelor_pages::html::{self, Page};
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
fn check_output(out: &Path, runs: &[PathBuf]) -> Result<PathBuf, Error> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let parent = parent.canonicalize().map_err(|source| Error::Resolve {
        path: parent.clone(),
        source,
    })?;
    let name = out.file_name().ok_or_else(|| Error::NotADirectoryName {
        out: out.to_path_buf(),
    })?;
    let target = parent.join(name);
    if target.exists() {
        if !target.is_dir() {
            return Err(Error::NotADirectory {
                out: out.to_path_buf(),
            });
        }
        let empty = std::fs::read_dir(&target)
            .map_err(|source| Error::ReadOutput {
                out: out.to_path_buf(),
                source,
            })?
            .next()
            .is_none();
        if !empty && !target.join(MARKER).is_file() {
            return Err(Error::NotASite {
                out: out.to_path_buf(),
            });
        }
    }
    for run in runs {
        let run = run.canonicalize().map_err(|source| Error::Resolve {
            path: run.clone(),
            source,
        })?;
        if target.starts_with(&run) || run.starts_with(&target) {
            return Err(Error::Nested {
                out: out.to_path_buf(),
            });
        }
    }
    Ok(target)
}

/// The path of `rel` (a `/`-separated path made of plain names) under
/// `root`; anything else is refused, so nothing is written outside the
/// site.
fn under(root: &Path, rel: &str) -> Result<PathBuf, Error> {
    let plain = !rel.is_empty()
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains(['\\', '\0']));
    let path = root.join(rel);
    let inside = path
        .strip_prefix(root)
        .is_ok_and(|p| p.components().all(|c| matches!(c, Component::Normal(_))));
    if !(plain && inside) {
        return Err(Error::NotPlainPath {
            rel: rel.to_string(),
        });
    }
    Ok(path)
}

fn write_bytes(root: &Path, rel: &str, bytes: &[u8]) -> Result<(), Error> {
    let path = under(root, rel)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| Error::CreateDir {
            dir: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(&path, bytes).map_err(|source| Error::WriteFile { path, source })
}

fn write(root: &Path, rel: &str, text: &str, pages: &mut Vec<String>) -> Result<(), Error> {
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
fn copy_evidence(root: &Path, sys: &System, ev: &Evidence) -> Result<(), Error> {
    let id = &sys.id;
    match &sys.kind {
        Kind::Report { .. } => {
            for (rel, bytes) in ev.files() {
                let keep = rel == REPORT_PAGE
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

/// How a page of a system's folder is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Made {
    /// The summary ([`pages::summary`] or its harness form).
    Summary,
    /// The `hash-22` page in the NICCS layout.
    Candidate,
    /// How the run measured, and the machine.
    Method,
    /// The run's own `report.html`, copied with its evidence (report
    /// directories only).
    Copied,
}

/// A page of the site: its file name, relative to its folder, and its
/// label in the navigation.
struct SitePage {
    file: &'static str,
    nav: &'static str,
}

/// The site's own pages, at its top, in the order of the navigation.
const TOP_PAGES: [SitePage; 3] = [
    SitePage {
        file: INDEX_PAGE,
        nav: "All systems",
    },
    SitePage {
        file: COMPARE_PAGE,
        nav: "Every system",
    },
    SitePage {
        file: sweep::SWEEP_PAGE,
        nav: "Every length",
    },
];

/// The pages of a system's folder, in the order of the navigation, and
/// how each is made.
const SYSTEM_PAGES: [(SitePage, Made); 4] = [
    (
        SitePage {
            file: SUMMARY_PAGE,
            nav: "Summary",
        },
        Made::Summary,
    ),
    (
        SitePage {
            file: pages::CANDIDATE_PAGE,
            nav: "hash-22",
        },
        Made::Candidate,
    ),
    (
        SitePage {
            file: METHOD_PAGE,
            nav: "Method",
        },
        Made::Method,
    ),
    (
        SitePage {
            file: REPORT_PAGE,
            nav: "Full report",
        },
        Made::Copied,
    ),
];

/// The pages a system's folder has: a harness dataset has no report.
fn system_pages(sys: &System) -> impl Iterator<Item = &'static (SitePage, Made)> {
    let report = matches!(sys.kind, Kind::Report { .. });
    SYSTEM_PAGES
        .iter()
        .filter(move |(_, made)| report || *made != Made::Copied)
}

/// The navigation of the site's top pages: (text, relative link).
fn top_nav() -> Vec<(String, String)> {
    TOP_PAGES
        .iter()
        .map(|p| (p.nav.to_string(), p.file.to_string()))
        .collect()
}

/// The navigation of a system's pages: the site's top pages, one folder
/// up, then the system's own.
fn system_nav(sys: &System) -> Vec<(String, String)> {
    let top = TOP_PAGES
        .iter()
        .map(|p| (p.nav.to_string(), format!("../{}", p.file)));
    let own = system_pages(sys).map(|(p, _)| (p.nav.to_string(), p.file.to_string()));
    top.chain(own).collect()
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

/// The Markdown of `sys`'s page made as `made`; `None` for a copied page.
fn system_page(systems: &[System], sys: &System, made: Made) -> Result<Option<String>, Error> {
    let markdown = match (&sys.kind, made) {
        (_, Made::Copied) => return Ok(None),
        (Kind::Report { run, .. }, Made::Summary) => pages::summary(systems, sys, run),
        (Kind::Report { run, .. }, Made::Candidate) => pages::candidate(systems, sys, run),
        (Kind::Report { run, .. }, Made::Method) => pages::method(systems, sys, run),
        (Kind::Harness(h), Made::Summary) => harness_pages::summary(systems, sys, h),
        (Kind::Harness(h), Made::Candidate) => harness_pages::candidate(systems, sys, h)?,
        (Kind::Harness(h), Made::Method) => harness_pages::method(systems, sys, h),
    };
    Ok(Some(markdown))
}

/// Writes a system's pages and the evidence they link to.
fn render_system(
    root: &Path,
    systems: &[System],
    sys: &System,
    ev: &Evidence,
    written: &mut Vec<String>,
) -> Result<(), Error> {
    if !is_system_id(&sys.id) {
        return Err(Error::SystemId {
            root: ev.root().to_path_buf(),
            id: sys.id.clone(),
        });
    }
    let links = system_nav(sys);
    let mut copied = Vec::new();
    for (page, made) in system_pages(sys) {
        let rel = format!("{}/{}", sys.id, page.file);
        match system_page(systems, sys, *made)? {
            Some(markdown) => write(root, &rel, &page_html(&markdown, &[], &links), written)?,
            None => copied.push(rel),
        }
    }
    copy_evidence(root, sys, ev)?;
    written.extend(copied);
    Ok(())
}

/// Writes every page of `systems` into `root`, and the evidence each
/// system's pages link to (`evidence`, in the same order).
fn render_into(
    root: &Path,
    systems: &[System],
    evidence: &[Evidence],
) -> Result<Vec<String>, Error> {
    let mut written = Vec::new();
    for (sys, ev) in systems.iter().zip(evidence) {
        render_system(root, systems, sys, ev, &mut written)?;
    }
    let (cmp, charts) = compare::page(systems);
    let inline: Vec<(String, String)> = charts
        .into_iter()
        .map(|(name, svg)| (format!("./{name}"), svg))
        .collect();
    let top = top_nav();
    write(
        root,
        COMPARE_PAGE,
        &page_html(&cmp, &inline, &top),
        &mut written,
    )?;
    let (every, charts) = sweep::page(systems);
    let inline: Vec<(String, String)> = charts
        .into_iter()
        .map(|(name, svg)| (format!("./{name}"), svg))
        .collect();
    write(
        root,
        sweep::SWEEP_PAGE,
        &page_html(&every, &inline, &top),
        &mut written,
    )?;
    let (index_md, index_chart) = index::page(systems);
    write(
        root,
        INDEX_PAGE,
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
pub fn build(out: &Path, runs: &[PathBuf], limits: &Limits) -> Result<Built, Error> {
    if runs.is_empty() {
        return Err(Error::NoRuns);
    }
    let target = check_output(out, runs)?;
    let mut systems: Vec<System> = Vec::new();
    let mut evidence = Vec::new();
    let mut seen = BTreeSet::new();
    for dir in runs {
        let (sys, ev) = if is_harness_dataset(dir) {
            let h = HarnessRun::check(dir, limits).map_err(Error::HarnessRefused)?;
            let ev = h.evidence.clone();
            let sys = System {
                id: h.system_id().to_string(),
                kind: Kind::Harness(Box::new(h)),
            };
            (sys, ev)
        } else {
            let checked = check_run(dir, limits).map_err(Error::RunRefused)?;
            if !checked.evidence.contains(REPORT_PAGE) {
                return Err(Error::NoReportHtml { dir: dir.clone() });
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
            return Err(Error::DuplicateSystemId {
                dir: dir.clone(),
                id: sys.id,
            });
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
        std::fs::rename(&target, &old).map_err(|source| Error::Rename {
            target: target.clone(),
            source,
        })?;
    }
    if let Err(e) = std::fs::rename(&staging, &target) {
        let _ = std::fs::rename(&old, &target);
        let _ = std::fs::remove_dir_all(&staging);
        return Err(Error::Rename { target, source: e });
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(Built {
        systems: systems.into_iter().map(|s| s.id).collect(),
        pages,
    })
}
