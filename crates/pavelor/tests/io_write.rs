//! `std::io::Write` for the hashers (the `std` feature): `io::copy` of a
//! file and of a reader into `Pavelor512`/`768`/`1024` and into
//! `DynHasher`, against the independent reference.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod common;
mod reference;

#[cfg(feature = "std")]
mod with_std {
    use std::io::{self, Read, Write};

    use super::reference;
    use pavelor::{Algorithm, Pavelor512, Pavelor768, Pavelor1024};

    /// A reader handing out at most 7 bytes per read, so that a copy is many
    /// writes of odd lengths.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(7).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn message() -> Vec<u8> {
        (0..100_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
            .collect()
    }

    #[test]
    fn io_copy_of_a_file_gives_the_reference_digest() {
        let msg = message();
        let path = std::env::temp_dir().join(format!("pavelor-io-write-{}", std::process::id()));
        std::fs::write(&path, &msg).unwrap();
        let copy_into = |w: &mut dyn Write| {
            let mut file = std::fs::File::open(&path).unwrap();
            assert_eq!(io::copy(&mut file, w).unwrap(), msg.len() as u64);
        };
        let mut h512 = Pavelor512::new();
        copy_into(&mut h512);
        let mut h768 = Pavelor768::new();
        copy_into(&mut h768);
        let mut h1024 = Pavelor1024::new();
        copy_into(&mut h1024);
        let mut dynamic = Algorithm::Pavelor768.hasher();
        copy_into(&mut dynamic);
        std::fs::remove_file(&path).unwrap();

        assert_eq!(
            h512.finalize()[..],
            reference::hash(Algorithm::Pavelor512, &msg)[..]
        );
        let want768 = reference::hash(Algorithm::Pavelor768, &msg);
        assert_eq!(h768.finalize()[..], want768[..]);
        assert_eq!(dynamic.finalize().as_ref(), &want768[..]);
        assert_eq!(
            h1024.finalize()[..],
            reference::hash(Algorithm::Pavelor1024, &msg)[..]
        );
    }

    #[test]
    fn many_small_writes_and_a_pending_partial_byte() {
        let msg = message();
        let mut h = Pavelor512::new();
        assert_eq!(io::copy(&mut Trickle(&msg[..5000]), &mut h).unwrap(), 5000);
        h.flush().unwrap();
        assert_eq!(
            h.finalize()[..],
            reference::hash(Algorithm::Pavelor512, &msg[..5000])[..]
        );

        // After 4 bits, written bytes follow them in the bit string, as
        // `update` appends them.
        let mut h = Pavelor1024::new();
        h.update_bits(&[0x90], 4).unwrap();
        h.write_all(&[0xab, 0xcd]).unwrap();
        let want = reference::hash_bits(Algorithm::Pavelor1024, &[0x9a, 0xbc, 0xd0], 20);
        assert_eq!(h.finalize()[..], want[..]);
    }
}

#[cfg(not(feature = "std"))]
#[test]
fn io_write_needs_the_std_feature() {
    common::notice(format_args!(
        "SKIPPED io_write: std::io::Write is tested with the std feature (cargo test --workspace enables it)"
    ));
}
