//! The cluster's protocol, whether its roll is unfinished, its verdict and
//! the facts of the reason that explains it.

use super::clock::Clock;
use super::clock::{secs, since};
use super::judge::{Judged, StuckBy};
use crate::report::{
    ClusterReason, Creating, Deferred, Failover, Hold, NodeState, NotDone, OperatorSilence,
    PrimaryTurn, Protocol, Silence, Stale, Unfinished, Verdict, WaitingFor,
};
use crate::snapshot::{ValkeyCluster, ValkeyNode, condition, keys};
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
pub(crate) fn cluster_not_done(cluster: Option<&ValkeyCluster>) -> Option<NotDone> {
    let c = cluster?;
    let ready = condition(c.conditions(), keys::COND_READY)?;
    let generation = c.metadata.generation;
    if let (Some(observed), Some(g)) = (ready.observed_generation, generation)
        && observed < g
    {
        return Some(NotDone::OldGeneration {
            observed,
            generation: g,
        });
    }
    if !ready.is_true() {
        return Some(NotDone::NotReady {
            status: ready.status.clone(),
            reason: ready.reason.clone(),
        });
    }
    None
}

/// The ValkeyCluster's Ready condition is True for its current generation.
pub(crate) fn ready_for_generation(cluster: &ValkeyCluster) -> bool {
    condition(cluster.conditions(), keys::COND_READY)
        .is_some_and(|r| r.is_true() && r.is_for_generation(cluster.metadata.generation))
}

/// How long a stale permit may sit before it jams: the node controller
/// drops one within seconds when it runs. Over it on the whole seconds the
/// report shows (`heldForSeconds`), as the stall threshold is.
const STALE_GRACE: SignedDuration = SignedDuration::from_secs(60);

/// The verdict, first that matches. `quiet_since`: when the unfinished
/// roll last moved (None: it is finished).
pub(crate) fn verdict(
    holders: &[&Judged<'_>],
    front: Option<&Judged<'_>>,
    quiet_since: Option<Timestamp>,
    clock: &Clock,
    threshold: SignedDuration,
) -> Verdict {
    match holders {
        [_, _, ..] => Verdict::Conflict,
        [h] => {
            let stale_jam = h.state == NodeState::StalePermit
                && h.grant.at.is_none_or(|at| clock.over(at, STALE_GRACE));
            if h.state == NodeState::Stuck || stale_jam {
                Verdict::Jammed
            } else {
                Verdict::Rolling
            }
        }
        [] => {
            if front.is_some_and(|f| f.state == NodeState::Blocking && !f.findings.is_empty()) {
                Verdict::Jammed
            } else if let Some(quiet_since) = quiet_since {
                if clock.over(quiet_since, threshold) {
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

/// What the cluster's reason is made of.
pub(crate) struct Said<'j, 'a> {
    pub verdict: Verdict,
    pub holders: &'j [&'j Judged<'a>],
    pub front: Option<&'j Judged<'a>>,
    pub waiting: usize,
    pub total: usize,
    pub not_done: Option<NotDone>,
    pub creating: Option<Creating>,
    pub deferred: Option<Deferred>,
    pub quiet: Option<SignedDuration>,
    pub failover: Option<Failover>,
    pub protocol: Protocol,
    pub silence: Option<&'j OperatorSilence>,
    /// Some reading of the cluster's servers counts.
    pub servers_read: bool,
}

/// The front asks and is its shard's primary, and no reading of the
/// servers says what the operator waits for (with one, a primary with no
/// synced replica is [`Said::deferred`], and one with a synced replica is
/// due its failover and its roll). Not once a failover of it was
/// initiated: the operator is past the wait, and the failover is named.
fn primary_turn(
    front: Option<&Judged<'_>>,
    servers_read: bool,
    failover: Option<&Failover>,
) -> Option<PrimaryTurn> {
    if servers_read || failover.is_some() {
        return None;
    }
    let f = front.filter(|f| f.state == NodeState::Waiting && f.place.is_primary)?;
    Some(PrimaryTurn {
        front: f.name().to_string(),
        shard: f.place.shard,
    })
}

/// How long `j` has held, and how that is known.
fn hold(j: &Judged<'_>) -> Hold {
    Hold {
        seconds: j.hold.map(secs),
        source: j.grant.source,
    }
}

fn stale(h: &Judged<'_>) -> Stale {
    Stale {
        holder: h.name().to_string(),
        permit: h.permit.unwrap_or("").to_string(),
        asks_for: h.asked_for.unwrap_or("").to_string(),
        hold: hold(h),
    }
}

/// The cluster's reason: who, why, for how long; and that the operator is
/// silent, where it is.
pub(crate) fn reason(s: Said<'_, '_>, threshold: SignedDuration, now: Timestamp) -> ClusterReason {
    let silence = s.silence.map(|o| Silence {
        node: o.node.clone(),
        quiet: o.quiet_for_seconds,
        after: o.after,
    });
    let then = verdict_reason(s, threshold, now);
    match silence {
        Some(silence) => ClusterReason::OperatorSilent {
            then: Box::new(then),
            silence,
        },
        None => then,
    }
}

fn verdict_reason(s: Said<'_, '_>, threshold: SignedDuration, now: Timestamp) -> ClusterReason {
    let quiet = s.quiet.map(secs);
    match s.verdict {
        Verdict::Conflict => ClusterReason::Conflict {
            holders: s.holders.iter().map(|h| h.name().to_string()).collect(),
            protocol: s.protocol,
        },
        Verdict::Jammed => match s.holders.first() {
            Some(h) if h.state == NodeState::StalePermit => ClusterReason::StalePermit {
                stale: stale(h),
                jammed: true,
            },
            Some(h) => match (h.stuck_by, h.findings.first()) {
                (Some(StuckBy::Evidence), Some(e)) => ClusterReason::HolderFailing {
                    holder: h.name().to_string(),
                    protocol: s.protocol,
                    finding: e.finding.clone(),
                    held: h.hold.map(secs),
                },
                (Some(StuckBy::NotReleased), _) => ClusterReason::HolderNotReleased {
                    holder: h.name().to_string(),
                    rolled_for: h.complete_since.map(|t| secs(since(now, t))),
                    hold: hold(h),
                    threshold: secs(threshold),
                },
                _ => ClusterReason::HolderHeldOver {
                    holder: h.name().to_string(),
                    protocol: s.protocol,
                    held: h.hold.map(secs),
                    threshold: secs(threshold),
                },
            },
            None => match s.front {
                Some(f) => ClusterReason::FrontFailing {
                    front: f.name().to_string(),
                    finding: f.findings.first().map(|e| e.finding.clone()),
                    waiting: s.waiting,
                },
                None => ClusterReason::Jammed,
            },
        },
        Verdict::Rolling => match s.holders.first() {
            None => ClusterReason::Rolling,
            Some(h) => match h.state {
                NodeState::Settling => ClusterReason::Settling {
                    holder: h.name().to_string(),
                    hold: hold(h),
                    waiting: s.waiting,
                },
                NodeState::StalePermit => ClusterReason::StalePermit {
                    stale: stale(h),
                    jammed: false,
                },
                _ => ClusterReason::HolderRolling {
                    holder: h.name().to_string(),
                    protocol: s.protocol,
                    hold: hold(h),
                    waiting: s.waiting,
                },
            },
        },
        Verdict::Stalled => ClusterReason::Stalled {
            quiet,
            what: match (s.front, s.not_done) {
                _ if let Some(d) = &s.deferred => Unfinished::Deferred(d.clone()),
                _ if let Some(c) = s.creating => Unfinished::Creating(c),
                _ if let Some(p) = primary_turn(s.front, s.servers_read, s.failover.as_ref()) => {
                    Unfinished::PrimaryTurn(p)
                }
                (Some(f), _) if f.state == NodeState::Waiting => Unfinished::FrontAsks {
                    front: f.name().to_string(),
                },
                (Some(f), _) => Unfinished::FrontUnhealthy {
                    front: f.name().to_string(),
                    why: f.sickness(),
                },
                (None, Some(why)) => Unfinished::ClusterNotDone(why),
                (None, None) => Unfinished::Unknown,
            },
            failover: s.failover,
        },
        Verdict::Waiting => ClusterReason::Waiting {
            quiet,
            waiting: s.waiting,
            what: match (s.front, s.not_done) {
                _ if let Some(d) = &s.deferred => WaitingFor::Deferred(d.clone()),
                _ if let Some(c) = s.creating => WaitingFor::Creating(c),
                _ if let Some(p) = primary_turn(s.front, s.servers_read, s.failover.as_ref()) => {
                    WaitingFor::PrimaryTurn(p)
                }
                (Some(f), _) if f.state == NodeState::Waiting => WaitingFor::Grant {
                    front: f.name().to_string(),
                },
                (Some(f), _) => WaitingFor::Health {
                    front: f.name().to_string(),
                    because: f.unhealthy_because.clone(),
                },
                (None, Some(why)) => WaitingFor::ClusterNotDone(why),
                (None, None) => WaitingFor::Unknown,
            },
            failover: s.failover,
        },
        Verdict::Converged => ClusterReason::Converged { total: s.total },
    }
}
