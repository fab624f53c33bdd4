#!/usr/bin/env python3
"""Checks that the length sweep's charts show the staircase once a browser
has drawn them.

    scripts/check-sweep-chart.py OUT_DIR SWEEP_SVG...

Each SWEEP_SVG (the sweep-pavelor-*.svg of a report that swept the full
plan; a --quick sweep draws only the neighbourhood of each boundary, where
no straight line can be told from a step) is rendered by headless
Chromium at its own size and scale 1, and the screenshot (OUT_DIR/NAME.png)
is read back pixel by pixel (PNG decoded here, standard library only). In
every row's zoomed plot (0-1024 B, the right-hand frame), the pixels of the
row's line colour are found column by column; a rise is a column whose line
the line's height just right of each dotted block boundary is set against
its height just left of it (the median over up to 5 columns each side,
fewer where boundaries are close). The chart passes when, in every row, at
least MATCHED of the boundaries rise by RISE pixels or more and, where the
line is drawn between boundaries too, it rises at least twice as much
across a boundary as across the midpoint between two (the median of each).

The checker must fail what it claims to catch: every chart is also drawn
with each line straightened (the same end points, no steps), and that
drawing must fail. Exits 1 naming each problem.
"""

import math
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
    "--force-device-scale-factor=1", "--default-background-color=ffffffff",
]
RISE = 3
MATCHED = 0.6
COLOR_DISTANCE = 90


def decode_png(data):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB/RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour})")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + pred) & 0xFF
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        previous = line
    return width, height, rows


def parse_chart(svg):
    """Per row: its zoom frame (left, top, width, height), its line colour,
    and the x of each block boundary in the zoom frame. A row draws its
    whole-range plot, then its zoom: each a frame, the boundaries, the
    band and the line, in that order."""
    element = re.compile(
        r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none" stroke="#999"/>'
        r'|<path d="([^"]*)" stroke="#bbb"'
        r'|<polyline points="[^"]*" fill="none" stroke="(#[0-9a-f]{6})"')
    plots = []
    for m in element.finditer(svg):
        if m.group(1) is not None:
            plots.append({"frame": tuple(float(m.group(i)) for i in range(1, 5)),
                          "boundaries": [], "colour": None})
        elif not plots:
            continue
        elif m.group(5) is not None:
            plots[-1]["boundaries"] = [float(x) for x in re.findall(r"M([\d.]+),", m.group(5))]
        else:
            plots[-1]["colour"] = m.group(6)
    return [(p["frame"], p["colour"], p["boundaries"]) for p in plots[1::2]]


def straightened(svg):
    """The chart with every line replaced by the straight line between its
    end points: no step can survive."""
    def straight(m):
        points = [tuple(map(float, p.split(","))) for p in m.group(1).split()]
        (x0, y0), (x1, y1) = points[0], points[-1]
        span = (x1 - x0) or 1.0
        flat = " ".join(f"{x:.1f},{y0 + (y1 - y0) * (x - x0) / span:.1f}" for x, _ in points)
        return f'<polyline points="{flat}"'
    return re.sub(r'<polyline points="([^"]*)"', straight, svg)


def render(svg_path, png_path, width, height):
    with tempfile.TemporaryDirectory(prefix="pavelor-chromium-") as profile:
        r = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
             f"--screenshot={png_path}", pathlib.Path(svg_path).resolve().as_uri()],
            capture_output=True, text=True, timeout=90)
    if r.returncode != 0 or not png_path.exists():
        raise RuntimeError(f"chromium made no screenshot of {svg_path} (exit {r.returncode})")


def near(pixel, colour):
    return sum((a - b) ** 2 for a, b in zip(pixel, colour)) <= COLOR_DISTANCE ** 2


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def jump(spans, x, reach):
    """How far the line's middle rises (in pixels) from the `reach` columns
    left of `x` to the `reach` columns right of it, or None where either
    side has no line. The column that holds `x` mixes lengths from both
    sides of it, so it counts on neither."""
    c = math.floor(x)
    before = [sum(spans[i]) / 2 for i in range(c - reach, c) if i in spans]
    after = [sum(spans[i]) / 2 for i in range(c + 1, c + 1 + reach) if i in spans]
    if not before or not after:
        return None
    return median(before) - median(after)


def check_png(png_path, chart_rows):
    """Problems found in one screenshot, and one summary per row."""
    _, _, pixels = decode_png(png_path.read_bytes())
    problems, summaries = [], []
    for k, ((left, top, width, height), colour, boundaries) in enumerate(chart_rows):
        if colour is None:
            problems.append(f"row {k + 1}: no line")
            continue
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        spans = {}
        for x in range(int(left) + 1, int(left + width)):
            ys = [y for y in range(int(top) + 1, int(top + height))
                  if near(pixels[y][x], rgb)]
            if ys:
                spans[x] = (min(ys), max(ys))
        if len(spans) < 2:
            problems.append(f"row {k + 1}: its line ({colour}) is not drawn")
            continue
        mids = [(p + q) / 2 for p, q in zip(boundaries, boundaries[1:])]
        spacing = boundaries[1] - boundaries[0] if len(boundaries) > 1 else width
        reach = max(1, min(5, int(spacing / 2) - 1))
        at = [j for j in (jump(spans, b, reach) for b in boundaries) if j is not None]
        between = [j for j in (jump(spans, m, reach) for m in mids) if j is not None]
        risen = sum(1 for j in at if j >= RISE)
        summary = f"row {k + 1}: {risen} of {len(boundaries)} boundaries rise {RISE}+ px"
        if between:
            summary += (f" (median {median(at):.1f} px; between them "
                        f"{median(between):.1f} px)")
        summaries.append(summary)
        if not boundaries or risen < MATCHED * len(boundaries):
            problems.append(f"row {k + 1}: steps at {risen} of {len(boundaries)} block "
                            f"boundaries (at least {MATCHED:.0%} wanted)")
        elif len(between) >= 2 and median(between) * 2 > median(at):
            problems.append(f"row {k + 1}: the line rises as much between the boundaries "
                            f"({median(between):.1f} px) as at them ({median(at):.1f} px)")
    return problems, summaries


def main():
    if len(sys.argv) < 3 or CHROMIUM is None:
        sys.exit(__doc__ if CHROMIUM else "check-sweep-chart: chromium is not installed")
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    problems = []
    for name in sys.argv[2:]:
        path = pathlib.Path(name)
        svg = path.read_text()
        size = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', svg)
        rows = parse_chart(svg)
        if not size or not rows:
            problems.append(f"{path}: not a sweep chart")
            continue
        width, height = int(size.group(1)), int(size.group(2))
        png = out / (path.stem + ".png")
        render(path, png, width, height)
        found, summaries = check_png(png, rows)
        problems += [f"{path.name}: {p}" for p in found]
        print(f"{path.name}: screenshot {png}: " + "; ".join(summaries))
        control_svg = out / (path.stem + ".straightened.svg")
        control_svg.write_text(straightened(svg))
        control_png = out / (path.stem + ".straightened.png")
        render(control_svg, control_png, width, height)
        control, _ = check_png(control_png, rows)
        if not control:
            problems.append(f"{path.name}: the straightened control drawing passed the check")
        else:
            print(f"{path.name}: the straightened control fails, as it must ({len(control)} rows)")
    for p in problems:
        print(f"check-sweep-chart: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
