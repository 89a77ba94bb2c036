//! Walk order: shard ascending; while a node asks, holds or is behind, the
//! other nodes by index, then the primary (node index descending when the
//! primary is unknown); at rest node index descending; unindexed nodes last.

use super::*;
use crate::fixture::{mins, t};

fn order(c: ClusterBuilder) -> Vec<String> {
    judge(&c.snapshot(), t(0))
        .nodes
        .into_iter()
        .map(|n| n.name)
        .collect()
}

fn plain(name: &str) -> NodeBuilder {
    fixture::node(name).ready().pod_ready().sts_rolled_out()
}

#[test]
fn walk_order_table() {
    let rows: Vec<(&str, ClusterBuilder, Vec<&str>)> = vec![
        (
            "a node asks, primary known: replicas ascending, then the primary",
            cluster()
                .node(healthy("cache-0-0", 0, 0))
                .node(healthy("cache-0-2", 0, 2).desired("h1"))
                .node(healthy("cache-0-1", 0, 1)),
            vec!["cache-0-1", "cache-0-2", "cache-0-0"],
        ),
        (
            "at rest: node index descending, even with the primary known",
            cluster()
                .node(healthy("cache-0-0", 0, 0))
                .node(healthy("cache-0-2", 0, 2))
                .node(healthy("cache-0-1", 0, 1)),
            vec!["cache-0-2", "cache-0-1", "cache-0-0"],
        ),
        (
            "a node is behind (Spec-driven): the primary goes last",
            cluster()
                .image("valkey/valkey:9.0.1")
                .node(healthy("cache-0-0", 0, 0).image("valkey/valkey:9.0.0"))
                .node(healthy("cache-0-1", 0, 1).image("valkey/valkey:9.0.0"))
                .node(healthy("cache-0-2", 0, 2).image("valkey/valkey:9.0.0")),
            vec!["cache-0-1", "cache-0-2", "cache-0-0"],
        ),
        (
            "a node holds (P1 permit): the primary goes last",
            cluster()
                .node(healthy("cache-0-0", 0, 0))
                .node(healthy("cache-0-1", 0, 1))
                .node(healthy("cache-0-2", 0, 2).permit("h1")),
            vec!["cache-0-1", "cache-0-2", "cache-0-0"],
        ),
        (
            "the live primary is not always index 0",
            cluster()
                .node(healthy("cache-0-0", 0, 0).replica().desired("h1"))
                .node(healthy("cache-0-1", 0, 1).primary())
                .node(healthy("cache-0-2", 0, 2)),
            vec!["cache-0-0", "cache-0-2", "cache-0-1"],
        ),
        (
            "primary unknown (not ready): index descending",
            cluster()
                .node(healthy("cache-0-0", 0, 0).not_ready(mins(-1)))
                .node(healthy("cache-0-1", 0, 1))
                .node(healthy("cache-0-2", 0, 2)),
            vec!["cache-0-2", "cache-0-1", "cache-0-0"],
        ),
        (
            "primary unknown (two primaries): index descending",
            cluster()
                .node(healthy("cache-0-0", 0, 0))
                .node(healthy("cache-0-1", 0, 1).primary())
                .node(healthy("cache-0-2", 0, 2)),
            vec!["cache-0-2", "cache-0-1", "cache-0-0"],
        ),
        (
            "primary unknown (no roles): index descending",
            cluster().node(plain("cache-0-0")).node(plain("cache-0-1")),
            vec!["cache-0-1", "cache-0-0"],
        ),
        (
            "shards ascending (numerically)",
            cluster()
                .node(healthy("cache-10-0", 10, 0))
                .node(healthy("cache-2-1", 2, 1))
                .node(healthy("cache-2-0", 2, 0))
                .node(healthy("cache-1-0", 1, 0)),
            vec!["cache-1-0", "cache-2-1", "cache-2-0", "cache-10-0"],
        ),
        (
            "indices from the name when labels are missing",
            cluster()
                .node(plain("cache-1-0").primary())
                .node(plain("cache-1-1").replica())
                .node(plain("cache-0-0").primary())
                .node(plain("cache-0-1").replica()),
            vec!["cache-0-1", "cache-0-0", "cache-1-1", "cache-1-0"],
        ),
        (
            "labels win over the name",
            cluster()
                .node(
                    plain("cache-0-0")
                        .label("valkey.io/shard-index", "1")
                        .label("valkey.io/node-index", "0")
                        .primary(),
                )
                .node(
                    plain("cache-0-1")
                        .label("valkey.io/shard-index", "0")
                        .label("valkey.io/node-index", "1")
                        .primary(),
                ),
            vec!["cache-0-1", "cache-0-0"],
        ),
        (
            "nodes without indices last, by name",
            cluster()
                .node(plain("zeta"))
                .node(plain("alpha"))
                .node(healthy("cache-0-0", 0, 0)),
            vec!["cache-0-0", "alpha", "zeta"],
        ),
    ];
    for (name, c, want) in rows {
        assert_eq!(order(c), want, "{name}");
    }
}

#[test]
fn shard_and_index_are_reported() {
    let r = judge(
        &cluster()
            .node(plain("cache-3-2"))
            .node(plain("odd"))
            .snapshot(),
        t(0),
    );
    assert_eq!(
        (node(&r, "cache-3-2").shard, node(&r, "cache-3-2").index),
        (Some(3), Some(2))
    );
    assert_eq!((node(&r, "odd").shard, node(&r, "odd").index), (None, None));
}

#[test]
fn the_front_follows_the_walk() {
    // Both ask; the replica comes first while the primary is known, the
    // higher index first when it is not.
    let c = cluster()
        .node(healthy("cache-0-0", 0, 0).desired("h1"))
        .node(healthy("cache-0-1", 0, 1).desired("h1"));
    assert_eq!(
        judge(&c.snapshot(), t(0)).front.as_deref(),
        Some("cache-0-1")
    );
    let c = cluster()
        .node(healthy("cache-0-0", 0, 0).desired("h1").not_ready(mins(-1)))
        .node(healthy("cache-0-1", 0, 1).desired("h1"))
        .node(healthy("cache-0-2", 0, 2).desired("h1"));
    let r = judge(&c.snapshot(), t(0));
    assert_eq!(r.front.as_deref(), Some("cache-0-2"));
    assert_eq!(node(&r, "cache-0-0").queue_position, Some(3));
}
