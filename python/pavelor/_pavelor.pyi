"""Type stubs for the native module ``pavelor._pavelor`` (re-exported by
``pavelor``)."""

from collections.abc import Iterable
from typing import final

from _typeshed import ReadableBuffer

__all__ = [
    "BackendUnavailableError",
    "Hash",
    "algorithms_available",
    "all_backends",
    "backends",
    "hash_many",
    "new",
    "pavelor512",
    "pavelor768",
    "pavelor1024",
]

algorithms_available: frozenset[str]

class BackendUnavailableError(RuntimeError):
    """The requested backend exists but this CPU (or build) cannot run it."""

@final
class Hash:
    """A running Pavelor hash, ``hashlib``-style. Made by ``pavelor512()``,
    ``pavelor768()``, ``pavelor1024()`` or ``new(name)``; safe to share
    between threads (calls on one object are serialized)."""

    @property
    def name(self) -> str:
        """"pavelor-512", "pavelor-768" or "pavelor-1024"."""
    @property
    def digest_size(self) -> int:
        """Digest length in bytes: 64, 96 or 128."""
    @property
    def block_size(self) -> int:
        """Block size (the sponge rate) in bytes: 192, 128 or 64."""
    @property
    def backend(self) -> str:
        """Name of the backend this hash runs on, e.g. "aesni"."""
    def update(self, data: ReadableBuffer, /) -> None:
        """Append the bytes of ``data`` (any C-contiguous buffer)."""
    def update_bits(self, data: ReadableBuffer, nbits: int, /) -> None:
        """Append the first ``nbits`` bits of ``data`` (MSB first). A partial
        final byte ends bit-level input; ``ValueError`` for a bad ``nbits``
        or more bits after a partial byte."""
    def digest(self) -> bytes:
        """The digest of the message so far (the hash stays usable)."""
    def hexdigest(self) -> str:
        """``digest()`` as lowercase hexadecimal."""
    def copy(self) -> Hash:
        """An independent copy (same message so far, same backend)."""

def pavelor512(
    data: ReadableBuffer = b"", *, usedforsecurity: bool = True, backend: str | None = None
) -> Hash:
    """A new Pavelor-512 hash (64-byte digest, 192-byte block). ``usedforsecurity`` is
    accepted as in ``hashlib`` and has no effect."""

def pavelor768(
    data: ReadableBuffer = b"", *, usedforsecurity: bool = True, backend: str | None = None
) -> Hash:
    """A new Pavelor-768 hash (96-byte digest, 128-byte block). ``usedforsecurity`` is
    accepted as in ``hashlib`` and has no effect."""

def pavelor1024(
    data: ReadableBuffer = b"", *, usedforsecurity: bool = True, backend: str | None = None
) -> Hash:
    """A new Pavelor-1024 hash (128-byte digest, 64-byte block). ``usedforsecurity`` is
    accepted as in ``hashlib`` and has no effect."""

def new(
    name: str,
    data: ReadableBuffer = b"",
    *,
    usedforsecurity: bool = True,
    backend: str | None = None,
) -> Hash:
    """A new hash of the instance ``name``: "pavelor-512", "pavelor-768" or
    "pavelor-1024" in any case, with "_" or nothing in place of "-"
    ("Pavelor768", "PAVELOR_1024"); ``ValueError("unsupported hash type
    NAME")`` for other names. ``usedforsecurity`` is accepted as in
    ``hashlib`` and has no effect."""

def hash_many(
    name: str, messages: Iterable[ReadableBuffer], *, backend: str | None = None
) -> list[bytes]:
    """Digests of many byte messages at once (batched SIMD lanes); ``name``
    as in ``new``."""

def backends() -> list[str]:
    """Backends this CPU runs, fastest (the default) first."""

def all_backends() -> list[str]:
    """Every backend this build knows."""
