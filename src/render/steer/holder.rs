//! The words for a holder of a permit, as refusals, warnings and
//! confirmations name it.

use crate::steer::plan::HolderInfo;
use crate::units::{human, short_hash};
use std::fmt::Write;

/// `cache-1-1 (Stuck, permit 9f2c41ab03de, held 14m)`
pub fn holder(h: &HolderInfo) -> String {
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
