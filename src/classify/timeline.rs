//! The events of a node's roll, and of a whole cluster's, oldest first.

use super::events;
use super::failover;
use super::index::Index;
use super::node::NodeObjects;
use super::role;
use crate::report::TimelineEntry;
use crate::snapshot::{Snapshot, ValkeyNode};
use k8s_openapi::api::core::v1::Event;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The event belongs to this node's roll: it names the node, or is about
/// its pod or its workload.
fn belongs_to_node(e: &Event, namespace: &str, name: &str, node: Option<&ValkeyNode>) -> bool {
    if events::names_node(e, namespace, name) {
        return true;
    }
    // Failover notes name pod IPs, not nodes.
    let ip = node
        .and_then(|n| n.status.as_ref())
        .and_then(|s| s.pod_ip.as_deref());
    if failover::is_failover(e)
        && events::in_namespace(e, namespace)
        && failover::names_pod_ip(e, ip)
    {
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

/// Each node's address in the namespace: `status.podIP`, else its pod's.
fn addresses_of<'a>(
    index: &'a Index<'a>,
    snapshot: &'a Snapshot,
    namespace: &str,
) -> BTreeMap<&'a str, &'a str> {
    snapshot
        .nodes
        .iter()
        .filter(|n| n.namespace() == namespace)
        .filter_map(|n| Some((NodeObjects::new(index, n).pod_ip()?, n.name())))
        .collect()
}

/// How many times an events.k8s.io event happened, when its series says
/// more than once: the series keeps the first occurrence's note, which
/// may tell of another object than the later ones (client-go's events
/// library keys a series by reason and objects, not by note). The old
/// core/v1 `count` counts occurrences of one same message, and is left
/// out.
fn count(e: &Event) -> Option<i32> {
    e.series.as_ref().and_then(|s| s.count).filter(|c| *c > 1)
}

fn entries<'a>(
    found: impl Iterator<Item = &'a Event>,
    nodes_at: &BTreeMap<&str, &str>,
) -> Vec<TimelineEntry> {
    let mut out: Vec<(Option<String>, TimelineEntry)> = found
        .map(|e| {
            let note = events::note(e);
            let addresses = role::addresses(note)
                .into_iter()
                .filter_map(|a| Some((a.clone(), nodes_at.get(a.as_str())?.to_string())))
                .collect();
            (
                e.metadata.name.clone(),
                TimelineEntry {
                    time: events::time(e),
                    reason: events::reason(e).to_string(),
                    message: note.to_string(),
                    regarding: events::regarding(e),
                    count: count(e),
                    addresses,
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
pub(crate) fn timeline(snapshot: &Snapshot, namespace: &str, node: &str) -> Vec<TimelineEntry> {
    let found = snapshot
        .nodes
        .iter()
        .find(|n| n.namespace() == namespace && n.name() == node);
    let index = Index::new(snapshot);
    entries(
        snapshot
            .events
            .iter()
            .filter(|e| belongs_to_node(e, namespace, node, found)),
        &addresses_of(&index, snapshot, namespace),
    )
}

/// [`timeline`] of every node of a cluster at once, for any cluster of a
/// snapshot: the same events in the same order, found by look-ups in one
/// index instead of a scan of every event per node (the dashboard renders
/// every node's explain each time a cluster of thousands is judged).
pub(crate) struct NodeTimelines<'a> {
    snapshot: &'a Snapshot,
    index: Index<'a>,
}

impl<'a> NodeTimelines<'a> {
    pub(crate) fn new(snapshot: &'a Snapshot) -> Self {
        NodeTimelines {
            snapshot,
            index: Index::new(snapshot),
        }
    }

    /// Each node's timeline in the cluster, by node name.
    pub(crate) fn of_cluster(
        &self,
        namespace: &str,
        cluster: &str,
    ) -> HashMap<String, Vec<TimelineEntry>> {
        let index = &self.index;
        let nodes = index.nodes_of(namespace, cluster);
        let in_namespace = index.events_in(namespace);
        let place: HashMap<*const Event, usize> = in_namespace
            .iter()
            .enumerate()
            .map(|(at, e)| (std::ptr::from_ref(*e), at))
            .collect();
        let mut by_pod: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_workload: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_ip: Vec<(&str, usize)> = Vec::new();
        let mut found: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            let status = n.status.as_ref();
            if let Some(pod) = status.and_then(|s| s.pod_name.as_deref()) {
                by_pod.entry(pod).or_default().push(i);
            }
            if let Some(ip) = status.and_then(|s| s.pod_ip.as_deref()) {
                by_ip.push((ip, i));
            }
            by_workload.entry(n.workload_name()).or_default().push(i);
            found[i].extend(
                index
                    .events_naming(namespace, n.name())
                    .filter_map(|e| place.get(&std::ptr::from_ref(e)).copied()),
            );
        }
        for (at, e) in in_namespace.iter().enumerate() {
            for r in [Some(&e.involved_object), e.related.as_ref()]
                .into_iter()
                .flatten()
            {
                let Some(name) = r.name.as_deref() else {
                    continue;
                };
                for i in by_pod.get(name).into_iter().flatten() {
                    if events::is_about(e, namespace, "Pod", name) {
                        found[*i].push(at);
                    }
                }
                for i in by_workload.get(name).into_iter().flatten() {
                    if events::is_about(e, namespace, "StatefulSet", name)
                        || events::is_about(e, namespace, "Deployment", name)
                    {
                        found[*i].push(at);
                    }
                }
            }
            if failover::is_failover(e) {
                for (ip, i) in &by_ip {
                    if failover::names_pod_ip(e, Some(ip)) {
                        found[*i].push(at);
                    }
                }
            }
        }
        let addresses = addresses_of(index, self.snapshot, namespace);
        nodes
            .iter()
            .zip(found)
            .map(|(n, mut at)| {
                at.sort_unstable();
                at.dedup();
                let events = at.into_iter().filter_map(|i| in_namespace.get(i).copied());
                (n.name().to_string(), entries(events, &addresses))
            })
            .collect()
    }
}

/// The events of a cluster's roll, oldest first: those about the
/// ValkeyCluster, and every event of its nodes' timelines.
///
/// The same events as asking [`belongs_to_node`] of every node, found by
/// look-ups: a cluster of thousands of nodes has thousands of events.
pub(crate) fn cluster_timeline(
    snapshot: &Snapshot,
    namespace: &str,
    cluster: &str,
) -> Vec<TimelineEntry> {
    let index = Index::new(snapshot);
    let nodes = index.nodes_of(namespace, cluster);
    let naming: HashSet<*const Event> = nodes
        .iter()
        .flat_map(|n| index.events_naming(namespace, n.name()))
        .map(std::ptr::from_ref)
        .collect();
    let pods: HashSet<&str> = nodes
        .iter()
        .filter_map(|n| n.status.as_ref()?.pod_name.as_deref())
        .collect();
    let workload_names: Vec<String> = nodes.iter().map(|n| n.workload_name()).collect();
    let workloads: HashSet<&str> = workload_names.iter().map(String::as_str).collect();
    // Every event of the cluster's roll lives in its namespace; they keep
    // the snapshot's order, which `entries` keeps among equal times.
    entries(
        index.events_in(namespace).iter().copied().filter(|e| {
            events::is_about(e, namespace, "ValkeyCluster", cluster)
                || naming.contains(&std::ptr::from_ref(*e))
                || events::is_about_any(e, namespace, "Pod", &pods)
                || events::is_about_any(e, namespace, "StatefulSet", &workloads)
                || events::is_about_any(e, namespace, "Deployment", &workloads)
        }),
        &addresses_of(&index, snapshot, namespace),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, mins};

    /// The look-ups find what asking every node finds, in the same order.
    #[test]
    fn cluster_timeline_is_every_node_timeline() {
        let (ns, cl) = ("prod", "cache");
        let about = |kind: &str, name: &str, note: &str, at| {
            fixture::event(ns, "Seen", fixture::object(ns, kind, name), None, note, at)
        };
        let c = fixture::cluster(ns, cl)
            .node(fixture::node("cache-0-0").ready().pod_ready())
            .node(fixture::node("cache-0-1").ready())
            .event(fixture::event_permitted(ns, cl, "cache-0-1", "h", mins(-5)))
            .event(fixture::event_applied(ns, "cache-0-0", "h", mins(-5)))
            .event(about("Pod", "valkey-cache-0-0-0", "restarted", mins(-4)))
            .event(about("StatefulSet", "valkey-cache-0-1", "scaled", mins(-3)))
            .event(about("Deployment", "valkey-cache-0-0", "scaled", mins(-3)))
            .event(about("Pod", "valkey-other-0-0-0", "restarted", mins(-3)))
            .event(about("Service", "x", "mentions cache-0-1.", mins(-2)))
            .event(about("Service", "x", "mentions cache-0-10", mins(-2)))
            .event(about("ValkeyCluster", cl, "cluster", mins(-1)))
            .event(fixture::event_applied("dev", "cache-0-0", "h", mins(-1)));
        let s = c.snapshot();
        // The cluster's nodes by a scan: its namespace and its cluster name.
        let nodes: Vec<&ValkeyNode> = (s.nodes.iter())
            .filter(|n| n.metadata.namespace.as_deref() == Some(ns) && n.cluster_name() == Some(cl))
            .collect();
        let by_scan = entries(
            s.events.iter().filter(|e| {
                events::is_about(e, ns, "ValkeyCluster", cl)
                    || nodes
                        .iter()
                        .any(|n| belongs_to_node(e, ns, n.name(), Some(n)))
            }),
            &BTreeMap::new(),
        );
        let got = cluster_timeline(&s, ns, cl);
        assert_eq!(got, by_scan);
        assert_eq!(got.len(), 7, "{got:#?}");
    }

    /// Every node's timeline at once is each node's own, event for event.
    #[test]
    fn node_timelines_are_each_node_timeline() {
        let (ns, cl) = ("prod", "cache");
        let about = |kind: &str, name: &str, note: &str, at| {
            fixture::event(ns, "Seen", fixture::object(ns, kind, name), None, note, at)
        };
        let c = fixture::cluster(ns, cl)
            .node(fixture::node("cache-0-0").ready().pod_ready())
            .node(fixture::node("cache-0-1").ready().pod_ip("127.0.1.7"))
            .event(fixture::event_failover_completed(
                ns,
                cl,
                "127.0.1.7",
                mins(-1),
            ))
            .event(fixture::event_permitted(ns, cl, "cache-0-1", "h", mins(-5)))
            .event(fixture::event_applied(ns, "cache-0-0", "h", mins(-5)))
            .event(about("Pod", "valkey-cache-0-0-0", "restarted", mins(-4)))
            .event(about("StatefulSet", "valkey-cache-0-1", "scaled", mins(-3)))
            .event(about("Deployment", "valkey-cache-0-0", "scaled", mins(-3)))
            .event(about("Pod", "valkey-other-0-0-0", "restarted", mins(-3)))
            .event(about("Service", "x", "mentions cache-0-1.", mins(-2)))
            .event(about("Service", "x", "mentions cache-0-10", mins(-2)))
            .event(about("ValkeyCluster", cl, "cluster", mins(-1)))
            .event(fixture::event_applied("dev", "cache-0-0", "h", mins(-1)));
        let s = c.snapshot();
        let all = NodeTimelines::new(&s).of_cluster(ns, cl);
        assert_eq!(all.len(), 2);
        let mut seen = 0;
        for node in ["cache-0-0", "cache-0-1"] {
            let one = timeline(&s, ns, node);
            assert_eq!(all.get(node), Some(&one), "{node}");
            seen += one.len();
        }
        assert!(seen >= 7, "{all:#?}");
    }
}
