//! Small pieces the classifier shares: the words it looks for in
//! condition messages and event notes. (Durations: [`super::clock`].)

/// The hash that follows the word `hash` in a condition message or event
/// note (`... template hash <h> awaits ...`, `(hash <h>)`), without quotes
/// or trailing punctuation.
pub(crate) fn hash_in(text: &str) -> Option<&str> {
    let mut words = text.split_whitespace();
    while let Some(w) = words.next() {
        if w.trim_start_matches('(') == "hash" {
            let h = words.next()?.trim_matches(|c: char| {
                matches!(c, '"' | '\'' | '(' | ')' | ',' | '.' | ';' | ':')
            });
            return (!h.is_empty()).then_some(h);
        }
    }
    None
}

/// `text` contains `word` as a whole word: not inside a longer name
/// (`cache-0-1` is not in `cache-0-10` nor in `valkey-cache-0-1-0`). A
/// sentence's closing dot still ends a word.
pub(crate) fn contains_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let name_char = is_name_char;
    let mut from = 0;
    while let Some(pos) = text[from..].find(word) {
        let start = from + pos;
        let end = start + word.len();
        let before_ok = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !name_char(c));
        let mut after = text[end..].chars();
        let after_ok = match after.next() {
            None => true,
            Some('.') => after.next().is_none_or(|c| !c.is_ascii_alphanumeric()),
            Some(c) => !name_char(c),
        };
        if before_ok && after_ok {
            return true;
        }
        from = start + word.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// A character that can be part of a name, for [`contains_word`].
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Every word [`contains_word`] finds in `text` among names made of name
/// characters only: each maximal run of name characters, and each start of
/// a run that ends just before a `.` not followed by a letter or digit. For
/// such a name `w`, `contains_word(text, w)` is
/// `whole_words(text).contains(&w)`; this lets the classifier look events
/// up by the nodes their notes name instead of trying every node on every
/// event.
pub(crate) fn whole_words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut run_start = None;
    for (i, c) in text.char_indices() {
        match (run_start, is_name_char(c)) {
            (None, true) => run_start = Some(i),
            (Some(s), false) => {
                out.push(&text[s..i]);
                run_start = None;
            }
            _ => {}
        }
        if let Some(s) = run_start
            && c == '.'
            && i > s
            && text[i + 1..]
                .chars()
                .next()
                .is_none_or(|n| !n.is_ascii_alphanumeric())
        {
            out.push(&text[s..i]);
        }
    }
    if let Some(s) = run_start {
        out.push(&text[s..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_in_messages() {
        let cases = [
            (
                "desired workload template hash abc123 awaits cluster roll permit",
                Some("abc123"),
            ),
            (
                "desired workload template hash 9f2c awaits Spec.WorkloadRevision (have \"41ab\")",
                Some("9f2c"),
            ),
            (
                "Granted workload roll permit for cache-0-1 (hash h1)",
                Some("h1"),
            ),
            ("Applied pod template update (hash h2).", Some("h2")),
            ("no hash", None),
            ("Updated ValkeyNode cache-0-1", None),
        ];
        for (text, want) in cases {
            assert_eq!(hash_in(text), want, "{text}");
        }
    }

    #[test]
    fn whole_words() {
        let cases = [
            ("Granted workload roll permit for cache-0-1 (hash h)", true),
            (
                "Granted workload roll permit for cache-0-10 (hash h)",
                false,
            ),
            ("pod valkey-cache-0-1-0 restarted", false),
            ("Updated ValkeyNode cache-0-1.", true),
            ("Updated cache-0-1.x", false),
            ("prod/cache-0-1 updated", true),
            ("cache-0-1", true),
            ("xcache-0-1 cache-0-1", true),
            ("", false),
        ];
        for (text, want) in cases {
            assert_eq!(contains_word(text, "cache-0-1"), want, "{text}");
        }
    }

    #[test]
    fn whole_words_finds_what_contains_word_finds() {
        let texts = [
            "Granted workload roll permit for cache-0-1 (hash h)",
            "Granted workload roll permit for cache-0-10 (hash h)",
            "pod valkey-cache-0-1-0 restarted",
            "Updated ValkeyNode cache-0-1.",
            "Updated cache-0-1.x",
            "Updated cache-0-1.-x and cache-0-1..",
            "prod/cache-0-1 updated",
            "cache-0-1",
            "xcache-0-1 cache-0-1",
            ".cache-0-1 é cache-0-1é a.b.c",
            "",
        ];
        let words = [
            "cache-0-1",
            "cache-0-10",
            "cache-0-1.",
            "cache-0-1.x",
            "valkey-cache-0-1-0",
            "a",
            "a.b",
            "a.b.c",
            "b.c",
            "cache",
            "x",
        ];
        for text in texts {
            let found = super::whole_words(text);
            for word in words {
                assert_eq!(
                    found.contains(&word),
                    contains_word(text, word),
                    "{word:?} in {text:?}"
                );
            }
        }
        assert_eq!(
            super::whole_words("see cache-0-1. then a.b"),
            ["see", "cache-0-1", "cache-0-1.", "then", "a.b"]
        );
    }
}
