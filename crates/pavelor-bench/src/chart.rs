//! A small SVG line chart: cycles per byte against message length, both on
//! logarithmic axes.

use std::fmt::Write as _;

/// One line of the chart.
pub struct Series {
    /// Legend text.
    pub label: String,
    /// (message bytes, cycles per byte), in increasing x.
    pub points: Vec<(f64, f64)>,
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

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Writes a legend entry's text at `x`, and moves `y` to the next entry.
fn legend_label(svg: &mut String, x: f64, y: &mut f64, label: &str) {
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}">{}</text>"#,
        x + 24.0,
        *y + 4.0,
        escape(label)
    );
    *y += 18.0;
}

/// Renders the chart as a standalone SVG document.
pub fn render(title: &str, y_unit: &str, series: &[Series], markers: &[Marker]) -> String {
    let (w, h) = (760.0, 440.0);
    let (left, right, top, bottom) = (70.0, 230.0, 40.0, 50.0);
    let ys = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .chain(markers.iter().map(|m| m.y));
    let xs = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .chain(markers.iter().map(|m| m.x));
    let positive = |v: f64| v.is_finite() && v > 0.0;
    let (ymin, ymax) = ys
        .filter(|v| positive(*v))
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let (xmin, xmax) = xs
        .filter(|v| positive(*v))
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
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
    let px = |x: f64| left + (x.log2() - x0) / (x1 - x0) * pw;
    let py = |y: f64| top + ph - (y.log10() - y0) / (y1 - y0) * ph;
    let _ = writeln!(
        svg,
        r##"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>"##
    );
    let mut d = y0;
    while d <= y1 {
        let y = top + ph - (d - y0) / (y1 - y0) * ph;
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
        let x = left + (e - x0) / (x1 - x0) * pw;
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
    let mut legend_y = top + 10.0;
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<String> = s
            .points
            .iter()
            .filter(|p| positive(p.0) && positive(p.1))
            .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1)))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            pts.join(" ")
        );
        for p in &pts {
            if let Some((x, y)) = p.split_once(',') {
                let _ = writeln!(svg, r#"<circle cx="{x}" cy="{y}" r="3" fill="{color}"/>"#);
            }
        }
        let lx = left + pw + 12.0;
        let _ = writeln!(
            svg,
            r#"<line x1="{lx}" x2="{}" y1="{legend_y}" y2="{legend_y}" stroke="{color}" stroke-width="2"/>"#,
            lx + 18.0
        );
        legend_label(&mut svg, lx, &mut legend_y, &s.label);
    }
    for m in markers.iter().filter(|m| positive(m.x) && positive(m.y)) {
        let (x, y) = (px(m.x), py(m.y));
        let _ = writeln!(
            svg,
            r##"<rect x="{:.1}" y="{:.1}" width="8" height="8" fill="#000" transform="rotate(45 {x:.1} {y:.1})"/>"##,
            x - 4.0,
            y - 4.0
        );
        let lx = left + pw + 12.0;
        let _ = writeln!(
            svg,
            r##"<rect x="{}" y="{}" width="8" height="8" fill="#000"/>"##,
            lx + 5.0,
            legend_y - 4.0
        );
        legend_label(&mut svg, lx, &mut legend_y, &m.label);
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_lines_markers_and_escapes() {
        let s = render(
            "a<b",
            "cycles",
            &[Series {
                label: "x&y".into(),
                points: vec![(32.0, 100.0), (65536.0, 1.5)],
            }],
            &[Marker {
                label: "ref".into(),
                x: 65536.0,
                y: 190.0,
            }],
        );
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert!(s.contains("a&lt;b") && s.contains("x&amp;y") && s.contains("polyline"));
        assert!(render("t", "c", &[], &[]).contains("no data"));
    }
}
