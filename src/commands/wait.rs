//! `wait [CLUSTER]`: block until every cluster in view is Converged.
//!
//! Exit 0 when all are Converged; exit 3 at once when one is Jammed,
//! Stalled or Conflict (unless `--no-fail-fast`, which keeps waiting); exit
//! 5 at `--timeout`; a named cluster that does not exist is an error (exit
//! 1). It judges on every change the watch reports and once a second, since
//! time alone turns a roll Stalled or a holder Stuck.
//!
//! Progress lines go to stderr as the roll moves (a pipeline's log must see
//! them while it waits, so like `status --watch` this command prints as it
//! goes), one only when the progress changes. The outcome carries the final
//! report on stdout for `-o json|yaml`, and why it stopped on stderr.

use super::shared::in_view;
use super::shared::{ConnectionWords, TICK, start};
use crate::cli::{OutputFormat, WaitArgs};
use crate::commands::Ctx;
use crate::error::{Exit, Outcome, Result};
use crate::live::ConnectionView;
use crate::live::judgements::Judgements;
use crate::render::json::{to_json, to_yaml};
use crate::render::notice::{context_unread, in_context};
use crate::render::wait::{Naming, contexts_unread, final_words, progress_line};
use crate::report::{ClusterReport, NodeState, Report, Verdict};
use crate::source::watch::{Scope, Update};
use std::io::Write;
use tokio::time::{Instant, MissedTickBehavior};

/// What to do after judging a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    Continue,
    Exit(Exit),
}

/// The decision for one report: attention first (a jam is news even when
/// another cluster is done), then Converged, else keep waiting. A report
/// without clusters is never Converged, nor is a cluster some of whose
/// servers were asked (`--servers`) and not read: the servers' word was
/// asked for, and it is unknown (docs/servers.md, "Not read, on the
/// verdict").
pub(crate) fn decide(report: &Report, no_fail_fast: bool) -> Next {
    if !no_fail_fast && super::shared::needs_attention(report) {
        return Next::Exit(Exit::NeedsAttention);
    }
    if !report.clusters.is_empty()
        && report
            .clusters
            .iter()
            .all(|c| c.verdict == Verdict::Converged && c.servers_unread().is_none())
    {
        return Next::Exit(Exit::Done);
    }
    Next::Continue
}

/// [`decide`] on a view that may be stale (its connection lost): nothing
/// is decided on a stale view, neither success nor attention, since what
/// it shows may have changed since (docs/usage.md, "When the connection
/// is lost"); the wait goes on until it is live again or times out.
pub(crate) fn decide_now(report: &Report, stale: bool, no_fail_fast: bool) -> Next {
    if stale {
        return Next::Continue;
    }
    decide(report, no_fail_fast)
}

/// What a progress line says, without what only ticks (the holders' hold
/// times): a new key is a new line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProgressKey(Vec<ClusterProgress>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct ClusterProgress {
    cluster: String,
    verdict: Verdict,
    done: Option<usize>,
    total: usize,
    /// Each holder and its state.
    holders: Vec<(String, NodeState)>,
    front: Option<String>,
    /// Servers asked and not read, and of how many (said on the line).
    servers_unread: Option<(usize, usize)>,
}

pub(crate) fn progress_key(report: &Report) -> ProgressKey {
    ProgressKey(
        report
            .clusters
            .iter()
            .map(|c| ClusterProgress {
                cluster: format!("{}/{}", c.namespace, c.name),
                verdict: c.verdict,
                done: c.done,
                total: c.total,
                holders: c
                    .nodes
                    .iter()
                    .filter(|n| c.holders.contains(&n.name))
                    .map(|n| (n.name.clone(), n.state))
                    .collect(),
                front: c.front.clone(),
                servers_unread: c.servers_unread().map(|s| (s.unread, s.read + s.unread)),
            })
            .collect(),
    )
}

/// How clusters are named in progress lines for a scope: not at all when
/// one was named, by name in one namespace, by namespace/name across all.
pub(crate) fn naming_for(scope: &Scope) -> Naming {
    match (&scope.cluster, &scope.namespace) {
        (_, None) => Naming::NamespaceName,
        (Some(_), Some(_)) => Naming::None,
        (None, Some(_)) => Naming::Name,
    }
}

/// The clusters whose progress is not in `since` (every cluster when
/// `since` is `None`).
pub(crate) fn moved<'a>(report: &'a Report, since: Option<&ProgressKey>) -> Vec<&'a ClusterReport> {
    let now = progress_key(report);
    report
        .clusters
        .iter()
        .zip(now.0)
        .filter(|(_, key)| !since.is_some_and(|since| since.0.contains(key)))
        .map(|(c, _)| c)
        .collect()
}

/// One progress line per cluster that moved since `since`.
pub(crate) fn progress_lines(
    report: &Report,
    naming: Naming,
    since: Option<&ProgressKey>,
) -> String {
    moved(report, since)
        .into_iter()
        .map(|c| progress_line(c, naming))
        .collect()
}

pub(crate) async fn run(ctx: &Ctx, args: &WaitArgs) -> Result<Outcome> {
    if ctx.global.several_contexts() {
        return run_contexts(ctx, args).await;
    }
    let deadline = args.timeout.map(|t| Instant::now() + t);
    let timeout = async {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(timeout);
    let (live, mut watch, scope) = tokio::select! {
        started = start(ctx, args.cluster.as_deref()) => started?,
        () = &mut timeout => return Ok(timed_out_before_reading(args)),
    };
    let naming = naming_for(&scope);
    let mut snapshot = None;
    let mut judgements: Judgements<ClusterReport> = Judgements::default();
    let mut last_report = None;
    let mut last_progress = None;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut servers = super::shared::rereader(&live, args.servers, &args.servers_ca);
    let mut said = String::new();
    let mut connection = ConnectionView::Live;
    let exit = loop {
        // The servers are read beside the loop (the tick wakes it when a
        // reading is due): the watch and the timeout are heard while one
        // is under way, and what it found is judged when it ends.
        let mut again = Default::default();
        tokio::select! {
            update = watch.next() => match update? {
                Update::Objects(s) => snapshot = Some(s),
                Update::Connection(c) => {
                    let was_stale = connection.stale_since().is_some();
                    connection = connection.then(c, jiff::Timestamp::now());
                    eprint(&connection.log_line(Instant::now()));
                    if let (false, Some(as_of)) = (was_stale, connection.as_of(jiff::Timestamp::now())) {
                        eprint(&crate::render::watch::wait_stale(&as_of));
                    }
                }
            },
            (clusters, lines) = super::shared::servers_read(&mut servers, &mut said) => {
                // The clusters whose readings changed are judged again too.
                again = clusters;
                if let Some(lines) = lines {
                    eprint(&lines);
                }
            }
            _ = tick.tick() => {}
            () = &mut timeout => break Exit::TimedOut,
        }
        let Some(snapshot) = &snapshot else { continue };
        let changed = watch.take_changed();
        // The servers, read again every REREAD once the last reading ended.
        if let Some(s) = &mut servers {
            s.begin(snapshot, &changed);
            // Nothing is decided before the servers were heard once: the
            // API alone may say Stalled of a primary held back for its
            // replica to sync. Every cluster is judged then (none was
            // before).
            if !s.has_read() {
                continue;
            }
        }
        // Only the clusters whose objects changed, or whose verdict time
        // alone changes by now, are judged again.
        judgements.update(
            crate::live::judgements::WithReadings {
                objects: snapshot.clone(),
                readings: servers.as_ref(),
                changed: again,
            },
            &changed,
            ctx.now(),
            ctx.global.stall_threshold,
            |r, _| r,
            |_| false,
        )?;
        let report = Report {
            clusters: judgements.values().cloned().collect(),
        };
        in_view(&live, &report, &scope, true).await?;
        let key = progress_key(&report);
        if last_progress.as_ref() != Some(&key) {
            eprint(&progress_lines(&report, naming, last_progress.as_ref()));
            last_progress = Some(key);
        }
        let decision = decide_now(
            &report,
            connection.stale_since().is_some(),
            args.no_fail_fast,
        );
        last_report = Some(report);
        if let Next::Exit(exit) = decision {
            break exit;
        }
    };
    let Some(report) = last_report else {
        return Ok(timed_out_before_reading(args));
    };
    finish(ctx, args, &report, exit)
}

/// The outcome once `wait` stopped: the last report for `-o json|yaml`,
/// and why it stopped.
fn finish(ctx: &Ctx, args: &WaitArgs, report: &Report, exit: Exit) -> Result<Outcome> {
    let stdout = match ctx.global.output {
        OutputFormat::Json => to_json(report)?,
        OutputFormat::Yaml => to_yaml(report)?,
        OutputFormat::Name => crate::render::name::clusters(report),
        OutputFormat::Table | OutputFormat::Wide | OutputFormat::Svg => String::new(),
    };
    Ok(Outcome {
        stdout,
        stderr: final_words(report, exit, args.timeout),
        exit,
    })
}

/// `wait` over several contexts (several `--context`, `--all-contexts`):
/// every context's watch at once; it decides once each context it could
/// read has been judged, on all their clusters together. A context that
/// cannot be read (at the start, or its watch ends) is a warning naming it
/// at once, and the wait goes on with the others; were they all to
/// converge, the exit is 7 ([`Exit::ContextsUnread`]), not 0. Attention
/// (3) and the timeout (5) are as for one context. A named cluster must be
/// in every context read.
async fn run_contexts(ctx: &Ctx, args: &WaitArgs) -> Result<Outcome> {
    let names = super::contexts::resolve(&ctx.global)?;
    let deadline = args.timeout.map(|t| Instant::now() + t);
    let timeout = async {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(timeout);
    let one = |name: &super::contexts::ContextName| Ctx {
        global: ctx.global.for_context(name.0.as_deref()),
        ..ctx.clone()
    };
    let starts = futures::future::join_all(names.iter().map(|name| {
        let ctx = one(name);
        let cluster = args.cluster.clone();
        async move { start(&ctx, cluster.as_deref()).await }
    }));
    let started = tokio::select! {
        started = starts => started,
        () = &mut timeout => return Ok(timed_out_before_reading(args)),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut views = Vec::with_capacity(names.len());
    let mut forwarders = Vec::new();
    let mut unread = vec![false; names.len()];
    for (at, started) in started.into_iter().enumerate() {
        match started {
            Ok((live, mut watch, scope)) => {
                let tx = tx.clone();
                forwarders.push(tokio::spawn(async move {
                    loop {
                        let update = watch.next().await;
                        let end = update.is_err();
                        // What changed in it, by cluster, goes with it.
                        let changed = watch.take_changed();
                        if tx.send((at, update, changed)).is_err() || end {
                            return;
                        }
                    }
                }));
                views.push(Some((live, scope)));
            }
            Err(err) => {
                eprint(&context_unread(names[at].given(), &err));
                unread[at] = true;
                views.push(None);
            }
        }
    }
    drop(tx);
    let naming = Naming::NamespaceName;
    let mut snapshots: Vec<Option<crate::source::watch::InView>> = vec![None; names.len()];
    let mut judgements: Vec<Judgements<ClusterReport>> =
        (0..names.len()).map(|_| Judgements::default()).collect();
    let mut changes: Vec<crate::snapshot::Changed> = vec![Default::default(); names.len()];
    let mut connections: Vec<ConnectionView> = vec![ConnectionView::Live; names.len()];
    let mut last_report = None;
    let mut last_progress = None;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let exit = loop {
        if unread.iter().all(|&u| u) {
            break Exit::ContextsUnread;
        }
        tokio::select! {
            Some((at, update, changed)) = rx.recv() => {
                changes[at].merge(changed);
                match update {
                    Ok(Update::Objects(s)) => snapshots[at] = Some(s),
                    Ok(Update::Connection(c)) => {
                        let was_stale = connections[at].stale_since().is_some();
                        connections[at] = connections[at].then(c, jiff::Timestamp::now());
                        let line = connections[at].log_line(Instant::now());
                        eprint(&in_context(names[at].given(), &line));
                        if let (false, Some(as_of)) =
                            (was_stale, connections[at].as_of(jiff::Timestamp::now()))
                        {
                            let line = crate::render::watch::wait_stale(&as_of);
                            eprint(&in_context(names[at].given(), &line));
                        }
                    }
                    Err(err) => {
                        eprint(&context_unread(names[at].given(), &err));
                        unread[at] = true;
                        snapshots[at] = None;
                    }
                }
            }
            _ = tick.tick() => {}
            () = &mut timeout => break Exit::TimedOut,
        }
        // Decide only once every context still read has been judged.
        if (0..names.len()).any(|at| !unread[at] && snapshots[at].is_none()) {
            continue;
        }
        let now = ctx.now();
        let mut report = Report {
            clusters: Vec::new(),
        };
        for (at, snapshot) in snapshots.iter().enumerate() {
            let (Some(snapshot), Some(Some((live, scope)))) = (snapshot, views.get(at)) else {
                continue;
            };
            judgements[at].update(
                snapshot.clone(),
                &std::mem::take(&mut changes[at]),
                now,
                ctx.global.stall_threshold,
                |r, _| r,
                |_| false,
            )?;
            let mut judged = Report {
                clusters: judgements[at].values().cloned().collect(),
            };
            in_view(live, &judged, scope, false).await?;
            for c in &mut judged.clusters {
                c.context = Some(names[at].label());
            }
            report.clusters.extend(judged.clusters);
        }
        if report.clusters.is_empty() && unread.iter().all(|&u| !u) {
            return Err(crate::error::Error::NoClusters {
                namespace: ctx.global.namespace.clone(),
            });
        }
        let key = progress_key(&report);
        if last_progress.as_ref() != Some(&key) {
            eprint(&progress_lines(&report, naming, last_progress.as_ref()));
            last_progress = Some(key);
        }
        // Nothing is decided while a context read is stale.
        let stale = connections
            .iter()
            .zip(&unread)
            .any(|(c, &u)| !u && c.stale_since().is_some());
        let decision = decide_now(&report, stale, args.no_fail_fast);
        last_report = Some(report);
        match decision {
            Next::Exit(Exit::Done) if unread.iter().any(|&u| u) => {
                break Exit::ContextsUnread;
            }
            Next::Exit(exit) => break exit,
            Next::Continue => {}
        }
    };
    for f in forwarders {
        f.abort();
    }
    let report = last_report.unwrap_or(Report {
        clusters: Vec::new(),
    });
    let mut outcome = finish(ctx, args, &report, exit)?;
    if exit == Exit::ContextsUnread {
        outcome.stderr.push_str(&contexts_unread(
            unread.iter().filter(|&&u| u).count(),
            names.len(),
        ));
    }
    Ok(outcome)
}

fn timed_out_before_reading(args: &WaitArgs) -> Outcome {
    Outcome {
        stdout: String::new(),
        stderr: crate::render::wait::timed_out_before_reading(args.timeout),
        exit: Exit::TimedOut,
    }
}

fn eprint(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(crate::render::style::clean_lines(text).as_bytes());
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample::{waited_cluster as cluster, waited_node as node};

    fn report(verdicts: &[Verdict]) -> Report {
        Report {
            clusters: verdicts
                .iter()
                .enumerate()
                .map(|(i, v)| cluster(&format!("c{i}"), *v))
                .collect(),
        }
    }

    /// Issue 43 item 3: a view whose connection is lost decides nothing,
    /// whatever its verdicts; live, the same report decides as before.
    #[test]
    fn a_stale_view_decides_nothing() {
        use Next::{Continue, Exit as Stop};
        use Verdict::*;
        // (verdicts, stale, --no-fail-fast, decision)
        let cases: &[(&[Verdict], bool, bool, Next)] = &[
            (&[Converged], false, false, Stop(Exit::Done)),
            (&[Converged], true, false, Continue),
            (&[Jammed], false, false, Stop(Exit::NeedsAttention)),
            (&[Jammed], true, false, Continue),
            (&[Converged, Converged], true, true, Continue),
            (&[Rolling], true, false, Continue),
        ];
        for (verdicts, stale, no_fail_fast, want) in cases {
            assert_eq!(
                decide_now(&report(verdicts), *stale, *no_fail_fast),
                *want,
                "{verdicts:?} stale={stale}"
            );
        }
    }

    /// Issue 43 item 3: `wait --servers` does not succeed on a cluster
    /// some of whose servers were not read; attention is decided as
    /// without them (the API's word stands for the nodes not read).
    #[test]
    fn servers_not_read_are_not_converged() {
        use Next::{Continue, Exit as Stop};
        use Verdict::*;
        // (each cluster's verdict and servers read/not read, decision)
        type Case = (&'static [(Verdict, Option<(usize, usize)>)], Next);
        let cases: &[Case] = &[
            (&[(Converged, None)], Stop(Exit::Done)),
            (&[(Converged, Some((6, 0)))], Stop(Exit::Done)),
            (&[(Converged, Some((5, 1)))], Continue),
            (&[(Converged, Some((0, 6)))], Continue),
            (
                &[(Converged, Some((6, 0))), (Converged, Some((5, 1)))],
                Continue,
            ),
            (&[(Jammed, Some((5, 1)))], Stop(Exit::NeedsAttention)),
            (
                &[(Converged, Some((5, 1))), (Stalled, None)],
                Stop(Exit::NeedsAttention),
            ),
            (&[(Rolling, Some((5, 1)))], Continue),
        ];
        for (clusters, want) in cases {
            let report = Report {
                clusters: clusters
                    .iter()
                    .enumerate()
                    .map(|(i, (v, servers))| {
                        let mut c = cluster(&format!("c{i}"), *v);
                        c.servers = servers.map(|(read, unread)| crate::report::ServersRead {
                            read,
                            unread,
                            observed_at: None,
                        });
                        c
                    })
                    .collect(),
            };
            assert_eq!(decide(&report, false), *want, "{clusters:?}");
            // Stale, nothing is decided either way.
            assert_eq!(decide_now(&report, true, false), Continue, "{clusters:?}");
        }
    }

    #[test]
    fn decision_table() {
        use Next::{Continue, Exit as Stop};
        use Verdict::*;
        // (verdicts of the clusters in view, --no-fail-fast, decision)
        let cases: &[(&[Verdict], bool, Next)] = &[
            (&[Converged], false, Stop(Exit::Done)),
            (&[Converged, Converged], false, Stop(Exit::Done)),
            (&[Rolling], false, Continue),
            (&[Waiting], false, Continue),
            (&[Converged, Rolling], false, Continue),
            (&[Jammed], false, Stop(Exit::NeedsAttention)),
            (&[Stalled], false, Stop(Exit::NeedsAttention)),
            (&[Conflict], false, Stop(Exit::NeedsAttention)),
            (&[Converged, Jammed], false, Stop(Exit::NeedsAttention)),
            (&[Rolling, Stalled], false, Stop(Exit::NeedsAttention)),
            (&[Jammed], true, Continue),
            (&[Stalled, Converged], true, Continue),
            (&[Conflict], true, Continue),
            (&[Converged], true, Stop(Exit::Done)),
            (&[], false, Continue),
        ];
        for (verdicts, no_fail_fast, want) in cases {
            assert_eq!(
                decide(&report(verdicts), *no_fail_fast),
                *want,
                "{verdicts:?} no_fail_fast={no_fail_fast}"
            );
        }
    }

    fn rolling(holder: &str, state: NodeState, held: u64, done: usize) -> Report {
        let mut c = cluster("cache", Verdict::Rolling);
        c.holders = vec![holder.into()];
        c.done = Some(done);
        c.nodes = vec![
            node("cache-0-0", NodeState::Waiting, None),
            node(holder, state, Some(held)),
        ];
        Report { clusters: vec![c] }
    }

    #[test]
    fn progress_lines_only_for_clusters_that_moved() {
        let mut before = rolling("cache-1-1", NodeState::Rolling, 120, 4);
        let mut other = cluster("store", Verdict::Converged);
        other.done = Some(6);
        before.clusters.push(other);
        let since = progress_key(&before);
        let names = |r: &Report, since| -> Vec<String> {
            moved(r, since).iter().map(|c| c.name.clone()).collect()
        };
        assert_eq!(names(&before, None), ["cache", "store"]);
        // Only time passed: nothing to say.
        let mut later = before.clone();
        later.clusters[0].nodes[1].held_for_seconds = Some(180);
        assert_eq!(names(&later, Some(&since)), Vec::<String>::new());
        assert_eq!(progress_lines(&later, Naming::Name, Some(&since)), "");
        // `cache` moved on, `store` did not: one line, `cache`'s.
        let mut moved_on = before.clone();
        moved_on.clusters[0].nodes[1].state = NodeState::Settling;
        assert_eq!(names(&moved_on, Some(&since)), ["cache"]);
        assert_eq!(
            progress_lines(&moved_on, Naming::Name, Some(&since)),
            progress_line(&moved_on.clusters[0], Naming::Name)
        );
    }

    #[test]
    fn progress_key_changes_with_progress_not_with_time() {
        let base = progress_key(&rolling("cache-1-1", NodeState::Rolling, 120, 4));
        let cases: &[(&str, Report, bool)] = &[
            (
                "held longer",
                rolling("cache-1-1", NodeState::Rolling, 180, 4),
                false,
            ),
            (
                "settling",
                rolling("cache-1-1", NodeState::Settling, 180, 4),
                true,
            ),
            (
                "next holder",
                rolling("cache-0-1", NodeState::Rolling, 1, 4),
                true,
            ),
            (
                "one more rolled",
                rolling("cache-1-1", NodeState::Rolling, 120, 5),
                true,
            ),
            (
                "a server not read",
                {
                    let mut r = rolling("cache-1-1", NodeState::Rolling, 120, 4);
                    r.clusters[0].servers = Some(crate::report::ServersRead {
                        read: 5,
                        unread: 1,
                        observed_at: None,
                    });
                    r
                },
                true,
            ),
        ];
        for (name, report, changed) in cases {
            assert_eq!(progress_key(report) != base, *changed, "{name}");
        }
    }

    #[test]
    fn naming_by_scope() {
        let scope = |ns: Option<&str>, c: Option<&str>| Scope {
            namespace: ns.map(str::to_string),
            cluster: c.map(str::to_string),
        };
        assert_eq!(
            naming_for(&scope(Some("prod"), Some("cache"))),
            Naming::None
        );
        assert_eq!(naming_for(&scope(Some("prod"), None)), Naming::Name);
        assert_eq!(
            naming_for(&scope(None, Some("cache"))),
            Naming::NamespaceName
        );
    }
}
