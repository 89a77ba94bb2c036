//! kubectl's `-v` on a real API server (tests/harness): at 6 each API
//! request is one line on stderr (verb, URL, status, time taken), at 8
//! its response size follows, below 6 nothing; stdout is the same.
//!
//! `bash testbin/build.sh kube etcd`, then
//! `cargo test --features test-hooks,fixture --test verbose_e2e`.

mod harness;

use harness::plugin::{Ran, run as plugin};
use harness::sim::{Layout, Sim};

fn live(ns: &str, args: &[&str]) -> Ran {
    let kc = harness::server().kubeconfig().display().to_string();
    let mut all = vec!["--kubeconfig", kc.as_str(), "-n", ns];
    all.extend_from_slice(args);
    plugin(&all)
}

/// `GET https://... 200 OK in 12 milliseconds`
fn request_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("GET https://") && l.ends_with(" milliseconds"))
        .collect()
}

#[tokio::test]
async fn v6_logs_each_request_and_v8_its_size() {
    let sim = Sim::fresh("verbose", &Layout::default()).await;
    let quiet = live(&sim.ns, &["status", "cache", "-o", "json"]);
    assert_eq!(quiet.code, 0, "{}", quiet.both());
    assert!(request_lines(&quiet.stderr).is_empty(), "{}", quiet.both());

    let v6 = live(&sim.ns, &["status", "cache", "-o", "json", "-v", "6"]);
    assert_eq!(v6.code, 0, "{}", v6.both());
    let lines = request_lines(&v6.stderr);
    // One LIST per kind (docs/plugin.md: a constant number of requests).
    for kind in [
        "valkeyclusters",
        "valkeynodes",
        "statefulsets",
        "deployments",
        "pods",
        "events",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.contains(&format!("/{kind}?")) && l.contains(" 200 OK in ")),
            "no LIST of {kind} logged:\n{}",
            v6.stderr
        );
    }
    assert!(!v6.stderr.contains("response body:"), "{}", v6.stderr);
    // What a script reads does not change.
    let doc = |r: &Ran| -> serde_json::Value { r.json()["clusters"][0]["verdict"].clone() };
    assert_eq!(doc(&v6), doc(&quiet));

    let v8 = live(&sim.ns, &["status", "cache", "--v=8"]);
    assert_eq!(v8.code, 0, "{}", v8.both());
    let sizes: Vec<&str> = v8
        .stderr
        .lines()
        .filter(|l| l.starts_with("GET https://") && l.contains(" response body: "))
        .collect();
    assert!(
        sizes
            .iter()
            .any(|l| l.contains("/valkeynodes?") && !l.ends_with(" 0 bytes")),
        "no size of the ValkeyNodes' LIST:\n{}",
        v8.stderr
    );
    assert!(!v8.stderr.contains('\u{1b}'), "cleaned:\n{}", v8.stderr);
}
