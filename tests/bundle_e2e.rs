//! `bundle` end to end on a real API server (tests/harness): the simulated
//! operator writes a roll, a person grants by hand, a pod crash-loops, and
//! `status -f`, `explain -f` on the bundle must say exactly what they say
//! live at that moment (issue 14, item 1).
//!
//! `eval "$(bash testbin/build.sh kube etcd)"; export KUBE_APISERVER KUBECTL ETCD`,
//! then `cargo test --features test-hooks,fixture --test bundle_e2e`.

mod harness;

use harness::plugin::{Ran, run as plugin};
use harness::sim::{self, Layout, Sim};
use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn live(ns: &str, args: &[&str]) -> Ran {
    let kc = harness::server().kubeconfig().display().to_string();
    let mut all = vec!["--kubeconfig", kc.as_str(), "-n", ns];
    all.extend_from_slice(args);
    plugin(&all)
}

fn offline(file: &Path, ns: &str, args: &[&str]) -> Ran {
    let f = file.display().to_string();
    let mut all = vec!["-f", f.as_str(), "-n", ns];
    all.extend_from_slice(args);
    plugin(&all)
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn clock_in(seconds: i64) -> String {
    sim::fmt_time(Timestamp::now() + SignedDuration::from_secs(seconds))
}

/// `bundle` of `ns` (and `extra` arguments) into a file of the test's workdir.
fn bundle(ns: &str, label: &str, extra: &[&str]) -> PathBuf {
    let dir = harness::server().workdir().join("bundles");
    std::fs::create_dir_all(&dir).expect("bundles directory");
    let path = dir.join(format!("{ns}-{label}"));
    let p = path.display().to_string();
    let mut args = vec!["bundle", "--output-file", p.as_str()];
    args.extend_from_slice(extra);
    let ran = live(ns, &args);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(ran.stderr.contains("wrote "), "{}", ran.both());
    path
}

/// `explain`'s text with the log part of its "Last words" sections left
/// out (every line after the container and its last termination): a
/// bundle holds no logs, so there explain says so instead. Offline, that
/// part must be exactly the one line that says so.
fn without_logs(text: &str, offline: bool) -> String {
    let mut out = Vec::new();
    let mut in_words = None;
    for line in text.lines() {
        if line == "Last words" || line.starts_with("Last words of ") {
            in_words = Some(0);
            out.push(line);
            continue;
        }
        match in_words {
            Some(_) if line.is_empty() => {
                in_words = None;
                out.push(line);
            }
            Some(n) if n < 2 => {
                in_words = Some(n + 1);
                out.push(line);
            }
            Some(_) => {
                if offline {
                    assert!(
                        line.starts_with("  no log: the snapshot is read from a file (-f)"),
                        "offline, the log is one line saying there is none: {line:?} in\n{text}"
                    );
                }
            }
            None => out.push(line),
        }
    }
    out.join("\n")
}

/// The same command live and on `file`: the same exit and the same stdout
/// (but for explain's log lines, which a bundle does not hold). The bundle
/// asked for the servers (by default, as explain does), and `-f` counts
/// what it kept of them, so `status` live asks too (`--servers`): here no
/// Secret, so none is read, live or kept.
fn same(ns: &str, file: &Path, args: &[&str]) -> String {
    let asked = [args, &["--servers"]].concat();
    let l = live(
        ns,
        if args.first() == Some(&"status") {
            &asked
        } else {
            args
        },
    );
    let o = offline(file, ns, args);
    assert_eq!(l.code, 0, "live {args:?}: {}", l.both());
    assert_eq!(
        (l.code, without_logs(&l.stdout, false)),
        (o.code, without_logs(&o.stdout, true)),
        "{args:?}: live and bundle differ ({})\nlive:\n{}\nbundle:\n{}",
        file.display(),
        l.both(),
        o.both()
    );
    l.stdout
}

#[tokio::test]
async fn status_and_explain_on_a_bundle_say_what_they_say_live() {
    let layout = Layout {
        shards: 2,
        replicas: 1,
        last_rollout_hash: true,
        ..Layout::default()
    };
    let sim = Sim::fresh("bundle", &layout).await;
    let h = sim::hash("revision-1");
    let x = "cache-0-1";
    sim.ask(&["cache-0-0", "cache-0-1", "cache-1-0", "cache-1-1"], &h)
        .await;
    // A person grants the front by hand: trace annotations, whose trust
    // rests on managedFields (docs/protocol.md), and an Event.
    let granted = live(&sim.ns, &["grant", x, "--reason", "bundle e2e"]);
    assert_eq!(granted.code, 0, "{}", granted.both());
    sim.cluster_updating().await;
    let n = sim.node(x);
    let w = n.workload();
    w.apply_template(&h).await;
    n.remove_desired().await;
    n.clear_drift().await;
    w.catch_up().await;
    let old = n.pod();
    old.begin_delete().await;
    old.finish_delete().await;
    n.set_ready(false).await;
    let pod = n.pod_for(&h);
    pod.create(&h).await;
    pod.crash_loop(3).await;
    // The kubelet's word on the pod, which explain adds to the timeline.
    sim.event(
        "kubelet",
        json!({"apiVersion": "v1", "kind": "Pod", "namespace": sim.ns, "name": pod.name}),
        None,
        "Warning",
        "BackOff",
        "Restarting",
        "Back-off restarting failed container server",
    )
    .await;
    // Another cluster's node in the namespace: a named bundle leaves it out.
    let other = Sim::build(
        harness::server().client().await,
        &sim.ns,
        "other",
        &Layout {
            shards: 1,
            replicas: 0,
            ..Layout::default()
        },
    )
    .await;

    let now = clock_in(60);
    let named = bundle(&sim.ns, "named.yaml", &["cache"]);
    let all = bundle(&sim.ns, "all.json", &["--format", "json"]);

    for file in [&named, &all] {
        let doc = same(
            &sim.ns,
            file,
            &["status", "cache", "-o", "json", "--now", &now],
        );
        let doc: Value = serde_json::from_str(&doc).expect("status json");
        let c = &doc["clusters"][0];
        assert_eq!(c["verdict"], "Jammed", "{}", pretty(c));
        let xn = c["nodes"]
            .as_array()
            .and_then(|ns| ns.iter().find(|n| n["name"] == x))
            .expect("x in the document");
        // The grant by hand is trusted from the bundle too: managedFields kept.
        assert_eq!(xn["grantedAtSource"], "annotation", "{}", pretty(xn));
        same(&sim.ns, file, &["status", "cache", "--now", &now]);
        same(
            &sim.ns,
            file,
            &["status", "cache", "-o", "wide", "--now", &now],
        );
        let ex = same(&sim.ns, file, &["explain", x, "-o", "json", "--now", &now]);
        let ex: Value = serde_json::from_str(&ex).expect("explain json");
        assert!(
            ex["timeline"]
                .as_array()
                .is_some_and(|t| t.iter().any(|e| e["reason"] == "BackOff")),
            "the pod's event is in the timeline: {}",
            pretty(&ex)
        );
        same(&sim.ns, file, &["explain", x, "--now", &now]);
        same(&sim.ns, file, &["explain", "cache", "--now", &now]);
        let h = same(
            &sim.ns,
            file,
            &["history", "cache", "-o", "json", "--now", &now],
        );
        let h: Value = serde_json::from_str(&h).expect("history json");
        let rows = h["clusters"][0]["nodes"].as_array().expect("rows");
        assert_eq!(rows[0]["node"], x, "walk order: {}", pretty(&h));
        assert_eq!(rows[0]["outcome"], "stuck", "{}", pretty(&h));
        assert_eq!(rows[0]["advancedBy"], "admin", "{}", pretty(&h));
        assert!(
            rows[1..].iter().all(|r| r["outcome"] == "waiting"),
            "{}",
            pretty(&h)
        );
        same(&sim.ns, file, &["history", "cache", "--now", &now]);
    }
    // The unnamed bundle holds both clusters, the named one only its own.
    same(&sim.ns, &all, &["status", "-o", "json", "--now", &now]);
    let text = std::fs::read_to_string(&named).expect("read the bundle");
    assert!(text.starts_with("# kubectl-valkey-roll bundle"), "{text}");
    assert!(text.contains("managedFields"), "managedFields kept");
    let list: Value = serde_saphyr::from_str(&text).expect("the bundle is YAML");
    assert_eq!(list["kind"], "List");
    let names: Vec<&str> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["kind"] == "ValkeyNode")
        .filter_map(|i| i["metadata"]["name"].as_str())
        .collect();
    assert_eq!(names, ["cache-0-0", "cache-0-1", "cache-1-0", "cache-1-1"]);
    let json_list: Value =
        serde_json::from_str(&std::fs::read_to_string(&all).expect("read")).expect("JSON");
    let a = &json_list["metadata"]["annotations"];
    assert_eq!(a["valkey-roll.io/bundle-namespace"], sim.ns.as_str());
    assert_eq!(a["valkey-roll.io/bundle-cluster"], "*");
    assert!(
        json_list["items"].as_array().is_some_and(|i| i
            .iter()
            .any(|o| o["metadata"]["name"] == format!("{}-0-0", other.cluster))),
        "the unnamed bundle has the other cluster's node"
    );

    // Errors: a cluster that is not there; a file is no source for a bundle.
    let missing = live(&sim.ns, &["bundle", "nope"]);
    assert_eq!(missing.code, 1, "{}", missing.both());
    assert!(missing.stderr.contains("nope"), "{}", missing.both());
    let from_file = plugin(&["bundle", "-f", named.display().to_string().as_str()]);
    assert_eq!(from_file.code, 2, "{}", from_file.both());
}

#[tokio::test]
async fn history_of_a_p2_roll_live_and_from_a_bundle() {
    let layout = Layout {
        shards: 1,
        replicas: 1,
        protocol: sim::Protocol::P2,
        ..Layout::default()
    };
    let sim = Sim::fresh("history", &layout).await;
    let h = sim::hash("revision-1");
    let (x, y) = ("cache-0-1", "cache-0-0");
    sim.node(x).set_pending(&h).await;
    sim.node(y).set_pending(&h).await;
    // x: advanced, applied, replaced, Ready, at rest.
    let n = sim.node(x);
    n.set_workload_revision(&h).await;
    sim.event_node_updated(x).await;
    sim.cluster_updating().await;
    let w = n.workload();
    w.apply_template(&h).await;
    sim.event_applied(x, &h).await;
    n.clear_pending().await;
    n.observe().await;
    w.catch_up().await;
    let old = n.pod();
    old.begin_delete().await;
    old.finish_delete().await;
    let pod = n.pod_for(&h);
    pod.create(&h).await;
    pod.running_ready().await;
    w.rolled_out().await;
    n.set_ready(true).await;
    // y: advanced, on its way.
    sim.node(y).set_workload_revision(&h).await;
    sim.event_node_updated(y).await;

    let now = clock_in(30);
    let file = bundle(&sim.ns, "p2.yaml", &[]);
    let doc = same(&sim.ns, &file, &["history", "-o", "json", "--now", &now]);
    let doc: Value = serde_json::from_str(&doc).expect("history json");
    let c = &doc["clusters"][0];
    assert_eq!(c["verdict"], "Rolling", "{}", pretty(c));
    assert!(c["rollStartedAt"].is_string(), "{}", pretty(c));
    assert_eq!(c["eventsMayHaveExpired"], false, "{}", pretty(c));
    let rows = c["nodes"].as_array().expect("rows");
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["node"] == name)
            .unwrap_or_else(|| panic!("no row {name}: {}", pretty(c)))
    };
    let xr = row(x);
    assert_eq!(xr["outcome"], "rolled", "{}", pretty(xr));
    assert_eq!(xr["advancedBy"], "controller", "{}", pretty(xr));
    for field in ["advancedAt", "appliedAt", "readyAt"] {
        assert!(xr[field].is_string(), "{field}: {}", pretty(xr));
    }
    assert!(xr["tookSeconds"].is_u64(), "{}", pretty(xr));
    assert_eq!(xr["partial"], false);
    let yr = row(y);
    assert_eq!(yr["outcome"], "rolling", "{}", pretty(yr));
    assert!(yr["advancedAt"].is_string(), "{}", pretty(yr));
    let table = same(&sim.ns, &file, &["history", "--now", &now]);
    assert!(
        table.contains("rolled") && table.contains("rolling"),
        "{table}"
    );
    // The estimate rests on x alone: in JSON, not in the headline.
    let status = same(&sim.ns, &file, &["status", "-o", "json", "--now", &now]);
    let status: Value = serde_json::from_str(&status).expect("status json");
    assert_eq!(status["clusters"][0]["etaBasis"], 1, "{}", pretty(&status));
    assert!(
        status["clusters"][0]["perNodeSeconds"].is_u64(),
        "{}",
        pretty(&status)
    );
}
