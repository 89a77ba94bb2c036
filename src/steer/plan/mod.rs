//! The steering planner: pure. (snapshot, report, request, now, actor) ->
//! [`Plan`]: the decision, why, the exact patches with the resourceVersion
//! they were decided on, the Events to record and the command that undoes
//! the write. No client, no printing, no clock of its own.
//!
//! The rules are docs/plugin.md's (`grant`, `revoke`, `force`,
//! `replace-pod`); every refusal is a [`Refusal`], every caution a
//! [`Warning`], every question a [`Confirmation`], every difference on a
//! re-plan a [`Change`]: facts
//! (which node, holder, revision, protocol, how long), worded for people
//! by render (`render::steer`), in one place per kind.
//!
//! Three things here are data, not words for people, and stay spelt in
//! the plan: the patch bodies, the Events' notes and reasons (written to
//! the API as they are, and shown by `--dry-run=client` as what will be
//! sent), and the undo command (a shell line to paste, whose `--reason` is
//! written to the node).
//!
//! Here: the request, the plan and [`plan()`], which finds the node and its
//! cluster, settles the protocol and hands over to the per-action rules.
//! - `rules`: grant (P1, P2), revoke and force, and the checks they share.
//! - `refusal`: [`Refusal`], [`Warning`], [`Confirmation`] and [`Change`].
//! - `patch`: the merge patches, the pod delete and the Events' messages.
//! - `undo`: the command that undoes what was written.
//! - `lookup`: the node by name, or the nearest names ([`crate::names`]).

mod lookup;
mod patch;
mod refusal;
mod replace;
mod rules;
mod servers;
mod undo;
pub(crate) mod way_out;

#[cfg(test)]
mod tests;

pub(crate) use patch::{EventObject, EventPlan, EventType, NodePatch, PatchEffect, PodDelete};
pub(crate) use refusal::{
    Change, Confirmation, HolderInfo, Missing, Overridden, PodMoved, PodTrouble, Refusal, Unread,
    Warning,
};
pub(crate) use servers::{NodeReading, ShardReading, servers_line};

pub(crate) use undo::undo_of;
pub(crate) use way_out::Step;

use crate::error::{Exit, Result};
use crate::report::{ClusterReport, NodeReport, Protocol, Report};
use crate::snapshot::{Failure, Snapshot};
use jiff::Timestamp;
use lookup::find_node;
use rules::{force_p1, grant_p1, grant_p2, revoke_p1};
use serde::Serialize;
use std::fmt;

/// What a person asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Action {
    Grant,
    Revoke,
    Force,
    ReplacePod,
}

impl Action {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Action::Grant => "grant",
            Action::Revoke => "revoke",
            Action::Force => "force",
            Action::ReplacePod => "replace-pod",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a steering command asks for: its verb, with the flags that verb
/// takes (docs/plugin.md).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Steer {
    Grant {
        /// `--revision HASH`: write this instead of the asked-for revision.
        revision: Option<String>,
        /// `--any`: write `*` (P1 only).
        any: bool,
        /// `--allow-primary`: the shard's primary may be granted.
        allow_primary: bool,
    },
    Revoke,
    /// Never refused for a primary (it warns instead).
    Force {
        revision: Option<String>,
        any: bool,
        /// `--takeover`: revoke every other holder in the same command.
        takeover: bool,
        /// `--unsafe-shard N`: go on though the servers say shard N would
        /// be left with no synced replica (the shard typed out).
        unsafe_shard: Option<u32>,
    },
    ReplacePod,
}

impl Steer {
    pub(crate) fn action(&self) -> Action {
        match self {
            Steer::Grant { .. } => Action::Grant,
            Steer::Revoke => Action::Revoke,
            Steer::Force { .. } => Action::Force,
            Steer::ReplacePod => Action::ReplacePod,
        }
    }

    /// What `--revision` or `--any` asks to write (grant, force); `None`:
    /// the node's asked-for revision.
    pub(crate) fn value_given(&self) -> Option<String> {
        match self {
            Steer::Grant { revision, any, .. } | Steer::Force { revision, any, .. } => {
                revision.clone().or_else(|| any.then(|| "*".to_string()))
            }
            Steer::Revoke | Steer::ReplacePod => None,
        }
    }

    /// `--any` given (grant, force).
    pub(crate) fn any(&self) -> bool {
        matches!(
            self,
            Steer::Grant { any: true, .. } | Steer::Force { any: true, .. }
        )
    }

    /// `grant --allow-primary`.
    pub(crate) fn allow_primary(&self) -> bool {
        matches!(
            self,
            Steer::Grant {
                allow_primary: true,
                ..
            }
        )
    }

    /// `force --takeover`.
    pub(crate) fn takeover(&self) -> bool {
        matches!(self, Steer::Force { takeover: true, .. })
    }

    /// `force --unsafe-shard N`.
    pub(crate) fn unsafe_shard(&self) -> Option<u32> {
        match self {
            Steer::Force { unsafe_shard, .. } => *unsafe_shard,
            _ => None,
        }
    }
}

/// What a plan knows of reading the servers, beside the readings its
/// snapshot holds (docs/plugin.md, "Steering with the servers' word").
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ServersAsked {
    /// `--servers=off`: decided from the API alone.
    Off,
    /// Read live; `trouble`: why none of the cluster's servers could be
    /// (its Secret forbidden or missing, TLS), when so.
    Live { trouble: Option<Failure> },
    /// A snapshot file: its ServerReading items count.
    File,
}

/// One steering command, as parsed, with the node's namespace settled.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Request {
    pub steer: Steer,
    pub namespace: String,
    pub node: String,
    pub reason: Option<String>,
    /// `--protocol`, for a cluster whose protocol is unknown.
    pub protocol_override: Option<Protocol>,
    pub dry_run: DryRun,
    /// The access flags given, repeated in the undo command.
    pub access: AccessFlags,
    /// Whether the servers were read, and what that gave.
    pub servers: ServersAsked,
}

impl Request {
    pub(crate) fn action(&self) -> Action {
        self.steer.action()
    }
}

/// `--dry-run`: `None` writes, `Client` only plans, `Server` sends every
/// write with `dryRun=All` (no Lease, no Event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DryRun {
    None,
    Client,
    Server,
}

/// The access flags: those that chose the API server and the user
/// (`--kubeconfig`, `--context`, `--cluster`, `--user`, `--as`,
/// `--as-group`; [`crate::source::Access`] as given), so that an undo
/// pasted later reaches the same cluster as the same user.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct AccessFlags {
    pub kubeconfig: Option<String>,
    pub context: Option<String>,
    pub kube_cluster: Option<String>,
    pub user: Option<String>,
    pub impersonate: Option<String>,
    pub impersonate_groups: Vec<String>,
}

/// `planned|written|refused`, as the steering document spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Decision {
    Planned,
    Written,
    Refused,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decision::Planned => "planned",
            Decision::Written => "written",
            Decision::Refused => "refused",
        })
    }
}

/// The planner's answer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Plan {
    pub action: Action,
    pub namespace: String,
    /// The node's ValkeyCluster (empty when it has none).
    pub cluster: String,
    pub node: String,
    pub dry_run: DryRun,
    /// The protocol the plan was made for (the detected one, else
    /// `--protocol`; unknown when neither).
    pub protocol: Protocol,
    pub decision: Decision,
    pub reasons: Vec<Refusal>,
    pub warnings: Vec<Warning>,
    pub patches: Vec<NodePatch>,
    pub events: Vec<EventPlan>,
    pub undo: Option<String>,
    /// What will happen, said before asking; `Some` when the command must
    /// be confirmed (on a terminal, or with `--yes`).
    pub confirmation: Option<Confirmation>,
    /// The permit value written to the node (grant, force).
    pub revision: Option<String>,
    /// Holders other than the node when the plan was made.
    pub other_holders: Vec<String>,
    /// Holders that keep their permit (force without --takeover): the check
    /// after the write does not count them.
    pub kept_holders: Vec<String>,
    /// replace-pod: the pod to delete, with the preconditions it was
    /// decided on.
    pub pod_delete: Option<PodDelete>,
    /// A refused plan: what can help next (`way_out`), never a command
    /// that would be refused too.
    pub way_out: Vec<Step>,
    /// The servers of the node's shard as the plan used them (None: the
    /// node is in no cluster's report).
    pub servers: Option<ShardReading>,
}

impl Plan {
    /// 0 for a plan that goes ahead, 4 for a refusal.
    pub(crate) fn exit(&self) -> Exit {
        match self.decision {
            Decision::Refused => Exit::Refused,
            Decision::Planned | Decision::Written => Exit::Done,
        }
    }

    pub(crate) fn is_refused(&self) -> bool {
        self.decision == Decision::Refused
    }

    /// Turns the plan into a refusal (nothing is written).
    pub(crate) fn refuse(&mut self, refusal: Refusal) {
        let step = way_out::after(&refusal);
        self.decision = Decision::Refused;
        self.reasons.push(refusal);
        self.patches.clear();
        self.events.clear();
        self.undo = None;
        self.confirmation = None;
        self.pod_delete = None;
        if let Some(step) = step
            && !self.way_out.contains(&step)
        {
            self.way_out.push(step);
        }
    }

    /// What must stay equal between two plans of one command for the later
    /// one to be written without asking again: the decision, the value
    /// written, whether it needs confirmation (a newly needed one is a
    /// change) and the set of holders it acts on or leaves. `None` when the
    /// same. `revoked`: holders this command has already revoked (a
    /// takeover interrupted by a conflict), which the later plan no longer
    /// sees as holders.
    pub(crate) fn changed_from(&self, before: &Plan, revoked: &[String]) -> Option<Change> {
        if self.decision != before.decision {
            return Some(Change::Decision {
                decision: self.decision,
                reasons: self.reasons.clone(),
            });
        }
        if self.revision != before.revision {
            return Some(Change::Revision {
                node: self.node.clone(),
                now: self.revision.clone(),
                was: before.revision.clone(),
            });
        }
        // What was not asked about must not be written without asking.
        if let (Some(question), None) = (&self.confirmation, &before.confirmation) {
            return Some(Change::NeedsConfirmation {
                action: self.action,
                node: self.node.clone(),
                question: Box::new(question.clone()),
            });
        }
        // replace-pod deletes one pod: another pod (a new UID) or the same
        // pod changed is not what was shown.
        if self.action == Action::ReplacePod {
            return replace::changed(self.pod_delete.as_ref(), before.pod_delete.as_ref());
        }
        // A revoke acts on its node alone: other holders do not change it.
        if self.action == Action::Revoke {
            return None;
        }
        let was: Vec<String> = before
            .other_holders
            .iter()
            .filter(|h| !revoked.contains(h))
            .cloned()
            .collect();
        if self.other_holders != was {
            return Some(Change::OtherHolders {
                now: self.other_holders.clone(),
                was,
            });
        }
        None
    }
}

/// Makes the plan from `report`, which the caller judged with the
/// request's `--protocol` ([`crate::classify::classify_with_protocol`]), so
/// that a cluster whose nodes show no protocol is read by the given one's
/// rules. Errors (exit 1) only for a node that does not exist. A refused
/// plan says its way out ([`Step`]).
pub(crate) fn plan(
    snapshot: &Snapshot,
    report: &Report,
    request: &Request,
    now: Timestamp,
    actor: &str,
) -> Result<Plan> {
    let mut plan = plan_once(snapshot, report, request, now, actor)?;
    // How the decision was made, refused or not: without (some of) the
    // servers' word.
    if let Some(shard) = &plan.servers
        && let Some(w) = servers::unread_warning(&request.servers, shard)
    {
        plan.warnings.push(w);
    }
    if plan.is_refused() {
        plan.way_out = way_out::way_out(
            &plan,
            &way_out::Against {
                snapshot,
                report,
                request,
                now,
                actor,
            },
        );
    }
    Ok(plan)
}

/// [`plan`] without the way out.
fn plan_once(
    snapshot: &Snapshot,
    report: &Report,
    request: &Request,
    now: Timestamp,
    actor: &str,
) -> Result<Plan> {
    let node_obj = find_node(snapshot, &request.namespace, &request.node)?;
    let found = report.clusters.iter().find_map(|c| {
        (c.namespace == request.namespace)
            .then(|| c.nodes.iter().find(|n| n.name == request.node))
            .flatten()
            .map(|n| (c, n))
    });
    let cluster_name = found
        .map(|(c, _)| c.name.clone())
        .or_else(|| node_obj.cluster_name().map(str::to_string))
        .unwrap_or_default();
    let mut plan = Plan {
        action: request.action(),
        namespace: request.namespace.clone(),
        cluster: cluster_name,
        node: request.node.clone(),
        dry_run: request.dry_run,
        protocol: Protocol::Unknown,
        decision: Decision::Planned,
        reasons: Vec::new(),
        warnings: Vec::new(),
        patches: Vec::new(),
        events: Vec::new(),
        undo: None,
        confirmation: None,
        revision: None,
        other_holders: Vec::new(),
        kept_holders: Vec::new(),
        pod_delete: None,
        way_out: Vec::new(),
        servers: None,
    };
    if let Some((cluster, node)) = found {
        // What the nodes say, until the request's protocol is resolved.
        plan.protocol = cluster.protocol;
        plan.servers = Some(ShardReading::of(cluster, node));
    }
    // The pod's state decides replace-pod, not permits or the protocol;
    // the servers may still say its shard cannot lose it.
    if request.action() == Action::ReplacePod {
        let pod = crate::classify::node_pod(snapshot, &request.namespace, &request.node);
        replace::plan_replace(
            &mut plan,
            pod.as_ref(),
            node_obj.metadata.uid.clone(),
            request,
            actor,
        );
        if let Some((cluster, node)) = found {
            servers::check_replace(cluster, node, request, &mut plan);
        }
        return Ok(plan);
    }
    let Some((cluster, node)) = found.filter(|(_, n)| n.facts.cluster_owned) else {
        plan.refuse(Refusal::Standalone {
            node: request.node.clone(),
        });
        return Ok(plan);
    };
    plan.protocol = match resolve_protocol(cluster, request.protocol_override) {
        Ok(p) => p,
        Err(refusal) => {
            plan.refuse(refusal);
            return Ok(plan);
        }
    };
    let others: Vec<&NodeReport> = cluster
        .nodes
        .iter()
        .filter(|n| n.name != node.name && n.facts.holder)
        .collect();
    plan.other_holders = others.iter().map(|n| n.name.clone()).collect();
    let rv = node_obj
        .metadata
        .resource_version
        .clone()
        .or_else(|| node.facts.resource_version.clone());
    let ctx = RuleInput {
        snapshot,
        cluster,
        node,
        others: &others,
        request,
        now,
        actor,
        rv,
    };
    match (plan.protocol, request.action()) {
        (Protocol::P2, Action::Revoke) => plan.refuse(Refusal::NoRevokeInP2 {
            node: node.name.clone(),
        }),
        (Protocol::P2, Action::Force) => plan.refuse(Refusal::NoForceInP2 {
            node: node.name.clone(),
        }),
        (Protocol::P2, Action::Grant) => grant_p2(&ctx, &mut plan),
        (_, Action::Grant) => grant_p1(&ctx, &mut plan),
        (_, Action::Revoke) => revoke_p1(&ctx, &mut plan),
        (_, Action::Force) => force_p1(&ctx, &mut plan),
        // Planned above, before the protocol.
        (_, Action::ReplacePod) => {}
    }
    Ok(plan)
}

/// Everything the per-action rules read.
struct RuleInput<'a> {
    snapshot: &'a Snapshot,
    cluster: &'a ClusterReport,
    node: &'a NodeReport,
    others: &'a [&'a NodeReport],
    request: &'a Request,
    now: Timestamp,
    actor: &'a str,
    rv: Option<String>,
}

fn resolve_protocol(cluster: &ClusterReport, given: Option<Protocol>) -> Result<Protocol, Refusal> {
    match (cluster.protocol, given) {
        (Protocol::Unknown, None | Some(Protocol::Unknown)) => Err(Refusal::ProtocolUnknown {
            cluster: cluster.name.clone(),
        }),
        (Protocol::Unknown, Some(p)) => Ok(p),
        (detected, Some(given)) if given != detected && given != Protocol::Unknown => {
            Err(Refusal::ProtocolContradicts {
                cluster: cluster.name.clone(),
                detected,
                given,
            })
        }
        (detected, _) => Ok(detected),
    }
}
