//! Failure evidence, worded three ways, and why a node is not healthy.

use crate::report::{Finding, Sickness, Unhealthy};
use crate::units::human;
use std::fmt;

/// `: <message>` of a condition, or nothing.
fn detail(message: &Option<String>) -> String {
    message
        .as_deref()
        .map(|m| format!(": {m}"))
        .unwrap_or_default()
}

/// The document's `message`: what was found, with its details.
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::ContainerWaiting {
                container,
                reason,
                restarts,
                ..
            } => write!(
                f,
                "container {container} waiting: {reason} (restarts {restarts})"
            ),
            Finding::OomKilled {
                container,
                restarts,
                ..
            } => write!(
                f,
                "container {container} not ready, last terminated OOMKilled (restarts {restarts})"
            ),
            Finding::RestartLoop {
                container,
                restarts,
                last_exit,
                ..
            } => {
                write!(
                    f,
                    "container {container} keeps restarting while Running: not ready, restarts {restarts}"
                )?;
                match last_exit {
                    Some((code, Some(r))) => write!(f, ", last exit {code} ({r})"),
                    Some((code, None)) => write!(f, ", last exit {code}"),
                    None => Ok(()),
                }
            }
            Finding::Unschedulable {
                for_seconds,
                message,
                ..
            } => write!(
                f,
                "PodScheduled=False (Unschedulable) for {}{}",
                human(*for_seconds),
                detail(message)
            ),
            Finding::SupersededPod {
                pod,
                not_ready_for,
                pod_revision,
                update_revision,
            } => write!(
                f,
                "pod {pod} not Ready for {} on revision {pod_revision}; the StatefulSet's update revision is {update_revision}: under OrderedReady it blocks its own replacement (delete the pod)",
                human(*not_ready_for)
            ),
            Finding::ProgressDeadlineExceeded {
                deployment,
                message,
            } => write!(
                f,
                "Deployment {deployment} Progressing=False (ProgressDeadlineExceeded){}",
                detail(message)
            ),
            Finding::HeldOverThreshold { held, threshold } => write!(
                f,
                "held {} > stall threshold {}",
                human(*held),
                human(*threshold)
            ),
            Finding::NotReleased {
                ready_for: Some(d),
                threshold,
                ..
            } => write!(
                f,
                "rolled and Ready for {} > stall threshold {}, permit still held",
                human(*d),
                human(*threshold)
            ),
            Finding::NotReleased {
                ready_for: None,
                held,
                threshold,
            } => write!(
                f,
                "rolled (Ready since an unknown time), permit held {} > stall threshold {}",
                human(*held),
                human(*threshold)
            ),
        }
    }
}

/// A finding for the REASON column: `pod valkey-cache-1-1-0
/// CrashLoopBackOff (restarts 7)`.
pub(crate) struct Short<'a>(pub &'a Finding);

impl fmt::Display for Short<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Finding::ContainerWaiting {
                pod,
                reason,
                restarts,
                ..
            } => write!(f, "pod {pod} {reason} (restarts {restarts})"),
            Finding::OomKilled { pod, restarts, .. } => {
                write!(f, "pod {pod} OOMKilled (restarts {restarts})")
            }
            Finding::RestartLoop { pod, restarts, .. } => {
                write!(f, "pod {pod} restarting (restarts {restarts}, not ready)")
            }
            Finding::Unschedulable {
                pod, for_seconds, ..
            } => write!(f, "pod {pod} Unschedulable for {}", human(*for_seconds)),
            Finding::SupersededPod {
                pod,
                not_ready_for,
                pod_revision,
                ..
            } => write!(
                f,
                "pod {pod} superseded (revision {pod_revision}, not Ready {})",
                human(*not_ready_for)
            ),
            Finding::ProgressDeadlineExceeded { deployment, .. } => {
                write!(f, "deployment {deployment} ProgressDeadlineExceeded")
            }
            // The clock's findings are never a REASON of their own.
            other @ (Finding::HeldOverThreshold { .. } | Finding::NotReleased { .. }) => {
                write!(f, "{other}")
            }
        }
    }
}

/// A finding for the cluster's sentence: `its pod is CrashLoopBackOff
/// (restarts 7)`.
pub(crate) struct Phrase<'a>(pub &'a Finding);

impl fmt::Display for Phrase<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Finding::ContainerWaiting {
                reason, restarts, ..
            } => write!(f, "its pod is {reason} (restarts {restarts})"),
            Finding::OomKilled { .. } => f.write_str("its pod was OOMKilled and is not ready"),
            Finding::RestartLoop { restarts, .. } => {
                write!(f, "its pod keeps restarting (restarts {restarts})")
            }
            Finding::Unschedulable { for_seconds, .. } => {
                write!(f, "its pod is Unschedulable for {}", human(*for_seconds))
            }
            Finding::SupersededPod {
                pod_revision,
                update_revision,
                ..
            } => write!(
                f,
                "its pod is superseded (revision {pod_revision}, StatefulSet wants {update_revision}) and not Ready"
            ),
            Finding::ProgressDeadlineExceeded { .. } => {
                f.write_str("its Deployment exceeded its progress deadline")
            }
            other @ (Finding::HeldOverThreshold { .. } | Finding::NotReleased { .. }) => {
                write!(f, "{other}")
            }
        }
    }
}

impl fmt::Display for Unhealthy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unhealthy::NodeNotReady => f.write_str("node not ready"),
            Unhealthy::PodBeingDeleted { pod } => write!(f, "pod {pod} being deleted"),
            Unhealthy::PodNotReady { pod } => write!(f, "pod {pod} not Ready"),
            Unhealthy::GenerationNotObserved {
                generation,
                observed,
            } => write!(
                f,
                "generation {generation} not observed (observed {observed})"
            ),
            Unhealthy::LiveConfigNotApplied => {
                f.write_str("live config not applied (LiveConfigApplied=False)")
            }
        }
    }
}

/// Reasons a node is not healthy, `; `-separated.
pub(crate) fn joined(because: &[Unhealthy]) -> String {
    because
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl fmt::Display for Sickness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sickness::Failing(finding) => write!(f, "{}", Short(finding)),
            Sickness::Status(because) => f.write_str(&joined(because)),
        }
    }
}

/// A finding's message in the words of the cluster's protocol: the
/// clock's findings say `held` and `permit` in P1, `in flight` in P2.
/// The document keeps [`Finding`]'s own words.
pub(crate) struct Found<'a>(pub &'a Finding, pub crate::report::Protocol);

impl fmt::Display for Found<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 != crate::report::Protocol::P2 {
            return fmt::Display::fmt(self.0, f);
        }
        match self.0 {
            Finding::HeldOverThreshold { held, threshold } => write!(
                f,
                "in flight {} > stall threshold {}",
                human(*held),
                human(*threshold)
            ),
            Finding::NotReleased {
                ready_for: Some(d),
                threshold,
                ..
            } => write!(
                f,
                "rolled and Ready for {} > stall threshold {}, still counted in flight",
                human(*d),
                human(*threshold)
            ),
            Finding::NotReleased {
                ready_for: None,
                held,
                threshold,
            } => write!(
                f,
                "rolled (Ready since an unknown time), in flight {} > stall threshold {}",
                human(*held),
                human(*threshold)
            ),
            other => fmt::Display::fmt(other, f),
        }
    }
}
