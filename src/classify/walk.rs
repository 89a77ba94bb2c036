//! The cluster controller's walk: where each node stands, which node is its
//! shard's primary, and the order the controller visits them.

use super::role::JudgedRole;
use crate::report::Role;
use crate::snapshot::{ValkeyNode, keys};
use std::collections::{BTreeMap, BTreeSet};

/// A node's place in the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place<'a> {
    pub shard: Option<u32>,
    pub index: Option<u32>,
    /// Borrowed from the node: a place is made and copied for every node.
    pub name: &'a str,
    /// The node is its shard's primary (exactly one ready `primary`).
    pub is_primary: bool,
}

/// Shard and node index: the labels `valkey.io/shard-index` and
/// `valkey.io/node-index`, each falling back to the name
/// `<cluster>-<shard>-<node>` when its label is missing or not a number.
pub(crate) fn indices(node: &ValkeyNode, cluster: &str) -> (Option<u32>, Option<u32>) {
    let from_name = node
        .name()
        .strip_prefix(cluster)
        .and_then(|rest| rest.strip_prefix('-'))
        .and_then(|rest| rest.split_once('-'))
        .and_then(|(s, n)| Some((s.parse::<u32>().ok()?, n.parse::<u32>().ok()?)));
    let label = |key| node.label(key).and_then(|v| v.trim().parse::<u32>().ok());
    (
        label(keys::LABEL_SHARD_INDEX).or(from_name.map(|p| p.0)),
        label(keys::LABEL_NODE_INDEX).or(from_name.map(|p| p.1)),
    )
}

/// Judged a primary (docs/plugin.md, Judged role) and `status.ready`.
fn is_ready_primary(node: &ValkeyNode, role: Option<&JudgedRole>) -> bool {
    role.is_some_and(|r| r.role == Some(Role::Primary))
        && node.status.as_ref().and_then(|s| s.ready) == Some(true)
}

/// Places every node (same order as `nodes`) and marks each shard's
/// primary: the one node of the shard whose judged role (`roles`, in the
/// same order) is `primary` and whose `status.ready` is true; none when
/// there is no such node or more than one, or when newer evidence
/// contradicts the shard's judged primary, but for a newer status write,
/// whose best guess the roles follow (still unsure).
pub(crate) fn place<'a>(
    nodes: &[&'a ValkeyNode],
    cluster: &str,
    roles: &[JudgedRole],
) -> Vec<Place<'a>> {
    let mut places: Vec<Place> = nodes
        .iter()
        .map(|n| {
            let (shard, index) = indices(n, cluster);
            Place {
                shard,
                index,
                name: n.name(),
                is_primary: false,
            }
        })
        .collect();
    let mut candidates: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    // A shard whose judged primary newer evidence contradicts has no
    // primary the walk can go by: any of its nodes may be it.
    let mut doubted: BTreeSet<u32> = BTreeSet::new();
    for (i, n) in nodes.iter().enumerate() {
        let Some(shard) = places[i].shard else {
            continue;
        };
        if roles
            .get(i)
            .is_some_and(|r| r.contradicted() && !r.guessed_from_status())
        {
            doubted.insert(shard);
        }
        if is_ready_primary(n, roles.get(i)) {
            candidates.entry(shard).or_default().push(i);
        }
    }
    candidates.retain(|shard, _| !doubted.contains(shard));
    for found in candidates.values() {
        if let [only] = found.as_slice() {
            places[*only].is_primary = true;
        }
    }
    places
}

/// Walk order as indices into `places`: shard ascending. Within a shard,
/// while some node of the cluster needs a roll (`rolling`: it asks, holds
/// or is behind), the controller reads the live topology: the other nodes
/// by node index ascending, then the primary; node index descending when
/// the shard's primary is unknown. When no node needs a roll it reads no
/// topology and walks node index descending in every shard, primary or
/// not. Nodes without both indices come last, by name. Ties break by name
/// so the order is total.
pub(crate) fn order(places: &[Place<'_>], rolling: bool) -> Vec<usize> {
    let mut shards: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut loose: Vec<usize> = Vec::new();
    for (i, p) in places.iter().enumerate() {
        match (p.shard, p.index) {
            (Some(s), Some(_)) => shards.entry(s).or_default().push(i),
            _ => loose.push(i),
        }
    }
    let mut out = Vec::with_capacity(places.len());
    for members in shards.values_mut() {
        let primary_known = rolling && members.iter().any(|&i| places[i].is_primary);
        if primary_known {
            members.sort_by(|&a, &b| {
                let (pa, pb) = (&places[a], &places[b]);
                (pa.is_primary, pa.index, &pa.name).cmp(&(pb.is_primary, pb.index, &pb.name))
            });
        } else {
            members.sort_by(|&a, &b| {
                let (pa, pb) = (&places[a], &places[b]);
                pb.index.cmp(&pa.index).then_with(|| pa.name.cmp(pb.name))
            });
        }
        out.extend(members.iter().copied());
    }
    loose.sort_by(|&a, &b| places[a].name.cmp(places[b].name));
    out.extend(loose);
    out
}
