//! Real-looking snapshots from a stream of bytes, for the classifier's
//! property tests (tests/classify_props.rs, proptest) and its fuzz target
//! (tests/fuzz, cargo-fuzz): one generator, so both check the same objects.
//!
//! The bytes choose, from small vocabularies, what a ValkeyCluster, its
//! ValkeyNodes (P1 annotations and WorkloadDrift, or P2
//! `spec.workloadRevision` and WorkloadRollPending; conditions, roles,
//! lastRolloutHash, trace annotations), their StatefulSets or Deployments,
//! their pods (waiting reasons, OOM kills, unschedulable, being deleted) and
//! the roll's events look like; times are offsets around `now`, a few of
//! them in the future (a skewed clock). An exhausted stream reads as zeros,
//! which always chooses the plainest option, so shrinking the bytes shrinks
//! the snapshot.
//!
//! The result is a kubectl `List` as JSON, read through the same public
//! function as `-f` ([`kubectl_valkey_roll::source::file::parse_snapshot`]).

#![allow(dead_code)]

use serde_json::{Value, json};

/// The clock every generated time is relative to.
pub const NOW: &str = "2026-11-29T10:16:11Z";

/// Where the choices come from.
pub struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, at: 0 }
    }
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    /// 0..n (n >= 1).
    fn pick(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }
    /// One of `items`.
    fn one<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.pick(items.len())]
    }
    /// True with probability about `percent`/100 (false when exhausted).
    fn chance(&mut self, percent: u8) -> bool {
        let b = self.byte();
        b != 0 && u32::from(b) * 100 < u32::from(percent) * 256
    }
}

/// The names the objects carry: renaming consistently is choosing other
/// names here (the property test compares the two reports).
#[derive(Clone, Copy, Debug)]
pub struct Names {
    pub namespaces: [&'static str; 2],
    pub clusters: [&'static str; 2],
}

pub const NAMES: Names = Names {
    namespaces: ["nsprod", "nsteam"],
    clusters: ["kvalpha", "kvbeta"],
};

/// The same order as [`NAMES`] (so sorting by name sorts the same way), and
/// no name is a part of another or of any word the plugin prints.
pub const RENAMED: Names = Names {
    namespaces: ["nsyard", "nszone"],
    clusters: ["kvomega", "kvsigma"],
};

pub const HASH_CURRENT: &str = "41ab77c0e1f28d5b0e6a93c4f17d2e08b5a6c39f41e7d0b2a58c6e13f94d7a0c";
pub const HASH_NEW: &str = "9f2c41ab03de57c8e2b1f6a94d03e7b58c21a6f09d4e3b7c15a82f6e09d14b3a";
const HASH_OTHER: &str = "5d0e9c3b7a214f68e0b3c9d2a7f5e1b4c8d06a3f92e7b1c5d4a8f0e3b6c2d917";
/// Revision hashes: the current one, the new one, another.
const HASHES: [&str; 3] = [HASH_CURRENT, HASH_NEW, HASH_OTHER];

/// Seconds before `now` (negative: after it, a clock ahead of ours).
const OFFSETS: [i64; 14] = [
    0, 5, 30, 59, 61, 119, 121, 300, 599, 601, 1200, 7200, 259_200, -40,
];

/// The oldest time the generator writes is at most this long before `now`
/// (creation times), so no duration the report gives can be longer.
pub const MAX_AGE_SECONDS: u64 = 40 * 86_400;

/// A generated snapshot.
pub struct Generated {
    /// The kubectl `List`.
    pub list: Value,
    /// The stall threshold to classify with.
    pub threshold_seconds: u64,
}

fn time(offset_seconds: i64) -> String {
    let now: jiff::Timestamp = NOW.parse().expect("NOW is a time");
    let t = now
        .checked_sub(jiff::SignedDuration::from_secs(offset_seconds))
        .expect("in range");
    kubectl_valkey_roll::fixture::fmt_time(t)
}

impl Bytes<'_> {
    fn when(&mut self) -> String {
        time(self.one(&OFFSETS))
    }
    fn hash(&mut self) -> &'static str {
        self.one(&HASHES)
    }
}

/// The fixture's JSON condition, its time before its generation as this
/// generator's calls have it.
fn condition(
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    at: &str,
    gen_: Option<i64>,
) -> Value {
    kubectl_valkey_roll::fixture::json::condition(type_, status, reason, message, gen_, at)
}

/// Which protocol a cluster's nodes speak.
#[derive(Clone, Copy, PartialEq)]
enum Speaks {
    P1,
    P2,
    Nothing,
}

/// Builds a snapshot from `bytes`, with `names`.
pub fn snapshot(bytes: &[u8], names: Names) -> Generated {
    let mut b = Bytes::new(bytes);
    let threshold_seconds = b.one(&[600u64, 600, 60, 3600]);
    let mut items: Vec<Value> = Vec::new();
    let mut event_no = 0u32;
    let namespaces = 1 + b.pick(2);
    for ns in &names.namespaces[..namespaces] {
        let clusters = 1 + b.pick(2);
        for (ci, cluster) in names.clusters[..clusters].iter().enumerate() {
            let uid = format!("uid-{ns}-{ci}");
            let generation = 1 + b.pick(3) as i64;
            let speaks = b.one(&[Speaks::P1, Speaks::P2, Speaks::Nothing]);
            if !b.chance(10) {
                items.push(valkey_cluster(&mut b, ns, cluster, &uid, generation));
            }
            let shards = 1 + b.pick(3);
            for shard in 0..shards {
                let per_shard = 1 + b.pick(3);
                for index in 0..per_shard {
                    let node = format!("{cluster}-{shard}-{index}");
                    node_objects(
                        &mut b,
                        &mut items,
                        NodeAt {
                            ns,
                            cluster,
                            cluster_uid: &uid,
                            node: &node,
                            shard,
                            index,
                            speaks,
                        },
                    );
                }
            }
            let events = b.pick(6);
            for _ in 0..events {
                event_no += 1;
                let node = format!("{cluster}-{}-{}", b.pick(shards), b.pick(2));
                items.push(event(&mut b, ns, cluster, &node, event_no));
            }
        }
    }
    Generated {
        list: kubectl_valkey_roll::fixture::json::list(items),
        threshold_seconds,
    }
}

fn valkey_cluster(b: &mut Bytes, ns: &str, cluster: &str, uid: &str, generation: i64) -> Value {
    let mut conditions = Vec::new();
    match b.pick(4) {
        0 => {}
        1 => conditions.push(condition(
            "Ready",
            "True",
            "AllNodesReady",
            "ready",
            &b.when(),
            Some(generation),
        )),
        2 => conditions.push(condition(
            "Ready",
            "False",
            "UpdatingNodes",
            "rolling",
            &b.when(),
            Some(generation),
        )),
        _ => conditions.push(condition(
            "Ready",
            "True",
            "AllNodesReady",
            "ready",
            &b.when(),
            Some(generation - 1),
        )),
    }
    if b.chance(50) {
        let status = b.one(&["True", "False"]);
        conditions.push(condition(
            "Progressing",
            status,
            "UpdatingNodes",
            "rolling",
            &b.when(),
            Some(generation),
        ));
    }
    let (state, reason) = b.one(&[
        ("Ready", "AllNodesReady"),
        ("Reconciling", "UpdatingNodes"),
        ("Degraded", "NodesNotReady"),
    ]);
    json!({
        "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
        "metadata": {
            "name": cluster, "namespace": ns, "uid": uid, "generation": generation,
            "resourceVersion": "100", "creationTimestamp": time(30 * 86_400),
        },
        "spec": {"shards": 3, "replicas": 1, "image": "valkey/valkey:8.1.4"},
        "status": {"state": state, "reason": reason, "conditions": conditions},
    })
}

struct NodeAt<'a> {
    ns: &'a str,
    cluster: &'a str,
    cluster_uid: &'a str,
    node: &'a str,
    shard: usize,
    index: usize,
    speaks: Speaks,
}

fn node_objects(b: &mut Bytes, items: &mut Vec<Value>, at: NodeAt) {
    let NodeAt {
        ns,
        cluster,
        cluster_uid,
        node,
        shard,
        index,
        speaks,
    } = at;
    let generation = 1 + b.pick(3) as i64;
    let node_uid = format!("uid-{ns}-{node}");
    let deployment = b.chance(10);
    let labels = json!({
        "app.kubernetes.io/managed-by": "valkey-operator",
        "valkey.io/cluster": cluster,
        "valkey.io/shard-index": shard.to_string(),
        "valkey.io/node-index": index.to_string(),
    });
    let mut metadata = json!({
        "name": node, "namespace": ns, "uid": node_uid, "generation": generation,
        "resourceVersion": "200", "creationTimestamp": time(30 * 86_400),
        "labels": labels,
    });
    if !b.chance(8) {
        metadata["ownerReferences"] = json!([{
            "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster", "name": cluster,
            "uid": cluster_uid, "controller": true, "blockOwnerDeletion": true,
        }]);
    }
    let mut annotations = serde_json::Map::new();
    let mut conditions = Vec::new();
    let mut spec = json!({"image": "valkey/valkey:8.1.4"});
    if deployment {
        spec["workloadType"] = json!("Deployment");
    }
    let observed = match b.pick(4) {
        0 => None,
        1 => Some(generation - 1),
        _ => Some(generation),
    };
    match speaks {
        Speaks::P1 => {
            if b.chance(40) {
                annotations.insert(
                    "valkey.io/desired-workload-revision".into(),
                    json!(b.hash()),
                );
            }
            match b.pick(8) {
                0..=4 => {}
                5 => {
                    annotations.insert("valkey.io/allow-workload-revision".into(), json!("*"));
                }
                _ => {
                    annotations.insert("valkey.io/allow-workload-revision".into(), json!(b.hash()));
                }
            }
            if b.chance(40) {
                let h = b.hash();
                let status = b.one(&["True", "True", "False"]);
                conditions.push(condition(
                    "WorkloadDrift",
                    status,
                    "AwaitingRollPermit",
                    &format!("desired workload template hash {h} awaits cluster roll permit"),
                    &b.when(),
                    observed,
                ));
            }
        }
        Speaks::P2 => {
            if b.chance(70) {
                spec["workloadRevision"] = json!(b.hash());
            }
            if b.chance(40) {
                let h = b.hash();
                let status = b.one(&["True", "True", "False"]);
                conditions.push(condition(
                    "WorkloadRollPending",
                    status,
                    "AwaitingRollPermit",
                    &format!("workload revision {h} awaits the cluster's roll"),
                    &b.when(),
                    observed,
                ));
            }
        }
        Speaks::Nothing => {}
    }
    if b.chance(20) {
        annotations.insert("valkey-roll.io/granted-at".into(), json!(b.when()));
        annotations.insert("valkey-roll.io/granted-by".into(), json!("alice"));
        annotations.insert("valkey-roll.io/granted-revision".into(), json!(b.hash()));
    }
    if !annotations.is_empty() {
        metadata["annotations"] = Value::Object(annotations);
    }
    let ready = !b.chance(25);
    conditions.push(condition(
        "Ready",
        if ready { "True" } else { "False" },
        if ready { "NodeReady" } else { "PodNotReady" },
        "",
        &b.when(),
        observed,
    ));
    if b.chance(10) {
        conditions.push(condition(
            "LiveConfigApplied",
            "False",
            "Pending",
            "",
            &b.when(),
            observed,
        ));
    }
    let pod = format!("valkey-{node}-0");
    let mut status = json!({
        "ready": ready,
        "role": b.one(&["primary", "replica", "replica", ""]),
        "podName": pod,
        "podIP": format!("10.42.{shard}.{index}"),
        "conditions": conditions,
    });
    if let Some(g) = observed {
        status["observedGeneration"] = json!(g);
    }
    if b.chance(80) {
        status["lastRolloutHash"] = json!(b.hash());
    }
    items.push(json!({
        "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
        "metadata": metadata, "spec": spec, "status": status,
    }));

    let workload_labels = json!({
        "app.kubernetes.io/instance": node,
        "app.kubernetes.io/managed-by": "valkey-operator",
        "valkey.io/cluster": cluster,
    });
    let revisions = ["valkey-x-6d4f8b7c9", "valkey-x-7b9c5d8f4"];
    let update_revision = b.one(&revisions);
    if !b.chance(8) {
        let wgen = 1 + b.pick(3) as i64;
        let wobserved = match b.pick(4) {
            0 => None,
            1 => Some(wgen - 1),
            _ => Some(wgen),
        };
        let ready_replicas = b.one(&[1, 1, 0]);
        let meta = json!({
            "name": format!("valkey-{node}"), "namespace": ns, "generation": wgen,
            "uid": format!("uid-{ns}-w-{node}"), "resourceVersion": "300",
            "creationTimestamp": time(30 * 86_400), "labels": workload_labels,
            "ownerReferences": [{
                "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode", "name": node,
                "uid": node_uid, "controller": true,
            }],
        });
        let selector = json!({"matchLabels": {"app.kubernetes.io/instance": node, "valkey.io/cluster": cluster}});
        let template = json!({
            "metadata": {"labels": {"app.kubernetes.io/instance": node, "valkey.io/cluster": cluster}},
            "spec": {"containers": [{"name": "server", "image": "valkey/valkey:8.1.4"}]},
        });
        let mut wstatus = json!({"replicas": 1, "readyReplicas": ready_replicas});
        if let Some(g) = wobserved {
            wstatus["observedGeneration"] = json!(g);
        }
        if deployment {
            wstatus["updatedReplicas"] = json!(b.one(&[1, 1, 0]));
            if b.chance(10) {
                wstatus["conditions"] = json!([{
                    "type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                    "message": "ReplicaSet has timed out progressing.", "lastTransitionTime": b.when(),
                }]);
            }
            items.push(json!({
                "apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
                "spec": {"replicas": 1, "selector": selector, "template": template},
                "status": wstatus,
            }));
        } else {
            wstatus["currentRevision"] = json!(b.one(&revisions));
            wstatus["updateRevision"] = json!(update_revision);
            items.push(json!({
                "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta,
                "spec": {"replicas": 1, "selector": selector, "template": template,
                         "serviceName": "valkey-headless", "podManagementPolicy": "OrderedReady"},
                "status": wstatus,
            }));
        }
    }

    if !b.chance(12) {
        let pod_ready = !b.chance(30);
        let mut pod_labels = json!({
            "app.kubernetes.io/instance": node,
            "valkey.io/cluster": cluster,
        });
        if !deployment {
            pod_labels["controller-revision-hash"] = json!(b.one(&revisions));
        }
        let mut meta = json!({
            "name": if deployment { format!("valkey-{node}-5f7d9c-x2k4q") } else { pod.clone() },
            "namespace": ns, "uid": format!("uid-{ns}-p-{node}"), "resourceVersion": "400",
            "creationTimestamp": b.when(), "labels": pod_labels,
        });
        if b.chance(8) {
            meta["deletionTimestamp"] = json!(b.when());
        }
        let mut pod_conditions = vec![json!({
            "type": "Ready", "status": if pod_ready { "True" } else { "False" },
            "lastTransitionTime": b.when(),
        })];
        if b.chance(8) {
            pod_conditions.push(json!({
                "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": "0/3 nodes are available", "lastTransitionTime": b.when(),
            }));
        }
        let mut container = json!({
            "name": "server", "image": "valkey/valkey:8.1.4", "imageID": "",
            "ready": pod_ready, "restartCount": b.pick(9), "started": pod_ready,
        });
        match b.pick(8) {
            0 => {
                container["state"] =
                    json!({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}})
            }
            1 => {
                container["state"] = json!({"waiting": {"reason": b.one(&["ImagePullBackOff", "ErrImagePull", "InvalidImageName", "CreateContainerConfigError", "ContainerCreating"])}})
            }
            _ => container["state"] = json!({"running": {"startedAt": b.when()}}),
        }
        if b.chance(10) {
            container["lastState"] =
                json!({"terminated": {"reason": "OOMKilled", "exitCode": 137}});
        }
        items.push(json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "server", "image": "valkey/valkey:8.1.4"}]},
            "status": {"phase": "Running", "conditions": pod_conditions, "containerStatuses": [container]},
        }));
    }
}

fn event(b: &mut Bytes, ns: &str, cluster: &str, node: &str, n: u32) -> Value {
    let reason = b.one(&[
        "WorkloadRollPermitted",
        "WorkloadRollApplied",
        "ValkeyNodeUpdated",
        "SupersededPodDeleted",
        "FailoverInitiated",
        "FailoverCompleted",
        "ManualRollPermitGranted",
        "WorkloadRollDeferred",
    ]);
    let (kind, name) = if b.chance(25) {
        ("ValkeyCluster", cluster.to_string())
    } else {
        ("ValkeyNode", node.to_string())
    };
    let h = b.hash();
    let mut e = json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{name}.{n:016x}"), "namespace": ns, "resourceVersion": "500",
                     "creationTimestamp": b.when()},
        "involvedObject": {"apiVersion": "valkey.io/v1alpha1", "kind": kind, "name": name, "namespace": ns},
        "reason": reason,
        "message": format!("{reason} for revision {h}"),
        "type": "Normal",
        "reportingComponent": "valkey-operator",
        "reportingInstance": "valkey-operator-controller-manager",
        "source": {},
    });
    match b.pick(3) {
        0 => {
            e["eventTime"] = json!(format!("{}", b.when().replace('Z', ".000000Z")));
        }
        1 => {
            let first = b.when();
            e["firstTimestamp"] = json!(first);
            e["lastTimestamp"] = json!(b.when());
            e["count"] = json!(1 + b.pick(5));
        }
        _ => {
            e["eventTime"] = json!(format!("{}", b.when().replace('Z', ".000000Z")));
            e["series"] = json!({"count": 2 + b.pick(20), "lastObservedTime": b.when().replace('Z', ".500000Z")});
        }
    }
    e
}

/// The same List with its items, and each object's conditions, in another
/// order (a permutation drawn from `bytes`).
pub fn shuffled(list: &Value, bytes: &[u8]) -> Value {
    let mut b = Bytes::new(bytes);
    let mut out = list.clone();
    if let Some(items) = out["items"].as_array_mut() {
        shuffle(items, &mut b);
        for item in items.iter_mut() {
            if let Some(conds) = item
                .pointer_mut("/status/conditions")
                .and_then(Value::as_array_mut)
            {
                shuffle(conds, &mut b);
            }
        }
    }
    out
}

fn shuffle(items: &mut [Value], b: &mut Bytes) {
    for i in (1..items.len()).rev() {
        let j = b.pick(i + 1);
        items.swap(i, j);
    }
}

/// `text` with every name of `from` replaced by the matching name of `to`.
pub fn rename(text: &str, from: Names, to: Names) -> String {
    let mut out = text.to_string();
    for (a, b) in from.namespaces.iter().zip(to.namespaces.iter()) {
        out = out.replace(a, b);
    }
    for (a, b) in from.clusters.iter().zip(to.clusters.iter()) {
        out = out.replace(a, b);
    }
    out
}
