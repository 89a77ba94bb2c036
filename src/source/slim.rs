//! What a [`Snapshot`] keeps of each object: what the classifier, `explain`
//! and `history` read, and nothing else. A pod with its managedFields and a
//! spec as the operator builds it (probes, env, volumes) is about 10 KB of
//! JSON; the fields read are a tenth of that.
//!
//! Kept, per kind:
//! - ValkeyCluster, ValkeyNode: the crate's own types (only the fields the
//!   plugin reads), managedFields included: grant times and spec edits are
//!   read from them. A ValkeyNode's entries keep, of the fields they own,
//!   only the permit's and `status.role` ([`node`]); of its labels and
//!   annotations it keeps those read (`snapshot::NodeMeta`), and its lists
//!   at their own size.
//! - Pod, StatefulSet, Deployment: the snapshot's own slim forms
//!   ([`crate::snapshot::Pod`] and the others say what they keep), made
//!   from the k8s-openapi objects by `From`.
//! - ValkeyNode managedFields entries: not their `apiVersion` and
//!   `fieldsType` (never read; two strings an entry, two entries a node).
//! - Event: everything but managedFields, `reportingInstance`, and of
//!   the objects it is about (`involvedObject`, `related`) their
//!   `apiVersion`, `uid`, `resourceVersion` and `fieldPath`: none is read,
//!   and an event of the operator names its objects by kind and name.
//!
//! Two ways lead to the same objects: a whole object is read into its
//! k8s-openapi type and slimmed ([`node`], [`event`], the `From`s: a file,
//! the watch, and every fallback), and `read_page` reads a LIST page
//! straight from the response bytes into the slim objects, never building
//! what is not kept (the live one-shot read). Both give equal snapshots
//! (the contract, and the tests that hold it, are on `read_page`); where
//! the direct reading cannot be sure of that (a time past the latest one
//! the plugin can hold, or anything it cannot read), it says so and the
//! caller reads the page the whole way, which also names a broken field as
//! before. `value` slims the JSON the watch stores to the same fields.

use crate::snapshot::{self, KeptKeys, Snapshot, ValkeyCluster, ValkeyNode};
use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus, StatefulSet, StatefulSetStatus};
use k8s_openapi::api::core::v1::{Event, Pod, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference, Time};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;

/// A ValkeyNode, slimmed in place: each managedFields entry keeps its
/// manager, time and the rest, but of the fields it owns only which of
/// the kept paths (`snapshot::OWNED_KEPT`: the two the grant time
/// is read from, the permit annotation, P1, and `spec.workloadRevision`,
/// P2; and `status.role`, the time the role was written, docs/roles.md)
/// it owns, as the number `snapshot::owns` reads; every entry
/// stays, so "no entry owns the permit" still reads so. Its lists are
/// cut to their own size: read from JSON, which does not say how long a
/// list is, a list of one or two has room for four (some 900 bytes a node
/// of the operator's: two managedFields entries, an owner reference, two
/// conditions; issue 33).
pub fn node(n: &mut ValkeyNode) {
    if let Some(entries) = &mut n.metadata.managed_fields {
        entries.shrink_to_fit();
    }
    if let Some(owners) = &mut n.metadata.owner_references {
        owners.shrink_to_fit();
    }
    if let Some(status) = &mut n.status {
        status.conditions.shrink_to_fit();
    }
    for entry in n.metadata.managed_fields.iter_mut().flatten() {
        entry.api_version = None;
        entry.fields_type = None;
        if let Some(fields) = &mut entry.fields_v1 {
            fields.0 = serde_json::Value::from(owned_bits(&fields.0));
        }
    }
}

/// A ValkeyNode's metadata as the watch stores it: each entry's `fieldsV1`
/// cut to the kept paths it owns, still in the API's form (the stored
/// object is read again as a file's is, and [`node`] slims it then).
pub(crate) fn node_stored(meta: &mut ObjectMeta) {
    use serde_json::{Map, Value};
    // Of its labels and annotations, those read (`snapshot::NodeMeta`).
    if let Some(labels) = &mut meta.labels {
        labels.retain(|k, _| snapshot::NodeLabels::KEYS.contains(&k.as_str()));
    }
    if let Some(annotations) = &mut meta.annotations {
        annotations.retain(|k, _| snapshot::NodeAnnotations::KEYS.contains(&k.as_str()));
    }
    for entry in meta.managed_fields.iter_mut().flatten() {
        entry.api_version = None;
        entry.fields_type = None;
        if let Some(fields) = &mut entry.fields_v1 {
            let bits = owned_bits(&fields.0);
            let mut out = Map::new();
            for (i, path) in crate::snapshot::OWNED_KEPT.iter().enumerate() {
                if bits & (1 << i) == 0 {
                    continue;
                }
                let mut at = &mut out;
                for step in *path {
                    let next = at.entry(*step).or_insert_with(|| Value::Object(Map::new()));
                    let Value::Object(next) = next else {
                        break;
                    };
                    at = next;
                }
            }
            fields.0 = Value::Object(out);
        }
    }
}

/// Of a managedFields entry's `fieldsV1` in the API's form, which of the
/// kept paths it owns: bit `i` for `OWNED_KEPT[i]`.
fn owned_bits(fields: &serde_json::Value) -> u64 {
    let walk = |path: &[&str]| {
        let mut v = Some(fields);
        for step in path {
            v = v.and_then(|x| x.as_object()).and_then(|x| x.get(*step));
        }
        v.is_some()
    };
    crate::snapshot::OWNED_KEPT
        .iter()
        .enumerate()
        .filter(|(_, path)| walk(path))
        .fold(0, |bits, (i, _)| bits | (1 << i))
}

/// An Event, slimmed in place.
pub fn event(e: &mut Event) {
    e.metadata.managed_fields = None;
    e.reporting_instance = None;
    for r in std::iter::once(&mut e.involved_object).chain(e.related.as_mut()) {
        r.api_version = None;
        r.uid = None;
        r.resource_version = None;
        r.field_path = None;
    }
}

/// Slims, in place, an object of kind `kind` as the watch holds it (JSON):
/// the same fields go as [`pod`] and the others drop, so the watch's
/// stores never hold what the snapshot would throw away. The valkey.io
/// kinds are left whole (their managedFields are read).
pub(crate) fn value(kind: &str, object: &mut serde_json::Value) {
    use serde_json::Value;
    let Some(map) = object.as_object_mut() else {
        return;
    };
    if !matches!(kind, "Pod" | "StatefulSet" | "Deployment" | "Event") {
        return;
    }
    if let Some(Value::Object(meta)) = map.get_mut("metadata") {
        meta.remove("managedFields");
        // Of a pod's or a workload's metadata, what `kept_meta` keeps.
        if kind != "Event" {
            meta.retain(|k, _| {
                matches!(
                    k.as_str(),
                    "name"
                        | "namespace"
                        | "uid"
                        | "resourceVersion"
                        | "generation"
                        | "creationTimestamp"
                        | "deletionTimestamp"
                        | "labels"
                )
            });
            // Of its labels, those read ([`snapshot::LABELS_READ`]).
            if let Some(Value::Object(labels)) = meta.get_mut("labels") {
                labels.retain(|k, _| snapshot::LABELS_READ.contains(&k.as_str()));
            }
        }
    }
    match kind {
        "Pod" => {
            map.remove("spec");
            if let Some(Value::Object(status)) = map.get_mut("status") {
                status.retain(|k, _| {
                    matches!(
                        k.as_str(),
                        "podIP" | "conditions" | "containerStatuses" | "initContainerStatuses"
                    )
                });
                for list in ["containerStatuses", "initContainerStatuses"] {
                    if let Some(Value::Array(items)) = status.get_mut(list) {
                        for c in items.iter_mut().filter_map(Value::as_object_mut) {
                            c.retain(|k, _| {
                                matches!(
                                    k.as_str(),
                                    "name" | "ready" | "restartCount" | "state" | "lastState"
                                )
                            });
                        }
                    }
                }
            }
        }
        "StatefulSet" => {
            map.remove("spec");
        }
        // What [`event`] drops.
        "Event" => {
            map.remove("reportingInstance");
            for about in ["involvedObject", "related"] {
                if let Some(Value::Object(r)) = map.get_mut(about) {
                    r.retain(|k, _| {
                        !matches!(
                            k.as_str(),
                            "apiVersion" | "uid" | "resourceVersion" | "fieldPath"
                        )
                    });
                }
            }
        }
        "Deployment" => {
            if let Some(Value::Object(spec)) = map.get_mut("spec") {
                spec.retain(|k, _| k == "replicas");
            }
        }
        _ => {}
    }
}

/// ObjectMeta as read off the wire: every field but managedFields, which
/// is skipped without being built.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Meta {
    annotations: Option<BTreeMap<String, String>>,
    creation_timestamp: Option<Time>,
    deletion_grace_period_seconds: Option<i64>,
    deletion_timestamp: Option<Time>,
    finalizers: Option<Vec<String>>,
    generate_name: Option<String>,
    generation: Option<i64>,
    labels: Option<BTreeMap<String, String>>,
    name: Option<String>,
    namespace: Option<String>,
    owner_references: Option<Vec<OwnerReference>>,
    resource_version: Option<String>,
    self_link: Option<String>,
    uid: Option<String>,
}

impl From<Meta> for ObjectMeta {
    fn from(m: Meta) -> ObjectMeta {
        ObjectMeta {
            annotations: m.annotations,
            creation_timestamp: m.creation_timestamp,
            deletion_grace_period_seconds: m.deletion_grace_period_seconds,
            deletion_timestamp: m.deletion_timestamp,
            finalizers: m.finalizers,
            generate_name: m.generate_name,
            generation: m.generation,
            labels: m.labels,
            managed_fields: None,
            name: m.name,
            namespace: m.namespace,
            owner_references: m.owner_references,
            resource_version: m.resource_version,
            self_link: m.self_link,
            uid: m.uid,
        }
    }
}

/// A Pod's item on the wire: its spec is skipped unread.
#[derive(Deserialize)]
pub(crate) struct WirePod {
    metadata: Option<Meta>,
    status: Option<PodStatus>,
}

#[derive(Deserialize)]
pub(crate) struct WireReplicas {
    replicas: Option<i32>,
}

/// A StatefulSet's item on the wire: its spec is skipped unread.
#[derive(Deserialize)]
pub(crate) struct WireStatefulSet {
    metadata: Option<Meta>,
    status: Option<StatefulSetStatus>,
}

#[derive(Deserialize)]
pub(crate) struct WireDeployment {
    metadata: Option<Meta>,
    spec: Option<WireReplicas>,
    status: Option<DeploymentStatus>,
}

fn meta(m: Option<Meta>) -> ObjectMeta {
    m.map(ObjectMeta::from).unwrap_or_default()
}

/// The kinds a LIST page can be read of straight into the snapshot: the
/// API's kinds, each read as its `Wire` form and kept as its `Kept` one.
pub(crate) trait Direct {
    type Wire: DeserializeOwned;
    type Kept;
    fn keep(wire: Self::Wire) -> Self::Kept;
    /// The API resource listed (its URL, and the kind and apiVersion of
    /// an item kept raw).
    fn api_resource() -> kube::core::ApiResource;
    /// The object's name, and its namespace to set where it has none.
    fn name_and_namespace(kept: &mut Self::Kept) -> (&Option<String>, &mut Option<String>);
    fn push(kept: Self::Kept, snapshot: &mut Snapshot);
    /// How many objects of the kind the snapshot has room for once one
    /// more is pushed ([`room_for_one_more`]).
    fn room(snapshot: &Snapshot) -> usize;
}

impl Direct for ValkeyCluster {
    type Wire = ValkeyCluster;
    type Kept = ValkeyCluster;
    fn api_resource() -> kube::core::ApiResource {
        kube::core::ApiResource::erase::<ValkeyCluster>(&())
    }
    fn keep(wire: ValkeyCluster) -> ValkeyCluster {
        wire
    }
    fn name_and_namespace(kept: &mut ValkeyCluster) -> (&Option<String>, &mut Option<String>) {
        (&kept.metadata.name, &mut kept.metadata.namespace)
    }
    fn push(kept: ValkeyCluster, snapshot: &mut Snapshot) {
        snapshot.clusters.push(kept);
    }
    fn room(snapshot: &Snapshot) -> usize {
        room_for_one_more(&snapshot.clusters, snapshot.clusters.capacity())
    }
}

impl Direct for ValkeyNode {
    type Wire = ValkeyNode;
    type Kept = ValkeyNode;
    fn api_resource() -> kube::core::ApiResource {
        snapshot::node_api_resource()
    }
    fn keep(mut wire: ValkeyNode) -> ValkeyNode {
        node(&mut wire);
        wire
    }
    fn name_and_namespace(kept: &mut ValkeyNode) -> (&Option<String>, &mut Option<String>) {
        (&kept.metadata.name, &mut kept.metadata.namespace)
    }
    fn push(kept: ValkeyNode, snapshot: &mut Snapshot) {
        snapshot.nodes.push(kept);
    }
    fn room(snapshot: &Snapshot) -> usize {
        room_for_one_more(&snapshot.nodes, snapshot.nodes.capacity())
    }
}

impl Direct for StatefulSet {
    type Wire = WireStatefulSet;
    type Kept = snapshot::StatefulSet;
    fn api_resource() -> kube::core::ApiResource {
        kube::core::ApiResource::erase::<StatefulSet>(&())
    }
    fn keep(w: WireStatefulSet) -> snapshot::StatefulSet {
        snapshot::StatefulSet {
            metadata: snapshot::kept_meta(meta(w.metadata)),
            status: w.status,
        }
    }
    fn name_and_namespace(
        kept: &mut snapshot::StatefulSet,
    ) -> (&Option<String>, &mut Option<String>) {
        (&kept.metadata.name, &mut kept.metadata.namespace)
    }
    fn push(kept: snapshot::StatefulSet, snapshot: &mut Snapshot) {
        snapshot.stateful_sets.push(kept);
    }
    fn room(snapshot: &Snapshot) -> usize {
        room_for_one_more(&snapshot.stateful_sets, snapshot.stateful_sets.capacity())
    }
}

impl Direct for Deployment {
    type Wire = WireDeployment;
    type Kept = snapshot::Deployment;
    fn api_resource() -> kube::core::ApiResource {
        kube::core::ApiResource::erase::<Deployment>(&())
    }
    fn keep(w: WireDeployment) -> snapshot::Deployment {
        snapshot::Deployment {
            metadata: snapshot::kept_meta(meta(w.metadata)),
            spec: w.spec.map(|s| snapshot::DeploymentSpec {
                replicas: s.replicas,
            }),
            status: w.status,
        }
    }
    fn name_and_namespace(
        kept: &mut snapshot::Deployment,
    ) -> (&Option<String>, &mut Option<String>) {
        (&kept.metadata.name, &mut kept.metadata.namespace)
    }
    fn push(kept: snapshot::Deployment, snapshot: &mut Snapshot) {
        snapshot.deployments.push(kept);
    }
    fn room(snapshot: &Snapshot) -> usize {
        room_for_one_more(&snapshot.deployments, snapshot.deployments.capacity())
    }
}

impl Direct for Pod {
    type Wire = WirePod;
    type Kept = snapshot::Pod;
    fn api_resource() -> kube::core::ApiResource {
        kube::core::ApiResource::erase::<Pod>(&())
    }
    fn keep(w: WirePod) -> snapshot::Pod {
        snapshot::Pod {
            metadata: snapshot::kept_meta(meta(w.metadata)),
            status: w.status.map(snapshot::PodStatus::from),
        }
    }
    fn name_and_namespace(kept: &mut snapshot::Pod) -> (&Option<String>, &mut Option<String>) {
        (&kept.metadata.name, &mut kept.metadata.namespace)
    }
    fn push(kept: snapshot::Pod, snapshot: &mut Snapshot) {
        snapshot.pods.push(kept);
    }
    fn room(snapshot: &Snapshot) -> usize {
        room_for_one_more(&snapshot.pods, snapshot.pods.capacity())
    }
}

impl Direct for Event {
    type Wire = Event;
    type Kept = Event;
    fn api_resource() -> kube::core::ApiResource {
        kube::core::ApiResource::erase::<Event>(&())
    }
    fn keep(mut e: Event) -> Event {
        event(&mut e);
        super::tidy_event(&mut e);
        e
    }
    fn name_and_namespace(kept: &mut Event) -> (&Option<String>, &mut Option<String>) {
        (&kept.metadata.name, &mut kept.metadata.namespace)
    }
    fn push(kept: Event, snapshot: &mut Snapshot) {
        snapshot.events.push(kept);
    }
    fn room(snapshot: &Snapshot) -> usize {
        room_for_one_more(&snapshot.events, snapshot.events.capacity())
    }
}

#[derive(Default, Deserialize)]
struct PageMeta {
    #[serde(rename = "continue")]
    continue_: Option<String>,
}

/// What the direct reading looks for to give a page up: the start of a
/// time past [`crate::snapshot::LATEST`], which the whole reading rewrites
/// wherever it is.
const LATE: &[u8; 8] = b"9999-12-";

/// The bytes of one JSON value at a time, read from a LIST answer as it
/// arrives. Only the structure is followed here (strings, escapes and
/// nesting, to find where a value ends); serde_json parses each value.
struct Values<R> {
    body: R,
    /// The value being read.
    value: Vec<u8>,
    /// The most bytes the value's buffer may take, beside what the page
    /// already keeps ([`read_page_within`] lowers it as objects are kept).
    room: usize,
    /// The value's buffer would have grown past `room`.
    over: bool,
}

impl<R: std::io::BufRead> Values<R> {
    /// The next byte that is not white space, not consumed. None at the
    /// end of the answer (or when it cannot be read).
    fn peek(&mut self) -> Option<u8> {
        loop {
            let buf = self.body.fill_buf().ok()?;
            let first = *buf.first()?;
            if first.is_ascii_whitespace() {
                self.body.consume(1);
            } else {
                return Some(first);
            }
        }
    }

    /// Consumes `byte`, the next one that is not white space.
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.body.consume(1))
    }

    /// After a member: true when a `,` follows (consumed, and another
    /// member must come), false when `close` does (left for the caller).
    /// None for anything else.
    fn separator(&mut self, close: u8) -> Option<bool> {
        match self.peek()? {
            b',' => {
                self.body.consume(1);
                (self.peek()? != close).then_some(true)
            }
            b if b == close => Some(false),
            _ => None,
        }
    }

    /// Reads one whole value into `self.value`: an object or array to its
    /// matching end, a string to its closing quote, anything else to the
    /// next delimiter. A malformed value is read as far as it goes and left
    /// for serde_json to refuse.
    fn next_value(&mut self) -> Option<&[u8]> {
        self.value.clear();
        let first = self.peek()?;
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        let scalar = !matches!(first, b'{' | b'[' | b'"');
        loop {
            let buf = self.body.fill_buf().ok()?;
            if buf.is_empty() {
                // The answer ended: only a scalar may end with it.
                return scalar.then_some(self.value.as_slice());
            }
            let mut end = None;
            for (i, &b) in buf.iter().enumerate() {
                if scalar {
                    if matches!(b, b',' | b']' | b'}') || b.is_ascii_whitespace() {
                        end = Some(i);
                        break;
                    }
                } else if in_string {
                    if escaped {
                        escaped = false;
                    } else if b == b'\\' {
                        escaped = true;
                    } else if b == b'"' {
                        in_string = false;
                        if depth == 0 {
                            end = Some(i + 1);
                            break;
                        }
                    }
                } else {
                    match b {
                        b'"' => in_string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                end = Some(i + 1);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            let taken = end.unwrap_or(buf.len());
            let need = self.value.len() + taken;
            if need > self.room {
                self.over = true;
                return None;
            }
            // Grown by doubling, but never past the room left.
            if need > self.value.capacity() {
                let grown = self
                    .value
                    .capacity()
                    .saturating_mul(2)
                    .clamp(need, self.room);
                self.value.reserve_exact(grown - self.value.len());
            }
            self.value.extend_from_slice(&buf[..taken]);
            self.body.consume(taken);
            if end.is_some() {
                return Some(self.value.as_slice());
            }
        }
    }
}

/// A page that holds more than its budget ([`read_page_within`]): the
/// caller stops reading it, with the answer's size error.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct OverBudget;

/// The room a list has once one more item is pushed: its own, or what it
/// grows to (twice, and at least 4).
fn room_for_one_more<T>(list: &[T], capacity: usize) -> usize {
    if list.len() < capacity {
        capacity
    } else {
        capacity.saturating_mul(2).max(4)
    }
}

/// What one page read directly holds at most, of a budget of
/// [`read_page_within`], once the next object is kept: the objects kept,
/// each counted as its own size (the room its kind's list will have,
/// grown by doubling) and the length of its text (its strings are copies
/// of parts of that text, and a name's namespace at most `default`), and
/// the buffer of the value being read (its room).
fn held<K: Direct>(snapshot: &Snapshot, text: usize, buffer: usize) -> usize {
    K::room(snapshot)
        .saturating_mul(std::mem::size_of::<K::Kept>())
        .saturating_add(text)
        .saturating_add(buffer)
}

/// [`read_page_within`] without a budget, for the tests of the contract.
#[cfg(test)]
pub(crate) fn read_page<K: Direct>(
    body: impl std::io::BufRead,
) -> Option<(Snapshot, Option<String>)> {
    read_page_within::<K>(body, usize::MAX).ok().flatten()
}

/// The fast page reader, and the one way into it (`live::list` calls it
/// through `stream_page`): one LIST page of `K`, read straight from the
/// answer as it arrives (never held whole: one item at a time) into a
/// snapshot of slim objects; with the page's `continue` token.
///
/// What the page holds ([`held`]) stays within `budget` bytes: past it the
/// reading stops with [`OverBudget`]. A flood of small objects takes more
/// room kept than as text (a pod of 26 bytes of JSON is a slim pod of some
/// hundreds), so the answer's size cap alone does not bound it.
///
/// Contract: whenever it answers `Some`, the snapshot is equal to the one
/// the whole way gives for the same bytes (parse the page as JSON,
/// convert it as a file is, `file::add_value`, and slim it), and so is the
/// token. Where it cannot be sure of that it answers `None` and the caller
/// reads the page the whole way: it does not parse into the slim types, an
/// object has no name, or some text in it is a time past
/// [`crate::snapshot::LATEST`]. Held by the tests
/// `a_page_read_directly_is_the_page_read_the_whole_way_slimmed`,
/// `a_page_read_in_pieces_is_the_page_read_at_once` and
/// `a_page_it_cannot_be_sure_of_goes_the_whole_way` (below).
pub(crate) fn read_page_within<K: Direct>(
    body: impl std::io::BufRead,
    budget: usize,
) -> Result<Option<(Snapshot, Option<String>)>, OverBudget> {
    let late = |bytes: &[u8]| bytes.windows(LATE.len()).any(|w| w == LATE);
    let mut values = Values {
        body,
        value: Vec::new(),
        room: budget,
        over: false,
    };
    let mut snapshot = Snapshot::default();
    let mut text = 0usize;
    let read = (|| {
        let mut meta: Option<PageMeta> = None;
        let mut items_read = false;
        values.expect(b'{')?;
        let mut more = values.peek()? != b'}';
        while more {
            let key: String = serde_json::from_slice(values.next_value()?).ok()?;
            values.expect(b':')?;
            match key.as_str() {
                // A key twice is refused, as the typed reading refuses it.
                "items" if !items_read => {
                    items_read = true;
                    values.expect(b'[')?;
                    let mut more_items = values.peek()? != b']';
                    while more_items {
                        let item = values.next_value()?;
                        if late(item) {
                            return None;
                        }
                        text = text.saturating_add(item.len() + "default".len());
                        // Checked before the object is kept: the list it
                        // joins may double.
                        if held::<K>(&snapshot, text, item.len()) > budget {
                            values.over = true;
                            return None;
                        }
                        let mut object = K::keep(serde_json::from_slice::<K::Wire>(item).ok()?);
                        let (name, namespace) = K::name_and_namespace(&mut object);
                        if name.as_deref().is_none_or(str::is_empty) {
                            return None;
                        }
                        if namespace.as_deref().is_none_or(str::is_empty) {
                            *namespace = Some("default".into());
                        }
                        K::push(object, &mut snapshot);
                        values.room = budget.saturating_sub(held::<K>(&snapshot, text, 0));
                        more_items = values.separator(b']')?;
                    }
                    values.expect(b']')?;
                }
                "metadata" if meta.is_none() => {
                    let value = values.next_value()?;
                    if late(value) {
                        return None;
                    }
                    meta = Some(serde_json::from_slice(value).ok()?);
                }
                "items" | "metadata" => return None,
                _ => {
                    let value = values.next_value()?;
                    if late(value)
                        || serde_json::from_slice::<serde::de::IgnoredAny>(value).is_err()
                    {
                        return None;
                    }
                }
            }
            more = values.separator(b'}')?;
        }
        values.expect(b'}')?;
        // Nothing may follow the answer but white space.
        if values.peek().is_some() || !items_read {
            return None;
        }
        Some(meta.and_then(|m| m.continue_).filter(|t| !t.is_empty()))
    })();
    match read {
        _ if values.over => Err(OverBudget),
        Some(token) => Ok(Some((snapshot, token))),
        None => Ok(None),
    }
}

/// A page's body as a blocking reader, fed chunk by chunk from the answer
/// as it arrives (a channel of a few chunks: memory holds those, not the
/// page).
pub(crate) struct Chunks {
    rx: tokio::sync::mpsc::Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Chunks {
    pub(crate) fn new(rx: tokio::sync::mpsc::Receiver<Vec<u8>>) -> Chunks {
        Chunks {
            rx,
            chunk: Vec::new(),
            at: 0,
        }
    }
}

impl std::io::Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.rx.blocking_recv() {
                Some(chunk) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                // The answer ended (or failed: the caller has the error).
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A ValkeyNode as JSON, its metadata slimmed as the watch stores it
/// ([`node_stored`]); a metadata that does not read is left as it is (the
/// watcher refuses it).
fn node_value(object: &mut serde_json::Value) {
    if let Some(meta) = object.get_mut("metadata")
        && let Ok(mut read) = ObjectMeta::deserialize(&*meta)
    {
        node_stored(&mut read);
        if let Ok(slim) = serde_json::to_value(read) {
            *meta = slim;
        }
    }
}

/// A LIST answer of `kind` (`Pod`, `StatefulSet`, `Deployment`, `Event`,
/// `ValkeyNode`) written on as it arrives, each item slimmed as the watch
/// stores it ([`value`], [`node_stored`]): the exporter's watch lists through this (issue 42), so
/// that kube's watcher, which reads a page whole and parses it into JSON
/// values, holds a page of slim objects, not the server's. One item is
/// held at a time; `out` gets the text in pieces of some 64 KiB and
/// answers false to stop. Anything but a list's shape is written on as it
/// came (from where it stopped being one), for the watcher to refuse as
/// before.
pub(crate) fn slim_list(kind: &str, body: impl std::io::BufRead, out: impl FnMut(Vec<u8>) -> bool) {
    const PIECE: usize = 64 * 1024;
    struct Out<F> {
        text: Vec<u8>,
        out: F,
        open: bool,
    }
    impl<F: FnMut(Vec<u8>) -> bool> Out<F> {
        fn write(&mut self, bytes: &[u8]) {
            self.text.extend_from_slice(bytes);
            if self.text.len() >= PIECE {
                self.flush();
            }
        }
        fn flush(&mut self) {
            if self.open && !self.text.is_empty() {
                self.open = (self.out)(std::mem::take(&mut self.text));
            }
        }
    }
    let mut out = Out {
        text: Vec::new(),
        out,
        open: true,
    };
    let mut values = Values {
        body,
        value: Vec::new(),
        room: usize::MAX,
        over: false,
    };
    // After a member: a `,` written on, and whether another follows.
    fn next<R: std::io::BufRead, F: FnMut(Vec<u8>) -> bool>(
        values: &mut Values<R>,
        out: &mut Out<F>,
        close: u8,
    ) -> Option<bool> {
        match values.peek()? {
            b',' => {
                values.body.consume(1);
                out.write(b",");
                Some(values.peek()? != close)
            }
            b if b == close => Some(false),
            _ => None,
        }
    }
    // The list's shape, each item slimmed; `None` where it is not that.
    let mut read = || -> Option<()> {
        values.expect(b'{')?;
        out.write(b"{");
        let mut more = values.peek()? != b'}';
        while more && out.open {
            let key = values.next_value()?;
            let items = serde_json::from_slice::<String>(key).is_ok_and(|k| k == "items");
            out.write(key);
            values.value.clear();
            values.expect(b':')?;
            out.write(b":");
            if items && values.peek()? == b'[' {
                values.expect(b'[')?;
                out.write(b"[");
                let mut more_items = values.peek()? != b']';
                while more_items && out.open {
                    let item = values.next_value()?;
                    match serde_json::from_slice::<serde_json::Value>(item) {
                        Ok(mut object) => {
                            if kind == "ValkeyNode" {
                                node_value(&mut object);
                            }
                            value(kind, &mut object);
                            out.write(&serde_json::to_vec(&object).ok()?);
                        }
                        Err(_) => out.write(item),
                    }
                    values.value.clear();
                    more_items = next(&mut values, &mut out, b']')?;
                }
                values.expect(b']')?;
                out.write(b"]");
            } else {
                let value = values.next_value()?;
                out.write(value);
                values.value.clear();
            }
            more = next(&mut values, &mut out, b'}')?;
        }
        values.expect(b'}')?;
        out.write(b"}");
        Some(())
    };
    let _ = read();
    // What is left, as it came: a value cut short, anything after the
    // list (the watcher refuses either, as it did).
    out.write(&std::mem::take(&mut values.value));
    while out.open {
        let Ok(buf) = values.body.fill_buf() else {
            break;
        };
        if buf.is_empty() {
            break;
        }
        let n = buf.len();
        out.write(buf);
        values.body.consume(n);
    }
    out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file;
    use k8s_openapi::api::core::v1::ContainerState;
    use serde_json::{Value, json};

    fn meta(name: &str) -> Value {
        json!({
            "name": name, "namespace": "prod", "uid": "0b6c1e8e", "resourceVersion": "4711",
            "generation": 3, "creationTimestamp": "2026-11-29T10:00:00Z",
            "labels": {"valkey.io/cluster": "cache", "controller-revision-hash": "valkey-cache-0-1-7b6c"},
            "annotations": {"valkey.io/workload-template-hash": "41ab"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "valkey-cache-0-1",
                                 "uid": "7e34", "controller": true, "blockOwnerDeletion": true}],
            "finalizers": ["test.valkey-roll.io/hold"],
            "managedFields": [{"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
                               "time": "2026-11-29T10:02:10Z", "fieldsType": "FieldsV1",
                               "fieldsV1": {"f:status": {"f:phase": {}}}, "subresource": "status"}],
        })
    }

    fn container(name: &str) -> Value {
        json!({"name": name, "image": "valkey/valkey:8.1.4", "imagePullPolicy": "IfNotPresent",
               "env": [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
               "livenessProbe": {"exec": {"command": ["/bin/sh", "-c", "true"]}, "periodSeconds": 5},
               "volumeMounts": [{"mountPath": "/data", "name": "data"}]})
    }

    /// A page of each kind, as the API server answers a LIST: items
    /// without kind, with managedFields and full specs.
    fn pages() -> Vec<(&'static str, &'static str, Value)> {
        let pod = json!({
            "metadata": meta("valkey-cache-0-1-0"),
            "spec": {"containers": [container("server"), container("metrics-exporter")],
                     "initContainers": [container("init")],
                     "volumes": [{"name": "data", "emptyDir": {}}], "nodeName": "kwok-node-0"},
            "status": {"phase": "Running", "podIP": "127.0.1.2",
                       "conditions": [{"type": "Ready", "status": "False",
                                       "lastTransitionTime": "2026-11-29T10:05:00Z"}],
                       "containerStatuses": [{"name": "server", "image": "valkey/valkey:8.1.4",
                           "imageID": "", "ready": false, "restartCount": 7, "started": false,
                           "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}},
                           "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "signal": 9,
                               "startedAt": "2026-11-29T10:10:00Z", "finishedAt": "2026-11-29T10:10:01Z"}}}]},
        });
        let template = json!({"metadata": {"labels": {"app": "x"}},
                              "spec": {"containers": [container("server")]}});
        let sts = json!({
            "metadata": meta("valkey-cache-0-1"),
            "spec": {"replicas": 1, "serviceName": "valkey-cache-0-1",
                     "selector": {"matchLabels": {"app": "x"}}, "template": template},
            "status": {"observedGeneration": 3, "replicas": 1, "readyReplicas": 1,
                       "currentRevision": "a", "updateRevision": "b"},
        });
        let deployment = json!({
            "metadata": meta("valkey-cache-0-2"),
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "x"}}, "template": template},
            "status": {"observedGeneration": 3, "replicas": 2, "updatedReplicas": 1},
        });
        let event = json!({
            "metadata": meta("cache-0-1.187"),
            "involvedObject": {"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
                               "name": "cache-0-1", "namespace": "prod"},
            "reason": "WorkloadRollPermitted", "message": "Granted", "type": "Normal",
            "eventTime": "2026-11-29T10:02:10.123456Z", "source": {},
            "reportingComponent": "valkey-operator", "reportingInstance": "", "count": 0,
        });
        let mut node = json!({
            "metadata": meta("cache-0-1"),
            "spec": {"workloadType": "StatefulSet", "image": "valkey/valkey:8.1.4", "other": 1,
                     "config": {"hz": "20"}, "resources": {"limits": {"cpu": "1"}}},
            "status": {"ready": true, "role": "replica", "conditions": []},
        });
        node["metadata"]["ownerReferences"][0]["kind"] = json!("ValkeyCluster");
        let cluster = json!({
            "metadata": meta("cache"),
            "spec": {"image": "valkey/valkey:8.1.4", "shards": 3,
                     "config": {"hz": "10"}, "resources": {"limits": {"cpu": "1000m"}}},
            "status": {"state": "Ready", "conditions": []},
        });
        let page = |api: &str, kind: &str, item: Value, token: &str| {
            json!({"apiVersion": api, "kind": kind,
                   "metadata": {"resourceVersion": "4712", "continue": token}, "items": [item]})
        };
        vec![
            ("Pod", "pods", page("v1", "PodList", pod, "next")),
            (
                "StatefulSet",
                "statefulsets",
                page("apps/v1", "StatefulSetList", sts, ""),
            ),
            (
                "Deployment",
                "deployments",
                page("apps/v1", "DeploymentList", deployment, ""),
            ),
            ("Event", "events", page("v1", "EventList", event, "")),
            (
                "ValkeyNode",
                "valkeynodes",
                page("valkey.io/v1alpha1", "ValkeyNodeList", node, ""),
            ),
            (
                "ValkeyCluster",
                "valkeyclusters",
                page("valkey.io/v1alpha1", "ValkeyClusterList", cluster, ""),
            ),
        ]
    }

    fn direct(kind: &str, body: &[u8]) -> Option<(Snapshot, Option<String>)> {
        match kind {
            "Pod" => read_page::<Pod>(body),
            "StatefulSet" => read_page::<StatefulSet>(body),
            "Deployment" => read_page::<Deployment>(body),
            "Event" => read_page::<Event>(body),
            "ValkeyNode" => read_page::<ValkeyNode>(body),
            "ValkeyCluster" => read_page::<ValkeyCluster>(body),
            other => panic!("{other}"),
        }
    }

    fn whole_way(page: &Value, whole: bool) -> Snapshot {
        file::KEEP_WHOLE.with(|k| k.set(whole));
        let mut snapshot = Snapshot::default();
        let added = file::add_value(&mut snapshot, page, "1", "test");
        file::KEEP_WHOLE.with(|k| k.set(false));
        added.expect("the page reads");
        snapshot
    }

    #[test]
    fn a_page_read_directly_is_the_page_read_the_whole_way_slimmed() {
        for (kind, _, page) in pages() {
            let body = serde_json::to_vec(&page).expect("JSON");
            let (snapshot, token) = direct(kind, &body).unwrap_or_else(|| panic!("{kind}: read"));
            assert_eq!(snapshot, whole_way(&page, false), "{kind}");
            let want = (kind == "Pod").then(|| "next".to_string());
            assert_eq!(token, want, "{kind}: continue");
        }
    }

    /// The fields a node's spec mirrors of its cluster's are kept on
    /// both ways of reading (and so compared): here the config differs,
    /// the resources are the same quantity written two ways.
    #[test]
    fn the_mirrored_spec_fields_are_kept_either_way() {
        let pages = pages();
        let of = |kind: &str| {
            let (_, _, page) = pages.iter().find(|p| p.0 == kind).expect("a page");
            let body = serde_json::to_vec(page).expect("JSON");
            (direct(kind, &body).expect("read").0, whole_way(page, false))
        };
        let (node_direct, node_whole) = of("ValkeyNode");
        let (cluster_direct, cluster_whole) = of("ValkeyCluster");
        assert_eq!(node_direct, node_whole);
        assert_eq!(cluster_direct, cluster_whole);
        let node = &node_direct.nodes[0];
        assert_eq!(node.spec.config.as_deref(), Some(&json!({"hz": "20"})));
        assert_eq!(
            cluster_direct.clusters[0].spec_differs(node),
            [crate::snapshot::SpecField::Config]
        );
    }

    /// A ValkeyNode keeps of its metadata the labels and annotations read,
    /// of each managedFields entry not its apiVersion and fieldsType, and
    /// its lists at their own size, either way it is read (issue 33).
    #[test]
    fn a_nodes_metadata_keeps_what_is_read_at_its_own_size() {
        let mut page = pages()[4].2.clone();
        let item = &mut page["items"][0];
        item["metadata"]["labels"] = json!({"valkey.io/cluster": "cache", "valkey.io/shard-index": "0",
            "valkey.io/node-index": "1", "app.kubernetes.io/name": "valkey"});
        item["metadata"]["annotations"] = json!({"valkey.io/desired-workload-revision": "h2",
            "kubectl.kubernetes.io/last-applied-configuration": "{}"});
        item["metadata"]["managedFields"] = json!([
            {"manager": "manager", "operation": "Update", "apiVersion": "valkey.io/v1alpha1",
             "time": "2026-11-29T10:00:00Z", "fieldsType": "FieldsV1",
             "fieldsV1": {"f:spec": {"f:image": {}}}},
            {"manager": "manager", "operation": "Update", "apiVersion": "valkey.io/v1alpha1",
             "time": "2026-11-29T10:00:01Z", "fieldsType": "FieldsV1", "subresource": "status",
             "fieldsV1": {"f:status": {"f:role": {}}}}]);
        item["status"]["conditions"] = json!([
            {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-29T10:00:00Z"},
            {"type": "LiveConfigApplied", "status": "True", "lastTransitionTime": "2026-11-29T10:00:00Z"}]);
        let body = serde_json::to_vec(&page).expect("JSON");
        let read = [
            direct("ValkeyNode", &body).expect("read").0,
            whole_way(&page, false),
        ];
        for s in &read {
            let n = &s.nodes[0];
            assert_eq!(
                n.metadata.labels.iter().collect::<Vec<_>>(),
                [
                    ("valkey.io/cluster", "cache"),
                    ("valkey.io/shard-index", "0"),
                    ("valkey.io/node-index", "1")
                ]
            );
            assert_eq!(
                n.metadata.annotations.iter().collect::<Vec<_>>(),
                [("valkey.io/desired-workload-revision", "h2")]
            );
            let entries = n.metadata.managed_fields.as_ref().expect("entries");
            assert_eq!((entries.len(), entries.capacity()), (2, 2));
            assert!(
                entries
                    .iter()
                    .all(|e| e.api_version.is_none() && e.fields_type.is_none())
            );
            let owners = n.metadata.owner_references.as_ref().expect("owners");
            assert_eq!((owners.len(), owners.capacity()), (1, 1));
            let conditions = &n.status.as_ref().expect("status").conditions;
            assert_eq!((conditions.len(), conditions.capacity()), (2, 2));
        }
        assert_eq!(read[0], read[1]);
    }

    #[test]
    fn a_pods_conditions_not_read_are_not_kept() {
        let mut page = pages()[0].2.clone();
        let unschedulable = json!({"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable", "message": "0/3 nodes are available",
            "lastTransitionTime": "2026-11-29T10:00:00Z"});
        let ready = json!({"type": "Ready", "status": "False",
            "lastTransitionTime": "2026-11-29T10:01:00Z"});
        page["items"][0]["status"]["conditions"] = json!([
            {"type": "Initialized", "status": "True"},
            ready,
            {"type": "ContainersReady", "status": "False"},
            {"type": "PodReadyToStartContainers", "status": "True"},
            unschedulable,
        ]);
        let slim = whole_way(&page, false);
        let body = serde_json::to_vec(&page).expect("JSON");
        assert_eq!(direct("Pod", &body).expect("read").0, slim);
        // Kept at their own size, not in the room of the list read.
        let status = slim.pods[0].status.as_ref().expect("status");
        let conditions = status.conditions.as_ref().expect("conditions");
        assert_eq!((conditions.len(), conditions.capacity()), (2, 2));
        let containers = status.container_statuses.as_ref().expect("containers");
        assert_eq!(containers.len(), containers.capacity());
        let kept = slim.pods[0]
            .status
            .as_ref()
            .and_then(|s| s.conditions.clone());
        let expected: Vec<_> = [ready, unschedulable]
            .into_iter()
            .map(|c| serde_json::from_value(c).expect("a condition"))
            .collect();
        assert_eq!(kept, Some(expected));
    }

    #[test]
    fn slimming_drops_what_is_not_read_and_keeps_what_is() {
        let pages = pages();
        let item = |i: usize| pages[i].2["items"][0].clone();
        let whole: Pod = serde_json::from_value(item(0)).expect("a pod");
        let slim = whole_way(&pages[0].2, false);
        let s = &slim.pods[0];
        // Of the metadata, what is read: name, uid, resourceVersion,
        // times, the labels read; of the status, the conditions and the
        // containers' states and last terminations (the evidence).
        let w = &whole.metadata;
        assert_eq!(
            (&s.metadata.name, &s.metadata.namespace, &s.metadata.uid),
            (&w.name, &w.namespace, &w.uid)
        );
        assert_eq!(s.metadata.resource_version.as_deref(), Some("4711"));
        assert_eq!(s.metadata.generation, w.generation);
        assert_eq!(s.metadata.creation_timestamp, w.creation_timestamp);
        let mut labels: Vec<&str> = s.metadata.labels.iter().map(|(k, _)| k).collect();
        labels.sort_unstable();
        assert_eq!(labels, ["controller-revision-hash", "valkey.io/cluster"]);
        // What is not read has no field to be kept in (snapshot::Meta).
        assert!(
            w.managed_fields.is_some()
                && w.annotations.is_some()
                && w.owner_references.is_some()
                && w.finalizers.is_some()
        );
        let status = whole.status.clone().expect("status");
        let kept = s.status.as_ref().expect("status");
        assert_eq!(kept.conditions, status.conditions);
        let statuses = status.container_statuses.expect("containers");
        let kept_statuses = kept.container_statuses.as_ref().expect("containers");
        assert_eq!(
            kept_statuses
                .iter()
                .map(|c| {
                    // Compared as written: the kept state is the
                    // snapshot's own type (its termination boxed).
                    let json = |s: Option<&crate::snapshot::ContainerState>| {
                        s.map(|s| serde_json::to_value(s).expect("a state"))
                    };
                    let (state, last) = (json(c.state.as_deref()), json(c.last_state.as_deref()));
                    (&c.name, c.ready, c.restart_count, state, last)
                })
                .collect::<Vec<_>>(),
            // An empty state (`{}`) is not kept.
            statuses
                .iter()
                .map(|c| {
                    fn said(s: &Option<ContainerState>) -> Option<serde_json::Value> {
                        s.as_ref()
                            .filter(|s| **s != ContainerState::default())
                            .map(|s| serde_json::to_value(s).expect("a state"))
                    }
                    (
                        &c.name,
                        c.ready,
                        c.restart_count,
                        said(&c.state),
                        said(&c.last_state),
                    )
                })
                .collect::<Vec<_>>()
        );
        assert_eq!(kept_statuses[0].restart_count, 7);
        let sts: StatefulSet = serde_json::from_value(item(1)).expect("a StatefulSet");
        let kept = whole_way(&pages[1].2, false);
        assert_eq!(kept.stateful_sets[0].status, sts.status);
        assert_eq!(
            kept.stateful_sets[0]
                .status
                .as_ref()
                .and_then(|s| s.update_revision.as_deref()),
            Some("b")
        );
        let kept = whole_way(&pages[2].2, false);
        assert_eq!(
            kept.deployments[0].spec.as_ref().and_then(|s| s.replicas),
            Some(2)
        );
        // The valkey.io kinds keep their managedFields (grant times); a
        // node's entries only the permit's paths and status.role.
        let mut page = pages[4].2.clone();
        page["items"][0]["metadata"]["managedFields"] = json!([
            {"manager": "manager", "operation": "Update", "time": "2026-11-29T10:02:10Z",
             "fieldsType": "FieldsV1", "fieldsV1": {
                 "f:metadata": {"f:annotations": {"f:valkey.io/allow-workload-revision": {}, "f:x": {}},
                                "f:labels": {"f:a": {}}},
                 "f:spec": {"f:workloadRevision": {".": {}}, "f:image": {}}}},
            {"manager": "manager", "operation": "Update", "time": "2026-11-29T10:02:11Z",
             "subresource": "status", "fieldsType": "FieldsV1",
             "fieldsV1": {"f:status": {"f:ready": {}, "f:role": {}}}},
        ]);
        let body = serde_json::to_vec(&page).expect("JSON");
        let direct = direct("ValkeyNode", &body).expect("read").0;
        let node = whole_way(&page, false);
        assert_eq!(direct, node);
        let entries = node.nodes[0].metadata.managed_fields.clone().expect("kept");
        let fields: Vec<Value> = entries
            .iter()
            .map(|e| e.fields_v1.as_ref().expect("fields").0.clone())
            .collect();
        // Which of the kept paths each entry owns, and no map (a number).
        let owned = |f: &Value| {
            crate::snapshot::OWNED_KEPT
                .map(|path| crate::snapshot::owns(f, path))
                .to_vec()
        };
        assert_eq!(owned(&fields[0]), [true, true, false]);
        assert_eq!(owned(&fields[1]), [false, false, true]);
        assert!(fields.iter().all(|f| !f.is_object()), "{fields:?}");
        for (f, path) in [(&fields[0], &["f:spec"][..]), (&fields[1], &["f:status"])] {
            assert!(crate::snapshot::owns(f, path));
        }
        for path in [
            &["f:metadata", "f:labels"][..],
            &["f:spec", "f:image"],
            &["f:status", "f:ready"],
        ] {
            assert!(!fields.iter().any(|f| crate::snapshot::owns(f, path)));
        }
        assert_eq!(entries[1].subresource.as_deref(), Some("status"));
        let whole = whole_way(&page, true);
        assert_eq!(
            whole.nodes[0]
                .metadata
                .managed_fields
                .as_ref()
                .map(Vec::len),
            Some(2)
        );
    }

    #[test]
    fn a_page_it_cannot_be_sure_of_goes_the_whole_way() {
        let pages = pages();
        let pod = &pages[0].2;
        let variant = |f: &dyn Fn(&mut Value)| {
            let mut p = pod.clone();
            f(&mut p);
            serde_json::to_vec(&p).expect("JSON")
        };
        let cases: Vec<(&str, Vec<u8>)> = vec![
            (
                "a time past the latest",
                variant(&|p| {
                    p["items"][0]["metadata"]["creationTimestamp"] = json!("9999-12-31T23:59:59Z")
                }),
            ),
            (
                "such text anywhere",
                variant(&|p| p["items"][0]["metadata"]["labels"]["x"] = json!("9999-12-31")),
            ),
            (
                "no name",
                variant(&|p| p["items"][0]["metadata"]["name"] = Value::Null),
            ),
            (
                "a field of the wrong type",
                variant(&|p| {
                    p["items"][0]["status"]["containerStatuses"][0]["restartCount"] = json!("seven")
                }),
            ),
            ("items null", variant(&|p| p["items"] = Value::Null)),
            ("not JSON", b"{\"items\": [".to_vec()),
            ("no items", b"{\"metadata\": {}}".to_vec()),
            ("an item not an object", b"{\"items\": [7]}".to_vec()),
            ("a comma left over", b"{\"items\": [],}".to_vec()),
            ("items twice", b"{\"items\": [], \"items\": []}".to_vec()),
            ("something after", b"{\"items\": []} {}".to_vec()),
            ("a key not a string", b"{items: []}".to_vec()),
        ];
        let item = serde_json::to_string(&pod["items"][0]).expect("JSON");
        let two = |sep: &str| format!("{{\"items\": [{item}{sep}{item}]}}").into_bytes();
        let cases: Vec<(&str, Vec<u8>)> = cases
            .into_iter()
            .chain([
                ("items not apart", two("")),
                ("an item left out", two(",,")),
                (
                    "a comma before the end",
                    format!("{{\"items\": [{item},]}}").into_bytes(),
                ),
            ])
            .collect();
        // The same items, well apart, read.
        assert_eq!(
            read_page::<Pod>(&two(" ,\n ")[..]).map(|(s, _)| s.pods.len()),
            Some(2)
        );
        for (name, body) in cases {
            assert!(read_page::<Pod>(&body[..]).is_none(), "{name}");
            assert!(
                read_page::<Pod>(Trickle(&body[..], 3)).is_none(),
                "{name}: in pieces"
            );
        }
    }

    /// A reader that hands out at most `.1` bytes a read, as an answer
    /// that arrives in small chunks does.
    struct Trickle<'a>(&'a [u8], usize);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.1).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    impl std::io::BufRead for Trickle<'_> {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            Ok(&self.0[..self.1.min(self.0.len())])
        }
        fn consume(&mut self, n: usize) {
            self.0 = &self.0[n..];
        }
    }

    #[test]
    fn a_page_read_in_pieces_is_the_page_read_at_once() {
        for (kind, _, mut page) in pages() {
            // Quotes, escapes and brackets inside strings end no value.
            page["items"][0]["metadata"]["labels"]["x"] = json!("a \"}]\\\" {[ \\");
            let body = serde_json::to_vec(&page).expect("JSON");
            let whole = direct(kind, &body).unwrap_or_else(|| panic!("{kind}: read"));
            assert_eq!(whole.0, whole_way(&page, false), "{kind}");
            for piece in [1, 2, 7, 8, 9, 4096] {
                let pieces = match kind {
                    "Pod" => read_page::<Pod>(Trickle(&body, piece)),
                    "Event" => read_page::<Event>(Trickle(&body, piece)),
                    "ValkeyNode" => read_page::<ValkeyNode>(Trickle(&body, piece)),
                    _ => continue,
                };
                assert_eq!(
                    pieces.as_ref(),
                    Some(&whole),
                    "{kind}, {piece} bytes a read"
                );
            }
        }
    }

    /// Issue 42: a page of many small objects is refused once what it
    /// keeps passes the budget, and what it held at its peak (the
    /// allocator's count) stays within that budget; a real page reads
    /// within it.
    #[test]
    fn a_flood_of_small_objects_stops_at_the_budget() {
        use crate::counting::peak_of;
        const BUDGET: usize = 4 << 20;
        let flood = |item: &str, n: usize| {
            let items = vec![item; n].join(",");
            format!(r#"{{"kind":"List","metadata":{{}},"items":[{items}]}}"#).into_bytes()
        };
        // Some 26 bytes of text a pod: a slim pod takes more than that.
        let cases: [(&str, Vec<u8>); 3] = [
            ("pods", flood(r#"{"metadata":{"name":"a"}}"#, 200_000)),
            ("nodes", flood(r#"{"metadata":{"name":"a"}}"#, 200_000)),
            (
                "one long name",
                flood(
                    &format!(r#"{{"metadata":{{"name":"{}"}}}}"#, "a".repeat(BUDGET)),
                    1,
                ),
            ),
        ];
        for (name, body) in cases {
            let (read, peak) = peak_of(|| match name {
                "nodes" => read_page_within::<ValkeyNode>(Trickle(&body, 4096), BUDGET).map(|_| ()),
                _ => read_page_within::<Pod>(Trickle(&body, 4096), BUDGET).map(|_| ()),
            });
            assert_eq!(read, Err(OverBudget), "{name}");
            assert!(
                peak <= BUDGET + (64 << 10),
                "{name}: {peak} bytes at the peak"
            );
        }
        for (kind, _, page) in pages() {
            let body = serde_json::to_vec(&page).expect("JSON");
            if kind == "Pod" {
                assert!(matches!(
                    read_page_within::<Pod>(&body[..], BUDGET),
                    Ok(Some(_))
                ));
            }
        }
    }

    /// What [`slim_list`] writes of `body`, read `piece` bytes at a time.
    fn slimmed(kind: &str, body: &[u8], piece: usize) -> Vec<u8> {
        let mut out = Vec::new();
        slim_list(kind, Trickle(body, piece), |p| {
            out.extend_from_slice(&p);
            true
        });
        out
    }

    /// Issue 42: the exporter's LISTs slimmed as they arrive are the list
    /// with each item slimmed as the watch stores it, however the answer
    /// is split; what is not a list's shape goes on as it came.
    #[test]
    fn a_list_slimmed_as_it_arrives_is_the_list_of_slimmed_items() {
        for (kind, _, page) in pages() {
            let mut page = page;
            page["metadata"] = json!({"resourceVersion": "7", "continue": "x"});
            let body = serde_json::to_vec(&page).expect("JSON");
            let mut want = page.clone();
            for item in want["items"].as_array_mut().expect("items") {
                if kind == "ValkeyNode" {
                    node_value(item);
                }
                value(kind, item);
            }
            for piece in [1, 7, 4096] {
                let out = slimmed(kind, &body, piece);
                let got: Value =
                    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{kind}, {piece}: {e}"));
                assert_eq!(got, want, "{kind}, {piece} bytes a read");
                assert!(out.len() <= body.len(), "{kind}");
            }
        }
        let cases: [&[u8]; 6] = [
            b"",
            b"not JSON",
            br#"{"items":[{"metadata":{"name":"a"}},"#,
            br#"{"items":[{"a":1}]} trailing"#,
            br#"{"items":{"a":1}}"#,
            br#"[1,2,3]"#,
        ];
        for body in cases {
            let text = String::from_utf8_lossy(body);
            assert_eq!(slimmed("Pod", body, 3), body, "{text}");
        }
    }

    #[test]
    fn a_late_time_is_found_wherever_the_reads_split_it() {
        let pages = pages();
        let mut page = pages[0].2.clone();
        page["items"][0]["metadata"]["labels"]["x"] = json!("9999-12-31");
        let body = serde_json::to_vec(&page).expect("JSON");
        let at = body
            .windows(LATE.len())
            .position(|w| w == LATE)
            .expect("the text is there");
        // Every split of the marker between two reads, and reads shorter
        // than it.
        for piece in 1..=LATE.len() + 1 {
            for skew in 0..piece {
                let (head, rest) = body.split_at(at - skew.min(at));
                let reader = std::io::Read::chain(head, Trickle(rest, piece));
                assert!(
                    read_page::<Pod>(reader).is_none(),
                    "{piece} bytes a read, {skew} before the marker"
                );
            }
        }
        // Without the marker the same page reads.
        let clean = serde_json::to_vec(&pages[0].2).expect("JSON");
        assert!(read_page::<Pod>(Trickle(&clean, 3)).is_some());
    }

    #[test]
    fn the_watch_slims_its_objects_as_a_read_does() {
        for (kind, _, page) in pages() {
            let item = page["items"][0].clone();
            let mut stored = item.clone();
            value(kind, &mut stored);
            let list = |item: Value| {
                let mut p = page.clone();
                p["items"] = json!([item]);
                p
            };
            assert_eq!(
                whole_way(&list(stored), false),
                whole_way(&list(item), false),
                "{kind}"
            );
        }
    }
}
