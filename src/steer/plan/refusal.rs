//! What a person is told about a plan, as facts (which node, which holder,
//! which revision, which protocol, how long): why it writes nothing
//! ([`Refusal`], exit 4), what to know about one that goes ahead
//! ([`Warning`]), what it asks before it writes ([`Confirmation`]) and
//! what moved between two plans of one command ([`Change`]). One file:
//! each kind names the others. The words printed for each are render's
//! (`render::steer`).

use super::patch::PodDelete;
use super::{Action, Decision};
use crate::report::ServerNote;
use crate::report::{
    Finding, NodeReport, NodeState, Protocol, ReplicaLink, RoleNote, RoleSource, Unhealthy,
};
use crate::snapshot::Failure;

/// A holder as the planner saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HolderInfo {
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

/// Why a steering command writes nothing. Every one exits 4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Another node of the cluster holds a permit.
    OtherHolder(HolderInfo),
    /// The node asks for no revision, and none was given.
    AsksNothing { node: String, protocol: Protocol },
    /// The node asks, but which revision cannot be told.
    AskedRevisionUnknown { node: String, protocol: Protocol },
    /// Not cluster-owned: permits do not apply.
    Standalone { node: String },
    /// The shard's primary (or a node that may be: `unsure` says why its
    /// role is not settled), without `--allow-primary`. `source`: where
    /// its role came from (its own server, an event, status.role, ...).
    Primary {
        node: String,
        unsure: Option<RoleNote>,
        source: Option<RoleSource>,
    },
    /// The node is its shard's primary by its own server, and no replica
    /// of the shard is synced (by the operator's rule): taking it down
    /// takes the shard's only up-to-date copy with it. `--allow-primary`
    /// does not go past it; only `force --unsafe-shard SHARD`.
    NoSyncedReplica {
        node: String,
        shard: u32,
        replicas: Vec<ReplicaLink>,
    },
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
        /// Boxed: a question is large, and refusals travel in `Result`s.
        question: Box<Confirmation>,
    },
    /// Another steering command holds the cluster's Lease (`holder`: its
    /// `holderIdentity`, when it has one).
    LeaseHeld {
        lease: String,
        holder: Option<String>,
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
    Changed { what: Change },
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
        missing: Missing,
    },
    /// replace-pod: the delete's precondition failed (the pod changed or
    /// was replaced after it was read).
    PodChanged { pod: String, what: PodMoved },
}

/// What replace-pod needed to tell a pod superseded and could not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Missing {
    /// The node's StatefulSet is not in the snapshot.
    StatefulSet { stateful_set: String },
    /// The StatefulSet has no `status.updateRevision`.
    UpdateRevision { stateful_set: String },
    /// The pod has no `controller-revision-hash` label.
    RevisionLabel { pod: String },
    /// The pod has no `metadata.uid` or `metadata.resourceVersion`.
    Identity { pod: String },
}

/// Why the API server refused a pod delete's preconditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PodMoved {
    /// 404: the pod is gone.
    Gone,
    /// 409: the API server's own message.
    Conflict { message: String },
}

/// Something a person should know about a plan that goes ahead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Warning {
    /// P1: the node is not the walk's front.
    NotFront { node: String, front: Option<String> },
    /// `--allow-primary`, or force on a primary (or a node that may be).
    Primary {
        node: String,
        unsure: Option<RoleNote>,
        source: Option<RoleSource>,
    },
    /// `force --unsafe-shard`: the shard has no synced replica, and the
    /// node, its primary, goes down all the same.
    NoSyncedReplica {
        node: String,
        shard: u32,
        replicas: Vec<ReplicaLink>,
    },
    /// A synced replica of the primary being rolled is behind it by
    /// `lag_bytes`: what it has not applied yet is lost if it takes over.
    ReplicaLags {
        replica: String,
        primary: String,
        lag_bytes: u64,
    },
    /// The plan was made without (some of) the servers' word.
    ServersUnread { shard: Option<u32>, why: Unread },
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

/// Why the plan decided without (some of) the servers' word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unread {
    /// `--servers=off`.
    Off,
    /// None of the cluster's servers could be read (its Secret, TLS).
    Cluster { cluster: String, failure: Failure },
    /// A snapshot file with no reading of the shard's servers.
    NotInFile,
    /// These nodes' servers, each with why (the others were read).
    Servers(Vec<(String, ServerNote)>),
}

/// What is asked before a write that needs confirmation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Confirmation {
    /// revoke of a holder whose pod is not healthy: `permit` is the one it
    /// holds.
    Revoke {
        node: String,
        permit: String,
        because: Vec<PodTrouble>,
    },
    /// force of `value` onto `node`, past the checks in `overridden`
    /// (empty: none of them refuses it now).
    Force {
        node: String,
        value: String,
        overridden: Vec<Overridden>,
    },
    /// replace-pod: the pod `delete` removes.
    ReplacePod { node: String, delete: PodDelete },
}

/// Why a holder's pod counts as unhealthy for a revoke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PodTrouble {
    /// The pod is not Ready (`pod`: its name, when known).
    NotReady { pod: Option<String> },
    /// No pod was found for the node.
    NotFound,
    /// A piece of failure evidence on its pod or workload.
    Evidence(Finding),
}

/// A check that would refuse a grant and that force goes past.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Overridden {
    /// Another holder, which loses its permit (`takeover`) or keeps it.
    Holder { holder: HolderInfo, takeover: bool },
    /// The node is its shard's primary (or may be).
    Primary {
        node: String,
        unsure: Option<RoleNote>,
        source: Option<RoleSource>,
    },
    /// `--unsafe-shard`: the primary of a shard with no synced replica;
    /// what it holds that no replica has may be lost.
    NoSyncedReplica {
        node: String,
        shard: u32,
        replicas: Vec<ReplicaLink>,
    },
    /// The node is not the walk's front; `front` is.
    NotFront { node: String, front: String },
}

/// The first difference found between two plans of one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// The decision is another one now, for these reasons.
    Decision {
        decision: Decision,
        reasons: Vec<Refusal>,
    },
    /// The value the node would get (`None`: nothing).
    Revision {
        node: String,
        now: Option<String>,
        was: Option<String>,
    },
    /// A confirmation is needed now that was not before.
    NeedsConfirmation {
        action: Action,
        node: String,
        /// Boxed: a question is large, and refusals travel in `Result`s.
        question: Box<Confirmation>,
    },
    /// replace-pod: the pod is another one (a new UID).
    PodReplaced {
        pod: String,
        uid: String,
        was_uid: String,
    },
    /// replace-pod: the pod's revision or the StatefulSet's update revision
    /// moved.
    PodRevisions {
        pod: String,
        revision: String,
        update_revision: String,
        was_revision: String,
        was_update_revision: String,
    },
    /// The other holders are not the ones the plan was made with.
    OtherHolders { now: Vec<String>, was: Vec<String> },
}

impl Refusal {
    /// The stable `code` of the steering document: the variant's name.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Refusal::OtherHolder(_) => "OtherHolder",
            Refusal::AsksNothing { .. } => "AsksNothing",
            Refusal::AskedRevisionUnknown { .. } => "AskedRevisionUnknown",
            Refusal::Standalone { .. } => "Standalone",
            Refusal::Primary { .. } => "Primary",
            Refusal::NoSyncedReplica { .. } => "NoSyncedReplica",
            Refusal::NotFront { .. } => "NotFront",
            Refusal::AlreadyHeld { .. } => "AlreadyHeld",
            Refusal::HoldsNothing { .. } => "HoldsNothing",
            Refusal::NoRevokeInP2 { .. } => "NoRevokeInP2",
            Refusal::NoForceInP2 { .. } => "NoForceInP2",
            Refusal::NoAnyInP2 => "NoAnyInP2",
            Refusal::ProtocolUnknown { .. } => "ProtocolUnknown",
            Refusal::ProtocolContradicts { .. } => "ProtocolContradicts",
            Refusal::NotConfirmed { .. } => "NotConfirmed",
            Refusal::WouldNeedConfirmation { .. } => "WouldNeedConfirmation",
            Refusal::LeaseHeld { .. } => "LeaseHeld",
            Refusal::LeaseLost { .. } => "LeaseLost",
            Refusal::Changed { .. } => "Changed",
            Refusal::ConflictAgain { .. } => "ConflictAgain",
            Refusal::NoPod { .. } => "NoPod",
            Refusal::DeploymentBacked { .. } => "DeploymentBacked",
            Refusal::PodReady { .. } => "PodReady",
            Refusal::PodOnUpdateRevision { .. } => "PodOnUpdateRevision",
            Refusal::PodBeingDeleted { .. } => "PodBeingDeleted",
            Refusal::PodRevisionUnknown { .. } => "PodRevisionUnknown",
            Refusal::PodChanged { .. } => "PodChanged",
        }
    }
}

impl Warning {
    /// The stable `code` of the steering document: the variant's name.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Warning::NotFront { .. } => "NotFront",
            Warning::Primary { .. } => "Primary",
            Warning::NoSyncedReplica { .. } => "NoSyncedReplica",
            Warning::ReplicaLags { .. } => "ReplicaLags",
            Warning::ServersUnread { .. } => "ServersUnread",
            Warning::OtherHolder { .. } => "OtherHolder",
            Warning::NotHealthy { .. } => "NotHealthy",
            Warning::RevisionDiffers { .. } => "RevisionDiffers",
            Warning::ReplacesPermit { .. } => "ReplacesPermit",
            Warning::RevokeDoesNotRollBack { .. } => "RevokeDoesNotRollBack",
            Warning::NoUndoInP2 { .. } => "NoUndoInP2",
        }
    }
}
