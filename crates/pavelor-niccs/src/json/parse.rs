//! Reading JSON text into a [`Json`]: serde's `Deserialize`, so any serde
//! source works (`serde_json::from_slice`, `from_str`, `from_value`).
//!
//! Objects are read in document order; a key given twice keeps its first
//! place and its last value, as Python's `json.loads` builds a dict.
//! Numbers stay as written (`serde_json::Number`: integers as integers,
//! floats read back to the same `f64` with serde_json's `float_roundtrip`).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::value::{Json, JsonObject};

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a non-finite number"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        Json::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Json>()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Json, A::Error> {
        let mut map = JsonObject::new();
        while let Some((k, v)) = access.next_entry::<String, Json>()? {
            map.insert(k, v);
        }
        Ok(Json::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_order_and_repeated_keys() {
        let v: Json =
            serde_json::from_str(r#"{"b": 1, "a": {"z": 2, "y": 3}, "b": 4}"#).expect("parse");
        let keys = |v: Option<&Json>| -> Vec<String> {
            match v {
                Some(Json::Object(o)) => o.keys().cloned().collect(),
                _ => Vec::new(),
            }
        };
        assert_eq!(
            keys(Some(&v)),
            ["b", "a"],
            "a repeated key keeps its first place"
        );
        assert_eq!(v.get("b"), Some(&Json::from(4u64)), "and its last value");
        assert_eq!(keys(v.get("a")), ["z", "y"]);
    }
}
