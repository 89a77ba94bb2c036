//! Property tests of the classifier (issue 10, item 10), on generated
//! snapshots that look like what `kubectl get -o json` prints (tests/props/gen.rs),
//! read through the same public function as `-f`:
//!
//! - the invariants of tests/props/invariants.rs (one state per node,
//!   holders exactly the nodes in holder states, the front, the verdict
//!   the first matching row of docs/plugin.md's table, no negative duration);
//! - shuffling the List's items and every object's conditions changes
//!   nothing in the report;
//! - renaming every namespace and cluster (and so every node, workload,
//!   pod and event name derived from them) changes only the names;
//! - time alone changes nothing shown before the report's `next_change`
//!   (what `status --watch` sleeps until), nor ever when it has none.
//!
//! Why here and not in src/classify/tests/ with src/fixture.rs's builders:
//! the fuzz target (tests/fuzz, a crate of its own) cannot use a
//! `cfg(test)` module, and one generator for both means the two check the
//! same objects with the same invariants; going through `parse_snapshot`
//! also covers the conversion every source shares. The builders are being
//! moved (issue 13, item 5); a test here does not follow them.
//!
//! The generator draws from a byte vector, so proptest shrinks a failure to
//! the fewest and smallest bytes, that is to the plainest snapshot.
//! `PROPTEST_CASES` sets the number of cases (default 256 per property).

#[path = "props/gen.rs"]
mod gen_;
#[path = "props/invariants.rs"]
mod invariants;

use gen_::{NAMES, NOW, RENAMED};
use jiff::{SignedDuration, Timestamp};
use kubectl_valkey_roll::classify::classify;
use kubectl_valkey_roll::report::Report;
use kubectl_valkey_roll::snapshot::Snapshot;
use kubectl_valkey_roll::source::file::parse_snapshot;
use proptest::prelude::*;
use std::time::Duration;

fn parse(list: &serde_json::Value) -> Snapshot {
    let text = serde_json::to_vec(list).expect("a List serializes");
    parse_snapshot(&text, "generated").unwrap_or_else(|e| {
        panic!(
            "a generated snapshot must read: {e}\n{}",
            serde_json::to_string_pretty(list).unwrap_or_default()
        )
    })
}

fn judge(snapshot: &Snapshot, threshold_seconds: u64) -> Report {
    judge_at(
        snapshot,
        threshold_seconds,
        NOW.parse().expect("NOW is a time"),
    )
}

fn judge_at(snapshot: &Snapshot, threshold_seconds: u64, now: Timestamp) -> Report {
    classify(snapshot, now, Duration::from_secs(threshold_seconds))
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        // No files of persisted failures in the source tree: a failure is
        // printed with its minimal bytes, which a regression test takes.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..600)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn classification_keeps_its_invariants(data in bytes()) {
        let g = gen_::snapshot(&data, NAMES);
        let snapshot = parse(&g.list);
        let report = judge(&snapshot, g.threshold_seconds);
        if let Err(e) = invariants::check(&snapshot, &report, g.threshold_seconds, gen_::MAX_AGE_SECONDS) {
            return Err(TestCaseError::fail(format!(
                "{e}\nsnapshot:\n{}",
                serde_json::to_string_pretty(&g.list).unwrap_or_default()
            )));
        }
    }

    #[test]
    fn shuffling_the_input_changes_nothing(data in bytes(), order in bytes()) {
        let g = gen_::snapshot(&data, NAMES);
        let report = judge(&parse(&g.list), g.threshold_seconds);
        let shuffled = judge(&parse(&gen_::shuffled(&g.list, &order)), g.threshold_seconds);
        prop_assert_eq!(report, shuffled);
    }

    #[test]
    fn time_alone_changes_nothing_shown_before_the_next_change(data in bytes(), late in 0u32..7_200) {
        let g = gen_::snapshot(&data, NAMES);
        let snapshot = parse(&g.list);
        let now: Timestamp = NOW.parse().expect("NOW is a time");
        let report = judge_at(&snapshot, g.threshold_seconds, now);
        // Just before the next change, or any time up to three days on
        // when there is none.
        let probe = match report.next_change() {
            Some(next) => {
                prop_assert!(next > now, "next change {next} not after {now}");
                next - SignedDuration::from_millis(1)
            }
            None => now + SignedDuration::from_secs(i64::from(late) * 36),
        };
        if probe > now {
            let later = judge_at(&snapshot, g.threshold_seconds, probe);
            prop_assert_eq!(
                report.timeless(),
                later.timeless(),
                "judged at {} and at {}",
                now,
                probe
            );
        }
    }

    #[test]
    fn renaming_every_object_changes_only_names(data in bytes()) {
        let g = gen_::snapshot(&data, NAMES);
        let r = gen_::snapshot(&data, RENAMED);
        let report = serde_json::to_string_pretty(&judge(&parse(&g.list), g.threshold_seconds))
            .expect("a report serializes");
        let renamed = serde_json::to_string_pretty(&judge(&parse(&r.list), r.threshold_seconds))
            .expect("a report serializes");
        prop_assert_eq!(gen_::rename(&report, NAMES, RENAMED), renamed);
    }
}

/// The generator's own guard: the plainest input (no bytes) is one
/// converged-looking cluster, and the invariants check it.
#[test]
fn the_plainest_snapshot_is_judged() {
    let g = gen_::snapshot(&[], NAMES);
    let snapshot = parse(&g.list);
    assert_eq!(snapshot.nodes.len(), 1);
    let report = judge(&snapshot, g.threshold_seconds);
    invariants::check(
        &snapshot,
        &report,
        g.threshold_seconds,
        gen_::MAX_AGE_SECONDS,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// The generator is not vacuous: over a fixed set of byte strings it
/// reaches every node state and every verdict, so the properties above are
/// about all of them.
#[test]
fn the_generator_reaches_every_state_and_verdict() {
    use kubectl_valkey_roll::report::{NodeState, Verdict};
    use std::collections::BTreeMap;
    let mut states: BTreeMap<String, usize> = BTreeMap::new();
    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..600 {
        let data: Vec<u8> = (0..400)
            .map(|_| {
                // xorshift64: fixed, so the test is the same every run.
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        let g = gen_::snapshot(&data, NAMES);
        let report = judge(&parse(&g.list), g.threshold_seconds);
        for c in &report.clusters {
            *verdicts.entry(format!("{:?}", c.verdict)).or_default() += 1;
            for n in &c.nodes {
                *states.entry(format!("{:?}", n.state)).or_default() += 1;
            }
        }
    }
    let all_states = [
        NodeState::Standalone,
        NodeState::StalePermit,
        NodeState::Stuck,
        NodeState::Settling,
        NodeState::Rolling,
        NodeState::Waiting,
        NodeState::Blocking,
        NodeState::Converged,
    ];
    let all_verdicts = [
        Verdict::Conflict,
        Verdict::Jammed,
        Verdict::Rolling,
        Verdict::Stalled,
        Verdict::Waiting,
        Verdict::Converged,
    ];
    for s in all_states {
        assert!(
            states.contains_key(&format!("{s:?}")),
            "no node is {s:?}: {states:?}"
        );
    }
    for v in all_verdicts {
        assert!(
            verdicts.contains_key(&format!("{v:?}")),
            "no cluster is {v:?}: {verdicts:?}"
        );
    }
    eprintln!("states {states:?}\nverdicts {verdicts:?}");
}

/// Finding of `classification_keeps_its_invariants` (minimised by hand from
/// proptest's shrunk case): the verdict is decided on the quiet time with
/// its fraction of a second, the document shows it cut to whole seconds. A
/// roll whose newest sign of progress is an event series observed 60.5 s
/// ago, with a stall threshold of 60 s, is `Stalled` while its document
/// says `quietForSeconds: 60`: a script that applies the table to the
/// document ("quiet for over T") gets `Waiting`. The classifier now
/// compares the whole seconds it reports (classify::text::over).
#[test]
fn a_fraction_of_a_second_does_not_make_a_roll_stalled() {
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
         "metadata": {"name": "kvalpha", "namespace": "nsprod", "generation": 1}},
        {"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
         "metadata": {"name": "kvalpha-0-0", "namespace": "nsprod", "generation": 1,
                      "labels": {"valkey.io/cluster": "kvalpha", "valkey.io/shard-index": "0", "valkey.io/node-index": "0"},
                      "ownerReferences": [{"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
                                           "name": "kvalpha", "uid": "u", "controller": true}]},
         "spec": {"workloadRevision": gen_::HASH_CURRENT},
         "status": {"ready": true, "role": "primary", "observedGeneration": 1,
                    "conditions": [
                        {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-29T09:00:00Z"},
                        {"type": "WorkloadRollPending", "status": "True", "lastTransitionTime": "2026-11-29T10:14:11Z",
                         "message": format!("workload revision {} awaits the cluster's roll", gen_::HASH_NEW)}]}},
        {"apiVersion": "v1", "kind": "Event",
         "metadata": {"name": "kvalpha-0-0.1", "namespace": "nsprod"},
         "involvedObject": {"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode", "name": "kvalpha-0-0", "namespace": "nsprod"},
         "reason": "WorkloadRollApplied", "message": "applied", "type": "Normal",
         "eventTime": "2026-11-29T10:14:11.000000Z",
         "series": {"count": 2, "lastObservedTime": "2026-11-29T10:15:10.500000Z"}},
    ]});
    let report = judge(&parse(&list), 60);
    let c = &report.clusters[0];
    assert_eq!(c.quiet_for_seconds, Some(60), "{c:?}");
    assert_eq!(
        c.verdict,
        kubectl_valkey_roll::report::Verdict::Waiting,
        "quiet for 60 s is not over a threshold of 60 s: {}",
        c.reason
    );
}

/// The same finding, from the classify fuzz target (in under a minute): the
/// roll is unfinished only by the ValkeyCluster's word (Ready=False for its
/// generation), every node Converged, no front.
#[test]
fn a_fraction_of_a_second_does_not_make_a_roll_stalled_by_the_clusters_word() {
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
         "metadata": {"name": "kvalpha", "namespace": "nsteam", "generation": 2},
         "status": {"conditions": [{"type": "Ready", "status": "False", "observedGeneration": 2,
                                    "reason": "UpdatingNodes", "lastTransitionTime": "2026-11-29T10:14:11Z"}]}},
        {"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyNode",
         "metadata": {"name": "kvalpha-0-0", "namespace": "nsteam", "generation": 1,
                      "labels": {"valkey.io/cluster": "kvalpha", "valkey.io/shard-index": "0", "valkey.io/node-index": "0"},
                      "ownerReferences": [{"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
                                           "name": "kvalpha", "uid": "u", "controller": true}]},
         "status": {"ready": true, "role": "primary", "observedGeneration": 1,
                    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-29T09:00:00Z"}]}},
        {"apiVersion": "v1", "kind": "Event",
         "metadata": {"name": "kvalpha.1", "namespace": "nsteam"},
         "involvedObject": {"apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster", "name": "kvalpha", "namespace": "nsteam"},
         "reason": "ValkeyNodeUpdated", "message": "updated", "type": "Normal",
         "eventTime": "2026-11-29T10:14:11.000000Z",
         "series": {"count": 2, "lastObservedTime": "2026-11-29T10:15:10.500000Z"}},
    ]});
    let report = judge(&parse(&list), 60);
    let c = &report.clusters[0];
    assert_eq!(c.quiet_for_seconds, Some(60), "{c:?}");
    assert_eq!(
        c.verdict,
        kubectl_valkey_roll::report::Verdict::Waiting,
        "unfinished by the ValkeyCluster's word, quiet 60 s of 60: {}",
        c.reason
    );
}
