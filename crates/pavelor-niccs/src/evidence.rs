//! A directory that someone else hands over (a report directory, a harness
//! dataset), read once into memory under stated limits. Everything that
//! reads evidence (`report --check` and `--render`, `compare`, `site`, the
//! validator) reads it from an [`Evidence`], never from the file system
//! again, so what was checked is what is shown.
//!
//! The reading rules:
//!
//! * only regular files are read: each is opened without following a final
//!   symbolic link and without blocking (a FIFO put in a record's place
//!   cannot stall the reader), and its type and size are checked on the
//!   open descriptor;
//! * a symbolic link is followed only to a regular file inside the
//!   directory; one that leads out of it, or to a directory, is refused;
//! * a FIFO, socket or device anywhere in the tree is refused, never
//!   skipped;
//! * every file has a size limit, the directory a total byte limit and a
//!   limit on the number of files, and the records it holds a total trial
//!   limit ([`Limits`]); each refusal names the limit and the option that
//!   raises it.
//!
//! Every refusal is one line naming the file and the rule ([`Error`]).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::error::Error;

/// The limits on what one directory of evidence may hold. The defaults are
/// far above what a real report directory or harness dataset holds (a few
/// hundred kilobytes, a few hundred trials) and keep the reader, the
/// checks and the pages within about 200 MB of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest file, bytes (`--max-file-mib`).
    pub file_bytes: u64,
    /// All files together, bytes (`--max-dir-mib`).
    pub total_bytes: u64,
    /// Files in the directory, counting subdirectories (`--max-files`).
    pub files: u64,
    /// Trials in all the timing records together (`--max-trials`).
    pub trials: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            file_bytes: DEFAULT_FILE_BYTES,
            total_bytes: 16 << 20,
            files: 4096,
            trials: 20_000,
        }
    }
}

/// The default largest file, bytes (4 MiB): a harness record is about
/// 9 KB, a KAT log about 1 KB, a report's page a few hundred KB.
pub const DEFAULT_FILE_BYTES: u64 = 4 << 20;

/// The deepest directory nesting read below the root.
const MAX_DEPTH: usize = 16;

/// The rule a directory of evidence broke, as its refusal names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not a regular file: a FIFO, a socket, a device.
    NotRegular(&'static str),
    /// A symbolic link that leads out of the directory.
    LinkOutside,
    /// A symbolic link to a directory (links are followed to files only).
    LinkToDirectory,
    /// A dangling symbolic link.
    LinkDangling,
    /// A file name that is not UTF-8.
    NameNotUtf8,
    /// Nested deeper than 16 directories below the root.
    TooDeep,
    /// A file over [`Limits::file_bytes`].
    FileTooLarge,
    /// All files together over [`Limits::total_bytes`].
    DirTooLarge,
    /// More files than [`Limits::files`].
    TooManyFiles,
    /// More trials than [`Limits::trials`].
    TooManyTrials,
}

impl Refusal {
    fn text(self, limits: &Limits) -> String {
        match self {
            Refusal::NotRegular(kind) => {
                format!("{kind}, not a regular file; evidence is regular files only")
            }
            Refusal::LinkOutside => "a symbolic link that leads out of the directory".into(),
            Refusal::LinkToDirectory => {
                "a symbolic link to a directory; links are followed to regular files only".into()
            }
            Refusal::LinkDangling => "a symbolic link to nothing".into(),
            Refusal::NameNotUtf8 => "a file name that is not UTF-8".into(),
            Refusal::TooDeep => format!("nested more than {MAX_DEPTH} directories deep"),
            Refusal::FileTooLarge => format!(
                "larger than the limit of {} MiB per file (--max-file-mib raises it)",
                mib(limits.file_bytes)
            ),
            Refusal::DirTooLarge => format!(
                "brings the directory over its limit of {} MiB in all (--max-dir-mib raises it)",
                mib(limits.total_bytes)
            ),
            Refusal::TooManyFiles => format!(
                "brings the directory over its limit of {} files (--max-files raises it)",
                limits.files
            ),
            Refusal::TooManyTrials => format!(
                "brings the directory's records over their limit of {} trials in all (--max-trials raises it)",
                limits.trials
            ),
        }
    }
}

fn mib(bytes: u64) -> String {
    let m = bytes as f64 / (1u64 << 20) as f64;
    if m.fract() == 0.0 {
        format!("{m}")
    } else {
        format!("{m:.2}")
    }
}

/// The trials each record holds, by its path from the directory that was
/// read, shared by every view of it (so a record counted twice counts
/// once).
type TrialLedger = Rc<RefCell<BTreeMap<String, u64>>>;

/// A directory of evidence, read. Cheap to clone; [`Evidence::subtree`]
/// gives a view of a subdirectory sharing the same bytes and trial count.
#[derive(Clone, Debug)]
pub struct Evidence {
    /// The directory as given (for messages), or the subdirectory's path.
    root: PathBuf,
    /// The last component of the directory's path (the system id of a
    /// dataset).
    name: String,
    /// The path of this view below the directory that was read (`""`, or
    /// `niccs/arm_1/`).
    prefix: String,
    /// Every regular file, by its `/`-separated path below `root`.
    files: Rc<BTreeMap<String, Rc<[u8]>>>,
    limits: Limits,
    trials: TrialLedger,
}

impl Evidence {
    /// Reads every file below `dir` by the rules of this module.
    pub fn read(dir: &Path, limits: &Limits) -> Result<Evidence, Error> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, source }
        };
        let meta = fs::metadata(dir).map_err(io(dir))?;
        if !meta.is_dir() {
            return Err(Error::NotADirectory {
                path: dir.to_path_buf(),
            });
        }
        let canonical = fs::canonicalize(dir).map_err(io(dir))?;
        let name = dir
            .file_name()
            .or_else(|| canonical.file_name())
            .map(|n| n.to_str().map(str::to_string))
            .unwrap_or(Some(String::new()))
            .ok_or_else(|| refused(dir, Refusal::NameNotUtf8, limits))?;
        let mut reader = Reader {
            canonical,
            limits: *limits,
            total: 0,
            count: 0,
            files: BTreeMap::new(),
        };
        reader.walk(dir, "", 0)?;
        Ok(Evidence {
            root: dir.to_path_buf(),
            name,
            prefix: String::new(),
            files: Rc::new(reader.files),
            limits: *limits,
            trials: Rc::default(),
        })
    }

    /// The directory as given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory's last path component (a dataset's system id).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The limits it was read with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The path of `rel` for messages.
    pub fn path_of(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The bytes of the regular file `rel` (a `/`-separated path), if the
    /// directory holds it.
    pub fn get(&self, rel: &str) -> Option<&[u8]> {
        self.files
            .get(&format!("{}{rel}", self.prefix))
            .map(|b| &b[..])
    }

    /// Whether the directory holds the file `rel`.
    pub fn contains(&self, rel: &str) -> bool {
        self.get(rel).is_some()
    }

    /// Whether `rel` names a directory of this view (some file lies below
    /// it).
    pub fn has_dir(&self, rel: &str) -> bool {
        let p = format!("{}{}/", self.prefix, rel.trim_end_matches('/'));
        self.files
            .range(p.clone()..)
            .next()
            .is_some_and(|(k, _)| k.starts_with(&p))
    }

    /// Every file of this view as (`/`-separated path, bytes), sorted by
    /// path components, as Python sorts `Path` objects.
    pub fn files(&self) -> Vec<(&str, &[u8])> {
        let mut v: Vec<(&str, &[u8])> = self
            .files
            .iter()
            .filter_map(|(k, b)| k.strip_prefix(&self.prefix).map(|rel| (rel, &b[..])))
            .collect();
        v.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
        v
    }

    /// The files below the directory `sub` of this view (`records`), as
    /// [`Evidence::files`] gives them, with paths from this view.
    pub fn files_under(&self, sub: &str) -> Vec<(&str, &[u8])> {
        let p = format!("{}/", sub.trim_end_matches('/'));
        self.files()
            .into_iter()
            .filter(|(rel, _)| rel.starts_with(&p))
            .collect()
    }

    /// The names of the subdirectories of `sub` (`niccs`) that hold a file,
    /// sorted.
    pub fn subdirectories(&self, sub: &str) -> Vec<String> {
        let p = format!("{}/", sub.trim_end_matches('/'));
        let mut names: Vec<String> = self
            .files()
            .into_iter()
            .filter_map(|(rel, _)| {
                rel.strip_prefix(&p)?
                    .split_once('/')
                    .map(|(d, _)| d.to_string())
            })
            .collect();
        names.dedup();
        names
    }

    /// The view of the subdirectory `sub` (`niccs/arm_1`): its files, with
    /// paths from it; the same bytes and the same trial count.
    pub fn subtree(&self, sub: &str) -> Evidence {
        let sub = sub.trim_end_matches('/');
        Evidence {
            root: self.root.join(sub),
            name: sub.rsplit('/').next().unwrap_or(sub).to_string(),
            prefix: format!("{}{sub}/", self.prefix),
            files: Rc::clone(&self.files),
            limits: self.limits,
            trials: Rc::clone(&self.trials),
        }
    }

    /// Notes that the record `rel` holds `trials` trials, and refuses the
    /// directory when all its records together hold more than
    /// [`Limits::trials`]. A record noted again replaces its count.
    pub fn count_trials(&self, rel: &str, trials: u64) -> Result<(), Error> {
        let mut ledger = self.trials.borrow_mut();
        ledger.insert(format!("{}{rel}", self.prefix), trials);
        let total: u64 = ledger.values().fold(0u64, |a, &b| a.saturating_add(b));
        if total > self.limits.trials {
            return Err(refused(
                &self.path_of(rel),
                Refusal::TooManyTrials,
                &self.limits,
            ));
        }
        Ok(())
    }

    /// Parses the JSON file `rel`; `None` when there is no such file.
    pub fn json<T: serde::de::DeserializeOwned>(&self, rel: &str) -> Result<Option<T>, Error> {
        let Some(bytes) = self.get(rel) else {
            return Ok(None);
        };
        serde_json::from_slice(bytes)
            .map(Some)
            .map_err(|source| Error::Json {
                path: self.path_of(rel),
                source,
            })
    }
}

fn refused(path: &Path, rule: Refusal, limits: &Limits) -> Error {
    Error::Refused {
        path: path.to_path_buf(),
        problem: rule.text(limits),
    }
}

struct Reader {
    canonical: PathBuf,
    limits: Limits,
    total: u64,
    count: u64,
    files: BTreeMap<String, Rc<[u8]>>,
}

impl Reader {
    fn walk(&mut self, dir: &Path, rel: &str, depth: usize) -> Result<(), Error> {
        if depth > MAX_DEPTH {
            return Err(refused(dir, Refusal::TooDeep, &self.limits));
        }
        let io = |source| Error::Io {
            path: dir.to_path_buf(),
            source,
        };
        let mut entries = Vec::new();
        for entry in fs::read_dir(dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            self.count += 1;
            if self.count > self.limits.files {
                return Err(refused(&entry.path(), Refusal::TooManyFiles, &self.limits));
            }
            entries.push(entry);
        }
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(refused(&path, Refusal::NameNotUtf8, &self.limits));
            };
            let child = if rel.is_empty() {
                name.to_string()
            } else {
                format!("{rel}/{name}")
            };
            let kind = entry.file_type().map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
            if kind.is_dir() {
                self.walk(&path, &child, depth + 1)?;
            } else if kind.is_symlink() {
                let target = self.link_target(&path)?;
                self.read_file(&target, &path, child)?;
            } else if kind.is_file() {
                self.read_file(&path, &path, child)?;
            } else {
                return Err(refused(
                    &path,
                    Refusal::NotRegular(kind_name(&kind)),
                    &self.limits,
                ));
            }
        }
        Ok(())
    }

    /// Where the link `path` leads: a regular file inside the directory.
    fn link_target(&self, path: &Path) -> Result<PathBuf, Error> {
        let target = match fs::canonicalize(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(refused(path, Refusal::LinkDangling, &self.limits));
            }
            Err(source) => {
                return Err(Error::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        if !target.starts_with(&self.canonical) {
            return Err(refused(path, Refusal::LinkOutside, &self.limits));
        }
        let meta = fs::symlink_metadata(&target).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if meta.is_dir() {
            return Err(refused(path, Refusal::LinkToDirectory, &self.limits));
        }
        Ok(target)
    }

    /// Reads the regular file at `open` (no link is followed), named `path`
    /// in messages and `rel` in the map.
    fn read_file(&mut self, open: &Path, path: &Path, rel: String) -> Result<(), Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = open_no_follow(open).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(refused(
                path,
                Refusal::NotRegular(kind_name(&meta.file_type())),
                &self.limits,
            ));
        }
        if meta.len() > self.limits.file_bytes {
            return Err(refused(path, Refusal::FileTooLarge, &self.limits));
        }
        if self.total + meta.len() > self.limits.total_bytes {
            return Err(refused(path, Refusal::DirTooLarge, &self.limits));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(self.limits.file_bytes + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        // The file may have grown since its size was read.
        if bytes.len() as u64 > self.limits.file_bytes {
            return Err(refused(path, Refusal::FileTooLarge, &self.limits));
        }
        self.total += bytes.len() as u64;
        if self.total > self.limits.total_bytes {
            return Err(refused(path, Refusal::DirTooLarge, &self.limits));
        }
        self.files.insert(rel, Rc::from(bytes));
        Ok(())
    }
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<fs::File> {
    fs::File::open(path)
}

fn kind_name(kind: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Whether `id` is a system id: 1 to 64 ASCII letters, digits, `_`, `-` or
/// `.`, not starting with `.`. It names a directory (`niccs/<id>/`, a
/// site's `<id>/`), so nothing else may stand in it.
pub fn is_system_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
}

/// The rule of [`is_system_id`] in words.
pub const SYSTEM_ID_RULE: &str = "1 to 64 letters, digits, '_', '-' or '.', not starting with '.'";

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn dir_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (rel, bytes) in files {
            let p = d.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, bytes).unwrap();
        }
        d
    }

    #[test]
    fn reads_regular_files_and_views_subdirectories() {
        let d = dir_with(&[
            ("a.json", b"1"),
            ("niccs/x/c.json", b"2"),
            ("niccs/y/k", b""),
        ]);
        let ev = Evidence::read(d.path(), &Limits::default()).unwrap();
        assert_eq!(ev.get("a.json"), Some(&b"1"[..]));
        assert_eq!(ev.subdirectories("niccs"), ["x", "y"]);
        let x = ev.subtree("niccs/x");
        assert_eq!(x.name(), "x");
        assert_eq!(x.get("c.json"), Some(&b"2"[..]));
        assert_eq!(x.files().len(), 1);
        assert!(ev.has_dir("niccs"));
        assert!(!ev.has_dir("nic"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_at_once() {
        let d = dir_with(&[("a.json", b"1")]);
        let fifo = d.path().join("records.json");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            println!("SKIPPED: mkfifo is not available");
            return;
        }
        let e = Evidence::read(d.path(), &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("a FIFO, not a regular file"), "{e}");
        assert!(e.to_string().contains("records.json"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_only_to_files_inside() {
        let outside = dir_with(&[("secret", b"s")]);
        let d = dir_with(&[("a.json", b"1")]);
        std::os::unix::fs::symlink(d.path().join("a.json"), d.path().join("b.json")).unwrap();
        let ev = Evidence::read(d.path(), &Limits::default()).unwrap();
        assert_eq!(ev.get("b.json"), Some(&b"1"[..]));
        std::os::unix::fs::symlink(outside.path().join("secret"), d.path().join("c")).unwrap();
        let e = Evidence::read(d.path(), &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("leads out of the directory"), "{e}");
        fs::remove_file(d.path().join("c")).unwrap();
        std::os::unix::fs::symlink(d.path(), d.path().join("loop")).unwrap();
        let e = Evidence::read(d.path(), &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("to a directory"), "{e}");
    }

    #[test]
    fn limits_are_named_in_the_refusal() {
        let d = dir_with(&[("a", &[0u8; 3000]), ("b", &[0u8; 3000])]);
        let small = Limits {
            file_bytes: 2048,
            ..Limits::default()
        };
        let e = Evidence::read(d.path(), &small).unwrap_err();
        assert!(e.to_string().contains("--max-file-mib"), "{e}");
        let total = Limits {
            total_bytes: 5000,
            ..Limits::default()
        };
        let e = Evidence::read(d.path(), &total).unwrap_err();
        assert!(e.to_string().contains("--max-dir-mib"), "{e}");
        assert!(e.to_string().contains("/b: "), "{e}");
        let files = Limits {
            files: 1,
            ..Limits::default()
        };
        let e = Evidence::read(d.path(), &files).unwrap_err();
        assert!(e.to_string().contains("--max-files"), "{e}");
    }

    #[test]
    fn trials_are_counted_once_per_record() {
        let d = dir_with(&[("r/a.json", b"{}")]);
        let ev = Evidence::read(
            d.path(),
            &Limits {
                trials: 10,
                ..Limits::default()
            },
        )
        .unwrap();
        ev.count_trials("r/a.json", 6).unwrap();
        ev.subtree("r").count_trials("a.json", 6).unwrap();
        let e = ev.count_trials("r/b.json", 5).unwrap_err();
        assert!(e.to_string().contains("--max-trials"), "{e}");
    }

    #[test]
    fn system_ids() {
        for ok in ["arm_1", "x86-a.b", "A"] {
            assert!(is_system_id(ok), "{ok}");
        }
        for bad in [
            "",
            "../escape",
            "/tmp/x",
            ".hidden",
            "a b",
            "a\"><img",
            &"x".repeat(65),
        ] {
            assert!(!is_system_id(bad), "{bad}");
        }
    }
}
