//! The names this provider registers and reports.
//!
//! The digest names come from each instance's [`Variant::NAME`] (e.g.
//! `"Pavelor-512"`), built at compile time: the registered name list is
//! the name upper-cased, the name itself, and the upper-cased name without
//! its dash (`"PAVELOR-512:Pavelor-512:PAVELOR512"`); the description is
//! the name followed by `" (NGCC hash-22)"`. The HMAC's description lists
//! every instance ([`hmac_description`]).

use std::ffi::CStr;
use std::io::Write as _;
use std::marker::PhantomData;
use std::sync::OnceLock;

use pavelor::{Algorithm, InstanceFn, Variant};

/// The provider's `name` parameter.
pub const PROVIDER_NAME: &CStr = c"Pavelor provider";

/// The provider's `version` parameter (the crate version).
pub const PROVIDER_VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => c"unknown",
    };

/// The property definition of every algorithm of this provider.
pub const PROPERTY: &CStr = c"provider=pavelor";

/// The MAC names of the provider's HMAC.
pub const HMAC_NAMES: &CStr = c"PAVELOR-HMAC:HMAC-PAVELOR";

/// The description of the provider's HMAC, over the instances of
/// [`Algorithm::ALL`]: `"HMAC over PAVELOR-512/768/1024 (B = rate)"`, the
/// first instance's upper-cased name, then the digest bits of the others.
/// Made on first use, in a buffer of the module's own (no allocation
/// outlives the call).
pub(crate) fn hmac_description() -> &'static CStr {
    static TEXT: OnceLock<[u8; CAPACITY]> = OnceLock::new();
    let text = TEXT.get_or_init(|| {
        let mut bytes = [0; CAPACITY];
        // The last byte stays the NUL; a text too long would be cut short
        // (the test below checks the whole text).
        let mut w = &mut bytes[..CAPACITY - 1];
        let mut instances = Algorithm::ALL.into_iter();
        if let Some(first) = instances.next() {
            let _ = write!(w, "HMAC over {}", first.name().to_ascii_uppercase());
        }
        for alg in instances {
            let _ = write!(w, "/{}", alg.output_bits());
        }
        let _ = write!(w, " (B = rate)");
        bytes
    });
    CStr::from_bytes_until_nul(text).unwrap_or(c"")
}

/// The algorithm names (with aliases, `:`-separated, as OpenSSL takes
/// them) registered for the digest `alg`, e.g.
/// `"PAVELOR-512:Pavelor-512:PAVELOR512"`.
pub fn digest_names(alg: Algorithm) -> &'static CStr {
    struct Names;
    impl InstanceFn for Names {
        type Output = &'static CStr;
        fn call<V: Variant>(self) -> &'static CStr {
            InstanceNames::<V>::NAMES
        }
    }
    alg.dispatch(Names)
}

/// The instance one of whose registered digest names (any case, as
/// OpenSSL compares them) is `name`.
pub(crate) fn algorithm_by_name(name: &[u8]) -> Option<Algorithm> {
    Algorithm::ALL.into_iter().find(|&alg| {
        digest_names(alg)
            .to_bytes()
            .split(|&b| b == b':')
            .any(|alias| alias.eq_ignore_ascii_case(name))
    })
}

/// The compile-time names of instance `V`.
pub(crate) struct InstanceNames<V>(PhantomData<V>);

impl<V: Variant> InstanceNames<V> {
    /// See [`digest_names`].
    pub(crate) const NAMES: &'static CStr = as_cstr(&registered_names(V::NAME));
    /// The digest's description, e.g. `"Pavelor-512 (NGCC hash-22)"`.
    pub(crate) const DESCRIPTION: &'static CStr = as_cstr(&description(V::NAME));
}

/// Room for a built name, its NUL included. A name that does not fit
/// fails the build (an out-of-bounds index in constant evaluation).
const CAPACITY: usize = 64;

/// A NUL-terminated string being built in a buffer of [`CAPACITY`] bytes.
struct Builder {
    bytes: [u8; CAPACITY],
    len: usize,
}

impl Builder {
    const fn new() -> Self {
        Builder {
            bytes: [0; CAPACITY],
            len: 0,
        }
    }

    /// Appends `s`, upper-cased if `upper`, without its `-` if `no_dash`.
    const fn push(mut self, s: &str, upper: bool, no_dash: bool) -> Self {
        let s = s.as_bytes();
        let mut i = 0;
        while i < s.len() {
            let b = s[i];
            if !(no_dash && b == b'-') {
                self.bytes[self.len] = if upper { b.to_ascii_uppercase() } else { b };
                self.len += 1;
            }
            i += 1;
        }
        self
    }

    /// The buffer, with room left for the NUL (the build fails if not).
    const fn finish(self) -> [u8; CAPACITY] {
        let mut bytes = self.bytes;
        bytes[self.len] = 0;
        bytes
    }
}

/// `NAME:Name:NAME-WITHOUT-DASH` for the instance name `name`.
const fn registered_names(name: &str) -> [u8; CAPACITY] {
    Builder::new()
        .push(name, true, false)
        .push(":", false, false)
        .push(name, false, false)
        .push(":", false, false)
        .push(name, true, true)
        .finish()
}

/// `Name (NGCC hash-22)` for the instance name `name`.
const fn description(name: &str) -> [u8; CAPACITY] {
    Builder::new()
        .push(name, false, false)
        .push(" (NGCC hash-22)", false, false)
        .finish()
}

/// The string in `bytes`, up to its first NUL ([`Builder::finish`] always
/// writes one, so the `expect` is evaluated, and holds, at compile time).
const fn as_cstr(bytes: &'static [u8; CAPACITY]) -> &'static CStr {
    match CStr::from_bytes_until_nul(bytes) {
        Ok(s) => Some(s),
        Err(_) => None,
    }
    .expect("a built name ends with a NUL")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_names_and_aliases_are_the_ones_openssl_users_know() {
        let names: Vec<&CStr> = Algorithm::ALL.into_iter().map(digest_names).collect();
        assert_eq!(
            names,
            [
                c"PAVELOR-512:Pavelor-512:PAVELOR512",
                c"PAVELOR-768:Pavelor-768:PAVELOR768",
                c"PAVELOR-1024:Pavelor-1024:PAVELOR1024",
            ]
        );
        assert_eq!(
            InstanceNames::<pavelor::P1024>::DESCRIPTION,
            c"Pavelor-1024 (NGCC hash-22)"
        );
        assert_eq!(
            hmac_description(),
            c"HMAC over PAVELOR-512/768/1024 (B = rate)"
        );
    }

    #[test]
    fn every_alias_finds_its_instance_in_any_case() {
        for alg in Algorithm::ALL {
            for alias in digest_names(alg).to_bytes().split(|&b| b == b':') {
                assert_eq!(algorithm_by_name(alias), Some(alg));
                assert_eq!(algorithm_by_name(&alias.to_ascii_lowercase()), Some(alg));
            }
        }
        assert_eq!(algorithm_by_name(b"512"), None);
        assert_eq!(algorithm_by_name(b"PAVELOR-512:Pavelor-512"), None);
        assert_eq!(algorithm_by_name(b""), None);
    }
}
