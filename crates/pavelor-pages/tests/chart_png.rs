//! The report's SVG chart renders (resvg) to a PNG in which every series,
//! both anchors and the bound are visible: each one's colour is found in
//! the picture, and the two anchors at the same point do not cover each
//! other. The PNG is left in `CARGO_TARGET_TMPDIR/chart.png` to look at.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor_pages::svg_chart::{Bound, Marker, Series, Style, render};

fn curve(at_32: f64, at_64k: f64) -> Vec<(f64, f64)> {
    let sizes = [32.0, 128.0, 512.0, 1024.0, 4096.0, 8192.0, 16384.0, 65536.0];
    sizes
        .iter()
        .map(|&n: &f64| {
            // Fixed cost per call plus a per-byte cost, as cycles/byte.
            let per_byte = at_64k;
            let fixed = (at_32 - at_64k) * 32.0;
            (n, per_byte + fixed / n)
        })
        .collect()
}

fn color_count(png: &resvg::tiny_skia::Pixmap, hex: &str) -> usize {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
    let (r, g, b) = ((v >> 16) as u8, (v >> 8) as u8, v as u8);
    png.pixels()
        .iter()
        .filter(|p| {
            let c = p.demultiply();
            c.alpha() > 200
                && c.red().abs_diff(r) < 8
                && c.green().abs_diff(g) < 8
                && c.blue().abs_diff(b) < 8
        })
        .count()
}

#[test]
fn chart_renders_to_png_with_everything_visible() {
    let series = vec![
        Series {
            label: "Rust avx512-vaes".into(),
            points: curve(30.0, 0.9),
            style: Style::Solid,
        },
        Series {
            label: "Rust aesni".into(),
            points: curve(20.0, 0.95),
            style: Style::Solid,
        },
        Series {
            label: "Rust portable".into(),
            points: curve(1200.0, 60.0),
            style: Style::Solid,
        },
        Series {
            label: "C library subref".into(),
            points: curve(540.0, 88.0),
            style: Style::Dashed,
        },
        Series {
            label: "C library subaesni".into(),
            points: curve(6.0, 0.89),
            style: Style::Dashed,
        },
        Series {
            label: "SHA-512 (comparison)".into(),
            points: curve(40.0, 2.3),
            style: Style::Dotted,
        },
        Series {
            label: "BLAKE3 (512-bit output) (comparison)".into(),
            points: curve(15.0, 0.3),
            style: Style::Dotted,
        },
    ];
    let markers = [
        Marker {
            label: "reference C, x86_1 (NICCS)".into(),
            x: 65536.0,
            y: 192.9,
        },
        Marker {
            label: "reference C, arm_1 (NICCS)".into(),
            x: 65536.0,
            y: 187.5,
        },
    ];
    let bound = Bound {
        label: "AES-throughput bound (one message)".into(),
        points: curve(5.0, 0.86),
    };
    let svg = render(
        "Pavelor-512: TSC ticks per byte",
        "TSC ticks",
        &series,
        &markers,
        Some(&bound),
    );
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    opt.fontdb_mut().set_sans_serif_family("DejaVu Sans");
    let tree = resvg::usvg::Tree::from_str(&svg, &opt).expect("a valid SVG");
    let size = tree.size().to_int_size();
    assert_eq!((size.width(), size.height()), (900, 460));
    let mut png = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut png.as_mut(),
    );
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("chart.png");
    png.save_png(&path).unwrap();

    // Every series colour, both anchors' colours and the bound's grey appear.
    for (what, hex) in [
        ("series 1", "#1f77b4"),
        ("series 2", "#d62728"),
        ("series 3", "#2ca02c"),
        ("series 4", "#9467bd"),
        ("series 5", "#ff7f0e"),
        ("series 6", "#8c564b"),
        ("series 7", "#e377c2"),
        ("anchor x86_1", "#000080"),
        ("anchor arm_1", "#b8860b"),
        ("bound", "#888888"),
    ] {
        assert!(color_count(&png, hex) > 20, "{what} ({hex}) not visible");
    }
    // The x86_1 anchor is not covered by the arm_1 one drawn after it at
    // the same message length: as many of its pixels show as when it is
    // drawn alone (plot and legend symbol).
    let alone = {
        let one = render("t", "u", &[], &markers[..1], None);
        let tree = resvg::usvg::Tree::from_str(&one, &opt).unwrap();
        let mut p = resvg::tiny_skia::Pixmap::new(900, 460).unwrap();
        resvg::render(
            &tree,
            resvg::tiny_skia::Transform::default(),
            &mut p.as_mut(),
        );
        color_count(&p, "#000080")
    };
    assert!(
        color_count(&png, "#000080") * 10 >= alone * 9,
        "the x86_1 anchor is partly hidden"
    );
}
