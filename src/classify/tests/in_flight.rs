//! A P2 node is in flight whatever its workload says, as long as it was
//! advanced and is not ready since (issue 20: a Deployment counts the new
//! pod as updated while it starts; after a revert a StatefulSet reads its
//! revisions equal while the replacement starts), and the newest advance
//! dates its hold.

use super::*;
use crate::fixture::{event_applied, event_node_updated, mins, t};
use NodeState::*;
use jiff::SignedDuration;

const H: &str = "173bd616dd45fcc74514a7a6eeb2e0a3f87cdb998aaec35d40bc4794ab6558f2";
const BROKEN: &str = "012e479663afd8009c7a52ff619a074ffd8917d7243598a3b1ac9c2d7e8f0a11";

/// A P2 node of shard 0 at rest on H.
fn at_rest(name: &str, index: u32) -> NodeBuilder {
    fixture::node(name)
        .shard(0, index)
        .ready()
        .pod_ready()
        .sts_rolled_out()
        .workload_revision(H)
}

fn advanced_at(
    node: &str,
    hash: &str,
    at: jiff::Timestamp,
) -> Vec<k8s_openapi::api::core::v1::Event> {
    vec![
        event_node_updated(NS, CL, node, at),
        event_applied(NS, node, hash, at + SignedDuration::from_millis(10)),
    ]
}

#[test]
fn in_flight_table() {
    let n = "cache-0-1";
    let now = t(0);
    // (row, the node, its events, holder, state)
    let rows: Vec<(&str, NodeBuilder, Vec<_>, bool, NodeState)> = vec![
        (
            "Deployment (Recreate): the new pod starts, the Deployment counts it updated",
            at_rest(n, 1)
                .deployment(2, 2, 1, 1, 1, 0)
                .new_pod()
                .pod_not_ready(t(-5))
                .not_ready(t(-8)),
            advanced_at(n, H, t(-8)),
            true,
            Rolling,
        ),
        (
            "Deployment, its events gone: managedFields dates the advance",
            at_rest(n, 1)
                .deployment(2, 2, 1, 1, 1, 0)
                .new_pod()
                .pod_not_ready(t(-5))
                .not_ready(t(-8))
                .managed_revision_time("valkey-operator", t(-8)),
            vec![],
            true,
            Rolling,
        ),
        (
            "just created: the creation writes spec.workloadRevision too, no advance",
            {
                let mut b = at_rest(n, 1)
                    .deployment(1, 1, 1, 1, 1, 0)
                    .pod_not_ready(t(-5))
                    .not_ready(t(-8))
                    .managed_revision_time("valkey-operator", t(-8));
                b.node.metadata.creation_timestamp =
                    Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(t(-8)));
                b
            },
            vec![],
            false,
            Blocking,
        ),
        (
            "Deployment: the new pod Ready and rolled out, the node status not yet",
            at_rest(n, 1)
                .deployment(2, 2, 1, 1, 1, 1)
                .new_pod()
                .pod_ready_since(t(-1))
                .not_ready(t(-8)),
            advanced_at(n, H, t(-8)),
            false,
            Blocking,
        ),
        (
            "after a revert and a hand delete: revisions equal, the replacement starting",
            at_rest(n, 1)
                .sts(4, 4, "r-good", "r-good", 0)
                .new_pod()
                .pod_revision("r-good")
                .pod_not_ready(t(-2))
                .not_ready(mins(-4)),
            {
                let mut e = advanced_at(n, BROKEN, mins(-4));
                e.extend(advanced_at(n, H, t(-40)));
                e
            },
            true,
            Rolling,
        ),
        (
            "not ready on its own, long after its last advance: not in flight",
            at_rest(n, 1)
                .sts(2, 2, "r-good", "r-good", 0)
                .pod_not_ready(mins(-5))
                .not_ready(mins(-5)),
            advanced_at(n, H, mins(-50)),
            false,
            Blocking,
        ),
        (
            "not ready, with no advance in view: not in flight",
            at_rest(n, 1)
                .sts(2, 2, "r-good", "r-good", 0)
                .pod_not_ready(mins(-5))
                .not_ready(mins(-5)),
            vec![],
            false,
            Blocking,
        ),
    ];
    for (row, b, events, holder, want) in rows {
        let mut c = cluster().node(b).node(at_rest("cache-0-0", 0));
        for e in events {
            c.push_event(e);
        }
        let r = judge(&c.snapshot(), now);
        assert_eq!(node(&r, n).facts.holder, holder, "{row}: holder");
        assert_eq!(state(&r, n), want, "{row}: {:?}", node(&r, n).reason);
    }
}

/// A re-advance (after a revert) restarts the hold clock: its
/// ValkeyNodeUpdated is the newest, and its WorkloadRollApplied names the
/// revision again (the recorder wrote the update's event 5 ms after it).
#[test]
fn the_newest_advance_dates_the_hold() {
    let n = "cache-0-1";
    let mut c = cluster()
        .node(
            at_rest(n, 1)
                .sts(4, 4, "r-good", "r-good", 0)
                .pod_revision("r-broken")
                .pod_waiting("CrashLoopBackOff", 9)
                .not_ready(mins(-30)),
        )
        .node(at_rest("cache-0-0", 0));
    // The first roll to H, an hour ago; the broken one; the revert to H.
    c.push_event(event_node_updated(NS, CL, n, mins(-60)));
    c.push_event(event_applied(
        NS,
        n,
        H,
        mins(-60) + SignedDuration::from_millis(10),
    ));
    c.push_event(event_node_updated(NS, CL, n, mins(-30)));
    c.push_event(event_applied(NS, n, BROKEN, mins(-30)));
    c.push_event(event_applied(NS, n, H, mins(-2)));
    c.push_event(event_node_updated(
        NS,
        CL,
        n,
        mins(-2) + SignedDuration::from_millis(5),
    ));
    let r = judge(&c.snapshot(), t(0));
    let held = node(&r, n);
    assert!(held.facts.holder);
    assert_eq!(
        held.granted_at,
        Some(mins(-2) + SignedDuration::from_millis(5))
    );
    assert_eq!(held.held_for_seconds, Some(119));
}
