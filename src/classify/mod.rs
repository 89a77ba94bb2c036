//! The pure classifier: (Snapshot, now, stall threshold) -> Report.
//!
//! No I/O, no printing, the clock passed in. A newcomer looking for "why is
//! this node Stuck" reads, in order: `node` (the facts of one node: asks,
//! holder, healthy, rolled out), `evidence` (failure evidence),
//! `grant_time` (when a permit started), `judge` (the node state, in
//! docs/plugin.md's decision order), `walk` (walk order and primaries),
//! `quiet` and `verdict` (the cluster). Durations are never negative: a
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

mod builder;
mod clock;
mod deferred;
mod events;
mod evidence;
mod failover;
mod grant_time;
mod index;
mod judge;
// Reached by path from steer::plan's tests (PodFacts, the predicate).
pub(crate) mod node;
mod quiet;
mod risk;
mod role;
mod roll;
mod scale;
mod servers;
mod silence;
mod text;
mod timeline;
mod verdict;
mod walk;

// Its helpers also build the scenarios whose sentences render's tests read.
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use events::time as event_time;
pub(crate) use node::NodePod;
pub(crate) use timeline::{NodeTimelines, cluster_timeline, timeline};

use crate::report::{
    Ahead, Behind, ClusterReport, Failover, NodeFacts, NodeReason, NodeReport, NodeState, Protocol,
    Report, RollStep, Verdict,
};
use crate::snapshot::{Snapshot, ValkeyCluster};
use clock::Clock;
use clock::{secs, since};
use index::Index;
use jiff::{SignedDuration, Timestamp};
use judge::{ClusterSide, Judged, StuckBy};
use node::NodeObjects;
use std::collections::BTreeMap;
use std::time::Duration;

/// The pod of ValkeyNode `namespace/node` (None: no such node).
pub(crate) fn node_pod(snapshot: &Snapshot, namespace: &str, node: &str) -> Option<NodePod> {
    let index = Index::new(snapshot);
    let n = snapshot
        .nodes
        .iter()
        .find(|n| n.namespace() == namespace && n.name() == node)?;
    Some(NodeObjects::new(&index, n).node_pod())
}

/// Judges every ValkeyCluster in the snapshot (and every cluster that a
/// node's `valkey.io/cluster` label names), sorted by namespace and name,
/// nodes in walk order. Each cluster's `history` is left empty: only
/// `classify_with_history` builds it.
pub fn classify(snapshot: &Snapshot, now: Timestamp, threshold: Duration) -> Report {
    judge_all(snapshot, now, threshold, Protocol::Unknown, false)
}

/// [`classify`], with each cluster's roll history (`history`): a row of
/// times per node, which nothing else shows.
pub(crate) fn classify_with_history(
    snapshot: &Snapshot,
    now: Timestamp,
    threshold: Duration,
) -> Report {
    judge_all(snapshot, now, threshold, Protocol::Unknown, true)
}

/// [`classify`], except that a cluster whose nodes show no protocol is
/// judged by `assumed`'s rules (and reports it): the `--protocol` a person
/// gave a steering command. Such a cluster is otherwise read with P1's
/// rules; P2's name other holders and another front (a node whose new spec
/// is not observed yet is a P2 holder, not a Blocking node). A cluster that
/// shows a protocol is always judged by its own; `Unknown` assumes nothing.
pub(crate) fn classify_with_protocol(
    snapshot: &Snapshot,
    now: Timestamp,
    threshold: Duration,
    assumed: Protocol,
) -> Report {
    judge_all(snapshot, now, threshold, assumed, false)
}

fn judge_all(
    snapshot: &Snapshot,
    now: Timestamp,
    threshold: Duration,
    assumed: Protocol,
    with_history: bool,
) -> Report {
    let threshold = SignedDuration::try_from(threshold).unwrap_or(SignedDuration::MAX);
    let asked = Asked {
        assumed,
        with_history,
    };
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
            .map(|((ns, name), c)| classify_cluster(&index, ns, name, c, asked, now, threshold))
            .collect(),
    }
}

/// What the caller asks of a cluster's judgement beyond the snapshot.
#[derive(Clone, Copy)]
struct Asked {
    /// The protocol to judge by when the nodes show none.
    assumed: Protocol,
    /// Build the roll history (only `history` shows it).
    with_history: bool,
}

fn classify_cluster(
    index: &Index<'_>,
    namespace: &str,
    name: &str,
    cluster: Option<&ValkeyCluster>,
    asked: Asked,
    now: Timestamp,
    threshold: SignedDuration,
) -> ClusterReport {
    let clock = &Clock::new(now);
    let nodes = index.nodes_of(namespace, name);
    let protocol = match verdict::protocol(nodes) {
        Protocol::Unknown => asked.assumed,
        shown => shown,
    };
    let side = ClusterSide {
        cluster,
        image: cluster.and_then(|c| c.spec.image.as_deref()),
        spec_edited_at: cluster.and_then(ValkeyCluster::spec_edited_at),
    };
    let views: Vec<NodeObjects<'_>> = nodes.iter().map(|n| NodeObjects::new(index, n)).collect();
    let mut roles = judge_roles(
        index, namespace, name, cluster, &views, protocol, side, clock,
    );
    let cluster_events = cluster_events(index, namespace, name);
    // What the servers say, laid over the API's roles (docs/servers.md).
    let shards: Vec<Option<u32>> = nodes.iter().map(|n| walk::indices(n, name).0).collect();
    let servers = servers::Servers::read(
        index.readings_in(namespace),
        &views,
        &shards,
        &cluster_events,
        &mut roles,
    );
    let places = walk::place(nodes, name, &roles.nodes);
    let status_role_live = roles.status_live;
    // Judged first, ordered after: the walk order depends on whether any
    // node asks, holds or is behind.
    let mut all: Vec<Judged<'_>> = views
        .iter()
        .zip(&places)
        .zip(roles.nodes)
        .map(|((view, place), role)| {
            let mut j = judge::judge(index, *view, *place, protocol, side, clock, threshold);
            j.role = role;
            j
        })
        .collect();
    builder::presume(&mut all, protocol, clock);
    let mut by_place: Vec<Option<Judged<'_>>> = all.into_iter().map(Some).collect();
    let rolling = by_place
        .iter()
        .flatten()
        .any(|j| j.cluster_owned && (j.asks || j.holder || j.behind));
    // At its size from the start, and the emptied list dropped at once:
    // at 10,000 nodes a list grown by doubling held 16,384 judged nodes.
    let order = walk::order(&places, rolling);
    let mut judged: Vec<Judged<'_>> = Vec::with_capacity(order.len());
    judged.extend(order.into_iter().filter_map(|i| by_place[i].take()));
    drop(by_place);

    let holders: Vec<&Judged<'_>> = judged.iter().filter(|j| j.holder).collect();
    let deferred = deferred::deferred(cluster, &cluster_events, &judged);
    let is_queue = |j: &&Judged<'_>| j.state.is_queued();
    // A primary held back is the front the operator names.
    let held_back = deferred
        .as_ref()
        .and_then(|d| d.primary.as_deref())
        .and_then(|p| judged.iter().filter(is_queue).find(|j| j.name() == p));
    let front = held_back.or_else(|| judged.iter().find(is_queue));
    // The operator's own word first; else what the servers say of the front.
    let deferred = deferred.or_else(|| {
        servers
            .as_ref()
            .and_then(|s| s.deferred(front, holders.len(), &judged, now))
    });
    let waiting = judged
        .iter()
        .filter(|j| j.state == NodeState::Waiting)
        .count();
    let blocking = judged
        .iter()
        .filter(|j| j.state == NodeState::Blocking)
        .count();
    let not_done = verdict::cluster_not_done(cluster);
    let ready_for_generation = cluster.is_some_and(verdict::ready_for_generation);
    let creating = scale::creating(cluster, ready_for_generation, &judged);
    let unfinished = front.is_some() || not_done.is_some() || creating.is_some();

    let quiet_since = unfinished.then(|| {
        let progress = quiet::newest_progress(index, namespace, name, cluster, &judged);
        let start = quiet::oldest_start(
            cluster,
            not_done.is_some(),
            creating.is_some(),
            &judged,
            now,
        )
        .unwrap_or(now);
        quiet::quiet_since(progress, start)
    });
    let quiet = quiet_since.map(|t| since(now, t));
    let total = judged.iter().filter(|j| j.cluster_owned).count();
    let verdict = verdict::verdict(&holders, front, quiet_since, clock, threshold);
    // A primary at the front while the controller keeps trying to fail it
    // over: the sentence says so, how often, and the last outcome.
    let failover = front.filter(|f| f.place.is_primary).and_then(|f| {
        let shard: Vec<&Judged<'_>> = judged
            .iter()
            .filter(|j| j.place.shard == f.place.shard)
            .collect();
        failover::attempts(index, namespace, f, &shard).map(|a| Failover {
            primary: f.name().to_string(),
            initiated: a.initiated,
            last: a.last.to_string(),
            last_ago: a.last_at.map(|t| secs(since(now, t))),
        })
    });
    let silence = silence::silence(&judged, clock);
    let reason = verdict::reason(
        verdict::Said {
            verdict,
            holders: &holders,
            front,
            waiting,
            total,
            not_done,
            creating,
            deferred: deferred.clone(),
            quiet,
            failover,
            protocol,
            silence: silence.as_ref(),
            servers_read: servers.is_some(),
        },
        threshold,
        now,
    );
    // The current roll's start, told once: progress, the estimate and the
    // history all count from it.
    let started = roll::start(cluster, protocol, &judged);
    let done = roll::done(started, unfinished, &judged);
    // An estimate only while the roll moves, or waits with nothing broken.
    let wants_estimate = matches!(verdict, Verdict::Rolling | Verdict::Waiting)
        || (verdict == Verdict::Stalled && blocking == 0);
    // Nobody drives a roll whose operator is silent: no estimate then.
    let wants_estimate = wants_estimate && silence.is_none();
    let estimate = wants_estimate.then(|| roll::estimate(started, &judged, now));

    let mut queue = 0;
    let node_reports = judged
        .iter()
        .map(|j| {
            let position = (j.state == NodeState::Waiting).then(|| {
                queue += 1;
                queue
            });
            let server = servers.as_ref().and_then(|s| s.node_server(j.name()));
            let mut report = node_report(j, position, &holders, front, side.image, now, threshold);
            report.server = server;
            report.facts.server_unread = servers
                .as_ref()
                .and_then(|s| s.node_note(j.name()))
                .map(Box::new);
            report
        })
        .collect();

    let status = cluster.and_then(|c| c.status.as_ref());
    ClusterReport {
        context: None,
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
        unplanned: servers
            .as_ref()
            .map(|s| s.unplanned(&judged, roles.failover.as_ref(), front))
            .unwrap_or_default(),
        failover: roles.failover,
        operator: silence,
        risks: {
            let mut risks = risk::risks(&judged, now);
            if let Some(s) = &servers {
                risks.extend(s.risks(&judged, now));
            }
            risks
        },
        deferred,
        servers: servers.map(|s| s.read).or_else(|| {
            // Asked for, none read (its Secret, TLS without a CA): the
            // verdict is the API's and says so.
            index
                .servers_not_read(namespace, name)
                .then_some(crate::report::ServersRead {
                    read: 0,
                    unread: nodes.len(),
                    observed_at: None,
                })
        }),
        pending_scale: scale::pending(cluster, &judged),
        status_role_live,
        state: status.and_then(|s| s.state.clone()),
        state_reason: status.and_then(|s| s.reason.clone()),
        nodes: node_reports,
        stall_threshold_seconds: secs(threshold),
        cluster_found: cluster.is_some(),
        unfinished_by_cluster: unfinished && front.is_none(),
        walk_by_primary: rolling,
        next_change: clock.next_change(),
        history: if asked.with_history {
            roll::history(index, namespace, name, protocol, started, &judged)
        } else {
            crate::report::RollHistory::default()
        },
    }
}

/// The events about the ValkeyCluster `namespace/name`.
fn cluster_events<'a>(
    index: &Index<'a>,
    namespace: &str,
    name: &str,
) -> Vec<&'a k8s_openapi::api::core::v1::Event> {
    index
        .events_in(namespace)
        .iter()
        .copied()
        .filter(|e| events::is_about(e, namespace, "ValkeyCluster", name))
        .collect()
}

/// The judged role of every node (in `views`' order), and the failover
/// under way ([`role`]).
#[allow(clippy::too_many_arguments)]
fn judge_roles(
    index: &Index<'_>,
    namespace: &str,
    name: &str,
    cluster: Option<&ValkeyCluster>,
    views: &[NodeObjects<'_>],
    protocol: Protocol,
    side: ClusterSide<'_>,
    clock: &Clock,
) -> role::Roles {
    let members: Vec<role::Member<'_, '_>> = views
        .iter()
        .map(|v| {
            let (shard, index) = walk::indices(v.node, name);
            role::Member {
                view: v,
                shard,
                index,
            }
        })
        .collect();
    let cluster_events = cluster_events(index, namespace, name);
    let replicas = match cluster.and_then(|c| c.spec.replicas) {
        Some(r) => r > 0,
        None => members.iter().any(|m| m.index.is_some_and(|i| i > 0)),
    };
    // The walk rolls shards in order: the lowest with a node that asks, is
    // behind its cluster's spec or was just advanced is the one being
    // rolled.
    let rolling_shard = members
        .iter()
        .filter(|m| m.view.cluster_owned())
        .filter(|m| {
            m.view.asks(protocol)
                || !m.view.generation_observed()
                || side
                    .cluster
                    .is_some_and(|c| !c.spec_differs(m.view.node).is_empty())
        })
        .filter_map(|m| m.shard)
        .min();
    role::judge(
        &role::RoleInput::new(
            &members,
            &cluster_events,
            replicas,
            rolling_shard,
            cluster
                .map(|c| role::ClusterMarks::read(c, clock))
                .unwrap_or_default(),
        ),
        clock,
    )
}

/// The node's REASON: short and specific.
fn node_reason(
    j: &Judged<'_>,
    position: Option<usize>,
    holders: &[&Judged<'_>],
    front: Option<&Judged<'_>>,
    now: Timestamp,
    threshold: SignedDuration,
) -> NodeReason {
    let held = || secs(j.hold.unwrap_or_default());
    match j.state {
        NodeState::Standalone => NodeReason::Standalone,
        NodeState::StalePermit => NodeReason::StalePermit {
            permit: j.permit.unwrap_or("").to_string(),
            asks_for: j.asked_for.unwrap_or("").to_string(),
        },
        // Stuck by evidence always has a first piece; the cluster's reason
        // (verdict::reason) reads it the same way.
        NodeState::Stuck => match (j.stuck_by, j.findings.first()) {
            (Some(StuckBy::Evidence), Some(e)) => NodeReason::Failing(e.finding.clone()),
            (Some(StuckBy::NotReleased), _) => NodeReason::NotReleased {
                rolled_for: j.complete_since.map(|t| secs(since(now, t))),
                held: held(),
            },
            _ => NodeReason::HeldOverThreshold {
                held: held(),
                threshold: secs(threshold),
            },
        },
        NodeState::Settling => NodeReason::Settling,
        NodeState::Rolling => {
            let v = &j.view;
            NodeReason::Rolling(if j.asks {
                RollStep::PermitNotApplied
            } else if !v.generation_observed() {
                RollStep::SpecNotObserved
            } else if v.template_roll_in_progress() == Some(true) {
                RollStep::WorkloadRolling
            } else if v.pod_ready() != Some(true) {
                RollStep::PodNotReady { pod: v.pod_name() }
            } else {
                RollStep::Rolling
            })
        }
        NodeState::Waiting => {
            let ahead = if !holders.is_empty() {
                Ahead::Holders(holders.iter().map(|h| h.name().to_string()).collect())
            } else {
                match front {
                    Some(f) if f.name() != j.name() => Ahead::Front {
                        node: f.name().to_string(),
                        blocking: f.state == NodeState::Blocking,
                    },
                    _ => Ahead::Nothing,
                }
            };
            NodeReason::Waiting {
                queue: position.unwrap_or(0),
                ahead,
            }
        }
        NodeState::Blocking => NodeReason::Blocking(j.sickness()),
        NodeState::Converged => NodeReason::Converged,
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
    let mut evidence = j.findings.clone();
    evidence.extend(j.hold_evidence.iter().cloned());
    let waiting_for = (j.state == NodeState::Waiting)
        .then_some(j.waiting_since)
        .flatten()
        .map(|t| secs(since(now, t)));
    NodeReport {
        name: j.name().to_string(),
        shard: j.place.shard,
        index: j.place.index,
        role: j.role.role,
        role_source: j.role.source,
        role_note: j.role.note.clone(),
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
        server: None,
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
            pod_on_update_revision: v.pod_on_update_revision(),
            template_roll_in_progress: v.template_roll_in_progress(),
            waiting_since: j.waiting_since,
            unavailable_sources: j.grant.unavailable.clone(),
            resource_version: v.node.metadata.resource_version.clone(),
            cluster_by_owner: v.node.in_cluster_by_owner(),
            pod_superseded_not_ready: v.pod_superseded_not_ready(),
            server_unread: None,
            failing_container: v
                .pod
                .filter(|_| j.findings.iter().any(|e| e.kind.is_failure()))
                .and_then(evidence::failing_container)
                .map(Box::new),
            behind: j.behind.then(|| {
                Box::new(Behind {
                    image: v.image().unwrap_or_default().to_string(),
                    cluster_image: cluster_image.unwrap_or_default().to_string(),
                    fields: j.behind_fields.clone(),
                })
            }),
        },
    }
}
