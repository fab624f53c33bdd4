//! The worker protocol (`protocol`) and the measuring leaves depend on
//! nothing that depends on them. Reading every source file, a `crate::m`
//! path outside comments (each name of a `crate::{a, b::c}` group too) is
//! an edge from the file's top-level module to `m`; a top-level module is
//! `src/m.rs` or `src/m/` alike.
//!
//! That the top-level modules have no cycle at all is checked for every
//! crate of the workspace by `xtask/tests/module_graph.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The first path segment after each `crate::` in `code`, every name of a
/// `crate::{a, b::{c}}` group included (`a`, `b`).
fn named_after_crate(code: &str) -> Vec<String> {
    let name = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            out.push(name(rest));
            continue;
        };
        // The items of the group at its own depth.
        let mut depth = 0usize;
        out.push(name(group));
        for (j, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => out.push(name(&group[j + 1..])),
                _ => {}
            }
        }
    }
    out.retain(|n| !n.is_empty() && n != "self");
    out
}

/// `top-level module → modules it names`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
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
                for name in named_after_crate(code) {
                    if name != top {
                        deps.insert(name);
                    }
                }
            }
        }
    }
    g
}

#[test]
fn groups_name_each_item() {
    assert_eq!(
        named_after_crate("use crate::{a, b::{c, d}, e}; crate::f::g(); use crate::{self};"),
        ["a", "b", "e", "f"]
    );
}

#[test]
fn the_worker_protocol_is_a_leaf() {
    let g = graph();
    for m in ["protocol", "worker", "campaign", "library", "isolate"] {
        assert!(g.contains_key(m), "no module {m}: {:?}", g.keys());
    }
    let protocol = &g["protocol"];
    assert!(
        protocol.iter().all(|d| d == "clock" || d == "hw"),
        "protocol depends on {protocol:?}"
    );
    for leaf in ["isolate", "cabi", "clock", "hw", "aes_probe"] {
        for d in &g[leaf] {
            assert!(
                !["worker", "campaign", "report", "library"].contains(&d.as_str()),
                "{leaf} depends on {d}"
            );
        }
    }
}
