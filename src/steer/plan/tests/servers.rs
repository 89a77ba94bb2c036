//! The servers' word in a plan (docs/plugin.md, "Steering with the servers'
//! word"): snapshots with readings, judged by the classifier and planned,
//! so a plan and `status --servers` judge from the same facts.

use super::*;
use crate::fixture::{self, ClusterBuilder, t};
use crate::report::{RoleSource, ServerNote};
use crate::snapshot::{LinkStatus, ServerReading, ServerRole};

fn rolling() -> ClusterBuilder {
    fixture::two_shards_at_a_primary(fixture::cluster(NS, "cache").ready_for_generation())
}

/// What `node`'s server answered a second ago, at replication `offset`.
fn reading(node: &str, role: ServerRole, link: Option<LinkStatus>, offset: u64) -> ServerReading {
    ServerReading {
        repl_offset: Some(offset),
        ..fixture::server_reading(NS, node, role, link, t(-1))
    }
}

fn failed(node: &str, error: &str) -> ServerReading {
    ServerReading {
        role: None,
        link: None,
        syncing: None,
        repl_offset: None,
        error: Some(error.into()),
        ..reading(node, ServerRole::Primary, None, 0)
    }
}

/// Every server as the API judges it; cache-0-1's link as given.
fn readings(link01: LinkStatus) -> Vec<ServerReading> {
    use LinkStatus::*;
    use ServerRole::*;
    vec![
        reading("cache-0-0", Primary, None, 5000),
        reading("cache-0-1", Replica, Some(link01), 5000),
        reading("cache-1-0", Primary, None, 7000),
        reading("cache-1-1", Replica, Some(Up), 7000),
    ]
}

fn with(mut s: Snapshot, readings: Vec<ServerReading>) -> Snapshot {
    s.readings = readings;
    s.normalize();
    s
}

fn allow_primary(mut r: Request) -> Request {
    if let Steer::Grant { allow_primary, .. } = &mut r.steer {
        *allow_primary = true;
    }
    r
}

/// Read live; a grant gives the revision (a Spec-driven roll's front asks
/// for none by condition).
fn live(mut r: Request) -> Request {
    r.servers = ServersAsked::Live { trouble: None };
    if let Steer::Grant { revision, .. } = &mut r.steer {
        *revision = Some(H.into());
    }
    r
}

fn plan_of(s: &Snapshot, request: &Request) -> Plan {
    let report = crate::steer::exec::judge(s, t(0), std::time::Duration::from_secs(600), request);
    plan(s, &report, request, t(0), "alice").expect("plan")
}

fn codes(p: &Plan) -> (Vec<&'static str>, Vec<&'static str>) {
    (
        p.reasons.iter().map(Refusal::code).collect(),
        p.warnings.iter().map(Warning::code).collect(),
    )
}

/// Each row: what the servers say, the request, and the refusals and
/// warnings (by code) the plan has.
#[test]
fn the_servers_decide_where_they_answered() {
    use LinkStatus::*;
    let grant = |node: &str| live(req(Action::Grant, node));
    let mut failover = readings(Up);
    // Valkey failed shard 1 over by itself: cache-1-1 is the primary now.
    failover[2] = reading("cache-1-0", ServerRole::Replica, Some(Up), 6900);
    failover[3] = reading("cache-1-1", ServerRole::Primary, None, 7000);
    let mut unread = readings(Up);
    unread[1] = failed("cache-0-1", "timed out");
    type Row = (
        &'static str,
        Vec<ServerReading>,
        Request,
        &'static [&'static str],
        &'static [&'static str],
    );
    let rows: Vec<Row> = vec![
        (
            "the primary by its server, its replica's link down",
            readings(Down),
            allow_primary(grant("cache-0-0")),
            &["NoSyncedReplica"],
            &[],
        ),
        (
            "the same without --allow-primary: both refusals",
            readings(Down),
            grant("cache-0-0"),
            &["Primary", "NoSyncedReplica"],
            &[],
        ),
        (
            "its replica synced: --allow-primary goes on",
            readings(Up),
            allow_primary(grant("cache-0-0")),
            &[],
            &["Primary", "RevisionDiffers", "NoUndoInP2"],
        ),
        (
            "its replica synced, no --allow-primary: Primary alone",
            readings(Up),
            grant("cache-0-0"),
            &["Primary"],
            &[],
        ),
        (
            // Not read is not synced (the classifier's rule, as status
            // --servers and the exporter's shard at risk say it): the
            // refusal names it and why.
            "its replica not read: not synced",
            unread,
            allow_primary(grant("cache-0-0")),
            &["NoSyncedReplica"],
            &["ServersUnread"],
        ),
        (
            "shard 1 failed over by Valkey: cache-1-1 is the primary by its server",
            failover.clone(),
            grant("cache-1-1"),
            &["Primary", "NotFront"],
            &[],
        ),
        (
            "... and cache-1-0 is no primary, whatever the API said",
            failover,
            grant("cache-1-0"),
            &["NotFront"],
            &[],
        ),
    ];
    let mut failures = Vec::new();
    for (row, rs, request, reasons, warnings) in rows {
        let s = with(rolling().snapshot(), rs);
        let p = plan_of(&s, &request);
        let (got_r, got_w) = codes(&p);
        if got_r != reasons || got_w != warnings {
            failures.push(format!(
                "{row}: reasons {got_r:?} (want {reasons:?}), warnings {got_w:?} (want {warnings:?})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_primary_refused_by_its_server_says_so_and_names_the_replica() {
    let s = with(rolling().snapshot(), readings(LinkStatus::Down));
    let p = plan_of(&s, &allow_primary(live(req(Action::Grant, "cache-0-0"))));
    let Some(Refusal::NoSyncedReplica {
        node,
        shard,
        replicas,
    }) = p.reasons.first()
    else {
        panic!("{:?}", p.reasons)
    };
    assert_eq!((node.as_str(), *shard), ("cache-0-0", 0));
    assert_eq!(replicas.len(), 1);
    assert_eq!(replicas[0].node, "cache-0-1");
    assert_eq!(replicas[0].link, Some(LinkStatus::Down));
    assert!(p.patches.is_empty() && p.events.is_empty());
    // The readings it used, both servers of shard 0.
    let used = p.servers.as_ref().expect("readings");
    assert_eq!(used.shard, Some(0));
    let names: Vec<&str> = used.nodes.iter().map(|n| n.node.as_str()).collect();
    assert_eq!(names, ["cache-0-0", "cache-0-1"]);
    // Without --allow-primary the Primary refusal says its role came from
    // the server.
    let p = plan_of(&s, &live(req(Action::Grant, "cache-0-0")));
    assert!(
        p.reasons.contains(&Refusal::Primary {
            node: "cache-0-0".into(),
            unsure: None,
            source: Some(RoleSource::Server),
        }),
        "{:?}",
        p.reasons
    );
    // The way out of the NoSyncedReplica alone: why the replica is not
    // synced, watch the servers; no force in P2.
    let p = plan_of(&s, &allow_primary(live(req(Action::Grant, "cache-0-0"))));
    assert_eq!(
        p.way_out,
        vec![
            Step::Explain {
                node: "cache-0-1".into()
            },
            Step::WatchServers {
                cluster: "cache".into()
            },
        ]
    );
}

/// P1: force goes past a shard with no synced replica only with the shard
/// typed out, and its confirmation says what may be lost.
#[test]
fn force_goes_past_only_with_the_shard_typed_out() {
    let mut c = fixture::cluster(NS, "cache").ready_for_generation();
    for (name, shard, index) in [("cache-0-0", 0, 0), ("cache-0-1", 0, 1)] {
        let mut n = fixture::node(name)
            .shard(shard, index)
            .ready()
            .pod_ready()
            .sts_rolled_out()
            .desired(H);
        n = if index == 0 { n.primary() } else { n.replica() };
        c = c.node(n);
    }
    let s = with(
        c.snapshot(),
        vec![
            reading("cache-0-0", ServerRole::Primary, None, 100),
            reading("cache-0-1", ServerRole::Replica, Some(LinkStatus::Down), 0),
        ],
    );
    let force = |unsafe_shard: Option<u32>| {
        let mut r = live(req(Action::Force, "cache-0-0"));
        r.reason = Some("wedged".into());
        if let Steer::Force {
            unsafe_shard: u, ..
        } = &mut r.steer
        {
            *u = unsafe_shard;
        }
        r.protocol_override = Some(Protocol::P1);
        r
    };
    let refused = plan_of(&s, &force(None));
    assert_eq!(
        codes(&refused).0,
        ["NoSyncedReplica"],
        "{:?}",
        refused.reasons
    );
    assert!(
        refused.way_out.iter().any(|w| matches!(
            w,
            Step::Steer(c) if c.action == Action::Force && c.unsafe_shard == Some(0)
        )),
        "{:?}",
        refused.way_out
    );
    let other_shard = plan_of(&s, &force(Some(1)));
    assert!(other_shard.is_refused(), "{:?}", other_shard.warnings);
    let goes = plan_of(&s, &force(Some(0)));
    assert!(!goes.is_refused(), "{:?}", goes.reasons);
    assert!(goes.warnings.iter().any(|w| w.code() == "NoSyncedReplica"));
    let asked = asked(&goes);
    assert!(
        asked.contains("shard 0 has no synced replica (cache-0-1 link down")
            && asked.contains("lost"),
        "{asked}"
    );
    // The Event and the annotation carry the servers' line.
    let line = "shard 0: cache-0-0 primary; cache-0-1 replica link down lag 100 B";
    assert_eq!(
        servers_line(&ServersAsked::Live { trouble: None }, goes.servers.as_ref()),
        line
    );
    assert!(
        goes.events
            .iter()
            .any(|e| e.note.ends_with(&format!("the servers said: {line}"))),
        "{:?}",
        goes.events
    );
    assert_eq!(
        goes.patches.last().expect("a patch").patch["metadata"]["annotations"][keys::ANN_SERVERS],
        json!(line)
    );
}

/// What the plan says of servers not read: asked off, a Secret that could
/// not be read, a file without readings, a server that failed.
#[test]
fn servers_not_read_are_a_warning_that_says_why() {
    let plain = rolling().snapshot();
    let grant = |asked: ServersAsked| {
        let mut r = allow_primary(live(req(Action::Grant, "cache-0-0")));
        r.servers = asked;
        r
    };
    let unread = |p: &Plan| {
        p.warnings.iter().find_map(|w| match w {
            Warning::ServersUnread { why, .. } => Some(why.clone()),
            _ => None,
        })
    };
    assert_eq!(
        unread(&plan_of(&plain, &grant(ServersAsked::Off))),
        Some(Unread::Off)
    );
    assert_eq!(
        unread(&plan_of(
            &plain,
            &grant(ServersAsked::Live {
                trouble: Some(Failure::Forbidden)
            })
        )),
        Some(Unread::Cluster {
            cluster: "cache".into(),
            failure: Failure::Forbidden
        })
    );
    assert_eq!(
        unread(&plan_of(&plain, &grant(ServersAsked::File))),
        Some(Unread::NotInFile)
    );
    // The primary's own server refused the password: its role is the
    // API's, and the plan says whose server was not read.
    let mut one_failed = readings(LinkStatus::Up);
    one_failed[0] = failed("cache-0-0", "auth refused");
    let s = with(plain.clone(), one_failed);
    assert_eq!(
        unread(&plan_of(&s, &grant(ServersAsked::File))),
        Some(Unread::Servers(vec![(
            "cache-0-0".into(),
            ServerNote::Unread {
                error: "auth refused".into()
            }
        )]))
    );
    // All read: no warning of it.
    let s = with(plain, readings(LinkStatus::Up));
    assert_eq!(unread(&plan_of(&s, &grant(ServersAsked::File))), None);
}

/// A synced replica behind its primary is a warning with the gap.
#[test]
fn a_synced_replica_that_lags_is_a_warning() {
    let mut rs = readings(LinkStatus::Up);
    rs[1].repl_offset = Some(4000);
    let s = with(rolling().snapshot(), rs);
    let p = plan_of(&s, &allow_primary(live(req(Action::Grant, "cache-0-0"))));
    assert!(!p.is_refused(), "{:?}", p.reasons);
    assert!(
        p.warnings.contains(&Warning::ReplicaLags {
            replica: "cache-0-1".into(),
            primary: "cache-0-0".into(),
            lag_bytes: 1000,
        }),
        "{:?}",
        p.warnings
    );
}
