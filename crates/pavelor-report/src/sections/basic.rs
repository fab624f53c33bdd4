//! Section 1: basic information, and the identity of every C library.

use std::fmt::Write as _;

use pavelor_pages::html::{markdown_code, markdown_literal};

use crate::rows::Ctx;
use pavelor_measure::ops::Operation;

/// Section 1.
pub fn write(s: &mut String, ctx: &Ctx<'_>) {
    let config = ctx.config;
    let backends: Vec<String> = ctx
        .c
        .environment
        .backends
        .iter()
        .map(|b| markdown_code(b))
        .collect();
    let _ = writeln!(
        s,
        "## 8. Every implementation measured (beyond the guide)\n"
    );
    let _ = writeln!(s, "| item | value |\n|---|---|");
    let _ = writeln!(s, "| category | cryptographic hash function |");
    let _ = writeln!(
        s,
        "| algorithm | Pavelor (NGCC Round 1 hash candidate hash-22) |"
    );
    let _ = writeln!(s, "| function | hash (one-shot `H(M)` per call) |");
    let _ = writeln!(
        s,
        "| implementations measured | pavelor {} (Rust), backends: {}{} |",
        env!("CARGO_PKG_VERSION"),
        backends.join(", "),
        if config.libs.is_empty() {
            String::new()
        } else {
            format!(
                "; C libraries through the ICCS `CryptHash` ABI: {}",
                config
                    .libs
                    .iter()
                    .map(|l| markdown_code(&l.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    let _ = writeln!(
        s,
        "| parameter sets | Pavelor-512 (r = 1536, c = 1024, h = 512), Pavelor-768 (r = 1024, c = 1536, h = 768), Pavelor-1024 (r = 512, c = 2048, h = 1024) |"
    );
    let _ = writeln!(
        s,
        "| comparison hashes (same run) | {} |\n",
        Operation::OTHERS
            .iter()
            .filter(|o| config.ops.contains(o))
            .map(|o| format!("{} ({})", o.algorithm_name(), o.implementation()))
            .collect::<Vec<_>>()
            .join("; ")
    );
    libraries(s, ctx);
}

/// The C libraries: what each file is (read without loading it).
fn libraries(s: &mut String, ctx: &Ctx<'_>) {
    if ctx.c.libs.is_empty() {
        return;
    }
    let _ = writeln!(s, "### C libraries (identity)\n");
    let _ = writeln!(
        s,
        "| name | path | size | SHA-256 | ELF build-id | exported symbols (dynamic symbol table) | `CryptHash_AlgorithmInstance()` |\n|---|---|---:|---|---|---|---|"
    );
    for g in &ctx.c.libs {
        let instance = g.probe.as_ref().map_or("not probed".to_string(), |p| {
            match (&p.instance_name, p.exports_instance_fn) {
                (Some(n), _) => markdown_code(n),
                (None, true) => "exported, returns NULL".into(),
                (None, false) => "not exported (lengths probed)".into(),
            }
        });
        match &g.identity {
            Some(id) => {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} B | {} | {} | {} | {instance} |",
                    markdown_code(&g.spec.name),
                    markdown_code(&id.path),
                    id.size,
                    markdown_code(&id.sha256),
                    id.build_id.as_deref().map_or("none".into(), markdown_code),
                    id.exported
                        .iter()
                        .map(|e| markdown_code(e))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "| {} | {} | – | – | – | – | {} |",
                    markdown_code(&g.spec.name),
                    markdown_code(&g.spec.path.display().to_string()),
                    markdown_literal(&g.detail)
                );
            }
        }
    }
    s.push('\n');
}
