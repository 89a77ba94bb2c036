//! `dashboard --servers` (issue 43 item 2) on the real control plane with
//! real valkey-servers (harness::valkey_rig: 2 shards of 2, each pod's
//! server bound to its kwok IP): the page's cards carry what the servers
//! said, as `status --watch --servers` does, read by the same re-reader
//! beside the watch:
//!
//! - settled: every node's role from its own server (`roleSource:
//!   "server"` in the card's status entry), no shard at risk;
//! - shard 1's replica restarts with a wrong `primaryauth`, its link stays
//!   down, with no API write: the card says, among its asides, that shard
//!   1 has no synced replica, naming its primary and the replica;
//! - shard 0's replica's server dies: the card's verdict says
//!   `servers: 1 of 4 not read`, in no success colour.

mod harness;
#[path = "dashboard/page.rs"]
mod page;

use harness::valkey_rig::{BOUND, CLUSTER, link_down, rig_readable};
use page::{Dashboard, Event};
use serde_json::Value;

/// The `cluster` event's card of the rig's cluster, if it is one.
fn rig_card(e: &Event) -> Option<&Value> {
    (e.kind == "cluster" && e.data["card"]["cluster"]["name"] == CLUSTER).then_some(&e.data["card"])
}

fn asides(card: &Value) -> Vec<String> {
    card["headline"]["asides"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a.as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_what_the_servers_say() {
    let (op, ns, pw, mut servers, _) = rig_readable("dash-servers").await;
    let cp = harness::control_plane();
    let dash = Dashboard::start(cp.kubeconfig(), &ns, &["--servers=direct"], BOUND).await;
    let mut events = dash.events().await;

    // Settled: every role from its server, nothing at risk.
    let settled = events
        .until("every role from its server", BOUND, |e| {
            rig_card(e).is_some_and(|c| {
                let nodes = c["cluster"]["nodes"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                nodes.len() == 4 && nodes.iter().all(|n| n["roleSource"] == "server")
            })
        })
        .await;
    let card = rig_card(&settled).cloned().unwrap_or_default();
    assert_eq!(card["headline"]["verdict"], "CONVERGED", "{card:#}");
    // Every server read: nothing said of them on the verdict.
    assert_eq!(card["headline"]["servers"], Value::Null, "{card:#}");
    assert_eq!(card["headline"]["tone"], "good", "{card:#}");
    assert!(
        !asides(&card)
            .iter()
            .any(|a| a.contains("no synced replica")),
        "{card:#}"
    );

    // Shard 1's replica's link goes down: no API write, the servers say it.
    link_down(&mut servers, &pw, "rig-1-1").await;
    let risky = events
        .until("shard 1 without a synced replica", BOUND, |e| {
            rig_card(e).is_some_and(|c| {
                asides(c)
                    .iter()
                    .any(|a| a.contains("shard 1 has no synced replica"))
            })
        })
        .await;
    let card = rig_card(&risky).cloned().unwrap_or_default();
    let said = asides(&card)
        .into_iter()
        .find(|a| a.contains("shard 1 has no synced replica"))
        .unwrap_or_default();
    eprintln!("the page says: {said}");
    assert!(said.contains("rig-1-0"), "the primary: {said}");
    assert!(said.contains("rig-1-1"), "the replica: {said}");
    // Nothing of the passwords anywhere the page was sent.
    harness::valkey_rig::assert_no_password(&pw, "the events", &risky.raw);

    // Shard 0's replica's server dies: the card says on its verdict that
    // one of the four was not read, in no success colour (issue 43 item 3).
    if let Some(s) = servers.get_mut("rig-0-1") {
        s.kill();
    }
    let unread = events
        .until("a server not read, on the verdict", BOUND, |e| {
            rig_card(e).is_some_and(|c| c["headline"]["servers"] == "servers: 1 of 4 not read")
        })
        .await;
    let card = rig_card(&unread).cloned().unwrap_or_default();
    eprintln!(
        "the card's verdict: {} · {} ({})",
        card["headline"]["verdict"], card["headline"]["servers"], card["headline"]["tone"]
    );
    assert_ne!(card["headline"]["tone"], "good", "{card:#}");

    let mut dash = dash;
    dash.plugin.interrupt();
    let status = dash.plugin.exit(BOUND).await;
    assert_eq!(status.code(), Some(0), "{}", dash.plugin.transcript());
    op.stop().await;
}
