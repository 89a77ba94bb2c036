//! Judged roles and a failover under way (docs/plugin.md, "Roles, failovers and
//! a silent operator").
//!
//! The operator's `status.role` is not the truth: it writes `primary` for a
//! fresh server that is still an empty master and does not read the role
//! again after CLUSTER REPLICATE or a failover. So a node's role is judged
//! from the newest evidence the objects hold, replayed in time order per
//! shard:
//! - the operator's events about the ValkeyCluster that name pod IPs
//!   (mapped to nodes through `status.podIP`, else the pod's IP):
//!   PrimaryCreated ("Created primary IP with slots ...") and
//!   FailoverCompleted ("Failover completed: IP is now primary ...");
//! - what follows from its events and the walk: at creation the shard's
//!   node index 0 gets the slots (the operator collects "node index 0 =
//!   primary"); the operator never advances a primary for a roll without
//!   failing it over first (with replicas), so a primary advanced was
//!   failed over, even when no event says so (a repeat of an earlier
//!   event is written only as its series, or not at all); a node whose pod
//!   was (re)created restarts empty and joins as a replica;
//! - the `valkey.io/observed-role` annotation (the operator's later
//!   versions, #320, read it from the node's own server on every pass):
//!   taken as the newest word;
//! - `status.role`, the oldest word: used only where nothing else speaks.
//!
//! A role that newer evidence contradicts is never shown as fact; where
//! the evidence does not settle it the role is unknown (or shown with a
//! note, the table's `?`), never guessed.

use super::clock::Clock;
use super::clock::secs;
use super::events;
use super::node::NodeObjects;
use crate::report::{
    Contradiction, FailoverSource, FailoverUnderWay, Role, RoleContradicted, RoleNote, RoleSource,
};
use crate::snapshot::{Condition, ValkeyCluster, keys};
use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::core::v1::Event;
use std::collections::{BTreeMap, HashMap};

/// How long a FailoverInitiated with no outcome counts as under way: the
/// operator gives a proactive failover 10 s, then writes FailoverTimeout;
/// past this, nobody is failing over (the operator may be gone).
pub(crate) const FAILOVER_WINDOW: SignedDuration = SignedDuration::from_secs(30);

/// A node's ValkeyNodeUpdated counts as an advance for a roll when its
/// WorkloadRollApplied follows within this (in the recordings, within
/// 20 ms; an operator under load, seconds).
const APPLIED_WITHIN: SignedDuration = SignedDuration::from_secs(120);

/// A repeated FailoverCompleted is followed by the advance of the primary
/// it failed over within this (in the recordings, 15 ms).
const ADVANCE_WITHIN: SignedDuration = SignedDuration::from_secs(10);

/// A cluster that goes not Ready waiting for its replicas to sync with no
/// role evidence this close before it (a roll, a creation, a failover the
/// operator made or a replaced pod) had a topology change nobody
/// announced.
const ANNOUNCED_WITHIN: SignedDuration = SignedDuration::from_secs(60);

/// An event written before a status write may land after it (the
/// operator's event recorder is asynchronous): this much later still
/// announces a change.
const EVENTS_LAND_WITHIN: SignedDuration = SignedDuration::from_secs(5);

/// A replaced pod may take this long from its creation to Ready (an image
/// pull, a slow probe) and still announce the end of a roll.
const NEW_POD_READY_WITHIN: SignedDuration = SignedDuration::from_secs(15 * 60);

/// The node controller reads every ready node's role from its server at
/// least this often (c33988f: a node at rest is requeued every 60 s, and
/// its status written when the role it reads changed), with slack: a
/// cluster Ready again for longer than this with no role write since has
/// had its roles re-read and kept.
pub(crate) const ROLES_REREAD_WITHIN: SignedDuration = SignedDuration::from_secs(90);

/// One node's judged role.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct JudgedRole {
    pub role: Option<Role>,
    pub source: Option<RoleSource>,
    /// Why it is unsure or unknown (the table's `?`); None: settled.
    pub note: Option<RoleNote>,
}

impl JudgedRole {
    /// Newer evidence contradicts its shard's judged primary: any node of
    /// the shard may be the primary.
    pub(crate) fn contradicted(&self) -> bool {
        matches!(self.note, Some(RoleNote::Contradicted(_)))
    }

    /// Contradicted by a newer status write, whose best guess the role
    /// follows: the walk goes by it (docs/roles.md, "The best guess").
    pub(crate) fn guessed_from_status(&self) -> bool {
        matches!(&self.note, Some(RoleNote::Contradicted(c))
            if matches!(c.by, Contradiction::Status { .. }))
    }
}

/// The roles of a cluster's nodes, in the order given, and the failover
/// under way, if any.
#[derive(Clone, Debug, Default)]
pub(crate) struct Roles {
    pub nodes: Vec<JudgedRole>,
    pub failover: Option<FailoverUnderWay>,
    /// The operator writes `status.role` from the server as it changes
    /// ([`role_follows_server`]): a role written after the evidence is
    /// the truth, not a stale copy.
    pub status_live: bool,
}

/// A node of the cluster as role judging sees it.
pub(crate) struct Member<'v, 'a> {
    pub view: &'v NodeObjects<'a>,
    pub shard: Option<u32>,
    pub index: Option<u32>,
}

/// What the ValkeyCluster's spec edit and Ready condition say of when its
/// topology may have changed ([`ClusterMarks::read`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClusterMarks {
    /// When its spec was last edited (None: not known).
    pub spec_edited_at: Option<Timestamp>,
    /// Since when it has been not Ready waiting for its replicas to sync
    /// (its Ready condition's lastTransitionTime), if it is.
    pub unsynced: Option<Timestamp>,
    /// When it turned Ready again, if it did within
    /// [`ROLES_REREAD_WITHIN`] (and is Ready).
    pub ready_again: Option<Timestamp>,
    /// Since when it has been not Ready, if since before its spec was last
    /// edited (in an earlier second) and it now says only that it updates
    /// its nodes: the roll's own reason, written over another (a status
    /// write that keeps the condition False keeps its transition time).
    pub not_ready_before_roll: Option<Timestamp>,
    /// Its Ready condition was written for an older generation than its
    /// spec's: whatever roll the newest spec began came after it.
    pub ready_before_edit: bool,
}

impl ClusterMarks {
    pub(crate) fn read(cluster: &ValkeyCluster, clock: &Clock) -> ClusterMarks {
        let spec_edited_at = cluster.spec_edited_at();
        let ready = crate::snapshot::condition(cluster.conditions(), keys::COND_READY);
        let since = |c: &Condition| c.last_transition_time.as_ref().map(|t| t.0);
        let not_ready = ready.filter(|c| c.is_false());
        let says = |c: &&Condition, prefix: &str| {
            c.message.as_deref().is_some_and(|m| m.starts_with(prefix))
        };
        let ready_before_edit = ready
            .and_then(|c| c.observed_generation)
            .zip(cluster.metadata.generation)
            .is_some_and(|(seen, now)| seen < now);
        ClusterMarks {
            spec_edited_at,
            ready_before_edit,
            unsynced: not_ready
                .filter(|c| says(c, keys::MSG_REPLICAS_SYNC))
                .and_then(since),
            ready_again: ready
                .filter(|c| c.is_true())
                .and_then(since)
                .filter(|&t| clock.within(t, ROLES_REREAD_WITHIN)),
            not_ready_before_roll: not_ready
                .filter(|c| c.reason.as_deref() == Some(keys::REASON_UPDATING_NODES))
                .and_then(since)
                .filter(|&t| spec_edited_at.is_some_and(|e| e > t)),
        }
    }
}

/// What the cluster says that role judging needs.
pub(crate) struct RoleInput<'e, 'v, 'a> {
    pub members: &'v [Member<'v, 'a>],
    /// The events about the ValkeyCluster.
    pub cluster_events: &'e [&'a Event],
    /// The shards run replicas (`spec.replicas` > 0; without the spec, a
    /// shard of more than one node): only then does the operator fail a
    /// primary over before rolling it.
    pub replicas: bool,
    /// The shard the walk is rolling: the lowest shard with a node that
    /// asks or is behind. A failover written only as a repeat of an
    /// earlier event is taken to be in it.
    pub rolling_shard: Option<u32>,
    /// What the ValkeyCluster's spec edit and Ready condition mark.
    pub marks: ClusterMarks,
    /// The operator writes `status.role` from the server as it changes
    /// ([`role_follows_server`]).
    pub status_live: bool,
    /// The members of each shard, looked up once (a cluster may have
    /// thousands of nodes).
    shards: BTreeMap<u32, Vec<usize>>,
    /// The member at each address; None where two share it.
    by_address: HashMap<&'v str, Option<usize>>,
}

/// One piece of evidence, at its time.
#[derive(Clone, Debug, PartialEq)]
enum Fact {
    /// The shard's primary is `node` (`ip`: the address the event named).
    Primary {
        shard: u32,
        node: usize,
        source: RoleSource,
        ip: Option<String>,
        walk: bool,
    },
    /// The shard failed over away from `from` (None: its primary then) to
    /// a node no event names.
    FailedOver {
        shard: u32,
        from: Option<usize>,
        walk: bool,
    },
    /// `node` was advanced for a roll: it was not the primary then.
    Advanced { node: usize },
    /// `node` was advanced a moment ago (its new spec not observed yet)
    /// with no failover just before it: a template advance, whose primary
    /// the operator fails over first, or a live setting's alone, which
    /// fails nothing over. Until it applies the advance, the two read the
    /// same.
    AdvancedUnapplied { node: usize },
    /// `node`'s pod was created: its server starts empty.
    PodCreated { node: usize },
    /// The operator's status write that last set `node`'s `status.role`
    /// (a pass that read it from the server: the node was ready).
    Says { node: usize, role: Role },
    /// The cluster's Ready condition marks a topology change nobody
    /// announced: no roll and no other role evidence near explains it.
    Unsynced { mark: Mark },
}

/// What of the ValkeyCluster's Ready condition marks a change nobody
/// announced.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mark {
    /// Not Ready waiting for its replicas to sync.
    Syncing,
    /// Ready again a moment ago, the not-Ready reason gone.
    ReadyAgain,
    /// Not Ready since before the roll in flight began: the roll's own
    /// reason (UpdatingNodes) was written over whatever it was, keeping
    /// its time.
    BeforeRoll,
}

impl Mark {
    /// How the report names a doubt this mark raised at `at`.
    fn contradiction(self, at: Timestamp) -> Contradiction {
        let at = Some(at);
        match self {
            Mark::Syncing => Contradiction::Unsynced { at },
            Mark::ReadyAgain => Contradiction::ReadyAgain { at },
            Mark::BeforeRoll => Contradiction::NotReadyBeforeRoll { at },
        }
    }
}

impl Fact {
    /// At one instant, what the shard says comes first.
    fn rank(&self) -> u8 {
        match self {
            Fact::Primary { .. } | Fact::FailedOver { .. } => 0,
            Fact::Advanced { .. } | Fact::AdvancedUnapplied { .. } => 1,
            Fact::PodCreated { .. } => 2,
            Fact::Says { .. } => 3,
            Fact::Unsynced { .. } => 4,
        }
    }
}

/// What the facts so far say of a shard's primary.
#[derive(Clone, Debug, PartialEq)]
enum Belief {
    Primary {
        node: usize,
        source: RoleSource,
        at: Timestamp,
        ip: Option<String>,
        walk: bool,
    },
    /// One of these was promoted; the events do not say which.
    OneOf {
        candidates: Vec<usize>,
        at: Timestamp,
    },
    /// The primary's pod was replaced with no failover recorded.
    Lost { primary: usize, at: Timestamp },
    /// The primary itself was advanced (its spec written at `at`, where
    /// managedFields tell) and has not applied it yet
    /// ([`Fact::AdvancedUnapplied`]): failed over, or not.
    Unapplied {
        primary: usize,
        at: Option<Timestamp>,
    },
    /// `primary` was judged the primary (from `source`, at `judged_at`);
    /// newer evidence contradicts it and nothing has settled it since.
    Doubted {
        primary: usize,
        source: RoleSource,
        judged_at: Timestamp,
        why: Doubt,
    },
}

impl Belief {
    /// A candidate of a failover whose new primary is unknown is ruled out
    /// (it is a replica) at `at`: the one left, if one is, is the primary
    /// (inferred). Any other belief is as it was.
    fn rule_out(&mut self, node: usize, at: Timestamp) {
        let Belief::OneOf { candidates, .. } = self else {
            return;
        };
        candidates.retain(|&c| c != node);
        if let [only] = candidates.as_slice() {
            *self = Belief::Primary {
                node: *only,
                source: RoleSource::Inferred,
                at,
                ip: None,
                walk: false,
            };
        }
    }
}

/// What contradicted a judged primary.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Doubt {
    /// `node`'s status write said `role`, at `at`.
    Said {
        node: usize,
        role: Role,
        at: Timestamp,
    },
    /// The cluster's Ready condition marked a change nobody announced,
    /// at `at`.
    Unannounced { mark: Mark, at: Timestamp },
}

impl Doubt {
    fn at(&self) -> Timestamp {
        match self {
            Doubt::Said { at, .. } | Doubt::Unannounced { at, .. } => *at,
        }
    }
}

/// The time of the status write that last set `status.role`: the newest
/// managedFields entry owning it (whole seconds).
fn role_written(view: &NodeObjects<'_>) -> Option<Timestamp> {
    crate::snapshot::field_written_times(&view.node.metadata, &["f:status", "f:role"]).max()
}

/// How long after its pod turned Ready a node's own Ready condition may
/// turn True and still be the operator's first pass over the new server
/// (in the recordings, within 20 ms; the pass follows the pod's watch).
const FIRST_PASS_WITHIN: SignedDuration = SignedDuration::from_secs(2);

/// The operator writes `status.role` from the server as it changes, and
/// drops it while the pod is not Ready: valkey-operator #320 (v0.6.0 on),
/// not c33988f (docs/roles.md, "Which operator writes status.role"). Told
/// from what the API shows, either of:
/// - a node with a status but no `status.role`, whose pod is not Ready
///   (or gone), advanced since its creation (`metadata.generation` over
///   1), while another node of the cluster has a role: #320 clears the
///   role of a node whose pod is not Ready; c33988f sets it only on a
///   ready pass and never clears it (a role it never read is absent
///   everywhere: the servers did not answer);
/// - a node whose `status.role` says `replica` in the status write that
///   turned its Ready condition True as its fresh pod turned Ready (the
///   same second; the pod's own Ready at most [`FIRST_PASS_WITHIN`]
///   before), without persistence: the server is a fresh one, an empty
///   master until the operator REPLICATEs it, which c33988f reads as
///   `primary` (INFO replication) and #320 as `replica` (it owns no
///   slots).
pub(crate) fn role_follows_server(members: &[Member<'_, '_>]) -> bool {
    let any_role = members.iter().any(|m| m.view.status_role().is_some());
    members
        .iter()
        .any(|m| (any_role && role_dropped(m.view)) || replica_on_first_pass(m.view))
}

/// A role-less status on an advanced node whose pod is not Ready.
fn role_dropped(view: &NodeObjects<'_>) -> bool {
    view.node.status.is_some()
        && view.role().is_none()
        && view.node.metadata.generation.is_some_and(|g| g > 1)
        && view.pod_ready() != Some(true)
}

/// `replica` written on the operator's first ready pass over a fresh
/// server.
fn replica_on_first_pass(view: &NodeObjects<'_>) -> bool {
    if view.status_role() != Some(Role::Replica)
        || !view.node_ready()
        || view.node.spec.persistence.is_some()
    {
        return false;
    }
    let ready_since = view
        .node
        .condition(keys::COND_READY)
        .filter(|c| c.is_true())
        .and_then(|c| c.last_transition_time.as_ref())
        .map(|t| t.0);
    let pod_created = view
        .pod
        .and_then(|p| p.metadata.creation_timestamp.as_ref())
        .map(|t| t.0);
    match (
        ready_since,
        role_written(view),
        view.pod_ready_since(),
        pod_created,
    ) {
        (Some(ready), Some(written), Some(pod_ready), Some(created)) => {
            let after_pod = ready.duration_since(pod_ready);
            written == ready
                && created <= pod_ready
                && after_pod >= SignedDuration::ZERO
                && after_pod <= FIRST_PASS_WITHIN
                && pod_ready.duration_since(created) <= NEW_POD_READY_WITHIN
        }
        _ => false,
    }
}

/// The shard a ReplicaCreated note names ("Created replica for primary ID
/// (shard N)").
fn replica_created_shard(note: &str) -> Option<u32> {
    let (_, rest) = note.rsplit_once("(shard ")?;
    rest.trim_end_matches(')').trim().parse().ok()
}

/// Addresses a note names (`127.0.1.6`, `127.0.1.6:6379`, `[::1]:6379`),
/// without their ports, in order.
pub(crate) fn addresses(note: &str) -> Vec<String> {
    note.split_whitespace()
        .filter_map(|w| {
            let w = w.trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')' | '"' | '\''));
            let w = w.strip_suffix('.').unwrap_or(w);
            if let Ok(ip) = w.parse::<std::net::IpAddr>() {
                return Some(ip.to_string());
            }
            w.parse::<std::net::SocketAddr>()
                .ok()
                .map(|s| s.ip().to_string())
        })
        .collect()
}

/// The occurrences of an event: its first, and its series' last when that
/// is later (the ones between are not in the API).
fn occurrences(e: &Event) -> Vec<(Timestamp, bool)> {
    let first = events::first_time(e);
    let last = events::time(e);
    let mut out: Vec<(Timestamp, bool)> = first.into_iter().map(|t| (t, true)).collect();
    if let Some(l) = last
        && first.is_none_or(|f| l > f)
    {
        out.push((l, false));
    }
    out
}

impl<'e, 'v, 'a> RoleInput<'e, 'v, 'a> {
    pub(crate) fn new(
        members: &'v [Member<'v, 'a>],
        cluster_events: &'e [&'a Event],
        replicas: bool,
        rolling_shard: Option<u32>,
        marks: ClusterMarks,
    ) -> Self {
        let mut shards: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        let mut by_address: HashMap<&'v str, Option<usize>> = HashMap::new();
        for (i, m) in members.iter().enumerate() {
            if let Some(s) = m.shard {
                shards.entry(s).or_default().push(i);
            }
            if let Some(ip) = m.view.pod_ip() {
                by_address
                    .entry(ip)
                    .and_modify(|seen| *seen = None)
                    .or_insert(Some(i));
            }
        }
        RoleInput {
            members,
            cluster_events,
            replicas,
            rolling_shard,
            marks,
            status_live: role_follows_server(members),
            shards,
            by_address,
        }
    }
}

impl RoleInput<'_, '_, '_> {
    /// Whether a topology change at `since` is announced: by a change the
    /// objects show (a creation, a failover the operator made, an advance,
    /// a replaced pod, a replica attached, a new pod turning Ready)
    /// shortly before it, or a moment after (events land late). A status
    /// write announces nothing: it is the operator reading the server,
    /// perhaps after the change itself.
    fn announced(&self, facts: &[(Timestamp, Fact)], since: Timestamp) -> bool {
        // What came before the cluster was last found healthy (every
        // replica in sync) announces nothing after it: that change had
        // settled.
        let settled = self
            .cluster_events
            .iter()
            .filter(|e| events::reason(e) == keys::EVENT_CLUSTER_READY)
            .flat_map(|e| occurrences(e))
            .map(|(t, _)| t)
            .filter(|t| since.duration_since(*t) > EVENTS_LAND_WITHIN)
            .max();
        // A spec edited after it (in a later second: times are whole
        // seconds) began a roll whose steps cannot have announced it.
        let edited_after = self.marks.spec_edited_at.filter(|&e| e > since);
        let near = |t: &Timestamp| {
            let after = t.duration_since(since);
            after >= -ANNOUNCED_WITHIN
                && after <= EVENTS_LAND_WITHIN
                && settled.is_none_or(|s| *t > s)
                && edited_after.is_none_or(|e| *t < e)
        };
        facts
            .iter()
            .any(|(t, f)| !matches!(f, Fact::Says { .. }) && near(t))
            || self
                .cluster_events
                .iter()
                .filter(|e| {
                    matches!(
                        events::reason(e),
                        keys::EVENT_FAILOVER_INITIATED
                            | keys::EVENT_REPLICA_CREATED
                            | keys::EVENT_CLUSTER_MEET_BATCH
                    )
                })
                .flat_map(|e| occurrences(e))
                .any(|(t, _)| near(&t))
            || self.members.iter().any(|m| {
                // A new pod coming up (not a server restarting in its old
                // pod: that is a change nobody announced).
                let created = m
                    .view
                    .pod
                    .and_then(|p| p.metadata.creation_timestamp.as_ref())
                    .map(|t| t.0);
                m.view
                    .node
                    .condition(keys::COND_READY)
                    .filter(|c| c.is_true())
                    .and_then(|c| c.last_transition_time.as_ref())
                    .is_some_and(|t| {
                        near(&t.0)
                            && created.is_some_and(|c| {
                                c <= t.0 && t.0.duration_since(c) <= NEW_POD_READY_WITHIN
                            })
                    })
            })
    }

    /// The node whose pod has `ip`, when exactly one has.
    fn node_at(&self, ip: &str) -> Option<usize> {
        self.by_address.get(ip).copied().flatten()
    }

    fn shard_of(&self, node: usize) -> Option<u32> {
        self.members.get(node)?.shard
    }

    /// The nodes of a shard.
    fn in_shard(&self, shard: u32) -> impl Iterator<Item = usize> + '_ {
        self.shards.get(&shard).into_iter().flatten().copied()
    }

    /// The shard's node index 0.
    fn index_zero(&self, shard: u32) -> Option<usize> {
        self.in_shard(shard)
            .find(|&i| self.members[i].index == Some(0))
    }

    fn events_about_cluster(&self, reason: &str) -> impl Iterator<Item = &Event> + '_ {
        let reason = reason.to_string();
        self.cluster_events
            .iter()
            .copied()
            .filter(move |e| events::reason(e) == reason)
    }

    /// The promoted node of a failover note whose address maps to no node:
    /// the other node of the shard its FailoverInitiated names as `from`,
    /// when that shard has exactly one other node without a known address.
    fn promoted_by_pairing(&self, to_ip: &str) -> Option<usize> {
        let from = self
            .events_about_cluster(keys::EVENT_FAILOVER_INITIATED)
            .map(|e| addresses(events::note(e)))
            .find(|a| a.get(1).is_some_and(|t| t == to_ip))
            .and_then(|a| self.node_at(a.first()?))?;
        let shard = self.shard_of(from)?;
        let mut others = self
            .in_shard(shard)
            .filter(|&i| i != from && self.members[i].view.pod_ip().is_none());
        let only = others.next()?;
        others.next().is_none().then_some(only)
    }

    /// Every fact the objects hold, oldest first.
    fn facts(&self) -> Vec<(Timestamp, Fact)> {
        let mut facts = Vec::new();
        // PrimaryCreated: the note names one address; every shard's node
        // index 0 gets the slots when the cluster is created. A repeat
        // (only its series: a scale-out, later) speaks for the shards
        // created since the first only, whose index 0 got slots then.
        let shards: Vec<u32> = self.shards.keys().copied().collect();
        for e in self.events_about_cluster(keys::EVENT_PRIMARY_CREATED) {
            let named = addresses(events::note(e))
                .into_iter()
                .next()
                .and_then(|ip| Some((self.node_at(&ip)?, ip)));
            let first_at = events::first_time(e);
            for (at, first) in occurrences(e) {
                for &shard in &shards {
                    if let Some((node, ip)) = &named
                        && first
                        && self.shard_of(*node) == Some(shard)
                    {
                        facts.push((
                            at,
                            Fact::Primary {
                                shard,
                                node: *node,
                                source: RoleSource::Event,
                                ip: Some(ip.clone()),
                                walk: false,
                            },
                        ));
                        continue;
                    }
                    let Some(zero) = self.index_zero(shard) else {
                        continue;
                    };
                    let created = self.members[zero]
                        .view
                        .node
                        .metadata
                        .creation_timestamp
                        .as_ref()
                        .map(|c| c.0);
                    let speaks = if first {
                        created.is_none_or(|c| c <= at)
                    } else {
                        created.is_some_and(|c| c <= at && first_at.is_some_and(|f| c > f))
                    };
                    if speaks {
                        facts.push((
                            at,
                            Fact::Primary {
                                shard,
                                node: zero,
                                source: RoleSource::Inferred,
                                ip: None,
                                walk: false,
                            },
                        ));
                    }
                }
            }
        }
        // Advances for a roll: a ValkeyNodeUpdated followed by the node's
        // WorkloadRollApplied (its revision moved, so a primary was failed
        // over first: c33988f `needsProactiveFailoverForRoll`); and a node
        // whose new spec is not observed yet (advanced a moment ago), as
        // the advance that follows the newest failover when no advance
        // came after that failover yet; else it may be a live setting's
        // alone, which fails nothing over, and it only doubts.
        let mut advances: Vec<(Timestamp, usize)> = Vec::new();
        let mut unobserved: Vec<usize> = Vec::new();
        for (i, m) in self.members.iter().enumerate() {
            let of = |reason: &str| -> Vec<Timestamp> {
                m.view
                    .events_naming()
                    .filter(|e| events::reason(e) == reason)
                    .flat_map(occurrences)
                    .map(|(t, _)| t)
                    .collect()
            };
            let applied = of(keys::EVENT_APPLIED);
            for t in of(keys::EVENT_NODE_UPDATED) {
                let followed = applied.iter().any(|a| {
                    let after = a.duration_since(t);
                    after >= -SignedDuration::from_secs(2) && after <= APPLIED_WITHIN
                });
                if followed {
                    advances.push((t, i));
                }
            }
            // Its time is not known; it is the newest thing said of it.
            // (Not `now`: what the objects say must not move with the clock.)
            if !m.view.generation_observed() {
                unobserved.push(i);
            }
            if let Some(created) = m
                .view
                .pod
                .and_then(|p| p.metadata.creation_timestamp.as_ref())
            {
                facts.push((created.0, Fact::PodCreated { node: i }));
            }
        }
        let newest_failover = [
            keys::EVENT_FAILOVER_INITIATED,
            keys::EVENT_FAILOVER_COMPLETED,
        ]
        .into_iter()
        .flat_map(|reason| self.events_about_cluster(reason))
        .flat_map(occurrences)
        .map(|(t, _)| t)
        .max();
        let after_failover = newest_failover.is_some_and(|f| advances.iter().all(|(t, _)| *t < f));
        if after_failover {
            advances.extend(unobserved.iter().map(|&i| (crate::snapshot::LATEST, i)));
        }
        if self.replicas {
            facts.extend(
                advances
                    .iter()
                    .map(|&(t, node)| (t, Fact::Advanced { node })),
            );
            if !after_failover {
                facts.extend(
                    unobserved
                        .iter()
                        .map(|&node| (crate::snapshot::LATEST, Fact::AdvancedUnapplied { node })),
                );
            }
        }
        // FailoverCompleted: the first names the promoted address; a
        // repeat names none of its own: the advance that follows it says
        // which shard, else the walk's.
        for e in self.events_about_cluster(keys::EVENT_FAILOVER_COMPLETED) {
            for (at, first) in occurrences(e) {
                if first {
                    let Some(ip) = addresses(events::note(e)).into_iter().next() else {
                        continue;
                    };
                    let Some(node) = self.node_at(&ip).or_else(|| self.promoted_by_pairing(&ip))
                    else {
                        continue;
                    };
                    let Some(shard) = self.shard_of(node) else {
                        continue;
                    };
                    facts.push((
                        at,
                        Fact::Primary {
                            shard,
                            node,
                            source: RoleSource::Event,
                            ip: Some(ip),
                            walk: false,
                        },
                    ));
                } else {
                    // A new spec not observed yet was advanced just now.
                    let advanced_after = advances.iter().any(|(t, _)| {
                        *t >= at
                            && (t.duration_since(at) <= ADVANCE_WITHIN
                                || *t == crate::snapshot::LATEST)
                    });
                    if let (false, Some(shard)) = (advanced_after, self.rolling_shard) {
                        facts.push((
                            at,
                            Fact::FailedOver {
                                shard,
                                from: None,
                                walk: true,
                            },
                        ));
                    }
                }
            }
        }
        // A not-Ready cluster waiting for its replicas to sync that no
        // roll explains, with no role evidence near, had a topology change
        // nobody announced (Valkey failed a primary over). So had one
        // Ready again a moment ago for no reason the objects show: the
        // not-Ready reason is gone, but until the node controller has
        // re-read the roles, nothing else in the objects shows the change.
        // The roll in flight explains it when it began by then (its spec
        // edited no later than that second, and the Ready condition
        // written for it): a spec edited after a failover Valkey made
        // explains nothing of it.
        let rolled_by = |since: Timestamp| {
            self.rolling_shard.is_some()
                && !self.marks.ready_before_edit
                && self.marks.spec_edited_at.is_none_or(|e| e <= since)
        };
        let marks = [
            (self.marks.unsynced, Mark::Syncing),
            (self.marks.ready_again, Mark::ReadyAgain),
            (self.marks.not_ready_before_roll, Mark::BeforeRoll),
        ];
        for (since, mark) in marks.into_iter().filter_map(|(t, m)| t.map(|t| (t, m))) {
            if rolled_by(since) || self.announced(&facts, since) {
                continue;
            }
            facts.push((since, Fact::Unsynced { mark }));
        }
        // status.role, at the time of the status write that last set it,
        // when that write said ready: the operator reads the role from the
        // server only on a pass where the pod is Ready and rolled out (a
        // pass while not ready keeps the old role, so its time says
        // nothing of the role).
        for (i, m) in self.members.iter().enumerate() {
            if let (Some(role), Some(at), true) = (
                m.view.status_role(),
                role_written(m.view),
                m.view.node_ready(),
            ) {
                facts.push((at, Fact::Says { node: i, role }));
            }
        }
        facts.sort_by_key(|(t, fact)| (*t, fact.rank()));
        facts
    }

    /// A status write `primary` at `at` on a node the evidence holds a
    /// replica is the operator reading a fresh server, still an empty
    /// master, when a ReplicaCreated follows (the operator REPLICATEs it
    /// next): the first names its shard; a repeat (only its series) names
    /// none of its own.
    fn replicated_after(&self, shard: u32, at: Timestamp) -> bool {
        self.events_about_cluster(keys::EVENT_REPLICA_CREATED)
            .flat_map(|e| {
                let named = replica_created_shard(events::note(e));
                occurrences(e)
                    .into_iter()
                    .map(move |(t, first)| (t, if first { named } else { None }, first))
            })
            .any(|(t, named, first)| t >= at && (!first || named.is_none_or(|n| n == shard)))
    }
}

/// The beliefs about each shard's primary after every fact, and when each
/// node's pod last restarted after them.
struct Replay {
    beliefs: BTreeMap<u32, Belief>,
    /// Per node: its pod was created after the shard's belief was formed.
    restarted: Vec<bool>,
    /// Per node: what its newest status write said, and when (none since
    /// its pod was created).
    said: Vec<Option<(Role, Timestamp)>>,
}

/// A doubted shard is settled by status writes newer than what doubted
/// it, from nodes whose pods were not replaced since: exactly one says
/// `primary` and every other says `replica`.
fn settle(ctx: &RoleInput<'_, '_, '_>, shard: u32, at: Timestamp, r: &mut Replay) {
    let Some(Belief::Doubted { why, .. }) = r.beliefs.get(&shard) else {
        return;
    };
    let since = why.at();
    let mut primary = None;
    for i in ctx.in_shard(shard) {
        if r.restarted[i] {
            continue;
        }
        match r.said[i] {
            Some((Role::Primary, t)) if t >= since && primary.is_none() => primary = Some(i),
            Some((Role::Replica, t)) if t >= since => {}
            _ => return,
        }
    }
    if let Some(node) = primary {
        r.beliefs.insert(
            shard,
            Belief::Primary {
                node,
                source: RoleSource::Status,
                at,
                ip: None,
                walk: false,
            },
        );
    }
}

/// A status write: `node` said `role` at `at`. Against the shard's judged
/// primary (judged from older evidence, or it would not be replayed yet):
/// its primary saying `replica`, or a replica whose pod was not replaced
/// since saying `primary` with no ReplicaCreated after it (an empty master
/// the operator has yet to REPLICATE), doubts it.
fn says(ctx: &RoleInput<'_, '_, '_>, node: usize, role: Role, at: Timestamp, r: &mut Replay) {
    r.said[node] = Some((role, at));
    let Some(shard) = ctx.shard_of(node) else {
        return;
    };
    if ctx.status_live {
        return says_live(ctx, shard, node, role, at, r);
    }
    match r.beliefs.get(&shard) {
        Some(&Belief::Primary {
            node: p,
            source,
            at: judged_at,
            ..
        }) => {
            let contradicts = match role {
                Role::Replica => p == node,
                Role::Primary => {
                    p != node && !r.restarted[node] && !ctx.replicated_after(shard, at)
                }
            };
            if contradicts && !r.restarted[p] {
                r.beliefs.insert(
                    shard,
                    Belief::Doubted {
                        primary: p,
                        source,
                        judged_at,
                        why: Doubt::Said { node, role, at },
                    },
                );
            }
        }
        Some(Belief::Doubted { .. }) => settle(ctx, shard, at, r),
        _ => {}
    }
}

/// A status write of an operator that writes the role from the server as
/// it changes (#320: from slot ownership, within seconds of a failover,
/// dropped while the pod is not Ready): what it says is the server's role
/// at `at`, so it settles the shard as an event would. `primary` makes
/// `node` the shard's primary; `replica` from the node judged primary
/// (or doubted, or held back) fails the shard over away from it, to its
/// one other node, else to one of them; a candidate saying `replica` is
/// ruled out.
fn says_live(
    ctx: &RoleInput<'_, '_, '_>,
    shard: u32,
    node: usize,
    role: Role,
    at: Timestamp,
    r: &mut Replay,
) {
    match role {
        Role::Primary => {
            for i in ctx.in_shard(shard) {
                r.restarted[i] = false;
            }
            r.beliefs.insert(
                shard,
                Belief::Primary {
                    node,
                    source: RoleSource::Status,
                    at,
                    ip: None,
                    walk: false,
                },
            );
        }
        Role::Replica => match r.beliefs.get_mut(&shard) {
            Some(
                Belief::Primary { node: p, .. }
                | Belief::Doubted { primary: p, .. }
                | Belief::Unapplied { primary: p, .. },
            ) if *p == node => failed_over(ctx, shard, Some(node), at, false, r),
            Some(belief @ Belief::OneOf { .. }) => belief.rule_out(node, at),
            _ => {}
        },
    }
}

/// The shard's primary by the best guess, when a status write (`node`
/// said `role` at `at`) doubts the judged `primary`: the writer itself
/// where it says `primary`; where the judged primary says `replica`, its
/// one other node whose pod is older than the write (a pod replaced
/// before it may have been promoted since; one replaced after it is a
/// fresh server), else the one of them whose `status.role` says
/// `primary`; else none (unknown).
fn best_guess(
    ctx: &RoleInput<'_, '_, '_>,
    shard: u32,
    primary: usize,
    said: (usize, Role, Timestamp),
    r: &Replay,
) -> Option<usize> {
    let (node, role, at) = said;
    if role == Role::Primary {
        return Some(node);
    }
    let older = |i: usize| {
        !r.restarted[i]
            || ctx.members[i]
                .view
                .pod
                .and_then(|p| p.metadata.creation_timestamp.as_ref())
                .is_some_and(|c| c.0 <= at)
    };
    let mut others = ctx.in_shard(shard).filter(|&i| i != primary && older(i));
    if let (Some(only), None) = (others.next(), others.next()) {
        return Some(only);
    }
    status_claimant(ctx, shard).filter(|&c| c != primary && older(c))
}

/// The one node of `shard` whose `status.role` says `primary`, if exactly
/// one does.
fn status_claimant(ctx: &RoleInput<'_, '_, '_>, shard: u32) -> Option<usize> {
    let mut claimants = ctx
        .in_shard(shard)
        .filter(|&i| ctx.members[i].view.status_role() == Some(Role::Primary));
    match (claimants.next(), claimants.next()) {
        (Some(p), None) => Some(p),
        _ => None,
    }
}

fn failed_over(
    ctx: &RoleInput<'_, '_, '_>,
    shard: u32,
    from: Option<usize>,
    at: Timestamp,
    walk: bool,
    r: &mut Replay,
) {
    let from = from.or(match r.beliefs.get(&shard) {
        Some(Belief::Primary { node, .. } | Belief::Doubted { primary: node, .. }) => Some(*node),
        _ => None,
    });
    let candidates: Vec<usize> = ctx.in_shard(shard).filter(|&i| Some(i) != from).collect();
    let belief = match candidates.as_slice() {
        [only] => Belief::Primary {
            node: *only,
            source: RoleSource::Inferred,
            at,
            ip: None,
            walk,
        },
        _ => Belief::OneOf { candidates, at },
    };
    for i in ctx.in_shard(shard) {
        r.restarted[i] = false;
    }
    r.beliefs.insert(shard, belief);
}

fn replay(ctx: &RoleInput<'_, '_, '_>, facts: &[(Timestamp, Fact)]) -> Replay {
    let mut r = Replay {
        beliefs: BTreeMap::new(),
        restarted: vec![false; ctx.members.len()],
        said: vec![None; ctx.members.len()],
    };
    for (at, fact) in facts.iter().cloned() {
        match fact {
            Fact::Primary {
                shard,
                node,
                source,
                ip,
                walk,
            } => {
                for i in ctx.in_shard(shard) {
                    r.restarted[i] = false;
                }
                r.beliefs.insert(
                    shard,
                    Belief::Primary {
                        node,
                        source,
                        at,
                        ip,
                        walk,
                    },
                );
            }
            Fact::FailedOver { shard, from, walk } => {
                failed_over(ctx, shard, from, at, walk, &mut r)
            }
            Fact::Advanced { node } => {
                let Some(shard) = ctx.shard_of(node) else {
                    continue;
                };
                match r.beliefs.get_mut(&shard) {
                    Some(Belief::Primary { node: p, .. } | Belief::Doubted { primary: p, .. })
                        if *p == node =>
                    {
                        failed_over(ctx, shard, Some(node), at, false, &mut r);
                    }
                    // No event speaks for the shard (events expire after an
                    // hour): its roles rest on status.role, and the node
                    // advanced is its one claimant. The operator advances
                    // no primary, so it had been failed over. (Whether the
                    // role was written before the advance is not in the
                    // objects: the status entry's managedFields time moves
                    // with any status write, such as the not Ready of the
                    // advance applied. A role written after says so itself:
                    // its status write doubts the failover.)
                    None if status_claimant(ctx, shard) == Some(node) => {
                        failed_over(ctx, shard, Some(node), at, false, &mut r);
                    }
                    Some(belief @ Belief::OneOf { .. }) => belief.rule_out(node, at),
                    _ => {}
                }
            }
            Fact::AdvancedUnapplied { node } => {
                let Some(shard) = ctx.shard_of(node) else {
                    continue;
                };
                let primary = match r.beliefs.get(&shard) {
                    Some(Belief::Primary { node: p, .. } | Belief::Doubted { primary: p, .. }) => {
                        *p == node && !r.restarted[node]
                    }
                    None => status_claimant(ctx, shard) == Some(node),
                    _ => false,
                };
                if primary {
                    // The failover it may have had comes after any pod's
                    // restart: a restarted replica may be the one promoted.
                    for i in ctx.in_shard(shard) {
                        r.restarted[i] = false;
                    }
                    let at = ctx.members[node].view.revision_written_times().max();
                    r.beliefs
                        .insert(shard, Belief::Unapplied { primary: node, at });
                }
            }
            Fact::PodCreated { node } => {
                let Some(shard) = ctx.shard_of(node) else {
                    continue;
                };
                if let Some(Belief::Primary { node: p, .. } | Belief::Doubted { primary: p, .. }) =
                    r.beliefs.get(&shard)
                    && *p == node
                {
                    r.beliefs.insert(shard, Belief::Lost { primary: node, at });
                }
                r.restarted[node] = true;
                r.said[node] = None;
            }
            Fact::Says { node, role } => says(ctx, node, role, at, &mut r),
            Fact::Unsynced { mark } => {
                let why = Doubt::Unannounced { mark, at };
                // A shard no event speaks for rests on status.role alone:
                // its one claimant is doubted too.
                for (&shard, members) in &ctx.shards {
                    if r.beliefs.contains_key(&shard) {
                        continue;
                    }
                    // (No belief was formed, so a pod created before says
                    // nothing here: the status write is what is doubted.)
                    if let Some(p) = status_claimant(ctx, shard) {
                        for &i in members {
                            r.restarted[i] = false;
                        }
                        let judged_at = role_written(ctx.members[p].view);
                        r.beliefs.insert(
                            shard,
                            Belief::Doubted {
                                primary: p,
                                source: RoleSource::Status,
                                judged_at: judged_at.unwrap_or(at),
                                why,
                            },
                        );
                    }
                }
                for belief in r.beliefs.values_mut() {
                    if let Belief::Primary {
                        node,
                        source,
                        at: judged_at,
                        ..
                    } = *belief
                        && !r.restarted[node]
                    {
                        *belief = Belief::Doubted {
                            primary: node,
                            source,
                            judged_at,
                            why,
                        };
                    }
                }
            }
        }
    }
    r
}

/// A node's role from the annotation the later operator writes.
fn annotated(view: &NodeObjects<'_>) -> Option<Role> {
    match view.node.annotation(keys::ANN_OBSERVED_ROLE)?.trim() {
        "primary" | "master" => Some(Role::Primary),
        "replica" | "slave" => Some(Role::Replica),
        _ => None,
    }
}

/// The failover under way, if the objects show one: the newest
/// FailoverInitiated occurrence is newer than every outcome
/// (FailoverCompleted, -Failed, -Timeout) and within
/// [`FAILOVER_WINDOW`]. A first occurrence names its shard's addresses; a
/// repeat is in the shard the walk is rolling, failing over its primary.
fn under_way(
    ctx: &RoleInput<'_, '_, '_>,
    facts: &[(Timestamp, Fact)],
    clock: &Clock,
) -> Option<FailoverUnderWay> {
    let now = clock.now();
    let newest = |reasons: &[&str]| {
        ctx.cluster_events
            .iter()
            .copied()
            .filter(|e| reasons.contains(&events::reason(e)))
            .flat_map(|e| {
                occurrences(e)
                    .into_iter()
                    .map(move |(t, first)| (t, first, e))
            })
            .max_by_key(|(t, _, _)| *t)
    };
    let (since, first, e) = newest(&[keys::EVENT_FAILOVER_INITIATED])?;
    let outcome = newest(&[
        keys::EVENT_FAILOVER_COMPLETED,
        keys::EVENT_FAILOVER_FAILED,
        keys::EVENT_FAILOVER_TIMEOUT,
    ]);
    if outcome.is_some_and(|(t, _, _)| t >= since) || clock.over(since, FAILOVER_WINDOW) {
        return None;
    }
    let name = |i: usize| ctx.members[i].view.name().to_string();
    if first {
        let ips = addresses(events::note(e));
        let from = ips.first().and_then(|ip| ctx.node_at(ip));
        let to = ips
            .get(1)
            .and_then(|ip| ctx.node_at(ip).or_else(|| ctx.promoted_by_pairing(ip)));
        return Some(FailoverUnderWay {
            shard: from.or(to).and_then(|i| ctx.shard_of(i)),
            from: from.map(name),
            to: to.map(name),
            since: Some(since),
            source: FailoverSource::Event,
            for_seconds: secs(super::clock::since(now, since)),
        });
    }
    // Its primary before it began: the operator may advance the node it
    // fails over before it writes the outcome.
    let before: Vec<(Timestamp, Fact)> =
        facts.iter().filter(|(t, _)| *t < since).cloned().collect();
    let replay = replay(ctx, &before);
    let shard = ctx.rolling_shard;
    let from = shard.and_then(|s| match replay.beliefs.get(&s) {
        Some(Belief::Primary { node, .. } | Belief::Doubted { primary: node, .. }) => Some(*node),
        _ => None,
    });
    let to = shard.and_then(|s| {
        let mut others = ctx.in_shard(s).filter(|&i| Some(i) != from);
        let only = others.next()?;
        others.next().is_none().then_some(only)
    });
    Some(FailoverUnderWay {
        shard,
        from: from.map(name),
        to: to.filter(|_| from.is_some()).map(name),
        since: Some(since),
        source: FailoverSource::Series,
        for_seconds: secs(super::clock::since(now, since)),
    })
}

/// Judges every member's role, and the failover under way.
pub(crate) fn judge(ctx: &RoleInput<'_, '_, '_>, clock: &Clock) -> Roles {
    let facts = ctx.facts();
    let failover = under_way(ctx, &facts, clock);
    let replay = replay(ctx, &facts);
    let name = |i: usize| ctx.members[i].view.name().to_string();

    let mut nodes: Vec<JudgedRole> = ctx
        .members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let restarted = replay.restarted[i];
            let Some(shard) = m.shard else {
                return status_role(m.view);
            };
            match replay.beliefs.get(&shard) {
                None => status_role(m.view),
                Some(Belief::Primary {
                    node,
                    source,
                    at,
                    walk,
                    ..
                }) => {
                    let (role, source) = if *node == i && !restarted {
                        (Role::Primary, *source)
                    } else if restarted {
                        (Role::Replica, RoleSource::Inferred)
                    } else {
                        (Role::Replica, *source)
                    };
                    JudgedRole {
                        role: Some(role),
                        source: Some(source),
                        note: walk.then_some(RoleNote::FromTheWalk { at: Some(*at) }),
                    }
                }
                Some(Belief::OneOf { candidates, at }) => {
                    if candidates.contains(&i) && !restarted {
                        JudgedRole {
                            role: None,
                            source: None,
                            note: Some(RoleNote::PromotedOneOf {
                                candidates: candidates.iter().map(|&c| name(c)).collect(),
                                at: Some(*at),
                            }),
                        }
                    } else {
                        replica_inferred()
                    }
                }
                Some(Belief::Doubted {
                    primary,
                    source,
                    judged_at,
                    why,
                }) => {
                    // The best guess follows the newer status write (still
                    // unsure): a write that doubts the judged primary is
                    // the operator's newer reading of a server.
                    let (guess, source) = match *why {
                        Doubt::Said { node, role, at } => (
                            best_guess(ctx, shard, *primary, (node, role, at), &replay),
                            RoleSource::Status,
                        ),
                        Doubt::Unannounced { .. } => (Some(*primary), *source),
                    };
                    if restarted && guess != Some(i) {
                        return replica_inferred();
                    }
                    let role = match guess {
                        Some(g) if g == i => Some(Role::Primary),
                        Some(_) => Some(Role::Replica),
                        None if *primary == i => Some(Role::Replica),
                        None => None,
                    };
                    let contradicted = RoleContradicted {
                        primary: name(*primary),
                        judged_at: Some(*judged_at),
                        by: match *why {
                            Doubt::Said { node, role, at } => Contradiction::Status {
                                node: name(node),
                                role,
                                at: Some(at),
                            },
                            Doubt::Unannounced { mark, at } => mark.contradiction(at),
                        },
                    };
                    JudgedRole {
                        role,
                        source: role.map(|_| source),
                        note: Some(RoleNote::Contradicted(Box::new(contradicted))),
                    }
                }
                Some(Belief::Lost { primary, at }) => {
                    if *primary == i || restarted {
                        replica_inferred()
                    } else {
                        JudgedRole {
                            role: None,
                            source: None,
                            note: Some(RoleNote::PrimaryReplaced {
                                primary: name(*primary),
                                at: Some(*at),
                            }),
                        }
                    }
                }
                Some(Belief::Unapplied { primary, at }) => JudgedRole {
                    role: None,
                    source: None,
                    note: Some(RoleNote::AdvancedUnapplied {
                        primary: name(*primary),
                        at: *at,
                    }),
                },
            }
        })
        .collect();

    // Where nothing newer speaks for a shard, two nodes whose status.role
    // says primary leave its primary unknown.
    let mut claims: BTreeMap<Option<u32>, Vec<usize>> = BTreeMap::new();
    for (i, m) in ctx.members.iter().enumerate() {
        let by_status = nodes[i].source == Some(RoleSource::Status);
        if by_status && nodes[i].role == Some(Role::Primary) && m.shard.is_some() {
            claims.entry(m.shard).or_default().push(i);
        }
    }
    for claimants in claims.values().filter(|c| c.len() > 1) {
        for &i in claimants {
            nodes[i] = JudgedRole {
                role: None,
                source: None,
                note: Some(RoleNote::Claimants {
                    others: claimants
                        .iter()
                        .filter(|&&c| c != i)
                        .map(|&c| name(c))
                        .collect(),
                }),
            };
        }
    }

    // Where status.role alone speaks for a shard and no node of it says
    // primary, one of them is the primary all the same (a failover the
    // operator did not make leaves the old primary writing `replica` and
    // the promoted one silent): every node of it is unsure.
    let mut by_shard: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, m) in ctx.members.iter().enumerate() {
        if let Some(s) = m.shard {
            by_shard.entry(s).or_default().push(i);
        }
    }
    for members in by_shard.values().filter(|m| m.len() > 1) {
        let all_replicas_by_status = members.iter().all(|&i| {
            nodes[i].source == Some(RoleSource::Status)
                && nodes[i].role == Some(Role::Replica)
                && nodes[i].note.is_none()
                && ctx.members[i].view.node_ready()
        });
        if all_replicas_by_status {
            for &i in members {
                nodes[i].note = Some(RoleNote::NoPrimaryClaimed);
            }
        }
    }

    // The operator's own reading of the server, where it writes one.
    let mut annotated_primaries: BTreeMap<Option<u32>, Vec<usize>> = BTreeMap::new();
    for (i, m) in ctx.members.iter().enumerate() {
        if let Some(role) = annotated(m.view) {
            nodes[i] = JudgedRole {
                role: Some(role),
                source: Some(RoleSource::Annotation),
                note: None,
            };
            if role == Role::Primary {
                annotated_primaries.entry(m.shard).or_default().push(i);
            }
        }
    }
    for claimants in annotated_primaries.values().filter(|c| c.len() > 1) {
        for &i in claimants {
            nodes[i].note = Some(RoleNote::Claimants {
                others: claimants
                    .iter()
                    .filter(|&&c| c != i)
                    .map(|&c| name(c))
                    .collect(),
            });
            nodes[i].role = None;
            nodes[i].source = None;
        }
    }

    // The two nodes of a failover under way are about to swap roles.
    if let Some(f) = &failover {
        for (i, m) in ctx.members.iter().enumerate() {
            let name = m.view.name();
            if f.from.as_deref() == Some(name) || f.to.as_deref() == Some(name) {
                nodes[i].note = Some(RoleNote::FailoverUnderWay);
            }
        }
    }
    Roles {
        nodes,
        failover,
        status_live: ctx.status_live,
    }
}

fn replica_inferred() -> JudgedRole {
    JudgedRole {
        role: Some(Role::Replica),
        source: Some(RoleSource::Inferred),
        note: None,
    }
}

fn status_role(view: &NodeObjects<'_>) -> JudgedRole {
    let role = view.status_role();
    JudgedRole {
        role,
        source: role.map(|_| RoleSource::Status),
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_in_notes() {
        let cases: &[(&str, &[&str])] = &[
            (
                "Created primary 127.0.1.6 with slots 0-5461",
                &["127.0.1.6"],
            ),
            (
                "Initiated failover from 127.0.1.2 to 127.0.1.1 in shard ccd56d4e",
                &["127.0.1.2", "127.0.1.1"],
            ),
            (
                "Failover completed: 127.0.1.1 is now primary in shard ccd5",
                &["127.0.1.1"],
            ),
            (
                "Created primary 10.0.0.7:6379 with slots 0-1",
                &["10.0.0.7"],
            ),
            ("from [fd00::1]:6379 to fd00::2.", &["fd00::1", "fd00::2"]),
            (
                "Failover of shard 5e1f from 127.0.1.2 timed out",
                &["127.0.1.2"],
            ),
            ("no address here 1.2.3", &[]),
        ];
        for (note, want) in cases {
            assert_eq!(addresses(note), *want, "{note}");
        }
    }
}
