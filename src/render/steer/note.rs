//! The words of a [`Note`]: what happened on the way of a steering command.

use super::refusal::{change, refusal};
use crate::steer::note::{NewPod, Note, SentPatch, StopCause};
use crate::steer::plan::{Action, PatchEffect, Refusal};

pub fn note(n: &Note) -> String {
    match n {
        Note::LeaseNotReleased {
            lease,
            error,
            expires_after_seconds,
        } => format!(
            "the Lease {lease} could not be released ({error}); it expires {expires_after_seconds}s after it was last renewed"
        ),
        Note::Reread { what } => format!("re-read under the Lease: {}", change(what)),
        Note::Conflict { node } => {
            format!("{node} changed after it was read (409 Conflict); re-read and re-planned")
        }
        Note::AfterConflict { what } => format!("after the conflict: {}", change(what)),
        Note::DeleteAccepted { pod, uid } => format!(
            "the API server accepted the delete of pod {pod} (uid {uid}) with dryRun=All: nothing was deleted"
        ),
        Note::NewPod(p) => new_pod(p),
        Note::AcceptedBeforeStop { action, sent } => format!(
            "accepted with dryRun=All before the stop (nothing stored): {}",
            patches(*action, sent)
        ),
        Note::StoppedPartWay {
            action,
            cause,
            written,
            not_written,
        } => format!(
            "stopped part-way: {}. Written: {}. Not written: {}. Check `status` before running anything again",
            stop_cause(cause),
            patches(*action, written),
            if not_written.is_empty() {
                "nothing else".to_string()
            } else {
                patches(*action, not_written)
            }
        ),
        Note::CheckFailed { error } => format!(
            "written; the check after the write could not run: {error}. See whether another node holds a permit with `status`"
        ),
        Note::HolderAppeared {
            holder,
            state,
            node,
        } => format!(
            "after the write, {holder} holds a permit too ({state}): it appeared while {node} was being granted, so two nodes may roll at once; revoke one of them"
        ),
        Note::EventNotRecorded {
            reason,
            node,
            error,
        } => format!("the Event {reason} on {node} could not be recorded: {error}"),
    }
}

/// `the revoke of cache-0-2, the force of cache-0-1`
fn patches(action: Action, sent: &[SentPatch]) -> String {
    sent.iter()
        .map(|x| match x.effect {
            PatchEffect::Revoke => format!("the revoke of {}", x.node),
            PatchEffect::Grant => format!("the {action} of {}", x.node),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The cause, in words that stay true when part of the command is written
/// (a refusal's own text says nothing was).
fn stop_cause(c: &StopCause) -> String {
    match c {
        StopCause::Refused(Refusal::Changed { what }) => format!(
            "the cluster changed while it was being written ({})",
            change(what)
        ),
        StopCause::Refused(Refusal::ConflictAgain { node }) => {
            format!("{node} changed again while it was being written (a second conflict)")
        }
        StopCause::Refused(r) => refusal(r),
        StopCause::Failed { error } => error.clone(),
    }
}

fn new_pod(p: &NewPod) -> String {
    match p {
        NewPod::Recreated {
            stateful_set,
            pod,
            uid,
            revision,
        } => format!(
            "StatefulSet {stateful_set} recreated pod {pod} (uid {}, revision {})",
            uid.as_deref().unwrap_or("unknown"),
            revision.as_deref().unwrap_or("not labelled yet"),
        ),
        NewPod::Unreadable { pod, error } => {
            format!("pod {pod} was deleted; whether it came back could not be read: {error}")
        }
        NewPod::NotYet {
            pod,
            namespace,
            wait_seconds,
        } => format!(
            "pod {pod} was deleted; no new pod came within {wait_seconds}s (the StatefulSet recreates it; see `kubectl get pod {pod} -n {namespace}`)"
        ),
    }
}
