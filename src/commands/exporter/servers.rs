//! `exporter --servers`: the Valkey servers read again on a clock
//! (docs/metrics.md, "The servers"). The servers change without any API
//! write (a replica's link goes down, a failover the operator did not
//! make), so the watch alone never sees it: a task of its own reads every
//! cluster's servers ([`crate::source::servers::read_into`], with its
//! bounds: time per server, bytes per reply, servers at once), one
//! cluster at a time, then pauses for `--servers-interval` and starts
//! again. Each cluster's reading goes to the context's task as it is
//! taken, which judges that cluster again only when what its servers said
//! changed ([`Kept::put`]). A scrape never waits for a server: it renders
//! what was last judged.
//!
//! `status --watch --servers` and `wait --servers` read on their own
//! loop's clock instead ([`crate::source::servers::Rereader`]), on a task
//! beside the loop as well: the loop hears the watch and the signals
//! while a reading is under way.

use crate::live::judgements::Readings;
use crate::render::metrics::ServersSummary;
use crate::snapshot::{Changed, ClusterKey, ServerReading, Snapshot};
use crate::source::live::Live;
use crate::source::servers::{self, Reach};
use crate::source::watch::InView;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// What the reading task sends the context's task.
#[derive(Debug)]
pub(crate) enum News {
    /// One cluster's servers, as just read.
    Read(Reading),
    /// A round ended: the clusters it read (the others are gone from
    /// view, or could not be read this round).
    Round(BTreeSet<ClusterKey>),
}

/// One cluster's servers, as just read.
#[derive(Debug)]
pub(crate) struct Reading {
    pub key: ClusterKey,
    pub readings: Vec<ServerReading>,
    pub summary: ServersSummary,
    /// The lines that say which servers were not read (empty: all were).
    pub unread_words: String,
}

/// Reads the servers of every cluster in `view` for as long as the
/// receiver lives: a round over the clusters in view, one at a time, then
/// `interval` of rest.
pub(crate) async fn keep_reading(
    live: Live,
    view: InView,
    transport: Reach,
    interval: Duration,
    news: mpsc::Sender<News>,
) {
    loop {
        let mut read = BTreeSet::new();
        for key in view.cluster_keys() {
            let Some(reading) = read_one(&live, &view, &key, &transport).await else {
                continue;
            };
            read.insert(key);
            if news.send(News::Read(reading)).await.is_err() {
                return;
            }
        }
        if news.send(News::Round(read)).await.is_err() {
            return;
        }
        tokio::time::sleep(interval).await;
    }
}

/// Reads the servers of one cluster: its view is read from the watch's
/// stores (its ValkeyCluster, nodes and pods), then its servers. `None`
/// when it has no ValkeyCluster in view or an object of it cannot be read.
async fn read_one(
    live: &Live,
    view: &InView,
    key: &ClusterKey,
    transport: &Reach,
) -> Option<Reading> {
    // Read off the async workers, as a judgement is: a cluster of 10,000
    // nodes takes some 100 ms to read from the stores.
    let (view, wanted) = (view.clone(), BTreeSet::from([key.clone()]));
    let mut snapshot = tokio::task::spawn_blocking(move || {
        let mut one: Option<Snapshot> = None;
        InView::each_view(&view, &wanted, |_, v| one = Some(v)).ok()?;
        let mut snapshot = one?;
        // Only the cluster, its nodes and its pods are needed to reach
        // the servers.
        snapshot.events = Vec::new();
        snapshot.stateful_sets = Vec::new();
        snapshot.deployments = Vec::new();
        Some(snapshot)
    })
    .await
    .ok()??;
    let pods = snapshot
        .pods
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .count();
    let accounts = servers::read_into(
        live,
        &mut snapshot,
        Some((&key.0, &key.1)),
        transport,
        servers::BOUNDS,
    )
    .await;
    let account = accounts.into_iter().next()?;
    Some(Reading {
        key: key.clone(),
        readings: snapshot.readings,
        summary: ServersSummary::of(&account, pods),
        unread_words: crate::render::notice::servers_unread(std::slice::from_ref(&account)),
    })
}

/// The last reading of each cluster's servers, as judged.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    by_cluster: BTreeMap<ClusterKey, Arc<KeptReading>>,
    /// Clusters whose objects changed since their servers were last read:
    /// their next reading is judged even when it says what the last did
    /// (a reading older than the API's newest evidence may not count; a
    /// fresh one saying the same does).
    changed_since_read: BTreeSet<ClusterKey>,
}

#[derive(Debug)]
pub(crate) struct KeptReading {
    pub readings: Vec<ServerReading>,
    pub summary: ServersSummary,
}

impl Kept {
    /// Keeps `reading`; true when the cluster is to be judged again: what
    /// its servers said changed (the time of the reading aside), or its
    /// objects changed since its last reading.
    pub(crate) fn put(&mut self, reading: Reading) -> bool {
        let mut readings = reading.readings;
        readings.sort_by(|a, b| a.pod().cmp(b.pod()));
        let again = self.changed_since_read.remove(&reading.key)
            || self.by_cluster.get(&reading.key).is_none_or(|k| {
                k.summary != reading.summary
                    || !ServerReading::all_say_the_same(&k.readings, &readings)
            });
        self.by_cluster.insert(
            reading.key,
            Arc::new(KeptReading {
                readings,
                summary: reading.summary,
            }),
        );
        again
    }

    /// Forgets the clusters a round did not read; returns them (to be
    /// judged again, without readings).
    pub(crate) fn keep_only(&mut self, read: &BTreeSet<ClusterKey>) -> BTreeSet<ClusterKey> {
        let gone: BTreeSet<ClusterKey> = self
            .by_cluster
            .keys()
            .filter(|k| !read.contains(*k))
            .cloned()
            .collect();
        self.by_cluster.retain(|k, _| read.contains(k));
        self.changed_since_read.retain(|k| read.contains(k));
        gone
    }

    /// Notes the clusters whose objects changed (`changed`, as the watch
    /// marked it) before they are judged.
    pub(crate) fn objects_changed(&mut self, view: &InView, changed: &Changed) {
        if changed.is_empty() {
            return;
        }
        self.changed_since_read.extend(
            view.changed_clusters(changed)
                .into_iter()
                .filter(|k| self.by_cluster.contains_key(k)),
        );
    }

    /// The readings to judge with: a copy of the handles.
    pub(crate) fn shared(&self) -> Shared {
        Shared(Arc::new(self.by_cluster.clone()))
    }
}

/// The readings to judge with ([`Kept::shared`]): each cluster's last.
#[derive(Clone, Debug)]
pub(crate) struct Shared(Arc<BTreeMap<ClusterKey, Arc<KeptReading>>>);

impl Shared {
    pub(crate) fn get(&self, key: &ClusterKey) -> Option<&KeptReading> {
        self.0.get(key).map(|k| &**k)
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Readings for Shared {
    fn add_to(&self, key: &ClusterKey, view: &mut Snapshot) {
        if let Some(k) = self.0.get(key) {
            view.readings.extend(k.readings.iter().cloned());
            view.normalize();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Failure;

    fn reading(pod: &str, link: &str, at: i64) -> ServerReading {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "valkey-roll.io/v1alpha1", "kind": "ServerReading",
            "metadata": {"namespace": "ns", "name": pod},
            "observedAt": crate::fixture::t(at).to_string(),
            "role": "replica", "link": link,
        }))
        .expect("a reading")
    }

    fn news(readings: Vec<ServerReading>, failed: usize) -> Reading {
        let account = crate::snapshot::ClusterServers {
            namespace: "ns".into(),
            cluster: "c".into(),
            trouble: None,
            read: readings.len() - failed,
            failed: (0..failed)
                .map(|i| (format!("p{i}"), Failure::Unreachable))
                .collect(),
        };
        Reading {
            key: ("ns".into(), "c".into()),
            readings,
            summary: ServersSummary::of(&account, 2),
            unread_words: String::new(),
        }
    }

    /// A reading that changed judges its cluster again, with it, and only
    /// that cluster; the others keep their judgement (without readings).
    #[test]
    fn a_cluster_whose_reading_changed_is_judged_again_with_it_alone() {
        use crate::live::judgements::{Judgements, WithReadings};
        use crate::report::ClusterReport;
        use crate::source::watch::fake::Fake;
        let threshold = Duration::from_secs(600);
        let fleet = crate::fixture::fleet();
        let fake = Fake::of(&fleet, None);
        let four: ClusterKey = ("c".into(), "four".into());
        let pod = fleet
            .pods
            .iter()
            .find(|p| p.metadata.namespace.as_deref() == Some("c"))
            .and_then(|p| p.metadata.name.clone())
            .expect("a pod of four");
        let mut kept = Kept::default();
        let mut judgements: Judgements<ClusterReport> = Judgements::default();
        let judge = |judgements: &mut Judgements<ClusterReport>, kept: &Kept, changed: &Changed| {
            let objects = WithReadings {
                objects: fake.in_view(),
                readings: Some(kept.shared()),
                changed: BTreeSet::new(),
            };
            judgements
                .update(
                    objects,
                    changed,
                    crate::fixture::t(1),
                    threshold,
                    |r, _| r,
                    |_| false,
                )
                .expect("judged")
        };
        assert_eq!(judge(&mut judgements, &kept, &Changed::all()), 5);
        assert!(judgements.values().all(|c| c.servers.is_none()));

        let mut r = reading(&pod, "up", 0);
        r.metadata.namespace = Some("c".into());
        assert!(kept.put(Reading {
            key: four.clone(),
            readings: vec![r],
            summary: ServersSummary::default(),
            unread_words: String::new(),
        }));
        let changed = Changed {
            clusters: BTreeSet::from([four.clone()]),
            ..Changed::default()
        };
        assert_eq!(judge(&mut judgements, &kept, &changed), 1, "four alone");
        for c in judgements.values() {
            assert_eq!(
                c.servers.is_some(),
                c.name == "four",
                "{}: {:?}",
                c.name,
                c.servers
            );
        }
    }

    #[test]
    fn a_cluster_is_judged_again_only_when_its_servers_say_something_new() {
        let mut kept = Kept::default();
        assert!(kept.put(news(vec![reading("a", "up", 0)], 0)), "the first");
        assert!(
            !kept.put(news(vec![reading("a", "up", 15)], 0)),
            "the same answer, later"
        );
        assert!(
            kept.put(news(vec![reading("a", "down", 30)], 0)),
            "link down"
        );
        assert!(
            kept.put(news(vec![reading("a", "down", 45)], 1)),
            "one server not read"
        );
        assert!(!kept.put(news(vec![reading("a", "down", 60)], 1)));
        // Its objects changed since: the next reading is judged, the same
        // or not.
        kept.changed_since_read.insert(("ns".into(), "c".into()));
        assert!(kept.put(news(vec![reading("a", "down", 75)], 1)));
        assert!(!kept.put(news(vec![reading("a", "down", 90)], 1)));
        let gone = kept.keep_only(&BTreeSet::new());
        assert_eq!(gone, BTreeSet::from([("ns".to_string(), "c".to_string())]));
        assert!(kept.shared().is_empty());
    }
}
