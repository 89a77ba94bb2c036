//! A jammed roll for the dashboard's tests, written through the real API
//! server by the simulated operator (tests/harness/sim.rs), with hostile
//! words where the API lets any string be: the ValkeyCluster's status
//! reason and message, and a condition message of the holder.

#![allow(dead_code)]

use super::harness::sim::{self, Layout, Sim};
use std::time::Duration;

/// Markup, quotes and a bidi override: shown as text or not at all.
pub const HOSTILE: &str = "<script>alert(1)</script>\"'\u{202e}<img src=x onerror=alert(2)>";

/// Pause between the sim's writes, so the plugin sees the states between.
const PACE: Duration = Duration::from_millis(100);

async fn pace() {
    tokio::time::sleep(PACE).await;
}

/// Builder-only roll (P1) in a fresh namespace: both nodes ask for the
/// hash, cache-0-1 is granted, its template applied and its old pod gone,
/// and its new pod crash-loops: Jammed, cache-0-1 Stuck. Returns the sim
/// and the hash.
pub async fn jammed(hint: &str) -> (Sim, String) {
    let sim = Sim::fresh(hint, &Layout::default()).await;
    let h = sim::hash(hint);
    sim.ask(&["cache-0-1", "cache-0-0"], &h).await;
    let n = sim.node("cache-0-1");
    n.grant(&h).await;
    pace().await;
    sim.event_permitted("cache-0-1", &h).await;
    pace().await;
    sim.cluster_conditions(
        "Reconciling",
        HOSTILE,
        HOSTILE,
        &[
            ("Ready", "False", "UpdatingNodes", "Updating nodes"),
            ("Progressing", "True", "UpdatingNodes", "Updating nodes"),
        ],
    )
    .await;
    pace().await;
    n.workload().apply_template(&h).await;
    pace().await;
    sim.event_applied("cache-0-1", &h).await;
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
    n.set_condition("Degraded", "True", "Hostile", HOSTILE)
        .await;
    pace().await;
    let pod = n.pod_for(&h);
    pod.create(&h).await;
    pace().await;
    pod.crash_loop(3).await;
    (sim, h)
}

/// The simulated operator moves the roll on: cache-0-1's new pod becomes
/// Ready (one write).
pub async fn recover(sim: &Sim, h: &str) {
    sim.node("cache-0-1").pod_for(h).running_ready().await;
}

/// The cluster controller starts a failover in shard 0, from cache-0-0 to
/// cache-0-1 (a `FailoverInitiated` about the cluster naming their pod
/// IPs, which are only words here: nothing dials them).
pub async fn failover(sim: &Sim) {
    use kubectl_valkey_roll::fixture::words;
    use kubectl_valkey_roll::snapshot::keys;
    let ip = |node: serde_json::Value| {
        node["status"]["podIP"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let from = ip(sim.node("cache-0-0").get_json().await);
    let to = ip(sim.node("cache-0-1").get_json().await);
    assert!(
        !from.is_empty() && !to.is_empty(),
        "pod IPs: {from:?} {to:?}"
    );
    sim.event(
        sim::CLUSTER_CONTROLLER,
        sim.cluster_ref().await,
        None,
        "Normal",
        keys::EVENT_FAILOVER_INITIATED,
        words::action(keys::EVENT_FAILOVER_INITIATED),
        &words::failover_initiated_note(&from, &to, "5e1f0c3a9b7d2e4f"),
    )
    .await;
}
