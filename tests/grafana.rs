//! Issue 32 item 3: deploy/grafana/valkey-roll.json, the Grafana dashboard
//! over the exporter's metrics. It follows Grafana's dashboard schema (read
//! strictly by the Grafana Foundation SDK's Go types: testbin/grafana);
//! every expression parses (the panels' queries and the variables'
//! selectors, with the dashboard's variables substituted, as recording
//! rules through `promtool check rules`); and every metric and label name
//! it uses is one a real exporter serves (scraped against the control
//! plane and the simulated operator: settled, rolling, then with the
//! operator gone mid-roll, with `--servers` and no Secret to read them
//! with, until every family has shown a sample), and
//! every family it serves is shown.

mod harness;
#[path = "exporter/scrape.rs"]
mod scrape;

use harness::common::root;
use harness::controlplane::eventually;
use harness::operator::{Operator, Step};
use scrape::Exporter;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::Duration;

const DASHBOARD: &str = "deploy/grafana/valkey-roll.json";

fn dashboard() -> Value {
    let path = root().join(DASHBOARD);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{DASHBOARD}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{DASHBOARD}: {e}"))
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd.output().expect("run");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Every panel, rows' own panels included.
fn panels(d: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    for p in d["panels"].as_array().into_iter().flatten() {
        out.push(p);
        out.extend(p["panels"].as_array().into_iter().flatten());
    }
    out
}

/// Every PromQL expression of the dashboard: (where, expression), the
/// variables' `label_values(SELECTOR, label)` as their selector.
fn expressions(d: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in panels(d) {
        for t in p["targets"].as_array().into_iter().flatten() {
            if let Some(e) = t["expr"].as_str() {
                out.push((
                    format!("panel {:?} {}", p["title"], t["refId"]),
                    e.to_string(),
                ));
            }
        }
    }
    for v in d["templating"]["list"].as_array().into_iter().flatten() {
        if v["type"] != "query" {
            continue;
        }
        let q = v["query"]["query"].as_str().expect("a variable's query");
        let inner = q
            .strip_prefix("label_values(")
            .and_then(|r| r.strip_suffix(')'))
            .and_then(|r| r.rsplit_once(','))
            .map(|(sel, label)| (sel.trim().to_string(), label.trim().to_string()))
            .unwrap_or_else(|| {
                panic!(
                    "variable {}: not label_values(SELECTOR, LABEL): {q}",
                    v["name"]
                )
            });
        // The label it lists must be on the selector's series: asked as a
        // grouping, so the label check below sees it.
        out.push((
            format!("variable {}", v["name"]),
            format!("count by ({}) ({})", inner.1, inner.0),
        ));
    }
    out
}

/// The expression as Prometheus would get it from Grafana: every variable
/// substituted (All is `.*`, as the variables' allValue).
fn substituted(expr: &str, d: &Value) -> String {
    let mut s = expr.to_string();
    for v in d["templating"]["list"].as_array().into_iter().flatten() {
        let name = v["name"].as_str().expect("name");
        let value = match v["type"].as_str() {
            Some("custom") => v["query"].as_str().expect("custom value").to_string(),
            _ => ".*".to_string(),
        };
        s = s.replace(&format!("${{{name}}}"), &value);
        s = s.replace(&format!("${name}"), &value);
    }
    s.replace("$__rate_interval", "1m")
        .replace("$__interval", "30s")
        .replace("$__range", "1h")
}

#[test]
fn the_dashboard_follows_grafanas_schema() {
    let validator = harness::grafana_validator();
    let (ok, out) = run(Command::new(&validator).arg(root().join(DASHBOARD)));
    assert!(ok, "validate-grafana-dashboard:\n{out}");
    assert!(out.contains(": ok: schemaVersion"), "{out}");
    // The check can fail: a field Grafana does not know, an option of the
    // wrong type.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut d = dashboard();
    d["panels"][1]["colour"] = json!("red");
    d["panels"][2]["options"]["displayMode"] = json!(7);
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, d.to_string()).expect("write");
    let (ok, out) = run(Command::new(&validator).arg(&bad));
    assert!(!ok, "{out}");
    assert!(
        out.contains("colour") && out.contains("displayMode"),
        "{out}"
    );
}

#[test]
fn every_expression_parses_as_promtool_reads_it() {
    let d = dashboard();
    let exprs = expressions(&d);
    assert!(exprs.len() >= 15, "{exprs:?}");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rules = Vec::new();
    for (i, (what, e)) in exprs.iter().enumerate() {
        let e = substituted(e, &d);
        assert!(!e.contains('$'), "{what}: a variable left in {e}");
        rules.push(json!({"record": format!("valkey_roll_dashboard:q{i}"), "expr": e}));
    }
    let file = json!({"groups": [{"name": "dashboard", "rules": rules}]});
    // YAML is a superset of JSON: promtool reads it as a rules file.
    std::fs::write(dir.path().join("rules.yaml"), file.to_string()).expect("write");
    let (ok, out) = run(Command::new(harness::promtool())
        .args(["check", "rules", "rules.yaml"])
        .current_dir(dir.path()));
    assert!(ok, "promtool check rules:\n{out}");
    assert!(
        out.contains(&format!("SUCCESS: {} rules found", exprs.len())),
        "{out}"
    );
    // And it can fail: a query that does not parse.
    let broken = json!({"groups": [{"name": "d", "rules": [
        {"record": "x:y", "expr": substituted("sum by (context (valkey_roll_info{context=~\"$context\"})", &d)}
    ]}]});
    std::fs::write(dir.path().join("broken.yaml"), broken.to_string()).expect("write");
    let (ok, out) = run(Command::new(harness::promtool())
        .args(["check", "rules", "broken.yaml"])
        .current_dir(dir.path()));
    assert!(!ok, "{out}");
}

/// PromQL's functions, aggregations and keywords this dashboard may use:
/// any other name is a metric's.
const PROMQL: &[&str] = &[
    "sum",
    "max",
    "min",
    "avg",
    "count",
    "topk",
    "bottomk",
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "or",
    "and",
    "unless",
    "time",
    "vector",
    "increase",
    "rate",
    "irate",
    "delta",
    "changes",
    "resets",
    "clamp_min",
    "clamp_max",
    "label_replace",
    "absent",
    "max_over_time",
    "min_over_time",
    "bool",
];

/// The names an expression uses: metrics, and label names by metric (""
/// for those in a grouping, which any of its metrics may carry).
fn names(expr: &str) -> (BTreeSet<String>, BTreeMap<String, BTreeSet<String>>) {
    // Strings and ranges hold no names.
    let mut plain = String::new();
    let mut chars = expr.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                for d in chars.by_ref() {
                    if d == '"' {
                        break;
                    }
                }
                plain.push_str("\"\"");
            }
            '[' => {
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                }
            }
            c => plain.push(c),
        }
    }
    let mut metrics = BTreeSet::new();
    let mut labels: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut last_metric = String::new();
    let (mut in_braces, mut in_grouping, mut grouping_next) = (false, false, false);
    let mut word = String::new();
    let flush = |word: &mut String,
                 next: char,
                 in_braces: bool,
                 in_grouping: bool,
                 grouping_next: &mut bool,
                 last_metric: &mut String,
                 metrics: &mut BTreeSet<String>,
                 labels: &mut BTreeMap<String, BTreeSet<String>>| {
        if word.is_empty() || word.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            word.clear();
            return;
        }
        let w = std::mem::take(word);
        if in_braces {
            labels.entry(last_metric.clone()).or_default().insert(w);
        } else if in_grouping {
            labels.entry(String::new()).or_default().insert(w);
        } else if PROMQL.contains(&w.as_str()) {
            *grouping_next = matches!(
                w.as_str(),
                "by" | "without" | "on" | "ignoring" | "group_left" | "group_right"
            );
        } else if next == '(' {
            panic!("an unknown function {w} in {expr}");
        } else {
            metrics.insert(w.clone());
            *last_metric = w;
        }
    };
    for c in plain.chars().chain([' ']) {
        if c.is_ascii_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            flush(
                &mut word,
                c,
                in_braces,
                in_grouping,
                &mut grouping_next,
                &mut last_metric,
                &mut metrics,
                &mut labels,
            );
        }
        match c {
            '{' => in_braces = true,
            '}' => in_braces = false,
            '(' if grouping_next => {
                in_grouping = true;
                grouping_next = false;
            }
            ')' if in_grouping => in_grouping = false,
            c if !c.is_whitespace() => grouping_next = false,
            _ => {}
        }
    }
    (metrics, labels)
}

/// `{{label}}` in a legend.
fn legend_labels(legend: &str) -> Vec<String> {
    legend
        .split("{{")
        .skip(1)
        .filter_map(|r| r.split_once("}}").map(|(l, _)| l.trim().to_string()))
        .collect()
}

#[test]
fn the_name_reader_sees_metrics_and_labels() {
    let (m, l) = names(
        "max by (context, cluster) (valkey_roll_verdict{verdict=\"Jammed\", a=~\"$x\"} * 2) / on (node) foo_bar[5m]",
    );
    assert_eq!(
        m.into_iter().collect::<Vec<_>>(),
        ["foo_bar", "valkey_roll_verdict"]
    );
    assert_eq!(
        l["valkey_roll_verdict"].iter().collect::<Vec<_>>(),
        ["a", "verdict"]
    );
    assert_eq!(
        l[""].iter().collect::<Vec<_>>(),
        ["cluster", "context", "node"]
    );
}

/// The metric families a scrape declares, and the label names seen on
/// each one's samples.
fn served(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            if let Some(name) = rest.split_whitespace().next() {
                out.entry(name.to_string()).or_default();
            }
        } else if !line.starts_with('#')
            && let Some((name, rest)) = line.split_once('{')
        {
            let set = out.entry(name.to_string()).or_default();
            for pair in rest.split("\",") {
                if let Some((label, _)) = pair.split_once("=\"") {
                    set.insert(label.trim_start_matches(',').trim().to_string());
                }
            }
        }
    }
    out
}

const BOUND: Duration = Duration::from_secs(180);

/// The scrapes of a roll that shows every series: settled, then rolling
/// with one node rolled (an ETA), then the operator gone after applying
/// the second node's template, so that its pod is Ready and nobody acts
/// (operator quiet, after 30 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_metric_and_label_is_one_a_real_exporter_serves() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let d = dashboard();
    let cp = harness::control_plane();
    let ns = cp.fresh_namespace("grafana");
    let rolling = Arc::new(AtomicBool::new(false));
    let applied = Arc::new(AtomicUsize::new(0));
    let op = {
        let (rolling, applied) = (Arc::clone(&rolling), Arc::clone(&applied));
        Operator::start_halting(cp.client().await, &ns, "dash", move |s| {
            matches!(s, Step::Applied(_))
                && rolling.load(Ordering::SeqCst)
                && applied.fetch_add(1, Ordering::SeqCst) + 1 == 2
        })
    };
    op.create_cluster("valkey/valkey:9.0.0", 2, 1).await;
    let args: Vec<String> = [
        "--kubeconfig",
        &cp.kubeconfig().display().to_string(),
        "-n",
        &ns,
    ]
    .map(String::from)
    .to_vec();
    // --servers with no Secret: every server counted unread, so the
    // servers' families are served too.
    let exporter = Exporter::start_with(&args, &["--servers"], BOUND).await;
    let labels = [("namespace", ns.as_str()), ("cluster", "dash")];
    let settled = eventually("a Converged scrape", BOUND, || async {
        op.check();
        let m = exporter.metrics().await;
        match m.verdict(&labels).as_deref() {
            Some("Converged") => Ok(m),
            v => Err(format!("verdict {v:?}")),
        }
    })
    .await;
    rolling.store(true, Ordering::SeqCst);
    op.sim
        .edit_cluster_spec(json!({"image": "valkey/valkey:9.0.1"}))
        .await;
    // Every scrape of the roll, until the families that need a rolled
    // node, a silent operator and the servers read have shown up.
    let mut serves = served(&settled.text);
    let wanted = [
        "valkey_roll_holder_seconds",
        "valkey_roll_front",
        "valkey_roll_eta_seconds",
        "valkey_roll_operator_quiet_seconds",
        "valkey_roll_servers_read",
        "valkey_roll_servers_unread",
    ];
    let deadline = std::time::Instant::now() + BOUND;
    let mut last = String::new();
    let mut at_risk = false;
    while !wanted.iter().all(|w| serves.contains_key(*w))
        || !serves.contains_key("valkey_roll_shard_at_risk")
    {
        // Then a shard at risk: the operator gone, shard 1's replica is
        // not ready while its primary is known (the sim's operator writes
        // no role).
        if wanted.iter().all(|w| serves.contains_key(*w)) && !at_risk {
            at_risk = true;
            op.sim
                .node("dash-1-0")
                .status_merge(json!({"role": "primary"}))
                .await;
            op.sim
                .node("dash-1-1")
                .status_merge(json!({"role": "replica", "ready": false}))
                .await;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not all of {wanted:?} served within {}s; last scrape:\n{last}",
            BOUND.as_secs()
        );
        let m = exporter.metrics().await;
        for (k, v) in served(&m.text) {
            serves.entry(k).or_default().extend(v);
        }
        last = m.text;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let mut failures = Vec::new();
    let mut used = BTreeSet::new();
    let legends: Vec<(String, String)> = panels(&d)
        .into_iter()
        .flat_map(|p| p["targets"].as_array().into_iter().flatten())
        .filter_map(|t| {
            Some((
                t["expr"].as_str()?.to_string(),
                t["legendFormat"].as_str()?.to_string(),
            ))
        })
        .collect();
    for (what, e) in expressions(&d) {
        let (metrics, labels) = names(&substituted(&e, &d));
        let mut any_label = BTreeSet::new();
        for m in &metrics {
            used.insert(m.clone());
            match serves.get(m) {
                None => failures.push(format!("{what}: {m} is not served")),
                Some(l) if l.is_empty() => failures.push(format!(
                    "{what}: {m} is served, but no sample of it was seen"
                )),
                Some(l) => any_label.extend(l.iter().cloned()),
            }
        }
        for (metric, names) in &labels {
            for label in names {
                let ok = if metric.is_empty() {
                    any_label.contains(label)
                } else {
                    serves.get(metric).is_some_and(|l| l.contains(label))
                };
                if !ok {
                    failures.push(format!("{what}: label {label} is not on {metric:?}"));
                }
            }
        }
        for (_, legend) in legends.iter().filter(|(x, _)| *x == e) {
            for label in legend_labels(legend) {
                if !any_label.contains(&label) {
                    failures.push(format!("{what}: legend label {label} is not served"));
                }
            }
        }
    }
    // The dashboard shows every family the exporter serves.
    for m in serves.keys() {
        if !used.contains(m) {
            failures.push(format!("{m} is served and not shown"));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\nserved: {serves:?}",
        failures.join("\n")
    );
}
