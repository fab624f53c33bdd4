//! Reading a KAT file with bounded memory: regular files only, at most
//! [`max_file_bytes`] of its kind.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::suite::KatKind;

/// Size limit for reading a `KAT_2_12` file: the largest official one
/// (`Pavelor-1024`, 3 333 335 bytes) plus about 25 % slack.
pub const MAX_FILE_BYTES_2_12: u64 = 4 << 20;
/// Size limit for reading any other KAT file (the official ones are under
/// 2.4 KB).
pub const MAX_FILE_BYTES_OTHER: u64 = 64 << 10;

/// The largest file of `kind` the verifier reads; anything longer is
/// refused before it is held in memory.
pub fn max_file_bytes(kind: KatKind) -> u64 {
    match kind {
        KatKind::Kat2_12 => MAX_FILE_BYTES_2_12,
        _ => MAX_FILE_BYTES_OTHER,
    }
}

/// Reads at most `limit` bytes of `path`, which must be a regular file
/// (a symbolic link is followed: one to a regular file is fine).
///
/// Anything else — a directory, a FIFO, a socket, a character or block
/// device such as `/dev/zero` — is refused from its metadata, before it is
/// opened: opening a FIFO with no writer would block forever. A regular
/// file larger than `limit` is refused unread; since it may grow between
/// the check and the read, the read is still bounded (`Read::take`), so no
/// more than `limit + 1` bytes are ever held.
///
/// The error ([`ReadError`]) is one line naming the file, for the caller
/// to print.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let not_a_file = |t: &std::fs::FileType| ReadError::NotAFile {
        path: path.to_path_buf(),
        kind: file_type_name(t),
    };
    let too_big = || ReadError::TooLarge {
        path: path.to_path_buf(),
        limit,
    };
    // `metadata` follows symbolic links, so this is the target's type.
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(not_a_file(&meta.file_type()));
    }
    if meta.len() > limit {
        return Err(too_big());
    }
    let file = std::fs::File::open(path).map_err(io)?;
    // What was opened must still be a regular file (it may have been
    // replaced since the check above).
    let opened = file.metadata().map_err(io)?;
    if !opened.is_file() {
        return Err(not_a_file(&opened.file_type()));
    }
    let mut text = Vec::new();
    file.take(limit + 1).read_to_end(&mut text).map_err(io)?;
    if text.len() as u64 > limit {
        return Err(too_big());
    }
    Ok(text)
}

/// Why [`read_limited`] read no text; the `Display` is one line naming the
/// file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The file is not a regular file (after symbolic links).
    #[error("cannot read {}: it is {kind}, not a regular file; refused", path.display())]
    NotAFile {
        /// The file.
        path: PathBuf,
        /// What it is: "a directory", "a FIFO", ...
        kind: &'static str,
    },
    /// The file is larger than the limit.
    #[error(
        "{} is larger than {limit} bytes, more than any official KAT file of its kind; refused",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit, bytes.
        limit: u64,
    },
}

/// "a directory", "a FIFO", ... for [`read_limited`]'s refusal.
fn file_type_name(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "of another type"
    }
}
