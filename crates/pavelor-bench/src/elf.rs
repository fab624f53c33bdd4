//! Static memory: the bytes of loadable ELF segments, and the part of them
//! that is the hashing code and its constants.

use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};

/// Static sizes of one ELF file.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StaticSize {
    /// Sum of the memory sizes of all loadable segments (the whole image).
    pub loadable_bytes: u64,
    /// Sum of the sizes of the code and data symbols that belong to the
    /// `pavelor` crate (its functions, including monomorphized generics, and
    /// its constants such as the round constants).
    pub pavelor_symbol_bytes: u64,
    /// Number of such symbols.
    pub pavelor_symbols: usize,
}

/// Reads the static sizes of the ELF file at `path`.
pub fn static_size(path: &std::path::Path) -> Result<StaticSize, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", path.display()))?;
    let loadable_bytes = file.segments().map(|s| s.size()).sum();
    let mut size = StaticSize {
        loadable_bytes,
        ..Default::default()
    };
    for sym in file.symbols() {
        if !matches!(sym.kind(), SymbolKind::Text | SymbolKind::Data) || sym.size() == 0 {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        let demangled = format!("{:#}", rustc_demangle::demangle(name));
        if is_pavelor_symbol(&demangled) {
            size.pavelor_symbol_bytes += sym.size();
            size.pavelor_symbols += 1;
        }
    }
    Ok(size)
}

/// Whether a demangled symbol is code or data of the core `pavelor` crate.
fn is_pavelor_symbol(demangled: &str) -> bool {
    let path = demangled.trim_start_matches('<');
    path.starts_with("pavelor::") || path.starts_with("CryptHash")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_symbols() {
        assert!(is_pavelor_symbol("pavelor::backend::portable::permute"));
        assert!(is_pavelor_symbol(
            "<pavelor::hasher::Pavelor<V> as digest::Update>::update"
        ));
        assert!(!is_pavelor_symbol("pavelor_kat::drng::Drng::new"));
        assert!(!is_pavelor_symbol("core::fmt::write"));
    }

    #[test]
    fn reads_this_test_binary() {
        let exe = std::env::current_exe().expect("test binary path");
        let s = static_size(&exe).expect("an ELF file");
        assert!(s.loadable_bytes > 0);
    }
}
