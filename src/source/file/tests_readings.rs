//! ServerReading items (docs/servers.md): read into the snapshot in
//! YAML and JSON alike, bounded, with errors naming the document and the
//! field; a field the plugin does not read (a password) is not kept.

use super::*;
use crate::snapshot::{LinkStatus, ServerRole};

const READING: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: valkey-roll.io/v1alpha1
  kind: ServerReading
  metadata: {namespace: prod, name: valkey-cache-1-1-0}
  node: cache-1-1
  observedAt: "2026-11-29T10:16:10.250Z"
  address: "10.0.3.17:6379"
  nodeId: 9e6dc9a56c84
  role: replica
  primaryAddress: "10.0.3.9:6379"
  link: down
  syncing: false
  flags: [myself, slave]
  clusterState: ok
  error: null
  password: hunter2-never-shown
"#;

fn read(text: &str) -> Result<Snapshot> {
    parse_snapshot(text.as_bytes(), "snap.yaml")
}

/// The error's words, for a text that must not read.
fn error(text: &str) -> String {
    match read(text) {
        Ok(_) => panic!("read, but should not: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_reading_is_read_in_yaml_and_json() {
    let yaml = read(READING).expect("reads");
    let [r] = yaml.readings.as_slice() else {
        panic!("one reading: {:?}", yaml.readings);
    };
    assert_eq!(r.pod(), "valkey-cache-1-1-0");
    assert_eq!(r.namespace(), "prod");
    assert_eq!(r.node.as_deref(), Some("cache-1-1"));
    assert_eq!(r.role, Some(ServerRole::Replica));
    assert_eq!(r.link, Some(LinkStatus::Down));
    assert_eq!(r.syncing, Some(false));
    assert_eq!(r.flags, ["myself", "slave"]);
    assert_eq!(r.primary_address.as_deref(), Some("10.0.3.9:6379"));
    assert_eq!(r.cluster_state.as_deref(), Some("ok"));
    // The same as JSON, streamed.
    let value: serde_json::Value = serde_saphyr::from_str(READING).expect("YAML");
    let json = parse_snapshot(value.to_string().as_bytes(), "snap.json").expect("reads");
    assert_eq!(json.readings, yaml.readings);
    // Nothing kept holds the password.
    assert!(!format!("{yaml:?}").contains("hunter2"));
}

#[test]
fn a_broken_reading_names_its_document_and_field() {
    let cases = [
        ("role: replica", "role: master", "role"),
        ("link: down", "link: sideways", "link"),
        ("syncing: false", "syncing: maybe", "syncing"),
        ("flags: [myself, slave]", "flags: myself", "flags"),
        (
            "  observedAt: \"2026-11-29T10:16:10.250Z\"\n",
            "",
            "observedAt",
        ),
        (
            "observedAt: \"2026-11-29T10:16:10.250Z\"",
            "observedAt: yesterday",
            "observedAt",
        ),
        (
            "apiVersion: valkey-roll.io/v1alpha1",
            "apiVersion: valkey-roll.io/v2",
            "apiVersion",
        ),
        ("name: valkey-cache-1-1-0}", "}", "metadata.name"),
    ];
    for (from, to, field) in cases {
        let text = READING.replacen(from, to, 1);
        assert_ne!(text, READING, "{from}");
        let e = error(&text);
        assert!(e.contains("1/items[0]"), "{from}: {e}");
        assert!(e.contains(field), "{from}: {e}");
        assert!(!e.contains("hunter2"), "{from}: {e}");
    }
}

#[test]
fn a_reading_beyond_any_server_is_refused() {
    let long = "x".repeat(300);
    for (from, to, field) in [
        ("nodeId: 9e6dc9a56c84", format!("nodeId: {long}"), "nodeId"),
        (
            "clusterState: ok",
            format!("clusterState: {long}"),
            "clusterState",
        ),
        ("error: null", format!("error: {long}"), "error"),
        (
            "flags: [myself, slave]",
            format!("flags: [{}]", vec!["a"; 17].join(", ")),
            "flags",
        ),
    ] {
        let e = error(&READING.replacen(from, &to, 1));
        assert!(e.contains(field), "{field}: {e}");
    }
}

/// A bundle's ServersNotRead item: the cluster and why, as live; broken,
/// it names its field; in another version, it is not left out silently.
#[test]
fn servers_not_read_are_read_as_a_bundle_keeps_them() {
    use crate::snapshot::{Failure, ServersNotRead};
    let item = |rest: &str| {
        format!(
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: valkey-roll.io/v1alpha1\n  kind: ServersNotRead\n  metadata: {{namespace: prod, name: cache}}\n{rest}"
        )
    };
    let read_ok = read(&item("  error: no read-only user\n")).expect("reads");
    assert_eq!(
        read_ok.servers_not_read,
        [ServersNotRead {
            namespace: "prod".into(),
            cluster: "cache".into(),
            why: Failure::NoReadOnlyUser,
        }]
    );
    for (what, text, field) in [
        ("no reason", item(""), "error"),
        (
            "a reason of a page",
            item(&format!("  error: {}\n", "x".repeat(300))),
            "error",
        ),
        (
            "another version",
            item("  error: tls\n").replace("v1alpha1", "v9"),
            "apiVersion",
        ),
    ] {
        let said = error(&text);
        assert!(said.contains(field), "{what}: {said}");
    }
}
