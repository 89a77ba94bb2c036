//! The executor: sends what the planner decided, and nothing it did not see.
//!
//! Order (PLUGIN.md): ask first; only then take the cluster's Lease,
//! re-read, re-plan (a changed decision is reported, not written), send each
//! patch as a JSON merge patch carrying the resourceVersion it was decided
//! on, check for another holder after a grant, record the Events, and
//! release the Lease, also on error. A 409 re-reads and re-plans once.

use crate::classify::classify;
use crate::cli::DryRun;
use crate::error::{Error, Exit, Result};
use crate::report::Report;
use crate::snapshot::{Snapshot, VALKEY_API_VERSION, ValkeyNode, keys};
use crate::source::live::{self, Live};
use crate::steer::Steered;
use crate::steer::hooks::{self, Point};
use crate::steer::lease;
use crate::steer::plan::{self, Action, Decision, EventPlan, NodePatch, Plan, Refusal, Request};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use std::time::Duration;

/// Asks a person to confirm; `true` to go ahead.
pub trait Confirm {
    fn ask(&mut self, plan_text: &str, question: &str) -> impl Future<Output = bool> + Send;
}

/// Asks on the terminal: the plan and the question on stderr, the answer
/// from stdin. Only `y` or `yes` goes ahead.
pub struct Terminal;

impl Confirm for Terminal {
    async fn ask(&mut self, plan_text: &str, question: &str) -> bool {
        let prompt = format!("{plan_text}\n{question}\nProceed? [y/N] ");
        // Reading stdin blocks: keep it off the async workers.
        let answer = tokio::task::spawn_blocking(move || {
            use std::io::Write;
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(prompt.as_bytes());
            let _ = err.flush();
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map(|_| line)
        })
        .await;
        matches!(
            answer.as_ref().map(|r| r.as_ref().map(|l| l.trim().to_ascii_lowercase())),
            Ok(Ok(a)) if a == "y" || a == "yes"
        )
    }
}

/// How the command was run, beyond the request.
pub struct Options {
    /// `--yes`.
    pub yes: bool,
    /// stdin is a terminal: a command that needs confirmation may ask.
    pub interactive: bool,
    pub stall_threshold: Duration,
    /// `--now`: the clock for planning and the trace; else the real one,
    /// read at each step. The Lease always runs on the real clock.
    pub now: Option<Timestamp>,
    /// Colour the plan shown before asking.
    pub color: bool,
}

impl Options {
    fn now(&self) -> Timestamp {
        self.now.unwrap_or_else(Timestamp::now)
    }
}

/// Runs a steering request against a cluster. `first` is the snapshot read
/// before (the plan the person is asked about is made from it).
pub async fn execute<C: Confirm>(
    live: &Live,
    first: &Snapshot,
    request: &Request,
    opts: &Options,
    confirm: &mut C,
) -> Result<Steered> {
    let actor = live::who_am_i(live).await;
    let report = classify(first, opts.now(), opts.stall_threshold);
    let planned = plan::plan(first, &report, request, opts.now(), &actor)?;
    if planned.is_refused() || request.dry_run == DryRun::Client {
        return Ok(Steered::planned(planned));
    }
    if request.dry_run == DryRun::Server {
        // No Lease, no Event, no confirmation: nothing is stored.
        return send(live, planned, request, opts, &actor).await;
    }
    let mut planned = planned;
    let confirmed = match confirmation_step(&planned, opts.yes, opts.interactive) {
        Step::Go => true,
        Step::Refuse => false,
        Step::Ask(question) => {
            let shown = crate::render::steer::text(&Steered::planned(planned.clone()), opts.color);
            confirm.ask(&shown, &question).await
        }
    };
    if !confirmed {
        planned.refuse(Refusal::NotConfirmed {
            action: request.action,
            node: request.node.clone(),
            asked: opts.interactive,
        });
        return Ok(Steered::planned(planned));
    }

    let holder = lease::holder_identity(&actor);
    let guard = match lease::take(
        live.client.clone(),
        &request.namespace,
        &planned.cluster,
        &holder,
        Timestamp::now(),
    )
    .await?
    {
        Ok(g) => g,
        Err(refusal) => {
            planned.refuse(refusal);
            return Ok(Steered::planned(planned));
        }
    };
    let result = under_lease(live, planned, request, opts, &actor).await;
    // The Lease goes whatever happened; an error releasing it is reported
    // only when the command itself went well (it expires in 30 s anyway).
    let released = guard.release().await;
    match (result, released) {
        (Ok(s), Ok(())) => Ok(s),
        (Ok(mut s), Err(e)) => {
            s.notes.push(format!(
                "the Lease could not be released ({e}); it expires in {}s",
                lease::DURATION_SECONDS
            ));
            Ok(s)
        }
        (Err(e), _) => Err(e),
    }
}

/// What to do about confirmation before a real write.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Nothing to confirm, or `--yes`.
    Go,
    /// On a terminal: ask this.
    Ask(String),
    /// Off a terminal without `--yes`: refused (exit 4).
    Refuse,
}

fn confirmation_step(plan: &Plan, yes: bool, interactive: bool) -> Step {
    match &plan.confirmation {
        None => Step::Go,
        Some(_) if yes => Step::Go,
        Some(q) if interactive => Step::Ask(q.clone()),
        Some(_) => Step::Refuse,
    }
}

/// The state a plan was made from: the snapshot and its report.
struct State {
    snapshot: Snapshot,
    report: Report,
}

async fn reread(live: &Live, plan: &Plan, opts: &Options) -> Result<State> {
    let cluster = (!plan.cluster.is_empty()).then_some(plan.cluster.as_str());
    let snapshot = live::read(live, Some(&plan.namespace), cluster).await?;
    let report = classify(&snapshot, opts.now(), opts.stall_threshold);
    Ok(State { snapshot, report })
}

async fn under_lease(
    live: &Live,
    before: Plan,
    request: &Request,
    opts: &Options,
    actor: &str,
) -> Result<Steered> {
    // Someone may have written between the first read and the Lease.
    let state = reread(live, &before, opts).await?;
    let mut again = plan::plan(&state.snapshot, &state.report, request, opts.now(), actor)?;
    if let Some(what) = again.changed_from(&before, &[]) {
        let note = format!("re-read under the Lease: {what}");
        if !again.is_refused() {
            again.refuse(Refusal::Changed { what });
        }
        let mut s = Steered::planned(again);
        s.notes.push(note);
        return Ok(s);
    }
    send(live, again, request, opts, actor).await
}

/// Sends the plan's patches (retrying once after a conflict), checks for
/// another holder after a grant, and records the Events.
async fn send(
    live: &Live,
    mut current: Plan,
    request: &Request,
    opts: &Options,
    actor: &str,
) -> Result<Steered> {
    let dry = request.dry_run == DryRun::Server;
    let api: Api<ValkeyNode> = Api::namespaced(live.client.clone(), &request.namespace);
    let mut params = PatchParams {
        field_manager: Some(keys::FIELD_MANAGER.to_string()),
        ..PatchParams::default()
    };
    if dry {
        params = params.dry_run();
    }
    let original = current.clone();
    let mut written: Vec<(NodePatch, ValkeyNode)> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut retried = false;

    hooks::pause(Point::AfterPlan).await;
    let mut queue: std::collections::VecDeque<NodePatch> =
        current.patches.iter().cloned().collect();
    while let Some(patch) = queue.pop_front() {
        if patch.resource_version.is_none() {
            return Err(Error::Other(format!(
                "ValkeyNode {}/{} has no metadata.resourceVersion: refusing to write without one",
                request.namespace, patch.name
            )));
        }
        match api
            .patch(&patch.name, &params, &Patch::Merge(&patch.patch))
            .await
        {
            Ok(obj) => written.push((patch, obj)),
            Err(kube::Error::Api(s)) if s.is_conflict() => {
                // Someone wrote in between: never overwrite what we did not
                // see. Re-read, re-plan, and go on only when nothing that
                // matters changed.
                let name = patch.name.clone();
                let stop = |mut p: Plan, r: Refusal, notes: Vec<String>| {
                    if !p.is_refused() {
                        p.refuse(r);
                    }
                    (p, notes)
                };
                if retried {
                    let (p, n) = stop(
                        current.clone(),
                        Refusal::ConflictAgain { node: name },
                        notes,
                    );
                    return finish_stopped(live, p, n, written, &original, request).await;
                }
                retried = true;
                let state = reread(live, &current, opts).await?;
                let revoked: Vec<String> = written.iter().map(|(p, _)| p.name.clone()).collect();
                let again = plan::plan(&state.snapshot, &state.report, request, opts.now(), actor)?;
                notes.push(format!(
                    "{name} changed after it was read (409 Conflict); re-read and re-planned"
                ));
                if let Some(what) = again.changed_from(&original, &revoked) {
                    notes.push(format!("after the conflict: {what}"));
                    let (p, n) = stop(again, Refusal::Changed { what }, notes);
                    return finish_stopped(live, p, n, written, &original, request).await;
                }
                queue = again
                    .patches
                    .iter()
                    .filter(|p| !revoked.contains(&p.name))
                    .cloned()
                    .collect();
                current = again;
            }
            Err(e) => {
                let err = live.error(e, "patch", "valkeynodes", Some(&request.namespace));
                if written.is_empty() {
                    return Err(err);
                }
                // Part of a takeover is written: say what, then fail.
                return Err(Error::Other(format!(
                    "{err} (already written before this error: {})",
                    written
                        .iter()
                        .map(|(p, _)| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
    }

    let mut result = original.clone();
    result.patches = written.iter().map(|(p, _)| p.clone()).collect();
    result.events = events_for(&current, &original, &result.patches);
    if dry {
        // The API server accepted the patches; nothing is stored.
        result.decision = Decision::Planned;
        return Ok(Steered {
            plan: result,
            exit: Exit::Done,
            notes,
        });
    }
    result.decision = Decision::Written;
    let mut exit = Exit::Done;

    hooks::pause(Point::AfterPatch).await;
    if matches!(request.action, Action::Grant | Action::Force) {
        let after = reread(live, &result, opts).await?;
        let extra: Vec<&crate::report::NodeReport> = after
            .report
            .clusters
            .iter()
            .filter(|c| c.namespace == result.namespace && c.name == result.cluster)
            .flat_map(|c| c.nodes.iter())
            .filter(|n| {
                n.facts.holder && n.name != result.node && !result.kept_holders.contains(&n.name)
            })
            .collect();
        if !extra.is_empty() {
            exit = Exit::OtherHolder;
            for n in extra {
                notes.push(format!(
                    "after the write, {} holds a permit too ({}): it appeared while {} was being granted, so two nodes may roll at once; revoke one of them",
                    n.name, n.state, result.node
                ));
            }
        }
    }
    record_events(live, &result, &written, &mut notes).await;
    Ok(Steered {
        plan: result,
        exit,
        notes,
    })
}

/// The Events of the patches actually sent, taken from the plan that made
/// each patch.
fn events_for(current: &Plan, original: &Plan, sent: &[NodePatch]) -> Vec<EventPlan> {
    sent.iter()
        .filter_map(|p| {
            current
                .events
                .iter()
                .chain(original.events.iter())
                .find(|e| e.node == p.name)
                .cloned()
        })
        .collect()
}

/// A stop after a conflict: the refusal, plus what was already written (a
/// takeover's first revokes) with its Events.
async fn finish_stopped(
    live: &Live,
    mut p: Plan,
    mut notes: Vec<String>,
    written: Vec<(NodePatch, ValkeyNode)>,
    original: &Plan,
    request: &Request,
) -> Result<Steered> {
    if !written.is_empty() {
        let names: Vec<&str> = written.iter().map(|(x, _)| x.name.as_str()).collect();
        notes.push(format!(
            "already written before the stop: the revoke of {}",
            names.join(", ")
        ));
        let sent: Vec<NodePatch> = written.iter().map(|(x, _)| x.clone()).collect();
        p.events = events_for(original, original, &sent);
        if request.dry_run == DryRun::None {
            record_events(live, &p, &written, &mut notes).await;
        }
        p.patches = sent;
    }
    let exit = p.exit();
    Ok(Steered {
        plan: p,
        exit,
        notes,
    })
}

/// Records one `v1` Event per written patch on its ValkeyNode. A failure
/// is a note, not an error: the write it describes has happened.
async fn record_events(
    live: &Live,
    plan: &Plan,
    written: &[(NodePatch, ValkeyNode)],
    notes: &mut Vec<String>,
) {
    let api: Api<Event> = Api::namespaced(live.client.clone(), &plan.namespace);
    let now = Timestamp::now();
    let host = lease::host_name();
    for (patch, node) in written {
        let Some(ev) = plan.events.iter().find(|e| e.node == patch.name) else {
            continue;
        };
        let event = Event {
            metadata: ObjectMeta {
                name: Some(format!("{}.{:x}", patch.name, now.as_nanosecond())),
                namespace: Some(plan.namespace.clone()),
                ..ObjectMeta::default()
            },
            involved_object: ObjectReference {
                api_version: Some(VALKEY_API_VERSION.to_string()),
                kind: Some("ValkeyNode".to_string()),
                name: Some(patch.name.clone()),
                namespace: Some(plan.namespace.clone()),
                uid: node.metadata.uid.clone(),
                resource_version: node.metadata.resource_version.clone(),
                ..ObjectReference::default()
            },
            reason: Some(ev.reason.to_string()),
            message: Some(ev.message.clone()),
            type_: Some(if ev.reason == keys::EVENT_MANUAL_FORCED {
                "Warning".to_string()
            } else {
                "Normal".to_string()
            }),
            first_timestamp: Some(Time(now)),
            last_timestamp: Some(Time(now)),
            count: Some(1),
            source: Some(EventSource {
                component: Some(keys::FIELD_MANAGER.to_string()),
                host: Some(host.clone()),
            }),
            reporting_component: Some(keys::FIELD_MANAGER.to_string()),
            reporting_instance: Some(host.clone()),
            ..Event::default()
        };
        if let Err(e) = api.create(&PostParams::default(), &event).await {
            let err = live.error(e, "create", "events", Some(&plan.namespace));
            notes.push(format!(
                "the Event {} on {} could not be recorded: {err}",
                ev.reason, patch.name
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Protocol;

    fn plan_with(confirmation: Option<&str>) -> Plan {
        Plan {
            action: Action::Force,
            namespace: "prod".into(),
            cluster: "cache".into(),
            node: "cache-0-1".into(),
            dry_run: DryRun::None,
            protocol: Protocol::P1,
            decision: Decision::Planned,
            reasons: vec![],
            warnings: vec![],
            patches: vec![],
            events: vec![],
            undo: None,
            confirmation: confirmation.map(str::to_string),
            revision: None,
            other_holders: vec![],
            kept_holders: vec![],
        }
    }

    #[test]
    fn confirmation_is_asked_on_a_terminal_and_refused_off_one() {
        // (case, confirmation, --yes, terminal, step)
        let cases: &[(&str, Option<&str>, bool, bool, Step)] = &[
            ("nothing to confirm", None, false, false, Step::Go),
            ("--yes", Some("q"), true, false, Step::Go),
            ("--yes on a terminal", Some("q"), true, true, Step::Go),
            ("a terminal", Some("q"), false, true, Step::Ask("q".into())),
            ("off a terminal", Some("q"), false, false, Step::Refuse),
        ];
        for (name, confirmation, yes, terminal, want) in cases {
            assert_eq!(
                confirmation_step(&plan_with(*confirmation), *yes, *terminal),
                *want,
                "{name}"
            );
        }
    }
}
