//! The servers read again, on one schedule, for whichever live command
//! asked (`status --watch --servers`, `wait --servers`, `dashboard
//! --servers`, `exporter --servers`; docs/servers.md, "Read again"). The
//! servers change with no API write (a replica's link going down, a
//! failover the operator did not make), so the watch alone never sees it.
//!
//! A [`Rereader`] reads every cluster in view, one after another, on a
//! task of its own: the command's loop waits for it beside its watch and
//! its signals ([`Rereader::finished`] in its `select!`), so a change in
//! the API is judged, and Ctrl-C or SIGTERM heard, while the servers are
//! read. The next reading is due its interval after one ends: [`REREAD`]
//! for a person's view, `--servers-interval` for the exporter. Each
//! cluster's reading is bounded as `source::servers`' are (time per
//! server, bytes per reply, servers at once, and its own
//! `--request-timeout`), and the CA of a TLS cluster is loaded once every
//! [`servers::CA_KEPT`], not at each reading.
//!
//! Each cluster's reading goes to the loop as it is taken. It keeps each
//! cluster's newest readings and says which clusters' readings changed,
//! so only those are judged again; the words about
//! servers not read stay render's (the commands word
//! [`Rereader::accounts`]).

use super::judgements::Readings;
use crate::snapshot::{
    Changed, ClusterKey, ClusterServers, ServerReading, ServersNotRead, Snapshot,
};
use crate::source::live::Live;
use crate::source::servers::{self, CaKept, Reach};
use crate::source::watch::InView;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// How often a person's live view reads the servers again (`status
/// --watch`, `wait`, the dashboard). The operator holds a primary back for
/// some 8-10 s per shard while its replica syncs: 5 s shows such a wait
/// while it lasts, at one Secret GET and one connection per server each
/// time.
pub(crate) const REREAD: Duration = Duration::from_secs(5);

/// The servers of a live view, read again every `every` once the last
/// reading ended.
///
/// Use: [`Rereader::begin`] with the objects in view and what changed in
/// them at each turn of the loop (it starts a reading once one is due),
/// [`Rereader::due`] to wake the loop then, [`Rereader::finished`] in the
/// loop's `select!`, and its readings ([`Rereader::shared`], or the
/// re-reader itself as [`Readings`]) when judging.
pub(crate) struct Rereader {
    live: Live,
    reach: Reach,
    ca: CaKept,
    every: Duration,
    due: Instant,
    kept: Kept,
    under_way: Option<UnderWay>,
    /// A reading has ended.
    read: bool,
}

/// What the readings ended so far left: each cluster's newest, and the
/// clusters whose objects changed since their servers were last read.
#[derive(Default)]
struct Kept {
    shared: Shared,
    touched: BTreeSet<ClusterKey>,
}

/// One cluster's servers as the last reading found them.
#[derive(Debug)]
pub(crate) struct KeptReading {
    /// Its readings, by pod.
    pub readings: Vec<ServerReading>,
    /// How many were read, and why the others were not.
    pub account: ClusterServers,
    /// The servers there were to read: its pods not being deleted.
    pub pods: usize,
}

/// Each cluster's newest readings, shared with a judgement made off the
/// loop's task (the dashboard's, the exporter's): a copy is one handle.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shared(Arc<BTreeMap<ClusterKey, Arc<KeptReading>>>);

impl Shared {
    pub(crate) fn get(&self, key: &ClusterKey) -> Option<&KeptReading> {
        self.0.get(key).map(|k| &**k)
    }
}

impl Readings for Shared {
    fn add_to(&self, key: &ClusterKey, view: &mut Snapshot) {
        if let Some(k) = self.0.get(key) {
            view.readings.extend(k.readings.iter().cloned());
            view.servers_not_read.extend(ServersNotRead::of(&k.account));
            view.normalize();
        }
    }
}

impl Readings for &Rereader {
    fn add_to(&self, key: &ClusterKey, view: &mut Snapshot) {
        self.kept.shared.add_to(key, view);
    }
}

/// A reading of the servers on its task: the clusters touched before it
/// began, those read so far, each cluster's reading as it is taken, and
/// the task, aborted when dropped.
struct UnderWay {
    touched: BTreeSet<ClusterKey>,
    read: BTreeSet<ClusterKey>,
    news: mpsc::Receiver<KeyedReading>,
    task: Aborted<()>,
}

type KeyedReading = (ClusterKey, KeptReading);

/// A task aborted when dropped: a reading no one waits for any more ends
/// with its connections (a port-forward's too).
struct Aborted<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for Aborted<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Rereader {
    /// Reads through `reach` every `every`; the first reading is due at
    /// once.
    pub(crate) fn new(live: &Live, reach: Reach, every: Duration) -> Rereader {
        Rereader {
            live: live.clone(),
            reach,
            ca: CaKept::default(),
            every,
            due: Instant::now(),
            kept: Kept::default(),
            under_way: None,
            read: false,
        }
    }

    /// When the servers are read next; none while a reading is under way.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.under_way.is_none().then_some(self.due)
    }

    /// The first reading has ended: a decision made now has heard the
    /// servers (`wait` makes none before; a view shows the API's judgement
    /// meanwhile).
    pub(crate) fn has_read(&self) -> bool {
        self.read
    }

    /// With the objects in view and what changed in them: notes the
    /// clusters whose objects changed (they are judged again after the
    /// next reading of their servers too, since whether a reading counts
    /// depends on the API's evidence being older: docs/servers.md, "Which
    /// reading counts"), and begins reading every cluster in view once due
    /// and none is under way.
    pub(crate) fn begin(&mut self, objects: &InView, changed: &Changed) {
        self.kept.touched.extend(objects.changed_clusters(changed));
        if self.under_way.is_some() || Instant::now() < self.due {
            return;
        }
        let (live, reach, ca) = (self.live.clone(), self.reach.clone(), self.ca.clone());
        let objects = objects.clone();
        let (tx, news) = mpsc::channel(16);
        let task = tokio::spawn(async move { read_all(&live, &reach, &ca, &objects, tx).await });
        self.under_way = Some(UnderWay {
            touched: std::mem::take(&mut self.kept.touched),
            read: BTreeSet::new(),
            news,
            task: Aborted(task),
        });
    }

    /// Waits for the next cluster's reading under way (forever when none
    /// is), keeps it, and returns the clusters to judge again: that one
    /// when its servers say something else than before (what they say,
    /// not when: a reading's time alone is no change) or its objects
    /// changed since the reading before. When the reading ends: the
    /// clusters it did not read, forgotten; the next reading is due
    /// `every` from then. Cancel-safe: dropped before its end, the reading
    /// goes on.
    pub(crate) async fn finished(&mut self) -> BTreeSet<ClusterKey> {
        let Some(under_way) = &mut self.under_way else {
            return std::future::pending().await;
        };
        if let Some((key, reading)) = under_way.news.recv().await {
            under_way.read.insert(key.clone());
            let again = self.kept.put(key.clone(), reading, &under_way.touched);
            return if again {
                BTreeSet::from([key])
            } else {
                BTreeSet::new()
            };
        }
        // Every reading sent: the task ends (or has panicked).
        let joined = (&mut under_way.task.0).await;
        let Some(UnderWay { read, .. }) = self.under_way.take() else {
            return BTreeSet::new();
        };
        if let Err(e) = joined
            && e.is_panic()
        {
            // So does the view, as it would had the reading been awaited
            // in its loop. (It is never cancelled: it is aborted only with
            // its handle.)
            std::panic::resume_unwind(e.into_panic());
        }
        self.read = true;
        self.due = Instant::now() + self.every;
        self.kept.keep_only(&read)
    }

    /// Each cluster's newest readings, to judge with off the loop's task.
    pub(crate) fn shared(&self) -> Shared {
        self.kept.shared.clone()
    }

    /// What the last reading of each cluster gave (for the words about
    /// servers not read).
    pub(crate) fn accounts(&self) -> Vec<ClusterServers> {
        self.kept
            .shared
            .0
            .values()
            .map(|k| k.account.clone())
            .collect()
    }
}

impl Kept {
    /// Keeps cluster `key`'s `reading` in place of its last (`touched`:
    /// the clusters touched before the reading began); true when it is to
    /// be judged again ([`Rereader::finished`]). A cluster touched while
    /// the reading was under way is judged now and after the next reading
    /// too (this one may have read its servers before the change).
    fn put(
        &mut self,
        key: ClusterKey,
        reading: KeptReading,
        touched: &BTreeSet<ClusterKey>,
    ) -> bool {
        let same = self.shared.0.get(&key).is_some_and(|k| {
            k.account == reading.account
                && ServerReading::all_say_the_same(&k.readings, &reading.readings)
        });
        let again = !same || touched.contains(&key) || self.touched.contains(&key);
        Arc::make_mut(&mut self.shared.0).insert(key, Arc::new(reading));
        again
    }

    /// Forgets the clusters a reading did not read; returns them (to be
    /// judged again, without readings).
    fn keep_only(&mut self, read: &BTreeSet<ClusterKey>) -> BTreeSet<ClusterKey> {
        let gone: BTreeSet<ClusterKey> = self
            .shared
            .0
            .keys()
            .filter(|k| !read.contains(*k))
            .cloned()
            .collect();
        if !gone.is_empty() {
            Arc::make_mut(&mut self.shared.0).retain(|k, _| read.contains(k));
        }
        gone
    }
}

/// [`Rereader::finished`] of a view's re-reader; forever when it reads no
/// servers (for a `select!` arm of a view with or without `--servers`).
/// Cancel-safe.
pub(crate) async fn finished(servers: &mut Option<Rereader>) -> BTreeSet<ClusterKey> {
    match servers {
        Some(s) => s.finished().await,
        None => std::future::pending().await,
    }
}

/// Reads the servers of every cluster in view, one after another, and
/// sends each cluster's reading as it is taken (until no one listens).
async fn read_all(
    live: &Live,
    reach: &Reach,
    ca: &CaKept,
    objects: &InView,
    news: mpsc::Sender<KeyedReading>,
) {
    for key in objects.cluster_keys() {
        let Some(mut view) = view_of(objects, &key).await else {
            continue;
        };
        let pods = view
            .pods
            .iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .count();
        let Some(account) =
            servers::read_cluster_into(live, &mut view, &key, reach, servers::BOUNDS, ca).await
        else {
            continue;
        };
        let mut readings = std::mem::take(&mut view.readings);
        readings.sort_by(|a, b| a.pod().cmp(b.pod()));
        let reading = KeptReading {
            readings,
            account,
            pods,
        };
        if news.send((key, reading)).await.is_err() {
            return;
        }
    }
}

/// What reaching one cluster's servers needs of its view (its
/// ValkeyCluster, nodes and pods), read from the watch's stores off the
/// async workers, as a judgement is (a cluster of 10,000 nodes takes some
/// 100 ms). `None` when it is gone from view or an object of it cannot be
/// read.
async fn view_of(objects: &InView, key: &ClusterKey) -> Option<Snapshot> {
    let (objects, wanted) = (objects.clone(), BTreeSet::from([key.clone()]));
    tokio::task::spawn_blocking(move || {
        let mut one: Option<Snapshot> = None;
        InView::each_view(&objects, &wanted, |_, v| one = Some(v)).ok()?;
        let mut view = one?;
        view.events = Vec::new();
        view.stateful_sets = Vec::new();
        view.deployments = Vec::new();
        view.readings = Vec::new();
        Some(view)
    })
    .await
    .ok()?
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

    fn key(name: &str) -> ClusterKey {
        ("ns".into(), name.into())
    }

    /// Cluster `name`'s reading: `readings`, and `failed` servers not read.
    fn fresh(name: &str, readings: Vec<ServerReading>, failed: usize) -> KeyedReading {
        let account = ClusterServers {
            namespace: "ns".into(),
            cluster: name.into(),
            trouble: None,
            read: readings.len(),
            failed: (0..failed)
                .map(|i| (format!("p{i}"), Failure::Unreachable))
                .collect(),
        };
        let pods = readings.len() + failed;
        (
            key(name),
            KeptReading {
                readings,
                account,
                pods,
            },
        )
    }

    /// A cluster's reading, whether it was touched before the reading
    /// began, and whether it is judged again.
    type Case = (&'static str, KeyedReading, bool, bool);

    /// Each reading of cluster `c` in turn: is it judged again?
    #[test]
    fn a_cluster_is_judged_again_only_when_its_servers_say_something_new() {
        let cases: Vec<Case> = vec![
            (
                "the first",
                fresh("c", vec![reading("a", "up", 0)], 0),
                false,
                true,
            ),
            (
                "the same answer, later",
                fresh("c", vec![reading("a", "up", 15)], 0),
                false,
                false,
            ),
            (
                "link down",
                fresh("c", vec![reading("a", "down", 30)], 0),
                false,
                true,
            ),
            (
                "one server not read",
                fresh("c", vec![reading("a", "down", 45)], 1),
                false,
                true,
            ),
            (
                "the same",
                fresh("c", vec![reading("a", "down", 60)], 1),
                false,
                false,
            ),
            (
                "its objects changed since",
                fresh("c", vec![reading("a", "down", 75)], 1),
                true,
                true,
            ),
            (
                "the same again",
                fresh("c", vec![reading("a", "down", 90)], 1),
                false,
                false,
            ),
        ];
        let mut kept = Kept::default();
        for (what, (key, reading), touched, want) in cases {
            let touched: BTreeSet<ClusterKey> = touched.then(|| key.clone()).into_iter().collect();
            assert_eq!(kept.put(key, reading, &touched), want, "{what}");
        }
        assert!(
            kept.keep_only(&BTreeSet::from([key("c")])).is_empty(),
            "c was read"
        );
        assert_eq!(
            kept.keep_only(&BTreeSet::new()),
            BTreeSet::from([key("c")]),
            "no longer read"
        );
        assert!(kept.shared.0.is_empty());
        assert!(
            kept.keep_only(&BTreeSet::new()).is_empty(),
            "nothing kept, nothing read"
        );
    }

    /// A cluster touched while a reading was under way is judged after it
    /// and after the next one too (its touch is taken when the next
    /// begins).
    #[test]
    fn a_cluster_touched_during_a_reading_is_judged_after_the_next_one_too() {
        let mut kept = Kept::default();
        let (k, r) = fresh("c", vec![reading("a", "up", 0)], 0);
        kept.put(k, r, &BTreeSet::new());
        kept.touched.insert(key("c"));
        let (k, r) = fresh("c", vec![reading("a", "up", 5)], 0);
        assert!(
            kept.put(k, r, &BTreeSet::new()),
            "after the reading under way"
        );
        let touched = std::mem::take(&mut kept.touched);
        let (k, r) = fresh("c", vec![reading("a", "up", 10)], 0);
        assert!(kept.put(k, r, &touched), "after the next");
        let (k, r) = fresh("c", vec![reading("a", "up", 15)], 0);
        assert!(!kept.put(k, r, &BTreeSet::new()), "and no more");
    }

    /// The readings kept are those a judgement gets, by cluster.
    #[test]
    fn each_cluster_gets_its_own_readings() {
        let mut kept = Kept::default();
        for (k, r) in [
            fresh("c", vec![reading("a", "up", 0)], 0),
            fresh("d", vec![reading("b", "down", 0)], 2),
        ] {
            kept.put(k, r, &BTreeSet::new());
        }
        let shared = kept.shared.clone();
        assert_eq!(shared.get(&key("d")).map(|k| k.pods), Some(3));
        let mut view = Snapshot::default();
        shared.add_to(&key("c"), &mut view);
        let pods: Vec<&str> = view.readings.iter().map(|r| r.pod()).collect();
        assert_eq!(pods, ["a"]);
        assert_eq!(shared.0.len(), 2);
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
                readings: Some(kept.shared.clone()),
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
        let (_, mut one) = fresh("four", vec![r], 0);
        one.account.namespace = "c".into();
        assert!(kept.put(four.clone(), one, &BTreeSet::new()));
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
}
