//! `status --watch`'s own words: the last line of a terminal frame
//! ("updated 10:16:11 · live"), the connection's state, and the line off a
//! terminal when the connection is lost or back. `commands::watch` keeps
//! the facts (when the next try is); what is said is here.

use crate::units::human;
use jiff::Timestamp;
use std::time::Duration;

/// The frame's body before the first report.
pub(crate) const LISTING: &str = "Listing and watching...\n";

/// "live" (`retry_in` is `None`), or "connection lost, retrying in 4s"
/// (whole seconds, rounded up, so it never says 0s before the try).
pub(crate) fn connection_words(retry_in: Option<Duration>) -> String {
    match retry_in {
        None => "live".to_string(),
        Some(left) if left.is_zero() => "connection lost, retrying now".to_string(),
        Some(left) => {
            let secs = left.as_millis().div_ceil(1000);
            format!("connection lost, retrying in {secs}s")
        }
    }
}

/// The stderr line off a terminal: the connection is back (`lost` is
/// `None`), or lost, with when it is tried again and why.
pub(crate) fn connection_log_line(lost: Option<(Duration, &str)>) -> String {
    match lost {
        None => "connection restored; the view is live again\n".to_string(),
        Some((retry_in, error)) => {
            format!("{}: {error}\n", connection_words(Some(retry_in)))
        }
    }
}

/// A reading no longer current, by its time and age: "as of 10:16:11
/// (12s ago)" (local time, whole seconds, never negative). Said on each
/// verdict of a view whose connection is lost (`status --watch`'s
/// headlines, the dashboard's cards, `wait`'s line), beside nothing that
/// says the roll is well.
pub(crate) fn as_of(read_at: Timestamp, now: Timestamp) -> String {
    let local = read_at.to_zoned(jiff::tz::TimeZone::system());
    let ago = u64::try_from(read_at.duration_until(now).as_secs()).unwrap_or(0);
    format!("as of {} ({} ago)", local.strftime("%H:%M:%S"), human(ago))
}

/// `wait`'s line while its view is stale: it does not decide on it.
pub(crate) fn wait_stale(as_of: &str) -> String {
    format!("the view is {as_of}: the connection is lost; not deciding until it is back\n")
}

/// The last line of a terminal frame.
pub(crate) fn status_line(updated: Timestamp, connection: &str) -> String {
    let local = updated.to_zoned(jiff::tz::TimeZone::system());
    format!("updated {} · {connection}", local.strftime("%H:%M:%S"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_words_count_down_in_whole_seconds() {
        let cases: &[(Option<Duration>, &str)] = &[
            (None, "live"),
            (
                Some(Duration::from_millis(3200)),
                "connection lost, retrying in 4s",
            ),
            (Some(Duration::ZERO), "connection lost, retrying now"),
        ];
        for (retry_in, words) in cases {
            assert_eq!(connection_words(*retry_in), *words, "{retry_in:?}");
        }
        assert_eq!(
            connection_log_line(Some((Duration::from_secs(1), "connection refused"))),
            "connection lost, retrying in 1s: connection refused\n"
        );
        assert_eq!(
            connection_log_line(None),
            "connection restored; the view is live again\n"
        );
    }

    #[test]
    fn as_of_says_the_time_and_the_age() {
        let t = |s: i64| Timestamp::from_second(s).expect("a time");
        // (read at, now, the age said)
        let cases: &[(i64, i64, &str)] = &[
            (1_000, 1_000, "(0s ago)"),
            (1_000, 1_012, "(12s ago)"),
            (1_000, 1_090, "(1m30s ago)"),
            // A clock that went back says no negative age.
            (1_000, 990, "(0s ago)"),
        ];
        for (read, now, want) in cases {
            let words = as_of(t(*read), t(*now));
            assert!(words.starts_with("as of "), "{words}");
            assert!(words.ends_with(want), "{words}: {want}");
            // HH:MM:SS
            assert_eq!(
                words["as of ".len()..].split(' ').next().map(str::len),
                Some(8)
            );
        }
    }

    #[test]
    fn status_line_names_the_time_and_the_connection() {
        let line = status_line(Timestamp::UNIX_EPOCH, "live");
        assert!(line.starts_with("updated "), "{line}");
        assert!(line.ends_with(" · live"), "{line}");
        // HH:MM:SS
        let time = &line["updated ".len()..line.len() - " · live".len()];
        assert_eq!(time.len(), 8, "{line}");
        assert_eq!(time.matches(':').count(), 2, "{line}");
    }
}
