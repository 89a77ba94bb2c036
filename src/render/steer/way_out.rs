//! The words of a way out ([`Step`]): what a refused command says to do
//! next, each a command to paste where one helps, on a line of its own
//! under what it is for, as `explain`'s next steps are.

use crate::render::step::Step as Said;
use crate::report::Protocol;
use crate::shell::CommandLine;
use crate::steer::plan::{Action, Plan, Step};

/// `kubectl valkey-roll VERB ...`
fn vr(verb: &str) -> CommandLine {
    CommandLine::new(&format!("kubectl valkey-roll {verb}"))
}

/// One step, for people: what it is for, then its command.
fn step(s: &Step, plan: &Plan) -> Said {
    let ns = plan.namespace.as_str();
    let p2 = plan.protocol == Protocol::P2;
    match s {
        Step::Explain { node } => Said::say(format!(
            "read {node}'s story, and what can be done about it:"
        ))
        .run(vr("explain").arg(node).opt("-n", ns)),
        Step::Status { cluster } => {
            let mut c = vr("status");
            if let Some(cluster) = cluster {
                c = c.arg(cluster);
            }
            Said::say(format!(
                "see who asks, who {} and who waits:",
                if p2 { "is in flight" } else { "holds" }
            ))
            .run(c.opt("-n", ns))
        }
        Step::Watch { cluster } => Said::say("wait for the roll in flight:")
            .run(vr("status").arg(cluster).opt("-n", ns).switch("--watch")),
        Step::WatchServers { cluster } => Said::say(
            "watch the servers until a replica is synced (the operator rolls a primary only then):",
        )
        .run(
            vr("status")
                .arg(cluster)
                .opt("-n", ns)
                .switch("--watch")
                .switch("--servers"),
        ),
        Step::FixCause { node } if p2 => Said::say(format!(
            "fix what fails on {node} (revert the ValkeyCluster change that started the roll, or fix the image or its limits): in P2 the controller then rolls it again, and nothing else gets past it"
        )),
        Step::FixCause { node } => Said::say(format!(
            "fix what fails on {node} (revert the ValkeyCluster change that started the roll, or fix the image or its limits)"
        )),
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
            if let Some(shard) = c.unsafe_shard {
                line = line.opt("--unsafe-shard", &shard.to_string());
            }
            let line = line.switch("--reason \"...\"");
            let what = match (c.action, c.takeover) {
                (Action::Grant, _) if c.node == plan.node => "grant it this way",
                (Action::Grant, _) if p2 => "advance the walk's front instead",
                (Action::Grant, _) => "grant the walk's front instead",
                (Action::Revoke, _) => "take its permit away (its pod is not rolled back)",
                (Action::Force, true) => "move the permit here, revoking the other",
                (Action::Force, false) if c.unsafe_shard.is_some() => {
                    "force it all the same, knowing the shard's writes not on any replica may be lost"
                }
                (Action::Force, false) => "force the permit here",
                (Action::ReplacePod, _) => {
                    "its pod is stuck on a superseded revision (OrderedReady): delete it so it is recreated"
                }
            };
            Said::say(format!("{what}:")).run(line)
        }
        Step::Again { yes: true } => {
            Said::say("run it again on a terminal (it asks first), or with --yes")
        }
        Step::Again { yes: false } => Said::say("run the same command again"),
    }
}

/// Every step of the plan's way out, as a screen shows them: a bullet
/// each, its prose wrapped to `width`, each command whole on its own line.
pub fn way_out_text(plan: &Plan, width: Option<usize>) -> String {
    plan.way_out
        .iter()
        .map(|s| step(s, plan).render(width))
        .collect()
}

/// Every step of the plan's way out on one line each (`next` of the
/// steering document): what it is for, then the command.
pub fn way_out(plan: &Plan) -> Vec<String> {
    plan.way_out.iter().map(|s| step(s, plan).line()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample::plan;
    use crate::steer::plan::way_out::Command;

    #[test]
    fn commands_stand_on_their_own_lines_without_backquotes() {
        let mut p = plan(Action::Grant, "cache-0-1");
        p.way_out = vec![
            Step::Explain {
                node: "cache-0-0".into(),
            },
            Step::Steer(Command {
                action: Action::Force,
                node: "cache-0-1".into(),
                allow_primary: false,
                takeover: true,
                unsafe_shard: None,
                protocol: None,
            }),
            Step::Again { yes: false },
        ];
        assert_eq!(
            way_out_text(&p, Some(80)),
            "  - read cache-0-0's story, and what can be done about it:\n      \
             kubectl valkey-roll explain cache-0-0 -n prod\n  \
             - move the permit here, revoking the other:\n      \
             kubectl valkey-roll force cache-0-1 -n prod --takeover --reason \"...\"\n  \
             - run the same command again\n"
        );
        assert_eq!(
            way_out(&p)[0],
            "read cache-0-0's story, and what can be done about it: \
             kubectl valkey-roll explain cache-0-0 -n prod"
        );
        // A name that holds a backquote stays one quoted word.
        p.way_out = vec![Step::Explain {
            node: "a`id`b".into(),
        }];
        assert_eq!(
            way_out_text(&p, None),
            "  - read a`id`b's story, and what can be done about it:\n      \
             kubectl valkey-roll explain 'a`id`b' -n prod\n"
        );
    }
}
