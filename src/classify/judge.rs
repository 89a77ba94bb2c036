//! One node's state, decided in docs/plugin.md's order: Standalone,
//! StalePermit, Stuck, Settling, Rolling, Waiting, Blocking, Converged.

use super::clock::Clock;
use super::clock::{secs, since};
use super::evidence::failure_evidence;
use super::grant_time::{Grant, grant_time};
use super::index::Index;
use super::node::NodeObjects;
use super::walk::Place;
use crate::report::{Evidence, EvidenceKind, Finding, NodeState, Protocol, Sickness, Unhealthy};
use crate::snapshot::{SpecField, ValkeyCluster, keys};
use jiff::{SignedDuration, Timestamp};

/// Why a holder is Stuck (the first rule that fired).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StuckBy {
    /// Failure evidence on its pod or workload.
    Evidence,
    /// Not complete, and held over the threshold.
    HeldOverThreshold,
    /// Complete for over the threshold (or for an unknown time while held
    /// over it), and the permit is still held.
    NotReleased,
}

/// Everything the classifier found out about one node.
#[derive(Clone, Debug)]
pub(crate) struct Judged<'a> {
    pub view: NodeObjects<'a>,
    pub place: Place<'a>,
    pub cluster_owned: bool,
    pub asks: bool,
    pub asked_for: Option<&'a str>,
    pub permit: Option<&'a str>,
    pub holder: bool,
    /// Not a holder, and a field its spec mirrors differs from what its
    /// ValkeyCluster asks of it ([`ValkeyCluster::spec_differs`]): the walk
    /// has yet to reach it in a Spec-driven roll.
    pub behind: bool,
    /// The mirrored fields that differ (empty unless `behind`).
    pub behind_fields: Vec<SpecField>,
    pub unhealthy_because: Vec<Unhealthy>,
    /// Failure evidence on its pod or workload.
    pub findings: Vec<Evidence>,
    /// Grant time (holders only; unknown otherwise).
    pub grant: Grant,
    pub hold: Option<SignedDuration>,
    pub complete: bool,
    pub complete_since: Option<Timestamp>,
    pub stuck_by: Option<StuckBy>,
    /// HeldOverThreshold / NotReleased, where those rules fire.
    pub hold_evidence: Vec<Evidence>,
    pub state: NodeState,
    /// The start of its wait (Waiting and Blocking nodes), when known.
    pub waiting_since: Option<Timestamp>,
    /// Its judged role ([`super::role`]), set by the caller.
    pub role: super::role::JudgedRole,
}

impl Judged<'_> {
    pub(crate) fn healthy(&self) -> bool {
        self.unhealthy_because.is_empty()
    }
    /// Why the node is not healthy, in short: its first finding, else
    /// what its status says. A Blocking node's REASON and the cluster
    /// sentence about a Blocking front both say it this way.
    pub(crate) fn sickness(&self) -> Sickness {
        match self.findings.first() {
            Some(e) => Sickness::Failing(e.finding.clone()),
            None => Sickness::Status(self.unhealthy_because.clone()),
        }
    }
    pub(crate) fn name(&self) -> &str {
        self.view.name()
    }
}

/// The earliest known time among the node's roll condition (WorkloadDrift
/// or WorkloadRollPending, True) and its Ready=False transition.
fn wait_start(view: &NodeObjects<'_>) -> Option<Timestamp> {
    let node = view.node;
    let roll = [keys::COND_DRIFT, keys::COND_PENDING]
        .into_iter()
        .filter_map(|t| node.condition(t))
        .filter(|c| c.is_true());
    let not_ready = node.condition(keys::COND_READY).filter(|c| c.is_false());
    roll.chain(not_ready)
        .filter_map(|c| c.last_transition_time.as_ref().map(|t| t.0))
        .min()
}

/// What the node's cluster says that judging one node needs.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClusterSide<'a> {
    /// The ValkeyCluster (None: none in view): each node's spec is
    /// compared with what it asks of it.
    pub cluster: Option<&'a ValkeyCluster>,
    /// The ValkeyCluster's `spec.image` (None: no cluster, or not set).
    pub image: Option<&'a str>,
    /// When the ValkeyCluster's spec was last edited, where known: the
    /// start of a behind node's wait.
    pub spec_edited_at: Option<Timestamp>,
}

/// P2 holder (docs/plugin.md, Holder): advanced and not yet applied; or, asking
/// nothing, its new spec not observed, its workload rolling, or its
/// StatefulSet pod on another revision or being replaced; or not ready
/// since it was advanced while its pod is not yet Ready on a rolled-out
/// workload (a Deployment counts the new pod as updated while it starts,
/// and after a revert a StatefulSet's revisions read equal while the
/// replacement starts). A node whose workload was never observed is being
/// created, not rolled: never a holder.
fn p2_holder(
    view: &NodeObjects<'_>,
    asks: bool,
    asked_for: Option<&str>,
    permit: Option<&str>,
) -> bool {
    if asks {
        return asked_for.is_some() && permit == asked_for;
    }
    if view.workload_observed() == Some(false) {
        return false;
    }
    !view.generation_observed()
        || view.template_roll_in_progress() == Some(true)
        || view.pod_superseded()
        || view.pod_being_replaced()
        || (view.not_ready_since_advance()
            && !(view.pod_ready() == Some(true) && view.rolled_out() == Some(true)))
}

pub(crate) fn judge<'a>(
    index: &Index<'a>,
    view: NodeObjects<'a>,
    place: Place<'a>,
    protocol: Protocol,
    cluster: ClusterSide<'_>,
    clock: &Clock,
    threshold: SignedDuration,
) -> Judged<'a> {
    let now = clock.now();
    let cluster_owned = view.cluster_owned();
    let asks = view.asks(protocol);
    let asked_for = view.asked_for(protocol);
    let permit = view.permit(protocol);
    let holder = cluster_owned
        && match protocol {
            Protocol::P2 => p2_holder(&view, asks, asked_for, permit),
            Protocol::P1 | Protocol::Unknown => permit.is_some(),
        };
    let behind_fields = match cluster.cluster {
        Some(c) if cluster_owned && !holder => c.spec_differs(view.node),
        _ => Vec::new(),
    };
    let behind = !behind_fields.is_empty();
    let unhealthy_because = view.unhealthy_because();
    let findings = failure_evidence(&view, clock);
    let lrh = view.last_rollout_hash();

    let mut j = Judged {
        view,
        place,
        cluster_owned,
        asks,
        asked_for,
        permit,
        holder,
        behind,
        behind_fields,
        unhealthy_because,
        findings,
        grant: Grant::unknown(),
        hold: None,
        complete: false,
        complete_since: None,
        stuck_by: None,
        hold_evidence: Vec::new(),
        state: NodeState::Converged,
        waiting_since: None,
        role: Default::default(),
    };

    if !cluster_owned {
        j.state = NodeState::Standalone;
        return j;
    }

    if holder {
        // A P2 holder that asks nothing may have no revision in its spec;
        // its grant time then has only the event and managedFields sources.
        let permit_value = permit.unwrap_or("");
        j.grant = grant_time(index, &view, protocol, permit_value);
        j.hold = j.grant.at.map(|at| since(now, at));
        let ready_after_grant = match (view.pod_ready_since(), j.grant.at) {
            (Some(ready), Some(granted)) => ready > granted,
            _ => true,
        };
        j.complete = view.pod_ready() == Some(true)
            && ((lrh.is_some() && lrh == permit)
                || (!asks
                    && view.generation_observed()
                    && view.rolled_out() == Some(true)
                    && ready_after_grant));
        if j.complete {
            j.complete_since = view.pod_ready_since();
        }
    }

    let stale = holder
        && protocol != Protocol::P2
        && asks
        && permit.is_some_and(|p| p != "*" && asked_for.is_some_and(|a| a != p) && lrh != Some(p));

    // Over the threshold since `t`: noted on the clock, since time alone
    // turns these true.
    let over = |t: Option<Timestamp>| t.is_some_and(|t| clock.over(t, threshold));
    if holder {
        let complete_for = j.complete_since.map(|t| since(now, t));
        let held_over = !j.complete && over(j.grant.at);
        if held_over {
            j.hold_evidence.push(Evidence::new(
                EvidenceKind::HeldOverThreshold,
                Finding::HeldOverThreshold {
                    held: secs(j.hold.unwrap_or_default()),
                    threshold: secs(threshold),
                },
            ));
        }
        let not_released = j.complete
            && (over(j.complete_since) || (j.complete_since.is_none() && over(j.grant.at)));
        if not_released {
            j.hold_evidence.push(Evidence::new(
                EvidenceKind::NotReleased,
                Finding::NotReleased {
                    ready_for: complete_for.map(secs),
                    held: secs(j.hold.unwrap_or_default()),
                    threshold: secs(threshold),
                },
            ));
        }
        j.stuck_by = if !j.findings.is_empty() {
            Some(StuckBy::Evidence)
        } else if held_over {
            Some(StuckBy::HeldOverThreshold)
        } else if not_released {
            Some(StuckBy::NotReleased)
        } else {
            None
        };
    }

    j.state = if stale {
        NodeState::StalePermit
    } else if j.stuck_by.is_some() {
        NodeState::Stuck
    } else if holder && j.complete {
        NodeState::Settling
    } else if holder {
        NodeState::Rolling
    } else if asks || behind {
        NodeState::Waiting
    } else if !j.healthy() {
        NodeState::Blocking
    } else {
        NodeState::Converged
    };
    // The facts and the state say the same of holding (docs/plugin.md).
    debug_assert_eq!(j.state.is_holder(), holder, "{:?}", j.state);
    if j.state.is_queued() {
        // A behind node started waiting when the cluster's spec changed.
        let behind_since = cluster.spec_edited_at.filter(|_| behind);
        j.waiting_since = wait_start(&view).into_iter().chain(behind_since).min();
    }
    j
}
