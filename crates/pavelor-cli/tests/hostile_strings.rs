//! Every string a stranger's directory holds stays text on every page
//! pavelor writes from it. A real report directory (a quick run) and, when
//! the NICCS harness's data is at hand, its arm_1 dataset get a hostile
//! payload appended to string values of their JSON files (raw HTML, a
//! script, an event handler, Markdown links and images to `javascript:`
//! and elsewhere, an autolink); then `report --render`, `report --check`,
//! `site` and `compare` run on them, and every `.html` and `.svg` they
//! write is parsed as a browser parses it, every Markdown page as
//! CommonMark: no element or attribute of the payload, no script link, no
//! raw HTML, no element or attribute name a clean page lacks.
//!
//! Some values are checked and refused (a schema name, an enumeration, a
//! digest, the figure a record holds): a refusal must be one line and a
//! non-zero exit. So that a refused value hides no other, the values are
//! tried in groups, and a refused group is split until every value has
//! gone through `pavelor site` in some run or been refused alone.
//!
//! A value is named by its *field*: the file's class (records of the same
//! kind are one class) and its path in the JSON, so one run changes it in
//! every file of the class.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use pulldown_cmark::{Event, Options, Parser, Tag};

/// What is appended to every string: markup of every kind a page could
/// take for its own.
const PAYLOAD: &str = r#"<x-pwn data-pwn="1">"'&<script>alert(1)</script><img src=x onerror=alert(2)>[link](javascript:alert(3))![i](x.png)<https://evil.example/>"#;

/// The system id of the reviewer's report: it closes an attribute.
const HOSTILE_ID: &str = r#"a"><img src=x onerror=alert(1)>"#;

/// Fields that are likely checked, each tried alone first so that the
/// first run can take every other field at once. Only a speed-up: a field
/// missing here is found by splitting, one listed that is not checked
/// simply goes through alone.
const LIKELY_CHECKED: [&str; 16] = [
    "schema",
    "counter",
    "messages",
    "op",
    "ops",
    "best_backend",
    "pavelor_version",
    "system_id",
    "candidate",
    "label",
    "kat",
    "kat_log",
    "kat_log_sha256",
    "library",
    "library_sha256",
    "instance",
];

fn pavelor() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("pavelor"));
    c.stdin(Stdio::null());
    c
}

/// One string value of a directory's JSON files, in every file of its
/// class.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Field {
    /// The file's folder and name, a run's records of one kind as one
    /// (`records/pavelor-*`, `records/hash-22/Pavelor-*`).
    class: String,
    /// `.key`, `[]` for an array's items; a map key holding `/` (an
    /// instance) as `*`.
    path: String,
}

impl Field {
    fn last_key(&self) -> &str {
        self.path
            .rsplit('.')
            .next()
            .unwrap_or("")
            .trim_end_matches("[]")
    }
}

fn class(rel: &str) -> String {
    let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    let name = if name.starts_with("pavelor-") {
        "pavelor-*"
    } else if name.starts_with("Pavelor-") {
        "Pavelor-*"
    } else {
        name
    };
    format!("{dir}/{name}")
}

/// The string values of a JSON text: (path, offset of the closing quote).
/// The text is scanned, not parsed and written again, so that a changed
/// file differs from the original only in the changed values.
struct Scan<'a> {
    text: &'a [u8],
    i: usize,
    out: Vec<(String, usize)>,
}

impl Scan<'_> {
    fn space(&mut self) {
        while self.i < self.text.len() && self.text[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    /// The string at `i`: (its text, the offset of its closing quote).
    fn string(&mut self) -> (String, usize) {
        let start = self.i;
        self.i += 1;
        while self.text[self.i] != b'"' {
            self.i += if self.text[self.i] == b'\\' { 2 } else { 1 };
        }
        let end = self.i;
        self.i += 1;
        (
            serde_json::from_slice(&self.text[start..=end]).unwrap(),
            end,
        )
    }

    fn value(&mut self, path: &str) {
        self.space();
        match self.text[self.i] {
            b'{' => {
                self.i += 1;
                loop {
                    self.space();
                    if self.text[self.i] == b'}' {
                        self.i += 1;
                        return;
                    }
                    let (key, _) = self.string();
                    self.space();
                    assert_eq!(self.text[self.i], b':');
                    self.i += 1;
                    let key = if key.contains('/') { "*" } else { &key };
                    self.value(&format!("{path}.{key}"));
                    self.space();
                    if self.text[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            b'[' => {
                self.i += 1;
                loop {
                    self.space();
                    if self.text[self.i] == b']' {
                        self.i += 1;
                        return;
                    }
                    self.value(&format!("{path}[]"));
                    self.space();
                    if self.text[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            b'"' => {
                let (_, end) = self.string();
                self.out.push((path.to_string(), end));
            }
            _ => {
                while self.i < self.text.len()
                    && !matches!(self.text[self.i], b',' | b'}' | b']')
                    && !self.text[self.i].is_ascii_whitespace()
                {
                    self.i += 1;
                }
            }
        }
    }
}

fn string_values(text: &str) -> Vec<(String, usize)> {
    let mut scan = Scan {
        text: text.as_bytes(),
        i: 0,
        out: Vec::new(),
    };
    scan.value("");
    scan.out
}

/// Every file under `dir` whose name ends in `ext`, relative to `dir`.
fn files(dir: &Path, ext: &str) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, ext: &str, out: &mut Vec<String>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, ext, out);
            } else if p.to_string_lossy().ends_with(ext) {
                let rel = p.strip_prefix(root).unwrap();
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, ext, &mut out);
    out.sort();
    out
}

fn fields(dir: &Path) -> BTreeSet<Field> {
    let mut all = BTreeSet::new();
    for rel in files(dir, ".json") {
        let text = fs::read_to_string(dir.join(&rel)).unwrap();
        for (path, _) in string_values(&text) {
            all.insert(Field {
                class: class(&rel),
                path,
            });
        }
    }
    all
}

/// Appends the payload to every value of `chosen` in the JSON files of
/// `dir`.
fn poison(dir: &Path, chosen: &BTreeSet<Field>) {
    let escaped = serde_json::to_string(PAYLOAD).unwrap();
    let escaped = &escaped[1..escaped.len() - 1];
    for rel in files(dir, ".json") {
        let c = class(&rel);
        let path = dir.join(&rel);
        let mut text = fs::read_to_string(&path).unwrap();
        let mut at: Vec<usize> = string_values(&text)
            .into_iter()
            .filter(|(p, _)| {
                chosen.contains(&Field {
                    class: c.clone(),
                    path: p.clone(),
                })
            })
            .map(|(_, end)| end)
            .collect();
        if at.is_empty() {
            continue;
        }
        at.sort_unstable_by(|a, b| b.cmp(a));
        for end in at {
            text.insert_str(end, escaped);
        }
        fs::write(&path, text).unwrap();
    }
}

/// The element and attribute names of a page, as a browser's parser
/// builds it.
#[derive(Default)]
struct Names {
    elements: BTreeSet<String>,
    attributes: BTreeSet<String>,
}

/// Whether a link target is one the payload chose.
fn hostile_target(dest: &str) -> bool {
    let d = dest.trim().to_ascii_lowercase();
    d.starts_with("javascript:")
        || d == "x.png"
        || d == "x"
        || d.starts_with("https://evil.example")
        || d.starts_with("//evil.example")
}

/// Parses an HTML page or an SVG chart, fails on anything of the
/// payload's, and returns its names.
fn markup(name: &str, text: &str) -> Names {
    let doc = scraper::Html::parse_document(text);
    let mut names = Names::default();
    for node in doc.tree.nodes() {
        let Some(el) = node.value().as_element() else {
            continue;
        };
        let tag = el.name().to_ascii_lowercase();
        assert!(
            !["x-pwn", "script", "iframe", "object", "embed"].contains(&tag.as_str()),
            "{name}: a <{tag}> element"
        );
        for (attr, value) in el.attrs() {
            let attr = attr.to_ascii_lowercase();
            assert!(
                !attr.starts_with("on") && attr != "data-pwn",
                "{name}: <{tag} {attr}={value:?}>"
            );
            if ["href", "src", "xlink:href", "action", "formaction"].contains(&attr.as_str()) {
                assert!(!hostile_target(value), "{name}: <{tag} {attr}={value:?}>");
            }
            names.attributes.insert(attr);
        }
        names.elements.insert(tag);
    }
    names
}

/// Parses a Markdown page and fails on raw HTML or a link or image the
/// payload chose.
fn markdown(name: &str, text: &str) {
    for event in Parser::new_ext(text, Options::ENABLE_TABLES) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => panic!("{name}: raw HTML {h:?}"),
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                assert!(!hostile_target(&dest_url), "{name}: a link to {dest_url}");
            }
            _ => {}
        }
    }
}

/// Every page of a clean directory, by the name the tests give it
/// (`site/index.html`), and all of them together.
#[derive(Default)]
struct Clean {
    pages: BTreeMap<String, Names>,
    all: Names,
}

/// What one run of the commands found.
#[derive(Default)]
struct Seen {
    /// HTML and SVG pages parsed.
    pages: usize,
    /// Pages that show the payload (as text).
    showing: usize,
}

/// The pages `dir` holds (`.html`, `.svg`, `.md`), each checked, under
/// `prefix`. With `clean`, each page's names must be among those of the
/// same clean page (or of any clean page, for a page the clean run has
/// not got); without, they are recorded as the clean ones.
fn pages(dir: &Path, prefix: &str, clean: &mut Clean, record: bool, seen: &mut Seen) {
    for ext in [".html", ".svg"] {
        for rel in files(dir, ext) {
            // A dataset's own files (copied) are not pages pavelor writes.
            if rel.contains("niccs/") || rel.contains("records/") {
                continue;
            }
            let name = format!("{prefix}/{rel}");
            let text = fs::read_to_string(dir.join(&rel)).unwrap();
            let names = markup(&name, &text);
            seen.pages += 1;
            seen.showing += usize::from(text.contains("x-pwn"));
            if record {
                clean.all.elements.extend(names.elements.iter().cloned());
                clean
                    .all
                    .attributes
                    .extend(names.attributes.iter().cloned());
                clean.pages.insert(name, names);
                continue;
            }
            let like = clean.pages.get(&name).unwrap_or(&clean.all);
            let extra: Vec<_> = names.elements.difference(&like.elements).collect();
            assert!(extra.is_empty(), "{name}: elements {extra:?}");
            let extra: Vec<_> = names.attributes.difference(&like.attributes).collect();
            assert!(extra.is_empty(), "{name}: attributes {extra:?}");
        }
    }
    for rel in files(dir, ".md") {
        if rel.contains("niccs/") {
            continue;
        }
        let text = fs::read_to_string(dir.join(&rel)).unwrap();
        markdown(&format!("{prefix}/{rel}"), &text);
    }
}

/// Success, or a clean refusal: a non-zero exit and one line.
fn success_or_refusal(what: &str, o: &Output) -> bool {
    let err = String::from_utf8_lossy(&o.stderr);
    if o.status.success() {
        return true;
    }
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
    false
}

/// A directory under test: a report directory or a harness dataset.
struct Subject {
    /// The clean directory.
    clean: PathBuf,
    /// Its name: a dataset's must be its system id.
    name: String,
    /// Whether it is a harness dataset (`report --render` prints its page).
    dataset: bool,
    /// Where each run works.
    work: PathBuf,
}

/// Runs `report --render`, `report --check`, `site` and `compare` on a
/// copy of the subject with `chosen` poisoned (and its system id
/// changed, with `id`), checking every page they write. Returns whether
/// the site was made (every chosen field went through), else the
/// refusal.
fn attempt(
    s: &Subject,
    chosen: &BTreeSet<Field>,
    id: Option<&str>,
    clean: &mut Clean,
    seen: &mut Seen,
    n: &mut usize,
) -> Result<(), String> {
    *n += 1;
    let record = *n == 1;
    let root = s.work.join(format!("try-{n}"));
    let name = id.unwrap_or(&s.name);
    let dir = root.join(name);
    common::copy_dir(&s.clean, &dir);
    poison(&dir, chosen);
    if let Some(id) = id {
        set_system_id(&dir, &s.name, id, s.dataset);
    }
    let what = |cmd: &str| match (chosen.first(), id) {
        (_, Some(id)) => format!("{cmd} with the system id {id:?}"),
        (Some(f), None) => format!(
            "{cmd} with {} field(s) poisoned, the first {}{}",
            chosen.len(),
            f.class,
            f.path
        ),
        (None, None) => format!("{cmd} of the clean directory"),
    };

    let o = pavelor()
        .args(["report", "--render"])
        .arg(&dir)
        .output()
        .unwrap();
    if success_or_refusal(&what("render"), &o) {
        if s.dataset {
            markdown(&what("render"), &String::from_utf8_lossy(&o.stdout));
        } else {
            pages(&dir, "render", clean, record, seen);
        }
    }

    let o = pavelor()
        .args(["report", "--check"])
        .arg(&dir)
        .output()
        .unwrap();
    if !success_or_refusal(&what("check"), &o) {
        return Err(String::from_utf8_lossy(&o.stderr).trim_end().to_string());
    }

    let site = root.join("site");
    let o = pavelor()
        .args(["site", "--out"])
        .arg(&site)
        .arg(&dir)
        .output()
        .unwrap();
    if !success_or_refusal(&what("site"), &o) {
        return Err(String::from_utf8_lossy(&o.stderr).trim_end().to_string());
    }
    pages(&site, "site", clean, record, seen);

    // The clean run beside the poisoned one (a second copy: a site or a
    // comparison takes each system id once).
    let base = root.join("base").join(&s.name);
    common::copy_dir(&s.clean, &base);
    let out = root.join("compare");
    let o = pavelor()
        .arg("compare")
        .arg(&base)
        .arg(&dir)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    if success_or_refusal(&what("compare"), &o) {
        markdown(&what("compare stdout"), &String::from_utf8_lossy(&o.stdout));
        pages(&out, "compare", clean, record, seen);
    }
    let _ = fs::remove_dir_all(&root);
    Ok(())
}

/// Gives the copy `dir` the system id `id` instead of `old`: a dataset's
/// `campaign.json`; a report directory's `records/report.json` and its
/// dataset's folder and `campaign.json`.
fn set_system_id(dir: &Path, old: &str, id: &str, dataset: bool) {
    let from = format!("\"system_id\": {}", serde_json::to_string(old).unwrap());
    let to = format!("\"system_id\": {}", serde_json::to_string(id).unwrap());
    let edit = |p: &Path| {
        let text = fs::read_to_string(p).unwrap();
        assert!(text.contains(&from), "{}: no {from}", p.display());
        fs::write(p, text.replace(&from, &to)).unwrap();
    };
    if dataset {
        edit(&dir.join("campaign.json"));
    } else {
        fs::rename(dir.join("niccs").join(old), dir.join("niccs").join(id)).unwrap();
        edit(&dir.join("records/report.json"));
        edit(&dir.join("niccs").join(id).join("campaign.json"));
    }
}

/// Tries `group`: all through, or split until each refused field is
/// alone.
#[allow(clippy::too_many_arguments)]
fn cover(
    s: &Subject,
    group: Vec<Field>,
    through: &mut BTreeSet<Field>,
    refused: &mut BTreeMap<Field, String>,
    clean: &mut Clean,
    seen: &mut Seen,
    n: &mut usize,
) {
    if group.is_empty() {
        return;
    }
    let chosen: BTreeSet<Field> = group.iter().cloned().collect();
    match attempt(s, &chosen, None, clean, seen, n) {
        Ok(()) => through.extend(group),
        Err(e) if group.len() == 1 => {
            refused.insert(group[0].clone(), e);
        }
        Err(_) => {
            let mut a = group;
            let b = a.split_off(a.len() / 2);
            cover(s, a, through, refused, clean, seen, n);
            cover(s, b, through, refused, clean, seen, n);
        }
    }
}

/// Every field of the subject poisoned, in as few runs as it takes; then
/// the hostile system id.
fn every_field(s: &Subject) {
    let all = fields(&s.clean);
    let (mut clean, mut seen, mut n) = (Clean::default(), Seen::default(), 0);
    // The clean run: the names each page may have.
    attempt(s, &BTreeSet::new(), None, &mut clean, &mut seen, &mut n).unwrap();
    assert!(!clean.pages.is_empty(), "the clean run wrote no page");
    let clean_pages = seen.pages;
    seen = Seen::default();

    let (likely, rest): (Vec<Field>, Vec<Field>) = all
        .iter()
        .cloned()
        .partition(|f| LIKELY_CHECKED.contains(&f.last_key()));
    let (mut through, mut refused) = (BTreeSet::new(), BTreeMap::new());
    cover(
        s,
        rest,
        &mut through,
        &mut refused,
        &mut clean,
        &mut seen,
        &mut n,
    );
    for f in likely {
        cover(
            s,
            vec![f],
            &mut through,
            &mut refused,
            &mut clean,
            &mut seen,
            &mut n,
        );
    }
    let covered: BTreeSet<Field> = through.iter().chain(refused.keys()).cloned().collect();
    assert_eq!(covered, all);
    assert!(!through.is_empty(), "no field went through");
    assert!(seen.showing > 0, "no page showed the payload");

    let id = attempt(
        s,
        &BTreeSet::new(),
        Some(HOSTILE_ID),
        &mut clean,
        &mut seen,
        &mut n,
    );
    eprintln!(
        "{}: {} fields, {} through every command, {} refused alone, in {n} runs; {clean_pages} clean pages, {} pages checked, {} showing the payload; system id {HOSTILE_ID:?}: {}",
        s.name,
        all.len(),
        through.len(),
        refused.len(),
        seen.pages,
        seen.showing,
        id.as_ref()
            .map_or_else(|e| format!("refused: {e}"), |()| "through".into())
    );
    for (f, e) in &refused {
        eprintln!("  refused {}{}: {e}", f.class, f.path);
    }
}

#[test]
fn a_report_directory_s_strings_stay_text() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("x86_t");
    common::quick_report(
        &run,
        "1",
        "4096",
        &["--no-ct-audit", "--no-baselines", "--system-id", "x86_t"],
    );
    every_field(&Subject {
        clean: run,
        name: "x86_t".into(),
        dataset: false,
        work: dir.path().join("work"),
    });
}

#[test]
fn a_harness_dataset_s_strings_stay_text() {
    let Some(arm_1) = common::harness_arm_1("a_harness_dataset_s_strings_stay_text") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean").join("arm_1");
    common::copy_dir(&arm_1, &clean);
    every_field(&Subject {
        clean,
        name: "arm_1".into(),
        dataset: true,
        work: dir.path().join("work"),
    });
}
