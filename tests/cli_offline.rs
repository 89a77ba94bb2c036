//! The program on the bundled snapshots (`examples/*.yaml`), no cluster
//! needed: what `status` and `explain` print, exit codes, colour, and how a
//! bad snapshot fails. The examples were taken at 2026-11-29T10:16:11Z, the
//! clock every run here uses. `jammed` is P2 (a Spec-driven image roll,
//! the released operator), `jammed-p1` the same jam in P1 (permit
//! annotations).

mod harness;

use assert_cmd::Command;
use harness::common::{BIN, NOW, example, run};
use serde_json::Value;
use std::io::Read;

fn says(what: &str, text: &str, wants: &[&str]) {
    for want in wants {
        assert!(
            text.contains(want),
            "{what}: {want:?} missing from:\n{text}"
        );
    }
}

#[test]
fn status_of_the_jammed_example_names_holder_evidence_hold_time_and_queue() {
    let jammed = example("jammed");
    let r = run(&["status", "-f", &jammed]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let headline = r.stdout.lines().take(2).collect::<Vec<_>>().join("\n");
    says(
        "headline",
        &headline,
        &[
            "prod/cache",
            "JAMMED",
            "cache-1-0 is in flight",
            "CrashLoopBackOff (restarts 7)",
            "advanced 14m ago (event)",
            "3 nodes wait behind it",
            "2/6 rolled",
            "P2",
        ],
    );
    let row = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{}", r.stdout))
    };
    says(
        "stuck row",
        row("cache-1-0"),
        &["Stuck", "14m", "CrashLoopBackOff"],
    );
    // Nodes the Spec-driven walk has not reached wait, in walk order.
    for (name, queue) in [("cache-1-1", 1), ("cache-2-0", 2), ("cache-2-1", 3)] {
        says(
            "behind row",
            row(name),
            &["Waiting", &format!("queue {queue}, behind cache-1-0")],
        );
    }
    for name in ["cache-0-0", "cache-0-1"] {
        says("rolled row", row(name), &["Converged", "rolled"]);
    }
    assert!(!r.stdout.contains('\u{1b}'), "colour off a terminal");
}

#[test]
fn status_of_the_p1_jammed_example_reads_the_permit_annotations() {
    let r = run(&["status", "-f", &example("jammed-p1")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let headline = r.stdout.lines().take(2).collect::<Vec<_>>().join("\n");
    says(
        "headline",
        &headline,
        &[
            "prod/cache",
            "JAMMED",
            "cache-1-1 holds the permit",
            "CrashLoopBackOff (restarts 7)",
            "held 14m (event)",
            "3 nodes wait behind it",
            "2/6 rolled",
            "P1",
        ],
    );
    let row = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{}", r.stdout))
    };
    says("stuck row", row("cache-1-1"), &["Stuck", "9f2c41ab03de"]);
    for (name, queue) in [("cache-1-0", 1), ("cache-2-1", 2), ("cache-2-0", 3)] {
        says(
            "asking row",
            row(name),
            &["Waiting", &format!("queue {queue}, behind cache-1-1")],
        );
    }
}

#[test]
fn exit_codes() {
    let cases: &[(&str, &[&str], i32)] = &[
        ("jammed", &["status", "--exit-code"], 3),
        ("jammed-p1", &["status", "--exit-code"], 3),
        ("jammed", &["status"], 0),
        ("jammed", &["status", "--exit-code", "-o", "json"], 3),
        ("rolling", &["status", "--exit-code"], 0),
        ("converged", &["status", "--exit-code"], 0),
        ("jammed", &["explain", "cache-1-0"], 0),
        ("jammed-p1", &["explain", "cache-1-1"], 0),
        ("jammed", &["explain", "cache"], 0),
        ("jammed", &["status", "no-such-cluster"], 1),
        ("jammed", &["explain", "no-such-node"], 1),
        ("jammed", &["status", "--stall-threshold", "ten"], 2),
    ];
    for (file, args, want) in cases {
        let path = example(file);
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["-f", &path]);
        let r = run(&all);
        assert_eq!(r.code, *want, "{file} {args:?}: {}{}", r.stdout, r.stderr);
    }
}

#[test]
fn json_and_yaml_are_the_same_document() {
    let jammed = example("jammed");
    let json = run(&["status", "-f", &jammed, "-o", "json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let doc: Value = serde_json::from_str(&json.stdout).expect("JSON");
    let cluster = &doc["clusters"][0];
    assert_eq!(cluster["verdict"], "Jammed");
    assert_eq!(cluster["protocol"], "P2");
    assert_eq!(cluster["holders"], serde_json::json!(["cache-1-0"]));
    assert_eq!(cluster["front"], "cache-1-1");
    assert_eq!(cluster["waiting"], 3);
    assert_eq!(cluster["done"], 2);
    let nodes = cluster["nodes"].as_array().expect("nodes");
    let stuck = nodes
        .iter()
        .find(|n| n["name"] == "cache-1-0")
        .expect("cache-1-0");
    assert_eq!(stuck["state"], "Stuck");
    assert_eq!(stuck["grantedAtSource"], "event");
    assert_eq!(stuck["heldForSeconds"], 840);
    assert_eq!(stuck["desiredRevision"], Value::Null);

    let yaml = run(&["status", "-f", &jammed, "-o", "yaml"]);
    assert_eq!(yaml.code, 0, "{}", yaml.stderr);
    let from_yaml: Value = serde_saphyr::from_str(&yaml.stdout).expect("YAML");
    assert_eq!(from_yaml, doc);
}

#[test]
fn wide_shows_full_hashes_pod_and_grant_source() {
    let r = run(&["status", "-f", &example("jammed"), "-o", "wide"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    says(
        "wide",
        &r.stdout,
        &[
            "ADVANCED-AT",
            "SOURCE",
            "POD",
            "valkey-cache-1-0-0",
            "2026-11-29T10:02:10Z",
            "f621e4dee7fb86939d4ad28eefa39bd28f2b115b104a704d4cf1ce517522e048",
        ],
    );
}

#[test]
fn explain_the_stuck_node_says_why_and_what_next() {
    let r = run(&["explain", "cache-1-0", "-f", &example("jammed")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    says(
        "explain",
        &r.stdout,
        &[
            "STUCK",
            "CrashLoopBackOff",
            "OOMKilled",
            "source: event",
            "ValkeyNodeUpdated",
            "WorkloadRollApplied",
            "BackOff",
            "Why Stuck",
            "3 nodes wait behind it",
            "What you could do next",
            "kubectl logs valkey-cache-1-0-0 -n prod --previous",
            "no revoke in protocol P2",
        ],
    );
    assert!(!r.stdout.contains("valkey-roll revoke"), "{}", r.stdout);

    let r = run(&["explain", "cache-1-1", "-f", &example("jammed-p1")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    says(
        "explain P1",
        &r.stdout,
        &[
            "STUCK",
            "CrashLoopBackOff",
            "source: event",
            "WorkloadRollPermitted",
            "WorkloadRollDeferred",
            "Why Stuck",
            "3 nodes wait behind it",
            "kubectl logs valkey-cache-1-1-0 -n prod --previous",
            "kubectl valkey-roll revoke cache-1-1 -n prod",
            "--takeover",
        ],
    );
}

#[test]
fn explain_as_json_adds_the_timeline() {
    let jammed = example("jammed");
    let r = run(&["explain", "cache-1-0", "-f", &jammed, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(doc["name"], "cache-1-0");
    assert_eq!(doc["state"], "Stuck");
    let timeline = doc["timeline"].as_array().expect("timeline");
    assert!(
        timeline.iter().any(|e| e["reason"] == "ValkeyNodeUpdated"),
        "{timeline:?}"
    );

    let r = run(&["explain", "cache", "-f", &jammed, "-o", "yaml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: Value = serde_saphyr::from_str(&r.stdout).expect("YAML");
    assert_eq!(doc["verdict"], "Jammed");
    assert!(doc["timeline"].is_array());
}

#[test]
fn explain_a_cluster_says_why_the_queue_does_not_move() {
    let r = run(&["explain", "cache", "-f", &example("jammed")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    says(
        "explain cluster",
        &r.stdout,
        &[
            "Why the queue is not moving",
            "cache-1-0 is in flight and is Stuck",
            "Nodes, in walk order",
        ],
    );
}

#[test]
fn names_not_found_suggest_the_nearest() {
    let jammed = example("jammed");
    let r = run(&["status", "cahce", "-f", &jammed]);
    assert_eq!(r.code, 1);
    says(
        "status",
        &r.stderr,
        &["ValkeyCluster", "cahce", "did you mean cache"],
    );
    let r = run(&["explain", "cache-1-7", "-f", &jammed]);
    assert_eq!(r.code, 1);
    says(
        "explain",
        &r.stderr,
        &["cache-1-7 not found", "did you mean", "cache-1-1"],
    );
}

#[test]
fn empty_namespace_says_so() {
    let r = run(&["status", "-f", &example("jammed"), "-n", "elsewhere"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "");
    says(
        "empty",
        &r.stderr,
        &["No ValkeyClusters found in namespace elsewhere."],
    );
    let r = run(&[
        "status",
        "-f",
        &example("jammed"),
        "-n",
        "elsewhere",
        "-o",
        "json",
    ]);
    let doc: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(doc, serde_json::json!({"clusters": []}));
}

#[test]
fn stdin_is_a_source() {
    let text = std::fs::read_to_string(example("converged")).expect("example");
    let output = Command::new(BIN)
        .args(["status", "-f", "-", "--now", NOW, "--exit-code"])
        .write_stdin(text)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).contains("CONVERGED"));
}

#[test]
fn malformed_snapshot_names_document_and_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.yaml");
    std::fs::write(
        &path,
        "apiVersion: valkey.io/v1alpha1\nkind: ValkeyCluster\nmetadata: {name: cache, namespace: prod}\n---\n\
         apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata:\n  name: cache-0-0\n  namespace: prod\n  \
         labels: {valkey.io/cluster: cache}\nstatus:\n  ready: maybe\n",
    )
    .expect("write");
    let path = path.display().to_string();
    for args in [
        vec!["status", "-f", path.as_str()],
        vec!["explain", "cache-0-0", "-f", path.as_str()],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 1, "{args:?}");
        says(
            "malformed",
            &r.stderr,
            &["document 2", "ValkeyNode prod/cache-0-0", "status.ready"],
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
}

/// Runs the program with stdout on a pseudo-terminal, where colour is on
/// unless `--no-color` or `NO_COLOR` turn it off.
#[cfg(target_os = "linux")]
fn run_on_terminal(args: &[&str], no_color_env: bool) -> String {
    use std::process::Stdio;

    let harness::pty::Pty { master, slave } = harness::pty::open();
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(args)
        .args(["--now", NOW])
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave))
        .stderr(Stdio::null());
    if no_color_env {
        cmd.env("NO_COLOR", "1");
    }
    let mut child = cmd.spawn().expect("spawn");
    // The parent's copy of the terminal's other end must be closed, or the
    // read below never sees the end.
    drop(cmd);
    let mut terminal = master;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match terminal.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            // Linux answers EIO once every writer has closed the terminal.
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) => panic!("reading the terminal: {e}"),
        }
    }
    child.wait().expect("wait");
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(target_os = "linux")]
#[test]
fn colour_on_a_terminal_unless_turned_off() {
    let jammed = example("jammed");
    let coloured = run_on_terminal(&["status", "-f", &jammed], false);
    assert!(
        coloured.contains('\u{1b}'),
        "no colour on a terminal:\n{coloured}"
    );
    assert!(coloured.contains("JAMMED"), "{coloured}");

    let flag = run_on_terminal(&["status", "-f", &jammed, "--no-color"], false);
    assert!(flag.contains("JAMMED"), "{flag}");
    assert!(!flag.contains('\u{1b}'), "--no-color:\n{flag}");

    let env = run_on_terminal(&["status", "-f", &jammed], true);
    assert!(env.contains("JAMMED"), "{env}");
    assert!(!env.contains('\u{1b}'), "NO_COLOR:\n{env}");

    let explain = run_on_terminal(
        &["explain", "cache-1-0", "-f", &jammed, "--no-color"],
        false,
    );
    assert!(explain.contains("Why Stuck"), "{explain}");
    assert!(
        !explain.contains('\u{1b}'),
        "explain --no-color:\n{explain}"
    );
}

/// Issue 12, "Last words", offline: the crash-looping holder's last
/// termination is in the snapshot and shown; its log is not (one line says
/// so), and explain still exits 0. `status -o wide` and the JSON evidence
/// carry the exit code and reason.
#[test]
fn explain_offline_shows_the_last_termination_and_says_there_is_no_log() {
    let jammed = example("jammed");
    let r = run(&["explain", "cache-1-0", "-f", &jammed]);
    assert_eq!(r.code, 0, "{}", r.both());
    let section = r
        .stdout
        .split("\nLast words\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap_or_else(|| panic!("no Last words section:\n{}", r.stdout));
    says(
        "last words",
        section,
        &[
            "container server (restarts 7)",
            "last terminated 30s ago (2026-11-29T10:15:41Z): exit code 137, reason OOMKilled",
            "no log: the snapshot is read from a file (-f)",
        ],
    );
    assert_eq!(
        section.lines().count(),
        3,
        "one line for the log:\n{section}"
    );

    let r = run(&["explain", "cache", "-f", &jammed]);
    assert_eq!(r.code, 0, "{}", r.both());
    says(
        "cluster",
        &r.stdout,
        &[
            "\nLast words of cache-1-0\n",
            "exit code 137, reason OOMKilled",
        ],
    );

    let r = run(&["status", "-o", "wide", "-f", &jammed]);
    assert_eq!(r.code, 0, "{}", r.both());
    assert!(
        r.stdout.lines().next().is_some() && r.stdout.contains("LAST-EXIT"),
        "{}",
        r.stdout
    );
    let row = r
        .stdout
        .lines()
        .find(|l| l.starts_with("cache-1-0 "))
        .unwrap_or_else(|| panic!("no row:\n{}", r.stdout));
    assert!(row.contains("137 (OOMKilled)"), "{row}");

    let r = run(&["status", "-o", "json", "-f", &jammed]);
    let doc = r.ok_json();
    let node = doc["clusters"][0]["nodes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["name"] == "cache-1-0"))
        .cloned()
        .unwrap_or_else(|| panic!("no cache-1-0 in {doc}"));
    let with: Vec<&Value> = node["evidence"]
        .as_array()
        .map(|e| e.iter().map(|e| &e["lastTermination"]).collect())
        .unwrap_or_default();
    // CrashLoopBackOff and OOMKilled are about the container; the hold
    // time is not.
    assert_eq!(with.len(), 3, "{node}");
    for t in &with[..2] {
        assert_eq!(t["exitCode"], 137, "{node}");
        assert_eq!(t["reason"], "OOMKilled", "{node}");
        assert_eq!(t["container"], "server", "{node}");
        assert_eq!(t["finishedAt"], "2026-11-29T10:15:41Z", "{node}");
    }
    assert_eq!(with[2], &Value::Null, "{node}");
}
