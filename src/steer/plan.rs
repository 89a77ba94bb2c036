//! The steering planner: pure. (snapshot, report, request, now, actor) ->
//! [`Plan`]: the decision, why, the exact patches with the resourceVersion
//! they were decided on, the Events to record and the command that undoes
//! the write. No client, no printing, no clock of its own.
//!
//! The rules are PLUGIN.md's (`grant`, `revoke`, `force`); every refusal is
//! a [`Refusal`] whose `Display` says what and why, every caution a
//! [`Warning`].

use crate::cli::DryRun;
use crate::error::{Error, Exit, Result};
use crate::render::duration::{human, short_hash};
use crate::report::{ClusterReport, EvidenceKind, NodeReport, NodeState, Protocol, Report};
use crate::snapshot::{Snapshot, ValkeyNode, keys};
use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::fmt;

/// What a person asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Grant,
    Revoke,
    Force,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Grant => "grant",
            Action::Revoke => "revoke",
            Action::Force => "force",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One steering command, as parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub action: Action,
    pub namespace: String,
    pub node: String,
    /// `--revision HASH`: write this instead of the asked-for revision.
    pub revision: Option<String>,
    /// `--any`: write `*` (P1 only).
    pub any: bool,
    pub allow_primary: bool,
    pub reason: Option<String>,
    /// `force --takeover`: revoke every other holder in the same command.
    pub takeover: bool,
    /// `--protocol`, for a cluster whose protocol is unknown.
    pub protocol_override: Option<Protocol>,
    pub dry_run: DryRun,
    /// The connection flags given, repeated in the undo command.
    pub connection: Connection,
}

/// The flags that chose the API server and the user (`--kubeconfig`,
/// `--context`, `--cluster`, `--user`, `--as`, `--as-group`), so that an
/// undo pasted later reaches the same cluster as the same user.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    pub kubeconfig: Option<String>,
    pub context: Option<String>,
    pub kube_cluster: Option<String>,
    pub user: Option<String>,
    pub impersonate: Option<String>,
    pub impersonate_groups: Vec<String>,
}

impl Connection {
    /// The flags of a command's global arguments.
    pub fn of(global: &crate::cli::GlobalArgs) -> Connection {
        Connection {
            kubeconfig: global
                .kubeconfig
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            context: global.context.clone(),
            kube_cluster: global.kube_cluster.clone(),
            user: global.user.clone(),
            impersonate: global.impersonate.clone(),
            impersonate_groups: global.impersonate_groups.clone(),
        }
    }
}

/// `planned|written|refused`, as the steering document spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
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

/// A holder as the planner saw it, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HolderInfo {
    pub node: String,
    pub permit: Option<String>,
    pub state: NodeState,
    pub held_for_seconds: Option<u64>,
}

impl HolderInfo {
    fn of(n: &NodeReport) -> HolderInfo {
        HolderInfo {
            node: n.name.clone(),
            permit: n.permit.clone(),
            state: n.state,
            held_for_seconds: n.held_for_seconds,
        }
    }
}

impl fmt::Display for HolderInfo {
    /// `cache-1-1 (Stuck, permit 9f2c41ab03de, held 14m)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}", self.node, self.state)?;
        if let Some(p) = &self.permit {
            write!(f, ", permit {}", short_hash(p))?;
        }
        match self.held_for_seconds {
            Some(s) => write!(f, ", held {})", human(s)),
            None => write!(f, ", held for an unknown time)"),
        }
    }
}

/// Why a steering command writes nothing. Every one exits 4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Another node of the cluster holds a permit.
    OtherHolder(HolderInfo),
    /// The node asks for no revision, and none was given.
    AsksNothing { node: String, protocol: Protocol },
    /// The node asks, but which revision cannot be told.
    AskedRevisionUnknown { node: String, protocol: Protocol },
    /// Not cluster-owned: permits do not apply.
    Standalone { node: String },
    /// The shard's primary, without `--allow-primary`.
    Primary { node: String },
    /// P2: a grant off the walk's front.
    NotFront { node: String, front: Option<String> },
    /// The node already holds exactly what a grant would write.
    AlreadyHeld { node: String, revision: String },
    /// revoke of a node that holds nothing.
    HoldsNothing { node: String },
    /// revoke in P2.
    NoRevokeInP2 { node: String },
    /// force in P2.
    NoForceInP2 { node: String },
    /// `--any` in P2.
    NoAnyInP2,
    /// The cluster's protocol cannot be told and `--protocol` was not given.
    ProtocolUnknown { cluster: String },
    /// `--protocol` says otherwise than the nodes.
    ProtocolContradicts {
        cluster: String,
        detected: Protocol,
        given: Protocol,
    },
    /// Confirmation was needed and not given (off a terminal without
    /// `--yes`, or answered no).
    NotConfirmed {
        action: Action,
        node: String,
        asked: bool,
    },
    /// Another steering command holds the cluster's Lease.
    LeaseHeld {
        lease: String,
        holder: String,
        expires_in_seconds: Option<u64>,
    },
    /// The cluster's Lease stopped being this command's before it was done
    /// (taken over by `holder`, or deleted).
    LeaseLost {
        lease: String,
        holder: Option<String>,
    },
    /// The state changed between the first read and the one under the
    /// Lease (or after a conflict), so what was shown is not what would be
    /// written.
    Changed { what: String },
    /// A second conflict on the same write.
    ConflictAgain { node: String },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::OtherHolder(h) => write!(
                f,
                "{h} already holds a permit, and a cluster has one holder at a time: wait for its roll, `revoke` it, or `force` past it"
            ),
            Refusal::AsksNothing { node, protocol } => match protocol {
                Protocol::P2 => write!(
                    f,
                    "{node} asks for no revision (no WorkloadRollPending condition); give --revision HASH to grant one anyway"
                ),
                _ => write!(
                    f,
                    "{node} asks for no revision (no desired-workload-revision annotation, no WorkloadDrift condition); give --revision HASH, or --any for `*`"
                ),
            },
            Refusal::AskedRevisionUnknown { node, protocol } => match protocol {
                Protocol::P2 => write!(
                    f,
                    "{node} asks, but its WorkloadRollPending message names no hash; give --revision HASH"
                ),
                _ => write!(
                    f,
                    "{node} asks, but neither its desired-workload-revision annotation nor its WorkloadDrift message names a hash; give --revision HASH, or --any for `*`"
                ),
            },
            Refusal::Standalone { node } => write!(
                f,
                "{node} is not owned by a ValkeyCluster (standalone): it ignores permits and applies template changes at once"
            ),
            Refusal::Primary { node } => write!(
                f,
                "{node} is its shard's primary: the controller's proactive failover does not run for a permit given by hand, so its clients lose the primary while it rolls; add --allow-primary to grant it anyway"
            ),
            Refusal::NotFront { node, front } => {
                write!(f, "{node} is not the walk's front")?;
                if let Some(front) = front {
                    write!(f, " ({front} is)")?;
                }
                write!(
                    f,
                    ": in P2 the cluster controller checks no other holder and would advance its front at the same time, so two nodes would roll at once"
                )
            }
            Refusal::AlreadyHeld { node, revision } => write!(
                f,
                "{node} already holds the permit for {}: nothing to write",
                short_hash(revision)
            ),
            Refusal::HoldsNothing { node } => {
                write!(f, "{node} holds no permit: nothing to revoke")
            }
            Refusal::NoRevokeInP2 { node } => write!(
                f,
                "there is no revoke in P2: the cluster controller rewrites {node}'s whole spec and would put spec.workloadRevision back"
            ),
            Refusal::NoForceInP2 { node } => write!(
                f,
                "force exists only in P1: in P2 the permit is {node}'s spec.workloadRevision, which the cluster controller owns; use grant (refused while another node holds)"
            ),
            Refusal::NoAnyInP2 => write!(
                f,
                "--any (a `*` permit) exists only in P1: in P2 the permit is a revision in spec.workloadRevision; give --revision HASH"
            ),
            Refusal::ProtocolUnknown { cluster } => write!(
                f,
                "the protocol of ValkeyCluster {cluster} is unknown (nothing staged in sight: a P1 cluster at rest, or an operator that stages nothing); say which with --protocol P1|P2"
            ),
            Refusal::ProtocolContradicts {
                cluster,
                detected,
                given,
            } => write!(
                f,
                "--protocol {given} contradicts ValkeyCluster {cluster}, whose nodes speak {detected}"
            ),
            Refusal::NotConfirmed {
                action,
                node,
                asked,
            } => {
                if *asked {
                    write!(f, "{action} {node} was not confirmed")
                } else {
                    write!(
                        f,
                        "{action} {node} needs confirmation: run it on a terminal, or add --yes"
                    )
                }
            }
            Refusal::LeaseHeld {
                lease,
                holder,
                expires_in_seconds,
            } => {
                write!(
                    f,
                    "another steering command holds the Lease {lease}: {holder}"
                )?;
                if let Some(s) = expires_in_seconds {
                    write!(f, " (expires in {} unless renewed)", human(*s))?;
                }
                write!(f, "; try again when it is done")
            }
            Refusal::LeaseLost { lease, holder } => {
                match holder {
                    Some(h) => write!(f, "the Lease {lease} was taken over by {h}")?,
                    None => write!(f, "the Lease {lease} was deleted")?,
                }
                write!(
                    f,
                    " before this command was done, so another steering command may be writing: the writes stopped; run the command again when it is done"
                )
            }
            Refusal::Changed { what } => write!(
                f,
                "the cluster changed after the plan was made ({what}); nothing was written: run the command again"
            ),
            Refusal::ConflictAgain { node } => write!(
                f,
                "{node} changed again while it was being written (a second conflict); run the command again"
            ),
        }
    }
}

/// Something a person should know about a plan that goes ahead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// P1: the node is not the walk's front.
    NotFront { node: String, front: Option<String> },
    /// `--allow-primary`, or force on a primary.
    Primary { node: String },
    /// force: another holder, which keeps its permit (or loses it, with
    /// `--takeover`).
    OtherHolder { holder: HolderInfo, takeover: bool },
    /// The node is not healthy.
    NotHealthy { node: String, because: Vec<String> },
    /// The revision written is not the one the node asks for.
    RevisionDiffers {
        node: String,
        written: String,
        asked: Option<String>,
        protocol: Protocol,
    },
    /// The node's own permit is replaced.
    ReplacesPermit { node: String, old: String },
    /// revoke: what it does not do.
    RevokeDoesNotRollBack { node: String },
    /// P2: no undo.
    NoUndoInP2 { node: String },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::NotFront { node, front } => {
                write!(f, "{node} is not the walk's front")?;
                match front {
                    Some(front) => write!(
                        f,
                        " ({front} is): the controller still waits at {front} and may grant it as soon as {node}'s permit is gone"
                    ),
                    None => write!(f, " (no node is waiting at the front)"),
                }
            }
            Warning::Primary { node } => write!(
                f,
                "{node} is its shard's primary: the controller's proactive failover does not run for a permit given by hand; fail over first if you can"
            ),
            Warning::OtherHolder { holder, takeover } => {
                if *takeover {
                    write!(
                        f,
                        "{holder} holds a permit: --takeover revokes it in the same command (its pod is not rolled back)"
                    )
                } else {
                    write!(
                        f,
                        "{holder} holds a permit and keeps it: two nodes may roll at once (add --takeover to revoke it)"
                    )
                }
            }
            Warning::NotHealthy { node, because } => {
                write!(f, "{node} is not healthy")?;
                if !because.is_empty() {
                    write!(f, " ({})", because.join("; "))?;
                }
                Ok(())
            }
            Warning::RevisionDiffers {
                node,
                written,
                asked,
                protocol,
            } => {
                write!(f, "{node} gets {} but ", short_hash(written))?;
                match asked {
                    Some(a) => write!(f, "asks for {}", short_hash(a))?,
                    None => write!(f, "asks for no revision")?,
                }
                match protocol {
                    Protocol::P2 => write!(
                        f,
                        ": the node rolls only when its template hashes to spec.workloadRevision"
                    ),
                    _ => write!(
                        f,
                        ": the node controller drops a permit that is neither `*` nor its desired revision"
                    ),
                }
            }
            Warning::ReplacesPermit { node, old } => {
                write!(f, "{node}'s permit {} is replaced", short_hash(old))
            }
            Warning::RevokeDoesNotRollBack { node } => write!(
                f,
                "revoking does not roll {node}'s pod back, and the controller keeps waiting for {node} to become Ready before it moves on (it walks the nodes in order): a broken node stays a block until it is fixed (revert the template; delete a superseded pod) or a permit is forced elsewhere"
            ),
            Warning::NoUndoInP2 { node } => write!(
                f,
                "there is no undo: the cluster controller owns {node}'s spec.workloadRevision (it rewrites the whole spec)"
            ),
        }
    }
}

/// What one patch does to its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchEffect {
    /// Sets the permit (P1 annotation or P2 spec.workloadRevision).
    Grant,
    /// Removes the permit and the trace.
    Revoke,
}

/// One JSON merge patch of one ValkeyNode.
#[derive(Clone, Debug, PartialEq)]
pub struct NodePatch {
    pub kind: &'static str,
    pub name: String,
    /// The resourceVersion the patch was decided on (also in its body).
    pub resource_version: Option<String>,
    pub patch: Value,
    pub effect: PatchEffect,
    /// The permit the node held when the patch was decided (P1), which an
    /// undo gives back.
    pub previous: Option<String>,
    /// The node's `status.role` is `primary` (an undo's grant needs
    /// `--allow-primary`).
    pub primary: bool,
}

/// A `v1` Event to record on a ValkeyNode once its patch is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventPlan {
    pub node: String,
    pub reason: &'static str,
    pub message: String,
}

/// The planner's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
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
    pub confirmation: Option<String>,
    /// The permit value written to the node (grant, force).
    pub revision: Option<String>,
    /// Holders other than the node when the plan was made.
    pub other_holders: Vec<String>,
    /// Holders that keep their permit (force without --takeover): the check
    /// after the write does not count them.
    pub kept_holders: Vec<String>,
}

impl Plan {
    /// 0 for a plan that goes ahead, 4 for a refusal.
    pub fn exit(&self) -> Exit {
        match self.decision {
            Decision::Refused => Exit::Refused,
            Decision::Planned | Decision::Written => Exit::Done,
        }
    }

    pub fn is_refused(&self) -> bool {
        self.decision == Decision::Refused
    }

    /// Turns the plan into a refusal (nothing is written).
    pub fn refuse(&mut self, refusal: Refusal) {
        self.decision = Decision::Refused;
        self.reasons.push(refusal);
        self.patches.clear();
        self.events.clear();
        self.undo = None;
        self.confirmation = None;
    }

    /// What must stay equal between two plans of one command for the later
    /// one to be written without asking again: the decision, the value
    /// written, whether it needs confirmation (a newly needed one is a
    /// change) and the set of holders it acts on or leaves. `None` when the
    /// same. `revoked`: holders this command has already revoked (a
    /// takeover interrupted by a conflict), which the later plan no longer
    /// sees as holders.
    pub fn changed_from(&self, before: &Plan, revoked: &[String]) -> Option<String> {
        if self.decision != before.decision {
            return Some(format!(
                "the decision is now {}: {}",
                self.decision,
                join(&self.reasons)
            ));
        }
        if self.revision != before.revision {
            return Some(format!(
                "{} would now get {} instead of {}",
                self.node,
                self.revision.as_deref().map_or("nothing", short_hash),
                before.revision.as_deref().map_or("nothing", short_hash),
            ));
        }
        // What was not asked about must not be written without asking.
        if let (Some(question), None) = (&self.confirmation, &before.confirmation) {
            return Some(format!(
                "{} {} now needs confirmation: {question}",
                self.action, self.node
            ));
        }
        // A revoke acts on its node alone: other holders do not change it.
        if self.action == Action::Revoke {
            return None;
        }
        let was: Vec<&String> = before
            .other_holders
            .iter()
            .filter(|h| !revoked.contains(h))
            .collect();
        let now: Vec<&String> = self.other_holders.iter().collect();
        if now != was {
            let list = |v: &[&String]| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
            return Some(format!(
                "the other holders are now [{}], were [{}]",
                list(&now),
                list(&was)
            ));
        }
        None
    }
}

fn join<T: fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Makes the plan. Errors (exit 1) only for a node that does not exist.
pub fn plan(
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
        .or_else(|| node_obj.cluster_label().map(str::to_string))
        .or_else(|| node_obj.controller_cluster().map(str::to_string))
        .unwrap_or_default();
    let mut plan = Plan {
        action: request.action,
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
    };
    if let Some((cluster, _)) = found {
        // What the nodes say, until the request's protocol is resolved.
        plan.protocol = cluster.protocol;
    }
    let Some((cluster, node)) = found.filter(|(_, n)| n.facts.cluster_owned) else {
        plan.refuse(Refusal::Standalone {
            node: request.node.clone(),
        });
        return Ok(plan);
    };
    // A cluster whose nodes show no protocol was classified by P1's rules:
    // with --protocol, judge it again by the given protocol's (P2 names
    // other holders and another front).
    if cluster.protocol == Protocol::Unknown
        && let Some(given @ (Protocol::P1 | Protocol::P2)) = request.protocol_override
    {
        let threshold = std::time::Duration::from_secs(cluster.stall_threshold_seconds);
        let again = crate::classify::classify_with_protocol(snapshot, now, threshold, given);
        let judged = again.clusters.iter().any(|c| {
            c.namespace == cluster.namespace && c.name == cluster.name && c.protocol == given
        });
        // Judged again, the cluster shows `given`: this does not come back.
        if judged {
            return self::plan(snapshot, &again, request, now, actor);
        }
    }
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
    let ctx = Ctx {
        snapshot,
        cluster,
        node,
        others: &others,
        request,
        now,
        actor,
        rv,
    };
    match (plan.protocol, request.action) {
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
    }
    Ok(plan)
}

/// Everything the per-action rules read.
struct Ctx<'a> {
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

/// The value a grant or force writes: `--revision`, `*` for `--any`, else
/// the asked-for revision. Refuses when there is none.
fn value_to_write(c: &Ctx<'_>, protocol: Protocol) -> Result<String, Refusal> {
    if let Some(r) = &c.request.revision {
        return Ok(r.clone());
    }
    if c.request.any {
        return Ok("*".to_string());
    }
    let node = c.node.name.clone();
    match (&c.node.desired_revision, c.node.facts.asks) {
        (Some(h), _) => Ok(h.clone()),
        (None, true) => Err(Refusal::AskedRevisionUnknown { node, protocol }),
        (None, false) => Err(Refusal::AsksNothing { node, protocol }),
    }
}

fn grant_p1(c: &Ctx<'_>, plan: &mut Plan) {
    let mut refusals: Vec<Refusal> = c
        .others
        .iter()
        .map(|o| Refusal::OtherHolder(HolderInfo::of(o)))
        .collect();
    let value = value_to_write(c, Protocol::P1);
    if let Err(r) = &value {
        refusals.push(r.clone());
    }
    if claims_primary_role(c.node) && !c.request.allow_primary {
        refusals.push(Refusal::Primary {
            node: c.node.name.clone(),
        });
    }
    if let Ok(v) = &value
        && c.node.facts.holder
        && c.node.permit.as_deref() == Some(v.as_str())
    {
        refusals.push(Refusal::AlreadyHeld {
            node: c.node.name.clone(),
            revision: v.clone(),
        });
    }
    if !refusals.is_empty() {
        for r in refusals {
            plan.refuse(r);
        }
        return;
    }
    let Ok(value) = value else { return };
    if claims_primary_role(c.node) {
        plan.warnings.push(Warning::Primary {
            node: c.node.name.clone(),
        });
    }
    common_grant_warnings(c, plan, &value, Protocol::P1);
    not_front_warning(c, plan);
    plan.patches.push(grant_patch(
        c,
        &c.node.name,
        c.rv.clone(),
        &value,
        Protocol::P1,
    ));
    plan.events.push(EventPlan {
        node: c.node.name.clone(),
        reason: keys::EVENT_MANUAL_GRANTED,
        message: event_message(c, "granted the roll permit", Some(&value), None),
    });
    plan.undo = undo_of(c.request, &plan.patches, std::slice::from_ref(&c.node.name));
    plan.revision = Some(value);
}

fn grant_p2(c: &Ctx<'_>, plan: &mut Plan) {
    let mut refusals: Vec<Refusal> = c
        .others
        .iter()
        .map(|o| Refusal::OtherHolder(HolderInfo::of(o)))
        .collect();
    if c.request.any {
        refusals.push(Refusal::NoAnyInP2);
    }
    let value = value_to_write(c, Protocol::P2);
    if !c.request.any
        && let Err(r) = &value
    {
        refusals.push(r.clone());
    }
    if claims_primary_role(c.node) && !c.request.allow_primary {
        refusals.push(Refusal::Primary {
            node: c.node.name.clone(),
        });
    }
    if c.cluster.front.as_deref() != Some(c.node.name.as_str()) {
        refusals.push(Refusal::NotFront {
            node: c.node.name.clone(),
            front: c.cluster.front.clone(),
        });
    }
    if let Ok(v) = &value
        && c.node.permit.as_deref() == Some(v.as_str())
    {
        refusals.push(Refusal::AlreadyHeld {
            node: c.node.name.clone(),
            revision: v.clone(),
        });
    }
    if !refusals.is_empty() {
        for r in refusals {
            plan.refuse(r);
        }
        return;
    }
    let Ok(value) = value else { return };
    if claims_primary_role(c.node) {
        plan.warnings.push(Warning::Primary {
            node: c.node.name.clone(),
        });
    }
    common_grant_warnings(c, plan, &value, Protocol::P2);
    plan.warnings.push(Warning::NoUndoInP2 {
        node: c.node.name.clone(),
    });
    plan.patches.push(grant_patch(
        c,
        &c.node.name,
        c.rv.clone(),
        &value,
        Protocol::P2,
    ));
    plan.events.push(EventPlan {
        node: c.node.name.clone(),
        reason: keys::EVENT_MANUAL_GRANTED,
        message: event_message(c, "set spec.workloadRevision", Some(&value), None),
    });
    plan.revision = Some(value);
}

fn revoke_p1(c: &Ctx<'_>, plan: &mut Plan) {
    let Some(old) = c.node.permit.clone().filter(|_| c.node.facts.holder) else {
        plan.refuse(Refusal::HoldsNothing {
            node: c.node.name.clone(),
        });
        return;
    };
    plan.warnings.push(Warning::RevokeDoesNotRollBack {
        node: c.node.name.clone(),
    });
    if !c.node.facts.healthy {
        plan.warnings.push(Warning::NotHealthy {
            node: c.node.name.clone(),
            because: c.node.facts.unhealthy_because.clone(),
        });
    }
    // PLUGIN.md asks before revoking a holder whose *pod* is unhealthy; a
    // Settling holder (pod Ready, node status not ready yet) goes ahead.
    if let Some(because) = pod_unhealthy_because(c.node) {
        plan.confirmation = Some(format!(
            "{node} holds the permit for {h} and its pod is not healthy{because}. Revoking does not roll its pod back, and the controller keeps waiting for {node} to become Ready before it moves on (it walks the nodes in order), so {node} stays a block until it is fixed (revert the template; delete a superseded pod) or a permit is forced elsewhere.",
            node = c.node.name,
            h = short_hash(&old),
            because = because_suffix(&because),
        ));
    }
    plan.patches.push(revoke_patch(c.node, c.rv.clone()));
    plan.events.push(EventPlan {
        node: c.node.name.clone(),
        reason: keys::EVENT_MANUAL_REVOKED,
        message: event_message(c, "revoked the roll permit", Some(&old), None),
    });
    // The other holders keep theirs: giving the permit back then needs force.
    plan.undo = undo_of(c.request, &plan.patches, &plan.other_holders);
}

fn force_p1(c: &Ctx<'_>, plan: &mut Plan) {
    let value = match value_to_write(c, Protocol::P1) {
        Ok(v) => v,
        Err(r) => {
            plan.refuse(r);
            return;
        }
    };
    // Force goes past the checks grant would refuse on; each one becomes a
    // warning, and the confirmation repeats them.
    let mut overridden: Vec<String> = Vec::new();
    for o in c.others {
        let holder = HolderInfo::of(o);
        overridden.push(if c.request.takeover {
            format!("{holder} loses its permit (its pod is not rolled back)")
        } else {
            format!("{holder} keeps its permit, so two nodes may roll at once")
        });
        plan.warnings.push(Warning::OtherHolder {
            holder,
            takeover: c.request.takeover,
        });
    }
    if claims_primary_role(c.node) {
        overridden.push(format!(
            "{} is its shard's primary, and the controller's proactive failover does not run for a permit given by hand",
            c.node.name
        ));
        plan.warnings.push(Warning::Primary {
            node: c.node.name.clone(),
        });
    }
    if let Some(front) = c.cluster.front.as_deref()
        && front != c.node.name
    {
        overridden.push(format!(
            "{} is not the walk's front ({front} is)",
            c.node.name
        ));
    }
    not_front_warning(c, plan);
    common_grant_warnings(c, plan, &value, Protocol::P1);

    if c.request.takeover {
        for o in c.others {
            let rv = node_rv(c.snapshot, &c.request.namespace, o);
            plan.patches.push(revoke_patch(o, rv));
            plan.events.push(EventPlan {
                node: o.name.clone(),
                reason: keys::EVENT_MANUAL_REVOKED,
                message: event_message(
                    c,
                    "revoked the roll permit",
                    o.permit.as_deref(),
                    Some(&format!("force --takeover for {}", c.node.name)),
                ),
            });
        }
    } else {
        plan.kept_holders = plan.other_holders.clone();
    }
    plan.patches.push(grant_patch(
        c,
        &c.node.name,
        c.rv.clone(),
        &value,
        Protocol::P1,
    ));
    plan.events.push(EventPlan {
        node: c.node.name.clone(),
        reason: keys::EVENT_MANUAL_FORCED,
        message: event_message(c, "forced the roll permit", Some(&value), None),
    });

    let mut holding = plan.kept_holders.clone();
    holding.push(c.node.name.clone());
    plan.undo = undo_of(c.request, &plan.patches, &holding);

    let mut text = format!(
        "This forces the permit for {} onto {}, past the safety checks",
        short_hash(&value),
        c.node.name
    );
    if overridden.is_empty() {
        text.push_str(" (none of them refuses it now).");
    } else {
        text.push_str(": ");
        text.push_str(&overridden.join("; "));
        text.push('.');
    }
    plan.confirmation = Some(text);
    plan.revision = Some(value);
}

/// The primary check of grant and force: the node's own `status.role`
/// (PLUGIN.md), not the shard's one ready primary the walk uses, so a primary
/// that is not ready, or one of two nodes claiming the role, counts too.
fn claims_primary_role(n: &NodeReport) -> bool {
    n.role.as_deref() == Some("primary")
}

/// Why the node's pod (or its workload) is unhealthy, or `None` when its
/// pod is Ready and neither shows failure evidence. A pod that cannot be
/// found counts as unhealthy: nothing says it runs.
fn pod_unhealthy_because(n: &NodeReport) -> Option<Vec<String>> {
    let mut because = Vec::new();
    match (n.facts.pod_ready, n.pod.as_deref()) {
        (Some(true), _) => {}
        (Some(false), Some(pod)) => because.push(format!("pod {pod} not Ready")),
        (Some(false), None) => because.push("pod not Ready".to_string()),
        (None, _) => because.push("its pod is not found".to_string()),
    }
    because.extend(
        n.evidence
            .iter()
            .filter(|e| {
                !matches!(
                    e.kind,
                    EvidenceKind::HeldOverThreshold | EvidenceKind::NotReleased
                )
            })
            .map(|e| e.message.clone()),
    );
    (!because.is_empty()).then_some(because)
}

fn because_suffix(because: &[String]) -> String {
    if because.is_empty() {
        String::new()
    } else {
        format!(" ({})", because.join("; "))
    }
}

fn not_front_warning(c: &Ctx<'_>, plan: &mut Plan) {
    if c.cluster.front.as_deref() != Some(c.node.name.as_str()) {
        plan.warnings.push(Warning::NotFront {
            node: c.node.name.clone(),
            front: c.cluster.front.clone(),
        });
    }
}

fn common_grant_warnings(c: &Ctx<'_>, plan: &mut Plan, value: &str, protocol: Protocol) {
    if !c.node.facts.healthy {
        plan.warnings.push(Warning::NotHealthy {
            node: c.node.name.clone(),
            because: c.node.facts.unhealthy_because.clone(),
        });
    }
    if value != "*" && c.node.desired_revision.as_deref() != Some(value) {
        plan.warnings.push(Warning::RevisionDiffers {
            node: c.node.name.clone(),
            written: value.to_string(),
            asked: c.node.desired_revision.clone(),
            protocol,
        });
    }
    if protocol == Protocol::P1
        && c.node.facts.holder
        && let Some(old) = c.node.permit.as_deref()
        && old != value
    {
        plan.warnings.push(Warning::ReplacesPermit {
            node: c.node.name.clone(),
            old: old.to_string(),
        });
    }
}

fn node_rv(snapshot: &Snapshot, namespace: &str, n: &NodeReport) -> Option<String> {
    snapshot
        .nodes
        .iter()
        .find(|o| o.namespace() == namespace && o.name() == n.name)
        .and_then(|o| o.metadata.resource_version.clone())
        .or_else(|| n.facts.resource_version.clone())
}

/// `metadata` of a merge patch: the resourceVersion it was decided on (the
/// API server answers 409 when the object moved since) and annotations.
fn metadata(rv: Option<String>, annotations: Map<String, Value>) -> Value {
    let mut meta = Map::new();
    if let Some(rv) = rv {
        meta.insert("resourceVersion".into(), Value::String(rv));
    }
    meta.insert("annotations".into(), Value::Object(annotations));
    Value::Object(meta)
}

fn grant_patch(
    c: &Ctx<'_>,
    name: &str,
    rv: Option<String>,
    value: &str,
    protocol: Protocol,
) -> NodePatch {
    let mut ann = Map::new();
    if protocol != Protocol::P2 {
        ann.insert(keys::ANN_PERMIT.into(), json!(value));
    }
    ann.insert(keys::ANN_GRANTED_REVISION.into(), json!(value));
    ann.insert(keys::ANN_GRANTED_BY.into(), json!(c.actor));
    ann.insert(
        keys::ANN_GRANTED_AT.into(),
        json!(crate::render::duration::timestamp(c.now)),
    );
    // A missing reason is written as null: the trace outlives its permit,
    // and an old reason must not be read as this grant's.
    ann.insert(
        keys::ANN_REASON.into(),
        c.request
            .reason
            .as_deref()
            .map_or(Value::Null, |r| json!(r)),
    );
    let mut body = Map::new();
    body.insert("metadata".into(), metadata(rv.clone(), ann));
    if protocol == Protocol::P2 {
        body.insert("spec".into(), json!({ "workloadRevision": value }));
    }
    NodePatch {
        kind: "ValkeyNode",
        name: name.to_string(),
        resource_version: rv,
        patch: Value::Object(body),
        effect: PatchEffect::Grant,
        previous: c.node.permit.clone().filter(|_| c.node.facts.holder),
        primary: claims_primary_role(c.node),
    }
}

fn revoke_patch(node: &NodeReport, rv: Option<String>) -> NodePatch {
    let mut ann = Map::new();
    for key in [
        keys::ANN_PERMIT,
        keys::ANN_GRANTED_REVISION,
        keys::ANN_GRANTED_BY,
        keys::ANN_GRANTED_AT,
        keys::ANN_REASON,
    ] {
        ann.insert(key.into(), Value::Null);
    }
    NodePatch {
        kind: "ValkeyNode",
        name: node.name.clone(),
        resource_version: rv.clone(),
        patch: json!({ "metadata": metadata(rv, ann) }),
        effect: PatchEffect::Revoke,
        previous: node.permit.clone(),
        primary: claims_primary_role(node),
    }
}

/// `alice granted the roll permit for 9f2c41ab03de by hand: reason`
fn event_message(c: &Ctx<'_>, what: &str, value: Option<&str>, why: Option<&str>) -> String {
    let mut m = format!("{} {what}", c.actor);
    if let Some(v) = value {
        m.push_str(&format!(" for {}", short_hash(v)));
    }
    m.push_str(" by hand (kubectl valkey-roll)");
    match why.or(c.request.reason.as_deref()) {
        Some(r) => m.push_str(&format!(": {r}")),
        None => m.push_str("; no reason given"),
    }
    m
}

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
pub fn undo_of(request: &Request, written: &[NodePatch], holding: &[String]) -> Option<String> {
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
/// a reason and --yes). Every line repeats the connection flags and `-n`,
/// and a grant or force says `--protocol P1`: once the permits are gone, a
/// cluster at rest shows no protocol.
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
        let mut line = format!(
            "kubectl valkey-roll {verb} {name} -n {}",
            shell_quote(&request.namespace)
        );
        for flag in connection_flags(&request.connection) {
            line.push(' ');
            line.push_str(&flag);
        }
        match step.old {
            None => holding.retain(|h| *h != name),
            Some(old) => {
                line.push_str(&format!(" --protocol P1 {}", revision_flag(old)));
                if others_hold {
                    line.push_str(&format!(
                        " --reason {} --yes",
                        shell_quote(&format!(
                            "undo {} of {}",
                            what_was_done(request),
                            request.node
                        ))
                    ));
                } else if step.primary {
                    line.push_str(" --allow-primary");
                }
                holding.push(name);
            }
        }
        lines.push(line);
    }
    lines.join(" && ")
}

/// `grant`, `revoke`, `force` or `force --takeover`, for an undo's reason.
fn what_was_done(request: &Request) -> String {
    match request.action {
        Action::Force if request.takeover => "force --takeover".to_string(),
        a => a.to_string(),
    }
}

/// `--kubeconfig P --context C --cluster K --user U --as A --as-group G...`,
/// each word quoted for the shell.
fn connection_flags(conn: &Connection) -> Vec<String> {
    let mut flags = Vec::new();
    let mut add = |flag: &str, value: &Option<String>| {
        if let Some(v) = value {
            flags.push(format!("{flag} {}", shell_quote(v)));
        }
    };
    add("--kubeconfig", &conn.kubeconfig);
    add("--context", &conn.context);
    add("--cluster", &conn.kube_cluster);
    add("--user", &conn.user);
    add("--as", &conn.impersonate);
    for g in &conn.impersonate_groups {
        flags.push(format!("--as-group {}", shell_quote(g)));
    }
    flags
}

fn revision_flag(value: &str) -> String {
    if value == "*" {
        "--any".to_string()
    } else {
        format!("--revision {}", shell_quote(value))
    }
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|ch| ch.is_ascii_alphanumeric() || "-_./:=@".contains(ch));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The ValkeyNode, or an error naming the nearest names in its namespace.
fn find_node<'a>(snapshot: &'a Snapshot, namespace: &str, name: &str) -> Result<&'a ValkeyNode> {
    if let Some(n) = snapshot
        .nodes
        .iter()
        .find(|n| n.namespace() == namespace && n.name() == name)
    {
        return Ok(n);
    }
    let names: Vec<&str> = snapshot
        .nodes
        .iter()
        .filter(|n| n.namespace() == namespace)
        .map(ValkeyNode::name)
        .collect();
    Err(Error::NotFound {
        kind: "ValkeyNode",
        namespace: namespace.to_string(),
        name: name.to_string(),
        nearest: nearest(name, &names),
    })
}

/// Up to three names within a small edit distance of `name`, nearest first.
pub fn nearest(name: &str, candidates: &[&str]) -> Vec<String> {
    let limit = (name.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .iter()
        .map(|c| (levenshtein(name, c), *c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.dedup();
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_string())
        .collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Evidence, GrantSource, NodeFacts, Verdict};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    const H: &str = "9f2c41ab03de55aa66bb77cc88dd99ee";
    const OLD: &str = "41ab77c0e1f2d3c4b5a6978812345678";
    const NS: &str = "prod";

    fn now() -> Timestamp {
        "2026-11-29T10:16:11Z".parse().unwrap()
    }

    fn node(name: &str, state: NodeState) -> NodeReport {
        NodeReport {
            name: name.into(),
            shard: None,
            index: None,
            role: Some("replica".into()),
            state,
            queue_position: None,
            permit: None,
            desired_revision: None,
            last_rollout_hash: None,
            ready: true,
            pod: None,
            held_for_seconds: None,
            granted_at: None,
            granted_at_source: GrantSource::Unknown,
            granted_by: None,
            grant_reason: None,
            waiting_for_seconds: None,
            reason: String::new(),
            evidence: Vec::new(),
            facts: NodeFacts {
                cluster_owned: true,
                healthy: true,
                pod_ready: Some(true),
                ..NodeFacts::default()
            },
        }
    }

    fn waiting(name: &str) -> NodeReport {
        let mut n = node(name, NodeState::Waiting);
        n.desired_revision = Some(H.into());
        n.facts.asks = true;
        n
    }

    fn converged(name: &str) -> NodeReport {
        node(name, NodeState::Converged)
    }

    fn holder(name: &str, state: NodeState, permit: &str, held: Option<u64>) -> NodeReport {
        let mut n = node(name, state);
        n.permit = Some(permit.into());
        n.held_for_seconds = held;
        n.facts.holder = true;
        n
    }

    fn primary(mut n: NodeReport) -> NodeReport {
        n.role = Some("primary".into());
        n.facts.is_primary = true;
        n
    }

    fn unhealthy(mut n: NodeReport, why: &str) -> NodeReport {
        n.facts.healthy = false;
        n.ready = false;
        n.facts.unhealthy_because = vec![why.into()];
        n
    }

    /// The node's pod is not Ready and crash-loops.
    fn crashing(mut n: NodeReport) -> NodeReport {
        n = unhealthy(n, "pod not Ready");
        n.pod = Some(format!("valkey-{}-0", n.name));
        n.facts.pod_ready = Some(false);
        n.evidence.push(Evidence {
            kind: EvidenceKind::CrashLoopBackOff,
            message: "container server waiting: CrashLoopBackOff (restarts 7)".into(),
        });
        n
    }

    /// One cluster `cache` in `prod`; the front is the first Waiting or
    /// Blocking node, as the classifier says.
    struct Scene {
        protocol: Protocol,
        nodes: Vec<NodeReport>,
    }

    impl Scene {
        fn p1(nodes: Vec<NodeReport>) -> Scene {
            Scene {
                protocol: Protocol::P1,
                nodes,
            }
        }
        fn p2(nodes: Vec<NodeReport>) -> Scene {
            Scene {
                protocol: Protocol::P2,
                nodes,
            }
        }
        fn unknown(nodes: Vec<NodeReport>) -> Scene {
            Scene {
                protocol: Protocol::Unknown,
                nodes,
            }
        }
        fn build(&self) -> (Snapshot, Report) {
            let snapshot = Snapshot {
                nodes: self
                    .nodes
                    .iter()
                    .map(|n| ValkeyNode {
                        metadata: ObjectMeta {
                            name: Some(n.name.clone()),
                            namespace: Some(NS.into()),
                            resource_version: Some(format!("rv-{}", n.name)),
                            ..ObjectMeta::default()
                        },
                        ..ValkeyNode::default()
                    })
                    .collect(),
                ..Snapshot::default()
            };
            let front = self
                .nodes
                .iter()
                .find(|n| matches!(n.state, NodeState::Waiting | NodeState::Blocking))
                .map(|n| n.name.clone());
            let cluster = ClusterReport {
                namespace: NS.into(),
                name: "cache".into(),
                protocol: self.protocol,
                verdict: Verdict::Waiting,
                reason: String::new(),
                holders: self
                    .nodes
                    .iter()
                    .filter(|n| n.facts.holder)
                    .map(|n| n.name.clone())
                    .collect(),
                front,
                waiting: 0,
                blocking: 0,
                total: self.nodes.len(),
                done: None,
                quiet_for_seconds: None,
                state: None,
                state_reason: None,
                nodes: self.nodes.clone(),
                stall_threshold_seconds: 600,
                cluster_found: true,
                unfinished_by_cluster: false,
            };
            (
                snapshot,
                Report {
                    clusters: vec![cluster],
                },
            )
        }
    }

    fn req(action: Action, node: &str) -> Request {
        Request {
            action,
            namespace: NS.into(),
            node: node.into(),
            revision: None,
            any: false,
            allow_primary: false,
            reason: None,
            takeover: false,
            protocol_override: None,
            dry_run: DryRun::None,
            connection: Connection::default(),
        }
    }

    fn run(scene: &Scene, request: &Request) -> Plan {
        let (snapshot, report) = scene.build();
        plan(&snapshot, &report, request, now(), "alice").expect("plan")
    }

    fn stuck_holder() -> NodeReport {
        holder("cache-1-1", NodeState::Stuck, H, Some(840))
    }

    #[test]
    fn refusals() {
        let with = |mut r: Request, f: &dyn Fn(&mut Request)| {
            f(&mut r);
            r
        };
        let cases: Vec<(&str, Scene, Request, Vec<Refusal>)> = vec![
            (
                "grant while another node holds: names it, its state and hold time",
                Scene::p1(vec![waiting("cache-0-1"), stuck_holder()]),
                req(Action::Grant, "cache-0-1"),
                vec![Refusal::OtherHolder(HolderInfo {
                    node: "cache-1-1".into(),
                    permit: Some(H.into()),
                    state: NodeState::Stuck,
                    held_for_seconds: Some(840),
                })],
            ),
            (
                "grant on a node that asks for nothing",
                Scene::p1(vec![converged("cache-0-1")]),
                req(Action::Grant, "cache-0-1"),
                vec![Refusal::AsksNothing {
                    node: "cache-0-1".into(),
                    protocol: Protocol::P1,
                }],
            ),
            (
                "grant on a node that asks but names no hash",
                Scene::p1(vec![{
                    let mut n = waiting("cache-0-1");
                    n.desired_revision = None;
                    n
                }]),
                req(Action::Grant, "cache-0-1"),
                vec![Refusal::AskedRevisionUnknown {
                    node: "cache-0-1".into(),
                    protocol: Protocol::P1,
                }],
            ),
            (
                "grant on a standalone node",
                Scene::p1(vec![{
                    let mut n = waiting("cache-0-1");
                    n.facts.cluster_owned = false;
                    n.state = NodeState::Standalone;
                    n
                }]),
                req(Action::Grant, "cache-0-1"),
                vec![Refusal::Standalone {
                    node: "cache-0-1".into(),
                }],
            ),
            (
                "grant on a primary without --allow-primary",
                Scene::p1(vec![primary(waiting("cache-0-0"))]),
                req(Action::Grant, "cache-0-0"),
                vec![Refusal::Primary {
                    node: "cache-0-0".into(),
                }],
            ),
            (
                "every refusal that applies is listed",
                Scene::p1(vec![primary(converged("cache-0-0")), stuck_holder()]),
                req(Action::Grant, "cache-0-0"),
                vec![
                    Refusal::OtherHolder(HolderInfo::of(&stuck_holder())),
                    Refusal::AsksNothing {
                        node: "cache-0-0".into(),
                        protocol: Protocol::P1,
                    },
                    Refusal::Primary {
                        node: "cache-0-0".into(),
                    },
                ],
            ),
            (
                "grant of what the node already holds",
                Scene::p1(vec![{
                    let mut n = holder("cache-0-1", NodeState::Rolling, H, Some(30));
                    n.desired_revision = Some(H.into());
                    n.facts.asks = true;
                    n
                }]),
                req(Action::Grant, "cache-0-1"),
                vec![Refusal::AlreadyHeld {
                    node: "cache-0-1".into(),
                    revision: H.into(),
                }],
            ),
            (
                "P2 grant off the walk's front",
                Scene::p2(vec![waiting("cache-0-1"), waiting("cache-0-2")]),
                req(Action::Grant, "cache-0-2"),
                vec![Refusal::NotFront {
                    node: "cache-0-2".into(),
                    front: Some("cache-0-1".into()),
                }],
            ),
            (
                "P2 grant while another node holds",
                Scene::p2(vec![
                    holder("cache-0-1", NodeState::Rolling, H, Some(60)),
                    waiting("cache-0-2"),
                ]),
                req(Action::Grant, "cache-0-2"),
                vec![Refusal::OtherHolder(HolderInfo {
                    node: "cache-0-1".into(),
                    permit: Some(H.into()),
                    state: NodeState::Rolling,
                    held_for_seconds: Some(60),
                })],
            ),
            (
                "P2 grant with --any",
                Scene::p2(vec![waiting("cache-0-1")]),
                with(req(Action::Grant, "cache-0-1"), &|r| r.any = true),
                vec![Refusal::NoAnyInP2],
            ),
            (
                "P2 grant on a node that asks for nothing",
                Scene::p2(vec![converged("cache-0-1"), waiting("cache-0-2")]),
                req(Action::Grant, "cache-0-1"),
                vec![
                    Refusal::AsksNothing {
                        node: "cache-0-1".into(),
                        protocol: Protocol::P2,
                    },
                    Refusal::NotFront {
                        node: "cache-0-1".into(),
                        front: Some("cache-0-2".into()),
                    },
                ],
            ),
            (
                "revoke in P2",
                Scene::p2(vec![holder("cache-0-1", NodeState::Rolling, H, None)]),
                req(Action::Revoke, "cache-0-1"),
                vec![Refusal::NoRevokeInP2 {
                    node: "cache-0-1".into(),
                }],
            ),
            (
                "force in P2",
                Scene::p2(vec![waiting("cache-0-1")]),
                with(req(Action::Force, "cache-0-1"), &|r| {
                    r.reason = Some("x".into())
                }),
                vec![Refusal::NoForceInP2 {
                    node: "cache-0-1".into(),
                }],
            ),
            (
                "unknown protocol without --protocol",
                Scene::unknown(vec![converged("cache-0-1")]),
                with(req(Action::Grant, "cache-0-1"), &|r| {
                    r.revision = Some(H.into())
                }),
                vec![Refusal::ProtocolUnknown {
                    cluster: "cache".into(),
                }],
            ),
            (
                "--protocol that contradicts the nodes",
                Scene::p1(vec![waiting("cache-0-1")]),
                with(req(Action::Grant, "cache-0-1"), &|r| {
                    r.protocol_override = Some(Protocol::P2)
                }),
                vec![Refusal::ProtocolContradicts {
                    cluster: "cache".into(),
                    detected: Protocol::P1,
                    given: Protocol::P2,
                }],
            ),
            (
                "revoke of a node that holds nothing",
                Scene::p1(vec![waiting("cache-0-1")]),
                req(Action::Revoke, "cache-0-1"),
                vec![Refusal::HoldsNothing {
                    node: "cache-0-1".into(),
                }],
            ),
            (
                "force on a node that asks for nothing, without --revision or --any",
                Scene::p1(vec![converged("cache-0-1"), stuck_holder()]),
                with(req(Action::Force, "cache-0-1"), &|r| {
                    r.reason = Some("x".into())
                }),
                vec![Refusal::AsksNothing {
                    node: "cache-0-1".into(),
                    protocol: Protocol::P1,
                }],
            ),
        ];
        for (name, scene, request, want) in cases {
            let p = run(&scene, &request);
            assert_eq!(p.decision, Decision::Refused, "{name}");
            assert_eq!(p.exit(), Exit::Refused, "{name}");
            assert_eq!(p.reasons, want, "{name}");
            assert!(p.patches.is_empty(), "{name}: no patch");
            assert!(p.events.is_empty(), "{name}: no event");
            assert_eq!(p.undo, None, "{name}: no undo");
        }
    }

    /// A node whose `status.role` is `primary` but which is not the shard's
    /// one ready primary (not ready, or a second node claims the role too).
    fn claims_primary(mut n: NodeReport) -> NodeReport {
        n.role = Some("primary".into());
        n.facts.is_primary = false;
        n
    }

    #[test]
    fn the_primary_check_reads_the_node_role() {
        // (case, scene, request, refused as primary)
        let grant = req(Action::Grant, "cache-0-0");
        let cases: Vec<(&str, Scene, Request, bool)> = vec![
            (
                "P1: role primary, not ready",
                Scene::p1(vec![claims_primary(unhealthy(
                    waiting("cache-0-0"),
                    "node not ready",
                ))]),
                grant.clone(),
                true,
            ),
            (
                "P1: two nodes claim primary",
                Scene::p1(vec![
                    claims_primary(waiting("cache-0-0")),
                    claims_primary(converged("cache-0-1")),
                ]),
                grant.clone(),
                true,
            ),
            (
                "P2: role primary, not ready",
                Scene::p2(vec![claims_primary(unhealthy(
                    waiting("cache-0-0"),
                    "node not ready",
                ))]),
                grant.clone(),
                true,
            ),
            (
                "P1: a replica",
                Scene::p1(vec![waiting("cache-0-0")]),
                grant.clone(),
                false,
            ),
            (
                "P1: an empty role counts as a replica",
                Scene::p1(vec![{
                    let mut n = waiting("cache-0-0");
                    n.role = None;
                    n
                }]),
                grant,
                false,
            ),
        ];
        for (name, scene, request, refused) in cases {
            let p = run(&scene, &request);
            let primary = Refusal::Primary {
                node: "cache-0-0".into(),
            };
            assert_eq!(p.reasons.contains(&primary), refused, "{name}: {p:?}");
            let mut allowed = request.clone();
            allowed.allow_primary = true;
            let p = run(&scene, &allowed);
            assert!(!p.reasons.contains(&primary), "{name}: {:?}", p.reasons);
            assert_eq!(
                p.warnings.contains(&Warning::Primary {
                    node: "cache-0-0".into()
                }),
                refused,
                "{name}: --allow-primary warns: {:?}",
                p.warnings
            );
        }
        // force on a node that claims primary says so before asking, and
        // the undo of a revoke on it carries --allow-primary.
        let mut f = req(Action::Force, "cache-0-0");
        f.reason = Some("x".into());
        f.allow_primary = true;
        let scene = Scene::p1(vec![claims_primary(unhealthy(
            waiting("cache-0-0"),
            "node not ready",
        ))]);
        let p = run(&scene, &f);
        assert!(
            p.warnings.contains(&Warning::Primary {
                node: "cache-0-0".into()
            }),
            "{:?}",
            p.warnings
        );
        let text = p.confirmation.unwrap_or_default();
        assert!(text.contains("cache-0-0 is its shard's primary"), "{text}");
        let p = run(
            &Scene::p1(vec![claims_primary(holder(
                "cache-0-0",
                NodeState::Rolling,
                H,
                None,
            ))]),
            &req(Action::Revoke, "cache-0-0"),
        );
        assert!(
            p.undo
                .as_deref()
                .unwrap_or_default()
                .ends_with(" --allow-primary"),
            "{:?}",
            p.undo
        );
    }

    #[test]
    fn refusal_texts_say_what_and_why() {
        let cases: Vec<(Refusal, &str)> = vec![
            (
                Refusal::OtherHolder(HolderInfo::of(&stuck_holder())),
                "cache-1-1 (Stuck, permit 9f2c41ab03de, held 14m) already holds a permit, and a cluster has one holder at a time",
            ),
            (
                Refusal::OtherHolder(HolderInfo {
                    held_for_seconds: None,
                    ..HolderInfo::of(&stuck_holder())
                }),
                "held for an unknown time",
            ),
            (
                Refusal::Primary {
                    node: "cache-0-0".into(),
                },
                "the controller's proactive failover does not run for a permit given by hand",
            ),
            (
                Refusal::NoRevokeInP2 {
                    node: "cache-0-1".into(),
                },
                "there is no revoke in P2: the cluster controller rewrites cache-0-1's whole spec and would put spec.workloadRevision back",
            ),
            (
                Refusal::ProtocolUnknown {
                    cluster: "cache".into(),
                },
                "say which with --protocol P1|P2",
            ),
            (
                Refusal::NotConfirmed {
                    action: Action::Force,
                    node: "cache-0-1".into(),
                    asked: false,
                },
                "force cache-0-1 needs confirmation: run it on a terminal, or add --yes",
            ),
            (
                Refusal::NotFront {
                    node: "cache-0-2".into(),
                    front: Some("cache-0-1".into()),
                },
                "cache-0-2 is not the walk's front (cache-0-1 is): in P2",
            ),
        ];
        for (refusal, want) in cases {
            let text = refusal.to_string();
            assert!(text.contains(want), "{want:?} not in {text:?}");
        }
    }

    #[test]
    fn unknown_node_is_an_error_with_the_nearest_names() {
        let (snapshot, report) =
            Scene::p1(vec![waiting("cache-0-1"), waiting("cache-1-1")]).build();
        let err = plan(
            &snapshot,
            &report,
            &req(Action::Grant, "cache-0-7"),
            now(),
            "alice",
        )
        .expect_err("no such node");
        match err {
            Error::NotFound {
                kind,
                name,
                nearest,
                ..
            } => {
                assert_eq!((kind, name.as_str()), ("ValkeyNode", "cache-0-7"));
                assert_eq!(
                    nearest,
                    vec!["cache-0-1".to_string(), "cache-1-1".to_string()]
                );
            }
            other => panic!("want NotFound, got {other:?}"),
        }
    }

    #[test]
    fn p1_grant_patch_is_exact() {
        let mut r = req(Action::Grant, "cache-0-1");
        r.reason = Some("canary first".into());
        let p = run(
            &Scene::p1(vec![waiting("cache-0-1"), waiting("cache-0-2")]),
            &r,
        );
        assert_eq!(p.decision, Decision::Planned);
        assert_eq!(p.reasons, vec![]);
        assert_eq!(p.warnings, vec![]);
        assert_eq!(p.patches.len(), 1);
        let x = &p.patches[0];
        assert_eq!((x.kind, x.name.as_str()), ("ValkeyNode", "cache-0-1"));
        assert_eq!(x.resource_version.as_deref(), Some("rv-cache-0-1"));
        assert_eq!(
            x.patch,
            json!({"metadata": {
                "resourceVersion": "rv-cache-0-1",
                "annotations": {
                    "valkey.io/allow-workload-revision": H,
                    "valkey-roll.io/granted-revision": H,
                    "valkey-roll.io/granted-by": "alice",
                    "valkey-roll.io/granted-at": "2026-11-29T10:16:11Z",
                    "valkey-roll.io/reason": "canary first",
                }
            }})
        );
        assert_eq!(
            p.events,
            vec![EventPlan {
                node: "cache-0-1".into(),
                reason: "ManualRollPermitGranted",
                message: "alice granted the roll permit for 9f2c41ab03de by hand (kubectl valkey-roll): canary first".into(),
            }]
        );
        assert_eq!(
            p.undo.as_deref(),
            Some("kubectl valkey-roll revoke cache-0-1 -n prod")
        );
        assert_eq!(p.revision.as_deref(), Some(H));
        assert_eq!(p.confirmation, None);
    }

    #[test]
    fn grant_without_reason_clears_an_old_one() {
        let p = run(
            &Scene::p1(vec![waiting("cache-0-1")]),
            &req(Action::Grant, "cache-0-1"),
        );
        assert_eq!(
            p.patches[0].patch["metadata"]["annotations"]["valkey-roll.io/reason"],
            Value::Null
        );
        assert!(
            p.events[0].message.ends_with("; no reason given"),
            "{}",
            p.events[0].message
        );
    }

    #[test]
    fn grant_values_and_warnings() {
        // (case, scene, request change, value written, warnings)
        type Case = (
            &'static str,
            Scene,
            fn(&mut Request),
            &'static str,
            Vec<Warning>,
        );
        let cases: Vec<Case> = vec![
            (
                "--any on a node that asks for nothing",
                Scene::p1(vec![converged("cache-0-1")]),
                |r| r.any = true,
                "*",
                vec![Warning::NotFront {
                    node: "cache-0-1".into(),
                    front: None,
                }],
            ),
            (
                "--revision other than the asked-for one",
                Scene::p1(vec![waiting("cache-0-1")]),
                |r| r.revision = Some(OLD.into()),
                OLD,
                vec![Warning::RevisionDiffers {
                    node: "cache-0-1".into(),
                    written: OLD.into(),
                    asked: Some(H.into()),
                    protocol: Protocol::P1,
                }],
            ),
            (
                "off the walk's front in P1: a warning, not a refusal",
                Scene::p1(vec![waiting("cache-0-1"), waiting("cache-0-2")]),
                |r| r.node = "cache-0-2".into(),
                H,
                vec![Warning::NotFront {
                    node: "cache-0-2".into(),
                    front: Some("cache-0-1".into()),
                }],
            ),
            (
                "a primary with --allow-primary",
                Scene::p1(vec![primary(waiting("cache-0-1"))]),
                |r| r.allow_primary = true,
                H,
                vec![Warning::Primary {
                    node: "cache-0-1".into(),
                }],
            ),
            (
                "an unhealthy node",
                Scene::p1(vec![unhealthy(waiting("cache-0-1"), "pod not Ready")]),
                |_| {},
                H,
                vec![Warning::NotHealthy {
                    node: "cache-0-1".into(),
                    because: vec!["pod not Ready".into()],
                }],
            ),
            (
                "a stale permit of its own is replaced",
                Scene::p1(vec![{
                    let mut n = holder("cache-0-1", NodeState::StalePermit, OLD, Some(5));
                    n.desired_revision = Some(H.into());
                    n.facts.asks = true;
                    n
                }]),
                |_| {},
                H,
                vec![
                    Warning::ReplacesPermit {
                        node: "cache-0-1".into(),
                        old: OLD.into(),
                    },
                    Warning::NotFront {
                        node: "cache-0-1".into(),
                        front: None,
                    },
                ],
            ),
            (
                "unknown protocol with --protocol P1",
                Scene::unknown(vec![converged("cache-0-1")]),
                |r| {
                    r.protocol_override = Some(Protocol::P1);
                    r.revision = Some(H.into());
                },
                H,
                vec![
                    Warning::RevisionDiffers {
                        node: "cache-0-1".into(),
                        written: H.into(),
                        asked: None,
                        protocol: Protocol::P1,
                    },
                    Warning::NotFront {
                        node: "cache-0-1".into(),
                        front: None,
                    },
                ],
            ),
        ];
        for (name, scene, change, value, warnings) in cases {
            let mut r = req(Action::Grant, "cache-0-1");
            change(&mut r);
            let p = run(&scene, &r);
            assert_eq!(p.decision, Decision::Planned, "{name}: {:?}", p.reasons);
            assert_eq!(p.revision.as_deref(), Some(value), "{name}");
            assert_eq!(
                p.patches[0].patch["metadata"]["annotations"][keys::ANN_PERMIT],
                json!(value),
                "{name}"
            );
            assert_eq!(p.warnings, warnings, "{name}");
        }
    }

    #[test]
    fn p2_grant_writes_the_spec_and_has_no_undo() {
        let mut r = req(Action::Grant, "cache-0-1");
        r.reason = Some("unblock".into());
        let p = run(
            &Scene::p2(vec![waiting("cache-0-1"), waiting("cache-0-2")]),
            &r,
        );
        assert_eq!(p.decision, Decision::Planned, "{:?}", p.reasons);
        assert_eq!(
            p.patches[0].patch,
            json!({
                "metadata": {
                    "resourceVersion": "rv-cache-0-1",
                    "annotations": {
                        "valkey-roll.io/granted-revision": H,
                        "valkey-roll.io/granted-by": "alice",
                        "valkey-roll.io/granted-at": "2026-11-29T10:16:11Z",
                        "valkey-roll.io/reason": "unblock",
                    }
                },
                "spec": {"workloadRevision": H}
            })
        );
        assert_eq!(p.undo, None);
        assert_eq!(
            p.warnings,
            vec![Warning::NoUndoInP2 {
                node: "cache-0-1".into()
            }]
        );
        assert!(
            p.warnings[0]
                .to_string()
                .contains("the cluster controller owns cache-0-1's spec.workloadRevision")
        );
        assert_eq!(p.events[0].reason, "ManualRollPermitGranted");
    }

    #[test]
    fn p2_protocol_given_for_an_unknown_cluster() {
        let mut r = req(Action::Grant, "cache-0-1");
        r.protocol_override = Some(Protocol::P2);
        let p = run(&Scene::unknown(vec![waiting("cache-0-1")]), &r);
        assert_eq!(p.protocol, Protocol::P2);
        assert_eq!(p.decision, Decision::Planned, "{:?}", p.reasons);
        assert_eq!(p.patches[0].patch["spec"]["workloadRevision"], json!(H));
    }

    /// A cluster whose nodes show no protocol: cache-0-1's new spec is not
    /// observed yet (a P2 holder; under P1's rules a Blocking node).
    fn unstaged() -> Snapshot {
        use crate::fixture::{cluster, node};
        let at_rest = |n: crate::fixture::NodeBuilder| n.ready().pod_ready().sts_rolled_out();
        cluster(NS, "cache")
            .ready_for_generation()
            .node(at_rest(node("cache-0-0").primary().shard(0, 0)))
            .node(at_rest(node("cache-0-1").replica().shard(0, 1)).spec_updated())
            .node(at_rest(node("cache-0-2").replica().shard(0, 2)))
            .snapshot()
    }

    #[test]
    fn a_given_protocol_judges_an_unknown_cluster_by_its_rules() {
        let snapshot = unstaged();
        let report =
            crate::classify::classify(&snapshot, now(), std::time::Duration::from_secs(600));
        assert_eq!(report.clusters[0].protocol, Protocol::Unknown);
        let ask = |action: Action, protocol: Protocol, f: &dyn Fn(&mut Request)| {
            let mut r = req(action, "cache-0-2");
            r.protocol_override = Some(protocol);
            r.reason = Some("x".into());
            f(&mut r);
            plan(&snapshot, &report, &r, now(), "alice").expect("plan")
        };
        let revision = |r: &mut Request| r.revision = Some(H.into());
        // P2: cache-0-1 holds (its spec revision advanced, not yet applied).
        let p = ask(Action::Grant, Protocol::P2, &revision);
        assert_eq!(p.protocol, Protocol::P2);
        assert_eq!(p.decision, Decision::Refused, "{p:?}");
        assert_eq!(p.other_holders, vec!["cache-0-1".to_string()]);
        assert!(
            matches!(&p.reasons[0], Refusal::OtherHolder(h) if h.node == "cache-0-1"),
            "{:?}",
            p.reasons
        );
        // P1: nobody holds; cache-0-1 is the walk's front.
        let p = ask(Action::Grant, Protocol::P1, &revision);
        assert_eq!(p.protocol, Protocol::P1);
        assert_eq!(p.decision, Decision::Planned, "{:?}", p.reasons);
        assert!(p.other_holders.is_empty());
        assert!(p.warnings.contains(&Warning::NotFront {
            node: "cache-0-2".into(),
            front: Some("cache-0-1".into()),
        }));
        // What P2 does not have is refused (exit 4), as on a detected P2
        // cluster.
        // (case, action, request change, refusal)
        type Case<'a> = (&'a str, Action, &'a dyn Fn(&mut Request), Refusal);
        let cases: Vec<Case> = vec![
            (
                "revoke",
                Action::Revoke,
                &|_| {},
                Refusal::NoRevokeInP2 {
                    node: "cache-0-2".into(),
                },
            ),
            (
                "force",
                Action::Force,
                &revision,
                Refusal::NoForceInP2 {
                    node: "cache-0-2".into(),
                },
            ),
            (
                "grant --any",
                Action::Grant,
                &|r| r.any = true,
                Refusal::NoAnyInP2,
            ),
        ];
        for (name, action, change, want) in cases {
            let p = ask(action, Protocol::P2, change);
            assert_eq!(p.decision, Decision::Refused, "{name}");
            assert_eq!(p.exit(), Exit::Refused, "{name}");
            assert!(p.reasons.contains(&want), "{name}: {:?}", p.reasons);
            assert!(p.patches.is_empty(), "{name}");
        }
    }

    #[test]
    fn revoke_patch_undo_and_confirmation() {
        // (case, node, asks confirmation, undo)
        let cases: Vec<(&str, NodeReport, bool, &str)> = vec![
            (
                "a healthy holder",
                holder("cache-0-1", NodeState::Settling, H, Some(60)),
                false,
                "kubectl valkey-roll grant cache-0-1 -n prod --protocol P1 --revision 9f2c41ab03de55aa66bb77cc88dd99ee",
            ),
            (
                "an unhealthy holder asks first",
                crashing(holder("cache-0-1", NodeState::Stuck, H, Some(900))),
                true,
                "kubectl valkey-roll grant cache-0-1 -n prod --protocol P1 --revision 9f2c41ab03de55aa66bb77cc88dd99ee",
            ),
            (
                "a `*` permit on a primary",
                primary(holder("cache-0-1", NodeState::Rolling, "*", None)),
                false,
                "kubectl valkey-roll grant cache-0-1 -n prod --protocol P1 --any --allow-primary",
            ),
        ];
        for (name, n, asks, undo) in cases {
            let mut r = req(Action::Revoke, "cache-0-1");
            r.reason = Some("jammed".into());
            let p = run(&Scene::p1(vec![n]), &r);
            assert_eq!(p.decision, Decision::Planned, "{name}: {:?}", p.reasons);
            assert_eq!(
                p.patches[0].patch,
                json!({"metadata": {
                    "resourceVersion": "rv-cache-0-1",
                    "annotations": {
                        "valkey.io/allow-workload-revision": null,
                        "valkey-roll.io/granted-revision": null,
                        "valkey-roll.io/granted-by": null,
                        "valkey-roll.io/granted-at": null,
                        "valkey-roll.io/reason": null,
                    }
                }}),
                "{name}"
            );
            assert_eq!(p.undo.as_deref(), Some(undo), "{name}");
            assert_eq!(p.confirmation.is_some(), asks, "{name}");
            assert_eq!(p.events[0].reason, "ManualRollPermitRevoked", "{name}");
            assert!(
                p.warnings.contains(&Warning::RevokeDoesNotRollBack {
                    node: "cache-0-1".into()
                }),
                "{name}"
            );
        }
        let p = run(
            &Scene::p1(vec![crashing(holder(
                "cache-0-1",
                NodeState::Stuck,
                H,
                Some(900),
            ))]),
            &req(Action::Revoke, "cache-0-1"),
        );
        let text = p.confirmation.unwrap_or_default();
        for want in [
            "cache-0-1 holds the permit for 9f2c41ab03de and its pod is not healthy (pod valkey-cache-0-1-0 not Ready; container server waiting: CrashLoopBackOff (restarts 7))",
            "Revoking does not roll its pod back",
            "the controller keeps waiting for cache-0-1 to become Ready before it moves on",
            "stays a block until it is fixed (revert the template; delete a superseded pod) or a permit is forced elsewhere",
        ] {
            assert!(text.contains(want), "{want:?} not in {text:?}");
        }
    }

    #[test]
    fn revoke_asks_when_the_holders_pod_is_unhealthy() {
        let evidence = |kind: EvidenceKind, message: &str| Evidence {
            kind,
            message: message.into(),
        };
        // (case, holder, asks confirmation)
        let cases: Vec<(&str, NodeReport, bool)> = vec![
            (
                "Settling: pod Ready, node not ready yet",
                unhealthy(
                    holder("cache-0-1", NodeState::Settling, H, Some(60)),
                    "node status not ready",
                ),
                false,
            ),
            (
                "node generation not observed, pod Ready",
                unhealthy(
                    holder("cache-0-1", NodeState::Rolling, H, Some(60)),
                    "generation 3 not observed (2)",
                ),
                false,
            ),
            (
                "pod not Ready",
                {
                    let mut n = holder("cache-0-1", NodeState::Rolling, H, Some(60));
                    n.facts.pod_ready = Some(false);
                    n
                },
                true,
            ),
            (
                "pod unknown",
                {
                    let mut n = holder("cache-0-1", NodeState::Rolling, H, Some(60));
                    n.facts.pod_ready = None;
                    n
                },
                true,
            ),
            (
                "pod Ready, workload failing",
                {
                    let mut n = holder("cache-0-1", NodeState::Stuck, H, Some(60));
                    n.evidence.push(evidence(
                        EvidenceKind::ProgressDeadlineExceeded,
                        "Deployment valkey-cache-0-1 ProgressDeadlineExceeded",
                    ));
                    n
                },
                true,
            ),
            (
                "pod Ready, held over the threshold only",
                {
                    let mut n = holder("cache-0-1", NodeState::Stuck, H, Some(900));
                    n.evidence.push(evidence(
                        EvidenceKind::HeldOverThreshold,
                        "held 15m > stall threshold 10m",
                    ));
                    n
                },
                false,
            ),
        ];
        for (name, n, asks) in cases {
            let p = run(&Scene::p1(vec![n]), &req(Action::Revoke, "cache-0-1"));
            assert_eq!(p.decision, Decision::Planned, "{name}: {:?}", p.reasons);
            assert_eq!(
                p.confirmation.is_some(),
                asks,
                "{name}: {:?}",
                p.confirmation
            );
        }
    }

    #[test]
    fn force_names_holders_keeps_them_or_takes_over() {
        let scene = Scene::p1(vec![
            primary(waiting("cache-0-0")),
            waiting("cache-0-1"),
            stuck_holder(),
        ]);
        let mut r = req(Action::Force, "cache-0-0");
        r.reason = Some("cache-1-1 is dead".into());
        r.allow_primary = true;

        let kept = run(&scene, &r);
        assert_eq!(kept.decision, Decision::Planned, "{:?}", kept.reasons);
        assert_eq!(kept.other_holders, vec!["cache-1-1".to_string()]);
        assert_eq!(kept.kept_holders, vec!["cache-1-1".to_string()]);
        assert_eq!(kept.patches.len(), 1);
        assert_eq!(kept.patches[0].name, "cache-0-0");
        assert_eq!(
            kept.warnings,
            vec![
                Warning::OtherHolder {
                    holder: HolderInfo::of(&stuck_holder()),
                    takeover: false
                },
                Warning::Primary {
                    node: "cache-0-0".into()
                },
            ]
        );
        assert_eq!(kept.events[0].reason, "ManualRollPermitForced");
        assert_eq!(
            kept.undo.as_deref(),
            Some("kubectl valkey-roll revoke cache-0-0 -n prod")
        );
        let text = kept.confirmation.clone().unwrap_or_default();
        assert!(
            text.contains("cache-1-1 (Stuck, permit 9f2c41ab03de, held 14m) keeps its permit, so two nodes may roll at once"),
            "{text}"
        );
        assert!(text.contains("proactive failover does not run"), "{text}");

        r.takeover = true;
        let took = run(&scene, &r);
        assert_eq!(took.kept_holders, Vec::<String>::new());
        let names: Vec<(&str, PatchEffect)> = took
            .patches
            .iter()
            .map(|p| (p.name.as_str(), p.effect))
            .collect();
        assert_eq!(
            names,
            vec![
                ("cache-1-1", PatchEffect::Revoke),
                ("cache-0-0", PatchEffect::Grant)
            ]
        );
        assert_eq!(
            took.patches[0].patch["metadata"]["resourceVersion"],
            json!("rv-cache-1-1")
        );
        assert_eq!(
            took.patches[0].patch["metadata"]["annotations"][keys::ANN_PERMIT],
            Value::Null
        );
        let reasons: Vec<(&str, &str)> = took
            .events
            .iter()
            .map(|e| (e.node.as_str(), e.reason))
            .collect();
        assert_eq!(
            reasons,
            vec![
                ("cache-1-1", "ManualRollPermitRevoked"),
                ("cache-0-0", "ManualRollPermitForced")
            ]
        );
        assert_eq!(
            took.undo.as_deref(),
            Some(
                "kubectl valkey-roll revoke cache-0-0 -n prod && kubectl valkey-roll grant cache-1-1 -n prod --protocol P1 --revision 9f2c41ab03de55aa66bb77cc88dd99ee"
            )
        );
        assert!(
            took.confirmation
                .unwrap_or_default()
                .contains("loses its permit (its pod is not rolled back)")
        );
    }

    #[test]
    fn force_without_anything_to_override_still_asks() {
        let mut r = req(Action::Force, "cache-0-1");
        r.reason = Some("x".into());
        let p = run(&Scene::p1(vec![waiting("cache-0-1")]), &r);
        assert_eq!(p.decision, Decision::Planned);
        assert!(
            p.confirmation
                .unwrap_or_default()
                .ends_with("past the safety checks (none of them refuses it now).")
        );
    }

    #[test]
    fn changed_decisions_are_told_apart() {
        let scene = Scene::p1(vec![waiting("cache-0-1"), waiting("cache-0-2")]);
        let before = run(&scene, &req(Action::Grant, "cache-0-1"));
        // Only resourceVersion moved: the same decision.
        let mut same_scene = Scene::p1(vec![waiting("cache-0-1"), waiting("cache-0-2")]);
        same_scene.nodes[1].ready = false;
        assert_eq!(
            run(&same_scene, &req(Action::Grant, "cache-0-1")).changed_from(&before, &[]),
            None
        );
        // Another node was granted meanwhile.
        let granted = Scene::p1(vec![
            waiting("cache-0-1"),
            holder("cache-0-2", NodeState::Rolling, H, Some(1)),
        ]);
        let after = run(&granted, &req(Action::Grant, "cache-0-1"));
        let what = after.changed_from(&before, &[]).expect("changed");
        assert!(
            what.starts_with("the decision is now refused: cache-0-2 (Rolling"),
            "{what}"
        );
        // The node asks for a new revision now.
        let mut moved = Scene::p1(vec![waiting("cache-0-1")]);
        moved.nodes[0].desired_revision = Some(OLD.into());
        let what = run(&moved, &req(Action::Grant, "cache-0-1"))
            .changed_from(&before, &[])
            .expect("changed");
        assert_eq!(
            what,
            "cache-0-1 would now get 41ab77c0e1f2 instead of 9f2c41ab03de"
        );
        // A takeover whose first revoke is written: not a change.
        let mut r = req(Action::Force, "cache-0-1");
        r.takeover = true;
        r.reason = Some("x".into());
        let two = run(&Scene::p1(vec![waiting("cache-0-1"), stuck_holder()]), &r);
        let one = run(
            &Scene::p1(vec![waiting("cache-0-1"), converged("cache-1-1")]),
            &r,
        );
        assert_eq!(one.changed_from(&two, &["cache-1-1".to_string()]), None);
        assert!(one.changed_from(&two, &[]).is_some());
        // A revoke does not care who else holds.
        let revoke = req(Action::Revoke, "cache-0-1");
        let alone = run(
            &Scene::p1(vec![holder("cache-0-1", NodeState::Rolling, H, None)]),
            &revoke,
        );
        let crowded = run(
            &Scene::p1(vec![
                holder("cache-0-1", NodeState::Rolling, H, None),
                stuck_holder(),
            ]),
            &revoke,
        );
        assert_eq!(crowded.changed_from(&alone, &[]), None);
    }

    #[test]
    fn a_newly_needed_confirmation_is_a_change() {
        let revoke = req(Action::Revoke, "cache-0-1");
        let fine = || holder("cache-0-1", NodeState::Rolling, H, Some(60));
        let asked = run(&Scene::p1(vec![crashing(fine())]), &revoke);
        let unasked = run(&Scene::p1(vec![fine()]), &revoke);
        assert!(asked.confirmation.is_some() && unasked.confirmation.is_none());
        // (case, first plan, plan under the Lease, changed)
        let cases: Vec<(&str, &Plan, &Plan, bool)> = vec![
            (
                "no confirmation at first, needed now",
                &unasked,
                &asked,
                true,
            ),
            ("needed both times (given)", &asked, &asked, false),
            ("needed at first, not now", &asked, &unasked, false),
            ("needed neither time", &unasked, &unasked, false),
        ];
        for (name, before, now, changed) in cases {
            let what = now.changed_from(before, &[]);
            assert_eq!(what.is_some(), changed, "{name}: {what:?}");
            if let Some(what) = what {
                assert!(
                    what.starts_with(
                        "revoke cache-0-1 now needs confirmation: cache-0-1 holds the permit"
                    ),
                    "{name}: {what}"
                );
            }
        }
    }

    #[test]
    fn undo_names_the_same_cluster_and_restores_an_own_old_permit() {
        let own = |permit: &str| {
            let mut n = holder("cache-0-1", NodeState::StalePermit, permit, Some(5));
            n.desired_revision = Some(H.into());
            n.facts.asks = true;
            n
        };
        let other = |name: &str| holder(name, NodeState::Stuck, H, Some(840));
        let grant = req(Action::Grant, "cache-0-1");
        let mut force = req(Action::Force, "cache-0-1");
        force.reason = Some("x".into());
        force.allow_primary = true;
        let mut takeover = force.clone();
        takeover.takeover = true;
        let mut flagged = grant.clone();
        flagged.connection = Connection {
            kubeconfig: Some("/home/me/kube config".into()),
            context: Some("staging".into()),
            kube_cluster: Some("kc".into()),
            user: Some("bob".into()),
            impersonate: Some("alice".into()),
            impersonate_groups: vec!["ops".into(), "sre team".into()],
        };
        let mut flagged_force = takeover.clone();
        flagged_force.connection = flagged.connection.clone();
        let conn = "-n prod --kubeconfig '/home/me/kube config' --context staging --cluster kc --user bob --as alice --as-group ops --as-group 'sre team'";
        let k = "kubectl valkey-roll";
        // (case, scene, request, undo)
        let cases: Vec<(&str, Scene, Request, String)> = vec![
            (
                "grant, connection flags repeated",
                Scene::p1(vec![waiting("cache-0-1")]),
                flagged,
                format!("{k} revoke cache-0-1 {conn}"),
            ),
            (
                "grant over its own stale permit: the old one comes back",
                Scene::p1(vec![own(OLD)]),
                grant.clone(),
                format!("{k} grant cache-0-1 -n prod --protocol P1 --revision {OLD}"),
            ),
            (
                "grant over its own `*`",
                Scene::p1(vec![own("*")]),
                grant.clone(),
                format!("{k} grant cache-0-1 -n prod --protocol P1 --any"),
            ),
            (
                "grant over its own permit, on a primary",
                Scene::p1(vec![claims_primary(own(OLD))]),
                {
                    let mut r = grant.clone();
                    r.allow_primary = true;
                    r
                },
                format!(
                    "{k} grant cache-0-1 -n prod --protocol P1 --revision {OLD} --allow-primary"
                ),
            ),
            (
                "force over its own permit, another holder kept: grant would be refused",
                Scene::p1(vec![own(OLD), other("cache-1-1")]),
                force.clone(),
                format!(
                    "{k} force cache-0-1 -n prod --protocol P1 --revision {OLD} --reason 'undo force of cache-0-1' --yes"
                ),
            ),
            (
                "force --takeover over its own permit: itself first, then the holder it revoked",
                Scene::p1(vec![own(OLD), other("cache-1-1")]),
                takeover.clone(),
                format!(
                    "{k} grant cache-0-1 -n prod --protocol P1 --revision {OLD} && {k} force cache-1-1 -n prod --protocol P1 --revision {H} --reason 'undo force --takeover of cache-0-1' --yes"
                ),
            ),
            (
                "force --takeover of two holders, connection flags on every line",
                Scene::p1(vec![
                    waiting("cache-0-1"),
                    other("cache-1-1"),
                    other("cache-2-1"),
                ]),
                flagged_force,
                format!(
                    "{k} revoke cache-0-1 {conn} && {k} grant cache-1-1 {conn} --protocol P1 --revision {H} && {k} force cache-2-1 {conn} --protocol P1 --revision {H} --reason 'undo force --takeover of cache-0-1' --yes"
                ),
            ),
            (
                "revoke while another node holds: grant would be refused",
                Scene::p1(vec![
                    holder("cache-0-1", NodeState::Rolling, H, Some(5)),
                    other("cache-1-1"),
                ]),
                req(Action::Revoke, "cache-0-1"),
                format!(
                    "{k} force cache-0-1 -n prod --protocol P1 --revision {H} --reason 'undo revoke of cache-0-1' --yes"
                ),
            ),
        ];
        for (name, scene, request, want) in cases {
            let p = run(&scene, &request);
            assert_eq!(p.decision, Decision::Planned, "{name}: {:?}", p.reasons);
            assert_eq!(p.undo.as_deref(), Some(want.as_str()), "{name}");
        }
    }

    #[test]
    fn shell_quoting_of_undo_words() {
        assert_eq!(shell_quote("abc123"), "abc123");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
