//! The words of a way out ([`Step`]): what a refused command says to do
//! next, each a command to paste where one helps.

use crate::report::Protocol;
use crate::shell::CommandLine;
use crate::steer::plan::{Action, Plan, Step};

/// `kubectl valkey-roll VERB ...`
fn vr(verb: &str) -> CommandLine {
    CommandLine::new(&format!("kubectl valkey-roll {verb}"))
}

/// One step, for people: a command in backticks and what it is for.
pub(crate) fn step(s: &Step, plan: &Plan) -> String {
    let ns = plan.namespace.as_str();
    let p2 = plan.protocol == Protocol::P2;
    match s {
        Step::Explain { node } => format!(
            "`{}`: its story, and what can be done about it",
            vr("explain").arg(node).opt("-n", ns)
        ),
        Step::Status { cluster } => {
            let mut c = vr("status");
            if let Some(cluster) = cluster {
                c = c.arg(cluster);
            }
            format!(
                "`{}`: who asks, who {} and who waits",
                c.opt("-n", ns),
                if p2 { "is in flight" } else { "holds" }
            )
        }
        Step::Watch { cluster } => format!(
            "wait for the roll in flight: `{}`",
            vr("status").arg(cluster).opt("-n", ns).switch("--watch")
        ),
        Step::FixCause { node } if p2 => format!(
            "fix what fails on {node} (revert the ValkeyCluster change that started the roll, or fix the image or its limits): in P2 the controller then rolls it again, and nothing else gets past it"
        ),
        Step::FixCause { node } => format!(
            "fix what fails on {node} (revert the ValkeyCluster change that started the roll, or fix the image or its limits)"
        ),
        Step::Steer(c) => {
            let mut line = vr(c.action.as_str()).arg(&c.node).opt("-n", ns);
            if let Some(p) = c.protocol {
                line = line.opt("--protocol", &p.to_string());
            }
            if c.allow_primary {
                line = line.switch("--allow-primary");
            }
            if c.takeover {
                line = line.switch("--takeover");
            }
            let line = line.switch("--reason \"...\"");
            let what = match (c.action, c.takeover) {
                (Action::Grant, _) if c.node == plan.node => "grant it this way",
                (Action::Grant, _) if p2 => "advance the walk's front instead",
                (Action::Grant, _) => "grant the walk's front instead",
                (Action::Revoke, _) => "take its permit away (its pod is not rolled back)",
                (Action::Force, true) => "move the permit here, revoking the other",
                (Action::Force, false) => "force the permit here",
                (Action::ReplacePod, _) => {
                    "its pod is stuck on a superseded revision (OrderedReady): delete it so it is recreated"
                }
            };
            format!("`{line}`: {what}")
        }
        Step::Again { yes: true } => {
            "run it again on a terminal (it asks first), or with --yes".to_string()
        }
        Step::Again { yes: false } => "run the same command again".to_string(),
    }
}

/// Every step of the plan's way out.
pub(crate) fn way_out(plan: &Plan) -> Vec<String> {
    plan.way_out.iter().map(|s| step(s, plan)).collect()
}
