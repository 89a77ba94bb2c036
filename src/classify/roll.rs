//! The current roll (docs/plugin.md, "Progress"): when it began, and which
//! nodes it has advanced. `done` counts those that are Converged since,
//! never a node from an earlier roll and never one not yet reached.
//!
//! How the start is told, from what the snapshot shows (the README says
//! the same):
//! 1. While some node asks (a builder-only roll): the earliest moment any
//!    node that asks, or holds, first asked for its revision: the roll
//!    condition's transition, or the first `WorkloadRollDeferred` event for
//!    that hash (a holder without one: its grant time). Every node of such
//!    a roll asks in the same pass, so the first node's ask is the start
//!    even after its own condition is gone.
//! 2. Else, while some node is behind (a Spec-driven roll): the time the
//!    ValkeyCluster's spec was last edited (managedFields); without
//!    managedFields, the first advance of a node that is no longer behind.
//! 3. Else, while a node holds (the last node of a roll): when that holder
//!    first asked for its permit (builder-only), else the spec edit time,
//!    else its grant time.
//! 4. Else (between rolls, or the ValkeyCluster alone says it is not
//!    done): the later of the spec edit time and the newest first ask of a
//!    node for the revision it now runs: the most recent roll.
//!
//! A node counts as advanced in the current roll when its newest advance
//! (a grant by hand, or a `WorkloadRollPermitted`, `ValkeyNodeUpdated` or
//! `WorkloadRollApplied` event naming it) is no older than the start less
//! [`SAME_ROLL`].

use super::events;
use super::grant_time::hand_grant_time;
use super::index::Index;
use super::judge::Judged;
use super::text::hash_in;
use crate::report::{HistoryOutcome, HistoryRow, NodeState, Protocol, RollHistory};
use crate::snapshot::{ValkeyCluster, keys};
use jiff::{SignedDuration, Timestamp};

/// How much earlier than the start an advance may be and still belong to
/// this roll: condition and managedFields times are cut to the second, and
/// the nodes of one roll ask within a pass of the controller (a fraction of
/// a second in the recordings), possibly just after the first of them was
/// advanced.
pub(crate) const SAME_ROLL: SignedDuration = SignedDuration::from_secs(5);

/// The advances of a node that count for progress and for the roll.
const ADVANCE_EVENTS: [&str; 5] = [
    keys::EVENT_PERMITTED,
    keys::EVENT_NODE_UPDATED,
    keys::EVENT_APPLIED,
    keys::EVENT_MANUAL_GRANTED,
    keys::EVENT_MANUAL_FORCED,
];

/// When the node first asked for `hash`: its roll condition's transition
/// (while it asks for that hash) and the first `WorkloadRollDeferred`
/// event naming it with that hash, the earlier of the two.
fn asked_since(j: &Judged<'_>, hash: &str) -> Option<Timestamp> {
    let node = j.view.node;
    let condition = (j.asks && j.asked_for == Some(hash))
        .then(|| {
            [keys::COND_DRIFT, keys::COND_PENDING]
                .into_iter()
                .filter_map(|t| node.condition(t))
                .filter(|c| c.is_true())
                .filter_map(|c| c.last_transition_time.as_ref().map(|t| t.0))
                .min()
        })
        .flatten();
    let deferred = j
        .view
        .events_naming()
        .filter(|e| events::reason(e) == keys::EVENT_DEFERRED)
        .filter(|e| hash_in(events::note(e)) == Some(hash))
        .filter_map(events::first_time)
        .min();
    condition.into_iter().chain(deferred).min()
}

/// The revision a node at rest now runs: P2 its `spec.workloadRevision`;
/// P1 its lastRolloutHash, else the hash of its newest WorkloadRollApplied.
fn running_revision<'a>(j: &Judged<'a>, protocol: Protocol) -> Option<&'a str> {
    if protocol == Protocol::P2 {
        return j.permit;
    }
    j.view.last_rollout_hash().or_else(|| {
        j.view
            .events_naming()
            .filter(|e| events::reason(e) == keys::EVENT_APPLIED)
            .max_by_key(|e| events::time(e))
            .and_then(|e| hash_in(events::note(e)))
    })
}

/// The newest advance of the node: a grant by hand or an advance event.
pub(crate) fn advanced_at(j: &Judged<'_>) -> Option<Timestamp> {
    j.view
        .events_naming()
        .filter(|e| ADVANCE_EVENTS.contains(&events::reason(e)))
        .filter_map(events::time)
        .chain(hand_grant_time(&j.view))
        .max()
}

/// When the current roll began (see the module docs); None: not told.
pub(crate) fn start(
    cluster: Option<&ValkeyCluster>,
    protocol: Protocol,
    nodes: &[Judged<'_>],
) -> Option<Timestamp> {
    let owned = || nodes.iter().filter(|j| j.cluster_owned);
    let spec_edit = cluster.and_then(ValkeyCluster::spec_edited_at);
    let holders_ask = || {
        owned()
            .filter(|j| j.holder)
            .filter_map(|j| j.permit.and_then(|p| asked_since(j, p)).or(j.grant.at))
    };
    if owned().any(|j| j.asks) {
        let asks = owned()
            .filter(|j| j.asks && !j.holder)
            .filter_map(|j| j.asked_for.and_then(|h| asked_since(j, h)));
        return asks.chain(holders_ask()).min();
    }
    if owned().any(|j| j.behind) {
        return spec_edit.or_else(|| {
            owned()
                .filter(|j| !j.behind)
                .filter_map(|j| advanced_at(j))
                .min()
        });
    }
    if let Some(h) = owned().find(|j| j.holder) {
        let asked = h.permit.and_then(|p| asked_since(h, p));
        return asked.or(spec_edit).or(h.grant.at);
    }
    let newest_ask = owned()
        .filter_map(|j| running_revision(j, protocol).and_then(|r| asked_since(j, r)))
        .max();
    newest_ask.into_iter().chain(spec_edit).max()
}

/// Progress `done` (None: the headline shows `?`): the Converged nodes
/// advanced in the current roll, and `?` when its start is not told. At
/// rest, the same where the roll's advances are still in view (after a
/// revert only the nodes moved back count: the others never left the
/// target); where none is (its events expired), every Converged node.
pub(crate) fn done(
    started: Option<Timestamp>,
    unfinished: bool,
    nodes: &[Judged<'_>],
) -> Option<usize> {
    let converged = |j: &&Judged<'_>| j.cluster_owned && j.state == NodeState::Converged;
    let advanced = started.map(|since| {
        let since = since.checked_sub(SAME_ROLL).unwrap_or(since);
        nodes
            .iter()
            .filter(converged)
            .filter(|j| !j.asks && !j.behind)
            .filter(|j| advanced_at(j).is_some_and(|t| t >= since))
            .count()
    });
    if !unfinished && advanced.is_none_or(|n| n == 0) {
        return Some(nodes.iter().filter(converged).count());
    }
    advanced
}

/// How long a node of the current roll takes, and when the roll should end
/// (issue 14): facts for people, never an input to a verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Estimate {
    /// The median time from a node's advance to its pod Ready, over the
    /// nodes of this roll that finished; None without one.
    pub per_node: Option<SignedDuration>,
    /// `per_node` times the nodes still to go, plus the holder's remaining
    /// share; None when `per_node` is.
    pub eta: Option<SignedDuration>,
    /// How many finished nodes `per_node` rests on.
    pub basis: usize,
}

/// When the node's turn in the roll began: its first advance since `since`
/// (a grant by hand, or an advance event), else its grant time when that
/// is no older than `since` (P2's managedFields time outlives the events).
fn turn_began(j: &Judged<'_>, since: Timestamp) -> Option<Timestamp> {
    j.view
        .events_naming()
        .filter(|e| ADVANCE_EVENTS.contains(&events::reason(e)))
        .filter_map(events::time)
        .chain(hand_grant_time(&j.view))
        .filter(|t| *t >= since)
        .min()
        .or(j.grant.at.filter(|t| *t >= since))
}

/// From a node's advance to its pod Ready, when the pod became Ready after
/// the advance. A condition's time is cut to the second and an event's is
/// not, so a Ready in the advance's own second counts (as zero or more).
fn took(began: Timestamp, ready: Timestamp) -> Option<SignedDuration> {
    let began_second = Timestamp::from_second(began.as_second()).unwrap_or(began);
    (ready >= began_second).then(|| ready.duration_since(began).max(SignedDuration::ZERO))
}

/// The median of `d` (the mean of the middle two for an even count).
fn median(mut d: Vec<SignedDuration>) -> Option<SignedDuration> {
    d.sort();
    let n = d.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => d.get(n / 2).copied(),
        _ => {
            let (a, b) = (d.get(n / 2 - 1)?, d.get(n / 2)?);
            Some(SignedDuration::from_secs((a.as_secs() + b.as_secs()) / 2))
        }
    }
}

/// The estimate for an unfinished roll (the caller decides when one is
/// wanted: not for Jammed or Conflict). Finished: a cluster-owned node,
/// Converged, that no longer asks and is not behind, whose turn began in
/// the current roll and whose pod became Ready after that. To go: the
/// nodes that still ask or are behind. The holder adds what is left of one
/// node's time (all of it when its turn's start is unknown).
pub(crate) fn estimate(
    started: Option<Timestamp>,
    nodes: &[Judged<'_>],
    now: Timestamp,
) -> Estimate {
    let Some(since) = started else {
        return Estimate::default();
    };
    let since = since.checked_sub(SAME_ROLL).unwrap_or(since);
    let owned = || nodes.iter().filter(|j| j.cluster_owned);
    let took: Vec<SignedDuration> = owned()
        .filter(|j| j.state == NodeState::Converged && !j.asks && !j.behind && !j.holder)
        .filter_map(|j| {
            let began = turn_began(j, since)?;
            took(began, j.view.pod_ready_since()?)
        })
        .collect();
    let basis = took.len();
    let Some(per_node) = median(took) else {
        return Estimate {
            basis,
            ..Estimate::default()
        };
    };
    let to_go = owned()
        .filter(|j| !j.holder && (j.asks || j.behind))
        .count();
    if to_go == 0 && !owned().any(|j| j.holder) {
        // Unfinished by the ValkeyCluster's word alone: nothing to time.
        return Estimate {
            per_node: Some(per_node),
            eta: None,
            basis,
        };
    }
    let holder_left: SignedDuration = owned()
        .filter(|j| j.holder)
        .map(|j| {
            let began = turn_began(j, since).or(j.grant.at);
            let spent = began.map_or(SignedDuration::ZERO, |b| now.duration_since(b));
            (per_node - spent).max(SignedDuration::ZERO)
        })
        .sum();
    let to_go = i32::try_from(to_go).unwrap_or(i32::MAX);
    Some(per_node)
        .and_then(|p| p.checked_mul(to_go))
        .and_then(|d| d.checked_add(holder_left))
        .map_or(
            Estimate {
                per_node: Some(per_node),
                eta: None,
                basis,
            },
            |eta| Estimate {
                per_node: Some(per_node),
                eta: Some(eta),
                basis,
            },
        )
}

/// The current roll so far (`history`), one row per node in the order of
/// `nodes` (walk order). Times come from the sources the estimate uses; a
/// row of a node that rolled (or holds) without the time an event would
/// give is partial: its events have likely expired.
pub(crate) fn history(
    index: &Index<'_>,
    namespace: &str,
    cluster_name: &str,
    protocol: Protocol,
    started_at: Option<Timestamp>,
    nodes: &[Judged<'_>],
) -> RollHistory {
    let since = started_at.map(|s| s.checked_sub(SAME_ROLL).unwrap_or(s));
    let about_cluster = index
        .events_in(namespace)
        .iter()
        .filter(|e| events::is_about(e, namespace, "ValkeyCluster", cluster_name))
        .filter_map(|e| events::first_time(e));
    let about_nodes = nodes
        .iter()
        .flat_map(|j| j.view.events_naming().filter_map(events::first_time));
    let oldest_event = about_cluster.chain(about_nodes).min();
    let rows = nodes
        .iter()
        .map(|j| {
            let advanced_at = since.and_then(|s| turn_began(j, s));
            let by_hand = hand_grant_time(&j.view).is_some_and(|h| Some(h) == advanced_at);
            let advanced_by = advanced_at.map(|_| {
                if by_hand {
                    j.view
                        .node
                        .annotation(keys::ANN_GRANTED_BY)
                        .filter(|b| !b.trim().is_empty())
                        .unwrap_or("a person")
                        .to_string()
                } else {
                    "controller".to_string()
                }
            });
            let servers_said = advanced_at
                .filter(|_| by_hand)
                .and_then(|_| j.view.node.annotation(keys::ANN_SERVERS))
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string);
            let applied_at = since.and_then(|s| {
                j.view
                    .events_naming()
                    .filter(|e| events::reason(e) == keys::EVENT_APPLIED)
                    .filter_map(events::time)
                    .filter(|t| *t >= s)
                    .min()
            });
            let ready_at = j
                .view
                .pod_ready_since()
                .filter(|r| advanced_at.is_some_and(|a| took(a, *r).is_some()));
            let took_seconds = match (advanced_at, ready_at) {
                (Some(a), Some(r)) => took(a, r).and_then(|d| u64::try_from(d.as_secs()).ok()),
                _ => None,
            };
            let outcome = match j.state {
                _ if !j.cluster_owned => HistoryOutcome::Skipped,
                NodeState::Stuck | NodeState::StalePermit => HistoryOutcome::Stuck,
                NodeState::Rolling | NodeState::Settling => HistoryOutcome::Rolling,
                NodeState::Waiting => HistoryOutcome::Waiting,
                NodeState::Blocking if advanced_at.is_some() => HistoryOutcome::Rolling,
                NodeState::Blocking => HistoryOutcome::Blocked,
                NodeState::Converged if advanced_at.is_some() => HistoryOutcome::Rolled,
                NodeState::Converged | NodeState::Standalone => HistoryOutcome::Skipped,
            };
            // A holder with no advance in view, or a node that rolled in
            // P1 without its WorkloadRollApplied: an event is missing.
            let partial = match outcome {
                HistoryOutcome::Rolling | HistoryOutcome::Stuck => advanced_at.is_none(),
                HistoryOutcome::Rolled => protocol == Protocol::P1 && applied_at.is_none(),
                _ => false,
            };
            HistoryRow {
                node: j.name().to_string(),
                shard: j.place.shard,
                index: j.place.index,
                role: j.role.role,
                role_source: j.role.source,
                role_note: j.role.note.clone(),
                advanced_at,
                advanced_by,
                servers_said,
                applied_at,
                ready_at,
                took_seconds,
                outcome,
                partial,
            }
        })
        .collect();
    RollHistory {
        started_at,
        oldest_event,
        rows,
    }
}
