//! `pavelor._pavelor`: the native part of the Python package `pavelor`, a
//! `hashlib`-style interface to the Pavelor hash family.
//!
//! Design (see also `python/README.md`):
//!
//! * One Python type, `pavelor.Hash`, made by `new(name)` and by one
//!   constructor per instance of `Algorithm::ALL` (`pavelor512()`,
//!   `pavelor768()`, `pavelor1024()`; see `constructors!`). Names and
//!   sizes come from [`Algorithm`].
//! * A backend is resolved once per object, when it is made
//!   (`resolve_backend`, through `Available::resolve`), and kept by its
//!   copies.
//! * Thread safety: the type is `frozen` and keeps its hasher in a `Mutex`,
//!   so one object may be used from several threads; calls on it are
//!   serialized (like `hashlib`'s internal lock). The lock is taken with the
//!   GIL released (`lock_py_attached`), so a thread waiting for it never
//!   blocks a thread that holds it and needs the GIL back.
//! * The GIL is released while hashing inputs of at least
//!   [`GIL_RELEASE_MIN`] bytes. Bytes that may change while the GIL is
//!   released are never read without it: exact `bytes` objects (immutable)
//!   are hashed in place; any other buffer (`bytearray`, `memoryview`,
//!   NumPy array, `array.array`, `mmap`, and any subclass of `bytes`,
//!   which from Python 3.12 on may export another object's memory through
//!   `__buffer__`) is copied, a chunk of at most
//!   [`CHUNK`] bytes at a time, while the GIL is held, and the copy is
//!   hashed with the GIL released. A thread that mutates such a buffer
//!   concurrently therefore changes only which bytes get hashed (the digest
//!   is then unspecified), never memory safety.
//! * Errors are Python exceptions; nothing here panics.
//! * `unsafe` code lives only in [`buffer`] (the buffer-protocol FFI).

#![deny(unsafe_code)]

use std::convert::Infallible;
use std::sync::{Mutex, MutexGuard};

use pavelor::{Algorithm, Available, Backend, DynHasher, Error};
use pyo3::create_exception;
use pyo3::exceptions::{PyImportError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyBytes, PyCFunction, PyFrozenSet, PyInt, PyList, PyString};
use zeroize::{Zeroize, Zeroizing};

// Raw CPython buffer API: the one module with `unsafe` (SAFETY comments there).
#[allow(unsafe_code)]
mod buffer;
use buffer::Bytes;

/// Inputs of at least this many bytes are hashed with the GIL released
/// (the threshold `hashlib` uses).
const GIL_RELEASE_MIN: usize = 2048;

/// Bytes of a mutable buffer copied per GIL hold (fits in L2 cache).
const CHUNK: usize = 256 * 1024;

create_exception!(
    pavelor,
    BackendUnavailableError,
    PyRuntimeError,
    "The requested backend exists but this CPU (or build) cannot run it."
);

/// Maps a crate error to the Python exception the API documents, with the
/// crate's message: `BackendUnavailableError` for a backend this CPU cannot
/// run, `ValueError` otherwise (e.g. an unknown backend name).
fn to_py_err(e: Error) -> PyErr {
    match e {
        Error::BackendUnavailable(_) => BackendUnavailableError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// The Python name of an instance: its name in lowercase, like `hashlib`'s
/// names (`pavelor-512`, `pavelor-768`, `pavelor-1024`).
fn py_name(alg: Algorithm) -> String {
    alg.name().to_ascii_lowercase()
}

/// The name of an instance's constructor, character by character: its
/// Python name without the `-` (`pavelor512`, `pavelor768`, `pavelor1024`),
/// a spelling [`parse_name`] accepts.
fn constructor_chars(alg: Algorithm) -> impl Iterator<Item = char> {
    alg.name()
        .chars()
        .filter(|&c| c != '-')
        .map(|c| c.to_ascii_lowercase())
}

/// The name of an instance's constructor ([`constructor_chars`]).
fn constructor_name(alg: Algorithm) -> String {
    constructor_chars(alg).collect()
}

/// The instance whose constructor is called `name`. The constructors look
/// their instance up on every call, so this compares without allocating.
fn constructor_instance(name: &str) -> PyResult<Algorithm> {
    Algorithm::ALL
        .into_iter()
        .find(|&alg| constructor_chars(alg).eq(name.chars()))
        .ok_or_else(|| PyRuntimeError::new_err(format!("no instance has a constructor {name}")))
}

/// The start of every instance name (see [`parse_name`]).
const PREFIX: &str = "pavelor";

/// Parses an instance name: `pavelor`, then `-`, `_` or nothing, then
/// `512`, `768` or `1024`, in any ASCII case (`pavelor-512`, `Pavelor768`,
/// `PAVELOR_1024`). Any other string is a `ValueError` with `hashlib.new`'s
/// wording, "unsupported hash type NAME".
fn parse_name(name: &str) -> PyResult<Algorithm> {
    let unsupported = || PyValueError::new_err(format!("unsupported hash type {name}"));
    let (prefix, rest) = name
        .split_at_checked(PREFIX.len())
        .ok_or_else(unsupported)?;
    if !prefix.eq_ignore_ascii_case(PREFIX) {
        return Err(unsupported());
    }
    let bits = rest.strip_prefix(['-', '_']).unwrap_or(rest);
    Algorithm::ALL
        .into_iter()
        .find(|a| bits == a.output_bits().to_string())
        .ok_or_else(unsupported)
}

/// Resolves the `backend=` argument (a name in any ASCII case; `None` is
/// the fastest this CPU runs) with `Available::resolve`, its error mapped
/// by [`to_py_err`].
fn resolve_backend(backend: Option<&str>) -> PyResult<Available> {
    let name = backend.map(str::to_ascii_lowercase);
    Available::resolve(name.as_deref()).map_err(to_py_err)
}

/// A running Pavelor hash, `hashlib`-style.
///
/// Made by `pavelor.new(name)` or an instance's constructor
/// (`pavelor.pavelor512()`, ...). Safe to share between threads: calls on
/// one object are serialized by an internal lock.
#[pyclass(frozen, module = "pavelor", name = "Hash")]
struct Hash {
    inner: Mutex<DynHasher>,
    alg: Algorithm,
    /// Resolved once, at creation (kept outside the lock so reading it
    /// never waits for a running update).
    backend: Available,
}

impl Hash {
    fn make(alg: Algorithm, backend: Option<&str>) -> PyResult<Self> {
        let backend = resolve_backend(backend)?;
        Ok(Hash {
            inner: Mutex::new(alg.hasher_with(backend)),
            alg,
            backend,
        })
    }

    fn lock(&self, py: Python<'_>) -> MutexGuard<'_, DynHasher> {
        // The lock is never held across a panic (nothing here panics), so
        // it cannot be poisoned; if it were, the state is still a valid
        // hasher and is used as is.
        self.inner
            .lock_py_attached(py)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn finish(&self, py: Python<'_>) -> pavelor::DynOutput {
        let h = self.lock(py).clone();
        h.finalize()
    }
}

/// Feeds the bytes of `data` to `h`, releasing the GIL for large inputs
/// (copying mutable buffers chunk by chunk while the GIL is held).
fn absorb(py: Python<'_>, h: &mut DynHasher, data: &Bytes<'_>) {
    let n = data.len();
    if n < GIL_RELEASE_MIN {
        h.update(data.as_slice());
    } else if data.is_immutable() {
        let slice = data.as_slice();
        py.detach(|| h.update(slice));
    } else {
        let mut copy = vec![0u8; n.min(CHUNK)];
        for chunk in data.as_slice().chunks(CHUNK) {
            let part = &mut copy[..chunk.len()];
            part.copy_from_slice(chunk);
            let part = &*part;
            py.detach(|| h.update(part));
        }
        wipe(&mut copy);
    }
}

/// Zeroes a private copy of message bytes before it is freed.
fn wipe(buf: &mut [u8]) {
    buf.zeroize();
}

#[pymethods]
impl Hash {
    /// Appends the bytes of `data` (any C-contiguous buffer) to the message.
    #[pyo3(signature = (data, /))]
    fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let bytes = Bytes::get(data)?;
        let mut h = self.lock(py);
        absorb(py, &mut h, &bytes);
        Ok(())
    }

    /// Appends the first `nbits` bits of `data` (most significant bit of
    /// each byte first). If `nbits % 8 != 0` the last byte used is partial
    /// and ends bit-level input: a later `update_bits` with `nbits > 0`
    /// raises `ValueError`. `ValueError` also if `nbits < 0` or
    /// `nbits > 8 * len(data)`; the hash is unchanged on error.
    #[pyo3(signature = (data, nbits, /))]
    fn update_bits(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        nbits: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let bytes = Bytes::get(data)?;
        let nbits: u64 = match nbits.extract::<u64>() {
            Ok(n) => n,
            Err(_) if nbits.is_instance_of::<PyInt>() => {
                return Err(PyValueError::new_err(format!(
                    "nbits must be between 0 and 8 * len(data) = {}, got {nbits}",
                    8 * bytes.len() as u128
                )));
            }
            Err(_) => {
                return Err(PyTypeError::new_err(format!(
                    "nbits must be an int, not {}",
                    nbits.get_type().name()?
                )));
            }
        };
        let mut h = self.lock(py);
        let n = bytes.len();
        if n < GIL_RELEASE_MIN {
            return h.update_bits(bytes.as_slice(), nbits).map_err(to_py_err);
        }
        let hasher: &mut DynHasher = &mut h;
        if bytes.is_immutable() {
            let slice = bytes.as_slice();
            py.detach(|| hasher.update_bits(slice, nbits))
                .map_err(to_py_err)
        } else {
            // A mutable buffer: hash a private copy with the GIL released
            // (whole, as the bit-level call is one step; `update` streams).
            let mut copy = bytes.as_slice().to_vec();
            let r = {
                let c = &copy[..];
                py.detach(|| hasher.update_bits(c, nbits))
            };
            wipe(&mut copy);
            r.map_err(to_py_err)
        }
    }

    /// The digest of the message so far, as bytes. The hash can be updated
    /// further afterwards.
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.finish(py))
    }

    /// Like `digest()`, as a string of lowercase hexadecimal digits.
    fn hexdigest(&self, py: Python<'_>) -> String {
        format!("{:x}", self.finish(py))
    }

    /// An independent copy of this hash (same message so far, same backend).
    fn copy(&self, py: Python<'_>) -> Hash {
        let h = self.lock(py).clone();
        Hash {
            inner: Mutex::new(h),
            alg: self.alg,
            backend: self.backend,
        }
    }

    /// The instance name: "pavelor-512", "pavelor-768" or "pavelor-1024".
    #[getter]
    fn name(&self) -> String {
        py_name(self.alg)
    }

    /// Digest length in bytes (64, 96 or 128).
    #[getter]
    fn digest_size(&self) -> usize {
        self.alg.output_len()
    }

    /// Block size in bytes: the sponge rate (192, 128 or 64), as `hmac`
    /// uses it.
    #[getter]
    fn block_size(&self) -> usize {
        self.alg.rate_len()
    }

    /// The name of the backend this hash runs on (e.g. "aesni").
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend.backend().name()
    }

    fn __repr__(&self) -> String {
        format!(
            "<{} Hash object, backend {}>",
            py_name(self.alg),
            self.backend
        )
    }
}

/// The optional `data` argument of the constructors and `new`.
///
/// A separate type, not `Option`, because PyO3 turns an explicit `None`
/// into `Option::None`, the same as a missing argument. `hashlib` tells the
/// two apart: with no data the message is empty, while `None`, positional
/// or as a keyword, is a `TypeError` like any other object without the
/// buffer protocol. So an argument that is passed is always `Given`, `None`
/// included, and [`Bytes::get`] refuses what cannot be exported.
enum Data<'py> {
    /// Not passed: the empty message.
    Absent,
    /// Passed (any object, `None` included).
    Given(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Data<'py> {
    type Error = Infallible;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> Result<Self, Self::Error> {
        Ok(Data::Given(obj.to_owned()))
    }
}

/// Makes a hash of `alg`, fed with `data` if given.
///
/// `usedforsecurity` is accepted as in `hashlib` (any object, taken for its
/// truth value, so an error from its `__bool__` is raised as there) and
/// ignored: Pavelor is not subject to a FIPS-mode restriction, so both
/// values give the same hash.
fn construct(
    py: Python<'_>,
    alg: Algorithm,
    data: Data<'_>,
    usedforsecurity: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
) -> PyResult<Hash> {
    if let Some(flag) = usedforsecurity {
        flag.is_truthy()?;
    }
    // Export the data first so a wrong type is reported before a backend
    // problem, as `hashlib` reports the type first.
    let bytes = match data {
        Data::Absent => None,
        Data::Given(obj) => Some(Bytes::get(&obj)?),
    };
    let h = Hash::make(alg, backend)?;
    if let Some(bytes) = bytes {
        let mut inner = h.lock(py);
        absorb(py, &mut inner, &bytes);
    }
    Ok(h)
}

/// What a generated constructor turns into a Python function of a module.
type Wrap = for<'py> fn(&Bound<'py, PyModule>) -> PyResult<Bound<'py, PyCFunction>>;

/// The per-instance constructors. PyO3 makes a Python function from a Rust
/// function, so this one invocation generates one `#[pyfunction]` per name
/// given, each finding its instance by its own name
/// ([`constructor_instance`]), and `CONSTRUCTORS`, their names with their
/// wrappers. The module registers them in a loop over `Algorithm::ALL`, by
/// [`constructor_name`], and fails to import if one is missing; the build
/// fails if the list is longer or shorter than `Algorithm::ALL`.
macro_rules! constructors {
    ($($f:ident),* $(,)?) => {
        $(
            #[doc = concat!(
                "A new hash of the instance in this function's name, the same as `new(\"",
                stringify!($f), "\", ...)` (its `name`, `digest_size` and `block_size` ",
                "attributes say which instance), optionally fed with `data` (a buffer; ",
                "passing `None` is a `TypeError`, as in `hashlib`). `backend` names the ",
                "implementation (see `backends()`); default: the fastest this CPU runs. ",
                "`usedforsecurity` is accepted, as in `hashlib`, and has no effect."
            )]
            #[pyfunction]
            #[pyo3(
                signature = (data=Data::Absent, *, usedforsecurity=None, backend=None),
                text_signature = "(data=b'', *, usedforsecurity=True, backend=None)"
            )]
            fn $f(
                py: Python<'_>,
                data: Data<'_>,
                usedforsecurity: Option<&Bound<'_, PyAny>>,
                backend: Option<&str>,
            ) -> PyResult<Hash> {
                let alg = constructor_instance(stringify!($f))?;
                construct(py, alg, data, usedforsecurity, backend)
            }
        )*

        /// The generated constructors: each one's name and wrapper.
        const CONSTRUCTORS: &[(&str, Wrap)] = &[$((stringify!($f), |m| wrap_pyfunction!($f, m))),*];
    };
}

constructors!(pavelor512, pavelor768, pavelor1024);

const _: () = assert!(
    CONSTRUCTORS.len() == Algorithm::ALL.len(),
    "one constructor per instance"
);

/// A new hash of the instance `name`: "pavelor-512", "pavelor-768" or
/// "pavelor-1024", in any case, with `_` or nothing in place of the `-`
/// ("Pavelor512", "PAVELOR_512" work too). `ValueError` ("unsupported hash
/// type NAME", as in `hashlib.new`) for any other name. `data` and
/// `usedforsecurity` as in `pavelor512`.
#[pyfunction]
#[pyo3(
    signature = (name, data=Data::Absent, *, usedforsecurity=None, backend=None),
    text_signature = "(name, data=b'', *, usedforsecurity=True, backend=None)"
)]
fn new(
    py: Python<'_>,
    name: &Bound<'_, PyAny>,
    data: Data<'_>,
    usedforsecurity: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
) -> PyResult<Hash> {
    let name = name.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "name must be a str, not {}",
            name.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let alg = parse_name(&name.to_cow()?)?;
    construct(py, alg, data, usedforsecurity, backend)
}

/// The digests of many independent byte messages (an iterable of buffers),
/// as a list of bytes in the same order. Uses the batch kernels, which hash
/// several messages at once on CPUs with wide AES instructions; the result
/// equals hashing each message on its own.
#[pyfunction]
#[pyo3(signature = (name, messages, *, backend=None))]
fn hash_many<'py>(
    py: Python<'py>,
    name: &str,
    messages: &Bound<'py, PyAny>,
    backend: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let alg = parse_name(name)?;
    let backend = resolve_backend(backend)?;

    // Immutable inputs (exact `bytes`) are hashed in place; all others are
    // copied (with the GIL held) so the GIL can be released for the whole
    // batch. The copies are wiped when dropped, including when a later
    // item fails (not iterable, no buffer, non-contiguous) and `?` returns
    // early.
    enum Msg<'py> {
        Shared(Bytes<'py>),
        Owned(Zeroizing<Vec<u8>>),
    }
    let mut msgs: Vec<Msg<'py>> = Vec::new();
    for item in messages.try_iter()? {
        let bytes = Bytes::get(&item?)?;
        msgs.push(if bytes.is_immutable() {
            Msg::Shared(bytes)
        } else {
            Msg::Owned(Zeroizing::new(bytes.as_slice().to_vec()))
        });
    }
    let slices: Vec<&[u8]> = msgs
        .iter()
        .map(|m| match m {
            Msg::Shared(b) => b.as_slice(),
            Msg::Owned(v) => v.as_slice(),
        })
        .collect();
    let total: usize = slices.iter().map(|s| s.len()).sum();
    let out_len = alg.output_len();
    let mut out = vec![0u8; slices.len() * out_len];
    let run = |out: &mut [u8]| pavelor::batch::hash_many_dyn_with(alg, backend, &slices, out);
    let result = if total >= GIL_RELEASE_MIN {
        py.detach(|| run(&mut out))
    } else {
        run(&mut out)
    };
    drop(slices);
    // Wipe the copies and release the exports now, not after the results
    // are built.
    drop(msgs);
    result.map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let digests: Vec<Bound<'py, PyBytes>> = out
        .chunks_exact(out_len)
        .map(|d| PyBytes::new(py, d))
        .collect();
    PyList::new(py, digests)
}

/// Internal, for the tests: whether the bytes of `data` would be read in
/// place with the GIL released (an exact `bytes` object), rather than
/// copied while the GIL is held first.
#[pyfunction]
#[pyo3(signature = (data, /))]
fn _reads_in_place(data: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(Bytes::get(data)?.is_immutable())
}

/// Names of the backends this CPU can run: the default (the fastest) first,
/// then the others, fastest first.
#[pyfunction]
fn backends() -> Vec<&'static str> {
    // The default first (by construction, not by relying on the order of
    // `Available::all`), then the other available ones in the crate's order.
    let best = Available::best();
    core::iter::once(best)
        .chain(Available::all().filter(|&b| b != best))
        .map(|b| b.backend().name())
        .collect()
}

/// Names of every backend this build knows, available here or not.
#[pyfunction]
fn all_backends() -> Vec<&'static str> {
    Backend::ALL.iter().map(|b| b.name()).collect()
}

/// Native part of the `pavelor` package; import `pavelor` instead.
#[pymodule]
fn _pavelor(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Hash>()?;
    for alg in Algorithm::ALL {
        let name = constructor_name(alg);
        let (_, wrap) = CONSTRUCTORS
            .iter()
            .find(|(f, _)| *f == name)
            .ok_or_else(|| {
                PyImportError::new_err(format!("no constructor {name} for {}", alg.name()))
            })?;
        m.add_function(wrap(m)?)?;
    }
    m.add_function(wrap_pyfunction!(new, m)?)?;
    m.add_function(wrap_pyfunction!(hash_many, m)?)?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(all_backends, m)?)?;
    // Set as an attribute, not `add_function`, which would also list it in
    // `__all__` (and `from pavelor._pavelor import *` would export it).
    m.setattr("_reads_in_place", wrap_pyfunction!(_reads_in_place, m)?)?;
    m.add(
        "BackendUnavailableError",
        py.get_type::<BackendUnavailableError>(),
    )?;
    // A set, as in `hashlib` (frozen: module state nobody should mutate).
    let names: Vec<String> = Algorithm::ALL.into_iter().map(py_name).collect();
    m.add("algorithms_available", PyFrozenSet::new(py, &names)?)?;
    Ok(())
}
