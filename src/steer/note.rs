//! What happened on the way of a steering command that the plan alone does
//! not say, as facts: render (`render::steer`) words each [`Note`].

use crate::report::NodeState;
use crate::steer::plan::{Action, Change, PatchEffect, Refusal};

/// One thing a person should know about how a command went.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Note {
    /// The Lease could not be released (`error`: why, as the error says
    /// it); it expires `expires_after_seconds` after its last renewal.
    LeaseNotReleased {
        lease: String,
        error: String,
        expires_after_seconds: u64,
    },
    /// The plan made again under the Lease differs from the one shown.
    Reread { what: Change },
    /// A patch of `node` answered 409 Conflict: re-read and re-planned.
    Conflict { node: String },
    /// The plan made again after the conflict differs.
    AfterConflict { what: Change },
    /// replace-pod with `--dry-run=server`: the delete was accepted.
    DeleteAccepted { pod: String, uid: String },
    /// replace-pod: what came after the delete.
    NewPod(NewPod),
    /// A server dry run stopped after `sent` was accepted (nothing stored).
    AcceptedBeforeStop {
        action: Action,
        sent: Vec<SentPatch>,
    },
    /// The writes stopped after `written` was stored; `not_written` was not.
    StoppedPartWay {
        action: Action,
        cause: StopCause,
        written: Vec<SentPatch>,
        not_written: Vec<SentPatch>,
    },
    /// The check for another holder after a grant could not run.
    CheckFailed { error: String },
    /// After the write, `holder` holds a permit too (it appeared while
    /// `node` was being granted).
    HolderAppeared {
        holder: String,
        state: NodeState,
        node: String,
    },
    /// The Event `reason` about `node` could not be recorded.
    EventNotRecorded {
        reason: &'static str,
        node: String,
        error: String,
    },
}

impl Note {
    /// The stable `code` of the steering document: the variant's name.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Note::LeaseNotReleased { .. } => "LeaseNotReleased",
            Note::Reread { .. } => "Reread",
            Note::Conflict { .. } => "Conflict",
            Note::AfterConflict { .. } => "AfterConflict",
            Note::DeleteAccepted { .. } => "DeleteAccepted",
            Note::NewPod(_) => "NewPod",
            Note::AcceptedBeforeStop { .. } => "AcceptedBeforeStop",
            Note::StoppedPartWay { .. } => "StoppedPartWay",
            Note::CheckFailed { .. } => "CheckFailed",
            Note::HolderAppeared { .. } => "HolderAppeared",
            Note::EventNotRecorded { .. } => "EventNotRecorded",
        }
    }
}

/// One patch of a command: the revoke of a node, or the command's own
/// action (grant, force) on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SentPatch {
    pub node: String,
    pub effect: PatchEffect,
}

/// Why the writes stopped part-way.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum StopCause {
    /// A refusal: a second conflict, a changed re-plan, a lost Lease.
    Refused(Refusal),
    /// An error, as it says itself.
    Failed { error: String },
}

/// What replace-pod saw after its delete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NewPod {
    /// The StatefulSet recreated the pod under its name, with another UID
    /// (`revision`: its `controller-revision-hash`, once labelled).
    Recreated {
        stateful_set: String,
        pod: String,
        uid: Option<String>,
        revision: Option<String>,
    },
    /// Whether it came back could not be read.
    Unreadable { pod: String, error: String },
    /// No new pod came within `wait_seconds`.
    NotYet {
        pod: String,
        namespace: String,
        wait_seconds: u64,
    },
}
