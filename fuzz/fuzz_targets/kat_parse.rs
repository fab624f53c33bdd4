//! The KAT file parser (`pavelor_kat::format::parse`) on arbitrary bytes.
//!
//! It must never panic and never allocate more than the input justifies
//! (libFuzzer's `-rss_limit_mb` / `-malloc_limit_mb` catch that). Whatever
//! it accepts must survive the writer: parse, write, parse again gives the
//! same records, and writing is idempotent. The input also goes through the
//! strict verifier (`official::check_file_bytes`) as a `KAT_2_12` and a
//! `KAT_2_23` file of every instance (it must return a report, not panic).

#![no_main]

use libfuzzer_sys::fuzz_target;
use pavelor::{Algorithm, Available};
use pavelor_kat::format::{Record, parse, write_record};
use pavelor_kat::official::check_file_bytes;
use pavelor_kat::suite::KatKind;

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

    // The strict verifier on the whole input. It hashes only what the
    // official schedule allows: record i must have the official `Msg_Len`
    // (a long record above `MAX_LONG_BITS` is refused before that), the
    // official `Msg`/`Msg_Seed`/`Msg_Exp` and the official `Dst` *before*
    // anything is hashed, so a huge `Msg_Len` cannot make a run slow. What
    // is left is bounded by the kind: `KAT_2_12` hashes at most 4097
    // messages of <= 4096 bits, `KAT_2_23` at most 3 x 2^23 bits (only the
    // official file itself gets that far). `KAT_2_33` (3 x 2^33 bits) and
    // `KAT_Loop` (10^6 chained hashes) are left out: the corpus is seeded
    // with the official files, which would pass every check up to hashing.
    for kind in [KatKind::Kat2_12, KatKind::Kat2_23] {
        for alg in Algorithm::ALL {
            let mut imp = Available::portable();
            let _ = check_file_bytes(&mut imp, alg, kind, data, &mut |_, _| {});
        }
    }
});
