//! Section 7: the raw evidence index.

use std::fmt::Write as _;

use pavelor_pages::html::{markdown_code, markdown_dest, markdown_literal};

use crate::record_files::{library_record_name, record_name};
use crate::rows::Ctx;

/// Section 7.
pub fn write(s: &mut String, ctx: &Ctx<'_>) {
    let c = ctx.c;
    let _ = writeln!(s, "## 13. pavelor's records (beyond the guide)\n");
    let _ = writeln!(s, "| figure | record |\n|---|---|");
    for row in &ctx.rows {
        for m in &row.measurements {
            let _ = writeln!(
                s,
                "| {}, {} B | [{}](./{}) |",
                markdown_literal(&row.subject.to_string()),
                m.size,
                markdown_code(&record_name(m)),
                markdown_dest(&record_name(m))
            );
        }
    }
    for g in &c.libs {
        let name = library_record_name(&g.spec.name);
        let _ = writeln!(
            s,
            "| library {}: identity, probe, KATs, bad input | [{}](./{}) |",
            markdown_code(&g.spec.name),
            markdown_code(&name),
            markdown_dest(&name)
        );
    }
    if !c.failures.is_empty() {
        let _ = writeln!(
            s,
            "| figures that could not be measured | [`records/failures.json`](./records/failures.json) |"
        );
    }
    let _ = writeln!(
        s,
        "| functional tests | [`records/kat.json`](./records/kat.json) |"
    );
    let _ = writeln!(
        s,
        "| environment | [`records/environment.json`](./records/environment.json) |"
    );
    if c.probe.is_some() {
        let _ = writeln!(
            s,
            "| AES-round throughput probe | [`records/aes-probe.json`](./records/aes-probe.json) |"
        );
    }
    if c.static_size.is_some() {
        let _ = writeln!(
            s,
            "| static memory | [`records/static-size.json`](./records/static-size.json) |"
        );
    }
}
