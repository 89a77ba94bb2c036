//! The reader's tests: every accepted form, the errors' words, and
//! what is skipped while it is parsed.

use super::add::*;
use super::visit::*;
use super::*;
use crate::snapshot::{ValkeyNode, keys};

const JAMMED: &[u8] = include_bytes!("../../../examples/jammed.yaml");
const JAMMED_P1: &[u8] = include_bytes!("../../../examples/jammed-p1.yaml");
const ROLLING: &[u8] = include_bytes!("../../../examples/rolling.yaml");
const CONVERGED: &[u8] = include_bytes!("../../../examples/converged.yaml");

/// The P1 jammed example's permit (cache-1-1's asked-for revision).
const P1_PERMIT: &str = "9f2c41ab03de57c8e2b1f6a94d03e7b58c21a6f09d4e3b7c15a82f6e09d14b3a";
/// The P2 jammed example's holder revision (cache-1-0's new one).
const P2_HOLDER_REVISION: &str = "f621e4dee7fb86939d4ad28eefa39bd28f2b115b104a704d4cf1ce517522e048";

/// A small kubectl List with one object of every kind read, and two
/// kinds that are not.
const LIST: &str = r#"apiVersion: v1
items:
- apiVersion: valkey.io/v1alpha1
  kind: ValkeyCluster
  metadata:
    generation: 2
    name: cache
    namespace: prod
    uid: 0b6c1e8e-1d5f-4d8e-9a51-3c0f7f2d9e01
  spec:
    shards: 1
  status:
    conditions:
    - lastTransitionTime: "2026-11-29T10:00:00Z"
      observedGeneration: 2
      reason: UpdatingNodes
      status: "False"
      type: Ready
    reason: UpdatingNodes
    state: Reconciling
- apiVersion: valkey.io/v1alpha1
  kind: ValkeyNode
  metadata:
    annotations:
      valkey.io/allow-workload-revision: 9f2c41ab03de
    generation: 2
    labels:
      valkey.io/cluster: cache
      valkey.io/node-index: "1"
      valkey.io/shard-index: "0"
    managedFields:
    - apiVersion: valkey.io/v1alpha1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:annotations:
            f:valkey.io/allow-workload-revision: {}
      manager: valkey-operator
      operation: Update
      time: "2026-11-29T10:02:10Z"
    name: cache-0-1
    namespace: prod
    ownerReferences:
    - apiVersion: valkey.io/v1alpha1
      controller: true
      kind: ValkeyCluster
      name: cache
      uid: 0b6c1e8e-1d5f-4d8e-9a51-3c0f7f2d9e01
  spec:
    workloadType: StatefulSet
  status:
    lastRolloutHash: 41ab77c0e1f2
    observedGeneration: 2
    podName: valkey-cache-0-1-0
    ready: false
    role: replica
- apiVersion: apps/v1
  kind: StatefulSet
  metadata:
    generation: 3
    name: valkey-cache-0-1
    namespace: prod
  spec:
    replicas: 1
    selector:
      matchLabels:
        app.kubernetes.io/instance: cache-0-1
    serviceName: valkey-cache
    template:
      metadata:
        labels:
          app.kubernetes.io/instance: cache-0-1
      spec:
        containers:
        - image: valkey/valkey:8.1.4
          name: server
  status:
    currentRevision: valkey-cache-0-1-5d8f7c9b6d
    observedGeneration: 3
    replicas: 1
    updateRevision: valkey-cache-0-1-7b6c5d4f9e
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: checkout-api
    namespace: prod
  spec:
    selector:
      matchLabels:
        app: checkout-api
    template:
      metadata:
        labels:
          app: checkout-api
      spec:
        containers:
        - image: checkout-api:2
          name: api
- apiVersion: v1
  kind: Pod
  metadata:
    labels:
      controller-revision-hash: valkey-cache-0-1-7b6c5d4f9e
    name: valkey-cache-0-1-0
    namespace: prod
  spec:
    containers:
    - image: valkey/valkey:8.1.4
      name: server
  status:
    containerStatuses:
    - image: valkey/valkey:8.1.4
      imageID: ""
      name: server
      ready: false
      restartCount: 7
      state:
        waiting:
          reason: CrashLoopBackOff
    phase: Running
- apiVersion: v1
  kind: Service
  metadata:
    name: valkey-cache
    namespace: prod
  spec:
    ports: "not what a Service has, and never read"
- apiVersion: v1
  eventTime: "2026-11-29T10:02:10.482913Z"
  firstTimestamp: null
  involvedObject:
    apiVersion: valkey.io/v1alpha1
    kind: ValkeyCluster
    name: cache
    namespace: prod
  kind: Event
  lastTimestamp: null
  message: Granted workload roll permit for cache-0-1 (hash 9f2c41ab03de)
  metadata:
    name: cache.18ec7bdaa9078025
    namespace: prod
  reason: WorkloadRollPermitted
  related:
    apiVersion: valkey.io/v1alpha1
    kind: ValkeyNode
    name: cache-0-1
    namespace: prod
  reportingComponent: valkey-operator
  reportingInstance: ""
  source: {}
  type: Normal
kind: List
metadata:
  resourceVersion: ""
"#;

fn parse(text: &str) -> Result<Snapshot> {
    parse_snapshot(text.as_bytes(), "snap.yaml")
}

/// The items of a List that name their kind are converted as they are
/// parsed; what that reads, and which bad item is reported, is what
/// reading every item as a value first gave.
#[test]
fn items_read_as_they_are_parsed_read_as_before() {
    let pod = |name: &str, phase: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"prod"}},"status":{{"phase":{phase}}}}}"#
        )
    };
    // Without kind: converted with the List's (a typed list).
    let bare = |name: &str, phase: &str| {
        format!(
            r#"{{"metadata":{{"name":"{name}","namespace":"prod"}},"status":{{"phase":{phase}}}}}"#
        )
    };
    let list = |kind: &str, items: &[String]| {
        format!(
            r#"{{"apiVersion":"v1","items":[{}],"kind":"{kind}"}}"#,
            items.join(",")
        )
    };
    let ok = "\"Running\"";
    // (case, text, the item an error names, or the pods read)
    let cases: Vec<(&str, String, std::result::Result<usize, &str>)> = vec![
        (
            "kind after items",
            list("List", &[pod("a", ok), pod("b", ok)]),
            Ok(2),
        ),
        (
            "a typed list",
            list("PodList", &[bare("a", ok), bare("b", ok)]),
            Ok(2),
        ),
        (
            "both in one",
            list("PodList", &[pod("a", ok), bare("b", ok)]),
            Ok(2),
        ),
        (
            "not a List: its items are not objects",
            format!(
                r#"{{"apiVersion":"v1","items":[{},{}],"kind":"Pod","metadata":{{"name":"x"}}}}"#,
                pod("a", ok),
                pod("b", "5")
            ),
            Ok(1),
        ),
        (
            "a bad streamed item",
            list("List", &[pod("a", ok), pod("b", "5")]),
            Err("1/items[1]"),
        ),
        (
            "the first of two bad streamed items",
            list("List", &[pod("a", "5"), pod("b", "6")]),
            Err("1/items[0]"),
        ),
        (
            "a bad kept item before a bad streamed one",
            list("PodList", &[pod("a", ok), bare("b", "5"), pod("c", "6")]),
            Err("1/items[1]"),
        ),
        (
            "a bad streamed item before a bad kept one",
            list("PodList", &[pod("a", "5"), bare("b", "6")]),
            Err("1/items[0]"),
        ),
    ];
    for (name, text, want) in cases {
        for whole in [false, true] {
            KEEP_WHOLE.with(|k| k.set(whole));
            let got = parse_snapshot(text.as_bytes(), "snap.json");
            KEEP_WHOLE.with(|k| k.set(false));
            match (&got, want) {
                (Ok(s), Ok(n)) => assert_eq!(s.pods.len(), n, "{name}"),
                (
                    Err(Error::Snapshot {
                        doc, source_name, ..
                    }),
                    Err(at),
                ) => {
                    assert_eq!(
                        (doc.as_str(), source_name.as_str()),
                        (at, "snap.json"),
                        "{name}"
                    )
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}

fn counts(s: &Snapshot) -> [usize; 6] {
    [
        s.clusters.len(),
        s.nodes.len(),
        s.stateful_sets.len(),
        s.deployments.len(),
        s.pods.len(),
        s.events.len(),
    ]
}

fn list_value() -> Value {
    serde_saphyr::from_str(LIST).expect("the fixture is YAML")
}

fn items() -> Vec<Value> {
    list_value()["items"]
        .as_array()
        .cloned()
        .expect("the fixture has items")
}

fn to_yaml(value: &Value) -> String {
    serde_saphyr::to_string(value).expect("a Value serializes")
}

#[test]
fn kubectl_list_reads_every_kind_and_ignores_the_rest() {
    let s = parse(LIST).expect("the fixture reads");
    assert_eq!(counts(&s), [1, 1, 1, 1, 1, 1]);
    let node = &s.nodes[0];
    assert_eq!(node.annotation(keys::ANN_PERMIT), Some("9f2c41ab03de"));
    assert_eq!(node.controller_cluster(), Some("cache"));
    let status = node.status.as_ref().expect("node status");
    assert_eq!(status.ready, Some(false));
    assert_eq!(status.last_rollout_hash.as_deref(), Some("41ab77c0e1f2"));
    // --show-managed-fields: the managedFields grant-time source survives.
    let managed = node
        .metadata
        .managed_fields
        .as_ref()
        .expect("managedFields");
    assert_eq!(managed[0].manager.as_deref(), Some("valkey-operator"));
    assert!(managed[0].time.is_some());
    let event = &s.events[0];
    assert_eq!(event.involved_object.kind.as_deref(), Some("ValkeyCluster"));
    assert!(event.event_time.is_some());
    assert_eq!(event.first_timestamp, None);
    // Empty values are tidied away (source: {}, reportingInstance: "").
    assert_eq!(event.source, None);
    assert_eq!(event.reporting_instance, None);
}

#[test]
fn every_accepted_form_gives_the_same_snapshot() {
    let expected = parse(LIST).expect("the List reads");
    let items = items();
    let half = items.len() / 2;
    let list_of = |items: &[Value]| serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}});
    // A typed list as the API server sends it: items without kind/apiVersion.
    let typed_lists: String = items
            .iter()
            .map(|item| {
                let mut bare = item.clone();
                let kind = bare["kind"].as_str().unwrap_or_default().to_string();
                let api_version = bare["apiVersion"].as_str().unwrap_or_default().to_string();
                if let Some(map) = bare.as_object_mut() {
                    map.remove("kind");
                    map.remove("apiVersion");
                }
                serde_json::json!({"apiVersion": api_version, "kind": format!("{kind}List"), "metadata": {}, "items": [bare]})
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n");
    let forms: Vec<(&str, String)> = vec![
        (
            "-o json",
            serde_json::to_string_pretty(&list_value()).unwrap_or_default(),
        ),
        (
            "YAML stream of objects",
            items.iter().map(to_yaml).collect::<Vec<_>>().join("---\n"),
        ),
        (
            "YAML stream of Lists, with empty documents",
            format!(
                "---\n---\n{}---\n{}---\n",
                to_yaml(&list_of(&items[..half])),
                to_yaml(&list_of(&items[half..]))
            ),
        ),
        (
            "JSON stream of objects",
            items
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        ("JSON stream of typed lists", typed_lists),
        ("byte order mark", format!("\u{feff}{LIST}")),
    ];
    for (name, text) in forms {
        let got = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, expected, "{name}");
    }
}

#[test]
fn single_objects_read() {
    let cases: &[(&str, String, [usize; 6])] = &[
        ("one node", to_yaml(&items()[1]), [0, 1, 0, 0, 0, 0]),
        (
            "one pod as JSON",
            items()[4].to_string(),
            [0, 0, 0, 0, 1, 0],
        ),
        (
            "an unknown kind",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n".into(),
            [0; 6],
        ),
        (
            "a List of an unknown kind",
            "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Secret}]\n".into(),
            [0; 6],
        ),
        (
            "a Status beside an object",
            "kind: Status\nmessage: m\n---\napiVersion: v1\nkind: ConfigMap\n".into(),
            [0; 6],
        ),
    ];
    for (name, text, expected) in cases {
        let s = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(counts(&s), *expected, "{name}");
    }
}

/// A snapshot without a single object is an error saying what it held
/// (issue 22, item 5): a failed `kubectl get` upstream writes nothing,
/// a Status or a Table, and "no clusters" would read as all fine.
#[test]
fn a_snapshot_without_objects_is_an_error() {
    // (case, text, what the error says it held)
    let cases: &[(&str, &str, &str)] = &[
        ("nothing", "", "holds no document"),
        ("blank lines", "\n\n  \n", "holds no document"),
        ("only separators", "---\n---\n", "holds no document"),
        ("a comment", "# nothing here\n", "holds no document"),
        ("JSON null", "null", "holds no document"),
        (
            "an empty List",
            "apiVersion: v1\nkind: List\nitems: []\n",
            "1 document(s) but no Kubernetes object",
        ),
        (
            "an empty List as JSON",
            r#"{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}"#,
            "1 document(s) but no Kubernetes object",
        ),
        (
            "a List with null items",
            "apiVersion: v1\nkind: List\nitems: null\n",
            "no Kubernetes object",
        ),
        (
            "two empty typed lists",
            "{\"kind\":\"PodList\",\"items\":[]}\n{\"kind\":\"EventList\",\"items\":[]}",
            "2 document(s) but no Kubernetes object",
        ),
        (
            "a Status",
            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden","code":403}"#,
            "an API Status instead of objects (the request that wrote it failed: \"forbidden\")",
        ),
        (
            "a Status with a terminal escape",
            "{\"kind\":\"Status\",\"message\":\"no\\u001b[2J\"}",
            r#"failed: "no\u{1b}[2J")"#,
        ),
        (
            "a Status and an empty List",
            "kind: Status\n---\nkind: List\nitems: []\n",
            "an API Status instead of objects (the request that wrote it failed)",
        ),
        (
            "a Table",
            r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[],"rows":[]}"#,
            "a Table (kubectl's printed columns)",
        ),
    ];
    for (name, text, want) in cases {
        let err = parse(text).expect_err(name);
        assert!(matches!(err, Error::NoObjects { .. }), "{name}: {err:?}");
        let err = err.to_string();
        assert!(err.contains(want), "{name}: {err}");
        assert!(err.starts_with("snap.yaml: "), "{name}: {err}");
        assert!(err.contains("kubectl valkey-roll bundle"), "{name}: {err}");
    }
}

/// The same object twice is read once: the newest resourceVersion,
/// else the last copy (issue 22, item 2).
#[test]
fn duplicates_are_read_once() {
    let node = |ns: &str, name: &str, rv: &str, image: &str| {
        format!(
            "apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {{name: {name}, namespace: {ns}, resourceVersion: \"{rv}\"}}\nspec: {{image: {image}}}\n"
        )
    };
    // (case, documents, nodes read, the image of a/x, duplicates)
    type Case = (
        &'static str,
        Vec<String>,
        usize,
        &'static str,
        Vec<(&'static str, usize)>,
    );
    let cases: Vec<Case> = vec![
        (
            "no duplicate",
            vec![node("a", "x", "1", "old"), node("b", "x", "1", "new")],
            2,
            "old",
            vec![],
        ),
        (
            "the newer last",
            vec![node("a", "x", "1", "old"), node("a", "x", "2", "new")],
            1,
            "new",
            vec![("a/x", 2)],
        ),
        (
            "the newer first",
            vec![node("a", "x", "10", "new"), node("a", "x", "9", "old")],
            1,
            "new",
            vec![("a/x", 2)],
        ),
        (
            "the same version: the last",
            vec![node("a", "x", "5", "old"), node("a", "x", "5", "new")],
            1,
            "new",
            vec![("a/x", 2)],
        ),
        (
            "versions that are not numbers: the last",
            vec![node("a", "x", "x", "old"), node("a", "x", "1", "new")],
            1,
            "new",
            vec![("a/x", 2)],
        ),
        (
            "three copies and another",
            vec![
                node("a", "x", "3", "new"),
                node("a", "x", "1", "old"),
                node("a", "w", "1", "old"),
                node("a", "x", "2", "old"),
            ],
            2,
            "new",
            vec![("a/x", 3)],
        ),
    ];
    for (name, docs, nodes, image, dups) in cases {
        let text = docs.join("---\n");
        let read = parse_file_snapshot(text.as_bytes(), "snap.yaml")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read.snapshot.nodes.len(), nodes, "{name}");
        let got = read
            .snapshot
            .nodes
            .iter()
            .find(|n| n.metadata.namespace.as_deref() == Some("a") && n.name() == "x")
            .and_then(|n| n.spec.image.as_deref());
        assert_eq!(got, Some(image), "{name}");
        let found: Vec<(String, usize)> = read
            .duplicates
            .iter()
            .map(|d| (format!("{}/{}", d.namespace, d.name), d.copies))
            .collect();
        let want: Vec<(String, usize)> = dups.iter().map(|(n, c)| (n.to_string(), *c)).collect();
        assert_eq!(found, want, "{name}");
    }
}

#[test]
fn an_object_without_namespace_lands_in_default() {
    let s =
        parse("apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {name: cache-0-0}\n")
            .expect("reads");
    assert_eq!(s.nodes[0].namespace(), "default");
}

#[test]
fn events_k8s_io_events_read_as_their_core_view() {
    let core = r#"
apiVersion: v1
kind: Event
metadata: {name: cache.18ec7bdaa9078025, namespace: prod, uid: e1, resourceVersion: "7", creationTimestamp: "2026-11-29T10:02:10Z"}
involvedObject: {apiVersion: valkey.io/v1alpha1, kind: ValkeyCluster, name: cache, namespace: prod, uid: c1}
related: {apiVersion: valkey.io/v1alpha1, kind: ValkeyNode, name: cache-1-1, namespace: prod, uid: n1}
reason: WorkloadRollPermitted
message: Granted workload roll permit for cache-1-1 (hash 9f2c41ab03de)
action: GrantRollPermit
eventTime: "2026-11-29T10:02:10.482913Z"
firstTimestamp: null
lastTimestamp: null
reportingComponent: valkey-operator
reportingInstance: valkey-operator-6f7c9d8b5-q4xkz
series: {count: 2, lastObservedTime: "2026-11-29T10:03:10.120000Z"}
source: {}
type: Normal
---
apiVersion: v1
kind: Event
metadata: {name: valkey-cache-1-1-0.18ec7bddceb5e13d, namespace: prod}
involvedObject: {apiVersion: v1, kind: Pod, name: valkey-cache-1-1-0, namespace: prod, fieldPath: "spec.containers{server}"}
reason: BackOff
message: Back-off restarting failed container server
count: 62
eventTime: null
firstTimestamp: "2026-11-29T10:02:24Z"
lastTimestamp: "2026-11-29T10:15:58Z"
reportingComponent: kubelet
reportingInstance: worker-1
source: {component: kubelet, host: worker-1}
type: Warning
"#;
    let events_k8s_io = r#"
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: cache.18ec7bdaa9078025, namespace: prod, uid: e1, resourceVersion: "7", creationTimestamp: "2026-11-29T10:02:10Z"}
regarding: {apiVersion: valkey.io/v1alpha1, kind: ValkeyCluster, name: cache, namespace: prod, uid: c1}
related: {apiVersion: valkey.io/v1alpha1, kind: ValkeyNode, name: cache-1-1, namespace: prod, uid: n1}
reason: WorkloadRollPermitted
note: Granted workload roll permit for cache-1-1 (hash 9f2c41ab03de)
action: GrantRollPermit
eventTime: "2026-11-29T10:02:10.482913Z"
reportingController: valkey-operator
reportingInstance: valkey-operator-6f7c9d8b5-q4xkz
series: {count: 2, lastObservedTime: "2026-11-29T10:03:10.120000Z"}
type: Normal
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: valkey-cache-1-1-0.18ec7bddceb5e13d, namespace: prod}
regarding: {apiVersion: v1, kind: Pod, name: valkey-cache-1-1-0, namespace: prod, fieldPath: "spec.containers{server}"}
reason: BackOff
note: Back-off restarting failed container server
deprecatedCount: 62
deprecatedFirstTimestamp: "2026-11-29T10:02:24Z"
deprecatedLastTimestamp: "2026-11-29T10:15:58Z"
deprecatedSource: {component: kubelet, host: worker-1}
reportingController: kubelet
reportingInstance: worker-1
type: Warning
"#;
    let a = parse(core).expect("core view reads");
    let b = parse(events_k8s_io).expect("events.k8s.io view reads");
    assert_eq!(a.events.len(), 2);
    assert_eq!(a, b);
    let permitted = &a.events[0];
    assert_eq!(permitted.involved_object.name.as_deref(), Some("cache"));
    assert_eq!(
        permitted.related.as_ref().and_then(|r| r.name.as_deref()),
        Some("cache-1-1")
    );
    assert!(
        permitted
            .series
            .as_ref()
            .is_some_and(|s| s.last_observed_time.is_some())
    );
}

#[derive(Debug)]
enum Expect {
    /// Error::Read whose problem contains this.
    Read(&'static str),
    /// Error::Snapshot at (doc, object, field); the problem contains the last.
    Doc(&'static str, &'static str, &'static str, &'static str),
}

#[test]
fn malformed_input_names_the_document_and_field() {
    let node = |status: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: prod}}\n---\napiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {{name: cache-0-1, namespace: prod}}\n{status}\n"
        )
    };
    let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
            ("bad YAML", b"kind: List\nitems:\n- a: [1\n  b: 2\n".to_vec(), Expect::Read("not valid YAML")),
            ("bad indentation", b"kind: Pod\n metadata: x\n  name: y\n".to_vec(), Expect::Read("line")),
            ("truncated JSON", br#"{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod""#.to_vec(), Expect::Read("not valid JSON")),
            ("not UTF-8", b"kind: Pod\nmetadata:\n  name: \xff\xfe\n".to_vec(), Expect::Read("line 3")),
            ("a NUL byte", b"kind: Pod\nmetadata: {name: \x00}\n".to_vec(), Expect::Read("byte 0x00 (a control character) at line 2, column 18")),
            ("an escape byte", b"kind: Pod\n\x1b[2J".to_vec(), Expect::Read("byte 0x1b (a control character) at line 2, column 1")),
            ("random bytes", b"\xa5\x13\x00".to_vec(), Expect::Read("byte 0xa5 (not UTF-8) at line 1, column 1")),
            ("a cut UTF-8 sequence at the end", b"kind: Pod\n\xe2\x82".to_vec(), Expect::Read("not UTF-8")),
            ("an alias bomb", format!("a: &a \"{}\"\nb: [{}]\n", "x".repeat(64 * 1024), vec!["*a"; 1000].join(", ")).into_bytes(), Expect::Read("aliases repeat their anchor's text")),
            ("many documents that each expand a little", format!("kind: X\na: &a \"{x}\"\nb: &b \"{x}\"\nc: [{}]\n---\n", ["*a, *b"; 8].join(", "), x = "x".repeat(256 * 1024)).repeat(12).into_bytes(), Expect::Read("expand")),
            ("a nested alias bomb", b"a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n".to_vec(), Expect::Read("alias")),
            ("duplicate keys", b"kind: Pod\nkind: Pod\n".to_vec(), Expect::Read("duplicate")),
            ("too deep", format!("a: {}1{}\n", "[".repeat(200), "]".repeat(200)).into_bytes(), Expect::Read("")),
            ("a sequence document", b"- a\n- b\n".to_vec(), Expect::Doc("1", "", "(document)", "sequence")),
            ("a scalar document", b"apiVersion: v1\nkind: List\n---\nhello\n".to_vec(), Expect::Doc("2", "", "(document)", "string")),
            ("a JSON array", b"[1, 2]".to_vec(), Expect::Doc("1", "", "(document)", "sequence")),
            ("no kind", b"apiVersion: v1\nmetadata: {name: x}\n".to_vec(), Expect::Doc("1", "", "kind", "missing")),
            ("kind not a string", b"kind: [Pod]\n".to_vec(), Expect::Doc("1", "", "kind", "expected a string")),
            ("apiVersion not a string", b"apiVersion: 1\nkind: Pod\nmetadata: {name: p, namespace: prod}\n".to_vec(), Expect::Doc("1", " (Pod prod/p)", "apiVersion", "expected a string")),
            ("items not a sequence", b"apiVersion: v1\nkind: List\nitems: {a: 1}\n".to_vec(), Expect::Doc("1", " (List)", "items", "sequence")),
            ("status.ready a string", node("status: {ready: \"yes\"}").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "status.ready", "boolean")),
            ("huge generation", b"apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {name: node-a, namespace: prod, generation: 99999999999999999999999}\n".to_vec(), Expect::Doc("1", " (ValkeyNode prod/node-a)", "metadata.generation", "")),
            ("generation out of i64", b"apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {name: node-a, namespace: prod, generation: 18446744073709551615}\n".to_vec(), Expect::Doc("1", " (ValkeyNode prod/node-a)", "metadata.generation", "")),
            ("fractional observedGeneration", node("status: {observedGeneration: 1.5}").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "status.observedGeneration", "")),
            ("condition without type", node("status: {conditions: [{status: \"True\"}]}").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "status.conditions[0]", "type")),
            ("conditions a mapping", node("status: {conditions: {Ready: true}}").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "status.conditions", "")),
            ("label not a string", node("spec: {}\n").replace("namespace: prod}\nspec", "namespace: prod, labels: {valkey.io/cluster: 7}}\nspec").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "metadata.labels.valkey.io/cluster", "")),
            ("bad timestamp", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: prod, creationTimestamp: yesterday}\n".to_vec(), Expect::Doc("1", " (Pod prod/p)", "metadata.creationTimestamp", "")),
            ("no name", b"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {namespace: prod}\n".to_vec(), Expect::Doc("1", " (StatefulSet)", "metadata.name", "missing")),
            ("an item of a List", format!("apiVersion: v1\nkind: List\nitems:\n- {}\n- apiVersion: apps/v1\n  kind: StatefulSet\n  metadata: {{name: valkey-cache-0-1, namespace: prod}}\n  spec: {{replicas: three}}\n", "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: prod}}").into_bytes(), Expect::Doc("1/items[1]", " (StatefulSet prod/valkey-cache-0-1)", "spec.replicas", "")),
            ("a typed list item", br#"{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"p","namespace":"prod"},"status":{"phase":5}}]}"#.to_vec(), Expect::Doc("1/items[0]", " (Pod prod/p)", "status.phase", "")),
            ("events.k8s.io regarding", b"apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: e, namespace: prod}\nregarding: cache\n".to_vec(), Expect::Doc("1", " (Event prod/e)", "regarding", "")),
            ("a valkey.io version not read", b"apiVersion: valkey.io/v1beta1\nkind: ValkeyNode\nmetadata: {name: node-a, namespace: prod}\n".to_vec(), Expect::Doc("1", " (ValkeyNode prod/node-a)", "apiVersion", "valkey.io/v1alpha1")),
            ("metadata a string", b"apiVersion: valkey.io/v1alpha1\nkind: ValkeyCluster\nmetadata: cache\n".to_vec(), Expect::Doc("1", " (ValkeyCluster)", "metadata", "")),
            ("a null item of a List", b"apiVersion: v1\nkind: List\nitems:\n- null\n".to_vec(), Expect::Doc("1/items[0]", "", "(document)", "null")),
            ("a ValkeyNode without apiVersion", b"kind: ValkeyNode\nmetadata: {name: node-a, namespace: prod}\n".to_vec(), Expect::Doc("1", " (ValkeyNode prod/node-a)", "apiVersion", "missing")),
        ];
    for (name, text, expect) in cases {
        let err = match parse_snapshot(&text, "snap.yaml") {
            Ok(s) => panic!("{name}: read without error: {s:?}"),
            Err(e) => e,
        };
        match (&err, &expect) {
            (Error::Read { path, problem }, Expect::Read(needle)) => {
                let problem = problem.to_string();
                assert_eq!(path, "snap.yaml", "{name}");
                assert!(problem.contains(needle), "{name}: {problem}");
                assert!(!problem.contains('\n'), "{name}: one line: {problem}");
            }
            (
                Error::Snapshot {
                    source_name,
                    doc,
                    object,
                    field,
                    problem,
                },
                Expect::Doc(want_doc, want_object, want_field, needle),
            ) => {
                assert_eq!(source_name, "snap.yaml", "{name}");
                assert_eq!(
                    (doc.as_str(), object.as_str(), field.as_str()),
                    (*want_doc, *want_object, *want_field),
                    "{name}: {err}"
                );
                assert!(problem.contains(needle), "{name}: {problem}");
            }
            _ => panic!("{name}: expected {expect:?}, got {err:?}"),
        }
        assert_eq!(err.exit(), crate::error::Exit::Error, "{name}");
    }
}

#[test]
fn the_error_message_names_document_object_and_field() {
    let err = parse("apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {name: cache-0-1, namespace: prod}\nstatus: {ready: maybe}\n")
            .expect_err("bad ready");
    let text = err.to_string();
    assert!(
        text.starts_with(
            "snap.yaml: document 1 (ValkeyNode prod/cache-0-1): field `status.ready`:"
        ),
        "{text}"
    );
}

/// Cuts and byte changes of valid input: whatever comes of it, an error
/// is a Read or Snapshot error, and nothing panics.
fn assert_no_panic(name: &str, text: &[u8]) {
    match parse_snapshot(text, "mutated.yaml") {
        Ok(_) | Err(Error::Read { .. } | Error::Snapshot { .. } | Error::NoObjects { .. }) => {}
        Err(other) => panic!("{name}: unexpected error kind {other:?}"),
    }
}

#[test]
fn truncations_and_mutations_never_panic() {
    let small = LIST.as_bytes();
    for cut in (0..small.len()).step_by(3) {
        assert_no_panic(&format!("LIST cut at {cut}"), &small[..cut]);
    }
    let json = serde_json::to_vec(&list_value()).unwrap_or_default();
    for cut in (0..json.len()).step_by(7) {
        assert_no_panic(&format!("JSON cut at {cut}"), &json[..cut]);
    }
    let replacements: &[u8] = b":-\"'[]{}\t\n #&*!|>%@`9\x00\xff";
    for (i, at) in (0..small.len()).step_by(13).enumerate() {
        let mut text = small.to_vec();
        text[at] = replacements[i % replacements.len()];
        assert_no_panic(&format!("LIST byte {at} changed"), &text);
        let mut text = json.clone();
        let at = at * json.len() / small.len();
        text[at] = replacements[(i + 5) % replacements.len()];
        assert_no_panic(&format!("JSON byte {at} changed"), &text);
    }
    let lines: Vec<&str> = LIST.lines().collect();
    for drop in 0..lines.len() {
        let mut kept = lines.clone();
        kept.remove(drop);
        assert_no_panic(
            &format!("LIST line {drop} dropped"),
            kept.join("\n").as_bytes(),
        );
        let mut doubled = lines.clone();
        doubled.insert(drop, lines[drop]);
        assert_no_panic(
            &format!("LIST line {drop} doubled"),
            doubled.join("\n").as_bytes(),
        );
    }
    for cut in (0..JAMMED.len()).step_by(JAMMED.len() / 12) {
        assert_no_panic(&format!("jammed cut at {cut}"), &JAMMED[..cut]);
    }
}

#[test]
fn examples_parse() {
    // (name, text, [clusters, nodes, statefulsets, deployments, pods, events])
    let cases: &[(&str, &[u8], [usize; 6])] = &[
        ("jammed", JAMMED, [1, 6, 6, 0, 6, 46]),
        ("jammed-p1", JAMMED_P1, [1, 6, 6, 0, 6, 50]),
        ("rolling", ROLLING, [1, 6, 6, 0, 6, 21]),
        ("converged", CONVERGED, [1, 6, 6, 0, 6, 88]),
    ];
    for (name, text, expected) in cases {
        let s = parse_snapshot(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(counts(&s), *expected, "{name}");
    }
}

/// The holder's pod: its server container restarted 7 times and waits
/// in CrashLoopBackOff after an OOMKill.
fn assert_crash_looping(s: &Snapshot, pod_name: &str) {
    let pod = s
        .pods
        .iter()
        .find(|p| p.metadata.name.as_deref() == Some(pod_name))
        .expect("holder's pod");
    let server = pod
        .status
        .as_ref()
        .and_then(|st| st.container_statuses.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.name == "server"))
        .expect("server container");
    assert_eq!(server.restart_count, 7);
    assert_eq!(
        server
            .state
            .as_ref()
            .and_then(|st| st.waiting.as_ref())
            .and_then(|w| w.reason.as_deref()),
        Some("CrashLoopBackOff")
    );
    assert_eq!(
        server
            .last_state
            .as_ref()
            .and_then(|st| st.terminated.as_ref())
            .and_then(|t| t.reason.as_deref()),
        Some("OOMKilled")
    );
}

fn node<'a>(s: &'a Snapshot, name: &str) -> &'a ValkeyNode {
    s.nodes
        .iter()
        .find(|n| n.name() == name)
        .unwrap_or_else(|| panic!("node {name}"))
}

#[test]
fn jammed_example_tells_its_story() {
    // P2, Spec-driven: the holder was advanced to its new revision and
    // image; the nodes behind keep the old image; nothing asks.
    let s = parse_snapshot(JAMMED, "jammed").expect("reads");
    let cluster = &s.clusters[0];
    assert_eq!(cluster.spec.image.as_deref(), Some("valkey/valkey:9.0.1"));
    let holder = node(&s, "cache-1-0");
    assert_eq!(
        holder.spec.workload_revision.as_deref(),
        Some(P2_HOLDER_REVISION)
    );
    assert_eq!(holder.spec.image.as_deref(), Some("valkey/valkey:9.0.1"));
    assert_eq!(holder.status.as_ref().and_then(|st| st.ready), None);
    let behind: Vec<&str> = s
        .nodes
        .iter()
        .filter(|n| n.spec.image.as_deref() == Some("valkey/valkey:9.0.0"))
        .map(|n| n.name())
        .collect();
    assert_eq!(behind, ["cache-1-1", "cache-2-0", "cache-2-1"]);
    assert!(
        s.nodes
            .iter()
            .all(|n| n.condition(keys::COND_PENDING).is_none())
    );
    assert!(
        s.nodes
            .iter()
            .all(|n| n.annotation(keys::ANN_PERMIT).is_none())
    );
    assert_crash_looping(&s, "valkey-cache-1-0-0");
    let advanced: Vec<(String, String)> = s
        .events
        .iter()
        .filter(|e| e.reason.as_deref() == Some(keys::EVENT_NODE_UPDATED))
        .filter_map(|e| {
            Some((
                e.related.as_ref()?.name.clone()?,
                e.event_time.as_ref()?.0.to_string(),
            ))
        })
        .collect();
    assert_eq!(
        advanced,
        [
            (
                "cache-0-0".to_string(),
                "2026-11-29T10:00:31.618342Z".to_string()
            ),
            (
                "cache-0-1".to_string(),
                "2026-11-29T10:01:07.28447Z".to_string()
            ),
            (
                "cache-1-0".to_string(),
                "2026-11-29T10:02:10.482913Z".to_string()
            ),
        ]
    );
    let status = cluster.status.as_ref().expect("cluster status");
    assert_eq!(
        (status.state.as_deref(), status.reason.as_deref()),
        (Some("Reconciling"), Some("UpdatingNodes"))
    );
    // The spec edit's time is in the ValkeyCluster's managedFields.
    let patch = cluster
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .find(|m| m.manager.as_deref() == Some("kubectl-patch"))
        .and_then(|m| m.time.as_ref())
        .map(|t| t.0.to_string());
    assert_eq!(patch.as_deref(), Some("2026-11-29T10:00:31Z"));
}

#[test]
fn p1_jammed_example_tells_its_story() {
    let s = parse_snapshot(JAMMED_P1, "jammed-p1").expect("reads");
    let holder = node(&s, "cache-1-1");
    assert_eq!(holder.annotation(keys::ANN_PERMIT), Some(P1_PERMIT));
    assert_eq!(holder.annotation(keys::ANN_DESIRED), None);
    assert_eq!(holder.spec.workload_revision, None);
    let waiting: Vec<&str> = s
        .nodes
        .iter()
        .filter(|n| {
            n.annotation(keys::ANN_DESIRED).is_some()
                && n.condition(keys::COND_DRIFT).is_some_and(|c| c.is_true())
        })
        .map(|n| n.name())
        .collect();
    assert_eq!(waiting, ["cache-1-0", "cache-2-0", "cache-2-1"]);
    assert_crash_looping(&s, "valkey-cache-1-1-0");
    let permitted: Vec<String> = s
        .events
        .iter()
        .filter(|e| e.reason.as_deref() == Some(keys::EVENT_PERMITTED))
        .filter(|e| e.related.as_ref().and_then(|r| r.name.as_deref()) == Some("cache-1-1"))
        .filter_map(|e| e.event_time.as_ref().map(|t| t.0.to_string()))
        .collect();
    assert_eq!(permitted, ["2026-11-29T10:02:10.482913Z"]);
}

#[test]
fn p2_examples_carry_the_workload_revision() {
    let rolling = parse_snapshot(ROLLING, "rolling").expect("reads");
    let advanced: Vec<&str> = rolling
        .nodes
        .iter()
        .filter(|n| n.condition(keys::COND_PENDING).is_none())
        .map(|n| n.name())
        .collect();
    assert_eq!(advanced, ["sessions-0-1"]);
    assert!(
        rolling
            .nodes
            .iter()
            .all(|n| n.spec.workload_revision.is_some())
    );
    let converged = parse_snapshot(CONVERGED, "converged").expect("reads");
    // Each node's revision is its own (the template names the node).
    let revisions: std::collections::BTreeSet<_> = converged
        .nodes
        .iter()
        .filter_map(|n| n.spec.workload_revision.clone())
        .collect();
    assert_eq!(revisions.len(), 6);
    let ready = converged.clusters[0]
        .conditions()
        .iter()
        .find(|c| c.type_ == keys::COND_READY)
        .expect("Ready condition");
    assert!(ready.is_true());
    assert_eq!(
        ready.observed_generation,
        converged.clusters[0].metadata.generation
    );
}

mod depth_and_words {
    use super::*;

    /// `levels` nested sequences in an annotation-free field of a kind the
    /// plugin ignores, as YAML flow and as JSON.
    fn nested(levels: usize, json: bool) -> Vec<u8> {
        let inner = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        if json {
            format!(r#"{{"apiVersion": "v1", "kind": "ConfigMap", "spec": {inner}}}"#).into_bytes()
        } else {
            format!("apiVersion: v1\nkind: ConfigMap\nspec: {inner}\n").into_bytes()
        }
    }

    #[test]
    fn yaml_is_read_as_deep_as_json() {
        // The document is one level, `data` another.
        for json in [false, true] {
            for levels in [60, 100, MAX_DEPTH - 2] {
                assert!(
                    parse_snapshot(&nested(levels, json), "deep").is_ok(),
                    "{levels} levels, json {json}"
                );
            }
            let err = parse_snapshot(&nested(MAX_DEPTH + 10, json), "deep")
                .expect_err("too deep")
                .to_string();
            assert!(err.contains("nested deeper than 128 levels"), "{err}");
        }
    }

    #[test]
    fn parse_errors_are_in_a_kubectl_users_words() {
        // (case, text, wanted in the message)
        let cases: &[(&str, &[u8], &str)] = &[
            ("duplicate keys", b"kind: Pod\nkind: Pod\n", "duplicate"),
            ("too many aliases", b"", "aliases"),
            (
                "truncated JSON",
                br#"{"kind": "Pod", "metadata": {"#,
                "the text ends in the middle of a value",
            ),
            ("bad JSON", br#"{"kind": "Pod",, }"#, "line 1, column"),
            ("a word for a time", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x, creationTimestamp: yesterday}\n", "field `metadata.creationTimestamp`: not an RFC 3339 time"),
            ("month 13", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x, creationTimestamp: \"2026-13-01T00:00:00Z\"}\n", "not an RFC 3339 time"),
            ("a number for a time", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x, creationTimestamp: 5}\n", "expected an RFC 3339 time"),
            ("a word for a port", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec: {containers: [{name: c, ports: [{containerPort: x}]}]}\n", "expected a whole number"),
            ("a fraction for a generation", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x, generation: 1.5}\n", "the number `1.5`, expected a whole number"),
            ("a list for an int-or-string", b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: p, namespace: x}\nspec: {selector: {}, template: {}, strategy: {rollingUpdate: {maxSurge: [1]}}}\n", "expected a number or a string"),
            ("a list for a quantity", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec: {containers: [{name: c, resources: {limits: {cpu: [1]}}}]}\n", "expected a quantity"),
            ("YAML's n", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: n}\n", "quote it"),
            ("YAML's y as a kind", b"kind: y\n", "found a boolean (YAML reads an unquoted y"),
            ("bad YAML in the third document", b"kind: X\n---\nkind: Z\n---\na: [1\n", "not valid YAML in document 3"),
            ("bad JSON in the second document", b"{\"kind\": \"X\"}\n{\"kind\": \"Y\",}", "not valid JSON in document 2: trailing comma (line 2, column 14)"),
        ];
        let aliases = format!("a: &a x\nb: [{}]\n", vec!["*a"; 60_000].join(", "));
        for (name, text, want) in cases {
            let text = if text.is_empty() {
                aliases.as_bytes()
            } else {
                text
            };
            let err = parse_snapshot(text, "snap.yaml")
                .expect_err(name)
                .to_string();
            assert!(err.contains(want), "{name}: {err}");
            for jargon in [
                "DuplicateKeyPolicy",
                "Options",
                " { ",
                "Option<",
                "Depth",
                "budget",
            ] {
                assert!(!err.contains(jargon), "{name}: {jargon:?} in {err}");
            }
        }
    }
}

mod ignored_items {
    use super::*;

    /// A List of many kinds: the items of kinds the plugin ignores are left
    /// out while they are read, the others read as before, and an error
    /// names the item by its index in the file.
    #[test]
    fn ignored_items_are_dropped_and_the_others_keep_their_index() {
        let item = |kind: &str, api: &str, name: &str| {
            format!(
                "- apiVersion: {api}\n  kind: {kind}\n  metadata: {{name: {name}, namespace: prod}}\n"
            )
        };
        let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for i in 0..5 {
            text.push_str(&item("ConfigMap", "v1", &format!("cm-{i}")));
        }
        text.push_str(&item("Pod", "v1", "valkey-cache-0-0-0"));
        text.push_str(&item("Secret", "v1", "s"));
        // Keys in another order: kept whole, judged as before.
        text.push_str("- metadata: {name: late, namespace: prod}\n  kind: Pod\n  apiVersion: v1\n");
        for json in [false, true] {
            let input = if json {
                let value: Value = serde_saphyr::from_str(&text).expect("yaml");
                serde_json::to_vec(&value).expect("json")
            } else {
                text.clone().into_bytes()
            };
            let s = parse_snapshot(&input, "list").expect("reads");
            let pods: Vec<&str> = s
                .pods
                .iter()
                .filter_map(|p| p.metadata.name.as_deref())
                .collect();
            assert_eq!(pods.len(), 2, "json {json}: {pods:?}");
            // An error in an item after skipped ones names its own index.
            let broken = format!(
                "{text}- apiVersion: v1\n  kind: Pod\n  metadata: {{name: bad, namespace: prod}}\n  status: {{phase: [x]}}\n"
            );
            let input = if json {
                let value: Value = serde_saphyr::from_str(&broken).expect("yaml");
                serde_json::to_vec(&value).expect("json")
            } else {
                broken.into_bytes()
            };
            let err = parse_snapshot(&input, "list").expect_err("broken");
            assert!(
                err.to_string()
                    .contains("document 1/items[8] (Pod prod/bad)"),
                "json {json}: {err}"
            );
        }
        // What is dropped is not kept: a tiny Doc for a List of ignored kinds.
        let mut many = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for i in 0..1000 {
            many.push_str(&item("ConfigMap", "v1", &format!("cm-{i}")));
        }
        let doc: Doc = serde_saphyr::from_str(&many).expect("doc");
        assert_eq!(doc.value["items"], Value::Array(vec![]));
        assert_eq!(doc.kept.as_deref(), Some(&[][..]));
    }

    /// Keys no read kind has are skipped, never built (issue 22, item
    /// 1): at the top of a List, and in an item before its `kind`.
    #[test]
    fn keys_no_read_kind_has_are_not_built() {
        let json = br#"{"apiVersion":"v1","items":[{"apiVersion":"v1","data":{"k":"v"},"kind":"Pod","metadata":{"name":"p","namespace":"x"}}],"kind":"List","x":[1,1,1]}"#;
        let yaml = "apiVersion: v1\nitems:\n- apiVersion: v1\n  data: {k: v}\n  kind: Pod\n  metadata: {name: p, namespace: x}\nkind: List\nx: [1, 1, 1]\n";
        let docs: [Doc; 2] = [
            serde_json::from_slice(json).expect("json"),
            serde_saphyr::from_str(yaml).expect("yaml"),
        ];
        for doc in docs {
            assert_eq!(doc.value.get("x"), None, "{:?}", doc.value);
            let streamed = doc.streamed.as_ref().expect("streamed");
            assert_eq!(streamed.snapshot.pods.len(), 1);
            assert_eq!(streamed.seen, 1);
        }
        // An item kept as a value (no kind: a typed list's) loses them too.
        let typed = br#"{"kind":"PodList","items":[{"data":[1,2],"metadata":{"name":"p"}}]}"#;
        let doc: Doc = serde_json::from_slice(typed).expect("json");
        assert_eq!(doc.value["items"][0].get("data"), None, "{:?}", doc.value);
    }
}

/// Issue 22 (items 6, 7, 8): look-alike kinds, duplicate keys, numbers and
/// the library's words, each naming document, object and field.
mod round_two {
    use super::*;

    /// (case, text, the error's document, object, field, words in it)
    type Case = (
        &'static str,
        Vec<u8>,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    );

    fn assert_cases(cases: Vec<Case>) {
        for (name, text, doc_want, object_want, field_want, want) in cases {
            match parse_snapshot(&text, "snap") {
                Err(Error::Snapshot {
                    doc,
                    object,
                    field,
                    problem,
                    ..
                }) => {
                    assert_eq!(
                        (doc.as_str(), object.as_str(), field.as_str()),
                        (doc_want, object_want, field_want),
                        "{name}: {problem}"
                    );
                    assert!(problem.contains(want), "{name}: {problem}");
                    for jargon in [
                        "Options",
                        "policy",
                        "weak recursion",
                        "ignore_binary",
                        "i32",
                        "f64",
                        "1.8446744073709552e19",
                    ] {
                        assert!(!problem.contains(jargon), "{name}: {jargon:?} in {problem}");
                    }
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    fn pod_yaml(metadata: &str, status: &str) -> Vec<u8> {
        format!("apiVersion: v1\nkind: Pod\nmetadata: {metadata}\nstatus: {status}\n").into_bytes()
    }

    #[test]
    fn look_alike_kinds_and_duplicate_keys_are_errors() {
        let in_list = |item: &str| {
            format!(r#"{{"apiVersion":"v1","kind":"List","items":[{item}]}}"#).into_bytes()
        };
        let cases: Vec<Case> = vec![
            (
                "a ValkeyNode at v1",
                b"apiVersion: v1\nkind: ValkeyNode\nmetadata: {name: node, namespace: prod}\n"
                    .to_vec(),
                "1",
                " (ValkeyNode prod/node)",
                "apiVersion",
                "`v1` is not the valkey.io group",
            ),
            (
                "a ValkeyCluster of another group",
                b"apiVersion: example.com/v1\nkind: ValkeyCluster\nmetadata: {name: c}\n".to_vec(),
                "1",
                " (ValkeyCluster c)",
                "apiVersion",
                "reads ValkeyCluster at valkey.io/v1alpha1 only",
            ),
            (
                "kind in lower case",
                in_list(
                    r#"{"apiVersion":"valkey.io/v1alpha1","kind":"valkeynode","metadata":{"name":"n"}}"#,
                ),
                "1/items[0]",
                " (valkeynode n)",
                "kind",
                "`valkeynode` is not a kind this plugin reads (it reads ValkeyNode",
            ),
            (
                "kind in upper case, plural",
                b"apiVersion: valkey.io/v1alpha1\nkind: VALKEYCLUSTERS\nmetadata: {name: c}\n"
                    .to_vec(),
                "1",
                " (VALKEYCLUSTERS c)",
                "kind",
                "it reads ValkeyCluster",
            ),
            (
                "a second kind in JSON",
                in_list(
                    r#"{"apiVersion":"valkey.io/v1alpha1","kind":"ValkeyNode","kind":"Pod","metadata":{"name":"n"}}"#,
                ),
                "1/items[0]",
                " (ValkeyNode)",
                "kind",
                "the key `kind` is in this mapping twice",
            ),
            (
                "a second name in JSON",
                br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}}"#.to_vec(),
                "1",
                " (Pod)",
                "metadata.name",
                "twice",
            ),
            (
                "a second label in JSON",
                in_list(
                    r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"p","labels":{"x":"1","x":"2"}}}"#,
                ),
                "1/items[0]",
                " (Pod)",
                "metadata.labels.x",
                "twice",
            ),
            (
                "a second items in JSON",
                br#"{"apiVersion":"v1","kind":"List","items":[],"items":[]}"#.to_vec(),
                "1",
                " (List)",
                "items",
                "twice",
            ),
        ];
        assert_cases(cases);
    }

    #[test]
    fn numbers_read_and_said_as_written() {
        let restarts = |n: &str| format!("{{containerStatuses: [{{name: c, restartCount: {n}}}]}}");
        let json_pod = |generation: &str| {
            format!(r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"x","generation":{generation}}}}}"#)
                .into_bytes()
        };
        let m = "{name: p, namespace: x}";
        let cases: Vec<Case> = vec![
            (
                "2^64, JSON",
                json_pod("18446744073709551616"),
                "1",
                " (Pod x/p)",
                "metadata.generation",
                "the number `18446744073709551616` is out of range",
            ),
            (
                "2^64, YAML",
                pod_yaml("{name: p, namespace: x, generation: 18446744073709551616}", "{}"),
                "1",
                " (Pod x/p)",
                "metadata.generation",
                "the number `18446744073709551616` is out of range",
            ),
            (
                "int32 + 1",
                pod_yaml(m, &restarts("2147483648")),
                "1",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "the number `2147483648` is out of range (this field holds a whole number from -2147483648 to 2147483647)",
            ),
            (
                "a fraction is still not whole",
                pod_yaml(m, &restarts("1.5")),
                "1",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "the number `1.5`, expected a whole number",
            ),
            (
                "1e400 in JSON",
                br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"x"},"status":{"containerStatuses":[{"name":"c","restartCount":1e400}]}}"#.to_vec(),
                "1",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "the number `1e400` is beyond what any number field holds",
            ),
            (
                "an empty name",
                pod_yaml("{name: '', namespace: x}", "{}"),
                "1",
                " (Pod)",
                "metadata.name",
                "empty",
            ),
            (
                "an empty kind",
                b"apiVersion: v1\nkind: ''\n".to_vec(),
                "1",
                "",
                "kind",
                "empty",
            ),
        ];
        assert_cases(cases);
        // -0 is 0, as Go and the API server read it.
        for text in [
            json_pod("-0"),
            json_pod("-0.0"),
            pod_yaml("{name: p, namespace: x, generation: -0}", "{}"),
        ] {
            let s = parse_snapshot(&text, "snap").expect("-0 reads");
            assert_eq!(s.pods[0].metadata.generation, Some(0));
        }
    }

    #[test]
    fn parse_errors_name_document_object_and_field_in_plain_words() {
        let m = "{name: p, namespace: x}";
        let list =
            |item: &str| format!("apiVersion: v1\nkind: List\nitems:\n- {item}\n").into_bytes();
        let cases: Vec<Case> = vec![
            (
                ".nan",
                list(&format!("apiVersion: v1\n  kind: Pod\n  metadata: {m}\n  status: {{containerStatuses: [{{name: c, restartCount: .nan}}]}}")),
                "1/items[0]",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "`.nan` is not a number any field of a Kubernetes object holds",
            ),
            (
                "-.inf",
                pod_yaml(m, "{containerStatuses: [{name: c, restartCount: -.inf}]}"),
                "1",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "is not a number any field",
            ),
            (
                "a recursive alias",
                b"apiVersion: v1\nkind: Pod\nmetadata: &m {name: p, namespace: x, labels: *m}\n".to_vec(),
                "1",
                " (Pod)",
                "metadata.labels",
                "an alias (*name) inside the anchor (&name) it repeats",
            ),
            (
                "!!binary that is not text",
                b"apiVersion: v1\nkind: Pod\nmetadata: {name: !!binary //79, namespace: x}\n".to_vec(),
                "1",
                " (Pod)",
                "metadata.name",
                "a !!binary value that is not UTF-8 text",
            ),
            (
                "a bad item after good ones",
                format!(
                    "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: ConfigMap}}\n- apiVersion: v1\n  kind: Pod\n  metadata: {m}\n  status: {{phase: .nan}}\n"
                )
                .into_bytes(),
                "1/items[1]",
                " (Pod x/p)",
                "status.phase",
                "`.nan`",
            ),
            (
                "a YAML duplicate key",
                b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  name: q\n".to_vec(),
                "1",
                " (Pod)",
                "metadata",
                "duplicate",
            ),
        ];
        assert_cases(cases);
        // No object and field to name: the document and the bound.
        let nested = format!("{}1{}", "{a: ".repeat(200), "}".repeat(200));
        let comment = format!("# {}\napiVersion: v1\n", "x".repeat(65 * 1024 * 1024));
        for (name, text, want) in [
            (
                "a YAML flow mapping 200 deep",
                nested.as_bytes(),
                "not valid YAML in document 1: nested deeper than 128 levels",
            ),
            (
                "a 65 MiB comment",
                comment.as_bytes(),
                "more than 64 MiB of comments",
            ),
        ] {
            let err = parse_snapshot(text, "snap").expect_err(name).to_string();
            assert!(err.contains(want), "{name}: {err}");
            assert!(!err.contains("JSON"), "{name}: {err}");
        }
    }
}

/// A read that failed in the system keeps the system's error typed (its
/// kind, for code); what the reader found itself is words. Both print as
/// before.
#[test]
fn a_failed_read_keeps_the_system_s_error_typed() {
    use crate::error::ReadProblem;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("missing.yaml");
    match super::read_snapshot(&missing) {
        Err(Error::Read {
            problem: ReadProblem::Io(e),
            ..
        }) => assert_eq!(e.kind(), std::io::ErrorKind::NotFound),
        other => panic!("expected the system's error, got {other:?}"),
    }
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, b"kind: List\x00\n").expect("a temporary file");
    let err = super::read_snapshot(&bad).expect_err("a control character");
    assert!(
        matches!(
            &err,
            Error::Read {
                problem: ReadProblem::Text(_),
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("byte 0x00 (a control character) at line 1"),
        "{err}"
    );
}
