//! A node is rolled only when its spec is at what its cluster asks of it,
//! field by field (issue 29): rolls the operator starts for a field other
//! than the image, and for its own build.

use super::*;
use crate::fixture::{NodeBuilder, mins, t};
use crate::report::NodeState::{self, *};
use crate::snapshot::SpecField;
use serde_json::json;

use super::p2::{R1, p2};
const R2: &str = "5a27684b84d19421ee2e1638ed4c3449b50700a675dbc5ddb2302700fa57d3b2";
const IMAGE: &str = "valkey/valkey:9.0.0";

/// A 3-shard cluster whose spec has `edit` merged in; cache-0-1 has been
/// advanced to it (holds), the other five still have the old spec.
fn rolled_by(edit: serde_json::Value) -> ClusterBuilder {
    let mut c = cluster().image(IMAGE);
    let mut spec = serde_json::to_value(&c.cluster.spec).expect("spec");
    for (k, v) in edit.as_object().expect("an object") {
        spec[k] = v.clone();
    }
    c.cluster.spec = serde_json::from_value(spec).expect("spec");
    let mut advanced = p2("cache-0-1", 0, 1).workload_revision(R2).generation(2, 1);
    let mut node_spec = serde_json::to_value(&advanced.node.spec).expect("spec");
    for (k, v) in edit.as_object().expect("an object") {
        node_spec[k] = v.clone();
    }
    advanced.node.spec = serde_json::from_value(node_spec).expect("spec");
    c.node(p2("cache-0-0", 0, 0))
        .node(advanced)
        .node(p2("cache-1-0", 1, 0))
        .node(p2("cache-1-1", 1, 1))
        .node(p2("cache-2-0", 2, 0))
        .node(p2("cache-2-1", 2, 1))
}

fn states(r: &crate::report::ClusterReport) -> Vec<(&str, NodeState)> {
    let mut s: Vec<(&str, NodeState)> =
        r.nodes.iter().map(|n| (n.name.as_str(), n.state)).collect();
    s.sort();
    s
}

/// The roll of the issue: `spec.config: {hz: "20"}` (not applied live, so
/// every pod is replaced), and `spec.resources` (recording t-resources).
/// Before: only the image was compared, and the five nodes still to roll
/// read Converged ("rolled"), the headline "0/6 rolled" with nobody waiting.
#[test]
fn a_roll_of_any_mirrored_field_leaves_the_nodes_it_has_not_reached_waiting() {
    let cases = [
        (
            "config hz",
            json!({"config": {"hz": "20"}}),
            SpecField::Config,
        ),
        (
            "config maxmemory (live)",
            json!({"config": {"maxmemory": "100mb"}}),
            SpecField::LiveConfig,
        ),
        (
            "resources",
            json!({"resources": {"limits": {"memory": "256Mi"}, "requests": {"cpu": "100m"}}}),
            SpecField::Resources,
        ),
        (
            "persistence",
            json!({"persistence": {"size": "1Gi"}}),
            SpecField::Persistence,
        ),
        (
            "tolerations",
            json!({"scheduling": {"tolerations": [{"key": "k", "operator": "Exists"}]}}),
            SpecField::Tolerations,
        ),
        (
            "exporter",
            json!({"exporter": {"enabled": true, "image": "exporter:v2"}}),
            SpecField::Exporter,
        ),
        (
            "containers",
            json!({"containers": [{"name": "server", "args": ["--x"]}]}),
            SpecField::Containers,
        ),
        (
            "terminationGracePeriodSeconds default",
            json!({"config": {"cluster-manual-failover-timeout": "60000"}}),
            SpecField::TerminationGracePeriodSeconds,
        ),
    ];
    for (name, edit, field) in cases {
        let r = judge(&rolled_by(edit.clone()).snapshot(), t(0));
        assert_eq!(r.holders, vec!["cache-0-1"], "{name}");
        assert_eq!(
            states(&r),
            vec![
                ("cache-0-0", Waiting),
                ("cache-0-1", Rolling),
                ("cache-1-0", Waiting),
                ("cache-1-1", Waiting),
                ("cache-2-0", Waiting),
                ("cache-2-1", Waiting),
            ],
            "{name}"
        );
        assert_eq!(r.waiting, 5, "{name}");
        assert_eq!(r.front.as_deref(), Some("cache-0-0"), "{name}");
        let behind = r
            .nodes
            .iter()
            .find(|n| n.name == "cache-0-0")
            .and_then(|n| n.facts.behind.clone())
            .expect("behind");
        assert!(
            behind.fields.contains(&field),
            "{name}: {:?}",
            behind.fields
        );
    }
    // The grace period's default also comes with the config key that
    // sets it; a config roll names both.
}

/// At rest, every node at the cluster's spec, written in the operator's
/// forms (quantities canonical, zero values left out): Converged.
#[test]
fn a_node_at_its_cluster_spec_in_the_operators_forms_is_converged() {
    let mut c = cluster().image(IMAGE);
    c.cluster.spec = serde_json::from_value(json!({
        "image": IMAGE, "shards": 1, "replicas": 1, "workloadType": "StatefulSet",
        "exporter": {"enabled": true},
        "resources": {"limits": {"cpu": 1, "memory": "1Gi"}},
        "config": {"hz": "20"},
    }))
    .expect("spec");
    let written = |b: NodeBuilder| {
        let mut b = b;
        b.node.spec = serde_json::from_value(json!({
            "image": IMAGE, "workloadType": "StatefulSet", "workloadRevision": R1,
            "exporter": {"enabled": true, "resources": {}},
            "resources": {"limits": {"cpu": "1", "memory": "1024Mi"}},
            "config": {"hz": "20"},
            "serverConfigMapName": "valkey-cache", "usersACLSecretName": "internal-cache-acl",
        }))
        .expect("spec");
        b
    };
    let c = c
        .node(written(p2("cache-0-0", 0, 0)))
        .node(written(p2("cache-0-1", 0, 1)));
    let r = judge(&c.snapshot(), t(0));
    assert_eq!(
        states(&r),
        vec![("cache-0-0", Converged), ("cache-0-1", Converged)]
    );
    assert_eq!(r.verdict, crate::report::Verdict::Converged, "{}", r.reason);
}

/// A roll of the operator's own build (recording c-builder, writes 1-25):
/// the new node controller asks for one node, then the others within a
/// second. Before: the nodes not yet asked for read Converged. The table:
/// what presumes them still to roll, and what must not.
#[test]
fn a_roll_of_the_operators_build_presumes_the_nodes_not_yet_reached() {
    let start = t(-2);
    // The previous roll wrote every node's spec half an hour ago.
    let at_rest = |name, shard, index| {
        p2(name, shard, index)
            .managed_revision_time("manager", mins(-30))
            .status_written(mins(-30))
    };
    let asking = || at_rest("cache-0-1", 0, 1).pending_since(R2, R1, start);
    let advanced = || {
        p2("cache-0-1", 0, 1)
            .pending_since(R2, R1, start)
            .workload_revision(R2)
            .generation(3, 2)
            .managed_revision_time("manager", t(-1))
    };
    let rest = |c: ClusterBuilder| {
        c.node(at_rest("cache-0-0", 0, 0))
            .node(at_rest("cache-1-0", 1, 0))
            .node(at_rest("cache-1-1", 1, 1))
    };
    let presumed = vec![
        ("cache-0-0", Waiting),
        ("cache-0-1", Waiting),
        ("cache-1-0", Waiting),
        ("cache-1-1", Waiting),
    ];
    let none = |first: NodeState| {
        vec![
            ("cache-0-0", Converged),
            ("cache-0-1", first),
            ("cache-1-0", Converged),
            ("cache-1-1", Converged),
        ]
    };
    type States = Vec<(&'static str, NodeState)>;
    let cases: Vec<(&str, ClusterBuilder, Timestamp, States)> = vec![
        (
            "one node asks, the others not yet",
            rest(cluster().image(IMAGE).node(asking())),
            t(0),
            presumed,
        ),
        (
            "the asking node is advanced before the others ask (w-00005)",
            rest(cluster().image(IMAGE).node(advanced())),
            t(0),
            vec![
                ("cache-0-0", Waiting),
                ("cache-0-1", Rolling),
                ("cache-1-0", Waiting),
                ("cache-1-1", Waiting),
            ],
        ),
        (
            "past the moment every node would have asked",
            rest(cluster().image(IMAGE).node(asking())),
            t(10),
            none(Waiting),
        ),
        (
            "the asking node's spec was written right before it asked",
            rest(
                cluster().image(IMAGE).node(
                    p2("cache-0-1", 0, 1)
                        .pending_since(R2, R1, start)
                        .managed_revision_time("manager", t(-3)),
                ),
            ),
            t(0),
            none(Waiting),
        ),
        (
            "nobody asks",
            rest(cluster().image(IMAGE).node(at_rest("cache-0-1", 0, 1))),
            t(0),
            none(Converged),
        ),
    ];
    for (case, c, now, want) in cases {
        let r = judge(&c.snapshot(), now);
        assert_eq!(states(&r), want, "{case}: {}", r.reason);
    }

    // A node advanced since the first ask has rolled in this roll: not
    // presumed, while the one not yet reached is.
    let c = cluster()
        .image(IMAGE)
        .node(asking())
        .node(at_rest("cache-0-0", 0, 0))
        .node(
            p2("cache-1-0", 1, 0)
                .managed_revision_time("manager", t(-1))
                .status_written(t(0)),
        );
    let r = judge(&c.snapshot(), t(0));
    assert_eq!(
        states(&r),
        vec![
            ("cache-0-0", Waiting),
            ("cache-0-1", Waiting),
            ("cache-1-0", Converged),
        ],
        "{}",
        r.reason
    );
    let n = r
        .nodes
        .iter()
        .find(|n| n.name == "cache-0-0")
        .expect("node");
    assert_eq!(n.facts.behind.as_ref().map(|b| b.fields.len()), Some(0));
}
