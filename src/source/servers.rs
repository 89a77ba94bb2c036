//! Reading the Valkey servers live (docs/servers.md): for each cluster
//! asked, the password of the operator's read-only ACL user `_exporter`
//! (key `_exporter` of the Secret `internal-<cluster>-system-passwords`),
//! then, for each pod of the cluster, INFO replication, CLUSTER NODES and
//! CLUSTER INFO as that user, and nothing else. The answers become the
//! same [`ServerReading`] values a snapshot file carries, so the
//! classifier judges a live reading and a file alike.
//!
//! Two ways to a server ([`Transport`]): through the API server's
//! port-forward to the pod's port 6379 (what `kubectl port-forward` does;
//! kube's `ws` feature), or straight to `status.podIP:6379` (`direct`, for
//! the plugin running in the cluster). Either way the plugin owns the
//! stream: RESP2 frames are written and decoded with the `redis-protocol`
//! codec, and [`Bounds`] limit the time per server, the bytes of one
//! reply and the servers read at once. A server that cannot be read is a
//! reading with `error` set ([`Failure::code`]), never a silent gap; a
//! cluster whose Secret cannot be read has one such reading per pod and a
//! [`ClusterServers::trouble`] for the one line the commands print.
//!
//! The password is held in a [`SecretString`] from the Secret's bytes to
//! the AUTH frame, whose buffer is zeroed once written; it is in no
//! reading, error or log.

use std::time::Duration;

use futures::StreamExt;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Pod, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use redis_protocol::resp2::decode::decode;
use redis_protocol::resp2::encode::encode_borrowed;
use redis_protocol::resp2::types::{BorrowedFrame, OwnedFrame};
use secrecy::{ExposeSecret, SecretString};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::live::Live;
use super::resp::Shape;
use super::trust::{self, CaFrom};
use crate::snapshot::{
    ClusterKey, LinkStatus, ServerReading, ServerRole, ServersNotRead, Snapshot, keys,
};
pub(crate) use crate::snapshot::{
    ClusterServers, EXPORTER_USER, Failure, VALKEY_PORT, secret_name,
};

/// How the plugin reaches a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transport {
    /// The API server's port-forward to the pod's port 6379.
    PortForward,
    /// `status.podIP:6379`, where the plugin runs in the cluster.
    Direct,
}

/// How the plugin reaches the servers, and the CA that verifies those of
/// a TLS cluster (none given: a TLS cluster is not read).
#[derive(Clone, Debug)]
pub(crate) struct Reach {
    pub transport: Transport,
    pub ca: Option<CaFrom>,
}

/// What a TLS cluster's servers are dialled with: the client
/// configuration of the CA given, and the name each server's certificate
/// must carry ([`trust::server_name`]).
#[derive(Clone)]
struct Tls {
    config: std::sync::Arc<rustls::ClientConfig>,
    name: rustls_pki_types::ServerName<'static>,
}

/// The limits of reading the servers. The reading as a whole is bounded
/// by the command's `--request-timeout` ([`Live::request_timeout`]), not
/// here: see [`read_into`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    /// Connecting, authenticating and the three commands of one server.
    pub per_server: Duration,
    /// The most bytes of one reply (CLUSTER NODES of a large cluster is
    /// some 100 bytes a node: 4 MiB is tens of thousands of nodes).
    pub reply_bytes: usize,
    /// Servers read at once.
    pub at_once: usize,
}

pub(crate) const BOUNDS: Bounds = Bounds {
    per_server: Duration::from_secs(3),
    reply_bytes: 4 * 1024 * 1024,
    at_once: AT_ONCE,
};

/// Servers read at once. Straight to the pods, 3,000 healthy servers take
/// some 3 s at 4 or at 32. Through the API server's port-forward every
/// server is a WebSocket upgrade of its own (a TLS connection to the API
/// server, and the API server's to the kubelet), and the waiting counts as
/// much as the cores: on a loaded 2-core machine 3,000 took 24 s at 64,
/// where 32 read 2,700 of them in the 30 s of the default
/// `--request-timeout` (BENCHMARKS.md, "Reading the servers").
const AT_ONCE: usize = 64;

/// Reads the servers of every cluster in `snapshot` (of `only`, when
/// given) and adds the readings to it. Returns one account per cluster.
///
/// The reading as a whole ends at `--request-timeout` after it began (none
/// at 0): the servers not read by then are `timed out`, those read are
/// kept, and a cluster not reached by then is not read (its account's
/// trouble is [`Failure::TimedOut`]).
pub(crate) async fn read_into(
    live: &Live,
    snapshot: &mut Snapshot,
    only: Option<(&str, &str)>,
    reach: &Reach,
    bounds: Bounds,
) -> Vec<ClusterServers> {
    let deadline = deadline(live);
    read_into_until(
        live,
        snapshot,
        only,
        reach,
        bounds,
        deadline,
        &CaKept::default(),
    )
    .await
}

/// Reads the servers of the one cluster `key` of `snapshot` (a view of
/// it) and adds the readings to it, with the CA `ca` keeps: a reading
/// again and again (the live layer's re-reads) loads the CA once every
/// [`CA_KEPT`], not at each. Its own `--request-timeout`, as
/// [`read_into`]'s. `None` when `snapshot` holds no such cluster.
pub(crate) async fn read_cluster_into(
    live: &Live,
    snapshot: &mut Snapshot,
    key: &ClusterKey,
    reach: &Reach,
    bounds: Bounds,
    ca: &CaKept,
) -> Option<ClusterServers> {
    let only = Some((key.0.as_str(), key.1.as_str()));
    read_into_until(live, snapshot, only, reach, bounds, deadline(live), ca)
        .await
        .into_iter()
        .next()
}

/// How long a CA loaded for re-reads is used before it is read again (a
/// CA rotated in its ConfigMap is seen within this); a CA that could not
/// be loaded is tried again at the next reading.
pub(crate) const CA_KEPT: Duration = Duration::from_secs(300);

/// The CA's client configuration as last loaded, and when; shared by the
/// clones of one re-reader's readings.
#[derive(Clone, Default)]
pub(crate) struct CaKept(std::sync::Arc<std::sync::Mutex<Option<LoadedCa>>>);

/// A CA's client configuration and when it was loaded.
type LoadedCa = (tokio::time::Instant, std::sync::Arc<rustls::ClientConfig>);

impl CaKept {
    /// The CA of `from`: the one kept when loaded less than [`CA_KEPT`]
    /// ago, else loaded now (and kept when it loads).
    async fn get(
        &self,
        live: &Live,
        from: &CaFrom,
        deadline: Option<tokio::time::Instant>,
    ) -> Result<std::sync::Arc<rustls::ClientConfig>, Failure> {
        let now = tokio::time::Instant::now();
        if let Ok(kept) = self.0.lock()
            && let Some((at, config)) = kept.as_ref()
            && now < *at + CA_KEPT
        {
            return Ok(config.clone());
        }
        let loaded = match until(deadline, trust::load(live, from)).await {
            Some(loaded) => loaded.map_err(Failure::CaUnread)?,
            None => return Err(Failure::TimedOut),
        };
        if let Ok(mut kept) = self.0.lock() {
            *kept = Some((now, loaded.clone()));
        }
        Ok(loaded)
    }
}

/// When a reading of the servers that begins now must end: after
/// `--request-timeout`, none when it is 0.
fn deadline(live: &Live) -> Option<tokio::time::Instant> {
    live.request_timeout
        .map(|limit| tokio::time::Instant::now() + limit)
}

/// [`read_into`], to end by `deadline`.
async fn read_into_until(
    live: &Live,
    snapshot: &mut Snapshot,
    only: Option<(&str, &str)>,
    reach: &Reach,
    bounds: Bounds,
    deadline: Option<tokio::time::Instant>,
    kept: &CaKept,
) -> Vec<ClusterServers> {
    let clusters: Vec<(String, String)> = snapshot
        .clusters
        .iter()
        .map(|c| (c.namespace().to_string(), c.name().to_string()))
        .filter(|(ns, name)| only.is_none_or(|(ons, on)| ns == ons && name == on))
        .collect();
    let mut accounts = Vec::new();
    // The CA, read once for every TLS cluster of this reading (or kept
    // from an earlier one), and only when one is read.
    let mut ca: Option<Result<std::sync::Arc<rustls::ClientConfig>, Failure>> = None;
    for (ns, name) in clusters {
        let targets = targets_of(snapshot, &ns, &name);
        let tls = match uses_tls(snapshot, &ns, &name) {
            false => None,
            true => {
                // Plain RESP to a TLS port is no reading, and nothing is
                // dialled unverified: without a CA, say so and dial
                // nothing; the API's judgement stands, as for any cluster
                // not read.
                let config = match (&reach.ca, &ca) {
                    (None, _) => Err(Failure::Tls),
                    (Some(_), Some(had)) => had.clone(),
                    (Some(from), None) => {
                        let had = kept.get(live, from, deadline).await;
                        ca = Some(had.clone());
                        had
                    }
                };
                let tls = config.and_then(|config| {
                    let name = trust::server_name(&ns, &name).ok_or(Failure::Tls)?;
                    Ok(Tls { config, name })
                });
                match tls {
                    Ok(tls) => Some(tls),
                    Err(trouble) => {
                        accounts.push(ClusterServers {
                            namespace: ns,
                            cluster: name,
                            trouble: Some(trouble),
                            read: 0,
                            failed: Vec::new(),
                        });
                        continue;
                    }
                }
            }
        };
        let (readings, account) = read_cluster(
            live,
            &ns,
            &name,
            targets,
            (reach.transport, tls.as_ref()),
            bounds,
            deadline,
        )
        .await;
        snapshot.readings.extend(readings);
        accounts.push(account);
    }
    // A cluster none of whose servers could be read leaves no reading: the
    // view says so, for its verdict to.
    snapshot
        .servers_not_read
        .extend(accounts.iter().filter_map(ServersNotRead::of));
    snapshot.normalize();
    accounts
}

/// The cluster's servers speak TLS only: `spec.networking.tls` (the
/// operator at c33988f; its nodes then get `spec.tls`).
fn uses_tls(snapshot: &Snapshot, ns: &str, cluster: &str) -> bool {
    let set = |v: Option<&serde_json::Value>| v.is_some_and(|v| !v.is_null());
    snapshot
        .clusters
        .iter()
        .find(|c| c.namespace() == ns && c.name() == cluster)
        .is_some_and(|c| set(c.spec.networking.as_ref().and_then(|n| n.get("tls"))))
}

/// A server to read: its pod, node and IP.
#[derive(Clone, Debug)]
struct Target {
    pod: String,
    node: Option<String>,
    ip: Option<String>,
}

fn targets_of(snapshot: &Snapshot, ns: &str, cluster: &str) -> Vec<Target> {
    snapshot
        .pods
        .iter()
        .filter(|p| {
            p.metadata.namespace.as_deref() == Some(ns)
                && p.metadata.deletion_timestamp.is_none()
                && p.metadata.labels.get(keys::LABEL_CLUSTER) == Some(cluster)
        })
        .map(|p| {
            let pod = p.metadata.name.clone().unwrap_or_default();
            let node = snapshot
                .nodes
                .iter()
                .find(|n| {
                    n.namespace() == ns
                        && n.status
                            .as_ref()
                            .and_then(|s| s.pod_name.as_deref())
                            .is_some_and(|pn| pn == pod)
                })
                .map(|n| n.name().to_string());
            let ip = p
                .status
                .as_ref()
                .and_then(|s| s.pod_ip.clone())
                .filter(|ip| !ip.is_empty());
            Target { pod, node, ip }
        })
        .collect()
}

async fn read_cluster(
    live: &Live,
    ns: &str,
    cluster: &str,
    targets: Vec<Target>,
    (transport, tls): (Transport, Option<&Tls>),
    bounds: Bounds,
    deadline: Option<tokio::time::Instant>,
) -> (Vec<ServerReading>, ClusterServers) {
    let mut account = ClusterServers {
        namespace: ns.to_string(),
        cluster: cluster.to_string(),
        trouble: None,
        read: 0,
        failed: Vec::new(),
    };
    // A cluster whose servers cannot be read at all (no Secret, or not
    // allowed to read it, or no time left for it) leaves no reading: one
    // line says why, and the API's judgement stands as without --servers,
    // with no note on every role. A server that fails alone is a reading
    // with its error.
    let password = match until(deadline, password(live, ns, cluster)).await {
        Some(Ok(p)) => p,
        Some(Err(failure)) => {
            account.trouble = Some(failure);
            return (Vec::new(), account);
        }
        None => {
            account.trouble = Some(Failure::TimedOut);
            return (Vec::new(), account);
        }
    };
    let password = &password;
    let readings = read_all(targets, bounds, deadline, |t| async move {
        read_server(live, ns, &t, password, (transport, tls), bounds).await
    })
    .await
    .into_iter()
    .map(|(t, answered)| match answered {
        Ok(r) => r,
        Err(f) => failed(ns, &t, f),
    })
    .collect::<Vec<_>>();
    for r in &readings {
        match r.error.as_deref() {
            None => account.read += 1,
            Some(_) => {
                let f = failure_of(r.error.as_deref());
                account.failed.push((r.pod().to_string(), f));
            }
        }
    }
    account.failed.sort_by(|a, b| a.0.cmp(&b.0));
    (readings, account)
}

/// `fut`'s output, or `None` when `deadline` passes first.
async fn until<F: std::future::Future>(
    deadline: Option<tokio::time::Instant>,
    fut: F,
) -> Option<F::Output> {
    match deadline {
        Some(d) => tokio::time::timeout_at(d, fut).await.ok(),
        None => Some(fut.await),
    }
}

/// Reads each of `targets` with `read`, [`Bounds::at_once`] at a time and
/// each within [`Bounds::per_server`]; at `deadline` the reading stops
/// (the readings under way are dropped, a port-forward's with its
/// WebSocket: [`Forward`]) and every server not read by then is
/// [`Failure::TimedOut`]. One answer per target, in their order.
async fn read_all<T, R, F, Fut>(
    targets: Vec<T>,
    bounds: Bounds,
    deadline: Option<tokio::time::Instant>,
    read: F,
) -> Vec<(T, Result<R, Failure>)>
where
    T: Clone,
    F: Fn(T) -> Fut,
    Fut: std::future::Future<Output = Result<R, Failure>>,
{
    let mut answers: Vec<Option<Result<R, Failure>>> = targets.iter().map(|_| None).collect();
    {
        let read = &read;
        let mut stream = futures::stream::iter(targets.iter().cloned().enumerate())
            .map(|(i, t)| async move {
                // The server's own bound starts when its turn comes.
                let answered = tokio::time::timeout(bounds.per_server, read(t))
                    .await
                    .unwrap_or(Err(Failure::TimedOut));
                (i, answered)
            })
            .buffer_unordered(bounds.at_once.max(1));
        let answers = &mut answers;
        let _ = until(deadline, async move {
            while let Some((i, answered)) = stream.next().await {
                if let Some(slot) = answers.get_mut(i) {
                    *slot = Some(answered);
                }
            }
        })
        .await;
    }
    targets
        .into_iter()
        .zip(answers)
        .map(|(t, a)| (t, a.unwrap_or(Err(Failure::TimedOut))))
        .collect()
}

fn failure_of(code: Option<&str>) -> Failure {
    Failure::of_code(code)
}

/// The `_exporter` password, from the cluster's system-passwords Secret.
async fn password(live: &Live, ns: &str, cluster: &str) -> Result<SecretString, Failure> {
    let api: kube::Api<Secret> = kube::Api::namespaced(live.client.clone(), ns);
    let secret = match api.get(&secret_name(cluster)).await {
        Ok(s) => s,
        Err(kube::Error::Api(status)) if status.code == 403 => return Err(Failure::Forbidden),
        Err(kube::Error::Api(status)) if status.code == 404 => {
            return Err(Failure::NoReadOnlyUser);
        }
        Err(_) => return Err(Failure::Unreachable),
    };
    let mut data = secret.data.unwrap_or_default();
    let found = data.remove(EXPORTER_USER);
    // The other system users' passwords are not the plugin's to keep.
    for value in data.values_mut() {
        value.0.fill(0);
    }
    let bytes = found.ok_or(Failure::NoReadOnlyUser)?.0;
    match String::from_utf8(bytes) {
        Ok(s) if !s.is_empty() => Ok(SecretString::from(s)),
        Ok(_) => Err(Failure::NoReadOnlyUser),
        Err(e) => {
            let mut bytes = e.into_bytes();
            bytes.fill(0);
            Err(Failure::NoReadOnlyUser)
        }
    }
}

fn meta(ns: &str, t: &Target) -> ObjectMeta {
    ObjectMeta {
        namespace: Some(ns.to_string()),
        name: Some(t.pod.clone()),
        ..ObjectMeta::default()
    }
}

fn address(t: &Target) -> Option<String> {
    t.ip.as_ref().map(|ip| format!("{ip}:{VALKEY_PORT}"))
}

fn failed(ns: &str, t: &Target, f: Failure) -> ServerReading {
    ServerReading {
        metadata: meta(ns, t),
        node: t.node.clone(),
        observed_at: Time(Timestamp::now()),
        address: address(t),
        node_id: None,
        role: None,
        primary_address: None,
        link: None,
        syncing: None,
        flags: Vec::new(),
        cluster_state: None,
        error: Some(f.code().to_string()),
        repl_offset: None,
    }
}

async fn read_server(
    live: &Live,
    ns: &str,
    t: &Target,
    password: &SecretString,
    (transport, tls): (Transport, Option<&Tls>),
    bounds: Bounds,
) -> Result<ServerReading, Failure> {
    match transport {
        Transport::Direct => {
            let ip = t.ip.as_deref().ok_or(Failure::Unreachable)?;
            let ip: std::net::IpAddr = ip.parse().map_err(|_| Failure::Unreachable)?;
            let stream = tokio::net::TcpStream::connect((ip, VALKEY_PORT))
                .await
                .map_err(|_| Failure::Unreachable)?;
            match tls {
                None => converse(stream, ns, t, password, bounds).await,
                Some(tls) => converse(handshake(tls, stream).await?, ns, t, password, bounds).await,
            }
        }
        Transport::PortForward => {
            let api: kube::Api<Pod> = kube::Api::namespaced(live.client.clone(), ns);
            let mut forward = match api.portforward(&t.pod, &[VALKEY_PORT]).await {
                Ok(f) => Forward(f),
                Err(kube::Error::Api(status)) if status.code == 403 => {
                    return Err(Failure::Forbidden);
                }
                Err(kube::Error::UpgradeConnection(
                    kube::client::UpgradeConnectionError::ProtocolSwitch(code),
                )) if code == http::StatusCode::FORBIDDEN => return Err(Failure::Forbidden),
                Err(_) => return Err(Failure::Unreachable),
            };
            let stream = forward
                .0
                .take_stream(VALKEY_PORT)
                .ok_or(Failure::Unreachable)?;
            let mut stream = Held(Some(stream));
            let Some(conn) = stream.0.as_mut() else {
                return Err(Failure::Unreachable);
            };
            match tls {
                None => converse(conn, ns, t, password, bounds).await,
                Some(tls) => converse(handshake(tls, conn).await?, ns, t, password, bounds).await,
            }
            // `forward` is dropped here, or with this future when a bound
            // cuts it: its task and WebSocket end either way.
        }
    }
}

/// The TLS handshake with a server of a TLS cluster, verified by the CA
/// given and the operator's server name; its failure is the server's
/// reading (`tls refused` and why), never a fall back to plain text. Its
/// time is the server's own bound ([`Bounds::per_server`]).
async fn handshake<S>(tls: &Tls, stream: S) -> Result<tokio_rustls::client::TlsStream<S>, Failure>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    tokio_rustls::TlsConnector::from(tls.config.clone())
        .connect(tls.name.clone(), stream)
        .await
        .map_err(|e| match trust::refusal(&e) {
            Some(why) => Failure::TlsRefused(why),
            None => Failure::ClosedEarly,
        })
}

/// kube's port-forward, whose task (and with it the WebSocket to the API
/// server) is aborted when it is dropped: kube's own has no `Drop`, and a
/// reading cut by a bound drops its future without reaching any code
/// after the `await` that was cut.
struct Forward(kube::api::Portforwarder);

impl Drop for Forward {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A port-forward's stream. Dropping it ends kube's task by itself when
/// the API server answers the WebSocket's Close; a test build asked to
/// (`VALKEY_ROLL_TEST_HOLD_FORWARDS=1`, the `test-hooks` feature) keeps it
/// for the life of the process instead, as a peer that never answers that
/// Close would keep the task: only [`Forward`]'s abort then ends it
/// (tests/servers_bounds_e2e.rs).
struct Held(Option<tokio::io::DuplexStream>);

#[cfg(feature = "test-hooks")]
impl Drop for Held {
    fn drop(&mut self) {
        static HELD: std::sync::Mutex<Vec<tokio::io::DuplexStream>> =
            std::sync::Mutex::new(Vec::new());
        if std::env::var("VALKEY_ROLL_TEST_HOLD_FORWARDS").as_deref() == Ok("1")
            && let (Some(stream), Ok(mut held)) = (self.0.take(), HELD.lock())
        {
            held.push(stream);
        }
    }
}

/// AUTH, then the three commands, on one connection.
async fn converse<S>(
    mut stream: S,
    ns: &str,
    t: &Target,
    password: &SecretString,
    bounds: Bounds,
) -> Result<ServerReading, Failure>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut buf = Vec::new();
    // AUTH: the frame holds the password; its buffer is zeroed once sent.
    {
        let args = [
            BorrowedFrame::BulkString(b"AUTH"),
            BorrowedFrame::BulkString(EXPORTER_USER.as_bytes()),
            BorrowedFrame::BulkString(password.expose_secret().as_bytes()),
        ];
        let sent = send(&mut stream, &args).await;
        sent?;
        match reply(&mut stream, &mut buf, bounds).await? {
            OwnedFrame::SimpleString(_) => {}
            OwnedFrame::Error(e) if e.starts_with("NOPERM") => return Err(Failure::Forbidden),
            OwnedFrame::Error(_) => return Err(Failure::AuthRefused),
            _ => return Err(Failure::BadReply),
        }
    }
    let info = command(&mut stream, &mut buf, bounds, &[b"INFO", b"replication"]).await?;
    let nodes = command(&mut stream, &mut buf, bounds, &[b"CLUSTER", b"NODES"]).await?;
    let state = command(&mut stream, &mut buf, bounds, &[b"CLUSTER", b"INFO"]).await?;
    let _ = stream.shutdown().await;
    let mut reading = failed(ns, t, Failure::BadReply);
    reading.error = None;
    reading.observed_at = Time(Timestamp::now());
    apply_info(&mut reading, &info)?;
    apply_nodes(&mut reading, &nodes)?;
    reading.cluster_state = field(&state, "cluster_state").map(str::to_string);
    check(&reading)?;
    Ok(reading)
}

/// Writes one command; the encoded bytes are zeroed afterwards (AUTH's
/// hold the password).
async fn send<S>(stream: &mut S, args: &[BorrowedFrame<'_>]) -> Result<(), Failure>
where
    S: AsyncWrite + Unpin,
{
    let frame = BorrowedFrame::Array(args);
    let mut out = vec![0u8; frame.encode_len(false)];
    let written = encode_borrowed(&mut out, &frame, false);
    let sent = match written {
        Ok(n) => stream
            .write_all(&out[..n])
            .await
            .map_err(|_| Failure::ClosedEarly),
        Err(_) => Err(Failure::BadReply),
    };
    out.fill(0);
    sent?;
    stream.flush().await.map_err(|_| Failure::ClosedEarly)
}

/// A command whose answer is a bulk string (INFO, CLUSTER NODES, CLUSTER
/// INFO): the text, or why not.
async fn command<S>(
    stream: &mut S,
    buf: &mut Vec<u8>,
    bounds: Bounds,
    args: &[&[u8]],
) -> Result<String, Failure>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let frames: Vec<BorrowedFrame<'_>> =
        args.iter().map(|a| BorrowedFrame::BulkString(a)).collect();
    send(stream, &frames).await?;
    match reply(stream, buf, bounds).await? {
        OwnedFrame::BulkString(b) | OwnedFrame::SimpleString(b) => {
            String::from_utf8(b).map_err(|_| Failure::BadReply)
        }
        OwnedFrame::Error(e) if e.starts_with("NOPERM") => Err(Failure::Forbidden),
        OwnedFrame::Error(e) if e.starts_with("NOAUTH") || e.starts_with("WRONGPASS") => {
            Err(Failure::AuthRefused)
        }
        _ => Err(Failure::BadReply),
    }
}

/// Reads until one whole frame is in `buf`, at most
/// [`Bounds::reply_bytes`] and within [`super::resp`]'s depth and element
/// bounds; what follows it stays in `buf`.
async fn reply<S>(stream: &mut S, buf: &mut Vec<u8>, bounds: Bounds) -> Result<OwnedFrame, Failure>
where
    S: AsyncRead + Unpin,
{
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        // The codec recurses once per level of nesting: it only sees a
        // frame whose depth and size the scan has bounded (source::resp).
        match super::resp::scan(buf) {
            Shape::Whole { len } => match decode(&buf[..len]) {
                Ok(Some((frame, used))) => {
                    buf.drain(..used);
                    return Ok(frame);
                }
                Ok(None) | Err(_) => return Err(Failure::BadReply),
            },
            Shape::Partial => {}
            Shape::Bad => return Err(Failure::BadReply),
        }
        if buf.len() >= bounds.reply_bytes {
            return Err(Failure::TooLarge);
        }
        let room = (bounds.reply_bytes - buf.len()).min(chunk.len());
        let n = stream
            .read(&mut chunk[..room])
            .await
            .map_err(|_| Failure::ClosedEarly)?;
        if n == 0 {
            return Err(Failure::ClosedEarly);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// The value of `name:` in an INFO-style text.
fn field<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k == name).then(|| v.trim())
    })
}

fn apply_info(r: &mut ServerReading, info: &str) -> Result<(), Failure> {
    r.role = match field(info, "role") {
        Some("master") => Some(ServerRole::Primary),
        Some("slave") => Some(ServerRole::Replica),
        _ => return Err(Failure::BadReply),
    };
    let offset = |name: &str| field(info, name).and_then(|v| v.parse::<u64>().ok());
    r.repl_offset = match r.role {
        Some(ServerRole::Replica) => offset("slave_repl_offset"),
        _ => offset("master_repl_offset"),
    };
    if r.role == Some(ServerRole::Replica) {
        r.primary_address = match (field(info, "master_host"), field(info, "master_port")) {
            (Some(h), Some(p)) => Some(format!("{h}:{p}")),
            _ => None,
        };
        r.link = match field(info, "master_link_status") {
            Some("up") => Some(LinkStatus::Up),
            Some("down") => Some(LinkStatus::Down),
            _ => None,
        };
        r.syncing = match field(info, "master_sync_in_progress") {
            Some("1") => Some(true),
            Some("0") => Some(false),
            _ => None,
        };
    }
    Ok(())
}

fn apply_nodes(r: &mut ServerReading, nodes: &str) -> Result<(), Failure> {
    let myself = nodes.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        let id = words.next()?;
        let _address = words.next()?;
        let flags = words.next()?;
        flags
            .split(',')
            .any(|f| f == "myself")
            .then(|| (id.to_string(), flags))
    });
    let (id, flags) = myself.ok_or(Failure::BadReply)?;
    r.node_id = Some(id);
    r.flags = flags.split(',').map(str::to_string).collect();
    Ok(())
}

/// A reading whose fields are beyond any server's answer (the bounds the
/// snapshot reader holds readings to) is a bad reply.
fn check(r: &ServerReading) -> Result<(), Failure> {
    let long = |s: &Option<String>| s.as_ref().is_some_and(|s| s.len() > 256);
    if [&r.node_id, &r.primary_address, &r.cluster_state]
        .into_iter()
        .any(long)
        || r.flags.len() > 16
        || r.flags.iter().any(|f| f.len() > 256)
    {
        return Err(Failure::BadReply);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const INFO_REPLICA: &str = "# Replication\r\nrole:slave\r\nmaster_host:127.0.1.3\r\nmaster_port:6379\r\nmaster_link_status:down\r\nmaster_sync_in_progress:0\r\nslave_repl_offset:1200\r\nmaster_repl_offset:1300\r\n";

    #[test]
    fn a_replica_reads_its_link_and_primary() {
        let t = Target {
            pod: "p".into(),
            node: None,
            ip: Some("127.0.1.4".into()),
        };
        let mut r = failed("ns", &t, Failure::BadReply);
        apply_info(&mut r, INFO_REPLICA).unwrap();
        assert_eq!(r.role, Some(ServerRole::Replica));
        assert_eq!(r.primary_address.as_deref(), Some("127.0.1.3:6379"));
        assert_eq!(r.link, Some(LinkStatus::Down));
        assert_eq!(r.syncing, Some(false));
        // A replica's offset is how far it applied its primary's stream.
        assert_eq!(r.repl_offset, Some(1200));
        let mut p = failed("ns", &t, Failure::BadReply);
        apply_info(&mut p, "role:master\r\nmaster_repl_offset:1500\r\n").unwrap();
        assert_eq!(p.repl_offset, Some(1500));
        apply_nodes(
            &mut r,
            "abc 127.0.1.3:6379@16379 master - 0 0 1 connected 0-100\ndef 127.0.1.4:6379@16379 myself,slave abc 0 0 1 connected\n",
        )
        .unwrap();
        assert_eq!(r.node_id.as_deref(), Some("def"));
        assert_eq!(r.flags, vec!["myself", "slave"]);
        assert_eq!(r.address.as_deref(), Some("127.0.1.4:6379"));
    }

    #[test]
    fn only_what_the_servers_say_is_a_change_not_when() {
        let t = Target {
            pod: "p".into(),
            node: None,
            ip: Some("127.0.1.4".into()),
        };
        let mut a = failed("ns", &t, Failure::BadReply);
        a.error = None;
        apply_info(&mut a, INFO_REPLICA).unwrap();
        let mut later = a.clone();
        later.observed_at = Time(a.observed_at.0 + jiff::SignedDuration::from_secs(5));
        assert!(ServerReading::all_say_the_same(
            std::slice::from_ref(&a),
            &[later.clone()]
        ));
        let mut up = later.clone();
        up.link = Some(LinkStatus::Up);
        assert!(!ServerReading::all_say_the_same(
            std::slice::from_ref(&a),
            &[up]
        ));
        let mut unread = later.clone();
        unread.error = Some(Failure::TimedOut.code().into());
        assert!(!ServerReading::all_say_the_same(
            std::slice::from_ref(&a),
            &[unread]
        ));
        assert!(!ServerReading::all_say_the_same(
            std::slice::from_ref(&a),
            &[]
        ));
        assert!(!ServerReading::all_say_the_same(
            &[],
            std::slice::from_ref(&a)
        ));
    }

    #[test]
    fn no_role_or_no_myself_is_a_bad_reply() {
        let t = Target {
            pod: "p".into(),
            node: None,
            ip: None,
        };
        let mut r = failed("ns", &t, Failure::BadReply);
        assert_eq!(apply_info(&mut r, "hello"), Err(Failure::BadReply));
        assert_eq!(apply_nodes(&mut r, "a b master\n"), Err(Failure::BadReply));
    }

    #[test]
    fn a_cluster_with_tls_is_known_as_such() {
        let cluster = |spec: serde_json::Value| -> crate::snapshot::ValkeyCluster {
            serde_json::from_value(serde_json::json!({
                "apiVersion": "valkey.io/v1alpha1", "kind": "ValkeyCluster",
                "metadata": {"namespace": "ns", "name": "c"}, "spec": spec,
            }))
            .unwrap()
        };
        let mut snap = Snapshot::default();
        snap.clusters
            .push(cluster(serde_json::json!({"shards": 1})));
        assert!(!uses_tls(&snap, "ns", "c"));
        snap.clusters[0] = cluster(serde_json::json!({
            "shards": 1,
            "networking": {"tls": {"certificates": {"server": {"secretName": "s"}}}},
        }));
        assert!(uses_tls(&snap, "ns", "c"));
        assert!(!uses_tls(&snap, "ns", "other"));
    }

    /// Issue 42: reading the servers as a whole ends at its deadline; the
    /// servers answered by then are kept, the others are `timed out`, in
    /// their order; without a deadline each server's own bound holds. A
    /// server here is a number: 0 answers at once, 1 hangs, 2 answers
    /// after 50 ms.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_reading_as_a_whole_ends_at_its_deadline() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        struct Case {
            what: &'static str,
            servers: Vec<u8>,
            per_server: Duration,
            at_once: usize,
            whole: Option<Duration>,
            /// Answered (true) or timed out (false), per server.
            want: Vec<bool>,
            /// The reading ends within this.
            within: Duration,
        }
        let ms = Duration::from_millis;
        let cases = [
            Case {
                // The 100 servers that hang: 75 s at 3 s a server,
                // 4 at once, with no bound as a whole.
                what: "100 servers that hang",
                servers: vec![1; 100],
                per_server: Duration::from_secs(3),
                at_once: 4,
                whole: Some(ms(300)),
                want: vec![false; 100],
                within: ms(2000),
            },
            Case {
                what: "those answered by the deadline are kept",
                servers: [0, 1].repeat(10),
                per_server: Duration::from_secs(3),
                at_once: 32,
                whole: Some(ms(300)),
                want: [true, false].repeat(10),
                within: ms(2000),
            },
            Case {
                what: "no deadline: each server's own bound",
                servers: vec![1, 0, 1, 0],
                per_server: ms(100),
                at_once: 2,
                whole: None,
                want: vec![false, true, false, true],
                within: ms(2000),
            },
            Case {
                what: "at once, 300 servers of 50 ms are read in 0.5 s",
                servers: vec![2; 300],
                per_server: Duration::from_secs(3),
                at_once: 32,
                whole: Some(Duration::from_secs(10)),
                want: vec![true; 300],
                within: ms(3000),
            },
        ];
        for case in cases {
            let bounds = Bounds {
                per_server: case.per_server,
                reply_bytes: 1024,
                at_once: case.at_once,
            };
            let now = AtomicUsize::new(0);
            let most = AtomicUsize::new(0);
            let started = tokio::time::Instant::now();
            let deadline = case.whole.map(|w| started + w);
            let targets: Vec<(usize, u8)> = case.servers.iter().copied().enumerate().collect();
            let (now, most) = (&now, &most);
            // Counts the readings under way; one that is cut is dropped.
            struct Under<'a>(&'a AtomicUsize);
            impl Drop for Under<'_> {
                fn drop(&mut self) {
                    self.0.fetch_sub(1, Ordering::SeqCst);
                }
            }
            let answers = read_all(targets, bounds, deadline, |(i, kind)| async move {
                let at = now.fetch_add(1, Ordering::SeqCst) + 1;
                let _under = Under(now);
                most.fetch_max(at, Ordering::SeqCst);
                match kind {
                    0 => {}
                    1 => std::future::pending::<()>().await,
                    _ => tokio::time::sleep(Duration::from_millis(50)).await,
                }
                Ok(i)
            })
            .await;
            let took = started.elapsed();
            assert!(took < case.within, "{}: took {took:?}", case.what);
            assert!(
                most.load(Ordering::SeqCst) <= case.at_once,
                "{}: {} at once",
                case.what,
                most.load(Ordering::SeqCst)
            );
            let got: Vec<bool> = answers.iter().map(|(_, a)| a.is_ok()).collect();
            assert_eq!(got, case.want, "{}", case.what);
            for (k, ((i, _), a)) in answers.iter().enumerate() {
                assert_eq!(*i, k, "{}: out of order", case.what);
                match a {
                    Ok(j) => assert_eq!(j, i, "{}", case.what),
                    Err(f) => assert_eq!(*f, Failure::TimedOut, "{}", case.what),
                }
            }
        }
    }

    #[tokio::test]
    async fn a_reply_past_the_bound_is_too_large_and_garbage_is_bad() {
        let bounds = Bounds {
            per_server: Duration::from_secs(1),
            reply_bytes: 64,
            at_once: 1,
        };
        let mut huge: &[u8] = b"$1000\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
        let mut buf = Vec::new();
        assert_eq!(
            reply(&mut huge, &mut buf, bounds).await,
            Err(Failure::TooLarge)
        );
        let mut garbage: &[u8] = b"HTTP/1.1 400 Bad Request\r\n\r\n";
        buf.clear();
        assert_eq!(
            reply(&mut garbage, &mut buf, bounds).await,
            Err(Failure::BadReply)
        );
        // 50,000 levels of arrays (200 KB, under the byte bound): a bad
        // reply, read on a thread with a small stack (the exporter's
        // workers have less than the main thread's), where the codec's
        // recursion aborted the process before.
        let deep = "*1\r\n".repeat(50_000).into_bytes();
        let wide = Bounds {
            reply_bytes: 4 * 1024 * 1024,
            ..bounds
        };
        let on_small_stack = std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                let mut buf = Vec::new();
                rt.block_on(reply(&mut deep.as_slice(), &mut buf, wide))
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(on_small_stack, Err(Failure::BadReply));
        let mut short: &[u8] = b"$10\r\nabc";
        buf.clear();
        assert_eq!(
            reply(&mut short, &mut buf, bounds).await,
            Err(Failure::ClosedEarly)
        );
    }
}
