//! The command that undoes a P1 write, as one shell line a person can
//! paste: it reaches the same cluster as the same user, and each step is a
//! command that is not refused at that point.
//!
//! The line is data, not a sentence: a command to paste, whose `--reason`
//! is written to the nodes. So it is spelt here; render only prints it.

use super::patch::{NodePatch, PatchEffect};
use super::{AccessFlags, Action, Request};
use crate::shell::CommandLine;
use crate::snapshot::keys;

/// One step of an undo: give `node` back its `old` permit, or (`None`)
/// revoke the one this command gave it.
struct UndoStep<'a> {
    node: &'a str,
    old: Option<&'a str>,
    primary: bool,
}

/// The command that undoes `written`, patches of one P1 command in the
/// order they were sent (all of a plan's, or the part sent before a stop):
/// the granted node gets its own earlier permit back (else loses the one
/// given), then each revoked node its permit. `holding`: the nodes that
/// hold a permit right after those writes. `None` when there is nothing
/// to undo.
pub(crate) fn undo_of(
    request: &Request,
    written: &[NodePatch],
    holding: &[String],
) -> Option<String> {
    let granted = written.iter().filter(|x| x.effect == PatchEffect::Grant);
    let revoked = written.iter().filter(|x| x.effect == PatchEffect::Revoke);
    let mut steps = Vec::new();
    for x in granted {
        // The same permit rewritten: only the trace changed.
        let value = x.patch["metadata"]["annotations"][keys::ANN_PERMIT].as_str();
        if x.previous.is_none() || x.previous.as_deref() != value {
            steps.push(UndoStep {
                node: &x.name,
                old: x.previous.as_deref(),
                primary: x.primary,
            });
        }
    }
    for x in revoked {
        if let Some(old) = x.previous.as_deref() {
            steps.push(UndoStep {
                node: &x.name,
                old: Some(old),
                primary: x.primary,
            });
        }
    }
    (!steps.is_empty()).then(|| undo_command(request, holding, &steps))
}

/// The steps as one shell line, each step by a command that is not refused
/// at that point: grant while no other node holds, else force (which needs
/// a reason and --yes). Every line repeats the access flags and `-n`,
/// and a grant or force says `--protocol P1`: once the permits are gone, a
/// cluster at rest shows no protocol. Every value is quoted for the shell
/// ([`crate::shell`]): a node name from a file may hold anything.
fn undo_command(request: &Request, holding: &[String], steps: &[UndoStep<'_>]) -> String {
    let mut holding: Vec<&str> = holding.iter().map(String::as_str).collect();
    let mut lines = Vec::new();
    for step in steps {
        let name = step.node;
        let others_hold = holding.iter().any(|h| *h != name);
        let verb = match step.old {
            None => "revoke",
            Some(_) if others_hold => "force",
            Some(_) => "grant",
        };
        let mut line = CommandLine::new(&format!("kubectl valkey-roll {verb}"))
            .arg(name)
            .opt("-n", &request.namespace);
        line = access_flags(line, &request.access);
        match step.old {
            None => holding.retain(|h| *h != name),
            Some(old) => {
                line = line.opt("--protocol", "P1");
                line = if old == "*" {
                    line.switch("--any")
                } else {
                    line.opt("--revision", old)
                };
                if others_hold {
                    line = line
                        .opt(
                            "--reason",
                            &format!("undo {} of {}", what_was_done(request), request.node),
                        )
                        .switch("--yes");
                } else if step.primary {
                    line = line.switch("--allow-primary");
                }
                holding.push(name);
            }
        }
        lines.push(line.render());
    }
    lines.join(" && ")
}

/// `grant`, `revoke`, `force` or `force --takeover`, for an undo's reason.
fn what_was_done(request: &Request) -> String {
    match request.action() {
        Action::Force if request.steer.takeover() => "force --takeover".to_string(),
        a => a.to_string(),
    }
}

/// `--kubeconfig P --context C --cluster K --user U --as A --as-group G...`,
/// each value quoted for the shell.
fn access_flags(mut line: CommandLine, conn: &AccessFlags) -> CommandLine {
    let flags = [
        ("--kubeconfig", &conn.kubeconfig),
        ("--context", &conn.context),
        ("--cluster", &conn.kube_cluster),
        ("--user", &conn.user),
        ("--as", &conn.impersonate),
    ];
    for (flag, value) in flags {
        if let Some(v) = value {
            line = line.opt(flag, v);
        }
    }
    for g in &conn.impersonate_groups {
        line = line.opt("--as-group", g);
    }
    line
}
