//! The planner's tests: scenes of node reports built by hand (the
//! classifier has its own tests), planned against; each file one part of
//! the rules.

mod force;
mod grant;
mod refusals;
mod replan;
mod revoke;
mod servers;
mod undo;
mod way_out;

use super::*;
use crate::error::Error;
use crate::fixture::sample::{NEW as H, OLD, bare_cluster, bare_node, now};
use crate::report::{Evidence, EvidenceKind, Finding, NodeFacts, NodeState, Unhealthy, Verdict};
use crate::snapshot::{ValkeyNode, keys};
use serde_json::{Value, json};

const NS: &str = "prod";

/// What the plan would ask, as a person reads it (empty when nothing).
fn asked(p: &Plan) -> String {
    p.confirmation
        .as_ref()
        .map(crate::render::steer::confirmation)
        .unwrap_or_default()
}

/// A change, as a person reads it.
fn change(c: Change) -> String {
    crate::render::steer::refusal::change(&c)
}

/// A healthy cluster-owned replica whose pod is Ready.
fn node(name: &str, state: NodeState) -> NodeReport {
    NodeReport {
        role: Some(crate::report::Role::Replica),
        facts: NodeFacts {
            cluster_owned: true,
            healthy: true,
            pod_ready: Some(true),
            ..NodeFacts::default()
        },
        ..bare_node(name, state)
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
    n.role = Some(crate::report::Role::Primary);
    n.facts.is_primary = true;
    n
}

fn unhealthy(mut n: NodeReport, why: Unhealthy) -> NodeReport {
    n.facts.healthy = false;
    n.ready = false;
    n.facts.unhealthy_because = vec![why];
    n
}

/// The node's pod is not Ready and crash-loops.
fn crashing(mut n: NodeReport) -> NodeReport {
    n = unhealthy(n, Unhealthy::NodeNotReady);
    n.pod = Some(format!("valkey-{}-0", n.name));
    n.facts.pod_ready = Some(false);
    n.evidence.push(Evidence {
        kind: EvidenceKind::CrashLoopBackOff,
        finding: Finding::ContainerWaiting {
            pod: format!("valkey-{}-0", n.name),
            container: "server".into(),
            reason: "CrashLoopBackOff".into(),
            restarts: 7,
        },
        last_termination: None,
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
                    metadata: crate::snapshot::NodeMeta {
                        name: Some(n.name.clone()),
                        namespace: Some(NS.into()),
                        resource_version: Some(format!("rv-{}", n.name)),
                        ..Default::default()
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
            protocol: self.protocol,
            holders: self
                .nodes
                .iter()
                .filter(|n| n.facts.holder)
                .map(|n| n.name.clone())
                .collect(),
            front,
            ..bare_cluster("cache", Verdict::Waiting, self.nodes.clone())
        };
        (
            snapshot,
            Report {
                clusters: vec![cluster],
            },
        )
    }
}

/// A request for `action` on `node` in [`NS`], with none of its verb's
/// flags.
pub(super) fn req(action: Action, node: &str) -> Request {
    let steer = match action {
        Action::Grant => Steer::Grant {
            revision: None,
            any: false,
            allow_primary: false,
        },
        Action::Revoke => Steer::Revoke,
        Action::Force => Steer::Force {
            revision: None,
            any: false,
            takeover: false,
            unsafe_shard: None,
        },
        Action::ReplacePod => Steer::ReplacePod,
    };
    Request {
        steer,
        namespace: NS.into(),
        node: node.into(),
        reason: None,
        protocol_override: None,
        dry_run: DryRun::None,
        access: AccessFlags::default(),
        servers: ServersAsked::Off,
    }
}

/// The warning of a plan made with `--servers=off`, as every hand-built
/// scene's is (they hold no reading): last among the warnings.
fn off() -> Warning {
    Warning::ServersUnread {
        shard: None,
        why: Unread::Off,
    }
}

/// What the Event's note and the annotation say of servers not read.
const OFF_LINE: &str = "servers not read (--servers=off)";

fn run(scene: &Scene, request: &Request) -> Plan {
    let (snapshot, report) = scene.build();
    plan(&snapshot, &report, request, now(), "alice").expect("plan")
}

fn stuck_holder() -> NodeReport {
    holder("cache-1-1", NodeState::Stuck, H, Some(840))
}

fn claims_primary(mut n: NodeReport) -> NodeReport {
    n.role = Some(crate::report::Role::Primary);
    n.facts.is_primary = false;
    n
}

/// `--revision HASH` on a grant or force.
fn revision(r: &mut Request, hash: &str) {
    match &mut r.steer {
        Steer::Grant { revision, .. } | Steer::Force { revision, .. } => {
            *revision = Some(hash.to_string());
        }
        other => panic!("--revision on {}", other.action()),
    }
}

/// `--any` on a grant or force.
fn any(r: &mut Request) {
    match &mut r.steer {
        Steer::Grant { any, .. } | Steer::Force { any, .. } => *any = true,
        other => panic!("--any on {}", other.action()),
    }
}

/// `grant --allow-primary`.
fn allow_primary(r: &mut Request) {
    match &mut r.steer {
        Steer::Grant { allow_primary, .. } => *allow_primary = true,
        other => panic!("--allow-primary on {}", other.action()),
    }
}

/// `force --takeover`.
fn takeover(r: &mut Request) {
    match &mut r.steer {
        Steer::Force { takeover, .. } => *takeover = true,
        other => panic!("--takeover on {}", other.action()),
    }
}
