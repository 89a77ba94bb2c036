//! `replace-pod` against the real controllers (harness::control_plane():
//! kube-controller-manager's StatefulSet controller, kube-scheduler, kwok)
//! and the simulated operator, on the OrderedReady trap of issue 12:
//!
//! (b) a `:broken` image without a revert: the pod crash-loops on the
//!     StatefulSet's update revision: refused, exit 4, nothing deleted;
//! then the revert traps the broken pod on the superseded revision, and
//! (c) `--dry-run=server` deletes nothing (exit 4 without --yes, as the real run; 0 with it);
//! (d) a user without `delete` on pods gets exit 1 naming verb and
//!     resource, and nothing is deleted (nor off a terminal without
//!     `--yes`: exit 4);
//! (a) `replace-pod --yes` deletes exactly that pod (by UID), records
//!     `ManualSupersededPodDeleted` on the ValkeyNode, exits 0, and the
//!     roll finishes;
//! and, with the `test-hooks` feature, a pod recreated between the plan and
//! the delete is refused by the delete's UID precondition (exit 4).
//!
//! One cluster walks through all four (a control plane's cluster takes
//! tens of seconds to settle). Every wait is bounded.

mod harness;

use std::process::{Command, Stdio};
use std::time::Duration;

use harness::Subject;
use harness::controlplane::eventually;
use harness::operator::Operator;
use harness::plugin::{Ran, run_in};
use serde_json::{Value, json};

use harness::common::BIN;
const BOUND: Duration = Duration::from_secs(180);
const CLUSTER: &str = "rig";
const OLD: &str = "valkey/valkey:9.0.0";
/// kwok's stages crash-loop any container whose image tag is `:broken`.
const BROKEN: &str = "valkey/valkey:broken";
/// The first node of the walk of a 2 x 2 cluster with no `status.role`.
const FIRST: &str = "rig-0-1";

/// The first node's pod as JSON.
async fn pod_of(op: &Operator) -> Result<Value, String> {
    op.sim
        .pods()
        .get_opt(&format!("valkey-{FIRST}-0"))
        .await
        .map_err(|e| e.to_string())?
        .map(|p| serde_json::to_value(p).unwrap())
        .ok_or_else(|| "no pod".to_string())
}

/// A settled cluster whose image is set to [`BROKEN`]: returns the first
/// node's pod once it crash-loops.
async fn broken(op: &Operator) -> Value {
    op.create_cluster(OLD, 2, 1).await;
    op.settled(4, OLD, BOUND).await;
    op.sim.edit_cluster_spec(json!({"image": BROKEN})).await;
    eventually("the pod in CrashLoopBackOff", BOUND, || async {
        let pod = pod_of(op).await?;
        let c = &pod["status"]["containerStatuses"][0];
        if c["image"] == BROKEN && c["state"]["waiting"]["reason"] == "CrashLoopBackOff" {
            Ok(pod)
        } else {
            Err(format!("container {c}"))
        }
    })
    .await
}

/// Reverts the image: the StatefulSet's update revision is the old one
/// again and OrderedReady keeps the broken pod (the trap).
async fn revert(op: &Operator, crashing: &Value) {
    let broken_revision = crashing["metadata"]["labels"]["controller-revision-hash"].clone();
    op.sim.edit_cluster_spec(json!({"image": OLD})).await;
    eventually("the revert applied to the StatefulSet", BOUND, || async {
        let sts = op
            .sim
            .statefulsets()
            .get(&format!("valkey-{FIRST}"))
            .await
            .map(|s| serde_json::to_value(s).unwrap())
            .map_err(|e| e.to_string())?;
        let st = &sts["status"];
        if st["observedGeneration"] == sts["metadata"]["generation"]
            && st["updateRevision"] != broken_revision
        {
            Ok(())
        } else {
            Err(format!("StatefulSet status {st}"))
        }
    })
    .await;
    let trapped = pod_of(op).await.expect("the trapped pod");
    assert_eq!(trapped["metadata"]["uid"], crashing["metadata"]["uid"]);
}

/// A pod recreated between the plan and the delete (here: deleted by
/// someone else at the executor's `after-plan` pause point, and recreated
/// by the StatefulSet with a new UID): the delete's UID precondition
/// refuses it, exit 4 saying so, and the new pod stays.
#[cfg(feature = "test-hooks")]
#[tokio::test]
async fn a_pod_recreated_between_read_and_delete_is_never_deleted() {
    let cp = harness::control_plane();
    let ns = cp.fresh_namespace("replace-race");
    let op = Operator::start(cp.client().await, &ns, CLUSTER);
    let crashing = broken(&op).await;
    revert(&op, &crashing).await;
    let uid = crashing["metadata"]["uid"].clone();
    let dir = tempfile::tempdir().expect("tempdir");
    let gate = dir.path().join("gate");
    let reached = dir.path().join("gate.reached");
    let mut cmd = Command::new(BIN);
    cmd.arg("--kubeconfig")
        .arg(cp.kubeconfig())
        .arg("-n")
        .arg(&ns)
        .args(["replace-pod", FIRST, "--yes", "-o", "json"])
        .env("NO_COLOR", "1")
        .env("VALKEY_ROLL_TEST_PAUSE", "after-plan")
        .env("VALKEY_ROLL_TEST_PAUSE_FILE", &gate)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().expect("spawn");
    eventually("the after-plan pause point", BOUND, || async {
        if reached.exists() {
            Ok(())
        } else {
            Err("not yet".to_string())
        }
    })
    .await;
    op.sim
        .pods()
        .delete(&format!("valkey-{FIRST}-0"), &Default::default())
        .await
        .expect("delete the pod meanwhile");
    let recreated = eventually("the pod recreated meanwhile", BOUND, || async {
        let p = pod_of(&op).await?;
        if p["metadata"]["uid"] != uid {
            Ok(p)
        } else {
            Err("the old pod is still there".to_string())
        }
    })
    .await;
    std::fs::write(&gate, "go").expect("open the gate");
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("join")
        .expect("wait");
    let r = Ran::of(out);
    assert_eq!(r.code, 4, "{}", r.both());
    let doc = r.json();
    assert_eq!(doc["decision"], "refused", "{}", r.both());
    let reasons = doc["reasons"].to_string();
    assert!(
        reasons.contains("changed after it was read") && reasons.contains("nothing was deleted"),
        "{}",
        r.both()
    );
    let now = pod_of(&op).await.expect("the pod");
    assert_eq!(
        now["metadata"]["uid"], recreated["metadata"]["uid"],
        "the recreated pod was deleted"
    );
    op.stop().await;
}

#[tokio::test]
async fn replace_pod_on_the_ordered_ready_trap() {
    let cp = harness::control_plane();
    let ns = cp.fresh_namespace("replace-pod");
    let client = cp.client().await;
    let op = Operator::start(client.clone(), &ns, CLUSTER);
    let admin = cp.kubeconfig();
    let pod_name = format!("valkey-{FIRST}-0");
    let pod_json = || pod_of(&op);

    // (b) The broken image, no revert: the pod crash-loops on the update
    // revision. Replacing it would only restart the same failure.
    let crashing = broken(&op).await;
    let r = run_in(admin, &ns, &["replace-pod", FIRST, "--yes"]).await;
    assert_eq!(r.code, 4, "{}", r.both());
    assert!(
        r.stderr
            .contains("already runs the StatefulSet's update revision")
            && r.stderr.contains("fix the template"),
        "{}",
        r.both()
    );
    let after = pod_json().await.expect("the pod");
    assert_eq!(
        after["metadata"]["uid"], crashing["metadata"]["uid"],
        "refused, yet the pod was deleted"
    );

    // The revert: the trap.
    revert(&op, &crashing).await;
    let trapped = pod_json().await.expect("the trapped pod");
    let uid = trapped["metadata"]["uid"].clone();

    // (c) A server dry run predicts the real run: without --yes off a
    // terminal it would ask, so it is refused (exit 4); with --yes it is
    // accepted, and deletes nothing and records no Event.
    let r = run_in(
        admin,
        &ns,
        &["replace-pod", FIRST, "--dry-run=server", "-o", "json"],
    )
    .await;
    assert_eq!(r.code, 4, "{}", r.both());
    assert!(
        r.both().contains("a real run would ask first"),
        "{}",
        r.both()
    );
    let r = run_in(
        admin,
        &ns,
        &[
            "replace-pod",
            FIRST,
            "--dry-run=server",
            "--yes",
            "-o",
            "json",
        ],
    )
    .await;
    let doc = r.ok_json();
    assert_eq!(doc["action"], "replace-pod", "{}", r.both());
    assert_eq!(doc["decision"], "planned", "{}", r.both());
    assert_eq!(doc["podDelete"]["uid"], uid, "{}", r.both());
    assert_eq!(pod_json().await.expect("pod")["metadata"]["uid"], uid);

    // Off a terminal without --yes: refused, exit 4, nothing deleted.
    let r = run_in(admin, &ns, &["replace-pod", FIRST]).await;
    assert_eq!(r.code, 4, "{}", r.both());
    assert!(
        r.stderr.contains("needs confirmation") && r.stderr.contains("--yes"),
        "{}",
        r.both()
    );
    assert_eq!(pod_json().await.expect("pod")["metadata"]["uid"], uid);

    // (d) Steering rights without `delete` on pods: exit 1, verb and
    // resource named, nothing deleted.
    harness::bind(
        &client,
        &ns,
        "valkey-roll-steer",
        Subject::User("erin"),
        json!([
            {"apiGroups": ["valkey.io"], "resources": ["valkeyclusters", "valkeynodes"], "verbs": ["get", "list", "watch", "patch"]},
            {"apiGroups": ["apps"], "resources": ["statefulsets", "deployments"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["pods", "events"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "create", "update", "delete"]},
        ]),
    )
    .await;
    let erin = cp.server().mint_user("erin", &[]);
    let r = run_in(&erin, &ns, &["replace-pod", FIRST, "--yes"]).await;
    assert_eq!(r.code, 1, "{}", r.both());
    assert!(
        r.stderr.contains("forbidden: you may not delete pods"),
        "{}",
        r.both()
    );
    assert_eq!(pod_json().await.expect("pod")["metadata"]["uid"], uid);

    // (a) The real thing: exactly that pod goes, the Event is recorded,
    // the StatefulSet recreates it and the roll finishes.
    let uids = || async {
        let list = op.sim.pods().list(&Default::default()).await.expect("pods");
        list.items
            .iter()
            .map(|p| (p.metadata.name.clone(), p.metadata.uid.clone()))
            .filter(|(n, _)| n.as_deref() != Some(pod_name.as_str()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let others = uids().await;
    assert_eq!(others.len(), 3, "{others:?}");
    let r = run_in(
        admin,
        &ns,
        &[
            "replace-pod",
            FIRST,
            "--yes",
            "--reason",
            "OrderedReady trap",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.both());
    assert!(r.stdout.contains("written"), "{}", r.both());
    assert!(
        r.stdout.contains(&format!("recreated pod {pod_name}"))
            || r.stdout.contains("no new pod came within"),
        "{}",
        r.both()
    );
    let events = op
        .sim
        .events()
        .list(&Default::default())
        .await
        .expect("events");
    let ours: Vec<Value> = events
        .items
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .filter(|e| e["reason"] == "ManualSupersededPodDeleted")
        .collect();
    assert_eq!(ours.len(), 1, "{ours:?}");
    // events.k8s.io/v1: `regarding` and `note` are core/v1's
    // involvedObject and message.
    assert_eq!(ours[0]["regarding"]["kind"], "ValkeyNode", "{ours:?}");
    assert_eq!(ours[0]["regarding"]["name"], FIRST, "{ours:?}");
    // The plan's whole Event: a Warning, related to the pod it deleted.
    assert_eq!(ours[0]["type"], "Warning", "{ours:?}");
    assert_eq!(ours[0]["related"]["kind"], "Pod", "{ours:?}");
    assert_eq!(ours[0]["related"]["name"], pod_name.as_str(), "{ours:?}");
    assert_eq!(ours[0]["related"]["uid"], uid, "{ours:?}");
    let message = ours[0]["note"].as_str().unwrap_or_default();
    assert!(
        // The reason given, then what the servers said (issue 41's record;
        // this rig has no Secret, so: not read, and why).
        message.contains(&pod_name)
            && message.contains(": OrderedReady trap; the servers said: ")
            && message.ends_with("servers not read (no read-only user)"),
        "{message}"
    );
    let recreated = eventually("the pod recreated", BOUND, || async {
        let p = pod_json().await?;
        if p["metadata"]["uid"] != uid {
            Ok(p)
        } else {
            Err("the old pod is still there".to_string())
        }
    })
    .await;
    assert_ne!(recreated["metadata"]["uid"], uid);
    op.settled(4, OLD, BOUND).await;
    assert_eq!(uids().await, others, "another pod was replaced");
    op.stop().await;
}
