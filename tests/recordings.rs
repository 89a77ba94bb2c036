//! Every moment of the real operator's recorded rolls (../shared/recordings,
//! beside the checkout; CI has it there too), replayed offline exactly as
//! the recordings' README says
//! (`zcat FILE | kubectl-valkey-roll status -f - --now NOW -o json`) and
//! compared with the true state in each scenario's expected.json:
//! - the holders are exactly the nodes truly in flight (so no Conflict
//!   unless two are);
//! - `done` is the true count wherever the truth gives one;
//! - a node the operator has yet to advance never reads Converged, and a
//!   node not ready never does either;
//! - a node whose pod is Ready on the new revision before its node status
//!   catches up (`podready`) is Blocking;
//! - a crash-looping holder makes the cluster Jammed.
//!
//! Moments before a scenario's first recorded write show nothing of the
//! roll yet (the truth there looks ahead): only the holders and Conflict
//! checks apply to them.
//!
//! The recordings are read at run time from `../shared/recordings` (or
//! `VALKEY_ROLL_RECORDINGS`); they are never copied into this repository.

mod recorded;

use serde_json::Value;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-valkey-roll");

/// The scenarios: every folder with an expected.json.
fn scenarios(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("read {}: {e}", root.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// `status -f - --now NOW -o json` on the bytes: the first cluster's report
/// (None: no cluster in view, as before a cluster is created).
fn status(list: &[u8], now: &str) -> Option<Value> {
    let mut child = Command::new(BIN)
        .args(["status", "-f", "-", "--now", now, "-o", "json"])
        .env_remove("KUBECONFIG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(list)
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for the plugin");
    assert!(
        out.status.success(),
        "status exited {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("status -o json is JSON");
    doc["clusters"]
        .as_array()
        .expect("clusters[]")
        .first()
        .cloned()
}

/// The names in `truth` after `label` up to the next `;` (`-` or `none`: none).
fn listed(truth: &str, label: &str) -> BTreeSet<String> {
    let Some(rest) = truth.split(label).nth(1) else {
        return BTreeSet::new();
    };
    rest.split(';')
        .next()
        .unwrap_or("")
        .split(',')
        .map(|w| w.split_whitespace().next().unwrap_or("").to_string())
        .filter(|w| !w.is_empty() && w != "-" && w != "none")
        .collect()
}

/// `done N` in the truth.
fn true_done(truth: &str) -> Option<u64> {
    truth
        .split(';')
        .find_map(|part| part.trim().strip_prefix("done "))
        .and_then(|n| n.trim().parse().ok())
}

#[test]
fn every_recorded_moment_reads_true() {
    let root = recorded::root();
    let mut failures = Vec::new();
    let mut checked = 0;
    let dirs = scenarios(&root);
    assert!(
        dirs.len() >= 3,
        "expected the recorded scenarios under {}",
        root.display()
    );
    for dir in dirs {
        let scenario = dir.file_name().unwrap().to_string_lossy().into_owned();
        let expected: Value = serde_json::from_slice(
            &std::fs::read(dir.join("expected.json")).expect("read expected.json"),
        )
        .expect("expected.json is JSON");
        let moments = expected.as_object().expect("expected.json is an object");
        // The scenario's first recorded write: before it nothing of the
        // roll is in the objects.
        let first_write = moments
            .iter()
            .filter(|(f, _)| f.starts_with("writes/"))
            .filter_map(|(_, m)| m["now"].as_str())
            .min()
            .expect("a recorded write")
            .to_string();
        let mut in_scenario = 0;
        for (file, truth) in moments {
            let now = truth["now"].as_str().expect("now");
            let words = truth["truth"].as_str().unwrap_or("");
            let report = status(&recorded::gunzip(&dir.join(file)), now);
            let mut fail =
                |what: String| failures.push(format!("{scenario}/{file} @ {now}: {what}"));
            let want_holders = recorded::names(&truth["holders"]);
            let Some(c) = report else {
                if !want_holders.is_empty() {
                    fail(format!(
                        "no cluster in view, but {want_holders:?} in flight"
                    ));
                }
                in_scenario += 1;
                continue;
            };
            let state_of = |name: &str| -> String {
                c["nodes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|n| n["name"] == name)
                    .and_then(|n| n["state"].as_str())
                    .unwrap_or("(absent)")
                    .to_string()
            };
            let holders = recorded::names(&c["holders"]);
            if holders != want_holders {
                fail(format!(
                    "holders {holders:?}, truly in flight {want_holders:?}"
                ));
            }
            if c["verdict"] == "Conflict" && want_holders.len() < 2 {
                fail(format!("Conflict: {}", c["reason"]));
            }
            if truth["crashLooping"] == true && c["verdict"] != "Jammed" {
                fail(format!("a holder crash-loops, verdict {}", c["verdict"]));
            }
            if now >= first_write.as_str() {
                if let Some(done) = true_done(words)
                    && c["done"].as_u64() != Some(done)
                {
                    fail(format!("done {}, truly {done}", c["done"]));
                }
                for n in recorded::names(&truth["stillToAdvance"]) {
                    if scenario.contains("spec") && state_of(&n) != "Waiting" {
                        fail(format!(
                            "{n} is still to be advanced but reads {}",
                            state_of(&n)
                        ));
                    }
                }
                for n in listed(words, "not ready:") {
                    if state_of(&n) == "Converged" {
                        fail(format!("{n} is not ready but reads Converged"));
                    }
                }
                if let Some(pod_ready) = words
                    .split("in flight:")
                    .nth(1)
                    .and_then(|r| r.split(';').next())
                    .filter(|r| r.contains("(podready)"))
                    .and_then(|r| r.split_whitespace().next())
                    && state_of(pod_ready) != "Blocking"
                {
                    fail(format!(
                        "{pod_ready}'s pod is Ready before its node status: Blocking, reads {}",
                        state_of(pod_ready)
                    ));
                }
            }
            in_scenario += 1;
        }
        assert!(in_scenario > 0, "{scenario}: no moment checked");
        checked += in_scenario;
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} recorded moments read wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn truth_parsing() {
    let t =
        "in flight: rig-0-1 (podready); not ready: rig-0-1,rig-1-0; still to advance: -; done 3";
    assert_eq!(
        listed(t, "not ready:"),
        BTreeSet::from(["rig-0-1".into(), "rig-1-0".into()])
    );
    assert_eq!(listed(t, "still to advance:"), BTreeSet::new());
    assert_eq!(true_done(t), Some(3));
    assert_eq!(true_done("in flight: none; not ready: -"), None);
}
