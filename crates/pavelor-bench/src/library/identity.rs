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

/// Reads the identity of the file at `path` (it is not loaded or run).
pub fn identify(path: &Path) -> Result<Identity, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("{}: not an ELF shared library: {e}", path.display()))?;
    let load_segments: Vec<(u64, u64)> = file.segments().map(|s| (s.address(), s.size())).collect();
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
        static_bytes: load_segments.iter().map(|s| s.1).sum(),
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
}
