//! The objects of a ValkeyCluster in the middle of a P1 roll, as the API
//! server holds them: the one object vocabulary of the benchmarks
//! (`classify.rs`, `cluster.rs`). Pod and StatefulSet specs are as the
//! operator builds them (two containers with probes, env and volume
//! mounts; four volumes), so the objects are of realistic size (about
//! 10 KB a pod with its managedFields, as in shared/recordings).
//!
//! Each size is a P1 roll under way: a third of the nodes rolled (with
//! their WorkloadRollPermitted/WorkloadRollApplied events), one holder
//! whose new pod crash-loops (the cluster is Jammed), the rest asking.

//!
//! Hashes, uids, times, conditions, the operator's words, labels, events
//! and the pod spec are the fixture's (src/fixture, the `fixture` feature);
//! what is left here is the roll's shape.

#![allow(dead_code)]

use jiff::{SignedDuration, Timestamp};
use kubectl_valkey_roll::fixture::{self, fmt_time, hash, json::condition, uid, words};
use kubectl_valkey_roll::snapshot::{VALKEY_API_VERSION, keys};
use serde_json::{Value, json};

/// The namespace of a single generated cluster.
pub const NAMESPACE: &str = "prod";
pub const CLUSTER: &str = "cache";

/// The clock of every run (the "now" of the snapshot).
pub fn now() -> Timestamp {
    Timestamp::from_second(1_795_947_371).unwrap_or(Timestamp::UNIX_EPOCH)
}

fn ago(secs: i64) -> Timestamp {
    now() - SignedDuration::from_secs(secs)
}

/// `metav1.Time` `secs` before [`now`].
fn at(secs: i64) -> String {
    fmt_time(ago(secs))
}

/// A condition of generation 2, since `secs` before [`now`].
fn cond(type_: &str, status: &str, (reason, message): (&str, &str), secs: i64) -> Value {
    condition(type_, status, reason, message, Some(2), &at(secs))
}

/// Where a node is in the roll.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Rolled,
    Holder,
    Asking,
}

/// The objects of one cluster of `nodes` nodes (2 per shard), as the items
/// of a kubectl `List`.
pub fn cluster_items(namespace: &str, nodes: usize) -> Vec<Value> {
    cluster_items_named(namespace, CLUSTER, nodes)
}

/// [`cluster_items`] of a cluster named `cluster` (several in one
/// namespace: their node, workload and pod names differ by it).
pub fn cluster_items_named(namespace: &str, cluster: &str, nodes: usize) -> Vec<Value> {
    let shards = nodes.div_ceil(2);
    let (old, new) = (hash("bench/old"), hash("bench/new"));
    let cluster_uid = uid(&format!("bench/{namespace}/{cluster}"));
    // Bench-only words (no fixture builder says them).
    let live_config = ("Applied", "Live configuration is applied");
    let formed = ("ClusterFormed", "All nodes joined the cluster");
    let mut items = vec![json!({
        "apiVersion": VALKEY_API_VERSION,
        "kind": "ValkeyCluster",
        "metadata": {
            "name": cluster, "namespace": namespace, "uid": cluster_uid,
            "generation": 4, "resourceVersion": "48212182",
            "creationTimestamp": at(6_000_000),
        },
        "spec": {"image": "valkey/valkey:8.1.4", "shards": shards, "replicas": 1,
                 "workloadType": "StatefulSet"},
        "status": {
            "state": "Reconciling", "reason": words::UPDATING_NODES.0,
            "message": words::UPDATING_NODES.1,
            "shards": shards, "readyShards": shards - 1,
            "conditions": [
                cond(keys::COND_READY, "False", words::UPDATING_NODES, 1800),
                cond(keys::COND_PROGRESSING, "True", words::UPDATING_NODES, 1800),
                cond("ClusterFormed", "True", formed, 6_000_000),
            ],
        },
    })];
    let mut events = Vec::new();
    for i in 0..nodes {
        let (shard, index) = (i / 2, i % 2);
        let name = format!("{cluster}-{shard}-{index}");
        let stage = match i {
            _ if i < nodes / 3 => Stage::Rolled,
            _ if i == nodes / 3 => Stage::Holder,
            _ => Stage::Asking,
        };
        let seed = format!("bench/{namespace}/{name}");
        let node_uid = uid(&seed);
        let workload = format!("valkey-{name}");
        let workload_uid = uid(&format!("{seed}/workload"));
        let pod = format!("{workload}-0");
        let runs = if stage == Stage::Asking { &old } else { &new };
        let revision = fixture::sts_revision(&workload, runs);
        let ago_secs = 1800 - 60 * (i as i64 % 25);

        let mut annotations = serde_json::Map::new();
        let mut conditions = vec![
            cond(keys::COND_READY, "True", words::NODE_READY, 90_000),
            cond(keys::COND_LIVE_CONFIG, "True", live_config, 90_000),
        ];
        match stage {
            Stage::Asking => {
                annotations.insert(keys::ANN_DESIRED.into(), json!(new));
                conditions.push(condition(
                    keys::COND_DRIFT,
                    "True",
                    words::DRIFT_REASON,
                    &words::drift_message(&new),
                    Some(2),
                    &at(1790),
                ));
            }
            Stage::Holder => {
                annotations.insert(keys::ANN_PERMIT.into(), json!(new));
                conditions[0] = cond(keys::COND_READY, "False", words::NODE_NOT_READY, 840);
            }
            Stage::Rolled => {}
        }
        let mut managed_annotations = serde_json::Map::new();
        for key in annotations.keys() {
            managed_annotations.insert(format!("f:{key}"), json!({}));
        }
        // The cluster controller's labels on a node, as the fixture's.
        let mut node_labels = fixture::recommended_labels(cluster);
        node_labels.insert(keys::LABEL_CLUSTER.into(), cluster.into());
        node_labels.insert(keys::LABEL_SHARD_INDEX.into(), shard.to_string());
        node_labels.insert(keys::LABEL_NODE_INDEX.into(), index.to_string());
        items.push(json!({
            "apiVersion": VALKEY_API_VERSION,
            "kind": "ValkeyNode",
            "metadata": {
                "name": name, "namespace": namespace, "uid": node_uid,
                "generation": 2, "resourceVersion": (48_300_000 + i).to_string(),
                "creationTimestamp": at(6_000_000),
                "labels": node_labels,
                "annotations": annotations,
                "ownerReferences": [{
                    "apiVersion": VALKEY_API_VERSION, "kind": "ValkeyCluster",
                    "name": cluster, "uid": cluster_uid,
                    "controller": true, "blockOwnerDeletion": true,
                }],
                "managedFields": [
                    {"manager": "manager", "operation": "Update",
                     "apiVersion": VALKEY_API_VERSION, "time": at(ago_secs), "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:metadata": {"f:annotations": managed_annotations,
                                                 "f:labels": {".": {}, "f:valkey.io/cluster": {}}},
                                  "f:spec": {".": {}, "f:image": {}, "f:workloadType": {}}}},
                    {"manager": "manager", "operation": "Update", "subresource": "status",
                     "apiVersion": VALKEY_API_VERSION, "time": at(ago_secs - 5), "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:status": {".": {}, "f:conditions": {}, "f:ready": {},
                                               "f:role": {}, "f:lastRolloutHash": {}}}},
                ],
            },
            "spec": {"image": "valkey/valkey:8.1.4", "workloadType": "StatefulSet",
                     "serverConfigMapName": "valkey-cache-config"},
            "status": {
                "ready": stage != Stage::Holder,
                "role": if index == 0 { "primary" } else { "replica" },
                "podName": pod, "podIP": pod_ip(i),
                "observedGeneration": 2,
                "conditions": conditions,
                "lastRolloutHash": if stage == Stage::Rolled { &new } else { &old },
            },
        }));

        // The node controller's labels on the workload and its pod: the
        // node's, with app.kubernetes.io/instance the node's name.
        let mut label_map = node_labels;
        label_map.insert(keys::LABEL_INSTANCE.into(), name.clone());
        let labels = json!(label_map);
        let (update_revision, current_revision, ready) = match stage {
            Stage::Holder => (
                fixture::sts_revision(&workload, &new),
                fixture::sts_revision(&workload, &old),
                0,
            ),
            _ => (revision.clone(), revision.clone(), 1),
        };
        items.push(json!({
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {
                "name": workload, "namespace": namespace, "uid": workload_uid,
                "generation": if stage == Stage::Asking { 1 } else { 2 },
                "labels": labels,
                "ownerReferences": [{"apiVersion": VALKEY_API_VERSION, "kind": "ValkeyNode",
                                     "name": name, "uid": node_uid, "controller": true}],
            },
            "spec": {
                "replicas": 1, "serviceName": workload,
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels,
                                 "annotations": {"valkey.io/workload-template-hash": runs}},
                    "spec": fixture::operator_pod_spec(cluster, &workload, None),
                },
                "podManagementPolicy": "OrderedReady", "revisionHistoryLimit": 10,
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
                "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
            },
            "status": {
                "observedGeneration": if stage == Stage::Asking { 1 } else { 2 },
                "replicas": 1, "readyReplicas": ready, "availableReplicas": ready,
                "currentReplicas": 1, "updatedReplicas": 1,
                "currentRevision": current_revision, "updateRevision": update_revision,
            },
        }));

        let exporter = json!({"name": "metrics-exporter", "image": "oliver006/redis_exporter:v1.80.0",
            "imageID": "docker.io/oliver006/redis_exporter@sha256:".to_string() + &hash("redis_exporter:v1.80.0"),
            "ready": true, "restartCount": 0, "started": true, "lastState": {},
            "state": {"running": {"startedAt": at(ago_secs)}}});
        let container = if stage == Stage::Holder {
            json!({"name": fixture::CONTAINER, "image": "valkey/valkey:8.1.4", "ready": false,
                   "restartCount": 7, "started": false,
                   "state": {"waiting": {"reason": "CrashLoopBackOff",
                                         "message": "back-off 5m0s restarting failed container"}},
                   "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                                                "startedAt": at(120), "finishedAt": at(119)}}})
        } else {
            json!({"name": fixture::CONTAINER, "image": "valkey/valkey:8.1.4", "ready": true,
                   "restartCount": 0, "started": true,
                   "state": {"running": {"startedAt": at(ago_secs)}}})
        };
        let pod_ready = if stage == Stage::Holder {
            "False"
        } else {
            "True"
        };
        let mut pod_labels = labels.clone();
        pod_labels[keys::LABEL_CONTROLLER_REVISION] = json!(revision);
        pod_labels["statefulset.kubernetes.io/pod-name"] = json!(pod);
        pod_labels["apps.kubernetes.io/pod-index"] = json!("0");
        items.push(json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": pod, "namespace": namespace, "uid": uid(&format!("{seed}/pod")),
                "labels": pod_labels,
                "annotations": {"valkey.io/config-hash": hash(&format!("{seed}/config"))},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet",
                                     "name": workload, "uid": workload_uid, "controller": true,
                                     "blockOwnerDeletion": true}],
            },
            "spec": fixture::operator_pod_spec(cluster, &workload, Some(&pod)),
            "status": {
                "phase": "Running",
                "conditions": [
                    {"type": "Initialized", "status": "True", "lastTransitionTime": at(ago_secs)},
                    {"type": "Ready", "status": pod_ready, "lastTransitionTime": at(ago_secs - 20)},
                    {"type": "ContainersReady", "status": pod_ready, "lastTransitionTime": at(ago_secs - 20)},
                    {"type": "PodScheduled", "status": "True", "lastTransitionTime": at(ago_secs)},
                ],
                "containerStatuses": [container, exporter],
                "hostIP": "127.0.0.1",
                "podIP": pod_ip(i),
                "podIPs": [{"ip": pod_ip(i)}],
                "qosClass": "BestEffort",
                "startTime": at(ago_secs),
            },
        }));

        if stage != Stage::Asking {
            // The fixture's events, with this cluster's uids and a name
            // unique in the namespace (the fixture names them by time).
            let permitted =
                fixture::event_permitted(namespace, cluster, &name, &new, ago(ago_secs));
            let applied = fixture::event_applied(namespace, &name, &new, ago(ago_secs - 1));
            for mut e in [permitted, applied] {
                e.metadata.name = Some(format!("{name}.{:x}", events.len()));
                for r in std::iter::once(&mut e.involved_object).chain(e.related.as_mut()) {
                    r.uid = Some(if r.kind.as_deref() == Some("ValkeyCluster") {
                        cluster_uid.clone()
                    } else {
                        node_uid.clone()
                    });
                }
                events.push(fixture::json::item(&e, "v1", "Event"));
            }
        }
    }
    items.extend(events);
    items
}

/// A fake pod IP: in 127.0.1.0/24, never dialled.
fn pod_ip(i: usize) -> String {
    format!("127.0.1.{}", i % 250 + 2)
}
