//! `history`: the current roll so far, as a table per cluster or as the
//! document README "history" describes. Words only; the facts come from
//! [`crate::report::RollHistory`].

use super::fit::{Cell, Grid, Last, Screen, paragraph};
use super::style::{clean, clean_or_dash};
use super::words::role_mark;
use crate::report::{ClusterReport, HistoryOutcome, HistoryRow, Protocol, Report, Verdict};
use crate::units::{age, human, timestamp};
use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

/// Events live an hour unless the API server's `--event-ttl` says otherwise.
pub(crate) const EVENT_TTL: SignedDuration = SignedDuration::from_hours(1);

/// The `history -o json|yaml` document.
#[derive(Debug, Serialize)]
pub(crate) struct HistoryDocument<'a> {
    pub clusters: Vec<ClusterHistory<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClusterHistory<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub verdict: Verdict,
    pub roll_started_at: Option<Timestamp>,
    /// The oldest event about the cluster or its nodes in view.
    pub events_since: Option<Timestamp>,
    /// The roll began over an hour ago (or when is unknown): some of its
    /// events have likely expired.
    pub events_may_have_expired: bool,
    /// Nodes in walk order.
    pub nodes: &'a [HistoryRow],
}

/// Events may be gone: the roll began longer ago than events live, or
/// when it began is not told while something rolled.
fn may_have_expired(c: &ClusterReport, now: Timestamp) -> bool {
    match c.history.started_at {
        Some(start) => now.duration_since(start) > EVENT_TTL,
        None => c.history.rows.iter().any(|r| r.partial),
    }
}

pub(crate) fn document(report: &Report, now: Timestamp) -> HistoryDocument<'_> {
    HistoryDocument {
        clusters: report
            .clusters
            .iter()
            .map(|c| ClusterHistory {
                namespace: &c.namespace,
                name: &c.name,
                verdict: c.verdict,
                roll_started_at: c.history.started_at,
                events_since: c.history.oldest_event,
                events_may_have_expired: may_have_expired(c, now),
                nodes: &c.history.rows,
            })
            .collect(),
    }
}

fn outcome_word(o: HistoryOutcome) -> &'static str {
    match o {
        HistoryOutcome::Rolled => "rolled",
        HistoryOutcome::Rolling => "rolling",
        HistoryOutcome::Stuck => "stuck now",
        HistoryOutcome::Waiting => "waiting",
        HistoryOutcome::Blocked => "blocked",
        HistoryOutcome::Skipped => "skipped",
    }
}

fn when(t: Option<Timestamp>) -> String {
    t.map_or_else(|| "-".to_string(), timestamp)
}

/// Every time of the rows falls on the UTC day of `start`.
fn same_day(start: Timestamp, rows: &[HistoryRow]) -> bool {
    let day = |t: Timestamp| t.strftime("%Y-%m-%d").to_string();
    let first = day(start);
    rows.iter()
        .flat_map(|r| [r.advanced_at, r.applied_at, r.ready_at])
        .flatten()
        .all(|t| day(t) == first)
}

/// Why the roles marked `?` are unsure, one line per note (`? NODE, NODE:
/// NOTE`), in the rows' order; the names cleaned. Nodes sharing a note
/// share its line.
pub(crate) fn role_notes(rows: &[HistoryRow]) -> Vec<String> {
    let mut notes: Vec<(String, Vec<String>)> = Vec::new();
    for r in rows {
        let Some(note) = &r.role_note else { continue };
        let note = note.to_string();
        match notes.iter_mut().find(|(n, _)| *n == note) {
            Some((_, nodes)) => nodes.push(clean(&r.node)),
            None => notes.push((note, vec![clean(&r.node)])),
        }
    }
    notes
        .into_iter()
        .map(|(note, nodes)| format!("? {}: {}", nodes.join(", "), clean(&note)))
        .collect()
}

/// Each grant by hand's record of what the servers said, beside its step:
/// `cache-0-0 advanced by alice at 10:16:11: the servers said shard 0: ...`.
pub(crate) fn servers_said(rows: &[HistoryRow]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| {
            let said = r.servers_said.as_deref()?;
            let by = r
                .advanced_by
                .as_deref()
                .map(|b| format!(" by {}", clean(b)))
                .unwrap_or_default();
            let at = r
                .advanced_at
                .map(|t| format!(" at {}", timestamp(t)))
                .unwrap_or_default();
            Some(format!(
                "{} advanced{by}{at}: the servers said {}",
                clean(&r.node),
                clean(said)
            ))
        })
        .collect()
}

/// One block per cluster: a line on the roll, the rows, and what is
/// missing and why.
pub(crate) fn table(report: &Report, now: Timestamp, screen: impl Into<Screen>) -> String {
    let screen: Screen = screen.into();
    let width = screen.width;
    let mut blocks = Vec::new();
    for c in &report.clusters {
        let lead = format!(
            "{}  {}  ",
            clean(&format!("{}/{}", c.namespace, c.name)),
            c.verdict.to_string().to_uppercase()
        );
        // Fitted to a terminal, times of the day the roll began are
        // written as times of day: the line above says which day.
        let day = c
            .history
            .started_at
            .filter(|start| width.is_some() && same_day(*start, &c.history.rows));
        let when = |t: Option<Timestamp>| match (t, day) {
            (Some(t), Some(_)) => t.strftime("%H:%M:%S").to_string(),
            (t, _) => when(t),
        };
        let mut began = match c.history.started_at {
            Some(start) => format!("roll began {} ({} ago)", timestamp(start), age(start, now)),
            None => "when the roll began is not told".to_string(),
        };
        if day.is_some() {
            began.push_str("; times below are of that day, UTC");
        }
        let location = clean(&format!("{}/{}", c.namespace, c.name));
        let verdict = c.verdict.to_string().to_uppercase();
        let mut out = match super::fit::heading(&[&location, &verdict], width) {
            // Too long for one line (a long name): the rest under it.
            Some(mut head) => {
                head.push_str(&paragraph(&began, width, "    ", "    "));
                head
            }
            None => paragraph(&began, width, &lead, "    "),
        };
        let rows = c
            .history
            .rows
            .iter()
            .map(|r| {
                let mark = if r.partial { "*" } else { "" };
                vec![
                    Cell::new(format!("{}{mark}", clean(&r.node))),
                    Cell::new(r.shard.map_or_else(|| "-".into(), |s| s.to_string())),
                    Cell::new(role_mark(r.role, r.role_unsure())),
                    Cell::new(when(r.advanced_at)),
                    Cell::new(clean_or_dash(r.advanced_by.as_deref())),
                    Cell::new(when(r.applied_at)),
                    Cell::new(when(r.ready_at)),
                    Cell::new(r.took_seconds.map_or_else(|| "-".into(), human)),
                    Cell::new(outcome_word(r.outcome)),
                ]
            })
            .collect();
        out.push('\n');
        // On a short line: the shard (the node's name says it), then its
        // role, the applied time and who advanced it go first.
        out.push_str(
            &Grid {
                header: vec![
                    "NODE",
                    "SHARD",
                    "ROLE",
                    // P1 grants a permit; P2 advances a node's revision.
                    if c.protocol == Protocol::P1 {
                        "GRANTED"
                    } else {
                        "ADVANCED"
                    },
                    "BY",
                    "APPLIED",
                    "READY",
                    "TOOK",
                    "OUTCOME",
                ],
                rank: vec![0, 4, 2, 0, 1, 3, 0, 0, 0],
                rows,
                last: Last::Fixed,
                indent: "",
            }
            .render(width, screen.color),
        );
        let notes = role_notes(&c.history.rows);
        if !notes.is_empty() {
            out.push('\n');
            for line in notes {
                out.push_str(&paragraph(&line, width, "", "  "));
            }
        }
        let said = servers_said(&c.history.rows);
        if !said.is_empty() {
            out.push('\n');
            for line in said {
                out.push_str(&paragraph(&line, width, "", "  "));
            }
        }
        if c.history.rows.iter().any(|r| r.partial) {
            out.push('\n');
            out.push_str(&paragraph(
                "* partial: an event this row needs is not in view (events expire, an hour by default)",
                width,
                "",
                "  ",
            ));
        }
        if may_have_expired(c, now) {
            let since = c
                .history
                .oldest_event
                .map(|t| format!(" (the oldest in view is from {})", timestamp(t)))
                .unwrap_or_default();
            out.push_str(&paragraph(
                &format!(
                    "Events expire (an hour by default), and this roll began longer ago: its earliest events may be gone{since}."
                ),
                width,
                "",
                "",
            ));
        }
        blocks.push(out);
    }
    blocks.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::report::RollHistory;

    fn t(s: &str) -> Timestamp {
        s.parse().expect("time")
    }

    fn row(node: &str, outcome: HistoryOutcome, partial: bool) -> HistoryRow {
        HistoryRow {
            node: node.into(),
            shard: Some(0),
            index: Some(1),
            role: Some(crate::report::Role::Replica),
            role_source: None,
            role_note: None,
            advanced_at: Some(t("2026-11-29T10:00:00Z")),
            advanced_by: Some("controller".into()),
            servers_said: None,
            applied_at: None,
            ready_at: Some(t("2026-11-29T10:02:10Z")),
            took_seconds: Some(130),
            outcome,
            partial,
        }
    }

    #[test]
    fn table_words_outcomes_and_says_what_is_missing() {
        let mut report = sample::jammed();
        report.clusters.truncate(1);
        report.clusters[0].history = RollHistory {
            started_at: Some(t("2026-11-29T09:00:00Z")),
            oldest_event: Some(t("2026-11-29T09:30:00Z")),
            rows: vec![
                row("cache-0-1", HistoryOutcome::Rolled, true),
                row("cache-1-1\u{1b}[2J", HistoryOutcome::Stuck, false),
            ],
        };
        let now = t("2026-11-29T10:16:00Z");
        let out = table(&report, now, false);
        for want in [
            "roll began 2026-11-29T09:00:00Z (1h16m ago)",
            "cache-0-1*",
            "2m10s",
            "rolled",
            "stuck now",
            "controller",
            "* partial",
            "the oldest in view is from 2026-11-29T09:30:00Z",
        ] {
            assert!(out.contains(want), "{want:?} in:\n{out}");
        }
        assert!(!out.contains('\u{1b}'), "cleaned:\n{out}");
        let doc = serde_json::to_value(document(&report, now)).expect("json");
        let c = &doc["clusters"][0];
        assert_eq!(c["eventsMayHaveExpired"], true);
        assert_eq!(c["rollStartedAt"], "2026-11-29T09:00:00Z");
        assert_eq!(c["nodes"][0]["outcome"], "rolled");
        assert_eq!(c["nodes"][0]["tookSeconds"], 130);
        assert_eq!(c["nodes"][0]["partial"], true);
        assert_eq!(c["nodes"][0]["appliedAt"], serde_json::Value::Null);
        // A recent roll: nothing said about expiry.
        let out = table(&report, t("2026-11-29T09:30:00Z"), false);
        assert!(!out.contains("longer ago"), "{out}");
    }

    /// A grant by hand's servers' line, cleaned, beside its step: in the
    /// table's notes and the document.
    #[test]
    fn a_hand_grant_says_what_the_servers_said() {
        let mut report = sample::jammed();
        report.clusters.truncate(1);
        let mut by_hand = row("cache-0-2", HistoryOutcome::Rolled, false);
        by_hand.advanced_by = Some("alice".into());
        by_hand.servers_said =
            Some("shard 0: cache-0-2 replica link up\u{1b}[2J; cache-0-0 primary".into());
        report.clusters[0].history = RollHistory {
            started_at: Some(t("2026-11-29T09:59:00Z")),
            oldest_event: Some(t("2026-11-29T09:59:00Z")),
            rows: vec![by_hand, row("cache-0-1", HistoryOutcome::Rolled, false)],
        };
        let now = t("2026-11-29T10:16:00Z");
        let out = table(&report, now, false);
        assert!(
            out.contains("cache-0-2 advanced by alice at 2026-11-29T10:00:00Z: the servers said shard 0: cache-0-2 replica link up"),
            "{out}"
        );
        assert!(!out.contains('\u{1b}'), "cleaned:\n{out}");
        assert_eq!(out.matches("the servers said").count(), 1, "{out}");
        let doc = serde_json::to_value(document(&report, now)).expect("json");
        assert!(
            doc["clusters"][0]["nodes"][0]["serversSaid"]
                .as_str()
                .is_some_and(|s| s.starts_with("shard 0: cache-0-2")),
            "{doc:#}"
        );
        assert_eq!(
            doc["clusters"][0]["nodes"][1]["serversSaid"],
            serde_json::Value::Null
        );
    }

    /// The judged role as status shows it: `?` where unsure, and why, once
    /// per note, under the table; the names in the note cleaned.
    #[test]
    fn unsure_roles_are_marked_and_said_why() {
        use crate::report::{Role, RoleNote};
        let mut report = sample::jammed();
        report.clusters.truncate(1);
        let note = RoleNote::Claimants {
            others: vec!["cache-0-0\u{1b}[2J".into()],
        };
        let mut rows = vec![
            row("cache-0-1", HistoryOutcome::Rolled, false),
            row("cache-0-0", HistoryOutcome::Waiting, false),
            row("cache-1-0", HistoryOutcome::Waiting, false),
            row("cache-1-1", HistoryOutcome::Waiting, false),
        ];
        rows[0].role_note = Some(note.clone());
        rows[1].role_note = Some(note.clone());
        rows[2].role = None;
        rows[2].role_note = Some(RoleNote::NoEvidence);
        rows[3].role = Some(Role::Primary);
        report.clusters[0].history = RollHistory {
            started_at: Some(t("2026-11-29T10:00:00Z")),
            oldest_event: None,
            rows,
        };
        let out = table(&report, t("2026-11-29T10:16:00Z"), false);
        let cells: Vec<(&str, &str)> = out
            .lines()
            .filter(|l| l.starts_with("cache-"))
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                Some((w.next()?, w.nth(1)?))
            })
            .collect();
        assert_eq!(
            cells,
            [
                ("cache-0-1", "replica?"),
                ("cache-0-0", "replica?"),
                ("cache-1-0", "?"),
                ("cache-1-1", "primary"),
            ],
            "{out}"
        );
        let notes: Vec<&str> = out.lines().filter(|l| l.starts_with("? ")).collect();
        assert_eq!(notes.len(), 2, "{out}");
        assert!(
            notes[0].starts_with(
                "? cache-0-1, cache-0-0: status.role says primary, as it does for cache-0-0\\u{1b}"
            ),
            "{out}"
        );
        assert!(notes[1].starts_with("? cache-1-0: "), "{out}");
        assert!(!out.contains('\u{1b}'), "cleaned:\n{out}");
        let doc = serde_json::to_value(document(&report, t("2026-11-29T10:16:00Z"))).expect("json");
        let n = &doc["clusters"][0]["nodes"];
        assert_eq!(n[0]["role"], "replica");
        assert!(
            n[0]["roleNote"]
                .as_str()
                .is_some_and(|s| s.starts_with("status.role says primary")),
            "{n}"
        );
        assert_eq!(n[3]["roleNote"], serde_json::Value::Null);
    }
}
