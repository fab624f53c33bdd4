#!/usr/bin/env python3
"""Renders HTML pages in headless Chromium and checks what the browser made
of them.

    scripts/check-pages-in-browser.py PAGE_OR_DIR...

For every page (every *.html under a directory):
  * a PNG screenshot is saved next to it (page.html -> page.png), at a
    desktop width and at a phone width (page.narrow.png);
  * the DOM Chromium built (--dump-dom) must hold every table and every
    chart (inline <svg>) of the file, and no script;
  * every relative link and image in that DOM must lead to a file that
    exists, and every #fragment to an element with that id, in the page it
    points to;
  * Chromium's network log of the page must show no request to the
    network: file:// only.
Exits 1 naming each problem; prints one line per page otherwise.
"""

import html.parser
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
    "--disable-extensions", "--hide-scrollbars",
]


class Dom(html.parser.HTMLParser):
    """Counts of tables, charts and scripts, every link, and every id."""

    def __init__(self):
        super().__init__()
        self.tables = self.svgs = self.scripts = 0
        self.links = []
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "table":
            self.tables += 1
        elif tag == "svg":
            self.svgs += 1
        elif tag == "script":
            self.scripts += 1
        for key in ("href", "src"):
            if a.get(key) is not None:
                self.links.append((tag, key, a[key]))


def parse(text):
    d = Dom()
    d.feed(text)
    return d


def chromium(args, timeout=90):
    with tempfile.TemporaryDirectory(prefix="pavelor-chromium-") as profile:
        return subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, timeout=timeout)


def ids_of(path, cache={}):
    if path not in cache:
        cache[path] = parse(path.read_text(encoding="utf-8")).ids
    return cache[path]


def network_requests(netlog):
    """URLs other than file: and data: that the page asked for: requests
    started by a web origin. Chromium's own background requests (its
    component updater, network time, account checks), which no page makes,
    start with the initiator "not an origin" and are not the page's."""
    try:
        log = json.loads(netlog.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return [f"(no readable network log: {e})"]
    start_job = log.get("constants", {}).get("logEventTypes", {}).get("URL_REQUEST_START_JOB")
    if start_job is None:
        return ["(the network log names no URL_REQUEST_START_JOB events)"]
    seen = []
    for event in log.get("events", []):
        if event.get("type") != start_job:
            continue
        params = event.get("params") or {}
        url = params.get("url", "")
        if not url or url.startswith(("file:", "data:", "about:", "chrome:")):
            continue
        if params.get("initiator") == "not an origin":
            continue
        if url not in seen:
            seen.append(url)
    return seen


def check_page(page):
    problems = []
    source = parse(page.read_text(encoding="utf-8"))
    uri = page.resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="pavelor-netlog-") as tmp:
        netlog = pathlib.Path(tmp) / "net.json"
        dump = chromium(["--virtual-time-budget=2000", f"--log-net-log={netlog}",
                         "--net-log-capture-mode=Everything", "--dump-dom", uri])
        if dump.returncode != 0 or "<html" not in dump.stdout:
            return [f"{page}: Chromium could not render it (exit {dump.returncode}): {dump.stderr.strip()[-300:]}"], None
        for url in network_requests(netlog):
            problems.append(f"{page}: the browser requested {url}")
    dom = parse(dump.stdout)
    if dom.tables < source.tables:
        problems.append(f"{page}: {dom.tables} tables rendered of {source.tables}")
    if dom.svgs < source.svgs:
        problems.append(f"{page}: {dom.svgs} charts rendered of {source.svgs}")
    if dom.scripts or source.scripts:
        problems.append(f"{page}: has a script")
    for tag, key, link in dom.links:
        parts = urllib.parse.urlsplit(link)
        if parts.scheme in ("http", "https", "mailto"):
            if key == "src" or tag == "link":
                problems.append(f"{page}: <{tag} {key}> loads from the network: {link}")
            continue
        if parts.scheme or parts.netloc:
            problems.append(f"{page}: link {link} is not relative")
            continue
        target = page if not parts.path else (page.parent / urllib.parse.unquote(parts.path))
        if not target.exists():
            problems.append(f"{page}: broken link {link}")
            continue
        if parts.fragment and target.suffix == ".html":
            if urllib.parse.unquote(parts.fragment) not in ids_of(target.resolve()):
                problems.append(f"{page}: link {link}: no element with that id")
    shot = page.with_suffix(".png")
    narrow = page.with_suffix(".narrow.png")
    for out, size in ((shot, "1280,2400"), (narrow, "412,2400")):
        r = chromium([f"--window-size={size}", f"--screenshot={out}", uri])
        if r.returncode != 0 or not out.is_file() or out.stat().st_size < 2000:
            problems.append(f"{page}: no screenshot {out.name} (exit {r.returncode})")
    summary = f"{page}: {dom.tables} tables, {dom.svgs} charts, {len(dom.links)} links, screenshots {shot.name} {narrow.name}"
    return problems, summary


def main():
    if CHROMIUM is None:
        print("check-pages-in-browser: no chromium on PATH", file=sys.stderr)
        return 2
    pages = []
    for arg in sys.argv[1:]:
        p = pathlib.Path(arg)
        pages.extend(sorted(p.rglob("*.html")) if p.is_dir() else [p])
    if not pages:
        print("check-pages-in-browser: no pages given", file=sys.stderr)
        return 2
    failed = False
    for page in pages:
        problems, summary = check_page(page)
        for p in problems:
            print(p, file=sys.stderr)
        failed |= bool(problems)
        if summary and not problems:
            print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
