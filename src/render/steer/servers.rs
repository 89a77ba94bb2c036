//! What the servers said, as a plan shows it before it writes or asks:
//! each server of the node's shard (its role, link, whether it is synced,
//! its lag, when it was read, or why it was not), in the text and as the
//! steering document's `servers`.

use crate::render::style::clean;
use crate::report::{Role, ServerNote};
use crate::snapshot::LinkStatus;
use crate::steer::plan::{NodeReading, ShardReading};
use jiff::Timestamp;
use serde::Serialize;

/// The steering document's `servers`: the readings the plan used.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServersDocument {
    pub cluster: String,
    pub shard: Option<u32>,
    pub nodes: Vec<ServerEntry>,
}

/// One server of the shard, as the plan used it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerEntry {
    pub node: String,
    pub pod: Option<String>,
    /// `primary` or `replica` by its server; null where it was not read.
    pub role: Option<Role>,
    pub link: Option<LinkStatus>,
    pub syncing: Option<bool>,
    /// A replica synced by the operator's rule; null for a primary.
    pub synced: Option<bool>,
    pub lag_bytes: Option<u64>,
    pub observed_at: Option<Timestamp>,
    /// Why its server's word was not had: the reading's error (`timed
    /// out`, `auth refused`, ...), `missing`, `stale` or `other pod`;
    /// null where it was read.
    pub unread: Option<String>,
}

/// A short code for why a server's word is not had.
fn unread_code(note: &ServerNote) -> Option<String> {
    match note {
        ServerNote::Missing => Some("missing".into()),
        ServerNote::Unread { error } if error.is_empty() => Some("bad reply".into()),
        ServerNote::Unread { error } => Some(clean(error)),
        ServerNote::Stale { .. } => Some("stale".into()),
        ServerNote::OtherPod { .. } => Some("other pod".into()),
        ServerNote::EmptyPrimary { .. } => None,
    }
}

fn entry(n: &NodeReading) -> ServerEntry {
    let s = n.server.as_ref();
    ServerEntry {
        node: n.node.clone(),
        pod: n.pod.clone(),
        role: s.and_then(|s| s.role),
        link: s.and_then(|s| s.link),
        syncing: s.and_then(|s| s.syncing),
        synced: s.and_then(|s| s.synced),
        lag_bytes: s.and_then(|s| s.lag_bytes),
        observed_at: s.and_then(|s| s.observed_at),
        unread: match (s, &n.unread) {
            (Some(_), _) => None,
            (None, Some(note)) => unread_code(note),
            (None, None) => Some("missing".into()),
        },
    }
}

/// The document's `servers`; null where no server of the shard was read
/// at all (the plan's ServersUnread warning says why).
pub(crate) fn document(shard: Option<&ShardReading>) -> Option<ServersDocument> {
    let shard = shard?;
    if shard
        .nodes
        .iter()
        .all(|n| n.server.is_none() && n.unread.is_none())
    {
        return None;
    }
    Some(ServersDocument {
        cluster: shard.cluster.clone(),
        shard: shard.shard,
        nodes: shard.nodes.iter().map(entry).collect(),
    })
}

/// `servers of shard 1, as read:` and a line per server:
/// `  cache-1-1  replica, link up, synced, lag 0 B (10:16:10)`.
pub(crate) fn text(shard: Option<&ShardReading>) -> String {
    let Some(doc) = document(shard) else {
        return String::new();
    };
    let mut out = match doc.shard {
        Some(s) => format!("servers of shard {s}, as read:\n"),
        None => "its server, as read:\n".to_string(),
    };
    let width = doc
        .nodes
        .iter()
        .map(|n| crate::render::fit::columns(&clean(&n.node)))
        .max()
        .unwrap_or(0);
    for n in &doc.nodes {
        let name = clean(&n.node);
        let pad = " ".repeat(width.saturating_sub(crate::render::fit::columns(&name)));
        let mut said: Vec<String> = Vec::new();
        match (&n.unread, n.role) {
            (Some(why), _) => said.push(format!("not read ({why})")),
            (None, Some(Role::Primary)) => said.push("primary".into()),
            (None, Some(Role::Replica)) => said.push("replica".into()),
            (None, None) => said.push("role not said".into()),
        }
        if let Some(link) = n.link {
            said.push(match link {
                LinkStatus::Up => "link up".into(),
                LinkStatus::Down => "link down".into(),
            });
        }
        if n.syncing == Some(true) {
            said.push("syncing".into());
        }
        match n.synced {
            Some(true) => said.push("synced".into()),
            Some(false) => said.push("not synced".into()),
            None => {}
        }
        if let Some(lag) = n.lag_bytes {
            said.push(format!("lag {lag} B"));
        }
        let at = n
            .observed_at
            .map(|t| format!(" ({})", crate::units::timestamp(t)))
            .unwrap_or_default();
        out.push_str(&format!("  {name}{pad}  {}{at}\n", said.join(", ")));
    }
    out
}
