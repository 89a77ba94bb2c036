//! The live path against what it reads (issue 30): a kubeconfig whose token
//! cannot be a header, an API server that trickles or never ends its
//! answer, that redirects, that writes line breaks into its error messages.
//! The server is a fake one this test starts on 127.0.0.1 (plain HTTP): it
//! plays an attacker, not the cluster, so it answers what no real API
//! server would. Every run of the plugin is bounded: a test fails, never
//! hangs.

mod harness;
#[path = "bench/objects.rs"]
mod objects;
#[path = "exporter/scrape.rs"]
mod scrape;

use harness::common::{BIN, Ran};
use scrape::Exporter;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest a run may take: generous for a loaded machine, short of hanging.
const BOUND: Duration = Duration::from_secs(60);

/// One request as the fake server read it: `GET /api/v1/pods?limit=500`.
#[derive(Clone, Debug)]
struct Request {
    method: String,
    target: String,
}

type Answer = dyn Fn(&Request, &mut TcpStream) + Send + Sync;

/// A fake API server on a free loopback port: each connection one request,
/// answered by `answer` and closed.
struct Fake {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Fake {
    fn start(answer: impl Fn(&Request, &mut TcpStream) + Send + Sync + 'static) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fake server");
        let port = listener.local_addr().expect("address").port();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = requests.clone();
        let answer: Arc<Answer> = Arc::new(answer);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let answer = answer.clone();
                let seen = seen.clone();
                std::thread::spawn(move || {
                    let Some(request) = read_request(&mut stream) else {
                        return;
                    };
                    seen.lock()
                        .unwrap()
                        .push(format!("{} {}", request.method, request.target));
                    answer(&request, &mut stream);
                    let _ = stream.flush();
                    let _ = stream.shutdown(std::net::Shutdown::Both);
                });
            }
        });
        Fake { port, requests }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// The request's head (its body, when it has one, is read and dropped).
fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_string();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).ok()?;
    let mut first = head.lines().next()?.split_whitespace();
    Some(Request {
        method: first.next()?.to_string(),
        target: first.next()?.to_string(),
    })
}

/// A whole answer with a body.
fn answer(stream: &mut TcpStream, status: &str, extra: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
        body.len()
    );
}

/// What a healthy server with nothing in it answers: an empty list for
/// every LIST, the namespace for its GET.
fn empty(request: &Request, stream: &mut TcpStream) {
    let path = request.target.split('?').next().unwrap_or_default();
    if path == "/api/v1/namespaces/ns" {
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}});
        answer(stream, "200 OK", "", &ns.to_string());
    } else {
        let list = json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": "1"}, "items": []});
        answer(stream, "200 OK", "", &list.to_string());
    }
}

/// A chunked answer's head.
fn chunked_head(stream: &mut TcpStream) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
}

fn chunk(stream: &mut TcpStream, bytes: &[u8]) -> std::io::Result<()> {
    write!(stream, "{:x}\r\n", bytes.len())?;
    stream.write_all(bytes)?;
    stream.write_all(b"\r\n")
}

/// A kubeconfig (written as JSON, which YAML reads) of the contexts
/// (name, server, user entry); the first is current, each in namespace `ns`.
fn kubeconfig(dir: &Path, name: &str, contexts: &[(&str, &str, Value)]) -> PathBuf {
    let config = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": contexts[0].0,
        "clusters": contexts.iter().map(|(c, server, _)| json!({"name": c, "cluster": {"server": server}})).collect::<Vec<_>>(),
        "users": contexts.iter().map(|(c, _, user)| json!({"name": format!("user-{c}"), "user": user})).collect::<Vec<_>>(),
        "contexts": contexts.iter().map(|(c, _, _)| json!({"name": c, "context": {"cluster": c, "user": format!("user-{c}"), "namespace": "ns"}})).collect::<Vec<_>>(),
    });
    let path = dir.join(name);
    std::fs::write(&path, config.to_string()).expect("write the kubeconfig");
    path
}

/// A finished run, how long it took and its peak resident memory (MiB).
struct Run {
    ran: Ran,
    took: Duration,
    peak_mib: u64,
}

/// Runs the plugin to its end (at most [`BOUND`]), watching its memory.
fn run(kubeconfig: &Path, args: &[&str]) -> Run {
    run_within(kubeconfig, args, None)
}

/// [`run`], the plugin's address space limited to `address_space` bytes
/// (RLIMIT_AS) when given: an allocation past it fails, and Rust aborts
/// (exit 134).
fn run_within(kubeconfig: &Path, args: &[&str], address_space: Option<u64>) -> Run {
    let start = Instant::now();
    let mut command = Command::new(BIN);
    if let Some(bytes) = address_space {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec only setrlimit is called, with
        // no allocation.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut child = command
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .env_remove("KUBECONFIG")
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubectl-valkey-roll");
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    // The pipes are read on threads, so a long answer never fills one.
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let stdout = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let code = loop {
        if let Ok(text) = std::fs::read_to_string(&status)
            && let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().expect("poll") {
            break status.code().unwrap_or(-1);
        }
        if start.elapsed() > BOUND {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{args:?} did not end within {}s (peak {} MiB)\n{}",
                BOUND.as_secs(),
                peak_kib / 1024,
                stderr.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        ran: Ran {
            code,
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        },
        took: start.elapsed(),
        peak_mib: peak_kib / 1024,
    }
}

/// Item 1: a token that ends in a line break (`token: |` in YAML) cannot
/// be an HTTP header: a clean error naming the user, exit 1; beside a good
/// context a warning and exit 7; in the exporter a `kubeconfig` error,
/// counted and tried again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_that_cannot_be_a_header_is_an_error_naming_the_user() {
    let server = Fake::start(empty);
    let dir = tempfile::tempdir().expect("tempdir");
    let url = server.url();
    let kc = kubeconfig(
        dir.path(),
        "config",
        &[
            ("bad", &url, json!({"token": "abc\n"})),
            ("good", &url, json!({"token": "fine"})),
        ],
    );
    let one = run(&kc, &["status"]);
    assert_eq!(one.ran.code, 1, "{}", one.ran.both());
    assert!(!one.ran.stderr.contains("panicked"), "{}", one.ran.both());
    assert!(
        one.ran.stderr.contains("user \"user-bad\""),
        "{}",
        one.ran.both()
    );
    assert_eq!(one.ran.stderr.lines().count(), 1, "{}", one.ran.both());

    let all = run(&kc, &["--all-contexts", "status"]);
    assert_eq!(all.ran.code, 7, "{}", all.ran.both());
    assert!(
        all.ran
            .stderr
            .contains("warning: context bad could not be read")
            && all.ran.stderr.contains("user \"user-bad\""),
        "{}",
        all.ran.both()
    );

    let args: Vec<String> = ["--kubeconfig", &kc.display().to_string(), "--all-contexts"]
        .map(String::from)
        .to_vec();
    let exporter = Exporter::start(&args, BOUND).await;
    let bad = [("context", "bad"), ("error", "kubeconfig")];
    scrape::until(
        "the bad context's kubeconfig error counted twice (tried again)",
        BOUND,
        || async {
            let m = exporter.metrics().await;
            match m.value("valkey_roll_exporter_errors_total", &bad) {
                Some(n) if n >= 2.0 => Ok(()),
                other => Err(format!("{other:?}\n{}", m.text)),
            }
        },
    )
    .await;
    let (code, why) = exporter.get("/readyz").await;
    assert_eq!(code, 503, "{why}");
    assert!(why.contains("user \"user-bad\""), "{why}");
    assert_eq!(exporter.get("/healthz").await.0, 200);
}

/// A server that sends its answer's head, then one byte a second for
/// ever (blanks, which JSON allows before a value).
fn trickle(_: &Request, stream: &mut TcpStream) {
    if chunked_head(stream).is_err() {
        return;
    }
    while chunk(stream, b" ").is_ok() {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// A server whose every answer never ends: a list whose `continue` token
/// grows for ever.
fn endless(_: &Request, stream: &mut TcpStream) {
    if chunked_head(stream).is_err() {
        return;
    }
    if chunk(
        stream,
        br#"{"kind":"PodList","apiVersion":"v1","metadata":{"continue":""#,
    )
    .is_err()
    {
        return;
    }
    let block = vec![b'a'; 64 * 1024];
    while chunk(stream, &block).is_ok() {}
}

/// Item 2: `--request-timeout` bounds each request as a whole, not only the
/// time between two reads: a server that sends a byte a second ends every
/// command soon after the timeout, exit 1, naming the server and the
/// limit. Every answer has a size cap: an endless one ends at 64 MiB with
/// an error naming the server and the request, in bounded memory, even
/// without a time limit.
#[test]
fn an_answer_is_bounded_in_time_and_in_size() {
    let dir = tempfile::tempdir().expect("tempdir");
    let slow = Fake::start(trickle);
    let kc = kubeconfig(
        dir.path(),
        "slow",
        &[("slow", &slow.url(), json!({"token": "t"}))],
    );
    for args in [
        vec!["status"],
        vec!["explain", "cache-0-1"],
        vec!["grant", "cache-0-1", "--dry-run=server"],
        vec!["history"],
        vec!["bundle"],
    ] {
        let mut all = args.clone();
        all.push("--request-timeout=3s");
        let r = run(&kc, &all);
        assert_eq!(r.ran.code, 1, "{args:?}: {}", r.ran.both());
        assert!(
            r.ran
                .stderr
                .contains(&format!("cannot reach the API server {}", slow.url()))
                && r.ran.stderr.contains("--request-timeout"),
            "{args:?}: {}",
            r.ran.both()
        );
        assert!(
            r.took < Duration::from_secs(20),
            "{args:?}: took {:?}\n{}",
            r.took,
            r.ran.both()
        );
        eprintln!("trickle {args:?}: exit {} in {:?}", r.ran.code, r.took);
    }

    let big = Fake::start(endless);
    let kc = kubeconfig(
        dir.path(),
        "big",
        &[("big", &big.url(), json!({"token": "t"}))],
    );
    for args in [
        vec!["status", "--request-timeout=0"],
        vec!["bundle", "--request-timeout=0"],
    ] {
        let r = run(&kc, &args);
        assert_eq!(r.ran.code, 1, "{args:?}: {}", r.ran.both());
        assert!(
            r.ran.stderr.contains(&big.url()) && r.ran.stderr.contains("64 MiB"),
            "{args:?}: {}",
            r.ran.both()
        );
        assert_eq!(r.ran.stderr.lines().count(), 1, "{}", r.ran.both());
        assert!(
            r.peak_mib < 512,
            "{args:?}: peak {} MiB\n{}",
            r.peak_mib,
            r.ran.both()
        );
        eprintln!(
            "endless {args:?}: exit {} in {:?}, peak {} MiB",
            r.ran.code, r.took, r.peak_mib
        );
    }
}

/// A server whose every LIST answers a flood: more than 64 MiB of the
/// smallest objects that read (a name each), some 26 bytes apiece.
fn flood(_: &Request, stream: &mut TcpStream) {
    if chunked_head(stream).is_err()
        || chunk(
            stream,
            br#"{"kind":"List","apiVersion":"v1","metadata":{},"items":["#,
        )
        .is_err()
    {
        return;
    }
    let item = br#"{"metadata":{"name":"a"}},"#;
    let block: Vec<u8> = item.repeat(64 * 1024 / item.len());
    for _ in 0..(80 * 1024 * 1024 / block.len()) {
        if chunk(stream, &block).is_err() {
            return;
        }
    }
    let _ = chunk(stream, br#"{"metadata":{"name":"z"}}]}"#);
    let _ = stream.write_all(b"0\r\n\r\n");
}

/// The most a flood may take resident (docs/usage.md): six LISTs at once,
/// each holding at most the 64 MiB cap (`bundle`, reading each page
/// whole: twice that), and 128 MiB for the rest of the program.
fn flood_bound_mib(command: &str) -> u64 {
    match command {
        "bundle" => 6 * 128 + 128,
        _ => 6 * 64 + 128,
    }
}

/// Issue 42 item 4: a flood of small objects took `status` to 8 GiB
/// resident (each 26 bytes of text a slim object of hundreds) and, under
/// a 1.5 GiB address-space limit, to an abort (exit 134). Now each LIST
/// stops once what it holds passes the cap, with the cap's error, exit 1,
/// within the stated bound; `bundle`, which parses each page whole, too.
#[test]
fn a_flood_is_refused_within_its_bound_under_an_address_space_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = Fake::start(flood);
    let kc = kubeconfig(
        dir.path(),
        "flood",
        &[("flood", &big.url(), json!({"token": "t"}))],
    );
    for args in [
        vec!["status", "--request-timeout=0"],
        vec!["bundle", "--request-timeout=0"],
    ] {
        let r = run_within(&kc, &args, Some(1536 << 20));
        assert_eq!(r.ran.code, 1, "{args:?}: {}", r.ran.both());
        assert!(
            r.ran.stderr.contains(&big.url()) && r.ran.stderr.contains("64 MiB"),
            "{args:?}: {}",
            r.ran.both()
        );
        assert!(
            r.peak_mib < flood_bound_mib(args[0]),
            "{args:?}: peak {} MiB\n{}",
            r.peak_mib,
            r.ran.both()
        );
        eprintln!(
            "flood {args:?}: exit {} in {:?}, peak {} MiB",
            r.ran.code, r.took, r.peak_mib
        );
    }
}

/// Item 10: a redirect is reported with its own status, and not followed:
/// each LIST is sent once.
#[test]
fn a_redirect_is_its_status_and_is_not_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Fake::start(|_, stream| {
        answer(
            stream,
            "302 Found",
            "Location: http://127.0.0.1:1/elsewhere\r\n",
            "moved",
        );
    });
    let kc = kubeconfig(
        dir.path(),
        "config",
        &[("moved", &server.url(), json!({"token": "t"}))],
    );
    let r = run(&kc, &["status"]);
    assert_eq!(r.ran.code, 1, "{}", r.ran.both());
    assert!(
        r.ran.stderr.contains("302") && !r.ran.stderr.contains("not JSON"),
        "{}",
        r.ran.both()
    );
    let requests = server.requests();
    let pods: Vec<&String> = requests
        .iter()
        .filter(|r| r.starts_with("GET /api/v1/namespaces/ns/pods"))
        .collect();
    assert_eq!(pods.len(), 1, "{requests:#?}");
}

/// Item 6: an API server's error message with a line break in it stays on
/// one line: in the warning of a context among several, and in the
/// exporter's log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_break_in_an_error_message_forges_no_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let liar = Fake::start(|_, stream| {
        let status = json!({
            "kind": "Status", "apiVersion": "v1", "status": "Failure",
            "message": "no\nerror: forged line", "reason": "InternalError", "code": 500,
        });
        answer(stream, "500 Internal Server Error", "", &status.to_string());
    });
    let fine = Fake::start(empty);
    let kc = kubeconfig(
        dir.path(),
        "config",
        &[
            ("liar", &liar.url(), json!({"token": "t"})),
            ("fine", &fine.url(), json!({"token": "t"})),
        ],
    );
    let forged = |text: &str| text.lines().any(|l| l.starts_with("error: forged"));
    for args in [vec!["status"], vec!["--all-contexts", "status"]] {
        let r = run(&kc, &args);
        assert!(r.ran.code == 1 || r.ran.code == 7, "{}", r.ran.both());
        assert!(r.ran.stderr.contains("forged line"), "{}", r.ran.both());
        assert!(!forged(&r.ran.stderr), "{args:?}: {}", r.ran.both());
    }
    let args: Vec<String> = ["--kubeconfig", &kc.display().to_string(), "--all-contexts"]
        .map(String::from)
        .to_vec();
    let mut exporter = Exporter::start(&args, BOUND).await;
    exporter
        .plugin
        .until_stderr("the liar's error logged", |l| l.contains("forged line"))
        .await;
    exporter.plugin.drain();
    let log = exporter.plugin.stderr.join("\n");
    assert!(!forged(&log), "{log}");
}

/// The pid of the process whose command line holds `needle`.
fn pid_of(needle: &str) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .contains(needle)
                .then_some(pid)
        })
}

/// A process's peak resident memory, MiB.
fn peak_mib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .unwrap_or(0)
        / 1024
}

/// Item 2, in the exporter: an endless answer is a failed watch, counted,
/// and tried again with backoff, in bounded memory; the exporter keeps
/// answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_exporter_backs_off_from_an_endless_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = Fake::start(endless);
    let kc = kubeconfig(
        dir.path(),
        "exporter-endless",
        &[("big", &big.url(), json!({"token": "t"}))],
    );
    let shown = kc.display().to_string();
    let args: Vec<String> = ["--kubeconfig", &shown, "--request-timeout=0"]
        .map(String::from)
        .to_vec();
    let exporter = Exporter::start(&args, BOUND).await;
    let pid = pid_of(&shown).expect("the exporter's pid");
    let start = Instant::now();
    scrape::until("three rounds of errors counted", BOUND, || async {
        let m = exporter.metrics().await;
        match m.value(
            "valkey_roll_exporter_errors_total",
            &[("context", ""), ("error", "api")],
        ) {
            Some(n) if n >= 18.0 => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    let (code, why) = exporter.get("/readyz").await;
    assert_eq!(code, 503, "{why}");
    assert!(why.contains("64 MiB"), "{why}");
    assert_eq!(exporter.get("/healthz").await.0, 200);
    let peak = peak_mib(pid);
    eprintln!(
        "exporter, endless answers: 18 errors in {:?}, peak {peak} MiB",
        start.elapsed()
    );
    assert!(peak < 1024, "peak {peak} MiB");
}

/// A user entry whose credential plugin never returns; what it starts
/// (a `sleep`) writes its pid to `pidfile`.
fn hung_plugin(pidfile: &Path) -> Value {
    json!({"exec": {
        "apiVersion": "client.authentication.k8s.io/v1",
        "command": "sh",
        "args": ["-c", format!("sleep 300 & echo $! >> {}; wait", pidfile.display())],
        "interactiveMode": "Never",
    }})
}

/// Whether each pid in `pidfile` has stopped running (gone, or a zombie
/// left for init), waiting up to 5 s.
fn all_stopped(pidfile: &Path) -> bool {
    let pids: Vec<String> = std::fs::read_to_string(pidfile)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    assert!(!pids.is_empty(), "no plugin ran");
    (0..250).any(|_| {
        let running = pids.iter().any(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = stat.rsplit(')').next().unwrap_or_default().trim_start();
            !state.is_empty() && !state.starts_with('Z')
        });
        if running {
            std::thread::sleep(Duration::from_millis(20));
        }
        !running
    })
}

/// Item 3: a credential plugin that never returns is given up at
/// `--request-timeout` and killed with what it started: beside a good
/// context `status` warns and exits 7; the exporter keeps answering and
/// stops on SIGTERM.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_plugin_that_never_returns_is_bounded_and_killed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fine = Fake::start(empty);
    let pidfile = dir.path().join("pids");
    let url = fine.url();
    let kc = kubeconfig(
        dir.path(),
        "hung",
        &[
            ("hung1", &url, hung_plugin(&pidfile)),
            ("hung2", &url, hung_plugin(&pidfile)),
            ("hung3", &url, hung_plugin(&pidfile)),
            ("fine", &url, json!({"token": "t"})),
        ],
    );
    let r = run(&kc, &["--all-contexts", "status", "--request-timeout=3s"]);
    assert_eq!(r.ran.code, 7, "{}", r.ran.both());
    assert!(
        r.ran
            .stderr
            .contains("warning: context hung1 could not be read")
            && r.ran
                .stderr
                .contains("credential plugin \"sh\" of user \"user-hung1\"")
            && r.ran.stderr.contains("--request-timeout (3s)"),
        "{}",
        r.ran.both()
    );
    assert!(r.took < Duration::from_secs(20), "took {:?}", r.took);
    assert!(all_stopped(&pidfile), "a plugin's child outlived it");
    eprintln!("hung plugins, status: exit {} in {:?}", r.ran.code, r.took);

    let shown = kc.display().to_string();
    let args: Vec<String> = [
        "--kubeconfig",
        &shown,
        "--all-contexts",
        "--request-timeout=2s",
    ]
    .map(String::from)
    .to_vec();
    let mut exporter = Exporter::start(&args, BOUND).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    for _ in 0..3 {
        assert_eq!(exporter.get("/healthz").await.0, 200);
        let m = exporter.metrics().await;
        assert!(
            m.value(
                "valkey_roll_exporter_errors_total",
                &[("context", "fine"), ("error", "kubeconfig")]
            )
            .is_some(),
            "{}",
            m.text
        );
    }
    let start = Instant::now();
    exporter.plugin.signal(libc::SIGTERM);
    let status = exporter.plugin.exit(Duration::from_secs(20)).await;
    assert_eq!(status.code(), Some(0), "{}", exporter.plugin.transcript());
    eprintln!(
        "hung plugins, exporter: stopped {:?} after SIGTERM",
        start.elapsed()
    );
    assert!(
        all_stopped(&pidfile),
        "a plugin's child outlived the exporter"
    );
}

/// A CONNECT proxy on a free loopback port: each tunnel's target is
/// recorded; `api.hostile.test` leads to `upstream`, any other target
/// is dialled only when it is 127.0.0.1.
struct ConnectProxy {
    port: u16,
    targets: Arc<Mutex<Vec<String>>>,
}

impl ConnectProxy {
    fn start(upstream: u16) -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("address").port();
        let targets: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = targets.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(mut client) = client else { continue };
                let seen = seen.clone();
                std::thread::spawn(move || {
                    let Some(request) = read_request(&mut client) else {
                        return;
                    };
                    seen.lock().unwrap().push(request.target.clone());
                    let port = request.target.rsplit(':').next().unwrap_or_default();
                    let dial = match request.target.split(':').next() {
                        Some("api.hostile.test") => format!("127.0.0.1:{upstream}"),
                        Some("127.0.0.1") => format!("127.0.0.1:{port}"),
                        _ => return,
                    };
                    let (true, Ok(server)) =
                        (request.method == "CONNECT", TcpStream::connect(dial))
                    else {
                        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n");
                        return;
                    };
                    let _ = client.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n");
                    let (mut c_read, mut s_write) = (
                        client.try_clone().expect("clone"),
                        server.try_clone().expect("clone"),
                    );
                    let (mut s_read, mut c_write) = (server, client);
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut c_read, &mut s_write);
                        let _ = s_write.shutdown(std::net::Shutdown::Write);
                    });
                    let _ = std::io::copy(&mut s_read, &mut c_write);
                    let _ = c_write.shutdown(std::net::Shutdown::Write);
                });
            }
        });
        ConnectProxy { port, targets }
    }

    fn targets(&self) -> Vec<String> {
        self.targets.lock().unwrap().clone()
    }
}

/// Runs `status` with `env` set (the proxies' variables cleared first).
fn status_with_env(kubeconfig: &Path, env: &[(&str, String)]) -> Ran {
    let mut command = Command::new(BIN);
    command
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["status", "--request-timeout=10s"])
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1");
    for name in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
    ] {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    Ran::of(command.output().expect("run kubectl-valkey-roll"))
}

/// Item 5: proxies as kubectl honours them, through a real CONNECT proxy
/// on loopback: the kubeconfig's `proxy-url`; `HTTP_PROXY` for a server
/// by name (which only the proxy can resolve); `HTTPS_PROXY` with
/// `NO_PROXY` covering the server, which is then reached directly.
#[test]
fn proxies_are_honoured_as_kubectl_honours_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Fake::start(empty);
    let proxy = ConnectProxy::start(server.port);
    let proxy_url = format!("http://127.0.0.1:{}", proxy.port);

    let mut config: Value = serde_json::from_str(
        &std::fs::read_to_string(kubeconfig(
            dir.path(),
            "plain",
            &[("p", &server.url(), json!({"token": "t"}))],
        ))
        .expect("read"),
    )
    .expect("json");
    config["clusters"][0]["cluster"]["proxy-url"] = json!(proxy_url);
    let via_url = dir.path().join("proxy-url");
    std::fs::write(&via_url, config.to_string()).expect("write");
    let ran = status_with_env(&via_url, &[]);
    assert_eq!(ran.code, 0, "proxy-url: {}", ran.both());
    assert!(
        proxy
            .targets()
            .contains(&format!("127.0.0.1:{}", server.port)),
        "proxy-url: {:?}",
        proxy.targets()
    );

    let by_name = kubeconfig(
        dir.path(),
        "by-name",
        &[(
            "n",
            &format!("http://api.hostile.test:{}", server.port),
            json!({"token": "t"}),
        )],
    );
    let ran = status_with_env(&by_name, &[("HTTP_PROXY", proxy_url.clone())]);
    assert_eq!(ran.code, 0, "HTTP_PROXY: {}", ran.both());
    assert!(
        proxy
            .targets()
            .contains(&format!("api.hostile.test:{}", server.port)),
        "HTTP_PROXY: {:?}",
        proxy.targets()
    );

    let direct = kubeconfig(
        dir.path(),
        "direct",
        &[("d", &server.url(), json!({"token": "t"}))],
    );
    let before = proxy.targets().len();
    let ran = status_with_env(
        &direct,
        &[
            ("HTTPS_PROXY", "http://127.0.0.1:1".to_string()),
            ("HTTP_PROXY", "http://127.0.0.1:1".to_string()),
            ("NO_PROXY", "127.0.0.1,.corp.example".to_string()),
        ],
    );
    assert_eq!(ran.code, 0, "NO_PROXY: {}", ran.both());
    assert_eq!(proxy.targets().len(), before);

    // An empty entry (a trailing comma) is ignored, as kubectl and curl
    // ignore it; the client library refused the whole variable before.
    let ran = status_with_env(
        &direct,
        &[
            ("HTTPS_PROXY", "http://127.0.0.1:1".to_string()),
            ("NO_PROXY", "127.0.0.1,.corp.example,".to_string()),
        ],
    );
    assert_eq!(
        ran.code,
        0,
        "NO_PROXY with a trailing comma: {}",
        ran.both()
    );
    assert_eq!(proxy.targets().len(), before);
}

/// A server that ignores `limit`: each LIST answers its kind whole, in one
/// page, from `lists` (by the path's last segment, the plural); a watch
/// is held open and quiet.
fn unpaginated(
    lists: Arc<std::collections::BTreeMap<String, Vec<u8>>>,
) -> impl Fn(&Request, &mut TcpStream) + Send + Sync + 'static {
    move |request, stream| {
        let (path, query) = request
            .target
            .split_once('?')
            .unwrap_or((&request.target, ""));
        if query
            .split('&')
            .any(|p| p == "watch=true" || p == "watch=1")
        {
            if chunked_head(stream).is_ok() {
                std::thread::sleep(Duration::from_secs(120));
            }
            return;
        }
        let plural = path.rsplit('/').next().unwrap_or_default();
        match lists.get(plural) {
            Some(body) => {
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(body);
            }
            None => empty(request, stream),
        }
    }
}

/// Issue 42 item 4: an API server that answers each LIST unpaginated (a
/// 3,000-node cluster, 47 MB of JSON; 38 MB here) took the exporter to 388 MB
/// within a second of starting: kube's watcher reads a page whole and
/// parses it into JSON values. Now its LISTs are slimmed as they arrive,
/// and its first listing stays within 128 MiB resident (docs/metrics.md).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_exporters_first_listing_of_an_unpaginated_answer_is_bounded() {
    let mut by_plural: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    for item in objects::cluster_items_named("ns", "cache", 3000) {
        let plural = format!(
            "{}s",
            item["kind"].as_str().unwrap_or_default().to_lowercase()
        );
        by_plural.entry(plural).or_default().push(item);
    }
    let lists: std::collections::BTreeMap<String, Vec<u8>> = by_plural
        .into_iter()
        .map(|(plural, items)| {
            let list = json!({"apiVersion": "v1", "kind": "List",
                "metadata": {"resourceVersion": "1"}, "items": items});
            (plural, serde_json::to_vec(&list).expect("JSON"))
        })
        .collect();
    let total: usize = lists.values().map(Vec::len).sum();
    let server = Fake::start(unpaginated(Arc::new(lists)));
    let dir = tempfile::tempdir().expect("tempdir");
    let kc = kubeconfig(
        dir.path(),
        "exporter-unpaginated",
        &[("big", &server.url(), json!({"token": "t"}))],
    );
    let shown = kc.display().to_string();
    let args: Vec<String> = ["--kubeconfig", &shown].map(String::from).to_vec();
    let start = Instant::now();
    let exporter = Exporter::start(&args, BOUND).await;
    let pid = pid_of(&shown).expect("the exporter's pid");
    scrape::until("the first listing done (/readyz 200)", BOUND, || async {
        match exporter.get("/readyz").await {
            (200, _) => Ok(()),
            (code, why) => Err(format!("{code} {why}")),
        }
    })
    .await;
    let listed = start.elapsed();
    let m = exporter.metrics().await;
    assert!(
        m.text.contains("cache"),
        "the cluster is in the metrics:\n{}",
        m.text
    );
    let peak = peak_mib(pid);
    eprintln!(
        "exporter, unpaginated answers of {} MB: listed in {listed:?}, peak {peak} MiB",
        total / 1_000_000
    );
    assert!(peak < 128, "peak {peak} MiB");
    assert!(total > 35_000_000, "{total} bytes of JSON");
}
