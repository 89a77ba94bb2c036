//! Figures for reading, judging and rendering clusters of 6, 300, 3000 and 10,000
//! nodes: `cargo bench --bench classify`.
//!
//! Each size is a P1 roll under way, as `kubectl get valkeyclusters,
//! valkeynodes,statefulsets,deployments,pods,events -o yaml
//! --show-managed-fields` would print it: a third of the nodes rolled (with
//! their WorkloadRollPermitted/WorkloadRollApplied events), one holder whose
//! new pod crash-loops (the cluster is Jammed), the rest asking. It is built
//! once as a kubectl `List` (serde_json), then read three ways: deserialized
//! into the crate's snapshot types directly, and parsed from the List's YAML
//! and JSON text with `source::file::parse_snapshot`. The snapshot from
//! YAML is the one judged and rendered.
//!
//! Each figure is the median of several runs (std::time::Instant). Peak
//! memory is the process's VmHWM (Linux), which only grows: read after a
//! size, it is the peak of that size and the smaller ones before it.
//! Nothing here asserts a time.
//!
//! Run as a test (`cargo test --all-targets`, which passes no `--bench`), it
//! does one quick run of the smallest size, so the code stays exercised.

mod objects;

use kubectl_valkey_roll::classify::classify;
use kubectl_valkey_roll::fixture::json::list;
use kubectl_valkey_roll::render::json::{to_json, to_yaml};
use kubectl_valkey_roll::render::table::{TableOptions, status_table};
use kubectl_valkey_roll::report::{Report, Verdict};
use kubectl_valkey_roll::snapshot::{Snapshot, ValkeyCluster, ValkeyNode};
use kubectl_valkey_roll::source::file::parse_snapshot;
use kubectl_valkey_roll::source::slim;
use objects::{NAMESPACE, cluster_items, now};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::hint::black_box;
use std::time::{Duration, Instant};

const THRESHOLD: Duration = Duration::from_secs(600);

fn typed<T: DeserializeOwned>(item: &Value) -> T {
    match serde_json::from_value(item.clone()) {
        Ok(t) => t,
        Err(e) => panic!("generated object does not fit the snapshot types: {e}"),
    }
}

/// The snapshot straight from the generated objects, through the crate's
/// snapshot types, slimmed as every reader slims them (pods and
/// StatefulSets into the snapshot's own forms).
fn built_snapshot(items: &[Value]) -> Snapshot {
    let mut s = Snapshot::default();
    for item in items {
        match item["kind"].as_str() {
            Some("ValkeyCluster") => s.clusters.push(typed::<ValkeyCluster>(item)),
            Some("ValkeyNode") => {
                let mut node = typed::<ValkeyNode>(item);
                slim::node(&mut node);
                s.nodes.push(node);
            }
            Some("StatefulSet") => s
                .stateful_sets
                .push(typed::<k8s_openapi::api::apps::v1::StatefulSet>(item).into()),
            Some("Pod") => s
                .pods
                .push(typed::<k8s_openapi::api::core::v1::Pod>(item).into()),
            Some("Event") => {
                let mut event = typed(item);
                slim::event(&mut event);
                s.events.push(event);
            }
            _ => {}
        }
    }
    s.normalize();
    s
}

/// The median of `runs` timings of `f` (at least one), and its last result.
/// Dropping a result is not timed.
fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let start = Instant::now();
    let mut last = black_box(f());
    let mut times = vec![start.elapsed()];
    for _ in 1..runs {
        let start = Instant::now();
        let out = black_box(f());
        times.push(start.elapsed());
        last = out;
    }
    times.sort_unstable();
    (times[times.len() / 2], last)
}

/// Peak resident memory so far (VmHWM, Linux), in MiB.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

fn mib(bytes: usize) -> String {
    format!("{:.2}", bytes as f64 / (1024.0 * 1024.0))
}

fn unwrap<T, E: std::fmt::Display>(r: Result<T, E>, what: &str) -> T {
    match r {
        Ok(t) => t,
        Err(e) => panic!("{what}: {e}"),
    }
}

struct Row {
    nodes: usize,
    runs: usize,
    objects: usize,
    yaml_bytes: usize,
    json_doc_bytes: usize,
    typed: Duration,
    parse_yaml: Duration,
    parse_json: Duration,
    classify: Duration,
    table: Duration,
    wide: Duration,
    json: Duration,
    yaml: Duration,
    same: bool,
    verdict: Verdict,
    peak: Option<f64>,
}

fn measure(nodes: usize, runs: usize) -> Row {
    let items = cluster_items(NAMESPACE, nodes);
    let objects = items.len();
    let (typed_time, built) = median(runs, || built_snapshot(&items));
    let list = list(items);
    let yaml_text = unwrap(to_yaml(&list), "List to YAML");
    let json_text = unwrap(serde_json::to_string(&list), "List to JSON");
    drop(list);

    let (parse_yaml, snapshot) = median(runs, || {
        unwrap(
            parse_snapshot(yaml_text.as_bytes(), "bench.yaml"),
            "parse YAML",
        )
    });
    let (parse_json, from_json) = median(runs, || {
        unwrap(
            parse_snapshot(json_text.as_bytes(), "bench.json"),
            "parse JSON",
        )
    });
    // Two readings of the same objects must be the same snapshot.
    let same = snapshot == built && snapshot == from_json;
    drop((built, from_json));

    let (classify_time, report): (Duration, Report) =
        median(runs, || classify(&snapshot, now(), THRESHOLD));
    let verdict = report
        .clusters
        .first()
        .map(|c| c.verdict)
        .unwrap_or(Verdict::Converged);
    let opts = |wide| TableOptions { wide, color: false };
    let (table, _) = median(runs, || status_table(&report, opts(false)));
    let (wide, _) = median(runs, || status_table(&report, opts(true)));
    let (json, doc) = median(runs, || unwrap(to_json(&report), "report to JSON"));
    let (yaml, _) = median(runs, || unwrap(to_yaml(&report), "report to YAML"));
    Row {
        nodes,
        runs,
        objects,
        yaml_bytes: yaml_text.len(),
        json_doc_bytes: doc.len(),
        typed: typed_time,
        parse_yaml,
        parse_json,
        classify: classify_time,
        table,
        wide,
        json,
        yaml,
        same,
        verdict,
        peak: peak_mib(),
    }
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    // (nodes, runs): fewer runs where one run is long; all of it in well
    // under a minute in a release build.
    let sizes: &[(usize, usize)] = if bench {
        &[(6, 201), (300, 21), (3000, 5), (10_000, 3)]
    } else {
        &[(6, 1)]
    };
    let started = Instant::now();
    let rows: Vec<Row> = sizes.iter().map(|&(n, runs)| measure(n, runs)).collect();

    println!(
        "kubectl-valkey-roll: median milliseconds per operation (stall threshold {}s)",
        THRESHOLD.as_secs()
    );
    println!(
        "{:>5} {:>5} {:>7} {:>9} {:>9} {:>10} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>7} {:>9}",
        "nodes",
        "runs",
        "objects",
        "yaml MiB",
        "typed",
        "parse yaml",
        "parse json",
        "classify",
        "table",
        "wide",
        "json",
        "yaml",
        "doc MiB",
        "verdict",
        "same",
        "peak MiB"
    );
    for r in &rows {
        println!(
            "{:>5} {:>5} {:>7} {:>9} {:>9} {:>10} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>7} {:>9}",
            r.nodes,
            r.runs,
            r.objects,
            mib(r.yaml_bytes),
            ms(r.typed),
            ms(r.parse_yaml),
            ms(r.parse_json),
            ms(r.classify),
            ms(r.table),
            ms(r.wide),
            ms(r.json),
            ms(r.yaml),
            mib(r.json_doc_bytes),
            format!("{:?}", r.verdict),
            if r.same { "yes" } else { "NO" },
            r.peak
                .map(|p| format!("{p:.1}"))
                .unwrap_or_else(|| "-".into()),
        );
    }
    println!(
        "typed: the List's objects deserialized into the snapshot types; parse: source::file::parse_snapshot \
         on the List as YAML / JSON text; same: the three snapshots are equal; peak: VmHWM after the size \
         (it only grows). Total {:.1}s.",
        started.elapsed().as_secs_f64()
    );
    // The three readings must agree: a figure of a different snapshot is
    // no figure. `cargo test` runs this (one small size), so it fails there.
    if rows.iter().any(|r| !r.same) {
        eprintln!("the built, YAML and JSON snapshots differ");
        std::process::exit(1);
    }
}
