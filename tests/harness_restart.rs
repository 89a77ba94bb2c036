//! The harness can stop and start kube-apiserver on the same port with the
//! same etcd (for tests of watch reconnection). A file of its own, since a
//! restart affects every test of the binary.

mod harness;

use harness::sim::{Layout, Sim};

fn lines(out: &std::process::Output) -> usize {
    harness::stdout_of(out).lines().count()
}

#[tokio::test]
async fn apiserver_restarts_on_the_same_port_with_the_same_data() {
    let s = harness::server();
    let ns = s.fresh_namespace("restart");
    let client = s.client().await;
    let layout = Layout {
        replicas: 0,
        ..Layout::default()
    };
    let sim = Sim::build(client, &ns, "keep", &layout).await;
    let url = s.url().to_string();

    s.stop();
    let down = s.kubectl(&["get", "valkeynodes", "-n", &ns, "--request-timeout=5s"]);
    assert!(!down.status.success(), "the server answered while stopped");

    s.start();
    assert_eq!(s.url(), url, "same port after start");
    assert_eq!(
        lines(&s.kubectl(&["get", "valkeynodes", "-n", &ns, "-o", "name"])),
        1,
        "the data lives in etcd, which kept running"
    );
    // A client made before the restart reconnects.
    let vc = sim.get_cluster().await;
    assert_eq!(vc.metadata.name.as_deref(), Some("keep"));

    s.restart();
    let after = sim.node_at(0, 0).get_json().await;
    assert_eq!(after["status"]["ready"], true);

    let log = std::fs::read_to_string(harness::procs::target_dir().join("testbin-servers.log"))
        .expect("servers log");
    let line = format!("kube-apiserver {} ready at {url}", s.version());
    assert!(
        log.lines().filter(|l| *l == line).count() >= 3,
        "one ready line per start:\n{log}"
    );
}
