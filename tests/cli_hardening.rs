//! The program on hostile or odd input, no cluster needed (issue 10): dry
//! runs that predict the real run's exit, names that would run code when a
//! printed command is pasted, terminal escapes and invisible characters in
//! names and arguments, times at the end of what the API can hold, input
//! without bounds, and parse errors in a kubectl user's words. Each case
//! writes its snapshot into a tempdir and runs the plugin binary on it.

mod common;

use common::{Ran, command, example, run};
use kubectl_valkey_roll::fixture;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write snapshot");
    path.display().to_string()
}

// ---- item 7: a dry run predicts the real run's exit code ----

#[test]
fn a_dry_run_that_needs_confirmation_exits_as_the_real_run_would() {
    // P1 (revoke and force are P1's): cache-1-1 holds the permit and its
    // pod crash-loops, so revoking it asks; every force asks (cache-1-0
    // asks for a permit behind it).
    let jammed = example("jammed-p1");
    // (case, args, exit)
    let cases: &[(&str, &[&str], i32)] = &[
        ("revoke, unhealthy holder", &["revoke", "cache-1-1"], 4),
        (
            "revoke, unhealthy holder, --yes",
            &["revoke", "cache-1-1", "--yes"],
            0,
        ),
        ("force", &["force", "cache-1-0", "--reason", "r"], 4),
        (
            "force, --yes",
            &["force", "cache-1-0", "--reason", "r", "--yes"],
            0,
        ),
        (
            "force --takeover",
            &["force", "cache-1-0", "--reason", "r", "--takeover"],
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

// ---- item 1: printed commands are shell-safe ----

/// A P1 cluster `cache` in `ns` with one cluster-owned node `name` that
/// holds a permit granted by hand 76 minutes before [`NOW`] and never
/// completed: Stuck, so explain suggests revoke and force, and revoke
/// plans an undo. Built with the project's fixture and written as the List
/// `kubectl get -o json` prints (JSON holds any name as it is).
fn stuck_holder(name: &str, ns: &str) -> fixture::ClusterBuilder {
    fixture::cluster(ns, "cache").image("valkey:8").node(
        fixture::node(name)
            .image("valkey:8")
            .ready()
            .last_rollout_hash("h0")
            .permit("h1")
            .trace("h1", "alice", fixture::t(-3600), "canary"),
    )
}

fn stuck_holder_snapshot(name: &str, ns: &str) -> String {
    list_of(&[&stuck_holder(name, ns)])
}

/// The clusters' snapshot as one kubectl List, in JSON.
fn list_of(clusters: &[&fixture::ClusterBuilder]) -> String {
    let snapshot = fixture::snapshot_of(clusters);
    fixture::list_json(&snapshot)
}

/// `s` as a YAML double-quoted scalar, every character outside printable
/// ASCII as an escape (YAML forbids a raw C1 control even when quoted).
fn yq(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if (c as u32) > 0xffff => out.push_str(&format!("\\U{:08x}", c as u32)),
            c => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// The commands explain suggests: each stands on a line of its own.
fn suggested_commands(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_start)
        .filter(|c| c.starts_with("kubectl "))
        .map(str::to_string)
        .collect()
}

/// Runs `line` with `sh -c`, a fake `kubectl` first on PATH that records
/// its arguments (one per line, NUL-separated records); returns the
/// argument lists it was called with.
fn paste(dir: &Path, line: &str) -> Vec<Vec<String>> {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    let log = dir.join("argv.log");
    let _ = std::fs::remove_file(&log);
    let fake = bin.join("kubectl");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\" >> '{}'; done\nprintf '\\n' >> '{}'\n",
            log.display(),
            log.display()
        ),
    )
    .expect("fake kubectl");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(line)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .status()
        .expect("sh");
    assert!(status.success(), "{line}");
    let text = std::fs::read(&log).unwrap_or_default();
    String::from_utf8_lossy(&text)
        .split("\0\n")
        .filter(|r| !r.is_empty())
        .map(|r| r.split('\0').map(str::to_string).collect())
        .collect()
}

/// Every word before `--` that starts with `-` is a flag the plugin or
/// kubectl prints; a name that starts with `-` comes after `--`.
fn assert_flags_are_flags(argv: &[String], name: &str, label: &str) {
    const FLAGS: &[&str] = &[
        "-n",
        "--reason",
        "--takeover",
        "--watch",
        "--previous",
        "--protocol",
        "--revision",
        "--any",
        "--yes",
        "--allow-primary",
    ];
    let end = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    let mut expect_value = false;
    for word in &argv[..end] {
        if expect_value {
            expect_value = false;
            continue;
        }
        if word.starts_with('-') {
            assert!(
                FLAGS.contains(&word.as_str()) || word.starts_with("-n="),
                "{label}: {word:?} became a flag in {argv:?}"
            );
            expect_value = matches!(
                word.as_str(),
                "-n" | "--reason" | "--protocol" | "--revision"
            );
        }
    }
    if name.starts_with('-') && argv.iter().any(|a| a == name) {
        assert!(argv[end..].iter().any(|a| a == name), "{label}: {argv:?}");
    }
}

#[test]
fn pasted_commands_run_the_plugin_on_that_name_and_nothing_else() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let marker = d.join("pwned");
    let m = marker.display().to_string();
    let names: Vec<String> = vec![
        format!("$(touch {m})"),
        format!("`touch {m}`"),
        format!("x;touch {m}"),
        format!("x && touch {m}"),
        format!("x|touch {m}"),
        "a b".into(),
        "it's".into(),
        "say \"hi\"".into(),
        "x #comment".into(),
        "#x".into(),
        "~root".into(),
        "*".into(),
        "$HOME".into(),
        "a!b".into(),
        "{a,b}".into(),
        "a\\b".into(),
        "-x".into(),
        "--".into(),
        "--yes now".into(),
        "caf\u{e9}".into(),
    ];
    let namespaces = ["prod", "a b", "-A", "$(touch /nonexistent/x)"];
    let mut tried = 0;
    for ns in namespaces {
        for name in &names {
            let label = format!("node {name:?} in {ns:?}");
            let snap = write(d, "snap.yaml", &stuck_holder_snapshot(name, ns));
            // explain: every suggested command, pasted.
            let n = format!("--namespace={ns}");
            let r = run(&["explain", &n, "-f", &snap, "--", name]);
            assert_eq!(r.code, 0, "{label}: {}", r.both());
            // Each command stands on its own line, a name with a
            // backquote included (issue 22, item 10).
            let commands = suggested_commands(&r.stdout);
            assert!(
                commands.iter().any(|c| c.contains("revoke")),
                "{label}: no revoke suggested in\n{}",
                r.stdout
            );
            for c in &commands {
                for argv in paste(d, c) {
                    // The namespace is one whole argument.
                    assert!(
                        argv.windows(2).any(|w| w[0] == "-n" && w[1] == ns)
                            || argv.iter().any(|a| *a == format!("-n={ns}")),
                        "{label}: {c:?} gave {argv:?}"
                    );
                    assert_flags_are_flags(&argv, name, &label);
                }
                tried += 1;
            }
            // The undo line, text and JSON alike.
            let r = run(&[
                "revoke",
                &n,
                "-f",
                &snap,
                "--dry-run=client",
                "--yes",
                "-o",
                "json",
                "--",
                name,
            ]);
            assert_eq!(r.code, 0, "{label}: {}", r.both());
            let undo = r.json()["undo"]
                .as_str()
                .unwrap_or_else(|| panic!("{label}: no undo"))
                .to_string();
            let calls = paste(d, &undo);
            assert_eq!(calls.len(), 1, "{label}: {undo}");
            let argv = &calls[0];
            assert_eq!(&argv[..2], ["valkey-roll", "grant"], "{label}: {argv:?}");
            let at = argv
                .iter()
                .position(|a| a == name)
                .unwrap_or_else(|| panic!("{label}: {name:?} not one argument of {argv:?}"));
            assert!(at >= 2, "{label}: {argv:?}");
            assert_flags_are_flags(argv, name, &label);
            let text = run(&[
                "revoke",
                &n,
                "-f",
                &snap,
                "--dry-run=client",
                "--yes",
                "--",
                name,
            ]);
            assert!(
                text.stdout.contains(&format!("undo would be: {undo}")),
                "{label}: {}",
                text.stdout
            );
            tried += 1;
            assert!(!marker.exists(), "{label}: a pasted command ran code");
        }
    }
    eprintln!("{tried} pasted commands");
}

// ---- item 2: escapes and invisible characters never reach a terminal ----

/// Characters that must not be printed as they are: every control but the
/// newline that ends a line, and the invisible or reordering characters
/// the snapshots below carry.
fn raw_in(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| {
            (c.is_control() && *c != '\n')
                || matches!(
                    c,
                    '\u{200b}'
                        | '\u{200d}'
                        | '\u{202e}'
                        | '\u{2066}'
                        | '\u{2028}'
                        | '\u{2029}'
                        | '\u{feff}'
                        | '\u{061c}'
                        | '\u{00ad}'
                )
        })
        .collect()
}

fn assert_clean(label: &str, r: &Ran) {
    for (stream, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
        let raw = raw_in(text);
        assert!(raw.is_empty(), "{label}: {stream} carries {raw:?}:\n{text}");
    }
    assert!(!r.both().contains("panicked"), "{label}: {}", r.both());
}

const HOSTILE: &[&str] = &[
    "\u{1b}[31mred\u{1b}[0m",
    "\u{1b}]0;title\u{7}",
    "\u{1b}[2J\u{1b}[H",
    "c\u{9b}31m",
    "n\u{85}el",
    "z\u{200b}w",
    "j\u{200d}j",
    "rtl\u{202e}lo",
    "iso\u{2066}x",
    "ls\u{2028}ps\u{2029}",
    "bom\u{feff}",
    "alm\u{061c}",
    "soft\u{00ad}",
    "del\u{7f}",
    "nul\u{0}",
    "bs\u{8}\u{8}\u{8}",
    "cr\roverwrite",
];

#[test]
fn hostile_names_are_shown_cleaned_on_stdout_and_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let mut tried = 0;
    for name in HOSTILE {
        let snap = write(d, "snap.yaml", &stuck_holder_snapshot(name, "prod"));
        let other_ns = write(
            d,
            "two.yaml",
            &list_of(&[&stuck_holder(name, "prod"), &stuck_holder(name, name)]),
        );
        let json_name = yq(name);
        let cases: Vec<(&str, Vec<&str>)> = vec![
            ("status", vec!["status", "-f", &snap]),
            ("status wide", vec!["status", "-f", &snap, "-o", "wide"]),
            ("status json", vec!["status", "-f", &snap, "-o", "json"]),
            ("status yaml", vec!["status", "-f", &snap, "-o", "yaml"]),
            ("explain", vec!["explain", "-f", &snap, "--", name]),
            (
                "explain json",
                vec!["explain", "-f", &snap, "-o", "json", "--", name],
            ),
            (
                "explain yaml",
                vec!["explain", "-f", &snap, "-o", "yaml", "--", name],
            ),
            ("explain cluster", vec!["explain", "-f", &snap, "cache"]),
            (
                "revoke",
                vec![
                    "revoke",
                    "-f",
                    &snap,
                    "--dry-run=client",
                    "--yes",
                    "--",
                    name,
                ],
            ),
            (
                "revoke refused",
                vec!["revoke", "-f", &snap, "--dry-run=client", "--", name],
            ),
            (
                "revoke json",
                vec![
                    "revoke",
                    "-f",
                    &snap,
                    "--dry-run=client",
                    "--yes",
                    "-o",
                    "json",
                    "--",
                    name,
                ],
            ),
            ("did you mean", vec!["explain", "-f", &snap, "cache-1"]),
            (
                "not found, the argument",
                vec!["explain", "-f", &snap, "--", name],
            ),
            (
                "several namespaces",
                vec!["explain", "-f", &other_ns, "--", name],
            ),
            (
                "grant in several namespaces",
                vec!["grant", "-f", &other_ns, "--dry-run=client", "--", name],
            ),
            ("-n argument", vec!["status", "-f", &snap, "-n", name]),
            ("-f argument", vec!["status", "-f", name]),
            (
                "usage error quoting the argument",
                vec!["status", "-f", &snap, "--bogus", name],
            ),
            ("bad --now", vec!["status", "-f", &snap, "--now", name]),
            (
                "bad duration",
                vec!["status", "-f", &snap, "--stall-threshold", name],
            ),
        ];
        for (case, args) in cases {
            // No program argument can carry a NUL: that name is tried in
            // files only.
            if args.iter().any(|a| a.contains('\0')) {
                continue;
            }
            let label = format!("{case} with {json_name}");
            let r = run(&args);
            assert_clean(&label, &r);
            if case.ends_with("json") {
                let _ = r.json();
            }
            tried += 1;
        }
        // The snapshot's own words in error messages: a field path, the
        // object, the apiVersion, a List's kind.
        let q = &json_name;
        let broken: Vec<(&str, String)> = vec![
            (
                "the object",
                format!(
                    "apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {{name: {q}, namespace: {q}}}\nstatus: {{ready: maybe}}\n"
                ),
            ),
            (
                "the field path",
                format!(
                    "apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {{name: n, namespace: p, labels: {{{q}: 7}}}}\n"
                ),
            ),
            (
                "the apiVersion",
                format!(
                    "apiVersion: {}\nkind: ValkeyNode\nmetadata: {{name: n}}\n",
                    yq(&format!("valkey.io/{name}"))
                ),
            ),
            (
                "a List's kind",
                format!(
                    "apiVersion: v1\nkind: {}\nitems: 7\n",
                    yq(&format!("{name}List"))
                ),
            ),
            (
                "the kind",
                format!("apiVersion: v1\nkind: {q}\nmetadata: {{name: {q}}}\n---\nkind: [x]\n"),
            ),
        ];
        for (case, text) in broken {
            let label = format!("error naming {case} with {json_name}");
            let file = write(d, "broken.yaml", &text);
            let r = run(&["status", "-f", &file]);
            assert_eq!(r.code, 1, "{label}: {}", r.both());
            assert_clean(&label, &r);
            assert!(r.stdout.is_empty(), "{label}: nothing on stdout");
            tried += 1;
        }
    }
    eprintln!("{tried} runs");
}

// ---- item 3: every time the API can hold is read ----

/// `text` with every time in it replaced by `late` (a quoted RFC 3339
/// time of year 2026 in the examples).
fn every_time(text: &str, late: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\"2026-") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let end = tail.find('"').unwrap_or(0);
        out.push('"');
        out.push_str(late);
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn far_future_times_are_facts_not_failures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let lates = [
        "9999-12-31T23:59:59Z",
        "9999-12-31T23:59:59.999999Z",
        "9999-12-30T22:00:01Z",
        "9999-12-31T20:00:00-03:00",
    ];
    let mut tried = 0;
    for example_name in ["jammed", "rolling", "converged"] {
        let text = std::fs::read_to_string(example(example_name)).expect("example");
        for late in lates {
            let file = write(d, &format!("{example_name}.yaml"), &every_time(&text, late));
            let (cluster, node) = match example_name {
                "rolling" => ("sessions", "sessions-0-1"),
                _ => ("cache", "cache-1-1"),
            };
            let cases: Vec<Vec<&str>> = vec![
                vec!["status", "-f", &file],
                vec!["status", "-f", &file, "-o", "wide"],
                vec!["status", "-f", &file, "-o", "json"],
                vec!["status", "-f", &file, "-o", "yaml"],
                vec!["explain", node, "-f", &file],
                vec!["explain", node, "-f", &file, "-o", "json"],
                vec!["explain", cluster, "-f", &file],
                vec!["grant", node, "-f", &file, "--dry-run=client", "--any"],
                vec!["revoke", node, "-f", &file, "--dry-run=client", "--yes"],
                vec![
                    "force",
                    node,
                    "-f",
                    &file,
                    "--dry-run=client",
                    "--reason",
                    "r",
                    "--yes",
                ],
            ];
            for args in cases {
                let label = format!("{example_name} at {late}: {args:?}");
                let r = run(&args);
                // Refusals (exit 4) are the planner's business; an error
                // (exit 1) is not allowed.
                assert!(matches!(r.code, 0 | 4), "{label}: {}", r.both());
                for jargon in ["civil", "overflow", "Unix timestamp", "required range"] {
                    assert!(!r.both().contains(jargon), "{label}: {}", r.both());
                }
                tried += 1;
            }
            // The fact is shown: explain warns, and says the time, for a
            // node and for its cluster.
            for name in [node, cluster] {
                let r = run(&["explain", name, "-f", &file]);
                assert!(
                    r.stdout
                        .contains("is in the future (9999-12-30T22:00:00Z or later"),
                    "{example_name} at {late}, explain {name}: {}",
                    r.stdout
                );
            }
        }
        // The clock at the API's last second, on the example as it is.
        let file = example(example_name);
        for now in [
            "9999-12-31T23:59:59Z",
            "9999-12-30T22:00:00Z",
            "0001-01-01T00:00:00Z",
        ] {
            for args in [
                vec!["status", "-f", file.as_str(), "--now", now],
                vec!["status", "-f", file.as_str(), "--now", now, "-o", "json"],
                vec!["status", "-f", file.as_str(), "--now", now, "-o", "yaml"],
            ] {
                let r = run(&args);
                assert_eq!(r.code, 0, "--now {now} {args:?}: {}", r.both());
                tried += 1;
            }
        }
    }
    // A time the API cannot hold is still a usage error, in plain words.
    let r = run(&[
        "status",
        "-f",
        &example("jammed"),
        "--now",
        "10000-01-01T00:00:00Z",
    ]);
    assert_eq!(r.code, 2, "{}", r.both());
    assert!(r.stderr.contains("is not an RFC 3339 time"), "{}", r.stderr);
    assert!(!r.stderr.contains("civil"), "{}", r.stderr);
    eprintln!("{tried} runs");
}

// ---- item 4: input without bounds stops early ----

/// Runs the program with `input` as stdin (`-f -`).
fn run_stdin(input: std::process::Stdio) -> Ran {
    Ran::of(
        command(&["status", "-f", "-"])
            .stdin(input)
            .output()
            .expect("run"),
    )
}

#[test]
fn endless_or_binary_input_stops_at_the_first_byte_that_cannot_start_a_document() {
    // Before, each of these read until memory ran out (or the end of time).
    let devices = [
        ("/dev/zero", "byte 0x00"),
        ("/dev/urandom", "reading stopped there"),
    ];
    for (device, want) in devices {
        let r = run(&["status", "-f", device]);
        assert_eq!(r.code, 1, "{device}: {}", r.both());
        assert!(r.stderr.contains(want), "{device}: {}", r.stderr);
        let file = std::fs::File::open(device).expect("device");
        let r = run_stdin(file.into());
        assert_eq!(r.code, 1, "stdin from {device}: {}", r.both());
        assert!(
            r.stderr.contains("cannot read stdin"),
            "{device}: {}",
            r.stderr
        );
        assert!(r.stderr.contains(want), "stdin from {device}: {}", r.stderr);
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // A scalar alias bomb of 1 MB: stopped by the expansion budget, in
    // plain words.
    let bomb = format!(
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: &a \"{}\"\n  b: [{}]\n",
        "x".repeat(8192),
        vec!["*a"; 250_000].join(", ")
    );
    let r = run(&["status", "-f", &write(d, "bomb.yaml", &bomb)]);
    assert_eq!(r.code, 1, "{}", r.both());
    assert!(
        r.stderr.contains("aliases repeat their anchor's text"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains(" { "), "no debug syntax: {}", r.stderr);
    // A million tiny documents: the first one that is no object ends it.
    let tiny = "a: 1\n---\n".repeat(1_000_000);
    let r = run(&["status", "-f", &write(d, "tiny.yaml", &tiny)]);
    assert_eq!(r.code, 1, "{}", r.both());
    assert!(
        r.stderr.contains("document 1: field `kind`: missing"),
        "{}",
        r.stderr
    );
    // A million tiny objects of a kind the plugin ignores: stopped at the
    // document cap, memory flat (each document is dropped once read).
    let ignored = "kind: X\n---\n".repeat(1_000_000);
    let r = run(&["status", "-f", &write(d, "ignored.yaml", &ignored)]);
    assert_eq!(r.code, 1, "{}", r.both());
    assert!(r.stderr.contains("too many documents"), "{}", r.stderr);
}
