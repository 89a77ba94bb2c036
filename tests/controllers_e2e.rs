//! The plugin against the real controllers (harness::control_plane():
//! kube-controller-manager, kube-scheduler, kwok) and a simulated operator
//! that writes only what the operator writes (harness::operator): the
//! scenarios of issue 9, as ../shared/recordings recorded them on the real
//! operator.
//!
//! (a) a 2-shard x 2-node cluster created from nothing: no `status --watch`
//!     document is a Conflict, and `wait` does not exit 3;
//! (b) a Spec-driven image change rolls node by node, in walk order
//!     rig-0-1, rig-0-0, rig-1-1, rig-1-0 (no `status.role`: node index
//!     descending in each shard), and every document has the right holders,
//!     front and queue;
//! (c) a `:broken` image jams (Jammed within seconds of the first
//!     CrashLoopBackOff); a revert leaves the pod on the broken revision
//!     (the OrderedReady trap, by the real StatefulSet controller); deleting
//!     that pod lets the roll finish, with no Stalled in between.
//!
//! Every wait is bounded; no timing is asserted beyond "within seconds".

mod harness;

use std::time::{Duration, Instant};

use harness::controlplane::eventually;
use harness::operator::{Operator, workload_revision};
use harness::plugin::Plugin;
use kube::api::DeleteParams;
use serde_json::{Value, json};

/// Generous bound for any one thing the control plane and the operator do
/// (a node's roll takes about 8 s; a cluster's creation about 10 s).
const BOUND: Duration = Duration::from_secs(180);
const CLUSTER: &str = "rig";
const OLD: &str = "valkey/valkey:9.0.0";
const NEW: &str = "valkey/valkey:9.0.1";
/// kwok's stages crash-loop any container whose image tag is `:broken`.
const BROKEN: &str = "valkey/valkey:broken";
/// The walk order of a 2 x 2 cluster with no `status.role`.
const WALK: [&str; 4] = ["rig-0-1", "rig-0-0", "rig-1-1", "rig-1-0"];
/// (c)'s stall threshold, shorter than the trap is held ([`TRAP_SECONDS`]):
/// a plugin that took the trapped pod's deletion for no progress would say
/// Stalled after it (issue 9, item 4).
const STALL_THRESHOLD: &str = "10s";
const TRAP_SECONDS: u64 = 12;

/// The documents `status --watch -o json` printed so far, one per line.
fn documents(p: &Plugin) -> Vec<Value> {
    p.stdout
        .iter()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON document ({e}): {l}"))
        })
        .collect()
}

/// The cluster's entry of a document (Null when it is not in view yet).
fn cluster(doc: &Value) -> &Value {
    doc["clusters"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["name"] == CLUSTER))
        .unwrap_or(&Value::Null)
}

fn node<'a>(c: &'a Value, name: &str) -> &'a Value {
    c["nodes"]
        .as_array()
        .and_then(|ns| ns.iter().find(|n| n["name"] == name))
        .unwrap_or(&Value::Null)
}

fn holders(c: &Value) -> Vec<String> {
    c["holders"]
        .as_array()
        .map(|hs| {
            hs.iter()
                .filter_map(|h| h.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// One line per document: verdict, holders, front, and each node's state
/// and queue position, for failure messages.
fn digest(docs: &[Value]) -> String {
    docs.iter()
        .map(|d| {
            let c = cluster(d);
            if c.is_null() {
                return "(no cluster yet)".to_string();
            }
            let nodes: Vec<String> = WALK
                .iter()
                .map(|n| {
                    let x = node(c, n);
                    format!(
                        "{n}={}/{}",
                        x["state"].as_str().unwrap_or("-"),
                        x["queuePosition"]
                    )
                })
                .collect();
            format!(
                "{} holders={:?} front={} done={} {} | {}",
                c["verdict"].as_str().unwrap_or("-"),
                holders(c),
                c["front"],
                c["done"],
                nodes.join(" "),
                c["reason"].as_str().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Starts the operator for `rig` in a fresh namespace of the control plane.
async fn operator(hint: &str) -> (Operator, String) {
    let cp = harness::control_plane();
    let ns = cp.fresh_namespace(hint);
    (Operator::start(cp.client().await, &ns, CLUSTER), ns)
}

/// `kubectl-valkey-roll -n NS ARGS...` in the background.
fn plugin(ns: &str, args: &[&str]) -> Plugin {
    Plugin::spawn(harness::control_plane().kubeconfig(), ns, args, BOUND)
}

/// Waits until the ValkeyCluster is Ready for its generation and every
/// node is ready for its generation on `image` (the operator's word, read
/// from the API, not from the plugin).
async fn until_settled(op: &Operator, image: &str) {
    let sim = op.sim.clone();
    eventually(
        "the cluster Ready with every node on its image",
        BOUND,
        || {
            let sim = sim.clone();
            async move {
                op.check();
                let vc = serde_json::to_value(sim.get_cluster().await).unwrap();
                let ready = vc["status"]["conditions"]
                    .as_array()
                    .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready").cloned())
                    .unwrap_or(Value::Null);
                let nodes = sim
                    .nodes()
                    .list(&Default::default())
                    .await
                    .map_err(|e| e.to_string())?;
                let settled = |n: &kube::api::DynamicObject| {
                    let v = serde_json::to_value(n).unwrap();
                    v["status"]["ready"] == true
                        && v["status"]["observedGeneration"] == v["metadata"]["generation"]
                        && v["spec"]["image"] == image
                };
                if ready["status"] == "True"
                    && ready["observedGeneration"] == vc["metadata"]["generation"]
                    && nodes.items.len() == WALK.len()
                    && nodes.items.iter().all(settled)
                {
                    Ok(())
                } else {
                    Err(format!(
                        "cluster Ready {ready}; nodes {:?}",
                        nodes
                            .items
                            .iter()
                            .map(|n| {
                                let v = serde_json::to_value(n).unwrap();
                                format!(
                                    "{} ready={} gen={}/{} image={}",
                                    v["metadata"]["name"],
                                    v["status"]["ready"],
                                    v["status"]["observedGeneration"],
                                    v["metadata"]["generation"],
                                    v["spec"]["image"]
                                )
                            })
                            .collect::<Vec<_>>()
                    ))
                }
            }
        },
    )
    .await;
}

/// A cluster created and settled on [`OLD`], with its operator running.
async fn settled_cluster(hint: &str) -> (Operator, String) {
    let (op, ns) = operator(hint).await;
    op.create_cluster(OLD, 2, 1).await;
    until_settled(&op, OLD).await;
    (op, ns)
}

/// Waits until the watch printed, at index `from` or later, a document
/// whose cluster entry satisfies `pred`; returns its index.
async fn until_document(
    p: &mut Plugin,
    what: &str,
    from: usize,
    pred: impl Fn(&Value) -> bool,
) -> usize {
    let first = |p: &Plugin| {
        documents(p)
            .iter()
            .skip(from)
            .position(|d| pred(cluster(d)))
            .map(|i| i + from)
    };
    p.until(what, |p| first(p).is_some()).await;
    first(p).expect("just seen")
}

fn converged(c: &Value) -> bool {
    c["verdict"] == "Converged" && WALK.iter().all(|n| node(c, n)["state"] == "Converged")
}

/// (a) Creation is not a roll: while the cluster is being created, no
/// document of `status --watch` is a Conflict (each new node's StatefulSet
/// has an empty status for a moment, and its pod appears seconds later),
/// and `wait`, started right after the create as a person would chain it
/// (`kubectl apply -f cluster.yaml && kubectl valkey-roll wait`), exits 0,
/// never 3.
#[tokio::test]
async fn a_cluster_created_from_nothing_is_never_a_conflict_and_wait_does_not_fail() {
    let (op, ns) = operator("ctl-create").await;
    let mut watch = plugin(&ns, &["status", "--watch", "-o", "json"]);
    watch
        .until("the first (empty) document", |p| !p.stdout.is_empty())
        .await;

    op.create_cluster(OLD, 2, 1).await;
    let mut wait = plugin(&ns, &["wait", CLUSTER, "--timeout", "150s"]);
    let status = wait.exit(BOUND).await;
    watch.drain();
    assert_eq!(
        status.code(),
        Some(0),
        "wait on a cluster being created\n{}\nwatch documents so far:\n{}",
        wait.transcript(),
        digest(&documents(&watch))
    );

    until_document(&mut watch, "a Converged document", 0, converged).await;
    let docs = documents(&watch);
    let conflicts: Vec<&Value> = docs
        .iter()
        .filter(|d| cluster(d)["verdict"] == "Conflict")
        .collect();
    assert!(
        conflicts.is_empty(),
        "{} of {} documents say Conflict during creation:\n{}",
        conflicts.len(),
        docs.len(),
        digest(&docs)
    );
    // The watch saw the creation itself, not only its end.
    assert!(
        docs.iter()
            .any(|d| !cluster(d).is_null() && !converged(cluster(d))),
        "no document before Converged:\n{}",
        digest(&docs)
    );
    drop(watch);
    op.stop().await;
}

/// (b) `spec.image` 9.0.0 -> 9.0.1 on the ValkeyCluster: the operator
/// advances one node at a time in walk order (spec.image and
/// spec.workloadRevision in one Update), the StatefulSet controller
/// replaces its pod, and only then the next. In every document: the nodes
/// advanced so far are a prefix of the walk; only the last of them may
/// hold (and then it is the only holder); the others of the prefix are
/// Converged; the nodes not advanced yet are behind: Waiting with queue
/// positions 1, 2, ... in walk order; the front is the first Waiting or
/// Blocking node in walk order; the verdict is Rolling with a holder,
/// Waiting without. Each node is seen holding, in walk order, and the roll
/// ends Converged.
#[tokio::test]
async fn a_spec_driven_image_change_rolls_node_by_node_with_the_right_front_and_queue() {
    let (op, ns) = settled_cluster("ctl-spec").await;
    let mut watch = plugin(&ns, &["status", CLUSTER, "--watch", "-o", "json"]);
    until_document(&mut watch, "the settled cluster", 0, converged).await;
    let start = documents(&watch).len();

    op.sim.edit_cluster_spec(json!({"image": NEW})).await;
    until_settled(&op, NEW).await;
    let end = until_document(
        &mut watch,
        "a Converged document after the roll",
        start,
        |c| {
            converged(c)
                && WALK
                    .iter()
                    .all(|n| node(c, n)["permit"] == workload_revision(n, NEW).as_str())
        },
    )
    .await;
    let docs = documents(&watch)[start..=end].to_vec();
    let all = digest(&docs);

    let mut held_in_turn: Vec<String> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let c = cluster(d);
        let at = format!("document {i} of the roll:\n{all}");
        let advanced: Vec<&str> = WALK
            .iter()
            .copied()
            .filter(|n| node(c, n)["permit"] == workload_revision(n, NEW).as_str())
            .collect();
        assert_eq!(
            advanced,
            WALK[..advanced.len()].to_vec(),
            "advanced nodes are not a prefix of the walk; {at}"
        );
        let last = advanced.last().copied();
        let hs = holders(c);
        assert!(
            hs.is_empty() || (hs.len() == 1 && Some(hs[0].as_str()) == last),
            "holders {hs:?} (only the last advanced node, {last:?}, may hold); {at}"
        );
        for n in &advanced[..advanced.len().saturating_sub(1)] {
            assert_eq!(node(c, n)["state"], "Converged", "{n}; {at}");
        }
        let behind = &WALK[advanced.len()..];
        for (k, n) in behind.iter().enumerate() {
            assert_eq!(node(c, n)["state"], "Waiting", "{n} is behind; {at}");
            assert_eq!(
                node(c, n)["queuePosition"],
                k + 1,
                "{n}'s queue position; {at}"
            );
        }
        let front = WALK
            .iter()
            .find(|n| matches!(node(c, n)["state"].as_str(), Some("Waiting" | "Blocking")));
        assert_eq!(c["front"].as_str(), front.copied(), "front; {at}");
        let verdict = if hs.is_empty() {
            if front.is_some() {
                "Waiting"
            } else {
                "Converged"
            }
        } else {
            "Rolling"
        };
        // The cluster's own Ready condition keeps it unfinished until the
        // operator marks it Ready, so an empty front may still be Waiting.
        assert!(
            c["verdict"] == verdict || (verdict == "Converged" && c["verdict"] == "Waiting"),
            "verdict {} (expected {verdict}); {at}",
            c["verdict"]
        );
        if let Some(h) = hs.first()
            && held_in_turn.last() != Some(h)
        {
            held_in_turn.push(h.clone());
        }
    }
    assert_eq!(held_in_turn, WALK.to_vec(), "who held, in turn:\n{all}");
    assert_eq!(cluster(&docs[docs.len() - 1])["done"], 4, "{all}");
    drop(watch);
    op.stop().await;
}

/// (c) The image set to a `:broken` tag: the first node's new pod
/// crash-loops, and the roll is Jammed within seconds of its first
/// CrashLoopBackOff. Reverting the image: the operator advances the node
/// back and the StatefulSet takes the old revision as its update revision,
/// but OrderedReady never replaces a pod that is not Ready, so the broken
/// pod stays on the broken revision with currentRevision ==
/// updateRevision (the trap). Deleting that pod: the StatefulSet
/// recreates it on the update revision and the roll finishes, with no
/// Stalled verdict at any moment.
#[tokio::test]
async fn a_broken_image_jams_a_revert_is_trapped_and_deleting_the_pod_finishes_the_roll() {
    let (op, ns) = settled_cluster("ctl-broken").await;
    let mut watch = plugin(
        &ns,
        &[
            "status",
            CLUSTER,
            "--watch",
            "-o",
            "json",
            "--stall-threshold",
            STALL_THRESHOLD,
        ],
    );
    until_document(&mut watch, "the settled cluster", 0, converged).await;
    let first = WALK[0];
    let pod_name = format!("valkey-{first}-0");
    let pods = op.sim.pods();
    let statefulsets = op.sim.statefulsets();
    let pod_json = || async {
        pods.get_opt(&pod_name)
            .await
            .map_err(|e| e.to_string())
            .map(|p| {
                p.map(|p| serde_json::to_value(p).unwrap())
                    .unwrap_or(Value::Null)
            })
    };
    let sts_json = || async {
        statefulsets
            .get(&format!("valkey-{first}"))
            .await
            .map_err(|e| e.to_string())
            .map(|s| serde_json::to_value(s).unwrap())
    };

    op.sim.edit_cluster_spec(json!({"image": BROKEN})).await;
    eventually(
        "the first node's pod in CrashLoopBackOff",
        BOUND,
        || async {
            let pod = pod_json().await?;
            let c = &pod["status"]["containerStatuses"][0];
            if c["image"] == BROKEN && c["state"]["waiting"]["reason"] == "CrashLoopBackOff" {
                Ok(())
            } else {
                Err(format!("container {c}"))
            }
        },
    )
    .await;
    let crashed_at = Instant::now();
    let jammed = until_document(&mut watch, "a Jammed document", 0, |c| {
        c["verdict"] == "Jammed"
    })
    .await;
    let within = crashed_at.elapsed();
    let docs = documents(&watch);
    assert!(
        within < Duration::from_secs(20),
        "Jammed {}s after the first CrashLoopBackOff, not within seconds:\n{}",
        within.as_secs(),
        digest(&docs)
    );
    let c = cluster(&docs[jammed]);
    let held_or_front = holders(c)
        .first()
        .cloned()
        .or(c["front"].as_str().map(str::to_string));
    assert_eq!(
        held_or_front.as_deref(),
        Some(first),
        "the jam is {first}'s:\n{}",
        digest(&docs)
    );
    for (k, n) in WALK[1..].iter().enumerate() {
        assert_eq!(
            node(c, n)["state"],
            "Waiting",
            "{n} waits behind the jam:\n{}",
            digest(&docs)
        );
        assert_eq!(
            node(c, n)["queuePosition"],
            k + 1,
            "{n}:\n{}",
            digest(&docs)
        );
    }

    // Revert: the StatefulSet's update revision is the old one again, and
    // the broken pod stays where it is.
    let broken_pod = pod_json().await.expect("the broken pod");
    let broken_revision = broken_pod["metadata"]["labels"]["controller-revision-hash"].clone();
    op.sim.edit_cluster_spec(json!({"image": OLD})).await;
    let trapped = eventually("the revert applied to the StatefulSet", BOUND, || async {
        let sts = sts_json().await?;
        let st = &sts["status"];
        if sts["spec"]["template"]["spec"]["containers"][0]["image"] == OLD
            && st["observedGeneration"] == sts["metadata"]["generation"]
            && st["currentRevision"] == st["updateRevision"]
            && st["updateRevision"] != broken_revision
        {
            Ok(sts)
        } else {
            Err(format!("StatefulSet status {st}"))
        }
    })
    .await;
    watch.drain();
    let trap_start = documents(&watch).len();
    for _ in 0..TRAP_SECONDS {
        let pod = pod_json().await.expect("get the pod");
        assert_eq!(
            pod["metadata"]["uid"], broken_pod["metadata"]["uid"],
            "the StatefulSet replaced the broken pod by itself: no trap"
        );
        assert_eq!(
            pod["metadata"]["labels"]["controller-revision-hash"],
            broken_revision
        );
        assert_ne!(
            pod["metadata"]["labels"]["controller-revision-hash"],
            trapped["status"]["updateRevision"]
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    // While trapped, the node is still rolling (its pod runs a revision
    // other than the update revision): the one holder, Jammed while the
    // container waits in CrashLoopBackOff (Rolling in the second it runs).
    watch.drain();
    let trap_docs = documents(&watch);
    // From the document in view when the trap was seen.
    let window = &trap_docs[trap_start.saturating_sub(1)..];
    let all = digest(&trap_docs);
    for (i, d) in window.iter().enumerate() {
        let c = cluster(d);
        assert_eq!(holders(c), vec![first], "trap document {i}:\n{all}");
        assert!(
            c["verdict"] == "Jammed" || c["verdict"] == "Rolling",
            "trap document {i} is {}:\n{all}",
            c["verdict"]
        );
    }
    assert!(
        window.iter().any(|d| cluster(d)["verdict"] == "Jammed"),
        "the trapped roll never read Jammed:\n{all}"
    );

    // Delete the trapped pod: the roll finishes, never Stalled.
    let deleted_at = trap_docs.len();
    pods.delete(&pod_name, &DeleteParams::default())
        .await
        .expect("delete the trapped pod");
    until_settled(&op, OLD).await;
    let end = until_document(
        &mut watch,
        "a Converged document after the delete",
        deleted_at,
        converged,
    )
    .await;
    let docs = documents(&watch);
    let all = digest(&docs);
    // The roll went on after the delete: someone held or blocked before
    // the end (the recreated pod coming up).
    assert!(
        docs[deleted_at..end].iter().any(|d| !converged(cluster(d))),
        "{all}"
    );
    let stalled: Vec<usize> = (0..docs.len())
        .filter(|&i| cluster(&docs[i])["verdict"] == "Stalled")
        .collect();
    assert!(
        stalled.is_empty(),
        "Stalled in documents {stalled:?}:\n{all}"
    );
    assert!(
        docs.iter().all(|d| cluster(d)["verdict"] != "Conflict"),
        "a Conflict:\n{all}"
    );
    let recreated = pod_json().await.expect("the recreated pod");
    assert_ne!(recreated["metadata"]["uid"], broken_pod["metadata"]["uid"]);
    drop(watch);
    op.stop().await;
}
