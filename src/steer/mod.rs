//! Steering a roll by hand: `grant`, `revoke`, `force`, `replace-pod`.
//!
//! - [`plan`]: pure. What to write and why, or why not (docs/plugin.md's rules).
//! - [`exec`]: asks, takes the cluster's Lease, re-reads and re-plans, sends
//!   the patches with their resourceVersion, checks after the write, records
//!   the Events.
//! - [`lease`]: the `coordination.k8s.io/v1` Lease that serialises manual
//!   steering of one cluster.
//! - [`note`]: what happened on the way, as facts ([`Note`]).
//! - [`hooks`]: pause points for end-to-end tests (compiled in only with the
//!   `test-hooks` feature).

pub(crate) mod exec;
pub(crate) mod hooks;
pub(crate) mod lease;
pub(crate) mod note;
pub(crate) mod plan;

pub(crate) use note::Note;
pub(crate) use plan::Plan;

use crate::error::Exit;

/// What a steering command ends with: the final plan (its decision is
/// `written` once sent), the exit code, and what happened on the way that
/// the plan alone does not say (a changed decision, a holder that appeared
/// after the write, an Event that could not be recorded).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Steered {
    pub plan: Plan,
    pub exit: Exit,
    pub notes: Vec<Note>,
}

impl Steered {
    /// A plan that was only made, not sent.
    pub(crate) fn planned(plan: Plan) -> Steered {
        let exit = plan.exit();
        Steered {
            plan,
            exit,
            notes: Vec::new(),
        }
    }
}
