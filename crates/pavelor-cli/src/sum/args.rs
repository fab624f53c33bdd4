//! The command line of `pavelor sum`.

use std::ffi::OsString;
use std::num::NonZeroUsize;

use super::lines::DigestText;

#[derive(clap::Args)]
#[command(after_help = "\
With no FILE, or when FILE is -, read standard input.

Output lines are 'HEX  NAME' (or 'Pavelor-NNN (NAME) = HEX' with --tag; \
base64 in place of HEX with --base64); a \
name holding a backslash, a newline or a carriage return is escaped as GNU \
sha512sum does it (the line starts with '\\'; '\\\\', '\\n', '\\r'), except \
with --zero. With --check, each FILE is a list of such lines (tag lines \
choose their own instance; plain lines use --algorithm), the digests in hex \
or base64 alike. --raw writes the bare digest bytes of one input, for piping \
into another program. Exit status: 0 on \
success, 1 if an input could not be read or a check failed (or, with \
--ignore-missing, no file was verified) or standard input/output is closed, \
2 on a usage error.")]
pub(crate) struct SumArgs {
    #[command(flatten)]
    pub hash: crate::options::HashOpts,

    /// Files to hash (with --check: sums files to verify). '-' is standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,

    /// Print BSD-style lines: 'Pavelor-512 (NAME) = HEX'.
    #[arg(long, conflicts_with = "check")]
    pub tag: bool,

    /// Write digests in base64 (with padding), not hex, as GNU `cksum
    /// --base64`. (--check reads either, without this option.)
    #[arg(long, conflicts_with = "check")]
    pub base64: bool,

    /// Write only the digest's bytes, no line: for exactly one input
    /// (FILE, standard input or --hex), as GNU `cksum --raw`.
    #[arg(long, conflicts_with_all = ["check", "tag", "base64"])]
    pub raw: bool,

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
    /// is allowed) and print the digest alone (--base64, --raw: spelled
    /// so). '' is the empty message.
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

impl SumArgs {
    /// How digests are spelled in lines.
    pub(super) fn digest_text(&self) -> DigestText {
        if self.base64 {
            DigestText::Base64
        } else {
            DigestText::Hex
        }
    }
}
