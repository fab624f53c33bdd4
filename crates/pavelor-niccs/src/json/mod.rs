//! JSON as the harness reads and writes it.
//!
//! The harness (`ngcc-dev/ngcc-harness`, `performance/campaign.py`, `save`)
//! reads every file with `json.load` into Python dicts, which keep their
//! insertion order, and writes it as `json.dumps(data, indent=1) + "\n"`.
//!
//! * [`crate::value`] — [`Json`], a decoded value whose objects
//!   ([`JsonObject`]) keep document order, and [`OrderedMap`], the
//!   insertion-ordered map the schema's objects are (a module of its own,
//!   below both this one and [`crate::python`], which reads values as
//!   Python does and writes this module's floats).
//! * [`parse`] — reading JSON text into a [`Json`] (serde `Deserialize`).
//! * [`text`] — [`to_harness_json`]: the harness's text form.
//!
//! What Python makes of a value (`str()`, `==`, truthiness) is in
//! [`crate::python`].

pub mod parse;
pub mod text;

pub(crate) use crate::value::NULL;
pub use crate::value::{Json, JsonObject, OrderedMap};
pub use text::to_harness_json;
