//! Section 5: resource consumption — static memory of the code that hashes,
//! baseline and peak RSS of the worker that measured it.

use pavelor_pages::html::{markdown_code, markdown_literal};
use std::fmt::Write as _;

use crate::rows::{Ctx, Family, fmt_opt};

/// Section 5.
pub fn write(s: &mut String, ctx: &Ctx<'_>) {
    let c = ctx.c;
    let config = ctx.config;
    let _ = writeln!(
        s,
        "## 12. Resources of every implementation (beyond the guide)\n"
    );
    if let Some(st) = &c.static_size {
        let _ = writeln!(
            s,
            "Static memory of the measuring executable {}: {} bytes of loadable ELF segments (the whole program: hashing code, command-line tool, comparison hashes, Rust runtime); of these, {} bytes in {} symbols belong to the `pavelor` crate (all backends' code and constants). Evidence: `records/static-size.json`.\n",
            markdown_code(&config.measured_exe.display().to_string()),
            st.loadable_bytes,
            st.pavelor_symbol_bytes,
            st.pavelor_symbols
        );
    }
    if !c.libs.is_empty() {
        let _ = writeln!(
            s,
            "Static memory of a C library = the sum of the memory sizes of its `PT_LOAD` segments (`readelf -lW`), read from the file (evidence: `records/library-NAME.json`). Its RSS figures come from the worker that loaded it: our worker program plus the library.\n"
        );
    }
    let _ = writeln!(
        s,
        "| instance | implementation | static memory | counted | baseline RSS | peak RSS (VmHWM) |\n|---|---|---:|---|---:|---:|"
    );
    for row in ctx
        .rows
        .iter()
        .filter(|r| matches!(r.family, Family::Rust | Family::CLibrary))
    {
        let (bytes, what) = row
            .static_memory
            .as_ref()
            .map_or(("unknown".to_string(), ""), |(b, w)| {
                (format!("{b} B"), w.as_str())
            });
        let _ = writeln!(
            s,
            "| {} | {} | {bytes} | {} | {} | {} |",
            row.subject.algorithm().map_or("–", |a| a.name()),
            markdown_literal(&row.name()),
            markdown_literal(what),
            fmt_opt(row.baseline_rss_kib(), " KiB"),
            fmt_opt(row.peak_rss_kib(), " KiB")
        );
    }
    let _ = writeln!(
        s,
        "\nBoth memory figures are upper-bound proxies: RSS counts the whole measuring process (runtime, message buffer of up to 64 KiB, libraries), not only the hash state (320-byte state plus one rate block). The maxima over every message length's trials are shown; per-trial values are in the records.\n"
    );
}
