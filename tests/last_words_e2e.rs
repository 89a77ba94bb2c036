//! Issue 12, "Last words", against the real controllers
//! (harness::control_plane(): the StatefulSet controller, kube-scheduler,
//! kwok) and the simulated operator: a holder whose pod crash-loops (a
//! `:broken` image: kwok's stages give its container lastState terminated,
//! exit code 1, reason Error).
//!
//! - `explain NODE` (and `explain CLUSTER`) shows the last termination and
//!   the last lines of the previous container's log: the real API server
//!   proxies `pods/log?previous=true` to the Node's kubelet endpoint, which
//!   is kwok serving the file the test writes
//!   ([`harness::controlplane::ControlPlane::write_previous_log`]); the
//!   lines are cleaned of control characters;
//! - `status -o wide` and `-o json` carry the exit code and reason;
//! - a user who may read everything but `pods/log` gets one line saying
//!   so, and the same exit code.
//!
//! One cluster for all of it (a control plane's cluster takes tens of
//! seconds to settle); at most one test of this binary writes kwok's log
//! files. Every wait is bounded.

mod harness;

use std::time::Duration;

use harness::Subject;
use harness::controlplane::eventually;
use harness::operator::Operator;
use harness::plugin::run_in;
use serde_json::{Value, json};

const BOUND: Duration = Duration::from_secs(180);
const CLUSTER: &str = "words";
const OLD: &str = "valkey/valkey:9.0.0";
/// kwok's stages crash-loop any container whose image tag is `:broken`.
const BROKEN: &str = "valkey/valkey:broken";
/// The first node of the walk of a 2 x 2 cluster with no `status.role`.
const FIRST: &str = "words-0-1";

/// The `Last words` section of an explanation (up to the next blank line).
fn section<'a>(out: &'a str, title: &str) -> &'a str {
    out.split(&format!("\n{title}\n"))
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap_or_else(|| panic!("no {title:?} section in:\n{out}"))
}

#[tokio::test]
async fn explain_shows_the_last_words_of_a_crash_looping_holder() {
    let cp = harness::control_plane();
    let ns = cp.fresh_namespace("last-words");
    let client = cp.client().await;
    let op = Operator::start(client.clone(), &ns, CLUSTER);
    let admin = cp.kubeconfig();

    // What the previous container said, as the kubelet (kwok) keeps it;
    // one line carries an escape sequence, which must not reach the
    // terminal.
    cp.write_previous_log(&[
        "1:C 01 Dec 2026 12:00:00.000 * Valkey is starting",
        "1:C 01 Dec 2026 12:00:00.001 # FATAL CONFIG FILE ERROR (Version 9.1.0)",
        "\u{1b}[31mBad directive or wrong number of arguments\u{1b}[0m",
    ]);

    op.create_cluster(OLD, 2, 1).await;
    op.settled(4, OLD, BOUND).await;
    op.sim.edit_cluster_spec(json!({"image": BROKEN})).await;
    let pod_name = format!("valkey-{FIRST}-0");
    // The holder crash-loops, and the plugin judges it Stuck with its
    // failing container's last termination (kwok's pod-crash stage).
    let explained = eventually("the holder Stuck on CrashLoopBackOff", BOUND, || async {
        let r = run_in(admin, &ns, &["explain", FIRST]).await;
        if r.code == 0
            && r.stdout.contains("STUCK")
            && r.stdout.contains("\nLast words\n")
            && r.stdout.contains("CrashLoopBackOff")
        {
            Ok(r)
        } else {
            Err(r.both())
        }
    })
    .await;
    let words = section(&explained.stdout, "Last words");
    for want in [
        "container server (restarts ",
        "exit code 1, reason Error",
        " ago (",
        "the last 3 lines of its previous container's log (at most 20):",
        "    1:C 01 Dec 2026 12:00:00.000 * Valkey is starting",
        "    1:C 01 Dec 2026 12:00:00.001 # FATAL CONFIG FILE ERROR (Version 9.1.0)",
        "Bad directive or wrong number of arguments",
    ] {
        assert!(words.contains(want), "{want:?} missing from:\n{words}");
    }
    assert!(
        !explained.stdout.contains('\u{1b}'),
        "an escape sequence reached stdout:\n{}",
        explained.stdout
    );
    // Nothing on stderr but the one line of servers not read (explain reads
    // them by default; this cluster has no Secret for their read-only user).
    assert!(
        explained
            .stderr
            .lines()
            .all(|l| l.contains("the servers of cluster") && l.contains("no read-only user")),
        "{}",
        explained.both()
    );

    // The cluster's explanation shows its holder's last words too.
    let r = run_in(admin, &ns, &["explain", CLUSTER]).await;
    assert_eq!(r.code, 0, "{}", r.both());
    let words = section(&r.stdout, &format!("Last words of {FIRST}"));
    assert!(words.contains("FATAL CONFIG FILE ERROR"), "{}", r.stdout);

    // status: the exit code and reason, no log.
    let r = run_in(admin, &ns, &["status", "-o", "wide"]).await;
    assert_eq!(r.code, 0, "{}", r.both());
    let row = r
        .stdout
        .lines()
        .find(|l| l.starts_with(&format!("{FIRST} ")))
        .unwrap_or_else(|| panic!("no row for {FIRST}:\n{}", r.stdout));
    assert!(row.contains("1 (Error)"), "{}", r.stdout);
    assert!(!r.stdout.contains("FATAL"), "{}", r.stdout);
    let r = run_in(admin, &ns, &["status", "-o", "json"]).await;
    let doc = r.ok_json();
    let node = doc["clusters"][0]["nodes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["name"] == FIRST))
        .cloned()
        .unwrap_or_else(|| panic!("no {FIRST} in {doc}"));
    let crash = node["evidence"]
        .as_array()
        .and_then(|e| e.iter().find(|e| e["kind"] == "CrashLoopBackOff"))
        .cloned()
        .unwrap_or_else(|| panic!("no CrashLoopBackOff evidence in {node}"));
    let last = &crash["lastTermination"];
    assert_eq!(last["container"], "server", "{node}");
    assert_eq!(last["exitCode"], 1, "{node}");
    assert_eq!(last["reason"], "Error", "{node}");
    assert!(last["finishedAt"].is_string(), "{node}");
    assert!(!doc.to_string().contains("FATAL"), "no log in the document");

    // A user who may read everything the plugin lists, but not pods/log:
    // one line says so, and the exit code is the same.
    harness::bind(
        &client,
        &ns,
        "valkey-roll-read-no-logs",
        Subject::User("lena"),
        json!([
            {"apiGroups": ["valkey.io"], "resources": ["valkeyclusters", "valkeynodes"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["apps"], "resources": ["statefulsets", "deployments"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["pods", "events"], "verbs": ["get", "list", "watch"]},
        ]),
    )
    .await;
    let lena = cp.server().mint_user("lena", &[]);
    let r = run_in(&lena, &ns, &["explain", FIRST]).await;
    assert_eq!(r.code, explained.code, "{}", r.both());
    let words = section(&r.stdout, "Last words");
    let notes: Vec<&str> = words.lines().filter(|l| l.contains("no log")).collect();
    assert_eq!(
        notes,
        [
            "  no log: get on pods/log is forbidden for you (an optional rule; see the README's RBAC)"
        ],
        "{words}"
    );
    assert!(words.contains("exit code 1, reason Error"), "{words}");
    assert!(!r.stdout.contains("FATAL"), "{}", r.stdout);
    assert!(!r.stderr.contains("error"), "{}", r.both());
    let r = run_in(&lena, &ns, &["explain", CLUSTER]).await;
    assert_eq!(r.code, 0, "{}", r.both());
    assert!(
        section(&r.stdout, &format!("Last words of {FIRST}"))
            .contains("no log: get on pods/log is forbidden"),
        "{}",
        r.stdout
    );

    // The pod the log was read from is the holder's.
    let pod: Value = serde_json::to_value(
        op.sim
            .pods()
            .get(&pod_name)
            .await
            .expect("the crash-looping pod"),
    )
    .expect("pod as JSON");
    assert_eq!(
        pod["status"]["containerStatuses"][0]["lastState"]["terminated"]["exitCode"],
        1
    );
    op.stop().await;
}
