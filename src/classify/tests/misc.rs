//! The threshold boundary, clock skew, protocol detection, progress,
//! cluster grouping and timelines.

use super::*;
use crate::classify::{cluster_timeline, timeline};
use crate::fixture::{
    event, event_applied, event_deferred_p1, event_node_updated, event_permitted, legacy, mins,
    object, snapshot_of, t,
};
use crate::report::Protocol;
use NodeState::*;

const N: &str = "cache-0-1";

/// The report says when time alone next changes it, and at that instant
/// it does (the stall threshold is 10m).
#[test]
fn next_change_is_the_next_threshold_crossed() {
    // A holder granted at t(0): Stuck once held over 10m, at t(601).
    let holder = cluster()
        .node(healthy(N, 0, 1).permit("h1").desired("h1"))
        .event(event_permitted(NS, CL, N, "h1", t(0)));
    let s = holder.snapshot();
    let r = judge(&s, t(100));
    assert_eq!(r.next_change, Some(t(601)));
    assert_eq!(state(&r, N), Rolling);
    assert_eq!(state(&judge(&s, t(601)), N), Stuck);
    assert_eq!(judge(&s, t(601)).next_change, None, "nothing flips after");

    // At rest, nothing comes by time alone.
    let rest = cluster().node(healthy(N, 0, 1)).snapshot();
    assert_eq!(judge(&rest, t(100)).next_change, None);
}

#[test]
fn threshold_boundary() {
    // Grant at t(0); judged T later and T+1s later. "Over T" is strictly greater.
    let c = cluster()
        .node(healthy(N, 0, 1).permit("h1").desired("h1"))
        .event(event_permitted(NS, CL, N, "h1", t(0)));
    let s = c.snapshot();
    let cases = [
        (600, Rolling, Verdict::Rolling),
        (601, Stuck, Verdict::Jammed),
    ];
    for (secs, want, verdict) in cases {
        let r = judge(&s, t(secs));
        assert_eq!((state(&r, N), r.verdict), (want, verdict), "held {secs}s");
    }

    // Complete for exactly T vs T+1s: Settling vs Stuck (NotReleased).
    let c = cluster()
        .node(healthy(N, 0, 1).permit("h1").pod_ready_since(t(0)))
        .event(event_permitted(NS, CL, N, "h1", t(-60)));
    let s = c.snapshot();
    for (secs, want) in [(600, Settling), (601, Stuck)] {
        assert_eq!(state(&judge(&s, t(secs)), N), want, "complete for {secs}s");
    }

    // Quiet for exactly T vs T+1s: Waiting vs Stalled.
    let c = cluster().node(healthy(N, 0, 1).drift("h1", t(0)));
    let s = c.snapshot();
    for (secs, want) in [(600, Verdict::Waiting), (601, Verdict::Stalled)] {
        assert_eq!(judge(&s, t(secs)).verdict, want, "quiet {secs}s");
    }

    // A zero threshold: any hold is over it.
    let c = cluster()
        .node(healthy(N, 0, 1).permit("h1").desired("h1"))
        .event(event_permitted(NS, CL, N, "h1", t(-1)));
    let r = classify(&c.snapshot(), t(0), std::time::Duration::ZERO);
    assert_eq!(r.clusters[0].nodes[0].state, Stuck);
}

#[test]
fn clock_skew_never_goes_negative() {
    // Every time in the snapshot is after `now`.
    let c = fixture::cluster(NS, CL)
        .updating_nodes(mins(30))
        .node(
            healthy(N, 0, 1)
                .permit("h1")
                .desired("h1")
                .pod_not_ready(mins(20))
                .pod_unschedulable(mins(20)),
        )
        .node(
            healthy("cache-0-0", 0, 0)
                .drift("h1", mins(20))
                .not_ready(mins(20)),
        )
        .event(event_permitted(NS, CL, N, "h1", mins(10)));
    let r = judge(&c.snapshot(), t(0));
    let holder = node(&r, N);
    assert_eq!(holder.held_for_seconds, Some(0));
    assert_eq!(holder.state, Rolling, "{:?}", holder.evidence);
    assert_eq!(node(&r, "cache-0-0").waiting_for_seconds, Some(0));
    assert_eq!(r.quiet_for_seconds, Some(0));
    assert_eq!(r.verdict, Verdict::Rolling);
}

#[test]
fn protocol_detection() {
    let rows: Vec<(&str, NodeBuilder, Protocol)> = vec![
        ("nothing staged", healthy(N, 0, 1), Protocol::Unknown),
        (
            "only the plugin's trace",
            healthy(N, 0, 1).trace("h1", "a", t(0), "r"),
            Protocol::Unknown,
        ),
        (
            "permit annotation",
            healthy(N, 0, 1).permit("h1"),
            Protocol::P1,
        ),
        (
            "desired annotation",
            healthy(N, 0, 1).desired("h1"),
            Protocol::P1,
        ),
        (
            "WorkloadDrift condition",
            healthy(N, 0, 1).drift("h1", t(0)),
            Protocol::P1,
        ),
        (
            "spec.workloadRevision",
            healthy(N, 0, 1).workload_revision("h1"),
            Protocol::P2,
        ),
        (
            "WorkloadRollPending condition",
            healthy(N, 0, 1).pending("h1", "h0"),
            Protocol::P2,
        ),
        (
            "P2 marker wins over P1",
            healthy(N, 0, 1).permit("h1").workload_revision("h1"),
            Protocol::P2,
        ),
    ];
    for (name, n, want) in rows {
        let c = cluster().node(n).node(healthy("cache-0-0", 0, 0));
        assert_eq!(judge(&c.snapshot(), t(0)).protocol, want, "{name}");
    }
}

#[test]
fn p2_holder_rules() {
    let rows: Vec<(&str, NodeBuilder, NodeState)> = vec![
        (
            "asks, spec revision is the asked one",
            healthy(N, 0, 1).pending("h1", "h0").workload_revision("h1"),
            Rolling,
        ),
        (
            "asks, spec revision is the old one",
            healthy(N, 0, 1).pending("h1", "h0").workload_revision("h0"),
            Waiting,
        ),
        (
            "does not ask, generation not observed",
            healthy(N, 0, 1).workload_revision("h1").generation(3, 2),
            Rolling,
        ),
        (
            "does not ask, template roll in progress",
            healthy(N, 0, 1)
                .workload_revision("h1")
                .sts(2, 1, "r1", "r1", 1),
            Rolling,
        ),
        (
            "does not ask, at rest",
            healthy(N, 0, 1).workload_revision("h1"),
            Converged,
        ),
        (
            "does not ask, rolled, node not ready",
            healthy(N, 0, 1).workload_revision("h1").not_ready(t(-5)),
            Blocking,
        ),
    ];
    for (name, n, want) in rows {
        let c = cluster()
            .node(n)
            .node(healthy("cache-0-0", 0, 0).workload_revision("h0"));
        let r = judge(&c.snapshot(), t(0));
        assert_eq!(state(&r, N), want, "{name}: {:?}", node(&r, N).reason);
    }
}

#[test]
fn deployment_workloads() {
    // (generation, observed, spec replicas, status replicas, updated, ready)
    let rows = [
        ("rolled out", (1, 1, 1, 1, 1, 1), Some(false), Some(true)),
        (
            "generation not observed",
            (2, 1, 1, 1, 1, 1),
            Some(true),
            Some(false),
        ),
        (
            "not all updated",
            (2, 2, 1, 1, 0, 1),
            Some(true),
            Some(false),
        ),
        (
            "old pods remain",
            (2, 2, 1, 2, 1, 1),
            Some(true),
            Some(false),
        ),
        ("not ready", (2, 2, 1, 1, 1, 0), Some(false), Some(false)),
    ];
    for (name, (g, o, want, st, up, rd), in_progress, rolled) in rows {
        let n = fixture::node(N)
            .replica()
            .shard(0, 1)
            .ready()
            .deployment(g, o, want, st, up, rd)
            .pod_ready();
        let r = judge(&cluster().node(n).snapshot(), t(0));
        let f = &node(&r, N).facts;
        assert_eq!(
            (f.template_roll_in_progress, f.workload_rolled_out),
            (in_progress, rolled),
            "{name}"
        );
        assert_eq!(
            node(&r, N).pod.as_deref(),
            Some("valkey-cache-0-1-5d8f7c9b4-x2x9z"),
            "{name}"
        );
    }
    // A StatefulSet whose pod is on an older revision is not rolled out.
    let n = healthy(N, 0, 1).pod_revision("old");
    let r = judge(&cluster().node(n).snapshot(), t(0));
    assert_eq!(node(&r, N).facts.workload_rolled_out, Some(false));
}

#[test]
fn progress_counting() {
    const OLD: &str = "valkey/valkey:9.0.0";
    const NEW: &str = "valkey/valkey:9.0.1";
    let rows: Vec<(&str, ClusterBuilder, usize, Option<usize>)> = vec![
        (
            "at rest: every node",
            cluster()
                .node(healthy("cache-0-0", 0, 0))
                .node(healthy("cache-0-1", 0, 1)),
            2,
            Some(2),
        ),
        (
            "a roll the nodes ask for: the Converged nodes advanced since the first ask",
            cluster()
                .node(
                    healthy("cache-0-0", 0, 0)
                        .desired("h1")
                        .drift("h1", mins(-10)),
                )
                .node(healthy("cache-0-1", 0, 1))
                .node(healthy("cache-0-2", 0, 2).permit("h1"))
                .event(event_applied(NS, "cache-0-1", "h0", mins(-5))),
            3,
            Some(1),
        ),
        (
            "a jammed roll: nodes rolled in an earlier roll are not counted",
            cluster()
                .node(
                    healthy("cache-0-0", 0, 0)
                        .desired("h1")
                        .drift("h1", mins(-20)),
                )
                .node(healthy("cache-0-1", 0, 1))
                .node(
                    healthy("cache-0-2", 0, 2)
                        .permit("h1")
                        .pod_ready_since(mins(-30)),
                )
                .event(event_permitted(NS, CL, "cache-0-2", "h1", mins(-14)))
                .event(event_applied(NS, "cache-0-1", "h0", mins(-60))),
            3,
            Some(0),
        ),
        (
            "an advance within 5 s before the remaining nodes' first ask belongs to this roll",
            cluster()
                .node(
                    healthy("cache-0-0", 0, 0)
                        .desired("h1")
                        .drift("h1", mins(-9)),
                )
                .node(healthy("cache-0-1", 0, 1))
                .event(event_applied(
                    NS,
                    "cache-0-1",
                    "h0",
                    mins(-9) - jiff::SignedDuration::from_secs(3),
                )),
            2,
            Some(1),
        ),
        (
            "Spec-driven: the nodes advanced since the spec edit; a node behind is not done",
            fixture::cluster(NS, CL)
                .ready_for_generation()
                .image(OLD)
                .image_edited(NEW, mins(-10))
                .node(healthy("cache-0-0", 0, 0).image(OLD))
                .node(healthy("cache-0-1", 0, 1).image(NEW))
                .event(event_node_updated(NS, CL, "cache-0-1", mins(-5))),
            2,
            Some(1),
        ),
        (
            "Spec-driven: a node still rolling is not done",
            fixture::cluster(NS, CL)
                .ready_for_generation()
                .image_edited(NEW, mins(-10))
                .node(healthy("cache-0-0", 0, 0).image(OLD))
                .node(
                    healthy("cache-0-1", 0, 1)
                        .image(NEW)
                        .permit("*")
                        .generation(2, 1),
                )
                .event(event_node_updated(NS, CL, "cache-0-1", mins(-5))),
            2,
            Some(0),
        ),
        (
            "Spec-driven without managedFields: the first advance of a node no longer behind",
            fixture::cluster(NS, CL)
                .ready_for_generation()
                .spec_edited()
                .image(NEW)
                .node(healthy("cache-0-0", 0, 0).image(OLD))
                .node(healthy("cache-0-1", 0, 1).image(NEW))
                .node(healthy("cache-0-2", 0, 2).image(NEW))
                .event(event_node_updated(NS, CL, "cache-0-1", mins(-5)))
                .event(event_node_updated(NS, CL, "cache-0-2", mins(-3))),
            3,
            Some(2),
        ),
        (
            "Spec-driven, no managedFields and no event in view: ?",
            fixture::cluster(NS, CL)
                .ready_for_generation()
                .spec_edited()
                .image(NEW)
                .node(healthy("cache-0-0", 0, 0).image(OLD))
                .node(healthy("cache-0-1", 0, 1).image(NEW)),
            2,
            None,
        ),
        (
            "the ValkeyCluster alone is not done: the nodes advanced since the spec edit",
            fixture::cluster(NS, CL)
                .ready_for_generation()
                .image_edited(NEW, mins(-10))
                .node(healthy("cache-0-0", 0, 0).image(NEW))
                .node(healthy("cache-0-1", 0, 1).image(NEW))
                .event(event_node_updated(NS, CL, "cache-0-1", mins(-5)))
                .event(event_node_updated(NS, CL, "cache-0-0", mins(-90))),
            2,
            Some(1),
        ),
        (
            "standalone nodes are not counted",
            cluster()
                .node(healthy("cache-0-0", 0, 0))
                .node(healthy("cache-0-1", 0, 1).standalone()),
            1,
            Some(1),
        ),
    ];
    for (name, c, total, done) in rows {
        let r = judge(&c.snapshot(), t(0));
        assert_eq!((r.total, r.done), (total, done), "{name}");
    }
}

#[test]
fn clusters_from_objects_and_labels() {
    let a = fixture::cluster("prod", "zeta")
        .ready_for_generation()
        .node(healthy("zeta-0-0", 0, 0));
    let b = fixture::cluster("dev", "cache")
        .ready_for_generation()
        .node(healthy("cache-0-0", 0, 0));
    let orphan = fixture::cluster("prod", "ghost")
        .missing()
        .node(healthy("ghost-0-0", 0, 0).desired("h1"));
    let empty = fixture::cluster("prod", "alpha").ready_for_generation();
    let s = snapshot_of(&[&a, &b, &orphan, &empty]);
    let r = classify(&s, t(0), T);
    let names: Vec<(String, String, bool)> = r
        .clusters
        .iter()
        .map(|c| (c.namespace.clone(), c.name.clone(), c.cluster_found))
        .collect();
    assert_eq!(
        names,
        vec![
            ("dev".into(), "cache".into(), true),
            ("prod".into(), "alpha".into(), true),
            ("prod".into(), "ghost".into(), false),
            ("prod".into(), "zeta".into(), true),
        ]
    );
    let ghost = &r.clusters[2];
    assert_eq!(
        (ghost.verdict, ghost.state.as_deref()),
        (Verdict::Waiting, None)
    );
    assert_eq!(ghost.nodes.len(), 1);
    let alpha = &r.clusters[1];
    assert_eq!(
        (alpha.verdict, alpha.total, alpha.nodes.len()),
        (Verdict::Converged, 0, 0)
    );
    assert!(classify(&Snapshot::default(), t(0), T).clusters.is_empty());
}

#[test]
fn node_timeline_is_oldest_first_and_only_this_node() {
    let mut pod_event = event(
        NS,
        "BackOff",
        object(NS, "Pod", "valkey-cache-0-1-0"),
        None,
        "Back-off restarting failed container",
        mins(-1),
    );
    pod_event.involved_object.api_version = Some("v1".to_string());
    let c = cluster()
        .node(healthy(N, 0, 1).permit("h1"))
        .node(healthy("cache-0-10", 0, 10))
        .event(event_applied(NS, N, "h1", mins(-3)))
        .event(legacy(event_permitted(NS, CL, N, "h1", mins(-4))))
        .event(event_deferred_p1(NS, N, "h1", mins(-9)))
        .event(event_permitted(NS, CL, "cache-0-10", "h0", mins(-2)))
        .event(event_node_updated("dev", CL, N, mins(-2)))
        .event(pod_event);
    let s = c.snapshot();
    let got: Vec<(Option<jiff::Timestamp>, String, String)> = timeline(&s, NS, N)
        .into_iter()
        .map(|e| (e.time, e.reason, e.regarding))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                Some(mins(-9)),
                "WorkloadRollDeferred".to_string(),
                "ValkeyNode/cache-0-1".to_string()
            ),
            (
                Some(mins(-4)),
                "WorkloadRollPermitted".to_string(),
                "ValkeyCluster/cache".to_string()
            ),
            (
                Some(mins(-3)),
                "WorkloadRollApplied".to_string(),
                "ValkeyNode/cache-0-1".to_string()
            ),
            (
                Some(mins(-1)),
                "BackOff".to_string(),
                "Pod/valkey-cache-0-1-0".to_string()
            ),
        ]
    );
    let all = cluster_timeline(&s, NS, CL);
    assert_eq!(all.len(), 5, "{all:?}");
    assert!(all.windows(2).all(|w| w[0].time <= w[1].time));
    assert!(timeline(&s, NS, "nope").is_empty());
}

/// A node whose `valkey.io/cluster` label was dropped still belongs to the
/// ValkeyCluster its controller owner reference names: it is in that
/// cluster's report, holds its permit, and gives the cluster its protocol.
#[test]
fn a_node_without_its_label_belongs_by_its_owner() {
    let c = cluster().node(healthy("cache-0-0", 0, 0)).node(
        healthy("cache-0-1", 0, 1)
            .unlabelled()
            .permit("h1")
            .desired("h1"),
    );
    let s = c.snapshot();
    let n = s
        .nodes
        .iter()
        .find(|n| n.name() == "cache-0-1")
        .expect("node");
    assert_eq!(n.cluster_label(), None, "the fixture leaves the label off");
    let r = classify(&s, t(0), Duration::from_secs(600));
    assert_eq!(
        r.clusters.len(),
        1,
        "{:?}",
        r.clusters.iter().map(|c| &c.name).collect::<Vec<_>>()
    );
    let c = &r.clusters[0];
    assert_eq!(c.protocol, Protocol::P1);
    assert_eq!(c.holders, vec!["cache-0-1"]);
    let n = node(c, "cache-0-1");
    assert!(n.facts.cluster_by_owner && n.facts.cluster_owned);
    assert_eq!(n.state, Rolling);
    assert!(!node(c, "cache-0-0").facts.cluster_by_owner);
}
