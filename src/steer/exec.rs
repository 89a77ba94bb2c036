//! The executor: sends what the planner decided, and nothing it did not see.
//!
//! Order (docs/plugin.md): ask first; only then take the cluster's Lease,
//! re-read, re-plan (a changed decision is reported, not written), send each
//! patch as a JSON merge patch carrying the resourceVersion it was decided
//! on, check for another holder after a grant, record the Events, and
//! release the Lease, also on error. A 409 re-reads and re-plans once.

use crate::classify::classify_with_protocol;
use crate::error::{Error, Exit, Result, Unsent};
use crate::report::{Protocol, Report};
use crate::snapshot::{Snapshot, ValkeyNode, keys};
use crate::source::live::{self, Live};
use crate::source::servers::{self, Reach};
use crate::steer::Steered;
use crate::steer::hooks::{self, Point};
use crate::steer::lease;
use crate::steer::note::{NewPod, Note, SentPatch, StopCause};
use crate::steer::plan::DryRun;
use crate::steer::plan::{
    self, Action, Change, Confirmation, Decision, EventObject, EventPlan, EventType, NodePatch,
    PatchEffect, Plan, PodMoved, Refusal, Request, ServersAsked,
};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use kube::Api;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams, Preconditions};
use std::collections::VecDeque;
use std::time::Duration;

/// Asks a person to confirm; `true` to go ahead. Given the plan as it
/// stands and the question, both facts that the caller words.
pub(crate) trait Confirm {
    fn ask(
        &mut self,
        planned: &Steered,
        question: &Confirmation,
    ) -> impl Future<Output = bool> + Send;
}

/// The report a request is planned from: a cluster whose nodes show no
/// protocol is judged by the request's `--protocol`, if one was given.
pub(crate) fn judge(
    snapshot: &Snapshot,
    now: Timestamp,
    threshold: Duration,
    request: &Request,
) -> Report {
    let assumed = request.protocol_override.unwrap_or(Protocol::Unknown);
    classify_with_protocol(snapshot, now, threshold, assumed)
}

/// How the command was run, beyond the request.
pub(crate) struct Options {
    /// `--yes`.
    pub yes: bool,
    /// stdin is a terminal: a command that needs confirmation may ask.
    pub interactive: bool,
    pub stall_threshold: Duration,
    /// `--now`: the clock for planning and the trace; else the real one,
    /// read at each step. The Lease always runs on the real clock.
    pub now: Option<Timestamp>,
    /// How to reach the servers, read again under the Lease; None:
    /// `--servers=off` (or a file).
    pub servers: Option<Reach>,
}

/// Reads the servers of `cluster` in `namespace` into `snapshot`, as
/// `explain` does (bounded: [`servers::BOUNDS`]); what the plan is to
/// know beside the readings (that none could be read, and why).
pub(crate) async fn read_servers(
    live: &Live,
    snapshot: &mut Snapshot,
    namespace: &str,
    cluster: Option<&str>,
    how: &Reach,
) -> ServersAsked {
    let Some(cluster) = cluster else {
        // A node of no cluster: nothing to read, and its plan is refused
        // as standalone.
        return ServersAsked::Live { trouble: None };
    };
    let accounts = servers::read_into(
        live,
        snapshot,
        Some((namespace, cluster)),
        how,
        servers::BOUNDS,
    )
    .await;
    ServersAsked::Live {
        trouble: accounts.into_iter().next().and_then(|a| a.trouble),
    }
}

impl Options {
    /// The steering commands' one clock: `--now`, else the real one.
    pub(crate) fn now(&self) -> Timestamp {
        self.now.unwrap_or_else(Timestamp::now)
    }
}

/// The plan a person is shown (and asked about) before anything is sent,
/// live or from a file alike: judged with the request's `--protocol`,
/// planned on the options' clock, and refused as a real run would be for
/// want of confirmation ([`predict_confirmation`]).
pub(crate) fn first_plan(
    snapshot: &Snapshot,
    request: &Request,
    opts: &Options,
    actor: &str,
) -> Result<Plan> {
    let now = opts.now();
    let report = judge(snapshot, now, opts.stall_threshold, request);
    let planned = plan::plan(snapshot, &report, request, now, actor)?;
    Ok(predict_confirmation(
        planned,
        request.dry_run,
        opts.yes,
        opts.interactive,
    ))
}

/// Runs a steering request against a cluster. `first` is the snapshot read
/// before (the plan the person is asked about is made from it).
pub(crate) async fn execute<C: Confirm>(
    live: &Live,
    first: &Snapshot,
    request: &Request,
    opts: &Options,
    confirm: &mut C,
) -> Result<Steered> {
    let actor = live::who_am_i(live).await;
    let planned = first_plan(first, request, opts, &actor)?;
    if planned.is_refused() || request.dry_run == DryRun::Client {
        return Ok(Steered::planned(planned));
    }
    if request.dry_run == DryRun::Server {
        // No Lease, no Event, no confirmation: nothing is stored.
        return send(live, planned, request, opts, &actor, None).await;
    }
    let mut planned = planned;
    let confirmed = match confirmation_step(&planned, opts.yes, opts.interactive) {
        Step::Go => true,
        Step::Refuse => false,
        Step::Ask(question) => {
            confirm
                .ask(&Steered::planned(planned.clone()), &question)
                .await
        }
    };
    if !confirmed {
        planned.refuse(Refusal::NotConfirmed {
            action: request.action(),
            node: request.node.clone(),
            asked: opts.interactive,
        });
        return Ok(Steered::planned(planned));
    }

    let holder = lease::holder_identity(&actor);
    let mut guard = match lease::take(
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
    let lease_name = format!("{}/{}", request.namespace, lease::name(&planned.cluster));
    let not_sent = unsent(request.action(), &planned.patches);
    let result = under_lease(live, planned, request, opts, &actor, &mut guard).await;
    // The Lease goes whatever happened; when it cannot be (the server went
    // away), the person is told it is left and for how long.
    let released = guard.release().await;
    match (result, released) {
        (Ok(s), Ok(())) => Ok(s),
        (Ok(mut s), Err(e)) => {
            s.notes.push(Note::LeaseNotReleased {
                lease: lease_name,
                error: e.to_string(),
                expires_after_seconds: u64::from(lease::DURATION_SECONDS.unsigned_abs()),
            });
            Ok(s)
        }
        // Every error out of `under_lease` comes before the first patch was
        // stored (a stop after one is a result, not an error): say so.
        (Err(e), released) => Err(Error::SteeringStopped {
            cause: Box::new(e),
            not_sent,
            lease: lease_name,
            lease_left: released.is_err(),
        }),
    }
}

/// Sends one merge patch and reads the node the API server answers with.
/// The answer is read as every object is ([`crate::snapshot`]'s time
/// clamp included): a node whose condition holds a time after jiff's last
/// one (9999-12-31T23:59:59Z is API-legal) is written all the same, and
/// reading the answer must not turn a done write into an error.
async fn patch_node(
    live: &Live,
    namespace: &str,
    name: &str,
    params: &PatchParams,
    patch: &serde_json::Value,
) -> std::result::Result<ValkeyNode, kube::Error> {
    let url = <kube::api::DynamicObject as kube::Resource>::url_path(
        &crate::snapshot::node_api_resource(),
        Some(namespace),
    );
    let request = kube::core::Request::new(url)
        .patch(name, params, &Patch::Merge(patch))
        .map_err(kube::Error::BuildRequest)?;
    let text = live.client.request_text(request).await?;
    let mut value: serde_json::Value =
        serde_json::from_str(&text).map_err(kube::Error::SerdeError)?;
    crate::snapshot::clamp_late_times(&mut value);
    serde_json::from_value(value).map_err(kube::Error::SerdeError)
}

/// What to do about confirmation before a real write.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Nothing to confirm, or `--yes`.
    Go,
    /// On a terminal: ask this.
    Ask(Confirmation),
    /// Off a terminal without `--yes`: refused (exit 4).
    Refuse,
}

/// A dry run predicts the real run's exit code (docs/plugin.md: "the checks and
/// exit codes are the same"). It never asks; but where the real run would
/// be refused for want of confirmation (off a terminal, without `--yes`),
/// the dry run is refused too (exit 4), saying that a real run would ask.
/// On a terminal, or with `--yes`, it goes on (the plan says a real run
/// asks first). A real run (`--dry-run=none`) is left as it is: it asks
/// or refuses later, in [`execute`].
fn predict_confirmation(mut plan: Plan, dry_run: DryRun, yes: bool, interactive: bool) -> Plan {
    if dry_run != DryRun::None
        && !plan.is_refused()
        && confirmation_step(&plan, yes, interactive) == Step::Refuse
        && let Some(question) = plan.confirmation.clone()
    {
        plan.refuse(Refusal::WouldNeedConfirmation {
            action: plan.action,
            node: plan.node.clone(),
            question: Box::new(question),
        });
    }
    plan
}

fn confirmation_step(plan: &Plan, yes: bool, interactive: bool) -> Step {
    match &plan.confirmation {
        None => Step::Go,
        Some(_) if yes => Step::Go,
        Some(q) if interactive => Step::Ask(q.clone()),
        Some(_) => Step::Refuse,
    }
}

/// The state a plan was made from: the snapshot and its report, and the
/// request with what reading the servers again gave.
struct State {
    snapshot: Snapshot,
    report: Report,
    request: Request,
}

impl State {
    fn plan(&self, opts: &Options, actor: &str) -> Result<Plan> {
        plan::plan(
            &self.snapshot,
            &self.report,
            &self.request,
            opts.now(),
            actor,
        )
    }
}

/// Reads the cluster again, and its servers (they change with no API
/// write: a plan must not go on a reading from before the confirmation).
async fn reread(live: &Live, plan: &Plan, request: &Request, opts: &Options) -> Result<State> {
    let cluster = (!plan.cluster.is_empty()).then_some(plan.cluster.as_str());
    let mut snapshot = live::read(live, Some(&plan.namespace), cluster).await?;
    let mut request = request.clone();
    if let Some(how) = &opts.servers {
        request.servers = read_servers(live, &mut snapshot, &plan.namespace, cluster, how).await;
    }
    let report = judge(&snapshot, opts.now(), opts.stall_threshold, &request);
    Ok(State {
        snapshot,
        report,
        request,
    })
}

async fn under_lease(
    live: &Live,
    before: Plan,
    request: &Request,
    opts: &Options,
    actor: &str,
    guard: &mut lease::Guard,
) -> Result<Steered> {
    // Someone may have written between the first read and the Lease.
    let state = reread(live, &before, request, opts).await?;
    let mut again = state.plan(opts, actor)?;
    if let Some(what) = again.changed_from(&before, &[]) {
        let note = Note::Reread { what: what.clone() };
        if !again.is_refused() {
            again.refuse(Refusal::Changed { what });
        }
        let mut s = Steered::planned(again);
        s.notes.push(note);
        return Ok(s);
    }
    send(live, again, request, opts, actor, Some(guard)).await
}

/// Sends the plan's patches (retrying once after a conflict), renewing the
/// Lease before each, records the Events, and checks for another holder
/// after a grant. `guard`: the Lease (none for a server dry run).
async fn send(
    live: &Live,
    current: Plan,
    request: &Request,
    opts: &Options,
    actor: &str,
    guard: Option<&mut lease::Guard>,
) -> Result<Steered> {
    if request.action() == Action::ReplacePod {
        return send_delete(live, current, request, guard).await;
    }
    let original = current.clone();
    hooks::pause(Point::AfterPlan).await;
    let writes = write_patches(live, current, request, opts, actor, guard).await;
    match writes.stopped {
        Some(stop) => {
            let Writes {
                current,
                written,
                notes,
                ..
            } = writes;
            finish_stopped(live, current, stop, notes, written, &original, request).await
        }
        None => finish_written(live, &original, writes, request, opts).await,
    }
}

/// What the patch loop did: the plan as it stands at the end (re-planned
/// after a conflict), the patches written with the objects the API server
/// answered, notes, and why it stopped early, if it did.
struct Writes {
    current: Plan,
    written: Vec<(NodePatch, ValkeyNode)>,
    notes: Vec<Note>,
    stopped: Option<Stop>,
}

/// Writes the patches one by one, each on the resourceVersion it was
/// decided on. A 409 re-reads and re-plans once ([`replan_after_conflict`]);
/// every other way to stop early is a [`Stop`].
async fn write_patches(
    live: &Live,
    mut current: Plan,
    request: &Request,
    opts: &Options,
    actor: &str,
    mut guard: Option<&mut lease::Guard>,
) -> Writes {
    let mut params = PatchParams {
        field_manager: Some(keys::FIELD_MANAGER.to_string()),
        ..PatchParams::default()
    };
    if request.dry_run == DryRun::Server {
        params = params.dry_run();
    }
    let original = current.clone();
    let mut written: Vec<(NodePatch, ValkeyNode)> = Vec::new();
    let mut notes: Vec<Note> = Vec::new();
    let mut retried = false;
    let mut queue: VecDeque<NodePatch> = current.patches.iter().cloned().collect();
    let stopped = 'writes: {
        while let Some(patch) = queue.pop_front() {
            if patch.resource_version.is_none() {
                break 'writes Some(Stop::Failed(Error::NoResourceVersion {
                    namespace: request.namespace.clone(),
                    name: patch.name.clone(),
                }));
            }
            // A write sequence can outlive the Lease's 30 s: renew it before
            // each patch, and stop once it is someone else's.
            if let Some(g) = guard.as_deref_mut() {
                match g.renew(Timestamp::now()).await {
                    Ok(Ok(())) => {}
                    Ok(Err(refusal)) => break 'writes Some(Stop::Refused(refusal)),
                    Err(e) => break 'writes Some(Stop::Failed(e)),
                }
            }
            match patch_node(live, &request.namespace, &patch.name, &params, &patch.patch).await {
                Ok(obj) => {
                    written.push((patch, obj));
                    if !queue.is_empty() {
                        hooks::pause(Point::BetweenPatches).await;
                    }
                }
                Err(kube::Error::Api(s)) if s.is_conflict() => {
                    // Someone wrote in between: never overwrite what we did
                    // not see.
                    let name = patch.name.clone();
                    if retried {
                        break 'writes Some(Stop::Refused(Refusal::ConflictAgain { node: name }));
                    }
                    retried = true;
                    notes.push(Note::Conflict { node: name });
                    let conflict = Conflict {
                        current: &current,
                        original: &original,
                        written: &written,
                    };
                    match replan_after_conflict(live, conflict, request, opts, actor).await {
                        Replanned::GoOn(again, rest) => {
                            queue = rest;
                            current = again;
                        }
                        Replanned::Changed(again, what) => {
                            notes.push(Note::AfterConflict { what: what.clone() });
                            current = again;
                            break 'writes Some(Stop::Refused(Refusal::Changed { what }));
                        }
                        Replanned::Failed(e) => break 'writes Some(Stop::Failed(e)),
                    }
                }
                Err(e) => {
                    break 'writes Some(Stop::Failed(live.error(
                        e,
                        "patch",
                        "valkeynodes",
                        Some(&request.namespace),
                    )));
                }
            }
        }
        None
    };
    Writes {
        current,
        written,
        notes,
        stopped,
    }
}

/// Where the writes stood when a patch answered 409.
struct Conflict<'a> {
    current: &'a Plan,
    original: &'a Plan,
    written: &'a [(NodePatch, ValkeyNode)],
}

/// The answer of a re-plan after a conflict.
enum Replanned {
    /// Nothing that matters changed: the new plan and the patches still to
    /// send (those not written yet).
    GoOn(Plan, VecDeque<NodePatch>),
    /// The decision changed: the new plan, and what changed.
    Changed(Plan, Change),
    Failed(Error),
}

/// Re-reads and re-plans after a 409: the writes go on only when nothing
/// that matters changed since the plan the person approved.
async fn replan_after_conflict(
    live: &Live,
    at: Conflict<'_>,
    request: &Request,
    opts: &Options,
    actor: &str,
) -> Replanned {
    let again = match reread(live, at.current, request, opts)
        .await
        .and_then(|state| state.plan(opts, actor))
    {
        Ok(again) => again,
        Err(e) => return Replanned::Failed(e),
    };
    let done: Vec<String> = at.written.iter().map(|(p, _)| p.name.clone()).collect();
    if let Some(what) = again.changed_from(at.original, &done) {
        return Replanned::Changed(again, what);
    }
    let rest = again
        .patches
        .iter()
        .filter(|p| !done.contains(&p.name))
        .cloned()
        .collect();
    Replanned::GoOn(again, rest)
}

/// Every patch was written (or, with `--dry-run=server`, accepted): the
/// result, its Events recorded, and after a grant the check for another
/// holder.
async fn finish_written(
    live: &Live,
    original: &Plan,
    writes: Writes,
    request: &Request,
    opts: &Options,
) -> Result<Steered> {
    let Writes {
        current,
        written,
        mut notes,
        ..
    } = writes;
    let mut result = original.clone();
    result.patches = written.iter().map(|(p, _)| p.clone()).collect();
    result.events = events_for(&current, original, &result.patches);
    if request.dry_run == DryRun::Server {
        // The API server accepted the patches; nothing is stored.
        result.decision = Decision::Planned;
        return Ok(Steered {
            plan: result,
            exit: Exit::Done,
            notes,
        });
    }
    result.decision = Decision::Written;
    // The Events first: the write has happened whatever the check finds.
    record_events(live, &result, &written, &mut notes).await;
    hooks::pause(Point::AfterPatch).await;
    let exit = if matches!(request.action(), Action::Grant | Action::Force) {
        check_other_holders(live, &result, request, opts, &mut notes).await
    } else {
        Exit::Done
    };
    Ok(Steered {
        plan: result,
        exit,
        notes,
    })
}

/// After a grant: re-read and name any other node that holds a permit now
/// (exit 6), or say that the check could not run (exit 1; the write stays).
async fn check_other_holders(
    live: &Live,
    result: &Plan,
    request: &Request,
    opts: &Options,
    notes: &mut Vec<Note>,
) -> Exit {
    let after = match reread(live, result, request, opts).await {
        Ok(after) => after,
        Err(e) => {
            notes.push(Note::CheckFailed {
                error: e.to_string(),
            });
            return Exit::Error;
        }
    };
    let mut exit = Exit::Done;
    for n in other_holders_after(&after.report, result) {
        exit = Exit::OtherHolder;
        notes.push(Note::HolderAppeared {
            holder: n.name.clone(),
            state: n.state,
            node: result.node.clone(),
        });
    }
    exit
}

/// How long `replace-pod` watches for the StatefulSet's new pod.
const NEW_POD_WAIT: Duration = Duration::from_secs(10);

/// replace-pod: deletes the pod on the UID and resourceVersion it was
/// decided on (the API server deletes nothing when either moved), records
/// the Event, and says what came next. `guard`: the Lease (none for a
/// server dry run, which sends the delete with dryRun=All and records no
/// Event).
async fn send_delete(
    live: &Live,
    mut current: Plan,
    request: &Request,
    guard: Option<&mut lease::Guard>,
) -> Result<Steered> {
    let dry = request.dry_run == DryRun::Server;
    let Some(d) = current.pod_delete.clone() else {
        return Err(Error::NoPodToDelete {
            node: request.node.clone(),
        });
    };
    hooks::pause(Point::AfterPlan).await;
    if let Some(g) = guard {
        match g.renew(Timestamp::now()).await? {
            Ok(()) => {}
            Err(refusal) => {
                current.refuse(refusal);
                return Ok(Steered::planned(current));
            }
        }
    }
    let api: Api<Pod> = Api::namespaced(live.client.clone(), &request.namespace);
    let params = DeleteParams {
        dry_run: dry,
        preconditions: Some(Preconditions {
            uid: Some(d.uid.clone()),
            resource_version: Some(d.resource_version.clone()),
        }),
        ..DeleteParams::default()
    };
    match api.delete(&d.pod, &params).await {
        Ok(_) => {}
        Err(kube::Error::Api(s)) if s.is_conflict() || s.is_not_found() => {
            let what = if s.is_not_found() {
                PodMoved::Gone
            } else {
                PodMoved::Conflict {
                    message: s.message.clone(),
                }
            };
            current.refuse(Refusal::PodChanged {
                pod: d.pod.clone(),
                what,
            });
            return Ok(Steered::planned(current));
        }
        Err(e) => return Err(live.error(e, "delete", "pods", Some(&request.namespace))),
    }
    let mut notes = Vec::new();
    if dry {
        notes.push(Note::DeleteAccepted {
            pod: d.pod.clone(),
            uid: d.uid.clone(),
        });
        return Ok(Steered {
            plan: current,
            exit: Exit::Done,
            notes,
        });
    }
    current.decision = Decision::Written;
    if let Some(ev) = current.events.first().cloned() {
        record_event(live, &current.namespace, &ev, None, &mut notes).await;
    }
    hooks::pause(Point::AfterPatch).await;
    notes.push(Note::NewPod(
        new_pod(&api, &d, &request.namespace, NEW_POD_WAIT).await,
    ));
    Ok(Steered {
        plan: current,
        exit: Exit::Done,
        notes,
    })
}

/// What came after the delete: the pod recreated under the same name with
/// another UID (and its revision), or that none came within `wait` (not an
/// error: the StatefulSet may be slow).
async fn new_pod(api: &Api<Pod>, d: &plan::PodDelete, namespace: &str, wait: Duration) -> NewPod {
    let deadline = std::time::Instant::now() + wait;
    loop {
        match api.get_opt(&d.pod).await {
            Ok(Some(p)) if p.metadata.uid.as_deref() != Some(d.uid.as_str()) => {
                let revision = p
                    .metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(keys::LABEL_CONTROLLER_REVISION))
                    .cloned();
                return NewPod::Recreated {
                    stateful_set: d.stateful_set.clone(),
                    pod: d.pod.clone(),
                    uid: p.metadata.uid.clone(),
                    revision,
                };
            }
            Ok(_) => {}
            Err(e) => {
                return NewPod::Unreadable {
                    pod: d.pod.clone(),
                    error: e.to_string(),
                };
            }
        }
        if std::time::Instant::now() >= deadline {
            return NewPod::NotYet {
                pod: d.pod.clone(),
                namespace: namespace.to_string(),
                wait_seconds: wait.as_secs(),
            };
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Holders that appeared beside the node: neither it nor one kept on
/// purpose (force without --takeover).
fn other_holders_after<'a>(
    report: &'a Report,
    result: &Plan,
) -> Vec<&'a crate::report::NodeReport> {
    report
        .clusters
        .iter()
        .filter(|c| c.namespace == result.namespace && c.name == result.cluster)
        .flat_map(|c| c.nodes.iter())
        .filter(|n| {
            n.facts.holder && n.name != result.node && !result.kept_holders.contains(&n.name)
        })
        .collect()
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
                .find(|e| e.node() == p.name)
                .cloned()
        })
        .collect()
}

/// Why the writes stopped before the last patch.
enum Stop {
    /// A refusal (a second conflict, a changed re-plan, a lost Lease).
    Refused(Refusal),
    /// An error (a patch or a re-read that failed).
    Failed(Error),
}

impl Stop {
    /// The cause, for a note of a command stopped part-way.
    fn cause(&self) -> StopCause {
        match self {
            Stop::Refused(r) => StopCause::Refused(r.clone()),
            Stop::Failed(e) => StopCause::Failed {
                error: e.to_string(),
            },
        }
    }
}

/// A stop before the last patch. Nothing stored yet: the refusal (exit 4)
/// or the error (exit 1), as if nothing had been tried. Something stored (a
/// takeover's first revokes): decision `written` for what was sent, with
/// its Events and its undo, and exit 1 with what was and was not written.
async fn finish_stopped(
    live: &Live,
    at_stop: Plan,
    stop: Stop,
    mut notes: Vec<Note>,
    written: Vec<(NodePatch, ValkeyNode)>,
    original: &Plan,
    request: &Request,
) -> Result<Steered> {
    let sent: Vec<NodePatch> = written.iter().map(|(x, _)| x.clone()).collect();
    if written.is_empty() || request.dry_run == DryRun::Server {
        let refusal = match stop {
            Stop::Failed(e) => return Err(e),
            Stop::Refused(r) => r,
        };
        let mut p = at_stop;
        if !p.is_refused() {
            p.refuse(refusal);
        }
        if !sent.is_empty() {
            // A server dry run: accepted, not stored.
            notes.push(Note::AcceptedBeforeStop {
                action: request.action(),
                sent: sent_patches(&sent),
            });
        }
        let exit = p.exit();
        return Ok(Steered {
            plan: p,
            exit,
            notes,
        });
    }
    let (result, note) = partly_written(original, &at_stop, stop.cause(), &sent, request);
    notes.push(note);
    record_events(live, &result, &written, &mut notes).await;
    Ok(Steered {
        plan: result,
        exit: Exit::Error,
        notes,
    })
}

/// The result of a command stopped after `sent` was stored: the patches
/// sent, their Events, the undo of exactly those, and a note naming what
/// was written and what was not.
fn partly_written(
    original: &Plan,
    at_stop: &Plan,
    cause: StopCause,
    sent: &[NodePatch],
    request: &Request,
) -> (Plan, Note) {
    let is_sent = |x: &NodePatch| {
        sent.iter()
            .any(|s| s.name == x.name && s.effect == x.effect)
    };
    let unsent: Vec<NodePatch> = original
        .patches
        .iter()
        .filter(|x| !is_sent(x))
        .cloned()
        .collect();
    // Who holds right after what was sent: the holders seen at the stop,
    // less the ones revoked, and the node when it holds (its own earlier
    // permit, or the one just given).
    let revoked = |h: &String| {
        sent.iter()
            .any(|x| &x.name == h && x.effect == PatchEffect::Revoke)
    };
    let mut holding: Vec<String> = at_stop
        .other_holders
        .iter()
        .filter(|h| !revoked(h))
        .cloned()
        .collect();
    let node_holds = original
        .patches
        .iter()
        .filter(|x| x.name == original.node && x.effect == PatchEffect::Grant)
        .any(|x| x.previous.is_some() || is_sent(x));
    if node_holds && !holding.contains(&original.node) {
        holding.push(original.node.clone());
    }
    let mut result = original.clone();
    result.decision = Decision::Written;
    result.reasons.clear();
    result.confirmation = None;
    result.patches = sent.to_vec();
    result.events = events_for(original, original, sent);
    result.undo = plan::undo_of(request, sent, &holding);
    let note = Note::StoppedPartWay {
        action: request.action(),
        cause,
        written: sent_patches(sent),
        not_written: sent_patches(&unsent),
    };
    (result, note)
}

/// Which node each patch is for, and what it does there.
fn sent_patches(patches: &[NodePatch]) -> Vec<SentPatch> {
    patches
        .iter()
        .map(|x| SentPatch {
            node: x.name.clone(),
            effect: x.effect,
        })
        .collect()
}

/// What an error that stopped the command before its first write did not
/// send: each patch, by what it would have done.
fn unsent(action: Action, patches: &[NodePatch]) -> Vec<Unsent> {
    patches
        .iter()
        .map(|x| Unsent {
            verb: match x.effect {
                PatchEffect::Revoke => Action::Revoke.as_str(),
                PatchEffect::Grant => action.as_str(),
            },
            node: x.name.clone(),
        })
        .collect()
}

/// Records one `v1` Event per written patch on its ValkeyNode. A failure
/// is a note, not an error: the write it describes has happened.
async fn record_events(
    live: &Live,
    plan: &Plan,
    written: &[(NodePatch, ValkeyNode)],
    notes: &mut Vec<Note>,
) {
    for (patch, node) in written {
        let Some(ev) = plan.events.iter().find(|e| e.node() == patch.name) else {
            continue;
        };
        record_event(
            live,
            &plan.namespace,
            ev,
            node.metadata.resource_version.clone(),
            notes,
        )
        .await;
    }
}

/// Records the planned Event `ev`, adding what only the write knows: the
/// time, the host, and the node's resourceVersion after its patch. A
/// failure is a note: the write it reports has happened.
async fn record_event(
    live: &Live,
    namespace: &str,
    ev: &EventPlan,
    resource_version: Option<String>,
    notes: &mut Vec<Note>,
) {
    let api: Api<Event> = Api::namespaced(live.client.clone(), namespace);
    let event = event_body(
        ev,
        namespace,
        resource_version,
        Timestamp::now(),
        lease::host_name(),
    );
    if let Err(e) = api.create(&PostParams::default(), &event).await {
        let err = live.error(e, "create", "events", Some(namespace));
        notes.push(Note::EventNotRecorded {
            reason: ev.reason,
            node: ev.node().to_string(),
            error: err.to_string(),
        });
    }
}

/// The `v1` Event of a planned one, at `now`, from `host`.
fn event_body(
    ev: &EventPlan,
    namespace: &str,
    resource_version: Option<String>,
    now: Timestamp,
    host: String,
) -> Event {
    let reference = |o: &EventObject, resource_version: Option<String>| ObjectReference {
        api_version: Some(o.api_version.to_string()),
        kind: Some(o.kind.to_string()),
        name: Some(o.name.clone()),
        namespace: Some(namespace.to_string()),
        uid: o.uid.clone(),
        resource_version,
        ..ObjectReference::default()
    };
    Event {
        metadata: ObjectMeta {
            name: Some(format!("{}.{:x}", ev.node(), now.as_nanosecond())),
            namespace: Some(namespace.to_string()),
            ..ObjectMeta::default()
        },
        involved_object: reference(&ev.regarding, resource_version),
        related: ev.related.as_ref().map(|o| reference(o, None)),
        reason: Some(ev.reason.to_string()),
        message: Some(ev.note.clone()),
        type_: Some(
            match ev.type_ {
                EventType::Normal => "Normal",
                EventType::Warning => "Warning",
            }
            .to_string(),
        ),
        first_timestamp: Some(Time(now)),
        last_timestamp: Some(Time(now)),
        count: Some(1),
        source: Some(EventSource {
            component: Some(ev.reporting_component.to_string()),
            host: Some(host.clone()),
        }),
        reporting_component: Some(ev.reporting_component.to_string()),
        reporting_instance: Some(host),
        ..Event::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The question of the tests' plans that ask one.
    fn question() -> Confirmation {
        Confirmation::Force {
            node: "cache-0-1".into(),
            value: "h1".into(),
            overridden: Vec::new(),
        }
    }

    /// A force plan that asks ([`question`]) when `confirmation` is given.
    fn plan_with(confirmation: Option<&str>) -> Plan {
        let mut p = crate::fixture::sample::plan(Action::Force, "cache-0-1");
        p.confirmation = confirmation.map(|_| question());
        p
    }

    /// The Event sent is the planned one, whole: its type, reason, note,
    /// the node it is about and the pod it relates to come from the plan;
    /// only the time, the host and the resourceVersion from the write.
    #[test]
    fn the_event_sent_is_the_planned_one() {
        let now: Timestamp = "2026-11-29T10:16:11Z".parse().expect("time");
        let pod = EventObject {
            api_version: "v1",
            kind: "Pod",
            name: "cache-0-1-0".into(),
            uid: Some("uid-pod".into()),
        };
        let mut replaced = EventPlan::about_node(
            EventType::Warning,
            "cache-0-1",
            Some("uid-vn".into()),
            keys::EVENT_MANUAL_SUPERSEDED_DELETED,
            "alice deleted pod cache-0-1-0".into(),
        );
        replaced.related = Some(pod);
        let granted = EventPlan::about_node(
            EventType::Normal,
            "cache-0-2",
            None,
            keys::EVENT_MANUAL_GRANTED,
            "alice granted".into(),
        );
        // (planned, resourceVersion after the write, type, related pod)
        let cases = [
            (&replaced, None, "Warning", Some("cache-0-1-0")),
            (&granted, Some("42"), "Normal", None),
        ];
        for (planned, rv, type_, related) in cases {
            let e = event_body(
                planned,
                "prod",
                rv.map(str::to_string),
                now,
                "host-a".into(),
            );
            let about = &e.involved_object;
            assert_eq!(e.type_.as_deref(), Some(type_), "{planned:?}");
            assert_eq!(e.reason.as_deref(), Some(planned.reason));
            assert_eq!(e.message.as_deref(), Some(planned.note.as_str()));
            assert_eq!(about.kind.as_deref(), Some("ValkeyNode"));
            assert_eq!(
                about.api_version.as_deref(),
                Some(crate::snapshot::VALKEY_API_VERSION)
            );
            assert_eq!(about.name.as_deref(), Some(planned.node()));
            assert_eq!(about.namespace.as_deref(), Some("prod"));
            assert_eq!(about.uid, planned.regarding.uid);
            assert_eq!(about.resource_version.as_deref(), rv);
            assert_eq!(
                e.related.as_ref().and_then(|r| r.name.as_deref()),
                related,
                "{planned:?}"
            );
            if let Some(r) = &e.related {
                assert_eq!(r.kind.as_deref(), Some("Pod"));
                assert_eq!(r.uid.as_deref(), Some("uid-pod"));
            }
            assert_eq!(e.reporting_component.as_deref(), Some(keys::FIELD_MANAGER));
            assert_eq!(e.reporting_instance.as_deref(), Some("host-a"));
            assert_eq!(e.last_timestamp, Some(Time(now)));
        }
    }

    fn patch(name: &str, effect: PatchEffect, previous: Option<&str>) -> NodePatch {
        let permit = match effect {
            PatchEffect::Grant => serde_json::json!("h1"),
            PatchEffect::Revoke => serde_json::Value::Null,
        };
        NodePatch {
            kind: "ValkeyNode",
            name: name.into(),
            resource_version: Some(format!("rv-{name}")),
            patch: serde_json::json!({"metadata": {"annotations": {keys::ANN_PERMIT: permit}}}),
            effect,
            previous: previous.map(str::to_string),
            primary: false,
        }
    }

    fn takeover_request() -> Request {
        Request {
            steer: plan::Steer::Force {
                revision: None,
                any: false,
                takeover: true,
                unsafe_shard: None,
            },
            namespace: "prod".into(),
            node: "cache-0-1".into(),
            reason: Some("wedged".into()),
            protocol_override: None,
            dry_run: DryRun::None,
            access: plan::AccessFlags::default(),
            servers: ServersAsked::Off,
        }
    }

    #[test]
    fn a_stop_after_a_first_revoke_reports_it_written() {
        let mut original = plan_with(Some("q"));
        original.patches = vec![
            patch("cache-0-2", PatchEffect::Revoke, Some("h0")),
            patch("cache-0-3", PatchEffect::Revoke, Some("h0")),
            patch("cache-0-1", PatchEffect::Grant, None),
        ];
        original.events = original
            .patches
            .iter()
            .map(|x| {
                let (type_, reason) = match x.effect {
                    PatchEffect::Revoke => (EventType::Normal, keys::EVENT_MANUAL_REVOKED),
                    PatchEffect::Grant => (EventType::Warning, keys::EVENT_MANUAL_FORCED),
                };
                EventPlan::about_node(type_, &x.name, None, reason, format!("about {}", x.name))
            })
            .collect();
        original.other_holders = vec!["cache-0-2".into(), "cache-0-3".into()];
        original.undo = Some("the whole undo".into());
        let sent = vec![original.patches[0].clone()];
        let request = takeover_request();
        let q = "--protocol P1 --revision h0";
        // (case, holders seen at the stop, undo of what was sent)
        let cases: Vec<(&str, Vec<String>, String)> = vec![
            (
                "others still hold: the permit goes back by force",
                vec!["cache-0-3".into(), "cache-0-0".into()],
                format!(
                    "kubectl valkey-roll force cache-0-2 -n prod {q} --reason 'undo force --takeover of cache-0-1' --yes"
                ),
            ),
            (
                "nobody else holds: by grant",
                vec![],
                format!("kubectl valkey-roll grant cache-0-2 -n prod {q}"),
            ),
        ];
        for (name, holders, undo) in cases {
            let mut at_stop = original.clone();
            at_stop.other_holders = holders;
            at_stop.refuse(Refusal::Changed {
                what: Change::OtherHolders {
                    now: vec!["cache-0-3".into(), "cache-0-0".into()],
                    was: vec!["cache-0-3".into()],
                },
            });
            let cause = Stop::Refused(Refusal::Changed {
                what: Change::OtherHolders {
                    now: vec!["cache-0-3".into(), "cache-0-0".into()],
                    was: vec!["cache-0-3".into()],
                },
            })
            .cause();
            let (result, note) = partly_written(&original, &at_stop, cause, &sent, &request);
            assert_eq!(result.decision, Decision::Written, "{name}");
            assert!(result.reasons.is_empty(), "{name}: {:?}", result.reasons);
            assert_eq!(result.patches, sent, "{name}");
            let events: Vec<&str> = result.events.iter().map(|e| e.node()).collect();
            assert_eq!(events, vec!["cache-0-2"], "{name}");
            assert_eq!(result.undo.as_deref(), Some(undo.as_str()), "{name}");
            assert_eq!(
                crate::render::steer::note_in(&note, Protocol::P1),
                "stopped part-way: the cluster changed while it was being written (the other holders are now [cache-0-3, cache-0-0], were [cache-0-3]). Written: the revoke of cache-0-2. Not written: the revoke of cache-0-3, the force of cache-0-1. Check `status` before running anything again",
                "{name}"
            );
            let steered = Steered {
                plan: result,
                exit: Exit::Error,
                notes: vec![note],
            };
            let text = crate::render::steer::text(&steered, false);
            assert!(!text.contains("nothing was written"), "{name}: {text}");
            assert!(text.contains("WRITTEN"), "{name}: {text}");
            assert_eq!(
                crate::render::steer::document(&steered).exit_code,
                1,
                "{name}"
            );
        }
    }

    #[test]
    fn confirmation_is_asked_on_a_terminal_and_refused_off_one() {
        // (case, confirmation, --yes, terminal, step)
        let cases: &[(&str, Option<&str>, bool, bool, Step)] = &[
            ("nothing to confirm", None, false, false, Step::Go),
            ("--yes", Some("q"), true, false, Step::Go),
            ("--yes on a terminal", Some("q"), true, true, Step::Go),
            ("a terminal", Some("q"), false, true, Step::Ask(question())),
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

    #[test]
    fn a_dry_run_predicts_the_real_runs_exit() {
        // (case, dry run, confirmation, --yes, terminal, exit 4)
        type Case<'a> = (&'a str, DryRun, Option<&'a str>, bool, bool, bool);
        let cases: &[Case<'_>] = &[
            (
                "client, off a terminal",
                DryRun::Client,
                Some("q"),
                false,
                false,
                true,
            ),
            (
                "server, off a terminal",
                DryRun::Server,
                Some("q"),
                false,
                false,
                true,
            ),
            (
                "client with --yes",
                DryRun::Client,
                Some("q"),
                true,
                false,
                false,
            ),
            (
                "server with --yes",
                DryRun::Server,
                Some("q"),
                true,
                false,
                false,
            ),
            (
                "client on a terminal",
                DryRun::Client,
                Some("q"),
                false,
                true,
                false,
            ),
            (
                "client, nothing to confirm",
                DryRun::Client,
                None,
                false,
                false,
                false,
            ),
            // The real run refuses later, after it would have asked.
            ("a real run", DryRun::None, Some("q"), false, false, false),
        ];
        for (name, dry, confirmation, yes, terminal, refused) in cases {
            let p = predict_confirmation(plan_with(*confirmation), *dry, *yes, *terminal);
            assert_eq!(p.is_refused(), *refused, "{name}");
            assert_eq!(
                p.exit(),
                if *refused { Exit::Refused } else { Exit::Done },
                "{name}"
            );
            if *refused {
                let text = crate::render::steer::refusal::refusal(&p.reasons[0]);
                assert!(
                    text.contains("a real run would ask first"),
                    "{name}: {text}"
                );
                assert!(text.contains("add --yes"), "{name}: {text}");
                let q = crate::render::steer::confirmation(&question());
                assert!(
                    text.ends_with(&format!("It would ask: {q}")),
                    "{name}: {text}"
                );
                assert!(p.patches.is_empty() && p.undo.is_none(), "{name}");
            }
        }
        // A plan already refused keeps its own reason.
        let mut refused = plan_with(Some("q"));
        refused.refuse(Refusal::HoldsNothing {
            node: "cache-0-1".into(),
        });
        let p = predict_confirmation(refused, DryRun::Client, false, false);
        assert_eq!(p.reasons.len(), 1);
    }
}
