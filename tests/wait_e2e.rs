//! `wait` against the real API server, with the simulated operator driving
//! a roll in the background, one write at a time (docs/plugin.md, "A roll, write
//! by write").
//!
//! Every wait here is bounded so that a broken build fails instead of
//! hanging; the only timing assertion is the 15 s bound on failing fast.

mod harness;

use harness::plugin::Plugin;
use harness::sim::{self, Layout, Sim};
use serde_json::json;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// Generous bound for anything that should happen "soon" (each
/// [`Plugin::until`] wait).
const BOUND: Duration = Duration::from_secs(90);
/// Pause between the sim's writes, so the plugin sees the states between.
const PACE: Duration = Duration::from_millis(150);

async fn pace() {
    tokio::time::sleep(PACE).await;
}

/// Builder-only roll (P1), rows 1 and 2: both nodes ask for `h`.
async fn both_ask(sim: &Sim, h: &str) {
    sim.ask(&["cache-0-1", "cache-0-0"], h).await;
}

/// Row 3: the cluster controller grants `node` (annotation, then event).
async fn grant(sim: &Sim, node: &str, h: &str) {
    sim.node(node).grant(h).await;
    pace().await;
    sim.event_permitted(node, h).await;
    pace().await;
}

/// Rows 5 to 8 for one node: the template applied, the asks removed, the
/// old pod deleted and gone; the node not ready.
async fn apply_and_replace_pod(sim: &Sim, node: &str, h: &str) {
    let n = sim.node(node);
    n.workload().apply_template(h).await;
    pace().await;
    sim.event_applied(node, h).await;
    pace().await;
    n.remove_desired().await;
    pace().await;
    n.clear_drift().await;
    pace().await;
    n.workload().catch_up().await;
    pace().await;
    n.pod().begin_delete().await;
    pace().await;
    n.pod().finish_delete().await;
    pace().await;
    n.set_ready(false).await;
    pace().await;
}

/// Row 9: the new pod, Running, not Ready.
async fn new_pod_not_ready(sim: &Sim, node: &str, h: &str) {
    let pod = sim.node(node).pod_for(h);
    pod.create(h).await;
    pace().await;
    pod.running_not_ready().await;
    pace().await;
}

/// Rows 10 to 12: pod Ready and rolled out, permit released, node ready.
async fn finish_node(sim: &Sim, node: &str, h: &str) {
    let n = sim.node(node);
    n.pod_for(h).running_ready().await;
    pace().await;
    n.workload().rolled_out().await;
    pace().await;
    n.release().await;
    pace().await;
    n.set_ready(true).await;
    pace().await;
}

/// Rows 3 and 5 to 12 for one node.
async fn roll_node(sim: &Sim, node: &str, h: &str, first: bool) {
    grant(sim, node, h).await;
    if first {
        // Row 4.
        sim.cluster_updating().await;
        pace().await;
    }
    apply_and_replace_pod(sim, node, h).await;
    new_pod_not_ready(sim, node, h).await;
    finish_node(sim, node, h).await;
}

fn code(status: ExitStatus) -> i32 {
    status.code().unwrap_or(-1)
}

/// The index of the first stderr line that contains every word.
fn first_line_with(lines: &[String], words: &[&str]) -> Option<usize> {
    lines
        .iter()
        .position(|l| words.iter().all(|w| l.contains(w)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_exits_0_after_the_last_node_is_released_and_shows_the_holders_in_order() {
    let s = harness::server();
    let ns = s.fresh_namespace("wait-roll");
    let client = s.client().await;
    // Two clusters in view: `wait` without a name waits for both; `store`
    // stays Converged throughout.
    let sim = Sim::build(client.clone(), &ns, "cache", &Layout::default()).await;
    let _store = Sim::build(client.clone(), &ns, "store", &Layout::default()).await;
    let h = sim::hash("wait-roll");
    both_ask(&sim, &h).await;

    let mut wait = Plugin::spawn(
        &s.kubeconfig_in(&ns),
        &ns,
        &["wait", "--timeout", "10m"],
        BOUND,
    );
    wait.until_stderr("a first progress line", |l| l.starts_with("cache: "))
        .await;

    let driver = tokio::spawn({
        let h = h.clone();
        async move {
            roll_node(&sim, "cache-0-1", &h, true).await;
            roll_node(&sim, "cache-0-0", &h, false).await;
            let last_write = Instant::now();
            // Row 14: the only write that makes it Converged.
            sim.cluster_ready().await;
            last_write
        }
    });
    let status = wait.exit(Duration::from_secs(300)).await;
    let last_write = driver.await.expect("the roll driver");
    assert_eq!(code(status), 0, "{}", wait.transcript());
    assert!(
        wait.stdout.is_empty(),
        "table output: stdout stays empty\n{}",
        wait.transcript()
    );

    let first = first_line_with(&wait.stderr, &["cache: ", "cache-0-1 Rolling"]);
    let second = first_line_with(&wait.stderr, &["cache: ", "cache-0-0 Rolling"]);
    let (Some(first), Some(second)) = (first, second) else {
        panic!("progress lines name both holders\n{}", wait.transcript());
    };
    assert!(
        first < second,
        "cache-0-1 (the replica) rolls before cache-0-0 (the primary)\n{}",
        wait.transcript()
    );
    // A line only when a cluster's progress changes: none repeats the
    // cluster's line before it, and `store`, which never moves, has one.
    for prefix in ["cache: ", "store: "] {
        let lines: Vec<&String> = wait
            .stderr
            .iter()
            .filter(|l| l.starts_with(prefix))
            .collect();
        for pair in lines.windows(2) {
            assert_ne!(pair[0], pair[1], "{}", wait.transcript());
        }
    }
    assert_eq!(
        wait.stderr
            .iter()
            .filter(|l| l.starts_with("store: "))
            .count(),
        1,
        "{}",
        wait.transcript()
    );
    assert!(
        wait.stderr
            .iter()
            .any(|l| l.starts_with("cache: ") && l.contains("Converged")),
        "{}",
        wait.transcript()
    );
    assert!(
        wait.stderr.iter().any(|l| l.starts_with("store: ")),
        "both clusters in view\n{}",
        wait.transcript()
    );
    // It could not have exited before the last write: the driver's clock
    // stopped before `cluster_ready` was sent, and wait was still running
    // then (it only exits on Converged).
    assert!(last_write.elapsed() < Duration::from_secs(300));
}

/// Rows 1 to 8 of the builder-only roll: X holds the permit, its new pod is
/// about to come.
async fn holder_between_pods(sim: &Sim, h: &str) {
    both_ask(sim, h).await;
    grant(sim, "cache-0-1", h).await;
    sim.cluster_updating().await;
    apply_and_replace_pod(sim, "cache-0-1", h).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_in_crash_loop_makes_wait_exit_3_soon() {
    let s = harness::server();
    let sim = Sim::fresh("wait-jam", &Layout::default()).await;
    let ns = sim.ns.clone();
    let h = sim::hash("wait-jam");
    holder_between_pods(&sim, &h).await;

    let mut wait = Plugin::spawn(
        &s.kubeconfig_in(&ns),
        &ns,
        &["wait", "cache", "-o", "json"],
        BOUND,
    );
    wait.until_stderr("a first progress line", |l| l.contains("rolled"))
        .await;
    assert!(wait.exited().is_none(), "{}", wait.transcript());

    // Row 9': the new pod crash-loops.
    let pod = sim.node("cache-0-1").pod_for(&h);
    pod.create(&h).await;
    pod.crash_loop(3).await;
    let updated = Instant::now();
    let status = wait.exit(BOUND).await;
    let took = updated.elapsed();
    assert_eq!(code(status), 3, "{}", wait.transcript());
    assert!(
        took < Duration::from_secs(15),
        "exit 3 came {took:?} after the pod update\n{}",
        wait.transcript()
    );
    assert!(
        wait.stderr
            .iter()
            .any(|l| l.contains("/cache needs attention: JAMMED")),
        "{}",
        wait.transcript()
    );
    // -o json: the final report on stdout.
    let doc: serde_json::Value = serde_json::from_str(&wait.stdout.join("\n"))
        .unwrap_or_else(|e| panic!("stdout is one JSON document: {e}\n{}", wait.transcript()));
    assert_eq!(doc["clusters"][0]["verdict"], "Jammed", "{doc}");
    assert_eq!(doc["clusters"][0]["holders"], json!(["cache-0-1"]), "{doc}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_fail_fast_keeps_waiting_through_a_crash_loop_until_the_roll_completes() {
    let s = harness::server();
    let sim = Sim::fresh("wait-nff", &Layout::default()).await;
    let ns = sim.ns.clone();
    let h = sim::hash("wait-nff");
    holder_between_pods(&sim, &h).await;
    let pod = sim.node("cache-0-1").pod_for(&h);
    pod.create(&h).await;
    pod.crash_loop(3).await;

    let mut wait = Plugin::spawn(
        &s.kubeconfig_in(&ns),
        &ns,
        &["wait", "cache", "--no-fail-fast"],
        BOUND,
    );
    wait.until_stderr("the jam reported as progress", |l| {
        l.contains("Jammed") && l.contains("cache-0-1 Stuck")
    })
    .await;
    // Jammed, and still waiting.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(wait.exited().is_none(), "{}", wait.transcript());

    // The pod recovers; the roll goes on to the end.
    let driver = tokio::spawn({
        let h = h.clone();
        async move {
            finish_node(&sim, "cache-0-1", &h).await;
            roll_node(&sim, "cache-0-0", &h, false).await;
            sim.cluster_ready().await;
        }
    });
    let status = wait.exit(Duration::from_secs(300)).await;
    driver.await.expect("the roll driver");
    assert_eq!(code(status), 0, "{}", wait.transcript());
    assert!(
        first_line_with(&wait.stderr, &["cache-0-0 Rolling"]).is_some(),
        "{}",
        wait.transcript()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_times_out_with_exit_5_on_a_roll_that_does_not_move() {
    let s = harness::server();
    let sim = Sim::fresh("wait-timeout", &Layout::default()).await;
    let ns = sim.ns.clone();
    let h = sim::hash("wait-timeout");
    both_ask(&sim, &h).await;
    grant(&sim, "cache-0-1", &h).await;

    let mut wait = Plugin::spawn(
        &s.kubeconfig_in(&ns),
        &ns,
        // Long enough to read the cluster first on a busy machine, so that
        // the last progress line can name the holder.
        &["wait", "cache", "--timeout", "10s"],
        BOUND,
    );
    let status = wait.exit(BOUND).await;
    assert_eq!(code(status), 5, "{}", wait.transcript());
    assert!(
        wait.stderr
            .iter()
            .any(|l| l.starts_with("timed out after 10s")),
        "{}",
        wait.transcript()
    );
    assert!(
        wait.stderr.iter().any(|l| l.contains("cache-0-1 Rolling")),
        "the last progress names the holder\n{}",
        wait.transcript()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_a_cluster_that_does_not_exist_is_an_error() {
    let s = harness::server();
    let _sim = Sim::fresh("wait-missing", &Layout::default()).await;
    let ns = _sim.ns.clone();
    let mut wait = Plugin::spawn(
        &s.kubeconfig_in(&ns),
        &ns,
        &["wait", "cahce", "--timeout", "60s"],
        BOUND,
    );
    let status = wait.exit(BOUND).await;
    assert_eq!(code(status), 1, "{}", wait.transcript());
    assert!(
        wait.stderr.iter().any(|l| l.contains("ValkeyCluster")
            && l.contains("cahce")
            && l.contains("not found")
            && l.contains("did you mean cache?")),
        "{}",
        wait.transcript()
    );
}

/// docs/plugin.md's Spec-driven table, row by row; after each row but the last,
/// `wait` must still be running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_exits_0_at_the_end_of_a_spec_driven_roll_and_not_before() {
    const NOT_DONE: &str = "the ValkeyCluster reports it is not done (Reconciling/UpdatingNodes)";
    let s = harness::server();
    let sim = Sim::fresh("wait-spec", &Layout::default()).await;
    let ns = sim.ns.clone();
    let image = json!({"image": "valkey/valkey:8.1.2"});
    let h2 = sim::hash("wait-spec-new-template");

    // Row 0: a person edits the ValkeyCluster's image.
    sim.edit_cluster_spec(image.clone()).await;
    let mut wait = Plugin::spawn(&s.kubeconfig_in(&ns), &ns, &["wait", "cache"], BOUND);
    wait.until_stderr("a first progress line", |l| l.contains("rolled"))
        .await;

    // Seen long enough for the watch to deliver it and a tick to judge it.
    let settle = || tokio::time::sleep(Duration::from_millis(1500));
    let mut rows = 0;
    for (node, first) in [("cache-0-1", true), ("cache-0-0", false)] {
        let n = sim.node(node);
        // Row 1 (5): new spec and `*` in one Update; event.
        n.update_spec_with_permit(image.clone(), Some("*")).await;
        sim.event_node_updated(node).await;
        // Rolling from here until its new pod is Ready (row 3): waited for,
        // not slept on, so a slow machine cannot skip the line.
        let rolling = format!("{node} Rolling");
        wait.until_stderr(&format!("the line '{rolling}'"), |l| l.contains(&rolling))
            .await;
        assert!(
            wait.exited().is_none(),
            "exited after {node} row 1\n{}",
            wait.transcript()
        );
        if first {
            // Row 2.
            sim.cluster_updating().await;
            settle().await;
            assert!(
                wait.exited().is_none(),
                "exited after row 2\n{}",
                wait.transcript()
            );
        }
        // Row 3: observed; the workload rolls as in builder-only 5 to 10.
        n.observe().await;
        pace().await;
        n.workload().apply_template(&h2).await;
        pace().await;
        n.workload().catch_up().await;
        pace().await;
        n.pod().begin_delete().await;
        pace().await;
        n.pod().finish_delete().await;
        pace().await;
        n.set_ready(false).await;
        new_pod_not_ready(&sim, node, &h2).await;
        n.pod_for(&h2).running_ready().await;
        pace().await;
        n.workload().rolled_out().await;
        settle().await;
        assert!(
            wait.exited().is_none(),
            "exited after {node} row 3\n{}",
            wait.transcript()
        );
        // Row 4: the permit released, then the node ready.
        n.release().await;
        settle().await;
        assert!(
            wait.exited().is_none(),
            "exited with {node} Blocking\n{}",
            wait.transcript()
        );
        n.set_ready(true).await;
        // Between nodes the other node is behind (its spec.image is the old
        // one): a grant is due to it. After the last, no node carries
        // anything; only the ValkeyCluster says UpdatingNodes. Each line
        // waited for.
        let between = if first {
            "Waiting, front cache-0-0"
        } else {
            NOT_DONE
        };
        wait.until(&format!("the line for the moment after {node}"), |p| {
            p.stderr.iter().any(|l| l.contains(between))
        })
        .await;
        assert!(
            wait.exited().is_none(),
            "exited while only the ValkeyCluster says UpdatingNodes (after {node})\n{}",
            wait.transcript()
        );
        rows += 1;
    }
    assert_eq!(rows, 2);
    // Row 6.
    sim.cluster_ready().await;
    let status = wait.exit(BOUND).await;
    assert_eq!(code(status), 0, "{}", wait.transcript());
    let first = first_line_with(&wait.stderr, &["cache-0-1 Rolling"]);
    let second = first_line_with(&wait.stderr, &["cache-0-0 Rolling"]);
    assert!(
        matches!((first, second), (Some(a), Some(b)) if a < b),
        "{}",
        wait.transcript()
    );
    assert!(
        wait.stderr.iter().any(|l| l.contains(NOT_DONE)),
        "the moments between nodes were seen\n{}",
        wait.transcript()
    );
}

/// `-A` with a name: the clusters of that name in every namespace, each
/// named `namespace/name` in the progress lines; exit 0 once both are
/// Converged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_all_namespaces_waits_for_every_cluster_of_the_name() {
    let s = harness::server();
    let (ns1, ns2) = (s.fresh_namespace("wait-all"), s.fresh_namespace("wait-all"));
    // A name no other test uses: -A sees every namespace of the server.
    let name = format!("everywhere-{ns1}");
    let client = s.client().await;
    let rolling = Sim::build(client.clone(), &ns1, &name, &Layout::default()).await;
    let _resting = Sim::build(client, &ns2, &name, &Layout::default()).await;
    let h = sim::hash("wait-all");
    let (x, y) = (rolling.node_name(0, 1), rolling.node_name(0, 0));
    for node in [&x, &y] {
        rolling.node(node).annotate_desired(&h).await;
        rolling.node(node).set_drift(&h).await;
    }

    let mut all: Vec<String> = vec!["--kubeconfig".into(), s.kubeconfig().display().to_string()];
    all.extend(["wait", "-A", &name, "--timeout", "5m"].map(String::from));
    let mut wait = Plugin::spawn_raw(&all, BOUND);
    wait.until_stderr("a line for the rolling cluster", |l| {
        l.starts_with(&format!("{ns1}/{name}: "))
    })
    .await;
    wait.until_stderr("a line for the resting cluster", |l| {
        l.starts_with(&format!("{ns2}/{name}: ")) && l.contains("Converged")
    })
    .await;
    assert!(wait.exited().is_none(), "{}", wait.transcript());
    let driver = tokio::spawn({
        let h = h.clone();
        async move {
            roll_node(&rolling, &x, &h, true).await;
            roll_node(&rolling, &y, &h, false).await;
            rolling.cluster_ready().await;
        }
    });
    let status = wait.exit(Duration::from_secs(300)).await;
    driver.await.expect("the roll driver");
    assert_eq!(code(status), 0, "{}", wait.transcript());
    assert!(
        wait.stderr
            .iter()
            .any(|l| l.starts_with(&format!("{ns1}/{name}: ")) && l.contains("Converged")),
        "{}",
        wait.transcript()
    );
}
