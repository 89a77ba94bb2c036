//! Wires a parsed command line to its command. Commands return an
//! [`Outcome`] (text and exit code); only `main` prints.

use crate::cli::{Cli, Command, GlobalArgs};
use crate::commands;
use crate::error::{Outcome, Result};
use jiff::Timestamp;

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

pub async fn run(cli: Cli, ctx: Ctx) -> Result<Outcome> {
    match cli.command {
        Command::Status(args) if args.watch => commands::watch::run(&ctx, &args).await,
        Command::Status(args) => commands::status::run(&ctx, &args).await,
        Command::Explain(args) => commands::explain::run(&ctx, &args).await,
        Command::Grant(args) => commands::steer::grant(&ctx, &args).await,
        Command::Revoke(args) => commands::steer::revoke(&ctx, &args).await,
        Command::Force(args) => commands::steer::force(&ctx, &args).await,
        Command::Wait(args) => commands::wait::run(&ctx, &args).await,
        Command::Completion(args) => commands::completion::run(&args),
        Command::Version => Ok(commands::version::run()),
        Command::Complete(args) => commands::completion::complete(&ctx, &args).await,
    }
}
