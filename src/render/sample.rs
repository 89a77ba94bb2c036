//! Reports built by hand for tests: the renderers' samples (the classifier
//! has its own tests; these pin how a given report reads), and the bare
//! node and cluster reports that the steering, watch, wait and status
//! tests shape into their cases.

use crate::report::{
    ClusterReport, Evidence, EvidenceKind, FailingContainer, GrantSource, NodeFacts, NodeReport,
    NodeState, Protocol, Report, Termination, TimelineEntry, Verdict,
};
use jiff::Timestamp;

pub const OLD: &str = "41ab77c0e1f2d3c4b5a6978812345678";
pub const NEW: &str = "9f2c41ab03de55aa66bb77cc88dd99ee";

pub fn ts(s: &str) -> Timestamp {
    s.parse()
        .unwrap_or_else(|e| panic!("bad test time {s}: {e}"))
}

/// The clock of every sample.
pub fn now() -> Timestamp {
    ts("2026-11-29T10:16:11Z")
}

/// A node report that says nothing beyond its name and state: no place,
/// role, permit, pod, hashes or evidence; `ready`; default facts. A test
/// sets what its case needs.
pub fn bare_node(name: &str, state: NodeState) -> NodeReport {
    NodeReport {
        name: name.into(),
        shard: None,
        index: None,
        role: None,
        state,
        queue_position: None,
        permit: None,
        desired_revision: None,
        last_rollout_hash: None,
        ready: true,
        pod: None,
        held_for_seconds: None,
        granted_at: None,
        granted_at_source: GrantSource::Unknown,
        granted_by: None,
        grant_reason: None,
        waiting_for_seconds: None,
        reason: String::new(),
        evidence: Vec::new(),
        facts: NodeFacts::default(),
    }
}

/// The cluster report `prod/<name>` of these nodes: P1, no holder, no
/// front, none waiting or blocking, `total` the number of nodes, done and
/// quiet time unknown, no ValkeyCluster state, found, stall threshold 10m.
pub fn bare_cluster(name: &str, verdict: Verdict, nodes: Vec<NodeReport>) -> ClusterReport {
    ClusterReport {
        namespace: "prod".into(),
        name: name.into(),
        protocol: Protocol::P1,
        verdict,
        reason: String::new(),
        holders: Vec::new(),
        front: None,
        waiting: 0,
        blocking: 0,
        total: nodes.len(),
        done: None,
        quiet_for_seconds: None,
        per_node_seconds: None,
        eta_seconds: None,
        eta_basis: None,
        state: None,
        state_reason: None,
        nodes,
        stall_threshold_seconds: 600,
        cluster_found: true,
        unfinished_by_cluster: false,
        walk_by_primary: false,
        history: Default::default(),
    }
}

/// A healthy, rolled-out cluster-owned node on the old revision.
fn node(name: &str, shard: u32, index: u32, role: &str, state: NodeState) -> NodeReport {
    NodeReport {
        shard: Some(shard),
        index: Some(index),
        role: Some(role.into()),
        last_rollout_hash: Some(OLD.into()),
        pod: Some(format!("valkey-{name}-0")),
        facts: NodeFacts {
            cluster_owned: true,
            healthy: true,
            pod_ready: Some(true),
            workload_rolled_out: Some(true),
            template_roll_in_progress: Some(false),
            is_primary: role == "primary",
            ..NodeFacts::default()
        },
        ..bare_node(name, state)
    }
}

fn waiting(name: &str, shard: u32, index: u32, role: &str, queue: usize) -> NodeReport {
    let mut n = node(name, shard, index, role, NodeState::Waiting);
    n.queue_position = Some(queue);
    n.desired_revision = Some(NEW.into());
    n.waiting_for_seconds = Some(1200);
    n.facts.waiting_since = Some(ts("2026-11-29T09:56:11Z"));
    n.reason = format!("queue {queue}, behind cache-1-1");
    n.facts.asks = true;
    n
}

/// PLUGIN.md's sketch: cache-1-1 holds the permit and crash-loops for 14m;
/// four nodes wait behind it.
pub fn jammed() -> Report {
    let mut stuck = node("cache-1-1", 1, 1, "replica", NodeState::Stuck);
    stuck.permit = Some(NEW.into());
    stuck.ready = false;
    stuck.held_for_seconds = Some(840);
    stuck.granted_at = Some(ts("2026-11-29T10:02:11Z"));
    stuck.granted_at_source = GrantSource::Event;
    stuck.reason = "pod valkey-cache-1-1-0 CrashLoopBackOff (restarts 7)".into();
    let last = Termination {
        container: "server".into(),
        exit_code: 1,
        reason: Some("Error".into()),
        signal: None,
        finished_at: Some(ts("2026-11-29T10:14:40Z")),
    };
    stuck.evidence = vec![
        Evidence {
            kind: EvidenceKind::CrashLoopBackOff,
            message: "container server waiting: CrashLoopBackOff (restarts 7)".into(),
            last_termination: Some(last.clone()),
        },
        Evidence {
            kind: EvidenceKind::HeldOverThreshold,
            message: "held 14m > stall threshold 10m".into(),
            last_termination: None,
        },
    ];
    stuck.facts.holder = true;
    stuck.facts.healthy = false;
    stuck.facts.unhealthy_because = vec![
        "status.ready is false".into(),
        "pod valkey-cache-1-1-0 is not Ready".into(),
    ];
    stuck.facts.pod_ready = Some(false);
    stuck.facts.workload_rolled_out = Some(false);
    stuck.facts.template_roll_in_progress = Some(true);
    stuck.facts.unavailable_sources = vec![
        "managedFields: not in the snapshot (kubectl get -o yaml drops them without --show-managed-fields)".into(),
    ];
    stuck.facts.resource_version = Some("48213".into());
    stuck.facts.failing_container = Some(FailingContainer {
        name: "server".into(),
        restarts: 7,
        last: Some(last),
    });

    let mut rolled = node("cache-0-1", 0, 1, "replica", NodeState::Converged);
    rolled.last_rollout_hash = Some(NEW.into());
    rolled.reason = "rolled".into();

    let nodes = vec![
        rolled,
        waiting("cache-0-0", 0, 0, "primary", 1),
        stuck,
        waiting("cache-1-0", 1, 0, "primary", 2),
        waiting("cache-2-1", 2, 1, "replica", 3),
        waiting("cache-2-0", 2, 0, "primary", 4),
    ];
    Report {
        clusters: vec![ClusterReport {
            reason:
                "cache-1-1 holds the permit and its pod is CrashLoopBackOff (restarts 7) for 14m"
                    .into(),
            holders: vec!["cache-1-1".into()],
            front: Some("cache-0-0".into()),
            waiting: 4,
            done: Some(1),
            quiet_for_seconds: Some(840),
            state: Some("Reconciling".into()),
            state_reason: Some("UpdatingNodes".into()),
            walk_by_primary: true,
            ..bare_cluster("cache", Verdict::Jammed, nodes)
        }],
    }
}

/// A two-node cluster at rest.
pub fn converged() -> Report {
    let mut a = node("sessions-0-1", 0, 1, "replica", NodeState::Converged);
    let mut b = node("sessions-0-0", 0, 0, "primary", NodeState::Converged);
    a.reason = "rolled".into();
    b.reason = "rolled".into();
    Report {
        clusters: vec![ClusterReport {
            protocol: Protocol::P2,
            reason: "every node runs its revision; nothing to do".into(),
            done: Some(2),
            state: Some("Ready".into()),
            ..bare_cluster("sessions", Verdict::Converged, vec![a, b])
        }],
    }
}

/// The events of cache-1-1's roll.
pub fn stuck_timeline() -> Vec<TimelineEntry> {
    vec![
        TimelineEntry {
            time: Some(ts("2026-11-29T09:56:11Z")),
            reason: "WorkloadRollDeferred".into(),
            message: format!("desired workload template hash {NEW} awaits cluster roll permit"),
            regarding: "ValkeyNode/cache-1-1".into(),
        },
        TimelineEntry {
            time: Some(ts("2026-11-29T10:02:11Z")),
            reason: "WorkloadRollPermitted".into(),
            message: format!("Granted workload roll permit for cache-1-1 (hash {NEW})"),
            regarding: "ValkeyCluster/cache".into(),
        },
        TimelineEntry {
            time: Some(ts("2026-11-29T10:02:13Z")),
            reason: "WorkloadRollApplied".into(),
            message: format!("Applied pod template update (hash {NEW})"),
            regarding: "ValkeyNode/cache-1-1".into(),
        },
        TimelineEntry {
            time: Some(ts("2026-11-29T10:15:40Z")),
            reason: "BackOff".into(),
            message: "Back-off restarting failed container server in pod valkey-cache-1-1-0".into(),
            regarding: "Pod/valkey-cache-1-1-0".into(),
        },
    ]
}

/// Every one of `wants` is in `out`, and none of `unwanted`.
pub fn assert_says(what: &str, out: &str, wants: &[&str], unwanted: &[&str]) {
    for want in wants {
        assert!(out.contains(want), "{what}: {want:?} missing from:\n{out}");
    }
    for bad in unwanted {
        assert!(!out.contains(bad), "{what}: {bad:?} present in:\n{out}");
    }
}
