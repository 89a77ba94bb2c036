//! End-to-end checks of the harness's control plane (tests/harness/
//! controlplane.rs): the real StatefulSet controller, scheduler and kwok do
//! to a StatefulSet shaped like the operator's (one replica, OrderedReady,
//! RollingUpdate) what a cluster does, including the OrderedReady trap
//! (kubernetes#67250) that the plugin must read right.

mod harness;

use std::time::Duration;

use harness::controlplane::{BROKEN_TAG, NODE, NODE_IP, POD_IP_PREFIX, eventually};
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

/// Every wait here: generous, since the machine is shared (a pod takes
/// about 5 s from creation to Ready, 7 s when it replaces one).
const BOUND: Duration = Duration::from_secs(90);

/// A one-replica StatefulSet `valkey-x` with one container `server`, in a
/// fresh namespace of the control plane.
struct Sts {
    api: Api<StatefulSet>,
    pods: Api<Pod>,
    name: String,
}

impl Sts {
    async fn create(hint: &str, image: &str) -> Sts {
        let cp = harness::control_plane();
        let ns = cp.fresh_namespace(hint);
        let client = cp.client().await;
        let sts = Sts {
            api: Api::namespaced(client.clone(), &ns),
            pods: Api::namespaced(client, &ns),
            name: "valkey-x".into(),
        };
        let labels = json!({"app.kubernetes.io/instance": "x"});
        let obj: StatefulSet = serde_json::from_value(json!({
            "metadata": {"name": sts.name, "labels": labels},
            "spec": {
                "replicas": 1,
                "serviceName": sts.name,
                "podManagementPolicy": "OrderedReady",
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {"containers": [{"name": "server", "image": image}]},
                },
            },
        }))
        .expect("a StatefulSet");
        sts.api
            .create(&PostParams::default(), &obj)
            .await
            .expect("create the StatefulSet");
        sts
    }

    fn pod_name(&self) -> String {
        format!("{}-0", self.name)
    }

    async fn get(&self) -> Value {
        serde_json::to_value(self.api.get(&self.name).await.expect("get StatefulSet")).unwrap()
    }

    /// The pod, or `None` while it does not exist.
    async fn pod(&self) -> Option<Value> {
        let pod = self
            .pods
            .get_opt(&self.pod_name())
            .await
            .expect("get Pod")?;
        Some(serde_json::to_value(pod).unwrap())
    }

    /// A new image in the pod template (a merge patch, as `kubectl set image` does).
    async fn set_image(&self, image: &str) {
        let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "server", "image": image}]}}}});
        self.api
            .patch(
                &self.name,
                &PatchParams::default(),
                &Patch::Strategic(patch),
            )
            .await
            .expect("patch the StatefulSet's image");
    }

    /// Waits until the StatefulSet has observed its generation and `pred`
    /// holds of (StatefulSet, pod); returns both.
    async fn until(&self, what: &str, pred: impl Fn(&Value, &Value) -> bool) -> (Value, Value) {
        eventually(what, BOUND, || async {
            let sts = self.get().await;
            let pod = self.pod().await.unwrap_or(Value::Null);
            let observed = sts["status"]["observedGeneration"] == sts["metadata"]["generation"];
            if observed && pred(&sts, &pod) {
                Ok((sts, pod))
            } else {
                Err(format!(
                    "StatefulSet status {}\npod {}",
                    sts["status"],
                    summary(&pod)
                ))
            }
        })
        .await
    }

    /// Waits until the pod is Ready on the update revision and the
    /// StatefulSet reports the roll done (revisions equal, one ready replica).
    async fn until_rolled_out(&self, what: &str) -> (Value, Value) {
        self.until(what, |sts, pod| {
            let st = &sts["status"];
            is_ready(pod)
                && *revision_of(pod) == st["updateRevision"]
                && st["currentRevision"] == st["updateRevision"]
                && st["readyReplicas"] == 1
        })
        .await
    }
}

fn is_ready(pod: &Value) -> bool {
    condition(pod, "Ready") == "True"
}

fn condition<'a>(pod: &'a Value, type_: &str) -> &'a str {
    pod["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
        .and_then(|c| c["status"].as_str())
        .unwrap_or("")
}

fn revision_of(pod: &Value) -> &Value {
    &pod["metadata"]["labels"]["controller-revision-hash"]
}

fn server_status(pod: &Value) -> &Value {
    &pod["status"]["containerStatuses"][0]
}

/// The parts of a pod a failure message needs.
fn summary(pod: &Value) -> String {
    if pod.is_null() {
        return "none".into();
    }
    format!(
        "{} uid {} revision {} deleting {} phase {} Ready {} container {}",
        pod["metadata"]["name"],
        pod["metadata"]["uid"],
        revision_of(pod),
        pod["metadata"]["deletionTimestamp"],
        pod["status"]["phase"],
        condition(pod, "Ready"),
        server_status(pod)
    )
}

/// kwok's pod, as the StatefulSet controller made it and the scheduler
/// bound it: Running and Ready, on the fake node, with a loopback pod IP;
/// the StatefulSet's status is the real controller's.
#[tokio::test]
async fn a_statefulset_pod_becomes_running_and_ready_with_a_loopback_ip() {
    let sts = Sts::create("cp-ready", "valkey/valkey:9.0.0").await;
    let (set, pod) = sts.until_rolled_out("the first pod Ready").await;

    assert_eq!(pod["spec"]["nodeName"], NODE, "{}", summary(&pod));
    assert_eq!(pod["status"]["phase"], "Running", "{}", summary(&pod));
    assert_eq!(pod["status"]["hostIP"], NODE_IP);
    let ip = pod["status"]["podIP"].as_str().unwrap_or_default();
    assert!(
        ip.starts_with(POD_IP_PREFIX),
        "pod IP {ip} not in 127.0.1.0/24"
    );
    assert_eq!(pod["status"]["podIPs"][0]["ip"], ip);
    assert_eq!(condition(&pod, "PodScheduled"), "True");
    assert_eq!(condition(&pod, "ContainersReady"), "True");
    let c = server_status(&pod);
    assert_eq!(c["ready"], true);
    assert_eq!(c["restartCount"], 0);
    assert!(c["state"]["running"]["startedAt"].is_string(), "{c}");
    assert_eq!(c["image"], "valkey/valkey:9.0.0");
    assert_eq!(pod["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
    assert_eq!(set["status"]["replicas"], 1);
    assert_eq!(set["status"]["availableReplicas"], 1);
    assert!(
        set["status"]["updateRevision"]
            .as_str()
            .is_some_and(|r| r.starts_with("valkey-x-")),
        "{}",
        set["status"]
    );
}

/// A template change rolls the pod as the StatefulSet controller does:
/// the old pod deleted, a new one (new UID) created on the new revision,
/// and the status ends with currentRevision == updateRevision.
#[tokio::test]
async fn a_template_change_replaces_the_pod_on_the_update_revision() {
    let sts = Sts::create("cp-roll", "valkey/valkey:9.0.0").await;
    let (before, old) = sts.until_rolled_out("the first pod Ready").await;
    sts.set_image("valkey/valkey:9.0.1").await;
    let (after, new) = sts
        .until(
            "the pod replaced and Ready on the new revision",
            |set, pod| {
                let st = &set["status"];
                is_ready(pod)
                    && *revision_of(pod) == st["updateRevision"]
                    && st["currentRevision"] == st["updateRevision"]
                    && st["updateRevision"] != before["status"]["updateRevision"]
            },
        )
        .await;

    assert_ne!(
        new["metadata"]["uid"], old["metadata"]["uid"],
        "the pod was not replaced"
    );
    assert_ne!(revision_of(&new), revision_of(&old));
    assert_eq!(server_status(&new)["image"], "valkey/valkey:9.0.1");
    assert_eq!(after["status"]["readyReplicas"], 1);
    assert!(after["metadata"]["generation"].as_i64() > before["metadata"]["generation"].as_i64());
}

/// A `:broken` image crash-loops; reverting the template while its pod is
/// broken leaves that pod on the broken revision while the StatefulSet
/// reports currentRevision == updateRevision (OrderedReady waits for the
/// pod to be Ready before it replaces it: kubernetes#67250); deleting the
/// pod lets the StatefulSet recreate it on the update revision.
#[tokio::test]
async fn a_broken_image_crash_loops_and_a_revert_stays_trapped_until_the_pod_is_deleted() {
    let sts = Sts::create("cp-broken", "valkey/valkey:9.0.0").await;
    let (good, _) = sts.until_rolled_out("the first pod Ready").await;
    let good_revision = good["status"]["updateRevision"].clone();
    let broken_image = format!("valkey/valkey:9.0.1{BROKEN_TAG}");
    sts.set_image(&broken_image).await;

    let (set, pod) = sts
        .until("the broken pod in CrashLoopBackOff", |set, pod| {
            let c = server_status(pod);
            *revision_of(pod) == set["status"]["updateRevision"]
                && c["state"]["waiting"]["reason"] == "CrashLoopBackOff"
                && c["restartCount"].as_i64() >= Some(1)
        })
        .await;
    let broken_revision = set["status"]["updateRevision"].clone();
    assert_ne!(broken_revision, good_revision);
    let c = server_status(&pod);
    assert_eq!(c["image"], broken_image.as_str());
    assert_eq!(c["ready"], false);
    assert_eq!(c["lastState"]["terminated"]["exitCode"], 1, "{c}");
    assert_eq!(c["lastState"]["terminated"]["reason"], "Error", "{c}");
    assert_eq!(condition(&pod, "Ready"), "False");
    assert_eq!(pod["status"]["phase"], "Running");
    // The roll is not done: the StatefulSet still counts the good revision
    // as current.
    assert_eq!(
        set["status"]["currentRevision"], good_revision,
        "{}",
        set["status"]
    );
    // It keeps crashing: the restart count climbs.
    let first = c["restartCount"].as_i64().unwrap_or_default();
    sts.until("the restart count climbing", |_, pod| {
        server_status(pod)["restartCount"].as_i64() > Some(first)
    })
    .await;

    // Revert. The controller takes the good revision as the update revision
    // again and, with the pod never Ready, leaves it where it is.
    sts.set_image("valkey/valkey:9.0.0").await;
    let (trapped, pod) = sts
        .until("the revert observed", |set, _| {
            set["status"]["updateRevision"] == good_revision
        })
        .await;
    let trapped_uid = pod["metadata"]["uid"].clone();
    // Hold the observation for longer than a roll takes (7 s): the
    // controller must not replace the broken pod by itself.
    for _ in 0..12 {
        let set = sts.get().await;
        let pod = sts.pod().await.expect("the broken pod is still there");
        let st = &set["status"];
        assert_eq!(st["currentRevision"], st["updateRevision"], "{st}");
        assert_eq!(st["updateRevision"], good_revision, "{st}");
        assert_eq!(revision_of(&pod), &broken_revision, "{}", summary(&pod));
        assert_eq!(pod["metadata"]["uid"], trapped_uid, "{}", summary(&pod));
        assert!(
            pod["metadata"]["deletionTimestamp"].is_null(),
            "{}",
            summary(&pod)
        );
        assert!(!is_ready(&pod), "{}", summary(&pod));
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert_eq!(trapped["status"]["readyReplicas"].as_i64().unwrap_or(0), 0);

    // Deleting the pod springs the trap: the StatefulSet recreates it on the
    // update revision, and it becomes Ready.
    sts.pods
        .delete(&sts.pod_name(), &DeleteParams::default())
        .await
        .expect("delete the trapped pod");
    let (done, pod) = sts.until_rolled_out("the recreated pod Ready").await;
    assert_ne!(pod["metadata"]["uid"], trapped_uid);
    assert_eq!(revision_of(&pod), &good_revision);
    assert_eq!(done["status"]["updateRevision"], good_revision);
    assert_eq!(server_status(&pod)["image"], "valkey/valkey:9.0.0");
    assert_eq!(server_status(&pod)["restartCount"], 0);
}

/// The control plane logged its ready line, and its children run from the
/// testbin cache (or the paths the environment gave).
#[test]
fn the_control_plane_logs_its_ready_line() {
    let cp = harness::control_plane();
    let log = std::fs::read_to_string(harness::procs::target_dir().join("testbin-servers.log"))
        .expect("servers log");
    let line = format!("control plane ready at {}", cp.url());
    assert!(
        log.lines().any(|l| l.starts_with(&line)),
        "no line {line:?} in:\n{log}"
    );
    assert!(cp.kwok_addr().ip().is_loopback());
    let bins = cp.control_plane_bins();
    assert!(bins.kwok.is_file() && bins.kube_scheduler.is_file());
}

/// The Node's kubelet endpoint is kwok on loopback: the API server
/// proxies `pods/log` to it (the Node's InternalIP), and kwok answers a
/// previous container's log from the file the harness names.
#[tokio::test]
async fn the_api_server_proxies_pods_log_to_kwok() {
    let cp = harness::control_plane();
    let client = cp.client().await;
    let node = Api::<k8s_openapi::api::core::v1::Node>::all(client.clone())
        .get(NODE)
        .await
        .expect("get the Node");
    let port = node
        .status
        .as_ref()
        .and_then(|s| s.daemon_endpoints.as_ref())
        .and_then(|d| d.kubelet_endpoint.as_ref())
        .map(|e| e.port);
    assert_eq!(port, Some(i32::from(cp.kwok_addr().port())), "{node:?}");
    assert!(cp.kwok_addr().ip().is_loopback());
    cp.write_previous_log(&["selftest: the previous container's last line"]);
    let sts = Sts::create("pods-log", "registry.k8s.io/pause:3.10").await;
    eventually("the pod scheduled", BOUND, || async {
        match sts.pod().await {
            Some(p) if p["spec"]["nodeName"] == NODE => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    let log = eventually("the previous log through the API server", BOUND, || async {
        let params = kube::api::LogParams {
            container: Some("server".into()),
            previous: true,
            tail_lines: Some(20),
            ..Default::default()
        };
        sts.pods
            .logs(&sts.pod_name(), &params)
            .await
            .map_err(|e| e.to_string())
    })
    .await;
    assert_eq!(log, "selftest: the previous container's last line\n");
}
