//! Why a plan writes nothing ([`Refusal`], exit 4) and what a person
//! should know about one that goes ahead ([`Warning`]), each in the words
//! printed for it: what, and why.

use super::Action;
use crate::report::{NodeReport, NodeState, Protocol, Unhealthy};
use crate::units::{human, short_hash};
use std::fmt;

/// A holder as the planner saw it, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HolderInfo {
    pub node: String,
    pub permit: Option<String>,
    pub state: NodeState,
    pub held_for_seconds: Option<u64>,
}

impl HolderInfo {
    pub(super) fn of(n: &NodeReport) -> HolderInfo {
        HolderInfo {
            node: n.name.clone(),
            permit: n.permit.clone(),
            state: n.state,
            held_for_seconds: n.held_for_seconds,
        }
    }
}

impl fmt::Display for HolderInfo {
    /// `cache-1-1 (Stuck, permit 9f2c41ab03de, held 14m)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}", self.node, self.state)?;
        if let Some(p) = &self.permit {
            write!(f, ", permit {}", short_hash(p))?;
        }
        match self.held_for_seconds {
            Some(s) => write!(f, ", held {})", human(s)),
            None => write!(f, ", held for an unknown time)"),
        }
    }
}

/// Why a steering command writes nothing. Every one exits 4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Another node of the cluster holds a permit.
    OtherHolder(HolderInfo),
    /// The node asks for no revision, and none was given.
    AsksNothing { node: String, protocol: Protocol },
    /// The node asks, but which revision cannot be told.
    AskedRevisionUnknown { node: String, protocol: Protocol },
    /// Not cluster-owned: permits do not apply.
    Standalone { node: String },
    /// The shard's primary, without `--allow-primary`.
    Primary { node: String },
    /// P2: a grant off the walk's front.
    NotFront { node: String, front: Option<String> },
    /// The node already holds exactly what a grant would write.
    AlreadyHeld { node: String, revision: String },
    /// revoke of a node that holds nothing.
    HoldsNothing { node: String },
    /// revoke in P2.
    NoRevokeInP2 { node: String },
    /// force in P2.
    NoForceInP2 { node: String },
    /// `--any` in P2.
    NoAnyInP2,
    /// The cluster's protocol cannot be told and `--protocol` was not given.
    ProtocolUnknown { cluster: String },
    /// `--protocol` says otherwise than the nodes.
    ProtocolContradicts {
        cluster: String,
        detected: Protocol,
        given: Protocol,
    },
    /// Confirmation was needed and not given (off a terminal without
    /// `--yes`, or answered no).
    NotConfirmed {
        action: Action,
        node: String,
        asked: bool,
    },
    /// A dry run off a terminal without `--yes` of a command that needs
    /// confirmation: the real run would be refused (exit 4), so the dry
    /// run is too. `question`: what the real run would ask.
    WouldNeedConfirmation {
        action: Action,
        node: String,
        question: String,
    },
    /// Another steering command holds the cluster's Lease.
    LeaseHeld {
        lease: String,
        holder: String,
        expires_in_seconds: Option<u64>,
    },
    /// The cluster's Lease stopped being this command's before it was done
    /// (taken over by `holder`, or deleted).
    LeaseLost {
        lease: String,
        holder: Option<String>,
    },
    /// The state changed between the first read and the one under the
    /// Lease (or after a conflict), so what was shown is not what would be
    /// written.
    Changed { what: String },
    /// A second conflict on the same write.
    ConflictAgain { node: String },
    /// replace-pod: the node has no pod.
    NoPod { node: String },
    /// replace-pod: the node runs as a Deployment.
    DeploymentBacked { node: String, workload: String },
    /// replace-pod: the pod is Ready.
    PodReady { node: String, pod: String },
    /// replace-pod: the pod runs the StatefulSet's update revision.
    PodOnUpdateRevision {
        node: String,
        pod: String,
        revision: String,
    },
    /// replace-pod: the pod is already being deleted.
    PodBeingDeleted { node: String, pod: String },
    /// replace-pod: the revisions (or the pod's identity) cannot be read.
    PodRevisionUnknown {
        node: String,
        pod: String,
        missing: String,
    },
    /// replace-pod: the delete's precondition failed (the pod changed or
    /// was replaced after it was read).
    PodChanged { pod: String, what: String },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::OtherHolder(h) => write!(
                f,
                "{h} already holds a permit, and a cluster has one holder at a time: wait for its roll, `revoke` it, or `force` past it"
            ),
            Refusal::AsksNothing { node, protocol } => match protocol {
                Protocol::P2 => write!(
                    f,
                    "{node} asks for no revision (no WorkloadRollPending condition); give --revision HASH to grant one anyway"
                ),
                _ => write!(
                    f,
                    "{node} asks for no revision (no desired-workload-revision annotation, no WorkloadDrift condition); give --revision HASH, or --any for `*`"
                ),
            },
            Refusal::AskedRevisionUnknown { node, protocol } => match protocol {
                Protocol::P2 => write!(
                    f,
                    "{node} asks, but its WorkloadRollPending message names no hash; give --revision HASH"
                ),
                _ => write!(
                    f,
                    "{node} asks, but neither its desired-workload-revision annotation nor its WorkloadDrift message names a hash; give --revision HASH, or --any for `*`"
                ),
            },
            Refusal::Standalone { node } => write!(
                f,
                "{node} is not owned by a ValkeyCluster (standalone): it ignores permits and applies template changes at once"
            ),
            Refusal::Primary { node } => write!(
                f,
                "{node} is its shard's primary: the controller's proactive failover does not run for a permit given by hand, so its clients lose the primary while it rolls; add --allow-primary to grant it anyway"
            ),
            Refusal::NotFront { node, front } => {
                write!(f, "{node} is not the walk's front")?;
                if let Some(front) = front {
                    write!(f, " ({front} is)")?;
                }
                write!(
                    f,
                    ": in P2 the cluster controller checks no other holder and would advance its front at the same time, so two nodes would roll at once"
                )
            }
            Refusal::AlreadyHeld { node, revision } => write!(
                f,
                "{node} already holds the permit for {}: nothing to write",
                short_hash(revision)
            ),
            Refusal::HoldsNothing { node } => {
                write!(f, "{node} holds no permit: nothing to revoke")
            }
            Refusal::NoRevokeInP2 { node } => write!(
                f,
                "there is no revoke in P2: the cluster controller rewrites {node}'s whole spec and would put spec.workloadRevision back"
            ),
            Refusal::NoForceInP2 { node } => write!(
                f,
                "force exists only in P1: in P2 the permit is {node}'s spec.workloadRevision, which the cluster controller owns; use grant (refused while another node holds)"
            ),
            Refusal::NoAnyInP2 => write!(
                f,
                "--any (a `*` permit) exists only in P1: in P2 the permit is a revision in spec.workloadRevision; give --revision HASH"
            ),
            Refusal::ProtocolUnknown { cluster } => write!(
                f,
                "the protocol of ValkeyCluster {cluster} is unknown (nothing staged in sight: a P1 cluster at rest, or an operator that stages nothing); say which with --protocol P1|P2"
            ),
            Refusal::ProtocolContradicts {
                cluster,
                detected,
                given,
            } => write!(
                f,
                "--protocol {given} contradicts ValkeyCluster {cluster}, whose nodes speak {detected}"
            ),
            Refusal::NotConfirmed {
                action,
                node,
                asked,
            } => {
                if *asked {
                    write!(f, "{action} {node} was not confirmed")
                } else {
                    write!(
                        f,
                        "{action} {node} needs confirmation: run it on a terminal, or add --yes"
                    )
                }
            }
            Refusal::WouldNeedConfirmation {
                action,
                node,
                question,
            } => write!(
                f,
                "{action} {node} needs confirmation: a real run would ask first, and off a \
                 terminal without --yes it is refused (run it on a terminal, or add --yes). \
                 It would ask: {question}"
            ),
            Refusal::LeaseHeld {
                lease,
                holder,
                expires_in_seconds,
            } => {
                write!(
                    f,
                    "another steering command holds the Lease {lease}: {holder}"
                )?;
                if let Some(s) = expires_in_seconds {
                    write!(f, " (expires in {} unless renewed)", human(*s))?;
                }
                write!(f, "; try again when it is done")
            }
            Refusal::LeaseLost { lease, holder } => {
                match holder {
                    Some(h) => write!(f, "the Lease {lease} was taken over by {h}")?,
                    None => write!(f, "the Lease {lease} was deleted")?,
                }
                write!(
                    f,
                    " before this command was done, so another steering command may be writing: the writes stopped; run the command again when it is done"
                )
            }
            Refusal::Changed { what } => write!(
                f,
                "the cluster changed after the plan was made ({what}); nothing was written: run the command again"
            ),
            Refusal::ConflictAgain { node } => write!(
                f,
                "{node} changed again while it was being written (a second conflict); run the command again"
            ),
            Refusal::NoPod { node } => write!(
                f,
                "{node} has no pod: nothing to replace (its workload creates one itself)"
            ),
            Refusal::DeploymentBacked { node, workload } => write!(
                f,
                "{node} runs as Deployment {workload}: a Deployment replaces its pods itself, so there is no OrderedReady trap to undo"
            ),
            Refusal::PodReady { node, pod } => write!(
                f,
                "{node}'s pod {pod} is Ready: a Ready pod is never deleted (its StatefulSet replaces it when its turn comes)"
            ),
            Refusal::PodOnUpdateRevision {
                node,
                pod,
                revision,
            } => write!(
                f,
                "{node}'s pod {pod} already runs the StatefulSet's update revision {revision}: replacing it only restarts the same failure; fix the template"
            ),
            Refusal::PodBeingDeleted { node, pod } => write!(
                f,
                "{node}'s pod {pod} is already being deleted: its StatefulSet recreates it"
            ),
            Refusal::PodRevisionUnknown { node, pod, missing } => write!(
                f,
                "{node}'s pod {pod} cannot be told superseded ({missing}): nothing is deleted without knowing"
            ),
            Refusal::PodChanged { pod, what } => write!(
                f,
                "pod {pod} changed after it was read, so the API server refused the delete ({what}); nothing was deleted: run the command again"
            ),
        }
    }
}

/// Something a person should know about a plan that goes ahead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// P1: the node is not the walk's front.
    NotFront { node: String, front: Option<String> },
    /// `--allow-primary`, or force on a primary.
    Primary { node: String },
    /// force: another holder, which keeps its permit (or loses it, with
    /// `--takeover`).
    OtherHolder { holder: HolderInfo, takeover: bool },
    /// The node is not healthy.
    NotHealthy {
        node: String,
        because: Vec<Unhealthy>,
    },
    /// The revision written is not the one the node asks for.
    RevisionDiffers {
        node: String,
        written: String,
        asked: Option<String>,
        protocol: Protocol,
    },
    /// The node's own permit is replaced.
    ReplacesPermit { node: String, old: String },
    /// revoke: what it does not do.
    RevokeDoesNotRollBack { node: String },
    /// P2: no undo.
    NoUndoInP2 { node: String },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::NotFront { node, front } => {
                write!(f, "{node} is not the walk's front")?;
                match front {
                    Some(front) => write!(
                        f,
                        " ({front} is): the controller still waits at {front} and may grant it as soon as {node}'s permit is gone"
                    ),
                    None => write!(f, " (no node is waiting at the front)"),
                }
            }
            Warning::Primary { node } => write!(
                f,
                "{node} is its shard's primary: the controller's proactive failover does not run for a permit given by hand; fail over first if you can"
            ),
            Warning::OtherHolder { holder, takeover } => {
                if *takeover {
                    write!(
                        f,
                        "{holder} holds a permit: --takeover revokes it in the same command (its pod is not rolled back)"
                    )
                } else {
                    write!(
                        f,
                        "{holder} holds a permit and keeps it: two nodes may roll at once (add --takeover to revoke it)"
                    )
                }
            }
            Warning::NotHealthy { node, because } => {
                write!(f, "{node} is not healthy")?;
                if !because.is_empty() {
                    let because: Vec<String> = because.iter().map(ToString::to_string).collect();
                    write!(f, " ({})", because.join("; "))?;
                }
                Ok(())
            }
            Warning::RevisionDiffers {
                node,
                written,
                asked,
                protocol,
            } => {
                write!(f, "{node} gets {} but ", short_hash(written))?;
                match asked {
                    Some(a) => write!(f, "asks for {}", short_hash(a))?,
                    None => write!(f, "asks for no revision")?,
                }
                match protocol {
                    Protocol::P2 => write!(
                        f,
                        ": the node rolls only when its template hashes to spec.workloadRevision"
                    ),
                    _ => write!(
                        f,
                        ": the node controller drops a permit that is neither `*` nor its desired revision"
                    ),
                }
            }
            Warning::ReplacesPermit { node, old } => {
                write!(f, "{node}'s permit {} is replaced", short_hash(old))
            }
            Warning::RevokeDoesNotRollBack { node } => write!(
                f,
                "revoking does not roll {node}'s pod back, and the controller keeps waiting for {node} to become Ready before it moves on (it walks the nodes in order): a broken node stays a block until it is fixed (revert the template; delete a superseded pod) or a permit is forced elsewhere"
            ),
            Warning::NoUndoInP2 { node } => write!(
                f,
                "there is no undo: the cluster controller owns {node}'s spec.workloadRevision (it rewrites the whole spec)"
            ),
        }
    }
}
