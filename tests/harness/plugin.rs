//! The plugin binary as the e2e tests run it: [`Ran`], a finished run
//! (exit code and output); [`Plugin`], the binary running in the
//! background, for the commands that keep running (`wait`,
//! `status --watch`): its output is read line by line while it runs, and
//! every wait on it is bounded, so a broken build fails instead of hanging.
//!
//! ```ignore
//! let mut p = Plugin::spawn(&kubeconfig, &ns, &["wait", "cache"], BOUND);
//! p.until_stderr("a first progress line", |l| l.starts_with("cache: ")).await;
//! let status = p.exit(BOUND).await;
//! assert_eq!(status.code(), Some(0), "{}", p.transcript());
//! ```

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

pub use super::common::Ran;

/// Runs the plugin to its end with `args`, as a person off a terminal
/// would: no `KUBECONFIG` from the environment, no colour, no stdin.
pub fn run(args: &[&str]) -> Ran {
    Ran::of(
        Command::new(env!("CARGO_BIN_EXE_kubectl-valkey-roll"))
            .args(args)
            .env_remove("KUBECONFIG")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .expect("run kubectl-valkey-roll"),
    )
}

/// Runs the plugin to its end against `kubeconfig`, in namespace `ns`, off
/// the runtime's thread: what runs on the runtime meanwhile (the operator
/// simulator) goes on. No colour, no stdin.
pub async fn run_in(kubeconfig: &Path, ns: &str, args: &[&str]) -> Ran {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-valkey-roll"));
    cmd.arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("-n")
        .arg(ns)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .expect("join")
        .expect("run kubectl-valkey-roll");
    Ran::of(out)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Out,
    Err,
}

/// The plugin binary running in the background; killed when dropped.
pub struct Plugin {
    child: Child,
    rx: mpsc::UnboundedReceiver<(Stream, String)>,
    /// The lines read so far.
    pub stdout: Vec<String>,
    pub stderr: Vec<String>,
    args: Vec<String>,
    /// How long [`Plugin::until`] waits.
    bound: Duration,
}

impl Plugin {
    /// Runs the plugin with `--kubeconfig <kubeconfig> -n <ns>` and `args`;
    /// [`Plugin::until`] waits at most `bound`.
    pub fn spawn(kubeconfig: &Path, ns: &str, args: &[&str], bound: Duration) -> Plugin {
        Plugin::start(with_connection(kubeconfig, ns, args), bound, None)
    }

    /// [`Plugin::spawn`] with stdout on `terminal` (a pseudo-terminal's
    /// slave side, which the test reads itself) instead of a pipe; only
    /// stderr is read into [`Plugin::stderr`].
    pub fn spawn_on_terminal(
        kubeconfig: &Path,
        ns: &str,
        args: &[&str],
        bound: Duration,
        terminal: Stdio,
    ) -> Plugin {
        Plugin::start(with_connection(kubeconfig, ns, args), bound, Some(terminal))
    }

    /// Runs the plugin with exactly these arguments.
    pub fn spawn_raw(all: &[String], bound: Duration) -> Plugin {
        Plugin::spawn_raw_env(all, &[], bound)
    }

    /// [`Plugin::spawn_raw`] with these variables in its environment too.
    pub fn spawn_raw_env(all: &[String], env: &[(&str, &str)], bound: Duration) -> Plugin {
        Plugin::start_env(all.to_vec(), bound, None, env)
    }

    fn start(all: Vec<String>, bound: Duration, terminal: Option<Stdio>) -> Plugin {
        Plugin::start_env(all, bound, terminal, &[])
    }

    fn start_env(
        all: Vec<String>,
        bound: Duration,
        terminal: Option<Stdio>,
        env: &[(&str, &str)],
    ) -> Plugin {
        let piped = terminal.is_none();
        let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-valkey-roll"))
            .args(&all)
            .envs(env.iter().copied())
            .env_remove("KUBECONFIG")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(terminal.unwrap_or_else(Stdio::piped))
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the plugin");
        let (tx, rx) = mpsc::unbounded_channel();
        let mut pipes: Vec<(Stream, Box<dyn std::io::Read + Send>)> = Vec::new();
        if piped {
            pipes.push((Stream::Out, Box::new(child.stdout.take().expect("stdout"))));
        }
        pipes.push((Stream::Err, Box::new(child.stderr.take().expect("stderr"))));
        for (which, pipe) in pipes {
            let tx = tx.clone();
            std::thread::spawn(move || {
                use std::io::BufRead;
                for line in std::io::BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    if tx.send((which, line)).is_err() {
                        break;
                    }
                }
            });
        }
        Plugin {
            child,
            rx,
            stdout: Vec::new(),
            stderr: Vec::new(),
            args: all,
            bound,
        }
    }

    fn take(&mut self, (which, line): (Stream, String)) {
        match which {
            Stream::Out => self.stdout.push(line),
            Stream::Err => self.stderr.push(line),
        }
    }

    /// Takes the lines printed so far.
    pub fn drain(&mut self) {
        while let Ok(item) = self.rx.try_recv() {
            self.take(item);
        }
    }

    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("poll the plugin")
    }

    /// Waits for the exit (at most `bound`), then for the rest of the output.
    pub async fn exit(&mut self, bound: Duration) -> ExitStatus {
        let deadline = Instant::now() + bound;
        let status = loop {
            self.drain();
            if let Some(status) = self.exited() {
                break status;
            }
            if Instant::now() > deadline {
                panic!(
                    "the plugin did not exit within {}s\n{}",
                    bound.as_secs(),
                    self.transcript()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        // Both pipes close at exit: read to their end.
        while let Ok(Some(item)) =
            tokio::time::timeout(Duration::from_secs(10), self.rx.recv()).await
        {
            self.take(item);
        }
        status
    }

    /// Waits until `pred` holds of the output so far; fails when the
    /// plugin exits first or the bound passes.
    pub async fn until(&mut self, what: &str, pred: impl Fn(&Plugin) -> bool) {
        let deadline = Instant::now() + self.bound;
        loop {
            self.drain();
            if pred(self) {
                return;
            }
            if let Some(status) = self.exited() {
                self.drain();
                panic!(
                    "the plugin exited ({status}) before {what}\n{}",
                    self.transcript()
                );
            }
            assert!(
                Instant::now() < deadline,
                "no {what} within {}s\n{}",
                self.bound.as_secs(),
                self.transcript()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until a stderr line satisfies `pred`.
    pub async fn until_stderr(&mut self, what: &str, pred: impl Fn(&str) -> bool) {
        self.until(what, |p| p.stderr.iter().any(|l| pred(l))).await;
    }

    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGINT, as Ctrl-C does.
    pub fn interrupt(&self) {
        self.signal(libc::SIGINT);
    }

    /// Sends `signal` (SIGINT is what Ctrl-C sends, SIGTERM what a process
    /// manager or `kill` sends).
    pub fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.child.id()).expect("pid");
        // SAFETY: kill(2) with a pid this test started and still owns.
        let rc = unsafe { libc::kill(pid, signal) };
        assert_eq!(rc, 0, "kill -{signal} {pid}");
    }

    /// The arguments and every line read so far, for a failure message.
    pub fn transcript(&self) -> String {
        format!(
            "args: {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.args,
            self.stdout.join("\n"),
            self.stderr.join("\n")
        )
    }
}

/// `--kubeconfig <kubeconfig> -n <ns>`, then `args`.
fn with_connection(kubeconfig: &Path, ns: &str, args: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = vec![
        "--kubeconfig".into(),
        kubeconfig.display().to_string(),
        "-n".into(),
        ns.into(),
    ];
    all.extend(args.iter().map(|a| a.to_string()));
    all
}

impl Drop for Plugin {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
