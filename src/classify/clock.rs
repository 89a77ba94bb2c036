//! The judging instant, and the earliest later instant at which one of
//! the classifier's comparisons against it would come out otherwise; and
//! the arithmetic of durations as the report states them ([`since`],
//! [`over`], [`secs`]).
//!
//! Time alone changes verdicts (a holder crosses the stall threshold, a
//! pod has been Unschedulable past its grace). Every comparison that
//! decides a state or a verdict goes through a [`Clock`], which notes when
//! it would flip; the report carries the earliest such instant, so
//! `status --watch` judges again then instead of on a fixed tick.

use jiff::{SignedDuration, Timestamp};
use std::cell::Cell;

/// A flip that happens "just after" an instant: the tokio timer's
/// resolution, so a re-judge at `t + limit + JUST_AFTER` sees `> limit`.
const JUST_AFTER: SignedDuration = SignedDuration::from_millis(1);

/// `now - then` in whole seconds, never negative: a time in the future
/// (clock skew) counts as now.
pub(crate) fn since(now: Timestamp, then: Timestamp) -> SignedDuration {
    let d = now.duration_since(then);
    if d.is_negative() {
        SignedDuration::ZERO
    } else {
        d
    }
}

/// `d` is over the threshold `t`, as the report shows it: on the whole
/// seconds it reports (`quietForSeconds`, `heldForSeconds`), so that a
/// script applying docs/plugin.md's tables to the document agrees with the
/// verdict (60.5 s quiet is not over 60 s).
pub(crate) fn over(d: SignedDuration, t: SignedDuration) -> bool {
    SignedDuration::from_secs(d.as_secs()) > t
}

/// Whole seconds of a non-negative duration.
pub(crate) fn secs(d: SignedDuration) -> u64 {
    u64::try_from(d.as_secs()).unwrap_or(0)
}

#[derive(Debug)]
pub(crate) struct Clock {
    now: Timestamp,
    next: Cell<Option<Timestamp>>,
}

impl Clock {
    pub(crate) fn new(now: Timestamp) -> Clock {
        Clock {
            now,
            next: Cell::new(None),
        }
    }

    pub(crate) fn now(&self) -> Timestamp {
        self.now
    }

    /// The earliest instant after `now` at which a comparison made so far
    /// would come out otherwise; None: none would, by time alone.
    pub(crate) fn next_change(&self) -> Option<Timestamp> {
        self.next.get()
    }

    /// Notes that a comparison flips at `at`.
    fn flips_at(&self, at: Option<Timestamp>) {
        if let Some(at) = at.filter(|at| *at > self.now) {
            let next = self.next.get().map_or(at, |n| n.min(at));
            self.next.set(Some(next));
        }
    }

    /// Time since `then` is strictly over `limit`, on the whole seconds the
    /// report shows ([`over`]): `floor(d) > limit`, which turns
    /// true at `then + floor(limit) + 1s`.
    pub(crate) fn over(&self, then: Timestamp, limit: SignedDuration) -> bool {
        let d = since(self.now, then);
        let over = over(d, limit);
        if !over {
            let whole = SignedDuration::from_secs(limit.as_secs().saturating_add(1));
            self.flips_at(then.checked_add(whole).ok());
        }
        over
    }

    /// Time since `then` is strictly more than `limit` (to the nanosecond).
    pub(crate) fn beyond(&self, then: Timestamp, limit: SignedDuration) -> bool {
        let beyond = since(self.now, then) > limit;
        if !beyond {
            self.flips_at(
                then.checked_add(limit)
                    .and_then(|t| t.checked_add(JUST_AFTER))
                    .ok(),
            );
        }
        beyond
    }

    /// Time since `then` is at most `limit`: [`Clock::beyond`]'s negation.
    pub(crate) fn within(&self, then: Timestamp, limit: SignedDuration) -> bool {
        !self.beyond(then, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::t;

    #[test]
    fn each_comparison_notes_when_it_flips() {
        const fn s(secs: i64) -> SignedDuration {
            SignedDuration::from_secs(secs)
        }
        // (case, comparison at t(0), its result, the instant it flips)
        type Compare = fn(&Clock) -> bool;
        let cases: &[(&str, Compare, bool, Option<Timestamp>)] = &[
            ("over, 5s in", |c| c.over(t(-5), s(10)), false, Some(t(6))),
            (
                "over, at the limit",
                |c| c.over(t(-10), s(10)),
                false,
                Some(t(1)),
            ),
            ("over already", |c| c.over(t(-11), s(10)), true, None),
            (
                "beyond, 5s in",
                |c| c.beyond(t(-5), s(10)),
                false,
                Some(t(5) + JUST_AFTER),
            ),
            ("beyond already", |c| c.beyond(t(-11), s(10)), true, None),
            (
                "within, 5s in",
                |c| c.within(t(-5), s(10)),
                true,
                Some(t(5) + JUST_AFTER),
            ),
            ("within no more", |c| c.within(t(-11), s(10)), false, None),
            (
                "a time in the future counts as now",
                |c| c.over(t(30), s(10)),
                false,
                Some(t(41)),
            ),
        ];
        for (name, compare, want, flips) in cases {
            let clock = Clock::new(t(0));
            assert_eq!(compare(&clock), *want, "{name}");
            assert_eq!(clock.next_change(), *flips, "{name}");
        }
    }

    #[test]
    fn never_negative() {
        let a: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let b: Timestamp = "2026-01-01T00:05:00Z".parse().unwrap();
        assert_eq!(since(a, b), SignedDuration::ZERO);
        assert_eq!(since(b, a), SignedDuration::from_secs(300));
    }

    #[test]
    fn the_earliest_flip_is_kept() {
        let clock = Clock::new(t(0));
        let s = SignedDuration::from_secs;
        clock.over(t(0), s(60));
        clock.beyond(t(0), s(5));
        clock.over(t(0), s(30));
        assert_eq!(clock.next_change(), Some(t(5) + JUST_AFTER));
    }
}
