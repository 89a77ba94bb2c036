//! The judgement of each cluster of a live view, kept between changes: the
//! exporter, `status --watch` and `wait` judge again only the clusters whose
//! objects changed ([`Changed`], from the watch), those new in view, and
//! those whose verdict time alone can change by now (their report's
//! `next_change`, the wake they already keep); the others keep their last
//! judgement. Each cluster is judged from its own objects
//! ([`Snapshot::cluster_views`], whose rules say which are its own), so a
//! judgement costs what its cluster holds, not the fleet. A live view's
//! clusters are read straight from the watch's stores, one at a time
//! ([`InView`]): no whole snapshot is built.

use crate::classify::classify;
use crate::error::Result;
use crate::report::ClusterReport;
use crate::snapshot::{Changed, ClusterKey, Snapshot};
use crate::source::watch::InView;
use jiff::Timestamp;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

/// Where the clusters judged come from: the objects in view, each
/// cluster's view read on demand.
pub(crate) trait Clusters {
    /// Every cluster in view.
    fn cluster_keys(&self) -> BTreeSet<ClusterKey>;
    /// The clusters `changed` names.
    fn changed_clusters(&self, changed: &Changed) -> BTreeSet<ClusterKey>;
    /// Hands the view of each cluster of `wanted` in view to `judge`.
    fn each_view(
        self,
        wanted: &BTreeSet<ClusterKey>,
        judge: &mut dyn FnMut(ClusterKey, Snapshot),
    ) -> Result<()>;
}

/// A whole snapshot: a snapshot no one else holds is taken apart into the
/// views (no copy); a shared one is copied, the judged clusters' objects
/// only.
impl Clusters for Arc<Snapshot> {
    fn cluster_keys(&self) -> BTreeSet<ClusterKey> {
        Snapshot::cluster_keys(self)
    }

    fn changed_clusters(&self, changed: &Changed) -> BTreeSet<ClusterKey> {
        Snapshot::changed_clusters(self, changed)
    }

    fn each_view(
        self,
        wanted: &BTreeSet<ClusterKey>,
        judge: &mut dyn FnMut(ClusterKey, Snapshot),
    ) -> Result<()> {
        let views = match Arc::try_unwrap(self) {
            Ok(owned) => owned.into_cluster_views(wanted),
            Err(shared) => shared.cluster_views(wanted),
        };
        for (key, view) in views {
            judge(key, view);
        }
        Ok(())
    }
}

/// The watch's objects: each cluster's view read from its stores alone.
impl Clusters for InView {
    fn cluster_keys(&self) -> BTreeSet<ClusterKey> {
        InView::cluster_keys(self)
    }

    fn changed_clusters(&self, changed: &Changed) -> BTreeSet<ClusterKey> {
        InView::changed_clusters(self, changed)
    }

    fn each_view(
        self,
        wanted: &BTreeSet<ClusterKey>,
        judge: &mut dyn FnMut(ClusterKey, Snapshot),
    ) -> Result<()> {
        InView::each_view(&self, wanted, judge)
    }
}

/// Objects in view with what their servers said: each view gets its
/// cluster's newest readings ([`Readings::add_to`]) before it is judged,
/// and the clusters whose readings changed (`changed`, from
/// [`Rereader::finished`](super::servers::Rereader::finished)) are judged again like those whose objects did.
/// Without a re-reader it is the objects alone.
pub(crate) struct WithReadings<C, R> {
    pub objects: C,
    pub readings: Option<R>,
    pub changed: BTreeSet<ClusterKey>,
}

/// Where each cluster's newest readings are kept: the watch's and wait's
/// [`Rereader`](super::servers::Rereader) itself, or a copy of its handles to judge with off the
/// loop's task ([`Rereader::shared`](super::servers::Rereader::shared)).
pub(crate) trait Readings {
    /// Adds cluster `key`'s newest readings to its view.
    fn add_to(&self, key: &ClusterKey, view: &mut Snapshot);
}

impl<C: Clusters, R: Readings> Clusters for WithReadings<C, R> {
    fn cluster_keys(&self) -> BTreeSet<ClusterKey> {
        self.objects.cluster_keys()
    }

    fn changed_clusters(&self, changed: &Changed) -> BTreeSet<ClusterKey> {
        let mut out = self.objects.changed_clusters(changed);
        out.extend(self.changed.iter().cloned());
        out
    }

    fn each_view(
        self,
        wanted: &BTreeSet<ClusterKey>,
        judge: &mut dyn FnMut(ClusterKey, Snapshot),
    ) -> Result<()> {
        let readings = self.readings;
        self.objects.each_view(wanted, &mut |key, mut view| {
            if let Some(r) = &readings {
                r.add_to(&key, &mut view);
            }
            judge(key, view);
        })
    }
}

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
    /// Brings the judgements up to the objects in view at `now`: judges
    /// again the clusters `changed` names, those not judged yet, those
    /// whose next change has come, and those `also` asks for (a screen
    /// whose durations tick); forgets the clusters gone from view. `keep`
    /// makes what is kept of a report. Returns how many clusters it
    /// judged; an object that cannot be read is the error (the clusters
    /// judged before it keep their new judgement).
    pub(crate) fn update(
        &mut self,
        objects: impl Clusters,
        changed: &Changed,
        now: Timestamp,
        threshold: Duration,
        keep: impl Fn(ClusterReport, &Snapshot) -> T,
        also: impl Fn(&T) -> bool,
    ) -> Result<usize> {
        let in_view = objects.cluster_keys();
        self.kept.retain(|k, _| in_view.contains(k));
        let mut due = objects.changed_clusters(changed);
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
            return Ok(0);
        }
        let mut judged = 0;
        let mut found = BTreeSet::new();
        objects.each_view(&due, &mut |key, view| {
            let report = classify(&view, now, threshold);
            judged += 1;
            let own = report
                .clusters
                .into_iter()
                .find(|c| c.namespace == key.0 && c.name == key.1);
            if let Some(c) = own {
                let next_change = c.next_change;
                self.kept.insert(
                    key.clone(),
                    Kept {
                        value: keep(c, &view),
                        next_change,
                    },
                );
                found.insert(key);
            }
        })?;
        // A due cluster with no view or no report of its own is gone.
        self.kept
            .retain(|k, _| !due.contains(k) || found.contains(k));
        Ok(judged)
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
    use crate::source::watch::fake::Fake;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_change_to_one_clusters_pod_judges_that_cluster_only() {
        let threshold = Duration::from_secs(600);
        let mut judgements: Judgements<ClusterReport> = Judgements::default();
        let before = fixture::fleet();
        let whole = classify(&before, t(0), threshold);
        let n = judgements
            .update(
                Arc::new(before.clone()),
                &Changed::all(),
                t(0),
                threshold,
                |r, _| r,
                |_| false,
            )
            .expect("judged");
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
        let n = judgements
            .update(
                Arc::new(after),
                &changed,
                t(1),
                threshold,
                |r, _| r,
                |_| false,
            )
            .expect("judged");
        assert_eq!(n, 1, "only four is judged again");
    }

    /// The clusters whose servers said something new are judged again,
    /// and no other, though no object changed.
    #[test]
    fn a_change_the_servers_say_judges_that_cluster_only() {
        let threshold = Duration::from_secs(600);
        let mut judgements: Judgements<ClusterReport> = Judgements::default();
        let fleet = Arc::new(fixture::fleet());
        judgements
            .update(
                fleet.clone(),
                &Changed::all(),
                t(0),
                threshold,
                |r, _| r,
                |_| false,
            )
            .expect("judged");
        let four: ClusterKey = ("c".to_string(), "four".to_string());
        let n = judgements
            .update(
                WithReadings {
                    objects: fleet.clone(),
                    readings: None::<&crate::live::servers::Rereader>,
                    changed: [four].into(),
                },
                &Changed::default(),
                t(1),
                threshold,
                |r, _| r,
                |_| false,
            )
            .expect("judged");
        assert_eq!(n, 1, "only four is judged again");
        let n = judgements
            .update(
                WithReadings {
                    objects: fleet,
                    readings: None::<&crate::live::servers::Rereader>,
                    changed: BTreeSet::new(),
                },
                &Changed::default(),
                t(2),
                threshold,
                |r, _| r,
                |_| false,
            )
            .expect("judged");
        assert_eq!(n, 0, "nothing new: nothing judged");
    }

    /// The objects read, and views built, from the watch's stores.
    fn reads(view: &InView) -> (usize, usize) {
        let r = view.reads();
        (
            r.views.load(Ordering::Relaxed),
            r.objects.load(Ordering::Relaxed),
        )
    }

    #[test]
    fn a_change_to_one_clusters_pod_in_the_watch_reads_and_judges_that_cluster_only() {
        let threshold = Duration::from_secs(600);
        let fleet = fixture::fleet();
        let whole = classify(&fleet, t(0), threshold);
        let mut fake = Fake::of(&fleet, None);
        let view = fake.in_view();
        let mut judgements: Judgements<ClusterReport> = Judgements::default();
        let n = judgements
            .update(
                view.clone(),
                &Changed::all(),
                t(0),
                threshold,
                |r, _| r,
                |_| false,
            )
            .expect("judged");
        assert_eq!(n, 5);
        assert_eq!(
            judgements.values().cloned().collect::<Vec<_>>(),
            whole.clusters,
            "each cluster read from the stores is judged as in the whole"
        );
        let all = fake.whole();
        let objects = all.clusters.len()
            + all.nodes.len()
            + all.stateful_sets.len()
            + all.pods.len()
            + all.events.len();
        assert_eq!(reads(&view), (5, objects), "the first judgement reads all");

        // four's pod 1 is not ready any more.
        let mut pod = fleet
            .pods
            .iter()
            .find(|p| p.metadata.namespace.as_deref() == Some("c"))
            .expect("a pod of four")
            .clone();
        if let Some(c) = pod.status.as_mut().and_then(|s| s.conditions.as_mut()) {
            c.iter_mut().for_each(|c| c.status = "False".into());
        }
        fake.apply_pod(&pod);
        let changed = fake.take_changed();
        let n = judgements
            .update(view.clone(), &changed, t(1), threshold, |r, _| r, |_| false)
            .expect("judged");
        assert_eq!(n, 1, "only four is judged again");
        // Its cluster, three nodes, three workloads, three pods.
        assert_eq!(
            reads(&view),
            (6, objects + 10),
            "four's objects alone are read"
        );
        let four = judgements
            .values()
            .find(|c| c.name == "four")
            .expect("four is judged");
        assert_ne!(
            Some(four),
            whole.clusters.iter().find(|c| c.name == "four"),
            "four's judgement follows its pod"
        );
    }
}
