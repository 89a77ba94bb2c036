//! Shards at risk right now (docs/plugin.md, "A shard at risk"): a shard whose
//! judged primary has no Ready replica, because its replicas are all in
//! flight, starting or not Ready. With two replicas a shard the operator
//! rolls both back to back (about 15 s without a connected replica); with
//! one, every replica's roll leaves its shard so. Losing the primary then
//! loses writes. The verdict does not change for it.

use super::clock::secs;
use super::judge::Judged;
use crate::report::{Risk, RiskKind, Role};
use jiff::Timestamp;
use std::collections::BTreeMap;

/// Since when a node has been down, as far as the objects tell: its own
/// Ready=False transition (the node controller marks it when its roll
/// begins, or its pod fails), else its pod's deletion, its pod's turn to
/// not Ready, or a pod created and not Ready yet.
pub(crate) fn down_since(j: &Judged<'_>) -> Option<Timestamp> {
    let v = &j.view;
    let pod = v.pod.map(|p| &p.metadata);
    v.node
        .condition(crate::snapshot::keys::COND_READY)
        .filter(|c| c.is_false())
        .and_then(|c| c.last_transition_time.as_ref().map(|t| t.0))
        .or_else(|| pod.and_then(|m| m.deletion_timestamp.as_ref().map(|t| t.0)))
        .or_else(|| v.pod_not_ready_since())
        .or_else(|| {
            pod.filter(|_| v.pod_ready() != Some(true))
                .and_then(|m| m.creation_timestamp.as_ref().map(|t| t.0))
        })
}

/// A replica that serves: its node ready and its pod Ready.
fn ready(j: &Judged<'_>) -> bool {
    j.view.node_ready() && j.view.pod_ready() == Some(true)
}

/// The shards whose one judged primary has other nodes, none of them
/// Ready, in shard order.
pub(crate) fn risks(nodes: &[Judged<'_>], now: Timestamp) -> Vec<Risk> {
    let mut shards: BTreeMap<u32, Vec<&Judged<'_>>> = BTreeMap::new();
    for j in nodes.iter().filter(|j| j.cluster_owned) {
        if let Some(s) = j.place.shard {
            shards.entry(s).or_default().push(j);
        }
    }
    let mut out = Vec::new();
    for (shard, members) in shards {
        // A shard whose judged primary newer evidence contradicts: any of
        // its nodes may be the primary, so it is at risk when no more than
        // one of them is Ready (the primary is not named).
        if members.iter().any(|j| j.role.contradicted()) {
            if members.len() > 1 && members.iter().filter(|j| ready(j)).count() <= 1 {
                let since = members.iter().filter_map(|j| down_since(j)).max();
                out.push(Risk {
                    kind: RiskKind::NoReadyReplica,
                    shard,
                    primary: None,
                    since,
                    for_seconds: since.map(|t| secs(super::clock::since(now, t))),
                    replicas: None,
                });
            }
            continue;
        }
        let primaries: Vec<&&Judged<'_>> = members
            .iter()
            .filter(|j| j.role.role == Some(Role::Primary))
            .collect();
        let [primary] = primaries.as_slice() else {
            continue;
        };
        let replicas: Vec<&&Judged<'_>> = members
            .iter()
            .filter(|j| j.name() != primary.name())
            .collect();
        if replicas.is_empty() || replicas.iter().any(|j| ready(j)) {
            continue;
        }
        let since = replicas.iter().filter_map(|j| down_since(j)).max();
        out.push(Risk {
            kind: RiskKind::NoReadyReplica,
            shard,
            primary: Some(primary.name().to_string()),
            since,
            for_seconds: since.map(|t| secs(super::clock::since(now, t))),
            replicas: None,
        });
    }
    out
}
