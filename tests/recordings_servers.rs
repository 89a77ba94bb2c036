//! The recordings with real Valkey (f-j, t-resources), replayed with what
//! their servers answered (docs/servers.md, "Offline"): for every kept
//! moment, one ServerReading per live server is built from the newest
//! sample of valkey.jsonl at or before the moment's `now`, appended to the
//! moment's List, and the whole is judged with
//! `status -f - --now NOW -o json`. Checked ([`check`]; each rule is shown
//! failing in [`the_checks_can_fail`]):
//! - every node whose server answers (the truth's `roles`: `primary` or
//!   `replica`, not `empty-master`, not in `noServer`) reads its server's
//!   role, from the server (`roleSource: server`, no note): 100 %;
//! - a shard two servers claim at once (the truth's `primaries` says
//!   `a|b`: the instant of a failover, before the old primary steps down)
//!   is not judged, as tests/recordings.rs does not judge the two nodes of
//!   a failover under way: which of them holds the slots is not in a
//!   reading;
//! - the shards at risk (`NoSyncedReplica`) are exactly those whose
//!   primary's shard has no synced replica by the servers, naming the
//!   replicas;
//! - a wait for a synced replica (`deferred` from the servers) is named
//!   exactly when the walk's front is a primary, nothing is in flight, and
//!   its shard has no synced replica, naming the replica waited for.
//!
//! How a sample becomes a reading: `role` master/slave is primary/replica;
//! `link` is INFO's `master_link_status` where the sample keeps it
//! (t-resources), else ROLE's link state (`connected` is up, `handshake`,
//! `connect`, `connecting` and `sync` are down); `syncing` is
//! `master_sync_in_progress`, else ROLE's `sync`; a server that did not
//! answer (`down`) is a reading with `error: unreachable`.
//!
//! The summary prints, per recording, the roles definite and right without
//! the readings and with them, the waits explained and the risks named.
//! The recordings are read at run time, never copied here.

mod recorded;

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One line of valkey.jsonl: its time and what each pod's server said.
struct Sample {
    t: String,
    pods: BTreeMap<String, Value>,
}

fn samples(dir: &Path) -> Vec<Sample> {
    let text = recorded::gunzip(&dir.join("valkey.jsonl.gz"));
    let mut out: Vec<Sample> = String::from_utf8(text)
        .expect("valkey.jsonl is UTF-8")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a valkey.jsonl line is JSON");
            Sample {
                t: v["t"].as_str().expect("t").to_string(),
                pods: v["pods"]
                    .as_object()
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.t.cmp(&b.t));
    out
}

/// The newest sample at or before `now`.
fn at<'s>(samples: &'s [Sample], now: &str) -> Option<&'s Sample> {
    samples.iter().rev().find(|s| s.t.as_str() <= now)
}

/// A sample's replica link: INFO's where kept, else ROLE's state.
fn link_up(pod: &Value) -> Option<bool> {
    if pod["role"] != "slave" {
        return None;
    }
    Some(match pod["master_link_status"].as_str() {
        Some(s) => s == "up",
        None => pod["link"] == "connected",
    })
}

fn syncing(pod: &Value) -> Option<bool> {
    if pod["role"] != "slave" {
        return None;
    }
    Some(match pod["master_sync_in_progress"].as_i64() {
        Some(n) => n == 1,
        None => pod["link"] == "sync",
    })
}

/// The ServerReading of one pod's sample.
fn reading(namespace: &str, pod: &str, node: Option<&str>, t: &str, s: &Value) -> Value {
    let ip = s["ip"].as_str().unwrap_or_default();
    if s.get("down").is_some() || s.get("role").is_none() {
        return json!({
            "apiVersion": "valkey-roll.io/v1alpha1", "kind": "ServerReading",
            "metadata": {"namespace": namespace, "name": pod},
            "node": node, "observedAt": t, "address": format!("{ip}:6379"),
            "nodeId": null, "role": null, "primaryAddress": null, "link": null,
            "syncing": null, "flags": [], "clusterState": null, "error": "unreachable",
        });
    }
    let role = if s["role"] == "master" {
        "primary"
    } else {
        "replica"
    };
    let flags: Vec<&str> = s["flags"]
        .as_str()
        .unwrap_or_default()
        .split(',')
        .filter(|f| !f.is_empty())
        .collect();
    json!({
        "apiVersion": "valkey-roll.io/v1alpha1", "kind": "ServerReading",
        "metadata": {"namespace": namespace, "name": pod},
        "node": node, "observedAt": t, "address": format!("{ip}:6379"),
        "nodeId": s["id"], "role": role, "primaryAddress": s.get("primary"),
        "link": link_up(s).map(|up| if up { "up" } else { "down" }),
        "syncing": syncing(s), "flags": flags, "clusterState": s["cluster_state"],
        "error": null,
    })
}

/// The moment's List with a reading per server of the newest sample.
fn with_readings(list: &Value, sample: Option<&Sample>) -> Value {
    let items = list["items"].as_array().cloned().unwrap_or_default();
    let namespace = items
        .iter()
        .find(|i| i["kind"] == "ValkeyCluster")
        .or_else(|| items.first())
        .and_then(|i| i["metadata"]["namespace"].as_str())
        .unwrap_or("default")
        .to_string();
    let node_of: BTreeMap<String, String> = items
        .iter()
        .filter(|i| i["kind"] == "Pod")
        .filter_map(|p| {
            Some((
                p["metadata"]["name"].as_str()?.to_string(),
                p["metadata"]["labels"]["app.kubernetes.io/instance"]
                    .as_str()?
                    .to_string(),
            ))
        })
        .collect();
    let mut out = items;
    if let Some(sample) = sample {
        for (pod, s) in &sample.pods {
            let node = node_of.get(pod.as_str()).map(String::as_str);
            out.push(reading(&namespace, pod, node, &sample.t, s));
        }
    }
    json!({"apiVersion": "v1", "kind": "List", "items": out})
}

/// What the servers truly say at a moment, by node: the sample of each
/// node's current pod (the truth's `roles` names the nodes).
struct Said {
    /// Shard -> its primary (the truth's `primaries`, one node).
    primaries: BTreeMap<String, String>,
    /// Node -> (link up, syncing) for nodes whose server is a replica.
    links: BTreeMap<String, (bool, bool)>,
    /// Nodes of each shard.
    shards: BTreeMap<String, BTreeSet<String>>,
    /// Shards two servers claim at once.
    contested: BTreeSet<String>,
}

fn shard_of(node: &str) -> String {
    node.rsplit_once('-')
        .map(|(s, _)| s.to_string())
        .unwrap_or_default()
}

fn said(truth: &Value, list: &Value, sample: Option<&Sample>) -> Said {
    let mut primaries = BTreeMap::new();
    let mut contested = BTreeSet::new();
    for p in truth["primaries"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, p)| p)
    {
        match p.as_str() {
            Some(p) if p.contains('|') => {
                contested.insert(shard_of(p.split('|').next().unwrap_or_default()));
            }
            Some(p) => {
                primaries.insert(shard_of(p), p.to_string());
            }
            None => {}
        }
    }
    // Every node of the moment, with a server or not.
    let mut shards: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let listed = list["items"].as_array().into_iter().flatten();
    for node in listed.filter(|i| i["kind"] == "ValkeyNode") {
        if let Some(node) = node["metadata"]["name"].as_str() {
            shards
                .entry(shard_of(node))
                .or_default()
                .insert(node.to_string());
        }
    }
    // Each node's current pod: its status.podName.
    let mut links = BTreeMap::new();
    for item in list["items"].as_array().into_iter().flatten() {
        if item["kind"] != "ValkeyNode" {
            continue;
        }
        let (Some(node), Some(pod)) = (
            item["metadata"]["name"].as_str(),
            item["status"]["podName"].as_str(),
        ) else {
            continue;
        };
        let Some(s) = sample.and_then(|s| s.pods.get(pod)) else {
            continue;
        };
        if let (Some(up), Some(sync)) = (link_up(s), syncing(s)) {
            links.insert(node.to_string(), (up, sync));
        }
    }
    Said {
        primaries,
        links,
        shards,
        contested,
    }
}

/// Tallies per recording.
#[derive(Default)]
struct Tally {
    judged: usize,
    definite_right_before: usize,
    definite_right: usize,
    from_server: usize,
    at_risk: usize,
    risks_named: usize,
    waits: usize,
    waits_named: usize,
}

/// The findings of one moment (empty: it reads true).
fn check(c: &Value, truth: &Value, s: &Said, tally: &mut Tally) -> Vec<String> {
    let mut fails = Vec::new();
    let nodes: BTreeMap<&str, &Value> = c["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| Some((n["name"].as_str()?, n)))
        .collect();
    let no_server = recorded::names(&truth["noServer"]);
    let claimed = |node: &str| s.contested.contains(&shard_of(node));

    // Roles, from the servers.
    for (name, live) in truth["roles"].as_object().into_iter().flatten() {
        let live = live.as_str().unwrap_or("");
        if !matches!(live, "primary" | "replica") || no_server.contains(name) || claimed(name) {
            continue;
        }
        let Some(n) = nodes.get(name.as_str()) else {
            continue;
        };
        tally.judged += 1;
        let right = n["role"] == live && n["roleNote"].is_null();
        tally.definite_right += usize::from(right);
        let from_server = n["roleSource"] == "server";
        tally.from_server += usize::from(right && from_server);
        if !right || !from_server {
            fails.push(format!(
                "{name}: its server is a {live}; reads {} from {} (note: {})",
                n["role"], n["roleSource"], n["roleNote"]
            ));
        }
    }

    // Shards at risk: a primary with no synced replica.
    let synced = |node: &str| s.links.get(node).is_some_and(|(up, _)| *up);
    let mut want_risk: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (shard, primary) in &s.primaries {
        if no_server.contains(primary) {
            continue;
        }
        let replicas: BTreeSet<String> = s
            .shards
            .get(shard)
            .into_iter()
            .flatten()
            .filter(|n| *n != primary)
            .cloned()
            .collect();
        if !replicas.is_empty() && !replicas.iter().any(|r| synced(r)) {
            want_risk.insert(primary.clone(), replicas);
        }
    }
    let named: BTreeMap<String, BTreeSet<String>> = c["risks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["kind"] == "NoSyncedReplica")
        .filter(|r| !r["primary"].as_str().is_some_and(claimed))
        .filter_map(|r| {
            let replicas = r["replicas"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x["node"].as_str().map(str::to_string))
                .collect();
            Some((r["primary"].as_str()?.to_string(), replicas))
        })
        .collect();
    tally.at_risk += want_risk.len();
    tally.risks_named += want_risk
        .iter()
        .filter(|(p, r)| named.get(*p) == Some(r))
        .count();
    if named != want_risk {
        fails.push(format!(
            "shards at risk (primary: replicas) {named:?}, the servers say {want_risk:?}"
        ));
    }

    // The wait for a synced replica.
    let front = c["front"].as_str().unwrap_or_default();
    let in_flight = recorded::names(&truth["inFlight"]);
    let front_waits = nodes.get(front).is_some_and(|n| n["state"] == "Waiting");
    let want_wait = (front_waits && in_flight.is_empty())
        .then(|| want_risk.get(front))
        .flatten();
    let deferred = &c["deferred"];
    let by_servers =
        deferred["source"] == "servers" && !deferred["node"].as_str().is_some_and(claimed);
    match want_wait {
        Some(replicas) => {
            tally.waits += 1;
            let names_all = replicas.iter().all(|r| {
                deferred["cause"]
                    .as_str()
                    .is_some_and(|cause| cause.contains(r.as_str()))
            });
            if by_servers && deferred["node"] == front && names_all {
                tally.waits_named += 1;
            } else {
                fails.push(format!(
                    "the front {front} waits for a synced replica ({replicas:?}); deferred reads {deferred}"
                ));
            }
        }
        None if by_servers => fails.push(format!(
            "deferred {deferred} named, but the front {front} does not wait for a replica"
        )),
        None => {}
    }

    // The walk, by the servers' roles (issue 41 item 5): in each shard the
    // operator walks the other nodes first, then the primary it reads, so
    // a primary by the servers that waits in the queue comes after every
    // other node of its shard that waits, and is the front ("X is next")
    // only when none of them waits.
    let position = |n: &Value| n["queuePosition"].as_u64();
    for (shard, primary) in &s.primaries {
        if no_server.contains(primary) || claimed(primary) {
            continue;
        }
        let others = s
            .shards
            .get(shard)
            .into_iter()
            .flatten()
            .filter(|n| *n != primary);
        let waiting: Vec<(&String, u64)> = others
            .filter_map(|n| Some((n, position(nodes.get(n.as_str())?)?)))
            .collect();
        if let Some(p) = nodes.get(primary.as_str()).and_then(|n| position(n))
            && let Some((after, at)) = waiting.iter().find(|(_, at)| *at > p)
        {
            fails.push(format!(
                "{primary}, the primary by its server, is queued at {p} before {after} at {at}"
            ));
        }
        if front == primary.as_str() && !waiting.is_empty() {
            fails.push(format!(
                "the front is {primary}, the primary by its server, while {waiting:?} wait"
            ));
        }
    }
    fails
}

#[test]
fn recordings_read_with_their_servers() {
    let root = recorded::root();
    let mut failures = Vec::new();
    let mut summary = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("read the recordings")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("valkey.jsonl.gz").is_file() && p.join("expected.json").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 2, "expected recordings with valkey.jsonl.gz");
    for dir in dirs {
        let scenario = dir.file_name().unwrap().to_string_lossy().into_owned();
        let samples = samples(&dir);
        let expected: Value =
            serde_json::from_slice(&std::fs::read(dir.join("expected.json")).expect("read"))
                .expect("expected.json is JSON");
        let mut tally = Tally::default();
        for (file, truth) in expected.as_object().expect("an object") {
            let now = truth["now"].as_str().expect("now");
            let bytes = recorded::gunzip(&dir.join(file));
            let list: Value = serde_json::from_slice(&bytes).expect("a List");
            let sample = at(&samples, now);
            let read = serde_json::to_vec(&with_readings(&list, sample)).expect("JSON");
            let Some(c) = recorded::status(&read, now) else {
                continue;
            };
            // The same moment without the readings, for the summary.
            if let Some(before) = recorded::status(&bytes, now) {
                let no_server = recorded::names(&truth["noServer"]);
                for (name, live) in truth["roles"].as_object().into_iter().flatten() {
                    if !matches!(live.as_str(), Some("primary" | "replica"))
                        || no_server.contains(name)
                    {
                        continue;
                    }
                    let right = before["nodes"].as_array().into_iter().flatten().any(|n| {
                        n["name"] == name.as_str() && n["role"] == *live && n["roleNote"].is_null()
                    });
                    tally.definite_right_before += usize::from(right);
                }
                assert!(
                    before["servers"].is_null() && before["deferred"]["source"] != "servers",
                    "{scenario}/{file}: without readings nothing comes from the servers"
                );
            }
            let s = said(truth, &list, sample);
            for what in check(&c, truth, &s, &mut tally) {
                failures.push(format!("{scenario}/{file} @ {now}: {what}"));
            }
        }
        summary.push(format!(
            "{scenario}: roles definite and right {}/{} without the servers, {}/{} with them \
             ({} from the server); waits explained {}/{}; risks named {}/{}",
            tally.definite_right_before,
            tally.judged,
            tally.definite_right,
            tally.judged,
            tally.from_server,
            tally.waits_named,
            tally.waits,
            tally.risks_named,
            tally.at_risk
        ));
    }
    eprintln!("{}", summary.join("\n"));
    assert!(
        failures.is_empty(),
        "{} findings:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A two-shard moment whose servers say: shard 0 healthy, shard 1's
/// replica's link down, the front is shard 1's primary.
fn sample_moment() -> (Value, Said, Value) {
    let truth = json!({
        "roles": {"rig-0-0": "primary", "rig-0-1": "replica",
                  "rig-1-0": "primary", "rig-1-1": "replica"},
        "primaries": {"0": "rig-0-0", "1": "rig-1-0"},
        "noServer": [], "inFlight": [],
    });
    let s = Said {
        primaries: [("rig-0", "rig-0-0"), ("rig-1", "rig-1-0")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .into(),
        links: [
            ("rig-0-1".to_string(), (true, false)),
            ("rig-1-1".to_string(), (false, false)),
        ]
        .into(),
        shards: [
            ("rig-0", ["rig-0-0", "rig-0-1"]),
            ("rig-1", ["rig-1-0", "rig-1-1"]),
        ]
        .map(|(a, b)| (a.to_string(), b.map(str::to_string).into()))
        .into(),
        contested: BTreeSet::new(),
    };
    let node = |name: &str, role: &str, state: &str| json!({"name": name, "role": role, "roleSource": "server", "roleNote": null, "state": state});
    let queued = |name: &str, at: u64| {
        let mut n = node(name, "primary", "Waiting");
        n["queuePosition"] = json!(at);
        n
    };
    let report = json!({
        "front": "rig-1-0",
        "nodes": [node("rig-0-0", "primary", "Converged"), node("rig-0-1", "replica", "Converged"),
                  node("rig-1-1", "replica", "Converged"), queued("rig-1-0", 1)],
        "risks": [{"kind": "NoSyncedReplica", "shard": 1, "primary": "rig-1-0",
                   "replicas": [{"node": "rig-1-1", "link": "down", "syncing": false}]}],
        "deferred": {"node": "rig-1-0", "shard": 1, "source": "servers",
                     "cause": "waits for rig-1-1 to sync with rig-1-0: link down"},
    });
    (truth, s, report)
}

#[test]
fn the_checks_can_fail() {
    let (truth, s, good) = sample_moment();
    assert!(check(&good, &truth, &s, &mut Tally::default()).is_empty());
    type Break = fn(&mut Value);
    let broken: [(&str, Break); 8] = [
        ("a role from the API", |r| {
            r["nodes"][0]["roleSource"] = json!("event")
        }),
        ("a wrong role", |r| r["nodes"][1]["role"] = json!("primary")),
        ("a role with a note", |r| {
            r["nodes"][2]["roleNote"] = json!("unsure")
        }),
        ("a risk missed", |r| r["risks"] = json!([])),
        ("a wait missed", |r| r["deferred"] = Value::Null),
        ("a wait that names no replica", |r| {
            r["deferred"]["cause"] = json!("waits")
        }),
        ("the primary queued before its replica", |r| {
            r["nodes"][2]["state"] = json!("Waiting");
            r["nodes"][2]["queuePosition"] = json!(2);
            r["nodes"][3]["queuePosition"] = json!(1);
        }),
        ("the primary at the front while its replica waits", |r| {
            r["nodes"][2]["state"] = json!("Waiting");
            r["nodes"][2]["queuePosition"] = json!(1);
        }),
    ];
    for (what, breaks) in broken {
        let mut r = good.clone();
        breaks(&mut r);
        assert!(
            !check(&r, &truth, &s, &mut Tally::default()).is_empty(),
            "{what} passes"
        );
    }
    // A risk named where the servers say none.
    let mut extra = good.clone();
    extra["risks"]
        .as_array_mut()
        .unwrap()
        .push(json!({"kind": "NoSyncedReplica", "shard": 0, "primary": "rig-0-0", "replicas": [{"node": "rig-0-1"}]}));
    assert!(!check(&extra, &truth, &s, &mut Tally::default()).is_empty());
}

/// `grant NODE --dry-run=client -f - --now NOW -o json` of a moment's List
/// with its readings: the steering document.
fn plan(list: &[u8], now: &str, node: &str) -> Value {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-valkey-roll"))
        .args([
            "grant",
            node,
            "--revision",
            "0f0f0f0f0f0f0f0f",
            "--dry-run=client",
            "-f",
            "-",
            "--now",
            now,
            "-o",
            "json",
        ])
        .env_remove("KUBECONFIG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the plugin");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(list)
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for the plugin");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "grant {node} at {now}: no document (exit {:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Issue 41's bar, on every kept moment of the recordings with real Valkey
/// (their servers' answers as readings, as a bundle keeps them): a grant of
/// a node its server calls primary is refused as Primary with `roleSource:
/// server`, and refused NoSyncedReplica exactly when its shard has no
/// synced replica by the servers; no node its server calls replica is
/// refused as a primary. The summary counts the plans per recording.
#[test]
fn plans_follow_the_servers() {
    let root = recorded::root();
    let mut failures = Vec::new();
    let mut summary = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("read the recordings")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("valkey.jsonl.gz").is_file() && p.join("expected.json").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let scenario = dir.file_name().unwrap().to_string_lossy().into_owned();
        let samples = samples(&dir);
        let expected: Value =
            serde_json::from_slice(&std::fs::read(dir.join("expected.json")).expect("read"))
                .expect("expected.json is JSON");
        let (mut primaries, mut refused_unsynced, mut unsynced, mut replicas) = (0, 0, 0, 0);
        for (file, truth) in expected.as_object().expect("an object") {
            let now = truth["now"].as_str().expect("now");
            let list: Value =
                serde_json::from_slice(&recorded::gunzip(&dir.join(file))).expect("a List");
            let Some(sample) = at(&samples, now) else {
                continue;
            };
            let read = serde_json::to_vec(&with_readings(&list, Some(sample))).expect("JSON");
            let s = said(truth, &list, Some(sample));
            let no_server = recorded::names(&truth["noServer"]);
            let synced = |node: &str| s.links.get(node).is_some_and(|(up, _)| *up);
            for (shard, primary) in &s.primaries {
                if no_server.contains(primary) || s.contested.contains(shard) {
                    continue;
                }
                let others: Vec<&String> = s
                    .shards
                    .get(shard)
                    .into_iter()
                    .flatten()
                    .filter(|n| *n != primary)
                    .collect();
                let doc = plan(&read, now, primary);
                let reasons: Vec<&Value> =
                    doc["reasons"].as_array().into_iter().flatten().collect();
                primaries += 1;
                let as_primary = reasons
                    .iter()
                    .any(|r| r["code"] == "Primary" && r["roleSource"] == "server");
                if !as_primary {
                    failures.push(format!(
                        "{scenario}/{file}: {primary}, primary by its server, not refused as Primary from the server: {}",
                        doc["reasons"]
                    ));
                }
                let want_unsynced = !others.is_empty() && !others.iter().any(|r| synced(r));
                let got_unsynced = reasons.iter().any(|r| r["code"] == "NoSyncedReplica");
                unsynced += usize::from(want_unsynced);
                refused_unsynced += usize::from(want_unsynced && got_unsynced);
                if want_unsynced != got_unsynced {
                    failures.push(format!(
                        "{scenario}/{file}: {primary}'s shard {} a synced replica, NoSyncedReplica {}: {}",
                        if want_unsynced { "has no" } else { "has" },
                        if got_unsynced { "given" } else { "not given" },
                        doc["reasons"]
                    ));
                }
                for replica in others {
                    if no_server.contains(replica)
                        || truth["roles"][replica.as_str()].as_str() != Some("replica")
                    {
                        continue;
                    }
                    replicas += 1;
                    let doc = plan(&read, now, replica);
                    if doc["reasons"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|r| r["code"] == "Primary")
                    {
                        failures.push(format!(
                            "{scenario}/{file}: {replica}, a replica by its server, refused as Primary: {}",
                            doc["reasons"]
                        ));
                    }
                }
            }
        }
        summary.push(format!(
            "{scenario}: {primaries} primaries planned, {refused_unsynced}/{unsynced} without a synced replica refused NoSyncedReplica; {replicas} replicas planned"
        ));
    }
    eprintln!("{}", summary.join("\n"));
    assert!(
        failures.is_empty(),
        "{} findings:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
