//! Python's semantics wherever the harness's numbers and texts depend on
//! them (Python 3.12+, the campaign ran on 3.14): every conversion of a
//! number to text, the arithmetic whose rounding shows in the stored
//! figures, and what `str()`, `repr()`, `==`, `int()` and truthiness make
//! of a decoded JSON value.
//!
//! * Text: [`py_float_repr`] (`repr(float)`, also `json.dumps`'s floats),
//!   [`py_format_g`] (`format(x, ".3g")`), [`py_format_f`]
//!   (`f"{x:.1f}"`), `str()` / `repr()` of a [`Json`] value
//!   ([`Json::py_str`], [`Json::py_repr`]) and of a string
//!   ([`py_repr_str`]), `s[:n]` ([`py_prefix`]).
//! * Arithmetic: [`py_sum`] (built-in `sum` of floats), [`int_ratio`]
//!   (`int / int`), [`py_median`] (`statistics.median`), [`py_isclose`]
//!   (`math.isclose`), `+` and `/` of two JSON numbers.
//! * Values: [`py_int`] (`int()`), [`Json::truthy`], [`Json::py_eq`]
//!   (`==`, `1 == 1.0 == True`), `str.isspace()`.
//!
//! Nothing this crate reproduces calls Python's `round()` (report.py rounds
//! through format specs: `.2f`, `.3g`), so there is no half-even `round`
//! here.

use crate::value::Json;

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

/// `str()` of an optional float: `None`, or [`py_float_repr`].
pub fn py_str_float(x: Option<f64>) -> String {
    x.map_or_else(|| "None".to_string(), py_float_repr)
}

/// Python's `format(x, ".<p>g")`: `p` significant digits, fixed notation
/// for decimal exponents from -4 to `p - 1`, trailing zeros removed
/// (`13.7`, `295`, `1e+03`, `1.23e-05`).
pub fn py_format_g(x: f64, p: usize) -> String {
    let p = p.max(1);
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // The exponent after rounding to p digits decides the notation.
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp >= -4 && exp < p as i32 {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{x:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.abs())
    }
}

/// `s` without the trailing zeros of its fractional part (and without a
/// bare trailing `.`).
fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// Python's `format(x, ".<decimals>f")` (`f"{x:.1f}"`): Rust's `{:.N}`,
/// which rounds the exact binary value correctly with ties to even as
/// Python does (`0.125` → `0.12`, `0.375` → `0.38`, `2.5` → `2`), except
/// that Python spells NaN `nan`.
pub fn py_format_f(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    format!("{x:.decimals$}")
}

/// The first `n` characters of `s` (Python's `s[:n]`).
pub fn py_prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// Python's `repr()` of a string: single quotes unless the text holds a
/// single quote and no double quote.
pub fn py_repr_str(s: &str) -> String {
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

/// Python's `str.isspace()` for one character.
pub(crate) fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's built-in `sum()` of floats as of Python 3.12: Neumaier's
/// compensated summation, the compensation added at the end. The harness's
/// stored `mean_seconds` are reproduced bit for bit only this way.
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

/// `f == i` with Python's exact int/float comparison.
pub(crate) fn float_equals_int(f: f64, i: i128) -> bool {
    // Every f64 of magnitude below 2^127 with no fractional part is an
    // exact i128; larger ones cannot equal an i128 here.
    f.fract() == 0.0 && f.abs() < 1.7e38 && f as i128 == i
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

/// Python's `int(x or 0)`; a value Python's `int()` would reject (where
/// the harness would stop) counts as 0.
pub(crate) fn py_int_or_zero(value: &Json) -> i128 {
    if value.truthy() {
        py_int(value).unwrap_or(0)
    } else {
        0
    }
}

/// A JSON number (or boolean) as an exact Python `int`, if it is one.
fn exact_int(v: &Json) -> Option<i128> {
    match v {
        Json::Bool(b) => Some(i128::from(*b)),
        Json::Number(n) => n
            .as_u64()
            .map(i128::from)
            .or_else(|| n.as_i64().map(i128::from)),
        _ => None,
    }
}

/// Python's `a / b` of two JSON numbers (exact for integers); `None` for a
/// division by zero or a non-number.
pub(crate) fn py_div(a: &Json, b: &Json) -> Option<f64> {
    match (exact_int(a), exact_int(b)) {
        (Some(x), Some(y)) if x >= 0 && y > 0 => int_ratio(x as u128, y as u128),
        _ => {
            let y = b.as_f64()?;
            (y != 0.0).then(|| a.as_f64().map(|x| x / y)).flatten()
        }
    }
}

/// Python's `a + b` of two JSON numbers; `None` for a non-number or an
/// integer sum beyond `i128`.
pub(crate) fn py_add(a: &Json, b: &Json) -> Option<Json> {
    match (exact_int(a), exact_int(b)) {
        (Some(x), Some(y)) => {
            let s = x.checked_add(y)?;
            Some(match u64::try_from(s) {
                Ok(u) => Json::from(u),
                Err(_) => i64::try_from(s).map_or_else(|_| Json::from(s as f64), Json::from),
            })
        }
        _ => Some(Json::from(a.as_f64()? + b.as_f64()?)),
    }
}

/// What Python makes of a decoded JSON value.
impl Json {
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

    /// Python's `repr()` of the value (strings quoted: `'arm_1'`).
    pub fn py_repr(&self) -> String {
        match self {
            Json::Null => "None".to_string(),
            Json::Bool(true) => "True".to_string(),
            Json::Bool(false) => "False".to_string(),
            Json::Number(n) => {
                if let Some(u) = n.as_u64() {
                    u.to_string()
                } else if let Some(i) = n.as_i64() {
                    i.to_string()
                } else {
                    py_float_repr(n.as_f64().unwrap_or(f64::NAN))
                }
            }
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
    /// value whatever their type (`1 == 1.0 == True`), the rest
    /// structurally (objects whatever their key order, as dicts compare).
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
    match (exact_int(a), exact_int(b)) {
        (Some(x), Some(y)) => x == y,
        (Some(i), None) => b.as_f64().is_some_and(|f| float_equals_int(f, i)),
        (None, Some(i)) => a.as_f64().is_some_and(|f| float_equals_int(f, i)),
        (None, None) => a.as_f64() == b.as_f64(),
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
        assert_eq!(py_str_float(None), "None");
        assert_eq!(py_str_float(Some(2.0)), "2.0");
    }

    #[test]
    fn format_g_and_f_match_python() {
        let g3: &[(f64, &str)] = &[
            (13.672721879999998, "13.7"),
            (1.15, "1.15"),
            (295.0, "295"),
            (12.0, "12"),
            (1234.0, "1.23e+03"),
            (0.2, "0.2"),
            (0.0, "0"),
            (0.000123456, "0.000123"),
            (0.0000123456, "1.23e-05"),
            (99.96, "100"),
            (999.6, "1e+03"),
            (73138.3, "7.31e+04"),
        ];
        for (x, want) in g3 {
            assert_eq!(py_format_g(*x, 3), *want, "{x:e}");
        }
        // f"{x:.Nf}": ties (exact binary halves) go to even, as in Python.
        let f: &[(f64, usize, &str)] = &[
            (0.125, 2, "0.12"),
            (0.375, 2, "0.38"),
            (2.5, 0, "2"),
            (3.5, 0, "4"),
            (0.5, 0, "0"),
            (1151.6131, 1, "1151.6"),
            (2.71, 2, "2.71"),
            (-0.04, 1, "-0.0"),
            (1e22, 1, "10000000000000000000000.0"),
            (f64::INFINITY, 1, "inf"),
            (f64::NAN, 1, "nan"),
        ];
        for (x, decimals, want) in f {
            assert_eq!(py_format_f(*x, *decimals), *want, "{x:e} .{decimals}f");
        }
        assert_eq!(
            py_prefix("2026-09-28T15:05:46.790099+00:00", 19),
            "2026-09-28T15:05:46"
        );
        assert_eq!(py_prefix("µs", 5), "µs");
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
        assert_eq!(py_int_or_zero(&Json::Null), 0);
        assert_eq!(py_int_or_zero(&Json::from("x")), 0);
    }

    #[test]
    fn arithmetic_of_json_numbers() {
        let n = |x: u64| Json::from(x);
        assert_eq!(py_add(&n(2), &n(3)), Some(n(5)));
        assert_eq!(py_add(&n(2), &Json::from(0.5)), Some(Json::from(2.5)));
        assert_eq!(py_add(&n(2), &Json::from("x")), None);
        assert_eq!(py_div(&n(1), &n(4)), Some(0.25));
        assert_eq!(py_div(&n(1), &n(0)), None);
        assert_eq!(py_div(&Json::from(1.5), &n(3)), Some(0.5));
    }
}
