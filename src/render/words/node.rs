//! A node's REASON: short and specific.

use crate::report::{Ahead, NodeReason, RollStep};
use crate::units::{human, short_hash};
use std::fmt;

impl fmt::Display for NodeReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeReason::Standalone => f.write_str("standalone: permits do not apply"),
            NodeReason::StalePermit { permit, asks_for } => write!(
                f,
                "stale permit {}: asks for {}",
                short_hash(permit),
                short_hash(asks_for)
            ),
            NodeReason::Failing(finding) => write!(f, "{}", super::Short(finding)),
            NodeReason::NotReleased {
                rolled_for: Some(d),
                ..
            } => write!(f, "rolled {} ago, permit not released", human(*d)),
            NodeReason::NotReleased {
                rolled_for: None,
                held,
            } => write!(f, "rolled, permit not released (held {})", human(*held)),
            NodeReason::HeldOverThreshold { held, threshold } => {
                write!(
                    f,
                    "held {} > {}, not rolled",
                    human(*held),
                    human(*threshold)
                )
            }
            NodeReason::Settling => {
                f.write_str("rolled; the controller has yet to release the permit")
            }
            NodeReason::Rolling(step) => match step {
                RollStep::PermitNotApplied => {
                    f.write_str("permit granted; template not applied yet")
                }
                RollStep::SpecNotObserved => f.write_str("new spec not yet observed"),
                RollStep::WorkloadRolling => f.write_str("workload rolling"),
                RollStep::PodNotReady { pod: Some(p) } => write!(f, "pod {p} not Ready yet"),
                RollStep::PodNotReady { pod: None } => f.write_str("pod not Ready yet"),
                RollStep::Rolling => f.write_str("rolling"),
            },
            NodeReason::Waiting { queue, ahead } => match ahead {
                Ahead::Holders(holders) => {
                    write!(f, "queue {queue}, behind {}", holders.join(", "))
                }
                Ahead::Front { node, blocking } => {
                    let blocking = if *blocking { " (blocking)" } else { "" };
                    write!(f, "queue {queue}, behind {node}{blocking}")
                }
                Ahead::Nothing => write!(f, "queue {queue}, next"),
            },
            NodeReason::Blocking(why) => write!(f, "{why}"),
            NodeReason::Converged => f.write_str("rolled"),
        }
    }
}

/// A node's REASON in its cluster's protocol's words: P2 holds no
/// permit (its node is advanced, then in flight), so the reasons P1
/// words as a permit's say so in P2's. The document keeps
/// [`NodeReason`]'s own words.
pub(crate) struct Said<'a>(pub &'a NodeReason, pub crate::report::Protocol);

impl fmt::Display for Said<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 != crate::report::Protocol::P2 {
            return fmt::Display::fmt(self.0, f);
        }
        match self.0 {
            NodeReason::Standalone => f.write_str("standalone: staged rolls do not apply"),
            NodeReason::NotReleased {
                rolled_for: Some(d),
                ..
            } => write!(f, "rolled {} ago, still counted in flight", human(*d)),
            NodeReason::NotReleased {
                rolled_for: None,
                held,
            } => write!(
                f,
                "rolled, still counted in flight (advanced {} ago)",
                human(*held)
            ),
            NodeReason::HeldOverThreshold { held, threshold } => write!(
                f,
                "in flight {} > {}, not rolled",
                human(*held),
                human(*threshold)
            ),
            NodeReason::Settling => f.write_str("rolled; the controller has yet to see it done"),
            NodeReason::Rolling(RollStep::PermitNotApplied) => {
                f.write_str("advanced; template not applied yet")
            }
            other => fmt::Display::fmt(other, f),
        }
    }
}
