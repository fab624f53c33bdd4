//! Hashes a file with `std::io::copy` (the `std` feature), and hashes it
//! again in two halves with the state saved and restored in between: both
//! digests are printed, and they are the same.
//!
//! ```sh
//! cargo run -p pavelor --features std --example hash_file -- FILE
//! ```

use std::io::{self, Read};
use std::process::ExitCode;

use pavelor::Pavelor512;
use pavelor::digest::common::hazmat::SerializableState;

fn run(path: &str) -> io::Result<()> {
    // At once: the file streamed into the hasher.
    let mut hasher = Pavelor512::new();
    io::copy(&mut std::fs::File::open(path)?, &mut hasher)?;
    println!("{}  {path}", hex::encode(hasher.finalize()));

    // In two halves: the first half, a saved state, a fresh hasher made
    // from it, the second half.
    let mut file = std::fs::File::open(path)?;
    let half = file.metadata()?.len() / 2;
    let mut first = Pavelor512::new();
    io::copy(&mut (&mut file).take(half), &mut first)?;
    let saved = first.serialize();
    drop(first);
    let mut second = Pavelor512::deserialize(&saved)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    io::copy(&mut file, &mut second)?;
    println!(
        "{}  {path} (resumed after {half} bytes)",
        hex::encode(second.finalize())
    );
    Ok(())
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        eprintln!("usage: hash_file FILE");
        return ExitCode::from(2);
    };
    match run(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hash_file: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}
