//! A silent operator (docs/plugin.md, "A silent operator"): the node in flight
//! whose pod has been Ready on its new revision (its workload rolled out)
//! for longer than [`OPERATOR_GRACE`] while its status has not followed,
//! or whose new spec has not been observed for as long since it was
//! advanced. In the recordings the operator follows within a second; when
//! it is killed, crash-looping or evicted, nothing follows and nothing
//! says so.

use super::clock::Clock;
use super::clock::{secs, since};
use super::judge::Judged;
use crate::report::{NodeState, OperatorSilence, SilentAfter};
use jiff::SignedDuration;

/// How long the operator may take to act on a node in flight before its
/// silence is named.
pub(crate) const OPERATOR_GRACE: SignedDuration = SignedDuration::from_secs(30);

/// The first node, in walk order, on which the operator has been silent
/// for over [`OPERATOR_GRACE`].
pub(crate) fn silence(nodes: &[Judged<'_>], clock: &Clock) -> Option<OperatorSilence> {
    nodes.iter().filter(|j| j.cluster_owned).find_map(|j| {
        let v = &j.view;
        let (at, after) = if j.holder && !v.generation_observed() {
            (j.grant.at?, SilentAfter::Advanced)
        } else if j.state == NodeState::Blocking
            && v.not_ready_since_advance()
            && v.pod_ready() == Some(true)
            && v.rolled_out() == Some(true)
        {
            // Counted from the later of the pod's Ready and the node's
            // turn to not Ready: that turn is the operator's own write (it
            // applied the advance), so it was acting then, whatever the
            // pod's age.
            let ready = v.pod_ready_since()?;
            match v.node_not_ready_since() {
                Some(turned) if turned > ready => (turned, SilentAfter::Applied),
                _ => (ready, SilentAfter::PodReady),
            }
        } else {
            return None;
        };
        clock.over(at, OPERATOR_GRACE).then(|| OperatorSilence {
            quiet_for_seconds: secs(since(clock.now(), at)),
            node: j.name().to_string(),
            after,
            lease: None,
        })
    })
}
