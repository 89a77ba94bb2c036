//! The pure classifier: (Snapshot, now, stall threshold) -> Report.
//!
//! No I/O, no printing, the clock passed in. A newcomer looking for "why is
//! this node Stuck" reads, in order: [`node`] (the facts of one node: asks,
//! holder, healthy, rolled out), [`evidence`] (failure evidence),
//! [`grant_time`] (when a permit started), [`judge`] (the node state, in
//! PLUGIN.md's decision order), [`walk`] (walk order and primaries),
//! [`quiet`] and [`verdict`] (the cluster). Durations are never negative: a
//! timestamp in the future counts as now. "Over T" is strictly greater.
//!
//! Choices where the contract is silent:
//! - A ValkeyNode belongs to the cluster its `valkey.io/cluster` label
//!   names, else the ValkeyCluster its controller owner reference names (a
//!   hand-edit can drop the label). A name that no ValkeyCluster in view
//!   has gives a report with `cluster_found = false`, judged by its nodes
//!   alone.
//! - `total` counts the cluster-owned nodes; Standalone nodes are shown but
//!   are not part of the roll, hold no permit and are never a front.
//! - A cluster whose protocol is `unknown` is read with P1's rules; nothing
//!   is staged there, so no node asks or holds.
//! - Grant time, hold time and the grant-time sources are computed for
//!   holders only; other nodes show `grantedAtSource: unknown`.
//! - Failure evidence is listed on every node that has it (a Blocking node
//!   shows its CrashLoopBackOff), but only decides holders and the front.

mod events;
mod evidence;
mod failover;
mod grant_time;
mod index;
mod judge;
mod node;
mod quiet;
mod roll;
mod text;
mod timeline;
mod verdict;
mod walk;

#[cfg(test)]
mod tests;

pub use evidence::RESTART_LOOP_MIN;
pub use node::{NodePod, PodFacts};
pub use timeline::{cluster_timeline, timeline};

use crate::report::{
    Behind, ClusterReport, NodeFacts, NodeReport, NodeState, Protocol, Report, Verdict,
};
use crate::snapshot::{Snapshot, ValkeyCluster};
use crate::units::short_hash;
use index::Index;
use jiff::{SignedDuration, Timestamp};
use judge::{ClusterSide, Judged, StuckBy};
use node::NodeView;
use std::collections::BTreeMap;
use std::time::Duration;
use text::{human, secs, since};

/// The pod of ValkeyNode `namespace/node` (None: no such node).
pub fn node_pod(snapshot: &Snapshot, namespace: &str, node: &str) -> Option<NodePod> {
    let index = Index::new(snapshot);
    let n = snapshot
        .nodes
        .iter()
        .find(|n| n.namespace() == namespace && n.name() == node)?;
    Some(NodeView::new(&index, n).node_pod())
}

/// Judges every ValkeyCluster in the snapshot (and every cluster that a
/// node's `valkey.io/cluster` label names), sorted by namespace and name,
/// nodes in walk order.
pub fn classify(snapshot: &Snapshot, now: Timestamp, threshold: Duration) -> Report {
    classify_with_protocol(snapshot, now, threshold, Protocol::Unknown)
}

/// [`classify`], except that a cluster whose nodes show no protocol is
/// judged by `assumed`'s rules (and reports it): the `--protocol` a person
/// gave a steering command. Such a cluster is otherwise read with P1's
/// rules; P2's name other holders and another front (a node whose new spec
/// is not observed yet is a P2 holder, not a Blocking node). A cluster that
/// shows a protocol is always judged by its own; `Unknown` assumes nothing.
pub fn classify_with_protocol(
    snapshot: &Snapshot,
    now: Timestamp,
    threshold: Duration,
    assumed: Protocol,
) -> Report {
    let threshold = SignedDuration::try_from(threshold).unwrap_or(SignedDuration::MAX);
    let mut clusters: BTreeMap<(&str, &str), Option<&ValkeyCluster>> = BTreeMap::new();
    for c in &snapshot.clusters {
        clusters.insert((c.namespace(), c.name()), Some(c));
    }
    for n in &snapshot.nodes {
        if let Some(cluster) = n.cluster_name() {
            clusters.entry((n.namespace(), cluster)).or_insert(None);
        }
    }
    // Built once: a look-up per node instead of a scan of every list.
    let index = Index::new(snapshot);
    Report {
        clusters: clusters
            .into_iter()
            .map(|((ns, name), c)| classify_cluster(&index, ns, name, c, assumed, now, threshold))
            .collect(),
    }
}

fn classify_cluster(
    index: &Index<'_>,
    namespace: &str,
    name: &str,
    cluster: Option<&ValkeyCluster>,
    assumed: Protocol,
    now: Timestamp,
    threshold: SignedDuration,
) -> ClusterReport {
    let nodes = index.nodes_of(namespace, name);
    let protocol = match verdict::protocol(nodes) {
        Protocol::Unknown => assumed,
        shown => shown,
    };
    let places = walk::place(nodes, name);
    let side = ClusterSide {
        image: cluster.and_then(|c| c.spec.image.as_deref()),
        spec_edited_at: cluster.and_then(roll::spec_edited_at),
    };
    // Judged first, ordered after: the walk order depends on whether any
    // node asks, holds or is behind.
    let mut by_place: Vec<Option<Judged<'_>>> = nodes
        .iter()
        .zip(&places)
        .map(|(n, place)| {
            let view = NodeView::new(index, n);
            let j = judge::judge(index, view, *place, protocol, side, now, threshold);
            Some(j)
        })
        .collect();
    let rolling = by_place
        .iter()
        .flatten()
        .any(|j| j.cluster_owned && (j.asks || j.holder || j.behind));
    let judged: Vec<Judged<'_>> = walk::order(&places, rolling)
        .into_iter()
        .filter_map(|i| by_place[i].take())
        .collect();

    let holders: Vec<&Judged<'_>> = judged.iter().filter(|j| j.holder).collect();
    let is_queue = |j: &&Judged<'_>| matches!(j.state, NodeState::Waiting | NodeState::Blocking);
    let front = judged.iter().find(is_queue);
    let waiting = judged
        .iter()
        .filter(|j| j.state == NodeState::Waiting)
        .count();
    let blocking = judged
        .iter()
        .filter(|j| j.state == NodeState::Blocking)
        .count();
    let not_done = verdict::cluster_not_done(cluster);
    let unfinished = front.is_some() || not_done.is_some();

    let quiet = if unfinished {
        let progress = quiet::newest_progress(index, namespace, name, cluster, &judged);
        let start = quiet::oldest_start(cluster, not_done.is_some(), &judged, now).unwrap_or(now);
        Some(since(now, quiet::quiet_since(progress, start)))
    } else {
        None
    };
    let total = judged.iter().filter(|j| j.cluster_owned).count();
    let verdict = verdict::verdict(&holders, front, unfinished, quiet, threshold);
    // A primary at the front while the controller keeps trying to fail it
    // over: the sentence says so, how often, and the last outcome.
    let failover = front
        .filter(|f| f.place.is_primary)
        .and_then(|f| {
            let shard: Vec<&Judged<'_>> = judged
                .iter()
                .filter(|j| j.place.shard == f.place.shard)
                .collect();
            failover::attempts(index, namespace, f, &shard).map(|a| {
                let ago = a
                    .last_at
                    .map(|t| format!(" {} ago", human(since(now, t))))
                    .unwrap_or_default();
                format!(
                    "the controller is trying to fail over the primary {} (initiated {} {}, last {}{ago})",
                    f.name(),
                    a.initiated,
                    if a.initiated == 1 { "time" } else { "times" },
                    a.last
                )
            })
        });
    let reason = verdict::reason(
        verdict,
        &holders,
        front,
        waiting,
        total,
        not_done.as_deref(),
        quiet,
        threshold,
        now,
        failover.as_deref(),
        protocol,
    );
    // The current roll's start, told once: progress, the estimate and the
    // history all count from it.
    let started = roll::start(cluster, protocol, &judged);
    let done = roll::done(started, unfinished, &judged);
    // An estimate only while the roll moves, or waits with nothing broken.
    let wants_estimate = matches!(verdict, Verdict::Rolling | Verdict::Waiting)
        || (verdict == Verdict::Stalled && blocking == 0);
    let estimate = wants_estimate.then(|| roll::estimate(started, &judged, now));

    let mut queue = 0;
    let node_reports = judged
        .iter()
        .map(|j| {
            let position = (j.state == NodeState::Waiting).then(|| {
                queue += 1;
                queue
            });
            node_report(j, position, &holders, front, side.image, now, threshold)
        })
        .collect();

    let status = cluster.and_then(|c| c.status.as_ref());
    ClusterReport {
        namespace: namespace.to_string(),
        name: name.to_string(),
        protocol,
        verdict,
        reason,
        holders: holders.iter().map(|h| h.name().to_string()).collect(),
        front: front.map(|f| f.name().to_string()),
        waiting,
        blocking,
        total,
        done,
        quiet_for_seconds: quiet.map(secs),
        per_node_seconds: estimate.and_then(|e| e.per_node).map(secs),
        eta_seconds: estimate.and_then(|e| e.eta).map(secs),
        eta_basis: estimate.map(|e| e.basis),
        state: status.and_then(|s| s.state.clone()),
        state_reason: status.and_then(|s| s.reason.clone()),
        nodes: node_reports,
        stall_threshold_seconds: secs(threshold),
        cluster_found: cluster.is_some(),
        unfinished_by_cluster: unfinished && front.is_none(),
        walk_by_primary: rolling,
        history: roll::history(index, namespace, name, protocol, started, &judged),
    }
}

/// The node's REASON: short and specific.
fn node_reason(
    j: &Judged<'_>,
    position: Option<usize>,
    holders: &[&Judged<'_>],
    front: Option<&Judged<'_>>,
    now: Timestamp,
    threshold: SignedDuration,
) -> String {
    match j.state {
        NodeState::Standalone => "standalone: permits do not apply".to_string(),
        NodeState::StalePermit => format!(
            "stale permit {}: asks for {}",
            short_hash(j.permit.unwrap_or("")),
            short_hash(j.asked_for.unwrap_or(""))
        ),
        NodeState::Stuck => match j.stuck_by {
            Some(StuckBy::Evidence) => j
                .findings
                .first()
                .map(|f| f.short.clone())
                .unwrap_or_default(),
            Some(StuckBy::NotReleased) => match j.complete_since {
                Some(t) => format!("rolled {} ago, permit not released", human(since(now, t))),
                None => format!(
                    "rolled, permit not released (held {})",
                    human(j.hold.unwrap_or_default())
                ),
            },
            _ => format!(
                "held {} > {}, not rolled",
                human(j.hold.unwrap_or_default()),
                human(threshold)
            ),
        },
        NodeState::Settling => "rolled; the controller has yet to release the permit".to_string(),
        NodeState::Rolling => {
            let v = &j.view;
            if j.asks {
                "permit granted; template not applied yet".to_string()
            } else if !v.generation_observed() {
                "new spec not yet observed".to_string()
            } else if v.template_roll_in_progress() == Some(true) {
                "workload rolling".to_string()
            } else if v.pod_ready() != Some(true) {
                match v.pod_name() {
                    Some(p) => format!("pod {p} not Ready yet"),
                    None => "pod not Ready yet".to_string(),
                }
            } else {
                "rolling".to_string()
            }
        }
        NodeState::Waiting => {
            let q = position.unwrap_or(0);
            let ahead: Vec<&str> = holders.iter().map(|h| h.name()).collect();
            if !ahead.is_empty() {
                format!("queue {q}, behind {}", ahead.join(", "))
            } else {
                match front {
                    Some(f) if f.name() != j.name() => {
                        let blocking = if f.state == NodeState::Blocking {
                            " (blocking)"
                        } else {
                            ""
                        };
                        format!("queue {q}, behind {}{blocking}", f.name())
                    }
                    _ => format!("queue {q}, next"),
                }
            }
        }
        NodeState::Blocking => j.why_unhealthy(),
        NodeState::Converged => "rolled".to_string(),
    }
}

fn node_report(
    j: &Judged<'_>,
    position: Option<usize>,
    holders: &[&Judged<'_>],
    front: Option<&Judged<'_>>,
    cluster_image: Option<&str>,
    now: Timestamp,
    threshold: SignedDuration,
) -> NodeReport {
    let v = &j.view;
    let mut evidence: Vec<_> = j.findings.iter().map(|f| f.evidence.clone()).collect();
    evidence.extend(j.hold_evidence.iter().cloned());
    let waiting_for = (j.state == NodeState::Waiting)
        .then_some(j.waiting_since)
        .flatten()
        .map(|t| secs(since(now, t)));
    NodeReport {
        name: j.name().to_string(),
        shard: j.place.shard,
        index: j.place.index,
        role: v.role().map(str::to_string),
        state: j.state,
        queue_position: position,
        permit: j.permit.map(str::to_string),
        desired_revision: j.asked_for.map(str::to_string),
        last_rollout_hash: v.last_rollout_hash().map(str::to_string),
        ready: v.node_ready(),
        pod: v.pod_name(),
        held_for_seconds: j.hold.map(secs),
        granted_at: j.grant.at,
        granted_at_source: j.grant.source,
        granted_by: j.grant.by.clone(),
        grant_reason: j.grant.reason.clone(),
        waiting_for_seconds: waiting_for,
        reason: node_reason(j, position, holders, front, now, threshold),
        evidence,
        facts: NodeFacts {
            cluster_owned: j.cluster_owned,
            asks: j.asks,
            holder: j.holder,
            healthy: j.healthy(),
            unhealthy_because: j.unhealthy_because.clone(),
            is_primary: j.place.is_primary,
            complete: j.complete,
            complete_since: j.complete_since,
            pod_ready: v.pod_ready(),
            workload_rolled_out: v.rolled_out(),
            template_roll_in_progress: v.template_roll_in_progress(),
            waiting_since: j.waiting_since,
            unavailable_sources: j.grant.unavailable.clone(),
            resource_version: v.node.metadata.resource_version.clone(),
            cluster_by_owner: v.node.in_cluster_by_owner(),
            pod_superseded_not_ready: v.pod_superseded_not_ready(),
            failing_container: v
                .pod
                .filter(|_| j.findings.iter().any(|f| f.evidence.kind.is_failure()))
                .and_then(evidence::failing_container),
            behind: j.behind.then(|| Behind {
                image: v.image().unwrap_or_default().to_string(),
                cluster_image: cluster_image.unwrap_or_default().to_string(),
            }),
        },
    }
}
