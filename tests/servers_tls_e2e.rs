//! Issue 44: the servers of a ValkeyCluster with `spec.networking.tls`,
//! read over TLS with a CA the person gives (docs/servers.md, "TLS").
//! Each pod's real valkey-server sits behind a TLS front on its pod IP at
//! 6379 (harness::valkey_rig::TlsFront, tokio-rustls server side), whose
//! certificates the test makes with rcgen: one for the operator's server
//! name `valkey-rig.<namespace>.svc.cluster.local` signed by the CA given,
//! one for another name, an expired one, and one signed by another CA.
//!
//! - with the right CA every server is read (roles from the servers), both
//!   ways (direct and port-forward), from a file or from a ConfigMap read
//!   through the API server as a user who may not read the certificate
//!   Secret (which holds `tls.key`), and whose `-v 8` log shows no GET of it;
//! - with a certificate that does not verify, that server's reading is
//!   `tls refused: <why>` and the others are read;
//! - without a CA, the one line names the flags, and no handshake reaches
//!   any front;
//! - hostile TLS peers (a chain of 10,000 certificates, a handshake that
//!   trickles, a plain-text server on the TLS port) are each bounded and
//!   named, the other servers read;
//! - `exporter --servers --servers-ca`: the same on its scrapes
//!   (`valkey_roll_servers_unread{reason="tls_refused"}`), every server
//!   read again once the certificates verify, with no restart; without a
//!   CA, `reason="tls"`.

mod harness;
#[path = "exporter/scrape.rs"]
mod scrape;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use harness::Subject;
use harness::pki::{Ca, Pair};
use harness::plugin::run_in;
use harness::valkey_rig::{
    CLUSTER, Fake, TlsFront, assert_no_password, bind_retrying, rig_tls, tls_config,
};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

fn cluster(doc: &Value) -> Value {
    doc["clusters"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["name"] == CLUSTER))
        .cloned()
        .unwrap_or(Value::Null)
}

/// Nodes whose role comes from their server.
fn from_servers(c: &Value) -> usize {
    c["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| n["roleSource"] == "server")
        .count()
}

/// The error of each ServerReading of a bundle, by pod.
fn reading_errors(bundle: &Value) -> BTreeMap<String, Value> {
    bundle["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["kind"] == "ServerReading")
        .map(|i| {
            (
                i["metadata"]["name"].as_str().unwrap_or("").to_string(),
                i["error"].clone(),
            )
        })
        .collect()
}

fn config(p: &Pair) -> Arc<rustls::ServerConfig> {
    tls_config(&p.cert_pem, &p.key_pem)
}

struct Certs {
    right: Pair,
    wrong_name: Pair,
    expired: Pair,
    unknown_issuer: Pair,
    ca_file: std::path::PathBuf,
    ca_pem: String,
    _dir: tempfile_dir::Dir,
}

mod tempfile_dir {
    /// A directory removed when dropped.
    pub struct Dir(pub std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn certs(ns: &str) -> Certs {
    let ca = Ca::new();
    let other = Ca::new();
    let name = format!("valkey-{CLUSTER}.{ns}.svc.cluster.local");
    let now = (2025, 1, 1);
    let later = (2099, 1, 1);
    let dir = std::env::temp_dir().join(format!("servers-tls-{}-{ns}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca_file = dir.join("ca.crt");
    std::fs::write(&ca_file, &ca.cert_pem).unwrap();
    Certs {
        right: ca.server_valid(&[&name], now, later),
        wrong_name: ca.server_valid(&["valkey-other.elsewhere.svc.cluster.local"], now, later),
        expired: ca.server_valid(&[&name], (2020, 1, 1), (2021, 1, 1)),
        unknown_issuer: other.server_valid(&[&name], now, later),
        ca_pem: ca.cert_pem.clone(),
        ca_file,
        _dir: tempfile_dir::Dir(dir),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn tls_servers_are_read_with_the_ca_and_refused_for_their_reason() {
    let (op, ns, pw, _servers, fronts, _client) = rig_tls("servers-tls").await;
    let cp = harness::control_plane();
    let c = certs(&ns);
    let ca = c.ca_file.display().to_string();
    for f in fronts.values() {
        f.present(config(&c.right));
    }

    // Without a CA: the one line names the flags; nothing is dialled.
    let before: usize = fronts.values().map(TlsFront::handshakes).sum();
    let ran = run_in(
        cp.kubeconfig(),
        &ns,
        &["status", CLUSTER, "--servers=direct", "-o", "json"],
    )
    .await;
    assert!(
        ran.stderr.contains(
            "warning: the servers of cluster rig were not read: they speak TLS only \
             (spec.networking.tls) and no CA was given to verify them: --servers-ca FILE or \
             --servers-ca-configmap NAMESPACE/NAME[:KEY]"
        ),
        "{}",
        ran.stderr
    );
    assert_eq!(from_servers(&cluster(&ran.ok_json())), 0);
    let after: usize = fronts.values().map(TlsFront::handshakes).sum();
    assert_eq!(after, before, "a TLS cluster was dialled with no CA");

    // With the right CA, both ways: every role from its server.
    for how in ["--servers=direct", "--servers=port-forward"] {
        let ran = run_in(
            cp.kubeconfig(),
            &ns,
            &["status", CLUSTER, how, "--servers-ca", &ca, "-o", "json"],
        )
        .await;
        let doc = cluster(&ran.ok_json());
        assert_eq!(from_servers(&doc), 4, "{how}: {}\n{doc:#}", ran.stderr);
        assert_eq!(doc["servers"]["read"], json!(4), "{how}: {doc:#}");
        assert!(!ran.stderr.contains("not read"), "{how}: {}", ran.stderr);
        assert_no_password(&pw, "the output", &ran.both());
    }

    // The other commands that read servers take the same flags: wait
    // (its re-reader) and a steering command's plan, each reading all
    // four; without the CA each says which flag would.
    for args in [
        // (the rig never converges here: its nodes lack spec.tls, so wait
        // ends at its timeout, having read the servers.)
        &["wait", CLUSTER, "--servers=direct", "--timeout", "10s"][..],
        &[
            "grant",
            "rig-0-1",
            "--dry-run=client",
            "-y",
            "--servers=direct",
        ],
    ] {
        let with_ca = [args, &["--servers-ca", &ca]].concat();
        let ran = run_in(cp.kubeconfig(), &ns, &with_ca).await;
        assert!(
            !ran.both().contains("not read") && !ran.both().contains("--servers-ca"),
            "{args:?}: {}",
            ran.both()
        );
        let ran = run_in(cp.kubeconfig(), &ns, args).await;
        assert!(
            ran.both().contains("--servers-ca"),
            "{args:?} with no CA: {}",
            ran.both()
        );
    }

    // A certificate that does not verify: that server is `tls refused`
    // with why, the others are read; nothing falls back to plain text
    // (the fronts pass plain RESP through: a fall back would read them).
    fronts["rig-0-0"].present(config(&c.expired));
    fronts["rig-0-1"].present(config(&c.wrong_name));
    fronts["rig-1-0"].present(config(&c.unknown_issuer));
    for how in ["--servers=direct", "--servers=port-forward"] {
        let ran = run_in(
            cp.kubeconfig(),
            &ns,
            &["status", CLUSTER, how, "--servers-ca", &ca, "-o", "json"],
        )
        .await;
        let doc = cluster(&ran.ok_json());
        assert_eq!(from_servers(&doc), 1, "{how}: {doc:#}");
        for said in [
            "3 of 4 servers of cluster rig not read",
            "valkey-rig-0-0-0 tls refused: expired",
            "valkey-rig-0-1-0 tls refused: wrong name",
            "valkey-rig-1-0-0 tls refused: unknown issuer",
        ] {
            assert!(ran.stderr.contains(said), "{how}: {said}: {}", ran.stderr);
        }
        let ran = run_in(
            cp.kubeconfig(),
            &ns,
            &[
                "bundle",
                CLUSTER,
                how,
                "--servers-ca",
                &ca,
                "--format",
                "json",
            ],
        )
        .await;
        assert_eq!(
            reading_errors(&ran.ok_json()),
            BTreeMap::from([
                (
                    "valkey-rig-0-0-0".to_string(),
                    json!("tls refused: expired")
                ),
                (
                    "valkey-rig-0-1-0".to_string(),
                    json!("tls refused: wrong name")
                ),
                (
                    "valkey-rig-1-0-0".to_string(),
                    json!("tls refused: unknown issuer")
                ),
                ("valkey-rig-1-1-0".to_string(), Value::Null),
            ]),
            "{how}: {}",
            ran.stderr
        );
    }

    // The exporter reads them the same way on its clock, and again once
    // the certificates verify.
    exporter_over_tls(&ns, &ca, &fronts, &c).await;

    // The hostile peers, one server each, in rig-1-1's place.
    hostile_peers(&ns, &ca, fronts, &c).await;
    op.stop().await;
}

/// `exporter --servers` over TLS: three servers of four refused (their
/// certificates as the caller left them: expired, wrong name, unknown
/// issuer) are `tls_refused` on a scrape; once all four present the right
/// certificate, a later round reads them all. Without a CA: `tls`, four.
async fn exporter_over_tls(ns: &str, ca: &str, fronts: &BTreeMap<String, TlsFront>, c: &Certs) {
    let cp = harness::control_plane();
    let args: Vec<String> = [
        "--kubeconfig",
        &cp.kubeconfig().display().to_string(),
        "-n",
        ns,
    ]
    .map(String::from)
    .to_vec();
    let labels = [("namespace", ns), ("cluster", CLUSTER)];
    let refused = [labels[0], labels[1], ("reason", "tls_refused")];
    let plain = [labels[0], labels[1], ("reason", "tls")];
    let bound = Duration::from_secs(60);
    let exporter = scrape::Exporter::start_with(
        &args,
        &["--servers", "--servers-ca", ca, "--servers-interval", "1s"],
        bound,
    )
    .await;
    let m = exporter
        .until_value(bound, "valkey_roll_servers_unread", &refused, 3.0)
        .await;
    assert_eq!(
        m.value("valkey_roll_servers_read", &labels),
        Some(1.0),
        "{}",
        m.text
    );
    // Three reasons of one label are one series: valid exposition.
    let (ok, words) = scrape::promtool_check(&harness::promtool(), &m.text);
    assert!(ok, "promtool check metrics:\n{words}\n{}", m.text);
    for f in fronts.values() {
        f.present(config(&c.right));
    }
    let m = exporter
        .until_value(bound, "valkey_roll_servers_read", &labels, 4.0)
        .await;
    assert!(
        m.samples("valkey_roll_servers_unread", &labels).is_empty(),
        "{}",
        m.text
    );
    drop(exporter);

    let no_ca =
        scrape::Exporter::start_with(&args, &["--servers", "--servers-interval", "1s"], bound)
            .await;
    let m = no_ca
        .until_value(bound, "valkey_roll_servers_unread", &plain, 4.0)
        .await;
    assert_eq!(
        m.value("valkey_roll_servers_read", &labels),
        Some(0.0),
        "{}",
        m.text
    );
}

/// A chain of 10,000 certificates, a handshake that trickles, and a
/// plain-text server on the TLS port: each bounded by the server's own 3 s
/// (and the whole by --request-timeout), named, the others read.
async fn hostile_peers(ns: &str, ca: &str, mut fronts: BTreeMap<String, TlsFront>, c: &Certs) {
    let cp = harness::control_plane();
    for f in fronts.values() {
        f.present(config(&c.right));
    }
    let ip = fronts["rig-1-1"].ip.clone();
    // A chain of 10,000: the leaf, then the CA 9,999 times (some 4 MB).
    let long = format!("{}{}", c.right.cert_pem, c.ca_pem.repeat(9_999));
    fronts["rig-1-1"].present(tls_config(&long, &c.right.key_pem));
    let ran = status(ns, ca).await;
    check_one_unread(
        &ran,
        "tls refused: the handshake failed",
        "a chain of 10,000",
    );

    drop(fronts.remove("rig-1-1"));
    for (what, fake, named) in [
        ("a handshake that trickles", Fake::Trickle, "timed out"),
        (
            "plain text on the TLS port",
            Fake::Garbage,
            "tls refused: the server did not speak TLS",
        ),
    ] {
        let listener = bind_retrying(&ip, harness::valkey::PORT).await;
        let serving = tokio::spawn(fake.serve(listener));
        let ran = status(ns, ca).await;
        serving.abort();
        let _ = serving.await;
        check_one_unread(&ran, named, what);
    }
    // The whole reading within --request-timeout, a server that trickles
    // past it cut with the rest.
    let listener = bind_retrying(&ip, harness::valkey::PORT).await;
    let serving = tokio::spawn(Fake::Trickle.serve(listener));
    let started = Instant::now();
    let ran = run_in(
        cp.kubeconfig(),
        ns,
        &[
            "status",
            CLUSTER,
            "--servers=direct",
            "--servers-ca",
            ca,
            "--request-timeout",
            "2s",
            "-o",
            "json",
        ],
    )
    .await;
    let took = started.elapsed();
    eprintln!("--request-timeout 2s with a trickling handshake: {took:?}");
    serving.abort();
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(ran.stderr.contains("timed out"), "{}", ran.stderr);
}

async fn status(ns: &str, ca: &str) -> harness::plugin::Ran {
    let cp = harness::control_plane();
    let started = Instant::now();
    let ran = run_in(
        cp.kubeconfig(),
        ns,
        &[
            "status",
            CLUSTER,
            "--servers=direct",
            "--servers-ca",
            ca,
            "-o",
            "json",
        ],
    )
    .await;
    let took = started.elapsed();
    eprintln!("status --servers-ca with one hostile peer: {took:?}");
    assert!(
        took < Duration::from_secs(15),
        "took {took:?}: {}",
        ran.stderr
    );
    ran
}

fn check_one_unread(ran: &harness::plugin::Ran, named: &str, what: &str) {
    let doc = cluster(&ran.ok_json());
    assert!(
        ran.stderr
            .contains("1 of 4 servers of cluster rig not read")
            && ran.stderr.contains(&format!("valkey-rig-1-1-0 {named}")),
        "{what}: {}",
        ran.stderr
    );
    assert_eq!(from_servers(&doc), 3, "{what}: {doc:#}");
}

/// The CA from a ConfigMap, read through the real API server by a user who
/// may get that one ConfigMap and the passwords' Secret, and no other
/// Secret: the certificate Secret (with `tls.key`) is never asked for.
#[tokio::test(flavor = "multi_thread")]
async fn the_ca_comes_from_a_configmap_and_the_key_secret_is_never_read() {
    let (op, ns, pw, _servers, fronts, client) = rig_tls("servers-tls-cm").await;
    let cp = harness::control_plane();
    let c = certs(&ns);
    for f in fronts.values() {
        f.present(config(&c.right));
    }
    let maps: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    let map: ConfigMap = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "valkey-ca"},
        "data": {"bundle.pem": c.ca_pem},
    }))
    .unwrap();
    maps.create(&PostParams::default(), &map).await.unwrap();
    // The operator's certificate Secret, as cert-manager makes it.
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
    let key_secret: Secret = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": format!("{CLUSTER}-tls")},
        "stringData": {"ca.crt": c.ca_pem, "tls.crt": c.right.cert_pem, "tls.key": c.right.key_pem},
    }))
    .unwrap();
    secrets
        .create(&PostParams::default(), &key_secret)
        .await
        .unwrap();
    harness::bind(
        &client,
        &ns,
        "valkey-roll-tls-reader",
        Subject::User("tess"),
        json!([
            {"apiGroups": ["valkey.io"], "resources": ["valkeyclusters", "valkeynodes"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["apps"], "resources": ["statefulsets", "deployments"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["pods", "events"], "verbs": ["get", "list", "watch"]},
            // kube's port-forward is a WebSocket upgrade of a GET (verb get);
            // the API server checks create too.
            {"apiGroups": [""], "resources": ["pods/portforward"], "verbs": ["get", "create"]},
            {"apiGroups": [""], "resources": ["secrets"], "resourceNames": [format!("internal-{CLUSTER}-system-passwords")], "verbs": ["get"]},
            {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["valkey-ca"], "verbs": ["get"]},
        ]),
    )
    .await;
    let tess = cp.mint_user_in("tess", &[], &ns);
    let cm = format!("{ns}/valkey-ca:bundle.pem");
    for how in ["--servers=direct", "--servers=port-forward"] {
        let ran = run_in(
            &tess,
            &ns,
            &[
                "explain",
                CLUSTER,
                how,
                "--servers-ca-configmap",
                &cm,
                "-o",
                "json",
                "-v",
                "8",
            ],
        )
        .await;
        assert!(
            ran.stderr.contains("configmaps/valkey-ca"),
            "{how}: the ConfigMap's GET is logged: {}",
            ran.stderr
        );
        assert!(
            !ran.stderr.contains(&format!("secrets/{CLUSTER}-tls")),
            "{how}: the key's Secret was asked for: {}",
            ran.stderr
        );
        assert!(!ran.stderr.contains("not read"), "{how}: {}", ran.stderr);
        assert!(!ran.both().contains("PRIVATE KEY"), "{how}");
        assert_no_password(&pw, "the output", &ran.both());
        let doc = ran.ok_json();
        let nodes = doc["cluster"]["nodes"]
            .as_array()
            .or_else(|| doc["nodes"].as_array())
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            nodes.iter().filter(|n| n["roleSource"] == "server").count(),
            4,
            "{how}: {doc:#}"
        );
    }
    // A live view reads the servers again every 5 s, and the CA once: its
    // ConfigMap is asked for once while the password Secret is at each
    // reading (the CA is kept 5 minutes, docs/servers.md).
    let count = |log: &str, what: &str| {
        log.lines()
            .filter(|l| l.contains(what) && l.contains("GET"))
            .count()
    };
    let secret = format!("secrets/internal-{CLUSTER}-system-passwords");
    let mut watch = harness::plugin::Plugin::spawn(
        &tess,
        &ns,
        &[
            "status",
            CLUSTER,
            "--watch",
            "--servers=direct",
            "--servers-ca-configmap",
            &cm,
            "-o",
            "json",
            "-v",
            "6",
        ],
        Duration::from_secs(90),
    );
    watch
        .until("three readings of the servers", |p| {
            count(&p.stderr.join("\n"), &secret) >= 3
        })
        .await;
    watch.interrupt();
    watch.exit(Duration::from_secs(10)).await;
    let log = watch.stderr.join("\n");
    assert_eq!(
        count(&log, "configmaps/valkey-ca"),
        1,
        "the CA read once over {} readings:\n{log}",
        count(&log, &secret)
    );
    assert!(!log.contains(&format!("secrets/{CLUSTER}-tls")));
    assert_no_password(
        &pw,
        "the watch",
        &format!("{}{log}", watch.stdout.join("\n")),
    );

    // A ConfigMap the user may not read: the one line says so.
    let ran = run_in(
        &tess,
        &ns,
        &[
            "status",
            CLUSTER,
            "--servers=direct",
            "--servers-ca-configmap",
            &format!("{ns}/other-ca"),
        ],
    )
    .await;
    assert!(
        ran.stderr
            .contains("the CA given could not be read: reading its ConfigMap is forbidden"),
        "{}",
        ran.stderr
    );
    op.stop().await;
}
