//! The judgement of each cluster of a live view, kept between changes: the
//! exporter, `status --watch` and `wait` judge again only the clusters whose
//! objects changed ([`Changed`], from the watch), those new in view, and
//! those whose verdict time alone can change by now (their report's
//! `next_change`, the wake they already keep); the others keep their last
//! judgement. Each cluster is judged from its own objects
//! ([`Snapshot::cluster_views`], whose rules say which are its own), so a
//! judgement costs what its cluster holds, not the fleet.

use crate::classify::classify;
use crate::report::ClusterReport;
use crate::snapshot::{Changed, ClusterKey, Snapshot};
use jiff::Timestamp;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// What is kept of each cluster's last judgement: `T` (a whole report for
/// a screen, a summary for the exporter) and when time alone changes it.
#[derive(Debug)]
pub(crate) struct Judgements<T> {
    kept: BTreeMap<ClusterKey, Kept<T>>,
}

#[derive(Debug)]
struct Kept<T> {
    value: T,
    next_change: Option<Timestamp>,
}

impl<T> Default for Judgements<T> {
    fn default() -> Self {
        Judgements {
            kept: BTreeMap::new(),
        }
    }
}

impl<T> Judgements<T> {
    /// Brings the judgements up to `snapshot` at `now`: judges again the
    /// clusters `changed` names, those not judged yet, those whose next
    /// change has come, and those `also` asks for (a screen whose
    /// durations tick); forgets the clusters gone from view. `keep` makes
    /// what is kept of a report. Returns how many clusters it judged.
    ///
    /// A snapshot no one else holds is taken apart into the views (no
    /// copy); a shared one is copied, the judged clusters' objects only.
    pub(crate) fn update(
        &mut self,
        snapshot: Arc<Snapshot>,
        changed: &Changed,
        now: Timestamp,
        threshold: Duration,
        keep: impl Fn(ClusterReport) -> T,
        also: impl Fn(&T) -> bool,
    ) -> usize {
        let in_view = snapshot.cluster_keys();
        self.kept.retain(|k, _| in_view.contains(k));
        let mut due = snapshot.changed_clusters(changed);
        due.retain(|k| in_view.contains(k));
        for k in &in_view {
            let again = match self.kept.get(k) {
                None => true,
                Some(kept) => kept.next_change.is_some_and(|t| t <= now) || also(&kept.value),
            };
            if again {
                due.insert(k.clone());
            }
        }
        if due.is_empty() {
            return 0;
        }
        let views = match Arc::try_unwrap(snapshot) {
            Ok(owned) => owned.into_cluster_views(&due),
            Err(shared) => shared.cluster_views(&due),
        };
        let mut judged = 0;
        for (key, view) in views {
            let report = classify(&view, now, threshold);
            drop(view);
            judged += 1;
            let own = report
                .clusters
                .into_iter()
                .find(|c| c.namespace == key.0 && c.name == key.1);
            match own {
                Some(c) => {
                    let next_change = c.next_change;
                    self.kept.insert(
                        key,
                        Kept {
                            value: keep(c),
                            next_change,
                        },
                    );
                }
                None => {
                    self.kept.remove(&key);
                }
            }
        }
        judged
    }

    /// Each cluster's kept judgement, by namespace and name (the order of
    /// a report).
    pub(crate) fn values(&self) -> impl Iterator<Item = &T> {
        self.kept.values().map(|k| &k.value)
    }

    /// When time alone next changes a kept judgement.
    pub(crate) fn next_change(&self) -> Option<Timestamp> {
        self.kept.values().filter_map(|k| k.next_change).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, t};

    /// Five clusters of three nodes, one of them rolling (a node asks),
    /// in four namespaces (two share one).
    fn fleet() -> Snapshot {
        let mut snapshot = Snapshot::default();
        for (ns, name) in [
            ("a", "one"),
            ("b", "two"),
            ("b", "three"),
            ("c", "four"),
            ("d", "five"),
        ] {
            let mut c = fixture::cluster(ns, name).ready_for_generation();
            for index in 0..3 {
                let n = fixture::node(&format!("{name}-0-{index}"))
                    .shard(0, index)
                    .ready()
                    .pod_ready()
                    .sts_rolled_out();
                let n = if index == 0 { n.primary() } else { n.replica() };
                let n = if name == "three" && index == 1 {
                    n.permit("h-old").desired("h-new")
                } else {
                    n
                };
                c = c.node(n);
            }
            c.add_to(&mut snapshot);
        }
        snapshot.normalize();
        snapshot
    }

    #[test]
    fn a_change_to_one_clusters_pod_judges_that_cluster_only() {
        let threshold = Duration::from_secs(600);
        let mut judgements: Judgements<ClusterReport> = Judgements::default();
        let before = fleet();
        let whole = classify(&before, t(0), threshold);
        let n = judgements.update(
            Arc::new(before.clone()),
            &Changed::all(),
            t(0),
            threshold,
            |r| r,
            |_| false,
        );
        assert_eq!(n, 5);
        // Each cluster judged from its own objects is judged as in the whole.
        assert_eq!(
            judgements.values().cloned().collect::<Vec<_>>(),
            whole.clusters
        );

        let mut after = before.clone();
        let pod = after
            .pods
            .iter_mut()
            .find(|p| p.metadata.namespace.as_deref() == Some("c"))
            .expect("a pod of four");
        pod.metadata.resource_version = Some("99".into());
        let changed = Changed {
            clusters: [("c".to_string(), "four".to_string())].into(),
            ..Changed::default()
        };
        let n = judgements.update(Arc::new(after), &changed, t(1), threshold, |r| r, |_| false);
        assert_eq!(n, 1, "only four is judged again");
    }
}
