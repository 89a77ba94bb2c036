//! The words of a [`Warning`]: what a person should know about a plan that
//! goes ahead.

use super::holder::holder;
use crate::report::Protocol;
use crate::steer::plan::{Unread, Warning};
use crate::units::short_hash;
use std::fmt::Write;

/// What to know about `w`, in the words of the cluster's protocol.
pub(crate) fn warning_in(w: &Warning, protocol: Protocol) -> String {
    match w {
        Warning::Primary {
            node,
            unsure,
            source,
        } if protocol == Protocol::P2 => format!(
            "{}: the controller's proactive failover does not run for a revision advanced by hand; fail over first if you can",
            super::is_primary(node, unsure.as_ref(), *source)
        ),
        Warning::NoSyncedReplica {
            node,
            shard,
            replicas,
        } => format!(
            "--unsafe-shard {shard}: {node} is shard {shard}'s primary by its own server and no replica of the shard is synced ({}); what it holds that no replica has is lost if it does not come back with its data",
            super::replicas_not_synced(replicas)
        ),
        Warning::ReplicaLags {
            replica,
            primary,
            lag_bytes,
        } => format!(
            "{replica} is synced but {lag_bytes} B behind {primary} when read: if it takes over before it catches up, those writes are lost"
        ),
        Warning::ServersUnread { shard, why } => {
            let of = match shard {
                Some(s) => format!("shard {s}'s servers"),
                None => "the servers".to_string(),
            };
            match why {
                Unread::Off => format!(
                    "{of} were not read (--servers=off): decided from the API alone, whose roles can lag a failover and which cannot tell a synced replica"
                ),
                Unread::Cluster { cluster, failure } => format!(
                    "{of} were not read ({}): decided from the API alone",
                    crate::render::notice::cluster_unread(cluster, failure)
                ),
                Unread::NotInFile => format!(
                    "the file holds no reading of {of} (ServerReading items; a bundle keeps them): decided from the API alone"
                ),
                Unread::Servers(missing) => {
                    let named: Vec<String> = missing
                        .iter()
                        .map(|(node, note)| format!("{node}: {note}"))
                        .collect();
                    let shard = shard.map(|s| format!(" of shard {s}")).unwrap_or_default();
                    format!(
                        "not every server{shard} was read ({}): those nodes are judged from the API alone, and a replica not read counts as not synced",
                        named.join("; ")
                    )
                }
            }
        }
        Warning::NotFront { node, front } => {
            let mut s = format!("{node} is not the walk's front");
            match front {
                Some(front) => {
                    let _ = write!(
                        s,
                        " ({front} is): the controller still waits at {front} and may grant it as soon as {node}'s permit is gone"
                    );
                }
                None => s.push_str(" (no node is waiting at the front)"),
            }
            s
        }
        Warning::Primary {
            node,
            unsure,
            source,
        } => format!(
            "{}: the controller's proactive failover does not run for a permit given by hand; fail over first if you can",
            super::is_primary(node, unsure.as_ref(), *source)
        ),
        Warning::OtherHolder {
            holder: h,
            takeover,
        } => {
            if *takeover {
                format!(
                    "{} holds a permit: --takeover revokes it in the same command (its pod is not rolled back)",
                    holder(h)
                )
            } else {
                format!(
                    "{} holds a permit and keeps it: two nodes may roll at once (add --takeover to revoke it)",
                    holder(h)
                )
            }
        }
        Warning::NotHealthy { node, because } => {
            let mut s = format!("{node} is not healthy");
            if !because.is_empty() {
                let _ = write!(s, " ({})", crate::render::words::joined(because));
            }
            s
        }
        Warning::RevisionDiffers {
            node,
            written,
            asked,
            protocol,
        } => {
            let mut s = format!("{node} gets {} but ", short_hash(written));
            match asked {
                Some(a) => {
                    let _ = write!(s, "asks for {}", short_hash(a));
                }
                None => s.push_str("asks for no revision"),
            }
            s.push_str(match protocol {
                Protocol::P2 => {
                    ": the node rolls only when its template hashes to spec.workloadRevision"
                }
                _ => {
                    ": the node controller drops a permit that is neither `*` nor its desired revision"
                }
            });
            s
        }
        Warning::ReplacesPermit { node, old } => {
            format!("{node}'s permit {} is replaced", short_hash(old))
        }
        Warning::RevokeDoesNotRollBack { node } => format!(
            "revoking does not roll {node}'s pod back, and the controller keeps waiting for {node} to become Ready before it moves on (it walks the nodes in order): a broken node stays a block until it is fixed (revert the template; delete a superseded pod) or a permit is forced elsewhere"
        ),
        Warning::NoUndoInP2 { node } => format!(
            "there is no undo: the cluster controller owns {node}'s spec.workloadRevision (it rewrites the whole spec)"
        ),
    }
}
