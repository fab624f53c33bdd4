//! The multi-lane streaming hasher gives exactly the one-at-a-time digests,
//! on every backend this CPU runs, whatever the schedule of starts, chunk
//! sizes, finishes and detaches.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::{LaneError, LaneHasher, P512, P768, P1024, Pavelor, Variant};
use proptest::prelude::*;

mod common;
use common::backends;

/// Runs one random schedule: `msgs` are hashed through the lanes; `plan`
/// drives the choices (chunk sizes, when to finish, when to detach).
fn schedule<V: Variant>(backend: pavelor::Available, msgs: &[Vec<u8>], plan: &[u8]) {
    let mut h = LaneHasher::<V>::with_backend(backend);
    let lanes = h.lanes();
    let mut digests = vec![None; msgs.len()];
    let mut next = 0;
    // Per lane: (message index, bytes not yet absorbed).
    let mut slot: Vec<Option<(usize, &[u8])>> = vec![None; lanes];
    let mut p = plan.iter().copied().cycle();
    loop {
        for (lane, s) in slot.iter_mut().enumerate() {
            if s.is_none() && next < msgs.len() {
                h.start(lane).unwrap();
                *s = Some((next, &msgs[next][..]));
                next += 1;
            }
        }
        if slot.iter().all(Option::is_none) {
            break;
        }
        // Absorb a common number of blocks (possibly zero).
        let max = slot
            .iter()
            .flatten()
            .map(|(_, r)| r.len() / V::RATE)
            .min()
            .unwrap();
        let k = usize::from(p.next().unwrap()) % (max + 1);
        let chunks: Vec<&[u8]> = slot
            .iter()
            .map(|s| s.map_or(&[][..], |(_, r)| &r[..k * V::RATE]))
            .collect();
        h.absorb(&chunks).unwrap();
        for (_, r) in slot.iter_mut().flatten() {
            *r = &r[k * V::RATE..];
        }
        // Maybe end one lane: finish with the rest, or detach and stream.
        let choice = p.next().unwrap();
        // A busy lane (there is one: the loop breaks when all are idle).
        let busy: Vec<usize> = (0..lanes).filter(|&l| slot[l].is_some()).collect();
        let lane = busy[usize::from(choice) % busy.len()];
        let finishing = k == 0 || choice & 0x80 != 0;
        if let (true, Some((i, rest))) = (finishing, slot[lane]) {
            let d = if choice & 0x40 != 0 {
                let mut single: Pavelor<V> = h.detach(lane).unwrap();
                for part in rest.chunks(1 + usize::from(choice & 0x3f)) {
                    single.update(part);
                }
                single.finalize()
            } else {
                h.finish(lane, rest).unwrap()
            };
            assert!(!h.is_busy(lane));
            digests[i] = Some(d);
            slot[lane] = None;
        }
    }
    for (i, m) in msgs.iter().enumerate() {
        assert_eq!(
            digests[i].clone().unwrap(),
            Pavelor::<V>::digest(m),
            "message {i} on {backend}"
        );
    }
}

fn all_instances(msgs: &[Vec<u8>], plan: &[u8]) {
    for b in backends() {
        schedule::<P512>(b, msgs, plan);
        schedule::<P768>(b, msgs, plan);
        schedule::<P1024>(b, msgs, plan);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(24)
    ))]

    #[test]
    fn lanes_match_one_at_a_time(
        msgs in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..1400), 0..9),
        plan in prop::collection::vec(any::<u8>(), 1..32),
    ) {
        all_instances(&msgs, &plan);
    }
}

#[test]
fn errors_change_nothing() {
    for b in backends() {
        let mut h = LaneHasher::<P512>::with_backend(b);
        let lanes = h.lanes();
        assert_eq!(
            h.start(lanes),
            Err(LaneError::NoSuchLane { lane: lanes, lanes })
        );
        assert_eq!(h.finish(0, b"").err(), Some(LaneError::Idle(0)));
        h.start(0).unwrap();
        assert_eq!(h.start(0), Err(LaneError::Busy(0)));
        let wrong = vec![&[][..]; lanes + 1];
        assert!(matches!(
            h.absorb(&wrong),
            Err(LaneError::ChunkCount { .. })
        ));
        let mut chunks = vec![&[][..]; lanes];
        let odd = [0u8; 100];
        chunks[0] = &odd;
        assert!(matches!(
            h.absorb(&chunks),
            Err(LaneError::ChunkLength { lane: 0, .. })
        ));
        if lanes > 1 {
            let block = [7u8; 192];
            chunks[0] = &block;
            chunks[1] = &block; // lane 1 is idle: must be empty
            assert!(matches!(
                h.absorb(&chunks),
                Err(LaneError::ChunkLength { lane: 1, .. })
            ));
        }
        assert_eq!(
            h.finish(0, b"abc").unwrap(),
            Pavelor::<P512>::digest(b"abc")
        );
        assert_eq!(h.busy_lanes(), 0);
    }
}
