//! `replace-pod`: delete a node's pod when the OrderedReady trap holds it,
//! so that its StatefulSet recreates it from its current revision.
//!
//! Allowed exactly when the operator's PR #410 predicate holds: the pod is
//! not Ready and its `controller-revision-hash` differs from the
//! StatefulSet's `status.updateRevision`. Everything else is a typed
//! refusal saying why.

use super::patch::{EventObject, EventType, PodDelete};
use super::refusal::{Change, Confirmation, Missing, Refusal};
use super::{EventPlan, Plan, Request};
use crate::classify::NodePod;
use crate::snapshot::keys;

/// Fills `plan` for `replace-pod` from the node's pod (`None`: the node is
/// not in the snapshot, which `plan()` has already refused).
pub(super) fn plan_replace(
    plan: &mut Plan,
    found: Option<&NodePod>,
    node_uid: Option<String>,
    request: &Request,
    actor: &str,
) {
    match decide(&request.node, found) {
        Err(refusal) => plan.refuse(refusal),
        Ok(delete) => {
            plan.confirmation = Some(Confirmation::ReplacePod {
                node: request.node.clone(),
                delete: delete.clone(),
            });
            let mut event = EventPlan::about_node(
                EventType::Warning,
                &request.node,
                node_uid,
                keys::EVENT_MANUAL_SUPERSEDED_DELETED,
                event_message(actor, &delete, request.reason.as_deref()),
            );
            event.related = Some(EventObject {
                api_version: "v1",
                kind: "Pod",
                name: delete.pod.clone(),
                uid: Some(delete.uid.clone()),
            });
            plan.events.push(event);
            plan.pod_delete = Some(delete);
        }
    }
}

/// The delete, or why not.
pub(super) fn decide(node: &str, found: Option<&NodePod>) -> Result<PodDelete, Refusal> {
    let node_s = node.to_string();
    let Some(np) = found else {
        return Err(Refusal::NoPod { node: node_s });
    };
    if np.deployment {
        return Err(Refusal::DeploymentBacked {
            node: node_s,
            workload: np.workload.clone(),
        });
    }
    let Some(pod) = &np.pod else {
        return Err(Refusal::NoPod { node: node_s });
    };
    let pod_name = pod.name.clone();
    if pod.being_deleted {
        return Err(Refusal::PodBeingDeleted {
            node: node_s,
            pod: pod_name,
        });
    }
    if pod.ready {
        return Err(Refusal::PodReady {
            node: node_s,
            pod: pod_name,
        });
    }
    if !np.workload_found {
        return Err(Refusal::PodRevisionUnknown {
            node: node_s,
            pod: pod_name,
            missing: Missing::StatefulSet {
                stateful_set: np.workload.clone(),
            },
        });
    }
    let Some(update) = np.update_revision.clone() else {
        return Err(Refusal::PodRevisionUnknown {
            node: node_s,
            pod: pod_name,
            missing: Missing::UpdateRevision {
                stateful_set: np.workload.clone(),
            },
        });
    };
    let Some(revision) = pod.revision.clone() else {
        return Err(Refusal::PodRevisionUnknown {
            node: node_s,
            pod: pod_name,
            missing: Missing::RevisionLabel {
                pod: pod.name.clone(),
            },
        });
    };
    if revision == update {
        return Err(Refusal::PodOnUpdateRevision {
            node: node_s,
            pod: pod_name,
            revision,
        });
    }
    let (Some(uid), Some(rv)) = (pod.uid.clone(), pod.resource_version.clone()) else {
        return Err(Refusal::PodRevisionUnknown {
            node: node_s,
            pod: pod_name,
            missing: Missing::Identity {
                pod: pod.name.clone(),
            },
        });
    };
    Ok(PodDelete {
        pod: pod_name,
        uid,
        resource_version: rv,
        revision,
        stateful_set: np.workload.clone(),
        update_revision: update,
    })
}

/// The Event's note: data written to the API (and shown by
/// `--dry-run=client`), so spelt here rather than in render.
fn event_message(actor: &str, d: &PodDelete, reason: Option<&str>) -> String {
    let mut m = format!(
        "{actor} deleted the superseded pod {} (revision {}, not Ready; StatefulSet {} wants {}) by hand (kubectl valkey-roll)",
        d.pod, d.revision, d.stateful_set, d.update_revision,
    );
    match reason {
        Some(r) => m.push_str(&format!(": {r}")),
        None => m.push_str("; no reason given"),
    }
    m
}

/// What changed between the pod delete shown and the one planned again.
pub(super) fn changed(now: Option<&PodDelete>, before: Option<&PodDelete>) -> Option<Change> {
    match (now, before) {
        (Some(a), Some(b)) if a.uid != b.uid => Some(Change::PodReplaced {
            pod: a.pod.clone(),
            uid: a.uid.clone(),
            was_uid: b.uid.clone(),
        }),
        (Some(a), Some(b))
            if a.revision != b.revision || a.update_revision != b.update_revision =>
        {
            Some(Change::PodRevisions {
                pod: a.pod.clone(),
                revision: a.revision.clone(),
                update_revision: a.update_revision.clone(),
                was_revision: b.revision.clone(),
                was_update_revision: b.update_revision.clone(),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::node::{PodFacts, superseded_not_ready};

    fn trapped() -> NodePod {
        NodePod {
            deployment: false,
            workload: "valkey-cache-0-1".into(),
            workload_found: true,
            update_revision: Some("valkey-cache-0-1-new".into()),
            pod: Some(PodFacts {
                name: "valkey-cache-0-1-0".into(),
                uid: Some("uid-1".into()),
                resource_version: Some("77".into()),
                ready: false,
                being_deleted: false,
                revision: Some("valkey-cache-0-1-old".into()),
            }),
        }
    }

    fn with(f: impl FnOnce(&mut NodePod)) -> NodePod {
        let mut n = trapped();
        f(&mut n);
        n
    }

    fn pod(n: &mut NodePod) -> &mut PodFacts {
        n.pod.as_mut().expect("the test's pod")
    }

    #[test]
    fn allowed_only_for_a_superseded_pod_that_is_not_ready() {
        // (case, the node's pod, refusal text part or None for allowed)
        let cases: Vec<(&str, Option<NodePod>, Option<&str>)> = vec![
            ("the trap", Some(trapped()), None),
            (
                "on the update revision, crash-looping",
                Some(with(|n| {
                    pod(n).revision = Some("valkey-cache-0-1-new".into())
                })),
                Some("only restarts the same failure; fix the template"),
            ),
            (
                "Ready",
                Some(with(|n| pod(n).ready = true)),
                Some("is Ready: a Ready pod is never deleted"),
            ),
            (
                "Deployment",
                Some(with(|n| n.deployment = true)),
                Some("a Deployment replaces its pods itself"),
            ),
            ("no pod", Some(with(|n| n.pod = None)), Some("has no pod")),
            ("node not found", None, Some("has no pod")),
            (
                "being deleted",
                Some(with(|n| pod(n).being_deleted = true)),
                Some("is already being deleted"),
            ),
            (
                "no update revision",
                Some(with(|n| n.update_revision = None)),
                Some("has no status.updateRevision"),
            ),
            (
                "no StatefulSet",
                Some(with(|n| n.workload_found = false)),
                Some("StatefulSet valkey-cache-0-1 not found"),
            ),
            (
                "no revision label",
                Some(with(|n| pod(n).revision = None)),
                Some("has no controller-revision-hash label"),
            ),
            (
                "no uid",
                Some(with(|n| pod(n).uid = None)),
                Some("no metadata.uid"),
            ),
        ];
        for (name, found, want) in cases {
            let got = decide("cache-0-1", found.as_ref());
            // The predicate the explain uses agrees with the planner.
            if let Some(f) = &found {
                assert_eq!(
                    superseded_not_ready(
                        f.deployment,
                        f.workload_found,
                        (f.pod.as_ref()).map(|p| (p.ready, p.being_deleted, p.revision.as_deref())),
                        f.update_revision.as_deref(),
                    ),
                    got.is_ok() || f.pod.as_ref().is_some_and(|p| p.uid.is_none()),
                    "{name}"
                );
            }
            match (got, want) {
                (Ok(d), None) => {
                    assert_eq!(d.pod, "valkey-cache-0-1-0", "{name}");
                    assert_eq!(d.uid, "uid-1", "{name}");
                    assert_eq!(d.resource_version, "77", "{name}");
                }
                (Err(r), Some(part)) => {
                    let text = crate::render::steer::refusal::refusal(&r);
                    assert!(text.contains(part), "{name}: {text}");
                    assert!(text.contains("cache-0-1"), "{name}: {text}");
                }
                (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn a_new_uid_or_revision_is_a_change() {
        let d = decide("cache-0-1", Some(&trapped())).expect("trap");
        assert_eq!(changed(Some(&d), Some(&d)), None);
        let mut other = d.clone();
        other.uid = "uid-2".into();
        let what = changed(Some(&other), Some(&d)).expect("new uid");
        let what = crate::render::steer::refusal::change(&what);
        assert!(what.contains("uid uid-2, was uid-1"), "{what}");
        let mut moved = d.clone();
        moved.update_revision = "valkey-cache-0-1-newer".into();
        assert!(changed(Some(&moved), Some(&d)).is_some());
    }

    #[test]
    fn confirmation_and_event_say_what_happens_and_who() {
        let d = decide("cache-0-1", Some(&trapped())).expect("trap");
        let q = crate::render::steer::confirmation(&Confirmation::ReplacePod {
            node: "cache-0-1".into(),
            delete: d.clone(),
        });
        for want in [
            "deletes pod valkey-cache-0-1-0",
            "recreates it from its current revision",
            "emptyDir volume is lost",
            "persistent volumes stay",
        ] {
            assert!(q.contains(want), "{want:?} in {q}");
        }
        let m = event_message("alice", &d, Some("OrderedReady trap"));
        assert!(
            m.starts_with("alice deleted the superseded pod valkey-cache-0-1-0"),
            "{m}"
        );
        assert!(m.ends_with(": OrderedReady trap"), "{m}");
        assert!(event_message("bob", &d, None).ends_with("; no reason given"));
    }

    /// The planned Event is a Warning about the node, related to the pod
    /// it deletes (by UID), as `--dry-run=client` shows it.
    #[test]
    fn the_planned_event_names_the_node_and_the_pod() {
        let mut p = crate::fixture::sample::plan(crate::steer::plan::Action::ReplacePod, "");
        let mut r = super::super::tests::req(crate::steer::plan::Action::ReplacePod, "cache-0-1");
        r.reason = Some("trap".into());
        plan_replace(&mut p, Some(&trapped()), Some("uid-vn".into()), &r, "alice");
        let [ev] = p.events.as_slice() else {
            panic!("one event: {:?}", p.events)
        };
        assert_eq!(ev.type_, EventType::Warning);
        assert_eq!(ev.reason, keys::EVENT_MANUAL_SUPERSEDED_DELETED);
        assert_eq!(
            (ev.node(), ev.regarding.uid.as_deref()),
            ("cache-0-1", Some("uid-vn"))
        );
        let related = ev.related.as_ref().expect("the pod");
        let d = p.pod_delete.as_ref().expect("a delete");
        assert_eq!(
            (related.kind, related.name.as_str()),
            ("Pod", d.pod.as_str())
        );
        assert_eq!(related.uid.as_deref(), Some(d.uid.as_str()));
    }
}
