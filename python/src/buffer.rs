//! Read access to objects that support the buffer protocol, from Python
//! 3.9 on.
//!
//! `Py_buffer`, `PyObject_GetBuffer`, `PyBuffer_Release` and
//! `PyObject_CheckBuffer` are declared here with the layout and signatures
//! CPython has used since 3.3 (3.9 for `PyObject_CheckBuffer` as a
//! function) and froze in the 3.11 stable ABI. The `abi3` build targets
//! that stable ABI (`cp311-abi3`), where all four are in the limited API;
//! a build without `abi3` is for one interpreter, 3.9 or later, whose full
//! API has them. Either way no buffer is copied to be read.
//!
//! The checks are `hashlib`'s, in its order: a `str` is a `TypeError`
//! ("Strings must be encoded before hashing"), so is any object without
//! the buffer protocol, `None` included ("object supporting the buffer API
//! required"). The request is then `PyBUF_SIMPLE`, as `hashlib` makes: the
//! exporter must hand out one C-contiguous block of bytes, or raise. A
//! `ValueError` from the exporter (NumPy's "ndarray is not C-contiguous")
//! becomes `BufferError`, as `memoryview` reports the same problem.

use core::ffi::{c_char, c_int, c_void};
use core::marker::PhantomData;

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// `Py_buffer` (CPython `Include/pybuffer.h`, unchanged since 3.3).
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

/// `PyBUF_SIMPLE`: one contiguous byte block, no format or shape.
const PYBUF_SIMPLE: c_int = 0;

unsafe extern "C" {
    fn PyObject_CheckBuffer(obj: *mut ffi::PyObject) -> c_int;
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// An exported buffer, released (with the interpreter attached) on drop.
///
/// While the export is held the exporter keeps the memory alive and at the
/// same place: a `bytearray` refuses to resize (`BufferError`), a NumPy
/// array refuses `resize`, an `mmap` refuses `close`. Whether the *contents*
/// can change is a different matter: see [`Bytes::is_immutable`].
pub(crate) struct Bytes<'py> {
    // Boxed so the view never moves between `GetBuffer` and `Release`
    // (exporters may keep pointers into it, e.g. to `shape`).
    view: Box<RawBuffer>,
    immutable: bool,
    _py: PhantomData<Python<'py>>,
}

impl<'py> Bytes<'py> {
    /// Exports the bytes of `obj`, like `hashlib` does: `str` is refused
    /// with "Strings must be encoded before hashing", objects without the
    /// buffer protocol (`None`, `int`, ...) with "object supporting the
    /// buffer API required" (both `TypeError`), non-contiguous exports with
    /// the exporter's own error.
    pub(crate) fn get(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "Strings must be encoded before hashing",
            ));
        }
        // SAFETY: the interpreter is attached (we hold `Bound<'py, _>`) and
        // `obj` is a valid object pointer; the call only reads its type's
        // buffer slot and cannot fail or raise.
        if unsafe { PyObject_CheckBuffer(obj.as_ptr()) } == 0 {
            return Err(PyTypeError::new_err(
                "object supporting the buffer API required",
            ));
        }
        let mut view = Box::new(RawBuffer {
            buf: core::ptr::null_mut(),
            obj: core::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: core::ptr::null_mut(),
            shape: core::ptr::null_mut(),
            strides: core::ptr::null_mut(),
            suboffsets: core::ptr::null_mut(),
            internal: core::ptr::null_mut(),
        });
        // SAFETY: the interpreter is attached (we hold `Bound<'py, _>`),
        // `obj` is a valid object pointer and `view` points to a writable
        // `Py_buffer` with CPython's layout that stays at this address until
        // `PyBuffer_Release` in `Drop`.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, PYBUF_SIMPLE) };
        if rc != 0 {
            let err = PyErr::fetch(obj.py());
            if err.is_instance_of::<PyValueError>(obj.py()) {
                // NumPy reports a non-contiguous array as `ValueError`;
                // report every "cannot export this as one block" alike.
                let e = PyBufferError::new_err(format!(
                    "a C-contiguous buffer is required: {}",
                    err.value(obj.py())
                ));
                e.set_cause(obj.py(), Some(err));
                return Err(e);
            }
            return Err(err);
        }
        // Only an exact `bytes` object that exported its own storage is
        // known never to change. Not a subclass: since Python 3.12 a
        // subclass of `bytes` may define `__buffer__` and export any other
        // object's memory (a `bytearray`'s, say), which another thread could
        // write while the GIL is released. `bytes` itself cannot be given a
        // `__buffer__` (built-in types are immutable), and its
        // `bf_getbuffer` sets `view.obj` to the object; checking `view.obj`
        // as well keeps the in-place path tied to that exporter.
        let immutable =
            obj.is_exact_instance_of::<PyBytes>() && core::ptr::eq(view.obj, obj.as_ptr());
        let bytes = Bytes {
            view,
            immutable,
            _py: PhantomData,
        };
        if bytes.view.len < 0 || (bytes.view.buf.is_null() && bytes.view.len != 0) {
            // A broken exporter; `bytes` is dropped (released) here.
            return Err(PyTypeError::new_err("object exported an invalid buffer"));
        }
        Ok(bytes)
    }

    /// Whether no code can change the bytes while they are exported: true
    /// only for an exact `bytes` object (not a subclass, which may export
    /// another object's mutable memory through `__buffer__`) whose export
    /// is its own storage. Only such bytes may be read with the GIL
    /// released; everything else is copied first.
    pub(crate) fn is_immutable(&self) -> bool {
        self.immutable
    }

    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        // Checked non-negative in `get`.
        self.view.len as usize
    }

    /// The exported bytes.
    ///
    /// For a mutable exporter the slice is only to be read while the
    /// interpreter is attached (no Python code can then run and write to
    /// it); code that releases the GIL copies mutable data first (see
    /// `lib.rs`).
    pub(crate) fn as_slice(&self) -> &[u8] {
        if self.view.len == 0 {
            return &[];
        }
        // SAFETY: `PyObject_GetBuffer` succeeded with `PyBUF_SIMPLE`, so
        // `buf` points to `len` contiguous readable bytes (checked non-null
        // and `len >= 0` in `get`), kept alive and in place by the export
        // until `PyBuffer_Release` in `Drop`, which cannot run while this
        // borrow of `self` lives.
        unsafe { core::slice::from_raw_parts(self.view.buf.cast::<u8>(), self.len()) }
    }
}

impl Drop for Bytes<'_> {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful `PyObject_GetBuffer`
        // and is released exactly once. `Bytes<'py>` holds a
        // `PhantomData<Python<'py>>` and is neither `Send` nor `Sync` (raw
        // pointers inside), so it is dropped on the thread that made it
        // while the interpreter is attached there: it cannot be moved into
        // a `Python::detach` closure.
        unsafe { PyBuffer_Release(&mut *self.view) };
    }
}
