//! When did a permit start? (docs/protocol.md): the plugin's own trace
//! annotations when they are about the current permit, else the newest
//! grant event naming the node, else the managedFields time of the permit
//! field, else unknown.

use super::events;
use super::index::Index;
use super::node::NodeObjects;
use super::text::hash_in;
use crate::report::{GrantSource, Protocol, Unavailable};
use crate::snapshot::keys;
use jiff::Timestamp;

/// The grant time of a holder's permit and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Grant {
    pub at: Option<Timestamp>,
    pub source: GrantSource,
    /// From trusted trace annotations only.
    pub by: Option<String>,
    pub reason: Option<String>,
    /// Every source that could not give a time, and why.
    pub unavailable: Vec<Unavailable>,
}

impl Grant {
    pub(crate) fn unknown() -> Self {
        Grant {
            at: None,
            source: GrantSource::Unknown,
            by: None,
            reason: None,
            unavailable: Vec::new(),
        }
    }
}

/// The `fieldsV1` path of the permit: P1's annotation, P2's spec field.
fn permit_path(protocol: Protocol) -> Vec<String> {
    match protocol {
        Protocol::P2 => vec!["f:spec".into(), "f:workloadRevision".into()],
        Protocol::P1 | Protocol::Unknown => vec![
            "f:metadata".into(),
            "f:annotations".into(),
            format!("f:{}", keys::ANN_PERMIT),
        ],
    }
}

/// The managedFields entries that own the permit field: (manager, time).
/// None when the object carries no managedFields at all.
fn permit_owners(
    view: &NodeObjects<'_>,
    protocol: Protocol,
) -> Option<Vec<(String, Option<Timestamp>)>> {
    let entries = view
        .node
        .metadata
        .managed_fields
        .as_ref()
        .filter(|m| !m.is_empty())?;
    let path = permit_path(protocol);
    Some(
        entries
            .iter()
            .filter(|e| {
                e.fields_v1
                    .as_ref()
                    .is_some_and(|f| crate::snapshot::owns(&f.0, &path))
            })
            .map(|e| {
                (
                    e.manager.clone().unwrap_or_default(),
                    e.time.as_ref().map(|t| t.0),
                )
            })
            .collect(),
    )
}

/// The trace annotations, when they speak of the current permit: their
/// time, by and reason; or why they do not count.
fn trace(
    view: &NodeObjects<'_>,
    protocol: Protocol,
    permit: &str,
) -> Result<(Timestamp, Option<String>, Option<String>), Unavailable> {
    let node = view.node;
    let Some(at) = node.annotation(keys::ANN_GRANTED_AT) else {
        return Err(Unavailable::NoTrace);
    };
    let Ok(at) = at.trim().parse::<Timestamp>() else {
        return Err(Unavailable::TraceTimeInvalid {
            value: at.to_string(),
        });
    };
    let revision = node.annotation(keys::ANN_GRANTED_REVISION).unwrap_or("");
    if revision != permit {
        return Err(Unavailable::TraceForOtherRevision {
            revision: revision.to_string(),
            permit: permit.to_string(),
        });
    }
    // Where managedFields are present, the permit must have been written by
    // the plugin. When no entry owns the field the check cannot be made, and
    // the trace is trusted.
    if let Some(owners) = permit_owners(view, protocol)
        && !owners.is_empty()
        && !owners.iter().any(|(m, _)| m == keys::FIELD_MANAGER)
    {
        return Err(Unavailable::TraceNotOurs {
            protocol,
            managers: owners.into_iter().map(|(m, _)| m).collect(),
        });
    }
    let by = node.annotation(keys::ANN_GRANTED_BY).map(str::to_string);
    let reason = node.annotation(keys::ANN_REASON).map(str::to_string);
    Ok((at, by, reason))
}

/// The newest grant event for this permit: P1 hash: WorkloadRollPermitted
/// naming the node (and the hash when the note has one); P1 `*` and P2:
/// ValkeyNodeUpdated naming the node; in each case no older than a second
/// before the permit field's latest write, where managedFields tell it.
fn event(
    index: &Index<'_>,
    view: &NodeObjects<'_>,
    protocol: Protocol,
    permit: &str,
) -> Result<Timestamp, Unavailable> {
    let (reason, hash_checked) = match protocol {
        Protocol::P2 => (keys::EVENT_NODE_UPDATED, false),
        _ if permit == "*" => (keys::EVENT_NODE_UPDATED, false),
        _ => (keys::EVENT_PERMITTED, true),
    };
    let naming = || index.events_naming(view.namespace(), view.name());
    // P2: ValkeyNodeUpdated fires on every Update of the node (labels,
    // config-only edits), so it dates the advance only when it agrees with
    // the revision change: not after the node last applied its current
    // revision (give or take a second: the recorder writes asynchronously,
    // so an advance's event can land just after the node applied it). A
    // re-advance (after a revert) is applied anew, so it is the newest: it
    // restarts the clock.
    let applied = (protocol == Protocol::P2)
        .then(|| {
            naming()
                .filter(|e| events::reason(e) == keys::EVENT_APPLIED)
                .filter(|e| hash_in(events::note(e)) == Some(permit))
                .filter_map(events::time)
                .max()
        })
        .flatten();
    let slack = jiff::SignedDuration::from_secs(1);
    // An event counts only for the current permit's write: newer than the
    // latest write of the permit field (its managedFields time, whole
    // seconds), or within a second of it. An older occurrence of the same
    // reason is the previous roll's: an operator that advances a node again
    // (a new roll, a re-advance after a revert) writes the field first and
    // its event a moment later.
    let written = managed_fields(view, protocol).ok();
    naming()
        .filter(|e| events::reason(e) == reason)
        .filter(|e| !hash_checked || hash_in(events::note(e)).is_none_or(|h| h == permit))
        .filter_map(events::time)
        .filter(|t| written.is_none_or(|w| w.duration_since(*t) <= slack))
        .filter(|t| applied.is_none_or(|a| t.duration_since(a) <= slack))
        .max()
        .ok_or_else(|| Unavailable::NoEvent {
            reason: reason.to_string(),
        })
}

fn managed_fields(view: &NodeObjects<'_>, protocol: Protocol) -> Result<Timestamp, Unavailable> {
    let Some(owners) = permit_owners(view, protocol) else {
        return Err(Unavailable::NoManagedFields);
    };
    if owners.is_empty() {
        return Err(Unavailable::NoFieldOwner { protocol });
    }
    owners
        .iter()
        .filter_map(|(_, t)| *t)
        .max()
        .ok_or(Unavailable::OwnerWithoutTime { protocol })
}

/// The grant time of `permit` on this node, from the best source; every
/// source that gave nothing is listed with its reason.
pub(crate) fn grant_time(
    index: &Index<'_>,
    view: &NodeObjects<'_>,
    protocol: Protocol,
    permit: &str,
) -> Grant {
    let mut g = Grant::unknown();
    match trace(view, protocol, permit) {
        Ok((at, by, reason)) => {
            g.at = Some(at);
            g.source = GrantSource::Annotation;
            g.by = by;
            g.reason = reason;
        }
        Err(why) => g.unavailable.push(why),
    }
    match event(index, view, protocol, permit) {
        Ok(at) if g.at.is_none() => {
            g.at = Some(at);
            g.source = GrantSource::Event;
        }
        Ok(_) => {}
        Err(why) => g.unavailable.push(why),
    }
    match managed_fields(view, protocol) {
        Ok(at) if g.at.is_none() => {
            g.at = Some(at);
            g.source = GrantSource::ManagedFields;
        }
        Ok(_) => {}
        Err(why) => g.unavailable.push(why),
    }
    g
}

/// The time of a grant by hand, for quiet time: the trace's granted-at,
/// whatever permit it was for.
pub(crate) fn hand_grant_time(view: &NodeObjects<'_>) -> Option<Timestamp> {
    view.node
        .annotation(keys::ANN_GRANTED_AT)
        .and_then(|v| v.trim().parse::<Timestamp>().ok())
}
