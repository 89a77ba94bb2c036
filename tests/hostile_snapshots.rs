//! Snapshot files on hostile or odd input, round two (issue 22, the
//! reading side): empty reads, duplicates, look-alike kinds, numbers and
//! parse errors in plain words. Each case runs the plugin binary on a
//! file (or stdin); the parser's own tables are in src/source/file/tests.rs.

mod common;

use common::{NOW, Ran, example, run, run_with_stdin};
use std::path::Path;

/// `status -f - ARGS` with `input` on stdin, on the examples' clock.
fn status_stdin(input: &[u8], args: &[&str]) -> Ran {
    let mut all = vec!["status", "-f", "-"];
    all.extend_from_slice(args);
    run_with_stdin(&all, input)
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).expect("example")
}

// ---- item 5: a snapshot without objects is an error ----

#[test]
fn a_read_that_found_nothing_is_an_error_whatever_the_flags() {
    // (case, stdin, said on stderr)
    let cases: &[(&str, &[u8], &str)] = &[
        ("nothing (false | ...)", b"", "holds no document"),
        (
            "an empty List",
            b"apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n",
            "no Kubernetes object",
        ),
        (
            "a Status",
            br#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"valkeynodes.valkey.io is forbidden","reason":"Forbidden","code":403}"#,
            "an API Status instead of objects (the request that wrote it failed: \"valkeynodes.valkey.io is forbidden\")",
        ),
        (
            "a Table",
            br#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":[]}"#,
            "a Table",
        ),
    ];
    for (name, input, want) in cases {
        for args in [&[][..], &["--exit-code"], &["-o", "json", "--exit-code"]] {
            let r = status_stdin(input, args);
            assert_eq!(r.code, 1, "{name} {args:?}: {}", r.both());
            assert_eq!(r.stdout, "", "{name} {args:?}");
            assert!(r.stderr.contains(want), "{name} {args:?}: {}", r.stderr);
            assert!(
                r.stderr.contains("kubectl get valkeyclusters,valkeynodes"),
                "{name}: {}",
                r.stderr
            );
        }
    }
}

// ---- item 2: duplicates are read once ----

#[test]
fn an_example_appended_to_itself_reads_as_it_does_once() {
    let jammed = read(&example("jammed"));
    let twice = [&jammed[..], b"\n---\n", &jammed[..]].concat();
    let mut ten = Vec::new();
    for _ in 0..10 {
        ten.extend_from_slice(&jammed);
        ten.extend_from_slice(b"\n---\n");
    }
    for args in [&["--exit-code"][..], &["-o", "json", "--exit-code"]] {
        let once = status_stdin(&jammed, args);
        assert_eq!(once.code, 3, "{}", once.both());
        assert!(!once.stderr.contains("warning"), "{}", once.stderr);
        for (name, text, copies) in [("twice", &twice, 2), ("ten times", &ten, 10)] {
            let r = status_stdin(text, args);
            assert_eq!(
                (r.code, &r.stdout),
                (once.code, &once.stdout),
                "{name} {args:?}: {}",
                r.stderr
            );
            let warnings: Vec<&str> = r.stderr.lines().collect();
            assert_eq!(warnings.len(), 1, "{name}: {}", r.stderr);
            assert!(
                warnings[0].starts_with("warning: the snapshot holds 65 object(s) more than once"),
                "{name}: {}",
                r.stderr
            );
            assert!(
                warnings[0].contains(&format!("ValkeyCluster prod/cache ({copies} copies)")),
                "{name}: {}",
                r.stderr
            );
            assert!(warnings[0].ends_with("and 60 more"), "{name}: {}", r.stderr);
        }
    }
}

/// Steering reads a file too (`--dry-run=client`): its plan is made from the
/// copies read once, and it says so as status does.
#[test]
fn a_steering_plan_from_an_appended_file_warns_once() {
    let dir = std::env::temp_dir().join(format!("kvr-dup-steer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let jammed = read(&example("jammed"));
    let once_path = dir.join("once.yaml");
    let twice_path = dir.join("twice.yaml");
    std::fs::write(&once_path, &jammed).expect("write");
    std::fs::write(&twice_path, [&jammed[..], b"\n---\n", &jammed[..]].concat()).expect("write");
    let grant = |path: &Path| {
        let path = path.display().to_string();
        run(&["grant", "cache-1-1", "-f", &path, "--dry-run=client"])
    };
    let once = grant(&once_path);
    let twice = grant(&twice_path);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!once.stderr.contains("more than once"), "{}", once.both());
    assert_eq!(
        (twice.code, &twice.stdout),
        (once.code, &once.stdout),
        "{}",
        twice.stderr
    );
    let warned: Vec<&str> = twice
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning: the snapshot holds 65 object(s) more than once"))
        .collect();
    assert_eq!(warned.len(), 1, "{}", twice.both());
    assert_eq!(
        twice.stderr.replacen(warned[0], "", 1).trim(),
        once.stderr.trim(),
        "the warning is the only difference"
    );
}

/// Every command that reads a file says it held copies, once, whatever it
/// shows; the ones that read only a live cluster (`wait`, `status --watch`,
/// `bundle`) refuse `-f` before reading it, so have nothing to warn about.
#[test]
fn every_command_reading_an_appended_file_warns_once() {
    let dir = std::env::temp_dir().join(format!("kvr-dup-all-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let jammed = read(&example("jammed"));
    let twice = dir.join("twice.yaml");
    std::fs::write(&twice, [&jammed[..], b"\n---\n", &jammed[..]].concat()).expect("write");
    let twice = twice.display().to_string();
    // Without the examples' clock for the commands that run on the real
    // one (`--now` would be refused first).
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["-f", &twice]);
        Ran::of(
            std::process::Command::new(common::BIN)
                .args(&all)
                .env_remove("KUBECONFIG")
                .output()
                .expect("run"),
        )
    };
    let warning = "warning: the snapshot holds 65 object(s) more than once";
    for args in [
        &["status", "--now", NOW][..],
        &["status", "-o", "json", "--now", NOW],
        &["explain", "cache", "--now", NOW],
        &["explain", "cache-1-0", "--now", NOW],
        &["history", "cache", "--now", NOW],
        &["grant", "cache-1-1", "--dry-run=client", "--now", NOW],
        &["revoke", "cache-1-0", "--dry-run=client", "--now", NOW],
    ] {
        let r = run(args);
        let warned = r.stderr.lines().filter(|l| l.starts_with(warning)).count();
        assert_eq!(warned, 1, "{args:?}: {}", r.both());
    }
    for args in [&["wait"][..], &["status", "--watch"], &["bundle"]] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.both());
        assert!(
            r.stderr.contains("not -f/--filename"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains(warning), "{args:?}: {}", r.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
