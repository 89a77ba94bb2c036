//! Faults that take the API server (or a CRD) away, on the real server
//! (issue 10, item 8): the server stops in the middle of `status`, and in
//! the middle of `grant` (between the Lease and the patch; between the
//! patch and the check after it); the valkeynodes CRD is missing. A test
//! file of its own, since stopping the server affects every test of its
//! binary; the tests here take [`ONE_AT_A_TIME`] so they never overlap.
//!
//! Each checks: exit 1 within a bound, a message that says exactly what was
//! and was not written, running again after recovery finishes the job or
//! says why not, and no Lease or permit left that the message did not name.

mod harness;
#[path = "faults/proxy.rs"]
mod proxy;

use harness::plugin::Ran;
use harness::sim::{self, Layout, Sim};
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use proxy::{Mode, Proxy};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

use harness::common::BIN;

/// One fault at a time: each stops the one server of this binary.
static ONE_AT_A_TIME: Mutex<()> = Mutex::const_new(());

/// Longest a run may take after the server went away.
const BOUND: Duration = Duration::from_secs(60);

fn plugin(kubeconfig: &Path, ns: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["-n", ns, "--no-color", "--request-timeout=5s"])
        .args(args)
        .env_remove("KUBECONFIG")
        .env_remove("VALKEY_ROLL_TEST_PAUSE")
        .env_remove("VALKEY_ROLL_TEST_PAUSE_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn run(ns: &str, args: &[&str]) -> Ran {
    let s = harness::server();
    Ran::of(plugin(s.kubeconfig(), ns, args).output().expect("run"))
}

/// Waits for `child` at most [`BOUND`] from `since`; kills it and fails
/// the test past that.
fn finish(mut child: std::process::Child, since: Instant, what: &str) -> Ran {
    loop {
        if child.try_wait().expect("poll").is_some() {
            return Ran::of(child.wait_with_output().expect("wait"));
        }
        if since.elapsed() > BOUND {
            let _ = child.kill();
            let out = child.wait_with_output().expect("wait");
            panic!(
                "{what}: no exit within {}s\n{}",
                BOUND.as_secs(),
                Ran::of(out).both()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn layout() -> Layout {
    Layout {
        shards: 1,
        replicas: 1,
        ..Layout::default()
    }
}

async fn lease_of(sim: &Sim) -> Option<Lease> {
    let api: Api<Lease> = Api::namespaced(sim.client.clone(), &sim.ns);
    api.get_opt("valkey-roll.cache").await.expect("get lease")
}

/// Runs `grant cache-0-1` paused at `point`; while it waits there, stops
/// the API server, then lets it go on. Returns the run and when the server
/// was gone.
async fn grant_with_the_server_stopping_at(sim: &Sim, point: &str) -> (Ran, Instant) {
    let s = harness::server();
    let dir = tempfile::tempdir().expect("tempdir");
    let gate = dir.path().join("gate");
    let reached = dir.path().join("gate.reached");
    let child = plugin(s.kubeconfig(), &sim.ns, &["grant", "cache-0-1"])
        .env("VALKEY_ROLL_TEST_PAUSE", point)
        .env("VALKEY_ROLL_TEST_PAUSE_FILE", &gate)
        .spawn()
        .expect("spawn");
    let deadline = Instant::now() + BOUND;
    while !reached.exists() {
        assert!(
            Instant::now() < deadline,
            "the pause point {point} was never reached"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    s.stop();
    let gone = Instant::now();
    std::fs::write(&gate, "go").expect("open the gate");
    (finish(child, gone, point), gone)
}

/// The server stops while `status` waits for its answers (held by a proxy,
/// so the stop lands in the middle): exit 1 at once, naming the server; a
/// read-only command writes nothing, so there is nothing else to say. After
/// the restart the same command answers.
#[tokio::test]
async fn the_server_stops_in_the_middle_of_status() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = harness::server();
    let sim = Sim::fresh("mid-status", &layout()).await;
    let held = Proxy::start(
        SocketAddr::from(([127, 0, 0, 1], s.port())),
        Mode::StallAfterHandshake,
    );
    let text = std::fs::read_to_string(s.kubeconfig_in(&sim.ns)).expect("read");
    let kc = tempfile::NamedTempFile::new().expect("tempfile");
    std::fs::write(kc.path(), text.replace(s.url(), &held.url())).expect("write");

    let mut cmd = plugin(kc.path(), &sim.ns, &["status"]);
    // A timeout that cannot be what ends it: the stop must.
    cmd.arg("--request-timeout=50s");
    let child = cmd.spawn().expect("spawn");
    // Its six LISTs reach the server (and their answers are held).
    tokio::time::sleep(Duration::from_secs(2)).await;
    s.stop();
    let ran = finish(child, Instant::now(), "status");
    s.start();
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr
            .contains(&format!("cannot reach the API server {}", held.url())),
        "{}",
        ran.both()
    );
    let again = run(&sim.ns, &["status"]);
    assert_eq!(again.code, 0, "after the restart: {}", again.both());
    assert!(again.stdout.contains("CONVERGED"), "{}", again.both());
}

/// The server stops under the Lease, before the patch: exit 1 saying that
/// nothing was written, which grant was not sent, and that the Lease is
/// left (named); no permit anywhere. Run again after recovery, the same
/// user on the same machine takes the left Lease over (its process has
/// ended) and the grant is written; the Lease is gone after.
#[cfg(feature = "test-hooks")]
#[tokio::test]
async fn the_server_stops_between_the_lease_and_the_patch() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = harness::server();
    let h = sim::hash("revision-1");
    let sim = Sim::fresh("mid-grant", &layout()).await;
    sim.ask(&["cache-0-1"], &h).await;

    let (ran, _) = grant_with_the_server_stopping_at(&sim, "after-plan").await;
    s.start();
    assert_eq!(ran.code, 1, "{}", ran.both());
    let lease = format!("{}/valkey-roll.cache", sim.ns);
    for want in [
        "cannot reach the API server".to_string(),
        "Nothing was written: the grant of cache-0-1 not sent".to_string(),
        format!("The Lease {lease} could not be released"),
    ] {
        assert!(ran.stderr.contains(&want), "no {want:?} in\n{}", ran.both());
    }
    assert_eq!(
        sim.permit_holders().await,
        Vec::<String>::new(),
        "no permit written"
    );
    assert!(
        lease_of(&sim).await.is_some(),
        "the Lease the message named is there"
    );

    let again = run(&sim.ns, &["grant", "cache-0-1"]);
    assert_eq!(again.code, 0, "after recovery: {}", again.both());
    assert_eq!(sim.permit_holders().await, vec!["cache-0-1".to_string()]);
    assert!(lease_of(&sim).await.is_none(), "Lease released");
}

/// The server stops after the patch, before the check for another holder:
/// exit 1 saying the grant was written and the check could not run, and
/// naming the Lease that is left; the permit is there. Run again after
/// recovery, the grant says why there is nothing to do (exit 4).
#[cfg(feature = "test-hooks")]
#[tokio::test]
async fn the_server_stops_between_the_patch_and_the_check() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = harness::server();
    let h = sim::hash("revision-1");
    let sim = Sim::fresh("after-patch", &layout()).await;
    sim.ask(&["cache-0-1"], &h).await;

    let (ran, _) = grant_with_the_server_stopping_at(&sim, "after-patch").await;
    s.start();
    assert_eq!(ran.code, 1, "{}", ran.both());
    let lease = format!("{}/valkey-roll.cache", sim.ns);
    for want in [
        "WRITTEN".to_string(),
        "written; the check after the write could not run".to_string(),
        format!("the Lease {lease} could not be released"),
    ] {
        assert!(
            ran.stdout.contains(&want) || ran.stderr.contains(&want),
            "no {want:?} in\n{}",
            ran.both()
        );
    }
    assert_eq!(sim.permit_holders().await, vec!["cache-0-1".to_string()]);

    let again = run(&sim.ns, &["grant", "cache-0-1"]);
    assert_eq!(again.code, 4, "after recovery: {}", again.both());
    assert!(
        again.both().contains("nothing to write"),
        "{}",
        again.both()
    );
    assert_eq!(sim.permit_holders().await, vec!["cache-0-1".to_string()]);
}

/// Without the valkeynodes CRD every command says so, in those words.
#[tokio::test]
async fn a_missing_valkeynodes_crd_is_named() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = harness::server();
    let ns = s.fresh_namespace("no-nodes-crd");
    let out = s.kubectl(&[
        "delete",
        "crd",
        "valkeynodes.valkey.io",
        "--wait=true",
        "--timeout=120s",
    ]);
    let deleted = out.status.success();
    // kubectl returns when the CRD object is gone, a moment before the
    // server stops serving it.
    let deadline = Instant::now() + BOUND;
    let mut ran = run(&ns, &["status"]);
    while deleted && ran.code == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        ran = run(&ns, &["status"]);
    }
    let grant = run(&ns, &["grant", "cache-0-1"]);
    s.install_crds();
    assert!(
        deleted,
        "kubectl delete crd: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for r in [&ran, &grant] {
        assert_eq!(r.code, 1, "{}", r.both());
        assert!(
            r.stderr
                .contains("valkeynodes.valkey.io is not installed on this cluster"),
            "{}",
            r.both()
        );
    }
}

/// How soon after the API server goes away a live view must say as of when
/// it is (docs/usage.md, "When the connection is lost": stale from the
/// watch's first failed request; this allows for that request and the
/// second a view is judged at).
const STALE_WITHIN: Duration = Duration::from_secs(10);

/// A roll under way: both nodes of the default layout ask for a hash.
async fn mid_roll(hint: &str) -> (Sim, String) {
    let sim = Sim::fresh(hint, &layout()).await;
    let h = sim::hash(hint);
    sim.ask(&["cache-0-1", "cache-0-0"], &h).await;
    (sim, h)
}

/// The roll asked for is withdrawn: the cluster is at rest (Converged).
async fn withdraw(sim: &Sim) {
    for name in ["cache-0-1", "cache-0-0"] {
        let n = sim.node(name);
        n.remove_desired().await;
        n.clear_drift().await;
    }
}

/// Issue 43 item 3: `status --watch` off a terminal kept its last report
/// as if read now while its connection was lost. Within [`STALE_WITHIN`]
/// of the stop, the report is printed again with each headline's verdict
/// kept only "as of HH:MM:SS (Ns ago)"; after the restart the same process
/// prints it live again and follows a change made after it.
#[tokio::test]
async fn status_watch_says_as_of_while_the_server_is_gone() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = harness::server();
    let (sim, _) = mid_roll("stale-watch").await;
    let mut watch = harness::plugin::Plugin::spawn(
        &s.kubeconfig_in(&sim.ns),
        &sim.ns,
        &["--request-timeout=5s", "status", "--watch"],
        BOUND,
    );
    watch
        .until("the roll waiting, live", |p| {
            p.stdout.iter().any(|l| l.contains("WAITING"))
        })
        .await;
    s.stop();
    let lost = Instant::now();
    watch
        .until("a headline as of its reading", |p| {
            p.stdout.iter().any(|l| l.contains("WAITING as of "))
        })
        .await;
    let took = lost.elapsed();
    eprintln!("status --watch said as of {took:?} after the stop");
    s.start();
    assert!(took < STALE_WITHIN, "{took:?}\n{}", watch.transcript());
    let line = watch
        .stdout
        .iter()
        .find(|l| l.contains("WAITING as of "))
        .cloned()
        .unwrap_or_default();
    assert!(line.contains(" ago)"), "{line}");
    assert!(
        watch.stderr.iter().any(|l| l.contains("connection lost")),
        "{}",
        watch.transcript()
    );
    // Back: live again (a headline without as of), and a change made after
    // the restart is shown.
    let stale_at = watch.stdout.len();
    watch
        .until("the view live again", |p| {
            p.stdout[stale_at..]
                .iter()
                .any(|l| l.contains("WAITING") && !l.contains(" as of "))
        })
        .await;
    withdraw(&sim).await;
    watch
        .until("the roll withdrawn", |p| {
            p.stdout[stale_at..].iter().any(|l| l.contains("CONVERGED"))
        })
        .await;
    assert!(
        !watch.stdout[stale_at..]
            .iter()
            .any(|l| l.contains("CONVERGED as of")),
        "{}",
        watch.transcript()
    );
    watch.interrupt();
    let status = watch.exit(BOUND).await;
    assert_eq!(status.code(), Some(0), "{}", watch.transcript());
}

/// Issue 43 item 3: `wait` decides nothing on a stale view. With the
/// server stopped mid-roll it says within [`STALE_WITHIN`] that its view
/// is as of when, and goes on waiting (no exit) while the server is gone;
/// after the restart the same process sees the roll end and exits 0.
#[tokio::test]
async fn wait_does_not_decide_while_the_server_is_gone() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = harness::server();
    let (sim, _) = mid_roll("stale-wait").await;
    let mut wait = harness::plugin::Plugin::spawn(
        &s.kubeconfig_in(&sim.ns),
        &sim.ns,
        &["--request-timeout=5s", "wait", "--timeout=5m"],
        BOUND,
    );
    wait.until("a progress line", |p| !p.stderr.is_empty())
        .await;
    s.stop();
    let lost = Instant::now();
    wait.until_stderr("the view said stale", |l| {
        l.starts_with("the view is as of ") && l.contains(" ago)")
    })
    .await;
    let took = lost.elapsed();
    eprintln!("wait said as of {took:?} after the stop");
    // Still waiting a while later, the server still gone.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let running = wait.exited().is_none();
    s.start();
    assert!(took < STALE_WITHIN, "{took:?}\n{}", wait.transcript());
    assert!(running, "wait ended while blind\n{}", wait.transcript());
    let back = Instant::now();
    withdraw(&sim).await;
    // The watch tries again on its backoff (up to 30 s between tries).
    let status = wait.exit(BOUND * 2).await;
    eprintln!("wait exited {:?} after the restart", back.elapsed());
    assert_eq!(status.code(), Some(0), "{}", wait.transcript());
    assert!(
        wait.stderr
            .iter()
            .any(|l| l.contains("connection restored")),
        "{}",
        wait.transcript()
    );
}
