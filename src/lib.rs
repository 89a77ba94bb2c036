//! kubectl-valkey-roll: reads and steers the staged roll of ValkeyClusters.
//!
//! Layers, each readable alone: [`cli`] parses arguments; [`source`] reads a
//! [`snapshot::Snapshot`] from a cluster or a file; [`classify`] turns it into
//! a [`report::Report`] (pure); `steer` plans (pure) and executes writes;
//! [`render`] turns reports and plans into text (`shell` quotes the
//! commands it prints; `units` the short forms of durations and hashes
//! that every layer spells alike; `names` the nearest names, for "did
//! you mean"); [`commands`] holds one
//! module per command and [`app`] dispatches to them; `verbose` writes
//! kubectl's `-v` lines.
//!
//! The surface outside the crate is what the binaries, tests/ and the
//! benches use; everything else is `pub(crate)` (CONTRIBUTING.md):
//! - the binaries: `app::main`;
//! - tests/ (and the fuzz targets in tests/fuzz): `classify::classify`,
//!   `cli::Cli` with its argument types (parsed, then `validate`d),
//!   `commands::completion` (`SHELLS`, `script_file_name`),
//!   `render::json` (`to_json`, `to_yaml`), `render::table`
//!   (`status_table`, `TableOptions`), `source::file` (`parse_snapshot`,
//!   and `read_snapshot` with what it returns, `FileSnapshot`, `Duplicate`),
//!   the data of `snapshot` (`Snapshot` and the objects it holds,
//!   `keys`, `condition`, each cluster's view: `cluster_views`) and of `report` (`Report` and the types it
//!   holds, `next_change`, `timeless`, the states' rules), `error::Error`
//!   (which those functions return), and `fixture` (with the `fixture`
//!   feature);
//! - the benches: the same, with `source::slim` (`node`, `event`) and
//!   `Snapshot::normalize`.
pub mod app;
pub mod classify;
pub mod cli;
pub mod commands;
// The tests' allocator, which counts each thread's bytes.
#[cfg(test)]
mod counting;
pub mod error;
// Builders of realistic objects and reports for tests and the bench (the
// `fixture` feature, never in a release build): its own docs say so, and
// their links resolve in it.
#[cfg(any(test, feature = "fixture"))]
pub mod fixture;
pub(crate) mod live;
pub(crate) mod names;
pub mod render;
pub mod report;
pub(crate) mod shell;
pub mod snapshot;
pub mod source;
pub(crate) mod steer;
pub(crate) mod units;
pub(crate) mod verbose;
