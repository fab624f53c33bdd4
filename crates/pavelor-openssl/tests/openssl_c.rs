//! The provider module as OpenSSL users see it.
//!
//! * `kat_vectors_match_the_crate`: the official answers in
//!   `tests/c/kat_vectors.h` (generated from `test-vectors/pavelor.json` by
//!   `cargo xtask vectors`) are what the `pavelor` crate computes (so the
//!   C test's constants and the crate check each other).
//! * `needs_libssl_dev_c_program_over_evp`: compiles `tests/c/evp_pavelor.c`
//!   with `cc` against the system OpenSSL 3 (libssl-dev) and runs it on the
//!   module `cargo test` just built (`libpavelor_openssl.so`, copied as
//!   `pavelor.so` into a directory given as `OPENSSL_MODULES`): official
//!   answers, context copies, error paths (with the out-length of every
//!   failed `final` 0), the `xoflen` rules of the long digests, finished
//!   MAC contexts and their copies, HMAC against the definition computed
//!   here, load/unload and threads, with canary bytes after every output
//!   buffer; then the same runs under valgrind memcheck; then `openssl
//!   dgst` against the crate.
//!
//! Without a C compiler, the OpenSSL headers or the `openssl` tool the
//! second test prints `SKIPPED: ...` and passes, unless
//! `PAVELOR_REQUIRE_OPENSSL=1` (scripts/ci-openssl.sh sets it), which makes
//! that a failure; likewise valgrind with `PAVELOR_REQUIRE_VALGRIND=1`.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

/// Writes to the process's stderr directly: libtest captures `eprintln!`
/// of passing tests, and a skipped check must be seen in `cargo test` output.
macro_rules! visible {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

use std::path::{Path, PathBuf};
use std::process::Command;

use pavelor::{Algorithm, InstanceFn, Pavelor, Pavelor512, Variant};
use pavelor_test_c::run;

const KAT_HEADER: &str = include_str!("c/kat_vectors.h");

/// `(name, message bits, message, digest)` parsed from `kat_vectors.h`.
fn kat_vectors() -> Vec<(String, u64, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for line in KAT_HEADER.lines() {
        let line = line.trim();
        let Some(body) = line
            .strip_prefix("{\"PAVELOR-")
            .and_then(|l| l.strip_suffix("\"},"))
        else {
            continue;
        };
        let parts: Vec<&str> = body.split(", ").collect();
        assert_eq!(parts.len(), 4, "bad vector line: {line}");
        let name = format!("PAVELOR-{}", parts[0].trim_end_matches('"'));
        let bits: u64 = parts[1].parse().unwrap();
        let msg = hex(parts[2].trim_matches('"'));
        let digest = hex(parts[3].trim_matches('"'));
        out.push((name, bits, msg, digest));
    }
    assert_eq!(out.len(), 12, "expected 4 vectors for each of 3 instances");
    out
}

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn algorithm(name: &str) -> Algorithm {
    name.trim_start_matches("PAVELOR-").parse().unwrap()
}

#[test]
fn kat_vectors_match_the_crate() {
    for (name, bits, msg, digest) in kat_vectors() {
        assert_eq!(bits, 8 * msg.len() as u64);
        let alg = algorithm(&name);
        assert_eq!(
            alg.digest(&msg).as_bytes(),
            &digest[..],
            "{name}, {bits} bits"
        );
    }
}

/// HMAC from its definition (RFC 2104 / FIPS 198-1) over the crate's hash
/// of instance `V`: K0 = K, or H(K) if longer than B, zero-padded to B
/// bytes (B = the rate); H((K0 ^ opad) || H((K0 ^ ipad) || m)).
fn hmac_definition<V: Variant>(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let block = V::RATE;
    let mut k0 = if key.len() > block {
        Pavelor::<V>::digest(key).to_vec()
    } else {
        key.to_vec()
    };
    k0.resize(block, 0);
    let ipad: Vec<u8> = k0.iter().map(|b| b ^ 0x36).collect();
    let opad: Vec<u8> = k0.iter().map(|b| b ^ 0x5c).collect();
    let mut inner = Pavelor::<V>::new();
    inner.update(&ipad);
    inner.update(msg);
    let inner = inner.finalize();
    let mut outer = Pavelor::<V>::new();
    outer.update(&opad);
    outer.update(inner);
    outer.finalize().to_vec()
}

/// The HMAC tags of `key` and `msg` over every instance, in the order of
/// [`Algorithm::ALL`] (the order the C program's `hmac` mode takes them).
fn hmac_all(key: &[u8], msg: &[u8]) -> Vec<String> {
    struct Tag<'a>(&'a [u8], &'a [u8]);
    impl InstanceFn for Tag<'_> {
        type Output = String;
        fn call<V: Variant>(self) -> String {
            to_hex(&hmac_definition::<V>(self.0, self.1))
        }
    }
    Algorithm::ALL
        .into_iter()
        .map(|alg| alg.dispatch(Tag(key, msg)))
        .collect()
}

fn required(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| v == "1")
}

/// Skips (printing why) or, when `var=1`, fails.
fn skip_or_fail(var: &str, why: &str) {
    assert!(!required(var), "{why}, but {var}=1");
    visible!("SKIPPED: {why} (set {var}=1 to make this fatal)");
}

/// The cdylib built by this `cargo test` invocation: the test binary lives
/// in `<target>/<profile>/deps/`, and cargo writes the library next to it
/// (and a copy one level up).
fn built_module() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps, deps.parent().unwrap()] {
        let so = dir.join("libpavelor_openssl.so");
        if so.is_file() {
            return so;
        }
    }
    panic!(
        "libpavelor_openssl.so not found next to {} (cargo builds the cdylib with the tests)",
        exe.display()
    );
}

fn works(cmd: &mut Command) -> bool {
    cmd.output().is_ok_and(|o| o.status.success())
}

#[test]
fn needs_libssl_dev_c_program_over_evp() {
    const REQ: &str = "PAVELOR_REQUIRE_OPENSSL";
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("openssl-c-test");
    let modules = work.join("modules");
    std::fs::create_dir_all(&modules).unwrap();

    if !works(Command::new("cc").arg("--version")) {
        return skip_or_fail(REQ, "no C compiler `cc`");
    }
    let probe = work.join("probe.c");
    std::fs::write(
        &probe,
        "#include <openssl/core_dispatch.h>\n#include <openssl/evp.h>\nint main(void) { return EVP_MD_fetch(0, \"SHA256\", 0) == 0; }\n",
    )
    .unwrap();
    if !works(
        Command::new("cc")
            .arg(&probe)
            .arg("-o")
            .arg(work.join("probe"))
            .arg("-lcrypto"),
    ) {
        return skip_or_fail(
            REQ,
            "OpenSSL 3 headers/libcrypto not found (apt-get install libssl-dev)",
        );
    }

    // The module, under the name OpenSSL derives from the provider name.
    let module = modules.join("pavelor.so");
    std::fs::copy(built_module(), &module).unwrap();

    let exe = work.join("evp_pavelor");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    run(Command::new("cc")
        .args([
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
        ])
        .arg("-I")
        .arg(&src)
        .arg(src.join("evp_pavelor.c"))
        .arg("-o")
        .arg(&exe)
        .args(["-lcrypto", "-lpthread"]));

    let msg: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
    // Keys straddling each block size (64, 128, 192) and the empty key.
    let hmac_cases: Vec<(Vec<u8>, Vec<u8>)> = [0usize, 3, 64, 65, 128, 129, 192, 193, 300]
        .iter()
        .map(|&n| {
            let key: Vec<u8> = (0..n).map(|i| (i * 31 + n) as u8).collect();
            (key, msg[..(n * 3) % msg.len()].to_vec())
        })
        .collect();

    let modes: Vec<Vec<String>> = {
        let mut m = vec![
            vec!["kat".into()],
            vec!["errors".into()],
            vec!["stress".into(), "20".into(), "4".into()],
        ];
        for (key, msg) in &hmac_cases {
            let mut args = vec!["hmac".to_string(), to_hex(key), to_hex(msg)];
            args.extend(hmac_all(key, msg));
            m.push(args);
        }
        m
    };
    let c_program = |wrapper: &[&str], args: &[String]| {
        let mut cmd = match wrapper.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        cmd.args(args)
            .env("OPENSSL_MODULES", &modules)
            .env_remove("OPENSSL_CONF")
            // `cargo test` puts its deps dir on the library path; the C
            // program must use the system libcrypto only.
            .env_remove("LD_LIBRARY_PATH");
        let out = run(&mut cmd);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            stdout.trim_end().ends_with("OK"),
            "unexpected output: {stdout}"
        );
        eprint!("{stdout}");
    };
    for args in &modes {
        c_program(&[], args);
    }

    // The same under valgrind memcheck (no invalid access, no use of
    // uninitialised values, no definite/indirect/possible leak).
    if works(Command::new("valgrind").arg("--version")) {
        let vg = [
            "valgrind",
            "--quiet",
            "--tool=memcheck",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect,possible",
            "--error-exitcode=1",
        ];
        c_program(&vg, &modes[0]);
        c_program(&vg, &modes[1]);
        c_program(
            &vg,
            &["stress".to_string(), "6".to_string(), "3".to_string()],
        );
        c_program(&vg, &modes[modes.len() - 1]);
    } else {
        skip_or_fail(
            "PAVELOR_REQUIRE_VALGRIND",
            "valgrind not installed: the C program did not run under memcheck",
        );
    }

    // `openssl dgst` with the provider against the crate.
    if !works(Command::new("openssl").arg("version")) {
        return skip_or_fail(REQ, "no `openssl` command (apt-get install openssl)");
    }
    let file = work.join("dgst-input.bin");
    let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &data).unwrap();
    let out = run(Command::new("openssl")
        .arg("dgst")
        .arg("-provider-path")
        .arg(&modules)
        .args([
            "-provider",
            "pavelor",
            "-provider",
            "default",
            "-PAVELOR-512",
        ])
        .arg(&file)
        .env_remove("OPENSSL_CONF")
        .env_remove("LD_LIBRARY_PATH"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "PAVELOR-512({})= {}",
        file.display(),
        to_hex(&Pavelor512::digest(&data))
    );
    assert_eq!(stdout.trim(), want);
    eprintln!("openssl dgst -PAVELOR-512 equals the crate");

    // The configuration docs/openssl.md gives, alone: no -provider flag.
    let conf = work.join("openssl.cnf");
    std::fs::write(&conf, documented_config(&module)).unwrap();
    let out = run(Command::new("openssl")
        .args(["list", "-digest-algorithms"])
        .env("OPENSSL_CONF", &conf)
        .env_remove("OPENSSL_MODULES")
        .env_remove("LD_LIBRARY_PATH"));
    let listed = String::from_utf8_lossy(&out.stdout);
    for name in ["PAVELOR-512", "PAVELOR-768", "PAVELOR-1024"] {
        let line = listed
            .lines()
            .find(|l| l.contains(&format!(" {name},")) || l.contains(&format!("{{ {name} ")));
        assert!(
            line.is_some_and(|l| l.trim_end().ends_with("@ pavelor")),
            "`openssl list -digest-algorithms` with the documented openssl.cnf does not list \
             {name} from the provider pavelor:\n{listed}"
        );
    }
    let out = run(Command::new("openssl")
        .args(["dgst", "-PAVELOR-512"])
        .arg(&file)
        .env("OPENSSL_CONF", &conf)
        .env_remove("OPENSSL_MODULES")
        .env_remove("LD_LIBRARY_PATH"));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), want);
    eprintln!("the documented openssl.cnf alone loads the provider: list and dgst");
}

/// The `openssl.cnf` of docs/openssl.md ("from a configuration file
/// alone"), with the module's path put in.
fn documented_config(module: &Path) -> String {
    const PLACEHOLDER: &str = "/absolute/path/to/pavelor.so";
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/openssl.md"
    ))
    .unwrap();
    let start = doc
        .find("```ini\n")
        .expect("docs/openssl.md has an ini block")
        + 7;
    let block = &doc[start..];
    let block = &block[..block.find("```").expect("the ini block ends")];
    assert!(
        block.contains(PLACEHOLDER),
        "the ini block names {PLACEHOLDER}"
    );
    block.replace(PLACEHOLDER, &module.display().to_string())
}
