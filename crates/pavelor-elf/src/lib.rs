//! ELF files read from their headers and tables, never as a whole: the
//! identification (class, byte order, type, machine) and whether this
//! machine loads such a file; static memory (the bytes of loadable
//! segments, and the part of them that is the hashing code and its
//! constants).
//!
//! A file is read through [`object::read::ReadCache`]: only the ranges
//! asked for (file header, program headers, section headers, one symbol
//! table and its strings, notes) come into memory, and together they may
//! hold at most [`MAX_TABLE_BYTES`], whatever the file's size.

#![forbid(unsafe_code)]

pub mod error;

use std::fs::File;
use std::io::Read;
use std::path::Path;

use object::Endianness;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, SectionTable, Sym};
use object::read::{ReadCache, ReadRef, SectionIndex, StringTable};

pub use error::{Error, FileError, Table};

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

/// Reads the static sizes of the ELF file at `path` (any ELF type: a PIE
/// or a non-PIE executable, a shared library).
pub fn static_size(path: &Path) -> Result<StaticSize, FileError> {
    let at = |source: Error| FileError::Elf {
        path: path.to_path_buf(),
        source,
    };
    let (file, ident) = open_elf(path).map_err(|source| FileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let ident = ident.map_err(at)?;
    let cache = ReadCache::new(file);
    let mut tables = Tables::parse(&cache, ident.is_64).map_err(at)?;
    let loadable_bytes = tables
        .load_segments()
        .iter()
        .fold(0u64, |total, s| total.saturating_add(s.1));
    let mut size = StaticSize {
        loadable_bytes,
        ..Default::default()
    };
    tables
        .for_each_symbol(elf::SHT_SYMTAB, |sym| {
            let code_or_data = matches!(
                sym.st_type,
                elf::STT_FUNC | elf::STT_GNU_IFUNC | elf::STT_OBJECT | elf::STT_COMMON
            );
            if !code_or_data || sym.size == 0 {
                return;
            }
            let Ok(name) = std::str::from_utf8(sym.name) else {
                return;
            };
            let demangled = format!("{:#}", rustc_demangle::demangle(name));
            if is_pavelor_symbol(&demangled) {
                size.pavelor_symbol_bytes = size.pavelor_symbol_bytes.saturating_add(sym.size);
                size.pavelor_symbols += 1;
            }
        })
        .map_err(at)?;
    Ok(size)
}

/// Whether a demangled symbol is code or data of the core `pavelor` crate.
fn is_pavelor_symbol(demangled: &str) -> bool {
    let path = demangled.trim_start_matches('<');
    path.starts_with("pavelor::") || path.starts_with("CryptHash")
}

/// The most bytes of headers and tables read from one file: program and
/// section headers, a symbol table and its strings, notes. A real library
/// or executable needs a few MiB at most (this project's debug executable:
/// 1 MiB); more comes from a crafted or broken file.
pub const MAX_TABLE_BYTES: u64 = 64 << 20;

/// The ELF identification of a file: what its first [`HEADER_BYTES`] say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ident {
    /// `ELFCLASS64` (else `ELFCLASS32`).
    pub is_64: bool,
    /// `ELFDATA2LSB` (else `ELFDATA2MSB`).
    pub little_endian: bool,
    /// `e_type`: `ET_DYN`, `ET_EXEC`, ...
    pub file_type: u16,
    /// `e_machine`: `EM_X86_64`, `EM_AARCH64`, ...
    pub machine: u16,
}

/// The bytes [`Ident::parse`] wants: the size of an ELF64 file header
/// (an ELF32 one has 52).
pub const HEADER_BYTES: usize = 64;

/// Offsets in `e_ident` (the first 16 bytes): class, byte order, version.
const EI_CLASS: usize = 4;
const EI_DATA: usize = 5;
const EI_VERSION: usize = 6;
const EI_NIDENT: usize = 16;

impl Ident {
    /// Reads the identification from the first bytes of a file (up to
    /// [`HEADER_BYTES`]; fewer if the file is shorter). The error says,
    /// without the path, why these bytes are not an ELF file header.
    pub fn parse(head: &[u8]) -> Result<Ident, Error> {
        if head.get(..4) != Some(&elf::ELFMAG[..]) {
            return Err(Error::not_elf(head));
        }
        let need = |n: usize| {
            if head.len() < n {
                Err(Error::Truncated { len: head.len() })
            } else {
                Ok(())
            }
        };
        need(EI_NIDENT)?;
        let is_64 = match head[EI_CLASS] {
            elf::ELFCLASS32 => false,
            elf::ELFCLASS64 => true,
            class => return Err(Error::UnknownClass { class }),
        };
        let little_endian = match head[EI_DATA] {
            elf::ELFDATA2LSB => true,
            elf::ELFDATA2MSB => false,
            data => return Err(Error::UnknownByteOrder { data }),
        };
        if head[EI_VERSION] != elf::EV_CURRENT {
            return Err(Error::UnknownVersion {
                version: head[EI_VERSION],
            });
        }
        need(if is_64 { HEADER_BYTES } else { 52 })?;
        let u16_at = |o: usize| {
            let b = [head[o], head[o + 1]];
            if little_endian {
                u16::from_le_bytes(b)
            } else {
                u16::from_be_bytes(b)
            }
        };
        Ok(Ident {
            is_64,
            little_endian,
            file_type: u16_at(16),
            machine: u16_at(18),
        })
    }

    /// The identification of the libraries this build loads (class, byte
    /// order, machine), or `None` for an architecture the table here does
    /// not name.
    pub fn native() -> Option<Ident> {
        let machine = if cfg!(target_arch = "x86_64") {
            elf::EM_X86_64
        } else if cfg!(target_arch = "aarch64") {
            elf::EM_AARCH64
        } else if cfg!(target_arch = "x86") {
            elf::EM_386
        } else if cfg!(target_arch = "arm") {
            elf::EM_ARM
        } else if cfg!(any(target_arch = "riscv64", target_arch = "riscv32")) {
            elf::EM_RISCV
        } else if cfg!(target_arch = "powerpc64") {
            elf::EM_PPC64
        } else if cfg!(target_arch = "powerpc") {
            elf::EM_PPC
        } else if cfg!(target_arch = "s390x") {
            elf::EM_S390
        } else if cfg!(target_arch = "loongarch64") {
            elf::EM_LOONGARCH
        } else if cfg!(any(target_arch = "mips", target_arch = "mips64")) {
            elf::EM_MIPS
        } else if cfg!(target_arch = "sparc64") {
            elf::EM_SPARCV9
        } else {
            return None;
        };
        Some(Ident {
            is_64: cfg!(target_pointer_width = "64"),
            little_endian: cfg!(target_endian = "little"),
            file_type: elf::ET_DYN,
            machine,
        })
    }

    /// Whether this build can load code of this file: same class, byte
    /// order and machine. The error names both, in one line: "ELF for
    /// aarch64; this machine is x86-64".
    pub fn check_native(&self) -> Result<(), Error> {
        let Some(native) = Ident::native() else {
            return Ok(());
        };
        let same = |i: &Ident| (i.is_64, i.little_endian, i.machine);
        if same(self) == same(&native) {
            return Ok(());
        }
        Err(Error::Foreign {
            file: *self,
            native,
        })
    }

    /// Whether this is a shared object (`ET_DYN`), what `dlopen` loads.
    pub fn check_shared_object(&self) -> Result<(), Error> {
        if self.file_type == elf::ET_DYN {
            return Ok(());
        }
        Err(Error::NotSharedObject {
            file_type: self.file_type,
        })
    }
}

/// The name of an ELF machine, in words: "x86-64", "aarch64", "i386",
/// "arm", "riscv64", ..., or "machine 0x…" for one not named here.
/// `is_64` tells the 32 and 64-bit variants of one machine number apart.
pub fn machine_name(machine: u16, is_64: bool) -> String {
    let pick = |a: &str, b: &str| if is_64 { a.to_string() } else { b.to_string() };
    match machine {
        elf::EM_X86_64 => "x86-64".into(),
        elf::EM_AARCH64 => "aarch64".into(),
        elf::EM_386 => "i386".into(),
        elf::EM_ARM => "arm".into(),
        elf::EM_RISCV => pick("riscv64", "riscv32"),
        elf::EM_PPC64 => "powerpc64".into(),
        elf::EM_PPC => "powerpc".into(),
        elf::EM_S390 => pick("s390x", "s390"),
        elf::EM_LOONGARCH => pick("loongarch64", "loongarch32"),
        elf::EM_MIPS => pick("mips64", "mips"),
        elf::EM_SPARCV9 => "sparc64".into(),
        elf::EM_SPARC => "sparc".into(),
        elf::EM_IA_64 => "ia64".into(),
        elf::EM_NONE => "no machine (EM_NONE)".into(),
        m => format!("machine 0x{m:x}"),
    }
}

/// Opens `path` and reads its first [`HEADER_BYTES`]. The outer error:
/// the file cannot be opened or read (no path in it); the inner one: it
/// is not an ELF file ([`Ident::parse`]).
pub fn open_elf(path: &Path) -> std::io::Result<(File, Result<Ident, Error>)> {
    let mut file = File::open(path)?;
    let mut head = Vec::with_capacity(HEADER_BYTES);
    (&mut file)
        .take(HEADER_BYTES as u64)
        .read_to_end(&mut head)?;
    Ok((file, Ident::parse(&head)))
}

/// One entry of a symbol table, its name borrowed from the string table.
pub struct Symbol<'data> {
    /// The name (empty if the entry has none or it is out of the table).
    pub name: &'data [u8],
    /// `st_type`: `STT_FUNC`, `STT_OBJECT`, ...
    pub st_type: u8,
    /// `st_size`.
    pub size: u64,
    /// Not `STB_LOCAL`: global or weak.
    pub is_global: bool,
    /// A definition of a function or data object (not undefined, not an
    /// absolute or other special section).
    pub is_definition: bool,
}

/// The headers of an ELF file and what it reads on demand, within
/// [`MAX_TABLE_BYTES`].
pub enum Tables<'data, R: ReadRef<'data>> {
    /// `ELFCLASS32`.
    Elf32(ElfTables<'data, elf::FileHeader32<Endianness>, R>),
    /// `ELFCLASS64`.
    Elf64(ElfTables<'data, elf::FileHeader64<Endianness>, R>),
}

impl<'data, R: ReadRef<'data>> Tables<'data, R> {
    /// Reads the file header, the program headers and the section
    /// headers of `data`, a file of the class [`Ident::parse`] found.
    pub fn parse(data: R, is_64: bool) -> Result<Self, Error> {
        Ok(if is_64 {
            Tables::Elf64(ElfTables::parse(data)?)
        } else {
            Tables::Elf32(ElfTables::parse(data)?)
        })
    }

    /// The `PT_LOAD` segments as (virtual address, memory size).
    pub fn load_segments(&self) -> Vec<(u64, u64)> {
        match self {
            Tables::Elf32(t) => t.load_segments(),
            Tables::Elf64(t) => t.load_segments(),
        }
    }

    /// Calls `f` for every entry of the first symbol table of type
    /// `sh_type` (`SHT_DYNSYM`, `SHT_SYMTAB`); none if there is none.
    pub fn for_each_symbol(
        &mut self,
        sh_type: u32,
        f: impl FnMut(Symbol<'data>),
    ) -> Result<(), Error> {
        match self {
            Tables::Elf32(t) => t.for_each_symbol(sh_type, f),
            Tables::Elf64(t) => t.for_each_symbol(sh_type, f),
        }
    }

    /// The `NT_GNU_BUILD_ID` note's descriptor, if the file has one: from
    /// the `PT_NOTE` segments, else from the `SHT_NOTE` sections.
    pub fn build_id(&mut self) -> Result<Option<&'data [u8]>, Error> {
        match self {
            Tables::Elf32(t) => t.build_id(),
            Tables::Elf64(t) => t.build_id(),
        }
    }
}

/// [`Tables`] of one class.
pub struct ElfTables<'data, Elf: FileHeader, R: ReadRef<'data>> {
    data: R,
    endian: Elf::Endian,
    segments: &'data [Elf::ProgramHeader],
    sections: SectionTable<'data, Elf, R>,
    /// Bytes still allowed to be read.
    budget: u64,
}

impl<'data, Elf, R> ElfTables<'data, Elf, R>
where
    Elf: FileHeader<Endian = Endianness>,
    R: ReadRef<'data>,
{
    fn parse(data: R) -> Result<Self, Error> {
        let header = Elf::parse(data).map_err(Error::Broken)?;
        let endian = header.endian().map_err(Error::Broken)?;
        let mut tables = ElfTables {
            data,
            endian,
            segments: &[],
            sections: SectionTable::default(),
            budget: MAX_TABLE_BYTES,
        };
        let (phoff, shoff): (u64, u64) =
            (header.e_phoff(endian).into(), header.e_shoff(endian).into());
        if phoff != 0 {
            let phnum = header.phnum(endian, data).map_err(Error::Broken)?;
            tables.charge(
                phnum as u64,
                std::mem::size_of::<Elf::ProgramHeader>(),
                Table::ProgramHeaders,
            )?;
            tables.segments = header
                .program_headers(endian, data)
                .map_err(Error::Broken)?;
        }
        if shoff != 0 {
            let shnum = header.shnum(endian, data).map_err(Error::Broken)?;
            tables.charge(
                shnum as u64,
                std::mem::size_of::<Elf::SectionHeader>(),
                Table::SectionHeaders,
            )?;
            tables.sections = header.sections(endian, data).map_err(Error::Broken)?;
        }
        Ok(tables)
    }

    /// Takes `count` entries of `entry` bytes from the budget.
    fn charge(&mut self, count: u64, entry: usize, table: Table) -> Result<(), Error> {
        let bytes = count.saturating_mul(entry as u64);
        self.budget = self
            .budget
            .checked_sub(bytes)
            .ok_or(Error::TooLarge { table, bytes })?;
        Ok(())
    }

    fn load_segments(&self) -> Vec<(u64, u64)> {
        self.segments
            .iter()
            .filter(|p| p.p_type(self.endian) == elf::PT_LOAD)
            .map(|p| (p.p_vaddr(self.endian).into(), p.p_memsz(self.endian).into()))
            .collect()
    }

    fn for_each_symbol(
        &mut self,
        sh_type: u32,
        mut f: impl FnMut(Symbol<'data>),
    ) -> Result<(), Error> {
        let endian = self.endian;
        let Some(section) = self.sections.iter().find(|s| s.sh_type(endian) == sh_type) else {
            return Ok(());
        };
        self.charge(section.sh_size(endian).into(), 1, Table::Symbols)?;
        let symbols: &'data [Elf::Sym] = section
            .data_as_array(endian, self.data)
            .map_err(Error::Broken)?;
        let link = section.link(endian);
        let strtab: &'data [u8] = if link == SectionIndex(0) {
            &[]
        } else {
            let strings = self.sections.section(link).map_err(Error::Broken)?;
            if strings.sh_type(endian) != elf::SHT_STRTAB {
                return Err(Error::NamesNotStringTable {
                    section: link.0,
                    sh_type: strings.sh_type(endian),
                });
            }
            self.charge(strings.sh_size(endian).into(), 1, Table::SymbolNames)?;
            strings.data(endian, self.data).map_err(Error::Broken)?
        };
        let strings = StringTable::new(strtab, 0, strtab.len() as u64);
        for sym in symbols {
            f(Symbol {
                name: sym.name(endian, strings).unwrap_or_default(),
                st_type: sym.st_type(),
                size: sym.st_size(endian).into(),
                is_global: !sym.is_local(),
                is_definition: sym.is_definition(endian),
            });
        }
        Ok(())
    }

    fn build_id(&mut self) -> Result<Option<&'data [u8]>, Error> {
        let endian = self.endian;
        for segment in self.segments {
            if segment.p_type(endian) != elf::PT_NOTE {
                continue;
            }
            self.charge(segment.p_filesz(endian).into(), 1, Table::Notes)?;
            if let Some(mut notes) = segment.notes(endian, self.data).map_err(Error::Broken)? {
                while let Some(note) = notes.next().map_err(Error::Broken)? {
                    if note.name() == elf::ELF_NOTE_GNU
                        && note.n_type(endian) == elf::NT_GNU_BUILD_ID
                    {
                        return Ok(Some(note.desc()));
                    }
                }
            }
        }
        let sections = self.sections.iter();
        for section in sections {
            if section.sh_type(endian) != elf::SHT_NOTE {
                continue;
            }
            self.charge(section.sh_size(endian).into(), 1, Table::Notes)?;
            if let Some(mut notes) = section.notes(endian, self.data).map_err(Error::Broken)? {
                while let Some(note) = notes.next().map_err(Error::Broken)? {
                    if note.name() == elf::ELF_NOTE_GNU
                        && note.n_type(endian) == elf::NT_GNU_BUILD_ID
                    {
                        return Ok(Some(note.desc()));
                    }
                }
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};

    #[test]
    fn classifies_symbols() {
        assert!(is_pavelor_symbol("pavelor::backend::portable::permute"));
        assert!(is_pavelor_symbol(
            "<pavelor::hasher::Pavelor<V> as digest::Update>::update"
        ));
        assert!(!is_pavelor_symbol("pavelor_kat::drng::Drng::new"));
        assert!(!is_pavelor_symbol("core::fmt::write"));
    }

    /// The static sizes of the whole file parsed in memory by `object`.
    fn static_size_in_memory(path: &Path) -> StaticSize {
        let data = std::fs::read(path).expect("read");
        let file = object::File::parse(&*data).expect("an ELF file");
        let mut size = StaticSize {
            loadable_bytes: file.segments().map(|s| s.size()).sum(),
            ..Default::default()
        };
        for sym in file.symbols() {
            if !matches!(sym.kind(), SymbolKind::Text | SymbolKind::Data) || sym.size() == 0 {
                continue;
            }
            let Ok(name) = sym.name() else { continue };
            if is_pavelor_symbol(&format!("{:#}", rustc_demangle::demangle(name))) {
                size.pavelor_symbol_bytes += sym.size();
                size.pavelor_symbols += 1;
            }
        }
        size
    }

    #[test]
    fn reads_this_test_binary_as_object_does_in_memory() {
        let exe = std::env::current_exe().expect("test binary path");
        let s = static_size(&exe).expect("an ELF file");
        assert!(s.loadable_bytes > 0);
        assert_eq!(s, static_size_in_memory(&exe));
    }

    #[test]
    fn static_size_refuses_a_text_file_in_one_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let txt = dir.path().join("x");
        std::fs::write(&txt, "hello, world\n").expect("write");
        let err = static_size(&txt).expect_err("not ELF");
        assert_eq!(
            err.to_string(),
            format!(
                "{}: not an ELF file (it starts with 68 65 6c 6c 6f 2c 20 77 ..., \"hello, w\")",
                txt.display()
            )
        );
    }

    #[test]
    fn identification_of_headers() {
        assert_eq!(
            Ident::parse(b"").expect_err("empty").to_string(),
            "not an ELF file (it is empty)"
        );
        assert_eq!(
            Ident::parse(b"\x7fELG\x02\x01\x01\x00")
                .expect_err("magic")
                .to_string(),
            "not an ELF file (it starts with 7f 45 4c 47 02 01 01 00)"
        );
        assert!(
            Ident::parse(b"\x7fELF\x02\x01\x01")
                .expect_err("short")
                .to_string()
                .contains("truncated")
        );
        let mut h = [0u8; HEADER_BYTES];
        h[..7].copy_from_slice(b"\x7fELF\x02\x02\x01");
        h[16..20].copy_from_slice(&[0, 3, 0, 183]);
        let id = Ident::parse(&h).expect("a big-endian ELF64 header");
        assert_eq!(
            id,
            Ident {
                is_64: true,
                little_endian: false,
                file_type: elf::ET_DYN,
                machine: elf::EM_AARCH64
            }
        );
        h[4] = 3;
        assert!(
            Ident::parse(&h)
                .expect_err("class")
                .to_string()
                .contains("class 3")
        );
        h[4] = 1;
        assert!(Ident::parse(&h[..51]).is_err() && Ident::parse(&h[..52]).is_ok());
    }

    #[test]
    fn machines_and_types_in_words() {
        assert_eq!(machine_name(62, true), "x86-64");
        assert_eq!(machine_name(183, true), "aarch64");
        assert_eq!(machine_name(3, false), "i386");
        assert_eq!(machine_name(243, true), "riscv64");
        assert_eq!(machine_name(0x1234, true), "machine 0x1234");
        let Some(native) = Ident::native() else {
            return;
        };
        assert_eq!(native.check_native(), Ok(()));
        let ours = machine_name(native.machine, native.is_64);
        let other = if native.machine == elf::EM_AARCH64 {
            elf::EM_X86_64
        } else {
            elf::EM_AARCH64
        };
        let foreign = Ident {
            machine: other,
            ..native
        };
        assert_eq!(
            foreign.check_native().map_err(|e| e.to_string()),
            Err(format!(
                "ELF for {}; this machine is {ours}",
                machine_name(other, native.is_64)
            ))
        );
        let class = Ident {
            is_64: !native.is_64,
            ..native
        };
        let err = class.check_native().expect_err("other class").to_string();
        assert!(err.contains("32-bit") && err.contains("64-bit"), "{err}");
        let order = Ident {
            little_endian: !native.little_endian,
            ..native
        };
        let err = order
            .check_native()
            .expect_err("other byte order")
            .to_string();
        assert!(
            err.contains("big-endian") && err.contains("little-endian"),
            "{err}"
        );
        for (t, word) in [
            (1, "ET_REL"),
            (2, "ET_EXEC"),
            (4, "ET_CORE"),
            (0xfe00, "0xfe00"),
        ] {
            let err = Ident {
                file_type: t,
                ..native
            }
            .check_shared_object()
            .expect_err("not ET_DYN")
            .to_string();
            assert!(err.contains(word) && err.ends_with("not a shared library (ET_DYN)"));
        }
    }
}
