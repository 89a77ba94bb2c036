//! Failover before a primary rolls (docs/protocol.md, "How the cluster
//! controller walks"): the controller emits FailoverInitiated, then
//! FailoverCompleted, FailoverFailed or FailoverTimeout, about the
//! ValkeyCluster, and retries every few seconds. Their notes name pod IPs
//! and shard ids, not nodes: an IP is mapped to a node through its
//! `status.podIP`.

use super::events;
use super::index::Index;
use super::judge::Judged;
use super::text::contains_word;
use crate::snapshot::keys;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Event;

const FAILOVER_EVENTS: [&str; 4] = [
    keys::EVENT_FAILOVER_INITIATED,
    keys::EVENT_FAILOVER_COMPLETED,
    keys::EVENT_FAILOVER_FAILED,
    keys::EVENT_FAILOVER_TIMEOUT,
];

/// The failover attempts of one shard, as the events tell them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Attempts {
    /// How many times a failover was initiated (repeats of one event
    /// counted).
    pub initiated: u32,
    /// The reason and time of the newest failover event.
    pub last: &'static str,
    pub last_at: Option<Timestamp>,
}

/// The node's pod IP appears in the event's note as a whole word.
pub(crate) fn names_pod_ip(e: &Event, ip: Option<&str>) -> bool {
    ip.is_some_and(|ip| !ip.is_empty() && contains_word(events::note(e), ip))
}

pub(crate) fn is_failover(e: &Event) -> bool {
    FAILOVER_EVENTS.contains(&events::reason(e))
}

/// The failover attempts about the shard of `front` (a primary): failover
/// events whose note names the pod IP of a node of that shard. None when
/// there are none.
pub(crate) fn attempts(
    index: &Index<'_>,
    namespace: &str,
    front: &Judged<'_>,
    shard_nodes: &[&Judged<'_>],
) -> Option<Attempts> {
    let ips: Vec<&str> = shard_nodes
        .iter()
        .chain(std::iter::once(&front))
        .filter_map(|j| j.view.node.status.as_ref()?.pod_ip.as_deref())
        .filter(|ip| !ip.is_empty())
        .collect();
    let found: Vec<&Event> = index
        .events_in(namespace)
        .iter()
        .copied()
        .filter(|e| is_failover(e))
        .filter(|e| ips.iter().any(|ip| names_pod_ip(e, Some(ip))))
        .collect();
    let newest = found.iter().max_by_key(|e| events::time(e))?;
    let last = FAILOVER_EVENTS
        .into_iter()
        .find(|r| *r == events::reason(newest))
        .unwrap_or(keys::EVENT_FAILOVER_INITIATED);
    let initiated = found
        .iter()
        .filter(|e| events::reason(e) == keys::EVENT_FAILOVER_INITIATED)
        .map(|e| u32::try_from(e.count.unwrap_or(1).max(1)).unwrap_or(1))
        .sum();
    Some(Attempts {
        initiated,
        last,
        last_at: events::time(newest),
    })
}
