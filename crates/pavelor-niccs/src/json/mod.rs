//! JSON as the harness reads and writes it.
//!
//! The harness (`ngcc-dev/ngcc-harness`, `performance/campaign.py`, `save`)
//! reads every file with `json.load` into Python dicts, which keep their
//! insertion order, and writes it as `json.dumps(data, indent=1) + "\n"`.
//!
//! * [`value`] — [`Json`], a decoded value whose objects ([`JsonObject`])
//!   keep document order, and [`OrderedMap`], the insertion-ordered map
//!   the schema's objects are.
//! * [`parse`] — reading JSON text into a [`Json`] (serde `Deserialize`).
//! * [`text`] — [`to_harness_json`]: the harness's text form.
//!
//! What Python makes of a value (`str()`, `==`, truthiness) is in
//! [`crate::python`].

pub mod parse;
pub mod text;
pub mod value;

pub use text::to_harness_json;
pub(crate) use value::NULL;
pub use value::{Json, JsonObject, OrderedMap};
