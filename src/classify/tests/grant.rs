//! Each grant-time source in its order, and the rules that make the
//! plugin's own trace annotations stale.

use super::*;
use crate::fixture::{
    event_applied, event_node_updated, event_permitted, legacy, mins, repeated, t,
};
use crate::report::GrantSource::{self, *};
use crate::snapshot::keys;
use k8s_openapi::api::core::v1::Event;

const N: &str = "cache-0-1";
const MANAGER: &str = keys::FIELD_MANAGER;
const OPERATOR: &str = "valkey-operator";

struct Row {
    name: &'static str,
    node: NodeBuilder,
    events: Vec<Event>,
    at: Option<jiff::Timestamp>,
    source: GrantSource,
    by: Option<&'static str>,
}

fn run(rows: Vec<Row>) {
    for row in rows {
        let mut c = cluster().node(row.node);
        for e in row.events {
            c.push_event(e);
        }
        let r = judge(&c.snapshot(), t(0));
        let n = node(&r, N);
        assert_eq!(
            (n.granted_at, n.granted_at_source, n.granted_by.as_deref()),
            (row.at, row.source, row.by),
            "{}: unavailable {:?}",
            row.name,
            n.facts.unavailable_sources
        );
        assert_eq!(
            n.held_for_seconds,
            row.at
                .map(|a| u64::try_from(t(0).duration_since(a).as_secs().max(0)).unwrap_or(0)),
            "{}: held",
            row.name
        );
    }
}

fn p1(h: &str) -> NodeBuilder {
    healthy(N, 0, 1).permit(h).desired(h)
}

#[test]
fn p1_sources_in_order() {
    run(vec![
        Row {
            name: "trace about the current permit, no managedFields",
            node: p1("h1").trace("h1", "alice", mins(-3), "unblock"),
            events: vec![event_permitted(NS, CL, N, "h1", mins(-2))],
            at: Some(mins(-3)),
            source: Annotation,
            by: Some("alice"),
        },
        Row {
            name: "trace, permit field managed by the plugin",
            node: p1("h1")
                .trace("h1", "alice", mins(-3), "r")
                .managed_field_time(MANAGER, mins(-3)),
            events: vec![],
            at: Some(mins(-3)),
            source: Annotation,
            by: Some("alice"),
        },
        Row {
            name: "stale trace: granted-revision is not the permit",
            node: p1("h2").trace("h1", "alice", mins(-30), "r"),
            events: vec![event_permitted(NS, CL, N, "h2", mins(-2))],
            at: Some(mins(-2)),
            source: Event,
            by: None,
        },
        Row {
            name: "stale trace: permit field managed by the operator",
            node: p1("h1")
                .trace("h1", "alice", mins(-30), "r")
                .managed_field_time(OPERATOR, mins(-4)),
            events: vec![],
            at: Some(mins(-4)),
            source: ManagedFields,
            by: None,
        },
        Row {
            name: "newest WorkloadRollPermitted naming node and hash",
            node: p1("h1"),
            events: vec![
                event_permitted(NS, CL, N, "h1", mins(-5)),
                event_permitted(NS, CL, N, "h1", mins(-3)),
                event_permitted(NS, CL, N, "h0", mins(-1)),
                event_permitted(NS, CL, "cache-0-10", "h1", mins(-1)),
            ],
            at: Some(mins(-3)),
            source: Event,
            by: None,
        },
        Row {
            name: "old-style event (firstTimestamp/lastTimestamp)",
            node: p1("h1"),
            events: vec![legacy(event_permitted(NS, CL, N, "h1", mins(-4)))],
            at: Some(mins(-4)),
            source: Event,
            by: None,
        },
        Row {
            name: "repeated event: series.lastObservedTime",
            node: p1("h1"),
            events: vec![repeated(
                event_permitted(NS, CL, N, "h1", mins(-9)),
                2,
                mins(-2),
            )],
            at: Some(mins(-2)),
            source: Event,
            by: None,
        },
        Row {
            name: "event named only in the note",
            node: p1("h1"),
            events: vec![{
                let mut e = event_permitted(NS, CL, N, "h1", mins(-6));
                e.related = None;
                e
            }],
            at: Some(mins(-6)),
            source: Event,
            by: None,
        },
        Row {
            name: "* permit: newest ValkeyNodeUpdated",
            node: healthy(N, 0, 1).permit("*").generation(2, 1),
            events: vec![
                event_node_updated(NS, CL, N, mins(-7)),
                event_node_updated(NS, CL, N, mins(-2)),
                event_permitted(NS, CL, N, "h1", mins(-1)),
            ],
            at: Some(mins(-2)),
            source: Event,
            by: None,
        },
        Row {
            name: "managedFields time of the permit annotation",
            node: p1("h1").managed_field_time(OPERATOR, mins(-8)),
            events: vec![],
            at: Some(mins(-8)),
            source: ManagedFields,
            by: None,
        },
        Row {
            name: "managedFields entry owning another field only",
            node: p1("h1").managed_revision_time(OPERATOR, mins(-8)),
            events: vec![],
            at: None,
            source: Unknown,
            by: None,
        },
        Row {
            name: "nothing: unknown",
            node: p1("h1"),
            events: vec![],
            at: None,
            source: Unknown,
            by: None,
        },
        Row {
            name: "a future grant time holds for 0s",
            node: p1("h1"),
            events: vec![event_permitted(NS, CL, N, "h1", mins(3))],
            at: Some(mins(3)),
            source: Event,
            by: None,
        },
    ]);
}

#[test]
fn p2_sources_in_order() {
    let p2 = |h: &str| {
        healthy(N, 0, 1)
            .workload_revision(h)
            .pending(h, "h0")
            .generation(2, 1)
    };
    run(vec![
        Row {
            name: "P2 trace equal to spec.workloadRevision",
            node: p2("h1")
                .trace("h1", "bob", mins(-3), "r")
                .managed_revision_time(MANAGER, mins(-3)),
            events: vec![event_node_updated(NS, CL, N, mins(-1))],
            at: Some(mins(-3)),
            source: Annotation,
            by: Some("bob"),
        },
        Row {
            name: "P2 stale trace: other revision",
            node: p2("h1").trace("h9", "bob", mins(-30), "r"),
            events: vec![event_node_updated(NS, CL, N, mins(-1))],
            at: Some(mins(-1)),
            source: Event,
            by: None,
        },
        Row {
            name: "P2 stale trace: field managed by the operator",
            node: p2("h1")
                .trace("h1", "bob", mins(-30), "r")
                .managed_revision_time(OPERATOR, mins(-6)),
            events: vec![],
            at: Some(mins(-6)),
            source: ManagedFields,
            by: None,
        },
        Row {
            name: "P2 newest ValkeyNodeUpdated",
            node: p2("h1"),
            events: vec![
                event_node_updated(NS, CL, N, mins(-5)),
                event_node_updated(NS, CL, N, mins(-2)),
            ],
            at: Some(mins(-2)),
            source: Event,
            by: None,
        },
        Row {
            name: "P2 a ValkeyNodeUpdated after the node applied its revision is not the advance",
            node: p2("h1"),
            events: vec![
                event_node_updated(NS, CL, N, mins(-5)),
                event_applied(NS, N, "h1", mins(-4)),
                event_node_updated(NS, CL, N, mins(-2)),
            ],
            at: Some(mins(-5)),
            source: Event,
            by: None,
        },
        Row {
            name: "P2 an application of another revision does not bound the advance",
            node: p2("h1"),
            events: vec![
                event_applied(NS, N, "h0", mins(-40)),
                event_node_updated(NS, CL, N, mins(-2)),
            ],
            at: Some(mins(-2)),
            source: Event,
            by: None,
        },
        Row {
            name: "P2 a WorkloadRollPermitted event does not count",
            node: p2("h1"),
            events: vec![event_permitted(NS, CL, N, "h1", mins(-2))],
            at: None,
            source: Unknown,
            by: None,
        },
        Row {
            name: "P2 managedFields of f:spec/f:workloadRevision",
            node: p2("h1").managed_revision_time(OPERATOR, mins(-4)),
            events: vec![],
            at: Some(mins(-4)),
            source: ManagedFields,
            by: None,
        },
        // Issue 29: the advance time is the newest advance of the current
        // roll. An event of the same reason older than the latest write of
        // spec.workloadRevision (its managedFields time, whole seconds) is
        // the previous roll's, not this one's.
        Row {
            name: "P2 the previous roll's ValkeyNodeUpdated, before the latest spec change",
            node: p2("h1").managed_revision_time(OPERATOR, t(-1)),
            events: vec![event_node_updated(NS, CL, N, t(-70))],
            at: Some(t(-1)),
            source: ManagedFields,
            by: None,
        },
        Row {
            name: "P2 this roll's ValkeyNodeUpdated, within a second of the spec change",
            node: p2("h1").managed_revision_time(OPERATOR, t(-2)),
            events: vec![
                event_node_updated(NS, CL, N, t(-70)),
                event_node_updated(NS, CL, N, t(-2) - jiff::SignedDuration::from_millis(400)),
            ],
            at: Some(t(-2) - jiff::SignedDuration::from_millis(400)),
            source: Event,
            by: None,
        },
        Row {
            name: "P2 a re-advance after a revert: the first advance's event is the previous one",
            node: p2("h1").managed_revision_time(OPERATOR, t(-3)),
            events: vec![
                event_node_updated(NS, CL, N, mins(-3)),
                event_applied(NS, N, "h1", mins(-3)),
                event_node_updated(NS, CL, N, t(-90)),
                event_applied(NS, N, "h1", t(-3)),
            ],
            at: Some(t(-3)),
            source: ManagedFields,
            by: None,
        },
        Row {
            name: "P2 the P1 annotation's managedFields do not count",
            node: p2("h1").managed_field_time(OPERATOR, mins(-4)),
            events: vec![],
            at: None,
            source: Unknown,
            by: None,
        },
    ]);
}

#[test]
fn trusted_trace_fills_by_and_reason() {
    let c = cluster().node(p1("h1").trace("h1", "alice@example", mins(-3), "INC-42 unblock"));
    let r = judge(&c.snapshot(), t(0));
    let n = node(&r, N);
    assert_eq!(n.granted_by.as_deref(), Some("alice@example"));
    assert_eq!(n.grant_reason.as_deref(), Some("INC-42 unblock"));

    let c = cluster().node(p1("h2").trace("h1", "alice@example", mins(-3), "INC-42 unblock"));
    let r = judge(&c.snapshot(), t(0));
    let n = node(&r, N);
    assert_eq!(
        (n.granted_by.as_deref(), n.grant_reason.as_deref()),
        (None, None)
    );
    assert!(
        n.facts.unavailable_sources.iter().any(|s| matches!(
            s,
            crate::report::Unavailable::TraceForOtherRevision { revision, permit }
                if revision == "h1" && permit == "h2"
        )),
        "{:?}",
        n.facts.unavailable_sources
    );
}

/// The node's grant-time sources that gave no time, in words.
fn sources(n: &NodeReport) -> Vec<String> {
    n.facts
        .unavailable_sources
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn unavailable_sources_say_why() {
    let c = cluster().node(p1("h1"));
    let r = judge(&c.snapshot(), t(0));
    let got = sources(node(&r, N));
    let want = [
        "no valkey-roll.io/granted-at annotation (the permit was not granted by hand with this plugin)",
        "no WorkloadRollPermitted event for this node (events expire after an hour by default)",
        "no managedFields in this snapshot (kubectl get -o yaml drops them unless --show-managed-fields)",
    ];
    assert_eq!(got, want.map(str::to_string).to_vec());

    let c = cluster().node(
        healthy(N, 0, 1)
            .permit("*")
            .managed_field_time(MANAGER, mins(-1))
            .trace("h0", "x", mins(-90), "r"),
    );
    let r = judge(&c.snapshot(), t(0));
    let got = sources(node(&r, N));
    assert!(
        got.iter()
            .any(|s| s.starts_with("trace annotations are stale")),
        "{got:?}"
    );
    assert!(
        got.iter()
            .any(|s| s.starts_with("no ValkeyNodeUpdated event for this node")),
        "{got:?}"
    );
    assert_eq!(got.len(), 2, "{got:?}");

    // Non-holders have no grant time and nothing to report missing.
    let c = cluster().node(healthy(N, 0, 1).desired("h1"));
    let r = judge(&c.snapshot(), t(0));
    assert!(node(&r, N).facts.unavailable_sources.is_empty());
    assert_eq!(node(&r, N).granted_at_source, Unknown);
}
