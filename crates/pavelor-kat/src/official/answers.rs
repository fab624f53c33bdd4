//! Comparing with the embedded official answers: one digest with its
//! record's answer ([`compare_official`]), a whole file's text with the
//! NICCS manifest value ([`manifest_check`]).

use pavelor::Algorithm;

use super::report::Failure;
use crate::embedded::{self, Answers, Expected};
use crate::error::Error;
use crate::format::encode_hex_upper;
use crate::suite::KatKind;

/// The implementation's digest must have the instance's length and agree
/// with the official answer.
pub(super) fn compare_official(
    alg: Algorithm,
    got: &[u8],
    expected: Expected,
) -> Result<(), Error> {
    if got.len() != alg.output_len() {
        return Err(Error::DigestLength {
            algorithm: alg,
            got: got.len(),
            want: alg.output_len(),
        });
    }
    if expected.matches(got) {
        return Ok(());
    }
    let (what, n) = match expected {
        Expected::Full(_) => ("official Dst", got.len()),
        Expected::Prefix(p) => ("official Dst starts", p.len()),
    };
    Err(Error::DiffersFromOfficial {
        what,
        official: encode_hex_upper(expected.bytes()),
        computed: encode_hex_upper(&got[..n.min(got.len())]),
    })
}

/// The answer of record `index` of file `kind`, compared with `got`
/// ([`compare_official`]).
pub(super) fn check_answer(
    answers: Answers,
    kind: KatKind,
    index: usize,
    got: &[u8],
) -> Result<(), Error> {
    let expected = answers
        .expected(kind, index)
        .ok_or(Error::NoEmbeddedAnswer { kind, index })?;
    compare_official(answers.algorithm(), got, expected)
}

/// The manifest check of a whole file text (regenerated or read); `what`
/// names the text in the failure ("the file's").
pub(super) fn manifest_check(
    alg: Algorithm,
    kind: KatKind,
    text: &[u8],
    what: &str,
) -> Result<(), Failure> {
    let want = Answers::of(alg).strict_sha256(kind);
    let got = embedded::strict_sha256(text);
    if got == want {
        return Ok(());
    }
    Err(Failure::of_file(format!(
        "{what} strict-form SHA-256 is {}, the NICCS manifest says {} \
         (a Dst differs from the official answer beyond the bytes stored per record)",
        encode_hex_upper(&got),
        encode_hex_upper(&want)
    )))
}
