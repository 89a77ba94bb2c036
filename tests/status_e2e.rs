//! `status` and `explain` end to end on a real API server (tests/harness):
//! the simulated operator writes a scenario, the built binary reads it as a
//! person would, and the same objects dumped with the built kubectl
//! (`kubectl get ... -o yaml --show-managed-fields`) and read back with
//! `status -f` must give the identical JSON document (live and offline
//! equivalence, issue 3 item 5).
//!
//! Build the test binaries first (`bash testbin/build.sh kube etcd`), then
//! `cargo test --features test-hooks,fixture --test status_e2e`.
//!
//! One test deletes a CRD to see the plugin's message for it; it takes
//! [`CRDS`] for writing, every other test for reading, so no test runs while
//! a CRD is missing.

mod harness;

use harness::Subject;
use harness::plugin::{Ran, run as plugin};
use harness::sim::{self, Layout, Protocol, Sim};
use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tokio::sync::RwLock;

/// Held for reading by every test that needs the test CRDs, for writing by
/// the one that deletes one.
static CRDS: RwLock<()> = RwLock::const_new(());

/// The plugin against the test server as `kubeconfig`, in `ns`.
fn live_as(kubeconfig: &Path, ns: &str, args: &[&str]) -> Ran {
    let kc = kubeconfig.display().to_string();
    let mut all = vec!["--kubeconfig", kc.as_str(), "-n", ns];
    all.extend_from_slice(args);
    plugin(&all)
}

/// The plugin against the test server as the admin, in `ns`.
fn live(ns: &str, args: &[&str]) -> Ran {
    live_as(harness::server().kubeconfig(), ns, args)
}

/// The plugin on a snapshot file, in `ns`; no kubeconfig at all.
fn offline(file: &Path, ns: &str, args: &[&str]) -> Ran {
    let f = file.display().to_string();
    let mut all = vec!["-f", f.as_str(), "-n", ns];
    all.extend_from_slice(args);
    plugin(&all)
}

/// What docs/plugin.md tells a person to capture for a support bundle, taken
/// with the kubectl built for the tests, written to a file.
fn dump(ns: &str, label: &str) -> PathBuf {
    let s = harness::server();
    let yaml = s.kubectl_ok(&[
        "get",
        "valkeyclusters,valkeynodes,statefulsets,deployments,pods,events",
        "-n",
        ns,
        "-o",
        "yaml",
        "--show-managed-fields",
    ]);
    let dir = s.workdir().join("dumps");
    std::fs::create_dir_all(&dir).expect("dumps directory");
    let path = dir.join(format!("{ns}-{label}.yaml"));
    std::fs::write(&path, yaml).expect("write the dump");
    path
}

/// `status -o json` live and on a dump of the same objects, with the same
/// clock; the two documents must be identical. Returns the document.
fn judge(ns: &str, label: &str, now: &str, extra: &[&str]) -> Value {
    let mut args = vec!["status", "-o", "json", "--now", now];
    args.extend_from_slice(extra);
    let live_doc = live(ns, &args).ok_json();
    let file = dump(ns, label);
    let offline_doc = offline(&file, ns, &args).ok_json();
    assert_eq!(
        live_doc,
        offline_doc,
        "{label}: live and offline documents differ (dump {})\nlive:\n{}\noffline:\n{}",
        file.display(),
        pretty(&live_doc),
        pretty(&offline_doc)
    );
    live_doc
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// The clock for the plugin: `seconds` after the real clock, in RFC 3339.
fn clock_in(seconds: i64) -> String {
    sim::fmt_time(Timestamp::now() + SignedDuration::from_secs(seconds))
}

/// The only cluster of a document.
fn only_cluster(doc: &Value) -> &Value {
    let clusters = doc["clusters"].as_array().expect("clusters array");
    assert_eq!(clusters.len(), 1, "one cluster expected:\n{}", pretty(doc));
    &clusters[0]
}

fn node<'a>(cluster: &'a Value, name: &str) -> &'a Value {
    cluster["nodes"]
        .as_array()
        .and_then(|ns| ns.iter().find(|n| n["name"] == name))
        .unwrap_or_else(|| panic!("no node {name} in:\n{}", pretty(cluster)))
}

/// Node name -> state word, in the document's order.
fn states(cluster: &Value) -> Vec<(String, String)> {
    cluster["nodes"]
        .as_array()
        .expect("nodes array")
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap_or_default().to_string(),
                n["state"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn state_of(cluster: &Value, name: &str) -> String {
    node(cluster, name)["state"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn evidence_kinds(node: &Value) -> Vec<String> {
    node["evidence"]
        .as_array()
        .map(|es| {
            es.iter()
                .filter_map(|e| e["kind"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn layout(shards: u32, replicas: u32) -> Layout {
    Layout {
        shards,
        replicas,
        last_rollout_hash: true,
        ..Layout::default()
    }
}

fn new_hash() -> String {
    sim::hash("revision-1")
}

/// docs/plugin.md's builder-only roll (P1), rows 1 to 8: every node of `asking`
/// asks for `h`, `x` gets the permit (with the cluster controller's event),
/// the ValkeyCluster says UpdatingNodes, x's StatefulSet takes the new
/// template, its old pod goes, and x's node status turns not ready. Leaves x
/// without a pod.
async fn p1_roll_to_row_8(sim: &Sim, x: &str, asking: &[&str], h: &str) {
    sim.ask(asking, h).await;
    let n = sim.node(x);
    n.grant(h).await;
    sim.event_permitted(x, h).await;
    sim.cluster_updating().await;
    let w = n.workload();
    w.apply_template(h).await;
    n.remove_desired().await;
    n.clear_drift().await;
    w.catch_up().await;
    let old = n.pod();
    old.begin_delete().await;
    old.finish_delete().await;
    n.set_ready(false).await;
}

// ---------------------------------------------------------------------------
// The scenarios

#[tokio::test]
async fn converged_cluster() {
    let _crds = CRDS.read().await;
    let sim = Sim::fresh("converged", &layout(2, 1)).await;
    let doc = judge(&sim.ns, "converged", &clock_in(30), &[]);
    let c = only_cluster(&doc);
    assert_eq!(c["namespace"], sim.ns.as_str());
    assert_eq!(c["name"], "cache");
    assert_eq!(c["verdict"], "Converged", "{}", pretty(c));
    // Nothing staged in sight: a P1 cluster at rest reads as unknown.
    assert_eq!(c["protocol"], "unknown");
    assert_eq!(strings(&c["holders"]), Vec::<String>::new());
    assert_eq!(c["front"], Value::Null);
    assert_eq!(
        (c["waiting"].as_u64(), c["blocking"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(c["total"], 4);
    assert_eq!(c["state"], "Ready");
    for (name, state) in states(c) {
        assert_eq!(state, "Converged", "{name}");
    }
    let x = node(c, "cache-1-1");
    assert_eq!(x["shard"], 1);
    assert_eq!(x["index"], 1);
    assert_eq!(x["role"], "replica");
    assert_eq!(x["pod"], "valkey-cache-1-1-0");
    assert_eq!(x["ready"], true);
    assert_eq!(x["lastRolloutHash"], Layout::default().revision.as_str());
    assert_eq!(x["grantedAtSource"], "unknown");
    assert_eq!(x["permit"], Value::Null);

    // The table and --exit-code: nothing needs attention.
    let table = live(&sim.ns, &["status", "--now", &clock_in(30), "--exit-code"]);
    assert_eq!(table.code, 0, "{}", table.both());
    assert!(table.stdout.contains("CONVERGED"), "{}", table.both());
}

#[tokio::test]
async fn rolling_cluster() {
    let _crds = CRDS.read().await;
    let sim = Sim::fresh("rolling", &layout(1, 1)).await;
    let h = new_hash();
    let (x, y) = ("cache-0-1", "cache-0-0");
    p1_roll_to_row_8(&sim, x, &[x, y], &h).await;
    // Row 9: the new pod on the update revision, running, not ready.
    let pod = sim.node(x).pod_for(&h);
    pod.create(&h).await;
    pod.running_not_ready().await;

    let doc = judge(&sim.ns, "rolling", &clock_in(30), &[]);
    let c = only_cluster(&doc);
    assert_eq!(c["verdict"], "Rolling", "{}", pretty(c));
    assert_eq!(c["protocol"], "P1");
    assert_eq!(strings(&c["holders"]), [x]);
    assert_eq!(c["front"], y);
    assert_eq!(c["waiting"], 1);
    assert_eq!(c["blocking"], 0);
    assert_eq!(c["state"], "Reconciling");
    assert_eq!(c["stateReason"], "UpdatingNodes");
    assert_eq!(state_of(c, x), "Rolling");
    assert_eq!(state_of(c, y), "Waiting");
    let xn = node(c, x);
    assert_eq!(xn["permit"], h.as_str());
    assert_eq!(xn["grantedAtSource"], "event");
    assert!(xn["heldForSeconds"].is_u64(), "{}", pretty(xn));
    assert_eq!(evidence_kinds(xn), Vec::<String>::new());
    let yn = node(c, y);
    assert_eq!(yn["desiredRevision"], h.as_str());
    assert_eq!(yn["queuePosition"], 1);
    assert!(yn["waitingForSeconds"].is_u64(), "{}", pretty(yn));

    // Named, the document is the same cluster (and still equal offline).
    let named = judge(&sim.ns, "rolling-named", &clock_in(30), &["cache"]);
    assert_eq!(only_cluster(&named)["verdict"], "Rolling");
}

#[tokio::test]
async fn stuck_holder_jams_the_cluster() {
    let _crds = CRDS.read().await;
    let sim = Sim::fresh("stuck", &layout(2, 1)).await;
    let h = new_hash();
    let x = "cache-0-1";
    let all = ["cache-0-0", "cache-0-1", "cache-1-0", "cache-1-1"];
    let before = Timestamp::now();
    p1_roll_to_row_8(&sim, x, &all, &h).await;
    // Row 9': the new pod crash-loops.
    let pod = sim.node(x).pod_for(&h);
    pod.create(&h).await;
    pod.crash_loop(7).await;
    let after = Timestamp::now();

    let now = clock_in(60);
    let doc = judge(&sim.ns, "stuck", &now, &[]);
    let c = only_cluster(&doc);
    assert_eq!(c["verdict"], "Jammed", "{}", pretty(c));
    assert_eq!(strings(&c["holders"]), [x]);
    assert_eq!(c["front"], "cache-0-0");
    assert_eq!(c["waiting"], 3);
    assert_eq!(c["total"], 4);
    let xn = node(c, x);
    assert_eq!(xn["state"], "Stuck");
    assert!(
        evidence_kinds(xn).contains(&"CrashLoopBackOff".to_string()),
        "{}",
        pretty(xn)
    );
    assert_eq!(xn["grantedAtSource"], "event");
    // The time of the WorkloadRollPermitted event, written in between.
    let granted_at: Timestamp = xn["grantedAt"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("grantedAt: {}", pretty(xn)));
    let second = SignedDuration::from_secs(1);
    assert!(
        before - second <= granted_at && granted_at <= after + second,
        "grantedAt {granted_at} not between {before} and {after}"
    );
    assert!(
        xn["reason"]
            .as_str()
            .unwrap_or("")
            .contains("CrashLoopBackOff")
    );
    let positions: Vec<_> = ["cache-0-0", "cache-1-1", "cache-1-0"]
        .iter()
        .map(|n| node(c, n)["queuePosition"].as_u64())
        .collect();
    assert_eq!(positions, [Some(1), Some(2), Some(3)], "walk order");

    // The table: the verdict word and the holder, and who waits.
    let table = live(&sim.ns, &["status", "--now", &now]);
    assert_eq!(table.code, 0, "{}", table.both());
    assert!(table.stdout.contains("JAMMED"), "{}", table.both());
    assert!(
        table.stdout.contains(&format!("{x} holds the permit")),
        "{}",
        table.both()
    );
    assert!(
        table.stdout.contains("CrashLoopBackOff"),
        "{}",
        table.both()
    );
    // --exit-code: Jammed needs attention.
    let exit = live(&sim.ns, &["status", "--now", &now, "--exit-code"]);
    assert_eq!(exit.code, 3, "{}", exit.both());

    // -o yaml is the same document as -o json.
    let yaml = live(&sim.ns, &["status", "-o", "yaml", "--now", &now]);
    assert_eq!(yaml.code, 0, "{}", yaml.both());
    let from_yaml: Value = serde_saphyr::from_str(&yaml.stdout)
        .unwrap_or_else(|e| panic!("-o yaml does not parse ({e}):\n{}", yaml.stdout));
    assert_eq!(from_yaml, doc, "-o yaml differs from -o json");

    // explain, live, on the stuck node.
    let ex = live(&sim.ns, &["explain", x, "--now", &now]);
    assert_eq!(ex.code, 0, "{}", ex.both());
    for needle in [
        "STUCK",
        "CrashLoopBackOff",
        "source: event",
        "WorkloadRollPermitted",
    ] {
        assert!(
            ex.stdout.contains(needle),
            "no {needle:?} in:\n{}",
            ex.both()
        );
    }
    let ex_json = live(&sim.ns, &["explain", x, "-o", "json", "--now", &now]).ok_json();
    assert_eq!(ex_json["state"], "Stuck", "{}", pretty(&ex_json));
    assert!(
        ex_json["timeline"]
            .as_array()
            .is_some_and(|t| t.iter().any(|e| e["reason"] == "WorkloadRollPermitted")),
        "{}",
        pretty(&ex_json)
    );
}

#[tokio::test]
async fn quiet_cluster_with_a_blocking_front_is_stalled() {
    let _crds = CRDS.read().await;
    let sim = Sim::fresh("stalled", &layout(1, 1)).await;
    let h = new_hash();
    let (x, y) = ("cache-0-1", "cache-0-0");
    // y asks; x does not ask but its node is not ready: the walk waits at x.
    sim.ask(&[y], &h).await;
    sim.node(x).set_ready(false).await;

    // Within the threshold the cluster is only Waiting...
    let soon = judge(&sim.ns, "stalled-soon", &clock_in(30), &[]);
    assert_eq!(
        only_cluster(&soon)["verdict"],
        "Waiting",
        "{}",
        pretty(&soon)
    );

    // ... an hour on, with nothing moved, it is Stalled.
    let doc = judge(&sim.ns, "stalled", &clock_in(3600), &[]);
    let c = only_cluster(&doc);
    assert_eq!(c["verdict"], "Stalled", "{}", pretty(c));
    assert_eq!(strings(&c["holders"]), Vec::<String>::new());
    assert_eq!(c["front"], x);
    assert_eq!(state_of(c, x), "Blocking");
    assert_eq!(state_of(c, y), "Waiting");
    assert_eq!(
        (c["waiting"].as_u64(), c["blocking"].as_u64()),
        (Some(1), Some(1))
    );
    let quiet = c["quietForSeconds"].as_u64().expect("quietForSeconds");
    assert!(quiet > 600, "quiet {quiet}s is not over the threshold");
    assert!(
        c["reason"].as_str().unwrap_or("").contains(x),
        "{}",
        pretty(c)
    );
    assert_eq!(evidence_kinds(node(c, x)), Vec::<String>::new());
}

#[tokio::test]
async fn two_holders_are_a_conflict() {
    let _crds = CRDS.read().await;
    let sim = Sim::fresh("conflict", &layout(1, 2)).await;
    let h = new_hash();
    let (x, z, y) = ("cache-0-1", "cache-0-2", "cache-0-0");
    sim.ask(&[x, z, y], &h).await;
    sim.node(x).grant(&h).await;
    sim.event_permitted(x, &h).await;
    // z's permit comes with no event: its time is the managedFields entry's.
    sim.node(z).grant(&h).await;

    let doc = judge(&sim.ns, "conflict", &clock_in(30), &[]);
    let c = only_cluster(&doc);
    assert_eq!(c["verdict"], "Conflict", "{}", pretty(c));
    let mut holders = strings(&c["holders"]);
    holders.sort();
    assert_eq!(holders, [x, z]);
    assert!(
        c["reason"].as_str().unwrap_or("").contains(x),
        "{}",
        pretty(c)
    );
    assert!(
        c["reason"].as_str().unwrap_or("").contains(z),
        "{}",
        pretty(c)
    );
    assert_eq!(state_of(c, y), "Waiting");
    assert_eq!(node(c, x)["grantedAtSource"], "event");
    assert_eq!(node(c, z)["grantedAtSource"], "managedFields");
    assert!(node(c, z)["grantedAt"].is_string(), "{}", pretty(c));

    let exit = live(&sim.ns, &["status", "--now", &clock_in(30), "--exit-code"]);
    assert_eq!(exit.code, 3, "{}", exit.both());
}

#[tokio::test]
async fn p2_cluster_rolls_then_jams() {
    let _crds = CRDS.read().await;
    let p2 = Layout {
        protocol: Protocol::P2,
        ..layout(1, 1)
    };
    let sim = Sim::fresh("p2", &p2).await;
    let old = p2.revision.clone();
    let h = new_hash();
    let (x, y) = ("cache-0-1", "cache-0-0");
    // P2 row 1 to 3.
    sim.node(x).set_pending(&h).await;
    sim.node(y).set_pending(&h).await;
    sim.node(x).set_workload_revision(&h).await;
    sim.event_node_updated(x).await;
    sim.cluster_updating().await;

    let doc = judge(&sim.ns, "p2-rolling", &clock_in(30), &[]);
    let c = only_cluster(&doc);
    assert_eq!(c["protocol"], "P2", "{}", pretty(c));
    assert_eq!(c["verdict"], "Rolling", "{}", pretty(c));
    assert_eq!(strings(&c["holders"]), [x]);
    assert_eq!(c["front"], y);
    assert_eq!(c["waiting"], 1);
    let xn = node(c, x);
    assert_eq!(xn["state"], "Rolling");
    assert_eq!(xn["permit"], h.as_str());
    assert_eq!(xn["desiredRevision"], h.as_str());
    assert_eq!(xn["grantedAtSource"], "event");
    let yn = node(c, y);
    assert_eq!(yn["state"], "Waiting");
    assert_eq!(yn["permit"], old.as_str());
    assert_eq!(yn["desiredRevision"], h.as_str());

    // P2 rows 4 and 5': the node controller applies; the new pod cannot
    // pull its image.
    let n = sim.node(x);
    let w = n.workload();
    w.apply_template(&h).await;
    n.clear_pending().await;
    n.observe().await;
    w.catch_up().await;
    let old_pod = n.pod();
    old_pod.begin_delete().await;
    old_pod.finish_delete().await;
    let pod = n.pod_for(&h);
    pod.create(&h).await;
    pod.image_pull_backoff().await;

    let doc = judge(&sim.ns, "p2-jammed", &clock_in(30), &[]);
    let c = only_cluster(&doc);
    assert_eq!(c["verdict"], "Jammed", "{}", pretty(c));
    assert_eq!(strings(&c["holders"]), [x]);
    let xn = node(c, x);
    assert_eq!(xn["state"], "Stuck");
    assert_eq!(xn["desiredRevision"], Value::Null);
    assert!(
        evidence_kinds(xn).contains(&"ImagePullBackOff".to_string()),
        "{}",
        pretty(xn)
    );
}

// ---------------------------------------------------------------------------
// Errors

#[tokio::test]
async fn a_cluster_that_does_not_exist_names_the_nearest() {
    let _crds = CRDS.read().await;
    let sim = Sim::fresh("missing", &layout(1, 0)).await;
    let ran = live(&sim.ns, &["status", "cach"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr
            .contains(&format!("ValkeyCluster {}/cach not found", sim.ns)),
        "{}",
        ran.both()
    );
    assert!(ran.stderr.contains("did you mean cache?"), "{}", ran.both());
    assert!(ran.stdout.is_empty(), "{}", ran.both());

    // A namespace with no cluster at all is not an error for a listing.
    let empty = harness::server().fresh_namespace("empty");
    let ran = live(&empty, &["status"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr.contains("No ValkeyClusters found"),
        "{}",
        ran.both()
    );
}

#[tokio::test]
async fn a_user_without_rights_is_told_the_verb_and_resource() {
    let _crds = CRDS.read().await;
    let s = harness::server();
    let sim = Sim::fresh("forbidden", &layout(1, 0)).await;
    let resources = [
        "valkeyclusters",
        "valkeynodes",
        "statefulsets",
        "deployments",
        "pods",
        "events",
    ];

    // No rights at all: one of the six LISTs fails first.
    let nobody = s.mint_user("nobody", &[]);
    let ran = live_as(&nobody, &sim.ns, &["status"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(ran.stderr.contains("forbidden"), "{}", ran.both());
    assert!(
        resources.iter().any(|r| ran
            .stderr
            .contains(&format!("may not list {r} in namespace {}", sim.ns))),
        "{}",
        ran.both()
    );

    // Every right but pods: the message names exactly that.
    harness::bind(
        &s.client().await,
        &sim.ns,
        "nopods-read",
        Subject::User("nopods"),
        json!([
            {"apiGroups": ["valkey.io"], "resources": ["valkeyclusters", "valkeynodes"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["apps"], "resources": ["statefulsets", "deployments"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["events"], "verbs": ["get", "list", "watch"]},
        ]),
    )
    .await;
    // A partial view: what can be judged without the pods, marked so
    // (tests/faults_e2e.rs has the other kinds).
    let nopods = s.mint_user("nopods", &[]);
    let ran = live_as(&nopods, &sim.ns, &["status"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr.contains(&format!(
            "partial view: pods could not be listed (forbidden: you may not list pods in namespace {}",
            sim.ns
        )),
        "{}",
        ran.both()
    );
}

/// Waits (at most 60 s) until the API server answers 404 for
/// valkeyclusters: `kubectl delete --wait` returns when the CRD object is
/// gone, a moment before the server stops serving its resource.
async fn until_not_served(client: &kube::Client, ns: &str) {
    use kube::api::{Api, DynamicObject, ListParams};
    let resource = sim::valkey_resource("ValkeyCluster", "valkeyclusters");
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &resource);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        match api.list(&ListParams::default()).await {
            Err(kube::Error::Api(s)) if s.code == 404 => return,
            _ => {}
        }
        assert!(
            std::time::Instant::now() < deadline,
            "valkeyclusters still served 60 s after the CRD was deleted"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The message for a missing CRD, seen by deleting the ValkeyCluster CRD
/// (CRDs are cluster-wide; every other test of this binary waits on
/// [`CRDS`] meanwhile) and installing it again.
#[tokio::test]
async fn a_missing_crd_is_named() {
    let _crds = CRDS.write().await;
    let s = harness::server();
    let ns = s.fresh_namespace("nocrd");
    let out = s.kubectl(&[
        "delete",
        "crd",
        "valkeyclusters.valkey.io",
        "--wait=true",
        "--timeout=120s",
    ]);
    let deleted = out.status.success();
    if deleted {
        until_not_served(&s.client().await, &ns).await;
    }
    let ran = live(&ns, &["status"]);
    // Put it back before asserting, so a failure here leaves the others a
    // working server.
    s.install_crds();
    assert!(
        deleted,
        "kubectl delete crd: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("valkeyclusters.valkey.io is not installed on this cluster"),
        "{}",
        ran.both()
    );
}
