//! Unit tests of the classifier: tables of scenarios built with
//! [`crate::fixture`], no server.

mod cluster_facts;
mod eta;
mod evidence;
mod grant;
mod in_flight;
mod misc;
mod p2;
mod protocol;
mod replay;
mod roles;
mod servers;
mod spec;
mod states;
mod verdicts;
mod walk;

use super::classify;
use crate::fixture::{self, ClusterBuilder, NodeBuilder};
use crate::report::{ClusterReport, NodeReport, NodeState, Verdict};
use crate::snapshot::Snapshot;
use jiff::Timestamp;
use std::time::Duration;

/// The stall threshold every test uses unless it says otherwise.
pub(crate) const T: Duration = Duration::from_secs(600);

pub(crate) const NS: &str = "prod";
pub(crate) const CL: &str = "cache";

/// A node that is at rest: ready, pod Ready, StatefulSet rolled out.
pub(crate) fn healthy(name: &str, shard: u32, index: u32) -> NodeBuilder {
    let n = fixture::node(name)
        .shard(shard, index)
        .ready()
        .pod_ready()
        .sts_rolled_out();
    if index == 0 { n.primary() } else { n.replica() }
}

/// prod/cache, Ready for its generation.
pub(crate) fn cluster() -> ClusterBuilder {
    fixture::cluster(NS, CL).ready_for_generation()
}

/// The one cluster of a snapshot, classified at `now` with [`T`] (with
/// its history).
pub(crate) fn judge(s: &Snapshot, now: Timestamp) -> ClusterReport {
    let mut r = super::classify_with_history(s, now, T);
    assert_eq!(r.clusters.len(), 1, "one cluster expected");
    r.clusters.remove(0)
}

pub(crate) fn node<'a>(c: &'a ClusterReport, name: &str) -> &'a NodeReport {
    c.nodes
        .iter()
        .find(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name} in report"))
}

pub(super) fn state(c: &ClusterReport, name: &str) -> NodeState {
    node(c, name).state
}

/// Asserts the states of the named nodes and the verdict, naming the row.
pub(super) fn expect(row: &str, c: &ClusterReport, nodes: &[(&str, NodeState)], verdict: Verdict) {
    for (name, want) in nodes {
        assert_eq!(
            state(c, name),
            *want,
            "row {row}: node {name} (reason {:?}; cluster reason {:?})",
            node(c, name).reason,
            c.reason
        );
    }
    assert_eq!(
        c.verdict, verdict,
        "row {row}: verdict (reason {:?})",
        c.reason
    );
}
