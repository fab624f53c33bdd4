//! The harness's JSON text form: `json.dumps(value, indent=1) + "\n"`
//! (`ngcc-dev/ngcc-harness`, `performance/campaign.py`, `save`).
//!
//! One space per indent level, `","` at line ends, `": "` after keys, `[]`
//! and `{}` for empty containers, `ensure_ascii` escapes, and floats in
//! Python's `repr` form (`1.3672721879999998e-05`, `300.0`). Objects are
//! written in their map's order, never sorted.

use std::io;

use serde::Serialize;

use crate::python::py_float_repr;

/// `value` as the harness writes it: `json.dumps(value, indent=1) + "\n"`.
pub fn to_harness_json<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, HarnessFormatter::default());
    value.serialize(&mut ser)?;
    out.push(b'\n');
    Ok(out)
}

/// Python's `json.dumps(indent=1)` for `serde_json`: the layout of
/// `serde_json`'s own pretty printer with a one-space indent (the same
/// separators, `[]`/`{}` when empty), with Python's float `repr` and
/// `ensure_ascii` strings.
struct HarnessFormatter(serde_json::ser::PrettyFormatter<'static>);

impl Default for HarnessFormatter {
    fn default() -> Self {
        HarnessFormatter(serde_json::ser::PrettyFormatter::with_indent(b" "))
    }
}

impl serde_json::ser::Formatter for HarnessFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        w.write_all(py_float_repr(value).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(w, f64::from(value))
    }

    /// `ensure_ascii`: everything outside printable ASCII (space to `~`) is
    /// written as `\uXXXX` (UTF-16 units, lower-case hex); `serde_json`
    /// already escapes quotes, backslashes and control characters the same
    /// way Python does.
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if (' '..='~').contains(&c) {
                continue;
            }
            w.write_all(&fragment.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(w, "\\u{unit:04x}")?;
            }
            start = i + c.len_utf8();
        }
        w.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Json;

    #[test]
    fn harness_layout() {
        let value: Json = serde_json::from_str(
            r#"{"b": [1, 2.0, {"x": []}], "a": {}, "s": "é\u007f\"\n😀", "n": null}"#,
        )
        .expect("parse");
        let text = to_harness_json(&value).expect("write");
        let want = "{\n \"b\": [\n  1,\n  2.0,\n  {\n   \"x\": []\n  }\n ],\n \"a\": {},\n \
                    \"s\": \"\\u00e9\\u007f\\\"\\n\\ud83d\\ude00\",\n \"n\": null\n}\n";
        assert_eq!(String::from_utf8_lossy(&text), want);
    }
}
