//! `explain`: one node, or one cluster, as facts, a timeline of events, the
//! reasoning behind its state in plain words, and what a person could do
//! next.
//!
//! The report carries the verdicts and the facts the classifier derived; the
//! snapshot's own objects (when in view) add what a person wants to see
//! as-is: the conditions and the ValkeyCluster's message.

use super::fit::{self, Cell, Grid, Last, Screen, paragraph, rewrap};
use super::style::{clean, clean_or_dash, paint, reason_cell, strong};
use super::table::{headline_after, state_cell};
use crate::report::{ClusterReport, NodeReport, TimelineEntry, Verdict};
use crate::snapshot::{Condition, LeaseRead, PreviousLog, ValkeyCluster, ValkeyNode};
use crate::units::{age, timestamp};
use jiff::Timestamp;
use serde::Serialize;
use std::fmt::Write as _;

mod cluster;
mod last_words;
mod node;

use cluster::{cluster_next_steps, cluster_reasoning};
use node::NodeProse;

/// `explain NODE -o json|yaml`: the node's entry of the status document with
/// its events added as `timeline`.
#[derive(Debug, Serialize)]
pub(crate) struct NodeExplanation<'a> {
    #[serde(flatten)]
    pub node: &'a NodeReport,
    pub timeline: &'a [TimelineEntry],
}

/// `explain CLUSTER -o json|yaml`: the cluster's entry of the status
/// document with its events added as `timeline`.
#[derive(Debug, Serialize)]
pub(crate) struct ClusterExplanation<'a> {
    #[serde(flatten)]
    pub cluster: &'a ClusterReport,
    pub timeline: &'a [TimelineEntry],
}

/// Everything known about one node, and why it got its state.
///
/// `object` is the ValkeyNode as read (for its conditions and workload
/// kind), when in view. `last_words`: the previous container's log of the
/// node's failing container as read (or why not), for a holder or front
/// with failure evidence; with it, and a failing container, the "Last
/// words" section follows the evidence.
pub(crate) fn explain_node(
    cluster: &ClusterReport,
    node: &NodeReport,
    object: Option<&ValkeyNode>,
    timeline: &[TimelineEntry],
    now: Timestamp,
    screen: impl Into<Screen>,
    last_words: Option<&PreviousLog>,
) -> String {
    let screen: Screen = screen.into();
    let (color, width) = (screen.color, screen.width);
    let x = NodeProse {
        cluster,
        node,
        object,
    };
    let mut out = String::new();
    let state_word = paint(
        &node.state.to_string().to_uppercase(),
        node.state.tone(),
        true,
        color,
    );
    let location = clean(&format!("{}/{}", cluster.namespace, node.name));
    match fit::heading(&["ValkeyNode", &location, &state_word], width) {
        Some(head) => out.push_str(&head),
        None => {
            let _ = writeln!(out, "ValkeyNode {location}  {state_word}");
        }
    }
    out.push_str(&paragraph(&clean(&x.place()), width, "  ", "  "));
    out.push_str(&paragraph(
        &clean(&crate::render::words::Said(&node.reason, cluster.protocol).to_string()),
        width,
        "  ",
        "  ",
    ));

    section(&mut out, "Facts", color);
    for (key, value) in x.facts(now) {
        let value = clean(&value);
        let first = format!("  {key:<18} ");
        // A value with a word too long for its place (a whole hash, a
        // long pod name) goes on the next line, less indented.
        match width {
            Some(w)
                if fit::words(&value)
                    .iter()
                    .any(|word| first.len() + fit::columns(word) > w) =>
            {
                out.push_str(first.trim_end());
                out.push('\n');
                out.push_str(&paragraph(&value, width, "    ", "    "));
            }
            _ => out.push_str(&paragraph(&value, width, &first, FACT_INDENT)),
        }
    }

    let mut future = Vec::new();
    if let Some(t) = node.granted_at.filter(|t| *t > now) {
        future.push((format!("its grant time ({})", node.granted_at_source), t));
    }
    future_conditions(
        object.map(ValkeyNode::conditions).unwrap_or_default(),
        now,
        &mut future,
    );
    future_events(timeline, now, &mut future);
    warnings(&mut out, &future, now, screen);

    section(&mut out, "Evidence", color);
    if node.evidence.is_empty() {
        out.push_str("  none\n");
    } else {
        let rows = node
            .evidence
            .iter()
            .map(|e| {
                vec![
                    Cell::new(e.kind.to_string()),
                    Cell::new(clean(
                        &crate::render::words::Found(&e.finding, cluster.protocol).to_string(),
                    )),
                ]
            })
            .collect();
        out.push_str(&wrapped(&["KIND", "MESSAGE"], &[0, 0], rows, screen));
    }

    if let Some(log) = last_words {
        let words = last_words::last_words(&cluster.namespace, node, log, now);
        if !words.is_empty() {
            section(&mut out, "Last words", color);
            out.push_str(&rewrap(&words, width));
        }
    }

    if let Some(object) = object {
        section(&mut out, "Conditions", color);
        out.push_str(&conditions(object.conditions(), now, screen));
    }

    section(&mut out, "Timeline", color);
    out.push_str(&timeline_table(timeline, now, screen));

    section(&mut out, &format!("Why {}", node.state), color);
    for text in x.reasoning(now) {
        out.push_str(&paragraph(&clean(&text), width, "  ", "  "));
    }

    section(&mut out, "What you could do next", color);
    for step in x.next_steps() {
        out.push_str(&step.render(width));
    }
    out
}

/// A table's last column wraps in its own column while it keeps this
/// much room; with less it goes under its row.
const WRAP_ROOM: usize = 24;

/// Where a fact's value goes on after its first line.
const FACT_INDENT: &str = "                     ";

/// A section's table: its last column wrapped at words (under each row
/// when little room is left), columns of rank above 0 left out first on
/// a short line.
fn wrapped(header: &[&str], rank: &[u8], rows: Vec<Vec<Cell>>, screen: Screen) -> String {
    Grid {
        header: header.to_vec(),
        rank: rank.to_vec(),
        rows,
        last: Last::Wrap { min: WRAP_ROOM },
        indent: "  ",
    }
    .render(screen.width, screen.color)
}

/// Why a cluster's queue is or is not moving: the holder, or the walk's
/// front and why, or the ValkeyCluster's own word.
///
/// `object` is the ValkeyCluster as read (for its conditions and message),
/// when in view. `last_words`: the holder (or the front) with failure
/// evidence and its previous container's log as read, shown as "Last
/// words of NODE" after the reasoning.
pub(crate) fn explain_cluster(
    cluster: &ClusterReport,
    object: Option<&ValkeyCluster>,
    timeline: &[TimelineEntry],
    now: Timestamp,
    screen: impl Into<Screen>,
    last_words: Option<(&NodeReport, &PreviousLog)>,
    lease: Option<&LeaseRead>,
) -> String {
    let screen: Screen = screen.into();
    let (color, width) = (screen.color, screen.width);
    let mut out = headline_after("ValkeyCluster ", cluster, color, width);

    let why = match cluster.verdict {
        Verdict::Converged => "Why it is at rest",
        Verdict::Rolling => "Why the queue is moving",
        _ => "Why the queue is not moving",
    };
    section(&mut out, why, color);
    for text in cluster_reasoning(cluster, object) {
        out.push_str(&paragraph(&clean(&text), width, "  ", "  "));
    }
    if let Some(lease) = lease {
        let _ = writeln!(out, "  {}", clean(&cluster::lease_line(lease, now)));
    }
    if let Some((node, log)) = last_words {
        let words = last_words::last_words(&cluster.namespace, node, log, now);
        if !words.is_empty() {
            let title = format!("Last words of {}", clean(&node.name));
            match width {
                // A long name goes under the title, less indented.
                Some(w) if fit::columns(&title) > w => {
                    section(&mut out, "Last words", color);
                    out.push_str(&paragraph(&title["Last words ".len()..], width, "  ", "  "));
                }
                _ => section(&mut out, &title, color),
            }
            out.push_str(&rewrap(&words, width));
        }
    }

    let mut future = Vec::new();
    let conditions_of = object.map(ValkeyCluster::conditions).unwrap_or_default();
    future_conditions(conditions_of, now, &mut future);
    future_events(timeline, now, &mut future);
    warnings(&mut out, &future, now, screen);

    if let Some(object) = object {
        section(&mut out, "Conditions", color);
        out.push_str(&conditions(object.conditions(), now, screen));
    }

    section(&mut out, "Nodes, in walk order", color);
    if cluster.nodes.is_empty() {
        out.push_str("  none\n");
    } else {
        let rows = cluster
            .nodes
            .iter()
            .map(|n| {
                vec![
                    Cell::new(clean(&n.name)),
                    state_cell(n.state, color),
                    Cell::new(
                        n.queue_position
                            .map_or_else(|| "-".into(), |q| q.to_string()),
                    ),
                    Cell::new(reason_cell(
                        &crate::render::words::Said(&n.reason, cluster.protocol).to_string(),
                    )),
                ]
            })
            .collect();
        out.push_str(&wrapped(
            &["NODE", "STATE", "QUEUE", "REASON"],
            &[0, 0, 1, 0],
            rows,
            screen,
        ));
    }

    section(&mut out, "Timeline", color);
    out.push_str(&timeline_table(timeline, now, screen));

    section(&mut out, "What you could do next", color);
    for step in cluster_next_steps(cluster) {
        out.push_str(&step.render(width));
    }
    out
}

/// Conditions whose lastTransitionTime lies after `now`.
fn future_conditions(
    conditions: &[Condition],
    now: Timestamp,
    found: &mut Vec<(String, Timestamp)>,
) {
    for c in conditions {
        if let Some(t) = c
            .last_transition_time
            .as_ref()
            .map(|t| t.0)
            .filter(|t| *t > now)
        {
            found.push((format!("its {} condition's lastTransitionTime", c.type_), t));
        }
    }
}

/// Events of the timeline whose time lies after `now`.
fn future_events(timeline: &[TimelineEntry], now: Timestamp, found: &mut Vec<(String, Timestamp)>) {
    for e in timeline {
        if let Some(t) = e.time.filter(|t| *t > now) {
            found.push((format!("the {} event's time", e.reason), t));
        }
    }
}

/// The times of the story that lie after `now`, as a Warnings section.
/// Every duration counts such a time as now (none is ever negative), so
/// one of them may have decided the state: a hold time, a not-Ready time
/// or a quiet time of 0 keeps a node from turning Stuck or a wait from
/// turning Stalled. A time far in the future is a fact; this says so, and
/// what follows.
fn warnings(out: &mut String, future: &[(String, Timestamp)], now: Timestamp, screen: Screen) {
    if future.is_empty() {
        return;
    }
    section(out, "Warnings", screen.color);
    for (what, t) in future {
        let line = format!(
            "{what} is in the future ({}, now {}): it is counted as now, so every duration \
             measured from it is 0s, and the state may be judged from that (check the clocks, \
             or who edited the object)",
            timestamp(*t),
            timestamp(now)
        );
        out.push_str(&paragraph(&clean(&line), screen.width, "  ", "  "));
    }
}

fn section(out: &mut String, title: &str, color: bool) {
    out.push('\n');
    // A title may name a node (`Last words of NODE`).
    out.push_str(&strong(&fit::bounded(title), color));
    out.push('\n');
}

fn conditions(conditions: &[Condition], now: Timestamp, screen: Screen) -> String {
    if conditions.is_empty() {
        return "  none\n".into();
    }
    let rows = conditions
        .iter()
        .map(|c| {
            let text = |s: &Option<String>| clean_or_dash(s.as_deref());
            vec![
                Cell::new(clean(&c.type_)),
                Cell::new(clean(&c.status)),
                Cell::new(text(&c.reason)),
                Cell::new(
                    c.last_transition_time
                        .as_ref()
                        .map_or_else(|| "-".into(), |t| age(t.0, now)),
                ),
                Cell::new(text(&c.message)),
            ]
        })
        .collect();
    wrapped(
        &["TYPE", "STATUS", "REASON", "AGE", "MESSAGE"],
        &[0, 0, 0, 1, 0],
        rows,
        screen,
    )
}

fn timeline_table(timeline: &[TimelineEntry], now: Timestamp, screen: Screen) -> String {
    if timeline.is_empty() {
        return "  no events found (events expire, after one hour by default)\n".into();
    }
    let rows = timeline
        .iter()
        .map(|e| {
            vec![
                Cell::new(e.time.map_or_else(|| "-".into(), timestamp)),
                Cell::new(e.time.map_or_else(|| "-".into(), |t| age(t, now))),
                Cell::new(clean(&e.reason)),
                Cell::new(clean(&e.regarding)),
                Cell::new(clean(&crate::render::words::timeline_message(e))),
            ]
        })
        .collect();
    // On a short line the time of day goes first: the age stays.
    wrapped(
        &["TIME", "AGE", "REASON", "ABOUT", "MESSAGE"],
        &[2, 0, 0, 1, 0],
        rows,
        screen,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::render::json::to_json;
    use crate::report::{Evidence, EvidenceKind, NodeState, Protocol};
    use crate::report::{Finding, Role, RoleNote, RoleSource, Unhealthy};

    fn jammed() -> ClusterReport {
        sample::jammed().clusters.remove(0)
    }

    fn node<'a>(cluster: &'a ClusterReport, name: &str) -> &'a NodeReport {
        &cluster.nodes[index_of(cluster, name)]
    }

    fn index_of(cluster: &ClusterReport, name: &str) -> usize {
        cluster
            .nodes
            .iter()
            .position(|n| n.name == name)
            .unwrap_or_else(|| panic!("no node {name}"))
    }

    /// explain NODE's `role` row, its words one space apart.
    fn role_row_of(cluster: &ClusterReport, name: &str) -> String {
        let out = explain_node(
            cluster,
            node(cluster, name),
            None,
            &[],
            sample::now(),
            false,
            None,
        );
        out.lines()
            .find(|l| l.trim_start().starts_with("role "))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| panic!("no role row in:\n{out}"))
    }

    /// The jammed sample's stuck holder, cache-1-1, with its timeline.
    fn stuck_node_explained() -> String {
        let cluster = jammed();
        explain_node(
            &cluster,
            node(&cluster, "cache-1-1"),
            None,
            &sample::stuck_timeline(),
            sample::now(),
            false,
            None,
        )
    }

    #[test]
    fn stuck_node_snapshot() {
        let out = stuck_node_explained();
        insta::assert_snapshot!(out);
    }

    #[test]
    fn jammed_cluster_snapshot() {
        let cluster = jammed();
        let out = explain_cluster(
            &cluster,
            None,
            &sample::stuck_timeline(),
            sample::now(),
            false,
            None,
            None,
        );
        insta::assert_snapshot!(out);
    }

    #[test]
    fn stuck_node_says_what_to_do() {
        let out = stuck_node_explained();
        for want in [
            "CrashLoopBackOff",
            "2026-11-29T10:02:11Z (14m ago; source: event)",
            "not available",
            "managedFields",
            "4 nodes wait behind it",
            "kubectl logs valkey-cache-1-1-0 -n prod --previous",
            "kubectl valkey-roll revoke cache-1-1 -n prod",
            "kubectl valkey-roll force cache-0-0 -n prod --takeover",
            "WorkloadRollPermitted",
        ] {
            assert!(out.contains(want), "{want:?} missing from:\n{out}");
        }
    }

    #[test]
    fn state_specific_prose() {
        let cluster = jammed();
        let mut superseded = node(&cluster, "cache-1-1").clone();
        superseded.evidence.push(Evidence::new(
            EvidenceKind::SupersededPod,
            Finding::SupersededPod {
                pod: "valkey-cache-1-1-0".into(),
                not_ready_for: 300,
                pod_revision: "old".into(),
                update_revision: "new".into(),
            },
        ));
        superseded.facts.pod_superseded_not_ready = true;
        // The predicate without the evidence's two minutes: still offered.
        let mut just_trapped = node(&cluster, "cache-1-1").clone();
        just_trapped.facts.pod_superseded_not_ready = true;
        let mut p2 = cluster.clone();
        p2.protocol = Protocol::P2;
        let mut blocking = node(&cluster, "cache-0-1").clone();
        blocking.state = NodeState::Blocking;
        blocking.facts.healthy = false;
        blocking.facts.unhealthy_because = vec![Unhealthy::LiveConfigNotApplied];
        let mut front = cluster.clone();
        front.front = Some("cache-0-1".into());

        // (name, cluster, node, must appear, must not appear)
        type Case<'a> = (
            &'a str,
            &'a ClusterReport,
            NodeReport,
            &'a [&'a str],
            &'a [&'a str],
        );
        let cases: Vec<Case> = vec![
            (
                "superseded pod trap",
                &cluster,
                superseded,
                &[
                    "will not replace",
                    "even after the template is reverted",
                    "kubernetes#67250",
                    "valkey-operator#408",
                    "kubectl valkey-roll replace-pod cache-1-1 -n prod --reason \"...\"",
                ],
                &["kubectl delete pod"],
            ),
            (
                "the predicate holds: replace-pod is offered",
                &cluster,
                just_trapped,
                &["kubectl valkey-roll replace-pod cache-1-1 -n prod --reason"],
                &[],
            ),
            (
                "the predicate does not hold: no replace-pod",
                &cluster,
                node(&cluster, "cache-1-1").clone(),
                &[],
                &["replace-pod"],
            ),
            (
                "P2 has no revoke",
                &p2,
                node(&cluster, "cache-1-1").clone(),
                &["There is no revoke in protocol P2"],
                &["valkey-roll revoke", "force"],
            ),
            (
                "waiting: queue and who is ahead",
                &cluster,
                node(&cluster, "cache-1-0").clone(),
                &[
                    "queue position 2",
                    "The permit is held by cache-1-1",
                    "Ahead of it: cache-0-0 (Waiting)",
                    "kubectl valkey-roll explain cache-1-1 -n prod",
                ],
                &["valkey-roll grant"],
            ),
            (
                "waiting at the front",
                &cluster,
                node(&cluster, "cache-0-0").clone(),
                &["it is the walk's front"],
                &[],
            ),
            (
                "blocking",
                &front,
                blocking,
                &[
                    "live config not applied (LiveConfigApplied=False)",
                    "walk stops at the first node that is not healthy",
                    "It is the walk's front: 4 nodes wait behind it",
                ],
                &["revoke"],
            ),
            (
                "converged",
                &cluster,
                node(&cluster, "cache-0-1").clone(),
                &["nothing to do", "- Nothing."],
                &["revoke", "grant"],
            ),
        ];
        for (name, cluster, node, wants, unwanted) in cases {
            let out = explain_node(cluster, &node, None, &[], sample::now(), false, None);
            sample::assert_says(name, &out, wants, unwanted);
        }
    }

    /// A node late in a long walk names the first ten ahead of it and
    /// counts the rest (the dashboard sends every node's explanation).
    #[test]
    fn a_long_queue_ahead_is_named_in_part() {
        let mut cluster = jammed();
        let waiting = node(&cluster, "cache-1-0").clone();
        let mut nodes = Vec::new();
        for i in 0..25 {
            let mut n = waiting.clone();
            n.name = format!("cache-9-{i}");
            nodes.push(n);
        }
        nodes.push(waiting.clone());
        cluster.nodes = nodes;
        let out = explain_node(&cluster, &waiting, None, &[], sample::now(), false, None);
        let line = out
            .lines()
            .find(|l| l.contains("Ahead of it:"))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(
            line.contains("cache-9-9 (Waiting), and 15 more (status lists them all)."),
            "{line}"
        );
        assert!(!line.contains("cache-9-10"), "{line}");
        assert_eq!(line.matches("(Waiting)").count(), 10, "{line}");
    }

    /// The `?` of a role is said in words (the note), with where the role
    /// came from; a settled role names its source alone.
    #[test]
    fn a_role_row_says_its_source_and_why_it_is_unsure() {
        let mut cluster = jammed();
        let i = index_of(&cluster, "cache-0-1");
        cluster.nodes[i].role = Some(Role::Primary);
        cluster.nodes[i].role_source = Some(RoleSource::Status);
        cluster.nodes[i].role_note = Some(RoleNote::Claimants {
            others: vec!["cache-0-0".into()],
        });
        assert_eq!(
            role_row_of(&cluster, "cache-0-1"),
            "role primary? (from its status.role): status.role says primary, as it does \
             for cache-0-0; nothing newer picks one"
        );
        cluster.nodes[i].role = Some(Role::Replica);
        cluster.nodes[i].role_source = Some(RoleSource::Event);
        cluster.nodes[i].role_note = None;
        assert_eq!(
            role_row_of(&cluster, "cache-0-1"),
            "role replica (from the operator's events)"
        );
    }

    /// Which way the operator writes status.role is said where the walk
    /// rests on the judged roles, and on a role row taken from it; the
    /// servers, where read, are named first.
    #[test]
    fn the_operator_s_way_with_status_role_is_said_where_a_role_rests_on_it() {
        let reasoning = |cluster: &ClusterReport| {
            explain_cluster(cluster, None, &[], sample::now(), false, None, None)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut cluster = jammed();
        let i = index_of(&cluster, "cache-0-1");
        cluster.nodes[i].role = Some(Role::Primary);
        cluster.nodes[i].role_source = Some(RoleSource::Status);
        cluster.nodes[i].role_note = None;
        let cases = [
            (
                false,
                "role primary (from its status.role)",
                "ready node judged primary: from the operator's events (slots given, \
                 failovers completed), the walk and replaced pods, and status.role only \
                 where nothing newer speaks (this operator's status.role lags failovers",
            ),
            (
                true,
                "role primary (from its status.role, which this operator writes live)",
                "and status.role, which this operator writes live from each server (v0.6.0 \
                 on).",
            ),
        ];
        for (live, want_row, want_reasoning) in cases {
            cluster.status_role_live = live;
            assert_eq!(role_row_of(&cluster, "cache-0-1"), want_row, "live {live}");
            let said = reasoning(&cluster);
            assert!(said.contains(want_reasoning), "live {live}: {said}");
        }
        cluster.nodes[i].role_source = Some(RoleSource::Server);
        let said = reasoning(&cluster);
        assert!(
            said.contains(
                "ready node judged primary: from each node's own server where it was read, \
                 else from the operator's events"
            ),
            "{said}"
        );
    }

    #[test]
    fn no_events_says_they_may_have_expired() {
        let cluster = jammed();
        let out = explain_node(
            &cluster,
            node(&cluster, "cache-0-1"),
            None,
            &[],
            sample::now(),
            false,
            None,
        );
        assert!(out.contains("no events found (events expire"), "{out}");
    }

    #[test]
    fn conditions_from_the_object() {
        let cluster = jammed();
        let object: ValkeyNode = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "cache-1-1", "namespace": "prod"},
            "status": {"conditions": [{
                "type": "Ready", "status": "False", "reason": "PodNotReady",
                "message": "pod is not ready", "lastTransitionTime": "2026-11-29T10:04:11Z"
            }]}
        }))
        .unwrap();
        let out = explain_node(
            &cluster,
            node(&cluster, "cache-1-1"),
            Some(&object),
            &[],
            sample::now(),
            false,
            None,
        );
        assert!(
            out.contains("Ready  False   PodNotReady  12m  pod is not ready"),
            "{out}"
        );
    }

    #[test]
    fn stalled_cluster_names_front_and_why() {
        let mut cluster = sample::converged().clusters.remove(0);
        cluster.verdict = Verdict::Stalled;
        cluster.front = Some("sessions-0-1".into());
        cluster.quiet_for_seconds = Some(1800);
        cluster.nodes[0].state = NodeState::Blocking;
        cluster.nodes[0].facts.unhealthy_because = vec![Unhealthy::GenerationNotObserved {
            generation: 4,
            observed: 3,
        }];
        let out = explain_cluster(&cluster, None, &[], sample::now(), false, None, None);
        for want in [
            "Why the queue is not moving",
            "The walk's front, sessions-0-1, is Blocking",
            "generation 4 not observed (observed 3)",
            "Nothing has moved for 30m",
            "valkey-roll explain sessions-0-1 -n prod",
        ] {
            assert!(out.contains(want), "{want:?} missing from:\n{out}");
        }

        cluster.front = None;
        cluster.nodes[0].state = NodeState::Converged;
        cluster.state = Some("Reconciling".into());
        cluster.state_reason = Some("UpdatingNodes".into());
        let out = explain_cluster(&cluster, None, &[], sample::now(), false, None, None);
        assert!(
            out.contains("reports that it is not done (state Reconciling/UpdatingNodes)"),
            "{out}"
        );
    }

    #[test]
    fn colour_only_when_asked() {
        let cluster = jammed();
        let stuck = node(&cluster, "cache-1-1");
        let timeline = sample::stuck_timeline();
        let plain = explain_node(&cluster, stuck, None, &timeline, sample::now(), false, None);
        assert!(!plain.contains('\u{1b}'));
        let plain = explain_cluster(&cluster, None, &timeline, sample::now(), false, None, None);
        assert!(!plain.contains('\u{1b}'));
        let coloured = explain_node(&cluster, stuck, None, &timeline, sample::now(), true, None);
        assert!(coloured.contains('\u{1b}'));
    }

    #[test]
    fn json_entry_is_the_status_entry_plus_timeline() {
        let cluster = jammed();
        let stuck = node(&cluster, "cache-1-1");
        let timeline = sample::stuck_timeline();
        let entry: serde_json::Value = serde_json::from_str(
            &to_json(&NodeExplanation {
                node: stuck,
                timeline: &timeline,
            })
            .unwrap(),
        )
        .unwrap();
        let mut status_entry = serde_json::to_value(stuck).unwrap();
        let serde_json::Value::Object(map) = &mut status_entry else {
            panic!("a node entry is an object")
        };
        map.insert("timeline".into(), serde_json::to_value(&timeline).unwrap());
        assert_eq!(entry, status_entry);
        assert_eq!(entry["timeline"][1]["reason"], "WorkloadRollPermitted");

        let entry: serde_json::Value = serde_json::from_str(
            &to_json(&ClusterExplanation {
                cluster: &cluster,
                timeline: &[],
            })
            .unwrap(),
        )
        .unwrap();
        assert_eq!(entry["verdict"], "Jammed");
        assert_eq!(entry["timeline"], serde_json::json!([]));
        assert_eq!(entry["nodes"].as_array().map(Vec::len), Some(6));
    }
}
