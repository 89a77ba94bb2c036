//! The roll estimate (issue 14): the median time from a node's advance to
//! its pod Ready, over the finished nodes of the current roll, times the
//! nodes still to go, plus the holder's remaining share. Never a verdict.

use super::*;
use crate::fixture::{event_node_updated, event_permitted, t};

const H: &str = "9f2c41ab03de77c0e1f2aa5500112233";

/// A node of the current roll that finished: advanced (the controller's
/// event) at `adv`, its pod Ready at `ready`, at rest since.
fn finished(c: ClusterBuilder, name: &str, index: u32, adv: i64, ready: i64) -> ClusterBuilder {
    c.node(
        healthy(name, 0, index)
            .last_rollout_hash(H)
            .pod_ready_since(t(ready)),
    )
    .event(event_permitted(NS, CL, name, H, t(adv)))
}

/// A node that asks for H since t(0) and waits its turn.
fn waiting(name: &str, index: u32) -> NodeBuilder {
    healthy(name, 0, index).desired(H).drift(H, t(0))
}

/// The holder, advanced by the controller at `adv`, its pod rolling.
fn holder(c: ClusterBuilder, name: &str, index: u32, adv: i64) -> ClusterBuilder {
    c.node(healthy(name, 0, index).permit(H).desired(H).drift(H, t(0)))
        .event(event_permitted(NS, CL, name, H, t(adv)))
}

#[test]
fn estimates_by_case() {
    type Row = (
        &'static str,
        ClusterBuilder,
        i64,
        Verdict,
        (Option<u64>, Option<u64>, Option<usize>),
    );
    let rows: Vec<Row> = vec![
        (
            "a roll of 4: two finished (120s, 140s), one rolling 30s, one to go",
            holder(
                finished(
                    finished(
                        cluster().node(waiting("cache-0-0", 0)),
                        "cache-0-1",
                        1,
                        10,
                        130,
                    ),
                    "cache-0-2",
                    2,
                    140,
                    280,
                ),
                "cache-0-3",
                3,
                290,
            ),
            320,
            Verdict::Rolling,
            // median 130; 1 to go; the holder has 100s left.
            (Some(130), Some(230), Some(2)),
        ),
        (
            "three finished, odd count: the middle one; the holder over its share adds nothing",
            holder(
                finished(
                    finished(
                        finished(
                            cluster().node(waiting("cache-0-0", 0)),
                            "cache-0-1",
                            1,
                            10,
                            70,
                        ),
                        "cache-0-2",
                        2,
                        80,
                        380,
                    ),
                    "cache-0-3",
                    3,
                    390,
                    490,
                ),
                "cache-0-4",
                4,
                500,
            ),
            700,
            Verdict::Rolling,
            (Some(100), Some(100), Some(3)),
        ),
        (
            "between two nodes, nothing holds: Waiting, two to go",
            finished(
                finished(
                    cluster()
                        .node(waiting("cache-0-0", 0))
                        .node(waiting("cache-0-3", 3)),
                    "cache-0-1",
                    1,
                    10,
                    70,
                ),
                "cache-0-2",
                2,
                80,
                170,
            ),
            180,
            Verdict::Waiting,
            // median (60, 90) = 75; 2 to go.
            (Some(75), Some(150), Some(2)),
        ),
        (
            "a node advanced by hand: its trace's granted-at starts its turn",
            finished(
                cluster()
                    .node(waiting("cache-0-0", 0))
                    .node(waiting("cache-0-3", 3))
                    .node(
                        healthy("cache-0-2", 0, 2)
                            .last_rollout_hash(H)
                            .trace(H, "alice", t(100), "canary")
                            .pod_ready_since(t(150)),
                    ),
                "cache-0-1",
                1,
                10,
                80,
            ),
            160,
            Verdict::Waiting,
            // median (70, 50) = 60; 2 to go.
            (Some(60), Some(120), Some(2)),
        ),
        (
            "one finished: an estimate on one node (the headline waits for two)",
            holder(
                finished(
                    cluster().node(waiting("cache-0-0", 0)),
                    "cache-0-1",
                    1,
                    10,
                    70,
                ),
                "cache-0-2",
                2,
                80,
            ),
            90,
            Verdict::Rolling,
            (Some(60), Some(110), Some(1)),
        ),
        (
            "the first node rolling: nothing finished, nothing known",
            holder(cluster().node(waiting("cache-0-0", 0)), "cache-0-1", 1, 10),
            30,
            Verdict::Rolling,
            (None, None, Some(0)),
        ),
        (
            "a node from an earlier roll does not count",
            holder(
                finished(
                    finished(
                        cluster().node(waiting("cache-0-0", 0)),
                        "cache-0-1",
                        1,
                        10,
                        70,
                    ),
                    "cache-0-2",
                    2,
                    -7200,
                    -7000,
                ),
                "cache-0-3",
                3,
                80,
            ),
            90,
            Verdict::Rolling,
            (Some(60), Some(110), Some(1)),
        ),
        (
            "a roll that jammed half-way: no estimate",
            finished(
                finished(
                    cluster().node(waiting("cache-0-0", 0)),
                    "cache-0-1",
                    1,
                    10,
                    70,
                ),
                "cache-0-2",
                2,
                80,
                170,
            )
            .node(
                healthy("cache-0-3", 0, 3)
                    .permit(H)
                    .desired(H)
                    .drift(H, t(0))
                    .pod_waiting("CrashLoopBackOff", 4),
            )
            .event(event_permitted(NS, CL, "cache-0-3", H, t(180))),
            300,
            Verdict::Jammed,
            (None, None, None),
        ),
        (
            "stalled with only waiting nodes: still an estimate",
            finished(
                finished(
                    cluster().node(waiting("cache-0-0", 0)),
                    "cache-0-1",
                    1,
                    10,
                    70,
                ),
                "cache-0-2",
                2,
                80,
                170,
            ),
            2000,
            Verdict::Stalled,
            (Some(75), Some(75), Some(2)),
        ),
        (
            "stalled behind a blocking node: no estimate",
            finished(
                finished(
                    cluster()
                        .node(waiting("cache-0-0", 0))
                        .node(healthy("cache-0-3", 0, 3).not_ready(t(175))),
                    "cache-0-1",
                    1,
                    10,
                    70,
                ),
                "cache-0-2",
                2,
                80,
                170,
            ),
            2000,
            Verdict::Stalled,
            (None, None, None),
        ),
        (
            "every node rolled, the ValkeyCluster alone not done: no time to go",
            fixture::cluster(NS, CL)
                .image_edited("valkey/valkey:9.0.1", t(0))
                .updating_nodes(t(0))
                .node(
                    healthy("cache-0-1", 0, 1)
                        .image("valkey/valkey:9.0.1")
                        .pod_ready_since(t(70)),
                )
                .node(
                    healthy("cache-0-2", 0, 2)
                        .image("valkey/valkey:9.0.1")
                        .pod_ready_since(t(170)),
                )
                .event(event_node_updated(NS, CL, "cache-0-1", t(10)))
                .event(event_node_updated(NS, CL, "cache-0-2", t(80))),
            200,
            Verdict::Waiting,
            (Some(75), None, Some(2)),
        ),
        (
            "at rest: no estimate",
            finished(
                finished(cluster(), "cache-0-1", 1, 10, 70),
                "cache-0-2",
                2,
                80,
                170,
            ),
            2000,
            Verdict::Converged,
            (None, None, None),
        ),
    ];
    for (name, c, now, verdict, want) in rows {
        let r = judge(&c.snapshot(), t(now));
        assert_eq!(r.verdict, verdict, "{name}: {}", r.reason);
        assert_eq!(
            (r.per_node_seconds, r.eta_seconds, r.eta_basis),
            want,
            "{name}"
        );
    }
}

#[test]
fn a_spec_driven_roll_counts_from_the_controllers_update() {
    // P1 Spec-driven: the ValkeyCluster's image edited at t(0); two nodes
    // advanced (ValkeyNodeUpdated) and rolled, one still behind.
    const OLD: &str = "valkey/valkey:9.0.0";
    const NEW: &str = "valkey/valkey:9.0.1";
    let c = fixture::cluster(NS, CL)
        .ready_for_generation()
        .image_edited(NEW, t(0))
        .node(healthy("cache-0-0", 0, 0).image(OLD))
        .node(
            healthy("cache-0-1", 0, 1)
                .image(NEW)
                .pod_ready_since(t(100)),
        )
        .node(
            healthy("cache-0-2", 0, 2)
                .image(NEW)
                .pod_ready_since(t(260)),
        )
        .event(event_node_updated(NS, CL, "cache-0-1", t(10)))
        .event(event_node_updated(NS, CL, "cache-0-2", t(120)));
    let r = judge(&c.snapshot(), t(270));
    assert_eq!(r.verdict, Verdict::Waiting, "{}", r.reason);
    // median (90, 140) = 115; one node behind.
    assert_eq!(
        (r.per_node_seconds, r.eta_seconds, r.eta_basis),
        (Some(115), Some(115), Some(2))
    );
}

/// `history`'s rows: (node, advanced at, by, applied at, ready at, took,
/// outcome, partial), in walk order.
type Want = (
    &'static str,
    Option<i64>,
    Option<&'static str>,
    Option<i64>,
    Option<i64>,
    Option<u64>,
    crate::report::HistoryOutcome,
    bool,
);

#[test]
fn history_rows_by_case() {
    use crate::fixture::event_applied;
    use crate::report::HistoryOutcome::*;
    // (case, cluster, now, the roll's start, the rows)
    type Case = (&'static str, ClusterBuilder, i64, Option<i64>, Vec<Want>);
    let rows: Vec<Case> = vec![
        (
            "a roll of 4, half done: rolled, rolled, rolling, waiting",
            holder(
                finished(
                    finished(
                        cluster().node(waiting("cache-0-0", 0)),
                        "cache-0-1",
                        1,
                        10,
                        130,
                    )
                    .event(event_applied(NS, "cache-0-1", H, t(12))),
                    "cache-0-2",
                    2,
                    140,
                    280,
                )
                .event(event_applied(NS, "cache-0-2", H, t(141))),
                "cache-0-3",
                3,
                290,
            ),
            320,
            Some(0),
            vec![
                (
                    "cache-0-1",
                    Some(10),
                    Some("controller"),
                    Some(12),
                    Some(130),
                    Some(120),
                    Rolled,
                    false,
                ),
                (
                    "cache-0-2",
                    Some(140),
                    Some("controller"),
                    Some(141),
                    Some(280),
                    Some(140),
                    Rolled,
                    false,
                ),
                (
                    "cache-0-3",
                    Some(290),
                    Some("controller"),
                    None,
                    None,
                    None,
                    Rolling,
                    false,
                ),
                ("cache-0-0", None, None, None, None, None, Waiting, false),
            ],
        ),
        (
            "a node advanced by hand names the person; expired events make a row partial",
            cluster()
                .node(waiting("cache-0-0", 0))
                .node(
                    healthy("cache-0-2", 0, 2)
                        .last_rollout_hash(H)
                        .trace(H, "alice", t(100), "canary")
                        .pod_ready_since(t(150)),
                )
                .node(healthy("cache-0-1", 0, 1).last_rollout_hash(H)),
            160,
            Some(0),
            vec![
                // cache-0-1 rolled, but every event of its turn is gone: at
                // rest with nothing in view, it reads as skipped.
                ("cache-0-1", None, None, None, None, None, Skipped, false),
                (
                    "cache-0-2",
                    Some(100),
                    Some("alice"),
                    None,
                    Some(150),
                    Some(50),
                    Rolled,
                    true,
                ),
                ("cache-0-0", None, None, None, None, None, Waiting, false),
            ],
        ),
        (
            "a roll that jammed half-way: stuck now, and the rest wait",
            finished(
                cluster().node(waiting("cache-0-0", 0)),
                "cache-0-1",
                1,
                10,
                70,
            )
            .event(event_applied(NS, "cache-0-1", H, t(11)))
            .node(
                healthy("cache-0-2", 0, 2)
                    .permit(H)
                    .desired(H)
                    .drift(H, t(0))
                    .pod_waiting("CrashLoopBackOff", 4),
            )
            .event(event_permitted(NS, CL, "cache-0-2", H, t(80))),
            300,
            Some(0),
            vec![
                (
                    "cache-0-1",
                    Some(10),
                    Some("controller"),
                    Some(11),
                    Some(70),
                    Some(60),
                    Rolled,
                    false,
                ),
                (
                    "cache-0-2",
                    Some(80),
                    Some("controller"),
                    None,
                    None,
                    None,
                    Stuck,
                    false,
                ),
                ("cache-0-0", None, None, None, None, None, Waiting, false),
            ],
        ),
        (
            "a holder whose advance expired: partial",
            cluster().node(waiting("cache-0-0", 0)).node(
                healthy("cache-0-1", 0, 1)
                    .permit(H)
                    .desired(H)
                    .drift(H, t(0)),
            ),
            30,
            Some(0),
            vec![
                ("cache-0-1", None, None, None, None, None, Rolling, true),
                ("cache-0-0", None, None, None, None, None, Waiting, false),
            ],
        ),
    ];
    type Owned = (
        String,
        Option<i64>,
        Option<String>,
        Option<i64>,
        Option<i64>,
        Option<u64>,
        crate::report::HistoryOutcome,
        bool,
    );
    for (name, c, now, started, want) in rows {
        let r = judge(&c.snapshot(), t(now));
        assert_eq!(r.history.started_at, started.map(t), "{name}: start");
        let secs = |x: Option<Timestamp>| x.map(|x| x.as_second() - t(0).as_second());
        let got: Vec<Owned> = r
            .history
            .rows
            .iter()
            .map(|h| {
                (
                    h.node.clone(),
                    secs(h.advanced_at),
                    h.advanced_by.clone(),
                    secs(h.applied_at),
                    secs(h.ready_at),
                    h.took_seconds,
                    h.outcome,
                    h.partial,
                )
            })
            .collect();
        let want: Vec<Owned> = want
            .into_iter()
            .map(|(n, a, b, ap, rd, took, o, p)| {
                (n.to_string(), a, b.map(str::to_string), ap, rd, took, o, p)
            })
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// cache-0-1 advanced at `adv` and Ready since `ready`; cache-0-0 waits.
fn one_rolled(adv: Timestamp, ready: Timestamp) -> ClusterBuilder {
    cluster()
        .node(waiting("cache-0-0", 0))
        .node(
            healthy("cache-0-1", 0, 1)
                .last_rollout_hash(H)
                .pod_ready_since(ready),
        )
        .event(event_permitted(NS, CL, "cache-0-1", H, adv))
}

#[test]
fn a_pod_ready_in_the_advances_own_second_counts() {
    // Event times carry microseconds, condition times whole seconds.
    let adv = t(10) + jiff::SignedDuration::from_millis(600);
    let r = judge(&one_rolled(adv, t(10)).snapshot(), t(20));
    let row = &r.history.rows[0];
    assert_eq!(row.node, "cache-0-1");
    assert_eq!((row.ready_at, row.took_seconds), (Some(t(10)), Some(0)));
    assert_eq!(r.eta_basis, Some(1));
}

#[test]
fn only_history_builds_the_roll_history_and_nothing_else_differs() {
    let s = one_rolled(t(10), t(12)).snapshot();
    let mut with = super::super::classify_with_history(&s, t(20), T);
    let without = classify(&s, t(20), T);
    assert_eq!(with.clusters[0].history.rows.len(), 2, "a row per node");
    assert!(with.clusters[0].history.started_at.is_some());
    assert_eq!(
        without.clusters[0].history,
        crate::report::RollHistory::default()
    );
    with.clusters[0].history = crate::report::RollHistory::default();
    assert_eq!(with, without);
}

/// A grant by hand's record of what the servers said rides on its history
/// row (issue 41 item 4); the controller's advance, and a grant that
/// recorded none, have none.
#[test]
fn a_hand_grant_keeps_what_the_servers_said() {
    let line = "shard 0: cache-0-2 replica link up lag 0 B; cache-0-0 primary";
    let c = cluster()
        .node(waiting("cache-0-0", 0))
        .node(
            healthy("cache-0-2", 0, 2)
                .last_rollout_hash(H)
                .trace(H, "alice", t(100), "canary")
                .servers_said(line)
                .pod_ready_since(t(150)),
        )
        .node(healthy("cache-0-1", 0, 1).last_rollout_hash(H));
    let r = judge(&c.snapshot(), t(160));
    let said: Vec<(&str, Option<&str>)> = r
        .history
        .rows
        .iter()
        .map(|h| (h.node.as_str(), h.servers_said.as_deref()))
        .collect();
    assert!(said.contains(&("cache-0-2", Some(line))), "{said:?}");
    assert!(
        said.iter()
            .filter(|(n, _)| *n != "cache-0-2")
            .all(|(_, s)| s.is_none()),
        "{said:?}"
    );
}
