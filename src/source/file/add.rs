//! Adding objects to the snapshot: which kinds are read, each object typed
//! on its own (an error names its document, object and field), Lists item
//! by item. A document as the visitors read it comes in through their
//! `add_document`, so this module needs nothing of theirs.

use super::words::{describe, expected_string, field_problem, type_name};
use crate::error::{Error, Result};
use crate::snapshot::{
    NOT_READ_KIND, READING_API_VERSION, READING_GROUP, READING_KIND, Snapshot, VALKEY_API_VERSION,
    VALKEY_GROUP,
};
use k8s_openapi::api::core::v1::{Event, EventSeries};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The kinds the plugin reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Known {
    Cluster,
    Node,
    StatefulSet,
    Deployment,
    Pod,
    /// `v1` Event, as kubectl prints `events`.
    CoreEvent,
    /// `events.k8s.io` Event: converted to the core view.
    EventsEvent,
    /// The plugin's own `valkey-roll.io` ServerReading.
    Reading,
    /// The plugin's own `valkey-roll.io` ServersNotRead (a bundle's).
    NotRead,
}

/// Which known kind a document is; `Err` (the field, the problem) for
/// what looks like a ValkeyCluster or a ValkeyNode in a spelling this
/// plugin does not read: another version or group, or the kind in another
/// case. Ignoring it would hide a node or the whole cluster, and change
/// the verdict.
pub(super) fn known_kind(
    api_version: &str,
    kind: &str,
) -> std::result::Result<Option<Known>, (&'static str, String)> {
    let known = match (api_version, kind) {
        (VALKEY_API_VERSION, "ValkeyCluster") => Known::Cluster,
        (VALKEY_API_VERSION, "ValkeyNode") => Known::Node,
        ("apps/v1", "StatefulSet") => Known::StatefulSet,
        ("apps/v1", "Deployment") => Known::Deployment,
        ("v1", "Pod") => Known::Pod,
        ("v1", "Event") => Known::CoreEvent,
        ("events.k8s.io/v1" | "events.k8s.io/v1beta1", "Event") => Known::EventsEvent,
        (READING_API_VERSION, READING_KIND) => Known::Reading,
        (READING_API_VERSION, NOT_READ_KIND) => Known::NotRead,
        // A reading in another version or group would be a server left
        // out silently: its node's role would fall back to the API's.
        (_, READING_KIND | NOT_READ_KIND)
            if api_version.split('/').next() == Some(READING_GROUP) =>
        {
            return Err((
                "apiVersion",
                format!(
                    "`{api_version}` is not a version this plugin reads (it reads {READING_API_VERSION})"
                ),
            ));
        }
        ("", "ValkeyCluster" | "ValkeyNode") => {
            return Err((
                "apiVersion",
                format!("missing (expected {VALKEY_API_VERSION})"),
            ));
        }
        (_, "ValkeyCluster" | "ValkeyNode")
            if api_version.split('/').next() == Some(VALKEY_GROUP) =>
        {
            return Err((
                "apiVersion",
                format!(
                    "`{api_version}` is not a version this plugin reads (it reads {VALKEY_API_VERSION})"
                ),
            ));
        }
        (_, "ValkeyCluster" | "ValkeyNode") => {
            return Err((
                "apiVersion",
                format!(
                    "`{api_version}` is not the valkey.io group: this plugin reads {kind} at {VALKEY_API_VERSION} only"
                ),
            ));
        }
        _ => {
            let lower = kind.to_ascii_lowercase();
            let lower = lower.strip_suffix('s').unwrap_or(&lower);
            return match lower {
                "valkeycluster" | "valkeynode" => {
                    let proper = if lower == "valkeycluster" {
                        "ValkeyCluster"
                    } else {
                        "ValkeyNode"
                    };
                    Err((
                        "kind",
                        format!(
                            "`{kind}` is not a kind this plugin reads (it reads {proper}, spelled so, at {VALKEY_API_VERSION})"
                        ),
                    ))
                }
                _ => Ok(None),
            };
        }
    };
    Ok(Some(known))
}

/// Adds one document (an object, or a List of them) to the snapshot. `doc`
/// is its label in errors: `3`, or `1/items[4]` for an item of a List.
/// The live source feeds the API server's list responses through here too,
/// so both sources convert objects the same way.
pub(crate) fn add_value(
    snapshot: &mut Snapshot,
    value: &Value,
    doc: &str,
    source_name: &str,
) -> Result<()> {
    add_value_at(snapshot, value, doc, source_name, Kept::default())
}

/// Of a List whose items were read as they were parsed: the file's index
/// of each item kept as a value, and the index of the first streamed item
/// that failed (no kept item after it is read).
#[derive(Clone, Copy, Default)]
pub(super) struct Kept<'a> {
    pub(super) indices: Option<&'a [usize]>,
    pub(super) stop_at: Option<usize>,
}

/// [`add_value`]; `kept`: the file's index of each item of a List whose
/// ignored items were left out while it was read.
pub(super) fn add_value_at(
    snapshot: &mut Snapshot,
    value: &Value,
    doc: &str,
    source_name: &str,
    kept: Kept<'_>,
) -> Result<()> {
    let error = |object: String, field: &str, problem: String| Error::Snapshot {
        source_name: source_name.to_string(),
        doc: doc.to_string(),
        object,
        field: field.to_string(),
        problem,
    };
    let map = match value {
        Value::Null => return Ok(()),
        Value::Object(map) => map,
        other => {
            return Err(error(
                String::new(),
                "(document)",
                format!(
                    "expected a Kubernetes object (a mapping with apiVersion and kind), found {}",
                    type_name(other)
                ),
            ));
        }
    };
    let kind = match map.get("kind") {
        Some(Value::String(kind)) if kind.is_empty() => {
            return Err(error(String::new(), "kind", "empty".into()));
        }
        Some(Value::String(kind)) => kind.as_str(),
        None | Some(Value::Null) => {
            return Err(error(String::new(), "kind", "missing".into()));
        }
        Some(other) => {
            return Err(error(String::new(), "kind", expected_string(other)));
        }
    };
    let api_version = match map.get("apiVersion") {
        Some(Value::String(v)) => v.as_str(),
        None | Some(Value::Null) => "",
        Some(other) => {
            return Err(error(
                describe(kind, value),
                "apiVersion",
                expected_string(other),
            ));
        }
    };

    if kind == "List" || (kind.ends_with("List") && map.contains_key("items")) {
        return add_list(snapshot, value, kind, api_version, doc, source_name, kept);
    }

    let known = known_kind(api_version, kind)
        .map_err(|(field, problem)| error(describe(kind, value), field, problem))?;
    let Some(known) = known else {
        return Ok(());
    };
    // A time the API can hold but a typed object cannot (after
    // 9999-12-30T22:00Z) is read as the latest one it can.
    let clamped;
    let value = if crate::snapshot::has_late_time(value) {
        let mut copy = value.clone();
        crate::snapshot::clamp_late_times(&mut copy);
        clamped = copy;
        &clamped
    } else {
        value
    };
    /// The object as `T`, named and namespaced, or the field that breaks
    /// it and why. Every kind read here is namespaced; an object written by
    /// hand without a namespace lands where kubectl would put it.
    fn typed<T: DeserializeOwned + Named>(
        value: &Value,
    ) -> std::result::Result<T, (String, String)> {
        let mut object: T = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." {
                "(object)".to_string()
            } else {
                path
            };
            let problem = field_problem(&path, &e.into_inner().to_string());
            (path, problem)
        })?;
        let (name, namespace) = object.name_and_namespace();
        match name.as_deref() {
            None => return Err(("metadata.name".into(), "missing".into())),
            Some("") => return Err(("metadata.name".into(), "empty".into())),
            Some(_) => {}
        }
        if namespace.as_deref().is_none_or(str::is_empty) {
            *namespace = Some("default".into());
        }
        Ok(object)
    }
    // The object's label is only built for an error.
    let bad = |(field, problem): (String, String)| error(describe(kind, value), &field, problem);
    // What the snapshot does not keep goes as each object is read
    // (source::slim), so memory holds the slim objects only.
    let slim = slimming();
    match known {
        Known::Cluster => snapshot.clusters.push(typed(value).map_err(bad)?),
        Known::Node => {
            let mut node = typed(value).map_err(bad)?;
            if slim {
                crate::source::slim::node(&mut node);
            }
            snapshot.nodes.push(node);
        }
        Known::StatefulSet => {
            let sts: k8s_openapi::api::apps::v1::StatefulSet = typed(value).map_err(bad)?;
            snapshot.stateful_sets.push(sts.into());
        }
        Known::Deployment => {
            let deployment: k8s_openapi::api::apps::v1::Deployment = typed(value).map_err(bad)?;
            snapshot.deployments.push(deployment.into());
        }
        Known::Pod => {
            let pod: k8s_openapi::api::core::v1::Pod = typed(value).map_err(bad)?;
            snapshot.pods.push(pod.into());
        }
        Known::CoreEvent => {
            let mut event: Event = typed(value).map_err(bad)?;
            if slim {
                crate::source::slim::event(&mut event);
            }
            crate::source::tidy_event(&mut event);
            snapshot.events.push(event);
        }
        Known::EventsEvent => {
            let event: k8s_openapi::api::events::v1::Event = typed(value).map_err(bad)?;
            let mut event = core_view(event);
            if slim {
                crate::source::slim::event(&mut event);
            }
            crate::source::tidy_event(&mut event);
            snapshot.events.push(event);
        }
        Known::Reading => {
            let reading: crate::snapshot::ServerReading = typed(value).map_err(bad)?;
            check_reading(&reading).map_err(|(field, problem)| bad((field.into(), problem)))?;
            snapshot.readings.push(reading);
        }
        Known::NotRead => {
            let item: crate::snapshot::ServersNotReadItem = typed(value).map_err(bad)?;
            if item.error.len() > READING_TEXT_MAX {
                return Err(bad((
                    "error".into(),
                    format!("longer than {READING_TEXT_MAX} characters, which no reason is"),
                )));
            }
            snapshot
                .servers_not_read
                .push(crate::snapshot::ServersNotRead::of_item(item));
        }
    }
    Ok(())
}

/// The longest text a reading's field holds: a node id is 40 hex digits,
/// an address a few dozen characters, an error a short line.
const READING_TEXT_MAX: usize = 256;

/// The most flags a myself line has (CLUSTER NODES has a handful).
const READING_FLAGS_MAX: usize = 16;

/// A reading whose fields are beyond any server's answer: the field and
/// why. What a server says is short; a reading that is not would fill a
/// screen with a line the plugin only passes on.
fn check_reading(
    r: &crate::snapshot::ServerReading,
) -> std::result::Result<(), (&'static str, String)> {
    let long = |s: &Option<String>| s.as_ref().is_some_and(|s| s.len() > READING_TEXT_MAX);
    let fields = [
        ("node", &r.node),
        ("address", &r.address),
        ("nodeId", &r.node_id),
        ("primaryAddress", &r.primary_address),
        ("clusterState", &r.cluster_state),
        ("error", &r.error),
    ];
    for (field, value) in fields {
        if long(value) {
            return Err((
                field,
                format!("longer than {READING_TEXT_MAX} characters, which no server answers"),
            ));
        }
    }
    if r.flags.len() > READING_FLAGS_MAX {
        return Err((
            "flags",
            format!("more than {READING_FLAGS_MAX} flags, which no myself line has"),
        ));
    }
    if let Some(at) = r.flags.iter().position(|f| f.len() > READING_TEXT_MAX) {
        return Err((
            "flags",
            format!("flag {at} is longer than {READING_TEXT_MAX} characters"),
        ));
    }
    Ok(())
}

#[cfg(test)]
thread_local! {
    /// Tests only: read ValkeyNodes and Events whole, as before they were
    /// slimmed, so a test can compare both readings (the parser thread
    /// inherits it). Pods and workloads are always the snapshot's own slim
    /// types.
    pub(crate) static KEEP_WHOLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Objects are slimmed as they are read (always, but in a test that asks
/// for the whole objects).
pub(super) fn slimming() -> bool {
    #[cfg(test)]
    {
        !KEEP_WHOLE.with(std::cell::Cell::get)
    }
    #[cfg(not(test))]
    {
        true
    }
}

/// The items of a List. A typed list from the API server (`PodList`) leaves
/// `kind` and `apiVersion` off its items; they are taken from the list.
pub(super) fn add_list(
    snapshot: &mut Snapshot,
    value: &Value,
    kind: &str,
    api_version: &str,
    doc: &str,
    source_name: &str,
    kept: Kept<'_>,
) -> Result<()> {
    let items = match value.get("items") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(Error::Snapshot {
                source_name: source_name.to_string(),
                doc: doc.to_string(),
                object: format!(" ({kind})"),
                field: "items".into(),
                problem: format!("expected a sequence, found {}", type_name(other)),
            });
        }
    };
    let item_kind = kind.strip_suffix("List").filter(|k| !k.is_empty());
    for (at, item) in items.iter().enumerate() {
        let index = kept.indices.and_then(|k| k.get(at).copied()).unwrap_or(at);
        if kept.stop_at.is_some_and(|stop| index > stop) {
            break;
        }
        let label = format!("{doc}/items[{index}]");
        // An empty document is nothing, but a null item of a List is a
        // broken List: say so rather than drop an object silently.
        if item.is_null() {
            return Err(Error::Snapshot {
                source_name: source_name.to_string(),
                doc: label,
                object: String::new(),
                field: "(document)".into(),
                problem: "expected a Kubernetes object, found null".into(),
            });
        }
        let filled;
        let item = match (item_kind, item) {
            (Some(item_kind), Value::Object(map)) if !map.contains_key("kind") => {
                let mut map = map.clone();
                map.insert("kind".into(), Value::String(item_kind.to_string()));
                map.entry("apiVersion")
                    .or_insert_with(|| Value::String(api_version.to_string()));
                filled = Value::Object(map);
                &filled
            }
            _ => item,
        };
        add_value(snapshot, item, &label, source_name)?;
    }
    Ok(())
}

/// An `events.k8s.io` Event as the core `v1` API shows the same object:
/// regarding is involvedObject, note is message, the deprecated fields are
/// the core ones, reportingController is reportingComponent.
pub(super) fn core_view(e: k8s_openapi::api::events::v1::Event) -> Event {
    Event {
        action: e.action,
        count: e.deprecated_count,
        event_time: e.event_time,
        first_timestamp: e.deprecated_first_timestamp,
        involved_object: e.regarding.unwrap_or_default(),
        last_timestamp: e.deprecated_last_timestamp,
        message: e.note,
        metadata: e.metadata,
        reason: e.reason,
        related: e.related,
        reporting_component: e.reporting_controller,
        reporting_instance: e.reporting_instance,
        series: e.series.map(|s| EventSeries {
            count: Some(s.count),
            last_observed_time: Some(s.last_observed_time),
        }),
        source: e.deprecated_source,
        type_: e.type_,
    }
}

/// An object's name, and its namespace to set where it has none: of a
/// k8s-openapi object (or a ValkeyCluster) its `ObjectMeta`'s, of a
/// ValkeyNode its own metadata's.
trait Named {
    fn name_and_namespace(&mut self) -> (&Option<String>, &mut Option<String>);
}

impl<T: kube::Resource> Named for T {
    fn name_and_namespace(&mut self) -> (&Option<String>, &mut Option<String>) {
        let meta = self.meta_mut();
        (&meta.name, &mut meta.namespace)
    }
}

impl Named for crate::snapshot::ServersNotReadItem {
    fn name_and_namespace(&mut self) -> (&Option<String>, &mut Option<String>) {
        (&self.metadata.name, &mut self.metadata.namespace)
    }
}

impl Named for crate::snapshot::ValkeyNode {
    fn name_and_namespace(&mut self) -> (&Option<String>, &mut Option<String>) {
        (&self.metadata.name, &mut self.metadata.namespace)
    }
}
