//! The KAT file parser (`pavelor_kat::format::parse`) on arbitrary bytes.
//!
//! It must never panic and never allocate more than the input justifies
//! (libFuzzer's `-rss_limit_mb` / `-malloc_limit_mb` catch that). Whatever
//! it accepts must survive the writer: parse, write, parse again gives the
//! same records, and writing is idempotent. Accepted records with short
//! messages also go through the verifier (which must return, not panic).

#![no_main]

use libfuzzer_sys::fuzz_target;
use pavelor::{Algorithm, Backend};
use pavelor_kat::Drng;
use pavelor_kat::format::{Record, parse, write_record};
use pavelor_kat::suite::KatKind;
use pavelor_kat::verify::check_record;

fn write_all(records: &[Record]) -> String {
    let mut text = String::new();
    for r in records {
        write_record(&mut text, r);
    }
    text
}

fuzz_target!(|data: &[u8]| {
    let Ok(located) = parse(data) else {
        return;
    };
    let records: Vec<Record> = located.into_iter().map(|l| l.record).collect();
    let text = write_all(&records);
    let again: Vec<Record> = parse(text.as_bytes())
        .expect("what the writer writes, the parser reads")
        .into_iter()
        .map(|l| l.record)
        .collect();
    assert_eq!(records, again);
    assert_eq!(text, write_all(&again));

    // The verifier on the first few records (not KAT_Loop's 10^6 hashes;
    // long messages are bounded to keep each run short).
    for r in records.iter().take(3).filter(|r| r.msg_len() <= 1 << 16) {
        for kind in [KatKind::Kat2_12, KatKind::Kat2_23] {
            let alg = Algorithm::from_output_bits(r.dst_len()).unwrap_or(Algorithm::Pavelor512);
            let mut drng = Drng::new(&kind.seed());
            let _ = check_record(kind, alg, Backend::Portable, r, &mut drng, &mut |_| {});
        }
    }
});
