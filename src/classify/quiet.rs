//! Quiet time (docs/plugin.md, "Quiet for"): since the later of the newest sign
//! of progress and the oldest start among the causes that keep the roll
//! unfinished.

use super::events;
use super::grant_time::hand_grant_time;
use super::index::Index;
use super::judge::Judged;
use crate::snapshot::{ValkeyCluster, condition, keys};
use jiff::Timestamp;

/// The events that count as progress: the controller granting, applying
/// or advancing, deleting a superseded pod (PR #410), completing a
/// failover, meeting and replicating a rolled replica, and a grant by hand
/// recorded by the plugin. A failover initiated, failed or timed out is not
/// progress (it names the cause instead).
const PROGRESS_EVENTS: [&str; 9] = [
    keys::EVENT_PERMITTED,
    keys::EVENT_APPLIED,
    keys::EVENT_NODE_UPDATED,
    keys::EVENT_SUPERSEDED_DELETED,
    keys::EVENT_FAILOVER_COMPLETED,
    keys::EVENT_REPLICA_CREATED,
    keys::EVENT_CLUSTER_MEET_BATCH,
    keys::EVENT_MANUAL_GRANTED,
    keys::EVENT_MANUAL_FORCED,
];

/// The newest sign of progress, if any.
pub(crate) fn newest_progress(
    index: &Index<'_>,
    namespace: &str,
    cluster_name: &str,
    cluster: Option<&ValkeyCluster>,
    nodes: &[Judged<'_>],
) -> Option<Timestamp> {
    // An event both about the cluster and naming a node (or naming two
    // nodes) is met more than once here; only the newest time counts.
    let about_cluster = index
        .events_in(namespace)
        .iter()
        .copied()
        .filter(|e| events::is_about(e, namespace, "ValkeyCluster", cluster_name));
    let naming_nodes = nodes.iter().flat_map(|j| j.view.events_naming());
    let from_events = about_cluster
        .chain(naming_nodes)
        .filter(|e| PROGRESS_EVENTS.contains(&events::reason(e)))
        .filter_map(events::time);
    let from_nodes = nodes.iter().flat_map(|j| {
        let node_ready = j
            .view
            .node
            .condition(keys::COND_READY)
            .filter(|c| c.is_true())
            .and_then(|c| c.last_transition_time.as_ref())
            .map(|t| t.0);
        // A pod being deleted or created is the StatefulSet replacing it.
        let pod = j.view.pod.map(|p| &p.metadata);
        [
            node_ready,
            j.view.pod_ready_since(),
            hand_grant_time(&j.view),
            pod.and_then(|m| m.deletion_timestamp.as_ref()).map(|t| t.0),
            pod.and_then(|m| m.creation_timestamp.as_ref()).map(|t| t.0),
        ]
    });
    let from_cluster = cluster.into_iter().flat_map(|c| {
        [keys::COND_READY, keys::COND_PROGRESSING].map(|t| {
            condition(c.conditions(), t)
                .and_then(|c| c.last_transition_time.as_ref())
                .map(|t| t.0)
        })
    });
    from_events
        .chain(from_nodes.flatten())
        .chain(from_cluster.flatten())
        .max()
}

/// The oldest start among the causes that keep the roll unfinished: each
/// Waiting or Blocking node's wait start, and the ValkeyCluster's Ready
/// transition when it says not done for its current generation (a cluster
/// being created and not yet Ready: its creation). A cause whose start is
/// unknown started now. None: nothing keeps it unfinished.
pub(crate) fn oldest_start(
    cluster: Option<&ValkeyCluster>,
    cluster_not_done: bool,
    creating: bool,
    nodes: &[Judged<'_>],
    now: Timestamp,
) -> Option<Timestamp> {
    let node_starts = nodes
        .iter()
        .filter(|j| j.state.is_queued())
        .map(|j| j.waiting_since.unwrap_or(now));
    let cluster_start = cluster.filter(|_| cluster_not_done || creating).map(|c| {
        let created = c.metadata.creation_timestamp.as_ref().map(|t| t.0);
        condition(c.conditions(), keys::COND_READY)
            .filter(|r| r.is_for_generation(c.metadata.generation))
            .and_then(|r| r.last_transition_time.as_ref())
            .map(|t| t.0)
            .or(created.filter(|_| creating))
            .unwrap_or(now)
    });
    node_starts.chain(cluster_start).min()
}

/// The moment the roll went quiet: the later of the two.
pub(crate) fn quiet_since(progress: Option<Timestamp>, start: Timestamp) -> Timestamp {
    progress.map_or(start, |p| p.max(start))
}
