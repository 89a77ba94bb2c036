//! The cluster's size against its spec: a cluster still being created,
//! and a scale asked for during a roll, which the operator applies only
//! after the roll (docs/plugin.md, "A scale that waits", "Creation").

use super::judge::Judged;
use crate::report::{Creating, PendingScale};
use crate::snapshot::ValkeyCluster;

/// The nodes the spec asks for: shards × (1 + replicas). None when the
/// spec does not say how many shards (or says something no operator
/// accepts).
fn wanted(cluster: &ValkeyCluster) -> Option<usize> {
    let shards = usize::try_from(cluster.spec.shards?)
        .ok()
        .filter(|s| *s > 0)?;
    let replicas = usize::try_from(cluster.spec.replicas.unwrap_or(0)).ok()?;
    shards.checked_mul(replicas.checked_add(1)?)
}

/// A roll is in flight: a node holds, asks or is behind.
pub(crate) fn rolling(nodes: &[Judged<'_>]) -> bool {
    nodes
        .iter()
        .any(|j| j.cluster_owned && (j.holder || j.asks || j.behind))
}

/// A scale that waits: the spec asks for more nodes than exist while a
/// roll is in flight. None otherwise.
pub(crate) fn pending(
    cluster: Option<&ValkeyCluster>,
    nodes: &[Judged<'_>],
) -> Option<PendingScale> {
    let c = cluster?;
    let have = nodes.iter().filter(|j| j.cluster_owned).count();
    let want = wanted(c)?;
    (want > have && rolling(nodes)).then(|| PendingScale {
        shards: c.spec.shards.and_then(|s| u32::try_from(s).ok()),
        replicas: c.spec.replicas.and_then(|r| u32::try_from(r).ok()),
    })
}

/// A cluster being created (or growing with no roll in flight): fewer
/// cluster-owned nodes than its spec asks for, and not Ready for its
/// generation (no Ready condition yet, one for an older generation, or
/// not True).
pub(crate) fn creating(
    cluster: Option<&ValkeyCluster>,
    ready_for_generation: bool,
    nodes: &[Judged<'_>],
) -> Option<Creating> {
    let c = cluster?;
    let have = nodes.iter().filter(|j| j.cluster_owned).count();
    let want = wanted(c)?;
    (want > have && !ready_for_generation && !rolling(nodes)).then_some(Creating { have, want })
}
