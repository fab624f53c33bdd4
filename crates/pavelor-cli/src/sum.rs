//! `pavelor sum`: print or check Pavelor digests, in the formats of GNU
//! `sha512sum` (plain `HEX  NAME` lines, or BSD-style `--tag` lines).

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::num::NonZeroUsize;
use std::path::Path;
use std::process::ExitCode;

use pavelor::{Algorithm, Backend, DynHasher, DynOutput};

use crate::output::{self, io_msg, report};
use crate::std_fds::{self, StdFd, ebadf};

// The sums-file line format, self-contained (std + `pavelor::Algorithm`) so
// that the fuzz target in `fuzz/` can include the very same file.
mod lines;
// Many files at once: worker threads and multi-lane hashing.
mod parallel;
// One large input: reading on a second thread while this one hashes.
mod overlap;
#[cfg(test)]
use lines::{Entry, MAX_LINE, unescape};
use lines::{LineRead, needs_escape, next_line, parse_line, write_escaped};

/// Size of the read buffer that inputs are streamed through. Above the C
/// allocator's mmap threshold (128 KiB), so that it comes zeroed from the
/// kernel, page by page as it is touched, instead of being cleared at
/// start-up.
const BUF_LEN: usize = 256 * 1024;

/// Capacity of the buffered standard output.
const OUT_BUF_LEN: usize = 64 * 1024;

/// Bytes of one input hashed on this thread alone before the rest is read
/// on a second thread ([`overlap`]): small inputs never pay for starting it.
const OVERLAP_AFTER: u64 = 1 << 20;

/// The name that stands for standard input.
const STDIN_NAME: &str = "-";

#[derive(clap::Args)]
#[command(after_help = "\
With no FILE, or when FILE is -, read standard input.

Output lines are 'HEX  NAME' (or 'Pavelor-NNN (NAME) = HEX' with --tag); a \
name holding a backslash, a newline or a carriage return is escaped as GNU \
sha512sum does it (the line starts with '\\'; '\\\\', '\\n', '\\r'), except \
with --zero. With --check, each FILE is a list of such lines (tag lines \
choose their own instance; plain lines use --algorithm). Exit status: 0 on \
success, 1 if an input could not be read or a check failed (or, with \
--ignore-missing, no file was verified) or standard input/output is closed, \
2 on a usage error.")]
pub struct SumArgs {
    #[command(flatten)]
    pub hash: crate::HashOpts,

    /// Files to hash (with --check: sums files to verify). '-' is standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,

    /// Print BSD-style lines: 'Pavelor-512 (NAME) = HEX'.
    #[arg(long, conflicts_with = "check")]
    pub tag: bool,

    /// Read digests from the FILEs and check them.
    #[arg(short = 'c', long)]
    pub check: bool,

    /// Mark the files as read in binary mode ('HEX *NAME'); as on every
    /// POSIX system, the digest is the same.
    #[arg(short = 'b', long, overrides_with = "text", conflicts_with = "check")]
    pub binary: bool,

    /// Read in text mode (the default; same digest as --binary).
    #[arg(short = 't', long, overrides_with = "binary", conflicts_with = "check")]
    pub text: bool,

    /// End each output line with NUL, not newline, and do not escape file
    /// names. With --check: the sums files' lines end with NUL (an
    /// extension: GNU refuses --zero with --check).
    #[arg(short = 'z', long)]
    pub zero: bool,

    /// With --check: don't fail or report status for missing files.
    #[arg(long, requires = "check")]
    pub ignore_missing: bool,

    /// With --check: don't print OK for each verified file.
    #[arg(long, requires = "check")]
    pub quiet: bool,

    /// With --check: print nothing; the exit status tells the result.
    #[arg(long, requires = "check")]
    pub status: bool,

    /// With --check: exit 1 if a line is improperly formatted.
    #[arg(long, requires = "check")]
    pub strict: bool,

    /// With --check: warn about each improperly formatted line.
    #[arg(short = 'w', long, requires = "check")]
    pub warn: bool,

    /// Hash the message given as hex digits (MSB-first nibbles; an odd count
    /// is allowed) and print the digest alone. '' is the empty message.
    #[arg(long, value_name = "HEX", conflicts_with_all = ["files", "check", "tag"])]
    pub hex: Option<String>,

    /// With --hex: hash only the first N bits of the message
    /// [default: 4 x number of hex digits].
    #[arg(long, value_name = "N", requires = "hex")]
    pub bits: Option<u64>,

    /// Hash files on N threads, each streaming up to 4 files at once
    /// through the multi-lane kernels of the backend [default: the number
    /// of cores]. Output stays in argument (or line) order.
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<NonZeroUsize>,
}

/// Runs `pavelor sum`.
pub fn run(args: &SumArgs) -> ExitCode {
    let backend = match args.hash.backend() {
        Ok(b) => b,
        Err(e) => {
            report(format_args!("{e}"));
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = args.hash.algorithm.hasher_with(backend) {
        report(format_args!("{e}"));
        return ExitCode::FAILURE;
    }

    let stdout = io::stdout();
    let mut ctx = Ctx {
        out: Tracked {
            inner: BufWriter::with_capacity(OUT_BUF_LEN, stdout.lock()),
            wrote: false,
        },
        buf: vec![0; BUF_LEN],
        backend,
        jobs: args.jobs,
        stdin_closed: std_fds::was_closed(StdFd::In),
    };
    let result = if let Some(hex) = &args.hex {
        ctx.hex_mode(args, hex)
    } else if args.check {
        ctx.check_mode(args)
    } else {
        ctx.sum_mode(args)
    };
    output::finish(result.and_then(|ok| {
        ctx.out.flush()?;
        // Output into a stdout that was closed at start is lost: an error.
        if ctx.out.wrote && std_fds::was_closed(StdFd::Out) {
            return Err(ebadf());
        }
        Ok(if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }))
}

/// A writer that remembers whether anything was written to it.
struct Tracked<W: Write> {
    inner: W,
    wrote: bool,
}

impl<W: Write> Write for Tracked<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.wrote |= !buf.is_empty();
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The bytes of a file name, as printed.
#[cfg(unix)]
fn os_bytes(name: &OsStr) -> Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    Cow::Borrowed(name.as_bytes())
}

#[cfg(not(unix))]
fn os_bytes(name: &OsStr) -> Cow<'_, [u8]> {
    match name.to_string_lossy() {
        Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
        Cow::Owned(s) => Cow::Owned(s.into_bytes()),
    }
}

/// The file name given by the bytes of a sums-file line.
#[cfg(unix)]
fn bytes_os(name: &[u8]) -> Cow<'_, OsStr> {
    use std::os::unix::ffi::OsStrExt;
    Cow::Borrowed(OsStr::from_bytes(name))
}

#[cfg(not(unix))]
fn bytes_os(name: &[u8]) -> Cow<'_, OsStr> {
    match String::from_utf8_lossy(name) {
        Cow::Borrowed(s) => Cow::Borrowed(OsStr::new(s)),
        Cow::Owned(s) => Cow::Owned(OsString::from(s)),
    }
}

/// `N thing(s) VERB`, with GNU's singular/plural wording.
fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The state of one `pavelor sum` run.
struct Ctx<W: Write> {
    out: W,
    buf: Vec<u8>,
    backend: Backend,
    /// Worker threads for many files (`-j`); the number of cores, asked
    /// only when there are many files, if not given.
    jobs: Option<NonZeroUsize>,
    /// Standard input was closed when we were started (`<&-`): reading it
    /// is an error (EBADF), not the empty message.
    stdin_closed: bool,
}

impl<W: Write> Ctx<W> {
    /// Worker threads for many files.
    fn threads(&self) -> NonZeroUsize {
        self.jobs.unwrap_or_else(parallel::default_threads)
    }

    /// Reports `pavelor: MSG` on stderr, after flushing stdout so that the
    /// two stay in order. Errors are those of stdout.
    fn error(&mut self, msg: fmt::Arguments<'_>) -> io::Result<()> {
        self.out.flush()?;
        report(msg);
        Ok(())
    }

    fn hasher(&self, alg: Algorithm) -> io::Result<DynHasher> {
        alg.hasher_with(self.backend).map_err(io::Error::other)
    }

    /// Hashes everything `r` gives: the first [`OVERLAP_AFTER`] bytes
    /// through the fixed buffer, the rest read on a second thread.
    fn hash_reader<R: Read + Send>(&mut self, alg: Algorithm, r: &mut R) -> io::Result<DynOutput> {
        let mut h = self.hasher(alg)?;
        let mut hashed = 0u64;
        while hashed < OVERLAP_AFTER {
            match r.read(&mut self.buf) {
                Ok(0) => return Ok(h.finalize()),
                Ok(n) => {
                    h.update(&self.buf[..n]);
                    hashed += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        overlap::hash_rest(&mut h, r)?;
        Ok(h.finalize())
    }

    /// Hashes the file `name` (`-`: standard input).
    fn hash_input(&mut self, alg: Algorithm, name: &OsStr) -> io::Result<DynOutput> {
        if name == STDIN_NAME {
            if self.stdin_closed {
                return Err(ebadf());
            }
            return self.hash_reader(alg, &mut io::stdin());
        }
        let mut file = parallel::open_file(name)?;
        self.hash_reader(alg, &mut file)
    }

    /// `pavelor sum [--tag] [FILE]...`. `Ok(false)` if an input failed.
    fn sum_mode(&mut self, args: &SumArgs) -> io::Result<bool> {
        let alg = args.hash.algorithm;
        let files = inputs(&args.files);
        let mut ok = true;
        // Standard input (a single stream) and a lone file take the
        // one-at-a-time path, the reference for every digest.
        if files.len() == 1 || files.iter().any(|f| f == STDIN_NAME) {
            for name in &files {
                let digest = self.hash_input(alg, name).map(|d| d[..].to_vec());
                ok &= self.print_sum(args, name, digest)?;
            }
            return Ok(ok);
        }
        let jobs = files
            .iter()
            .map(|f| parallel::Job {
                alg,
                path: f.clone(),
            })
            .collect();
        let results = parallel::hash_files(jobs, self.backend, self.threads())?;
        for (name, digest) in files.iter().zip(results) {
            ok &= self.print_sum(args, name, digest)?;
        }
        Ok(ok)
    }

    /// Prints the line of one file of `sum_mode` (or reports its error):
    /// `Ok(false)` for an error.
    fn print_sum(
        &mut self,
        args: &SumArgs,
        name: &OsStr,
        digest: io::Result<Vec<u8>>,
    ) -> io::Result<bool> {
        let alg = args.hash.algorithm;
        let digest = match digest {
            Ok(d) => ::hex::encode(d),
            Err(e) => {
                self.error(format_args!("{}: {}", name.to_string_lossy(), io_msg(&e)))?;
                return Ok(false);
            }
        };
        let bytes = os_bytes(name);
        // GNU: with --zero, names are written as they are.
        let escape = !args.zero && needs_escape(&bytes);
        if escape {
            self.out.write_all(b"\\")?;
        }
        if args.tag {
            write!(self.out, "{} (", alg.name())?;
        } else {
            let mode = if args.binary { '*' } else { ' ' };
            write!(self.out, "{digest} {mode}")?;
        }
        if escape {
            write_escaped(&mut self.out, &bytes)?;
        } else {
            self.out.write_all(&bytes)?;
        }
        if args.tag {
            write!(self.out, ") = {digest}")?;
        }
        self.out.write_all(if args.zero { b"\0" } else { b"\n" })?;
        Ok(true)
    }

    /// `pavelor sum --hex HEX [--bits N]`.
    fn hex_mode(&mut self, args: &SumArgs, hex: &str) -> io::Result<bool> {
        // An odd digit count is a message ending in a half byte: pad it
        // with a 0 nibble (the bits past --bits are never hashed).
        let padded;
        let even = if hex.len() % 2 == 1 {
            padded = format!("{hex}0");
            &padded
        } else {
            hex
        };
        let message = match ::hex::decode(even) {
            Ok(m) => m,
            Err(::hex::FromHexError::InvalidHexCharacter { c, index }) => {
                // `index` is a byte offset (at a char boundary: every byte
                // before it is an ASCII digit); report the whole character.
                let c = hex.get(index..).and_then(|r| r.chars().next()).unwrap_or(c);
                let pos = hex.get(..index).map_or(index, |p| p.chars().count()) + 1;
                self.error(format_args!(
                    "--hex: invalid hex digit '{}' at position {pos}",
                    c.escape_default()
                ))?;
                return Ok(false);
            }
            Err(e) => {
                self.error(format_args!("--hex: {e}"))?;
                return Ok(false);
            }
        };
        let ndigits = hex.len() as u64;
        let available = 4 * ndigits;
        let nbits = args.bits.unwrap_or(available);
        if nbits > available {
            self.error(format_args!(
                "--bits {nbits}: more than the {available} bits that --hex gives"
            ))?;
            return Ok(false);
        }
        let mut h = self.hasher(args.hash.algorithm)?;
        if let Err(e) = h.update_bits(&message, nbits) {
            self.error(format_args!("--hex: {e}"))?;
            return Ok(false);
        }
        write!(self.out, "{:x}", h.finalize())?;
        self.out.write_all(if args.zero { b"\0" } else { b"\n" })?;
        Ok(true)
    }

    /// `pavelor sum --check [SUMSFILE]...`. `Ok(false)` on any failure.
    fn check_mode(&mut self, args: &SumArgs) -> io::Result<bool> {
        let files = inputs(&args.files);
        let mut ok = true;
        for name in &files {
            ok &= self.check_sums_file(args, name)?;
        }
        Ok(ok)
    }

    /// Checks the lines of one sums file.
    fn check_sums_file(&mut self, args: &SumArgs, sums_name: &OsStr) -> io::Result<bool> {
        let is_stdin = sums_name == STDIN_NAME;
        let display = if is_stdin {
            Cow::Borrowed("standard input")
        } else {
            sums_name.to_string_lossy()
        };
        let opened: io::Result<Box<dyn Read>> = if is_stdin {
            if self.stdin_closed {
                Err(ebadf())
            } else {
                // Not locked: a line may name `-` and read standard input too.
                Ok(Box::new(io::stdin()))
            }
        } else {
            File::open(sums_name).and_then(|f| {
                if f.metadata()?.is_dir() {
                    Err(io::Error::new(
                        io::ErrorKind::IsADirectory,
                        "Is a directory",
                    ))
                } else {
                    Ok(Box::new(f) as Box<dyn Read>)
                }
            })
        };
        let mut reader = match opened {
            Ok(r) => BufReader::with_capacity(BUF_LEN, r),
            Err(e) => {
                self.error(format_args!("{display}: {}", io_msg(&e)))?;
                return Ok(false);
            }
        };

        let print = !args.status;
        let mut t = Tally::default();
        let delim = if args.zero { b'\0' } else { b'\n' };
        let mut line = Vec::new();
        let mut lineno: u64 = 0;
        // Lines are verified a batch at a time, the files of a batch
        // concurrently; bounded memory whatever the sums file's length.
        let mut batch: Vec<Item> = Vec::new();
        let mut entries = 0;
        loop {
            let kind = match next_line(&mut reader, &mut line, delim) {
                Ok(kind) => kind,
                Err(e) => {
                    self.check_batch(args, &display, &mut batch, &mut t)?;
                    self.error(format_args!("{display}: {}", io_msg(&e)))?;
                    return Ok(false);
                }
            };
            lineno += 1;
            let entry = match kind {
                LineRead::Eof => break,
                LineRead::TooLong => None,
                LineRead::Full => {
                    // CR LF line ends, as GNU accepts them. A CR that is part
                    // of a name is written escaped (`\r`), never raw.
                    if delim == b'\n' && line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    // Empty lines and comments are skipped, as GNU does.
                    if line.is_empty() || line[0] == b'#' {
                        continue;
                    }
                    parse_line(&line, args.hash.algorithm)
                }
            };
            match entry {
                Some(entry) => {
                    batch.push(Item::Entry(entry));
                    entries += 1;
                }
                None => batch.push(Item::Bad(lineno)),
            }
            if entries >= CHECK_BATCH || batch.len() >= 4 * CHECK_BATCH {
                self.check_batch(args, &display, &mut batch, &mut t)?;
                entries = 0;
            }
        }
        self.check_batch(args, &display, &mut batch, &mut t)?;
        let Tally {
            good_lines,
            bad_lines,
            unreadable,
            mismatched,
            matched,
        } = t;
        if good_lines == 0 {
            self.error(format_args!(
                "{display}: no properly formatted checksum lines found"
            ))?;
            return Ok(false);
        }
        if print {
            if bad_lines > 0 {
                let what = counted(bad_lines, "line is", "lines are");
                self.error(format_args!("WARNING: {what} improperly formatted"))?;
            }
            if unreadable > 0 {
                let what = counted(unreadable, "listed file", "listed files");
                self.error(format_args!("WARNING: {what} could not be read"))?;
            }
            if mismatched > 0 {
                let what = counted(mismatched, "computed checksum", "computed checksums");
                self.error(format_args!("WARNING: {what} did NOT match"))?;
            }
        }
        // As GNU: a failure even when digests mismatched (then both are said).
        if args.ignore_missing && matched == 0 {
            if print {
                self.error(format_args!("{display}: no file was verified"))?;
            }
            return Ok(false);
        }
        Ok(mismatched == 0 && unreadable == 0 && !(args.strict && bad_lines > 0))
    }

    /// Verifies the lines of `batch` (emptied), printing in line order.
    fn check_batch(
        &mut self,
        args: &SumArgs,
        display: &str,
        batch: &mut Vec<Item>,
        t: &mut Tally,
    ) -> io::Result<()> {
        let print = !args.status;
        // A line naming standard input keeps the batch on the one-at-a-time
        // path (standard input is one stream, maybe the sums file itself).
        let jobs: Vec<parallel::Job> = batch
            .iter()
            .filter_map(|item| match item {
                Item::Entry(e) => Some(parallel::Job {
                    alg: e.alg,
                    path: bytes_os(&e.name).into_owned(),
                }),
                Item::Bad(_) => None,
            })
            .collect();
        let mut results = if jobs.len() < 2 || jobs.iter().any(|j| j.path == STDIN_NAME) {
            None
        } else {
            Some(parallel::hash_files(jobs, self.backend, self.threads())?)
        };
        for item in batch.drain(..) {
            let entry = match item {
                Item::Bad(lineno) => {
                    t.bad_lines += 1;
                    if args.warn && print {
                        self.error(format_args!(
                            "{display}: {lineno}: improperly formatted Pavelor checksum line"
                        ))?;
                    }
                    continue;
                }
                Item::Entry(entry) => entry,
            };
            t.good_lines += 1;
            let path = bytes_os(&entry.name);
            let result = match results.as_mut() {
                Some(r) => r
                    .next()
                    .unwrap_or_else(|| Err(io::Error::other("missing result"))),
                None => self.hash_input(entry.alg, &path).map(|d| d[..].to_vec()),
            };
            let verdict: &[u8] = match result {
                Ok(d) if d[..] == entry.digest[..] => {
                    t.matched += 1;
                    if args.quiet || !print {
                        continue;
                    }
                    b": OK\n"
                }
                Ok(_) => {
                    t.mismatched += 1;
                    b": FAILED\n"
                }
                Err(e) if args.ignore_missing && e.kind() == io::ErrorKind::NotFound => {
                    continue;
                }
                Err(e) => {
                    t.unreadable += 1;
                    if print {
                        self.error(format_args!(
                            "{}: {}",
                            Path::new(&*path).display(),
                            io_msg(&e)
                        ))?;
                    }
                    b": FAILED open or read\n"
                }
            };
            if print {
                if needs_escape(&entry.name) {
                    self.out.write_all(b"\\")?;
                }
                write_escaped(&mut self.out, &entry.name)?;
                self.out.write_all(verdict)?;
            }
        }
        Ok(())
    }
}

/// Lines of a sums file verified at once (at most).
const CHECK_BATCH: usize = 1024;

/// A line of a sums file, to verify.
enum Item {
    /// An improperly formatted line (its number).
    Bad(u64),
    /// A well-formed line.
    Entry(lines::Entry),
}

/// The counts of one sums file.
#[derive(Default)]
struct Tally {
    good_lines: u64,
    bad_lines: u64,
    unreadable: u64,
    mismatched: u64,
    /// Digests that matched: with --ignore-missing, none is a failure.
    matched: u64,
}

/// The FILE arguments, or standard input (`-`) when there are none.
fn inputs(files: &[OsString]) -> Vec<OsString> {
    if files.is_empty() {
        vec![OsString::from(STDIN_NAME)]
    } else {
        files.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Algorithm = Algorithm::Pavelor512;

    #[test]
    fn escape_roundtrip() {
        let name = b"a\\b\nc\r";
        let mut out = Vec::new();
        write_escaped(&mut out, name).ok();
        assert_eq!(out, b"a\\\\b\\nc\\r");
        assert!(needs_escape(b"f\r"));
        assert!(!needs_escape(b"f\t "));
        assert_eq!(unescape(&out).as_deref(), Some(&name[..]));
        assert_eq!(unescape(b"a\\x"), None);
        assert_eq!(unescape(b"a\\"), None);
    }

    #[test]
    fn parses_plain_and_tagged() {
        let hex = "ab".repeat(64);
        let e = parse_line(format!("{hex}  f i le").as_bytes(), A);
        assert_eq!(
            e,
            Some(Entry {
                alg: A,
                digest: vec![0xab; 64],
                name: b"f i le".to_vec()
            })
        );
        assert!(parse_line(format!("{hex} *f").as_bytes(), A).is_some());
        assert!(parse_line(format!("{}  f", hex.to_uppercase()).as_bytes(), A).is_some());
        assert!(parse_line(format!("{hex}  ").as_bytes(), A).is_none());
        assert!(parse_line(format!("{hex} f").as_bytes(), A).is_none());
        assert!(parse_line(format!("{hex}a  f").as_bytes(), A).is_none());
        assert!(parse_line(format!("{hex}  f").as_bytes(), Algorithm::Pavelor768).is_none());

        let hex768 = "cd".repeat(96);
        let e = parse_line(format!("Pavelor-768 (a (b)) = {hex768}").as_bytes(), A);
        assert_eq!(
            e,
            Some(Entry {
                alg: Algorithm::Pavelor768,
                digest: vec![0xcd; 96],
                name: b"a (b)".to_vec()
            })
        );
        assert!(parse_line(format!("Pavelor-512 (x) = {hex768}").as_bytes(), A).is_none());
        assert!(parse_line(format!("Pavelor-256 (x) = {hex}").as_bytes(), A).is_none());
        let e = parse_line(format!("\\Pavelor-512 (a\\nb) = {hex}").as_bytes(), A);
        assert_eq!(e.map(|e| e.name), Some(b"a\nb".to_vec()));
        let e = parse_line(format!("\\{hex}  a\\\\b").as_bytes(), A);
        assert_eq!(e.map(|e| e.name), Some(b"a\\b".to_vec()));
        assert!(parse_line(b"\xff\xfe garbage", A).is_none());
    }

    #[test]
    fn long_lines_are_skipped() {
        let mut data = vec![b'x'; MAX_LINE + 10];
        data.extend_from_slice(b"\nshort\nlast");
        let mut r = io::Cursor::new(data);
        let mut line = Vec::new();
        assert!(matches!(
            next_line(&mut r, &mut line, b'\n'),
            Ok(LineRead::TooLong)
        ));
        assert!(matches!(
            next_line(&mut r, &mut line, b'\n'),
            Ok(LineRead::Full)
        ));
        assert_eq!(line, b"short");
        assert!(matches!(
            next_line(&mut r, &mut line, b'\n'),
            Ok(LineRead::Full)
        ));
        assert_eq!(line, b"last");
        assert!(matches!(
            next_line(&mut r, &mut line, b'\n'),
            Ok(LineRead::Eof)
        ));

        // NUL-terminated (--zero): newlines are part of the line.
        let mut r = io::Cursor::new(b"a\nb\0c\r\0".to_vec());
        assert!(matches!(
            next_line(&mut r, &mut line, 0),
            Ok(LineRead::Full)
        ));
        assert_eq!(line, b"a\nb");
        assert!(matches!(
            next_line(&mut r, &mut line, 0),
            Ok(LineRead::Full)
        ));
        assert_eq!(line, b"c\r");
        assert!(matches!(next_line(&mut r, &mut line, 0), Ok(LineRead::Eof)));
    }
}
