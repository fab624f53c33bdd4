"""Shared fixtures: the workspace's test vectors, ``test-vectors/pavelor.json``
(selected official answers and edge cases; made by ``cargo xtask vectors``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pavelor

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parent.parent / "test-vectors" / "pavelor.json"
NAMES = ("pavelor-512", "pavelor-768", "pavelor-1024")
CONSTRUCTORS = {
    "pavelor-512": pavelor.pavelor512,
    "pavelor-768": pavelor.pavelor768,
    "pavelor-1024": pavelor.pavelor1024,
}
RATES = {"pavelor-512": 192, "pavelor-768": 128, "pavelor-1024": 64}
DIGEST_SIZES = {"pavelor-512": 64, "pavelor-768": 96, "pavelor-1024": 128}


@pytest.fixture(scope="session")
def vectors() -> dict:
    """Selected KAT_2_12 and KAT_2_23 records and the edge cases."""
    with open(VECTORS, encoding="ascii") as f:
        return json.load(f)


@pytest.fixture(scope="session")
def kat_2_12(vectors: dict) -> list:
    """KAT_2_12 records: dicts with bits, msg (bytes) and the three digests."""
    out = []
    for rec in vectors["kat_2_12"]["records"]:
        r = dict(rec)
        r["msg"] = bytes.fromhex(rec["msg"])
        for name in NAMES:
            r[name] = bytes.fromhex(rec[name])
        out.append(r)
    return out


@pytest.fixture(scope="session")
def byte_records(kat_2_12: list) -> list:
    """The byte-aligned KAT_2_12 records."""
    return [r for r in kat_2_12 if r["bits"] % 8 == 0]
