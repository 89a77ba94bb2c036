//! End-to-end checks of the test harness itself: the real API server, the
//! test CRDs, the simulated operator, and minted users.

mod harness;

use harness::Subject;
use harness::sim::{self, Layout, Sim};
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;

fn nodes_api(client: kube::Client, ns: &str) -> Api<DynamicObject> {
    Api::namespaced_with(
        client,
        ns,
        &sim::valkey_resource("ValkeyNode", "valkeynodes"),
    )
}

#[test]
fn base64_matches_rfc4648_vectors() {
    for (plain, encoded) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ] {
        assert_eq!(harness::pki::base64(plain.as_bytes()), encoded);
    }
}

/// A child that is killed when the test ends, passed or not.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `sleep`, run as `program`, in a process group of its own; returns once
/// it runs `program` (and not yet the test binary it forked from).
fn sleeper(program: &std::path::Path) -> Killed {
    use std::os::unix::process::CommandExt;
    let child = std::process::Command::new(program)
        .arg("120")
        .process_group(0)
        .spawn()
        .expect("spawn the sleeper");
    let exe = std::path::PathBuf::from(format!("/proc/{}/exe", child.id()));
    let child = Killed(child);
    for _ in 0..200 {
        if std::fs::read_link(&exe).is_ok_and(|e| e == program) {
            return child;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{} never ran {}", child.0.id(), program.display());
}

/// `testbin/reap.sh --check` over a cache and a target dir of its own: a
/// `kwok` from that cache that the ledger does not name (someone's own
/// cluster) is left alone; one the ledger names (a test server this run
/// started that is still alive) fails the check. It runs no server, so the
/// reaping never meets this binary's own.
#[test]
fn reap_check_fails_on_a_server_this_run_started_and_only_on_those() {
    let root = tempfile::tempdir().expect("tempdir");
    let cache = root.path().join("cache");
    let target = root.path().join("target");
    let kwok = cache.join("kwok-v0.0.0-test").join("kwok");
    std::fs::create_dir_all(kwok.parent().unwrap()).unwrap();
    std::fs::copy("/bin/sleep", &kwok).expect("copy sleep as kwok");
    let check = || {
        let out = std::process::Command::new("bash")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/testbin/reap.sh"))
            .arg("--check")
            .env("CARGO_TARGET_DIR", &target)
            .env("TESTBIN_CACHE", &cache)
            .output()
            .expect("run reap.sh");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.success(), stderr)
    };

    let theirs = sleeper(&kwok);
    let (ok, stderr) = check();
    assert!(ok, "{stderr}");
    let left_alone = format!("left alone, not started by this run: {}:", theirs.0.id());
    assert!(stderr.contains(&left_alone), "{stderr}");

    let ours = sleeper(&kwok);
    harness::procs::record_started(&target.join("testbin-pids"), "kwok", ours.0.id() as i32)
        .expect("write the ledger");
    let (ok, stderr) = check();
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains(&format!("still running: {}:", ours.0.id())),
        "{stderr}"
    );
    assert!(stderr.contains(&left_alone), "{stderr}");
}

#[test]
fn server_reports_its_version_and_logs_the_ready_line() {
    let s = harness::server();
    assert!(s.version().starts_with("v1."), "version {}", s.version());
    assert!(s.url().starts_with("https://127.0.0.1:"));
    let log = std::fs::read_to_string(harness::procs::target_dir().join("testbin-servers.log"))
        .expect("servers log");
    let line = format!("kube-apiserver {} ready at {}", s.version(), s.url());
    assert!(
        log.lines().any(|l| l == line),
        "no line {line:?} in:\n{log}"
    );
    let out = harness::stdout_of(&s.kubectl(&["version", "-o", "json"]));
    let v: serde_json::Value = serde_json::from_str(&out).expect("kubectl version json");
    assert_eq!(v["serverVersion"]["gitVersion"], s.version());
}

/// (a) status.lastRolloutHash written through the status subresource is
/// kept; a status field the schema does not declare is pruned.
#[tokio::test]
async fn status_subresource_keeps_last_rollout_hash_and_prunes_unknown_fields() {
    let s = harness::server();
    let ns = s.fresh_namespace("prune");
    let client = s.client().await;
    let sim = Sim::new(client.clone(), &ns, "standalone");
    let node = sim.node("standalone-0-0");
    node.create_with(0, 0, json!({"image": "valkey/valkey:8.1.1"}), false)
        .await;

    let h = sim::hash("rolled");
    let patched = node
        .status_merge(json!({
            "lastRolloutHash": h,
            "ready": true,
            "undeclaredField": "must be pruned",
        }))
        .await;
    assert_eq!(patched.data["status"]["lastRolloutHash"], json!(h));
    assert!(patched.data["status"].get("undeclaredField").is_none());

    // Read back through another path: the stored object, via kubectl.
    let out = harness::stdout_of(&s.kubectl(&[
        "get",
        "valkeynode",
        "standalone-0-0",
        "-n",
        &ns,
        "-o",
        "json",
    ]));
    let stored: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(stored["status"]["lastRolloutHash"], json!(h));
    assert_eq!(stored["status"]["ready"], json!(true));
    assert!(
        stored["status"].get("undeclaredField").is_none(),
        "undeclared status field kept: {}",
        stored["status"]
    );

    // The main resource ignores status: an Update cannot set it.
    let mut obj = stored.clone();
    obj["status"]["lastRolloutHash"] = json!("changed-through-main-resource");
    let obj: DynamicObject = serde_json::from_value(obj).expect("object");
    let api = nodes_api(client, &ns);
    let after = api
        .replace("standalone-0-0", &PostParams::default(), &obj)
        .await
        .expect("update");
    assert_eq!(after.data["status"]["lastRolloutHash"], json!(h));
}

/// (b) the simulated operator builds a 2-node cluster that the API server
/// accepts, and its roll writes land as the protocol says.
#[tokio::test]
async fn sim_builds_a_two_node_cluster_and_rolls_one_node() {
    let s = harness::server();
    let ns = s.fresh_namespace("sim");
    let client = s.client().await;
    let layout = Layout::default();
    let sim = Sim::build(client.clone(), &ns, "cache", &layout).await;

    let vc = sim.get_cluster().await;
    let ready = vc.data["status"]["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .find(|c| c["type"] == "Ready")
        .expect("Ready condition")
        .clone();
    assert_eq!(ready["status"], "True");
    assert_eq!(ready["observedGeneration"], json!(vc.metadata.generation));
    assert_eq!(vc.data["status"]["state"], "Ready");

    let list = sim
        .nodes()
        .list(&ListParams::default().labels("valkey.io/cluster=cache"))
        .await
        .expect("list nodes");
    let mut names: Vec<String> = list
        .items
        .iter()
        .map(|n| n.metadata.name.clone().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["cache-0-0", "cache-0-1"]);
    for n in &list.items {
        let owner = &n.metadata.owner_references.as_ref().expect("owner")[0];
        assert_eq!(owner.kind, "ValkeyCluster");
        assert_eq!(owner.controller, Some(true));
        assert_eq!(Some(&owner.uid), vc.metadata.uid.as_ref());
        let labels = n.metadata.labels.as_ref().expect("labels");
        assert_eq!(labels["valkey.io/shard-index"], "0");
        assert_eq!(n.data["status"]["ready"], json!(true));
        assert_eq!(
            n.data["status"]["observedGeneration"],
            json!(n.metadata.generation)
        );
    }
    let x = sim.node("cache-0-1");
    let xj = x.get_json().await;
    assert_eq!(xj["status"]["role"], "replica");
    assert_eq!(xj["status"]["podName"], "valkey-cache-0-1-0");
    assert_eq!(
        sim.node("cache-0-0").get_json().await["status"]["role"],
        "primary"
    );

    let sts = x.workload().get().await;
    assert_eq!(
        sts["status"]["currentRevision"],
        sts["status"]["updateRevision"]
    );
    assert_eq!(sts["status"]["readyReplicas"], 1);
    let pod = x.pod().get().await;
    assert_eq!(
        pod["metadata"]["labels"]["controller-revision-hash"],
        sts["status"]["updateRevision"]
    );
    assert_eq!(
        pod["metadata"]["labels"]["app.kubernetes.io/instance"],
        "cache-0-1"
    );
    assert_eq!(pod["status"]["containerStatuses"][0]["ready"], true);

    // P1 steps 1 to 3 on X, and the pod's replacement.
    let h = sim::hash("revision-1");
    x.annotate_desired(&h).await;
    x.set_drift(&h).await;
    x.grant(&h).await;
    sim.event_permitted(&x.name, &h).await;
    sim.cluster_updating().await;
    let before = x.workload().get().await;
    let after = x.workload().apply_template(&h).await;
    assert_eq!(
        after["metadata"]["generation"].as_i64().unwrap(),
        before["metadata"]["generation"].as_i64().unwrap() + 1,
        "the StatefulSet's generation moves with its template"
    );
    assert_eq!(
        after["status"]["observedGeneration"],
        before["metadata"]["generation"]
    );
    sim.event_applied(&x.name, &h).await;
    x.remove_desired().await;
    x.clear_drift().await;
    let xj = x.get_json().await;
    assert_eq!(xj["metadata"]["annotations"][sim::ANN_ALLOW], json!(h));
    assert!(
        xj["metadata"]["annotations"]
            .get(sim::ANN_DESIRED)
            .is_none()
    );
    let conds = xj["status"]["conditions"].as_array().unwrap();
    assert!(conds.iter().all(|c| c["type"] != "WorkloadDrift"));

    let caught = x.workload().catch_up().await;
    assert_ne!(
        caught["status"]["currentRevision"],
        caught["status"]["updateRevision"]
    );
    x.pod().begin_delete().await;
    let deleting = x.pod().get().await;
    assert!(deleting["metadata"]["deletionTimestamp"].is_string());
    x.pod().finish_delete().await;
    assert!(sim.pods().get_opt(&x.pod().name).await.unwrap().is_none());
    x.set_ready(false).await;
    x.pod().create(&h).await;
    x.pod().crash_loop(3).await;
    let crashing = x.pod().get().await;
    assert_eq!(
        crashing["status"]["containerStatuses"][0]["state"]["waiting"]["reason"],
        "CrashLoopBackOff"
    );
    assert_eq!(
        crashing["status"]["containerStatuses"][0]["restartCount"],
        3
    );

    // Events: the core v1 view shows regarding as involvedObject, the note
    // as message, and related.
    let out = harness::stdout_of(&s.kubectl(&["get", "events", "-n", &ns, "-o", "json"]));
    let events: serde_json::Value = serde_json::from_str(&out).expect("json");
    let items = events["items"].as_array().expect("items");
    let permitted = items
        .iter()
        .find(|e| e["reason"] == "WorkloadRollPermitted")
        .expect("a WorkloadRollPermitted event");
    assert_eq!(permitted["involvedObject"]["kind"], "ValkeyCluster");
    assert_eq!(
        permitted["involvedObject"]["apiVersion"],
        "valkey.io/v1alpha1"
    );
    assert_eq!(permitted["related"]["name"], "cache-0-1");
    assert_eq!(
        permitted["message"],
        format!("Granted workload roll permit for cache-0-1 (hash {h})")
    );
    assert!(permitted["eventTime"].is_string());
    assert!(permitted["lastTimestamp"].is_null());
    let applied = items
        .iter()
        .find(|e| e["reason"] == "WorkloadRollApplied")
        .expect("a WorkloadRollApplied event");
    assert_eq!(applied["involvedObject"]["name"], "cache-0-1");
    assert_eq!(
        applied["message"],
        format!("Applied pod template update (hash {h})")
    );

    // The field selector the plugin uses for events works on this server.
    let out = harness::stdout_of(&s.kubectl(&[
        "get",
        "events",
        "-n",
        &ns,
        "--field-selector",
        "involvedObject.apiVersion=valkey.io/v1alpha1",
        "-o",
        "name",
    ]));
    assert_eq!(out.lines().count(), 2, "{out}");
}

/// P2 writes, a Deployment-backed cluster, and the namespaced kubeconfig.
#[tokio::test]
async fn sim_p2_on_deployments() {
    let s = harness::server();
    let ns = s.fresh_namespace("p2");
    let client = s.client().await;
    let layout = Layout {
        protocol: sim::Protocol::P2,
        workload: sim::WorkloadKind::Deployment,
        last_rollout_hash: true,
        ..Layout::default()
    };
    let sim = Sim::build(client, &ns, "dep", &layout).await;
    sim.set_now("2026-11-29T10:00:00Z");
    let x = sim.node("dep-0-1");
    let h = sim::hash("revision-2");
    let pending = x.set_pending(&h).await;
    let cond = pending.data["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "WorkloadRollPending")
        .unwrap()
        .clone();
    assert_eq!(
        cond["message"],
        format!(
            "desired workload template hash {h} awaits Spec.WorkloadRevision (have \"{}\")",
            layout.revision
        )
    );
    assert_eq!(cond["lastTransitionTime"], "2026-11-29T10:00:00Z");
    let before = x.get().await;
    let after = x.set_workload_revision(&h).await;
    assert_eq!(
        after.metadata.generation,
        before.metadata.generation.map(|g| g + 1)
    );
    sim.event_node_updated(&x.name).await;
    let dep = x.workload().apply_template(&h).await;
    assert_eq!(dep["kind"], "Deployment");
    x.workload().catch_up().await;
    x.workload().progress_deadline_exceeded().await;
    let old = x.get_json().await["status"]["podName"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(old.starts_with("valkey-dep-0-1-"), "{old}");
    let new_pod = x.pod_for(&h);
    assert_ne!(new_pod.name, old);
    new_pod.create(&h).await;
    new_pod.image_pull_backoff().await;

    // A kubeconfig whose context carries the namespace.
    let kc = s.kubeconfig_in(&ns);
    let out = harness::stdout_of(&s.kubectl_as(&kc, &["get", "valkeynodes", "-o", "name"]));
    assert_eq!(out.lines().count(), 2, "{out}");
    let out = harness::stdout_of(&s.kubectl_as(&kc, &["get", "deployments", "-o", "name"]));
    assert_eq!(out.lines().count(), 2, "{out}");
}

/// (c) a minted user is who RBAC says it is: allowed to read valkeynodes
/// when bound to a Role that lets it, and forbidden (403) to patch them.
#[tokio::test]
async fn minted_user_is_forbidden_to_patch_valkeynodes() {
    let s = harness::server();
    let ns = s.fresh_namespace("rbac");
    let admin = s.client().await;
    let sim = Sim::build(admin, &ns, "cache", &Layout::default()).await;
    harness::bind(
        &sim.client,
        &ns,
        "reader",
        Subject::Group("readers"),
        json!([{"apiGroups": ["valkey.io"], "resources": ["valkeynodes", "valkeyclusters"], "verbs": ["get", "list", "watch"]}]),
    )
    .await;
    let kc = s.mint_user_in("alice", &["readers", "staff"], &ns);

    // Who the server thinks alice is.
    let out = harness::stdout_of(&s.kubectl_as(&kc, &["auth", "whoami", "-o", "json"]));
    let who: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(who["status"]["userInfo"]["username"], "alice");
    let groups = who["status"]["userInfo"]["groups"].as_array().unwrap();
    assert!(groups.contains(&json!("readers")), "{groups:?}");
    assert!(groups.contains(&json!("staff")), "{groups:?}");

    let alice = harness::client_for(&kc).await;
    let api = nodes_api(alice, &ns);
    let node = api.get("cache-0-0").await.expect("alice may get");
    assert_eq!(node.metadata.name.as_deref(), Some("cache-0-0"));
    let err = api
        .patch(
            "cache-0-0",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"annotations": {sim::ANN_ALLOW: "*"}}})),
        )
        .await
        .expect_err("alice must not patch");
    match err {
        kube::Error::Api(status) => assert_eq!(status.code, 403, "{status:?}"),
        other => panic!("expected 403 Forbidden, got {other}"),
    }
    // Nothing was written.
    let n = sim.node("cache-0-0").get_json().await;
    assert!(n["metadata"]["annotations"].get(sim::ANN_ALLOW).is_none());

    // A user in no group is denied even reading.
    let nobody = harness::client_for(&s.mint_user("mallory", &[])).await;
    let err = nodes_api(nobody, &ns)
        .list(&ListParams::default())
        .await
        .expect_err("denied");
    assert!(
        matches!(err, kube::Error::Api(ref st) if st.code == 403),
        "{err}"
    );
}
