//! grant in P1 and P2: the exact patches, the values written, the
//! warnings, and a cluster judged by a given protocol.

use super::*;

#[test]
fn p1_grant_patch_is_exact() {
    let mut r = req(Action::Grant, "cache-0-1");
    r.reason = Some("canary first".into());
    let p = run(
        &Scene::p1(vec![waiting("cache-0-1"), waiting("cache-0-2")]),
        &r,
    );
    assert_eq!(p.decision, Decision::Planned);
    assert_eq!(p.reasons, vec![]);
    assert_eq!(p.warnings, vec![off()]);
    assert_eq!(p.patches.len(), 1);
    let x = &p.patches[0];
    assert_eq!((x.kind, x.name.as_str()), ("ValkeyNode", "cache-0-1"));
    assert_eq!(x.resource_version.as_deref(), Some("rv-cache-0-1"));
    assert_eq!(
        x.patch,
        json!({"metadata": {
            "resourceVersion": "rv-cache-0-1",
            "annotations": {
                "valkey.io/allow-workload-revision": H,
                "valkey-roll.io/granted-revision": H,
                "valkey-roll.io/granted-by": "alice",
                "valkey-roll.io/granted-at": "2026-11-29T10:16:11Z",
                "valkey-roll.io/reason": "canary first",
                "valkey-roll.io/servers": OFF_LINE,
            }
        }})
    );
    assert_eq!(
        p.events,
        vec![EventPlan::about_node(
            EventType::Normal,
            "cache-0-1",
            None,
            "ManualRollPermitGranted",
            format!(
                "alice granted the roll permit for 9f2c41ab03de by hand (kubectl valkey-roll): canary first; the servers said: {OFF_LINE}"
            ),
        )]
    );
    assert_eq!(
        p.undo.as_deref(),
        Some("kubectl valkey-roll revoke cache-0-1 -n prod")
    );
    assert_eq!(p.revision.as_deref(), Some(H));
    assert_eq!(p.confirmation, None);
}

#[test]
fn grant_without_reason_clears_an_old_one() {
    let p = run(
        &Scene::p1(vec![waiting("cache-0-1")]),
        &req(Action::Grant, "cache-0-1"),
    );
    assert_eq!(
        p.patches[0].patch["metadata"]["annotations"]["valkey-roll.io/reason"],
        Value::Null
    );
    assert!(
        p.events[0].note.contains("; no reason given;"),
        "{}",
        p.events[0].note
    );
}

#[test]
fn grant_values_and_warnings() {
    // (case, scene, request change, value written, warnings)
    type Case = (
        &'static str,
        Scene,
        fn(&mut Request),
        &'static str,
        Vec<Warning>,
    );
    let cases: Vec<Case> = vec![
        (
            "--any on a node that asks for nothing",
            Scene::p1(vec![converged("cache-0-1")]),
            |r| any(r),
            "*",
            vec![Warning::NotFront {
                node: "cache-0-1".into(),
                front: None,
            }],
        ),
        (
            "--revision other than the asked-for one",
            Scene::p1(vec![waiting("cache-0-1")]),
            |r| revision(r, OLD),
            OLD,
            vec![Warning::RevisionDiffers {
                node: "cache-0-1".into(),
                written: OLD.into(),
                asked: Some(H.into()),
                protocol: Protocol::P1,
            }],
        ),
        (
            "off the walk's front in P1: a warning, not a refusal",
            Scene::p1(vec![waiting("cache-0-1"), waiting("cache-0-2")]),
            |r| r.node = "cache-0-2".into(),
            H,
            vec![Warning::NotFront {
                node: "cache-0-2".into(),
                front: Some("cache-0-1".into()),
            }],
        ),
        (
            "a primary with --allow-primary",
            Scene::p1(vec![primary(waiting("cache-0-1"))]),
            |r| allow_primary(r),
            H,
            vec![Warning::Primary {
                node: "cache-0-1".into(),
                unsure: None,
                source: None,
            }],
        ),
        (
            "an unhealthy node",
            Scene::p1(vec![unhealthy(
                waiting("cache-0-1"),
                Unhealthy::NodeNotReady,
            )]),
            |_| {},
            H,
            vec![Warning::NotHealthy {
                node: "cache-0-1".into(),
                because: vec![Unhealthy::NodeNotReady],
            }],
        ),
        (
            "a stale permit of its own is replaced",
            Scene::p1(vec![{
                let mut n = holder("cache-0-1", NodeState::StalePermit, OLD, Some(5));
                n.desired_revision = Some(H.into());
                n.facts.asks = true;
                n
            }]),
            |_| {},
            H,
            vec![
                Warning::ReplacesPermit {
                    node: "cache-0-1".into(),
                    old: OLD.into(),
                },
                Warning::NotFront {
                    node: "cache-0-1".into(),
                    front: None,
                },
            ],
        ),
        (
            "unknown protocol with --protocol P1",
            Scene::unknown(vec![converged("cache-0-1")]),
            |r| {
                r.protocol_override = Some(Protocol::P1);
                revision(r, H);
            },
            H,
            vec![
                Warning::RevisionDiffers {
                    node: "cache-0-1".into(),
                    written: H.into(),
                    asked: None,
                    protocol: Protocol::P1,
                },
                Warning::NotFront {
                    node: "cache-0-1".into(),
                    front: None,
                },
            ],
        ),
    ];
    for (name, scene, change, value, warnings) in cases {
        let mut r = req(Action::Grant, "cache-0-1");
        change(&mut r);
        let p = run(&scene, &r);
        assert_eq!(p.decision, Decision::Planned, "{name}: {:?}", p.reasons);
        assert_eq!(p.revision.as_deref(), Some(value), "{name}");
        assert_eq!(
            p.patches[0].patch["metadata"]["annotations"][keys::ANN_PERMIT],
            json!(value),
            "{name}"
        );
        assert_eq!(p.warnings, [warnings, vec![off()]].concat(), "{name}");
    }
}

#[test]
fn p2_grant_writes_the_spec_and_has_no_undo() {
    let mut r = req(Action::Grant, "cache-0-1");
    r.reason = Some("unblock".into());
    let p = run(
        &Scene::p2(vec![waiting("cache-0-1"), waiting("cache-0-2")]),
        &r,
    );
    assert_eq!(p.decision, Decision::Planned, "{:?}", p.reasons);
    assert_eq!(
        p.patches[0].patch,
        json!({
            "metadata": {
                "resourceVersion": "rv-cache-0-1",
                "annotations": {
                    "valkey-roll.io/granted-revision": H,
                    "valkey-roll.io/granted-by": "alice",
                    "valkey-roll.io/granted-at": "2026-11-29T10:16:11Z",
                    "valkey-roll.io/reason": "unblock",
                    "valkey-roll.io/servers": OFF_LINE,
                }
            },
            "spec": {"workloadRevision": H}
        })
    );
    assert_eq!(p.undo, None);
    assert_eq!(
        p.warnings,
        vec![
            Warning::NoUndoInP2 {
                node: "cache-0-1".into()
            },
            off()
        ]
    );
    assert!(
        crate::render::steer::warning_in(&p.warnings[0], Protocol::P1)
            .contains("the cluster controller owns cache-0-1's spec.workloadRevision")
    );
    assert_eq!(p.events[0].reason, "ManualRollPermitGranted");
}

#[test]
fn p2_protocol_given_for_an_unknown_cluster() {
    let mut r = req(Action::Grant, "cache-0-1");
    r.protocol_override = Some(Protocol::P2);
    let p = run(&Scene::unknown(vec![waiting("cache-0-1")]), &r);
    assert_eq!(p.protocol, Protocol::P2);
    assert_eq!(p.decision, Decision::Planned, "{:?}", p.reasons);
    assert_eq!(p.patches[0].patch["spec"]["workloadRevision"], json!(H));
}

/// A cluster whose nodes show no protocol: cache-0-1's new spec is not
/// observed yet (a P2 holder; under P1's rules a Blocking node).
fn unstaged() -> Snapshot {
    use crate::fixture::{cluster, node};
    let at_rest = |n: crate::fixture::NodeBuilder| n.ready().pod_ready().sts_rolled_out();
    cluster(NS, "cache")
        .ready_for_generation()
        .node(at_rest(node("cache-0-0").primary().shard(0, 0)))
        .node(at_rest(node("cache-0-1").replica().shard(0, 1)).spec_updated())
        .node(at_rest(node("cache-0-2").replica().shard(0, 2)))
        .snapshot()
}

#[test]
fn a_given_protocol_judges_an_unknown_cluster_by_its_rules() {
    let snapshot = unstaged();
    let threshold = std::time::Duration::from_secs(600);
    let report = crate::classify::classify(&snapshot, now(), threshold);
    assert_eq!(report.clusters[0].protocol, Protocol::Unknown);
    // The caller judges with the request's protocol (as the executor does).
    let ask = |action: Action, protocol: Protocol, f: &dyn Fn(&mut Request)| {
        let mut r = req(action, "cache-0-2");
        r.protocol_override = Some(protocol);
        r.reason = Some("x".into());
        f(&mut r);
        let report = crate::steer::exec::judge(&snapshot, now(), threshold, &r);
        plan(&snapshot, &report, &r, now(), "alice").expect("plan")
    };
    let revision = |r: &mut Request| revision(r, H);
    // P2: cache-0-1 holds (its spec revision advanced, not yet applied).
    let p = ask(Action::Grant, Protocol::P2, &revision);
    assert_eq!(p.protocol, Protocol::P2);
    assert_eq!(p.decision, Decision::Refused, "{p:?}");
    assert_eq!(p.other_holders, vec!["cache-0-1".to_string()]);
    assert!(
        matches!(&p.reasons[0], Refusal::OtherHolder(h) if h.node == "cache-0-1"),
        "{:?}",
        p.reasons
    );
    // P1: nobody holds; cache-0-1 is the walk's front.
    let p = ask(Action::Grant, Protocol::P1, &revision);
    assert_eq!(p.protocol, Protocol::P1);
    assert_eq!(p.decision, Decision::Planned, "{:?}", p.reasons);
    assert!(p.other_holders.is_empty());
    assert!(p.warnings.contains(&Warning::NotFront {
        node: "cache-0-2".into(),
        front: Some("cache-0-1".into()),
    }));
    // What P2 does not have is refused (exit 4), as on a detected P2
    // cluster.
    // (case, action, request change, refusal)
    type Case<'a> = (&'a str, Action, &'a dyn Fn(&mut Request), Refusal);
    let cases: Vec<Case> = vec![
        (
            "revoke",
            Action::Revoke,
            &|_| {},
            Refusal::NoRevokeInP2 {
                node: "cache-0-2".into(),
            },
        ),
        (
            "force",
            Action::Force,
            &revision,
            Refusal::NoForceInP2 {
                node: "cache-0-2".into(),
            },
        ),
        (
            "grant --any",
            Action::Grant,
            &|r| any(r),
            Refusal::NoAnyInP2,
        ),
    ];
    for (name, action, change, want) in cases {
        let p = ask(action, Protocol::P2, change);
        assert_eq!(p.decision, Decision::Refused, "{name}");
        assert_eq!(p.exit(), Exit::Refused, "{name}");
        assert!(p.reasons.contains(&want), "{name}: {:?}", p.reasons);
        assert!(p.patches.is_empty(), "{name}");
    }
}
