//! A roll the operator's own build starts (docs/plugin.md, Behind): a new
//! operator renders every node's pod template anew, with no spec edit, and
//! each node's controller says so (WorkloadRollPending) in turn. Between
//! the first node saying so and the last, the others show nothing yet, but
//! they are built by the same operator from the same cluster spec: a node
//! whose status the operator has not written since the first such ask is
//! presumed still to roll.

use super::judge::Judged;
use crate::report::{NodeState, Protocol};
use crate::snapshot::keys;
use jiff::Timestamp;

/// When the roll began: the earliest True WorkloadRollPending among nodes
/// that ask while their spec is at their cluster's (P2 only).
fn started(judged: &[Judged<'_>], protocol: Protocol) -> Option<Timestamp> {
    if protocol != Protocol::P2 {
        return None;
    }
    judged
        .iter()
        .filter(|j| j.cluster_owned && j.asks && j.behind_fields.is_empty())
        .filter_map(|j| j.view.node.condition(keys::COND_PENDING))
        .filter(|c| c.is_true())
        .filter_map(|c| c.last_transition_time.as_ref().map(|t| t.0))
        .min()
}

/// The newest write of the node's status (its managedFields), if known.
fn status_written(j: &Judged<'_>) -> Option<Timestamp> {
    j.view
        .node
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|e| e.subresource.as_deref() == Some("status"))
        .filter_map(|e| e.time.as_ref().map(|t| t.0))
        .max()
}

/// Marks behind (Waiting) every node the operator has not spoken for since
/// a roll of its own build began: cluster-owned, neither asking, holding
/// nor behind, its status last written before the roll began.
pub(crate) fn presume(judged: &mut [Judged<'_>], protocol: Protocol) {
    let Some(start) = started(judged, protocol) else {
        return;
    };
    for j in judged.iter_mut() {
        let quiet = status_written(j).is_some_and(|t| t < start);
        if j.cluster_owned && !j.asks && !j.holder && !j.behind && quiet {
            j.behind = true;
            if matches!(j.state, NodeState::Converged | NodeState::Blocking) {
                j.state = NodeState::Waiting;
                j.waiting_since = Some(start);
            }
        }
    }
}
