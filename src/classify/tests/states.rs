//! Every row of docs/plugin.md's node-state table, with the cases next to each
//! rule that must not fire.

use super::*;
use crate::fixture::{event_permitted, mins, t};
use crate::report::{
    Ahead, ClusterReason, EvidenceKind, Finding, GrantSource, NodeReason, Sickness, Unhealthy,
};
use NodeState::*;

const N: &str = "cache-0-1";
const OTHER: &str = "cache-0-0";

/// One node under test plus a healthy primary beside it; `now` is t(0).
fn one(n: NodeBuilder, events: Vec<k8s_openapi::api::core::v1::Event>) -> ClusterReport {
    let mut c = cluster().node(n).node(healthy(OTHER, 0, 0));
    for e in events {
        c.push_event(e);
    }
    judge(&c.snapshot(), t(0))
}

fn permitted(h: &str, at: jiff::Timestamp) -> Vec<k8s_openapi::api::core::v1::Event> {
    vec![event_permitted(NS, CL, N, h, at)]
}

#[test]
fn node_state_table() {
    let rows: Vec<(&str, NodeBuilder, Vec<_>, NodeState)> = vec![
        // 1 Standalone
        (
            "standalone with a permit",
            healthy(N, 0, 1).standalone().permit("h1"),
            vec![],
            Standalone,
        ),
        (
            "standalone at rest",
            healthy(N, 0, 1).standalone(),
            vec![],
            Standalone,
        ),
        // 2 StalePermit
        (
            "permit for another hash than asked",
            healthy(N, 0, 1).permit("h-old").desired("h-new"),
            permitted("h-old", mins(-5)),
            StalePermit,
        ),
        (
            "permit vs hash in the drift message",
            healthy(N, 0, 1).permit("h-old").drift("h-new", mins(-5)),
            vec![],
            StalePermit,
        ),
        (
            "* permit is never stale",
            healthy(N, 0, 1).permit("*").desired("h-new"),
            vec![],
            Rolling,
        ),
        (
            "permit equal to lastRolloutHash is not stale",
            healthy(N, 0, 1)
                .permit("h-old")
                .desired("h-new")
                .last_rollout_hash("h-old")
                .pod_ready_since(mins(-1)),
            permitted("h-old", mins(-1)),
            Settling,
        ),
        // 3 Stuck
        (
            "holder with failure evidence",
            healthy(N, 0, 1)
                .permit("h1")
                .pod_waiting("CrashLoopBackOff", 7),
            permitted("h1", mins(-2)),
            Stuck,
        ),
        (
            "not complete, held over T",
            healthy(N, 0, 1).permit("h1").desired("h1"),
            permitted("h1", mins(-11)),
            Stuck,
        ),
        (
            "complete for over T, permit still held",
            healthy(N, 0, 1).permit("h1").pod_ready_since(mins(-15)),
            permitted("h1", mins(-30)),
            Stuck,
        ),
        (
            "complete for an unknown time, held over T",
            healthy(N, 0, 1)
                .permit("h1")
                .last_rollout_hash("h1")
                .pod_ready_no_time(),
            permitted("h1", mins(-30)),
            Stuck,
        ),
        // 4 Settling
        (
            "complete, recently",
            healthy(N, 0, 1).permit("h1").pod_ready_since(mins(-1)),
            permitted("h1", mins(-3)),
            Settling,
        ),
        (
            "complete by lastRolloutHash",
            healthy(N, 0, 1)
                .permit("h1")
                .desired("h1")
                .last_rollout_hash("h1")
                .pod_ready_since(mins(-1)),
            permitted("h1", mins(-3)),
            Settling,
        ),
        // 5 Rolling
        (
            "holder, just granted",
            healthy(N, 0, 1).permit("h1").desired("h1"),
            permitted("h1", mins(-1)),
            Rolling,
        ),
        (
            "holder whose pod was Ready before the grant",
            healthy(N, 0, 1).permit("h1"),
            permitted("h1", mins(-3)),
            Rolling,
        ),
        (
            "holder that still asks, grant time unknown, no evidence",
            healthy(N, 0, 1).permit("h1").desired("h1"),
            vec![],
            Rolling,
        ),
        (
            "holder whose roll looks done, grant time unknown, Ready for long",
            healthy(N, 0, 1).permit("h1"),
            vec![],
            Stuck,
        ),
        // 6 Waiting
        (
            "asks (annotation), healthy",
            healthy(N, 0, 1).desired("h1"),
            vec![],
            Waiting,
        ),
        (
            "asks (condition), healthy",
            healthy(N, 0, 1).drift("h1", mins(-3)),
            vec![],
            Waiting,
        ),
        (
            "asks and not healthy",
            healthy(N, 0, 1).desired("h1").not_ready(mins(-3)),
            vec![],
            Waiting,
        ),
        // 7 Blocking
        (
            "node not ready",
            healthy(N, 0, 1).not_ready(mins(-3)),
            vec![],
            Blocking,
        ),
        (
            "pod not Ready",
            healthy(N, 0, 1).pod_not_ready(mins(-3)),
            vec![],
            Blocking,
        ),
        (
            "generation not observed",
            healthy(N, 0, 1).generation(3, 2),
            vec![],
            Blocking,
        ),
        (
            "LiveConfigApplied=False",
            healthy(N, 0, 1).live_config_false(mins(-3)),
            vec![],
            Blocking,
        ),
        // 8 Converged
        ("at rest", healthy(N, 0, 1), vec![], Converged),
        (
            "empty permit annotation is no permit",
            healthy(N, 0, 1).permit(""),
            vec![],
            Converged,
        ),
        (
            "no pod known",
            fixture::node(N)
                .replica()
                .shard(0, 1)
                .ready()
                .sts_rolled_out(),
            vec![],
            Converged,
        ),
    ];
    for (name, n, events, want) in rows {
        let r = one(n, events);
        let got = node(&r, N);
        assert_eq!(
            got.state, want,
            "{name}: reason {:?}, evidence {:?}",
            got.reason, got.evidence
        );
    }
}

#[test]
fn stuck_carries_its_evidence() {
    let cases: Vec<(&str, NodeBuilder, Vec<_>, Vec<EvidenceKind>)> = vec![
        (
            "failure evidence and held over T",
            healthy(N, 0, 1)
                .permit("h1")
                .pod_waiting("CrashLoopBackOff", 7),
            permitted("h1", mins(-14)),
            vec![
                EvidenceKind::CrashLoopBackOff,
                EvidenceKind::HeldOverThreshold,
            ],
        ),
        (
            "held over T",
            healthy(N, 0, 1).permit("h1").desired("h1"),
            permitted("h1", mins(-11)),
            vec![EvidenceKind::HeldOverThreshold],
        ),
        (
            "not released",
            healthy(N, 0, 1).permit("h1").pod_ready_since(mins(-15)),
            permitted("h1", mins(-30)),
            vec![EvidenceKind::NotReleased],
        ),
        (
            "rolling: nothing",
            healthy(N, 0, 1).permit("h1").desired("h1"),
            permitted("h1", mins(-1)),
            vec![],
        ),
    ];
    for (name, n, events, want) in cases {
        let r = one(n, events);
        let kinds: Vec<EvidenceKind> = node(&r, N).evidence.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, want, "{name}");
    }
}

#[test]
fn stuck_node_report_reads_like_the_example() {
    let n = healthy(N, 1, 1)
        .permit("h1")
        .last_rollout_hash("h0")
        .pod_waiting("CrashLoopBackOff", 7);
    let r = one(n, permitted("h1", mins(-14)));
    let got = node(&r, N);
    // Its sentences: render::words::tests::a_stuck_node_reads_like_the_example.
    let crash = Finding::ContainerWaiting {
        pod: "valkey-cache-0-1-0".into(),
        container: "server".into(),
        reason: "CrashLoopBackOff".into(),
        restarts: 7,
    };
    assert_eq!(got.reason, NodeReason::Failing(crash.clone()));
    assert_eq!(got.held_for_seconds, Some(840));
    assert_eq!(got.granted_at, Some(mins(-14)));
    assert_eq!(got.granted_at_source, GrantSource::Event);
    assert_eq!(got.permit.as_deref(), Some("h1"));
    assert_eq!(got.desired_revision, None);
    assert_eq!(got.last_rollout_hash.as_deref(), Some("h0"));
    assert_eq!(got.pod.as_deref(), Some("valkey-cache-0-1-0"));
    assert_eq!(got.waiting_for_seconds, None);
    assert_eq!(got.evidence[0].finding, crash);
    assert_eq!(
        got.evidence[1].finding,
        Finding::HeldOverThreshold {
            held: 840,
            threshold: 600
        }
    );
    assert_eq!(
        r.reason,
        ClusterReason::HolderFailing {
            holder: N.into(),
            protocol: crate::report::Protocol::P1,
            finding: crash,
            held: Some(840),
        }
    );
    assert!(got.facts.holder && got.facts.cluster_owned && !got.facts.complete);
}

#[test]
fn waiting_time_and_queue() {
    // Two Waiting nodes behind one holder; waiting time from the earliest of
    // the drift and Ready=False transitions; unknown when neither is known.
    let c = cluster()
        .node(healthy("cache-0-2", 0, 2).permit("h1").desired("h1"))
        .node(
            healthy("cache-0-1", 0, 1)
                .drift("h1", mins(-5))
                .not_ready(mins(-8)),
        )
        .node(healthy("cache-0-0", 0, 0).desired("h1"))
        .event(event_permitted(NS, CL, "cache-0-2", "h1", mins(-1)));
    let r = judge(&c.snapshot(), t(0));
    let a = node(&r, "cache-0-1");
    assert_eq!(
        (a.state, a.queue_position, a.waiting_for_seconds),
        (Waiting, Some(1), Some(480))
    );
    assert_eq!(
        a.reason,
        NodeReason::Waiting {
            queue: 1,
            ahead: Ahead::Holders(vec!["cache-0-2".into()])
        }
    );
    let b = node(&r, "cache-0-0");
    assert_eq!(
        (b.state, b.queue_position, b.waiting_for_seconds),
        (Waiting, Some(2), None)
    );
    assert_eq!(node(&r, "cache-0-2").queue_position, None);
    assert_eq!(r.waiting, 2);
    assert_eq!(r.front.as_deref(), Some("cache-0-1"));
}

#[test]
fn facts_are_filled() {
    let n = healthy(N, 0, 1)
        .permit("h1")
        .desired("h1")
        .resource_version("4711");
    let r = one(n, permitted("h1", mins(-1)));
    let f = &node(&r, N).facts;
    assert!(f.cluster_owned && f.asks && f.holder && f.healthy && !f.is_primary && !f.complete);
    assert_eq!(f.pod_ready, Some(true));
    assert_eq!(f.workload_rolled_out, Some(true));
    assert_eq!(f.template_roll_in_progress, Some(false));
    assert_eq!(f.resource_version.as_deref(), Some("4711"));
    assert!(node(&r, OTHER).facts.is_primary);

    let r = one(
        healthy(N, 0, 1).not_ready(mins(-2)).generation(2, 1),
        vec![],
    );
    let f = &node(&r, N).facts;
    assert!(!f.healthy);
    let because = vec![
        Unhealthy::NodeNotReady,
        Unhealthy::GenerationNotObserved {
            generation: 2,
            observed: 1,
        },
    ];
    assert_eq!(f.unhealthy_because, because);
    assert_eq!(f.waiting_since, Some(mins(-2)));
    assert_eq!(
        node(&r, N).reason,
        NodeReason::Blocking(Sickness::Status(because))
    );
}
