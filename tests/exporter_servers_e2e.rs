//! `exporter --servers` (docs/metrics.md, "The servers") on the real
//! control plane with real valkey-servers (harness::valkey_rig: 2 shards
//! of 2, each pod's server bound to its kwok IP), read straight at the
//! pod IPs (a bare `--servers`) every 2 s (`--servers-interval`):
//!
//! - settled: every server read, no shard at risk, by an exporter that
//!   reads them straight and by one through the API server's
//!   port-forward;
//! - shard 1's replica restarts with a wrong `primaryauth`, its link stays
//!   down: `valkey_roll_shard_at_risk{shard="1",primary="rig-1-0",
//!   kind="NoSyncedReplica"}` is on a scrape within the interval (and a
//!   round and a judgement) of the link going down, with no API write;
//!   the right `primaryauth` again: the series goes as quickly;
//! - shard 0's replica's server hangs (it accepts and never answers):
//!   `valkey_roll_servers_unread{reason="timed_out"} 1`, three read, the
//!   cluster's other series all there, one log line naming the pod, and
//!   every scrape answered at once while the reads wait on it;
//! - in no scrape and no log line (at `-v 8`) any password, plain or in
//!   base64; every scrape passes `promtool check metrics`.

mod harness;
#[path = "exporter/scrape.rs"]
mod scrape;

use base64::Engine;
use harness::valkey::{PORT, Passwords};
use harness::valkey_rig::{
    BOUND, CLUSTER, Fake, assert_no_password, link_down, rig_readable, until_link,
};
use scrape::{Exporter, Metrics, promtool_check};
use std::time::{Duration, Instant};

/// `--servers-interval`.
const INTERVAL: Duration = Duration::from_secs(2);

/// What the test allows beyond the interval for a change to show: a round
/// of four servers (milliseconds each), the judgement (at most one a
/// second), and the scrapes' own pace.
const SLACK: Duration = Duration::from_secs(4);

/// Scrapes until `want` holds; returns the scrape and how long it took.
/// Every scrape is checked for passwords and answered within a second.
async fn until(
    exporter: &Exporter,
    pw: &Passwords,
    what: &str,
    bound: Duration,
    want: impl Fn(&Metrics) -> bool,
) -> (Metrics, Duration) {
    let started = Instant::now();
    loop {
        let asked = Instant::now();
        let m = exporter.metrics().await;
        let took = asked.elapsed();
        assert!(
            took < Duration::from_secs(1),
            "a scrape took {took:?} while the servers were read"
        );
        no_password(pw, "a scrape", &m.text);
        if want(&m) {
            return (m, started.elapsed());
        }
        assert!(
            started.elapsed() < bound,
            "no scrape with {what} within {bound:?}; the last:\n{}\n{}",
            m.text,
            exporter.plugin.transcript()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// No password, plain or as the Secret holds it (base64).
fn no_password(pw: &Passwords, what: &str, text: &str) {
    assert_no_password(pw, what, text);
    let b64 = base64::engine::general_purpose::STANDARD;
    for p in [&pw.exporter, &pw.operator, &pw.replication] {
        assert!(
            !text.contains(&b64.encode(p.as_bytes())),
            "a password in base64 in {what}:\n{text}"
        );
    }
}

fn at_risk<'a>(m: &'a Metrics, ns: &'a str) -> Vec<&'a str> {
    m.samples(
        "valkey_roll_shard_at_risk",
        &[("namespace", ns), ("cluster", CLUSTER)],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shards_at_risk_and_servers_unread_follow_the_servers() {
    let (op, ns, pw, mut servers, _) = rig_readable("exp-servers").await;
    let cp = harness::control_plane();
    let args: Vec<String> = [
        "--kubeconfig",
        &cp.kubeconfig().display().to_string(),
        "-n",
        &ns,
        "-v",
        "8",
    ]
    .map(String::from)
    .to_vec();
    let interval = format!("{}s", INTERVAL.as_secs());
    let mut exporter = Exporter::start_with(
        &args,
        &["--servers", "--servers-interval", &interval],
        BOUND,
    )
    .await;
    let labels = [("namespace", ns.as_str()), ("cluster", CLUSTER)];
    let promtool = harness::promtool();

    // Settled: every server read, no shard at risk.
    let (settled, _) = until(&exporter, &pw, "four servers read", BOUND, |m| {
        m.value("valkey_roll_servers_read", &labels) == Some(4.0)
            && m.verdict(&labels).as_deref() == Some("Converged")
    })
    .await;
    assert!(at_risk(&settled, &ns).is_empty(), "{}", settled.text);
    assert!(
        settled
            .samples("valkey_roll_servers_unread", &labels)
            .is_empty(),
        "{}",
        settled.text
    );

    // The same through the API server's port-forward (kwok forwards each
    // pod's 6379 to its server), for an exporter outside the cluster.
    let forwarded = Exporter::start_with(
        &args,
        &["--servers=port-forward", "--servers-interval", &interval],
        BOUND,
    )
    .await;
    until(
        &forwarded,
        &pw,
        "four servers read by port-forward",
        BOUND,
        |m| m.value("valkey_roll_servers_read", &labels) == Some(4.0) && at_risk(m, &ns).is_empty(),
    )
    .await;
    drop(forwarded);

    // Shard 1's replica comes back with a wrong primaryauth: no API write,
    // only its server says so.
    link_down(&mut servers, &pw, "rig-1-1").await;
    let risk = [
        labels[0],
        labels[1],
        ("shard", "1"),
        ("primary", "rig-1-0"),
        ("kind", "NoSyncedReplica"),
    ];
    let (risky, took) = until(
        &exporter,
        &pw,
        "shard 1 at risk",
        INTERVAL + SLACK + Duration::from_secs(30),
        |m| m.value("valkey_roll_shard_at_risk", &risk) == Some(1.0),
    )
    .await;
    assert!(
        took <= INTERVAL + SLACK,
        "shard 1 at risk showed {took:?} after its link went down"
    );
    assert_eq!(at_risk(&risky, &ns).len(), 1, "{}", risky.text);
    let (ok, words) = promtool_check(&promtool, &risky.text);
    assert!(ok, "promtool check metrics:\n{words}\n{}", risky.text);
    println!("shard 1 at risk on a scrape {took:?} after its link went down");

    // The right primaryauth: the link comes up, the series goes.
    servers
        .get_mut("rig-1-1")
        .unwrap()
        .restart_with_primaryauth(&pw, &pw.replication.clone())
        .await;
    until_link(&servers["rig-1-1"].ip, &pw, "up").await;
    let (healthy, took) = until(
        &exporter,
        &pw,
        "no shard at risk",
        INTERVAL + SLACK + Duration::from_secs(30),
        |m| at_risk(m, &ns).is_empty() && m.value("valkey_roll_servers_read", &labels) == Some(4.0),
    )
    .await;
    assert!(
        took <= INTERVAL + SLACK,
        "the risk went {took:?} after the link came up"
    );
    assert_eq!(healthy.verdict(&labels).as_deref(), Some("Converged"));

    // Shard 0's replica's server hangs: bounded (3 s), named, the other
    // three read, the cluster's series all there, and no scrape waits.
    let ip01 = servers["rig-0-1"].ip.clone();
    servers.get_mut("rig-0-1").unwrap().kill();
    let listener = tokio::net::TcpListener::bind((ip01.as_str(), PORT))
        .await
        .expect("bind the hanging server");
    let hanging = tokio::spawn(Fake::Hang.serve(listener));
    let (unread, _) = until(&exporter, &pw, "one server timed out", BOUND, |m| {
        m.value(
            "valkey_roll_servers_unread",
            &[labels[0], labels[1], ("reason", "timed_out")],
        ) == Some(1.0)
    })
    .await;
    assert_eq!(
        unread.value("valkey_roll_servers_read", &labels),
        Some(3.0),
        "{}",
        unread.text
    );
    assert_eq!(
        unread.samples("valkey_roll_servers_unread", &labels).len(),
        1,
        "{}",
        unread.text
    );
    // Nothing else lost: the verdict, the nodes, the progress are there;
    // shard 0's replica, not read, is not synced by the operator's rule.
    assert_eq!(unread.verdict(&labels).as_deref(), Some("Converged"));
    assert_eq!(
        unread.value("valkey_roll_total_nodes", &labels),
        Some(4.0),
        "{}",
        unread.text
    );
    assert_eq!(
        unread.value(
            "valkey_roll_shard_at_risk",
            &[
                labels[0],
                labels[1],
                ("shard", "0"),
                ("kind", "NoSyncedReplica")
            ]
        ),
        Some(1.0),
        "{}",
        unread.text
    );
    let (ok, words) = promtool_check(&promtool, &unread.text);
    assert!(ok, "promtool check metrics:\n{words}\n{}", unread.text);
    // Scrapes while a round waits on the hanging server: each at once.
    let watched = Instant::now();
    while watched.elapsed() < INTERVAL + Duration::from_secs(4) {
        until(&exporter, &pw, "a scrape", BOUND, |_| true).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    exporter.plugin.drain();
    let log = exporter.plugin.stderr.join("\n");
    assert!(
        log.contains("1 of 4 servers of cluster rig not read (valkey-rig-0-1-0 timed out"),
        "{log}"
    );
    assert!(
        log.contains("secrets/internal-rig-system-passwords"),
        "-v 8 did not log the Secret's GET:\n{log}"
    );
    no_password(&pw, "the exporter's log", &log);
    hanging.abort();
    let _ = hanging.await;

    // In its place, a server answering INFO with 50,000 levels of nested
    // arrays (issue 42: 16,384 aborted the exporter, its workers' stacks
    // being small): that one server is a bad reply, the exporter lives on
    // and the other three are read.
    let listener = tokio::net::TcpListener::bind((ip01.as_str(), PORT))
        .await
        .expect("bind the deep server");
    let deep = tokio::spawn(Fake::Deep.serve(listener));
    let (bad, _) = until(&exporter, &pw, "one server a bad reply", BOUND, |m| {
        m.value(
            "valkey_roll_servers_unread",
            &[labels[0], labels[1], ("reason", "bad_reply")],
        ) == Some(1.0)
    })
    .await;
    assert_eq!(
        bad.value("valkey_roll_servers_read", &labels),
        Some(3.0),
        "{}",
        bad.text
    );
    assert_eq!(bad.verdict(&labels).as_deref(), Some("Converged"));
    until(&exporter, &pw, "a scrape after it", BOUND, |_| true).await;
    deep.abort();
    let _ = deep.await;
    op.stop().await;
}
