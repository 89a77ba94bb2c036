//! Wires a parsed command line to its command. Commands return an
//! `Outcome` (text and exit code); only `main` prints.

use crate::cli::{Cli, Command};
use crate::commands::{self, Ctx};
use crate::error::{Error, Outcome, Result};
use crate::render::style::{clean, clean_lines};
use clap::{CommandFactory, Parser};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

pub(crate) async fn run(cli: Cli, ctx: Ctx) -> Result<Outcome> {
    match cli.command {
        Command::Status(args) if args.watch => commands::watch::run(&ctx, &args).await,
        Command::Status(args) => commands::status::run(&ctx, &args).await,
        Command::Explain(args) => commands::explain::run(&ctx, &args).await,
        Command::Grant(args) => commands::steer::grant(&ctx, &args).await,
        Command::Revoke(args) => commands::steer::revoke(&ctx, &args).await,
        Command::Force(args) => commands::steer::force(&ctx, &args).await,
        Command::ReplacePod(args) => commands::steer::replace_pod(&ctx, &args).await,
        Command::Wait(args) => commands::wait::run(&ctx, &args).await,
        Command::History(args) => commands::history::run(&ctx, &args).await,
        Command::Bundle(args) => commands::bundle::run(&ctx, &args).await,
        Command::Exporter(args) => commands::exporter::run(&ctx, &args).await,
        Command::Dashboard(args) => commands::dashboard::run(&ctx, &args).await,
        Command::Completion(args) => commands::completion::run(&args),
        Command::Version => commands::version::run(&ctx),
        Command::Complete(args) => commands::completion::complete(&ctx, &args).await,
    }
}

/// glibc's malloc raises its mmap threshold each time a large block is
/// freed, up to 32 MiB, after which the LIST pages (several MB each), the
/// parsed objects between them and the rendered output all come from the
/// heap and leave it fragmented: `status` on 3000 nodes held 86 MiB
/// resident for a 53 MiB peak of live data. A fixed threshold (glibc's
/// starting one, 128 KiB) keeps every large buffer in its own mapping,
/// returned whole when freed. A `MALLOC_MMAP_THRESHOLD_` the user set
/// wins. Nothing to do on other C libraries.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
        // SAFETY: mallopt only sets a parameter of the allocator; it is
        // called before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
        }
    }
}

/// kube reads `NO_PROXY` itself while it loads a kubeconfig, and refuses
/// the whole variable for one empty entry (a trailing comma, which kubectl
/// and curl ignore), though the proxy is chosen here (source/live.rs).
/// Empty entries are dropped before kube can see them.
fn tidy_no_proxy() {
    for name in ["NO_PROXY", "no_proxy"] {
        let Some(text) = std::env::var_os(name).and_then(|v| v.into_string().ok()) else {
            continue;
        };
        let entries: Vec<&str> = text.split(',').map(str::trim).collect();
        if !entries.iter().any(|e| e.is_empty()) || text.trim().is_empty() {
            continue;
        }
        let kept: Vec<&str> = entries.into_iter().filter(|e| !e.is_empty()).collect();
        // SAFETY: called before any other thread exists (no runtime yet),
        // so nothing reads the environment meanwhile.
        unsafe {
            if kept.is_empty() {
                std::env::remove_var(name);
            } else {
                std::env::set_var(name, kept.join(","));
            }
        }
    }
}

/// A usage error for stderr. It quotes the arguments (`unexpected
/// argument '...'`), so it is cleaned like everything else printed. clap's
/// plain rendering would delete escape sequences, the arguments' own
/// included (`st\e[2Jatus` read as `status`, with "did you mean
/// 'status'"), so the arguments are parsed again by the same command
/// without styles: its rendering with escapes kept holds only the
/// arguments' characters, and [`clean_lines`] shows them as `\u{1b}`. An
/// error the second parse does not repeat (one from [`Cli::validate`],
/// whose words are the program's) is rendered plainly.
fn usage_error_text(err: &clap::Error) -> String {
    let plain = Cli::command().styles(clap::builder::Styles::plain());
    let text = match plain.try_get_matches_from(std::env::args_os()) {
        Err(again) if again.kind() == err.kind() => again.render().ansi().to_string(),
        _ => err.render().to_string(),
    };
    clean_lines(&text)
}

/// Writes a command's text to stdout. A reader that went away (`| head`,
/// a broken pipe) is not an error: what it wanted, it read. Any other
/// failure (a full disk, `> /dev/full`) is one: the text did not arrive
/// whole, and the exit code must say so.
fn write_stdout(text: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Err(source) if source.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Write {
            path: "stdout".to_string(),
            source,
        }),
        _ => Ok(()),
    }
}

/// The whole program, shared by both binary names (`kubectl-valkey-roll`
/// and `kubectl-valkey_roll`, the name kubectl looks up).
pub fn main() -> ExitCode {
    tune_allocator();
    tidy_no_proxy();
    let cli = match Cli::try_parse().and_then(|cli| cli.validate().map(|()| cli)) {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help and version to stdout (exit 0), usage errors to stderr (exit 2).
            if err.use_stderr() {
                let _ = std::io::stderr().write_all(usage_error_text(&err).as_bytes());
            } else {
                let _ = err.print();
            }
            return ExitCode::from(err.exit_code().clamp(0, 255) as u8);
        }
    };
    crate::verbose::install(cli.global.verbosity);
    let stdout_is_terminal = std::io::stdout().is_terminal();
    let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    // A terminal that says it draws no colour (Emacs' shell, some CI logs).
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let ctx = Ctx {
        color: stdout_is_terminal && !cli.global.no_color && !no_color_env && !dumb,
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
    let result = runtime.block_on(run(cli, ctx));
    // Whatever still runs is abandoned, not awaited: a thread blocked in a
    // kubeconfig exec credential plugin (kube runs it synchronously) would
    // otherwise hold the exit until the plugin returns, long after a time
    // limit (completion's, for one) has given up on it.
    runtime.shutdown_background();
    match result {
        Ok(outcome) => {
            let written = write_stdout(outcome.stdout.as_bytes());
            if !outcome.stderr.is_empty() {
                // Plain text (never coloured), so it is cleaned here, once.
                let _ = std::io::stderr().write_all(clean_lines(&outcome.stderr).as_bytes());
            }
            match written {
                Err(err) => {
                    eprintln!("error: {}", clean(&err.to_string()));
                    ExitCode::from(err.exit().code())
                }
                Ok(()) => ExitCode::from(outcome.exit.code()),
            }
        }
        Err(err) => {
            // Error messages name what the file or the command line gave
            // (names, keys, paths, apiVersions): cleaned like all output.
            eprintln!("error: {}", clean(&err.to_string()));
            ExitCode::from(err.exit().code())
        }
    }
}
