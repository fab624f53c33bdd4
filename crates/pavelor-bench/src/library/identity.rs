//! What a library file is, read without loading it: path, size, SHA-256,
//! ELF build-id, the symbols the dynamic loader sees, and its static
//! memory (the bytes of its `PT_LOAD` segments).

use std::path::Path;

use object::{Object, ObjectSegment, ObjectSymbol};
use serde::{Deserialize, Serialize};
use sha2::Digest;

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

/// The sum of the segments' memory sizes, or an error if it is larger than
/// [`MAX_STATIC_BYTES`] (or does not fit in 64 bits).
fn static_total(segments: &[(u64, u64)]) -> Result<u64, String> {
    segments
        .iter()
        .try_fold(0u64, |total, s| total.checked_add(s.1))
        .filter(|&total| total <= MAX_STATIC_BYTES)
        .ok_or_else(|| {
            format!(
                "PT_LOAD segments claim more than {MAX_STATIC_BYTES} bytes of memory \
                 (a crafted or broken ELF file)"
            )
        })
}

/// Reads the identity of the file at `path` (it is not loaded or run).
pub fn identify(path: &Path) -> Result<Identity, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("{}: not an ELF shared library: {e}", path.display()))?;
    let load_segments: Vec<(u64, u64)> = file.segments().map(|s| (s.address(), s.size())).collect();
    let static_bytes =
        static_total(&load_segments).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut exported: Vec<String> = file
        .dynamic_symbols()
        .filter(|s| s.is_global() && s.is_definition())
        .filter_map(|s| s.name().ok().map(String::from))
        .filter(|n| !n.is_empty())
        .collect();
    exported.sort();
    exported.dedup();
    Ok(Identity {
        path: path.display().to_string(),
        canonical_path: std::fs::canonicalize(path)
            .ok()
            .map(|p| p.display().to_string()),
        size: data.len() as u64,
        sha256: hex(&sha2::Sha256::digest(&data)),
        build_id: file.build_id().ok().flatten().map(hex),
        exported,
        static_bytes,
        load_segments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_test_binary_and_refuses_text() {
        let exe = std::env::current_exe().expect("test binary");
        let id = identify(&exe).expect("an ELF file");
        assert_eq!(id.size, std::fs::metadata(&exe).expect("meta").len());
        assert_eq!(id.sha256.len(), 64);
        assert!(id.static_bytes > 0 && !id.load_segments.is_empty());
        let dir = tempfile::tempdir().expect("tempdir");
        let txt = dir.path().join("x.so");
        std::fs::write(&txt, "not elf").expect("write");
        assert!(identify(&txt).is_err());
    }

    #[test]
    fn an_absurd_static_total_is_an_error() {
        assert_eq!(static_total(&[]), Ok(0));
        assert_eq!(static_total(&[(0, 10), (4096, 20)]), Ok(30));
        assert_eq!(static_total(&[(0, MAX_STATIC_BYTES)]), Ok(MAX_STATIC_BYTES));
        assert!(static_total(&[(0, MAX_STATIC_BYTES), (0, 1)]).is_err());
        assert!(static_total(&[(0, u64::MAX), (0, u64::MAX)]).is_err());
    }

    /// A copy of this test binary whose `PT_LOAD` segments each claim
    /// 2^63 bytes: their sum overflows 64 bits. Identifying it is an error,
    /// not a panic or a wrapped total.
    #[cfg(all(target_pointer_width = "64", target_endian = "little"))]
    #[test]
    fn a_crafted_elf_with_huge_segments_is_refused() {
        let exe = std::env::current_exe().expect("test binary");
        let mut elf = std::fs::read(&exe).expect("read");
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
        let crafted = dir.path().join("crafted.so");
        std::fs::write(&crafted, &elf).expect("write");
        let err = identify(&crafted).expect_err("an absurd static size");
        assert!(err.contains("PT_LOAD segments claim"), "{err}");
    }
}
