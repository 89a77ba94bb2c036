//! Hostile input, round three (issue 30): the items that need no real API
//! server. Item 7, a text's leading white space read in linear time;
//! item 8, a failed write to stdout or to a bundle's file is an error (a
//! broken pipe is not), and a bundle is written whole or not at all;
//! item 12, a `--now` before some of a snapshot's times is warned about,
//! and a sequence nested thousands deep is worded as the documented bound.
//! `bundle` reads a fake API server this test starts on 127.0.0.1: it
//! answers every LIST with an empty List.

mod common;

use common::{Ran, command, example, run};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The program with `input` on stdin, killed if it runs past `bound`:
/// `None` then.
fn run_bounded(args: &[&str], input: Vec<u8>, bound: Duration) -> Option<Ran> {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the plugin");
    let mut stdin = child.stdin.take().expect("stdin");
    // The program may stop reading early (an error): a broken pipe is fine.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let deadline = Instant::now() + bound;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = writer.join();
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    status.map(|status| Ran {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    })
}

fn jammed() -> Vec<u8> {
    std::fs::read(example("jammed")).expect("the example")
}

// ---- item 7: leading white space in linear time ----

/// 8 MiB of blank lines and spaces before a snapshot: read as the
/// snapshot alone is, in seconds. Before, the search for the first byte
/// started again after every 4 KiB: 4 MiB took 52 s in a debug build,
/// 8 MiB some 200 s.
#[test]
fn megabytes_of_leading_white_space_are_read_in_linear_time() {
    let plain = run(&["status", "-f", &example("jammed")]);
    assert_eq!(plain.code, 0, "{}", plain.both());
    for pad in [" ", "\n", " \t\r\n"] {
        let mut input = pad.repeat(8 * 1024 * 1024 / pad.len()).into_bytes();
        input.push(b'\n');
        input.extend_from_slice(&jammed());
        let started = Instant::now();
        let ran = run_bounded(&["status", "-f", "-"], input, Duration::from_secs(60))
            .unwrap_or_else(|| panic!("{pad:?} x 8 MiB: still reading after 60 s"));
        assert_eq!(
            (ran.code, ran.stdout.as_str()),
            (plain.code, plain.stdout.as_str()),
            "{pad:?}: {}",
            ran.both()
        );
        eprintln!("{pad:?} x 8 MiB: {:?}", started.elapsed());
    }
}

// ---- item 8: failed writes ----

/// `status -o json > /dev/full` and `completion bash > /dev/full` exited
/// 0, their output lost.
#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_an_error() {
    let cases: &[&[&str]] = &[
        &["status", "-f", &example("jammed"), "-o", "json"],
        &["status", "-f", &example("jammed")],
        &["completion", "bash"],
        &["history", "-f", &example("jammed")],
    ];
    for args in cases {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = command(args)
            .stdin(Stdio::null())
            .stdout(full)
            .output()
            .expect("run");
        let ran = Ran::of(out);
        assert_eq!(ran.code, 1, "{args:?}: {}", ran.both());
        assert_eq!(
            ran.stderr.lines().last(),
            Some("error: cannot write stdout: No space left on device (os error 28)"),
            "{args:?}: {}",
            ran.both()
        );
    }
}

/// A reader that went away (`| head -1`) is not an error: nothing is said
/// and the exit code is the command's, as before.
#[test]
fn a_broken_pipe_stays_quiet() {
    for (args, code) in [
        (vec!["status", "-f", &example("jammed")], 0),
        (vec!["status", "-f", &example("jammed"), "--exit-code"], 3),
        (vec!["completion", "zsh"], 0),
    ] {
        let mut child = command(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run");
        // The reading end closes before the program writes.
        drop(child.stdout.take());
        let ran = Ran::of(child.wait_with_output().expect("wait"));
        assert_eq!(ran.code, code, "{args:?}: {}", ran.both());
        assert_eq!(ran.stderr, "", "{args:?}: {}", ran.both());
    }
}

/// A fake API server on 127.0.0.1 answering every request with an empty
/// List; the kubeconfig that leads to it, in `dir`.
fn fake_api_server(dir: &Path) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                // One request a connection: its headers (a GET has no body).
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&request);
                let path = head.split(' ').nth(1).unwrap_or("");
                // `bundle -n prod` looks the namespace up; every other
                // request is a LIST.
                let body = if path == "/api/v1/namespaces/prod" {
                    r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"prod"}}"#
                } else {
                    r#"{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":"1"},"items":[]}"#
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: http://127.0.0.1:{port}\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: u\n    namespace: prod\ncurrent-context: fake\n"
        ),
    )
    .expect("write the kubeconfig");
    kubeconfig.display().to_string()
}

/// A disk that fills after `bytes`: the process may write no file beyond
/// that size (RLIMIT_FSIZE; a write past it fails with EFBIG instead of
/// the signal, which is ignored).
#[cfg(target_os = "linux")]
fn with_full_disk(cmd: &mut std::process::Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only async-signal-safe calls are
    // made (signal, setrlimit), with no allocation.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// `bundle > FILE` on a full disk exited 0; `bundle --output-file FILE`
/// exited 1 but left the bundle's first bytes in FILE. Now both exit 1
/// with the error, and the file named is not there (or is as it was).
#[cfg(target_os = "linux")]
#[test]
fn a_bundle_on_a_full_disk_is_an_error_and_leaves_no_partial_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = fake_api_server(dir.path());
    // The fake server answers: the bundle is written whole on a free disk.
    let whole = dir.path().join("whole.yaml");
    let ran = Ran::of(
        command(&[
            "--kubeconfig",
            &kubeconfig,
            "bundle",
            "--output-file",
            &whole.display().to_string(),
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run"),
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    let size = std::fs::metadata(&whole).expect("the bundle").len();
    assert!(size > 200, "{size} bytes");

    // --output-file: nothing left behind, an older file untouched.
    for older in [None, Some("the older bundle\n")] {
        let path = dir.path().join("bundle.yaml");
        let _ = std::fs::remove_file(&path);
        if let Some(text) = older {
            std::fs::write(&path, text).expect("the older file");
        }
        let mut cmd = command(&[
            "--kubeconfig",
            &kubeconfig,
            "bundle",
            "--output-file",
            &path.display().to_string(),
        ]);
        with_full_disk(&mut cmd, size / 2);
        let ran = Ran::of(cmd.stdin(Stdio::null()).output().expect("run"));
        assert_eq!(ran.code, 1, "{}", ran.both());
        assert!(
            ran.stderr.contains("File too large"),
            "the error says why: {}",
            ran.both()
        );
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            older,
            "no partial bundle: {}",
            ran.both()
        );
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want = vec!["kubeconfig", "whole.yaml"];
        if older.is_some() {
            want.insert(0, "bundle.yaml");
        }
        assert_eq!(left, want, "no temporary file is left");
    }

    // > FILE: the shell's file, written by the program as stdout.
    let path = dir.path().join("redirected.yaml");
    let file = std::fs::File::create(&path).expect("create");
    let mut cmd = command(&["--kubeconfig", &kubeconfig, "bundle"]);
    with_full_disk(&mut cmd, size / 2);
    let ran = Ran::of(cmd.stdin(Stdio::null()).stdout(file).output().expect("run"));
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("error: cannot write stdout: File too large"),
        "{}",
        ran.both()
    );
}

// ---- item 12: the clock and deep nesting ----

/// A `--now` before some of the snapshot's times (not all) read those
/// as 0s without a word. jammed.yaml's times run from September to
/// 10:16 on 29 November.
#[test]
fn a_now_before_some_of_the_times_is_warned_about() {
    let ran = run(&[
        "--now",
        "2026-11-29T10:00:00Z",
        "status",
        "-f",
        &example("jammed"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let warning = ran
        .stderr
        .lines()
        .find(|l| l.starts_with("warning: --now 2026-11-29T10:00:00Z is before "))
        .unwrap_or_else(|| panic!("no warning: {}", ran.both()));
    assert!(
        warning.contains(" times in the snapshot (the latest is 2026-11-29T10:1"),
        "{warning}"
    );
    assert!(warning.contains("reads 0s"), "{warning}");
    // A time less than a minute after --now is clock skew: no warning.
    let ran = run(&[
        "--now",
        "2026-11-29T10:15:30Z",
        "status",
        "-f",
        &example("jammed"),
    ]);
    assert!(!ran.stderr.contains("warning: --now"), "{}", ran.both());
}

/// A flow sequence 10,000 deep said "recursion limit exceeded" (the YAML
/// scanner's own bound), not the documented "nested deeper than 128
/// levels" (docs/snapshots.md).
#[test]
fn a_sequence_nested_ten_thousand_deep_is_worded_as_the_bound() {
    let dir = tempfile::tempdir().expect("tempdir");
    let deep = |open: &str, close: &str| open.repeat(10_000) + &close.repeat(10_000);
    for (case, text) in [
        (
            "a flow sequence in a mapping",
            format!("a: {}\n", deep("[", "]")),
        ),
        (
            "an unclosed flow sequence",
            format!("a: {}\n", "[".repeat(10_000)),
        ),
        ("a flow mapping", format!("a: {}\n", deep("{b: ", "}"))),
        (
            "a JSON List's items",
            format!(
                "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":{}}}\n",
                deep("[", "]")
            ),
        ),
        (
            "a YAML List's items",
            format!("kind: List\nitems: {}\n", deep("[", "]")),
        ),
        (
            "a sequence in a sequence",
            format!("- {}\n", deep("[", "]")),
        ),
        ("block sequences", format!("{}x\n", "- ".repeat(10_000))),
    ] {
        let path = dir.path().join("deep.yaml");
        std::fs::write(&path, &text).expect("write");
        let ran = run(&["status", "-f", &path.display().to_string()]);
        assert_eq!(ran.code, 1, "{case}: {}", ran.both());
        assert!(
            ran.stderr.contains("nested deeper than 128 levels")
                && !ran.stderr.contains("recursion"),
            "{case}: {}",
            ran.both()
        );
    }
}
