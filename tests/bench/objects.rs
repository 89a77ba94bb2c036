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

#![allow(dead_code)]

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

/// The namespace of a single generated cluster.
pub const NAMESPACE: &str = "prod";
pub const CLUSTER: &str = "cache";

/// The clock of every run (the "now" of the snapshot).
pub fn now() -> Timestamp {
    Timestamp::from_second(1_795_947_371).unwrap_or(Timestamp::UNIX_EPOCH)
}

fn at(ago_secs: i64) -> String {
    (now() - SignedDuration::from_secs(ago_secs))
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

fn micro(ago_secs: i64) -> String {
    (now() - SignedDuration::from_secs(ago_secs))
        .strftime("%Y-%m-%dT%H:%M:%S%.6fZ")
        .to_string()
}

/// A stand-in for a pod-template sha256: 64 hex digits from a seed.
pub fn hash(seed: u64) -> String {
    (0..4u64)
        .map(|salt| {
            let mut h = seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            h ^= h >> 33;
            h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
            h ^= h >> 33;
            format!("{h:016x}")
        })
        .collect()
}

pub fn uid(seed: u64) -> String {
    let h = hash(seed);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn condition(type_: &str, status: &str, reason: &str, message: &str, ago: i64) -> Value {
    json!({
        "type": type_, "status": status, "reason": reason, "message": message,
        "lastTransitionTime": at(ago), "observedGeneration": 2,
    })
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
    let shards = nodes.div_ceil(2);
    let (old, new) = (hash(1), hash(2));
    let cluster_uid = uid(3);
    let mut items = vec![json!({
        "apiVersion": "valkey.io/v1alpha1",
        "kind": "ValkeyCluster",
        "metadata": {
            "name": CLUSTER, "namespace": namespace, "uid": cluster_uid,
            "generation": 4, "resourceVersion": "48212182",
            "creationTimestamp": at(6_000_000),
        },
        "spec": {"image": "valkey/valkey:8.1.4", "shards": shards, "replicas": 1,
                 "workloadType": "StatefulSet"},
        "status": {
            "state": "Reconciling", "reason": "UpdatingNodes",
            "shards": shards, "readyShards": shards - 1,
            "conditions": [
                condition("Ready", "False", "UpdatingNodes", "Rolling node workloads one at a time", 1800),
                condition("Progressing", "True", "UpdatingNodes", "Rolling node workloads one at a time", 1800),
                condition("ClusterFormed", "True", "ClusterFormed", "All nodes joined the cluster", 6_000_000),
            ],
        },
    })];
    let mut events = Vec::new();
    for i in 0..nodes {
        let (shard, index) = (i / 2, i % 2);
        let name = format!("{CLUSTER}-{shard}-{index}");
        let stage = match i {
            _ if i < nodes / 3 => Stage::Rolled,
            _ if i == nodes / 3 => Stage::Holder,
            _ => Stage::Asking,
        };
        let seed = 1000 + i as u64;
        let node_uid = uid(seed);
        let workload = format!("valkey-{name}");
        let pod = format!("{workload}-0");
        let runs = if stage == Stage::Asking { &old } else { &new };
        let revision = format!("{workload}-{}", &runs[..10]);
        let ago = 1800 - 60 * (i as i64 % 25);

        let mut annotations = serde_json::Map::new();
        let mut conditions = vec![
            condition(
                "Ready",
                "True",
                "NodeReady",
                "Valkey is serving and in sync",
                90_000,
            ),
            condition(
                "LiveConfigApplied",
                "True",
                "Applied",
                "Live configuration is applied",
                90_000,
            ),
        ];
        match stage {
            Stage::Asking => {
                annotations.insert("valkey.io/desired-workload-revision".into(), json!(new));
                conditions.push(condition(
                    "WorkloadDrift",
                    "True",
                    "AwaitingRollPermit",
                    &format!("desired workload template hash {new} awaits cluster roll permit"),
                    1790,
                ));
            }
            Stage::Holder => {
                annotations.insert("valkey.io/allow-workload-revision".into(), json!(new));
                conditions[0] = condition("Ready", "False", "PodNotReady", "pod is not ready", 840);
            }
            Stage::Rolled => {}
        }
        let mut managed_annotations = serde_json::Map::new();
        for key in annotations.keys() {
            managed_annotations.insert(format!("f:{key}"), json!({}));
        }
        items.push(json!({
            "apiVersion": "valkey.io/v1alpha1",
            "kind": "ValkeyNode",
            "metadata": {
                "name": name, "namespace": namespace, "uid": node_uid,
                "generation": 2, "resourceVersion": (48_300_000 + i).to_string(),
                "creationTimestamp": at(6_000_000),
                "labels": {
                    "app.kubernetes.io/managed-by": "valkey-operator",
                    "valkey.io/cluster": CLUSTER,
                    "valkey.io/shard-index": shard.to_string(),
                    "valkey.io/node-index": index.to_string(),
                },
                "annotations": annotations,
                "ownerReferences": [{
                    "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
                    "name": CLUSTER, "uid": cluster_uid,
                    "controller": true, "blockOwnerDeletion": true,
                }],
                "managedFields": [
                    {"manager": "manager", "operation": "Update",
                     "apiVersion": "valkey.io/v1alpha1", "time": at(ago), "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:metadata": {"f:annotations": managed_annotations,
                                                 "f:labels": {".": {}, "f:valkey.io/cluster": {}}},
                                  "f:spec": {".": {}, "f:image": {}, "f:workloadType": {}}}},
                    {"manager": "manager", "operation": "Update", "subresource": "status",
                     "apiVersion": "valkey.io/v1alpha1", "time": at(ago - 5), "fieldsType": "FieldsV1",
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

        let labels = json!({
            "app.kubernetes.io/component": "valkey-node",
            "app.kubernetes.io/instance": name,
            "app.kubernetes.io/managed-by": "valkey-operator",
            "app.kubernetes.io/name": "valkey",
            "app.kubernetes.io/part-of": "valkey",
            "valkey.io/cluster": CLUSTER,
            "valkey.io/node-index": index.to_string(),
            "valkey.io/shard-index": shard.to_string(),
        });
        let (update_revision, current_revision, ready) = match stage {
            Stage::Holder => (
                format!("{workload}-{}", &new[..10]),
                format!("{workload}-{}", &old[..10]),
                0,
            ),
            _ => (revision.clone(), revision.clone(), 1),
        };
        items.push(json!({
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {
                "name": workload, "namespace": namespace, "uid": uid(seed + 100_000),
                "generation": if stage == Stage::Asking { 1 } else { 2 },
                "labels": labels,
                "ownerReferences": [{"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
                                     "name": name, "uid": node_uid, "controller": true}],
            },
            "spec": {
                "replicas": 1, "serviceName": workload,
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels,
                                 "annotations": {"valkey.io/workload-template-hash": runs}},
                    "spec": pod_spec(&workload, None),
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
            "imageID": "docker.io/oliver006/redis_exporter@sha256:".to_string() + &hash(7),
            "ready": true, "restartCount": 0, "started": true, "lastState": {},
            "state": {"running": {"startedAt": at(ago)}}});
        let container = if stage == Stage::Holder {
            json!({"name": "server", "image": "valkey/valkey:8.1.4", "ready": false,
                   "restartCount": 7, "started": false,
                   "state": {"waiting": {"reason": "CrashLoopBackOff",
                                         "message": "back-off 5m0s restarting failed container"}},
                   "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                                                "startedAt": at(120), "finishedAt": at(119)}}})
        } else {
            json!({"name": "server", "image": "valkey/valkey:8.1.4", "ready": true,
                   "restartCount": 0, "started": true,
                   "state": {"running": {"startedAt": at(ago)}}})
        };
        let pod_ready = if stage == Stage::Holder {
            "False"
        } else {
            "True"
        };
        let mut pod_labels = labels.clone();
        pod_labels["controller-revision-hash"] = json!(revision);
        pod_labels["statefulset.kubernetes.io/pod-name"] = json!(pod);
        pod_labels["apps.kubernetes.io/pod-index"] = json!("0");
        items.push(json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": pod, "namespace": namespace, "uid": uid(seed + 200_000),
                "labels": pod_labels,
                "annotations": {"valkey.io/config-hash": hash(seed + 300_000)},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet",
                                     "name": workload, "uid": uid(seed + 100_000), "controller": true,
                                     "blockOwnerDeletion": true}],
            },
            "spec": pod_spec(&workload, Some(&pod)),
            "status": {
                "phase": "Running",
                "conditions": [
                    {"type": "Initialized", "status": "True", "lastTransitionTime": at(ago)},
                    {"type": "Ready", "status": pod_ready, "lastTransitionTime": at(ago - 20)},
                    {"type": "ContainersReady", "status": pod_ready, "lastTransitionTime": at(ago - 20)},
                    {"type": "PodScheduled", "status": "True", "lastTransitionTime": at(ago)},
                ],
                "containerStatuses": [container, exporter],
                "hostIP": "127.0.0.1",
                "podIP": pod_ip(i),
                "podIPs": [{"ip": pod_ip(i)}],
                "qosClass": "BestEffort",
                "startTime": at(ago),
            },
        }));

        if stage != Stage::Asking {
            let mut event = |reason: &str, regarding: Value, note: String, ago: i64| {
                events.push(json!({
                    "apiVersion": "v1",
                    "kind": "Event",
                    "metadata": {"name": format!("{name}.{:x}", seed * 10 + events.len() as u64),
                                 "namespace": namespace},
                    "involvedObject": regarding,
                    "reason": reason, "message": note, "type": "Normal",
                    "eventTime": micro(ago),
                    "reportingComponent": "valkey-operator",
                    "reportingInstance": "valkey-operator-controller-manager-6c9d7f-x2k4q",
                    "action": reason,
                    "firstTimestamp": null, "lastTimestamp": null,
                }));
            };
            event(
                "WorkloadRollPermitted",
                json!({"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
                       "namespace": namespace, "name": CLUSTER, "uid": cluster_uid}),
                format!("Granted workload roll permit for {name} (hash {new})"),
                ago,
            );
            event(
                "WorkloadRollApplied",
                json!({"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
                       "namespace": namespace, "name": name, "uid": node_uid}),
                format!("Applied pod template update (hash {new})"),
                ago - 1,
            );
        }
    }
    items.extend(events);
    items
}

/// The List as kubectl prints it.
pub fn list(items: Vec<Value>) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})
}

/// A fake pod IP: in 127.0.1.0/24, never dialled.
fn pod_ip(i: usize) -> String {
    format!("127.0.1.{}", i % 250 + 2)
}

/// A pod spec as the operator builds it: the server with its three probes,
/// env from the downward API and secrets, four volume mounts; a metrics
/// exporter beside it. `pod`: the pod's own name (hostname), for a pod;
/// `None` in a workload's template.
pub fn pod_spec(workload: &str, pod: Option<&str>) -> Value {
    let passwords = format!("internal-{CLUSTER}-system-passwords");
    let exec = |script: &str, timeout: i64, failures: i64| {
        json!({"exec": {"command": ["/bin/sh", "-c", script]}, "failureThreshold": failures,
               "initialDelaySeconds": 5, "periodSeconds": 5, "successThreshold": 1,
               "timeoutSeconds": timeout})
    };
    let http = |delay: i64, period: i64| {
        json!({"httpGet": {"path": "/health", "port": 9121, "scheme": "HTTP"}, "failureThreshold": 3,
               "initialDelaySeconds": delay, "periodSeconds": period, "successThreshold": 1,
               "timeoutSeconds": 3})
    };
    let mut spec = json!({
        "containers": [
            {
                "name": "server",
                "image": "valkey/valkey:8.1.4",
                "imagePullPolicy": "IfNotPresent",
                "command": ["valkey-server", "/config/valkey.conf", "--cluster-announce-ip", "$(POD_IP)",
                            "--primaryuser", "_replication", "--primaryauth", "$(PRIMARY_AUTH)"],
                "env": [
                    {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
                    {"name": "PRIMARY_AUTH", "valueFrom": {"secretKeyRef": {"key": "_replication", "name": passwords}}},
                    {"name": "VALKEY_USER", "value": "_operator"},
                    {"name": "VALKEYCLI_AUTH", "valueFrom": {"secretKeyRef": {"key": "_operator", "name": passwords, "optional": true}}},
                ],
                "ports": [
                    {"containerPort": 6379, "name": "client", "protocol": "TCP"},
                    {"containerPort": 16379, "name": "cluster-bus", "protocol": "TCP"},
                ],
                "livenessProbe": exec("/scripts/liveness-check.sh", 5, 5),
                "readinessProbe": exec("/scripts/readiness-check.sh", 2, 5),
                "startupProbe": exec("/scripts/liveness-check.sh", 5, 20),
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "volumeMounts": [
                    {"mountPath": "/scripts", "name": "scripts"},
                    {"mountPath": "/config", "name": "valkey-conf", "readOnly": true},
                    {"mountPath": "/data", "name": "data"},
                    {"mountPath": "/config/users", "name": "users-acl", "readOnly": true},
                ],
            },
            {
                "name": "metrics-exporter",
                "image": "oliver006/redis_exporter:v1.80.0",
                "imagePullPolicy": "IfNotPresent",
                "env": [
                    {"name": "REDIS_ADDR", "value": "redis://localhost:6379"},
                    {"name": "REDIS_USER", "value": "_exporter"},
                    {"name": "REDIS_PASSWORD", "valueFrom": {"secretKeyRef": {"key": "_exporter", "name": passwords}}},
                ],
                "ports": [{"containerPort": 9121, "name": "metrics", "protocol": "TCP"}],
                "livenessProbe": http(10, 10),
                "readinessProbe": http(5, 1),
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
            },
        ],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": true,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30,
        "volumes": [
            {"name": "scripts", "configMap": {"defaultMode": 493, "name": format!("valkey-{CLUSTER}")}},
            {"name": "valkey-conf", "configMap": {"defaultMode": 420, "name": format!("valkey-{CLUSTER}")}},
            {"name": "users-acl", "secret": {"defaultMode": 420, "secretName": format!("internal-{CLUSTER}-acl")}},
            {"name": "data", "emptyDir": {}},
        ],
    });
    if let Some(pod) = pod {
        spec["hostname"] = json!(pod);
        spec["subdomain"] = json!(workload);
        spec["nodeName"] = json!("kwok-node-0");
        spec["priority"] = json!(0);
        spec["preemptionPolicy"] = json!("PreemptLowerPriority");
        spec["tolerations"] = json!([
            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
            {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
        ]);
    }
    spec
}
