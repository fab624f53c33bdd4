//! The documentation pages that describe the tree must stay in step with it.
//!
//! * `docs/architecture.md`: every path it names in backticks exists, and
//!   it names every crate directory under `crates/` and every top-level
//!   module (each entry of `src/`) of every crate it lists module by module.
//! * `README.md`: a front door of at most 12,000 bytes that holds the two
//!   commands CI runs, exactly as CI runs them.

#![allow(clippy::unwrap_used, clippy::panic)] // tests fail loudly

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The roots whose paths the architecture page must spell correctly.
const CHECKED_ROOTS: &[&str] = &[
    "crates/",
    "xtask/",
    "python/",
    "scripts/",
    "docs/",
    "fuzz/",
    "test-vectors/",
];

/// The directories that hold a crate with a `src/` the page may list.
/// `crates/*` is added by listing `crates/`.
const OTHER_CRATES: &[&str] = &["xtask", "python", "fuzz"];

const README_LIMIT: usize = 12_000;

/// The two commands of the README's Quick start; `.ci/run` runs them as
/// written.
const README_COMMANDS: &[&str] = &[
    "cargo build --release && ./target/release/pavelor report",
    "cargo test --workspace",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(relative: &str) -> String {
    let path = root().join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The contents of every inline code span of a Markdown text, outside
/// fenced code blocks.
fn code_spans(markdown: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            let after = &rest[start + 1..];
            let Some(end) = after.find('`') else { break };
            spans.push(after[..end].to_string());
            rest = &after[end + 1..];
        }
    }
    spans
}

/// The code spans of the page that name a path under one of the checked
/// roots, without a trailing `/`.
fn named_paths(page: &str) -> BTreeSet<String> {
    code_spans(page)
        .into_iter()
        .filter(|s| CHECKED_ROOTS.iter().any(|r| s.starts_with(r)))
        .map(|s| s.trim_end_matches('/').to_string())
        .collect()
}

/// The entries of a directory, sorted, as names.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every crate directory of the workspace, relative to the root.
fn crate_dirs() -> Vec<String> {
    let mut dirs: Vec<String> = entries(&root().join("crates"))
        .into_iter()
        .map(|name| format!("crates/{name}"))
        .filter(|dir| root().join(dir).is_dir())
        .collect();
    dirs.extend(OTHER_CRATES.iter().map(|d| (*d).to_string()));
    dirs
}

/// `paths` as a failure message lists them: each in backticks with
/// `suffix` after it, comma-separated.
fn backticked(paths: &[impl std::fmt::Display], suffix: &str) -> String {
    paths
        .iter()
        .map(|p| format!("`{p}{suffix}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn every_path_on_the_architecture_page_exists() {
    let page = read("docs/architecture.md");
    let named = named_paths(&page);
    assert!(!named.is_empty(), "docs/architecture.md names no path");
    let missing: Vec<&String> = named.iter().filter(|p| !root().join(p).exists()).collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md names paths that do not exist: {}",
        backticked(&missing, "")
    );
}

#[test]
fn the_architecture_page_names_every_crate() {
    let named = named_paths(&read("docs/architecture.md"));
    let missing: Vec<String> = crate_dirs()
        .into_iter()
        .filter(|dir| dir.starts_with("crates/") && !named.contains(dir))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md does not name these crate directories: {}",
        backticked(&missing, "/")
    );
}

#[test]
fn the_architecture_page_names_every_module_of_the_crates_it_lists() {
    let named = named_paths(&read("docs/architecture.md"));
    let mut listed = 0;
    let mut missing = Vec::new();
    for dir in crate_dirs() {
        let src = format!("{dir}/src");
        let prefix = format!("{src}/");
        if !named.iter().any(|p| p.starts_with(&prefix)) {
            continue; // listed as a crate only, or not at all
        }
        listed += 1;
        for entry in entries(&root().join(&src)) {
            let module = format!("{src}/{entry}");
            if !named.contains(&module) {
                missing.push(module);
            }
        }
    }
    assert!(listed > 0, "docs/architecture.md lists no crate's modules");
    assert!(
        missing.is_empty(),
        "docs/architecture.md lists these crates' modules but not: {}",
        backticked(&missing, "")
    );
}

#[test]
fn the_readme_is_a_front_door_with_the_two_commands() {
    let readme = read("README.md");
    assert!(
        readme.len() <= README_LIMIT,
        "README.md is {} bytes, more than {README_LIMIT}: move the detail to docs/",
        readme.len()
    );
    for command in README_COMMANDS {
        assert!(
            readme.lines().any(|line| line == *command),
            "README.md lacks the line `{command}` (CI runs it as written)"
        );
    }
}
