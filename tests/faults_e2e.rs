//! Faults on the worst day, on the real API server (issue 10, item 8), the
//! ones that leave the server running: a slow or silent server (a TCP proxy
//! in front of it, tests/faults/proxy.rs), rejected or untrusted
//! credentials, a kubeconfig that names what is not there, a namespace that
//! does not exist, and a user who may not list one kind. The faults that
//! stop the server or delete a CRD are in tests/faults_restart.rs.
//!
//! Every run of the plugin is bounded: a test fails, never hangs.

mod harness;
#[path = "faults/proxy.rs"]
mod proxy;

use harness::Subject;
use harness::plugin::{Plugin, Ran};
use harness::sim::{Layout, Sim};
use proxy::{Mode, Proxy};
use serde_json::json;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harness::common::BIN;

/// Longest a run may take: generous for a loaded machine, short of hanging.
const BOUND: Duration = Duration::from_secs(60);

/// Runs the plugin to its end (at most [`BOUND`]), and how long it took.
fn run(kubeconfig: &Path, ns: &str, args: &[&str]) -> (Ran, Duration) {
    let start = Instant::now();
    let mut child = Command::new(BIN)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["-n", ns, "--no-color"])
        .args(args)
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubectl-valkey-roll");
    loop {
        if child.try_wait().expect("poll").is_some() {
            break;
        }
        if start.elapsed() > BOUND {
            let _ = child.kill();
            let out = child.wait_with_output().expect("wait");
            panic!(
                "{args:?} did not end within {}s\n{}",
                BOUND.as_secs(),
                Ran::of(out).both()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("wait");
    (Ran::of(out), start.elapsed())
}

fn layout() -> Layout {
    Layout {
        shards: 1,
        replicas: 1,
        ..Layout::default()
    }
}

/// A copy of `kubeconfig` whose server is `url`.
fn pointed_at(kubeconfig: &Path, url: &str) -> PathBuf {
    let s = harness::server();
    let text = std::fs::read_to_string(kubeconfig).expect("read kubeconfig");
    let text = text.replace(s.url(), url);
    let path = kubeconfig.with_extension(format!(
        "via-{}.yaml",
        url.rsplit(':').next().unwrap_or("x")
    ));
    std::fs::write(&path, text).expect("write kubeconfig");
    path
}

fn upstream() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], harness::server().port()))
}

/// `--request-timeout` bounds every request, the first LIST of `status
/// --watch` too: a server whose answers come late or never makes every
/// command exit 1 soon after the timeout, saying so; a slow server within
/// the timeout is only slow.
#[tokio::test]
async fn a_slow_or_silent_server_is_bounded_by_request_timeout() {
    let s = harness::server();
    let sim = Sim::fresh("slow", &layout()).await;
    let admin = s.kubeconfig_in(&sim.ns);

    let slow = Proxy::start(upstream(), Mode::Delay(Duration::from_millis(200)));
    let (ran, _) = run(
        &pointed_at(&admin, &slow.url()),
        &sim.ns,
        &["status", "--request-timeout=20s"],
    );
    assert_eq!(ran.code, 0, "slow but within the timeout: {}", ran.both());
    assert!(ran.stdout.contains("CONVERGED"), "{}", ran.both());

    let late = Proxy::start(upstream(), Mode::Delay(Duration::from_secs(8)));
    let stalled = Proxy::start(upstream(), Mode::StallAfterHandshake);
    let silent = Proxy::start(upstream(), Mode::Silent);
    // (case, proxy, command)
    let cases: Vec<(&str, &Proxy, Vec<&str>)> = vec![
        ("late answers, status", &late, vec!["status"]),
        (
            "answers stall after the handshake, status",
            &stalled,
            vec!["status"],
        ),
        (
            "answers stall, status --watch (its first LIST)",
            &stalled,
            vec!["status", "--watch", "-o", "json"],
        ),
        (
            "answers stall, explain",
            &stalled,
            vec!["explain", "cache-0-1"],
        ),
        (
            "answers stall, grant",
            &stalled,
            vec!["grant", "cache-0-1", "--dry-run=server"],
        ),
        (
            "answers stall, wait",
            &stalled,
            vec!["wait", "cache", "--timeout=5m"],
        ),
        ("silent, status", &silent, vec!["status"]),
        ("silent, status --watch", &silent, vec!["status", "--watch"]),
    ];
    for (case, proxy, args) in cases {
        let kc = pointed_at(&admin, &proxy.url());
        let mut all = args.clone();
        all.push("--request-timeout=2s");
        let (ran, took) = run(&kc, &sim.ns, &all);
        assert_eq!(ran.code, 1, "{case}: {}", ran.both());
        assert!(
            ran.stderr
                .contains(&format!("cannot reach the API server {}", proxy.url()))
                && ran.stderr.contains("--request-timeout"),
            "{case}: {}",
            ran.both()
        );
        // A few requests in turn at most (wait, grant: the user, the
        // read); never the minutes a missing limit would take.
        assert!(
            took < Duration::from_secs(30),
            "{case}: took {took:?}\n{}",
            ran.both()
        );
    }
    assert!(silent.held() > 0, "the silent proxy was reached");
}

/// Credentials the server rejects, a server the kubeconfig does not trust,
/// a context or user the kubeconfig does not have: exit 1, each naming the
/// cause and the kubeconfig file.
#[tokio::test]
async fn credential_and_kubeconfig_errors_name_the_cause_and_the_file() {
    let s = harness::server();
    let ns = s.fresh_namespace("creds");
    let dir = tempfile::tempdir().expect("tempdir");

    let expired = s.mint_user_valid("olduser", (2020, 1, 1), (2021, 1, 1));

    let stranger_ca = harness::pki::Ca::new();
    let untrusted = dir.path().join("untrusted.yaml");
    harness::pki::write_kubeconfig(
        &untrusted,
        s.url(),
        s.ca_pem(),
        "eve",
        &stranger_ca.client("eve", &[]),
        Some(&ns),
    );

    let wrong_ca = dir.path().join("wrong-ca.yaml");
    let good = std::fs::read_to_string(s.mint_user("carol", &[])).expect("read");
    let ours = harness::pki::base64(s.ca_pem().as_bytes());
    let theirs = harness::pki::base64(stranger_ca.cert_pem.as_bytes());
    std::fs::write(&wrong_ca, good.replace(&ours, &theirs)).expect("write");

    let no_user = dir.path().join("no-user.yaml");
    let admin = std::fs::read_to_string(s.kubeconfig()).expect("read");
    std::fs::write(&no_user, admin.replace("user: admin", "user: ghost")).expect("write");

    let show = |p: &Path| p.display().to_string();
    // (case, kubeconfig, extra flags, what stderr must say)
    let cases: Vec<(&str, PathBuf, Vec<&str>, Vec<String>)> = vec![
        (
            "expired client certificate",
            expired.clone(),
            vec![],
            vec![
                "the client certificate of user \"olduser\"".into(),
                "expired at 2021-01-01T00:00:00Z".into(),
                show(&expired),
            ],
        ),
        (
            "client certificate of another CA",
            untrusted.clone(),
            vec![],
            vec![
                "unauthorized".into(),
                "not signed by a CA this API server trusts".into(),
                show(&untrusted),
            ],
        ),
        (
            "a CA that did not sign the server's certificate",
            wrong_ca.clone(),
            vec![],
            vec![
                "presented a certificate that the certificate authority of cluster \"testbin\""
                    .into(),
                "does not trust".into(),
                show(&wrong_ca),
            ],
        ),
        (
            "a context the kubeconfig does not have",
            s.kubeconfig().to_path_buf(),
            vec!["--context", "staging"],
            vec!["staging".into(), show(s.kubeconfig())],
        ),
        (
            "a --user the kubeconfig does not have",
            s.kubeconfig().to_path_buf(),
            vec!["--user", "nobody"],
            vec![
                "auth info \"nobody\" does not exist".into(),
                show(s.kubeconfig()),
            ],
        ),
        (
            "a context whose user is not in the kubeconfig",
            no_user.clone(),
            vec![],
            vec!["ghost".into(), show(&no_user)],
        ),
    ];
    for (case, kubeconfig, flags, wants) in cases {
        let mut args = flags.clone();
        args.extend(["status", "--request-timeout=10s"]);
        let (ran, _) = run(&kubeconfig, &ns, &args);
        assert_eq!(ran.code, 1, "{case}: {}", ran.both());
        for want in &wants {
            assert!(
                ran.stderr.contains(want.as_str()),
                "{case}: no {want:?} in\n{}",
                ran.both()
            );
        }
        assert_eq!(
            ran.stderr.lines().count(),
            1,
            "{case}: one line\n{}",
            ran.both()
        );
    }
}

/// `-n` naming a namespace that does not exist is said so (a LIST there
/// answers an empty list); an empty namespace that exists is "nothing
/// found", as before.
#[tokio::test]
async fn a_namespace_that_does_not_exist_is_named() {
    let s = harness::server();
    let (ran, _) = run(s.kubeconfig(), "no-such-namespace", &["status"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("namespace \"no-such-namespace\" does not exist on this cluster"),
        "{}",
        ran.both()
    );
    let (ran, _) = run(s.kubeconfig(), "no-such-namespace", &["grant", "cache-0-1"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr.contains("does not exist on this cluster"),
        "{}",
        ran.both()
    );

    let empty = s.fresh_namespace("empty");
    let (ran, _) = run(s.kubeconfig(), &empty, &["status"]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr.contains("No ValkeyClusters found"),
        "{}",
        ran.both()
    );
}

/// A user who may list everything but one kind sees what can be judged
/// without it, marked partial, naming the kind (status and explain, exit
/// 0); without `list` on valkeynodes nothing can be judged (exit 1, naming
/// them); steering never decides on a partial view.
#[tokio::test]
async fn list_forbidden_on_one_kind_shows_a_partial_view() {
    let s = harness::server();
    let sim = Sim::fresh("partial", &layout()).await;
    let client = s.client().await;
    let all_but = |kind: &str| {
        let mut rules = vec![
            json!({"apiGroups": ["valkey.io"], "resources": ["valkeyclusters", "valkeynodes"], "verbs": ["get", "list", "watch"]}),
            json!({"apiGroups": ["apps"], "resources": ["statefulsets", "deployments"], "verbs": ["get", "list", "watch"]}),
            json!({"apiGroups": [""], "resources": ["pods", "events"], "verbs": ["get", "list", "watch"]}),
        ];
        for r in &mut rules {
            let keep: Vec<serde_json::Value> = r["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|v| v.as_str() != Some(kind))
                .cloned()
                .collect();
            r["resources"] = json!(keep);
        }
        rules.retain(|r| r["resources"].as_array().is_some_and(|a| !a.is_empty()));
        serde_json::Value::Array(rules)
    };
    for kind in ["events", "pods", "valkeyclusters"] {
        let user = format!("no-{kind}");
        harness::bind(&client, &sim.ns, &user, Subject::User(&user), all_but(kind)).await;
        let kc = s.mint_user_in(&user, &[], &sim.ns);
        for args in [
            vec!["status"],
            vec!["status", "-o", "json"],
            vec!["explain", "cache-0-1"],
        ] {
            let (ran, _) = run(&kc, &sim.ns, &args);
            assert_eq!(ran.code, 0, "{kind} {args:?}: {}", ran.both());
            assert!(
                ran.stderr.contains(&format!(
                    "warning: partial view: {kind} could not be listed (forbidden: you may not list {kind} in namespace {}",
                    sim.ns
                )),
                "{kind} {args:?}: {}",
                ran.both()
            );
            assert!(
                ran.stdout.contains("cache-0-1"),
                "{kind} {args:?}: {}",
                ran.both()
            );
        }
        let (ran, _) = run(&kc, &sim.ns, &["grant", "cache-0-1", "--dry-run=server"]);
        assert_eq!(
            ran.code,
            1,
            "{kind}: steering on a partial view: {}",
            ran.both()
        );
        assert!(
            ran.stderr.contains(&format!("you may not list {kind}")),
            "{}",
            ran.both()
        );
    }

    harness::bind(
        &client,
        &sim.ns,
        "no-nodes",
        Subject::User("no-nodes"),
        all_but("valkeynodes"),
    )
    .await;
    let kc = s.mint_user_in("no-nodes", &[], &sim.ns);
    let (ran, _) = run(&kc, &sim.ns, &["status"]);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr.contains(&format!(
            "you may not list valkeynodes in namespace {}",
            sim.ns
        )),
        "{}",
        ran.both()
    );
}

/// `status --watch` on a server that stalls: the first LIST is bounded by
/// `--request-timeout` even though the watch itself has no read timeout.
#[tokio::test]
async fn the_first_list_of_a_watch_is_bounded() {
    let s = harness::server();
    let sim = Sim::fresh("watchlist", &layout()).await;
    let stalled = Proxy::start(upstream(), Mode::StallAfterHandshake);
    let kc = pointed_at(&s.kubeconfig_in(&sim.ns), &stalled.url());
    let mut p = Plugin::spawn(
        &kc,
        &sim.ns,
        &["status", "--watch", "--request-timeout=2s"],
        BOUND,
    );
    let status = p.exit(BOUND).await;
    assert_eq!(status.code(), Some(1), "{}", p.transcript());
    assert!(
        p.stderr.iter().any(|l| l.contains("--request-timeout")),
        "{}",
        p.transcript()
    );
}
