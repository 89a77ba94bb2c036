//! The pure classifier: (Snapshot, now, stall threshold) -> Report. Not built yet.
use crate::report::Report;
use crate::snapshot::Snapshot;
use jiff::Timestamp;
use std::time::Duration;

/// Judges every ValkeyCluster in the snapshot (and every cluster that a
/// node's `valkey.io/cluster` label names), nodes in walk order.
pub fn classify(_snapshot: &Snapshot, _now: Timestamp, _threshold: Duration) -> Report {
    Report {
        clusters: Vec::new(),
    }
}
