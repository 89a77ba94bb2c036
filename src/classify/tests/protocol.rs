//! Classifying with a protocol a person gave (`--protocol` of the steering
//! commands), for a cluster whose nodes show none.

use super::super::{classify, classify_with_protocol};
use crate::fixture::{cluster, node, t};
use crate::report::{NodeState, Protocol};
use std::time::Duration;

#[test]
fn an_unknown_cluster_is_read_by_the_given_protocol() {
    // cache-0-1's new spec is not observed yet; nothing is staged.
    let at_rest = |n: crate::fixture::NodeBuilder| n.ready().pod_ready().sts_rolled_out();
    let s = cluster("prod", "cache")
        .ready_for_generation()
        .node(at_rest(node("cache-0-0").primary().shard(0, 0)))
        .node(at_rest(node("cache-0-1").replica().shard(0, 1)).spec_updated())
        .snapshot();
    let threshold = Duration::from_secs(600);
    // (case, given, protocol reported, cache-0-1's state, holders)
    let cases: &[(&str, Protocol, Protocol, NodeState, &[&str])] = &[
        (
            "none given",
            Protocol::Unknown,
            Protocol::Unknown,
            NodeState::Blocking,
            &[],
        ),
        ("P1", Protocol::P1, Protocol::P1, NodeState::Blocking, &[]),
        (
            "P2",
            Protocol::P2,
            Protocol::P2,
            NodeState::Rolling,
            &["cache-0-1"],
        ),
    ];
    for (name, given, want, state, holders) in cases {
        let r = classify_with_protocol(&s, t(0), threshold, *given);
        let c = &r.clusters[0];
        assert_eq!(c.protocol, *want, "{name}");
        let n = c.nodes.iter().find(|n| n.name == "cache-0-1");
        assert_eq!(n.map(|n| n.state), Some(*state), "{name}");
        assert_eq!(c.holders, *holders, "{name}");
        // The mark is not a fact: nobody asks.
        assert!(c.nodes.iter().all(|n| !n.facts.asks), "{name}");
    }
}

#[test]
fn a_cluster_that_shows_its_protocol_keeps_it() {
    let s = cluster("prod", "cache")
        .node(
            node("cache-0-1")
                .replica()
                .shard(0, 1)
                .ready()
                .pod_ready()
                .sts_rolled_out()
                .desired("h1"),
        )
        .snapshot();
    let r = classify_with_protocol(&s, t(0), Duration::from_secs(600), Protocol::P2);
    assert_eq!(r.clusters[0].protocol, Protocol::P1);
    assert_eq!(r, classify(&s, t(0), Duration::from_secs(600)));
}
