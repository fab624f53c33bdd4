//! The ICCS auxiliary hash functions, the baselines of every NICCS hash
//! table: `sm3hash`, `pseudohash` and `pseudoXOF`, each on bit strings,
//! with the ICCS C interface's lengths in bits.
//!
//! * `sm3hash(256, M)` is SM3 (GB/T 32905-2016) of the bit string `M`.
//! * `pseudoXOF(n, M)` is the key derivation function of GB/T 32918.4-2016
//!   §5.4.3 with `Z = M`: the first `n` bits of `SM3(M ‖ ct)` for the
//!   32-bit big-endian counters `ct` = 1, 2, …, each computed from the
//!   whole of `M ‖ ct` as the definition reads (and as the ICCS reference
//!   code computes it, so that a "× pseudoXOF" factor compares with the
//!   cost NICCS measures). The bits of the last byte past `n` are 0.
//! * `pseudohash(w, M)` for w = 512, 768, 1024 is a cascade of SM3 and
//!   HMAC-SM3 (GB/T 15852.2-2024 §7) under the fixed 64-byte key
//!   `K = SM3("3.14159265358979") ‖ SM3("2.71828182845904")`, with the
//!   16-bit domain tag `d = (w / 256) ‖ 0x00`:
//!   `k1 = HMAC(d ‖ M)`, `h1 = SM3(M ‖ d)`, `h2 = SM3(k1 ‖ h1)`;
//!   for 768 and 1024 also `k2 = HMAC(h1)`, `h3 = SM3(h2 ‖ k2)`; for 1024
//!   also `k3 = HMAC(h2)`, `k4 = HMAC(h3)`, `h4 = SM3(k3 ‖ h3 ‖ k4)`. The
//!   digest is `h1 ‖ h2`, `h1 ‖ h2 ‖ h3` or `h1 ‖ h2 ‖ h3 ‖ h4`.
//!
//! Every `‖` joins bit strings, so a message of a length that is not a
//! multiple of 8 is followed by the next part's bits directly.

#![forbid(unsafe_code)]

pub mod sm3_bits;

use std::fmt;

use sm3_bits::{Bits, Sm3Bits};

/// A digest width of `pseudohash`, and of the `pseudoXOF` baselines
/// measured beside the Pavelor instances of the same width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Width {
    /// 512 bits.
    W512,
    /// 768 bits.
    W768,
    /// 1024 bits.
    W1024,
}

impl Width {
    /// Every width, in increasing order.
    pub const ALL: [Width; 3] = [Width::W512, Width::W768, Width::W1024];

    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Width::W512 => 512,
            Width::W768 => 768,
            Width::W1024 => 1024,
        }
    }

    /// The width of `bits`, if it is one.
    pub fn from_bits(bits: u64) -> Option<Width> {
        Width::ALL.into_iter().find(|w| u64::from(w.bits()) == bits)
    }

    /// The width in bytes.
    pub fn bytes(self) -> usize {
        self.bits() as usize / 8
    }
}

/// One ICCS helper at one output width, as the harness measures it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Helper {
    /// `sm3hash` (256 bits).
    Sm3Hash,
    /// `pseudohash` at a width.
    PseudoHash(Width),
    /// `pseudoXOF` with an output of a width.
    PseudoXof(Width),
}

impl Helper {
    /// The helpers measured, in the order of the harness's summary table.
    pub const ALL: [Helper; 7] = [
        Helper::Sm3Hash,
        Helper::PseudoHash(Width::W512),
        Helper::PseudoHash(Width::W768),
        Helper::PseudoHash(Width::W1024),
        Helper::PseudoXof(Width::W512),
        Helper::PseudoXof(Width::W768),
        Helper::PseudoXof(Width::W1024),
    ];

    /// The function's name in the ICCS interface.
    pub fn function(self) -> &'static str {
        match self {
            Helper::Sm3Hash => "sm3hash",
            Helper::PseudoHash(_) => "pseudohash",
            Helper::PseudoXof(_) => "pseudoXOF",
        }
    }

    /// Output bits.
    pub fn output_bits(self) -> u32 {
        match self {
            Helper::Sm3Hash => 256,
            Helper::PseudoHash(w) | Helper::PseudoXof(w) => w.bits(),
        }
    }

    /// Output bytes.
    pub fn output_len(self) -> usize {
        self.output_bits() as usize / 8
    }

    /// The harness's label: `sm3hash-256`, `pseudohash-512`, `pseudoXOF-768`.
    pub fn label(self) -> String {
        format!("{}-{}", self.function(), self.output_bits())
    }

    /// The helper of a [`label`](Self::label), compared without regard to
    /// case.
    pub fn from_label(label: &str) -> Option<Helper> {
        Helper::ALL
            .into_iter()
            .find(|h| h.label().eq_ignore_ascii_case(label))
    }

    /// The `pseudoXOF` baseline of a digest width, if it is measured.
    pub fn xof_of_bits(bits: u64) -> Option<Helper> {
        Width::from_bits(bits).map(Helper::PseudoXof)
    }

    /// The helper on the first `bits` bits of `msg`, into the front of
    /// `out` ([`output_len`](Self::output_len) bytes).
    pub fn compute(self, msg: &[u8], bits: u64, out: &mut [u8]) -> Result<(), HelperError> {
        let m = Bits::new(msg, bits).ok_or(HelperError::ShortMessage)?;
        let out = out
            .get_mut(..self.output_len())
            .ok_or(HelperError::ShortOutput)?;
        match self {
            Helper::Sm3Hash => out.copy_from_slice(&Sm3Bits::digest(&[m])),
            Helper::PseudoHash(w) => pseudohash_into(w, m, out),
            Helper::PseudoXof(w) => pseudo_xof_into(u64::from(w.bits()), m, out)?,
        }
        Ok(())
    }
}

impl fmt::Display for Helper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// Why a helper refused its arguments (the ICCS functions return an error
/// code for each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HelperError {
    /// A digest length the function does not have.
    InvalidDigestLength,
    /// The message holds fewer bytes than its length in bits needs.
    ShortMessage,
    /// The output buffer is shorter than the output.
    ShortOutput,
}

impl fmt::Display for HelperError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HelperError::InvalidDigestLength => "digest length not supported",
            HelperError::ShortMessage => "message shorter than its length in bits",
            HelperError::ShortOutput => "output buffer shorter than the output",
        })
    }
}

impl std::error::Error for HelperError {}

/// `sm3hash(digest_bits, M)`: SM3 of the first `bits` bits of `msg`;
/// `digest_bits` must be 256.
pub fn sm3hash(digest_bits: u32, msg: &[u8], bits: u64) -> Result<[u8; 32], HelperError> {
    if digest_bits != 256 {
        return Err(HelperError::InvalidDigestLength);
    }
    let m = Bits::new(msg, bits).ok_or(HelperError::ShortMessage)?;
    Ok(Sm3Bits::digest(&[m]))
}

/// `pseudohash(digest_bits, M)` of the first `bits` bits of `msg`;
/// `digest_bits` must be 512, 768 or 1024.
pub fn pseudohash(digest_bits: u32, msg: &[u8], bits: u64) -> Result<Vec<u8>, HelperError> {
    let w = Width::from_bits(u64::from(digest_bits)).ok_or(HelperError::InvalidDigestLength)?;
    let m = Bits::new(msg, bits).ok_or(HelperError::ShortMessage)?;
    let mut out = vec![0u8; w.bytes()];
    pseudohash_into(w, m, &mut out);
    Ok(out)
}

/// The largest `pseudoXOF` output, bits: the counter of GB/T 32918.4's
/// KDF has 2^32 − 1 values of 256 bits each, and the output must be
/// shorter than all of them.
pub const MAX_XOF_BITS: u64 = (u32::MAX as u64) * 256 - 1;

/// `pseudoXOF(output_bits, M)` of the first `bits` bits of `msg`
/// (`output_bits.div_ceil(8)` bytes; the bits of the last byte past
/// `output_bits` are 0).
pub fn pseudo_xof(output_bits: u64, msg: &[u8], bits: u64) -> Result<Vec<u8>, HelperError> {
    if output_bits > MAX_XOF_BITS {
        return Err(HelperError::InvalidDigestLength);
    }
    let m = Bits::new(msg, bits).ok_or(HelperError::ShortMessage)?;
    let len = usize::try_from(output_bits.div_ceil(8)).map_err(|_| HelperError::ShortOutput)?;
    let mut out = vec![0u8; len];
    pseudo_xof_into(output_bits, m, &mut out)?;
    Ok(out)
}

/// `pseudoXOF` into the front of `out`; `output_bits` is at most
/// [`MAX_XOF_BITS`] (a [`Width`], or checked by [`pseudo_xof`]).
fn pseudo_xof_into(output_bits: u64, m: Bits<'_>, out: &mut [u8]) -> Result<(), HelperError> {
    let len = output_bits.div_ceil(8) as usize;
    let out = out.get_mut(..len).ok_or(HelperError::ShortOutput)?;
    for (i, chunk) in out.chunks_mut(32).enumerate() {
        // At most 2^32 - 1 chunks, by MAX_XOF_BITS.
        let ct = (i as u32).wrapping_add(1).to_be_bytes();
        let block = Sm3Bits::digest(&[m, Bits::whole(&ct)]);
        chunk.copy_from_slice(&block[..chunk.len()]);
    }
    let tail = (output_bits % 8) as u32;
    if tail > 0
        && let Some(last) = out.last_mut()
    {
        *last &= (0xff00u16 >> tail) as u8;
    }
    Ok(())
}

/// `SM3("3.14159265358979") ‖ SM3("2.71828182845904")`: the key of the
/// HMAC in `pseudohash` (a test computes it again). It is one SM3 block
/// long, so HMAC uses it as it is.
const PSEUDOHASH_KEY: [u8; 64] = [
    0x53, 0x07, 0xf6, 0xd5, 0xeb, 0x6a, 0x3c, 0xed, 0x3d, 0x24, 0xc5, 0x3c, 0xc9, 0xc8, 0x2c, 0xce,
    0x2f, 0x89, 0x36, 0x39, 0x70, 0x23, 0xf0, 0x69, 0x5c, 0x26, 0xc8, 0x0c, 0x1a, 0xb1, 0x82, 0xa7,
    0x1d, 0xb0, 0x2b, 0xa9, 0x2f, 0x54, 0x40, 0x18, 0x11, 0x5a, 0x96, 0xe7, 0x19, 0x66, 0x2c, 0xa3,
    0x2b, 0x7c, 0x7e, 0xfc, 0x0a, 0x6d, 0x24, 0x82, 0x15, 0x07, 0x66, 0xba, 0x6f, 0x65, 0x5b, 0x8e,
];

/// HMAC-SM3 under `key` (one block) of the concatenation of `parts`.
fn hmac(key: &[u8; 64], parts: &[Bits<'_>]) -> [u8; 32] {
    let pad = |byte: u8| {
        let mut p = *key;
        p.iter_mut().for_each(|b| *b ^= byte);
        p
    };
    let (ipad, opad) = (pad(0x36), pad(0x5c));
    let mut inner = Sm3Bits::new();
    inner.update(Bits::whole(&ipad));
    for &p in parts {
        inner.update(p);
    }
    let inner = inner.finish();
    Sm3Bits::digest(&[Bits::whole(&opad), Bits::whole(&inner)])
}

fn pseudohash_into(w: Width, m: Bits<'_>, out: &mut [u8]) {
    let key = &PSEUDOHASH_KEY;
    let dom = [(w.bits() / 256) as u8, 0];
    let dom = Bits::whole(&dom);
    let k1 = hmac(key, &[dom, m]);
    let h1 = Sm3Bits::digest(&[m, dom]);
    let h2 = Sm3Bits::digest(&[Bits::whole(&k1), Bits::whole(&h1)]);
    out[..32].copy_from_slice(&h1);
    out[32..64].copy_from_slice(&h2);
    if w == Width::W512 {
        return;
    }
    let k2 = hmac(key, &[Bits::whole(&h1)]);
    let h3 = Sm3Bits::digest(&[Bits::whole(&h2), Bits::whole(&k2)]);
    out[64..96].copy_from_slice(&h3);
    if w == Width::W768 {
        return;
    }
    let k3 = hmac(key, &[Bits::whole(&h2)]);
    let k4 = hmac(key, &[Bits::whole(&h3)]);
    let h4 = Sm3Bits::digest(&[Bits::whole(&k3), Bits::whole(&h3), Bits::whole(&k4)]);
    out[96..128].copy_from_slice(&h4);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pseudohash_key_is_the_two_digests() {
        let pi = Sm3Bits::digest(&[Bits::whole(b"3.14159265358979")]);
        let e = Sm3Bits::digest(&[Bits::whole(b"2.71828182845904")]);
        assert_eq!(PSEUDOHASH_KEY[..32], pi);
        assert_eq!(PSEUDOHASH_KEY[32..], e);
    }

    #[test]
    fn hmac_agrees_with_rustcrypto_hmac_on_bytes() {
        use hmac::{KeyInit, Mac};
        for n in [0usize, 1, 63, 64, 65, 200] {
            let msg: Vec<u8> = (0..n).map(|i| (i * 7 + 1) as u8).collect();
            let mut mac = hmac::Hmac::<sm3::Sm3>::new_from_slice(&PSEUDOHASH_KEY).expect("key");
            mac.update(&msg);
            let want = mac.finalize().into_bytes();
            assert_eq!(hmac(&PSEUDOHASH_KEY, &[Bits::whole(&msg)]), want[..], "{n}");
        }
    }

    #[test]
    fn lengths_are_checked() {
        assert_eq!(sm3hash(512, b"", 0), Err(HelperError::InvalidDigestLength));
        assert_eq!(
            pseudohash(256, b"", 0),
            Err(HelperError::InvalidDigestLength)
        );
        assert_eq!(sm3hash(256, b"a", 9), Err(HelperError::ShortMessage));
        assert_eq!(
            pseudo_xof(MAX_XOF_BITS + 1, b"", 0),
            Err(HelperError::InvalidDigestLength)
        );
        assert_eq!(pseudo_xof(0, b"abc", 24), Ok(Vec::new()));
        let mut short = [0u8; 63];
        assert_eq!(
            Helper::PseudoXof(Width::W512).compute(b"", 0, &mut short),
            Err(HelperError::ShortOutput)
        );
        for h in Helper::ALL {
            assert_eq!(Helper::from_label(&h.label()), Some(h));
        }
        assert_eq!(
            Helper::from_label("pseudoxof-1024"),
            Some(Helper::PseudoXof(Width::W1024))
        );
        assert_eq!(Helper::from_label("pseudoXOF-256"), None);
    }
}
