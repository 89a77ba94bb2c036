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
//! valkey_rig::make_secret(&client, &ns, &pw).await;
//! valkey_rig::until_link(&servers["rig-1-1"].ip, &pw, "down").await;
//! ```

use std::collections::BTreeMap;
use std::time::Duration;

use super::controlplane::eventually;
use super::operator::Operator;
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
