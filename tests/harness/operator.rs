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
//! op.account();                                           // in flight, to roll, rolled
//!
//! // With Valkey servers to read roles from (valkey.rs), and a stop
//! // between two writes, then a restart on the same servers:
//! let valkey = harness::valkey::fast();
//! let op = Operator::start_with(client, &ns, "rig", Some(valkey.clone()));
//! op.stop_after_writes(3);                                // or stop_after_step(|s| ...)
//! let op = Operator::start_with(client, &ns, "rig", Some(valkey.clone()));
//! valkey.fail_over(0, 1);                                 // Valkey's own failover
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
//!   at the first node that needs something: a node whose spec is not the
//!   one the operator builds from the cluster's ([`desired_spec`]: image,
//!   config, resources, persistence, exporter, containers, scheduling, ...
//!   as `buildClusterValkeyNode` copies them, and the workload revision
//!   computed from what reaches the pod template, [`revision_of`]) gets
//!   that spec in one Update (event `ValkeyNodeUpdated`; cluster status
//!   `UpdatingNodes`); a node that is not ready, or whose generation is not
//!   observed, is waited on. When every node is ready and up to date, the
//!   cluster is Ready for its generation (event `ClusterReady`), as the
//!   operator makes it once its Valkey servers answer. A change of only
//!   live settings ([`LIVE_CONFIG`]) or of `persistence` moves the node's
//!   spec and not its revision: the node controller observes it and
//!   replaces no pod;
//! - the node controller creates the node's StatefulSet, applies a new
//!   template when the node's revision moved (event `WorkloadRollApplied`; node
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
//! The loop keeps a log of its writes ([`Operator::writes`]; the named
//! steps, and every other write as [`Step::Other`]): each is entered as
//! `Sending` right before it goes out and as `Accepted` (or `Refused`)
//! once the API server answered, so a test that reads the log before and
//! after reading the API knows what the operator may have written in
//! between. Each entry carries the operator's own [`Account`] once that
//! write lands: which nodes are in flight (not ready for their
//! generation), still to roll (settled on a spec that is not the cluster's)
//! and rolled; a pass starts from the account of what it read. A loop
//! started with [`Operator::start_halting`] ends right after the step it
//! names (that step's own writes done: its event and status), as an
//! operator killed there would; [`Operator::stop_after_writes`] and
//! [`Operator::stop_after_step`] end it between any two writes;
//! kube-controller-manager, the scheduler and kwok go on.
//!
//! With Valkey servers ([`Operator::start_with`], valkey.rs) the loop also
//! does what the operator does with a topology to read: `status.role` from
//! the node's server, the walk replica-first with each shard's primary
//! last, a proactive failover (FailoverInitiated, FailoverCompleted, pod
//! IPs in their notes) before a primary's pod is replaced, and, after a
//! failover Valkey made on its own, the cluster not Ready "Waiting for
//! replicas to sync with primary" while the old primary resyncs.
//!
//! The strings (labels, condition reasons and messages, event reasons,
//! actions and notes, status fields) are the real operator's, from
//! ../shared/recordings (main c33988f) and, for the Ready cluster the
//! recordings never reach, from the operator's source. A write the API
//! server refuses with a conflict is retried on the next pass, as a
//! controller requeues; any other failure is kept and returned by
//! [`Operator::stop`].

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use kube::api::{DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::sim::{
    self, CLUSTER_CONTROLLER, MANAGER, NODE_CONTROLLER, Sim, WorkloadKind, set_condition,
};
use super::valkey::Valkey;

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
/// per image, as the real one does (a node spec that mirrors nothing but
/// the image and the defaults; see [`revision_of`]).
pub fn workload_revision(node: &str, image: &str) -> String {
    sim::hash(&format!("{node}/{image}"))
}

/// The server settings the operator applies live (CONFIG SET) at c33988f
/// (`liveConfigAllowlist`): they are in the node's spec but not in its pod
/// template, so a change of only these updates the node and replaces no
/// pod.
pub const LIVE_CONFIG: [&str; 3] = ["maxmemory", "maxmemory-policy", "maxclients"];

/// The pod-template annotation that carries, in this simulation, the
/// `spec.workloadRevision` the template was built from: the real operator
/// compares the live template with the one it would build; the stand-in
/// compares the revision it was built from. The plugin reads no template
/// annotation in P2.
pub const ANN_BUILT_FROM: &str = "harness.valkey-roll.test/built-from";

/// The fields of a ValkeyNode's spec the operator at c33988f builds from
/// its ValkeyCluster's spec (`buildClusterValkeyNode`), by (node field,
/// where in the cluster's spec). Scheduling fields come from
/// `spec.scheduling`; the curated spread and zone pinning the operator
/// adds to affinity, topologySpreadConstraints and nodeSelector are left
/// out here (they need `spec.scheduling.*Spread` or zones), as is the
/// translation of `spec.tls` (copied as it is).
pub const MIRRORED: [(&str, &str, &str); 14] = [
    ("image", "", "image"),
    ("imagePullSecrets", "", "imagePullSecrets"),
    ("workloadType", "", "workloadType"),
    ("persistence", "", "persistence"),
    ("resources", "", "resources"),
    ("nodeSelector", "scheduling", "nodeSelector"),
    ("affinity", "scheduling", "affinity"),
    ("tolerations", "scheduling", "tolerations"),
    ("priorityClassName", "scheduling", "priorityClassName"),
    (
        "topologySpreadConstraints",
        "scheduling",
        "topologySpreadConstraints",
    ),
    ("exporter", "", "exporter"),
    ("containers", "", "containers"),
    ("tls", "", "tls"),
    ("config", "", "config"),
];

/// The node spec the operator builds for node `name` of cluster `vc`
/// (`buildClusterValkeyNode` and `setDesiredWorkloadRevision`): every
/// mirrored field the cluster sets, `podSecurityContext` and
/// `terminationGracePeriodSeconds` (set only when the cluster sets them),
/// the ConfigMap and ACL Secret names, and the workload revision computed
/// from the rest. `resources` and the exporter's `resources` are `{}` when
/// unset, as the operator's Go types write them.
pub fn desired_spec(vc: &Value, cluster: &str, name: &str) -> Value {
    let s = &vc["spec"];
    let mut spec = serde_json::Map::new();
    for (field, under, from) in MIRRORED {
        let v = if under.is_empty() {
            &s[from]
        } else {
            &s[under][from]
        };
        if !v.is_null() {
            spec.insert(field.into(), v.clone());
        }
    }
    for extra in ["podSecurityContext", "terminationGracePeriodSeconds"] {
        if !s[extra].is_null() {
            spec.insert(extra.into(), s[extra].clone());
        }
    }
    spec.insert("workloadType".into(), json!(kind_of(vc).as_str()));
    spec.entry("resources").or_insert_with(|| json!({}));
    let mut exporter = s["exporter"].clone();
    if !exporter.is_object() {
        exporter = json!({"enabled": true});
    }
    if exporter["resources"].is_null() {
        exporter["resources"] = json!({});
    }
    spec.insert("exporter".into(), exporter);
    spec.insert(
        "serverConfigMapName".into(),
        json!(format!("valkey-{cluster}")),
    );
    spec.insert(
        "usersACLSecretName".into(),
        json!(format!("internal-{cluster}-acl")),
    );
    let mut spec = Value::Object(spec);
    spec["workloadRevision"] = json!(revision_of(name, &spec));
    spec
}

/// The server config that goes into the pod template (its config hash):
/// `config` less the live keys.
fn template_config(spec: &Value) -> Value {
    let mut config = spec["config"].as_object().cloned().unwrap_or_default();
    config.retain(|k, _| !LIVE_CONFIG.contains(&k.as_str()));
    Value::Object(config)
}

/// The stand-in for the operator's `computeWorkloadRevision` (the sha256
/// of the pod template it would build from `spec`): what reaches the pod
/// template, that is the spec less `workloadRevision`, `persistence` (a
/// PVC of its own; the template names only the claim) and the live config
/// keys. A spec with nothing beyond the image and the defaults gives
/// [`workload_revision`].
pub fn revision_of(name: &str, spec: &Value) -> String {
    let image = spec["image"].as_str().unwrap_or_default();
    let mut rest = spec.as_object().cloned().unwrap_or_default();
    for gone in [
        "image",
        "workloadRevision",
        "persistence",
        "config",
        "workloadType",
        "serverConfigMapName",
        "usersACLSecretName",
    ] {
        rest.remove(gone);
    }
    let config = template_config(spec);
    if config.as_object().is_some_and(|c| !c.is_empty()) {
        rest.insert("config".into(), config);
    }
    if rest.get("resources") == Some(&json!({})) {
        rest.remove("resources");
    }
    if rest.get("exporter") == Some(&json!({"enabled": true, "resources": {}})) {
        rest.remove("exporter");
    }
    if rest.is_empty() {
        workload_revision(name, image)
    } else {
        sim::hash(&format!("{name}/{image}/{}", Value::Object(rest)))
    }
}

/// The operator's own account of a roll, as it stands after a write (or a
/// read): every node of the cluster in exactly one set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Account {
    /// Not ready for its generation: advanced and not yet settled (or
    /// being created).
    pub in_flight: BTreeSet<String>,
    /// Settled, with a spec that is not the one the cluster asks for: the
    /// operator will advance it when its walk reaches it.
    pub to_roll: BTreeSet<String>,
    /// Settled on the spec the cluster asks for.
    pub rolled: BTreeSet<String>,
}

impl Account {
    /// The account of what one read shows.
    fn of(view: &View, cluster: &str) -> Account {
        let mut a = Account::default();
        for node in &view.nodes {
            let name = node["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if !ready_for_generation(node) {
                a.in_flight.insert(name);
            } else if node["spec"] != desired_spec(&view.cluster, cluster, &name) {
                a.to_roll.insert(name);
            } else {
                a.rolled.insert(name);
            }
        }
        a
    }

    fn advanced(&mut self, name: &str) {
        self.to_roll.remove(name);
        self.rolled.remove(name);
        self.in_flight.insert(name.to_string());
    }

    /// `name` written ready for its generation; `matches`: its spec is the
    /// one the cluster asks for.
    fn settled(&mut self, name: &str, matches: bool) {
        self.in_flight.remove(name);
        if matches {
            self.rolled.insert(name.to_string());
        } else {
            self.to_roll.insert(name.to_string());
        }
    }
}

/// A step of the operator, as its log names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The cluster controller created this ValkeyNode (and its event).
    NodeCreated(String),
    /// The cluster controller advanced this node: its new spec (the
    /// cluster's, with its `spec.workloadRevision`) in one Update (then
    /// `ValkeyNodeUpdated` and the cluster's status).
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
    /// The cluster controller failed this node's shard over away from it
    /// before rolling it (FailoverInitiated, CLUSTER FAILOVER,
    /// FailoverCompleted; the step is the first event).
    FailedOver(String),
    /// Any other write (an event, a status, a workload's creation): what
    /// it was.
    Other(String),
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
    /// The operator's account once this write has landed (Sending and
    /// Accepted) or as it was (Refused).
    pub account: Account,
    /// When it was entered.
    pub at: Instant,
}

type HaltAfter = Box<dyn Fn(&Step) -> bool + Send + Sync>;

/// What a halted pass returns in place of an error.
const STOPPED: &str = "(stopped)";

/// The loop's log, and where it halts.
struct Log {
    entries: Mutex<Vec<Entry>>,
    halt_after: Option<HaltAfter>,
    halted: AtomicBool,
    /// The account as of the last read and the writes since.
    account: Mutex<Account>,
    /// Writes made so far, and after how many the loop stops.
    count: AtomicUsize,
    stop_at: AtomicUsize,
    /// The loop stops right after the first write of a step this names.
    stop_after_step: Mutex<Option<HaltAfter>>,
    /// Stopped between two writes: no further write goes out.
    stopped: AtomicBool,
}

impl Log {
    fn new(halt_after: Option<HaltAfter>) -> Log {
        Log {
            entries: Mutex::new(Vec::new()),
            halt_after,
            halted: AtomicBool::new(false),
            account: Mutex::new(Account::default()),
            count: AtomicUsize::new(0),
            stop_at: AtomicUsize::new(usize::MAX),
            stop_after_step: Mutex::new(None),
            stopped: AtomicBool::new(false),
        }
    }

    fn enter(&self, step: &Step, outcome: Outcome) {
        let account = self.account.lock().unwrap().clone();
        self.entries.lock().unwrap().push(Entry {
            step: step.clone(),
            outcome,
            account,
            at: Instant::now(),
        });
    }

    fn account(&self) -> Account {
        self.account.lock().unwrap().clone()
    }

    fn set_account(&self, a: Account) {
        *self.account.lock().unwrap() = a;
    }

    /// Counts a write that was sent; past the write the loop was told to
    /// stop after, the loop halts and the pass ends here.
    fn tick(&self) -> Result<(), String> {
        let n = self.count.fetch_add(1, Ordering::SeqCst) + 1;
        if n >= self.stop_at.load(Ordering::SeqCst) {
            self.stopped.store(true, Ordering::SeqCst);
        }
        if self.stopped() {
            return Err(STOPPED.into());
        }
        Ok(())
    }

    /// Enters `step` as Sending, runs its first write, and enters the
    /// outcome; a step the halt names, accepted, halts the loop once the
    /// step's other writes are done (the callers check [`Log::halted`]).
    /// `change` moves the account as the write does, if it lands.
    async fn write_moving<T>(
        &self,
        step: Step,
        what: &str,
        change: impl Fn(&mut Account),
        call: impl std::future::Future<Output = Result<T, kube::Error>>,
    ) -> Result<bool, String> {
        if self.stopped() {
            return Err(STOPPED.into());
        }
        let before = self.account();
        let mut after = before.clone();
        change(&mut after);
        self.set_account(after.clone());
        self.enter(&step, Outcome::Sending);
        let r = wrote(what, call.await);
        let outcome = match r {
            Ok(true) => Outcome::Accepted,
            _ => Outcome::Refused,
        };
        if outcome == Outcome::Refused {
            self.set_account(before);
        }
        self.enter(&step, outcome);
        if outcome == Outcome::Accepted && self.halt_after.as_ref().is_some_and(|h| h(&step)) {
            self.halted.store(true, Ordering::SeqCst);
        }
        if outcome == Outcome::Accepted
            && self
                .stop_after_step
                .lock()
                .unwrap()
                .as_ref()
                .is_some_and(|h| h(&step))
        {
            self.stopped.store(true, Ordering::SeqCst);
        }
        self.tick()?;
        r
    }

    async fn write<T>(
        &self,
        step: Step,
        what: &str,
        call: impl std::future::Future<Output = Result<T, kube::Error>>,
    ) -> Result<bool, String> {
        self.write_moving(step, what, |_| {}, call).await
    }

    /// A write that moves no account: entered as [`Step::Other`].
    async fn other<T>(
        &self,
        what: &str,
        call: impl std::future::Future<Output = Result<T, kube::Error>>,
    ) -> Result<bool, String> {
        self.write(Step::Other(what.to_string()), what, call).await
    }

    /// The loop ends here: halted after a named step (its writes done),
    /// or stopped between two writes.
    fn halted(&self) -> bool {
        self.halted.load(Ordering::SeqCst) || self.stopped()
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

/// Records an event (one write, entered in the log as `step`, or as
/// `Other` when None).
#[allow(clippy::too_many_arguments)]
async fn event(
    sim: &Sim,
    log: &Log,
    step: Option<Step>,
    controller: &str,
    regarding: Value,
    related: Option<Value>,
    reason: &str,
    action: &str,
    note: &str,
) -> Result<(), String> {
    if log.stopped() {
        return Err(STOPPED.into());
    }
    let step = step.unwrap_or_else(|| Step::Other(format!("event {reason}")));
    log.enter(&step, Outcome::Sending);
    sim.event(
        controller, regarding, related, "Normal", reason, action, note,
    )
    .await;
    log.enter(&step, Outcome::Accepted);
    log.tick()
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
        Operator::launch(client, ns, cluster, None, None)
    }

    /// [`Operator::start`] with Valkey servers (valkey.rs) to read roles
    /// from: `status.role` is written, the walk is replica-first with
    /// each shard's primary last, a primary is failed over before its pod
    /// is replaced, and an unplanned failover is seen as the operator sees
    /// one. A restarted operator is another `start_with` on the same
    /// servers: it re-reads everything and writes its events anew.
    pub fn start_with(
        client: kube::Client,
        ns: &str,
        cluster: &str,
        valkey: Option<Arc<Valkey>>,
    ) -> Operator {
        Operator::launch(client, ns, cluster, None, valkey)
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
        Operator::launch(client, ns, cluster, Some(Box::new(halt_after)), None)
    }

    fn launch(
        client: kube::Client,
        ns: &str,
        cluster: &str,
        halt_after: Option<HaltAfter>,
        valkey: Option<Arc<Valkey>>,
    ) -> Operator {
        let sim = Arc::new(Sim::new(client, ns, cluster));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::new(Log::new(halt_after));
        let (s, e, l) = (sim.clone(), errors.clone(), log.clone());
        let task = tokio::spawn(async move {
            let v = valkey.as_deref();
            while !l.halted() {
                if let Err(err) = reconcile(&s, &l, v).await
                    && err != STOPPED
                {
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

    /// The operator's account as of its last read and its writes since
    /// (empty before its first read of the cluster).
    pub fn account(&self) -> Account {
        self.log.account()
    }

    /// Stops the loop right after its next `writes` writes (events
    /// included), between two writes, as an operator killed there would
    /// stop; 0 stops it before its next write. [`Operator::halted`] says
    /// when it did.
    pub fn stop_after_writes(&self, writes: usize) {
        if writes == 0 {
            self.log.stopped.store(true, Ordering::SeqCst);
        } else {
            let now = self.log.count.load(Ordering::SeqCst);
            self.log.stop_at.store(now + writes, Ordering::SeqCst);
        }
    }

    /// Stops the loop right after the first write of the next step that
    /// `stop` names (its event and status not written), as an operator
    /// killed between that write and the next would stop.
    pub fn stop_after_step(&self, stop: impl Fn(&Step) -> bool + Send + Sync + 'static) {
        *self.log.stop_after_step.lock().unwrap() = Some(Box::new(stop));
    }

    /// When the loop last had a write accepted (None: never).
    pub fn last_write(&self) -> Option<Instant> {
        self.log
            .entries
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|e| e.outcome == Outcome::Accepted)
            .map(|e| e.at)
    }

    /// How many writes the loop has made.
    pub fn write_count(&self) -> usize {
        self.log.count.load(Ordering::SeqCst)
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
async fn reconcile(sim: &Sim, log: &Log, valkey: Option<&Valkey>) -> Result<(), String> {
    let Some(view) = read(sim).await? else {
        return Ok(());
    };
    log.set_account(Account::of(&view, &sim.cluster));
    if cluster_controller(sim, log, &view, valkey).await? || log.halted() {
        // It wrote: look again next pass, as a requeue would.
        return Ok(());
    }
    for node in &view.nodes {
        node_controller(sim, log, &view, node, valkey).await?;
        if log.halted() {
            break;
        }
    }
    Ok(())
}

/// The desired node positions in walk order: shard index ascending; in
/// each shard node index descending with no servers to read (as the
/// operator does with no Valkey topology: `status.role` stays empty), or
/// the replicas by index ascending, then the primary (its
/// `replicaFirstNodeOrder`).
fn walk_order(shards: u32, replicas: u32, valkey: Option<&Valkey>) -> Vec<(u32, u32)> {
    let mut order = Vec::new();
    for s in 0..shards {
        match valkey {
            None => order.extend((0..=replicas).rev().map(|i| (s, i))),
            Some(v) => {
                let p = v.primary(s);
                order.extend((0..=replicas).filter(|i| *i != p).map(|i| (s, i)));
                order.push((s, p));
            }
        }
    }
    order
}

fn ready_for_generation(node: &Value) -> bool {
    node["status"]["ready"] == true
        && node["status"]["observedGeneration"] == node["metadata"]["generation"]
}

/// The cluster controller's pass; true when it wrote something.
async fn cluster_controller(
    sim: &Sim,
    log: &Log,
    view: &View,
    valkey: Option<&Valkey>,
) -> Result<bool, String> {
    let vc = &view.cluster;
    let shards = vc["spec"]["shards"].as_u64().unwrap_or(1) as u32;
    let replicas = vc["spec"]["replicas"].as_u64().unwrap_or(0) as u32;
    let order = walk_order(shards, replicas, valkey);

    let mut created = false;
    for &(shard, idx) in &order {
        let name = sim.node_name(shard, idx);
        if view.node(&name).is_none() {
            created |= create_node(sim, log, vc, &name, shard, idx).await?;
            if log.halted() {
                return Ok(true);
            }
        }
    }
    if created {
        set_cluster_status(
            sim,
            log,
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
        let desired = desired_spec(vc, &sim.cluster, &name);
        if node["spec"] != desired {
            // A primary whose pod is to be replaced is failed over to a
            // synced replica first (`needsProactiveFailoverForRoll`); with
            // none synced, its roll waits (no write).
            if let Some(v) = valkey
                && replicas > 0
                && v.primary(shard) == idx
                && needs_proactive_failover(&node["spec"], &desired)
            {
                if v.unsynced() {
                    return Ok(false);
                }
                return fail_over_before_roll(sim, log, view, v, shard, idx, replicas).await;
            }
            return advance(sim, log, vc, node, desired).await;
        }
        if !ready_for_generation(node) {
            return Ok(false);
        }
    }
    // Every node ready and up to date. With servers: a replica still
    // syncing keeps the cluster not Ready.
    if let Some(v) = valkey
        && v.unsynced()
    {
        return set_cluster_status(
            sim,
            log,
            vc,
            ("Reconciling", "Reconciling", "Waiting for replica sync"),
            &[
                (
                    "Ready",
                    "False",
                    "Reconciling",
                    "Waiting for replicas to sync with primary",
                ),
                (
                    "Progressing",
                    "True",
                    "Reconciling",
                    "Waiting for replica sync",
                ),
            ],
        )
        .await;
    }
    let ready = &vc["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready").cloned())
        .unwrap_or(Value::Null);
    if ready["status"] == "True" && ready["observedGeneration"] == vc["metadata"]["generation"] {
        return Ok(false);
    }
    let reg = sim.cluster_ref().await;
    event(
        sim,
        log,
        None,
        CLUSTER_CONTROLLER,
        reg,
        None,
        "ClusterReady",
        "ReconcileCluster",
        &format!("Cluster ready with {shards} shards and {replicas} replicas"),
    )
    .await?;
    let generation = vc["metadata"]["generation"].as_i64();
    let patch = cluster_status_patch(
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
    );
    let Some(patch) = patch else {
        return Ok(true);
    };
    log.write(
        Step::ClusterReady,
        &format!("patch ValkeyCluster status Ready for generation {generation:?}"),
        sim.clusters()
            .patch_status(&sim.cluster, &patch_params(), &Patch::Merge(patch)),
    )
    .await?;
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
        "spec": desired_spec(vc, &sim.cluster, name),
    }))
    .expect("a ValkeyNode");
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    if !log
        .write_moving(
            Step::NodeCreated(name.to_string()),
            &format!("create ValkeyNode {name}"),
            |a| a.advanced(name),
            sim.nodes().create(&pp, &obj),
        )
        .await?
    {
        return Ok(false);
    }
    let (reg, rel) = (sim.cluster_ref().await, sim.node_ref(name).await);
    event(
        sim,
        log,
        None,
        CLUSTER_CONTROLLER,
        reg,
        Some(rel),
        "ValkeyNodeCreated",
        "CreateValkeyNode",
        &format!("Created ValkeyNode for shard {shard} node {idx}"),
    )
    .await?;
    Ok(true)
}

/// The operator's `needsProactiveFailoverForRoll` (c33988f,
/// internal/controller/failover.go): a primary is failed over before its
/// spec is written when any field but `workloadRevision` and `config`
/// differs, or its (non-empty) revision changes; a change of `config`
/// alone is applied live, with no failover.
fn needs_proactive_failover(current: &Value, desired: &Value) -> bool {
    let without = |spec: &Value| {
        let mut spec = spec.clone();
        if let Some(m) = spec.as_object_mut() {
            m.remove("workloadRevision");
            m.remove("config");
        }
        spec
    };
    if without(current) != without(desired) {
        return true;
    }
    current["workloadRevision"] != desired["workloadRevision"]
}

/// The shard's primary failed over to its lowest-indexed replica before
/// its pod is replaced, as `proactiveFailover` does: FailoverInitiated,
/// CLUSTER FAILOVER on the replica (the servers' roles change), and
/// FailoverCompleted, both regarding the cluster, naming pod IPs.
async fn fail_over_before_roll(
    sim: &Sim,
    log: &Log,
    view: &View,
    v: &Valkey,
    shard: u32,
    idx: u32,
    replicas: u32,
) -> Result<bool, String> {
    let to = (0..=replicas).find(|i| *i != idx).unwrap_or(idx);
    let (from_name, to_name) = (sim.node_name(shard, idx), sim.node_name(shard, to));
    let ip = |n: &str| {
        view.node(n)
            .and_then(|n| n["status"]["podIP"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let (from_ip, to_ip) = (ip(&from_name), ip(&to_name));
    let id = Valkey::shard_id(&sim.cluster, shard);
    let reg = sim.cluster_ref().await;
    event(
        sim,
        log,
        Some(Step::FailedOver(from_name.clone())),
        CLUSTER_CONTROLLER,
        reg.clone(),
        None,
        "FailoverInitiated",
        "ProactiveFailover",
        &format!("Initiated failover from {from_ip} to {to_ip} in shard {id}"),
    )
    .await?;
    v.promote(shard, to, true);
    event(
        sim,
        log,
        None,
        CLUSTER_CONTROLLER,
        reg,
        None,
        "FailoverCompleted",
        "ProactiveFailover",
        &format!("Failover completed: {to_ip} is now primary in shard {id}"),
    )
    .await?;
    Ok(true)
}

/// P2, Spec-driven: the node's new spec (the cluster's, with its workload
/// revision) in one Update, its event, and the cluster's status.
async fn advance(
    sim: &Sim,
    log: &Log,
    vc: &Value,
    node: &Value,
    desired: Value,
) -> Result<bool, String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let mut obj = node.clone();
    if let Some(m) = obj.as_object_mut() {
        m.remove("status");
    }
    obj["spec"] = desired;
    let obj: DynamicObject = serde_json::from_value(obj).expect("a ValkeyNode");
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    if !log
        .write_moving(
            Step::Advanced(name.to_string()),
            &format!("update ValkeyNode {name}"),
            |a| a.advanced(name),
            sim.nodes().replace(name, &pp, &obj),
        )
        .await?
    {
        return Ok(false);
    }
    let (reg, rel) = (sim.cluster_ref().await, sim.node_ref(name).await);
    event(
        sim,
        log,
        None,
        CLUSTER_CONTROLLER,
        reg,
        Some(rel),
        "ValkeyNodeUpdated",
        "UpdateValkeyNode",
        &format!("Updated ValkeyNode {name}"),
    )
    .await?;
    set_cluster_status(
        sim,
        log,
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

/// The status patch that gives the cluster this state, reason, message
/// and conditions (each for the current generation); None when they are
/// there already (the operator's `statusChanged`).
fn cluster_status_patch(
    sim: &Sim,
    vc: &Value,
    (state, reason, message): (&str, &str, &str),
    conditions: &[(&str, &str, &str, &str)],
) -> Option<Value> {
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
        return None;
    }
    Some(json!({"status": {
        "state": state, "reason": reason, "message": message,
        "shards": shards, "readyShards": ready_shards, "conditions": conds,
    }}))
}

/// The cluster's status as [`cluster_status_patch`] makes it, written when
/// it differs (one write); true when it wrote.
async fn set_cluster_status(
    sim: &Sim,
    log: &Log,
    vc: &Value,
    state: (&str, &str, &str),
    conditions: &[(&str, &str, &str, &str)],
) -> Result<bool, String> {
    let Some(patch) = cluster_status_patch(sim, vc, state, conditions) else {
        return Ok(false);
    };
    log.other(
        &format!("patch ValkeyCluster status {}", state.2),
        sim.clusters()
            .patch_status(&sim.cluster, &patch_params(), &Patch::Merge(patch)),
    )
    .await?;
    Ok(true)
}

fn patch_params() -> PatchParams {
    PatchParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    }
}

/// A node's shard and node index, from its labels.
fn position(node: &Value) -> (u32, u32) {
    let label = |l: &str| {
        node["metadata"]["labels"][l]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    };
    (label(sim::LABEL_SHARD), label(sim::LABEL_NODE))
}

/// The node controller's pass for one node.
async fn node_controller(
    sim: &Sim,
    log: &Log,
    view: &View,
    node: &Value,
    valkey: Option<&Valkey>,
) -> Result<(), String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let (shard, idx) = position(node);
    let kind = kind_of(node);
    let Some(workload) = view.workload(name) else {
        create_workload(sim, log, node, kind, name, shard, idx).await?;
        return node_status(sim, log, view, node, None, None, 0, valkey).await;
    };
    let built_from = &workload["spec"]["template"]["metadata"]["annotations"][ANN_BUILT_FROM];
    if *built_from != node["spec"]["workloadRevision"] {
        return apply_template(sim, log, node, kind, workload, shard, idx).await;
    }
    let pod = view.pod(name);
    let others = view.pods_of(name).count() - usize::from(pod.is_some());
    node_status(sim, log, view, node, Some(workload), pod, others, valkey).await
}

/// The pod template the node controller builds from the node's spec: its
/// image, its resources, the config hash of what is not applied live,
/// and the revision it was built from ([`ANN_BUILT_FROM`]).
fn pod_template(sim: &Sim, node: &Value, labels: &Value) -> Value {
    let spec = &node["spec"];
    let mut container = json!({"name": sim::CONTAINER, "image": spec["image"]});
    if spec["resources"].as_object().is_some_and(|r| !r.is_empty()) {
        container["resources"] = spec["resources"].clone();
    }
    let config = template_config(spec);
    json!({
        "metadata": {
            "labels": labels,
            "annotations": {
                "valkey.io/config-hash": sim::hash(&format!("{}/config/{config}", sim.cluster)),
                ANN_BUILT_FROM: spec["workloadRevision"],
            },
        },
        "spec": {"containers": [container]},
    })
}

/// The node's workload, as the node controller creates it (one write): a
/// StatefulSet, or a Deployment (1 replica, Recreate).
async fn create_workload(
    sim: &Sim,
    log: &Log,
    node: &Value,
    kind: WorkloadKind,
    name: &str,
    shard: u32,
    idx: u32,
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
    let template = pod_template(sim, node, &labels);
    let pp = PostParams {
        field_manager: Some(MANAGER.into()),
        ..Default::default()
    };
    let what = format!("create {} {workload}", kind.as_str());
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
            log.other(&what, sim.statefulsets().create(&pp, &sts)).await
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
            log.other(&what, sim.deployments().create(&pp, &dep)).await
        }
    }
    .map(|_| ())
}

/// P2 apply: the node's new pod template in its workload (one Update),
/// `WorkloadRollApplied`, and the node's status not ready for its
/// generation.
async fn apply_template(
    sim: &Sim,
    log: &Log,
    node: &Value,
    kind: WorkloadKind,
    workload: &Value,
    shard: u32,
    idx: u32,
) -> Result<(), String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let mut obj = workload.clone();
    if let Some(m) = obj.as_object_mut() {
        m.remove("status");
    }
    let labels = workload_labels(&sim.cluster, name, shard, idx);
    obj["spec"]["template"] = pod_template(sim, node, &labels);
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
    event(
        sim,
        log,
        None,
        NODE_CONTROLLER,
        reg,
        None,
        "WorkloadRollApplied",
        "ApplyWorkloadRoll",
        &format!("Applied pod template update (hash {revision})"),
    )
    .await?;
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
        log,
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

/// The node's status from its workload and pod (and, with servers, its
/// role), written when it differs from what is there (one write).
#[allow(clippy::too_many_arguments)]
async fn node_status(
    sim: &Sim,
    log: &Log,
    view: &View,
    node: &Value,
    workload: Option<&Value>,
    pod: Option<&Value>,
    others: usize,
    valkey: Option<&Valkey>,
) -> Result<(), String> {
    let name = node["metadata"]["name"].as_str().unwrap_or_default();
    let kind = kind_of(node);
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
    // The role, read from the node's server on a status pass for a Ready
    // pod: at once when the status changes anyway, else only once the
    // operator looks again (`role_lag` after the server's role changed).
    if let Some(v) = valkey
        && pod_ready_on_update
    {
        let (shard, idx) = position(node);
        let role = v.role(shard, idx);
        let looks = !patch.is_empty()
            || v.changed_at(shard, idx)
                .is_none_or(|t| t.elapsed() >= v.timings.role_lag);
        if looks && st["role"] != role {
            patch.insert("role".into(), json!(role));
        }
    }
    if patch.is_empty() {
        return Ok(());
    }
    let settles = pod_ready_on_update && !ready_for_generation(node);
    let (nodes, pp) = (sim.nodes(), patch_params());
    let body = Patch::Merge(json!({ "status": Value::Object(patch) }));
    let call = nodes.patch_status(name, &pp, &body);
    let what = format!("patch ValkeyNode {name} status");
    if settles {
        let matches = node["spec"] == desired_spec(&view.cluster, &sim.cluster, name);
        log.write_moving(
            Step::NodeReady(name.to_string()),
            &what,
            |a| a.settled(name, matches),
            call,
        )
        .await
        .map(|_| ())
    } else {
        log.other(&what, call).await.map(|_| ())
    }
}

fn pod_condition<'a>(pod: &'a Value, type_: &str) -> &'a str {
    pod["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
        .and_then(|c| c["status"].as_str())
        .unwrap_or("")
}

async fn node_status_patch(sim: &Sim, log: &Log, name: &str, status: Value) -> Result<(), String> {
    log.other(
        &format!("patch ValkeyNode {name} status"),
        sim.nodes().patch_status(
            name,
            &patch_params(),
            &Patch::Merge(json!({ "status": status })),
        ),
    )
    .await
    .map(|_| ())
}
