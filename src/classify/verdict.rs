//! The cluster's protocol, whether its roll is unfinished, its verdict and
//! the sentence that explains it, and the progress count.

use super::judge::{Judged, StuckBy};
use super::text::{human, nodes as n_nodes};
use crate::report::{NodeState, Protocol, Verdict};
use crate::snapshot::{ValkeyCluster, ValkeyNode, condition, keys};
use crate::units::short_hash;
use jiff::{SignedDuration, Timestamp};

/// P2 when any node has `spec.workloadRevision` or a WorkloadRollPending
/// condition; else P1 when any node carries the permit or desired
/// annotation or a WorkloadDrift condition; else unknown. The plugin's own
/// `valkey-roll.io/*` annotations never count.
pub(crate) fn protocol(nodes: &[&ValkeyNode]) -> Protocol {
    let p2 = nodes.iter().any(|n| {
        n.spec
            .workload_revision
            .as_deref()
            .is_some_and(|r| !r.is_empty())
            || n.condition(keys::COND_PENDING).is_some()
    });
    if p2 {
        return Protocol::P2;
    }
    let p1 = nodes.iter().any(|n| {
        n.annotation(keys::ANN_PERMIT).is_some()
            || n.annotation(keys::ANN_DESIRED).is_some()
            || n.condition(keys::COND_DRIFT).is_some()
    });
    if p1 { Protocol::P1 } else { Protocol::Unknown }
}

/// Why the ValkeyCluster says its roll is not done: its Ready condition is
/// for an older generation, or is not True. None: Ready for its generation,
/// or no Ready condition (then the nodes alone decide).
pub(crate) fn cluster_not_done(cluster: Option<&ValkeyCluster>) -> Option<String> {
    let c = cluster?;
    let ready = condition(c.conditions(), keys::COND_READY)?;
    let generation = c.metadata.generation;
    if let (Some(observed), Some(g)) = (ready.observed_generation, generation)
        && observed < g
    {
        return Some(format!(
            "its Ready condition is for generation {observed}, the spec is at generation {g}"
        ));
    }
    if !ready.is_true() {
        let reason = ready
            .reason
            .as_deref()
            .map(|r| format!(", reason {r}"))
            .unwrap_or_default();
        return Some(format!("Ready={}{reason}", ready.status));
    }
    None
}

/// How long a stale permit may sit before it jams: the node controller
/// drops one within seconds when it runs.
const STALE_GRACE: SignedDuration = SignedDuration::from_secs(60);

/// The verdict, first that matches.
pub(crate) fn verdict(
    holders: &[&Judged<'_>],
    front: Option<&Judged<'_>>,
    unfinished: bool,
    quiet: Option<SignedDuration>,
    threshold: SignedDuration,
) -> Verdict {
    match holders {
        [_, _, ..] => Verdict::Conflict,
        [h] => {
            let stale_jam =
                h.state == NodeState::StalePermit && h.hold.is_none_or(|d| d > STALE_GRACE);
            if h.state == NodeState::Stuck || stale_jam {
                Verdict::Jammed
            } else {
                Verdict::Rolling
            }
        }
        [] => {
            if front.is_some_and(|f| f.state == NodeState::Blocking && !f.findings.is_empty()) {
                Verdict::Jammed
            } else if unfinished {
                if quiet.is_some_and(|q| super::text::over(q, threshold)) {
                    Verdict::Stalled
                } else {
                    Verdict::Waiting
                }
            } else {
                Verdict::Converged
            }
        }
    }
}

/// The protocol's words for a holder: P1's permit is held; in P2 the
/// cluster controller advanced the node's spec.workloadRevision and the
/// node is in flight (the operator's own word), so nothing "holds".
#[derive(Clone, Copy)]
struct Words {
    p2: bool,
}

impl Words {
    fn of(protocol: Protocol) -> Self {
        Words {
            p2: protocol == Protocol::P2,
        }
    }
    /// `holds the permit` / `is in flight`.
    fn holds(self) -> &'static str {
        if self.p2 {
            "is in flight"
        } else {
            "holds the permit"
        }
    }
    /// `hold a permit at once` / `are in flight at once`.
    fn hold_at_once(self) -> &'static str {
        if self.p2 {
            "are in flight at once"
        } else {
            "hold a permit at once"
        }
    }
    /// `held 14m (event)` / `advanced 14m ago (event)`, or unknown.
    fn held(self, j: &Judged<'_>) -> String {
        match (j.hold, self.p2) {
            (Some(d), false) => format!("held {} ({})", human(d), j.grant.source),
            (Some(d), true) => format!("advanced {} ago ({})", human(d), j.grant.source),
            (None, false) => "held for an unknown time".to_string(),
            (None, true) => "advanced at an unknown time".to_string(),
        }
    }
}

/// `held 14m (event)` or `held for an unknown time` (P1 only: a stale
/// permit is P1's).
fn held(j: &Judged<'_>) -> String {
    Words::of(Protocol::P1).held(j)
}

/// `cache-1-1 holds a stale permit 9f2c… while it asks for 41ab…, held 3m (event)`.
fn stale(h: &Judged<'_>) -> String {
    format!(
        "{} holds a stale permit {} while it asks for {}, {}",
        h.name(),
        short_hash(h.permit.unwrap_or("")),
        short_hash(h.asked_for.unwrap_or("")),
        held(h)
    )
}

/// What the front is doing, as a clause: `is next for a permit`,
/// `is not healthy (node not ready)`.
fn front_clause(f: &Judged<'_>) -> String {
    if f.state == NodeState::Waiting {
        return "asks for a permit".to_string();
    }
    format!("is not healthy ({})", f.why_unhealthy())
}

/// The cluster's reason sentence: who, why, for how long.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reason(
    verdict: Verdict,
    holders: &[&Judged<'_>],
    front: Option<&Judged<'_>>,
    waiting: usize,
    total: usize,
    not_done: Option<&str>,
    quiet: Option<SignedDuration>,
    threshold: SignedDuration,
    now: Timestamp,
    failover: Option<&str>,
    protocol: Protocol,
) -> String {
    let words = Words::of(protocol);
    let quiet_text = quiet.map(human).unwrap_or_else(|| "0s".to_string());
    let behind = if waiting > 0 {
        format!("; {} waiting", waiting)
    } else {
        String::new()
    };
    match verdict {
        Verdict::Conflict => {
            let names: Vec<&str> = holders.iter().map(|h| h.name()).collect();
            format!(
                "{} {} ({}): the one-at-a-time rule is broken",
                n_nodes(holders.len()),
                words.hold_at_once(),
                names.join(", ")
            )
        }
        Verdict::Jammed => match holders.first() {
            Some(h) if h.state == NodeState::StalePermit => stale(h),
            Some(h) => {
                let for_how_long = h
                    .hold
                    .map(|d| format!("for {}", human(d)))
                    .unwrap_or_else(|| "(held for an unknown time)".to_string());
                match h.stuck_by {
                    Some(StuckBy::Evidence) => {
                        let phrase = h.findings.first().map(|f| f.phrase.as_str()).unwrap_or("");
                        format!("{} {} and {phrase} {for_how_long}", h.name(), words.holds())
                    }
                    Some(StuckBy::NotReleased) => match h.complete_since {
                        Some(t) => format!(
                            "{} finished rolling {} ago but still holds the permit (stall threshold {})",
                            h.name(),
                            human(super::text::since(now, t)),
                            human(threshold)
                        ),
                        None => format!(
                            "{} finished rolling but still holds the permit, {}",
                            h.name(),
                            held(h)
                        ),
                    },
                    _ => format!(
                        "{} {} and has not finished rolling {for_how_long} (stall threshold {})",
                        h.name(),
                        words.holds(),
                        human(threshold)
                    ),
                }
            }
            None => match front {
                Some(f) => format!(
                    "no node holds a permit; the walk's front {} is not healthy: {}{behind}",
                    f.name(),
                    f.findings.first().map(|x| x.short.as_str()).unwrap_or("")
                ),
                None => "jammed".to_string(),
            },
        },
        Verdict::Rolling => {
            let Some(h) = holders.first() else {
                return "rolling".to_string();
            };
            match h.state {
                NodeState::Settling => format!(
                    "{} has rolled, {}; the controller has yet to release its permit{behind}",
                    h.name(),
                    held(h)
                ),
                NodeState::StalePermit => {
                    format!("{}; the node controller drops it when it runs", stale(h))
                }
                _ => format!("{} is rolling, {}{behind}", h.name(), words.held(h)),
            }
        }
        Verdict::Stalled => {
            let what = match (front, not_done) {
                (Some(f), _) => format!("the walk's front {} {}", f.name(), front_clause(f)),
                (None, Some(why)) => format!("the ValkeyCluster reports it is not done ({why})"),
                (None, None) => "the roll is unfinished".to_string(),
            };
            let cause = failover.unwrap_or(
                "the controller may be down, or deferring a primary without a synced replica",
            );
            format!("nothing has moved for {quiet_text}: {what}; {cause}")
        }
        Verdict::Waiting => {
            let waiting = waiting_reason(front, not_done, waiting, &quiet_text, &behind);
            match failover {
                Some(f) => format!("{waiting}; {f}"),
                None => waiting,
            }
        }
        Verdict::Converged => {
            if total == 0 {
                "no ValkeyNodes in view".to_string()
            } else {
                format!("all {} rolled and healthy", n_nodes(total))
            }
        }
    }
}

/// The Waiting verdict's sentence: who is next, or why nothing is.
fn waiting_reason(
    front: Option<&Judged<'_>>,
    not_done: Option<&str>,
    waiting: usize,
    quiet_text: &str,
    behind: &str,
) -> String {
    match (front, not_done) {
        (Some(f), _) if f.state == NodeState::Waiting => format!(
            "a grant is due: {} is next ({} waiting, quiet for {quiet_text})",
            f.name(),
            waiting
        ),
        (Some(f), _) => format!(
            "the controller waits for {} to become healthy ({}){behind}, quiet for {quiet_text}",
            f.name(),
            f.unhealthy_because.join("; ")
        ),
        (None, Some(why)) => {
            format!("the ValkeyCluster reports it is not done ({why}), quiet for {quiet_text}")
        }
        (None, None) => "waiting".to_string(),
    }
}
