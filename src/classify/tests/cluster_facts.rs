//! What a cluster shows beside its verdict: a creation not finished, a
//! silent operator, a shard at risk, a scale that waits, a primary the
//! operator holds back (docs/plugin.md, "Roles, failovers and a silent
//! operator"; the RollDeferred strings are the later operator's, written
//! here by hand: the recordings' operator only logs a deferral).

use super::*;
use crate::fixture::{event_node_updated, event_roll_deferred, mins, t};
use crate::report::{
    ClusterReason, Creating, PendingScale, PrimaryTurn, RiskKind, SilentAfter, Unfinished,
    WaitingFor,
};
use NodeState::*;

use fixture::p2_node as p2;

#[test]
fn creation_is_unfinished_until_every_node_exists() {
    // (row, cluster, verdict, creating)
    let rows: Vec<(&str, ClusterBuilder, Verdict, Option<Creating>)> = vec![
        (
            "just created: no status, no node",
            fixture::cluster(NS, CL).size(3, 1),
            Verdict::Waiting,
            Some(Creating { have: 0, want: 6 }),
        ),
        (
            "two of six nodes",
            fixture::cluster(NS, CL)
                .size(3, 1)
                .node(p2("cache-0-0", 0, 0))
                .node(p2("cache-0-1", 0, 1)),
            Verdict::Waiting,
            Some(Creating { have: 2, want: 6 }),
        ),
        (
            "Ready for its generation with fewer nodes: not creating (judged by the nodes)",
            cluster().size(3, 1).node(p2("cache-0-0", 0, 0)),
            Verdict::Converged,
            None,
        ),
        (
            "every node there",
            fixture::cluster(NS, CL)
                .size(1, 1)
                .node(p2("cache-0-0", 0, 0))
                .node(p2("cache-0-1", 0, 1)),
            Verdict::Converged,
            None,
        ),
    ];
    for (row, c, verdict, creating) in rows {
        let r = judge(&c.snapshot(), t(0));
        assert_eq!(r.verdict, verdict, "{row}: {}", r.reason);
        let said = match &r.reason {
            ClusterReason::Waiting {
                what: WaitingFor::Creating(c),
                ..
            } => Some(*c),
            _ => None,
        };
        assert_eq!(said, creating, "{row}: {}", r.reason);
    }
    let r = judge(&fixture::cluster(NS, CL).size(3, 1).snapshot(), t(0));
    assert_eq!(
        r.reason,
        ClusterReason::Waiting {
            quiet: Some(0),
            waiting: 0,
            what: WaitingFor::Creating(Creating { have: 0, want: 6 }),
            failover: None,
        }
    );
}

#[test]
fn a_creation_that_stops_is_stalled() {
    let mut c = fixture::cluster(NS, CL)
        .size(1, 1)
        .node(p2("cache-0-0", 0, 0));
    c.cluster.metadata.creation_timestamp = Some(
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(mins(-30)),
    );
    let r = judge(&c.snapshot(), t(0));
    assert_eq!(r.verdict, Verdict::Stalled, "{}", r.reason);
    assert!(matches!(
        &r.reason,
        ClusterReason::Stalled {
            what: Unfinished::Creating(Creating { have: 1, want: 2 }),
            ..
        }
    ));
}

/// The node in flight whose pod is Ready on its new revision and whose
/// status has not followed, advanced at `advanced`, pod Ready at `ready`.
fn pod_ready_not_followed(advanced: jiff::Timestamp, ready: jiff::Timestamp) -> ClusterBuilder {
    let mut c = cluster().node(p2("cache-0-0", 0, 0)).node(
        p2("cache-0-1", 0, 1)
            .pod_ready_since(ready)
            .not_ready(advanced),
    );
    c.push_event(event_node_updated(NS, CL, "cache-0-1", advanced));
    c
}

/// cache-0-1 advanced by the previous roll at `before` (its event) and
/// again at `spec` (the managedFields time of `spec.workloadRevision`), its
/// new spec not observed, and no event of the new advance yet.
fn advanced_again(before: jiff::Timestamp, spec: jiff::Timestamp) -> ClusterBuilder {
    let mut c = cluster().node(p2("cache-0-0", 0, 0)).node(
        p2("cache-0-1", 0, 1)
            .generation(3, 2)
            .managed_revision_time("manager", spec),
    );
    c.push_event(event_node_updated(NS, CL, "cache-0-1", before));
    c
}

#[test]
fn a_silent_operator_is_named_after_its_grace() {
    // (row, cluster, now, silent after)
    type Row = (
        &'static str,
        ClusterBuilder,
        jiff::Timestamp,
        Option<(u64, SilentAfter)>,
    );
    let rows: Vec<Row> = vec![
        (
            "pod Ready 10s ago: the operator follows within a second, still in its grace",
            pod_ready_not_followed(t(-30), t(-10)),
            t(0),
            None,
        ),
        // The operator wrote the node not Ready when it applied the
        // advance 5 s ago, over a pod Ready 40 s: it acted then, so its
        // quiet counts from that write, not from the pod (the moment
        // between two of its writes, whatever the workload reads as).
        (
            "pod Ready 40s ago, the node turned not Ready by its advance 5s ago",
            pod_ready_not_followed(t(-5), t(-40)),
            t(0),
            None,
        ),
        (
            "pod Ready 40s ago, the node turned not Ready by its advance 31s ago",
            pod_ready_not_followed(t(-31), t(-40)),
            t(0),
            Some((31, SilentAfter::Applied)),
        ),
        (
            "pod Ready 53s ago and the node status has not followed",
            pod_ready_not_followed(t(-70), t(-53)),
            t(0),
            Some((53, SilentAfter::PodReady)),
        ),
        (
            "advanced 45s ago, its new spec not observed",
            {
                let mut c = cluster()
                    .node(p2("cache-0-0", 0, 0))
                    .node(p2("cache-0-1", 0, 1).generation(2, 1));
                c.push_event(event_node_updated(NS, CL, "cache-0-1", t(-45)));
                c
            },
            t(0),
            Some((45, SilentAfter::Advanced)),
        ),
        // Issue 29: an operator restarted mid-roll advanced cache-0-1 just
        // now (its spec.workloadRevision written a second ago); the
        // ValkeyNodeUpdated of the previous roll, 69 s old, is not this
        // advance, and the new one is milliseconds away.
        (
            "advanced a second ago; the same event of the previous roll is 69s old",
            advanced_again(t(-69), t(-1)),
            t(0),
            None,
        ),
        (
            "advanced 31s ago by this roll's spec change: named past 30s",
            advanced_again(t(-100), t(-31)),
            t(0),
            Some((31, SilentAfter::Advanced)),
        ),
    ];
    for (row, c, now, want) in rows {
        let r = judge(&c.snapshot(), now);
        let got = r.operator.as_ref().map(|o| (o.quiet_for_seconds, o.after));
        assert_eq!(got, want, "{row}: {}", r.reason);
        if want.is_some() {
            assert!(
                matches!(r.reason, ClusterReason::OperatorSilent { .. }),
                "{row}: {}",
                r.reason
            );
            assert_eq!(
                r.eta_seconds, None,
                "{row}: no estimate with nobody driving"
            );
        }
    }
    // The verdict stays the nodes' (Blocking front: Waiting).
    let r = judge(&pod_ready_not_followed(t(-70), t(-53)).snapshot(), t(0));
    assert_eq!(r.verdict, Verdict::Waiting);
    assert_eq!(state(&r, "cache-0-1"), Blocking);
    // Its sentence: render::words::tests::a_silent_operator_is_asked_about.
    assert_eq!(
        r.reason,
        ClusterReason::OperatorSilent {
            then: Box::new(ClusterReason::Waiting {
                quiet: Some(53),
                waiting: 0,
                what: WaitingFor::Health {
                    front: "cache-0-1".into(),
                    because: vec![crate::report::Unhealthy::NodeNotReady],
                },
                failover: None,
            }),
            silence: crate::report::Silence {
                node: "cache-0-1".into(),
                quiet: 53,
                after: SilentAfter::PodReady,
            },
        }
    );
}

#[test]
fn a_shard_whose_primary_has_no_ready_replica_is_at_risk() {
    let rows: Vec<(&str, NodeBuilder, bool)> = vec![
        ("its replica ready", p2("cache-0-1", 0, 1), false),
        (
            "its replica's pod replaced",
            p2("cache-0-1", 0, 1).pod_being_deleted().not_ready(t(-3)),
            true,
        ),
        (
            "its replica starting",
            p2("cache-0-1", 0, 1)
                .new_pod()
                .pod_not_ready(t(-2))
                .not_ready(t(-5)),
            true,
        ),
    ];
    for (row, replica, at_risk) in rows {
        let c = cluster().node(p2("cache-0-0", 0, 0)).node(replica);
        let r = judge(&c.snapshot(), t(0));
        assert_eq!(!r.risks.is_empty(), at_risk, "{row}: {:?}", r.risks);
        if at_risk {
            assert_eq!(r.risks[0].kind, RiskKind::NoReadyReplica);
            assert_eq!(r.risks[0].primary.as_deref(), Some("cache-0-0"));
            assert_eq!(r.risks[0].shard, 0);
        }
    }
}

/// Issue 29: in a shard whose judged primary newer evidence contradicts,
/// any node may be the primary: with its judged primary down and its one
/// other node Ready, that node may be a primary with no Ready replica.
#[test]
fn a_doubted_shard_is_at_risk_when_any_node_may_be_a_lone_primary() {
    let mut c = cluster()
        .node(
            p2("cache-0-0", 0, 0)
                .pod_ip("127.0.1.1")
                .pod_not_ready(t(-10))
                .not_ready(t(-10)),
        )
        .node(p2("cache-0-1", 0, 1).pod_ip("127.0.1.2"))
        .replicas_syncing(t(-8));
    c.push_event(crate::fixture::event_primary_created(
        NS,
        CL,
        "127.0.1.1",
        mins(-60),
    ));
    let r = judge(&c.snapshot(), t(0));
    assert!(
        node(&r, "cache-0-1").role_note.is_some(),
        "{:?}",
        node(&r, "cache-0-1")
    );
    assert_eq!(r.risks.len(), 1, "{:?}", r.risks);
    assert_eq!(r.risks[0].kind, RiskKind::NoReadyReplica);
    assert_eq!(r.risks[0].primary, None);
    assert_eq!(r.risks[0].shard, 0);
}

#[test]
fn a_scale_asked_for_during_a_roll_waits_for_it() {
    let holder = p2("cache-0-1", 0, 1).generation(2, 1);
    let c = cluster()
        .size(2, 1)
        .node(p2("cache-0-0", 0, 0))
        .node(holder);
    let r = judge(&c.snapshot(), t(0));
    assert_eq!(
        r.pending_scale,
        Some(PendingScale {
            shards: Some(2),
            replicas: Some(1)
        })
    );
    assert_eq!(
        r.pending_scale.as_ref().map(ToString::to_string).as_deref(),
        Some("scale-out to 2 shards and 1 replica a shard waits for the roll")
    );
    // At rest, nothing waits for a roll.
    let c = cluster()
        .size(2, 1)
        .node(p2("cache-0-0", 0, 0))
        .node(p2("cache-0-1", 0, 1));
    assert_eq!(judge(&c.snapshot(), t(0)).pending_scale, None);
}

#[test]
fn a_primary_held_back_is_the_front_and_its_cause_the_reason() {
    let behind = |n: NodeBuilder| n.image("valkey/valkey:9.0.0");
    let nodes = || {
        cluster()
            .image("valkey/valkey:9.0.1")
            .node(behind(p2("cache-0-0", 0, 0)))
            .node(p2("cache-0-1", 0, 1).image("valkey/valkey:9.0.1"))
            .node(behind(p2("cache-1-0", 1, 0)))
    };
    let by_condition =
        nodes().roll_deferred(0, "cache-0-0", "primary has no synced replicas", t(-20));
    let mut by_event = nodes();
    by_event.push_event(event_roll_deferred(
        NS,
        CL,
        0,
        "cache-0-0",
        "primary has no synced replicas",
        t(-5),
    ));
    use crate::report::DeferredSource;
    for (row, c, source) in [
        ("condition", by_condition, DeferredSource::Condition),
        ("event", by_event, DeferredSource::Event),
    ] {
        let r = judge(&c.snapshot(), t(0));
        assert_eq!(r.verdict, Verdict::Waiting, "{row}");
        assert_eq!(r.front.as_deref(), Some("cache-0-0"), "{row}");
        let deferred = match &r.reason {
            ClusterReason::Waiting {
                what: WaitingFor::Deferred(d),
                ..
            } => Some(d),
            _ => None,
        };
        assert_eq!(
            deferred,
            Some(&crate::report::Deferred {
                shard: Some(0),
                primary: Some("cache-0-0".into()),
                cause: "primary has no synced replicas".into(),
                source,
                replicas: Vec::new(),
            }),
            "{row}: {:?}",
            r.reason
        );
    }
    // Advanced since the event: the deferral is over.
    let mut over = nodes();
    over.push_event(event_roll_deferred(
        NS,
        CL,
        0,
        "cache-0-0",
        "no synced replica",
        t(-50),
    ));
    over.push_event(event_node_updated(NS, CL, "cache-0-0", t(-20)));
    let r = judge(&over.snapshot(), t(0));
    // No server was read: what the operator does before rolling a
    // primary is said, not which step it is at.
    assert!(
        matches!(
            &r.reason,
            ClusterReason::Waiting {
                what: WaitingFor::PrimaryTurn(PrimaryTurn { front, shard: Some(0) }),
                ..
            } if front == "cache-0-0"
        ),
        "{:?}",
        r.reason
    );
}
