//! Reading a KAT file with bounded memory: regular files only, at most
//! [`max_file_bytes`] of its kind.

use std::io::Read;
use std::path::Path;

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
/// The error is one line naming the file, for the caller to print.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let shown = path.display();
    // `metadata` follows symbolic links, so this is the target's type.
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "cannot read {shown}: it is {}, not a regular file; refused",
            file_type_name(&meta.file_type())
        ));
    }
    let too_big = || {
        format!(
            "{shown} is larger than {limit} bytes, more than any official KAT file of its kind; refused"
        )
    };
    if meta.len() > limit {
        return Err(too_big());
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    // What was opened must still be a regular file (it may have been
    // replaced since the check above).
    let opened = file
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !opened.is_file() {
        return Err(format!(
            "cannot read {shown}: it is {}, not a regular file; refused",
            file_type_name(&opened.file_type())
        ));
    }
    let mut text = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut text)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if text.len() as u64 > limit {
        return Err(too_big());
    }
    Ok(text)
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
