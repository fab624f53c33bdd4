#!/usr/bin/env python3
"""Writes test-vectors/iccs-helpers.json: answers of the ICCS helpers
sm3hash, pseudohash and pseudoXOF, from a model written here in Python from
their definitions (see docs/iccs-baselines.md), independent of the Rust code.

SM3 is written here too, on bit strings (a list of 0/1 values), so that
messages of any length in bits are covered; on whole bytes it is checked
against hashlib's SM3 (OpenSSL's) before anything is written.

    python3 scripts/iccs-helper-vectors.py            # writes the file
    python3 scripts/iccs-helper-vectors.py --check    # exit 1 if it is stale
"""

import hashlib
import json
import pathlib
import sys

MASK = 0xFFFFFFFF
IV = [0x7380166F, 0x4914B2B9, 0x172442D7, 0xDA8A0600,
      0xA96F30BC, 0x163138AA, 0xE38DEE4D, 0xB0FB0E4E]


def rotl(x, n):
    n %= 32
    return ((x << n) | (x >> (32 - n))) & MASK


def p0(x):
    return x ^ rotl(x, 9) ^ rotl(x, 17)


def p1(x):
    return x ^ rotl(x, 15) ^ rotl(x, 23)


def compress(v, block):
    w = [int.from_bytes(block[4 * i:4 * i + 4], "big") for i in range(16)]
    for j in range(16, 68):
        w.append(p1(w[j - 16] ^ w[j - 9] ^ rotl(w[j - 3], 15)) ^ rotl(w[j - 13], 7) ^ w[j - 6])
    w1 = [w[j] ^ w[j + 4] for j in range(64)]
    a, b, c, d, e, f, g, h = v
    for j in range(64):
        t = 0x79CC4519 if j < 16 else 0x7A879D8A
        ss1 = rotl((rotl(a, 12) + e + rotl(t, j)) & MASK, 7)
        ss2 = ss1 ^ rotl(a, 12)
        if j < 16:
            ff, gg = a ^ b ^ c, e ^ f ^ g
        else:
            ff, gg = (a & b) | (a & c) | (b & c), (e & f) | (~e & g)
        tt1 = (ff + d + ss2 + w1[j]) & MASK
        tt2 = (gg + h + ss1 + w[j]) & MASK
        a, b, c, d = tt1, a, rotl(b, 9), c
        e, f, g, h = p0(tt2), e, rotl(f, 19), g
    return [x ^ y for x, y in zip(v, [a, b, c, d, e, f, g, h])]


def bits_of(data, nbits=None):
    """The first nbits bits of data, most significant bit of each byte first."""
    if nbits is None:
        nbits = 8 * len(data)
    return [(data[i // 8] >> (7 - i % 8)) & 1 for i in range(nbits)]


def pack(bits):
    out = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        out[i // 8] |= b << (7 - i % 8)
    return bytes(out)


def sm3(bits):
    """SM3 of a bit string; 32 bytes."""
    n = len(bits)
    padded = bits + [1] + [0] * ((447 - n) % 512) + bits_of(n.to_bytes(8, "big"))
    data = pack(padded)
    v = IV
    for i in range(0, len(data), 64):
        v = compress(v, data[i:i + 64])
    return b"".join(x.to_bytes(4, "big") for x in v)


KEY = sm3(bits_of(b"3.14159265358979")) + sm3(bits_of(b"2.71828182845904"))


def hmac(bits):
    inner = sm3(bits_of(bytes(k ^ 0x36 for k in KEY)) + bits)
    return sm3(bits_of(bytes(k ^ 0x5C for k in KEY)) + bits_of(inner))


def pseudohash(width, m):
    dom = bits_of(bytes([width // 256, 0]))
    k1 = hmac(dom + m)
    h1 = sm3(m + dom)
    h2 = sm3(bits_of(k1 + h1))
    out = [h1, h2]
    if width >= 768:
        k2 = hmac(bits_of(h1))
        h3 = sm3(bits_of(h2 + k2))
        out.append(h3)
    if width == 1024:
        k3 = hmac(bits_of(h2))
        k4 = hmac(bits_of(h3))
        out.append(sm3(bits_of(k3 + h3 + k4)))
    return b"".join(out)


def pseudo_xof(out_bits, m):
    blocks = b"".join(sm3(m + bits_of(ct.to_bytes(4, "big")))
                      for ct in range(1, (out_bits + 255) // 256 + 1))
    return pack(bits_of(blocks, out_bits))


def message(nbytes):
    """The harness's self-test message: byte i = (7 i + 1) mod 256."""
    return bytes((7 * i + 1) & 0xFF for i in range(nbytes))


def vectors():
    for n in (0, 1, 3, 31, 32, 55, 56, 63, 64, 65, 119, 128, 512, 1024):
        m = message(n)
        assert sm3(bits_of(m)) == hashlib.new("sm3", m).digest(), n
    byte_lengths = [8 * n for n in (0, 1, 3, 31, 32, 55, 56, 63, 64, 65, 119, 128, 1024)]
    bit_lengths = [1, 5, 7, 9, 255, 257, 439, 441, 447, 449, 511, 513, 1023]
    for nbits in byte_lengths + bit_lengths:
        data = message((nbits + 7) // 8)
        m = bits_of(data, nbits)
        case = {"message_bits": nbits, "message": data.hex()}
        yield dict(case, function="sm3hash", output_bits=256, output=sm3(m).hex())
        for w in (512, 768, 1024):
            yield dict(case, function="pseudohash", output_bits=w, output=pseudohash(w, m).hex())
        for w in (512, 768, 1024):
            yield dict(case, function="pseudoXOF", output_bits=w, output=pseudo_xof(w, m).hex())
        if nbits in (0, 24, 9, 513):
            for w in (1, 7, 256, 300, 2049):
                yield dict(case, function="pseudoXOF", output_bits=w, output=pseudo_xof(w, m).hex())


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    path = root / "test-vectors" / "iccs-helpers.json"
    text = json.dumps({
        "about": "ICCS helpers sm3hash, pseudohash, pseudoXOF; made by scripts/iccs-helper-vectors.py",
        "vectors": list(vectors()),
    }, indent=1) + "\n"
    if "--check" in sys.argv[1:]:
        if not path.exists() or path.read_text() != text:
            print(f"{path}: stale; run scripts/iccs-helper-vectors.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
