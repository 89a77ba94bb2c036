//! Reading the Valkey servers live (docs/servers.md), on the real control
//! plane (harness::control_plane()) with the simulated operator: every
//! pod of the cluster is backed by a real valkey-server bound to its kwok
//! IP (127.0.1.x:6379, harness::valkey::RealServer) with the operator's
//! ACL file, and the cluster is formed over RESP as the operator does
//! (CLUSTER MEET, ADDSLOTSRANGE, REPLICATE).
//!
//! - `status --servers=direct -o json`: every node's role from its own
//!   server (`roleSource: "server"`), right after creation and right after
//!   a primary's server is killed and its replica takes over (CLUSTER
//!   FAILOVER TAKEOVER, as Valkey's own failover would), the old primary
//!   back as a replica;
//! - no Secret, a wrong password, and a server that is not there: each a
//!   line on stderr, the API's judgement standing, and the password in no
//!   output, nor in `-v 8`'s log; servers asked and not read are said on
//!   the verdict (`CONVERGED · servers: none of 4 read`), and `wait
//!   --servers` does not succeed on it.

mod harness;

use std::collections::BTreeMap;
use std::time::Duration;

use harness::Subject;
use harness::controlplane::eventually;
use harness::operator::Step;
use harness::plugin::{Plugin, run_in};
use harness::valkey::{self, OPERATOR, Passwords};
use harness::valkey_rig::{
    BOUND, CLUSTER, Fake, assert_no_password, link_down, make_secret, pod_ips, rejoin_unsynced,
    rig, rig_readable, write_roles,
};
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DeleteParams};
use serde_json::{Value, json};

/// Held for writing by the test that replaces a pod (its new pod's IP may
/// be one a pod of another test's namespace still serves on), for reading
/// by the others.
static PODS: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

fn cluster(doc: &Value) -> Value {
    doc["clusters"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["name"] == CLUSTER))
        .cloned()
        .unwrap_or(Value::Null)
}

/// Node name -> (role, roleSource).
fn roles(c: &Value) -> BTreeMap<String, (String, String)> {
    c["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            (
                n["name"].as_str().unwrap_or("").to_string(),
                (
                    n["role"].as_str().unwrap_or("null").to_string(),
                    n["roleSource"].as_str().unwrap_or("null").to_string(),
                ),
            )
        })
        .collect()
}

fn server_roles(want: &[(&str, &str)]) -> BTreeMap<String, (String, String)> {
    want.iter()
        .map(|(n, r)| (n.to_string(), (r.to_string(), "server".to_string())))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn roles_come_from_the_servers_before_and_after_a_takeover() {
    let _pods = PODS.read().await;
    let (op, ns, pw, mut servers, _) = rig_readable("servers-roles").await;
    let cp = harness::control_plane();

    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &[
            "status",
            CLUSTER,
            "--servers=direct",
            "-o",
            "json",
            "-v",
            "8",
        ],
    )
    .await;
    assert_no_password(&pw, "the output", &format!("{}{}", ran.stdout, ran.stderr));
    // -v 8 logged the Secret's GET (and so would have shown what it logs).
    assert!(
        ran.stderr.contains("secrets/internal-rig-system-passwords"),
        "{}",
        ran.stderr
    );
    let c = cluster(&ran.ok_json());
    assert_eq!(
        roles(&c),
        server_roles(&[
            ("rig-0-0", "primary"),
            ("rig-0-1", "replica"),
            ("rig-1-0", "primary"),
            ("rig-1-1", "replica"),
        ]),
        "{c:#}"
    );
    assert_eq!(
        (&c["servers"]["read"], &c["servers"]["unread"]),
        (&json!(4), &json!(0)),
        "{c:#}"
    );

    // The API names shard 0's primary (as the operator writes it).
    op.sim
        .node("rig-0-0")
        .status_merge(json!({"role": "primary"}))
        .await;
    // Shard 0's primary dies; its replica takes over as Valkey would; the
    // old primary's server comes back on its data and follows it.
    servers.get_mut("rig-0-0").unwrap().kill();
    let replica = servers["rig-0-1"].ip.clone();
    valkey::call(
        &replica,
        OPERATOR,
        &pw.operator,
        &["CLUSTER", "FAILOVER", "TAKEOVER"],
    )
    .await
    .unwrap();
    servers.get_mut("rig-0-0").unwrap().restart(&pw).await;
    let shards = vec![
        vec![replica.clone(), servers["rig-0-0"].ip.clone()],
        vec![servers["rig-1-0"].ip.clone(), servers["rig-1-1"].ip.clone()],
    ];
    valkey::settled(&shards, &pw, Duration::from_secs(60)).await;

    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["status", CLUSTER, "--servers=direct", "-o", "json"],
    )
    .await;
    let c = cluster(&ran.ok_json());
    assert_eq!(
        roles(&c),
        server_roles(&[
            ("rig-0-0", "replica"),
            ("rig-0-1", "primary"),
            ("rig-1-0", "primary"),
            ("rig-1-1", "replica"),
        ]),
        "{c:#}"
    );
    // The same through the API server's port-forward (kwok forwards each
    // pod's 6379 to its server), as explain does by default.
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["explain", CLUSTER, "-o", "json", "-v", "8"],
    )
    .await;
    assert_no_password(&pw, "the output", &format!("{}{}", ran.stdout, ran.stderr));
    assert!(
        ran.stderr.contains("portforward"),
        "no port-forward request in the log:\n{}",
        ran.stderr
    );
    let c = ran.ok_json();
    assert_eq!(
        roles(&c),
        server_roles(&[
            ("rig-0-0", "replica"),
            ("rig-0-1", "primary"),
            ("rig-1-0", "primary"),
            ("rig-1-1", "replica"),
        ]),
        "{}\n{c:#}",
        ran.stderr
    );
    // Nothing in the API named rig-0-1 primary: a failover the operator
    // did not make, in the timeline at the time its server said so.
    let unplanned: Vec<&Value> = c["timeline"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["reason"] == "UnplannedFailover")
        .collect();
    assert_eq!(unplanned.len(), 1, "{c:#}");
    assert_eq!(unplanned[0]["regarding"], "ValkeyNode/rig-0-1", "{c:#}");
    assert!(
        unplanned[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not rig-0-0: a failover the operator did not make")),
        "{c:#}"
    );
    // A bundle keeps the readings: its history picture marks it too.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bundle.yaml");
    let f = file.display().to_string();
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["bundle", CLUSTER, "--output-file", &f],
    )
    .await;
    assert_eq!(ran.code, 0, "{}", ran.both());
    let svg = harness::plugin::run(&["-f", &f, "-n", &ns, "history", CLUSTER, "-o", "svg"]);
    assert!(
        svg.stdout
            .contains("a failover the operator did not make, seen at"),
        "{}",
        svg.both()
    );
    // Shard 1's replica comes back with a wrong primaryauth: its link
    // stays down, and the shard has no synced replica, by the servers.
    link_down(&mut servers, &pw, "rig-1-1").await;
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["status", CLUSTER, "--servers=direct", "-o", "json"],
    )
    .await;
    let c = cluster(&ran.ok_json());
    let risk = c["risks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["kind"] == "NoSyncedReplica")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(
        (&risk["replicas"][0]["node"], &risk["replicas"][0]["link"]),
        (&json!("rig-1-1"), &json!("down")),
        "{c:#}"
    );
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["status", CLUSTER, "--servers=direct"],
    )
    .await;
    assert!(
        ran.stdout.contains("shard 1 has no synced replica"),
        "{}",
        ran.both()
    );

    // Without --servers the API's judgement, as before.
    let ran = run_in(cp.kubeconfig(), &ns, &["status", CLUSTER, "-o", "json"]).await;
    let c = cluster(&ran.ok_json());
    assert!(
        roles(&c).values().all(|(_, source)| source != "server"),
        "{c:#}"
    );
    op.stop().await;
}

/// Servers asked for and none read are said on the verdict too (issue 43
/// item 3): the headline, and wait, which does not succeed on a cluster
/// whose servers were asked and not read (it was Converged by the API:
/// exit 0 before), and says why; without --servers it is done at once.
async fn not_read_on_the_verdict(ns: &str) {
    let ran = run_in(
        harness::control_plane().kubeconfig(),
        ns,
        &["status", CLUSTER, "--servers=direct"],
    )
    .await;
    let headline = ran.stdout.lines().next().unwrap_or_default();
    assert!(
        headline.contains("CONVERGED · servers: none of 4 read"),
        "{}",
        ran.both()
    );
    let ran = run_in(
        harness::control_plane().kubeconfig(),
        ns,
        &["wait", CLUSTER, "--servers=direct", "--timeout", "6s"],
    )
    .await;
    eprintln!("wait with no server read:\n{}", ran.both());
    assert_eq!(ran.code, 5, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("Converged · servers: none of 4 read; waiting until they are read")
            && ran
                .stderr
                .contains("is Converged by the API alone; servers: none of 4 read"),
        "{}",
        ran.both()
    );
    // Without --servers the same cluster is done at once.
    let ran = run_in(
        harness::control_plane().kubeconfig(),
        ns,
        &["wait", CLUSTER, "--timeout", "30s"],
    )
    .await;
    assert_eq!(ran.code, 0, "{}", ran.both());
}

#[tokio::test(flavor = "multi_thread")]
async fn servers_not_read_are_one_line_each_and_no_password_shows() {
    let _pods = PODS.read().await;
    let (op, ns, pw, mut servers) = rig("servers-hostile").await;
    let cp = harness::control_plane();
    let client = cp.client().await;

    // No Secret: one line, the API's judgement stands.
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["status", CLUSTER, "--servers=direct", "-o", "json"],
    )
    .await;
    let c = cluster(&ran.ok_json());
    assert!(
        ran.stderr.contains("no read-only user") && ran.stderr.lines().count() == 1,
        "{}",
        ran.stderr
    );
    assert!(roles(&c).values().all(|(_, s)| s != "server"), "{c:#}");
    // ... exactly as without --servers: no note on every role.
    let plain = run_in(cp.kubeconfig(), &ns, &["status", CLUSTER, "-o", "json"]).await;
    assert_eq!(c["nodes"], cluster(&plain.ok_json())["nodes"], "{c:#}");
    assert_eq!(
        c["servers"],
        json!({"read": 0, "unread": 4, "observedAt": null}),
        "{c:#}"
    );
    not_read_on_the_verdict(&ns).await;

    // A wrong password: every server refuses it.
    let wrong = Passwords::for_cluster("someone-else");
    make_secret(&client, &ns, &wrong).await;
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &[
            "status",
            CLUSTER,
            "--servers=direct",
            "-o",
            "json",
            "-v",
            "8",
        ],
    )
    .await;
    assert!(
        ran.stderr
            .contains("4 of 4 servers of cluster rig not read")
            && ran.stderr.contains("refused the password"),
        "{}",
        ran.stderr
    );
    assert_no_password(
        &wrong,
        "the output",
        &format!("{}{}", ran.stdout, ran.stderr),
    );
    not_read_on_the_verdict(&ns).await;
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
    secrets
        .delete(
            &format!("internal-{CLUSTER}-system-passwords"),
            &DeleteParams::default(),
        )
        .await
        .unwrap();
    eventually("the Secret gone", BOUND, || {
        let secrets = secrets.clone();
        async move {
            match secrets
                .get_opt(&format!("internal-{CLUSTER}-system-passwords"))
                .await
            {
                Ok(None) => Ok(()),
                other => Err(format!("{other:?}")),
            }
        }
    })
    .await;
    make_secret(&client, &ns, &pw).await;

    // RBAC: a reader who may get the Secret but not port-forward (each
    // server forbidden), and one who may not get the Secret (one line).
    let reader = json!([
        {"apiGroups": ["valkey.io"], "resources": ["valkeyclusters", "valkeynodes"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["apps"], "resources": ["statefulsets", "deployments"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["pods", "events"], "verbs": ["get", "list", "watch"]},
    ]);
    let mut with_secret = reader.clone();
    with_secret.as_array_mut().unwrap().push(json!({
        "apiGroups": [""], "resources": ["secrets"],
        "resourceNames": [format!("internal-{CLUSTER}-system-passwords")], "verbs": ["get"],
    }));
    harness::bind(&client, &ns, "lena", Subject::User("lena"), with_secret).await;
    harness::bind(&client, &ns, "omar", Subject::User("omar"), reader).await;
    let lena = cp.mint_user_in("lena", &[], &ns);
    let omar = cp.mint_user_in("omar", &[], &ns);
    let ran = run_in(&lena, &ns, &["explain", CLUSTER, "-o", "json", "-v", "8"]).await;
    assert!(
        ran.stderr
            .contains("4 of 4 servers of cluster rig not read")
            && ran.stderr.contains("forbidden"),
        "{}",
        ran.stderr
    );
    assert_no_password(&pw, "the output", &format!("{}{}", ran.stdout, ran.stderr));
    let ran = run_in(&omar, &ns, &["explain", CLUSTER, "-o", "json"]).await;
    assert!(
        ran.stderr.contains(&format!(
            "reading Secret internal-{CLUSTER}-system-passwords is forbidden"
        )),
        "{}",
        ran.stderr
    );
    assert_eq!(ran.code, 0, "{}", ran.both());

    // One server gone: the other three read, the one named.
    servers.get_mut("rig-1-1").unwrap().kill();
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &[
            "explain",
            CLUSTER,
            "--servers=direct",
            "-o",
            "json",
            "-v",
            "8",
        ],
    )
    .await;
    assert!(
        ran.stderr
            .contains("1 of 4 servers of cluster rig not read")
            && ran.stderr.contains("unreachable"),
        "{}",
        ran.stderr
    );
    assert_no_password(&pw, "the output", &format!("{}{}", ran.stdout, ran.stderr));

    // In its place, a server that hangs, one that answers garbage, one
    // that sends a reply of a gigabyte: each bounded and named, the other
    // three servers read all the same.
    let ip = servers["rig-1-1"].ip.clone();
    for (fake, named) in [
        (Fake::Hang, "timed out"),
        (Fake::Garbage, "answered garbage"),
        (Fake::Huge, "sent a reply too large"),
        (Fake::Close, "closed the connection early"),
        // Issue 42: 50,000 levels of nesting aborted the process (exit 134).
        (Fake::Deep, "answered garbage"),
    ] {
        let listener = tokio::net::TcpListener::bind((ip.as_str(), valkey::PORT))
            .await
            .unwrap();
        let serving = tokio::spawn(fake.serve(listener));
        let started = std::time::Instant::now();
        let ran = run_in(
            cp.kubeconfig(),
            &ns,
            &[
                "status",
                CLUSTER,
                "--servers=direct",
                "-o",
                "json",
                "-v",
                "8",
            ],
        )
        .await;
        let took = started.elapsed();
        serving.abort();
        let _ = serving.await;
        let c = cluster(&ran.ok_json());
        assert!(
            ran.stderr
                .contains("1 of 4 servers of cluster rig not read")
                && ran.stderr.contains(named),
            "{fake:?}: {}",
            ran.stderr
        );
        assert!(took < Duration::from_secs(20), "{fake:?} took {took:?}");
        let r = roles(&c);
        assert_eq!(
            r.values().filter(|(_, s)| s == "server").count(),
            3,
            "{fake:?}: {c:#}"
        );
        assert_no_password(&pw, "the output", &format!("{}{}", ran.stdout, ran.stderr));
    }
    op.stop().await;
}

/// The operator rolled shard 0's replica and stopped before its primary;
/// the replica's new server cannot sync (a wrong primaryauth): the servers
/// say why the roll waits at the primary.
#[tokio::test(flavor = "multi_thread")]
async fn the_front_primary_waits_for_its_replica_to_sync() {
    let _pods = PODS.write().await;
    let (op, ns, pw, mut servers, client) = rig_readable("servers-wait").await;
    let cp = harness::control_plane();

    op.stop_after_step(|s| *s == Step::NodeReady("rig-0-1".into()));
    op.sim
        .edit_cluster_spec(json!({"image": "valkey/valkey:9.0.1"}))
        .await;
    op.until_halted(BOUND).await;
    // rig-0-1's pod was replaced: its old server goes, a new one at the
    // new pod's IP joins as the operator makes a rolled replica join
    // (MEET, REPLICATE), with a primaryauth the primary refuses.
    servers.remove("rig-0-1").unwrap().kill();
    let ip = pod_ips(&client, &ns, 4).await["rig-0-1"].clone();
    let primary = servers["rig-0-0"].ip.clone();
    let _fresh = rejoin_unsynced(&ip, &primary, &pw).await;

    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["status", CLUSTER, "--servers=direct", "-o", "json"],
    )
    .await;
    let c = cluster(&ran.ok_json());
    assert_eq!(
        (&c["deferred"]["node"], &c["deferred"]["source"]),
        (&json!("rig-0-0"), &json!("servers")),
        "{}\n{c:#}",
        ran.stderr
    );
    assert!(
        c["reason"].as_str().is_some_and(|r| r.contains("rig-0-1")),
        "{c:#}"
    );
    // Without the servers, nothing says which replica: the reason says
    // what the operator does before rolling a primary, and where to look.
    // The roles as the real operator writes them (this rig's simulated
    // operator has no model of the servers to read them from).
    write_roles(&op).await;
    let ran = run_in(cp.kubeconfig(), &ns, &["status", CLUSTER, "-o", "json"]).await;
    let c = cluster(&ran.ok_json());
    assert_eq!(c["deferred"], Value::Null, "{c:#}");
    assert!(
        c["reason"]
            .as_str()
            .is_some_and(|r| r.contains("rig-0-0 is next")
                && r.contains("first waits for a replica of shard 0 to sync, then fails it over")
                && r.contains("explain reads the servers")),
        "{c:#}"
    );

    // `wait --servers` is not done while the operator holds the primary
    // back: still Waiting at its timeout, saying for whom it waits.
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["wait", CLUSTER, "--servers=direct", "--timeout", "8s"],
    )
    .await;
    assert_eq!(ran.code, 5, "{}", ran.both());
    assert!(
        ran.stderr.contains("is still Waiting") && ran.stderr.contains("rig-0-1 to sync"),
        "{}",
        ran.both()
    );
    assert_no_password(&pw, "wait's output", &ran.both());
    // Past the stall threshold it is Stalled (exit 3), and says why.
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &[
            "wait",
            CLUSTER,
            "--servers=direct",
            "--stall-threshold",
            "1s",
            "--timeout",
            "60s",
        ],
    )
    .await;
    assert_eq!(ran.code, 3, "{}", ran.both());
    assert!(ran.stderr.contains("rig-0-1 to sync"), "{}", ran.both());
    op.stop().await;
}

/// The document with the readings' times and replication lags left out: a
/// bundle's readings were taken a moment apart from a live command's.
fn without_observed_at(mut doc: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                if let Some(Value::Object(s)) = map.get_mut("servers") {
                    s.remove("observedAt");
                }
                // A node's own reading: its time, and its lag, which moves
                // with every PING a primary sends its replicas.
                if let Some(Value::Object(s)) = map.get_mut("server") {
                    s.remove("observedAt");
                }
                map.remove("lagBytes");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut doc);
    doc
}

/// `bundle` keeps what the servers said (by default, through the
/// port-forward, as `explain` reads them): `explain -f` and `status -f`
/// of the bundle say what they say live, a shard at risk by the servers
/// included, and no password is in the bundle.
#[tokio::test(flavor = "multi_thread")]
async fn a_bundle_keeps_what_the_servers_said() {
    let _pods = PODS.read().await;
    let (op, ns, pw, mut servers, _) = rig_readable("servers-bundle").await;
    let cp = harness::control_plane();
    link_down(&mut servers, &pw, "rig-1-1").await;

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bundle.yaml");
    let f = file.display().to_string();
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["bundle", CLUSTER, "--output-file", &f],
    )
    .await;
    assert_eq!(ran.code, 0, "{}", ran.both());
    let text = std::fs::read_to_string(&file).unwrap();
    assert_no_password(&pw, "the bundle", &text);
    let list: Value = serde_saphyr::from_str(&text).unwrap();
    let readings: Vec<&Value> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["kind"] == "ServerReading")
        .collect();
    assert_eq!(readings.len(), 4, "{text}");
    assert!(
        readings
            .iter()
            .all(|r| r["apiVersion"] == "valkey-roll.io/v1alpha1" && r["error"].is_null()),
        "{text}"
    );

    let now = jiff::Timestamp::now().to_string();
    let offline = |args: &[&str]| {
        let mut all = vec!["-f", f.as_str(), "-n", ns.as_str()];
        all.extend_from_slice(args);
        harness::plugin::run(&all)
    };
    for args in [
        vec!["explain", CLUSTER, "--now", &now],
        vec!["explain", "rig-1-0", "--now", &now],
        vec!["explain", CLUSTER, "-o", "json", "--now", &now],
        vec!["status", CLUSTER, "-o", "json", "--now", &now],
        vec!["status", CLUSTER, "--now", &now],
    ] {
        let mut live_args = args.clone();
        if args[0] == "status" {
            live_args.push("--servers");
        }
        let l = run_in(cp.kubeconfig(), &ns, &live_args).await;
        let o = offline(&args);
        assert_eq!(
            (l.code, o.code),
            (0, 0),
            "{args:?}\n{}\n{}",
            l.both(),
            o.both()
        );
        if args.contains(&"json") {
            let (lj, oj) = (l.ok_json(), o.ok_json());
            assert_eq!(
                without_observed_at(lj.clone()),
                without_observed_at(oj),
                "{args:?}"
            );
            let c = if args[0] == "status" {
                cluster(&lj)
            } else {
                lj
            };
            assert!(
                c["risks"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|r| r["kind"] == "NoSyncedReplica")),
                "{c:#}"
            );
        } else {
            assert_eq!(l.stdout, o.stdout, "{args:?}: live and bundle differ");
        }
    }
    // --servers=off keeps none.
    let ran = run_in(cp.kubeconfig(), &ns, &["bundle", CLUSTER, "--servers=off"]).await;
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(!ran.stdout.contains("ServerReading"), "{}", ran.stdout);
    op.stop().await;
}

/// The risks of kind `kind` in a cluster's entry.
fn risk_of(c: &Value, kind: &str) -> Option<Value> {
    c["risks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["kind"] == kind)
        .cloned()
}

/// `status --watch --servers` reads the servers again on its clock: a
/// replica whose link goes down, with no API write, is a shard at risk in
/// the next report, within the interval (5 s) and the reading's bound.
#[tokio::test(flavor = "multi_thread")]
async fn the_watch_sees_the_servers_change_with_no_api_write() {
    let _pods = PODS.read().await;
    let (op, ns, pw, mut servers, _) = rig_readable("servers-watch").await;
    let cp = harness::control_plane();

    let mut watch = Plugin::spawn(
        cp.kubeconfig(),
        &ns,
        &[
            "status",
            CLUSTER,
            "--watch",
            "--servers=direct",
            "-o",
            "json",
        ],
        BOUND,
    );
    let reports = |p: &Plugin| -> Vec<Value> {
        p.stdout
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    };
    watch
        .until("a first report with every role from its server", |p| {
            reports(p).iter().any(|d| {
                roles(&cluster(d))
                    .values()
                    .all(|(_, source)| source == "server")
            })
        })
        .await;
    let before = reports(&watch).len();
    assert!(
        reports(&watch)
            .iter()
            .all(|d| risk_of(&cluster(d), "NoSyncedReplica").is_none()),
        "{}",
        watch.transcript()
    );
    // The replica's link goes down: nothing is written to the API.
    link_down(&mut servers, &pw, "rig-1-1").await;
    let down = std::time::Instant::now();
    watch
        .until("a report of shard 1 at risk", |p| {
            reports(p).iter().skip(before).any(|d| {
                risk_of(&cluster(d), "NoSyncedReplica")
                    .is_some_and(|r| r["replicas"][0]["node"] == "rig-1-1")
            })
        })
        .await;
    let took = down.elapsed();
    eprintln!("the risk showed {took:?} after the link went down");
    // REREAD (5 s), a reading (3 s at most per server), and slack for a
    // busy machine.
    assert!(
        took < Duration::from_secs(15),
        "the risk showed {took:?} after the link went down\n{}",
        watch.transcript()
    );
    assert_no_password(
        &pw,
        "the watch",
        &format!("{}{}", watch.stdout.join("\n"), watch.stderr.join("\n")),
    );
    watch.interrupt();
    let status = watch.exit(BOUND).await;
    assert_eq!(status.code(), Some(0), "{}", watch.transcript());
    op.stop().await;
}
