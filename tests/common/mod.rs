//! What the test binaries that run the plugin share, once: the binary, the
//! examples' clock and paths, and [`Ran`], a finished run. A test file says
//! `mod common;`; the e2e tests get the same file as `harness::common`
//! (harness/mod.rs), so no test binary holds two `Ran`s. Cargo does not
//! build tests/common/mod.rs as a test binary of its own.

#![allow(dead_code)]

use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_kubectl-valkey-roll");

/// When the bundled examples were taken: the clock every offline run uses.
pub const NOW: &str = "2026-11-29T10:16:11Z";

/// The repository's root, where the examples' paths in docs and help lead.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The path of a bundled example, `examples/NAME.yaml`.
pub fn example(name: &str) -> String {
    root()
        .join("examples")
        .join(format!("{name}.yaml"))
        .display()
        .to_string()
}

/// A finished run of the plugin.
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn of(out: Output) -> Ran {
        Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// The exit code and both outputs, for a failure message.
    pub fn both(&self) -> String {
        format!(
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    /// The JSON document on stdout, whatever the exit code.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.both()))
    }

    /// The JSON document on stdout of a run that must have succeeded.
    pub fn ok_json(&self) -> Value {
        assert_eq!(self.code, 0, "{}", self.both());
        self.json()
    }
}

/// The program as a person runs it off a terminal, with nothing from the
/// environment that would change what it says (no kubeconfig, colour
/// setting or width; `USER` fixed, for the actor steering names) and the
/// examples' clock unless `args` bring their own `--now` (put first:
/// arguments may end in `-- NAME`).
pub fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    if !args.contains(&"--now") {
        cmd.args(["--now", NOW]);
    }
    cmd.args(args)
        .env_remove("NO_COLOR")
        .env_remove("KUBECONFIG")
        .env_remove("COLUMNS")
        .env("USER", "tester");
    cmd
}

/// [`command`] run to its end, without stdin.
pub fn run(args: &[&str]) -> Ran {
    Ran::of(
        command(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}")),
    )
}

/// [`command`] run to its end with `input` on stdin (`-f -`). The program
/// may stop reading early (an error): a broken pipe is fine.
pub fn run_with_stdin(args: &[&str], input: &[u8]) -> Ran {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    Ran::of(child.wait_with_output().expect("wait"))
}
