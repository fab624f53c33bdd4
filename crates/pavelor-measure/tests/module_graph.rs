//! The crate's top-level modules form an acyclic graph: reading every
//! source file, a `crate::m` path outside comments is an edge from the
//! file's top-level module to `m`, and no module may reach itself. The
//! worker protocol (`protocol`) and the measuring leaves depend on nothing
//! that depends on them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).expect("under src");
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
                for (i, _) in code.match_indices("crate::") {
                    let name: String = code[i + 7..]
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                        .collect();
                    if !name.is_empty() && name != top {
                        deps.insert(name);
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
        if next == from {
            return true;
        }
        if seen.insert(next.clone()) && cycle(g, from, next, path, seen) {
            return true;
        }
        path.pop();
    }
    false
}

#[test]
fn top_level_modules_have_no_cycle() {
    let g = graph();
    assert!(g.contains_key("worker") && g.contains_key("campaign"));
    for m in g.keys() {
        let mut path = vec![m.clone()];
        let found = cycle(&g, m, m, &mut path, &mut BTreeSet::new());
        assert!(!found, "module cycle: {}", path.join(" -> "));
    }
}

#[test]
fn the_worker_protocol_is_a_leaf() {
    let g = graph();
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
