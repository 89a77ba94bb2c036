//! Issue 21, "kubectl's habits", offline: every subcommand's help has
//! Examples and each one that reads a bundled example runs (the others,
//! which need a cluster, parse); `--filename`, `-o name`, `--no-headers`,
//! `--version`; a usage error shows the subcommand's usage; names not
//! found are said in plain words; with no kubeconfig the error says `-f`
//! works without a cluster; `TERM=dumb` gets no colour; a `--now` before
//! the snapshot is warned about.

mod common;

use common::{BIN, NOW, root};

use clap::{CommandFactory, Parser};
use kubectl_valkey_roll::cli::Cli;
use std::process::{Command, Output, Stdio};

/// The program off a terminal, from the repository's root (where the
/// examples' paths lead), with no kubeconfig and no colour.
fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(root())
        .env_remove("KUBECONFIG")
        .env_remove("COLUMNS")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The commands of an Examples section: lines after `kubectl
/// valkey-roll`, continued after a trailing backslash, without a shell
/// redirection, split as the shell would.
fn example_commands(help: &str) -> Vec<Vec<String>> {
    let section = help.split("Examples").nth(1).unwrap_or_default();
    let mut commands = Vec::new();
    let mut current: Option<String> = None;
    for line in section.lines() {
        let line = line.trim();
        match current.take() {
            Some(mut so_far) => {
                so_far.push(' ');
                so_far.push_str(line.trim_end_matches('\\').trim());
                if line.ends_with('\\') {
                    current = Some(so_far);
                } else {
                    commands.push(so_far);
                }
            }
            None if line.starts_with("kubectl valkey-roll ") => {
                let body = line.trim_end_matches('\\').trim().to_string();
                if line.ends_with('\\') {
                    current = Some(body);
                } else {
                    commands.push(body);
                }
            }
            None => {}
        }
    }
    commands
        .into_iter()
        .map(|c| {
            let c = c.split(" > ").next().unwrap_or_default().to_string();
            let words = shlex::split(&c).unwrap_or_else(|| panic!("cannot split {c:?}"));
            words.into_iter().skip(2).collect()
        })
        .collect()
}

#[test]
fn every_subcommand_has_examples_that_run_on_the_bundled_snapshots() {
    let cli = Cli::command();
    let mut ran = 0;
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name().to_string();
        let help = text(&run(&[&name, "--help"]).stdout);
        let commands = example_commands(&help);
        assert!(
            commands.iter().any(|c| c.first() == Some(&name)),
            "{name}: no Examples of it in\n{help}"
        );
        for args in commands {
            let shown = args.join(" ");
            let offline = args.iter().any(|a| a.starts_with("examples/"));
            if !offline {
                // Needs a cluster: it must still be a command line that parses.
                let parsed = Cli::try_parse_from(
                    std::iter::once("kubectl-valkey-roll".to_string()).chain(args.clone()),
                )
                .and_then(|cli| cli.validate().map(|()| cli));
                assert!(parsed.is_ok(), "{shown}: {parsed:?}");
                continue;
            }
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = run(&argv);
            let code = out.status.code();
            let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
            // Done, needs attention (--exit-code) or refused with its way out.
            match code {
                Some(0 | 3) => assert!(!stdout.is_empty(), "{shown}: nothing on stdout"),
                Some(4) => assert!(stderr.contains("way out:"), "{shown}: {stderr}"),
                other => panic!("{shown}: exit {other:?}\n{stdout}\n{stderr}"),
            }
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} examples ran");
}

#[test]
fn filename_is_f_long_name_and_from_file_still_works() {
    let want = text(&run(&["status", "-f", "examples/jammed.yaml", "--now", NOW]).stdout);
    assert!(want.contains("JAMMED"), "{want}");
    for flag in ["--filename", "--from-file"] {
        let got = run(&["status", flag, "examples/jammed.yaml", "--now", NOW]);
        assert_eq!(text(&got.stdout), want, "{flag}");
    }
}

#[test]
fn name_output_and_no_headers() {
    let f = ["-f", "examples/jammed.yaml", "--now", NOW];
    let with = |args: &[&str]| text(&run(&[args, &f[..]].concat()).stdout);
    assert_eq!(
        with(&["status", "-o", "name"]),
        "valkeycluster.valkey.io/cache\n"
    );
    assert_eq!(
        with(&["history", "-o", "name"]),
        "valkeycluster.valkey.io/cache\n"
    );
    assert_eq!(
        with(&["explain", "cache-1-0", "-o", "name"]),
        "valkeynode.valkey.io/cache-1-0\n"
    );
    assert_eq!(
        with(&["explain", "cache", "-o", "name"]),
        "valkeycluster.valkey.io/cache\n"
    );
    let rows = with(&["status", "--no-headers", "--width", "80"]);
    assert_eq!(rows.lines().count(), 6, "{rows}");
    assert!(rows.lines().all(|l| l.starts_with("cache-")), "{rows}");
    let refused = run(&[
        &["grant", "cache-1-1", "-o", "name", "--dry-run=client"],
        &f[..],
    ]
    .concat());
    assert_eq!(refused.status.code(), Some(4));
    assert!(refused.stdout.is_empty());
    assert!(text(&refused.stderr).contains("way out:"));
}

#[test]
fn version_flag() {
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let first = text(&out.stdout);
    assert!(
        first.starts_with(&format!(
            "kubectl-valkey-roll {}\n",
            env!("CARGO_PKG_VERSION")
        )),
        "{first}"
    );
    assert!(first.contains("protocols: P1, P2"), "{first}");
}

#[test]
fn a_usage_error_shows_the_subcommands_usage() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["status", "--watch", "--now", NOW],
            "Usage: kubectl valkey-roll status",
        ),
        (
            &["grant", "x", "-f", "examples/jammed.yaml"],
            "Usage: kubectl valkey-roll grant",
        ),
        (&["wait", "--bogus"], "Usage: kubectl valkey-roll wait"),
        (&["bundle", "-f", "x"], "Usage: kubectl valkey-roll bundle"),
    ];
    for (args, want) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn not_found_in_plain_words() {
    let out = run(&["status", "nope", "-f", "examples/jammed.yaml", "--now", NOW]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("ValkeyCluster nope not found in any namespace"),
        "{err}"
    );
    assert!(!err.contains("*/"), "{err}");
}

#[test]
fn no_kubeconfig_says_f_works_without_a_cluster() {
    let home = tempfile::tempdir().expect("temp home");
    let out = Command::new(BIN)
        .arg("status")
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .env("HOME", home.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("-f FILE"), "{err}");
    assert!(err.contains("without a cluster"), "{err}");
}

#[test]
fn a_now_before_the_snapshot_is_warned_about() {
    let early = run(&[
        "status",
        "-f",
        "examples/jammed.yaml",
        "--now",
        "1969-12-31T23:59:59Z",
    ]);
    assert_eq!(early.status.code(), Some(0));
    let err = text(&early.stderr);
    assert!(
        err.contains("--now 1969-12-31T23:59:59Z is before every time in the snapshot"),
        "{err}"
    );
    let fine = run(&["status", "-f", "examples/jammed.yaml", "--now", NOW]);
    assert!(fine.stderr.is_empty(), "{}", text(&fine.stderr));
}

/// `TERM=dumb` gets no colour, even on a terminal.
#[cfg(target_os = "linux")]
#[test]
fn a_dumb_terminal_gets_no_colour() {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let on_terminal = |term: &str| -> String {
        let mut master: libc::c_int = -1;
        let mut slave: libc::c_int = -1;
        // SAFETY: openpty writes two descriptors it opened into our
        // variables; the other arguments may be null.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0);
        // SAFETY: both descriptors are open and owned by nothing else.
        let (mut master, slave) = unsafe {
            (
                std::fs::File::from_raw_fd(master),
                OwnedFd::from_raw_fd(slave),
            )
        };
        let mut cmd = Command::new(BIN);
        cmd.args(["status", "-f", "examples/jammed.yaml", "--now", NOW])
            .current_dir(root())
            .env_remove("NO_COLOR")
            .env("TERM", term)
            .stdin(Stdio::null())
            .stdout(Stdio::from(slave))
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("spawn");
        drop(cmd);
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match master.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
                Err(e) => panic!("{e}"),
            }
        }
        child.wait().expect("wait");
        text(&out)
    };
    assert!(on_terminal("xterm-256color").contains('\u{1b}'));
    let dumb = on_terminal("dumb");
    assert!(dumb.contains("JAMMED"), "{dumb}");
    assert!(!dumb.contains('\u{1b}'), "{dumb}");
}
