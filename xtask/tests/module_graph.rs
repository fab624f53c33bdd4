//! The module graphs and the crate graph of the whole repository.
//!
//! * Every crate is checked: the workspace's members (`cargo metadata`),
//!   `python/` and `fuzz/` (their own Cargo projects), and no `Cargo.toml`
//!   in the tree is left out ([`CRATE_COUNT`], [`LAYERS`]).
//! * In each crate, the graph of top-level modules has no cycle. An edge
//!   goes from the top-level module of a source file to every top-level
//!   module a `crate::m` path names, outside comments and string literals:
//!   `crate::{a, b::c}` names `a` and `b`, a `super::` path that climbs to
//!   the crate root names the module after it, and a name the root
//!   re-exports (`crate::Config` for `pub use job::Config`) stands for the
//!   module it comes from. The files are those the crate roots reach
//!   through `mod` (`foo.rs` and `foo/mod.rs` alike, `#[path]` too) and
//!   `include!`; every `.rs` file under `src/` must be one of them, and the
//!   top-level modules are exactly the entries of `src/` (`foo.rs` or
//!   `foo/`; `lib.rs` and `main.rs` are roots, not modules).
//! * Crate dependencies point down the layers of [`LAYERS`]: front ends on
//!   tooling on the core, nothing on a front end, `pavelor-test-c` only as
//!   a dev-dependency.
//! * Self-tests feed the same functions a synthetic crate with a cycle and
//!   synthetic edges that break the layers, so the checks cannot pass by
//!   seeing nothing.
//!
//! * In `pavelor-measure`, the worker protocol and the measuring leaves use
//!   nothing that uses them.
//!
//! `crates/pavelor/tests/module_graph.rs` checks the core's stricter layer
//! stack.

#![allow(clippy::panic)] // tests fail loudly

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

// ---------------------------------------------------------------------------
// The tables
// ---------------------------------------------------------------------------

/// The crate layers, lowest first. A normal or build dependency points to a
/// lower layer only (see [`WITHIN_LAYER`] for the one exception).
const LAYERS: &[(&str, &[&str])] = &[
    ("core", &["pavelor"]),
    (
        "format",
        &[
            "pavelor-kat",
            "pavelor-niccs",
            "pavelor-iccs-helpers",
            "pavelor-elf",
        ],
    ),
    ("pages", &["pavelor-pages"]),
    ("isolation", &["pavelor-isolate", "pavelor-memcheck"]),
    ("measurement", &["pavelor-measure"]),
    ("length sweep", &["pavelor-sweep"]),
    ("reading", &["pavelor-report", "pavelor-bench"]),
    (
        FRONT_END,
        &[
            "pavelor-cli",
            "pavelor-ffi",
            "pavelor-capi",
            "pavelor-openssl",
            "pavelor-python",
        ],
    ),
    (
        "test support / tools",
        &["pavelor-test-c", "pavelor-ct", "pavelor-fuzz"],
    ),
    (TASK_RUNNER, &["xtask"]),
];

/// The layer nothing but the task runner may depend on, whatever the kind
/// of dependency.
const FRONT_END: &str = "front end";

/// The layer of the workspace's task runner, `cargo xtask`: it builds,
/// checks and packages the front ends (the `CryptHash` header comes from
/// `pavelor-ffi`, where the C ABI is defined), so it stands above them.
const TASK_RUNNER: &str = "task runner";

/// Crates others may take as dev-dependencies only.
const DEV_ONLY: &[&str] = &["pavelor-test-c"];

/// Edges allowed within one layer, with the reason.
const WITHIN_LAYER: &[(&str, &str, &str)] = &[(
    "pavelor-niccs",
    "pavelor-kat",
    "the harness format writes its files with the one atomic-write helper, pavelor_kat::atomic_file",
)];

/// Edges forbidden in every kind of dependency, dev included.
const FORBIDDEN: &[(&str, &str)] = &[
    ("pavelor-niccs", "pavelor-measure"),
    ("pavelor-niccs", "pavelor-report"),
];

/// Layer violations in the tree today, each to be fixed and then removed
/// from here (the test fails while one is listed but no longer occurs).
const KNOWN_LAYER_VIOLATIONS: &[(&str, &str, &str)] = &[];

/// Module cycles in the tree today: the crate, the modules that reach each
/// other (exactly), and why. Each is to be fixed and then removed from here
/// (the test fails once the set changes).
const KNOWN_MODULE_CYCLES: &[(&str, &[&str], &str)] = &[];

/// The crates that are their own Cargo project, outside the workspace.
const STANDALONE: &[&str] = &["python", "fuzz"];

/// Every crate of the repository: the nineteen workspace members,
/// `python/` and `fuzz/`.
const CRATE_COUNT: usize = 21;

/// The crates with a `src/` (all but `fuzz/`, whose targets are single
/// files under `fuzz_targets/`).
const CRATES_WITH_SRC: usize = 20;

// ---------------------------------------------------------------------------
// The crates
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Normal,
    Build,
    Dev,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Normal => "normal",
            Kind::Build => "build",
            Kind::Dev => "dev",
        })
    }
}

/// One dependency of one crate of the repository on another.
#[derive(Clone, Debug)]
struct Dep {
    from: String,
    to: String,
    kind: Kind,
}

struct Krate {
    name: String,
    dir: PathBuf,
    /// The root files of its library and binary targets.
    roots: Vec<PathBuf>,
    /// The names of its dependencies with their kind.
    deps: Vec<(String, Kind)>,
}

fn root() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    fs::canonicalize(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

fn metadata(manifest: &Path) -> Value {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(manifest)
        .output()
        .unwrap_or_else(|e| panic!("cargo metadata: {e}"));
    assert!(
        out.status.success(),
        "cargo metadata --manifest-path {}: {}",
        manifest.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("cargo metadata: no string {key}"))
}

/// Every crate of the repository, from `cargo metadata`.
fn krates() -> &'static [Krate] {
    static KRATES: OnceLock<Vec<Krate>> = OnceLock::new();
    KRATES.get_or_init(|| {
        let root = root();
        let mut manifests = vec![root.join("Cargo.toml")];
        manifests.extend(STANDALONE.iter().map(|d| root.join(d).join("Cargo.toml")));
        let mut out = Vec::new();
        for manifest in manifests {
            let meta = metadata(&manifest);
            for p in meta["packages"].as_array().expect("packages") {
                let manifest_path = PathBuf::from(text(p, "manifest_path"));
                let roots = p["targets"]
                    .as_array()
                    .expect("targets")
                    .iter()
                    .filter(|t| {
                        t["kind"].as_array().is_some_and(|k| {
                            k.iter().any(|k| {
                                matches!(
                                    k.as_str(),
                                    Some(
                                        "lib"
                                            | "rlib"
                                            | "dylib"
                                            | "cdylib"
                                            | "staticlib"
                                            | "proc-macro"
                                            | "bin"
                                    )
                                )
                            })
                        })
                    })
                    .map(|t| PathBuf::from(text(t, "src_path")))
                    .collect();
                let deps = p["dependencies"]
                    .as_array()
                    .expect("dependencies")
                    .iter()
                    .map(|d| {
                        let kind = match d["kind"].as_str() {
                            None => Kind::Normal,
                            Some("build") => Kind::Build,
                            Some("dev") => Kind::Dev,
                            Some(other) => panic!("unknown dependency kind {other}"),
                        };
                        (text(d, "name").to_string(), kind)
                    })
                    .collect();
                out.push(Krate {
                    name: text(p, "name").to_string(),
                    dir: manifest_path.parent().expect("crate dir").to_path_buf(),
                    roots,
                    deps,
                });
            }
        }
        out
    })
}

/// The directories under `dir` holding a `Cargo.toml`, build output and
/// hidden directories left out.
fn manifest_dirs(dir: &Path, out: &mut BTreeSet<PathBuf>) {
    if dir.join("Cargo.toml").is_file() {
        out.insert(dir.to_path_buf());
    }
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("dir entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() && name != "target" && !name.starts_with('.') {
            manifest_dirs(&path, out);
        }
    }
}

/// Every dependency of a crate of the repository on another.
fn local_deps() -> Vec<Dep> {
    let names: BTreeSet<&str> = krates().iter().map(|k| k.name.as_str()).collect();
    let mut out = Vec::new();
    for k in krates() {
        for (to, kind) in &k.deps {
            if names.contains(to.as_str()) {
                out.push(Dep {
                    from: k.name.clone(),
                    to: to.clone(),
                    kind: *kind,
                });
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Reading Rust source
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// A string literal's contents (raw, escapes as written).
    Str(String),
    /// `::` or one punctuation character.
    Punct(String),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

fn is_punct(t: Option<&Token>, p: &str) -> bool {
    matches!(t, Some(Token { tok: Tok::Punct(q), .. }) if q == p)
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token {
            tok: Tok::Ident(n), ..
        }) => Some(n),
        _ => None,
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The contents of a string literal whose opening quote is just before
/// `i`, and the index after its closing quote.
fn string_at(text: &str, mut i: usize, line: &mut usize) -> (String, usize) {
    let b = text.as_bytes();
    let start = i;
    while i < b.len() && b[i] != b'"' {
        if b[i] == b'\\' {
            i += 1;
        }
        if b.get(i) == Some(&b'\n') {
            *line += 1;
        }
        i += 1;
    }
    let end = i.min(b.len());
    (text[start..end].to_string(), end + 1)
}

/// The tokens of a Rust source text, comments dropped and literals other
/// than strings skipped.
fn lex(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let push = |out: &mut Vec<Token>, tok, line| out.push(Token { tok, line });
    while i < b.len() {
        let c = b[i];
        let at = line;
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0usize;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == b'"' {
            let (s, end) = string_at(text, i + 1, &mut line);
            push(&mut out, Tok::Str(s), at);
            i = end;
        } else if c == b'\'' {
            if b.get(i + 1) == Some(&b'\\') {
                // An escaped character literal: '\n', '\'', '\u{..}'.
                i += 3;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else {
                let width = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                if b.get(i + 1 + width) == Some(&b'\'') {
                    i += 2 + width; // a character literal
                } else {
                    push(&mut out, Tok::Punct("'".into()), at); // a lifetime
                    i += 1;
                }
            }
        } else if c.is_ascii_digit() {
            while i < b.len() && is_ident_byte(b[i]) {
                i += 1;
            }
        } else if is_ident_byte(c) {
            let start = i;
            while i < b.len() && is_ident_byte(b[i]) {
                i += 1;
            }
            let word = &text[start..i];
            let hashes = b[i..].iter().take_while(|&&h| h == b'#').count();
            if matches!(word, "r" | "br" | "cr") && b.get(i + hashes) == Some(&b'"') {
                // A raw string: r"..", r#".."#, ...
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let body = i + hashes + 1;
                let len = b[body..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .unwrap_or(b.len() - body);
                let s = &text[body..body + len];
                line += s.matches('\n').count();
                push(&mut out, Tok::Str(s.to_string()), at);
                i = (body + len + close.len()).min(b.len());
            } else if matches!(word, "b" | "c") && b.get(i) == Some(&b'"') {
                let (s, end) = string_at(text, i + 1, &mut line);
                push(&mut out, Tok::Str(s), at);
                i = end;
            } else if word == "b" && b.get(i) == Some(&b'\'') {
                // A byte literal: the quote is read next.
            } else if word == "r" && hashes == 1 && b.get(i + 1).is_some_and(|&n| is_ident_byte(n))
            {
                // A raw identifier: r#type.
                let s = i + 1;
                i = s;
                while i < b.len() && is_ident_byte(b[i]) {
                    i += 1;
                }
                push(&mut out, Tok::Ident(text[s..i].to_string()), at);
            } else {
                push(&mut out, Tok::Ident(word.to_string()), at);
            }
        } else if b[i..].starts_with(b"::") {
            push(&mut out, Tok::Punct("::".into()), at);
            i += 2;
        } else {
            push(&mut out, Tok::Punct((c as char).to_string()), at);
            i += 1;
        }
    }
    out
}

/// The first segment of the path that starts at `t[j]`, or of each item
/// of the group `{a, b::c, d::{e}}` that starts there.
fn first_segments(t: &[Token], j: usize) -> Vec<String> {
    if let Some(n) = ident(t.get(j)) {
        return vec![n.to_string()];
    }
    let mut out = Vec::new();
    if !is_punct(t.get(j), "{") {
        return out;
    }
    let mut depth = 0usize;
    let mut item_start = false;
    for tok in &t[j..] {
        match &tok.tok {
            Tok::Punct(p) if p == "{" => {
                depth += 1;
                item_start = depth == 1;
                continue;
            }
            Tok::Punct(p) if p == "}" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Tok::Punct(p) if p == "," && depth == 1 => {
                item_start = true;
                continue;
            }
            Tok::Ident(n) if depth == 1 && item_start => out.push(n.clone()),
            _ => {}
        }
        item_start = false;
    }
    out
}

/// The names a `use` tree starting at `t[*i]` binds, each with its path.
fn use_tree(t: &[Token], i: &mut usize, prefix: &[String], out: &mut Vec<(String, Vec<String>)>) {
    let mut path = prefix.to_vec();
    if is_punct(t.get(*i), "::") {
        path.push("::".into()); // an extern crate: never a module here
        *i += 1;
    }
    loop {
        if let Some(n) = ident(t.get(*i)) {
            path.push(n.to_string());
            *i += 1;
            if is_punct(t.get(*i), "::") {
                *i += 1;
                continue;
            }
            break;
        }
        if is_punct(t.get(*i), "{") {
            *i += 1;
            while *i < t.len() && !is_punct(t.get(*i), "}") {
                let before = *i;
                use_tree(t, i, &path, out);
                if is_punct(t.get(*i), ",") {
                    *i += 1;
                }
                if *i == before {
                    *i += 1; // not a use tree: step over it
                }
            }
            *i += 1;
        } else if is_punct(t.get(*i), "*") {
            *i += 1;
        }
        return;
    }
    let binding = if ident(t.get(*i)) == Some("as") {
        *i += 2;
        ident(t.get(*i - 1)).unwrap_or("_").to_string()
    } else if path.last().is_some_and(|l| l == "self") {
        path.pop();
        path.last().cloned().unwrap_or_default()
    } else {
        path.last().cloned().unwrap_or_default()
    };
    if binding != "_" && !binding.is_empty() {
        out.push((binding, path));
    }
}

/// The `#[path = ".."]` attribute among those before `t[i]` (`mod`), if any.
fn path_attribute(t: &[Token], mut i: usize) -> Option<String> {
    if is_punct(t.get(i.wrapping_sub(1)), ")") {
        while i > 0 && !is_punct(t.get(i - 1), "(") {
            i -= 1;
        }
        i = i.saturating_sub(1);
    }
    if ident(t.get(i.wrapping_sub(1))) == Some("pub") {
        i -= 1;
    }
    while is_punct(t.get(i.wrapping_sub(1)), "]") {
        let mut depth = 0usize;
        let mut k = i - 1;
        loop {
            if is_punct(t.get(k), "]") {
                depth += 1;
            } else if is_punct(t.get(k), "[") {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            if k == 0 {
                return None;
            }
            k -= 1;
        }
        if ident(t.get(k + 1)) == Some("path")
            && is_punct(t.get(k + 2), "=")
            && let Some(Token {
                tok: Tok::Str(p), ..
            }) = t.get(k + 3)
        {
            return Some(p.clone());
        }
        if !is_punct(t.get(k.wrapping_sub(1)), "#") {
            return None;
        }
        i = k - 1;
    }
    None
}

/// Where a `crate::`/`super::` path names top-level modules (or root items).
#[derive(Clone, Debug)]
struct Use {
    /// The module the path is written in.
    from: Vec<String>,
    /// What it names at the crate root.
    names: Vec<String>,
    file: PathBuf,
    line: usize,
}

/// What reading one crate root and everything it reaches finds.
#[derive(Default)]
struct Crawl {
    /// The files read, roots and included files too.
    files: BTreeSet<PathBuf>,
    uses: Vec<Use>,
    /// The top-level modules declared `mod m;` (in their own file).
    declared: BTreeSet<String>,
    /// The top-level modules declared inline in the root: `mod m { .. }`.
    inline: BTreeSet<String>,
    /// The root's `use` items: bound name → path.
    root_uses: Vec<(String, Vec<String>)>,
    errors: Vec<String>,
}

type Read<'a> = &'a dyn Fn(&Path) -> Option<String>;

impl Crawl {
    /// Reads `file`, the source of module `module`, whose `mod m;` children
    /// are files in `child_dir`.
    fn file(&mut self, read: Read<'_>, file: &Path, module: &[String], child_dir: &Path) {
        if !self.files.insert(file.to_path_buf()) {
            return;
        }
        let Some(text) = read(file) else {
            self.errors.push(format!("cannot read {}", file.display()));
            return;
        };
        let t = lex(&text);
        let dir = file.parent().expect("a file has a directory");
        let mut depth = 0usize;
        let mut inline: Vec<(String, usize)> = Vec::new();
        let here = |inline: &[(String, usize)]| -> Vec<String> {
            module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(n, _)| n.clone()))
                .collect()
        };
        let mut i = 0;
        while i < t.len() {
            let after_path_sep = is_punct(t.get(i.wrapping_sub(1)), "::");
            match &t[i].tok {
                Tok::Punct(p) if p == "{" => depth += 1,
                Tok::Punct(p) if p == "}" => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                Tok::Ident(w) if w == "mod" => {
                    if let Some(name) = ident(t.get(i + 1)).map(str::to_string) {
                        if is_punct(t.get(i + 2), "{") {
                            if module.is_empty() && inline.is_empty() {
                                self.inline.insert(name.clone());
                            }
                            depth += 1;
                            inline.push((name, depth));
                            i += 3;
                            continue;
                        }
                        if is_punct(t.get(i + 2), ";") {
                            let mut base = child_dir.to_path_buf();
                            base.extend(inline.iter().map(|(n, _)| n.as_str()));
                            // `#[path]` is relative to the file's directory
                            // outside inline modules.
                            let path_base = if inline.is_empty() { dir } else { &base };
                            let path = path_attribute(&t, i).map(|p| path_base.join(p));
                            let mut child = here(&inline);
                            child.push(name.clone());
                            self.declare(read, file, t[i].line, path, child, &base);
                            if module.is_empty() && inline.is_empty() {
                                self.declared.insert(name);
                            }
                        }
                    }
                }
                Tok::Ident(w)
                    if w == "include"
                        && is_punct(t.get(i + 1), "!")
                        && is_punct(t.get(i + 2), "(") =>
                {
                    if let Some(Token {
                        tok: Tok::Str(p), ..
                    }) = t.get(i + 3)
                    {
                        self.file(read, &dir.join(p), &here(&inline), child_dir);
                    }
                }
                Tok::Ident(w)
                    if w == "use" && module.is_empty() && inline.is_empty() && depth == 0 =>
                {
                    let mut j = i + 1;
                    use_tree(&t, &mut j, &[], &mut self.root_uses);
                }
                Tok::Ident(w)
                    if w == "crate" && !after_path_sep && is_punct(t.get(i + 1), "::") =>
                {
                    self.uses.push(Use {
                        from: here(&inline),
                        names: first_segments(&t, i + 2),
                        file: file.to_path_buf(),
                        line: t[i].line,
                    });
                }
                Tok::Ident(w) if w == "super" && !after_path_sep => {
                    let mut j = i;
                    let mut climbs = 0;
                    while ident(t.get(j)) == Some("super") && is_punct(t.get(j + 1), "::") {
                        climbs += 1;
                        j += 2;
                    }
                    let from = here(&inline);
                    if climbs > 0 && climbs == from.len() {
                        self.uses.push(Use {
                            from,
                            names: first_segments(&t, j),
                            file: file.to_path_buf(),
                            line: t[i].line,
                        });
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// Follows `mod m;` (at `line` of `file`, its `#[path]` resolved to
    /// `path`) to its file: `base/m.rs` or `base/m/mod.rs`.
    fn declare(
        &mut self,
        read: Read<'_>,
        file: &Path,
        line: usize,
        path: Option<PathBuf>,
        module: Vec<String>,
        base: &Path,
    ) {
        let name = module.last().expect("a module has a name");
        let (found, child_dir) = match path {
            Some(at) => {
                let dir = at.parent().expect("dir").to_path_buf();
                (read(&at).map(|_| at), dir)
            }
            None => {
                let flat = base.join(format!("{name}.rs"));
                let nested = base.join(name).join("mod.rs");
                let found = [flat, nested].into_iter().find(|f| read(f).is_some());
                (found, base.join(name))
            }
        };
        match found {
            Some(f) => self.file(read, &f, &module, &child_dir),
            None => self.errors.push(format!(
                "{}:{line}: `mod {name};` has no file",
                file.display()
            )),
        }
    }
}

/// `top-level module → module it uses → where (file, line)`.
type Graph = BTreeMap<String, BTreeMap<String, (PathBuf, usize)>>;

struct ModuleGraph {
    graph: Graph,
    crawl: Crawl,
}

/// The graph of the top-level modules of the crate whose root is `root`.
fn module_graph(root: &Path, read: Read<'_>) -> ModuleGraph {
    let mut crawl = Crawl::default();
    let dir = root.parent().expect("a root has a directory").to_path_buf();
    crawl.file(read, root, &[], &dir);
    let modules: BTreeSet<String> = crawl.declared.union(&crawl.inline).cloned().collect();
    // `crate::Name` for a name the root imports from a module stands for
    // that module.
    let mut exports = BTreeMap::new();
    for (name, path) in &crawl.root_uses {
        let mut segments = path.iter().skip_while(|s| *s == "crate" || *s == "self");
        if let Some(first) = segments.next()
            && modules.contains(first)
        {
            exports.insert(name.clone(), first.clone());
        }
    }
    let mut graph: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeMap::new()))
        .collect();
    for u in &crawl.uses {
        let Some(from) = u.from.first() else {
            continue; // the root is no module
        };
        for name in &u.names {
            let to = if modules.contains(name) {
                name
            } else if let Some(m) = exports.get(name) {
                m
            } else {
                continue; // an item of the root itself
            };
            if to != from {
                graph
                    .entry(from.clone())
                    .or_default()
                    .entry(to.clone())
                    .or_insert_with(|| (u.file.clone(), u.line));
            }
        }
    }
    ModuleGraph { graph, crawl }
}

/// Modules that reach each other: the set, and one shortest cycle
/// `a -> .. -> a` from its first module.
#[derive(Debug)]
struct Cycle {
    modules: BTreeSet<String>,
    path: Vec<String>,
}

/// The strongly connected sets of more than one module of `graph`.
fn cycles(graph: &Graph) -> Vec<Cycle> {
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&str> = vec![from];
        while let Some(m) = todo.pop() {
            for next in graph.get(m).into_iter().flat_map(|d| d.keys()) {
                if seen.insert(next.clone()) {
                    todo.push(next);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<String>> =
        graph.keys().map(|m| (m.as_str(), reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in graph.keys() {
        if done.contains(m) || !reaches[m.as_str()].contains(m) {
            continue;
        }
        let modules: BTreeSet<String> = reaches[m.as_str()]
            .iter()
            .filter(|n| reaches.get(n.as_str()).is_some_and(|r| r.contains(m)))
            .cloned()
            .collect();
        done.extend(modules.iter().cloned());
        // Breadth first from m back to m.
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([m.as_str()]);
        let mut path = Vec::new();
        'search: while let Some(at) = queue.pop_front() {
            for next in graph.get(at).into_iter().flat_map(|d| d.keys()) {
                if next == m {
                    path.push(m.clone());
                    let mut back = at;
                    while back != m {
                        path.push(back.to_string());
                        back = parent[back];
                    }
                    path.push(m.clone());
                    path.reverse();
                    break 'search;
                }
                if !parent.contains_key(next.as_str()) {
                    parent.insert(next, at);
                    queue.push_back(next);
                }
            }
        }
        out.push(Cycle { modules, path });
    }
    out
}

/// `a -> b -> a (a -> b: src/a.rs:3; b -> a: src/b.rs:7)`.
fn describe(graph: &Graph, cycle: &[String], base: &Path) -> String {
    let steps: Vec<String> = cycle
        .windows(2)
        .map(|w| {
            let (file, line) = &graph[&w[0]][&w[1]];
            let file = file.strip_prefix(base).unwrap_or(file);
            format!("{} -> {}: {}:{line}", w[0], w[1], file.display())
        })
        .collect();
    format!("{} ({})", cycle.join(" -> "), steps.join("; "))
}

/// Every edge among the modules of `cycle`, where it is first written.
fn edges_among(graph: &Graph, cycle: &Cycle, base: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for from in &cycle.modules {
        for (to, (file, line)) in &graph[from] {
            if cycle.modules.contains(to) {
                let file = file.strip_prefix(base).unwrap_or(file);
                out.push(format!("  {from} -> {to}: {}:{line}", file.display()));
            }
        }
    }
    out
}

fn read_fs(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok()
}

// ---------------------------------------------------------------------------
// The layers
// ---------------------------------------------------------------------------

fn layer(name: &str) -> Option<(usize, &'static str)> {
    LAYERS
        .iter()
        .enumerate()
        .find(|(_, (_, crates))| crates.contains(&name))
        .map(|(i, (layer, _))| (i, *layer))
}

/// What is wrong with one dependency edge, if anything.
fn layer_violation(d: &Dep) -> Option<String> {
    let edge = format!("{} -> {} ({})", d.from, d.to, d.kind);
    let (Some((from, from_layer)), Some((to, to_layer))) = (layer(&d.from), layer(&d.to)) else {
        return Some(format!("{edge}: a crate in no layer of LAYERS"));
    };
    if FORBIDDEN.contains(&(d.from.as_str(), d.to.as_str())) {
        return Some(format!("{edge}: {} must not depend on {}", d.from, d.to));
    }
    if DEV_ONLY.contains(&d.to.as_str()) {
        return (d.kind != Kind::Dev)
            .then(|| format!("{edge}: {} may only be a dev-dependency", d.to));
    }
    if to_layer == FRONT_END && from_layer != TASK_RUNNER {
        return Some(format!(
            "{edge}: nothing but the task runner may depend on a front end"
        ));
    }
    let within = WITHIN_LAYER
        .iter()
        .any(|(f, t, _)| *f == d.from && *t == d.to);
    if d.kind != Kind::Dev && to >= from && !within {
        return Some(format!(
            "{edge}: a {from_layer} crate may only depend on lower layers, and {} is {to_layer}",
            d.to
        ));
    }
    None
}

// ---------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------

#[test]
fn every_crate_is_checked() {
    let root = root();
    let names: BTreeSet<&str> = krates().iter().map(|k| k.name.as_str()).collect();
    assert_eq!(krates().len(), CRATE_COUNT, "crates: {names:?}");
    assert_eq!(
        names.len(),
        CRATE_COUNT,
        "two crates of one name: {names:?}"
    );
    let in_layers: BTreeSet<&str> = LAYERS.iter().flat_map(|(_, c)| c.iter().copied()).collect();
    assert_eq!(
        names, in_layers,
        "the crates and the crates of LAYERS differ: place each crate in one layer"
    );
    let mut found = BTreeSet::new();
    manifest_dirs(&root, &mut found);
    found.remove(&root);
    let known: BTreeSet<PathBuf> = krates().iter().map(|k| k.dir.clone()).collect();
    assert_eq!(
        found, known,
        "a Cargo.toml in the tree is no workspace member and not in STANDALONE"
    );
    let with_src = krates()
        .iter()
        .filter(|k| k.dir.join("src").is_dir())
        .count();
    assert_eq!(with_src, CRATES_WITH_SRC);
    for k in krates() {
        assert!(
            !k.roots.is_empty(),
            "{} has no library or binary target",
            k.name
        );
    }
}

#[test]
fn no_crate_has_a_module_cycle() {
    let root = root();
    let mut failures = Vec::new();
    let mut known_seen = BTreeSet::new();
    let mut edges = 0;
    for k in krates() {
        for crate_root in &k.roots {
            let g = module_graph(crate_root, &read_fs);
            assert!(
                g.crawl.errors.is_empty(),
                "{}: {:?}",
                k.name,
                g.crawl.errors
            );
            edges += g.graph.values().map(BTreeMap::len).sum::<usize>();
            for cycle in cycles(&g.graph) {
                let known = KNOWN_MODULE_CYCLES.iter().position(|(krate, modules, _)| {
                    *krate == k.name && cycle.modules.iter().eq(modules.iter())
                });
                if let Some(known) = known {
                    known_seen.insert(known);
                    continue;
                }
                failures.push(format!(
                    "{} ({}): the modules {:?} form a cycle, such as {}; the edges among them:\n{}",
                    k.name,
                    crate_root
                        .strip_prefix(&root)
                        .unwrap_or(crate_root)
                        .display(),
                    cycle.modules,
                    describe(&g.graph, &cycle.path, &root),
                    edges_among(&g.graph, &cycle, &root).join("\n")
                ));
            }
        }
    }
    for (i, (krate, modules, why)) in KNOWN_MODULE_CYCLES.iter().enumerate() {
        assert!(
            known_seen.contains(&i),
            "{krate}: the known cycle among {modules:?} ({why}) is gone or changed: \
             update KNOWN_MODULE_CYCLES{}",
            if failures.is_empty() {
                String::new()
            } else {
                format!("\n{}", failures.join("\n"))
            }
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The reading sees the tree's edges, not an empty graph.
    assert!(edges > 100, "only {edges} module edges in the whole tree");
}

/// In `pavelor-measure`, the worker protocol and the measuring leaves use
/// nothing that uses them: `protocol` only the clock and the tick
/// counter, and `cabi`, `clock`, `hw` and `aes_probe` none of the worker,
/// the campaign or the library gate. (The isolation of workers is a crate
/// of its own, `pavelor-isolate`, below the measurement in [`LAYERS`].)
#[test]
fn the_measurement_s_worker_protocol_is_a_leaf() {
    let root = root().join("crates/pavelor-measure/src/lib.rs");
    let g = module_graph(&root, &read_fs);
    assert!(g.crawl.errors.is_empty(), "{:?}", g.crawl.errors);
    let uses = |m: &str| -> Vec<&String> {
        g.graph
            .get(m)
            .unwrap_or_else(|| panic!("pavelor-measure has no module {m}"))
            .keys()
            .collect()
    };
    let protocol = uses("protocol");
    assert!(
        protocol.iter().all(|d| *d == "clock" || *d == "hw"),
        "protocol uses {protocol:?}"
    );
    for leaf in ["cabi", "clock", "hw", "aes_probe"] {
        for d in uses(leaf) {
            assert!(
                !["worker", "campaign", "library"].contains(&d.as_str()),
                "{leaf} uses {d}"
            );
        }
    }
}

#[test]
fn every_source_file_is_a_module_of_its_crate() {
    for k in krates() {
        let src = k.dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let mut reached = BTreeSet::new();
        let mut declared = BTreeSet::new();
        for crate_root in &k.roots {
            let g = module_graph(crate_root, &read_fs);
            reached.extend(g.crawl.files);
            if crate_root.parent() == Some(src.as_path()) {
                declared.extend(g.crawl.declared);
            }
        }
        // The entries of src/: foo.rs and foo/ alike, the roots left out.
        let mut entries = BTreeSet::new();
        let mut files = Vec::new();
        let mut todo = vec![src.clone()];
        while let Some(dir) = todo.pop() {
            for entry in fs::read_dir(&dir).expect("read src") {
                let path = entry.expect("dir entry").path();
                if path.is_dir() {
                    todo.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        for f in &files {
            let rel = f.strip_prefix(&src).expect("under src");
            let first = rel.components().next().expect("a name");
            let name = first.as_os_str().to_str().expect("UTF-8 name");
            if !k.roots.contains(f) {
                entries.insert(name.trim_end_matches(".rs").to_string());
            }
            assert!(
                reached.contains(f),
                "{}: no crate root reaches {} through `mod` or `include!`",
                k.name,
                f.display()
            );
        }
        assert_eq!(
            declared, entries,
            "{}: the modules its roots declare and the entries of src/ differ",
            k.name
        );
    }
}

#[test]
fn crate_dependencies_follow_the_layers() {
    let deps = local_deps();
    let mut failures = Vec::new();
    let mut known_seen = BTreeSet::new();
    for d in &deps {
        if let Some(why) = layer_violation(d) {
            match KNOWN_LAYER_VIOLATIONS
                .iter()
                .position(|(f, t, _)| *f == d.from && *t == d.to)
            {
                Some(known) => {
                    known_seen.insert(known);
                }
                None => failures.push(why),
            }
        }
    }
    for (i, (from, to, why)) in KNOWN_LAYER_VIOLATIONS.iter().enumerate() {
        assert!(
            known_seen.contains(&i),
            "{from} -> {to} ({why}) is fixed: remove it from KNOWN_LAYER_VIOLATIONS"
        );
    }
    for (from, to, why) in WITHIN_LAYER {
        assert!(
            deps.iter().any(|d| d.from == *from && d.to == *to),
            "{from} no longer depends on {to} ({why}): remove it from WITHIN_LAYER"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The reading sees the tree's edges.
    assert!(
        deps.iter()
            .any(|d| d.from == "pavelor-report" && d.to == "pavelor-measure"),
        "{deps:?}"
    );
    assert!(
        deps.iter()
            .any(|d| d.from == "pavelor-python" && d.to == "pavelor"),
        "{deps:?}"
    );
}

/// A synthetic crate: `a -> b -> c -> a` through a group, a `super::` in a
/// file and a `super::super::` in a directory module's submodule, with
/// decoys in comments, strings and inline modules.
fn synthetic(path: &Path) -> Option<String> {
    let files: &[(&str, &str)] = &[
        (
            "s/src/lib.rs",
            "mod a;\npub mod b;\n#[cfg(test)]\npub(crate) mod c;\n#[path = \"elsewhere/d.rs\"]\nmod d;\n\
             pub use b::Thing;\nmod tests { use crate::a; }\n",
        ),
        (
            "s/src/a.rs",
            "// crate::d in a comment\n/* crate::d /* nested */ crate::d */\n\
             use crate::{b::Thing as T, self as root};\nconst Q: char = '\"';\n\
             const S: &str = \"crate::d\";\nconst R: &str = r#\"crate::d \" crate::d\"#;\n\
             fn f<'a>(x: &'a str) -> &'a str { x }\n",
        ),
        (
            "s/src/b.rs",
            "pub struct Thing;\nmod inner { fn g() { super::super::c::h(); } }\n\
             fn k() { super::b::x(); }\nmod sub;\n",
        ),
        ("s/src/b/sub.rs", "pub fn s() { super::super::a::f(); }\n"),
        ("s/src/c/mod.rs", "mod deep;\nfn h() {}\n"),
        (
            "s/src/c/deep.rs",
            "use super::super::{a, b::Thing};\nuse super::h;\ninclude!(\"part.rs\");\n",
        ),
        ("s/src/c/part.rs", "fn p() { crate::d::e(); }\n"),
        (
            "s/src/elsewhere/d.rs",
            "pub fn e() { let _ = crate::Thing; }\n",
        ),
    ];
    files
        .iter()
        .find(|(p, _)| Path::new(p) == path)
        .map(|(_, text)| text.to_string())
}

#[test]
fn the_reading_and_the_cycle_finder_see_a_synthetic_cycle() {
    let g = module_graph(Path::new("s/src/lib.rs"), &synthetic);
    assert!(g.crawl.errors.is_empty(), "{:?}", g.crawl.errors);
    let edges: BTreeMap<&str, BTreeSet<&str>> = g
        .graph
        .iter()
        .map(|(m, d)| (m.as_str(), d.keys().map(String::as_str).collect()))
        .collect();
    let expected: BTreeMap<&str, BTreeSet<&str>> = [
        ("a", BTreeSet::from(["b"])),
        ("b", BTreeSet::from(["a", "c"])),
        ("c", BTreeSet::from(["a", "b", "d"])),
        ("d", BTreeSet::from(["b"])),
        ("tests", BTreeSet::from(["a"])),
    ]
    .into_iter()
    .collect();
    assert_eq!(edges, expected);
    let at = |from: &str, to: &str| {
        let (file, line) = &g.graph[from][to];
        format!("{}:{line}", file.display())
    };
    assert_eq!(at("a", "b"), "s/src/a.rs:3"); // a group, after the decoys
    assert_eq!(at("b", "a"), "s/src/b/sub.rs:1"); // b.rs's own b/sub.rs
    assert_eq!(at("b", "c"), "s/src/b.rs:2"); // out of an inline module
    assert_eq!(at("c", "a"), "s/src/c/deep.rs:1"); // c/mod.rs's c/deep.rs
    assert_eq!(at("c", "d"), "s/src/c/part.rs:1"); // include!
    assert_eq!(at("d", "b"), "s/src/elsewhere/d.rs:1"); // #[path], a re-export
    assert_eq!(g.crawl.files.len(), 8);
    assert_eq!(
        g.crawl.declared,
        BTreeSet::from(["a", "b", "c", "d"].map(String::from))
    );
    let found = cycles(&g.graph);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].modules,
        BTreeSet::from(["a", "b", "c", "d"].map(String::from))
    );
    assert_eq!(
        describe(&g.graph, &found[0].path, Path::new("s")),
        "a -> b -> a (a -> b: src/a.rs:3; b -> a: src/b/sub.rs:1)"
    );
    assert_eq!(edges_among(&g.graph, &found[0], Path::new("s")).len(), 7);
    // Every cycle goes through b: without its edges, none is left.
    let mut acyclic = g.graph.clone();
    acyclic.get_mut("b").expect("b").clear();
    assert!(cycles(&acyclic).is_empty());
}

#[test]
fn the_layer_check_rejects_synthetic_edges() {
    let dep = |from: &str, to: &str, kind| Dep {
        from: from.into(),
        to: to.into(),
        kind,
    };
    let rejected = [
        dep("pavelor", "pavelor-kat", Kind::Normal),
        dep("pavelor-measure", "pavelor-report", Kind::Normal),
        dep("pavelor-kat", "pavelor-niccs", Kind::Normal),
        dep("pavelor-niccs", "pavelor-measure", Kind::Dev),
        dep("pavelor-report", "pavelor-cli", Kind::Dev),
        dep("pavelor-ct", "pavelor-capi", Kind::Normal),
        dep("pavelor-ffi", "pavelor-test-c", Kind::Normal),
        dep("pavelor-cli", "pavelor-ct", Kind::Build),
        dep("pavelor-new", "pavelor", Kind::Normal),
    ];
    for d in &rejected {
        let why = layer_violation(d).unwrap_or_else(|| panic!("{d:?} passes"));
        assert!(
            why.starts_with(&format!("{} -> {} ({})", d.from, d.to, d.kind)),
            "{why}"
        );
    }
    let allowed = [
        dep("pavelor-measure", "pavelor-niccs", Kind::Normal),
        dep("pavelor-measure", "pavelor-kat", Kind::Normal),
        dep("pavelor-niccs", "pavelor-kat", Kind::Normal),
        dep("pavelor-report", "pavelor-measure", Kind::Normal),
        dep("pavelor-cli", "pavelor-report", Kind::Normal),
        dep("pavelor-capi", "pavelor-test-c", Kind::Dev),
        dep("pavelor-ffi", "pavelor-kat", Kind::Dev),
        dep("pavelor-ct", "pavelor", Kind::Normal),
        dep("pavelor-python", "pavelor", Kind::Normal),
        dep("xtask", "pavelor-ffi", Kind::Normal),
    ];
    for d in &allowed {
        assert_eq!(layer_violation(d), None, "{d:?}");
    }
}
