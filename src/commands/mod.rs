//! One module per command; each returns an [`crate::error::Outcome`] and
//! gets the [`Ctx`] it was run in.

use crate::cli::GlobalArgs;
use jiff::Timestamp;

pub mod bundle;
pub mod completion;
pub mod contexts;
pub mod explain;
pub mod exporter;
pub mod history;
pub mod shared;
pub mod status;
pub mod steer;
pub mod version;
pub mod wait;
pub mod watch;

/// What every command may know about how it was run.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub global: GlobalArgs,
    /// Colour the output (a terminal, no `--no-color`, no `NO_COLOR`).
    pub color: bool,
    /// stdout is a terminal (redraw in place for `--watch`).
    pub stdout_is_terminal: bool,
    /// stdin is a terminal (a steering command may ask for confirmation).
    pub stdin_is_terminal: bool,
}

impl Ctx {
    /// The clock: `--now`, else the real one.
    pub fn now(&self) -> Timestamp {
        self.global.now.unwrap_or_else(Timestamp::now)
    }
}
