//! Writing result files so that a reader never sees half of one: the
//! workspace's one helper, which lives in `pavelor-kat` (so that `xtask`
//! can use it without this crate's dependencies).

pub use pavelor_kat::output::{atomic_write, remove_temp_files};
