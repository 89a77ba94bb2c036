//! The servers' word in a plan (docs/plugin.md, "Steering with the
//! servers' word"). The classifier has laid the servers' readings over the
//! API's judgement (a node's role from its own server, each replica
//! synced or not by the operator's rule, a shard whose primary has no
//! synced replica); here a plan takes those facts, never the readings
//! themselves, so a plan and `status --servers` judge alike:
//!
//! - a step that takes down the primary (by its own server) of a shard
//!   with no synced replica is refused (`NoSyncedReplica`) whatever
//!   `--allow-primary` says: the operator itself holds such a primary
//!   back (c33988f, "primary has no synced replicas, deferring roll"),
//!   and with no synced copy the shard's data goes down with it. Only
//!   `force --unsafe-shard N`, the shard typed out, goes past it;
//! - a synced replica that lags its primary is a warning with the gap;
//! - servers not read (asked off, the Secret, a server that failed) are a
//!   warning naming which and why, never a silent "safe".

use super::refusal::{Overridden, Refusal, Unread, Warning};
use super::{Plan, Request, ServersAsked};
use crate::report::{
    ClusterReport, NodeReport, NodeServer, ReplicaLink, RiskKind, Role, ServerNote,
};
use crate::snapshot::LinkStatus;

/// The servers of the node's shard as a plan used them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ShardReading {
    /// The node's ValkeyCluster.
    pub cluster: String,
    /// The node's shard (None: its place is not known; then the node
    /// alone).
    pub shard: Option<u32>,
    /// Each node of the shard, in the cluster's order.
    pub nodes: Vec<NodeReading>,
}

/// One node's server, as the plan used it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NodeReading {
    pub node: String,
    pub pod: Option<String>,
    /// What its own server said, where its reading counts.
    pub server: Option<NodeServer>,
    /// Why its server's word is not had (None where it is, or where the
    /// servers were not read at all: [`ServersAsked`] says why).
    pub unread: Option<ServerNote>,
}

impl ShardReading {
    /// The cluster-owned nodes of `node`'s shard, `node` among them.
    pub(super) fn of(cluster: &ClusterReport, node: &NodeReport) -> ShardReading {
        let mut members: Vec<&NodeReport> = cluster
            .nodes
            .iter()
            .filter(|n| {
                n.name == node.name
                    || (n.facts.cluster_owned && node.shard.is_some() && n.shard == node.shard)
            })
            .collect();
        // In the shard's own order (the report's is by urgency).
        members.sort_by(|a, b| (a.index, &a.name).cmp(&(b.index, &b.name)));
        let nodes = members
            .into_iter()
            .map(|n| NodeReading {
                node: n.name.clone(),
                pod: n.pod.clone(),
                server: n.server.clone(),
                unread: n.facts.server_unread.as_deref().cloned(),
            })
            .collect();
        ShardReading {
            cluster: cluster.name.clone(),
            shard: node.shard,
            nodes,
        }
    }

    /// No node of the shard has a reading of any kind.
    fn none_read(&self) -> bool {
        self.nodes
            .iter()
            .all(|n| n.server.is_none() && n.unread.is_none())
    }
}

/// The warning of servers not read, if any: on every plan, refused or
/// not, since it says how the decision was made.
pub(super) fn unread_warning(asked: &ServersAsked, shard: &ShardReading) -> Option<Warning> {
    let why = match asked {
        ServersAsked::Off => Unread::Off,
        ServersAsked::Live {
            trouble: Some(failure),
        } => Unread::Cluster {
            cluster: shard.cluster.clone(),
            failure: failure.clone(),
        },
        ServersAsked::File if shard.none_read() => Unread::NotInFile,
        ServersAsked::Live { trouble: None } | ServersAsked::File => {
            let missing: Vec<(String, ServerNote)> = shard
                .nodes
                .iter()
                .filter(|n| n.server.is_none())
                .map(|n| {
                    let why = n.unread.clone().unwrap_or(ServerNote::Missing);
                    (n.node.clone(), why)
                })
                .collect();
            if missing.is_empty() {
                return None;
            }
            Unread::Servers(missing)
        }
    };
    Some(Warning::ServersUnread {
        shard: shard.shard,
        why,
    })
}

/// `node`'s own server says it is a primary (its reading counts).
fn primary_by_server(node: &NodeReport) -> bool {
    node.server.as_ref().and_then(|s| s.role) == Some(Role::Primary)
}

/// The classifier's shard at risk for want of a synced replica, when its
/// primary (by the servers) is `node`: taking `node` down leaves no
/// up-to-date copy of the shard's data.
fn no_synced_replica<'a>(
    cluster: &'a ClusterReport,
    node: &NodeReport,
) -> Option<(u32, &'a [ReplicaLink])> {
    if !primary_by_server(node) {
        return None;
    }
    cluster
        .risks
        .iter()
        .find(|r| {
            r.kind == RiskKind::NoSyncedReplica && r.primary.as_deref() == Some(node.name.as_str())
        })
        .map(|r| (r.shard, r.replicas.as_deref().unwrap_or_default()))
}

/// The refusal of a step that takes down a primary with no synced replica.
pub(super) fn refusal(cluster: &ClusterReport, node: &NodeReport) -> Option<Refusal> {
    let (shard, replicas) = no_synced_replica(cluster, node)?;
    Some(Refusal::NoSyncedReplica {
        node: node.name.clone(),
        shard,
        replicas: replicas.to_vec(),
    })
}

/// force: refused as grant is, unless `--unsafe-shard` names the shard;
/// then the confirmation says what may be lost, and a warning repeats it.
pub(super) fn force_past(
    cluster: &ClusterReport,
    node: &NodeReport,
    request: &Request,
    overridden: &mut Vec<Overridden>,
    plan: &mut Plan,
) -> Option<Refusal> {
    let (shard, replicas) = no_synced_replica(cluster, node)?;
    if request.steer.unsafe_shard() != Some(shard) {
        return Some(Refusal::NoSyncedReplica {
            node: node.name.clone(),
            shard,
            replicas: replicas.to_vec(),
        });
    }
    overridden.push(Overridden::NoSyncedReplica {
        node: node.name.clone(),
        shard,
        replicas: replicas.to_vec(),
    });
    plan.warnings.push(Warning::NoSyncedReplica {
        node: node.name.clone(),
        shard,
        replicas: replicas.to_vec(),
    });
    None
}

/// The warnings of a step that goes ahead: a primary's synced replicas
/// that lag it.
pub(super) fn warnings(node: &NodeReport, plan: &mut Plan) {
    let Some(shard) = plan.servers.clone() else {
        return;
    };
    if !primary_by_server(node) {
        return;
    }
    for n in &shard.nodes {
        let Some(server) = n.server.as_ref() else {
            continue;
        };
        if server.synced == Some(true)
            && let Some(bytes) = server.lag_bytes.filter(|b| *b > 0)
        {
            plan.warnings.push(Warning::ReplicaLags {
                replica: n.node.clone(),
                primary: node.name.clone(),
                lag_bytes: bytes,
            });
        }
    }
}

/// replace-pod: the servers' refusal and warnings, after the pod's own
/// checks (its delete takes the node's server down as a roll does).
pub(super) fn check_replace(
    cluster: &ClusterReport,
    node: &NodeReport,
    request: &Request,
    plan: &mut Plan,
) {
    if plan.is_refused() {
        return;
    }
    if let Some(r) = refusal(cluster, node) {
        plan.refuse(r);
        return;
    }
    warnings(node, plan);
    let said = servers_line(&request.servers, plan.servers.as_ref());
    for e in &mut plan.events {
        e.note.push_str(&format!("; the servers said: {said}"));
    }
}

/// The servers' verdict at the moment of a step, in one line, as the
/// Event and the `valkey-roll.io/servers` annotation record it:
/// `shard 1: cache-1-0 replica link up lag 0 B; cache-1-1 primary`.
/// Data written to the API (shown by `--dry-run=client` as it will be
/// sent), so it is spelt here, as the Event's note is.
pub(crate) fn servers_line(asked: &ServersAsked, shard: Option<&ShardReading>) -> String {
    let trouble = match asked {
        ServersAsked::Off => Some("servers not read (--servers=off)".to_string()),
        ServersAsked::Live {
            trouble: Some(failure),
        } => Some(format!("servers not read ({})", failure.code())),
        _ => None,
    };
    if let Some(t) = trouble {
        return t;
    }
    let Some(shard) = shard.filter(|s| !s.none_read()) else {
        return "servers not read".to_string();
    };
    let nodes: Vec<String> = shard
        .nodes
        .iter()
        .map(|n| match (&n.server, &n.unread) {
            (Some(s), _) => {
                let mut said = n.node.clone();
                match s.role {
                    Some(Role::Primary) => said.push_str(" primary"),
                    Some(Role::Replica) => said.push_str(" replica"),
                    None => said.push_str(" role unknown"),
                }
                if let Some(link) = s.link {
                    said.push_str(match link {
                        LinkStatus::Up => " link up",
                        LinkStatus::Down => " link down",
                    });
                }
                if s.syncing == Some(true) {
                    said.push_str(" syncing");
                }
                if let Some(lag) = s.lag_bytes {
                    said.push_str(&format!(" lag {lag} B"));
                }
                said
            }
            (None, Some(ServerNote::Unread { error })) if !error.is_empty() => {
                format!("{} not read ({error})", n.node)
            }
            (None, _) => format!("{} not read", n.node),
        })
        .collect();
    match shard.shard {
        Some(s) => format!("shard {s}: {}", nodes.join("; ")),
        None => nodes.join("; "),
    }
}
