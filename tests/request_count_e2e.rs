//! What one `status` costs the API server, counted in its audit log
//! (issue 3 item 6; docs/plugin.md, "How it talks to the API server"): the same
//! requests for 3 nodes as for 300, one LIST per kind (in pages of 500,
//! so one page each here), each carrying its selector, never a GET per
//! node.
//!
//! Every run of the plugin is made as a user minted for that run alone (in
//! `system:masters`), so its requests are exactly the audit events with
//! that user name, whatever else the server is doing.
//!
//! Build the test binaries first (`bash testbin/build.sh kube etcd`), then
//! `cargo test --features test-hooks,fixture --test request_count_e2e -- --nocapture`
//! to see the figures.

mod harness;

use futures::StreamExt;
use harness::sim::{self, Layout, Sim};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harness::common::BIN;

/// The kinds `status` reads by a selector, and how each LIST must be
/// narrowed: (resource, selector parameter, its value). `{cluster}` is the
/// ValkeyCluster's name. ValkeyNodes are listed whole (a node that lost its
/// label belongs to its cluster by its owner reference), valkeyclusters by
/// name.
const SELECTORS: [(&str, &str, &str); 4] = [
    (
        "statefulsets",
        "labelSelector",
        "valkey.io/cluster={cluster}",
    ),
    (
        "deployments",
        "labelSelector",
        "valkey.io/cluster={cluster}",
    ),
    ("pods", "labelSelector", "valkey.io/cluster={cluster}"),
    (
        "events",
        "fieldSelector",
        "involvedObject.apiVersion=valkey.io/v1alpha1",
    ),
];

/// How many node chains the 300-node build writes at once.
const PARALLEL: usize = 32;

/// Decodes a URL query component (`%XX` and `+`).
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(b)) => {
                out.push(b);
                i += 2;
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The query parameters of a request URI, decoded.
fn query(uri: &str) -> BTreeMap<String, String> {
    uri.split_once('?')
        .map(|(_, q)| q)
        .unwrap_or("")
        .split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// One request as the audit log saw it.
#[derive(Debug)]
struct Request {
    verb: String,
    resource: String,
    namespace: String,
    query: BTreeMap<String, String>,
    code: i64,
    uri: String,
}

impl Request {
    fn of(event: &Value) -> Request {
        let uri = event["requestURI"].as_str().unwrap_or_default().to_string();
        Request {
            verb: event["verb"].as_str().unwrap_or_default().to_string(),
            resource: event["objectRef"]["resource"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            namespace: event["objectRef"]["namespace"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            query: query(&uri),
            code: event["responseStatus"]["code"].as_i64().unwrap_or(0),
            uri,
        }
    }
}

/// The requests user `user` made, once the audit log has stopped growing
/// for them (an event is written as its request completes).
async fn requests_of(user: &str) -> Vec<Request> {
    let s = harness::server();
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut last = usize::MAX;
    loop {
        let mine: Vec<Value> = s
            .audit_events()
            .into_iter()
            .filter(|e| e["user"]["username"] == user && e["stage"] == "ResponseComplete")
            .collect();
        if mine.len() == last || Instant::now() > deadline {
            return mine.iter().map(Request::of).collect();
        }
        last = mine.len();
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
}

/// One measured run of the plugin.
struct Measured {
    label: String,
    nodes: u64,
    requests: Vec<Request>,
    took: Duration,
}

/// Runs `status -o json` with `args` as a fresh user named `user`, and
/// returns its requests and the document's node count.
async fn measure(label: &str, ns: &str, args: &[&str]) -> Measured {
    let s = harness::server();
    let user = format!("count-{label}");
    let kubeconfig = s.mint_user(&user, &["system:masters"]);
    let started = Instant::now();
    let out = Command::new(BIN)
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .args(["-n", ns, "status", "-o", "json"])
        .args(args)
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .output()
        .expect("run kubectl-valkey-roll");
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "{label}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("status -o json");
    let nodes = doc["clusters"]
        .as_array()
        .map(|cs| cs.iter().filter_map(|c| c["total"].as_u64()).sum())
        .unwrap_or(0);
    Measured {
        label: label.to_string(),
        nodes,
        requests: requests_of(&user).await,
        took,
    }
}

/// Every request is a LIST of one of the six kinds in `ns`, one per kind,
/// answered 200, and each carries its selector.
fn check_requests(m: &Measured, ns: &str, cluster: Option<&str>) {
    let all: Vec<String> = m
        .requests
        .iter()
        .map(|r| format!("{} {} -> {}", r.verb, r.uri, r.code))
        .collect();
    let listing = all.join("\n");
    for r in &m.requests {
        assert_eq!(r.verb, "list", "{}: not a LIST:\n{listing}", m.label);
        assert_eq!(r.namespace, ns, "{}: other namespace:\n{listing}", m.label);
        assert_eq!(r.code, 200, "{}: failed request:\n{listing}", m.label);
        // kubectl's chunk size: a kind of more than 500 objects is read in
        // pages, each a request, never a request per node.
        assert_eq!(
            r.query.get("limit").map(String::as_str),
            Some("500"),
            "{}: a LIST not in pages of 500:\n{listing}",
            m.label
        );
    }
    let mut kinds: Vec<&str> = m.requests.iter().map(|r| r.resource.as_str()).collect();
    kinds.sort_unstable();
    assert_eq!(
        kinds,
        [
            "deployments",
            "events",
            "pods",
            "statefulsets",
            "valkeyclusters",
            "valkeynodes"
        ],
        "{}: one LIST per kind:\n{listing}",
        m.label
    );
    let by_kind = |kind: &str| {
        m.requests
            .iter()
            .find(|r| r.resource == kind)
            .unwrap_or_else(|| panic!("{}: no {kind}", m.label))
    };
    for (kind, param, want) in SELECTORS {
        let want = match cluster {
            Some(c) => want.replace("{cluster}", c),
            // Every cluster in the namespace: the label must exist.
            None => want.replace("={cluster}", ""),
        };
        let r = by_kind(kind);
        assert_eq!(
            r.query.get(param).map(String::as_str),
            Some(want.as_str()),
            "{}: {kind} without its {param}: {}",
            m.label,
            r.uri
        );
    }
    let nodes = by_kind("valkeynodes");
    assert_eq!(
        (
            nodes.query.get("labelSelector"),
            nodes.query.get("fieldSelector")
        ),
        (None, None),
        "{}: valkeynodes are listed whole: {}",
        m.label,
        nodes.uri
    );
    let clusters = by_kind("valkeyclusters");
    let want = cluster.map(|c| format!("metadata.name={c}"));
    assert_eq!(
        clusters.query.get("fieldSelector"),
        want.as_ref(),
        "{}: valkeyclusters: {}",
        m.label,
        clusters.uri
    );
}

/// A roll under way, so the events LIST has something to find: the first
/// node holds the permit (with its event), the next `asking` nodes ask.
async fn start_roll(sim: &Sim, names: &[String], asking: usize) {
    let h = sim::hash("revision-1");
    let asking: Vec<&str> = names.iter().take(asking + 1).map(String::as_str).collect();
    sim.ask(&asking, &h).await;
    if let Some(first) = names.first() {
        sim.node(first).grant(&h).await;
        sim.event_permitted(first, &h).await;
    }
}

/// A healthy cluster of `shards` x (1 + `replicas`) nodes, as `Sim::build`
/// makes it, its nodes built `PARALLEL` at a time. Returns the sim and the
/// node names.
async fn big_cluster(ns: &str, shards: u32, replicas: u32) -> (Sim, Vec<String>) {
    let layout = Layout {
        shards,
        replicas,
        last_rollout_hash: true,
        ..Layout::default()
    };
    let client = harness::server().client().await;
    let sim = Sim::build_cluster(client, ns, "cache", &layout).await;
    let places: Vec<(u32, u32)> = (0..shards)
        .flat_map(|shard| (0..=replicas).map(move |idx| (shard, idx)))
        .collect();
    let names: Vec<String> = places.iter().map(|(s, i)| sim.node_name(*s, *i)).collect();
    futures::stream::iter(places)
        .map(|(shard, idx)| sim.build_node(shard, idx, &layout))
        .buffer_unordered(PARALLEL)
        .collect::<Vec<()>>()
        .await;
    (sim, names)
}

#[tokio::test]
async fn status_costs_the_same_requests_for_3_and_300_nodes() {
    let s = harness::server();

    let small_ns = s.fresh_namespace("count-small");
    let small = Sim::build(
        s.client().await,
        &small_ns,
        "cache",
        &Layout {
            shards: 1,
            replicas: 2,
            last_rollout_hash: true,
            ..Layout::default()
        },
    )
    .await;
    let small_names: Vec<String> = (0..3).map(|i| small.node_name(0, i)).collect();
    start_roll(&small, &small_names, 1).await;

    let big_ns = s.fresh_namespace("count-big");
    let built = Instant::now();
    let (big, big_names) = big_cluster(&big_ns, 100, 2).await;
    start_roll(&big, &big_names, 20).await;
    let build_took = built.elapsed();

    let runs = [
        (
            measure("small-named", &small_ns, &["cache"]).await,
            measure("big-named", &big_ns, &["cache"]).await,
            Some("cache"),
        ),
        (
            measure("small-all", &small_ns, &[]).await,
            measure("big-all", &big_ns, &[]).await,
            None,
        ),
    ];

    eprintln!(
        "request count: built 300 nodes (ValkeyNode, StatefulSet, Pod, statuses; {PARALLEL} at a time) in {:.1}s",
        build_took.as_secs_f64()
    );
    for (a, b, cluster) in &runs {
        for m in [a, b] {
            eprintln!(
                "request count: {:<12} {:>3} nodes: {} requests ({}), {} ms",
                m.label,
                m.nodes,
                m.requests.len(),
                m.requests
                    .iter()
                    .map(|r| format!("{} {}", r.verb, r.resource))
                    .collect::<Vec<_>>()
                    .join(", "),
                m.took.as_millis()
            );
        }
        assert_eq!(a.nodes, 3, "{}", a.label);
        assert_eq!(b.nodes, 300, "{}", b.label);
        check_requests(a, &small_ns, *cluster);
        check_requests(b, &big_ns, *cluster);
        assert_eq!(
            a.requests.len(),
            b.requests.len(),
            "{} vs {}: the count must not grow with the cluster",
            a.label,
            b.label
        );
    }
}

#[test]
fn query_decoding() {
    let cases = [
        (
            "/apis/valkey.io/v1alpha1/namespaces/a/valkeynodes?labelSelector=valkey.io%2Fcluster%3Dcache",
            "labelSelector",
            "valkey.io/cluster=cache",
        ),
        (
            "/api/v1/namespaces/a/events?fieldSelector=involvedObject.apiVersion%3Dvalkey.io%2Fv1alpha1&limit=500",
            "fieldSelector",
            "involvedObject.apiVersion=valkey.io/v1alpha1",
        ),
        ("/api/v1/pods?x=a+b%2", "x", "a b%2"),
    ];
    for (uri, key, want) in cases {
        assert_eq!(query(uri).get(key).map(String::as_str), Some(want), "{uri}");
    }
}
