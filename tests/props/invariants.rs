//! What every classification must keep, whatever the rules decide
//! (issue 10, item 10): checked by the property tests and the fuzz target.
//!
//! - every ValkeyNode of the snapshot has exactly one state: it appears in
//!   exactly one cluster's report, once;
//! - a cluster's holders are exactly its nodes in holder states (Stuck,
//!   Settling, Rolling, StalePermit), and the nodes whose facts say holder;
//! - the verdict is the first row of docs/plugin.md's verdict table that matches;
//! - no duration is negative (none wrapped around, none longer than the
//!   oldest time in the snapshot allows).
//!
//! Shuffling and renaming compare two reports and live in the callers.

#![allow(dead_code)]

use kubectl_valkey_roll::report::{ClusterReport, NodeReport, NodeState, Report, Verdict};
use kubectl_valkey_roll::snapshot::{Snapshot, condition};

/// Checks the report of `snapshot`; `Err` names the first broken
/// invariant. `threshold_seconds` is the stall threshold it was judged
/// with; `max_seconds` bounds every duration.
pub fn check(
    snapshot: &Snapshot,
    report: &Report,
    threshold_seconds: u64,
    max_seconds: u64,
) -> Result<(), String> {
    one_state_per_node(snapshot, report)?;
    for c in &report.clusters {
        let at = format!("cluster {}/{}", c.namespace, c.name);
        holders_are_holder_states(c).map_err(|e| format!("{at}: {e}"))?;
        front_is_first_waiting_or_blocking(c).map_err(|e| format!("{at}: {e}"))?;
        let want = first_matching_verdict(snapshot, c, threshold_seconds);
        if c.verdict != want {
            return Err(format!(
                "{at}: verdict {:?}, but the first row of the table that matches is {want:?} (holders {:?}, front {:?}, quiet {:?}s, states {:?})",
                c.verdict,
                c.holders,
                c.front,
                c.quiet_for_seconds,
                c.nodes
                    .iter()
                    .map(|n| (n.name.as_str(), n.state))
                    .collect::<Vec<_>>()
            ));
        }
        durations_in_range(c, max_seconds).map_err(|e| format!("{at}: {e}"))?;
    }
    Ok(())
}

fn one_state_per_node(snapshot: &Snapshot, report: &Report) -> Result<(), String> {
    for node in &snapshot.nodes {
        let (ns, name) = (node.namespace(), node.name());
        let seen = report
            .clusters
            .iter()
            .filter(|c| c.namespace == ns)
            .flat_map(|c| c.nodes.iter())
            .filter(|n| n.name == name)
            .count();
        if seen != 1 {
            return Err(format!(
                "node {ns}/{name} has {seen} states in the report (one expected)"
            ));
        }
    }
    let reported: usize = report.clusters.iter().map(|c| c.nodes.len()).sum();
    if reported != snapshot.nodes.len() {
        return Err(format!(
            "the report has {reported} node rows for {} ValkeyNodes",
            snapshot.nodes.len()
        ));
    }
    Ok(())
}

fn holders_are_holder_states(c: &ClusterReport) -> Result<(), String> {
    let mut by_state: Vec<&str> = c
        .nodes
        .iter()
        .filter(|n| n.state.is_holder())
        .map(|n| n.name.as_str())
        .collect();
    by_state.sort_unstable();
    let mut holders: Vec<&str> = c.holders.iter().map(String::as_str).collect();
    holders.sort_unstable();
    if holders != by_state {
        return Err(format!(
            "holders {holders:?}, but the nodes in holder states are {by_state:?}"
        ));
    }
    for n in &c.nodes {
        if n.facts.holder != n.state.is_holder() {
            return Err(format!(
                "node {} is {:?} but its facts say holder={}",
                n.name, n.state, n.facts.holder
            ));
        }
    }
    Ok(())
}

/// The front is the first node in walk order (the report's node order)
/// that is Waiting or Blocking.
fn front_is_first_waiting_or_blocking(c: &ClusterReport) -> Result<(), String> {
    let first = c
        .nodes
        .iter()
        .find(|n| n.state.is_queued())
        .map(|n| n.name.as_str());
    if c.front.as_deref() != first {
        return Err(format!(
            "front {:?}, but the first Waiting or Blocking node in walk order is {first:?}",
            c.front
        ));
    }
    Ok(())
}

/// docs/plugin.md, "Cluster verdicts (first that matches)", computed from the
/// node states the report gives and the ValkeyCluster's Ready condition.
pub fn first_matching_verdict(
    snapshot: &Snapshot,
    c: &ClusterReport,
    threshold_seconds: u64,
) -> Verdict {
    let holders: Vec<&NodeReport> = c.nodes.iter().filter(|n| n.state.is_holder()).collect();
    let front = c
        .front
        .as_ref()
        .and_then(|f| c.nodes.iter().find(|n| &n.name == f));
    let waiting_or_blocking = c.nodes.iter().any(|n| n.state.is_queued());
    let unfinished =
        waiting_or_blocking || cluster_not_ready(snapshot, c) || being_created(snapshot, c);
    let quiet = c.quiet_for_seconds.unwrap_or(0);
    let blocking = c.nodes.iter().any(|n| n.state == NodeState::Blocking);

    if holders.len() >= 2 {
        return Verdict::Conflict;
    }
    if let [h] = holders.as_slice() {
        let stale_long =
            h.state == NodeState::StalePermit && h.held_for_seconds.is_none_or(|s| s > 60);
        if h.state == NodeState::Stuck || stale_long {
            return Verdict::Jammed;
        }
        return Verdict::Rolling;
    }
    if front.is_some_and(|f| {
        f.state == NodeState::Blocking && f.evidence.iter().any(|e| e.kind.is_failure())
    }) {
        return Verdict::Jammed;
    }
    if unfinished && quiet > threshold_seconds {
        return Verdict::Stalled;
    }
    if unfinished {
        return Verdict::Waiting;
    }
    debug_assert!(!blocking, "a Blocking node makes the roll unfinished");
    Verdict::Converged
}

/// docs/plugin.md, Creation: the ValkeyCluster is not Ready for its generation
/// (a Ready condition missing counts) and has fewer cluster-owned nodes
/// than its spec asks for, shards × (1 + replicas).
fn being_created(snapshot: &Snapshot, c: &ClusterReport) -> bool {
    let Some(vc) = snapshot
        .clusters
        .iter()
        .find(|vc| vc.namespace() == c.namespace && vc.name() == c.name)
    else {
        return false;
    };
    let ready_now = condition(vc.conditions(), "Ready").is_some_and(|r| {
        r.is_true()
            && r.observed_generation
                .is_none_or(|o| Some(o) == vc.metadata.generation)
    });
    let (Some(shards), replicas) = (vc.spec.shards, vc.spec.replicas.unwrap_or(0)) else {
        return false;
    };
    let want = shards.max(0) * (1 + replicas.max(0));
    !ready_now && (c.total as i64) < want
}

/// The ValkeyCluster has a Ready condition that is not True for its
/// current generation.
fn cluster_not_ready(snapshot: &Snapshot, c: &ClusterReport) -> bool {
    let Some(vc) = snapshot
        .clusters
        .iter()
        .find(|vc| vc.namespace() == c.namespace && vc.name() == c.name)
    else {
        return false;
    };
    let Some(ready) = condition(vc.conditions(), "Ready") else {
        return false;
    };
    let behind = matches!(
        (ready.observed_generation, vc.metadata.generation),
        (Some(o), Some(g)) if o < g
    );
    behind || !ready.is_true()
}

fn durations_in_range(c: &ClusterReport, max_seconds: u64) -> Result<(), String> {
    let mut all = vec![("quietForSeconds".to_string(), c.quiet_for_seconds)];
    for n in &c.nodes {
        all.push((format!("{} heldForSeconds", n.name), n.held_for_seconds));
        all.push((
            format!("{} waitingForSeconds", n.name),
            n.waiting_for_seconds,
        ));
    }
    for (what, d) in all {
        if let Some(d) = d
            && d > max_seconds
        {
            return Err(format!(
                "{what} is {d}, longer than anything in the snapshot ({max_seconds}s): a negative duration wrapped?"
            ));
        }
    }
    Ok(())
}
