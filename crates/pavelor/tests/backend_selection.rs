//! Which backend runs where: every backend name round-trips, the backends of
//! another architecture are never available, the detected AArch64 backend
//! agrees with the standard library's own feature detection, and (when the
//! environment says what to expect, as `scripts/test-aarch64.sh` does under
//! qemu) the fastest backend is exactly the expected one and is the one the
//! hashers and the batch API use.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::{Algorithm, Backend, P512, Pavelor512, batch};

mod common;

/// Whether the CPU supports `b`, by the standard library's feature
/// detection (an independent source: the crate itself asks `cpufeatures`).
/// The feature lists are those the backends are compiled for.
fn std_says_supported(b: Backend) -> bool {
    match b {
        Backend::Portable => true,
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Backend::AesNi => {
            std::arch::is_x86_feature_detected!("aes")
                && std::arch::is_x86_feature_detected!("sse2")
        }
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Backend::AesNiAvx => {
            std_says_supported(Backend::AesNi) && std::arch::is_x86_feature_detected!("avx")
        }
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Backend::Avx2Vaes => {
            std_says_supported(Backend::AesNi)
                && std::arch::is_x86_feature_detected!("avx")
                && std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("vaes")
        }
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Backend::Avx512Vaes => {
            std_says_supported(Backend::Avx2Vaes)
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512bw")
        }
        #[cfg(target_arch = "aarch64")]
        Backend::Armv8Aes => std::arch::is_aarch64_feature_detected!("aes"),
        // Backends of another architecture.
        _ => false,
    }
}

/// CI fails if a backend this CPU supports is not exercised: the list the
/// per-backend tests iterate over (`common::backends`) must hold exactly
/// the backends the standard library says this CPU runs. (A detection bug
/// that dropped, say, avx512-vaes would otherwise only skip its tests.)
#[test]
fn tested_backends_follow_std_detection() {
    let want: Vec<Backend> = Backend::ALL
        .iter()
        .copied()
        .filter(|&b| std_says_supported(b))
        .collect();
    assert_eq!(common::backends(), want);
    for &b in Backend::ALL {
        assert_eq!(b.is_available(), std_says_supported(b), "{b}");
    }
    common::notice(format_args!(
        "backends exercised on this CPU: {}",
        want.iter().map(|b| b.name()).collect::<Vec<_>>().join(", ")
    ));
}

#[test]
fn names_round_trip() {
    for &b in Backend::ALL {
        assert_eq!(Backend::from_name(b.name()), Ok(b));
    }
    assert_eq!(Backend::from_name("armv8-aes"), Ok(Backend::Armv8Aes));
    assert_eq!(Backend::ALL.last(), Some(&Backend::Portable));
    assert!(Backend::Portable.is_available());
}

#[test]
fn other_architectures_backends_are_unavailable() {
    let x86 = [
        Backend::AesNi,
        Backend::AesNiAvx,
        Backend::Avx2Vaes,
        Backend::Avx512Vaes,
    ];
    if !cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        for b in x86 {
            assert!(!b.is_available(), "{b} reported available off x86");
        }
    }
    if !cfg!(target_arch = "aarch64") {
        assert!(!Backend::Armv8Aes.is_available());
        assert!(
            Algorithm::Pavelor512
                .hasher_with(Backend::Armv8Aes)
                .is_err()
        );
    }
}

#[cfg(target_arch = "aarch64")]
#[test]
fn armv8_aes_follows_the_cpu() {
    let hw = std::arch::is_aarch64_feature_detected!("aes");
    eprintln!("std reports aes = {hw}; best backend = {}", Backend::best());
    assert_eq!(Backend::Armv8Aes.is_available(), hw);
    let expected = if hw {
        Backend::Armv8Aes
    } else {
        Backend::Portable
    };
    assert_eq!(Backend::best(), expected);
    if hw {
        assert_eq!(batch::lanes(Backend::Armv8Aes), Ok(1));
    }
}

/// `PAVELOR_EXPECT_BEST=<name>`: the fastest backend must be `<name>`, and
/// a default hasher must run on it (so the tests of this run exercised it).
#[test]
fn expected_best_backend() {
    let Ok(want) = std::env::var("PAVELOR_EXPECT_BEST") else {
        eprintln!(
            "PAVELOR_EXPECT_BEST not set: best backend here is {}",
            Backend::best()
        );
        return;
    };
    let want = Backend::from_name(&want).unwrap_or_else(|_| panic!("unknown backend {want:?}"));
    assert_eq!(Backend::best(), want, "fastest backend on this CPU");
    assert_eq!(Algorithm::Pavelor512.hasher().backend(), want);
    // Every backend listed before it is unavailable; it and portable are.
    for &b in Backend::ALL.iter().take_while(|&&b| b != want) {
        assert!(!b.is_available(), "{b} is available but ranks above {want}");
    }
    assert!(want.is_available());
    // The default paths agree with the forced backend, single and batched.
    let msg = [0x5au8; 1000];
    let mut h = Pavelor512::with_backend(want).unwrap();
    h.update(msg);
    let forced = h.finalize();
    assert_eq!(forced, Pavelor512::digest(msg));
    let mut out = [Default::default(); 3];
    batch::hash_many::<P512>(&[&msg, &msg[..1], &msg], &mut out).unwrap();
    assert_eq!(out[0], forced);
    assert_eq!(out[2], forced);
    eprintln!("best backend is {want}, as expected");
}

#[test]
fn best_is_the_widest_level_available() {
    let best = Backend::best();
    assert!(best.is_available());
    // No available backend is listed before `best` in `ALL` (fastest first),
    // and AES-NI + AVX CPUs never default to the SSE kernel.
    let first = Backend::ALL.iter().find(|b| b.is_available()).copied();
    assert_eq!(Some(best), first);
    if Backend::AesNiAvx.is_available() {
        assert_ne!(best, Backend::AesNi);
    }
}
