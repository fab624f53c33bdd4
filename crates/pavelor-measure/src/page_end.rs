//! A message placed at the end of its memory: its last byte is the last
//! byte of a page, and the page after it is mapped but never touched.
//!
//! Where a message lies can change what hashing it costs. A kernel whose
//! loads reach past the message's end (masked loads, whose masked-off bytes
//! are never read, included) costs nothing extra while those bytes lie in
//! a page the process has used, and a microcode assist per load when they
//! lie in a page that is not present, on every call, since such a load
//! never makes the page present. A heap buffer lies wherever the allocator
//! put it, so which of the two a figure saw is luck. This placement makes
//! it the second, on purpose: `pavelor bench` measures its first figure
//! again on such a message, and a figure that depends on where its message
//! lies then disagrees with itself.
//!
//! The page after the message is readable, so a plain over-read returns
//! zeros instead of crashing the measuring process (and maps the page, so
//! it costs only once).

#![forbid(unsafe_code)]

use memmap2::MmapMut;
use nix::unistd::{SysconfVar, sysconf};

/// Why a message could not be placed at the end of its memory.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `sysconf(PAGE_SIZE)` gave no power of two.
    #[error("the page size is unknown")]
    PageSizeUnknown,
    /// The anonymous mapping that holds the message failed.
    #[error("an anonymous mapping of {bytes} bytes: {source}")]
    Map {
        /// The mapping's length.
        bytes: usize,
        /// Why `mmap` failed.
        #[source]
        source: std::io::Error,
    },
}

/// A copy of a message whose end is a page boundary, followed by one
/// mapped page that nothing has touched.
pub struct PageEndMessage {
    map: MmapMut,
    /// The message is `map[start..end]`; `end` is the last page's offset.
    start: usize,
    end: usize,
}

impl PageEndMessage {
    /// Copies `msg` into a new private anonymous mapping so that it ends at
    /// the start of the mapping's last page, which stays untouched.
    pub fn new(msg: &[u8]) -> Result<Self, Error> {
        let page = sysconf(SysconfVar::PAGE_SIZE)
            .ok()
            .flatten()
            .and_then(|p| usize::try_from(p).ok())
            .filter(|p| p.is_power_of_two())
            .ok_or(Error::PageSizeUnknown)?;
        let body = msg.len().div_ceil(page) * page;
        // A new mapping starts at a page boundary, so offset `body` is one.
        let mut map = MmapMut::map_anon(body + page).map_err(|source| Error::Map {
            bytes: body + page,
            source,
        })?;
        let start = body - msg.len();
        // Writing the message touches only the pages it occupies.
        map[start..body].copy_from_slice(msg);
        Ok(PageEndMessage {
            map,
            start,
            end: body,
        })
    }

    /// The message.
    pub fn as_slice(&self) -> &[u8] {
        &self.map[self.start..self.end]
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may fail loudly
mod tests {
    use super::*;

    #[test]
    fn the_message_ends_at_a_page_boundary_with_its_bytes_intact() {
        let page = sysconf(SysconfVar::PAGE_SIZE).unwrap().unwrap() as usize;
        for len in [0usize, 1, 31, 4096, 4097, 65536] {
            let msg: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let placed = PageEndMessage::new(&msg).unwrap();
            assert_eq!(placed.as_slice(), &msg[..]);
            let end = placed.as_slice().as_ptr() as usize + len;
            assert_eq!(end % page, 0, "{len} B");
        }
    }
}
