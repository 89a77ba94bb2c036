//! The live view: kube's watcher for the six kinds `status` reads, each into
//! a store of its own, and a new [`Snapshot`] whenever any of them
//! changes. The stores are not kube's reflector: `StoreWriter` applies
//! the watcher's events as the reflector would, but keeps each object as
//! compact JSON, slimmed as a one-shot read keeps it.
//!
//! Each kind is selected exactly as the one-shot LIST selects it (label
//! `valkey.io/cluster[=name]` for nodes, workloads and pods; field
//! `involvedObject.apiVersion=valkey.io/v1alpha1` for events; the
//! ValkeyClusters by name when one is named). The watcher resumes a watch
//! that the server ends from the last resourceVersion it saw, and lists again
//! after a 410 Gone.
//!
//! After any error the kind's watcher is started afresh (a new LIST, then a
//! watch) once the watcher's default backoff has passed. Two reasons: the
//! kube watcher says nothing when a resumed watch starts, so only the LIST's
//! end proves the connection is back (and the stores current) after an
//! outage; and the store keeps showing the last known objects until that
//! LIST has replaced them whole.
//!
//! The watch client has no read timeout (a quiet watch sends nothing for
//! minutes), so the LIST each watcher starts with is bounded here instead:
//! `--request-timeout` without an answer while listing is a failure like
//! any other (the first time: fatal, as a one-shot `status` would be).
//!
//! The first snapshot comes once every kind has been listed. An error before
//! that is fatal (the same errors as a one-shot `status`: missing CRD,
//! forbidden, unreachable); after it, errors only change the connection
//! state ([`Connection::Lost`]) while the watchers retry. A watch started
//! with [`Watch::start_tolerant`] (the exporter's) is never ended by a
//! watcher's error, before the first snapshot or after: it keeps retrying,
//! and says per kind what it sees ([`Watch::health`]) and every failure
//! ([`Watch::take_failures`]).

use super::file;
use super::live::Live;
use super::select::{Kind, check_cluster_name, selectors};
use crate::error::{Error, Result};
use crate::snapshot::{Changed, Snapshot};
use futures::StreamExt;
use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, DynamicObject};
use kube::runtime::utils::Backoff;
use kube::runtime::watcher::{self, DefaultBackoff};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// What to watch: one namespace or all, one ValkeyCluster or all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Scope {
    /// `None`: every namespace (`-A`).
    pub namespace: Option<String>,
    /// A ValkeyCluster's name (the positional CLUSTER).
    pub cluster: Option<String>,
}

/// Whether the view is current.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Connection {
    /// Every kind is listed and watched.
    Live,
    /// A watch failed; the view shows the last objects seen, and the next
    /// attempt is `retry_in` from when this was sent.
    Lost { retry_in: Duration, error: String },
}

/// What the watch hands on.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Update {
    /// The objects in view changed (sorted by [`Snapshot::normalize`]);
    /// shared with the watch, which keeps it to tell the next one apart.
    Snapshot(Arc<Snapshot>),
    Connection(Connection),
}

/// The page size of a watch's LISTs (its start, and every restart). The
/// watcher parses a page whole into JSON values before this module slims
/// them: a page of 500 pods as the operator builds them is some 20 MB of
/// values, and the three large kinds start at once, so at 500 the start of
/// a 3000-node watch peaked at 111 MB of heap (kept by the allocator
/// afterwards). A fifth of that costs more requests only where a kind has
/// more than 100 objects.
pub(crate) const WATCH_PAGE_SIZE: u32 = 100;

fn watcher_config(kind: Kind, scope: &Scope) -> watcher::Config {
    let (label_selector, field_selector) = selectors(kind, scope.cluster.as_deref());
    watcher::Config {
        label_selector,
        field_selector,
        page_size: Some(WATCH_PAGE_SIZE),
        ..watcher::Config::default()
    }
}

/// A message from one kind's task.
#[derive(Debug)]
enum KindMsg {
    /// The kind's store changed (an object applied or deleted, or a LIST
    /// replaced the store whole).
    Changed(Kind),
    /// The kind's watch failed; it starts afresh after `retry_in`.
    Failed {
        kind: Kind,
        error: watcher::Error,
        retry_in: Duration,
    },
}

/// One kind's objects as the watch last saw them, by namespace and name,
/// each kept as the compact JSON of its slimmed form: a few hundred bytes
/// where a parsed JSON value of the same object takes kilobytes (one
/// allocation per string and map), so a watch of thousands of objects
/// stays small. Written by the kind's task, read when a snapshot is built.
#[derive(Clone, Default)]
struct Store(Arc<Mutex<Objects>>);

type Objects = BTreeMap<(String, String), Box<[u8]>>;

impl Store {
    /// The objects; a task that panicked while writing leaves them as they
    /// were, which the next LIST replaces.
    fn lock(&self) -> MutexGuard<'_, Objects> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What changed since the watch's consumer last asked, by cluster
/// ([`Changed`]), written by every kind's task after its store.
#[derive(Clone, Default)]
struct Dirty(Arc<Mutex<Changed>>);

impl Dirty {
    fn lock(&self) -> MutexGuard<'_, Changed> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn take(&self) -> Changed {
        std::mem::take(&mut *self.lock())
    }
}

/// Applies the watcher's events to a [`Store`], as kube's reflector does:
/// a LIST fills a buffer (`Init`, `InitApply`) that replaces the objects
/// whole at its end (`InitDone`), so the store keeps showing the last known
/// objects until then. Each object that changes marks the clusters it
/// belongs to in [`Dirty`], after the store has it (so a snapshot built
/// after the mark was taken has the change).
struct StoreWriter {
    kind: Kind,
    store: Store,
    dirty: Dirty,
    listing: Option<Objects>,
}

impl StoreWriter {
    fn new(kind: Kind, store: Store, dirty: Dirty) -> StoreWriter {
        StoreWriter {
            kind,
            store,
            dirty,
            listing: None,
        }
    }

    fn apply(&mut self, event: &watcher::Event<DynamicObject>) {
        let kind = self.kind;
        match event {
            watcher::Event::Apply(o) => {
                let new = compact(o);
                let old = self.store.lock().insert(key(o), new.clone());
                if old.as_deref() != Some(&new[..]) {
                    let mut changed = changed_by(kind, o);
                    if let Some(old) = old {
                        changed.merge(changed_by_bytes(kind, &old));
                    }
                    self.dirty.lock().merge(changed);
                }
            }
            watcher::Event::Delete(o) => {
                self.store.lock().remove(&key(o));
                self.dirty.lock().merge(changed_by(kind, o));
            }
            watcher::Event::Init => self.listing = Some(Objects::new()),
            watcher::Event::InitApply(o) => {
                self.listing
                    .get_or_insert_with(Objects::new)
                    .insert(key(o), compact(o));
            }
            watcher::Event::InitDone => {
                let listed = self.listing.take().unwrap_or_default();
                let old = std::mem::replace(&mut *self.store.lock(), listed.clone());
                // The first LIST changes everything (the consumer judges
                // every cluster of its first view anyway); a LIST again
                // after an outage, only the objects that differ.
                if !old.is_empty() {
                    let mut changed = Changed::default();
                    for (k, bytes) in &listed {
                        if old.get(k) != Some(bytes) {
                            changed.merge(changed_by_bytes(kind, bytes));
                        }
                    }
                    for (k, bytes) in &old {
                        if listed.get(k) != Some(bytes) {
                            changed.merge(changed_by_bytes(kind, bytes));
                        }
                    }
                    self.dirty.lock().merge(changed);
                }
            }
        }
    }
}

/// The clusters an object of `kind` belongs to (as `snapshot::group` says):
/// a ValkeyCluster its own, a ValkeyNode its cluster's, a pod or workload
/// the one its `valkey.io/cluster` label names and its node's (the pod's
/// `app.kubernetes.io/instance`, the workload's name after `valkey-`), an
/// event that of the cluster or node it is about.
fn changed_by(kind: Kind, o: &DynamicObject) -> Changed {
    let ns = o.metadata.namespace.clone().unwrap_or_default();
    let name = o.metadata.name.clone().unwrap_or_default();
    let mut changed = Changed::default();
    let mut cluster = |c: &str| {
        changed.clusters.insert((ns.clone(), c.to_string()));
    };
    match kind {
        Kind::ValkeyClusters => cluster(&name),
        Kind::ValkeyNodes => {
            if let Some(c) = crate::snapshot::node_cluster(&o.metadata) {
                cluster(&c);
            }
        }
        Kind::Pods | Kind::StatefulSets | Kind::Deployments => {
            if let Some(c) = crate::snapshot::cluster_label(&o.metadata) {
                cluster(c);
            }
            let node = match kind {
                Kind::Pods => o
                    .metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(crate::snapshot::keys::LABEL_INSTANCE))
                    .cloned(),
                _ => name.strip_prefix("valkey-").map(str::to_string),
            };
            if let Some(node) = node {
                changed.nodes.insert((ns.clone(), node));
            }
        }
        Kind::Events => {
            // Of the event, what says what it is about; a reference that
            // cannot be read names nothing (the snapshot's build names it).
            let reference = |field: &str| {
                o.data
                    .get(field)
                    .and_then(|v| serde_json::from_value(v.clone()).ok())
            };
            let e = k8s_openapi::api::core::v1::Event {
                metadata: ObjectMeta {
                    namespace: o.metadata.namespace.clone(),
                    ..ObjectMeta::default()
                },
                involved_object: reference("involvedObject").unwrap_or_default(),
                related: reference("related"),
                ..Default::default()
            };
            let ns = e
                .metadata
                .namespace
                .clone()
                .or(e.involved_object.namespace.clone())
                .unwrap_or_default();
            for (kind, name) in crate::snapshot::event_subjects(&e) {
                let key = (ns.clone(), name.to_string());
                match kind {
                    "ValkeyCluster" => changed.clusters.insert(key),
                    "ValkeyNode" => changed.nodes.insert(key),
                    _ => false,
                };
            }
        }
    }
    changed
}

/// [`changed_by`] of an object as the store keeps it.
fn changed_by_bytes(kind: Kind, bytes: &[u8]) -> Changed {
    match serde_json::from_slice::<DynamicObject>(bytes) {
        Ok(o) => changed_by(kind, &o),
        // Unreadable bytes are read by no judgement; the snapshot's build
        // names them.
        Err(_) => Changed::default(),
    }
}

fn key(o: &DynamicObject) -> (String, String) {
    (
        o.metadata.namespace.clone().unwrap_or_default(),
        o.metadata.name.clone().unwrap_or_default(),
    )
}

/// The object's compact JSON. Writing a parsed object cannot fail; were it
/// to, the empty bytes fail to read when the snapshot is built, and that
/// error names the resource.
fn compact(o: &DynamicObject) -> Box<[u8]> {
    serde_json::to_vec(o).unwrap_or_default().into_boxed_slice()
}

/// The six stores the tasks write into, in [`Kind::ALL`] order.
struct Stores(Vec<(Kind, Store)>);

impl Stores {
    /// Every store's objects, converted exactly as a one-shot LIST's answer
    /// is (the file reader's conversion, each object labelled as the item
    /// of a list), so both give equal snapshots and an object that breaks
    /// the schema is named the same way. One object is a JSON value at a
    /// time, never a whole store.
    fn snapshot(&self) -> Result<Snapshot> {
        let mut snapshot = Snapshot::default();
        for (kind, store) in &self.0 {
            let ar = kind.api_resource();
            let source_name = format!("the API server's watch of {}", ar.plural);
            for (at, object) in store.lock().values().enumerate() {
                let mut value: Value =
                    serde_json::from_slice(object).map_err(|source| Error::WatchCopy {
                        resource: ar.plural.clone(),
                        source,
                    })?;
                // As a typed list's item: the list's kind and version.
                if let Value::Object(map) = &mut value
                    && !map.contains_key("kind")
                {
                    map.insert("kind".into(), Value::String(ar.kind.clone()));
                    map.entry("apiVersion")
                        .or_insert_with(|| Value::String(ar.api_version.clone()));
                }
                file::add_value(
                    &mut snapshot,
                    &value,
                    &format!("1/items[{at}]"),
                    &source_name,
                )?;
            }
        }
        snapshot.normalize();
        Ok(snapshot)
    }
}

/// What one kind's watcher sees, for the exporter's health series.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KindHealth {
    pub kind: Kind,
    /// Listed since its last failure, and watched: its store is current.
    pub up: bool,
    /// The last time its store changed (a LIST ended, an object came or
    /// went), by the real clock.
    pub last_event: Option<Timestamp>,
    /// Why it is down, in the words of a one-shot read; `None` while up, or
    /// before its first answer.
    pub error: Option<String>,
}

/// A running watch of the six kinds. Dropping it stops every watcher.
pub(crate) struct Watch {
    rx: mpsc::UnboundedReceiver<KindMsg>,
    stores: Stores,
    tasks: Vec<JoinHandle<()>>,
    state: Aggregate,
    pending: VecDeque<Update>,
    live: Live,
    namespace: Option<String>,
    /// The named ValkeyCluster, whose nodes alone are kept.
    cluster: Option<String>,
    /// Errors never end this watch ([`Watch::start_tolerant`]).
    tolerant: bool,
    /// Per kind, in [`Kind::ALL`] order.
    health: Vec<KindHealth>,
    /// The failures not yet taken ([`Watch::take_failures`]; tolerant only).
    failures: Vec<(Kind, Error)>,
    /// Why the last snapshot could not be built (an object that breaks the
    /// schema); `None` once one was.
    unreadable: Option<String>,
    /// What the tasks marked changed, not yet taken into `changed`.
    dirty: Dirty,
    /// What changed in the snapshots built since [`Watch::take_changed`]
    /// was last called (everything, before the first).
    changed: Changed,
}

impl Watch {
    /// [`Watch::start`] for a process that must outlive any error (the
    /// exporter): a watcher's failure, before the first snapshot or after,
    /// never ends it; each is kept for [`Watch::take_failures`] and shows in
    /// [`Watch::health`] while the kind's watcher retries with backoff. It
    /// keeps no snapshot: each change hands on a new one (even one equal to
    /// the last), and [`Watch::snapshot_now`] builds one on demand.
    /// [`Watch::next`] then fails only for an object that breaks the schema
    /// (the next change tries again) and when every watcher has stopped.
    pub(crate) fn start_tolerant(live: &Live, scope: &Scope) -> Result<Watch> {
        let mut watch = Watch::start(live, scope)?;
        watch.tolerant = true;
        Ok(watch)
    }

    /// Each kind's state, in [`Kind::ALL`] order.
    pub(crate) fn health(&self) -> &[KindHealth] {
        &self.health
    }

    /// Why the objects in view could not be read into a snapshot the last
    /// time it was tried (an object that breaks the schema); `None` once
    /// one was, even when it equals the last one handed on (and so is not
    /// handed on again).
    pub(crate) fn unreadable(&self) -> Option<&str> {
        self.unreadable.as_deref()
    }

    /// The failures since the last call, oldest first (a tolerant watch's
    /// only; empty otherwise).
    pub(crate) fn take_failures(&mut self) -> Vec<(Kind, Error)> {
        std::mem::take(&mut self.failures)
    }

    /// What changed, by cluster, in the snapshots built since the last
    /// call (handed on by [`Watch::next`] or built by
    /// [`Watch::snapshot_now`]): the clusters to judge again. Everything
    /// before the first call.
    pub(crate) fn take_changed(&mut self) -> Changed {
        std::mem::take(&mut self.changed)
    }

    /// Starts one watcher per kind, on the connection's watch client (no
    /// read timeout: a watch stays quiet for minutes, and
    /// `--request-timeout` must not cut it).
    pub(crate) fn start(live: &Live, scope: &Scope) -> Result<Watch> {
        check_cluster_name(scope.cluster.as_deref())?;
        let (tx, rx) = mpsc::unbounded_channel();
        let mut stores = Vec::with_capacity(Kind::ALL.len());
        let mut tasks = Vec::with_capacity(Kind::ALL.len());
        let dirty = Dirty::default();
        for kind in Kind::ALL {
            let (store, task) = spawn_kind(
                kind,
                &live.watch_client,
                scope,
                live.request_timeout,
                &tx,
                &dirty,
            );
            stores.push((kind, store));
            tasks.push(task);
        }
        Ok(Watch {
            rx,
            stores: Stores(stores),
            tasks,
            state: Aggregate::default(),
            pending: VecDeque::new(),
            live: live.clone(),
            namespace: scope.namespace.clone(),
            cluster: scope.cluster.clone(),
            tolerant: false,
            health: Kind::ALL
                .iter()
                .map(|&kind| KindHealth {
                    kind,
                    up: false,
                    last_event: None,
                    error: None,
                })
                .collect(),
            failures: Vec::new(),
            unreadable: None,
            dirty,
            changed: Changed::all(),
        })
    }

    /// The next change: a new snapshot (only when it differs from the last
    /// one), or a change of the connection state. An error before the first
    /// snapshot (every kind listed once), or an object that breaks the
    /// schema, ends the watch.
    pub(crate) async fn next(&mut self) -> Result<Update> {
        loop {
            if let Some(update) = self.pending.pop_front() {
                return Ok(update);
            }
            let Some(msg) = self.rx.recv().await else {
                return Err(Error::WatchEnded);
            };
            // Take whatever else is queued too: a burst of changes gives one
            // snapshot.
            let mut batch = vec![msg];
            while let Ok(msg) = self.rx.try_recv() {
                batch.push(msg);
            }
            let now = Instant::now();
            for msg in batch {
                match msg {
                    KindMsg::Changed(kind) => {
                        let health = &mut self.health[kind.index()];
                        health.up = true;
                        health.last_event = Some(Timestamp::now());
                        health.error = None;
                        if let Some(conn) = self.state.changed(kind) {
                            self.pending.push_back(Update::Connection(conn));
                        }
                    }
                    KindMsg::Failed {
                        kind,
                        error,
                        retry_in,
                    } => {
                        if !self.state.started() && !self.tolerant {
                            return Err(self.fatal(kind, error));
                        }
                        let error = self.fatal(kind, error);
                        let text = error.to_string();
                        let health = &mut self.health[kind.index()];
                        health.up = false;
                        health.error = Some(text.clone());
                        if self.tolerant {
                            self.failures.push((kind, error));
                        }
                        if let Some(conn) = self.state.failed(kind, text, retry_in, now) {
                            self.pending.push_back(Update::Connection(conn));
                        }
                    }
                }
            }
            if self.state.wants_snapshot() {
                let snapshot = self.build()?;
                let offered = if self.tolerant {
                    Some(self.state.offer_unkept(snapshot))
                } else {
                    self.state.offer(snapshot)
                };
                if let Some(snapshot) = offered {
                    self.pending.push_back(Update::Snapshot(snapshot));
                }
            }
        }
    }

    /// The objects in view as a snapshot, built from the stores (the named
    /// cluster's nodes alone); an object that breaks the schema is the
    /// error, kept for [`Watch::unreadable`].
    fn build(&mut self) -> Result<Snapshot> {
        // Taken before the stores are read: a change marked after this is
        // marked again for the next snapshot, which has it.
        let marked = self.dirty.take();
        self.changed.merge(marked);
        match self.stores.snapshot() {
            Ok(mut snapshot) => {
                self.unreadable = None;
                if let Some(cluster) = &self.cluster {
                    snapshot.retain_nodes_of(cluster);
                }
                Ok(snapshot)
            }
            Err(e) => {
                self.unreadable = Some(e.to_string());
                Err(e)
            }
        }
    }

    /// A snapshot of the objects in view now, built afresh from the stores:
    /// for a tolerant watch, which keeps none between changes (the exporter
    /// judges again when time alone can change a verdict, and holds no
    /// snapshot meanwhile). `None` until every kind has been listed.
    pub(crate) fn snapshot_now(&mut self) -> Option<Result<Snapshot>> {
        if !self.state.started() {
            return None;
        }
        Some(self.build())
    }

    /// A watcher error in the words of a one-shot read.
    fn fatal(&self, kind: Kind, error: watcher::Error) -> Error {
        let resource = kind.api_resource().plural;
        let client_error = match error {
            watcher::Error::InitialListFailed(e)
            | watcher::Error::WatchStartFailed(e)
            | watcher::Error::WatchFailed(e) => e,
            watcher::Error::WatchError(status) => kube::Error::Api(status),
            watcher::Error::NoResourceVersion => {
                return Error::Api {
                    verb: "watch".into(),
                    resource,
                    status: None,
                    message: "the API server sent no resourceVersion".into(),
                    source: None,
                };
            }
        };
        self.live
            .error(client_error, "watch", &resource, self.namespace.as_deref())
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Spawns the task that keeps one kind's store; returns its reader.
/// An object as the watch stores it, slimmed as a one-shot read keeps it
/// ([`super::slim::value`], [`super::slim::node`]); a ValkeyCluster stays
/// whole.
fn slim_object(kind: Kind, object: &mut DynamicObject) {
    let name = match kind {
        Kind::Pods => "Pod",
        Kind::StatefulSets => "StatefulSet",
        Kind::Deployments => "Deployment",
        Kind::Events => "Event",
        Kind::ValkeyNodes => {
            let mut node = crate::snapshot::ValkeyNode {
                metadata: std::mem::take(&mut object.metadata),
                ..Default::default()
            };
            super::slim::node(&mut node);
            object.metadata = node.metadata;
            return;
        }
        Kind::ValkeyClusters => return,
    };
    object.metadata.managed_fields = None;
    super::slim::value(name, &mut object.data);
}

fn spawn_kind(
    kind: Kind,
    client: &kube::Client,
    scope: &Scope,
    request_timeout: Option<Duration>,
    tx: &mpsc::UnboundedSender<KindMsg>,
    dirty: &Dirty,
) -> (Store, JoinHandle<()>) {
    let ar = kind.api_resource();
    let api: Api<DynamicObject> = match &scope.namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &ar),
        None => Api::all_with(client.clone(), &ar),
    };
    let config = watcher_config(kind, scope);
    let reader = Store::default();
    let mut writer = StoreWriter::new(kind, reader.clone(), dirty.clone());
    let tx = tx.clone();
    let task = tokio::spawn(async move {
        let mut backoff = DefaultBackoff::default();
        loop {
            let mut stream = watcher::watcher(api.clone(), config.clone()).boxed();
            // Until `InitDone`, the watcher is listing: each answer must
            // come within the request timeout.
            let mut listing = true;
            while let Some(event) = next_event(&mut stream, listing, request_timeout).await {
                match event {
                    Ok(event) => {
                        // What the snapshot would throw away never enters
                        // the store (super::slim).
                        let event = event.modify(|o| slim_object(kind, o));
                        if matches!(event, watcher::Event::InitDone) {
                            listing = false;
                        }
                        writer.apply(&event);
                        // `Init` and `InitApply` only fill the writer's buffer;
                        // the store changes at `InitDone`. `Init` comes before
                        // any request, so it says nothing about the server and
                        // must not reset the backoff.
                        if matches!(
                            event,
                            watcher::Event::Apply(_)
                                | watcher::Event::Delete(_)
                                | watcher::Event::InitDone
                        ) {
                            backoff.reset();
                            if tx.send(KindMsg::Changed(kind)).is_err() {
                                return;
                            }
                        }
                    }
                    Err(error) => {
                        let retry_in = backoff.next().unwrap_or(Duration::from_secs(30));
                        if tx
                            .send(KindMsg::Failed {
                                kind,
                                error,
                                retry_in,
                            })
                            .is_err()
                        {
                            return;
                        }
                        tokio::time::sleep(retry_in).await;
                        // Start afresh: a new LIST (see the module's notes).
                        break;
                    }
                }
            }
        }
    });
    (reader, task)
}

/// The watcher's next event; while `listing`, an error when nothing comes
/// within `limit` (each page of the LIST, and each object of it, is an
/// event, so a large LIST that keeps coming is never cut).
async fn next_event<S>(
    stream: &mut S,
    listing: bool,
    limit: Option<Duration>,
) -> Option<watcher::Result<watcher::Event<DynamicObject>>>
where
    S: futures::Stream<Item = watcher::Result<watcher::Event<DynamicObject>>> + Unpin,
{
    match limit.filter(|_| listing) {
        None => stream.next().await,
        Some(limit) => match tokio::time::timeout(limit, stream.next()).await {
            Ok(event) => event,
            Err(_) => Some(Err(list_timed_out(limit))),
        },
    }
}

/// The error of a LIST that got no answer in time, in the form the kube
/// client gives a read timeout (so it is worded the same way).
fn list_timed_out(limit: Duration) -> watcher::Error {
    let io = std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!("the list got no answer within {}s", limit.as_secs_f64()),
    );
    watcher::Error::InitialListFailed(kube::Error::Service(Box::new(io)))
}

/// The aggregate state of the six watchers: which kinds have been listed,
/// which are failing, what the consumer was last told. Pure; the clock is an
/// argument.
#[derive(Debug, Default)]
struct Aggregate {
    listed: [bool; 6],
    /// Per kind: the time its next attempt starts, while it is failing.
    failing: [Option<Instant>; 6],
    /// While lost: the retry time last told.
    told_lost: Option<Instant>,
    dirty: bool,
    last: Option<Arc<Snapshot>>,
}

impl Aggregate {
    /// Every kind has been listed once (the first snapshot may be built).
    fn started(&self) -> bool {
        self.listed.iter().all(|&l| l)
    }

    fn changed(&mut self, kind: Kind) -> Option<Connection> {
        let i = kind.index();
        self.listed[i] = true;
        self.failing[i] = None;
        self.dirty = true;
        if self.told_lost.is_some() && self.failing.iter().all(Option::is_none) {
            self.told_lost = None;
            return Some(Connection::Live);
        }
        None
    }

    fn failed(
        &mut self,
        kind: Kind,
        error: String,
        retry_in: Duration,
        now: Instant,
    ) -> Option<Connection> {
        let retry_at = now + retry_in;
        self.failing[kind.index()] = Some(retry_at);
        // One line per round of retries: the kinds fail together in an
        // outage, but their backoffs are jittered apart. Tell the first
        // failure, then only a failure once the retry that was told has
        // come (it failed too), naming the next one.
        let tell = match self.told_lost {
            None => true,
            Some(told) => now >= told,
        };
        if tell {
            self.told_lost = Some(retry_at);
            Some(Connection::Lost { retry_in, error })
        } else {
            None
        }
    }

    /// Something changed since the last snapshot, and every kind is listed.
    fn wants_snapshot(&self) -> bool {
        self.dirty && self.started()
    }

    /// The snapshot to hand on, always, keeping none (a tolerant watch's:
    /// its consumer drops it once judged, and at 10,000 nodes a snapshot
    /// is tens of MiB).
    fn offer_unkept(&mut self, snapshot: Snapshot) -> Arc<Snapshot> {
        self.dirty = false;
        self.last = None;
        Arc::new(snapshot)
    }

    /// The snapshot to hand on, unless it equals the last one. The last
    /// one is dropped before it is replaced, so at most two are alive.
    fn offer(&mut self, snapshot: Snapshot) -> Option<Arc<Snapshot>> {
        self.dirty = false;
        if self.last.as_deref() == Some(&snapshot) {
            return None;
        }
        let snapshot = Arc::new(snapshot);
        self.last = Some(Arc::clone(&snapshot));
        Some(snapshot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::ValkeyCluster;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn scope(namespace: Option<&str>, cluster: Option<&str>) -> Scope {
        Scope {
            namespace: namespace.map(str::to_string),
            cluster: cluster.map(str::to_string),
        }
    }

    #[test]
    fn selectors_match_the_one_shot_list() {
        let named = scope(Some("prod"), Some("cache"));
        let any = scope(None, None);
        let cases: &[(Kind, &Scope, Option<&str>, Option<&str>)] = &[
            (
                Kind::ValkeyClusters,
                &named,
                None,
                Some("metadata.name=cache"),
            ),
            (Kind::ValkeyClusters, &any, None, None),
            (Kind::ValkeyNodes, &named, None, None),
            (Kind::ValkeyNodes, &any, None, None),
            (Kind::StatefulSets, &any, Some("valkey.io/cluster"), None),
            (
                Kind::Deployments,
                &named,
                Some("valkey.io/cluster=cache"),
                None,
            ),
            (Kind::Pods, &named, Some("valkey.io/cluster=cache"), None),
            (
                Kind::Events,
                &named,
                None,
                Some("involvedObject.apiVersion=valkey.io/v1alpha1"),
            ),
        ];
        for (kind, scope, labels, fields) in cases {
            let got = selectors(*kind, scope.cluster.as_deref());
            assert_eq!(
                got,
                (labels.map(str::to_string), fields.map(str::to_string)),
                "{kind:?} {scope:?}"
            );
        }
    }

    fn list_all(agg: &mut Aggregate) {
        for kind in Kind::ALL {
            assert_eq!(agg.changed(kind), None);
        }
    }

    fn snap(name: &str) -> Snapshot {
        Snapshot {
            clusters: vec![ValkeyCluster {
                metadata: ObjectMeta {
                    name: Some(name.into()),
                    ..ObjectMeta::default()
                },
                ..ValkeyCluster::default()
            }],
            ..Snapshot::default()
        }
    }

    #[test]
    fn the_store_keeps_the_last_objects_until_a_list_ends() {
        let object = |name: &str, v: &str| {
            let mut o = DynamicObject::new(name, &Kind::Pods.api_resource()).within("prod");
            o.data = serde_json::json!({"spec": {"v": v}});
            o
        };
        let names = |store: &Store| -> Vec<String> {
            store
                .lock()
                .iter()
                .map(|((ns, name), bytes)| {
                    let v: Value = serde_json::from_slice(bytes).unwrap();
                    format!("{ns}/{name}={}", v["spec"]["v"].as_str().unwrap())
                })
                .collect()
        };
        let store = Store::default();
        let mut w = StoreWriter::new(Kind::Pods, store.clone(), Dirty::default());
        w.apply(&watcher::Event::Init);
        w.apply(&watcher::Event::InitApply(object("a", "1")));
        assert!(names(&store).is_empty(), "a LIST shows at its end");
        w.apply(&watcher::Event::InitApply(object("b", "1")));
        w.apply(&watcher::Event::InitDone);
        assert_eq!(names(&store), ["prod/a=1", "prod/b=1"]);
        w.apply(&watcher::Event::Apply(object("a", "2")));
        w.apply(&watcher::Event::Delete(object("b", "1")));
        assert_eq!(names(&store), ["prod/a=2"]);
        // A new LIST replaces the objects whole, and only at its end.
        w.apply(&watcher::Event::Init);
        w.apply(&watcher::Event::InitApply(object("c", "1")));
        assert_eq!(names(&store), ["prod/a=2"]);
        w.apply(&watcher::Event::InitDone);
        assert_eq!(names(&store), ["prod/c=1"]);
    }

    #[test]
    fn a_change_marks_the_cluster_it_belongs_to_and_no_other() {
        let pod = |name: &str, cluster: &str, v: &str| {
            let mut o = DynamicObject::new(name, &Kind::Pods.api_resource()).within("prod");
            o.metadata.labels = Some(
                [
                    ("valkey.io/cluster".to_string(), cluster.to_string()),
                    ("app.kubernetes.io/instance".to_string(), name.to_string()),
                ]
                .into(),
            );
            o.data = serde_json::json!({"status": {"phase": v}});
            o
        };
        let key = |a: &str, b: &str| (a.to_string(), b.to_string());
        let dirty = Dirty::default();
        let mut w = StoreWriter::new(Kind::Pods, Store::default(), dirty.clone());
        w.apply(&watcher::Event::Init);
        w.apply(&watcher::Event::InitApply(pod("a-0-0", "a", "1")));
        w.apply(&watcher::Event::InitApply(pod("b-0-0", "b", "1")));
        w.apply(&watcher::Event::InitDone);
        assert!(dirty.take().is_empty(), "a first LIST: the watch says all");
        w.apply(&watcher::Event::Apply(pod("b-0-0", "b", "2")));
        let changed = dirty.take();
        assert_eq!(changed.clusters, [key("prod", "b")].into());
        assert_eq!(changed.nodes, [key("prod", "b-0-0")].into());
        w.apply(&watcher::Event::Apply(pod("b-0-0", "b", "2")));
        assert!(dirty.take().is_empty(), "the same object again");
        // A LIST again (after an outage): only what differs.
        w.apply(&watcher::Event::Init);
        w.apply(&watcher::Event::InitApply(pod("a-0-0", "a", "1")));
        w.apply(&watcher::Event::InitApply(pod("b-0-0", "b", "3")));
        w.apply(&watcher::Event::InitDone);
        assert_eq!(dirty.take().clusters, [key("prod", "b")].into());
        w.apply(&watcher::Event::Delete(pod("a-0-0", "a", "1")));
        assert_eq!(dirty.take().clusters, [key("prod", "a")].into());

        // An event marks the cluster, or the node, it is about.
        let mut events = StoreWriter::new(Kind::Events, Store::default(), dirty.clone());
        let event = |name: &str, kind: &str, about: &str| {
            let mut o = DynamicObject::new(name, &Kind::Events.api_resource()).within("prod");
            o.data = serde_json::json!({
                "involvedObject": {"apiVersion": "valkey.io/v1alpha1", "kind": kind,
                                   "name": about, "namespace": "prod"},
                "reason": "x",
            });
            o
        };
        events.apply(&watcher::Event::Apply(event("e1", "ValkeyNode", "a-0-1")));
        let changed = dirty.take();
        assert_eq!(changed.nodes, [key("prod", "a-0-1")].into());
        assert!(changed.clusters.is_empty());
        events.apply(&watcher::Event::Apply(event("e2", "ValkeyCluster", "b")));
        assert_eq!(dirty.take().clusters, [key("prod", "b")].into());
    }

    #[test]
    fn first_snapshot_waits_for_every_kind() {
        let mut agg = Aggregate::default();
        agg.changed(Kind::ValkeyNodes);
        assert!(!agg.started());
        assert!(!agg.wants_snapshot());
        list_all(&mut agg);
        assert!(agg.wants_snapshot());
        assert_eq!(agg.offer(snap("a")), Some(Arc::new(snap("a"))));
    }

    #[test]
    fn equal_snapshots_are_not_repeated() {
        let mut agg = Aggregate::default();
        list_all(&mut agg);
        assert_eq!(agg.offer(snap("a")), Some(Arc::new(snap("a"))));
        assert!(!agg.wants_snapshot(), "nothing changed since");
        agg.changed(Kind::Pods);
        assert!(agg.wants_snapshot());
        assert_eq!(agg.offer(snap("a")), None, "same objects again");
        agg.changed(Kind::Pods);
        assert_eq!(agg.offer(snap("b")), Some(Arc::new(snap("b"))));
    }

    #[test]
    fn connection_state_is_told_once_per_round_and_live_when_all_listed_again() {
        let mut agg = Aggregate::default();
        list_all(&mut agg);
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let lost = |secs| {
            Some(Connection::Lost {
                retry_in: s(secs),
                error: "refused".into(),
            })
        };
        let ms = Duration::from_millis;
        // One outage: every kind fails, at moments apart; told once, with
        // the first retry.
        assert_eq!(agg.failed(Kind::Pods, "refused".into(), s(1), t0), lost(1));
        assert_eq!(
            agg.failed(Kind::Events, "refused".into(), ms(1400), t0 + ms(3)),
            None
        );
        // The other kind's retry fails before the told one came: not told.
        assert_eq!(
            agg.failed(Kind::Events, "refused".into(), s(3), t0 + ms(500)),
            None
        );
        // The told retry came and failed: told again, backed off further.
        assert_eq!(
            agg.failed(Kind::Pods, "refused".into(), s(2), t0 + s(1)),
            lost(2)
        );
        // One kind is back, another still failing: still lost.
        assert_eq!(agg.changed(Kind::Pods), None);
        // The last failing kind is listed again: live.
        assert_eq!(agg.changed(Kind::Events), Some(Connection::Live));
        // Changes while live say nothing about the connection.
        assert_eq!(agg.changed(Kind::Events), None);
    }
}
