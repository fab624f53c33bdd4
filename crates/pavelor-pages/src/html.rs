//! Markdown pages as self-contained HTML files: the CSS inline, every
//! chart the page shows inlined as SVG, no script, and a content security
//! policy that forbids the browser to fetch anything. Headings get the
//! anchors GitHub gives them, so a page's `#section` links work in both
//! renderings.

use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd, html};

/// The browser may fetch nothing for a page: no script, style sheet,
/// image, font or frame from anywhere; inline styles and `data:` images
/// only.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'";

const STYLE: &str = r#"
:root { color-scheme: light; --rule: #c9ced6; --head: #eef1f5; --ink: #1b1f24; --link: #0b57a4; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; font: 15px/1.5 system-ui, "DejaVu Sans", Helvetica, Arial, sans-serif; }
main { max-width: 78rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
nav.site { max-width: 78rem; margin: 0 auto; padding: .5rem 1.25rem; border-bottom: 1px solid var(--rule); font-size: .92rem; }
nav.site a { margin-right: .9rem; }
h1 { font-size: 1.55rem; line-height: 1.25; }
h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid var(--rule); padding-bottom: .2rem; }
h3 { font-size: 1.08rem; margin-top: 1.5rem; }
a { color: var(--link); }
code { font: .88em/1.4 "DejaVu Sans Mono", Menlo, Consolas, monospace; background: #f3f4f6; padding: 0 .2em; border-radius: 3px; overflow-wrap: anywhere; }
pre { overflow-x: auto; background: #f3f4f6; padding: .6rem .8rem; border-radius: 4px; }
pre code { background: none; padding: 0; }
td code, th code { overflow-wrap: normal; white-space: nowrap; }
.scroll { overflow-x: auto; margin: .8rem 0; }
table { border-collapse: collapse; font-size: .9rem; }
th, td { border: 1px solid var(--rule); padding: .25rem .5rem; vertical-align: top; }
th { background: var(--head); text-align: left; }
td[style*="right"], th[style*="right"] { font-variant-numeric: tabular-nums; white-space: nowrap; }
figure.chart { margin: 1rem 0; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
figure.chart figcaption { font-size: .85rem; color: #555; }
blockquote { margin: .8rem 0; padding: .2rem 1rem; border-left: 4px solid var(--rule); color: #333; }
@media (max-width: 40rem) {
  body { font-size: 14px; }
  main, nav.site { padding-left: .6rem; padding-right: .6rem; }
  th, td { padding: .2rem .3rem; }
}
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  nav.site { display: none; }
  a { color: inherit; }
  .scroll { overflow: visible; }
  table { font-size: 8pt; }
  tr, figure.chart { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
}
"#;

/// One page to render.
pub struct Page<'a> {
    /// The document title (the first heading is a good one).
    pub title: &'a str,
    /// The page, in CommonMark with GitHub tables.
    pub markdown: &'a str,
    /// Images the page shows that are to be inlined: (the image's link as
    /// the Markdown writes it, the SVG document). An image that is not
    /// listed stays a link, shown by its alternative text.
    pub svgs: &'a [(String, String)],
    /// Navigation links above the page: (text, relative link).
    pub nav: &'a [(String, String)],
}

/// The GitHub anchor of a heading's text: lower case, punctuation other
/// than `-` and `_` dropped, each space a `-`.
pub fn anchor(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c == ' ' {
                Some('-')
            } else if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else {
                None
            }
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// Text escaped for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An SVG document as an element to put in HTML: without an XML
/// declaration or doctype before its `<svg`.
fn svg_element(svg: &str) -> &str {
    svg.find("<svg").map_or("", |i| svg[i..].trim_end())
}

/// `event` with nothing in it that the page's author did not write as
/// markup: raw HTML (which pavelor's Markdown does not have, so it came
/// from a dataset) as text, and a link or image whose target could run
/// something (`javascript:` and the like) pointed at `#`. Every event of a
/// page goes through here, inside headings, links and image descriptions
/// too.
fn defuse(event: Event<'_>) -> Event<'_> {
    match event {
        Event::Html(t) | Event::InlineHtml(t) => Event::Text(t),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_dest(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: safe_dest(dest_url),
            title,
            id,
        }),
        other => other,
    }
}

/// `dest` if [`safe_link`], else `#`.
fn safe_dest(dest: CowStr<'_>) -> CowStr<'_> {
    if safe_link(&dest) {
        dest
    } else {
        CowStr::Borrowed("#")
    }
}

/// Events of `markdown`, each [`defuse`]d, with heading anchors, tables in
/// a scrolling box and the listed images inlined.
fn events<'a>(markdown: &'a str, svgs: &'a [(String, String)]) -> Vec<Event<'a>> {
    let mut out = Vec::new();
    let mut used = std::collections::HashMap::<String, usize>::new();
    let mut parser = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(defuse);
    while let Some(event) = parser.next() {
        match event {
            Event::Start(Tag::Heading {
                level,
                id: None,
                classes,
                attrs,
            }) => {
                let mut inner = Vec::new();
                let mut text = String::new();
                for e in parser.by_ref() {
                    match &e {
                        Event::End(TagEnd::Heading(_)) => break,
                        Event::Text(t) | Event::Code(t) => text.push_str(t),
                        _ => {}
                    }
                    inner.push(e);
                }
                let base = anchor(&text);
                let n = used.entry(base.clone()).or_insert(0);
                let id = if *n == 0 { base } else { format!("{base}-{n}") };
                *n += 1;
                out.push(Event::Start(Tag::Heading {
                    level,
                    id: Some(CowStr::from(id)),
                    classes,
                    attrs,
                }));
                out.extend(inner);
                out.push(Event::End(TagEnd::Heading(level)));
            }
            Event::Start(Tag::Table(a)) => {
                out.push(Event::Html(CowStr::Borrowed("<div class=\"scroll\">")));
                out.push(Event::Start(Tag::Table(a)));
            }
            Event::End(TagEnd::Table) => {
                out.push(Event::End(TagEnd::Table));
                out.push(Event::Html(CowStr::Borrowed("</div>\n")));
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let Some((_, svg)) = svgs.iter().find(|(link, _)| **link == *dest_url) else {
                    out.push(Event::Start(Tag::Image {
                        link_type,
                        dest_url,
                        title,
                        id,
                    }));
                    continue;
                };
                let mut alt = String::new();
                for e in parser.by_ref() {
                    match e {
                        Event::End(TagEnd::Image) => break,
                        Event::Text(t) | Event::Code(t) => alt.push_str(&t),
                        _ => {}
                    }
                }
                let (svg, alt) = (svg_element(svg), escape(&alt));
                out.push(Event::Html(CowStr::from(format!(
                    "<figure class=\"chart\" role=\"img\" aria-label=\"{alt}\">{svg}<figcaption>{alt}</figcaption></figure>"
                ))));
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether a link target is relative, a fragment, or http(s) or mailto.
fn safe_link(dest: &str) -> bool {
    let scheme_end = dest.find(':');
    let path_start = dest.find(['/', '?', '#']);
    match (scheme_end, path_start) {
        (Some(c), Some(p)) if p < c => true,
        (Some(c), _) => {
            let scheme = dest[..c].to_ascii_lowercase();
            ["http", "https", "mailto"].contains(&scheme.as_str())
        }
        (None, _) => true,
    }
}

/// `s` as literal Markdown text: every ASCII punctuation character
/// backslash-escaped (so nothing in it is markup, a table's `|` or raw
/// HTML), and line breaks as spaces (so it stays in its table cell).
pub fn markdown_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` as literal Markdown text, unchanged where nothing in it is markup
/// (as [`pavelor_niccs::render::md_text`]): for strings in pages whose
/// Markdown of ordinary strings must stay as it was (`report.md`, which
/// `report --check` compares byte for byte).
pub fn markdown_literal(s: &str) -> String {
    pavelor_niccs::render::md_text(s)
}

/// `s` as a Markdown code span, delimiters included (as
/// [`pavelor_niccs::render::md_code`]).
pub fn markdown_code(s: &str) -> String {
    pavelor_niccs::render::md_code(s)
}

/// `s` as a Markdown link target, percent-encoded where it could end the
/// link or be markup (as [`pavelor_niccs::render::md_dest`]).
pub fn markdown_dest(s: &str) -> String {
    pavelor_niccs::render::md_dest(s)
}

/// The first level-1 heading of `markdown`, as text.
pub fn title_of(markdown: &str) -> Option<String> {
    let mut parser = Parser::new_ext(markdown, Options::ENABLE_TABLES);
    while let Some(e) = parser.next() {
        if let Event::Start(Tag::Heading {
            level: HeadingLevel::H1,
            ..
        }) = e
        {
            let mut text = String::new();
            for e in parser.by_ref() {
                match e {
                    Event::End(TagEnd::Heading(_)) => return Some(text),
                    Event::Text(t) | Event::Code(t) => text.push_str(&t),
                    _ => {}
                }
            }
        }
    }
    None
}

/// The whole HTML document of `page`.
pub fn render(page: &Page<'_>) -> String {
    let mut body = String::new();
    html::push_html(&mut body, events(page.markdown, page.svgs).into_iter());
    let mut out = String::with_capacity(body.len() + STYLE.len() + 512);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\">\n"
    ));
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!(
        "<meta name=\"generator\" content=\"pavelor {}\">\n",
        env!("CARGO_PKG_VERSION")
    ));
    out.push_str(&format!("<title>{}</title>\n", escape(page.title)));
    out.push_str("<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
    if !page.nav.is_empty() {
        out.push_str("<nav class=\"site\">");
        for (text, link) in page.nav {
            out.push_str(&format!(
                "<a href=\"{}\">{}</a>",
                escape(link),
                escape(text)
            ));
        }
        out.push_str("</nav>\n");
    }
    out.push_str("<main>\n");
    out.push_str(&body);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(markdown: &str) -> String {
        render(&Page {
            title: "t",
            markdown,
            svgs: &[],
            nav: &[],
        })
    }

    #[test]
    fn raw_html_and_script_links_do_not_reach_the_page() {
        let html = page(
            "# t\n\n<img src=x onerror=alert(1)> and <b>inline</b>\n\n[a](javascript:alert(1)) [b](JavaScript:x) [c](data:text/html,x) [ok](x/y.html) [ok2](https://e.org/a:b) [f](#sec)\n",
        );
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
        assert!(!html.to_ascii_lowercase().contains("javascript:"), "{html}");
        assert!(!html.contains("data:text"), "{html}");
        for ok in [
            "href=\"x/y.html\"",
            "href=\"https://e.org/a:b\"",
            "href=\"#sec\"",
        ] {
            assert!(html.contains(ok), "{ok}: {html}");
        }
    }

    #[test]
    fn headings_links_and_images_are_defused_too() {
        let html = page(
            "# on <script>x</script><img src=x onerror=y> [a](javascript:z) ![i](javascript:w)\n\n![j](vbscript:v)\n",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(html.contains("&lt;script&gt;x&lt;/script&gt;"), "{html}");
        assert!(!html.to_ascii_lowercase().contains("javascript:"), "{html}");
        assert!(!html.contains("vbscript:"), "{html}");
    }

    #[test]
    fn literal_code_and_link_targets() {
        let hostile = "a\"><img src=x onerror=y>[l](javascript:z)`c`|";
        let md = format!(
            "# {}\n\n| h |\n|---|\n| {} |\n\n[x](../{}/index.html)\n",
            markdown_literal(hostile),
            markdown_code(hostile),
            markdown_dest(hostile)
        );
        let html = page(&md);
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("href=\"javascript"), "{html}");
        assert!(
            html.contains("a\"&gt;&lt;img src=x onerror=y&gt;[l](javascript:z)`c`|</h1>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<td><code>a\"&gt;&lt;img src=x onerror=y&gt;[l](javascript:z)`c`|</code></td>"
            ),
            "{html}"
        );
        assert!(
            html.contains("href=\"../a%22%3E%3Cimg%20src=x%20onerror=y%3E%5Bl%5D%28javascript:z%29%60c%60%7C/index.html\""),
            "{html}"
        );
    }

    #[test]
    fn markdown_text_is_literal_in_a_table_cell() {
        let hostile = "A|B <i>x</i> [l](javascript:y) *e* `c`\nnext";
        let md = format!("| h |\n|---|\n| {} |\n", markdown_text(hostile));
        let html = page(&md);
        assert!(
            html.contains("<td>A|B &lt;i&gt;x&lt;/i&gt; [l](javascript:y) *e* `c` next</td>"),
            "{html}"
        );
    }

    #[test]
    fn anchors_are_githubs() {
        assert_eq!(
            anchor("11. Performance side by side (beyond the guide)"),
            "11-performance-side-by-side-beyond-the-guide"
        );
        assert_eq!(anchor("C libraries (identity)"), "c-libraries-identity");
        assert_eq!(anchor("Pavelor-512 × pseudoXOF"), "pavelor-512--pseudoxof");
    }

    #[test]
    fn a_page_is_self_contained() {
        let svgs = vec![(
            "./chart.svg".to_string(),
            "<?xml version=\"1.0\"?>\n<svg viewBox=\"0 0 1 1\"><rect/></svg>\n".to_string(),
        )];
        let md = "# T & x\n\n## A b\n\n## A b\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n![the chart](./chart.svg)\n\n![other](./other.svg)\n\n[x](#a-b)\n";
        let html = render(&Page {
            title: "T & x",
            markdown: md,
            svgs: &svgs,
            nav: &[("Index".into(), "../index.html".into())],
        });
        assert!(html.contains("<title>T &amp; x</title>"));
        assert!(html.contains("<h2 id=\"a-b\">A b</h2>"));
        assert!(html.contains("<h2 id=\"a-b-1\">A b</h2>"));
        assert!(html.contains("<div class=\"scroll\"><table>"));
        assert!(html.contains("<td style=\"text-align: right\">2</td>"));
        assert!(html.contains(
            "<figure class=\"chart\" role=\"img\" aria-label=\"the chart\"><svg viewBox=\"0 0 1 1\"><rect/></svg>"
        ));
        assert!(!html.contains("<?xml"));
        assert!(html.contains("<img src=\"./other.svg\" alt=\"other\""));
        assert!(html.contains("<a href=\"../index.html\">Index</a>"));
        assert!(!html.contains("<script"));
        assert!(html.contains(CONTENT_SECURITY_POLICY));
        assert_eq!(title_of(md).as_deref(), Some("T & x"));
    }
}
