//! revoke: its patch, undo and confirmation.

use super::*;

#[test]
fn revoke_patch_undo_and_confirmation() {
    // (case, node, asks confirmation, undo)
    let cases: Vec<(&str, NodeReport, bool, &str)> = vec![
        (
            "a healthy holder",
            holder("cache-0-1", NodeState::Settling, H, Some(60)),
            false,
            "kubectl valkey-roll grant cache-0-1 -n prod --protocol P1 --revision 9f2c41ab03de55aa66bb77cc88dd99ee",
        ),
        (
            "an unhealthy holder asks first",
            crashing(holder("cache-0-1", NodeState::Stuck, H, Some(900))),
            true,
            "kubectl valkey-roll grant cache-0-1 -n prod --protocol P1 --revision 9f2c41ab03de55aa66bb77cc88dd99ee",
        ),
        (
            "a `*` permit on a primary",
            primary(holder("cache-0-1", NodeState::Rolling, "*", None)),
            false,
            "kubectl valkey-roll grant cache-0-1 -n prod --protocol P1 --any --allow-primary",
        ),
    ];
    for (name, n, asks, undo) in cases {
        let mut r = req(Action::Revoke, "cache-0-1");
        r.reason = Some("jammed".into());
        let p = run(&Scene::p1(vec![n]), &r);
        assert_eq!(p.decision, Decision::Planned, "{name}: {:?}", p.reasons);
        assert_eq!(
            p.patches[0].patch,
            json!({"metadata": {
                "resourceVersion": "rv-cache-0-1",
                "annotations": {
                    "valkey.io/allow-workload-revision": null,
                    "valkey-roll.io/granted-revision": null,
                    "valkey-roll.io/granted-by": null,
                    "valkey-roll.io/servers": null,
                    "valkey-roll.io/granted-at": null,
                    "valkey-roll.io/reason": null,
                }
            }}),
            "{name}"
        );
        assert_eq!(p.undo.as_deref(), Some(undo), "{name}");
        assert_eq!(p.confirmation.is_some(), asks, "{name}");
        assert_eq!(p.events[0].reason, "ManualRollPermitRevoked", "{name}");
        assert!(
            p.warnings.contains(&Warning::RevokeDoesNotRollBack {
                node: "cache-0-1".into()
            }),
            "{name}"
        );
    }
    let p = run(
        &Scene::p1(vec![crashing(holder(
            "cache-0-1",
            NodeState::Stuck,
            H,
            Some(900),
        ))]),
        &req(Action::Revoke, "cache-0-1"),
    );
    let text = asked(&p);
    for want in [
        "cache-0-1 holds the permit for 9f2c41ab03de and its pod is not healthy (pod valkey-cache-0-1-0 not Ready; container server waiting: CrashLoopBackOff (restarts 7))",
        "Revoking does not roll its pod back",
        "the controller keeps waiting for cache-0-1 to become Ready before it moves on",
        "stays a block until it is fixed (revert the template; delete a superseded pod) or a permit is forced elsewhere",
    ] {
        assert!(text.contains(want), "{want:?} not in {text:?}");
    }
}

#[test]
fn revoke_asks_when_the_holders_pod_is_unhealthy() {
    let evidence = Evidence::new;
    // (case, holder, asks confirmation)
    let cases: Vec<(&str, NodeReport, bool)> = vec![
        (
            "Settling: pod Ready, node not ready yet",
            unhealthy(
                holder("cache-0-1", NodeState::Settling, H, Some(60)),
                Unhealthy::NodeNotReady,
            ),
            false,
        ),
        (
            "node generation not observed, pod Ready",
            unhealthy(
                holder("cache-0-1", NodeState::Rolling, H, Some(60)),
                Unhealthy::GenerationNotObserved {
                    generation: 3,
                    observed: 2,
                },
            ),
            false,
        ),
        (
            "pod not Ready",
            {
                let mut n = holder("cache-0-1", NodeState::Rolling, H, Some(60));
                n.facts.pod_ready = Some(false);
                n
            },
            true,
        ),
        (
            "pod unknown",
            {
                let mut n = holder("cache-0-1", NodeState::Rolling, H, Some(60));
                n.facts.pod_ready = None;
                n
            },
            true,
        ),
        (
            "pod Ready, workload failing",
            {
                let mut n = holder("cache-0-1", NodeState::Stuck, H, Some(60));
                n.evidence.push(evidence(
                    EvidenceKind::ProgressDeadlineExceeded,
                    Finding::ProgressDeadlineExceeded {
                        deployment: "valkey-cache-0-1".into(),
                        message: None,
                    },
                ));
                n
            },
            true,
        ),
        (
            "pod Ready, held over the threshold only",
            {
                let mut n = holder("cache-0-1", NodeState::Stuck, H, Some(900));
                n.evidence.push(evidence(
                    EvidenceKind::HeldOverThreshold,
                    Finding::HeldOverThreshold {
                        held: 900,
                        threshold: 600,
                    },
                ));
                n
            },
            false,
        ),
    ];
    for (name, n, asks) in cases {
        let p = run(&Scene::p1(vec![n]), &req(Action::Revoke, "cache-0-1"));
        assert_eq!(p.decision, Decision::Planned, "{name}: {:?}", p.reasons);
        assert_eq!(
            p.confirmation.is_some(),
            asks,
            "{name}: {:?}",
            p.confirmation
        );
    }
}
