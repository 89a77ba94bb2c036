//! The exporter against the real control plane (kube-controller-manager,
//! kube-scheduler, kwok) and the simulated operator (harness::operator),
//! through a roll: scraped every 200 ms from a settled cluster, the verdict
//! series follows the roll: Converged, Rolling once the image changes,
//! Jammed once the first node's `:broken` image crash-loops (naming that
//! node), and Converged again after the revert and the trapped pod's
//! deletion (controllers_e2e's scenario (c)). Every distinct scrape passes
//! `promtool check metrics`; `/readyz` is 200 throughout. The scrape taken
//! during the jam is written to `<target>/exporter-jammed.prom`.

mod harness;
#[path = "exporter/scrape.rs"]
mod scrape;

use harness::controlplane::eventually;
use harness::operator::Operator;
use kube::api::DeleteParams;
use scrape::{Exporter, Metrics, promtool_check};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const BOUND: Duration = Duration::from_secs(180);
const CLUSTER: &str = "rig";
const OLD: &str = "valkey/valkey:9.0.0";
const BROKEN: &str = "valkey/valkey:broken";
/// The first node the walk reaches (no status.role: node index descending).
const FIRST: &str = "rig-0-1";

/// Waits until the ValkeyCluster is Ready for its generation with every
/// node ready on `image`, by the API's word.
async fn until_settled(op: &Operator, image: &str) {
    let sim = op.sim.clone();
    eventually("the cluster settled", BOUND, || {
        let sim = sim.clone();
        async move {
            op.check();
            let vc = serde_json::to_value(sim.get_cluster().await).unwrap();
            let ready = vc["status"]["conditions"]
                .as_array()
                .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready").cloned())
                .unwrap_or(Value::Null);
            let nodes = sim
                .nodes()
                .list(&Default::default())
                .await
                .map_err(|e| e.to_string())?;
            let settled = nodes.items.len() == 4
                && nodes.items.iter().all(|n| {
                    let v = serde_json::to_value(n).unwrap();
                    v["status"]["ready"] == true
                        && v["status"]["observedGeneration"] == v["metadata"]["generation"]
                        && v["spec"]["image"] == image
                });
            if ready["status"] == "True"
                && ready["observedGeneration"] == vc["metadata"]["generation"]
                && settled
            {
                Ok(())
            } else {
                Err(format!("Ready {ready}"))
            }
        }
    })
    .await;
}

/// Every scrape in order, and the verdicts it saw (each change once).
#[derive(Default)]
struct Seen {
    verdicts: Vec<String>,
    /// The first scrape of each verdict seen, and every distinct text.
    scrapes: Vec<(String, Metrics)>,
    /// `/readyz` answered 200 once.
    ready_once: bool,
    /// `/readyz` answers other than 200 after that.
    not_ready: Vec<String>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_verdict_series_follows_a_roll_that_jams_and_is_freed() {
    let cp = harness::control_plane();
    let ns = cp.fresh_namespace("exp-roll");
    let op = Operator::start(cp.client().await, &ns, CLUSTER);
    op.create_cluster(OLD, 2, 1).await;
    until_settled(&op, OLD).await;

    let args: Vec<String> = [
        "--kubeconfig",
        &cp.kubeconfig().display().to_string(),
        "-n",
        &ns,
    ]
    .map(String::from)
    .to_vec();
    let exporter = Arc::new(Exporter::start(&args, BOUND).await);
    let labels = [("namespace", ns.as_str()), ("cluster", CLUSTER)];

    // The scraper: every 200 ms, as long as the test runs.
    let seen = Arc::new(Mutex::new(Seen::default()));
    let scraper = {
        let (exporter, seen, ns) = (Arc::clone(&exporter), Arc::clone(&seen), ns.clone());
        tokio::spawn(async move {
            let labels = [("namespace", ns.as_str()), ("cluster", CLUSTER)];
            loop {
                let m = exporter.metrics().await;
                let (ready, why) = exporter.get("/readyz").await;
                {
                    let mut seen = seen.lock().unwrap();
                    if ready == 200 {
                        seen.ready_once = true;
                    } else if seen.ready_once {
                        seen.not_ready.push(why);
                    }
                    if let Some(v) = m.verdict(&labels)
                        && seen.verdicts.last() != Some(&v)
                    {
                        seen.verdicts.push(v.clone());
                        seen.scrapes.push((v, m));
                    }
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let until_verdict = |want: &'static str| {
        let seen = Arc::clone(&seen);
        async move {
            eventually(&format!("a scrape saying {want}"), BOUND, || {
                let seen = Arc::clone(&seen);
                async move {
                    let seen = seen.lock().unwrap();
                    if seen.verdicts.last().map(String::as_str) == Some(want) {
                        Ok(())
                    } else {
                        Err(format!("verdicts so far {:?}", seen.verdicts))
                    }
                }
            })
            .await
        }
    };

    until_verdict("Converged").await;
    let settled = exporter.metrics().await;
    assert_eq!(settled.value("valkey_roll_total_nodes", &labels), Some(4.0));
    assert_eq!(
        settled.value(
            "valkey_roll_nodes",
            &[labels[0], labels[1], ("state", "Converged")]
        ),
        Some(4.0)
    );
    assert!(
        settled
            .nodes("valkey_roll_holder_seconds", &labels)
            .is_empty()
    );
    assert_eq!(
        settled.value("valkey_roll_exporter_ready", &[("context", "")]),
        Some(1.0)
    );

    // A :broken image: the first node rolls, then crash-loops.
    op.sim.edit_cluster_spec(json!({"image": BROKEN})).await;
    until_verdict("Jammed").await;
    let jammed = exporter.metrics().await;
    let jam_node = jammed
        .nodes("valkey_roll_holder_seconds", &labels)
        .into_iter()
        .chain(jammed.nodes("valkey_roll_front", &labels))
        .next();
    assert_eq!(jam_node.as_deref(), Some(FIRST), "{}", jammed.text);
    assert_eq!(
        jammed.value(
            "valkey_roll_nodes",
            &[labels[0], labels[1], ("state", "Waiting")]
        ),
        Some(3.0),
        "{}",
        jammed.text
    );
    let out = harness::procs::target_dir().join("exporter-jammed.prom");
    std::fs::write(&out, &jammed.text).expect("write the jammed scrape");
    println!(
        "the scrape during the jam ({}):\n{}",
        out.display(),
        jammed.text
    );

    // Revert, then free the pod the StatefulSet leaves on the broken
    // revision (the OrderedReady trap): the roll finishes.
    op.sim.edit_cluster_spec(json!({"image": OLD})).await;
    let statefulsets = op.sim.statefulsets();
    eventually("the revert applied to the StatefulSet", BOUND, || async {
        let sts = statefulsets
            .get(&format!("valkey-{FIRST}"))
            .await
            .map_err(|e| e.to_string())
            .map(|s| serde_json::to_value(s).unwrap())?;
        let st = &sts["status"];
        if sts["spec"]["template"]["spec"]["containers"][0]["image"] == OLD
            && st["observedGeneration"] == sts["metadata"]["generation"]
            && st["currentRevision"] == st["updateRevision"]
        {
            Ok(())
        } else {
            Err(format!("StatefulSet status {st}"))
        }
    })
    .await;
    let pods = op.sim.pods();
    pods.delete(&format!("valkey-{FIRST}-0"), &DeleteParams::default())
        .await
        .expect("delete the trapped pod");
    until_settled(&op, OLD).await;
    until_verdict("Converged").await;
    scraper.abort();

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let order: Vec<&str> = seen.verdicts.iter().map(String::as_str).collect();
    let at = |v: &str, from: usize| order[from..].iter().position(|x| *x == v).map(|i| i + from);
    let rolling = at("Rolling", 1).unwrap_or_else(|| panic!("no Rolling: {order:?}"));
    let jam = at("Jammed", rolling).unwrap_or_else(|| panic!("no Jammed after Rolling: {order:?}"));
    assert_eq!(order.first(), Some(&"Converged"), "{order:?}");
    assert_eq!(order.last(), Some(&"Converged"), "{order:?}");
    assert!(jam > rolling, "{order:?}");
    assert!(seen.ready_once, "/readyz never said ready");
    assert!(
        seen.not_ready.is_empty(),
        "/readyz said not ready during the roll: {:?}",
        seen.not_ready
    );
    let promtool = harness::promtool();
    for (verdict, m) in &seen.scrapes {
        let (ok, words) = promtool_check(&promtool, &m.text);
        assert!(
            ok,
            "promtool check metrics on the {verdict} scrape:\n{words}\n{}",
            m.text
        );
    }
    println!("verdicts scraped, in order: {order:?}");
    op.stop().await;
}
