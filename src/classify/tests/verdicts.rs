//! Every row of docs/plugin.md's verdict table and quiet time (the reason
//! sentences: render::words::tests).

use super::*;
use crate::fixture::{event_applied, event_permitted, mins, t};
use NodeState::*;

fn at0(c: &ClusterBuilder) -> ClusterReport {
    judge(&c.snapshot(), t(0))
}

#[test]
fn verdict_table() {
    let rows: Vec<(&str, ClusterBuilder, Verdict)> = vec![
        (
            "Conflict: two holders",
            cluster()
                .node(healthy("cache-0-1", 0, 1).permit("h1").desired("h1"))
                .node(healthy("cache-1-1", 1, 1).permit("h1").desired("h1"))
                .node(healthy("cache-0-0", 0, 0)),
            Verdict::Conflict,
        ),
        (
            "Conflict beats Jammed",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .permit("h1")
                        .pod_waiting("CrashLoopBackOff", 3),
                )
                .node(healthy("cache-1-1", 1, 1).permit("h1").desired("h1")),
            Verdict::Conflict,
        ),
        (
            "Jammed: the holder is Stuck",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .permit("h1")
                        .pod_waiting("CrashLoopBackOff", 3),
                )
                .node(healthy("cache-0-0", 0, 0).desired("h1")),
            Verdict::Jammed,
        ),
        (
            "Jammed: StalePermit held over 1 minute",
            cluster()
                .node(healthy("cache-0-1", 0, 1).permit("h-old").desired("h-new"))
                .event(event_permitted(NS, CL, "cache-0-1", "h-old", t(-61))),
            Verdict::Jammed,
        ),
        (
            "Jammed: StalePermit held for an unknown time",
            cluster().node(healthy("cache-0-1", 0, 1).permit("h-old").desired("h-new")),
            Verdict::Jammed,
        ),
        (
            "Rolling: StalePermit held exactly 1 minute",
            cluster()
                .node(healthy("cache-0-1", 0, 1).permit("h-old").desired("h-new"))
                .event(event_permitted(NS, CL, "cache-0-1", "h-old", t(-60))),
            Verdict::Rolling,
        ),
        (
            // The report says held 60 s: over 1 minute only on whole
            // seconds, as the document shows it (classify_props found it).
            "Rolling: StalePermit held 1 minute and half a second",
            cluster()
                .node(healthy("cache-0-1", 0, 1).permit("h-old").desired("h-new"))
                .event(event_permitted(
                    NS,
                    CL,
                    "cache-0-1",
                    "h-old",
                    t(-60) - jiff::SignedDuration::from_millis(500),
                )),
            Verdict::Rolling,
        ),
        (
            "Jammed: no holder, the front is Blocking with failure evidence",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .not_ready(mins(-3))
                        .pod_waiting("CrashLoopBackOff", 9),
                )
                .node(healthy("cache-0-0", 0, 0).desired("h1")),
            Verdict::Jammed,
        ),
        (
            "Waiting: the front is Blocking without failure evidence",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .not_ready(mins(-3))
                        .pod_not_ready(mins(-3)),
                )
                .node(healthy("cache-0-0", 0, 0).desired("h1")),
            Verdict::Waiting,
        ),
        (
            "Waiting: failure evidence behind a Waiting front does not jam",
            cluster()
                .node(healthy("cache-0-1", 0, 1).desired("h1"))
                .node(
                    healthy("cache-0-0", 0, 0)
                        .not_ready(mins(-3))
                        .pod_waiting("CrashLoopBackOff", 9),
                ),
            Verdict::Waiting,
        ),
        (
            "Rolling: one holder",
            cluster()
                .node(healthy("cache-0-1", 0, 1).permit("h1").desired("h1"))
                .node(healthy("cache-0-0", 0, 0).desired("h1"))
                .event(event_permitted(NS, CL, "cache-0-1", "h1", mins(-2))),
            Verdict::Rolling,
        ),
        (
            "Rolling: one Settling holder",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .permit("h1")
                        .pod_ready_since(mins(-1)),
                )
                .event(event_permitted(NS, CL, "cache-0-1", "h1", mins(-2))),
            Verdict::Rolling,
        ),
        (
            "Stalled: a Waiting front, quiet over T",
            cluster().node(
                healthy("cache-0-1", 0, 1)
                    .desired("h1")
                    .drift("h1", mins(-20)),
            ),
            Verdict::Stalled,
        ),
        (
            "Stalled: a Blocking front, quiet over T",
            cluster().node(
                healthy("cache-0-1", 0, 1)
                    .not_ready(mins(-20))
                    .pod_not_ready(mins(-20)),
            ),
            Verdict::Stalled,
        ),
        (
            "Stalled: no front, the ValkeyCluster not done for 20m",
            fixture::cluster(NS, CL)
                .updating_nodes(mins(-20))
                .node(healthy("cache-0-1", 0, 1))
                .node(healthy("cache-0-0", 0, 0)),
            Verdict::Stalled,
        ),
        (
            "Waiting: quiet at most T",
            cluster().node(
                healthy("cache-0-1", 0, 1)
                    .desired("h1")
                    .drift("h1", mins(-5)),
            ),
            Verdict::Waiting,
        ),
        (
            "Waiting: a recent roll event keeps it from Stalled",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .desired("h1")
                        .drift("h1", mins(-20)),
                )
                .event(event_applied(NS, "cache-0-0", "h1", mins(-2)))
                .node(healthy("cache-0-0", 0, 0)),
            Verdict::Waiting,
        ),
        (
            "Waiting: the ValkeyCluster's Ready for an older generation, start unknown",
            cluster().spec_edited().node(healthy("cache-0-1", 0, 1)),
            Verdict::Waiting,
        ),
        (
            "Converged: nothing unfinished",
            cluster()
                .node(healthy("cache-0-1", 0, 1))
                .node(healthy("cache-0-0", 0, 0)),
            Verdict::Converged,
        ),
        (
            "Converged: no Ready condition, nodes at rest",
            fixture::cluster(NS, CL).node(healthy("cache-0-1", 0, 1)),
            Verdict::Converged,
        ),
    ];
    for (name, c, want) in rows {
        let r = at0(&c);
        assert_eq!(r.verdict, want, "{name}: reason {:?}", r.reason);
    }
}

#[test]
fn quiet_for() {
    let cases: Vec<(&str, ClusterBuilder, Option<u64>)> = vec![
        (
            "not unfinished: null",
            cluster().node(healthy("cache-0-1", 0, 1)),
            None,
        ),
        (
            "from the drift transition",
            cluster().node(healthy("cache-0-1", 0, 1).drift("h1", mins(-7))),
            Some(420),
        ),
        (
            "the oldest start wins over a newer one",
            cluster()
                .node(healthy("cache-0-1", 0, 1).drift("h1", mins(-7)))
                .node(healthy("cache-0-0", 0, 0).drift("h1", mins(-3))),
            Some(420),
        ),
        (
            "a later sign of progress wins over the start",
            cluster()
                .node(healthy("cache-0-1", 0, 1).drift("h1", mins(-7)))
                .node(healthy("cache-0-2", 0, 2).ready().pod_ready_since(mins(-2))),
            Some(120),
        ),
        (
            "a grant by hand is progress",
            cluster()
                .node(healthy("cache-0-1", 0, 1).drift("h1", mins(-30)))
                .node(healthy("cache-0-2", 0, 2).trace("h0", "alice", mins(-4), "test")),
            Some(240),
        ),
        (
            "an unknown start is now",
            cluster().node(healthy("cache-0-1", 0, 1).desired("h1")),
            Some(0),
        ),
        (
            "the ValkeyCluster's Ready transition for its generation",
            fixture::cluster(NS, CL)
                .updating_nodes(mins(-9))
                .node(healthy("cache-0-1", 0, 1)),
            Some(540),
        ),
        (
            "events of another cluster do not count",
            cluster()
                .node(healthy("cache-0-1", 0, 1).drift("h1", mins(-7)))
                .event(event_applied(NS, "other-0-1", "h1", mins(-1))),
            Some(420),
        ),
        (
            "a start in the future counts as now",
            cluster().node(healthy("cache-0-1", 0, 1).drift("h1", mins(5))),
            Some(0),
        ),
    ];
    for (name, c, want) in cases {
        assert_eq!(at0(&c).quiet_for_seconds, want, "{name}");
    }
}

#[test]
fn cluster_fields() {
    let c = fixture::cluster(NS, CL)
        .updating_nodes(mins(-20))
        .node(
            healthy("cache-0-1", 0, 1)
                .permit("h1")
                .pod_waiting("CrashLoopBackOff", 7),
        )
        .node(healthy("cache-0-0", 0, 0).desired("h1"))
        .node(healthy("cache-1-1", 1, 1).not_ready(mins(-1)))
        .node(healthy("cache-1-0", 1, 0).desired("h1"))
        .node(healthy("cache-2-0", 2, 0).standalone());
    let r = at0(&c);
    assert_eq!(r.verdict, Verdict::Jammed);
    assert_eq!(r.holders, vec!["cache-0-1".to_string()]);
    assert_eq!(r.front.as_deref(), Some("cache-0-0"));
    assert_eq!((r.waiting, r.blocking, r.total), (2, 1, 4));
    assert_eq!(r.state.as_deref(), Some("Reconciling"));
    assert_eq!(r.state_reason.as_deref(), Some("UpdatingNodes"));
    assert_eq!(r.stall_threshold_seconds, 600);
    assert!(r.cluster_found && !r.unfinished_by_cluster);
    assert_eq!(state(&r, "cache-2-0"), Standalone);
    assert_eq!(
        node(&r, "cache-1-0").reason,
        crate::report::NodeReason::Waiting {
            queue: 2,
            ahead: crate::report::Ahead::Holders(vec!["cache-0-1".into()])
        }
    );
}

/// Issue 12 item 4: the operator's `SupersededPodDeleted` (PR #410), on
/// the ValkeyNode, is progress (the quiet time restarts from it, so a
/// roll it unjams is not Stalled) and is in the node's explain timeline.
#[test]
fn superseded_pod_deleted_is_progress_and_in_the_timeline() {
    use crate::fixture::{event, object};
    use crate::snapshot::keys;
    let deleted = |node: &str, at| {
        event(
            NS,
            keys::EVENT_SUPERSEDED_DELETED,
            object(NS, "ValkeyNode", node),
            None,
            "Deleted superseded pod valkey-cache-0-1-0 (not Ready, revision old)",
            at,
        )
    };
    let base = || cluster().node(healthy("cache-0-1", 0, 1).drift("h1", mins(-30)));
    // (case, cluster, quiet for, verdict)
    let cases: Vec<(&str, ClusterBuilder, Option<u64>, Verdict)> = vec![
        (
            "without it: quiet 30m, Stalled",
            base(),
            Some(1800),
            Verdict::Stalled,
        ),
        (
            "2m ago on the node: quiet 2m, Waiting",
            base().event(deleted("cache-0-1", mins(-2))),
            Some(120),
            Verdict::Waiting,
        ),
        (
            "on another cluster's node: no progress here",
            base().event(deleted("other-0-1", mins(-2))),
            Some(1800),
            Verdict::Stalled,
        ),
    ];
    for (name, c, quiet, verdict) in cases {
        let r = at0(&c);
        assert_eq!(r.quiet_for_seconds, quiet, "{name}");
        assert_eq!(r.verdict, verdict, "{name}: {}", r.reason);
    }
    let s = base().event(deleted("cache-0-1", mins(-2))).snapshot();
    let reasons: Vec<String> = crate::classify::timeline(&s, NS, "cache-0-1")
        .into_iter()
        .map(|e| e.reason)
        .collect();
    assert!(
        reasons.iter().any(|r| r == keys::EVENT_SUPERSEDED_DELETED),
        "{reasons:?}"
    );
}
