//! Text fitted to a terminal's width: prose wrapped at words, and tables
//! whose columns stay in a fixed priority, with the last column cut at a
//! word (`…`) or wrapped. Without a width (output piped to a file or a
//! program) nothing is fitted: every line is as long as it needs.
//!
//! A word is never broken. One longer than its line gets a line of its
//! own, and a command in backticks counts as one word: a command wrapped
//! over two lines would not paste.

use super::style::{Tone, cell_color};
use comfy_table::{Attribute, ContentArrangement, Table, presets};
use unicode_width::UnicodeWidthStr;

/// The longest word text output shows whole, in characters: 253, the
/// longest name the API server accepts (a DNS-1123 subdomain). A longer
/// word (only a hand-made file holds one) is cut there, with `…`, in table
/// cells and prose, so the work of fitting a table stays linear in the
/// input (comfy-table measures a long word again for every character it
/// splits off: a 4 MB name took seconds, a 50 MB one minutes). JSON, YAML,
/// `-o name` and commands to paste keep every name whole.
pub(crate) const LONGEST_WORD: usize = crate::names::LONGEST_NAME;

/// `text` with each word longer than [`LONGEST_WORD`] characters cut to
/// that many, `…` after it; as it is when it has none.
pub(crate) fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    let too_long =
        |word: &str| word.len() > LONGEST_WORD && word.chars().nth(LONGEST_WORD).is_some();
    if !text.split([' ', '\n']).any(too_long) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().min(64 * 1024));
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for (j, word) in line.split(' ').enumerate() {
            if j > 0 {
                out.push(' ');
            }
            match word.char_indices().nth(LONGEST_WORD) {
                Some((at, _)) => {
                    out.push_str(&word[..at]);
                    out.push('…');
                }
                None => out.push_str(word),
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The columns `text` takes on a terminal (escape sequences take none).
pub(crate) fn columns(text: &str) -> usize {
    if !text.contains('\u{1b}') {
        return UnicodeWidthStr::width(text);
    }
    let mut plain = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ ... final byte in @..~
            if chars.next() == Some('[') {
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
        } else {
            plain.push(c);
        }
    }
    UnicodeWidthStr::width(plain.as_str())
}

/// A heading too long for one line (a long name): its parts, two spaces
/// apart, each going on to the next line when it does not fit; every line
/// ends with a newline. None when it fits one line (or nothing is fitted):
/// the caller writes it as it always does.
pub(crate) fn heading(parts: &[&str], width: Option<usize>) -> Option<String> {
    let w = width?;
    let parts: Vec<&str> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    let whole: usize =
        parts.iter().map(|p| columns(p)).sum::<usize>() + 2 * parts.len().saturating_sub(1);
    if whole <= w {
        return None;
    }
    let mut out = String::new();
    let mut line = String::new();
    for part in parts {
        if !line.is_empty() && columns(&line) + 2 + columns(part) > w {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push_str("  ");
        }
        line.push_str(part);
    }
    out.push_str(&line);
    out.push('\n');
    Some(out)
}

/// The words of `text`, split at spaces; a span in backticks is one word.
pub(crate) fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut in_ticks = false;
    for (i, c) in text.char_indices() {
        if c == ' ' && !in_ticks {
            if let Some(s) = start.take() {
                out.push(&text[s..i]);
            }
            continue;
        }
        if start.is_none() {
            start = Some(i);
        }
        if c == '`' {
            in_ticks = !in_ticks;
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// `text` in lines of at most `width` columns, words whole: the first
/// line starts after `first` columns that something else took, every
/// other line after `indent` columns. The lines come without what takes
/// those columns; the first may be empty when the first word fits only a
/// line of its own.
pub(crate) fn lines(text: &str, width: usize, first: usize, indent: usize) -> Vec<String> {
    let first_room = width.saturating_sub(first);
    let room = width.saturating_sub(indent);
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut used = 0;
    for word in words(text) {
        let w = columns(word);
        let on_first = out.is_empty();
        let line_room = if on_first { first_room } else { room };
        if current.is_empty() {
            // The first line gives way to a word that fits a whole line.
            if on_first && w > first_room && w <= room && first > indent {
                out.push(String::new());
            }
            current.push_str(word);
            used = w;
        } else if used + 1 + w <= line_room {
            current.push(' ');
            current.push_str(word);
            used += 1 + w;
        } else {
            out.push(std::mem::replace(&mut current, word.to_string()));
            used = w;
        }
    }
    out.push(current);
    out
}

/// `text` as a paragraph: its first line after `first`, the others after
/// `indent` (both printed as given), each line ending in a newline.
/// Without a width: one line, as it is.
pub(crate) fn paragraph(text: &str, width: Option<usize>, first: &str, indent: &str) -> String {
    let text = &*bounded(text);
    let Some(width) = width else {
        return format!("{first}{text}\n");
    };
    let mut out = String::new();
    for (i, line) in lines(text, width, columns(first), columns(indent))
        .into_iter()
        .enumerate()
    {
        let start = if i == 0 { first } else { indent };
        out.push_str(format!("{start}{line}").trim_end());
        out.push('\n');
    }
    out
}

/// `parts` joined by `sep` on lines after `indent`, fitted to `width`: a
/// line breaks between two parts (the break stands for `sep`), and a part
/// too long for a line of its own is wrapped at words. Without a width:
/// one line.
pub(crate) fn parts(parts: &[String], sep: &str, width: Option<usize>, indent: &str) -> String {
    let Some(width) = width else {
        return format!("{indent}{}\n", parts.join(sep));
    };
    let room = width.saturating_sub(columns(indent));
    let mut out = String::new();
    let mut line = String::new();
    for part in parts {
        let joined = if line.is_empty() {
            part.clone()
        } else {
            format!("{line}{sep}{part}")
        };
        if columns(&joined) <= room {
            line = joined;
            continue;
        }
        if !line.is_empty() {
            out.push_str(&format!("{indent}{line}\n"));
        }
        if columns(part) <= room {
            line = part.clone();
        } else {
            out.push_str(&paragraph(part, Some(width), indent, indent));
            line = String::new();
        }
    }
    if !line.is_empty() {
        out.push_str(&format!("{indent}{line}\n"));
    }
    out
}

/// Every line of `text` wrapped to `width` at its own indentation (its
/// continuation lines two columns further in).
pub(crate) fn rewrap(text: &str, width: Option<usize>) -> String {
    if width.is_none() {
        return text.to_string();
    }
    let mut out = String::new();
    for line in text.lines() {
        let body = line.trim_start_matches(' ');
        let indent = &line[..line.len() - body.len()];
        out.push_str(&paragraph(body, width, indent, &format!("{indent}  ")));
    }
    out
}

/// What a text renderer fits its output to: colour, a width (none: every
/// line whole, as when the output is piped), and whether tables keep
/// their headers (`--no-headers`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Screen {
    pub color: bool,
    pub width: Option<usize>,
    pub no_headers: bool,
}

/// A colour flag alone: every line whole.
impl From<bool> for Screen {
    fn from(color: bool) -> Screen {
        Screen {
            color,
            ..Screen::default()
        }
    }
}

/// `text` cut at a word to at most `width` columns, `…` where it was cut.
/// A first word longer than that is kept whole (a word is never broken).
pub(crate) fn cut(text: &str, width: usize) -> String {
    if columns(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for word in words(text) {
        let w = columns(word);
        let next = if out.is_empty() { w } else { used + 1 + w };
        if next + 1 > width && !out.is_empty() {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        used = next;
        if used + 1 > width {
            break;
        }
    }
    // A parenthesis opened and not closed before the cut reads as a
    // fragment: the cut goes before it.
    if let Some((before, last)) = out.rsplit_once(' ')
        && last.starts_with('(')
        && !last.contains(')')
    {
        out = before.to_string();
    }
    // A cut right after a separator reads as if something followed it.
    let kept = out.trim_end_matches([',', ';', ':', '(', '-', '·', ' ']);
    format!("{kept}…")
}

/// One table cell: its text, and the colour and weight it has when
/// colour is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cell {
    pub text: String,
    pub tone: Option<Tone>,
    pub bold: bool,
}

impl Cell {
    pub(crate) fn new(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            tone: None,
            bold: false,
        }
    }

    /// Coloured in `tone`, bold when `bold`.
    pub(crate) fn toned(mut self, tone: Tone, bold: bool) -> Cell {
        self.tone = Some(tone);
        self.bold = bold;
        self
    }

    fn comfy(&self, text: String, color: bool) -> comfy_table::Cell {
        let mut cell = comfy_table::Cell::new(text);
        if color {
            if let Some(c) = self.tone.and_then(cell_color) {
                cell = cell.fg(c);
            }
            if self.bold {
                cell = cell.add_attribute(Attribute::Bold);
            }
        }
        cell
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell::new(text)
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Cell {
        Cell::new(text)
    }
}

/// What a table does with its last column when the line is short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Last {
    /// An ordinary column: low-priority columns are left out until the
    /// rest fits.
    Fixed,
    /// Cut at a word (`…`) to what is left, once low-priority columns are
    /// left out until it keeps at least `min` columns (or all it needs).
    Cut { min: usize },
    /// Wrapped at words in what is left; with less than `min` columns
    /// left, it goes under its row, indented, in the whole width.
    Wrap { min: usize },
}

/// A table in kubectl's look: no borders, two spaces between columns,
/// every line after `indent`.
pub(crate) struct Grid<'a> {
    pub header: Vec<&'a str>,
    /// Per column: 0 is never left out; of the others, the higher the
    /// rank, the sooner it goes when the line is short.
    pub rank: Vec<u8>,
    pub rows: Vec<Vec<Cell>>,
    pub last: Last,
    pub indent: &'a str,
}

/// Columns between two columns.
const GAP: usize = 2;
/// How far under its row a wrapped last column goes.
const UNDER: &str = "    ";

impl Grid<'_> {
    /// A grid whose columns all stay (rank 0) and whose last column is
    /// an ordinary one.
    pub(crate) fn plain<'a>(header: &[&'a str], rows: Vec<Vec<Cell>>, indent: &'a str) -> Grid<'a> {
        Grid {
            header: header.to_vec(),
            rank: vec![0; header.len()],
            rows,
            last: Last::Fixed,
            indent,
        }
    }

    /// The table as text, fitted to `width` when there is one; a word
    /// longer than [`LONGEST_WORD`] is cut there first.
    pub(crate) fn render(&self, width: Option<usize>, color: bool) -> String {
        let long = |c: &Cell| matches!(bounded(&c.text), std::borrow::Cow::Owned(_));
        if !self.rows.iter().flatten().any(long) {
            return self.fitted(width, color);
        }
        let rows = self
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|c| Cell {
                        text: bounded(&c.text).into_owned(),
                        ..c.clone()
                    })
                    .collect()
            })
            .collect();
        Grid {
            header: self.header.clone(),
            rank: self.rank.clone(),
            rows,
            last: self.last,
            indent: self.indent,
        }
        .fitted(width, color)
    }

    fn fitted(&self, width: Option<usize>, color: bool) -> String {
        let n = self.header.len();
        let natural: Vec<usize> = (0..n)
            .map(|i| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .map(|c| columns(&c.text))
                    .chain(std::iter::once(columns(self.header[i])))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let Some(width) = width else {
            return self.draw(&(0..n).collect::<Vec<_>>(), None, None, color);
        };
        let room = width.saturating_sub(columns(self.indent));
        let flexible = self.last != Last::Fixed && n > 0;
        let fixed_count = if flexible { n - 1 } else { n };
        let mut kept: Vec<usize> = (0..n).collect();
        // What the kept columns need, the last one at its least.
        let need = |kept: &[usize]| -> usize {
            let fixed: usize = kept
                .iter()
                .filter(|&&i| i < fixed_count)
                .map(|&i| natural[i] + GAP)
                .sum();
            match self.last {
                Last::Fixed => fixed.saturating_sub(GAP),
                Last::Cut { min } => fixed + natural[n - 1].min(min),
                Last::Wrap { .. } => fixed.saturating_sub(GAP),
            }
        };
        while need(&kept) > room {
            // The highest rank goes first; among equals, the rightmost.
            let Some(pos) = kept
                .iter()
                .enumerate()
                .filter(|&(_, &i)| i < fixed_count && self.rank[i] > 0)
                .max_by_key(|&(p, &i)| (self.rank[i], p))
                .map(|(p, _)| p)
            else {
                break;
            };
            kept.remove(pos);
        }
        // Names too long for the line: each row's first column stands on
        // a line of its own, the others under it.
        let short = match self.last {
            Last::Cut { min } => {
                let used: usize = kept
                    .iter()
                    .filter(|&&i| i < fixed_count)
                    .map(|&i| natural[i] + GAP)
                    .sum();
                room.saturating_sub(used) < min.min(natural[n - 1])
            }
            Last::Fixed | Last::Wrap { .. } => need(&kept) > room,
        };
        if short && n > 1 && width > UNDER.len() {
            return self.stacked(width, color);
        }
        if !flexible {
            return self.draw(&kept, None, None, color);
        }
        let used: usize = kept
            .iter()
            .filter(|&&i| i < fixed_count)
            .map(|&i| natural[i] + GAP)
            .sum();
        let left = room.saturating_sub(used);
        // The longest word of the last column: one that does not fit in
        // its column would stand far out on a line of its own.
        let longest_word = self
            .rows
            .iter()
            .filter_map(|r| r.get(n - 1))
            .flat_map(|c| words(&c.text))
            .map(columns)
            .max()
            .unwrap_or(0);
        match self.last {
            Last::Cut { .. } => self.draw(&kept, Some(Shape::Cut(left)), None, color),
            Last::Wrap { min } if left >= min.min(natural[n - 1]) && left >= longest_word => {
                self.draw(&kept, Some(Shape::Wrap(left)), None, color)
            }
            _ => self.draw(&kept, None, Some(width), color),
        }
    }

    /// Each row's first column on a line of its own, the other columns
    /// as a table under it (fitted as this one is, in what is left): for
    /// names too long to share a line with the rest.
    fn stacked(&self, width: usize, color: bool) -> String {
        let indent = format!("{}{UNDER}", self.indent);
        let rest = Grid {
            header: self.header[1..].to_vec(),
            rank: self.rank[1..].to_vec(),
            rows: self
                .rows
                .iter()
                .map(|r| r.iter().skip(1).cloned().collect())
                .collect(),
            last: self.last,
            indent: &indent,
        }
        .fitted(Some(width), color);
        // A row's first line starts right after the indent; the lines of
        // a wrapped last column start with more spaces.
        let starts = |l: &str| {
            l.strip_prefix(indent.as_str())
                .is_some_and(|b| !b.starts_with(' '))
        };
        let mut out = format!("{}{}\n", self.indent, self.header[0]);
        let mut names = self.rows.iter().map(|r| r.first());
        for (k, line) in rest.lines().enumerate() {
            if k > 0
                && starts(line)
                && let Some(Some(name)) = names.next()
            {
                let mut one = Table::new();
                one.load_style(presets::NOTHING)
                    .set_content_arrangement(ContentArrangement::Disabled);
                if color {
                    one.enforce_styling();
                } else {
                    one.force_no_tty();
                }
                one.add_row(vec![name.comfy(name.text.clone(), color)]);
                for l in one.lines() {
                    out.push_str(self.indent);
                    out.push_str(l.trim());
                    out.push('\n');
                }
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    /// Draws the `kept` columns; the last one shaped to fit, or (with
    /// `under`: the whole width) under its row.
    fn draw(
        &self,
        kept: &[usize],
        shape: Option<Shape>,
        under: Option<usize>,
        color: bool,
    ) -> String {
        let n = self.header.len();
        let last = n.checked_sub(1);
        let in_table: Vec<usize> = kept
            .iter()
            .copied()
            .filter(|&i| under.is_none() || Some(i) != last)
            .collect();
        let mut table = Table::new();
        table
            .load_style(presets::NOTHING)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(in_table.iter().map(|&i| self.header[i]).collect::<Vec<_>>());
        if color {
            table.enforce_styling();
        } else {
            table.force_no_tty();
        }
        for row in &self.rows {
            let cells: Vec<comfy_table::Cell> = in_table
                .iter()
                .filter_map(|&i| row.get(i).map(|c| (i, c)))
                .map(|(i, c)| {
                    let text = match shape {
                        Some(Shape::Cut(w)) if Some(i) == last => cut(&c.text, w),
                        Some(Shape::Wrap(w)) if Some(i) == last => {
                            lines(&c.text, w, 0, 0).join("\n")
                        }
                        _ => c.text.clone(),
                    };
                    c.comfy(text, color)
                })
                .collect();
            table.add_row(cells);
        }
        for column in table.column_iter_mut() {
            column.set_padding((0, GAP as u16));
        }
        let mut out = String::new();
        let table_lines: Vec<String> = table.lines().collect();
        let mut rows = self.rows.iter();
        for (k, line) in table_lines.iter().enumerate() {
            out.push_str(self.indent);
            out.push_str(line.trim_end());
            out.push('\n');
            // Under each row (not the header): its last column.
            if let (Some(width), true, Some(last)) = (under, k > 0, last)
                && let Some(text) = rows.next().and_then(|r| r.get(last))
            {
                let indent = format!("{}{UNDER}", self.indent);
                out.push_str(&paragraph(&text.text, Some(width), &indent, &indent));
            }
        }
        out
    }
}

/// How the last column is fitted in its room.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Cut(usize),
    Wrap(usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_commands_in_backticks_whole() {
        assert_eq!(
            words("run `kubectl valkey-roll explain cache-1-0 -n prod`. Then  wait"),
            [
                "run",
                "`kubectl valkey-roll explain cache-1-0 -n prod`.",
                "Then",
                "wait"
            ]
        );
    }

    #[test]
    fn words_longer_than_a_name_can_be_are_cut() {
        let name = "a".repeat(LONGEST_WORD);
        let longer = format!("{name}b");
        let cut = format!("{name}…");
        // (case, text, shown)
        let cases: Vec<(&str, String, String)> = vec![
            (
                "short words",
                "behind cache-1-0".into(),
                "behind cache-1-0".into(),
            ),
            ("the longest name", name.clone(), name.clone()),
            ("one character more", longer.clone(), cut.clone()),
            (
                "in a sentence",
                format!("behind {longer}, queue 2"),
                format!("behind {cut} queue 2"),
            ),
            (
                "on several lines",
                format!("{longer}\nx {longer}"),
                format!("{cut}\nx {cut}"),
            ),
            (
                "counted in characters, not bytes",
                "\u{e9}".repeat(LONGEST_WORD),
                "\u{e9}".repeat(LONGEST_WORD),
            ),
        ];
        for (case, text, want) in cases {
            assert_eq!(bounded(&text), want, "{case}");
        }
    }

    #[test]
    fn lines_break_at_words_and_never_inside_one() {
        // (text, width, first, indent, lines)
        let cases: &[(&str, usize, usize, usize, &[&str])] = &[
            ("a bb ccc", 20, 0, 0, &["a bb ccc"]),
            ("a bb ccc dddd", 6, 0, 0, &["a bb", "ccc", "dddd"]),
            ("aaaaaaaaaa b", 5, 0, 0, &["aaaaaaaaaa", "b"]),
            ("one two three", 12, 6, 2, &["one", "two three"]),
            // A word that fits only a whole line leaves the first empty.
            ("abcdefghij x", 12, 8, 2, &["", "abcdefghij", "x"]),
            ("", 10, 0, 0, &[""]),
        ];
        for (text, width, first, indent, want) in cases {
            assert_eq!(lines(text, *width, *first, *indent), *want, "{text:?}");
        }
    }

    #[test]
    fn paragraphs_wrap_only_with_a_width() {
        let text = "It holds the permit and its pod shows failure.";
        assert_eq!(paragraph(text, None, "  ", "  "), format!("  {text}\n"));
        assert_eq!(
            paragraph(text, Some(24), "  - ", "    "),
            "  - It holds the permit\n    and its pod shows\n    failure.\n"
        );
    }

    #[test]
    fn cut_at_a_word_with_an_ellipsis() {
        // (text, width, cut)
        let cases: &[(&str, usize, &str)] = &[
            ("queue 1, behind cache-1-0", 40, "queue 1, behind cache-1-0"),
            ("queue 1, behind cache-1-0", 25, "queue 1, behind cache-1-0"),
            ("queue 1, behind cache-1-0", 24, "queue 1, behind…"),
            ("queue 1, behind cache-1-0", 15, "queue 1…"),
            ("CrashLoopBackOff (restarts 7)", 20, "CrashLoopBackOff…"),
            ("CrashLoopBackOff (restarts 7)", 28, "CrashLoopBackOff…"),
            ("CrashLoopBackOff (restarts 7)", 10, "CrashLoopBackOff…"),
        ];
        for (text, width, want) in cases {
            let got = cut(text, *width);
            assert_eq!(got, *want, "{text:?} at {width}");
            // Within the width, unless one word alone is wider.
            assert!(
                columns(&got) <= *width || words(text)[0].len() + 1 > *width,
                "{got:?}"
            );
        }
    }

    #[test]
    fn columns_ignore_colour() {
        assert_eq!(columns("\u{1b}[1m\u{1b}[31mJAMMED\u{1b}[39m\u{1b}[0m"), 6);
        assert_eq!(columns("é…"), 2);
    }

    fn grid(last: Last) -> Grid<'static> {
        Grid {
            header: vec!["NODE", "SHARD", "STATE", "REASON"],
            rank: vec![0, 2, 0, 0],
            rows: vec![
                vec![
                    Cell::new("cache-1-0"),
                    Cell::new("1"),
                    Cell::new("Stuck"),
                    Cell::new("CrashLoopBackOff (restarts 7) since ten minutes"),
                ],
                vec![
                    Cell::new("cache-0-0"),
                    Cell::new("0"),
                    Cell::new("Converged"),
                    Cell::new("rolled"),
                ],
            ],
            last,
            indent: "",
        }
    }

    #[test]
    fn without_a_width_every_line_is_whole() {
        let out = grid(Last::Cut { min: 10 }).render(None, false);
        assert_eq!(
            out,
            "NODE       SHARD  STATE      REASON\n\
             cache-1-0  1      Stuck      CrashLoopBackOff (restarts 7) since ten minutes\n\
             cache-0-0  0      Converged  rolled\n"
        );
    }

    #[test]
    fn a_short_line_leaves_out_low_priority_columns_then_cuts() {
        let out = grid(Last::Cut { min: 25 }).render(Some(50), false);
        assert_eq!(
            out,
            "NODE       STATE      REASON\n\
             cache-1-0  Stuck      CrashLoopBackOff…\n\
             cache-0-0  Converged  rolled\n"
        );
        for line in out.lines() {
            assert!(columns(line) <= 50, "{line:?}");
        }
        // Room enough: SHARD stays, and the reason gets the rest.
        let out = grid(Last::Cut { min: 25 }).render(Some(60), false);
        assert!(
            out.contains("cache-1-0  1      Stuck      CrashLoopBackOff (restarts 7)…\n"),
            "{out}"
        );
    }

    #[test]
    fn a_wrapped_last_column_stays_in_its_column_or_goes_under_its_row() {
        let out = grid(Last::Wrap { min: 10 }).render(Some(50), false);
        let under = " ".repeat(29);
        assert_eq!(
            out,
            format!(
                "NODE       SHARD  STATE      REASON\n\
                 cache-1-0  1      Stuck      CrashLoopBackOff\n\
                 {under}(restarts 7) since\n\
                 {under}ten minutes\n\
                 cache-0-0  0      Converged  rolled\n"
            )
        );
        let out = grid(Last::Wrap { min: 30 }).render(Some(40), false);
        assert_eq!(
            out,
            "NODE       SHARD  STATE\n\
             cache-1-0  1      Stuck\n    CrashLoopBackOff (restarts 7) since\n    ten minutes\n\
             cache-0-0  0      Converged\n    rolled\n"
        );
    }

    #[test]
    fn a_screen_cuts_a_value_no_name_can_be_and_json_keeps_it() {
        let long = format!("cache-{}", "x".repeat(300));
        let cut = format!("cache-{}…", "x".repeat(247));
        let line = crate::shell::CommandLine::new("kubectl valkey-roll revoke")
            .arg(&long)
            .opt("-n", &format!("-{long}"));
        assert_eq!(
            line.render(),
            format!("kubectl valkey-roll revoke {long} -n=-{long}")
        );
        let screen = line.render_with(bounded);
        assert_eq!(
            screen,
            format!("kubectl valkey-roll revoke '{cut}' -n='-{}…'", &long[..252])
        );
        assert_eq!(
            shlex::split(&screen).unwrap_or_default(),
            [
                "kubectl",
                "valkey-roll",
                "revoke",
                &cut,
                &format!("-n=-{}…", &long[..252])
            ]
        );
        let short = crate::shell::CommandLine::new("kubectl valkey-roll revoke")
            .arg("cache-0-1")
            .opt("-n", "prod");
        assert_eq!(short.render_with(bounded), short.render());
    }
}
