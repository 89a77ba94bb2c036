//! Several kubeconfig contexts at once, on two real API servers (each its
//! own etcd and CA) and a third context whose server is not there
//! (https://127.0.0.1:1, refused): `status` shows one report with the
//! context of each cluster (the CONTEXT column, JSON `context`), `wait`
//! waits on both, `exporter` serves both; the unreachable context is a
//! warning line naming it and exit 7 (`status`, `wait`), a context marked
//! not ready (`exporter`), never a row missing without a word.

mod harness;
#[path = "exporter/scrape.rs"]
mod scrape;

use harness::plugin::run;
use harness::sim::{self, Layout, Sim};
use scrape::Exporter;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

const BOUND: Duration = Duration::from_secs(90);

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("read a kubeconfig");
    serde_saphyr::from_str(&text).expect("a kubeconfig")
}

/// One kubeconfig with contexts `a` (the first server, namespace `ns_a`),
/// `b` (the second, `ns_b`) and `gone` (nothing listens there).
fn kubeconfig(dir: &Path, ns_a: &str, ns_b: &str) -> String {
    let a = yaml(harness::server().kubeconfig());
    let b = yaml(harness::second_server().kubeconfig());
    let cluster = |k: &Value, name: &str, server: Option<&str>| {
        let mut c = k["clusters"][0].clone();
        c["name"] = json!(name);
        if let Some(server) = server {
            c["cluster"]["server"] = json!(server);
        }
        c
    };
    let user = |k: &Value, name: &str| {
        let mut u = k["users"][0].clone();
        u["name"] = json!(name);
        u
    };
    let context = |name: &str, ns: &str| json!({"name": name, "context": {"cluster": name, "user": name, "namespace": ns}});
    let merged = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [cluster(&a, "a", None), cluster(&b, "b", None),
                     cluster(&a, "gone", Some("https://127.0.0.1:1"))],
        "users": [user(&a, "a"), user(&b, "b"), user(&a, "gone")],
        "contexts": [context("a", ns_a), context("b", ns_b), context("gone", ns_a)],
        "current-context": "a",
    });
    let path = dir.join("kubeconfig.json");
    std::fs::write(&path, merged.to_string()).expect("write the kubeconfig");
    path.display().to_string()
}

fn clusters(doc: &Value) -> Vec<(Value, String, String, String)> {
    doc["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .map(|c| {
            (
                c["context"].clone(),
                c["namespace"].as_str().unwrap_or("").to_string(),
                c["name"].as_str().unwrap_or("").to_string(),
                c["verdict"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_wait_and_exporter_over_two_servers_and_an_unreachable_context() {
    let (s1, s2) = (harness::server(), harness::second_server());
    let ns_a = s1.fresh_namespace("ctx-a");
    let ns_b = s2.fresh_namespace("ctx-b");
    Sim::build(s1.client().await, &ns_a, "cache", &Layout::default()).await;
    let store = Sim::build(s2.client().await, &ns_b, "store", &Layout::default()).await;
    // b's roll waits: a node asks for a revision nobody grants.
    store.ask(&["store-0-1"], &sim::hash("ctx-b")).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = kubeconfig(dir.path(), &ns_a, &ns_b);
    let with = |args: &[&str]| -> Vec<String> {
        ["--kubeconfig", kc.as_str()]
            .iter()
            .chain(args)
            .map(|s| s.to_string())
            .collect()
    };
    let status = |args: &[&str]| run(&with(args).iter().map(String::as_str).collect::<Vec<_>>());

    // Two contexts: one report, each cluster with its context.
    let both = status(&["status", "--context", "a", "--context", "b", "-o", "json"]);
    assert_eq!(both.code, 0, "{}", both.both());
    assert_eq!(
        clusters(&both.json()),
        [
            (json!("a"), ns_a.clone(), "cache".into(), "Converged".into()),
            (json!("b"), ns_b.clone(), "store".into(), "Waiting".into()),
        ],
        "{}",
        both.both()
    );
    assert_eq!(both.stderr, "");

    // One context: as ever, `context` null.
    let one = status(&["status", "--context", "b", "-o", "json"]);
    assert_eq!(one.code, 0, "{}", one.both());
    assert_eq!(
        clusters(&one.json()),
        [(Value::Null, ns_b.clone(), "store".into(), "Waiting".into())]
    );

    // An unreachable context: a warning naming it, exit 7, the others shown.
    let table = status(&[
        "status",
        "--context",
        "a",
        "--context",
        "gone",
        "--context",
        "b",
    ]);
    assert_eq!(table.code, 7, "{}", table.both());
    assert!(
        table
            .stderr
            .starts_with("warning: context gone could not be read, its clusters are missing from this report: cannot reach the API server https://127.0.0.1:1"),
        "{}",
        table.both()
    );
    let lines: Vec<&str> = table.stdout.lines().collect();
    assert!(lines[0].starts_with("CONTEXT  CLUSTER"), "{}", table.stdout);
    assert!(
        lines[1].starts_with(&format!("a        {ns_a}/cache  ")) && lines[1].contains("CONVERGED"),
        "{}",
        table.stdout
    );
    assert!(
        lines[2].starts_with(&format!("b        {ns_b}/store  ")) && lines[2].contains("WAITING"),
        "{}",
        table.stdout
    );
    assert!(table.stdout.contains("--- context a\n"), "{}", table.stdout);
    assert!(table.stdout.contains("--- context b\n"), "{}", table.stdout);
    assert!(!table.stdout.contains("gone"), "{}", table.stdout);

    // --all-contexts: the same three.
    let all = status(&["status", "--all-contexts", "-o", "json"]);
    assert_eq!(all.code, 7, "{}", all.both());
    assert_eq!(clusters(&all.json()).len(), 2, "{}", all.both());
    assert!(
        all.stderr.contains("context gone could not be read"),
        "{}",
        all.both()
    );
    // --exit-code: a roll that needs attention still says 3; here none does.
    let coded = status(&["status", "--all-contexts", "--exit-code", "-o", "json"]);
    assert_eq!(coded.code, 7, "{}", coded.both());

    // wait: a Converged and an unreachable context: 7, not 0.
    let waited = status(&[
        "wait",
        "--context",
        "a",
        "--context",
        "gone",
        "--timeout",
        "60s",
    ]);
    assert_eq!(waited.code, 7, "{}", waited.both());
    assert!(
        waited.stderr.contains("context gone could not be read"),
        "{}",
        waited.both()
    );
    assert!(
        waited.stderr.contains(&format!("a: {ns_a}/cache: ")),
        "progress names the context:\n{}",
        waited.both()
    );
    // wait on both reachable ones: b never converges: the timeout.
    let timed = status(&[
        "wait",
        "--context",
        "a",
        "--context",
        "b",
        "--timeout",
        "5s",
    ]);
    assert_eq!(timed.code, 5, "{}", timed.both());

    // The exporter: both clusters, each labelled; gone marked not ready.
    let exporter = Exporter::start(
        &with(&["--context", "a", "--context", "b", "--context", "gone"]),
        BOUND,
    )
    .await;
    let (ns_a2, ns_b2) = (ns_a.clone(), ns_b.clone());
    let m = scrape::until("both contexts' clusters scraped", BOUND, || async {
        let m = exporter.metrics().await;
        let a = m.verdict(&[
            ("context", "a"),
            ("namespace", &ns_a2),
            ("cluster", "cache"),
        ]);
        let b = m.verdict(&[
            ("context", "b"),
            ("namespace", &ns_b2),
            ("cluster", "store"),
        ]);
        let gone = m.value(
            "valkey_roll_exporter_errors_total",
            &[("context", "gone"), ("error", "unreachable")],
        );
        match (a.as_deref(), b.as_deref(), gone) {
            (Some("Converged"), Some("Waiting"), Some(n)) if n >= 1.0 => Ok(m),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert_eq!(
        m.value("valkey_roll_exporter_ready", &[("context", "a")]),
        Some(1.0)
    );
    assert_eq!(
        m.value("valkey_roll_exporter_ready", &[("context", "b")]),
        Some(1.0)
    );
    assert_eq!(
        m.value("valkey_roll_exporter_ready", &[("context", "gone")]),
        Some(0.0)
    );
    assert!(
        m.samples("valkey_roll_verdict", &[("context", "gone")])
            .is_empty(),
        "{}",
        m.text
    );
    let (code, why) = exporter.get("/readyz").await;
    assert_eq!(code, 503, "{why}");
    assert!(why.contains("context a: ready\n"), "{why}");
    assert!(why.contains("context b: ready\n"), "{why}");
    assert!(why.contains("context gone: not ready: "), "{why}");
    let (ok, words) = scrape::promtool_check(&harness::promtool(), &m.text);
    assert!(ok, "{words}\n{}", m.text);
}
