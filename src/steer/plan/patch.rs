//! What a plan writes: one JSON merge patch per ValkeyNode, carrying the
//! resourceVersion it was decided on (or replace-pod's pod delete, with
//! its preconditions), and the Event recorded after it.

use super::RuleInput;
use crate::report::{NodeReport, Protocol};
use crate::snapshot::{Snapshot, VALKEY_API_VERSION, ValkeyNode, keys};
use crate::units::short_hash;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// What one patch does to its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PatchEffect {
    /// Sets the permit (P1 annotation or P2 spec.workloadRevision).
    Grant,
    /// Removes the permit and the trace.
    Revoke,
}

/// One JSON merge patch of one ValkeyNode.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NodePatch {
    pub kind: &'static str,
    pub name: String,
    /// The resourceVersion the patch was decided on (also in its body).
    pub resource_version: Option<String>,
    pub patch: Value,
    pub effect: PatchEffect,
    /// The permit the node held when the patch was decided (P1), which an
    /// undo gives back.
    pub previous: Option<String>,
    /// The node's `status.role` is `primary` (an undo's grant needs
    /// `--allow-primary`).
    pub primary: bool,
}

/// The pod delete a plan sends, with the preconditions it was decided on:
/// the API server deletes nothing when the pod's UID or resourceVersion
/// moved. Serialized as the steering document's `podDelete`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PodDelete {
    pub pod: String,
    pub uid: String,
    pub resource_version: String,
    /// The pod's `controller-revision-hash`.
    pub revision: String,
    /// The StatefulSet and its `status.updateRevision`.
    pub stateful_set: String,
    pub update_revision: String,
}

/// `Normal` or `Warning`, as a `v1` Event spells its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(crate) enum EventType {
    Normal,
    /// A step that bypasses the operator's own order (force, a pod
    /// deleted by hand): what `kubectl get events --field-selector
    /// type=Warning` should show.
    Warning,
}

/// An object an Event names: `regarding` (the ValkeyNode) or `related`
/// (the pod replace-pod deletes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EventObject {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub name: String,
    pub uid: Option<String>,
}

/// The whole `v1` Event a plan records (in the plan's namespace) once its
/// write is done: shown by `--dry-run=client`, sent as it is. What only
/// the write can tell (the time, the node's resourceVersion after it) the
/// executor adds. Serialized as an entry of the steering document's
/// `events` (fields in that order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EventPlan {
    #[serde(rename = "type")]
    pub type_: EventType,
    pub reason: &'static str,
    /// The Event's message.
    pub note: String,
    /// The ValkeyNode: `involvedObject`.
    pub regarding: EventObject,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related: Option<EventObject>,
    /// `source.component` and `reportingComponent`.
    pub reporting_component: &'static str,
}

impl EventPlan {
    /// An Event about ValkeyNode `node` (`uid` from the snapshot).
    pub(crate) fn about_node(
        type_: EventType,
        node: &str,
        uid: Option<String>,
        reason: &'static str,
        note: String,
    ) -> EventPlan {
        EventPlan {
            type_,
            regarding: EventObject {
                api_version: VALKEY_API_VERSION,
                kind: "ValkeyNode",
                name: node.to_string(),
                uid,
            },
            related: None,
            reason,
            note,
            reporting_component: keys::FIELD_MANAGER,
        }
    }

    /// The ValkeyNode the Event is about.
    pub(crate) fn node(&self) -> &str {
        &self.regarding.name
    }
}

/// ValkeyNode `name` of the snapshot.
fn node_object<'a>(snapshot: &'a Snapshot, namespace: &str, name: &str) -> Option<&'a ValkeyNode> {
    snapshot
        .nodes
        .iter()
        .find(|o| o.namespace() == namespace && o.name() == name)
}

/// The Event about `node`, its UID (for `involvedObject`) from the snapshot.
pub(super) fn node_event(
    c: &RuleInput<'_>,
    type_: EventType,
    node: &NodeReport,
    reason: &'static str,
    note: String,
) -> EventPlan {
    let uid = node_object(c.snapshot, &c.request.namespace, &node.name)
        .and_then(|o| o.metadata.uid.clone());
    EventPlan::about_node(type_, &node.name, uid, reason, note)
}

pub(super) fn node_rv(snapshot: &Snapshot, namespace: &str, n: &NodeReport) -> Option<String> {
    node_object(snapshot, namespace, &n.name)
        .and_then(|o| o.metadata.resource_version.clone())
        .or_else(|| n.facts.resource_version.clone())
}

/// `metadata` of a merge patch: the resourceVersion it was decided on (the
/// API server answers 409 when the object moved since) and annotations.
fn metadata(rv: Option<String>, annotations: Map<String, Value>) -> Value {
    let mut meta = Map::new();
    if let Some(rv) = rv {
        meta.insert("resourceVersion".into(), Value::String(rv));
    }
    meta.insert("annotations".into(), Value::Object(annotations));
    Value::Object(meta)
}

/// The patch that grants `c.node` a permit for `value`, decided on the
/// node's resourceVersion `c.rv`.
pub(super) fn grant_patch(c: &RuleInput<'_>, value: &str, protocol: Protocol) -> NodePatch {
    let mut ann = Map::new();
    if protocol != Protocol::P2 {
        ann.insert(keys::ANN_PERMIT.into(), json!(value));
    }
    ann.insert(keys::ANN_GRANTED_REVISION.into(), json!(value));
    ann.insert(keys::ANN_GRANTED_BY.into(), json!(c.actor));
    ann.insert(
        keys::ANN_GRANTED_AT.into(),
        json!(crate::units::timestamp(c.now)),
    );
    // A missing reason is written as null: the trace outlives its permit,
    // and an old reason must not be read as this grant's.
    ann.insert(
        keys::ANN_REASON.into(),
        c.request
            .reason
            .as_deref()
            .map_or(Value::Null, |r| json!(r)),
    );
    ann.insert(keys::ANN_SERVERS.into(), json!(servers_said(c)));
    let mut body = Map::new();
    body.insert("metadata".into(), metadata(c.rv.clone(), ann));
    if protocol == Protocol::P2 {
        body.insert("spec".into(), json!({ "workloadRevision": value }));
    }
    NodePatch {
        kind: "ValkeyNode",
        name: c.node.name.clone(),
        resource_version: c.rv.clone(),
        patch: Value::Object(body),
        effect: PatchEffect::Grant,
        previous: c.node.permit.clone().filter(|_| c.node.facts.holder),
        primary: may_be_primary(c.node).is_some(),
    }
}

pub(super) fn revoke_patch(node: &NodeReport, rv: Option<String>) -> NodePatch {
    let mut ann = Map::new();
    for key in [
        keys::ANN_PERMIT,
        keys::ANN_GRANTED_REVISION,
        keys::ANN_GRANTED_BY,
        keys::ANN_GRANTED_AT,
        keys::ANN_REASON,
        keys::ANN_SERVERS,
    ] {
        ann.insert(key.into(), Value::Null);
    }
    NodePatch {
        kind: "ValkeyNode",
        name: node.name.clone(),
        resource_version: rv.clone(),
        patch: json!({ "metadata": metadata(rv, ann) }),
        effect: PatchEffect::Revoke,
        previous: node.permit.clone(),
        primary: may_be_primary(node).is_some(),
    }
}

/// `alice granted the roll permit for 9f2c41ab03de by hand: reason`
///
/// The Event's note is data written to the API (and shown as it will be
/// sent by `--dry-run=client`), so it is spelt here, not in render.
pub(super) fn event_message(
    c: &RuleInput<'_>,
    what: &str,
    value: Option<&str>,
    why: Option<&str>,
) -> String {
    let mut m = format!("{} {what}", c.actor);
    if let Some(v) = value {
        m.push_str(&format!(" for {}", short_hash(v)));
    }
    m.push_str(" by hand (kubectl valkey-roll)");
    match why.or(c.request.reason.as_deref()) {
        Some(r) => m.push_str(&format!(": {r}")),
        None => m.push_str("; no reason given"),
    }
    m.push_str(&format!("; the servers said: {}", servers_said(c)));
    m
}

/// The servers of the node's shard at the moment of the step, in one line.
fn servers_said(c: &RuleInput<'_>) -> String {
    let shard = super::ShardReading::of(c.cluster, c.node);
    super::servers_line(&c.request.servers, Some(&shard))
}

/// The primary check of grant and force, on the node's judged role
/// (docs/plugin.md, Judged role), not the shard's one ready primary the walk
/// uses, so a primary that is not ready counts too: `Some(None)` when it is
/// its shard's primary, `Some(Some(why))` when its role is unsure (it may
/// be), None when it is not (or nothing says anything of it).
pub(super) fn may_be_primary(n: &NodeReport) -> Option<Option<crate::report::RoleNote>> {
    match (n.role, &n.role_note) {
        (_, Some(note)) => Some(Some(note.clone())),
        (Some(crate::report::Role::Primary), None) => Some(None),
        _ => None,
    }
}
