//! The page writers of pavelor's reports, `compare` and the site: what a
//! page looks like, apart from what it says.
//!
//! * [`html`] — a Markdown page as one self-contained HTML file (no
//!   script, nothing fetched), every string through one filter and one
//!   escape ([`html::escape`]).
//! * [`plot`] — the one SVG writer behind every chart: the document, escaped
//!   text, logarithmic axes, point shapes and polylines.
//! * [`svg_chart`] — the line charts of the report (log axes, bands,
//!   markers), drawn with [`plot`].
//!
//! Nothing here measures or reads evidence: the callers say what to draw.

#![forbid(unsafe_code)]

pub mod html;
pub mod plot;
pub mod svg_chart;
