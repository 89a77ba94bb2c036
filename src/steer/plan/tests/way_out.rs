//! Every refusal ends with a way out, and no way out points at a command
//! that would itself be refused: one table over every kind of refusal in
//! every protocol it can happen in, on snapshots the real classifier
//! judges (the fixture's), each proposed command planned in turn.

use super::*;
use crate::classify::classify;
use crate::fixture::{self, ClusterBuilder, NodeBuilder, mins, t};
use crate::snapshot::Condition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

const H1: &str = "41ab77c0e1f2d3c4b5a6978812345678";
const H2: &str = "9f2c41ab03de55aa66bb77cc88dd99ee";

/// Two shards of a replica (index 1) and a primary (index 0), healthy;
/// `change` sets each node's part.
fn four(change: impl Fn(&str, NodeBuilder) -> NodeBuilder) -> ClusterBuilder {
    let mut c = fixture::cluster("prod", "cache").updating_nodes(mins(-14));
    for (shard, index, primary) in [(0, 1, false), (0, 0, true), (1, 1, false), (1, 0, true)] {
        let name = format!("cache-{shard}-{index}");
        let n = fixture::node(&name)
            .shard(shard, index)
            .ready()
            .pod_ready()
            .sts_rolled_out();
        let n = if primary { n.primary() } else { n.replica() };
        c = c.node(change(&name, n));
    }
    c
}

/// P1, jammed: cache-1-1 holds the permit and crash-loops; the others ask.
fn p1_jammed() -> ClusterBuilder {
    four(|name, n| match name {
        "cache-1-1" => n
            .permit(H2)
            .not_ready(mins(-13))
            .sts_new_template()
            .pod_waiting("CrashLoopBackOff", 7),
        _ => n.desired(H2).drift(H2, mins(-20)),
    })
    .event(fixture::event_permitted(
        "prod",
        "cache",
        "cache-1-1",
        H2,
        mins(-14),
    ))
}

/// P1, waiting: shard 0 rolled, shard 1 asks, no holder; `extra` is a
/// fifth node.
fn p1_waiting(extra: Option<NodeBuilder>) -> ClusterBuilder {
    let c = four(|name, n| match name {
        "cache-1-1" | "cache-1-0" => n.desired(H2).drift(H2, mins(-5)),
        _ => n,
    });
    match extra {
        Some(n) => c.node(n),
        None => c,
    }
}

/// P1: cache-1-1 granted, its template not applied yet (it still asks).
fn p1_granted() -> ClusterBuilder {
    four(|name, n| match name {
        "cache-1-1" => n.permit(H2).desired(H2).drift(H2, mins(-2)),
        "cache-1-0" => n.desired(H2).drift(H2, mins(-2)),
        _ => n,
    })
}

/// P1: the holder's pod is trapped by OrderedReady.
fn p1_trapped() -> ClusterBuilder {
    four(|name, n| match name {
        "cache-1-1" => n
            .permit(H2)
            .not_ready(mins(-5))
            .sts_new_template()
            .sts_status("valkey-cache-1-1-new", 0)
            .pod_not_ready(mins(-5))
            .pod_revision("valkey-cache-1-1-old"),
        "cache-1-0" => n.desired(H2).drift(H2, mins(-20)),
        _ => n,
    })
}

/// Nothing staged in sight: the protocol cannot be told.
fn at_rest() -> ClusterBuilder {
    four(|_, n| n)
}

/// P2 at rest on H1.
fn p2_node(n: NodeBuilder) -> NodeBuilder {
    n.workload_revision(H1)
}

/// P2, jammed: cache-0-1 was advanced to H2 and its image does not pull;
/// the others ask for H2.
fn p2_jammed() -> ClusterBuilder {
    four(|name, n| match name {
        "cache-0-1" => n
            .workload_revision(H2)
            .generation(2, 2)
            .not_ready(mins(-3))
            .sts_new_template()
            .pod_waiting("ImagePullBackOff", 0),
        _ => n.workload_revision(H1).pending(H2, H1),
    })
    .event(fixture::event_node_updated(
        "prod",
        "cache",
        "cache-0-1",
        mins(-4),
    ))
}

/// P2, jammed by the OrderedReady trap: cache-0-1 in flight, its pod on a
/// superseded revision and not Ready for 5m.
fn p2_trapped() -> ClusterBuilder {
    four(|name, n| match name {
        "cache-0-1" => identified(
            n.workload_revision(H2)
                .not_ready(mins(-5))
                .sts(2, 2, "valkey-cache-0-1-new", "valkey-cache-0-1-new", 0)
                .pod_not_ready(mins(-5))
                .pod_revision("valkey-cache-0-1-old"),
        ),
        _ => n.workload_revision(H1).pending(H2, H1),
    })
}

/// The pod carries the uid and resourceVersion a delete is made on, as
/// every pod the API server returns does.
fn identified(mut n: NodeBuilder) -> NodeBuilder {
    if let Some(pod) = n.pod.as_mut() {
        pod.metadata.uid = Some(format!("uid-{}", n.node.name()));
        pod.metadata.resource_version = Some("300".into());
    }
    n
}

/// P2, waiting: every node asks for H2, none is in flight; with
/// `primary_only`, only shard 0's primary asks.
fn p2_waiting(primary_only: bool) -> ClusterBuilder {
    four(|name, n| match (name, primary_only) {
        ("cache-0-0", _) | (_, false) => n.workload_revision(H1).pending(H2, H1),
        _ => p2_node(n),
    })
}

/// P2: cache-0-1 advanced to what it asks for, the controller not yet
/// past it (it still shows WorkloadRollPending).
fn p2_advanced() -> ClusterBuilder {
    four(|name, n| match name {
        "cache-0-1" => n.workload_revision(H2).pending(H2, H1),
        _ => n.workload_revision(H1).pending(H2, H1),
    })
}

/// P2 at rest: nothing asks.
fn p2_rest() -> ClusterBuilder {
    four(|_, n| p2_node(n))
}

/// A node that asks (P1's WorkloadDrift) with no hash anywhere.
fn asks_without_hash(n: NodeBuilder) -> NodeBuilder {
    n.condition(Condition {
        type_: keys::COND_DRIFT.into(),
        status: "True".into(),
        reason: Some("AwaitingRollPermit".into()),
        message: Some("awaits cluster roll permit".into()),
        last_transition_time: Some(Time(mins(-5))),
        observed_generation: None,
    })
}

/// The pod of `node` changed by `f` (replace-pod cases).
fn with_pod(
    c: ClusterBuilder,
    node: &str,
    f: impl FnOnce(NodeBuilder) -> NodeBuilder,
) -> ClusterBuilder {
    let mut c = c;
    c.with_node(node, f);
    c
}

fn r(action: Action, node: &str, f: impl FnOnce(&mut Request)) -> Request {
    let mut request = req(action, node);
    f(&mut request);
    request
}

fn name_of(r: &Refusal) -> &'static str {
    r.code()
}

/// The refusals found only while writing: their way out is the same
/// command again.
const WHILE_WRITING: &[&str] = &[
    "NotConfirmed",
    "WouldNeedConfirmation",
    "LeaseHeld",
    "LeaseLost",
    "Changed",
    "ConflictAgain",
    "PodChanged",
];

/// The kinds a planner refuses with in each protocol (`unknown`: a
/// cluster whose protocol cannot be told).
fn kinds(protocol: &str) -> BTreeSet<&'static str> {
    let both = [
        "OtherHolder",
        "AsksNothing",
        "Standalone",
        "Primary",
        "AlreadyHeld",
        "ProtocolContradicts",
        "NoPod",
        "DeploymentBacked",
        "PodReady",
        "PodOnUpdateRevision",
        "PodBeingDeleted",
        "PodRevisionUnknown",
    ];
    let only: &[&str] = match protocol {
        "P1" => &["AskedRevisionUnknown", "HoldsNothing"],
        "P2" => &["NotFront", "NoRevokeInP2", "NoForceInP2", "NoAnyInP2"],
        _ => &["ProtocolUnknown"],
    };
    match protocol {
        "unknown" => only.iter().copied().collect(),
        _ => both.iter().chain(only).copied().collect(),
    }
}

#[test]
fn every_refusal_has_a_way_out_that_is_not_refused_in_turn() {
    use Action::*;
    let p1 = "P1";
    let p2 = "P2";
    let deployment = |n: NodeBuilder| n.deployment(1, 1, 1, 1, 1, 1);
    let cases: Vec<(&str, ClusterBuilder, Request)> = vec![
        // P1
        (p1, p1_jammed(), req(Grant, "cache-1-0")),
        (p1, p1_waiting(None), req(Grant, "cache-0-1")),
        (
            p1,
            four(|name, n| match name {
                "cache-1-1" => asks_without_hash(n),
                _ => n,
            }),
            req(Grant, "cache-1-1"),
        ),
        (
            p1,
            p1_waiting(Some(
                fixture::node("loose").ready().pod_ready().standalone(),
            )),
            req(Grant, "loose"),
        ),
        (p1, p1_waiting(None), req(Grant, "cache-1-0")),
        (p1, p1_granted(), req(Grant, "cache-1-1")),
        (p1, p1_jammed(), req(Revoke, "cache-0-1")),
        (
            p1,
            p1_jammed(),
            r(Grant, "cache-1-0", |r| {
                r.protocol_override = Some(Protocol::P2)
            }),
        ),
        (p1, p1_jammed(), req(ReplacePod, "cache-0-1")),
        (p1, p1_jammed(), req(ReplacePod, "cache-1-1")),
        (
            p1,
            with_pod(p1_jammed(), "cache-0-1", NodeBuilder::no_pod),
            req(ReplacePod, "cache-0-1"),
        ),
        (
            p1,
            with_pod(p1_jammed(), "cache-0-1", |n| {
                n.pod_not_ready(mins(-5)).pod_being_deleted()
            }),
            req(ReplacePod, "cache-0-1"),
        ),
        (
            p1,
            with_pod(p1_jammed(), "cache-0-1", deployment),
            req(ReplacePod, "cache-0-1"),
        ),
        (
            p1,
            with_pod(p1_jammed(), "cache-0-1", |mut n| {
                n.sts = None;
                n.pod_not_ready(mins(-5))
            }),
            req(ReplacePod, "cache-0-1"),
        ),
        (p1, p1_trapped(), req(Grant, "cache-1-0")),
        // P2
        (p2, p2_jammed(), req(Grant, "cache-0-0")),
        (p2, p2_trapped(), req(Grant, "cache-0-0")),
        (p2, p2_rest(), req(Grant, "cache-0-1")),
        (p2, p2_waiting(false), req(Grant, "cache-1-1")),
        (p2, p2_waiting(true), req(Grant, "cache-0-0")),
        (p2, p2_advanced(), req(Grant, "cache-0-1")),
        (p2, p2_jammed(), req(Revoke, "cache-0-1")),
        (p2, p2_waiting(false), req(Revoke, "cache-0-1")),
        (
            p2,
            p2_jammed(),
            r(Force, "cache-0-0", |r| r.reason = Some("x".into())),
        ),
        (
            p2,
            p2_waiting(false),
            r(Force, "cache-1-1", |r| r.reason = Some("x".into())),
        ),
        (p2, p2_waiting(false), r(Grant, "cache-0-1", any)),
        (
            p2,
            p2_waiting(false),
            r(Grant, "cache-0-1", |r| {
                r.protocol_override = Some(Protocol::P1)
            }),
        ),
        (
            p2,
            p2_waiting(false).node(
                fixture::node("loose")
                    .ready()
                    .pod_ready()
                    .standalone()
                    .workload_revision(H1),
            ),
            req(Grant, "loose"),
        ),
        (p2, p2_jammed(), req(ReplacePod, "cache-0-0")),
        (p2, p2_jammed(), req(ReplacePod, "cache-0-1")),
        (
            p2,
            with_pod(p2_waiting(false), "cache-1-1", NodeBuilder::no_pod),
            req(ReplacePod, "cache-1-1"),
        ),
        (
            p2,
            with_pod(p2_waiting(false), "cache-1-1", |n| {
                n.pod_not_ready(mins(-5)).pod_being_deleted()
            }),
            req(ReplacePod, "cache-1-1"),
        ),
        (
            p2,
            with_pod(p2_waiting(false), "cache-1-1", deployment),
            req(ReplacePod, "cache-1-1"),
        ),
        (
            p2,
            with_pod(p2_waiting(false), "cache-1-1", |mut n| {
                n.sts = None;
                n.pod_not_ready(mins(-5))
            }),
            req(ReplacePod, "cache-1-1"),
        ),
        (
            p2,
            with_pod(p2_waiting(false), "cache-0-0", |n| {
                n.pod_not_ready(mins(-5)).not_ready(mins(-5))
            }),
            req(ReplacePod, "cache-0-0"),
        ),
        // Unknown
        ("unknown", at_rest(), req(Grant, "cache-0-1")),
    ];

    let mut seen: BTreeMap<&str, BTreeSet<&'static str>> = BTreeMap::new();
    let mut failures = Vec::new();
    for (protocol, cluster, request) in &cases {
        let snapshot = cluster.snapshot();
        let report = classify(&snapshot, t(0), Duration::from_secs(600));
        let plan = plan(&snapshot, &report, request, t(0), "alice").expect("plan");
        let what = format!("{protocol} {} {}", request.action(), request.node);
        if !plan.is_refused() {
            failures.push(format!("{what}: not refused"));
            continue;
        }
        for reason in &plan.reasons {
            seen.entry(protocol).or_default().insert(name_of(reason));
        }
        if plan.way_out.is_empty() {
            failures.push(format!("{what}: no way out from {:?}", plan.reasons));
        }
        let c = &report.clusters[0];
        for step in &plan.way_out {
            let ok = match step {
                Step::Steer(next) => {
                    let again =
                        super::plan(&snapshot, &report, &next.request(request), t(0), "alice")
                            .expect("plan");
                    !again.is_refused()
                }
                Step::Explain { node } | Step::FixCause { node } => {
                    c.nodes.iter().any(|n| &n.name == node)
                }
                Step::Watch { cluster } | Step::WatchServers { cluster } => *cluster == c.name,
                Step::Status { cluster } => cluster.as_ref().is_none_or(|n| *n == c.name),
                Step::Again { .. } => false,
            };
            if !ok {
                failures.push(format!(
                    "{what}: refused for {:?}, its way out {step:?} does not go",
                    plan.reasons.iter().map(name_of).collect::<Vec<_>>()
                ));
            }
        }
    }
    for protocol in ["P1", "P2", "unknown"] {
        let got = seen.get(protocol).cloned().unwrap_or_default();
        let missing: Vec<_> = kinds(protocol).difference(&got).copied().collect();
        assert!(
            missing.is_empty(),
            "{protocol}: no case refuses with {missing:?}"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A jammed P2 cluster, whatever was asked: what to fix, the culprit's
/// story, and replace-pod when the OrderedReady trap holds its pod.
#[test]
fn a_jammed_p2_cluster_points_at_its_cause() {
    for (name, cluster, trapped) in [("image", p2_jammed(), false), ("trap", p2_trapped(), true)] {
        let snapshot = cluster.snapshot();
        let report = classify(&snapshot, t(0), Duration::from_secs(600));
        for action in [Action::Grant, Action::Revoke, Action::Force] {
            let mut request = req(action, "cache-1-1");
            request.reason = Some("x".into());
            let plan = plan(&snapshot, &report, &request, t(0), "alice").expect("plan");
            assert!(plan.is_refused(), "{name} {action}");
            assert_eq!(
                plan.way_out.first(),
                Some(&Step::Explain {
                    node: "cache-0-1".into()
                }),
                "{name} {action}: {:?}",
                plan.way_out
            );
            let replace = plan
                .way_out
                .iter()
                .any(|s| matches!(s, Step::Steer(c) if c.action == Action::ReplacePod));
            assert_eq!(replace, trapped, "{name} {action}: {:?}", plan.way_out);
        }
    }
}

/// The refusals met while writing: run the same command again (with
/// --yes when it was confirmation that was missing).
#[test]
fn refusals_while_writing_say_run_it_again() {
    let (snapshot, report) = Scene::p1(vec![waiting("cache-0-1")]).build();
    let base = plan(
        &snapshot,
        &report,
        &req(Action::Grant, "cache-0-1"),
        now(),
        "alice",
    )
    .expect("plan");
    let cases: Vec<(Refusal, Step)> = vec![
        (
            Refusal::NotConfirmed {
                action: Action::Grant,
                node: "cache-0-1".into(),
                asked: false,
            },
            Step::Again { yes: true },
        ),
        (
            Refusal::LeaseHeld {
                lease: "valkey-roll.cache".into(),
                holder: None,
                expires_in_seconds: None,
            },
            Step::Again { yes: false },
        ),
        (
            Refusal::ConflictAgain {
                node: "cache-0-1".into(),
            },
            Step::Again { yes: false },
        ),
    ];
    for (refusal, want) in cases {
        let mut p = base.clone();
        let kind = name_of(&refusal);
        assert!(WHILE_WRITING.contains(&kind), "{kind}");
        p.refuse(refusal);
        assert_eq!(p.way_out, vec![want], "{kind}");
    }
}
