//! The output side of hostile input, round two (issue 22): usage errors
//! show what was typed, look-alike characters are visible, long lists in
//! errors are cut, completion offers only real names, and text output
//! stays linear in a name's length. Each case runs the plugin binary.

mod common;

use common::run;
use kubectl_valkey_roll::fixture;
use std::path::{Path, PathBuf};

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

// ---- item 3: completion offers only names that need no quoting ----

/// Names the probe typed in through kubectl's completion: each would need
/// quoting, so none is a real Kubernetes name.
const UNTYPABLE: &[&str] = &[
    "x;touch PWNED",
    "a b",
    "-n",
    "$(id)",
    "`id`",
    "it's",
    "say\"hi\"",
    "x\nrm",
    "x\ttab",
    "x*",
    "X-upper",
];

/// A P1 cluster in `prod` with the node `cache-0-0` and a node for each
/// hostile name, as `kubectl get -o json` would write them.
fn hostile_snapshot(names: &[&str]) -> String {
    let mut cluster = fixture::cluster("prod", "cache")
        .image("valkey:8")
        .node(fixture::node("cache-0-0").image("valkey:8").ready());
    for name in names {
        cluster = cluster.node(fixture::node(name).image("valkey:8").ready());
    }
    fixture::list_json(&fixture::snapshot_of(&[&cluster]))
}

/// kubectl: `KUBECTL` (testbin/test.sh exports the one build.sh built).
fn kubectl() -> Option<PathBuf> {
    std::env::var_os("KUBECTL")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
}

/// Runs kubectl's own bash completion for `kubectl valkey-roll WORDS<TAB>`
/// (the last word the one being completed), with the plugin and its
/// completion helper on PATH as an install puts them; returns COMPREPLY.
fn bash_complete(kubectl: &Path, dir: &Path, words: &[&str]) -> Vec<String> {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let links = [
        ("kubectl", kubectl.to_path_buf()),
        (
            "kubectl-valkey_roll",
            PathBuf::from(env!("CARGO_BIN_EXE_kubectl-valkey_roll")),
        ),
        (
            "kubectl_complete-valkey_roll",
            root.join("completions/kubectl_complete-valkey_roll"),
        ),
    ];
    for (name, target) in links {
        let link = bin.join(name);
        if !link.exists() {
            std::os::unix::fs::symlink(&target, &link)
                .unwrap_or_else(|e| panic!("link {name}: {e}"));
        }
    }
    // Without the bash-completion package, kubectl's script needs its
    // word splitter: a stand-in that takes the words as given.
    let script = r#"
source <(kubectl completion bash)
if ! declare -F _get_comp_words_by_ref >/dev/null; then
  _get_comp_words_by_ref() {
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  }
fi
COMP_WORDS=(kubectl valkey-roll "$@")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
__start_kubectl
printf '%s\0' "${COMPREPLY[@]}"
"#;
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg("bash")
        .args(words)
        .current_dir(dir)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env_remove("KUBECONFIG")
        .env("HOME", dir)
        .output()
        .expect("bash");
    assert!(out.status.success(), "bash: {out:?}");
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn kubectls_bash_completion_never_types_a_name_that_needs_quoting() {
    let Some(kubectl) = kubectl() else {
        eprintln!("skipped: no KUBECTL (bash testbin/build.sh kube builds it)");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let snap = write(d, "snap.json", &hostile_snapshot(UNTYPABLE));
    // (case, words after `kubectl valkey-roll`, the last being completed)
    let cases: &[(&str, &[&str])] = &[
        ("every node", &["explain", "-f", &snap, ""]),
        ("nodes from x", &["explain", "-f", &snap, "x"]),
        ("nodes to grant", &["grant", "-f", &snap, ""]),
        ("nodes to revoke", &["revoke", "-f", &snap, ""]),
    ];
    for (case, words) in cases {
        let reply = bash_complete(&kubectl, d, words);
        if words.last() == Some(&"") {
            assert!(
                reply.iter().any(|w| w == "cache-0-0"),
                "{case}: the real name is not offered: {reply:?}"
            );
        }
        for word in &reply {
            assert!(
                !UNTYPABLE.iter().any(|n| word.contains(n)),
                "{case}: offers {word:?}: {reply:?}"
            );
            assert!(
                word.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-.".contains(c)),
                "{case}: offers {word:?}"
            );
        }
    }
    assert!(!d.join("PWNED").exists(), "a completion ran a command");
}

// ---- item 4: text output linear in a name's length ----

#[test]
fn a_multi_megabyte_name_is_cut_in_text_and_whole_in_json() {
    // Before: a 4 MB name took about 40 s for `status` in a debug build
    // (comfy-table measured it again for every character it split off).
    const LIMIT: std::time::Duration = std::time::Duration::from_secs(20);
    let dir = tempfile::tempdir().expect("tempdir");
    let name = format!("cache-0-1{}", "x".repeat(4 << 20));
    let cluster = fixture::cluster("prod", "cache").image("valkey:8").node(
        fixture::node(&name)
            .image("valkey:8")
            .ready()
            .last_rollout_hash("h0")
            .permit("h1")
            .trace("h1", "alice", fixture::t(-3600), "canary"),
    );
    let snap = write(
        dir.path(),
        "snap.json",
        &fixture::list_json(&fixture::snapshot_of(&[&cluster])),
    );
    let shown = format!("cache-0-1{}…", "x".repeat(253 - "cache-0-1".len()));
    // (case, args, whole: the name is printed whole)
    let cases: &[(&str, &[&str], bool)] = &[
        ("status", &["status", "-f", &snap], false),
        (
            "status, 80 columns",
            &["status", "-f", &snap, "--width", "80"],
            false,
        ),
        (
            "status -o wide",
            &["status", "-f", &snap, "-o", "wide"],
            false,
        ),
        // A node so named cannot be asked for: an argument holds at most
        // 128 KiB. Its cluster lists it, in a table and in prose.
        (
            "explain the cluster",
            &["explain", "-f", &snap, "cache"],
            false,
        ),
        (
            "explain the cluster, 80 columns",
            &["explain", "-f", &snap, "--width", "80", "cache"],
            false,
        ),
        ("history", &["history", "-f", &snap, "cache"], false),
        (
            "status -o json",
            &["status", "-f", &snap, "-o", "json"],
            true,
        ),
        (
            "status -o yaml",
            &["status", "-f", &snap, "-o", "yaml"],
            true,
        ),
    ];
    let mut failures = Vec::new();
    for (case, args, whole) in cases {
        let start = std::time::Instant::now();
        let r = run(args);
        let took = start.elapsed();
        if r.code != 0 {
            failures.push(format!("{case}: exit {}: {}", r.code, &r.stderr));
        }
        if took > LIMIT {
            failures.push(format!("{case}: took {took:?}"));
        }
        let has_whole = r.stdout.contains(&name);
        if has_whole != *whole {
            failures.push(format!("{case}: the whole name printed: {has_whole}"));
        }
        if !whole && !r.stdout.contains(&shown) {
            failures.push(format!(
                "{case}: the name is not shown cut at 253 characters"
            ));
        }
        eprintln!("{case}: {took:?}, {} bytes", r.stdout.len());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The jammed example with its stuck node's name made `len` bytes long,
/// wherever it names that node (the node, its labels, its events).
fn jammed_with_a_long_name(len: usize) -> (String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/jammed.yaml");
    let text = std::fs::read_to_string(path).expect("examples/jammed.yaml");
    let name = format!("cache-1-0{}", "x".repeat(len - "cache-1-0".len()));
    let mut out = text;
    for before in ["name: ", "instance: ", "ValkeyNode "] {
        out = out.replace(
            &format!("{before}cache-1-0\n"),
            &format!("{before}{name}\n"),
        );
    }
    (out, name)
}

#[test]
fn no_line_of_text_carries_a_megabyte_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (text, name) = jammed_with_a_long_name(1 << 20);
    let snap = write(dir.path(), "jammed.yaml", &text);
    let mut failures = Vec::new();
    for args in [
        vec!["status", "-f", &snap],
        vec!["status", "-f", &snap, "-o", "wide"],
        vec!["explain", "-f", &snap, "cache"],
        vec!["explain", "-f", &snap, "--width", "80", "cache"],
        vec!["history", "-f", &snap, "cache"],
    ] {
        let r = run(&args);
        let longest = r.stdout.lines().map(str::len).max().unwrap_or(0);
        if r.code > 3 || r.stdout.contains(&name) || longest > 2000 {
            failures.push(format!(
                "{}: exit {}, longest line {longest}: {:.300}",
                args.join(" "),
                r.code,
                r.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- item 10: look-alikes shown, long lists cut, `-n ''` refused ----

#[test]
fn look_alike_characters_in_names_are_shown_as_codes() {
    let dir = tempfile::tempdir().expect("tempdir");
    // (case, name, shown)
    let cases: &[(&str, &str, &str)] = &[
        ("a no-break space", "cache\u{a0}0", "cache\\u{a0}0"),
        ("a combining accent", "cafe\u{301}-0", "cafe\\u{301}-0"),
        ("a zero-width space", "cache\u{200b}-0", "cache\\u{200b}-0"),
        ("an ideographic space", "cache\u{3000}0", "cache\\u{3000}0"),
        (
            "a variation selector",
            "cache\u{fe0f}-0",
            "cache\\u{fe0f}-0",
        ),
        ("a thin space", "cache\u{2009}0", "cache\\u{2009}0"),
    ];
    let mut failures = Vec::new();
    for (case, name, shown) in cases {
        let snap = write(dir.path(), "snap.json", &hostile_snapshot(&[name]));
        for args in [
            vec!["status", "-f", &snap],
            vec!["explain", "-f", &snap, "cache"],
        ] {
            let r = run(&args);
            if r.code != 0 || !r.stdout.contains(shown) || r.stdout.contains(name) {
                failures.push(format!("{case}, {}: {}", args[0], r.both()));
            }
        }
    }
    // Letters that take a column stay readable.
    let snap = write(
        dir.path(),
        "snap.json",
        &hostile_snapshot(&["caf\u{e9}-\u{65e5}\u{672c}"]),
    );
    let r = run(&["status", "-f", &snap]);
    if !r.stdout.contains("caf\u{e9}-\u{65e5}\u{672c}") {
        failures.push(format!("letters: {}", r.stdout));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_error_about_a_thousand_namespaces_names_ten_and_counts_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let clusters: Vec<fixture::ClusterBuilder> = (0..1000)
        .map(|i| {
            fixture::cluster(&format!("ns-{i:04}"), "cache")
                .image("valkey:8")
                .node(fixture::node("cache-0-0").image("valkey:8").ready())
        })
        .collect();
    let refs: Vec<&fixture::ClusterBuilder> = clusters.iter().collect();
    let snap = write(
        dir.path(),
        "snap.json",
        &fixture::list_json(&fixture::snapshot_of(&refs)),
    );
    // (case, args)
    let cases: &[(&str, &[&str])] = &[
        ("explain a node", &["explain", "-f", &snap, "cache-0-0"]),
        ("explain a cluster", &["explain", "-f", &snap, "cache"]),
        (
            "revoke a node",
            &["revoke", "-f", &snap, "--dry-run=client", "cache-0-0"],
        ),
    ];
    let mut failures = Vec::new();
    for (case, args) in cases {
        let r = run(args);
        let longest = r.stderr.lines().map(str::len).max().unwrap_or(0);
        if r.code != 2
            || !r.stderr.contains("ns-0009, … and 990 more")
            || r.stderr.contains("ns-0010")
            || longest > 300
        {
            failures.push(format!(
                "{case}: exit {}, longest line {longest}: {:.400}",
                r.code, r.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_empty_namespace_is_a_usage_error() {
    // (case, args)
    let cases: &[(&str, &[&str])] = &[
        ("-n ''", &["status", "-n", "", "-f", "-"]),
        ("--namespace=", &["status", "--namespace=", "-f", "-"]),
        ("-n ' '", &["explain", "x", "-n", " ", "-f", "-"]),
    ];
    for (case, args) in cases {
        let r = run(args);
        assert_eq!(r.code, 2, "{case}: {}", r.both());
        assert!(
            r.stderr.contains("must not be empty"),
            "{case}: {}",
            r.stderr
        );
    }
}
