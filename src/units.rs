//! The short forms people read durations and hashes in ("14m", "2h3m", a
//! hash cut to 12 characters). A neutral module below every layer: render
//! words with them, and the classifier and the planner give the same forms
//! in the few facts they spell (a revision, a held time).

use jiff::Timestamp;

/// How many characters of a revision hash a table shows.
pub(crate) const SHORT_HASH: usize = 12;

/// A duration for people, in its two most significant units: `45s`, `14m`,
/// `10m1s`, `2h3m`, `3d4h`.
///
/// Two units keep a threshold boundary visible (held `10m1s` against a
/// stall threshold of `10m`) without the noise of seconds on a day-long
/// wait. The classifier's reason sentences call this too
/// (`classify::text::human`), so the table and the prose agree.
pub(crate) fn human(seconds: u64) -> String {
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (hours, rest) = (rest / 3_600, rest % 3_600);
    let (minutes, secs) = (rest / 60, rest % 60);
    let units = [(days, "d"), (hours, "h"), (minutes, "m"), (secs, "s")];
    let Some(first) = units.iter().position(|(v, _)| *v > 0) else {
        return "0s".to_string();
    };
    let (value, unit) = units[first];
    match units.get(first + 1) {
        Some((next, next_unit)) if *next > 0 => format!("{value}{unit}{next}{next_unit}"),
        _ => format!("{value}{unit}"),
    }
}

/// [`human`] of an optional duration; `absent` where it is unknown.
pub(crate) fn human_or(seconds: Option<u64>, absent: &str) -> String {
    seconds.map_or_else(|| absent.to_string(), human)
}

/// Whole seconds from `then` to `now`; 0 when `then` is in the future
/// (clock skew never gives a negative duration).
pub(crate) fn seconds_since(then: Timestamp, now: Timestamp) -> u64 {
    let secs = now.as_second().saturating_sub(then.as_second());
    u64::try_from(secs).unwrap_or(0)
}

/// The age of `then` at `now`, e.g. `14m`; `in the future` for a time
/// after `now` (clock skew, or a hand-edited object): a fact to show, not
/// a `0s` that hides it.
pub(crate) fn age(then: Timestamp, now: Timestamp) -> String {
    if then > now {
        "in the future".to_string()
    } else {
        human(seconds_since(then, now))
    }
}

/// The first [`SHORT_HASH`] characters of a revision hash (`*` and short
/// values unchanged).
pub(crate) fn short_hash(hash: &str) -> &str {
    match hash.char_indices().nth(SHORT_HASH) {
        Some((cut, _)) => &hash[..cut],
        None => hash,
    }
}

/// A timestamp as RFC 3339 to the second, e.g. `2026-11-29T10:02:11Z`.
/// A time the API held after the latest one the plugin can
/// ([`LATEST`](crate::snapshot::LATEST)) reads `9999-12-30T22:00:00Z or
/// later`: true, and as much as is known.
pub(crate) fn timestamp(t: Timestamp) -> String {
    if crate::snapshot::is_latest(t) {
        return "9999-12-30T22:00:00Z or later".to_string();
    }
    // Sub-second digits are noise for people and make columns uneven.
    match Timestamp::from_second(t.as_second()) {
        Ok(whole) => whole.to_string(),
        Err(_) => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_durations() {
        let cases: &[(u64, &str)] = &[
            (0, "0s"),
            (45, "45s"),
            (59, "59s"),
            (60, "1m"),
            (125, "2m5s"),
            (600, "10m"),
            (601, "10m1s"),
            (840, "14m"),
            (3599, "59m59s"),
            (3600, "1h"),
            (3601, "1h"),
            (2 * 3600 + 3 * 60 + 40, "2h3m"),
            (86_400, "1d"),
            (86_400 + 59, "1d"),
            (3 * 86_400 + 4 * 3600 + 59, "3d4h"),
            (400 * 86_400, "400d"),
        ];
        for (secs, want) in cases {
            assert_eq!(human(*secs), *want, "{secs}s");
        }
    }

    #[test]
    fn absent_durations() {
        assert_eq!(human_or(None, "-"), "-");
        assert_eq!(human_or(Some(90), "-"), "1m30s");
    }

    #[test]
    fn future_times_count_as_zero() {
        let now: Timestamp = "2026-11-29T10:16:00Z".parse().unwrap();
        let later: Timestamp = "2026-11-29T10:20:00Z".parse().unwrap();
        let earlier: Timestamp = "2026-11-29T10:02:00Z".parse().unwrap();
        assert_eq!(seconds_since(later, now), 0);
        assert_eq!(seconds_since(earlier, now), 840);
        assert_eq!(age(earlier, now), "14m");
    }

    #[test]
    fn hashes_shorten_to_twelve() {
        let cases: &[(&str, &str)] = &[
            ("9f2c41ab03de77aa01", "9f2c41ab03de"),
            ("9f2c41ab03de", "9f2c41ab03de"),
            ("abc", "abc"),
            ("*", "*"),
            ("", ""),
            ("ééééééééééééé", "éééééééééééé"),
        ];
        for (hash, want) in cases {
            assert_eq!(short_hash(hash), *want, "{hash}");
        }
    }

    #[test]
    fn timestamps_drop_subseconds() {
        let t: Timestamp = "2026-11-29T10:02:11.123456Z".parse().unwrap();
        assert_eq!(timestamp(t), "2026-11-29T10:02:11Z");
    }
}
