#!/usr/bin/env python3
"""Throughput of the ``pavelor`` module against ``hashlib`` in one run.

    python3 python/bench.py [--sizes 64,1024,16384,1048576] [--seconds 0.5]
                            [--backend NAME] [--threads N]

For each message size it hashes the same ``bytes`` object repeatedly with
pavelor512/768/1024 (one-shot constructor + digest(), as a caller would)
and with hashlib.sha512, hashlib.sha3_512 and hashlib.blake2b, and prints
MB/s (10^6 bytes per second), the best of three timed rounds of about
``--seconds`` each. ``--threads N`` also measures N threads each hashing
its own 8 MiB message (GIL released). It also times ``hash_many`` with 16
messages of each size per call. The CPU model and backend are printed
so numbers can be quoted with their machine.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import pavelor


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def rate(fn: Callable[[bytes], object], data: bytes, seconds: float) -> float:
    """Best MB/s over three rounds of at least ``seconds`` each."""
    n = 1
    while True:  # calibrate: calls per round
        t = time.perf_counter()
        for _ in range(n):
            fn(data)
        dt = time.perf_counter() - t
        if dt >= seconds / 4 or n >= 1 << 24:
            break
        n *= 2
    reps = max(1, int(n * seconds / max(dt, 1e-9)))
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(reps):
            fn(data)
        dt = time.perf_counter() - t
        best = max(best, reps * max(len(data), 1) / dt / 1e6)
    return best


BATCH = 16


def rate_batch(fn: Callable[[list[bytes]], object], batch: list[bytes], seconds: float) -> float:
    """Best MB/s of ``fn(batch)`` counting all bytes of the batch."""
    total = sum(map(len, batch))
    return rate(lambda _: fn(batch), bytes(total), seconds)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="64,1024,16384,1048576")
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--backend", default=None, help="pavelor backend (default: fastest)")
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    backend = args.backend

    algos: list[tuple[str, Callable[[bytes], object]]] = [
        ("pavelor512", lambda d: pavelor.pavelor512(d, backend=backend).digest()),
        ("pavelor768", lambda d: pavelor.pavelor768(d, backend=backend).digest()),
        ("pavelor1024", lambda d: pavelor.pavelor1024(d, backend=backend).digest()),
        ("sha512", lambda d: hashlib.sha512(d).digest()),
        ("sha3_512", lambda d: hashlib.sha3_512(d).digest()),
        ("blake2b", lambda d: hashlib.blake2b(d).digest()),
    ]
    used = pavelor.pavelor512(backend=backend).backend
    print(f"CPU: {cpu_model()} ({os.cpu_count()} logical CPUs)")
    print(f"Python {platform.python_version()}, pavelor backend {used}, "
          f"available {', '.join(pavelor.backends())}")
    print("MB/s (10^6 bytes/s), best of 3 rounds; one thread")
    print(f"{'size':>9} " + " ".join(f"{name:>11}" for name, _ in algos))
    for size in sizes:
        data = os.urandom(size)
        row = [rate(fn, data, args.seconds) for _, fn in algos]
        print(f"{size:>9} " + " ".join(f"{r:>11.1f}" for r in row))
        sys.stdout.flush()

    print(f"\nhash_many: {BATCH} messages of each size per call (MB/s of message bytes)")
    print(f"{'size':>9} " + " ".join(f"{n:>11}" for n in ("512", "768", "1024")))
    for size in sizes:
        batch = [os.urandom(size) for _ in range(BATCH)]
        row = []
        # In column order (algorithms_available is a set, unordered).
        for name in ("pavelor-512", "pavelor-768", "pavelor-1024"):
            fn = lambda b, name=name: pavelor.hash_many(name, b, backend=backend)
            row.append(rate_batch(fn, batch, args.seconds))
        print(f"{size:>9} " + " ".join(f"{r:>11.1f}" for r in row))
        sys.stdout.flush()

    if args.threads > 0:
        msgs = [os.urandom(8 << 20) for _ in range(args.threads)]
        print(f"\n{args.threads} threads, each hashing its own 8 MiB message (aggregate MB/s)")
        for name, fn in algos:
            with ThreadPoolExecutor(args.threads) as pool:
                best = 0.0
                for _ in range(3):
                    t = time.perf_counter()
                    list(pool.map(fn, msgs))
                    dt = time.perf_counter() - t
                    best = max(best, sum(map(len, msgs)) / dt / 1e6)
            one = rate(fn, msgs[0], args.seconds)
            print(f"{name:>11}: {best:8.1f} MB/s ({best / one:.2f}x one thread)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
