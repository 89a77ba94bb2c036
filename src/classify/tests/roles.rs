//! Judged roles and failovers under way (docs/plugin.md, "Roles, failovers and
//! a silent operator"), on the patterns the recordings with real Valkey
//! show (../shared/recordings f-j): creation, a replaced replica, the
//! first failover of a roll (named in its notes), the second (only a
//! repeat of the first event's series), the third (no event at all), two
//! replicas a shard, the later operator's annotation, two claimants.

use super::*;
use crate::fixture::{
    event_applied, event_failover_completed, event_failover_initiated, event_node_updated,
    event_primary_created, mins, repeated, t,
};
use crate::report::{FailoverSource, Role, RoleNote, RoleSource};
use k8s_openapi::api::core::v1::Event;

const H: &str = "173bd616dd45fcc74514a7a6eeb2e0a3f87cdb998aaec35d40bc4794ab6558f2";
const OLD: &str = "valkey/valkey:9.0.0";
const NEW: &str = "valkey/valkey:9.0.1";

/// The address of node `index` of `shard`: 127.0.1.(10·shard + index + 1).
fn ip(shard: u32, index: u32) -> String {
    format!("127.0.1.{}", 10 * shard + index + 1)
}

/// A node of the cluster at rest, with its address; `status.role` as the
/// operator left it (`primary` for every node: it wrote it while each
/// server was an empty master).
fn member(shard: u32, index: u32) -> NodeBuilder {
    fixture::node(&format!("cache-{shard}-{index}"))
        .shard(shard, index)
        .ready()
        .pod_ready()
        .sts_rolled_out()
        .pod_ip(&ip(shard, index))
        .workload_revision(H)
        .image(OLD)
        .primary()
}

/// `shards` shards of `1 + replicas` nodes, every pod created two hours
/// ago, and the creation's PrimaryCreated (naming shard 0's node 0) an
/// hour ago, plus `events`.
fn rig(shards: u32, replicas: u32, events: Vec<Event>) -> ClusterBuilder {
    let mut c = cluster()
        .size(i64::from(shards), i64::from(replicas))
        .image(OLD);
    for s in 0..shards {
        for i in 0..=replicas {
            c = c.node(member(s, i).pod_created(mins(-120)));
        }
    }
    c.push_event(event_primary_created(NS, CL, &ip(0, 0), mins(-60)));
    for e in events {
        c.push_event(e);
    }
    c
}

/// One shard of two nodes whose roles rest on `status.role` alone (no
/// PrimaryCreated: expired, or never written), plus `events`.
fn status_only(events: Vec<Event>) -> ClusterBuilder {
    let mut c = cluster()
        .size(1, 1)
        .image(OLD)
        .node(member(0, 0).pod_created(mins(-120)))
        .node(member(0, 1).replica().pod_created(mins(-120)));
    for e in events {
        c.push_event(e);
    }
    c
}

/// Two shards rolled to NEW but cache-1-0 (the walk is in shard 1), and
/// the first roll's FailoverCompleted repeated a second ago: a failover
/// in shard 1 that names none of its pods.
fn shard_1_rolls_after_a_repeated_failover() -> ClusterBuilder {
    let mut c = rig(
        2,
        1,
        vec![repeated(
            event_failover_completed(NS, CL, &ip(0, 1), mins(-10)),
            2,
            t(-1),
        )],
    );
    c.with_node("cache-1-1", |n| n.image(NEW));
    c = c.image(NEW);
    c.with_node("cache-0-0", |n| n.image(NEW));
    c.with_node("cache-0-1", |n| n.image(NEW));
    c
}

/// The words of `name`'s role note in `r`, if it has one.
fn role_note(r: &ClusterReport, name: &str) -> Option<String> {
    node(r, name).role_note.as_ref().map(ToString::to_string)
}

/// The operator advanced `node` at `at` for a roll (ValkeyNodeUpdated,
/// then its WorkloadRollApplied).
fn advanced(node: &str, at: jiff::Timestamp) -> Vec<Event> {
    vec![
        event_node_updated(NS, CL, node, at),
        event_applied(NS, node, H, at),
    ]
}

/// (role, sure) of every node named.
type Want = &'static [(&'static str, Option<Role>, bool)];

fn roles_are(row: &str, c: &ClusterReport, want: Want) {
    for (name, role, sure) in want {
        let n = node(c, name);
        assert_eq!(
            (n.role, n.role_note.is_none()),
            (*role, *sure),
            "{row}: {name} (source {:?}, note {:?})",
            n.role_source,
            n.role_note
        );
    }
}

use Role::{Primary, Replica};

#[test]
fn roles_table() {
    let now = t(0);
    let rows: Vec<(&str, ClusterBuilder, Want)> = vec![
        (
            // The property test's seed 3c567ce1…: no event names the
            // shard's primary (expired, or never written), Valkey failed
            // it over, and the walk reached it: the operator advanced the
            // node status.role alone called primary.
            "no event speaks for the shard: its status.role claimant advanced was failed over",
            status_only(advanced("cache-0-0", t(-5))),
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
        // The property test's seed 371b8d97 (case 3): the node
        // controller's status write as it applied the advance (Ready
        // False) moved the managedFields time of the entry that owns
        // status.role, though the role itself, still `primary`, was
        // written before the advance.
        (
            "no event speaks for the shard: its claimant advanced, its status written since",
            {
                let mut c = status_only(advanced("cache-0-0", t(-5)));
                c.with_node("cache-0-0", |n| n.status_written(t(-3)));
                c
            },
            &[
                // The best guess follows the newer status write.
                ("cache-0-0", Some(Primary), false),
                ("cache-0-1", Some(Replica), false),
            ],
        ),
        (
            "no event speaks for the shard: a replica advanced changes nothing",
            status_only(advanced("cache-0-1", t(-5))),
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "status alone, one claimant a shard",
            cluster().node(member(0, 0)).node(member(0, 1).replica()),
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "status alone, two claimants: unknown, with a note",
            cluster().node(member(0, 0)).node(member(0, 1)),
            &[("cache-0-0", None, false), ("cache-0-1", None, false)],
        ),
        (
            "creation: PrimaryCreated names node 0; the others are its replicas",
            rig(1, 1, vec![]),
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "creation: node index 0 of every shard got the slots",
            rig(2, 1, vec![]),
            &[
                ("cache-1-0", Some(Primary), true),
                ("cache-1-1", Some(Replica), true),
            ],
        ),
        (
            "a replaced replica reads primary: it restarted empty and joined as a replica",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| n.pod_created(mins(-5)));
                c
            },
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "the first failover of a roll: its note names the promoted address",
            rig(
                1,
                1,
                vec![
                    event_failover_initiated(NS, CL, &ip(0, 0), &ip(0, 1), mins(-10)),
                    event_failover_completed(
                        NS,
                        CL,
                        &ip(0, 1),
                        mins(-10) + jiff::SignedDuration::from_secs(1),
                    ),
                ],
            ),
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
        (
            "the second failover: a repeat of the first's series, then the primary advanced",
            rig(2, 1, {
                let mut e = vec![
                    event_failover_initiated(NS, CL, &ip(0, 0), &ip(0, 1), mins(-10)),
                    repeated(
                        event_failover_completed(NS, CL, &ip(0, 1), mins(-10)),
                        2,
                        mins(-3),
                    ),
                ];
                e.extend(advanced(
                    "cache-1-0",
                    mins(-3) + jiff::SignedDuration::from_millis(15),
                ));
                e
            }),
            &[
                ("cache-0-1", Some(Primary), true),
                ("cache-1-0", Some(Replica), true),
                ("cache-1-1", Some(Primary), true),
            ],
        ),
        (
            "the third failover: no event at all, but its primary was advanced",
            rig(1, 1, advanced("cache-0-0", mins(-2))),
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
        // The property test's seed 371b8d97…: a live setting's change
        // (maxmemory) advances a primary with no failover (c33988f
        // `needsProactiveFailoverForRoll`: only spec.config differs); a
        // template's advance fails it over first. Until the node applies
        // it the two read the same, and no failover came just before: the
        // roles are unsure, not flipped.
        (
            "a primary advanced a moment ago, no failover before it: unknown until applied",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-0", |n| n.generation(2, 1).image(NEW));
                c
            },
            &[("cache-0-0", None, false), ("cache-0-1", None, false)],
        ),
        (
            "a primary advanced a moment ago right after its shard's failover (a repeat)",
            {
                let mut c = shard_1_rolls_after_a_repeated_failover();
                c.with_node("cache-1-0", |n| n.generation(2, 1).image(NEW));
                c
            },
            &[
                ("cache-1-0", Some(Replica), true),
                ("cache-1-1", Some(Primary), true),
            ],
        ),
        (
            "a repeated FailoverCompleted and no advance yet: the walk's shard, unsure",
            shard_1_rolls_after_a_repeated_failover(),
            &[
                ("cache-1-0", Some(Replica), false),
                ("cache-1-1", Some(Primary), false),
            ],
        ),
        (
            "two replicas: the events do not say which was promoted",
            rig(1, 2, advanced("cache-0-0", mins(-2))),
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", None, false),
                ("cache-0-2", None, false),
            ],
        ),
        (
            "two replicas: the next advance rules one out",
            rig(1, 2, {
                let mut e = advanced("cache-0-0", mins(-4));
                e.extend(advanced("cache-0-2", mins(-2)));
                e
            }),
            &[
                ("cache-0-1", Some(Primary), true),
                ("cache-0-2", Some(Replica), true),
            ],
        ),
        (
            "the primary's pod replaced with no failover: the shard's primary is unknown",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-0", |n| n.pod_created(mins(-1)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", None, false),
            ],
        ),
        (
            "the later operator's annotation is its own reading of the server",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-0", |n| n.observed_role("replica"));
                c.with_node("cache-0-1", |n| n.observed_role("primary"));
                c
            },
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
        (
            "a failover under way: both its nodes are unsure",
            rig(
                1,
                1,
                vec![event_failover_initiated(
                    NS,
                    CL,
                    &ip(0, 0),
                    &ip(0, 1),
                    t(-2),
                )],
            ),
            &[
                ("cache-0-0", Some(Primary), false),
                ("cache-0-1", Some(Replica), false),
            ],
        ),
    ];
    for (row, c, want) in rows {
        roles_are(row, &judge(&c.snapshot(), now), want);
    }
}

#[test]
fn role_sources_and_notes() {
    let c = judge(
        &rig(
            1,
            1,
            vec![event_failover_completed(NS, CL, &ip(0, 1), mins(-10))],
        )
        .snapshot(),
        t(0),
    );
    assert_eq!(node(&c, "cache-0-1").role_source, Some(RoleSource::Event));
    let c = judge(&rig(1, 1, advanced("cache-0-0", mins(-2))).snapshot(), t(0));
    assert_eq!(
        node(&c, "cache-0-1").role_source,
        Some(RoleSource::Inferred)
    );
    let c = judge(
        &cluster().node(member(0, 0)).node(member(0, 1)).snapshot(),
        t(0),
    );
    assert_eq!(
        node(&c, "cache-0-0").role_note,
        Some(RoleNote::Claimants {
            others: vec!["cache-0-1".into()]
        })
    );
    assert_eq!(
        node(&c, "cache-0-0")
            .role_note
            .as_ref()
            .map(ToString::to_string),
        Some("status.role says primary, as it does for cache-0-1; nothing newer picks one".into())
    );
}

#[test]
fn the_walk_puts_the_judged_primary_last() {
    // After the failover, cache-0-1 is the primary: while the roll is on,
    // cache-0-0 (status.role still primary) is walked first.
    let mut c = rig(
        1,
        1,
        vec![event_failover_completed(NS, CL, &ip(0, 1), mins(-10))],
    )
    .image(NEW);
    c.with_node("cache-0-0", |n| n.image(OLD));
    c.with_node("cache-0-1", |n| n.image(OLD));
    let r = judge(&c.snapshot(), t(0));
    let order: Vec<&str> = r.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(order, ["cache-0-0", "cache-0-1"]);
    assert_eq!(r.front.as_deref(), Some("cache-0-0"));
    assert!(node(&r, "cache-0-1").facts.is_primary);
}

#[test]
fn failovers_under_way() {
    let now = t(0);
    // (row, events, shard, from, to, source); None: none under way.
    type Under = Option<(
        Option<u32>,
        Option<&'static str>,
        Option<&'static str>,
        FailoverSource,
    )>;
    let rows: Vec<(&str, Vec<Event>, Under)> = vec![
        ("none", vec![], None),
        (
            "initiated, no outcome yet",
            vec![event_failover_initiated(
                NS,
                CL,
                &ip(1, 0),
                &ip(1, 1),
                t(-2),
            )],
            Some((
                Some(1),
                Some("cache-1-0"),
                Some("cache-1-1"),
                FailoverSource::Event,
            )),
        ),
        (
            "initiated, then completed",
            vec![
                event_failover_initiated(NS, CL, &ip(1, 0), &ip(1, 1), t(-3)),
                event_failover_completed(NS, CL, &ip(1, 1), t(-2)),
            ],
            None,
        ),
        (
            "initiated over 30s ago with no outcome: nobody is failing over",
            vec![event_failover_initiated(
                NS,
                CL,
                &ip(1, 0),
                &ip(1, 1),
                t(-45),
            )],
            None,
        ),
        (
            "a second failover, as a repeat of the first's series: the walk's shard",
            vec![
                repeated(
                    event_failover_initiated(NS, CL, &ip(0, 0), &ip(0, 1), mins(-10)),
                    2,
                    t(-1),
                ),
                event_failover_completed(NS, CL, &ip(0, 1), mins(-10)),
            ],
            Some((
                Some(1),
                Some("cache-1-0"),
                Some("cache-1-1"),
                FailoverSource::Series,
            )),
        ),
        (
            "a repeat, its primary advanced before the outcome is written (j-deploy w-00124)",
            vec![
                repeated(
                    event_failover_initiated(NS, CL, &ip(0, 0), &ip(0, 1), mins(-10)),
                    2,
                    t(-1),
                ),
                event_failover_completed(NS, CL, &ip(0, 1), mins(-10)),
            ],
            Some((
                Some(1),
                Some("cache-1-0"),
                Some("cache-1-1"),
                FailoverSource::Series,
            )),
        ),
        (
            "a repeated outcome after the repeated initiation: done",
            vec![
                repeated(
                    event_failover_initiated(NS, CL, &ip(0, 0), &ip(0, 1), mins(-10)),
                    2,
                    t(-3),
                ),
                repeated(
                    event_failover_completed(NS, CL, &ip(0, 1), mins(-10)),
                    2,
                    t(-2),
                ),
            ],
            None,
        ),
    ];
    for (row, events, want) in rows {
        // Shard 0 rolled; shard 1 is the walk's: its primary is behind.
        let mut c = rig(2, 1, events).image(NEW);
        for n in ["cache-0-0", "cache-0-1", "cache-1-1"] {
            c.with_node(n, |b| b.image(NEW));
        }
        if row.contains("advanced before") {
            c.with_node("cache-1-0", |b| b.image(NEW).generation(2, 1));
        }
        let r = judge(&c.snapshot(), now);
        let got = r
            .failover
            .as_ref()
            .map(|f| (f.shard, f.from.as_deref(), f.to.as_deref(), f.source));
        assert_eq!(got, want, "{row}");
    }
}

#[test]
fn a_failover_under_way_ends_with_the_clock() {
    let c = rig(
        1,
        1,
        vec![event_failover_initiated(
            NS,
            CL,
            &ip(0, 0),
            &ip(0, 1),
            t(-10),
        )],
    );
    let r = judge(&c.snapshot(), t(0));
    assert!(r.failover.is_some());
    let flip = r
        .next_change
        .expect("the failover window ends by time alone");
    assert_eq!(flip, t(21));
    assert!(judge(&c.snapshot(), flip).failover.is_none());
}

/// Issue 29: evidence has a time. A write newer than the evidence a
/// primary was judged from, and contradicting it, leaves the shard unsure
/// (every node of it may be the primary); never a quiet fact.
#[test]
fn newer_evidence_doubts_a_judged_primary() {
    use crate::fixture::event_replica_created;
    let now = t(0);
    let sec = jiff::SignedDuration::from_secs;
    let rows: Vec<(&str, ClusterBuilder, Want)> = vec![
        (
            "an unplanned failover at rest: the primary's own status.role says replica, \
             written after the creation it was judged from",
            {
                let mut c = rig(1, 1, vec![]).ready_for_generation_since(mins(-59));
                c.with_node("cache-0-0", |n| n.replica().status_written(t(-50)));
                c
            },
            &[
                // The best guess follows the newer status write: its one
                // other node is the primary.
                ("cache-0-0", Some(Replica), false),
                ("cache-0-1", Some(Primary), false),
            ],
        ),
        (
            "status.role replica written before the creation's evidence: older, no doubt",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-0", |n| n.replica().status_written(mins(-61)));
                c
            },
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "a FailoverCompleted newer than a status write: the event wins",
            {
                let mut c = rig(
                    1,
                    1,
                    vec![event_failover_completed(NS, CL, &ip(0, 1), mins(-5))],
                );
                c.with_node("cache-0-1", |n| n.replica().status_written(mins(-10)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
        (
            "a status write newer than a FailoverCompleted, contradicting it",
            {
                let mut c = rig(
                    1,
                    1,
                    vec![event_failover_completed(NS, CL, &ip(0, 1), mins(-10))],
                );
                c.with_node("cache-0-1", |n| n.replica().status_written(mins(-5)));
                c
            },
            &[
                ("cache-0-0", Some(Primary), false),
                ("cache-0-1", Some(Replica), false),
            ],
        ),
        (
            "a replica whose pod was not replaced writes primary, with no ReplicaCreated after",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| n.status_written(mins(-5)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), false),
                ("cache-0-1", Some(Primary), false),
            ],
        ),
        (
            "an empty master after a restart: its pod created after the belief",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| {
                    n.pod_created(mins(-6)).status_written(mins(-5))
                });
                c
            },
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "an empty master, pod older than the belief, REPLICATEd after (its shard named)",
            {
                let mut c = rig(
                    1,
                    1,
                    vec![event_replica_created(NS, CL, 0, mins(-5) + sec(1))],
                );
                c.with_node("cache-0-1", |n| n.status_written(mins(-5)));
                c
            },
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "an empty master, but the ReplicaCreated after it is another shard's",
            {
                let mut c = rig(
                    2,
                    1,
                    vec![event_replica_created(NS, CL, 1, mins(-5) + sec(1))],
                );
                c.with_node("cache-0-1", |n| n.status_written(mins(-5)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), false),
                ("cache-0-1", Some(Primary), false),
                ("cache-1-0", Some(Primary), true),
            ],
        ),
        (
            "doubted, then settled: both status writes after the doubt agree",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-0", |n| n.replica().status_written(mins(-5)));
                c.with_node("cache-0-1", |n| n.status_written(mins(-4)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
        (
            "not Ready waiting for replicas to sync, nothing in flight: every shard unsure",
            rig(2, 1, vec![]).replicas_syncing(t(-4)),
            &[
                ("cache-0-0", Some(Primary), false),
                ("cache-0-1", Some(Replica), false),
                ("cache-1-0", Some(Primary), false),
                ("cache-1-1", Some(Replica), false),
            ],
        ),
        (
            // The property test's seed 53d7a21a…: Valkey failed shard 1
            // over, then someone edited the spec; the roll now in flight
            // was not in flight when the sync began, so it explains nothing.
            "not Ready waiting for replicas to sync, then the spec edited: still unsure",
            rig(2, 1, vec![])
                .replicas_syncing(t(-4))
                .image_edited(NEW, t(-1)),
            &[
                ("cache-0-0", Some(Primary), false),
                ("cache-0-1", Some(Replica), false),
                ("cache-1-0", Some(Primary), false),
                ("cache-1-1", Some(Replica), false),
            ],
        ),
        (
            "the spec edited after the sync began, its first advance 3 s after: not announced",
            rig(2, 1, advanced("cache-0-1", t(-7)))
                .image_edited(NEW, t(-8))
                .replicas_syncing(t(-10)),
            &[
                ("cache-0-0", Some(Primary), false),
                ("cache-1-0", Some(Primary), false),
            ],
        ),
        (
            // The same seed a moment later: the roll's first advance wrote
            // UpdatingNodes over the sync wait, keeping its time.
            "not Ready since before the spec was edited, now UpdatingNodes: unsure",
            rig(2, 1, advanced("cache-0-1", t(-2)))
                .updating_nodes(t(-9))
                .image_edited(NEW, t(-3)),
            &[
                ("cache-0-0", Some(Primary), false),
                ("cache-0-1", Some(Replica), false),
                ("cache-1-0", Some(Primary), false),
                ("cache-1-1", Some(Replica), false),
            ],
        ),
        (
            "UpdatingNodes since the roll's first advance, after the edit: the roll's own",
            rig(2, 1, advanced("cache-0-1", mins(-9)))
                .image_edited(NEW, mins(-10))
                .updating_nodes(mins(-9)),
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-1-0", Some(Primary), true),
            ],
        ),
        (
            "a roll advanced a replica 7 min before the sync began: the roll's own",
            rig(2, 1, advanced("cache-0-1", mins(-9)))
                .image_edited(NEW, mins(-10))
                .replicas_syncing(mins(-2)),
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
                ("cache-1-0", Some(Primary), true),
                ("cache-1-1", Some(Replica), true),
            ],
        ),
        (
            "the operator's status writes just before it announce nothing: every shard unsure",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-0", |n| n.status_written(t(-8)));
                c.with_node("cache-0-1", |n| n.replica().status_written(t(-8)));
                c.replicas_syncing(t(-4))
            },
            &[
                ("cache-0-0", Some(Primary), false),
                ("cache-0-1", Some(Replica), false),
            ],
        ),
        (
            "waiting for replicas to sync after a replica was REPLICATEd: announced",
            rig(1, 1, vec![event_replica_created(NS, CL, 0, t(-35))]).replicas_syncing(t(-30)),
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "a ReplicaCreated written 3 s after the not-Ready still announces it (events land late)",
            rig(1, 1, vec![event_replica_created(NS, CL, 0, t(-27))]).replicas_syncing(t(-30)),
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "a ReplicaCreated 20 s after the not-Ready does not explain it: unsure",
            rig(1, 1, vec![event_replica_created(NS, CL, 0, t(-10))]).replicas_syncing(t(-30)),
            &[
                ("cache-0-0", Some(Primary), false),
                ("cache-0-1", Some(Replica), false),
            ],
        ),
        (
            "waiting for replicas to sync, then a FailoverCompleted settles the shard",
            rig(
                1,
                1,
                vec![event_failover_completed(NS, CL, &ip(0, 1), t(-2))],
            )
            .replicas_syncing(t(-90)),
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
    ];
    for (row, c, want) in rows {
        roles_are(row, &judge(&c.snapshot(), now), want);
    }
}

#[test]
fn a_contradicted_primary_names_both_pieces_of_evidence() {
    let mut c = rig(1, 1, vec![]);
    c.with_node("cache-0-0", |n| n.replica().status_written(t(-50)));
    let r = judge(&c.snapshot(), t(0));
    let judged = crate::units::timestamp(mins(-60));
    let written = crate::units::timestamp(t(-50));
    assert_eq!(
        role_note(&r, "cache-0-0"),
        Some(format!(
            "cache-0-0 was judged primary at {judged}, but its own status.role says \
             replica, written at {written}"
        ))
    );
    assert_eq!(role_note(&r, "cache-0-1"), role_note(&r, "cache-0-0"));
    // The walk goes by no primary in that shard, and a grant on either
    // node is a grant on a node that may be the primary.
    assert!(!node(&r, "cache-0-0").facts.is_primary);
    let r = judge(&rig(1, 1, vec![]).replicas_syncing(t(-4)).snapshot(), t(0));
    assert_eq!(
        role_note(&r, "cache-0-1"),
        Some(format!(
            "cache-0-0 was judged primary at {judged}, but the cluster went not Ready at {} \
             waiting for replicas to sync, with no roll under way",
            crate::units::timestamp(t(-4))
        ))
    );
    let before_roll = rig(1, 1, vec![])
        .updating_nodes(t(-9))
        .image_edited(NEW, t(-3));
    let r = judge(&before_roll.snapshot(), t(0));
    assert_eq!(
        role_note(&r, "cache-0-1"),
        Some(format!(
            "cache-0-0 was judged primary at {judged}, but the cluster went not Ready at {}, \
             before the roll began, for a reason its status no longer shows",
            crate::units::timestamp(t(-9))
        ))
    );
    let mut advanced = rig(1, 1, vec![]);
    advanced.with_node("cache-0-0", |n| {
        n.generation(2, 1)
            .image(NEW)
            .managed_revision_time("manager", t(-1))
    });
    let r = judge(&advanced.snapshot(), t(0));
    assert_eq!(
        role_note(&r, "cache-0-0"),
        Some(format!(
            "its shard's primary cache-0-0 was advanced at {} and has not applied it yet: \
             a new template fails it over first, a live setting alone does not",
            crate::units::timestamp(t(-1))
        ))
    );
}

/// A shard no operator event speaks for rests on status.role alone; a
/// cluster going not Ready "Waiting for replicas to sync" with nothing in
/// flight doubts it too (found by tests/unrehearsed_e2e.rs: its simulated
/// operator writes no PrimaryCreated, and the old primary read `primary`
/// as a fact right after Valkey failed it over).
#[test]
fn waiting_for_a_sync_doubts_a_primary_known_from_its_status_alone() {
    let at_rest = || {
        let mut c = cluster().size(1, 1).image(OLD);
        c = c.node(member(0, 0).pod_created(mins(-6)).status_written(mins(-5)));
        c.node(
            member(0, 1)
                .replica()
                .pod_created(mins(-6))
                .status_written(mins(-5)),
        )
    };
    let r = judge(&at_rest().snapshot(), t(0));
    assert_eq!(node(&r, "cache-0-0").role_source, Some(RoleSource::Status));
    assert!(node(&r, "cache-0-0").role_note.is_none());
    let r = judge(&at_rest().replicas_syncing(t(-4)).snapshot(), t(0));
    for name in ["cache-0-0", "cache-0-1"] {
        assert!(
            node(&r, name).role_note.is_some(),
            "{name}: {:?}",
            node(&r, name)
        );
    }
    assert!(!node(&r, "cache-0-0").facts.is_primary);
}

/// After a failover Valkey made, the old primary's status write says
/// `replica` and the promoted node's older one says `replica` too: where
/// status.role alone speaks for the shard, none of its nodes is a sure
/// replica.
#[test]
fn a_shard_whose_status_names_no_primary_is_unsure() {
    let mut c = cluster().size(1, 1).image(OLD);
    c = c.node(
        member(0, 0)
            .replica()
            .pod_created(mins(-6))
            .status_written(mins(-1)),
    );
    c = c.node(
        member(0, 1)
            .replica()
            .pod_created(mins(-6))
            .status_written(mins(-5)),
    );
    let r = judge(&c.snapshot(), t(0));
    for name in ["cache-0-0", "cache-0-1"] {
        let n = node(&r, name);
        assert_eq!(n.role, Some(Role::Replica), "{name}");
        assert_eq!(
            n.role_note.as_ref().map(ToString::to_string).as_deref(),
            Some("no node of its shard says primary in status.role, yet one of them is"),
            "{name}"
        );
    }
}

/// Issue 29: after a failover Valkey made, the cluster is Ready again and
/// the "Waiting for replicas to sync" reason is gone, while no node's
/// status has been re-read yet (tests/unrehearsed_e2e.rs skipped that
/// stretch). Before: the old primary read `primary` as a fact. A Ready
/// turned a moment ago with nothing near to say why makes the shard
/// unsure; a roll's new pod coming up says why; past the node
/// controller's re-read, the roles stand again.
#[test]
fn a_cluster_ready_again_for_no_reason_shown_doubts_its_primaries() {
    let at = |m: NodeBuilder, created| m.pod_created(created).status_written(mins(-5));
    let rest = |ready_at, created_at| {
        let c = cluster()
            .size(1, 1)
            .image(OLD)
            .ready_for_generation_since(ready_at);
        c.node(at(member(0, 0), mins(-6)))
            .node(at(member(0, 1).replica(), created_at).ready_since(created_at))
    };
    let doubted = |c: ClusterBuilder| {
        let r = judge(&c.snapshot(), t(0));
        ["cache-0-0", "cache-0-1"].map(|n| role_note(&r, n))
    };
    let rows = [
        (
            "Ready again 20 s ago, nothing near",
            rest(t(-20), mins(-6)),
            true,
        ),
        ("Ready since 2 min ago", rest(mins(-2), mins(-6)), false),
        ("a new pod came up just before", rest(t(-20), t(-40)), false),
        (
            // The property test's seed 53d7a21a…, again: Ready a moment
            // before the edit, in the same second.
            "Ready again, then the spec edited in that second: the roll came after",
            rest(t(-20), mins(-6)).image_edited(NEW, t(-20)),
            true,
        ),
        (
            "the spec edited, then Ready for it: the roll's own",
            rest(t(-20), mins(-6))
                .image_edited(NEW, t(-30))
                .ready_for_generation_since(t(-20)),
            false,
        ),
    ];
    for (row, c, want) in rows {
        let notes = doubted(c);
        assert_eq!(notes.iter().all(Option::is_some), want, "{row}: {notes:?}");
        assert_eq!(notes.iter().any(Option::is_some), want, "{row}: {notes:?}");
    }
    assert_eq!(
        doubted(rest(t(-20), mins(-6)))[0].as_deref(),
        Some(
            format!(
                "cache-0-0 was judged primary at {}, but the cluster turned Ready again at {} \
                 with no roll under way and no role re-read since",
                crate::units::timestamp(mins(-5)),
                crate::units::timestamp(t(-20))
            )
            .as_str()
        )
    );
}

/// tests/unrehearsed_e2e.rs, seed 689df141: Valkey failed a shard over 8 s
/// after the cluster was created and found healthy; the not-Ready spell
/// that followed read as the creation's own replica sync, and the old
/// primary as a sure primary. A creation the operator has since found
/// healthy (its ClusterReady event) announces nothing after it.
#[test]
fn a_sync_after_the_cluster_was_found_healthy_is_not_the_creations() {
    let created = || {
        let mut c = cluster().size(1, 1).image(OLD);
        c = c.node(member(0, 0).pod_created(t(-20)).status_written(t(-15)));
        c = c.node(
            member(0, 1)
                .replica()
                .pod_created(t(-20))
                .status_written(t(-15)),
        );
        c.replicas_syncing(t(-4))
    };
    let notes = |c: ClusterBuilder| {
        let r = judge(&c.snapshot(), t(0));
        ["cache-0-0", "cache-0-1"].map(|n| node(&r, n).role_note.is_some())
    };
    // Still the creation's own sync: nothing doubted.
    assert_eq!(notes(created()), [false, false]);
    let mut healthy = created();
    healthy.push_event(crate::fixture::event_cluster_ready(NS, CL, t(-12)));
    assert_eq!(notes(healthy), [true, true]);
    // Found healthy as it went not Ready (the same reconcile): still the
    // creation's.
    let mut same = created();
    same.push_event(crate::fixture::event_cluster_ready(NS, CL, t(-5)));
    assert_eq!(notes(same), [false, false]);
}

/// A node of `rig` as the later operator (#320) leaves it after rolling
/// it: its fresh pod created at `at` - 10 s, Ready at `at`, and the status
/// write that turned it ready at `at` saying `replica` (it owns no slots).
fn rolled_by_320(n: NodeBuilder, at: jiff::Timestamp) -> NodeBuilder {
    let sec = jiff::SignedDuration::from_secs;
    n.replica()
        .pod_created(at - sec(10))
        .pod_ready_since(at)
        .ready_since(at)
        .status_written(at)
}

#[test]
fn which_operator_writes_status_role() {
    let sec = jiff::SignedDuration::from_secs;
    let at = mins(-5);
    let rows: Vec<(&str, ClusterBuilder, bool)> = vec![
        (
            "at rest, every role written long ago",
            rig(1, 1, vec![]),
            false,
        ),
        (
            "an advanced node whose pod is not Ready has no role, another has one (#320)",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| {
                    n.no_role()
                        .generation(2, 2)
                        .not_ready(t(-3))
                        .pod_not_ready(t(-3))
                });
                c
            },
            true,
        ),
        (
            "the same, its pod gone",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| {
                    n.no_role().generation(2, 2).not_ready(t(-3)).pod_gone()
                });
                c
            },
            true,
        ),
        (
            "a node not read yet at its creation (generation 1): both operators",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| {
                    n.no_role().not_ready(t(-3)).pod_not_ready(t(-3))
                });
                c
            },
            false,
        ),
        (
            "no node has a role (the servers never answered)",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-0", NodeBuilder::no_role);
                c.with_node("cache-0-1", |n| {
                    n.no_role()
                        .generation(2, 2)
                        .not_ready(t(-3))
                        .pod_not_ready(t(-3))
                });
                c
            },
            false,
        ),
        (
            "an advanced node whose pod is not Ready keeps its role (c33988f)",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| {
                    n.replica()
                        .generation(2, 2)
                        .not_ready(t(-3))
                        .pod_not_ready(t(-3))
                });
                c
            },
            false,
        ),
        (
            "replica written on the first ready pass over a fresh pod (#320)",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| rolled_by_320(n, at));
                c
            },
            true,
        ),
        (
            "primary written on that pass: c33988f reads the empty master",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| rolled_by_320(n, at).primary());
                c
            },
            false,
        ),
        (
            "replica on that pass, but the server keeps its data (persistence)",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| rolled_by_320(n, at).persistent());
                c
            },
            false,
        ),
        (
            "replica written after the Ready turn: c33988f's periodic re-read",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| {
                    rolled_by_320(n, at).status_written(at + sec(40))
                });
                c
            },
            false,
        ),
        (
            "the node turned Ready long after its pod (not the first pass over a fresh server)",
            {
                let mut c = rig(1, 1, vec![]);
                c.with_node("cache-0-1", |n| {
                    rolled_by_320(n, at).pod_ready_since(at - sec(5))
                });
                c
            },
            false,
        ),
    ];
    for (row, c, want) in rows {
        let r = judge(&c.snapshot(), t(0));
        assert_eq!(r.status_role_live, want, "{row}");
    }
}

#[test]
fn a_status_role_written_live_is_the_truth() {
    let now = t(0);
    // Shard 1 shows the later operator: its replica was rolled by it.
    let live = |mut c: ClusterBuilder| {
        c.with_node("cache-1-1", |n| rolled_by_320(n, mins(-30)));
        c
    };
    let rows: Vec<(&str, ClusterBuilder, Want)> = vec![
        (
            "a failover with no event: the old primary writes replica (#320)",
            {
                let mut c = live(rig(2, 1, vec![]));
                c.with_node("cache-0-0", |n| n.replica().status_written(t(-30)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
        (
            "the same read by c33988f's rule: a best guess, unsure",
            {
                let mut c = rig(2, 1, vec![]);
                c.with_node("cache-0-0", |n| n.replica().status_written(t(-30)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), false),
                ("cache-0-1", Some(Primary), false),
            ],
        ),
        (
            "c33988f's rule, the other node's pod replaced before the write: still the guess",
            {
                let mut c = rig(2, 1, vec![]);
                c.with_node("cache-0-1", |n| n.replica().pod_created(mins(-10)));
                c.with_node("cache-0-0", |n| n.replica().status_written(t(-30)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), false),
                ("cache-0-1", Some(Primary), false),
            ],
        ),
        (
            "c33988f's rule, the other node's pod replaced after the write: a fresh server",
            {
                let mut c = rig(2, 1, vec![]);
                c.with_node("cache-0-1", |n| n.replica().pod_created(t(-20)));
                c.with_node("cache-0-0", |n| n.replica().status_written(t(-30)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), false),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "a status primary newer than the FailoverCompleted (#320)",
            {
                let mut c = live(rig(
                    2,
                    1,
                    vec![event_failover_completed(NS, CL, &ip(0, 1), mins(-10))],
                ));
                c.with_node("cache-0-0", |n| n.status_written(mins(-5)));
                c
            },
            &[
                ("cache-0-0", Some(Primary), true),
                ("cache-0-1", Some(Replica), true),
            ],
        ),
        (
            "a FailoverCompleted newer than the status write: the event wins (#320)",
            {
                let mut c = live(rig(
                    2,
                    1,
                    vec![event_failover_completed(NS, CL, &ip(0, 1), mins(-5))],
                ));
                c.with_node("cache-0-0", |n| n.status_written(mins(-10)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
        (
            "its primary advanced a moment ago, its status replica since the failover \
             with no event: the other node is the primary (#320)",
            {
                let mut c = live(rig(2, 1, vec![]));
                c.with_node("cache-0-0", |n| {
                    n.replica().status_written(t(-2)).spec_updated()
                });
                c.with_node("cache-0-1", |n| n.status_written(t(-2)));
                c
            },
            &[
                ("cache-0-0", Some(Replica), true),
                ("cache-0-1", Some(Primary), true),
            ],
        ),
    ];
    for (row, c, want) in rows {
        let r = judge(&c.snapshot(), now);
        roles_are(row, &r, want);
    }
}

#[test]
fn the_walk_follows_the_best_guess() {
    // Shard 0 is being rolled (its nodes behind the cluster's image);
    // cache-0-0 was judged primary at the creation, but its own status
    // says replica, written since: the guess is cache-0-1, so cache-0-0
    // goes first and cache-0-1, the primary by the guess, last.
    let mut c = rig(1, 1, vec![]).image(NEW);
    c.with_node("cache-0-0", |n| n.replica().status_written(t(-30)));
    let r = judge(&c.snapshot(), t(0));
    let order: Vec<&str> = r.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(order, ["cache-0-0", "cache-0-1"], "{r:#?}");
    assert_eq!(r.front.as_deref(), Some("cache-0-0"), "{}", r.reason);
    // Doubted with no guess beyond the judged primary (a sync nobody
    // announced): no walk primary, node index descending.
    let c = rig(1, 1, vec![]).image(NEW).replicas_syncing(t(-4));
    let r = judge(&c.snapshot(), t(0));
    let order: Vec<&str> = r.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(order, ["cache-0-1", "cache-0-0"]);
}
