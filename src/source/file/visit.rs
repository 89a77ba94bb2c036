//! The document visitors: each document is read into a `Value` as
//! serde_json reads it, but a key read twice is an error, keys no read kind
//! has are skipped unbuilt, and a List's items of kinds the plugin ignores
//! are skipped as they are parsed ([`Doc`], [`Item`]). [`Place`] follows the
//! reader, so a parse error names its document, object and field.

use super::add::{Kept, add_value, add_value_at, known_kind};
use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use serde_json::Value;

/// A document as read: its value, where the items of a List that the
/// plugin ignores (ConfigMaps, Secrets, any kind it does not read) are
/// left out as they are parsed, so they never become values in memory.
/// `kept`: for such a List, the original index of each item kept (errors
/// name `items[i]` as in the file). `streamed`: the items that name their
/// own kind, already converted while they were parsed (see [`Streamed`]).
pub(super) struct Doc {
    pub(super) value: Value,
    pub(super) kept: Option<Vec<usize>>,
    pub(super) streamed: Option<Box<Streamed>>,
}

/// The items of a List that were converted into objects as they were
/// parsed, each dropped as a value as soon as it was converted: memory
/// holds the slim objects, never the List's values. Whether the document
/// is a List at all is known only at its end (kubectl writes `items`
/// before `kind`), so they count only then ([`add_document`]); the first
/// item that failed, with its index, waits there too, so that an earlier
/// item kept as a value (one without a `kind`) is reported first, as it
/// was when every item was read as a value first.
#[derive(Default)]
pub(super) struct Streamed {
    pub(super) snapshot: Snapshot,
    pub(super) error: Option<(usize, Error)>,
    /// How many items the List holds in the file, skipped ones too.
    pub(super) seen: usize,
}

/// The label a streamed item's error carries until its document's label
/// replaces it.
pub(super) const STREAMED_DOC: &str = "\u{0}";

impl<'de> serde::Deserialize<'de> for Doc {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        place(|p| *p = Place::default());
        d.deserialize_any(DocVisitor)
    }
}

pub(super) struct DocVisitor;

/// The keys any kind the plugin reads has at its top level (the objects'
/// own, an Event's, a List's). Any other key, at the top of a document
/// or of an item, is skipped while it is parsed, never built: a List's
/// extra keys, and a ConfigMap's or Secret's `data`, which `kubectl get
/// -o json` writes before `kind`, cost no memory (issue 22, item 1).
pub(super) const READ_KEYS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "spec",
    "status",
    "items",
    // A Status document's, for the error that a snapshot holds one.
    "message",
    // core/v1 Event.
    "action",
    "count",
    "eventTime",
    "firstTimestamp",
    "involvedObject",
    "lastTimestamp",
    "reason",
    "related",
    "reportingComponent",
    "reportingInstance",
    "series",
    "source",
    "type",
    // events.k8s.io/v1 Event.
    "deprecatedCount",
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
    "deprecatedSource",
    "note",
    "regarding",
    "reportingController",
    // valkey-roll.io ServerReading ("source", "type" and "message" aside).
    "node",
    "observedAt",
    "address",
    "nodeId",
    "role",
    "primaryAddress",
    "link",
    "syncing",
    "flags",
    "clusterState",
    "error",
];

/// The scalar and sequence shapes of a value, a document or an item, read as
/// serde_json reads them; a mapping is the visitor's own business.
macro_rules! plain_shapes {
    ($wrap:expr) => {
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::Bool(v)))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_i128<E: serde::de::Error>(self, v: i128) -> std::result::Result<Self::Value, E> {
            number_i128(v).map($wrap)
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
            Ok($wrap(number_f64(v)))
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::String(v.to_string())))
        }
        fn visit_string<E: serde::de::Error>(
            self,
            v: String,
        ) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::String(v)))
        }
        fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::Null))
        }
        fn visit_none<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::Null))
        }
        fn visit_some<D: serde::Deserializer<'de>>(
            self,
            d: D,
        ) -> std::result::Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            seq: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            strict_seq(seq).map(|v| $wrap(Value::Array(v)))
        }
    };
}

/// A value as serde_json's `Value` reads it, but a mapping that holds a
/// key twice is an error (JSON as YAML: a second `kind` or `name` must not
/// silently win), `-0` is 0 (as Go and the API server read it), and every
/// key read is on [`PLACE`]'s path while its value is read.
pub(super) struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

pub(super) struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a YAML or JSON value")
    }

    plain_shapes!(Strict);

    fn visit_u128<E: serde::de::Error>(self, v: u128) -> std::result::Result<Strict, E> {
        match u64::try_from(v) {
            Ok(v) => Ok(Strict(Value::from(v))),
            Err(_) => Err(beyond_every_field(v)),
        }
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Strict, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = strict_value(&mut map, &key, &out)?;
            out.insert(key, value);
        }
        Ok(Strict(Value::Object(out)))
    }
}

/// The elements of a sequence, each on [`PLACE`]'s path as `[i]`.
pub(super) fn strict_seq<'de, A: serde::de::SeqAccess<'de>>(
    mut seq: A,
) -> std::result::Result<Vec<Value>, A::Error> {
    let mut out = Vec::new();
    loop {
        place(|p| p.enter_index(out.len()));
        match seq.next_element::<Strict>()? {
            Some(Strict(v)) => {
                place(Place::leave);
                out.push(v);
            }
            None => {
                place(Place::leave);
                return Ok(out);
            }
        }
    }
}

/// The value of `key` in a mapping that holds `seen` so far: an error for
/// a key it holds already.
pub(super) fn strict_value<'de, A: serde::de::MapAccess<'de>>(
    map: &mut A,
    key: &str,
    seen: &serde_json::Map<String, Value>,
) -> std::result::Result<Value, A::Error> {
    place(|p| p.enter_key(key));
    if seen.contains_key(key) {
        return Err(serde::de::Error::custom(format!(
            "the key `{key}` is in this mapping twice (which copy counts is not said)"
        )));
    }
    let Strict(value) = map.next_value::<Strict>()?;
    place(Place::leave);
    Ok(value)
}

/// A YAML integer wider than 64 bits: no field holds one, and kept as the
/// nearest double it would no longer read as written.
pub(super) fn number_i128<E: serde::de::Error>(v: i128) -> std::result::Result<Value, E> {
    match (i64::try_from(v), u64::try_from(v)) {
        (Ok(v), _) => Ok(Value::from(v)),
        (_, Ok(v)) => Ok(Value::from(v)),
        _ => Err(beyond_every_field(v)),
    }
}

pub(super) fn beyond_every_field<E: serde::de::Error>(v: impl std::fmt::Display) -> E {
    E::custom(format!(
        "the number `{v}` is beyond what any number field holds"
    ))
}

/// A number read as a float: `-0` (and `-0.0`) is 0, as Go reads it.
pub(super) fn number_f64(v: f64) -> Value {
    if v == 0.0 && v.is_sign_negative() {
        Value::from(0)
    } else {
        Value::from(v)
    }
}

/// Where the reader is in the document being parsed on this thread: the
/// item of a List, its kind and name as far as they were read, and the
/// path of the field. A parse error (which serde-saphyr and serde_json
/// report with a line and column only) is then named as a schema error
/// is: document, object, field.
#[derive(Default)]
pub(super) struct Place {
    item: Option<usize>,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    /// `spec.containers[0].image`: the field being read.
    path: String,
    /// The length of `path` before each step entered.
    steps: Vec<usize>,
    /// Where an item's own fields start in `path`.
    item_base: usize,
}

impl Place {
    fn enter_key(&mut self, key: &str) {
        self.steps.push(self.path.len());
        if self.path.len() > self.item_base {
            self.path.push('.');
        }
        self.path.push_str(key);
    }
    fn enter_index(&mut self, index: usize) {
        use std::fmt::Write as _;
        self.steps.push(self.path.len());
        let _ = write!(self.path, "[{index}]");
    }
    fn leave(&mut self) {
        if let Some(len) = self.steps.pop() {
            self.path.truncate(len);
        }
    }
    /// After a value at the top of a document or an item: its kind and
    /// name, for an error further on.
    fn note(&mut self, key: &str, value: &Value) {
        match key {
            "kind" => self.kind = value.as_str().map(str::to_string),
            "metadata" => {
                let text = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_string);
                self.namespace = text("namespace");
                self.name = text("name");
            }
            _ => {}
        }
    }
    /// The field being read, relative to its item.
    fn field(&self) -> &str {
        self.path
            .get(self.item_base..)
            .unwrap_or("")
            .trim_start_matches('.')
    }
    /// ` (Kind namespace/name)`, as [`describe`] says it.
    fn object(&self) -> String {
        match (&self.kind, &self.namespace, &self.name) {
            (Some(kind), Some(ns), Some(name)) => format!(" ({kind} {ns}/{name})"),
            (Some(kind), None, Some(name)) => format!(" ({kind} {name})"),
            (Some(kind), _, None) => format!(" ({kind})"),
            _ => String::new(),
        }
    }
    /// The document's label: `3`, or `3/items[4]`.
    fn doc(&self, document: usize) -> String {
        match self.item {
            Some(i) => format!("{document}/items[{i}]"),
            None => document.to_string(),
        }
    }
}

thread_local! {
    /// The [`Place`] of the parse running on this thread.
    static PLACE: std::cell::RefCell<Place> = std::cell::RefCell::new(Place::default());
}

pub(super) fn place<T>(f: impl FnOnce(&mut Place) -> T) -> T {
    PLACE.with(|p| f(&mut p.borrow_mut()))
}

/// A parse error with its place: a schema error naming the document, the
/// object and the field when the reader was inside one, else `None`.
pub(super) fn placed(document: usize, problem: &str, source_name: &str) -> Option<Error> {
    place(|p| {
        // Between fields (a syntax error after a value), the line and
        // column say more than a field would.
        if p.field().is_empty() {
            return None;
        }
        let field = p.field().to_string();
        Some(Error::Snapshot {
            source_name: source_name.to_string(),
            doc: p.doc(document),
            object: p.object(),
            field,
            problem: problem.to_string(),
        })
    })
}

impl<'de> serde::de::Visitor<'de> for DocVisitor {
    type Value = Doc;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a YAML or JSON document")
    }

    plain_shapes!(|value| Doc {
        value,
        kept: None,
        streamed: None,
    });

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Doc, A::Error> {
        let mut out = serde_json::Map::new();
        let mut kept = None;
        let mut streamed = None;
        while let Some(key) = map.next_key::<String>()? {
            if !READ_KEYS.contains(&key.as_str()) {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            if key == "items" {
                place(|p| p.enter_key(&key));
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(
                        "the key `items` is in this mapping twice (which copy counts is not said)",
                    ));
                }
                match map.next_value::<Items>()? {
                    Items::Seq(values, indices, done) => {
                        out.insert(key, Value::Array(values));
                        kept = Some(indices);
                        streamed = Some(done);
                    }
                    Items::Other(value) => {
                        out.insert(key, value);
                    }
                }
                place(Place::leave);
            } else {
                let value = strict_value(&mut map, &key, &out)?;
                place(|p| p.note(&key, &value));
                out.insert(key, value);
            }
        }
        Ok(Doc {
            value: Value::Object(out),
            kept,
            streamed,
        })
    }
}

/// A List's `items`: the items kept (with their indices), or whatever
/// else the field holds (for the error that it is not a sequence).
pub(super) enum Items {
    Seq(Vec<Value>, Vec<usize>, Box<Streamed>),
    Other(Value),
}

impl<'de> serde::Deserialize<'de> for Items {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct ItemsVisitor;
        impl<'de> serde::de::Visitor<'de> for ItemsVisitor {
            type Value = Items;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a sequence of objects")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Items, A::Error> {
                let mut values = Vec::new();
                let mut indices = Vec::new();
                let mut streamed = Streamed::default();
                let mut index = 0usize;
                let outer = place(|p| {
                    let outer = (
                        p.kind.take(),
                        p.namespace.take(),
                        p.name.take(),
                        p.item_base,
                    );
                    p.item_base = p.path.len();
                    outer
                });
                loop {
                    place(|p| {
                        p.item = Some(index);
                        p.kind = None;
                        p.namespace = None;
                        p.name = None;
                    });
                    let Some(item) = seq.next_element::<Item>()? else {
                        break;
                    };
                    if let Item::Keep(value) = item {
                        // An item that names its kind is converted now,
                        // exactly as add_list would convert it; one
                        // without (a typed list's) waits for the List's.
                        let names_kind = value
                            .get("kind")
                            .and_then(Value::as_str)
                            .is_some_and(|k| !k.is_empty());
                        if !names_kind {
                            values.push(value);
                            indices.push(index);
                        } else if streamed.error.is_none() {
                            let label = format!("{STREAMED_DOC}/items[{index}]");
                            if let Err(e) = add_value(&mut streamed.snapshot, &value, &label, "") {
                                streamed.error = Some((index, e));
                            }
                        }
                    }
                    index += 1;
                }
                place(|p| {
                    p.item = None;
                    (p.kind, p.namespace, p.name, p.item_base) = outer;
                });
                streamed.seen = index;
                Ok(Items::Seq(values, indices, Box::new(streamed)))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<Items, A::Error> {
                StrictVisitor
                    .visit_map(map)
                    .map(|Strict(v)| Items::Other(v))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::Bool(v)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::from(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::from(v)))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::from(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::String(v.to_string())))
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::Null))
            }
            fn visit_none<E: serde::de::Error>(self) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::Null))
            }
            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> std::result::Result<Items, D::Error> {
                d.deserialize_any(self)
            }
        }
        d.deserialize_any(ItemsVisitor)
    }
}

/// One item of a List: kept as a value, or skipped while it is parsed
/// when its first two keys say it is a kind the plugin ignores (kubectl
/// writes `apiVersion` and `kind` first). An item whose first keys are
/// others is kept whole and judged later, as before.
pub(super) enum Item {
    Keep(Value),
    Skip,
}

impl<'de> serde::Deserialize<'de> for Item {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(ItemVisitor)
    }
}

pub(super) struct ItemVisitor;

impl<'de> serde::de::Visitor<'de> for ItemVisitor {
    type Value = Item;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a Kubernetes object")
    }

    plain_shapes!(Item::Keep);

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Item, A::Error> {
        let mut out = serde_json::Map::new();
        let mut decided = false;
        while let Some(key) = map.next_key::<String>()? {
            if !READ_KEYS.contains(&key.as_str()) {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            let value = strict_value(&mut map, &key, &out)?;
            place(|p| p.note(&key, &value));
            out.insert(key, value);
            if decided {
                continue;
            }
            let text = |k: &str| out.get(k).and_then(Value::as_str);
            if let (Some(api_version), Some(kind)) = (text("apiVersion"), text("kind")) {
                let listed = kind == "List" || kind.ends_with("List");
                if !listed && matches!(known_kind(api_version, kind), Ok(None)) {
                    while map
                        .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                        .is_some()
                    {}
                    return Ok(Item::Skip);
                }
                decided = true;
            } else if out.len() >= 2 {
                decided = true;
            }
        }
        Ok(Item::Keep(Value::Object(out)))
    }
}

/// A document as read by [`Doc`]: a List whose ignored items were left
/// out names the others by their index in the file.
pub(super) fn add_document(
    snapshot: &mut Snapshot,
    doc: Doc,
    label: &str,
    source_name: &str,
) -> Result<()> {
    let is_list = doc
        .value
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|kind| {
            kind == "List" || (kind.ends_with("List") && doc.value.get("items").is_some())
        });
    let streamed = doc.streamed.filter(|_| is_list);
    // The first bad item in the file's order: a streamed one, unless an
    // item kept as a value before it is bad too.
    let stop_at = streamed
        .as_ref()
        .and_then(|s| s.error.as_ref().map(|(at, _)| *at));
    let mut part = Snapshot::default();
    let kept = Kept {
        indices: doc.kept.as_deref(),
        stop_at,
    };
    add_value_at(&mut part, &doc.value, label, source_name, kept)?;
    if let Some(streamed) = streamed {
        if let Some((_, e)) = streamed.error {
            return Err(relabel(e, label, source_name));
        }
        snapshot.extend(streamed.snapshot);
    }
    snapshot.extend(part);
    Ok(())
}

/// A streamed item's error, with its document's label and source put in.
pub(super) fn relabel(e: Error, label: &str, source: &str) -> Error {
    match e {
        Error::Snapshot {
            doc,
            object,
            field,
            problem,
            ..
        } => Error::Snapshot {
            source_name: source.to_string(),
            doc: doc.replacen(STREAMED_DOC, label, 1),
            object,
            field,
            problem,
        },
        other => other,
    }
}
