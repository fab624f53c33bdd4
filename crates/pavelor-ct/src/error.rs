//! The error of every fallible function in this crate: running the
//! disassembler, checking its listing, and the functional comparison of a
//! constant-time scenario.

use std::io;
use std::path::PathBuf;

/// What failed in the static check or in a scenario, and on which input.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The disassembler `tool` could not be started (not installed?).
    #[error("cannot run {tool} ({source}); install {package}")]
    ToolNotRun {
        /// The program run (`objdump`, `aarch64-linux-gnu-objdump`).
        tool: &'static str,
        /// The distribution package that provides it.
        package: &'static str,
        /// Why starting it failed.
        #[source]
        source: io::Error,
    },
    /// The disassembler `tool` ran on `binary` and exited unsuccessfully.
    #[error("{tool} failed on {}: {stderr}", binary.display())]
    ToolFailed {
        /// The program run.
        tool: &'static str,
        /// The binary it was asked to disassemble.
        binary: PathBuf,
        /// What it printed on stderr (lossily decoded).
        stderr: String,
    },
    /// Kernel functions asked for are absent from the listing.
    #[error(
        "kernel functions not found in the binary (inlined, renamed or \
         stripped?): {}",
        missing.join(", ")
    )]
    KernelsNotFound {
        /// The roots that no function in the listing matched.
        missing: Vec<String>,
    },
    /// A digest computed from secret input is not all secret in
    /// memcheck's view: the secret marking did not reach the computation.
    #[error(
        "{what}: digest is not entirely secret-derived in memcheck's view \
         (the secret marking did not reach the computation)"
    )]
    NotSecretDerived {
        /// Which digest of the scenario (e.g. `one-shot 17 bytes`).
        what: String,
    },
    /// A digest differs from the portable backend's.
    #[error("{what}: digest differs from the portable backend's")]
    DigestMismatch {
        /// Which digest of the scenario.
        what: String,
    },
    /// No [`pavelor::Algorithm`] has this instance's digest size.
    #[error("no Algorithm for this instance")]
    NoAlgorithm {
        /// The digest size looked up, in bits.
        output_bits: u32,
    },
    /// The hasher rejected an input (e.g. a bit count beyond the data).
    #[error(transparent)]
    Hash(#[from] pavelor::Error),
    /// A batch call rejected its buffers.
    #[error(transparent)]
    Batch(#[from] pavelor::BatchError),
    /// A scenario failed on one instance.
    #[error("{instance}: {source}")]
    Instance {
        /// The instance's name (`Pavelor-512`, …).
        instance: &'static str,
        /// The failure on it.
        #[source]
        source: Box<Error>,
    },
}
