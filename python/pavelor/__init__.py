"""Pavelor-512, Pavelor-768 and Pavelor-1024 (NGCC hash-22) for Python.

A ``hashlib``-style interface to the Rust crate ``pavelor``::

    >>> import pavelor
    >>> h = pavelor.pavelor512(b"abc")
    >>> h.update(b"def")
    >>> len(h.digest()), h.name, h.block_size
    (64, 'pavelor-512', 192)

Hash objects work with the standard library unchanged:
``hmac.new(key, msg, pavelor.pavelor512)`` and
``hashlib.file_digest(f, pavelor.pavelor512)``.

Beyond ``hashlib``: ``Hash.update_bits(data, nbits)`` for messages whose
length is not a multiple of 8 bits, ``hash_many(name, messages)`` for many
independent messages at once (batched SIMD lanes), and backend selection
(``backends()``, the ``backend=`` argument and the ``Hash.backend``
attribute).

Inputs are any object with the buffer protocol that exports one contiguous
block (``bytes``, ``bytearray``, ``memoryview``, ``array.array``,
C-contiguous NumPy arrays, ``mmap``); ``str``, ``None`` and any other object
raise ``TypeError``, as in ``hashlib`` (leave ``data`` out for the empty
message).
Inputs of 2048 bytes or more are hashed with the GIL released.
"""

from ._pavelor import (
    BackendUnavailableError,
    Hash,
    algorithms_available,
    all_backends,
    backends,
    hash_many,
    new,
    pavelor512,
    pavelor768,
    pavelor1024,
)

#: Same as ``algorithms_available`` (a frozenset): every instance is always
#: built in.
algorithms_guaranteed = algorithms_available

__all__ = [
    "BackendUnavailableError",
    "Hash",
    "algorithms_available",
    "algorithms_guaranteed",
    "all_backends",
    "backends",
    "hash_many",
    "new",
    "pavelor512",
    "pavelor768",
    "pavelor1024",
]

__version__ = "0.1.0"
