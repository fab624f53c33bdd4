//! The CLI's lint level for `unsafe_code` is `deny`, not `forbid`, only
//! because the `ctor` crate's expansion (src/std_fds.rs) allows it in the
//! items it generates. This test keeps that the one exception: no source
//! file of the crate writes `unsafe` outside that attribute.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The line without its `//` comment (the CLI's sources have no `//` in
/// string literals on lines that also say `unsafe`; a false hit fails
/// loudly, never silently).
fn code_part(line: &str) -> &str {
    line.split_once("//").map_or(line, |(code, _)| code)
}

#[test]
fn no_unsafe_outside_the_startup_constructor() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 5, "sources not found under {}", src.display());
    let mut constructors = 0;
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = code_part(line).trim();
            if code == "#[ctor::ctor(unsafe)]" {
                assert!(file.ends_with("std_fds.rs"), "{}:{}", file.display(), n + 1);
                constructors += 1;
            } else {
                assert!(
                    !code.contains("unsafe"),
                    "{}:{}: {line}",
                    file.display(),
                    n + 1
                );
            }
        }
    }
    assert_eq!(constructors, 1);
}
