//! A small SVG line chart: cycles per byte against message length, both on
//! logarithmic axes.
//!
//! Every series has its own colour, its own point shape and a line style
//! by family; each anchor marker has its own shape and colour and is drawn
//! beside the others at the same x, so none hides another; the legend
//! draws exactly the shape and line the plot uses; the bound is a thick
//! grey dashed line.

#![forbid(unsafe_code)]

use std::fmt::Write as _;

use crate::html::escape;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Cross,
}

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

/// Draws `shape` centred at (x, y) with radius `r`.
fn shape(svg: &mut String, shape: Shape, x: f64, y: f64, r: f64, color: &str, filled: bool) {
    let fill = if filled { color } else { "white" };
    let common = format!(r#"fill="{fill}" stroke="{color}" stroke-width="1.5""#);
    let poly = |pts: &[(f64, f64)]| {
        pts.iter()
            .map(|(a, b)| format!("{:.1},{:.1}", x + a * r, y + b * r))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = match shape {
        Shape::Circle => writeln!(
            svg,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" {common}/>"#,
            r * 0.9
        ),
        Shape::Square => writeln!(
            svg,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {common}/>"#,
            x - r * 0.8,
            y - r * 0.8,
            r * 1.6,
            r * 1.6
        ),
        Shape::TriangleUp => writeln!(
            svg,
            r#"<polygon points="{}" {common}/>"#,
            poly(&[(0.0, -1.1), (1.0, 0.8), (-1.0, 0.8)])
        ),
        Shape::TriangleDown => writeln!(
            svg,
            r#"<polygon points="{}" {common}/>"#,
            poly(&[(0.0, 1.1), (1.0, -0.8), (-1.0, -0.8)])
        ),
        Shape::Diamond => writeln!(
            svg,
            r#"<polygon points="{}" {common}/>"#,
            poly(&[(0.0, -1.2), (1.0, 0.0), (0.0, 1.2), (-1.0, 0.0)])
        ),
        Shape::Cross => writeln!(
            svg,
            r#"<path d="M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" stroke="{color}" stroke-width="2.2" fill="none"/>"#,
            x - r,
            y - r,
            x + r,
            y + r,
            x - r,
            y + r,
            x + r,
            y - r
        ),
    };
}

/// Writes a legend entry's text at `x`, and moves `y` to the next entry.
fn legend_label(svg: &mut String, x: f64, y: &mut f64, label: &str) {
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}">{}</text>"#,
        x + 30.0,
        *y + 4.0,
        escape(label)
    );
    *y += 18.0;
}

/// Renders the chart as a standalone SVG document.
pub fn render(
    title: &str,
    y_unit: &str,
    series: &[Series],
    markers: &[Marker],
    bound: Option<&Bound>,
) -> String {
    let (w, h) = (900.0, 460.0);
    let (left, right, top, bottom) = (70.0, 320.0, 40.0, 50.0);
    let bound_pts = bound.map_or(&[][..], |b| b.points.as_slice());
    let all = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .chain(markers.iter().map(|m| (m.x, m.y)))
        .chain(bound_pts.iter().copied());
    let positive = |v: f64| v.is_finite() && v > 0.0;
    let (mut xmin, mut xmax, mut ymin, mut ymax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (x, y) in all.filter(|p| positive(p.0) && positive(p.1)) {
        xmin = xmin.min(x);
        xmax = xmax.max(x);
        ymin = ymin.min(y);
        ymax = ymax.max(y);
    }
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#,
        w / 2.0,
        escape(title)
    );
    if ymin > ymax || xmin > xmax {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">no data</text></svg>"#,
            w / 2.0,
            h / 2.0
        );
        return svg;
    }
    // Decades covering the y range; powers of two covering x.
    let (y0, y1) = (
        ymin.log10().floor(),
        ymax.log10().ceil().max(ymin.log10().floor() + 1.0),
    );
    let (x0, x1) = (
        xmin.log2().floor(),
        xmax.log2().ceil().max(xmin.log2().floor() + 1.0),
    );
    let (pw, ph) = (w - left - right, h - top - bottom);
    // Points keep `pad` pixels from the frame, so that markers at the ends
    // of the range stay inside it.
    let pad = 22.0;
    let px = |x: f64| left + pad + (x.log2() - x0) / (x1 - x0) * (pw - 2.0 * pad);
    let py = |y: f64| top + ph - pad - (y.log10() - y0) / (y1 - y0) * (ph - 2.0 * pad);
    let _ = writeln!(
        svg,
        r##"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>"##
    );
    let mut d = y0;
    while d <= y1 {
        let y = py(10f64.powf(d));
        let _ = writeln!(
            svg,
            r##"<line x1="{left}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/>"##,
            left + pw
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 6.0,
            y + 4.0,
            10f64.powf(d)
        );
        d += 1.0;
    }
    let mut e = x0;
    while e <= x1 {
        let x = px(2f64.powf(e));
        let bytes = 2f64.powf(e);
        let label = if bytes >= 1024.0 {
            format!("{}K", bytes / 1024.0)
        } else {
            format!("{bytes}")
        };
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{}" stroke="#eee"/>"##,
            top + ph
        );
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{}" text-anchor="middle">{label}</text>"#,
            top + ph + 16.0
        );
        e += 1.0;
    }
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">message length (bytes)</text>"#,
        left + pw / 2.0,
        h - 10.0
    );
    let _ = writeln!(
        svg,
        r#"<text transform="translate(18,{}) rotate(-90)" text-anchor="middle">{} per byte (log)</text>"#,
        top + ph / 2.0,
        escape(y_unit)
    );
    let lx = left + pw + 12.0;
    let mut legend_y = top + 10.0;
    let points = |pts: &[(f64, f64)]| -> Vec<(f64, f64)> {
        pts.iter()
            .filter(|p| positive(p.0) && positive(p.1))
            .map(|p| (px(p.0), py(p.1)))
            .collect()
    };
    let polyline = |pts: &[(f64, f64)]| {
        pts.iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if let Some(b) = bound {
        let pts = points(&b.points);
        let _ = writeln!(
            svg,
            r##"<polyline fill="none" stroke="#888" stroke-width="4" stroke-dasharray="10 5" points="{}"/>"##,
            polyline(&pts)
        );
        let _ = writeln!(
            svg,
            r##"<line x1="{lx}" x2="{}" y1="{legend_y}" y2="{legend_y}" stroke="#888" stroke-width="4" stroke-dasharray="10 5"/>"##,
            lx + 24.0
        );
        legend_label(&mut svg, lx, &mut legend_y, &b.label);
    }
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let form = SHAPES[(i + i / COLORS.len()) % SHAPES.len()];
        let pts = points(&s.points);
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2"{} points="{}"/>"#,
            s.style.dash(),
            polyline(&pts)
        );
        for &(x, y) in &pts {
            shape(&mut svg, form, x, y, 4.0, color, true);
        }
        let _ = writeln!(
            svg,
            r#"<line x1="{lx}" x2="{}" y1="{legend_y}" y2="{legend_y}" stroke="{color}" stroke-width="2"{}/>"#,
            lx + 24.0,
            s.style.dash()
        );
        shape(&mut svg, form, lx + 12.0, legend_y, 4.0, color, true);
        legend_label(&mut svg, lx, &mut legend_y, &s.label);
    }
    // Anchors at the same x are spread sideways so that none hides another.
    let visible: Vec<&Marker> = markers
        .iter()
        .filter(|m| positive(m.x) && positive(m.y))
        .collect();
    for (i, m) in visible.iter().enumerate() {
        let same_x = visible.iter().filter(|o| o.x == m.x).count();
        let rank = visible[..i].iter().filter(|o| o.x == m.x).count();
        let offset = (rank as f64 - (same_x as f64 - 1.0) / 2.0) * 16.0;
        let (form, color) = MARKER_STYLES[i % MARKER_STYLES.len()];
        shape(&mut svg, form, px(m.x) + offset, py(m.y), 6.0, color, false);
        shape(&mut svg, form, lx + 12.0, legend_y, 6.0, color, false);
        legend_label(&mut svg, lx, &mut legend_y, &m.label);
    }
    svg.push_str("</svg>\n");
    svg
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
