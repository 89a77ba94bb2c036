//! The classifier on arbitrary objects: a real-looking snapshot built from
//! the bytes (tests/props/gen.rs, the property tests' generator), then
//! hand-edited by the rest of the bytes (any string or number where a person
//! or another tool could write one: annotations, condition fields, labels,
//! roles, generations, times). Classification must not panic and must keep
//! the invariants of tests/props/invariants.rs; shuffling the List changes
//! nothing.

#![no_main]

#[path = "../../props/gen.rs"]
mod gen_;
#[path = "../../props/invariants.rs"]
mod invariants;

use kubectl_valkey_roll::classify::classify;
use kubectl_valkey_roll::source::file::parse_snapshot;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::time::Duration;

/// Where a hand edit may land, relative to an item.
const PATHS: &[&str] = &[
    "/metadata/annotations/valkey.io~1allow-workload-revision",
    "/metadata/annotations/valkey.io~1desired-workload-revision",
    "/metadata/annotations/valkey-roll.io~1granted-at",
    "/metadata/annotations/valkey-roll.io~1granted-revision",
    "/metadata/labels/valkey.io~1shard-index",
    "/metadata/labels/valkey.io~1node-index",
    "/metadata/labels/controller-revision-hash",
    "/metadata/generation",
    "/metadata/creationTimestamp",
    "/metadata/deletionTimestamp",
    "/spec/workloadRevision",
    "/spec/workloadType",
    "/status/role",
    "/status/ready",
    "/status/podName",
    "/status/podIP",
    "/status/observedGeneration",
    "/status/lastRolloutHash",
    "/status/conditions/0/status",
    "/status/conditions/0/message",
    "/status/conditions/0/lastTransitionTime",
    "/status/conditions/0/observedGeneration",
    "/status/conditions/1/type",
    "/status/readyReplicas",
    "/status/updateRevision",
    "/status/containerStatuses/0/restartCount",
    "/status/containerStatuses/0/state/waiting/reason",
    "/reason",
    "/series/lastObservedTime",
    "/lastTimestamp",
    "/involvedObject/name",
];

/// A value a hand edit writes: strings that look like what belongs there
/// and what does not, numbers at the edges.
fn value(b: &[u8]) -> Value {
    let pick = |i: usize| b.get(i).copied().unwrap_or(0);
    match pick(0) % 12 {
        0 => json!(""),
        1 => json!("*"),
        2 => json!(gen_::HASH_NEW),
        3 => json!(i64::from(i8::from_ne_bytes([pick(1)]))),
        4 => json!(i64::MAX),
        5 => json!("2026-11-29T10:16:11Z"),
        6 => json!("1970-01-01T00:00:00Z"),
        7 => json!("True"),
        8 => json!("False"),
        9 => json!(true),
        10 => json!("CrashLoopBackOff"),
        _ => {
            let len = usize::from(pick(1) % 16);
            json!(String::from_utf8_lossy(b.get(2..2 + len).unwrap_or(&[])))
        }
    }
}

/// Finding F1 (tests/classify_props.rs,
/// `a_fraction_of_a_second_does_not_make_a_roll_stalled`, ignored until the
/// classifier is fixed): `Stalled` on a quiet time of T and a fraction,
/// which the document shows as exactly T. Passed over here, and only here,
/// so that the fuzzer looks for other findings; the property tests keep
/// failing on it.
fn known_finding(report: &kubectl_valkey_roll::report::Report, threshold: u64, e: &str) -> bool {
    e.contains("verdict Stalled, but the first row of the table that matches is Waiting")
        && report
            .clusters
            .iter()
            .any(|c| c.quiet_for_seconds == Some(threshold))
}

fuzz_target!(|data: &[u8]| {
    // The first part builds the snapshot, the rest edits it.
    let split = data
        .len()
        .min(usize::from(data.first().copied().unwrap_or(0)) * 4);
    let (build, edits) = data.split_at(split);
    let g = gen_::snapshot(build, gen_::NAMES);
    let mut list = g.list;
    if let Some(items) = list["items"].as_array_mut()
        && !items.is_empty()
    {
        for edit in edits.chunks(6) {
            let item = usize::from(edit[0]) % items.len();
            let path = PATHS[usize::from(edit.get(1).copied().unwrap_or(0)) % PATHS.len()];
            if let Some(slot) = items[item].pointer_mut(path) {
                *slot = value(edit.get(2..).unwrap_or(&[]));
            }
        }
    }
    let text = serde_json::to_vec(&list).expect("a List serializes");
    // A hand edit may make an object unreadable: an error is an answer.
    let Ok(snapshot) = parse_snapshot(&text, "fuzz") else {
        return;
    };
    let now: jiff::Timestamp = gen_::NOW.parse().expect("a time");
    let threshold = Duration::from_secs(g.threshold_seconds);
    let report = classify(&snapshot, now, threshold);
    // A time edited to 1970 makes durations long, but never wrapped around.
    if let Err(e) = invariants::check(&snapshot, &report, g.threshold_seconds, 1 << 62)
        && !known_finding(&report, g.threshold_seconds, &e)
    {
        panic!("{e}");
    }
    let shuffled = gen_::shuffled(&list, data);
    let text = serde_json::to_vec(&shuffled).expect("a List serializes");
    let again = parse_snapshot(&text, "fuzz").expect("a shuffled List reads as the List did");
    assert_eq!(
        classify(&again, now, threshold),
        report,
        "shuffling changed the report"
    );
});
