//! The way out of a refusal: the next command that can help, in the
//! cluster's protocol and state. Facts, as the rest of the plan: render
//! words them (`render::steer`).
//!
//! Every steering command proposed here is planned in turn against the
//! same snapshot, and kept only when that plan is not refused: a way out
//! never points at a command that would itself be refused.

use super::{Action, Plan, Refusal, Request, Steer};
use crate::report::{
    ClusterReport, EvidenceKind, NodeReport, NodeState, Protocol, Report, Verdict,
};
use crate::snapshot::Snapshot;
use jiff::Timestamp;

/// One thing to do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// `explain NODE`: its whole story and its own ways out.
    Explain { node: String },
    /// `status CLUSTER` (every cluster of the namespace when `None`): who
    /// asks, who is in flight or holds, who waits.
    Status { cluster: Option<String> },
    /// `status CLUSTER --watch`: a roll in progress, to follow.
    Watch { cluster: String },
    /// `status CLUSTER --watch --servers`: a shard whose replicas are not
    /// synced, to follow until one is.
    WatchServers { cluster: String },
    /// Fix what fails on NODE (a template, an image, a limit): no command
    /// of this tool does it.
    FixCause { node: String },
    /// Another steering command, planned and not refused.
    Steer(Command),
    /// The same command again: after the Lease is free or the cluster
    /// settled (`yes`: with `--yes`, or on a terminal).
    Again { yes: bool },
}

/// A steering command a way out proposes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Command {
    pub action: Action,
    pub node: String,
    pub allow_primary: bool,
    pub takeover: bool,
    /// `force --unsafe-shard N`.
    pub unsafe_shard: Option<u32>,
    /// `--protocol` to give (the cluster's could not be told).
    pub protocol: Option<Protocol>,
}

impl Command {
    fn new(action: Action, node: &str) -> Command {
        Command {
            action,
            node: node.to_string(),
            allow_primary: false,
            takeover: false,
            unsafe_shard: None,
            protocol: None,
        }
    }

    /// The request it stands for: `base`'s namespace, access flags and dry
    /// run, a reason (force needs one).
    pub(crate) fn request(&self, base: &Request) -> Request {
        let steer = match self.action {
            Action::Grant => Steer::Grant {
                revision: None,
                any: false,
                allow_primary: self.allow_primary,
            },
            Action::Revoke => Steer::Revoke,
            Action::Force => Steer::Force {
                revision: None,
                any: false,
                takeover: self.takeover,
                unsafe_shard: self.unsafe_shard,
            },
            Action::ReplacePod => Steer::ReplacePod,
        };
        Request {
            steer,
            namespace: base.namespace.clone(),
            node: self.node.clone(),
            reason: Some("way out".to_string()),
            protocol_override: self.protocol.or(base.protocol_override),
            dry_run: base.dry_run,
            access: base.access.clone(),
            servers: base.servers.clone(),
        }
    }
}

/// What every proposal is checked against.
pub(super) struct Against<'a> {
    pub snapshot: &'a Snapshot,
    pub report: &'a Report,
    pub request: &'a Request,
    pub now: Timestamp,
    pub actor: &'a str,
}

impl Against<'_> {
    /// The command is planned and not refused.
    fn goes(&self, c: &Command) -> bool {
        super::plan_once(
            self.snapshot,
            self.report,
            &c.request(self.request),
            self.now,
            self.actor,
        )
        .is_ok_and(|p| !p.is_refused())
    }
}

/// The steps out of `plan`'s refusals: the first refusal with a way out
/// decides; steering commands that would be refused are left out.
pub(super) fn way_out(plan: &Plan, against: &Against<'_>) -> Vec<Step> {
    let cluster = against
        .report
        .clusters
        .iter()
        .find(|c| c.namespace == plan.namespace && c.nodes.iter().any(|n| n.name == plan.node));
    let node = cluster.and_then(|c| c.nodes.iter().find(|n| n.name == plan.node));
    let mut steps = Vec::new();
    let protocol_refused = plan.reasons.iter().any(|r| {
        matches!(
            r,
            Refusal::ProtocolUnknown { .. } | Refusal::ProtocolContradicts { .. }
        )
    });
    // A jammed P2 cluster has one way out whatever was asked: its cause.
    if plan.protocol == Protocol::P2
        && !protocol_refused
        && let Some(c) = cluster.filter(|c| c.verdict == Verdict::Jammed)
        && let Some(culprit) = c
            .holders
            .first()
            .or(c.front.as_ref())
            .and_then(|name| c.nodes.iter().find(|n| &n.name == name))
    {
        steps.push(Step::Explain {
            node: culprit.name.clone(),
        });
        steps.extend(jammed_p2(Some(culprit)));
    }
    for r in &plan.reasons {
        if !steps.is_empty() {
            break;
        }
        steps = proposals(r, plan, cluster, node);
    }
    steps.retain(|s| match s {
        Step::Steer(c) => against.goes(c),
        _ => true,
    });
    steps.dedup();
    if steps.is_empty() {
        // Nothing else helps: the cluster's own view says what is going on.
        steps.push(Step::Status {
            cluster: cluster.map(|c| c.name.clone()),
        });
    }
    steps
}

/// The step after a refusal found while writing (no other command helps).
pub(super) fn after(r: &Refusal) -> Option<Step> {
    match r {
        Refusal::NotConfirmed { .. } | Refusal::WouldNeedConfirmation { .. } => {
            Some(Step::Again { yes: true })
        }
        Refusal::LeaseHeld { .. }
        | Refusal::LeaseLost { .. }
        | Refusal::Changed { .. }
        | Refusal::ConflictAgain { .. }
        | Refusal::PodChanged { .. } => Some(Step::Again { yes: false }),
        _ => None,
    }
}

/// The steps a refusal calls for, before they are checked.
fn proposals(
    r: &Refusal,
    plan: &Plan,
    cluster: Option<&ClusterReport>,
    node: Option<&NodeReport>,
) -> Vec<Step> {
    let p2 = plan.protocol == Protocol::P2;
    let explain = |n: &str| Step::Explain {
        node: n.to_string(),
    };
    let find = |name: &str| cluster.and_then(|c| c.nodes.iter().find(|n| n.name == name));
    let front_grant = || -> Vec<Step> {
        let Some(c) = cluster else { return vec![] };
        let Some(front) = c.front.as_deref().and_then(&find) else {
            return vec![];
        };
        if front.name == plan.node || front.state != NodeState::Waiting {
            return vec![explain(&front.name)];
        }
        let mut grant = Command::new(Action::Grant, &front.name);
        grant.allow_primary = front.facts.is_primary;
        vec![Step::Steer(grant), explain(&front.name)]
    };
    match r {
        Refusal::OtherHolder(h) => {
            let mut steps = vec![explain(&h.node)];
            match h.state {
                NodeState::Rolling | NodeState::Settling => {
                    if let Some(c) = cluster {
                        steps.insert(
                            0,
                            Step::Watch {
                                cluster: c.name.clone(),
                            },
                        );
                    }
                }
                _ if p2 => steps.extend(jammed_p2(find(&h.node))),
                _ => {
                    steps.push(Step::Steer(Command::new(Action::Revoke, &h.node)));
                    let mut force = Command::new(Action::Force, &plan.node);
                    force.takeover = true;
                    steps.push(Step::Steer(force));
                }
            }
            steps
        }
        // The node's own story says who asks; the walk's front is due.
        Refusal::AsksNothing { node, .. } | Refusal::AskedRevisionUnknown { node, .. } => {
            let mut steps = front_grant();
            steps.push(explain(node));
            steps
        }
        Refusal::Standalone { .. } => vec![Step::Status { cluster: None }],
        Refusal::Primary { node, unsure, .. } => {
            let mut grant = Command::new(Action::Grant, node);
            grant.allow_primary = true;
            match unsure {
                // Its role is not settled: read why before going past it.
                Some(_) => vec![explain(node), Step::Steer(grant)],
                None => vec![Step::Steer(grant), explain(node)],
            }
        }
        // The replica the primary waits for: why it is not synced, and the
        // roll as it goes (the operator rolls the primary once one syncs);
        // past it only by force, the shard typed out (P1).
        Refusal::NoSyncedReplica {
            node,
            shard,
            replicas,
        } => {
            let mut steps: Vec<Step> = replicas
                .first()
                .map(|r| explain(&r.node))
                .into_iter()
                .collect();
            if let Some(c) = cluster {
                steps.push(Step::WatchServers {
                    cluster: c.name.clone(),
                });
            }
            if !p2 {
                let mut force = Command::new(Action::Force, node);
                force.unsafe_shard = Some(*shard);
                steps.push(Step::Steer(force));
            }
            steps
        }
        Refusal::NotFront { .. } => front_grant(),
        Refusal::AlreadyHeld { node, .. } => match cluster {
            Some(c) => vec![
                Step::Watch {
                    cluster: c.name.clone(),
                },
                explain(node),
            ],
            None => vec![explain(node)],
        },
        Refusal::HoldsNothing { node } => {
            let mut steps: Vec<Step> = cluster
                .map(|c| {
                    c.holders
                        .iter()
                        .filter(|h| *h != node)
                        .map(|h| Step::Steer(Command::new(Action::Revoke, h)))
                        .collect()
                })
                .unwrap_or_default();
            steps.push(explain(node));
            steps
        }
        // P2 has no revoke and no force: its way out is the cause.
        Refusal::NoRevokeInP2 { node } | Refusal::NoForceInP2 { node } => {
            let holder = cluster
                .and_then(|c| c.holders.first())
                .and_then(|h| find(h));
            match holder {
                Some(h) if h.state == NodeState::Stuck => {
                    let mut steps = vec![explain(&h.name)];
                    steps.extend(jammed_p2(Some(h)));
                    steps
                }
                Some(h) => vec![
                    Step::Watch {
                        cluster: cluster.map(|c| c.name.clone()).unwrap_or_default(),
                    },
                    explain(&h.name),
                ],
                None => {
                    let mut steps = front_grant();
                    steps.push(explain(node));
                    steps
                }
            }
        }
        Refusal::NoAnyInP2 => node
            .map(|n| {
                vec![
                    Step::Steer(Command::new(Action::Grant, &n.name)),
                    explain(&n.name),
                ]
            })
            .unwrap_or_default(),
        Refusal::ProtocolUnknown { .. } => [Protocol::P1, Protocol::P2]
            .into_iter()
            .map(|p| {
                let mut c = Command::new(plan.action, &plan.node);
                c.protocol = Some(p);
                c.allow_primary = node.is_some_and(|n| n.facts.is_primary);
                Step::Steer(c)
            })
            .chain([explain(&plan.node)])
            .collect(),
        Refusal::ProtocolContradicts { detected, .. } => {
            let mut c = Command::new(plan.action, &plan.node);
            c.protocol = Some(*detected);
            vec![Step::Steer(c), explain(&plan.node)]
        }
        // replace-pod: the pod is no trap; the node's story says what is.
        Refusal::NoPod { node }
        | Refusal::PodBeingDeleted { node, .. }
        | Refusal::PodRevisionUnknown { node, .. }
        | Refusal::DeploymentBacked { node, .. } => vec![explain(node)],
        Refusal::PodReady { node, .. } => vec![explain(node)],
        Refusal::PodOnUpdateRevision { node, .. } => {
            vec![Step::FixCause { node: node.clone() }, explain(node)]
        }
        other => after(other).into_iter().collect(),
    }
}

/// A P2 node in flight and stuck: fix its cause, and replace its pod when
/// the OrderedReady trap holds it.
fn jammed_p2(holder: Option<&NodeReport>) -> Vec<Step> {
    let Some(h) = holder else { return vec![] };
    let mut steps = Vec::new();
    let fails = h
        .evidence
        .iter()
        .any(|e| e.kind.is_failure() && e.kind != EvidenceKind::SupersededPod);
    if fails {
        steps.push(Step::FixCause {
            node: h.name.clone(),
        });
    }
    if h.facts.pod_superseded_not_ready {
        steps.push(Step::Steer(Command::new(Action::ReplacePod, &h.name)));
    }
    steps
}
