//! File names: `-` for standard input, the FILE arguments, and the bytes
//! of a name as a line prints them or a sums file gives them.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};

/// The name that stands for standard input.
pub(super) const STDIN_NAME: &str = "-";

/// The FILE arguments, or standard input (`-`) when there are none.
pub(super) fn inputs(files: &[OsString]) -> Vec<OsString> {
    if files.is_empty() {
        vec![OsString::from(STDIN_NAME)]
    } else {
        files.to_vec()
    }
}

/// The bytes of a file name, as printed.
#[cfg(unix)]
pub(super) fn os_bytes(name: &OsStr) -> Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    Cow::Borrowed(name.as_bytes())
}

/// The bytes of a file name, as printed (lossy: only Unix names are bytes).
#[cfg(not(unix))]
pub(super) fn os_bytes(name: &OsStr) -> Cow<'_, [u8]> {
    match name.to_string_lossy() {
        Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
        Cow::Owned(s) => Cow::Owned(s.into_bytes()),
    }
}

/// The file name given by the bytes of a sums-file line.
#[cfg(unix)]
pub(super) fn bytes_os(name: &[u8]) -> Cow<'_, OsStr> {
    use std::os::unix::ffi::OsStrExt;
    Cow::Borrowed(OsStr::from_bytes(name))
}

/// The file name given by the bytes of a sums-file line (lossy: only Unix
/// names are bytes).
#[cfg(not(unix))]
pub(super) fn bytes_os(name: &[u8]) -> Cow<'_, OsStr> {
    match String::from_utf8_lossy(name) {
        Cow::Borrowed(s) => Cow::Borrowed(OsStr::new(s)),
        Cow::Owned(s) => Cow::Owned(OsString::from(s)),
    }
}
