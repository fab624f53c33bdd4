//! Which backend runs where: every backend name round-trips, the backends of
//! another architecture are never available, the detected AArch64 backend
//! agrees with the standard library's own feature detection, and (when the
//! environment says what to expect, as `scripts/test-aarch64.sh` does under
//! qemu) the fastest backend is exactly the expected one and is the one the
//! hashers and the batch API use.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::{Algorithm, Available, Backend, P512, Pavelor512, batch};

fn is_available(b: Backend) -> bool {
    Available::detect(b).is_ok()
}

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
    let tested: Vec<Backend> = common::backends().iter().map(|b| b.backend()).collect();
    assert_eq!(tested, want);
    for &b in Backend::ALL {
        assert_eq!(is_available(b), std_says_supported(b), "{b}");
    }
    common::notice(format_args!(
        "backends exercised on this CPU: {}",
        want.iter().map(|b| b.name()).collect::<Vec<_>>().join(", ")
    ));
}

#[test]
fn names_round_trip() {
    for &b in Backend::ALL {
        assert_eq!(Backend::from_name(b.name()), Some(b));
    }
    assert_eq!(Backend::from_name("armv8-aes"), Some(Backend::Armv8Aes));
    assert_eq!(Backend::ALL.last(), Some(&Backend::Portable));
    assert!(is_available(Backend::Portable));
    assert_eq!(Available::portable().backend(), Backend::Portable);
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
            assert!(!is_available(b), "{b} reported available off x86");
        }
    }
    if !cfg!(target_arch = "aarch64") {
        assert_eq!(
            Available::detect(Backend::Armv8Aes),
            Err(pavelor::Error::BackendUnavailable(Backend::Armv8Aes))
        );
        assert_eq!(
            Available::resolve(Some("armv8-aes")),
            Err(pavelor::Error::BackendUnavailable(Backend::Armv8Aes))
        );
    }
}

#[cfg(target_arch = "aarch64")]
#[test]
fn armv8_aes_follows_the_cpu() {
    let hw = std::arch::is_aarch64_feature_detected!("aes");
    eprintln!(
        "std reports aes = {hw}; best backend = {}",
        Available::best()
    );
    assert_eq!(is_available(Backend::Armv8Aes), hw);
    let expected = if hw {
        Backend::Armv8Aes
    } else {
        Backend::Portable
    };
    assert_eq!(Available::best().backend(), expected);
    if hw {
        assert_eq!(
            Available::detect(Backend::Armv8Aes).map(|b| b.lanes()),
            Ok(1)
        );
    }
}

/// `PAVELOR_EXPECT_BEST=<name>`: the fastest backend must be `<name>`, and
/// a default hasher must run on it (so the tests of this run exercised it).
#[test]
fn expected_best_backend() {
    let Ok(want) = std::env::var("PAVELOR_EXPECT_BEST") else {
        eprintln!(
            "PAVELOR_EXPECT_BEST not set: best backend here is {}",
            Available::best()
        );
        return;
    };
    let want = Backend::from_name(&want).unwrap_or_else(|| panic!("unknown backend {want:?}"));
    assert_eq!(
        Available::best().backend(),
        want,
        "fastest backend on this CPU"
    );
    assert_eq!(Algorithm::Pavelor512.hasher().backend().backend(), want);
    // Every backend listed before it is unavailable; it and portable are.
    for &b in Backend::ALL.iter().take_while(|&&b| b != want) {
        assert!(!is_available(b), "{b} is available but ranks above {want}");
    }
    let want = Available::detect(want).unwrap();
    // The default paths agree with the forced backend, single and batched.
    let msg = [0x5au8; 1000];
    let mut h = Pavelor512::with_backend(want);
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
    let best = Available::best().backend();
    assert!(is_available(best));
    // No available backend is listed before `best` in `ALL` (fastest first),
    // and AES-NI + AVX CPUs never default to the SSE kernel.
    let first = Backend::ALL.iter().find(|&&b| is_available(b)).copied();
    assert_eq!(Some(best), first);
    assert_eq!(Available::all().next().map(|b| b.backend()), first);
    if is_available(Backend::AesNiAvx) {
        assert_ne!(best, Backend::AesNi);
    }
}

#[test]
fn resolve_is_the_one_user_choice() {
    assert_eq!(Available::resolve(None), Ok(Available::best()));
    assert_eq!(
        Available::resolve(Some("portable")),
        Ok(Available::portable())
    );
    assert_eq!(
        Available::resolve(Some("no-such-backend")),
        Err(pavelor::Error::UnknownBackend)
    );
    let msg = pavelor::Error::UnknownBackend.to_string();
    for &b in Backend::ALL {
        assert!(msg.contains(b.name()), "{msg}");
    }
    for b in Available::all() {
        assert_eq!(Available::resolve(Some(b.name())), Ok(b));
        assert_eq!(b.to_string(), b.name());
    }
}

#[test]
fn the_unknown_instance_message_lists_every_instance() {
    let msg = pavelor::Error::UnknownAlgorithm.to_string();
    assert_eq!(msg, "unknown instance (expected 512, 768 or 1024)");
    for alg in Algorithm::ALL {
        assert!(msg.contains(&alg.output_bits().to_string()), "{msg}");
    }
}
