//! Issue 21, "fit the terminal": what a person sees on an 80- and a
//! 60-column terminal, taken through a real pseudo-terminal of that size
//! (the program asks the terminal its width, as it does for people):
//! `status`, `explain` (the cluster and the node that matters) and
//! `history` on every bundled example, P1 and P2, against goldens in
//! `tests/golden/screens/`. No line is longer than the terminal except one
//! made of a single word that cannot be broken (a whole hash, a command to
//! paste). Piped, the same commands keep whole lines, and `-o json|yaml`
//! is the same document byte for byte whatever the width.
//!
//! `UPDATE_GOLDEN=1 cargo test --test screens` writes the goldens anew;
//! the diff is the review.

#![cfg(target_os = "linux")]

mod common;

use common::{BIN, NOW, example, root};

use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

/// (example, its cluster, the node that matters): every bundled example.
const EXAMPLES: &[(&str, &str, &str)] = &[
    ("jammed", "cache", "cache-1-0"),
    ("jammed-p1", "cache", "cache-1-1"),
    ("rolling", "sessions", "sessions-0-1"),
    ("converged", "cache", "cache-0-1"),
];

/// The commands shown of each example.
fn commands(cluster: &str, node: &str) -> Vec<Vec<String>> {
    [
        vec!["status"],
        vec!["explain", cluster],
        vec!["explain", node],
        vec!["history"],
    ]
    .into_iter()
    .map(|c| c.into_iter().map(str::to_string).collect())
    .collect()
}

/// A pseudo-terminal of `columns` columns and 40 rows.
fn pty(columns: u16) -> (File, OwnedFd) {
    let mut master: libc::c_int = -1;
    let mut slave: libc::c_int = -1;
    let size = libc::winsize {
        ws_row: 40,
        ws_col: columns,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors it opened into our variables;
    // the name and termios arguments may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors are open and owned by nothing else.
    unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

/// The program's stdout on a terminal `columns` wide (no colour, no
/// COLUMNS: the width is the terminal's), line ends as written.
fn on_terminal(args: &[String], columns: u16) -> String {
    let (mut master, slave) = pty(columns);
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .args(["--now", NOW])
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .env_remove("KUBECONFIG")
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
            // Linux answers EIO once every writer has closed the terminal.
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) => panic!("reading the terminal: {e}"),
        }
    }
    child.wait().expect("wait");
    // The terminal turns each newline into CR LF.
    String::from_utf8_lossy(&out).replace("\r\n", "\n")
}

/// The program's stdout, piped.
fn piped(args: &[String]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .args(["--now", NOW])
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .env_remove("KUBECONFIG")
        .output()
        .expect("run");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The words of a line: split at spaces, a span in backticks one word.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut ticks = false;
    for c in line.chars() {
        if c == ' ' && !ticks {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            continue;
        }
        if c == '`' {
            ticks = !ticks;
        }
        word.push(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Lines wider than `columns` that are not one unbreakable word (after
/// their indentation, and a list's `- `).
fn too_wide(screen: &str, columns: usize) -> Vec<String> {
    // A suggested command stands whole on its own line, however wide, so
    // it can be copied (issue 22).
    let one_word = |l: &str| {
        let body = l.trim_start();
        words(body.strip_prefix("- ").unwrap_or(body)).len() <= 1 || body.starts_with("kubectl ")
    };
    screen
        .lines()
        .filter(|l| l.chars().count() > columns && !one_word(l))
        .map(|l| format!("{} columns: {l}", l.chars().count()))
        .collect()
}

/// Cluster names of these lengths (63: the longest label value the API
/// takes), in place of the jammed examples' `cache` (issue 30, item 11).
const LONG_NAMES: [usize; 3] = [30, 50, 63];

/// (golden name, snapshot file, its cluster, the node that matters): every
/// bundled example, and the jammed ones again with each long name.
fn screens() -> Vec<(String, String, String, String)> {
    let mut out: Vec<(String, String, String, String)> = EXAMPLES
        .iter()
        .map(|(name, cluster, node)| {
            (
                name.to_string(),
                example(name),
                cluster.to_string(),
                node.to_string(),
            )
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("screens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, _, node) in EXAMPLES.iter().filter(|(n, ..)| n.starts_with("jammed")) {
        let text = std::fs::read_to_string(example(name)).expect("example");
        for len in LONG_NAMES {
            let long = format!("c{}", "a".repeat(len - 1));
            let file = dir.join(format!("{name}-{len}.yaml"));
            std::fs::write(&file, text.replace("cache", &long)).expect("write");
            out.push((
                format!("{name}-name{len}"),
                file.display().to_string(),
                long.clone(),
                node.replace("cache", &long),
            ));
        }
    }
    out
}

#[test]
fn screens_at_80_and_60_columns() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let dir = root().join("tests/golden/screens");
    if update {
        std::fs::create_dir_all(&dir).expect("golden dir");
    }
    let mut failures = Vec::new();
    for (name, file, cluster, node) in screens() {
        for command in commands(&cluster, &node) {
            let mut args = command.clone();
            args.extend(["-f".to_string(), file.clone()]);
            for columns in [80u16, 60] {
                let screen = on_terminal(&args, columns);
                let what = format!("{name}: {} at {columns}", command.join(" "));
                assert!(!screen.trim().is_empty(), "{what}: nothing on the screen");
                for line in too_wide(&screen, usize::from(columns)) {
                    failures.push(format!("{what}: {line}"));
                }
                // A long name is written `name<length>` in the file's name.
                let shown = command
                    .join("_")
                    .replace(&cluster, &format!("name{}", cluster.len()));
                let shown = if cluster == "cache" || cluster == "sessions" {
                    command.join("_")
                } else {
                    shown
                };
                let golden = dir.join(format!("{name}.{shown}.{columns}.txt"));
                if update {
                    std::fs::write(&golden, &screen).expect("write golden");
                    continue;
                }
                let want = std::fs::read_to_string(&golden)
                    .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
                if screen != want {
                    failures.push(format!(
                        "{what}: differs from {}:\n{screen}",
                        golden.display()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rule the screens are held to fails on a line that breaks it.
#[test]
fn the_width_rule_catches_a_long_line() {
    assert_eq!(too_wide("a b\nabcdefghij\n", 5).len(), 0);
    assert_eq!(too_wide("  abcdef ghij\n", 5).len(), 1);
    assert_eq!(too_wide("  - abcdefghij\n", 5).len(), 0);
    assert_eq!(too_wide("  - abcdef ghij\n", 5).len(), 1);
    assert_eq!(
        too_wide("  `kubectl valkey-roll explain cache-1-0 -n prod`.\n", 20).len(),
        0
    );
    assert_eq!(
        too_wide("      kubectl valkey-roll explain cache-1-0 -n prod\n", 20).len(),
        0
    );
    assert_eq!(
        too_wide("    then kubectl valkey-roll explain cache-1-0\n", 20).len(),
        1
    );
}

/// The headline wraps at words, never inside one: the jammed example's
/// reason, cut mid-word on an 80-column terminal before issue 21
/// ("CrashLoopBack|Off"), reads whole.
#[test]
fn no_word_is_broken_on_a_narrow_terminal() {
    for columns in [80, 60, 50] {
        let args: Vec<String> = ["status", "-f", &example("jammed")]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let screen = on_terminal(&args, columns);
        assert!(
            screen.contains("CrashLoopBackOff"),
            "{columns} columns:\n{screen}"
        );
        assert!(
            too_wide(&screen, usize::from(columns)).is_empty(),
            "{columns} columns:\n{screen}"
        );
    }
}

/// Piped, nothing is fitted: the table keeps whole lines and REASON is
/// whole; `-o json` and `-o yaml` are the same bytes on a terminal of any
/// width and piped.
#[test]
fn piped_lines_are_whole_and_documents_do_not_depend_on_the_width() {
    let args: Vec<String> = ["status", "-f", &example("jammed")]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let whole = piped(&args);
    assert!(
        whole.contains("pod valkey-cache-1-0-0 CrashLoopBackOff (restarts 7)"),
        "{whole}"
    );
    assert!(
        whole.lines().any(|l| l.chars().count() > 120),
        "piped lines are not fitted:\n{whole}"
    );
    for (name, cluster, node) in EXAMPLES {
        for mut command in commands(cluster, node) {
            for format in ["json", "yaml"] {
                command.extend([
                    "-f".to_string(),
                    example(name),
                    "-o".to_string(),
                    format.to_string(),
                ]);
                let want = piped(&command);
                assert!(!want.is_empty(), "{name} {command:?}");
                for columns in [80, 60] {
                    let got = on_terminal(&command, columns);
                    assert_eq!(got, want, "{name} {command:?} at {columns}");
                }
                let mut narrow = command.clone();
                narrow.extend(["--width".to_string(), "40".to_string()]);
                assert_eq!(piped(&narrow), want, "{name} {command:?} --width 40");
                command.truncate(command.len() - 4);
            }
        }
    }
}

/// `--width` and `COLUMNS` fit piped output too (for tests and for
/// people), `--width 0` turns fitting off on a terminal.
#[test]
fn width_and_columns_override() {
    let args = |extra: &[&str]| -> Vec<String> {
        ["status", "-f", &example("jammed")]
            .iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect()
    };
    let by_flag = piped(&args(&["--width", "60"]));
    assert!(too_wide(&by_flag, 60).is_empty(), "{by_flag}");
    assert_eq!(by_flag, on_terminal(&args(&[]), 60));
    let by_env = Command::new(BIN)
        .args(args(&[]))
        .args(["--now", NOW])
        .env("COLUMNS", "60")
        .env("NO_COLOR", "1")
        .output()
        .expect("run");
    assert_eq!(String::from_utf8_lossy(&by_env.stdout), by_flag);
    let unfitted = on_terminal(&args(&["--width", "0"]), 60);
    assert_eq!(unfitted, piped(&args(&[])));
}
