//! The classifier's output, in the words of docs/plugin.md.
//!
//! Field names and the words of [`NodeState`], [`Verdict`], [`EvidenceKind`]
//! and [`GrantSource`] are a public interface (the `-o json|yaml` document):
//! scripts and alerts depend on them. Absent values serialize as `null`,
//! never omitted; fields that only the program uses are `#[serde(skip)]`.

mod reason;

pub use crate::snapshot::SpecField;
pub use reason::*;

use jiff::Timestamp;
use serde::Serialize;
use std::fmt;

/// The whole `status -o json` document.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub clusters: Vec<ClusterReport>,
}

impl Report {
    /// The earliest [`ClusterReport::next_change`].
    pub fn next_change(&self) -> Option<Timestamp> {
        self.clusters.iter().filter_map(|c| c.next_change).min()
    }

    /// The report with what only the clock moves set aside: every duration
    /// at zero (the `*Seconds` fields, those in reasons and evidence), and
    /// what no view shows (resource versions, the roll's history). Two
    /// reports whose `timeless` are equal look the same but for ticking
    /// durations, which is how `status --watch` tells a change worth a new
    /// report off a terminal.
    pub fn timeless(&self) -> Report {
        let mut r = self.clone();
        for c in &mut r.clusters {
            c.quiet_for_seconds = c.quiet_for_seconds.map(|_| 0);
            c.eta_seconds = c.eta_seconds.map(|_| 0);
            c.per_node_seconds = c.per_node_seconds.map(|_| 0);
            c.reason.timeless();
            c.history = RollHistory::default();
            c.next_change = None;
            if let Some(o) = &mut c.operator {
                o.quiet_for_seconds = 0;
            }
            if let Some(f) = &mut c.failover {
                f.for_seconds = 0;
            }
            for r in &mut c.risks {
                r.for_seconds = r.for_seconds.map(|_| 0);
            }
            for n in &mut c.nodes {
                n.held_for_seconds = n.held_for_seconds.map(|_| 0);
                n.waiting_for_seconds = n.waiting_for_seconds.map(|_| 0);
                n.reason.timeless();
                for e in &mut n.evidence {
                    e.finding.timeless();
                }
                n.facts.resource_version = None;
            }
        }
        r
    }
}

/// Which form of the staged-roll protocol a cluster speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Protocol {
    P1,
    P2,
    #[serde(rename = "unknown")]
    Unknown,
}

/// One node's state; exactly one per node, decided in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum NodeState {
    Standalone,
    StalePermit,
    Stuck,
    Settling,
    Rolling,
    Waiting,
    Blocking,
    Converged,
}

/// A cluster's verdict; the first that matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Verdict {
    Conflict,
    Jammed,
    Rolling,
    Stalled,
    Waiting,
    Converged,
}

impl NodeState {
    /// Every state, in the order docs/plugin.md decides them (and `Ord`).
    pub(crate) const ALL: [NodeState; 8] = [
        NodeState::Standalone,
        NodeState::StalePermit,
        NodeState::Stuck,
        NodeState::Settling,
        NodeState::Rolling,
        NodeState::Waiting,
        NodeState::Blocking,
        NodeState::Converged,
    ];

    /// docs/plugin.md's node states 2 to 5 are exactly the holders: the
    /// classifier's `facts.holder` agrees (tests/props/invariants.rs).
    pub fn is_holder(self) -> bool {
        match self {
            NodeState::StalePermit
            | NodeState::Stuck
            | NodeState::Settling
            | NodeState::Rolling => true,
            NodeState::Standalone
            | NodeState::Waiting
            | NodeState::Blocking
            | NodeState::Converged => false,
        }
    }

    /// In the cluster's queue: not holding, not done, waiting its turn.
    pub fn is_queued(self) -> bool {
        match self {
            NodeState::Waiting | NodeState::Blocking => true,
            NodeState::Standalone
            | NodeState::StalePermit
            | NodeState::Stuck
            | NodeState::Settling
            | NodeState::Rolling
            | NodeState::Converged => false,
        }
    }

    /// How alarming the state is (its colour). Not the same ranking as
    /// [`NodeState::urgency`]: a Blocking node is more alarming than a
    /// rolling one, yet the rolling holder is looked at first.
    pub(crate) fn tone(self) -> Tone {
        match self {
            NodeState::Stuck | NodeState::StalePermit => Tone::Bad,
            NodeState::Blocking => Tone::Warn,
            NodeState::Rolling | NodeState::Settling => Tone::Busy,
            NodeState::Waiting => Tone::Queue,
            NodeState::Converged => Tone::Good,
            NodeState::Standalone => Tone::Quiet,
        }
    }

    /// Who needs a look first (0 first), the order of the node table's
    /// rows: jammed holders, then the holders in flight, then the queue from
    /// its front (Blocking is the front when nobody asks), then the rest.
    pub(crate) fn urgency(self) -> u8 {
        match self {
            NodeState::Stuck | NodeState::StalePermit => 0,
            NodeState::Rolling | NodeState::Settling => 1,
            NodeState::Blocking => 2,
            NodeState::Waiting => 3,
            NodeState::Converged => 4,
            NodeState::Standalone => 5,
        }
    }
}

impl Verdict {
    /// Every verdict, in the order docs/plugin.md's table tries them.
    pub(crate) const ALL: [Verdict; 6] = [
        Verdict::Conflict,
        Verdict::Jammed,
        Verdict::Rolling,
        Verdict::Stalled,
        Verdict::Waiting,
        Verdict::Converged,
    ];

    /// `wait` and `status --exit-code` stop with exit 3 on these.
    pub(crate) fn needs_attention(self) -> bool {
        match self {
            Verdict::Conflict | Verdict::Jammed | Verdict::Stalled => true,
            Verdict::Rolling | Verdict::Waiting | Verdict::Converged => false,
        }
    }

    /// How alarming the verdict is (its colour).
    pub(crate) fn tone(self) -> Tone {
        match self {
            Verdict::Conflict | Verdict::Jammed => Tone::Bad,
            Verdict::Stalled => Tone::Warn,
            Verdict::Rolling => Tone::Busy,
            Verdict::Waiting => Tone::Queue,
            Verdict::Converged => Tone::Good,
        }
    }
}

/// How alarming a verdict or state is, from someone-has-to-act to outside
/// the roll. Render gives each one colour (`render::style::paint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Someone has to act: red.
    Bad,
    /// Not moving, or holding others up: yellow.
    Warn,
    /// A roll in flight: cyan.
    Busy,
    /// Queued: blue.
    Queue,
    /// Nothing to do: green.
    Good,
    /// Outside the roll: no colour.
    Quiet,
}

/// Where a grant time came from (docs/protocol.md, "When did a permit start?").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum GrantSource {
    Annotation,
    Event,
    ManagedFields,
    Unknown,
}

/// Why a holder is judged stuck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum EvidenceKind {
    CrashLoopBackOff,
    ImagePullBackOff,
    ErrImagePull,
    InvalidImageName,
    CreateContainerConfigError,
    CreateContainerError,
    RunContainerError,
    #[serde(rename = "OOMKilled")]
    OomKilled,
    Unschedulable,
    ProgressDeadlineExceeded,
    SupersededPod,
    /// A container that keeps restarting while Running: not ready, at least
    /// `RESTART_LOOP_MIN` (classify/evidence.rs) restarts, and
    /// its last termination recent (killed by its liveness or startup probe).
    RestartLoop,
    HeldOverThreshold,
    NotReleased,
}

impl EvidenceKind {
    /// Evidence of failure from the pod or its workload; the rest is the
    /// clock's (held too long, not released).
    pub fn is_failure(self) -> bool {
        !matches!(
            self,
            EvidenceKind::HeldOverThreshold | EvidenceKind::NotReleased
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    pub kind: EvidenceKind,
    /// The document's `message`, for people; its words may change between
    /// versions.
    #[serde(rename = "message")]
    pub finding: Finding,
    /// On evidence about one container (the waiting reasons, OOMKilled,
    /// RestartLoop): that container's last termination
    /// (`lastState.terminated`); null on other evidence and when the
    /// container has not terminated before.
    pub last_termination: Option<Termination>,
}

impl Evidence {
    /// Evidence that is about no one container.
    pub(crate) fn new(kind: EvidenceKind, finding: Finding) -> Evidence {
        Evidence {
            kind,
            finding,
            last_termination: None,
        }
    }
}

/// A container's last termination, as its `lastState.terminated` says:
/// why the container died the last time it did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Termination {
    pub container: String,
    pub exit_code: i32,
    /// `OOMKilled`, `Error`, `Completed`...; null when the kubelet gave none.
    pub reason: Option<String>,
    pub signal: Option<i32>,
    pub finished_at: Option<Timestamp>,
}

/// The container of a node's pod that fails (explain's "Last words"):
/// the first whose waiting reason is failure evidence, else the first not
/// ready that has terminated before. Only `status.containerStatuses` is
/// read (init containers are not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailingContainer {
    pub name: String,
    pub restarts: i32,
    /// Its `lastState.terminated`; None: it has not terminated before, so
    /// there is no previous container and no previous log.
    pub last: Option<Termination>,
}

/// One ValkeyCluster's verdict and its nodes.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterReport {
    /// The kubeconfig context it was read through when several were read
    /// (several `--context`, `--all-contexts`); null when one was.
    pub context: Option<String>,
    pub namespace: String,
    pub name: String,
    pub protocol: Protocol,
    pub verdict: Verdict,
    pub reason: ClusterReason,
    pub holders: Vec<String>,
    pub front: Option<String>,
    pub waiting: usize,
    pub blocking: usize,
    pub total: usize,
    /// The headline's progress count; `None` where it shows `?`.
    pub done: Option<usize>,
    pub quiet_for_seconds: Option<u64>,
    /// While Rolling, Waiting, or Stalled with nothing Blocking: the median
    /// time from a node's advance to its pod Ready, over the nodes of the
    /// current roll that finished; null when unknown or not wanted.
    pub per_node_seconds: Option<u64>,
    /// That median times the nodes still to go, plus the holder's
    /// remaining share; null when unknown or not wanted.
    pub eta_seconds: Option<u64>,
    /// How many finished nodes the estimate rests on; null when no estimate
    /// is wanted (Jammed, Conflict, Converged, Stalled with a Blocking node).
    pub eta_basis: Option<usize>,
    /// A failover under way in the cluster (docs/plugin.md, "Roles, failovers
    /// and a silent operator"); null when none is.
    pub failover: Option<FailoverUnderWay>,
    /// The operator has not acted on a node in flight for longer than it
    /// ever takes when it runs; null otherwise.
    pub operator: Option<OperatorSilence>,
    /// Shards at risk right now (a primary with no Ready replica; with
    /// readings, no synced replica, or a cluster state other than ok).
    pub risks: Vec<Risk>,
    /// The primary the operator holds back, and why (its RollDeferred, or
    /// what the servers say); null when none is.
    pub deferred: Option<Deferred>,
    /// How many of the cluster's servers were read (docs/servers.md);
    /// null when they were not asked.
    pub servers: Option<ServersRead>,
    /// Primaries the servers name that no API evidence named: failovers
    /// the operator did not make (a crash, a split).
    #[serde(skip)]
    pub unplanned: Vec<UnplannedFailover>,
    /// A scale asked for while a roll is in flight: the operator applies
    /// it only after the roll. Null when none waits.
    pub pending_scale: Option<PendingScale>,
    /// The operator is seen writing `status.role` from the server as it
    /// changes and dropping it while the pod is not Ready
    /// (valkey-operator #320, v0.6.0 on; docs/roles.md, "Which operator
    /// writes status.role"): a role written after the newest evidence is
    /// the truth, not a stale copy. False: c33988f's reading.
    pub status_role_live: bool,
    /// The ValkeyCluster's `status.state` and `status.reason`.
    pub state: Option<String>,
    pub state_reason: Option<String>,
    /// Nodes in walk order.
    pub nodes: Vec<NodeReport>,
    /// The threshold the report was judged with (for the headline).
    #[serde(skip)]
    pub stall_threshold_seconds: u64,
    /// The ValkeyCluster object was in view (a node's label may name a
    /// cluster that is missing).
    #[serde(skip)]
    pub cluster_found: bool,
    /// True when the roll is unfinished only by the ValkeyCluster's word.
    #[serde(skip)]
    pub unfinished_by_cluster: bool,
    /// Some node asks, holds or is behind, so the controller reads the
    /// live topology and walks each shard's primary last (docs/protocol.md);
    /// false: node index descending everywhere.
    #[serde(skip)]
    pub walk_by_primary: bool,
    /// The current roll so far, node by node, for `history`.
    #[serde(skip)]
    pub history: RollHistory,
    /// The earliest later instant at which time alone could change a
    /// verdict or a node state (a threshold or a grace crossed); None:
    /// only a change of the objects can.
    #[serde(skip)]
    pub next_change: Option<Timestamp>,
}

/// The current roll so far (`history`): when it began and one row per
/// node, in walk order. Facts only; `render::history` words them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RollHistory {
    /// When the current roll began (classify::roll, "start"); None: not told.
    pub started_at: Option<Timestamp>,
    /// The oldest event about the cluster or its nodes in view.
    pub oldest_event: Option<Timestamp>,
    pub rows: Vec<HistoryRow>,
}

/// One node's part in the current roll.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryRow {
    pub node: String,
    pub shard: Option<u32>,
    pub index: Option<u32>,
    /// The judged role, as `status` gives it (docs/plugin.md, "Judged
    /// role"), never the raw `status.role`; null when unknown.
    pub role: Option<Role>,
    /// Where the role came from; null when it is unknown.
    pub role_source: Option<RoleSource>,
    /// Why the role is unsure, or unknown (the `?`); null when settled.
    pub role_note: Option<RoleNote>,
    /// Its first advance in this roll (a grant by hand, a `*` permit or a
    /// revision change: the grant-time sources).
    pub advanced_at: Option<Timestamp>,
    /// `controller`, or the person a grant by hand names (`granted-by`).
    pub advanced_by: Option<String>,
    /// A grant by hand's record of what the servers of its shard said at
    /// that moment (`valkey-roll.io/servers`), in one line; null for the
    /// controller's advance, or a grant that recorded none.
    pub servers_said: Option<String>,
    /// Its `WorkloadRollApplied` in this roll.
    pub applied_at: Option<Timestamp>,
    /// Its pod became Ready, after the advance.
    pub ready_at: Option<Timestamp>,
    /// From the advance to the pod Ready.
    pub took_seconds: Option<u64>,
    pub outcome: HistoryOutcome,
    /// A time this row should have is missing: its events have likely
    /// expired (an hour by default).
    pub partial: bool,
}

impl HistoryRow {
    /// The role is shown with a `?`: the evidence does not settle it.
    pub(crate) fn role_unsure(&self) -> bool {
        self.role_note.is_some()
    }
}

/// How a node's part in the roll ended, or stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HistoryOutcome {
    /// Advanced in this roll, and Converged since.
    Rolled,
    /// The holder, on its way (Rolling or Settling).
    Rolling,
    /// The holder, Stuck (or a stale permit) now.
    Stuck,
    /// Still to be advanced: it asks or is behind.
    Waiting,
    /// Not healthy, and not rolling: the walk waits here.
    Blocked,
    /// Nothing to roll for it in this roll (at rest, not advanced), or not
    /// cluster-owned.
    Skipped,
}

/// One ValkeyNode's state and the facts behind it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeReport {
    pub name: String,
    pub shard: Option<u32>,
    pub index: Option<u32>,
    /// The judged role (docs/plugin.md, "Judged role"); null when unknown.
    pub role: Option<Role>,
    /// Where the role came from; null when it is unknown.
    pub role_source: Option<RoleSource>,
    /// For people: why the role is unsure, or unknown. Null when the
    /// evidence agrees.
    pub role_note: Option<RoleNote>,
    pub state: NodeState,
    pub queue_position: Option<usize>,
    /// P1: the permit annotation; P2: `spec.workloadRevision`.
    pub permit: Option<String>,
    /// The asked-for revision.
    pub desired_revision: Option<String>,
    pub last_rollout_hash: Option<String>,
    pub ready: bool,
    pub pod: Option<String>,
    pub held_for_seconds: Option<u64>,
    pub granted_at: Option<Timestamp>,
    pub granted_at_source: GrantSource,
    pub granted_by: Option<String>,
    pub grant_reason: Option<String>,
    pub waiting_for_seconds: Option<u64>,
    pub reason: NodeReason,
    pub evidence: Vec<Evidence>,
    /// What its own server says (its counted reading); null when it was
    /// not read, or its reading does not count.
    pub server: Option<NodeServer>,
    /// Facts the classifier derived, for explain and steering.
    #[serde(skip)]
    pub facts: NodeFacts,
}

impl NodeReport {
    /// The role is shown with a `?`: the evidence does not settle it.
    pub(crate) fn role_unsure(&self) -> bool {
        self.role_note.is_some()
    }
}

/// A node's role in its shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Primary,
    Replica,
}

/// Where a judged role came from, newest evidence first: the operator's
/// `valkey.io/observed-role` annotation, its events that name pod IPs
/// (PrimaryCreated, FailoverCompleted), `status.role`, or what follows from
/// them (a replaced pod restarts as a replica; at creation node index 0
/// gets the slots).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RoleSource {
    Annotation,
    Event,
    Status,
    Inferred,
    /// Its own server (INFO replication), read after the API's evidence.
    Server,
}

/// Of a cluster whose servers were asked: how many answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServersRead {
    /// Nodes whose own server's reading counts.
    pub read: usize,
    /// Nodes with no such reading: missing, failed, stale or another pod's.
    pub unread: usize,
    /// The newest reading's time.
    pub observed_at: Option<Timestamp>,
}

impl ServersRead {
    /// Some of the cluster's servers were asked and not read: what the
    /// view says of them is the API's word alone (docs/servers.md, "Not
    /// read, on the verdict").
    pub(crate) fn some_unread(&self) -> bool {
        self.unread > 0
    }
}

impl ClusterReport {
    /// How many of its servers were asked and not read, when some were
    /// (`None` when they were not asked or all were read).
    pub(crate) fn servers_unread(&self) -> Option<&ServersRead> {
        self.servers.as_ref().filter(|s| s.some_unread())
    }
}

/// A node's server as its counted reading says it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeServer {
    pub role: Option<Role>,
    /// A replica's replication link; null for a primary.
    pub link: Option<crate::snapshot::LinkStatus>,
    pub syncing: Option<bool>,
    /// A replica synced by the operator's own rule (its link up, its
    /// myself line not flagged failing); null for a primary.
    pub synced: Option<bool>,
    /// A replica's replication offset behind its shard's primary (by the
    /// servers), in bytes; null where either offset was not read.
    pub lag_bytes: Option<u64>,
    /// When its server answered.
    pub observed_at: Option<Timestamp>,
}

/// A replica of a shard as its server says it (null link: not read).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaLink {
    pub node: String,
    pub link: Option<crate::snapshot::LinkStatus>,
    pub syncing: Option<bool>,
    /// Its offset behind the primary's, in bytes, where both were read.
    pub lag_bytes: Option<u64>,
    /// The failing flag of its myself line (`fail`, `fail?`, `pfail`), which
    /// makes a replica with its link up not synced; for the words only.
    #[serde(skip)]
    pub flagged: Option<String>,
    /// Why its server's word is not had: its reading's error, or why the
    /// reading does not count (`None`: read and counted); words only.
    #[serde(skip)]
    pub unread: Option<ServerNote>,
    /// Since when it has been down, as far as the API tells (its pod's
    /// restart or turn to not Ready); for the words only.
    #[serde(skip)]
    pub down_for: Option<u64>,
}

/// A primary a server names that no API evidence named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnplannedFailover {
    pub shard: u32,
    /// The primary by its server.
    pub to: String,
    /// The primary by the API's evidence, where it names one.
    pub from: Option<String>,
    /// When the server said so.
    pub seen_at: Timestamp,
}

/// A failover under way: a FailoverInitiated about the cluster (or a newer
/// occurrence of it in its events.k8s.io series) with no later
/// FailoverCompleted, FailoverFailed or FailoverTimeout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailoverUnderWay {
    /// The shard index; null when it cannot be told.
    pub shard: Option<u32>,
    /// The primary being failed over, and the replica promoted (node
    /// names; null when unknown).
    pub from: Option<String>,
    pub to: Option<String>,
    /// When it was initiated.
    pub since: Option<Timestamp>,
    /// How it is known.
    pub source: FailoverSource,
    /// How long it has been under way (for the headline; the document
    /// has `since`).
    #[serde(skip)]
    pub for_seconds: u64,
}

/// How a failover under way is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FailoverSource {
    /// A FailoverInitiated event whose note names the shard's pod IPs.
    Event,
    /// A newer occurrence in the series of an earlier FailoverInitiated
    /// (its note names the first shard's IPs): the shard is the walk's.
    Series,
}

/// Evidence that nobody drives the roll: a node in flight whose pod has
/// been Ready on its new revision for longer than
/// `OPERATOR_GRACE` (classify/silence.rs) while its status has
/// not followed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperatorSilence {
    pub quiet_for_seconds: u64,
    pub node: String,
    /// What it has not acted on (the reason says it).
    #[serde(skip)]
    pub after: SilentAfter,
    /// The operator's leader-election Lease, where it was read (`explain`
    /// reads it; `status` does not).
    pub lease: Option<OperatorLease>,
}

/// The operator's leader-election Lease, as read (plain data of the
/// snapshot: reading fills it, render says it).
pub use crate::snapshot::OperatorLease;

/// A shard at risk right now. The verdict does not change for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Risk {
    pub kind: RiskKind,
    pub shard: u32,
    /// The shard's (judged) primary; null when unknown.
    pub primary: Option<String>,
    /// Since when, where known.
    pub since: Option<Timestamp>,
    /// For how long, where known (for the headline).
    #[serde(skip)]
    pub for_seconds: Option<u64>,
    /// NoSyncedReplica: the shard's replicas as their servers say them;
    /// null for the other kinds.
    pub replicas: Option<Vec<ReplicaLink>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RiskKind {
    /// The shard's primary has no Ready replica: losing it now loses
    /// writes.
    NoReadyReplica,
    /// The shard's primary has no synced replica by the operator's rule
    /// (`master_link_status:up`, not flagged fail or pfail): a failover
    /// now could not keep its writes, and the operator holds its roll.
    NoSyncedReplica,
    /// A server says `cluster_state` is not ok: some slots are not served.
    ClusterStateFail,
}

/// A scale asked for that waits for the roll: the ValkeyCluster's
/// `spec.shards` and `spec.replicas` as asked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingScale {
    pub shards: Option<u32>,
    pub replicas: Option<u32>,
}

/// What the classifier found out about a node, beyond the document.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeFacts {
    pub cluster_owned: bool,
    pub asks: bool,
    pub holder: bool,
    pub healthy: bool,
    /// Why the node is not healthy (empty when healthy).
    pub unhealthy_because: Vec<Unhealthy>,
    /// The node is its shard's primary by docs/plugin.md's definition.
    pub is_primary: bool,
    /// The holder's roll is complete, and since when (if known).
    pub complete: bool,
    pub complete_since: Option<Timestamp>,
    /// The node's pod is Ready (None: pod unknown).
    pub pod_ready: Option<bool>,
    pub workload_rolled_out: Option<bool>,
    /// The StatefulSet pod runs the StatefulSet's `status.updateRevision`
    /// (its `controller-revision-hash` label); None where either is not
    /// known, or the workload is a Deployment.
    pub pod_on_update_revision: Option<bool>,
    pub template_roll_in_progress: Option<bool>,
    /// The start of its wait (Waiting/Blocking), when known.
    pub waiting_since: Option<Timestamp>,
    /// The grant-time sources that were not available, and why.
    pub unavailable_sources: Vec<Unavailable>,
    /// `metadata.resourceVersion` of the ValkeyNode as read.
    pub resource_version: Option<String>,
    /// Behind a Spec-driven edit: the image the node's spec has, and the
    /// ValkeyCluster's (None: not behind). Boxed, as the failing container
    /// below: both are rare, and inline they were a quarter of every
    /// node's report (issue 33).
    pub behind: Option<Box<Behind>>,
    /// It belongs to its cluster by its controller owner reference alone
    /// (its `valkey.io/cluster` label is missing).
    pub cluster_by_owner: bool,
    /// The OrderedReady trap (the operator's PR #410 predicate): the
    /// StatefulSet pod is not Ready and runs a revision other than the
    /// StatefulSet's update revision; `replace-pod` applies.
    pub pod_superseded_not_ready: bool,
    /// With failure evidence from the pod: the container that fails.
    pub failing_container: Option<Box<FailingContainer>>,
    /// Where its cluster's servers were read: why its own server's word is
    /// not had (or that it is an empty primary). Boxed: rare.
    pub server_unread: Option<Box<ServerNote>>,
}

/// A node the walk has not reached in a Spec-driven roll.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Behind {
    pub image: String,
    pub cluster_image: String,
    /// The mirrored fields of its spec that differ from what its
    /// ValkeyCluster asks of it, in the operator's order (never empty).
    pub fields: Vec<SpecField>,
}

/// The `explain -o json` entry of a node: its status entry plus a timeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TimelineEntry {
    pub time: Option<Timestamp>,
    pub reason: String,
    pub message: String,
    /// `Kind/name` of the object the event is about.
    pub regarding: String,
    /// How many times it happened, by its events.k8s.io series; null when
    /// once (or an old core/v1 event). A repeat keeps the first's note, so
    /// a repeated failover's note names the first shard's addresses.
    pub count: Option<i32>,
    /// The pod addresses the note names that are a node's (`status.podIP`,
    /// else its pod's IP): address -> node.
    pub addresses: std::collections::BTreeMap<String, String>,
}

macro_rules! display_as_debug {
    ($($ty:ty),*) => {$(
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self, f)
            }
        }
    )*};
}
display_as_debug!(NodeState, Verdict);

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::P1 => "P1",
            Protocol::P2 => "P2",
            Protocol::Unknown => "unknown",
        })
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Primary => "primary",
            Role::Replica => "replica",
        })
    }
}

impl fmt::Display for RoleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RoleSource::Annotation => "annotation",
            RoleSource::Event => "event",
            RoleSource::Status => "status",
            RoleSource::Inferred => "inferred",
            RoleSource::Server => "server",
        })
    }
}

impl fmt::Display for GrantSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GrantSource::Annotation => "annotation",
            GrantSource::Event => "event",
            GrantSource::ManagedFields => "managedFields",
            GrantSource::Unknown => "unknown",
        })
    }
}

impl fmt::Display for EvidenceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvidenceKind::OomKilled => f.write_str("OOMKilled"),
            other => fmt::Debug::fmt(other, f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each state's place in [`NodeState::ALL`]; a new state does not
    /// compile until it has one, and the test below fails until it is there.
    fn place(s: NodeState) -> usize {
        match s {
            NodeState::Standalone => 0,
            NodeState::StalePermit => 1,
            NodeState::Stuck => 2,
            NodeState::Settling => 3,
            NodeState::Rolling => 4,
            NodeState::Waiting => 5,
            NodeState::Blocking => 6,
            NodeState::Converged => 7,
        }
    }

    fn verdict_place(v: Verdict) -> usize {
        match v {
            Verdict::Conflict => 0,
            Verdict::Jammed => 1,
            Verdict::Rolling => 2,
            Verdict::Stalled => 3,
            Verdict::Waiting => 4,
            Verdict::Converged => 5,
        }
    }

    #[test]
    fn all_lists_every_state_and_verdict_once_in_decision_order() {
        for (i, s) in NodeState::ALL.into_iter().enumerate() {
            assert_eq!(place(s), i, "{s:?}");
        }
        assert!(
            NodeState::ALL.is_sorted(),
            "ALL follows the decision order (Ord)"
        );
        for (i, v) in Verdict::ALL.into_iter().enumerate() {
            assert_eq!(verdict_place(v), i, "{v:?}");
        }
    }

    /// The rules of docs/plugin.md, one row per state: holder, queued,
    /// tone, urgency.
    #[test]
    fn each_state_carries_its_rules() {
        use NodeState::*;
        let rows = [
            (Standalone, false, false, Tone::Quiet, 5),
            (StalePermit, true, false, Tone::Bad, 0),
            (Stuck, true, false, Tone::Bad, 0),
            (Settling, true, false, Tone::Busy, 1),
            (Rolling, true, false, Tone::Busy, 1),
            (Waiting, false, true, Tone::Queue, 3),
            (Blocking, false, true, Tone::Warn, 2),
            (Converged, false, false, Tone::Good, 4),
        ];
        for (s, holder, queued, tone, urgency) in rows {
            assert_eq!(
                (s.is_holder(), s.is_queued(), s.tone(), s.urgency()),
                (holder, queued, tone, urgency),
                "{s:?}"
            );
        }
    }
}
