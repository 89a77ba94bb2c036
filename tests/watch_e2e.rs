//! `status --watch` against the real API server: off a terminal it prints
//! one report per visible change and none while nothing changes, re-judges
//! on a timer (a holder crossing the stall threshold turns Stuck without
//! any API event), and survives the API server restarting.
//!
//! The restart test stops the API server that every test of this binary
//! shares: it takes [`SERVER`] for writing, the others for reading, so it
//! runs alone. Every wait is bounded; no timing is asserted.

mod harness;

use harness::plugin::Plugin;
use harness::sim::{self, Layout, Sim};
use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::sync::{RwLock, mpsc};

/// Generous bound for anything that should happen "soon" (each
/// [`Plugin::until`] wait).
const BOUND: Duration = Duration::from_secs(120);

/// Held for reading by every test, for writing by the one that stops the
/// API server.
static SERVER: RwLock<()> = RwLock::const_new(());

/// The headline of cluster `cache` with `verdict`, as the table prints it
/// ("ns/cache  WAITING  ..."). A bare "WAITING" would also match the
/// HELD/WAITING column header, which every frame carries.
fn headline(verdict: &str) -> String {
    format!("/cache  {verdict}  ")
}

/// Reports printed off a terminal with `-o table`: one `--- <time>` line each.
fn table_reports(p: &Plugin) -> usize {
    p.stdout.iter().filter(|l| l.starts_with("--- ")).count()
}

/// Reports printed off a terminal with `-o json`: one document per line.
fn json_reports(p: &Plugin) -> Vec<Value> {
    p.stdout
        .iter()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("a JSON document per line: {e}: {l}"))
        })
        .collect()
}

fn node_state(report: &Value, node: &str) -> String {
    report["clusters"][0]["nodes"]
        .as_array()
        .and_then(|nodes| nodes.iter().find(|n| n["name"] == node))
        .and_then(|n| n["state"].as_str())
        .unwrap_or("")
        .to_string()
}

/// Rows 1 to 3 of the builder-only roll: both nodes ask for `h`, and
/// cache-0-1 is granted (annotation, then the event that dates the grant).
async fn holder(sim: &Sim, h: &str) {
    sim.ask(&["cache-0-1", "cache-0-0"], h).await;
    sim.node("cache-0-1").grant(h).await;
    sim.event_permitted("cache-0-1", h).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_a_terminal_one_report_per_visible_change_and_none_while_nothing_changes() {
    let _shared = SERVER.read().await;
    let s = harness::server();
    let sim = Sim::fresh("watch-count", &Layout::default()).await;
    let ns = sim.ns.clone();
    let h = sim::hash("watch-count");
    holder(&sim, &h).await;

    let mut watch = Plugin::spawn(
        &s.kubeconfig_in(&ns),
        &ns,
        &["status", "cache", "--watch"],
        BOUND,
    );
    watch
        .until("the first report", |p| {
            table_reports(p) == 1 && p.stdout.iter().any(|l| l.contains("ROLLING"))
        })
        .await;

    // Nothing changes but the holder's hold time: no report.
    tokio::time::sleep(Duration::from_secs(4)).await;
    watch.drain();
    assert_eq!(table_reports(&watch), 1, "{}", watch.transcript());

    // An API change that shows nowhere: no report.
    sim.clusters()
        .patch(
            "cache",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"team": "storage"}}})),
        )
        .await
        .expect("label the ValkeyCluster");
    tokio::time::sleep(Duration::from_secs(3)).await;
    watch.drain();
    assert_eq!(table_reports(&watch), 1, "{}", watch.transcript());

    // A visible change (row 4: the cluster's state): exactly one report.
    sim.cluster_updating().await;
    watch
        .until("the report of the new cluster state", |p| {
            table_reports(p) == 2
        })
        .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    watch.drain();
    assert_eq!(table_reports(&watch), 2, "{}", watch.transcript());
    let second = watch
        .stdout
        .iter()
        .rposition(|l| l.starts_with("--- "))
        .expect("second report");
    assert!(
        watch.stdout[second..]
            .iter()
            .any(|l| l.contains("Reconciling/UpdatingNodes")),
        "{}",
        watch.transcript()
    );
    assert!(
        watch.stderr.is_empty(),
        "nothing on stderr while live\n{}",
        watch.transcript()
    );

    // Ctrl-C: exit 0.
    watch.interrupt();
    let status = watch.exit(BOUND).await;
    assert_eq!(status.code(), Some(0), "{}", watch.transcript());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_crossing_the_stall_threshold_turns_stuck_without_an_api_event() {
    let _shared = SERVER.read().await;
    let s = harness::server();
    let sim = Sim::fresh("watch-stall", &Layout::default()).await;
    let ns = sim.ns.clone();
    let h = sim::hash("watch-stall");
    holder(&sim, &h).await;

    let mut watch = Plugin::spawn(
        &s.kubeconfig_in(&ns),
        &ns,
        &[
            "status",
            "cache",
            "--watch",
            // Counted from the grant written above: long enough that the
            // first report, on a busy machine too, still shows it Rolling.
            "--stall-threshold",
            "15s",
            "-o",
            "json",
        ],
        BOUND,
    );
    watch
        .until("the first report", |p| !p.stdout.is_empty())
        .await;
    let first = json_reports(&watch).remove(0);
    assert_eq!(node_state(&first, "cache-0-1"), "Rolling", "{first}");
    assert_eq!(first["clusters"][0]["verdict"], "Rolling", "{first}");

    // No write from here on: only the clock moves.
    watch
        .until("the holder turning Stuck", |p| {
            json_reports(p)
                .iter()
                .any(|r| node_state(r, "cache-0-1") == "Stuck")
        })
        .await;
    let reports = json_reports(&watch);
    let stuck = reports.last().expect("a report");
    assert_eq!(stuck["clusters"][0]["verdict"], "Jammed", "{stuck}");
    let kinds: Vec<&Value> = stuck["clusters"][0]["nodes"][0]["evidence"]
        .as_array()
        .map(|e| e.iter().map(|x| &x["kind"]).collect())
        .unwrap_or_default();
    assert!(kinds.contains(&&json!("HeldOverThreshold")), "{stuck}");
    // Rolling, then Stuck: two reports, the durations in between unprinted.
    assert_eq!(reports.len(), 2, "{}", watch.transcript());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watch_survives_the_api_server_restarting_and_says_so_on_stderr() {
    let _alone = SERVER.write().await;
    let s = harness::server();
    let sim = Sim::fresh("watch-restart", &Layout::default()).await;
    let ns = sim.ns.clone();

    let mut watch = Plugin::spawn(
        &s.kubeconfig_in(&ns),
        &ns,
        &["status", "cache", "--watch"],
        BOUND,
    );
    watch
        .until("the first report", |p| table_reports(p) == 1)
        .await;

    s.stop();
    watch
        .until_stderr("word of the lost connection", |l| {
            l.starts_with("connection lost, retrying")
        })
        .await;
    // The report again, its verdict kept only as of the loss (issue 43
    // item 3: nothing old shown as now).
    watch
        .until("the report as of the loss", |p| {
            table_reports(p) == 2 && p.stdout.iter().any(|l| l.contains("CONVERGED as of "))
        })
        .await;
    assert!(watch.exited().is_none(), "{}", watch.transcript());
    s.start();
    watch
        .until_stderr("word of the restored connection", |l| {
            l.starts_with("connection restored")
        })
        .await;
    // Live again: the report once more, as now.
    watch
        .until("the report live again", |p| table_reports(p) == 3)
        .await;

    // The view is live again: a change after the restart is shown.
    let h = sim::hash("watch-restart");
    let client = s.client().await;
    let sim = Sim::new(client, &sim.ns, "cache");
    sim.node_at(0, 1).annotate_desired(&h).await;
    watch
        .until("a report of a change after the restart", |p| {
            table_reports(p) == 4 && p.stdout.iter().any(|l| l.contains(&headline("WAITING")))
        })
        .await;
    watch.interrupt();
    let status = watch.exit(BOUND).await;
    assert_eq!(status.code(), Some(0), "{}", watch.transcript());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_it_redraws_in_place_and_ctrl_c_restores_the_screen() {
    redraw_in_place_then_stop(libc::SIGINT, "watch-tty").await;
}

/// SIGTERM (a process manager, `kill`, `timeout`) ends the view as Ctrl-C
/// does: the normal screen comes back, with the last report on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_sigterm_restores_the_screen_too() {
    redraw_in_place_then_stop(libc::SIGTERM, "watch-term").await;
}

/// Watches a converged cluster on a pty, makes one node ask for a revision,
/// waits for the redrawn frame, sends `signal`, and checks the whole screen:
/// alternate screen, frames drawn in place, status line, cursor shown again
/// and the last report left on the normal screen.
async fn redraw_in_place_then_stop(signal: libc::c_int, prefix: &str) {
    let _shared = SERVER.read().await;
    let s = harness::server();
    let sim = Sim::fresh(prefix, &Layout::default()).await;
    let ns = sim.ns.clone();

    let pty = harness::pty::open();
    let mut watch = Plugin::spawn_on_terminal(
        &s.kubeconfig_in(&ns),
        &ns,
        &["status", "cache", "--watch"],
        BOUND,
        Stdio::from(pty.slave.try_clone().expect("dup the pty")),
    );
    drop(pty.slave);
    // The master reads until every copy of the slave is closed (EIO).
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let mut master = pty.master;
    std::thread::spawn(move || {
        use std::io::Read;
        let mut buf = [0u8; 4096];
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut screen = String::new();
    let mut read_until = async |what: &str, pred: &dyn Fn(&str) -> bool| {
        let deadline = Instant::now() + BOUND;
        while !pred(&screen) {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, rx.recv()).await {
                Ok(Some(bytes)) => screen.push_str(&String::from_utf8_lossy(&bytes)),
                Ok(None) => panic!("the terminal closed before {what}:\n{screen:?}"),
                Err(_) => panic!("no {what} within {}s:\n{screen:?}", BOUND.as_secs()),
            }
        }
    };
    read_until("the first frame", &|t: &str| {
        t.contains("· live") && t.contains(&headline("CONVERGED"))
    })
    .await;

    // A change redraws the frame in place: from the top left, cleared to
    // the end of the screen, no full-screen clear.
    sim.node_at(0, 1).annotate_desired(&sim::hash(prefix)).await;
    read_until("the redrawn frame", &|t: &str| {
        t.contains(&headline("WAITING"))
    })
    .await;

    watch.signal(signal);
    let status = watch.exit(BOUND).await;
    assert_eq!(status.code(), Some(0), "{}", watch.transcript());
    // The child is gone: read what is left, to the terminal's end.
    while let Ok(Some(bytes)) = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
        screen.push_str(&String::from_utf8_lossy(&bytes));
    }

    assert!(
        screen.starts_with("\x1b[?1049h"),
        "alternate screen first: {screen:?}"
    );
    let Some(left) = screen.rfind("\x1b[?1049l") else {
        panic!("the alternate screen is left at the end: {screen:?}");
    };
    let (live, after) = screen.split_at(left);
    // Cursor home, as crossterm spells it (`MoveTo(0, 0)`).
    let frames = live.matches("\x1b[1;1H").count();
    assert!(frames >= 2, "at least two frames: {live:?}");
    assert!(
        !live.contains("\x1b[2J"),
        "no full clear (it flickers): {live:?}"
    );
    let last_frame = &live[live.rfind("\x1b[1;1H").unwrap_or(0)..];
    assert!(last_frame.contains("\x1b[J"), "{last_frame:?}");
    assert!(
        last_frame.contains(&headline("WAITING")) && !last_frame.contains(&headline("CONVERGED")),
        "{last_frame:?}"
    );
    let status_line = last_frame
        .split(['\n', '\r'])
        .find(|l| l.starts_with("updated "))
        .unwrap_or_else(|| panic!("a last line 'updated HH:MM:SS · live': {last_frame:?}"));
    assert!(status_line.contains(" · live"), "{status_line:?}");
    assert!(
        live.ends_with("\x1b[?25h"),
        "the cursor shown again: {screen:?}"
    );
    // Back on the normal screen, the last report stays there.
    assert!(after.contains(&headline("WAITING")), "{after:?}");
}
