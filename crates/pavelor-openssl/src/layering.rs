//! Test that the module graph is the layering `lib.rs` states: each
//! module names (`crate::...`) only itself and modules listed before it.

/// The modules in their order, each with its source.
const MODULES: [(&str, &str); 10] = [
    ("abi", include_str!("abi.rs")),
    ("names", include_str!("names.rs")),
    ("reason", include_str!("reason.rs")),
    ("params", include_str!("params.rs")),
    ("provctx", include_str!("provctx.rs")),
    ("boundary", include_str!("boundary.rs")),
    ("digest", include_str!("digest.rs")),
    ("mac", include_str!("mac.rs")),
    ("dispatch", include_str!("dispatch.rs")),
    ("provider", include_str!("provider.rs")),
];

/// The crate modules `source` uses in code (`use crate::m` or a
/// `crate::m::` path; doc comments are not code).
fn used_modules(source: &str) -> Vec<&str> {
    let mut used = Vec::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            used.push(&rest[..end]);
        }
    }
    used
}

#[test]
fn each_module_uses_only_the_ones_before_it() {
    let lib = include_str!("lib.rs");
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            let l = l.trim_start_matches("pub ");
            l.strip_prefix("mod ")?.strip_suffix(';')
        })
        .filter(|m| *m != "layering")
        .collect();
    let order: Vec<&str> = MODULES.iter().map(|(m, _)| *m).collect();
    assert_eq!(declared, order, "lib.rs declares the modules in this order");
    for (at, (module, source)) in MODULES.iter().enumerate() {
        for used in used_modules(source) {
            let Some(pos) = order.iter().position(|m| *m == used) else {
                continue; // an item of lib.rs itself, e.g. `crate::EVP_MAX_MD_SIZE`
            };
            assert!(
                pos <= at,
                "{module} uses {used}, which is not listed before it"
            );
        }
    }
}
