//! Why a grant-time source gave no time.

use crate::report::{Protocol, Unavailable};
use crate::snapshot::keys;
use std::fmt;

/// The permit field, as a person names it: P2's spec field, P1's
/// annotation.
fn permit_field(protocol: Protocol) -> String {
    match protocol {
        Protocol::P2 => "spec.workloadRevision".to_string(),
        Protocol::P1 | Protocol::Unknown => format!("the {} annotation", keys::ANN_PERMIT),
    }
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::NoTrace => write!(
                f,
                "no {} annotation (the permit was not granted by hand with this plugin)",
                keys::ANN_GRANTED_AT
            ),
            Unavailable::TraceTimeInvalid { value } => {
                write!(f, "{} is not an RFC 3339 time: {value:?}", keys::ANN_GRANTED_AT)
            }
            Unavailable::TraceForOtherRevision { revision, permit } => write!(
                f,
                "trace annotations are stale: {} {revision:?} is not the current permit {permit:?}",
                keys::ANN_GRANTED_REVISION
            ),
            Unavailable::TraceNotOurs { protocol, managers } => write!(
                f,
                "trace annotations are stale: {} is managed by {}, not {}",
                permit_field(*protocol),
                managers.join(", "),
                keys::FIELD_MANAGER
            ),
            Unavailable::NoEvent { reason } => write!(
                f,
                "no {reason} event for this node (events expire after an hour by default)"
            ),
            Unavailable::NoManagedFields => f.write_str(
                "no managedFields in this snapshot (kubectl get -o yaml drops them unless --show-managed-fields)",
            ),
            Unavailable::NoFieldOwner { protocol } => {
                write!(f, "no managedFields entry owns {}", permit_field(*protocol))
            }
            Unavailable::OwnerWithoutTime { protocol } => write!(
                f,
                "the managedFields entry owning {} has no time",
                permit_field(*protocol)
            ),
        }
    }
}

/// Why a grant-time source gave no time, in the words of the cluster's
/// protocol: in P2 nothing is granted a permit, a node's
/// spec.workloadRevision is advanced.
pub(crate) struct Unheard<'a>(pub &'a Unavailable, pub Protocol);

impl fmt::Display for Unheard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0, self.1) {
            (Unavailable::NoTrace, Protocol::P2) => write!(
                f,
                "no {} annotation (its spec.workloadRevision was not advanced by hand with this plugin)",
                keys::ANN_GRANTED_AT
            ),
            (Unavailable::TraceForOtherRevision { revision, permit }, Protocol::P2) => write!(
                f,
                "trace annotations are stale: {} {revision:?} is not the current spec.workloadRevision {permit:?}",
                keys::ANN_GRANTED_REVISION
            ),
            (other, _) => fmt::Display::fmt(other, f),
        }
    }
}
