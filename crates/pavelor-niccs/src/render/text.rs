//! Strings from a dataset as literal Markdown: plain text, code spans and
//! link targets. report.py writes them as they are; these write an
//! ordinary string (letters, digits, spaces, `-._/:()+=,`, an `_` inside a
//! word) exactly as report.py does, so the harness's pages come out byte
//! for byte, and escape only what would be markup: nothing a dataset holds
//! becomes raw HTML, a link, an image, emphasis or a new table cell.

/// `s` as literal Markdown text: `\`, `` ` ``, `*`, `[`, `]`, `<`, `>`,
/// `&`, `|`, `!`, `~` backslash-escaped, an `_` escaped unless it sits
/// inside a word (where it cannot start or end emphasis), a `:` escaped
/// before a `/` (no autolinked `https://`), and line breaks as spaces (so
/// the text stays in its table cell or line).
pub fn md_text(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let word = |i: Option<usize>| {
        i.and_then(|i| chars.get(i))
            .is_some_and(|c| c.is_alphanumeric())
    };
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '&' | '|' | '!' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '_' => {
                // The characters around the run of `_` this one is in.
                let before = chars[..i].iter().rposition(|&c| c != '_');
                let after = chars[i..].iter().position(|&c| c != '_').map(|n| i + n);
                if !(word(before) && word(after)) {
                    out.push('\\');
                }
                out.push('_');
            }
            ':' if chars.get(i + 1) == Some(&'/') => out.push_str("\\:"),
            c => out.push(c),
        }
    }
    out
}

/// `s` as a Markdown code span, delimiters included: `` `s` `` when `s`
/// has no backtick; else between backticks one more than its longest run
/// of them, with a space inside each end. A `|` is written `\|` (a table
/// cell would end at it otherwise; the cell gives the code span a plain
/// `|`) and line breaks are spaces.
pub fn md_code(s: &str) -> String {
    let body: String = s
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect::<String>()
        .replace('|', "\\|");
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if longest == 0 {
        return format!("`{body}`");
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {body} {fence}")
}

/// `s` as a link target: every byte other than ASCII letters, digits and
/// `-._~/:#?=&%+,;@` percent-encoded, so the target cannot end the link
/// early or hold markup. Whether its scheme is safe to follow is the HTML
/// renderer's to decide.
pub fn md_dest(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:#?=&%+,;@".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_strings_are_unchanged() {
        for s in [
            "Qualcomm Oryon",
            "gcc (Ubuntu 15.2.0-16ubuntu1) 15.2.0",
            "7.0.0-34-generic",
            "arm_1",
            "Pavelor-512__hash_1024",
            "2026-09-28T15:05:46",
            "x86_64",
        ] {
            assert_eq!(md_text(s), s);
        }
        assert_eq!(
            md_code("records/hash-22/a__hash_32.json"),
            "`records/hash-22/a__hash_32.json`"
        );
        for s in [
            "../performance/summary_arm_1.md",
            "https://www.niccs.org.cn/niccs/a/content_2101536571221692416.html",
            "#11-performance-side-by-side-beyond-the-guide",
        ] {
            assert_eq!(md_dest(s), s);
        }
    }

    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            md_text("<b>[l](javascript:x) _e_ *s* a|b `c` https://e\nz"),
            "\\<b\\>\\[l\\](javascript:x) \\_e\\_ \\*s\\* a\\|b \\`c\\` https\\://e z"
        );
        assert_eq!(md_code("a`b|c"), "`` a`b\\|c ``");
        assert_eq!(md_dest("a b)<c>\"é"), "a%20b%29%3Cc%3E%22%C3%A9");
    }
}
