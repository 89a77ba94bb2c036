//! The words of a [`Confirmation`]: what a command says it will do before
//! it asks (or, with `--yes`, before it writes).

use super::holder::holder;
use crate::steer::plan::{Confirmation, Overridden, PodTrouble};
use crate::units::short_hash;

pub(crate) fn confirmation(c: &Confirmation) -> String {
    match c {
        Confirmation::Revoke {
            node,
            permit,
            because,
        } => format!(
            "{node} holds the permit for {h} and its pod is not healthy ({because}). Revoking does not roll its pod back, and the controller keeps waiting for {node} to become Ready before it moves on (it walks the nodes in order), so {node} stays a block until it is fixed (revert the template; delete a superseded pod) or a permit is forced elsewhere.",
            h = short_hash(permit),
            because = because
                .iter()
                .map(pod_trouble)
                .collect::<Vec<_>>()
                .join("; "),
        ),
        Confirmation::Force {
            node,
            value,
            overridden: checks,
        } => {
            let mut s = format!(
                "This forces the permit for {} onto {node}, past the safety checks",
                short_hash(value)
            );
            if checks.is_empty() {
                s.push_str(" (none of them refuses it now).");
            } else {
                s.push_str(": ");
                s.push_str(&checks.iter().map(overridden).collect::<Vec<_>>().join("; "));
                s.push('.');
            }
            s
        }
        Confirmation::ReplacePod { node, delete: d } => format!(
            "replace-pod {node} deletes pod {} (revision {}, not Ready); StatefulSet {} recreates it from its current revision ({}). The node's data on an emptyDir volume is lost; persistent volumes stay.",
            d.pod, d.revision, d.stateful_set, d.update_revision,
        ),
    }
}

fn pod_trouble(t: &PodTrouble) -> String {
    match t {
        PodTrouble::NotReady { pod: Some(pod) } => format!("pod {pod} not Ready"),
        PodTrouble::NotReady { pod: None } => "pod not Ready".to_string(),
        PodTrouble::NotFound => "its pod is not found".to_string(),
        PodTrouble::Evidence(finding) => finding.to_string(),
    }
}

fn overridden(o: &Overridden) -> String {
    match o {
        Overridden::Holder {
            holder: h,
            takeover: true,
        } => format!(
            "{} loses its permit (its pod is not rolled back)",
            holder(h)
        ),
        Overridden::Holder {
            holder: h,
            takeover: false,
        } => format!(
            "{} keeps its permit, so two nodes may roll at once",
            holder(h)
        ),
        Overridden::Primary {
            node,
            unsure,
            source,
        } => format!(
            "{}, and the controller's proactive failover does not run for a permit given by hand",
            super::is_primary(node, unsure.as_ref(), *source)
        ),
        Overridden::NoSyncedReplica {
            node,
            shard,
            replicas,
        } => format!(
            "shard {shard} has no synced replica ({}): while {node} rolls the shard has no up-to-date copy, and every write it took that no replica has is lost if its data does not come back with it",
            super::replicas_not_synced(replicas)
        ),
        Overridden::NotFront { node, front } => {
            format!("{node} is not the walk's front ({front} is)")
        }
    }
}
