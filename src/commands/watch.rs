//! `status --watch`: the status report, kept live.
//!
//! The one command that prints as it goes (every other command returns its
//! text to `main`): a live view cannot wait for its end. It returns an
//! [`Outcome`] with empty stdout when the person presses Ctrl-C, or when
//! SIGTERM arrives (exit 0 for both, the terminal restored).
//!
//! It re-classifies on every change the watch reports, and when time alone
//! can change what is shown ([`next_wake`]): a holder crossing the stall
//! threshold turns Stuck without any API event, and the report says when
//! the next such moment is; on a terminal, the durations of a roll in
//! flight tick every second. Otherwise it sleeps, so an idle view costs
//! next to nothing. It draws only when what is shown changes:
//! - on a terminal, the frame (report and a last line "updated 10:16:11 ·
//!   live") is redrawn in place on the alternate screen: cursor home, each
//!   line cleared to its end, then the rest of the screen cleared, in one
//!   write, so nothing flickers and no frame piles into the scrollback. On
//!   exit the normal screen comes back and the last report is printed there.
//! - off a terminal, a full report with a timestamp line is printed only when
//!   it changes visibly ([`Report::timeless`]); ticking durations alone are
//!   no change. The connection state goes to stderr.

use super::shared::{ConnectionWords, TICK, start};
use super::shared::{in_view, render_report};
use crate::cli::{OutputFormat, StatusArgs};
use crate::commands::Ctx;
use crate::error::{Error, Outcome, Result};
use crate::live::judgements::Judgements;
use crate::live::{ConnectionView, stop_requested};
use crate::render::notice::no_clusters_message;
use crate::render::watch::{LISTING, status_line};
use crate::report::{ClusterReport, Report, Verdict};
use crate::source::watch::{Scope, Update};
use crate::units::timestamp;
use crossterm::terminal::{Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen};
use jiff::Timestamp;
use std::io::Write;
use std::time::Duration;
use tokio::time::Instant;

/// The longest the view goes without judging again: a backstop, should a
/// time-driven change ever fail to say when it comes.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(30);

pub(crate) async fn run(ctx: &Ctx, args: &StatusArgs) -> Result<Outcome> {
    let (live, mut watch, scope) = start(ctx, args.cluster.as_deref()).await?;
    let mut out = Output::new(ctx, &scope);
    let mut snapshot = None;
    let mut judgements: Judgements<ClusterReport> = Judgements::default();
    let mut connection = ConnectionView::Live;
    let mut wake = Instant::now() + TICK;
    let stop = stop_requested();
    tokio::pin!(stop);
    let mut checked = false;
    let mut servers = super::shared::rereader(&live, args.servers, &args.servers_ca);
    let mut said = String::new();
    loop {
        // The servers are read with the objects in view: not before them.
        // A reading runs beside the loop: the watch, the clock and the
        // signals are heard while it is under way, and what it found is
        // judged when it ends.
        let reread = servers
            .as_ref()
            .filter(|_| snapshot.is_some())
            .and_then(|s| s.due());
        let mut again = Default::default();
        tokio::select! {
            () = &mut stop => break,
            update = watch.next() => match update? {
                Update::Objects(s) => snapshot = Some(s),
                Update::Connection(c) => {
                    connection = connection.then(c, Timestamp::now());
                    out.connection(&connection)?;
                }
            },
            (clusters, lines) = super::shared::servers_read(&mut servers, &mut said) => {
                // The clusters whose readings changed are judged again too.
                again = clusters;
                if let Some(lines) = lines {
                    out.servers(lines);
                }
            }
            () = tokio::time::sleep_until(wake) => {}
            () = tokio::time::sleep_until(reread.unwrap_or(wake)), if reread.is_some() => {}
        }
        let Some(snapshot) = &snapshot else {
            wake = Instant::now() + TICK;
            continue;
        };
        let changed = watch.take_changed();
        // The servers, read again every REREAD once the last reading ended.
        if let Some(s) = &mut servers {
            s.begin(snapshot, &changed);
        }
        let now = ctx.now();
        // Judged again: the clusters whose objects changed, those whose
        // verdict time alone changes by now, and on a terminal each whose
        // durations tick (not Converged); the others keep their judgement.
        let screen = out.ticks();
        judgements.update(
            crate::live::judgements::WithReadings {
                objects: snapshot.clone(),
                readings: servers.as_ref(),
                changed: again,
            },
            &changed,
            now,
            ctx.global.stall_threshold,
            |r, _| r,
            |r| screen && r.verdict != Verdict::Converged,
        )?;
        let report = Report {
            clusters: judgements.values().cloned().collect(),
        };
        let ticking = out.shows_ticking(&report) || connection != ConnectionView::Live;
        wake = Instant::now() + next_wake(&report, now, ticking);
        if !checked {
            // A named cluster that is not there is an error, as for `status`;
            // one that goes away later is shown gone.
            in_view(&live, &report, &scope, false).await?;
            checked = true;
        }
        out.report(&report, now, &connection)?;
    }
    let servers = out.servers.take().unwrap_or_default();
    Ok(Outcome {
        stderr: servers,
        ..Outcome::ok(out.finish())
    })
}

/// How long to wait before judging `report` (judged at `now`) again when
/// nothing changes in the API: until its next time-driven change, a second
/// when `ticking` (a frame showing durations or a countdown), never more
/// than [`MAX_WAIT`].
pub(crate) fn next_wake(report: &Report, now: Timestamp, ticking: bool) -> Duration {
    if ticking {
        return TICK;
    }
    report
        .next_change()
        .map_or(MAX_WAIT, |next| {
            let until = now.duration_until(next);
            Duration::try_from(until).unwrap_or(Duration::ZERO)
        })
        .min(MAX_WAIT)
}

/// The report as `status` renders it (`-o table|wide|json|yaml`); an empty
/// table says so, since a live view has nowhere else to say it.
pub(crate) fn render(report: &Report, ctx: &Ctx, scope: &Scope) -> Result<String> {
    render_as_of(report, ctx, scope, None)
}

/// [`render`], each table headline's verdict kept only `as_of` a past
/// reading when the view is stale (and nothing coloured).
fn render_as_of(report: &Report, ctx: &Ctx, scope: &Scope, as_of: Option<&str>) -> Result<String> {
    match ctx.global.output {
        OutputFormat::Table | OutputFormat::Wide if report.clusters.is_empty() => {
            Ok(no_clusters_message(scope.namespace.as_deref()))
        }
        format @ (OutputFormat::Table | OutputFormat::Wide) if as_of.is_some() => {
            Ok(crate::render::table::status_screen_as_of(
                report,
                crate::render::table::TableOptions {
                    wide: format == OutputFormat::Wide,
                    color: ctx.color,
                },
                ctx.screen(),
                as_of,
            ))
        }
        _ => render_report(report, ctx),
    }
}

/// A frame for a terminal: from the top left, every line cleared to its
/// end, then everything below cleared; written at once, it does not flicker.
pub(crate) fn terminal_frame(body: &str, last_line: &str) -> String {
    let mut frame = String::with_capacity(body.len() + last_line.len() + 64);
    frame.push_str(&cursor_home());
    for line in body.lines() {
        frame.push_str(line);
        frame.push_str(&clear_line());
        frame.push('\n');
    }
    frame.push('\n');
    frame.push_str(last_line);
    frame.push_str(&clear_line());
    frame.push_str(&clear_below());
    frame
}

/// The escape sequence of a terminal command, as crossterm spells it.
fn ansi(command: impl crossterm::Command) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = command.write_ansi(&mut out);
    out
}

fn cursor_home() -> String {
    ansi(crossterm::cursor::MoveTo(0, 0))
}

fn clear_line() -> String {
    ansi(Clear(ClearType::UntilNewLine))
}

fn clear_below() -> String {
    ansi(Clear(ClearType::FromCursorDown))
}

/// The alternate screen, with the cursor hidden while frames are drawn.
fn enter_alt_screen() -> String {
    ansi(EnterAlternateScreen) + &ansi(crossterm::cursor::Hide)
}

fn leave_alt_screen() -> String {
    ansi(crossterm::cursor::Show) + &ansi(LeaveAlternateScreen)
}

/// Where the frames go.
struct Output<'a> {
    ctx: &'a Ctx,
    scope: Scope,
    mode: Mode,
    /// On a terminal, the last lines about servers not read: said on the
    /// normal screen at the end (off a terminal, on stderr at once).
    servers: Option<String>,
}

enum Mode {
    AltScreen(AltScreen),
    /// The [`Report::timeless`] of the report last printed, and whether
    /// it was printed stale.
    Log {
        last: Option<(Report, bool)>,
    },
}

/// The alternate screen, left again when dropped (also on an error).
struct AltScreen {
    entered: bool,
    /// The report last drawn (without the last line).
    body: Option<String>,
    /// When the report last changed.
    updated: Timestamp,
    /// The whole frame last written.
    frame: String,
}

impl AltScreen {
    fn enter() -> AltScreen {
        let mut out = std::io::stdout().lock();
        let entered = out.write_all(enter_alt_screen().as_bytes()).is_ok() && out.flush().is_ok();
        AltScreen {
            entered,
            body: None,
            updated: Timestamp::now(),
            frame: String::new(),
        }
    }

    fn leave(&mut self) {
        if self.entered {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(leave_alt_screen().as_bytes());
            let _ = out.flush();
            self.entered = false;
        }
    }
}

impl Drop for AltScreen {
    fn drop(&mut self) {
        self.leave();
    }
}

impl<'a> Output<'a> {
    fn new(ctx: &'a Ctx, scope: &Scope) -> Output<'a> {
        let mode = if ctx.stdout_is_terminal {
            Mode::AltScreen(AltScreen::enter())
        } else {
            Mode::Log { last: None }
        };
        Output {
            ctx,
            scope: scope.clone(),
            mode,
            servers: None,
        }
    }

    /// The lines about servers not read, when they changed.
    fn servers(&mut self, lines: String) {
        match self.mode {
            Mode::AltScreen(_) => self.servers = Some(lines),
            Mode::Log { .. } => {
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(crate::render::style::clean_lines(&lines).as_bytes());
                let _ = err.flush();
            }
        }
    }

    fn report(
        &mut self,
        report: &Report,
        now: Timestamp,
        connection: &ConnectionView,
    ) -> Result<()> {
        let as_of = connection.as_of(now);
        match &mut self.mode {
            Mode::AltScreen(term) => {
                let body = render_as_of(report, self.ctx, &self.scope, as_of.as_deref())?;
                if term.body.as_ref() != Some(&body) {
                    // A stale frame's age ticks; it is no update.
                    if as_of.is_none() {
                        term.updated = now;
                    }
                    term.body = Some(body);
                }
                self.redraw(connection)
            }
            Mode::Log { last } => {
                // A table is printed again when it goes stale (its
                // headlines say as of when) and when it is live again; not
                // as its age ticks. A document is the same either way.
                let tells_staleness = matches!(
                    self.ctx.global.output,
                    OutputFormat::Table | OutputFormat::Wide
                );
                let key = (report.timeless(), tells_staleness && as_of.is_some());
                if last.as_ref() == Some(&key) {
                    return Ok(());
                }
                *last = Some(key);
                let text = log_entry(report, self.ctx, &self.scope, now, as_of.as_deref())?;
                write_stdout(&text)
            }
        }
    }

    /// The view shows durations that tick by the second: a terminal frame
    /// with a roll unfinished (held, waiting, quiet, the estimate). Off a
    /// terminal durations are not a change, and a Converged cluster shows
    /// none.
    fn shows_ticking(&self, report: &Report) -> bool {
        self.ticks()
            && report
                .clusters
                .iter()
                .any(|c| c.verdict != Verdict::Converged)
    }

    /// A terminal frame, whose durations tick (off a terminal they are no
    /// change).
    fn ticks(&self) -> bool {
        matches!(self.mode, Mode::AltScreen(_))
    }

    fn connection(&mut self, connection: &ConnectionView) -> Result<()> {
        match &self.mode {
            Mode::AltScreen(_) => self.redraw(connection),
            Mode::Log { .. } => {
                let line = connection.log_line(Instant::now());
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(crate::render::style::clean_lines(&line).as_bytes());
                Ok(())
            }
        }
    }

    /// Writes the frame when it differs from the one on screen.
    fn redraw(&mut self, connection: &ConnectionView) -> Result<()> {
        let Mode::AltScreen(term) = &mut self.mode else {
            return Ok(());
        };
        let body = term.body.clone().unwrap_or_else(|| LISTING.to_string());
        let last_line = status_line(term.updated, &connection.words(Instant::now()));
        let frame = terminal_frame(&body, &last_line);
        if frame == term.frame {
            return Ok(());
        }
        write_stdout(&frame)?;
        term.frame = frame;
        Ok(())
    }

    /// Leaves the terminal as it was; returns the last report for `main` to
    /// print on the normal screen, so the final state stays visible.
    fn finish(self) -> String {
        match self.mode {
            Mode::AltScreen(mut term) => {
                term.leave();
                term.body.take().unwrap_or_default()
            }
            Mode::Log { .. } => String::new(),
        }
    }
}

/// One report off a terminal: a timestamp line, then the report. JSON is
/// one document per line (JSON Lines, no timestamp line) so that a reader
/// of the stream can parse each one.
/// A stale view's table headlines say `as_of` when.
fn log_entry(
    report: &Report,
    ctx: &Ctx,
    scope: &Scope,
    now: Timestamp,
    as_of: Option<&str>,
) -> Result<String> {
    let stamp = timestamp(now);
    Ok(match ctx.global.output {
        OutputFormat::Json => {
            let mut line = crate::render::json::to_json_line(report)?;
            line.push('\n');
            line
        }
        OutputFormat::Yaml => format!("--- # {stamp}\n{}", render(report, ctx, scope)?),
        OutputFormat::Name => render(report, ctx, scope)?,
        OutputFormat::Table | OutputFormat::Wide | OutputFormat::Svg => {
            format!(
                "--- {stamp}\n{}\n",
                render_as_of(report, ctx, scope, as_of)?
            )
        }
    })
}

fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|source| Error::Write {
            path: "stdout".to_string(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample::{bare_cluster, bare_node};
    use crate::report::{
        Ahead, ClusterReason, ClusterReport, Evidence, EvidenceKind, Finding, GrantSource, Hold,
        NodeReason, NodeReport, NodeState, Protocol, RollStep, Verdict,
    };

    fn node(name: &str, state: NodeState) -> NodeReport {
        NodeReport {
            shard: Some(0),
            index: Some(1),
            role: Some(crate::report::Role::Replica),
            pod: Some(format!("valkey-{name}-0")),
            ..bare_node(name, state)
        }
    }

    fn cluster(verdict: Verdict, nodes: Vec<NodeReport>) -> ClusterReport {
        ClusterReport {
            reason: ClusterReason::HolderRolling {
                holder: "cache-0-1".into(),
                protocol: Protocol::P1,
                hold: Hold {
                    seconds: Some(120),
                    source: GrantSource::Event,
                },
                waiting: 1,
            },
            done: Some(0),
            quiet_for_seconds: Some(10),
            state: Some("Reconciling".into()),
            state_reason: Some("UpdatingNodes".into()),
            ..bare_cluster("cache", verdict, nodes)
        }
    }

    fn unschedulable(for_seconds: u64, restarts: i32) -> Vec<Evidence> {
        vec![
            Evidence::new(
                EvidenceKind::Unschedulable,
                Finding::Unschedulable {
                    pod: "valkey-cache-0-1-0".into(),
                    for_seconds,
                    message: None,
                },
            ),
            Evidence::new(
                EvidenceKind::CrashLoopBackOff,
                Finding::ContainerWaiting {
                    pod: "valkey-cache-0-1-0".into(),
                    container: "server".into(),
                    reason: "CrashLoopBackOff".into(),
                    restarts,
                },
            ),
        ]
    }

    /// A holder rolling for 2m with a waiting node behind it.
    fn base() -> Report {
        let mut holder = node("cache-0-1", NodeState::Rolling);
        holder.permit = Some("h1".into());
        holder.held_for_seconds = Some(120);
        holder.granted_at_source = GrantSource::Event;
        holder.reason = NodeReason::Rolling(RollStep::PodNotReady {
            pod: Some("valkey-cache-0-1-0".into()),
        });
        holder.evidence = unschedulable(130, 7);
        holder.facts.resource_version = Some("100".into());
        let mut waiting = node("cache-0-0", NodeState::Waiting);
        waiting.desired_revision = Some("h1".into());
        waiting.queue_position = Some(1);
        waiting.waiting_for_seconds = Some(300);
        waiting.reason = NodeReason::Waiting {
            queue: 1,
            ahead: Ahead::Holders(vec!["cache-0-1".into()]),
        };
        let mut c = cluster(Verdict::Rolling, vec![holder, waiting]);
        c.holders = vec!["cache-0-1".into()];
        c.front = Some("cache-0-0".into());
        c.waiting = 1;
        Report { clusters: vec![c] }
    }

    #[test]
    fn the_view_wakes_at_the_next_change_a_second_when_ticking_else_at_most_max_wait() {
        let now = crate::fixture::t(0);
        let with_next = |next: Option<i64>| {
            let mut r = base();
            r.clusters[0].next_change = next.map(crate::fixture::t);
            r
        };
        let s = Duration::from_secs;
        // (case, report, ticking, wait)
        let cases = [
            (
                "nothing comes by time alone",
                with_next(None),
                false,
                MAX_WAIT,
            ),
            ("a threshold in 7s", with_next(Some(7)), false, s(7)),
            (
                "a threshold in an hour",
                with_next(Some(3_600)),
                false,
                MAX_WAIT,
            ),
            ("durations on a terminal", with_next(Some(7)), true, TICK),
            ("no clusters", Report { clusters: vec![] }, false, MAX_WAIT),
        ];
        for (name, report, ticking, want) in cases {
            assert_eq!(next_wake(&report, now, ticking), want, "{name}");
        }
        // The earliest cluster's change counts.
        let mut two = with_next(Some(20));
        let mut other = two.clusters[0].clone();
        other.next_change = Some(crate::fixture::t(4));
        two.clusters.push(other);
        assert_eq!(next_wake(&two, now, false), s(4));
    }

    #[test]
    fn timeless_reports_ignore_ticking_durations_and_see_every_shown_change() {
        type Edit = fn(&mut Report);
        // (case, edit, visible?)
        let cases: &[(&str, Edit, bool)] = &[
            ("nothing", |_| {}, false),
            (
                "durations tick",
                |r| {
                    let c = &mut r.clusters[0];
                    c.quiet_for_seconds = Some(70);
                    c.eta_seconds = c.eta_seconds.map(|s| s + 60);
                    if let ClusterReason::HolderRolling { hold, .. } = &mut c.reason {
                        hold.seconds = Some(180);
                    }
                    c.nodes[0].held_for_seconds = Some(180);
                    c.nodes[0].evidence = unschedulable(190, 7);
                    c.nodes[1].waiting_for_seconds = Some(360);
                },
                false,
            ),
            (
                "a new resource version, nothing shown",
                |r| r.clusters[0].nodes[0].facts.resource_version = Some("101".into()),
                false,
            ),
            (
                "the roll's history (not shown by status)",
                |r| r.clusters[0].history.started_at = Some(crate::fixture::t(0)),
                false,
            ),
            (
                "a restart (shown in the REASON)",
                |r| r.clusters[0].nodes[0].evidence = unschedulable(130, 8),
                true,
            ),
            (
                "evidence goes",
                |r| r.clusters[0].nodes[0].evidence.clear(),
                true,
            ),
            (
                "a reason",
                |r| {
                    r.clusters[0].nodes[1].reason = NodeReason::Waiting {
                        queue: 1,
                        ahead: Ahead::Nothing,
                    }
                },
                true,
            ),
            ("verdict", |r| r.clusters[0].verdict = Verdict::Jammed, true),
            (
                "node state",
                |r| r.clusters[0].nodes[0].state = NodeState::Stuck,
                true,
            ),
            (
                "holder",
                |r| r.clusters[0].holders = vec!["cache-0-0".into()],
                true,
            ),
            ("front", |r| r.clusters[0].front = None, true),
            (
                "permit",
                |r| r.clusters[0].nodes[0].permit = Some("*".into()),
                true,
            ),
            ("cluster state", |r| r.clusters[0].state_reason = None, true),
            ("progress", |r| r.clusters[0].done = Some(1), true),
            ("ready", |r| r.clusters[0].nodes[1].ready = false, true),
            (
                "a duration becomes known",
                |r| r.clusters[0].nodes[1].waiting_for_seconds = None,
                true,
            ),
            (
                "grant time source",
                |r| r.clusters[0].nodes[0].granted_at_source = GrantSource::ManagedFields,
                true,
            ),
            (
                "the last exit (status -o wide)",
                |r| {
                    r.clusters[0].nodes[0].facts.failing_container =
                        Some(Box::new(crate::report::FailingContainer {
                            name: "server".into(),
                            restarts: 3,
                            last: Some(crate::report::Termination {
                                container: "server".into(),
                                exit_code: 137,
                                reason: Some("OOMKilled".into()),
                                signal: None,
                                finished_at: None,
                            }),
                        }))
                },
                true,
            ),
            ("a cluster goes", |r| r.clusters.clear(), true),
        ];
        let before = base().timeless();
        for (name, edit, visible) in cases {
            let mut report = base();
            edit(&mut report);
            assert_eq!(
                report.timeless() != before,
                *visible,
                "{name}: visible change expected {visible}"
            );
        }
    }

    #[test]
    fn terminal_frame_redraws_in_place() {
        let frame = terminal_frame("a\nbb\n", "updated 10:16:11 · live");
        assert_eq!(
            frame,
            "\x1b[1;1Ha\x1b[K\nbb\x1b[K\n\nupdated 10:16:11 · live\x1b[K\x1b[J"
        );
        // No full-screen clear (it flickers) and nothing that scrolls
        // beyond the frame's own lines.
        assert!(!frame.contains("\x1b[2J"));
    }

    #[test]
    fn a_lost_connection_is_said_with_its_next_try_and_its_time() {
        let now = Instant::now();
        let lost = ConnectionView::Lost {
            retry_at: now + Duration::from_secs(1),
            error: "connection refused".into(),
            since: Timestamp::from_second(100).expect("a time"),
        };
        assert_eq!(
            lost.log_line(now),
            "connection lost, retrying in 1s: connection refused\n"
        );
        let as_of = lost
            .as_of(Timestamp::from_second(112).expect("a time"))
            .expect("stale");
        assert!(as_of.ends_with("(12s ago)"), "{as_of}");
        assert_eq!(ConnectionView::Live.as_of(Timestamp::UNIX_EPOCH), None);
    }

    use crate::commands::shared::check_in_view;

    fn scope(cluster: Option<&str>) -> Scope {
        Scope {
            namespace: Some("prod".into()),
            cluster: cluster.map(str::to_string),
        }
    }

    #[test]
    fn clusters_in_view() {
        let empty = Report {
            clusters: Vec::new(),
        };
        let mut missing_object = base();
        missing_object.clusters[0].cluster_found = false;
        // (case, report, named, need_any, ok?)
        let cases: &[(&str, &Report, Option<&str>, bool, bool)] = &[
            ("named, there", &base(), Some("cache"), true, true),
            ("named, absent", &empty, Some("cache"), false, false),
            ("named, other", &base(), Some("store"), true, false),
            (
                "named, only its nodes' label",
                &missing_object,
                Some("cache"),
                true,
                false,
            ),
            ("none named, none there, status", &empty, None, false, true),
            ("none named, none there, wait", &empty, None, true, false),
            ("none named, some there", &base(), None, true, true),
        ];
        for (name, report, cluster, need_any, ok) in cases {
            let got = check_in_view(report, &scope(*cluster), *need_any);
            assert_eq!(got.is_ok(), *ok, "{name}: {got:?}");
        }
        let err = check_in_view(&empty, &scope(Some("cache")), false).unwrap_err();
        assert_eq!(err.exit().code(), 1);
        assert_eq!(err.to_string(), "ValkeyCluster prod/cache not found");
    }
}
