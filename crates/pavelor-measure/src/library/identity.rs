//! What a library file is, read without loading it: path, size, SHA-256,
//! ELF build-id, the symbols the dynamic loader sees, and its static
//! memory (the bytes of its `PT_LOAD` segments).
//!
//! The file is untrusted and may be of any size: it is read from its ELF
//! header, program headers, section headers, dynamic symbol table and
//! notes (`pavelor_elf`), and hashed in fixed-size chunks, never read
//! whole into memory.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use object::read::ReadCache;
use serde::{Deserialize, Serialize};
use sha2::Digest;

use pavelor_elf as elf;

/// The identity of one library file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The path as given.
    pub path: String,
    /// The canonical path, if it resolves.
    pub canonical_path: Option<String>,
    /// File size, bytes.
    pub size: u64,
    /// SHA-256 of the file, lower-case hex.
    pub sha256: String,
    /// The ELF build-id (`NT_GNU_BUILD_ID`), hex, if present.
    pub build_id: Option<String>,
    /// Defined global symbols of the dynamic symbol table (what `dlsym`
    /// can find), sorted.
    pub exported: Vec<String>,
    /// Static memory: the sum of `p_memsz` over the `PT_LOAD` segments.
    pub static_bytes: u64,
    /// The `PT_LOAD` segments as (virtual address, memory size).
    pub load_segments: Vec<(u64, u64)>,
}

impl Identity {
    /// Whether the loader can find `CryptHash` in it.
    pub fn exports_crypthash(&self) -> bool {
        self.exported.iter().any(|s| s == "CryptHash")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The most static memory a library can have: 2^47 bytes, the whole user
/// address space of x86-64 (and of AArch64 with 48-bit addresses). A larger
/// total comes from a crafted or broken file, not from a loadable library.
pub const MAX_STATIC_BYTES: u64 = 1 << 47;

/// The sum of the segments' memory sizes, or `None` if it is larger than
/// [`MAX_STATIC_BYTES`] (or does not fit in 64 bits).
fn static_total(segments: &[(u64, u64)]) -> Option<u64> {
    segments
        .iter()
        .try_fold(0u64, |total, s| total.checked_add(s.1))
        .filter(|&total| total <= MAX_STATIC_BYTES)
}

/// Why [`check_header`] refused a file. Both messages are one line and
/// start with the path.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    /// The file cannot be opened or its first bytes cannot be read.
    #[error("{}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file was read: it is not an ELF shared object this machine
    /// loads (not ELF, another machine, class or byte order, not `ET_DYN`).
    #[error("{}: {source}", path.display())]
    NotLoadable {
        /// The file.
        path: PathBuf,
        /// What its header says.
        #[source]
        source: elf::Error,
    },
}

/// Why [`identify`] could not read a library file's identity. Every
/// message is one line and starts with the path.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The header check refused the file.
    #[error(transparent)]
    Header(#[from] HeaderError),
    /// Its ELF tables are broken or too large.
    #[error("{}: {source}", path.display())]
    Tables {
        /// The file.
        path: PathBuf,
        /// What is wrong with them.
        #[source]
        source: elf::Error,
    },
    /// Its `PT_LOAD` segments add up to more than [`MAX_STATIC_BYTES`].
    #[error(
        "{}: PT_LOAD segments claim more than {MAX_STATIC_BYTES} bytes of memory \
         (a crafted or broken ELF file)",
        path.display()
    )]
    StaticTooLarge {
        /// The file.
        path: PathBuf,
    },
    /// The names of its exported symbols exceed [`elf::MAX_TABLE_BYTES`].
    #[error(
        "{}: its exported symbols' names take {bytes} bytes, more than {} \
         (a crafted or broken ELF file)",
        path.display(),
        elf::MAX_TABLE_BYTES
    )]
    ExportedNamesTooLarge {
        /// The file.
        path: PathBuf,
        /// The names' total length.
        bytes: u64,
    },
    /// Reading the file to hash it failed.
    #[error("{}: {source}", path.display())]
    Hash {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Opens `path` and checks its ELF header: magic, class, byte order,
/// machine (those of this build) and type (`ET_DYN`). Reads its first
/// [`elf::HEADER_BYTES`] only.
fn open_checked(path: &Path) -> Result<(File, elf::Ident), HeaderError> {
    let (file, ident) = elf::open_elf(path).map_err(|source| HeaderError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    let ident = ident
        .and_then(|i| i.check_native().map(|()| i))
        .and_then(|i| i.check_shared_object().map(|()| i))
        .map_err(|source| HeaderError::NotLoadable {
            path: path.to_path_buf(),
            source,
        })?;
    Ok((file, ident))
}

/// The cheap check of a library file: its first bytes are the ELF header
/// of a shared object for this machine ([`identify`] starts with it).
pub fn check_header(path: &Path) -> Result<(), HeaderError> {
    open_checked(path).map(|_| ())
}

/// Bytes read at a time while hashing.
const HASH_CHUNK: usize = 1 << 20;

/// The size and SHA-256 of what `file` holds from its start, read
/// `HASH_CHUNK` bytes at a time.
fn sha256_of(mut file: File) -> std::io::Result<(u64, String)> {
    file.seek(SeekFrom::Start(0))?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; HASH_CHUNK];
    let mut size = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    Ok((size, hex(&hasher.finalize())))
}

/// Reads the identity of the file at `path` (it is not loaded or run).
///
/// Memory stays bounded whatever the file's size: the header check reads
/// the first bytes (a file that is not an ELF shared object for this
/// machine is refused there), the ELF tables are read on demand within
/// [`elf::MAX_TABLE_BYTES`], and the SHA-256 is computed
/// `HASH_CHUNK` bytes at a time. Every error is one line with the path.
pub fn identify(path: &Path) -> Result<Identity, Error> {
    let at = |source: elf::Error| Error::Tables {
        path: path.to_path_buf(),
        source,
    };
    let (file, ident) = open_checked(path)?;
    let cache = ReadCache::new(file);
    let mut tables = elf::Tables::parse(&cache, ident.is_64).map_err(at)?;
    let load_segments = tables.load_segments();
    let static_bytes = static_total(&load_segments).ok_or_else(|| Error::StaticTooLarge {
        path: path.to_path_buf(),
    })?;
    let mut names = BTreeSet::new();
    tables
        .for_each_symbol(object::elf::SHT_DYNSYM, |s| {
            if s.is_global && s.is_definition && !s.name.is_empty() {
                names.insert(s.name);
            }
        })
        .map_err(at)?;
    let name_bytes = names
        .iter()
        .fold(0u64, |t, n| t.saturating_add(n.len() as u64));
    if name_bytes > elf::MAX_TABLE_BYTES {
        return Err(Error::ExportedNamesTooLarge {
            path: path.to_path_buf(),
            bytes: name_bytes,
        });
    }
    let exported: Vec<String> = names
        .into_iter()
        .filter_map(|n| std::str::from_utf8(n).ok().map(String::from))
        .collect();
    let build_id = tables.build_id().map_err(at)?.map(hex);
    let (size, sha256) = sha256_of(cache.into_inner()).map_err(|source| Error::Hash {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Identity {
        path: path.display().to_string(),
        canonical_path: std::fs::canonicalize(path)
            .ok()
            .map(|p| p.display().to_string()),
        size,
        sha256,
        build_id,
        exported,
        static_bytes,
        load_segments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test binary (a PIE: `ET_DYN`, for this machine), read whole.
    fn this_binary() -> (std::path::PathBuf, Vec<u8>) {
        let exe = std::env::current_exe().expect("test binary");
        let data = std::fs::read(&exe).expect("read");
        (exe, data)
    }

    /// Writes `data` to a new file in `dir` and identifies it.
    fn identify_bytes(dir: &Path, name: &str, data: &[u8]) -> (String, Result<Identity, Error>) {
        let path = dir.join(name);
        std::fs::write(&path, data).expect("write");
        (path.display().to_string(), identify(&path))
    }

    #[test]
    fn reads_this_test_binary() {
        let (exe, data) = this_binary();
        let id = identify(&exe).expect("an ELF file");
        assert_eq!(id.size, data.len() as u64);
        assert_eq!(id.sha256, hex(&sha2::Sha256::digest(&data)));
        assert!(id.static_bytes > 0 && !id.load_segments.is_empty());
        // As `object` reads the same file in memory.
        let file = object::File::parse(&*data).expect("parse");
        use object::{Object, ObjectSegment, ObjectSymbol};
        let segments: Vec<(u64, u64)> = file.segments().map(|s| (s.address(), s.size())).collect();
        assert_eq!(id.load_segments, segments);
        let mut exported: Vec<String> = file
            .dynamic_symbols()
            .filter(|s| s.is_global() && s.is_definition())
            .filter_map(|s| s.name().ok().map(String::from))
            .filter(|n| !n.is_empty())
            .collect();
        exported.sort();
        exported.dedup();
        assert_eq!(id.exported, exported);
        assert_eq!(id.build_id, file.build_id().expect("notes").map(hex));
        assert!(check_header(&exe).is_ok());
    }

    #[test]
    fn refuses_text_in_one_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (path, r) = identify_bytes(dir.path(), "x.so", b"not elf");
        let err = r.expect_err("not ELF").to_string();
        assert_eq!(
            err,
            format!("{path}: not an ELF file (it starts with 6e 6f 74 20 65 6c 66, \"not elf\")")
        );
        let (path, r) = identify_bytes(dir.path(), "empty.so", b"");
        assert_eq!(
            r.expect_err("empty").to_string(),
            format!("{path}: not an ELF file (it is empty)")
        );
        let missing = dir.path().join("missing.so");
        let err = identify(&missing).expect_err("missing").to_string();
        assert!(err.starts_with(&format!("{}: ", missing.display())) && !err.contains('\n'));
        assert!(matches!(
            check_header(&missing),
            Err(HeaderError::Unreadable { .. })
        ));
        assert!(matches!(
            check_header(&dir.path().join("x.so")),
            Err(HeaderError::NotLoadable { .. })
        ));
    }

    #[cfg(all(target_pointer_width = "64", target_endian = "little"))]
    #[test]
    fn refuses_another_machine_class_or_type() {
        let (_, image) = this_binary();
        assert_eq!(
            &image[..6],
            b"\x7fELF\x02\x01",
            "a 64-bit little-endian ELF file"
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let native = elf::Ident::native().expect("a machine named in elf.rs");
        let ours = elf::machine_name(native.machine, true);

        let other = if native.machine == object::elf::EM_AARCH64 {
            object::elf::EM_X86_64
        } else {
            object::elf::EM_AARCH64
        };
        let mut foreign = image.clone();
        foreign[18..20].copy_from_slice(&other.to_le_bytes());
        let (path, r) = identify_bytes(dir.path(), "foreign.so", &foreign);
        assert_eq!(
            r.expect_err("another machine").to_string(),
            format!(
                "{path}: ELF for {}; this machine is {ours}",
                elf::machine_name(other, true)
            )
        );

        let mut class32 = image.clone();
        class32[4] = object::elf::ELFCLASS32;
        let (path, r) = identify_bytes(dir.path(), "class32.so", &class32);
        assert_eq!(
            r.expect_err("ELFCLASS32").to_string(),
            format!("{path}: ELF for 32-bit {ours}; this machine is 64-bit {ours}")
        );

        let mut big = image.clone();
        big[5] = object::elf::ELFDATA2MSB;
        let (path, r) = identify_bytes(dir.path(), "big.so", &big);
        let err = r.expect_err("big-endian").to_string();
        assert!(
            err.starts_with(&format!("{path}: ELF for big-endian ")),
            "{err}"
        );
        assert!(
            err.ends_with(&format!("; this machine is little-endian {ours}")),
            "{err}"
        );

        let mut exec = image.clone();
        exec[16..18].copy_from_slice(&object::elf::ET_EXEC.to_le_bytes());
        let (path, r) = identify_bytes(dir.path(), "exec.so", &exec);
        assert_eq!(
            r.expect_err("ET_EXEC").to_string(),
            format!("{path}: an ELF executable (ET_EXEC), not a shared library (ET_DYN)")
        );
    }

    #[test]
    fn an_absurd_static_total_is_an_error() {
        assert_eq!(static_total(&[]), Some(0));
        assert_eq!(static_total(&[(0, 10), (4096, 20)]), Some(30));
        assert_eq!(
            static_total(&[(0, MAX_STATIC_BYTES)]),
            Some(MAX_STATIC_BYTES)
        );
        assert!(static_total(&[(0, MAX_STATIC_BYTES), (0, 1)]).is_none());
        assert!(static_total(&[(0, u64::MAX), (0, u64::MAX)]).is_none());
    }

    /// A copy of this test binary whose `PT_LOAD` segments each claim
    /// 2^63 bytes: their sum overflows 64 bits. Identifying it is an error,
    /// not a panic or a wrapped total.
    #[cfg(all(target_pointer_width = "64", target_endian = "little"))]
    #[test]
    fn a_crafted_elf_with_huge_segments_is_refused() {
        let (_, mut elf) = this_binary();
        assert_eq!(&elf[..5], b"\x7fELF\x02", "a 64-bit ELF file");
        let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as usize;
        let phoff = u64::from_le_bytes(elf[0x20..0x28].try_into().expect("8 bytes")) as usize;
        let (phentsize, phnum) = (u16_at(&elf, 0x36), u16_at(&elf, 0x38));
        let mut loads = 0;
        for i in 0..phnum {
            let ph = phoff + i * phentsize;
            if elf[ph..ph + 4] == 1u32.to_le_bytes() {
                elf[ph + 0x28..ph + 0x30].copy_from_slice(&(1u64 << 63).to_le_bytes());
                loads += 1;
            }
        }
        assert!(loads >= 2, "{loads} PT_LOAD segments");
        let dir = tempfile::tempdir().expect("tempdir");
        let (_, r) = identify_bytes(dir.path(), "crafted.so", &elf);
        let err = r.expect_err("an absurd static size").to_string();
        assert!(err.contains("PT_LOAD segments claim"), "{err}");
    }

    /// A copy of this test binary whose dynamic symbol table claims 1 TiB:
    /// an error, before anything of that size is read.
    #[cfg(all(target_pointer_width = "64", target_endian = "little"))]
    #[test]
    fn a_crafted_symbol_table_size_is_refused() {
        let (_, mut elf) = this_binary();
        let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as usize;
        let shoff = u64::from_le_bytes(elf[0x28..0x30].try_into().expect("8 bytes")) as usize;
        let (shentsize, shnum) = (u16_at(&elf, 0x3a), u16_at(&elf, 0x3c));
        let dynsym = (0..shnum)
            .map(|i| shoff + i * shentsize)
            .find(|&sh| elf[sh + 4..sh + 8] == 11u32.to_le_bytes())
            .expect("a .dynsym section");
        elf[dynsym + 0x20..dynsym + 0x28].copy_from_slice(&(1u64 << 40).to_le_bytes());
        let dir = tempfile::tempdir().expect("tempdir");
        let (path, r) = identify_bytes(dir.path(), "crafted.so", &elf);
        let err = r.expect_err("an absurd symbol table").to_string();
        assert!(
            err.starts_with(&format!(
                "{path}: symbol table of 1099511627776 bytes: more than"
            )),
            "{err}"
        );
    }
}
