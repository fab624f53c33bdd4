//! Why an ELF file was refused: its first bytes are no ELF header, this
//! machine does not load it, a table is broken or larger than
//! [`crate::MAX_TABLE_BYTES`]. Each message is one line.

use std::path::PathBuf;

use object::elf;

use crate::{Ident, MAX_TABLE_BYTES, machine_name};

/// What is wrong with an ELF file's bytes, without its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The file is empty.
    #[error("not an ELF file (it is empty)")]
    Empty,
    /// The file does not start with the ELF magic.
    #[error("not an ELF file (it starts with {})", shown_bytes(&start[..*shown], *longer))]
    NotElf {
        /// The first bytes of the file (the first `shown` of them count).
        start: [u8; SHOWN_BYTES],
        /// How many bytes of `start` the file has (1 to [`SHOWN_BYTES`]).
        shown: usize,
        /// Whether the file has more bytes than `shown`.
        longer: bool,
    },
    /// The file is shorter than the ELF header of its class.
    #[error("a truncated ELF file ({len} bytes, shorter than an ELF header)")]
    Truncated {
        /// The bytes the file has (at most the header's size).
        len: usize,
    },
    /// `EI_CLASS` is neither `ELFCLASS32` nor `ELFCLASS64`.
    #[error("an ELF file of unknown class {class} (not 32 nor 64-bit)")]
    UnknownClass {
        /// The byte found.
        class: u8,
    },
    /// `EI_DATA` is neither `ELFDATA2LSB` nor `ELFDATA2MSB`.
    #[error("an ELF file of unknown byte order {data}")]
    UnknownByteOrder {
        /// The byte found.
        data: u8,
    },
    /// `EI_VERSION` is not `EV_CURRENT`.
    #[error("an ELF file of unknown version {version}")]
    UnknownVersion {
        /// The byte found.
        version: u8,
    },
    /// The file is for another machine, class or byte order.
    #[error("{}", foreign(file, native))]
    Foreign {
        /// The file's identification.
        file: Ident,
        /// The identification of what this build loads.
        native: Ident,
    },
    /// The file is not a shared object (`ET_DYN`).
    #[error("{}, not a shared library (ET_DYN)", file_type_name(*file_type))]
    NotSharedObject {
        /// The file's `e_type`.
        file_type: u16,
    },
    /// A header or table does not parse.
    #[error("a broken ELF file: {0}")]
    Broken(#[source] object::read::Error),
    /// The section a symbol table links to as its names is not a string
    /// table.
    #[error("a broken ELF file: the symbol table's string table is not SHT_STRTAB")]
    NamesNotStringTable {
        /// The linked section's index.
        section: usize,
        /// Its `sh_type`.
        sh_type: u32,
    },
    /// Reading a table would go past [`MAX_TABLE_BYTES`].
    #[error(
        "{table} of {bytes} bytes: more than the {MAX_TABLE_BYTES} bytes of \
         headers and tables read from one file (a crafted or broken ELF file)"
    )]
    TooLarge {
        /// Which table.
        table: Table,
        /// Its size.
        bytes: u64,
    },
}

/// An ELF file that cannot be read, or is refused, with its path: the
/// message starts with the path.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file cannot be opened or read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file's bytes are refused.
    #[error("{}: {source}", path.display())]
    Elf {
        /// The file.
        path: PathBuf,
        /// What is wrong with them.
        #[source]
        source: Error,
    },
}

/// The headers and tables read within [`MAX_TABLE_BYTES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Table {
    /// The program headers.
    #[error("program headers")]
    ProgramHeaders,
    /// The section headers.
    #[error("section headers")]
    SectionHeaders,
    /// A symbol table's entries.
    #[error("symbol table")]
    Symbols,
    /// A symbol table's string table.
    #[error("symbol names")]
    SymbolNames,
    /// A note segment or section.
    #[error("notes")]
    Notes,
}

/// How many of a non-ELF file's first bytes a message shows.
pub const SHOWN_BYTES: usize = 8;

impl Error {
    /// Why `head`, the first bytes of a file, is not an ELF file: "not an
    /// ELF file (it starts with 23 21 2f 62 69 6e 2f 73 ..., "#!/bin/s")".
    pub(crate) fn not_elf(head: &[u8]) -> Error {
        if head.is_empty() {
            return Error::Empty;
        }
        let shown = head.len().min(SHOWN_BYTES);
        let mut start = [0u8; SHOWN_BYTES];
        start[..shown].copy_from_slice(&head[..shown]);
        Error::NotElf {
            start,
            shown,
            longer: head.len() > shown,
        }
    }
}

/// "23 21 2f 62 69 6e 2f 73 ..., "#!/bin/s"": the bytes in hex, "..."
/// when the file goes on, and the bytes as text when all are printable.
fn shown_bytes(shown: &[u8], longer: bool) -> String {
    let mut hex: Vec<String> = shown.iter().map(|b| format!("{b:02x}")).collect();
    if longer {
        hex.push("...".into());
    }
    let text = if shown.iter().all(|b| (0x20..0x7f).contains(b)) {
        format!(", \"{}\"", String::from_utf8_lossy(shown))
    } else {
        String::new()
    };
    format!("{}{text}", hex.join(" "))
}

/// "ELF for aarch64; this machine is x86-64", with the class and byte
/// order where they differ.
fn foreign(file: &Ident, native: &Ident) -> String {
    let theirs = machine_name(file.machine, file.is_64);
    let ours = machine_name(native.machine, native.is_64);
    let (mut q_theirs, mut q_ours) = (String::new(), String::new());
    if file.is_64 != native.is_64 && theirs == ours {
        q_theirs.push_str(bits(file.is_64));
        q_ours.push_str(bits(native.is_64));
    }
    if file.little_endian != native.little_endian {
        q_theirs.push_str(endian(file.little_endian));
        q_ours.push_str(endian(native.little_endian));
    }
    format!("ELF for {q_theirs}{theirs}; this machine is {q_ours}{ours}")
}

fn bits(is_64: bool) -> &'static str {
    if is_64 { "64-bit " } else { "32-bit " }
}

fn endian(little: bool) -> &'static str {
    if little {
        "little-endian "
    } else {
        "big-endian "
    }
}

/// An `e_type` other than `ET_DYN`, in words.
fn file_type_name(file_type: u16) -> String {
    match file_type {
        elf::ET_EXEC => "an ELF executable (ET_EXEC)".to_string(),
        elf::ET_REL => "an ELF relocatable object (ET_REL, a .o file)".to_string(),
        elf::ET_CORE => "an ELF core dump (ET_CORE)".to_string(),
        t => format!("an ELF file of type 0x{t:04x}"),
    }
}
