//! The AArch64 kernel (one instruction-set level: the ARMv8
//! Cryptographic Extension).

pub(crate) mod armv8_aes;
