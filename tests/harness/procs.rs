//! The test servers' processes, and the three ways they are made to go away:
//!
//! 1. normally: the harness stops a child it no longer needs, and an `atexit`
//!    handler kills every child still alive when the test binary exits
//!    (the test runner calls `exit` after its tests, failed or not);
//! 2. when the test binary dies without running `atexit` (a signal, an
//!    abort): each child was spawned with `PR_SET_PDEATHSIG(SIGKILL)` from
//!    the harness thread that lives as long as the process, so the kernel
//!    kills it when that thread (the process) goes;
//! 3. whatever is left after all: each child has a pidfile in
//!    `<target>/testbin-pids/`, which `testbin/reap.sh` reads (CI runs it
//!    before and after the tests); and each child is written in a ledger
//!    there ([`started_ledger`]), by which `reap.sh --check` tells the
//!    servers the tests started from any other run of the same binaries.
//!
//! Each child runs in its own process group, so a signal to the group reaches
//! anything it forked.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, Once};
use std::thread;
use std::time::{Duration, Instant};

/// Children alive now: (pid, pidfile).
static LIVE: Mutex<Vec<(i32, PathBuf)>> = Mutex::new(Vec::new());
/// Directories removed at exit.
static WORKDIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static ATEXIT: Once = Once::new();

/// The directory of the cargo target (`target/` unless CARGO_TARGET_DIR).
pub fn target_dir() -> PathBuf {
    // Cargo gives integration tests `<target>/tmp`.
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).to_path_buf()
}

pub fn pid_dir() -> PathBuf {
    target_dir().join("testbin-pids")
}

/// The ledger of every child started since the run began: one line
/// `<pid> <start time> <name>` each (the start time in clock ticks since
/// boot, field 22 of `/proc/<pid>/stat`), appended and never removed, so that
/// `testbin/reap.sh --check` looks only at the process groups the tests
/// started and not at a server someone else runs from the same cache. CI
/// removes it when a run begins (`.ci/run`).
pub fn started_ledger(pid_dir: &Path) -> PathBuf {
    pid_dir.join("started")
}

/// Appends `pid` (a child just spawned, leader of its own process group) to
/// the ledger in `pid_dir`.
pub fn record_started(pid_dir: &Path, name: &str, pid: i32) -> io::Result<()> {
    use std::io::Write;
    let start = start_time(pid)?;
    fs::create_dir_all(pid_dir)?;
    let mut ledger = OpenOptions::new()
        .create(true)
        .append(true)
        .open(started_ledger(pid_dir))?;
    // One write per line: children of several test binaries append at once.
    ledger.write_all(format!("{pid} {start} {name}\n").as_bytes())
}

/// A process's start time, in clock ticks since boot (`/proc/<pid>/stat`).
fn start_time(pid: i32) -> io::Result<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name, in parentheses, may hold spaces: count after it.
    stat.rsplit_once(") ")
        .and_then(|(_, rest)| rest.split_whitespace().nth(19))
        .and_then(|field| field.parse().ok())
        .ok_or_else(|| io::Error::other(format!("no start time in /proc/{pid}/stat: {stat}")))
}

extern "C" fn kill_all_at_exit() {
    // Never block here: another thread may hold a lock forever.
    if let Ok(mut live) = LIVE.try_lock() {
        for (pid, pidfile) in live.drain(..) {
            kill_group_and_wait(pid);
            let _ = fs::remove_file(pidfile);
        }
    }
    if let Ok(mut dirs) = WORKDIRS.try_lock() {
        for d in dirs.drain(..) {
            let _ = fs::remove_dir_all(d);
        }
    }
}

fn register_atexit() {
    ATEXIT.call_once(|| {
        // SAFETY: registers a plain extern "C" function.
        let rc = unsafe { libc::atexit(kill_all_at_exit) };
        assert_eq!(rc, 0, "atexit failed");
    });
}

/// SIGKILL to a child's process group and to the child, then reap it.
fn kill_group_and_wait(pid: i32) {
    // SAFETY: plain syscalls on a pid this process spawned and has not reaped.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
    }
}

/// A directory the harness owns (certificates, etcd data, logs): removed at
/// exit, or by reap.sh (it looks for the marker file) if the process dies.
pub fn make_workdir() -> PathBuf {
    register_atexit();
    let dir = tempfile::Builder::new()
        .prefix("kubectl-valkey-roll-testbin-")
        .tempdir()
        .expect("create the harness work directory")
        .keep();
    fs::write(dir.join(".testbin-workdir"), b"").expect("write workdir marker");
    WORKDIRS.lock().unwrap().push(dir.clone());
    dir
}

/// A child process: etcd or kube-apiserver.
pub struct Proc {
    pub name: &'static str,
    pub log: PathBuf,
    child: Child,
    pidfile: PathBuf,
}

impl Proc {
    /// Spawns `program args...` with stdout and stderr appended to `log`.
    /// Must be called from the thread that lives as long as the process
    /// (PR_SET_PDEATHSIG follows the thread that forked).
    pub fn spawn(
        name: &'static str,
        program: &Path,
        args: &[String],
        workdir: &Path,
        log: &Path,
    ) -> io::Result<Proc> {
        register_atexit();
        let out = OpenOptions::new().create(true).append(true).open(log)?;
        let err = out.try_clone()?;
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(workdir)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        // SAFETY: only async-signal-safe calls between fork and exec.
        let parent = unsafe { libc::getpid() };
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                // The parent died before prctl took effect: do not outlive it.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
        let mut live = LIVE.lock().unwrap();
        let child = cmd.spawn()?;
        let pid = child.id() as i32;
        let dir = pid_dir();
        fs::create_dir_all(&dir)?;
        let pidfile = dir.join(format!("{name}-{pid}.pid"));
        fs::write(&pidfile, format!("{pid}\n{}\n", workdir.display()))?;
        record_started(&dir, name, pid)?;
        live.push((pid, pidfile.clone()));
        Ok(Proc {
            name,
            log: log.to_path_buf(),
            child,
            pidfile,
        })
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// `Some(description)` once the child has exited.
    pub fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            Ok(None) => None,
            Err(e) => Some(format!("unknown ({e})")),
        }
    }

    /// SIGTERM to the group, up to `grace` for the child to exit, then
    /// SIGKILL. Removes the pidfile.
    pub fn stop(mut self, grace: Duration) {
        let pid = self.pid();
        // SAFETY: signal to our own child's process group.
        unsafe {
            libc::kill(-pid, libc::SIGTERM);
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if self.exited().is_some() {
                break;
            }
            thread::sleep(Duration::from_millis(50));
        }
        self.kill();
    }

    fn kill(&mut self) {
        let pid = self.pid();
        // SAFETY: signals to our own child and its process group.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
            libc::kill(pid, libc::SIGKILL);
        }
        let _ = self.child.wait();
        let _ = fs::remove_file(&self.pidfile);
        LIVE.lock().unwrap().retain(|(p, _)| *p != pid);
    }

    /// The last `n` lines of the child's log.
    pub fn log_tail(&self, n: usize) -> String {
        log_tail(&self.log, n)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.exited().is_none() || self.pidfile.exists() {
            self.kill();
        }
    }
}

pub fn log_tail(path: &Path, n: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(n);
    lines[start..].join("\n")
}

/// Appends one line to a file (created if missing).
pub fn append_line(path: &Path, line: &str) {
    use std::io::Write;
    if let Some(parent) = path.parent() {
        let _ = fs::create_dir_all(parent);
    }
    let mut f: File = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    writeln!(f, "{line}").unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}
