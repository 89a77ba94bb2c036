//! Colour by severity, shared by the table and explain; and a guard against
//! control characters in text that came from a cluster or a file.

use owo_colors::OwoColorize;

// The scale lives with the states it ranks (`NodeState::tone`,
// `Verdict::tone`); here it only gets its colours.
pub(crate) use crate::report::Tone;

/// `text` in the tone's colour (bold when asked), or unchanged without colour.
pub(crate) fn paint(text: &str, tone: Tone, bold: bool, color: bool) -> String {
    if !color {
        return text.to_string();
    }
    let coloured = match tone {
        Tone::Bad => text.red().to_string(),
        Tone::Warn => text.yellow().to_string(),
        Tone::Busy => text.cyan().to_string(),
        Tone::Queue => text.blue().to_string(),
        Tone::Good => text.green().to_string(),
        Tone::Quiet => text.to_string(),
    };
    if bold {
        coloured.bold().to_string()
    } else {
        coloured
    }
}

/// Bold, or unchanged without colour (section titles in explain).
pub(crate) fn strong(text: &str, color: bool) -> String {
    if color {
        text.bold().to_string()
    } else {
        text.to_string()
    }
}

/// The table cell colour of a tone (comfy-table measures widths before it
/// styles, so colour goes through it rather than into the text).
pub(crate) fn cell_color(tone: Tone) -> Option<comfy_table::Color> {
    use comfy_table::Color;
    match tone {
        Tone::Bad => Some(Color::Red),
        Tone::Warn => Some(Color::Yellow),
        Tone::Busy => Some(Color::Cyan),
        Tone::Queue => Some(Color::Blue),
        Tone::Good => Some(Color::Green),
        Tone::Quiet => None,
    }
}

/// The colour of a tone in a picture on white (`history -o svg`): the
/// terminal's colour of the same tone, in a shade that reads on white.
pub(crate) fn fill(tone: Tone) -> &'static str {
    match tone {
        Tone::Bad => "#d23c3c",
        Tone::Warn => "#e0b030",
        Tone::Busy => "#2aa7b8",
        Tone::Queue => "#9db8e0",
        Tone::Good => "#5cae5c",
        Tone::Quiet => "#999999",
    }
}

/// Text from a cluster, a file or the command line, made safe to print on
/// a terminal: the one function every printed string from data or
/// arguments goes through, stdout and stderr alike (tables, explain,
/// steering results, error messages).
///
/// Tab, newline and carriage return become a space: they are layout in a
/// message, and a space cannot break a table row or overwrite a line.
/// Every other control character (C0, DEL, C1: escape sequences start
/// there) and every invisible or reordering character (zero-width,
/// bidirectional controls, line and paragraph separators, other format
/// characters) is shown as its code, `\u{200b}`, so a name that differs
/// from another only by an invisible character reads differently, and
/// nothing reaches the terminal that drives it.
pub(crate) fn clean(text: &str) -> String {
    // Most text needs nothing: keep it as it is.
    if !text.chars().any(needs_cleaning) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(' '),
            c if needs_cleaning(c) => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// Several lines of text for stderr: each line [`clean`], the line breaks
/// kept.
pub(crate) fn clean_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(body) => {
                out.push_str(&clean(body));
                out.push('\n');
            }
            None => out.push_str(&clean(line)),
        }
    }
    out
}

/// A character [`clean`] does not pass on as it is (layout whitespace
/// included): the JSON and YAML writers escape the same set.
pub(crate) fn needs_cleaning(c: char) -> bool {
    c.is_control() || is_invisible(c)
}

/// [`clean`] text for a cell, `-` where there is none.
pub(crate) fn clean_or_dash(text: Option<&str>) -> String {
    text.map_or_else(|| "-".into(), clean)
}

/// A node's reason for a cell: [`clean`], `-` where it is empty.
pub(crate) fn reason_cell(reason: &str) -> String {
    if reason.is_empty() {
        "-".to_string()
    } else {
        clean(reason)
    }
}

/// Characters a terminal shows as nothing, that reorder what follows, or
/// that look like another: Unicode's format characters (general category
/// Cf: soft hyphen, zero-width space and joiners, bidirectional marks,
/// embeddings, overrides and isolates, word joiner, invisible operators,
/// the byte order mark, interlinear annotation, tags), the line and
/// paragraph separators (Zl, Zp), the fillers that render blank (Hangul
/// fillers, the combining grapheme joiner, the Mongolian vowel separator),
/// every character that takes no column of its own (combining marks,
/// variation selectors: `e` + U+0301 reads as `é` but is another name),
/// and the spaces other than ASCII's (no-break, thin, ideographic: a name
/// with one reads as the same name with a space). Letters outside ASCII
/// (`é`, `ü`, `日本`) take a column and stay as they are.
fn is_invisible(c: char) -> bool {
    !c.is_ascii() && (is_format_or_filler(c) || is_zero_width(c) || is_other_space(c))
}

/// No column of its own on a terminal (unicode-width's measure, the one
/// the tables are fitted with): it draws over the character before it.
fn is_zero_width(c: char) -> bool {
    unicode_width::UnicodeWidthChar::width(c) == Some(0)
}

/// Unicode's space separators (Zs) other than the ASCII space.
fn is_other_space(c: char) -> bool {
    matches!(
        c,
        '\u{00a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

fn is_format_or_filler(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{034f}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061c}'
            | '\u{06dd}'
            | '\u{070f}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08e2}'
            | '\u{115f}'..='\u{1160}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_escape_codes_without_colour() {
        for tone in [
            Tone::Bad,
            Tone::Warn,
            Tone::Busy,
            Tone::Queue,
            Tone::Good,
            Tone::Quiet,
        ] {
            assert_eq!(paint("JAMMED", tone, true, false), "JAMMED");
        }
        assert_eq!(strong("Facts", false), "Facts");
        assert!(paint("JAMMED", Tone::Bad, true, true).contains('\u{1b}'));
    }

    /// Each tone its own colour in a picture.
    #[test]
    fn every_tone_has_its_own_fill() {
        let tones = [
            Tone::Bad,
            Tone::Warn,
            Tone::Busy,
            Tone::Queue,
            Tone::Good,
            Tone::Quiet,
        ];
        let fills: std::collections::BTreeSet<&str> = tones.into_iter().map(fill).collect();
        assert_eq!(fills.len(), tones.len(), "{fills:?}");
    }

    #[test]
    fn lines_keep_their_breaks() {
        assert_eq!(clean_lines("a\u{1b}b\nc\td\n"), "a\\u{1b}b\nc d\n");
        assert_eq!(clean_lines("no break"), "no break");
    }

    #[test]
    fn control_and_invisible_characters_are_shown_not_passed_on() {
        // (case, text, cleaned)
        let cases: &[(&str, &str, &str)] = &[
            ("plain", "plain", "plain"),
            (
                "non-ASCII letters stay",
                "caf\u{e9} \u{4e2d}",
                "caf\u{e9} \u{4e2d}",
            ),
            ("layout whitespace", "a\nb\tc\r\nd", "a b c  d"),
            ("an escape sequence", "a\u{1b}[31mred", "a\\u{1b}[31mred"),
            (
                "OSC title",
                "\u{1b}]0;pwned\u{7}x",
                "\\u{1b}]0;pwned\\u{7}x",
            ),
            ("NUL and DEL", "a\u{0}b\u{7f}", "a\\u{0}b\\u{7f}"),
            ("C1 CSI", "a\u{9b}31m", "a\\u{9b}31m"),
            ("C1 NEL", "a\u{85}b", "a\\u{85}b"),
            (
                "zero-width space",
                "cache\u{200b}-0-1",
                "cache\\u{200b}-0-1",
            ),
            ("zero-width joiner", "a\u{200d}b", "a\\u{200d}b"),
            ("word joiner", "a\u{2060}b", "a\\u{2060}b"),
            ("byte order mark", "\u{feff}x", "\\u{feff}x"),
            ("line separator", "a\u{2028}b", "a\\u{2028}b"),
            ("paragraph separator", "a\u{2029}b", "a\\u{2029}b"),
            (
                "right-to-left override",
                "cache-0-1\u{202e}kcuts",
                "cache-0-1\\u{202e}kcuts",
            ),
            (
                "isolates and marks",
                "a\u{2066}b\u{2069}c\u{200f}",
                "a\\u{2066}b\\u{2069}c\\u{200f}",
            ),
            ("arabic letter mark", "a\u{61c}", "a\\u{61c}"),
            ("soft hyphen", "a\u{ad}b", "a\\u{ad}b"),
            ("tag characters", "a\u{e0041}", "a\\u{e0041}"),
            ("hangul filler", "\u{3164}", "\\u{3164}"),
            ("no-break space", "cache\u{a0}0", "cache\\u{a0}0"),
            ("narrow no-break space", "a\u{202f}b", "a\\u{202f}b"),
            ("em space", "a\u{2003}b", "a\\u{2003}b"),
            ("ideographic space", "a\u{3000}b", "a\\u{3000}b"),
            ("ogham space", "a\u{1680}b", "a\\u{1680}b"),
            ("a combining acute accent", "cafe\u{301}", "cafe\\u{301}"),
            ("a combining enclosing circle", "a\u{20dd}", "a\\u{20dd}"),
            ("a variation selector", "a\u{fe0f}", "a\\u{fe0f}"),
            ("a combining dot below", "s\u{323}", "s\\u{323}"),
            (
                "letters that take a column stay",
                "caf\u{e9} \u{fc}ber \u{65e5}\u{672c} \u{d55c}\u{ad6d} \u{3b1}\u{3b2}",
                "caf\u{e9} \u{fc}ber \u{65e5}\u{672c} \u{d55c}\u{ad6d} \u{3b1}\u{3b2}",
            ),
        ];
        for (name, text, want) in cases {
            assert_eq!(clean(text), *want, "{name}");
            let out = clean(text);
            assert!(
                !out.chars().any(|c| c.is_control() || is_invisible(c)),
                "{name}: {out:?}"
            );
        }
    }
}
