//! The one SVG writer behind every chart of the report, `compare` and the
//! site: the document and its title, text (always escaped with
//! [`crate::html::escape`]), logarithmic axes, point shapes and polylines.
//! The charts (the report's line charts, `compare`'s ratios and the site
//! index's bars) say what to draw; this module says how it is written.

#![forbid(unsafe_code)]

use std::fmt::{self, Display, Write as _};

use crate::html::escape;

/// A coordinate written with one decimal (`12.3`); a bare `f64` is written
/// as Rust prints it (`12.25`, `70`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Px(pub f64);

impl Display for Px {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1}", self.0)
    }
}

/// Where a text stands against its x.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// Starts at x (no `text-anchor` attribute).
    Start,
    /// Centred on x.
    Middle,
    /// Ends at x.
    End,
}

impl Anchor {
    fn attribute(self) -> &'static str {
        match self {
            Anchor::Start => "",
            Anchor::Middle => r#" text-anchor="middle""#,
            Anchor::End => r#" text-anchor="end""#,
        }
    }
}

/// An SVG document being written, one element a line.
pub struct Svg {
    out: String,
}

impl Svg {
    /// A chart's document: `width` × `height`, the charts' font, a white
    /// background and `title` centred above the plot.
    pub fn chart(width: f64, height: f64, title: &str) -> Svg {
        let mut svg = Svg { out: String::new() };
        svg.line(format_args!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">"#
        ));
        svg.line(format_args!(
            r#"<rect width="{width}" height="{height}" fill="white"/>"#
        ));
        svg.line(format_args!(
            r#"<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#,
            width / 2.0,
            escape(title)
        ));
        svg
    }

    /// A figure's document: `width` × `height`, named `title` for screen
    /// readers, with `defs` (patterns) and `title` at (`x`, 22).
    pub fn figure(width: f64, height: f64, title: &str, defs: &str, x: f64) -> Svg {
        let t = escape(title);
        let mut svg = Svg { out: String::new() };
        svg.line(format_args!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"{t}\">\n<title>{t}</title>\n<defs>{defs}</defs>\n<text x=\"{x}\" y=\"22\" font-family=\"sans-serif\" font-size=\"14\">{t}</text>"
        ));
        svg
    }

    /// Writes one element (or any markup) and a line break.
    pub fn line(&mut self, element: fmt::Arguments<'_>) {
        let _ = self.out.write_fmt(element);
        self.out.push('\n');
    }

    /// Writes `body`, escaped, at (`x`, `y`) with the attributes `attrs`
    /// (each with a leading space, or empty).
    pub fn text(
        &mut self,
        x: impl Display,
        y: impl Display,
        anchor: Anchor,
        attrs: &str,
        body: &str,
    ) {
        self.line(format_args!(
            r#"<text x="{x}" y="{y}"{attrs}{}>{}</text>"#,
            anchor.attribute(),
            escape(body)
        ));
    }

    /// Closes the document and returns it.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }

    /// Closes the document with `last` on its last line, and returns it.
    pub fn finish_with(mut self, last: fmt::Arguments<'_>) -> String {
        let _ = self.out.write_fmt(last);
        self.out.push_str("</svg>\n");
        self.out
    }

    /// Draws `shape` centred at (x, y) with radius `r`, filled with
    /// `color` or hollow (white).
    pub fn shape(&mut self, shape: Shape, (x, y): (f64, f64), r: f64, color: &str, filled: bool) {
        let fill = if filled { color } else { "white" };
        let common = format!(r#"fill="{fill}" stroke="{color}" stroke-width="1.5""#);
        let poly = |pts: &[(f64, f64)]| {
            points(
                &pts.iter()
                    .map(|(a, b)| (x + a * r, y + b * r))
                    .collect::<Vec<_>>(),
            )
        };
        match shape {
            Shape::Circle => self.line(format_args!(
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" {common}/>"#,
                r * 0.9
            )),
            Shape::Square => self.line(format_args!(
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {common}/>"#,
                x - r * 0.8,
                y - r * 0.8,
                r * 1.6,
                r * 1.6
            )),
            Shape::TriangleUp => self.line(format_args!(
                r#"<polygon points="{}" {common}/>"#,
                poly(&[(0.0, -1.1), (1.0, 0.8), (-1.0, 0.8)])
            )),
            Shape::TriangleDown => self.line(format_args!(
                r#"<polygon points="{}" {common}/>"#,
                poly(&[(0.0, 1.1), (1.0, -0.8), (-1.0, -0.8)])
            )),
            Shape::Diamond => self.line(format_args!(
                r#"<polygon points="{}" {common}/>"#,
                poly(&[(0.0, -1.2), (1.0, 0.0), (0.0, 1.2), (-1.0, 0.0)])
            )),
            Shape::Cross => self.line(format_args!(
                r#"<path d="M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" stroke="{color}" stroke-width="2.2" fill="none"/>"#,
                x - r,
                y - r,
                x + r,
                y + r,
                x - r,
                y + r,
                x + r,
                y - r
            )),
        }
    }
}

/// A point's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// A triangle pointing up.
    TriangleUp,
    /// A diamond.
    Diamond,
    /// A triangle pointing down.
    TriangleDown,
    /// An ×.
    Cross,
}

/// Points as an SVG `points` list: `x,y x,y`, one decimal each.
pub fn points(pts: &[(f64, f64)]) -> String {
    pts.iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The logarithm an axis is scaled by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Log {
    /// Base 2 (message lengths, ratios).
    Two,
    /// Base 10 (per-byte figures).
    Ten,
}

impl Log {
    /// The logarithm of `v`.
    pub fn of(self, v: f64) -> f64 {
        match self {
            Log::Two => v.log2(),
            Log::Ten => v.log10(),
        }
    }
}

/// A logarithmic axis: the logarithms `low`..`high` over `length` pixels
/// from `origin`, rightwards (x) or upwards (y, `up`).
#[derive(Clone, Copy, Debug)]
pub struct LogAxis {
    /// The logarithm's base.
    pub log: Log,
    /// The logarithm at the origin.
    pub low: f64,
    /// The logarithm at the far end.
    pub high: f64,
    /// The origin's pixel.
    pub origin: f64,
    /// The axis' length in pixels.
    pub length: f64,
    /// Whether the axis runs upwards (towards smaller pixels).
    pub up: bool,
}

impl LogAxis {
    /// The pixel of `v`.
    pub fn at(&self, v: f64) -> f64 {
        let t = (self.log.of(v) - self.low) / (self.high - self.low) * self.length;
        if self.up {
            self.origin - t
        } else {
            self.origin + t
        }
    }
}
