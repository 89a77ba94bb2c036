//! The cluster's reason sentence: who, why, for how long.

use super::evidence::joined;
use super::{Phrase, Short, and_waiting, nodes};
use crate::render::style::clean;
use crate::report::{
    ClusterReason, Creating, Deferred, DeferredSource, Failover, FailoverUnderWay, Hold, NotDone,
    PendingScale, PrimaryTurn, Protocol, ReplicaLink, Risk, RiskKind, ServerNote, Silence,
    SilentAfter, Stale, Unfinished, UnplannedFailover, WaitingFor,
};
use crate::snapshot::LinkStatus;
use crate::units::{human, human_or, short_hash};
use std::fmt;

/// The protocol's words for a holder: P1's permit is held; in P2 the
/// cluster controller advanced the node's spec.workloadRevision and the
/// node is in flight (the operator's own word), so nothing "holds".
#[derive(Clone, Copy)]
struct Words {
    p2: bool,
}

impl Words {
    fn of(protocol: Protocol) -> Self {
        Words {
            p2: protocol == Protocol::P2,
        }
    }
    /// `holds the permit` / `is in flight`.
    fn holds(self) -> &'static str {
        if self.p2 {
            "is in flight"
        } else {
            "holds the permit"
        }
    }
    /// `hold a permit at once` / `are in flight at once`.
    fn hold_at_once(self) -> &'static str {
        if self.p2 {
            "are in flight at once"
        } else {
            "hold a permit at once"
        }
    }
    /// `held 14m (event)` / `advanced 14m ago (event)`, or unknown.
    fn held(self, hold: &Hold) -> String {
        match (hold.seconds, self.p2) {
            (Some(d), false) => format!("held {} ({})", human(d), hold.source),
            (Some(d), true) => format!("advanced {} ago ({})", human(d), hold.source),
            (None, false) => "held for an unknown time".to_string(),
            (None, true) => "advanced at an unknown time".to_string(),
        }
    }
}

/// `held 14m (event)` or `held for an unknown time` (P1's words: a stale
/// permit and a permit not released are P1's).
fn held(hold: &Hold) -> String {
    Words::of(Protocol::P1).held(hold)
}

/// `for 14m`, or `(held for an unknown time)`.
fn for_how_long(held: Option<u64>) -> String {
    held.map(|d| format!("for {}", human(d)))
        .unwrap_or_else(|| "(held for an unknown time)".to_string())
}

/// `cache-1-1 holds a stale permit 9f2c… while it asks for 41ab…, held 3m (event)`.
impl fmt::Display for Stale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} holds a stale permit {} while it asks for {}, {}",
            self.holder,
            short_hash(&self.permit),
            short_hash(&self.asks_for),
            held(&self.hold)
        )
    }
}

impl fmt::Display for NotDone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotDone::OldGeneration {
                observed,
                generation,
            } => write!(
                f,
                "its Ready condition is for generation {observed}, the spec is at generation {generation}"
            ),
            NotDone::NotReady { status, reason } => {
                write!(f, "Ready={status}")?;
                match reason {
                    Some(r) => write!(f, ", reason {r}"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl fmt::Display for Failover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ago = self
            .last_ago
            .map(|d| format!(" {} ago", human(d)))
            .unwrap_or_default();
        write!(
            f,
            "the controller is trying to fail over the primary {} (initiated {} {}, last {}{ago})",
            self.primary,
            self.initiated,
            if self.initiated == 1 { "time" } else { "times" },
            self.last
        )
    }
}

/// `failing over shard 1: cache-1-1 -> cache-1-0, 2s`.
impl fmt::Display for FailoverUnderWay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("failing over ")?;
        match self.shard {
            Some(s) => write!(f, "shard {s}")?,
            None => f.write_str("a shard")?,
        }
        let node = |n: &Option<String>| n.clone().unwrap_or_else(|| "?".to_string());
        if self.from.is_some() || self.to.is_some() {
            write!(f, ": {} -> {}", node(&self.from), node(&self.to))?;
        }
        write!(f, ", {}", human(self.for_seconds))
    }
}

/// `shard 1 has no Ready replica (cache-1-1 is its primary), 12s`.
impl fmt::Display for Risk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            RiskKind::NoReadyReplica => write!(f, "shard {} has no Ready replica", self.shard)?,
            RiskKind::NoSyncedReplica => {
                write!(f, "shard {} has no synced replica", self.shard)?;
                if let Some(p) = &self.primary {
                    write!(f, " ({p} is its primary")?;
                    for r in self.replicas.iter().flatten() {
                        write!(f, "; {}", ReplicaSaid(r, false))?;
                    }
                    f.write_str(")")?;
                }
                return Ok(());
            }
            RiskKind::ClusterStateFail => {
                return match &self.primary {
                    Some(p) => write!(
                        f,
                        "{p}'s server says the cluster state is not ok: slots go unserved"
                    ),
                    None => f.write_str("a server says the cluster state is not ok"),
                };
            }
        }
        if let Some(p) = &self.primary {
            write!(f, " ({p} is its primary)")?;
        }
        match self.for_seconds {
            Some(s) => write!(f, ", {}", human(s)),
            None => Ok(()),
        }
    }
}

/// `cache-1-1 is shard 1's primary by its server, not cache-1-0: a
/// failover the operator did not make`.
impl fmt::Display for UnplannedFailover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is shard {}'s primary by its server",
            self.to, self.shard
        )?;
        if let Some(from) = &self.from {
            write!(f, ", not {from}")?;
        }
        f.write_str(": a failover the operator did not make")
    }
}

/// The REASON of a timeline entry for a failover the operator did not
/// make: no event tells it, the servers do.
pub(crate) const UNPLANNED_REASON: &str = "UnplannedFailover";

/// A failover the operator did not make as a timeline entry, at the time
/// its server said so (it happened at that time or before): `cache-1-1 is
/// shard 1's primary by its server, not cache-1-0: a failover the operator
/// did not make, seen when its server was read`, about the new primary.
pub(crate) fn unplanned_entry(u: &UnplannedFailover) -> crate::report::TimelineEntry {
    crate::report::TimelineEntry {
        time: Some(u.seen_at),
        reason: UNPLANNED_REASON.to_string(),
        message: format!("{u}, seen when its server was read"),
        regarding: format!("ValkeyNode/{}", u.to),
        count: None,
        addresses: std::collections::BTreeMap::new(),
    }
}

/// `scale-out to 4 shards waits for the roll`.
impl fmt::Display for PendingScale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut what = Vec::new();
        if let Some(s) = self.shards {
            what.push(format!("{s} {}", if s == 1 { "shard" } else { "shards" }));
        }
        if let Some(r) = self.replicas {
            what.push(format!(
                "{r} {} a shard",
                if r == 1 { "replica" } else { "replicas" }
            ));
        }
        if what.is_empty() {
            f.write_str("a scale-out waits for the roll")
        } else {
            write!(f, "scale-out to {} waits for the roll", what.join(" and "))
        }
    }
}

/// `creating: 2 of 6 nodes`.
impl fmt::Display for Creating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "creating: {} of {}", self.have, nodes(self.want))
    }
}

/// One replica's link as its server says it: `cache-1-1 link down for
/// 3m`, `cache-1-1 syncing`, `cache-1-1 link up, flagged fail?`,
/// `cache-1-1 not read (timed out)`, `cache-1-1 not linked` (its server
/// read, and no replica). `short`: without the node's name.
pub(crate) struct ReplicaSaid<'r>(pub &'r ReplicaLink, pub bool);

impl fmt::Display for ReplicaSaid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ReplicaSaid(r, short) = *self;
        if !short {
            write!(f, "{} ", r.node)?;
        }
        match (r.link, r.syncing, &r.unread) {
            (_, Some(true), _) => f.write_str("syncing"),
            (Some(LinkStatus::Up), _, _) => match &r.flagged {
                Some(flag) => write!(f, "link up, flagged {}", clean(flag)),
                None => f.write_str("link up, flagged failing"),
            },
            (Some(LinkStatus::Down), _, _) => match r.down_for {
                Some(d) => write!(f, "link down for {}", human(d)),
                None => f.write_str("link down"),
            },
            (None, _, Some(ServerNote::Unread { error })) if !error.is_empty() => {
                write!(f, "not read ({})", clean(error))
            }
            (None, _, Some(ServerNote::EmptyPrimary { .. })) => {
                f.write_str("a fresh primary, not placed yet")
            }
            (None, _, Some(ServerNote::Stale { .. })) => f.write_str("its reading is stale"),
            (None, _, Some(ServerNote::Missing | ServerNote::OtherPod { .. })) => {
                f.write_str("not read")
            }
            (None, _, _) => f.write_str("not linked"),
        }
    }
}

/// The cause of a primary held back: the operator's words, or what the
/// servers say (`waits for cache-1-1 to sync with cache-1-0: link down
/// for 3m`).
struct Cause<'d>(&'d Deferred);

impl fmt::Display for Cause<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        if d.source != DeferredSource::Servers {
            return f.write_str(&d.cause);
        }
        let primary = d.primary.as_deref().unwrap_or("its primary");
        match d.replicas.as_slice() {
            [one] => write!(
                f,
                "waits for {} to sync with {primary}: {}",
                one.node,
                ReplicaSaid(one, true)
            ),
            many => {
                write!(f, "waits for a replica to sync with {primary}:")?;
                for (i, r) in many.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{}", ReplicaSaid(r, false))?;
                }
                Ok(())
            }
        }
    }
}

/// The document's `deferred`: `{"node", "shard", "cause", "source"}`.
impl serde::Serialize for Deferred {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("Deferred", 4)?;
        out.serialize_field("node", &self.primary)?;
        out.serialize_field("shard", &self.shard)?;
        out.serialize_field("cause", &Cause(self).to_string())?;
        out.serialize_field("source", &self.source)?;
        out.end()
    }
}

/// `the operator holds back shard 1's primary cache-1-0: primary has no
/// synced replicas`; by the servers, `the operator holds back shard 1's
/// primary cache-1-0: it waits for cache-1-1 to sync (link down for 3m)`.
impl fmt::Display for Deferred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the operator holds back ")?;
        match (self.shard, &self.primary) {
            (Some(s), Some(p)) => write!(f, "shard {s}'s primary {p}")?,
            (None, Some(p)) => write!(f, "the primary {p}")?,
            (Some(s), None) => write!(f, "shard {s}'s primary")?,
            (None, None) => f.write_str("a primary")?,
        }
        if self.source == DeferredSource::Servers {
            return match self.replicas.as_slice() {
                [one] => write!(
                    f,
                    ": it waits for {} to sync ({})",
                    one.node,
                    ReplicaSaid(one, true)
                ),
                _ => write!(f, ": it {}", Cause(self)),
            };
        }
        write!(f, ": {}", self.cause)
    }
}

/// `the operator has not acted on cache-1-0 for 53s since its pod became
/// Ready: is it running?`.
impl fmt::Display for Silence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.after {
            SilentAfter::PodReady => "since its pod became Ready",
            SilentAfter::Advanced => "since it was advanced",
            SilentAfter::Applied => "since it applied its new spec",
        };
        write!(
            f,
            "the operator has not acted on {} for {} {what}: is it running?",
            self.node,
            human(self.quiet)
        )
    }
}

/// What else the person on call should know about the cluster right now,
/// beyond its verdict: a failover under way, shards at risk, a scale that
/// waits. The headline's second line and explain say them.
pub(crate) fn asides(c: &crate::report::ClusterReport) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(f) = &c.failover {
        out.push(f.to_string());
    }
    out.extend(c.unplanned.iter().map(ToString::to_string));
    // A shard the servers say has no synced replica is said once, by
    // them: its Ready replicas (if any) are beside the point.
    let unsynced = |shard: u32| {
        c.risks
            .iter()
            .any(|r| r.kind == RiskKind::NoSyncedReplica && r.shard == shard)
    };
    out.extend(
        c.risks
            .iter()
            .filter(|r| !(r.kind == RiskKind::NoReadyReplica && unsynced(r.shard)))
            .map(ToString::to_string),
    );
    if let Some(s) = &c.pending_scale {
        out.push(s.to_string());
    }
    out
}

impl fmt::Display for Unfinished {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unfinished::FrontAsks { front } => {
                write!(f, "the walk's front {front} asks for a permit")
            }
            Unfinished::PrimaryTurn(p) => {
                write!(f, "the walk's front {} asks for a permit", p.front)
            }
            Unfinished::FrontUnhealthy { front, why } => {
                write!(f, "the walk's front {front} is not healthy ({why})")
            }
            Unfinished::ClusterNotDone(why) => {
                write!(f, "the ValkeyCluster reports it is not done ({why})")
            }
            Unfinished::Creating(c) => write!(f, "{c}"),
            Unfinished::Deferred(d) => write!(f, "{d}"),
            Unfinished::Unknown => f.write_str("the roll is unfinished"),
        }
    }
}

/// " of shard N", when the shard is known.
fn of_shard(p: &PrimaryTurn) -> String {
    p.shard
        .map(|n| format!(" of shard {n}"))
        .unwrap_or_default()
}

/// Where to look: only the servers tell which of its steps the operator
/// is at before it rolls a primary.
const READ_THE_SERVERS: &str = "explain reads the servers to tell which";

/// The Waiting verdict's sentence: who is next, or why nothing is.
fn waiting_for(what: &WaitingFor, waiting: usize, quiet: &str) -> String {
    match what {
        WaitingFor::Grant { front } => {
            format!("a grant is due: {front} is next ({waiting} waiting, quiet for {quiet})")
        }
        WaitingFor::PrimaryTurn(p) => format!(
            "a grant is due: {} is next ({waiting} waiting, quiet for {quiet}); a primary: \
             the controller first waits for a replica{} to sync, then fails it over \
             ({READ_THE_SERVERS})",
            p.front,
            of_shard(p)
        ),
        WaitingFor::Health { front, because } => format!(
            "the controller waits for {front} to become healthy ({}){}, quiet for {quiet}",
            joined(because),
            and_waiting(waiting)
        ),
        WaitingFor::ClusterNotDone(why) => {
            format!("the ValkeyCluster reports it is not done ({why}), quiet for {quiet}")
        }
        WaitingFor::Creating(c) => format!("{c}, quiet for {quiet}"),
        WaitingFor::Deferred(d) => format!("{d}{}, quiet for {quiet}", and_waiting(waiting)),
        WaitingFor::Unknown => "waiting".to_string(),
    }
}

impl fmt::Display for ClusterReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterReason::Conflict { holders, protocol } => write!(
                f,
                "{} {} ({}): the one-at-a-time rule is broken",
                nodes(holders.len()),
                Words::of(*protocol).hold_at_once(),
                holders.join(", ")
            ),
            ClusterReason::StalePermit {
                stale,
                jammed: true,
            } => write!(f, "{stale}"),
            ClusterReason::StalePermit {
                stale,
                jammed: false,
            } => write!(f, "{stale}; the node controller drops it when it runs"),
            ClusterReason::HolderFailing {
                holder,
                protocol,
                finding,
                held,
            } => write!(
                f,
                "{holder} {} and {} {}",
                Words::of(*protocol).holds(),
                Phrase(finding),
                for_how_long(*held)
            ),
            ClusterReason::HolderNotReleased {
                holder,
                rolled_for: Some(d),
                threshold,
                ..
            } => write!(
                f,
                "{holder} finished rolling {} ago but still holds the permit (stall threshold {})",
                human(*d),
                human(*threshold)
            ),
            ClusterReason::HolderNotReleased {
                holder,
                rolled_for: None,
                hold,
                ..
            } => write!(
                f,
                "{holder} finished rolling but still holds the permit, {}",
                held(hold)
            ),
            ClusterReason::HolderHeldOver {
                holder,
                protocol,
                held,
                threshold,
            } => write!(
                f,
                "{holder} {} and has not finished rolling {} (stall threshold {})",
                Words::of(*protocol).holds(),
                for_how_long(*held),
                human(*threshold)
            ),
            ClusterReason::FrontFailing {
                front,
                finding,
                waiting,
            } => {
                write!(
                    f,
                    "no node holds a permit; the walk's front {front} is not healthy: "
                )?;
                if let Some(finding) = finding {
                    write!(f, "{}", Short(finding))?;
                }
                f.write_str(&and_waiting(*waiting))
            }
            ClusterReason::Jammed => f.write_str("jammed"),
            ClusterReason::Settling {
                holder,
                hold,
                waiting,
            } => write!(
                f,
                "{holder} has rolled, {}; the controller has yet to release its permit{}",
                held(hold),
                and_waiting(*waiting)
            ),
            ClusterReason::HolderRolling {
                holder,
                protocol,
                hold,
                waiting,
            } => write!(
                f,
                "{holder} is rolling, {}{}",
                Words::of(*protocol).held(hold),
                and_waiting(*waiting)
            ),
            ClusterReason::Rolling => f.write_str("rolling"),
            ClusterReason::Stalled {
                quiet,
                what,
                failover,
            } => {
                write!(
                    f,
                    "nothing has moved for {}: {what}; ",
                    human_or(*quiet, "0s")
                )?;
                match (failover, what) {
                    (Some(failover), _) => write!(f, "{failover}"),
                    // The operator said why: nothing to guess.
                    (None, Unfinished::Deferred(_)) => f.write_str("it waits for the cause to clear"),
                    (None, Unfinished::PrimaryTurn(p)) => write!(
                        f,
                        "the controller may be down, or waiting for a replica{} to sync before \
                         it fails {} over ({READ_THE_SERVERS})",
                        of_shard(p),
                        p.front
                    ),
                    (None, _) => f.write_str(
                        "the controller may be down, or deferring a primary without a synced replica",
                    ),
                }
            }
            ClusterReason::Waiting {
                quiet,
                waiting,
                what,
                failover,
            } => {
                f.write_str(&waiting_for(what, *waiting, &human_or(*quiet, "0s")))?;
                match failover {
                    Some(failover) => write!(f, "; {failover}"),
                    None => Ok(()),
                }
            }
            ClusterReason::Converged { total: 0 } => f.write_str("no ValkeyNodes in view"),
            ClusterReason::Converged { total } => {
                write!(f, "all {} rolled and healthy", nodes(*total))
            }
            ClusterReason::OperatorSilent { then, silence } => write!(f, "{then}; {silence}"),
        }
    }
}

/// The cluster's reason in its protocol's words, for text output: P2
/// holds no permit (a node is advanced, then in flight), so the P1 words
/// of the reasons that carry no protocol are said in P2's. The document
/// keeps [`ClusterReason`]'s own words. (Added by issue 21 beside the
/// words it rewrites; a reason that comes to carry its protocol can say
/// it itself, and its pair goes from here.)
pub(crate) struct ClusterSaid<'a>(pub &'a ClusterReason, pub Protocol);

/// P1's phrase, and P2's for the same fact.
const IN_P2: &[(&str, &str)] = &[
    ("asks for a permit", "asks to be advanced"),
    ("no node holds a permit", "no node is in flight"),
    ("a grant is due", "an advance is due"),
    (
        "but still holds the permit",
        "but still counts as in flight",
    ),
    (
        "the controller has yet to release its permit",
        "the controller has yet to see it done",
    ),
    (
        "(held for an unknown time)",
        "(in flight for an unknown time)",
    ),
];

impl fmt::Display for ClusterSaid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = self.0.to_string();
        if self.1 == Protocol::P2 {
            for (p1, p2) in IN_P2 {
                text = text.replace(p1, p2);
            }
        }
        f.write_str(&text)
    }
}

#[cfg(test)]
mod said_tests {
    use super::*;

    #[test]
    fn p2_reasons_hold_no_permit() {
        let stalled = ClusterReason::Stalled {
            quiet: Some(900),
            what: Unfinished::FrontAsks {
                front: "cache-0-1".into(),
            },
            failover: None,
        };
        let failing = ClusterReason::FrontFailing {
            front: "cache-0-1".into(),
            finding: None,
            waiting: 2,
        };
        for reason in [stalled, failing] {
            let p1 = ClusterSaid(&reason, Protocol::P1).to_string();
            assert!(p1.contains("permit"), "{p1}");
            assert_eq!(p1, reason.to_string());
            let p2 = ClusterSaid(&reason, Protocol::P2).to_string();
            for word in ["permit", "grant", "held", "holds"] {
                assert!(!p2.contains(word), "{word} in {p2}");
            }
        }
    }
}
