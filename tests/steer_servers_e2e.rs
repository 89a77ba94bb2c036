//! Steering with the servers' word (docs/plugin.md; issue 41), on the real
//! control plane with the simulated operator and a real valkey-server for
//! every pod (tests/harness/valkey_rig.rs):
//!
//! - the walk's front is shard 0's primary and its rolled replica cannot
//!   sync (a wrong primaryauth, its pod Ready): `grant PRIMARY
//!   --allow-primary` is refused NoSyncedReplica naming the replica, and
//!   nothing is written (every object's resourceVersion as it was); once
//!   the replica is synced the same grant is written, and its Event and
//!   annotation carry the servers' line;
//! - a failover Valkey made by itself: the new primary (by its server) is
//!   refused as Primary with `roleSource: server`; the old one, a replica
//!   by its server, is not refused for its role; `--servers=off` decides
//!   from the API alone and says so (ServersUnread), as does a reader
//!   who may not read the Secret;
//! - P1 (the same rig as a P1 operator leaves it, valkey_rig::rig_p1):
//!   shard 0's primary asks to roll and its only replica's link is down;
//!   `force PRIMARY --reason` is refused NoSyncedReplica naming the
//!   replica, as is `--unsafe-shard 1` (the wrong shard), and nothing is
//!   written; `--unsafe-shard 0` writes the permit, and its Event and
//!   annotation carry the servers' line;
//! - the password is in no plan, Event, annotation or log.

mod harness;

use std::collections::BTreeMap;

use harness::Subject;
use harness::operator::Step;
use harness::plugin::run_in;
use harness::sim::{ANN_ALLOW, hash};
use harness::valkey::{self, OPERATOR};
use harness::valkey_rig::{
    BOUND, CLUSTER, assert_no_password, link_down, pod_ips, rejoin_unsynced, rig_p1, rig_readable,
    until_link, write_roles,
};
use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, ListParams};
use serde_json::{Value, json};

/// Held for writing by the test whose roll replaces a pod (its new pod's
/// IP may be one another test's pod still serves on), for reading by the
/// other.
static PODS: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// A revision to grant: the front of a Spec-driven roll asks for none.
const REVISION: &str = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f";

/// The codes of a steering document's `reasons` or `warnings`.
fn codes(doc: &Value, key: &str) -> Vec<String> {
    doc[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["code"].as_str().map(str::to_string))
        .collect()
}

fn said<'a>(doc: &'a Value, key: &str, code: &str) -> Option<&'a Value> {
    doc[key]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["code"] == code)
}

/// The ValkeyCluster's, every ValkeyNode's and pod's resourceVersion in
/// `ns`.
async fn versions(client: &kube::Client, ns: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (what, kind) in [("cluster", "ValkeyCluster"), ("node", "ValkeyNode")] {
        let api: Api<kube::api::DynamicObject> = Api::namespaced_with(
            client.clone(),
            ns,
            &kube::api::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
                "valkey.io",
                "v1alpha1",
                kind,
            )),
        );
        for o in api.list(&ListParams::default()).await.unwrap().items {
            out.insert(
                format!("{what}/{}", o.metadata.name.unwrap_or_default()),
                o.metadata.resource_version.unwrap_or_default(),
            );
        }
    }
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client.clone(), ns);
    for p in pods.list(&ListParams::default()).await.unwrap().items {
        out.insert(
            format!("pod/{}", p.metadata.name.unwrap_or_default()),
            p.metadata.resource_version.unwrap_or_default(),
        );
    }
    out
}

/// How many Events `ns` holds.
async fn event_count(client: &kube::Client, ns: &str) -> usize {
    let events: Api<Event> = Api::namespaced(client.clone(), ns);
    events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .len()
}

async fn manual_events(client: &kube::Client, ns: &str) -> Vec<Event> {
    let events: Api<Event> = Api::namespaced(client.clone(), ns);
    events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| {
            e.reason
                .as_deref()
                .is_some_and(|r| r.starts_with("ManualRollPermit"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_primary_without_a_synced_replica_is_not_granted_until_one_syncs() {
    let _pods = PODS.write().await;
    let (op, ns, pw, mut servers, client) = rig_readable("steer-sync").await;
    let cp = harness::control_plane();
    // The roles as the real operator writes them.
    write_roles(&op).await;
    // A roll that has rolled shard 0's replica and stops before its
    // primary, the walk's front.
    op.stop_after_step(|s| *s == Step::NodeReady("rig-0-1".into()));
    op.sim
        .edit_cluster_spec(json!({"image": "valkey/valkey:9.0.1"}))
        .await;
    op.until_halted(BOUND).await;
    // rig-0-1's new pod's server joins with a primaryauth the primary
    // refuses: its link stays down, its pod Ready.
    servers.remove("rig-0-1").unwrap().kill();
    let ip = pod_ips(&client, &ns, 4).await["rig-0-1"].clone();
    let primary = servers["rig-0-0"].ip.clone();
    let mut fresh = rejoin_unsynced(&ip, &primary, &pw).await;

    let grant = [
        "grant",
        "rig-0-0",
        "--allow-primary",
        "--revision",
        REVISION,
        "--reason",
        "by hand",
        "--yes",
        "--servers=direct",
        "-o",
        "json",
        "-v",
        "8",
    ];
    let before = versions(&client, &ns).await;
    let ran = run_in(cp.kubeconfig(), &ns, &grant).await;
    assert_eq!(ran.code, 4, "{}", ran.both());
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let refusal = said(&doc, "reasons", "NoSyncedReplica")
        .unwrap_or_else(|| panic!("no NoSyncedReplica: {doc:#}"));
    assert_eq!(
        (
            &refusal["shard"],
            &refusal["replicas"][0]["node"],
            &refusal["replicas"][0]["link"]
        ),
        (&json!(0), &json!("rig-0-1"), &json!("down")),
        "{doc:#}"
    );
    assert!(
        refusal["text"]
            .as_str()
            .is_some_and(|t| t.contains("rig-0-1 link down")
                && t.contains("--allow-primary does not go past")),
        "{doc:#}"
    );
    // The readings it used, shown before anything: both servers of shard 0.
    assert_eq!(doc["servers"]["shard"], json!(0), "{doc:#}");
    let used: Vec<(&Value, &Value)> = doc["servers"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| (&n["node"], &n["role"]))
        .collect();
    assert_eq!(
        used,
        vec![
            (&json!("rig-0-0"), &json!("primary")),
            (&json!("rig-0-1"), &json!("replica"))
        ],
        "{doc:#}"
    );
    assert_eq!(
        versions(&client, &ns).await,
        before,
        "a refused grant wrote"
    );
    assert!(manual_events(&client, &ns).await.is_empty());
    assert_no_password(&pw, "a refused plan", &ran.both());
    // The text says it too, with the readings, on 80 columns.
    let text = run_in(
        cp.kubeconfig(),
        &ns,
        &[
            "grant",
            "rig-0-0",
            "--allow-primary",
            "--revision",
            REVISION,
            "--servers=direct",
        ],
    )
    .await;
    assert_eq!(text.code, 4, "{}", text.both());
    assert!(
        text.stderr.contains("servers of shard 0, as read:")
            && text.stderr.contains("link down, not synced"),
        "{}",
        text.stderr
    );

    // Offline: a bundle taken now gives the same plan as the live run.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bundle.yaml");
    let f = file.display().to_string();
    let bundled = run_in(
        cp.kubeconfig(),
        &ns,
        &["bundle", CLUSTER, "--servers=direct", "--output-file", &f],
    )
    .await;
    assert_eq!(bundled.code, 0, "{}", bundled.both());
    let dry = [
        "grant",
        "rig-0-0",
        "--allow-primary",
        "--revision",
        REVISION,
        "--dry-run=client",
        "-o",
        "json",
    ];
    let live = run_in(
        cp.kubeconfig(),
        &ns,
        &[&dry[..], &["--servers=direct"]].concat(),
    )
    .await;
    let offline = harness::plugin::run(&[&["-f", &f, "-n", &ns][..], &dry[..]].concat());
    let (live, offline): (Value, Value) = (
        serde_json::from_str(&live.stdout).unwrap_or(Value::Null),
        serde_json::from_str(&offline.stdout).unwrap_or(Value::Null),
    );
    let gist = |d: &Value| {
        let servers: Vec<Value> = d["servers"]["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|n| json!([n["node"], n["role"], n["link"], n["synced"]]))
            .collect();
        (codes(d, "reasons"), servers, d["exitCode"].clone())
    };
    assert_eq!(gist(&offline), gist(&live), "{offline:#}\n{live:#}");
    assert_eq!(codes(&live, "reasons"), ["NoSyncedReplica"], "{live:#}");
    assert_no_password(&pw, "the bundle", &std::fs::read_to_string(&file).unwrap());

    // The replica is fixed and syncs: the same grant is written.
    fresh.restart_with_primaryauth(&pw, &pw.replication).await;
    until_link(&ip, &pw, "up").await;
    let ran = run_in(cp.kubeconfig(), &ns, &grant).await;
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(doc["decision"], "written", "{doc:#}");
    let events = manual_events(&client, &ns).await;
    let note = events
        .iter()
        .find_map(|e| e.message.clone())
        .unwrap_or_default();
    assert!(
        note.contains("the servers said: shard 0: rig-0-0 primary; rig-0-1 replica link up lag"),
        "{events:?}"
    );
    let node = op.sim.node("rig-0-0").get().await;
    let annotation = node
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("valkey-roll.io/servers"))
        .cloned();
    assert!(
        annotation
            .as_deref()
            .is_some_and(|a| a.starts_with("shard 0: rig-0-0 primary; rig-0-1 replica link up")),
        "{annotation:?}"
    );
    assert_no_password(
        &pw,
        "the written plan, its Event and annotation",
        &format!("{}{}{note}{annotation:?}", ran.stdout, ran.stderr),
    );
    op.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failover_valkey_made_decides_who_is_the_primary() {
    let _pods = PODS.read().await;
    let (op, ns, pw, mut servers, client) = rig_readable("steer-failover").await;
    let cp = harness::control_plane();
    write_roles(&op).await;
    // Shard 0's primary dies and its replica takes over, as Valkey would;
    // the old primary comes back and follows it. The API still says
    // rig-0-0 is the primary.
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
    valkey::settled(&shards, &pw, std::time::Duration::from_secs(60)).await;

    let plan = |node: &'static str, servers_flag: &'static str, kubeconfig: std::path::PathBuf| {
        let ns = ns.clone();
        async move {
            run_in(
                &kubeconfig,
                &ns,
                &[
                    "grant",
                    node,
                    "--revision",
                    REVISION,
                    "--dry-run=client",
                    servers_flag,
                    "-o",
                    "json",
                ],
            )
            .await
        }
    };
    let kc = cp.kubeconfig().to_path_buf();
    // The new primary, by its server: refused as Primary, roleSource server.
    let ran = plan("rig-0-1", "--servers=direct", kc.clone()).await;
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    let primary = said(&doc, "reasons", "Primary");
    assert_eq!(
        primary.map(|p| (&p["node"], &p["roleSource"])),
        Some((&json!("rig-0-1"), &json!("server"))),
        "{}",
        ran.both()
    );
    assert!(
        !codes(&doc, "warnings").contains(&"ServersUnread".to_string()),
        "{doc:#}"
    );
    // Through the port-forward too (the default).
    let ran = plan("rig-0-1", "--servers=port-forward", kc.clone()).await;
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    assert_eq!(
        said(&doc, "reasons", "Primary").map(|p| &p["roleSource"]),
        Some(&json!("server")),
        "{}",
        ran.both()
    );
    // The old primary, a replica by its server: not refused for its role.
    let ran = plan("rig-0-0", "--servers=direct", kc.clone()).await;
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    assert!(
        !codes(&doc, "reasons").contains(&"Primary".to_string()),
        "{doc:#}"
    );
    assert!(doc["reasons"].is_array(), "{}", ran.both());
    // From the API alone the roles are the other way round, and the plan
    // says it decided without the servers.
    let ran = plan("rig-0-0", "--servers=off", kc.clone()).await;
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    assert!(
        codes(&doc, "reasons").contains(&"Primary".to_string()),
        "{doc:#}"
    );
    assert_eq!(
        said(&doc, "warnings", "ServersUnread").map(|w| &w["cause"]),
        Some(&json!("off")),
        "{doc:#}"
    );
    // A reader who may not read the Secret: the same, saying why.
    let reader = json!([
        {"apiGroups": ["valkey.io"], "resources": ["valkeyclusters", "valkeynodes"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["apps"], "resources": ["statefulsets", "deployments"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["pods", "events"], "verbs": ["get", "list", "watch"]},
    ]);
    harness::bind(&client, &ns, "omar", Subject::User("omar"), reader).await;
    let omar = cp.mint_user_in("omar", &[], &ns);
    let ran = plan("rig-0-0", "--servers=direct", omar).await;
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    let unread = said(&doc, "warnings", "ServersUnread")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(unread["cause"], json!("cluster"), "{}", ran.both());
    assert!(
        unread["text"]
            .as_str()
            .is_some_and(|t| t.contains("forbidden")),
        "{unread:#}"
    );
    assert_no_password(&pw, "the plans", &ran.both());
    op.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn p1_force_of_a_primary_without_a_synced_replica_needs_its_shard_typed_out() {
    let _pods = PODS.read().await;
    let (sim, ns, pw, mut servers, client) = rig_p1("steer-force").await;
    let cp = harness::control_plane();
    // Shard 0's only replica cannot sync (a wrong primaryauth); its
    // primary asks to roll, as a P1 node controller asks.
    link_down(&mut servers, &pw, "rig-0-1").await;
    let h = hash("rig-0-0/p1-force");
    sim.ask(&["rig-0-0"], &h).await;

    let force = |more: &[&'static str]| {
        let mut args = vec![
            "force",
            "rig-0-0",
            "--reason",
            "by hand",
            "--yes",
            "--servers=direct",
            "-o",
            "json",
        ];
        args.extend_from_slice(more);
        args
    };
    let refused = |ran: &harness::plugin::Ran, shard: &Value| {
        assert_eq!(ran.code, 4, "{}", ran.both());
        let doc: Value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
        assert_eq!(doc["decision"], "refused", "{}", ran.both());
        let refusal = said(&doc, "reasons", "NoSyncedReplica")
            .unwrap_or_else(|| panic!("no NoSyncedReplica: {doc:#}"));
        assert_eq!(
            (
                &refusal["node"],
                &refusal["shard"],
                &refusal["replicas"][0]["node"],
                &refusal["replicas"][0]["link"]
            ),
            (&json!("rig-0-0"), shard, &json!("rig-0-1"), &json!("down")),
            "{doc:#}"
        );
        assert!(
            refusal["text"]
                .as_str()
                .is_some_and(|t| t.contains("rig-0-1 link down")
                    && t.contains("only force --reason TEXT --unsafe-shard 0 does")),
            "{doc:#}"
        );
        assert!(
            doc["patches"].as_array().is_none_or(Vec::is_empty),
            "{doc:#}"
        );
    };

    // Without --unsafe-shard, and with the wrong shard: refused, nothing
    // written.
    let before = versions(&client, &ns).await;
    let events_before = event_count(&client, &ns).await;
    let ran = run_in(cp.kubeconfig(), &ns, &force(&[])).await;
    refused(&ran, &json!(0));
    assert_no_password(&pw, "a refused force", &ran.both());
    let wrong = run_in(cp.kubeconfig(), &ns, &force(&["--unsafe-shard", "1"])).await;
    refused(&wrong, &json!(0));
    assert_no_password(&pw, "a refused force", &wrong.both());
    // The right one asks first, saying what may be lost: off a terminal
    // without --yes, its plan is refused with the question it would ask.
    let dry = run_in(
        cp.kubeconfig(),
        &ns,
        &[
            "force",
            "rig-0-0",
            "--reason",
            "by hand",
            "--unsafe-shard",
            "0",
            "--servers=direct",
            "--dry-run=client",
        ],
    )
    .await;
    assert_eq!(dry.code, 4, "{}", dry.both());
    let flat = dry.both().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("It would ask: This forces the permit")
            && flat.contains("shard 0 has no synced replica (rig-0-1 link down")
            && flat.contains("is lost if its data does not come back with it"),
        "{}",
        dry.both()
    );
    assert_eq!(
        versions(&client, &ns).await,
        before,
        "a refused force wrote"
    );
    assert_eq!(event_count(&client, &ns).await, events_before);
    assert!(manual_events(&client, &ns).await.is_empty());
    assert!(sim.permit_holders().await.is_empty());

    // The shard typed out: the permit is written, and its Event and
    // annotation carry the servers' line.
    let ran = run_in(cp.kubeconfig(), &ns, &force(&["--unsafe-shard", "0"])).await;
    assert_eq!(ran.code, 0, "{}", ran.both());
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    assert_eq!(doc["decision"], "written", "{}", ran.both());
    assert!(
        codes(&doc, "warnings").contains(&"NoSyncedReplica".to_string()),
        "{doc:#}"
    );
    let node = sim.node("rig-0-0").get().await;
    let annotation = |key: &str| {
        node.metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(annotation(ANN_ALLOW), h);
    assert_eq!(sim.permit_holders().await, ["rig-0-0"]);
    let line = annotation("valkey-roll.io/servers");
    // The replica's gap, if its server gave one, is what it was then.
    let gap = line.strip_prefix("shard 0: rig-0-0 primary; rig-0-1 replica link down");
    assert!(
        gap.is_some_and(|g| g.is_empty()
            || g.strip_prefix(" lag ")
                .and_then(|b| b.strip_suffix(" B"))
                .is_some_and(|b| b.parse::<u64>().is_ok())),
        "{line:?}"
    );
    let events = manual_events(&client, &ns).await;
    let forced: Vec<(Option<&str>, Option<&str>, &str)> = events
        .iter()
        .map(|e| {
            (
                e.reason.as_deref(),
                e.type_.as_deref(),
                e.message.as_deref().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(forced.len(), 1, "{events:?}");
    let (reason, kind, note) = forced[0];
    assert_eq!(
        (reason, kind),
        (Some("ManualRollPermitForced"), Some("Warning")),
        "{events:?}"
    );
    assert!(
        note.ends_with(&format!("; the servers said: {line}")),
        "{note:?}"
    );
    assert_no_password(
        &pw,
        "the forced plan, its Event and annotations",
        &format!(
            "{}{}{note}{:?}",
            ran.stdout, ran.stderr, node.metadata.annotations
        ),
    );
}
