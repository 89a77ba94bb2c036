//! The words for a holder of a permit, as refusals, warnings and
//! confirmations name it.

use crate::report::Protocol;
use crate::steer::plan::HolderInfo;
use crate::units::{human, short_hash};
use std::fmt::Write;

/// `cache-1-1 (Stuck, permit 9f2c41ab03de, held 14m)`
pub(crate) fn holder(h: &HolderInfo) -> String {
    holder_in(h, Protocol::P1)
}

/// [`holder`] in the protocol's words: P2's `cache-1-0 (Stuck, revision
/// f621e4dee7fb, advanced 14m ago)`.
pub(crate) fn holder_in(h: &HolderInfo, protocol: Protocol) -> String {
    if protocol == Protocol::P2 {
        let mut s = format!("{} ({}", h.node, h.state);
        if let Some(p) = &h.permit {
            let _ = write!(s, ", revision {}", short_hash(p));
        }
        match h.held_for_seconds {
            Some(secs) => {
                let _ = write!(s, ", advanced {} ago)", human(secs));
            }
            None => s.push_str(", advanced at an unknown time)"),
        }
        return s;
    }
    let mut s = format!("{} ({}", h.node, h.state);
    if let Some(p) = &h.permit {
        let _ = write!(s, ", permit {}", short_hash(p));
    }
    match h.held_for_seconds {
        Some(secs) => {
            let _ = write!(s, ", held {})", human(secs));
        }
        None => s.push_str(", held for an unknown time)"),
    }
    s
}
