//! The words of a [`Note`]: what happened on the way of a steering command.

use super::refusal::{change, refusal};
use crate::report::Protocol;
use crate::steer::note::{NewPod, Note, SentPatch, StopCause};
use crate::steer::plan::{Action, PatchEffect, Refusal};

/// What happened on the way, in the words of the cluster's protocol.
pub(crate) fn note_in(n: &Note, protocol: Protocol) -> String {
    let p2 = protocol == Protocol::P2;
    match n {
        Note::CheckFailed { error } if p2 => format!(
            "written; the check after the write could not run: {error}. See whether another node is in flight with `status`"
        ),
        Note::HolderAppeared {
            holder,
            state,
            node,
        } if p2 => format!(
            "after the write, {holder} is in flight too ({state}): it was advanced while {node} was being granted, so two nodes may roll at once; see `explain {holder}`"
        ),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::NodeState;
    use crate::steer::plan::Change;

    fn sent(node: &str, effect: PatchEffect) -> SentPatch {
        SentPatch {
            node: node.into(),
            effect,
        }
    }

    /// Each note reads as the executor spelt it before it handed over
    /// facts.
    #[test]
    fn every_note_reads_as_before() {
        let changed = Change::Revision {
            node: "cache-0-1".into(),
            now: Some("41ab77c0e1f2aa".into()),
            was: None,
        };
        let cases: Vec<(Note, &str)> = vec![
            (
                Note::LeaseNotReleased {
                    lease: "prod/valkey-roll.cache".into(),
                    error: "connection refused".into(),
                    expires_after_seconds: 30,
                },
                "the Lease prod/valkey-roll.cache could not be released (connection refused); it expires 30s after it was last renewed",
            ),
            (
                Note::Reread {
                    what: changed.clone(),
                },
                "re-read under the Lease: cache-0-1 would now get 41ab77c0e1f2 instead of nothing",
            ),
            (
                Note::Conflict {
                    node: "cache-0-2".into(),
                },
                "cache-0-2 changed after it was read (409 Conflict); re-read and re-planned",
            ),
            (
                Note::AfterConflict { what: changed },
                "after the conflict: cache-0-1 would now get 41ab77c0e1f2 instead of nothing",
            ),
            (
                Note::DeleteAccepted {
                    pod: "p-0".into(),
                    uid: "u1".into(),
                },
                "the API server accepted the delete of pod p-0 (uid u1) with dryRun=All: nothing was deleted",
            ),
            (
                Note::NewPod(NewPod::Recreated {
                    stateful_set: "s".into(),
                    pod: "p-0".into(),
                    uid: None,
                    revision: None,
                }),
                "StatefulSet s recreated pod p-0 (uid unknown, revision not labelled yet)",
            ),
            (
                Note::NewPod(NewPod::Unreadable {
                    pod: "p-0".into(),
                    error: "forbidden".into(),
                }),
                "pod p-0 was deleted; whether it came back could not be read: forbidden",
            ),
            (
                Note::NewPod(NewPod::NotYet {
                    pod: "p-0".into(),
                    namespace: "prod".into(),
                    wait_seconds: 10,
                }),
                "pod p-0 was deleted; no new pod came within 10s (the StatefulSet recreates it; see `kubectl get pod p-0 -n prod`)",
            ),
            (
                Note::AcceptedBeforeStop {
                    action: Action::Force,
                    sent: vec![
                        sent("cache-0-2", PatchEffect::Revoke),
                        sent("cache-0-1", PatchEffect::Grant),
                    ],
                },
                "accepted with dryRun=All before the stop (nothing stored): the revoke of cache-0-2, the force of cache-0-1",
            ),
            (
                Note::StoppedPartWay {
                    action: Action::Force,
                    cause: StopCause::Refused(Refusal::ConflictAgain {
                        node: "cache-0-1".into(),
                    }),
                    written: vec![sent("cache-0-2", PatchEffect::Revoke)],
                    not_written: Vec::new(),
                },
                "stopped part-way: cache-0-1 changed again while it was being written (a second conflict). Written: the revoke of cache-0-2. Not written: nothing else. Check `status` before running anything again",
            ),
            (
                Note::CheckFailed {
                    error: "timed out".into(),
                },
                "written; the check after the write could not run: timed out. See whether another node holds a permit with `status`",
            ),
            (
                Note::HolderAppeared {
                    holder: "cache-0-2".into(),
                    state: NodeState::Rolling,
                    node: "cache-0-1".into(),
                },
                "after the write, cache-0-2 holds a permit too (Rolling): it appeared while cache-0-1 was being granted, so two nodes may roll at once; revoke one of them",
            ),
            (
                Note::EventNotRecorded {
                    reason: "ManualRollPermitGranted",
                    node: "cache-0-1".into(),
                    error: "forbidden".into(),
                },
                "the Event ManualRollPermitGranted on cache-0-1 could not be recorded: forbidden",
            ),
        ];
        for (n, want) in cases {
            assert_eq!(note_in(&n, Protocol::P1), want, "{n:?}");
        }
    }
}
