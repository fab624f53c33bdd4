//! Size limits that keep the workspace readable:
//!
//! * no hand-written `.rs` file outside a `tests/` directory is over
//!   [`FILE_LIMIT`] lines (files in a `generated/` directory that start
//!   with an `@generated` header are exempt: `cargo xtask codegen --check`
//!   keeps those honest);
//! * no crate holds more than [`CRATE_LIMIT`] lines of non-test Rust, that
//!   is its `src/` without the items marked `#[cfg(test)]`.
//!
//! The counting of non-test lines is checked on small synthetic sources
//! first, so a limit cannot pass because the counter counts nothing.

#![allow(clippy::unwrap_used, clippy::panic)] // tests fail loudly

use std::fs;
use std::path::{Path, PathBuf};

const FILE_LIMIT: usize = 700;
const CRATE_LIMIT: usize = 8000;

/// The directories below the workspace root that hold a crate's `src/`.
const CRATE_PARENTS: &[&str] = &["crates"];
const OTHER_CRATES: &[&str] = &["xtask", "python", "fuzz"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

fn is_generated(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|line| line.starts_with("//") && line.contains("@generated"))
}

/// Replaces comments, string and character literals by spaces, keeping
/// the line breaks, so that braces can be counted.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0usize;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && raw_string_at(&chars, i) {
            let mut j = i + 1;
            let mut hashes = 0;
            while chars[j] == '#' {
                hashes += 1;
                j += 1;
            }
            // chars[j] is the opening quote.
            for _ in i..=j {
                out.push(' ');
            }
            i = j + 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += hashes + 1;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 3..chars.len().min(i + 12)).find(|&k| chars[k] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    for _ in i..=end {
                        out.push(' ');
                    }
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether a raw string literal (`r"`, `r#"`, ...) starts at `i`, and not
/// an identifier that ends in `r`.
fn raw_string_at(chars: &[char], i: usize) -> bool {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return false;
    }
    let mut j = i + 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    chars.get(j) == Some(&'"')
}

/// The number of lines of `text` outside the items marked `#[cfg(test)]`.
fn non_test_lines(text: &str) -> usize {
    let code = code_only(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut count = 0;
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("#[cfg(test)]") {
            i = end_of_item(&lines, i) + 1;
        } else {
            count += 1;
            i += 1;
        }
    }
    count
}

/// The index of the last line of the item whose attribute is on line
/// `start`: the line where its braces close, or where it ends with `;`
/// before any brace opens.
fn end_of_item(lines: &[&str], start: usize) -> usize {
    let mut depth = 0usize;
    let mut opened = false;
    for (index, line) in lines.iter().enumerate().skip(start) {
        let text = if index == start {
            line.trim_start().trim_start_matches("#[cfg(test)]")
        } else {
            line
        };
        for c in text.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    if opened && depth == 0 {
                        return index;
                    }
                }
                ';' if !opened => return index,
                _ => {}
            }
        }
    }
    lines.len() - 1
}

fn crate_dirs() -> Vec<PathBuf> {
    let root = root();
    let mut dirs: Vec<PathBuf> = OTHER_CRATES.iter().map(|d| root.join(d)).collect();
    for parent in CRATE_PARENTS {
        for entry in fs::read_dir(root.join(parent)).unwrap() {
            let path = entry.unwrap().path();
            if path.join("Cargo.toml").is_file() {
                dirs.push(path);
            }
        }
    }
    dirs.sort();
    dirs
}

#[test]
fn the_counter_skips_test_items_and_only_them() {
    let source = "\
fn a() {}
#[cfg(test)]
mod tests {
    #[test]
    fn t() { let s = \"}\"; let c = '}'; let q = '\\''; let e = '\\u{7d}'; let r = r#\"{\"#; }
    // } a brace in a comment
}
fn b<'a>(x: &'a str) -> &'a str { x }
#[cfg(test)]
mod more;
/* { */ fn c() {}
";
    assert_eq!(non_test_lines(source), 3);
    assert_eq!(non_test_lines("fn a() {}\nfn b() {}\n"), 2);
    assert_eq!(
        non_test_lines("#[cfg(test)]\nfn helper() -> u8 {\n    1\n}\nfn kept() {}\n"),
        1
    );
    assert!(is_generated(
        "// @generated by x: do not edit.\nfn a() {}\n"
    ));
    assert!(!is_generated("fn a() {}\n// @generated\n"));
}

#[test]
fn no_hand_written_file_outside_tests_is_over_the_limit() {
    let root = root();
    let mut files = Vec::new();
    for dir in crate_dirs() {
        rust_files(&dir, &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut over = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap();
        if relative.components().any(|c| c.as_os_str() == "tests") {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        let lines = text.lines().count();
        let in_generated_dir = relative.components().any(|c| c.as_os_str() == "generated");
        if lines > FILE_LIMIT && !(in_generated_dir && is_generated(&text)) {
            over.push(format!("{} ({lines} lines)", relative.display()));
        }
    }
    assert!(
        over.is_empty(),
        "over {FILE_LIMIT} lines (split by concern): {}",
        over.join(", ")
    );
}

#[test]
fn no_crate_holds_more_than_the_limit_of_non_test_code() {
    let root = root();
    let mut over = Vec::new();
    let mut largest = 0;
    for dir in crate_dirs() {
        let name = dir.strip_prefix(&root).unwrap().display().to_string();
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        let total: usize = files
            .iter()
            .map(|f| non_test_lines(&fs::read_to_string(f).unwrap()))
            .sum();
        println!("{name}: {total} non-test lines");
        largest = largest.max(total);
        if total > CRATE_LIMIT {
            over.push(format!("{name} ({total} lines)"));
        }
    }
    assert!(largest > 1000, "the largest crate counted {largest} lines");
    assert!(
        over.is_empty(),
        "over {CRATE_LIMIT} non-test lines (split along a seam): {}",
        over.join(", ")
    );
}
