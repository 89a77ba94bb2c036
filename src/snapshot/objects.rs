//! The snapshot's own forms of the built-in kinds it reads: only the fields
//! the classifier, `explain` and `history` read, so that a snapshot of a
//! few thousand nodes is small. A k8s-openapi `Pod` holds a whole `PodSpec`
//! inline (about 1.5 KB before any string, 2 KB more per container) and a
//! `StatefulSet` a whole pod template, none of which is read.
//!
//! Each is made from the k8s-openapi object (`From`), which the readers
//! parse first wherever an object's every field must be checked (a file,
//! the watch, a LIST page that cannot be read directly): so what is
//! accepted, and how a broken field is named, does not change.
//!
//! Kept, per kind (metadata as [`Meta`] keeps it):
//! - Pod: metadata; of its status the conditions read
//!   ([`POD_CONDITIONS_READ`]), its IP and
//!   each container's (and init container's) name, readiness, restarts,
//!   state and last state. Not its spec: nothing reads it.
//! - StatefulSet: metadata and its whole status.
//! - Deployment: metadata, `spec.replicas` and its whole status.
//!
//! Each serializes as the API writes the fields it keeps (a test writes a
//! built snapshot out as a file to read back).

use super::keys;
use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::{Deserialize, Serialize};

pub use apps::{DeploymentStatus, StatefulSetStatus};
pub use core::{
    ContainerStateRunning, ContainerStateTerminated, ContainerStateWaiting, PodCondition,
};

/// A Pod, as far as it is read.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pod {
    pub metadata: Meta,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<PodStatus>,
}

/// `status` of a Pod: its conditions and its containers' states.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    /// The pod's IP: the operator's events name servers by it.
    #[serde(rename = "podIP", skip_serializing_if = "Option::is_none")]
    pub pod_ip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<PodCondition>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_statuses: Option<Vec<ContainerStatus>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_container_statuses: Option<Vec<ContainerStatus>>,
}

/// One entry of `status.containerStatuses` (or `initContainerStatuses`).
/// Its states are boxed, and an empty one (`lastState: {}` of a container
/// that never terminated) is not kept: a k8s-openapi `ContainerState` is
/// some 200 bytes inline, and a pod of two containers held four of them
/// (issue 33).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerStatus {
    pub name: String,
    pub ready: bool,
    pub restart_count: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<Box<ContainerState>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_state: Option<Box<ContainerState>>,
}

/// A container's state as the snapshot keeps it: a k8s-openapi
/// `ContainerState` with its termination, rare on a running pod, boxed
/// (208 bytes inline to 80; issue 33).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerState {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<ContainerStateRunning>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminated: Option<Box<ContainerStateTerminated>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<ContainerStateWaiting>,
}

/// A StatefulSet, as far as it is read: its status.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatefulSet {
    pub metadata: Meta,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<StatefulSetStatus>,
}

/// A Deployment, as far as it is read.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Deployment {
    pub metadata: Meta,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<DeploymentSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<DeploymentStatus>,
}

/// `spec` of a Deployment: how many replicas it wants.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
}

/// The labels read of a pod or a workload: its cluster (`bundle`), its
/// node (a pod found by label) and its StatefulSet revision. [`Labels`]
/// keeps these alone, each in its own slot.
pub(crate) const LABELS_READ: [&str; 3] = [
    keys::LABEL_CLUSTER,
    keys::LABEL_INSTANCE,
    keys::LABEL_CONTROLLER_REVISION,
];

/// The conditions read of a pod: Ready (its readiness and since when) and
/// PodScheduled (unschedulable, and since when). The others
/// (Initialized, ContainersReady, PodReadyToStartContainers, a readiness
/// gate's) are not kept.
pub(crate) const POD_CONDITIONS_READ: [&str; 2] = [keys::COND_READY, "PodScheduled"];

/// Metadata of a pod or a workload as the snapshot keeps it: its name,
/// namespace, uid and resourceVersion (the preconditions of a delete),
/// generation, creation and deletion times, and of its labels those in
/// [`PodLabels`]. Annotations, owner references, finalizers and
/// managedFields are not read. Not a k8s-openapi `ObjectMeta`: that is 360
/// bytes inline, and its labels a B-tree whose first leaf alone is 544
/// bytes, for the three labels kept (issue 33: 10,000 pods and as many
/// StatefulSets held some 20 MiB of it).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<Time>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Time>,
    #[serde(skip_serializing_if = "KeptMap::is_empty")]
    pub labels: KeptMap<PodLabels>,
}

/// Which keys a [`KeptMap`] keeps: the labels (or annotations) of a kind
/// that its readers read.
pub trait KeptKeys {
    const KEYS: &'static [&'static str];
}

/// The labels read of a pod or a workload: its cluster, its node and its StatefulSet revision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PodLabels;

impl KeptKeys for PodLabels {
    const KEYS: &'static [&'static str] = &LABELS_READ;
}

/// The labels (or annotations) of `K::KEYS` an object has, by the place of
/// their key in `K::KEYS`, in one list at its own size; any other key is
/// not kept. A k8s-openapi `BTreeMap` is a 544-byte leaf however few
/// entries it holds (issue 33). Written as the API writes labels (a map),
/// and read so: every value must be a string, kept or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptMap<K>(Box<[(u8, Box<str>)]>, std::marker::PhantomData<K>);

impl<K> Default for KeptMap<K> {
    fn default() -> Self {
        KeptMap(Box::default(), std::marker::PhantomData)
    }
}

impl<K: KeptKeys> KeptMap<K> {
    fn slot(key: &str) -> Option<u8> {
        K::KEYS
            .iter()
            .position(|k| *k == key)
            .and_then(|at| u8::try_from(at).ok())
    }

    /// The value of `key`; None when the object has none, or when `key`
    /// is not one of `K::KEYS` (never kept).
    pub fn get(&self, key: &str) -> Option<&str> {
        let slot = Self::slot(key)?;
        self.0.iter().find(|(s, _)| *s == slot).map(|(_, v)| &**v)
    }

    /// Sets `key`; a key not in `K::KEYS` is not kept.
    pub fn insert(&mut self, key: impl AsRef<str>, value: impl Into<Box<str>>) {
        let Some(slot) = Self::slot(key.as_ref()) else {
            return;
        };
        let mut entries: Vec<(u8, Box<str>)> = std::mem::take(&mut self.0).into_vec();
        entries.retain(|(s, _)| *s != slot);
        entries.push((slot, value.into()));
        entries.sort_by_key(|(s, _)| *s);
        self.0 = entries.into_boxed_slice();
    }

    /// Takes `key` away.
    pub fn remove(&mut self, key: &str) {
        if let Some(slot) = Self::slot(key) {
            let mut entries = std::mem::take(&mut self.0).into_vec();
            entries.retain(|(s, _)| *s != slot);
            self.0 = entries.into_boxed_slice();
        }
    }

    /// The entries kept, in `K::KEYS` order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.0
            .iter()
            .filter_map(|(s, v)| K::KEYS.get(usize::from(*s)).map(|k| (*k, &**v)))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: KeptKeys, N: AsRef<str>, V: AsRef<str>> FromIterator<(N, V)> for KeptMap<K> {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(entries: I) -> KeptMap<K> {
        let mut kept: Vec<(u8, Box<str>)> = entries
            .into_iter()
            .filter_map(|(k, v)| Some((Self::slot(k.as_ref())?, v.as_ref().into())))
            .collect();
        kept.sort_by_key(|(s, _)| *s);
        kept.dedup_by_key(|(s, _)| *s);
        KeptMap(kept.into_boxed_slice(), std::marker::PhantomData)
    }
}

impl<K: KeptKeys> Serialize for KeptMap<K> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de, K: KeptKeys> Deserialize<'de> for KeptMap<K> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<KeptMap<K>, D::Error> {
        struct Visit<K>(std::marker::PhantomData<K>);
        impl<'de, K: KeptKeys> serde::de::Visitor<'de> for Visit<K> {
            type Value = KeptMap<K>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_unit<E>(self) -> Result<KeptMap<K>, E> {
                Ok(KeptMap::default())
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<KeptMap<K>, A::Error> {
                let mut kept = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    kept.push((k, v));
                }
                Ok(kept.into_iter().collect())
            }
        }
        d.deserialize_any(Visit(std::marker::PhantomData))
    }
}

/// What the code shared by every kind reads of an object's metadata,
/// whichever form holds it: a k8s-openapi `ObjectMeta` (the valkey.io
/// kinds, events) or a [`Meta`] (pods, workloads).
pub(crate) trait Metadata {
    fn ns(&self) -> Option<&str>;
    fn object_name(&self) -> Option<&str>;
    fn label(&self, key: &str) -> Option<&str>;
    fn resource_version(&self) -> Option<&str>;
    fn uid(&self) -> Option<&str>;
}

impl Metadata for ObjectMeta {
    fn ns(&self) -> Option<&str> {
        self.namespace.as_deref()
    }
    fn object_name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    fn label(&self, key: &str) -> Option<&str> {
        self.labels.as_ref()?.get(key).map(String::as_str)
    }
    fn resource_version(&self) -> Option<&str> {
        self.resource_version.as_deref()
    }
    fn uid(&self) -> Option<&str> {
        self.uid.as_deref()
    }
}

impl Metadata for Meta {
    fn ns(&self) -> Option<&str> {
        self.namespace.as_deref()
    }
    fn object_name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    fn label(&self, key: &str) -> Option<&str> {
        self.labels.get(key)
    }
    fn resource_version(&self) -> Option<&str> {
        self.resource_version.as_deref()
    }
    fn uid(&self) -> Option<&str> {
        self.uid.as_deref()
    }
}

/// Metadata of a pod or a workload as the snapshot keeps it ([`Meta`]).
pub(crate) fn meta(m: ObjectMeta) -> Meta {
    Meta {
        name: m.name,
        namespace: m.namespace,
        uid: m.uid,
        resource_version: m.resource_version,
        generation: m.generation,
        creation_timestamp: m.creation_timestamp,
        deletion_timestamp: m.deletion_timestamp,
        labels: m.labels.into_iter().flatten().collect(),
    }
}

impl From<core::Pod> for Pod {
    fn from(p: core::Pod) -> Pod {
        Pod {
            metadata: meta(p.metadata),
            status: p.status.map(PodStatus::from),
        }
    }
}

impl From<core::PodStatus> for PodStatus {
    fn from(s: core::PodStatus) -> PodStatus {
        // At their own size: a collect may reuse the (larger) room of the
        // list read, and keep all of it.
        let containers = |cs: Option<Vec<core::ContainerStatus>>| {
            cs.map(|cs| {
                let mut kept = Vec::with_capacity(cs.len());
                kept.extend(cs.into_iter().map(ContainerStatus::from));
                kept
            })
        };
        PodStatus {
            pod_ip: s.pod_ip,
            // At their own size: a filtered collect would keep the
            // list's whole room (it reuses the list read).
            conditions: s.conditions.map(|cs| {
                let read = |c: &PodCondition| POD_CONDITIONS_READ.contains(&c.type_.as_str());
                let mut kept = Vec::with_capacity(cs.iter().filter(|c| read(c)).count());
                kept.extend(cs.into_iter().filter(read));
                kept
            }),
            container_statuses: containers(s.container_statuses),
            init_container_statuses: containers(s.init_container_statuses),
        }
    }
}

impl From<core::ContainerStatus> for ContainerStatus {
    fn from(c: core::ContainerStatus) -> ContainerStatus {
        ContainerStatus {
            name: c.name,
            ready: c.ready,
            restart_count: c.restart_count,
            state: kept_state(c.state),
            last_state: kept_state(c.last_state),
        }
    }
}

/// A container's state as [`ContainerStatus`] keeps it: boxed, and none
/// when it says nothing (no state of the three).
fn kept_state(s: Option<core::ContainerState>) -> Option<Box<ContainerState>> {
    s.filter(|s| s.running.is_some() || s.terminated.is_some() || s.waiting.is_some())
        .map(|s| {
            Box::new(ContainerState {
                running: s.running,
                terminated: s.terminated.map(Box::new),
                waiting: s.waiting,
            })
        })
}

impl From<apps::StatefulSet> for StatefulSet {
    fn from(s: apps::StatefulSet) -> StatefulSet {
        StatefulSet {
            metadata: meta(s.metadata),
            status: s.status,
        }
    }
}

impl From<apps::Deployment> for Deployment {
    fn from(d: apps::Deployment) -> Deployment {
        Deployment {
            metadata: meta(d.metadata),
            spec: d.spec.map(|s| DeploymentSpec {
                replicas: s.replicas,
            }),
            status: d.status,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A container's states are kept boxed, and one that says nothing
    /// (`lastState: {}`) not at all; what a state says is kept as read.
    #[test]
    fn a_containers_states_are_boxed_and_an_empty_one_is_not_kept() {
        let read = |status: serde_json::Value| -> ContainerStatus {
            let whole: core::ContainerStatus =
                serde_json::from_value(status).expect("a container status");
            whole.into()
        };
        let base = json!({"name": "server", "image": "valkey", "imageID": "", "ready": true,
                          "restartCount": 3});
        let with = |state: serde_json::Value, last: serde_json::Value| {
            let mut s = base.clone();
            s["state"] = state;
            s["lastState"] = last;
            read(s)
        };
        let running = json!({"running": {"startedAt": "2026-11-28T10:00:00Z"}});
        let crashed = json!({"terminated": {"exitCode": 1, "reason": "Error"}});
        let cases = [
            (with(running.clone(), json!({})), true, false),
            (with(json!({}), json!({})), false, false),
            (with(running.clone(), crashed.clone()), true, true),
            (read(base.clone()), false, false),
        ];
        for (c, state, last) in cases {
            assert_eq!(
                (c.state.is_some(), c.last_state.is_some()),
                (state, last),
                "{c:?}"
            );
        }
        let c = with(running, crashed);
        let t = c.last_state.as_ref().and_then(|s| s.terminated.as_ref());
        assert_eq!(
            t.map(|t| (t.exit_code, t.reason.as_deref())),
            Some((1, Some("Error")))
        );
        assert_eq!(c.restart_count, 3);
        // Two pointers, not two 200-byte states inline (issue 33); and a
        // state boxes its rare termination.
        assert!(std::mem::size_of::<ContainerStatus>() <= 64);
        assert!(std::mem::size_of::<ContainerState>() <= 96);
    }

    /// A kept map holds the keys its kind reads, in their order, at its
    /// own size; every value must be a string, kept or not; `null` is no
    /// labels; it writes back as the API's map of what it kept.
    #[test]
    fn a_kept_map_holds_the_keys_read_and_checks_every_value() {
        let read = |v: serde_json::Value| serde_json::from_value::<KeptMap<PodLabels>>(v);
        let labels = read(json!({"app": "x", "controller-revision-hash": "r1",
                                 "valkey.io/cluster": "cache"}))
        .expect("labels");
        assert_eq!(
            labels.iter().collect::<Vec<_>>(),
            [
                ("valkey.io/cluster", "cache"),
                ("controller-revision-hash", "r1")
            ]
        );
        assert_eq!(labels.get("app"), None);
        assert_eq!(labels.get(keys::LABEL_CLUSTER), Some("cache"));
        assert_eq!(
            serde_json::to_value(&labels).expect("written"),
            json!({"valkey.io/cluster": "cache", "controller-revision-hash": "r1"})
        );
        assert!(read(json!(null)).expect("null").is_empty());
        for broken in [
            json!({"app": 7}),
            json!({"valkey.io/cluster": ["a"]}),
            json!(5),
        ] {
            let e = read(broken.clone()).expect_err("refused");
            assert!(e.to_string().contains("expected"), "{broken}: {e}");
        }
        let mut edited = labels.clone();
        edited.insert(keys::LABEL_INSTANCE, "cache-0-0");
        edited.insert("app", "not kept");
        edited.remove(keys::LABEL_CLUSTER);
        assert_eq!(
            edited.iter().collect::<Vec<_>>(),
            [
                ("app.kubernetes.io/instance", "cache-0-0"),
                ("controller-revision-hash", "r1")
            ]
        );
        // One pointer and a length, not a 544-byte B-tree leaf (issue 33).
        assert_eq!(std::mem::size_of::<KeptMap<PodLabels>>(), 16);
        assert!(std::mem::size_of::<Meta>() <= 208);
    }
}
