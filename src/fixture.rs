//! Test-only builders that make realistic objects into a [`Snapshot`], so a
//! unit test reads like the scenario it checks:
//!
//! ```ignore
//! use crate::fixture::{self, t};
//! let s = fixture::cluster("prod", "cache")
//!     .ready_for_generation()
//!     .node(fixture::node("cache-0-1").replica().shard(0, 1).ready().pod_ready().sts_rolled_out())
//!     .node(fixture::node("cache-0-0").primary().shard(0, 0).ready().pod_ready().sts_rolled_out()
//!         .permit("h1").pod_waiting("CrashLoopBackOff", 7))
//!     .event(fixture::event_permitted("prod", "cache", "cache-0-0", "h1", t(-600)))
//!     .snapshot();
//! ```
//!
//! Conventions:
//! - Times are offsets from a fixed instant, [`BASE`] (`t(secs)`, `mins(m)`);
//!   tests pass their own `now`, usually `t(0)` or later.
//! - A [`ClusterBuilder`] owns its nodes; at [`ClusterBuilder::snapshot`] every
//!   node gets the namespace, the `valkey.io/cluster` label and (unless
//!   `.standalone()`) the operator's `app.kubernetes.io/*` labels and a
//!   controlling ValkeyCluster owner reference, and every workload and pod
//!   gets the labels the operator writes (PROTOCOL.md; the recordings in
//!   ../shared/recordings). Node shard/index labels are only set by
//!   `.shard(s, n)` (and then copied to the workload and pod), so a test can
//!   exercise the name fallback.
//! - Strings (condition reasons and messages, event notes, actions and
//!   reporting components) are the operator's, as the recordings show
//!   them; P1-only ones as PROTOCOL.md and PR #338's first commit write
//!   them.
//! - Write-by-write replays keep one builder and change it in place:
//!   `c.with_node("cache-0-1", |n| n.permit("h"))`, `c.with(|c| c.updating_nodes(t(5)))`,
//!   then take `c.snapshot()` after every write.
//! - A pod appears only when a `pod_*` helper is called. A StatefulSet pod's
//!   `controller-revision-hash` is the StatefulSet's `status.updateRevision`
//!   at snapshot time unless `.pod_revision(rev)` says otherwise.
//! - Events come in the events.k8s.io/v1 view (`eventTime` only) by default;
//!   [`legacy`] turns one into the old `firstTimestamp`/`lastTimestamp` form
//!   and [`repeated`] adds a `series.lastObservedTime`.

use crate::snapshot::{
    Condition, Snapshot, ValkeyCluster, ValkeyClusterStatus, ValkeyNode, ValkeyNodeStatus, keys,
};
use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::apps::v1::{
    Deployment, DeploymentCondition, DeploymentSpec, DeploymentStatus, StatefulSet,
    StatefulSetSpec, StatefulSetStatus,
};
use k8s_openapi::api::core::v1::{
    ContainerState, ContainerStateRunning, ContainerStateTerminated, ContainerStateWaiting,
    ContainerStatus, Event, EventSeries, ObjectReference, Pod, PodCondition, PodStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    FieldsV1, ManagedFieldsEntry, MicroTime, ObjectMeta, OwnerReference, Time,
};
use std::collections::BTreeMap;

/// The fixed instant every fixture time is measured from.
pub(crate) const BASE: &str = "2026-11-29T10:00:00Z";

/// [`BASE`] plus `secs` seconds (negative: before it).
pub(crate) fn t(secs: i64) -> Timestamp {
    let base: Timestamp = BASE.parse().unwrap_or(Timestamp::UNIX_EPOCH);
    base.checked_add(SignedDuration::from_secs(secs))
        .unwrap_or(base)
}

/// [`BASE`] plus `m` minutes.
pub(crate) fn mins(m: i64) -> Timestamp {
    t(m * 60)
}

/// Long before any fixture's action: the time of "it has been like this for ages".
pub(crate) fn long_ago() -> Timestamp {
    t(-86_400)
}

/// The container name every fixture pod uses.
pub(crate) const CONTAINER: &str = "server";

fn time(ts: Timestamp) -> Time {
    Time(ts)
}

fn set_condition(conditions: &mut Vec<Condition>, c: Condition) {
    conditions.retain(|x| x.type_ != c.type_);
    conditions.push(c);
}

fn cond(
    type_: &str,
    status: &str,
    reason: Option<&str>,
    message: Option<String>,
    ltt: Option<Timestamp>,
) -> Condition {
    Condition {
        type_: type_.to_string(),
        status: status.to_string(),
        reason: reason.map(str::to_string),
        message,
        last_transition_time: ltt.map(time),
        observed_generation: None,
    }
}

// ----------------------------------------------------------------------------
// Clusters
// ----------------------------------------------------------------------------

/// A ValkeyCluster with its nodes and events, built into a [`Snapshot`].
#[derive(Clone, Debug, Default)]
pub(crate) struct ClusterBuilder {
    pub cluster: ValkeyCluster,
    /// False: the ValkeyCluster object is left out (nodes only name it).
    pub present: bool,
    pub nodes: Vec<NodeBuilder>,
    pub events: Vec<Event>,
}

/// A ValkeyCluster `name` in `namespace`, generation 1, no status yet.
pub(crate) fn cluster(namespace: &str, name: &str) -> ClusterBuilder {
    ClusterBuilder {
        cluster: ValkeyCluster {
            metadata: ObjectMeta {
                name: Some(name.to_string()),
                namespace: Some(namespace.to_string()),
                uid: Some(format!("uid-vc-{name}")),
                generation: Some(1),
                resource_version: Some("100".to_string()),
                ..Default::default()
            },
            ..Default::default()
        },
        present: true,
        nodes: Vec::new(),
        events: Vec::new(),
    }
}

impl ClusterBuilder {
    fn name(&self) -> String {
        self.cluster.name().to_string()
    }
    fn namespace(&self) -> String {
        self.cluster.namespace().to_string()
    }
    fn status(&mut self) -> &mut ValkeyClusterStatus {
        self.cluster.status.get_or_insert_with(Default::default)
    }
    fn generation_now(&self) -> i64 {
        self.cluster.metadata.generation.unwrap_or(1)
    }

    /// State Ready/ClusterHealthy; Ready=True (ClusterHealthy, "Cluster is
    /// healthy") and Progressing=False (ReconcileComplete, "No changes
    /// needed") for the current generation, since long ago: the words of
    /// the operator's healthy reconcile.
    pub fn ready_for_generation(self) -> Self {
        self.ready_for_generation_since(long_ago())
    }

    /// As [`Self::ready_for_generation`], Ready since `since`.
    pub fn ready_for_generation_since(self, since: Timestamp) -> Self {
        self.roll_status(
            ("Ready", Some("ClusterHealthy"), "Cluster is healthy"),
            ("True", "ClusterHealthy", "Cluster is healthy"),
            ("False", "ReconcileComplete", "No changes needed"),
            since,
        )
    }

    /// `status.state`, `status.reason` and `status.message`, and the Ready
    /// and Progressing conditions (status, reason, message) for the current
    /// generation, since `since`.
    fn roll_status(
        mut self,
        (state, reason, message): (&str, Option<&str>, &str),
        ready: (&str, &str, &str),
        progressing: (&str, &str, &str),
        since: Timestamp,
    ) -> Self {
        let g = self.generation_now();
        let st = self.status();
        st.state = Some(state.to_string());
        st.reason = reason.map(str::to_string);
        st.message = Some(message.to_string());
        for (type_, (status, why, what)) in [
            (keys::COND_READY, ready),
            (keys::COND_PROGRESSING, progressing),
        ] {
            let mut c = cond(
                type_,
                status,
                Some(why),
                Some(what.to_string()),
                Some(since),
            );
            c.observed_generation = Some(g);
            set_condition(&mut st.conditions, c);
        }
        self
    }

    /// Someone edited the spec: generation moves past the conditions'.
    pub fn spec_edited(mut self) -> Self {
        let g = self.generation_now();
        self.cluster.metadata.generation = Some(g + 1);
        self
    }

    /// `spec.image`, as created (nothing edited).
    pub fn image(mut self, image: &str) -> Self {
        self.cluster.spec.image = Some(image.to_string());
        self
    }

    /// Someone edits `spec.image` at `at` (`kubectl patch`): the generation
    /// moves and a managedFields entry owning `f:spec.f:image` records when.
    pub fn image_edited(self, image: &str, at: Timestamp) -> Self {
        let mut c = self.spec_edited().image(image);
        let entry = k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry {
            api_version: Some(crate::snapshot::VALKEY_API_VERSION.to_string()),
            fields_type: Some("FieldsV1".to_string()),
            fields_v1: Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1(
                serde_json::json!({"f:spec": {"f:image": {}}}),
            )),
            manager: Some("kubectl-patch".to_string()),
            operation: Some("Update".to_string()),
            subresource: None,
            time: Some(Time(at)),
        };
        c.cluster
            .metadata
            .managed_fields
            .get_or_insert_with(Vec::new)
            .push(entry);
        c
    }

    /// State Reconciling/UpdatingNodes; Ready=False and Progressing=True
    /// (reason UpdatingNodes, message "Updating ValkeyNodes") for the
    /// current generation, since `since`.
    pub fn updating_nodes(self, since: Timestamp) -> Self {
        self.roll_status(
            ("Reconciling", Some("UpdatingNodes"), "Updating ValkeyNodes"),
            ("False", "UpdatingNodes", "Updating ValkeyNodes"),
            ("True", "UpdatingNodes", "Updating ValkeyNodes"),
            since,
        )
    }

    /// Leaves the ValkeyCluster object out of the snapshot.
    pub fn missing(mut self) -> Self {
        self.present = false;
        self
    }

    pub fn node(mut self, n: NodeBuilder) -> Self {
        self.nodes.push(n);
        self
    }

    pub fn event(mut self, e: Event) -> Self {
        self.events.push(e);
        self
    }

    /// Changes the builder in place (for write-by-write replays).
    pub fn with(&mut self, f: impl FnOnce(Self) -> Self) {
        let this = std::mem::take(self);
        *self = f(this);
    }

    /// Changes one node in place; a name not found is a test bug (panics).
    pub fn with_node(&mut self, name: &str, f: impl FnOnce(NodeBuilder) -> NodeBuilder) {
        let Some(slot) = self.nodes.iter_mut().find(|n| n.name() == name) else {
            panic!("fixture: no node {name}");
        };
        let this = std::mem::take(slot);
        *slot = f(this);
    }

    /// Adds an event in place.
    pub fn push_event(&mut self, e: Event) {
        self.events.push(e);
    }

    /// Adds every object to `s` (for several clusters in one snapshot).
    pub fn add_to(&self, s: &mut Snapshot) {
        let ns = self.namespace();
        let cl = self.name();
        if self.present {
            s.clusters.push(self.cluster.clone());
        }
        for n in &self.nodes {
            n.add_to(s, &ns, &cl, self.cluster.metadata.uid.as_deref());
        }
        s.events.extend(self.events.iter().cloned());
        s.normalize();
    }

    pub fn snapshot(&self) -> Snapshot {
        let mut s = Snapshot::default();
        self.add_to(&mut s);
        s
    }
}

/// Several clusters in one snapshot.
pub(crate) fn snapshot_of(clusters: &[&ClusterBuilder]) -> Snapshot {
    let mut s = Snapshot::default();
    for c in clusters {
        c.add_to(&mut s);
    }
    s
}

// ----------------------------------------------------------------------------
// Nodes, their workload and pod
// ----------------------------------------------------------------------------

/// A ValkeyNode with its workload and pod.
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeBuilder {
    pub node: ValkeyNode,
    pub sts: Option<StatefulSet>,
    pub deployment: Option<Deployment>,
    pub pod: Option<Pod>,
    /// Explicit `controller-revision-hash` of the pod.
    pub pod_revision: Option<String>,
    pub standalone: bool,
    /// The `valkey.io/cluster` label is left off (a hand-edit dropped it).
    pub unlabelled: bool,
    /// Extra managedFields entries.
    pub managed: Vec<ManagedFieldsEntry>,
}

/// A ValkeyNode `name`, generation 1 observed 1, no status beyond that.
pub(crate) fn node(name: &str) -> NodeBuilder {
    NodeBuilder {
        node: ValkeyNode {
            metadata: ObjectMeta {
                name: Some(name.to_string()),
                uid: Some(format!("uid-vn-{name}")),
                generation: Some(1),
                resource_version: Some("200".to_string()),
                ..Default::default()
            },
            spec: Default::default(),
            status: Some(ValkeyNodeStatus {
                observed_generation: Some(1),
                ..Default::default()
            }),
        },
        ..Default::default()
    }
}

impl NodeBuilder {
    pub fn name(&self) -> &str {
        self.node.name()
    }
    fn status(&mut self) -> &mut ValkeyNodeStatus {
        self.node.status.get_or_insert_with(Default::default)
    }
    fn annotations(&mut self) -> &mut BTreeMap<String, String> {
        self.node
            .metadata
            .annotations
            .get_or_insert_with(Default::default)
    }
    fn labels(&mut self) -> &mut BTreeMap<String, String> {
        self.node
            .metadata
            .labels
            .get_or_insert_with(Default::default)
    }
    fn sts_name(&self) -> String {
        self.node.workload_name()
    }
    fn pod_name(&self) -> String {
        if self.deployment.is_some() {
            format!("valkey-{}-5d8f7c9b4-x2x9z", self.name())
        } else {
            format!("valkey-{}-0", self.name())
        }
    }

    // --- identity ---

    pub fn replica(mut self) -> Self {
        self.status().role = Some("replica".to_string());
        self
    }
    /// `spec.image`.
    pub fn image(mut self, image: &str) -> Self {
        self.node.spec.image = Some(image.to_string());
        self
    }
    /// Without the `valkey.io/cluster` label (still owned by its cluster).
    pub fn unlabelled(mut self) -> Self {
        self.unlabelled = true;
        self
    }
    /// `status.podIP`.
    pub fn pod_ip(mut self, ip: &str) -> Self {
        self.status().pod_ip = Some(ip.to_string());
        self
    }
    pub fn primary(mut self) -> Self {
        self.status().role = Some("primary".to_string());
        self
    }
    /// Labels `valkey.io/shard-index` and `valkey.io/node-index`.
    pub fn shard(mut self, shard: u32, index: u32) -> Self {
        let l = self.labels();
        l.insert(keys::LABEL_SHARD_INDEX.to_string(), shard.to_string());
        l.insert(keys::LABEL_NODE_INDEX.to_string(), index.to_string());
        self
    }
    pub fn label(mut self, key: &str, value: &str) -> Self {
        self.labels().insert(key.to_string(), value.to_string());
        self
    }
    /// No controlling ValkeyCluster owner reference.
    pub fn standalone(mut self) -> Self {
        self.standalone = true;
        self
    }
    pub fn resource_version(mut self, rv: &str) -> Self {
        self.node.metadata.resource_version = Some(rv.to_string());
        self
    }

    // --- node status ---

    /// `status.ready` true, Ready=True (PodRunning, "Pod is running and
    /// ready") since long ago.
    pub fn ready(self) -> Self {
        self.ready_since(long_ago())
    }
    pub fn ready_since(mut self, since: Timestamp) -> Self {
        let st = self.status();
        st.ready = Some(true);
        set_condition(
            &mut st.conditions,
            cond(
                keys::COND_READY,
                "True",
                Some("PodRunning"),
                Some("Pod is running and ready".to_string()),
                Some(since),
            ),
        );
        self
    }
    /// `status.ready` false, Ready=False (PodNotReady, "Pod is not ready")
    /// since `since`.
    pub fn not_ready(mut self, since: Timestamp) -> Self {
        let st = self.status();
        st.ready = Some(false);
        set_condition(
            &mut st.conditions,
            cond(
                keys::COND_READY,
                "False",
                Some("PodNotReady"),
                Some("Pod is not ready".to_string()),
                Some(since),
            ),
        );
        self
    }
    /// `metadata.generation` and `status.observedGeneration`.
    pub fn generation(mut self, generation: i64, observed: i64) -> Self {
        self.node.metadata.generation = Some(generation);
        self.status().observed_generation = Some(observed);
        self
    }
    /// The node's spec moved (generation + 1, observed unchanged).
    pub fn spec_updated(mut self) -> Self {
        let g = self.node.metadata.generation.unwrap_or(1);
        self.node.metadata.generation = Some(g + 1);
        self
    }
    /// The node controller caught up (observed = generation).
    pub fn spec_observed(mut self) -> Self {
        let g = self.node.metadata.generation;
        self.status().observed_generation = g;
        self
    }
    pub fn last_rollout_hash(mut self, h: &str) -> Self {
        self.status().last_rollout_hash = Some(h.to_string());
        self
    }
    /// LiveConfigApplied=False.
    pub fn live_config_false(mut self, since: Timestamp) -> Self {
        let st = self.status();
        set_condition(
            &mut st.conditions,
            cond(
                keys::COND_LIVE_CONFIG,
                "False",
                Some("ApplyFailed"),
                None,
                Some(since),
            ),
        );
        self
    }
    /// Any condition on the ValkeyNode.
    pub fn condition(mut self, c: Condition) -> Self {
        set_condition(&mut self.status().conditions, c);
        self
    }
    pub fn remove_condition(mut self, type_: &str) -> Self {
        self.status().conditions.retain(|c| c.type_ != type_);
        self
    }

    // --- P1 ---

    /// The permit annotation.
    pub fn permit(mut self, h: &str) -> Self {
        self.annotations()
            .insert(keys::ANN_PERMIT.to_string(), h.to_string());
        self
    }
    pub fn no_permit(mut self) -> Self {
        self.annotations().remove(keys::ANN_PERMIT);
        self
    }
    /// The desired-revision annotation.
    pub fn desired(mut self, h: &str) -> Self {
        self.annotations()
            .insert(keys::ANN_DESIRED.to_string(), h.to_string());
        self
    }
    pub fn no_desired(mut self) -> Self {
        self.annotations().remove(keys::ANN_DESIRED);
        self
    }
    /// WorkloadDrift=True naming `h`, since `since`.
    pub fn drift(self, h: &str, since: Timestamp) -> Self {
        self.condition(cond(
            keys::COND_DRIFT,
            "True",
            Some("AwaitingRollPermit"),
            Some(format!(
                "desired workload template hash {h} awaits cluster roll permit"
            )),
            Some(since),
        ))
    }
    pub fn no_drift(self) -> Self {
        self.remove_condition(keys::COND_DRIFT)
    }

    // --- P2 ---

    /// WorkloadRollPending=True asking `h`, having `have`, since long ago.
    pub fn pending(self, h: &str, have: &str) -> Self {
        self.pending_since(h, have, long_ago())
    }
    pub fn pending_since(self, h: &str, have: &str, since: Timestamp) -> Self {
        self.condition(cond(
            keys::COND_PENDING,
            "True",
            Some("AwaitingWorkloadRevision"),
            Some(format!(
                "desired workload template hash {h} awaits Spec.WorkloadRevision (have \"{have}\")"
            )),
            Some(since),
        ))
    }
    pub fn no_pending(self) -> Self {
        self.remove_condition(keys::COND_PENDING)
    }
    /// `spec.workloadRevision`.
    pub fn workload_revision(mut self, h: &str) -> Self {
        self.node.spec.workload_revision = Some(h.to_string());
        self
    }

    // --- grant traces and managedFields ---

    /// The plugin's trace annotations of a grant by hand.
    pub fn trace(mut self, revision: &str, by: &str, at: Timestamp, reason: &str) -> Self {
        let a = self.annotations();
        a.insert(keys::ANN_GRANTED_REVISION.to_string(), revision.to_string());
        a.insert(keys::ANN_GRANTED_BY.to_string(), by.to_string());
        a.insert(keys::ANN_GRANTED_AT.to_string(), at.to_string());
        a.insert(keys::ANN_REASON.to_string(), reason.to_string());
        self
    }
    /// A managedFields entry of `manager` at `at` owning the P1 permit
    /// annotation.
    pub fn managed_field_time(self, manager: &str, at: Timestamp) -> Self {
        self.managed_fields(
            manager,
            at,
            serde_json::json!({"f:metadata": {"f:annotations": {
                ".": {}, (format!("f:{}", keys::ANN_PERMIT)): {}
            }}}),
        )
    }
    /// A managedFields entry of `manager` at `at` owning `spec.workloadRevision` (P2).
    pub fn managed_revision_time(self, manager: &str, at: Timestamp) -> Self {
        self.managed_fields(
            manager,
            at,
            serde_json::json!({"f:spec": {"f:workloadRevision": {}}}),
        )
    }
    /// A managedFields entry with any fieldsV1.
    pub fn managed_fields(
        mut self,
        manager: &str,
        at: Timestamp,
        fields: serde_json::Value,
    ) -> Self {
        self.managed.push(ManagedFieldsEntry {
            api_version: Some(crate::snapshot::VALKEY_API_VERSION.to_string()),
            fields_type: Some("FieldsV1".to_string()),
            fields_v1: Some(FieldsV1(fields)),
            manager: Some(manager.to_string()),
            operation: Some("Update".to_string()),
            subresource: None,
            time: Some(time(at)),
        });
        self
    }

    // --- workload ---

    /// A StatefulSet with its status.
    pub fn sts(
        mut self,
        generation: i64,
        observed: i64,
        current_rev: &str,
        update_rev: &str,
        ready_replicas: i32,
    ) -> Self {
        self.node.spec.workload_type = None;
        self.deployment = None;
        self.sts = Some(StatefulSet {
            metadata: ObjectMeta {
                name: Some(self.sts_name()),
                generation: Some(generation),
                ..Default::default()
            },
            spec: Some(StatefulSetSpec {
                replicas: Some(1),
                pod_management_policy: Some("OrderedReady".to_string()),
                ..Default::default()
            }),
            status: Some(StatefulSetStatus {
                observed_generation: Some(observed),
                current_revision: Some(current_rev.to_string()),
                update_revision: Some(update_rev.to_string()),
                ready_replicas: Some(ready_replicas),
                replicas: 1,
                ..Default::default()
            }),
        });
        self
    }
    /// A StatefulSet at rest: generation 1 observed, revisions equal, 1 ready.
    pub fn sts_rolled_out(self) -> Self {
        let rev = format!("{}-6c7d8f9b5", self.sts_name());
        self.sts(1, 1, &rev, &rev, 1)
    }
    /// The StatefulSet template changed: generation moves, status lags.
    pub fn sts_new_template(mut self) -> Self {
        if let Some(s) = self.sts.as_mut() {
            let g = s.metadata.generation.unwrap_or(1);
            s.metadata.generation = Some(g + 1);
        }
        self
    }
    /// The StatefulSet status caught up with a new template: observed =
    /// generation, update revision `update_rev`, `ready_replicas` ready.
    pub fn sts_status(mut self, update_rev: &str, ready_replicas: i32) -> Self {
        if let Some(s) = self.sts.as_mut() {
            let g = s.metadata.generation;
            let st = s.status.get_or_insert_with(Default::default);
            st.observed_generation = g;
            st.update_revision = Some(update_rev.to_string());
            st.ready_replicas = Some(ready_replicas);
        }
        self
    }
    /// The StatefulSet finished: current = update revision, 1 ready.
    pub fn sts_done(mut self) -> Self {
        if let Some(s) = self.sts.as_mut() {
            let g = s.metadata.generation;
            let st = s.status.get_or_insert_with(Default::default);
            st.observed_generation = g;
            st.current_revision = st.update_revision.clone();
            st.ready_replicas = Some(1);
        }
        self
    }
    /// A Deployment (and `spec.workloadType: Deployment`) with its status.
    pub fn deployment(
        mut self,
        generation: i64,
        observed: i64,
        replicas: i32,
        status_replicas: i32,
        updated: i32,
        ready: i32,
    ) -> Self {
        self.node.spec.workload_type = Some("Deployment".to_string());
        self.sts = None;
        self.deployment = Some(Deployment {
            metadata: ObjectMeta {
                name: Some(self.sts_name()),
                generation: Some(generation),
                ..Default::default()
            },
            spec: Some(DeploymentSpec {
                replicas: Some(replicas),
                ..Default::default()
            }),
            status: Some(DeploymentStatus {
                observed_generation: Some(observed),
                replicas: Some(status_replicas),
                updated_replicas: Some(updated),
                ready_replicas: Some(ready),
                available_replicas: Some(ready),
                ..Default::default()
            }),
        });
        self
    }
    pub fn deployment_rolled_out(self) -> Self {
        self.deployment(1, 1, 1, 1, 1, 1)
    }
    /// Progressing=False reason ProgressDeadlineExceeded on the Deployment.
    pub fn progress_deadline_exceeded(mut self, since: Timestamp) -> Self {
        if let Some(d) = self.deployment.as_mut() {
            let st = d.status.get_or_insert_with(Default::default);
            let conds = st.conditions.get_or_insert_with(Vec::new);
            conds.retain(|c| c.type_ != "Progressing");
            conds.push(DeploymentCondition {
                type_: "Progressing".to_string(),
                status: "False".to_string(),
                reason: Some("ProgressDeadlineExceeded".to_string()),
                message: Some(format!(
                    "ReplicaSet \"{}-5d8f7c9b4\" has timed out progressing.",
                    self.node.workload_name()
                )),
                last_transition_time: Some(time(since)),
                last_update_time: Some(time(since)),
            });
        }
        self
    }

    // --- pod ---

    fn pod_mut(&mut self) -> &mut Pod {
        let name = self.pod_name();
        self.pod.get_or_insert_with(|| Pod {
            metadata: ObjectMeta {
                name: Some(name),
                ..Default::default()
            },
            spec: None,
            status: Some(PodStatus {
                phase: Some("Running".to_string()),
                ..Default::default()
            }),
        })
    }
    fn pod_status(&mut self) -> &mut PodStatus {
        self.pod_mut().status.get_or_insert_with(Default::default)
    }
    fn pod_condition(&mut self, type_: &str, status: &str, reason: Option<&str>, since: Timestamp) {
        let conds = self.pod_status().conditions.get_or_insert_with(Vec::new);
        conds.retain(|c| c.type_ != type_);
        conds.push(PodCondition {
            type_: type_.to_string(),
            status: status.to_string(),
            reason: reason.map(str::to_string),
            last_transition_time: Some(time(since)),
            ..Default::default()
        });
    }
    fn container(&mut self) -> &mut ContainerStatus {
        let cs = self
            .pod_status()
            .container_statuses
            .get_or_insert_with(Vec::new);
        if cs.is_empty() {
            cs.push(ContainerStatus {
                name: CONTAINER.to_string(),
                image: "valkey/valkey:9.0.0".to_string(),
                image_id: String::new(),
                ..Default::default()
            });
        }
        &mut cs[0]
    }

    /// Pod Running and Ready since long ago.
    pub fn pod_ready(self) -> Self {
        self.pod_ready_since(long_ago())
    }
    pub fn pod_ready_since(mut self, since: Timestamp) -> Self {
        self.pod_status().phase = Some("Running".to_string());
        self.pod_condition("PodScheduled", "True", None, since);
        self.pod_condition("Ready", "True", None, since);
        let c = self.container();
        c.ready = true;
        c.started = Some(true);
        c.state = Some(ContainerState {
            running: Some(ContainerStateRunning {
                started_at: Some(time(since)),
            }),
            ..Default::default()
        });
        self
    }
    /// Pod Ready with no lastTransitionTime on its Ready condition.
    pub fn pod_ready_no_time(self) -> Self {
        self.pod_ready().without_transition_time("Ready")
    }
    /// Pod Running, not Ready since `since` (readiness failing).
    pub fn pod_not_ready(mut self, since: Timestamp) -> Self {
        self.pod_status().phase = Some("Running".to_string());
        self.pod_condition("PodScheduled", "True", None, since);
        self.pod_condition("Ready", "False", Some("ContainersNotReady"), since);
        let c = self.container();
        c.ready = false;
        c.started = Some(true);
        c.state = Some(ContainerState {
            running: Some(ContainerStateRunning {
                started_at: Some(time(since)),
            }),
            ..Default::default()
        });
        self
    }
    /// The container waits with `reason`, restarted `restarts` times; the
    /// pod is not Ready (since its Ready condition's time, or long ago).
    pub fn pod_waiting(mut self, reason: &str, restarts: i32) -> Self {
        let since = self.pod_ready_time().unwrap_or_else(long_ago);
        self.pod_condition("Ready", "False", Some("ContainersNotReady"), since);
        let c = self.container();
        c.ready = false;
        c.started = Some(false);
        c.restart_count = restarts;
        c.state = Some(ContainerState {
            waiting: Some(ContainerStateWaiting {
                reason: Some(reason.to_string()),
                message: Some(format!("{reason}: container {CONTAINER}")),
            }),
            ..Default::default()
        });
        self
    }
    fn pod_ready_time(&self) -> Option<Timestamp> {
        self.pod
            .as_ref()?
            .status
            .as_ref()?
            .conditions
            .as_ref()?
            .iter()
            .find(|c| c.type_ == "Ready")?
            .last_transition_time
            .as_ref()
            .map(|t| t.0)
    }
    /// The container's last termination was OOMKilled (readiness unchanged).
    pub fn pod_oomkilled(mut self) -> Self {
        let c = self.container();
        c.restart_count += 1;
        c.last_state = Some(ContainerState {
            terminated: Some(ContainerStateTerminated {
                reason: Some("OOMKilled".to_string()),
                exit_code: 137,
                ..Default::default()
            }),
            ..Default::default()
        });
        self
    }
    /// The container runs again after its `restarts`-th termination (exit
    /// 137, reason Error: killed by a probe), which finished at `last`.
    pub fn pod_restarting(mut self, restarts: i32, last: Timestamp) -> Self {
        let c = self.container();
        c.restart_count = restarts;
        c.state = Some(ContainerState {
            running: Some(Default::default()),
            ..Default::default()
        });
        c.last_state = Some(ContainerState {
            terminated: Some(ContainerStateTerminated {
                reason: Some("Error".to_string()),
                exit_code: 137,
                finished_at: Some(time(last)),
                ..Default::default()
            }),
            ..Default::default()
        });
        self
    }
    /// The pod's `status.containerStatuses`, as the API writes them; the
    /// pod is not Ready (since its Ready condition's time, or long ago).
    /// Panics on a list that is not container statuses (tests only).
    pub fn pod_containers(mut self, statuses: serde_json::Value) -> Self {
        let since = self.pod_ready_time().unwrap_or_else(long_ago);
        self.pod_condition("Ready", "False", Some("ContainersNotReady"), since);
        let statuses: Vec<ContainerStatus> = serde_json::from_value(statuses)
            .unwrap_or_else(|e| panic!("bad test container statuses: {e}"));
        self.pod_status().container_statuses = Some(statuses);
        self
    }
    /// Pending: PodScheduled=False reason Unschedulable since `since`.
    pub fn pod_unschedulable(mut self, since: Timestamp) -> Self {
        self.pod_status().phase = Some("Pending".to_string());
        self.pod_status().container_statuses = None;
        self.pod_condition("PodScheduled", "False", Some("Unschedulable"), since);
        self.pod_condition("Ready", "False", Some("ContainersNotReady"), since);
        self
    }
    /// Unschedulable with no lastTransitionTime.
    pub fn pod_unschedulable_no_time(self) -> Self {
        self.pod_unschedulable(long_ago())
            .without_transition_time("PodScheduled")
    }
    /// The pod condition `type_` loses its lastTransitionTime.
    fn without_transition_time(mut self, type_: &str) -> Self {
        if let Some(c) = self
            .pod_status()
            .conditions
            .as_mut()
            .and_then(|cs| cs.iter_mut().find(|c| c.type_ == type_))
        {
            c.last_transition_time = None;
        }
        self
    }
    /// `metadata.deletionTimestamp` set.
    pub fn pod_being_deleted(mut self) -> Self {
        let at = long_ago();
        self.pod_mut().metadata.deletion_timestamp = Some(time(at));
        self
    }
    /// The pod's `controller-revision-hash` label.
    pub fn pod_revision(mut self, rev: &str) -> Self {
        self.pod_revision = Some(rev.to_string());
        self
    }
    /// The pod is gone (and `status.podName` with it).
    pub fn no_pod(mut self) -> Self {
        self.pod = None;
        self.pod_revision = None;
        self.status().pod_name = None;
        self
    }
    /// The pod is gone and not yet recreated: `status.podName` still
    /// names it (the StatefulSet is replacing it).
    pub fn pod_gone(mut self) -> Self {
        let name = self.pod_name();
        self.pod = None;
        self.pod_revision = None;
        self.status().pod_name = Some(name);
        self
    }
    /// The StatefulSet was just created: kube-controller-manager has not
    /// synced it yet, so its status is empty; no pod yet either.
    pub fn sts_just_created(mut self) -> Self {
        self = self.sts(1, 0, "", "", 0);
        if let Some(st) = self.sts.as_mut().and_then(|s| s.status.as_mut()) {
            *st = Default::default();
        }
        self.pod = None;
        self.pod_revision = None;
        self.status().pod_name = None;
        self
    }
    /// A fresh pod replaces the old one (new object, no history).
    pub fn new_pod(mut self) -> Self {
        self.pod = None;
        self.pod_revision = None;
        self
    }

    fn add_to(&self, s: &mut Snapshot, ns: &str, cluster: &str, cluster_uid: Option<&str>) {
        let name = self.name().to_string();
        let mut n = self.node.clone();
        n.metadata.namespace = Some(ns.to_string());
        if !self.unlabelled {
            n.metadata
                .labels
                .get_or_insert_with(Default::default)
                .insert(keys::LABEL_CLUSTER.to_string(), cluster.to_string());
        }
        if !self.standalone {
            // The cluster controller's labels: app.kubernetes.io/instance
            // is the cluster's name on a node (the node's on its workload).
            let node_labels = n.metadata.labels.get_or_insert_with(Default::default);
            for (k, v) in recommended_labels(cluster) {
                node_labels.entry(k).or_insert(v);
            }
        }
        if !self.standalone {
            n.metadata.owner_references = Some(vec![OwnerReference {
                api_version: crate::snapshot::VALKEY_API_VERSION.to_string(),
                kind: "ValkeyCluster".to_string(),
                name: cluster.to_string(),
                uid: cluster_uid.unwrap_or("uid").to_string(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]);
        }
        if !self.managed.is_empty() {
            n.metadata.managed_fields = Some(self.managed.clone());
        }
        if let Some(p) = &self.pod {
            let st = n.status.get_or_insert_with(Default::default);
            if st.pod_name.is_none() {
                st.pod_name = p.metadata.name.clone();
            }
        }
        // The node controller's labels on the workload and its pod: as on
        // the node, with app.kubernetes.io/instance the node's name, and
        // the node's shard and node index where it has them.
        let mut labels: BTreeMap<String, String> = recommended_labels(&name);
        labels.insert(keys::LABEL_CLUSTER.to_string(), cluster.to_string());
        for key in [keys::LABEL_SHARD_INDEX, keys::LABEL_NODE_INDEX] {
            if let Some(v) = self.node.metadata.labels.as_ref().and_then(|l| l.get(key)) {
                labels.insert(key.to_string(), v.clone());
            }
        }
        if let Some(sts) = &self.sts {
            let mut sts = sts.clone();
            sts.metadata.namespace = Some(ns.to_string());
            sts.metadata.labels = Some(labels.clone());
            s.stateful_sets.push(sts);
        }
        if let Some(d) = &self.deployment {
            let mut d = d.clone();
            d.metadata.namespace = Some(ns.to_string());
            d.metadata.labels = Some(labels.clone());
            s.deployments.push(d);
        }
        if let Some(p) = &self.pod {
            let mut p = p.clone();
            p.metadata.namespace = Some(ns.to_string());
            let mut pl = labels.clone();
            let rev = self.pod_revision.clone().or_else(|| {
                self.sts
                    .as_ref()
                    .and_then(|s| s.status.as_ref())
                    .and_then(|st| st.update_revision.clone())
            });
            if let (Some(rev), true) = (rev, self.deployment.is_none()) {
                pl.insert(keys::LABEL_CONTROLLER_REVISION.to_string(), rev);
            }
            if self.deployment.is_none() {
                pl.insert(
                    "statefulset.kubernetes.io/pod-name".to_string(),
                    self.pod_name(),
                );
                pl.insert("apps.kubernetes.io/pod-index".to_string(), "0".to_string());
            }
            p.metadata.labels = Some(pl);
            s.pods.push(p);
        }
        s.nodes.push(n);
    }
}

/// The operator's recommended labels, `app.kubernetes.io/instance` set to
/// `instance` (a node: its cluster; a workload or pod: its node).
fn recommended_labels(instance: &str) -> BTreeMap<String, String> {
    [
        ("app.kubernetes.io/component", "valkey-node"),
        (keys::LABEL_INSTANCE, instance),
        ("app.kubernetes.io/managed-by", "valkey-operator"),
        ("app.kubernetes.io/name", "valkey"),
        ("app.kubernetes.io/part-of", "valkey"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

// ----------------------------------------------------------------------------
// Events
// ----------------------------------------------------------------------------

/// A bare ObjectReference (for the events below and hand-made ones).
pub(crate) fn object(ns: &str, kind: &str, name: &str) -> ObjectReference {
    ObjectReference {
        api_version: Some(crate::snapshot::VALKEY_API_VERSION.to_string()),
        kind: Some(kind.to_string()),
        name: Some(name.to_string()),
        namespace: Some(ns.to_string()),
        uid: Some(format!(
            "uid-{}-{name}",
            if kind == "ValkeyCluster" { "vc" } else { "vn" }
        )),
        ..Default::default()
    }
}

/// The `action` the operator records with an event `reason`.
fn action(reason: &str) -> &'static str {
    match reason {
        keys::EVENT_NODE_UPDATED => "UpdateValkeyNode",
        keys::EVENT_APPLIED => "ApplyWorkloadRoll",
        keys::EVENT_DEFERRED => "GateWorkloadRoll",
        keys::EVENT_PERMITTED => "PermitWorkloadRoll",
        keys::EVENT_FAILOVER_INITIATED
        | keys::EVENT_FAILOVER_COMPLETED
        | keys::EVENT_FAILOVER_FAILED
        | keys::EVENT_FAILOVER_TIMEOUT => "ProactiveFailover",
        keys::EVENT_REPLICA_CREATED => "CreateReplica",
        keys::EVENT_CLUSTER_MEET_BATCH => "ClusterMeet",
        _ => "Reconcile",
    }
}

/// An event in the events.k8s.io/v1 view: `eventTime` only.
pub(crate) fn event(
    ns: &str,
    reason: &str,
    regarding: ObjectReference,
    related: Option<ObjectReference>,
    note: &str,
    at: Timestamp,
) -> Event {
    let obj = regarding.name.clone().unwrap_or_default();
    let controller = if regarding.kind.as_deref() == Some("ValkeyCluster") {
        "valkeycluster-controller"
    } else {
        "valkeynode-controller"
    };
    Event {
        metadata: ObjectMeta {
            name: Some(format!(
                "{obj}.{}{:x}",
                reason.to_lowercase(),
                at.as_second().unsigned_abs()
            )),
            namespace: Some(ns.to_string()),
            ..Default::default()
        },
        involved_object: regarding,
        related,
        reason: Some(reason.to_string()),
        message: Some(note.to_string()),
        type_: Some("Normal".to_string()),
        event_time: Some(MicroTime(at)),
        // As the operator reports: its cluster controller for events about
        // a ValkeyCluster, its node controller for the rest.
        reporting_component: Some(controller.to_string()),
        reporting_instance: Some(format!(
            "{controller}-valkey-operator-controller-manager-7d9f8c6b54-kx2vq"
        )),
        action: Some(action(reason).to_string()),
        ..Default::default()
    }
}

/// `WorkloadRollPermitted`: regarding the ValkeyCluster, related the node,
/// note `Granted workload roll permit for <node> (hash <h>)`.
pub(crate) fn event_permitted(
    ns: &str,
    cluster: &str,
    node: &str,
    hash: &str,
    at: Timestamp,
) -> Event {
    event(
        ns,
        keys::EVENT_PERMITTED,
        object(ns, "ValkeyCluster", cluster),
        Some(object(ns, "ValkeyNode", node)),
        &format!("Granted workload roll permit for {node} (hash {hash})"),
        at,
    )
}

/// `ValkeyNodeUpdated`: regarding the ValkeyCluster, related the node.
pub(crate) fn event_node_updated(ns: &str, cluster: &str, node: &str, at: Timestamp) -> Event {
    event(
        ns,
        keys::EVENT_NODE_UPDATED,
        object(ns, "ValkeyCluster", cluster),
        Some(object(ns, "ValkeyNode", node)),
        &format!("Updated ValkeyNode {node}"),
        at,
    )
}

/// `WorkloadRollApplied`: regarding the node, note `Applied pod template
/// update (hash <h>)`.
pub(crate) fn event_applied(ns: &str, node: &str, hash: &str, at: Timestamp) -> Event {
    event(
        ns,
        keys::EVENT_APPLIED,
        object(ns, "ValkeyNode", node),
        None,
        &format!("Applied pod template update (hash {hash})"),
        at,
    )
}

/// `WorkloadRollDeferred` (P2): regarding the node, note `Deferred pod
/// template update (hash <h>); waiting for Spec.WorkloadRevision`.
pub(crate) fn event_deferred(ns: &str, node: &str, hash: &str, at: Timestamp) -> Event {
    event(
        ns,
        keys::EVENT_DEFERRED,
        object(ns, "ValkeyNode", node),
        None,
        &format!("Deferred pod template update (hash {hash}); waiting for Spec.WorkloadRevision"),
        at,
    )
}

/// `WorkloadRollDeferred` (P1, PR #338's first commit): note `Deferred pod
/// template update (hash <h>); waiting for ValkeyCluster roll permit`.
pub(crate) fn event_deferred_p1(ns: &str, node: &str, hash: &str, at: Timestamp) -> Event {
    event(
        ns,
        keys::EVENT_DEFERRED,
        object(ns, "ValkeyNode", node),
        None,
        &format!(
            "Deferred pod template update (hash {hash}); waiting for ValkeyCluster roll permit"
        ),
        at,
    )
}

/// The old core/v1 form: `firstTimestamp`/`lastTimestamp`, no `eventTime`.
pub(crate) fn legacy(mut e: Event) -> Event {
    let at = e.event_time.take().map(|m| m.0);
    e.first_timestamp = at.map(time);
    e.last_timestamp = at.map(time);
    e
}

/// An event seen again at `last`: `series.lastObservedTime`.
pub(crate) fn repeated(mut e: Event, count: i32, last: Timestamp) -> Event {
    e.series = Some(EventSeries {
        count: Some(count),
        last_observed_time: Some(MicroTime(last)),
    });
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_labelled_owned_objects() {
        let s = cluster("prod", "cache")
            .ready_for_generation()
            .node(
                node("cache-0-1")
                    .replica()
                    .shard(0, 1)
                    .ready()
                    .pod_ready()
                    .sts_rolled_out()
                    .permit("h1"),
            )
            .node(
                node("cache-0-0")
                    .standalone()
                    .deployment_rolled_out()
                    .pod_ready(),
            )
            .event(legacy(event_permitted(
                "prod",
                "cache",
                "cache-0-1",
                "h1",
                t(0),
            )))
            .snapshot();
        assert_eq!(s.clusters.len(), 1);
        let n = &s.nodes[1];
        assert_eq!(n.name(), "cache-0-1");
        assert_eq!(n.cluster_label(), Some("cache"));
        assert_eq!(n.controller_cluster(), Some("cache"));
        assert_eq!(n.annotation(keys::ANN_PERMIT), Some("h1"));
        assert_eq!(
            n.status.as_ref().and_then(|s| s.pod_name.as_deref()),
            Some("valkey-cache-0-1-0")
        );
        assert_eq!(s.nodes[0].controller_cluster(), None);
        let pod = s
            .pods
            .iter()
            .find(|p| p.metadata.name.as_deref() == Some("valkey-cache-0-1-0"));
        let rev = pod
            .and_then(|p| p.metadata.labels.as_ref())
            .and_then(|l| l.get(keys::LABEL_CONTROLLER_REVISION));
        assert_eq!(rev.map(String::as_str), Some("valkey-cache-0-1-6c7d8f9b5"));
        assert_eq!(s.deployments.len(), 1);
        assert!(s.events[0].event_time.is_none());
        assert_eq!(s.events[0].last_timestamp.as_ref().map(|t| t.0), Some(t(0)));
    }
}
