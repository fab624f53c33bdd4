//! `pavelor sum --check [SUMSFILE]...`: verify the digests that sums files
//! list, a batch of lines at a time, with GNU's messages and counts.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;

use super::args::SumArgs;
use super::lines::{self, LineRead, needs_escape, next_line, parse_line, write_escaped};
use super::names::{STDIN_NAME, bytes_os, inputs};
use super::parallel;
use super::session::{BUF_LEN, Ctx};
use crate::terminal::io_msg;

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

/// `N thing(s) VERB`, with GNU's singular/plural wording.
fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl<W: Write> Ctx<W> {
    /// Checks every sums file; `Ok(false)` on any failure.
    pub(super) fn check_mode(&mut self, args: &SumArgs) -> io::Result<bool> {
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
            // Not locked: a line may name `-` and read standard input too.
            self.stdin().map(|r| Box::new(r) as Box<dyn Read>)
        } else {
            parallel::open_file(sums_name).map(|f| Box::new(f) as Box<dyn Read>)
        };
        let mut reader = match opened {
            Ok(r) => BufReader::with_capacity(BUF_LEN, r),
            Err(e) => {
                self.error(format_args!("{display}: {}", io_msg(&e)))?;
                return Ok(false);
            }
        };

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
        self.conclude(args, &display, t)
    }

    /// The verdict on one sums file from its counts, with GNU's warnings
    /// (unless --status): no well-formed line, improperly formatted lines,
    /// unreadable files, mismatched digests, and with --ignore-missing no
    /// file verified.
    fn conclude(&mut self, args: &SumArgs, display: &str, t: Tally) -> io::Result<bool> {
        let print = !args.status;
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
            Some(self.hash_files(jobs)?)
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
