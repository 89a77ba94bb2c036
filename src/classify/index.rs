//! The snapshot's objects looked up by key, built once per `classify()`:
//! each node's workload, pod and events are found by a map look-up, not by
//! a scan of every list (which made a 3000-node cluster take 150 ms).
//! Every look-up answers exactly what the scan it replaces answered.

use super::events;
use super::text::{is_name_char, whole_words};
use crate::snapshot::{
    Deployment, Metadata, Pod, ServerReading, ServersNotRead, Snapshot, StatefulSet, ValkeyNode,
    keys,
};
use k8s_openapi::api::core::v1::Event;

// foldhash (hashbrown's own hasher, randomly seeded per run) instead of
// SipHash: hashing the (namespace, name) keys was the largest part of
// building the index.
use foldhash::HashMap;

/// (namespace, name): a missing namespace reads as "".
type Key<'a> = (&'a str, &'a str);

pub(crate) struct Index<'a> {
    /// By (namespace, `valkey.io/cluster` label), in snapshot order; only
    /// nodes whose namespace is set (a node belongs to the cluster of its
    /// namespace and [`ValkeyNode::cluster_name`]).
    nodes_by_cluster: HashMap<Key<'a>, Vec<&'a ValkeyNode>>,
    /// The first object of each (namespace, name), as a `find` would give.
    stateful_sets: HashMap<Key<'a>, &'a StatefulSet>,
    deployments: HashMap<Key<'a>, &'a Deployment>,
    pods: HashMap<Key<'a>, &'a Pod>,
    /// By (namespace, `app.kubernetes.io/instance` label), in snapshot order.
    pods_by_instance: HashMap<Key<'a>, Vec<&'a Pod>>,
    /// By the namespace the event lives in ([`events::in_namespace`]).
    events_by_namespace: HashMap<&'a str, Vec<&'a Event>>,
    /// The events that name each ValkeyNode of the snapshot
    /// ([`events::names_node`]), by (namespace, node), in snapshot order.
    events_by_node: HashMap<Key<'a>, Vec<&'a Event>>,
    /// The servers' readings by namespace, in snapshot order.
    readings: HashMap<&'a str, Vec<&'a ServerReading>>,
    /// Clusters whose servers were asked for and none could be read.
    servers_not_read: &'a [ServersNotRead],
}

fn key(m: &impl Metadata) -> Option<Key<'_>> {
    Some((m.ns().unwrap_or(""), m.object_name()?))
}

fn first_by_name<'a, T, M: Metadata + 'a>(
    items: &'a [T],
    meta: impl Fn(&'a T) -> &'a M,
) -> HashMap<Key<'a>, &'a T> {
    let mut out = HashMap::default();
    for item in items {
        if let Some(k) = key(meta(item)) {
            out.entry(k).or_insert(item);
        }
    }
    out
}

/// The names an event could name a ValkeyNode by: its ValkeyNode
/// references in its own namespace, and the whole words of its note.
fn named_in<'e>(e: &'e Event, ns: &str) -> Vec<&'e str> {
    let mut names: Vec<&str> = [Some(&e.involved_object), e.related.as_ref()]
        .into_iter()
        .flatten()
        .filter(|r| {
            r.kind.as_deref() == Some("ValkeyNode")
                && r.namespace.as_deref().is_none_or(|n| n == ns)
        })
        .filter_map(|r| r.name.as_deref())
        .collect();
    names.extend(whole_words(events::note(e)));
    names.sort_unstable();
    names.dedup();
    names
}

impl<'a> Index<'a> {
    pub(crate) fn new(snapshot: &'a Snapshot) -> Self {
        let mut nodes_by_cluster: HashMap<Key<'a>, Vec<&'a ValkeyNode>> = HashMap::default();
        for n in &snapshot.nodes {
            if let (Some(ns), Some(cluster)) = (n.metadata.namespace.as_deref(), n.cluster_name()) {
                nodes_by_cluster.entry((ns, cluster)).or_default().push(n);
            }
        }
        let mut pods_by_instance: HashMap<Key<'a>, Vec<&'a Pod>> = HashMap::default();
        for p in &snapshot.pods {
            let instance = p.metadata.labels.get(keys::LABEL_INSTANCE);
            if let Some(instance) = instance {
                let ns = p.metadata.namespace.as_deref().unwrap_or("");
                pods_by_instance.entry((ns, instance)).or_default().push(p);
            }
        }
        let mut events_by_namespace: HashMap<&'a str, Vec<&'a Event>> = HashMap::default();
        for e in &snapshot.events {
            events_by_namespace
                .entry(events::namespace(e))
                .or_default()
                .push(e);
        }

        // A note names a node by a whole word; names made of name
        // characters only are found among the note's words, any other name
        // (none in a real cluster) by asking every event of its namespace.
        let plain = |name: &str| name.chars().all(is_name_char);
        let node_keys = || snapshot.nodes.iter().map(|n| (n.namespace(), n.name()));
        // Every node has its entry, empty when no event names it: a missing
        // entry means a name that is not a node of the snapshot.
        let mut events_by_node: HashMap<Key<'a>, Vec<&'a Event>> =
            node_keys().map(|k| (k, Vec::new())).collect();
        for e in &snapshot.events {
            let ns = events::namespace(e);
            for name in named_in(e, ns) {
                if let Some(naming) = events_by_node.get_mut(&(ns, name))
                    && plain(name)
                {
                    naming.push(e);
                }
            }
        }
        for (ns, name) in node_keys().filter(|(_, name)| !plain(name)) {
            let naming = events_by_namespace
                .get(ns)
                .into_iter()
                .flatten()
                .copied()
                .filter(|e| events::names_node(e, ns, name))
                .collect();
            events_by_node.insert((ns, name), naming);
        }

        let mut readings: HashMap<&'a str, Vec<&'a ServerReading>> = HashMap::default();
        for r in &snapshot.readings {
            readings.entry(r.namespace()).or_default().push(r);
        }

        Index {
            readings,
            servers_not_read: &snapshot.servers_not_read,
            nodes_by_cluster,
            stateful_sets: first_by_name(&snapshot.stateful_sets, |s| &s.metadata),
            deployments: first_by_name(&snapshot.deployments, |d| &d.metadata),
            pods: first_by_name(&snapshot.pods, |p| &p.metadata),
            pods_by_instance,
            events_by_namespace,
            events_by_node,
        }
    }

    /// The cluster's nodes, in snapshot order.
    pub(crate) fn nodes_of<'s>(
        &'s self,
        namespace: &'s str,
        cluster: &'s str,
    ) -> &'s [&'a ValkeyNode] {
        self.nodes_by_cluster
            .get(&(namespace, cluster))
            .map_or(&[], Vec::as_slice)
    }

    /// The servers' readings in `namespace`.
    pub(crate) fn readings_in(&self, namespace: &str) -> &[&'a ServerReading] {
        self.readings.get(namespace).map_or(&[], Vec::as_slice)
    }

    /// The cluster's servers were asked for and none could be read.
    pub(crate) fn servers_not_read(&self, namespace: &str, cluster: &str) -> bool {
        self.servers_not_read
            .iter()
            .any(|n| n.namespace == namespace && n.cluster == cluster)
    }

    pub(crate) fn stateful_set(&self, namespace: &str, name: &str) -> Option<&'a StatefulSet> {
        self.stateful_sets.get(&(namespace, name)).copied()
    }

    pub(crate) fn deployment(&self, namespace: &str, name: &str) -> Option<&'a Deployment> {
        self.deployments.get(&(namespace, name)).copied()
    }

    pub(crate) fn pod(&self, namespace: &str, name: &str) -> Option<&'a Pod> {
        self.pods.get(&(namespace, name)).copied()
    }

    /// The pods labelled `app.kubernetes.io/instance=<instance>`.
    pub(crate) fn pods_of_instance<'s>(
        &'s self,
        namespace: &'s str,
        instance: &'s str,
    ) -> &'s [&'a Pod] {
        self.pods_by_instance
            .get(&(namespace, instance))
            .map_or(&[], Vec::as_slice)
    }

    /// The events that live in the namespace.
    pub(crate) fn events_in(&self, namespace: &str) -> &[&'a Event] {
        self.events_by_namespace
            .get(namespace)
            .map_or(&[], Vec::as_slice)
    }

    /// The events that name a ValkeyNode of the snapshot
    /// ([`events::names_node`]): what [`Index::events_naming`] gives for it,
    /// as every node of the snapshot has its entry.
    pub(crate) fn events_of<'s>(&'s self, node: &'s ValkeyNode) -> &'s [&'a Event] {
        self.events_by_node
            .get(&(node.namespace(), node.name()))
            .map_or(&[], Vec::as_slice)
    }

    /// The events that name the node ([`events::names_node`]). A node not
    /// in the snapshot is looked for in every event of its namespace.
    pub(crate) fn events_naming<'s>(
        &'s self,
        namespace: &'s str,
        node: &'s str,
    ) -> impl Iterator<Item = &'a Event> + 's {
        let indexed = self.events_by_node.get(&(namespace, node));
        let unindexed = if indexed.is_none() {
            self.events_in(namespace)
        } else {
            &[]
        };
        indexed.into_iter().flatten().copied().chain(
            unindexed
                .iter()
                .copied()
                .filter(move |e| events::names_node(e, namespace, node)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, t};

    /// Every look-up gives what a scan of the snapshot's lists gives.
    #[test]
    fn look_ups_match_scans() {
        let mut s = Snapshot::default();
        let mut permitted = fixture::event_permitted("prod", "cache", "cache-0-1", "h", t(0));
        s.events.push(permitted.clone());
        permitted.related = None;
        permitted.message = Some("permit for cache-0-1. then cache-0-10".into());
        s.events.push(permitted.clone());
        permitted.message = Some("permit for odd/name and cache-0-1.x".into());
        s.events.push(permitted.clone());
        s.events
            .push(fixture::event_applied("prod", "cache-0-10", "h", t(0)));
        s.events
            .push(fixture::event_applied("dev", "cache-0-1", "h", t(0)));
        for (ns, name) in [
            ("prod", "cache-0-1"),
            ("prod", "cache-0-10"),
            ("prod", "odd/name"),
            ("dev", "cache-0-1"),
            ("prod", ""),
        ] {
            let mut n = ValkeyNode::default();
            n.metadata.namespace = Some(ns.into());
            n.metadata.name = Some(name.into());
            s.nodes.push(n);
        }
        let index = Index::new(&s);
        let queries = [
            ("prod", "cache-0-1"),
            ("prod", "cache-0-10"),
            ("prod", "odd/name"),
            ("dev", "cache-0-1"),
            ("prod", ""),
            ("prod", "cache"),
            ("prod", "not-a-node"),
        ];
        for (ns, node) in queries {
            let want: Vec<*const Event> = s
                .events
                .iter()
                .filter(|e| events::names_node(e, ns, node))
                .map(|e| e as *const Event)
                .collect();
            let got: Vec<*const Event> = index
                .events_naming(ns, node)
                .map(|e| e as *const Event)
                .collect();
            assert_eq!(got, want, "{ns}/{node}");
        }
        assert_eq!(index.events_naming("prod", "cache-0-1").count(), 2);
        assert_eq!(index.events_naming("prod", "odd/name").count(), 1);
    }
}
