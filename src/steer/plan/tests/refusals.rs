//! What refuses a plan, and how each refusal reads.

use super::*;

#[test]
fn refusals() {
    let with = |mut r: Request, f: &dyn Fn(&mut Request)| {
        f(&mut r);
        r
    };
    let cases: Vec<(&str, Scene, Request, Vec<Refusal>)> = vec![
        (
            "grant while another node holds: names it, its state and hold time",
            Scene::p1(vec![waiting("cache-0-1"), stuck_holder()]),
            req(Action::Grant, "cache-0-1"),
            vec![Refusal::OtherHolder(HolderInfo {
                node: "cache-1-1".into(),
                permit: Some(H.into()),
                state: NodeState::Stuck,
                held_for_seconds: Some(840),
            })],
        ),
        (
            "grant on a node that asks for nothing",
            Scene::p1(vec![converged("cache-0-1")]),
            req(Action::Grant, "cache-0-1"),
            vec![Refusal::AsksNothing {
                node: "cache-0-1".into(),
                protocol: Protocol::P1,
            }],
        ),
        (
            "grant on a node that asks but names no hash",
            Scene::p1(vec![{
                let mut n = waiting("cache-0-1");
                n.desired_revision = None;
                n
            }]),
            req(Action::Grant, "cache-0-1"),
            vec![Refusal::AskedRevisionUnknown {
                node: "cache-0-1".into(),
                protocol: Protocol::P1,
            }],
        ),
        (
            "grant on a standalone node",
            Scene::p1(vec![{
                let mut n = waiting("cache-0-1");
                n.facts.cluster_owned = false;
                n.state = NodeState::Standalone;
                n
            }]),
            req(Action::Grant, "cache-0-1"),
            vec![Refusal::Standalone {
                node: "cache-0-1".into(),
            }],
        ),
        (
            "grant on a primary without --allow-primary",
            Scene::p1(vec![primary(waiting("cache-0-0"))]),
            req(Action::Grant, "cache-0-0"),
            vec![Refusal::Primary {
                node: "cache-0-0".into(),
                unsure: None,
                source: None,
            }],
        ),
        (
            "every refusal that applies is listed",
            Scene::p1(vec![primary(converged("cache-0-0")), stuck_holder()]),
            req(Action::Grant, "cache-0-0"),
            vec![
                Refusal::OtherHolder(HolderInfo::of(&stuck_holder())),
                Refusal::AsksNothing {
                    node: "cache-0-0".into(),
                    protocol: Protocol::P1,
                },
                Refusal::Primary {
                    node: "cache-0-0".into(),
                    unsure: None,
                    source: None,
                },
            ],
        ),
        (
            "grant of what the node already holds",
            Scene::p1(vec![{
                let mut n = holder("cache-0-1", NodeState::Rolling, H, Some(30));
                n.desired_revision = Some(H.into());
                n.facts.asks = true;
                n
            }]),
            req(Action::Grant, "cache-0-1"),
            vec![Refusal::AlreadyHeld {
                node: "cache-0-1".into(),
                revision: H.into(),
            }],
        ),
        (
            "P2 grant off the walk's front",
            Scene::p2(vec![waiting("cache-0-1"), waiting("cache-0-2")]),
            req(Action::Grant, "cache-0-2"),
            vec![Refusal::NotFront {
                node: "cache-0-2".into(),
                front: Some("cache-0-1".into()),
            }],
        ),
        (
            "P2 grant while another node holds",
            Scene::p2(vec![
                holder("cache-0-1", NodeState::Rolling, H, Some(60)),
                waiting("cache-0-2"),
            ]),
            req(Action::Grant, "cache-0-2"),
            vec![Refusal::OtherHolder(HolderInfo {
                node: "cache-0-1".into(),
                permit: Some(H.into()),
                state: NodeState::Rolling,
                held_for_seconds: Some(60),
            })],
        ),
        (
            "P2 grant with --any",
            Scene::p2(vec![waiting("cache-0-1")]),
            with(req(Action::Grant, "cache-0-1"), &|r| any(r)),
            vec![Refusal::NoAnyInP2],
        ),
        (
            "P2 grant on a node that asks for nothing",
            Scene::p2(vec![converged("cache-0-1"), waiting("cache-0-2")]),
            req(Action::Grant, "cache-0-1"),
            vec![
                Refusal::AsksNothing {
                    node: "cache-0-1".into(),
                    protocol: Protocol::P2,
                },
                Refusal::NotFront {
                    node: "cache-0-1".into(),
                    front: Some("cache-0-2".into()),
                },
            ],
        ),
        (
            "revoke in P2",
            Scene::p2(vec![holder("cache-0-1", NodeState::Rolling, H, None)]),
            req(Action::Revoke, "cache-0-1"),
            vec![Refusal::NoRevokeInP2 {
                node: "cache-0-1".into(),
            }],
        ),
        (
            "force in P2",
            Scene::p2(vec![waiting("cache-0-1")]),
            with(req(Action::Force, "cache-0-1"), &|r| {
                r.reason = Some("x".into())
            }),
            vec![Refusal::NoForceInP2 {
                node: "cache-0-1".into(),
            }],
        ),
        (
            "unknown protocol without --protocol",
            Scene::unknown(vec![converged("cache-0-1")]),
            with(req(Action::Grant, "cache-0-1"), &|r| {
                revision(r, H);
            }),
            vec![Refusal::ProtocolUnknown {
                cluster: "cache".into(),
            }],
        ),
        (
            "--protocol that contradicts the nodes",
            Scene::p1(vec![waiting("cache-0-1")]),
            with(req(Action::Grant, "cache-0-1"), &|r| {
                r.protocol_override = Some(Protocol::P2)
            }),
            vec![Refusal::ProtocolContradicts {
                cluster: "cache".into(),
                detected: Protocol::P1,
                given: Protocol::P2,
            }],
        ),
        (
            "revoke of a node that holds nothing",
            Scene::p1(vec![waiting("cache-0-1")]),
            req(Action::Revoke, "cache-0-1"),
            vec![Refusal::HoldsNothing {
                node: "cache-0-1".into(),
            }],
        ),
        (
            "force on a node that asks for nothing, without --revision or --any",
            Scene::p1(vec![converged("cache-0-1"), stuck_holder()]),
            with(req(Action::Force, "cache-0-1"), &|r| {
                r.reason = Some("x".into())
            }),
            vec![Refusal::AsksNothing {
                node: "cache-0-1".into(),
                protocol: Protocol::P1,
            }],
        ),
    ];
    for (name, scene, request, want) in cases {
        let p = run(&scene, &request);
        assert_eq!(p.decision, Decision::Refused, "{name}");
        assert_eq!(p.exit(), Exit::Refused, "{name}");
        assert_eq!(p.reasons, want, "{name}");
        assert!(p.patches.is_empty(), "{name}: no patch");
        assert!(p.events.is_empty(), "{name}: no event");
        assert_eq!(p.undo, None, "{name}: no undo");
    }
}

/// A node whose `status.role` is `primary` but which is not the shard's
/// one ready primary (not ready, or a second node claims the role too).

#[test]
fn the_primary_check_reads_the_node_role() {
    // (case, scene, request, refused as primary)
    let grant = req(Action::Grant, "cache-0-0");
    let cases: Vec<(&str, Scene, Request, bool)> = vec![
        (
            "P1: role primary, not ready",
            Scene::p1(vec![claims_primary(unhealthy(
                waiting("cache-0-0"),
                Unhealthy::NodeNotReady,
            ))]),
            grant.clone(),
            true,
        ),
        (
            "P1: two nodes claim primary",
            Scene::p1(vec![
                claims_primary(waiting("cache-0-0")),
                claims_primary(converged("cache-0-1")),
            ]),
            grant.clone(),
            true,
        ),
        (
            "P2: role primary, not ready",
            Scene::p2(vec![claims_primary(unhealthy(
                waiting("cache-0-0"),
                Unhealthy::NodeNotReady,
            ))]),
            grant.clone(),
            true,
        ),
        (
            "P1: a replica",
            Scene::p1(vec![waiting("cache-0-0")]),
            grant.clone(),
            false,
        ),
        (
            "P1: an empty role counts as a replica",
            Scene::p1(vec![{
                let mut n = waiting("cache-0-0");
                n.role = None;
                n
            }]),
            grant,
            false,
        ),
    ];
    for (name, scene, request, refused) in cases {
        let p = run(&scene, &request);
        let primary = Refusal::Primary {
            node: "cache-0-0".into(),
            unsure: None,
            source: None,
        };
        assert_eq!(p.reasons.contains(&primary), refused, "{name}: {p:?}");
        let mut allowed = request.clone();
        allow_primary(&mut allowed);
        let p = run(&scene, &allowed);
        assert!(!p.reasons.contains(&primary), "{name}: {:?}", p.reasons);
        assert_eq!(
            p.warnings.contains(&Warning::Primary {
                node: "cache-0-0".into(),
                unsure: None,
                source: None,
            }),
            refused,
            "{name}: --allow-primary warns: {:?}",
            p.warnings
        );
    }
    // force on a node that claims primary says so before asking, and
    // the undo of a revoke on it carries --allow-primary.
    let mut f = req(Action::Force, "cache-0-0");
    f.reason = Some("x".into());
    let scene = Scene::p1(vec![claims_primary(unhealthy(
        waiting("cache-0-0"),
        Unhealthy::NodeNotReady,
    ))]);
    let p = run(&scene, &f);
    assert!(
        p.warnings.contains(&Warning::Primary {
            node: "cache-0-0".into(),
            unsure: None,
            source: None,
        }),
        "{:?}",
        p.warnings
    );
    let text = asked(&p);
    assert!(text.contains("cache-0-0 is its shard's primary"), "{text}");
    let p = run(
        &Scene::p1(vec![claims_primary(holder(
            "cache-0-0",
            NodeState::Rolling,
            H,
            None,
        ))]),
        &req(Action::Revoke, "cache-0-0"),
    );
    assert!(
        p.undo
            .as_deref()
            .unwrap_or_default()
            .ends_with(" --allow-primary"),
        "{:?}",
        p.undo
    );
}

#[test]
fn refusal_texts_say_what_and_why() {
    let cases: Vec<(Refusal, &str)> = vec![
        (
            Refusal::OtherHolder(HolderInfo::of(&stuck_holder())),
            "cache-1-1 (Stuck, permit 9f2c41ab03de, held 14m) already holds a permit, and a cluster has one holder at a time",
        ),
        (
            Refusal::OtherHolder(HolderInfo {
                held_for_seconds: None,
                ..HolderInfo::of(&stuck_holder())
            }),
            "held for an unknown time",
        ),
        (
            Refusal::Primary {
                node: "cache-0-0".into(),
                unsure: None,
                source: None,
            },
            "the controller's proactive failover does not run for a permit given by hand",
        ),
        (
            Refusal::NoRevokeInP2 {
                node: "cache-0-1".into(),
            },
            "there is no revoke in P2: the cluster controller rewrites cache-0-1's whole spec and would put spec.workloadRevision back",
        ),
        (
            Refusal::ProtocolUnknown {
                cluster: "cache".into(),
            },
            "say which with --protocol P1|P2",
        ),
        (
            Refusal::NotConfirmed {
                action: Action::Force,
                node: "cache-0-1".into(),
                asked: false,
            },
            "force cache-0-1 needs confirmation: run it on a terminal, or add --yes",
        ),
        (
            Refusal::NotFront {
                node: "cache-0-2".into(),
                front: Some("cache-0-1".into()),
            },
            "cache-0-2 is not the walk's front (cache-0-1 is): in P2",
        ),
    ];
    for (refusal, want) in cases {
        let text = crate::render::steer::refusal::refusal(&refusal);
        assert!(text.contains(want), "{want:?} not in {text:?}");
    }
}

#[test]
fn unknown_node_is_an_error_with_the_nearest_names() {
    let (snapshot, report) = Scene::p1(vec![waiting("cache-0-1"), waiting("cache-1-1")]).build();
    let err = plan(
        &snapshot,
        &report,
        &req(Action::Grant, "cache-0-7"),
        now(),
        "alice",
    )
    .expect_err("no such node");
    match err {
        Error::NotFound {
            kind,
            name,
            nearest,
            ..
        } => {
            assert_eq!((kind, name.as_str()), ("ValkeyNode", "cache-0-7"));
            assert_eq!(
                nearest,
                vec!["cache-0-1".to_string(), "cache-1-1".to_string()]
            );
        }
        other => panic!("want NotFound, got {other:?}"),
    }
}

/// A node whose judged role is unsure may be its shard's primary: a grant
/// is refused as one, and says why the role is unsure.
#[test]
fn an_unsure_role_is_refused_as_a_primary_would_be() {
    use crate::report::RoleNote;
    let note = RoleNote::PromotedOneOf {
        candidates: vec!["cache-0-0".into(), "cache-0-2".into()],
        at: None,
    };
    let mut n = waiting("cache-0-0");
    n.role = None;
    n.role_note = Some(note.clone());
    for scene in [Scene::p1(vec![n.clone()]), Scene::p2(vec![n.clone()])] {
        let p = run(&scene, &req(Action::Grant, "cache-0-0"));
        let want = Refusal::Primary {
            node: "cache-0-0".into(),
            unsure: Some(note.clone()),
            source: None,
        };
        assert!(p.reasons.contains(&want), "{:?}", p.reasons);
    }
}

/// Issue 29: a replica whose shard's judged primary newer evidence
/// contradicts (an unplanned failover at rest) may be the primary: a grant
/// on it is refused as one.
#[test]
fn a_replica_of_a_contradicted_shard_is_refused_as_a_primary_would_be() {
    use crate::report::{Contradiction, Role, RoleContradicted, RoleNote};
    let note = RoleNote::Contradicted(Box::new(RoleContradicted {
        primary: "cache-0-1".into(),
        judged_at: None,
        by: Contradiction::Status {
            node: "cache-0-1".into(),
            role: Role::Replica,
            at: None,
        },
    }));
    let mut n = waiting("cache-0-0");
    n.role = Some(Role::Replica);
    n.role_note = Some(note.clone());
    let p = run(&Scene::p2(vec![n]), &req(Action::Grant, "cache-0-0"));
    let want = Refusal::Primary {
        node: "cache-0-0".into(),
        unsure: Some(note),
        source: None,
    };
    assert!(p.reasons.contains(&want), "{:?}", p.reasons);
}
