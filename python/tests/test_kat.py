"""Official ICCS known answers through the Python module.

The answers come from the workspace's vector file,
``test-vectors/pavelor.json`` (made from the official files by
``cargo xtask vectors``). With ``PAVELOR_KAT_DIR`` pointing at the official
KAT directory, every record of KAT_2_12 is checked as well.
"""

from __future__ import annotations

import array
import os
from pathlib import Path

import numpy as np
import pytest

import pavelor
from conftest import CONSTRUCTORS, NAMES



def parse_kat(path: Path) -> list[dict[str, str]]:
    """Records of an ICCS KAT file as dicts of ``Key -> value`` strings
    (a record starts at ``Msg_Len``; lines are ``Key = value``)."""
    records: list[dict[str, str]] = []
    for raw in path.read_text(encoding="ascii").splitlines():
        key, sep, value = raw.strip().partition("=")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "Msg_Len":
            records.append({})
        if records:
            records[-1][key] = value
    return records


def read_kat_2_12(kat_dir: Path, inst: int) -> list[tuple[int, bytes, bytes]]:
    """All (bit length, message, digest) records of KAT_2_12."""
    return [
        (int(r["Msg_Len"]), bytes.fromhex(r["Msg"]), bytes.fromhex(r["Dst"]))
        for r in parse_kat(kat_dir / f"KAT_2_12_Pavelor-{inst}.txt")
    ]


def kat_2_23_fill(kat_dir: Path, inst: int) -> dict[str, object]:
    """The all-0x00 and all-0xFF records of KAT_2_23 (no DRNG seed)."""
    found: dict[str, object] = {}
    for r in parse_kat(kat_dir / f"KAT_2_23_Pavelor-{inst}.txt"):
        if r.get("Msg_Seed", ""):
            continue
        exp = r["Msg_Exp"].replace(" ", "").replace(".", "").upper()
        found[{"00": "zero", "FF": "ff"}[exp[:2]]] = r["Dst"].lower()
        found["bits"] = int(r["Msg_Len"])
    return found


def test_vector_file_is_substantial(kat_2_12: list) -> None:
    bits = {r["bits"] for r in kat_2_12}
    assert set(range(65)) <= bits
    assert len(kat_2_12) >= 150
    assert any(b % 8 for b in bits if b > 1000), "long bit-length records"
    for rate in (1536, 1024, 512):
        assert {rate - 1, rate, rate + 1} <= bits, "rate boundaries"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("backend", pavelor.backends())
def test_kat_2_12_update_bits(kat_2_12: list, name: str, backend: str) -> None:
    for rec in kat_2_12:
        h = pavelor.new(name, backend=backend)
        h.update_bits(rec["msg"], rec["bits"])
        assert h.digest() == rec[name], (name, backend, rec["bits"])


@pytest.mark.parametrize("name", NAMES)
def test_kat_2_12_unused_bits_ignored(kat_2_12: list, name: str) -> None:
    """Only the top ``nbits % 8`` bits of the last byte count."""
    for rec in kat_2_12:
        if rec["bits"] % 8 == 0:
            continue
        msg = bytearray(rec["msg"])
        msg[-1] |= 0xFF >> (rec["bits"] % 8)
        h = pavelor.new(name)
        h.update_bits(msg, rec["bits"])
        assert h.digest() == rec[name], rec["bits"]


@pytest.mark.parametrize("name", NAMES)
def test_kat_2_12_partial_byte_then_bytes(kat_2_12: list, name: str) -> None:
    """update_bits with 1..7 bits, then update() with whole bytes: the bytes
    continue at the bit position (message = concatenated bit string)."""
    by_bits = {r["bits"]: r for r in kat_2_12}
    checked = 0
    for bits, rec in by_bits.items():
        head = bits % 8
        if head == 0 or bits < 8:
            continue
        # The message as an integer of `bits` bits, split into `head` bits
        # and then whole bytes.
        value = int.from_bytes(rec["msg"], "big") >> (8 * len(rec["msg"]) - bits)
        first = (value >> (bits - head)) << (8 - head)
        rest_bits = bits - head
        rest = (value & ((1 << rest_bits) - 1)).to_bytes(rest_bits // 8, "big")
        h = pavelor.new(name)
        h.update_bits(bytes([first]), head)
        h.update(rest)
        assert h.digest() == rec[name], bits
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("name", NAMES)
def test_kat_2_12_bytes_every_input_type(byte_records: list, name: str) -> None:
    ctor = CONSTRUCTORS[name]
    for rec in byte_records:
        msg, want = rec["msg"], rec[name]
        assert ctor(msg).digest() == want
        assert ctor(bytearray(msg)).digest() == want
        assert ctor(memoryview(msg)).digest() == want
        assert ctor(array.array("B", msg)).digest() == want
        assert ctor(np.frombuffer(msg, dtype=np.uint8)).digest() == want
        assert pavelor.new(name, msg).hexdigest() == want.hex()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("backend", pavelor.backends())
def test_kat_2_12_hash_many(byte_records: list, name: str, backend: str) -> None:
    msgs = [r["msg"] for r in byte_records]
    assert pavelor.hash_many(name, msgs, backend=backend) == [r[name] for r in byte_records]


@pytest.mark.parametrize("name", NAMES)
def test_kat_2_23_fill_1mib(vectors: dict, name: str) -> None:
    """KAT_2_23's DRNG-free records: 1 MiB of 0x00 and of 0xFF, through the
    GIL-released paths (bytes in place, bytearray and NumPy copied)."""
    rec = vectors["kat_2_23"][name]
    n = rec["bits"] // 8
    ctor = CONSTRUCTORS[name]
    for fill, key in ((0x00, "zero"), (0xFF, "ff")):
        want = bytes.fromhex(rec[key])
        data = bytes([fill]) * n
        assert ctor(data).digest() == want
        assert ctor(bytearray(data)).digest() == want
        assert ctor(np.full(n, fill, dtype=np.uint8)).digest() == want
        word = int.from_bytes(bytes([fill]) * 8, "little")
        assert ctor(np.full(n // 8, word, dtype=np.uint64)).digest() == want
        assert pavelor.hash_many(name, [data])[0] == want
        h = ctor()
        h.update_bits(data, rec["bits"])
        assert h.digest() == want


KAT_DIR = os.environ.get("PAVELOR_KAT_DIR")


@pytest.mark.skipif(not KAT_DIR, reason="PAVELOR_KAT_DIR not set (official KAT files)")
@pytest.mark.parametrize("name", NAMES)
def test_all_official_records(name: str) -> None:
    """Every record of KAT_2_12 (4097 per instance) and the fill records of
    KAT_2_23, straight from the official files."""
    kat_dir = Path(KAT_DIR or ".")
    inst = int(name.split("-")[1])
    records = read_kat_2_12(kat_dir, inst)
    assert len(records) == 4097
    for nbits, msg, want in records:
        h = pavelor.new(name)
        h.update_bits(msg, nbits)
        assert h.digest() == want, nbits
    byte_msgs = [(m, d) for n, m, d in records if n % 8 == 0]
    got = pavelor.hash_many(name, [m for m, _ in byte_msgs])
    assert got == [d for _, d in byte_msgs]
    fills = kat_2_23_fill(kat_dir, inst)
    n = int(fills["bits"]) // 8  # type: ignore[call-overload]
    assert CONSTRUCTORS[name](bytes(n)).hexdigest() == fills["zero"]
    assert CONSTRUCTORS[name](b"\xff" * n).hexdigest() == fills["ff"]


def test_edge_cases(vectors: dict) -> None:
    """The vector file's edge cases (official answers, messages with junk
    in the unused low bits of the last byte)."""
    cases = vectors["edge_cases"]
    assert cases
    for case in cases:
        h = pavelor.new(case["instance"])
        h.update_bits(bytes.fromhex(case["msg"]), case["bits"])
        assert h.hexdigest() == case["digest"], (case["instance"], case["bits"])
