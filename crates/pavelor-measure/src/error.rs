//! The crate's error: one variant per module with failures of its own,
//! each wrapping that module's error with the same message.

/// A failure in `pavelor-measure`, by the module it comes from.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Running a worker in isolation ([`crate::isolate`]).
    #[error(transparent)]
    Isolate(#[from] crate::isolate::Error),
    /// The hardware cycle counter ([`crate::clock`]).
    #[error(transparent)]
    Clock(#[from] crate::clock::Error),
    /// The worker's own setup ([`crate::worker`]).
    #[error(transparent)]
    Worker(#[from] crate::worker::Error),
    /// A `--lib` argument ([`crate::library`]).
    #[error(transparent)]
    LibSpec(#[from] crate::library::SpecError),
    /// A worker's library task ([`crate::library::tasks`]).
    #[error(transparent)]
    LibTask(#[from] crate::library::tasks::Error),
    /// A list of libraries checked before any work ([`crate::library::validate`]).
    #[error(transparent)]
    LibCheck(#[from] crate::library::CheckError),
    /// A library file's identity ([`crate::library::identity`]).
    #[error(transparent)]
    Identity(#[from] crate::library::identity::Error),
    /// A library file's header check ([`crate::library::identity::check_header`]).
    #[error(transparent)]
    Header(#[from] crate::library::identity::HeaderError),
    /// An ELF file's bytes ([`pavelor_elf`]).
    #[error(transparent)]
    Elf(#[from] pavelor_elf::Error),
    /// An ELF file, with its path ([`pavelor_elf`]).
    #[error(transparent)]
    ElfFile(#[from] pavelor_elf::FileError),
    /// Placing a message at the end of its memory ([`crate::page_end`]).
    #[error(transparent)]
    PageEnd(#[from] crate::page_end::Error),
}
