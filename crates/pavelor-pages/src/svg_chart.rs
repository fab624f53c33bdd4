//! A small SVG line chart: cycles per byte against message length, both on
//! logarithmic axes.
//!
//! Every series has its own colour, its own point shape and a line style
//! by family; each anchor marker has its own shape and colour and is drawn
//! beside the others at the same x, so none hides another; the legend
//! draws exactly the shape and line the plot uses; the bound is a thick
//! grey dashed line.

#![forbid(unsafe_code)]

use crate::html::escape;
use crate::plot::{Anchor, Log, LogAxis, Px, Shape, Svg, points};

/// How a series' line is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Solid (this crate's implementations).
    Solid,
    /// Dashed (C libraries).
    Dashed,
    /// Dotted (comparison hashes).
    Dotted,
}

impl Style {
    fn dash(self) -> &'static str {
        match self {
            Style::Solid => "",
            Style::Dashed => r#" stroke-dasharray="7 4""#,
            Style::Dotted => r#" stroke-dasharray="2 3""#,
        }
    }
}

/// One line of the chart.
pub struct Series {
    /// Legend text.
    pub label: String,
    /// (message bytes, cycles per byte), in increasing x.
    pub points: Vec<(f64, f64)>,
    /// Line style.
    pub style: Style,
}

/// A single marked point (an anchor figure).
pub struct Marker {
    /// Legend text.
    pub label: String,
    /// Message bytes.
    pub x: f64,
    /// Cycles per byte.
    pub y: f64,
}

/// A limit drawn as a line (the AES-throughput bound).
pub struct Bound {
    /// Legend text.
    pub label: String,
    /// (message bytes, cycles per byte).
    pub points: Vec<(f64, f64)>,
}

const COLORS: [&str; 12] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#7f7f7f", "#393b79", "#637939",
];

/// Point shapes, cycled with the colours (12 colours × 6 shapes).
const SHAPES: [Shape; 6] = [
    Shape::Circle,
    Shape::Square,
    Shape::TriangleUp,
    Shape::Diamond,
    Shape::TriangleDown,
    Shape::Cross,
];

/// Anchor markers: hollow shapes in dark colours, distinct from the
/// series' filled points.
const MARKER_STYLES: [(Shape, &str); 4] = [
    (Shape::Diamond, "#000080"),
    (Shape::TriangleUp, "#b8860b"),
    (Shape::Square, "#006400"),
    (Shape::TriangleDown, "#8b0000"),
];

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 460.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 320.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;
/// Points keep this many pixels from the frame, so that markers at the
/// ends of the range stay inside it.
const PAD: f64 = 22.0;

fn positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// The plot's axes: powers of two covering x, decades covering y.
struct Axes {
    x: LogAxis,
    y: LogAxis,
}

impl Axes {
    /// The axes covering every positive point, or `None` when there is
    /// none.
    fn covering(all: impl Iterator<Item = (f64, f64)>) -> Option<Axes> {
        let (mut xmin, mut xmax, mut ymin, mut ymax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for (x, y) in all.filter(|p| positive(p.0) && positive(p.1)) {
            xmin = xmin.min(x);
            xmax = xmax.max(x);
            ymin = ymin.min(y);
            ymax = ymax.max(y);
        }
        if ymin > ymax || xmin > xmax {
            return None;
        }
        let (y0, y1) = (
            ymin.log10().floor(),
            ymax.log10().ceil().max(ymin.log10().floor() + 1.0),
        );
        let (x0, x1) = (
            xmin.log2().floor(),
            xmax.log2().ceil().max(xmin.log2().floor() + 1.0),
        );
        let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        Some(Axes {
            x: LogAxis {
                log: Log::Two,
                low: x0,
                high: x1,
                origin: LEFT + PAD,
                length: pw - 2.0 * PAD,
                up: false,
            },
            y: LogAxis {
                log: Log::Ten,
                low: y0,
                high: y1,
                origin: TOP + ph - PAD,
                length: ph - 2.0 * PAD,
                up: true,
            },
        })
    }

    /// The positive points of `pts`, in pixels.
    fn pixels(&self, pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
        pts.iter()
            .filter(|p| positive(p.0) && positive(p.1))
            .map(|p| (self.x.at(p.0), self.y.at(p.1)))
            .collect()
    }

    /// The frame, the grid with its tick labels, and the axis titles.
    fn draw(&self, svg: &mut Svg, y_unit: &str) {
        let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        svg.line(format_args!(
            r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>"##
        ));
        let mut d = self.y.low;
        while d <= self.y.high {
            let y = self.y.at(10f64.powf(d));
            svg.line(format_args!(
                r##"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/>"##,
                LEFT + pw
            ));
            let label = 10f64.powf(d).to_string();
            svg.text(LEFT - 6.0, Px(y + 4.0), Anchor::End, "", &label);
            d += 1.0;
        }
        let mut e = self.x.low;
        while e <= self.x.high {
            let bytes = 2f64.powf(e);
            let x = self.x.at(bytes);
            let label = if bytes >= 1024.0 {
                format!("{}K", bytes / 1024.0)
            } else {
                format!("{bytes}")
            };
            svg.line(format_args!(
                r##"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{}" stroke="#eee"/>"##,
                TOP + ph
            ));
            svg.text(Px(x), TOP + ph + 16.0, Anchor::Middle, "", &label);
            e += 1.0;
        }
        svg.text(
            LEFT + pw / 2.0,
            HEIGHT - 10.0,
            Anchor::Middle,
            "",
            "message length (bytes)",
        );
        svg.line(format_args!(
            r#"<text transform="translate(18,{}) rotate(-90)" text-anchor="middle">{} per byte (log)</text>"#,
            TOP + ph / 2.0,
            escape(y_unit)
        ));
    }
}

/// The legend, right of the plot: one entry under the other.
struct Legend {
    x: f64,
    y: f64,
}

impl Legend {
    /// Writes an entry's text, its sample already drawn at the entry's
    /// line, and moves to the next entry.
    fn label(&mut self, svg: &mut Svg, label: &str) {
        svg.text(self.x + 30.0, self.y + 4.0, Anchor::Start, "", label);
        self.y += 18.0;
    }
}

/// Renders the chart as a standalone SVG document.
pub fn render(
    title: &str,
    y_unit: &str,
    series: &[Series],
    markers: &[Marker],
    bound: Option<&Bound>,
) -> String {
    let bound_pts = bound.map_or(&[][..], |b| b.points.as_slice());
    let all = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .chain(markers.iter().map(|m| (m.x, m.y)))
        .chain(bound_pts.iter().copied());
    let mut svg = Svg::chart(WIDTH, HEIGHT, title);
    let Some(axes) = Axes::covering(all) else {
        return svg.finish_with(format_args!(
            r#"<text x="{}" y="{}" text-anchor="middle">no data</text>"#,
            WIDTH / 2.0,
            HEIGHT / 2.0
        ));
    };
    axes.draw(&mut svg, y_unit);
    let mut legend = Legend {
        x: WIDTH - RIGHT + 12.0,
        y: TOP + 10.0,
    };
    if let Some(b) = bound {
        draw_bound(&mut svg, &axes, &mut legend, b);
    }
    for (i, s) in series.iter().enumerate() {
        draw_series(&mut svg, &axes, &mut legend, i, s);
    }
    draw_markers(&mut svg, &axes, &mut legend, markers);
    svg.finish()
}

/// The bound: a thick grey dashed line, and its legend entry.
fn draw_bound(svg: &mut Svg, axes: &Axes, legend: &mut Legend, b: &Bound) {
    svg.line(format_args!(
        r##"<polyline fill="none" stroke="#888" stroke-width="4" stroke-dasharray="10 5" points="{}"/>"##,
        points(&axes.pixels(&b.points))
    ));
    let (lx, ly) = (legend.x, legend.y);
    svg.line(format_args!(
        r##"<line x1="{lx}" x2="{}" y1="{ly}" y2="{ly}" stroke="#888" stroke-width="4" stroke-dasharray="10 5"/>"##,
        lx + 24.0
    ));
    legend.label(svg, &b.label);
}

/// The `i`th series: its line, its points, and its legend entry.
fn draw_series(svg: &mut Svg, axes: &Axes, legend: &mut Legend, i: usize, s: &Series) {
    let color = COLORS[i % COLORS.len()];
    let form = SHAPES[(i + i / COLORS.len()) % SHAPES.len()];
    let pts = axes.pixels(&s.points);
    svg.line(format_args!(
        r#"<polyline fill="none" stroke="{color}" stroke-width="2"{} points="{}"/>"#,
        s.style.dash(),
        points(&pts)
    ));
    for &p in &pts {
        svg.shape(form, p, 4.0, color, true);
    }
    let (lx, ly) = (legend.x, legend.y);
    svg.line(format_args!(
        r#"<line x1="{lx}" x2="{}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"{}/>"#,
        lx + 24.0,
        s.style.dash()
    ));
    svg.shape(form, (lx + 12.0, ly), 4.0, color, true);
    legend.label(svg, &s.label);
}

/// The anchors, hollow; those at the same x are spread sideways so that
/// none hides another.
fn draw_markers(svg: &mut Svg, axes: &Axes, legend: &mut Legend, markers: &[Marker]) {
    let visible: Vec<&Marker> = markers
        .iter()
        .filter(|m| positive(m.x) && positive(m.y))
        .collect();
    for (i, m) in visible.iter().enumerate() {
        let same_x = visible.iter().filter(|o| o.x == m.x).count();
        let rank = visible[..i].iter().filter(|o| o.x == m.x).count();
        let offset = (rank as f64 - (same_x as f64 - 1.0) / 2.0) * 16.0;
        let (form, color) = MARKER_STYLES[i % MARKER_STYLES.len()];
        let at = (axes.x.at(m.x) + offset, axes.y.at(m.y));
        svg.shape(form, at, 6.0, color, false);
        svg.shape(form, (legend.x + 12.0, legend.y), 6.0, color, false);
        legend.label(svg, &m.label);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> String {
        render(
            "a<b",
            "cycles",
            &[Series {
                label: "x&y".into(),
                points: vec![(32.0, 100.0), (65536.0, 1.5)],
                style: Style::Dashed,
            }],
            &[
                Marker {
                    label: "ref x86".into(),
                    x: 65536.0,
                    y: 190.0,
                },
                Marker {
                    label: "ref arm".into(),
                    x: 65536.0,
                    y: 187.0,
                },
            ],
            Some(&Bound {
                label: "bound".into(),
                points: vec![(32.0, 10.0), (65536.0, 0.9)],
            }),
        )
    }

    #[test]
    fn renders_lines_markers_bound_and_escapes() {
        let s = sample();
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert!(s.contains("a&lt;b") && s.contains("x&amp;y") && s.contains("polyline"));
        assert!(s.contains(r#"stroke-dasharray="10 5""#), "bound line");
        assert!(render("t", "c", &[], &[], None).contains("no data"));
    }

    #[test]
    fn anchors_differ_and_the_legend_shows_the_plotted_shapes() {
        let s = sample();
        // Each anchor: one plotted shape and one legend shape, hollow, in
        // its own colour.
        for color in [MARKER_STYLES[0].1, MARKER_STYLES[1].1] {
            assert_eq!(
                s.matches(&format!(r#"stroke="{color}""#)).count(),
                2,
                "{color}"
            );
        }
        assert_ne!(MARKER_STYLES[0].0, MARKER_STYLES[1].0);
        // The two anchors at the same x are drawn at different x.
        let xs: Vec<&str> = s
            .lines()
            .filter(|l| {
                l.contains(r##"fill="white" stroke="#000080""##)
                    || l.contains(r##"fill="white" stroke="#b8860b""##)
            })
            .collect();
        assert_eq!(xs.len(), 4);
        assert_ne!(xs[0], xs[2]);
    }
}
