//! Parse arguments, pick colour, run, print the returned text, map the
//! error to an exit code.

use clap::Parser;
use kubectl_valkey_roll::app::{self, Ctx};
use kubectl_valkey_roll::cli::Cli;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse().and_then(|cli| cli.validate().map(|()| cli)) {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help and version to stdout (exit 0), usage errors to stderr (exit 2).
            let _ = err.print();
            return ExitCode::from(err.exit_code().clamp(0, 255) as u8);
        }
    };
    let stdout_is_terminal = std::io::stdout().is_terminal();
    let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let ctx = Ctx {
        color: stdout_is_terminal && !cli.global.no_color && !no_color_env,
        stdout_is_terminal,
        stdin_is_terminal: std::io::stdin().is_terminal(),
        global: cli.global.clone(),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(app::run(cli, ctx)) {
        Ok(outcome) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(outcome.stdout.as_bytes());
            let _ = out.flush();
            if !outcome.stderr.is_empty() {
                let _ = std::io::stderr().write_all(outcome.stderr.as_bytes());
            }
            ExitCode::from(outcome.exit.code())
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(err.exit().code())
        }
    }
}
