//! The events of a node's roll, and of a whole cluster's, oldest first.

use super::events;
use crate::report::TimelineEntry;
use crate::snapshot::{Snapshot, ValkeyNode};
use k8s_openapi::api::core::v1::Event;

/// The event belongs to this node's roll: it names the node, or is about
/// its pod or its workload.
fn belongs_to_node(e: &Event, namespace: &str, name: &str, node: Option<&ValkeyNode>) -> bool {
    if events::names_node(e, namespace, name) {
        return true;
    }
    let pod = node
        .and_then(|n| n.status.as_ref())
        .and_then(|s| s.pod_name.as_deref());
    let workload = format!("valkey-{name}");
    pod.is_some_and(|p| events::is_about(e, namespace, "Pod", p))
        || events::is_about(e, namespace, "StatefulSet", &workload)
        || events::is_about(e, namespace, "Deployment", &workload)
}

fn entries<'a>(found: impl Iterator<Item = &'a Event>) -> Vec<TimelineEntry> {
    let mut out: Vec<(Option<String>, TimelineEntry)> = found
        .map(|e| {
            (
                e.metadata.name.clone(),
                TimelineEntry {
                    time: events::time(e),
                    reason: events::reason(e).to_string(),
                    message: events::note(e).to_string(),
                    regarding: events::regarding(e),
                },
            )
        })
        .collect();
    // Events without a time sort first; equal times keep a stable order by name.
    out.sort_by(|(an, a), (bn, b)| a.time.cmp(&b.time).then_with(|| an.cmp(bn)));
    out.into_iter().map(|(_, e)| e).collect()
}

/// The events of one node's roll, oldest first: those naming the node (as
/// regarding or related object, or in the note as a whole word), and those
/// about its pod (`status.podName`) or its workload (`valkey-<node>`).
pub fn timeline(snapshot: &Snapshot, namespace: &str, node: &str) -> Vec<TimelineEntry> {
    let found = snapshot
        .nodes
        .iter()
        .find(|n| n.namespace() == namespace && n.name() == node);
    entries(
        snapshot
            .events
            .iter()
            .filter(|e| belongs_to_node(e, namespace, node, found)),
    )
}

/// The events of a cluster's roll, oldest first: those about the
/// ValkeyCluster, and every event of its nodes' timelines.
pub fn cluster_timeline(snapshot: &Snapshot, namespace: &str, cluster: &str) -> Vec<TimelineEntry> {
    let nodes: Vec<&ValkeyNode> = snapshot.nodes_of(namespace, cluster).collect();
    entries(snapshot.events.iter().filter(|e| {
        events::is_about(e, namespace, "ValkeyCluster", cluster)
            || nodes
                .iter()
                .any(|n| belongs_to_node(e, namespace, n.name(), Some(n)))
    }))
}
