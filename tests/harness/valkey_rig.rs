//! The rig of the tests that read real servers (servers_e2e.rs,
//! exporter_servers_e2e.rs): a ValkeyCluster of 2 shards of 2 made by the
//! simulated operator on the real control plane, each pod backed by a
//! real valkey-server bound to its kwok IP (valkey.rs's [`RealServer`],
//! with the operator's ACL file), formed over RESP as the operator does;
//! the Secret that holds the system users' passwords; a replica whose
//! link is down; servers that are not servers ([`Fake`]); and the check
//! that no password shows.
//!
//! ```ignore
//! let (op, ns, pw, mut servers) = valkey_rig::rig("my-test").await;
//! // The same cluster as a P1 operator leaves it, written by a Sim:
//! let (sim, ns, pw, mut servers, client) = valkey_rig::rig_p1("my-p1").await;
//! valkey_rig::make_secret(&client, &ns, &pw).await;
//! valkey_rig::until_link(&servers["rig-1-1"].ip, &pw, "down").await;
//! ```

use std::collections::BTreeMap;
use std::time::Duration;

use super::controlplane::eventually;
use super::operator::Operator;
use super::sim::Sim;
use super::valkey::{self, OPERATOR, Passwords, RealServer};
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, ListParams, PostParams};
use serde_json::json;

/// How long the rig waits for anything.
pub const BOUND: Duration = Duration::from_secs(180);
/// The rig's ValkeyCluster.
pub const CLUSTER: &str = "rig";
/// The image it is created with.
pub const IMAGE: &str = "valkey/valkey:9.0.0";

/// Node name -> its pod's IP, once every one of `count` pods has one.
pub async fn pod_ips(client: &kube::Client, ns: &str, count: usize) -> BTreeMap<String, String> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    let deadline = std::time::Instant::now() + BOUND;
    loop {
        let list = pods
            .list(&ListParams::default().labels(&format!("valkey.io/cluster={CLUSTER}")))
            .await
            .unwrap();
        let mut found = BTreeMap::new();
        for p in list.items {
            let v = serde_json::to_value(&p).unwrap();
            let node = v["metadata"]["labels"]["app.kubernetes.io/instance"]
                .as_str()
                .map(str::to_string);
            let ip = v["status"]["podIP"].as_str().map(str::to_string);
            if let (Some(node), Some(ip)) = (node, ip) {
                found.insert(node, ip);
            }
        }
        if found.len() == count {
            return found;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "pods with IPs: {found:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The Secret `internal-rig-system-passwords` with `pw`, as the operator
/// makes it.
pub async fn make_secret(client: &kube::Client, ns: &str, pw: &Passwords) {
    let secrets: Api<Secret> = Api::namespaced(client.clone(), ns);
    let s: Secret = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": format!("internal-{CLUSTER}-system-passwords")},
        "stringData": pw.secret_data(),
    }))
    .unwrap();
    secrets.create(&PostParams::default(), &s).await.unwrap();
}

/// A cluster of 2 shards of 2 on real servers; returns its operator,
/// namespace, passwords and servers by node name.
pub async fn rig(hint: &str) -> (Operator, String, Passwords, BTreeMap<String, RealServer>) {
    let cp = super::control_plane();
    let ns = cp.fresh_namespace(hint);
    let client = cp.client().await;
    let op = Operator::start(client.clone(), &ns, CLUSTER);
    op.create_cluster(IMAGE, 2, 1).await;
    op.settled(4, IMAGE, BOUND).await;
    let ips = pod_ips(&client, &ns, 4).await;
    let pw = Passwords::for_cluster(&format!("{ns}/{CLUSTER}"));
    let mut servers = BTreeMap::new();
    for (node, ip) in &ips {
        servers.insert(node.clone(), RealServer::start(ip, &pw).await);
        valkey::forward_pod(&client, &ns, &format!("valkey-{node}-0"), ip).await;
    }
    let shards: Vec<Vec<String>> = (0..2)
        .map(|s| {
            vec![
                ips[&format!("{CLUSTER}-{s}-0")].clone(),
                ips[&format!("{CLUSTER}-{s}-1")].clone(),
            ]
        })
        .collect();
    valkey::form_cluster(&shards, &pw).await;
    (op, ns, pw, servers)
}

/// [`rig`] with the Secret of its passwords in place, so the plugin may
/// read its servers; also returns a client of the control plane.
pub async fn rig_readable(
    hint: &str,
) -> (
    Operator,
    String,
    Passwords,
    BTreeMap<String, RealServer>,
    kube::Client,
) {
    let (op, ns, pw, servers) = rig(hint).await;
    let client = super::control_plane().client().await;
    make_secret(&client, &ns, &pw).await;
    (op, ns, pw, servers, client)
}

/// [`rig_readable`] as a P1 operator leaves it at rest: the roles
/// written ([`write_roles`]), the simulated operator (a P2 one) stopped,
/// and every ValkeyNode's `spec.workloadRevision` taken off (a P1
/// operator writes none; one Update each, then the new generation
/// observed in its status), so that the nodes say nothing
/// of their protocol until one asks to roll as a P1 node controller asks
/// ([`Sim::ask`]: the desired annotation, then WorkloadDrift). The
/// StatefulSets, pods and their IPs stay the real controllers' and kwok's;
/// the returned [`Sim`] writes the P1 steps.
pub async fn rig_p1(
    hint: &str,
) -> (
    Sim,
    String,
    Passwords,
    BTreeMap<String, RealServer>,
    kube::Client,
) {
    let (op, ns, pw, servers, client) = rig_readable(hint).await;
    write_roles(&op).await;
    op.stop().await;
    let sim = Sim::new(client.clone(), &ns, CLUSTER);
    for node in servers.keys() {
        let n = sim.node(node);
        n.update(|o| {
            if let Some(spec) = o["spec"].as_object_mut() {
                spec.remove("workloadRevision");
            }
        })
        .await;
        // The node controller observes the new generation: its status and
        // every condition of it (one write).
        n.update_status(|obj, st| {
            let g = obj["metadata"]["generation"].clone();
            st.insert("observedGeneration".into(), g.clone());
            if let Some(conds) = st.get_mut("conditions").and_then(|c| c.as_array_mut()) {
                for c in conds {
                    c["observedGeneration"] = g.clone();
                }
            }
        })
        .await;
    }
    (sim, ns, pw, servers, client)
}

/// Fails when any of the cluster's passwords is in `text`.
pub fn assert_no_password(pw: &Passwords, what: &str, text: &str) {
    for p in [&pw.exporter, &pw.operator, &pw.replication] {
        assert!(!text.contains(p.as_str()), "a password in {what}:\n{text}");
    }
}

/// `node`'s server (a replica) restarts with a wrong primaryauth: its
/// link stays down. Returns once its server says so.
pub async fn link_down(servers: &mut BTreeMap<String, RealServer>, pw: &Passwords, node: &str) {
    let Some(server) = servers.get_mut(node) else {
        panic!("no server for {node}")
    };
    server
        .restart_with_primaryauth(pw, "not-the-password")
        .await;
    until_link(&server.ip, pw, "down").await;
}

/// Each node's status.role as the real operator writes it on a rig
/// formed as [`rig`] forms it (`rig-S-0` the primary of shard S): this
/// rig's simulated operator has no model of the servers to read them from.
pub async fn write_roles(op: &Operator) {
    for (node, role) in [
        ("rig-0-0", "primary"),
        ("rig-0-1", "replica"),
        ("rig-1-0", "primary"),
        ("rig-1-1", "replica"),
    ] {
        op.sim
            .node(node)
            .status_merge(json!({ "role": role }))
            .await;
    }
}

/// A rolled replica's new server at `ip` (its new pod's), joined to the
/// shard of the server at `primary` as the operator joins one (CLUSTER
/// MEET, then REPLICATE), with a primaryauth the primary refuses: it is a
/// replica of `primary` whose link stays down (restart it with the right
/// primaryauth to let it sync). Returns once its server says so.
pub async fn rejoin_unsynced(ip: &str, primary: &str, pw: &Passwords) -> RealServer {
    let wrong = Passwords {
        replication: "not-the-password".into(),
        ..pw.clone()
    };
    let fresh = RealServer::start(ip, &wrong).await;
    let operator = pw.operator.as_str();
    valkey::call(
        ip,
        OPERATOR,
        operator,
        &["CLUSTER", "MEET", primary, "6379"],
    )
    .await
    .unwrap_or_else(|e| panic!("CLUSTER MEET from {ip}: {e}"));
    let id = valkey::call(primary, OPERATOR, operator, &["CLUSTER", "MYID"])
        .await
        .unwrap_or_else(|e| panic!("CLUSTER MYID of {primary}: {e}"));
    eventually(&format!("{ip} a replica of {primary}"), BOUND, || {
        let (ip, id, pw) = (ip.to_string(), id.clone(), pw.operator.clone());
        async move {
            valkey::call(&ip, OPERATOR, &pw, &["CLUSTER", "REPLICATE", &id]).await?;
            let info = valkey::call(&ip, OPERATOR, &pw, &["INFO", "replication"]).await?;
            match valkey::info_field(&info, "role").as_deref() {
                Some("slave") => Ok(()),
                other => Err(format!("{other:?}")),
            }
        }
    })
    .await;
    until_link(ip, pw, "down").await;
    fresh
}

/// Waits until the server at `ip` is a replica whose `master_link_status`
/// is `link` (`up` or `down`).
pub async fn until_link(ip: &str, pw: &Passwords, link: &str) {
    eventually(
        &format!("{ip} a replica with its link {link}"),
        BOUND,
        || {
            let (ip, pw) = (ip.to_string(), pw.operator.clone());
            async move {
                let info = valkey::call(&ip, OPERATOR, &pw, &["INFO", "replication"]).await?;
                let role = valkey::info_field(&info, "role");
                let now = valkey::info_field(&info, "master_link_status");
                match (role.as_deref(), now.as_deref()) {
                    (Some("slave"), Some(l)) if l == link => Ok(()),
                    other => Err(format!("{other:?}")),
                }
            }
        },
    )
    .await;
}

/// A server that is not one.
#[derive(Clone, Copy, Debug)]
pub enum Fake {
    /// Accepts, reads, never answers.
    Hang,
    /// Answers as an HTTP server would.
    Garbage,
    /// Announces a reply of a gigabyte and sends it, on and on.
    Huge,
    /// Closes every connection as it comes.
    Close,
    /// Takes AUTH, then answers INFO with 50,000 levels of nested arrays
    /// (`*1\r\n` each: 200 KB, under the reply's byte bound), which a
    /// decoder that recurses per level cannot survive.
    Deep,
    /// Answers a TLS ClientHello with a handshake record that trickles,
    /// one byte every 200 ms (for a minute at most).
    Trickle,
}

impl Fake {
    /// Serves every connection `listener` accepts, until dropped.
    pub async fn serve(self, listener: tokio::net::TcpListener) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        loop {
            let Ok((mut conn, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                match self {
                    Fake::Close => {}
                    Fake::Trickle => {
                        let _ = conn.read(&mut buf).await;
                        let mut record = vec![0x16, 0x03, 0x03, 0x40, 0x00, 0x02];
                        record.resize(300, 0);
                        for b in record {
                            if conn.write_all(&[b]).await.is_err() {
                                break;
                            }
                            tokio::time::sleep(Duration::from_millis(200)).await;
                        }
                    }
                    Fake::Hang => while matches!(conn.read(&mut buf).await, Ok(n) if n > 0) {},
                    Fake::Garbage => {
                        let _ = conn.read(&mut buf).await;
                        let _ = conn
                            .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                            .await;
                        while matches!(conn.read(&mut buf).await, Ok(n) if n > 0) {}
                    }
                    Fake::Deep => {
                        let _ = conn.read(&mut buf).await;
                        let _ = conn.write_all(b"+OK\r\n").await;
                        let _ = conn.read(&mut buf).await;
                        let _ = conn.write_all(&b"*1\r\n".repeat(50_000)).await;
                        while matches!(conn.read(&mut buf).await, Ok(n) if n > 0) {}
                    }
                    Fake::Huge => {
                        let _ = conn.read(&mut buf).await;
                        let _ = conn.write_all(b"+OK\r\n").await;
                        let _ = conn.read(&mut buf).await;
                        let _ = conn.write_all(b"$1073741824\r\n").await;
                        let chunk = vec![b'x'; 64 * 1024];
                        for _ in 0..16384 {
                            if conn.write_all(&chunk).await.is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        }
    }
}

// ---------------------------------------------------------------------------
// TLS (issue 44)
//
// The operator's servers with `spec.networking.tls` speak TLS only on 6379
// (c33988f, internal/controller/config.go). The test servers are built
// without TLS, so a front the harness owns terminates it: [`TlsFront`]
// listens on the pod's IP at 6379, does the TLS handshake with the
// certificate the test gives it (tokio-rustls, server side), and forwards
// the plain bytes to the real valkey-server on the same IP at another port.
// The servers' own traffic (the replication of a replica, and MEET on the
// bus port) is plain RESP, which the front passes through untouched: the
// first byte of a TLS connection is a handshake record (0x16), never one
// of RESP's. The plugin, reading a TLS cluster, only ever sends a
// handshake; a test that gives it a CA that does not verify the front
// proves it does not fall back to plain text.

/// The port of the real server behind a [`TlsFront`].
pub const BEHIND: u16 = 7379;

/// A server configuration presenting `chain` (PEM, the leaf first) with
/// `key_pem`.
pub fn tls_config(chain_pem: &str, key_pem: &str) -> std::sync::Arc<rustls::ServerConfig> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(chain_pem.as_bytes())
        .collect::<Result<_, _>>()
        .expect("chain PEM");
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes()).expect("key PEM");
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("server certificate");
    std::sync::Arc::new(config)
}

/// The TLS front of one pod's server: see the section's documentation.
/// Its listeners close when it is dropped.
pub struct TlsFront {
    pub ip: String,
    config: std::sync::Arc<std::sync::RwLock<std::sync::Arc<rustls::ServerConfig>>>,
    handshakes: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl TlsFront {
    /// Listens at `ip`:6379 (TLS, or the servers' plain traffic) and at
    /// `ip`:16379 (the bus, plain), forwarding to `ip`:[`BEHIND`] and
    /// its bus.
    pub async fn start(ip: &str, config: std::sync::Arc<rustls::ServerConfig>) -> TlsFront {
        let config = std::sync::Arc::new(std::sync::RwLock::new(config));
        let front = bind_retrying(ip, valkey::PORT).await;
        let bus = bind_retrying(ip, valkey::PORT + 10000).await;
        let (ip_owned, held) = (ip.to_string(), config.clone());
        let handshakes = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = handshakes.clone();
        let serving = tokio::spawn(async move {
            loop {
                let Ok((conn, _)) = front.accept().await else {
                    return;
                };
                let (ip, held, counted) = (ip_owned.clone(), held.clone(), counted.clone());
                tokio::spawn(async move {
                    let mut first = [0u8; 1];
                    if !matches!(conn.peek(&mut first).await, Ok(1)) {
                        return;
                    }
                    let Ok(mut back) = tokio::net::TcpStream::connect((ip.as_str(), BEHIND)).await
                    else {
                        return;
                    };
                    if first[0] == 0x16 {
                        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let config = match held.read() {
                            Ok(c) => c.clone(),
                            Err(_) => return,
                        };
                        let Ok(mut tls) =
                            tokio_rustls::TlsAcceptor::from(config).accept(conn).await
                        else {
                            return;
                        };
                        let _ = tokio::io::copy_bidirectional(&mut tls, &mut back).await;
                    } else {
                        let mut conn = conn;
                        let _ = tokio::io::copy_bidirectional(&mut conn, &mut back).await;
                    }
                });
            }
        });
        let ip_owned = ip.to_string();
        let bussing = tokio::spawn(async move {
            loop {
                let Ok((mut conn, _)) = bus.accept().await else {
                    return;
                };
                let ip = ip_owned.clone();
                tokio::spawn(async move {
                    let Ok(mut back) =
                        tokio::net::TcpStream::connect((ip.as_str(), BEHIND + 10000)).await
                    else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut conn, &mut back).await;
                });
            }
        });
        TlsFront {
            ip: ip.to_string(),
            config,
            handshakes,
            tasks: vec![serving, bussing],
        }
    }

    /// The TLS handshakes begun with it so far.
    pub fn handshakes(&self) -> usize {
        self.handshakes.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Presents another certificate from the next connection on.
    pub fn present(&self, config: std::sync::Arc<rustls::ServerConfig>) {
        if let Ok(mut held) = self.config.write() {
            *held = config;
        }
    }
}

impl Drop for TlsFront {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Binds `ip`:`port`, again for a few seconds while an old listener's
/// task is still letting go of it.
pub async fn bind_retrying(ip: &str, port: u16) -> tokio::net::TcpListener {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match tokio::net::TcpListener::bind((ip, port)).await {
            Ok(l) => return l,
            Err(e) if std::time::Instant::now() > deadline => panic!("bind {ip}:{port}: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// [`rig`] whose servers speak TLS only on 6379 ([`TlsFront`] each, all
/// presenting a placeholder certificate until the test presents its own), with its ValkeyCluster's `spec.networking.tls`
/// set and the Secret of its passwords in place; returns the fronts by
/// node name beside the servers.
pub async fn rig_tls(
    hint: &str,
) -> (
    Operator,
    String,
    Passwords,
    BTreeMap<String, RealServer>,
    BTreeMap<String, TlsFront>,
    kube::Client,
) {
    let cp = super::control_plane();
    let ns = cp.fresh_namespace(hint);
    let client = cp.client().await;
    let op = Operator::start(client.clone(), &ns, CLUSTER);
    op.create_cluster(IMAGE, 2, 1).await;
    op.settled(4, IMAGE, BOUND).await;
    op.sim
        .edit_cluster_spec(json!({"networking": {"tls": {"certificates": {"server": {"secretName": format!("{CLUSTER}-tls")}}}}}))
        .await;
    let ips = pod_ips(&client, &ns, 4).await;
    let pw = Passwords::for_cluster(&format!("{ns}/{CLUSTER}"));
    let mut servers = BTreeMap::new();
    let mut fronts = BTreeMap::new();
    // Until the test presents its own (it knows the namespace, and so the
    // server name, only now): a certificate of no use to the plugin.
    let placeholder =
        super::pki::Ca::new().server_valid(&["placeholder"], (2025, 1, 1), (2099, 1, 1));
    let config = tls_config(&placeholder.cert_pem, &placeholder.key_pem);
    for (node, ip) in &ips {
        fronts.insert(node.clone(), TlsFront::start(ip, config.clone()).await);
        servers.insert(
            node.clone(),
            RealServer::start_behind(ip, &pw, BEHIND).await,
        );
        valkey::forward_pod(&client, &ns, &format!("valkey-{node}-0"), ip).await;
    }
    let shards: Vec<Vec<String>> = (0..2)
        .map(|s| {
            vec![
                ips[&format!("{CLUSTER}-{s}-0")].clone(),
                ips[&format!("{CLUSTER}-{s}-1")].clone(),
            ]
        })
        .collect();
    valkey::form_cluster(&shards, &pw).await;
    make_secret(&client, &ns, &pw).await;
    (op, ns, pw, servers, fronts, client)
}
