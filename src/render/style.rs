//! Colour by severity, shared by the table and explain; and a guard against
//! control characters in text that came from a cluster or a file.

use crate::report::{NodeState, Verdict};
use owo_colors::OwoColorize;

/// How alarming a verdict or state is; one colour each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Someone has to act: red.
    Bad,
    /// Not moving, or holding others up: yellow.
    Warn,
    /// A roll in flight: cyan.
    Busy,
    /// Queued: blue.
    Queue,
    /// Nothing to do: green.
    Good,
    /// Outside the roll: no colour.
    Quiet,
}

pub fn verdict_tone(verdict: Verdict) -> Tone {
    match verdict {
        Verdict::Conflict | Verdict::Jammed => Tone::Bad,
        Verdict::Stalled => Tone::Warn,
        Verdict::Rolling => Tone::Busy,
        Verdict::Waiting => Tone::Queue,
        Verdict::Converged => Tone::Good,
    }
}

pub fn state_tone(state: NodeState) -> Tone {
    match state {
        NodeState::Stuck | NodeState::StalePermit => Tone::Bad,
        NodeState::Blocking => Tone::Warn,
        NodeState::Rolling | NodeState::Settling => Tone::Busy,
        NodeState::Waiting => Tone::Queue,
        NodeState::Converged => Tone::Good,
        NodeState::Standalone => Tone::Quiet,
    }
}

/// `text` in the tone's colour (bold when asked), or unchanged without colour.
pub fn paint(text: &str, tone: Tone, bold: bool, color: bool) -> String {
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
pub fn strong(text: &str, color: bool) -> String {
    if color {
        text.bold().to_string()
    } else {
        text.to_string()
    }
}

/// The table cell colour of a tone (comfy-table measures widths before it
/// styles, so colour goes through it rather than into the text).
pub fn cell_color(tone: Tone) -> Option<comfy_table::Color> {
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

/// Text from a cluster or a file with control characters (newlines, escape
/// sequences) and bidirectional controls replaced by spaces: it cannot break
/// a table row, drive the terminal, or reorder the text after it.
pub fn clean(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() || is_bidi_control(c) {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// [`clean`] text for a cell, `-` where there is none.
pub fn clean_or_dash(text: Option<&str>) -> String {
    text.map_or_else(|| "-".into(), clean)
}

/// A node's reason for a cell: [`clean`], `-` where it is empty.
pub fn reason_cell(reason: &str) -> String {
    if reason.is_empty() {
        "-".to_string()
    } else {
        clean(reason)
    }
}

/// The Unicode bidirectional formatting characters (marks, embeddings,
/// overrides, isolates).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
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

    #[test]
    fn control_characters_are_neutralised() {
        assert_eq!(clean("a\nb\u{1b}[31mc\td"), "a b [31mc d");
        assert_eq!(clean("plain"), "plain");
        // Bidirectional overrides and isolates could reorder what follows.
        assert_eq!(clean("cache-0-1\u{202e}kcuts"), "cache-0-1 kcuts");
        assert_eq!(clean("a\u{2066}b\u{2069}c\u{200f}"), "a b c ");
    }
}
