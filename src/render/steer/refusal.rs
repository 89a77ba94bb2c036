//! The words of a [`Refusal`] (why nothing is written) and of a
//! [`Change`] (what moved between two plans of one command). One file for
//! both: a changed plan is a refusal, and a changed decision names its
//! refusals.

use super::confirmation::confirmation;
use super::holder::{holder, holder_in};
use crate::report::Protocol;
use crate::steer::plan::{Change, Missing, PodMoved, Refusal};
use crate::units::{human, short_hash};
use std::fmt::Write;

/// What refused the command, and why, in P1's words (a cluster whose
/// protocol is known: [`refusal_in`]).
pub(crate) fn refusal(r: &Refusal) -> String {
    refusal_in(r, Protocol::P1)
}

/// What refused the command, and why, in the words of the cluster's
/// protocol: P1 holds permits, P2 advances nodes, which are then in
/// flight. What to do next is the plan's way out ([`super::way_out`]).
pub(crate) fn refusal_in(r: &Refusal, protocol: Protocol) -> String {
    let p2 = protocol == Protocol::P2;
    match r {
        Refusal::OtherHolder(h) if p2 => format!(
            "{} is already in flight, and a cluster rolls one node at a time",
            holder_in(h, protocol)
        ),
        Refusal::OtherHolder(h) => format!(
            "{} already holds a permit, and a cluster has one holder at a time",
            holder(h)
        ),
        Refusal::AsksNothing { node, protocol } => match protocol {
            Protocol::P2 => format!(
                "{node} asks for no revision (no WorkloadRollPending condition); give --revision HASH to grant one anyway"
            ),
            _ => format!(
                "{node} asks for no revision (no desired-workload-revision annotation, no WorkloadDrift condition); give --revision HASH, or --any for `*`"
            ),
        },
        Refusal::AskedRevisionUnknown { node, protocol } => match protocol {
            Protocol::P2 => format!(
                "{node} asks, but its WorkloadRollPending message names no hash; give --revision HASH"
            ),
            _ => format!(
                "{node} asks, but neither its desired-workload-revision annotation nor its WorkloadDrift message names a hash; give --revision HASH, or --any for `*`"
            ),
        },
        Refusal::Standalone { node } => format!(
            "{node} is not owned by a ValkeyCluster (standalone): it ignores permits and applies template changes at once"
        ),
        Refusal::Primary {
            node,
            unsure,
            source,
        } if p2 => format!(
            "{}: the controller's proactive failover does not run for a revision advanced by hand, so its clients lose the primary while it rolls; add --allow-primary to grant it anyway",
            super::is_primary(node, unsure.as_ref(), *source)
        ),
        Refusal::Primary {
            node,
            unsure,
            source,
        } => format!(
            "{}: the controller's proactive failover does not run for a permit given by hand, so its clients lose the primary while it rolls; add --allow-primary to grant it anyway",
            super::is_primary(node, unsure.as_ref(), *source)
        ),
        Refusal::NoSyncedReplica {
            node,
            shard,
            replicas,
        } => {
            let mut s = format!(
                "{node} is shard {shard}'s primary by its own server, and no replica of the shard is synced ({}): rolling it now takes the shard's only up-to-date copy down with it (the operator itself holds such a primary back until a replica syncs), and --allow-primary does not go past that",
                super::replicas_not_synced(replicas)
            );
            if !p2 {
                let _ = write!(
                    s,
                    "; only force --reason TEXT --unsafe-shard {shard} does, losing what no replica has"
                );
            }
            s
        }
        Refusal::NotFront { node, front } => {
            let mut s = format!("{node} is not the walk's front");
            if let Some(front) = front {
                let _ = write!(s, " ({front} is)");
            }
            s.push_str(
                ": in P2 the cluster controller checks for no other node in flight and would advance its front at the same time, so two nodes would roll at once",
            );
            s
        }
        Refusal::AlreadyHeld { node, revision } if p2 => format!(
            "{node}'s spec.workloadRevision is {} already: nothing to write",
            short_hash(revision)
        ),
        Refusal::AlreadyHeld { node, revision } => format!(
            "{node} already holds the permit for {}: nothing to write",
            short_hash(revision)
        ),
        Refusal::HoldsNothing { node } => format!("{node} holds no permit: nothing to revoke"),
        Refusal::NoRevokeInP2 { node } => format!(
            "there is no revoke in P2: the cluster controller rewrites {node}'s whole spec and would put spec.workloadRevision back"
        ),
        Refusal::NoForceInP2 { node } => format!(
            "force exists only in P1: in P2 a roll turns on {node}'s spec.workloadRevision, which the cluster controller owns; grant sets it, and only at the walk's front while no other node is in flight"
        ),
        Refusal::NoAnyInP2 => "--any (a `*` permit) exists only in P1: in P2 spec.workloadRevision takes a revision; give --revision HASH, or none for the one the node asks for".to_string(),
        Refusal::ProtocolUnknown { cluster } => format!(
            "the protocol of ValkeyCluster {cluster} is unknown (nothing staged in sight: a P1 cluster at rest, or an operator that stages nothing); say which with --protocol P1|P2"
        ),
        Refusal::ProtocolContradicts {
            cluster,
            detected,
            given,
        } => format!(
            "--protocol {given} contradicts ValkeyCluster {cluster}, whose nodes speak {detected}"
        ),
        Refusal::NotConfirmed {
            action,
            node,
            asked,
        } => {
            if *asked {
                format!("{action} {node} was not confirmed")
            } else {
                format!("{action} {node} needs confirmation: run it on a terminal, or add --yes")
            }
        }
        Refusal::WouldNeedConfirmation {
            action,
            node,
            question,
        } => format!(
            "{action} {node} needs confirmation: a real run would ask first, and off a \
             terminal without --yes it is refused (run it on a terminal, or add --yes). \
             It would ask: {}",
            confirmation(question)
        ),
        Refusal::LeaseHeld {
            lease,
            holder,
            expires_in_seconds,
        } => {
            let mut s = format!(
                "another steering command holds the Lease {lease}: {}",
                holder.as_deref().unwrap_or("an unnamed holder")
            );
            if let Some(secs) = expires_in_seconds {
                let _ = write!(s, " (expires in {} unless renewed)", human(*secs));
            }
            s.push_str("; try again when it is done");
            s
        }
        Refusal::LeaseLost { lease, holder } => {
            let mut s = match holder {
                Some(h) => format!("the Lease {lease} was taken over by {h}"),
                None => format!("the Lease {lease} was deleted"),
            };
            s.push_str(
                " before this command was done, so another steering command may be writing: the writes stopped; run the command again when it is done",
            );
            s
        }
        Refusal::Changed { what } => format!(
            "the cluster changed after the plan was made ({}); nothing was written: run the command again",
            change(what)
        ),
        Refusal::ConflictAgain { node } => format!(
            "{node} changed again while it was being written (a second conflict); run the command again"
        ),
        Refusal::NoPod { node } => format!(
            "{node} has no pod: nothing to replace (its workload creates one itself)"
        ),
        Refusal::DeploymentBacked { node, workload } => format!(
            "{node} runs as Deployment {workload}: a Deployment replaces its pods itself, so there is no OrderedReady trap to undo"
        ),
        Refusal::PodReady { node, pod } => format!(
            "{node}'s pod {pod} is Ready: a Ready pod is never deleted (its StatefulSet replaces it when its turn comes)"
        ),
        Refusal::PodOnUpdateRevision {
            node,
            pod,
            revision,
        } => format!(
            "{node}'s pod {pod} already runs the StatefulSet's update revision {revision}: replacing it only restarts the same failure; fix the template"
        ),
        Refusal::PodBeingDeleted { node, pod } => format!(
            "{node}'s pod {pod} is already being deleted: its StatefulSet recreates it"
        ),
        Refusal::PodRevisionUnknown { node, pod, missing } => format!(
            "{node}'s pod {pod} cannot be told superseded ({}): nothing is deleted without knowing",
            missing_fact(missing)
        ),
        Refusal::PodChanged { pod, what } => format!(
            "pod {pod} changed after it was read, so the API server refused the delete ({}); nothing was deleted: run the command again",
            pod_moved(what)
        ),
    }
}

/// What replace-pod could not read.
fn missing_fact(m: &Missing) -> String {
    match m {
        Missing::StatefulSet { stateful_set } => format!("StatefulSet {stateful_set} not found"),
        Missing::UpdateRevision { stateful_set } => {
            format!("StatefulSet {stateful_set} has no status.updateRevision")
        }
        Missing::RevisionLabel { pod } => format!(
            "pod {pod} has no {} label",
            crate::snapshot::keys::LABEL_CONTROLLER_REVISION
        ),
        Missing::Identity { pod } => {
            format!("pod {pod} has no metadata.uid or metadata.resourceVersion to delete it on")
        }
    }
}

fn pod_moved(m: &PodMoved) -> String {
    match m {
        PodMoved::Gone => "it is gone".to_string(),
        PodMoved::Conflict { message } => message.clone(),
    }
}

/// What differs between the plan shown and the one made again.
pub(crate) fn change(c: &Change) -> String {
    match c {
        Change::Decision { decision, reasons } => format!(
            "the decision is now {decision}: {}",
            reasons.iter().map(refusal).collect::<Vec<_>>().join("; ")
        ),
        Change::Revision { node, now, was } => format!(
            "{node} would now get {} instead of {}",
            now.as_deref().map_or("nothing", short_hash),
            was.as_deref().map_or("nothing", short_hash),
        ),
        Change::NeedsConfirmation {
            action,
            node,
            question,
        } => format!(
            "{action} {node} now needs confirmation: {}",
            confirmation(question)
        ),
        Change::PodReplaced { pod, uid, was_uid } => {
            format!("pod {pod} is now another pod (uid {uid}, was {was_uid})")
        }
        Change::PodRevisions {
            pod,
            revision,
            update_revision,
            was_revision,
            was_update_revision,
        } => format!(
            "pod {pod} now runs {revision} against update revision {update_revision} (was {was_revision} against {was_update_revision})"
        ),
        Change::OtherHolders { now, was } => format!(
            "the other holders are now [{}], were [{}]",
            now.join(", "),
            was.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusals whose facts are not finished strings any more read as
    /// they did when the planner spelt them.
    #[test]
    fn typed_refusal_details_read_as_before() {
        let unknown = |missing| Refusal::PodRevisionUnknown {
            node: "cache-0-1".into(),
            pod: "p-0".into(),
            missing,
        };
        let cases: Vec<(Refusal, &str)> = vec![
            (
                Refusal::Primary {
                    node: "cache-0-0".into(),
                    source: None,
                    unsure: Some(crate::report::RoleNote::PromotedOneOf {
                        candidates: vec!["cache-0-0".into(), "cache-0-2".into()],
                        at: None,
                    }),
                },
                "cache-0-0 may be its shard's primary (its role is unsure: one of cache-0-0, cache-0-2 was promoted at an unknown time; the events do not say which): the controller's proactive failover does not run for a permit given by hand, so its clients lose the primary while it rolls; add --allow-primary to grant it anyway",
            ),
            (
                Refusal::LeaseHeld {
                    lease: "valkey-roll.cache".into(),
                    holder: None,
                    expires_in_seconds: None,
                },
                "another steering command holds the Lease valkey-roll.cache: an unnamed holder; try again when it is done",
            ),
            (
                unknown(Missing::StatefulSet {
                    stateful_set: "s".into(),
                }),
                "cache-0-1's pod p-0 cannot be told superseded (StatefulSet s not found): nothing is deleted without knowing",
            ),
            (
                unknown(Missing::UpdateRevision {
                    stateful_set: "s".into(),
                }),
                "cache-0-1's pod p-0 cannot be told superseded (StatefulSet s has no status.updateRevision): nothing is deleted without knowing",
            ),
            (
                unknown(Missing::RevisionLabel { pod: "p-0".into() }),
                "cache-0-1's pod p-0 cannot be told superseded (pod p-0 has no controller-revision-hash label): nothing is deleted without knowing",
            ),
            (
                unknown(Missing::Identity { pod: "p-0".into() }),
                "cache-0-1's pod p-0 cannot be told superseded (pod p-0 has no metadata.uid or metadata.resourceVersion to delete it on): nothing is deleted without knowing",
            ),
            (
                Refusal::PodChanged {
                    pod: "p-0".into(),
                    what: PodMoved::Gone,
                },
                "pod p-0 changed after it was read, so the API server refused the delete (it is gone); nothing was deleted: run the command again",
            ),
            (
                Refusal::Changed {
                    what: Change::OtherHolders {
                        now: vec!["a".into(), "b".into()],
                        was: Vec::new(),
                    },
                },
                "the cluster changed after the plan was made (the other holders are now [a, b], were []); nothing was written: run the command again",
            ),
        ];
        for (r, want) in cases {
            assert_eq!(refusal(&r), want, "{r:?}");
        }
    }
}
