//! What the servers say (docs/servers.md), laid over the API's judgement:
//! roles from the servers, a shard at risk with no synced replica, the
//! primary held back for it, a failover the operator did not make, and
//! nothing of it without readings.

use super::*;
use crate::fixture::{mins, t};
use crate::report::{
    ClusterReason, DeferredSource, PrimaryTurn, RiskKind, Role, RoleNote, RoleSource, ServerNote,
    Unfinished, WaitingFor,
};
use crate::snapshot::{LinkStatus, ServerReading, ServerRole};
use fixture::p2_node as p2;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

/// A Spec-driven roll of two shards at shard 0's primary: cache-0-1 has
/// rolled, cache-0-0 is the front, its image behind.
fn rolling() -> ClusterBuilder {
    fixture::two_shards_at_a_primary(cluster())
}

/// What `node`'s server (pod `valkey-<node>-0`) answered at `at`.
fn reading(node: &str, role: ServerRole, link: Option<LinkStatus>, at: Timestamp) -> ServerReading {
    fixture::server_reading(NS, node, role, link, at)
}

/// Every server answers as the API judges, but cache-0-1's link is down.
fn readings(at: Timestamp) -> Vec<ServerReading> {
    use LinkStatus::*;
    use ServerRole::*;
    vec![
        reading("cache-0-0", Primary, None, at),
        reading("cache-0-1", Replica, Some(Down), at),
        reading("cache-1-0", Primary, None, at),
        reading("cache-1-1", Replica, Some(Up), at),
    ]
}

fn with(mut s: Snapshot, readings: Vec<ServerReading>) -> Snapshot {
    s.readings = readings;
    s.normalize();
    s
}

#[test]
fn without_readings_nothing_changes() {
    let s = rolling().snapshot();
    let r = judge(&s, t(0));
    assert_eq!(r.servers, None);
    assert_eq!(r.deferred, None);
    assert!(r.nodes.iter().all(|n| n.server.is_none()));
    assert!(
        r.nodes
            .iter()
            .all(|n| n.role_source != Some(RoleSource::Server))
    );
    // Readings of another namespace's pods concern nobody here.
    let mut elsewhere = readings(t(0));
    for r in &mut elsewhere {
        r.metadata.namespace = Some("other".into());
    }
    assert_eq!(judge(&with(s, elsewhere), t(0)), r);
}

/// Servers asked for and none read (the Secret, TLS without a CA): the
/// judgement is the API's, and the report says none of them was read, for
/// its verdict to; of another cluster, nothing.
#[test]
fn servers_asked_and_none_read_are_on_the_report() {
    use crate::report::ServersRead;
    use crate::snapshot::{Failure, ServersNotRead};
    let s = rolling().snapshot();
    let plain = judge(&s, t(0));
    let cluster = &s.clusters[0];
    for (ns, name, want) in [
        (cluster.namespace(), cluster.name(), true),
        ("other", cluster.name(), false),
        (cluster.namespace(), "other", false),
    ] {
        let mut asked = s.clone();
        asked.servers_not_read.push(ServersNotRead {
            namespace: ns.into(),
            cluster: name.into(),
            why: Failure::Tls,
        });
        let r = judge(&asked, t(0));
        let expected = want.then_some(ServersRead {
            read: 0,
            unread: plain.nodes.len(),
            observed_at: None,
        });
        assert_eq!(r.servers, expected, "{ns}/{name}");
        // Nothing else changes.
        assert_eq!(ClusterReport { servers: None, ..r }, plain, "{ns}/{name}");
    }
}

/// A primary at the front with nothing moving: without readings the
/// reason says what the operator does first (a synced replica, then a
/// failover) and where to look; with them, what the servers say.
#[test]
fn a_front_primary_without_readings_says_what_the_operator_does_first() {
    let mut synced = readings(t(-1));
    synced[1].link = Some(LinkStatus::Up);
    let behind = |n: NodeBuilder| n.image("valkey/valkey:9.0.0");
    let all_behind = cluster()
        .image_edited("valkey/valkey:9.0.1", mins(-1))
        .node(behind(p2("cache-0-0", 0, 0)))
        .node(behind(p2("cache-0-1", 0, 1)));
    let turn = |front: &str| {
        WaitingFor::PrimaryTurn(PrimaryTurn {
            front: front.into(),
            shard: Some(0),
        })
    };
    let grant = |front: &str| WaitingFor::Grant {
        front: front.into(),
    };
    let rows: [(&str, Snapshot, WaitingFor); 3] = [
        (
            "a primary, no readings",
            rolling().snapshot(),
            turn("cache-0-0"),
        ),
        (
            "a primary whose replica the servers say is synced",
            with(rolling().snapshot(), synced),
            grant("cache-0-0"),
        ),
        (
            "a replica, no readings",
            all_behind.snapshot(),
            grant("cache-0-1"),
        ),
    ];
    for (row, s, want) in rows {
        let r = judge(&s, t(0));
        let ClusterReason::Waiting { what, .. } = &r.reason else {
            panic!("{row}: {:?}", r.reason)
        };
        assert_eq!(*what, want, "{row}");
    }
    let said = judge(&rolling().snapshot(), t(0)).reason.to_string();
    assert!(
        said.contains("cache-0-0 is next")
            && said.contains("first waits for a replica of shard 0 to sync, then fails it over")
            && said.contains("explain reads the servers"),
        "{said}"
    );
    // Nothing moves past the threshold: Stalled, with the same two steps.
    let later = judge(&rolling().snapshot(), mins(30));
    assert!(
        matches!(
            &later.reason,
            ClusterReason::Stalled {
                what: Unfinished::PrimaryTurn(PrimaryTurn { front, .. }),
                ..
            } if front == "cache-0-0"
        ),
        "{:?}",
        later.reason
    );
    let said = later.reason.to_string();
    assert!(
        said.contains("may be down, or waiting for a replica of shard 0 to sync before it fails cache-0-0 over"),
        "{said}"
    );
}

#[test]
fn the_front_waits_for_its_replica_to_sync() {
    let s = with(rolling().snapshot(), readings(t(-1)));
    let r = judge(&s, t(0));
    assert_eq!(r.front.as_deref(), Some("cache-0-0"));
    assert_eq!(r.verdict, Verdict::Waiting, "{}", r.reason);
    for n in &r.nodes {
        assert_eq!(n.role_source, Some(RoleSource::Server), "{}", n.name);
        assert_eq!(n.role_note, None, "{}", n.name);
    }
    let d = r.deferred.as_ref().expect("held back");
    assert_eq!(d.source, DeferredSource::Servers);
    assert_eq!(d.primary.as_deref(), Some("cache-0-0"));
    assert_eq!(d.replicas.len(), 1);
    assert_eq!(d.replicas[0].node, "cache-0-1");
    assert!(matches!(
        &r.reason,
        ClusterReason::Waiting {
            what: WaitingFor::Deferred(_),
            ..
        }
    ));
    let said = r.reason.to_string();
    assert!(
        said.contains("it waits for cache-0-1 to sync (link down"),
        "{said}"
    );
    let json = serde_json::to_value(d).expect("JSON");
    assert_eq!(json["node"], "cache-0-0");
    assert_eq!(json["source"], "servers");
    assert_eq!(
        json["cause"],
        "waits for cache-0-1 to sync with cache-0-0: link down"
    );
    // The shard is at risk, by the servers, naming the replica.
    let risk = r
        .risks
        .iter()
        .find(|k| k.kind == RiskKind::NoSyncedReplica)
        .expect("a risk");
    assert_eq!(
        (risk.shard, risk.primary.as_deref()),
        (0, Some("cache-0-0"))
    );
    let replicas = risk.replicas.as_ref().expect("replicas");
    assert_eq!(replicas[0].link, Some(LinkStatus::Down));
    assert_eq!(r.risks.len(), 1, "{:?}", r.risks);
    let servers = r.servers.as_ref().expect("read");
    assert_eq!((servers.read, servers.unread), (4, 0));
    let n = node(&r, "cache-0-1");
    assert_eq!(
        n.server.as_ref().and_then(|s| s.link),
        Some(LinkStatus::Down)
    );

    // Nothing moves past the threshold: Stalled, for the same reason.
    let later = judge(&s, mins(30));
    assert_eq!(later.verdict, Verdict::Stalled, "{}", later.reason);
    assert!(later.reason.to_string().contains("waits for cache-0-1"));

    // Once synced, the wait and the risk are gone.
    let mut synced = readings(t(-1));
    synced[1].link = Some(LinkStatus::Up);
    let r = judge(&with(rolling().snapshot(), synced), t(0));
    assert_eq!(r.deferred, None);
    assert!(r.risks.iter().all(|k| k.kind != RiskKind::NoSyncedReplica));
    // Flagged failing, it is not synced (the operator's rule).
    let mut flagged = readings(t(-1));
    flagged[1].link = Some(LinkStatus::Up);
    flagged[1].flags.push("fail?".into());
    let r = judge(&with(rolling().snapshot(), flagged), t(0));
    assert!(r.deferred.is_some());
}

#[test]
fn a_reading_that_does_not_count_leaves_the_api_role_with_a_note() {
    let mut c = rolling();
    c.with_node("cache-0-1", |n| n.pod_created(mins(-10)));
    let base = c.snapshot();
    let api = judge(&base, t(0));
    type Change = Box<dyn Fn(&mut Vec<ServerReading>)>;
    type Is = fn(&ServerNote) -> bool;
    let cases: Vec<(&str, Change, Is)> = vec![
        (
            "missing",
            Box::new(|r| {
                r.remove(1);
            }),
            |n| matches!(n, ServerNote::Missing),
        ),
        (
            "failed",
            Box::new(|r| r[1].error = Some("timed out".into())),
            |n| matches!(n, ServerNote::Unread { error } if error == "timed out"),
        ),
        (
            "another pod",
            Box::new(|r| r[1].metadata.name = Some("valkey-cache-0-1-old".into())),
            |n| matches!(n, ServerNote::OtherPod { .. }),
        ),
        (
            "older than its pod, and saying otherwise",
            Box::new(|r| {
                r[1].observed_at = Time(mins(-11));
                r[1].role = Some(ServerRole::Primary);
            }),
            |n| matches!(n, ServerNote::Stale { .. }),
        ),
    ];
    for (row, change, is) in cases {
        let mut rs = readings(t(-1));
        change(&mut rs);
        let r = judge(&with(base.clone(), rs), t(0));
        let n = node(&r, "cache-0-1");
        let before = node(&api, "cache-0-1");
        assert_eq!(n.role, before.role, "{row}");
        assert_eq!(n.role_source, before.role_source, "{row}");
        match &n.role_note {
            Some(RoleNote::Server(note)) => assert!(is(note), "{row}: {note:?}"),
            other => panic!("{row}: {other:?}"),
        }
        assert_eq!(n.server, None, "{row}");
        // No synced replica is known in its shard either way.
        assert!(r.deferred.is_some(), "{row}");
    }
}

#[test]
fn a_server_outranks_the_api_and_names_a_failover_nobody_made() {
    // Shard 1's servers say cache-1-1 is the primary; the API still says
    // cache-1-0, and nothing of the roll explains it.
    let mut rs = readings(t(-1));
    rs[2].role = Some(ServerRole::Replica);
    rs[2].link = Some(LinkStatus::Up);
    rs[3].role = Some(ServerRole::Primary);
    rs[3].link = None;
    let r = judge(&with(rolling().snapshot(), rs), t(0));
    assert_eq!(node(&r, "cache-1-1").role, Some(Role::Primary));
    assert_eq!(node(&r, "cache-1-0").role, Some(Role::Replica));
    let [u] = r.unplanned.as_slice() else {
        panic!("one unplanned failover: {:?}", r.unplanned);
    };
    assert_eq!((u.shard, u.to.as_str()), (1, "cache-1-1"));
    assert_eq!(u.from.as_deref(), Some("cache-1-0"));
    let asides = crate::render::words::asides(&r).join("\n");
    assert!(
        asides.contains("cache-1-1 is shard 1's primary by its server, not cache-1-0"),
        "{asides}"
    );
}

#[test]
fn a_fresh_server_is_not_its_shards_primary() {
    // cache-0-1's new server is still an empty master (alone: its cluster
    // state fails) beside the primary cache-0-0.
    let mut rs = readings(t(-1));
    rs[1].role = Some(ServerRole::Primary);
    rs[1].link = None;
    rs[1].cluster_state = Some("fail".into());
    let r = judge(&with(rolling().snapshot(), rs), t(0));
    assert_eq!(node(&r, "cache-0-0").role_source, Some(RoleSource::Server));
    let n = node(&r, "cache-0-1");
    assert!(
        matches!(
            n.role_note,
            Some(RoleNote::Server(ServerNote::EmptyPrimary { .. }))
        ),
        "{:?}",
        n.role_note
    );
    // Its shard has no synced replica: at risk, and the front waits.
    assert!(r.deferred.is_some());
    // The cluster state of a fresh server is no risk; a primary's is.
    assert!(r.risks.iter().all(|k| k.kind != RiskKind::ClusterStateFail));
    let mut rs = readings(t(-1));
    rs[2].cluster_state = Some("fail".into());
    let r = judge(&with(rolling().snapshot(), rs), t(0));
    assert!(
        r.risks
            .iter()
            .any(|k| k.kind == RiskKind::ClusterStateFail && k.shard == 1)
    );
}
