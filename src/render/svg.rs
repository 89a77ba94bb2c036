//! `history -o svg`: the current roll as a picture. Each node is a row on
//! one time axis per cluster, coloured by what it was doing (waiting, in
//! flight, stuck, rolled; blocked and skipped too), with the stall
//! threshold of a node in flight, the failovers of the roll, a failover
//! under way and the shards at risk marked, and a line at now. The facts
//! are those `history` prints ([`crate::report::RollHistory`] and the
//! cluster's report), plus the failover events of the cluster's timeline.
//!
//! Every string from the cluster is [`clean`]ed, then escaped for XML, so
//! a name or a message is always text, never markup. Times are written in
//! `data-from`/`data-to`/`data-t` attributes (RFC 3339) beside each mark,
//! for a reader that wants them back.

use super::fit::bounded;
use super::style::{Tone, clean, fill};
use super::words::{asides, role_mark};
use crate::report::{ClusterReport, HistoryOutcome, HistoryRow, NodeState, Report};
use crate::units::{human, timestamp};
use jiff::{SignedDuration, Timestamp};
use std::fmt::Write as _;

/// A failover event of the roll, from the cluster's timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FailoverMark {
    pub at: Timestamp,
    pub step: FailoverStep,
    /// The nodes whose pod addresses the event's note names.
    pub nodes: Vec<String>,
}

/// Which failover event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FailoverStep {
    Initiated,
    Completed,
    Failed,
    TimedOut,
    /// A failover the operator did not make, at the time the servers said
    /// so (docs/servers.md).
    Unplanned,
}

/// The picture's width, in pixels.
const WIDTH: f64 = 960.0;
/// Where the time axis begins and ends.
const AXIS_LEFT: f64 = 260.0;
const AXIS_RIGHT: f64 = 930.0;
/// A row's height, and its bar's.
const ROW: f64 = 22.0;
const BAR: f64 = 12.0;
/// The longest name a label shows whole (the tooltip has it whole).
const LABEL_CHARS: usize = 26;
/// The longest line of words (a reason) shown.
const LINE_CHARS: usize = 140;

/// What a stretch of a row means: its colour and its legend word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Waiting,
    InFlight,
    Stuck,
    Rolled,
    Blocked,
}

impl Phase {
    const ALL: [Phase; 5] = [
        Phase::Waiting,
        Phase::InFlight,
        Phase::Stuck,
        Phase::Rolled,
        Phase::Blocked,
    ];

    fn word(self) -> &'static str {
        match self {
            Phase::Waiting => "waiting",
            Phase::InFlight => "in flight",
            Phase::Stuck => "stuck",
            Phase::Rolled => "rolled",
            Phase::Blocked => "blocked",
        }
    }

    /// The class name (one word).
    fn class(self) -> &'static str {
        match self {
            Phase::Waiting => "waiting",
            Phase::InFlight => "in-flight",
            Phase::Stuck => "stuck",
            Phase::Rolled => "rolled",
            Phase::Blocked => "blocked",
        }
    }

    /// The node state the stretch shows: its colour is that state's tone
    /// (`NodeState::tone`, the one table of how alarming a state is), in
    /// the picture's shade ([`fill`]).
    fn state(self) -> NodeState {
        match self {
            Phase::Waiting => NodeState::Waiting,
            Phase::InFlight => NodeState::Rolling,
            Phase::Stuck => NodeState::Stuck,
            Phase::Rolled => NodeState::Converged,
            Phase::Blocked => NodeState::Blocking,
        }
    }

    fn fill(self) -> &'static str {
        fill(self.state().tone())
    }
}

fn step_word(s: FailoverStep) -> &'static str {
    match s {
        FailoverStep::Initiated => "failover initiated",
        FailoverStep::Completed => "failover completed",
        FailoverStep::Failed => "failover failed",
        FailoverStep::TimedOut => "failover timed out",
        FailoverStep::Unplanned => "a failover the operator did not make, seen",
    }
}

/// A failover's own colour (violet), or a failed one's tone.
fn step_fill(s: FailoverStep) -> &'static str {
    match s {
        FailoverStep::Initiated | FailoverStep::Completed => "#6a3d9a",
        FailoverStep::Failed | FailoverStep::TimedOut | FailoverStep::Unplanned => fill(Tone::Bad),
    }
}

/// Text for XML, as element content or an attribute value: cleaned as all
/// output is ([`clean`]: control and invisible characters shown as their
/// codes), then the five markup characters escaped. The two characters
/// XML forbids that `clean` keeps (U+FFFE, U+FFFF) are shown as codes.
pub(crate) fn xml(text: &str) -> String {
    let cleaned = clean(text);
    let mut out = String::with_capacity(cleaned.len() + 8);
    for c in cleaned.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{fffe}' | '\u{ffff}' => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `text`, `…` where it was cut.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The time of day, or the date too when the axis spans days.
fn clock(t: Timestamp, with_date: bool) -> String {
    if with_date {
        t.strftime("%m-%d %H:%M").to_string()
    } else {
        t.strftime("%H:%M:%S").to_string()
    }
}

/// A time axis from `from` to `to`.
struct Axis {
    from: Timestamp,
    to: Timestamp,
    /// Ticks fall across a day: their labels say the date.
    days: bool,
}

impl Axis {
    fn x(&self, t: Timestamp) -> f64 {
        let span = self.to.duration_since(self.from).as_secs_f64().max(1.0);
        let at = t.duration_since(self.from).as_secs_f64().clamp(0.0, span);
        AXIS_LEFT + (AXIS_RIGHT - AXIS_LEFT) * at / span
    }

    /// Round times from `from` to `to`, at most 8 of them.
    fn ticks(&self) -> Vec<Timestamp> {
        const STEPS: [i64; 17] = [
            1, 2, 5, 10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
        ];
        let span = self.to.duration_since(self.from).as_secs().max(1);
        let step = STEPS
            .into_iter()
            .find(|s| span / s <= 8)
            .unwrap_or_else(|| (span / 8 / 86_400 + 1) * 86_400);
        let first = self.from.as_second().div_euclid(step) * step;
        let mut out = Vec::new();
        let mut s = first;
        while s <= self.to.as_second() {
            if s >= self.from.as_second()
                && let Ok(t) = Timestamp::from_second(s)
            {
                out.push(t);
            }
            s += step;
        }
        out
    }
}

/// A stretch of a row.
struct Span {
    phase: Phase,
    from: Timestamp,
    to: Timestamp,
}

/// The row's roll is in flight or still to come.
fn unfinished(o: HistoryOutcome) -> bool {
    matches!(
        o,
        HistoryOutcome::Rolling
            | HistoryOutcome::Stuck
            | HistoryOutcome::Waiting
            | HistoryOutcome::Blocked
    )
}

/// The stretches of a row, oldest first, within the axis. `threshold`:
/// the stall threshold.
fn spans(r: &HistoryRow, axis: &Axis, now: Timestamp, threshold: SignedDuration) -> Vec<Span> {
    let start = r.advanced_at.or(r.applied_at);
    let mut out = Vec::new();
    // To the second, as the times are written.
    let whole = |t: Timestamp| Timestamp::from_second(t.as_second()).unwrap_or(t);
    let mut push = |phase, from: Timestamp, to: Timestamp| {
        let (from, to) = (whole(from.max(axis.from)), whole(to.min(axis.to)));
        if from < to {
            out.push(Span { phase, from, to });
        }
    };
    let waited_until = |until: Option<Timestamp>| until.unwrap_or(axis.from);
    match r.outcome {
        HistoryOutcome::Skipped => {}
        HistoryOutcome::Waiting => push(Phase::Waiting, axis.from, now),
        HistoryOutcome::Blocked => push(Phase::Blocked, axis.from, now),
        HistoryOutcome::Rolling => {
            push(Phase::Waiting, axis.from, waited_until(start));
            push(Phase::InFlight, waited_until(start), now);
        }
        HistoryOutcome::Stuck => {
            let from = waited_until(start);
            push(Phase::Waiting, axis.from, from);
            // Over the threshold it is stuck from there; judged stuck by
            // evidence before it, the whole flight is.
            let over = from.checked_add(threshold).ok().filter(|t| *t <= now);
            let stuck_from = over.unwrap_or(from);
            push(Phase::InFlight, from, stuck_from);
            push(Phase::Stuck, stuck_from, now);
        }
        HistoryOutcome::Rolled => {
            let done = r.ready_at.or(start);
            if let Some(s) = start {
                push(Phase::Waiting, axis.from, s);
            }
            if let (Some(s), Some(d)) = (start, done) {
                push(Phase::InFlight, s, d);
            }
            // Rolled it stays: up to now (the picture of a live roll goes
            // on past now only for a stall threshold still to come).
            push(Phase::Rolled, done.unwrap_or(now), now);
        }
    }
    out
}

/// Every time a cluster's picture shows.
fn times(c: &ClusterReport, failovers: &[FailoverMark]) -> Vec<Timestamp> {
    let h = &c.history;
    let mut all: Vec<Timestamp> = h.started_at.into_iter().collect();
    for r in &h.rows {
        all.extend(
            [r.advanced_at, r.applied_at, r.ready_at]
                .into_iter()
                .flatten(),
        );
    }
    all.extend(failovers.iter().map(|f| f.at));
    all.extend(c.failover.iter().filter_map(|f| f.since));
    all.extend(c.risks.iter().filter_map(|r| r.since));
    all
}

/// How far past now the axis of an unfinished roll may run, as a share of
/// the roll so far (its first time to now): with the room after it, the
/// roll keeps over half the axis (issue 43 item 5: a stall threshold ten
/// minutes ahead of a jam of 18 s left the jam 65 pixels).
const AHEAD: f64 = 0.8;

/// The axis of a cluster: from the roll's first time to now while it is
/// unfinished (or something is under way), to its last time once it is
/// done. A stall threshold of a node in flight still to come widens it,
/// by at most [`AHEAD`] of the roll so far; one further ahead is drawn
/// off the scale, at the axis's end (`threshold_mark`).
fn axis_of(c: &ClusterReport, failovers: &[FailoverMark], now: Timestamp) -> Option<Axis> {
    let threshold = threshold_of(c);
    let all = times(c, failovers);
    let from = all.iter().copied().min()?.min(now);
    let live = c.history.rows.iter().any(|r| unfinished(r.outcome))
        || c.failover.is_some()
        || !c.risks.is_empty();
    let mut to = if live {
        now
    } else {
        all.iter().copied().max().unwrap_or(now)
    };
    let roll = to.duration_since(from).max(SignedDuration::from_secs(1));
    let ahead = SignedDuration::try_from_secs_f64(roll.as_secs_f64() * AHEAD)
        .unwrap_or(SignedDuration::ZERO);
    let furthest = to.checked_add(ahead).unwrap_or(to);
    for r in c.history.rows.iter().filter(|r| unfinished(r.outcome)) {
        if let Some(limit) = r.advanced_at.and_then(|a| a.checked_add(threshold).ok()) {
            to = to.max(limit.min(furthest));
        }
    }
    // A little room after the last time, so its mark is not on the edge.
    let span = to.duration_since(from).as_millis().max(1000);
    let room = SignedDuration::from_millis(i64::try_from(span / 20).unwrap_or(i64::MAX / 2));
    let to = to.checked_add(room).unwrap_or(to);
    let days = from.strftime("%Y-%m-%d").to_string() != to.strftime("%Y-%m-%d").to_string();
    Some(Axis { from, to, days })
}

fn threshold_of(c: &ClusterReport) -> SignedDuration {
    SignedDuration::from_secs(i64::try_from(c.stall_threshold_seconds).unwrap_or(i64::MAX / 2))
}

/// Writes `<text>` at (x, y) with extra attributes.
fn text(out: &mut String, x: f64, y: f64, attrs: &str, body: &str) {
    let _ = writeln!(
        out,
        r#"<text x="{x:.1}" y="{y:.1}"{attrs}>{}</text>"#,
        xml(body)
    );
}

/// One cluster's block, drawn from `top`; returns its height.
fn cluster_block(
    out: &mut String,
    c: &ClusterReport,
    failovers: &[FailoverMark],
    now: Timestamp,
    top: f64,
) -> f64 {
    let threshold = threshold_of(c);
    let mut y = top + 18.0;
    let name = match &c.context {
        Some(ctx) => format!("{ctx}: {}/{}", c.namespace, c.name),
        None => format!("{}/{}", c.namespace, c.name),
    };
    let _ = writeln!(
        out,
        r#"<g class="cluster" data-cluster="{}">"#,
        xml(&bounded(&name))
    );
    text(
        out,
        10.0,
        y,
        r#" font-size="15" font-weight="bold""#,
        &format!(
            "{}  {}",
            shorten(&name, 80),
            c.verdict.to_string().to_uppercase()
        ),
    );
    y += 18.0;
    text(
        out,
        10.0,
        y,
        "",
        &shorten(
            &bounded(&super::words::ClusterSaid(&c.reason, c.protocol).to_string()),
            LINE_CHARS,
        ),
    );
    for aside in asides(c) {
        y += 16.0;
        text(
            out,
            10.0,
            y,
            r##" fill="#b02020""##,
            &shorten(&bounded(&aside), LINE_CHARS),
        );
    }
    y += 16.0;
    let began = match c.history.started_at {
        Some(s) => format!("roll began {}", timestamp(s)),
        None => "when the roll began is not told".to_string(),
    };
    text(
        out,
        10.0,
        y,
        r##" fill="#555""##,
        &format!(
            "{began}; stall threshold {}; now {}; times UTC",
            human(c.stall_threshold_seconds),
            timestamp(now)
        ),
    );
    y += 10.0;
    let Some(axis) = axis_of(c, failovers, now) else {
        y += 18.0;
        text(
            out,
            10.0,
            y,
            "",
            "No time of this roll is in view (events expire, an hour by default).",
        );
        out.push_str("</g>\n");
        return y - top + 10.0;
    };
    // The axis: a tick and its time at each round time.
    y += 18.0;
    let axis_y = y;
    let rows_top = axis_y + 6.0;
    // The cluster lane, then one row per node.
    let lane_y = rows_top;
    let nodes_top = lane_y + ROW;
    let rows_bottom = nodes_top + ROW * c.history.rows.len() as f64;
    out.push_str(r#"<g class="axis">"#);
    out.push('\n');
    let _ = writeln!(
        out,
        r##"<line class="axis-line" x1="{AXIS_LEFT:.1}" y1="{:.1}" x2="{AXIS_RIGHT:.1}" y2="{:.1}" stroke="#bbb"/>"##,
        axis_y + 2.0,
        axis_y + 2.0
    );
    for t in axis.ticks() {
        let x = axis.x(t);
        let _ = writeln!(
            out,
            r##"<line class="tick" data-t="{}" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{rows_bottom:.1}" stroke="#ddd"/>"##,
            timestamp(t),
            axis_y + 2.0
        );
        text(
            out,
            x,
            axis_y,
            r##" text-anchor="middle" font-size="10" fill="#555""##,
            &clock(t, axis.days),
        );
    }
    out.push_str("</g>\n");
    // The cluster lane: the roll's start, its failovers, a failover under
    // way and the shards at risk.
    let _ = writeln!(out, r#"<g class="lane">"#);
    text(
        out,
        10.0,
        lane_y + 15.0,
        r##" font-style="italic" fill="#555""##,
        "the cluster",
    );
    if let Some(s) = c.history.started_at {
        let x = axis.x(s);
        let _ = writeln!(
            out,
            r##"<line class="roll-start" data-t="{}" x1="{x:.1}" y1="{lane_y:.1}" x2="{x:.1}" y2="{rows_bottom:.1}" stroke="#333" stroke-dasharray="2,2"><title>{}</title></line>"##,
            timestamp(s),
            xml(&format!("roll began {}", timestamp(s)))
        );
    }
    if let Some(f) = &c.failover {
        let from = f.since.unwrap_or(axis.from).max(axis.from);
        let (x1, x2) = (axis.x(from), axis.x(now));
        let _ = writeln!(
            out,
            r##"<rect class="failover-under-way" data-from="{}" data-to="{}" x="{x1:.1}" y="{:.1}" width="{:.1}" height="{BAR}" fill="#6a3d9a" fill-opacity="0.35"><title>{}</title></rect>"##,
            timestamp(from),
            timestamp(now),
            lane_y + (ROW - BAR) / 2.0,
            (x2 - x1).max(2.0),
            xml(&bounded(&f.to_string()))
        );
    }
    for r in &c.risks {
        let from = r.since.unwrap_or(axis.from).max(axis.from);
        let (x1, x2) = (axis.x(from), axis.x(now));
        let _ = writeln!(
            out,
            r##"<rect class="risk" data-shard="{}" data-from="{}" data-to="{}" x="{x1:.1}" y="{:.1}" width="{:.1}" height="{BAR}" fill="url(#risk)" stroke="#d23c3c"><title>{}</title></rect>"##,
            r.shard,
            timestamp(from),
            timestamp(now),
            lane_y + (ROW - BAR) / 2.0,
            (x2 - x1).max(2.0),
            xml(&bounded(&r.to_string()))
        );
    }
    for f in failovers {
        let x = axis.x(f.at);
        let cy = lane_y + ROW / 2.0;
        let named = if f.nodes.is_empty() {
            String::new()
        } else {
            format!(" ({})", f.nodes.join(", "))
        };
        let _ = writeln!(
            out,
            r#"<path class="failover" data-t="{}" d="M{x:.1},{:.1} l5,6 l-5,6 l-5,-6 z" fill="{}"><title>{}</title></path>"#,
            timestamp(f.at),
            cy - 6.0,
            step_fill(f.step),
            xml(&bounded(&format!(
                "{} at {}{named}",
                step_word(f.step),
                timestamp(f.at)
            )))
        );
    }
    out.push_str("</g>\n");
    // The nodes.
    for (i, r) in c.history.rows.iter().enumerate() {
        let row_y = nodes_top + ROW * i as f64;
        let bar_y = row_y + (ROW - BAR) / 2.0;
        let at_risk = r
            .shard
            .is_some_and(|s| c.risks.iter().any(|k| k.shard == s));
        let _ = writeln!(
            out,
            r#"<g class="node" data-node="{}" data-outcome="{}">"#,
            xml(&bounded(&r.node)),
            outcome_class(r.outcome)
        );
        if i % 2 == 1 {
            let _ = writeln!(
                out,
                r##"<rect x="0" y="{row_y:.1}" width="{WIDTH}" height="{ROW}" fill="#f4f4f4"/>"##
            );
        }
        let mark = if r.partial { "*" } else { "" };
        // The judged role as the table's cell says it, `?` and all.
        let role = match role_mark(r.role, r.role_unsure()) {
            cell if cell == "-" => String::new(),
            cell => format!(" ({cell})"),
        };
        let mut label = format!("{}{mark}{role}", shorten(&r.node, LABEL_CHARS));
        if at_risk {
            label.push_str(" !");
        }
        let _ = writeln!(
            out,
            r#"<text x="10" y="{:.1}"{}>{}<title>{}</title></text>"#,
            row_y + 15.0,
            if at_risk { r##" fill="#b02020""## } else { "" },
            xml(&label),
            xml(&bounded(&row_title(r, at_risk)))
        );
        for s in spans(r, &axis, now, threshold) {
            let (x1, x2) = (axis.x(s.from), axis.x(s.to));
            let _ = writeln!(
                out,
                r#"<rect class="span {}" data-from="{}" data-to="{}" x="{x1:.1}" y="{bar_y:.1}" width="{:.1}" height="{BAR}" fill="{}"><title>{}</title></rect>"#,
                s.phase.class(),
                timestamp(s.from),
                timestamp(s.to),
                (x2 - x1).max(1.0),
                s.phase.fill(),
                xml(&format!(
                    "{} {}: {} to {} ({})",
                    bounded(&r.node),
                    s.phase.word(),
                    timestamp(s.from),
                    timestamp(s.to),
                    human(u64::try_from(s.to.duration_since(s.from).as_secs()).unwrap_or_default())
                ))
            );
        }
        if at_risk && let Some(shard) = r.shard {
            for k in c.risks.iter().filter(|k| k.shard == shard) {
                let from = k.since.unwrap_or(axis.from).max(axis.from);
                let (x1, x2) = (axis.x(from), axis.x(now));
                let _ = writeln!(
                    out,
                    r##"<rect class="risk" data-shard="{shard}" data-from="{}" data-to="{}" x="{x1:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="url(#risk)" stroke="#d23c3c" stroke-width="0.5"/>"##,
                    timestamp(from),
                    timestamp(now),
                    row_y + 1.0,
                    (x2 - x1).max(2.0),
                    ROW - 2.0
                );
            }
        }
        if let Some(a) = r.applied_at {
            let x = axis.x(a);
            let _ = writeln!(
                out,
                r##"<line class="applied" data-t="{}" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#222"><title>{}</title></line>"##,
                timestamp(a),
                bar_y - 2.0,
                bar_y + BAR + 2.0,
                xml(&format!(
                    "{} template applied {}",
                    bounded(&r.node),
                    timestamp(a)
                ))
            );
        }
        // The stall threshold of a node in flight: where it is (or will
        // be) held too long; past the axis's end, an arrow there and its
        // time.
        if matches!(r.outcome, HistoryOutcome::Rolling | HistoryOutcome::Stuck)
            && let Some(limit) = r.advanced_at.and_then(|a| a.checked_add(threshold).ok())
        {
            let title = xml(&format!(
                "stall threshold {}: {} held since {} is stuck from {}",
                human(c.stall_threshold_seconds),
                bounded(&r.node),
                r.advanced_at.map(timestamp).unwrap_or_default(),
                timestamp(limit)
            ));
            if limit <= axis.to {
                let x = axis.x(limit);
                let _ = writeln!(
                    out,
                    r##"<line class="threshold" data-t="{}" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#000" stroke-width="2" stroke-dasharray="3,2"><title>{title}</title></line>"##,
                    timestamp(limit),
                    row_y,
                    row_y + ROW,
                );
            } else {
                let cy = row_y + ROW / 2.0;
                let _ = writeln!(
                    out,
                    r##"<g class="threshold off-scale" data-t="{}"><title>{title}</title><path d="M{:.1},{:.1} l8,5 l-8,5 z" fill="#000"/>"##,
                    timestamp(limit),
                    AXIS_RIGHT - 8.0,
                    cy - 5.0,
                );
                text(
                    out,
                    AXIS_RIGHT - 11.0,
                    cy + 4.0,
                    r#" text-anchor="end" font-size="10""#,
                    &format!(
                        "stall threshold {} ({} ahead)",
                        clock(limit, axis.days),
                        human(
                            u64::try_from(limit.duration_since(now).as_secs()).unwrap_or_default()
                        )
                    ),
                );
                out.push_str("</g>\n");
            }
        }
        for f in failovers.iter().filter(|f| f.nodes.contains(&r.node)) {
            let x = axis.x(f.at);
            let cy = row_y + ROW / 2.0;
            let _ = writeln!(
                out,
                r#"<path class="failover" data-t="{}" d="M{x:.1},{:.1} l5,6 l-5,6 l-5,-6 z" fill="{}"><title>{}</title></path>"#,
                timestamp(f.at),
                cy - 6.0,
                step_fill(f.step),
                xml(&format!(
                    "{} at {}: {}",
                    step_word(f.step),
                    timestamp(f.at),
                    bounded(&r.node)
                ))
            );
        }
        out.push_str("</g>\n");
    }
    // Now.
    if now <= axis.to {
        let x = axis.x(now);
        let _ = writeln!(
            out,
            r##"<line class="now" data-t="{}" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{rows_bottom:.1}" stroke="#000" stroke-width="1.5"><title>now, {}</title></line>"##,
            timestamp(now),
            axis_y + 2.0,
            timestamp(now)
        );
        text(
            out,
            x,
            rows_bottom + 12.0,
            r#" text-anchor="middle" font-size="10" font-weight="bold""#,
            "now",
        );
    }
    let mut bottom = rows_bottom + 12.0;
    if c.history.rows.iter().any(|r| r.partial) {
        bottom += 14.0;
        text(
            out,
            10.0,
            bottom,
            r##" font-size="11" fill="#555""##,
            "* partial: an event this row needs is not in view (events expire, an hour by default)",
        );
    }
    out.push_str("</g>\n");
    bottom - top + 14.0
}

fn outcome_class(o: HistoryOutcome) -> &'static str {
    match o {
        HistoryOutcome::Rolled => "rolled",
        HistoryOutcome::Rolling => "rolling",
        HistoryOutcome::Stuck => "stuck",
        HistoryOutcome::Waiting => "waiting",
        HistoryOutcome::Blocked => "blocked",
        HistoryOutcome::Skipped => "skipped",
    }
}

/// A node's tooltip: its row of `history`, in words.
fn row_title(r: &HistoryRow, at_risk: bool) -> String {
    let mut parts = vec![r.node.clone()];
    if let Some(s) = r.shard {
        parts.push(format!("shard {s}"));
    }
    match (&r.role_note, r.role) {
        (Some(note), _) => parts.push(format!("role {}: {note}", role_mark(r.role, true))),
        (None, Some(role)) => parts.push(role.to_string()),
        (None, None) => {}
    }
    parts.push(
        match r.outcome {
            HistoryOutcome::Rolled => "rolled",
            HistoryOutcome::Rolling => "rolling",
            HistoryOutcome::Stuck => "stuck now",
            HistoryOutcome::Waiting => "waiting",
            HistoryOutcome::Blocked => "blocked",
            HistoryOutcome::Skipped => "skipped: nothing to roll",
        }
        .to_string(),
    );
    if let Some(a) = r.advanced_at {
        let by = r
            .advanced_by
            .as_deref()
            .map(|b| format!(" by {b}"))
            .unwrap_or_default();
        parts.push(format!("advanced {}{by}", timestamp(a)));
    }
    // A grant by hand's record of what the servers said at that moment.
    if let Some(said) = &r.servers_said {
        parts.push(format!("the servers said: {said}"));
    }
    if let Some(a) = r.applied_at {
        parts.push(format!("applied {}", timestamp(a)));
    }
    if let Some(a) = r.ready_at {
        parts.push(format!("Ready {}", timestamp(a)));
    }
    if let Some(s) = r.took_seconds {
        parts.push(format!("took {}", human(s)));
    }
    if at_risk {
        parts.push("its shard is at risk".to_string());
    }
    if r.partial {
        parts.push("partial: an event it needs is not in view".to_string());
    }
    parts.join("; ")
}

/// The legend, drawn from `top`; returns its height.
fn legend(out: &mut String, top: f64) -> f64 {
    out.push_str(r#"<g class="legend">"#);
    out.push('\n');
    let y = top + 14.0;
    let mut x = 10.0;
    for p in Phase::ALL {
        let _ = writeln!(
            out,
            r#"<rect x="{x:.1}" y="{:.1}" width="14" height="{BAR}" fill="{}"/>"#,
            y - 10.0,
            p.fill()
        );
        text(out, x + 18.0, y, "", p.word());
        x += 26.0 + 7.0 * p.word().len() as f64;
    }
    let _ = writeln!(
        out,
        r##"<rect x="{x:.1}" y="{:.1}" width="14" height="{BAR}" fill="url(#risk)" stroke="#d23c3c"/>"##,
        y - 10.0
    );
    text(out, x + 18.0, y, "", "shard at risk");
    x += 26.0 + 7.0 * 13.0;
    let _ = writeln!(
        out,
        r##"<path d="M{x:.1},{:.1} l5,6 l-5,6 l-5,-6 z" fill="#6a3d9a"/>"##,
        y - 11.0
    );
    text(out, x + 10.0, y, "", "failover");
    x += 18.0 + 7.0 * 8.0;
    let _ = writeln!(
        out,
        r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#000" stroke-width="2" stroke-dasharray="3,2"/>"##,
        y - 12.0,
        y + 2.0
    );
    text(out, x + 6.0, y, "", "stall threshold");
    x += 14.0 + 7.0 * 15.0;
    let _ = writeln!(
        out,
        r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#222"/>"##,
        y - 12.0,
        y + 2.0
    );
    text(out, x + 6.0, y, "", "applied");
    out.push_str("</g>\n");
    24.0
}

/// The whole picture: one block per cluster, then the legend.
/// `failovers[i]` are the failover events of `report.clusters[i]`.
pub(crate) fn history(report: &Report, now: Timestamp, failovers: &[Vec<FailoverMark>]) -> String {
    let mut body = String::new();
    let mut y = 0.0;
    for (i, c) in report.clusters.iter().enumerate() {
        let marks = failovers.get(i).map_or(&[][..], Vec::as_slice);
        y += cluster_block(&mut body, c, marks, now, y);
    }
    y += legend(&mut body, y);
    let height = y + 6.0;
    let names: Vec<String> = report
        .clusters
        .iter()
        .map(|c| format!("{}/{}", c.namespace, c.name))
        .collect();
    let mut out = String::with_capacity(body.len() + 1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="sans-serif" font-size="12" role="img">"#
    );
    let _ = writeln!(
        out,
        "<title>{}</title>",
        xml(&bounded(&shorten(
            &format!("the roll of {} at {}", names.join(", "), timestamp(now)),
            400
        )))
    );
    out.push_str(
        r##"<defs><pattern id="risk" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#d23c3c" fill-opacity="0.12"/><line x1="0" y1="0" x2="0" y2="6" stroke="#d23c3c" stroke-width="2"/></pattern></defs>"##,
    );
    out.push('\n');
    let _ = writeln!(out, r##"<rect width="100%" height="100%" fill="#fff"/>"##);
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::report::{FailoverSource, FailoverUnderWay, RollHistory};

    fn t(s: &str) -> Timestamp {
        s.parse().expect("time")
    }

    fn row(node: &str, outcome: HistoryOutcome, advanced: Option<&str>) -> HistoryRow {
        HistoryRow {
            node: node.into(),
            shard: Some(0),
            index: Some(1),
            role: Some(crate::report::Role::Replica),
            role_source: None,
            role_note: None,
            advanced_at: advanced.map(t),
            advanced_by: Some("<b>\"ops\u{202e}\"</b>".into()),
            servers_said: None,
            applied_at: advanced.map(t),
            ready_at: None,
            took_seconds: None,
            outcome,
            partial: false,
        }
    }

    /// What the examples lack: a failover under way, a blocked node, one
    /// judged stuck before its threshold, a context; every string of the
    /// report hostile, and all of it text.
    #[test]
    fn failover_under_way_blocked_and_early_stuck_all_as_text() {
        let mut report = sample::jammed();
        report.clusters.truncate(1);
        let c = &mut report.clusters[0];
        c.context = Some("ctx\"/><script>x</script>".into());
        c.stall_threshold_seconds = 600;
        c.failover = Some(FailoverUnderWay {
            shard: Some(0),
            from: Some("<i>a</i>".into()),
            to: Some("b&c".into()),
            since: Some(t("2026-11-29T10:10:00Z")),
            source: FailoverSource::Event,
            for_seconds: 360,
        });
        c.history = RollHistory {
            started_at: Some(t("2026-11-29T10:00:00Z")),
            oldest_event: None,
            rows: vec![
                row("n-blocked", HistoryOutcome::Blocked, None),
                row(
                    "n-early",
                    HistoryOutcome::Stuck,
                    Some("2026-11-29T10:12:00Z"),
                ),
                row("n-skip", HistoryOutcome::Skipped, None),
            ],
        };
        let now = t("2026-11-29T10:16:00Z");
        let svg = history(&report, now, &[vec![]]);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed");
        let class = |n: &roxmltree::Node<'_, '_>, c: &str| {
            n.attribute("class")
                .is_some_and(|v| v.split(' ').any(|w| w == c))
        };
        let under_way = doc
            .descendants()
            .find(|n| class(n, "failover-under-way"))
            .expect("failover under way");
        assert_eq!(
            under_way.attribute("data-from"),
            Some("2026-11-29T10:10:00Z")
        );
        let spans = |node: &str| -> Vec<String> {
            doc.descendants()
                .filter(|n| class(n, "node") && n.attribute("data-node") == Some(node))
                .flat_map(|n| n.descendants())
                .filter(|n| class(n, "span"))
                .filter_map(|n| n.attribute("class").map(str::to_string))
                .collect()
        };
        assert_eq!(spans("n-blocked"), ["span blocked"]);
        // Stuck 4m after its advance, by evidence: the whole flight is.
        assert_eq!(spans("n-early"), ["span waiting", "span stuck"]);
        assert!(spans("n-skip").is_empty());
        let all_text: String = doc
            .descendants()
            .filter_map(|n| n.text())
            .collect::<Vec<_>>()
            .join("\n");
        for shown in [
            "ctx\"/><script>x</script>: prod/cache",
            "<i>a</i> -> b&c",
            "by <b>\"ops\\u{202e}\"</b>",
        ] {
            assert!(all_text.contains(shown), "{shown} in:\n{all_text}");
        }
        assert!(!doc.descendants().any(|n| n.has_tag_name("script")));
        assert!(!svg.contains('\u{202e}'));
    }

    #[test]
    fn ticks_are_round_and_few() {
        let axis = Axis {
            from: t("2026-11-29T10:00:31Z"),
            to: t("2026-11-29T10:17:00Z"),
            days: false,
        };
        let ticks: Vec<String> = axis.ticks().into_iter().map(timestamp).collect();
        assert_eq!(
            ticks.first().map(String::as_str),
            Some("2026-11-29T10:02:00Z")
        );
        assert!(ticks.len() <= 8 && ticks.len() >= 3, "{ticks:?}");
        let days = Axis {
            from: t("2026-11-27T10:00:00Z"),
            to: t("2026-11-29T10:00:00Z"),
            days: true,
        };
        assert!(days.ticks().len() <= 8);
        assert_eq!(clock(t("2026-11-28T00:00:00Z"), true), "11-28 00:00");
    }

    /// Issue 43 item 5: the roll so far keeps at least half the axis, the
    /// stall threshold still drawn: on the scale where it fits, else an
    /// arrow at the axis's end with its time. A table of jams (the holder
    /// advanced when the roll began) under a threshold of 10m.
    #[test]
    fn the_roll_keeps_half_the_axis_and_the_threshold_stays_drawn() {
        let now = t("2026-11-29T12:00:00Z");
        // (jam in seconds, outcome, threshold off the scale)
        let cases = [
            (10, HistoryOutcome::Stuck, true),
            (18, HistoryOutcome::Rolling, true),
            (60, HistoryOutcome::Rolling, true),
            (300, HistoryOutcome::Rolling, true),
            (400, HistoryOutcome::Rolling, false),
            (1800, HistoryOutcome::Stuck, false),
        ];
        let mut failures = Vec::new();
        for (jam, outcome, off_scale) in cases {
            let began = now - SignedDuration::from_secs(jam);
            let mut report = sample::jammed();
            report.clusters.truncate(1);
            let c = &mut report.clusters[0];
            c.stall_threshold_seconds = 600;
            c.risks.clear();
            c.failover = None;
            let mut holder = row("n-holder", outcome, None);
            holder.advanced_at = Some(began);
            c.history = RollHistory {
                started_at: Some(began),
                oldest_event: None,
                rows: vec![holder, row("n-next", HistoryOutcome::Waiting, None)],
            };
            let svg = history(&report, now, &[vec![]]);
            let doc = roxmltree::Document::parse(&svg).expect("well-formed");
            let class = |n: &roxmltree::Node<'_, '_>, c: &str| {
                n.attribute("class")
                    .is_some_and(|v| v.split(' ').any(|w| w == c))
            };
            let num = |n: &roxmltree::Node<'_, '_>, a: &str| -> f64 {
                n.attribute(a)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(f64::NAN)
            };
            let first = doc
                .descendants()
                .filter(|n| class(n, "span"))
                .map(|n| num(&n, "x"))
                .fold(f64::INFINITY, f64::min);
            let at_now = doc
                .descendants()
                .find(|n| class(n, "now"))
                .map_or(f64::NAN, |n| num(&n, "x1"));
            let share = (at_now - first) / (AXIS_RIGHT - AXIS_LEFT);
            if share.is_nan() || share < 0.5 {
                failures.push(format!("{jam}s: the roll takes {share:.3} of the axis"));
            }
            let limit = timestamp(began + SignedDuration::from_secs(600));
            let marks: Vec<_> = doc
                .descendants()
                .filter(|n| class(n, "threshold"))
                .map(|n| {
                    (
                        n.attribute("data-t").map(str::to_string),
                        class(&n, "off-scale"),
                    )
                })
                .collect();
            if marks != [(Some(limit.clone()), off_scale)] {
                failures.push(format!(
                    "{jam}s: threshold marks {marks:?}, want {limit} off-scale {off_scale}"
                ));
            }
            let said = format!(
                "stall threshold {}",
                clock(began + SignedDuration::from_secs(600), false)
            );
            if off_scale != svg.contains(&said) {
                failures.push(format!("{jam}s: {said:?} written: {}", !off_scale));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
