//! `cargo bench -p pavelor`: every instance × backend × S1..S8, and the
//! batched API, as throughput. (`pavelor bench` puts the same figures beside
//! SHA-512, SHA3-512, BLAKE2b, BLAKE3 and SM3 and the AES-round bound.)

#![allow(clippy::unwrap_used)] // benchmarks only run on available backends

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pavelor::{Algorithm, batch};

#[path = "../tests/common/mod.rs"]
mod common;
use common::backends;

const SIZES: [usize; 8] = [32, 128, 512, 1024, 4096, 8192, 16384, 65536];
const BATCH: usize = 16;

fn message(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(7))
        .collect()
}

fn single(c: &mut Criterion) {
    for alg in Algorithm::ALL {
        let mut group = c.benchmark_group(alg.name());
        for backend in backends() {
            for size in SIZES {
                let msg = message(size);
                group.throughput(Throughput::Bytes(size as u64));
                group.bench_with_input(BenchmarkId::new(backend.name(), size), &msg, |b, m| {
                    b.iter(|| alg.digest_with(backend, black_box(m)))
                });
            }
        }
        group.finish();
    }
}

fn batched(c: &mut Criterion) {
    for alg in Algorithm::ALL {
        let mut group = c.benchmark_group(format!("{} hash_many x{BATCH}", alg.name()));
        for backend in backends() {
            for size in SIZES {
                let msg = message(size);
                let inputs = [msg.as_slice(); BATCH];
                let mut out = vec![0u8; BATCH * alg.output_len()];
                group.throughput(Throughput::Bytes((BATCH * size) as u64));
                group.bench_function(BenchmarkId::new(backend.name(), size), |b| {
                    b.iter(|| {
                        batch::hash_many_dyn_with(alg, backend, black_box(&inputs), &mut out)
                            .unwrap()
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1)).sample_size(20);
    targets = single, batched
}
criterion_main!(benches);
