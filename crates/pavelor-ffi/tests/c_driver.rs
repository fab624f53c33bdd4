//! ICCS-level test in C: builds the three `CryptHash` libraries with the
//! same code path as `cargo xtask iccs` (it runs the xtask), compiles
//! `tests/c/driver.c` with the system `cc` against each instance's generated
//! header and links it once with `libCryptHash.so` and once with
//! `libCryptHash.a`, then runs each driver on the instance's `KAT_2_12` file
//! (all 4097 records; the official file regenerated into the work dir and
//! checked against its embedded SHA-256) and the error cases.
//!
//! Fails (does not skip) if `cc` is missing. Everything is built under
//! `CARGO_TARGET_TMPDIR/iccs-c-test` with its own cargo target directories,
//! so it never waits on the lock of the outer `cargo test`.
//!
//! Not `#[ignore]`d. From scratch it runs the xtask, three release builds
//! and six driver runs; later runs reuse the builds cached in
//! `target/tmp/iccs-c-test`. Run it alone with
//! `cargo test -p pavelor-ffi --test c_driver -- --nocapture`.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::path::{Path, PathBuf};
use std::process::Command;

use pavelor::Algorithm;
use pavelor_test_c::{memcheck, run};

/// Native libraries Rust's std needs when linking a staticlib on Linux/glibc.
const STATIC_LINK_LIBS: [&str; 5] = ["-lpthread", "-ldl", "-lm", "-lrt", "-lutil"];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Writes the official `KAT_2_12` file of instance `alg` into `dir`:
/// regenerated (DRNG messages, portable-backend digests) and accepted only
/// if its SHA-256 equals the official file's, embedded in pavelor-kat. No
/// KAT files needed.
fn write_official_kat_2_12(dir: &Path, alg: Algorithm) -> PathBuf {
    use sha2::{Digest, Sha256};
    let kind = pavelor_kat::KatKind::Kat2_12;
    let portable = pavelor::Available::portable();
    let text = pavelor_kat::generate::file_text(kind, alg, portable, &mut |_, _| {}).unwrap();
    assert_eq!(
        <[u8; 32]>::from(Sha256::digest(text.as_bytes())),
        pavelor_kat::embedded::Answers::of(alg).file_sha256(kind),
        "regenerated {} is not the official file",
        kind.file_name(alg)
    );
    let path = dir.join(kind.file_name(alg));
    std::fs::write(&path, text).unwrap();
    path
}

fn require_cc() {
    match Command::new("cc").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "`cc --version` failed ({}): the C test needs a C compiler",
            out.status
        ),
        Err(e) => panic!("cannot run `cc` ({e}): the C test needs a C compiler named cc"),
    }
}

/// `cargo xtask iccs --out <work>/out --build-dir <work>/build`.
fn build_libraries(work: &Path) -> PathBuf {
    let out_dir = work.join("out");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(Command::new(cargo)
        .args(["run", "--quiet", "--package", "xtask", "--manifest-path"])
        .arg(manifest_dir().join("../../Cargo.toml"))
        .arg("--target-dir")
        .arg(work.join("xtask-target"))
        .args(["--", "iccs", "--out"])
        .arg(&out_dir)
        .arg("--build-dir")
        .arg(work.join("build")));
    out_dir
}

fn cc_base(include: &Path, exe: &Path) -> Command {
    let mut cmd = Command::new("cc");
    cmd.args([
        "-std=c99",
        "-O2",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
    ])
    .arg("-I")
    .arg(include)
    .arg(manifest_dir().join("tests/c/driver.c"))
    .arg("-o")
    .arg(exe);
    cmd
}

#[test]
fn c_driver_against_shared_and_static_libraries() {
    require_cc();
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("iccs-c-test");
    std::fs::create_dir_all(&work).unwrap();
    let out_dir = build_libraries(&work);

    for alg in Algorithm::ALL {
        let (name, bits) = (alg.name(), alg.output_bits());
        let lib_dir = out_dir.join(name);
        for file in [
            "libCryptHash.so",
            "libCryptHash.a",
            "CryptHash_AlgorithmInstance.h",
        ] {
            assert!(
                lib_dir.join(file).is_file(),
                "missing {}",
                lib_dir.join(file).display()
            );
        }
        let header =
            std::fs::read_to_string(lib_dir.join("CryptHash_AlgorithmInstance.h")).unwrap();
        assert!(header.contains(&format!("#define ALGORITHM_INSTANCE \"{name}\"")));
        assert!(header.contains(&format!("#define DIGEST_BIT_LENGTH {bits}\n")));

        // The header must also be valid C++ (extern "C" guards).
        let cxx_check = work.join(format!("{name}-cxx.cc"));
        std::fs::write(
            &cxx_check,
            "#include \"CryptHash_AlgorithmInstance.h\"\nint (*f)(int, const unsigned char *, unsigned long long, unsigned char *) = CryptHash;\n",
        )
        .unwrap();
        run(Command::new("cc")
            .args(["-x", "c++", "-fsyntax-only", "-Wall", "-Werror", "-I"])
            .arg(&lib_dir)
            .arg(&cxx_check));

        let shared_exe = work.join(format!("driver-{bits}-shared"));
        run(cc_base(&lib_dir, &shared_exe)
            .arg("-L")
            .arg(&lib_dir)
            .arg("-lCryptHash")
            .arg(format!("-Wl,-rpath,{}", lib_dir.display())));
        // It really depends on the shared library.
        let exe_bytes = std::fs::read(&shared_exe).unwrap();
        assert!(
            exe_bytes.windows(15).any(|w| w == b"libCryptHash.so"),
            "{} does not reference libCryptHash.so",
            shared_exe.display()
        );

        let static_exe = work.join(format!("driver-{bits}-static"));
        run(cc_base(&lib_dir, &static_exe)
            .arg(lib_dir.join("libCryptHash.a"))
            .args(STATIC_LINK_LIBS));

        let kat = write_official_kat_2_12(&work, alg);
        for exe in [&shared_exe, &static_exe] {
            // `cargo test` puts its own deps dir (holding the default
            // instance's debug libCryptHash.so) on LD_LIBRARY_PATH, which
            // beats the driver's RUNPATH: drop it so the rpath is used.
            let out = run(Command::new(exe)
                .env_remove("LD_LIBRARY_PATH")
                .arg(&kat)
                .arg("4097"));
            let stdout = String::from_utf8_lossy(&out.stdout);
            eprintln!("{}: {}", exe.display(), stdout.trim());
            assert!(stdout.contains(&format!("{name}: 4097 KAT records OK, error cases OK")));
            memcheck_driver(exe, &kat, name);
        }
    }
}

/// The same driver run (all KAT records, NULL and short-length error cases)
/// under valgrind memcheck: no invalid read or write, no use of
/// uninitialised memory, no leak. Skipped with a printed reason when
/// valgrind is missing, unless `PAVELOR_REQUIRE_VALGRIND=1` (CI).
fn memcheck_driver(exe: &Path, kat: &Path, name: &str) {
    let Some(out) = memcheck(exe, &[&kat.to_string_lossy(), "4097"]) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains(&format!("{name}: 4097 KAT records OK, error cases OK")));
    assert!(stderr.contains("ERROR SUMMARY: 0 errors"), "{stderr}");
    eprintln!("{} under memcheck: 0 errors, no leaks", exe.display());
}
