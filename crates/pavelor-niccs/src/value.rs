//! Ordered JSON values: [`Json`], its objects ([`JsonObject`]) and the
//! insertion-ordered map they are ([`OrderedMap`]).

use serde::ser::{Serialize, Serializer};

/// A string-keyed map that keeps its keys in insertion (document) order,
/// like a Python dict: inserting a key that is present replaces its value
/// in place, and
/// [`shift_remove`](indexmap::IndexMap::shift_remove) keeps the order of
/// the rest, as `del d[key]` does. Equality ignores the order, as dict
/// equality does; the order shows in the text written
/// ([`to_harness_json`](crate::json::to_harness_json)).
pub type OrderedMap<V> = indexmap::IndexMap<String, V>;

/// A JSON value whose objects keep their keys in document order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null` (Python `None`).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, integer or float as written (Python `int` / `float`).
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, in document order.
    Object(JsonObject),
}

/// A JSON object in document order.
pub type JsonObject = OrderedMap<Json>;

/// The value a missing key reads as (Python's `dict.get` gives `None`).
pub(crate) static NULL: Json = Json::Null;

impl Json {
    /// The member `key` of an object (`None` for a missing key or a non-object).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(map) => map.get(key),
            _ => None,
        }
    }

    /// Python's `dict.get(key)`: a missing key reads as `null`.
    pub fn get_or_null(&self, key: &str) -> &Json {
        self.get(key).unwrap_or(&NULL)
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number as `f64` (booleans count as 0 and 1, as in Python).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => n.as_f64(),
            Json::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        }
    }

    /// The number, if it is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    /// `true` for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::String(s.to_string())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::String(s)
    }
}

impl From<u64> for Json {
    fn from(n: u64) -> Json {
        Json::Number(n.into())
    }
}

impl From<i64> for Json {
    fn from(n: i64) -> Json {
        Json::Number(n.into())
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl From<f64> for Json {
    /// A non-finite float (which JSON cannot hold) becomes `null`.
    fn from(x: f64) -> Json {
        serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(a) => a.serialize(serializer),
            Json::Object(o) => o.serialize(serializer),
        }
    }
}
