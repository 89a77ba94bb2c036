//! What is said about time: the clock a report was judged by (`--now`),
//! and how long each API request took (`-v`).

use crate::units::timestamp;
use jiff::Timestamp;

/// `--now` lies before every time the snapshot holds: every age, hold
/// and wait is measured from a moment before it all and reads 0s.
pub(crate) fn before_everything(now: Timestamp, earliest: Timestamp) -> String {
    format!(
        "warning: --now {} is before every time in the snapshot (the earliest is {}): every age, hold and wait reads 0s; the snapshot's own time is likely later\n",
        timestamp(now),
        timestamp(earliest)
    )
}

/// `--now` lies before some of the times the snapshot holds (`count`,
/// the latest `latest`): what is measured from them reads 0s.
pub(crate) fn before_some(now: Timestamp, latest: Timestamp, count: usize) -> String {
    let times = if count == 1 {
        "1 time".to_string()
    } else {
        format!("{count} times")
    };
    format!(
        "warning: --now {} is before {times} in the snapshot (the latest is {}): each age, hold and wait measured from them reads 0s; the snapshot's own time is likely later\n",
        timestamp(now),
        timestamp(latest)
    )
}

/// `-v 6`: one API request, as kubectl logs it: `GET URL 200 OK in 12
/// milliseconds`.
pub(crate) fn request(verb: &str, url: &str, status: &str, millis: u64) -> String {
    format!("{verb} {url} {status} in {millis} milliseconds")
}

/// `-v 8`: the size of a request's response, once it is read whole.
pub(crate) fn response_size(verb: &str, url: &str, bytes: u64) -> String {
    format!("{verb} {url} response body: {bytes} bytes")
}
