//! # pavelor-openssl: Pavelor as an OpenSSL 3 provider
//!
//! A provider module (`pavelor.so`, built by `cargo xtask openssl --out
//! DIR`) that gives OpenSSL 3's EVP layer one digest per Pavelor instance
//! ([`pavelor::Algorithm::ALL`]), with the name `PAVELOR-<bits>` and the
//! aliases `Pavelor-<bits>` and `PAVELOR<bits>` ([`digest_names`]), the
//! digest size of the instance and its rate as the block size, and the MAC
//! `PAVELOR-HMAC` ([`HMAC_NAMES`]) over any of them; all with the property
//! `provider=pavelor`. OpenSSL names are case-insensitive, so `pavelor-512`
//! works as well.
//!
//! The module's only exported symbol is [`OSSL_provider_init`]. The C ABI
//! (dispatch tables, parameters, function numbers) is declared in [`abi`]
//! from OpenSSL's stable headers; there is no C code in the module.
//!
//! Every entry point checks its pointers and lengths and runs inside
//! `catch_unwind`; failures return OpenSSL's failure value and, where the
//! function has a context to reach the core with, put an error on the
//! OpenSSL error queue through the core's `new_error` / `set_error_debug` /
//! `vset_error` callbacks, with the reason codes in [`Reason`].
//!
//! The backend is resolved once, when the provider is initialized (the
//! fastest this CPU runs), every digest of the provider runs on it, and
//! the provider's `buildinfo` parameter names it.
//!
//! ## Modules
//!
//! Each module uses only the ones listed before it (a test checks it):
//!
//! 1. [`abi`]: the C declarations of OpenSSL's provider interface;
//! 2. `names`: the names the provider registers and reports, derived from
//!    the instance list;
//! 3. `reason`: [`Reason`], the crate's error type (the reason codes and
//!    their texts), and raising one through the core;
//! 4. `params`: reading and answering `OSSL_PARAM` arrays;
//! 5. `provctx`: the provider context (core error functions, backend,
//!    build info);
//! 6. `boundary`: what every entry point does at the C boundary (panics,
//!    status and error raising, pointer and buffer checks);
//! 7. `digest`: the digest contexts and entry points, generic over the
//!    instance;
//! 8. `mac`: the MAC `PAVELOR-HMAC`;
//! 9. `dispatch`: the digest and MAC dispatch tables and algorithm lists;
//! 10. `provider`: [`OSSL_provider_init`] and the provider's own entry
//!     points.

// An OpenSSL provider is a C ABI: `unsafe` is allowed here (the workspace
// denies it), and every block carries a `// SAFETY:` comment.
#![allow(unsafe_code)]

// In the order above (blank lines keep rustfmt from sorting them).
pub mod abi;

mod names;

mod reason;

mod params;

mod provctx;

mod boundary;

mod digest;

mod mac;

mod dispatch;

mod provider;

#[cfg(test)]
mod layering;

pub use digest::EVP_MAX_MD_SIZE;
pub use names::{HMAC_NAMES, PROPERTY, PROVIDER_NAME, PROVIDER_VERSION, digest_names};
pub use provider::OSSL_provider_init;
pub use reason::Reason;
