//! Why a judged role is unsure or unknown (the document's `roleNote`).

use crate::report::{Contradiction, RoleNote, RoleSource, ServerNote};
use crate::units;
use std::fmt;

/// A time of day as the notes give it (`10:02:11`), or "an unknown time".
fn at(t: &Option<jiff::Timestamp>) -> String {
    t.map_or_else(|| "an unknown time".to_string(), units::timestamp)
}

impl fmt::Display for RoleNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoleNote::Claimants { others } => write!(
                f,
                "status.role says primary, as it does for {}; nothing newer picks one",
                others.join(", ")
            ),
            RoleNote::StatusContradicted { status, ip, at: t } => match ip {
                Some(ip) => write!(
                    f,
                    "status.role says {status}, but {ip} was promoted at {}",
                    at(t)
                ),
                None => write!(
                    f,
                    "status.role says {status}, but its shard failed over at {}",
                    at(t)
                ),
            },
            RoleNote::FailoverUnderWay => f.write_str("a failover of its shard is under way"),
            RoleNote::PromotedOneOf { candidates, at: t } => write!(
                f,
                "one of {} was promoted at {}; the events do not say which",
                candidates.join(", "),
                at(t)
            ),
            RoleNote::PrimaryReplaced { primary, at: t } => write!(
                f,
                "the primary {primary}'s pod was replaced at {} with no failover recorded",
                at(t)
            ),
            RoleNote::AdvancedUnapplied { primary, at: t } => write!(
                f,
                "its shard's primary {primary} was advanced at {} and has not applied it \
                 yet: a new template fails it over first, a live setting alone does not",
                at(t)
            ),
            RoleNote::FromTheWalk { at: t } => write!(
                f,
                "taken from the walk: the failover at {} is written as a repeat of an earlier event",
                at(t)
            ),
            RoleNote::NoPrimaryClaimed => {
                f.write_str("no node of its shard says primary in status.role, yet one of them is")
            }
            RoleNote::NoEvidence => f.write_str("no status.role and no operator event about it"),
            RoleNote::Contradicted(c) => {
                write!(
                    f,
                    "{} was judged primary at {}, but ",
                    c.primary,
                    at(&c.judged_at)
                )?;
                match &c.by {
                    Contradiction::Status { node, role, at: t } if *node == c.primary => {
                        write!(f, "its own status.role says {role}, written at {}", at(t))
                    }
                    Contradiction::Status { node, role, at: t } => {
                        write!(f, "status.role of {node} says {role}, written at {}", at(t))
                    }
                    Contradiction::Unsynced { at: t } => write!(
                        f,
                        "the cluster went not Ready at {} waiting for replicas to sync, \
                         with no roll under way",
                        at(t)
                    ),
                    Contradiction::ReadyAgain { at: t } => write!(
                        f,
                        "the cluster turned Ready again at {} with no roll under way \
                         and no role re-read since",
                        at(t)
                    ),
                    Contradiction::NotReadyBeforeRoll { at: t } => write!(
                        f,
                        "the cluster went not Ready at {}, before the roll began, \
                         for a reason its status no longer shows",
                        at(t)
                    ),
                }
            }
            RoleNote::Server(note) => write!(f, "{note}"),
        }
    }
}

/// Why a node's own server did not settle its role.
impl fmt::Display for ServerNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerNote::Missing => f.write_str("the servers were read, but not its own"),
            ServerNote::Unread { error } if error.is_empty() => {
                f.write_str("its server's answer names no role")
            }
            ServerNote::Unread { error } => write!(
                f,
                "its server could not be read: {}",
                crate::render::style::clean(error)
            ),
            ServerNote::Stale {
                observed_at,
                evidence_at,
            } => write!(
                f,
                "its server's reading at {} is older than the API's word at {}",
                units::timestamp(*observed_at),
                units::timestamp(*evidence_at)
            ),
            ServerNote::OtherPod { pod } => write!(
                f,
                "the reading is of pod {}, not its current one",
                crate::render::style::clean(pod)
            ),
            ServerNote::EmptyPrimary { primary } => match primary {
                Some(p) => write!(
                    f,
                    "its server is a primary in {p}'s shard: a fresh one, not placed yet"
                ),
                None => f.write_str("its server is a fresh primary, not placed yet"),
            },
        }
    }
}

/// The ROLE column: the judged role, `?` after one the evidence does not
/// settle, `?` alone for an unknown role with a note, `-` for none.
/// Where a judged role came from, as explain's `role` row says it
/// (docs/roles.md's table, `roleSource`).
pub(crate) fn role_source(source: RoleSource) -> &'static str {
    match source {
        RoleSource::Annotation => "its valkey.io/observed-role annotation",
        RoleSource::Event => "the operator's events",
        RoleSource::Status => "its status.role",
        RoleSource::Inferred => "the roll's steps (inferred)",
        RoleSource::Server => "its own server",
    }
}

/// explain NODE's `role` row: the judged role, where it came from, and
/// the note when the evidence does not settle it (the `?` of the table,
/// said in words): `primary? (from its status.role): one of ...`. A role
/// from the status of an operator that writes it live (#320,
/// `status_role_live`) says so: that is why it is trusted.
pub(crate) fn role_row(n: &crate::report::NodeReport, status_role_live: bool) -> String {
    let role = match n.role {
        Some(_) => role_cell(n),
        None => "unknown".to_string(),
    };
    let from = match n.role_source {
        Some(RoleSource::Status) if status_role_live => {
            " (from its status.role, which this operator writes live)".to_string()
        }
        Some(s) => format!(" (from {})", role_source(s)),
        None => String::new(),
    };
    match &n.role_note {
        Some(note) => format!("{role}{from}: {note}"),
        None => format!("{role}{from}"),
    }
}

pub(crate) fn role_cell(n: &crate::report::NodeReport) -> String {
    role_mark(n.role, n.role_unsure())
}

/// A judged role as a table cell shows it: `primary`, `replica?` (unsure),
/// `?` (unknown, and said why) or `-` (unknown).
pub(crate) fn role_mark(role: Option<crate::report::Role>, unsure: bool) -> String {
    match (role, unsure) {
        (Some(r), false) => r.to_string(),
        (Some(r), true) => format!("{r}?"),
        (None, true) => "?".to_string(),
        (None, false) => "-".to_string(),
    }
}
