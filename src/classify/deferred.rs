//! A primary the operator holds back (docs/plugin.md, "A primary held back"):
//! a later operator than the recordings' sets the ValkeyCluster's Ready
//! False and Progressing True with reason `RollDeferred` and the message
//! "Roll of shard N primary NODE deferred: CAUSE", and emits a Normal
//! `RollDeferred` event with it. The recordings' operator (c33988f) only
//! logs it; the strings here come from the later operator's source, and
//! the tests that use them are written by hand.

use super::events;
use super::judge::Judged;
use crate::report::{Deferred, DeferredSource};
use crate::snapshot::{ValkeyCluster, condition, keys};
use k8s_openapi::api::core::v1::Event;

/// "Roll of shard N primary NODE deferred: CAUSE", read leniently: the
/// words after `shard` and `primary`, and what follows `deferred:`; a
/// message of another form is its whole cause.
pub(crate) fn parse(message: &str) -> Deferred {
    let (head, cause) = message
        .split_once("deferred:")
        .unwrap_or((message, message));
    let mut words = head.split_whitespace();
    let mut shard = None;
    let mut primary = None;
    while let Some(w) = words.next() {
        match w {
            "shard" => {
                shard = words
                    .next()
                    .and_then(|n| n.trim_end_matches(':').parse().ok())
            }
            "primary" => primary = words.next().map(|n| n.trim_end_matches(':').to_string()),
            _ => {}
        }
    }
    Deferred {
        shard,
        primary,
        cause: cause.trim().to_string(),
        source: DeferredSource::Condition,
        replicas: Vec::new(),
    }
}

/// The primary held back, if the cluster says so: its Ready or
/// Progressing condition with reason `RollDeferred`, else the newest
/// `RollDeferred` event about it, unless the node it names has been
/// advanced since (the deferral is over) or is in flight.
pub(crate) fn deferred(
    cluster: Option<&ValkeyCluster>,
    cluster_events: &[&Event],
    nodes: &[Judged<'_>],
) -> Option<Deferred> {
    let from_condition = cluster.and_then(|c| {
        [keys::COND_PROGRESSING, keys::COND_READY]
            .into_iter()
            .filter_map(|t| condition(c.conditions(), t))
            .find(|c| c.reason.as_deref() == Some(keys::ROLL_DEFERRED))
            .map(|c| (parse(c.message.as_deref().unwrap_or("")), None))
    });
    let from_event = || {
        cluster_events
            .iter()
            .filter(|e| events::reason(e) == keys::ROLL_DEFERRED)
            .max_by_key(|e| events::time(e))
            .map(|e| {
                let mut d = parse(events::note(e));
                d.source = DeferredSource::Event;
                (d, events::time(e))
            })
    };
    let (d, at) = from_condition.or_else(from_event)?;
    let node = d
        .primary
        .as_deref()
        .and_then(|p| nodes.iter().find(|j| j.name() == p));
    if let Some(j) = node {
        let advanced_since = at.is_some_and(|at| j.view.advance_times().any(|t| t > at));
        if j.holder || advanced_since {
            return None;
        }
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        let cases = [
            (
                "Roll of shard 1 primary cache-1-0 deferred: primary has no synced replicas",
                Some(1),
                Some("cache-1-0"),
                "primary has no synced replicas",
            ),
            ("deferred: waiting", None, None, "waiting"),
            ("something else", None, None, "something else"),
            (
                "Roll of shard x primary",
                None,
                None,
                "Roll of shard x primary",
            ),
        ];
        for (message, shard, primary, cause) in cases {
            let d = parse(message);
            assert_eq!(d.shard, shard, "{message}");
            assert_eq!(d.primary.as_deref(), primary, "{message}");
            assert_eq!(d.cause, cause, "{message}");
        }
    }
}
