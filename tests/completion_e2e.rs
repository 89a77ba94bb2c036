//! kubectl's plugin completion against the real API server: the helper
//! `kubectl_complete-valkey_roll` (as kubectl runs it, and through the real
//! kubectl's `__complete`) offers the nodes that make sense first, and says
//! nothing, exiting 0, when the cluster cannot be read.

mod harness;

use harness::sim::{self, Layout, Sim};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A directory laid out as an install puts things on PATH: both names of
/// the program and the completion helper.
struct PathDir {
    dir: tempfile::TempDir,
}

impl PathDir {
    fn new() -> PathDir {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let links = [
            (
                "kubectl-valkey-roll",
                PathBuf::from(env!("CARGO_BIN_EXE_kubectl-valkey-roll")),
            ),
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
            std::os::unix::fs::symlink(&target, dir.path().join(name))
                .unwrap_or_else(|e| panic!("link {name}: {e}"));
        }
        PathDir { dir }
    }

    fn path_var(&self) -> String {
        format!("{}:/usr/bin:/bin", self.dir.path().display())
    }

    /// Runs the helper as kubectl does: the words after the plugin's name.
    fn complete(&self, kubeconfig: &Path, words: &[&str]) -> Output {
        Command::new(self.dir.path().join("kubectl_complete-valkey_roll"))
            .args(words)
            .env("PATH", self.path_var())
            .env("KUBECONFIG", kubeconfig)
            .output()
            .expect("run kubectl_complete-valkey_roll")
    }

    /// [`PathDir::complete`] where the answer comes from the live server.
    /// The helper gives up after 2 s and offers nothing (`:4` alone); on a
    /// busy test machine a read can miss that limit, so an empty answer is
    /// asked again, a few times. A wrong answer is never retried away: it
    /// is not `:4` alone.
    fn complete_live(&self, kubeconfig: &Path, words: &[&str]) -> Output {
        retry_gave_up(|| self.complete(kubeconfig, words))
    }
}

/// Runs `complete` again, up to three times in all, while it answers only
/// the "gave up" directive `:4`.
fn retry_gave_up(complete: impl Fn() -> Output) -> Output {
    let mut out = complete();
    for _ in 1..3 {
        if out.stdout != b":4\n" {
            break;
        }
        out = complete();
    }
    out
}

/// The candidate values (descriptions dropped) and the directive line.
fn parse(out: &Output) -> (Vec<String>, String) {
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines: Vec<&str> = text.lines().collect();
    let directive = match lines.last() {
        Some(l) if l.starts_with(':') => lines.pop().unwrap_or_default().to_string(),
        _ => String::new(),
    };
    let values = lines
        .iter()
        .map(|l| l.split('\t').next().unwrap_or_default().to_string())
        .collect();
    (values, directive)
}

fn assert_silent(out: &Output, what: &str) {
    assert_eq!(out.status.code(), Some(0), "{what}: {out:?}");
    assert!(out.stderr.is_empty(), "{what}: stderr {out:?}");
}

/// Two shards of two nodes; every node asks for `h`, and cache-1-1 holds the
/// permit (docs/plugin.md, builder-only roll, rows 2 and 3). Walk order: shard 0
/// (replica cache-0-1, then primary cache-0-0), then shard 1.
async fn rolling_cluster(ns: &str) -> Sim {
    let s = harness::server();
    let layout = Layout {
        shards: 2,
        ..Layout::default()
    };
    let sim = Sim::build(s.client().await, ns, "cache", &layout).await;
    let h = sim::hash("completion");
    sim.ask(&["cache-0-0", "cache-0-1", "cache-1-0", "cache-1-1"], &h)
        .await;
    sim.node_at(1, 1).grant(&h).await;
    sim.event_permitted("cache-1-1", &h).await;
    sim
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_that_make_sense_come_first() {
    let s = harness::server();
    let ns = s.fresh_namespace("complete");
    let _sim = rolling_cluster(&ns).await;
    let other = Sim::build(s.client().await, &ns, "store", &Layout::default()).await;
    let path = PathDir::new();
    let kubeconfig = s.kubeconfig_in(&ns);

    let waiting = ["cache-0-1", "cache-0-0", "cache-1-0"];
    let all_nodes_waiting_first = [
        "cache-0-1",
        "cache-0-0",
        "cache-1-0",
        "cache-1-1",
        "store-0-1",
        "store-0-0",
    ];
    // (words, expected candidates in order)
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["grant", ""], all_nodes_waiting_first.to_vec()),
        (
            vec!["force", "--reason", "r", ""],
            all_nodes_waiting_first.to_vec(),
        ),
        (
            vec!["grant", "cache-"],
            waiting.iter().copied().chain(["cache-1-1"]).collect(),
        ),
        (
            vec!["revoke", ""],
            vec![
                "cache-1-1",
                "cache-0-1",
                "cache-0-0",
                "cache-1-0",
                "store-0-1",
                "store-0-0",
            ],
        ),
        (
            vec!["explain", ""],
            vec![
                "cache-1-1",
                "cache-0-1",
                "cache-0-0",
                "cache-1-0",
                "store-0-1",
                "store-0-0",
                "cache",
                "store",
            ],
        ),
        (vec!["status", ""], vec!["cache", "store"]),
        (vec!["wait", "st"], vec!["store"]),
        (vec!["grant", "x", ""], vec![]),
    ];
    for (words, want) in &cases {
        let out = path.complete_live(&kubeconfig, words);
        assert_silent(&out, &format!("{words:?}"));
        let (values, directive) = parse(&out);
        assert_eq!(&values, want, "{words:?}: {out:?}");
        // No file names; the order as given.
        assert_eq!(directive, ":36", "{words:?}");
    }
    drop(other);

    // The description carries the state and the queue position.
    let out = path.complete_live(&kubeconfig, &["grant", "cache-0-1"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("cache-0-1\tWaiting, queue 1 ({ns}/cache)\n:36\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flags_on_the_words_choose_the_cluster() {
    let s = harness::server();
    let ns = s.fresh_namespace("complete-flags");
    let _sim = rolling_cluster(&ns).await;
    let path = PathDir::new();
    let admin = s.kubeconfig(); // its context's namespace is not `ns`
    let missing = Path::new("/nonexistent/kubeconfig");
    let admin_str = admin.display().to_string();
    let cases: Vec<(&Path, Vec<&str>, Vec<&str>)> = vec![
        // Without -n the context's namespace has no clusters.
        (admin, vec!["status", ""], vec![]),
        (admin, vec!["-n", &ns, "status", ""], vec!["cache"]),
        (admin, vec!["status", "--namespace", &ns, ""], vec!["cache"]),
        (admin, vec!["-A", "status", "ca"], vec!["cache"]),
        (
            missing,
            vec!["--kubeconfig", &admin_str, "-n", &ns, "revoke", "cache-1"],
            vec!["cache-1-1", "cache-1-0"],
        ),
        (
            missing,
            vec![
                "revoke",
                "--kubeconfig",
                &admin_str,
                "--context",
                "testbin",
                "-n",
                &ns,
                "cache-1",
            ],
            vec!["cache-1-1", "cache-1-0"],
        ),
        // A context that does not exist: nothing, silently.
        (
            admin,
            vec!["--context", "nowhere", "-n", &ns, "status", ""],
            vec![],
        ),
    ];
    for (kubeconfig, words, want) in &cases {
        let out = path.complete_live(kubeconfig, words);
        assert_silent(&out, &format!("{words:?}"));
        assert_eq!(&parse(&out).0, want, "{words:?}: {out:?}");
    }
    // Namespaces come from the server.
    let out = path.complete_live(admin, &["-n", &ns[..ns.len() - 1]]);
    assert_silent(&out, "-n");
    assert!(parse(&out).0.contains(&ns), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_kubectl_asks_the_helper() {
    let s = harness::server();
    let ns = s.fresh_namespace("complete-kubectl");
    let _sim = rolling_cluster(&ns).await;
    let path = PathDir::new();
    let out = retry_gave_up(|| {
        Command::new(&s.bins().kubectl)
            .args(["__complete", "valkey-roll", "grant", ""])
            .env("PATH", path.path_var())
            .env("KUBECONFIG", s.kubeconfig_in(&ns))
            .output()
            .expect("run kubectl")
    });
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let (values, directive) = parse(&out);
    assert_eq!(
        values,
        ["cache-0-1", "cache-0-0", "cache-1-0", "cache-1-1"],
        "{out:?}"
    );
    // cobra's ShellCompDirectiveNoFileComp | ShellCompDirectiveKeepOrder.
    assert_eq!(directive, ":36");
}

/// Unreachable or hanging servers give no candidates, exit 0, no stderr,
/// and within the helper's time limit (2 s) plus start-up.
#[test]
fn silent_and_quick_when_the_cluster_cannot_be_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Accepts connections and never answers: only the time limit ends it.
    let hang = TcpListener::bind("127.0.0.1:0").expect("bind");
    let hang_port = hang.local_addr().expect("addr").port();
    // Bound, then closed: connection refused.
    let refused_port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("addr")
        .port();
    let kubeconfig = |name: &str, port: u16| {
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: c\n\
                 clusters: [{{name: c, cluster: {{server: 'https://127.0.0.1:{port}', insecure-skip-tls-verify: true}}}}]\n\
                 users: [{{name: u, user: {{token: t}}}}]\n\
                 contexts: [{{name: c, context: {{cluster: c, user: u, namespace: ns}}}}]\n"
            ),
        )
        .expect("write kubeconfig");
        path
    };
    let garbage = dir.path().join("garbage");
    std::fs::write(&garbage, "{ not: [ yaml").expect("write");
    // A kubeconfig exec credential plugin that never answers (a login
    // prompt nobody sees): it runs before any connection and blocks its
    // thread, so only the time limit, and not waiting for it on the way
    // out, ends the helper. It leaves its pid to be killed after.
    let exec_pid = dir.path().join("exec.pid");
    let exec_plugin = dir.path().join("credential-plugin");
    std::fs::write(
        &exec_plugin,
        format!(
            "#!/bin/sh\necho $$ > '{}'\nexec sleep 120\n",
            exec_pid.display()
        ),
    )
    .expect("write the plugin");
    std::fs::set_permissions(&exec_plugin, std::fs::Permissions::from_mode(0o755))
        .expect("chmod the plugin");
    let blocking_exec = dir.path().join("blocking-exec");
    std::fs::write(
        &blocking_exec,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\n\
             clusters: [{{name: c, cluster: {{server: 'https://127.0.0.1:{refused_port}', insecure-skip-tls-verify: true}}}}]\n\
             users: [{{name: u, user: {{exec: {{apiVersion: client.authentication.k8s.io/v1, command: '{}', interactiveMode: Never}}}}}}]\n\
             contexts: [{{name: c, context: {{cluster: c, user: u, namespace: ns}}}}]\n",
            exec_plugin.display()
        ),
    )
    .expect("write kubeconfig");
    let path = PathDir::new();
    let cases: Vec<(&str, PathBuf, Vec<&str>)> = vec![
        (
            "refused",
            kubeconfig("refused", refused_port),
            vec!["grant", ""],
        ),
        ("hanging", kubeconfig("hang", hang_port), vec!["revoke", ""]),
        (
            "hanging namespaces",
            kubeconfig("hang2", hang_port),
            vec!["-n", ""],
        ),
        (
            "no such file",
            PathBuf::from("/nonexistent/kubeconfig"),
            vec!["explain", ""],
        ),
        ("not a kubeconfig", garbage.clone(), vec!["status", ""]),
        (
            "blocking exec credential plugin",
            blocking_exec,
            vec!["grant", ""],
        ),
        (
            "bad snapshot file",
            garbage.clone(),
            vec!["-f", garbage.to_str().unwrap_or_default(), "grant", ""],
        ),
    ];
    for (what, kubeconfig, words) in &cases {
        let start = Instant::now();
        let out = path.complete(kubeconfig, words);
        let took = start.elapsed();
        assert_silent(&out, what);
        assert_eq!(String::from_utf8_lossy(&out.stdout), ":4\n", "{what}");
        // The helper's own limit is 2 s; what this catches is the 30 s
        // request timeout or a plugin's 120 s, with room for a busy machine.
        assert!(took < Duration::from_secs(15), "{what}: took {took:?}");
    }
    drop(hang);
    if let Ok(pid) = std::fs::read_to_string(&exec_pid) {
        let _ = Command::new("kill").arg(pid.trim()).status();
    }
}
