//! Failure evidence on a node's pod or workload (docs/plugin.md, "Words"): the
//! signs that a roll will not finish by waiting.

use super::clock::Clock;
use super::clock::{secs, since};
use super::node::NodeObjects;
use crate::report::{Evidence, EvidenceKind, FailingContainer, Finding, Termination};
use crate::snapshot::{ContainerState, ContainerStatus, Pod};
use jiff::SignedDuration;

/// How long a pod may be Unschedulable, or a superseded StatefulSet pod not
/// Ready, before it counts (shorter is often an autoscaler at work).
pub(crate) const GRACE: SignedDuration = SignedDuration::from_secs(120);

/// A running container restarted at least this often, not ready, is in a
/// restart loop (killed by its liveness or startup probe) ...
pub(crate) const RESTART_LOOP_MIN: i32 = 3;
/// ... when its last termination is at most this old.
pub(crate) const RESTART_LOOP_RECENT: SignedDuration = SignedDuration::from_secs(600);

const WAITING_REASONS: [(&str, EvidenceKind); 7] = [
    ("CrashLoopBackOff", EvidenceKind::CrashLoopBackOff),
    ("ImagePullBackOff", EvidenceKind::ImagePullBackOff),
    ("ErrImagePull", EvidenceKind::ErrImagePull),
    ("InvalidImageName", EvidenceKind::InvalidImageName),
    (
        "CreateContainerConfigError",
        EvidenceKind::CreateContainerConfigError,
    ),
    ("CreateContainerError", EvidenceKind::CreateContainerError),
    ("RunContainerError", EvidenceKind::RunContainerError),
];

/// Evidence about one container: it carries that container's last
/// termination.
fn container_evidence(c: &ContainerStatus, kind: EvidenceKind, finding: Finding) -> Evidence {
    let mut e = Evidence::new(kind, finding);
    e.last_termination = last_termination(c);
    e
}

/// A container's last termination: its `lastState.terminated` (exit code,
/// reason, signal, finished at). None when it has not terminated before.
pub(crate) fn last_termination(c: &ContainerStatus) -> Option<Termination> {
    let t = c.last_state.as_ref()?.terminated.as_ref()?;
    Some(Termination {
        container: c.name.clone(),
        exit_code: t.exit_code,
        reason: t.reason.clone().filter(|r| !r.is_empty()),
        signal: t.signal,
        finished_at: t.finished_at.as_ref().map(|t| t.0),
    })
}

/// The container of `pod` that fails, from `status.containerStatuses`
/// only: the first waiting for a reason that is failure evidence
/// (CrashLoopBackOff, ImagePullBackOff...), else the first not ready that
/// has terminated before. None when no container is either.
pub(crate) fn failing_container(pod: &Pod) -> Option<FailingContainer> {
    let containers = pod
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_deref())
        .unwrap_or_default();
    let failing_wait = |c: &&ContainerStatus| {
        c.state
            .as_ref()
            .and_then(|s| s.waiting.as_ref())
            .and_then(|w| w.reason.as_deref())
            .is_some_and(|r| WAITING_REASONS.iter().any(|(w, _)| *w == r))
    };
    let c = containers.iter().find(failing_wait).or_else(|| {
        containers
            .iter()
            .find(|c| !c.ready && last_termination(c).is_some())
    })?;
    Some(FailingContainer {
        name: c.name.clone(),
        restarts: c.restart_count,
        last: last_termination(c),
    })
}

/// Every piece of failure evidence on the node's pod and workload, pod
/// first. A pod being deleted gives none (its workload still may).
pub(crate) fn failure_evidence(view: &NodeObjects<'_>, clock: &Clock) -> Vec<Evidence> {
    let now = clock.now();
    let mut out = Vec::new();
    if let Some(pod) = view.pod
        && pod.metadata.deletion_timestamp.is_none()
    {
        let pod_name = pod.metadata.name.as_deref().unwrap_or("").to_string();
        let status = pod.status.as_ref();
        let containers: Vec<&ContainerStatus> = status
            .into_iter()
            .flat_map(|s| {
                s.init_container_statuses
                    .iter()
                    .flatten()
                    .chain(s.container_statuses.iter().flatten())
            })
            .collect();
        for c in &containers {
            let waiting = c
                .state
                .as_ref()
                .and_then(|s| s.waiting.as_ref())
                .and_then(|w| w.reason.as_deref());
            if let Some(reason) = waiting
                && let Some((_, kind)) = WAITING_REASONS.iter().find(|(r, _)| *r == reason)
            {
                out.push(container_evidence(
                    c,
                    *kind,
                    Finding::ContainerWaiting {
                        pod: pod_name.clone(),
                        container: c.name.clone(),
                        reason: reason.to_string(),
                        restarts: c.restart_count,
                    },
                ));
            }
        }
        for c in &containers {
            let terminated = |s: Option<&ContainerState>| {
                s.and_then(|s| s.terminated.as_ref())
                    .and_then(|t| t.reason.as_deref())
                    == Some("OOMKilled")
            };
            if !c.ready && (terminated(c.last_state.as_deref()) || terminated(c.state.as_deref())) {
                out.push(container_evidence(
                    c,
                    EvidenceKind::OomKilled,
                    Finding::OomKilled {
                        pod: pod_name.clone(),
                        container: c.name.clone(),
                        restarts: c.restart_count,
                    },
                ));
            }
        }
        for c in &containers {
            let running = c.state.as_ref().is_some_and(|s| s.running.is_some());
            let last = c.last_state.as_ref().and_then(|s| s.terminated.as_ref());
            let recent = last
                .and_then(|t| t.finished_at.as_ref())
                .is_some_and(|t| clock.within(t.0, RESTART_LOOP_RECENT));
            if running && !c.ready && c.restart_count >= RESTART_LOOP_MIN && recent {
                out.push(container_evidence(
                    c,
                    EvidenceKind::RestartLoop,
                    Finding::RestartLoop {
                        pod: pod_name.clone(),
                        container: c.name.clone(),
                        restarts: c.restart_count,
                        last_exit: last.map(|t| (t.exit_code, t.reason.clone())),
                    },
                ));
            }
        }
        let unschedulable = status
            .and_then(|s| s.conditions.as_ref())
            .into_iter()
            .flatten()
            .find(|c| {
                c.type_ == "PodScheduled"
                    && c.status == "False"
                    && c.reason.as_deref() == Some("Unschedulable")
            });
        if let Some(c) = unschedulable
            && let Some(at) = c.last_transition_time.as_ref().map(|t| t.0)
            && clock.beyond(at, GRACE)
        {
            out.push(Evidence::new(
                EvidenceKind::Unschedulable,
                Finding::Unschedulable {
                    pod: pod_name.clone(),
                    for_seconds: secs(since(now, at)),
                    message: c.message.clone(),
                },
            ));
        }
        if let (Some(sts_rev), Some(pod_rev)) = (view.update_revision(), view.pod_revision())
            && view.sts.is_some()
            && view.pod_ready() == Some(false)
            && pod_rev != sts_rev
            && let Some(at) = view.pod_not_ready_since()
            && clock.beyond(at, GRACE)
        {
            out.push(Evidence::new(
                EvidenceKind::SupersededPod,
                Finding::SupersededPod {
                    pod: pod_name.clone(),
                    not_ready_for: secs(since(now, at)),
                    pod_revision: pod_rev.to_string(),
                    update_revision: sts_rev.to_string(),
                },
            ));
        }
    }
    if let Some(d) = view.deployment {
        let exceeded = d
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .into_iter()
            .flatten()
            .find(|c| {
                c.type_ == "Progressing"
                    && c.status == "False"
                    && c.reason.as_deref() == Some("ProgressDeadlineExceeded")
            });
        if let Some(c) = exceeded {
            out.push(Evidence::new(
                EvidenceKind::ProgressDeadlineExceeded,
                Finding::ProgressDeadlineExceeded {
                    deployment: d.metadata.name.clone().unwrap_or_default(),
                    message: c.message.clone(),
                },
            ));
        }
    }
    out
}
