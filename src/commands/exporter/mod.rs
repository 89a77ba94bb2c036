//! `exporter`: the verdicts of every ValkeyCluster in view, kept live and
//! served as Prometheus metrics (docs/metrics.md).
//!
//! One watch per kubeconfig context (the watch `status --watch` keeps: slim
//! stores), started tolerant: no error ends it. A context's clusters are
//! judged again when their objects change (at most once a second: a roll
//! in flight on 10,000 nodes changes often and costs some 100 ms to judge)
//! and when time alone can change a verdict
//! ([`crate::report::Report::next_change`]), at least every [`MAX_WAIT`];
//! each cluster judged is read from the watch's stores alone
//! ([`crate::live::judgements`]). Only a summary of each judged cluster is kept,
//! with each kind's health, in [`Shared`] (a cluster's view and report are
//! dropped once judged: at 10,000 nodes each is tens of MiB); a scrape
//! renders them ([`crate::render::metrics`]) and never reads the API
//! server or judges.
//!
//! It never exits on its own: an unreachable server, a kind it may not
//! list, an object that breaks the schema, a kubeconfig entry that cannot be
//! used all leave it serving, the context marked (its `up` series, `/readyz`)
//! and its cluster series absent, while it retries with backoff. It stops on
//! SIGTERM or Ctrl-C (exit 0). Only what it cannot start without is an
//! error: the address to listen on, and the kubeconfig's contexts.

pub(crate) mod http;

use super::Ctx;
use super::contexts::{self, ContextName};
use crate::cli::{ExporterArgs, GlobalArgs};
use crate::error::{Error, Outcome, Result};
use crate::live::judgements::{Judgements, WithReadings};
use crate::live::servers::Rereader;
use crate::render::metrics::{
    ClusterSummary, ContextView, ErrorKind, Judged, KindView, ServersSummary, kind_down,
    readiness_news, serving, watches_restarted,
};
use crate::snapshot::Changed;
use crate::source::live;
use crate::source::select::Kind;
use crate::source::servers::Reach;
use crate::source::watch::{InView, Update, Watch};
use jiff::Timestamp;
use std::collections::BTreeSet;
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::time::Instant;

/// The longest a whole view goes without being judged again: a backstop
/// only, since the report says when time alone changes a verdict next
/// ([`crate::report::Report::next_change`]), and the durations exported
/// are brought to the scrape's time. Judging 10,000 nodes costs some 200
/// ms (their view read from the watch's stores, then judged): at this
/// interval an idle exporter stays well under 0.5 % of a core.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(300);

/// The shortest time between two judgements of one context.
pub(crate) const MIN_GAP: Duration = Duration::from_secs(1);

/// How often an unreadable view is looked at again.
const BAD_DATA_RETRY: Duration = Duration::from_secs(5);

/// What every context's task last saw, read by each scrape.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    views: Mutex<Vec<ContextView>>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Vec<ContextView>> {
        // A task that panicked while writing leaves the views as they were.
        self.views
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A copy of every view (reports are shared, not copied).
    pub(crate) fn views(&self) -> Vec<ContextView> {
        self.lock().clone()
    }

    fn update(&self, at: usize, f: impl FnOnce(&mut ContextView)) {
        if let Some(view) = self.lock().get_mut(at) {
            f(view);
        }
    }
}

pub(crate) async fn run(ctx: &Ctx, args: &ExporterArgs) -> Result<Outcome> {
    share_heaps();
    let names = contexts::resolve(&ctx.global)?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|source| Error::Listen {
            address: args.listen.to_string(),
            source,
        })?;
    let shared = Arc::new(Shared::default());
    let resources: Vec<&'static str> = Kind::ALL.iter().map(|k| resource(*k)).collect();
    *shared.lock() = names
        .iter()
        .map(|n| ContextView::new(&n.label(), &resources))
        .collect();
    let contexts: Vec<Option<&str>> = names.iter().map(ContextName::given).collect();
    let reading = args
        .servers
        .and_then(|how| super::shared::reach(how, &args.servers_ca))
        .map(|t| (t, args.servers_interval));
    log(&serving(
        listener.local_addr().unwrap_or(args.listen),
        ctx.global.namespace.as_deref(),
        &contexts,
    ));
    let mut tasks = Vec::with_capacity(names.len());
    for (at, name) in names.into_iter().enumerate() {
        let global = ctx.global.for_context(name.0.as_deref());
        tasks.push(tokio::spawn(crate::live::keep(Context {
            global,
            name,
            at,
            shared: Arc::clone(&shared),
            reading: reading.clone(),
            said: None,
        })));
    }
    http::serve(listener, shared, crate::live::stop_requested()).await;
    for task in &tasks {
        task.abort();
    }
    // Until each is dropped: a credential plugin still running is killed
    // then (source::exec), not left behind when the process exits.
    for task in tasks {
        let _ = task.await;
    }
    log("stopped\n");
    Ok(Outcome::ok(String::new()))
}

/// The resource a kind's series name.
fn resource(kind: Kind) -> &'static str {
    match kind {
        Kind::ValkeyClusters => "valkeyclusters",
        Kind::ValkeyNodes => "valkeynodes",
        Kind::StatefulSets => "statefulsets",
        Kind::Deployments => "deployments",
        Kind::Pods => "pods",
        Kind::Events => "events",
    }
}

/// The kind of an error, for `valkey_roll_exporter_errors_total`.
pub(crate) fn error_kind(error: &Error) -> ErrorKind {
    match error {
        Error::Unreachable { .. } | Error::ServerNotTrusted { .. } => ErrorKind::Unreachable,
        Error::CredentialsRejected { .. } | Error::Unauthorized { .. } => ErrorKind::Unauthorized,
        Error::Forbidden { .. } => ErrorKind::Forbidden,
        Error::CrdMissing { .. } | Error::NamespaceMissing { .. } | Error::NotFound { .. } => {
            ErrorKind::NotFound
        }
        Error::Snapshot { .. } | Error::WatchCopy { .. } => ErrorKind::BadData,
        Error::Kubeconfig { .. } => ErrorKind::Kubeconfig,
        _ => ErrorKind::Api,
    }
}

/// One context's view, kept for as long as the exporter runs
/// ([`crate::live::keep`]: a kubeconfig entry that cannot be used, or a
/// watch that ends, is tried again after the back-off): watched and
/// judged; with `reading`, its servers read that way, pausing that long
/// between rounds ([`servers`]).
struct Context {
    global: GlobalArgs,
    name: ContextName,
    at: usize,
    shared: Arc<Shared>,
    reading: Option<(Reach, Duration)>,
    /// The last error said on stderr (each is said once).
    said: Option<String>,
}

impl crate::live::Kept for Context {
    type Started = (live::Live, Watch);

    async fn start(&mut self) -> Result<Self::Started> {
        // `-n`, else every namespace (not the kubeconfig's).
        let in_view = crate::live::InView::NamespaceOrAll(self.global.namespace.as_deref());
        let access = crate::commands::access(&self.global);
        let (live, watch, _) =
            crate::live::start(&access, in_view, None, crate::live::Tolerance::Tolerant).await?;
        Ok((live, watch))
    }

    async fn follow(&mut self, (live, watch): Self::Started) -> Option<Error> {
        let reader = self
            .reading
            .clone()
            .map(|(reach, every)| Rereader::new(&live, reach, every));
        watch_context(
            watch,
            &self.global,
            &self.name,
            self.at,
            &self.shared,
            reader,
        )
        .await;
        None
    }

    fn down(&mut self, why: Option<&Error>, _retry_in: Duration) {
        match why {
            Some(e) => fail(&self.shared, self.at, &self.name, e, &mut self.said),
            // Every watcher stopped (it never should): start over.
            None => log(&watches_restarted(self.name.given())),
        }
    }
}

/// A context that could not be started: counted, shown on `/readyz`, said
/// once on stderr.
fn fail(shared: &Shared, at: usize, name: &ContextName, e: &Error, said: &mut Option<String>) {
    let text = e.to_string();
    shared.update(at, |view| {
        view.count(error_kind(e));
        view.judged = None;
        view.blind = vec![text.clone()];
    });
    if said.as_ref() != Some(&text) {
        log(&readiness_news(name.given(), std::slice::from_ref(&text)));
        *said = Some(text);
    }
}

/// Says on stderr, for each cluster whose servers were just read, the
/// lines about those not read when they changed (`said`: the last said).
fn say_unread(
    name: &ContextName,
    servers: &Rereader,
    said: &mut std::collections::BTreeMap<crate::snapshot::ClusterKey, String>,
) {
    let accounts = servers.accounts();
    said.retain(|(ns, c), _| {
        accounts
            .iter()
            .any(|a| &a.namespace == ns && &a.cluster == c)
    });
    for account in accounts {
        let words = crate::render::notice::servers_unread(std::slice::from_ref(&account));
        let key = (account.namespace, account.cluster);
        if said.get(&key).map_or(words.is_empty(), |w| *w == words) {
            continue;
        }
        log(&crate::render::metrics::servers_news(
            name.given(),
            &key.0,
            &key.1,
            &words,
        ));
        said.insert(key, words);
    }
}

/// Watches and judges one context until every watcher has stopped; with
/// `servers`, its servers are read again on their clock (the live layer's
/// [`Rereader`], beside the watch), and a cluster is judged again when
/// what they say of it changes.
async fn watch_context(
    mut watch: Watch,
    global: &GlobalArgs,
    name: &ContextName,
    at: usize,
    shared: &Shared,
    servers: Option<Rereader>,
) {
    let threshold = global.stall_threshold;
    let mut judgements: Judgements<ClusterSummary> = Judgements::default();
    let mut judged: Option<Judged> = None;
    let mut last_judged: Option<Instant> = None;
    let mut due = true;
    let mut wake = Instant::now() + MAX_WAIT;
    let mut said: Option<Vec<String>> = None;
    // The servers: the clusters whose reading changed since they were last
    // judged, and what the log last said of each cluster's servers not
    // read.
    let mut servers = servers;
    let mut read_changed: BTreeSet<crate::snapshot::ClusterKey> = BTreeSet::new();
    let mut unread_said = std::collections::BTreeMap::new();
    loop {
        let mut errors = Vec::new();
        let reread = servers.as_ref().and_then(Rereader::due);
        tokio::select! {
            update = watch.next() => match update {
                Ok(Update::Objects(_)) => due = true,
                Ok(Update::Connection(_)) => due = true,
                Err(Error::WatchEnded) => return,
                // An object that breaks the schema: the next change tries
                // again.
                Err(e) => errors.push(error_kind(&e)),
            },
            () = tokio::time::sleep_until(wake) => due = true,
            again = crate::live::servers::finished(&mut servers) => {
                if !again.is_empty() {
                    read_changed.extend(again);
                    due = true;
                }
                if let Some(s) = &servers {
                    say_unread(name, s, &mut unread_said);
                }
            }
            () = tokio::time::sleep_until(reread.unwrap_or(wake)), if reread.is_some() => {}
        }
        // The servers read again once due (begin sees to it), with the
        // objects in view.
        if let Some(s) = &mut servers
            && let Some(view) = watch.in_view()
        {
            s.begin(&view, &Changed::default());
        }
        // Unreadable while an object in view breaks the schema.
        let bad_data = watch.unreadable();
        errors.extend(watch.take_failures().iter().map(|(_, e)| error_kind(e)));
        let kinds: Vec<KindView> = watch
            .health()
            .iter()
            .map(|h| KindView {
                resource: resource(h.kind),
                up: h.up,
                last_event: h.last_event,
            })
            .collect();
        let mut blind: Vec<String> = watch
            .health()
            .iter()
            .filter(|h| !h.up)
            .map(|h| kind_down(resource(h.kind), h.error.as_deref()))
            .collect();
        blind.extend(bad_data.clone());
        if !blind.is_empty() {
            // Nothing is exported from a view that is not whole; it is
            // judged again as soon as it is; while an object breaks the
            // schema, look again soon.
            judged = None;
            due = true;
            wake = Instant::now()
                + if bad_data.is_some() {
                    BAD_DATA_RETRY
                } else {
                    MAX_WAIT
                };
        } else if due {
            let now = Instant::now();
            match last_judged.filter(|last| now < *last + MIN_GAP) {
                Some(last) => wake = last + MIN_GAP,
                None => {
                    // Each cluster judged is read from the watch's stores
                    // alone: no whole snapshot is built.
                    if let Some(current) = watch.in_view() {
                        // Only the clusters whose objects changed, whose
                        // servers said something new, or whose verdict
                        // time alone changes by now, are judged.
                        let mut changed = watch.take_changed();
                        if let Some(s) = &mut servers {
                            s.begin(&current, &changed);
                        }
                        changed.clusters.append(&mut read_changed);
                        let objects = WithReadings {
                            objects: current,
                            readings: servers.as_ref().map(Rereader::shared),
                            changed: BTreeSet::new(),
                        };
                        let at;
                        let failed;
                        // Before too: what the LISTs and the last
                        // judgement freed stays resident (some 17 MiB at
                        // 10,000 nodes) under the judgement's own peak.
                        release_freed_memory();
                        (judgements, at, failed) =
                            judge(judgements, objects, changed, threshold).await;
                        errors.extend(failed.as_ref().map(error_kind));
                        wake = Instant::now() + until_next_change(judgements.next_change(), at);
                        judged = Some(Judged {
                            clusters: judgements.values().cloned().collect(),
                            at,
                        });
                        release_freed_memory();
                        last_judged = Some(now);
                        due = false;
                    }
                }
            }
        }
        if said.as_ref() != Some(&blind) {
            log(&readiness_news(name.given(), &blind));
            said = Some(blind.clone());
        }
        let judged = judged.clone();
        shared.update(at, move |view| {
            for e in errors {
                view.count(e);
            }
            view.kinds = kinds;
            view.blind = blind;
            view.judged = judged;
        });
    }
}

/// How long until time alone changes a verdict (`next`, as judged at
/// `at`), at most [`MAX_WAIT`]. Not `status --watch`'s wake, which looks
/// again at least every 30 s for a person watching.
fn until_next_change(next: Option<Timestamp>, at: Timestamp) -> Duration {
    next.map_or(MAX_WAIT, |next| {
        Duration::try_from(at.duration_until(next)).unwrap_or(Duration::ZERO)
    })
    .min(MAX_WAIT)
}

/// Gives freed memory back to the system: glibc keeps freed small blocks
/// in its heaps, so the snapshot and report of 10,000 nodes (tens of MiB
/// each, freed right after a judgement) would stay resident, and so would
/// the LIST pages' parsed objects under the first judgement.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator's
    // heaps to the system; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// At most two glibc heaps ([`MAX_HEAPS`]), whatever the threads: by
/// default each thread that allocates while another holds the heap gets
/// one of its own (up to eight per core), so the watch's tasks and the
/// judging thread each keep freed memory the others cannot reuse. At
/// 10,000 nodes in one cluster the peak resident set was some 10 MiB
/// higher with a heap per thread (BENCHMARKS.md). `MALLOC_ARENA_MAX` in
/// the environment, when set, is glibc's to read and wins.
fn share_heaps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets a tunable of the allocator; called
        // before the exporter's threads allocate much, and safe at any time.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, MAX_HEAPS);
        }
    }
}

/// The glibc heaps the exporter's threads share ([`share_heaps`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MAX_HEAPS: libc::c_int = 2;

/// Brings the judgements up to the objects in view off the async workers
/// (a cluster of 10,000 nodes takes some 100 ms): the clusters `changed`
/// names and those time alone changes by now; each kept as its summary,
/// stamped with when it was judged. Returns them, the time, and an object
/// that could not be read.
async fn judge(
    mut judgements: Judgements<ClusterSummary>,
    objects: WithReadings<InView, crate::live::servers::Shared>,
    changed: Changed,
    threshold: Duration,
) -> (Judgements<ClusterSummary>, Timestamp, Option<Error>) {
    let now = Timestamp::now();
    let kept = objects.readings.clone();
    let keep =
        move |r: crate::report::ClusterReport, _: &crate::snapshot::Snapshot| ClusterSummary {
            at: Some(now),
            servers: kept
                .as_ref()
                .and_then(|k| k.get(&(r.namespace.clone(), r.name.clone())))
                .map(|k| ServersSummary::of(&k.account, k.pods)),
            ..ClusterSummary::of(&r)
        };
    let judging = tokio::task::spawn_blocking(move || {
        let failed = judgements
            .update(objects, &changed, now, threshold, keep, |_| false)
            .err();
        (judgements, failed)
    });
    match judging.await {
        Ok((judgements, failed)) => (judgements, now, failed),
        // The classifier never panics on data; were it to, every cluster
        // is judged afresh at the next change.
        Err(_) => (Judgements::default(), now, None),
    }
}

/// One line on stderr, cleaned, with the time.
fn log(line: &str) {
    let text = format!("{} {line}", crate::units::timestamp(Timestamp::now()));
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(crate::render::style::clean_lines(&text).as_bytes());
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judged_again_when_time_changes_a_verdict_else_after_max_wait() {
        use crate::fixture::sample::converged;
        let at = crate::fixture::t(0);
        let mut report = converged();
        assert_eq!(until_next_change(report.next_change(), at), MAX_WAIT);
        report.clusters[0].next_change = Some(crate::fixture::t(7));
        assert_eq!(
            until_next_change(report.next_change(), at),
            Duration::from_secs(7)
        );
        report.clusters[0].next_change = Some(crate::fixture::t(-7));
        assert_eq!(until_next_change(report.next_change(), at), Duration::ZERO);
        report.clusters[0].next_change = Some(crate::fixture::t(3_600));
        assert_eq!(until_next_change(report.next_change(), at), MAX_WAIT);
    }

    #[test]
    fn errors_are_sorted_by_what_went_wrong() {
        let cases: &[(Error, ErrorKind)] = &[
            (
                Error::Unreachable {
                    server: "https://127.0.0.1:1".into(),
                    problem: "refused".into(),
                    source: None,
                },
                ErrorKind::Unreachable,
            ),
            (
                Error::Forbidden {
                    verb: "list".into(),
                    resource: "pods".into(),
                    namespace: None,
                    message: "no".into(),
                },
                ErrorKind::Forbidden,
            ),
            (
                Error::CrdMissing {
                    crd: "valkeynodes.valkey.io".into(),
                },
                ErrorKind::NotFound,
            ),
            (
                Error::Snapshot {
                    source_name: "the API server's watch of pods".into(),
                    doc: "1/items[0]".into(),
                    object: String::new(),
                    field: "status".into(),
                    problem: "bad".into(),
                },
                ErrorKind::BadData,
            ),
            (
                Error::Kubeconfig {
                    problem: "no such context".into(),
                },
                ErrorKind::Kubeconfig,
            ),
            (
                Error::Unauthorized {
                    message: "expired".into(),
                },
                ErrorKind::Unauthorized,
            ),
            (
                Error::Api {
                    verb: "watch".into(),
                    resource: "pods".into(),
                    status: Some(500),
                    message: "boom".into(),
                    source: None,
                },
                ErrorKind::Api,
            ),
        ];
        for (error, kind) in cases {
            assert_eq!(error_kind(error), *kind, "{error}");
        }
    }
}
