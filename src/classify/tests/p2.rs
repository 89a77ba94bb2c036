//! P2 as the released operator runs it (the recordings in
//! ../shared/recordings): who is a holder, creation, a pod being replaced,
//! and nodes behind a Spec-driven edit.

use super::*;
use crate::fixture::{mins, t};
use NodeState::*;

pub(super) const R1: &str = "f28c067e5abff2479b1bc49fb5b237200020a65320229e9ccfda5ecb8a45bd97";
const OLD: &str = "valkey/valkey:9.0.0";
const NEW: &str = "valkey/valkey:9.0.1";

/// A P2 node at rest on revision R1 (its StatefulSet rolled out).
pub(super) fn p2(name: &str, shard: u32, index: u32) -> NodeBuilder {
    fixture::node(name)
        .shard(shard, index)
        .ready()
        .pod_ready()
        .sts_rolled_out()
        .workload_revision(R1)
        .image(OLD)
}

#[test]
fn p2_holder_table() {
    let n = "cache-0-1";
    let rows: Vec<(&str, NodeBuilder, bool, NodeState)> = vec![
        ("at rest", p2(n, 0, 1), false, Converged),
        (
            "just created: its StatefulSet never observed (empty status)",
            p2(n, 0, 1).sts_just_created().not_ready(mins(-1)),
            false,
            Blocking,
        ),
        (
            "created, observed, pod not there yet: not a replacement",
            p2(n, 0, 1)
                .sts(1, 1, "r1", "r1", 0)
                .no_pod()
                .not_ready(mins(-1)),
            false,
            Blocking,
        ),
        (
            "new spec not observed by the node controller",
            p2(n, 0, 1).generation(2, 1),
            true,
            Rolling,
        ),
        (
            "pod on a revision other than the update revision (revisions equal)",
            p2(n, 0, 1)
                .sts(2, 2, "r1", "r1", 0)
                .pod_revision("r2")
                .pod_not_ready(mins(-1))
                .not_ready(mins(-1)),
            true,
            Rolling,
        ),
        (
            "pod being deleted",
            p2(n, 0, 1).pod_being_deleted().not_ready(mins(-1)),
            true,
            Rolling,
        ),
        (
            "pod gone, not yet recreated",
            p2(n, 0, 1).pod_gone().not_ready(mins(-1)),
            true,
            Rolling,
        ),
        (
            "pod Ready on the update revision, node status not yet ready",
            p2(n, 0, 1).not_ready(mins(-1)),
            false,
            Blocking,
        ),
    ];
    for (name, node_builder, holder, want) in rows {
        let c = cluster().node(node_builder).node(p2("cache-0-0", 0, 0));
        let r = judge(&c.snapshot(), t(0));
        assert_eq!(r.protocol, crate::report::Protocol::P2, "{name}");
        let got = node(&r, n);
        assert_eq!(
            (got.facts.holder, got.state),
            (holder, want),
            "{name}: {}",
            got.reason
        );
    }
}

/// A cluster being created: every StatefulSet just created at once is
/// never a Conflict (recording a-bootstrap, writes w-00034..36).
#[test]
fn creation_is_not_a_conflict() {
    let c = cluster()
        .node(p2("cache-0-0", 0, 0).sts_just_created().not_ready(mins(0)))
        .node(p2("cache-0-1", 0, 1).sts_just_created().not_ready(mins(0)))
        .node(p2("cache-1-0", 1, 0).sts_just_created().not_ready(mins(0)))
        .node(p2("cache-1-1", 1, 1).sts_just_created().not_ready(mins(0)));
    let r = judge(&c.snapshot(), t(0));
    assert!(r.holders.is_empty(), "{:?}", r.holders);
    assert_eq!(r.verdict, Verdict::Waiting, "{}", r.reason);
    assert_eq!(r.blocking, 4);
}

/// Spec-driven P2 (recording b-spec): the first node advanced holds; the
/// nodes the walk has not reached are behind, Waiting in walk order
/// (node index descending: no roles are known), never Converged.
#[test]
fn behind_nodes_wait_their_turn() {
    let c = cluster()
        .image(NEW)
        .node(p2("cache-0-0", 0, 0))
        .node(
            p2("cache-0-1", 0, 1)
                .image(NEW)
                .workload_revision("f2bc3986")
                .generation(2, 1),
        )
        .node(p2("cache-1-0", 1, 0))
        .node(p2("cache-1-1", 1, 1));
    let r = judge(&c.snapshot(), t(0));
    assert_eq!(r.verdict, Verdict::Rolling, "{}", r.reason);
    assert_eq!(r.holders, vec!["cache-0-1"]);
    let queue: Vec<(&str, NodeState, Option<usize>)> = r
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.state, n.queue_position))
        .collect();
    assert_eq!(
        queue,
        vec![
            ("cache-0-1", Rolling, None),
            ("cache-0-0", Waiting, Some(1)),
            ("cache-1-1", Waiting, Some(2)),
            ("cache-1-0", Waiting, Some(3)),
        ]
    );
    assert_eq!(r.front.as_deref(), Some("cache-0-0"));
    assert_eq!(r.waiting, 3);
    assert!(
        matches!(
            r.reason,
            crate::report::ClusterReason::HolderRolling { waiting: 3, .. }
        ),
        "{:?}",
        r.reason
    );
    // A node whose image already matches is not behind.
    let at_rest = cluster().image(OLD).node(p2("cache-0-0", 0, 0));
    assert_eq!(
        state(&judge(&at_rest.snapshot(), t(0)), "cache-0-0"),
        Converged
    );
}

/// A primary at the front while the controller keeps failing it over
/// (FailoverInitiated / FailoverTimeout notes name pod IPs): the verdict
/// says so; the events are in the primary's timeline, mapped by podIP.
#[test]
fn repeated_failover_of_the_front_primary_is_named() {
    use crate::fixture::{event, object};
    use crate::snapshot::keys;
    let vc = || object(NS, "ValkeyCluster", CL);
    let c = cluster()
        .node(
            p2("cache-0-0", 0, 0)
                .primary()
                .pod_ip("127.0.1.2")
                .pending("h2", R1),
        )
        .node(p2("cache-0-1", 0, 1).replica().pod_ip("127.0.1.1"))
        .node(p2("cache-0-10", 0, 10).replica().pod_ip("127.0.1.10"))
        .event(event(
            NS,
            keys::EVENT_FAILOVER_INITIATED,
            vc(),
            None,
            "Initiating failover of shard 5e1f from 127.0.1.2 to 127.0.1.1",
            mins(-3),
        ))
        .event(event(
            NS,
            keys::EVENT_FAILOVER_INITIATED,
            vc(),
            None,
            "Initiating failover of shard 5e1f from 127.0.1.2 to 127.0.1.1",
            mins(-2),
        ))
        .event(event(
            NS,
            keys::EVENT_FAILOVER_TIMEOUT,
            vc(),
            None,
            "Failover of shard 5e1f from 127.0.1.2 timed out",
            mins(-1),
        ));
    // Stalled (the primary has asked for a day): the failover is the cause
    // named, not a controller that may be down.
    let r = judge(&c.snapshot(), t(0));
    assert_eq!(r.front.as_deref(), Some("cache-0-0"), "{}", r.reason);
    assert_eq!(r.verdict, Verdict::Stalled, "{}", r.reason);
    // Its sentence: render::words::tests::a_failover_is_named_as_the_cause.
    let failover = crate::report::Failover {
        primary: "cache-0-0".into(),
        initiated: 2,
        last: "FailoverTimeout".into(),
        last_ago: Some(60),
    };
    assert_eq!(
        r.reason,
        crate::report::ClusterReason::Stalled {
            quiet: Some(86400),
            what: crate::report::Unfinished::FrontAsks {
                front: "cache-0-0".into()
            },
            failover: Some(failover.clone()),
        }
    );
    // Waiting (asked 4 minutes ago): named too.
    let mut c = c;
    c.with_node("cache-0-0", |n| n.pending_since("h2", R1, mins(-4)));
    let r = judge(&c.snapshot(), t(0));
    assert_eq!(r.verdict, Verdict::Waiting, "{}", r.reason);
    assert!(
        matches!(&r.reason, crate::report::ClusterReason::Waiting { failover: Some(f), .. } if *f == failover),
        "{:?}",
        r.reason
    );
    let s = c.snapshot();
    let reasons = |node: &str| -> Vec<String> {
        crate::classify::timeline(&s, NS, node)
            .into_iter()
            .map(|e| e.reason)
            .collect()
    };
    assert_eq!(reasons("cache-0-0").len(), 3);
    assert_eq!(reasons("cache-0-1").len(), 2, "the target of the failover");
    assert!(
        reasons("cache-0-10").is_empty(),
        "127.0.1.1 is not 127.0.1.10"
    );
    // Without failover events the sentence says nothing of it.
    let quiet = cluster().node(p2("cache-0-0", 0, 0).primary().pending("h2", R1));
    let r = judge(&quiet.snapshot(), t(0));
    assert!(
        matches!(
            r.reason,
            crate::report::ClusterReason::Stalled { failover: None, .. }
        ),
        "{:?}",
        r.reason
    );
}
