//! The exporter while the API server goes away and comes back (a test file
//! of its own: stopping the server affects every test of its binary), and
//! bad requests (garbage, POST, unknown paths, a client that never sends
//! its headers) answered without effect. The exporter keeps serving: `/healthz` stays 200 and the process runs;
//! `/readyz` goes 503 naming what it cannot see; the cluster's series go
//! (absent, never the last value as if current) while `watch_up` says 0
//! and the errors count `unreachable`; after the restart the view is whole
//! again, `/readyz` is 200 and the series are back, and a change made
//! after the restart shows in them.

mod harness;
#[path = "exporter/scrape.rs"]
mod scrape;

use harness::sim::{self, Layout, Sim};
use scrape::Exporter;
use std::time::Duration;

const BOUND: Duration = Duration::from_secs(90);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_exporter_marks_a_vanished_server_and_comes_back_with_it() {
    let s = harness::server();
    let sim = Sim::fresh("exp-fault", &Layout::default()).await;
    let ns = sim.ns.clone();
    let args: Vec<String> = [
        "--kubeconfig",
        &s.kubeconfig().display().to_string(),
        "-n",
        &ns,
        "--request-timeout=5s",
    ]
    .map(String::from)
    .to_vec();
    let exporter = Exporter::start(&args, BOUND).await;
    let labels = [("namespace", ns.as_str()), ("cluster", "cache")];
    let ctx = [("context", "")];

    scrape::until(
        "a ready exporter with the cluster Converged",
        BOUND,
        || async {
            let m = exporter.metrics().await;
            let (code, why) = exporter.get("/readyz").await;
            match (code, m.verdict(&labels)) {
                (200, Some(v)) if v == "Converged" => Ok(()),
                other => Err(format!("{other:?} {why}")),
            }
        },
    )
    .await;

    // Bad requests are answered and change nothing: garbage, another
    // method, another path, and a client that never finishes its headers.
    let garbage = exporter.raw(b"\x00\x01 NOT HTTP\r\n\r\n").await;
    assert!(
        garbage.is_empty() || garbage.starts_with("HTTP/1.1 400"),
        "{garbage:?}"
    );
    let post = exporter
        .raw(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        .await;
    assert!(post.starts_with("HTTP/1.1 405"), "{post}");
    assert!(post.to_lowercase().contains("allow: get, head"), "{post}");
    assert_eq!(exporter.get("/nope").await.0, 404);
    let _stuck = tokio::net::TcpStream::connect(exporter.addr)
        .await
        .expect("connect");
    assert_eq!(exporter.get("/healthz").await.0, 200);

    s.stop();
    let lost = std::time::Instant::now();
    let blind = scrape::until("/readyz not ready and the series gone", BOUND, || async {
        let (code, why) = exporter.get("/readyz").await;
        let m = exporter.metrics().await;
        if code == 503 && m.samples("valkey_roll_verdict", &labels).is_empty() {
            Ok((why, m))
        } else {
            Err(format!("readyz {code} {why}"))
        }
    })
    .await;
    let (why, m) = blind;
    // As the other live views (docs/usage.md, "When the connection is
    // lost"): nothing shown as now within 10 s of the loss.
    let took = lost.elapsed();
    eprintln!("the series went {took:?} after the stop");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(why.starts_with("the current context: not ready: "), "{why}");
    // Nothing about the cluster is exported while it cannot be seen.
    for family in [
        "valkey_roll_info",
        "valkey_roll_nodes",
        "valkey_roll_total_nodes",
        "valkey_roll_failover_in_progress",
    ] {
        assert!(
            m.samples(family, &labels).is_empty(),
            "{family}:\n{}",
            m.text
        );
    }
    assert_eq!(m.value("valkey_roll_exporter_ready", &ctx), Some(0.0));
    let down: Vec<&str> = m
        .samples("valkey_roll_exporter_watch_up", &ctx)
        .into_iter()
        .filter(|l| l.ends_with(" 0"))
        .collect();
    assert!(!down.is_empty(), "no kind is down:\n{}", m.text);
    // The health series are still served, with the error counted.
    let errors = scrape::until("an unreachable error counted", BOUND, || async {
        let m = exporter.metrics().await;
        match m.value(
            "valkey_roll_exporter_errors_total",
            &[("context", ""), ("error", "unreachable")],
        ) {
            Some(n) if n >= 1.0 => Ok(n),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert!(errors >= 1.0);
    let (code, body) = exporter.get("/healthz").await;
    assert_eq!((code, body.as_str()), (200, "ok\n"));
    let mut plugin = exporter.plugin;
    assert!(plugin.exited().is_none(), "{}", plugin.transcript());
    let exporter = Exporter {
        plugin,
        addr: exporter.addr,
    };

    s.start();
    scrape::until(
        "ready again with the cluster's series back",
        BOUND,
        || async {
            let (code, why) = exporter.get("/readyz").await;
            let m = exporter.metrics().await;
            match (code, m.verdict(&labels)) {
                (200, Some(v)) if v == "Converged" => Ok(()),
                other => Err(format!("{other:?} {why}")),
            }
        },
    )
    .await;
    // The view is live: a node that asks after the restart makes the roll
    // Waiting.
    let sim = Sim::new(s.client().await, &ns, "cache");
    let h = sim::hash("exp-fault");
    sim.ask(&["cache-0-1"], &h).await;
    scrape::until("the change after the restart", BOUND, || async {
        let m = exporter.metrics().await;
        match m.verdict(&labels) {
            Some(v) if v != "Converged" => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    let mut plugin = exporter.plugin;
    assert!(plugin.exited().is_none(), "{}", plugin.transcript());
    plugin.drain();
    let log = plugin.stderr.join("\n");
    assert!(log.contains("the current context: not ready: "), "{log}");
    assert!(log.contains("the current context: ready"), "{log}");
}
