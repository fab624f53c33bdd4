//! Checking an [`Implementation`](crate::Implementation) against the
//! official KAT answers: either the answers embedded in this crate
//! ([`check_embedded`]) or a KAT file on disk ([`check_file`],
//! [`check_file_bytes`]), strictly.
//!
//! Both return a [`Report`] whose [`Failure`] names the first record that
//! did not verify. A file passes only if it is the official file: exactly
//! the official record count and `Msg_Len` schedule, every `Msg` equal to
//! the DRNG output, `Msg_Seed`/`Msg_Exp` as in the official file, the
//! canonical layout byte for byte, every `Dst` equal to the embedded answer
//! (and to the implementation's digest), and the file's strict-form SHA-256
//! equal to the NICCS manifest value.
//!
//! ```no_run
//! use pavelor::{Algorithm, Available};
//! use pavelor_kat::KatKind;
//! use pavelor_kat::official::check_embedded;
//!
//! let mut backend = Available::best();
//! let report = check_embedded(&mut backend, Algorithm::Pavelor512, KatKind::Kat2_12, &mut |_, _| {});
//! println!("{report}"); // KAT_2_12_Pavelor-512.txt: PASS 4097/4097
//! assert!(report.is_pass());
//! ```
//!
//! The files, each using only the ones before it:
//!
//! * `report.rs`: [`Report`] and [`Failure`], what a check returns;
//! * `schedule.rs`: what an official file holds: [`record_count`], the
//!   `Msg_Len` of each record ([`official_msg_len`]), each record's message,
//!   the canonical layout;
//! * `answers.rs`: comparing digests and whole files with the embedded
//!   answers and the NICCS manifest;
//! * `bounded_read.rs`: reading a KAT file with bounded memory
//!   ([`read_limited`], [`max_file_bytes`]);
//! * `embedded_check.rs`: [`check_embedded`], no file involved;
//! * `file_check.rs`: [`check_file`] and [`check_file_bytes`], the strict
//!   check of a file.

mod answers;
mod bounded_read;
mod embedded_check;
mod file_check;
mod report;
mod schedule;

pub use bounded_read::{
    MAX_FILE_BYTES_2_12, MAX_FILE_BYTES_OTHER, ReadError, max_file_bytes, read_limited,
};
pub use embedded_check::check_embedded;
pub use file_check::{check_file, check_file_bytes};
pub use report::{Failure, Report};
pub use schedule::{official_msg_len, record_count};
