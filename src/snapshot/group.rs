//! Which ValkeyCluster each object belongs to, so that each cluster is
//! judged from its own objects alone: the live views (the exporter, `status
//! --watch`, `wait`) judge again only the clusters whose objects changed.
//!
//! A cluster's view ([`Snapshot::cluster_views`]) holds every object its
//! judgement reads:
//! - its ValkeyCluster;
//! - its ValkeyNodes: those whose `valkey.io/cluster` label, else whose
//!   controlling owner, names it (`ValkeyNode::cluster_name`);
//! - the pods and workloads labelled `valkey.io/cluster=<it>` (the label
//!   the reader selects them by), and any other one a node of it names:
//!   its pod by `status.podName` or `app.kubernetes.io/instance=<node>`,
//!   its workload `valkey-<node>`;
//! - the events about it or about a node of it (their regarding or
//!   related object), in its namespace.
//!
//! An event about one cluster that names a node of another in its note
//! only (or the pod IP of one) is read for the cluster it is about: the
//! operator writes its events on the object they concern, its failover
//! events on the ValkeyCluster (docs/plugin.md, "Judged one cluster at a
//! time").

use super::{Meta, Metadata, Snapshot, ValkeyNode, keys};
use k8s_openapi::api::core::v1::{Event, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A cluster in view: its namespace and name.
pub type ClusterKey = (String, String);

/// What changed in a live view since it was last judged, by the cluster
/// each changed object belongs to (as above). The reader finds it; the
/// snapshot resolves the nodes it names ([`Snapshot::changed_clusters`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changed {
    /// Anything may have changed (the first view): every cluster.
    pub all: bool,
    /// Clusters named by a changed object (namespace, cluster).
    pub clusters: BTreeSet<ClusterKey>,
    /// ValkeyNodes named by a changed event (namespace, node): their
    /// clusters changed too.
    pub nodes: BTreeSet<ClusterKey>,
}

impl Changed {
    /// Everything.
    pub fn all() -> Changed {
        Changed {
            all: true,
            ..Changed::default()
        }
    }

    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        !self.all && self.clusters.is_empty() && self.nodes.is_empty()
    }

    /// Adds what `other` names.
    pub fn merge(&mut self, other: Changed) {
        self.all |= other.all;
        self.clusters.extend(other.clusters);
        self.nodes.extend(other.nodes);
    }
}

/// The label that names an object's cluster, when set and not empty.
pub(crate) fn cluster_label(meta: &impl Metadata) -> Option<&str> {
    meta.label(keys::LABEL_CLUSTER).filter(|l| !l.is_empty())
}

/// The namespace an event lives in: its own, else its regarding object's.
fn event_namespace(e: &Event) -> &str {
    e.metadata
        .namespace
        .as_deref()
        .or(e.involved_object.namespace.as_deref())
        .unwrap_or("")
}

/// An event's regarding and related objects in its own namespace, as
/// (kind, name).
pub(crate) fn event_subjects(e: &Event) -> impl Iterator<Item = (&str, &str)> {
    let ns = event_namespace(e);
    [Some(&e.involved_object), e.related.as_ref()]
        .into_iter()
        .flatten()
        .filter(move |r: &&ObjectReference| r.namespace.as_deref().is_none_or(|n| n == ns))
        .filter_map(|r| Some((r.kind.as_deref()?, r.name.as_deref()?)))
}

fn ns_of(meta: &impl Metadata) -> &str {
    meta.ns().unwrap_or("")
}

fn name_of(meta: &impl Metadata) -> &str {
    meta.object_name().unwrap_or("")
}

/// Which of the wanted clusters an object belongs to (the module's rules):
/// the look-ups of the wanted clusters' nodes only, so that it holds what
/// those clusters hold, not the snapshot.
struct Grouper<'a> {
    keys: Vec<ClusterKey>,
    at: HashMap<(&'a str, &'a str), u32>,
    node_cluster: HashMap<(&'a str, &'a str), u32>,
    named_pods: HashMap<(&'a str, &'a str), Vec<u32>>,
    named_workloads: HashMap<(&'a str, String), Vec<u32>>,
}

impl<'a> Grouper<'a> {
    fn new(snapshot: &'a Snapshot, wanted: &BTreeSet<ClusterKey>) -> Grouper<'a> {
        let keys: Vec<ClusterKey> = snapshot
            .cluster_keys()
            .intersection(wanted)
            .cloned()
            .collect();
        let mut g = Grouper {
            keys: Vec::new(),
            at: HashMap::new(),
            node_cluster: HashMap::new(),
            named_pods: HashMap::new(),
            named_workloads: HashMap::new(),
        };
        // The keys are borrowed from the snapshot, which holds each of them.
        for c in &snapshot.clusters {
            let key = (c.namespace(), c.name());
            if let Some(i) = keys
                .iter()
                .position(|k| (k.0.as_str(), k.1.as_str()) == key)
            {
                g.at.insert(key, i as u32);
            }
        }
        for n in &snapshot.nodes {
            if let Some(cluster) = n.cluster_name() {
                let key = (n.namespace(), cluster);
                if !g.at.contains_key(&key)
                    && let Some(i) = keys
                        .iter()
                        .position(|k| (k.0.as_str(), k.1.as_str()) == key)
                {
                    g.at.insert(key, i as u32);
                }
            }
        }
        for n in &snapshot.nodes {
            let Some(k) = g.node(n) else { continue };
            g.node_cluster.insert((n.namespace(), n.name()), k);
            if let Some(pod) = n.status.as_ref().and_then(|s| s.pod_name.as_deref()) {
                g.named_pods
                    .entry((n.namespace(), pod))
                    .or_default()
                    .push(k);
            }
            g.named_workloads
                .entry((n.namespace(), n.workload_name()))
                .or_default()
                .push(k);
        }
        g.keys = keys;
        g
    }

    fn of(&self, ns: &str, name: &str) -> Option<u32> {
        self.at.get(&(ns, name)).copied()
    }

    fn node(&self, n: &ValkeyNode) -> Option<u32> {
        self.of(n.namespace(), n.cluster_name()?)
    }

    fn labelled(&self, meta: &impl Metadata, more: impl Iterator<Item = u32>) -> Vec<u32> {
        let mut ks: Vec<u32> = cluster_label(meta)
            .and_then(|l| self.of(ns_of(meta), l))
            .into_iter()
            .chain(more)
            .collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    }

    fn workload(&self, meta: &Meta) -> Vec<u32> {
        let named = self
            .named_workloads
            .get(&(ns_of(meta), name_of(meta).to_string()));
        self.labelled(meta, named.into_iter().flatten().copied())
    }

    fn pod(&self, p: &super::Pod) -> Vec<u32> {
        let m = &p.metadata;
        let ns = ns_of(m);
        let by_name = self
            .named_pods
            .get(&(ns, name_of(m)))
            .into_iter()
            .flatten()
            .copied();
        let instance = m
            .labels
            .get(keys::LABEL_INSTANCE)
            .and_then(|i| self.node_cluster.get(&(ns, i)).copied());
        self.labelled(m, by_name.chain(instance))
    }

    /// A server reading: the cluster of the node it names, else of the
    /// node whose pod it read.
    fn reading(&self, r: &super::ServerReading) -> Vec<u32> {
        let m = &r.metadata;
        let ns = ns_of(m);
        let by_node = r
            .node
            .as_deref()
            .and_then(|n| self.node_cluster.get(&(ns, n)).copied());
        let mut ks: Vec<u32> = match by_node {
            Some(k) => vec![k],
            None => self
                .named_pods
                .get(&(ns, name_of(m)))
                .cloned()
                .unwrap_or_default(),
        };
        ks.sort_unstable();
        ks.dedup();
        ks
    }

    fn event(&self, e: &Event) -> Vec<u32> {
        let ns = event_namespace(e);
        let mut ks: Vec<u32> = event_subjects(e)
            .filter_map(|(kind, name)| match kind {
                "ValkeyCluster" => self.of(ns, name),
                "ValkeyNode" => self.node_cluster.get(&(ns, name)).copied(),
                _ => None,
            })
            .collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    }
}

/// Copies each item into the views of its clusters.
fn copy<T: Clone>(
    items: &[T],
    of: impl Fn(&T) -> Vec<u32>,
    views: &mut [Snapshot],
    list: fn(&mut Snapshot) -> &mut Vec<T>,
) {
    for item in items {
        for k in of(item) {
            list(&mut views[k as usize]).push(item.clone());
        }
    }
}

/// Moves each item into the views of its clusters (a copy for each but
/// the last); an item of none is dropped.
fn take<T: Clone>(
    items: Vec<T>,
    of: impl Fn(&T) -> Vec<u32>,
    views: &mut [Snapshot],
    list: fn(&mut Snapshot) -> &mut Vec<T>,
) {
    for item in items {
        let keys = of(&item);
        if let Some((&last, rest)) = keys.split_last() {
            for &k in rest {
                list(&mut views[k as usize]).push(item.clone());
            }
            list(&mut views[last as usize]).push(item);
        }
    }
}

impl Snapshot {
    /// Every cluster a judgement of the snapshot reports on: each
    /// ValkeyCluster, and each cluster a node names.
    pub fn cluster_keys(&self) -> BTreeSet<ClusterKey> {
        let mut out: BTreeSet<ClusterKey> = self
            .clusters
            .iter()
            .map(|c| (c.namespace().to_string(), c.name().to_string()))
            .collect();
        for n in &self.nodes {
            if let Some(cluster) = n.cluster_name() {
                out.insert((n.namespace().to_string(), cluster.to_string()));
            }
        }
        out
    }

    /// The clusters of the snapshot that `changed` names: those named
    /// directly, and those of the nodes it names; every cluster when
    /// `changed.all`.
    pub fn changed_clusters(&self, changed: &Changed) -> BTreeSet<ClusterKey> {
        if changed.all {
            return self.cluster_keys();
        }
        let mut out = changed.clusters.clone();
        if !changed.nodes.is_empty() {
            for n in &self.nodes {
                let key = (n.namespace().to_string(), n.name().to_string());
                if let Some(cluster) = n.cluster_name()
                    && changed.nodes.contains(&key)
                {
                    out.insert((key.0, cluster.to_string()));
                }
            }
        }
        out
    }

    /// The view of each cluster in `wanted` (that the snapshot has): a
    /// snapshot of its own objects alone, in the snapshot's order, copied.
    /// What it holds besides the views is what the wanted clusters hold.
    pub fn cluster_views(&self, wanted: &BTreeSet<ClusterKey>) -> BTreeMap<ClusterKey, Snapshot> {
        let g = Grouper::new(self, wanted);
        let mut views: Vec<Snapshot> = vec![Snapshot::default(); g.keys.len()];
        copy(
            &self.clusters,
            |c| g.of(c.namespace(), c.name()).into_iter().collect(),
            &mut views,
            |s| &mut s.clusters,
        );
        copy(
            &self.nodes,
            |n| g.node(n).into_iter().collect(),
            &mut views,
            |s| &mut s.nodes,
        );
        copy(
            &self.stateful_sets,
            |w| g.workload(&w.metadata),
            &mut views,
            |s| &mut s.stateful_sets,
        );
        copy(
            &self.deployments,
            |w| g.workload(&w.metadata),
            &mut views,
            |s| &mut s.deployments,
        );
        copy(&self.pods, |p| g.pod(p), &mut views, |s| &mut s.pods);
        copy(&self.events, |e| g.event(e), &mut views, |s| &mut s.events);
        copy(
            &self.readings,
            |r| g.reading(r),
            &mut views,
            |s| &mut s.readings,
        );
        g.keys.into_iter().zip(views).collect()
    }

    /// [`Snapshot::cluster_views`], taking the snapshot apart instead of
    /// copying it: each object moves into its cluster's view (copied only
    /// for a second cluster), and the objects of no wanted cluster are
    /// dropped. The views together never hold more than the snapshot did.
    pub fn into_cluster_views(
        self,
        wanted: &BTreeSet<ClusterKey>,
    ) -> BTreeMap<ClusterKey, Snapshot> {
        let mut views: Vec<Snapshot>;
        let keys;
        // Each list's items are placed by a look-up built from the borrowed
        // snapshot, then moved; the look-up is rebuilt per list, as a list
        // taken out of the snapshot can no longer be borrowed.
        let Snapshot {
            clusters,
            nodes,
            stateful_sets,
            deployments,
            pods,
            events,
            readings,
            servers_not_read,
        } = self;
        let rest = Snapshot {
            clusters,
            nodes,
            ..Snapshot::default()
        };
        {
            let g = Grouper::new(&rest, wanted);
            views = vec![Snapshot::default(); g.keys.len()];
            take(
                stateful_sets,
                |w| g.workload(&w.metadata),
                &mut views,
                |s| &mut s.stateful_sets,
            );
            take(
                deployments,
                |w| g.workload(&w.metadata),
                &mut views,
                |s| &mut s.deployments,
            );
            take(pods, |p| g.pod(p), &mut views, |s| &mut s.pods);
            take(events, |e| g.event(e), &mut views, |s| &mut s.events);
            take(readings, |r| g.reading(r), &mut views, |s| &mut s.readings);
            keys = g.keys.clone();
        }
        // The nodes and clusters last: the look-up borrows them.
        let at: HashMap<(String, String), u32> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), i as u32))
            .collect();
        let of = |ns: &str, name: &str| at.get(&(ns.to_string(), name.to_string())).copied();
        let Snapshot {
            clusters, nodes, ..
        } = rest;
        take(
            clusters,
            |c| of(c.namespace(), c.name()).into_iter().collect(),
            &mut views,
            |s| &mut s.clusters,
        );
        take(
            nodes,
            |n| {
                n.cluster_name()
                    .and_then(|c| of(n.namespace(), c))
                    .into_iter()
                    .collect()
            },
            &mut views,
            |s| &mut s.nodes,
        );
        for n in servers_not_read {
            if let Some(view) = of(&n.namespace, &n.cluster).and_then(|i| views.get_mut(i as usize))
            {
                view.servers_not_read.push(n);
            }
        }
        keys.into_iter().zip(views).collect()
    }
}

/// The cluster a ValkeyNode belongs to, for a reader that has only its
/// metadata: [`ValkeyNode::cluster_name`].
pub(crate) fn node_cluster(meta: &ObjectMeta) -> Option<String> {
    let node = ValkeyNode {
        metadata: super::NodeMeta {
            labels: meta.labels.iter().flatten().collect(),
            owner_references: meta.owner_references.clone(),
            ..Default::default()
        },
        ..ValkeyNode::default()
    };
    node.cluster_name().map(str::to_string)
}
