//! The output side of hostile input, round two (issue 22): usage errors
//! show what was typed, look-alike characters are visible, long lists in
//! errors are cut, completion offers only real names, and text output
//! stays linear in a name's length. Each case runs the plugin binary.

use assert_cmd::Command;
use std::path::Path;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-valkey-roll");
const NOW: &str = "2026-11-29T10:16:11Z";

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn both(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs the program off a terminal with the fixed clock.
fn run(args: &[&str]) -> Ran {
    let out = Command::new(BIN)
        .args(["--now", NOW])
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("KUBECONFIG")
        .env_remove("COLUMNS")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[allow(dead_code)] // the snapshots of the cases below
fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write snapshot");
    path.display().to_string()
}

// ---- item 9: clap's usage errors show control characters ----

#[test]
fn usage_errors_show_control_characters_instead_of_deleting_them() {
    // (case, args, shown: the argument as the error must show it)
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "a subcommand with a screen clear",
            &["st\u{1b}[2Jatus"],
            "st\\u{1b}[2Jatus",
        ),
        ("a subcommand with a bell", &["stat\u{7}us"], "stat\\u{7}us"),
        (
            "a subcommand with a title sequence",
            &["\u{1b}]0;pwned\u{7}status"],
            "\\u{1b}]0;pwned\\u{7}status",
        ),
        (
            "an unknown flag with a colour",
            &["status", "--wat\u{1b}[31mch"],
            "--wat\\u{1b}[31mch",
        ),
        (
            "an output format with a colour",
            &["status", "-o", "ya\u{1b}[1mml"],
            "ya\\u{1b}[1mml",
        ),
        (
            "a duration with a cursor move",
            &["status", "--stall-threshold", "1\u{1b}[5Dm"],
            "1\\u{1b}[5Dm",
        ),
        (
            "a stray positional after the name",
            &["explain", "a", "b\u{1b}[Kc"],
            "b\\u{1b}[Kc",
        ),
    ];
    // Every row is tried; the failures are listed together.
    let mut failures = Vec::new();
    for (case, args, shown) in cases {
        let r = run(args);
        if r.code != 2 || !r.stdout.is_empty() {
            failures.push(format!("{case}: exit {}: {}", r.code, r.both()));
        }
        if !r.stderr.contains(shown) {
            failures.push(format!("{case}: {shown} not shown in:\n{}", r.stderr));
        }
        if r.stderr.chars().any(|c| c.is_control() && c != '\n') {
            failures.push(format!("{case}: a raw control character in {:?}", r.stderr));
        }
        if r.stderr.contains("did you mean 'status'") {
            failures.push(format!("{case}: suggests what was not typed"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
