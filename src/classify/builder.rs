//! A roll the operator's own build starts (docs/protocol.md, "What a
//! node's spec mirrors"): a new operator renders every node's template
//! anew with no spec edit, and its node controller reaches the nodes one
//! by one at start-up, each asking (`WorkloadRollPending`) within a second
//! or so of the first. In that moment a node not yet reached shows nothing,
//! yet it is built by the same operator from the same cluster spec.
//!
//! The rule, from the operator's source (c33988f): a Spec-driven roll
//! never asks, because the cluster controller writes a node's new spec with
//! the revision it hashes to in one Update, in walk order; a node asks only
//! when the template its own controller builds hashes to something its
//! revision does not name, which, with its spec at its cluster's, is the
//! operator's build. The node controller reconciles every node as it
//! starts, so such asks come within a second or so of each other.
//! - A *build ask*: a node that asks while its spec is its cluster's, no
//!   node of the cluster being behind (no Spec-driven walk under way), and
//!   either advanced since (it holds) or with a spec not written in the
//!   [`SAME_ROLL`] before the ask (an operator that wrote the spec and then
//!   asked would be walking a spec change).
//! - For [`SAME_ROLL`] after the first build ask, a node that neither asks,
//!   holds nor is behind, and has not been advanced since that ask, is
//!   presumed still to roll (Waiting). Past it, every node the new build
//!   changes asks for itself.

use super::clock::Clock;
use super::judge::Judged;
use super::roll::SAME_ROLL;
use crate::report::{NodeState, Protocol};
use crate::snapshot::keys;
use jiff::Timestamp;

/// When the node's spec was last written (the entry that owns
/// `spec.workloadRevision` moves with every spec write of its manager).
fn spec_written(j: &Judged<'_>) -> Option<Timestamp> {
    crate::snapshot::field_written_times(&j.view.node.metadata, &["f:spec", "f:workloadRevision"])
        .max()
}

/// When the node began to ask, if it is a build ask.
fn build_ask(j: &Judged<'_>) -> Option<Timestamp> {
    if !(j.cluster_owned && j.behind_fields.is_empty()) {
        return None;
    }
    let asked = j
        .view
        .node
        .condition(keys::COND_PENDING)
        .filter(|c| c.is_true())
        .and_then(|c| c.last_transition_time.as_ref())
        .map(|t| t.0)?;
    let unwritten = || spec_written(j).is_some_and(|w| asked.duration_since(w) > SAME_ROLL);
    (j.holder || unwritten()).then_some(asked)
}

/// Marks behind (Waiting) the nodes a roll of the operator's build has not
/// reached yet (P2 only; see the module's rule).
pub(crate) fn presume(judged: &mut [Judged<'_>], protocol: Protocol, clock: &Clock) {
    if protocol != Protocol::P2 || judged.iter().any(|j| j.behind) {
        return;
    }
    let Some(start) = judged.iter().filter_map(build_ask).min() else {
        return;
    };
    if clock.beyond(start, SAME_ROLL) {
        return;
    }
    let since = start.checked_sub(SAME_ROLL).unwrap_or(start);
    for j in judged.iter_mut() {
        let advanced = j.view.advance_times().any(|t| t >= since);
        if j.cluster_owned && !j.asks && !j.holder && !advanced {
            j.behind = true;
            if matches!(j.state, NodeState::Converged | NodeState::Blocking) {
                j.state = NodeState::Waiting;
                j.waiting_since = Some(start);
            }
        }
    }
}
