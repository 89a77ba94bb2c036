//! The sentences of classified scenarios: the classifier's tests assert
//! typed facts, and what those facts read as is asserted here, so a change
//! of wording breaks only render's tests. The scenarios are built with the
//! classifier's own test helpers (`classify::tests`).

use crate::classify::tests::{CL, NS, cluster, healthy, judge, node};
use crate::fixture::{self, ClusterBuilder, NodeBuilder, event_permitted, mins, t};
use crate::report::{
    Ahead, ClusterReason, ClusterReport, Creating, Failover, Finding, NodeReason, Protocol,
    Sickness, Silence, SilentAfter, Unfinished, Unhealthy, WaitingFor,
};

const N: &str = "cache-0-1";

fn at0(c: &ClusterBuilder) -> ClusterReport {
    judge(&c.snapshot(), t(0))
}

/// A holder granted a minute ago (so no hold-time rule fires), judged at t(0).
fn holder_with(n: NodeBuilder) -> ClusterReport {
    let c = cluster()
        .node(n.permit("h1").desired("h1"))
        .event(event_permitted(NS, CL, N, "h1", mins(-1)));
    judge(&c.snapshot(), t(0))
}

#[test]
fn reasons_name_who_why_and_how_long() {
    let cases: Vec<(&str, ClusterBuilder, &[&str])> = vec![
        (
            "conflict names every holder",
            cluster()
                .node(healthy("cache-0-1", 0, 1).permit("h1"))
                .node(healthy("cache-1-1", 1, 1).permit("h2")),
            &["2 nodes", "cache-0-1, cache-1-1", "one-at-a-time"],
        ),
        (
            "jammed front",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .not_ready(mins(-3))
                        .pod_waiting("ImagePullBackOff", 0),
                )
                .node(healthy("cache-0-0", 0, 0).desired("h1")),
            &["front cache-0-1", "ImagePullBackOff", "1 waiting"],
        ),
        (
            "held over threshold",
            cluster()
                .node(healthy("cache-0-1", 0, 1).permit("h1").desired("h1"))
                .event(event_permitted(NS, CL, "cache-0-1", "h1", mins(-12))),
            &[
                "cache-0-1 holds the permit",
                "has not finished rolling for 12m",
                "10m",
            ],
        ),
        (
            "stalled front",
            cluster().node(healthy("cache-0-1", 0, 1).drift("h1", mins(-20))),
            &[
                "nothing has moved for 20m",
                "front cache-0-1 asks for a permit",
                "controller may be down",
            ],
        ),
        (
            "stalled, the cluster's word",
            fixture::cluster(NS, CL)
                .updating_nodes(mins(-20))
                .node(healthy("cache-0-1", 0, 1)),
            &["ValkeyCluster reports it is not done", "UpdatingNodes"],
        ),
        (
            "waiting for a grant",
            cluster().node(healthy("cache-0-1", 0, 1).drift("h1", mins(-2))),
            &["a grant is due", "cache-0-1 is next", "2m"],
        ),
        (
            "rolling",
            cluster()
                .node(healthy("cache-0-1", 0, 1).permit("h1").desired("h1"))
                .event(event_permitted(NS, CL, "cache-0-1", "h1", mins(-3))),
            &["cache-0-1 is rolling", "held 3m", "event"],
        ),
        (
            "settling",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .permit("h1")
                        .pod_ready_since(mins(-1)),
                )
                .event(event_permitted(NS, CL, "cache-0-1", "h1", mins(-4))),
            &["cache-0-1 has rolled, held 4m (event)", "yet to release"],
        ),
        (
            "not released",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .permit("h1")
                        .pod_ready_since(mins(-12)),
                )
                .event(event_permitted(NS, CL, "cache-0-1", "h1", mins(-14))),
            &["cache-0-1 finished rolling 12m ago but still holds the permit"],
        ),
        (
            "stale permit, jammed",
            cluster()
                .node(
                    healthy("cache-0-1", 0, 1)
                        .permit("aaaaaaaaaaaaaaaa")
                        .desired("bbbbbbbbbbbbbbbb"),
                )
                .event(event_permitted(
                    NS,
                    CL,
                    "cache-0-1",
                    "aaaaaaaaaaaaaaaa",
                    mins(-5),
                )),
            &[
                "stale permit aaaaaaaaaaaa while it asks for bbbbbbbbbbbb",
                "held 5m (event)",
            ],
        ),
        (
            "converged",
            cluster().node(healthy("cache-0-1", 0, 1)),
            &["all 1 node rolled and healthy"],
        ),
    ];
    for (name, c, parts) in cases {
        let r = at0(&c);
        for p in parts {
            assert!(
                r.reason.to_string().contains(p),
                "{name}: {:?} lacks {p:?}",
                r.reason
            );
        }
    }
}

#[test]
fn evidence_words() {
    let r = holder_with(
        fixture::node(N)
            .replica()
            .shard(0, 1)
            .ready()
            .sts(2, 2, "rev-old", "rev-new", 0)
            .pod_not_ready(mins(-3))
            .pod_revision("rev-old"),
    );
    let n = node(&r, N);
    assert_eq!(
        n.reason.to_string(),
        "pod valkey-cache-0-1-0 superseded (revision rev-old, not Ready 3m)"
    );
    assert!(
        n.evidence[0].finding.to_string().contains("delete the pod"),
        "{}",
        n.evidence[0].finding.to_string()
    );
    assert!(
        n.evidence[0].finding.to_string().contains("rev-new"),
        "{}",
        n.evidence[0].finding.to_string()
    );

    let r = holder_with(
        fixture::node(N)
            .replica()
            .shard(0, 1)
            .ready()
            .sts_rolled_out()
            .pod_unschedulable(mins(-5)),
    );
    assert_eq!(
        node(&r, N).reason.to_string(),
        "pod valkey-cache-0-1-0 Unschedulable for 5m"
    );
}

/// docs/plugin.md's example of a stuck node, as the classifier states it
/// (classify::tests::states::stuck_node_report_reads_like_the_example).
#[test]
fn a_stuck_node_reads_like_the_example() {
    let crash = Finding::ContainerWaiting {
        pod: "valkey-cache-0-1-0".into(),
        container: "server".into(),
        reason: "CrashLoopBackOff".into(),
        restarts: 7,
    };
    assert_eq!(
        NodeReason::Failing(crash.clone()).to_string(),
        "pod valkey-cache-0-1-0 CrashLoopBackOff (restarts 7)"
    );
    assert_eq!(
        crash.to_string(),
        "container server waiting: CrashLoopBackOff (restarts 7)"
    );
    assert_eq!(
        Finding::HeldOverThreshold {
            held: 840,
            threshold: 600
        }
        .to_string(),
        "held 14m > stall threshold 10m"
    );
    assert_eq!(
        ClusterReason::HolderFailing {
            holder: N.into(),
            protocol: Protocol::P1,
            finding: crash,
            held: Some(840),
        }
        .to_string(),
        "cache-0-1 holds the permit and its pod is CrashLoopBackOff (restarts 7) for 14m"
    );
}

#[test]
fn a_waiting_node_says_its_place_and_who_is_ahead() {
    let waiting = |queue, ahead: &str| NodeReason::Waiting {
        queue,
        ahead: Ahead::Holders(vec![ahead.into()]),
    };
    assert_eq!(
        waiting(1, "cache-0-2").to_string(),
        "queue 1, behind cache-0-2"
    );
    assert_eq!(
        waiting(2, "cache-0-1").to_string(),
        "queue 2, behind cache-0-1"
    );
}

#[test]
fn a_blocking_node_says_why_it_is_not_healthy() {
    let because = vec![
        Unhealthy::NodeNotReady,
        Unhealthy::GenerationNotObserved {
            generation: 2,
            observed: 1,
        },
    ];
    let said: Vec<String> = because.iter().map(ToString::to_string).collect();
    assert_eq!(
        said,
        ["node not ready", "generation 2 not observed (observed 1)"]
    );
    assert_eq!(
        NodeReason::Blocking(Sickness::Status(because)).to_string(),
        "node not ready; generation 2 not observed (observed 1)"
    );
    assert_eq!(
        NodeReason::Blocking(Sickness::Failing(Finding::OomKilled {
            pod: "valkey-cache-0-1-0".into(),
            container: "server".into(),
            restarts: 1,
        }))
        .to_string(),
        "pod valkey-cache-0-1-0 OOMKilled (restarts 1)"
    );
}

#[test]
fn a_creation_counts_its_nodes() {
    let creating = ClusterReason::Waiting {
        quiet: Some(0),
        waiting: 0,
        what: WaitingFor::Creating(Creating { have: 0, want: 6 }),
        failover: None,
    };
    assert_eq!(creating.to_string(), "creating: 0 of 6 nodes, quiet for 0s");
}

#[test]
fn a_silent_operator_is_asked_about() {
    let silent = ClusterReason::OperatorSilent {
        then: Box::new(ClusterReason::Waiting {
            quiet: Some(53),
            waiting: 0,
            what: WaitingFor::Health {
                front: N.into(),
                because: vec![Unhealthy::NodeNotReady],
            },
            failover: None,
        }),
        silence: Silence {
            node: N.into(),
            quiet: 53,
            after: SilentAfter::PodReady,
        },
    };
    assert_eq!(
        silent.to_string(),
        "the controller waits for cache-0-1 to become healthy (node not ready), \
         quiet for 53s; the operator has not acted on cache-0-1 for 53s since its pod \
         became Ready: is it running?"
    );
    let applied = Silence {
        node: N.into(),
        quiet: 31,
        after: SilentAfter::Applied,
    };
    assert_eq!(
        applied.to_string(),
        "the operator has not acted on cache-0-1 for 31s since it applied its new spec: \
         is it running?"
    );
}

#[test]
fn a_deferred_primary_is_said_held_back() {
    let deferred = ClusterReason::Waiting {
        quiet: Some(0),
        waiting: 2,
        what: WaitingFor::Deferred(crate::report::Deferred {
            shard: Some(0),
            primary: Some("cache-0-0".into()),
            cause: "primary has no synced replicas".into(),
            source: crate::report::DeferredSource::Condition,
            replicas: Vec::new(),
        }),
        failover: None,
    };
    let said = deferred.to_string();
    assert!(
        said.starts_with(
            "the operator holds back shard 0's primary cache-0-0: primary has no synced replicas"
        ),
        "{said}"
    );
    let grant = ClusterReason::Waiting {
        quiet: Some(0),
        waiting: 2,
        what: WaitingFor::Grant {
            front: "cache-0-0".into(),
        },
        failover: None,
    };
    assert!(!grant.to_string().contains("holds back"), "{grant}");
}

#[test]
fn a_failover_is_named_as_the_cause() {
    let failover = Failover {
        primary: "cache-0-0".into(),
        initiated: 2,
        last: "FailoverTimeout".into(),
        last_ago: Some(60),
    };
    let stalled = |failover| ClusterReason::Stalled {
        quiet: Some(86400),
        what: Unfinished::FrontAsks {
            front: "cache-0-0".into(),
        },
        failover,
    };
    let said = stalled(Some(failover.clone())).to_string();
    assert!(!said.contains("may be down"), "{said}");
    assert!(
        said.contains(
            "trying to fail over the primary cache-0-0 (initiated 2 times, last FailoverTimeout 1m ago)"
        ),
        "{said}"
    );
    let waiting = ClusterReason::Waiting {
        quiet: Some(240),
        waiting: 1,
        what: WaitingFor::Grant {
            front: "cache-0-0".into(),
        },
        failover: Some(failover),
    }
    .to_string();
    assert!(
        waiting.contains("trying to fail over the primary cache-0-0"),
        "{waiting}"
    );
    // Without failover events the sentence says nothing of it.
    let quiet = stalled(None).to_string();
    assert!(!quiet.contains("fail over"), "{quiet}");
}

#[test]
fn a_holder_s_failure_is_named_in_the_cluster_sentence() {
    let holding = |reason: &str, protocol| ClusterReason::HolderFailing {
        holder: N.into(),
        protocol,
        finding: Finding::ContainerWaiting {
            pod: "valkey-cache-0-1-0".into(),
            container: "server".into(),
            reason: reason.into(),
            restarts: 2,
        },
        held: Some(60),
    };
    for (reason, protocol) in [
        ("CrashLoopBackOff", Protocol::P1),
        ("ImagePullBackOff", Protocol::P2),
    ] {
        let said = holding(reason, protocol).to_string();
        assert!(said.contains(reason), "{said}");
    }
    // P2 words it its own way when rolling: the queue behind is counted.
    let rolling = ClusterReason::HolderRolling {
        holder: N.into(),
        protocol: Protocol::P2,
        hold: crate::report::Hold {
            seconds: None,
            source: crate::report::GrantSource::Unknown,
        },
        waiting: 3,
    };
    assert!(rolling.to_string().contains("3 waiting"), "{rolling}");
}
