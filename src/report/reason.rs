//! Why a node is in its state and why a cluster has its verdict, as facts:
//! which node, which pod and container, how many restarts, which
//! revisions, how long. The classifier decides them; `render::words` says
//! them, through the `Display` and `Serialize` of each type here (the
//! document's `reason` and `message` strings are those words), so a
//! sentence is written in one place.
//!
//! Durations are whole seconds at the moment of judging, as the document's
//! `*Seconds` fields; [`Report::timeless`](super::Report::timeless) sets
//! them aside where only the clock moved.

use super::{GrantSource, Protocol};

/// Whole seconds, as the report states durations.
pub(crate) type Seconds = u64;

/// A node's REASON. Its words (`Display`, and the document's `reason`
/// string through `Serialize`) are in `render/words/node.rs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeReason {
    Standalone,
    /// P1: a permit for another revision than the node asks for.
    StalePermit {
        permit: String,
        asks_for: String,
    },
    /// Stuck by failure evidence: its first piece.
    Failing(Finding),
    /// Stuck: rolled, and the permit still held. `rolled_for` None: Ready
    /// since an unknown time.
    NotReleased {
        rolled_for: Option<Seconds>,
        held: Seconds,
    },
    /// Stuck: held over the stall threshold, not rolled.
    HeldOverThreshold {
        held: Seconds,
        threshold: Seconds,
    },
    Settling,
    Rolling(RollStep),
    /// In the queue at `queue`, behind `ahead`.
    Waiting {
        queue: usize,
        ahead: Ahead,
    },
    Blocking(Sickness),
    Converged,
}

/// Where a Rolling holder's roll is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RollStep {
    /// P1: granted, and the template not applied yet.
    PermitNotApplied,
    SpecNotObserved,
    WorkloadRolling,
    /// Its pod (by name, when known) is not Ready yet.
    PodNotReady {
        pod: Option<String>,
    },
    Rolling,
}

/// Who a Waiting node waits behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ahead {
    Holders(Vec<String>),
    Front {
        node: String,
        blocking: bool,
    },
    /// It is the front itself.
    Nothing,
}

/// Why a node is not healthy, in short: its first piece of failure
/// evidence, else what its status says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sickness {
    Failing(Finding),
    Status(Vec<Unhealthy>),
}

/// One reason a node is not healthy (docs/plugin.md, Healthy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unhealthy {
    NodeNotReady,
    PodBeingDeleted { pod: String },
    PodNotReady { pod: String },
    GenerationNotObserved { generation: i64, observed: i64 },
    LiveConfigNotApplied,
}

/// What a piece of evidence found (the document's `message`). Its words
/// are in `render/words/evidence.rs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// A container waiting for one of the failure reasons
    /// (CrashLoopBackOff, ImagePullBackOff...), as the kubelet spells it.
    ContainerWaiting {
        pod: String,
        container: String,
        reason: String,
        restarts: i32,
    },
    OomKilled {
        pod: String,
        container: String,
        restarts: i32,
    },
    /// Restarting while Running; its last exit code and reason as
    /// `lastState.terminated` gives them.
    RestartLoop {
        pod: String,
        container: String,
        restarts: i32,
        last_exit: Option<(i32, Option<String>)>,
    },
    Unschedulable {
        pod: String,
        for_seconds: Seconds,
        message: Option<String>,
    },
    /// A StatefulSet pod not Ready on a revision other than the update
    /// revision (the OrderedReady trap).
    SupersededPod {
        pod: String,
        not_ready_for: Seconds,
        pod_revision: String,
        update_revision: String,
    },
    ProgressDeadlineExceeded {
        deployment: String,
        message: Option<String>,
    },
    HeldOverThreshold {
        held: Seconds,
        threshold: Seconds,
    },
    /// Rolled and Ready (for `ready_for`; None: since an unknown time),
    /// the permit still held.
    NotReleased {
        ready_for: Option<Seconds>,
        held: Seconds,
        threshold: Seconds,
    },
}

/// How long a holder has held, and how that is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hold {
    /// None: the grant time is unknown.
    pub seconds: Option<Seconds>,
    pub source: GrantSource,
}

/// A P1 holder whose permit is for another revision than it asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stale {
    pub holder: String,
    pub permit: String,
    pub asks_for: String,
    pub hold: Hold,
}

/// Why the ValkeyCluster says its roll is not done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotDone {
    /// Its Ready condition is for an older generation than its spec's.
    OldGeneration { observed: i64, generation: i64 },
    /// Its Ready condition is not True.
    NotReady {
        status: String,
        reason: Option<String>,
    },
}

/// The controller keeps trying to fail over the primary at the front.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failover {
    pub primary: String,
    /// How often a failover was initiated.
    pub initiated: u32,
    /// The reason of the newest failover event, and how long ago it was.
    pub last: String,
    pub last_ago: Option<Seconds>,
}

/// What keeps an unfinished roll with no holder from being done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unfinished {
    /// The walk's front asks for a permit.
    FrontAsks {
        front: String,
    },
    /// The walk's front asks, and it is its shard's primary; the servers
    /// were not read.
    PrimaryTurn(PrimaryTurn),
    /// The walk's front is not healthy.
    FrontUnhealthy {
        front: String,
        why: Sickness,
    },
    ClusterNotDone(NotDone),
    /// The cluster is being created: fewer nodes than its spec asks for.
    Creating(Creating),
    /// The operator holds the front's roll back (its RollDeferred).
    Deferred(Deferred),
    Unknown,
}

/// The walk's front is its shard's primary, it asks, and the servers were
/// not read: before rolling a primary the operator waits for a synced
/// replica of its shard and fails the primary over to it (c33988f,
/// internal/valkey/clusterstate.go), and only the servers tell which of
/// the two it is at (docs/servers.md, "Without the servers").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrimaryTurn {
    pub front: String,
    pub shard: Option<u32>,
}

/// A cluster that has fewer cluster-owned nodes than its spec asks for,
/// while it is not Ready for its generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Creating {
    pub have: usize,
    pub want: usize,
}

/// A primary whose roll the operator holds back (a later operator's
/// `RollDeferred` condition or event: "Roll of shard N primary NODE
/// deferred: CAUSE").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deferred {
    pub shard: Option<u32>,
    /// The primary held back; None when the message does not name one.
    pub primary: Option<String>,
    /// The operator's words after "deferred:" (the whole message when it
    /// has another form); empty when the servers tell it.
    pub cause: String,
    /// How it is known.
    pub source: DeferredSource,
    /// Told by the servers: the shard's replicas, none synced.
    pub replicas: Vec<super::ReplicaLink>,
}

/// How a primary held back is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DeferredSource {
    /// The ValkeyCluster's RollDeferred condition.
    Condition,
    /// A RollDeferred event.
    Event,
    /// The servers: the front is a primary with no synced replica.
    Servers,
}

/// Nobody drives the roll: the node in flight whose status has not
/// followed its pod (or its new spec) for this long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Silence {
    pub node: String,
    pub quiet: Seconds,
    pub after: SilentAfter,
}

/// What the operator has not acted on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SilentAfter {
    /// The node's pod became Ready on its new revision.
    PodReady,
    /// The node was advanced (its new spec is not observed).
    Advanced,
    /// The operator marked the node not Ready as it applied its new spec,
    /// its pod Ready already, and has not followed since.
    Applied,
}

/// Why a Waiting cluster waits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitingFor {
    /// The front asks: the controller is due to grant it.
    Grant {
        front: String,
    },
    /// The front asks, and it is its shard's primary; the servers were not
    /// read.
    PrimaryTurn(PrimaryTurn),
    /// The front is not healthy, for these reasons.
    Health {
        front: String,
        because: Vec<Unhealthy>,
    },
    ClusterNotDone(NotDone),
    Creating(Creating),
    Deferred(Deferred),
    Unknown,
}

/// The cluster's reason: who, why, for how long. Its words (the sentence,
/// and the document's `reason`) are in `render/words/cluster.rs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterReason {
    /// More than one node holds or is in flight.
    Conflict {
        holders: Vec<String>,
        protocol: Protocol,
    },
    /// Jammed, or rolling until the node controller drops it.
    StalePermit {
        stale: Stale,
        jammed: bool,
    },
    /// Jammed: the holder has failure evidence.
    HolderFailing {
        holder: String,
        protocol: Protocol,
        finding: Finding,
        held: Option<Seconds>,
    },
    /// Jammed: the holder rolled and still holds the permit.
    HolderNotReleased {
        holder: String,
        rolled_for: Option<Seconds>,
        hold: Hold,
        threshold: Seconds,
    },
    /// Jammed: the holder has held over the threshold, not rolled.
    HolderHeldOver {
        holder: String,
        protocol: Protocol,
        held: Option<Seconds>,
        threshold: Seconds,
    },
    /// Jammed: nothing holds, and the walk's front fails.
    FrontFailing {
        front: String,
        finding: Option<Finding>,
        waiting: usize,
    },
    Jammed,
    /// The holder rolled; the controller has yet to release it.
    Settling {
        holder: String,
        hold: Hold,
        waiting: usize,
    },
    HolderRolling {
        holder: String,
        protocol: Protocol,
        hold: Hold,
        waiting: usize,
    },
    Rolling,
    Stalled {
        quiet: Option<Seconds>,
        what: Unfinished,
        failover: Option<Failover>,
    },
    Waiting {
        quiet: Option<Seconds>,
        waiting: usize,
        what: WaitingFor,
        failover: Option<Failover>,
    },
    Converged {
        total: usize,
    },
    /// The verdict's own reason, and that the operator is silent (the
    /// verdict stays what the nodes say).
    OperatorSilent {
        then: Box<ClusterReason>,
        silence: Silence,
    },
}

impl NodeReason {
    /// The same reason with its durations at zero.
    pub(super) fn timeless(&mut self) {
        match self {
            NodeReason::Failing(f) => f.timeless(),
            NodeReason::NotReleased { rolled_for, held } => {
                zero(rolled_for);
                *held = 0;
            }
            NodeReason::HeldOverThreshold { held, .. } => *held = 0,
            NodeReason::Blocking(s) => s.timeless(),
            _ => {}
        }
    }
}

impl Sickness {
    fn timeless(&mut self) {
        if let Sickness::Failing(f) = self {
            f.timeless();
        }
    }
}

impl Finding {
    /// The same finding with its durations at zero.
    pub(super) fn timeless(&mut self) {
        match self {
            Finding::Unschedulable { for_seconds, .. } => *for_seconds = 0,
            Finding::SupersededPod { not_ready_for, .. } => *not_ready_for = 0,
            Finding::HeldOverThreshold { held, .. } => *held = 0,
            Finding::NotReleased {
                ready_for, held, ..
            } => {
                zero(ready_for);
                *held = 0;
            }
            _ => {}
        }
    }
}

impl Hold {
    fn timeless(&mut self) {
        zero(&mut self.seconds);
    }
}

impl ClusterReason {
    /// The same reason with its durations at zero.
    pub(super) fn timeless(&mut self) {
        match self {
            ClusterReason::StalePermit { stale, .. } => stale.hold.timeless(),
            ClusterReason::HolderFailing { finding, held, .. } => {
                finding.timeless();
                zero(held);
            }
            ClusterReason::HolderNotReleased {
                rolled_for, hold, ..
            } => {
                zero(rolled_for);
                hold.timeless();
            }
            ClusterReason::HolderHeldOver { held, .. } => zero(held),
            ClusterReason::FrontFailing {
                finding: Some(f), ..
            } => f.timeless(),
            ClusterReason::Settling { hold, .. } | ClusterReason::HolderRolling { hold, .. } => {
                hold.timeless()
            }
            ClusterReason::Stalled {
                quiet,
                what,
                failover,
            } => {
                zero(quiet);
                if let Unfinished::FrontUnhealthy { why, .. } = what {
                    why.timeless();
                }
                if let Some(f) = failover {
                    zero(&mut f.last_ago);
                }
            }
            ClusterReason::Waiting {
                quiet, failover, ..
            } => {
                zero(quiet);
                if let Some(f) = failover {
                    zero(&mut f.last_ago);
                }
            }
            ClusterReason::OperatorSilent { then, silence } => {
                then.timeless();
                silence.quiet = 0;
            }
            _ => {}
        }
    }
}

fn zero(s: &mut Option<Seconds>) {
    if s.is_some() {
        *s = Some(0);
    }
}

/// Why a grant-time source gave no time (docs/protocol.md, "When did a permit
/// start?"): explain lists each as "not available".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// No granted-at trace annotation: not granted by hand with the plugin.
    NoTrace,
    /// The granted-at trace annotation does not parse as a time.
    TraceTimeInvalid { value: String },
    /// The trace speaks of another revision than the current permit.
    TraceForOtherRevision { revision: String, permit: String },
    /// The permit field is managed by others than the plugin.
    TraceNotOurs {
        protocol: Protocol,
        managers: Vec<String>,
    },
    /// No grant event (named by its reason) for the node.
    NoEvent { reason: String },
    /// The snapshot carries no managedFields.
    NoManagedFields,
    /// No managedFields entry owns the permit field.
    NoFieldOwner { protocol: Protocol },
    /// The entry owning the permit field has no time.
    OwnerWithoutTime { protocol: Protocol },
}

/// Why a node's own server did not settle its role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerNote {
    /// No reading of its pod.
    Missing,
    /// Its server could not be read (the reading's `error`).
    Unread { error: String },
    /// The reading is older than the newest API evidence about it.
    Stale {
        observed_at: jiff::Timestamp,
        evidence_at: jiff::Timestamp,
    },
    /// The reading is of another pod than the node's current one.
    OtherPod { pod: String },
    /// Its server is a primary with no place yet (another primary of its
    /// shard holds it): a fresh server, about to be made a replica.
    EmptyPrimary { primary: Option<String> },
}

/// Why a node's judged role is unsure, or unknown (the document's
/// `roleNote`). Times are when the evidence was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoleNote {
    /// More than one node of the shard claims `primary` and nothing newer
    /// picks one: these are the other claimants.
    Claimants { others: Vec<String> },
    /// Its shard's roles rest on status.role alone and none says primary.
    NoPrimaryClaimed,
    /// `status.role` says `status`, but a newer operator event promoted
    /// another pod of the shard (`ip`, at `at`).
    StatusContradicted {
        status: super::Role,
        ip: Option<String>,
        at: Option<jiff::Timestamp>,
    },
    /// A failover of its shard is under way: the role is about to change.
    FailoverUnderWay,
    /// A failover whose events do not name the promoted node made one of
    /// `candidates` the primary at `at`.
    PromotedOneOf {
        candidates: Vec<String>,
        at: Option<jiff::Timestamp>,
    },
    /// The shard's primary (by the events) had its pod replaced at `at`
    /// with no failover recorded since: which node took over is not in
    /// the objects.
    PrimaryReplaced {
        primary: String,
        at: Option<jiff::Timestamp>,
    },
    /// Its shard's primary `primary` was advanced at `at` (its spec's
    /// write) and has not applied it yet: a new template fails it over
    /// first, a live setting's change alone does not; which, its applying
    /// tells.
    AdvancedUnapplied {
        primary: String,
        at: Option<jiff::Timestamp>,
    },
    /// Its role rests on the walk: a failover written only as a repeat of
    /// an earlier event (events.k8s.io series) names no pod of this shard.
    FromTheWalk { at: Option<jiff::Timestamp> },
    /// Nothing in view tells its role (no `status.role`, no event).
    NoEvidence,
    /// Evidence newer than what its shard's primary was judged from
    /// contradicts it: every node of the shard may be the primary.
    Contradicted(Box<RoleContradicted>),
    /// The servers were read, but this node's reading does not count.
    Server(ServerNote),
}

/// A judged primary that newer evidence contradicts (docs/roles.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleContradicted {
    /// The node judged the shard's primary.
    pub primary: String,
    /// When the evidence it was judged from was written.
    pub judged_at: Option<jiff::Timestamp>,
    pub by: Contradiction,
}

/// What contradicted a judged primary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contradiction {
    /// The operator's status write on `node` said `role` (at the time of
    /// the write: its managedFields entry, whole seconds).
    Status {
        node: String,
        role: super::Role,
        at: Option<jiff::Timestamp>,
    },
    /// The ValkeyCluster went not Ready waiting for its replicas to sync
    /// with no roll in flight: a topology change nobody announced.
    Unsynced { at: Option<jiff::Timestamp> },
    /// The ValkeyCluster turned Ready again a moment ago with no roll in
    /// flight and nothing else to say why it had not been.
    ReadyAgain { at: Option<jiff::Timestamp> },
    /// The ValkeyCluster went not Ready before the roll in flight began
    /// (its spec edited later), for a reason the roll's own then replaced.
    NotReadyBeforeRoll { at: Option<jiff::Timestamp> },
}
