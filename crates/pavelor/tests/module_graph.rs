//! The crate is a stack: each top-level module uses only the layers below
//! it. Reading every source file, a `crate::m` path outside comments is an
//! edge from the file's top-level module to `m` (a root re-export such as
//! `crate::Error` counts as an edge to the module it re-exports); every
//! edge must go to a lower layer, and `definition` uses nothing but itself.
//! Inside `backend/`, the kernel files, the shared bodies and the layout
//! never use the dispatch of `backend/mod.rs`, and have no cycle either.

#![allow(clippy::panic)] // tests may fail loudly

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first; modules in one layer do not use each other.
const LAYERS: &[&[&str]] = &[
    &["definition"],
    &["backend_name"],
    &["error", "wipe"],
    &["backend"],
    &["sponge"],
    &["core_api"],
    &["hasher"],
    &["dynamic", "hazmat", "serialized"],
    &["batch", "io"],
];

fn layer(m: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| l.contains(&m))
        .unwrap_or_else(|| panic!("module {m} is in no layer of this test"))
}

/// `name re-exported at the root → the top-level module it comes from`.
fn root_exports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in lib.lines().filter(|l| l.starts_with("pub use ")) {
        let path = line.trim_start_matches("pub use ").trim_end_matches(';');
        let top = path.split("::").next().unwrap_or("").to_string();
        let items = path.rsplit("::").next().unwrap_or("");
        for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let item = item.trim();
            if !item.is_empty() && item != "self" {
                out.insert(item.to_string(), top.clone());
            }
        }
    }
    out
}

/// The first path segment after each `prefix` in `code`, every name of a
/// `prefix{a, b::c}` group included (`a`, `b`).
fn named_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            out.extend(
                inner
                    .split(',')
                    .map(|s| s.trim().split("::").next().unwrap_or("").to_string()),
            );
        } else {
            out.push(
                rest.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect(),
            );
        }
    }
    out.retain(|n| !n.is_empty() && n != "*");
    out
}

/// `top-level module → modules it uses`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let exports = root_exports(&std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(&src).expect("under src");
            if path.extension().is_none_or(|e| e != "rs") || rel == Path::new("lib.rs") {
                continue;
            }
            let top = rel
                .components()
                .next()
                .and_then(|c| c.as_os_str().to_str())
                .expect("name")
                .trim_end_matches(".rs")
                .to_string();
            let text = std::fs::read_to_string(&path).expect("read");
            let deps = g.entry(top.clone()).or_default();
            for line in text.lines() {
                let code = line.split("//").next().unwrap_or("");
                for name in named_after(code, "crate::") {
                    let module = exports.get(&name).cloned().unwrap_or(name);
                    if module != top {
                        deps.insert(module);
                    }
                }
            }
        }
    }
    g
}

#[test]
fn every_module_uses_only_lower_layers() {
    let g = graph();
    for required in ["definition", "backend", "sponge", "hasher", "batch"] {
        assert!(g.contains_key(required), "no module {required}");
    }
    for (m, deps) in &g {
        for d in deps {
            assert!(
                layer(d) < layer(m),
                "{m} (layer {}) uses {d} (layer {})",
                layer(m),
                layer(d)
            );
        }
    }
    assert!(
        g["definition"].is_empty(),
        "definition uses {:?}",
        g["definition"]
    );
}

#[test]
fn unsafe_code_is_confined_to_the_backends_and_wipe() {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs"))
        .expect("lib.rs");
    assert!(lib.contains("#![deny(unsafe_code)]"));
    let mut allowed: Vec<&str> = lib
        .lines()
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0].trim() == "#[allow(unsafe_code)]")
        .map(|w| w[1].trim())
        .collect();
    allowed.sort_unstable();
    assert_eq!(allowed, ["mod backend;", "mod wipe;"]);
}

/// Inside `backend/`: `submodule → submodules it uses`, where `mod` is
/// `backend/mod.rs` (the dispatch and `Available`).
fn backend_graph() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/backend");
    let mut subs: BTreeSet<String> = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).expect("read backend") {
        let name = entry
            .expect("entry")
            .file_name()
            .into_string()
            .expect("utf-8");
        if name != "mod.rs" {
            subs.insert(name.trim_end_matches(".rs").to_string());
        }
    }
    let resolve = |name: &str| {
        if subs.contains(name) {
            name.to_string()
        } else {
            "mod".to_string()
        }
    };
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(&dir).expect("under backend");
            let node = match rel.components().count() {
                1 if rel == Path::new("mod.rs") => "mod".to_string(),
                _ => rel
                    .components()
                    .next()
                    .and_then(|c| c.as_os_str().to_str())
                    .expect("name")
                    .trim_end_matches(".rs")
                    .to_string(),
            };
            // `super::` names the backend module only from its direct files.
            let direct = rel.components().count() == 1;
            let text = std::fs::read_to_string(&path).expect("read");
            let deps = g.entry(node.clone()).or_default();
            for line in text.lines() {
                let code = line.split("//").next().unwrap_or("");
                let mut prefixes = vec!["crate::backend::"];
                if direct {
                    prefixes.push("super::");
                }
                for prefix in prefixes {
                    for n in named_after(code, prefix) {
                        let target = resolve(&n);
                        if target != node {
                            deps.insert(target);
                        }
                    }
                }
            }
        }
    }
    g
}

/// A path from `from` back to itself, if there is one.
fn cycle(
    g: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    at: &str,
    path: &mut Vec<String>,
    seen: &mut BTreeSet<String>,
) -> bool {
    for next in g.get(at).into_iter().flatten() {
        path.push(next.clone());
        if next == from || (seen.insert(next.clone()) && cycle(g, from, next, path, seen)) {
            return true;
        }
        path.pop();
    }
    false
}

#[test]
fn the_backend_modules_form_no_cycle() {
    let g = backend_graph();
    for required in ["mod", "kernel", "layout", "portable", "x86"] {
        assert!(
            g.contains_key(required),
            "no backend module {required}: {g:?}"
        );
    }
    for (m, deps) in &g {
        assert!(
            m == "mod" || !deps.contains("mod"),
            "backend/{m} uses backend/mod.rs (the dispatch): {deps:?}"
        );
        let mut path = vec![m.clone()];
        let found = cycle(&g, m, m, &mut path, &mut BTreeSet::new());
        assert!(!found, "backend module cycle: {}", path.join(" -> "));
    }
    assert!(g["layout"].is_empty(), "layout uses {:?}", g["layout"]);
}
