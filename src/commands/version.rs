//! `version` (not built yet).
use crate::error::Outcome;
pub fn run() -> Outcome {
    Outcome::ok(format!(
        "kubectl-valkey-roll {}\n",
        env!("CARGO_PKG_VERSION")
    ))
}
