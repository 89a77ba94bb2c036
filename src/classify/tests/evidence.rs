//! Every failure-evidence reason, and the cases that are not quite one.

use super::*;
use crate::fixture::{event_permitted, mins, t};
use crate::report::EvidenceKind::{self, *};

const N: &str = "cache-0-1";

/// A holder granted a minute ago (so no hold-time rule fires), judged at t(0).
fn holder_with(n: NodeBuilder) -> ClusterReport {
    let c = cluster()
        .node(n.permit("h1").desired("h1"))
        .event(event_permitted(NS, CL, N, "h1", mins(-1)));
    judge(&c.snapshot(), t(0))
}

fn kinds(r: &ClusterReport) -> Vec<EvidenceKind> {
    node(r, N).evidence.iter().map(|e| e.kind).collect()
}

#[test]
fn every_reason() {
    let base = || {
        fixture::node(N)
            .replica()
            .shard(0, 1)
            .ready()
            .sts_rolled_out()
    };
    let waiting = |reason: &str| base().pod_waiting(reason, 4);
    let rows: Vec<(&str, NodeBuilder, Vec<EvidenceKind>)> = vec![
        (
            "CrashLoopBackOff",
            waiting("CrashLoopBackOff"),
            vec![CrashLoopBackOff],
        ),
        (
            "ImagePullBackOff",
            waiting("ImagePullBackOff"),
            vec![ImagePullBackOff],
        ),
        ("ErrImagePull", waiting("ErrImagePull"), vec![ErrImagePull]),
        (
            "InvalidImageName",
            waiting("InvalidImageName"),
            vec![InvalidImageName],
        ),
        (
            "CreateContainerConfigError",
            waiting("CreateContainerConfigError"),
            vec![CreateContainerConfigError],
        ),
        (
            "CreateContainerError",
            waiting("CreateContainerError"),
            vec![CreateContainerError],
        ),
        (
            "RunContainerError",
            waiting("RunContainerError"),
            vec![RunContainerError],
        ),
        (
            "ContainerCreating is not failure",
            waiting("ContainerCreating"),
            vec![],
        ),
        (
            "OOMKilled, not ready",
            base().pod_not_ready(mins(-1)).pod_oomkilled(),
            vec![OomKilled],
        ),
        (
            "OOMKilled, but ready again",
            base().pod_ready().pod_oomkilled(),
            vec![],
        ),
        (
            "restarting while Running: not ready, 3 restarts, killed a minute ago",
            base().pod_not_ready(mins(-1)).pod_restarting(3, mins(-1)),
            vec![RestartLoop],
        ),
        (
            "restarting, but only twice",
            base().pod_not_ready(mins(-1)).pod_restarting(2, mins(-1)),
            vec![],
        ),
        (
            "restarting, but ready now",
            base().pod_ready().pod_restarting(5, mins(-1)),
            vec![],
        ),
        (
            "restarted often, but the last termination is 11m old",
            base().pod_not_ready(mins(-1)).pod_restarting(5, mins(-11)),
            vec![],
        ),
        (
            "Unschedulable 2m01s",
            base().pod_unschedulable(t(-121)),
            vec![Unschedulable],
        ),
        (
            "Unschedulable 1m59s",
            base().pod_unschedulable(t(-119)),
            vec![],
        ),
        (
            "Unschedulable exactly 2m",
            base().pod_unschedulable(t(-120)),
            vec![],
        ),
        (
            "Unschedulable, no transition time",
            base().pod_unschedulable_no_time(),
            vec![],
        ),
        (
            "pod being deleted gives none",
            base()
                .pod_waiting("CrashLoopBackOff", 9)
                .pod_being_deleted(),
            vec![],
        ),
        (
            "ProgressDeadlineExceeded",
            fixture::node(N)
                .replica()
                .shard(0, 1)
                .ready()
                .deployment(2, 2, 1, 2, 1, 0)
                .pod_not_ready(mins(-1))
                .progress_deadline_exceeded(mins(-1)),
            vec![ProgressDeadlineExceeded],
        ),
        (
            "SupersededPod: not Ready 3m, old revision",
            base()
                .sts(2, 2, "rev-old", "rev-new", 0)
                .pod_not_ready(mins(-3))
                .pod_revision("rev-old"),
            vec![SupersededPod],
        ),
        (
            "not superseded: not Ready only 1m",
            base()
                .sts(2, 2, "rev-old", "rev-new", 0)
                .pod_not_ready(mins(-1))
                .pod_revision("rev-old"),
            vec![],
        ),
        (
            "not superseded: on the update revision",
            base()
                .sts(2, 2, "rev-old", "rev-new", 0)
                .pod_not_ready(mins(-3))
                .pod_revision("rev-new"),
            vec![],
        ),
        (
            "not superseded: being deleted",
            base()
                .sts(2, 2, "rev-old", "rev-new", 0)
                .pod_not_ready(mins(-3))
                .pod_revision("rev-old")
                .pod_being_deleted(),
            vec![],
        ),
        (
            "not superseded: a Deployment pod",
            fixture::node(N)
                .replica()
                .shard(0, 1)
                .ready()
                .deployment(2, 2, 1, 2, 1, 0)
                .pod_not_ready(mins(-3)),
            vec![],
        ),
        (
            "readiness failing is not evidence",
            base().pod_not_ready(mins(-9)),
            vec![],
        ),
        (
            "two at once, pod first",
            fixture::node(N)
                .replica()
                .shard(0, 1)
                .ready()
                .deployment(2, 2, 1, 2, 1, 0)
                .pod_waiting("CrashLoopBackOff", 2)
                .progress_deadline_exceeded(mins(-1)),
            vec![CrashLoopBackOff, ProgressDeadlineExceeded],
        ),
    ];
    for (name, n, want) in rows {
        let r = holder_with(n);
        assert_eq!(kinds(&r), want, "{name}");
        let want_state = if want.is_empty() {
            NodeState::Rolling
        } else {
            NodeState::Stuck
        };
        assert_eq!(state(&r, N), want_state, "{name}: state");
    }
}

#[test]
fn evidence_on_a_node_that_holds_nothing() {
    // Shown on the Blocking node, and it jams the cluster as the front.
    let c = cluster()
        .node(
            healthy(N, 0, 1)
                .not_ready(mins(-4))
                .pod_not_ready(mins(-4))
                .pod_oomkilled(),
        )
        .node(healthy("cache-0-0", 0, 0).desired("h1"));
    let r = judge(&c.snapshot(), t(0));
    assert_eq!(kinds(&r), vec![OomKilled]);
    assert_eq!(state(&r, N), NodeState::Blocking);
    assert_eq!(
        node(&r, N).reason,
        crate::report::NodeReason::Blocking(crate::report::Sickness::Failing(
            crate::report::Finding::OomKilled {
                pod: "valkey-cache-0-1-0".into(),
                container: "server".into(),
                restarts: 1,
            }
        ))
    );
    assert_eq!(r.verdict, Verdict::Jammed);
}

/// The failing container and its last termination (explain's "Last
/// words", the evidence's `lastTermination`): which container, and what
/// `lastState.terminated` says.
#[test]
fn failing_container_and_its_last_termination() {
    use crate::report::{FailingContainer, Termination};
    use serde_json::json;
    let finished = "2026-11-29T09:59:00Z";
    let at = || Some(finished.parse::<Timestamp>().unwrap());
    let crashing = |name: &str, terminated: serde_json::Value| {
        json!({
            "name": name, "image": "valkey/valkey:9.1.0", "imageID": "", "ready": false,
            "restartCount": 7,
            "state": {"waiting": {"reason": "CrashLoopBackOff"}},
            "lastState": {"terminated": terminated},
        })
    };
    let running_ready = |name: &str| {
        json!({
            "name": name, "image": "exporter:1", "imageID": "", "ready": true, "restartCount": 2,
            "state": {"running": {"startedAt": "2026-11-29T09:00:00Z"}},
            "lastState": {"terminated": {"exitCode": 2, "reason": "Error", "finishedAt": "2026-11-29T08:59:00Z"}},
        })
    };
    let term = |container: &str, exit_code: i32, reason: Option<&str>, signal: Option<i32>| {
        Some(Termination {
            container: container.into(),
            exit_code,
            reason: reason.map(str::to_string),
            signal,
            finished_at: at(),
        })
    };
    let failing = |name: &str, restarts: i32, last: Option<Termination>| {
        Some(FailingContainer {
            name: name.into(),
            restarts,
            last,
        })
    };
    let base = || {
        fixture::node(N)
            .replica()
            .shard(0, 1)
            .ready()
            .sts_rolled_out()
    };
    // (case, node, the failing container, the first evidence's lastTermination)
    type Row = (
        &'static str,
        NodeBuilder,
        Option<FailingContainer>,
        Option<Termination>,
    );
    let rows: Vec<Row> = vec![
        (
            "terminated with a reason",
            base().pod_containers(json!([crashing(
                "server",
                json!({"exitCode": 1, "reason": "Error", "finishedAt": finished})
            )])),
            failing("server", 7, term("server", 1, Some("Error"), None)),
            term("server", 1, Some("Error"), None),
        ),
        (
            "signal only (no reason; an empty reason is none)",
            base().pod_containers(json!([crashing(
                "server",
                json!({"exitCode": 137, "reason": "", "signal": 9, "finishedAt": finished})
            )])),
            failing("server", 7, term("server", 137, None, Some(9))),
            term("server", 137, None, Some(9)),
        ),
        (
            "no lastState: it never ran",
            base().pod_waiting("ImagePullBackOff", 0),
            failing("server", 0, None),
            None,
        ),
        (
            "several containers: the one that waits for a failure reason",
            base().pod_containers(json!([
                running_ready("exporter"),
                crashing(
                    "server",
                    json!({"exitCode": 1, "reason": "Error", "finishedAt": finished})
                ),
            ])),
            failing("server", 7, term("server", 1, Some("Error"), None)),
            term("server", 1, Some("Error"), None),
        ),
        (
            "several containers, none waiting: the one not ready that terminated",
            base().pod_containers(json!([
                running_ready("exporter"),
                {
                    "name": "server", "image": "valkey/valkey:9.1.0", "imageID": "", "ready": false,
                    "restartCount": 3,
                    "state": {"running": {"startedAt": "2026-11-29T09:59:30Z"}},
                    "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled", "finishedAt": finished}},
                },
            ])),
            failing("server", 3, term("server", 137, Some("OOMKilled"), None)),
            term("server", 137, Some("OOMKilled"), None),
        ),
        (
            "a healthy pod with an old termination has no failing container",
            base().pod_ready().pod_restarting(1, mins(-50)).pod_ready(),
            None,
            None,
        ),
    ];
    for (case, n, want_failing, want_evidence) in rows {
        let c = cluster()
            .node(n.permit("h1").desired("h1"))
            .event(event_permitted(NS, CL, N, "h1", mins(-1)));
        // t(0) is 2026-11-29T10:00:00Z, a minute after `finished`.
        let r = judge(&c.snapshot(), t(0));
        let got = node(&r, N);
        assert_eq!(
            got.facts.failing_container.as_deref(),
            want_failing.as_ref(),
            "{case}"
        );
        assert_eq!(
            got.evidence
                .first()
                .and_then(|e| e.last_termination.clone()),
            want_evidence,
            "{case}: {:?}",
            got.evidence
        );
    }
}
