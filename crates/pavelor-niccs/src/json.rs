//! Ordered JSON values, the harness's JSON text form, and the few Python
//! semantics the harness's numbers depend on.
//!
//! The harness (`ngcc-dev/ngcc-harness`, `performance/campaign.py`, `save`)
//! writes every file as `json.dumps(data, indent=1) + "\n"`: one space per
//! level, `", "`-free item separators, `": "` after keys, `ensure_ascii`
//! escapes, and floats in Python's `repr` form (`1.3672721879999998e-05`,
//! `300.0`). [`to_harness_json`] writes exactly that. Python dicts keep their
//! insertion order, so objects here are [`OrderedMap`]s, never sorted maps.

use std::fmt;
use std::io;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

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

    /// Python truthiness: `None`, `False`, `0`, `0.0`, `""`, `[]` and `{}`
    /// are false.
    pub fn truthy(&self) -> bool {
        match self {
            Json::Null => false,
            Json::Bool(b) => *b,
            Json::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
            Json::String(s) => !s.is_empty(),
            Json::Array(a) => !a.is_empty(),
            Json::Object(o) => !o.is_empty(),
        }
    }

    /// What Python's `str()` (and an f-string) makes of the value:
    /// `None`, `True`, `7`, `2.5`, the string itself, `[1, 'a']`.
    pub fn py_str(&self) -> String {
        match self {
            Json::String(s) => s.clone(),
            other => other.py_repr(),
        }
    }

    /// Python's `repr()` of the value (strings quoted).
    fn py_repr(&self) -> String {
        match self {
            Json::Null => "None".to_string(),
            Json::Bool(true) => "True".to_string(),
            Json::Bool(false) => "False".to_string(),
            Json::Number(n) => number_py_str(n),
            Json::String(s) => py_repr_str(s),
            Json::Array(a) => {
                let items: Vec<String> = a.iter().map(Json::py_repr).collect();
                format!("[{}]", items.join(", "))
            }
            Json::Object(o) => {
                let items: Vec<String> = o
                    .iter()
                    .map(|(k, v)| format!("{}: {}", py_repr_str(k), v.py_repr()))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
        }
    }

    /// Python's `==` between two decoded JSON values: numbers compare by
    /// value whatever their type (`1 == 1.0 == True`), the rest structurally.
    pub fn py_eq(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Number(_) | Json::Bool(_), Json::Number(_) | Json::Bool(_)) => {
                numbers_equal(self, other)
            }
            (Json::Null, Json::Null) => true,
            (Json::String(a), Json::String(b)) => a == b,
            (Json::Array(a), Json::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.py_eq(y))
            }
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v.py_eq(w)))
            }
            _ => false,
        }
    }
}

/// Exact numeric equality of two JSON numbers (or booleans).
fn numbers_equal(a: &Json, b: &Json) -> bool {
    fn exact(j: &Json) -> Option<i128> {
        match j {
            Json::Bool(b) => Some(i128::from(*b)),
            Json::Number(n) => n
                .as_u64()
                .map(i128::from)
                .or_else(|| n.as_i64().map(i128::from)),
            _ => None,
        }
    }
    match (exact(a), exact(b)) {
        (Some(x), Some(y)) => x == y,
        (Some(i), None) | (None, Some(i)) => {
            let f = if exact(a).is_some() { b } else { a };
            f.as_f64().is_some_and(|f| float_equals_int(f, i))
        }
        (None, None) => a.as_f64() == b.as_f64(),
    }
}

/// `f == i` with Python's exact int/float comparison.
pub(crate) fn float_equals_int(f: f64, i: i128) -> bool {
    // Every f64 of magnitude below 2^127 with no fractional part is an
    // exact i128; larger ones cannot equal an i128 here.
    f.fract() == 0.0 && f.abs() < 1.7e38 && f as i128 == i
}

fn number_py_str(n: &serde_json::Number) -> String {
    if let Some(u) = n.as_u64() {
        u.to_string()
    } else if let Some(i) = n.as_i64() {
        i.to_string()
    } else {
        py_float_repr(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Python's `repr()` of a string: single quotes unless the text holds a
/// single quote and no double quote.
fn py_repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
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

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Json, A::Error> {
        OrderedMapVisitor(std::marker::PhantomData)
            .visit_map(map)
            .map(Json::Object)
    }
}

/// A string-keyed map that keeps its keys in insertion (document) order,
/// like a Python dict: a repeated key replaces the value in place.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderedMap<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap {
            entries: Vec::new(),
        }
    }
}

impl<V> OrderedMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value under `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// `true` if `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`: in place if the key exists (returning the old
    /// value), else at the end.
    pub fn insert(&mut self, key: impl Into<String>, value: V) -> Option<V> {
        let key = key.into();
        match self.get_mut(&key) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<V> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(i).1)
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<V> FromIterator<(String, V)> for OrderedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut map = OrderedMap::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

impl<V> IntoIterator for OrderedMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OrderedMapVisitor(std::marker::PhantomData))
    }
}

struct OrderedMapVisitor<V>(std::marker::PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for OrderedMapVisitor<V> {
    type Value = OrderedMap<V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut map = OrderedMap::new();
        while let Some((k, v)) = access.next_entry::<String, V>()? {
            map.insert(k, v);
        }
        Ok(map)
    }
}

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

/// Python's `repr()` of a float: the shortest digits that round-trip, in
/// fixed notation for decimal exponents -4 to 15 (always with a fractional
/// part: `300.0`), otherwise as `d.ddde±XX` (`1e-05`, `1.5e+16`).
/// Non-finite values give `json.dumps`'s `NaN` / `Infinity`.
pub fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0.0");
    }
    // `{:e}` gives the shortest digits that round-trip ("1.2345e-5"); where
    // two strings of that length are equally close to the exact value it
    // may take the upper one, while Python takes the even one: the
    // correctly rounded (ties-to-even) string of the same length, whenever
    // it round-trips, is Python's.
    let shortest = format!("{:e}", x.abs());
    let len = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.bytes().filter(u8::is_ascii_digit).count());
    let nearest = format!("{:.*e}", len.saturating_sub(1), x.abs());
    let sci = if nearest.parse::<f64>() == Ok(x.abs()) {
        nearest
    } else {
        shortest
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let n = digits.len() as i32;
    if (-4..16).contains(&exp) {
        if exp < 0 {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        } else if n <= exp + 1 {
            let zeros = "0".repeat((exp + 1 - n) as usize);
            format!("{sign}{digits}{zeros}.0")
        } else {
            let (int, frac) = digits.split_at((exp + 1) as usize);
            format!("{sign}{int}.{frac}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{esign}{:02}", exp.abs())
    }
}

/// Python's built-in `sum()` of floats as of Python 3.12 (the campaign ran
/// on 3.14): Neumaier's compensated summation, the compensation added at
/// the end. The harness's stored `mean_seconds` are reproduced bit for bit
/// only this way.
pub fn py_sum(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut total = 0.0f64;
    let mut compensation = 0.0f64;
    for x in values {
        let t = total + x;
        if total.abs() >= x.abs() {
            compensation += (total - t) + x;
        } else {
            compensation += (x - t) + total;
        }
        total = t;
    }
    if compensation != 0.0 && compensation.is_finite() {
        total += compensation;
    }
    total
}

/// `num / den` correctly rounded to the nearest `f64` (ties to even), as
/// Python's `int / int` is; `None` for `den == 0`.
pub fn int_ratio(num: u128, den: u128) -> Option<f64> {
    const EXACT: u128 = 1 << 53;
    if den == 0 {
        return None;
    }
    if num < EXACT && den < EXACT {
        // Both exact in f64: one correctly rounded division.
        return Some(num as f64 / den as f64);
    }
    // Long division to at least 55 significant quotient bits, remembering
    // whether anything remained (the sticky bit), then one rounding.
    let mut q = num / den;
    let mut r = num % den;
    let mut exp: i32 = 0;
    if q == 0 && r == 0 {
        return Some(0.0);
    }
    while q < (1u128 << 55) {
        // r < den: 2r >= den  <=>  r >= den - r (no overflow).
        let bit = r >= den - r;
        r = if bit { r - (den - r) } else { 2 * r };
        q = (q << 1) | u128::from(bit);
        exp -= 1;
    }
    let sticky = r != 0;
    let bits = 128 - q.leading_zeros();
    let shift = bits - 53;
    let dropped = q & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    let mut m = q >> shift;
    exp += shift as i32;
    if dropped > half || (dropped == half && (sticky || m & 1 == 1)) {
        m += 1;
        if m == EXACT {
            m >>= 1;
            exp += 1;
        }
    }
    Some(scale_pow2(m as f64, exp))
}

/// `x * 2^exp`, exact while the result stays a normal number.
fn scale_pow2(mut x: f64, mut exp: i32) -> f64 {
    while exp > 1000 {
        x *= f64::from_bits(2023u64 << 52); // 2^1000
        exp -= 1000;
    }
    while exp < -1000 {
        x *= f64::from_bits(23u64 << 52); // 2^-1000
        exp += 1000;
    }
    x * f64::from_bits(((exp + 1023) as u64) << 52)
}

/// Python's `statistics.median`: the middle value, or the mean of the two
/// middle values; `None` for no values.
pub fn py_median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    })
}

/// Python's `math.isclose(a, b, rel_tol=rel_tol)` (no absolute tolerance).
pub fn py_isclose(a: f64, b: f64, rel_tol: f64) -> bool {
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    let diff = (b - a).abs();
    diff <= (rel_tol * b).abs() || diff <= (rel_tol * a).abs()
}

/// Python's `int()` of a decoded JSON value where the harness applies it to
/// strings and numbers (`int("2707200")`, `int(31295756)`, `int(2.9)`);
/// `None` where Python would raise.
pub fn py_int(value: &Json) -> Option<i128> {
    match value {
        Json::Bool(b) => Some(i128::from(*b)),
        Json::Number(n) => {
            if let Some(u) = n.as_u64() {
                Some(i128::from(u))
            } else if let Some(i) = n.as_i64() {
                Some(i128::from(i))
            } else {
                let f = n.as_f64()?.trunc();
                (f.abs() < 1.7e38).then_some(f as i128)
            }
        }
        Json::String(s) => {
            let t = s.trim().replace('_', "");
            if s.trim().starts_with('_') || s.trim().ends_with('_') || s.contains("__") {
                return None;
            }
            t.parse::<i128>().ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (300.0, "300.0"),
            (0.5, "0.5"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1.3672721879999998e-05, "1.3672721879999998e-05"),
            (36850.94964, "36850.94964"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (-2.5e-7, "-2.5e-07"),
            (4.087890625, "4.087890625"),
            (2694810952.0, "2694810952.0"),
            // Exactly 0.53522491455078125: a tie at 16 digits, to even.
            (0.5352249145507812, "0.5352249145507812"),
            (0.1, "0.1"),
            (1e23, "1e+23"),
        ];
        for (x, want) in cases {
            assert_eq!(py_float_repr(*x), *want, "{x:e}");
        }
    }

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

    #[test]
    fn compensated_sum() {
        // Plain left-to-right addition gives 0.9999999999999999 here.
        assert_eq!(py_sum([0.1; 10]), 1.0);
        assert_eq!(py_sum([1e100, 1.0, -1e100]), 1.0);
        assert_eq!(py_sum([]), 0.0);
    }

    #[test]
    fn ratio_is_correctly_rounded() {
        assert_eq!(int_ratio(1, 3), Some(1.0 / 3.0));
        assert_eq!(int_ratio(7, 0), None);
        assert_eq!(int_ratio(0, 5), Some(0.0));
        // 2^64 + 1 over 1: needs more than 53 bits; rounds to 2^64.
        assert_eq!(
            int_ratio((1u128 << 64) + 1, 1),
            Some(18446744073709551616.0)
        );
        // (2^53 + 1) / 1 is a tie: to even, 2^53.
        assert_eq!(int_ratio((1u128 << 53) + 1, 1), Some(9007199254740992.0));
        // (2^53 + 3) / 1 is a tie: to even, 2^53 + 4.
        assert_eq!(int_ratio((1u128 << 53) + 3, 1), Some(9007199254740996.0));
        // Large numerator and denominator: the quotient of exact values.
        let n = (1u128 << 70) * 3;
        let d = (1u128 << 60) * 7;
        assert_eq!(int_ratio(n, d), Some(1024.0 * 3.0 / 7.0));
    }

    #[test]
    fn median_and_isclose() {
        assert_eq!(py_median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(py_median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(py_median(&[]), None);
        assert!(py_isclose(1.0, 1.0 + 1e-10, 1e-9));
        assert!(!py_isclose(1.0, 1.0 + 1e-8, 1e-9));
    }

    #[test]
    fn python_str_and_eq() {
        let v: Json =
            serde_json::from_str(r#"[null, true, 7, 2.5, "x", {"k": "it's"}]"#).expect("parse");
        assert_eq!(v.py_str(), r#"[None, True, 7, 2.5, 'x', {'k': "it's"}]"#);
        let one: Json = serde_json::from_str("1.0").expect("parse");
        assert!(one.py_eq(&Json::from(1u64)));
        assert!(Json::Bool(true).py_eq(&Json::from(1u64)));
        assert!(!Json::from("1").py_eq(&Json::from(1u64)));
        assert_eq!(py_int(&Json::from(" 2707200 ")), Some(2_707_200));
        assert_eq!(py_int(&Json::from("2.7")), None);
    }
}
