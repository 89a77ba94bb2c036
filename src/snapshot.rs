//! The plain data every layer after reading works on.
//!
//! Both sources (a live cluster, a `kubectl get -o yaml` file) end in one
//! [`Snapshot`], so the classifier, the planner and the renderers never know
//! where the objects came from. Pods and workloads are the plugin's own
//! slim forms of them (`objects`); events are the upstream `k8s-openapi`
//! type without managedFields; the two valkey.io kinds are typed here with
//! only the fields the plugin reads (unknown fields are ignored, so a newer
//! operator's extra fields do not break reading).

mod group;
mod mirror;
mod objects;
mod spec_field;
mod view;

pub use group::{Changed, ClusterKey};
pub(crate) use group::{cluster_label, event_subjects, node_cluster};
pub use mirror::{LIVE_CONFIG_KEYS, SpecField};

pub use objects::{
    ContainerState, ContainerStatus, Deployment, DeploymentSpec, DeploymentStatus, KeptMap, Meta,
    Pod, PodCondition, PodLabels, PodStatus, StatefulSet, StatefulSetStatus,
};
pub(crate) use objects::{KeptKeys, LABELS_READ, Metadata, meta as kept_meta};
pub use view::Duplicate;
pub(crate) use view::Unread;

use k8s_openapi::api::core::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    ManagedFieldsEntry, ObjectMeta, OwnerReference, Time,
};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// API group and version of both valkey.io kinds.
pub const VALKEY_API_VERSION: &str = "valkey.io/v1alpha1";
pub(crate) const VALKEY_GROUP: &str = "valkey.io";
pub(crate) const VALKEY_VERSION: &str = "v1alpha1";

/// The latest time the plugin can hold: jiff's `Timestamp::MAX`,
/// 9999-12-30T22:00:00.999999999Z (jiff keeps 26 hours of room so that any
/// offset can be applied). The API server holds times up to
/// 9999-12-31T23:59:59.999999Z; one past this point is read as this
/// point, which is still far in the future, so every duration from it is
/// the same (nothing counts a time in the future as past). Its nanosecond
/// digits cannot come from the API (microseconds at most), so a reader
/// can tell it apart: see [`is_latest`].
pub(crate) const LATEST: jiff::Timestamp = jiff::Timestamp::MAX;

/// A time that was read as [`LATEST`] (at or after it).
pub(crate) fn is_latest(t: jiff::Timestamp) -> bool {
    t >= LATEST
}

/// An RFC 3339 time as the API writes them, including those after
/// [`LATEST`] (read as it). `None` for text that is not such a time.
pub(crate) fn parse_time(text: &str) -> Option<jiff::Timestamp> {
    match text.parse::<jiff::Timestamp>() {
        Ok(t) => Some(t),
        Err(_) => past_latest(text).then_some(LATEST),
    }
}

/// `text` is a well-formed RFC 3339 time (date, time and offset) at an
/// instant after [`LATEST`]: only the last two days of year 9999 can be,
/// so anything else is rejected before it is parsed.
fn past_latest(text: &str) -> bool {
    use jiff::fmt::temporal::{Pieces, PiecesOffset};
    if !text.starts_with("9999-12-") {
        return false;
    }
    let Ok(pieces) = Pieces::parse(text) else {
        return false;
    };
    let Some(time) = pieces.time() else {
        return false;
    };
    let offset = match pieces.offset() {
        Some(PiecesOffset::Zulu) => jiff::tz::Offset::UTC,
        Some(PiecesOffset::Numeric(n)) => n.offset(),
        _ => return false,
    };
    // The instant, in seconds from the Unix epoch, counted from the first
    // of the month (which jiff can hold) rather than through jiff.
    let date = pieces.date();
    if (date.year(), date.month()) != (9999, 12) {
        return false;
    }
    let Ok(first) = jiff::civil::date(9999, 12, 1).to_zoned(jiff::tz::TimeZone::UTC) else {
        return false;
    };
    let seconds = first.timestamp().as_second()
        + (i64::from(date.day()) - 1) * 86_400
        + i64::from(time.hour()) * 3600
        + i64::from(time.minute()) * 60
        + i64::from(time.second())
        - i64::from(offset.seconds());
    seconds > LATEST.as_second()
}

/// Some string in `value` is a time after [`LATEST`].
pub(crate) fn has_late_time(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => s.starts_with("9999-12-") && past_latest(s),
        Value::Array(items) => items.iter().any(has_late_time),
        Value::Object(map) => map.values().any(has_late_time),
        _ => false,
    }
}

/// Rewrites, in a document read from a file or the API server, every
/// string that is a time after [`LATEST`] to [`LATEST`], so that the
/// typed objects (whose times cannot hold it) read it. The cheap test
/// comes first: only text that starts with `9999-12-` is parsed.
pub(crate) fn clamp_late_times(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) if s.starts_with("9999-12-") && past_latest(s) => {
            // The API's own form (to the microsecond), which every time
            // field reads.
            *s = "9999-12-30T22:00:00.999999999Z".to_string();
        }
        Value::Array(items) => items.iter_mut().for_each(clamp_late_times),
        Value::Object(map) => map.values_mut().for_each(clamp_late_times),
        _ => {}
    }
}

/// Labels and annotations of the roll protocol (docs/protocol.md).
pub mod keys {
    pub const LABEL_CLUSTER: &str = "valkey.io/cluster";
    pub const LABEL_SHARD_INDEX: &str = "valkey.io/shard-index";
    pub const LABEL_NODE_INDEX: &str = "valkey.io/node-index";
    pub const LABEL_INSTANCE: &str = "app.kubernetes.io/instance";
    pub const LABEL_CONTROLLER_REVISION: &str = "controller-revision-hash";

    /// P1: the revision a node asks a permit for.
    pub const ANN_DESIRED: &str = "valkey.io/desired-workload-revision";
    /// P1: the permit itself (a revision hash or `*`).
    pub const ANN_PERMIT: &str = "valkey.io/allow-workload-revision";
    /// The role the operator read from the node's own server (its later
    /// versions, valkey-operator #320): `primary` or `replica`.
    pub const ANN_OBSERVED_ROLE: &str = "valkey.io/observed-role";

    /// The plugin's own trace of a grant by hand.
    pub const ANN_GRANTED_REVISION: &str = "valkey-roll.io/granted-revision";
    pub const ANN_GRANTED_BY: &str = "valkey-roll.io/granted-by";
    pub const ANN_GRANTED_AT: &str = "valkey-roll.io/granted-at";
    pub const ANN_REASON: &str = "valkey-roll.io/reason";
    /// What the servers of the node's shard said when it was granted by
    /// hand, in one line (docs/plugin.md, "Steering with the servers' word").
    pub const ANN_SERVERS: &str = "valkey-roll.io/servers";
    /// Prefix of every annotation the plugin writes (never a protocol marker).
    pub const PLUGIN_PREFIX: &str = "valkey-roll.io/";

    /// Field manager of every write the plugin sends.
    pub const FIELD_MANAGER: &str = "kubectl-valkey-roll";

    pub const COND_READY: &str = "Ready";
    pub const COND_PROGRESSING: &str = "Progressing";
    pub const COND_LIVE_CONFIG: &str = "LiveConfigApplied";
    /// P1 roll condition.
    pub const COND_DRIFT: &str = "WorkloadDrift";
    /// P2 roll condition.
    pub const COND_PENDING: &str = "WorkloadRollPending";

    pub const EVENT_PERMITTED: &str = "WorkloadRollPermitted";
    pub const EVENT_APPLIED: &str = "WorkloadRollApplied";
    pub const EVENT_NODE_UPDATED: &str = "ValkeyNodeUpdated";
    pub const EVENT_DEFERRED: &str = "WorkloadRollDeferred";
    /// The node controller deleted a superseded pod that was not Ready
    /// (valkey-operator PR #410).
    pub const EVENT_SUPERSEDED_DELETED: &str = "SupersededPodDeleted";
    /// Failover of a shard's primary before it rolls (notes name pod IPs).
    pub const EVENT_FAILOVER_INITIATED: &str = "FailoverInitiated";
    pub const EVENT_FAILOVER_COMPLETED: &str = "FailoverCompleted";
    pub const EVENT_FAILOVER_FAILED: &str = "FailoverFailed";
    pub const EVENT_FAILOVER_TIMEOUT: &str = "FailoverTimeout";
    /// The cluster controller gave a new primary its slots ("Created
    /// primary IP with slots ...").
    pub const EVENT_PRIMARY_CREATED: &str = "PrimaryCreated";
    /// A later operator holds a primary's roll back while no replica of
    /// its shard is synced (a condition reason and an event reason).
    pub const ROLL_DEFERRED: &str = "RollDeferred";
    /// The controller MEETs and REPLICATEs a rolled replica.
    pub const EVENT_REPLICA_CREATED: &str = "ReplicaCreated";
    /// The start of the ValkeyCluster's Ready=False message while a
    /// replica's link to its primary is not up.
    pub const MSG_REPLICAS_SYNC: &str = "Waiting for replicas to sync";
    /// The ValkeyCluster's Ready=False reason while it writes its nodes'
    /// specs (a roll, a creation).
    pub const REASON_UPDATING_NODES: &str = "UpdatingNodes";
    pub const EVENT_CLUSTER_MEET_BATCH: &str = "ClusterMeetBatch";
    /// Recorded on every reconcile that finds the cluster healthy: every
    /// replica in sync, every slot served.
    pub const EVENT_CLUSTER_READY: &str = "ClusterReady";
    pub const EVENT_MANUAL_GRANTED: &str = "ManualRollPermitGranted";
    pub const EVENT_MANUAL_REVOKED: &str = "ManualRollPermitRevoked";
    pub const EVENT_MANUAL_FORCED: &str = "ManualRollPermitForced";
    /// `replace-pod` deleted a superseded pod that was not Ready.
    pub const EVENT_MANUAL_SUPERSEDED_DELETED: &str = "ManualSupersededPodDeleted";
}

/// Everything read about the ValkeyClusters in view, in one go.
///
/// Every list is sorted by (namespace, name) so that two sources reading the
/// same objects give equal snapshots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub clusters: Vec<ValkeyCluster>,
    pub nodes: Vec<ValkeyNode>,
    pub stateful_sets: Vec<StatefulSet>,
    pub deployments: Vec<Deployment>,
    pub pods: Vec<Pod>,
    pub events: Vec<Event>,
    /// What the servers answered (docs/servers.md): empty when they were
    /// not read, which is not the same as read and found wanting.
    pub readings: Vec<ServerReading>,
    /// Clusters whose servers were asked for and none could be read (its
    /// Secret, TLS without a CA, the CA, no time left): no reading says
    /// so, this does. Live only: a file does not carry it.
    pub(crate) servers_not_read: Vec<ServersNotRead>,
}

/// A cluster whose servers were asked for and none could be read, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServersNotRead {
    pub namespace: String,
    pub cluster: String,
    pub why: Failure,
}

/// The kind a bundle keeps a [`ServersNotRead`] as (of
/// [`READING_API_VERSION`]), so `-f` of the bundle judges as live.
pub(crate) const NOT_READ_KIND: &str = "ServersNotRead";

/// A [`ServersNotRead`] as a bundle's item: named for the cluster, with
/// why's [`Failure::code`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ServersNotReadItem {
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub error: String,
}

impl ServersNotRead {
    pub(crate) fn item(&self) -> ServersNotReadItem {
        ServersNotReadItem {
            metadata: ObjectMeta {
                namespace: Some(self.namespace.clone()),
                name: Some(self.cluster.clone()),
                ..ObjectMeta::default()
            },
            error: self.why.code().to_string(),
        }
    }

    /// Of a bundle's item (named and namespaced: the reader saw to it); an
    /// unknown code is a bad reply, as a reading's.
    pub(crate) fn of_item(item: ServersNotReadItem) -> ServersNotRead {
        ServersNotRead {
            namespace: item.metadata.namespace.unwrap_or_default(),
            cluster: item.metadata.name.unwrap_or_default(),
            why: Failure::of_code(Some(&item.error)),
        }
    }

    /// Of a reading's account: when none of its servers could be read.
    pub(crate) fn of(account: &ClusterServers) -> Option<ServersNotRead> {
        Some(ServersNotRead {
            namespace: account.namespace.clone(),
            cluster: account.cluster.clone(),
            why: account.trouble.clone()?,
        })
    }
}

impl Snapshot {
    /// Sorts every list by (namespace, name); both sources call this last.
    pub fn normalize(&mut self) {
        // Compared on borrowed keys: a watch sorts again on every change, so
        // no string is cloned for a comparison.
        fn key(m: &impl Metadata) -> (&str, &str) {
            (
                m.ns().unwrap_or_default(),
                m.object_name().unwrap_or_default(),
            )
        }
        fn sort<T, M: Metadata>(list: &mut [T], meta: impl Fn(&T) -> &M) {
            list.sort_by(|a, b| key(meta(a)).cmp(&key(meta(b))));
        }
        sort(&mut self.clusters, |o| &o.metadata);
        sort(&mut self.nodes, |o| &o.metadata);
        sort(&mut self.stateful_sets, |o| &o.metadata);
        sort(&mut self.deployments, |o| &o.metadata);
        sort(&mut self.pods, |o| &o.metadata);
        sort(&mut self.events, |o| &o.metadata);
        // Several readings of one pod (a bundle over time) stay, oldest
        // first: the classifier takes the newest.
        self.readings.sort_by(|a, b| {
            key(&a.metadata)
                .cmp(&key(&b.metadata))
                .then(a.observed_at.cmp(&b.observed_at))
        });
        self.servers_not_read
            .sort_by(|a, b| (&a.namespace, &a.cluster).cmp(&(&b.namespace, &b.cluster)));
        self.servers_not_read
            .dedup_by(|a, b| a.namespace == b.namespace && a.cluster == b.cluster);
    }

    /// Appends every object of `other` (not sorted again).
    pub(crate) fn extend(&mut self, other: Snapshot) {
        self.clusters.extend(other.clusters);
        self.nodes.extend(other.nodes);
        self.stateful_sets.extend(other.stateful_sets);
        self.deployments.extend(other.deployments);
        self.pods.extend(other.pods);
        self.events.extend(other.events);
        self.readings.extend(other.readings);
        self.servers_not_read.extend(other.servers_not_read);
    }

    /// Keeps only the objects of one namespace.
    pub(crate) fn retain_namespace(&mut self, namespace: &str) {
        fn keep(m: &impl Metadata, namespace: &str) -> bool {
            m.ns().unwrap_or("") == namespace
        }
        self.clusters.retain(|o| keep(&o.metadata, namespace));
        self.nodes.retain(|o| keep(&o.metadata, namespace));
        self.stateful_sets.retain(|o| keep(&o.metadata, namespace));
        self.deployments.retain(|o| keep(&o.metadata, namespace));
        self.pods.retain(|o| keep(&o.metadata, namespace));
        self.events.retain(|o| keep(&o.metadata, namespace));
        self.readings.retain(|o| keep(&o.metadata, namespace));
        self.servers_not_read.retain(|o| o.namespace == namespace);
    }

    /// Keeps only the ValkeyNodes of the ValkeyCluster `cluster`
    /// ([`ValkeyNode::cluster_name`]): the LIST of nodes is not selected by
    /// label, so that a node that lost its label is still found by its
    /// owner reference.
    pub(crate) fn retain_nodes_of(&mut self, cluster: &str) {
        self.nodes.retain(|n| n.cluster_name() == Some(cluster));
    }
}

/// A `metav1.Condition` as the valkey.io kinds carry it. Every field but
/// `type` and `status` is optional here, so a hand-written object still reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

impl Condition {
    pub fn is_true(&self) -> bool {
        self.status == "True"
    }
    pub(crate) fn is_false(&self) -> bool {
        self.status == "False"
    }
    /// Written for the object's `generation` (a condition that does not
    /// say which generation it observed counts as current).
    pub(crate) fn is_for_generation(&self, generation: Option<i64>) -> bool {
        self.observed_generation.is_none() || self.observed_generation == generation
    }
}

/// The times of the managedFields entries that own the field at `path`
/// (`["f:spec", "f:workloadRevision"]`): when a manager last wrote it, at
/// most (an entry's time moves with any field its manager writes).
pub(crate) fn field_written_times<'m>(
    meta: &'m NodeMeta,
    path: &'static [&'static str],
) -> impl Iterator<Item = jiff::Timestamp> + 'm {
    meta.managed_fields
        .iter()
        .flatten()
        .filter(move |e| e.fields_v1.as_ref().is_some_and(|f| owns(&f.0, path)))
        .filter_map(|e| e.time.as_ref().map(|t| t.0))
}

/// The `fieldsV1` paths a slimmed ValkeyNode's managedFields entries keep
/// (`source::slim::node`): the permit's (P1's annotation, P2's spec field)
/// and `status.role`. A slimmed entry keeps, of its `fieldsV1`, only which
/// of these it owns: bit `i` of a number for `OWNED_KEPT[i]`, so that ten
/// thousand nodes do not each hold two or three one-key JSON maps (a map
/// of serde_json is a B-tree leaf of some 600 bytes).
pub(crate) const OWNED_KEPT: [&[&str]; 3] = [
    &["f:metadata", "f:annotations", OWNED_PERMIT],
    &["f:spec", "f:workloadRevision"],
    &["f:status", "f:role"],
];

/// The permit annotation's key in `fieldsV1`.
const OWNED_PERMIT: &str = "f:valkey.io/allow-workload-revision";

/// Whether a managedFields entry's `fieldsV1` owns the field at `path` (or
/// a field under it): the path walked in the API's form (a JSON object
/// per step), or looked up in a slimmed entry's number ([`OWNED_KEPT`]).
/// Both forms give the same answer for every path of the kept ones.
pub(crate) fn owns<S: AsRef<str>>(fields: &serde_json::Value, path: &[S]) -> bool {
    if let Some(bits) = fields.as_u64() {
        return path.is_empty()
            || OWNED_KEPT.iter().enumerate().any(|(i, kept)| {
                bits & (1 << i) != 0
                    && kept.len() >= path.len()
                    && kept.iter().zip(path).all(|(k, p)| *k == p.as_ref())
            });
    }
    let mut v = Some(fields);
    for step in path {
        v = v.and_then(|x| x.get(step.as_ref()));
    }
    v.is_some()
}

/// Finds a condition by type.
pub fn condition<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// `valkey.io/v1alpha1` ValkeyCluster: only what the plugin reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ValkeyCluster {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ValkeyClusterSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ValkeyClusterStatus>,
}

/// What the plugin reads of a ValkeyCluster's spec: its size, and every
/// field the cluster controller mirrors into each node's spec
/// ([`ValkeyCluster::spec_differs`]); a node whose copy differs is *behind*
/// (docs/plugin.md, Behind).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValkeyClusterSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Shards asked for, and replicas per shard: a cluster with fewer
    /// nodes is being created, or scaled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_type: Option<String>,
    // The rest of what the operator mirrors into each node's spec
    // ([`SpecField`]), kept as read: compared semantically, never shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_pull_secrets: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exporter: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistence: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containers: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub networking: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_security_context: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValkeyClusterStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_shards: Option<i64>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

impl ValkeyCluster {
    pub fn conditions(&self) -> &[Condition] {
        self.status
            .as_ref()
            .map(|s| s.conditions.as_slice())
            .unwrap_or(&[])
    }

    /// When its spec was last edited: the newest time of a managedFields
    /// entry that owns part of `spec` (status entries never do). None
    /// without managedFields.
    pub fn spec_edited_at(&self) -> Option<jiff::Timestamp> {
        self.metadata
            .managed_fields
            .iter()
            .flatten()
            .filter(|e| e.subresource.as_deref().is_none_or(str::is_empty))
            .filter(|e| {
                e.fields_v1
                    .as_ref()
                    .is_some_and(|f| f.0.get("f:spec").is_some())
            })
            .filter_map(|e| e.time.as_ref().map(|t| t.0))
            .max()
    }
}

/// `valkey.io/v1alpha1` ValkeyNode: only what the plugin reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ValkeyNode {
    #[serde(default)]
    pub metadata: NodeMeta,
    #[serde(default)]
    pub spec: ValkeyNodeSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ValkeyNodeStatus>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValkeyNodeSpec {
    /// P2: the revision the cluster controller authorises.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_revision: Option<String>,
    /// `StatefulSet` (default) or `Deployment`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_type: Option<String>,
    /// The server image, copied from the ValkeyCluster when the walk
    /// reaches the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    // The rest of what the cluster controller mirrors from the
    // ValkeyCluster ([`SpecField`]), kept as read. Boxed: most are absent,
    // and ten thousand nodes each held fourteen inline JSON values' room
    // (448 bytes a node; issue 33).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_pull_secrets: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistence: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerations: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_spread_constraints: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exporter: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containers: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_security_context: Option<Box<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<Box<serde_json::Value>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValkeyNodeStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_ip: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// The revision whose rollout last completed (docs/protocol.md, lastRolloutHash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_rollout_hash: Option<String>,
}

/// What kind of workload runs a node's pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WorkloadKind {
    StatefulSet,
    Deployment,
}

/// The labels read of a ValkeyNode: its cluster, and its shard and index
/// (the spec it mirrors, `snapshot::mirror`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeLabels;

impl KeptKeys for NodeLabels {
    const KEYS: &'static [&'static str] = &[
        keys::LABEL_CLUSTER,
        keys::LABEL_SHARD_INDEX,
        keys::LABEL_NODE_INDEX,
    ];
}

/// The annotations read of a ValkeyNode: P1's two, a later operator's
/// observed role, and the plugin's trace of a grant by hand. Nothing reads
/// a node's annotations but by one of these keys (`ValkeyNode::annotation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeAnnotations;

impl KeptKeys for NodeAnnotations {
    const KEYS: &'static [&'static str] = &[
        keys::ANN_DESIRED,
        keys::ANN_PERMIT,
        keys::ANN_OBSERVED_ROLE,
        keys::ANN_GRANTED_REVISION,
        keys::ANN_GRANTED_BY,
        keys::ANN_GRANTED_AT,
        keys::ANN_REASON,
        keys::ANN_SERVERS,
    ];
}

/// A ValkeyNode's metadata as the snapshot keeps it: a k8s-openapi
/// `ObjectMeta`'s fields the plugin reads, of its labels those of
/// [`NodeLabels`] and of its annotations those of [`NodeAnnotations`] (the
/// others are read, as strings, and dropped). Its own type for both: a
/// B-tree's first leaf is 544 bytes however few entries it holds, and the
/// operator gives each node eight labels (issue 33).
/// Finalizers, `generateName` and the like are not read, nor checked.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeMeta {
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
    pub labels: KeptMap<NodeLabels>,
    #[serde(skip_serializing_if = "KeptMap::is_empty")]
    pub annotations: KeptMap<NodeAnnotations>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<OwnerReference>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub managed_fields: Option<Vec<ManagedFieldsEntry>>,
}

impl Metadata for NodeMeta {
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

impl ValkeyNode {
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or("")
    }
    pub fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or("")
    }
    pub(crate) fn label(&self, key: &str) -> Option<&str> {
        self.metadata.labels.get(key)
    }
    pub(crate) fn annotation(&self, key: &str) -> Option<&str> {
        self.metadata.annotations.get(key)
    }
    pub(crate) fn cluster_label(&self) -> Option<&str> {
        self.label(keys::LABEL_CLUSTER)
    }
    /// The cluster the node belongs to: the one its `valkey.io/cluster`
    /// label names, else the ValkeyCluster its controller owner reference
    /// names (a hand-edit can drop the label; the owner still holds).
    pub(crate) fn cluster_name(&self) -> Option<&str> {
        self.cluster_label()
            .filter(|l| !l.is_empty())
            .or_else(|| self.controller_cluster())
    }
    /// It belongs to its cluster by its owner reference alone (no label).
    pub(crate) fn in_cluster_by_owner(&self) -> bool {
        self.cluster_label().is_none_or(str::is_empty) && self.controller_cluster().is_some()
    }
    pub fn conditions(&self) -> &[Condition] {
        self.status
            .as_ref()
            .map(|s| s.conditions.as_slice())
            .unwrap_or(&[])
    }
    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        condition(self.conditions(), type_)
    }
    /// The name of the ValkeyCluster that controls this node, when one does
    /// (owner reference of kind ValkeyCluster with `controller: true`).
    pub(crate) fn controller_cluster(&self) -> Option<&str> {
        self.metadata
            .owner_references
            .as_ref()?
            .iter()
            .find(|o| o.kind == "ValkeyCluster" && o.controller == Some(true))
            .map(|o| o.name.as_str())
    }
    pub(crate) fn workload_kind(&self) -> WorkloadKind {
        match self.spec.workload_type.as_deref() {
            Some("Deployment") => WorkloadKind::Deployment,
            _ => WorkloadKind::StatefulSet,
        }
    }
    /// The workload is named `valkey-<node name>`.
    pub(crate) fn workload_name(&self) -> String {
        format!("valkey-{}", self.name())
    }
}

impl ValkeyCluster {
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or("")
    }
    pub fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or("")
    }
}

macro_rules! valkey_resource {
    ($ty:ty, $kind:literal, $plural:literal) => {
        impl kube::Resource for $ty {
            type DynamicType = ();
            type Scope = kube::core::NamespaceResourceScope;

            fn kind(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($kind)
            }
            fn group(_: &()) -> Cow<'_, str> {
                Cow::Borrowed(VALKEY_GROUP)
            }
            fn version(_: &()) -> Cow<'_, str> {
                Cow::Borrowed(VALKEY_VERSION)
            }
            fn plural(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($plural)
            }
            fn meta(&self) -> &ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

valkey_resource!(ValkeyCluster, "ValkeyCluster", "valkeyclusters");

/// The ValkeyNodes' API resource. Not a `kube::Resource` of
/// [`ValkeyNode`]: that needs a k8s-openapi `ObjectMeta`, and a node keeps
/// its own ([`NodeMeta`]).
pub(crate) fn node_api_resource() -> kube::core::ApiResource {
    kube::core::ApiResource {
        group: VALKEY_GROUP.into(),
        version: VALKEY_VERSION.into(),
        api_version: VALKEY_API_VERSION.into(),
        kind: "ValkeyNode".into(),
        plural: "valkeynodes".into(),
    }
}

/// API group and version of the plugin's own kind, [`ServerReading`].
pub const READING_API_VERSION: &str = "valkey-roll.io/v1alpha1";
pub(crate) const READING_GROUP: &str = "valkey-roll.io";
pub(crate) const READING_KIND: &str = "ServerReading";

/// What one Valkey server answered (docs/servers.md), read-only: its
/// role and replication link (INFO replication), its `myself` line of
/// CLUSTER NODES and `cluster_state` (CLUSTER INFO). `metadata` names the
/// pod it runs in. There is no password here, and never will be: a
/// reading holds answers, not how they were asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerReading {
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The ValkeyNode, when known.
    #[serde(default)]
    pub node: Option<String>,
    /// When the server answered; a reading without a time cannot be
    /// weighed against the API's evidence, so the reader requires it.
    pub observed_at: Time,
    #[serde(default)]
    pub address: Option<String>,
    /// CLUSTER NODES' myself id.
    #[serde(default)]
    pub node_id: Option<String>,
    /// INFO replication's role (`master` is `primary`, `slave` `replica`).
    #[serde(default)]
    pub role: Option<ServerRole>,
    /// A replica's `master_host:master_port`.
    #[serde(default)]
    pub primary_address: Option<String>,
    /// A replica's `master_link_status`.
    #[serde(default)]
    pub link: Option<LinkStatus>,
    /// A replica's `master_sync_in_progress`; None when not said.
    #[serde(default)]
    pub syncing: Option<bool>,
    /// The flags of CLUSTER NODES' myself line.
    #[serde(default)]
    pub flags: Vec<String>,
    /// CLUSTER INFO's `cluster_state` (`ok`, `fail`).
    #[serde(default)]
    pub cluster_state: Option<String>,
    /// Why the server could not be read; None: it was.
    #[serde(default)]
    pub error: Option<String>,
    /// INFO replication's offset: a primary's `master_repl_offset`, a
    /// replica's `slave_repl_offset` (how far it has applied its primary's
    /// stream). Their gap is a synced replica's lag in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repl_offset: Option<u64>,
}

impl ServerReading {
    /// Two readings of a cluster's servers (each sorted by pod) say the
    /// same: they differ at most in when they were taken. A reading's time
    /// alone is no news, so a cluster is not judged again for it.
    pub(crate) fn all_say_the_same(before: &[ServerReading], now: &[ServerReading]) -> bool {
        before.len() == now.len()
            && before.iter().zip(now).all(|(b, n)| {
                // Offsets move with every write a primary takes: news only
                // to a plan, which reads the servers itself.
                ServerReading {
                    observed_at: n.observed_at.clone(),
                    repl_offset: n.repl_offset,
                    ..b.clone()
                } == *n
            })
    }
}

/// A server's role as INFO replication says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerRole {
    Primary,
    Replica,
}

/// A replica's replication link (`master_link_status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkStatus {
    Up,
    Down,
}

// What reading the servers live gave, beside the readings
// (source/servers.rs reads; render/notice.rs words it).

/// The port every Valkey server of the operator listens on.
pub(crate) const VALKEY_PORT: u16 = 6379;
/// The operator's read-only ACL user (c33988f, internal/controller/users.go).
pub(crate) const EXPORTER_USER: &str = "_exporter";

/// The Secret that holds the system users' passwords.
pub(crate) fn secret_name(cluster: &str) -> String {
    format!("internal-{cluster}-system-passwords")
}

/// Why a server (or every server of a cluster) could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// Reading the Secret, a port-forward, or a command was refused.
    Forbidden,
    /// No Secret, or no `_exporter` key in it (the exporter is off).
    NoReadOnlyUser,
    /// The server refused the password.
    AuthRefused,
    /// No connection (nothing listens, no pod IP, the port-forward failed).
    Unreachable,
    /// The server did not answer within [`Bounds::per_server`].
    TimedOut,
    /// A reply longer than [`Bounds::reply_bytes`].
    TooLarge,
    /// Something that is not the answer of a Valkey server.
    BadReply,
    /// The server closed the connection before it answered.
    ClosedEarly,
    /// The cluster's servers speak TLS only (`spec.networking.tls`) and no
    /// CA was given to verify them (`--servers-ca`, `--servers-ca-configmap`):
    /// none is dialled.
    Tls,
    /// The server's TLS handshake failed: it was not verified by the CA
    /// given, or did not speak TLS. Nothing falls back to plain text.
    TlsRefused(TlsRefusal),
    /// The CA given for a TLS cluster could not be had: none of its servers
    /// is dialled.
    CaUnread(CaTrouble),
}

/// Why a TLS handshake with a server failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TlsRefusal {
    /// Its certificate is not signed by the CA given.
    UnknownIssuer,
    /// Its certificate is not for `valkey-<cluster>.<namespace>.svc.cluster.local`.
    WrongName,
    /// Its certificate is expired (or not valid yet).
    Expired,
    /// What came back was not TLS (a plain-text server on the port).
    NotTls,
    /// Any other handshake failure (an alert, a malformed or oversized
    /// handshake message).
    Other,
}

impl TlsRefusal {
    pub(crate) const ALL: [TlsRefusal; 5] = [
        TlsRefusal::UnknownIssuer,
        TlsRefusal::WrongName,
        TlsRefusal::Expired,
        TlsRefusal::NotTls,
        TlsRefusal::Other,
    ];
}

/// Why the CA given for a TLS cluster could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CaTrouble {
    /// Reading the ConfigMap was refused.
    Forbidden,
    /// No such file, ConfigMap or key, or the API server was not reached.
    Missing,
    /// No PEM certificate in it (or more than the bound of bytes).
    NotPem,
}

impl Failure {
    /// The value of a reading's `error` field (docs/servers.md): a code,
    /// as a snapshot file carries it.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Failure::Forbidden => "forbidden",
            Failure::NoReadOnlyUser => "no read-only user",
            Failure::AuthRefused => "auth refused",
            Failure::Unreachable => "unreachable",
            Failure::TimedOut => "timed out",
            Failure::TooLarge => "reply too large",
            Failure::BadReply => "bad reply",
            Failure::ClosedEarly => "closed early",
            Failure::Tls => "tls",
            Failure::TlsRefused(why) => match why {
                TlsRefusal::UnknownIssuer => "tls refused: unknown issuer",
                TlsRefusal::WrongName => "tls refused: wrong name",
                TlsRefusal::Expired => "tls refused: expired",
                TlsRefusal::NotTls => "tls refused: not tls",
                TlsRefusal::Other => "tls refused",
            },
            Failure::CaUnread(why) => match why {
                CaTrouble::Forbidden => "ca unread: forbidden",
                CaTrouble::Missing => "ca unread: missing",
                CaTrouble::NotPem => "ca unread: not pem",
            },
        }
    }

    /// Every failure, for reading a code back ([`Failure::of_code`]).
    pub(crate) fn all() -> Vec<Failure> {
        let mut all = vec![
            Failure::Forbidden,
            Failure::NoReadOnlyUser,
            Failure::AuthRefused,
            Failure::Unreachable,
            Failure::TimedOut,
            Failure::TooLarge,
            Failure::BadReply,
            Failure::ClosedEarly,
            Failure::Tls,
        ];
        all.extend(TlsRefusal::ALL.map(Failure::TlsRefused));
        all.extend(
            [CaTrouble::Forbidden, CaTrouble::Missing, CaTrouble::NotPem].map(Failure::CaUnread),
        );
        all
    }

    /// The failure whose [`Failure::code`] is `code`; an unknown code is a
    /// bad reply.
    pub(crate) fn of_code(code: Option<&str>) -> Failure {
        Failure::all()
            .into_iter()
            .find(|f| Some(f.code()) == code)
            .unwrap_or(Failure::BadReply)
    }
}

/// What reading one cluster's servers gave, beside its readings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ClusterServers {
    pub namespace: String,
    pub cluster: String,
    /// Why none could be read (the Secret), if so.
    pub trouble: Option<Failure>,
    /// Servers read, and servers that failed, by the first failure's kind.
    pub read: usize,
    pub failed: Vec<(String, Failure)>,
}

impl ServerReading {
    pub fn pod(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or("")
    }
    pub fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or("")
    }
}

impl kube::Resource for ServerReading {
    type DynamicType = ();
    type Scope = kube::core::NamespaceResourceScope;

    fn kind(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(READING_KIND)
    }
    fn group(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(READING_GROUP)
    }
    fn version(_: &()) -> Cow<'_, str> {
        Cow::Borrowed(VALKEY_VERSION)
    }
    fn plural(_: &()) -> Cow<'_, str> {
        Cow::Borrowed("serverreadings")
    }
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// `explain` reads at most this many lines of a previous container's log,
/// the last ones (`tailLines`).
pub(crate) const LOG_TAIL_LINES: usize = 20;

/// ... and at most this many bytes (`limitBytes`, 16 KiB): twenty lines of
/// a server's log are far less; a container that writes longer lines has
/// its last lines cut (the kubelet counts the bytes from the first of the
/// tail lines), and `explain` says so.
pub(crate) const LOG_LIMIT_BYTES: usize = 16 * 1024;

/// What reading the previous container's log of a pod's failing container
/// gave (`pods/log` with `previous=true`): `explain`'s "Last words". Read
/// data only; `render::explain` words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PreviousLog {
    /// The last lines, oldest first, as read (not yet cleaned).
    /// `cut`: the answer reached the byte limit, so the lines end early.
    Lines { lines: Vec<String>, cut: bool },
    /// The snapshot came from a file: there is no log to read.
    Offline,
    /// The container has not terminated before: there is no previous log.
    NoPrevious,
    /// `get` on `pods/log` is forbidden (403).
    Forbidden,
    /// The log is gone: the pod, or its previous container, is no longer
    /// there (404, or 400 "previous terminated container ... not found").
    Gone(String),
    /// Any other failure, in the API server's or the client's words.
    Failed(String),
}

/// The valkey-operator's leader-election ID (its `cmd/main.go`): the name
/// of the Lease that says which operator leads.
pub(crate) const LEASE_NAME: &str = "73d40801.valkey.io";

/// The operator's leader-election Lease, as read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperatorLease {
    pub namespace: String,
    pub holder: Option<String>,
    pub renewed_at: Option<jiff::Timestamp>,
}

/// What reading the operator's leader-election Lease gave (`explain`, when
/// the operator looks silent). Read data only; `render::explain` words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LeaseRead {
    Read(OperatorLease),
    /// `get` on leases in that namespace is forbidden (403).
    Forbidden {
        namespace: String,
    },
    /// No such Lease there: the operator runs elsewhere, or without
    /// leader election.
    NotFound {
        namespace: String,
    },
    /// A snapshot file holds no Lease.
    Offline,
    Failed(String),
}

#[cfg(test)]
mod time_tests {
    use super::*;

    #[test]
    fn every_time_the_api_can_hold_is_read() {
        // (case, text, read as: None = not a time, Some(None) = LATEST,
        // Some(Some(t)) = t)
        let cases: &[(&str, &str, Option<Option<&str>>)] = &[
            (
                "ordinary",
                "2026-11-29T10:16:11Z",
                Some(Some("2026-11-29T10:16:11Z")),
            ),
            (
                "the Go zero time",
                "0001-01-01T00:00:00Z",
                Some(Some("0001-01-01T00:00:00Z")),
            ),
            (
                "the latest jiff holds",
                "9999-12-30T22:00:00Z",
                Some(Some("9999-12-30T22:00:00Z")),
            ),
            ("one second later", "9999-12-30T22:00:01Z", Some(None)),
            ("the API's last second", "9999-12-31T23:59:59Z", Some(None)),
            ("microseconds", "9999-12-31T23:59:59.999999Z", Some(None)),
            ("a numeric offset", "9999-12-31T23:59:59+00:00", Some(None)),
            (
                "an offset that brings it back",
                "9999-12-31T12:00:00+14:00",
                Some(Some("9999-12-30T22:00:00Z")),
            ),
            ("a negative offset", "9999-12-31T23:59:59-05:00", Some(None)),
            ("lower-case t and z", "9999-12-31t23:59:59z", Some(None)),
            ("no offset", "9999-12-31T23:59:59", None),
            ("a date only", "9999-12-31", None),
            ("day 32", "9999-12-32T00:00:00Z", None),
            ("hour 24", "9999-12-31T24:00:00Z", None),
            ("year 10000", "10000-01-01T00:00:00Z", None),
            ("words", "yesterday", None),
            ("empty", "", None),
        ];
        for (name, text, want) in cases {
            let got = parse_time(text);
            let want = want.map(|t| t.map_or(LATEST, |t| t.parse().expect("a time")));
            assert_eq!(got, want, "{name}");
            let mut value = serde_json::json!({"a": [{"t": text}]});
            let late = want == Some(LATEST) && !text.starts_with("9999-12-30T22:00:00");
            assert_eq!(has_late_time(&value), late, "{name}");
            clamp_late_times(&mut value);
            let after = value["a"][0]["t"].as_str().unwrap_or_default().to_string();
            if late {
                assert_eq!(
                    after.parse::<jiff::Timestamp>().ok(),
                    Some(LATEST),
                    "{name}"
                );
            } else {
                assert_eq!(after, *text, "{name}: unchanged");
            }
        }
        assert!(is_latest(LATEST));
        assert!(!is_latest("9999-12-30T22:00:00Z".parse().expect("a time")));
    }
}

#[cfg(test)]
mod owns_tests {
    use super::{OWNED_KEPT, OWNED_PERMIT, keys, owns};
    use serde_json::json;

    #[test]
    fn a_slimmed_entry_owns_what_the_apis_form_owns() {
        assert_eq!(OWNED_PERMIT, format!("f:{}", keys::ANN_PERMIT));
        let api = json!({
            "f:metadata": {"f:annotations": {OWNED_PERMIT: {}}, "f:labels": {"f:a": {}}},
            "f:status": {"f:role": {}, "f:ready": {}},
        });
        let slim = json!(0b101);
        let mut paths: Vec<Vec<&str>> = vec![
            vec!["f:spec"],
            vec!["f:metadata", "f:annotations", "f:other"],
            vec!["f:status", "f:role", "."],
        ];
        for kept in OWNED_KEPT {
            for n in 1..=kept.len() {
                paths.push(kept[..n].to_vec());
            }
        }
        for path in paths {
            assert_eq!(owns(&slim, &path), owns(&api, &path), "{path:?}");
        }
        assert!(owns(&slim, &["f:status"]) && !owns(&slim, &["f:spec"]));
        let none: [&str; 0] = [];
        assert!(owns(&json!(0), &none) && owns(&json!({}), &none));
    }
}

#[cfg(test)]
mod node_spec_tests {
    use super::ValkeyNode;
    use serde_json::json;

    /// The mirrored spec fields read as before, boxed: each kept as read,
    /// the absent ones as none, and the spec some fourteen pointers, not
    /// fourteen inline JSON values (issue 33).
    #[test]
    fn a_nodes_mirrored_fields_read_boxed() {
        let node: ValkeyNode = serde_json::from_value(json!({
            "metadata": {"name": "cache-0-0"},
            "spec": {"image": "valkey:9", "resources": {"limits": {"memory": "1Gi"}},
                     "config": {"hz": "20"}, "tls": null},
        }))
        .expect("a node");
        let s = &node.spec;
        assert_eq!(s.image.as_deref(), Some("valkey:9"));
        assert_eq!(
            s.resources.as_deref(),
            Some(&json!({"limits": {"memory": "1Gi"}}))
        );
        assert_eq!(s.config.as_deref(), Some(&json!({"hz": "20"})));
        assert_eq!((s.tls.as_deref(), s.affinity.as_deref()), (None, None));
        assert!(std::mem::size_of_val(s) <= 200);
    }
}
