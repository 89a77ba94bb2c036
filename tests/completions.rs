//! The committed completion scripts are what the program generates, both
//! names run the same program, and kubectl's completion helper stays silent
//! without a cluster. No API server needed.

mod common;

use common::root;

use std::path::Path;
use std::process::{Command, Output};

use kubectl_valkey_roll::cli::CompletionShell;
use kubectl_valkey_roll::commands::completion::{SHELLS, script_file_name};

const DASH: &str = env!("CARGO_BIN_EXE_kubectl-valkey-roll");
const UNDERSCORE: &str = env!("CARGO_BIN_EXE_kubectl-valkey_roll");

fn shell_word(shell: CompletionShell) -> &'static str {
    match shell {
        CompletionShell::Bash => "bash",
        CompletionShell::Zsh => "zsh",
        CompletionShell::Fish => "fish",
        CompletionShell::Powershell => "powershell",
    }
}

fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"))
}

/// Regenerates every script with `completion SHELL` and compares it with
/// the committed one. `UPDATE_COMPLETIONS=1` rewrites the stale ones.
#[test]
fn committed_scripts_are_fresh() {
    let update = std::env::var_os("UPDATE_COMPLETIONS").is_some();
    let mut stale = Vec::new();
    for shell in SHELLS {
        let out = run(DASH, &["completion", shell_word(shell)]);
        assert!(out.status.success(), "completion {shell:?}: {out:?}");
        let generated = String::from_utf8(out.stdout).expect("utf-8 script");
        let path = root().join("completions").join(script_file_name(shell));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != generated {
            if update {
                std::fs::write(&path, &generated)
                    .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale completion scripts (the command line changed): {}\n\
         refresh them with:  UPDATE_COMPLETIONS=1 cargo test --test completions\n\
         (or: kubectl-valkey-roll completion bash > completions/kubectl-valkey-roll.bash, and so on)",
        stale.join(", ")
    );
}

/// clap-rs/clap#6421: with a dash in the binary's name, the generated bash
/// script never completed a subcommand's own flags. Completes two lines in a
/// real bash when there is one.
#[test]
fn bash_script_completes_subcommand_flags() {
    if Command::new("bash").arg("--version").output().is_err() {
        eprintln!("no bash here; skipped");
        return;
    }
    let script = root()
        .join("completions")
        .join(script_file_name(CompletionShell::Bash));
    // (words, index of the word being completed, expected COMPREPLY)
    let cases: &[(&[&str], usize, &str)] = &[
        (&["kubectl-valkey-roll", "gra"], 1, "grant"),
        (&["kubectl-valkey-roll", "grant", "--dry"], 2, "--dry-run"),
        (
            &["kubectl-valkey-roll", "force", "x", "--take"],
            3,
            "--takeover",
        ),
        (&["kubectl-valkey-roll", "status", "-o", "ya"], 3, "yaml"),
    ];
    for (words, cword, want) in cases {
        let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        let program = format!(
            "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={cword}\n\
             _kubectl__valkey__roll kubectl-valkey-roll '{}' '{}'\necho \"${{COMPREPLY[*]}}\"",
            script.display(),
            quoted.join(" "),
            words[*cword],
            words[cword - 1],
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(&program)
            .output()
            .expect("bash");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            *want,
            "{words:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `kubectl-valkey_roll` (what kubectl and krew run) and
/// `kubectl-valkey-roll` are one program.
#[test]
fn both_names_are_one_program() {
    for args in [&["version", "-o", "json"][..], &["completion", "fish"][..]] {
        let dash = run(DASH, args);
        let underscore = run(UNDERSCORE, args);
        assert!(dash.status.success(), "{args:?}: {dash:?}");
        assert_eq!(dash.stdout, underscore.stdout, "{args:?}");
    }
    let out = run(DASH, &["version", "-o", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(doc["protocols"], serde_json::json!(["P1", "P2"]));
    let commit = doc["commit"].as_str().unwrap_or_default();
    assert!(commit.len() == 40 || commit == "unknown", "{doc}");
}

/// The helper kubectl runs, with only the test binaries on PATH.
fn complete(args: &[&str], kubeconfig: &Path) -> Output {
    let bins = Path::new(UNDERSCORE)
        .parent()
        .expect("binary directory")
        .to_path_buf();
    Command::new(root().join("completions/kubectl_complete-valkey_roll"))
        .args(args)
        .env("PATH", format!("{}:/usr/bin:/bin", bins.display()))
        .env("KUBECONFIG", kubeconfig)
        .env_remove("HOME")
        .output()
        .expect("run kubectl_complete-valkey_roll")
}

#[test]
fn helper_completes_without_a_cluster_and_stays_silent_without_one() {
    let missing = Path::new("/nonexistent/kubeconfig");
    // (words, expected stdout): static answers need no cluster; names
    // need one, and without it come back empty (`:4`: no file names either).
    let cases: &[(&[&str], &str)] = &[
        (
            &["gr"],
            "grant\tLet a node roll to its asked-for revision (P1: its permit; P2: its spec.workloadRevision)\n:36\n",
        ),
        (&["completion", "f"], "fish\n:36\n"),
        // The first word is a flag: it must reach __complete as a word.
        (
            &["--he"],
            "--help\tPrint help (see more with '--help')\n:4\n",
        ),
        (&["-n", "prod", "status", "-o", "j"], "json\n:36\n"),
        (&["grant", ""], ":4\n"),
        (&["revoke", "--context", "nowhere", ""], ":4\n"),
        (&["-n", ""], ":4\n"),
        (&["--context", ""], ":4\n"),
    ];
    for (words, want) in cases {
        let out = complete(words, missing);
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).as_ref(),
                String::from_utf8_lossy(&out.stderr).as_ref()
            ),
            (Some(0), *want, ""),
            "{words:?}"
        );
    }
}

#[test]
fn helper_reads_contexts_from_the_kubeconfig() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = dir.path().join("config");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\ncurrent-context: prod\n\
         clusters: [{name: c1, cluster: {server: 'https://127.0.0.1:1'}}]\n\
         users: [{name: u1, user: {}}]\n\
         contexts:\n\
         - {name: prod, context: {cluster: c1, user: u1}}\n\
         - {name: staging, context: {cluster: c1, user: u1}}\n",
    )
    .expect("write kubeconfig");
    let cases: &[(&[&str], &str)] = &[
        (&["--context", ""], "prod\tcurrent\nstaging\n:36\n"),
        (&["status", "--context=s"], "--context=staging\n:36\n"),
        (&["--cluster", ""], "c1\n:36\n"),
        (&["--user", ""], "u1\n:36\n"),
    ];
    for (words, want) in cases {
        let out = complete(words, &kubeconfig);
        assert_eq!(String::from_utf8_lossy(&out.stdout), *want, "{words:?}");
        assert!(out.stderr.is_empty(), "{words:?}: {out:?}");
    }
}
