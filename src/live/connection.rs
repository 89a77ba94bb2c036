//! A context's connection as its live view knows it: live, or lost since
//! when (the time its reading is "as of", docs/usage.md "When the
//! connection is lost") and until the next try. Words for it are render's.

use crate::source::watch::Connection;
use jiff::Timestamp;
use std::time::Duration;
use tokio::time::Instant;

/// The connection state as shown; `Lost` keeps the moment of the next try
/// so the countdown runs between updates, and since when the view is
/// blind (the time its reading is "as of").
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ConnectionView {
    Live,
    Lost {
        retry_at: Instant,
        error: String,
        /// When the watch first said the connection was lost (kept over
        /// the failed tries that follow): the view is as of then.
        since: Timestamp,
    },
}

impl From<Connection> for ConnectionView {
    fn from(c: Connection) -> Self {
        ConnectionView::Live.then(c, Timestamp::now())
    }
}

impl ConnectionView {
    /// The state after the watch said `c` at `now`: a loss that goes on
    /// keeps the moment it began.
    pub(crate) fn then(&self, c: Connection, now: Timestamp) -> ConnectionView {
        match c {
            Connection::Live => ConnectionView::Live,
            Connection::Lost { retry_in, error } => ConnectionView::Lost {
                retry_at: Instant::now() + retry_in,
                error,
                since: match self {
                    ConnectionView::Lost { since, .. } => *since,
                    ConnectionView::Live => now,
                },
            },
        }
    }

    /// The time the view's reading is as of when it is stale (the
    /// connection lost, docs/usage.md "When the connection is lost"), else
    /// `None`: a live watch hears every change as it comes.
    pub(crate) fn stale_since(&self) -> Option<Timestamp> {
        match self {
            ConnectionView::Live => None,
            ConnectionView::Lost { since, .. } => Some(*since),
        }
    }

    /// How long until the next try (`None` when live); never negative.
    pub(crate) fn retry_in(&self, now: Instant) -> Option<Duration> {
        match self {
            ConnectionView::Live => None,
            ConnectionView::Lost { retry_at, .. } => Some(retry_at.saturating_duration_since(now)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_view_knows_when_the_next_try_is() {
        let now = Instant::now();
        let lost = |after: Duration| ConnectionView::Lost {
            retry_at: now + after,
            error: "connection refused".into(),
            since: Timestamp::UNIX_EPOCH,
        };
        assert_eq!(ConnectionView::Live.retry_in(now), None);
        assert_eq!(
            lost(Duration::from_millis(3200)).retry_in(now),
            Some(Duration::from_millis(3200))
        );
        // A try already due is due now, not overdue.
        assert_eq!(
            lost(Duration::ZERO).retry_in(now + Duration::from_secs(5)),
            Some(Duration::ZERO)
        );
    }

    /// A loss that goes on (each failed try says Lost again) keeps the
    /// moment it began: the view is as of then, not of the last try.
    #[test]
    fn a_loss_keeps_when_it_began_until_the_view_is_live() {
        let t = |s: i64| Timestamp::from_second(s).expect("a time");
        let lost = || Connection::Lost {
            retry_in: Duration::from_secs(4),
            error: "connection refused".into(),
        };
        let view = ConnectionView::Live;
        assert_eq!(view.stale_since(), None);
        let view = view.then(lost(), t(100));
        assert_eq!(view.stale_since(), Some(t(100)));
        let view = view.then(lost(), t(130));
        assert_eq!(view.stale_since(), Some(t(100)), "still as of the loss");
        let view = view.then(Connection::Live, t(140));
        assert_eq!(view.stale_since(), None);
        let view = view.then(lost(), t(150));
        assert_eq!(view.stale_since(), Some(t(150)), "a new loss");
    }
}
