//! `dashboard`: `status --watch` in a browser. A read-only page, served by
//! the plugin itself, of every roll in view of every context asked for,
//! kept live by server-sent events (docs/dashboard.md).
//!
//! Each context is watched and judged as `status --watch` does on a
//! terminal, by the same code: the watch of `commands::shared::start`, the
//! kept judgements of `live::judgements` (the clusters whose objects
//! changed, those whose verdict time alone changes, and those in flight
//! once a second for their ticking hold times: [`tick_for`]). Each judged cluster is
//! rendered once into a card (render::dashboard: the `-o json` entry, the
//! headline's and the table's words, each node's explain text) and put on
//! the [`Board`]; every open page is sent what changed on it. A page asks
//! nothing of the cluster: there is no second reading, and no steering.
//!
//! A context that cannot be read (at the start, or its watch ends) is said
//! on the page and tried again, after the live layer's back-off
//! ([`crate::live::keep`]); the others
//! go on. It stops on SIGTERM or Ctrl-C (exit 0). Only the address to
//! listen on and the kubeconfig's contexts are errors.

mod http;

use super::Ctx;
use super::contexts::{self, ContextName};
use super::shared::{ConnectionWords, TICK};
use crate::classify::NodeTimelines;
use crate::cli::DashboardArgs;
use crate::error::{Error, Outcome, Result};
use crate::live::judgements::Judgements;
use crate::live::{ConnectionView, stop_requested};
use crate::render::dashboard::{ClusterCard, ContextLine, card, context_name, reading, unreadable};
use crate::render::notice;
use crate::report::Verdict;
use crate::snapshot::{Snapshot, ValkeyNode};
use crate::source::watch::{InView, Update, Watch};
use jiff::Timestamp;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch as channel;
use tokio::time::Instant;

/// Nodes whose ticking durations are sent each second, at most: a cluster
/// in flight is judged again for its durations alone every second up to
/// this many nodes, and less often above (every 30 s at 3,000), so that
/// the ticking of a large roll costs each page about as many bytes a
/// second as a roll of this size. A change in the API is judged at once
/// whatever the size.
const TICKING_NODES: usize = 100;

/// How often the durations of a cluster of `nodes` in flight are brought
/// up to date when nothing else changes.
pub(crate) fn tick_for(nodes: usize) -> Duration {
    TICK * u32::try_from(nodes.div_ceil(TICKING_NODES).max(1)).unwrap_or(u32::MAX)
}

/// What every page is shown: each context's line and cards.
#[derive(Debug, Default)]
pub(crate) struct Board {
    pub contexts: Vec<ContextBoard>,
    /// How many times it has changed ([`change`]): a stream's first
    /// event, serialised once, is shared by every stream that starts at
    /// the same state.
    pub generation: u64,
}

/// Changes the board with `edit`, which says whether it changed what a
/// page is shown; the pages are told when it did.
fn change(board: &channel::Sender<Board>, edit: impl FnOnce(&mut Board) -> bool) {
    board.send_if_modified(|b| {
        let modified = edit(b);
        if modified {
            b.generation += 1;
        }
        modified
    });
}

#[derive(Debug)]
pub(crate) struct ContextBoard {
    pub line: ContextLine,
    /// Each cluster's card by its key (`context/namespace/name`).
    pub cards: BTreeMap<String, Arc<ClusterCard>>,
    /// Each cluster's view as last judged (for the history picture), by
    /// namespace and name, and the stall threshold it was judged with.
    pub views: BTreeMap<(String, String), Arc<Snapshot>>,
    pub threshold: Duration,
}

pub(crate) async fn run(ctx: &Ctx, args: &DashboardArgs) -> Result<Outcome> {
    let names = contexts::resolve(&ctx.global)?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|source| Error::Listen {
            address: args.listen.to_string(),
            source,
        })?;
    let several = names.len() > 1;
    let board = Board {
        contexts: names
            .iter()
            .map(|n| ContextBoard {
                line: ContextLine {
                    name: context_name(n.given()),
                    connection: reading(),
                    trouble: false,
                    empty: None,
                    as_of: None,
                    servers: None,
                    stale_since: None,
                },
                cards: BTreeMap::new(),
                views: BTreeMap::new(),
                threshold: ctx.global.stall_threshold,
            })
            .collect(),
        generation: 0,
    };
    let (tx, rx) = channel::channel(board);
    let tx = Arc::new(tx);
    let address = listener.local_addr().unwrap_or(args.listen);
    say(&crate::render::dashboard::serving(address));
    let mut tasks = Vec::with_capacity(names.len());
    for (at, name) in names.into_iter().enumerate() {
        let one = Ctx {
            global: ctx.global.for_context(name.0.as_deref()),
            ..ctx.clone()
        };
        tasks.push(tokio::spawn(crate::live::keep(Context {
            ctx: one,
            name,
            at,
            several,
            args: args.clone(),
            board: Arc::clone(&tx),
        })));
    }
    http::serve(listener, rx, stop_requested()).await;
    for task in &tasks {
        task.abort();
    }
    // Until each is dropped: a credential plugin still running is killed
    // then, not left behind when the process exits.
    for task in tasks {
        let _ = task.await;
    }
    Ok(Outcome::ok(String::new()))
}

/// One context on the board, kept for as long as the page is served
/// ([`crate::live::keep`]): watched, and when it cannot be (or its watch
/// ends), why is said and it is tried again after the back-off.
struct Context {
    ctx: Ctx,
    name: ContextName,
    at: usize,
    several: bool,
    args: DashboardArgs,
    board: Arc<channel::Sender<Board>>,
}

impl crate::live::Kept for Context {
    type Started = (crate::source::Live, Watch, crate::source::watch::Scope);

    async fn start(&mut self) -> Result<Self::Started> {
        super::shared::start(&self.ctx, self.args.cluster.as_deref()).await
    }

    async fn follow(&mut self, (live, watch, scope): Self::Started) -> Option<Error> {
        // Its servers read beside its watch, as status --watch reads them
        // (the same re-reader).
        let servers = super::shared::rereader(&live, self.args.servers, &self.args.servers_ca);
        let label = self.several.then(|| self.name.label());
        let empty = match self.args.cluster.as_deref() {
            Some(name) => notice::named_cluster_missing(name, scope.namespace.as_deref()),
            None => notice::no_clusters_message(scope.namespace.as_deref()),
        };
        let followed = Followed {
            watch,
            servers,
            at: self.at,
            context: label,
        };
        Some(follow(&self.ctx, followed, empty.trim_end(), &self.board).await)
    }

    fn down(&mut self, why: Option<&Error>, retry_in: Duration) {
        let why = why.map_or_else(String::new, ToString::to_string);
        // Whole seconds, rounded up: "retrying in 0s" would be untrue.
        let secs = u64::try_from(retry_in.as_millis().div_ceil(1000)).unwrap_or(u64::MAX);
        let text = unreadable(&why, secs);
        change(&self.board, |b| {
            let Some(c) = b.contexts.get_mut(self.at) else {
                return false;
            };
            c.line.connection = text;
            c.line.trouble = true;
            c.line.empty = None;
            c.line.as_of = None;
            c.line.stale_since = None;
            c.line.servers = None;
            c.cards.clear();
            c.views.clear();
            true
        });
    }
}

/// One context's watch as the dashboard follows it: its servers read
/// beside it when asked, its place on the board and its label.
struct Followed {
    watch: Watch,
    servers: Option<crate::live::servers::Rereader>,
    at: usize,
    context: Option<String>,
}

/// Judges one context as its watch goes, as `status --watch` on a
/// terminal does (its servers read beside the watch by the same
/// re-reader, when asked), and puts what changed on the board; returns why
/// the watch ended. While the connection is lost the context's line says
/// as of when its cards are (the page dims them).
async fn follow(
    ctx: &Ctx,
    followed: Followed,
    empty: &str,
    board: &channel::Sender<Board>,
) -> Error {
    let Followed {
        mut watch,
        mut servers,
        at,
        context,
    } = followed;
    let threshold = ctx.global.stall_threshold;
    let mut objects: Option<InView> = None;
    let mut judgements: Judgements<Judged> = Judgements::default();
    let mut connection = ConnectionView::Live;
    let mut said = None;
    let mut said_last = String::new();
    let mut wake = Instant::now() + TICK;
    loop {
        let reread = servers
            .as_ref()
            .filter(|_| objects.is_some())
            .and_then(|s| s.due());
        let mut again = std::collections::BTreeSet::new();
        tokio::select! {
            update = watch.next() => match update {
                Ok(Update::Objects(o)) => objects = Some(o),
                Ok(Update::Connection(c)) => connection = connection.then(c, Timestamp::now()),
                Err(e) => return e,
            },
            (clusters, lines) = super::shared::servers_read(&mut servers, &mut said_last) => {
                again = clusters;
                if let Some(lines) = lines {
                    said = (!lines.is_empty()).then_some(lines);
                }
            }
            () = tokio::time::sleep_until(wake) => {}
            () = tokio::time::sleep_until(reread.unwrap_or(wake)), if reread.is_some() => {}
        }
        wake = Instant::now() + TICK;
        let Some(current) = &objects else {
            continue;
        };
        let changed = watch.take_changed();
        if let Some(s) = &mut servers {
            s.begin(current, &changed);
        }
        let readings = servers.as_ref().map(|s| s.shared());
        let current = current.clone();
        let context = context.clone();
        let judging = tokio::task::spawn_blocking(move || {
            let now = Timestamp::now();
            let objects = crate::live::judgements::WithReadings {
                objects: current,
                readings,
                changed: again,
            };
            let failed = judge(
                &mut judgements,
                objects,
                &changed,
                now,
                threshold,
                at,
                context,
            );
            (judgements, failed)
        });
        // The classifier never panics on data; were it to, every cluster
        // is judged afresh next time.
        let failed;
        (judgements, failed) = judging.await.unwrap_or_default();
        if let Some(e) = failed {
            return e;
        }
        let mut cards: BTreeMap<String, Arc<ClusterCard>> = BTreeMap::new();
        let mut views: BTreeMap<(String, String), Arc<Snapshot>> = BTreeMap::new();
        for j in judgements.values() {
            cards.insert(j.card.key.clone(), Arc::clone(&j.card));
            views.insert(j.cluster.clone(), Arc::clone(&j.view));
        }
        let words = connection.words(Instant::now());
        let trouble = connection != ConnectionView::Live;
        let as_of = connection.as_of(Timestamp::now());
        let stale_since = connection.stale_since();
        let servers_said = said.clone();
        change(board, |b| {
            let Some(c) = b.contexts.get_mut(at) else {
                return false;
            };
            c.views = views;
            let line = ContextLine {
                name: c.line.name.clone(),
                connection: words,
                trouble,
                empty: cards.is_empty().then(|| empty.to_string()),
                as_of,
                servers: servers_said,
                stale_since,
            };
            let mut modified = line != c.line;
            c.line = line;
            // A card judged again but shown the same stays as it was
            // (pages compare cards by address).
            for (key, card) in &mut cards {
                match c.cards.get(key) {
                    Some(old)
                        if Arc::ptr_eq(old, card)
                            || (old.json == card.json && old.explain == card.explain) =>
                    {
                        *card = Arc::clone(old);
                    }
                    _ => modified = true,
                }
            }
            modified |= c.cards.keys().any(|k| !cards.contains_key(k));
            c.cards = cards;
            modified
        });
    }
}

/// What is kept of a cluster's judgement: its card, and the view it was
/// judged from (for the history picture).
#[derive(Debug)]
struct Judged {
    card: Arc<ClusterCard>,
    cluster: (String, String),
    view: Arc<Snapshot>,
}

/// Brings `judgements` up to the objects in view at `now`, each judged
/// cluster rendered into its card from its own view; an object that
/// cannot be read is the error.
fn judge(
    judgements: &mut Judgements<Judged>,
    objects: impl crate::live::judgements::Clusters,
    changed: &crate::snapshot::Changed,
    now: Timestamp,
    threshold: Duration,
    at: usize,
    context: Option<String>,
) -> Option<Error> {
    judgements
        .update(
            objects,
            changed,
            now,
            threshold,
            |mut report, view| {
                let nodes: HashMap<(&str, &str), &ValkeyNode> = view
                    .nodes
                    .iter()
                    .map(|n| ((n.namespace(), n.name()), n))
                    .collect();
                let timelines =
                    NodeTimelines::new(view).of_cluster(&report.namespace, &report.name);
                report.context = context.clone();
                let key = format!("{at:03}/{}/{}", report.namespace, report.name);
                let card = Arc::new(card(key, &report, &nodes, &timelines, now));
                Judged {
                    card,
                    cluster: (report.namespace.clone(), report.name.clone()),
                    view: Arc::new(view.clone()),
                }
            },
            |j| {
                j.card.verdict != Verdict::Converged
                    && jiff::SignedDuration::try_from(tick_for(j.card.nodes))
                        .is_ok_and(|tick| j.card.judged_at + tick <= now)
            },
        )
        .err()
}

/// Says `text` on stderr.
fn say(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(crate::render::style::clean_lines(text).as_bytes());
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_clusters_tick_less_often() {
        assert_eq!(tick_for(0), TICK);
        assert_eq!(tick_for(6), TICK);
        assert_eq!(tick_for(100), TICK);
        assert_eq!(tick_for(101), TICK * 2);
        assert_eq!(tick_for(3_000), TICK * 30);
    }
}
