//! `pavelor sum --hex HEX [--bits N]`: the digest of one message given as
//! hex digits, of any bit length.

use std::io::{self, Write};

use super::args::SumArgs;
use super::session::Ctx;

impl<W: Write> Ctx<W> {
    /// Prints the digest alone; `Ok(false)` for a bad `--hex` or `--bits`.
    pub(super) fn hex_mode(&mut self, args: &SumArgs, hex: &str) -> io::Result<bool> {
        // An odd digit count is a message ending in a half byte: pad it
        // with a 0 nibble (the bits past --bits are never hashed).
        let padded;
        let even = if hex.len() % 2 == 1 {
            padded = format!("{hex}0");
            &padded
        } else {
            hex
        };
        let message = match ::hex::decode(even) {
            Ok(m) => m,
            Err(::hex::FromHexError::InvalidHexCharacter { c, index }) => {
                // `index` is a byte offset (at a char boundary: every byte
                // before it is an ASCII digit); report the whole character.
                let c = hex.get(index..).and_then(|r| r.chars().next()).unwrap_or(c);
                let pos = hex.get(..index).map_or(index, |p| p.chars().count()) + 1;
                self.error(format_args!(
                    "--hex: invalid hex digit '{}' at position {pos}",
                    c.escape_default()
                ))?;
                return Ok(false);
            }
            Err(e) => {
                self.error(format_args!("--hex: {e}"))?;
                return Ok(false);
            }
        };
        let ndigits = hex.len() as u64;
        let available = 4 * ndigits;
        let nbits = args.bits.unwrap_or(available);
        if nbits > available {
            self.error(format_args!(
                "--bits {nbits}: more than the {available} bits that --hex gives"
            ))?;
            return Ok(false);
        }
        let mut h = self.hasher(args.hash.algorithm);
        if let Err(e) = h.update_bits(&message, nbits) {
            self.error(format_args!("--hex: {e}"))?;
            return Ok(false);
        }
        let digest = h.finalize();
        if args.raw {
            self.out.write_all(&digest)?;
            return Ok(true);
        }
        self.out
            .write_all(args.digest_text().encode(&digest).as_bytes())?;
        self.out.write_all(if args.zero { b"\0" } else { b"\n" })?;
        Ok(true)
    }
}
