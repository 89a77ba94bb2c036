//! A real Kubernetes API server for end-to-end tests.
//!
//! Every e2e test file says `mod harness;` and gets, for its test binary, one
//! kube-apiserver backed by one etcd, both on loopback, both built from Go
//! modules by `bash testbin/build.sh` (the harness never builds anything; it
//! finds the binaries through `KUBE_APISERVER`, `ETCD` and `KUBECTL`, or in
//! the cache directory build.sh fills; when they are missing it fails with a
//! message naming the command under CI and `bash testbin/test.sh`, and
//! elsewhere ends the test binary with one line saying how to get them,
//! see [`skip_without`]).
//!
//! The server starts lazily, on the first call to [`server()`], from a thread
//! that lives as long as the test binary; the test CRDs (tests/crds/) are
//! installed before `server()` returns. No process outlives the test binary
//! (see `procs.rs`), also when a test panics.
//!
//! # API
//!
//! ```ignore
//! let s: &'static harness::Server = harness::server();
//! s.kubeconfig() -> &Path                 // admin (CN=admin, O=system:masters), context `testbin`
//! s.kubeconfig_in(ns: &str) -> PathBuf    // the same admin, with `namespace: ns` in its context
//! s.url() -> &str                         // https://127.0.0.1:PORT
//! s.version() -> &str                     // the server's gitVersion, e.g. v1.35.4
//! s.fresh_namespace(hint: &str) -> String // creates a namespace with a unique name (hint-N)
//! s.client().await -> kube::Client        // admin client on the CALLER's runtime
//! harness::client_for(kubeconfig: &Path).await -> kube::Client
//! s.mint_user(cn: &str, groups: &[&str]) -> PathBuf          // kubeconfig of a client-cert user
//! s.mint_user_in(cn, groups, namespace: &str) -> PathBuf     // ... with a default namespace
//! s.kubectl(args: &[&str]) -> Output                         // the built kubectl, admin kubeconfig
//! s.kubectl_as(kubeconfig: &Path, args: &[&str]) -> Output
//! s.kubectl_stdin(args: &[&str], stdin: &str) -> Output
//! s.apply(yaml: &str)                     // kubectl apply -f -, panics on failure
//! s.install_crds()                        // re-apply tests/crds/ (server() did it already)
//! s.stop(); s.start(); s.restart();       // kube-apiserver only: same port, same etcd
//! s.audit_log() -> &Path; s.audit_events() -> Vec<serde_json::Value>
//! s.bins() -> &Bins                       // paths of kube-apiserver, etcd, kubectl
//! harness::promtool() -> PathBuf          // promtool (testbin/prometheus)
//! harness::grafana_validator() -> PathBuf // validate-grafana-dashboard (testbin/grafana)
//! harness::second_server() -> &Server     // another server (own etcd, CA), for several contexts
//!
//! let cp: &'static harness::controlplane::ControlPlane = harness::control_plane(); // derefs to Server
//! cp.log_tails(n) -> String               // the controllers' logs, for failure messages
//! cp.write_previous_log(lines: &[&str])   // every pod's previous container log, as kwok serves pods/log
//! harness::controlplane::eventually(what, bound, || async { Ok(..) / Err(seen) }).await
//! ```
//!
//! Tests of one binary share its server and run in parallel: give each test
//! its own namespace (`fresh_namespace`). `stop`/`start`/`restart` affect
//! every test of the binary, so a test that uses them belongs in a test file
//! of its own.
//!
//! A `kube::Client` belongs to the tokio runtime it was made on, and each
//! `#[tokio::test]` has its own runtime: call `client()` inside the test, and
//! do not keep a client in a static.
//!
//! The server writes an audit log (level Metadata, stage ResponseComplete)
//! for request-counting tests, and appends
//! `kube-apiserver vX.Y.Z ready at https://127.0.0.1:PORT` to
//! `<target>/testbin-servers.log` each time it becomes ready.
//!
//! `sim` is a simulated valkey-operator making the operator's writes one API
//! call at a time (see sim.rs); there, the test writes what the controllers
//! would (workload status, pods) itself.
//!
//! A test binary that needs StatefulSets and pods to behave as in a cluster
//! calls [`control_plane()`] instead of [`server()`]: the same server, plus
//! kube-controller-manager, kube-scheduler and kwok (controlplane.rs), and
//! `operator` is then the simulated operator that writes only what the
//! operator writes and leaves the rest to those controllers (operator.rs).
//! Test binaries that call only `server()` start none of them.

#![allow(dead_code)]

// The offline tests' shared helpers (`Ran`, the examples), the same file
// they include as `mod common;`.
#[path = "../common/mod.rs"]
pub mod common;
pub mod controlplane;
// Both say the fixture's words (src/fixture): only with that feature.
#[cfg(feature = "fixture")]
pub mod operator;
pub mod pki;
pub mod plugin;
pub mod procs;
pub mod pty;
#[cfg(feature = "fixture")]
pub mod sim;
#[cfg(feature = "fixture")]
pub mod valkey;
#[cfg(feature = "fixture")]
pub mod valkey_rig;

use std::fs;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use procs::Proc;

/// How long kube-apiserver may take to become ready (/readyz).
const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// How long etcd may take to accept connections.
const ETCD_TIMEOUT: Duration = Duration::from_secs(30);

/// Paths of the binaries the harness runs.
#[derive(Clone, Debug)]
pub struct Bins {
    pub kube_apiserver: PathBuf,
    pub etcd: PathBuf,
    pub kubectl: PathBuf,
}

/// The test API server of this test binary. See the module docs.
pub struct Server {
    url: String,
    port: u16,
    version: String,
    workdir: PathBuf,
    kubeconfig: PathBuf,
    audit_log: PathBuf,
    ca: pki::Ca,
    admin: pki::Pair,
    bins: Bins,
    ctl: Mutex<mpsc::Sender<Cmd>>,
    counter: AtomicU32,
}

static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();
static SECOND: OnceLock<Result<Server, String>> = OnceLock::new();

/// The test API server, started on first use. Panics (in every test that
/// asks) when it cannot be started, with the reason; when its binaries are
/// missing outside CI, ends the test binary instead ([`skip_without`]).
pub fn server() -> &'static Server {
    skip_without(locate_bins());
    match SERVER.get_or_init(start) {
        Ok(s) => s,
        Err(e) => panic!("test API server unavailable: {e}"),
    }
}

/// A second test API server, with its own etcd, CA and admin, started on
/// first use: for the tests of several kubeconfig contexts (two clusters).
/// Only the test binaries that call this start it.
pub fn second_server() -> &'static Server {
    skip_without(locate_bins());
    match SECOND.get_or_init(start) {
        Ok(s) => s,
        Err(e) => panic!("second test API server unavailable: {e}"),
    }
}

/// The test API server with kube-controller-manager, kube-scheduler and
/// kwok beside it, started on first use (see controlplane.rs). Only the test
/// binaries that call this start them.
pub fn control_plane() -> &'static controlplane::ControlPlane {
    skip_without(locate_bins());
    skip_without(controlplane::locate_control_plane_bins());
    controlplane::control_plane()
}

/// When a binary the tests need is missing (`found` is the lookup's
/// error, which names it and the command that builds it): under CI
/// (`CI=true`) or `bash testbin/test.sh` (`TESTBIN_REQUIRE=1`) nothing
/// happens here, and the caller fails as before, so a missing server is
/// never a silent skip there. Anywhere else, a plain `cargo test` on a
/// fresh clone: one line on stderr saying how to get the binaries, and
/// this test binary ends with success, its other tests not run (libtest
/// has no way to skip a test from inside it).
pub fn skip_without<T>(found: Result<T, String>) {
    let Err(missing) = found else {
        return;
    };
    if binaries_required() {
        return;
    }
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|s| {
            s.rsplit_once('-')
                .map_or(s.clone(), |(name, _hash)| name.to_string())
        })
        .unwrap_or_else(|| "this test binary".into());
    let line = format!(
        "skipped {binary}: {missing}; to run it: `bash testbin/test.sh`, or `bash testbin/build.sh` \
         then `source ~/.cache/kubectl-valkey-roll/testbin/env.sh` and `cargo test`\n"
    );
    // Straight to the stream: libtest captures eprintln! in a test, and
    // the process ends before it would print what it captured.
    use std::io::Write;
    let _ = std::io::stderr().write_all(line.as_bytes());
    std::process::exit(0);
}

/// Whether a missing test binary must fail the test: in CI and under
/// `bash testbin/test.sh`.
pub fn binaries_required() -> bool {
    let set =
        |var: &str| std::env::var(var).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    set("CI") || set("TESTBIN_REQUIRE")
}

/// A `kube::Client` for a kubeconfig file, on the caller's tokio runtime.
pub async fn client_for(kubeconfig: &Path) -> kube::Client {
    let kc = kube::config::Kubeconfig::read_from(kubeconfig)
        .unwrap_or_else(|e| panic!("read kubeconfig {}: {e}", kubeconfig.display()));
    let cfg = kube::Config::from_custom_kubeconfig(kc, &kube::config::KubeConfigOptions::default())
        .await
        .unwrap_or_else(|e| panic!("load kubeconfig {}: {e}", kubeconfig.display()));
    kube::Client::try_from(cfg).expect("build kube client")
}

/// The built kubectl with `kubeconfig` (and only it: `KUBECONFIG` is
/// removed) and a discovery cache in the server's work directory.
fn kubectl_command(kubectl: &Path, workdir: &Path, kubeconfig: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(kubectl);
    cmd.arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .env("KUBECACHEDIR", workdir.join("kube-cache"))
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null());
    cmd
}

/// A finished command's stdout when it exited 0, else both of its streams.
fn succeeded(out: &Output) -> Result<String, String> {
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "exit {:?}: {}{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// A kubectl run that must have succeeded: its stdout; panics with both of
/// its streams otherwise.
pub fn stdout_of(out: &Output) -> String {
    succeeded(out).unwrap_or_else(|e| panic!("kubectl failed: {e}"))
}

/// Whom a RoleBinding binds.
#[derive(Clone, Copy, Debug)]
pub enum Subject<'a> {
    User(&'a str),
    Group(&'a str),
}

/// A Role with `rules` and its RoleBinding to `subject`, both named `name`,
/// in `namespace`, created as the admin `client`. Returns once the
/// authorizer enforces them ([`until_allowed`] on the first rule): RBAC
/// reads Roles and RoleBindings from a cache, so a binding is not
/// guaranteed to be in force the moment its create returns.
pub async fn bind(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    subject: Subject<'_>,
    rules: serde_json::Value,
) {
    use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
    use serde_json::json;
    let (kind, who) = match subject {
        Subject::User(u) => ("User", u),
        Subject::Group(g) => ("Group", g),
    };
    let role: Role = serde_json::from_value(json!({"metadata": {"name": name}, "rules": rules}))
        .expect("a Role");
    let binding: RoleBinding = serde_json::from_value(json!({
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": who}],
    }))
    .expect("a RoleBinding");
    kube::Api::<Role>::namespaced(client.clone(), namespace)
        .create(&Default::default(), &role)
        .await
        .expect("create the Role");
    kube::Api::<RoleBinding>::namespaced(client.clone(), namespace)
        .create(&Default::default(), &binding)
        .await
        .expect("create the RoleBinding");
    let first = &rules[0];
    let word = |field: &str| first[field][0].as_str().unwrap_or_default();
    let action = (word("verbs"), word("apiGroups"), word("resources"));
    until_allowed(client, subject, namespace, action).await;
}

/// Waits (at most 30 s) until the API server's authorizer lets `subject`
/// do `verb` on `resource` (`group`, `""` for core) in `namespace`. Asked
/// as the admin with a SubjectAccessReview: the same question the
/// authorizer answers for a request.
pub async fn until_allowed(
    client: &kube::Client,
    subject: Subject<'_>,
    namespace: &str,
    (verb, group, resource): (&str, &str, &str),
) {
    use k8s_openapi::api::authorization::v1::SubjectAccessReview;
    let attributes = serde_json::json!({
        "namespace": namespace, "verb": verb, "group": group, "resource": resource,
    });
    let spec = match subject {
        Subject::User(u) => serde_json::json!({"user": u, "resourceAttributes": attributes}),
        Subject::Group(g) => serde_json::json!({"groups": [g], "resourceAttributes": attributes}),
    };
    let review: SubjectAccessReview =
        serde_json::from_value(serde_json::json!({ "spec": spec })).expect("a SubjectAccessReview");
    let api: kube::Api<SubjectAccessReview> = kube::Api::all(client.clone());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let answer = api
            .create(&Default::default(), &review)
            .await
            .expect("create a SubjectAccessReview");
        if answer.status.is_some_and(|s| s.allowed) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{subject:?} still may not {verb} {resource} in {namespace} after 30 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

impl Server {
    /// The admin kubeconfig (`system:masters`; context `testbin`, no namespace set).
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// `https://127.0.0.1:PORT`
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's version (`/version` gitVersion), e.g. `v1.35.4`.
    pub fn version(&self) -> &str {
        &self.version
    }

    pub fn bins(&self) -> &Bins {
        &self.bins
    }

    /// The harness's work directory (certificates, logs, etcd data).
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The audit log: one JSON event per line, level Metadata, stage
    /// ResponseComplete. An event is written when its request completes, so
    /// one may trail the response by a moment.
    pub fn audit_log(&self) -> &Path {
        &self.audit_log
    }

    /// The audit log, parsed (lines that do not parse are skipped).
    pub fn audit_events(&self) -> Vec<serde_json::Value> {
        fs::read_to_string(&self.audit_log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// An admin client, on the caller's tokio runtime.
    pub async fn client(&self) -> kube::Client {
        client_for(&self.kubeconfig).await
    }

    /// The admin kubeconfig with `namespace` as its context's namespace.
    pub fn kubeconfig_in(&self, namespace: &str) -> PathBuf {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let path = self
            .workdir
            .join("kubeconfigs")
            .join(format!("admin-{namespace}-{n}.yaml"));
        pki::write_kubeconfig(
            &path,
            &self.url,
            &self.ca.cert_pem,
            "admin",
            &self.admin,
            Some(namespace),
        );
        path
    }

    /// Creates a namespace with a unique name made from `hint`, and returns
    /// the name.
    pub fn fresh_namespace(&self, hint: &str) -> String {
        let mut base: String = hint
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        base.truncate(40);
        let base = base.trim_matches('-');
        let base = if base.is_empty() { "test" } else { base };
        let name = format!("{base}-{}", self.counter.fetch_add(1, Ordering::Relaxed));
        let ns_name = name.clone();
        self.on_admin(move |rt, client| {
            use k8s_openapi::api::core::v1::Namespace;
            let ns: Namespace = serde_json::from_value(serde_json::json!({
                "metadata": {"name": ns_name, "labels": {"kubectl-valkey-roll/test": "true"}}
            }))
            .expect("namespace object");
            rt.block_on(
                kube::Api::<Namespace>::all(client.clone())
                    .create(&kube::api::PostParams::default(), &ns),
            )
            .map(|_| ())
            .map_err(|e| e.to_string())
        })
        .unwrap_or_else(|e| panic!("create namespace {name}: {e}"));
        name
    }

    /// A kubeconfig for a user authenticated by a client certificate signed
    /// by the server's CA: user name `cn`, groups `groups` (at most two). The
    /// user has no rights until a test binds some.
    pub fn mint_user(&self, cn: &str, groups: &[&str]) -> PathBuf {
        self.mint(cn, groups, None)
    }

    /// As `mint_user`, with `namespace` as the context's namespace.
    pub fn mint_user_in(&self, cn: &str, groups: &[&str], namespace: &str) -> PathBuf {
        self.mint(cn, groups, Some(namespace))
    }

    /// A kubeconfig for user `cn` whose client certificate, signed by the
    /// server's CA, is valid only between two dates (`(year, month, day)`).
    pub fn mint_user_valid(
        &self,
        cn: &str,
        not_before: (i32, u8, u8),
        not_after: (i32, u8, u8),
    ) -> PathBuf {
        let pair = self.ca.client_valid(cn, not_before, not_after);
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let path = self
            .workdir
            .join("kubeconfigs")
            .join(format!("user-{cn}-valid-{n}.yaml"));
        pki::write_kubeconfig(&path, &self.url, &self.ca.cert_pem, cn, &pair, None);
        path
    }

    /// The CA certificate (PEM) the server trusts and serves under.
    pub fn ca_pem(&self) -> &str {
        &self.ca.cert_pem
    }

    fn mint(&self, cn: &str, groups: &[&str], namespace: Option<&str>) -> PathBuf {
        let pair = self.ca.client(cn, groups);
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let safe: String = cn
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let path = self
            .workdir
            .join("kubeconfigs")
            .join(format!("user-{safe}-{n}.yaml"));
        pki::write_kubeconfig(&path, &self.url, &self.ca.cert_pem, cn, &pair, namespace);
        path
    }

    fn kubectl_cmd(&self, kubeconfig: &Path, args: &[&str]) -> Command {
        kubectl_command(&self.bins.kubectl, &self.workdir, kubeconfig, args)
    }

    /// Runs the built kubectl with the admin kubeconfig.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        self.kubectl_as(&self.kubeconfig, args)
    }

    /// [`Server::kubectl`] that must succeed: its stdout.
    pub fn kubectl_ok(&self, args: &[&str]) -> String {
        stdout_of(&self.kubectl(args))
    }

    /// Runs the built kubectl with another kubeconfig.
    pub fn kubectl_as(&self, kubeconfig: &Path, args: &[&str]) -> Output {
        self.kubectl_cmd(kubeconfig, args)
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", self.bins.kubectl.display()))
    }

    /// Runs the built kubectl (admin) with `stdin` as its input.
    pub fn kubectl_stdin(&self, args: &[&str], stdin: &str) -> Output {
        use std::io::Write;
        let mut child = self
            .kubectl_cmd(&self.kubeconfig, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("run {}: {e}", self.bins.kubectl.display()));
        child
            .stdin
            .take()
            .expect("kubectl stdin")
            .write_all(stdin.as_bytes())
            .expect("write kubectl stdin");
        child.wait_with_output().expect("wait for kubectl")
    }

    /// `kubectl apply -f -` as admin; panics with kubectl's output on failure.
    pub fn apply(&self, yaml: &str) {
        stdout_of(&self.kubectl_stdin(&["apply", "-f", "-"], yaml));
    }

    /// Applies the test CRDs (tests/crds/) again and waits until they are
    /// established. `server()` has done this already; this is for a test
    /// that deleted or changed one.
    pub fn install_crds(&self) {
        self.on_harness(|sup| sup.install_crds())
            .unwrap_or_else(|e| panic!("install the test CRDs: {e}"));
    }

    /// Stops kube-apiserver (SIGTERM, then SIGKILL after 20 s); etcd keeps
    /// running. No-op when it is stopped.
    pub fn stop(&self) {
        self.control(Cmd::Stop)
            .unwrap_or_else(|e| panic!("stop kube-apiserver: {e}"));
    }

    /// Starts kube-apiserver again on the same port with the same etcd, and
    /// waits until it is ready. No-op when it runs.
    pub fn start(&self) {
        self.control(Cmd::Start)
            .unwrap_or_else(|e| panic!("start kube-apiserver: {e}"));
    }

    /// `stop()` then `start()`.
    pub fn restart(&self) {
        self.stop();
        self.start();
    }

    fn control(&self, cmd: fn(mpsc::Sender<Result<(), String>>) -> Cmd) -> Result<(), String> {
        let (tx, rx) = mpsc::channel();
        self.ctl
            .lock()
            .unwrap()
            .send(cmd(tx))
            .map_err(|_| "the harness thread is gone".to_string())?;
        rx.recv()
            .map_err(|_| "the harness thread is gone".to_string())?
    }

    /// Runs `f` on the harness thread, with its runtime and admin client.
    fn on_admin<T, F>(&self, f: F) -> T
    where
        T: Send + 'static,
        F: FnOnce(&tokio::runtime::Runtime, &kube::Client) -> T + Send + 'static,
    {
        self.on_harness(move |sup| f(&sup.rt, &sup.admin))
    }

    /// Runs `f` on the harness thread, with its [`Supervisor`], and waits
    /// for its result. A child spawned there lives as long as the test
    /// binary (PR_SET_PDEATHSIG follows that thread).
    fn on_harness<T, F>(&self, f: F) -> T
    where
        T: Send + 'static,
        F: FnOnce(&mut Supervisor) -> T + Send + 'static,
    {
        let (tx, rx) = mpsc::channel();
        let job: Job = Box::new(move |sup: &mut Supervisor| {
            let _ = tx.send(f(sup));
        });
        self.ctl
            .lock()
            .unwrap()
            .send(Cmd::Job(job))
            .expect("the harness thread is gone");
        rx.recv().expect("the harness thread is gone")
    }
}

// ---------------------------------------------------------------------------
// Finding the binaries

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The version a go.mod of testbin/ requires for `module`.
fn pinned_version(gomod: &str, module: &str) -> Result<String, String> {
    let path = manifest_dir().join("testbin").join(gomod).join("go.mod");
    let text = fs::read_to_string(&path).map_err(|e| format!("read {}: {e}", path.display()))?;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let mut first = words.next();
        if first == Some("require") {
            first = words.next();
        }
        if first == Some(module)
            && let Some(v) = words.next()
        {
            return Ok(v.to_string());
        }
    }
    Err(format!("{} does not require {module}", path.display()))
}

fn testbin_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("TESTBIN_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
    PathBuf::from(home).join(".cache/kubectl-valkey-roll/testbin")
}

fn locate(var: &str, tool: &str, version: &str) -> Result<PathBuf, String> {
    let path = match std::env::var_os(var) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => testbin_cache().join(format!("{tool}-{version}")).join(tool),
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{tool} {version} not found at {} (set {var}, or build it: `bash testbin/build.sh`)",
            path.display()
        ))
    }
}

/// promtool (testbin/prometheus), from `PROMTOOL` or build.sh's cache;
/// panics naming the command that builds it when it is missing.
pub fn promtool() -> PathBuf {
    let found = pinned_version("prometheus", "github.com/prometheus/prometheus")
        .and_then(|version| locate("PROMTOOL", "promtool", &version));
    if let Err(e) = &found {
        skip_without::<()>(Err(e.clone()));
    }
    found.unwrap_or_else(|e| panic!("{e}"))
}

/// validate-grafana-dashboard (testbin/grafana), from
/// `VALIDATE_GRAFANA_DASHBOARD` or build.sh's cache; as [`promtool`] when
/// it is missing.
pub fn grafana_validator() -> PathBuf {
    let found = pinned_version("grafana", "github.com/grafana/grafana-foundation-sdk/go").and_then(
        |version| {
            locate(
                "VALIDATE_GRAFANA_DASHBOARD",
                "validate-grafana-dashboard",
                &version,
            )
        },
    );
    if let Err(e) = &found {
        skip_without::<()>(Err(e.clone()));
    }
    found.unwrap_or_else(|e| panic!("{e}"))
}

/// The binaries from the environment or build.sh's cache.
pub fn locate_bins() -> Result<Bins, String> {
    let kube = pinned_version("kube", "k8s.io/kubernetes")?;
    let etcd = pinned_version("etcd", "go.etcd.io/etcd/server/v3")?;
    Ok(Bins {
        kube_apiserver: locate("KUBE_APISERVER", "kube-apiserver", &kube)?,
        etcd: locate("ETCD", "etcd", &etcd)?,
        kubectl: locate("KUBECTL", "kubectl", &kube)?,
    })
}

// ---------------------------------------------------------------------------
// The harness thread

type Job = Box<dyn FnOnce(&mut Supervisor) + Send>;

enum Cmd {
    Stop(mpsc::Sender<Result<(), String>>),
    Start(mpsc::Sender<Result<(), String>>),
    Job(Job),
}

/// Lives on the harness thread: owns the children, a runtime and an admin
/// client for the harness's own requests.
struct Supervisor {
    rt: tokio::runtime::Runtime,
    admin: kube::Client,
    bins: Bins,
    etcd: Proc,
    apiserver: Option<Proc>,
    apiserver_args: Vec<String>,
    /// The control plane's children (kwok, kube-scheduler,
    /// kube-controller-manager), once `control_plane()` has started them.
    controllers: Vec<Proc>,
    workdir: PathBuf,
    url: String,
}

fn start() -> Result<Server, String> {
    let bins = locate_bins()?;
    let (ctl_tx, ctl_rx) = mpsc::channel::<Cmd>();
    let (ready_tx, ready_rx) = mpsc::channel::<Result<Server, String>>();
    thread::Builder::new()
        .name("testbin-server".into())
        .spawn(move || match Supervisor::boot(bins, ctl_tx) {
            Ok((sup, server)) => {
                let _ = ready_tx.send(Ok(server));
                sup.serve(ctl_rx);
                // Returning would end the thread and, through
                // PR_SET_PDEATHSIG, the servers: stay while the process does.
                loop {
                    thread::park();
                }
            }
            Err(e) => {
                let _ = ready_tx.send(Err(e));
            }
        })
        .map_err(|e| format!("spawn the harness thread: {e}"))?;
    ready_rx
        .recv()
        .map_err(|_| "the harness thread died while starting the server".to_string())?
}

/// Three distinct free loopback ports.
fn free_ports() -> [u16; 3] {
    let ls: Vec<TcpListener> = (0..3)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind a loopback port"))
        .collect();
    let p = |i: usize| ls[i].local_addr().expect("local addr").port();
    [p(0), p(1), p(2)]
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("write {}: {e}", path.display()))
}

const AUDIT_POLICY: &str = "apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
";

impl Supervisor {
    /// Starts etcd and kube-apiserver and installs the CRDs; returns the
    /// supervisor (which stays on this thread) and the [`Server`] that
    /// tests use, which sends its commands through `ctl`.
    fn boot(bins: Bins, ctl: mpsc::Sender<Cmd>) -> Result<(Supervisor, Server), String> {
        let workdir = procs::make_workdir();
        fs::create_dir_all(workdir.join("kubeconfigs"))
            .map_err(|e| format!("create kubeconfigs dir: {e}"))?;
        let ca = pki::Ca::new();
        let serving = ca.serving();
        let admin = ca.client("admin", &["system:masters"]);
        write(&workdir.join("ca.crt"), &ca.cert_pem)?;
        write(&workdir.join("serving.crt"), &serving.cert_pem)?;
        write(&workdir.join("serving.key"), &serving.key_pem)?;
        let (sa_key, sa_pub) = pki::service_account_keys();
        write(&workdir.join("sa.key"), &sa_key)?;
        write(&workdir.join("sa.pub"), &sa_pub)?;
        write(&workdir.join("audit-policy.yaml"), AUDIT_POLICY)?;
        let audit_log = workdir.join("audit.log");
        let kubeconfig = workdir.join("kubeconfig.yaml");

        // A port picked free can be taken before the server binds it: on
        // "address already in use", try again with new ports.
        let mut last_err = String::new();
        for attempt in 1..=3 {
            let [etcd_client, etcd_peer, port] = free_ports();
            let url = format!("https://127.0.0.1:{port}");
            pki::write_kubeconfig(&kubeconfig, &url, &ca.cert_pem, "admin", &admin, None);
            let etcd = match start_etcd(&bins, &workdir, etcd_client, etcd_peer) {
                Ok(p) => p,
                Err(e) if e.contains("address already in use") => {
                    last_err = format!("attempt {attempt}: {e}");
                    continue;
                }
                Err(e) => return Err(e),
            };
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("build the harness runtime: {e}"))?;
            let admin_client = rt.block_on(client_for(&kubeconfig));
            let mut sup = Supervisor {
                rt,
                admin: admin_client,
                bins: bins.clone(),
                etcd,
                apiserver: None,
                apiserver_args: apiserver_args(&workdir, etcd_client, port),
                controllers: Vec::new(),
                workdir: workdir.clone(),
                url: url.clone(),
            };
            match sup.start_apiserver() {
                Ok(version) => {
                    sup.install_crds()?;
                    let server = Server {
                        url,
                        port,
                        version,
                        workdir: workdir.clone(),
                        kubeconfig,
                        audit_log,
                        ca,
                        admin,
                        bins,
                        ctl: Mutex::new(ctl),
                        counter: AtomicU32::new(0),
                    };
                    return Ok((sup, server));
                }
                // dropping `sup` kills etcd
                Err(e) if e.contains("address already in use") => {
                    last_err = format!("attempt {attempt}: {e}");
                }
                Err(e) => return Err(e),
            }
        }
        Err(last_err)
    }

    /// Spawns kube-apiserver, waits for /readyz, logs the ready line, and
    /// returns the server's version.
    fn start_apiserver(&mut self) -> Result<String, String> {
        let log = self.workdir.join("kube-apiserver.log");
        let mut proc = Proc::spawn(
            "kube-apiserver",
            &self.bins.kube_apiserver,
            &self.apiserver_args,
            &self.workdir,
            &log,
        )
        .map_err(|e| format!("spawn {}: {e}", self.bins.kube_apiserver.display()))?;
        let deadline = Instant::now() + READY_TIMEOUT;
        let mut last = String::from("no answer yet");
        loop {
            if let Some(status) = proc.exited() {
                return Err(format!(
                    "kube-apiserver exited ({status}) before it was ready; its log ends:\n{}",
                    proc.log_tail(40)
                ));
            }
            if Instant::now() > deadline {
                let tail = proc.log_tail(40);
                drop(proc);
                return Err(format!(
                    "kube-apiserver was not ready after {}s (last /readyz: {last}); its log ends:\n{tail}",
                    READY_TIMEOUT.as_secs()
                ));
            }
            let req = kube::core::Request::new("")
                .get("readyz", &kube::api::GetParams::default())
                .expect("readyz request");
            let answer = self.rt.block_on(async {
                tokio::time::timeout(Duration::from_secs(5), self.admin.request_text(req)).await
            });
            match answer {
                Ok(Ok(_)) => break,
                Ok(Err(e)) => last = e.to_string(),
                Err(_) => last = "timed out".into(),
            }
            thread::sleep(Duration::from_millis(250));
        }
        let version = self
            .rt
            .block_on(self.admin.apiserver_version())
            .map(|info| info.git_version)
            .map_err(|e| format!("GET /version: {e}"))?;
        procs::append_line(
            &procs::target_dir().join("testbin-servers.log"),
            &format!("kube-apiserver {version} ready at {}", self.url),
        );
        self.apiserver = Some(proc);
        Ok(version)
    }

    fn kubectl(&self, args: &[&str]) -> Result<String, String> {
        let kubeconfig = self.workdir.join("kubeconfig.yaml");
        let out = kubectl_command(&self.bins.kubectl, &self.workdir, &kubeconfig, args)
            .output()
            .map_err(|e| format!("run {}: {e}", self.bins.kubectl.display()))?;
        succeeded(&out).map_err(|e| format!("kubectl {}: {e}", args.join(" ")))
    }

    /// Creates the test CRDs and waits until they are served.
    fn install_crds(&self) -> Result<(), String> {
        let dir = manifest_dir().join("tests").join("crds");
        let dir = dir.to_str().ok_or("non-UTF-8 path")?;
        self.kubectl(&["apply", "--server-side", "-f", dir])?;
        self.kubectl(&[
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/valkeyclusters.valkey.io",
            "crd/valkeynodes.valkey.io",
        ])?;
        Ok(())
    }

    fn serve(mut self, rx: mpsc::Receiver<Cmd>) {
        while let Ok(cmd) = rx.recv() {
            match cmd {
                Cmd::Stop(reply) => {
                    if let Some(p) = self.apiserver.take() {
                        p.stop(Duration::from_secs(20));
                    }
                    let _ = reply.send(Ok(()));
                }
                Cmd::Start(reply) => {
                    let r = if self.apiserver.is_some() {
                        Ok(())
                    } else {
                        self.start_apiserver().map(|_| ())
                    };
                    let _ = reply.send(r);
                }
                Cmd::Job(job) => job(&mut self),
            }
        }
    }
}

fn start_etcd(bins: &Bins, workdir: &Path, client: u16, peer: u16) -> Result<Proc, String> {
    let data = workdir.join(format!("etcd-{client}"));
    let client_url = format!("http://127.0.0.1:{client}");
    let peer_url = format!("http://127.0.0.1:{peer}");
    let args: Vec<String> = vec![
        "--name=testbin".into(),
        format!("--data-dir={}", data.display()),
        format!("--listen-client-urls={client_url}"),
        format!("--advertise-client-urls={client_url}"),
        format!("--listen-peer-urls={peer_url}"),
        format!("--initial-advertise-peer-urls={peer_url}"),
        format!("--initial-cluster=testbin={peer_url}"),
        "--initial-cluster-state=new".into(),
        "--unsafe-no-fsync".into(),
        "--log-level=warn".into(),
    ];
    let log = workdir.join("etcd.log");
    let mut proc = Proc::spawn("etcd", &bins.etcd, &args, workdir, &log)
        .map_err(|e| format!("spawn {}: {e}", bins.etcd.display()))?;
    let addr = SocketAddr::from(([127, 0, 0, 1], client));
    let deadline = Instant::now() + ETCD_TIMEOUT;
    loop {
        if let Some(status) = proc.exited() {
            return Err(format!(
                "etcd exited ({status}); its log ends:\n{}",
                proc.log_tail(30)
            ));
        }
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(proc);
        }
        if Instant::now() > deadline {
            return Err(format!(
                "etcd did not listen on {addr} within {}s; its log ends:\n{}",
                ETCD_TIMEOUT.as_secs(),
                proc.log_tail(30)
            ));
        }
        thread::sleep(Duration::from_millis(100));
    }
}

fn apiserver_args(workdir: &Path, etcd_client: u16, port: u16) -> Vec<String> {
    let f = |name: &str| workdir.join(name).display().to_string();
    vec![
        format!("--etcd-servers=http://127.0.0.1:{etcd_client}"),
        format!("--secure-port={port}"),
        "--bind-address=127.0.0.1".into(),
        "--advertise-address=127.0.0.1".into(),
        format!("--cert-dir={}", f("apiserver-certs")),
        format!("--tls-cert-file={}", f("serving.crt")),
        format!("--tls-private-key-file={}", f("serving.key")),
        format!("--client-ca-file={}", f("ca.crt")),
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
        format!("--service-account-key-file={}", f("sa.pub")),
        format!("--service-account-signing-key-file={}", f("sa.key")),
        "--authorization-mode=RBAC".into(),
        // pods/log is proxied to the Node's kubelet endpoint: dial its
        // InternalIP (kwok's Node: 127.0.0.1), never resolve its Hostname.
        // No --kubelet-certificate-authority: the kubelet's (kwok's)
        // certificate is not verified; no client certificate is sent.
        "--kubelet-preferred-address-types=InternalIP".into(),
        "--service-cluster-ip-range=10.0.0.0/24".into(),
        "--disable-admission-plugins=ServiceAccount".into(),
        "--allow-privileged=true".into(),
        format!("--audit-policy-file={}", f("audit-policy.yaml")),
        format!("--audit-log-path={}", f("audit.log")),
        "--audit-log-mode=blocking".into(),
    ]
}
