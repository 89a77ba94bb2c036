//! The parsers' and serde's messages in a kubectl user's words: no Rust
//! type names, no advice to the parsers' own callers.

use super::MAX_DEPTH;
use serde_json::Value;

/// serde_json's message in a kubectl user's words: no Rust type names.
pub(super) fn json_words(e: &serde_json::Error, text: &[u8]) -> String {
    let what = match e.classify() {
        serde_json::error::Category::Eof => "the text ends in the middle of a value".to_string(),
        _ if e.to_string().starts_with("number out of range") => {
            match written_number(text, e.line(), e.column()) {
                Some(n) => format!("the number `{n}` is beyond what any number field holds"),
                None => "a number beyond what any number field holds".to_string(),
            }
        }
        _ => {
            let text = e.to_string();
            // "... at line L column C" is said below, once.
            let text = match text.rfind(" at line ") {
                Some(cut) => text[..cut].to_string(),
                None => text,
            };
            text.replace(
                "recursion limit exceeded",
                &format!("nested deeper than {MAX_DEPTH} levels"),
            )
        }
    };
    format!("{what} (line {}, column {})", e.line(), e.column())
}

/// The number as written that ends at or around `line`, `column` (1-based,
/// as serde_json counts them: the column of the character it stopped at).
pub(super) fn written_number(text: &[u8], line: usize, column: usize) -> Option<String> {
    let start = if line <= 1 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)?
            .0
            + 1
    };
    let line_text = &text[start..];
    let line_text = &line_text[..line_text
        .iter()
        .position(|b| *b == b'\n')
        .unwrap_or(line_text.len())];
    let is_number = |b: &u8| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E');
    let mut at = column.min(line_text.len());
    while at > 0 && !is_number(&line_text[at - 1]) {
        at -= 1;
    }
    let end = at;
    while at > 0 && is_number(&line_text[at - 1]) {
        at -= 1;
    }
    let number = std::str::from_utf8(&line_text[at..end]).ok()?;
    (!number.is_empty()).then(|| number.chars().take(40).collect())
}

/// serde-saphyr's message in a kubectl user's words: no advice about its
/// options, no Rust debug syntax.
pub(super) fn yaml_words(e: &serde_saphyr::Error) -> String {
    let text = e.render_with_options(serde_saphyr::render_options! {
        snippets: serde_saphyr::SnippetMode::Off,
    });
    plain_yaml_words(&text)
}

/// The rewriting of [`yaml_words`], on the rendered text.
pub(super) fn plain_yaml_words(text: &str) -> String {
    let text = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    // Budget breaches: `budget breached: Aliases { aliases: 50001 }`.
    if let Some(rest) = text.split("budget breached: ").nth(1) {
        let what = rest
            .split(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("");
        // What follows the `Kind { .. }` debug text: `at line L, column
        // C`, or `(defined at ...) (used at ...)` for an alias.
        let place = rest
            .find('}')
            .map_or("", |i| rest[i + 1..].trim())
            .trim_start_matches('(')
            .trim_end_matches(')')
            .replace(") (", ", ");
        let why = match what {
            "Aliases" => "too many aliases (*name)".to_string(),
            "Anchors" => "too many anchors (&name)".to_string(),
            "Documents" => "too many documents (---)".to_string(),
            "Depth" => format!("nested deeper than {MAX_DEPTH} levels"),
            "Nodes" | "Events" => {
                "too many values (aliases expand to more than the text holds)".to_string()
            }
            "TotalScalarBytes" | "ScalarBytes" => {
                "the text expands to too much (aliases repeat their anchor's text)".to_string()
            }
            "AliasAnchorRatio" => "aliases expand far beyond the text (an alias bomb)".to_string(),
            "CommentBytes" => "more than 64 MiB of comments (# ...)".to_string(),
            "MergeKeys" => "more than 10,000 merge keys (<<)".to_string(),
            "RecordedAnchorEvents" | "RecordedAnchorBytes" => {
                "anchors (&name) that hold more than 64 MiB or a million values for aliases to repeat"
                    .to_string()
            }
            "SequenceUnbalanced" => "a sequence or mapping that never ends".to_string(),
            _ => "beyond a bound of the YAML reader".to_string(),
        };
        return format!("{why}, which a snapshot from kubectl never has; {place}")
            .trim_end_matches([';', ' '])
            .to_string();
    }
    // The YAML scanner's own nesting bound (deeper than 256 flow levels,
    // before the budget's depth is counted): the same bound, in its words.
    if text.starts_with("recursion limit exceeded") {
        return format!(
            "nested deeper than {MAX_DEPTH} levels, which a snapshot from kubectl never has;{}",
            yaml_place(&text)
        );
    }
    // serde-saphyr's advice to its own callers, not to a person.
    if text.contains("!!binary scalar is not valid UTF-8") {
        return format!(
            "a !!binary value that is not UTF-8 text, where text is expected{}",
            yaml_place(&text)
        );
    }
    if text.contains("recursive references require weak recursion types") {
        return format!(
            "an alias (*name) inside the anchor (&name) it repeats, a value that never ends, which a snapshot from kubectl never has{}",
            yaml_place(&text)
        );
    }
    if let Some(rest) = text.strip_prefix("non-finite float `") {
        let value = rest.split('`').next().unwrap_or("");
        return format!(
            "`{value}` is not a number any field of a Kubernetes object holds (YAML's .nan and .inf){}",
            yaml_place(&text)
        );
    }
    text.replace(", set DuplicateKeyPolicy in Options if acceptable", "")
        .replace("; use Option<String>", "")
        .replace("; use Option<char>", "")
        .replace(" by configured policy", "")
        .replace(" by the configured policy", "")
        .replace(
            "cannot deserialize tagged scalar into string",
            "a tagged value (!!tag) where text is expected",
        )
}

/// ` at line L, column C` of a rendered serde-saphyr message, or nothing.
pub(super) fn yaml_place(text: &str) -> String {
    text.rfind(" at line ")
        .map(|i| text[i..].to_string())
        .unwrap_or_default()
}

/// A typed field's error in a kubectl user's words: the time libraries'
/// parser steps, Rust's integer type names and serde's enum words go.
pub(super) fn field_problem(path: &str, message: &str) -> String {
    let field = path.rsplit('.').next().unwrap_or(path);
    let field = field.split('[').next().unwrap_or(field);
    let is_time = ["Timestamp", "Time", "time", "At"]
        .iter()
        .any(|end| field.ends_with(end));
    if is_time && !message.starts_with("invalid type") {
        return "not an RFC 3339 time with a time zone (e.g. 2026-11-29T10:16:00Z)".to_string();
    }
    if message.contains("did not match any variant of untagged enum") {
        return match message.rsplit(' ').next() {
            Some("IntOrString") => "expected a number or a string".to_string(),
            Some("Quantity") => "expected a quantity (e.g. 500m, 1Gi)".to_string(),
            _ => "not a value this field takes".to_string(),
        };
    }
    if let Some(range) = out_of_range(message) {
        return range;
    }
    let mut out = message.to_string();
    for (rust, words) in [
        ("expected i32", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected f64", "expected a number"),
        ("expected a borrowed string", "expected a string"),
        ("expected IntOrString", "expected a number or a string"),
        ("expected Quantity", "expected a quantity (e.g. 500m, 1Gi)"),
        (
            "expected a timestamp string",
            "expected an RFC 3339 time (e.g. 2026-11-29T10:16:00Z)",
        ),
        ("floating point `", "the number `"),
        ("integer `", "the number `"),
        ("boolean `", "the boolean `"),
    ] {
        out = out.replace(rust, words);
    }
    if message.starts_with("invalid type: boolean") && message.ends_with("expected a string") {
        out.push_str(YAML_BOOLEAN_HINT);
    }
    out
}

/// An integer field given a whole number beyond its type (serde says
/// "invalid value: integer `2147483648`, expected i32", or "invalid type:
/// floating point `1.8446744073709552e19`" for one beyond 64 bits): the
/// number as written, out of range, and the range.
pub(super) fn out_of_range(message: &str) -> Option<String> {
    let (number, rest) = message
        .strip_prefix("invalid value: integer `")
        .or_else(|| message.strip_prefix("invalid type: floating point `"))?
        .split_once("`, expected ")?;
    let range = match rest {
        "i32" => "from -2147483648 to 2147483647",
        "i64" => "from -9223372036854775808 to 9223372036854775807",
        "u32" => "from 0 to 4294967295",
        "u64" => "from 0 to 18446744073709551615",
        _ => return None,
    };
    let whole = if number.parse::<i128>().is_ok() {
        number.to_string()
    } else {
        // Beyond 64 bits, read as the nearest double: written whole (the
        // number as written when it is a power of two, as 2^64 is).
        let v = number.parse::<f64>().ok()?;
        // Smaller ones were written with a fraction or an exponent (`5.0`,
        // `1e3`): not a range problem.
        if !v.is_finite() || v.fract() != 0.0 || v.abs() < 9.0e18 {
            return None;
        }
        format!("{v:.0}")
    };
    Some(format!(
        "the number `{whole}` is out of range (this field holds a whole number {range})"
    ))
}

pub(super) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

/// `expected a string, found ...`, with the hint YAML's booleans need.
pub(super) fn expected_string(found: &Value) -> String {
    let mut text = format!("expected a string, found {}", type_name(found));
    if found.is_boolean() {
        text.push_str(YAML_BOOLEAN_HINT);
    }
    text
}

/// serde-saphyr reads YAML 1.1's booleans: an unquoted `y`, `n`, `yes`,
/// `no`, `on` or `off` is a boolean, where kubectl's YAML would have
/// quoted it.
pub(super) const YAML_BOOLEAN_HINT: &str =
    " (YAML reads an unquoted y, n, yes, no, on, off, true or false as a boolean: quote it)";

/// ` (Kind namespace/name)` for error messages, from whatever the raw
/// document has.
pub(super) fn describe(kind: &str, value: &Value) -> String {
    let meta = value.get("metadata");
    let field = |key: &str| {
        meta.and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    match (field("namespace"), field("name")) {
        (Some(ns), Some(name)) => format!(" ({kind} {ns}/{name})"),
        (None, Some(name)) => format!(" ({kind} {name})"),
        _ => format!(" ({kind})"),
    }
}
