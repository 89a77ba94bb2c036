//! kubectl-valkey-roll: reads and steers the staged roll of ValkeyClusters.
//!
//! Layers, each readable alone: [`cli`] parses arguments; [`source`] reads a
//! [`snapshot::Snapshot`] from a cluster or a file; [`classify`] turns it into
//! a [`report::Report`] (pure); [`steer`] plans (pure) and executes writes;
//! [`render`] turns reports and plans into text ([`shell`] quotes the
//! commands it prints; [`units`] the short forms of durations and hashes
//! that every layer spells alike; [`names`] the nearest names, for "did
//! you mean"); [`commands`] holds one
//! module per command and [`app`] dispatches to them; [`verbose`] writes
//! kubectl's `-v` lines.
pub mod app;
pub mod classify;
pub mod cli;
pub mod commands;
pub mod error;
/// Builders of realistic objects and reports for tests and the bench
/// (the `fixture` feature, never in a release build).
#[cfg(any(test, feature = "fixture"))]
pub mod fixture;
pub mod names;
pub mod render;
pub mod report;
pub mod shell;
pub mod snapshot;
pub mod source;
pub mod steer;
pub mod units;
pub mod verbose;
