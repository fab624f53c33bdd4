//! `pavelor sum [--tag] [--base64] [FILE]...`: print the digest of each
//! file (`--raw`: the bytes of one file's digest, no line).

use std::ffi::OsStr;
use std::io::{self, Write};

use super::args::SumArgs;
use super::lines::{needs_escape, write_escaped};
use super::names::{STDIN_NAME, inputs, os_bytes};
use super::parallel;
use super::session::Ctx;
use crate::terminal::io_msg;

impl<W: Write> Ctx<W> {
    /// Prints the line of every file; `Ok(false)` if an input failed.
    pub(super) fn print_mode(&mut self, args: &SumArgs) -> io::Result<bool> {
        let alg = args.hash.algorithm;
        let files = inputs(&args.files);
        let mut ok = true;
        // Standard input (a single stream) and a lone file take the
        // one-at-a-time path, the reference for every digest.
        if files.len() == 1 || files.iter().any(|f| f == STDIN_NAME) {
            for name in &files {
                let digest = self.hash_input(alg, name).map(|d| d[..].to_vec());
                ok &= self.print_sum(args, name, digest)?;
            }
            return Ok(ok);
        }
        let jobs = files
            .iter()
            .map(|f| parallel::Job {
                alg,
                path: f.clone(),
            })
            .collect();
        let results = self.hash_files(jobs)?;
        for (name, digest) in files.iter().zip(results) {
            ok &= self.print_sum(args, name, digest)?;
        }
        Ok(ok)
    }

    /// Prints the line of one file (or reports its error): `Ok(false)` for
    /// an error.
    fn print_sum(
        &mut self,
        args: &SumArgs,
        name: &OsStr,
        digest: io::Result<Vec<u8>>,
    ) -> io::Result<bool> {
        let alg = args.hash.algorithm;
        let digest = match digest {
            Ok(d) if args.raw => {
                self.out.write_all(&d)?;
                return Ok(true);
            }
            Ok(d) => args.digest_text().encode(&d),
            Err(e) => {
                self.error(format_args!("{}: {}", name.to_string_lossy(), io_msg(&e)))?;
                return Ok(false);
            }
        };
        let bytes = os_bytes(name);
        // GNU: with --zero, names are written as they are.
        let escape = !args.zero && needs_escape(&bytes);
        if escape {
            self.out.write_all(b"\\")?;
        }
        if args.tag {
            write!(self.out, "{} (", alg.name())?;
        } else {
            let mode = if args.binary { '*' } else { ' ' };
            write!(self.out, "{digest} {mode}")?;
        }
        if escape {
            write_escaped(&mut self.out, &bytes)?;
        } else {
            self.out.write_all(&bytes)?;
        }
        if args.tag {
            write!(self.out, ") = {digest}")?;
        }
        self.out.write_all(if args.zero { b"\0" } else { b"\n" })?;
        Ok(true)
    }
}
