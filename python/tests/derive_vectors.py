#!/usr/bin/env python3
"""Derive ``kat_vectors.json`` (the official answers the tests use) from the
official ICCS known-answer files.

Usage (from the repository root, with the KAT files in ../shared/kat)::

    python3 python/tests/derive_vectors.py ../shared/kat python/tests/kat_vectors.json

What it keeps, for each of Pavelor-512/768/1024:

* KAT_2_12 (the "ShortMsgKAT" list: one record per bit length 0..4096):
  the records whose bit length is in ``selected_lengths()`` below -- every
  length 0..64, every length within 9 bits of one and two rate blocks of
  each instance (1536/3072, 1024/2048 and 512/1024 bits), every multiple
  of 128 bits up to 4096, 16 fixed pseudo-random lengths and 4095. The
  three files use the same messages, so each message is stored once (and
  the script checks that they agree).
* KAT_2_23: the two records whose message needs no DRNG -- 8388608 bits
  (1 MiB) of 0x00 and of 0xFF; the tests rebuild those messages.

The output also records the SHA-256 of every file it was derived from, so
it can be traced to the official set (compare with ``SHA256SUMS`` there).
Only the standard library is used; the script is deterministic.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

INSTANCES = (512, 768, 1024)
RATE_BITS = {512: 1536, 768: 1024, 1024: 512}
MAX_BITS = 4096


def parse_kat(path: Path) -> list[dict[str, str]]:
    """Records of an ICCS KAT file as dicts of ``Key -> value`` strings.

    A record starts at ``Msg_Len``; lines are ``Key = value`` (the value
    may be empty, e.g. ``Msg =`` for the empty message).
    """
    records: list[dict[str, str]] = []
    for raw in path.read_text(encoding="ascii").splitlines():
        line = raw.strip()
        if not line or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if key == "Msg_Len":
            records.append({})
        if not records:
            raise ValueError(f"{path}: {key!r} before the first Msg_Len")
        records[-1][key] = value
    return records


def kat_2_12(kat_dir: Path, instance: int) -> list[tuple[int, bytes, bytes]]:
    """All (bit length, message bytes, digest) records of KAT_2_12."""
    out = []
    for rec in parse_kat(kat_dir / f"KAT_2_12_Pavelor-{instance}.txt"):
        nbits = int(rec["Msg_Len"])
        msg = bytes.fromhex(rec["Msg"])
        if len(msg) != (nbits + 7) // 8:
            raise ValueError(f"KAT_2_12 {instance}: Msg has {len(msg)} bytes for {nbits} bits")
        if int(rec["Dst_Len"]) != instance:
            raise ValueError(f"KAT_2_12 {instance}: Dst_Len {rec['Dst_Len']}")
        out.append((nbits, msg, bytes.fromhex(rec["Dst"])))
    return out


def kat_2_23_fill(kat_dir: Path, instance: int) -> dict[str, object]:
    """The all-0x00 and all-0xFF records of KAT_2_23 (no DRNG seed)."""
    found: dict[str, object] = {}
    for rec in parse_kat(kat_dir / f"KAT_2_23_Pavelor-{instance}.txt"):
        if rec.get("Msg_Seed", ""):
            continue  # needs the ICCS DRNG
        exp = rec["Msg_Exp"].replace(" ", "").replace(".", "")
        fill = {"00": "zero", "FF": "ff"}.get(exp[:2].upper())
        if fill is None or set(exp.upper()) != {exp[0].upper()}:
            raise ValueError(f"KAT_2_23 {instance}: unexpected Msg_Exp {rec['Msg_Exp']!r}")
        found[fill] = rec["Dst"].lower()
        found["bits"] = int(rec["Msg_Len"])
    if set(found) != {"zero", "ff", "bits"}:
        raise ValueError(f"KAT_2_23 {instance}: missing the all-zero or all-FF record")
    return found


def selected_lengths() -> list[int]:
    """The KAT_2_12 bit lengths kept (see the module docstring)."""
    lengths = set(range(0, 65))
    for rate in RATE_BITS.values():
        for blocks in (1, 2):
            centre = rate * blocks
            lengths.update(b for b in range(centre - 9, centre + 10) if 0 <= b <= MAX_BITS)
    lengths.update(range(128, MAX_BITS + 1, 128))
    rng = random.Random(2212)
    lengths.update(rng.sample(range(65, MAX_BITS), 16))
    lengths.add(MAX_BITS - 1)
    return sorted(lengths)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def derive(kat_dir: Path) -> dict[str, object]:
    """The vector file's content: ``kat_2_12.records`` is a list of
    ``{"bits": n, "msg": hex, "pavelor-512": hex, "pavelor-768": hex,
    "pavelor-1024": hex}``; ``kat_2_23`` maps each instance to
    ``{"bits": n, "zero": hex, "ff": hex}``."""
    lengths = selected_lengths()
    records: dict[int, dict[str, object]] = {n: {"bits": n} for n in lengths}
    for inst in INSTANCES:
        found = {n: (m, d) for n, m, d in kat_2_12(kat_dir, inst)}
        if sorted(found) != list(range(MAX_BITS + 1)):
            raise ValueError(f"KAT_2_12 {inst}: expected one record per length 0..{MAX_BITS}")
        for n in lengths:
            msg, dst = found[n]
            if records[n].setdefault("msg", msg.hex()) != msg.hex():
                raise ValueError(f"KAT_2_12: the message of {n} bits differs between instances")
            records[n][f"pavelor-{inst}"] = dst.hex()
    sources = [f"KAT_2_12_Pavelor-{i}.txt" for i in INSTANCES]
    sources += [f"KAT_2_23_Pavelor-{i}.txt" for i in INSTANCES]
    return {
        "about": "Selected official ICCS answers for Pavelor; made by derive_vectors.py",
        "source_sha256": {name: sha256_file(kat_dir / name) for name in sources},
        "kat_2_12": {"records": [records[n] for n in lengths]},
        "kat_2_23": {f"pavelor-{i}": kat_2_23_fill(kat_dir, i) for i in INSTANCES},
    }


def to_json(data: dict[str, object]) -> str:
    """JSON with one KAT_2_12 record per line (small, readable diffs)."""
    records = data["kat_2_12"]["records"]  # type: ignore[index]
    head = {k: v for k, v in data.items() if k != "kat_2_12"}
    body = json.dumps(head, indent=1, sort_keys=True)
    lines = ",\n".join("  " + json.dumps(r) for r in records)
    assert body.endswith("\n}")
    return body[:-2] + ',\n "kat_2_12": {"records": [\n' + lines + "\n ]}\n}\n"


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print(f"usage: {argv[0]} KAT_DIR OUT.json", file=sys.stderr)
        return 2
    data = derive(Path(argv[1]))
    text = to_json(data)
    if json.loads(text) != data:
        raise AssertionError("JSON round trip failed")
    Path(argv[2]).write_text(text, encoding="ascii")
    n = len(data["kat_2_12"]["records"])  # type: ignore[index]
    print(f"wrote {argv[2]}: {n} KAT_2_12 records per instance, 2 KAT_2_23 records per instance")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
