//! The renderers on reports the real classifier made from fixture
//! snapshots: the words a person reads, end to end, pinned by snapshots.

use super::explain::{explain_cluster, explain_node};
use super::table::{TableOptions, status_table};
use crate::classify::{classify, cluster_timeline, timeline};
use crate::fixture::sample::assert_says;
use crate::fixture::{self, ClusterBuilder, NodeBuilder, mins, t};
use crate::report::Report;
use crate::snapshot::Snapshot;
use std::time::Duration;

const H1: &str = "41ab77c0e1f2d3c4b5a6978812345678";
const H2: &str = "9f2c41ab03de55aa66bb77cc88dd99ee";
const T: Duration = Duration::from_secs(600);

const PLAIN: TableOptions = TableOptions {
    wide: false,
    color: false,
};

/// Four healthy nodes of two shards; `change` sets each one's part.
fn cluster(
    ns: &str,
    name: &str,
    change: impl Fn(&str, NodeBuilder) -> NodeBuilder,
) -> ClusterBuilder {
    let mut c = fixture::cluster(ns, name).updating_nodes(mins(-14));
    for (shard, index, primary) in [(0, 1, false), (0, 0, true), (1, 1, false), (1, 0, true)] {
        let node = format!("{name}-{shard}-{index}");
        let n = fixture::node(&node)
            .shard(shard, index)
            .ready()
            .pod_ready()
            .sts_rolled_out();
        let n = if primary { n.primary() } else { n.replica() };
        c = c.node(change(&node, n));
    }
    c
}

/// docs/plugin.md's jammed cluster (P1): cache-1-1 was granted 14m ago and
/// crash-loops; two nodes ask behind it.
fn jammed() -> ClusterBuilder {
    cluster("prod", "cache", |name, n| match name {
        "cache-0-1" => n.last_rollout_hash(H2),
        "cache-1-1" => n
            .last_rollout_hash(H1)
            .permit(H2)
            .not_ready(mins(-13))
            .sts_new_template()
            .pod_waiting("CrashLoopBackOff", 7),
        _ => n.last_rollout_hash(H1).desired(H2).drift(H2, mins(-20)),
    })
    .event(fixture::event_permitted(
        "prod",
        "cache",
        "cache-0-1",
        H2,
        mins(-19),
    ))
    .event(fixture::event_permitted(
        "prod",
        "cache",
        "cache-1-1",
        H2,
        mins(-14),
    ))
}

/// The OrderedReady trap: the holder's pod is on the old revision, not
/// Ready for 5m, so the StatefulSet never replaces it.
fn superseded() -> ClusterBuilder {
    cluster("prod", "cache", |name, n| match name {
        "cache-1-1" => n
            .permit(H2)
            .not_ready(mins(-5))
            .sts_new_template()
            .sts_status("valkey-cache-1-1-new", 0)
            .pod_not_ready(mins(-5))
            .pod_revision("valkey-cache-1-1-old"),
        "cache-1-0" => n.desired(H2).drift(H2, mins(-20)),
        _ => n,
    })
    .event(fixture::event_permitted(
        "prod",
        "cache",
        "cache-1-1",
        H2,
        mins(-6),
    ))
}

/// P2: the released operator advanced cache-0-1, whose image does not pull.
fn p2_jammed() -> ClusterBuilder {
    cluster("prod", "cache", |name, n| match name {
        "cache-0-1" => n
            .workload_revision(H2)
            .generation(2, 2)
            .not_ready(mins(-3))
            .sts_new_template()
            .pod_waiting("ImagePullBackOff", 0),
        _ => n.workload_revision(H1).pending(H2, H1),
    })
    .event(fixture::event_node_updated(
        "prod",
        "cache",
        "cache-0-1",
        mins(-4),
    ))
}

/// No holder; the walk's front has had LiveConfigApplied=False for 30m.
fn stalled() -> ClusterBuilder {
    cluster("prod", "cache", |name, n| match name {
        "cache-0-1" => n.live_config_false(mins(-30)),
        _ => n.desired(H2).drift(H2, mins(-30)),
    })
}

fn judge(c: &ClusterBuilder) -> (Snapshot, Report) {
    let s = c.snapshot();
    let r = classify(&s, t(0), T);
    (s, r)
}

fn explain(c: &ClusterBuilder, node: &str) -> String {
    let (s, r) = judge(c);
    let cluster = &r.clusters[0];
    let Some(n) = cluster.nodes.iter().find(|n| n.name == node) else {
        panic!("no node {node} in the report")
    };
    let object = s.nodes.iter().find(|o| o.name() == node);
    explain_node(
        cluster,
        n,
        object,
        &timeline(&s, &cluster.namespace, node),
        t(0),
        false,
        None,
    )
}

fn explain_whole(c: &ClusterBuilder) -> String {
    let (s, r) = judge(c);
    let cluster = &r.clusters[0];
    explain_cluster(
        cluster,
        s.clusters.first(),
        &cluster_timeline(&s, &cluster.namespace, &cluster.name),
        t(0),
        false,
        None,
        None,
    )
}

#[test]
fn jammed_status_table() {
    let (_, r) = judge(&jammed());
    insta::assert_snapshot!(status_table(&r, PLAIN));
}

#[test]
fn jammed_explain_node() {
    insta::assert_snapshot!(explain(&jammed(), "cache-1-1"));
}

#[test]
fn jammed_explain_cluster() {
    insta::assert_snapshot!(explain_whole(&jammed()));
}

#[test]
fn superseded_pod_explain_says_delete_the_pod() {
    let out = explain(&superseded(), "cache-1-1");
    assert_says(
        "superseded",
        &out,
        &[
            "SupersededPod",
            "will not replace",
            "even after the template is reverted",
            "kubernetes#67250, valkey-operator#408",
            // On a line of its own, without backquotes (issue 22).
            "\n      kubectl valkey-roll replace-pod cache-1-1 -n prod --reason \"...\"\n",
        ],
        &["`"],
    );
    insta::assert_snapshot!(out);
}

#[test]
fn p2_stuck_has_no_revoke() {
    let (_, r) = judge(&p2_jammed());
    let table = status_table(&r, PLAIN);
    assert_says(
        "p2 table",
        &table,
        &["JAMMED", "cache-0-1 is in flight", "ImagePullBackOff", "P2"],
        &[],
    );
    let out = explain(&p2_jammed(), "cache-0-1");
    assert_says(
        "p2 explain",
        &out,
        &[
            "ImagePullBackOff",
            "the image name, tag or pull secret",
            "There is no revoke in protocol P2",
        ],
        &["valkey-roll revoke", "valkey-roll force"],
    );
}

#[test]
fn stalled_cluster_names_the_front_and_why() {
    let (_, r) = judge(&stalled());
    let table = status_table(&r, PLAIN);
    assert_says(
        "stalled table",
        &table,
        &["STALLED", "front cache-0-1"],
        &[],
    );
    let out = explain_whole(&stalled());
    assert_says(
        "stalled explain",
        &out,
        &[
            "Why the queue is not moving",
            "The walk's front, cache-0-1, is Blocking",
            "LiveConfigApplied",
            "more than the stall threshold 10m",
            "\n      kubectl valkey-roll explain cache-0-1 -n prod\n",
        ],
        &["`"],
    );
    let node = explain(&stalled(), "cache-0-1");
    assert_says(
        "blocking node",
        &node,
        &[
            "walk stops at the first node that is not healthy",
            "It is the walk's front",
        ],
        &["revoke"],
    );
}

/// P2: nobody in flight, every node asks: an advance is due.
fn p2_waiting() -> ClusterBuilder {
    cluster("prod", "cache", |_, n| {
        n.workload_revision(H1).pending(H2, H1)
    })
}

/// P2 speaks its own words in every text (docs/plugin.md: a node is
/// advanced, then in flight; it holds no permit): the status table, wide
/// and not, explain of the cluster and of each node, the multi-context
/// table and the history picture.
#[test]
fn p2_texts_hold_no_permit() {
    let wide = TableOptions {
        wide: true,
        color: false,
    };
    for (name, c) in [("jammed", p2_jammed()), ("waiting", p2_waiting())] {
        let (_, r) = judge(&c);
        let mut texts = vec![
            ("table", status_table(&r, PLAIN)),
            ("wide table", status_table(&r, wide)),
            ("explain", explain_whole(&c)),
            ("contexts", super::contexts::contexts_table(&r, PLAIN)),
            ("svg", super::svg::history(&r, t(0), &[Vec::new()])),
        ];
        for n in &r.clusters[0].nodes {
            texts.push(("explain node", explain(&c, &n.name)));
        }
        for (what, text) in texts {
            // The plugin's own annotation and command keep their names.
            let text = text
                .replace("valkey-roll.io/granted-at", "")
                .replace("valkey-roll grant ", "");
            for word in ["permit", "grant", " held ", " holds "] {
                assert!(!text.contains(word), "{name}, {what}: '{word}' in\n{text}");
            }
        }
    }
}
