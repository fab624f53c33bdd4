"""The hashlib-style API: streaming, copy, stdlib hmac and file_digest,
hash_many, errors, threads, buffers and backends.

Expected digests come from the official answers (``test-vectors/pavelor.json``) or
from the module's own one-shot result where the property under test is an
equality between two ways of hashing the same message (streaming vs
one-shot, batch vs single, threads vs sequential).
"""

from __future__ import annotations

import array
import hashlib
import hmac
import inspect
import io
import pickle
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import pavelor
from conftest import CONSTRUCTORS, DIGEST_SIZES, NAMES, RATES

# ---------------------------------------------------------------- attributes


@pytest.mark.parametrize("name", NAMES)
def test_attributes(name: str) -> None:
    h = CONSTRUCTORS[name]()
    assert h.name == name
    assert h.digest_size == DIGEST_SIZES[name]
    assert h.block_size == RATES[name]
    assert h.backend == pavelor.backends()[0]
    assert len(h.digest()) == h.digest_size
    assert h.hexdigest() == h.digest().hex()
    assert isinstance(h, pavelor.Hash)
    assert name in repr(h)
    with pytest.raises(AttributeError):
        h.backend = h.backend  # type: ignore[misc]
    with pytest.raises(AttributeError):
        h.name = "x"  # type: ignore[misc]


def test_one_constructor_per_instance() -> None:
    """Each instance has a constructor named after it without the "-": a
    built-in function of the native module, picklable by name."""
    for name in pavelor.algorithms_available:
        ctor = getattr(pavelor, name.replace("-", ""))
        assert ctor is CONSTRUCTORS[name]
        assert ctor.__name__ == name.replace("-", "")
        assert ctor.__module__ == "pavelor._pavelor"
        assert ctor().name == name
        assert pickle.loads(pickle.dumps(ctor)) is ctor
        assert ctor in pavelor._pavelor.__dict__.values()


def test_algorithms_available() -> None:
    """Sets, as in hashlib (frozen here)."""
    assert isinstance(hashlib.algorithms_available, set)
    assert isinstance(pavelor.algorithms_available, frozenset)
    assert isinstance(pavelor.algorithms_guaranteed, frozenset)
    assert pavelor.algorithms_available == set(NAMES)
    assert pavelor.algorithms_guaranteed == set(NAMES)
    assert pavelor.algorithms_guaranteed <= pavelor.algorithms_available
    for name in pavelor.algorithms_available:
        assert pavelor.new(name).name == name


@pytest.mark.parametrize("name", NAMES)
def test_usedforsecurity_accepted(name: str) -> None:
    """Constructors take hashlib's keyword ``usedforsecurity`` (any object,
    for its truth value) and ignore it: the digest is the same."""
    assert hashlib.sha256(b"abc", usedforsecurity=False).digest() == hashlib.sha256(b"abc").digest()
    want = CONSTRUCTORS[name](b"abc").digest()
    for flag in (True, False, 0, 1, None):
        assert CONSTRUCTORS[name](b"abc", usedforsecurity=flag).digest() == want
        assert pavelor.new(name, b"abc", usedforsecurity=flag).digest() == want
    assert CONSTRUCTORS[name](usedforsecurity=False).digest() == CONSTRUCTORS[name]().digest()
    backend = pavelor.backends()[-1]
    h = CONSTRUCTORS[name](b"abc", usedforsecurity=False, backend=backend)
    assert h.backend == backend and h.digest() == want
    assert "usedforsecurity=True" in CONSTRUCTORS[name].__text_signature__
    assert "usedforsecurity=True" in pavelor.new.__text_signature__

    class BadBool:
        def __bool__(self) -> bool:
            raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        CONSTRUCTORS[name](b"abc", usedforsecurity=BadBool())
    with pytest.raises(TypeError):
        CONSTRUCTORS[name](b"abc", False)  # type: ignore[misc]  # keyword-only


def spellings(name: str) -> list[str]:
    """Every documented spelling of ``name`` ("pavelor-512"): the separator
    "-", "_" or none, each in several ASCII cases."""
    bits = name.split("-")[1]
    out = []
    for sep in ("-", "_", ""):
        base = f"pavelor{sep}{bits}"
        out += [base, base.upper(), base.capitalize(), "PaVeLoR" + base[7:], "pAVELOr" + base[7:]]
    return out


@pytest.mark.parametrize("name", NAMES)
def test_new_names(name: str, byte_records: list) -> None:
    """new() and hash_many() take each documented name in any case."""
    rec = byte_records[5]
    for spelling in spellings(name):
        h = pavelor.new(spelling, rec["msg"])
        assert h.name == name, spelling
        assert h.digest() == rec[name], spelling
        assert pavelor.new(spelling).digest() == CONSTRUCTORS[name]().digest(), spelling
        assert pavelor.hash_many(spelling, [rec["msg"]]) == [rec[name]], spelling


BAD_NAMES = [
    "p-a-v-e-l-o-r-5-1-2",
    "P-A-V-E-L-O-R-5-1-2",
    "pave-lor-512",
    "pavelor-5-1-2",
    "pavelor-5_12",
    "pavelor--512",
    "pavelor__512",
    "pavelor-_512",
    "pavelor_-768",
    "-pavelor-512",
    "_pavelor512",
    "pavelor-512-",
    "pavelor1024_",
    " pavelor-512",
    "pavelor-512 ",
    "pavelor 512",
    "pavelor.512",
    "pavelor+512",
    "pavelor-+512",
    "pavelor-0512",
    "pavelor-512\x00",
    "pavelor-512\n",
    "\uff50avelor-512",  # fullwidth p
    "pavelor-\uff15\uff11\uff12",  # fullwidth digits
    "pavelor",
    "pavelor-",
    "pavelor_",
    "pavelor-256",
    "pavelor-5120",
    "pavelor512768",
    "sha512",
    "512",
    "-",
    "",
]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_new_unknown_name(bad: str) -> None:
    """Anything but a documented name is a ValueError worded as hashlib.new's."""
    want = f"unsupported hash type {bad}"
    for call in (
        lambda: pavelor.new(bad),
        lambda: pavelor.new(bad, b"abc"),
        lambda: pavelor.hash_many(bad, [b""]),
        lambda: pavelor.hash_many(bad, []),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == want


def test_new_unknown_name_like_hashlib() -> None:
    """Same exception and text as hashlib.new for a name neither knows."""
    for bad in ("p-a-v-e-l-o-r-5-1-2", "pavelor--512", "nope", ""):
        with pytest.raises(Exception) as theirs:
            hashlib.new(bad)
        with pytest.raises(Exception) as ours:
            pavelor.new(bad)
        assert ours.type is theirs.type is ValueError
        assert str(ours.value) == str(theirs.value)


def test_new_name_not_utf8() -> None:
    """A str that cannot be encoded (a lone surrogate) is not a name either."""
    with pytest.raises(ValueError):
        pavelor.new("pavelor-512\ud800")
    with pytest.raises(ValueError):
        pavelor.hash_many("pavelor-512\ud800", [])


def test_new_name_type() -> None:
    for bad in (512, b"pavelor-512", None):
        with pytest.raises(TypeError):
            hashlib.new(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            pavelor.new(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            pavelor.hash_many(bad, [])  # type: ignore[arg-type]


def test_hash_type_not_constructible() -> None:
    with pytest.raises(TypeError):
        pavelor.Hash()  # type: ignore[call-arg]


# ------------------------------------------------------ streaming and copy


@pytest.mark.parametrize("name", NAMES)
def test_streaming_random_chunks(name: str, byte_records: list) -> None:
    rng = random.Random(13)
    ctor = CONSTRUCTORS[name]
    # Official messages, split at random points.
    for rec in byte_records:
        msg = rec["msg"]
        h = ctor()
        i = 0
        while i < len(msg):
            j = min(len(msg), i + rng.choice([0, 1, 7, 63, 64, 65, 191, 192, 193, 500]))
            h.update(msg[i:j])
            i = j
        assert h.digest() == rec[name]
    # Longer messages (crossing the GIL-release threshold and the copy
    # chunk size) against the one-shot digest.
    for size in (0, 2047, 2048, 5000, 300_000, 600_001):
        msg = rng.randbytes(size)
        want = ctor(msg).digest()
        h = ctor()
        i = 0
        while i < size:
            j = min(size, i + rng.randrange(0, 70_000))
            chunk = msg[i:j]
            h.update(rng.choice([bytes, bytearray, memoryview])(chunk))
            i = j
        assert h.digest() == want, size


@pytest.mark.parametrize("name", NAMES)
def test_digest_does_not_finalize(name: str, byte_records: list) -> None:
    msg = byte_records[-1]["msg"]
    h = CONSTRUCTORS[name](msg[:100])
    first = h.digest()
    assert h.digest() == first
    assert h.hexdigest() == first.hex()
    h.update(msg[100:])
    assert h.digest() == byte_records[-1][name]


@pytest.mark.parametrize("name", NAMES)
def test_copy_independent(name: str, byte_records: list) -> None:
    rec = byte_records[-1]
    msg = rec["msg"]
    a = CONSTRUCTORS[name](msg[:200])
    b = a.copy()
    assert b.name == a.name and b.backend == a.backend
    a.update(b"diverge")
    b.update(msg[200:])
    assert b.digest() == rec[name]
    c = CONSTRUCTORS[name](msg[:200])
    c.update(b"diverge")
    assert a.digest() == c.digest()
    assert a.digest() != b.digest()


# ----------------------------------------------------------------- stdlib


def hmac_by_definition(ctor, key: bytes, msg: bytes) -> bytes:
    """HMAC (RFC 2104 / FIPS 198-1) written out: K0 is the key padded with
    zeros to the block size B (hashed first if longer than B), and
    HMAC = H((K0 ^ opad) || H((K0 ^ ipad) || msg))."""
    block = ctor().block_size
    if len(key) > block:
        key = ctor(key).digest()
    # Pavelor-1024's digest (128 bytes) is longer than its block (64): then
    # H(K) needs no padding and K0 is all 128 bytes of it. FIPS 198-1
    # assumes L <= B and does not cover this case; Python's hmac keeps the
    # whole H(K) (as here), while RustCrypto's `hmac` crate truncates H(K)
    # to B bytes, so the two differ for Pavelor-1024 keys over 64 bytes.
    k0 = key + bytes(max(0, block - len(key)))
    ipad = bytes(b ^ 0x36 for b in k0)
    opad = bytes(b ^ 0x5C for b in k0)
    inner = ctor(ipad + msg).digest()
    return ctor(opad + inner).digest()


@pytest.mark.parametrize("name", NAMES)
def test_hmac_stdlib_matches_definition(name: str) -> None:
    ctor = CONSTRUCTORS[name]
    rng = random.Random(2104)
    block = RATES[name]
    for key_len in (0, 1, 20, block - 1, block, block + 1, 3 * block + 5):
        for msg_len in (0, 3, block, 4000):
            key = rng.randbytes(key_len)
            msg = rng.randbytes(msg_len)
            want = hmac_by_definition(ctor, key, msg)
            assert hmac.new(key, msg, ctor).digest() == want
            assert hmac.new(key, msg, lambda d=b"": pavelor.new(name, d)).digest() == want
            assert hmac.digest(key, msg, ctor) == want
            m = hmac.new(key, digestmod=ctor)
            m.update(msg[:1])
            m.update(msg[1:])
            assert m.hexdigest() == want.hex()
            assert m.digest_size == DIGEST_SIZES[name] and m.block_size == block


@pytest.mark.skipif(sys.version_info < (3, 11), reason="hashlib.file_digest is 3.11+")
@pytest.mark.parametrize("name", NAMES)
def test_file_digest(name: str, tmp_path) -> None:
    ctor = CONSTRUCTORS[name]
    data = random.Random(1).randbytes(700_001)
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    with open(path, "rb") as f:
        got = hashlib.file_digest(f, ctor)  # type: ignore[attr-defined]
    assert got.name == name
    assert got.digest() == ctor(data).digest()
    got2 = hashlib.file_digest(io.BytesIO(data), lambda: pavelor.new(name))  # type: ignore[attr-defined]
    assert got2.digest() == ctor(data).digest()


# -------------------------------------------------------------- hash_many


@pytest.mark.parametrize("name", NAMES)
def test_hash_many(name: str) -> None:
    assert pavelor.hash_many(name, []) == []
    rng = random.Random(7)
    sizes = [0, 1, 63, 64, 65, 127, 128, 191, 192, 193, 1000, 5000, 70_000, 0, 3]
    msgs = [rng.randbytes(s) for s in sizes]
    want = [CONSTRUCTORS[name](m).digest() for m in msgs]
    assert pavelor.hash_many(name, msgs) == want
    # Any iterable, any buffer type, mixed.
    kinds = [bytes, bytearray, memoryview, lambda m: np.frombuffer(m, dtype=np.uint8)]
    mixed = (kinds[i % len(kinds)](m) for i, m in enumerate(msgs))
    assert pavelor.hash_many(name, mixed) == want
    for backend in pavelor.backends():
        assert pavelor.hash_many(name, msgs, backend=backend) == want
    assert pavelor.hash_many(name, [msgs[3]]) == [want[3]]


def test_hash_many_errors() -> None:
    with pytest.raises(TypeError):
        pavelor.hash_many("pavelor-512", [b"ok", "str"])
    with pytest.raises(TypeError):
        pavelor.hash_many("pavelor-512", [b"ok", 5])
    with pytest.raises(TypeError):
        pavelor.hash_many("pavelor-512", 5)
    with pytest.raises(ValueError):
        pavelor.hash_many("pavelor-512", [b""], backend="no-such-backend")


# ----------------------------------------------------------------- errors


NO_BUFFER = "object supporting the buffer API required"
NOT_ENCODED = "Strings must be encoded before hashing"


class Plain:
    """An object without the buffer protocol."""


NON_BUFFERS = [None, 5, 0, 1.5, True, [1, 2], (1,), {"a": 1}, {1}, object(), Plain(), range(3), print]


def data_entry_points(name: str) -> dict:
    """Every way to pass message data, each a function of the data."""

    def update(x) -> None:
        pavelor.new(name).update(x)

    def update_bits(x) -> None:
        pavelor.new(name).update_bits(x, 0)

    return {
        "constructor": lambda x: CONSTRUCTORS[name](x),
        "constructor data=": lambda x: CONSTRUCTORS[name](data=x),
        "constructor backend=": lambda x: CONSTRUCTORS[name](x, backend=pavelor.backends()[-1]),
        "new": lambda x: pavelor.new(name, x),
        "new data=": lambda x: pavelor.new(name, data=x),
        "update": update,
        "update_bits": update_bits,
        "hash_many": lambda x: pavelor.hash_many(name, [x]),
        "hash_many later item": lambda x: pavelor.hash_many(name, [b"ok", bytearray(5000), x]),
    }


def hashlib_error(x) -> type:
    """The exception hashlib.sha512(x) raises (its type)."""
    with pytest.raises(Exception) as info:
        hashlib.sha512(x)
    return info.type


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", NON_BUFFERS, ids=lambda b: type(b).__name__)
def test_no_buffer_protocol_is_type_error(name: str, bad) -> None:
    """None and other objects without the buffer protocol are refused by
    every entry point with hashlib's TypeError and wording; an explicit
    None is not "no data"."""
    assert hashlib_error(bad) is TypeError
    for way, fn in data_entry_points(name).items():
        with pytest.raises(TypeError) as info:
            fn(bad)
        assert str(info.value) == NO_BUFFER, way


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("text", ["", "abc", "\u00e9" * 3000])
def test_str_is_type_error(name: str, text: str) -> None:
    assert hashlib_error(text) is TypeError
    for way, fn in data_entry_points(name).items():
        with pytest.raises(TypeError) as info:
            fn(text)
        assert str(info.value) == NOT_ENCODED, way


def test_none_like_hashlib() -> None:
    """hashlib refuses None passed as data, positionally or by keyword
    (``string=`` for the sha512 constructor on Python < 3.14, ``data=`` for
    hashlib.new); so does pavelor, with the same exception and text."""
    for call in (lambda: hashlib.sha512(None), lambda: hashlib.new("sha512", None)):
        with pytest.raises(TypeError) as theirs:
            call()
        assert str(theirs.value) == NO_BUFFER
    with pytest.raises(TypeError):
        hashlib.new("sha512", data=None)
    with pytest.raises(TypeError) as ours:
        pavelor.pavelor512(None)
    assert str(ours.value) == NO_BUFFER
    with pytest.raises(TypeError):
        pavelor.new("pavelor-512", data=None)
    with pytest.raises(TypeError):
        pavelor.hash_many("pavelor-512", None)  # not iterable


@pytest.mark.parametrize("name", NAMES)
def test_wrong_types_leave_hash_unchanged(name: str) -> None:
    h = CONSTRUCTORS[name](b"abc")
    want = h.digest()
    for bad in [*NON_BUFFERS, "text"]:
        with pytest.raises(TypeError):
            h.update(bad)
        with pytest.raises(TypeError):
            h.update_bits(bad, 0)
    assert h.digest() == want


@pytest.mark.parametrize("name", NAMES)
def test_no_data_is_empty_message(name: str, kat_2_12: list) -> None:
    """With no data argument at all, the message is empty (as in hashlib)."""
    (empty,) = [r for r in kat_2_12 if r["bits"] == 0]
    want = empty[name]
    ctor = CONSTRUCTORS[name]
    assert ctor().digest() == want
    assert ctor(b"").digest() == want
    assert ctor(data=b"").digest() == want
    assert ctor(bytearray()).digest() == want
    assert ctor(usedforsecurity=False).digest() == want
    assert ctor(backend=pavelor.backends()[-1]).digest() == want
    assert pavelor.new(name).digest() == want
    assert pavelor.new(name, b"").digest() == want
    assert pavelor.new(name, data=memoryview(b"")).digest() == want
    assert pavelor.new(name, usedforsecurity=True).digest() == want
    assert pavelor.hash_many(name, [b""]) == [want]
    # The signature shows the default as b"", as hashlib's does.
    assert inspect.signature(ctor).parameters["data"].default == b""
    assert inspect.signature(pavelor.new).parameters["data"].default == b""


def test_update_bits_errors() -> None:
    h = pavelor.pavelor512()
    empty = h.digest()
    with pytest.raises(ValueError):
        h.update_bits(b"\x00", 9)
    with pytest.raises(ValueError):
        h.update_bits(b"", 1)
    with pytest.raises(ValueError):
        h.update_bits(b"\x00", -1)
    with pytest.raises(ValueError):
        h.update_bits(b"\x00", 2**64)
    with pytest.raises(ValueError):
        h.update_bits(b"\x00", -(2**70))
    with pytest.raises(TypeError):
        h.update_bits(b"\x00", 1.0)
    with pytest.raises(TypeError):
        h.update_bits(b"\x00", "1")
    assert h.digest() == empty, "errors leave the hash unchanged"
    h.update_bits(b"\xa0", 3)
    after3 = h.digest()
    with pytest.raises(ValueError):
        h.update_bits(b"\xff", 1)  # after a partial byte
    assert h.digest() == after3
    h.update_bits(b"\xff", 0)  # zero bits are always fine
    assert h.digest() == after3


def test_update_bits_large(kat_2_12: list) -> None:
    """update_bits with >= 2048 bytes (GIL released) for bytes and a
    mutable buffer, ending in a partial byte."""
    data = random.Random(3).randbytes(10_000)
    nbits = 8 * 9_999 + 5
    a = pavelor.pavelor768()
    a.update_bits(data, nbits)
    b = pavelor.pavelor768()
    b.update_bits(bytearray(data), nbits)
    c = pavelor.pavelor768()
    c.update(data[:9_999])
    c.update_bits(data[9_999:], 5)
    assert a.digest() == b.digest() == c.digest()


# ---------------------------------------------------------------- buffers


def test_buffer_types_agree() -> None:
    raw = bytes(range(256)) * 40
    want = pavelor.pavelor512(raw).digest()
    assert pavelor.pavelor512(array.array("B", raw)).digest() == want
    assert pavelor.pavelor512(array.array("I", raw)).digest() == want  # bytes, not items
    assert pavelor.pavelor512(np.frombuffer(raw, dtype=np.uint32)).digest() == want
    assert pavelor.pavelor512(np.frombuffer(raw, dtype=np.uint8).reshape(40, 256)).digest() == want
    assert pavelor.pavelor512(memoryview(raw)[10:]).digest() == pavelor.pavelor512(raw[10:]).digest()


def test_non_contiguous_buffers_refused() -> None:
    a = np.arange(100, dtype=np.uint8)
    with pytest.raises(BufferError):
        pavelor.pavelor512(a[::2])
    with pytest.raises(BufferError):
        pavelor.pavelor512().update(np.zeros((10, 10), dtype=np.uint8).T)
    with pytest.raises((BufferError, TypeError)):
        pavelor.hash_many("pavelor-512", [a[::3]])
    with pytest.raises(BufferError):
        pavelor.pavelor512(memoryview(bytes(10))[::2])
    # A contiguous copy is fine.
    assert pavelor.pavelor512(np.ascontiguousarray(a[::2])).digest() == pavelor.pavelor512(
        bytes(range(0, 100, 2))
    ).digest()


def test_hash_many_later_item_fails() -> None:
    """An item that cannot be exported after others were already copied
    (the copies are wiped on that early return) raises, and the module
    stays usable."""
    copied = [bytearray(b"secret" * 1000), np.frombuffer(b"k" * 4096, dtype=np.uint8).copy()]
    with pytest.raises(BufferError):
        pavelor.hash_many("pavelor-512", [*copied, np.arange(100, dtype=np.uint8)[::2]])
    with pytest.raises(TypeError):
        pavelor.hash_many("pavelor-512", [*copied, "str"])
    with pytest.raises(TypeError):
        pavelor.hash_many("pavelor-512", [*copied, 42])
    assert pavelor.hash_many("pavelor-512", copied) == [
        pavelor.pavelor512(bytes(m)).digest() for m in copied
    ]


def test_bytearray_cannot_resize_while_hashing() -> None:
    """While the buffer is exported (and the GIL released), resizing it from
    another thread fails instead of freeing memory under the hasher.

    A second thread keeps trying to grow and shrink the bytearray (by one
    zero byte) during one 64 MiB update. At least one attempt must be
    refused with BufferError (the export is held while hashing), nothing
    else may go wrong, and the digest must be that of the zeros exported:
    a grow that succeeded just before the export, followed by a refused
    shrink, leaves one more zero byte, and the final length is always the
    exported one."""
    n = 64 << 20
    data = bytearray(n)
    h = pavelor.pavelor512()
    refused: list[BufferError] = []
    unexpected: list[BaseException] = []
    running = threading.Event()
    done = threading.Event()

    def resize() -> None:
        while not done.is_set():
            try:
                data.append(0)
                del data[-1]
            except BufferError as e:  # expected while exported
                refused.append(e)
            except BaseException as e:
                unexpected.append(e)
                return
            running.set()
            time.sleep(0)

    t = threading.Thread(target=resize)
    t.start()
    assert running.wait(10), "the resizing thread did not start"
    try:
        h.update(data)
    finally:
        done.set()
        t.join()
    assert not unexpected, unexpected
    assert refused, "no resize was attempted (and refused) during the update"
    assert len(data) in (n, n + 1)
    assert h.digest() == pavelor.pavelor512(bytes(len(data))).digest()


def test_only_exact_bytes_read_in_place() -> None:
    """Only an exact ``bytes`` object is read in place with the GIL released;
    every other buffer, a ``bytes`` subclass included, is copied first."""
    reads_in_place = pavelor._pavelor._reads_in_place

    class Sub(bytes):
        pass

    raw = bytes(range(256)) * 16
    assert reads_in_place(raw)
    assert reads_in_place(b"")
    assert not reads_in_place(Sub(raw))
    assert not reads_in_place(bytearray(raw))
    assert not reads_in_place(memoryview(raw))
    assert not reads_in_place(array.array("B", raw))
    assert not reads_in_place(np.frombuffer(raw, dtype=np.uint8))
    with pytest.raises(TypeError):
        reads_in_place("str")
    # A plain subclass still hashes as its bytes.
    assert pavelor.pavelor512(Sub(raw)).digest() == pavelor.pavelor512(raw).digest()


@pytest.mark.skipif(
    sys.version_info < (3, 12),
    reason="a Python class can define __buffer__ (PEP 688) only from Python 3.12 on",
)
def test_bytes_subclass_exporting_a_bytearray() -> None:
    """A ``bytes`` subclass whose ``__buffer__`` exports a bytearray's memory
    is hashed as what it exports (as ``hashlib`` does: it reads the buffer),
    and that memory is copied while the GIL is held, never read in place
    while another thread writes it.

    A writer thread flips the bytearray between two contents (each flip is
    one memcpy under the GIL) while messages of 200 kB (2048 <= n < 256 KiB:
    the GIL is released, and a copy is one piece) are hashed through every
    entry point, on the slow portable backend (so that flips land during the
    hashing). Each digest must be that of one content
    or the other; a read in place with the GIL released would mix both."""
    rng = random.Random(23)
    n = 200_000
    contents = [rng.randbytes(n), rng.randbytes(n)]
    ba = bytearray(contents[0])

    class Exporter(bytes):
        def __buffer__(self, flags: int) -> memoryview:
            return memoryview(ba)

    b = Exporter(b"the subclass's own bytes are not what it exports")
    assert not pavelor._pavelor._reads_in_place(b)

    # Semantics, without a writer: the exported bytes, as hashlib hashes.
    assert bytes(memoryview(b)) == contents[0]
    assert hashlib.sha512(b).digest() == hashlib.sha512(contents[0]).digest()
    want = pavelor.pavelor512(contents[0]).digest()
    assert pavelor.pavelor512(b).digest() == want
    assert pavelor.new("pavelor-512", b).digest() == want
    h = pavelor.pavelor512()
    h.update(b)
    assert h.digest() == want
    h = pavelor.pavelor512()
    h.update_bits(b, 8 * n)
    assert h.digest() == want
    assert pavelor.hash_many("pavelor-512", [b, b"", b]) == [
        want,
        pavelor.pavelor512(b"").digest(),
        want,
    ]

    valid = {pavelor.pavelor512(c).digest() for c in contents}
    done = threading.Event()

    def writer() -> None:
        while not done.is_set():
            ba[:] = contents[1]
            ba[:] = contents[0]

    slow = "portable"

    def update(x: bytes) -> list[bytes]:
        h = pavelor.pavelor512(backend=slow)
        h.update(x)
        return [h.digest()]

    def update_bits(x: bytes) -> list[bytes]:
        h = pavelor.pavelor512(backend=slow)
        h.update_bits(x, 8 * n)
        return [h.digest()]

    ways = {
        "construct": lambda x: [pavelor.pavelor512(x, backend=slow).digest()],
        "update": update,
        "update_bits": update_bits,
        "hash_many": lambda x: pavelor.hash_many("pavelor-512", [x, x], backend=slow),
    }
    t = threading.Thread(target=writer)
    t.start()
    try:
        got = {way: [d for _ in range(10) for d in fn(b)] for way, fn in ways.items()}
    finally:
        done.set()
        t.join()
    mixed = {way: sum(d not in valid for d in digests) for way, digests in got.items()}
    assert not any(mixed.values()), f"digests mixing both contents, per entry point: {mixed}"


# ---------------------------------------------------------------- threads


@pytest.mark.parametrize("kind", [bytes, bytearray])
def test_threads_different_data(kind) -> None:
    rng = random.Random(11)
    msgs = [kind(rng.randbytes(3 << 20 if i < 2 else 5000 + i)) for i in range(8)]
    want = [pavelor.pavelor512(m).digest() for m in msgs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda m: pavelor.pavelor512(m).digest(), msgs))
        many = list(pool.map(lambda _: pavelor.hash_many("pavelor-512", msgs), range(3)))
    assert got == want
    assert all(m == want for m in many)


@pytest.mark.parametrize(
    "block, threads, rounds",
    [
        (bytes(range(256)) * 24, 8, 20),  # 6 KiB bytes: hashed in place, GIL released
        # 600 KB bytearray: copied in 256 KiB chunks, re-taking the GIL between
        # chunks while holding the hash's lock and other threads wait for it.
        (bytearray(random.Random(5).randbytes(600_000)), 4, 3),
    ],
)
def test_threads_share_one_object(block, threads: int, rounds: int) -> None:
    """Calls on one object are serialized: each thread adding the same
    block `rounds` times gives the digest of the block repeated
    threads * rounds times, whatever the interleaving; digest(), copy() and
    the attributes may be called meanwhile (no deadlock)."""
    h = pavelor.pavelor768()
    barrier = threading.Barrier(threads)

    def work() -> None:
        barrier.wait()
        for _ in range(rounds):
            h.update(block)
            h.copy()
            h.hexdigest()
            assert h.backend and h.name == "pavelor-768"

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert h.digest() == pavelor.pavelor768(bytes(block) * (threads * rounds)).digest()


@pytest.mark.parametrize("kind", [bytes, bytearray])
def test_gil_released_during_large_update(kind) -> None:
    """Another Python thread keeps running while one large update() hashes.

    The main thread records a timestamp per loop turn while a second thread
    makes one 96 MiB call. Were the GIL held for the whole call, the main
    thread could run only at its start and after it returns, leaving one gap
    of about the hashing time (most of the window); with the GIL released,
    the gaps stay at thread-switch size."""
    data = kind(96 << 20)
    window: list[float] = []
    ticks: list[float] = []
    started = threading.Event()

    def hasher() -> None:
        started.set()
        t0 = time.perf_counter()
        pavelor.pavelor512(data)
        window.extend([t0, time.perf_counter()])

    t = threading.Thread(target=hasher)
    t.start()
    started.wait()
    while t.is_alive():
        ticks.append(time.perf_counter())
    t.join()
    t0, t1 = window
    points = [t0] + [x for x in ticks if t0 < x < t1] + [t1]
    max_gap = max(b - a for a, b in zip(points, points[1:]))
    assert t1 - t0 > 0.02
    assert max_gap < 0.5 * (t1 - t0), (max_gap, t1 - t0, len(points))


# --------------------------------------------------------------- backends


def test_backends_listing() -> None:
    avail = pavelor.backends()
    assert avail, "at least the portable software backend"
    assert set(avail) <= set(pavelor.all_backends())
    assert len(set(avail)) == len(avail)


@pytest.mark.parametrize("backend", pavelor.backends())
@pytest.mark.parametrize("name", NAMES)
def test_backend_selection(backend: str, name: str, byte_records: list) -> None:
    rec = byte_records[-1]
    h = CONSTRUCTORS[name](rec["msg"], backend=backend)
    assert h.backend == backend
    assert h.digest() == rec[name]
    assert h.copy().backend == backend
    assert pavelor.new(name, backend=backend.upper()).backend == backend


def test_unknown_backend() -> None:
    """An unknown name is a ValueError whose message lists the names."""
    for call in (
        lambda: pavelor.pavelor512(backend="no-such-backend"),
        lambda: pavelor.new("pavelor-768", backend="no-such-backend"),
        lambda: pavelor.hash_many("pavelor-1024", [b""], backend="no-such-backend"),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert all(b in str(info.value) for b in pavelor.all_backends()), info.value
    with pytest.raises(TypeError):
        pavelor.pavelor512(backend=3)  # type: ignore[arg-type]


def test_unavailable_backend() -> None:
    missing = [b for b in pavelor.all_backends() if b not in pavelor.backends()]
    if not missing:
        pytest.skip("this CPU runs every backend of this build")
    for b in missing:
        with pytest.raises(pavelor.BackendUnavailableError, match=b):
            pavelor.pavelor1024(b"x", backend=b)
        with pytest.raises(pavelor.BackendUnavailableError):
            pavelor.hash_many("pavelor-512", [b"x"], backend=b)
    assert issubclass(pavelor.BackendUnavailableError, RuntimeError)
