//! The cluster side of `bash tests/bench/run.sh`: a real API server with
//! clusters of realistic objects in it, and the snapshot files `-f` reads.
//! The figures themselves are taken by run.sh (the plugin, kubectl and curl
//! as separate processes); this program only prepares what they read.
//!
//! ```text
//! cluster serve DIR N...     the harness's API server (tests/harness), one
//!                            namespace per size N with an N-node cluster
//!                            (objects.rs) created through the API; writes
//!                            DIR/env.sh, then waits until DIR/stop exists;
//!                            `CxN`: C clusters of N nodes, each in its own
//!                            namespace; `CxN@one`: all in one namespace,
//!                            named cache-000, cache-001, ...
//! cluster file N OUT         a kubectl List (JSON) of one N-node cluster
//!                            in namespace `prod`, as objects.rs makes it
//! cluster bundle MIB OUT     a kubectl List of 8-node clusters, one per
//!                            namespace, until OUT holds MIB MiB (YAML,
//!                            or JSON when OUT ends in .json)
//! ```
//!
//! Run with no command (as `cargo test --all-targets` does), it checks that
//! the generated objects read as the plugin's snapshot types.

#[path = "../harness/mod.rs"]
#[allow(unused_imports)]
mod harness;
mod objects;

use kubectl_valkey_roll::fixture;

use futures::StreamExt;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Requests in flight while loading: enough to keep kube-apiserver busy on
/// two cores.
const CONCURRENCY: usize = 24;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.first().map(String::as_str) {
        Some("serve") if args.len() >= 3 => {
            // `N`: one N-node cluster; `CxN`: C clusters of N nodes, each
            // in its own namespace (the exporter's benchmark); `CxN@one`:
            // all in one namespace (issue 33's benchmark).
            let sizes: Vec<Size> = args[2..]
                .iter()
                .map(|spec| {
                    let (size, one) = match spec.strip_suffix("@one") {
                        Some(size) => (size, true),
                        None => (spec.as_str(), false),
                    };
                    let (count, n) = size.split_once('x').unwrap_or(("1", size));
                    match (count.parse(), n.parse()) {
                        (Ok(count), Ok(n)) => Size { count, n, one },
                        _ => panic!("not a size: {spec}"),
                    }
                })
                .collect();
            serve(Path::new(&args[1]), &sizes);
        }
        Some("file") if args.len() == 3 => {
            let n: usize = args[1].parse().expect("nodes");
            let list = fixture::json::list(objects::cluster_items(objects::NAMESPACE, n));
            let text = serde_json::to_string_pretty(&list).expect("JSON");
            std::fs::write(&args[2], text + "\n").expect("write");
        }
        Some("bundle") if args.len() == 3 => {
            let mib: usize = args[1].parse().expect("MiB");
            bundle(mib, Path::new(&args[2]));
        }
        None => self_check(),
        _ => {
            eprintln!("usage: cluster serve DIR N... | cluster bundle MIB OUT");
            std::process::exit(2);
        }
    }
}

/// The generated objects read as the snapshot types (a broken generator
/// would make every figure meaningless).
fn self_check() {
    let items = objects::cluster_items("bench", 3);
    let text = serde_json::to_vec(&fixture::json::list(items)).expect("JSON");
    let snapshot = kubectl_valkey_roll::source::file::parse_snapshot(&text, "generated")
        .unwrap_or_else(|e| panic!("the generated objects do not read: {e}"));
    assert_eq!(
        (
            snapshot.clusters.len(),
            snapshot.nodes.len(),
            snapshot.stateful_sets.len(),
            snapshot.pods.len()
        ),
        (1, 3, 3, 3)
    );
    println!("cluster: generated objects read; run `bash tests/bench/run.sh` for figures");
}

/// Creates one object, then writes its status (the API server drops the
/// status of a create), as the operator and the kubelet would.
async fn load_one(client: kube::Client, namespace: String, mut item: Value) {
    let ar = harness::sim::api_resource(
        item["apiVersion"].as_str().unwrap_or_default(),
        item["kind"].as_str().unwrap_or_default(),
    );
    let api: Api<DynamicObject> = Api::namespaced_with(client, &namespace, &ar);
    let status = item.as_object_mut().and_then(|m| m.remove("status"));
    if let Some(meta) = item["metadata"].as_object_mut() {
        // The server's to set.
        for key in [
            "resourceVersion",
            "uid",
            "managedFields",
            "creationTimestamp",
            "generation",
        ] {
            meta.remove(key);
        }
    }
    let name = item["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let object: DynamicObject = serde_json::from_value(item).expect("object");
    let pp = PostParams {
        field_manager: Some(harness::sim::MANAGER.into()),
        ..PostParams::default()
    };
    let mut tries = 0;
    loop {
        match api.create(&pp, &object).await {
            Ok(_) => break,
            Err(e) if tries < 5 => {
                tries += 1;
                eprintln!("create {} {name}: {e} (again)", ar.kind);
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => panic!("create {} {name}: {e}", ar.kind),
        }
    }
    if let Some(status) = status {
        let manager = match ar.kind.as_str() {
            "Pod" => "kubelet",
            "StatefulSet" | "Deployment" => "kube-controller-manager",
            _ => harness::sim::MANAGER,
        };
        api.patch_status(
            &name,
            &PatchParams {
                field_manager: Some(manager.into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({ "status": status })),
        )
        .await
        .unwrap_or_else(|e| panic!("status of {} {name}: {e}", ar.kind));
    }
}

/// What `serve` loads: `count` clusters of `n` nodes, in one namespace
/// when `one`, else each in its own.
struct Size {
    count: usize,
    n: usize,
    one: bool,
}

fn serve(dir: &Path, sizes: &[Size]) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let _ = std::fs::remove_file(dir.join("stop"));
    let server = harness::server();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut env = format!(
        "export BENCH_URL={}\nexport BENCH_KUBECONFIG={}\nexport BENCH_AUDIT={}\nexport KUBECACHEDIR={}\nexport BENCH_SERVER_VERSION={}\n",
        server.url(),
        server.kubeconfig().display(),
        server.audit_log().display(),
        server.workdir().join("kube-cache").display(),
        server.version(),
    );
    for &Size { count, n, one } in sizes {
        let started = Instant::now();
        let mut first_namespace: Option<String> = None;
        let mut objects = 0;
        for c in 0..count {
            let hint = if count == 1 {
                format!("bench-{n}")
            } else {
                format!("bench-{count}x{n}")
            };
            let namespace = match &first_namespace {
                Some(ns) if one => ns.clone(),
                _ => server.fresh_namespace(&hint),
            };
            let items = if one {
                objects::cluster_items_named(&namespace, &format!("cache-{c:03}"), n)
            } else {
                objects::cluster_items(&namespace, n)
            };
            objects += items.len();
            rt.block_on(async {
                let client = server.client().await;
                // Clusters and nodes first (the others name them), then the rest.
                let (first, rest): (Vec<Value>, Vec<Value>) = items
                    .into_iter()
                    .partition(|i| i["apiVersion"] == "valkey.io/v1alpha1");
                for batch in [first, rest] {
                    futures::stream::iter(batch)
                        .map(|item| load_one(client.clone(), namespace.clone(), item))
                        .buffer_unordered(CONCURRENCY)
                        .collect::<Vec<()>>()
                        .await;
                }
            });
            first_namespace.get_or_insert(namespace);
        }
        let namespace = first_namespace.unwrap_or_default();
        let spec = match (count, one) {
            (1, _) => n.to_string(),
            (_, false) => format!("{count}x{n}"),
            (_, true) => format!("{count}x{n}one"),
        };
        eprintln!(
            "cluster: {spec} nodes ({objects} objects) from namespace {namespace} in {:.1}s",
            started.elapsed().as_secs_f64()
        );
        env.push_str(&format!("export BENCH_NS_{spec}={namespace}\n"));
    }
    let env_path = dir.join("env.sh");
    std::fs::write(dir.join("env.sh.tmp"), env).expect("write env");
    std::fs::rename(dir.join("env.sh.tmp"), &env_path).expect("rename env");
    eprintln!("cluster: ready ({})", env_path.display());
    // Until run.sh says stop, or is gone (then this process is orphaned).
    let stop: PathBuf = dir.join("stop");
    // SAFETY: getppid has no preconditions.
    while !stop.exists() && unsafe { libc::getppid() } != 1 {
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = std::fs::remove_file(env_path);
}

/// A kubectl List of one 8-node cluster per namespace, written item by
/// item (never held whole), until the file holds `mib` MiB.
fn bundle(mib: usize, out: &Path) {
    let json = out.extension().is_some_and(|e| e == "json");
    let file = std::fs::File::create(out).expect("create bundle");
    let mut w = std::io::BufWriter::new(file);
    let target = mib * 1024 * 1024;
    let mut written = 0usize;
    let mut namespaces = 0usize;
    let mut first = true;
    let head = if json {
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"},\"items\":[\n"
    } else {
        "apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n"
    };
    w.write_all(head.as_bytes()).expect("write");
    written += head.len();
    while written < target {
        namespaces += 1;
        for item in objects::cluster_items(&format!("team-{namespaces:04}"), 8) {
            let text = if json {
                let mut t = if first { String::new() } else { ",\n".into() };
                t.push_str(&serde_json::to_string(&item).expect("JSON"));
                t
            } else {
                let yaml = kubectl_valkey_roll::render::json::to_yaml(&item).expect("YAML");
                let mut t = String::with_capacity(yaml.len() + 64);
                for (i, line) in yaml.lines().enumerate() {
                    t.push_str(if i == 0 { "- " } else { "  " });
                    t.push_str(line);
                    t.push('\n');
                }
                t
            };
            first = false;
            w.write_all(text.as_bytes()).expect("write");
            written += text.len();
        }
    }
    if json {
        w.write_all(b"\n]}\n").expect("write");
    }
    w.flush().expect("flush");
    eprintln!(
        "cluster: {} with {namespaces} namespaces, {:.0} MiB",
        out.display(),
        written as f64 / 1048576.0
    );
}
