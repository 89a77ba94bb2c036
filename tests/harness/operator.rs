//! A simulated valkey-operator that runs against the real control plane
//! (`controlplane.rs`): it writes only what the operator writes, and the
//! real controllers do the rest (StatefulSet status, pod creation, deletion
//! and replacement).
//!
//! ```ignore
//! let cp = harness::control_plane();
//! let op = Operator::start(cp.client().await, &cp.fresh_namespace("x"), "rig");
//! op.create_cluster("valkey/valkey:9.0.0", 2, 1).await;   // a person: kubectl apply
//! op.sim.edit_cluster_spec(json!({"image": "valkey/valkey:9.0.1"})).await; // a person
//! op.stop().await;                                        // the operator's errors, if any
//! ```
//!
//! It is a control loop, as the operator is: every 200 ms it reads the
//! ValkeyCluster, its ValkeyNodes, StatefulSets and pods (one GET, three
//! LISTs) and makes at most what the operator's two controllers would make
//! of that state, one API call per write, with field manager `manager`:
//!
//! - the cluster controller creates the missing ValkeyNodes (event
//!   `ValkeyNodeCreated`), then walks the nodes in walk order (shard index
//!   ascending; node index descending in each shard, as the operator does
//!   with no Valkey topology to read: `status.role` stays empty) and stops
//!   at the first node that needs something: a node whose `spec.image` is
//!   not the cluster's gets the new image and `spec.workloadRevision` in one
//!   Update (event `ValkeyNodeUpdated`; cluster status `UpdatingNodes`); a
//!   node that is not ready, or whose generation is not observed, is waited
//!   on. When every node is ready and up to date, the cluster is Ready for
//!   its generation (event `ClusterReady`), as the operator makes it once
//!   its Valkey servers answer;
//! - the node controller creates the node's StatefulSet, applies a new
//!   template when the node's spec moved (event `WorkloadRollApplied`; node
//!   status not ready for the new generation), and writes the node's status
//!   from its pod: `podName`; not ready (`Pod does not exist yet`, `Pod is
//!   not ready`) until the pod is Ready on the StatefulSet's update
//!   revision, then `ready: true`, Ready=True `PodRunning` and the pod's IP;
//!   `podIP` removed while the pod is gone.
//!
//! The strings (labels, condition reasons and messages, event reasons,
//! actions and notes, status fields) are the real operator's, from
//! ../shared/recordings (main c33988f) and, for the Ready cluster the
//! recordings never reach, from the operator's source. A write the API
//! server refuses with a conflict is retried on the next pass, as a
//! controller requeues; any other failure is kept and returned by
//! [`Operator::stop`].

use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::apps::v1::StatefulSet;
use kube::api::{DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::sim::{self, CLUSTER_CONTROLLER, MANAGER, NODE_CONTROLLER, Sim, set_condition};

/// How often the control loop looks at the cluster.
const PERIOD: Duration = Duration::from_millis(200);
/// The field manager of `kubectl apply` (client side).
const APPLY: &str = "kubectl-client-side-apply";

/// The labels the operator puts on a ValkeyNode (its `instance` is the
/// cluster).
pub fn node_labels(cluster: &str, shard: u32, idx: u32) -> Value {
    json!({
        "app.kubernetes.io/component": "valkey-node",
        "app.kubernetes.io/instance": cluster,
        "app.kubernetes.io/managed-by": "valkey-operator",
        "app.kubernetes.io/name": "valkey",
        "app.kubernetes.io/part-of": "valkey",
        sim::LABEL_CLUSTER: cluster,
        sim::LABEL_NODE: idx.to_string(),
        sim::LABEL_SHARD: shard.to_string(),
    })
}

/// The labels of a node's StatefulSet, its selector and its pods (their
/// `instance` is the node).
pub fn workload_labels(cluster: &str, node: &str, shard: u32, idx: u32) -> Value {
    let mut l = node_labels(cluster, shard, idx);
    l["app.kubernetes.io/instance"] = json!(node);
    l
}

/// The node's `spec.workloadRevision` for an image: the operator's sha256
/// of the node's pod template, here a stand-in that differs per node and
/// per image, as the real one does.
pub fn workload_revision(node: &str, image: &str) -> String {
    sim::hash(&format!("{node}/{image}"))
}

/// The simulated operator, running in the background on the test's tokio
/// runtime. Dropping it stops the loop.
pub struct Operator {
    pub sim: Arc<Sim>,
    task: Option<JoinHandle<()>>,
    errors: Arc<Mutex<Vec<String>>>,
}

impl Operator {
    /// Starts the control loop for cluster `cluster` in `ns`. It writes
    /// nothing until the ValkeyCluster exists.
    pub fn start(client: kube::Client, ns: &str, cluster: &str) -> Operator {
        let sim = Arc::new(Sim::new(client, ns, cluster));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let (s, e) = (sim.clone(), errors.clone());
        let task = tokio::spawn(async move {
            loop {
                if let Err(err) = reconcile(&s).await {
                    e.lock().unwrap().push(err);
                }
                tokio::time::sleep(PERIOD).await;
            }
        });
        Operator {
            sim,
            task: Some(task),
            errors,
        }
    }

    /// A person creates the ValkeyCluster (`kubectl apply`): `shards`
    /// shards of `1 + replicas` nodes, StatefulSets, `image`.
    pub async fn create_cluster(&self, image: &str, shards: u32, replicas: u32) {
        let obj: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "valkey.io/v1alpha1",
            "kind": "ValkeyCluster",
            "metadata": {"name": self.sim.cluster, "namespace": self.sim.ns},
            "spec": {"image": image, "shards": shards, "replicas": replicas,
                     "workloadType": "StatefulSet", "exporter": {"enabled": true}},
        }))
        .expect("a ValkeyCluster");
        let pp = PostParams {
            field_manager: Some(APPLY.into()),
            ..Default::default()
        };
        self.sim
            .clusters()
            .create(&pp, &obj)
            .await
            .unwrap_or_else(|e| panic!("create ValkeyCluster {}: {e}", self.sim.cluster));
    }

    /// Waits until there are `count` ValkeyNodes, every one ready on
    /// `image` with its generation observed (the operator's errors fail
    /// the wait at once, through [`Operator::check`]).
    pub async fn settled(&self, count: usize, image: &str, bound: Duration) {
        let sim = self.sim.clone();
        super::controlplane::eventually("every node ready on its image", bound, || {
            let sim = sim.clone();
            async move {
                self.check();
                let nodes = sim
                    .nodes()
                    .list(&Default::default())
                    .await
                    .map_err(|e| e.to_string())?;
                let ok = nodes.items.len() == count
                    && nodes.items.iter().all(|n| {
                        let v = serde_json::to_value(n).unwrap();
                        v["status"]["ready"] == true
                            && v["status"]["observedGeneration"] == v["metadata"]["generation"]
                            && v["spec"]["image"] == image
                    });
                if ok {
                    Ok(())
                } else {
                    Err(format!(
                        "{} nodes, not all ready on {image}",
                        nodes.items.len()
                    ))
                }
            }
        })
        .await;
    }

    /// Panics when the control loop died (a panic in it) or kept an error.
    pub fn check(&self) {
        if let Some(t) = &self.task {
            assert!(!t.is_finished(), "the simulated operator's loop ended");
        }
        let errors = self.errors.lock().unwrap();
        assert!(
            errors.is_empty(),
            "the simulated operator failed:\n{}",
            errors.join("\n")
        );
    }

    /// Stops the loop; panics with its errors if it had any (or panicked).
    pub async fn stop(mut self) {
        if let Some(t) = self.task.take() {
            if t.is_finished() {
                if let Err(e) = t.await {
                    panic!("the simulated operator panicked: {e}");
                }
            } else {
                t.abort();
            }
        }
        self.check();
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

/// What one pass reads.
struct View {
    cluster: Value,
    nodes: Vec<Value>,
    workloads: Vec<Value>,
    pods: Vec<Value>,
}

impl View {
    fn node(&self, name: &str) -> Option<&Value> {
        self.nodes.iter().find(|n| n["metadata"]["name"] == name)
    }
    fn workload(&self, node: &str) -> Option<&Value> {
        let name = format!("valkey-{node}");
        self.workloads
            .iter()
            .find(|w| w["metadata"]["name"] == name)
    }
    fn pod(&self, node: &str) -> Option<&Value> {
        let name = format!("valkey-{node}-0");
        self.pods.iter().find(|p| p["metadata"]["name"] == name)
    }
}

/// A write error that a controller retries on its next pass.
fn retried(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 409 || s.code == 404)
}

/// The result of a write: Ok for success and for what is retried.
fn wrote<T>(what: &str, r: Result<T, kube::Error>) -> Result<bool, String> {
    match r {
        Ok(_) => Ok(true),
        Err(e) if retried(&e) => Ok(false),
        Err(e) => Err(format!("{what}: {e}")),
    }
}

async fn read(sim: &Sim) -> Result<Option<View>, String> {
    let Some(cluster) = sim
        .clusters()
        .get_opt(&sim.cluster)
        .await
        .map_err(|e| format!("get ValkeyCluster: {e}"))?
    else {
        return Ok(None);
    };
    let lp = ListParams::default().labels(&format!("{}={}", sim::LABEL_CLUSTER, sim.cluster));
    let (nodes_api, sts_api, pods_api) = (sim.nodes(), sim.statefulsets(), sim.pods());
    let (nodes, workloads, pods) =
        tokio::try_join!(nodes_api.list(&lp), sts_api.list(&lp), pods_api.list(&lp))
            .map_err(|e| format!("list the cluster's objects: {e}"))?;
    Ok(Some(View {
        cluster: serde_json::to_value(cluster).expect("json"),
        nodes: nodes.items.iter().map(to_json).collect(),
        workloads: workloads.items.iter().map(to_json).collect(),
        pods: pods.items.iter().map(to_json).collect(),
    }))
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("json")
}

/// One pass of both controllers.
async fn reconcile(sim: &Sim) -> Result<(), String> {
    let Some(view) = read(sim).await? else {
        return Ok(());
    };
    if cluster_controller(sim, &view).await? {
        // It wrote: look again next pass, as a requeue would.
        return Ok(());
    }
    for node in &view.nodes {
        node_controller(sim, &view, node).await?;
    }
    Ok(())
}

/// The desired node positions in walk order (no topology): shard index
/// ascending, node index descending.
fn walk_order(shards: u32, replicas: u32) -> Vec<(u32, u32)> {
    (0..shards)
        .flat_map(|s| (0..=replicas).rev().map(move |i| (s, i)))
        .collect()
}

fn ready_for_generation(node: &Value) -> bool {
    node["status"]["ready"] == true
        && node["status"]["observedGeneration"] == node["metadata"]["generation"]
}

/// The cluster controller's pass; true when it wrote something.
async fn cluster_controller(sim: &Sim, view: &View) -> Result<bool, String> {
    let vc = &view.cluster;
    let image = vc["spec"]["image"].as_str().unwrap_or_default().to_string();
    let shards = vc["spec"]["shards"].as_u64().unwrap_or(1) as u32;
    let replicas = vc["spec"]["replicas"].as_u64().unwrap_or(0) as u32;
    let order = walk_order(shards, replicas);

    let mut created = false;
    for &(shard, idx) in &order {
        let name = sim.node_name(shard, idx);
        if view.node(&name).is_none() {
            created |= create_node(sim, vc, &name, shard, idx, &image).await?;
        }
    }
    if created {
        set_cluster_status(
            sim,
            vc,
            ("Reconciling", "Reconciling", "Creating shards"),
            &[
                (
                    "Ready",
                    "False",
                    "MissingShards",
                    "Waiting for all shards to be created",
                ),
                ("Progressing", "True", "Reconciling", "Creating shards"),
                (
                    "ClusterFormed",
                    "False",
                    "MissingShards",
                    "Waiting for shards",
                ),
            ],
        )
        .await?;
        return Ok(true);
    }

    for &(shard, idx) in &order {
        let name = sim.node_name(shard, idx);
        let Some(node) = view.node(&name) else {
            return Ok(false);
        };
        if node["spec"]["image"] != image.as_str() {
            return advance(sim, vc, node, &image).await;
        }
        if !ready_for_generation(node) {
            return Ok(false);
        }
    }
    // Every node ready and up to date.
    let ready = &vc["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready").cloned())
        .unwrap_or(Value::Null);
    if ready["status"] == "True" && ready["observedGeneration"] == vc["metadata"]["generation"] {
        return Ok(false);
    }
    let reg = sim.cluster_ref().await;
    sim.event(
        CLUSTER_CONTROLLER,
        reg,
        None,
        "Normal",
        "ClusterReady",
        "ReconcileCluster",
        &format!("Cluster ready with {shards} shards and {replicas} replicas"),
    )
    .await;
    set_cluster_status(
        sim,
        vc,
        ("Ready", "ClusterHealthy", "Cluster is healthy"),
        &[
            ("Ready", "True", "ClusterHealthy", "Cluster is healthy"),
            (
                "Progressing",
                "False",
                "ReconcileComplete",
                "No changes needed",
            ),
            (
                "ClusterFormed",
                "True",
                "TopologyComplete",
                "All nodes joined cluster",
            ),
            (
                "SlotsAssigned",
                "True",
                "AllSlotsAssigned",
                "All slots assigned",
            ),
        ],
    )
    .await?;
    Ok(true)
}

/// Creates a ValkeyNode as the cluster controller does (one write, then
/// its event).
async fn create_node(
    sim: &Sim,
    vc: &Value,
    name: &str,
    shard: u32,
    idx: u32,
    image: &str,
) -> Result<bool, String> {
    let obj: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "valkey.io/v1alpha1",
        "kind": "ValkeyNode",
        "metadata": {
            "name": name,
            "namespace": sim.ns,
            "labels": node_labels(&sim.cluster, shard, idx),
            "ownerReferences": [{
                "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
                "name": sim.cluster, "uid": vc["metadata"]["uid"],
                "controller": true, "blockOwnerDeletion": true,
            }],
        },
        "spec": {
            "exporter": {"enabled": true, "resources": {}},
            "image": image,
            "resources": {},
            "serverConfigMapName": format!("valkey-{}", sim.cluster),
            "usersACLSecretName": format!("internal-{}-acl", sim.cluster),
            "workloadRevision": workload_revision(name, image),
            "workloadType": "StatefulSet",
        },
    }))
    .expect("a ValkeyNode");
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    if !wrote(
        &format!("create ValkeyNode {name}"),
        sim.nodes().create(&pp, &obj).await,
    )? {
        return Ok(false);
    }
    let (reg, rel) = (sim.cluster_ref().await, sim.node_ref(name).await);
    sim.event(
        CLUSTER_CONTROLLER,
        reg,
        Some(rel),
        "Normal",
        "ValkeyNodeCreated",
        "CreateValkeyNode",
        &format!("Created ValkeyNode for shard {shard} node {idx}"),
    )
    .await;
    Ok(true)
}

/// P2, Spec-driven: the node's new image and workload revision in one
/// Update, its event, and the cluster's status.
async fn advance(sim: &Sim, vc: &Value, node: &Value, image: &str) -> Result<bool, String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let mut obj = node.clone();
    if let Some(m) = obj.as_object_mut() {
        m.remove("status");
    }
    obj["spec"]["image"] = json!(image);
    obj["spec"]["workloadRevision"] = json!(workload_revision(name, image));
    let obj: DynamicObject = serde_json::from_value(obj).expect("a ValkeyNode");
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    if !wrote(
        &format!("update ValkeyNode {name}"),
        sim.nodes().replace(name, &pp, &obj).await,
    )? {
        return Ok(false);
    }
    let (reg, rel) = (sim.cluster_ref().await, sim.node_ref(name).await);
    sim.event(
        CLUSTER_CONTROLLER,
        reg,
        Some(rel),
        "Normal",
        "ValkeyNodeUpdated",
        "UpdateValkeyNode",
        &format!("Updated ValkeyNode {name}"),
    )
    .await;
    set_cluster_status(
        sim,
        vc,
        ("Reconciling", "UpdatingNodes", "Updating ValkeyNodes"),
        &[
            ("Ready", "False", "UpdatingNodes", "Updating ValkeyNodes"),
            (
                "Progressing",
                "True",
                "UpdatingNodes",
                "Updating ValkeyNodes",
            ),
        ],
    )
    .await?;
    Ok(true)
}

/// The cluster's state, reason, message and conditions (each for the
/// current generation), written only when they differ from what is there
/// (the operator's `statusChanged`). One write.
async fn set_cluster_status(
    sim: &Sim,
    vc: &Value,
    (state, reason, message): (&str, &str, &str),
    conditions: &[(&str, &str, &str, &str)],
) -> Result<(), String> {
    let generation = vc["metadata"]["generation"].as_i64();
    let old = vc["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut conds = old.clone();
    let now = sim.now_string();
    for (t, s, r, m) in conditions {
        set_condition(&mut conds, t, s, r, m, generation, &now);
    }
    let shards = vc["spec"]["shards"].as_i64().unwrap_or(1);
    let ready_shards = if state == "Ready" { shards } else { 0 };
    let st = &vc["status"];
    if st["state"] == state
        && st["reason"] == reason
        && st["message"] == message
        && st["readyShards"] == ready_shards
        && conds == old
    {
        return Ok(());
    }
    let patch = json!({"status": {
        "state": state, "reason": reason, "message": message,
        "shards": shards, "readyShards": ready_shards, "conditions": conds,
    }});
    wrote(
        "patch ValkeyCluster status",
        sim.clusters()
            .patch_status(&sim.cluster, &patch_params(), &Patch::Merge(patch))
            .await,
    )
    .map(|_| ())
}

fn patch_params() -> PatchParams {
    PatchParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    }
}

/// The node controller's pass for one node.
async fn node_controller(sim: &Sim, view: &View, node: &Value) -> Result<(), String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let shard: u32 = node["metadata"]["labels"][sim::LABEL_SHARD]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let idx: u32 = node["metadata"]["labels"][sim::LABEL_NODE]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let image = node["spec"]["image"].as_str().unwrap_or_default();
    let Some(sts) = view.workload(name) else {
        create_workload(sim, node, name, shard, idx, image).await?;
        return node_status(sim, node, None, None).await;
    };
    let template_image = &sts["spec"]["template"]["spec"]["containers"][0]["image"];
    if template_image != image {
        return apply_template(sim, node, sts, image).await;
    }
    node_status(sim, node, Some(sts), view.pod(name)).await
}

/// The node's StatefulSet, as the node controller creates it (one write).
async fn create_workload(
    sim: &Sim,
    node: &Value,
    name: &str,
    shard: u32,
    idx: u32,
    image: &str,
) -> Result<(), String> {
    let labels = workload_labels(&sim.cluster, name, shard, idx);
    let workload = format!("valkey-{name}");
    let sts: StatefulSet = serde_json::from_value(json!({
        "metadata": {
            "name": workload,
            "namespace": sim.ns,
            "labels": labels,
            "ownerReferences": [{
                "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
                "name": name, "uid": node["metadata"]["uid"],
                "controller": true, "blockOwnerDeletion": true,
            }],
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "serviceName": workload,
            "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "template": {
                "metadata": {
                    "labels": labels,
                    "annotations": {"valkey.io/config-hash": sim::hash(&format!("{}/config", sim.cluster))},
                },
                "spec": {"containers": [{"name": sim::CONTAINER, "image": image}]},
            },
        },
    }))
    .expect("a StatefulSet");
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    wrote(
        &format!("create StatefulSet {workload}"),
        sim.statefulsets().create(&pp, &sts).await,
    )
    .map(|_| ())
}

/// P2 apply: the node's image in its StatefulSet's template (one Update),
/// `WorkloadRollApplied`, and the node's status not ready for its
/// generation.
async fn apply_template(sim: &Sim, node: &Value, sts: &Value, image: &str) -> Result<(), String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let mut obj = sts.clone();
    if let Some(m) = obj.as_object_mut() {
        m.remove("status");
    }
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image);
    let obj: StatefulSet = serde_json::from_value(obj).expect("a StatefulSet");
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    let workload = format!("valkey-{name}");
    if !wrote(
        &format!("update StatefulSet {workload}"),
        sim.statefulsets().replace(&workload, &pp, &obj).await,
    )? {
        return Ok(());
    }
    let revision = node["spec"]["workloadRevision"]
        .as_str()
        .unwrap_or_default();
    let reg = sim.node_ref(name).await;
    sim.event(
        NODE_CONTROLLER,
        reg,
        None,
        "Normal",
        "WorkloadRollApplied",
        "ApplyWorkloadRoll",
        &format!("Applied pod template update (hash {revision})"),
    )
    .await;
    let mut conds = node["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let generation = node["metadata"]["generation"].as_i64();
    set_condition(
        &mut conds,
        "Ready",
        "False",
        "PodNotReady",
        "Pod is not ready",
        generation,
        &sim.now_string(),
    );
    node_status_patch(
        sim,
        name,
        json!({"conditions": conds, "observedGeneration": generation, "ready": null}),
    )
    .await
}

/// The node's status from its StatefulSet and pod, written when it differs
/// from what is there (one write).
async fn node_status(
    sim: &Sim,
    node: &Value,
    sts: Option<&Value>,
    pod: Option<&Value>,
) -> Result<(), String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let st = &node["status"];
    let generation = node["metadata"]["generation"].as_i64();
    let pod_ready_on_update = match (sts, pod) {
        (Some(sts), Some(pod)) => {
            sts["status"]["observedGeneration"] == sts["metadata"]["generation"]
                && pod["metadata"]["labels"]["controller-revision-hash"]
                    == sts["status"]["updateRevision"]
                && pod["metadata"]["deletionTimestamp"].is_null()
                && pod_condition(pod, "Ready") == "True"
        }
        _ => false,
    };
    let (status, reason, message) = if pod_ready_on_update {
        ("True", "PodRunning", "Pod is running and ready")
    } else if pod.is_some() || st["podName"].is_string() {
        // Not ready, or gone while it is replaced.
        ("False", "PodNotReady", "Pod is not ready")
    } else {
        ("False", "PodNotReady", "Pod does not exist yet")
    };
    let old_conds = st["conditions"].as_array().cloned().unwrap_or_default();
    let mut conds = old_conds.clone();
    set_condition(
        &mut conds,
        "Ready",
        status,
        reason,
        message,
        generation,
        &sim.now_string(),
    );

    let mut patch = serde_json::Map::new();
    if conds != old_conds {
        patch.insert("conditions".into(), json!(conds));
    }
    if st["observedGeneration"].as_i64() != generation {
        patch.insert("observedGeneration".into(), json!(generation));
    }
    let pod_name = pod.map(|p| p["metadata"]["name"].clone());
    if let Some(n) = &pod_name
        && st["podName"] != *n
    {
        patch.insert("podName".into(), n.clone());
    }
    let ready = pod_ready_on_update.then_some(true);
    if st["ready"].as_bool() != ready {
        patch.insert("ready".into(), json!(ready));
    }
    let ip = pod
        .map(|p| p["status"]["podIP"].clone())
        .unwrap_or(Value::Null);
    if pod_ready_on_update && st["podIP"] != ip {
        patch.insert("podIP".into(), ip);
    } else if pod.is_none() && !st["podIP"].is_null() {
        patch.insert("podIP".into(), Value::Null);
    }
    if patch.is_empty() {
        return Ok(());
    }
    node_status_patch(sim, name, Value::Object(patch)).await
}

fn pod_condition<'a>(pod: &'a Value, type_: &str) -> &'a str {
    pod["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
        .and_then(|c| c["status"].as_str())
        .unwrap_or("")
}

async fn node_status_patch(sim: &Sim, name: &str, status: Value) -> Result<(), String> {
    wrote(
        &format!("patch ValkeyNode {name} status"),
        sim.nodes()
            .patch_status(
                name,
                &patch_params(),
                &Patch::Merge(json!({ "status": status })),
            )
            .await,
    )
    .map(|_| ())
}
