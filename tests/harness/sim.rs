//! A simulated valkey-operator: the writes the operator's two controllers
//! make (docs/protocol.md), one API call per write, against the
//! real API server, so that a test reads like the protocol:
//!
//! ```ignore
//! let sim = Sim::build(client, &ns, "cache", &Layout::default()).await;
//! let x = sim.node_at(0, 1);                 // cache-0-1, a replica
//! x.annotate_desired(&h).await;              // node controller: Update
//! x.set_drift(&h).await;                     // node controller: status patch
//! x.grant(&h).await;                         // cluster controller: Update
//! sim.event_permitted(&x.name, &h).await;    // events.k8s.io/v1
//! x.workload().apply_template(&h).await;     // generation moves, status lags
//! x.pod().begin_delete().await;              // deletionTimestamp (a finalizer holds it)
//! ```
//!
//! Every method that writes makes exactly one write request (a GET may come
//! before it to read the current object, as the operator reads its cache).
//! Object writes are Updates (PUT) and status writes JSON merge patches of
//! the status subresource, with field manager `manager`, as controller-runtime
//! does. Times (condition transitions, event times, container starts) come
//! from the sim's clock: the real clock, or a fixed one (`set_now`,
//! `advance`) for tests that pass the same `--now` to the plugin.
//!
//! Hashes, times, JSON conditions and the operator's words are the
//! fixture's (src/fixture, the `fixture` feature), so a unit test and an
//! end-to-end test say the same thing the same way.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use kubectl_valkey_roll::fixture::json::upsert_condition;
use kubectl_valkey_roll::fixture::words;
use kubectl_valkey_roll::snapshot::keys;
use serde_json::{Map, Value, json};

pub use kubectl_valkey_roll::fixture::json::{remove_condition, set_condition};
pub use kubectl_valkey_roll::fixture::words::{CLUSTER_CONTROLLER, NODE_CONTROLLER};
pub use kubectl_valkey_roll::fixture::{
    CONTAINER, fmt_micro, fmt_time, hash, pod_template_hash, sts_revision,
};

/// The field manager of the operator's writes (controller-runtime's default
/// for a binary named `manager`).
pub const MANAGER: &str = "manager";
/// The field manager of a person's edit (`kubectl edit`).
pub const PERSON: &str = "kubectl-edit";

pub use keys::{
    ANN_DESIRED, ANN_PERMIT as ANN_ALLOW, LABEL_CLUSTER, LABEL_INSTANCE,
    LABEL_NODE_INDEX as LABEL_NODE, LABEL_SHARD_INDEX as LABEL_SHARD,
};
/// The pod-template annotation that carries the template's revision hash.
pub const ANN_TEMPLATE_HASH: &str = "valkey.io/workload-template-hash";
/// Every simulated pod carries this finalizer, so that a deleted pod stays
/// visible (with `metadata.deletionTimestamp`) until `finish_delete`.
pub const POD_FINALIZER: &str = "test.valkey-roll.io/hold";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Permit annotations.
    P1,
    /// `spec.workloadRevision` (set at creation to the starting revision).
    P2,
    /// Neither (an operator that stages nothing).
    Unstaged,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkloadKind {
    StatefulSet,
    Deployment,
}

impl WorkloadKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::Deployment => "Deployment",
        }
    }
}

/// What `Sim::build` creates: a healthy cluster at rest.
#[derive(Clone, Debug)]
pub struct Layout {
    pub shards: u32,
    /// Replicas per shard; each shard has `1 + replicas` nodes, index 0 the
    /// primary.
    pub replicas: u32,
    pub protocol: Protocol,
    pub workload: WorkloadKind,
    pub image: String,
    /// The template hash every node runs at the start.
    pub revision: String,
    /// Also write `status.lastRolloutHash = revision` on every node.
    pub last_rollout_hash: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            shards: 1,
            replicas: 1,
            protocol: Protocol::P1,
            workload: WorkloadKind::StatefulSet,
            image: "valkey/valkey:8.1.1".into(),
            revision: hash("revision-0"),
            last_rollout_hash: false,
        }
    }
}

/// The API resource of a valkey.io/v1alpha1 kind.
pub fn valkey_resource(kind: &str, plural: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("valkey.io", "v1alpha1", kind),
        plural,
    )
}

fn post() -> PostParams {
    PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    }
}

fn patch_params(manager: &str) -> PatchParams {
    PatchParams {
        field_manager: Some(manager.into()),
        ..Default::default()
    }
}

/// RFC 7386 JSON merge of `patch` into `target`.
pub fn merge(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            let t = target.as_object_mut().expect("object");
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        other => *target = other.clone(),
    }
}

fn conditions_of(obj: &Value) -> Vec<Value> {
    obj["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn dyn_json(obj: &DynamicObject) -> Value {
    serde_json::to_value(obj).expect("serialize object")
}

/// A simulated operator for one ValkeyCluster in one namespace.
pub struct Sim {
    pub client: kube::Client,
    pub ns: String,
    pub cluster: String,
    pub workload: WorkloadKind,
    clock: Mutex<Option<Timestamp>>,
    seq: AtomicU64,
}

impl Sim {
    /// A sim for cluster `cluster` in `ns`; writes nothing.
    pub fn new(client: kube::Client, ns: &str, cluster: &str) -> Sim {
        Sim {
            client,
            ns: ns.to_string(),
            cluster: cluster.to_string(),
            workload: WorkloadKind::StatefulSet,
            clock: Mutex::new(None),
            seq: AtomicU64::new(0),
        }
    }

    pub fn with_workload(mut self, kind: WorkloadKind) -> Sim {
        self.workload = kind;
        self
    }

    /// [`Sim::build`] of a cluster `cache` in a fresh namespace (named after
    /// `hint`) of the test binary's API server.
    pub async fn fresh(hint: &str, layout: &Layout) -> Sim {
        let s = super::server();
        let ns = s.fresh_namespace(hint);
        Sim::build(s.client().await, &ns, "cache", layout).await
    }

    /// The nodes `names` ask for `h`, one after the other, each as its node
    /// controller writes it: the desired annotation, then WorkloadDrift.
    pub async fn ask(&self, names: &[&str], h: &str) {
        for name in names {
            let n = self.node(name);
            n.annotate_desired(h).await;
            n.set_drift(h).await;
        }
    }

    /// Creates a healthy cluster at rest, as the operator leaves it: the
    /// ValkeyCluster (Ready for its generation), and for every node its
    /// ValkeyNode, workload and pod, all ready, each object created and its
    /// status written as separate requests.
    pub async fn build(client: kube::Client, ns: &str, cluster: &str, layout: &Layout) -> Sim {
        let sim = Sim::build_cluster(client, ns, cluster, layout).await;
        for shard in 0..layout.shards {
            for idx in 0..=layout.replicas {
                sim.build_node(shard, idx, layout).await;
            }
        }
        sim
    }

    /// The first half of [`Sim::build`]: the ValkeyCluster, Ready for its
    /// generation, and no node yet.
    pub async fn build_cluster(
        client: kube::Client,
        ns: &str,
        cluster: &str,
        layout: &Layout,
    ) -> Sim {
        let sim = Sim::new(client, ns, cluster).with_workload(layout.workload);
        sim.create_cluster(json!({
            "image": layout.image,
            "shards": layout.shards,
            "replicas": layout.replicas,
            "workloadType": layout.workload.as_str(),
        }))
        .await;
        sim.cluster_ready().await;
        sim
    }

    /// The second half of [`Sim::build`], for one node: its ValkeyNode,
    /// workload and pod, all ready, in that order. Nodes are independent of
    /// each other, so a large cluster may build several at once.
    pub async fn build_node(&self, shard: u32, idx: u32, layout: &Layout) {
        let node = self.node_at(shard, idx);
        let mut spec = json!({
            "image": layout.image,
            "workloadType": layout.workload.as_str(),
        });
        if layout.protocol == Protocol::P2 {
            spec["workloadRevision"] = json!(layout.revision);
        }
        node.create(shard, idx, spec).await;
        let w = node.workload();
        w.create(&layout.revision).await;
        w.rolled_out().await;
        let pod = node.pod_for(&layout.revision);
        pod.create(&layout.revision).await;
        pod.running_ready().await;
        let role = if idx == 0 { "primary" } else { "replica" };
        node.settle(
            role,
            &pod.name,
            layout.last_rollout_hash.then_some(&layout.revision[..]),
        )
        .await;
    }

    // --- clock -------------------------------------------------------------

    /// The sim's clock: the fixed time if one is set, else the real clock.
    pub fn now(&self) -> Timestamp {
        self.clock.lock().unwrap().unwrap_or_else(Timestamp::now)
    }

    pub fn now_string(&self) -> String {
        fmt_time(self.now())
    }

    /// Fixes the clock at an RFC 3339 time.
    pub fn set_now(&self, rfc3339: &str) {
        let t: Timestamp = rfc3339
            .parse()
            .unwrap_or_else(|e| panic!("bad time {rfc3339}: {e}"));
        *self.clock.lock().unwrap() = Some(t);
    }

    /// Moves a fixed clock on (fixing it at the real time first if unset).
    pub fn advance(&self, seconds: i64) {
        let mut c = self.clock.lock().unwrap();
        let t = c.unwrap_or_else(Timestamp::now);
        *c = Some(t + SignedDuration::from_secs(seconds));
    }

    // --- APIs ---------------------------------------------------------------

    pub fn clusters(&self) -> Api<DynamicObject> {
        Api::namespaced_with(
            self.client.clone(),
            &self.ns,
            &valkey_resource("ValkeyCluster", "valkeyclusters"),
        )
    }

    pub fn nodes(&self) -> Api<DynamicObject> {
        Api::namespaced_with(
            self.client.clone(),
            &self.ns,
            &valkey_resource("ValkeyNode", "valkeynodes"),
        )
    }

    /// The nodes that carry a non-empty P1 permit annotation, by name.
    pub async fn permit_holders(&self) -> Vec<String> {
        let list = self
            .nodes()
            .list(&kube::api::ListParams::default())
            .await
            .expect("list nodes");
        let mut out: Vec<String> = list
            .items
            .iter()
            .filter(|o| {
                o.metadata
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(ANN_ALLOW))
                    .is_some_and(|v| !v.is_empty())
            })
            .filter_map(|o| o.metadata.name.clone())
            .collect();
        out.sort();
        out
    }

    pub fn statefulsets(&self) -> Api<StatefulSet> {
        Api::namespaced(self.client.clone(), &self.ns)
    }

    pub fn deployments(&self) -> Api<Deployment> {
        Api::namespaced(self.client.clone(), &self.ns)
    }

    pub fn pods(&self) -> Api<Pod> {
        Api::namespaced(self.client.clone(), &self.ns)
    }

    pub fn events(&self) -> Api<Event> {
        Api::namespaced(self.client.clone(), &self.ns)
    }

    pub fn node_name(&self, shard: u32, idx: u32) -> String {
        format!("{}-{shard}-{idx}", self.cluster)
    }

    pub fn node(&self, name: &str) -> NodeSim<'_> {
        NodeSim {
            sim: self,
            name: name.to_string(),
        }
    }

    pub fn node_at(&self, shard: u32, idx: u32) -> NodeSim<'_> {
        self.node(&self.node_name(shard, idx))
    }

    // --- the ValkeyCluster --------------------------------------------------

    /// Creates the ValkeyCluster (one write).
    pub async fn create_cluster(&self, spec: Value) -> DynamicObject {
        let obj: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "valkey.io/v1alpha1",
            "kind": "ValkeyCluster",
            "metadata": {"name": self.cluster, "namespace": self.ns},
            "spec": spec,
        }))
        .expect("ValkeyCluster object");
        self.clusters()
            .create(&post(), &obj)
            .await
            .unwrap_or_else(|e| panic!("create ValkeyCluster {}: {e}", self.cluster))
    }

    pub async fn get_cluster(&self) -> DynamicObject {
        self.clusters()
            .get(&self.cluster)
            .await
            .unwrap_or_else(|e| panic!("get ValkeyCluster {}: {e}", self.cluster))
    }

    /// A merge patch of the ValkeyCluster's status (one write).
    pub async fn cluster_status(&self, status: Value) -> DynamicObject {
        self.clusters()
            .patch_status(
                &self.cluster,
                &patch_params(MANAGER),
                &Patch::Merge(json!({ "status": status })),
            )
            .await
            .unwrap_or_else(|e| panic!("patch ValkeyCluster {} status: {e}", self.cluster))
    }

    /// Writes the cluster's state and sets the given conditions
    /// (type, status, reason, message), each for the current generation
    /// (one write).
    pub async fn cluster_conditions(
        &self,
        state: &str,
        reason: &str,
        message: &str,
        conditions: &[(&str, &str, &str, &str)],
    ) -> DynamicObject {
        let vc = dyn_json(&self.get_cluster().await);
        let generation = vc["metadata"]["generation"].as_i64();
        let shards = vc["spec"]["shards"].as_i64().unwrap_or(1);
        let mut conds = conditions_of(&vc);
        let now = self.now_string();
        for (t, s, r, m) in conditions {
            set_condition(&mut conds, t, s, r, m, generation, &now);
        }
        let ready_shards = if state == "Ready" {
            shards
        } else {
            vc["status"]["readyShards"].as_i64().unwrap_or(shards)
        };
        self.cluster_status(json!({
            "state": state, "reason": reason, "message": message,
            "shards": shards, "readyShards": ready_shards,
            "conditions": conds,
        }))
        .await
    }

    /// The cluster controller's word that the cluster is Ready for its
    /// current generation (one write).
    pub async fn cluster_ready(&self) -> DynamicObject {
        let (healthy, healthy_message) = words::CLUSTER_HEALTHY;
        self.cluster_conditions(
            "Ready",
            healthy,
            healthy_message,
            &[
                ("Ready", "True", healthy, healthy_message),
                (
                    "Progressing",
                    "False",
                    words::RECONCILE_COMPLETE,
                    "No changes in progress",
                ),
                ("Degraded", "False", healthy, healthy_message),
                (
                    "ClusterFormed",
                    "True",
                    "ClusterFormed",
                    "All nodes joined the cluster",
                ),
                (
                    "SlotsAssigned",
                    "True",
                    "AllSlotsAssigned",
                    "All slots are assigned",
                ),
            ],
        )
        .await
    }

    /// Ready=False, Progressing=True, reason UpdatingNodes, for the current
    /// generation (one write).
    pub async fn cluster_updating(&self) -> DynamicObject {
        self.cluster_conditions(
            "Reconciling",
            "UpdatingNodes",
            "Updating nodes",
            &[
                ("Ready", "False", "UpdatingNodes", "Updating nodes"),
                ("Progressing", "True", "UpdatingNodes", "Updating nodes"),
            ],
        )
        .await
    }

    /// A person edits the ValkeyCluster's spec (a merge patch, field manager
    /// `kubectl-edit`; one write). The generation moves.
    pub async fn edit_cluster_spec(&self, spec_patch: Value) -> DynamicObject {
        self.clusters()
            .patch(
                &self.cluster,
                &patch_params(PERSON),
                &Patch::Merge(json!({ "spec": spec_patch })),
            )
            .await
            .unwrap_or_else(|e| panic!("edit ValkeyCluster {}: {e}", self.cluster))
    }

    // --- events -------------------------------------------------------------

    /// An object reference (`regarding`/`related`) to the ValkeyCluster.
    pub async fn cluster_ref(&self) -> Value {
        let vc = self.get_cluster().await;
        json!({
            "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
            "namespace": self.ns, "name": self.cluster,
            "uid": vc.metadata.uid,
        })
    }

    /// An object reference to a ValkeyNode.
    pub async fn node_ref(&self, node: &str) -> Value {
        let n = self.node(node).get().await;
        json!({
            "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
            "namespace": self.ns, "name": node,
            "uid": n.metadata.uid,
        })
    }

    /// Records an event through events.k8s.io/v1 (one write), as
    /// client-go's events recorder does.
    #[allow(clippy::too_many_arguments)]
    pub async fn event(
        &self,
        controller: &str,
        regarding: Value,
        related: Option<Value>,
        type_: &str,
        reason: &str,
        action: &str,
        note: &str,
    ) -> Event {
        let now = self.now();
        let name = format!(
            "{}.{:x}{:04x}",
            regarding["name"].as_str().unwrap_or("event"),
            now.as_nanosecond(),
            self.seq.fetch_add(1, Ordering::Relaxed)
        );
        let mut ev = json!({
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": self.ns},
            "eventTime": fmt_micro(now),
            "reportingController": controller,
            "reportingInstance": format!("{controller}-valkey-operator-controller-manager-6c9d7f-x2k4q"),
            "action": action,
            "reason": reason,
            "note": note,
            "type": type_,
            "regarding": regarding,
        });
        if let Some(r) = related {
            ev["related"] = r;
        }
        let ev: Event = serde_json::from_value(ev).expect("event object");
        self.events()
            .create(&post(), &ev)
            .await
            .unwrap_or_else(|e| panic!("create event {reason}: {e}"))
    }

    /// Cluster controller, P1 grant: `WorkloadRollPermitted`, regarding the
    /// ValkeyCluster, related the node.
    pub async fn event_permitted(&self, node: &str, h: &str) -> Event {
        let (reg, rel) = (self.cluster_ref().await, self.node_ref(node).await);
        self.event(
            CLUSTER_CONTROLLER,
            reg,
            Some(rel),
            "Normal",
            keys::EVENT_PERMITTED,
            words::action(keys::EVENT_PERMITTED),
            &words::permitted_note(node, h),
        )
        .await
    }

    /// Node controller: `WorkloadRollApplied`, regarding the node.
    pub async fn event_applied(&self, node: &str, h: &str) -> Event {
        let reg = self.node_ref(node).await;
        self.event(
            NODE_CONTROLLER,
            reg,
            None,
            "Normal",
            keys::EVENT_APPLIED,
            words::action(keys::EVENT_APPLIED),
            &words::applied_note(h),
        )
        .await
    }

    /// Cluster controller advanced a node's spec: `ValkeyNodeUpdated`,
    /// regarding the ValkeyCluster, related the node.
    pub async fn event_node_updated(&self, node: &str) -> Event {
        let (reg, rel) = (self.cluster_ref().await, self.node_ref(node).await);
        self.event(
            CLUSTER_CONTROLLER,
            reg,
            Some(rel),
            "Normal",
            keys::EVENT_NODE_UPDATED,
            words::action(keys::EVENT_NODE_UPDATED),
            &words::node_updated_note(node),
        )
        .await
    }

    /// Node controller deferred a template update: `WorkloadRollDeferred`,
    /// regarding the node (P1 wording: it waits for a permit).
    pub async fn event_deferred(&self, node: &str, h: &str) -> Event {
        let reg = self.node_ref(node).await;
        self.event(
            NODE_CONTROLLER,
            reg,
            None,
            "Normal",
            keys::EVENT_DEFERRED,
            words::action(keys::EVENT_DEFERRED),
            // Not the fixture's P1 wording (`words::deferred_p1_note`):
            // the e2e tests were written against this one.
            &format!("Deferred pod template update (hash {h}); waiting for cluster roll permit"),
        )
        .await
    }

    /// As `event_deferred`, P2 wording (the released operator's).
    pub async fn event_deferred_p2(&self, node: &str, h: &str) -> Event {
        let reg = self.node_ref(node).await;
        self.event(
            NODE_CONTROLLER,
            reg,
            None,
            "Normal",
            keys::EVENT_DEFERRED,
            words::action(keys::EVENT_DEFERRED),
            &words::deferred_note(h),
        )
        .await
    }
}

/// One ValkeyNode of a `Sim`.
pub struct NodeSim<'a> {
    pub sim: &'a Sim,
    pub name: String,
}

impl<'a> NodeSim<'a> {
    pub async fn get(&self) -> DynamicObject {
        self.sim
            .nodes()
            .get(&self.name)
            .await
            .unwrap_or_else(|e| panic!("get ValkeyNode {}: {e}", self.name))
    }

    pub async fn get_json(&self) -> Value {
        dyn_json(&self.get().await)
    }

    /// Creates the ValkeyNode, owned (controller) by the ValkeyCluster
    /// (one write).
    pub async fn create(&self, shard: u32, idx: u32, spec: Value) -> DynamicObject {
        self.create_with(shard, idx, spec, true).await
    }

    /// Creates the ValkeyNode; `owned: false` makes it standalone (no
    /// controlling owner). One write.
    pub async fn create_with(
        &self,
        shard: u32,
        idx: u32,
        spec: Value,
        owned: bool,
    ) -> DynamicObject {
        let mut meta = json!({
            "name": self.name,
            "namespace": self.sim.ns,
            "labels": {
                LABEL_CLUSTER: self.sim.cluster,
                LABEL_SHARD: shard.to_string(),
                LABEL_NODE: idx.to_string(),
            },
        });
        if owned {
            let vc = self.sim.get_cluster().await;
            meta["ownerReferences"] = json!([{
                "apiVersion": "valkey.io/v1alpha1",
                "kind": "ValkeyCluster",
                "name": self.sim.cluster,
                "uid": vc.metadata.uid,
                "controller": true,
                "blockOwnerDeletion": true,
            }]);
        }
        let obj: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "valkey.io/v1alpha1",
            "kind": "ValkeyNode",
            "metadata": meta,
            "spec": spec,
        }))
        .expect("ValkeyNode object");
        self.sim
            .nodes()
            .create(&post(), &obj)
            .await
            .unwrap_or_else(|e| panic!("create ValkeyNode {}: {e}", self.name))
    }

    /// Reads the node, lets `f` change it, and writes it back with an Update
    /// (one write; carries the resourceVersion read).
    pub async fn update(&self, f: impl FnOnce(&mut Value)) -> DynamicObject {
        let mut obj = self.get_json().await;
        if let Some(m) = obj.as_object_mut() {
            m.remove("status");
        }
        f(&mut obj);
        let obj: DynamicObject = serde_json::from_value(obj).expect("ValkeyNode object");
        self.sim
            .nodes()
            .replace(&self.name, &post(), &obj)
            .await
            .unwrap_or_else(|e| panic!("update ValkeyNode {}: {e}", self.name))
    }

    /// Reads the node, lets `f` change its status (given the whole object),
    /// and writes the status with a merge patch (one write).
    pub async fn update_status(
        &self,
        f: impl FnOnce(&Value, &mut Map<String, Value>),
    ) -> DynamicObject {
        let obj = self.get_json().await;
        let mut status = obj["status"].as_object().cloned().unwrap_or_default();
        f(&obj, &mut status);
        self.status_merge(Value::Object(status)).await
    }

    /// A merge patch of the node's status (one write).
    pub async fn status_merge(&self, status: Value) -> DynamicObject {
        self.sim
            .nodes()
            .patch_status(
                &self.name,
                &patch_params(MANAGER),
                &Patch::Merge(json!({ "status": status })),
            )
            .await
            .unwrap_or_else(|e| panic!("patch ValkeyNode {} status: {e}", self.name))
    }

    /// Sets (`Some`) or removes (`None`) one annotation (one Update).
    pub async fn annotate(&self, key: &str, value: Option<&str>) -> DynamicObject {
        self.update(|o| set_annotation(o, key, value)).await
    }

    /// P1, node controller, step 1: the desired annotation, and (in the same
    /// Update) the drop of a permit whose hash is neither `*` nor `h`.
    pub async fn annotate_desired(&self, h: &str) -> DynamicObject {
        self.update(|o| {
            set_annotation(o, ANN_DESIRED, Some(h));
            let allow = o["metadata"]["annotations"][ANN_ALLOW]
                .as_str()
                .map(str::to_string);
            if let Some(a) = allow
                && a != "*"
                && a != h
            {
                set_annotation(o, ANN_ALLOW, None);
            }
        })
        .await
    }

    /// P1, node controller, step 3: the desired annotation removed.
    pub async fn remove_desired(&self) -> DynamicObject {
        self.annotate(ANN_DESIRED, None).await
    }

    /// P1, cluster controller, step 2: the permit (hash or `*`).
    pub async fn grant(&self, permit: &str) -> DynamicObject {
        self.annotate(ANN_ALLOW, Some(permit)).await
    }

    /// P1, node controller, step 4: the permit removed once rolled out.
    pub async fn release(&self) -> DynamicObject {
        self.annotate(ANN_ALLOW, None).await
    }

    /// Cluster controller: the node's new spec (merged into the old one)
    /// and, when given, the permit, in one Update (Spec-driven roll: `*`).
    pub async fn update_spec_with_permit(
        &self,
        spec_patch: Value,
        permit: Option<&str>,
    ) -> DynamicObject {
        self.update(|o| {
            merge(&mut o["spec"], &spec_patch);
            if let Some(p) = permit {
                set_annotation(o, ANN_ALLOW, Some(p));
            }
        })
        .await
    }

    /// P2, cluster controller: `spec.workloadRevision = h` (one Update; the
    /// node's generation moves).
    pub async fn set_workload_revision(&self, h: &str) -> DynamicObject {
        self.update(|o| o["spec"]["workloadRevision"] = json!(h))
            .await
    }

    /// Sets one condition for the node's current generation (one write).
    pub async fn set_condition(
        &self,
        type_: &str,
        status: &str,
        reason: &str,
        message: &str,
    ) -> DynamicObject {
        let now = self.sim.now_string();
        self.update_status(|obj, st| {
            let mut conds = conditions_of(obj);
            set_condition(
                &mut conds,
                type_,
                status,
                reason,
                message,
                obj["metadata"]["generation"].as_i64(),
                &now,
            );
            st.insert("conditions".into(), json!(conds));
        })
        .await
    }

    /// Removes one condition (one write).
    pub async fn remove_condition(&self, type_: &str) -> DynamicObject {
        self.update_status(|obj, st| {
            let mut conds = conditions_of(obj);
            remove_condition(&mut conds, type_);
            st.insert("conditions".into(), json!(conds));
        })
        .await
    }

    /// P1, node controller, step 1: `WorkloadDrift=True`.
    pub async fn set_drift(&self, h: &str) -> DynamicObject {
        self.set_condition(
            keys::COND_DRIFT,
            "True",
            words::DRIFT_REASON,
            &words::drift_message(h),
        )
        .await
    }

    /// P1, node controller, step 3: `WorkloadDrift` removed.
    pub async fn clear_drift(&self) -> DynamicObject {
        self.remove_condition(keys::COND_DRIFT).await
    }

    /// P2, node controller: `WorkloadRollPending=True`; the message quotes
    /// the node's current `spec.workloadRevision` as Go's `%q` does.
    pub async fn set_pending(&self, h: &str) -> DynamicObject {
        let now = self.sim.now_string();
        self.update_status(|obj, st| {
            let have = obj["spec"]["workloadRevision"].as_str().unwrap_or("");
            let mut conds = conditions_of(obj);
            set_condition(
                &mut conds,
                keys::COND_PENDING,
                "True",
                words::PENDING_REASON,
                &words::pending_message(h, have),
                obj["metadata"]["generation"].as_i64(),
                &now,
            );
            st.insert("conditions".into(), json!(conds));
        })
        .await
    }

    /// P2, node controller: `WorkloadRollPending` removed.
    pub async fn clear_pending(&self) -> DynamicObject {
        self.remove_condition(keys::COND_PENDING).await
    }

    /// Node controller: `status.observedGeneration = metadata.generation`.
    pub async fn observe(&self) -> DynamicObject {
        self.update_status(|obj, st| {
            st.insert(
                "observedGeneration".into(),
                obj["metadata"]["generation"].clone(),
            );
        })
        .await
    }

    /// Node controller: `status.ready` and the Ready condition (one write).
    pub async fn set_ready(&self, ready: bool) -> DynamicObject {
        let now = self.sim.now_string();
        self.update_status(|obj, st| {
            let mut conds = conditions_of(obj);
            let g = obj["metadata"]["generation"].as_i64();
            if ready {
                let (reason, message) = words::NODE_READY;
                set_condition(&mut conds, "Ready", "True", reason, message, g, &now);
            } else {
                let (reason, message) = words::NODE_NOT_READY;
                set_condition(&mut conds, "Ready", "False", reason, message, g, &now);
            }
            st.insert("ready".into(), json!(ready));
            st.insert("conditions".into(), json!(conds));
        })
        .await
    }

    /// The node's status at rest (one write): ready, role, pod, generation
    /// observed, Ready and LiveConfigApplied True, and lastRolloutHash when
    /// given.
    pub async fn settle(
        &self,
        role: &str,
        pod: &str,
        last_rollout_hash: Option<&str>,
    ) -> DynamicObject {
        let now = self.sim.now_string();
        let pod_ip = pod_ip(&self.name);
        self.update_status(|obj, st| {
            let g = obj["metadata"]["generation"].as_i64();
            let mut conds = conditions_of(obj);
            let (reason, message) = words::NODE_READY;
            set_condition(&mut conds, "Ready", "True", reason, message, g, &now);
            set_condition(
                &mut conds,
                "LiveConfigApplied",
                "True",
                "ConfigApplied",
                "Live configuration is applied",
                g,
                &now,
            );
            st.insert("ready".into(), json!(true));
            st.insert("role".into(), json!(role));
            st.insert("podName".into(), json!(pod));
            st.insert("podIP".into(), json!(pod_ip));
            st.insert("observedGeneration".into(), json!(g));
            st.insert("conditions".into(), json!(conds));
            if let Some(h) = last_rollout_hash {
                st.insert("lastRolloutHash".into(), json!(h));
            }
        })
        .await
    }

    /// The node's workload, `valkey-<node>`, of the sim's workload kind.
    pub fn workload(&self) -> WorkloadSim<'a> {
        WorkloadSim {
            sim: self.sim,
            node: self.name.clone(),
            name: format!("valkey-{}", self.name),
            kind: self.sim.workload,
        }
    }

    /// The node's StatefulSet pod, `valkey-<node>-0`.
    pub fn pod(&self) -> PodSim<'a> {
        self.pod_named(&format!("valkey-{}-0", self.name))
    }

    /// The node's pod for template hash `h`: `valkey-<node>-0` for a
    /// StatefulSet, `valkey-<node>-<pod-template-hash>-<suffix>` for a
    /// Deployment.
    pub fn pod_for(&self, h: &str) -> PodSim<'a> {
        match self.sim.workload {
            WorkloadKind::StatefulSet => self.pod(),
            WorkloadKind::Deployment => {
                let suffix: String = hash(&format!("{}/{h}", self.name))[..5].to_string();
                self.pod_named(&format!(
                    "valkey-{}-{}-{suffix}",
                    self.name,
                    pod_template_hash(h)
                ))
            }
        }
    }

    pub fn pod_named(&self, name: &str) -> PodSim<'a> {
        PodSim {
            sim: self.sim,
            node: self.name.clone(),
            name: name.to_string(),
        }
    }
}

fn set_annotation(obj: &mut Value, key: &str, value: Option<&str>) {
    let meta = &mut obj["metadata"];
    if !meta["annotations"].is_object() {
        meta["annotations"] = json!({});
    }
    let anns = meta["annotations"].as_object_mut().expect("annotations");
    match value {
        Some(v) => {
            anns.insert(key.into(), json!(v));
        }
        None => {
            anns.remove(key);
        }
    }
}

/// A stable made-up pod IP for a node.
fn pod_ip(node: &str) -> String {
    let h = hash(node);
    let b = u8::from_str_radix(&h[..2], 16).unwrap_or(1);
    let c = u8::from_str_radix(&h[2..4], 16).unwrap_or(1).max(2);
    format!("10.244.{b}.{c}")
}

/// The StatefulSet or Deployment `valkey-<node>` of a node.
pub struct WorkloadSim<'a> {
    pub sim: &'a Sim,
    pub node: String,
    pub name: String,
    pub kind: WorkloadKind,
}

impl WorkloadSim<'_> {
    fn labels(&self) -> Value {
        json!({ LABEL_INSTANCE: self.node, LABEL_CLUSTER: self.sim.cluster })
    }

    /// The revision name (StatefulSet) or pod-template-hash (Deployment) of
    /// template hash `h`.
    pub fn revision(&self, h: &str) -> String {
        match self.kind {
            WorkloadKind::StatefulSet => sts_revision(&self.name, h),
            WorkloadKind::Deployment => pod_template_hash(h),
        }
    }

    /// Creates the workload with template hash `h` (one write); its status
    /// is empty until `rolled_out`/`catch_up`.
    pub async fn create(&self, h: &str) -> Value {
        let node = self.sim.node(&self.node).get().await;
        let image = node.data["spec"]["image"]
            .as_str()
            .unwrap_or("valkey/valkey:8.1.1")
            .to_string();
        let obj = json!({
            "metadata": {
                "name": self.name,
                "namespace": self.sim.ns,
                "labels": self.labels(),
                "ownerReferences": [{
                    "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
                    "name": self.node, "uid": node.metadata.uid,
                    "controller": true, "blockOwnerDeletion": true,
                }],
            },
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": self.labels()},
                "template": {
                    "metadata": {"labels": self.labels(), "annotations": {ANN_TEMPLATE_HASH: h}},
                    "spec": {"containers": [{"name": CONTAINER, "image": image}]},
                },
            },
        });
        match self.kind {
            WorkloadKind::StatefulSet => {
                let mut obj = obj;
                obj["spec"]["serviceName"] = json!(self.name);
                let sts: StatefulSet = serde_json::from_value(obj).expect("StatefulSet");
                let out = self.sim.statefulsets().create(&post(), &sts).await;
                serde_json::to_value(
                    out.unwrap_or_else(|e| panic!("create StatefulSet {}: {e}", self.name)),
                )
                .expect("json")
            }
            WorkloadKind::Deployment => {
                let dep: Deployment = serde_json::from_value(obj).expect("Deployment");
                let out = self.sim.deployments().create(&post(), &dep).await;
                serde_json::to_value(
                    out.unwrap_or_else(|e| panic!("create Deployment {}: {e}", self.name)),
                )
                .expect("json")
            }
        }
    }

    pub async fn get(&self) -> Value {
        match self.kind {
            WorkloadKind::StatefulSet => serde_json::to_value(
                self.sim
                    .statefulsets()
                    .get(&self.name)
                    .await
                    .unwrap_or_else(|e| panic!("get StatefulSet {}: {e}", self.name)),
            ),
            WorkloadKind::Deployment => serde_json::to_value(
                self.sim
                    .deployments()
                    .get(&self.name)
                    .await
                    .unwrap_or_else(|e| panic!("get Deployment {}: {e}", self.name)),
            ),
        }
        .expect("json")
    }

    /// Node controller, P1 step 3 / P2 apply: the new template (hash `h`)
    /// written with an Update (one write). `metadata.generation` moves at
    /// once; the status lags until `catch_up`.
    pub async fn apply_template(&self, h: &str) -> Value {
        let mut obj = self.get().await;
        if let Some(m) = obj.as_object_mut() {
            m.remove("status");
        }
        obj["spec"]["template"]["metadata"]["annotations"][ANN_TEMPLATE_HASH] = json!(h);
        match self.kind {
            WorkloadKind::StatefulSet => {
                let sts: StatefulSet = serde_json::from_value(obj).expect("StatefulSet");
                serde_json::to_value(
                    self.sim
                        .statefulsets()
                        .replace(&self.name, &post(), &sts)
                        .await
                        .unwrap_or_else(|e| panic!("update StatefulSet {}: {e}", self.name)),
                )
            }
            WorkloadKind::Deployment => {
                let dep: Deployment = serde_json::from_value(obj).expect("Deployment");
                serde_json::to_value(
                    self.sim
                        .deployments()
                        .replace(&self.name, &post(), &dep)
                        .await
                        .unwrap_or_else(|e| panic!("update Deployment {}: {e}", self.name)),
                )
            }
        }
        .expect("json")
    }

    /// A merge patch of the workload's status (one write), as the
    /// StatefulSet or Deployment controller writes it.
    pub async fn status_merge(&self, status: Value) -> Value {
        let pp = patch_params("kube-controller-manager");
        let patch = Patch::Merge(json!({ "status": status }));
        match self.kind {
            WorkloadKind::StatefulSet => serde_json::to_value(
                self.sim
                    .statefulsets()
                    .patch_status(&self.name, &pp, &patch)
                    .await
                    .unwrap_or_else(|e| panic!("patch StatefulSet {} status: {e}", self.name)),
            ),
            WorkloadKind::Deployment => serde_json::to_value(
                self.sim
                    .deployments()
                    .patch_status(&self.name, &pp, &patch)
                    .await
                    .unwrap_or_else(|e| panic!("patch Deployment {} status: {e}", self.name)),
            ),
        }
        .expect("json")
    }

    /// The workload controller has seen the new template: observed
    /// generation caught up, update revision on the new template, the
    /// current revision still the old one, the old pod going
    /// (StatefulSet: 0 ready; Deployment: the old pod still counted, the
    /// new one not ready). One write.
    pub async fn catch_up(&self) -> Value {
        let obj = self.get().await;
        let g = obj["metadata"]["generation"].clone();
        let h = template_hash_of(&obj);
        match self.kind {
            WorkloadKind::StatefulSet => {
                self.status_merge(json!({
                    "observedGeneration": g,
                    "replicas": 1, "readyReplicas": 0, "availableReplicas": 0,
                    "currentReplicas": 0, "updatedReplicas": 0,
                    "updateRevision": self.revision(&h),
                }))
                .await
            }
            WorkloadKind::Deployment => {
                self.status_merge(json!({
                    "observedGeneration": g,
                    "replicas": 2, "updatedReplicas": 1, "readyReplicas": 1,
                    "availableReplicas": 1, "unavailableReplicas": 1,
                }))
                .await
            }
        }
    }

    /// Rolled out on the current template: generation observed, revisions
    /// equal, one ready replica (one write).
    pub async fn rolled_out(&self) -> Value {
        let obj = self.get().await;
        let g = obj["metadata"]["generation"].clone();
        let h = template_hash_of(&obj);
        let now = self.sim.now_string();
        match self.kind {
            WorkloadKind::StatefulSet => {
                let rev = self.revision(&h);
                self.status_merge(json!({
                    "observedGeneration": g,
                    "replicas": 1, "readyReplicas": 1, "availableReplicas": 1,
                    "currentReplicas": 1, "updatedReplicas": 1,
                    "currentRevision": rev, "updateRevision": rev,
                }))
                .await
            }
            WorkloadKind::Deployment => {
                let mut conds = conditions_of(&obj);
                set_deploy_condition(
                    &mut conds,
                    "Available",
                    "True",
                    "MinimumReplicasAvailable",
                    "Deployment has minimum availability.",
                    &now,
                );
                set_deploy_condition(
                    &mut conds,
                    "Progressing",
                    "True",
                    "NewReplicaSetAvailable",
                    &format!(
                        "ReplicaSet \"{}-{}\" has successfully progressed.",
                        self.name,
                        self.revision(&h)
                    ),
                    &now,
                );
                self.status_merge(json!({
                    "observedGeneration": g,
                    "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
                    "availableReplicas": 1, "unavailableReplicas": null,
                    "conditions": conds,
                }))
                .await
            }
        }
    }

    /// Deployment: Progressing=False, reason ProgressDeadlineExceeded
    /// (one write).
    pub async fn progress_deadline_exceeded(&self) -> Value {
        let obj = self.get().await;
        let now = self.sim.now_string();
        let h = template_hash_of(&obj);
        let mut conds = conditions_of(&obj);
        set_deploy_condition(
            &mut conds,
            "Progressing",
            "False",
            "ProgressDeadlineExceeded",
            &format!(
                "ReplicaSet \"{}-{}\" has timed out progressing.",
                self.name,
                self.revision(&h)
            ),
            &now,
        );
        self.status_merge(json!({ "conditions": conds })).await
    }
}

/// Deployment conditions carry lastUpdateTime too.
fn set_deploy_condition(
    conds: &mut Vec<Value>,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    now: &str,
) {
    set_condition(conds, type_, status, reason, message, None, now);
    if let Some(c) = conds.iter_mut().find(|c| c["type"] == type_) {
        c["lastUpdateTime"] = json!(now);
    }
}

/// A pod of a node.
pub struct PodSim<'a> {
    pub sim: &'a Sim,
    pub node: String,
    pub name: String,
}

impl PodSim<'_> {
    pub async fn get(&self) -> Value {
        serde_json::to_value(
            self.sim
                .pods()
                .get(&self.name)
                .await
                .unwrap_or_else(|e| panic!("get Pod {}: {e}", self.name)),
        )
        .expect("json")
    }

    /// Creates the pod for template hash `h` (one write): the workload's
    /// labels plus `controller-revision-hash` (StatefulSet) or
    /// `pod-template-hash` (Deployment), owned by the workload, with the
    /// sim's finalizer. Its status is empty until a status write.
    pub async fn create(&self, h: &str) -> Value {
        let w = self.sim.node(&self.node).workload();
        let owner = w.get().await;
        let image = owner["spec"]["template"]["spec"]["containers"][0]["image"]
            .as_str()
            .unwrap_or("valkey/valkey:8.1.1")
            .to_string();
        let mut labels = w.labels();
        let owner_ref = match w.kind {
            WorkloadKind::StatefulSet => {
                labels["controller-revision-hash"] = json!(w.revision(h));
                labels["statefulset.kubernetes.io/pod-name"] = json!(self.name);
                json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "name": w.name,
                       "uid": owner["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true})
            }
            WorkloadKind::Deployment => {
                labels["pod-template-hash"] = json!(w.revision(h));
                json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                       "name": format!("{}-{}", w.name, w.revision(h)),
                       "uid": owner["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true})
            }
        };
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {
                "name": self.name,
                "namespace": self.sim.ns,
                "labels": labels,
                "annotations": {ANN_TEMPLATE_HASH: h},
                "ownerReferences": [owner_ref],
                "finalizers": [POD_FINALIZER],
            },
            "spec": {"containers": [{"name": CONTAINER, "image": image}]},
        }))
        .expect("Pod");
        serde_json::to_value(
            self.sim
                .pods()
                .create(&post(), &pod)
                .await
                .unwrap_or_else(|e| panic!("create Pod {}: {e}", self.name)),
        )
        .expect("json")
    }

    /// A merge patch of the pod's status (one write), as the kubelet's.
    pub async fn status_merge(&self, status: Value) -> Value {
        let pp = patch_params("kubelet");
        serde_json::to_value(
            self.sim
                .pods()
                .patch_status(&self.name, &pp, &Patch::Merge(json!({ "status": status })))
                .await
                .unwrap_or_else(|e| panic!("patch Pod {} status: {e}", self.name)),
        )
        .expect("json")
    }

    /// Writes the pod's status from one container state (one write).
    /// `state` is the container's `state` object; `last` its `lastState`.
    pub async fn container_status(
        &self,
        phase: &str,
        ready: bool,
        restarts: i32,
        state: Value,
        last: Option<Value>,
    ) -> Value {
        let pod = self.get().await;
        let now = self.sim.now_string();
        let image = pod["spec"]["containers"][0]["image"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let mut conds = conditions_of(&pod);
        let ready_s = if ready { "True" } else { "False" };
        set_pod_condition(&mut conds, "PodScheduled", "True", None, &now);
        set_pod_condition(&mut conds, "Initialized", "True", None, &now);
        let not_ready = (!ready).then_some((
            "ContainersNotReady",
            format!("containers with unready status: [{CONTAINER}]"),
        ));
        set_pod_condition(
            &mut conds,
            "ContainersReady",
            ready_s,
            not_ready.clone(),
            &now,
        );
        set_pod_condition(&mut conds, "Ready", ready_s, not_ready, &now);
        let ip = pod_ip(&self.node);
        let mut cs = json!({
            "name": CONTAINER,
            "image": image,
            "imageID": format!("docker.io/{image}@sha256:{}", hash(&image)),
            "containerID": format!("containerd://{}", hash(&format!("{}/{restarts}", self.name))),
            "ready": ready,
            "started": state.get("running").is_some(),
            "restartCount": restarts,
            "state": state,
        });
        if let Some(l) = last {
            cs["lastState"] = l;
        }
        let start_time = pod["status"]["startTime"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| now.clone());
        self.status_merge(json!({
            "phase": phase,
            "conditions": conds,
            "hostIP": "172.18.0.2",
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "startTime": start_time,
            "containerStatuses": [cs],
        }))
        .await
    }

    /// Running and Ready (one write).
    pub async fn running_ready(&self) -> Value {
        let now = self.sim.now_string();
        self.container_status(
            "Running",
            true,
            0,
            json!({"running": {"startedAt": now}}),
            None,
        )
        .await
    }

    /// Running, not Ready (readiness probe not passing yet; one write).
    pub async fn running_not_ready(&self) -> Value {
        let now = self.sim.now_string();
        self.container_status(
            "Running",
            false,
            0,
            json!({"running": {"startedAt": now}}),
            None,
        )
        .await
    }

    /// The container crash-loops: waiting CrashLoopBackOff after `restarts`
    /// restarts, last terminated with an error (one write).
    pub async fn crash_loop(&self, restarts: i32) -> Value {
        let now = self.sim.now_string();
        self.container_status(
            "Running",
            false,
            restarts,
            json!({"waiting": {
                "reason": "CrashLoopBackOff",
                "message": format!("back-off 5m0s restarting failed container={CONTAINER} pod={}_{}", self.name, self.sim.ns),
            }}),
            Some(json!({"terminated": {"exitCode": 1, "reason": "Error", "startedAt": now, "finishedAt": now}})),
        )
        .await
    }

    /// The image cannot be pulled: waiting ImagePullBackOff (one write).
    pub async fn image_pull_backoff(&self) -> Value {
        let pod = self.get().await;
        let image = pod["spec"]["containers"][0]["image"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        self.container_status(
            "Pending",
            false,
            0,
            json!({"waiting": {
                "reason": "ImagePullBackOff",
                "message": format!("Back-off pulling image \"{image}\""),
            }}),
            None,
        )
        .await
    }

    /// The pod is deleted; the sim's finalizer keeps it visible with
    /// `metadata.deletionTimestamp` (one write).
    pub async fn begin_delete(&self) {
        self.sim
            .pods()
            .delete(&self.name, &DeleteParams::default())
            .await
            .unwrap_or_else(|e| panic!("delete Pod {}: {e}", self.name));
    }

    /// The finalizer removed: the deleted pod is gone (one write).
    pub async fn finish_delete(&self) {
        self.sim
            .pods()
            .patch(
                &self.name,
                &patch_params(MANAGER),
                &Patch::Merge(json!({"metadata": {"finalizers": null}})),
            )
            .await
            .unwrap_or_else(|e| panic!("remove finalizer of Pod {}: {e}", self.name));
    }
}

/// The template hash a workload object's pod template carries.
fn template_hash_of(workload: &Value) -> String {
    workload["spec"]["template"]["metadata"]["annotations"][ANN_TEMPLATE_HASH]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Pod conditions: status, optional (reason, message); the transition time
/// moves only on a change.
fn set_pod_condition(
    conds: &mut Vec<Value>,
    type_: &str,
    status: &str,
    why: Option<(&str, String)>,
    now: &str,
) {
    let mut c =
        json!({"type": type_, "status": status, "lastTransitionTime": now, "lastProbeTime": null});
    if let Some((reason, message)) = why {
        c["reason"] = json!(reason);
        c["message"] = json!(message);
    }
    upsert_condition(conds, c);
}

/// The API resource of one of the six kinds the plugin reads, by an
/// object's `apiVersion` and `kind`: for writing a List's items (a
/// recording, the bench's cluster) as they come. Panics on another kind.
pub fn api_resource(api_version: &str, kind: &str) -> ApiResource {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let plural = match kind {
        "ValkeyCluster" => "valkeyclusters",
        "ValkeyNode" => "valkeynodes",
        "StatefulSet" => "statefulsets",
        "Deployment" => "deployments",
        "Pod" => "pods",
        "Event" => "events",
        other => panic!("not a kind the plugin reads: {other}"),
    };
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural)
}
