//! The Valkey servers' own account of who is primary, for the simulated
//! operator (operator.rs): no server runs; this is what `ROLE` would
//! answer on each node's pod. It outlives any one operator (a restarted
//! operator reads the same servers), and the test changes it the way
//! Valkey would: [`Valkey::fail_over`] promotes a replica with no operator
//! write at all, as Valkey's own failure detection does when a primary's
//! server dies (../shared/recordings/t-resources and issue 29 saw it).
//!
//! ```ignore
//! let valkey = Valkey::new(Timings { role_lag: Duration::from_secs(5), sync_for: Duration::from_secs(3) });
//! let op = Operator::start_with(client, &ns, "rig", Some(valkey.clone()));
//! valkey.fail_over(0);               // shard 0's replica is primary now
//! valkey.role(0, 1)                  // "primary"
//! ```
//!
//! What the operator at c33988f makes of it (operator.rs): its node
//! controller writes `status.role` from the server when it writes a node's
//! status for a ready pod, and otherwise re-reads it only some time later
//! ([`Timings::role_lag`]; about 30 s in issue 29's recording); its cluster
//! controller, at rest, finds the old primary's server resyncing as a
//! replica and writes the ValkeyCluster Ready=False "Waiting for replicas
//! to sync with primary" until it has synced ([`Timings::sync_for`];
//! about 6 s there), then Ready again. With servers, its walk is
//! replica-first (the shard's primary last) and it fails a primary over to
//! a synced replica before rolling it (FailoverInitiated,
//! FailoverCompleted), as ../shared/recordings/g-image shows.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the operator takes to notice what the servers did.
#[derive(Clone, Copy, Debug)]
pub struct Timings {
    /// From a node's role change to the operator writing it to
    /// `status.role` when nothing else makes it write the node's status.
    pub role_lag: Duration,
    /// How long the old primary of an unplanned failover resyncs as a
    /// replica (the cluster is not Ready meanwhile).
    pub sync_for: Duration,
}

impl Timings {
    /// The timings of issue 29's recording (30 s, 6 s).
    pub fn recorded() -> Timings {
        Timings {
            role_lag: Duration::from_secs(30),
            sync_for: Duration::from_secs(6),
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// Shard index -> node index of its primary (index 0 until a failover).
    primaries: BTreeMap<u32, u32>,
    /// When a node's role last changed, by (shard, index).
    changed: BTreeMap<(u32, u32), Instant>,
    /// Until when some replica resyncs after an unplanned failover.
    unsynced_until: Option<Instant>,
    /// Every change, in order: (when, what).
    history: Vec<(Instant, String)>,
}

/// The servers' roles (see the module's documentation).
#[derive(Debug)]
pub struct Valkey {
    pub timings: Timings,
    state: Mutex<State>,
}

impl Valkey {
    pub fn new(timings: Timings) -> Arc<Valkey> {
        Arc::new(Valkey {
            timings,
            state: Mutex::new(State::default()),
        })
    }

    fn primary_idx(st: &State, shard: u32) -> u32 {
        st.primaries.get(&shard).copied().unwrap_or(0)
    }

    /// The index of shard `shard`'s primary.
    pub fn primary(&self, shard: u32) -> u32 {
        Valkey::primary_idx(&self.state.lock().unwrap(), shard)
    }

    /// What `ROLE` answers on node (`shard`, `idx`): "primary" or
    /// "replica".
    pub fn role(&self, shard: u32, idx: u32) -> &'static str {
        if self.primary(shard) == idx {
            "primary"
        } else {
            "replica"
        }
    }

    /// When node (`shard`, `idx`)'s role last changed (None: never).
    pub fn changed_at(&self, shard: u32, idx: u32) -> Option<Instant> {
        self.state
            .lock()
            .unwrap()
            .changed
            .get(&(shard, idx))
            .copied()
    }

    /// When the servers last changed roles (None: never).
    pub fn last_change(&self) -> Option<Instant> {
        self.state.lock().unwrap().history.last().map(|(t, _)| *t)
    }

    /// The shard of the servers' last change (None: never).
    pub fn last_shard(&self) -> Option<u32> {
        let st = self.state.lock().unwrap();
        let (_, what) = st.history.last()?;
        what.strip_prefix("shard ")?.split(':').next()?.parse().ok()
    }

    /// Every change so far, for failure messages.
    pub fn history(&self) -> Vec<String> {
        let st = self.state.lock().unwrap();
        let start = st.history.first().map(|(t, _)| *t);
        st.history
            .iter()
            .map(|(t, w)| {
                let at = start.map_or(0.0, |s| t.duration_since(s).as_secs_f32());
                format!("+{at:.1}s {w}")
            })
            .collect()
    }

    /// Some replica resyncs after an unplanned failover.
    pub fn unsynced(&self) -> bool {
        self.state
            .lock()
            .unwrap()
            .unsynced_until
            .is_some_and(|u| Instant::now() < u)
    }

    /// Makes node index `to` of shard `shard` its primary (the old primary
    /// a replica of it). `planned`: the operator's CLUSTER FAILOVER to a
    /// synced replica; otherwise Valkey's own, after the primary's server
    /// died: the old primary comes back as a replica that resyncs for
    /// [`Timings::sync_for`]. Returns the old primary's index.
    pub fn promote(&self, shard: u32, to: u32, planned: bool) -> u32 {
        let now = Instant::now();
        let mut st = self.state.lock().unwrap();
        let from = Valkey::primary_idx(&st, shard);
        st.primaries.insert(shard, to);
        st.changed.insert((shard, from), now);
        st.changed.insert((shard, to), now);
        if !planned {
            st.unsynced_until = Some(now + self.timings.sync_for);
        }
        let how = if planned { "planned" } else { "unplanned" };
        st.history.push((
            now,
            format!("shard {shard}: {how} failover, index {from} -> {to}"),
        ));
        from
    }

    /// An unplanned failover of shard `shard` (see [`Valkey::promote`]) to
    /// its lowest-indexed replica, of a shard of `1 + replicas` nodes.
    /// Returns (old primary, new primary) indexes.
    pub fn fail_over(&self, shard: u32, replicas: u32) -> (u32, u32) {
        let from = self.primary(shard);
        let to = (0..=replicas)
            .find(|i| *i != from)
            .expect("a shard with a replica");
        self.promote(shard, to, false);
        (from, to)
    }

    /// The shard's id as Valkey names it in CLUSTER SHARDS (40 hex
    /// digits), stable per cluster and shard.
    pub fn shard_id(cluster: &str, shard: u32) -> String {
        let h = super::sim::hash(&format!("{cluster}/shard/{shard}"));
        let mut id = h.repeat(40usize.div_ceil(h.len().max(1)));
        id.truncate(40);
        id
    }
}

/// A short, fast set of timings for tests (role re-read after 5 s, resync
/// for 3 s).
pub fn fast() -> Arc<Valkey> {
    Valkey::new(Timings {
        role_lag: Duration::from_secs(5),
        sync_for: Duration::from_secs(3),
    })
}
