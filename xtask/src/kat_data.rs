//! `cargo xtask kat-data [--from DIR] [--out FILE] [--check]`: derives the
//! embedded official KAT answers (`crates/pavelor-kat/data/
//! official-answers.bin`, layout in `pavelor_kat::embedded` and
//! `docs/kat-data.md`) from the twelve official KAT files.
//!
//! Nothing is hashed with Pavelor here: the digests are copied from the
//! files, and each file's strict-form SHA-256 (the NICCS manifest value) is
//! computed from its bytes. Each file must have the official record count,
//! `Msg_Len` schedule and `Dst_Len`, or nothing is written. The output only
//! depends on the files' contents, so re-running it gives the same bytes.

use std::path::{Path, PathBuf};

use clap::Args;
use pavelor_ffi::Algorithm;
use pavelor_kat::KatKind;
use pavelor_kat::embedded::{self, InstanceAnswers};
use pavelor_kat::format;
use pavelor_kat::official::{max_file_bytes, official_msg_len, read_limited, record_count};
use sha2::{Digest, Sha256};

#[derive(Args)]
pub(crate) struct KatDataArgs {
    /// Directory holding the twelve official KAT_*.txt files.
    #[arg(long, value_name = "DIR")]
    from: PathBuf,

    /// Output file [default: crates/pavelor-kat/data/official-answers.bin
    /// in the workspace].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Do not write: exit non-zero unless the output file already holds
    /// exactly what would be written.
    #[arg(long)]
    check: bool,
}

pub(crate) fn run(args: &KatDataArgs) -> Result<(), String> {
    let root = crate::workspace_root();
    let from = &args.from;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| root.join("crates/pavelor-kat/data/official-answers.bin"));
    let data = derive(from)?;
    if args.check {
        let current =
            std::fs::read(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
        if current != data {
            return Err(format!(
                "{} differs from what `cargo xtask kat-data` derives from {}",
                out.display(),
                from.display()
            ));
        }
        eprintln!(
            "xtask: {} is up to date with {} ({} bytes)",
            out.display(),
            from.display(),
            data.len()
        );
        return Ok(());
    }
    crate::write_atomically(&out, &data)?;
    eprintln!(
        "xtask: wrote {} ({} bytes) from {}",
        out.display(),
        data.len(),
        from.display()
    );
    Ok(())
}

/// The data file's bytes, derived from the official files in `dir`.
pub(crate) fn derive(dir: &Path) -> Result<Vec<u8>, String> {
    let mut instances = Vec::new();
    for alg in Algorithm::ALL {
        let mut strict_sha256 = [[0u8; 32]; 4];
        let mut file_sha256 = [[0u8; 32]; 4];
        let mut dsts: Vec<Vec<Vec<u8>>> = Vec::new();
        for (i, kind) in KatKind::ALL.into_iter().enumerate() {
            let path = dir.join(kind.file_name(alg));
            let text = read_limited(&path, max_file_bytes(kind)).map_err(|e| e.to_string())?;
            strict_sha256[i] = embedded::strict_sha256(&text);
            file_sha256[i] = Sha256::digest(&text).into();
            dsts.push(digests(alg, kind, &path, &text)?);
        }
        let mut dsts = dsts.into_iter();
        let mut next = || dsts.next().unwrap_or_default();
        let (dst_2_12, dst_2_23, dst_2_33) = (next(), next(), next());
        let dst_loop = next().into_iter().next().unwrap_or_default();
        instances.push((
            alg,
            InstanceAnswers {
                strict_sha256,
                file_sha256,
                dst_2_12,
                dst_2_23,
                dst_2_33,
                dst_loop,
            },
        ));
    }
    embedded::encode(&instances).map_err(|e| e.to_string())
}

/// The `Dst` of every record of one official file, after checking that the
/// file has the official shape.
fn digests(
    alg: Algorithm,
    kind: KatKind,
    path: &Path,
    text: &[u8],
) -> Result<Vec<Vec<u8>>, String> {
    let shown = path.display();
    let records = format::parse(text).map_err(|e| format!("{shown}: {e}"))?;
    if records.len() != record_count(kind) {
        return Err(format!(
            "{shown}: {} records, an official file has {}",
            records.len(),
            record_count(kind)
        ));
    }
    let mut out = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let want = official_msg_len(kind, i);
        if r.record.msg_len() != want || r.record.dst_len() != alg.output_bits() {
            return Err(format!(
                "{shown}: line {}: expected Msg_Len = {want} and Dst_Len = {}",
                r.line,
                alg.output_bits()
            ));
        }
        out.push(r.record.dst().to_vec());
    }
    Ok(out)
}
