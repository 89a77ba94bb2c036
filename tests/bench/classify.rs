//! Figures for reading, judging and rendering clusters of 6, 300 and 3000
//! nodes: `cargo bench --bench classify`.
//!
//! Each size is a P1 roll under way, as `kubectl get valkeyclusters,
//! valkeynodes,statefulsets,deployments,pods,events -o yaml
//! --show-managed-fields` would print it: a third of the nodes rolled (with
//! their WorkloadRollPermitted/WorkloadRollApplied events), one holder whose
//! new pod crash-loops (the cluster is Jammed), the rest asking. It is built
//! once as a kubectl `List` (serde_json), then read three ways: deserialized
//! into the crate's snapshot types directly, and parsed from the List's YAML
//! and JSON text with `source::file::parse_snapshot`. The snapshot from
//! YAML is the one judged and rendered.
//!
//! Each figure is the median of several runs (std::time::Instant). Peak
//! memory is the process's VmHWM (Linux), which only grows: read after a
//! size, it is the peak of that size and the smaller ones before it.
//! Nothing here asserts a time.
//!
//! Run as a test (`cargo test --all-targets`, which passes no `--bench`), it
//! does one quick run of the smallest size, so the code stays exercised.

use jiff::{SignedDuration, Timestamp};
use kubectl_valkey_roll::classify::classify;
use kubectl_valkey_roll::render::json::{to_json, to_yaml};
use kubectl_valkey_roll::render::table::{TableOptions, status_table};
use kubectl_valkey_roll::report::{Report, Verdict};
use kubectl_valkey_roll::snapshot::{Snapshot, ValkeyCluster, ValkeyNode};
use kubectl_valkey_roll::source::file::parse_snapshot;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::{Duration, Instant};

const NAMESPACE: &str = "prod";
const CLUSTER: &str = "cache";
const THRESHOLD: Duration = Duration::from_secs(600);

/// The clock of every run (the "now" of the snapshot).
fn now() -> Timestamp {
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
fn hash(seed: u64) -> String {
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

fn uid(seed: u64) -> String {
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
fn cluster_items(nodes: usize) -> Vec<Value> {
    let shards = nodes.div_ceil(2);
    let (old, new) = (hash(1), hash(2));
    let cluster_uid = uid(3);
    let mut items = vec![json!({
        "apiVersion": "valkey.io/v1alpha1",
        "kind": "ValkeyCluster",
        "metadata": {
            "name": CLUSTER, "namespace": NAMESPACE, "uid": cluster_uid,
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
                "name": name, "namespace": NAMESPACE, "uid": node_uid,
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
                "podName": pod, "podIP": format!("10.42.{}.{}", i / 250, i % 250 + 2),
                "observedGeneration": 2,
                "conditions": conditions,
                "lastRolloutHash": if stage == Stage::Rolled { &new } else { &old },
            },
        }));

        let labels = json!({"app.kubernetes.io/instance": name, "valkey.io/cluster": CLUSTER});
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
                "name": workload, "namespace": NAMESPACE, "uid": uid(seed + 100_000),
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
                    "spec": {"containers": [{"name": "server", "image": "valkey/valkey:8.1.4"}]},
                },
            },
            "status": {
                "observedGeneration": if stage == Stage::Asking { 1 } else { 2 },
                "replicas": 1, "readyReplicas": ready, "availableReplicas": ready,
                "currentReplicas": 1, "updatedReplicas": 1,
                "currentRevision": current_revision, "updateRevision": update_revision,
            },
        }));

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
        items.push(json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": pod, "namespace": NAMESPACE, "uid": uid(seed + 200_000),
                "labels": {"app.kubernetes.io/instance": name, "valkey.io/cluster": CLUSTER,
                           "controller-revision-hash": revision,
                           "statefulset.kubernetes.io/pod-name": pod},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet",
                                     "name": workload, "uid": uid(seed + 100_000), "controller": true}],
            },
            "spec": {"containers": [{"name": "server", "image": "valkey/valkey:8.1.4"}]},
            "status": {
                "phase": "Running",
                "conditions": [
                    {"type": "PodScheduled", "status": "True", "lastTransitionTime": at(ago)},
                    {"type": "Ready", "status": pod_ready, "lastTransitionTime": at(ago - 20)},
                ],
                "containerStatuses": [container],
            },
        }));

        if stage != Stage::Asking {
            let mut event = |reason: &str, regarding: Value, note: String, ago: i64| {
                events.push(json!({
                    "apiVersion": "v1",
                    "kind": "Event",
                    "metadata": {"name": format!("{name}.{:x}", seed * 10 + events.len() as u64),
                                 "namespace": NAMESPACE},
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
                       "namespace": NAMESPACE, "name": CLUSTER, "uid": cluster_uid}),
                format!("Granted workload roll permit for {name} (hash {new})"),
                ago,
            );
            event(
                "WorkloadRollApplied",
                json!({"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
                       "namespace": NAMESPACE, "name": name, "uid": node_uid}),
                format!("Applied pod template update (hash {new})"),
                ago - 1,
            );
        }
    }
    items.extend(events);
    items
}

/// The List as kubectl prints it.
fn list(items: Vec<Value>) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})
}

fn typed<T: DeserializeOwned>(item: &Value) -> T {
    match serde_json::from_value(item.clone()) {
        Ok(t) => t,
        Err(e) => panic!("generated object does not fit the snapshot types: {e}"),
    }
}

/// The snapshot straight from the generated objects, through the crate's
/// snapshot types.
fn built_snapshot(items: &[Value]) -> Snapshot {
    let mut s = Snapshot::default();
    for item in items {
        match item["kind"].as_str() {
            Some("ValkeyCluster") => s.clusters.push(typed::<ValkeyCluster>(item)),
            Some("ValkeyNode") => s.nodes.push(typed::<ValkeyNode>(item)),
            Some("StatefulSet") => s.stateful_sets.push(typed(item)),
            Some("Pod") => s.pods.push(typed(item)),
            Some("Event") => s.events.push(typed(item)),
            _ => {}
        }
    }
    s.normalize();
    s
}

/// The median of `runs` timings of `f` (at least one), and its last result.
/// Dropping a result is not timed.
fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let start = Instant::now();
    let mut last = black_box(f());
    let mut times = vec![start.elapsed()];
    for _ in 1..runs {
        let start = Instant::now();
        let out = black_box(f());
        times.push(start.elapsed());
        last = out;
    }
    times.sort_unstable();
    (times[times.len() / 2], last)
}

/// Peak resident memory so far (VmHWM, Linux), in MiB.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

fn mib(bytes: usize) -> String {
    format!("{:.2}", bytes as f64 / (1024.0 * 1024.0))
}

fn unwrap<T, E: std::fmt::Display>(r: Result<T, E>, what: &str) -> T {
    match r {
        Ok(t) => t,
        Err(e) => panic!("{what}: {e}"),
    }
}

struct Row {
    nodes: usize,
    runs: usize,
    objects: usize,
    yaml_bytes: usize,
    json_doc_bytes: usize,
    typed: Duration,
    parse_yaml: Duration,
    parse_json: Duration,
    classify: Duration,
    table: Duration,
    wide: Duration,
    json: Duration,
    yaml: Duration,
    same: bool,
    verdict: Verdict,
    peak: Option<f64>,
}

fn measure(nodes: usize, runs: usize) -> Row {
    let items = cluster_items(nodes);
    let objects = items.len();
    let (typed_time, built) = median(runs, || built_snapshot(&items));
    let list = list(items);
    let yaml_text = unwrap(to_yaml(&list), "List to YAML");
    let json_text = unwrap(serde_json::to_string(&list), "List to JSON");
    drop(list);

    let (parse_yaml, snapshot) = median(runs, || {
        unwrap(
            parse_snapshot(yaml_text.as_bytes(), "bench.yaml"),
            "parse YAML",
        )
    });
    let (parse_json, from_json) = median(runs, || {
        unwrap(
            parse_snapshot(json_text.as_bytes(), "bench.json"),
            "parse JSON",
        )
    });
    // Two readings of the same objects must be the same snapshot.
    let same = snapshot == built && snapshot == from_json;
    drop((built, from_json));

    let (classify_time, report): (Duration, Report) =
        median(runs, || classify(&snapshot, now(), THRESHOLD));
    let verdict = report
        .clusters
        .first()
        .map(|c| c.verdict)
        .unwrap_or(Verdict::Converged);
    let opts = |wide| TableOptions { wide, color: false };
    let (table, _) = median(runs, || status_table(&report, opts(false)));
    let (wide, _) = median(runs, || status_table(&report, opts(true)));
    let (json, doc) = median(runs, || unwrap(to_json(&report), "report to JSON"));
    let (yaml, _) = median(runs, || unwrap(to_yaml(&report), "report to YAML"));
    Row {
        nodes,
        runs,
        objects,
        yaml_bytes: yaml_text.len(),
        json_doc_bytes: doc.len(),
        typed: typed_time,
        parse_yaml,
        parse_json,
        classify: classify_time,
        table,
        wide,
        json,
        yaml,
        same,
        verdict,
        peak: peak_mib(),
    }
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    // (nodes, runs): fewer runs where one run is long; all of it in well
    // under a minute in a release build.
    let sizes: &[(usize, usize)] = if bench {
        &[(6, 201), (300, 21), (3000, 5)]
    } else {
        &[(6, 1)]
    };
    let started = Instant::now();
    let rows: Vec<Row> = sizes.iter().map(|&(n, runs)| measure(n, runs)).collect();

    println!(
        "kubectl-valkey-roll: median milliseconds per operation (stall threshold {}s)",
        THRESHOLD.as_secs()
    );
    println!(
        "{:>5} {:>5} {:>7} {:>9} {:>9} {:>10} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>7} {:>9}",
        "nodes",
        "runs",
        "objects",
        "yaml MiB",
        "typed",
        "parse yaml",
        "parse json",
        "classify",
        "table",
        "wide",
        "json",
        "yaml",
        "doc MiB",
        "verdict",
        "same",
        "peak MiB"
    );
    for r in &rows {
        println!(
            "{:>5} {:>5} {:>7} {:>9} {:>9} {:>10} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>7} {:>9}",
            r.nodes,
            r.runs,
            r.objects,
            mib(r.yaml_bytes),
            ms(r.typed),
            ms(r.parse_yaml),
            ms(r.parse_json),
            ms(r.classify),
            ms(r.table),
            ms(r.wide),
            ms(r.json),
            ms(r.yaml),
            mib(r.json_doc_bytes),
            format!("{:?}", r.verdict),
            if r.same { "yes" } else { "NO" },
            r.peak
                .map(|p| format!("{p:.1}"))
                .unwrap_or_else(|| "-".into()),
        );
    }
    println!(
        "typed: the List's objects deserialized into the snapshot types; parse: source::file::parse_snapshot \
         on the List as YAML / JSON text; same: the three snapshots are equal; peak: VmHWM after the size \
         (it only grows). Total {:.1}s.",
        started.elapsed().as_secs_f64()
    );
}
