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
//!
//! // Deployment-backed nodes (`spec.workloadType: Deployment`):
//! op.create_cluster_with("valkey/valkey:9.0.0", 2, 1, WorkloadKind::Deployment).await;
//! // The operator killed right after a step (its loop ends there):
//! let op = Operator::start_halting(client, &ns, "rig", |s| *s == Step::Applied("rig-0-1".into()));
//! op.writes();                                            // its log: what it wrote, in order
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
//! - with `spec.workloadType: Deployment` on the ValkeyCluster (and so on
//!   its nodes), the node's workload is a Deployment `valkey-<node>` (same
//!   labels, 1 replica, strategy Recreate, as in
//!   ../shared/recordings/j-deploy), a new template is applied by updating
//!   it, and the real Deployment and ReplicaSet controllers replace the pod
//!   (a generated name, `valkey-<node>-<pod-template-hash>-<suffix>`). The
//!   node's status follows its current pod (the one not being deleted, the
//!   newest), and is ready only when that pod is Ready on the Deployment's
//!   template, no other pod of the node is left, and the Deployment reports
//!   the roll done for its generation (updated, ready): the operator of the
//!   recording wrote `ready` right after the Deployment's status said so.
//!
//! The loop keeps a log of its steps ([`Operator::writes`]): each step is
//! entered as `Sending` right before its first write goes out and as
//! `Accepted` (or `Refused`) once the API server answered, so a test that
//! reads the log before and after reading the API knows what the operator
//! may have written in between. A loop started with
//! [`Operator::start_halting`] ends right after the step it names (that
//! step's own writes done: its event and status), as an operator killed
//! there would; kube-controller-manager, the scheduler and kwok go on.
//!
//! The strings (labels, condition reasons and messages, event reasons,
//! actions and notes, status fields) are the real operator's, from
//! ../shared/recordings (main c33988f) and, for the Ready cluster the
//! recordings never reach, from the operator's source. A write the API
//! server refuses with a conflict is retried on the next pass, as a
//! controller requeues; any other failure is kept and returned by
//! [`Operator::stop`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use kube::api::{DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::sim::{
    self, CLUSTER_CONTROLLER, MANAGER, NODE_CONTROLLER, Sim, WorkloadKind, set_condition,
};

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

/// A step of the operator, as its log names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The cluster controller created this ValkeyNode (and its event).
    NodeCreated(String),
    /// The cluster controller advanced this node: its new `spec.image` and
    /// `spec.workloadRevision` in one Update (then `ValkeyNodeUpdated` and
    /// the cluster's status).
    Advanced(String),
    /// The node controller applied this node's new template to its
    /// workload (then `WorkloadRollApplied` and the node's status not
    /// ready for its generation).
    Applied(String),
    /// The node controller wrote this node's status ready for its
    /// generation.
    NodeReady(String),
    /// The cluster controller wrote the ValkeyCluster Ready for its
    /// generation (after its `ClusterReady` event).
    ClusterReady,
}

/// Where a step's write stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// About to go out: from here on the API may show it.
    Sending,
    /// The API server accepted it.
    Accepted,
    /// The API server refused it (a conflict: retried on a later pass).
    Refused,
}

/// One entry of the operator's log.
#[derive(Clone, Debug)]
pub struct Entry {
    pub step: Step,
    pub outcome: Outcome,
}

type HaltAfter = Box<dyn Fn(&Step) -> bool + Send + Sync>;

/// The loop's log, and where it halts.
struct Log {
    entries: Mutex<Vec<Entry>>,
    halt_after: Option<HaltAfter>,
    halted: AtomicBool,
}

impl Log {
    fn new(halt_after: Option<HaltAfter>) -> Log {
        Log {
            entries: Mutex::new(Vec::new()),
            halt_after,
            halted: AtomicBool::new(false),
        }
    }

    fn enter(&self, step: &Step, outcome: Outcome) {
        self.entries.lock().unwrap().push(Entry {
            step: step.clone(),
            outcome,
        });
    }

    /// Enters `step` as Sending, runs its first write, and enters the
    /// outcome; a step the halt names, accepted, halts the loop once the
    /// step's other writes are done (the callers check [`Log::halted`]).
    async fn write<T>(
        &self,
        step: Step,
        what: &str,
        call: impl std::future::Future<Output = Result<T, kube::Error>>,
    ) -> Result<bool, String> {
        self.enter(&step, Outcome::Sending);
        let r = wrote(what, call.await);
        let outcome = match r {
            Ok(true) => Outcome::Accepted,
            _ => Outcome::Refused,
        };
        self.enter(&step, outcome);
        if outcome == Outcome::Accepted && self.halt_after.as_ref().is_some_and(|h| h(&step)) {
            self.halted.store(true, Ordering::SeqCst);
        }
        r
    }

    fn halted(&self) -> bool {
        self.halted.load(Ordering::SeqCst)
    }
}

/// The simulated operator, running in the background on the test's tokio
/// runtime. Dropping it stops the loop.
pub struct Operator {
    pub sim: Arc<Sim>,
    task: Option<JoinHandle<()>>,
    errors: Arc<Mutex<Vec<String>>>,
    log: Arc<Log>,
}

impl Operator {
    /// Starts the control loop for cluster `cluster` in `ns`. It writes
    /// nothing until the ValkeyCluster exists.
    pub fn start(client: kube::Client, ns: &str, cluster: &str) -> Operator {
        Operator::launch(client, ns, cluster, None)
    }

    /// [`Operator::start`], and the loop ends right after the first
    /// accepted step that `halt_after` names (with that step's event and
    /// status written), as an operator killed there would.
    pub fn start_halting(
        client: kube::Client,
        ns: &str,
        cluster: &str,
        halt_after: impl Fn(&Step) -> bool + Send + Sync + 'static,
    ) -> Operator {
        Operator::launch(client, ns, cluster, Some(Box::new(halt_after)))
    }

    fn launch(
        client: kube::Client,
        ns: &str,
        cluster: &str,
        halt_after: Option<HaltAfter>,
    ) -> Operator {
        let sim = Arc::new(Sim::new(client, ns, cluster));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::new(Log::new(halt_after));
        let (s, e, l) = (sim.clone(), errors.clone(), log.clone());
        let task = tokio::spawn(async move {
            while !l.halted() {
                if let Err(err) = reconcile(&s, &l).await {
                    e.lock().unwrap().push(err);
                }
                if l.halted() {
                    break;
                }
                tokio::time::sleep(PERIOD).await;
            }
        });
        Operator {
            sim,
            task: Some(task),
            errors,
            log,
        }
    }

    /// A person creates the ValkeyCluster (`kubectl apply`): `shards`
    /// shards of `1 + replicas` nodes, StatefulSets, `image`.
    pub async fn create_cluster(&self, image: &str, shards: u32, replicas: u32) {
        create_cluster(
            &self.sim,
            image,
            shards,
            replicas,
            WorkloadKind::StatefulSet,
        )
        .await;
    }

    /// [`Operator::create_cluster`] with nodes backed by `workload`.
    pub async fn create_cluster_with(
        &self,
        image: &str,
        shards: u32,
        replicas: u32,
        workload: WorkloadKind,
    ) {
        create_cluster(&self.sim, image, shards, replicas, workload).await;
    }

    /// The steps so far, in the order they were entered.
    pub fn writes(&self) -> Vec<Entry> {
        self.log.entries.lock().unwrap().clone()
    }

    /// How many entries the log has (an index into [`Operator::writes`]).
    pub fn writes_len(&self) -> usize {
        self.log.entries.lock().unwrap().len()
    }

    /// The loop ended at the step [`Operator::start_halting`] named.
    pub fn halted(&self) -> bool {
        self.log.halted() && self.task.as_ref().is_none_or(|t| t.is_finished())
    }

    /// Waits (at most `bound`) until the loop halted.
    pub async fn until_halted(&self, bound: Duration) {
        super::controlplane::eventually("the simulated operator halting", bound, || async {
            self.check();
            if self.halted() {
                Ok(())
            } else {
                Err(format!(
                    "running; its last steps: {:?}",
                    last_steps(&self.writes(), 4)
                ))
            }
        })
        .await;
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

    /// Panics when the control loop died (a panic in it; a halt is not a
    /// death) or kept an error.
    pub fn check(&self) {
        if let Some(t) = &self.task {
            assert!(
                !t.is_finished() || self.log.halted(),
                "the simulated operator's loop ended"
            );
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

/// A person creates the ValkeyCluster (`kubectl apply`, whether an operator
/// runs or not): `shards` shards of `1 + replicas` nodes backed by
/// `workload`, `image`.
pub async fn create_cluster(
    sim: &Sim,
    image: &str,
    shards: u32,
    replicas: u32,
    workload: WorkloadKind,
) {
    let obj: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "valkey.io/v1alpha1",
        "kind": "ValkeyCluster",
        "metadata": {"name": sim.cluster, "namespace": sim.ns},
        "spec": {"image": image, "shards": shards, "replicas": replicas,
                 "workloadType": workload.as_str(), "exporter": {"enabled": true}},
    }))
    .expect("a ValkeyCluster");
    let pp = PostParams {
        field_manager: Some(APPLY.into()),
        ..Default::default()
    };
    sim.clusters()
        .create(&pp, &obj)
        .await
        .unwrap_or_else(|e| panic!("create ValkeyCluster {}: {e}", sim.cluster));
}

/// The last `n` steps of a log, for failure messages.
pub fn last_steps(entries: &[Entry], n: usize) -> Vec<String> {
    entries[entries.len().saturating_sub(n)..]
        .iter()
        .map(|e| format!("{:?} {:?}", e.step, e.outcome))
        .collect()
}

/// The workload type of a ValkeyCluster or ValkeyNode (`spec.workloadType`;
/// StatefulSet when unset, as the operator defaults it).
fn kind_of(obj: &Value) -> WorkloadKind {
    if obj["spec"]["workloadType"] == "Deployment" {
        WorkloadKind::Deployment
    } else {
        WorkloadKind::StatefulSet
    }
}

/// What one pass reads.
struct View {
    cluster: Value,
    /// The cluster's workload type: the kind `workloads` holds.
    kind: WorkloadKind,
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
    /// The node's pods (its `instance` label).
    fn pods_of<'a>(&'a self, node: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.pods
            .iter()
            .filter(move |p| p["metadata"]["labels"][sim::LABEL_INSTANCE] == *node)
    }
    /// The node's current pod: the StatefulSet's `valkey-<node>-0`; of a
    /// Deployment's pods (generated names) the one not being deleted, then
    /// the newest.
    fn pod<'a>(&'a self, node: &'a str) -> Option<&'a Value> {
        match self.kind {
            WorkloadKind::StatefulSet => {
                let name = format!("valkey-{node}-0");
                self.pods.iter().find(|p| p["metadata"]["name"] == name)
            }
            WorkloadKind::Deployment => self.pods_of(node).max_by_key(|p| {
                (
                    p["metadata"]["deletionTimestamp"].is_null(),
                    p["metadata"]["creationTimestamp"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    p["metadata"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                )
            }),
        }
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
    let cluster = serde_json::to_value(cluster).expect("json");
    let kind = kind_of(&cluster);
    let lp = ListParams::default().labels(&format!("{}={}", sim::LABEL_CLUSTER, sim.cluster));
    let (nodes_api, pods_api) = (sim.nodes(), sim.pods());
    let workloads = async {
        match kind {
            WorkloadKind::StatefulSet => sim
                .statefulsets()
                .list(&lp)
                .await
                .map(|l| l.items.iter().map(to_json).collect::<Vec<_>>()),
            WorkloadKind::Deployment => sim
                .deployments()
                .list(&lp)
                .await
                .map(|l| l.items.iter().map(to_json).collect::<Vec<_>>()),
        }
    };
    let (nodes, workloads, pods) =
        tokio::try_join!(nodes_api.list(&lp), workloads, pods_api.list(&lp))
            .map_err(|e| format!("list the cluster's objects: {e}"))?;
    Ok(Some(View {
        cluster,
        kind,
        nodes: nodes.items.iter().map(to_json).collect(),
        workloads,
        pods: pods.items.iter().map(to_json).collect(),
    }))
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("json")
}

/// One pass of both controllers (cut short where the loop halts).
async fn reconcile(sim: &Sim, log: &Log) -> Result<(), String> {
    let Some(view) = read(sim).await? else {
        return Ok(());
    };
    if cluster_controller(sim, log, &view).await? || log.halted() {
        // It wrote: look again next pass, as a requeue would.
        return Ok(());
    }
    for node in &view.nodes {
        node_controller(sim, log, &view, node).await?;
        if log.halted() {
            break;
        }
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
async fn cluster_controller(sim: &Sim, log: &Log, view: &View) -> Result<bool, String> {
    let vc = &view.cluster;
    let image = vc["spec"]["image"].as_str().unwrap_or_default().to_string();
    let shards = vc["spec"]["shards"].as_u64().unwrap_or(1) as u32;
    let replicas = vc["spec"]["replicas"].as_u64().unwrap_or(0) as u32;
    let order = walk_order(shards, replicas);

    let mut created = false;
    for &(shard, idx) in &order {
        let name = sim.node_name(shard, idx);
        if view.node(&name).is_none() {
            created |= create_node(sim, log, vc, &name, shard, idx, &image).await?;
            if log.halted() {
                return Ok(true);
            }
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
            return advance(sim, log, vc, node, &image).await;
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
    log.enter(&Step::ClusterReady, Outcome::Sending);
    let r = set_cluster_status(
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
    .await;
    log.enter(
        &Step::ClusterReady,
        if r.is_ok() {
            Outcome::Accepted
        } else {
            Outcome::Refused
        },
    );
    r?;
    Ok(true)
}

/// Creates a ValkeyNode as the cluster controller does (one write, then
/// its event).
async fn create_node(
    sim: &Sim,
    log: &Log,
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
            "workloadType": kind_of(vc).as_str(),
        },
    }))
    .expect("a ValkeyNode");
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    if !log
        .write(
            Step::NodeCreated(name.to_string()),
            &format!("create ValkeyNode {name}"),
            sim.nodes().create(&pp, &obj),
        )
        .await?
    {
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
async fn advance(
    sim: &Sim,
    log: &Log,
    vc: &Value,
    node: &Value,
    image: &str,
) -> Result<bool, String> {
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
    if !log
        .write(
            Step::Advanced(name.to_string()),
            &format!("update ValkeyNode {name}"),
            sim.nodes().replace(name, &pp, &obj),
        )
        .await?
    {
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
async fn node_controller(sim: &Sim, log: &Log, view: &View, node: &Value) -> Result<(), String> {
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
    let kind = kind_of(node);
    let Some(workload) = view.workload(name) else {
        create_workload(sim, node, kind, name, shard, idx, image).await?;
        return node_status(sim, log, node, kind, None, None, 0).await;
    };
    let template_image = &workload["spec"]["template"]["spec"]["containers"][0]["image"];
    if template_image != image {
        return apply_template(sim, log, node, kind, workload, image).await;
    }
    let pod = view.pod(name);
    let others = view.pods_of(name).count() - usize::from(pod.is_some());
    node_status(sim, log, node, kind, Some(workload), pod, others).await
}

/// The node's workload, as the node controller creates it (one write): a
/// StatefulSet, or a Deployment (1 replica, Recreate).
async fn create_workload(
    sim: &Sim,
    node: &Value,
    kind: WorkloadKind,
    name: &str,
    shard: u32,
    idx: u32,
    image: &str,
) -> Result<(), String> {
    let labels = workload_labels(&sim.cluster, name, shard, idx);
    let workload = format!("valkey-{name}");
    let metadata = json!({
        "name": workload,
        "namespace": sim.ns,
        "labels": labels,
        "ownerReferences": [{
            "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
            "name": name, "uid": node["metadata"]["uid"],
            "controller": true, "blockOwnerDeletion": true,
        }],
    });
    let template = json!({
        "metadata": {
            "labels": labels,
            "annotations": {"valkey.io/config-hash": sim::hash(&format!("{}/config", sim.cluster))},
        },
        "spec": {"containers": [{"name": sim::CONTAINER, "image": image}]},
    });
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    match kind {
        WorkloadKind::StatefulSet => {
            let sts: StatefulSet = serde_json::from_value(json!({
                "metadata": metadata,
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": labels},
                    "serviceName": workload,
                    "podManagementPolicy": "OrderedReady",
                    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
                    "template": template,
                },
            }))
            .expect("a StatefulSet");
            wrote(
                &format!("create StatefulSet {workload}"),
                sim.statefulsets().create(&pp, &sts).await,
            )
        }
        WorkloadKind::Deployment => {
            let dep: Deployment = serde_json::from_value(json!({
                "metadata": metadata,
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": labels},
                    "strategy": {"type": "Recreate"},
                    "template": template,
                },
            }))
            .expect("a Deployment");
            wrote(
                &format!("create Deployment {workload}"),
                sim.deployments().create(&pp, &dep).await,
            )
        }
    }
    .map(|_| ())
}

/// P2 apply: the node's image in its workload's template (one Update),
/// `WorkloadRollApplied`, and the node's status not ready for its
/// generation.
async fn apply_template(
    sim: &Sim,
    log: &Log,
    node: &Value,
    kind: WorkloadKind,
    workload: &Value,
    image: &str,
) -> Result<(), String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let mut obj = workload.clone();
    if let Some(m) = obj.as_object_mut() {
        m.remove("status");
    }
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image);
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    let workload = format!("valkey-{name}");
    let step = Step::Applied(name.to_string());
    let applied = match kind {
        WorkloadKind::StatefulSet => {
            let obj: StatefulSet = serde_json::from_value(obj).expect("a StatefulSet");
            log.write(
                step,
                &format!("update StatefulSet {workload}"),
                sim.statefulsets().replace(&workload, &pp, &obj),
            )
            .await?
        }
        WorkloadKind::Deployment => {
            let obj: Deployment = serde_json::from_value(obj).expect("a Deployment");
            log.write(
                step,
                &format!("update Deployment {workload}"),
                sim.deployments().replace(&workload, &pp, &obj),
            )
            .await?
        }
    };
    if !applied {
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

/// The pod is Ready on its workload's current template, and the workload
/// says so: a StatefulSet's pod on its update revision; a Deployment's pod
/// on its template with no other pod of the node left, the Deployment's
/// status for its generation with that one pod updated and ready.
fn pod_ready_on_update(
    kind: WorkloadKind,
    workload: Option<&Value>,
    pod: Option<&Value>,
    others: usize,
) -> bool {
    let (Some(w), Some(pod)) = (workload, pod) else {
        return false;
    };
    let observed = w["status"]["observedGeneration"] == w["metadata"]["generation"];
    let ready =
        pod["metadata"]["deletionTimestamp"].is_null() && pod_condition(pod, "Ready") == "True";
    match kind {
        WorkloadKind::StatefulSet => {
            observed
                && pod["metadata"]["labels"]["controller-revision-hash"]
                    == w["status"]["updateRevision"]
                && ready
        }
        WorkloadKind::Deployment => {
            let st = &w["status"];
            let template_image = &w["spec"]["template"]["spec"]["containers"][0]["image"];
            observed
                && others == 0
                && st["replicas"] == 1
                && st["updatedReplicas"] == 1
                && st["readyReplicas"].as_i64().unwrap_or(0) >= 1
                && pod["spec"]["containers"][0]["image"] == *template_image
                && ready
        }
    }
}

/// The node's status from its workload and pod, written when it differs
/// from what is there (one write).
async fn node_status(
    sim: &Sim,
    log: &Log,
    node: &Value,
    kind: WorkloadKind,
    workload: Option<&Value>,
    pod: Option<&Value>,
    others: usize,
) -> Result<(), String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let st = &node["status"];
    let generation = node["metadata"]["generation"].as_i64();
    let pod_ready_on_update = pod_ready_on_update(kind, workload, pod, others);
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
    let becomes_ready = patch.get("ready") == Some(&json!(true));
    let (nodes, pp) = (sim.nodes(), patch_params());
    let body = Patch::Merge(json!({ "status": Value::Object(patch) }));
    let call = nodes.patch_status(name, &pp, &body);
    let what = format!("patch ValkeyNode {name} status");
    if becomes_ready {
        log.write(Step::NodeReady(name.to_string()), &what, call)
            .await
            .map(|_| ())
    } else {
        wrote(&what, call.await).map(|_| ())
    }
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
